"""The grand campaign (scenario ``1939``: Sep/Oct 1939 to Nov/Dec 1945, supplement S2.6) played by
the built-in player for two years (12 game turns, `pbem demo --game europe-engulfed --scenario
1939 --turns 12`), with fog of war: no exception, every state verifies (the demo ends with `pbem
verify`), every part of the sequence of play happens (I.A), the declarations of war of the
calendar are made where the rules allow them (1.23), blocks are built (4.4), battles are fought
(6.x), the WERP ledger balances in every production phase (4.5, ledger.py) and every report's end
of game turn says who would win now (the provisional victory table)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.demo import run_demo
from pbem.exchange.chain import verify
from pbem.exchange.files import read_toml
from pbem.games.europe_engulfed.data import Turn
from pbem.games.europe_engulfed.ledger import COLUMNS
from pbem.games.europe_engulfed.module import EuropeEngulfed

TURNS = 12


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = run_demo(tmp_path_factory.mktemp("campaign") / "g", TURNS, lambda _line: None, game="europe-engulfed", scenario="1939")
    return out / "game"


def _states(game: Path) -> list[dict[str, Any]]:
    return [read_toml(p) for p in sorted(game.glob("*.state.toml"))]


def _reports(game: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(game.glob("*.report.md")))


def test_two_years_are_played_and_every_state_verifies(game: Path) -> None:
    states = _states(game)
    res = verify([game])
    assert res.transitions == len(states) - 1 == res.reports
    first, last = states[0], states[-1]
    assert first["pbem"]["scenario"] == "1939" and first["clock"]["turn"] == "1939-sep"
    played = Turn.parse(str(last["clock"]["turn"])).ordinal() - Turn.parse("1939-sep").ordinal()
    assert played == TURNS  # the demo stops awaiting the 13th game turn's first step
    module = EuropeEngulfed()
    for st in states[1:]:
        assert module.check_state(st) == []


def test_every_part_of_the_sequence_of_play_happens(game: Path) -> None:
    steps = [str(s["awaits"]["step"]) for s in _states(game)]
    assert "setup" in steps
    for side in ("axis", "allies"):
        for phase in ("move", "combat", "breakthrough/1"):
            assert any(s.endswith(f"/{side}/{phase}") for s in steps), (side, phase)
    text = _reports(game)
    for words in ("Weather (1.1)", "Weather (1.11): variable weather", "#### Production phase (1.22)",
                  "#### Initial operational movement phase (1.23)", "#### Initial strategic movement phase (1.24)",
                  "#### Initial combat phase (1.25)", "**Battle of ", "#### Breakthrough phase (1.26)",
                  "#### Final supply determination phase (1.27)", "The turn marker advances",
                  "Poland is conquered", "Nazi-Soviet", "Germany declares war on the USSR (1.23)", " builds ",
                  "Victory standing at the end of"):
        assert words in text, words
    # 9.42, 9.43: Italy stays neutral until Germany controls Paris or declares Vichy (the built-in
    # player does not take Paris in these two years), and Germany aids it meanwhile
    assert "Italy enters the war (9.42)" in text or "German aid +5 (9.43)" in text


def test_the_werp_ledger_balances_in_every_production_phase(game: Path) -> None:
    last = _states(game)[-1]
    book = last["position"]["werps_by_turn"]
    assert len(book) == TURNS
    for turn, rows in book.items():
        assert {"germany", "britain"} <= set(rows), turn
        for nation, r in rows.items():
            assert set(r) == set(COLUMNS)
            assert r["produced"] - r["strategic"] - r["maintenance"] == r["available"], (turn, nation, r)
            assert r["spent"] + r["left"] == r["available"], (turn, nation, r)
    text = _reports(game)
    assert text.count("| Nation | Produced | Strategic warfare | Maintenance | Available | Spent | Left |") == 2 * TURNS


def test_the_production_steps_picture_plots_werps_by_nation(game: Path) -> None:
    pictures = sorted(game.glob("*.turn.svg"))
    plotted = [p for p in pictures if 'id="werps"' in p.read_text(encoding="utf-8")]
    assert plotted
    svg = plotted[-1].read_text(encoding="utf-8")
    assert 'id="werps-plot"' in svg and 'data-side="germany"' in svg and 'data-side="britain"' in svg


def test_status_says_who_would_win_now(game: Path) -> None:
    last = _states(game)[-1]
    lines = EuropeEngulfed().status_lines(last)
    line = next(x for x in lines if x.startswith("victory (provisional)"))
    assert "VP axis" in line and ("if the game ended now" in line or "by sudden death" in line)
    assert "V-" in line
