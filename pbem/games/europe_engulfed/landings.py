"""Amphibious invasions (7.2, 7.21-7.26) and airborne assaults (7.3, 7.31) in the initial
operational movement phase; the beachheads they leave (7.22, 7.24); fortress attacks (5.5, 6.85)
and Malta (6.86) cleaned up at the Final Supply Determination Phase (J-8).

What this module keeps in the position (docs: ee-design "State"):

- ``beachheads``: ``{AREA: side}`` (7.22), established at the end of the initial combat step
  (``after_combat``) where an invading block survived its first round; removed when only enemy
  ground units hold the area (A-33).
- ``transport``: ``{SEA: {NATION: n}}``, the fleet points of each nation that sea-transported this
  game turn (5.34, shared with movement's sea transport; the module clears it at each game turn).
- ``free.dropped``: ``{UNIT: TURN}``, the game turn each airborne block last dropped (7.3: not in two
  consecutive turns; a block's own flags are cleared at each of its player-turns, so the record is
  kept here).
- ``free.beachhead_of``: ``{AREA: "axis" | "ussr" | "western"}``: whose beachhead it is (7.24 counts
  the Western Allies' and the USSR's apart).
- ``free.gs_from``: ``{AREA: {NATION: FROM}}``: where the GS that flew with an invasion came from
  (7.23; A-28 sends them back there after a Malta attack).

Flags this module sets on blocks (this player-turn): ``moved``, ``invaded`` (7.21: combat gives the
defenders their first-round bonus), ``port:AREA`` (the port an invading block sailed from, 6.86),
``dropped`` (7.31, 5.5), ``flew:AREA`` (the area an airborne block dropped from).

Naval combat (8.1, naval.py) may be fought against the invasion fleet as it sails (5.31, 8.11:
the invaders carried by FPs destroyed are lost before they land, 8.14) and against the units
sailing back from Malta (6.86, 8.11), by the enemy's standing ``naval`` instructions.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem
from pbem.mechanics.paths import Neighbours, reachable

from . import allied_powers, axis_powers, naval
from .context import INFANTRY_CLASS, Ctx, other
from .data import ALLIES, AXIS

KEYS = ("invade", "drop")

INVASION_WEATHER = frozenset({"clear", "light-mud"})  # 7.2
BEACHHEAD_LIMIT = {"western": 2, "ussr": 1, "axis": 1}  # 7.24
BLACK_SEA = "black-sea"  # 7.24: only the USSR invades from it
UPPER_EGYPT = "upper-egypt"  # 7.25
CAPE_SEA = "atlantic"  # 7.25: the Cape route from Great Britain uses Atlantic fleet points (5.33)
CAPE_FP = 2  # 7.25: each unit sent round the Cape counts as 2 units of sea transport
ALONE = {"usa": frozenset({"morocco", "marseille"}), "britain": frozenset({"malta", UPPER_EGYPT})}  # 7.26 exceptions
GS_REACH = 2  # 5.12: GS units move 2 areas (7.23)
DROP_REACH = 2  # 7.3


# --- shared helpers ------------------------------------------------------------------------------

def group_of(ctx: Ctx, side: str, nations: set[str] | frozenset[str]) -> str:
    """7.24: whose beachhead an invasion makes: the Axis's, the USSR's or the Western Allies'."""
    if side == AXIS:
        return "axis"
    return "ussr" if nations and all(n == "ussr" for n in nations) else "western"


def port_on(ctx: Ctx, area: str, sea: str, side: str) -> bool:
    """Whether ``area`` is a friendly port of ``side`` on ``sea`` (3.3, 5.31): a port of the map on
    that sea, friendly-controlled, a fortress's surrounding area only while the fortress is friendly
    and not contested (Glossary "Fortress", A-01); or a beachhead of the side (7.22: a normal
    friendly port for the invader even if the area is enemy-controlled)."""
    a = ctx.area(area)
    if sea not in a.ports:
        return False
    if ctx.pos.get("beachheads", {}).get(area) == side:
        return True
    if not ctx.friendly(area, side):
        return False
    return ctx.port_open(area, side)


def may_enter_fortress(ctx: Ctx, side: str, fortress: str) -> str:
    """6.85: a fortress may not be attacked or entered until the enemy units in its surrounding
    area have been removed. The reason it may not (with the rule), or "" when it may (and for any
    place that is not a fortress). Movement (5.17), combat and this module call it."""
    a = ctx.area(fortress)
    if not a.fortress or not a.within:
        return ""
    enemy = [u for u in ctx.units_in(a.within) if ctx.side_of(u) != side]
    if enemy and ctx.controller(fortress) != side:
        return (f"{a.name} may not be attacked or entered while enemy units ({', '.join(enemy)}) hold its "
                f"surrounding area {a.within} (6.85)")
    return ""


def fortress_limit(ctx: Ctx, units: list[str]) -> int:
    """5.5, T-17: the blocks a fortress may hold (GS not counted): 2 when Soviet, else 1."""
    return 2 if units and all(ctx.nation(u) == "ussr" for u in units) else 1


def attack_limit(ctx: Ctx, side: str, fortress: str, attackers: list[str]) -> int:
    """5.5, A-21: the attacker may put twice the fortress stacking limit in an enemy fortress (the
    attacker's own limit, or with option fortress_attack_limit=defender the defender's); dropped
    airborne blocks are not counted (the caller leaves them out)."""
    if ctx.option("fortress_attack_limit") == "defender":
        return 2 * fortress_limit(ctx, [u for u in ctx.units_in(fortress) if ctx.side_of(u) != side])
    return 2 * fortress_limit(ctx, attackers)


