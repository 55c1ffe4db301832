"""Strategic warfare (2.0-2.3, J-3): the parts clearer as unit tests than as catalog cases
(EE-500..EE-539 show the rules on played steps)."""

from __future__ import annotations

import copy
from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import strategic
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from pbem.mechanics.dice import ForcedDice, SeededDice

TRACK = {"fighters": {"axis": 10, "allies": 8}, "bombers": {"axis": 4, "allies": 3}, "uboats": 22, "asw": 2,
         "flak": {"germany": 2, "britain": 2}}


def _ctx(turn: str = "1941-may", side: str = "allies", assets: dict[str, Any] | None = None,
         standing: dict[str, Any] | None = None, dice: Any = None, scenario: str = "1941-barbarossa") -> Ctx:
    state = EuropeEngulfed().new_game(scenario, {})
    state["position"]["assets"] = copy.deepcopy(assets if assets is not None else TRACK)
    state.update({"pbem": {"scenario": scenario}, "clock": {"turn": turn, "side": side, "phase": "move"},
                  "parties": {"axis": {}, "allies": {}, "referee": {}}, "standing": standing or {}})
    return context(state, dice)


def test_hits_are_counted_before_exchanges() -> None:
    """2.24: a face at or above the hit number is a hit, one between the exchange and hit numbers an
    exchange; with no exchange number nothing is an exchange."""
    assert strategic._score([6, 5, 5, 4, 1], 6, 5) == (1, 2)
    assert strategic._score([6, 5, 5, 4, 1], 5, 0) == (3, 0)
    assert strategic._score([6, 6, 1], 0, 6) == (0, 2)


def test_the_period_rows_change_by_turn_and_for_the_allies_only() -> None:
    """2.24 (T-4): the 1943 and 1944 rows apply from their turn on, and to Allied raids only."""
    rows = list(_ctx().sc.charts["t4_air_war"]["escorts_vs_interceptors"])
    assert strategic._period(_ctx("1943-nov"), rows, "allied")["from"] == "1939"
    assert strategic._period(_ctx("1944-jan"), rows, "allied")["from"] == "1944-jan"
    assert strategic._period(_ctx("1944-jan"), rows, "german")["from"] == "1939"


def test_damage_never_takes_more_than_the_wer_ps_produced() -> None:
    """4.1: strategic damage comes off that turn's WERPs and never carries over: a line never below
    nothing at all."""
    ctx = _ctx()
    ctx.pos["strategic"] = {"turn": "1941-may", "damage": {"britain": 30}, "strat": {}, "west": {}}
    assert strategic.damage_line(ctx, "britain", 24) == [
        {"what": "strategic warfare damage (30 inflicted, only 24 to take)", "werps": -24, "rule": "2.0, 1.22"}]
    assert strategic.damage_line(ctx, "germany", 30) == []


def test_last_turns_results_are_not_read() -> None:
    """4.1, 2.13, 2.25: the record of another turn changes neither WERPs nor strat-moves."""
    ctx = _ctx("1941-jul")
    ctx.pos["strategic"] = {"turn": "1941-may", "damage": {"britain": 3}, "strat": {"britain": -2}, "west": {}}
    assert strategic.damage(ctx, "britain") == 0
    assert strategic.strat_modifier(ctx, "britain") == 0


def test_the_west_modifier_counts_only_for_moves_touching_the_west_zone() -> None:
    """2.27, A-09: the diverted raid's cut is taken only by moves through the West zone (option
    diversion_scope = west), by every move with diversion_scope = all."""
    ctx = _ctx("1944-jul", "axis", scenario="1939")
    ctx.pos["strategic"] = {"turn": "1944-jul", "damage": {}, "strat": {"germany": -2}, "west": {"germany": -4}}
    assert strategic.strat_modifier(ctx, "germany") == -2
    assert strategic.strat_modifier(ctx, "germany", west=True) == -6
    ctx.options["diversion_scope"] = "all"
    assert strategic.strat_modifier(ctx, "germany") == -6


def test_a_launch_order_above_the_points_held_launches_them_all() -> None:
    """2.28: at least half (rounded up), at most every point held."""
    ctx = _ctx("1944-sep", "allies", assets={**TRACK, "uboats": 0, "bombers": {"axis": 0, "allies": 0}, "v2": 2},
               standing={"axis": {"strategic": {"v2": 9}}}, dice=ForcedDice(in_order=[5, 5]), scenario="1939")
    ctx.pos["control"]["netherlands"] = "axis"
    strategic.begin_production(ctx)
    (ev,) = [e for e in ctx.events if e.kind == "v-weapons"]
    assert ev.data["launched"] == 2 and ev.data["werps"] == 4 and ctx.pos["assets"]["v2"] == 0


def test_the_same_seed_gives_the_same_raid() -> None:
    """Determinism: the dice come from the committed seed, so a replay makes the same raid."""
    standing = {"allies": {"strategic": {"bomb": True}}}
    out = []
    for _ in range(2):
        ctx = _ctx("1941-may", "axis", standing=standing, dice=SeededDice(seed=b"\x01" * 32))
        strategic.begin_production(ctx)
        out.append((ctx.pos["strategic"], ctx.pos["assets"], [e.data for e in ctx.events]))
    assert out[0] == out[1]
    assert any(e["raider"] == "allied" for e in out[0][2] if "raider" in e)


def test_standing_instructions_are_checked() -> None:
    """J-3 (a): an unknown key, an interception policy that is none of the three, a negative launch
    count are problems of the file, each with where it is and the rule."""
    problems: list[Problem] = []
    body = {"standing": {"strategic": {"bomb": "yes", "intercept": "sometimes", "v1": -1, "raid": True}}}
    strategic.check(_ctx(), body, problems)
    got = sorted((p.where, p.rule) for p in problems)
    assert got == [("standing.strategic.bomb", "2.2"), ("standing.strategic.intercept", "2.22a"),
                   ("standing.strategic.raid", "J-3"), ("standing.strategic.v1", "2.28")]
