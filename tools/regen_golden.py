"""Regenerate the golden games after a deliberate change of output.

    python tools/regen_golden.py              # both
    python tools/regen_golden.py demo         # the training demo only
    python tools/regen_golden.py campaign     # the campaign only
    python tools/regen_golden.py red-steel    # Red Steel's golden game only
    python tools/regen_golden.py europe-engulfed   # Europe Engulfed's golden game only

The golden demo is `pbem demo --out ...`; tests/games/proud_monster/test_golden.py compares a fresh run with it byte
for byte. The example game repository's game (examples/git-game/games/demo/) is the same game;
tests/cli/test_git_ci.py checks that it is. The golden campaign (tests/games/proud_monster/golden/campaign/) is `pbem demo
--scenario campaign --turns 12`, GT1-GT12 played by the built-in player, without its turn pictures
(they are large); tests/games/proud_monster/test_golden_campaign.py replays it and checks every report byte for byte.
Red Steel's golden game (tests/games/red_steel/golden/training/) is `pbem demo --game red-steel --turns 4`: the
training scenario's whole day played by the built-in player, through its last step, without its pictures;
tests/games/red_steel/test_golden.py replays it. Europe Engulfed's golden game
(tests/games/europe_engulfed/golden/barbarossa/) is `pbem demo --game europe-engulfed --turns 4`: the Barbarossa
scenario's four turns with fog of war, played by the built-in player through the last step that opens every hidden
block, without its pictures; tests/games/europe_engulfed/test_golden.py replays it. Its grand campaign's golden game
(tests/games/europe_engulfed/golden/campaign-1939/) is `pbem demo --game europe-engulfed --scenario 1939 --turns 12`:
two years of the war from Sep/Oct 1939, played by the built-in player with fog of war, without its pictures;
tests/games/europe_engulfed/test_campaign.py replays it and compares a fresh game with it byte for byte. Its
three-player golden game (tests/games/europe_engulfed/golden/barbarossa-3p/) is `pbem demo --game europe-engulfed
--option players=3 --turns 4`: the Barbarossa scenario with the Axis, the Western Allies and the Soviet Union each
signing its own files, without its pictures; tests/games/europe_engulfed/test_golden_three_players.py replays it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from pbem.demo import run_demo

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "games" / "proud_monster" / "golden" / "demo"
EXAMPLE = ROOT / "examples" / "git-game" / "games" / "demo"
DOCS = ROOT / "docs"
README_PICTURE = "0002.turn.svg"  # the German GT1 player turn, shown in the README
CAMPAIGN = ROOT / "tests" / "games" / "proud_monster" / "golden" / "campaign"
CAMPAIGN_TURNS = 12
RED_STEEL = ROOT / "tests" / "games" / "red_steel" / "golden" / "training"
RED_STEEL_TURNS = 4
EUROPE_ENGULFED = ROOT / "tests" / "games" / "europe_engulfed" / "golden" / "barbarossa"
EUROPE_ENGULFED_TURNS = 4
EUROPE_ENGULFED_1939 = ROOT / "tests" / "games" / "europe_engulfed" / "golden" / "campaign-1939"
EUROPE_ENGULFED_1939_TURNS = 12
EUROPE_ENGULFED_3P = ROOT / "tests" / "games" / "europe_engulfed" / "golden" / "barbarossa-3p"
EUROPE_ENGULFED_3P_OPTIONS = {"players": 3}


def game_golden(game: str, dest: Path, turns: int, scenario: str | None = None, options: dict[str, object] | None = None) -> None:
    """A game's golden game: its demo scenario (or ``scenario``) played by the built-in player (with
    the rules ``options``), without its pictures."""
    with tempfile.TemporaryDirectory() as tmp:
        out = run_demo(Path(tmp) / "g", turns, lambda _line: None, options=options, game=game, scenario=scenario)
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(out / "game", dest, ignore=shutil.ignore_patterns("*.svg"))
    print(f"wrote {dest}")


def campaign() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = run_demo(Path(tmp) / "campaign", CAMPAIGN_TURNS, lambda _line: None, scenario="campaign")
        if CAMPAIGN.exists():
            shutil.rmtree(CAMPAIGN)
        shutil.copytree(out / "game", CAMPAIGN, ignore=shutil.ignore_patterns("*.svg"))
    print(f"wrote {CAMPAIGN}")


def main() -> None:
    which = sys.argv[1:] or ["demo", "campaign", "red-steel", "europe-engulfed"]
    if "campaign" in which:
        campaign()
    if "red-steel" in which:
        game_golden("red-steel", RED_STEEL, RED_STEEL_TURNS)
    if "europe-engulfed" in which:
        game_golden("europe-engulfed", EUROPE_ENGULFED, EUROPE_ENGULFED_TURNS)
        game_golden("europe-engulfed", EUROPE_ENGULFED_1939, EUROPE_ENGULFED_1939_TURNS, "1939")
        game_golden("europe-engulfed", EUROPE_ENGULFED_3P, EUROPE_ENGULFED_TURNS, options=EUROPE_ENGULFED_3P_OPTIONS)
    if "demo" not in which:
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = run_demo(Path(tmp) / "demo", 2, lambda _line: None)
        for dest in (GOLDEN, EXAMPLE):
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(out / "game", dest)
    shutil.copyfile(GOLDEN / README_PICTURE, DOCS / "demo-turn.svg")
    print(f"wrote {GOLDEN}, {EXAMPLE} and {DOCS / 'demo-turn.svg'}")


if __name__ == "__main__":
    main()
