"""Game files by e-mail (README: E-mail): read them out of a message or an mbox, check them against
a game folder, write the outgoing message, send it over SMTP.

Reading trusts nothing in a message but the seals of the files in it: a game file is found by its
content (a TOML document with a ``[pbem]`` table, attached or pasted into a plain-text part, quoted
or not), never by an attachment's name; it is filed under the name the game folder convention gives
its content. Sizes and the shape of a message are bounded, checked on its raw text before the email
package parses any of it (README: E-mail, Bounds). Writing is deterministic: the same files,
addresses and date give the same bytes.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import email
import email.errors
import email.header
import email.parser
import email.policy
import email.utils
import encodings
import hashlib
import io
import re
import smtplib
import ssl
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage, Message, MIMEPart
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

from pbem import __version__
from pbem.engine.model import Event
from pbem.engine.registry import find_module
from pbem.errors import (
    IllegalOrdersError,
    MalformedFileError,
    PbemError,
    Problem,
    TamperError,
    UsageError,
    VerificationError,
)

from . import mailtime, names
from .canonical import canonical, check_seal, digest
from .chain import Chain, check_origin, find_equivocation, keys_of, same_keys, sequence_of
from .files import parse_toml
from .game import (
    Doc,
    adjudicator_of,
    check_orders,
    check_state_seal,
    derived_files,
    envelope,
    load_doc,
    load_state,
    parse_doc,
)
from .report import report_version

MAX_MESSAGE_BYTES = 10 * 1024 * 1024  # one message (an .eml file, or one message of an mbox)
MAX_MAILBOX_BYTES = 50 * 1024 * 1024  # a whole mbox file
MAX_FILE_BYTES = 1024 * 1024  # one game file, attached or pasted
MAX_FILES = 50  # game files in one message
MAX_FILES_BYTES = 2 * 1024 * 1024  # the game files of one message together (each read once)
MAX_MAILBOX_FILES = 2000  # game files in one mbox
MAX_MAILBOX_FILES_BYTES = 8 * 1024 * 1024  # the game files of one mbox together
MAX_PARTS = 500  # MIME parts in one message
MAX_MAILBOX_PARTS = 10_000  # MIME parts in one mbox
MAX_MESSAGES = 1000  # messages in one mbox
# The shape of a message, checked on its raw text before the email package parses any of it. The
# parser's work grows with the lines times the nesting depth (each line is tested against every
# enclosing boundary), and a header parameter list is re-read whole for each parameter: so each is
# bounded, generously for what mail programs send (README: E-mail, Bounds).
MAX_LINES = 500_000  # lines in one message
MAX_MAILBOX_LINES = 2_500_000  # lines in one mbox
MAX_DEPTH = 20  # MIME parts nested in one another (a forwarded message counts two)
MAX_HEADER_BYTES = 256 * 1024  # the header of a message (or of a message attached to it)
MAX_PART_HEADER_BYTES = 64 * 1024  # the header of one MIME part
MAX_ALL_HEADER_BYTES = 1024 * 1024  # all the headers of one message and its parts together
MAX_HEADER_LINES = 5000  # lines in the header of a message
MAX_PART_HEADER_LINES = 500  # lines in the header of one MIME part
MAX_FIELD_BYTES = 64 * 1024  # one header field, unfolded
MAX_PARAMS = 200  # parameters of a Content-Type or Content-Disposition field (counted by their ';')
MAX_ENCODED_WORDS = 1000  # RFC 2047 encoded words ('=?') in one header field
MAX_CONTINUATIONS = 100  # RFC 2231 continuations (name*0, name*1, ...) in one header field
MAX_KEY_PARTS = 16  # dotted parts of a TOML key or table name in a game file (a.b.c is 3)

# Structural defects that mean the message was cut off or mangled: reading it would be guessing.
_FATAL_DEFECTS: dict[type[email.errors.MessageDefect], str] = {
    email.errors.MissingHeaderBodySeparatorDefect: "it does not start with header lines (From:, To:, ...)",
    email.errors.CloseBoundaryNotFoundDefect: "a MIME part is not closed: the message is truncated",
    email.errors.StartBoundaryNotFoundDefect: "its MIME parts are missing: the message is truncated or mangled",
    email.errors.NoBoundaryInMultipartDefect: "a multipart part has no boundary",
    email.errors.MultipartInvariantViolationDefect: "its MIME structure is inconsistent",
    email.errors.InvalidMultipartContentTransferEncodingDefect: "a multipart part has an invalid transfer encoding",
    email.errors.InvalidBase64PaddingDefect: "a base64 part is damaged (truncated?)",
    email.errors.InvalidBase64CharactersDefect: "a base64 part contains characters base64 does not have",
    email.errors.InvalidBase64LengthDefect: "a base64 part is damaged (truncated?)",
}

_PBEM_LINE = re.compile(r"^[ \t]*\[[ \t]*pbem[ \t]*\][ \t]*(?:#.*)?$")
_QUOTE = re.compile(r"^((?:[ \t]{0,3}>)+)[ \t]?")
_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_KEYVAL = re.compile(rf"^[ \t]*{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*[ \t]*=[ \t]*(?P<value>.*)$")
_HEADER = re.compile(rf"^[ \t]*\[\[?[ \t]*{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*[ \t]*\]\]?[ \t]*(?:#.*)?$")
_VALUE_START = re.compile(r"""^(?:["'\[{+\-0-9]|true\b|false\b|inf\b|nan\b)""")


def display(text: str, limit: int = 80) -> str:
    """A string from a message, safe to print: control characters replaced, length bounded."""
    out = "".join(c if c.isprintable() else "?" for c in text)
    return out if len(out) <= limit else out[: limit - 3] + "..."


def lf(text: str) -> str:
    """CRLF (and lone CR) line endings to LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- finding game files in a message -------------------------------------------------------------

@dataclass
class Found:
    """A game file found in a message: its text (LF line endings: what is filed), its parsed data
    (None if it could not be read, see ``error``) and every place it was found."""

    text: str
    data: dict[str, Any] | None
    sources: list[str]
    error: PbemError | None = None
    notes: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # the labels of the messages that carried it


@dataclass
class Extracted:
    messages: int
    files: list[Found]
    others: list[tuple[str, str]]  # (source, text) of the other text-like parts: reports, pictures
    skipped: list[PbemError] = field(default_factory=list)  # damaged messages of an mbox or Maildir, not read
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)  # each message's evidence of time, by label


# A message starts at a "From " line at the top of an mbox or after an empty line ("\n" or "\r\n";
# the line before it ends in "\n", "\r\n" or a lone "\r").
_MBOX_FROM = re.compile(rb"(?:\n\n|\n\r\n|\r\r\n)From ")
_MBOX_LINE_END = re.compile(rb"\r\n|\r|\n")
_MBOX_ESCAPE = re.compile(rb"(?:^|(?<=[\r\n]))>(?=>*From )")


def split_mbox(raw: bytes, limit: int | None = None) -> list[bytes]:
    """The messages of an mbox: each starts at a ``From `` line at the top or after an empty line;
    ``>From `` escapes (mboxrd) are undone. With ``limit``, at most ``limit + 1`` are returned."""
    starts = [0] if raw.startswith(b"From ") else []
    for m in _MBOX_FROM.finditer(raw):
        starts.append(m.end() - len(b"From "))
        if limit is not None and len(starts) > limit:
            break
    msgs: list[bytes] = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(raw)
        eol = _MBOX_LINE_END.search(raw, start, end)
        body = raw[eol.end():end] if eol is not None else b""
        msgs.append(_MBOX_ESCAPE.sub(b"", body))
    return msgs


def count_lines(raw: bytes) -> int:
    """Lines as the email package splits them: at CRLF, LF or a lone CR."""
    n = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")
    return n + (1 if raw and raw[-1:] not in (b"\n", b"\r") else 0)


class _Over(Exception):
    """A bound of README: E-mail exceeded, at ``place`` (the message, or one of its MIME parts)."""

    def __init__(self, place: str, what: str) -> None:
        super().__init__(f"{place}: {what}")
        self.place, self.what = place, what


_BOUND_HINT = ("pbem reads no part of a message beyond these bounds (README: E-mail): it is damaged, or built to "
               "exhaust a mail reader. Ask the sender for the game files in a plain message (`pbem mail write` makes one).")
_STRUCTURED = ("content-type", "content-disposition")  # the fields whose parameters the email package reads
_CONTINUATION = re.compile(r"\*[0-9]+\*?[ \t]*=")
_CHARSET_2231 = re.compile(r"""\*[ \t]*=[ \t]*"?([^'"*=;\s]*)'""")
# Codecs Python has that are not charsets of mail text: decoding with them is slow (punycode is
# quadratic) or fails whatever the error handling. Text in them is read as UTF-8.
_NOT_MAIL_CHARSETS = frozenset({"punycode", "idna", "undefined"})


def _codec(charset: str) -> str | None:
    try:
        return codecs.lookup(charset).name
    except (LookupError, ValueError, TypeError):
        return None


def _field_excess(lines: list[str]) -> str | None:
    """What in one header field (its lines as read, folded) is over a bound; None if nothing is.
    Linear in the field's length: it counts characters, parsing nothing."""
    text = "".join(line.rstrip("\r\n") for line in lines)
    name = text.split(":", 1)[0]
    field = f"the {display(name.strip(), 40)} field of its header"
    if name.strip().lower() in _STRUCTURED:
        n = text.count(";")
        if n > MAX_PARAMS:
            return f"{field} has {n} parameters; pbem reads at most {MAX_PARAMS}"
        for m in _CHARSET_2231.finditer(text):  # named as codecs.lookup names them, importing nothing
            cs = m.group(1)
            if encodings.normalize_encoding(cs.lower()) in _NOT_MAIL_CHARSETS:
                return f"{field} declares the charset '{display(cs, 40)}' (RFC 2231), which is no charset of mail text"
    n = text.count("=?")
    if n > MAX_ENCODED_WORDS:
        return f"{field} has {n} RFC 2047 encoded words; pbem reads at most {MAX_ENCODED_WORDS} in one field"
    n = len(_CONTINUATION.findall(text))
    if n > MAX_CONTINUATIONS:
        return f"{field} has {n} RFC 2231 continuations; pbem reads at most {MAX_CONTINUATIONS} in one field"
    if len(text) > MAX_FIELD_BYTES:
        return f"{field} is {len(text)} bytes long; pbem reads at most {MAX_FIELD_BYTES} in one field"
    return None


class _BoundedPolicy(email.policy.Compat32):
    """How pbem parses mail: compat32, which keeps header values as text (none is parsed until it
    is asked for, and pbem asks only for a part's type, name, charset and boundary), with each
    header field's bounds checked again as the parser collects it."""

    def header_source_parse(self, sourcelines: list[str]) -> tuple[str, str]:
        excess = _field_excess(sourcelines)
        if excess is not None:
            raise _Over("one of its parts", excess)
        return super().header_source_parse(sourcelines)


_POLICY = _BoundedPolicy()
_HEADER_LINE = re.compile(r"From |[\x21-\x39\x3b-\x7e]*:|[\t ]")  # a line the parser takes as part of a header
_LINE_END = re.compile(r"\r\n|\r|\n")


