"""`pbem mail read` on hostile messages (README: E-mail, Bounds): every bound on a message's shape is
checked on its raw text before the email package parses it, so a message built to exhaust the
reader is refused at once (exit 2, naming the message, the part and the bound) and nothing is
filed; the mail programs' own messages, with their long headers, still read. The cheap scan finds
the same MIME parts as the parser (a differential test on generated structures).
"""

from __future__ import annotations

import base64
import email
import random
import time
from pathlib import Path

import pytest

from pbem.exchange import mail
from pbem.exchange.mail import layout, split_mbox
from tests.clihelpers import fails, run, snapshot
from tests.exchange.test_mail import Exchange, assert_received, exchange, message, save


@pytest.fixture
def ex(tmp_path: Path) -> Exchange:
    return exchange(tmp_path)


HEAD = "From: Alice <alice@example.org>\r\nTo: bob@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\n"


def cpu_of(fn: object) -> float:
    t0 = time.process_time()
    assert callable(fn)
    fn()
    return time.process_time() - t0


def refused(ex: Exchange, raw: bytes, *needles: str, name: str = "in.eml") -> str:
    """Read a message that must be refused as malformed (exit 2) before anything is parsed: the
    error names the bound; the folder is unchanged."""
    p = save(ex.root, name, raw)
    out: list[str] = []
    cpu = cpu_of(lambda: out.append(fails(ex.root, 2, ["mail", "read", p, "--folder", ex.receiver], *needles).output))
    assert cpu < 5, f"{cpu:.1f} s of CPU to refuse it"
    assert "Traceback" not in out[0] and "internal error" not in out[0]
    return out[0]


# --- the two messages that exhausted the reader ---------------------------------------------------


def test_fifty_thousand_content_type_parameters_are_refused_before_parsing(ex: Exchange) -> None:
    params = "".join(f";\r\n p{i}=v" for i in range(50_000))
    raw = (HEAD + "Content-Type: text/plain; charset=utf-8" + params + "\r\n\r\n" + ex.text("0003.state.toml")).encode()
    assert 500_000 < len(raw) < 700_000
    out = refused(ex, raw, "in.eml: the message: the Content-Type field of its header has 50001 parameters",
                  "pbem reads at most 200", "built to exhaust a mail reader", "pbem mail write")
    assert "found" not in out


def test_sixty_thousand_encoded_words_in_a_file_name_are_refused_before_parsing(ex: Exchange) -> None:
    msg = message(("0003.state.toml", ex.text("0003.state.toml")))
    raw = msg.as_bytes()
    words = " ".join("=?utf-8?q?a?=" for _ in range(60_000))
    raw = raw.replace(b'filename="0003.state.toml"', f'filename="{words}"'.encode())
    assert 800_000 < len(raw) < 1_000_000
    refused(ex, raw, "in.eml: MIME part 2: the Content-Disposition field of its header has 60000 RFC 2047 encoded words",
            "pbem reads at most 1000 in one field")


# --- each bound -------------------------------------------------------------------------------------


def nested(depth: int, inner: str) -> str:
    head = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth))
    tail = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    return HEAD + head + inner + tail


def parts(n: int, part: str = "Content-Type: text/plain\r\n\r\nx\r\n") -> str:
    return HEAD + 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n' + f"--B\r\n{part}" * n + "--B--\r\n"


def fields(n: int, size: int) -> str:
    return "".join(f"X-F{i}: {'y' * size}\r\n" for i in range(n))


