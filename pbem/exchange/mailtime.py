"""The evidence of time of the messages that carried game files (README: E-mail; docs/protocol.md,
Deadlines, The evidence of time).

`pbem mail read --folder GAME` records, beside each game file it files or finds already filed, what
the message that carried it says of time: its Date header, the date of every Received header (the
part after the last ';'), its Message-ID, From and To. It is evidence, not a signed fact: Date is
written by the sender's program, each Received line by a server with its own clock, and anyone who
holds the folder can change the record. Times are spelled as pbem's deadlines are, UTC to the
minute (``YYYY-MM-DDTHH:MMZ``); a header that is not a date of RFC 5322 is ``"unreadable"``; the
raw text is kept, unfolded, its control characters (and backslashes) escaped, so that a record is
always one printable line per value.

The record of ``NNNN-SIDE.orders.toml`` is ``NNNN-SIDE.orders.toml.mail`` (a TOML text): a name no
reader of game files looks at (they read ``*.toml``, ``*.md``, ``*.svg``). Its messages are sorted
and deduplicated, so the same messages give the same bytes, in whatever order they were read.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from email.message import Message
from pathlib import Path
from typing import Any

from pbem.errors import MalformedFileError, PbemError

from . import names
from .canonical import canonical
from .deadlines import format_time, grace_until, parse_time, span
from .files import dumps, parse_toml, read_bytes

SUFFIX = ".mail"  # the record of FILE is FILE.mail
UNREADABLE = "unreadable"
MAX_RECORD_BYTES = 2 * 1024 * 1024  # a record read back (a message's headers are 1 MB at most)
MAX_HOST = 255

_HEAD = ("# The evidence of time of the messages that carried {name}, as `pbem mail read` found them.\n"
         "# Evidence, not a signed fact: Date is set by the sender's program, each Received line by a mail\n"
         "# server's clock, and this file is not sealed (docs/protocol.md, Deadlines). Times: UTC, to the minute;\n"
         "# \"unreadable\": not a date of RFC 5322 (the raw text is kept, control characters escaped).\n")

_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_ZONES = {"ut": 0, "gmt": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7}
# An RFC 5322 date-time (with its obsolete zones and a trailing comment such as "(UTC)"); nothing else.
_DATE = re.compile(r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[ \t]*,[ \t]*)?([0-9]{1,2})[ \t]+([a-z]{3})[ \t]+([0-9]{4})[ \t]+"
                   r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?[ \t]+([+-][0-9]{4}|[a-z]{1,3})(?:[ \t]*\([^()\\]*\))*[ \t]*", re.I)
_FOLD = re.compile(r"\r\n(?=[ \t])|\n(?=[ \t])|\r(?=[ \t])")
_BY = re.compile(r"(?:^|[\s(;])by[ \t]+([^\s;()]+)", re.I)


def escape(text: str) -> str:
    """Header text as one printable line: a backslash doubled, every other character that is not
    printable (CR, LF, tab, NUL, DEL, a lone surrogate, a line separator) written ``\\xNN``,
    ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c.isprintable():
            out.append(c)
        elif 0xDC80 <= ord(c) <= 0xDCFF:  # a byte of the message that is not UTF-8
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        else:
            n = ord(c)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return "".join(out)


def unfold(text: str) -> str:
    """A header field's value unfolded (RFC 5322: a line break before a space or tab is removed), trimmed."""
    return _FOLD.sub("", text).strip(" \t")


def parse_date(text: str) -> str | None:
    """An RFC 5322 date-time as pbem spells a time (UTC, to the minute), or None: another spelling
    (ISO 8601, a date without its zone, a zone pbem does not know), a date not of the calendar."""
    m = _DATE.fullmatch(text.strip())
    if m is None:
        return None
    day, mon, year, hh, mm, ss, zone = m.groups()
    month = _MONTHS.get(mon.lower())
    if zone[0] in "+-":
        zh, zm = int(zone[1:3]), int(zone[3:5])
        offset = None if zm >= 60 else (zh * 60 + zm) * (-1 if zone[0] == "-" else 1)  # -0000: UTC (RFC 5322 3.3)
    else:
        hours = _ZONES.get(zone.lower())
        offset = None if hours is None else hours * 60
    if month is None or offset is None:
        return None
    try:
        t = _dt.datetime(int(year), month, int(day), int(hh), int(mm), int(ss or 0), tzinfo=_dt.UTC)
        return format_time(t - _dt.timedelta(minutes=offset))
    except (ValueError, OverflowError):
        return None


