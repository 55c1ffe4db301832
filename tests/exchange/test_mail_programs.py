"""Mail as it really arrives: game files pasted into messages the way mail programs send them
(a Thunderbird reply with an HTML copy, Outlook's wrapped plain text and HTML, Apple Mail's
quoted-printable and its HTML-only messages). What a mail program did is undone only when the
file's seal then verifies; otherwise the error says what the mail program did (exit 2), and
nothing is written."""

from __future__ import annotations

import html
import quopri
import textwrap
from pathlib import Path

import pytest

from pbem.exchange.mail import html_text, inline_blocks, repair
from tests.clihelpers import snapshot
from tests.exchange.test_mail import Exchange, assert_received, exchange, read, save

ORDERS = "0003-german.orders.toml"
STATE = "0003.state.toml"


@pytest.fixture
def ex(tmp_path: Path) -> Exchange:
    return exchange(tmp_path)


def wrap(text: str, width: int) -> str:
    """What a mail program that wraps plain text does: a long line is broken at its last space
    before ``width`` (the space is lost), or, with no space there, cut at ``width``."""
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            if cut > 0:
                out.append(line[:cut])
                line = line[cut + 1:]
            else:
                out.append(line[:width])
                line = line[width:]
        out.append(line)
    return "\n".join(out)


def quoted(text: str) -> str:
    return "\n".join(("> " + x) if x else ">" for x in text.rstrip("\n").split("\n"))


def b64_state(ex: Exchange) -> str:
    import base64

    return base64.encodebytes(ex.file(STATE).read_bytes()).decode()


def thunderbird_reply(ex: Exchange) -> bytes:
    """A Thunderbird reply (multipart/alternative): the orders quoted in the format=flowed plain
    text, and the same quoted inside <pre class="moz-quote-pre"> in the HTML copy."""
    orders = ex.text(ORDERS)
    plain = ("Fine, here they are again.\n\nOn 07/07/2025 10:00, Alice wrote:\n" + quoted(orders) + "\n\n-- \nBob\n")
    body_html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"></head>'
                 "<body><p>Fine, here they are again.<br></p>\n<div class=\"moz-cite-prefix\">On 07/07/2025 10:00, "
                 "Alice wrote:<br></div>\n<blockquote type=\"cite\">\n<pre class=\"moz-quote-pre\" wrap=\"\">"
                 + html.escape(orders) + "</pre>\n</blockquote>\n<pre class=\"moz-signature\" cols=\"72\">-- \nBob</pre>"
                 "</body></html>\n")
    boundary = "------------Nz9cBHk0yGIu0s0Xm7ZfD1Pq"
    raw = textwrap.dedent(f"""\
        Message-ID: <6b2f1c0e-1111-4e4e-9a9a-0c0ffee00001@example.org>
        Date: Mon, 7 Jul 2025 12:00:00 +0200
        MIME-Version: 1.0
        User-Agent: Mozilla Thunderbird
        Subject: Re: [pbem pm-test] 0003
        To: Alice <alice@example.org>
        From: Bob <bob@example.org>
        Content-Type: multipart/mixed; boundary="{boundary}"

        This is a multi-part message in MIME format.
        --{boundary}
        Content-Type: multipart/alternative; boundary="{boundary}alt"

        --{boundary}alt
        Content-Type: text/plain; charset=UTF-8; format=flowed
        Content-Transfer-Encoding: 8bit

        """) + plain + textwrap.dedent(f"""\
        --{boundary}alt
        Content-Type: text/html; charset=UTF-8
        Content-Transfer-Encoding: 8bit

        """) + body_html + textwrap.dedent(f"""\
        --{boundary}alt--
        --{boundary}
        Content-Type: application/toml; name="{STATE}"
        Content-Disposition: attachment; filename="{STATE}"
        Content-Transfer-Encoding: base64

        """) + b64_state(ex) + f"--{boundary}--\n"
    return raw.replace("\n", "\r\n").encode("utf-8")


