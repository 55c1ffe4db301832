"""Movement (1.23, 1.24, 5.x): operational movement (5.1), leaving contested areas (5.14, 7.52),
swamps, straits, fortresses, the Urals (5.15-5.18), strategic movement (5.2), sea transport of
land units (5.3), GS alone in an area (6.64), stacking at the end of each phase (5.5).

Orders (docs/europe-engulfed.md): ``[[move]] units = [...], gs = { NATION = n }, from = AREA,
path = [AREA, ...], sea = SEA`` (the path lists the places entered, in order; a group's blocks
start in one area, GS markers in ``from``); ``[[evacuate]] area, nation, moves = [...]`` (7.52);
``[[strat]] units, gs, from, path, sea = [SEA, ...], cape = bool`` (5.2, 5.32, 5.33).

Checking and resolving are one walk on the context (a working copy): with ``problems`` given a
move that breaks a rule records its problems and is not made (the moves after it see the position
without it); without, it is made and its events are emitted.

What a phase did is kept in ``ctx.scratch`` (cleared by ``end_phase``): the blocks moved in it
(5.11: one move per phase; 5.14a), the GS markers that arrived in each area (they may not move on),
the blocks that strat-moved.

Sea transport meets the naval war (naval.py): a group carried in operational movement may be
engaged in naval combat as it sails, before it lands (5.31 step 2, 8.1; the units lost at sea do
not arrive), and each unit strat-moving by sea may be interdicted in each zone it crosses (5.32,
8.2; the steps are lost at its destination). Checking fights neither (no dice).

Stand-ins for rules not yet adjudicated (section 9): a neutral or Vichy area is
not entered in operational movement (declarations of war, 1.23 and 9.x, come with the whole war);
the National Limits Chart's strategic-warfare modifiers (2.13, 2.25, 2.27) are not applied; the
fleet points that may carry a unit are its own nation's first, then those of its side's other
nations, never Franco-British (9.51a) nor Soviet and Western together (as 3.31).
"""

from __future__ import annotations

import copy
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import allied_powers, axis_powers, naval, politics
from . import strategic as strategic_warfare
from .context import INFANTRY_CLASS, OOS, OOS_MOVED, TWO_AREA, Ctx, other
from .data import ALLIES, AXIS, NEUTRAL, VICHY

KEYS = ("move", "evacuate", "strat")

URALS = "ural-mountains"  # 5.18
KERCH, SEVASTOPOL = "Kerch", "sevastopol"  # 5.16c
CAPE_PORTS = ("upper-egypt", "persia")  # 5.33
CAPE_FP = 4  # 5.33: 4 Atlantic FPs' worth of transport
WESTERN = frozenset({"britain", "usa", "france"})
AXIS_MAJORS_AND_MINORS = frozenset({"germany", "italy", "finland", "romania", "hungary", "bulgaria"})
WEST_ALLIED = frozenset({"britain", "france", "usa"})  # 4.7: the garrisons of Allied-held German and Italian areas
MOVED, STRAT, ARRIVED = "moved", "strat", "arrived"  # ctx.scratch keys


# --- small helpers ------------------------------------------------------------------------------
def _scratch(ctx: Ctx, key: str) -> Any:
    if key == ARRIVED:
        return ctx.scratch.setdefault(key, {})
    return ctx.scratch.setdefault(key, set())


def _report(problems: list[Problem] | None, where: str, text: str, rule: str) -> None:
    if problems is not None:
        problems.append(Problem(where, text, rule))


def _swamp(ctx: Ctx, a: str) -> bool:
    """A swamp for movement: 1.12, in Snow a swamp counts as Rough (armor is still barred)."""
    return ctx.area(a).terrain == "swamp" and ctx.weather(a) != "snow"


def _enemy_ground(ctx: Ctx, a: str, side: str) -> list[str]:
    return ctx.side_in(a, other(side))


def _enemy_occupied(ctx: Ctx, a: str, side: str) -> bool:
    """5.12, A-67: an area holding enemy ground units (GS alone do not count, 6.64)."""
    return bool(_enemy_ground(ctx, a, side))


def _friendly_uncontested(ctx: Ctx, a: str, side: str) -> bool:
    return ctx.controller(a) == side and not ctx.contested(a)


def is_port(ctx: Ctx, a: str, sea: str, side: str) -> bool:
    """Whether ``a`` is a port on ``sea`` for ``side`` (3.3, 5.3): a surrounding area is one only while
    its fortress is friendly and not contested (Glossary "Fortress", A-01; option fortress_port)."""
    area = ctx.area(a)
    if sea not in area.ports:
        return False
    return ctx.port_open(a, side)


def carriers(ctx: Ctx, nation: str) -> list[str]:
    """The nations whose fleet points may carry a unit of ``nation`` (stand-in, see the module's
    docstring): its own first, then its side's others in name order, never France with Britain
    (9.51a) nor the USSR with the Western Allies."""
    side = ctx.side_of_nation(nation)
    fleets = ctx.pos.get("fleets", {})
    nations = sorted({n for by in fleets.values() for n in by})
    out = [nation]
    for n in nations:
        if n == nation or ctx.side_of_nation(n) != side:
            continue
        if {n, nation} == {"britain", "france"}:
            continue
        if side == ALLIES and (n == "ussr") != (nation == "ussr"):
            continue
        out.append(n)
    return out


def free_fp(ctx: Ctx, sea: str, nation: str) -> dict[str, int]:
    """The FPs in ``sea`` that may still carry a unit of ``nation`` this game turn (5.34), by carrier."""
    fleets = ctx.pos.get("fleets", {}).get(sea, {})
    used = ctx.pos.get("transport", {}).get(sea, {})
    out = {}
    for n in carriers(ctx, nation):
        left = int(fleets.get(n, 0)) - int(used.get(n, 0))
        if left > 0:
            out[n] = left
    return out


def _use_fp(ctx: Ctx, sea: str, nation: str, n: int) -> dict[str, int]:
    """``n`` FPs of ``sea`` carry units of ``nation`` (5.34: flipped to "w/out Transport")."""
    used: dict[str, int] = {}
    left = n
    for carrier, free in free_fp(ctx, sea, nation).items():
        k = min(free, left)
        if k:
            here = ctx.pos.setdefault("transport", {}).setdefault(sea, {})
            here[carrier] = int(here.get(carrier, 0)) + k
            used[carrier] = k
            left -= k
    return used


