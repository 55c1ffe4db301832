"""The golden game: the demo played into a folder is byte-identical to tests/games/proud_monster/golden/demo/."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.chain import verify

GOLDEN = Path(__file__).parent / "golden" / "demo"


def test_demo_matches_golden_game_byte_for_byte(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    game = tmp_path / "demo" / "game"
    produced = sorted(p.name for p in game.iterdir())
    expected = sorted(p.name for p in GOLDEN.iterdir())
    assert produced == expected
    for name in expected:
        assert (game / name).read_bytes() == (GOLDEN / name).read_bytes(), f"{name} differs from the golden game"


def test_demo_plays_two_full_game_turns_and_verifies(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    game = tmp_path / "demo" / "game"
    states = sorted(game.glob("*.state.toml"))
    # joins, then GT1 (German, Soviet) and GT2 (two sequences of German, Soviet): at least 1 + 2 + 4 transitions
    assert len(states) >= 8
    res = verify([game])
    assert res.transitions == len(states) - 1 and res.reports == len(states) - 1
    assert "ok:" in result.output and "transitions replayed" in result.output
    last = states[-1].read_text(encoding="utf-8")
    assert 'step = "GT3/1/german"' in last or "game-over" in last


def test_golden_game_verifies() -> None:
    res = verify([GOLDEN])
    assert res.states == len(list(GOLDEN.glob("*.state.toml")))