class _Layout:
    """The MIME parts of a message as the email package's parser will find them, found on the raw
    text (the same lines, header blocks and part boundaries: parts end at their own boundary line
    or an enclosing one's, a message/* part holds a message, multipart/digest parts default to
    message/rfc822), with every bound checked on each header before anything parses it. A header
    is parsed only within its bounds, and only for its part's type and boundary."""

    def __init__(self, text: str, parts: int = MAX_PARTS, in_mbox: bool = False) -> None:
        self.max_parts = parts  # fewer than MAX_PARTS when an mbox's other messages used some
        self.in_mbox = in_mbox
        self.lines = deque(io.StringIO(text, newline="").readlines())
        self.ends: list[Callable[[str], object]] = []  # the enclosing parts' boundary tests
        self.blank_ends = 0  # how many of them end a part at an empty line (delivery-status blocks)
        self.header_bytes = 0
        self.parts: list[tuple[str, list[tuple[str, str]]]] = []  # (place, header fields), in parse order

    def line(self) -> str:
        """The next line; "" at the end of the text or of a part (the line that ends it stays)."""
        if not self.lines:
            return ""
        line = self.lines.popleft()
        # only a line starting "--" can match a boundary, only an empty one a delivery-status block's end
        if (line.startswith("--") or (self.blank_ends and line[:1] in ("\r", "\n"))) and any(end(line) for end in self.ends):
            self.lines.appendleft(line)
            return ""
        return line

    def skip(self) -> None:
        while self.line():
            pass

    def part(self, place: str, number: str, depth: int, message: bool, digest: bool) -> None:
        """One part: its header, then its body (read past, or split into the parts it holds)."""
        if len(self.parts) >= self.max_parts:
            if self.max_parts < MAX_PARTS and self.in_mbox:
                raise _Over(place, f"the mbox has more than {MAX_MAILBOX_PARTS} MIME parts")
            raise _Over(place, f"the message has more than {MAX_PARTS} MIME parts")
        if depth > MAX_DEPTH:
            raise _Over(place, f"MIME parts nested more than {MAX_DEPTH} deep")
        block: list[str] = []
        while True:
            line = self.line()
            if not line:
                break
            if not _HEADER_LINE.match(line):
                if not _LINE_END.match(line):  # no empty line after the header: this line is the body's
                    self.lines.appendleft(line)
                break
            block.append(line)
        self.check(block, place, message)
        if len(block) > 1 and block[-1].startswith("From "):  # the parser gives this line back to the body
            self.lines.appendleft(block.pop())
        head = email.parser.HeaderParser(policy=_POLICY).parsestr("".join(block))
        if digest:
            head.set_default_type("message/rfc822")
        self.parts.append((place, head.items()))
        ctype = head.get_content_type()
        kid = number + "." if number else ""
        if ctype == "message/delivery-status":  # blocks of header fields, each ended by an empty line
            n = 0
            while True:
                n += 1
                self.ends.append(_LINE_END.match)
                self.blank_ends += 1
                self.part(f"MIME part {kid}{n}", f"{kid}{n}", depth + 1, False, False)
                self.blank_ends -= 1
                self.ends.pop()
                self.line()
                line = self.line()
                if not line:
                    return
                self.lines.appendleft(line)
        maintype = head.get_content_maintype()
        if maintype == "message":
            self.part(f"the message attached as {place}" if number else "the attached message", number, depth + 1, True, False)
            return
        boundary = head.get_boundary() if maintype == "multipart" else None
        if boundary is None:
            self.skip()
            return
        delimiter = re.compile(re.escape("--" + boundary) + r"(--)?[ \t]*(?:\r\n|\r|\n)?$")
        started = False
        n = 0
        while True:
            line = self.line()
            if not line:
                break
            m = delimiter.match(line)
            if m is None:
                continue  # the preamble
            if m.group(1):  # the closing delimiter: the rest is the epilogue
                self.skip()
                return
            if not started:
                started = True
                self.lines.appendleft(line)
                continue
            while True:  # repeated delimiters open one part
                line = self.line()
                if not delimiter.match(line):
                    self.lines.appendleft(line)
                    break
            n += 1
            self.ends.append(delimiter.match)
            self.part(f"MIME part {kid}{n}", f"{kid}{n}", depth + 1, False, ctype == "multipart/digest")
            self.ends.pop()
        if not started:
            self.skip()

    def check(self, block: list[str], place: str, message: bool) -> None:
        """The bounds of one header block: each field, its lines and bytes, and all headers so far."""
        start = 0
        for i in range(1, len(block) + 1):
            if i == len(block) or block[i][:1] not in (" ", "\t"):
                excess = _field_excess(block[start:i])
                if excess is not None:
                    raise _Over(place, excess)
                start = i
        what = "a message" if message else "a MIME part"
        max_lines, max_bytes = (MAX_HEADER_LINES, MAX_HEADER_BYTES) if message else (MAX_PART_HEADER_LINES, MAX_PART_HEADER_BYTES)
        size = sum(len(line) for line in block)
        if len(block) > max_lines:
            raise _Over(place, f"its header has {len(block)} lines; pbem reads at most {max_lines} in the header of {what}")
        if size > max_bytes:
            raise _Over(place, f"its header is {size} bytes; pbem reads at most {max_bytes} in the header of {what}")
        self.header_bytes += size
        if self.header_bytes > MAX_ALL_HEADER_BYTES:
            raise _Over(place, f"the headers of the message and its parts come to more than {MAX_ALL_HEADER_BYTES} bytes")