def ungarrisoned(ctx: Ctx, a: str, side: str) -> bool:
    """4.7: a resource area ``side`` controls and must garrison but holds no ground unit of the
    garrison: an Axis or Soviet conquest outside its own countries, Alexandria (a British unit), a
    German or Italian resource area held by the Allies (a British, French or US unit)."""
    area = ctx.area(a)
    if not area.resource or ctx.controller(a) != side:
        return False
    here = ctx.side_in(a, side)
    if area.garrison:
        return not any(ctx.nation(u) == area.garrison for u in here)
    own = {area.home, area.associated} - {""}
    if side == AXIS:
        return not (own & AXIS_MAJORS_AND_MINORS) and not here
    if own & {"germany", "italy"}:
        return not any(ctx.nation(u) in WEST_ALLIED for u in here)
    if own and all(ctx.side_of_nation(n) == ALLIES for n in own):
        return False
    return not here


def strat_limit(ctx: Ctx, nation: str, west: bool = False, modified: bool = True) -> int:
    """5.24: the National Limits Chart (charts.toml ``national_limits``, provisional: 20.3 is NOT IN
    SOURCE) by year, a minor power's from ``minor``, changed by strategic warfare this turn
    (``modified``: 2.13, 2.25, and for a move touching the West weather zone (``west``) 2.27;
    strategic.strat_modifier); never below 1 (option strat_limit_floor)."""
    data = ctx.sc.charts["national_limits"].data
    row: dict[str, Any] = data[nation] if isinstance(data.get(nation), dict) else dict(data.get("minor", {}))
    years = sorted(int(y) for y in row if int(y) <= ctx.turn.year)
    limit = int(row[str(years[-1])]) if years else 0
    if modified:
        limit += strategic_warfare.strat_modifier(ctx, nation, west)
    return max(limit, int(ctx.option("strat_limit_floor")))


# --- operational movement -----------------------------------------------------------------------
def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the movement orders: the walk of the phases on the working copy (1.23:
    the moves in order, then the evacuations, 5.5 at the end of the phase; 1.24: the strat-moves)."""
    _operational(ctx, body, problems)
    end_phase(ctx, "1.23")
    for i, m in enumerate(body.get("strat", [])):
        strat_move(ctx, m, f"strat[{i}]", problems, "initial")


def operational(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.23, 5.1: the operational moves in order, then the evacuations without a rearguard (7.52)."""
    _operational(ctx, body, None)


def _operational(ctx: Ctx, body: dict[str, Any], problems: list[Problem] | None) -> None:
    for i, m in enumerate(body.get("move", [])):
        move_group(ctx, m, f"move[{i}]", problems, "operational")
    for i, ev in enumerate(body.get("evacuate", [])):
        evacuate(ctx, ev, f"evacuate[{i}]", problems)


def _group(ctx: Ctx, m: dict[str, Any], where: str, problems: list[Problem] | None, strat: bool) -> tuple[str, list[str], dict[str, int]] | None:
    """The group a move names: its start, its blocks, its GS markers; None (with the problems) when
    it names blocks that are not the phasing side's, not in one area, or GS that are not there."""
    units = [str(u) for u in m.get("units", [])]
    gs = {str(n): int(k) for n, k in sorted(m.get("gs", {}).items()) if int(k) > 0}
    bad = False
    if not units and not gs:
        _report(problems, where, "the move names no block and no GS marker", "5.1")
        return None
    starts = set()
    for j, u in enumerate(units):
        if u not in ctx.units:
            _report(problems, f"{where}.units[{j}]", f"{u} is not a block on the map", "5.1")
            bad = True
        elif ctx.side_of(u) != ctx.side:
            _report(problems, f"{where}.units[{j}]", f"{u} is not a block of the {ctx.side}: only the phasing side moves", "1.23")
            bad = True
        elif units.index(u) != j:
            _report(problems, f"{where}.units[{j}]", f"{u} is named twice", "5.1")
            bad = True
        else:
            starts.add(ctx.at(u))
    frm = str(m.get("from", ""))
    if len(starts) > 1:
        _report(problems, f"{where}.units", f"the blocks of a group start in one area, these in {', '.join(sorted(starts))}", "5.1")
        return None
    if bad:
        return None
    start = next(iter(starts)) if starts else frm
    if frm and frm != start:
        _report(problems, f"{where}.from", f"the group's blocks are in {start}, not {frm}", "5.1")
        return None
    if not start:
        _report(problems, f"{where}.from", "GS markers move from the area named by `from`", "5.1")
        return None
    if start not in ctx.sc.map.areas:
        _report(problems, f"{where}.from", f"'{start}' is not a place of the map", "5.1")
        return None
    arrived = _scratch(ctx, ARRIVED).get(start, {})
    for n, k in gs.items():
        if ctx.side_of_nation(n) != ctx.side:
            _report(problems, f"{where}.gs.{n}", f"{n}'s GS markers are not the {ctx.side}'s", "1.23")
            bad = True
            continue
        have = ctx.gs_in(start).get(n, 0) - (0 if strat else int(arrived.get(n, 0)))
        if k > have:
            _report(problems, f"{where}.gs.{n}", f"{k} {n} GS marker(s) move from {start}, which has {max(have, 0)} that may "
                    "move (a GS marker moves once a phase)", "5.12")
            bad = True
    return None if bad else (start, units, gs)


def move_group(ctx: Ctx, m: dict[str, Any], where: str, problems: list[Problem] | None, mode: str = "operational") -> None:
    """One operational move of a group of blocks (and GS markers) along ``m["path"]`` (5.1):
    ``mode`` operational (1.23), breakthrough (5.4: the caller checks who may move, 5.41-5.43) or
    evacuate (7.52: no rearguard). Checking (``problems`` given) and resolving are the same walk on
    the context: a problem is recorded with ``where`` (``move[2].path[1]``) and the move is not made;
    resolving, the move is made and its events emitted."""
    found: list[Problem] = []
    g = _group(ctx, m, where, found, strat=False)
    if g is None:
        _fail(ctx, m, where, found, problems)
        return
    start, units, gs = g
    path = [str(a) for a in m.get("path", [])]
    sea = str(m.get("sea", ""))
    if not path:
        found.append(Problem(f"{where}.path", "the path names no area to enter", "5.1"))
    for k, a in enumerate(path):
        if a not in ctx.sc.map.areas or not ctx.area(a).ground:
            found.append(Problem(f"{where}.path[{k}]", f"'{a}' is not a land area or fortress of the map", "5.1"))
    if found:
        _fail(ctx, m, where, found, problems)
        return
    moved = _scratch(ctx, MOVED)
    for j, u in enumerate(units):
        if u in moved:
            found.append(Problem(f"{where}.units[{j}]", f"{u} has already moved in this phase: a unit moves once in a movement "
                                 "phase", "5.11"))
        if ctx.units[u].get("oos") in (OOS, OOS_MOVED) and mode == "breakthrough":
            found.append(Problem(f"{where}.units[{j}]", f"{u} is out of supply: no breakthrough movement", "3.4"))
    if mode == "breakthrough" and _swamp(ctx, start):
        found.append(Problem(f"{where}.path[0]", f"{start} is a swamp: units leave a swamp only in the initial movement "
                             "phases (no breakthrough movement)", "5.15"))
    if sea:
        _check_sea(ctx, start, units, gs, path, sea, where, found)
    else:
        _check_land(ctx, start, units, gs, path, where, found, mode)
    _check_leaving(ctx, start, units, path, where, found, mode)
    if found:
        _fail(ctx, m, where, found, problems)
        return
    _make(ctx, start, units, gs, path, sea, mode)


