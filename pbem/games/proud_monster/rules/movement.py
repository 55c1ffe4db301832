"""Movement (12.1-12.22): the costs of hexes and hexsides (12.10-12.16, 17.9), the movement allowance
(12.1; 9.7-9.8 and 9.18 out of or in air supply; 13.4 rain, Ambiguity 59), a [[move]] hex by hex
(12.1-12.7, 12.22), entry from the OKH reserve areas (8.2-8.3, Ambiguities 14-15), the highway (12.20),
the weather's effects on movement (13.5-13.7, Ambiguity 35) and the units kept in place by the RWR
phase (8.20, 9.18).

The feature rules act on a move through the context's hooks (context.Hooks): supply at the start of
the move (9.8), the air units going with their stack (10.2), the mobile assault that ends it (15.x).
"""

from __future__ import annotations

from pbem.engine.model import Event
from pbem.errors import Place, Problem
from pbem.mechanics.odds import halve_round_up
from pbem.mechanics.paths import cheapest

from ..data import OKH_AREAS, UnitSpec
from ..orders import Move
from ..sequence import other
from .allies import entry_problems
from .arko import arko_fixed
from .context import OFF_MAP_BOXES, Ctx, MoveTracker
from .control import enter_hex
from .hedgehogs import check_hedgehogs, hedgehog_holds
from .places import path_of, problem, under
from .weather import WEATHER_NAMES, WEATHER_RULES, weather_at, weather_ignores
from .works import enter_works

# Ambiguity 14 (option okh_entry = "any-zomo"): the ZOMO of each OKH area, by country: the North
# area's is the Greater-German ZOMO ("any North ZOMO hex", 8.3), the South's the Hungarian and Romanian.
OKH_ZOMO_COUNTRIES = {"north": ("germany",), "south": ("hungary", "romania")}
AIR_SUPPLY_MF = 6  # 9.18: the MF of an air-supplied mechanized unit
# 8.20, 9.18: the units that may not move or attack in this German player turn, kept in the
# position's `stationary` by the RWR phase (rwr.py) until the end of the player turn: a refitting
# division (8.20), an infantry division replaced while air-supplied (9.18).
STATIONARY_WHY = {"8.20": "is refitting this player turn", "9.18": "was replaced while air-supplied this player turn"}


def okh_entry_hexes(ctx: Ctx, area: str) -> list[str]:
    """8.2: the ZOMO hexes next to an OKH area (the map's `okh` key), through which units enter (8.3).
    Ambiguity 14 (option okh_entry): "listed", the digest's reading, keeps to the ranges of 8.2 (the
    North area, for one, touches the ZOMO along 1908N-1025N except 1913N, 2013N and 2014N); with
    "any-zomo" (the wording of 8.3: "any North ZOMO hex") every ZOMO hex of the area's countries
    (OKH_ZOMO_COUNTRIES) is an entry hex as well."""
    key = area.removeprefix("okh-")
    anywhere = ctx.options.get("okh_entry", "listed") == "any-zomo"
    return sorted(h.id for h in ctx.sc.map.hexes.values()
                  if h.okh == key or (anywhere and h.zomo and h.country in OKH_ZOMO_COUNTRIES[key]))


def okh_unavailable(ctx: Ctx, unit: str) -> str:
    """Why a unit in an OKH area may not enter the map now, or "": a diversion to the other area
    takes one entire player-turn sequence (8.3, Ambiguity 15)."""
    until = ctx.position.get("diverting", {}).get(unit)
    if until is not None and (ctx.turn, ctx.pts) < tuple(until):
        return (f"{unit} is being diverted to the {OFF_MAP_BOXES[ctx.at(unit)][7:]} and may enter the map from GT{until[0]}"
                f" sequence {until[1]} (a diversion takes one entire player-turn sequence)")
    return ""


def move_weather_hex(ctx: Ctx, a: str | None, b: str) -> str:
    """Ambiguity 35 (13.2, first bullet): the hex whose zone gives the weather of a step from ``a``
    into ``b`` (movement, the entry of a mobile assault, a retreat). The digest's reading (option
    boundary_weather = "entered", the default) takes the hex entered; "left" takes the hex left. The
    two differ only on a step across the NZ/SZ boundary. Combat always uses the defender's hex."""
    if a is not None and a != b and ctx.options.get("boundary_weather", "entered") == "left":
        return a
    return b


