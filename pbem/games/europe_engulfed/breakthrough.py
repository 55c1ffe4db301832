"""Breakthrough phases (1.26, 5.4, 6.7, 7.4): after the initial combat phase the phasing player
may buy, one at a time and in any order (6.73), breakthrough phases with special actions:

- a breakthrough combat round in one area (6.71, 6.72): one SA of each major power that attacks;
  only their units attack, and the defender's hits go to their units only (A-65);
- a breakthrough operational movement phase (5.41-5.43): one SA; a designated area whose units
  may all move out, and armor, cavalry and GS within 2 areas of it may move 1 area into a
  friendly non-contested area adjacent to it (A-20); newly contested areas it makes are fought at
  once, free (6.73: in the next step, once the blocks there are opened, 6.24);
- a breakthrough strategic movement phase (5.44): one SA; a fresh allotment of strat-moves, sea
  transport not restored.

One step per breakthrough phase (``TURN/SIDE/breakthrough/N``): the file names the phase
(``[breakthrough] kind = "combat" | "move" | "strat" | "end"``) and, first, the types of the
compulsory combats the last breakthrough movement made (``[[battle]]``).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import combat, movement
from .context import OOS, OOS_MOVED, Ctx

KEYS = ("breakthrough",)
NO_BREAKTHROUGH_WEATHER = frozenset({"mud", "light-mud"})  # 1.13, 1.14
REACH = frozenset({"armor", "cavalry"})  # 5.42: and GS markers
BREAK_OUT = frozenset({"armor", "cavalry", "airborne"})  # 5.43: break through from an enemy-occupied area at any strength


def side_nations(ctx: Ctx) -> list[str]:
    """The phasing side's nations holding special actions (7.1)."""
    return sorted(n for n in ctx.pos.get("sa", {}) if ctx.side_of_nation(n) == ctx.side)


def can_continue(ctx: Ctx, pending: dict[str, Any] | None = None) -> bool:
    """1.26: another breakthrough phase may follow while the side holds an SA beyond the ones its
    standing instructions keep (``sa_reserve``), or while combats a breakthrough movement made are
    still to be fought (6.73)."""
    if pending and pending.get("battles"):
        return True
    keep = int(ctx.standing.get(ctx.side, {}).get("sa_reserve", 0))
    return sum(ctx.sa(n) for n in side_nations(ctx)) > keep


def _paying(ctx: Ctx, bt: dict[str, Any]) -> list[str]:
    """The nations that spend an SA for the phase: those named, else (a movement phase) the
    nation of the first block moved, or its side's major power holding most SAs."""
    named = [str(n) for n in bt.get("nations", [])]
    if named:
        return named
    if bt.get("kind") == "combat":
        majors = sorted({ctx.nation(u) for u in ctx.side_in(str(bt.get("area", "")), ctx.side)
                         if ctx.sc.units.nations.get(ctx.nation(u)) is not None
                         and ctx.sc.units.nations[ctx.nation(u)].kind == "major"})
        return majors
    held = side_nations(ctx)
    return [max(held, key=lambda n: (ctx.sa(n), n))] if held else []


