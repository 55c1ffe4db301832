"""Skirmish game files by e-mail (README: E-mail), three players, Proud Monster out of the registry:
`pbem mail write` (subject, attachments, the summary), `pbem mail read` into the folder of the next
player (a state, a report, orders, a reply), `pbem mail send` to a real SMTP server on loopback,
and a forged file refused with nothing written."""

from __future__ import annotations

import email
import email.policy
import shutil
import socket
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.files import dumps
from tests.clihelpers import fails, run, snapshot
from tests.exchange_neutral.conftest import RED_T1, SkGame, reply_body, start_game

DATE = "Mon, 07 Jul 2025 10:00:00 +0000"


def folder_until(g: SkGame, root: Path, name: str, last: int) -> Path:
    """A player's folder holding the game's files of the states before ``last``."""
    p = root / name
    p.mkdir()
    for f in sorted(g.folder.iterdir()):
        if f.name[:4] < f"{last:04d}":
            shutil.copy(f, p / f.name)
    return p


@pytest.fixture
def green_sends(replied: SkGame) -> SkGame:
    """Green adjudicated blue's orders (0004) and writes its own for T1/green, to send to red."""
    replied.write("\n# no orders this player turn\n")
    return replied


def write_mail(g: SkGame, out: Path, *extra: Any) -> str:
    return run(["mail", "write", g.folder / "0004.state.toml", "--orders", g.folder / "0004-green.orders.toml",
                "--from", "Green <green@example.org>", "--to", "red@example.org", "--date", DATE, "-o", out, *extra]).output


def test_mail_write_is_deterministic_and_red_files_it(green_sends: SkGame, tmp_path: Path) -> None:
    g = green_sends
    a, b = tmp_path / "a.eml", tmp_path / "b.eml"
    out = write_mail(g, a)
    write_mail(g, b)
    assert a.read_bytes() == b.read_bytes()
    assert "[pbem sk-test] 0004: T1/blue adjudicated; awaits T1/green from green" in out
    msg = email.message_from_bytes(a.read_bytes(), policy=email.policy.default)
    assert [p.get_filename() for p in msg.iter_attachments()] == ["0004.state.toml", "0004.report.md", "0004-green.orders.toml"]
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert "T1/blue adjudicated by green." in text
    assert "Awaited next: orders for step T1/green from green; adjudicated by red." in text
    assert "- 0004-green.orders.toml: green's orders for T1/green, answering this state" in text
    red = folder_until(g, tmp_path, "red", 4)
    r = run(["mail", "read", a, "--folder", red])
    assert "new    0004.state.toml" in r.output and "new    0004.report.md" in r.output
    assert "new    0004-green.orders.toml" in r.output and "awaited by state 0004" in r.output
    for name in ("0004.state.toml", "0004.report.md", "0004-green.orders.toml"):
        assert (red / name).read_bytes() == (g.folder / name).read_bytes()
    assert "ok: 5 states, 4 transitions replayed" in run(["verify", red]).output


def test_the_attack_summary_leaves_the_computations_to_the_report(replied: SkGame, tmp_path: Path) -> None:
    out = tmp_path / "2.eml"
    run(["mail", "write", replied.folder / "0002.state.toml", "--from", "blue@example.org", "--to", "red@example.org",
         "--to", "green@example.org", "--date", DATE, "-o", out])
    msg = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    assert [p.get_filename() for p in msg.iter_attachments()] == ["0002.state.toml", "0002.report.md", "0002.turn.svg"]
    assert msg["To"] == "red@example.org, green@example.org"
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert "- Attack 1 on west-fields (red against green):" in text
    assert "Decision needed from green: choose" in text
    assert "Attack 9: R1, R2, R3, R5" not in text and "Defence 5:" not in text
    assert "Awaited next: reply for step T1/red/reply-1 from green; adjudicated by red." in text


def test_a_reply_by_mail_is_filed_by_the_side_that_adjudicates_it(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game")
    g.play(RED_T1)
    reply = g.write(reply_body(g.state().data))
    out = tmp_path / "reply.eml"
    run(["mail", "write", g.folder / "0002.state.toml", "--orders", reply, "--from", "green@example.org",
         "--to", "red@example.org", "--date", DATE, "-o", out])
    red = folder_until(g, tmp_path, "red", 2)
    shutil.copy(g.folder / "0002.state.toml", red)
    r = run(["mail", "read", out, "--folder", red])
    assert "known  0002.state.toml" in r.output and "new    0002-green.reply.toml" in r.output
    assert "reply of green for T1/red/reply-1, awaited by state 0002" in r.output
    assert (red / "0002-green.reply.toml").read_bytes() == reply.read_bytes()


def test_a_forged_state_is_refused_and_nothing_is_written(green_sends: SkGame, tmp_path: Path) -> None:
    g = green_sends
    red = folder_until(g, tmp_path, "red", 4)
    data = tomllib.loads((g.folder / "0004.state.toml").read_text(encoding="utf-8"))
    data["position"]["vp"]["green"] = 9
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / "0004.state.toml").write_text(dumps(data), encoding="utf-8")
    out = tmp_path / "forged.eml"
    shutil.copy(g.folder / "0004.report.md", forged)
    fails(tmp_path, 3, ["mail", "write", forged / "0004.state.toml", "--from", "green@example.org", "--to", "red@example.org",
                        "-o", out], "signature does not match")
    resealed = forged / "0004.state.toml"
    resealed.write_text(dumps(seal(unsealed(data), "green", g.keys["green"])), encoding="utf-8")  # sealed, but not the rules' state
    run(["mail", "write", resealed, "--from", "green@example.org", "--to", "red@example.org", "--date", DATE, "-o", out])
    before = snapshot(red)
    fails(tmp_path, 1, ["mail", "read", out, "--folder", red], "does not follow")
    assert snapshot(red) == before


# --- sending -------------------------------------------------------------------------------------


class Inbox:
    """An aiosmtpd handler that keeps each message as it arrives."""

    def __init__(self) -> None:
        self.got: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.got.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


@pytest.fixture
def smtpd() -> Iterator[tuple[Inbox, int]]:
    """An SMTP server on 127.0.0.1 for the test."""
    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    inbox = Inbox()
    c = Controller(inbox, hostname="127.0.0.1", port=port)
    c.start()
    yield inbox, port
    c.stop()


def test_mail_send_reaches_both_other_players_byte_for_byte(green_sends: SkGame, tmp_path: Path, smtpd: tuple[Inbox, int]) -> None:
    inbox, port = smtpd
    eml = tmp_path / "out.eml"
    write_mail(green_sends, eml, "--to", "blue@example.org")
    r = run(["mail", "send", eml, "--smtp", f"127.0.0.1:{port}", "--no-starttls"])
    assert f"through 127.0.0.1:{port} (not encrypted)" in r.output
    ((frm, rcpts, data),) = inbox.got
    assert frm == "green@example.org" and rcpts == ["red@example.org", "blue@example.org"]
    assert data == eml.read_bytes()
    got = tmp_path / "got.eml"
    got.write_bytes(data)
    red = folder_until(green_sends, tmp_path, "red", 4)
    assert "new    0004-green.orders.toml" in run(["mail", "read", got, "--folder", red]).output
    run(["verify", red])