def _fail(ctx: Ctx, m: dict[str, Any], where: str, found: list[Problem], problems: list[Problem] | None) -> None:
    if problems is not None:
        problems.extend(found)
    # resolving: checked orders are legal; a move found illegal here (an earlier move changed the
    # position) is skipped and said so
    elif found:
        ctx.emit("move-refused", found[0].rule, where=where, units=[str(u) for u in m.get("units", [])],
                 why=found[0].message)


def _steps(ctx: Ctx, start: str, path: list[str]) -> list[tuple[str, str, int]]:
    """Each step (from, to, cost): entering a place costs 1, but a move between a fortress and its
    surrounding area costs nothing when the side controls both (5.17)."""
    out = []
    prev = start
    for a in path:
        free = ("fortress" in ctx.sc.map.features(prev, a) and ctx.controller(prev) == ctx.side
                and ctx.controller(a) == ctx.side)
        out.append((prev, a, 0 if free else 1))
        prev = a
    return out


def _check_land(ctx: Ctx, start: str, units: list[str], gs: dict[str, int], path: list[str], where: str,
                found: list[Problem], mode: str) -> None:
    side = ctx.side
    steps = _steps(ctx, start, path)
    cost = sum(c for _, _, c in steps)
    for k, (a, b, c) in enumerate(steps):
        w = f"{where}.path[{k}]"
        feats = ctx.sc.map.features(a, b)
        air = "air-route" in feats and b not in ctx.neighbours(a)
        if b not in ctx.neighbours(a) and not air:
            found.append(Problem(w, f"{b} is not adjacent to {a}", "5.11"))
            return
        if air:
            if units:
                found.append(Problem(w, f"{a} and {b} are linked by an air-route only: ground units cross a sea zone by sea "
                                     "transport (5.3); GS markers alone fly air-routes", "5.13"))
            elif k != 0 or len(path) != 1:
                found.append(Problem(w, f"crossing the air-route from {a} to {b} uses the GS markers' whole move: it starts "
                                     "the move and ends it", "5.13"))
        ctl = ctx.controller(b)
        if ctl in (NEUTRAL, VICHY) and not allied_powers.pact_entry(ctx, units, gs, b):  # 9.25: the Soviet occupation
            found.append(Problem(w, f"{b} is {'Vichy' if ctl == VICHY else 'neutral'}: entering it needs a declaration of war "
                                 "(1.23, 9.x: not adjudicated yet)", "1.23"))
        peace = politics.may_enter(ctx, side, b)
        if peace:
            found.append(Problem(w, f"{b}: {peace}", "1.23"))
        for text, why in axis_powers.entry_problems(ctx, units, gs, a, b, final=k == len(path) - 1, strat=False,
                                                    initial=mode == "operational"):
            found.append(Problem(w, f"{b}: {text}", why))
        if b == URALS and side == AXIS:
            found.append(Problem(w, "Axis units may not enter the Ural Mountains", "5.18"))
        if k < len(path) - 1:
            nxt = f"{where}.path[{k + 1}]"
            if _enemy_occupied(ctx, b, side) and c:
                found.append(Problem(nxt, f"{b} is enemy-occupied: a unit entering it stops there", "5.12"))
            elif _swamp(ctx, b) and c:
                found.append(Problem(nxt, f"{b} is a swamp: a unit entering a swamp stops there", "5.15"))
        if "strait" in feats:
            _check_strait(ctx, a, b, k, units, gs, path, w, found)
        if ctx.area(b).fortress:
            _check_fortress(ctx, a, b, units, w, found)
        if ctx.area(b).terrain == "swamp":
            for j, u in enumerate(units):
                if not ctx.need(u, INFANTRY_CLASS, "5.15", f"entered the swamp {b}"):
                    found.append(Problem(f"{where}.units[{j}]", f"{u} is armor: armor may not enter or pass through swamps ({b})",
                                         "5.15"))
        if c and ("mud" in (ctx.weather(a), ctx.weather(b))) and cost > 1:
            mud = a if ctx.weather(a) == "mud" else b
            found.append(Problem(w, f"{mud} is in Mud: entering or leaving a Mud area uses the whole movement allowance "
                                 "(a move of 1 area)", "1.13"))
    if cost > 2:
        found.append(Problem(f"{where}.path", f"the path costs {cost} areas: no unit moves more than 2 areas", "5.12"))
        return
    for j, u in enumerate(units):
        oos = ctx.units[u].get("oos") in (OOS, OOS_MOVED)
        if cost > 1 and oos:
            found.append(Problem(f"{where}.units[{j}]", f"{u} is out of supply: it moves only 1 area", "3.4"))
        elif cost > 1 and not ctx.need(u, TWO_AREA, "5.12", f"moved 2 areas to {path[-1]}"):
            found.append(Problem(f"{where}.units[{j}]", f"{u} is {ctx.kind(u)}: infantry, militia and airborne move 1 area "
                                 "(armor, cavalry and GS 2)", "5.11"))
    for k, b in enumerate(path):  # 9.12, 9.21, 9.22, 9.28, 9.33, 9.51b: where the units' nations may operate
        found += allied_powers.operate(ctx, units, gs, b, f"{where}.path[{k}]")
    dest = path[-1]
    if gs and not units and _enemy_occupied(ctx, dest, side) and not ctx.side_in(dest, side):
        found.append(Problem(f"{where}.path[{len(path) - 1}]", f"GS markers may not enter {dest} alone: it holds enemy "
                             "ground units and no friendly one (GS alone with the enemy are eliminated, 6.64)", "6.64"))


