"""The German RWR phase (8.12-8.20) and security divisions (8.21) where a catalog case does not fit:
the supply states the supply rules give (attenuated, air), the report lines, the position text, the
order template, `pbem status`, the new game's position and the charts' data."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Event, Submission
from pbem.games.proud_monster import rwr
from pbem.games.proud_monster.data import load_charts
from pbem.games.proud_monster.render import event_lines, position_text
from pbem.games.proud_monster.rwr_text import template_lines
from pbem.mechanics.dice import ForcedDice
from tests.clihelpers import run
from tests.conftest import EXCHANGE_SCENARIO, start_game
from tests.games.proud_monster.pmcase import MODULE, build_state
from tests.paths import ROOT

CHARTS = ROOT / "scenarios" / "proud-monster" / "charts.toml"


def case(units: dict[str, Any], orders: dict[str, Any], turn: int = 9, pts: int = 1, **options: Any) -> dict[str, Any]:
    opts = {"replacements": True, "withdrawals": True, "refits": True, "security_divisions": True, **options}
    return {"case": {"id": "x"}, "options": opts, "orders": orders,
            "position": {"turn": turn, "pts": pts, "side": "german", "units": units, "control": {"4914N": "german"}}}


def problems_of(c: dict[str, Any]) -> list[tuple[str, str]]:
    state = build_state(c)
    return [(p.where, p.rule) for p in MODULE.check(state, Submission("orders", "german", c["orders"], "sha256:t"))]


def resolve(c: dict[str, Any], faces: list[int] | None = None) -> tuple[dict[str, Any], list[Event]]:
    state = build_state(c)
    t = MODULE.resolve(state, [Submission("orders", "german", c["orders"], "sha256:t")], ForcedDice(in_order=faces or []))
    return t.state, list(t.events)


@pytest.fixture
def states(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The supply state of each unit, as supply.supply_state will report it (9.3, 9.18): the rules
    of this module are written against the documented states "supplied", "attenuated", "air", "oos"."""
    given: dict[str, str] = {}
    monkeypatch.setattr(rwr, "supply_state", lambda ctx, unit: given.get(unit, "supplied"))
    return given


def test_attenuated_supply_allows_replacement_and_withdrawal_but_not_refit(states: dict[str, str]) -> None:
    """8.14 and 8.16: attenuated supply is acceptable; 8.20: a refitting division must be in
    supply, attenuated does not count."""
    states.update(Inf1="attenuated", Inf2="attenuated", Pz1="attenuated")
    units = {"Inf1": {"at": "4716N", "steps": 1}, "Inf2": "4717N", "Pz1": {"at": "4616N", "steps": 2}}
    assert problems_of(case(units, {"rwr": {"replace": ["Inf1"], "withdraw": {"infantry": ["Inf2"]}}})) == []
    assert problems_of(case(units, {"rwr": {"refit": ["Pz1"]}}, turn=4)) == [("rwr.refit[0]", "8.20")]
    state, events = resolve(case(units, {"rwr": {"replace": ["Inf1"], "withdraw": {"infantry": ["Inf2"]}}}))
    rep = next(e for e in events if e.kind == "replacement")
    assert rep.data["supply"] == "attenuated" and state["position"]["units"]["Inf1"]["steps"] == 2
    assert "in attenuated supply" in event_lines(rep)[0]
    assert state["position"]["units"]["Inf2"]["at"] == "withdrawn"


