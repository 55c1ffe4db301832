"""German hedgehogs (14.40; option ``hedgehogs``, full game): their declaration on GT12, whether their
units may move (Ambiguity 48) and their loss. Their 2L is in combat/shifts.py; no attack from one
(combat/attacks.py), no retreat out of one (combat/retreat.py).
"""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx
from .places import path_of, problem, under

HEDGEHOG_TURNS = (12,)  # 14.40: the December game turns; the game has only GT12 (Ambiguity 3)
HEDGEHOG_SETTLEMENTS = ("town", "large_town", "city")  # 14.40


def in_hedgehog(ctx: Ctx, hex_id: str) -> bool:
    """14.40 (option hedgehogs): a German hedgehog is declared in the hex."""
    return bool(ctx.options.get("hedgehogs")) and hex_id in ctx.position.get("hedgehogs", [])


def german_nationals(ctx: Ctx, hex_id: str) -> list[str]:
    return [u for u in ctx.occupants(hex_id, "german") if ctx.spec(u).nat == "german"]


def declare_hedgehogs(ctx: Ctx, hexes: list[Any], problems: list[Problem]) -> None:
    """14.40: at the very start of each German movement phase of GT12 the German declares or cancels
    hedgehogs: `hedgehog` in his orders lists every hex that is to be a hedgehog from now on (a hex
    left out is cancelled; without the key the hedgehogs in force stay). Only a town, large town or
    city hex holding a German-nationality unit qualifies (Axis allies only stacked with one); supply
    and Soviet adjacency do not matter."""
    where = path_of("declare", "hedgehog")
    known = len(problems)
    if not ctx.options.get("hedgehogs"):
        problems.append(problem(where, "hedgehogs are a full-game rule (option hedgehogs is off)", "14.40"))
        return
    if ctx.side != "german":
        problems.append(problem(where, "only the German forms hedgehogs", "14.40"))
        return
    if ctx.turn not in HEDGEHOG_TURNS:
        problems.append(problem(where, f"hedgehogs are declared only in December game turns (GT12), not GT{ctx.turn}", "14.40"))
        return
    chosen: list[str] = []
    for j, raw in enumerate(hexes):
        w = under(where, j)
        h = ctx.sc.map.canonical(str(raw))
        if h is None:
            problems.append(problem(w, f"'{raw}' is not a hex of the map", "14.40"))
            continue
        spec = ctx.sc.map.hexes[h]
        if h in chosen:
            problems.append(problem(w, f"{h} is listed twice", "14.40"))
        elif spec.settlement not in HEDGEHOG_SETTLEMENTS:
            problems.append(problem(w, f"{h} is not a town, large town or city hex", "14.40"))
        elif not german_nationals(ctx, h):
            allies = ctx.occupants(h, "german")
            problems.append(problem(w, f"{h} holds no German-nationality unit" + (
                f" ({', '.join(allies)} cannot form a hedgehog on their own)" if allies else ""), "14.40"))
        else:
            chosen.append(h)
    if len(problems) > known:
        return
    before = list(ctx.position.get("hedgehogs", []))
    ctx.position["hedgehogs"] = sorted(chosen)
    ctx.emit("hedgehogs", "14.40", hexes=sorted(chosen), declared=sorted(set(chosen) - set(before)),
             cancelled=sorted(set(before) - set(chosen)), step=ctx.step)


def hedgehog_holds(ctx: Ctx, unit: str, start: str) -> bool:
    """Ambiguity 48: whether the hedgehog keeps ``unit`` from moving. 14.40 does not say whether units
    in a hedgehog may move. Option hedgehog_movement: "may-move" (the digest's reading) lets them
    move, and the hedgehog is lost when no German-nationality unit is left (check_hedgehogs);
    "stay" keeps a German-side unit that began the movement phase in a hedgehog hex (declared or
    kept at the very start of the phase) where it is for that phase. Units may still enter a
    hedgehog; the German who wants to move its units out cancels it at the start of the phase."""
    return (ctx.options.get("hedgehog_movement", "may-move") == "stay" and ctx.spec(unit).side == "german"
            and bool(start) and in_hedgehog(ctx, start))


def check_hedgehogs(ctx: Ctx, how: str) -> None:
    """Ambiguity 48: a hedgehog is lost as soon as no German-nationality unit remains in its hex."""
    if not ctx.options.get("hedgehogs") or not ctx.position.get("hedgehogs"):
        return
    lost = [h for h in ctx.position["hedgehogs"] if not german_nationals(ctx, h)]
    if lost:
        ctx.position["hedgehogs"] = [h for h in ctx.position["hedgehogs"] if h not in lost]
        ctx.emit("hedgehog-lost", "14.40", hexes=lost, how=how)