def _values(msg: Message, name: str) -> list[str]:
    """A header's values as the message has them: unfolded, UTF-8 read as such, any other byte kept
    as a lone surrogate (which ``escape`` writes ``\\xNN``); never decoded from RFC 2047."""
    out = []
    for k, v in msg.raw_items():
        if k.lower() != name.lower():
            continue
        s = v if isinstance(v, str) else str(v)
        try:
            s = s.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
        except UnicodeError:
            pass
        out.append(unfold(s))
    return out


def _time(raw: str) -> dict[str, str]:
    return {"time": parse_date(raw) or UNREADABLE, "raw": escape(raw)}


def _received(raw: str) -> dict[str, str]:
    head, semi, when = raw.rpartition(";")
    out = {"time": (parse_date(when) or UNREADABLE) if semi else UNREADABLE}
    by = _BY.search(head if semi else raw)
    if by is not None:
        out["by"] = escape(by.group(1)[:MAX_HOST])
    out["raw"] = escape(raw)
    return out


def evidence(msg: Message) -> dict[str, Any]:
    """What a message says of its time and way, as the record keeps it; never raises (a header that
    cannot be read is recorded ``unreadable``)."""
    rec: dict[str, Any] = {}
    for key, name, sep in (("message_id", "Message-ID", " "), ("from", "From", ", "), ("to", "To", ", ")):
        try:
            vals = _values(msg, name)
        except Exception:
            vals = [UNREADABLE]
        if vals:
            rec[key] = escape(sep.join(vals))
    try:
        dates = _values(msg, "Date")
        if dates:
            rec["date"] = _time(dates[0])
            if len(dates) > 1:  # two Date headers: which one the sender meant, nothing says
                rec["date"] = {"time": UNREADABLE, "raw": escape(" | ".join(dates))}
    except Exception:
        rec["date"] = {"time": UNREADABLE, "raw": ""}
    try:
        rec["received"] = [_received(r) for r in _values(msg, "Received")]  # top (the last server) first
    except Exception:
        rec["received"] = [{"time": UNREADABLE, "raw": ""}]
    return rec


# --- the record beside a file ---------------------------------------------------------------------

def record_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def _sort_key(rec: dict[str, Any]) -> tuple[str, str]:
    return (first_time(rec) or "~", canonical(rec).decode())


def first_time(rec: dict[str, Any]) -> str | None:
    """The earliest readable time a message shows: its earliest Received, else its Date."""
    times = [str(r["time"]) for r in rec.get("received", []) if isinstance(r, dict) and r.get("time") != UNREADABLE]
    if times:
        return min(times)
    d = rec.get("date")
    return str(d["time"]) if isinstance(d, dict) and d.get("time") not in (None, UNREADABLE) else None


def record_text(name: str, file_digest: str, messages: list[dict[str, Any]]) -> str:
    """The record's text: the same messages (in any order, any number of times) give the same bytes."""
    unique = {hashlib.sha256(canonical(m)).hexdigest(): m for m in messages}
    ordered = sorted(unique.values(), key=_sort_key)
    return _HEAD.format(name=name) + dumps({"file": name, "digest": file_digest, "message": ordered})


def read_record(path: Path, name: str, file_digest: str) -> list[dict[str, Any]]:
    """The messages a record beside ``name`` holds; a record of another file (or another content
    under the name), or one that is not a record, is refused (MalformedFileError, exit 2)."""
    data = parse_toml(read_bytes(path, MAX_RECORD_BYTES, "mail record"), str(path))
    msgs = data.get("message", [])
    if data.get("file") != name or not isinstance(msgs, list) or not all(isinstance(m, dict) for m in msgs):
        raise MalformedFileError(f"{path}: not the mail record of {name}",
                                 hint="pbem writes FILE.mail beside each file `pbem mail read` files: move this one away.")
    if data.get("digest") != file_digest:
        raise MalformedFileError(f"{path}: a mail record of another content than {name} ({data.get('digest')})",
                                 hint="The record names the digest of the file it was written for: move it away.")
    return msgs


def merged(path: Path, name: str, file_digest: str, messages: list[dict[str, Any]]) -> str | None:
    """The record's new text with ``messages`` added, or None when it holds them all already."""
    old = read_record(path, name, file_digest) if path.exists() else []
    text = record_text(name, file_digest, old + messages)
    if path.exists() and read_bytes(path, MAX_RECORD_BYTES, "mail record").decode("utf-8", "replace") == text:
        return None
    return text


# --- the evidence against a deadline --------------------------------------------------------------