BOUNDS: dict[str, tuple[str, list[str]]] = {
    "parameters": (HEAD + "Content-Type: text/plain" + "; a=b" * 201 + "\r\n\r\nx\r\n",
                   ["the message: the Content-Type field of its header has 201 parameters; pbem reads at most 200"]),
    "parameters of a part, counted by ';' in quotes too": (
        parts(1, 'Content-Disposition: attachment; filename="' + ";" * 201 + '"\r\n\r\nx\r\n'),
        ["MIME part 1: the Content-Disposition field of its header has 202 parameters"]),
    "encoded words": (HEAD + "Subject: " + "=?utf-8?q?a?= " * 1001 + "\r\n\r\nx\r\n",
                      ["the Subject field of its header has 1001 RFC 2047 encoded words"]),
    "continuations": (parts(1, "Content-Type: text/plain" + "".join(f"; name*{i}*=a" for i in range(101)) + "\r\n\r\nx\r\n"),
                      ["MIME part 1: the Content-Type field of its header has 101 RFC 2231 continuations; pbem reads at most 100"]),
    "a punycode RFC 2231 value": (HEAD + "Content-Type: multipart/mixed; boundary*=punycode''-" + "zz" * 20 + "\r\n\r\nx\r\n",
                                  ["declares the charset 'punycode' (RFC 2231), which is no charset of mail text"]),
    "one field, unfolded": (HEAD + "X-Long: " + "a" * 40_000 + "\r\n " + "b" * 40_000 + "\r\n\r\nx\r\n",
                            ["the X-Long field of its header is 80009 bytes long; pbem reads at most 65536 in one field"]),
    "the header of a message": (HEAD + fields(5, 60_000) + "\r\nx\r\n",
                                ["the message: its header is", "pbem reads at most 262144 in the header of a message"]),
    "lines in the header of a message": (HEAD + fields(5_000, 1) + "\r\nx\r\n",
                                         ["the message: its header has 5004 lines; pbem reads at most 5000 in the header of a message"]),
    "the header of a part": (parts(1, fields(2, 40_000) + "\r\nx\r\n"),
                             ["MIME part 1: its header is", "pbem reads at most 65536 in the header of a MIME part"]),
    "lines in the header of a part": (parts(1, fields(501, 1) + "\r\nx\r\n"),
                                      ["MIME part 1: its header has 501 lines; pbem reads at most 500 in the header of a MIME part"]),
    "all the headers": (parts(20, fields(1, 60_000) + "\r\nx\r\n"),
                        ["MIME part 18: the headers of the message and its parts come to more than 1048576 bytes"]),
    "nesting": (nested(21, "Content-Type: text/plain\r\n\r\nx"), ["MIME part 1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1: MIME parts nested more than 20 deep"]),
    "attached messages count in the nesting": (HEAD + "Content-Type: message/rfc822\r\n\r\n" * 21 + "\r\nx\r\n",
                                                ["the attached message: MIME parts nested more than 20 deep"]),
    "parts": (parts(500), ["MIME part 500: the message has more than 500 MIME parts"]),
    "lines": (HEAD + "\r\n" + "x\n" * 500_001, ["in.eml: 500006 lines is more than the 500000 lines a message may have"]),
}


@pytest.mark.parametrize("bound", list(BOUNDS))
def test_each_bound_is_checked_before_parsing(ex: Exchange, bound: str) -> None:
    raw, needles = BOUNDS[bound]
    refused(ex, raw.encode("utf-8", "surrogateescape"), *needles, "pbem reads no part of a message beyond these bounds")


def test_just_within_the_bounds_a_message_reads(ex: Exchange) -> None:
    """The same shapes one short of each bound are read: the bounds are not off by one."""
    state = base64.encodebytes(ex.file("0003.state.toml").read_bytes()).decode()
    attachment = ('Content-Type: application/toml; name="0003.state.toml"' + "; a=b" * 198 + "\r\n"
                  "Content-Disposition: attachment" + "".join(f"; filename*{i}*={'utf-8' + chr(39) * 2 if i == 0 else ''}%30" for i in range(100)) + "\r\n"
                  "Content-Transfer-Encoding: base64\r\n" + fields(494, 1) + "\r\n" + state)
    raw = (HEAD.replace("Subject: x", "Subject: " + "=?utf-8?q?a?= " * 1000) + fields(4995, 1)
           + 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nhi\r\n'
           + "--B\r\n" + attachment + "--B--\r\n")
    r = run(["mail", "read", save(ex.root, "in.eml", raw.encode()), "--folder", ex.receiver])
    assert "new    0003.state.toml" in r.output and "attachment '00000" in r.output
    assert_received(ex, ["0003.state.toml"])


# --- the mail programs' own messages -------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.encodebytes(data).decode().replace("\n", "\r\n")