def test_air_supplied_replacement_keeps_the_unit_in_place(states: dict[str, str]) -> None:
    """9.18: an air-supplied eligible division may be replaced only if it neither moves nor attacks
    that player turn: the replacement is made and any move or attack of it is refused (9.18)."""
    states["Inf1"] = "air"
    units = {"Inf1": {"at": "4716N", "steps": 1}, "Inf2": "4717N", "R1": "4817N"}
    assert problems_of(case(units, {"rwr": {"replace": ["Inf1"]}}, turn=4)) == []
    moving = {"rwr": {"replace": ["Inf1"]}, "move": [{"units": ["Inf1"], "path": ["4616N"]}]}
    assert problems_of(case(units, moving, turn=4)) == [("move[0]", "9.18")]
    attacking = {"rwr": {"replace": ["Inf1"]}, "attack": [{"target": "4817N", "units": ["Inf1", "Inf2"]}]}
    assert problems_of(case(units, attacking, turn=4)) == [("attack[0]", "9.18")]
    state, events = resolve(case(units, {"rwr": {"replace": ["Inf1"]}}, turn=4))
    line = event_lines(next(e for e in events if e.kind == "replacement"))[0]
    assert "air-supplied" in line and "(9.18)" in line
    assert state["position"]["units"]["Inf1"]["steps"] == 2 and "stationary" not in state["position"]


def test_air_supplied_units_never_refit_and_are_not_withdrawn(states: dict[str, str]) -> None:
    """9.18: mechanized units never refit while air-supplied; 8.16 asks for supply (attenuated
    acceptable), which an air-supplied unit, tracing no line, does not have (the choice pbem makes)."""
    states.update(Pz1="air", Inf2="air")
    units = {"Pz1": {"at": "4616N", "steps": 2}, "Inf2": "4717N"}
    assert problems_of(case(units, {"rwr": {"refit": ["Pz1"], "withdraw": {"infantry": ["Inf2"]}}})) == [
        ("rwr.withdraw.infantry[0]", "8.16"), ("rwr.refit[0]", "9.18")]


def test_security_divisions_appear_in_attenuated_supply(states: dict[str, str]) -> None:
    """8.21: they appear in supply; attenuated supply counts as supply, OOS does not."""
    units = {"Sich1": "track", "Sich2": "track", "Sich3": "track"}
    orders = {"declare": {"security": {"Sich1": "4914N", "Sich2": "4914N", "Sich3": "4914N"}}}
    states.update(Sich1="attenuated", Sich2="attenuated", Sich3="attenuated")
    assert problems_of(case(units, orders, turn=3)) == []
    states.update(Sich1="oos")
    assert problems_of(case(units, orders, turn=3)) == [("declare.security.Sich1", "8.21")]


def test_report_lines_cite_the_rules_and_the_provisional_tables() -> None:
    units = {"Inf1": {"at": "4716N", "steps": 1}, "Inf2": "4717N", "Inf3": "4718N", "Pz1": {"at": "4616N", "steps": 1},
             "Sich1": "track", "Sich2": "track", "Sich3": "track"}
    orders = {"rwr": {"replace": ["Inf1"], "withdraw": {"infantry": ["Inf2"]}, "refuse": {"infantry": 1}, "refit": ["Pz1"]},
              "declare": {"security": {"Sich1": "4914N", "Sich2": "4914N", "Sich3": "4914N"}}}
    state, events = resolve(case(units, orders, turn=10), faces=[6])
    text = "\n".join(line for e in events for line in event_lines(e))
    assert "### Replacement withdrawal refit phase, GT10/1/german (rule 8.13)" in text
    assert "- Replacement: Inf1 in 4716N (in supply) is restored from 1 to 2 steps for 1 step of the pool; 27 of 28 left (8.12-8.15)." in text
    assert "Inf2 (infantry division, 2 steps) leaves 4717N for good (provisional Withdrawal Table 17.4); withdrawn (8.16)." in text
    assert ("- Withdrawal GT10 of 1 infantry division (provisional Withdrawal Table 17.4): refused by the German: -1 VP (8.17); "
            "German VP now -2.") in text  # after the security divisions, deployed first as in the MR phase
    assert "die `8.20|GT10/1/german|refit|Pz1|Refit Table` = 6, Refit Table 3 steps (17.5, provisional table)" in text
    assert "it regains 3 steps, 1 to 4 of 4" in text
    assert "1 group of 3, -1 VP for good, German VP now -1" in text
    assert "- RWR phase GT10/1/german: 1 replaced, 1 withdrawn, 1 withdrawal not made, 1 refit; replacement pool 27 of 28 steps (8.15)." in text
    assert state["position"]["vp"] == -2


