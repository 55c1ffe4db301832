"""The Soviet Movement Phase's activations (15.1, 15.12, 15.14, 15.16; adjudication model 6.6).

The Soviet player sends the moves of every formation at once (option activation = "plans"): the
adjudicator draws the formation markers from the cup one at a time onto the lowest empty box of
the Activation Track, makes the moves of the drawn formation's units (and of the independent
units that move with it), then rolls two dice and adds the turn modifier: a total at or below the
box's number ends the phase (15.1 step 4); otherwise the next marker is drawn. An empty cup ends
the phase too (A-71). A move whose units' formation is never drawn is not made (15.1, 15.12); a
move that earlier moves made illegal is skipped with its reason (6.6).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event

from . import movement
from .context import Ctx
from .data import REINFORCEMENTS, SOVIET


def formation_of(ctx: Ctx, move: dict[str, Any]) -> str:
    """The formation whose activation makes a move: its units' formation; "" for a move of
    independent units only (15.12), which moves with the first activation or the one it names
    (``with``)."""
    forms = {ctx.spec(u).formation for u in move.get("units", [])} - {""}
    if forms:
        return sorted(forms)[0]
    return str(move.get("with", ""))


def in_play(ctx: Ctx, formation: str) -> bool:
    """15.1 step 1, 15.16, 15.4: a formation with a unit on the map or arriving this turn, not
    withdrawn."""
    if formation in ctx.pos.get("activation", {}).get("out", []):
        return False
    for u in ctx.sc.units:
        spec = ctx.spec(u)
        if spec.side != SOVIET or spec.formation != formation:
            continue
        if ctx.on_map(u):
            return True
        r = ctx.sc.reinforcements.get(u)
        if ctx.at(u) == REINFORCEMENTS and r is not None and r.turn <= ctx.turn:
            return True
    return False


def cup(ctx: Ctx) -> list[str]:
    """15.1 step 1: the markers put in the cup; 15.14: not the reserve division's on a daytime turn."""
    act = ctx.pos.setdefault("activation", {})
    reserve = str(act.get("reserve", ""))
    out = []
    for f in ctx.sc.formations:
        if not in_play(ctx, f):
            continue
        if f == reserve and not ctx.night:
            continue
        out.append(f)
    return out


def phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """15.1: the activation loop over the Soviet moves of ``body``."""
    act = ctx.pos.setdefault("activation", {})
    left = cup(ctx)
    act["track"] = []
    moves = list(enumerate(body.get("move", [])))
    by_formation: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for i, m in moves:
        by_formation.setdefault(formation_of(ctx, m), []).append((i, m))
    boxes = ctx.sc.charts.activation.boxes
    mod = ctx.sc.charts.activation.modifier[ctx.time.tod]
    ctx.emit("activation-cup", "15.1", formations=list(left), reserve_withheld=bool(act.get("reserve")) and not ctx.night)
    first = True
    while left:
        box = len(act["track"]) + 1
        # one marker left: it is drawn without a die
        k = ctx.dice.roll(f"activation T{ctx.turn} box {box}", len(left)) if ctx.dice and len(left) > 1 else 1
        drawn = left.pop(k - 1)
        act["track"].append(drawn)
        ctx.emit("activated", "15.1", formation=drawn, box=box, draw=k, of=len(left) + 1)
        todo = list(by_formation.pop(drawn, []))
        if first:
            todo += by_formation.pop("", [])
            first = False
        todo.sort(key=lambda im: (not im[1].get("strategic", False), im[0]))  # 5.22: strategic moves first
        movement.make_moves(ctx, todo)
        if box > len(boxes):
            ctx.emit("activation-end", "15.1", box=box, why="the last box of the track")
            break
        dice = ctx.roll(f"activation T{ctx.turn} end {box}", 2)
        total = sum(dice) + mod
        ends = total <= boxes[box - 1]
        ctx.emit("activation-roll", "15.1", box=box, number=boxes[box - 1], dice=dice, modifier=mod, total=total,
                 ends=ends, provisional=ctx.sc.charts.activation.provisional)
        if ends:
            break
    else:
        ctx.emit("activation-end", "15.1", box=len(act["track"]), why="the cup is empty (A-71)")
    for f, ms in sorted(by_formation.items()):
        for i, m in ms:
            independent = not {ctx.spec(u).formation for u in m.get("units", []) if u in ctx.sc.units} - {""}
            ctx.emit("move-skipped", "15.12" if independent else "15.1", index=i, units=list(m.get("units", [])),
                     why=f"{f or 'the formation named'} was not activated this turn" if f else "no formation was activated")


def _cup(e: Event) -> list[str]:
    d = e.data
    if d.get("unseen"):  # a refereed game's Axis report: neither which nor how many (15.14)
        return [f"- The referee puts the Soviet formation markers in the cup ({e.rule})."]
    held = " (the reserve division's marker is held back on a daytime turn, 15.14)" if d.get("reserve_withheld") else ""
    return [f"- The Soviet formation markers in the cup ({e.rule}): {', '.join(d['formations']) or 'none'}{held}."]


def _activated(e: Event) -> list[str]:
    d = e.data
    drawn = f"marker {d['draw']} of {d['of']} in the cup, " if "draw" in d else ""
    return [f"- Box {d['box']} of the Activation Track: {d['formation']} is drawn ({drawn}{e.rule}); its units move, "
            "with the independent units that move with it (15.12)."]


def _roll(e: Event) -> list[str]:
    d = e.data
    mod = f" {'+' if d['modifier'] >= 0 else '-'} {abs(d['modifier'])} (turn modifier)"
    verdict = "at or below it: the Soviet Movement Phase ends" if d["ends"] else "above it: the next marker is drawn"
    return [f"- Activation roll after box {d['box']} ({e.rule}): {d['dice'][0]} + {d['dice'][1]}{mod} = {d['total']} "
            f"against the box's {d['number']}, {verdict}."]


def _end(e: Event) -> list[str]:
    return [f"- The Soviet Movement Phase ends after box {e.data['box']}: {e.data['why']} ({e.rule})."]


RENDER = {"activation-cup": _cup, "activated": _activated, "activation-roll": _roll, "activation-end": _end}