def _boundary_note(ctx: Ctx, a: str | None, b: str, notes: list[str]) -> None:
    """The note of a step whose weather came from the hex left, in a zone with other weather than
    the hex entered's (Ambiguity 35)."""
    if a is None or move_weather_hex(ctx, a, b) != a:
        return
    za = "NZ" if a in OKH_AREAS else ctx.sc.map.hexes[a].zone
    wa = weather_at(ctx, a)
    note = (f"{WEATHER_NAMES[wa]} in the {za}, the zone of the hex left, not {WEATHER_NAMES[weather_at(ctx, b)]} "
            "(13.2, Ambiguity 35, option boundary_weather)")
    if za != ctx.sc.map.hexes[b].zone and wa != weather_at(ctx, b) and note not in notes:
        notes.append(note)


def hexside_cost(ctx: Ctx, unit: UnitSpec, a: str, b: str) -> tuple[int | str, str, list[str]]:
    """Cost of crossing the hexside a-b: 12.15 rivers (+1/+2), 12.16 Sivash/Kerch ("all"),
    all-sea/all-lake hexsides prohibited ("no"); 5.5: German-side units ignore rivers on GT1.
    Weather of the zone of the hex entered (Ambiguity 35; option boundary_weather = "left": of the
    hex left, move_weather_hex): F ignores rivers (13.6); S ignores rivers, the Sivash and the Kerch,
    and lets units cross all-lake hexsides (13.7)."""
    total: int | str = 0
    rule = ""
    notes: list[str] = []
    wx = move_weather_hex(ctx, a, b)
    for feat in sorted(ctx.sc.map.border_features(a, b)):
        if feat == "river" and ctx.turn == 1 and unit.side == "german":
            notes.append("river ignored on GT1 (5.5)")
            continue
        ignored = weather_ignores(ctx, feat, wx)
        if not ignored and feat == "lake" and weather_at(ctx, wx) == "S":
            ignored = "all-lake hexside crossed in snow (13.7)"
        if ignored:
            notes.append(ignored)
            continue
        row = ctx.sc.charts.hexsides.get(feat)
        if row is None:
            continue
        c = row[unit.move_class()]
        if c == "no" or total == "no":
            return "no", str(row.get("rule", "")), notes
        if c == "all" or total == "all":
            total, rule = "all", str(row.get("rule", ""))
            continue
        total = int(total) + int(c)
        if int(c):
            notes.append(f"{feat} +{c} ({row.get('rule', '')})")
            rule = str(row.get("rule", ""))
    if ctx.sc.map.border_features(a, b):
        _boundary_note(ctx, a, b, notes)
    return total, rule, notes


def along_highway(ctx: Ctx, a: str | None, b: str) -> bool:
    """12.20 (option highway): a step from a road hex to an adjacent road hex follows the Minsk-Moscow
    highway (Ambiguity 34), while the highway exists: the first M or S in the NZ ends it (13.10)."""
    if a is None or not ctx.options.get("highway", False) or ctx.position.get("highway_gone", False):
        return False
    hexes = ctx.sc.map.hexes
    return a in hexes and hexes[a].road and hexes[b].road