def test_an_empty_rwr_phase_says_so_with_the_pool() -> None:
    _, events = resolve(case({"Inf1": "4716N"}, {}, turn=3))
    end = next(e for e in events if e.kind == "rwr-end")
    assert event_lines(end) == ["- RWR phase GT3/1/german: no replacement, withdrawal or refit; replacement pool 28 of 28 steps (8.15)."]


def test_the_soviet_player_turn_has_no_rwr_phase() -> None:
    c = case({"R1": "5119N", "Inf1": {"at": "4716N", "steps": 1}}, {}, turn=3)
    c["position"]["side"] = "soviet"
    state = build_state(c)
    t = MODULE.resolve(state, [Submission("orders", "soviet", {}, "sha256:t")], ForcedDice())
    assert not [e for e in t.events if e.kind in ("rwr-end",) or e.data.get("phase") == "replacement-withdrawal-refit"]


def test_position_text_shows_the_pool_refits_and_security_divisions() -> None:
    c = case({"Inf1": "4716N", "Pz1": "4616N", "Sich1": "track", "Sich2": "track"}, {}, turn=5)
    state = build_state(c)
    state["position"].update(replacements=19, refits_used={"Pz1": 3}, stationary={"Pz1": "8.20"})
    text = position_text(MODULE.scenario(state), state, None)
    assert "German replacement pool (8.15): 19 of 28 steps" in text
    assert "Refits made (8.20): Pz1 GT3" in text
    assert "May not move or attack this player turn: Pz1 (refitting, 8.20)" in text
    assert "Security divisions waiting (8.21): Sich1, Sich2" in text
    state["position"]["refits_ended"] = True
    assert "Refits made (8.20): Pz1 GT3; refits have ended (8.19, 13.9)" in position_text(MODULE.scenario(state), state, None)


def test_the_template_lists_what_the_rwr_phase_offers() -> None:
    units = {"Inf1": {"at": "4716N", "steps": 1}, "Inf2": "4717N", "Pz1": {"at": "4616N", "steps": 2}, "Pz5": {"at": "4617N", "steps": 2},
             "Sich1": "track", "Sich2": "track", "Sich3": "track"}
    state = build_state(case(units, {}, turn=10))
    lines = template_lines(MODULE.ctx_of(state))
    text = "\n".join(lines)
    assert "# Replacement pool: 28 of 28 steps (8.15). Reduced divisions that may be replaced: Inf1" in text
    assert "attack this turn): Pz1" in text  # Pz5 never refits (8.18)
    assert "# Withdrawal due on GT10 (17.4, provisional): 2 infantry divisions [infantry]; units that can be withdrawn: Inf1, Inf2" in text
    assert '# infantry = ["UNIT", "UNIT"]' in text and "# [rwr.refuse]" in text
    assert "# Security divisions waiting (8.21): Sich1, Sich2, Sich3." in text and '# UNIT = "HEX"' in text
    # the second sequence: no withdrawals, no security divisions (both belong to the first)
    state2 = build_state(case(units, {}, turn=10, pts=2))
    text2 = "\n".join(template_lines(MODULE.ctx_of(state2)))
    assert "Withdrawal due" not in text2 and "Security divisions" not in text2 and "# [rwr]" in text2
    # the basic game has none of it
    basic = copy.deepcopy(state)
    for k in ("replacements", "withdrawals", "refits", "security_divisions"):
        basic["options"][k] = False
    assert template_lines(MODULE.ctx_of(basic)) == []