def check(ctx: Ctx, pending: dict[str, Any], body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of a breakthrough step's file: the compulsory combats given their types
    (6.73), then the phase bought (5.41-5.44, 6.71, 6.72)."""
    due = [str(a) for a in pending.get("battles", [])]
    given = [dict(b) for b in body.get("battle", [])]
    areas = [str(b.get("area")) for b in given]
    for a in due:
        if a not in areas:
            problems.append(Problem("battle", f"{a} became contested in the last breakthrough movement phase: its combat is "
                                    "fought now, and the file gives its type ([[battle]] area, type)", "6.73"))
    for i, b in enumerate(given):
        if str(b.get("area")) not in due:
            problems.append(Problem(f"battle[{i}].area", f"{b.get('area')} is not a combat the last breakthrough movement made "
                                    f"({', '.join(due) or 'none'}); another combat is a breakthrough combat phase of its own", "6.71"))
        else:
            combat.check_battle(ctx, b, f"battle[{i}]", problems)
    bt = body.get("breakthrough")
    if not isinstance(bt, dict):
        if not due:
            problems.append(Problem("breakthrough", 'a breakthrough step names its phase: [breakthrough] kind = "combat", '
                                    '"move", "strat" or "end"', "1.26"))
        return
    kind = str(bt.get("kind"))
    if kind == "end":
        return
    paying = _paying(ctx, bt)
    if not paying:
        problems.append(Problem("breakthrough.nations", "no nation of yours holds a special action to pay for the phase", "1.26"))
    for n in paying:
        if ctx.side_of_nation(n) != ctx.side:
            problems.append(Problem("breakthrough.nations", f"{n} is not a nation of the {ctx.side}", "6.72"))
        elif ctx.sa(n) < 1:
            problems.append(Problem("breakthrough.nations", f"{n} holds no special action (7.1)", "1.26"))
    if kind == "combat":
        _check_combat(ctx, bt, paying, problems)
    elif kind == "move":
        _check_move(ctx, bt, problems)
    elif kind == "strat":
        if len(paying) > 1:
            problems.append(Problem("breakthrough.nations", "a breakthrough strategic movement phase is one SA of one nation", "5.44"))
        for n in paying:
            ctx.pos.setdefault("strat", {})[n] = 0  # 5.44: a fresh allotment of strat-moves (the context is a working copy)
        for i, m in enumerate(bt.get("strat", [])):
            for u in m.get("units", []):
                _movable(ctx, str(u), f"breakthrough.strat[{i}].units", problems)
            movement.strat_move(ctx, dict(m), f"breakthrough.strat[{i}]", problems, mode="breakthrough")


def _check_combat(ctx: Ctx, bt: dict[str, Any], paying: list[str], problems: list[Problem]) -> None:
    """6.71, 6.72: a breakthrough combat round in one contested area, each attacking major power
    paying its SA."""
    area = str(bt.get("area", ""))
    if area not in ctx.sc.map.areas:
        problems.append(Problem("breakthrough.area", f"'{area[:40]}' is not an area of the map", "6.72"))
        return
    if not ctx.contested(area):
        problems.append(Problem("breakthrough.area", f"{area} is not contested: there is nobody to fight there", "6.72"))
        return
    attackers = {ctx.nation(u) for u in ctx.side_in(area, ctx.side)} | set(ctx.side_gs(area, ctx.side))
    for n in paying:
        if n not in attackers:
            problems.append(Problem("breakthrough.nations", f"{n} has no unit in {area}", "6.72"))
    if "type" not in bt:
        problems.append(Problem("breakthrough.type", 'a combat round declares its type: "normal" or "assault"', "6.2"))
        return
    combat.check_battle(ctx, {"area": area, **{k: bt[k] for k in ("type", "air", "support") if k in bt}}, "breakthrough", problems)


def _movable(ctx: Ctx, u: str, where: str, problems: list[Problem]) -> bool:
    """5.41: who may never make breakthrough movement: OOS units (3.4), units in a swamp (5.15b),
    pinned infantry (5.17, A-18), Soviet units on sea supply (A-19), units in a Mud or Lt. Mud
    zone (1.13, 1.14)."""
    if u not in ctx.units:
        problems.append(Problem(where, f"{u} is not a block on the map", "5.41"))
        return False
    if ctx.side_of(u) != ctx.side:
        problems.append(Problem(where, f"{u} is not a block of the {ctx.side}", "5.41"))
        return False
    at = ctx.at(u)
    why = ""
    if ctx.units[u].get("oos") in (OOS, OOS_MOVED):
        why = "it is out of supply (3.4)"
    elif ctx.area(at).terrain == "swamp":
        why = "it is in a swamp (5.15b)"
    elif ctx.has_flag(u, "pinned"):
        why = "it entered an area with an enemy fortress this player-turn (5.17, A-18)"
    elif ctx.has_flag(u, "sea-supply") and ctx.nation(u) == "ussr" and ctx.option("sea_supply_pin") == "initial":
        why = "it was supplied across a sea zone at the initial supply determination (5.41, A-19)"
    elif ctx.weather(at) in NO_BREAKTHROUGH_WEATHER:
        why = f"its area's weather is {ctx.weather(at)} (1.13, 1.14)"
    if why:
        problems.append(Problem(where, f"{u} may not make breakthrough movement: {why}", "5.41"))
        return False
    return True


def _check_move(ctx: Ctx, bt: dict[str, Any], problems: list[Problem]) -> None:
    """5.42, 5.43: who may move in a breakthrough operational movement phase, then each move as an
    operational move (5.1)."""
    area = str(bt.get("area", ""))
    if area not in ctx.sc.map.areas or not ctx.area(area).ground:
        problems.append(Problem("breakthrough.area", f"'{area[:40]}' is not a land area of the map: a breakthrough movement "
                                "phase designates one", "5.42"))
        return
    if ctx.weather(area) in NO_BREAKTHROUGH_WEATHER:
        problems.append(Problem("breakthrough.area", f"{area}'s weather is {ctx.weather(area)}: no breakthrough movement there",
                                "1.13" if ctx.weather(area) == "mud" else "1.14"))
        return
    enemy_there = bool(ctx.side_in(area, "allies" if ctx.side == "axis" else "axis"))
    near = _within(ctx, area, 2)
    for i, m in enumerate(bt.get("moves", [])):
        w = f"breakthrough.moves[{i}]"
        if _who_moves(ctx, area, enemy_there, near, m, w, problems):
            movement.move_group(ctx, dict(m), w, problems, mode="breakthrough")


def _who_moves(ctx: Ctx, area: str, enemy_there: bool, near: set[str], m: dict[str, Any], w: str,
               problems: list[Problem]) -> bool:
    """5.41-5.43: whether the blocks of one breakthrough move may move (checking and resolving: a
    hidden block's type or steps are claimed, ctx.need)."""
    path = [str(a) for a in m.get("path", [])]
    units = [str(u) for u in m.get("units", [])]
    start = ctx.at(units[0]) if units and units[0] in ctx.units else str(m.get("from", ""))
    ok = True
    for j, u in enumerate(units):
        if not _movable(ctx, u, f"{w}.units[{j}]", problems):
            ok = False
            continue
        if ctx.at(u) != start:
            problems.append(Problem(f"{w}.units[{j}]", f"{u} is in {ctx.at(u)}, not with the group in {start}", "5.1"))
            ok = False
        elif start == area and enemy_there and ctx.kind(u) not in BREAK_OUT:
            # the area holds both sides: its blocks are opened in this step (6.24), known when it is resolved
            steps = ctx.steps(u)
            if steps is None:  # checking, before the opening: a claim that it is one of BREAK_OUT or has 3 steps
                ctx.claim(u, {"either": [{"types": sorted(BREAK_OUT)}, {"steps": ">=", "n": 3}], "rule": "5.43",
                              "why": f"broke through from {area}, which holds enemy units"})
            elif steps < 3:
                problems.append(Problem(f"{w}.units[{j}]", f"{u} is {ctx.kind(u)} with {steps} step(s) and {area} holds enemy "
                                        "units: infantry breaks through from there with 3 steps or more", "5.43"))
                ok = False
        elif start == area:
            pass
        elif start in near and ctx.option("breakthrough_reach") == "one-more":
            if not ctx.need(u, REACH, "5.42", f"moved 1 area toward the designated area {area} in a breakthrough"):
                problems.append(Problem(f"{w}.units[{j}]", f"{u} is not armor or cavalry: only those (and GS) within 2 "
                                        f"areas of {area} move toward it", "5.42"))
                ok = False
        else:
            problems.append(Problem(f"{w}.units[{j}]", f"{u} is in {start}: only units in the designated area {area}, and "
                                    "armor, cavalry and GS within 2 areas of it, move in this phase", "5.42"))
            ok = False
    if m.get("gs") and start != area and start not in near:
        problems.append(Problem(f"{w}.from", f"GS in {start} are more than 2 areas from {area}", "5.42"))
        ok = False
    if ok and start != area:
        if len(path) != 1:
            problems.append(Problem(f"{w}.path", f"from within 2 areas of {area} a unit moves 1 area", "5.42"))
            ok = False
        elif not (path[0] in ctx.neighbours(area) and ctx.friendly(path[0], ctx.side) and not ctx.contested(path[0])):
            problems.append(Problem(f"{w}.path[0]", f"{path[0]} is not a friendly, non-contested area adjacent to {area}",
                                    "5.42"))
            ok = False
    return ok


def _within(ctx: Ctx, area: str, n: int) -> set[str]:
    """The places within ``n`` areas of ``area`` over land borders (5.42), itself left out."""
    seen = {area}
    edge = {area}
    for _ in range(n):
        edge = {x for a in edge for x in ctx.neighbours(a)} - seen
        seen |= edge
    return seen - {area}


def resolve(ctx: Ctx, pending: dict[str, Any], body: dict[str, Any]) -> bool:
    """The compulsory combats of the last breakthrough movement (6.73, free), then the phase
    bought; returns False when the side ends its breakthrough phases."""
    for b in body.get("battle", []):
        ctx.emit("breakthrough-combat", "6.73", area=str(b["area"]), paid=False)
        combat.fight(ctx, dict(b), "6.73")
    pending["battles"] = []
    bt = body.get("breakthrough")
    if not isinstance(bt, dict) or bt.get("kind") == "end":
        ctx.emit("breakthrough-end", "1.26", side=ctx.side)
        return False
    kind = str(bt["kind"])
    paying = _paying(ctx, bt)
    for n in paying:
        ctx.spend_sa(n, "1.26", f"a breakthrough {'combat' if kind == 'combat' else 'movement'} phase")
    if kind == "combat":
        area = str(bt["area"])
        ctx.emit("breakthrough-combat", "6.72", area=area, paid=True, nations=paying)
        mark = len(ctx.events)
        combat.fight(ctx, {"area": area, **{k: bt[k] for k in ("type", "air", "support") if k in bt}}, "6.72", paying=paying)
        _refund_if_retreated(ctx, area, paying, mark)
    elif kind == "move":
        area = str(bt["area"])
        before = {a for a, v in ctx.pos.get("contested", {}).items()}
        ctx.emit("breakthrough-move", "5.42", area=area, nations=paying)
        enemy_there = bool(ctx.side_in(area, "allies" if ctx.side == "axis" else "axis"))
        near = _within(ctx, area, 2)
        for i, m in enumerate(bt.get("moves", [])):
            w = f"breakthrough.moves[{i}]"
            found: list[Problem] = []  # who may move, again on the resolved position: its claims recorded (5.42, 5.43)
            if _who_moves(ctx, area, enemy_there, near, dict(m), w, found):
                movement.move_group(ctx, dict(m), w, None, mode="breakthrough")
            else:
                ctx.emit("move-refused", found[0].rule, where=w, units=[str(u) for u in m.get("units", [])],
                         why=found[0].message)
        made = sorted(a for a in ctx.pos.get("contested", {}) if a not in before)
        if made:
            pending["battles"] = made
            ctx.emit("breakthrough-battles", "6.73", areas=made)
    else:
        for n in paying:
            ctx.pos.setdefault("strat", {})[n] = 0  # 5.44: a fresh allotment of strat-moves
        ctx.emit("breakthrough-strat", "5.44", nations=paying)
        for i, m in enumerate(bt.get("strat", [])):
            movement.strat_move(ctx, dict(m), f"breakthrough.strat[{i}]", None, mode="breakthrough")
    return True


def _refund_if_retreated(ctx: Ctx, area: str, paying: list[str], before: int) -> None:
    """7.51, A-73: when the defender retreated before combat from the area of a breakthrough
    combat round, the attacker's SAs stay spent (the digest's default); with option
    ``breakthrough_retreat_sa = "refunded"`` each is given back to the nation that spent it."""
    if ctx.option("breakthrough_retreat_sa") != "refunded":
        return
    retreated = any(e.kind == "retreat-before-combat" and e.data.get("area") == area and e.data.get("done")
                    for e in ctx.events[before:])
    if not retreated:
        return
    for n in paying:
        ctx.pos.setdefault("sa", {})[n] = ctx.sa(n) + 1
        ctx.emit("sa-refunded", "7.51", nation=n, area=area, held=ctx.sa(n))


def _refund(e: Event) -> list[str]:
    d = e.data
    return [f"- The defender retreated before combat from {d['area']}: {d['nation']}'s special action for the breakthrough "
            f"combat round is given back, {d['held']} held (7.51, A-73, option breakthrough_retreat_sa = refunded)."]


def _end(e: Event) -> list[str]:
    return [f"- The {e.data['side']} buy no more breakthrough phases ({e.rule})."]


def _combat(e: Event) -> list[str]:
    d = e.data
    if d["paid"]:
        return [f"- Breakthrough combat in {d['area']}, paid by {', '.join(d['nations'])} with a special action each ({e.rule})."]
    return [f"- {d['area']} became contested in the breakthrough movement: its combat is fought now, paid with the movement "
            f"phase ({e.rule})."]


def _move(e: Event) -> list[str]:
    return [f"- Breakthrough movement phase, designated area {e.data['area']}, paid by {', '.join(e.data['nations'])} ({e.rule})."]


def _battles(e: Event) -> list[str]:
    return [f"- Newly contested by the breakthrough movement: {', '.join(e.data['areas'])}; their combats are fought in the next "
            f"step, once the blocks there are revealed ({e.rule}, 6.24)."]


def _strat(e: Event) -> list[str]:
    return [f"- Breakthrough strategic movement phase for {', '.join(e.data['nations'])}: a fresh allotment of strat-moves, "
            f"sea transport not restored ({e.rule})."]


RENDER = {"breakthrough-end": _end, "breakthrough-combat": _combat, "breakthrough-move": _move,
          "breakthrough-battles": _battles, "breakthrough-strat": _strat, "sa-refunded": _refund}