def received(i: int) -> str:
    return (f"Received: from mail{i}.example.net (mail{i}.example.net. [192.0.2.{i}])\r\n"
            f"        by mx.example.org with ESMTPS id a{i}si123456abc.{i}.2025.07.07.03.00.00\r\n"
            f"        for <bob@example.org>\r\n        (version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256);\r\n"
            f"        Mon, 07 Jul 2025 03:00:{i:02d} -0700 (PDT)\r\n")


def signature(name: str, extra: str, rng: random.Random) -> str:
    sig = base64.b64encode(rng.randbytes(256)).decode()
    folded = "\r\n        ".join(sig[i:i + 70] for i in range(0, len(sig), 70))
    return f"{name}: {extra};\r\n        b={folded}\r\n"


def recipients(n: int, name: str) -> str:
    people = [f'"{name} {i}, Player" <{name.lower()}{i}@example.{["org", "net", "com"][i % 3]}>' for i in range(n)]
    return ",\r\n ".join(people)


def gmail(ex: Exchange) -> str:
    """As Gmail delivers it: a long trail of Received, ARC and DKIM headers, long To and Cc lists,
    multipart/mixed holding multipart/alternative and the attachments."""
    rng = random.Random(1)
    head = "Delivered-To: bob@example.org\r\n" + "".join(received(i) for i in range(12))
    for i in range(3, 0, -1):
        head += signature("ARC-Seal", f"i={i}; a=rsa-sha256; t=1751882400; cv=pass;\r\n        d=google.com; s=arc-20240605", rng)
        head += signature("ARC-Message-Signature", f"i={i}; a=rsa-sha256; c=relaxed/relaxed; d=google.com; s=arc-20240605;\r\n"
                          "        h=to:subject:message-id:date:from:mime-version:dkim-signature;\r\n"
                          "        bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;\r\n        fh=abc", rng)
        head += (f"ARC-Authentication-Results: i={i}; mx.google.com;\r\n       dkim=pass header.i=@example.org header.s=20230601;\r\n"
                 "       spf=pass (google.com: domain of alice@example.org designates 192.0.2.1 as permitted sender)\r\n")
    for d in ("example.org", "gappssmtp.com"):
        head += signature("DKIM-Signature", f"v=1; a=rsa-sha256; c=relaxed/relaxed;\r\n        d={d}; s=20230601; t=1751882400;"
                          " x=1752487200; darn=example.org;\r\n        h=to:subject:message-id:date:from:mime-version:from:to:cc"
                          ":subject:date\r\n         :message-id:reply-to;\r\n        bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", rng)
    head += ("X-Google-Smtp-Source: AGHT+IG" + "x" * 120 + "\r\nX-Received: by 2002:a17:907:7fa6 with SMTP id qk38mr123;\r\n"
             "        Mon, 07 Jul 2025 03:00:00 -0700 (PDT)\r\nMIME-Version: 1.0\r\nFrom: Alice <alice@example.org>\r\n"
             f"To: {recipients(300, 'Player')}\r\nCc: {recipients(200, 'Kibitz')}\r\n"
             "Date: Mon, 7 Jul 2025 12:00:00 +0200\r\nMessage-ID: <CA+abc=123@mail.gmail.com>\r\n"
             "Subject: =?UTF-8?Q?=5Bpbem_pm=2Dtest=5D_0003=3A_Zug_f=C3=BCr_Zug?=\r\n"
             'Content-Type: multipart/mixed; boundary="000000000000a1b2c3d4e5f6"\r\n\r\n')
    body = ("--000000000000a1b2c3d4e5f6\r\nContent-Type: multipart/alternative; boundary=\"000000000000f6e5d4c3b2a1\"\r\n\r\n"
            "--000000000000f6e5d4c3b2a1\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\n\r\nYour move.\r\n\r\n"
            "--000000000000f6e5d4c3b2a1\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n\r\n<div dir=\"ltr\">Your move.</div>\r\n\r\n"
            "--000000000000f6e5d4c3b2a1--\r\n")
    for name in ex.sent:
        body += (f"--000000000000a1b2c3d4e5f6\r\nContent-Type: application/octet-stream; name=\"{name}\"\r\n"
                 f"Content-Disposition: attachment; filename=\"{name}\"\r\nContent-Transfer-Encoding: base64\r\n"
                 f"Content-ID: <f_m1abc{len(body)}>\r\nX-Attachment-Id: f_m1abc{len(body)}\r\n\r\n" + b64(ex.file(name).read_bytes()))
    return head + body + "--000000000000a1b2c3d4e5f6--\r\n"


