"""A refereed Skirmish game (docs/referee.md), three players, Proud Monster out of the registry: the
referee adjudicates every step and writes a signed view and a report for each side; each player
writes, checks and signs its orders or reply from its own views, verifies them from the game's
first state, and receives them by mail; a side whose deadline passed is adjudicated without its
file."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from pbem.errors import TamperError
from pbem.exchange.canonical import digest
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, read_toml
from pbem.exchange.game import load_state
from tests.clihelpers import fails, run
from tests.exchange.neutral.conftest import RED_T1, SkGame, key_files, start_game


@pytest.fixture
def refereed(tmp_path: Path) -> SkGame:
    """A refereed game after red's first attack: 0002 awaits green's reply."""
    g = start_game(tmp_path / "ref", referee=True)
    g.play(RED_T1)
    return g


def player_folder(g: SkGame, root: Path, side: str) -> Path:
    """What a player holds: the game's first state, its own join and its views."""
    p = root / side
    p.mkdir()
    shutil.copy(g.folder / "0000.state.toml", p)
    shutil.copy(g.folder / f"0000-{side}.join.toml", p)
    for v in sorted(g.folder.glob(f"*-{side}.view.toml")):
        shutil.copy(v, p)
    return p


def test_the_referee_writes_a_view_and_a_report_for_each_of_the_three_sides(refereed: SkGame) -> None:
    g = refereed
    st = load_state(g.folder / "0002.state.toml")
    assert st.data["awaits"] == {"kind": "reply", "step": "T1/red/reply-1", "from": ["green"], "adjudicator": "referee"}
    assert sorted(p.name for p in g.folder.glob("0002-*")) == [
        "0002-blue.report.md", "0002-blue.view.toml", "0002-green.report.md", "0002-green.view.toml",
        "0002-red.report.md", "0002-red.view.toml"]
    views = {s: read_toml(g.folder / f"0002-{s}.view.toml") for s in ("red", "blue", "green")}
    for side, v in views.items():
        assert v["pbem"]["of"] == st.digest and v["pbem"]["side"] == side and v["seal"]["signer"] == "referee"
        assert v["position"] == st.data["position"], "Skirmish hides nothing"
        assert set(v["standing"]) <= {side}
        assert v["transition"]["dice"] == st.data["transition"]["dice"]
    assert "question" in views["green"] and "question" not in views["red"] and "question" not in views["blue"]
    assert views["green"]["question"] == st.data["pending"]["question"]
    report = (g.folder / "0002-blue.report.md").read_text(encoding="utf-8")
    assert report.startswith("# Skirmish: report 0002, for the blue side\n") and "Attack 1 on west-fields" in report
    res = verify([g.folder])
    assert (res.states, res.transitions, res.views) == (3, 2, 6)


def test_a_player_answers_from_its_views_and_verifies_them(refereed: SkGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = refereed
    keys = key_files(g, tmp_path / "keys")
    green = player_folder(g, tmp_path, "green")
    monkeypatch.chdir(green)
    out = run(["status", "0002-green.view.toml"]).output
    assert "awaits reply for step T1/red/reply-1 from green; adjudicated by referee" in out and "decision needed from green" in out
    run(["template", "0002-green.view.toml", "--side", "green", "-o", "0002-green.reply.toml"])
    assert "legal for step T1/red/reply-1" in run(["check", "0002-green.view.toml", "0002-green.reply.toml"]).output
    run(["sign", "0002-green.reply.toml", "--key", keys["green"], "--state", "0002-green.view.toml"])
    reply = tomllib.loads((green / "0002-green.reply.toml").read_text(encoding="utf-8"))
    assert reply["pbem"]["answers"] == load_state(g.folder / "0002.state.toml").digest, "a reply answers the full state"
    out = run(["verify", "."]).output
    assert "ok: 2 views of the referee's states" in out and ("die re-derived" in out or "dice re-derived" in out)
    shutil.copy(green / "0002-green.reply.toml", g.folder)
    g.adjudicate(g.folder / "0002-green.reply.toml")
    assert load_state(g.folder / "0003.state.toml").data["awaits"]["step"] == "T1/blue"
    assert verify([g.folder]).views == 9


def test_a_view_changed_or_sealed_by_a_player_is_refused(refereed: SkGame, tmp_path: Path) -> None:
    g = refereed
    red = player_folder(g, tmp_path, "red")
    p = red / "0002-red.view.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    data["position"]["vp"]["red"] = 9
    p.write_text(dumps(data), encoding="utf-8")
    with pytest.raises(TamperError) as e:
        verify([red])
    assert "signature does not match" in e.value.message
    fails(tmp_path, 3, ["status", p], "signature does not match")


def test_the_referee_adjudicates_a_reply_or_orders_whose_deadline_passed(refereed: SkGame) -> None:
    g = refereed
    g.adjudicate(defaulted=["green"])
    st = load_state(g.folder / "0003.state.toml").data
    assert st["transition"]["defaulted"] == ["green"] and sorted(st["transition"]["reveals"]) == ["referee"]
    report = (g.folder / "0003.report.md").read_text(encoding="utf-8")
    assert "- No green submission for `T1/red/reply-1` by the deadline" in report
    assert "- No reply from green by the deadline: " in report and ", weakest-first (6.3)." in report
    assert st["position"]["units"]["G4"]["at"] == "eliminated", "G4, cavalry, is green's weakest unit there"
    g.adjudicate(defaulted=["blue"])
    st4 = load_state(g.folder / "0004.state.toml").data
    assert st4["awaits"]["step"] == "T1/green" and st4["position"]["units"] == st["position"]["units"]
    assert verify([g.folder]).transitions == 4


def test_a_view_goes_by_mail_with_its_sides_report(refereed: SkGame, tmp_path: Path) -> None:
    g = refereed
    blue = player_folder(g, tmp_path, "blue")
    (blue / "0002-blue.view.toml").unlink()
    out = tmp_path / "view.eml"
    run(["mail", "write", g.folder / "0002-blue.view.toml", "--from", "ref@example.org", "--to", "blue@example.org",
         "--date", "Mon, 07 Jul 2025 10:00:00 +0000", "-o", out])
    r = run(["mail", "read", out, "--folder", blue])
    assert "new    0002-blue.view.toml" in r.output and "new    0002-blue.report.md" in r.output
    assert digest(read_toml(blue / "0002-blue.view.toml")) == digest(read_toml(g.folder / "0002-blue.view.toml"))
    fails(tmp_path, 3, ["mail", "read", out, "--folder", player_folder(g, tmp_path, "red")], "a view for blue")