def deadline_of(data: dict[str, Any]) -> tuple[str, str] | None:
    """The deadline and the end of the grace period of the step a state (or view) awaits, if it has one."""
    aw = data.get("awaits", {})
    if not isinstance(aw, dict) or "due" not in aw or "deadlines" not in data:
        return None
    try:
        return str(aw["due"]), grace_until(data)
    except (PbemError, KeyError, TypeError, ValueError):
        return None


def _against(t: str, due: str, until: str) -> dict[str, Any]:
    late = int((parse_time(t, "time") - parse_time(due, "due")).total_seconds() // 60)
    stand = "in-time" if late <= 0 else "grace" if parse_time(t, "time") < parse_time(until, "grace") else "missed"
    return {"time": t, "status": stand, "late": max(0, late)}


def _words(verb: str, by: str, v: dict[str, Any]) -> str:
    if v["status"] == "in-time":
        return f"{verb} in time {by}"
    where = "within the grace period" if v["status"] == "grace" else "past the grace period"
    return f"{verb} late by {span(v['late'])} {by}, {where}"


def verdict(rec: dict[str, Any], due: str, until: str) -> dict[str, Any]:
    """Whether a message's Date and its earliest Received are at or before ``due`` (to the minute, as
    pbem compares deadlines), late within the grace period (before ``until``), or past it; and the
    line that says so, as evidence only."""
    out: dict[str, Any] = {"due": due, "grace_until": until}
    parts: list[str] = []
    d = rec.get("date")
    if not isinstance(d, dict):
        parts.append("no Date header")
    elif d.get("time") == UNREADABLE:
        parts.append(f"its Date header is unreadable ('{d.get('raw', '')}')")
    else:
        out["date"] = _against(str(d["time"]), due, until)
        parts.append(_words("sent", "by its Date header", out["date"]))
    got = [r for r in rec.get("received", []) if isinstance(r, dict) and r.get("time") != UNREADABLE]
    if not got:
        parts.append("no readable Received header")
    else:
        first = min(got, key=lambda r: str(r["time"]))
        out["received"] = _against(str(first["time"]), due, until) | {"by": first.get("by")}
        server = f"the server of {first['by']}" if first.get("by") else "a server that does not name itself"
        parts.append(_words("received", f"by {server}", out["received"]))
    times = [f"Date {out['date']['time']}" if "date" in out else "",
             f"Received {out['received']['time']}" if "received" in out else ""]
    out["line"] = "; ".join(parts) + f" (due {due}: {', '.join(t for t in times if t) or 'no time'}; evidence, not proof)"
    return out


def summary(rec: dict[str, Any]) -> str:
    """A message's evidence in one line, without a deadline."""
    d = rec.get("date")
    parts = [f"Date {d['time']}" if isinstance(d, dict) else "no Date header"]
    got = [r for r in rec.get("received", []) if isinstance(r, dict) and r.get("time") != UNREADABLE]
    if got:
        first = min(got, key=lambda r: str(r["time"]))
        parts.append(f"first Received {first['time']}" + (f" by {first['by']}" if first.get("by") else ""))
    else:
        parts.append("no readable Received header")
    n = len(rec.get("received", []))
    return ", ".join(parts) + f" ({n} Received header{'s' if n != 1 else ''}; evidence, not proof)"


def beside(folder: Path, sequence: int, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The records in ``folder`` of the files answering state (or view) ``sequence``, whose ``data``
    is given, each message with its verdict against that step's deadline (`pbem status`). A record
    that cannot be read is listed as such, never an error: it is evidence, not part of the game."""
    deadline = deadline_of(data)
    out: list[dict[str, Any]] = []
    for path in sorted(folder.glob(f"{sequence:04d}-*.toml{SUFFIX}")):
        name = path.name[: -len(SUFFIX)]
        parsed = names.parse(name)
        if parsed is None or parsed.kind not in names.SUBMISSIONS:
            continue  # a view's record: it answers nothing
        item: dict[str, Any] = {"file": name, "answers": sequence, "messages": []}
        try:
            raw = parse_toml(read_bytes(path, MAX_RECORD_BYTES, "mail record"), str(path))
            msgs = raw.get("message", [])
            if raw.get("file") != name or not isinstance(msgs, list) or not all(isinstance(m, dict) for m in msgs):
                raise MalformedFileError(f"{path}: not the mail record of {name}")
            for m in msgs:
                v: dict[str, Any] = {"message_id": str(m.get("message_id", ""))}
                v |= {"verdict": verdict(m, *deadline)} if deadline is not None else {"summary": summary(m)}
                item["messages"].append(v)
        except (PbemError, KeyError, TypeError, ValueError) as e:
            item["error"] = str(getattr(e, "message", e))
        out.append(item)
    return out