def us_entered(ctx: Ctx) -> bool:
    """9.x (stand-in until section 9): the U.S.A. has entered the war when a war pair names it."""
    return any("usa" in p for p in ctx.war_pairs())


def _free(ctx: Ctx, key: str) -> dict[str, Any]:
    table: dict[str, Any] = ctx.pos.setdefault("free", {}).setdefault(key, {})
    return table


def _enemy_present(ctx: Ctx, area: str, side: str) -> bool:
    """Enemy ground units in the area: the landing contests it (GS alone are eliminated, 6.64)."""
    return bool(ctx.side_in(area, other(side)))


def _flag_value(ctx: Ctx, u: str, prefix: str) -> str:
    for f in ctx.units[u].get("flags", []):
        if f.startswith(prefix + ":"):
            return str(f.split(":", 1)[1])
    return ""


def _eliminate_lone_gs(ctx: Ctx, area: str, side: str, rule: str) -> None:
    """6.64: enemy GS alone in an area that ground units enter are eliminated."""
    if ctx.side_in(area, other(side)):
        return
    for n, k in ctx.side_gs(area, other(side)).items():
        ctx.add_gs(area, n, -k)
        ctx.emit("gs-eliminated", rule, area=area, nation=n, count=k, why="alone when enemy ground units entered (6.64)")


# --- 7.2 amphibious invasions --------------------------------------------------------------------

def _cape(ctx: Ctx, area: str, sea: str) -> bool:
    """7.25: the Allies' invasion of Upper Egypt from Great Britain, round the Cape."""
    return area == UPPER_EGYPT and sea in ctx.area(area).invasion and ctx.side == ALLIES


def _transport(ctx: Ctx, sea: str, units: list[str], per_unit: int) -> dict[str, int] | None:
    """5.34: the fleet points that carry ``units`` (``per_unit`` each) in ``sea``: each block on its
    own nation's unused FPs first, then on another nation's of its side (the USSR's and the Western
    Allies' never carry each other's, as in 3.31); None when they are not enough."""
    fleets = {n: int(k) for n, k in ctx.pos.get("fleets", {}).get(sea, {}).items()}
    used = {n: int(k) for n, k in ctx.pos.get("transport", {}).get(sea, {}).items()}
    free = {n: fleets[n] - used.get(n, 0) for n in sorted(fleets)}
    take: dict[str, int] = {}
    for u in units:
        nat = ctx.nation(u)
        need = per_unit
        order = [nat] + [n for n in sorted(free) if n != nat and ctx.side_of_nation(n) == ctx.side_of(u)
                         and (n == "ussr") == (nat == "ussr")]
        for n in order:
            k = min(need, free.get(n, 0))
            if k > 0:
                free[n] -= k
                take[n] = take.get(n, 0) + k
                need -= k
            if not need:
                break
        if need:
            return None
    return take


def _payers(ctx: Ctx, inv: dict[str, Any], units: list[str], joint: bool, cost: int) -> dict[str, int] | str:
    """7.2: 1 SA per invaded area (7.25: 2 from Great Britain to Upper Egypt) from the invading
    nation; 7.26: a joint British and US invasion costs each power one."""
    nations = sorted({ctx.nation(u) for u in units})
    nation = str(inv.get("nation", "")) or (nations[0] if len(nations) == 1 else "")
    med = axis_powers.invasion_payers(ctx, str(inv.get("sea", "")), units, cost)  # 9.47
    if med is not None:
        return med
    if joint:
        return {"britain": cost, "usa": 1}
    if not nation:
        return "name the nation that expends the special action (nation = ...): the invading blocks are of " + ", ".join(nations)
    if ctx.side_of_nation(nation) != ctx.side:
        return f"{nation} is not a nation of the {ctx.side}"
    return {nation: cost}


