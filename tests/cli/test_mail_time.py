"""The evidence of time of the mail (README: E-mail; docs/protocol.md, Deadlines): `pbem mail read
--folder` records, beside each game file it files or finds filed, the Date, Received, Message-ID,
From and To of the messages that carried it (``FILE.mail``), and `pbem status` shows it against the
deadline of the step the file answers, as evidence only."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.cli.test_deadlines import DUE, GRACE_END, _start
from tests.clihelpers import fails, json_errors, run, snapshot

RECORD = "0001-german.orders.toml.mail"
R_TOP = "from mail.a.org by mx.b.org with ESMTPS id 1;\r\n Fri, 04 Dec 2026 11:01:10 +0000 (UTC)"  # folded
R_FIRST = "from [10.0.0.2] by mail.a.org; Fri, 04 Dec 2026 12:00:59 +0100"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A game awaiting the German's GT1 orders (due DUE), and those orders, sealed, outside its folder."""
    tmp = tmp_path_factory.mktemp("mailtime")
    g, keys = _start(tmp)
    out = tmp / "out"
    out.mkdir()
    p = out / "0001-german.orders.toml"
    run(["template", g / "0001.state.toml", "--side", "german", "-o", p])
    run(["sign", p, "--key", keys["alice"], "--state", g / "0001.state.toml"])
    return g, p.read_text(encoding="utf-8")


