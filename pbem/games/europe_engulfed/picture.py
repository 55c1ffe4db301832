"""Pictures of Europe Engulfed: the area map (pbem.view.areamap) with the blocks of each side by
area, coloured by control, contested areas marked; the moves and battles of a step."""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.view.areamap import area_map_svg

from .context import context
from .render import unit_text


def position_svg(state: dict[str, Any], title: str = "") -> str:
    """The whole map with every block as its reader knows it (stub: the shared area-map drawing)."""
    ctx = context(state)
    stacks: dict[str, list[str]] = {}
    for u in sorted(ctx.units):
        stacks.setdefault(ctx.at(u), []).append(unit_text(u, ctx.units[u]))
    return area_map_svg(ctx.sc.map.places, stacks, title=title or ctx.sc.title)


def turn_svg(state: dict[str, Any], events: list[Event], title: str) -> str:
    """The position after a step with its moves and battles (stub: the position)."""
    return position_svg(state, title)