def invade(ctx: Ctx, inv: dict[str, Any], where: str, problems: list[Problem] | None) -> None:
    """One amphibious invasion (7.2): checked (``problems`` given: its problems recorded, and made on
    the working context when it has none, so that later orders see it) or made."""
    bad: list[Problem] = []

    def no(w: str, text: str, rule: str) -> None:
        bad.append(Problem(w, text, rule))

    side = ctx.side
    sea, area = str(inv.get("sea", "")), str(inv.get("area", ""))
    units = [str(u) for u in inv.get("units", [])]
    ports = [str(p) for p in inv.get("from", [])]
    if sea not in ctx.sc.map.areas or ctx.area(sea).kind != "sea":
        no(f"{where}.sea", f"'{sea}' is not a sea zone", "7.2")
        return _done(ctx, bad, problems)
    if area not in ctx.sc.map.areas or not ctx.area(area).ground:
        no(f"{where}.area", f"'{area}' is not an area of the map", "7.2")
        return _done(ctx, bad, problems)
    a = ctx.area(area)
    cape = _cape(ctx, area, sea)
    arrow = int(a.invasion.get(sea, 0))
    if not arrow:
        no(f"{where}.area", f"{a.name} has no invasion arrow from the {ctx.area(sea).name} (7.2: units invade only "
           "where an arrow is printed)", "7.2")
    if not units:
        no(f"{where}.units", "an invasion lands at least one block", "7.2")
    elif arrow and len(units) > arrow:
        no(f"{where}.units", f"{len(units)} blocks; the arrow into {a.name} lets at most {arrow} infantry-class "
           "units invade (7.2)", "7.2")
    weather = ctx.weather(area)
    if weather not in INVASION_WEATHER:
        no(f"{where}.area", f"the weather in {a.name} is {weather}: invasions only in Clear or Lt. Mud (7.2)", "7.2")
    if sea == BLACK_SEA and any(u in ctx.units and ctx.nation(u) != "ussr" for u in units):
        no(f"{where}.sea", "only the USSR may invade from the Black Sea (7.24)", "7.24")
    # the site: not a friendly area already (units enter a friendly area or a beachhead by sea transport, 5.31, 7.22)
    if ctx.pos.get("beachheads", {}).get(area) == side:
        no(f"{where}.area", f"{a.name} is already a beachhead of the {side}: further units enter it by sea transport "
           "in operational movement (7.22), not by invasion", "7.22")
    elif ctx.friendly(area, side) and not ctx.contested(area):
        no(f"{where}.area", f"{a.name} is a friendly area: an invasion lands in an enemy area (7.2; units reach a "
           "friendly port by sea transport, 5.31)", "7.2")
    elif ctx.controller(area) not in (side, other(side)):
        nations = {ctx.nation(u) for u in units if u in ctx.units}
        if not any(ctx.at_war(n, a.country) or ctx.at_war(n, ctx.controller(area)) for n in nations):
            no(f"{where}.area", f"{a.name} is {ctx.controller(area)}: no invading nation is at war with {a.country} "
               "(9.x: a declaration of war comes first)", "7.2")
    reason = may_enter_fortress(ctx, side, area)
    if reason:
        no(f"{where}.area", reason, "6.85")
    bad += allied_powers.operate(ctx, [u for u in units if u in ctx.units], {}, area, f"{where}.area")  # 9.x
    # the blocks
    seen: set[str] = set()
    good: list[str] = []
    for i, u in enumerate(units):
        w = f"{where}.units[{i}]"
        if u not in ctx.units:
            no(w, f"{u} is not on the map", "7.2")
            continue
        if u in seen:
            no(w, f"{u} is listed twice", "7.2")
            continue
        seen.add(u)
        if ctx.side_of(u) != side:
            no(w, f"{u} is not a block of the {side}", "7.2")
            continue
        if ctx.has_flag(u, "moved"):
            no(w, f"{u} has already moved in this phase (5.1)", "7.2")
            continue
        at = ctx.at(u)
        bad += allied_powers.usa_box(ctx, at, area, w, invasion=True)  # 9.37
        if ports and at not in ports:
            no(w, f"{u} is in {at}, not in a port the invasion names ({', '.join(ports)})", "7.2")
            continue
        if cape:
            if ctx.area(at).home != "britain" or not port_on(ctx, at, CAPE_SEA, side):
                no(w, f"{u} is in {at}: the invasion of Upper Egypt round the Cape sails from a friendly port of "
                   "Great Britain (7.25)", "7.25")
                continue
        elif not port_on(ctx, at, sea, side):
            no(w, f"{u} is in {at}, not a friendly port on the {ctx.area(sea).name} (7.2: invaders start in friendly "
               "ports that share the site's sea zone)", "7.2")
            continue
        if ctx.contested(at):
            no(w, f"{u} is in {at}, a contested area: an invasion sails from a non-contested port here (5.31 sends "
               "units leaving a contested port to 5.14's rearguard, which movement checks)", "5.31")
            continue
        if not ctx.need(u, INFANTRY_CLASS, "7.2", "invaded by sea"):
            no(w, f"{u} is {ctx.kind(u) or 'not infantry-class'}: only infantry-class units invade (7.2)", "7.2")
            continue
        good.append(u)
    if bad:
        return _done(ctx, bad, problems)
    # 7.24 beachhead limits
    nations = {ctx.nation(u) for u in good}
    grp = group_of(ctx, side, nations)
    held = {b for b, s in ctx.pos.get("beachheads", {}).items() if s == side
            and _free(ctx, "beachhead_of").get(b, group_of(ctx, side, set())) == grp}
    pending = {ctx.at(u) for u in ctx.side_units(side) if ctx.has_flag(u, "invaded")
               and group_of(ctx, side, {ctx.nation(u)}) == grp}
    if area not in held | pending and len(held | pending) >= BEACHHEAD_LIMIT[grp]:
        who = {"western": "the Western Allies", "ussr": "the USSR", "axis": "the Axis"}[grp]
        no(f"{where}.area", f"{who} may hold at most {BEACHHEAD_LIMIT[grp]} beachhead(s) at once; they hold or are "
           f"making {', '.join(sorted(held | pending))} (7.24)", "7.24")
    # 5.5, A-21: the attacker's blocks in an enemy fortress (dropped airborne not counted)
    if a.fortress and ctx.controller(area) != side:
        inside = [u for u in ctx.side_in(area, side) if not ctx.has_flag(u, "dropped")] + good
        cap = attack_limit(ctx, side, area, inside)
        if len(inside) > cap:
            no(f"{where}.units", f"{len(inside)} blocks would attack {a.name}; at most {cap} may (5.5: twice the "
               "fortress stacking limit, A-21; dropped airborne units not counted)", "5.5")
    # 7.26 joint British and US invasions after the U.S.A. entered the war
    contests = _enemy_present(ctx, area, side)
    joint = False
    if side == ALLIES and us_entered(ctx) and contests and grp == "western":
        alone = next((n for n, sites in ALONE.items() if nations == {n} and area in sites), "")
        if not alone:
            def has(n: str) -> bool:
                return any(ctx.nation(u) == n and ctx.need(u, INFANTRY_CLASS - {"airborne"}, "7.26",
                                                             "a joint invasion's non-airborne infantry-class unit")
                           for u in good)
            if not (has("britain") and has("usa")):
                no(f"{where}.units", "after the U.S.A. entered the war an invasion that becomes contested includes at "
                   "least one British and one American infantry-class unit, airborne units not counting (7.26; "
                   "exceptions: the U.S.A. alone at Morocco and Marseille, Britain alone at Malta and Upper Egypt)", "7.26")
            else:
                joint = True
    # special actions
    cost = 2 if cape else 1
    payers = _payers(ctx, inv, good, joint, cost)
    if isinstance(payers, str):
        no(f"{where}.nation", payers, "7.2")
        return _done(ctx, bad, problems)
    for n, k in sorted(payers.items()):
        if ctx.sa(n) < k:
            no(f"{where}.nation", f"{n} holds {ctx.sa(n)} special action(s); the invasion of {a.name} costs it {k} "
               f"({'7.25' if cape else '7.26' if joint else '7.2'})", "7.25" if cape else "7.2")
    # 5.34 sea transport
    fp_sea = CAPE_SEA if cape else sea
    per = CAPE_FP if cape else 1
    fps = _transport(ctx, fp_sea, good, per)
    if fps is None:
        free = sum(int(k) for n, k in ctx.pos.get("fleets", {}).get(fp_sea, {}).items() if ctx.side_of_nation(n) == side) - \
            sum(int(k) for n, k in ctx.pos.get("transport", {}).get(fp_sea, {}).items() if ctx.side_of_nation(n) == side)
        no(f"{where}.units", f"{len(good)} block(s) need {len(good) * per} fleet point(s) of transport in the "
           f"{ctx.area(fp_sea).name}; the {side} have {max(free, 0)} unused this game turn (5.34"
           f"{', 7.25: 2 each round the Cape' if cape else ''})", "5.34")
    # 7.23: GS flying to the invasion site
    gs = {str(n): int(k) for n, k in sorted(inv.get("gs", {}).items()) if int(k)}
    gs_from = str(inv.get("gs_from", ""))
    if gs:
        _check_gs(ctx, gs, gs_from, area, where, no)
    if bad:
        return _done(ctx, bad, problems)
    assert fps is not None and not isinstance(payers, str)
    # made
    for n, k in sorted(payers.items()):
        for _ in range(k):
            ctx.spend_sa(n, "7.25" if cape else "7.2", f"the invasion of {a.name}")
    tr = ctx.pos.setdefault("transport", {}).setdefault(fp_sea, {})
    for n, k in sorted(fps.items()):
        tr[n] = int(tr.get(n, 0)) + k
    sailed = {u: ctx.at(u) for u in good}
    lost, _gs, naval_note = naval.engage(ctx, fp_sea, good, {}, fps, "7.2", f"the invasion of {a.name}", per)
    good = [u for u in good if u not in lost]
    if not good:  # 8.14: every invader lost at sea; the SAs stay spent, the GS do not fly
        ctx.emit("invade", "7.25" if cape else "7.2", area=area, sea=sea, units=[], ports=sailed, arrow=arrow,
                 weather=weather, sa=payers, transport={fp_sea: fps}, contested=False, joint=joint, gs={}, gs_from="",
                 group=grp, naval_combat=naval_note, lost=lost)
        return None
    for u in good:
        ctx.place(u, area)
        for f in ("moved", "invaded", f"port:{sailed[u]}"):
            ctx.flag(u, f)
    if gs:
        for n, k in gs.items():
            ctx.add_gs(gs_from, n, -k)
            ctx.add_gs(area, n, k)
            _free(ctx, "gs_from").setdefault(area, {})[n] = gs_from
    ctx.emit("invade", "7.25" if cape else "7.2", area=area, sea=sea, units=good, ports=sailed, arrow=arrow,
             weather=weather, sa=payers, transport={fp_sea: fps}, contested=contests, joint=joint, gs=gs, gs_from=gs_from,
             group=grp, naval_combat=naval_note, lost=lost)
    _landed(ctx, area, side, "7.2")
    return None