def thunderbird(ex: Exchange) -> str:
    """As Thunderbird writes it: format=flowed text beside HTML, a long non-ASCII file name in RFC
    2231 continuations."""
    long_name = "Zug für Zug, der Bericht über die Lage an der Front im Juli 1941 und was daraus folgt".encode()
    pieces = ["".join(f"%{b:02X}" for b in long_name[i:i + 20]) for i in range(0, len(long_name), 20)]
    name2231 = ";\r\n ".join(f"filename*{i}*={'UTF-8' + chr(39) * 2 if i == 0 else ''}{p}" for i, p in enumerate(pieces))
    b1, b2 = "------------wAbCdEfGhIjKlMnOpQrStU", "------------0123456789ABCDEFGHIJKL"
    text = "Hi Bob,\r\n\r\nhere is the state and my orders for GT2, adjudicated as agreed. Let me know \r\nwhen you have read them.\r\n"
    out = (HEAD.replace("Subject: x", "Subject: =?UTF-8?Q?Zug_f=C3=BCr_Zug?=")
           + "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.3.1\r\n"
           + "Content-Language: de-DE\r\nMessage-ID: <8a1b2c3d-0001@example.org>\r\n"
           + f'Content-Type: multipart/mixed; boundary="{b1}"\r\n\r\nThis is a multi-part message in MIME format.\r\n'
           + f'--{b1}\r\nContent-Type: multipart/alternative;\r\n boundary="{b2}"\r\n\r\n'
           + f"--{b2}\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{text}\r\n"
           + f"--{b2}\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n<html><body>Hi Bob</body></html>\r\n"
           + f"--{b2}--\r\n")
    for name in ex.sent:
        out += (f'--{b1}\r\nContent-Type: application/toml; name="{name}"\r\nContent-Disposition: attachment; filename="{name}"\r\n'
                f"Content-Transfer-Encoding: base64\r\n\r\n" + b64(ex.file(name).read_bytes()))
    out += (f"--{b1}\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Disposition: attachment;\r\n {name2231}\r\n"
            "Content-Transfer-Encoding: base64\r\n\r\n" + b64(b"Notizen zum Zug.\n"))
    return out + f"--{b1}--\r\n"


def outlook(ex: Exchange) -> str:
    """As Outlook writes it: many X-MS-Exchange headers (one of several KB), file names in RFC 2047."""
    rng = random.Random(2)
    info = base64.b64encode(rng.randbytes(5000)).decode()
    head = (HEAD + "Thread-Topic: [pbem pm-test] 0003\r\nThread-Index: AQHb7Z" + "A" * 40 + "==\r\n"
            + "".join(f"X-MS-Exchange-Organization-Header{i}: {'v' * 60}\r\n" for i in range(60))
            + "X-Microsoft-Antispam-Message-Info:\r\n\t" + "\r\n\t".join(info[i:i + 76] for i in range(0, len(info), 76)) + "\r\n"
            + 'Content-Type: multipart/mixed;\r\n\tboundary="_004_AM0PR01MB1234567890_"\r\n\r\n')
    out = head + ("--_004_AM0PR01MB1234567890_\r\nContent-Type: text/plain; charset=\"us-ascii\"\r\n"
                  "Content-Transfer-Encoding: quoted-printable\r\n\r\nYour move.\r\n\r\n")
    for name in ex.sent:
        encoded = "=?utf-8?B?" + base64.b64encode(name.encode()).decode() + "?="
        out += ("--_004_AM0PR01MB1234567890_\r\n"
                f'Content-Type: application/octet-stream; name="{encoded}"\r\nContent-Description: {encoded}\r\n'
                f'Content-Disposition: attachment; filename="{encoded}"; size=1234;\r\n'
                '\tcreation-date="Mon, 07 Jul 2025 10:00:00 GMT";\r\n\tmodification-date="Mon, 07 Jul 2025 10:00:00 GMT"\r\n'
                "Content-Transfer-Encoding: base64\r\n\r\n" + b64(ex.file(name).read_bytes()))
    return out + "--_004_AM0PR01MB1234567890_--\r\n"