def _check_strait(ctx: Ctx, a: str, b: str, k: int, units: list[str], gs: dict[str, int], path: list[str], w: str,
                  found: list[Problem]) -> None:
    """5.16, A-61: the crossing is the whole move (it starts adjacent and ends across); only
    infantry-class units cross into an enemy-controlled area; the Axis crosses the Kerch strait
    only once Sevastopol is Axis-controlled."""
    name = ctx.sc.map.border_name(a, b)
    if k != 0 or len(path) != 1:
        found.append(Problem(w, f"crossing the {name} strait is a unit's whole operational move: it starts next to the strait "
                             "and ends across it", "5.16"))
    if name == KERCH and ctx.side == AXIS and ctx.controller(SEVASTOPOL) != AXIS:
        found.append(Problem(w, "Axis units may not cross the Kerch strait until the Sevastopol fortress is Axis-controlled",
                             "5.16"))
    if ctx.controller(b) == other(ctx.side):
        for j, u in enumerate(units):
            if not ctx.need(u, INFANTRY_CLASS, "5.16", f"crossed the {name} strait into {b}"):
                found.append(Problem(f"{w.rsplit('.path', 1)[0]}.units[{j}]", f"{u} is armor: only infantry-class units cross a "
                                     f"strait into an enemy-controlled area ({b})", "5.16"))
        if gs:
            found.append(Problem(w, f"only infantry-class units cross a strait into an enemy-controlled area ({b}): not GS",
                                 "5.16"))


def _check_fortress(ctx: Ctx, a: str, f: str, units: list[str], w: str, found: list[Problem]) -> None:
    """6.85: a fortress held by the enemy is entered only once its surrounding area holds no enemy
    unit; armor never enters a fortress (A-27, option armor_in_fortress)."""
    side = ctx.side
    within = ctx.area(f).within
    if (ctx.controller(f) == other(side) or _enemy_ground(ctx, f, side)) and within and _enemy_ground(ctx, within, side):
        found.append(Problem(w, f"{f} may not be entered while enemy units hold its surrounding area {within}", "6.85"))
    if not ctx.option("armor_in_fortress"):
        for j, u in enumerate(units):
            if not ctx.need(u, INFANTRY_CLASS, "6.85", f"entered the fortress {f}"):
                found.append(Problem(f"{w.rsplit('.path', 1)[0]}.units[{j}]", f"{u} is armor: armor may not enter a fortress "
                                     f"({f})", "6.85"))


def _check_sea(ctx: Ctx, start: str, units: list[str], gs: dict[str, int], path: list[str], sea: str, where: str,
               found: list[Problem]) -> None:
    """5.31, 5.34: from a friendly-controlled port to a friendly-controlled port or a contested area
    of the same sea zone, the whole move; 1 unit (block or GS) per available FP a game turn."""
    side = ctx.side
    if sea not in ctx.sc.map.areas or ctx.area(sea).kind != "sea":
        found.append(Problem(f"{where}.sea", f"'{sea}' is not a sea zone", "5.31"))
        return
    if ctx.controller(start) != side or not is_port(ctx, start, sea, side):
        found.append(Problem(f"{where}.sea", f"{start} is not a friendly-controlled port on the {sea}: sea transport starts in "
                             "one", "5.31"))
    if len(path) != 1:
        found.append(Problem(f"{where}.path", "units carried by sea go to one destination and move no further that phase",
                             "5.31"))
        return
    dest = path[0]
    if not is_port(ctx, dest, sea, side) and sea not in ctx.area(dest).ports:
        found.append(Problem(f"{where}.path[0]", f"{dest} is not a port on the {sea}", "5.31"))
    elif not (ctx.contested(dest) or ctx.controller(dest) == side and is_port(ctx, dest, sea, side)):
        found.append(Problem(f"{where}.path[0]", f"{dest} is neither a friendly-controlled port nor a contested area: "
                             "landing in an enemy area is an invasion (7.2)", "5.31"))
    if dest == URALS and side == AXIS:
        found.append(Problem(f"{where}.path[0]", "Axis units may not enter the Ural Mountains", "5.18"))
    found += allied_powers.operate(ctx, units, gs, dest, f"{where}.path[0]")  # 9.x where units operate
    found += allied_powers.usa_box(ctx, start, dest, f"{where}.path[0]")  # 9.37
    found += allied_powers.italian_transport(ctx, units, sea, f"{where}.sea")  # 9.12
    for text, why in axis_powers.entry_problems(ctx, units, gs, start, dest, final=True, strat=False, initial=True, seas=[sea]):
        found.append(Problem(f"{where}.path[0]", f"{dest}: {text}", why))
    if ctx.area(dest).fortress:
        _check_fortress(ctx, start, dest, units, f"{where}.path[0]", found)
    _check_capacity(ctx, sea, _carried(ctx, units, gs), f"{where}.sea", found, "5.34")


def _carried(ctx: Ctx, units: list[str], gs: dict[str, int]) -> dict[str, int]:
    """The units carried by nation (each block and each GS marker is 1, 5.34)."""
    out: dict[str, int] = {}
    for u in units:
        out[ctx.nation(u)] = out.get(ctx.nation(u), 0) + 1
    for n, k in gs.items():
        out[n] = out.get(n, 0) + k
    return dict(sorted(out.items()))


def _check_capacity(ctx: Ctx, sea: str, carried: dict[str, int], where: str, found: list[Problem], rule: str,
                    factor: int = 1) -> None:
    """5.34: each FP carries 1 unit a game turn; the carriers already used are flipped."""
    used: dict[str, int] = {}
    for nation, k in carried.items():
        free = free_fp(ctx, sea, nation)
        left = sum(max(v - used.get(c, 0), 0) for c, v in free.items())
        if left < k * factor:
            found.append(Problem(where, f"{k * factor} FP(s) of transport needed in the {sea} for {nation}'s units, {left} "
                                 "available this game turn (each FP carries 1 unit a game turn)", rule))
        need = k * factor
        for c, v in free.items():
            take = min(max(v - used.get(c, 0), 0), need)
            used[c] = used.get(c, 0) + take
            need -= take


def _check_leaving(ctx: Ctx, start: str, units: list[str], path: list[str], where: str, found: list[Problem],
                   mode: str) -> None:
    """5.14: a unit leaves a contested area only with its first move into a friendly-controlled,
    non-contested area, entering no enemy-controlled or contested area after it that phase, and
    with a rearguard of at least as many steps as the enemy has units there (A-60; option
    rearguard). 7.52: an evacuation needs no rearguard."""
    side = ctx.side
    if not ctx.contested(start) or not path:
        return
    first = path[0]
    if not _friendly_uncontested(ctx, first, side):
        found.append(Problem(f"{where}.path[0]", f"{start} is contested: a unit leaving it moves first into a friendly-controlled, "
                             f"non-contested area, and {first} is not", "5.14"))
    for k, a in enumerate(path[1:], 1):
        if ctx.contested(a) or ctx.controller(a) == other(side) or _enemy_occupied(ctx, a, side):
            found.append(Problem(f"{where}.path[{k}]", f"a unit that left the contested area {start} enters no enemy-controlled "
                                 f"or contested area in this phase ({a})", "5.14"))
    if mode == "evacuate":
        return
    enemy = len(_enemy_ground(ctx, start, side))
    stay = [u for u in ctx.side_in(start, side) if u not in units]
    if not _rearguard(ctx, stay, enemy, start):
        word = "units" if ctx.option("rearguard") == "units-vs-units" else "steps"
        found.append(Problem(f"{where}.units", f"leaving the contested area {start} needs a rearguard of at least {enemy} "
                             f"{word} (the enemy's units there); {len(stay)} unit(s) stay, too few", "5.14"))