def _landed(ctx: Ctx, area: str, side: str, rule: str) -> None:
    """After a landing: enemy ground units there make the area contested (6.1); enemy GS alone are
    eliminated (6.64); an area the landing does not contest keeps its control until the first
    combat phase (Glossary "Control")."""
    if ctx.side_in(area, other(side)):
        ctx.update_contested(area, rule)
        return
    _eliminate_lone_gs(ctx, area, side, "6.64")
    ctx.emit("landed-control", "Glossary", area=area, side=side, controller=ctx.controller(area))


def _check_gs(ctx: Ctx, gs: dict[str, int], gs_from: str, area: str, where: str, no: Any) -> None:
    """7.23: GS units of the invader that can fly to the site directly in this phase (5.12: 2 areas;
    5.13: across an air-route from its coastal area) may join the initial combat there."""
    side = ctx.side
    if gs_from not in ctx.sc.map.areas or not ctx.area(gs_from).ground:
        no(f"{where}.gs_from", "GS flying to an invasion site name the area they fly from (gs_from)", "7.23")
        return
    if not ctx.friendly(gs_from, side) or ctx.contested(gs_from):
        no(f"{where}.gs_from", f"{gs_from} is not a friendly non-contested area (7.23, 5.13)", "7.23")
    have = ctx.gs_in(gs_from)
    for n, k in gs.items():
        if ctx.side_of_nation(n) != side:
            no(f"{where}.gs.{n}", f"{n} is not a nation of the {side}", "7.23")
        elif have.get(n, 0) < k:
            no(f"{where}.gs.{n}", f"{gs_from} holds {have.get(n, 0)} {n} GS, not {k}", "7.23")
    if not _in_range(ctx, gs_from, area, GS_REACH):
        no(f"{where}.gs_from", f"{area} is beyond the GS units' direct flight from {gs_from} (2 areas, 5.12, or an "
           "air-route, 5.13): they take no part in its initial combat (7.23)", "7.23")


