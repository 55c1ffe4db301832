"""Game files by e-mail (README: E-mail): `pbem mail read`, `pbem mail write`, `pbem mail send`.

Messages are built with the standard library from the files of a game played with the fixtures in
conftest.py: the German has adjudicated the Soviet turn (state 0003) and sends the state, its
report and his own orders for GT2; the Soviet's folder holds everything up to state 0002. Every
kind of bad mail gets its exit code, and then the folder is unchanged. SMTP tests run a real
server (aiosmtpd) on 127.0.0.1 inside the test and compare what it received byte for byte.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import email
import email.policy
import ipaddress
import json
import mailbox
import shutil
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem.cli import cli
from pbem.demo import order_text
from pbem.exchange.files import parse_toml, write_new
from pbem.exchange.game import load_doc, load_state, sign_orders
from pbem.exchange.mail import MAX_FILE_BYTES, MAX_MESSAGE_BYTES, extract, inline_blocks, split_mbox, unflow
from tests.clihelpers import fails, run, snapshot
from tests.conftest import GERMAN_GT1, SOVIET_STANDING, Game, start_game

GERMAN_GT2 = '\n[standing]\nloss_policy = "fewest-steps-first"\nloss_order = ["Inf1"]\n'
DATE = "Mon, 07 Jul 2025 10:00:00 +0000"


# --- helpers -----------------------------------------------------------------------------------




@dataclass
class Exchange:
    """The German's game (all files) and the Soviet's folder, which lacks what the mail brings."""

    game: Game
    receiver: Path
    root: Path

    def file(self, name: str) -> Path:
        return self.game.folder / name

    def text(self, name: str) -> str:
        return self.file(name).read_text(encoding="utf-8")

    @property
    def sent(self) -> list[str]:
        return ["0003.state.toml", "0003.report.md", "0003-german.orders.toml"]


@pytest.fixture
def ex(tmp_path: Path) -> Exchange:
    return exchange(tmp_path)


def exchange(tmp_path: Path) -> Exchange:
    """The German's game up to state 0003 and his GT2 orders; the Soviet's folder up to 0002."""
    g = start_game(tmp_path / "game")
    g.play(GERMAN_GT1)
    g.play(SOVIET_STANDING)  # -> 0003, adjudicated by the German
    g.write_orders(GERMAN_GT2)  # his own orders for GT2/1/german
    receiver = tmp_path / "soviet"
    receiver.mkdir()
    for p in sorted(g.folder.iterdir()):
        if p.name < "0003":
            shutil.copy(p, receiver / p.name)
    return Exchange(g, receiver, tmp_path)


def message(*attachments: tuple[str, str | bytes], body: str = "Your move.\n", subtype: str = "toml") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.org>"
    msg["To"] = "bob@example.org"
    msg["Subject"] = "[pbem pm-test] 0003"
    msg.set_content(body)
    for name, content in attachments:
        data = content.encode("utf-8") if isinstance(content, str) else content
        if subtype == "plain":
            msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
        else:
            msg.add_attachment(data, maintype="application", subtype=subtype, filename=name)
    return msg


def save(root: Path, name: str, data: EmailMessage | bytes) -> Path:
    p = root / name
    p.write_bytes(data if isinstance(data, bytes) else data.as_bytes())
    return p


def read(ex: Exchange, path: Path, code: int = 0, *needles: str) -> Result:
    if code:
        return fails(ex.root, code, ["mail", "read", path, "--folder", ex.receiver], *needles)
    r = run(["mail", "read", path, "--folder", ex.receiver])
    for n in needles:
        assert n in r.output, f"{n!r} not in:\n{r.output}"
    return r


def assert_received(ex: Exchange, names: list[str], identical: bool = True) -> None:
    """The Soviet's folder now has these files, as the German has them; and it verifies."""
    for n in names:
        got = ex.receiver / n
        assert got.exists(), f"{n} was not filed"
        if identical:
            assert got.read_bytes() == ex.file(n).read_bytes(), n
        else:
            assert load_doc(got).digest == load_doc(ex.file(n)).digest, n
    run(["verify", ex.receiver])


def attachments_of(ex: Exchange) -> list[tuple[str, str]]:
    return [(n, ex.text(n)) for n in ex.sent]


# --- reading attachments -----------------------------------------------------------------------


def test_attachments_are_checked_and_filed_byte_for_byte(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(*attachments_of(ex)))
    r = read(ex, p, 0, "new    0003.state.toml", "replayed from the previous state", "new    0003-german.orders.toml",
             "awaited by state 0003", "new    0003.report.md", "wrote ")
    assert "exit" not in r.output
    assert_received(ex, ex.sent)
    # the same mail again: everything is already known, nothing is written
    before = snapshot(ex.receiver)
    r = read(ex, p, 0, "known  0003.state.toml", "known  0003-german.orders.toml", "known  0003.report.md", "nothing new")
    assert snapshot(ex.receiver) == before


def test_text_plain_attachments_and_a_json_listing(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(*attachments_of(ex), subtype="plain"))
    r = run(["mail", "read", p, "--folder", ex.receiver, "--json"])
    out = json.loads(r.output)
    assert out["ok"] is True and out["exit"] == 0 and out["messages"] == 1
    by_name = {f["name"]: f for f in out["files"]}
    assert set(by_name) == set(ex.sent)
    st = by_name["0003.state.toml"]
    assert (st["kind"], st["game"], st["sequence"], st["status"]) == ("state", "pm-test", 3, "new")
    o = by_name["0003-german.orders.toml"]
    assert (o["kind"], o["side"], o["step"], o["sequence"]) == ("orders", "german", "GT2/1/german", 3)
    assert o["answers"] == load_doc(ex.file("0003.state.toml")).digest
    assert sorted(out["written"]) == sorted(str(ex.receiver / n) for n in ex.sent)
    assert_received(ex, ex.sent)


def test_without_a_folder_it_lists_and_checks_but_writes_nothing(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(*attachments_of(ex)))
    before = snapshot(ex.root)
    r = run(["mail", "read", p])
    assert "found  0003.state.toml" in r.output and "found  0003-german.orders.toml" in r.output
    assert "awaited by state 0003" in r.output  # checked against the state in the same mail
    assert "nothing written" in r.output
    assert snapshot(ex.root) == before


