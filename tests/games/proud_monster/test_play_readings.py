"""Proud Monster: the options for the digest's ambiguities 7, 12, 35, 41 and 45 where a catalog case
does not fit: the report lines the other readings add, and the readings of Ambiguities 18 and 50
that need no option (their plumbing is tested with the others in test_readings.py)."""

from __future__ import annotations

from typing import Any

from pbem.games.proud_monster import render
from pbem.games.proud_monster.module import ProudMonster
from tests.games.proud_monster.pmcase import CATALOG, load_case, run_case

M = ProudMonster()

def case(name: str) -> dict[str, Any]:
    return load_case(next(CATALOG.glob(f"{name}-*.toml")))


def lines(name: str, kind: str) -> list[str]:
    got = run_case(case(name))
    assert not got["problems"], got["problems"]
    return [line for e in got["events"] if e.kind == kind for line in render.event_lines(e) or []]


def test_the_immediate_moscow_check_is_reported_with_its_rule_and_the_game_ends() -> None:
    assert lines("PM-560", "victory-check") == [
        "- Immediate victory check on capturing Moscow, GT2 (4.6 read as an immediate VP victory, Ambiguity 7, "
        "option moscow_vp_victory): German VP 9, 8 needed (provisional table value) (17.2): the German wins."]
    over = lines("PM-560", "game-over")
    assert over[-1] == ("**Game over: the german wins** — 9 VP on capturing Moscow in GT2 reaches the 8 needed "
                        "(17.2; Ambiguity 7) (4.6).")
    assert lines("PM-561", "victory-check")[0].endswith("German VP 9, 12 needed (provisional table value) (17.2): play continues.")


def test_the_arko_first_lines_show_the_plus_one_before_the_doubling() -> None:
    text = lines("PM-572", "attack")
    assert ("  - ArKo (ArKo): the defender's result 1 becomes 2 before city doubling (14.41, Ambiguity 41, "
            "option arko_order).") in text
    assert "  - City: 1/1 with the ArKo's +1 becomes 2/4 (losses doubled, 14.23); outcome 2/4." in text
    default = lines("PM-571", "attack")
    assert "  - City: 1/1 becomes 2/2 (losses doubled, 14.23)." in default
    assert any("the defender's result 2 becomes 3 (14.41, after city doubling, Ambiguity 41); outcome 2/3." in line
               for line in default)


def test_a_move_by_the_weather_of_the_hex_left_says_so() -> None:
    move = lines("PM-568", "move")
    assert move[0] == ("- Move 1: Inf1 4626N > 4601S: Inf1 1 = 1 of 5 MP (12.1, 17.9) (dry in the NZ, the zone of the hex "
                       "left, not mud (13.2, Ambiguity 35, option boundary_weather)).")
    assert not any("Ambiguity 35" in line for line in lines("PM-567", "move"))  # the default adds nothing


def test_the_hex_distance_retreat_names_its_measure() -> None:
    text = lines("PM-574", "retreat")
    assert text == ["  - German retreat: Pz1 retreats from 4816N into 4715N for 1 point of 1 (14.32, 14.33); supply distance "
                    "2 hexes (hex distance, option retreat_distance) from 4816N, 1 hex (hex distance, option "
                    "retreat_distance) from 4715N (Ambiguity 45); stacking respected (6.2)."]


def test_the_readings_without_an_option_say_why_in_the_code() -> None:
    from pbem.games.proud_monster import air, assault

    assert "No option for the conditions" in (air.december_air.__doc__ or "")
    assert "Ambiguity 50 needs no option" in (assault.mobile_assault.__doc__ or "")