def _in_range(ctx: Ctx, start: str, goal: str, reach: int) -> bool:
    """Within ``reach`` areas across land borders, or across one air-route (5.13, 7.3)."""
    if "air-route" in ctx.sc.map.features(start, goal):
        return True
    near = reachable(Neighbours(ctx.neighbours), start, lambda _a, _b: 1, reach)
    return goal in near


def _done(ctx: Ctx, bad: list[Problem], problems: list[Problem] | None) -> None:
    if problems is not None:
        problems.extend(bad)
    else:
        assert not bad, f"illegal orders reached resolution: {bad}"


# --- 7.3 airborne assaults -----------------------------------------------------------------------

def drop(ctx: Ctx, d: dict[str, Any], where: str, problems: list[Problem] | None) -> None:
    """One airborne assault (7.3): checked or made, as ``invade``."""
    bad: list[Problem] = []

    def no(w: str, text: str, rule: str) -> None:
        bad.append(Problem(w, text, rule))

    side = ctx.side
    u, area = str(d.get("unit", "")), str(d.get("area", ""))
    if u not in ctx.units:
        no(f"{where}.unit", f"{u} is not on the map", "7.3")
        return _done(ctx, bad, problems)
    if area not in ctx.sc.map.areas or not ctx.area(area).ground:
        no(f"{where}.area", f"'{area}' is not an area of the map", "7.3")
        return _done(ctx, bad, problems)
    start = ctx.at(u)
    if ctx.side_of(u) != side:
        no(f"{where}.unit", f"{u} is not a block of the {side}", "7.3")
        return _done(ctx, bad, problems)
    if d.get("from") and str(d["from"]) != start:
        no(f"{where}.from", f"{u} is in {start}, not {d['from']}", "7.3")
    if ctx.has_flag(u, "moved"):
        no(f"{where}.unit", f"{u} has already moved in this phase (5.1)", "7.3")
    a = ctx.area(area)
    ok_weather = {"clear"} if ctx.option("airdrop_weather") == "clear" else {"clear", "light-mud"}
    for place in (start, area):
        if ctx.weather(place) not in ok_weather:
            no(f"{where}.area" if place == area else f"{where}.unit",
               f"the weather in {ctx.area(place).name} is {ctx.weather(place)}: both the departure and the drop area "
               f"must be {' or '.join(sorted(ok_weather))} (7.3, A-77 airdrop_weather)", "7.3")
    if ctx.contested(start):
        no(f"{where}.unit", f"{u} is in {start}, a contested area: airborne units drop from non-contested areas (7.3)", "7.3")
    if ctx.units[u].get("oos"):
        no(f"{where}.unit", f"{u} is out of supply: airborne units drop from in-supply areas (7.3)", "7.3")
    if not a.fortress and a.terrain != "clear":
        no(f"{where}.area", f"{a.name} is {a.terrain}: airborne units drop into Clear areas (7.3; a fortress may be "
           "attacked from the air, 5.5, 6.86)", "7.3")
    if area == start or not _in_range(ctx, start, area, DROP_REACH):
        no(f"{where}.area", f"{a.name} is not within 2 areas of {start} nor across an air-route from it (7.3)", "7.3")
    if ctx.friendly(area, side) and not ctx.contested(area):
        no(f"{where}.area", f"{a.name} is a friendly area: an airborne assault drops into an enemy area (7.3)", "7.3")
    reason = may_enter_fortress(ctx, side, area)
    if reason:
        no(f"{where}.area", reason, "6.85")
    last = _free(ctx, "dropped").get(u)
    if last and last == ctx.turn.plus(-1).key:
        no(f"{where}.unit", f"{u} dropped last game turn ({last}): an airborne unit may not drop in two consecutive "
           "turns (7.3)", "7.3")
    if not bad:
        if not ctx.need(u, {"airborne"}, "7.3", "made an airborne assault"):
            no(f"{where}.unit", f"{u} is {ctx.kind(u) or 'not airborne'}: only airborne units drop (7.3)", "7.3")
        elif not ctx.need_steps(u, "full", 0, "7.3", "dropped at full strength"):
            no(f"{where}.unit", f"{u} has {ctx.steps(u)} of {ctx.max_steps(u)} steps: only full-strength airborne "
               "units drop (7.3)", "7.3")
    nation = ctx.nation(u)
    paid = any(ctx.has_flag(v, "dropped") and ctx.at(v) == area and ctx.nation(v) == nation for v in ctx.side_units(side))
    if not paid and ctx.sa(nation) < 1:
        no(f"{where}.unit", f"{nation} holds no special action for an airborne assault into {a.name} (7.3: 1 SA per "
           "drop area)", "7.3")
    if bad:
        return _done(ctx, bad, problems)
    if not paid:
        ctx.spend_sa(nation, "7.3", f"the airborne assault into {a.name}")
    ctx.place(u, area)
    for f in ("moved", "dropped", f"flew:{start}"):
        ctx.flag(u, f)
    dropped = _free(ctx, "dropped")
    for v in [v for v, t in dropped.items() if t != ctx.turn.key and t != ctx.turn.plus(-1).key]:
        del dropped[v]
    dropped[u] = ctx.turn.key
    contests = _enemy_present(ctx, area, side)
    with_invasion = any(ctx.has_flag(v, "invaded") for v in ctx.side_in(area, side))
    ctx.emit("drop", "7.3", unit=u, nation=nation, start=start, area=area, sa=0 if paid else 1,
             air_route="air-route" in ctx.sc.map.features(start, area), contested=contests, with_invasion=with_invasion,
             fortress=a.fortress)
    if contests or not with_invasion:
        _landed(ctx, area, side, "7.3")
    return None