# --- reading pasted files ----------------------------------------------------------------------


def test_pasted_inline_files_are_found(ex: Exchange) -> None:
    body = ("Hi Bob,\n\nhere is the state and my orders for GT2.\n\n" + ex.text("0003.state.toml")
            + "\nand\n\n" + ex.text("0003-german.orders.toml") + "\n-- \nAlice\n")
    p = save(ex.root, "in.eml", message(body=body))
    read(ex, p, 0, "the body, pasted at line 5", "new    0003.state.toml", "new    0003-german.orders.toml")
    assert_received(ex, ["0003.state.toml", "0003-german.orders.toml"])


def test_pasted_inside_a_quoted_reply_with_crlf_line_endings(ex: Exchange) -> None:
    def quote(text: str, prefix: str) -> list[str]:
        return [(prefix + line) if line else prefix.rstrip() for line in text.splitlines()]

    lines = ["From: Bob <bob@example.org>", "To: alice@example.org", "Subject: Re: [pbem pm-test] 0003",
             "MIME-Version: 1.0", 'Content-Type: text/plain; charset="utf-8"', "", "Got it, thanks.", "",
             "On Mon, 7 Jul 2025, Alice wrote:", "> Here is the state:", ">",
             *quote(ex.text("0003.state.toml"), "> "), ">", "> > and my orders, quoted from my last mail:", "> >",
             *quote(ex.text("0003-german.orders.toml"), ">> "), "> >", "> Alice", "", "Bob"]
    raw = ("\r\n".join(lines) + "\r\n").encode("utf-8")
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    p = save(ex.root, "reply.eml", raw)
    read(ex, p, 0, "pasted at line", "new    0003.state.toml", "new    0003-german.orders.toml")
    assert_received(ex, ["0003.state.toml", "0003-german.orders.toml"])


def test_format_flowed_soft_line_breaks_are_undone(ex: Exchange) -> None:
    def flow(text: str) -> str:  # what a mail program sends: long lines broken after a space
        out = []
        for line in text.splitlines():
            while len(line) > 40 and " " in line[1:40]:
                cut = line.rindex(" ", 1, 40) + 1
                out.append(line[:cut])
                line = line[cut:]
            out.append(line)
        return "\n".join(out) + "\n"

    flowed = flow(ex.text("0003-german.orders.toml"))
    assert flowed != ex.text("0003-german.orders.toml")
    msg = message(*[(n, ex.text(n)) for n in ("0003.state.toml",)], body="My orders:\n\n" + flowed)
    body = next(iter(msg.iter_parts()))
    body.set_param("format", "flowed")
    p = save(ex.root, "in.eml", msg)
    read(ex, p, 0, "new    0003-german.orders.toml")
    assert_received(ex, ["0003.state.toml", "0003-german.orders.toml"])


def test_an_mbox_with_several_messages(ex: Exchange) -> None:
    box = mailbox.mbox(ex.root / "game.mbox")
    box.add(message(("0003.state.toml", ex.text("0003.state.toml")), ("0003.report.md", ex.text("0003.report.md")),
                    body="From here on, state 0003.\n"))
    box.add(message(body="Just chatting.\nFrom Minsk with love.\n"))
    box.add(message(body="My orders:\n\n" + ex.text("0003-german.orders.toml")))
    box.flush()
    box.close()
    raw = (ex.root / "game.mbox").read_bytes()
    assert len(split_mbox(raw)) == 3 and b">From Minsk" in raw
    r = read(ex, ex.root / "game.mbox", 0, "3 messages", "message 1: attachment '0003.state.toml'",
             "message 3: the body, pasted at line 3")
    assert "message 2" not in r.output
    assert_received(ex, ex.sent)


def damaged(ex: Exchange) -> bytes:
    """An unrelated message whose base64 attachment was damaged on the way."""
    photo = b"\xff\xd8" + b"\x00pixels" * 40
    raw = message(("holiday.jpg", photo), body="Photos from the lake.\n").as_bytes()
    encoded = base64.b64encode(photo)[:76]
    assert encoded in raw
    return raw.replace(encoded, encoded[:-3] + b"!!=", 1)


def test_a_damaged_unrelated_message_in_an_mbox_does_not_stop_the_others(ex: Exchange) -> None:
    box = mailbox.mbox(ex.root / "game.mbox")
    box.add(message(*attachments_of(ex)))
    box.add(damaged(ex))
    box.add(message(body="See you next week.\n"))
    box.flush()
    box.close()
    r = read(ex, ex.root / "game.mbox", 0, "3 messages", "skipped (damaged, not read): message 2: attachment 'holiday.jpg': malformed message",
             "new    0003.state.toml", "wrote ")
    assert_received(ex, ex.sent)
    r = run(["mail", "read", ex.root / "game.mbox", "--folder", ex.receiver, "--json"])
    out = json.loads(r.output)
    assert out["ok"] and out["exit"] == 0 and len(out["skipped"]) == 1 and "message 2" in out["skipped"][0]["message"]
    # alone, the damaged message is an error as before
    read(ex, save(ex.root, "bad.eml", damaged(ex)), 2, "bad.eml: attachment 'holiday.jpg': malformed message")


def test_a_maildir_is_read_through_the_mailbox_module(ex: Exchange) -> None:
    md = mailbox.Maildir(ex.root / "Maildir", create=True)
    md.add(message(body="Hello, are you in for a game?\n"))  # unrelated
    md.add(damaged(ex))  # unrelated and damaged: reported, the others are read
    md.add(message(*attachments_of(ex)))
    md.close()
    r = read(ex, ex.root / "Maildir", 0, "3 messages", "skipped (damaged, not read)", "new    0003.state.toml",
             "new    0003-german.orders.toml")
    assert "malformed message" in r.output
    assert_received(ex, ex.sent)
    # read again: all known already
    read(ex, ex.root / "Maildir", 0, "known  0003.state.toml", "nothing new")
    # a folder that is not a Maildir; a FIFO in place of a message: refused, nothing written
    (ex.root / "plain").mkdir()
    read(ex, ex.root / "plain", 2, "not a Maildir")
    md2 = mailbox.Maildir(ex.root / "Fifo", create=True)
    md2.close()
    import os

    os.mkfifo(ex.root / "Fifo" / "new" / "1700000000.M1P1.host")
    fails(ex.root, 2, ["mail", "read", ex.root / "Fifo", "--folder", ex.receiver], "not a regular file")


