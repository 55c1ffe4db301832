"""The end of a player turn (13.3-13.32: recovery) and of a game turn (3.4)."""

from __future__ import annotations

from .context import Ctx

TURN_FLAGS = ("moved", "strategic", "attacked", "forded", "fired", "class-mot", "class-foot", "entered", "activated")


def end_player_turn(ctx: Ctx) -> None:
    """13.31: disrupted or demoralized units of the phasing side not adjacent to an enemy unit that
    neither moved nor attacked recover one level (13.32); the player turn's flags are cleared."""
    for u in ctx.side_units(ctx.side):
        fl = ctx.units[u].get("flags")
        if not fl:
            continue
        kept = [f for f in fl if f not in TURN_FLAGS]
        if kept:
            ctx.units[u]["flags"] = kept
        else:
            ctx.units[u].pop("flags")
