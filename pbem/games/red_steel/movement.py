"""The Movement Phase (3.33): breakdown into companies (14.1), strategic movement first (5.2,
5.22), then tactical movement (5.1, 5.3) with zones of control (4.x), reinforcements (12.1),
towing and deploying artillery (5.64, 11.6), the Prut (5.5), river monitors (17.51), the events
of 1.3 (5.62, 7.7, 17.22, 17.42, 17.43, 17.6); at the end stacking (6.2), re-forming (14.2) and
empty entrenchments (17.23). Soviet tank breakdown (15.2) at the start of each tank's move.

A [[move]] gives the units (one unit, or a stack that starts in one hex) and ``path``, the hexes
entered in order (for reinforcements ``path[0]`` is the entry hex, paid as the first hex entered,
12.11). Options of a move: ``strategic`` (5.2), ``class`` (17.7 motorcycles: foot or mot, for the
whole phase, A-87), ``tow`` (11.6: switch to towed before moving, Towing Table cost), ``deploy``
(switch to deployed at the end; never in an enemy ZOC, 5.64), ``exit`` (15.4: the units of a
withdrawing division leave the map from the last hex of the path, an east or south edge hex; no
extra MP). ``path`` may be empty for a mode change in place.

One code path checks and makes a move (``plan`` then ``carry_out``): ``check`` plays the file on a
working copy without dice and reports every problem; ``make_moves`` plays it for real, and a move
that earlier moves made illegal (only possible for the Soviet's plans, 6.6) is skipped with a
``move-skipped`` event instead of failing.

Readings (digest section 5): the extra MP for entering / leaving an enemy ZOC from the TEC (A-15);
EZOC to EZOC only as a one-hex move that spends the whole MA (4.4, 5.4, A-16); a unit that has not
moved may always move one hex (5.63, A-22); strategic movement tests the hexes entered only
(A-18); reinforcements delayed while enemy units occupy the entry hex (option entry_delay, A-64);
isolation after the move that spent half or more of the MA (option isolation_spend, A-31); a hex
entered becomes the mover's (A-2); river monitors (17.51, A-85, simplified): up to 4 hexes, each
a hex on a Prut hexside, through ZOC, at no MP cost; excess units of an overstacked hex (6.2, A-24)
are eliminated in the order of the enemy's standing ``overstack`` list, then strongest first
(attack, defense, steps, id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from .context import DEMORALIZED, DEPLOYED, DISRUPTED, FULL_AMMO, ISOLATED, OOS, TOWED, Ctx, other
from .data import AXIS, BREAKDOWN_BOX, ELIMINATED, POOL, REINFORCEMENTS, REMOVED, SOVIET, WITHDRAWN

KEYS = ("breakdown", "move", "reform", "withdraw", "remove")
START_CONTROL = "movement_start_control"  # 5.22: control at the start of the phase (removed at its end)
STACK_LIMIT = 3  # 6.1: three battalions (and one HQ free)
MONITOR_HEXES = 4  # 17.51
GARRISON_RANGE = 3  # 17.6


@dataclass
class Plan:
    """A move found legal: what ``carry_out`` does."""

    index: int
    units: list[str]
    start: str  # a hex, or REINFORCEMENTS
    path: list[str]
    strategic: bool = False
    klass: str = ""  # 17.7: "mot" / "foot" for motorcycles
    tow: bool = False
    deploy: bool = False
    exit: bool = False
    cost: dict[str, int] = field(default_factory=dict)
    ma: dict[str, int] = field(default_factory=dict)
    minimum: bool = False  # 5.63
    whole: str = ""  # "ezoc" (4.4) or "ford" (5.51): the whole MA
    monitor: bool = False


# --- movement costs (5.1, 5.11, 5.13, 5.54, 5.61) ------------------------------------------------

def terrain_cost(ctx: Ctx, klass: str, h: str) -> int | None:
    """5.11, 5.13: the cost of the least favourable terrain of a hex for the class (a town or city
    hex also by the TEC's town / city row); None: prohibited."""
    p = ctx.sc.map.hex(h)
    rows = [p.terrain] + (["town"] if p.town else []) + (["city"] if p.city else [])
    costs = [ctx.sc.charts.tec.terrain[r].cost(klass) for r in rows]
    if any(c is None for c in costs):
        return None
    return max(int(c) for c in costs if c is not None)


def step_cost(ctx: Ctx, klass: str, a: str | None, b: str) -> int | None:
    """The MP of entering ``b`` from ``a`` (None: from off the map, 12.11): along a road or main
    road the road's rate whatever the terrain (5.61: the hexside carries the road, so the move
    follows it), else the terrain (5.11); an unbridged river hexside adds the TEC's river cost
    (5.54). None when prohibited."""
    tec = ctx.sc.charts.tec
    feats = ctx.features(a, b) if a is not None else frozenset()
    if "main-road" in feats:
        cost: int | None = tec.main_road
    elif "road" in feats:
        cost = tec.road
    else:
        cost = terrain_cost(ctx, klass, b)
    if cost is not None and "river" in feats and "bridge" not in feats:
        cost += tec.river
    return cost


def prut_hex(ctx: Ctx, h: str) -> bool:
    """17.51: a hex with a Prut hexside."""
    return any("prut" in ctx.features(h, n) for n in ctx.neighbours(h))


def ground_units(ctx: Ctx, side: str) -> list[str]:
    """The side's ground units on the map (5.2: river monitors are not ground units)."""
    return [u for u in ctx.side_units(side) if ctx.spec(u).type != "monitor"]


def unit_class(ctx: Ctx, u: str, chosen: str) -> str:
    """2.1, 17.7: the movement class of a unit for this move (a motorcycle's choice, default foot)."""
    if ctx.spec(u).move == "motorcycle":
        return chosen or ("mot" if ctx.flagged(u, "class-mot") else "foot")
    return ctx.spec(u).move


def unit_ma(ctx: Ctx, u: str, klass: str) -> int:
    """The MA after status effects (T5), with the class chosen by a motorcycle unit (17.7)."""
    saved = list(ctx.units[u].get("flags", []))
    fl = [f for f in saved if f not in ("class-mot", "class-foot")]
    if ctx.spec(u).move == "motorcycle":
        fl = sorted([*fl, f"class-{klass}"])
    ctx.units[u]["flags"] = fl
    try:
        return ctx.ma(u)
    finally:
        if saved:
            ctx.units[u]["flags"] = saved
        else:
            ctx.units[u].pop("flags", None)


# --- checking one move ---------------------------------------------------------------------------

def plan(ctx: Ctx, i: int, m: dict[str, Any], problems: list[Problem]) -> Plan | None:
    """Every problem of the move ``m`` (``move[i]``) on the position as it is; the plan when none."""
    n0 = len(problems)
    w = f"move[{i}]"
    side = ctx.side
    units = [str(u) for u in m.get("units", [])]
    path = [str(h) for h in m.get("path", [])]
    strategic, tow, deploy, exits = (bool(m.get(k, False)) for k in ("strategic", "tow", "deploy", "exit"))
    chosen = str(m.get("class", ""))

    def bad(where: str, text: str, rule: str) -> None:
        problems.append(Problem(where, text, rule))

    starts: dict[str, list[str]] = {}
    seen: set[str] = set()
    for k, u in enumerate(units):
        uw = f"{w}.units[{k}]"
        if u not in ctx.sc.units:
            bad(uw, f"{u} is not a unit of the scenario", "2.2")
            continue
        if u in seen:
            bad(uw, f"{u} is listed twice", "5.1")
            continue
        seen.add(u)
        spec = ctx.spec(u)
        if spec.side != side:
            bad(uw, f"{u} is a {spec.side} unit; only the phasing player's units move", "5.0")
            continue
        at = ctx.at(u)
        if at == REINFORCEMENTS:
            r = ctx.sc.reinforcements.get(u)
            if r is None or r.turn > ctx.turn:
                bad(uw, f"{u} is a reinforcement arriving on turn {r.turn if r else '?'}, not yet", "12.11")
                continue
        elif not ctx.on_map(u):
            bad(uw, f"{u} is not on the map ({at})", "5.0")
            continue
        if ctx.flagged(u, "moved"):
            bad(uw, f"{u} has already moved this Movement Phase", "5.1")
            continue
        if ctx.flagged(u, "replaced"):
            bad(uw, f"{u} received a replacement step this AM turn and may not move", "12.21")
            continue
        if ctx.flagged(u, "no-move"):
            bad(uw, f"{u} removed a bridge in its Engineer Phase and may not move", "17.44")
            continue
        if u in ctx.sc.garrison and path and not ctx.pos.get("garrison_released", False):
            bad(uw, f"{u} belongs to the Chisinau garrison and may not leave Kishinev until an Axis unit has moved"
                    f" within {GARRISON_RANGE} hexes of it", "17.6")
            continue
        if chosen and spec.move != "motorcycle":
            bad(uw, f"{u} is not a motorcycle unit: only motorcycles choose foot or mot", "17.7")
        if spec.type == "artillery":
            mode = ctx.units[u].get("mode", TOWED if at == REINFORCEMENTS else DEPLOYED)
            if tow and (mode == TOWED):
                bad(uw, f"{u} is already towed", "11.6")
            if path and mode == DEPLOYED and not tow:
                bad(uw, f"{u} is deployed: artillery moves only towed (tow = true)", "11.6")
            if deploy and mode == DEPLOYED and not tow:
                bad(uw, f"{u} is already deployed", "11.6")
        elif tow or deploy:
            bad(uw, f"{u} is not artillery: only artillery is towed or deployed", "11.6")
        starts.setdefault(at, []).append(u)
    if len(starts) > 1:
        where_ = "; ".join(f"{', '.join(us)} in {h}" for h, us in sorted(starts.items()))
        bad(f"{w}.units", f"the units of a move start together in one hex ({where_})", "5.1")
    movers = [u for us in starts.values() for u in us]
    monitors = [u for u in movers if ctx.spec(u).type == "monitor"]
    if monitors and len(monitors) != len(movers):
        bad(f"{w}.units", "a river monitor moves on its own, along the Prut, not with ground units", "17.51")
    if monitors and strategic:
        bad(f"{w}.strategic", "a river monitor does not use strategic movement", "17.51")
    if len(problems) > n0 or not movers:
        if not units:
            bad(f"{w}.units", "a move names at least one unit", "5.1")
        return None
    start = next(iter(starts))
    p = Plan(i, movers, start, path, strategic, chosen, tow, deploy, exits, monitor=bool(monitors))
    if not path and not (tow or deploy):
        bad(f"{w}.path", "a move enters at least one hex (or changes an artillery unit's mode)", "5.1")
        return None
    if start == REINFORCEMENTS and not path:
        bad(f"{w}.path", "reinforcements enter the map at one of their entry hexes: path[0]", "12.11")
        return None
    for k, h in enumerate(path):
        if ctx.sc.map.grid.place(h) is None:
            bad(f"{w}.path[{k}]", f"{h} is not a hex of the map", "2.3")
    if len(problems) > n0:
        return None
    if start == REINFORCEMENTS:
        for u in movers:
            entry = ctx.sc.reinforcements[u].entry
            if path[0] not in entry:
                bad(f"{w}.path[0]", f"{path[0]} is not an entry hex of {u} ({', '.join(entry)})", "12.11")
        if ctx.holder(path[0]) == other(side):
            bad(f"{w}.path[0]", f"the entry hex {path[0]} is occupied by enemy units: the reinforcements are delayed", "12.11")
        elif ctx.option("entry_delay") == "zoc" and ctx.in_enemy_zoc(path[0], side):
            bad(f"{w}.path[0]", f"the entry hex {path[0]} is in an enemy ZOC: the reinforcements are delayed (option"
                                " entry_delay, A-64)", "12.11")
    if p.monitor:
        _plan_monitor(ctx, p, problems)
        return p if len(problems) == n0 else None
    _walk(ctx, p, problems)
    if exits:
        _plan_exit(ctx, p, problems)
    return p if len(problems) == n0 else None


def _plan_monitor(ctx: Ctx, p: Plan, problems: list[Problem]) -> None:
    """17.51 (A-85, simplified): up to 4 hexes, each adjacent to the last and on a Prut hexside,
    through enemy ZOC; 5.62 still keeps it out of hexes held by enemy units with a defense strength."""
    w = f"move[{p.index}]"
    if len(p.path) > MONITOR_HEXES:
        problems.append(Problem(f"{w}.path", f"a river monitor moves up to {MONITOR_HEXES} hexes along the Prut, not {len(p.path)}", "17.51"))
    prev = p.start if p.start != REINFORCEMENTS else None
    for k, h in enumerate(p.path):
        if prev is not None and not ctx.adjacent(prev, h):
            problems.append(Problem(f"{w}.path[{k}]", f"{h} is not adjacent to {prev}", "5.1"))
        elif not prut_hex(ctx, h):
            problems.append(Problem(f"{w}.path[{k}]", f"{h} is not on the Prut: a river monitor moves along Prut hexsides", "17.51"))
        else:
            _enemy_hex(ctx, p, k, h, problems)
        prev = h
    p.cost = {u: len(p.path) for u in p.units}
    p.ma = {u: MONITOR_HEXES for u in p.units}


def _enemy_hex(ctx: Ctx, p: Plan, k: int, h: str, problems: list[Problem]) -> None:
    """5.62: no entering a hex held by enemy units, unless none of them has a defense strength."""
    if ctx.holder(h) == other(ctx.side):
        strong = [u for u in ctx.units_in(h) if ctx.printed(u).d > 0]
        if strong:
            problems.append(Problem(f"move[{p.index}].path[{k}]", f"{h} holds enemy units ({', '.join(strong)})", "5.62"))


def _walk(ctx: Ctx, p: Plan, problems: list[Problem]) -> None:
    """The path hex by hex: adjacency (5.1), enemy units (5.62), the Prut (5.5-5.53), costs (5.11,
    5.13, 5.54, 5.61), enemy ZOC (4.3, 4.4), strategic movement (5.2, 5.22), then the MA (5.12,
    5.63), towing and deploying (5.64, 11.6)."""
    w = f"move[{p.index}]"
    side = ctx.side
    tec = ctx.sc.charts.tec
    klass = {u: unit_class(ctx, u, p.klass) for u in p.units}
    spent = {u: ctx.sc.charts.towing.to_towed if p.tow else 0 for u in p.units}
    over: dict[str, tuple[int, int]] = {}  # unit -> (the path index where the MA ran out, MP spent there)
    start_ctl: dict[str, str] = ctx.pos.get(START_CONTROL) or ctx.control
    enemies = [ctx.at(u) for u in ground_units(ctx, other(side))]
    prev = p.start if p.start != REINFORCEMENTS else None
    n = len(p.path)
    ma = {u: unit_ma(ctx, u, klass[u]) * (tec.strategic_factor if p.strategic else 1) for u in p.units}
    for k, h in enumerate(p.path):
        hw = f"{w}.path[{k}]"
        if prev is not None and not ctx.adjacent(prev, h):
            problems.append(Problem(hw, f"{h} is not adjacent to {prev}", "5.1"))
            return
        _enemy_hex(ctx, p, k, h, problems)
        feats = ctx.features(prev, h) if prev is not None else frozenset()
        if "prut" in feats and "bridge" not in feats:
            if side == SOVIET:
                problems.append(Problem(hw, f"Soviet units never cross the Prut ({prev}-{h})", "5.5"))
            else:
                cant = [u for u in p.units if klass[u] != "foot" or ctx.spec(u).type in ("cavalry", "artillery")]
                if cant:
                    problems.append(Problem(hw, f"{', '.join(cant)} may cross the Prut only at a bridge (cavalry, artillery,"
                                                " motorized and mechanized units)", "5.53"))
                elif k != 0 or n != 1:
                    problems.append(Problem(hw, "a unit fords the Prut (no bridge) from the hex where it started the Movement"
                                                " Phase, as a one-hex move using its whole MA", "5.51"))
                else:
                    p.whole = "ford"
        elif "prut" in feats and side == SOVIET:
            problems.append(Problem(hw, f"Soviet units never cross the Prut, even at a bridge ({prev}-{h})", "5.5"))
        enter_z = ctx.in_enemy_zoc(h, side)
        leave_z = prev is not None and ctx.in_enemy_zoc(prev, side)
        if enter_z and k < n - 1:
            problems.append(Problem(hw, f"{h} is in an enemy ZOC: a unit entering an enemy ZOC stops there", "4.3"))
        if enter_z and leave_z and not p.whole:
            if k == 0 and n == 1:
                p.whole = "ezoc"
            elif k > 0:
                pass  # the stop above already refuses it
        if p.strategic:
            near = min((ctx.distance(h, e) for e in enemies), default=99)
            if near <= 2:
                problems.append(Problem(hw, f"{h} is {near} hex(es) from an enemy ground unit: strategic movement never enters"
                                            " a hex within two hexes of one", "5.2"))
            elif ctx.control.get(h) == other(side):
                problems.append(Problem(hw, f"{h} is enemy-controlled: strategic movement never enters one", "5.2"))
            elif start_ctl.get(h) != side:
                problems.append(Problem(hw, f"{h} was not friendly-controlled at the start of the Movement Phase", "5.22"))
        for u in p.units:
            c = step_cost(ctx, klass[u], prev, h)
            if c is None:
                problems.append(Problem(hw, f"{h} is prohibited terrain for {u} ({klass[u]})", "5.13"))
                continue
            c += (tec.zoc_enter if enter_z else 0) + (tec.zoc_leave if leave_z else 0)
            spent[u] += c
            if spent[u] > ma[u] and u not in over:
                over[u] = (k, spent[u])
        prev = h
    end = p.path[-1] if p.path else p.start
    if p.deploy:
        for u in p.units:
            spent[u] += ctx.sc.charts.towing.to_deployed
            if spent[u] > ma[u] and u not in over:
                over[u] = (n, spent[u])
        if ctx.in_enemy_zoc(end, side):
            problems.append(Problem(f"{w}.deploy", f"{end} is in an enemy ZOC: artillery may not deploy there", "5.64"))
    if p.whole:
        spent = dict(ma)
        over = {}
    elif over and n == 1 and not p.deploy:
        p.minimum = True  # 5.63, A-22: a unit may always move one hex
        over = {}
    for u, (k, mp) in sorted(over.items(), key=lambda kv: (kv[1], kv[0])):
        where = f"{w}.path[{k}]" if k < n else f"{w}.deploy"
        problems.append(Problem(where, f"{u} would spend {mp} MP with an MA of {ma[u]}"
                                       f"{' (strategic)' if p.strategic else ''}", "5.12"))
    p.cost, p.ma = spent, ma


def _plan_exit(ctx: Ctx, p: Plan, problems: list[Problem]) -> None:
    """15.4: the units of a withdrawing division leave the map by the east or south edge."""
    w = f"move[{p.index}].exit"
    if ctx.side != SOVIET:
        problems.append(Problem(w, "only the Soviet player's withdrawing divisions leave the map", "15.4"))
        return
    going = set(ctx.pos.get("activation", {}).get("withdrawing", []))
    not_w = [u for u in p.units if ctx.spec(u).formation not in going or not ctx.spec(u).formation]
    if not_w:
        problems.append(Problem(w, f"{', '.join(not_w)} do not belong to a withdrawing division", "15.4"))
    end = p.path[-1] if p.path else p.start
    edges = ctx.sc.map.edges
    if end not in edges.get("east", frozenset()) | edges.get("south", frozenset()):
        problems.append(Problem(w, f"{end} is not on the east or south map edge", "15.4"))


# --- making one move -----------------------------------------------------------------------------

def tank_breakdown(ctx: Ctx, p: Plan) -> None:
    """15.2, 15.22, 15.23: each Soviet tank unit rolls one die at the start of its move, once per
    Movement Phase; -1 with armor 3; above its printed morale it loses a step (eliminated with one
    step left) and still moves."""
    if ctx.dice is None or ctx.side != SOVIET:
        return
    for u in list(p.units):
        if ctx.spec(u).type != "tank" or ctx.flagged(u, "tank-checked") or not (ctx.on_map(u) or ctx.at(u) == REINFORCEMENTS):
            continue
        ctx.flag(u, "tank-checked")
        vals = ctx.printed(u)
        (die,) = ctx.roll(f"tank breakdown {u}")
        mod = -1 if vals.ar == 3 else 0
        total = die + mod
        loses = total > vals.m
        ctx.emit("breakdown-check", "15.2", unit=u, die=die, modifier=mod, total=total, morale=vals.m, loses=loses)
        if loses and ctx.on_map(u) and ctx.lose_step(u, "15.2", "mechanical breakdown"):
            p.units.remove(u)
        elif loses and not ctx.on_map(u):
            if ctx.steps_left(u) <= 1:
                ctx.place(u, ELIMINATED)
                ctx.units[u]["lost"] = len(ctx.spec(u).steps)
                ctx.emit("eliminated", "15.2", unit=u, at=REINFORCEMENTS, why="mechanical breakdown")
                p.units.remove(u)
            else:
                ctx.units[u]["lost"] = int(ctx.units[u].get("lost", 0)) + 1
                ctx.emit("step-lost", "15.2", unit=u, why="mechanical breakdown", left=ctx.steps_left(u))


def carry_out(ctx: Ctx, p: Plan) -> None:
    """The move made: tank breakdown first (15.2), reinforcements placed (12.11, 12.12), towing
    (11.6), hex by hex (5.62 eliminations, control A-2, 17.22, 17.42, 17.43, 17.6), deploying, the
    flags (moved, strategic, forded, entered, class), the exit (15.4) and isolation (7.7)."""
    side = ctx.side
    tank_breakdown(ctx, p)
    if not p.units:
        return
    ctx.emit("move", "5.1", index=p.index, units=list(p.units), start=p.start, path=list(p.path),
             cost={u: p.cost[u] for u in p.units}, ma={u: p.ma[u] for u in p.units}, strategic=p.strategic,
             minimum=p.minimum, whole=p.whole, tow=p.tow, deploy=p.deploy, klass=p.klass, exit=p.exit,
             monitor=p.monitor, provisional=ctx.sc.charts.tec.provisional and not p.monitor)
    if p.start == REINFORCEMENTS:
        for u in p.units:
            ctx.units[u].pop("supply", None)  # 12.12: in supply
            if ctx.spec(u).type == "artillery":
                ctx.units[u]["mode"] = TOWED
                ctx.units[u]["ammo"] = FULL_AMMO  # 12.12: full ammunition
            ctx.flag(u, "entered")
        ctx.emit("reinforcement", "12.11", units=list(p.units), hex=p.path[0], turn=ctx.turn)
    if p.tow:
        for u in p.units:
            ctx.units[u]["mode"] = TOWED
        ctx.changed()
    for h in p.path:
        if ctx.holder(h) == other(side):
            for e in ctx.units_in(h):
                ctx.eliminate(e, "5.62", "an enemy unit entered its hex and it has no defense strength")
        for u in p.units:
            ctx.place(u, h)
        if ctx.control.get(h) != side:
            ctx.control[h] = side
        adjacent_triggers(ctx, h)
        kishinev = ctx.sc.map.kishinev
        if side == AXIS and not ctx.pos.get("garrison_released", False) and ctx.sc.garrison and kishinev \
                and ctx.distance(h, kishinev) <= GARRISON_RANGE:
            ctx.pos["garrison_released"] = True
            ctx.emit("garrison-released", "17.6", unit=p.units[0], hex=h, distance=ctx.distance(h, ctx.sc.map.kishinev))
    if p.deploy:
        for u in p.units:
            ctx.units[u]["mode"] = DEPLOYED
        ctx.changed()
    for u in p.units:
        ctx.flag(u, "moved")
        if p.strategic:
            ctx.flag(u, "strategic")
        if p.whole == "ford":
            ctx.flag(u, "forded")
        if ctx.spec(u).move == "motorcycle":
            klass = unit_class(ctx, u, p.klass)
            fl = [f for f in ctx.flags(u) if f not in ("class-mot", "class-foot")]
            ctx.units[u]["flags"] = sorted([*fl, f"class-{klass}"])
    if p.exit:
        for u in p.units:
            ctx.place(u, WITHDRAWN)
        ctx.emit("withdrawn", "15.4", units=list(p.units), hex=p.path[-1] if p.path else p.start)
        return
    for u in p.units:
        _isolation(ctx, u, p)


def _isolation(ctx: Ctx, u: str, p: Plan) -> None:
    """7.7, A-31: an out-of-supply motorized or mechanized unit that spent half or more of its MA
    (option isolation_spend) is isolated after its move."""
    if ctx.supply(u) != OOS or not ctx.motorized(u) or p.monitor:
        return
    ma = ctx.ma(u)
    spent = min(p.cost[u], p.ma[u])
    hit = spent * 2 >= ma if ctx.option("isolation_spend") == "half-or-more" else spent * 2 > ma
    if hit and ma > 0:
        ctx.units[u]["supply"] = ISOLATED
        ctx.changed()
        ctx.emit("isolated", "7.7", unit=u, spent=spent, ma=ma, option=ctx.option("isolation_spend"),
                 why=f"out of supply, it spent {spent} of its {ma} MP (A-31)")


def adjacent_triggers(ctx: Ctx, h: str, mover: str | None = None) -> None:
    """A unit of ``mover`` (default the phasing side) entered ``h``: the other side's entrenchments
    under construction next to it are removed (17.22); its bridges being built next to it cannot be
    placed (17.42); its placed bridges next to it are removed from play with their engineer (17.43).
    Retreats and advances trigger them too (option bridge_trigger = "any", A-84)."""
    enemy = other(mover or ctx.side)
    ents = ctx.pos.get("entrenchments", {})
    for eh in sorted(ents):
        e = ents[eh]
        if e.get("side") == enemy and e.get("state") == "building" and ctx.distance(h, eh) <= 1:
            del ents[eh]
            ctx.emit("entrenchment-removed", "17.22", hex=eh, by=h)
    bridges = ctx.pos.get("bridges", {})
    for key in sorted(bridges):
        b = bridges[key]
        if b.get("side") != enemy:
            continue
        a1, _, a2 = key.partition("-")
        eng = str(b.get("unit", ""))
        if b.get("state") == "building":
            at = ctx.at(eng) if eng in ctx.units else a1
            if at in (a1, a2) and ctx.distance(h, at) <= 1:
                del bridges[key]
                ctx.emit("bridge-failed", "17.42", hexside=key, unit=eng, by=h)
        elif b.get("state") == "placed" and (h in (a1, a2) or (ctx.adjacent(h, a1) and ctx.adjacent(h, a2))):
            del bridges[key]
            ctx.emit("bridge-removed", "17.43", hexside=key, unit=eng, by=h)
            if eng in ctx.units and ctx.at(eng) != ELIMINATED:
                ctx.eliminate(eng, "17.43", "its bridge was removed from play")


# --- the phase -----------------------------------------------------------------------------------

def _order_list(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    v = body.get(key, [])
    return list(v) if isinstance(v, list) else []


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the movement orders, checked on the position as each order leaves it (no
    dice: 15.2 cannot be foreseen): removals and withdrawals (15.15, 15.4), breakdowns (14.1), the
    moves (strategic first, 5.22), stacking at the end (6.2: the enemy would eliminate the excess),
    re-forms (14.2)."""
    _check_soviet_orders(ctx, body, problems)
    start_phase(ctx, body, problems)
    moves = sorted(enumerate(_order_list(body, "move")), key=lambda im: (not im[1].get("strategic", False), im[0]))
    ordered: dict[str, int] = {}
    last_into: dict[str, int] = {}
    for i, m in moves:
        dup = False
        for k, u in enumerate(m.get("units", [])):
            if u in ordered:
                problems.append(Problem(f"move[{i}].units[{k}]", f"{u} already moves in move[{ordered[u]}]: a unit moves once"
                                                                  " per Movement Phase", "5.1"))
                dup = True
        for u in m.get("units", []):
            ordered.setdefault(u, i)
        if dup:
            continue
        p = plan(ctx, i, m, problems)
        if p is not None:
            carry_out(ctx, p)
            if p.path and not p.exit:
                last_into[p.path[-1]] = i
    for h in sorted({ctx.at(u) for u in ctx.side_units(ctx.side)}):
        v = ctx.stack_value(h)
        if v > STACK_LIMIT and h in last_into:  # 6.2: a stack left overstacked (by a retreat, 6.3) is the rule's to settle
            where = f"move[{last_into[h]}]"
            problems.append(Problem(where, f"{h} would end the Movement Phase with {_fmt(v)} battalions (the limit is"
                                           f" {STACK_LIMIT} and one HQ): the enemy would eliminate the excess", "6.2"))
    used: set[str] = set()
    for j, r in enumerate(_order_list(body, "reform")):
        _reform_ok(ctx, j, r, used, problems)


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):.2f}".rstrip("0")


def _check_soviet_orders(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """15.4, 15.15: only the Soviet player withdraws divisions and removes units; 14.1: only the Axis
    breaks battalions down."""
    if "withdraw" in body:
        if ctx.side != SOVIET:
            problems.append(Problem("withdraw", "only the Soviet player withdraws divisions", "15.4"))
        else:
            out = ctx.pos.get("activation", {}).get("out", [])
            for k, f in enumerate(body["withdraw"].get("formations", [])):
                if f not in ctx.sc.formations or f in out:
                    problems.append(Problem(f"withdraw.formations[{k}]", f"{f} is not a Soviet division in play", "15.4"))
    for j, r in enumerate(_order_list(body, "remove")):
        u = str(r.get("unit", ""))
        if ctx.side != SOVIET:
            problems.append(Problem(f"remove[{j}]", "only the Soviet player removes units from play", "15.15"))
        elif u not in ctx.sc.units or ctx.side_of(u) != SOVIET or not ctx.on_map(u):
            problems.append(Problem(f"remove[{j}].unit", f"{u} is not a Soviet unit on the map", "15.15"))
    seen: set[str] = set()
    for j, b in enumerate(_order_list(body, "breakdown")):
        u = str(b.get("unit", ""))
        w = f"breakdown[{j}].unit"
        if ctx.side != AXIS:
            problems.append(Problem(f"breakdown[{j}]", "only the Axis player breaks battalions down", "14.0"))
            continue
        if u not in ctx.sc.units or ctx.side_of(u) != AXIS or not ctx.on_map(u):
            problems.append(Problem(w, f"{u} is not an Axis unit on the map", "14.1"))
            continue
        spec = ctx.spec(u)
        n = ctx.sc.charts.breakdown.companies.get((spec.nat, spec.type), 0)
        if spec.size != "battalion" or not n or spec.nat not in ("german", "romanian"):
            problems.append(Problem(w, f"{u} is not a German or Romanian battalion of a type the Breakdown Chart lists", "14.0"))
        elif n - int(ctx.units[u].get("lost", 0)) < 1:
            problems.append(Problem(w, f"{u} has lost too many steps to break down", "14.5"))
        elif u in seen:
            problems.append(Problem(w, f"{u} is broken down twice", "14.1"))
        elif len(_companies_for(ctx, u, n - int(ctx.units[u].get("lost", 0)))) < n - int(ctx.units[u].get("lost", 0)):
            problems.append(Problem(w, f"not enough company counters are free to break {u} down", "14.1"))
        seen.add(u)


def start_phase(ctx: Ctx, body: dict[str, Any], problems: list[Problem] | None = None) -> None:
    """5.22: control at the start of the phase kept; 15.15: units removed; 15.4: withdrawals
    declared; 14.1: battalions broken down (when checking, only the orders found legal)."""
    ctx.pos[START_CONTROL] = dict(ctx.control)
    if problems is not None and any(p.where.startswith(("withdraw", "remove", "breakdown")) for p in problems):
        bad = {p.where.split(".")[0] for p in problems}
    else:
        bad = set()
    for j, r in enumerate(_order_list(body, "remove")):
        if f"remove[{j}]" in bad or ctx.side != SOVIET:
            continue
        u = str(r["unit"])
        was = ctx.at(u)
        ctx.place(u, REMOVED)
        for k in ("status", "supply", "mode", "ammo", "flags", "since"):
            ctx.units[u].pop(k, None)
        ctx.units[u]["lost"] = len(ctx.spec(u).steps)
        ctx.emit("removed", "15.15", unit=u, at=was)
    if isinstance(body.get("withdraw"), dict) and "withdraw" not in bad and ctx.side == SOVIET:
        act = ctx.pos.setdefault("activation", {})
        going = sorted({*act.get("withdrawing", []), *body["withdraw"].get("formations", [])})
        act["withdrawing"] = going
        ctx.emit("withdrawal", "15.4", formations=list(body["withdraw"]["formations"]))
    for j, b in enumerate(_order_list(body, "breakdown")):
        if f"breakdown[{j}]" in bad or ctx.side != AXIS:
            continue
        _break_down(ctx, str(b["unit"]))


def _companies_for(ctx: Ctx, bn: str, n: int) -> list[str]:
    """14.1, 14.3: the company counters off the map with the battalion's nationality, type, morale and
    anti-armor: its own first."""
    spec = ctx.spec(bn)
    full = spec.steps[0]
    own = [f"{bn}.c{k}" for k in range(1, 10) if f"{bn}.c{k}" in ctx.sc.units]
    others = [u for u in sorted(ctx.sc.units) if u not in own and ctx.spec(u).size == "company" and "." in u
              and ctx.spec(u).nat == spec.nat and ctx.spec(u).type == spec.type
              and ctx.spec(u).steps[0].m == full.m and ctx.spec(u).steps[0].aa == full.aa]
    return [u for u in [*own, *others] if u in ctx.units and not ctx.on_map(u)][:n]


def _break_down(ctx: Ctx, bn: str) -> None:
    """14.1, 14.5: the battalion goes to the Breakdown Box; the chart's number of companies less its
    lost steps take its place, with its supply and status."""
    spec = ctx.spec(bn)
    n = ctx.sc.charts.breakdown.companies[(spec.nat, spec.type)] - int(ctx.units[bn].get("lost", 0))
    hex_ = ctx.at(bn)
    cos = _companies_for(ctx, bn, n)
    for c in cos:
        st: dict[str, Any] = {"at": hex_, "lost": 0}
        for k in ("status", "supply"):
            if k in ctx.units[bn]:
                st[k] = ctx.units[bn][k]
        ctx.units[c] = st
    ctx.place(bn, BREAKDOWN_BOX)
    ctx.emit("breakdown", "14.1", unit=bn, hex=hex_, companies=cos, provisional=ctx.sc.charts.breakdown.provisional)


def _reform_ok(ctx: Ctx, j: int, r: dict[str, Any], used: set[str], problems: list[Problem] | None) -> str:
    """14.2-14.4: a battalion in the Breakdown Box re-formed from companies of the same type, morale
    and anti-armor, all in one hex, at most the chart's number. The hex, or "" with the problems."""
    w = f"reform[{j}]"
    out: list[Problem] = []
    bn = str(r.get("battalion", ""))
    cos = [str(c) for c in r.get("companies", [])]
    if ctx.side != AXIS:
        out.append(Problem(w, "only the Axis player re-forms battalions", "14.0"))
    elif bn not in ctx.sc.units or ctx.side_of(bn) != AXIS or ctx.at(bn) != BREAKDOWN_BOX:
        out.append(Problem(f"{w}.battalion", f"{bn} is not a battalion in the Breakdown Box", "14.2"))
    else:
        spec = ctx.spec(bn)
        full = spec.steps[0]
        n = ctx.sc.charts.breakdown.companies.get((spec.nat, spec.type), 0)
        if len(cos) > n:
            out.append(Problem(f"{w}.companies", f"{bn} re-forms from at most {n} companies", "14.2"))
        hexes = set()
        for k, c in enumerate(cos):
            cw = f"{w}.companies[{k}]"
            if c not in ctx.sc.units or ctx.side_of(c) != AXIS or ctx.spec(c).size != "company" or not ctx.on_map(c):
                out.append(Problem(cw, f"{c} is not an Axis company on the map", "14.2"))
                continue
            cs = ctx.spec(c).steps[0]
            if ctx.spec(c).type != spec.type or cs.m != full.m or cs.aa != full.aa or ctx.spec(c).nat != spec.nat:
                out.append(Problem(cw, f"{c} has not the type, morale and anti-armor of {bn}", "14.3"))
            if c in used:
                out.append(Problem(cw, f"{c} re-forms two battalions", "14.2"))
            used.add(c)
            hexes.add(ctx.at(c))
        if len(hexes) > 1:
            out.append(Problem(f"{w}.companies", f"the companies end the phase in different hexes ({', '.join(sorted(hexes))})", "14.2"))
        if len(cos) > len(spec.steps):
            out.append(Problem(f"{w}.companies", f"{bn} has {len(spec.steps)} steps", "14.4"))
        if not out:
            return hexes.pop()
    if problems is not None:
        problems.extend(out)
    elif out:
        ctx.emit("reform-skipped", out[0].rule, index=j, battalion=bn, why=out[0].message)
    return ""


def _reform(ctx: Ctx, j: int, r: dict[str, Any], used: set[str]) -> None:
    """14.2, 14.4: the companies leave; the battalion is placed with as many steps as companies."""
    h = _reform_ok(ctx, j, r, used, None)
    if not h:
        return
    bn = str(r["battalion"])
    cos = [str(c) for c in r["companies"]]
    st: dict[str, Any] = {"at": h, "lost": len(ctx.spec(bn).steps) - len(cos)}
    status = [ctx.status(c) for c in cos]
    supply = [ctx.supply(c) for c in cos]
    if DEMORALIZED in status or DISRUPTED in status:
        st["status"] = DEMORALIZED if DEMORALIZED in status else DISRUPTED
    if ISOLATED in supply or OOS in supply:
        st["supply"] = ISOLATED if ISOLATED in supply else OOS
    flags = sorted({f for c in cos for f in ctx.flags(c)})
    if flags:
        st["flags"] = flags
    for c in cos:
        ctx.units[c] = {"at": POOL, "lost": 0}
    ctx.units[bn] = st
    ctx.changed()
    ctx.emit("reform", "14.2", battalion=bn, companies=cos, hex=h, steps=len(cos))


def make_moves(ctx: Ctx, moves: list[tuple[int, dict[str, Any]]]) -> None:
    """The [[move]] orders given (index in the file, order), in the order given (strategic moves
    first, 5.22: the caller orders them). A move that has become illegal is skipped (6.6)."""
    for i, m in moves:
        problems: list[Problem] = []
        p = plan(ctx, i, m, problems)
        if p is None:
            first = problems[0] if problems else Problem(f"move[{i}]", "not legal", "5.1")
            ctx.emit("move-skipped", first.rule, index=i, units=list(m.get("units", [])), why=first.message, where=first.where)
            continue
        carry_out(ctx, p)
        ctx.zoc_control("2.1")


def overstack_order(ctx: Ctx, units: list[str]) -> list[str]:
    """6.2, A-24: the enemy's choice, his standing ``overstack`` list first, then the strongest first."""
    wish = [str(u) for u in ctx.standing.get(other(ctx.side), {}).get("overstack", [])]
    listed = [u for u in wish if u in units]
    rest = sorted((u for u in units if u not in listed),
                  key=lambda u: (-ctx.printed(u).a, -ctx.printed(u).d, -ctx.steps_left(u), u))
    return listed + rest


def end_phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """6.2 (the opponent's standing choice), 14.2, 17.23 at the end of the phasing side's Movement
    Phase; 15.16, 15.4: a division with no unit left is out."""
    for h in sorted({ctx.at(u) for u in ctx.side_units(ctx.side)}):
        if ctx.stack_value(h) <= STACK_LIMIT:
            continue
        for u in overstack_order(ctx, ctx.units_in(h)):
            if ctx.stack_value(h) <= STACK_LIMIT:
                break
            ctx.emit("overstacked", "6.2", hex=h, unit=u, value=_fmt(ctx.stack_value(h)),
                     chosen="standing" if u in ctx.standing.get(other(ctx.side), {}).get("overstack", []) else "strongest")
            ctx.eliminate(u, "6.2", "overstacked at the end of the Movement Phase")
    used: set[str] = set()
    for j, r in enumerate(_order_list(body, "reform")):
        _reform(ctx, j, r, used)
    ents = ctx.pos.get("entrenchments", {})
    for eh in sorted(ents):
        if not any(ctx.side_of(u) == ents[eh].get("side") for u in ctx.units_in(eh)):
            del ents[eh]
            ctx.emit("entrenchment-removed", "17.23", hex=eh, by="")
    act = ctx.pos.setdefault("activation", {})
    out = list(act.get("out", []))
    for f in ctx.sc.formations:
        if f in out:
            continue
        mine = [u for u in ctx.sc.units if ctx.spec(u).formation == f and ctx.side_of(u) == SOVIET]
        if mine and all(ctx.at(u) in (ELIMINATED, WITHDRAWN, REMOVED) for u in mine):
            out.append(f)
            rule = "15.4" if any(ctx.at(u) == WITHDRAWN for u in mine) else "15.16"
            ctx.emit("formation-out", rule, formation=f)
    act["out"] = out
    ctx.pos.pop(START_CONTROL, None)


# --- report lines --------------------------------------------------------------------------------

def _move_line(e: Event) -> list[str]:
    d = e.data
    us = ", ".join(d["units"])
    costs = "; ".join(f"{u} {d['cost'][u]} of {d['ma'][u]} MP" for u in d["units"])
    if d.get("monitor"):
        return [f"- Move {us} (river monitor) from {d['start']} along the Prut through {', '.join(d['path'])} "
                f"({len(d['path'])} of {MONITOR_HEXES} hexes, 17.51)."]
    how = []
    if d.get("strategic"):
        how.append("strategic movement, MA doubled by the TEC (5.2)")
    if d.get("whole") == "ezoc":
        how.append("from one enemy ZOC to another, using its whole MA (4.4)")
    if d.get("whole") == "ford":
        how.append("fording the Prut with its whole MA; no combat this turn (5.51, 5.52)")
    if d.get("minimum"):
        how.append("the one-hex move always allowed (5.63)")
    if d.get("tow"):
        how.append("towed first (11.6)")
    if d.get("deploy"):
        how.append("deployed at the end (11.6)")
    if d.get("klass"):
        how.append(f"moving as {d['klass']} (17.7)")
    start = "from the reinforcements" if d["start"] == REINFORCEMENTS else f"from {d['start']}"
    path = " -> ".join(d["path"]) if d["path"] else "in place"
    extra = f" ({'; '.join(how)})" if how else ""
    return [f"- Move {us} {start}: {path}, spending {costs}{extra} ({e.rule}, 5.13)."]


def _skipped(e: Event) -> list[str]:
    d = e.data
    return [f"- Move {e.data['index']} of {', '.join(d['units'])} is skipped: {d['why']} ({e.rule})."]


def _check_line(e: Event) -> list[str]:
    d = e.data
    mod = f" {d['modifier']:+d} (armor 3, 15.23) = {d['total']}" if d["modifier"] else ""
    res = "above its printed morale: it loses a step" if d["loses"] else "not above its printed morale: no loss"
    return [f"- Tank breakdown check for {d['unit']}: die {d['die']}{mod} against morale {d['morale']}, {res} ({e.rule})."]


def _control_line(e: Event) -> list[str]:
    return [f"- Control ({e.rule}, A-2): {', '.join(hs)} become{'s' if len(hs) == 1 else ''} {side.capitalize()}:"
            f" only its zone of control reaches {'it' if len(hs) == 1 else 'them'}." for side, hs in sorted(e.data["gained"].items())]


RENDER = {
    "control": _control_line,
    "move": _move_line,
    "move-skipped": _skipped,
    "breakdown-check": _check_line,
    "reinforcement": lambda e: [f"- Reinforcements {', '.join(e.data['units'])} enter at {e.data['hex']}, in supply"
                                f" (artillery towed, with full ammunition) ({e.rule}, 12.12)."],
    "garrison-released": lambda e: [f"- {e.data['unit']} moved to {e.data['hex']}, {e.data['distance']} hexes from"
                                    f" Kishinev: the Chisinau garrison is released ({e.rule})."],
    "entrenchment-removed": lambda e: [f"- The entrenchment in {e.data['hex']} is removed ("
                                       + (f"an enemy unit moved next to it in {e.data['by']}" if e.data["by"]
                                          else "no friendly unit is in it at the end of the Movement Phase")
                                       + f", {e.rule})."],
    "bridge-failed": lambda e: [f"- The bridge {e.data['unit']} is building across {e.data['hexside']} cannot be placed:"
                                f" an enemy unit moved next to it in {e.data['by']} ({e.rule})."],
    "bridge-removed": lambda e: [f"- The bridge across {e.data['hexside']} and its engineer {e.data['unit']} are removed"
                                 f" from play: an enemy unit moved next to it in {e.data['by']} ({e.rule})."],
    "withdrawn": lambda e: [f"- {', '.join(e.data['units'])} leave the map at {e.data['hex']}, withdrawn with their"
                            f" division; they count for no victory points ({e.rule})."],
    "withdrawal": lambda e: [f"- The Soviet player withdraws {', '.join(e.data['formations'])}: its units leave by the"
                             f" east or south edge ({e.rule})."],
    "removed": lambda e: [f"- {e.data['unit']} in {e.data['at']} is removed from play by the Soviet player ({e.rule})."],
    "formation-out": lambda e: [f"- {e.data['formation']} has no unit left in play: its formation marker is removed ({e.rule})."],
    "overstacked": lambda e: [f"- {e.data['hex']} is overstacked ({e.data['value']} battalions): the enemy eliminates"
                              f" {e.data['unit']} ({'his standing instruction' if e.data['chosen'] == 'standing' else 'strongest first'},"
                              f" {e.rule}, A-24)."],
    "breakdown": lambda e: [f"- {e.data['unit']} breaks down in {e.data['hex']} into {', '.join(e.data['companies'])} ({e.rule}, 14.5)."],
    "reform": lambda e: [f"- {', '.join(e.data['companies'])} re-form {e.data['battalion']} in {e.data['hex']} with"
                         f" {e.data['steps']} step(s) ({e.rule}, 14.4)."],
    "reform-skipped": lambda e: [f"- {e.data['battalion']} is not re-formed: {e.data['why']} ({e.rule})."],
}