def test_a_message_from_standard_input(ex: Exchange) -> None:
    raw = message(*attachments_of(ex)).as_bytes()
    r = CliRunner().invoke(cli, ["mail", "read", "-", "--folder", str(ex.receiver)], input=raw)
    assert r.exit_code == 0, r.output
    assert "standard input: 1 message, 3 files found" in r.output and "new    0003.state.toml" in r.output
    assert_received(ex, ex.sent)
    r = CliRunner().invoke(cli, ["mail", "read", "-"], input=b"not a message at all")
    assert r.exit_code == 2 and "standard input: not an e-mail message" in r.output and "Traceback" not in r.output


def test_ok_if_none_makes_a_message_without_game_files_no_error(ex: Exchange) -> None:
    p = save(ex.root, "chat.eml", message(body="See you next week.\n"))
    read(ex, p, 2, "no pbem game file found", "--ok-if-none")
    r = run(["mail", "read", p, "--folder", ex.receiver, "--ok-if-none"])
    assert "0 files found" in r.output and "nothing to do" in r.output
    r = run(["mail", "read", p, "--ok-if-none", "--json"])
    assert json.loads(r.output)["files"] == [] and json.loads(r.output)["exit"] == 0
    # it is no licence for bad files: a forged one still fails
    forged = ex.text("0003-german.orders.toml").replace('loss_policy = "fewest-steps-first"', 'loss_policy = "strongest-first"')
    fails(ex.root, 3, ["mail", "read", save(ex.root, "f.eml", message(("o.toml", forged))), "--folder", ex.receiver,
                       "--ok-if-none"], "seal")


def test_the_same_file_twice_is_listed_once_with_both_places(ex: Exchange) -> None:
    orders = ex.text("0003-german.orders.toml")
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("orders.toml", orders),
                                        body="Pasted as well:\n\n" + orders))
    r = read(ex, p, 0, "attachment 'orders.toml'", "part 1 (text/plain), pasted at line 3")
    assert r.output.count("0003-german.orders.toml ") == 1


def test_an_attachment_name_is_never_a_path(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")),
                                        ("../../etc/passwd", ex.text("0003-german.orders.toml"))))
    before = {k: v for k, v in snapshot(ex.root).items() if not k.startswith("soviet/")}
    read(ex, p, 0, "attachment '../../etc/passwd'", "new    0003-german.orders.toml")
    after = {k: v for k, v in snapshot(ex.root).items() if not k.startswith("soviet/")}
    assert after == before  # nothing written outside the folder
    assert sorted(set(snapshot(ex.receiver)) - {p.name for p in ex.game.folder.iterdir() if p.name < "0003"}) == [
        "0003-german.orders.toml", "0003.state.toml"]
    assert not (ex.root / "etc").exists()


def test_names_and_headers_from_the_mail_are_printed_safely(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(("0003\x1b[31m.toml", ex.text("0003.state.toml"))))
    r = read(ex, p, 0, "attachment '0003?[31m.toml'")
    assert "\x1b" not in r.output


def test_a_new_game_by_mail_into_an_empty_folder(ex: Exchange) -> None:
    empty = ex.root / "new"
    empty.mkdir()
    p = save(ex.root, "in.eml", message(("a", ex.text("0000.state.toml")), ("b", ex.text("0000-german.join.toml"))))
    r = run(["mail", "read", p, "--folder", empty])
    assert "new    0000.state.toml" in r.output and "sealed by its creator german" in r.output
    assert "new    0000-german.join.toml" in r.output
    assert sorted(x.name for x in empty.iterdir()) == ["0000-german.join.toml", "0000.state.toml"]
    run(["verify", empty])


def test_a_refereed_game_views_and_orders_by_mail(tmp_path: Path) -> None:
    from tests.exchange.test_referee import Refereed

    g = Refereed(tmp_path / "ref")
    g.adjudicate([g.orders("german", GERMAN_GT1)])  # -> 0002 and a view per side
    player = tmp_path / "soviet"
    player.mkdir()
    shutil.copy(g.folder / "0001-soviet.view.toml", player)
    # the referee mails the Soviet his view and his side's report (not the full report: it shows what
    # he may not see, nor the picture)
    out = tmp_path / "view.eml"
    run(["mail", "write", g.folder / "0002-soviet.view.toml", "--from", "ref@example.org", "--to", "bob@example.org",
         "--date", DATE, "-o", out])
    msg = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    assert [a.get_filename() for a in msg.iter_attachments()] == ["0002-soviet.view.toml", "0002-soviet.report.md"]
    r = run(["mail", "read", out, "--folder", player])
    assert "new    0002-soviet.view.toml" in r.output and "new    0002-soviet.report.md" in r.output
    assert (player / "0002-soviet.view.toml").read_bytes() == (g.folder / "0002-soviet.view.toml").read_bytes()
    # the Soviet answers with orders for the state his view shows; the referee files them
    orders = g.orders("soviet", SOVIET_STANDING)
    shutil.copy(orders, player)
    reply = tmp_path / "orders.eml"
    run(["mail", "write", player / "0002-soviet.view.toml", "--orders", player / orders.name, "--from", "bob@example.org",
         "--to", "ref@example.org", "--date", DATE, "-o", reply])
    refs = tmp_path / "referee"
    shutil.copytree(g.folder, refs)
    (refs / orders.name).unlink()
    r = run(["mail", "read", reply, "--folder", refs])
    assert "known  0002-soviet.view.toml" in r.output and "new    0002-soviet.orders.toml" in r.output
    assert "awaited by state 0002" in r.output


# --- bad mail: each with its exit code; nothing written ----------------------------------------