def test_a_thunderbird_reply_with_an_html_copy_is_read_from_its_plain_text(ex: Exchange) -> None:
    p = save(ex.root, "thunderbird.eml", thunderbird_reply(ex))
    r = read(ex, p, 0, "new    0003.state.toml", "new    0003-german.orders.toml", "part 1 (text/plain), pasted at line")
    assert "HTML" not in r.output  # the HTML copy is not read at all
    assert_received(ex, [STATE, ORDERS])


def outlook(ex: Exchange, orders_text: str) -> bytes:
    """An Outlook message: windows-1252 quoted-printable plain text wrapped at 76 columns with CRLF
    line endings, non-breaking spaces around '=', and an HTML copy of MsoNormal paragraphs."""
    plain = "Hi Bob,\n\nmy orders:\n\n" + wrap(orders_text.replace(" = ", "\u00a0= "), 76) + "\n\nAlice\n"
    qp = quopri.encodestring(plain.replace("\n", "\r\n").encode("cp1252")).decode("ascii")
    paras = "".join(f'<p class="MsoNormal">{html.escape(x) or "&nbsp;"}<o:p></o:p></p>\r\n'
                    for x in orders_text.rstrip("\n").split("\n"))
    body_html = ('<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style><!-- p.MsoNormal {margin:0cm;} --></style>'
                 f"</head><body lang=EN-GB><div class=WordSection1>{paras}</div></body></html>")
    qh = quopri.encodestring(body_html.encode("cp1252")).decode("ascii")
    b = "_000_AM0PR01MB1234567890ABCDEFexampleorg_"
    raw = (f"From: Alice <alice@example.org>\nTo: Bob <bob@example.org>\nSubject: GT2 orders\n"
           f"Thread-Topic: GT2 orders\nContent-Language: en-GB\nX-MS-Has-Attach:\nMIME-Version: 1.0\n"
           f'Content-Type: multipart/alternative; boundary="{b}"\n\n'
           f"--{b}\nContent-Type: text/plain; charset=\"Windows-1252\"\nContent-Transfer-Encoding: quoted-printable\n\n"
           f"{qp}\n--{b}\nContent-Type: text/html; charset=\"Windows-1252\"\nContent-Transfer-Encoding: quoted-printable\n\n"
           f"{qh}\n--{b}--\n")
    return raw.replace("\r\n", "\n").replace("\n", "\r\n").encode("ascii")


def test_outlook_wrapped_lines_and_non_breaking_spaces_are_undone_when_the_seal_verifies(ex: Exchange) -> None:
    orders = ex.text(ORDERS)
    assert max(len(x) for x in orders.split("\n")) > 76  # the answers and signature lines
    p = save(ex.root, "outlook.eml", outlook(ex, orders))
    # the state came before: the folder has it
    (ex.receiver / STATE).write_bytes(ex.file(STATE).read_bytes())
    read(ex, p, 0, "new    0003-german.orders.toml",
         "your mail program wrapped the lines of the signed file at 76 columns and turned spaces into non-breaking spaces: "
         "undone, and the seal verifies")
    # filed as the sender wrote it: the same data, the same seal
    assert_received(ex, [ORDERS], identical=False)
    assert (ex.receiver / ORDERS).read_text(encoding="utf-8") == orders.rstrip("\n") + "\n"


def test_a_wrapped_file_that_does_not_verify_says_what_the_mail_program_did(ex: Exchange) -> None:
    orders = ex.text(ORDERS).replace('loss_order = ["Inf1"]', 'loss_order = ["Inf2"]')  # changed after sealing
    (ex.receiver / STATE).write_bytes(ex.file(STATE).read_bytes())
    p = save(ex.root, "outlook.eml", outlook(ex, orders))
    before = snapshot(ex.receiver)
    read(ex, p, 2, "your mail program wrapped the lines of the signed file at 76 columns", "send it as an attachment",
         "Nothing was written")
    assert snapshot(ex.receiver) == before