def apple_mail(ex: Exchange) -> str:
    """As Apple Mail writes it: the text split around the attachments, x-unix-mode parameters."""
    out = HEAD + 'Content-Type: multipart/mixed;\r\n\tboundary="Apple-Mail=_0A1B2C3D-4E5F"\r\n\r\n'
    for name in ex.sent:
        out += ("\r\n--Apple-Mail=_0A1B2C3D-4E5F\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: text/plain;\r\n\tcharset=us-ascii\r\n\r\n"
                f"Here is {name}:\r\n\r\n--Apple-Mail=_0A1B2C3D-4E5F\r\nContent-Disposition: attachment;\r\n\tfilename={name}\r\n"
                f"Content-Type: application/octet-stream;\r\n\tx-unix-mode=0644;\r\n\tname=\"{name}\"\r\n"
                "Content-Transfer-Encoding: base64\r\n\r\n" + b64(ex.file(name).read_bytes()))
    return out + "--Apple-Mail=_0A1B2C3D-4E5F--\r\n"


def mutt(ex: Exchange) -> str:
    """As mutt writes a reply deep in a thread: a long References header, the files inline."""
    refs = "\r\n ".join(f"<20250{i:03d}.abcdef@example.org>" for i in range(200))
    out = (HEAD + f"References: {refs}\r\nIn-Reply-To: <20250199.abcdef@example.org>\r\n"
           'Content-Type: multipart/mixed; boundary="k+w/ZBqRnYbUOgTQ"\r\nContent-Disposition: inline\r\n\r\n'
           "--k+w/ZBqRnYbUOgTQ\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Disposition: inline\r\n\r\nYour move.\r\n\r\n")
    for name in ex.sent:
        out += (f'--k+w/ZBqRnYbUOgTQ\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: attachment; filename="{name}"\r\n'
                "Content-Transfer-Encoding: 8bit\r\n\r\n" + ex.text(name).replace("\n", "\r\n") + "\r\n")
    return out + "--k+w/ZBqRnYbUOgTQ--\r\n"


@pytest.mark.parametrize("program", [gmail, thunderbird, outlook, apple_mail, mutt], ids=lambda f: f.__name__)
def test_the_mail_programs_messages_are_read(ex: Exchange, program: object) -> None:
    assert callable(program)
    raw = program(ex).encode("utf-8")
    r = run(["mail", "read", save(ex.root, "in.eml", raw), "--folder", ex.receiver])
    assert "new    0003.state.toml" in r.output and "new    0003-german.orders.toml" in r.output
    assert "new    0003.report.md" in r.output and "attachment '0003.state.toml'" in r.output
    assert_received(ex, ex.sent)


def test_the_long_headers_of_real_mail_are_within_the_bounds(ex: Exchange) -> None:
    """How close the examples come to the bounds: far enough for mail several times as large."""
    raw = gmail(ex).encode()
    header = raw[: raw.index(b"\r\n\r\n")]
    to = header[header.index(b"\r\nTo: "):header.index(b"\r\nCc: ")]
    assert 30_000 < len(header) < mail.MAX_HEADER_BYTES // 4
    assert 14_000 < len(to) < mail.MAX_FIELD_BYTES // 4
    assert header.count(b"\r\n") < mail.MAX_HEADER_LINES // 4