def test_malformed_bytes_and_not_a_message(ex: Exchange) -> None:
    read(ex, save(ex.root, "nul.eml", b"\x00\xff\xfe\x00garbage"), 2, "NUL bytes")
    read(ex, save(ex.root, "text.eml", b"just some text\nnot a message at all\n"), 2, "not an e-mail message")
    read(ex, save(ex.root, "empty.eml", b""), 2, "empty")
    fails(ex.root, 2, ["mail", "read", ex.root / "missing.eml", "--folder", ex.receiver], "cannot read")


def test_a_message_without_game_files(ex: Exchange) -> None:
    read(ex, save(ex.root, "in.eml", message(body="See you next week.\n")), 2, "no pbem game file found")
    html = EmailMessage()
    html["From"] = "a@example.org"
    html.set_content("<p>[pbem]</p>", subtype="html")
    # an HTML-only message is read, but what it yields is taken only if its seal verifies
    read(ex, save(ex.root, "html.eml", html), 2, "read from its HTML", "seal does not verify", "attach the file")


def test_a_truncated_message(ex: Exchange) -> None:
    raw = message(*attachments_of(ex)).as_bytes()
    cut = raw[: raw.rindex(b"--===")]  # the closing boundary is lost
    read(ex, save(ex.root, "cut.eml", cut), 2, "malformed message", "truncated")
    cut = raw[: len(raw) // 2]  # in the middle of an attachment
    read(ex, save(ex.root, "half.eml", cut), 2, "malformed message")


def test_oversize_message_and_oversize_file(ex: Exchange) -> None:
    big = message(("0003.state.toml", ex.text("0003.state.toml")), ("film.bin", b"\x01" * (MAX_MESSAGE_BYTES + 1)))
    read(ex, save(ex.root, "big.eml", big), 2, "larger than the 10485760 bytes a message may have")
    padded = ex.text("0003-german.orders.toml") + "# " + "x" * MAX_FILE_BYTES + "\n"
    p = save(ex.root, "fat.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("o.toml", padded)))
    read(ex, p, 2, "larger than the 1048576 bytes a game file may have")


def test_too_many_files(ex: Exchange) -> None:
    many = [(f"o{i}.toml", ex.text("0003-german.orders.toml") + f"# copy {i}\n") for i in range(51)]
    read(ex, save(ex.root, "many.eml", message(*many)), 2, "more than 50 game files")


def test_a_forged_order_file(ex: Exchange) -> None:
    forged = ex.text("0003-german.orders.toml").replace('loss_order = ["Inf1"]', 'loss_order = ["Pz1"]')
    assert forged != ex.text("0003-german.orders.toml")
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("0003-german.orders.toml", forged)))
    r = read(ex, p, 3, "the signature does not match the content", "Nothing was written")
    assert "held   0003.state.toml" in r.output and "not filed" in r.output  # the good file is listed, not filed


def test_a_forged_state(ex: Exchange) -> None:
    forged = ex.text("0003.state.toml").replace("vp = 1", "vp = 7")
    assert forged != ex.text("0003.state.toml")
    read(ex, save(ex.root, "in.eml", message(("0003.state.toml", forged))), 3, "signature does not match")


def test_a_state_that_does_not_follow_from_its_inputs(ex: Exchange) -> None:
    from pbem.exchange.canonical import seal, unsealed
    from pbem.exchange.files import dumps

    st = load_state(ex.file("0003.state.toml")).data
    st["position"]["vp"] = 7  # the adjudicator lies, and seals the lie with his own key
    lie = dumps(seal(unsealed(st), "german", ex.game.keys["german"]))
    read(ex, save(ex.root, "in.eml", message(("0003.state.toml", lie))), 1, "does not follow from state 0002")


def test_a_truncated_file(ex: Exchange) -> None:
    text = ex.text("0003-german.orders.toml")
    cut = text[: text.index("signature = ") + 30]  # in the middle of the seal
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("0003-german.orders.toml", cut)))
    read(ex, p, 2, "not valid TOML", "cut off")
    p = save(ex.root, "pasted.eml", message(body="Orders:\n\n" + cut + "\n"))
    read(ex, p, 2, "pasted at line 3", "not valid TOML", f"(at line {cut.count(chr(10)) + 3} of the text)")


def test_orders_for_another_game(ex: Exchange) -> None:
    other = start_game(ex.root / "other", game_id="pm-other")
    orders = other.write_orders(GERMAN_GT1)
    p = save(ex.root, "in.eml", message(("0001-german.orders.toml", orders.read_text(encoding="utf-8"))))
    read(ex, p, 3, "belongs to game 'pm-other'", "holds game 'pm-test'")
    st = (other.folder / "0001.state.toml").read_text(encoding="utf-8")
    read(ex, save(ex.root, "st.eml", message(("0001.state.toml", st))), 3, "belongs to game 'pm-other'")


def test_orders_for_another_step_or_side(ex: Exchange) -> None:
    # the Soviet's orders for state 0003, which awaits the German's
    wrong = ex.game.write_orders(SOVIET_STANDING, side="soviet", name="wrong.toml")
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("x.toml", wrong.read_text(encoding="utf-8"))))
    read(ex, p, 1, "not the awaited submission", "'soviet' is not awaited")


def test_a_replayed_old_order_file(ex: Exchange) -> None:
    # German orders for state 0001 that were never adjudicated (0002 came from other ones)
    st1 = load_state(ex.file("0001.state.toml"))
    text = order_text(st1.data, "german", '\n[standing]\nloss_policy = "most-steps-first"\n')
    tmp = ex.root / "old.toml"
    write_new(tmp, text)
    sealed = sign_orders(tmp, text, load_doc(tmp, "orders").data, ex.game.keys["german"], st1)
    p = save(ex.root, "in.eml", message(("0001-german.orders.toml", sealed)))
    # the folder holds the German's orders that were adjudicated: he signed two versions for state 0001
    read(ex, p, 3, "equivocation: 'german' signed two different files for one step", "orders for step GT1/1/german")
    (ex.receiver / "0001-german.orders.toml").unlink()  # without them, the other version is merely out of date
    read(ex, p, 3, "answers state 0001, which was already adjudicated without it", "replayed or out of date")
    # the same file with its answers changed: its seal is checked first
    changed = sealed.replace(st1.digest, "sha256:" + "ab" * 32)
    read(ex, save(ex.root, "changed.eml", message(("o.toml", changed))), 3, "the signature does not match the content")
    # orders sealed for a state that is not in the folder at all
    fake_text = text.replace(st1.digest, "sha256:" + "ab" * 32)
    fake = sign_orders(tmp, fake_text, parse_toml(fake_text.encode(), "fake"), ex.game.keys["german"], st1)
    read(ex, save(ex.root, "fake.eml", message(("o.toml", fake))), 3, "which is neither in")