def layout(raw: bytes, parts: int = MAX_PARTS, in_mbox: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    """The MIME parts of a message, as the email package will parse them: (place, header fields)
    of each, in the order of ``Message.walk()``; at most ``parts`` of them. Raises ``_Over`` (see
    parse_message)."""
    lay = _Layout(raw.decode("ascii", "surrogateescape"), parts, in_mbox)
    lay.part("the message", "", 0, True, False)
    return lay.parts


class _Damaged(MalformedFileError):
    """A message that is damaged (cut off, mangled, not a message): of a mailbox's messages, it is
    skipped and reported. A message over a bound is not: it may be built to exhaust the reader."""


def _over(where: str, e: _Over) -> MalformedFileError:
    return MalformedFileError(f"{where}: {e.place}: {e.what}", hint=_BOUND_HINT)


def parse_message(raw: bytes, where: str, mbox_parts: int | None = None) -> Message:
    """Parse one message; a message that is cut off, mangled or over a bound is a
    MalformedFileError (exit 2). The bounds are checked on the raw text first. In an mbox,
    ``mbox_parts`` is how many MIME parts its other messages left (MAX_MAILBOX_PARTS in all)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise MalformedFileError(f"{where}: {len(raw)} bytes is larger than the {MAX_MESSAGE_BYTES} bytes a message may have",
                                 hint="Send the game files in a message of their own.")
    if b"\x00" in raw:
        raise _Damaged(f"{where}: contains NUL bytes: not an e-mail message",
                                 hint="Give the message as saved by your mail program (.eml) or an mbox file.")
    if not raw.strip():
        raise _Damaged(f"{where}: the message is empty")
    lines = count_lines(raw)
    if lines > MAX_LINES:
        raise MalformedFileError(f"{where}: {lines} lines is more than the {MAX_LINES} lines a message may have", hint=_BOUND_HINT)
    try:
        layout(raw, MAX_PARTS if mbox_parts is None else min(MAX_PARTS, mbox_parts), mbox_parts is not None)
        msg = email.message_from_bytes(raw, policy=_POLICY)
        parts = list(msg.walk())
    except _Over as e:
        raise _over(where, e) from e
    except Exception as e:  # the parser is lenient; anything it still cannot take is malformed input
        raise _Damaged(f"{where}: cannot be read as an e-mail message ({type(e).__name__}: {display(str(e))})") from e
    if len(parts) > MAX_PARTS:
        raise MalformedFileError(f"{where}: {len(parts)} MIME parts is more than the {MAX_PARTS} a message may have")
    if not msg.keys():
        raise _Damaged(f"{where}: not an e-mail message: it has no header lines",
                                 hint="Give the message as saved by your mail program (.eml), or a game file directly to `pbem check`.")
    for part in parts:
        _fatal(part, where)
    return msg


def _fatal(part: Message, where: str) -> None:
    for d in part.defects:
        for cls, text in _FATAL_DEFECTS.items():
            if isinstance(d, cls):
                raise _Damaged(f"{where}: malformed message: {text}",
                                         hint="Ask the sender to send it again, or save it again from your mail program.")


Mailbox = list[tuple[str, bytes]]  # the raw messages of an mbox or a Maildir, each with its label


def read_messages(raw: bytes | Mailbox, where: str, skipped: list[PbemError] | None = None) -> list[tuple[str, Message]]:
    """The messages of an .eml file, an mbox or (given as its messages) a Maildir, each with its
    label for error messages. Of several messages, one that cannot be read (damaged, truncated,
    over a message's bounds) is added to ``skipped`` and the others are read; a bound of the whole
    mailbox stops it all."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_MAILBOX_BYTES:
            raise MalformedFileError(f"{where}: {len(raw)} bytes is larger than the {MAX_MAILBOX_BYTES} bytes pbem reads")
        if not raw.startswith(b"From "):
            return [(where, parse_message(raw, where))]
        lines = count_lines(raw)
        if lines > MAX_MAILBOX_LINES:
            raise MalformedFileError(f"{where}: {lines} lines is more than the {MAX_MAILBOX_LINES} lines pbem reads from one mbox",
                                     hint=_BOUND_HINT)
        chunks = split_mbox(raw, MAX_MESSAGES)
        if len(chunks) > MAX_MESSAGES:
            raise MalformedFileError(f"{where}: more than {MAX_MESSAGES} messages; pbem reads at most {MAX_MESSAGES} from one mbox")
        box = [(f"{where}, message {i}" if len(chunks) > 1 else where, chunk) for i, chunk in enumerate(chunks, 1)]
    else:
        box = raw
    out: list[tuple[str, Message]] = []
    left = MAX_MAILBOX_PARTS
    for label, chunk in box:
        try:
            msg = parse_message(chunk, label, left)
        except _Damaged as e:
            if len(box) == 1 or skipped is None:
                raise
            skipped.append(e)  # one damaged message does not stop the others
            continue
        left -= sum(1 for _ in msg.walk())
        out.append((label, msg))
    return out


def is_maildir(path: Path) -> bool:
    return path.is_dir() and (path / "cur").is_dir() and (path / "new").is_dir()


def read_maildir(path: Path) -> Mailbox:
    """The messages of a Maildir (its new/ and cur/ folders, read through the ``mailbox`` module),
    in the order of their unique names (the order they were delivered in), each a regular file read
    within bounds: a FIFO or device under a message's name is refused, never waited for."""
    import mailbox

    from .files import read_bytes

    if not is_maildir(path):
        raise UsageError(f"{path}: cannot read the message file: it is a directory, not a regular file, and not a Maildir "
                         "(it has no cur/ and new/ folders)",
                         hint="Give an .eml file, an mbox file, a Maildir folder, or - for standard input.")
    try:
        box = mailbox.Maildir(str(path), factory=None, create=False)
        keys = sorted(box.keys())
        files = [path / box._lookup(k) for k in keys]  # type: ignore[attr-defined]  # the file of each message
    except (OSError, mailbox.Error) as e:
        raise MalformedFileError(f"{path}: cannot read the Maildir ({e})") from e
    if len(files) > MAX_MESSAGES:
        raise MalformedFileError(f"{path}: more than {MAX_MESSAGES} messages; pbem reads at most {MAX_MESSAGES} from one Maildir",
                                 hint="Read it in parts, or move the messages already read to another folder.")
    out: Mailbox = []
    total = lines = 0
    for f in files:
        raw = read_bytes(f, MAX_MESSAGE_BYTES, "message file")
        total += len(raw)
        lines += count_lines(raw)
        if total > MAX_MAILBOX_BYTES or lines > MAX_MAILBOX_LINES:
            raise MalformedFileError(f"{path}: its messages come to more than the {MAX_MAILBOX_BYTES} bytes or "
                                     f"{MAX_MAILBOX_LINES} lines pbem reads from one mailbox", hint=_BOUND_HINT)
        out.append((f"{path}, message {f.name}" if len(files) > 1 else f"{path}, {f.name}", raw))
    return out


def read_stdin(stream: Any) -> bytes:
    """A message (or an mbox) from standard input, read up to the bound of an mbox."""
    data = stream.read(MAX_MAILBOX_BYTES + 1)
    if len(data) > MAX_MAILBOX_BYTES:
        raise MalformedFileError(f"standard input: more than the {MAX_MAILBOX_BYTES} bytes pbem reads")
    return bytes(data)


def _payload(part: Message, where: str) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception as e:
        raise _Damaged(f"{where}: a part cannot be decoded ({type(e).__name__}: {e})") from e
    _fatal(part, where)
    return data if isinstance(data, bytes) else b""


def decode_text(data: bytes, charset: str | None) -> str:
    """Text in the charset a message declares for it; in UTF-8 (the game files' charset) when that
    is unknown or no charset of mail text."""
    codec = _codec(charset) if charset else None
    try:
        text = data.decode(codec if codec is not None and codec not in _NOT_MAIL_CHARSETS else "utf-8", errors="replace")
    except (LookupError, UnicodeError):  # a codec of bytes, not of text
        return data.decode("utf-8", errors="replace")
    # a charset like UTF-7 can spell a lone surrogate, which no text can hold: replaced
    return text.encode("utf-8", errors="replace").decode("utf-8") if any("\ud800" <= c <= "\udfff" for c in text) else text


def _text_of(part: Message, data: bytes) -> str:
    return lf(decode_text(data, part.get_content_charset()))


def _name_of(part: Message) -> str | None:
    """An attachment's file name, for messages only (a game file's name comes from its content):
    RFC 2231 is undone by the parser; RFC 2047 encoded words are decoded here, in the name's first
    characters only (enough to show it)."""
    name = part.get_filename()
    if name is None or "=?" not in name:
        return name
    try:
        return "".join(decode_text(b, cs) if isinstance(b, bytes) else b
                       for b, cs in email.header.decode_header(name[:1000]))
    except (email.errors.HeaderParseError, ValueError, TypeError):
        return name


def unflow(text: str, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines (ending in a space) of equal quote depth."""
    out: list[str] = []
    para: str | None = None
    pdepth = 0

    def emit(depth: int, s: str) -> None:
        out.append((">" * depth + " " + s) if depth else s)

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing
        flowed = content.endswith(" ") and content != "-- "
        if para is not None and depth != pdepth:
            emit(pdepth, para)
            para = None
        piece = content[:-1] if flowed and delsp else content
        para = piece if para is None else para + piece
        pdepth = depth
        if not flowed:
            emit(depth, para)
            para = None
    if para is not None:
        emit(pdepth, para)
    return "\n".join(out)


def _unquote(line: str) -> tuple[int, str]:
    m = _QUOTE.match(line)
    if m is None:
        return 0, line
    return m.group(1).count(">"), line[m.end():]


def _scan(s: str, depth: int, ml: str | None) -> tuple[int, str | None]:
    """Track open brackets and multi-line strings over a piece of a TOML value."""
    i = 0
    while i < len(s):
        if ml is not None:
            j = s.find(ml, i)
            if j < 0:
                return depth, ml
            i, ml = j + 3, None
            continue
        c = s[i]
        if s.startswith('"""', i) or s.startswith("'''", i):
            ml, i = s[i:i + 3], i + 3
            continue
        if c == '"':
            i += 1
            while i < len(s) and s[i] != '"':
                i += 2 if s[i] == "\\" else 1
            i += 1
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = len(s) if j < 0 else j + 1
            continue
        if c == "#":
            break
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, ml


# --- what mail programs do to a pasted file, undone ----------------------------------------------

# Characters mail programs put in place of a space, or add where there was nothing; TOML has none of
# them outside its strings.
_SPACES = {"\u00a0": " ", "\u2007": " ", "\u202f": " "}
_INVISIBLE = ("\ufeff", "\u200b", "\u2060")


def _normal(line: str) -> str:
    """A line with non-breaking spaces as spaces and byte-order marks and zero-width spaces taken
    out: how it is read to find where a pasted file starts and ends."""
    for c in _INVISIBLE:
        line = line.replace(c, "")
    for c, r in _SPACES.items():
        line = line.replace(c, r)
    return line


_EMPTY_VALUE = re.compile(rf"^[ \t]*{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*[ \t]*=[ \t]*$")


def _open_string(line: str) -> bool:
    """Whether a line ends inside a one-line TOML string (a string wrapped onto the next line).
    A multi-line string (three quotes) is legitimately open: False."""
    i = 0
    while i < len(line):
        c = line[i]
        if line.startswith('"""', i) or line.startswith("'''", i):
            return False
        if c == "#":
            return False
        if c == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            if i >= len(line):
                return True
        elif c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                return True
            i = j
        i += 1
    return False


def _wrapped(line: str) -> bool:
    """Whether a line of a pasted file was cut by a mail program: a key without its value, or a
    one-line string left open."""
    n = _normal(line)
    return bool(_EMPTY_VALUE.match(n)) or _open_string(n)


@dataclass
class Repair:
    """A pasted file's text as the mail program should have left it, and what was undone."""

    text: str
    joined: int = 0  # lines re-joined
    width: int | None = None  # the column at which words were cut, when they were
    spaces: bool = False  # non-breaking spaces made spaces
    marks: bool = False  # byte-order marks or zero-width spaces taken out

    def what(self) -> str:
        did = []
        if self.joined:
            at = f" at {self.width} columns" if self.width else ""
            did.append(f"wrapped the lines of the signed file{at}")
        if self.spaces:
            did.append("turned spaces into non-breaking spaces")
        if self.marks:
            did.append("added byte-order marks or zero-width spaces")
        return " and ".join(did)


def repair(text: str) -> Repair:
    """Undo what mail programs do to a file pasted into a message: non-breaking spaces, byte-order
    marks, zero-width spaces, and lines wrapped at 72-78 columns (a line cut after a key's ``=`` or
    inside a one-line string is joined with the next: with nothing between them when it was cut
    inside a word, at the width of the block's longest line, or when it ends in a space (a soft
    break); else with the space the break took). A deterministic function of the text: the result
    is used only if its seal verifies."""
    out = Repair(text)
    lines = lf(text).split("\n")
    width = max((len(x) for x in lines), default=0)
    joined: list[str] = []
    cut_widths: set[int] = set()
    i = 0
    while i < len(lines):
        line = last = lines[i]  # the logical line, and the last line of the text it is made of
        i += 1
        while _wrapped(line) and i < len(lines) and lines[i].strip() and lines[i] != "-- ":
            nxt = lines[i]
            i += 1
            out.joined += 1
            if _EMPTY_VALUE.match(_normal(line)):
                line = line.rstrip() + " " + nxt.lstrip()
            elif line.endswith((" ", "\t")):
                line += nxt
            elif len(last) >= width:
                cut_widths.add(len(last))
                line += nxt
            else:
                line += " " + nxt
            last = nxt
        joined.append(line)
    fixed = "\n".join(joined)
    norm = "\n".join(_normal(x) for x in fixed.split("\n"))
    out.spaces = any(c in fixed for c in _SPACES)
    out.marks = any(c in fixed for c in _INVISIBLE)
    out.text = norm
    out.width = max(cut_widths) if cut_widths else None
    return out


class _HtmlText(HTMLParser):
    """The text of an HTML part as a mail program shows it: line breaks at <br>, <p>, <div> and the
    other blocks, whitespace collapsed except inside <pre>, entities decoded; no scripts or styles."""

    _BLOCKS = frozenset({"p", "div", "pre", "li", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6",
                         "blockquote", "ul", "ol", "hr", "body"})
    _HIDDEN = frozenset({"head", "style", "script", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in self._BLOCKS:
            self.out.append("\n")
        if tag == "pre":
            self.pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" or tag in self._BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in self._BLOCKS:
            self.out.append("\n")
        if tag == "pre":
            self.pre = max(self.pre - 1, 0)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        self.out.append(lf(data) if self.pre else re.sub(r"[ \t\r\n]+", " ", data))


def html_text(html: str) -> str:
    """The text of an HTML part (see ``_HtmlText``); lines stripped of the spaces HTML layout adds."""
    p = _HtmlText()
    try:
        p.feed(html)
        p.close()
    except Exception:  # the parser is lenient; anything it cannot take leaves what it read
        pass
    return "\n".join(line.rstrip(" ") if line.strip() else "" for line in "".join(p.out).split("\n"))


def inline_blocks(text: str, limit: int | None = None) -> list[tuple[int, str]]:
    """Game files pasted into a plain-text body: ``(line, text)`` for each block (with ``limit``,
    at most ``limit + 1`` blocks: the caller refuses more than it reads).

    A block starts at a line ``[pbem]`` (after a quoting prefix such as ``> `` or ``>> ``, which is
    stripped from every line of the block: all must have the same quote depth) and runs while its
    lines are TOML: blank lines, comments, table headers, ``key = value`` lines and the lines of a
    multi-line value. It ends at the first other line, at another quote depth, or at the next
    ``[pbem]`` line (the next file).
    """
    lines = lf(text).split("\n")
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(lines) and (limit is None or len(out) <= limit):
        qdepth, content = _unquote(_normal(lines[i]))
        if not _PBEM_LINE.match(content):
            i += 1
            continue
        start, body = i, [_unquote(lines[i])[1]]
        depth, ml = 0, None
        i += 1
        cut = False  # the last line was cut by a mail program: the next one continues it, whatever it looks like
        while i < len(lines):
            d, c = _unquote(_normal(lines[i]))
            raw = _unquote(lines[i])[1]
            if cut:
                if d not in (qdepth, 0) or not c.strip() or lines[i] in ("-- ", "--"):
                    break
                body[-1] += "\n" + raw  # (repair() joins them, if the file is to verify)
                i += 1
                cut = _wrapped(body[-1].replace("\n", ""))
                continue
            if d != qdepth:
                break
            if ml is not None or depth > 0:
                depth, ml = _scan(c, depth, ml)
            else:
                s = c.strip()
                if _PBEM_LINE.match(c):
                    break
                if s and not s.startswith("#") and not _HEADER.match(c):
                    m = _KEYVAL.match(c)
                    if _EMPTY_VALUE.match(c):  # a key whose value a mail program wrapped onto the next line
                        body.append(raw)
                        i += 1
                        cut = True
                        continue
                    if m is None or not _VALUE_START.match(m.group("value")):
                        break
                    depth, ml = _scan(m.group("value"), depth, ml)
            body.append(raw)
            i += 1
            cut = ml is None and _wrapped(c)
        while body and not body[-1].strip():
            body.pop()
        out.append((start + 1, "\n".join(body) + "\n"))
    return out


# A TOML key or table name of more than MAX_KEY_PARTS dotted parts, anywhere in a text (in a string
# or a comment too: no pbem file has such a run of dots). Python's TOML reader takes time and memory
# growing with the square of a key's parts. Linear: a match starts only at the start of a key part,
# and parts are taken possessively.
_TOML_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_LONG_KEY = re.compile(rf"(?<![A-Za-z0-9_-]){_TOML_PART}(?:[ \t]*+\.[ \t]*+{_TOML_PART}){{{MAX_KEY_PARTS}}}")


def _candidate(text: str, where: str, first_line: int = 0) -> Found:
    """A game file candidate from its text (a whole attachment, or a block pasted at ``first_line``)."""
    raw = text.encode("utf-8")
    if len(raw) > MAX_FILE_BYTES:
        return Found(text, None, [where], MalformedFileError(
            f"{where}: {len(raw)} bytes is larger than the {MAX_FILE_BYTES} bytes a game file may have"))
    long_key = _LONG_KEY.search(text)
    if long_key is not None:
        line = text.count("\n", 0, long_key.start()) + first_line + (0 if first_line else 1)
        return Found(text, None, [where], MalformedFileError(
            f"{where}: a key or table name of more than {MAX_KEY_PARTS} dotted parts "
            f"(at line {line}{' of the text' if first_line else ''}): no pbem file has one",
            hint="Reading such keys takes time growing with the square of their length; pbem does not read the file."))
    try:
        data = parse_toml(raw, where)
    except MalformedFileError as e:
        if first_line:  # say where in the text of the mail
            e.message = re.sub(r"\(at line (\d+), column (\d+)\)",
                               lambda m: f"(at line {int(m.group(1)) + first_line - 1} of the text)", e.message)
        e.hint = "The file is cut off or was changed on the way (a mail program wrapping long lines?): send it again, as an attachment."
        return Found(text, None, [where], e)
    if not isinstance(data.get("pbem"), dict):
        return Found(text, None, [where], MalformedFileError(f"{where}: has a [pbem] line but no [pbem] table"))
    return Found(text, data, [where])


class _Gather:
    """The game files of a message or mbox, each text read once and only once all are found within
    bounds: the same text found again (attached and pasted, quoted in a reply) only adds the place;
    the texts to read come to at most MAX_FILES_BYTES per message and MAX_MAILBOX_FILES_BYTES in
    all (the TOML reader takes seconds per MB on a file built for it)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.found: dict[str, Found] = {}  # by text, unread (data None, no error) until read()
        self.lines: dict[str, int] = {}
        self.pasted: dict[str, bool] = {}  # the texts pasted into a body: True for those taken out of HTML
        self.count = self.total = self.size = self.message_size = 0

    def message(self) -> None:
        self.count = self.message_size = 0

    def add(self, label: str, text: str, source: str, first_line: int = 0, error: PbemError | None = None,
            pasted: bool = False, html: bool = False) -> None:
        """A game file found at ``source`` (or, with ``error``, a file that cannot be one)."""
        self.count += 1
        self.total += 1
        if self.count > MAX_FILES:
            raise MalformedFileError(f"{label}: more than {MAX_FILES} game files in one message")
        if self.total > MAX_MAILBOX_FILES:
            raise MalformedFileError(f"{self.where}: more than {MAX_MAILBOX_FILES} game files in one mbox",
                                     hint="Read it in parts: one message, or a smaller mbox, at a time.")
        if error is not None:
            self.found[f"\x00{len(self.found)}"] = Found("", None, [source], error, messages=[label])  # (no text has a NUL: see parse_message)
            return
        text = lf(text.removeprefix("\ufeff"))
        have = self.found.get(text)
        if have is not None:
            have.sources.append(source)
            have.messages.append(label)
            return
        size = len(text.encode("utf-8"))
        if size <= MAX_FILE_BYTES:  # a larger one is refused unread
            self.size += size
            self.message_size += size
            if self.message_size > MAX_FILES_BYTES:
                raise MalformedFileError(f"{label}: its game files come to more than the {MAX_FILES_BYTES} bytes pbem reads "
                                         "from one message", hint="Send them in several messages.")
            if self.size > MAX_MAILBOX_FILES_BYTES:
                raise MalformedFileError(f"{self.where}: its game files come to more than the {MAX_MAILBOX_FILES_BYTES} bytes "
                                         "pbem reads from one mbox", hint="Read it in parts: one message, or a smaller mbox, at a time.")
        self.found[text] = Found(text, None, [source], messages=[label])
        self.lines[text] = first_line
        if pasted or html:
            self.pasted[text] = html

    def read(self) -> list[Found]:
        """Each text read (as TOML), deduplicated by content: the same data written another way is one file."""
        files: dict[str, Found] = {}
        for text, f in self.found.items():
            if f.error is None:
                got = _candidate(text, f.sources[0], self.lines[text])
                f.data, f.error = got.data, got.error
                if text in self.pasted:
                    _repaired(f, self.lines[text], self.pasted[text])
            key = hashlib.sha256(canonical(f.data) if f.data is not None and _jsonable(f.data) else text.encode()).hexdigest()
            if key in files:
                files[key].sources += f.sources
                files[key].messages += f.messages
            else:
                files[key] = f
        return list(files.values())


_Leaf = tuple[int, Message, str, str | None, str | None, dict[str, str], str, bytes]


def _leaves(msg: Message, label: str) -> list[_Leaf]:
    """The leaf parts of a message, each with its number, type, file name, disposition, parameters,
    name for messages and decoded content: all decoded before any is looked at, so that a damaged
    part stops its message before anything of it is taken."""
    out: list[_Leaf] = []
    for n, part in enumerate((p for p in msg.walk() if not p.is_multipart()), 1):
        ctype = part.get_content_type()
        try:
            filename = _name_of(part)
            disposition = part.get_content_disposition()
            params = {str(k): str(v) for k, v in (part.get_params() or [])}
        except Exception as e:
            raise _Damaged(f"{label}: part {n}: unreadable MIME headers ({type(e).__name__})") from e
        name = f"attachment '{display(filename)}'" if filename else f"part {n} ({display(ctype)})"
        out.append((n, part, ctype, filename, disposition, params, name, _payload(part, f"{label}: {name}")))
    return out


def _verifies(data: dict[str, Any] | None) -> bool:
    """Whether a document's seal verifies (by the key it names: who that must be is checked later)."""
    if data is None:
        return False
    try:
        check_seal(data, "")
    except PbemError:
        return False
    except Exception:  # a value of the wrong type in the seal: it does not verify
        return False
    return True


def _repaired(f: Found, first_line: int, html: bool) -> None:
    """A file pasted into a body (or taken out of HTML) as the sender sealed it: the text as found
    if its seal verifies; else the text with what the mail program did undone (``repair``), if that
    verifies; else an error that says what the mail program did. The text taken out of an HTML part
    is accepted only if its seal verifies."""
    if _verifies(f.data):
        return
    where = f.sources[0]
    fix = repair(f.text)
    if fix.text != f.text:
        alt = _candidate(fix.text, where, first_line)
        if _verifies(alt.data):
            f.text, f.data, f.error = fix.text, alt.data, None
            f.notes.append(f"your mail program {fix.what()}: undone, and the seal verifies")
            return
    if fix.what() and (f.error is not None or html):
        f.data, f.error = None, MalformedFileError(
            f"{where}: your mail program {fix.what()}: send it as an attachment",
            hint="Undone, the file's seal still does not verify, so pbem does not guess further. Attach the file "
                 "(or `pbem mail write` the message) rather than paste it.")
    elif html:
        f.data, f.error = None, MalformedFileError(
            f"{where}: a game file in the HTML of a message without a plain-text part, whose seal does not verify as "
            "read from the HTML", hint="pbem takes a file out of HTML only when its seal verifies: attach the file, or send "
                                       "the message as plain text.")


def extract(raw: bytes | Mailbox, where: str) -> Extracted:
    """Every game file in a message, an mbox or a Maildir (deduplicated by content), and the other
    text parts; of several messages, the damaged ones are skipped (``Extracted.skipped``)."""
    skipped: list[PbemError] = []
    messages = read_messages(raw, where, skipped)
    total = len(messages) + len(skipped)
    got = _Gather(where)
    others: list[tuple[str, str]] = []
    evidence: dict[str, dict[str, Any]] = {}
    for label, msg in messages:
        got.message()
        evidence[label] = mailtime.evidence(msg)
        try:
            leaves = _leaves(msg, label)
        except _Damaged as e:
            if total == 1:
                raise
            skipped.append(e)  # one damaged message of a mailbox does not stop the others
            continue
        plain = any(ctype == "text/plain" and not filename and disposition != "attachment"
                    for _, _, ctype, filename, disposition, _, _, _ in leaves)
        for n, part, ctype, filename, disposition, params, name, data in leaves:
            body = ctype == "text/plain" and not filename and disposition != "attachment"
            html = ctype == "text/html"
            if html and (plain or len(data) > MAX_FILES_BYTES):
                continue  # the HTML copy of a plain-text body (or too large to be read as a pasted file)
            if body or html:
                text = _text_of(part, data)
                if html:
                    text = html_text(text)
                elif str(params.get("format", "")).lower() == "flowed":
                    text = unflow(text, str(params.get("delsp", "")).lower() == "yes")
                where_body = "the body" if len(leaves) == 1 else f"part {n} ({ctype})"
                blocks = inline_blocks(text, MAX_FILES - got.count)
                if got.count + len(blocks) > MAX_FILES:  # before reading any of them
                    raise MalformedFileError(f"{label}: more than {MAX_FILES} game files in one message")
                for line, block in blocks:
                    got.add(label, block, f"{label}: {where_body}, {'read from its HTML' if html else 'pasted'} at line {line}",
                            line, pasted=True, html=html)
            elif re.search(rb"^[ \t]*\[[ \t]*pbem[ \t]*\][ \t]*(?:#[^\r\n]*)?\r?$", data, re.M):
                try:
                    got.add(label, data.decode("utf-8"), f"{label}: {name}")
                except UnicodeDecodeError as e:
                    got.add(label, "", f"{label}: {name}", error=MalformedFileError(
                        f"{label}: {name}: has a [pbem] line but is not UTF-8 text (byte {e.start})",
                        hint="pbem files are UTF-8; send the file as it was written."))
            elif len(data) <= MAX_FILE_BYTES:
                try:
                    others.append((f"{label}: {name}", lf(data.decode("utf-8"))))
                except UnicodeDecodeError:
                    pass
    return Extracted(total, got.read(), others, skipped, evidence)


def _jsonable(data: Any) -> bool:
    try:
        canonical(data)
    except (TypeError, ValueError):
        return False
    return True


# --- checking what was found against a game folder -----------------------------------------------

@dataclass
class Entry:
    """One file found in the mail, what it is, and what the check said."""

    kind: str
    text: str
    sources: list[str]
    data: dict[str, Any] = field(default_factory=dict)
    digest: str = ""
    name: str | None = None  # the game-folder name, from the content
    sequence: int | None = None
    # new: to be filed (--folder); known: already in the folder; found: checked, no --folder; held: good, but
    # not filed because another file is not; skipped: not compared (another pbem version); error
    status: str = "found"
    notes: list[str] = field(default_factory=list)
    error: PbemError | None = None
    messages: list[str] = field(default_factory=list)  # the labels of the messages that carried it
    mail: list[dict[str, Any]] = field(default_factory=list)  # their evidence of time (and the verdict on it)
    deadline: tuple[str, str] | None = None  # a submission's: the due time and grace end of the step it answers

    def fail(self, e: PbemError) -> None:
        self.status, self.error = "error", e

    def as_json(self) -> dict[str, Any]:
        h = self.data.get("pbem", {}) if isinstance(self.data.get("pbem"), dict) else {}
        out: dict[str, Any] = {
            "kind": self.kind, "name": self.name, "status": self.status, "sources": self.sources, "notes": self.notes,
            "game": h.get("game"), "side": h.get("side"), "step": h.get("step"), "sequence": self.sequence,
            "answers": h.get("answers") or h.get("of"), "digest": self.digest or None, "error": None,
            "mail": self.mail,
        }
        if self.error is not None:
            e = self.error
            out["error"] = {"exit": e.exit_code, "message": e.message, "hint": e.hint, "problems": [p.as_json() for p in e.problems]}
        return out


@dataclass
class MailRead:
    where: str
    messages: int
    folder: Path | None
    entries: list[Entry]
    skipped: list[PbemError] = field(default_factory=list)  # damaged messages of a mailbox, not read
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)  # each message's evidence of time, by label

    @property
    def errors(self) -> list[Entry]:
        return [e for e in self.entries if e.error is not None]

    @property
    def exit_code(self) -> int:
        codes = {e.error.exit_code for e in self.errors if e.error is not None}
        for c in (3, 2, 1):
            if c in codes:
                return c
        return 0

    def error(self) -> PbemError | None:
        """One error for all the problems (the most serious one's exit code); None if there is none."""
        errs = [e.error for e in self.errors if e.error is not None]
        if not errs:
            return None
        if len(errs) == 1:
            e = errs[0]
            hint = f"{e.hint} Nothing was written." if e.hint else "Nothing was written."
            return type(e)(e.message, e.problems, hint)
        cls: type[PbemError] = {3: TamperError, 2: MalformedFileError}.get(self.exit_code, IllegalOrdersError)
        problems = [Problem(f"exit {e.exit_code}", e.message, hint=e.hint) for e in errs]
        return cls(f"{self.where}: {len(errs)} of the {len(self.entries)} files found are not accepted; nothing was written", problems)

    def writes(self) -> list[tuple[Path, str]]:
        """The new files to file into the folder (none if anything is wrong)."""
        if self.folder is None or self.errors:
            return []
        return [(self.folder / e.name, e.text) for e in self.entries if e.status == "new" and e.name]

    def records(self) -> list[tuple[Path, str]]:
        """The mail records (``FILE.mail``, ``mailtime``) to write or grow beside each game file filed
        or found already filed: the new text of each that changes (none if anything is wrong). A
        record there that is not this file's is refused (MalformedFileError) before anything is written.
        A message with neither a Date nor a Received header says nothing of time: it is not recorded."""
        if self.folder is None or self.errors:
            return []
        out: list[tuple[Path, str]] = []
        for e in self.entries:
            if e.status not in ("new", "known") or not e.name or not e.digest or e.kind not in ("state", "view", *names.SUBMISSIONS):
                continue
            path = mailtime.record_path(self.folder / e.name)
            evidence = [self.evidence[m] for m in e.messages if m in self.evidence]
            evidence = [ev for ev in evidence if "date" in ev or ev.get("received")]
            if not evidence:
                continue
            text = mailtime.merged(path, e.name, e.digest, evidence)
            if text is not None:
                out.append((path, text))
        return out

    def annotate(self) -> None:
        """Each entry's messages' evidence of time, with a submission's verdict against its step's deadline."""
        for e in self.entries:
            e.mail = []
            for m in e.messages:
                ev = self.evidence.get(m)
                if ev is None:
                    continue
                item = dict(ev)
                if e.deadline is not None:
                    item["verdict"] = mailtime.verdict(ev, *e.deadline)
                e.mail.append(item)


def _by_number(doc: Doc) -> str:
    """How the intake names a state of the folder or the mail in its messages: by its number."""
    return f"state {names.number(sequence_of(doc))}"


def _folder_chain(folder: Path | None) -> Chain:
    """The game folder's history, read as `pbem verify` reads it; a fork in it stops the intake."""
    if folder is None:
        return Chain(label=_by_number)
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such game folder", hint="Give the folder of the game (make it first for a new game).")
    chain = Chain.read([folder], label=_by_number)
    fork = chain.fork(chain.states + chain.views)
    if fork is not None:
        raise fork.error()
    return chain


def _answered(doc: Doc) -> str:
    """The digest that orders answer: a state's own, or for a view the full state's it shows."""
    return str(doc.data["pbem"]["of"]) if doc.kind == "view" else doc.digest


_REPORT_HEAD = re.compile(r"# .*: report ([0-9]{4,})(?:, for the [a-z][a-z0-9-]* side)?")  # a report's first line


class _Reader:
    """The checks of `pbem mail read` over the files of one mail (README: E-mail)."""

    def __init__(self, where: str, folder: Path | None, extracted: Extracted) -> None:
        self.where, self.folder, self.ex = where, folder, extracted
        self.chain = _folder_chain(folder)  # the folder's files; the mail's join, order and reply files are added to it
        self.states: dict[int, Doc] = {sequence_of(d): d for d in self.chain.states}
        self.views: list[Doc] = list(self.chain.views)
        self.games = {str(d.data["pbem"]["game"]) for d in self.chain.docs}
        # the folder's trusted start for views: its earliest state or view (a state first at one number)
        history = sorted(self.chain.states + self.chain.views, key=lambda d: (sequence_of(d), d.kind != "state"))
        self.start: Doc | None = history[0] if history else None
        # the mail's other text parts by text, and by the number of the report their first line names:
        # each transition looks up its own report and picture rather than reading every part
        self.other_texts: dict[str, list[int]] = {}
        self.report_heads: dict[str, list[int]] = {}
        for i, (_, text) in enumerate(extracted.others):
            self.other_texts.setdefault(text, []).append(i)
            head = _REPORT_HEAD.fullmatch(text, 0, max(text.find("\n"), 0))
            if head is not None:
                self.report_heads.setdefault(head.group(1), []).append(i)
        self.claimed: dict[str, str] = {}
        self.rejected: set[str] = set()
        self.entries: list[Entry] = []

    # the folder's own name for a file, and whether it is there already
    def _existing(self, name: str) -> str | None:
        if self.folder is None or not (self.folder / name).exists():
            return None
        try:
            return load_doc(self.folder / name).digest
        except PbemError:
            return "(unreadable)"

    def _claim(self, e: Entry, fork: bool = False) -> None:
        assert e.name is not None
        if not names.is_game_file(e.name):  # cannot happen with schema-valid content; never write outside the folder
            raise MalformedFileError(f"{e.sources[0]}: no safe file name can be made from its content")
        have = self.claimed.get(e.name)
        if have is not None and have != e.digest:
            cls = TamperError if fork else UsageError
            raise cls(f"{e.sources[0]}: another file of this mail has the same name {e.name} and a different content",
                      hint="Only one of them can be filed; ask the sender which one counts.")
        self.claimed[e.name] = e.digest
        e.status = "new" if self.folder is not None else "found"

    def _check_game(self, doc: Doc) -> None:
        game = str(doc.data["pbem"]["game"])
        if self.games and game not in self.games:
            held = ", ".join(sorted(self.games))
            raise TamperError(f"{doc.path}: belongs to game '{game}', but {self.folder or 'the other files'} hold{'s' if self.folder else ''} game '{held}'",
                              hint="It was sent for another game: file it in that game's folder.")

    def run(self) -> MailRead:
        docs: list[tuple[Entry, Doc]] = []
        for f in self.ex.files:
            e = Entry(str((f.data or {}).get("pbem", {}).get("kind", "unknown")), f.text, f.sources, notes=list(f.notes),
                      messages=list(dict.fromkeys(f.messages)))
            self.entries.append(e)
            if f.error is not None or f.data is None:
                e.fail(f.error or MalformedFileError(f"{f.sources[0]}: unreadable"))
                continue
            e.data = f.data
            try:
                doc = parse_doc(f.data, Path(f.sources[0]))
                e.digest = doc.digest
            except PbemError as err:
                e.fail(err)
                continue
            docs.append((e, doc))
        for _, doc in docs:
            if doc.kind in names.SUBMISSIONS and doc.digest not in self.chain.inputs:
                self.chain.add(doc)  # the inputs a state of the mail replays with
        order = {"state": 0, "view": 1}
        docs.sort(key=lambda x: (order.get(x[1].kind, 2), int(x[1].data["pbem"].get("sequence", 0))))
        for e, doc in docs:
            try:
                if doc.kind == "state":
                    self._state(e, doc)
                elif doc.kind == "view":
                    self._view(e, doc)
                else:
                    self._submission(e, doc)
            except PbemError as err:
                e.fail(err)
                if doc.kind in ("state", "view"):
                    self.rejected.add(_answered(doc))
        if any(e.error is not None for e in self.entries):
            for e in self.entries:  # the good files are not filed either
                if e.status == "new":
                    e.status = "held"
                    e.notes.append("not filed: another file of this mail is not accepted")
        return MailRead(self.where, self.ex.messages, self.folder, self.entries, self.ex.skipped, self.ex.evidence)

    def _state(self, e: Entry, doc: Doc) -> None:
        h = doc.data["pbem"]
        seq = int(h["sequence"])
        e.sequence, e.name = seq, names.state(seq)
        self._check_game(doc)
        have = self.states.get(seq)
        if have is not None:
            if have.digest == doc.digest:  # (the mail's own files are deduplicated: this one is the folder's)
                e.status = "known"
                e.notes.append("already in the folder")
                self._known_derived(seq)
                return
            eq = find_equivocation([have, doc])
            if eq is not None:
                raise eq.error()
            raise TamperError(f"{doc.path}: fork: state {names.number(seq)} differs from the state {names.number(seq)} "
                              f"{'in ' + str(self.folder) if self._existing(e.name) else 'found before it'}",
                              hint="Two different states with one sequence number: only one of them can be the game; find out who sent which.")
        prev = self.states.get(seq - 1)
        events: list[Event] | None = None
        if seq == 0:
            check_origin(doc)
            e.notes.append(f"state 0000 of game {h['game']}, sealed by its creator {h['creator']}")
        elif prev is not None:
            adj = adjudicator_of(prev.data)
            events = self.chain.follow(prev, doc, keys=keys_of(prev), replay=self.chain.has_inputs(doc))
            e.notes.append(f"continues state {names.number(seq - 1)}; sealed by {adj}, who adjudicates that step")
            if events is None:
                e.notes.append("not replayed: its inputs are not all in the folder or the mail (`pbem verify` replays it when they are)")
            else:
                e.notes.append("replayed from the previous state, its inputs and the revealed dice: it follows")
        else:
            if self.states:
                latest = max(self.states)
                if seq > latest + 1:
                    raise VerificationError(f"{doc.path}: is state {names.number(seq)}, but the latest state here is {names.number(latest)}: "
                                            f"state{'s' if seq - latest > 2 else ''} {names.number(latest + 1)}{'..' + names.number(seq - 1) if seq - latest > 2 else ''} "
                                            "missing", hint="Ask for the missing states (or give them in the same mail).")
                same_keys(doc, keys_of(self.states[latest]))
            check_state_seal(doc)
            e.notes.append(f"sealed by {doc.data['seal']['signer']}; the previous state is not here, so the chain was not checked")
        nxt = self.states.get(seq + 1)
        if nxt is not None and nxt.data["pbem"]["previous"] != doc.digest:
            raise TamperError(f"{doc.path}: state {names.number(seq + 1)} here does not follow it: the chain is broken")
        if self._known(e, doc):
            return
        self._claim(e, fork=True)
        self.states[seq] = doc
        if not self.games:
            self.games.add(str(h["game"]))
        if events is not None and prev is not None:
            self._derived(prev, doc, events)

    def _derived(self, prev: Doc, cur: Doc, events: list[Event]) -> None:
        """The report and picture of a replayed transition, filed when the mail carries them unchanged."""
        seq = int(cur.data["pbem"]["sequence"])
        report, picture = derived_files(prev.data, cur.data, events)
        game = str(cur.data["pbem"]["game"])
        candidates = set(self.other_texts.get(report, [])) | set(self.report_heads.get(names.number(seq), []))
        if picture is not None:
            candidates |= set(self.other_texts.get(picture, []))
        for source, text in (self.ex.others[i] for i in sorted(candidates)):
            kind, name, derived = "", "", ""
            if text == report:
                kind, name, derived = "report", names.report(seq), report
            elif picture is not None and text == picture:
                kind, name, derived = "picture", names.picture(seq), picture
            elif re.match(rf"# .*: report {names.number(seq)}\n", text) and f"- Game `{game}`" in text[:3000]:
                e = Entry("report", text, [source], name=names.report(seq), sequence=seq)
                self.entries.append(e)
                by = report_version(text)
                if by is not None and by != __version__:
                    e.status = "skipped"
                    e.notes.append(f"written by pbem {by}: compared only by the pbem that wrote it; not filed")
                else:
                    e.fail(VerificationError(f"{source}: the report does not match the transition of state {names.number(seq)} it describes",
                                             hint="A report is derived from its transition: someone changed it."))
                continue
            else:
                continue
            e = Entry(kind, derived, [source], name=name, sequence=seq, digest="sha256:" + hashlib.sha256(derived.encode()).hexdigest())
            self.entries.append(e)
            e.notes.append(f"the {kind} of state {names.number(seq)}, as derived from its transition")
            self._file_report(e, derived, "`pbem verify` tells which one is right.")

    def _file_report(self, e: Entry, text: str, which: str) -> None:
        """File a report the mail carries: known when the folder has it unchanged, refused when the
        folder has a different file under its name (pbem never overwrites a report)."""
        try:
            target = self.folder / e.name if self.folder is not None and e.name is not None else None
            on_disk = target.read_text(encoding="utf-8", errors="replace") if target is not None and target.exists() else None
            if on_disk is not None and on_disk == text:
                e.status = "known"
                e.notes.append("already in the folder")
                return
            if on_disk is not None:
                raise UsageError(f"{target}: a different file is already in the folder under this name",
                                 hint="pbem never overwrites a report; " + which)
            self._claim(e)
        except PbemError as err:
            e.fail(err)

    def _known_derived(self, seq: int) -> None:
        """The report and picture of a state already in the folder: listed when the mail has them unchanged."""
        if self.folder is None:
            return
        for kind, name in (("report", names.report(seq)), ("picture", names.picture(seq))):
            path = self.folder / name
            if not path.exists():
                continue
            text = lf(path.read_text(encoding="utf-8", errors="replace"))
            for source, other in (self.ex.others[i] for i in self.other_texts.get(text, [])):
                if other == text:
                    e = Entry(kind, text, [source], name=name, sequence=seq, status="known")
                    e.notes.append("already in the folder")
                    self.entries.append(e)

    def _view(self, e: Entry, doc: Doc) -> None:
        """A view is filed only if the folder's referee sealed it and it is its state's view or continues
        the folder's chain (README: E-mail): anything else is tampering, exit 3; a view that is not
        exactly its state's, or that the folder cannot check, is exit 1."""
        h = doc.data["pbem"]
        seq, side = int(h["sequence"]), str(h["side"])
        e.sequence, e.name = seq, names.view(seq, side)
        self._check_game(doc)
        if self._known(e, doc):
            return
        full = self.states.get(seq)
        if full is not None:  # the referee's folder, or a mail with the state: the view must be exactly its view
            if full.digest != h["of"]:
                raise TamperError(f"{doc.path}: shows a state {names.number(seq)} other than the one {'in ' + str(self.folder) if self.folder else 'found before it'}",
                                  hint="It is not a view of this game's history: do not accept it.")
            self.chain.view_of(doc, full)
            e.notes.append(f"{side}'s view of state {names.number(seq)}, which is here: exactly its view, sealed by the referee")
        else:
            self._view_chain(e, doc)
        self._claim(e)
        self.views.append(doc)
        if not self.games:
            self.games.add(str(h["game"]))
        self._side_report(doc)

    def _view_chain(self, e: Entry, doc: Doc) -> None:
        """A view of a state that is not here: sealed by the referee of the folder's trusted start (its
        earliest state or view; in an empty folder, the earliest state of this mail, filed as a state
        is; never a view, which cannot vouch for itself) and continuing the chain of the side's views
        (``Chain.follow_views``: the previous view's ``of``, its commitments, the seed and each die),
        or following the joins' state."""
        h = doc.data["pbem"]
        seq, side = int(h["sequence"]), str(h["side"])
        start = self.start or (self.states[min(self.states)] if self.states else None)
        if start is None:
            if self.folder is not None:
                raise VerificationError(f"{doc.path}: {self.folder} holds no state or view of the game to check it against, "
                                        "so it is not filed",
                                        hint="Put the game's state 0000 (the one you joined from) or a view you trust into the "
                                             "folder first, then read the mail again.")
            check_state_seal(doc)
            e.notes.append(f"{side}'s view of state {names.number(seq)}, sealed by {doc.data['seal']['signer']}; not checked against "
                           "the game's history (give --folder GAME)")
            return
        self.chain.referee_key(doc, start)
        self.chain.sealed_by_referee(doc, keys_of(start))
        sides = {str(v.data["pbem"]["side"]) for v in self.views}
        if sides and side not in sides:
            raise TamperError(f"{doc.path}: a view for {side}, but {self.folder or 'this mail'} holds the views of "
                              f"{', '.join(sorted(sides))}", hint="It was sent to the wrong player, or is forged: do not accept it.")
        mine = {int(v.data["pbem"]["sequence"]): v for v in self.views if v.data["pbem"]["side"] == side}
        chain = [d for d in (mine.get(seq - 1), doc, mine.get(seq + 1)) if d is not None]
        before = self.states.get(seq - 1)
        if len(chain) > 1:
            # trusted from the view before it (filed after the same checks), or vouched for by the one
            # after it (which names its digest)
            anchor = digest(mine[seq - 1].data) if seq - 1 in mine else digest(doc.data)
            if seq - 1 not in mine and mine[seq + 1].data["pbem"]["previous"] != h["of"]:
                raise TamperError(f"{doc.path}: view {names.number(seq + 1)} here does not follow it: the chain is broken")
            self.chain.follow_views(chain, anchor=anchor)
            e.notes.append(f"{side}'s view of state {names.number(seq)}, sealed by the referee; continues the views here "
                           "(chain, commitments and dice checked)")
        elif before is not None:
            self.chain.link(before, doc)
            self.chain.follow_views([doc], start=before)
            what = "the joins: no dice" if before.data["awaits"]["kind"] == "join" else "attestations, commitments and dice checked"
            e.notes.append(f"{side}'s view of state {names.number(seq)}, sealed by the referee; continues state {names.number(seq - 1)} ({what})")
        else:
            raise VerificationError(f"{doc.path}: is view {names.number(seq)} of {side}, but neither view {names.number(seq - 1)} nor state "
                                    f"{names.number(seq - 1)} is {'in ' + str(self.folder) + ' or ' if self.folder else ''}in the mail: "
                                    "its chain cannot be checked",
                                    hint="Ask the referee for the views missing (or give them in the same mail).")

    def _side_report(self, view: Doc) -> None:
        """A refereed game's report for the view's side (README: Referee), filed beside the view when
        the mail carries it: it names the view's game, sequence and side. A view cannot re-derive it
        (the hidden events are not in the view); `pbem verify` on the referee's folder does."""
        h = view.data["pbem"]
        seq, side, game = int(h["sequence"]), str(h["side"]), str(h["game"])
        for source, text in (self.ex.others[i] for i in self.report_heads.get(names.number(seq), [])):
            if not (re.match(rf"# .*: report {names.number(seq)}, for the {re.escape(side)} side\n", text)
                    and f"- Game `{game}`" in text[:3000]):
                continue
            name = names.report(seq, side)
            e = Entry("report", text, [source], name=name, sequence=seq,
                      digest="sha256:" + hashlib.sha256(text.encode()).hexdigest())
            self.entries.append(e)
            e.notes.append(f"the referee's report of state {names.number(seq)} for {side}; only the referee's folder re-derives it")
            self._file_report(e, text, "the referee's folder tells which one is right.")

    def _equivocation(self, name: str, doc: Doc) -> None:
        """The folder's file ``name`` and ``doc`` are two different files for one step: if one party
        sealed both, an equivocation, shown with both files (README: Equivocation; exit 3)."""
        if self.folder is None:
            return
        try:
            other = load_doc(self.folder / name)
        except PbemError:
            return
        eq = find_equivocation([other, doc])
        if eq is not None:
            raise eq.error()

    def _known(self, e: Entry, doc: Doc) -> bool:
        assert e.name is not None
        have = self._existing(e.name)
        if have is None:
            return False
        if have == doc.digest:
            e.status = "known"
            e.notes.append("already in the folder")
            return True
        self._equivocation(e.name, doc)
        raise TamperError(f"{doc.path}: fork: {self.folder}/{e.name} is a different {doc.kind} with the same sequence number",
                          hint="Only one of them can be the game; find out who sent which.")

    def _submission(self, e: Entry, doc: Doc) -> None:
        h = doc.data["pbem"]
        side, kind, answers = str(h["side"]), str(h["kind"]), str(h["answers"])
        self._check_game(doc)
        refs = {_answered(v): v for v in self.views} | {d.digest: d for d in self.states.values()}  # a state over its views
        st = refs.get(answers)
        if st is None:
            if answers in self.rejected:
                raise TamperError(f"{doc.path}: answers a state in this mail that was not accepted ({answers[:19]}...)")
            if self.folder is None and not self.states and not self.views:
                signer = check_seal(doc.data, str(doc.path))
                if doc.data["seal"]["signer"] != side:
                    raise TamperError(f"{doc.path}: sealed by '{doc.data['seal']['signer']}' for side '{side}'")
                e.notes.append(f"sealed by {side} (key {signer[:20]}...); not checked against the state it answers "
                               "(it is not in the mail: give --folder GAME)")
                return
            raise TamperError(f"{doc.path}: answers state {answers[:19]}..., which is neither in "
                              f"{self.folder or 'the mail'}{' nor in the mail' if self.folder else ''}",
                              hint="It is replayed, out of date or from another copy of the game: orders must answer a state of this game's history.")
        seq = int(st.data["pbem"]["sequence"])
        e.sequence, e.name = seq, names.submission(seq, side, kind)
        e.deadline = mailtime.deadline_of(st.data)
        have = self._existing(e.name)
        if have == doc.digest:
            e.status = "known"
            e.notes.append("already in the folder")
            return
        if have is not None:  # another file of this side for this state: sealed by him too, an equivocation
            self._equivocation(e.name, doc)
        later = [d for d in [*self.states.values(), *self.views] if int(d.data["pbem"]["sequence"]) == seq + 1]
        if later:
            if not any(doc.digest in d.data["pbem"]["inputs"] for d in later):
                raise TamperError(f"{doc.path}: answers state {names.number(seq)}, which was already adjudicated without it "
                                  f"(state {names.number(seq + 1)} exists): it is replayed or out of date",
                                  hint="An order file counts once, for the state it answers; the sender writes new orders for the current state.")
            envelope(st, doc)
            e.notes.append(f"{kind} of {side} for {h['step']}, an input of state {names.number(seq + 1)}")
        else:
            envelope(st, doc)
            c = check_orders(st, doc)
            if c.problems:
                raise IllegalOrdersError(f"{doc.path}: {len(c.problems)} problem(s) in the {kind}", c.problems,
                                         hint="The sender fixes them (see `pbem check`) and sends new ones.")
            e.notes.append(f"{kind} of {side} for {h['step']}, awaited by state {names.number(seq)}; sealed by {side}, dice reveal matches, legal")
        if have is not None:
            self._equivocation(e.name, doc)
            raise UsageError(f"{doc.path}: a different file is already in the folder under its name {e.name}",
                             hint="pbem never overwrites a game file. If the sender corrected his orders, he sends new ones for the state they answer.")
        self._claim(e)


def read_mail(raw: bytes | Mailbox, where: str, folder: Path | None = None, ok_if_none: bool = False) -> MailRead:
    """`pbem mail read`: the game files in a message, an mbox or a Maildir, each checked (against
    ``folder``). No game file is an error (exit 2) unless ``ok_if_none``."""
    ex = extract(raw, where)
    if not ex.files:
        if ok_if_none:
            if folder is not None:
                _folder_chain(folder)  # the folder is still checked
            return MailRead(where, ex.messages, folder, [], ex.skipped)
        n = f"{ex.messages} messages" if ex.messages > 1 else "the message"
        skipped = f" ({len(ex.skipped)} of them damaged, not read)" if ex.skipped else ""
        raise MalformedFileError(f"{where}: no pbem game file found in {n}{skipped}",
                                 hint="Game files are attached, or pasted into a plain-text message from their [pbem] line on. "
                                      "--ok-if-none makes a message without one no error.")
    res = _Reader(where, folder, ex).run()
    res.annotate()
    return res


def read_message_file(path: Path) -> bytes:
    """An .eml or mbox file: a regular file (a FIFO or a device is refused), read up to the limit."""
    from .files import read_bytes

    return read_bytes(path, MAX_MAILBOX_BYTES, "message file")


# --- the outgoing message ------------------------------------------------------------------------

@dataclass
class Outgoing:
    """What an outgoing message carries: the state (or view), its report and picture, the sender's orders."""

    state: Doc
    state_bytes: bytes
    report: str | None = None
    picture: bytes | None = None
    orders: Doc | None = None
    orders_bytes: bytes = b""
    previous_step: str | None = None
    previous: Doc | None = None  # the previous state (or view of the side) beside it: what the last message carried

    @property
    def sequence(self) -> int:
        return int(self.state.data["pbem"]["sequence"])

    def report_name(self) -> str:
        """The report's name: the state's, or for a view that side's report (README: Referee)."""
        return names.report(self.sequence, str(self.state.data["pbem"]["side"]) if self.state.kind == "view" else None)

    def state_name(self) -> str:
        return names.of_document(self.state.data)

    def orders_name(self) -> str:
        assert self.orders is not None
        return names.of_document(self.orders.data, self.sequence)


def gather(state_path: Path, orders_path: Path | None) -> Outgoing:
    """Read the files for `pbem mail write`: the state, its report and picture beside it (for a
    view, the report for its side, which shows only what the side may see; no picture), and the
    sender's own next orders."""
    state = load_state(state_path)
    out = Outgoing(state, state_path.read_bytes())
    seq = out.sequence
    side_report = state_path.parent / out.report_name()
    if state.kind == "view" and side_report.exists():
        out.report = side_report.read_bytes().decode("utf-8", errors="replace")
        m = re.search(r"^- Step adjudicated: `([^`]+)`", out.report, re.M)
        out.previous_step = m.group(1) if m else None
    if state.kind == "view" and seq > 0:
        prev_view = state_path.parent / names.view(seq - 1, str(state.data["pbem"]["side"]))
        if prev_view.exists():
            try:
                out.previous = load_doc(prev_view, "view")
            except PbemError:
                pass
    if state.kind != "view":
        rp = state_path.parent / names.report(seq)
        pp = state_path.parent / names.picture(seq)
        if rp.exists():
            out.report = rp.read_bytes().decode("utf-8", errors="replace")
            if pp.exists():
                out.picture = pp.read_bytes()
        prev = state_path.parent / names.state(seq - 1)
        if seq > 0 and prev.exists():
            try:
                p = load_doc(prev, "state")
                if p.digest == state.data["pbem"]["previous"]:
                    out.previous_step = str(p.data["awaits"]["step"])
                    out.previous = p
            except PbemError:
                pass
        if out.previous_step is None and out.report:
            m = re.search(r"^- Step adjudicated: `([^`]+)`", out.report, re.M)
            out.previous_step = m.group(1) if m else None
    if orders_path is not None:
        doc = load_doc(orders_path, "orders")
        envelope(state, doc)  # the sender's own orders answer this state, sealed: checked before sending
        out.orders, out.orders_bytes = doc, orders_path.read_bytes()
    return out


def _clean(text: str) -> str:
    return " ".join(display(text, 200).split())


def subject(out: Outgoing) -> str:
    s = out.state.data
    game = _clean(str(s["pbem"]["game"]))
    aw = s["awaits"]
    head = f"[pbem {game}] {names.number(out.sequence)}: "
    if out.sequence == 0:
        head += "new game"
    elif out.previous_step:
        head += f"{_clean(out.previous_step)} adjudicated"
    else:
        head += f"state {names.number(out.sequence)}"
    if s.get("result"):
        r = s["result"]
        return head + f"; game over: the {_clean(str(r.get('winner', '')))} wins"
    return head + f"; awaits {_clean(str(aw['step']))} from {_clean(', '.join(map(str, aw['from'])))}"


_HEAD = ("- Game ", "- Step adjudicated:", "- Previous state ", "- Dice: ")


def turn_summary(report: str, details: tuple[str, ...] = ()) -> list[str]:
    """The report's events as plain text, and what is awaited next: the lines of computations the
    game names (``details``: the module's ``report_details``) and the dice are left to the
    attached report."""
    out: list[str] = []
    for line in lf(report).split("\n")[1:]:
        if line.startswith("## "):
            break
        if line.startswith(_HEAD) or line.startswith("![") or not line.strip():
            continue
        if line.startswith("  - ") and details and line[4:].startswith(details):
            continue
        text = line.replace("**", "").replace("`", "")
        if line.startswith("### "):
            out += ["", text[4:]]
        elif line.startswith("Awaited next"):
            out += ["", text]
        else:
            out.append(text)
    return out


def body_text(out: Outgoing) -> str:
    s = out.state.data
    h = s["pbem"]
    aw = s["awaits"]
    what = "view of state" if out.state.kind == "view" else "state"
    lines = [f"pbem game {_clean(str(h['game']))} (scenario {_clean(str(h['scenario']))}), {what} {names.number(out.sequence)}"]
    if out.sequence == 0:
        lines.append("A new game: every party joins (`pbem join`).")
    elif out.previous_step:
        lines.append(f"{_clean(out.previous_step)} adjudicated by {_clean(str(s['seal']['signer']))}.")
    if out.report:
        lines += turn_summary(out.report, find_module(str(h["module"])).report_details)
    else:
        lines += ["", f"Awaited next: {aw['kind']} for step {aw['step']} from {', '.join(aw['from'])}; adjudicated by {aw['adjudicator']}."]
    if s.get("result"):
        r = s["result"]
        lines += ["", f"Game over: the {r.get('winner')} wins ({r.get('rule')}): {r.get('reason')}"]
    lines += ["", "Attached:", f"- {out.state_name()}: the {'view of the ' if out.state.kind == 'view' else 'new '}state, {out.state.digest}"]
    if out.report:
        what = "the report for your side" if out.state.kind == "view" else "the full report"
        lines.append(f"- {out.report_name()}: {what}, every computation and every die with its label")
    if out.picture:
        lines.append(f"- {names.picture(out.sequence)}: the map of this step")
    if out.orders is not None:
        oh = out.orders.data["pbem"]
        lines.append(f"- {out.orders_name()}: {oh['side']}'s {oh['kind']} for {oh['step']}, answering this state")
    lines += ["", "To check them and file them into your game folder, save this message and run:",
              "  pbem mail read MESSAGE.eml --folder GAME", ""]
    return "\n".join(_clean_line(x) for x in lines)


def _clean_line(line: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in line)


def _address_list(values: list[str], option: str) -> list[str]:
    out = []
    for v in values:
        if any(not c.isprintable() for c in v):  # a line break would start a header of its own (Bcc: ...)
            raise UsageError(f"{option} {display(v)}: an address is one line of printable characters",
                             hint="Write it as name@example.org or 'Name <name@example.org>'.")
        pairs = email.utils.getaddresses([v])
        if not pairs or any(not a or a.count("@") != 1 or any(c.isspace() or not c.isprintable() for c in a) for _, a in pairs):
            raise UsageError(f"{option} {display(v)}: not an e-mail address", hint="Write it as name@example.org or 'Name <name@example.org>'.")
        out.append(v.strip())
    return out


def message_id(game: str, sequence: int, file_digest: str, sender: str) -> str:
    """The Message-ID of the message that carries a state (or view) of a game from a sender: derived
    from the game id, the file's digest and the sender's address (its addr-spec, in lower case), so
    the same message written twice has the same id, and the next turn's message can name this one
    (In-Reply-To) knowing only the file and who sent it. Never random: outputs are byte-identical."""
    addr = email.utils.parseaddr(sender)[1].strip().lower()
    h = hashlib.sha256(f"pbem message-id\n{game}\n{file_digest}\n{addr}".encode()).hexdigest()
    domain = addr.rsplit("@", 1)[-1]
    domain = domain if re.fullmatch(r"[a-z0-9.-]{1,200}", domain) and "." in domain.strip(".") else "pbem.invalid"
    return f"<pbem.{names.number(sequence)}.{h[:32]}@{domain}>"


def previous_message_id(out: Outgoing, sender: str, to: list[str]) -> str | None:
    """The Message-ID of the message that carried the previous state (or the side's previous view),
    when it is known: the previous file is beside the state, and its sender is known: this sender
    when the same party sealed both, else the one recipient (the other player of a two-player game)."""
    prev = out.previous
    if prev is None:
        return None
    same = str(prev.data["seal"]["signer"]) == str(out.state.data["seal"]["signer"])
    if not same and len(to) != 1:
        return None
    return message_id(str(prev.data["pbem"]["game"]), int(prev.data["pbem"]["sequence"]), prev.digest, sender if same else to[0])


def compose(out: Outgoing, sender: str, to: list[str], date: _dt.datetime) -> EmailMessage:
    """The outgoing message, deterministically: the same files, addresses and date give the same
    bytes. The Message-ID derives from the game, the state's digest and the sender (``message_id``);
    In-Reply-To and References name the message of the previous state when it is known, so a game's
    turns make one thread; the MIME boundary derives from the digests of the attached files."""
    frm = _address_list([sender], "--from")[0]
    rcpts = _address_list(to, "--to")
    if not rcpts:
        raise UsageError("--to: at least one recipient is needed")
    seed = out.state.digest + "\n" + (out.orders.digest if out.orders is not None else "")
    h = hashlib.sha256(seed.encode("ascii")).hexdigest()
    game = str(out.state.data["pbem"]["game"])
    parent = previous_message_id(out, frm, rcpts)
    pol = email.policy.SMTP
    msg = EmailMessage(policy=pol)
    msg["From"] = frm
    msg["To"] = ", ".join(rcpts)
    msg["Subject"] = subject(out)
    msg["Date"] = email.utils.format_datetime(date)
    msg["Message-ID"] = message_id(game, out.sequence, out.state.digest, frm)
    if parent is not None:
        msg["In-Reply-To"] = parent
        msg["References"] = parent
    msg["MIME-Version"] = "1.0"
    msg.make_mixed()
    body = MIMEPart(policy=pol)
    body.set_content(body_text(out), charset="utf-8", cte="quoted-printable")
    msg.attach(cast(EmailMessage, body))
    files: list[tuple[str, bytes, str, str, dict[str, str]]] = [
        (out.state_name(), out.state_bytes, "application", "toml", {})]
    if out.report is not None:
        files.append((out.report_name(), out.report.encode("utf-8"), "text", "markdown", {"charset": "utf-8"}))
    if out.picture is not None:
        files.append((names.picture(out.sequence), out.picture, "image", "svg+xml", {}))
    if out.orders is not None:
        files.append((out.orders_name(), out.orders_bytes, "application", "toml", {}))
    for name, content, maintype, subtype, params in files:
        part = MIMEPart(policy=pol)
        part.set_content(content, maintype=maintype, subtype=subtype, disposition="attachment", filename=name, params=params)
        msg.attach(cast(EmailMessage, part))
    msg.set_boundary(f"=_pbem_{h[32:56]}")
    return msg


def message_bytes(msg: EmailMessage) -> bytes:
    """The message as an .eml file: CRLF line endings (as on the wire), 7-bit."""
    return msg.as_bytes(policy=email.policy.SMTP)


def parse_date(text: str) -> _dt.datetime:
    try:
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError) as e:
        raise UsageError(f"--date {display(text)}: not an RFC 2822 date", hint="Write it like 'Mon, 07 Jul 2025 10:00:00 +0000'.") from e


# --- sending -------------------------------------------------------------------------------------

SMTPS_PORT = 465  # submission over implicit TLS (RFC 8314): TLS from the first byte


def parse_server(text: str, starttls: bool, implicit_tls: bool = False) -> tuple[str, int]:
    """HOST, HOST:PORT or [IPv6]:PORT; the port defaults to 465 with implicit TLS, else to 587
    (submission with STARTTLS), or 25."""
    m = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?|([A-Za-z0-9.-]+)(?::(\d{1,5}))?", text.strip())
    if m is None:
        raise UsageError(f"--smtp {display(text)}: write HOST or HOST:PORT")
    host = m.group(1) or m.group(3)
    port_text = m.group(2) or m.group(4)
    port = int(port_text) if port_text else (SMTPS_PORT if implicit_tls else 587 if starttls else 25)
    if not 0 < port < 65536:
        raise UsageError(f"--smtp {display(text)}: no such port")
    return host, port


def envelope_addresses(raw: bytes, where: str) -> tuple[str, list[str]]:
    """The sender and recipients of an .eml file, from its From, To and Cc headers."""
    msg = parse_message(raw, where)
    if msg.get_all("Bcc"):
        raise UsageError(f"{where}: has a Bcc header, which pbem would send to every recipient",
                         hint="Remove the Bcc line; send a copy separately.")

    def addrs(name: str) -> list[str]:
        try:
            return [a for _, a in email.utils.getaddresses([str(v) for v in msg.get_all(name) or []]) if a]
        except Exception as e:  # the address parser recurses into nested comments and groups
            raise MalformedFileError(f"{where}: its {name} header cannot be read as addresses ({type(e).__name__})",
                                     hint="`pbem mail write --from/--to` writes them.") from e

    frm = addrs("From")
    rcpts = list(dict.fromkeys(addrs("To") + addrs("Cc")))
    if len(frm) != 1:
        raise MalformedFileError(f"{where}: needs exactly one From address", hint="`pbem mail write --from` sets it.")
    if not rcpts:
        raise MalformedFileError(f"{where}: no To or Cc address to send it to")
    return frm[0], rcpts


def is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def send(raw: bytes, where: str, host: str, port: int, *, user: str | None, password: Callable[[], str] | None,
         starttls: bool = True, cafile: Path | None = None, timeout: float = 60.0,
         implicit_tls: bool = False) -> tuple[str, list[str]]:
    """Send an .eml file as it is (CRLF line endings) over SMTP; the password is asked for only when
    needed and is never stored. With ``implicit_tls`` the connection is TLS from its first byte
    (SMTPS, port 465); else STARTTLS upgrades it (unless ``starttls`` is False: a test server on
    this machine). Returns the envelope sender and the recipients."""
    sender, rcpts = envelope_addresses(raw, where)
    data = re.sub(rb"\r?\n", b"\r\n", raw)
    if user and not starttls and not implicit_tls and not is_loopback(host):
        raise UsageError(f"--user without STARTTLS would send the password to {host} in clear text",
                         hint="Leave out --no-starttls (it is meant for a test server on this machine).")
    try:
        ctx = ssl.create_default_context(cafile=str(cafile) if cafile else None) if starttls or implicit_tls else None
        connect: smtplib.SMTP = (smtplib.SMTP_SSL(host, port, timeout=timeout, context=ctx) if implicit_tls
                                 else smtplib.SMTP(host, port, timeout=timeout))
        with connect as smtp:
            smtp.ehlo()
            if starttls and not implicit_tls:
                if not smtp.has_extn("starttls"):
                    raise UsageError(f"{host}:{port} does not offer STARTTLS", hint="Use the server's submission port (587), or --no-starttls for a test server on this machine.")
                smtp.starttls(context=ctx)
                smtp.ehlo()
            if user:
                smtp.login(user, password() if password else "")
            refused = smtp.sendmail(sender, rcpts, data)
    except smtplib.SMTPAuthenticationError as e:
        raise UsageError(f"{host}:{port} refused the login of {display(user or '')}: {e.smtp_code} {_reply(e.smtp_error)}",
                         hint="Check the user name and $PBEM_SMTP_PASSWORD.") from e
    except smtplib.SMTPRecipientsRefused as e:
        raise UsageError(f"{host}:{port} refused every recipient: " + "; ".join(f"{r} ({c} {_reply(m)})" for r, (c, m) in e.recipients.items())) from e
    except smtplib.SMTPResponseException as e:
        raise UsageError(f"{host}:{port} refused the message: {e.smtp_code} {_reply(e.smtp_error)}") from e
    except ssl.SSLError as e:
        raise UsageError(f"{host}:{port}: TLS failed ({e.reason or e})",
                         hint="If the server uses a certificate of its own, give it with --cafile FILE.") from e
    except (smtplib.SMTPException, OSError) as e:
        raise UsageError(f"cannot send through {host}:{port}: {e}", hint="Check --smtp HOST[:PORT] and the network.") from e
    if refused:
        raise UsageError(f"{host}:{port} refused some recipients: " + "; ".join(f"{r} ({c} {_reply(m)})" for r, (c, m) in refused.items()),
                         hint=f"The message went to {', '.join(r for r in rcpts if r not in refused)}.")
    return sender, rcpts


def _reply(m: bytes | str) -> str:
    return display(m.decode("utf-8", "replace") if isinstance(m, bytes) else str(m), 200)



# --- reminders -----------------------------------------------------------------------------------

def remind(state: Doc, state_path: Path, sender: str, to: list[str], now: str) -> EmailMessage:
    """The reminder of an awaited step's deadline (docs/protocol.md, Deadlines), to the awaited side:
    the step, its deadline and how it stands at ``now``, and the commands that write and seal the
    file it awaits. Deterministic: the same state, addresses and ``now`` give the same bytes; it
    answers the message that carried the state (In-Reply-To), so it joins the game's thread."""
    from . import deadlines

    s = state.data
    aw = s["awaits"]
    info = deadlines.status(s, now)
    if info is None:
        raise UsageError(f"{state_path}: " + ("the game awaits nothing" if aw["kind"] == "none" else
                                               "the game has no deadlines (they are options of `pbem new`)"),
                         hint="A reminder names the deadline of the awaited step.")
    frm = _address_list([sender], "--from")[0]
    rcpts = _address_list(to, "--to")
    if not rcpts:
        raise UsageError("--to: at least one recipient is needed")
    game = str(s["pbem"]["game"])
    seq = int(s["pbem"]["sequence"])
    sides = [str(x) for x in aw["from"]]
    kind = "orders" if aw["kind"] not in ("join", "reply", "reveal") else str(aw["kind"])
    lines = [f"Game {game}, state {names.number(seq)}: {', '.join(sides)} to send {kind} for step {aw['step']}.", "",
             f"Due: {aw['due']} (UTC); grace period until {info['grace_until']}.",
             f"Now: {now}: {deadlines.status_line(info)}.", ""]
    if aw["kind"] == "join":
        lines += ["Join with:"] + [f"  pbem join {state_path.name} --side {side} --key YOUR.key" for side in sides]
    else:
        lines += ["Write, check and seal your file with:"]
        for side in sides:
            out = names.submission(seq, side, kind)
            lines += [f"  pbem template {state_path.name} --side {side} -o {out}",
                      f"  pbem check {state_path.name} {out}", f"  pbem sign {out} --key YOUR.key"]
    lines += ["", f"Past {info['grace_until']}, {aw['adjudicator']} may adjudicate the step without it, as the game's rules "
                  "settle a missing side (`pbem adjudicate --no-orders`).",
              "Need more time? Every player signs the same terms with `pbem agree` (docs/protocol.md, Deadlines)."]
    addr = email.utils.parseaddr(frm)[1].strip().lower()
    h = hashlib.sha256(f"pbem reminder\n{game}\n{state.digest}\n{addr}\n{now}".encode()).hexdigest()
    domain = addr.rsplit("@", 1)[-1]
    domain = domain if re.fullmatch(r"[a-z0-9.-]{1,200}", domain) and "." in domain.strip(".") else "pbem.invalid"
    when = deadlines.parse_time(now, "--now")
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = frm
    msg["To"] = ", ".join(rcpts)
    msg["Subject"] = f"[pbem {game}] {names.number(seq)}: reminder: {aw['step']} from {', '.join(sides)} due {aw['due']}"
    msg["Date"] = email.utils.format_datetime(when)
    msg["Message-ID"] = f"<pbem.{names.number(seq)}.remind.{h[:32]}@{domain}>"
    parent = message_id(game, seq, state.digest, frm)
    msg["In-Reply-To"] = parent
    msg["References"] = parent
    msg.set_content("\n".join(lines) + "\n", charset="utf-8", cte="quoted-printable")
    return msg