def test_the_scan_finds_the_parts_the_parser_finds() -> None:
    """Differential: on generated MIME structures (nested multiparts, digests, delivery-status
    blocks, attached messages, missing and repeated boundaries, stray From and continuation lines,
    CR, LF and CRLF line ends) the raw scan sees exactly the parts, in order, with exactly the header
    fields, that email.message_from_bytes gives."""
    def gen(rng: random.Random, depth: int = 0) -> str:
        eol = rng.choice(["\n", "\r\n", "\r"])
        out = [rng.choice(["From x" + eol, " cont" + eol, ": x" + eol])] if rng.random() < 0.1 else []
        kind = rng.choice(["text", "mixed", "mixed", "rfc822", "digest", "ds", "none", "nobound"]) if depth < 4 else "text"
        b = rng.choice(["b", "b-c", "x y", "q" * rng.randint(1, 5)]) + str(depth)
        heads = {"text": ["Content-Type: text/plain"], "mixed": [f'Content-Type: multipart/mixed; boundary="{b}"'],
                 "digest": [f"Content-Type: multipart/digest; boundary={b.replace(' ', '')}"], "rfc822": ["Content-Type: message/rfc822"],
                 "ds": ["Content-Type: message/delivery-status"], "none": [], "nobound": ["Content-Type: multipart/mixed"]}[kind]
        b = b.replace(" ", "") if kind == "digest" else b
        heads += ["X-A: 1" + eol + " b"] if rng.random() < 0.3 else []
        heads += ["From z"] if rng.random() < 0.1 else []
        rng.shuffle(heads)
        out += [h + eol for h in heads] + ([eol] if rng.random() < 0.9 else [])
        if kind in ("mixed", "digest"):
            out += ["preamble" + eol] if rng.random() < 0.3 else []
            for _ in range(rng.randint(0, 3)):
                out += [f"--{b}{rng.choice(['', ' ', chr(9)])}{eol}"] + ([f"--{b}{eol}"] if rng.random() < 0.15 else [])
                out += [gen(rng, depth + 1)] + ([f"--{b}x{eol}"] if rng.random() < 0.1 else [])
            out += [f"--{b}--{eol}"] if rng.random() < 0.8 else []
            out += ["epilogue" + eol] if rng.random() < 0.3 else []
        elif kind == "rfc822":
            out.append(gen(rng, depth + 1))
        elif kind == "ds":
            out += [f"A{i}: x{eol}B: y{eol}{eol}" + (eol if rng.random() < 0.2 else "") for i in range(rng.randint(0, 3))]
        else:
            out += [rng.choice(["body", "--b0", "--b1--", "", "From q", " x", "--" + b]) + eol for _ in range(rng.randint(0, 3))]
        return "".join(out)

    compared = 0
    for seed in range(400):
        raw = ("From: a@example.org\n" + gen(random.Random(seed))).encode()
        scanned = [[(k, str(v)) for k, v in fields] for _, fields in layout(raw)]
        parsed = [[(k, str(v)) for k, v in p.items()] for p in email.message_from_bytes(raw, policy=mail._POLICY).walk()]
        assert scanned == parsed, f"seed {seed}: {raw!r}"
        compared += len(parsed)
    assert compared > 1000


def test_the_parser_checks_each_field_again() -> None:
    """Behind the scan, the parser's policy checks every header field it collects, wherever it is."""
    raw = (HEAD + 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\nContent-Type: text/plain'
           + "; a=b" * 201 + "\r\n\r\nx\r\n--B--\r\n").encode()
    with pytest.raises(mail._Over, match="the Content-Type field of its header has 201 parameters"):
        email.message_from_bytes(raw, policy=mail._POLICY)


# --- the rest of intake on hostile input -----------------------------------------------------------


def test_splitting_an_mbox_is_linear_and_keeps_its_meaning() -> None:
    box = (b"From a\nX: 1\n\nbody\n>From here\n>>From there\nFrom not a new message\n\r\n"
           b"From b\r\nY: 2\r\n\r\nb2\r\r\nFrom c\nZ: 3\n")
    assert split_mbox(box) == [b"X: 1\n\nbody\nFrom here\n>From there\nFrom not a new message\n\r\n", b"Y: 2\r\n\r\nb2\r\r\n", b"Z: 3\n"]
    assert split_mbox(b"From a") == [b""]
    huge = b"From a\n" + b"\n" * 20_000_000
    assert cpu_of(lambda: split_mbox(huge)) < 2
    assert len(split_mbox(b"From x\n\n" * 10_000, limit=100)) == 101


def test_an_mbox_of_too_many_lines(ex: Exchange) -> None:
    refused(ex, b"From a\n" + b"\n" * 2_500_000, "2500001 lines is more than the 2500000 lines pbem reads from one mbox",
            name="box.mbox")