def test_an_old_file_identical_to_the_folders_is_already_known(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(("0001-german.orders.toml", ex.text("0001-german.orders.toml"))))
    before = snapshot(ex.receiver)
    read(ex, p, 0, "known  0001-german.orders.toml", "nothing new")
    assert snapshot(ex.receiver) == before


def test_a_state_fork(ex: Exchange, tmp_path: Path) -> None:
    alt = start_game(tmp_path / "alt")  # the same game, keys and joins: the German attacks differently
    alt.play('\n[standing]\nloss_policy = "ask"\n')
    fork = (alt.folder / "0002.state.toml").read_text(encoding="utf-8")
    assert fork != ex.text("0002.state.toml")
    # the Soviet adjudicated both: he signed two states for one step
    read(ex, save(ex.root, "in.eml", message(("0002.state.toml", fork))), 3,
         "equivocation: 'soviet' signed two different files for one step, state 0002", "[equivocation]")


def test_a_second_version_of_orders_already_in_the_folder_is_an_equivocation(ex: Exchange) -> None:
    """The German sealed two versions of his orders for state 0003: the second one is refused, with
    both files as the proof (docs/dice.md: Equivocation)."""
    shutil.copy(ex.file("0003.state.toml"), ex.receiver)
    shutil.copy(ex.file("0003-german.orders.toml"), ex.receiver)
    other = ex.game.write_orders('\n[standing]\nloss_policy = "most-steps-first"\n', name="other.toml")
    p = save(ex.root, "in.eml", message(("0003-german.orders.toml", other.read_text(encoding="utf-8"))))
    read(ex, p, 3, "equivocation: 'german' signed two different files for one step", "orders for step GT2/1/german",
         f"{ex.receiver / '0003-german.orders.toml'}: sealed by german", "[equivocation]")


def test_a_state_beyond_a_gap(ex: Exchange) -> None:
    for n in ("0002.state.toml", "0002.report.md", "0002.turn.svg", "0002-soviet.orders.toml"):
        (ex.receiver / n).unlink()
    read(ex, save(ex.root, "in.eml", message(("s", ex.text("0003.state.toml")))), 1, "the latest state here is 0001",
         "state 0002 missing")


def test_a_game_file_that_is_not_utf8(ex: Exchange) -> None:
    latin = (ex.text("0003-german.orders.toml") + "# caf\u00e9\n").encode("latin-1")
    read(ex, save(ex.root, "in.eml", message(("o.toml", latin))), 2, "not UTF-8 text")


def test_a_changed_report(ex: Exchange) -> None:
    report = ex.text("0003.report.md").replace("play continues", "the German wins")
    assert report != ex.text("0003.report.md")
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("0003.report.md", report)))
    read(ex, p, 1, "the report does not match the transition of state 0003")


def test_several_problems_are_all_listed_with_the_most_serious_exit_code(ex: Exchange) -> None:
    wrong = ex.game.write_orders(SOVIET_STANDING, side="soviet", name="wrong.toml")  # exit 1
    forged = ex.text("0003-german.orders.toml").replace('"Inf1"', '"Pz1"')  # exit 3
    p = save(ex.root, "in.eml", message(("0003.state.toml", ex.text("0003.state.toml")), ("a.toml", wrong.read_text(encoding="utf-8")),
                                        ("b.toml", forged)))
    r = read(ex, p, 3, "2 of the 3 files found are not accepted", "exit 1:", "exit 3:")
    r = fails(ex.root, 3, ["mail", "read", p, "--folder", ex.receiver, "--json"])
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["exit"] == 3 and out["written"] == []
    assert sorted(f["error"]["exit"] for f in out["files"] if f["error"]) == [1, 3]


def test_a_folder_that_does_not_exist(ex: Exchange) -> None:
    p = save(ex.root, "in.eml", message(*attachments_of(ex)))
    fails(ex.root, 2, ["mail", "read", p, "--folder", ex.root / "nope"], "no such game folder")


# --- the library's pieces ----------------------------------------------------------------------


def test_inline_blocks_stop_at_prose_and_split_at_the_next_file() -> None:
    text = ("Hello\n[pbem]\nkind = \"orders\"\nunits = [\n    \"a\",\n    \"b\",\n]\ns = \"\"\"\nnot = [prose\n\"\"\"\n\n"
            "[[move]]\npath = [\"x\"]  # comment\n[pbem]\nkind = \"state\"\nThanks, see you\n= [pbem]\n")
    blocks = inline_blocks(text)
    assert [b[0] for b in blocks] == [2, 14]
    assert blocks[0][1].endswith('path = ["x"]  # comment\n') and "Thanks" not in blocks[1][1]
    assert blocks[1][1] == '[pbem]\nkind = "state"\n'
    quoted = "> [pbem]\n> a = 1\n>\n>> [pbem]\n>> b = 2\n> c = 3\n"
    assert inline_blocks(quoted) == [(1, "[pbem]\na = 1\n"), (4, "[pbem]\nb = 2\n")]


def test_unflow() -> None:
    assert unflow("a \nb\n> c \n> d\n-- \nsig", delsp=False) == "a b\n> c d\n-- \nsig"
    assert unflow("ab \ncd", delsp=True) == "abcd"


def test_extract_never_trusts_the_content_type(ex: Exchange) -> None:
    raw = message(("picture.png", ex.text("0003.state.toml")), subtype="octet-stream").as_bytes()
    found = extract(raw, "m.eml")
    assert [f.sources for f in found.files] == [["m.eml: attachment 'picture.png'"]]


# --- writing the outgoing message --------------------------------------------------------------


