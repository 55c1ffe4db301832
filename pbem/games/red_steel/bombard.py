"""Bombardment (8.x): artillery, aircraft (16.x) and river monitors (17.52) against spotted hexes.

Readings (options.py): A-11 (option bombardment) where it falls; A-34 (option spotting) what
spots at two hexes; A-35 one artillery bombardment of a hex a phase, each artillery unit firing
once a phase (A-60: one mission, bombardment or support), several air bombardments of a hex
allowed; A-23 the target's size in battalions, fractions dropped, at least 1; A-54 the aircraft's
road shift toward stronger effects. A bombardment's strength is the artillery's attack support
value (11.1), with no cap (8.0); its column is shifted for the target's size (8.2 step 3), the
terrain (TEC `bombard` of the row 9.17 picks) and an entrenchment (17.2); the owner of the target
takes the step losses as in 9.3 (its standing ``losses``), from any of its units there.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.odds import Shift

from .combat import (
    apply_losses,
    artillery_problem,
    entrenched,
    fire,
    mission_problems,
    support_value,
    take_losses,
    terrain_row,
)
from .context import DEMORALIZED, DISRUPTED, Ctx, other
from .data import AXIS

KEYS = ("bombard", "air")


def spotted(ctx: Ctx, target: str, side: str) -> str:
    """8.1, A-34: '' when ``side`` spots ``target``, else why not: a unit adjacent; by day also a
    unit two hexes away when the target is not a town or city and one hex between (option
    spotting: every hex between) is not one either."""
    mine = {ctx.at(u) for u in ctx.side_units(side)}
    if any(ctx.adjacent(h, target) for h in mine):
        return ""
    if ctx.night:
        return f"no unit of yours is adjacent to {target}, and at night only adjacent units spot"
    if ctx.sc.map.hex(target).urban:
        return f"no unit of yours is adjacent to {target}, a town or city"
    near = [h for h in mine if ctx.distance(h, target) == 2]
    need = all if ctx.option("spotting") == "all" else any
    for h in near:
        between = [n for n in ctx.neighbours(h) if ctx.adjacent(n, target)]
        if need(not ctx.sc.map.hex(n).urban for n in between):
            return ""
    return f"no unit of yours is adjacent to {target} or two hexes from it with open ground between"


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """8.1, 11.2, 11.3, 15.11, 16.1-16.3: the [[bombard]] and [[air]] orders."""
    side = ctx.side
    seen_t: dict[str, int] = {}
    seen_u: dict[str, str] = {}
    for i, b in enumerate(body.get("bombard", [])):
        w = f"bombard[{i}]"
        t = str(b["target"])
        if ctx.sc.map.grid.place(t) is None:
            problems.append(Problem(f"{w}.target", f"{t} is not a hex of the map", "2.3"))
            continue
        if ctx.holder(t) != other(side):
            problems.append(Problem(f"{w}.target", f"{t} holds no enemy unit", "8.0"))
        else:
            why = spotted(ctx, t, side)
            if why:
                problems.append(Problem(f"{w}.target", f"{t} is not spotted: {why}", "8.1"))
        if t in seen_t:
            problems.append(Problem(f"{w}.target", f"{t} is bombarded by bombard[{seen_t[t]}] already: one artillery bombardment of a hex a phase (A-35)", "8.2"))
        seen_t.setdefault(t, i)
        for j, u in enumerate(b["units"]):
            mission_problems(ctx, u, t, "bombard", f"{w}.units[{j}]", w, seen_u, problems)
    used: dict[str, int] = {}
    drawn = list(ctx.pos.get("aircraft", {}).get("drawn", []))
    spent = list(ctx.pos.get("aircraft", {}).get("used", []))
    for i, a in enumerate(body.get("air", [])):
        w = f"air[{i}]"
        p = str(a["aircraft"])
        t = str(a["target"])
        if side != AXIS:
            problems.append(Problem(w, "only the Axis has aircraft, in its own player turn (A-78)", "16.1"))
            continue
        if ctx.night:
            problems.append(Problem(w, "aircraft bombard only in daytime turns", "16.1"))
        if p not in ctx.sc.aircraft:
            problems.append(Problem(f"{w}.aircraft", f"{p} is not an aircraft of the scenario", "16.0"))
        elif p not in drawn and not ctx.pos.get("aircraft", {}).get("hidden"):  # hidden: a claim, checked when opened (16.0)
            problems.append(Problem(f"{w}.aircraft", f"{p} was not drawn today", "16.0"))
        elif p in spent:
            problems.append(Problem(f"{w}.aircraft", f"{p} has bombarded already today and is back in the cup", "16.1"))
        elif p in used:
            problems.append(Problem(f"{w}.aircraft", f"{p} bombards in air[{used[p]}] already: an aircraft bombards once", "16.1"))
        used.setdefault(p, i)
        if ctx.sc.map.grid.place(t) is None:
            problems.append(Problem(f"{w}.target", f"{t} is not a hex of the map", "2.3"))
        elif ctx.holder(t) != other(side):
            problems.append(Problem(f"{w}.target", f"{t} holds no enemy unit", "8.0"))


def target_size(ctx: Ctx, units: list[str]) -> tuple[Fraction, int]:
    """8.2 step 3, T3, 6.5, A-23: the target's battalion-equivalents and the size used (fractions
    dropped, at least 1)."""
    total = sum((ctx.spec(u).target_value(int(ctx.units[u].get("lost", 0))) for u in units), Fraction(0))
    return total, max(1, int(total))


def _shifts(ctx: Ctx, t: str, side_hit: str, size: int) -> list[Shift]:
    table = ctx.sc.charts.bombard
    out = []
    keys = sorted(table.size_shift)
    if keys:
        k = max((x for x in keys if x <= size), default=keys[0])
        if table.size_shift[k]:
            out.append(Shift(table.size_shift[k], "8.2", f"a target of {size} battalion(s)"))
    row = terrain_row(ctx, t)
    if row.bombard:
        out.append(Shift(row.bombard, "8.2", f"terrain: {row.name}"))
    if entrenched(ctx, t, side_hit) and ctx.sc.charts.tec.entrench_bombard:
        out.append(Shift(ctx.sc.charts.tec.entrench_bombard, "17.2", "an entrenchment"))
    return out


def _road_hex(ctx: Ctx, h: str) -> bool:
    return any(f in ctx.features(h, n) for n in ctx.neighbours(h) for f in ("road", "main-road"))


def _strike(ctx: Ctx, kind: str, t: str, strength: int, extra: list[Shift], label: str, data: dict[str, Any]) -> None:
    """8.2 steps 2-5: the column, the dice and the result on the target's units."""
    table = ctx.sc.charts.bombard
    enemy = other(ctx.side)
    units = [u for u in ctx.units_in(t) if ctx.side_of(u) == enemy]
    raw, size = target_size(ctx, units)
    shifts = _shifts(ctx, t, enemy, size) + extra
    base = table.column(strength)
    col = base + sum(s.columns for s in shifts)
    clamped = max(0, min(len(table.columns) - 1, col))
    dice = ctx.roll(label, 2)
    total = sum(dice)
    res = table.rows[total][clamped]
    n = int(res.defender or 0)
    took = take_losses(ctx, enemy, units, n, "8.2", "bombardment") if n else []
    ctx.emit(kind, "8.2", target=t, **data, strength=strength, units_hit=units, size=str(raw), size_used=size,
             column=table.columns[max(0, base)], shifts=[{"columns": s.columns, "rule": s.rule, "reason": s.reason} for s in shifts],
             final_column=table.columns[clamped], clamped=clamped != col, dice=dice, total=total,
             result=res.label.split("/")[1], losses=took, provisional=table.provisional)
    for x in took:
        if ctx.spec(x["unit"]).type == "monitor":  # 17.52: a step lost on the Bombardment Table destroys a monitor
            ctx.eliminate(x["unit"], "17.52", "a river monitor that loses a step on the Bombardment Table")
    apply_losses(ctx, [x for x in took if ctx.on_map(x["unit"])], "8.2", "bombardment")
    if res.defender_mark:
        for u in units:
            if ctx.on_map(u):
                ctx.disrupt(u, DEMORALIZED if res.defender_mark == "Z" else DISRUPTED, "8.2")


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """8.2: each bombardment resolved on the Bombardment Table (orders no longer possible are
    skipped, with the reason); then each air bombardment (16.1-16.5)."""
    side = ctx.side
    for b in body.get("bombard", []):
        t = str(b["target"])
        if ctx.holder(t) != other(side):
            ctx.emit("bombardment-skipped", "8.0", target=t, why="the hex holds no enemy unit now")
            continue
        why = spotted(ctx, t, side)
        if why:
            ctx.emit("bombardment-skipped", "8.1", target=t, why=why)
            continue
        fired, skipped = [], []
        for u in b["units"]:
            bad, rule = artillery_problem(ctx, u, side, t, "bombard")
            if bad or ctx.flagged(u, "fired"):
                skipped.append({"unit": u, "why": bad or "it fired already this phase", "rule": rule or "11.1"})
            else:
                fired.append({"unit": u, "value": support_value(ctx, u, True)})
        if not fired:
            ctx.emit("bombardment-skipped", "11.2", target=t, why="no artillery can fire", skipped=skipped)
            continue
        for f in fired:
            fire(ctx, f["unit"], True)
        _strike(ctx, "bombardment", t, sum(f["value"] for f in fired), [], f"bombard T{ctx.turn} {t}",
                {"artillery": fired, "skipped": skipped})
    for a in body.get("air", []):
        p, t = str(a["aircraft"]), str(a["target"])
        if ctx.holder(t) != other(side):
            ctx.emit("bombardment-skipped", "8.0", target=t, why="the hex holds no enemy unit now", aircraft=p)
            continue
        extra = []
        if _road_hex(ctx, t) and not ctx.sc.map.hex(t).urban:
            extra.append(Shift(ctx.sc.charts.bombard.air_road_shift, "16.5", "a road hex without a town or city (A-54, A-79)"))
        air = ctx.pos.setdefault("aircraft", {"drawn": [], "used": []})
        used = air.setdefault("used", [])
        used.append(p)
        used.sort()
        if air.get("hidden"):  # 16.0: the draw is the Axis's secret; the aircraft it flies are claims on it
            ctx.claims.append((AXIS, str(air["item"]), {"flew": p, "turn": ctx.turn}))
        _strike(ctx, "air", t, ctx.sc.aircraft[p], extra, f"air T{ctx.turn} {p}", {"aircraft": p})


