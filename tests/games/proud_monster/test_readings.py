"""Proud Monster: the options for the digest's ambiguities where a catalog case does not fit: the
plumbing of every option in READINGS (defaults, values, the rule of a bad value, docs/proud-monster.md), the
allocation mechanics of 14.35 exception 2 read "once", and the report lines the other readings of
Ambiguities 28, 30, 39, 42, 46-49 and 59 add."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.errors import IllegalOrdersError
from pbem.games.proud_monster import render
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.options import DEFAULT_OPTIONS, OPTION_NOTES, OPTION_VALUES
from pbem.mechanics.steps import Loss, allocate
from tests.games.proud_monster.pmcase import CATALOG, load_case, run_case
from tests.paths import ROOT

M = ProudMonster()

# option, ambiguity, rule, the digest's reading (the default), the other reading
READINGS = [
    ("gast_rolls", 28, "9.6", "per-combat", "per-unit"),
    ("halving_rounding", 30, "9.7/14.12", "once", "each"),
    ("concentric_three", 39, "14.14", "non-contiguous", "alternating"),
    ("fort_destruction", 42, "14.26", "any-entry", "assault"),
    ("exception2_reduced", 46, "14.35", "to-1-step", "once"),
    ("guards_cavalry_half", 47, "14.36", "per-step", "per-unit"),
    ("hedgehog_movement", 48, "14.40", "may-move", "stay"),
    ("arko_participates", 49, "14.41", True, False),
    ("rain_zone", 59, "13.4", "start", "entered"),
    ("moscow_vp_victory", 7, "4.6/4.1", "next-check", "at-capture"),
    ("romanian_stacking", 12, "7.3/6.3", "fractional", "per-counter"),
    ("boundary_weather", 35, "13.2", "entered", "left"),
    ("arko_order", 41, "14.23/14.41", "doubling-first", "arko-first"),
    ("retreat_distance", 45, "14.32", "path", "hex-distance"),
]


@pytest.mark.parametrize(("name", "amb", "rule", "default", "other"), READINGS, ids=[r[0] for r in READINGS])
def test_each_reading_is_an_option_with_the_digest_default(name: str, amb: int, rule: str, default: Any, other: Any) -> None:
    assert DEFAULT_OPTIONS[name] == default
    assert OPTION_VALUES[name] == (default, other)
    assert OPTION_NOTES[name].startswith(f"Ambiguity {amb} ({rule}):")
    assert M.new_game("training", {})["options"][name] == default
    assert M.new_game("training", {"ruleset": "full"})["options"][name] == default  # the full game keeps the default
    assert M.new_game("training", {name: other})["options"][name] == other
    with pytest.raises(IllegalOrdersError) as e:
        M.new_game("training", {name: "neither"})
    assert [(p.where, p.rule) for p in e.value.problems] == [(f"option {name}", rule)]
    page = (ROOT / "docs" / "proud-monster.md").read_text(encoding="utf-8")  # its Options table
    row = next((line for line in page.splitlines() if line.startswith(f"| `{name}` |")), "")
    assert f"Ambiguity {amb} (" in row


def test_exception_two_read_once_lets_a_reduced_four_step_unit_open_the_elimination() -> None:
    units = [("Inf1", 1), ("Pz1", 4)]
    literal = allocate(units, 2, [], "fewest-steps-first", spread=True)
    assert literal == [Loss("Pz1", 2, False)]
    once = allocate(units, 2, [], "fewest-steps-first", spread=True, reduced={"Pz1": 3, "Inf1": 1})
    assert once == [Loss("Inf1", 1, True), Loss("Pz1", 1, False)]
    # a division already reduced before the combat counts as reduced at once
    assert allocate([("Inf1", 1), ("Pz1", 3)], 1, [], "fewest-steps-first", spread=True,
                    reduced={"Pz1": 3, "Inf1": 1}) == [Loss("Inf1", 1, True)]
    # a full 2-step unit still has to be reduced first under both readings
    assert allocate([("Inf1", 1), ("Inf2", 2), ("Pz1", 3)], 1, [], "fewest-steps-first", spread=True,
                    reduced={"Pz1": 3, "Inf1": 1, "Inf2": 1}) == [Loss("Inf2", 1, False)]


def case(name: str) -> dict[str, Any]:
    return load_case(next(CATALOG.glob(f"{name}-*.toml")))


def report(name: str, kind: str = "attack") -> str:
    got = run_case(case(name))
    assert not got["problems"], got["problems"]
    return "\n".join(line for e in got["events"] if e.kind == kind for line in render.event_lines(e))


def test_the_gast_per_unit_line_names_every_die_and_the_sum() -> None:
    text = report("PM-531")
    assert ("GAST (17.10, provisional table), one die per attacker in attenuated or air supply east of the GAS line "
            "(Inf1, Inf2; 9.6, 9.18, Ambiguity 28): die `9.6|GT3/1/german|attack 1|4303N|GAST Inf1` = 2: 1L; "
            "die `9.6|GT3/1/german|attack 1|4303N|GAST Inf2` = 3: 1L; in all 2L to the German odds.") in text
    assert "Shift 2L" not in text  # the GAST line explains its shift
    assert text.index("GAST") < text.index("Final odds 1:2")


def test_the_halving_groups_are_explained_in_the_attackers_line() -> None:
    text = report("PM-533")
    assert "R10: 3 halved (9.7), rounded up apart from the other halvings: 2 (14.12, Ambiguity 30)" in text
    assert "T3: 5 halved (10.1), rounded up apart from the other halvings: 3 (14.12, Ambiguity 30)" in text
    assert "total 5 (14.8)" in text
    assert "apart from the other halvings" not in report("PM-532")


def test_a_supporting_arko_is_explained_and_an_idle_one_too() -> None:
    text = report("PM-546")
    assert ("ArKo (ArKo) supports the attack without taking part in it: no factor, no loss, no advance "
            "(Ambiguity 49); the defender's result 2 becomes 3") in text
    assert "ArKo 0" not in text  # not among the attackers
    c = case("PM-546")
    c["position"]["units"] = {"ArKo": "4818N", "Inf1": "4818N", "Inf2": "4818N", "R1": "4918N"}
    c["orders"]["attack"] = [{"target": "4918N", "units": ["Inf1", "Inf2", "ArKo"], "loss_policy": "fewest-steps-first"}]
    c["dice"] = {"faces": [5]}
    got = run_case(c)
    attack = next(e for e in got["events"] if e.kind == "attack")
    assert attack.data["arko"] == {"units": ["ArKo"], "supporting": True, "idle": True}
    assert "but adds nothing: only stacked with other attackers of a PA on a city" in "\n".join(render.event_lines(attack))
    assert got["state"]["position"]["units"]["ArKo"]["at"] == "4818N"


def test_the_hedgehog_and_rain_problems_say_what_to_do() -> None:
    got = run_case(case("PM-544"))
    (p,) = got["problems"]
    assert p.rule == "14.40" and "began the movement phase in the hedgehog 4914N" in p.message
    assert "Cancel the hedgehog at the start of the phase" in p.render()
    got = run_case(case("PM-549"))
    (p,) = got["problems"]
    assert p.rule == "13.4" and "(movement factor 5 - 1 in rain)" in p.message


def test_a_work_entered_under_the_assault_reading_stays_intact_in_the_report() -> None:
    got = run_case(case("PM-536"))
    text = "\n".join(line for e in got["events"] for line in render.event_lines(e))
    assert "destroyed" not in text
    assert "Luga north" in text and "cancelled" in text