def write(ex: Exchange, out: Path, *extra: Any, orders: bool = True) -> Result:
    args: list[Any] = ["mail", "write", ex.file("0003.state.toml"), "--from", "Alice <alice@example.org>", "--to", "bob@example.org",
                       "-o", out, *extra]
    if orders:
        args += ["--orders", ex.file("0003-german.orders.toml")]
    return run(args)


def test_mail_write_is_deterministic_and_reads_back_into_the_same_files(ex: Exchange) -> None:
    a, b = ex.root / "a.eml", ex.root / "b.eml"
    r = write(ex, a, "--date", DATE)
    write(ex, b, "--date", DATE)
    assert a.read_bytes() == b.read_bytes()
    assert "[pbem pm-test] 0003: GT1/1/soviet adjudicated; awaits GT2/1/german from german" in r.output
    raw = a.read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"") and max(raw) < 128
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Date"] == DATE and msg["Subject"].startswith("[pbem pm-test] 0003: ")
    assert msg["Message-ID"].startswith("<pbem.0003.") and msg["Message-ID"].endswith("@example.org>")
    parts = [(p.get_filename(), p.get_content_type()) for p in msg.iter_attachments()]
    assert parts == [("0003.state.toml", "application/toml"), ("0003.report.md", "text/markdown"),
                     ("0003-german.orders.toml", "application/toml")]
    for p in msg.iter_attachments():
        assert p.get_payload(decode=True) == ex.file(str(p.get_filename())).read_bytes()
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert "GT1/1/soviet adjudicated by german." in text
    assert "Victory check GT1: German VP 1, 4 needed (4.5, 17.2): play continues." in text
    assert "Awaited next: orders for step GT2/1/german from german; adjudicated by soviet." in text
    assert "- 0003-german.orders.toml: german's orders for GT2/1/german" in text
    assert "`" not in text and "**" not in text
    # another date, another message; but the same Message-ID: it carries the same state from the same sender
    c = ex.root / "c.eml"
    write(ex, c, "--date", "Tue, 08 Jul 2025 10:00:00 +0000")
    assert c.read_bytes() != a.read_bytes()
    assert email.message_from_bytes(c.read_bytes(), policy=email.policy.default)["Message-ID"] == msg["Message-ID"]
    # read back: the same files, byte for byte
    read(ex, a, 0, "new    0003.state.toml", "new    0003.report.md", "new    0003-german.orders.toml")
    assert_received(ex, ex.sent)


def parsed(path: Path) -> EmailMessage:
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def test_mail_write_threads_the_turns_of_a_game(ex: Exchange) -> None:
    # Bob (soviet) adjudicated state 0002 and mailed it to Alice; Alice adjudicated 0003 and mails it to Bob
    two, three = ex.root / "2.eml", ex.root / "3.eml"
    run(["mail", "write", ex.file("0002.state.toml"), "--from", "Bob <bob@example.org>", "--to", "alice@example.org",
         "--date", DATE, "-o", two])
    write(ex, three, "--date", DATE)
    m2, m3 = parsed(two), parsed(three)
    from pbem.exchange.mail import message_id

    digest2 = load_doc(ex.file("0002.state.toml")).digest
    assert m2["Message-ID"] == message_id("pm-test", 2, digest2, "bob@example.org")
    assert m2["Message-ID"].startswith("<pbem.0002.") and m2["Message-ID"].endswith("@example.org>")
    # the reply names the message of the previous state: the one recipient sent it
    assert m3["In-Reply-To"] == m2["Message-ID"] and m3["References"] == m2["Message-ID"]
    assert m3["Message-ID"] != m2["Message-ID"]
    # the previous message is derived from the address only: its display name and case do not matter
    assert message_id("pm-test", 2, digest2, "BOB@Example.ORG") == m2["Message-ID"]
    # another sender of the same state: another Message-ID
    assert message_id("pm-test", 2, digest2, "carol@example.org") != m2["Message-ID"]
    # which of two recipients sent the previous state is not known: no In-Reply-To rather than a guess
    four = ex.root / "4.eml"
    write(ex, four, "--date", DATE, "--to", "carol@example.org")
    assert parsed(four)["In-Reply-To"] is None and parsed(four)["References"] is None
    # without the previous state beside it, nothing to name either
    alone = ex.root / "alone"
    alone.mkdir()
    shutil.copy(ex.file("0003.state.toml"), alone / "0003.state.toml")
    five = ex.root / "5.eml"
    run(["mail", "write", alone / "0003.state.toml", "--from", "alice@example.org", "--to", "bob@example.org",
         "--date", DATE, "-o", five])
    assert parsed(five)["In-Reply-To"] is None and parsed(five)["Message-ID"] == m3["Message-ID"]
    # state 0000 starts the thread
    zero = ex.root / "0.eml"
    run(["mail", "write", ex.file("0000.state.toml"), "--from", "alice@example.org", "--to", "bob@example.org",
         "--date", DATE, "-o", zero])
    assert parsed(zero)["In-Reply-To"] is None


def test_mail_write_to_standard_output(ex: Exchange) -> None:
    a = ex.root / "a.eml"
    write(ex, a, "--date", DATE)
    r = CliRunner().invoke(cli, ["mail", "write", str(ex.file("0003.state.toml")), "--from", "Alice <alice@example.org>",
                                 "--to", "bob@example.org", "--orders", str(ex.file("0003-german.orders.toml")),
                                 "--date", DATE, "-o", "-"])
    assert r.exit_code == 0, r.output
    assert r.stdout_bytes == a.read_bytes()  # byte for byte the .eml file; the messages go to standard error
    assert "wrote the message to standard output" in r.stderr and not (ex.root / "-").exists()


def test_mail_write_attaches_the_picture_and_summarises_the_attacks(ex: Exchange) -> None:
    out = ex.root / "2.eml"
    run(["mail", "write", ex.file("0002.state.toml"), "--from", "bob@example.org", "--to", "alice@example.org",
         "--to", "Referee <ref@example.org>", "--date", DATE, "-o", out])
    msg = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    assert [p.get_filename() for p in msg.iter_attachments()] == ["0002.state.toml", "0002.report.md", "0002.turn.svg"]
    assert [p.get_content_type() for p in msg.iter_attachments()][2] == "image/svg+xml"
    assert msg["To"] == "alice@example.org, Referee <ref@example.org>"
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert "- Attack 1 on 4916N (Vereya), large town:" in text
    assert "  - Final odds 3:1" in text and "Attackers:" not in text
    assert "- Control: Vereya (4916N) passes from soviet to german" in text