def _rearguard(ctx: Ctx, stay: list[str], enemy: int, area: str) -> bool:
    """Whether the blocks staying are a rearguard against ``enemy`` enemy units (A-60): their steps
    or, option units-vs-units, their number. Hidden blocks whose steps could make the total record
    one claim on the group (each of their items: ``group_steps``), checked once they are all
    opened (fog.check_opening)."""
    if ctx.option("rearguard") == "units-vs-units":
        return len(stay) >= enemy
    known = sum(ctx.steps(u) or 0 for u in stay)
    hidden = [u for u in stay if ctx.steps(u) is None]
    if enemy - known <= len(hidden):  # every block has at least 1 step
        return True
    top = sum(max((ctx.sc.units.blocks[b].steps for b in ctx.possible_blocks(u)), default=1) for u in hidden)
    if known + top < enemy:
        return False
    items = [str(ctx.units[u]["item"]) for u in hidden]
    lost = {str(ctx.units[u]["item"]): int(ctx.units[u]["lost"]) for u in hidden if ctx.units[u].get("lost")}
    group: dict[str, Any] = {"items": items, "units": hidden, "at_least": enemy, "known": known}
    if lost:
        group["lost"] = lost
    for u in hidden:
        ctx.claim(u, {"group_steps": copy.deepcopy(group), "rule": "5.14", "why": f"a rearguard in {area}"})
    return True


def _enter(ctx: Ctx, b: str, movers: list[str], final: bool) -> list[str]:
    """The effects of the group's entering ``b``: enemy GS alone eliminated (6.64); an
    ungarrisoned enemy fortress captured (5.17); an area passed through becomes friendly when no
    enemy is there (Glossary "Control"); returns the movers that gained the area."""
    side = ctx.side
    gained = []
    enemy_gs = ctx.side_gs(b, other(side))
    if enemy_gs and not _enemy_ground(ctx, b, side):
        for n, k in enemy_gs.items():
            ctx.add_gs(b, n, -k)
            ctx.emit("gs-eliminated", "6.64", area=b, nation=n, count=k,
                     why="alone in the area as the enemy enters (the entering units need not stop)")
    was = ctx.controller(b)
    fort = ctx.sc.map.fortress_of(b)
    if fort and was == other(side) and not ctx.units_in(fort) and not ctx.gs_in(fort):
        ctx.set_control(fort, side, "5.17")
    if not final and not _enemy_occupied(ctx, b, side) and not ctx.contested(b) and movers:
        ctx.set_control(b, side, "5.1")
    if was != side and ctx.controller(b) == side:
        gained = list(movers)
    return gained


def _make(ctx: Ctx, start: str, units: list[str], gs: dict[str, int], path: list[str], sea: str, mode: str) -> None:
    side = ctx.side
    moved = _scratch(ctx, MOVED)
    gained: set[str] = set()
    carried: dict[str, dict[str, int]] = {}
    naval_note = ""
    lost: list[str] = []
    if sea:
        for nation, k in _carried(ctx, units, gs).items():
            carried[nation] = _use_fp(ctx, sea, nation, k)
        carrying: dict[str, int] = {}
        for by in carried.values():
            for carrier, k in by.items():
                carrying[carrier] = carrying.get(carrier, 0) + k
        lost, lost_gs, naval_note = naval.engage(ctx, sea, units, gs, carrying, "5.31", f"the units sailing to {path[-1]}")
        units = [u for u in units if u not in lost]
        for n, k in lost_gs.items():
            ctx.add_gs(start, n, -k)
            ctx.emit("gs-eliminated", "8.14", area=start, nation=n, count=k,
                     why=f"carried by a fleet point destroyed in the naval combat in the {sea}")
        gs = {n: c - lost_gs.get(n, 0) for n, c in gs.items() if c - lost_gs.get(n, 0) > 0}
        if not units and not gs:
            ctx.emit("move", "5.31", side=side, units=[], gs={}, nations=[], path=[start, *path], mode=mode, sea=sea,
                     fp=carried, naval_combat=naval_note, lost=lost)
            return
    prev = start
    river = strait = False
    for k, b in enumerate(path):
        final = k == len(path) - 1
        feats = ctx.sc.map.features(prev, b)
        river, strait = "river" in feats, "strait" in feats
        if final:
            gained.update(_enter(ctx, b, units, final=True))
            was = ctx.controller(b)
            for u in units:
                ctx.place(u, b)
            for n, c in gs.items():
                ctx.add_gs(start, n, -c)
                ctx.add_gs(b, n, c)
                arrived = _scratch(ctx, ARRIVED).setdefault(b, {})
                arrived[n] = arrived.get(n, 0) + c
            ctx.update_contested(start, "5.14" if ctx.contested(start) else "5.1")
            ctx.update_contested(b, "5.1")
            if was != side and ctx.controller(b) == side:
                gained.update(units)
            if ctx.area(b).fortress and was != side:
                for u in units:  # 5.5, 6.85: an attacker of the fortress until the final supply phase
                    ctx.flag(u, f"attacking:{b}")
        else:
            gained.update(_enter(ctx, b, units, final=False))
        # 5.17, A-18: infantry entering an area with an enemy-held fortress are pinned
        fort = ctx.sc.map.fortress_of(b)
        if fort and ctx.controller(fort) == other(side):
            for u in units:
                if ctx.klass(u) in ("infantry", None):
                    ctx.flag(u, "pinned")
        prev = b
    for u in units:
        moved.add(u)
        flags = [f for f in ctx.units[u].get("flags", []) if not f.startswith(("from:", "crossed:"))]
        ctx.units[u]["flags"] = flags
        ctx.flag(u, "moved")
        ctx.flag(u, f"from:{path[-2] if len(path) > 1 else start}")
        if river and not sea:
            ctx.flag(u, "crossed:river")
        if strait and not sea:
            ctx.flag(u, "crossed:strait")
        if u in gained:
            ctx.flag(u, "gained")
        if ctx.units[u].get("oos") == OOS:
            ctx.units[u]["oos"] = OOS_MOVED  # 3.5: the marker flipped to its "Moved" side
    nations = sorted({ctx.nation(u) for u in units} | set(gs))
    data: dict[str, Any] = {"side": side, "units": units, "gs": gs, "nations": nations, "path": [start, *path], "mode": mode}
    if sea:
        data.update(sea=sea, fp=carried, naval_combat=naval_note, lost=lost)
    ctx.emit("move", "5.31" if sea else "7.52" if mode == "evacuate" else "5.1", **data)


