"""The end of a player turn (13.3-13.32: recovery) and of a game turn (3.4).

13.3, 13.31, A-69: the phasing side's disrupted or demoralized units that are not adjacent to an
enemy unit and neither moved nor attacked this player turn (flags ``moved``, ``attacked``) recover
one level (13.32: demoralized -> disrupted -> none). Units next to the enemy rolled at the end of
the Combat Phase (13.31, combat.py). Then constructions whose builder moved stop (17.21, 17.41),
the Axis AM turn's unused Romanian replacement steps are lost (A-65, unless replacements_carry) and
the player turn's flags are cleared (``replaced`` at the end of the AM Axis player turn, 12.21;
``no-move`` after the Movement Phase it stopped, 17.44).
"""

from __future__ import annotations

from pbem.engine.model import Event

from . import engineer
from .context import DEMORALIZED, DISRUPTED, Ctx
from .data import AXIS

TURN_FLAGS = ("moved", "strategic", "attacked", "forded", "fired", "class-mot", "class-foot", "entered", "activated",
              "replaced", "no-move", "tank-checked")  # 15.22: a tank's breakdown check, once a Movement Phase


def recovery(ctx: Ctx) -> None:
    """13.3, 13.31, 13.32: automatic recovery away from the enemy."""
    for u in ctx.side_units(ctx.side):
        cur = ctx.status(u)
        if cur not in (DISRUPTED, DEMORALIZED):
            continue
        if ctx.flagged(u, "moved") or ctx.flagged(u, "attacked"):
            continue
        h = ctx.at(u)
        if any(ctx.holder(n) not in (None, ctx.side) for n in ctx.neighbours(h)):
            continue
        if cur == DEMORALIZED:
            ctx.units[u]["status"] = DISRUPTED
        else:
            ctx.units[u].pop("status", None)
        ctx.emit("recovery", "13.31", unit=u, was=cur, now=DISRUPTED if cur == DEMORALIZED else "")


def end_player_turn(ctx: Ctx) -> None:
    """13.31: disrupted or demoralized units of the phasing side not adjacent to an enemy unit that
    neither moved nor attacked recover one level (13.32); constructions of movers stop; the player
    turn's flags are cleared."""
    recovery(ctx)
    engineer.stop_moved(ctx)
    if ctx.side == AXIS and ctx.time.tod == "am" and not ctx.option("replacements_carry"):
        left = int(ctx.pos.get("replacements", 0))
        if left:
            ctx.pos["replacements"] = 0
            ctx.emit("replacements-lost", "A-65", steps=left)
    for u in ctx.side_units(ctx.side):
        fl = ctx.units[u].get("flags")
        if not fl:
            continue
        kept = [f for f in fl if f not in TURN_FLAGS]
        if kept:
            ctx.units[u]["flags"] = kept
        else:
            ctx.units[u].pop("flags")
    ctx.changed()


def _recovery(e: Event) -> list[str]:
    d = e.data
    now = "disrupted" if d["now"] else "in good order again"
    return [f"- {d['unit']} recovers from being {d['was']}: it is {now} (not adjacent to an enemy unit, it neither moved nor "
            f"attacked; {e.rule}, 13.3, 13.32)."]


def _lost(e: Event) -> list[str]:
    return [f"- {e.data['steps']} Romanian replacement step(s) not used this AM turn are lost ({e.rule}, 12.2)."]


RENDER = {"recovery": _recovery, "replacements-lost": _lost}