def test_an_mbox_of_too_many_parts(ex: Exchange) -> None:
    msg = parts(499).encode()
    box = b"".join(b"From a\n" + msg + b"\n\n" for _ in range(21))
    refused(ex, box, "box.mbox, message 21: the message: the mbox has more than 10000 MIME parts", name="box.mbox")


def test_many_pasted_files_are_refused_before_any_is_read(ex: Exchange) -> None:
    raw = (HEAD + "\r\n").encode() + b"[pbem]\n" * 400_000
    out = refused(ex, raw, "more than 50 game files in one message")
    assert "schema" not in out


def test_game_files_beyond_their_total_are_refused_before_any_is_read(ex: Exchange) -> None:
    big = ex.text("0003.state.toml") + "#" + "x" * 900_000 + "\n"
    raw = message(*[(f"s{i}.toml", big.replace("[pbem]", f"[pbem]\n# {i}", 1)) for i in range(3)]).as_bytes()
    refused(ex, raw, "in.eml: its game files come to more than the 2097152 bytes pbem reads from one message")


def test_a_toml_key_of_many_dotted_parts_is_not_read(ex: Exchange) -> None:
    """Python's TOML reader takes time and memory growing with the square of a key's parts (a 1 MB
    key took gigabytes): such a file is refused unread; one of 16 parts is read."""
    text = ex.text("0003-german.orders.toml") + "[" + ".".join(["a"] * 200_000) + "]\n"
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("o.toml", text)))
    t0 = time.process_time()
    fails(ex.root, 2, ["mail", "read", p, "--folder", ex.receiver], "attachment 'o.toml': a key or table name of more than 16 "
          f"dotted parts (at line {text.count(chr(10))})", "no pbem file has one")
    assert time.process_time() - t0 < 5
    pasted = save(ex.root, "pasted.eml", message(body="Orders:\n\n[pbem]\nx." + ".".join(["a"] * 16) + " = 1\n"))
    fails(ex.root, 2, ["mail", "read", pasted], "a key or table name of more than 16 dotted parts (at line 4 of the text)")
    ok = save(ex.root, "ok.eml", message(body="Orders:\n\n[pbem]\n" + ".".join(["a"] * 16) + " = 1\n"))
    fails(ex.root, 2, ["mail", "read", ok], "schema violation")  # read, then refused for what it is


@pytest.mark.parametrize("charset", ["punycode", "idna", "undefined", "zlib_codec", "no-such-charset"])
def test_a_body_in_a_charset_that_is_no_charset_of_text_reads_as_utf8(ex: Exchange, charset: str) -> None:
    raw = (HEAD + f"Content-Type: text/plain; charset={charset}\r\n\r\nHere:\r\n\r\n").encode() + ex.file("0003.state.toml").read_bytes()
    r = run(["mail", "read", save(ex.root, "in.eml", raw), "--folder", ex.receiver])
    assert "new    0003.state.toml" in r.output
    slow = (HEAD + "Content-Type: text/plain; charset=punycode\r\n\r\n-").encode() + b"zz" * 3_000_000
    assert cpu_of(lambda: fails(ex.root, 2, ["mail", "read", save(ex.root, "slow.eml", slow)], "no pbem game file found")) < 5


def test_mail_send_refuses_addresses_it_cannot_read(ex: Exchange) -> None:
    eml = save(ex.root, "out.eml", (HEAD.replace("To: bob@example.org", "To: " + "(" * 5000 + "x@example.org")
                                    + "\r\nhi\r\n").encode())
    r = fails(ex.root, 2, ["mail", "send", eml, "--smtp", "127.0.0.1:1", "--no-starttls"],
              "its To header cannot be read as addresses")
    assert "internal error" not in r.output


def test_nothing_is_written_when_a_bound_refuses_a_message_of_an_mbox(ex: Exchange) -> None:
    good = message(*[(n, ex.text(n)) for n in ex.sent]).as_bytes()
    bad = (HEAD + "Content-Type: text/plain" + "; a=b" * 300 + "\r\n\r\nx\r\n").encode()
    box = b"From a\n" + good + b"\n\nFrom b\n" + bad
    before = snapshot(ex.receiver)
    refused(ex, box, "box.mbox, message 2: the message: the Content-Type field of its header has 300 parameters", name="box.mbox")
    assert snapshot(ex.receiver) == before