@pytest.fixture
def game(made: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    g, orders = made
    shutil.copytree(g, tmp_path / "game")
    return tmp_path / "game", orders


def eml(orders: str, headers: list[tuple[str, str]]) -> bytes:
    """A message carrying ``orders`` as an attachment, with these header lines (written as given)."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    body = ("Subject: orders\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"XX\"\r\n\r\n"
            "--XX\r\nContent-Type: text/plain\r\n\r\nmy orders\r\n"
            "--XX\r\nContent-Type: application/toml\r\nContent-Disposition: attachment; filename=\"o.toml\"\r\n\r\n"
            + orders.replace("\n", "\r\n") + "\r\n--XX--\r\n")
    return (head + body).encode("utf-8")


def usual(date: str = "Fri, 4 Dec 2026 11:00:00 +0000", mid: str = "<m1@a.org>") -> list[tuple[str, str]]:
    return [("Received", R_TOP), ("Received", R_FIRST), ("Date", date), ("From", "Alice <alice@a.org>"),
            ("To", "bob@b.org"), ("Message-ID", mid)]


def record(g: Path) -> dict:
    return tomllib.loads((g / RECORD).read_text(encoding="utf-8"))


def test_a_message_with_date_and_two_received_is_filed_and_recorded(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    (tmp_path / "m.eml").write_bytes(eml(orders, usual()))
    r = run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    assert "wrote" in r.output and RECORD in r.output
    assert "mail <m1@a.org>: sent in time by its Date header; received in time by the server of mail.a.org" in r.output
    rec = record(g)
    assert rec["file"] == "0001-german.orders.toml" and rec["digest"].startswith("sha256:")
    [m] = rec["message"]
    assert m["message_id"] == "<m1@a.org>" and m["from"] == "Alice <alice@a.org>" and m["to"] == "bob@b.org"
    assert m["date"] == {"time": "2026-12-04T11:00Z", "raw": "Fri, 4 Dec 2026 11:00:00 +0000"}
    assert m["received"] == [  # top first, unfolded; 12:00:59 +0100 is 11:00 UTC, to the minute
        {"time": "2026-12-04T11:01Z", "by": "mx.b.org",
         "raw": "from mail.a.org by mx.b.org with ESMTPS id 1; Fri, 04 Dec 2026 11:01:10 +0000 (UTC)"},
        {"time": "2026-12-04T11:00Z", "by": "mail.a.org", "raw": R_FIRST}]
    assert "not a signed fact" in (g / RECORD).read_text(encoding="utf-8")
    run(["verify", g])  # the record disturbs no reader of the folder
    run(["check", g, g / "0001-german.orders.toml"])
    out = json.loads(run(["mail", "read", tmp_path / "m.eml", "--folder", g, "--json"]).output)
    assert not json_errors("mail-read", out)
    v = out["files"][0]["mail"][0]["verdict"]
    assert v["date"] == {"time": "2026-12-04T11:00Z", "status": "in-time", "late": 0}
    assert v["received"]["by"] == "mail.a.org" and v["due"] == DUE and v["grace_until"] == GRACE_END


def test_the_same_message_read_twice_records_nothing_new(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    (tmp_path / "m.eml").write_bytes(eml(orders, usual()))
    run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    before = snapshot(g)
    r = run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    assert f"nothing new for {g}" in r.output and "recorded" not in r.output
    assert snapshot(g) == before


def test_a_message_without_date(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    (tmp_path / "m.eml").write_bytes(eml(orders, [h for h in usual() if h[0] != "Date"]))
    r = run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    assert "no Date header; received in time by the server of mail.a.org" in r.output
    assert "date" not in record(g)["message"][0]


def test_unreadable_dates_are_recorded_with_their_raw_text(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    headers = [("Received", "from x by mx.b.org; yesterday, around noon"), ("Received", "by mail.a.org without a date"),
               ("Date", "2026-12-04T11:00:00Z"), ("Message-ID", "<m2@a.org>")]
    (tmp_path / "m.eml").write_bytes(eml(orders, headers))
    r = run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    assert "its Date header is unreadable ('2026-12-04T11:00:00Z'); no readable Received header" in r.output
    m = record(g)["message"][0]
    assert m["date"] == {"time": "unreadable", "raw": "2026-12-04T11:00:00Z"}
    assert m["received"] == [{"time": "unreadable", "by": "mx.b.org", "raw": "from x by mx.b.org; yesterday, around noon"},
                             {"time": "unreadable", "by": "mail.a.org", "raw": "by mail.a.org without a date"}]
    for bad in ("Fri, 31 Feb 2026 11:00:00 +0000", "Fri, 4 Dec 2026 11:00:00", "Fri, 4 Dec 2026 11:00:00 +0075",
                "Fri, 4 Dek 2026 11:00:00 +0000", "Fri, 4 Dec 2026 11:00:00 XYZ"):  # no calendar day, no zone, ...
        from pbem.exchange.mailtime import parse_date
        assert parse_date(bad) is None, bad
    from pbem.exchange.mailtime import parse_date
    assert parse_date("4 Dec 2026 06:00 EST") == "2026-12-04T11:00Z"
    assert parse_date("Fri, 04 Dec 2026 11:00:00 -0000 (no zone)") == "2026-12-04T11:00Z"


def test_an_mbox_of_two_messages(game: tuple[Path, str], tmp_path: Path) -> None:
    """The same file sent twice (a resend): both messages recorded, in a stable order, the same
    bytes whichever order they are read in."""
    g, orders = game
    first = eml(orders, usual())
    again = eml(orders, usual("Fri, 4 Dec 2026 14:00:00 +0000", "<m2@a.org>")[2:])  # no Received: sent, never relayed?
    (tmp_path / "box").write_bytes(b"From alice Fri Dec  4 11:00:00 2026\n" + first.replace(b"\r\n", b"\n")
                                   + b"\nFrom alice Fri Dec  4 14:00:00 2026\n" + again.replace(b"\r\n", b"\n"))
    r = run(["mail", "read", tmp_path / "box", "--folder", g])
    assert "2 messages, 1 file found" in r.output
    assert "mail <m2@a.org>: sent late by 2h by its Date header, within the grace period; no readable Received header" in r.output
    ids = [m["message_id"] for m in record(g)["message"]]
    assert ids == ["<m1@a.org>", "<m2@a.org>"]
    other = tmp_path / "other"
    shutil.copytree(g, other)
    (other / RECORD).unlink()
    (tmp_path / "m2.eml").write_bytes(again)
    (tmp_path / "m1.eml").write_bytes(first)
    run(["mail", "read", tmp_path / "m2.eml", "--folder", other])
    r = run(["mail", "read", tmp_path / "m1.eml", "--folder", other])
    assert "known  0001-german.orders.toml" in r.output and "recorded" in r.output
    assert (other / RECORD).read_bytes() == (g / RECORD).read_bytes()


def test_status_says_in_time_or_late_by_the_evidence(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    late = [("Received", "from mail.a.org by mx.b.org; Sat, 05 Dec 2026 13:00:00 +0000"),
            ("Received", "from [10.0.0.2] by mail.a.org; Fri, 04 Dec 2026 12:30:00 +0000"),
            ("Date", "Fri, 4 Dec 2026 11:59:00 +0000"), ("Message-ID", "<late@a.org>")]
    (tmp_path / "late.eml").write_bytes(eml(orders, late))
    run(["mail", "read", tmp_path / "late.eml", "--folder", g])
    r = run(["status", g, "--now", "2026-12-05T14:00Z"])
    assert ("mail evidence of 0001-german.orders.toml (<late@a.org>): sent in time by its Date header; received late by "
            "30m by the server of mail.a.org, within the grace period") in r.output
    (tmp_path / "m.eml").write_bytes(eml(orders, usual()))
    run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    r = run(["status", g, "--now", "2026-12-05T14:00Z"])
    assert ("mail evidence of 0001-german.orders.toml (<m1@a.org>): sent in time by its Date header; received in time by "
            "the server of mail.a.org") in r.output
    out = json.loads(run(["status", g, "--now", "2026-12-05T14:00Z", "--json"]).output)
    assert not json_errors("status", out)
    [rec] = out["mail"]
    assert rec["file"] == "0001-german.orders.toml" and rec["answers"] == 1
    assert [m["verdict"]["received"]["status"] for m in rec["messages"]] == ["in-time", "grace"]
    past = [("Received", "from mail.a.org by mx.b.org; Sat, 05 Dec 2026 13:00:00 +0000"), ("Date", "Sat, 5 Dec 2026 12:00:00 +0000"),
            ("Message-ID", "<past@a.org>")]
    (tmp_path / "past.eml").write_bytes(eml(orders, past))
    r = run(["mail", "read", tmp_path / "past.eml", "--folder", g])
    assert ("sent late by 1d by its Date header, past the grace period; received late by 1d 1h by the server of mx.b.org, "
            "past the grace period") in r.output


def test_header_injection_is_escaped(game: tuple[Path, str], tmp_path: Path) -> None:
    """A line break inside a header starts a header of its own, which is not recorded; every control
    character of a recorded header is escaped: the record is one printable line per value."""
    g, orders = game
    headers = [("Received", "from a by mx.b.org; Fri, 04 Dec 2026 11:01:10 +0000"),
               ("Date", "Fri, 4 Dec 2026 11:00:00 +0000\rBcc: evil@x.org"),
               ("To", "bob@b.org\r\ndigest: sha256:forged"),
               ("From", "Alice \x1b[31m <alice@a.org>\u2028 file = \"0002.state.toml\" \\"),
               ("Message-ID", "<m1@a.org>\n\t[[message]] time = \"2026-12-01T00:00Z\"")]  # folded: unfolded, kept as text
    (tmp_path / "m.eml").write_bytes(eml(orders, headers))
    r = run(["mail", "read", tmp_path / "m.eml", "--folder", g])
    assert "\x1b" not in r.output
    text = (g / RECORD).read_text(encoding="utf-8")
    assert "\x1b" not in text and "\u2028" not in text and "\r" not in text
    rec = tomllib.loads(text)
    assert set(rec) == {"file", "digest", "message"} and rec["file"] == "0001-german.orders.toml"
    assert rec["digest"] != "sha256:forged"
    [m] = rec["message"]
    assert set(m) == {"message_id", "from", "to", "date", "received"}
    assert m["date"]["time"] == "2026-12-04T11:00Z" and m["to"] == "bob@b.org"
    assert m["from"] == "Alice \\x1b[31m <alice@a.org>\\u2028 file = \"0002.state.toml\" \\\\"
    assert m["message_id"] == "<m1@a.org>\t[[message]] time = \"2026-12-01T00:00Z\"".replace("\t", "\\x09")
    run(["verify", g])


def test_a_record_of_another_file_is_refused(game: tuple[Path, str], tmp_path: Path) -> None:
    g, orders = game
    (g / RECORD).write_text('file = "0001-german.orders.toml"\ndigest = "sha256:00"\n', encoding="utf-8")
    (tmp_path / "m.eml").write_bytes(eml(orders, usual()))
    fails(g, 2, ["mail", "read", tmp_path / "m.eml", "--folder", g], "a mail record of another content")
