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