def test_mail_write_default_date_and_state_zero(ex: Exchange) -> None:
    out = ex.root / "0.eml"
    r = run(["mail", "write", ex.file("0000.state.toml"), "--from", "alice@example.org", "--to", "bob@example.org", "-o", out])
    assert "[pbem pm-test] 0000: new game; awaits join from german, soviet" in r.output
    msg = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    when = email.utils.parsedate_to_datetime(str(msg["Date"]))
    assert abs((dt.datetime.now(dt.UTC) - when).total_seconds()) < 600
    assert [p.get_filename() for p in msg.iter_attachments()] == ["0000.state.toml"]


def test_mail_write_bad_input(ex: Exchange) -> None:
    out = ex.root / "x.eml"
    base = ["mail", "write", ex.file("0003.state.toml"), "--from", "alice@example.org", "--to", "bob@example.org", "-o", out]
    fails(ex.root, 2, [*base, "--date", "yesterday"], "not an RFC 2822 date")
    fails(ex.root, 2, [*base[:4], "alice", *base[5:]], "--from alice: not an e-mail address")
    fails(ex.root, 3, [*base, "--orders", ex.file("0002-soviet.orders.toml")], "answers state")
    fails(ex.root, 2, [*base, "--orders", ex.root / "nope.toml"], "cannot read")
    out.write_bytes(b"mine")
    fails(ex.root, 2, base, "already exists")


# --- sending -----------------------------------------------------------------------------------


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound (so no other test can take it) but not listening."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def bound_controller(handler: Any, **kwargs: Any) -> Any:
    """An aiosmtpd server on a port the system chose: its socket is bound to port 0 and listening
    before the server starts, and the port is read back from it, so no other process (or pytest-xdist
    worker) can take the port between choosing it and using it."""
    from aiosmtpd.controller import Controller

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()

    class Bound(Controller):  # type: ignore[misc]
        def _create_server(self) -> Any:
            return self.loop.create_server(self._factory_invoker, sock=sock, ssl=self.ssl_context)

    return Bound(handler, hostname="127.0.0.1", port=int(sock.getsockname()[1]), **kwargs)


class Inbox:
    """An aiosmtpd handler that keeps what it receives, as received."""

    def __init__(self) -> None:
        self.got: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.got.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


@pytest.fixture
def smtpd() -> Iterator[Any]:
    started: list[Any] = []

    def start(**kwargs: Any) -> tuple[Inbox, int]:
        inbox = Inbox()
        c = bound_controller(inbox, **kwargs)
        c.start()
        started.append(c)
        return inbox, int(c.port)

    yield start
    for c in started:
        c.stop()


def test_send_over_smtp_arrives_byte_for_byte(ex: Exchange, smtpd: Any) -> None:
    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    # a line starting with a dot must survive SMTP's dot-stuffing
    assert b"\r\n." not in eml.read_bytes()
    dotted = ex.root / "dotted.eml"
    dotted.write_bytes(eml.read_bytes().replace(b"\r\nAttached:", b"\r\n.\r\n..two\r\nAttached:", 1))
    assert b"\r\n.\r\n..two\r\n" in dotted.read_bytes()
    inbox, port = smtpd()
    for f in (eml, dotted):
        r = run(["mail", "send", f, "--smtp", f"127.0.0.1:{port}", "--no-starttls"])
        assert f"to bob@example.org through 127.0.0.1:{port} (not encrypted)" in r.output
    assert len(inbox.got) == 2
    for (frm, rcpts, data), f in zip(inbox.got, (eml, dotted), strict=True):
        assert (frm, rcpts) == ("alice@example.org", ["bob@example.org"])
        # aiosmtpd's raw content is what the client sent after SMTP's own framing is undone (dot
        # stuffing, the final "."); a plain handler adds no header. So nothing needs normalising.
        assert data == f.read_bytes()
    # and what arrived reads back into the same files
    got = save(ex.root, "got.eml", inbox.got[0][2])
    read(ex, got, 0, "new    0003.state.toml")
    assert_received(ex, ex.sent)


def test_send_an_lf_only_file_goes_out_with_crlf(ex: Exchange, smtpd: Any) -> None:
    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    lf_only = ex.root / "lf.eml"
    lf_only.write_bytes(eml.read_bytes().replace(b"\r\n", b"\n"))
    inbox, port = smtpd()
    run(["mail", "send", lf_only, "--smtp", f"127.0.0.1:{port}", "--no-starttls"])
    # the only change on the way: LF line endings become CRLF, as SMTP requires
    assert inbox.got[0][2] == eml.read_bytes()


def self_signed(root: Path) -> tuple[ssl.SSLContext, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = root / "server.pem", root / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_path, key_path)
    return ctx, cert_path


def test_send_with_starttls_and_login(ex: Exchange, smtpd: Any, tmp_path: Path) -> None:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    logins: list[tuple[bytes, bytes]] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        assert isinstance(data, LoginPassword)
        logins.append((data.login, data.password))
        return AuthResult(success=data.login == b"alice" and data.password == b"s3cret", handled=False)

    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    ctx, cert = self_signed(tmp_path)
    inbox, port = smtpd(tls_context=ctx, require_starttls=True, authenticator=authenticator, auth_require_tls=True)
    server = f"127.0.0.1:{port}"
    env = {"PBEM_SMTP_PASSWORD": "s3cret"}
    r = run(["mail", "send", eml, "--smtp", server, "--user", "alice", "--cafile", cert], env=env)
    assert "(STARTTLS)" in r.output
    assert inbox.got[-1][2] == eml.read_bytes() and logins == [(b"alice", b"s3cret")]
    # the password asked for when it is not in the environment
    run(["mail", "send", eml, "--smtp", server, "--user", "alice", "--cafile", cert], env={"PBEM_SMTP_PASSWORD": ""}, input="s3cret\n")
    assert len(inbox.got) == 2 and logins[-1] == (b"alice", b"s3cret")
    # a wrong password, an untrusted certificate, a server that requires STARTTLS: exit 2, nothing sent
    r = CliRunner().invoke(cli, ["mail", "send", str(eml), "--smtp", server, "--user", "alice", "--cafile", str(cert)],
                           env={"PBEM_SMTP_PASSWORD": "wrong"})
    assert r.exit_code == 2 and "refused the login of alice" in r.output and "wrong" not in r.output
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", server, "--user", "alice", "--cafile", cert],
          "no SMTP password")  # none in the environment, and none can be asked for (no input)
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", server, "--user", "alice"], "TLS failed", "--cafile")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", server, "--no-starttls"], "refused")
    assert len(inbox.got) == 2