def evacuate(ctx: Ctx, ev: dict[str, Any], where: str, problems: list[Problem] | None) -> None:
    """7.52: in the initial operational movement phase only, an SA of ``nation`` empties an
    in-supply contested area completely: its moves need no rearguard (5.14a still holds)."""
    area, nation = str(ev.get("area", "")), str(ev.get("nation", ""))
    side = ctx.side
    found: list[Problem] = []
    if not ctx.contested(area):
        found.append(Problem(f"{where}.area", f"{area} is not contested: there is nothing to evacuate", "7.52"))
    if ctx.side_of_nation(nation) != side:
        found.append(Problem(f"{where}.nation", f"{nation} is not a nation of the {side}", "7.52"))
    elif ctx.sa(nation) < 1:
        found.append(Problem(f"{where}.nation", f"{nation} holds no special action to spend", "7.52"))
    mine = ctx.side_in(area, side)
    if any(ctx.units[u].get("oos") for u in mine):
        found.append(Problem(f"{where}.area", f"{area} is not in supply (its units are out of supply): only an in-supply area "
                             "is evacuated", "7.52"))
    leaving = [str(u) for mv in ev.get("moves", []) for u in mv.get("units", [])]
    gs_leaving: dict[str, int] = {}
    for mv in ev.get("moves", []):
        for n, k in mv.get("gs", {}).items():
            gs_leaving[str(n)] = gs_leaving.get(str(n), 0) + int(k)
    staying = [u for u in mine if u not in leaving]
    gs_staying = {n: k - gs_leaving.get(n, 0) for n, k in ctx.side_gs(area, side).items() if k > gs_leaving.get(n, 0)}
    if staying or gs_staying:
        found.append(Problem(f"{where}.moves", f"an evacuation empties {area} completely; staying: "
                             f"{', '.join(staying + [f'{k} {n} GS' for n, k in gs_staying.items()])}", "7.52"))
    for j, mv in enumerate(ev.get("moves", [])):
        starts = {ctx.at(str(u)) for u in mv.get("units", []) if str(u) in ctx.units} | ({str(mv["from"])} if mv.get("from") else set())
        if starts - {area}:
            found.append(Problem(f"{where}.moves[{j}]", f"an evacuation moves units out of {area} only", "7.52"))
    if found:
        if problems is not None:
            problems.extend(found)
        else:
            ctx.emit("move-refused", found[0].rule, where=where, units=leaving, why=found[0].message)
        return
    if problems is None:
        ctx.spend_sa(nation, "7.52", f"{area} evacuated without a rearguard")
    ctx.emit("evacuate", "7.52", area=area, nation=nation)
    for j, mv in enumerate(ev.get("moves", [])):
        mv = {**mv, "from": area} if not mv.get("units") else mv
        move_group(ctx, mv, f"{where}.moves[{j}]", problems, "evacuate")


# --- strategic movement -------------------------------------------------------------------------
def strategic(ctx: Ctx, moves: list[dict[str, Any]]) -> None:
    """1.24, 5.2: the strat-moves in order."""
    for i, m in enumerate(moves):
        strat_move(ctx, m, f"strat[{i}]", None, "initial")