def _line(e: Event) -> list[str]:
    d = e.data
    if e.kind == "air":
        who = f"aircraft {d['aircraft']}, strength {d['strength']} (16.1, 16.3)"
        head = f"- Air bombardment of {d['target']} by {who}"
    else:
        arts = ", ".join(f"{x['unit']} {x['value']}" for x in d["artillery"])
        head = f"- Bombardment of {d['target']} (8.2) by {arts} = {d['strength']}, no cap (8.0)"
    shifts = "; ".join(f"{'+' if s['columns'] > 0 else ''}{s['columns']} {s['reason']} ({s['rule']})" for s in d["shifts"]) or "none"
    res = d["result"] if d["result"] not in ("0", "-") else "no effect"
    lines = [f"{head}: the column of {d['column']} or more; target {', '.join(d['units_hit'])} of {d['size']} battalion(s), "
             f"counted as {d['size_used']} (8.2, A-23); shifts: {shifts}; the column of {d['final_column']}"
             + (" (the table's end)" if d["clamped"] else "")
             + f"; dice {d['dice'][0]} + {d['dice'][1]} = {d['total']}: {res}."]
    for x in d.get("skipped", []):
        lines.append(f"  - {x['unit']} does not fire: {x['why']} ({x['rule']}).")
    if d["losses"]:
        lines.append("  - Losses (9.3 as the owner's choice, A-35): " + ", ".join(f"{x['unit']} {x['steps']} step(s)" for x in d["losses"]) + ".")
    return lines


def _skipped(e: Event) -> list[str]:
    d = e.data
    return [f"- Bombardment of {d['target']} not made: {d['why']} ({e.rule})."]


RENDER = {"bombardment": _line, "air": _line, "bombardment-skipped": _skipped}
