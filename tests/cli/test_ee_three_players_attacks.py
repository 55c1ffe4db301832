"""Attacks on a three-player Europe Engulfed game from the command line (docs/europe-engulfed.md,
Three players): what `pbem check`, `pbem adjudicate` and `pbem verify` say, and their exit codes,
when an Allied player's file orders the other Allied player's nations or gives [standing] in a file
that only opens blocks. tests/games/europe_engulfed/test_three_players_attacks.py has the rest."""

from __future__ import annotations

from pathlib import Path

from pbem.exchange.keys import write_key_files
from tests.clihelpers import fails, run
from tests.exchange.neutral.conftest import SkGame
from tests.games.europe_engulfed.test_three_players import at_allied_move, until
from tests.games.europe_engulfed.three_game import proposed, start, step, write


def keys(g: SkGame, tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    for p, k in g.keys.items():
        write_key_files(k, tmp_path / "keys" / p)


def test_pbem_check_and_adjudicate_refuse_a_west_file_buying_soviet_fleet_points(tmp_path: Path) -> None:
    g = at_allied_move(tmp_path)
    keys(g, tmp_path)
    state = g.state_path
    draft = write(g, "west", '\n[production.buy]\nfp = { ussr = "baltic" }\n', sign=False)
    r = run(["check", state, draft], code=1)
    assert draft.name in r.output
    assert "production.buy.fp.ussr: ussr is the ussr player's nation; the west player orders only his own (Part II) [Part II]" \
        in r.output
    west = write(g, "west", '\n[production.buy]\nfp = { ussr = "baltic" }\n')
    ussr = write(g, "ussr", "\n# nothing\n")
    fails(g.folder, 1, ["adjudicate", state, west, ussr, "--key", tmp_path / "keys" / "axis.key"],
          west.name, "production.buy.fp.ussr", "[Part II]")


def test_pbem_check_refuses_standing_in_a_west_file_that_opens_blocks_in_an_axis_step(tmp_path: Path) -> None:
    g = start(tmp_path / "game", options={"turns": "1"})
    step(g)
    until(g, lambda s: "west" in s["awaits"]["from"] and s["clock"]["side"] == "axis")
    keys(g, tmp_path)
    draft = write(g, "west", '\n[standing]\nlosses = ["gb.13"]\n', sign=False)
    r = run(["check", g.state_path, draft], code=1)
    assert "standing: the west player's file in 1941-may/axis/combat opens its blocks (6.24) only" in r.output
    assert "[6.24]" in r.output
    draft.unlink()
    axis = write(g, "axis", "\n" + proposed(g, "axis"))
    west = write(g, "west", "\n")
    run(["adjudicate", g.state_path, axis, west, "--key", tmp_path / "keys" / "ussr.key"])
    run(["verify", g.folder])