def strat_move(ctx: Ctx, m: dict[str, Any], where: str, problems: list[Problem] | None, mode: str = "initial") -> None:
    """One strategic move (5.2), ``mode`` initial (1.24) or breakthrough (5.44: the caller gives the
    fresh allotment by ending the phase): blocks and GS markers in friendly non-contested areas
    along a path of friendly non-contested land areas (5.21-5.23), not through an ungarrisoned
    conquered resource area (4.7c), with sea legs by FPs (5.32, 5.34) or the Cape route (5.33), GS
    along air-routes (5.22); each block or GS marker is one strat-move of its nation (5.24)."""
    found: list[Problem] = []
    g = _group(ctx, m, where, found, strat=True)
    if g is None:
        _fail(ctx, m, where, found, problems)
        return
    start, units, gs = g
    side = ctx.side
    path = [str(a) for a in m.get("path", [])]
    if path and path[0] == start:
        path = path[1:]  # a path may name its start
    seas = [str(s) for s in m.get("sea", [])]
    cape = bool(m.get("cape", False))
    done = _scratch(ctx, STRAT)
    if not path:
        found.append(Problem(f"{where}.path", "the path names no area to enter", "5.2"))
    for k, a in enumerate(path):
        if a not in ctx.sc.map.areas or not ctx.area(a).ground:
            found.append(Problem(f"{where}.path[{k}]", f"'{a}' is not a land area or fortress of the map", "5.2"))
    for s in seas:
        if s not in ctx.sc.map.areas or ctx.area(s).kind != "sea":
            found.append(Problem(f"{where}.sea", f"'{s}' is not a sea zone", "5.32"))
    if found:
        _fail(ctx, m, where, found, problems)
        return
    for j, u in enumerate(units):
        if ctx.units[u].get("oos") in (OOS, OOS_MOVED):
            found.append(Problem(f"{where}.units[{j}]", f"{u} is out of supply: it may not strat-move", "3.4"))
        if u in done:
            found.append(Problem(f"{where}.units[{j}]", f"{u} has already strat-moved in this phase", "5.21"))
    if not _friendly_uncontested(ctx, start, side):
        found.append(Problem(f"{where}.from" if not units else f"{where}.units",
                             f"{start} is not a friendly-controlled, non-contested area: strategic movement starts in one", "5.21"))
    if mode == "breakthrough" and _swamp(ctx, start):
        found.append(Problem(f"{where}.path[0]", f"{start} is a swamp: units leave a swamp only in the initial movement "
                             "phases", "5.15"))
    leg = _sea_leg(ctx, start, path, seas, cape, where, found) if seas or cape else None
    if leg is not None:
        _check_strat_capacity(ctx, seas, _carried(ctx, units, gs), cape, where, found)
    prev = start
    for k, b in enumerate(path):
        w = f"{where}.path[{k}]"
        by_sea = leg is not None and k == leg
        feats = ctx.sc.map.features(prev, b)
        air = "air-route" in feats and b not in ctx.neighbours(prev)
        if not by_sea and b not in ctx.neighbours(prev):
            if air and units:
                found.append(Problem(w, f"{prev} and {b} are linked by an air-route: GS markers alone strat-move along it; "
                                     "blocks need sea transport (5.32)", "5.22"))
            elif not air:
                found.append(Problem(w, f"{b} is not adjacent to {prev}" + (" (a sea leg needs `sea`)" if not seas else ""),
                                     "5.22"))
        final = k == len(path) - 1
        vichy_pass = ctx.controller(b) == VICHY and side == AXIS and not final  # J-5: Vichy territory may be passed through
        if not (_friendly_uncontested(ctx, b, side) or vichy_pass):
            found.append(Problem(w, f"{b} is {'contested' if ctx.contested(b) else 'not friendly-controlled'}: strategic "
                                 "movement may not leave, pass through or enter enemy-controlled or contested areas", "5.23"))
        if ungarrisoned(ctx, b, side):
            found.append(Problem(w, f"{b} is a conquered resource area without its garrison: strategic movement may not "
                                 "enter or pass through it", "4.7"))
        peace = politics.may_enter(ctx, side, b)
        if peace:
            found.append(Problem(w, f"{b}: {peace}", "1.23"))
        found += allied_powers.operate(ctx, units, {}, b, w)  # 9.12, 9.21, 9.22, 9.28, 9.33, 9.51b
        for text, why in axis_powers.entry_problems(ctx, units, gs, prev, b, final=final, strat=True, initial=mode == "initial",
                                                    seas=(["atlantic"] if cape else seas) if by_sea else None):
            found.append(Problem(w, f"{b}: {text}", why))
        if b == URALS and side == AXIS:
            found.append(Problem(w, "Axis units may not enter the Ural Mountains", "5.18"))
        if ctx.area(b).terrain == "swamp":
            if _swamp(ctx, b) and not final:
                found.append(Problem(f"{where}.path[{k + 1}]", f"{b} is a swamp: a unit entering a swamp stops there", "5.15"))
            for j, u in enumerate(units):
                if not ctx.need(u, INFANTRY_CLASS, "5.15", f"strat-moved into the swamp {b}"):
                    found.append(Problem(f"{where}.units[{j}]", f"{u} is armor: armor may not enter or pass through swamps "
                                         f"({b})", "5.15"))
        if ctx.area(b).fortress and not ctx.option("armor_in_fortress"):
            for j, u in enumerate(units):
                if not ctx.need(u, INFANTRY_CLASS, "6.85", f"strat-moved into the fortress {b}"):
                    found.append(Problem(f"{where}.units[{j}]", f"{u} is armor: armor may not enter a fortress ({b})", "6.85"))
        prev = b
    count = _carried(ctx, units, gs)
    used = {n: int(ctx.pos.get("strat", {}).get(n, 0)) for n in count}
    limits = {n: strat_limit(ctx, n) for n in count}
    if cape:
        if set(count) != {"britain"} or sum(count.values()) != 1:
            found.append(Problem(f"{where}.cape", "one British unit only may strat-move around Africa", "5.33"))
        elif used["britain"]:
            found.append(Problem(f"{where}.cape", f"the Cape route uses all of Britain's strat-moves, and {used['britain']} "
                                 "were used this phase", "5.33"))
    for n, k in count.items():
        if used[n] + k > limits[n]:
            mod = strategic_warfare.strat_modifier(ctx, n)
            why = f"; {mod:+d} by strategic warfare this turn, 2.13, 2.25" if mod else ""
            found.append(Problem(f"{where}", f"{n} may strat-move {limits[n]} unit(s) in this phase (National Limits Chart, "
                                 f"{ctx.turn.year}{why}); {used[n]} used, {k} more asked", "5.24"))
    west = {n: strat_limit(ctx, n, west=True) for n in count} if any(
        ctx.area(a).weather == "west" for a in [start, *path]) else {}  # 2.27: moves touching the West zone
    for n, k in count.items():
        if n in west and west[n] < limits[n] and int(ctx.pos.get("strat", {}).get(f"{n}-west", 0)) + k > west[n]:
            found.append(Problem(f"{where}", f"{n} may strat-move {west[n]} unit(s) through the West weather zone this turn "
                                 f"(bombing in support of ground operations, 2.27, A-09); "
                                 f"{ctx.pos.get('strat', {}).get(f'{n}-west', 0)} used, {k} more asked", "2.27"))
    if found:
        _fail(ctx, m, where, found, problems)
        return
    fp: dict[str, dict[str, dict[str, int]]] = {}
    if leg is not None:
        for s in (["atlantic"] if cape else seas):
            for nation, k in count.items():
                fp.setdefault(s, {})[nation] = _use_fp(ctx, s, nation, k * (CAPE_FP if cape else 1))
    strat = ctx.pos.setdefault("strat", {})
    for n, k in count.items():
        strat[n] = limits[n] if cape else used[n] + k
        if n in west and west[n] < limits[n]:
            strat[f"{n}-west"] = int(strat.get(f"{n}-west", 0)) + k
    dest = path[-1]
    for u in units:
        ctx.place(u, dest)
        done.add(u)
        ctx.flag(u, "moved")
        ctx.flag(u, "strat")
    for n, c in gs.items():
        ctx.add_gs(start, n, -c)
        ctx.add_gs(dest, n, c)
    data: dict[str, Any] = {"side": side, "units": units, "gs": gs, "nations": sorted(count), "path": [start, *path],
                            "mode": mode, "used": {n: strat[n] for n in count}, "limits": limits, "provisional": True}
    if leg is not None:
        data.update(sea=["atlantic"] if cape else seas, cape=cape, fp=fp,
                    interdiction="rolled below (8.21)" if ctx.dice is not None else "rolled when the orders are resolved (8.21)")
    ctx.emit("strat-move", "5.33" if cape else "5.32" if leg is not None else "5.2", **data)
    if leg is not None:  # 8.2: each unit interdicted zone by zone, its losses taken where it landed
        lost_gs = naval.interdict(ctx, ["atlantic"] if cape else seas, units, gs, [str(u) for u in m.get("cadres", [])],
                                  {str(u): int(n) for u, n in m.get("steps", {}).items()})
        for n, k in lost_gs.items():
            ctx.add_gs(dest, n, -k)
            ctx.emit("gs-eliminated", "8.21", area=dest, nation=n, count=k, why="interdicted at sea")