def test_send_over_implicit_tls_by_option_and_by_port_465(ex: Exchange, smtpd: Any, tmp_path: Path) -> None:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    logins: list[tuple[bytes, bytes]] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        assert isinstance(data, LoginPassword)
        logins.append((data.login, data.password))
        return AuthResult(success=data.password == b"s3cret", handled=False)

    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    ctx, cert = self_signed(tmp_path)
    # an SMTPS server: TLS from the first byte, no STARTTLS offered
    inbox, port = smtpd(ssl_context=ctx, authenticator=authenticator, auth_require_tls=False)
    server = f"127.0.0.1:{port}"
    r = run(["mail", "send", eml, "--smtp", server, "--ssl", "--user", "alice", "--cafile", cert],
            env={"PBEM_SMTP_PASSWORD": "s3cret"})
    assert f"through {server} (implicit TLS)" in r.output
    assert inbox.got[-1][2] == eml.read_bytes() and logins == [(b"alice", b"s3cret")]
    # an untrusted certificate: exit 2, nothing sent
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", server, "--ssl"], "TLS failed", "--cafile")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", server, "--ssl", "--no-starttls"], "contradict")
    assert len(inbox.got) == 1


def test_port_465_chooses_implicit_tls(monkeypatch: pytest.MonkeyPatch, ex: Exchange) -> None:
    import smtplib

    from pbem.exchange.mail import parse_server

    assert parse_server("smtp.example.org", True, True) == ("smtp.example.org", 465)
    assert parse_server("smtp.example.org", True) == ("smtp.example.org", 587)
    used: list[tuple[str, str, int]] = []

    class Refuse(smtplib.SMTP_SSL):
        def __init__(self, host: str, port: int, **kw: Any) -> None:
            used.append(("SMTP_SSL", host, port))
            raise ConnectionRefusedError("refused")

    class RefusePlain(smtplib.SMTP):
        def __init__(self, host: str, port: int, **kw: Any) -> None:
            used.append(("SMTP", host, port))
            raise ConnectionRefusedError("refused")

    monkeypatch.setattr(smtplib, "SMTP_SSL", Refuse)
    monkeypatch.setattr(smtplib, "SMTP", RefusePlain)
    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", "smtp.example.org:465"], "cannot send through smtp.example.org:465")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", "smtp.example.org", "--ssl"], "cannot send through smtp.example.org:465")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", "smtp.example.org"], "cannot send through smtp.example.org:587")
    assert used == [("SMTP_SSL", "smtp.example.org", 465)] * 2 + [("SMTP", "smtp.example.org", 587)]


def test_send_bad_input_and_unreachable_server(ex: Exchange) -> None:
    eml = ex.root / "out.eml"
    write(ex, eml, "--date", DATE)
    with closed_port() as port:
        fails(ex.root, 2, ["mail", "send", eml, "--smtp", f"127.0.0.1:{port}", "--no-starttls"], f"cannot send through 127.0.0.1:{port}")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", "smtp.example.org", "--user", "alice", "--no-starttls"],
          "in clear text")
    fails(ex.root, 2, ["mail", "send", eml, "--smtp", "bad host!"], "write HOST or HOST:PORT")
    bcc = ex.root / "bcc.eml"
    bcc.write_bytes(b"Bcc: eve@example.org\r\n" + eml.read_bytes())
    fails(ex.root, 2, ["mail", "send", bcc, "--smtp", f"127.0.0.1:{port}", "--no-starttls"], "Bcc")
    nobody = ex.root / "nobody.eml"
    nobody.write_bytes(b"From: a@example.org\r\nSubject: x\r\n\r\nhi\r\n")
    fails(ex.root, 2, ["mail", "send", nobody, "--smtp", f"127.0.0.1:{port}", "--no-starttls"], "no To or Cc")


# --- help ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("cmd", [["mail"], ["mail", "read"], ["mail", "write"], ["mail", "send"]], ids=" ".join)
def test_mail_commands_have_help_with_an_example(cmd: list[str]) -> None:
    r = run([*cmd, "--help"])
    assert "Example" in r.output and "pbem " + " ".join(cmd) in r.output
    assert "\n  mail " in run(["--help"]).output


def test_base64_damage_is_a_malformed_message(ex: Exchange) -> None:
    raw = message(("0003.state.toml", ex.text("0003.state.toml"))).as_bytes()
    encoded = base64.b64encode(ex.file("0003.state.toml").read_bytes())[:76]
    assert encoded in raw
    raw = raw.replace(encoded, encoded[:-3] + b"!!=", 1)
    read(ex, save(ex.root, "bad.eml", raw), 2, "malformed message")


def test_a_json_listing_of_a_file_holding_a_toml_time_is_json(tmp_path: Path) -> None:
    """A hostile attachment holding a TOML time (which a signed file may not hold) is refused with
    its place; the --json listing shows what it says as text (it once failed with a traceback:
    "Object of type time is not JSON serializable")."""
    p = save(tmp_path, "in.eml", message(("0003-german.orders.toml", '[pbem]\nkind = "orders"\nstep = { at = 00:23:49 }\n')))
    r = CliRunner().invoke(cli, ["mail", "read", str(p), "--json"])
    assert r.exit_code == 2, r.output
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["exit"] == 2
    assert any(prob["where"].endswith("pbem.step") and "datetime.time(0, 23, 49)" in prob["message"] for prob in out["problems"])
    assert "Traceback" not in r.output