# --- the step's orders ---------------------------------------------------------------------------

def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the invasions (7.2) and drops (7.3), in order; each legal one is made on the
    working context so that the next sees its SAs, fleet points and beachheads spent."""
    for i, inv in enumerate(body.get("invade", [])):
        invade(ctx, inv, f"invade[{i}]", problems)
    for i, d in enumerate(body.get("drop", [])):
        drop(ctx, d, f"drop[{i}]", problems)


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """7.2, 7.3: the invasions, then the drops (7.2: drops into an invasion area support it), in
    the initial operational movement phase (1.23), after the operational moves."""
    for i, inv in enumerate(body.get("invade", [])):
        invade(ctx, inv, f"invade[{i}]", None)
    for i, d in enumerate(body.get("drop", [])):
        drop(ctx, d, f"drop[{i}]", None)


# --- after the initial combat: beachheads (7.22), control (Glossary) ---------------------------

def after_combat(ctx: Ctx) -> None:
    """At the end of the initial combat step (module.py): an invader that survived its first round
    (and its counterattack) establishes a beachhead in the invaded area (7.22, A-33); an area an
    invasion or drop occupied without contesting it passes to the invader now (Glossary "Control":
    its control did not change until the first combat phase); beachheads that only enemy ground
    units hold are removed (7.22, A-33)."""
    side = ctx.side
    landed = sorted({ctx.at(u) for u in ctx.side_units(side) if ctx.has_flag(u, "invaded") or ctx.has_flag(u, "dropped")})
    for area in landed:
        invaders = [u for u in ctx.side_in(area, side) if ctx.has_flag(u, "invaded")]
        if invaders and ctx.pos.get("beachheads", {}).get(area) != side:
            grp = group_of(ctx, side, {ctx.nation(u) for u in invaders})
            ctx.pos.setdefault("beachheads", {})[area] = side
            _free(ctx, "beachhead_of")[area] = grp
            ctx.emit("beachhead", "7.22", area=area, side=side, group=grp, units=invaders)
        if not ctx.contested(area) and not ctx.present(area, other(side)):
            ctx.set_control(area, side, "Glossary")
    clear_beachheads(ctx)


def clear_beachheads(ctx: Ctx) -> None:
    """7.22, A-33: a beachhead whose area holds only enemy ground units is removed."""
    heads = ctx.pos.get("beachheads", {})
    for area, side in sorted(heads.items()):
        if ctx.side_in(area, other(side)) and not ctx.side_in(area, side):
            del heads[area]
            ctx.pos.get("free", {}).get("beachhead_of", {}).pop(area, None)
            ctx.emit("beachhead-removed", "7.22", area=area, side=side, why="only enemy ground units hold it (A-33)")


# --- the Final Supply Determination Phase: fortresses (5.5, 6.85) and Malta (6.86) --------------

def _leave_order(ctx: Ctx, units: list[str], final: dict[str, Any], prefer_kept: Any = None) -> list[str]:
    """The order in which blocks leave a fortress: those the owner listed first (``[final]
    overstack``, then its standing ``overstack``, 5.5), then the rest, the weakest first (by steps,
    then id); ``prefer_kept(u)`` true keeps such a block longest."""
    listed = [str(u) for u in final.get("overstack", [])] + \
        [str(u) for u in ctx.standing.get(ctx.side, {}).get("overstack", [])]
    first = [u for u in dict.fromkeys(listed) if u in units]
    rest = sorted((u for u in units if u not in first),
                  key=lambda u: (bool(prefer_kept(u)) if prefer_kept else False, ctx.steps(u) or 0, u))
    return first + rest


def _fall_back(ctx: Ctx, u: str, fortress: str, to: str, rule: str, why: str) -> None:
    if to and ctx.friendly(to, ctx.side_of(u)):
        ctx.place(u, to)
        ctx.emit("fortress-fallback", rule, unit=u, nation=ctx.nation(u), fortress=fortress, to=to, why=why)
    else:
        ctx.eliminate(u, rule, f"{why}; the surrounding area {to or '(none)'} is not friendly")


def final(ctx: Ctx, final: dict[str, Any] | None = None) -> None:
    """J-8, at the Final Supply Determination Phase (module.py calls it before supply.final): each
    fortress the phasing side attacked is cleaned up (5.5, 6.85), Malta by 6.86; then beachheads
    held only by the enemy are removed (7.22)."""
    final = final or {}
    side = ctx.side
    for fort in ctx.sc.map.fortresses():
        attackers = ctx.side_in(fort, side)
        if not attackers:
            continue
        if not ctx.area(fort).within:
            _malta(ctx, fort, attackers, final)
            continue
        within = ctx.area(fort).within
        defenders = ctx.side_in(fort, other(side))
        if defenders:  # 6.85: not taken by the final supply phase
            for u in [u for u in attackers if ctx.has_flag(u, "dropped")]:
                ctx.eliminate(u, "5.5", f"dropped into {ctx.area(fort).name}, which was not taken")
            stay = [u for u in attackers if u in ctx.units]
            limit = fortress_limit(ctx, stay)
            order = _leave_order(ctx, stay, final)
            for u in order[:max(len(stay) - limit, 0)]:
                _fall_back(ctx, u, fort, within, "6.85", f"{ctx.area(fort).name} was not taken: attackers over the "
                           f"fortress limit of {limit} fall back")
            ctx.emit("fortress-not-taken", "6.85", fortress=fort, side=side, limit=limit,
                     stay=[u for u in stay if u in ctx.units and ctx.at(u) == fort])
        else:  # 6.85: taken: occupied within the stacking limit, the rest to the surrounding area
            limit = fortress_limit(ctx, attackers)
            if len(attackers) <= limit:
                ctx.update_contested(fort, "6.85")
                continue
            order = _leave_order(ctx, attackers, final)
            for u in order[:len(attackers) - limit]:
                _fall_back(ctx, u, fort, within, "6.85", f"{ctx.area(fort).name} was taken: blocks over the fortress "
                           f"limit of {limit} move to the surrounding area")
            ctx.emit("fortress-taken", "6.85", fortress=fort, side=side, limit=limit, stay=order[len(attackers) - limit:])
        if not ctx.side_in(fort, side):  # GS of the attacker do not stay alone (6.64)
            for n, k in ctx.side_gs(fort, side).items():
                ctx.add_gs(fort, n, -k)
                if ctx.friendly(within, side):
                    ctx.add_gs(within, n, k)
                    ctx.emit("gs-return", "6.85", nation=n, gs=k, fortress=fort, to=within)
                else:
                    ctx.emit("gs-eliminated", "6.64", area=fort, nation=n, count=k, why="alone in the fortress")
        ctx.update_contested(fort, "6.85")
        ctx.update_contested(within, "6.85")
    clear_beachheads(ctx)


def _malta(ctx: Ctx, malta: str, attackers: list[str], final: dict[str, Any]) -> None:
    """6.86: Malta (no surrounding area). Not cleared: the attacking airborne blocks are eliminated,
    the landed blocks sail back to the port they came from (no FPs needed) or are eliminated. Taken:
    the blocks over the 1-unit limit likewise; excess airborne blocks go with them while unused
    Mediterranean FPs remain, else are eliminated. GS that supported go back where they flew from
    (A-28). The retreat by sea may meet naval combat (8.11: the enemy's standing ``naval``); the landed
    blocks sail on the FPs that brought them (flipped already, 5.34), the airborne on unused ones."""
    side = ctx.side
    name = ctx.area(malta).name
    cleared = not ctx.side_in(malta, other(side))
    sea = "mediterranean"
    if cleared:
        limit = fortress_limit(ctx, attackers)
        order = _leave_order(ctx, attackers, final, prefer_kept=lambda u: ctx.has_flag(u, "dropped"))
        leaving = order[:max(len(attackers) - limit, 0)]
        ctx.emit("malta", "6.86", area=malta, side=side, cleared=True, limit=limit, stay=order[len(leaving):])
    else:
        leaving = list(attackers)
        ctx.emit("malta", "6.86", area=malta, side=side, cleared=False, limit=0, stay=[])
    retreat_to = ""
    landed = [u for u in leaving if not ctx.has_flag(u, "dropped")]
    airborne = [u for u in leaving if ctx.has_flag(u, "dropped")]
    sailing: dict[str, str] = {}  # unit -> the port it sails back to
    carried: dict[str, dict[str, int]] = {}  # unit -> the FPs carrying it
    for u in landed:
        port = _flag_value(ctx, u, "port")
        if port and port_on(ctx, port, sea, side):
            sailing[u] = port
            retreat_to = retreat_to or port
        else:
            ctx.eliminate(u, "6.86", f"{'Malta was not cleared' if not cleared else 'over the limit in Malta'}: no "
                          "friendly port of origin to sail back to")
    # 8.11: the landed blocks sail back on the FPs that brought them (already flipped, 5.34)
    spare = {n: k for n, k in naval.used(ctx, sea).items() if ctx.side_of_nation(n) == side}
    for u in sailing:
        n = ctx.nation(u) if spare.get(ctx.nation(u)) else next((c for c in sorted(spare) if spare[c]), "")
        if n:
            spare[n] -= 1
            carried[u] = {n: 1}
    for u in airborne:
        if not cleared:
            ctx.eliminate(u, "6.86", f"an airborne attacker of {name}, which was not cleared")
            continue
        carry = _transport(ctx, sea, [u], 1) if retreat_to else None
        if carry:
            tr = ctx.pos.setdefault("transport", {}).setdefault(sea, {})
            for n, k in carry.items():
                tr[n] = int(tr.get(n, 0)) + k
            sailing[u] = retreat_to
            carried[u] = carry
        else:
            ctx.eliminate(u, "6.86", "excess airborne in Malta with no landed units to sail with on unused Mediterranean FPs")
    note = ""
    if sailing:
        carrying: dict[str, int] = {}
        for by in carried.values():
            for n, k in by.items():
                carrying[n] = carrying.get(n, 0) + k
        lost, _gs, note = naval.engage(ctx, sea, sorted(sailing), {}, carrying, "6.86", f"the units sailing back from {name}")
        for u in lost:
            sailing.pop(u, None)
    for u, port in sailing.items():
        ctx.place(u, port)
        extra = {"transport": {sea: carried[u]}} if ctx.has_flag(u, "dropped") and u in carried else {}
        ctx.emit("malta-retreat", "6.86", unit=u, nation=ctx.nation(u), to=port, naval_combat=note, **extra)
    flown = ctx.pos.get("free", {}).get("gs_from", {}).get(malta, {})
    for n, k in ctx.side_gs(malta, side).items():
        back = str(flown.get(n, ""))
        if not back or not ctx.friendly(back, side):
            back = next((b for b in sorted(ctx.sc.map.places.neighbours(malta))
                         if ctx.area(b).ground and ctx.friendly(b, side) and not ctx.contested(b)), "")
        ctx.add_gs(malta, n, -k)
        if back:
            ctx.add_gs(back, n, k)
            ctx.emit("gs-return", "6.86", nation=n, gs=k, fortress=malta, to=back, recorded=bool(flown.get(n)))
        else:
            ctx.emit("gs-eliminated", "6.86", area=malta, nation=n, count=k, why="no friendly area to fly back to")
    ctx.pos.get("free", {}).get("gs_from", {}).pop(malta, None)
    ctx.update_contested(malta, "6.86")


# --- reports -------------------------------------------------------------------------------------

def _names(units: Any) -> str:
    return ", ".join(str(u) for u in units) or "none"


def _r_invade(e: Any) -> list[str]:
    d = e.data
    sa = ", ".join(f"{n} {k}" for n, k in sorted(d["sa"].items()))
    fp = "; ".join(f"{k} {sum(v.values())} FP ({', '.join(f'{n} {m}' for n, m in sorted(v.items()))})"
                   for k, v in sorted(d["transport"].items()))
    ports = ", ".join(f"{u} from {p}" for u, p in sorted(d["ports"].items()))
    text = (f"- Amphibious invasion of {d['area']} across the {d['sea']} ({e.rule}): {ports}; {len(d['units'])} of the "
            f"arrow's {d['arrow']}; weather {d['weather']}; special actions: {sa}; sea transport (5.34): {fp}.")
    if d.get("joint"):
        text += " A joint British and American invasion (7.26)."
    if d.get("gs"):
        text += f" GS fly with it from {d['gs_from']}: " + ", ".join(f"{k} {n}" for n, k in d["gs"].items()) + " (7.23)."
    text += f" Naval combat (8.11): {d.get('naval_combat', 'none')}."
    if d.get("lost"):
        text += f" Lost at sea with their FPs (8.14): {_names(d['lost'])}."
    if not d["units"]:
        return [text + " No invader lands."]
    text += (" The area is contested: the defenders get the first-round hit bonus (7.21)." if d["contested"]
             else " No enemy there: the area is not contested.")
    return [text]


def _r_drop(e: Any) -> list[str]:
    d = e.data
    how = "across an air-route" if d["air_route"] else "within 2 areas"
    paid = "an SA" if d["sa"] else "no further SA (the drop area is paid for)"
    text = f"- Airborne assault: {d['unit']} ({d['nation']}) drops from {d['start']} into {d['area']} {how} (7.3), for {paid}."
    if d["contested"]:
        text += (" With the invasion there the defenders get 7.21's bonus, not 7.31's." if d["with_invasion"]
                 else " The defenders get the first-round hit bonus (7.31).")
    if d.get("fortress"):
        text += " It does not count toward the fortress-attack limit and dies if the fortress is not taken (5.5)."
    return [text]


def _r_landed(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['area']} is occupied by the {d['side']} without being contested: its control ({d['controller']}) "
            f"does not change until the first combat phase (Glossary \"Control\")."]


def _r_beachhead(e: Any) -> list[str]:
    d = e.data
    return [f"- The {d['side']} establish a beachhead in {d['area']} ({e.rule}): {_names(d['units'])} survived the first "
            "round; it is a friendly port for them."]


def _r_beachhead_removed(e: Any) -> list[str]:
    d = e.data
    return [f"- The {d['side']}'s beachhead in {d['area']} is removed: {d['why']} ({e.rule})."]


def _r_fallback(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['unit']} ({d['nation']}) leaves {d['fortress']} for {d['to']}: {d['why']} ({e.rule})."]


def _r_not_taken(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['fortress']} was not taken by the final supply phase ({e.rule}): {_names(d['stay'])} stay(s) inside "
            f"(limit {d['limit']})."]


def _r_taken(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['fortress']} is taken ({e.rule}): {_names(d['stay'])} occupy it (limit {d['limit']})."]


def _r_malta(e: Any) -> list[str]:
    d = e.data
    if d["cleared"]:
        return [f"- Malta is taken ({e.rule}): {_names(d['stay'])} hold(s) it (limit {d['limit']}); the rest sail back."]
    return [f"- Malta was not cleared by the final supply phase ({e.rule}): its airborne attackers are eliminated and the "
            "landed units sail back to their ports."]


def _r_malta_retreat(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['unit']} ({d['nation']}) sails back from Malta to {d['to']} ({e.rule}; naval combat, 8.11: "
            f"{d['naval_combat']})."]


def _r_gs_return(e: Any) -> list[str]:
    d = e.data
    return [f"- {d['gs']} {d['nation']} GS fly back from {d['fortress']} to {d['to']} ({e.rule}"
            f"{', A-28' if e.rule == '6.86' else ''})."]


RENDER: dict[str, Any] = {
    "invade": _r_invade, "drop": _r_drop, "landed-control": _r_landed, "beachhead": _r_beachhead,
    "beachhead-removed": _r_beachhead_removed, "fortress-fallback": _r_fallback, "fortress-not-taken": _r_not_taken,
    "fortress-taken": _r_taken, "malta": _r_malta, "malta-retreat": _r_malta_retreat, "gs-return": _r_gs_return,
}