def apple_mail(body: str, html_only: bool = False) -> bytes:
    """Apple Mail: UTF-8 quoted-printable (soft line breaks at 76, non-breaking spaces as =C2=A0)."""
    b = "Apple-Mail=_3F2A1B0C-7D6E-4F5A-9B8C-1D2E3F4A5B6C"
    if html_only:
        divs = "".join(f"<div>{html.escape(x).replace(' ', '&nbsp;', 1) if x else '<br>'}</div>"
                       for x in body.rstrip("\n").split("\n"))
        part = f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body style="word-wrap: break-word;">{divs}</body></html>'
        ctype = "text/html"
    else:
        part, ctype = body, "text/plain"
    qp = quopri.encodestring(part.replace("\n", "\r\n").encode("utf-8")).decode("ascii")
    assert "=\r\n" in qp or "=\n" in qp  # soft line breaks
    raw = (f"From: Alice <alice@example.org>\nContent-Type: multipart/alternative; boundary=\"{b}\"\n"
           f"Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3774.600.62\\))\nSubject: orders\nDate: Mon, 7 Jul 2025 12:00:00 +0200\n"
           f"To: Bob <bob@example.org>\nX-Mailer: Apple Mail (2.3774.600.62)\n\n\n--{b}\n"
           f"Content-Transfer-Encoding: quoted-printable\nContent-Type: {ctype};\n\tcharset=utf-8\n\n{qp}\n--{b}--\n")
    return raw.replace("\r\n", "\n").replace("\n", "\r\n").encode("ascii")


def test_apple_mail_quoted_printable_with_non_breaking_spaces(ex: Exchange) -> None:
    orders = ex.text(ORDERS)
    body = "Here you go:\n\n\ufeff" + orders.replace("kind = ", "kind\u00a0= ").replace("side = ", "side =\u00a0") + "\nCheers,\nAlice\n"
    p = save(ex.root, "apple.eml", apple_mail(body))
    (ex.receiver / STATE).write_bytes(ex.file(STATE).read_bytes())
    read(ex, p, 0, "new    0003-german.orders.toml", "turned spaces into non-breaking spaces: undone")
    assert_received(ex, [ORDERS])  # byte for byte


def test_an_html_only_message_is_read_as_text_and_taken_when_its_seal_verifies(ex: Exchange) -> None:
    orders = ex.text(ORDERS)
    (ex.receiver / STATE).write_bytes(ex.file(STATE).read_bytes())
    p = save(ex.root, "apple-html.eml", apple_mail("My orders:\n\n" + orders + "\nAlice\n", html_only=True))
    read(ex, p, 0, "new    0003-german.orders.toml", "read from its HTML")
    assert_received(ex, [ORDERS], identical=False)
    # changed: read from the HTML, it does not verify; not taken, nothing written
    (ex.receiver / ORDERS).unlink()
    bad = orders.replace('"Inf1"', '"Inf2"')
    p = save(ex.root, "bad-html.eml", apple_mail("My orders:\n\n" + bad, html_only=True))
    before = snapshot(ex.receiver)
    read(ex, p, 2, "read from its HTML", "send it as an attachment")
    assert snapshot(ex.receiver) == before


def test_repair_is_a_function_of_the_text_and_the_original_comes_first() -> None:
    sig = "A" * 86 + "=="
    text = f'[pbem]\nkind = "orders"\n\n[seal]\nsigner = "german"\nsignature = "{sig}"\n'
    wrapped = wrap(text, 76)
    assert wrapped != text
    # the pasted block runs past the cut line; repair joins it back, the same way every time
    [(line, block)] = inline_blocks("Orders:\n\n" + wrapped + "\n-- \nAlice\n")
    assert line == 3 and "-- " not in block
    r = repair(block)
    assert r.text == text and r.width == 76 and r.joined == 2 and r.what().startswith("wrapped the lines")
    assert repair(block).text == r.text
    # nothing to repair: the text is left as it is
    assert repair(text).text == text and repair(text).what() == ""
    # a prose string broken at a space (short of the widest line) gets its space back; a key cut after '=' its value
    tail = '\nnote = "the widest line of this text"'
    assert repair('reason = "a long\nreason"\nkey =\n"v"' + tail).text == 'reason = "a long reason"\nkey = "v"' + tail


def test_html_text() -> None:
    assert html_text("<p>a&nbsp;=&amp;\n b</p><br/><pre>x\n  y</pre><style>p {}</style>") == "\na\u00a0=& b\n\n\nx\n  y\n"
