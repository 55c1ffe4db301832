"""Politics (section 9) and conquest (10.0, NOT IN SOURCE: the provisional chart ``conquest``): the
parts clearer as unit tests than as catalog cases."""

from __future__ import annotations

import copy
from typing import Any

from pbem.games.europe_engulfed import politics
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed


def _ctx(scenario: str = "1939", turn: str = "1939-sep", side: str = "axis",
         units: dict[str, dict[str, Any]] | None = None) -> Ctx:
    state = EuropeEngulfed().new_game(scenario, {})
    if units is not None:
        state["position"]["units"] = copy.deepcopy(units)
    state.update({"pbem": {"scenario": scenario}, "clock": {"turn": turn, "side": side, "phase": "move"},
                  "parties": {"axis": {}, "allies": {}, "referee": {}}})
    return context(state)


def test_conquest_needs_every_listed_area_held_by_a_side_at_war() -> None:
    """10.0 (provisional): Poland falls when the Axis, at war with it, holds Warsaw and Krakow."""
    ctx = _ctx(units={})
    assert not politics.conquered(ctx, "poland")
    ctx.control["warsaw"] = "axis"
    assert not politics.conquered(ctx, "poland")  # Krakow still Polish
    ctx.control["krakow"] = "axis"
    assert politics.conqueror(ctx, "poland") == "axis"
    assert politics.conquered(ctx, "poland")
    assert not politics.conquered(ctx, "usa")  # listed with no area: never conquered
    assert not politics.conquered(ctx, "sweden")  # neutral, nobody at war with it


def test_conquest_is_recorded_at_the_end_of_the_phase_and_starts_the_pact() -> None:
    """I.D: Germany conquers Poland -> the Nazi-Soviet Pact (9.25), with an event each."""
    ctx = _ctx(units={})
    ctx.control["warsaw"] = ctx.control["krakow"] = "axis"
    politics.end_phase(ctx, "1.23")
    assert ctx.pos["politics"]["conquered"] == {"poland": "axis"}
    assert ctx.pos["politics"]["pact"] is True
    kinds = [(e.kind, e.rule) for e in ctx.events]
    assert ("nation-conquered", "10.0") in kinds and ("pact", "9.25") in kinds
    assert [e for e in ctx.events if e.kind == "nation-conquered"][0].data["provisional"] is True
    ctx.control["warsaw"] = "allies"
    assert politics.conquered(ctx, "poland")  # a conquest stays
    n = len(ctx.events)
    politics.end_phase(ctx, "1.24")
    assert len(ctx.events) == n  # recorded once