def test_withdrawals_in_either_sequence_report_and_template_what_waits() -> None:
    """Ambiguity 9, option withdrawal_sequence = "either": the first sequence's report says what waits
    for the second, whose template offers only that, and the second's phase carries it out."""
    units = {"Inf1": "4717N", "Inf2": "4716N", "Inf3": "4718N"}
    first = case(units, {"rwr": {"withdraw": {"infantry": ["Inf1"]}}}, turn=10, withdrawal_sequence="either")
    assert "(those left open wait for the second sequence: Ambiguity 9)" in "\n".join(template_lines(MODULE.ctx_of(build_state(first))))
    state, events = resolve(first)
    text = "\n".join(line for e in events for line in event_lines(e))
    assert ("- Withdrawal GT10 of 1 infantry division (provisional Withdrawal Table 17.4): neither made nor refused in this "
            "first-sequence RWR phase, so it waits for the second-sequence one, where it is withdrawn or refused "
            "(8.16-8.17; option withdrawal_sequence = \"either\", Ambiguity 9).") in text
    assert state["position"]["withdrawals_made"] == {"turn": 10, "kinds": {"infantry": 1}}
    second = case({"Inf2": "4716N", "Inf3": "4718N"}, {}, turn=10, pts=2, withdrawal_sequence="either")
    second["position"]["withdrawals_made"] = state["position"]["withdrawals_made"]
    text2 = "\n".join(template_lines(MODULE.ctx_of(build_state(second))))
    assert "# Withdrawal due on GT10 (17.4, provisional): 1 infantry division [infantry]; units that can be withdrawn: Inf2, Inf3" in text2
    assert "wait for the second sequence" not in text2
    assert problems_of(second) == [("rwr.withdraw.infantry", "8.16")]  # left open in the last RWR phase of the GT


def test_second_sequence_refits_only_offers_no_replacement() -> None:
    """Ambiguity 9, option second_sequence_rwr = "refits-only": the second sequence's template offers
    refits only; the first sequence's still offers replacements."""
    units = {"Inf1": {"at": "4716N", "steps": 1}, "Pz1": {"at": "4616N", "steps": 2}}
    second = "\n".join(template_lines(MODULE.ctx_of(build_state(case(units, {}, turn=3, pts=2, second_sequence_rwr="refits-only")))))
    assert "Replacement pool" not in second and "attack this turn): Pz1" in second
    first = "\n".join(template_lines(MODULE.ctx_of(build_state(case(units, {}, turn=3, pts=1, second_sequence_rwr="refits-only")))))
    assert "Reduced divisions that may be replaced: Inf1" in first


def test_a_full_game_starts_with_the_pool_and_no_refit_made() -> None:
    basic = MODULE.new_game(EXCHANGE_SCENARIO, {})
    assert not {"replacements", "refits_used"} & set(basic["position"])
    full = MODULE.new_game(EXCHANGE_SCENARIO, {"ruleset": "full"})
    assert full["position"]["replacements"] == 28 and full["position"]["refits_used"] == {}
    assert all(full["options"][k] for k in ("replacements", "withdrawals", "refits", "security_divisions"))


def test_module_check_lists_the_provisional_withdrawal_and_refit_tables() -> None:
    rows = {r["item"]: r for r in MODULE.data_report()}
    assert rows["German Withdrawal Table 17.4"]["status"] == "provisional"
    assert "10.1" in rows["German Withdrawal Table 17.4"]["note"]  # the GT12 Flak corps are not in it
    assert rows["Refit Table 17.5"]["status"] == "provisional"


def test_a_withdrawal_table_naming_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    text = CHARTS.read_text(encoding="utf-8").replace("11 = { mechanized = 1 }", "11 = { cavalry = 1 }")
    p = tmp_path / "charts.toml"
    p.write_text(text, encoding="utf-8")
    problems: list[Any] = []
    load_charts(p, problems)
    assert [(x.rule, "cavalry" in x.message) for x in problems] == [("17.4", True)]


def test_status_shows_the_pool_and_the_refits(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game", EXCHANGE_SCENARIO, "pm-rwr", {"ruleset": "full"}, soviet_policy="fewest-steps-first")
    out = run(["status", g.state_path]).output
    assert "German replacement pool (8.15): 28 of 28 steps" in out and "Refits made (8.20): none" in out
    js = run(["status", g.state_path, "--json"]).output
    assert '"counters"' in js and "28 of 28" in js
    tpl = run(["template", g.state_path, "--side", "german"]).output
    assert "# RWR phase (8.13-8.20)" in tpl and "# [rwr]" in tpl
    assert "German replacement pool (8.15): 28 of 28 steps" in run(["show", g.state_path]).output
