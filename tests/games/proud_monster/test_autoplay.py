"""The built-in player (autoplay.propose): legal orders for every step, the same every time, so that
`pbem demo --auto` plays a scenario to its end and verifies."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.files import read_toml
from tests.clihelpers import snapshot


def test_demo_auto_plays_the_training_scenario_to_its_end_and_verifies(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["demo", "--auto", "--full", "--turns", "3", "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    assert "(orders proposed by the built-in player)" in r.output and "game over: the" in r.output
    assert "-> legal" in r.output and "left out" not in r.output
    game = tmp_path / "a" / "game"
    last = read_toml(sorted(game.glob("*.state.toml"))[-1])
    assert last["awaits"]["kind"] == "none" and last["result"]["rule"] == "4.5"
    reports = "".join(p.read_text(encoding="utf-8") for p in sorted(game.glob("*.report.md")))
    assert reports.count("**Attack ") >= 10 and "- Move " in reports
    r2 = CliRunner().invoke(cli, ["demo", "--auto", "--full", "--turns", "3", "--out", str(tmp_path / "b")])
    assert r2.exit_code == 0, r2.output
    assert snapshot(game) == snapshot(tmp_path / "b" / "game"), "the built-in player is deterministic"


def test_an_unknown_demo_scenario_is_a_usage_error(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["demo", "--scenario", "nowhere", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no bundled Proud Monster scenario 'nowhere'" in r.output
    assert not (tmp_path / "x").exists()


def test_the_built_in_player_plays_the_rwr_phase() -> None:
    """8.13-8.20: it makes each withdrawal due with the weakest units that may go, replaces and
    refits what stays, and leaves the refitting division in place; the orders are legal."""
    from pbem.engine.model import Submission
    from pbem.exchange.files import parse_toml
    from pbem.games.proud_monster.autoplay import propose
    from tests.games.proud_monster.pmcase import MODULE, build_state

    case = {"case": {"id": "x"}, "options": {"replacements": True, "withdrawals": True, "refits": True},
            "position": {"turn": 10, "side": "german", "units": {
                "Inf1": {"at": "4716N", "steps": 1}, "Inf2": "4717N", "Inf3": {"at": "4718N", "steps": 1}, "Inf4": {"at": "4617N", "steps": 1},
                "Pz1": {"at": "4616N", "steps": 2}, "R1": "5119N"}}}
    state = build_state(case)
    body = propose(MODULE, state, "german")
    orders = parse_toml(body.encode("utf-8"), "proposal")
    assert orders["rwr"] == {"withdraw": {"infantry": ["Inf1", "Inf3"]}, "replace": ["Inf4"], "refit": ["Pz1"]}
    assert not [m for m in orders.get("move", []) if "Pz1" in m["units"]]
    assert MODULE.check(state, Submission("orders", "german", orders, "sha256:p")) == []


def test_an_order_body_that_opens_with_keys_keeps_them_out_of_the_header() -> None:
    """A proposal written by tomli-w may open with a key (the Guards `convert` list inline): the
    order file keeps it a top-level key, not one of [pbem]'s."""
    from pbem.demo import order_text
    from pbem.exchange.files import parse_toml

    state = {"awaits": {"kind": "orders", "step": "GT7/MR/soviet"}, "pbem": {"game": "g", "module": "proud-monster"},
             "parties": {"soviet": {"index": 3}}}
    body = 'convert = [\n    { unit = "59RD", guards = "1GdRD" },\n]\n\n[[place]]\nunits = ["244RD"]\nhex = "2109S"\n'
    doc = parse_toml(order_text(state, "soviet", body).encode("utf-8"), "orders")
    assert doc["convert"] == [{"unit": "59RD", "guards": "1GdRD"}] and "convert" not in doc["pbem"]
    assert doc["pbem"]["step"] == "GT7/MR/soviet" and doc["place"][0]["hex"] == "2109S"
    table_first = order_text(state, "soviet", '[[move]]\nunits = ["R1"]\npath = ["4816N"]\n')
    assert table_first.startswith("[pbem]")  # as before: the header first