def _sea_leg(ctx: Ctx, start: str, path: list[str], seas: list[str], cape: bool, where: str,
             found: list[Problem]) -> int | None:
    """5.32, 5.33: the index of the path's area reached by sea: the first whose previous place is a
    friendly non-contested port on the first sea zone and which is one on the last; consecutive sea
    zones adjacent (a Cape route border only with ``cape``); the FPs of each zone (5.34)."""
    side = ctx.side
    if cape and not seas:
        seas = ["atlantic"]
    for i in range(len(seas) - 1):
        a, b = seas[i], seas[i + 1]
        feats = ctx.sc.map.features(a, b)
        if b not in ctx.sc.map.places.neighbours(a):
            found.append(Problem(f"{where}.sea[{i + 1}]", f"the {b} does not adjoin the {a}", "5.32"))
        elif "cape-route" in feats and not cape:
            found.append(Problem(f"{where}.sea[{i + 1}]", f"from the {a} to the {b} is the Cape route: `cape = true`", "5.33"))
    leg = None
    prev = start
    for k, b in enumerate(path):
        if is_port(ctx, prev, seas[0], side) and is_port(ctx, b, seas[-1], side):
            leg = k
            break
        prev = b
    if leg is None:
        found.append(Problem(f"{where}.sea", f"no step of the path goes from a port on the {seas[0]} to a port on the {seas[-1]}",
                             "5.32"))
        return None
    emb, dis = ([start, *path][leg], path[leg])
    if cape and not {emb, dis} & set(CAPE_PORTS):
        found.append(Problem(f"{where}.cape", "a unit going around Africa embarks or disembarks at Upper Egypt or Persia", "5.33"))
    if not _friendly_uncontested(ctx, emb, side):
        found.append(Problem(f"{where}.sea", f"{emb} is not a friendly-controlled, non-contested port: units embark in one",
                             "5.32"))
    return leg


def _check_strat_capacity(ctx: Ctx, seas: list[str], count: dict[str, int], cape: bool, where: str,
                          found: list[Problem]) -> None:
    if cape:
        _check_capacity(ctx, "atlantic", count, f"{where}.sea", found, "5.33", CAPE_FP)
        return
    for s in seas:
        _check_capacity(ctx, s, count, f"{where}.sea", found, "5.34")


# --- the end of a phase -------------------------------------------------------------------------
def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of each phase (I.B, J-9): fortress stacking (5.5: 1 unit, 2 in a Soviet-held
    fortress, GS not counted; an attacker in an enemy fortress twice its limit, A-21, dropped
    airborne not counted), the overstack removed by the owner's standing ``overstack`` list, then
    the last ids; the phase's bookkeeping cleared, and after a strategic movement phase the
    strat-moves counted (5.24, 5.44: each strategic phase has a fresh allotment)."""
    for f in ctx.sc.map.fortresses():
        here = ctx.units_in(f)
        if not here:
            continue
        holder = ctx.controller(f)
        for side in sorted({ctx.side_of(u) for u in here}):
            mine = [u for u in here if ctx.side_of(u) == side and not ctx.has_flag(u, "dropped")]
            if side == ctx.side and rule != "1.27" and any(ctx.has_flag(u, f"attacking:{f}") for u in mine):
                continue  # 5.5, 6.85: the attackers of a fortress fall back or occupy it at the final supply phase (landings.final)
            limit = _fortress_limit(ctx, mine)
            if side != holder and len({ctx.side_of(u) for u in here}) > 1:
                base = limit if ctx.option("fortress_attack_limit") == "attacker" else _fortress_limit(
                    ctx, [u for u in here if ctx.side_of(u) != side])
                limit = int(ctx.sc.charts["t17_stacking"].data.get("attacker_factor", 2)) * base
            over = len(mine) - limit
            if over <= 0:
                continue
            order = [str(u) for u in ctx.standing.get(side, {}).get("overstack", []) if str(u) in mine]
            order += sorted((u for u in mine if u not in order), reverse=True)
            for u in order[:over]:
                ctx.eliminate(u, "5.5", f"over the stacking limit of {limit} in the fortress {f} at the end of the phase ({rule})")
    ctx.scratch.clear()
    if rule in ("1.24", "1.26"):
        ctx.pos["strat"] = {}
    allied_powers.persia_entered(ctx, "persia")  # 9.22: who holds Persia
    politics.end_phase(ctx, rule)  # I.B, I.D: conquests (10.0) and what they set off
    axis_powers.end_phase(ctx, rule)  # I.D triggers, 9.41, 9.45 (I.B)


def _fortress_limit(ctx: Ctx, units: list[str]) -> int:
    t17 = ctx.sc.charts["t17_stacking"].data
    soviet = bool(units) and all(ctx.nation(u) == "ussr" for u in units)
    return int(t17["soviet_fortress"] if soviet else t17["fortress"])


# --- report lines -------------------------------------------------------------------------------
def _who(d: dict[str, Any]) -> str:
    parts = list(d.get("units", []))
    parts += [f"{k} {n} GS" for n, k in sorted(d.get("gs", {}).items())]
    return ", ".join(parts)


def _move_line(e: Event) -> list[str]:
    d = e.data
    how = {"breakthrough": "breakthrough move", "evacuate": "evacuation"}.get(str(d.get("mode")), "operational move")
    line = f"- Move ({how}, {e.rule}): {_who(d)} ({', '.join(d.get('nations', []))}) {' → '.join(d['path'])}"
    if d.get("sea"):
        fp = "; ".join(f"{n}: " + ", ".join(f"{k} {c} FP" for c, k in by.items()) for n, by in d.get("fp", {}).items())
        line += f", carried across the {d['sea']} ({fp}; 5.34: those FPs carry no more this game turn); naval combat " \
                f"{d.get('naval_combat', '')}"
        if d.get("lost"):
            line += f"; lost at sea (8.14): {', '.join(d['lost'])}"
    return [line + "."]


def _strat_line(e: Event) -> list[str]:
    d = e.data
    line = f"- Strategic move ({e.rule}): {_who(d)} {' → '.join(d['path'])}"
    if d.get("sea"):
        line += f" by sea across the {', '.join(d['sea'])}" + (" around Africa (the Cape route, 5.33)" if d.get("cape") else "")
        line += f"; naval interdiction {d.get('interdiction', '')}"
    used = ", ".join(f"{n} {d['used'][n]} of {d['limits'][n]}" for n in d.get("nations", []))
    return [line + f". Strat-moves used (5.24, National Limits Chart, provisional data): {used}."]


def _refused(e: Event) -> list[str]:
    return [f"- The move {e.data['where']} is not made: {e.data['why']} ({e.rule})."]


def _evacuate_line(e: Event) -> list[str]:
    return [f"- {str(e.data['nation']).capitalize()} evacuates {e.data['area']} without a rearguard ({e.rule})."]


RENDER: dict[str, Any] = {"move": _move_line, "strat-move": _strat_line, "move-refused": _refused,
                          "evacuate": _evacuate_line}