def hex_cost(ctx: Ctx, unit: UnitSpec, b: str, a: str | None = None) -> tuple[int | str, str, list[str]]:
    """Cost of entering hex b (from a, if given) by its natural terrain (12.10-12.14; a city counts
    as clear, 12.10). 12.20: a mechanized unit entering a forest hex along the highway from a pays 1.
    Weather of b's zone (Ambiguity 35; option boundary_weather = "left": of a's, move_weather_hex):
    F and S make swamp Dry clear (13.6, 13.7); M and S double the Dry in-hex cost (13.5, 13.7;
    Ambiguity 37); in S an all-lake hex may be crossed (13.7), at the cost of clear (the rules give none)."""
    h = ctx.sc.map.hexes[b]
    w = weather_at(ctx, move_weather_hex(ctx, a, b))
    terrain = "clear" if h.settlement == "city" else h.terrain
    notes: list[str] = []
    if terrain == "swamp" and w in ("F", "S"):
        terrain = "clear"
        notes.append(f"swamp counts as clear in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
    elif terrain == "lake" and w == "S":
        terrain = "clear"
        notes.append("all-lake hex crossed in snow, at the cost of clear (13.7)")
    row = ctx.sc.charts.terrain[terrain]
    c = row[unit.move_class()]
    if c == "no":
        return "no", str(row.get("rule", "")), notes
    cost = int(c)
    if terrain == "forest" and unit.mechanized and cost > 1 and along_highway(ctx, a, b):
        cost = 1
        notes.append("forest along the Minsk-Moscow highway: 1 MP for a mechanized unit (12.20)")
    if w in ("M", "S"):
        cost *= 2
        notes.append(f"in-hex costs doubled in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
    _boundary_note(ctx, a, b, notes)
    return cost, str(row.get("rule", "")), notes


def supply_mf(ctx: Ctx, unit: str) -> tuple[int, str]:
    """The movement factor after supply (option supply), by the unit's state at the start of its
    move (9.8): halved, rounded up, out of supply (9.7); at most 6 for an air-supplied mechanized
    unit (9.18). Also why, or ""."""
    mf = ctx.mf(unit)
    if ctx.move_oos.get(unit):
        return halve_round_up(mf), f"movement factor {mf} halved out of supply, 9.7"
    if ctx.move_supply.get(unit, ("", False))[0] == "air" and ctx.spec(unit).mechanized and mf > AIR_SUPPLY_MF:
        return AIR_SUPPLY_MF, f"movement factor {mf}: {AIR_SUPPLY_MF} for an air-supplied mechanized unit, 9.18"
    return mf, ""


def movement_allowance(ctx: Ctx, unit: str, start: str, entered: str | None = None) -> tuple[int, list[str]]:
    """The MP a unit may spend in this movement phase: its movement factor (12.1), 1 less for a
    German-side unit in R (13.4; Soviet units are unaffected), by the weather of the zone of the hex
    where it began the phase (Ambiguity 59). 9.7-9.8 (option supply): a unit out of supply at the
    start of its move has its MF halved, rounded up, for the phase (before the rain's -1); an
    air-supplied mechanized unit has MF 6 (9.18; supply_mf).

    Option rain_zone = "entered" (the other reading of Ambiguity 59): the rain goes by the zone of
    the hex being ``entered``: a hex in a zone with R is entered only within the allowance less 1,
    a hex of a zone without R within the whole allowance (MP already spent count either way)."""
    if entered is not None and ctx.options.get("rain_zone", "start") == "entered":
        return _allowance(ctx, unit, entered, f"rain in the {ctx.sc.map.hexes[entered].zone}, the zone of the hex entered: "
                                              "German-side movement allowance {mf} - 1 (13.4, Ambiguity 59)")
    return _allowance(ctx, unit, start, "rain: German-side movement allowance {mf} - 1 (13.4)")


def _allowance(ctx: Ctx, unit: str, rain_hex: str, rain_note: str) -> tuple[int, list[str]]:
    """movement_allowance, with the rain of the zone of ``rain_hex``."""
    mf = ctx.mf(unit)
    notes: list[str] = []
    if ctx.move_oos.get(unit):
        notes.append(f"out of supply at the start of its move: movement factor {mf} halved to {halve_round_up(mf)} (9.7, 9.8)")
        mf = halve_round_up(mf)
    elif supply_mf(ctx, unit)[0] < mf:
        notes.append(f"air-supplied at the start of its move: mechanized movement factor {mf} limited to "
                     f"{AIR_SUPPLY_MF} (9.18)")
        mf = AIR_SUPPLY_MF
    if ctx.spec(unit).side == "german" and weather_at(ctx, rain_hex) == "R":
        return max(mf - 1, 0), [*notes, rain_note.format(mf=mf)]
    return mf, notes


def stationary(ctx: Ctx, unit: str) -> str:
    """The rule that keeps ``unit`` from moving and attacking this player turn (8.20, 9.18), or ""."""
    return str(ctx.position.get("stationary", {}).get(unit, ""))


def unit_problems(ctx: Ctx, where: Place, move: Move, tr: MoveTracker) -> list[Problem]:
    """What keeps a [[move]]'s units from moving at all (12.1, 12.5, 12.22; 8.3 a diversion under way;
    14.41 the ArKo's first sequence; 15.6 a failed mobile assault; 14.40 a hedgehog, Ambiguity 48;
    8.20, 9.18 the RWR phase; 15.2 mobile assaults off), and a move without units."""
    side = ctx.side
    units = move.units
    ma = move.assault is not None
    found: list[Problem] = []
    for u in units:
        if u not in ctx.units:
            found.append(problem(where, f"unknown unit '{u}'", "12.1", "Use the unit ids `pbem show` lists."))
        elif ctx.spec(u).side != side:
            found.append(problem(where, f"{u} is a {ctx.spec(u).side} unit; {side} moves only its own units", "12.1"))
        elif ctx.at(u) in OKH_AREAS:
            why = okh_unavailable(ctx, u)
            if why:
                found.append(problem(where, why, "8.3"))
        elif not ctx.on_map(u):
            found.append(problem(where, f"{u} is not on the map ({OFF_MAP_BOXES[ctx.at(u)]})", "12.22"))
        elif arko_fixed(ctx, u):
            found.append(problem(where, f"{u} was formed this GT and may not move in the first player-turn sequence "
                                        "after it appears", "14.41"))
        elif u in tr.ended:
            found.append(problem(where, f"{u}'s move ended when its mobile assault in move[{tr.ended[u]}] failed", "15.6"))
        elif hedgehog_holds(ctx, u, tr.start.get(u, "")):  # 14.40, Ambiguity 48
            found.append(problem(where, f"{u} began the movement phase in the hedgehog {tr.start[u]}: units in a hedgehog "
                                        "may not move (option hedgehog_movement = \"stay\")", "14.40",
                                 "Cancel the hedgehog at the start of the phase (leave its hex out of `hedgehog`) "
                                 "to move its units."))
        elif stationary(ctx, u):  # 8.20, 9.18: the RWR phase kept it in place
            rule = stationary(ctx, u)
            found.append(problem(where, f"{u} {STATIONARY_WHY[rule]}: it may not move"
                                 + (" or make a mobile assault" if ma else ""), rule))
    if ma and not ctx.options.get("mobile_assault", False):
        found.append(problem(under(where, "assault"), "mobile assaults are a full-game rule (option mobile_assault is off)", "15.2",
                             "Attack the hex in the prepared-assault phase instead."))
    if len(set(units)) != len(units):
        twice = sorted({u for u in units if units.count(u) > 1})
        found.append(problem(where, f"a unit is listed twice: {', '.join(twice)}", "12.5", "List each unit of the stack once."))
    if not units:
        found.append(problem(where, "no units", "12.1"))
    return found


def stack_problem(ctx: Ctx, where: Place, move: Move, tr: MoveTracker) -> Problem | None:
    """Whether a [[move]]'s units may move as one stack: from one hex (12.5), having begun the phase
    stacked together (12.5; 15.8 for a mobile assault), not a stack that stopped while another moved
    (12.6)."""
    units = move.units
    ma = move.assault is not None
    here = {ctx.at(u) for u in units}
    if len(here) > 1:
        return problem(where, f"the units are in different hexes ({', '.join(sorted(here))}); a stack moves from one hex", "12.5")
    starts = {tr.start[u] for u in units}
    if len(starts) > 1:
        return problem(where, "units that did not begin the phase stacked together cannot move as one stack"
                       + (" or make an MA together" if ma else ""), "15.8" if ma else "12.5")
    group = next(iter(starts))
    if group in tr.closed:
        return problem(where, f"the stack that began in {group} cannot resume its move after another stack moved", "12.6")
    return None


HEX_ID_HINT = ("A hex id is four digits and the map's letter, as printed on the map: 2817N is column 28, row 17 of the North "
               "map, 2919S column 29, row 19 of the South map; `pbem template` lists your units' hexes.")


def path_problems(ctx: Ctx, where: Place, move: Move) -> tuple[list[str], str | None, list[Problem]]:
    """A [[move]]'s path as hexes of the map, every hex entered (12.1; the OKH areas are never entered,
    8.3, 8.6, 12.22), and the hex of its mobile assault, the path's last (15.2); or its first problem."""
    side = ctx.side
    path: list[str] = []
    for j, raw in enumerate(move.path):
        c = ctx.sc.map.canonical(raw)
        if c is None:
            if raw in OKH_AREAS:  # 8.3, 8.6, 12.22: the off-map areas are never entered from the map
                why, rule = (("Soviet units never move into the OKH reserve areas", "8.6") if side == "soviet" else
                             ("a unit in play on the map never moves back into an OKH reserve area", "8.3"))
                return [], None, [problem(under(where, "path", j), why, rule)]
            return [], None, [problem(under(where, "path", j), f"'{raw}' (the move of {', '.join(move.units) or 'no unit'}) is not "
                                                               f"a hex of the map of {ctx.sc.title}", "12.22", HEX_ID_HINT)]
        path.append(c)
    if not path:
        return [], None, [problem(where, "the path is empty: list every hex entered, in order", "12.1")]
    assault = ctx.sc.map.canonical(move.assault) if move.assault is not None else None
    if move.assault is not None and assault != path[-1]:
        return [], None, [problem(under(where, "assault"), f"the assaulted hex '{move.assault}' must be the last hex of the "
                                                           "path", "15.2")]
    return path, assault, []


def do_move(ctx: Ctx, index: int, move: Move, tr: MoveTracker, problems: list[Problem]) -> None:
    """One [[move]] (12.1-12.7, 12.14-12.16, 12.22): checked as a whole (unit_problems, stack_problem,
    path_problems), then made hex by hex along its path, each hex checked as it is entered (what may
    be entered depends on the MP spent and the position so far). A problem stops the move there."""
    where = path_of("move", index)
    side = ctx.side
    units = list(move.units)
    found = unit_problems(ctx, where, move, tr)
    if found:
        problems.extend(found)
        return
    stack = stack_problem(ctx, where, move, tr)
    if stack is not None:
        problems.append(stack)
        return
    group = tr.start[units[0]]
    if tr.open_group is not None and tr.open_group != group:
        tr.closed.add(tr.open_group)
    tr.open_group = group
    current = ctx.at(units[0])
    origin = current
    ctx.hooks.move_start(ctx, index, units, tr.moved)  # 9.8: supply at the start of the move (supply.py)
    start_spent = {u: tr.spent.get(u, 0) for u in units}
    path, assault, found = path_problems(ctx, where, move)
    if found:
        problems.extend(found)
        return
    walk = path[:-1] if assault else path  # 15.2: the last hex is entered by the mobile assault
    enemy = other(side)
    mark = len(ctx.events)
    costs: dict[str, list[int]] = {u: [] for u in units}
    minimum = False
    notes: list[str] = []
    if origin in OKH_AREAS and assault and not walk:
        problems.append(problem(under(where, "assault"), f"a mobile assault is launched from a hex of the map, not from the "
                                                    f"{OFF_MAP_BOXES[origin][3:]}", "15.7"))
        return
    for j, nxt in enumerate(walk):
        w, step = under(where, "path", j), f"{current}->{nxt}"
        if current in OKH_AREAS:  # 8.3: from an OKH area through a ZOMO hex next to it (8.2, Ambiguity 14)
            area = current.removeprefix("okh-")
            entries = okh_entry_hexes(ctx, current)
            if nxt not in entries:
                which = ("a ZOMO hex of its countries (option okh_entry = \"any-zomo\", Ambiguity 14)"
                         if ctx.options.get("okh_entry", "listed") == "any-zomo" else "a ZOMO hex next to it")
                problems.append(problem(w, f"units enter from the {area.capitalize()} OKH area only through {which} "
                                           f"({', '.join(entries) or 'none on this map'})", "8.2",
                                        "Start the path with one of those hexes.", note=step))
                return
        elif nxt == current:  # 12.1: the path lists the hexes entered; the start hex is not one of them
            where_from = "the units start in" if j == 0 else "the path entered just before"
            problems.append(problem(w, f"{nxt} is the hex {where_from}: a path lists only the hexes entered, in order",
                                    "12.1", f"Leave {nxt} out of path here.", note=step))
            return
        elif nxt not in ctx.sc.map.neighbours(current):
            problems.append(problem(w, f"{nxt} is not adjacent to {current}", "12.1", "Units move hex to adjacent hex.", note=step))
            return
        if ctx.occupants(nxt, enemy):
            problems.append(problem(w, f"{nxt} holds enemy units", "12.4", "Attack it in the prepared-assault phase instead.", note=step))
            return
        barred = [rt for u in units for rt in entry_problems(ctx, u, nxt)]  # 5.3, 7.2-7.4, 8.5
        if barred:
            problems.extend(problem(w, text, rule, note=step) for rule, text in barred)
            return
        for u in units:
            spec = ctx.spec(u)
            mf, mnotes = movement_allowance(ctx, u, tr.start[u], nxt)
            hc, hrule, hnotes = hex_cost(ctx, spec, nxt, current)
            sc_, srule, snotes = hexside_cost(ctx, spec, current, nxt) if current not in OKH_AREAS else (0, "", [])
            if hc == "no":
                problems.append(problem(w, f"{nxt} is an all-{ctx.sc.map.hexes[nxt].terrain} hex; ground units may not enter it", hrule, note=step))
                return
            if sc_ == "no":
                problems.append(problem(w, "the hexside is all-sea or all-lake and may not be crossed", srule, note=step))
                return
            notes.extend(n for n in mnotes + hnotes + snotes if n not in notes)
            spent = tr.spent.get(u, 0)
            if sc_ == "all":
                # 12.16: must begin the phase in the adjacent hex; crossing uses all MP.
                if spent or current != tr.start[u]:
                    problems.append(problem(w, f"{u} may cross the Sivash/Kerch only when it begins its movement phase next to the hexside", "12.16", note=step))
                    return
                cost = mf
            else:
                cost = int(hc) + int(sc_)
            if spent + cost > mf:
                if spent == 0 and j == 0 and len(path) == 1 and u not in tr.moved:
                    cost = mf  # 12.3: one hex by spending all MP at the start of the move
                    minimum = True
                else:
                    full, why = supply_mf(ctx, u)  # 9.7, 9.18
                    rain = mf < full and spent + cost <= full  # short only because of 13.4
                    problems.append(problem(w, f"{u} needs {cost} MP to enter {nxt} but has {mf - spent} of {mf} left"
                                               + (f" (movement factor {full} - 1 in rain)" if rain else "")
                                               + (f" ({why})" if why else ""),
                                            "13.4" if rain else "12.1",
                                            route_hint(ctx, u, origin, walk[-1], mf - start_spent.get(u, 0)), note=step))
                    return
            tr.spent[u] = spent + cost
            costs[u].append(cost)
        for u in units:
            ctx.units[u]["at"] = nxt
            tr.moved.add(u)
            tr.last_order[u] = index
        enter_works(ctx, side, nxt, "movement")  # 14.25, 14.26: every hex entered, passed through or not
        if ctx.options["control_on_pass_through"] or j == len(walk) - 1:
            enter_hex(ctx, side, nxt, "movement")
        if ctx.result:
            break
        current = nxt
    if walk:
        ctx.events.insert(mark, Event("move", "12.1", {
            "index": index, "units": units, "from": origin, "path": walk, "costs": costs,
            "mp": {u: [tr.spent[u], movement_allowance(ctx, u, tr.start[u], walk[-1])[0]] for u in units}, "minimum": minimum,
            "notes": notes}))
    ctx.hooks.moved(ctx, index, move, units, origin, walk, assault, problems)  # 10.2: an air unit goes with its stack, or stays
    if assault and not ctx.result:  # 15.x: the mobile assault, and the air units that went with its force (15.5)
        ctx.hooks.mobile_assault(ctx, index, move, units, origin, current, assault, tr, problems)
    check_hedgehogs(ctx, "movement")  # Ambiguity 48


def route_hint(ctx: Ctx, unit: str, origin: str, goal: str, mp: int) -> str:
    """For a move that runs out of MP: the cheapest legal path to the same hex, if one fits (17.9)."""
    spec = ctx.spec(unit)
    enemy = other(spec.side)

    def step(a: str, b: str) -> int | None:
        if ctx.occupants(b, enemy):
            return None
        hc, _, _ = hex_cost(ctx, spec, b, a)
        sc_, _, _ = hexside_cost(ctx, spec, a, b)
        if hc == "no" or sc_ in ("no", "all"):
            return None
        return int(hc) + int(sc_)

    found = cheapest(ctx.sc.map, origin, goal, step, limit=mp)
    if found is None:
        return f"No path from {origin} to {goal} fits in the {mp} MP {unit} has for this move (17.9)."
    cost, route = found
    return f"The cheapest path from {origin} to {goal} costs {unit} {cost} of {mp} MP: {', '.join(route)} (17.9)."


def check_lake_ends(ctx: Ctx, side: str, tr: MoveTracker, problems: list[Problem]) -> None:
    """13.7: in snow units may cross all-lake hexes but may not end their move in one."""
    for u in sorted(tr.moved):
        h = ctx.at(u)
        hx = ctx.sc.map.hexes.get(h)
        if ctx.spec(u).side == side and hx is not None and hx.terrain == "lake":
            problems.append(problem(path_of("move", tr.last_order[u]), f"{u} would end its move in the all-lake hex {h}; "
                                    "in snow units may cross lakes but not stop in them", "13.7",
                                    "Continue the move out of the lake in the same order."))
