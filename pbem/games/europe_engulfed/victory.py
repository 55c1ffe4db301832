"""Provisional victory (the victory conditions are NOT IN SOURCE, digest Part VI; supplement S2.5)."""

from __future__ import annotations

from .context import Ctx
from .data import ALLIES, AXIS


def victory_points(ctx: Ctx) -> dict[str, int]:
    """Provisional victory points (the victory conditions are NOT IN SOURCE, Part VI): each side
    scores the WERPs of the resource areas it controls (4.14) and 5 for each enemy capital it
    controls; replaceable by an owner of the game."""
    vp = {AXIS: 0, ALLIES: 0}
    for a, side in ctx.control.items():
        if side not in vp:
            continue
        ar = ctx.sc.map.areas.get(a)
        if ar is None:
            continue
        vp[side] += ar.resource
        if ar.capital and ar.capital in ctx.sc.units.nations and ctx.side_of_nation(ar.capital) != side:
            vp[side] += 5
    return vp
