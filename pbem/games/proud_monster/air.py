"""Proud Monster aircraft and Flak (10.0-10.4, 14.13, 15.5, 6.6; options ``ground_support`` and
``flak``, full game).

Ground support (10.2-10.4). The air units are not counters of the scenario: the German ones, their
names and their points for each player-turn sequence are the 17.8 schedule in the charts (a
provisional stand-in), the Soviet one (6th Interceptor Air Corps, 5 points) is given by 10.4. In
his Ground Support Commitment phase (the German in every player turn before GT12, the Soviet in
GT12 only) a side places each air unit it wants to use on one of its stacks, at most one per hex
(``[[support]] air = "VIII" hex = "2817N"``); the air units it committed before leave their stacks
as the phase begins. The position keeps each committed air unit under ``position.ground_support`` with the
hex of the stack it is on and the points it has. An air unit has no stacking value (6.6).

An air unit supports the stack it is on: the units of its side in its hex, those that join them
included. When some of them move away it stays with those that stay, unless the move names it in
``support = ["VIII"]``; when the last of them leave the hex (by movement, advance after combat or
retreat) it goes with them. The Soviet unit may not go more than 10 hexes from Moscow (10.4,
Ambiguity 18): a move that names it may not take it there, and when the last units of its stack
go there without naming it, its support ends. When every unit of the stack is gone, the air unit's
support ends until the next commitment phase.

In every combat (prepared or mobile assault) in which units of a supported stack take part, as
attackers or as defenders, the air unit's points are added to that side's total, capped at the
combat strength of the supported stack's participating units after every halving (Ambiguity 29;
option ``ground_support_cap``); VIII Fliegerkorps also shifts the odds one column in the German's
favour: 1R when he attacks, 1L when he defends (10.3, Ambiguity 29; option ``viii_on_defense``).
An MA force is supported when its move took the air unit along. The points never absorb step
losses: losses come from the ground units only. The German air units leave for good at the start
of GT12 (10.2); the Soviet one is received then unless a Moscow hex is German-controlled or both
are out of supply (10.4, 8.10, Ambiguity 18).

Flak (10.1). A Flak unit never attacks and takes no part in an MA. Defending, it halves the attack
factor of every Soviet tank unit attacking its hex when the hex has a unit that is not Flak and the
Flak unit is not out of supply (supply.supply_state; with the option supply off every unit counts
as supplied); the halving combines with the others as Ambiguity 30 says (rules.combat.strength.attack_strength).
Several Flak units in one hex halve once: the rule says the attack factor is halved, not halved per
Flak unit. Every Flak unit not eliminated is withdrawn for good in the first German RWR phase of
GT12 (8.16; it may not be refused, 8.17): pbem does it automatically before the German's orders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Place, Problem
from pbem.mechanics.odds import Shift

from .data import AirUnit, Scenario
from .orders import Move, Support
from .rules.combat.strength import attack_strength
from .rules.context import CombatSupport, Ctx, Hooks
from .rules.places import path_of, problem, under
from .sequence import PLAYER_TURN, phases
from .supply import out_of_supply, soviet_hex_state, supply_state

SOVIET_RANGE = 10  # 10.4, 8.10: hexes from Moscow
GT12 = 12  # 10.1, 10.2, 10.4: December
SIDE_ADJECTIVE = {"german": "German-side", "soviet": "Soviet"}


def enabled(ctx: Ctx) -> bool:
    return bool(ctx.options.get("ground_support", False))


def placements(position: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The air units committed to stacks (``position.ground_support``): id -> side, hex, points, ..."""
    air: dict[str, dict[str, Any]] = position.get("ground_support", {})
    return air


def _store(ctx: Ctx, air: dict[str, dict[str, Any]]) -> None:
    if air:
        ctx.position["ground_support"] = dict(sorted(air.items()))
    else:
        ctx.position.pop("ground_support", None)


def side_units(sc: Scenario, side: str) -> tuple[AirUnit, ...]:
    """The air units of a side: the German ones of the 17.8 schedule, or the Soviet one (10.4)."""
    if side == "german":
        return sc.charts.air.german
    return (sc.charts.air.soviet,) if sc.charts.air.soviet else ()


def _provisional(sc: Scenario, side: str) -> bool:
    """17.8 is a provisional stand-in; the Soviet unit's 5 points are given by 10.4."""
    return side == "german" and sc.charts.air.provisional


def _name(sc: Scenario, air_id: str) -> str:
    unit = sc.charts.air.unit(air_id)
    return unit.name if unit else air_id


def moscow_distance(ctx: Ctx, hex_id: str) -> int | None:
    """Ambiguity 18 (option soviet_gs_range): hexes from the nearer Moscow hex ("nearer"), or from
    the farther ("both": within range of both); None when the map has no Moscow."""
    moscow = ctx.sc.map.moscow()
    if not moscow:
        return None
    d = [ctx.sc.map.distance(hex_id, m) for m in moscow]
    return max(d) if ctx.options.get("soviet_gs_range", "nearer") == "both" else min(d)


def _out_of_range(ctx: Ctx, hex_id: str) -> bool:
    d = moscow_distance(ctx, hex_id)
    return d is None or d > SOVIET_RANGE


def _range_text(ctx: Ctx) -> str:
    which = "each" if ctx.options.get("soviet_gs_range", "nearer") == "both" else "the nearer"
    return f"more than {SOVIET_RANGE} hexes from {which} Moscow hex"


# --- the commitment phases (10.2, 10.4) ------------------------------------------------------------

def placement(sc: Scenario, side: str, unit: AirUnit, hex_id: str, turn: int, pts: int) -> dict[str, Any]:
    """What the position keeps of an air unit committed to the stack in ``hex_id`` in player turn
    GT``turn``/``pts``: its side, hex, points in that sequence (17.8, 10.4), column shift (10.3),
    whether the points are provisional, and the step it was committed in."""
    return {"side": side, "hex": hex_id, "points": unit.points_in(turn, pts), "shift": unit.shift,
            "provisional": _provisional(sc, side), "step": f"GT{turn}/{pts}/{side}"}


def commitment_rule(ctx: Ctx) -> str:
    """The rule of the phasing side's Ground Support Commitment phase in this player turn (10.2 for
    the German before GT12, 10.4 for the Soviet in GT12), or "" when there is none (sequence.py)."""
    found = [p for p in phases(ctx.options, PLAYER_TURN, ctx.turn, side=ctx.side) if p.name == "ground-support"]
    return found[0].rule if found else ""


def soviet_received(ctx: Ctx) -> bool:
    """10.4: the Soviet GS unit was received at the start of GT12 (``position.soviet_air``)."""
    return bool(ctx.position.get("soviet_air", False))


def commitment(ctx: Ctx, supports: Sequence[Support], problems: list[Problem]) -> None:
    """The phasing side's Ground Support Commitment phase (10.2; 10.4 for the Soviet, GT12 only):
    ``[[support]]`` places each air unit named on a stack of the side, at most one per hex (10.2);
    a Soviet one within 10 hexes of Moscow (10.4, Ambiguity 18). An air unit with no points in this
    sequence (17.8) is not available. The air units the side committed in its previous commitment
    phase leave their stacks as the phase begins (10.2: they stay until the next one begins); those
    not named now stay off the map until the side's next commitment phase. No dice."""
    entries = list(supports)
    where = path_of("support")
    side = ctx.side
    if not enabled(ctx):
        if entries:
            problems.append(problem(where, "ground support is a full-game rule (option ground_support is off)", "10.2"))
        return
    rule = commitment_rule(ctx)
    if not rule:
        if entries:
            if side == "german":
                problems.append(problem(where, f"the German commits air units only before GT12; his air units left for good "
                                               f"at the start of GT{GT12}", "10.2"))
            else:
                problems.append(problem(where, f"the Soviet commits ground support only in GT{GT12} (\"DEC only\"), not "
                                               f"GT{ctx.turn}", "10.4"))
        return
    if side == "soviet" and not soviet_received(ctx):
        if entries:
            problems.append(problem(where, "the Soviet GS unit was not received at the start of GT12 (see that turn's report)",
                                    "10.4"))
        return
    known = len(problems)
    units = {a.id: a for a in side_units(ctx.sc, side)}
    chosen: dict[str, str] = {}
    by_hex: dict[str, str] = {}
    for j, e in enumerate(entries):
        w = under(where, j)
        air_id = e.air
        unit = units.get(air_id)
        if unit is None:
            problems.append(problem(under(w, "air"), f"'{air_id}' is not one of the {side} air units "
                                                f"({', '.join(units) or 'none'})", rule, "`pbem template` lists them with their points."))
            continue
        if unit.points_in(ctx.turn, ctx.pts) <= 0:
            problems.append(problem(under(w, "air"), f"{air_id} ({unit.name}) has no ground-support points in GT{ctx.turn}/{ctx.pts}: "
                                                "it is not available in this sequence", "17.8"))
            continue
        if air_id in chosen:
            problems.append(problem(under(w, "air"), f"{air_id} is committed twice", rule))
            continue
        h = ctx.sc.map.canonical(e.hex)
        if h is None:
            problems.append(problem(under(w, "hex"), f"'{e.hex}' is not a hex of the map", rule))
        elif not ctx.occupants(h, side):
            problems.append(problem(under(w, "hex"), f"{h} holds no {SIDE_ADJECTIVE[side]} unit: an air unit is placed on a "
                                                "stack of its side", rule))
        elif h in by_hex:
            problems.append(problem(under(w, "hex"), f"{by_hex[h]} is already committed to {h}: one air unit per hex", "10.2"))
        elif side == "soviet" and _out_of_range(ctx, h):
            problems.append(problem(under(w, "hex"), f"{h} is {_range_text(ctx)} (Ambiguity 18)", "10.4"))
        else:
            chosen[air_id] = h
            by_hex[h] = air_id
    if len(problems) > known:
        return
    air = placements(ctx.position)
    ended = [{"air": n, "hex": r["hex"]} for n, r in sorted(air.items()) if r["side"] == side]
    air = {n: r for n, r in air.items() if r["side"] != side}
    placed = []
    for air_id, h in chosen.items():
        unit = units[air_id]
        air[air_id] = placement(ctx.sc, side, unit, h, ctx.turn, ctx.pts)
        stacks(ctx)[air_id] = ctx.occupants(h, side)
        placed.append({"air": air_id, "name": unit.name, "hex": h, "place": ctx.sc.map.hexes[h].place,
                       "points": air[air_id]["points"], "shift": unit.shift, "units": ctx.occupants(h, side)})
    _store(ctx, air)
    idle = [{"air": a.id, "name": a.name, "points": a.points_in(ctx.turn, ctx.pts)} for a in units.values()
            if a.id not in chosen and a.points_in(ctx.turn, ctx.pts) > 0]
    unavailable = [a.id for a in units.values() if a.points_in(ctx.turn, ctx.pts) <= 0]
    ctx.emit("ground-support", rule, side=side, step=ctx.step, placed=placed, idle=idle, unavailable=unavailable,
             ended=ended, air_provisional=_provisional(ctx.sc, side))


# --- the supported stack moves, splits or is gone (10.2) ------------------------------------------

def riding(ctx: Ctx) -> dict[str, int]:
    """The air units going with the [[move]] under way (its index), for its mobile assault."""
    r: dict[str, int] = ctx.air.setdefault("riding", {})
    return r


def stacks(ctx: Ctx) -> dict[str, list[str]]:
    """The units of each supported stack when last looked at (settle), to follow them when they
    all leave the hex by advance after combat or retreat."""
    s: dict[str, list[str]] = ctx.air.setdefault("stacks", {})
    return s


def _lost(ctx: Ctx, air: dict[str, dict[str, Any]], air_id: str, why: str) -> None:
    r = air.pop(air_id)
    stacks(ctx).pop(air_id, None)
    riding(ctx).pop(air_id, None)
    ctx.emit("support-lost", "10.4" if "10.4" in why else "10.2", air=air_id, name=_name(ctx.sc, air_id), side=r["side"],
             hex=r["hex"], why=why)


def carry(ctx: Ctx, index: int, move: Move, units: list[str], origin: str, walk: list[str],
          assault: str | None, problems: list[Problem]) -> None:
    """10.2: a [[move]] has taken ``units`` from ``origin`` along ``walk`` (to the launch hex of
    its mobile assault into ``assault``, if any). An air unit on the stack in ``origin`` goes with
    them when the move names it in ``support`` (the German, or the Soviet, says which part keeps it
    when the stack splits) or when no unit of the side is left in ``origin``; otherwise it stays with
    the units that stay. The Soviet unit may not enter a hex more than 10 hexes from Moscow (10.4)."""
    names = list(move.support)
    where = path_of("move", index, "support")
    if not enabled(ctx):
        if names:
            problems.append(problem(where, "ground support is a full-game rule (option ground_support is off)", "10.2"))
        return
    side = ctx.side
    air = dict(placements(ctx.position))
    here = [n for n, r in sorted(air.items()) if r["side"] == side and r["hex"] == origin and n not in riding(ctx)]
    bad = False
    for n in dict.fromkeys(names):
        if n not in here:
            at = air[n]["hex"] if n in air and air[n]["side"] == side else None
            problems.append(problem(where, f"{n} is not with the stack that began this move in {origin}"
                                           + (f" (it supports the stack in {at})" if at else " (it is not committed)"), "10.2"))
            bad = True
    if bad or not here:
        return
    left = [u for u in ctx.occupants(origin, side) if u not in units]  # an MA force is still in origin
    entered = [*walk, *([assault] if assault else [])]
    far = [h for h in entered if side == "soviet" and _out_of_range(ctx, h)]
    end = ctx.at(units[0])
    for n in here:
        named = n in names
        if left and not named:
            continue  # 10.2: it stays with the units that stay
        if far and named:
            problems.append(problem(where, f"{n} may not enter {far[0]}, {_range_text(ctx)} (Ambiguity 18)", "10.4"))
        elif far:
            _lost(ctx, air, n, f"its stack moved to {far[0]}, {_range_text(ctx)}, where it may not go (10.4, Ambiguity 18)")
        else:
            why = "named in the move's `support`" if named else "it goes with the last units of its stack to leave"
            air[n] = {**air[n], "hex": end}
            if assault:  # the MA force takes it along (15.5); land() says where it ends up
                riding(ctx)[n] = index
                ctx.air.setdefault("why", {})[n] = why
                continue
            stacks(ctx)[n] = ctx.occupants(end, side)
            ctx.emit("support-carried", "10.2", air=n, name=_name(ctx.sc, n), side=side, index=index, **{"from": origin},
                     to=end, why=why)
    _store(ctx, air)


def land(ctx: Ctx, index: int, units: list[str], origin: str) -> None:
    """10.2, 15.5: after the mobile assault of [[move]] ``index``, an air unit that went with the
    force is on it: in the assaulted hex when it was cleared, back in the launch hex when not; its
    support ends when the whole force was eliminated."""
    air = placements(ctx.position)
    for n in sorted(n for n, i in riding(ctx).items() if i == index):
        del riding(ctx)[n]
        if n not in air:
            continue
        alive = [u for u in units if ctx.on_map(u)]
        air = dict(air)
        if not alive:
            _lost(ctx, air, n, "every unit of the mobile-assault force it went with was eliminated")
        else:
            r = air[n] = {**air[n], "hex": ctx.at(alive[0])}
            stacks(ctx)[n] = ctx.occupants(r["hex"], r["side"])
            why = ctx.air.get("why", {}).pop(n, "")
            ctx.emit("support-carried", "10.2", air=n, name=_name(ctx.sc, n), side=r["side"], index=index,
                     **{"from": origin}, to=r["hex"], why=f"{why}, with the mobile-assault force (15.5)")
        _store(ctx, air)


def settle(ctx: Ctx) -> None:
    """10.2: where each committed air unit is now. On a hex that still holds units of its side it
    stays (they are its stack, those that joined included); when they all left the hex together
    (advance after combat, retreat) it follows them; when none of them is left, its support ends
    until the side's next commitment phase. Run before each combat and at the end of each step."""
    air = placements(ctx.position)
    if not air:
        return
    air = dict(air)
    known = stacks(ctx)
    for n, r in sorted(air.items()):
        if n in riding(ctx):
            continue
        here = ctx.occupants(r["hex"], r["side"])
        if here:
            known[n] = here
            continue
        alive = [u for u in known.get(n, []) if u in ctx.units and ctx.on_map(u)]
        if not alive:
            _lost(ctx, air, n, "no unit of the stack it supported is left")
            continue
        count = Counter(ctx.at(u) for u in alive)
        to = min(count, key=lambda h: (-count[h], h))
        if r["side"] == "soviet" and _out_of_range(ctx, to):
            _lost(ctx, air, n, f"its stack moved to {to}, {_range_text(ctx)}, where it may not go (10.4, Ambiguity 18)")
            continue
        ctx.emit("support-carried", "10.2", air=n, name=_name(ctx.sc, n), side=r["side"], index=None,
                 **{"from": r["hex"]}, to=to, why="the last units of its stack left the hex after combat")
        air[n] = {**r, "hex": to}
        known[n] = ctx.occupants(to, r["side"])
    _store(ctx, air)


# --- combat (10.1-10.4, 14.13, 15.5) ----------------------------------------------------------------

def air_combat(ctx: Ctx, attackers: list[str], defenders: list[str], target: str, oos: Collection[str],
               att_total: int, def_total: int, force: int | None = None) -> CombatSupport:
    """Ground support in one combat (10.2-10.4, 14.13; 15.5 in a mobile assault: ``force`` is the
    index of the [[move]]). For each committed air unit whose stack takes part: an attacker's air
    unit when units of its hex attack (in an MA, when it went with the force), a defender's when it
    is on the defending hex. Its points are added, capped at the combat strength of the stack's
    participating units after every halving (option ground_support_cap "participating",
    Ambiguity 29; "stack": of all its ground units), shared when two air units are on one stack;
    VIII Fliegerkorps (the chart's ``shift``) gives 1R on its attack, 1L on the Soviet attack on its
    stack (10.3; option viii_on_defense, Ambiguity 29). Also the report data on Flak in the target
    hex (10.1; the halving itself is in rules.combat.strength.attack_strength)."""
    data: dict[str, Any] = {}
    info = flak_info(ctx, attackers, target)
    if info:
        data["flak"] = info
    if not enabled(ctx) or not placements(ctx.position):
        return CombatSupport(data=data)
    settle(ctx)
    side = ctx.side
    rows: list[dict[str, Any]] = []
    shifts: list[Shift] = []
    added = {"attacker": 0, "defender": 0}
    left: dict[tuple[str, str], int] = {}  # what is left of each supported stack's cap
    for n, r in sorted(placements(ctx.position).items()):
        if r["side"] == side:
            role = "attacker"
            if force is not None:
                part = list(attackers) if riding(ctx).get(n) == force else []
                stack = part
            else:
                part = [] if n in riding(ctx) else [u for u in attackers if ctx.at(u) == r["hex"]]
                stack = part if ctx.options.get("ground_support_cap") != "stack" else \
                    [u for u in ctx.occupants(r["hex"], side) if u in part or not ctx.untried(u)]  # 2.15: hidden values count nothing
            if not part:
                continue
            key = (role, str(force) if force is not None else r["hex"])
            if key not in left:
                # 9.7: a unit that does not attack is checked now
                cut = set(oos) | set(out_of_supply(ctx, [u for u in stack if u not in part]))
                left[key] = attack_strength(ctx, stack, target, cut)[0]
        elif r["hex"] == target:
            role = "defender"
            part = list(defenders)
            key = (role, target)
            left.setdefault(key, def_total)
        else:
            continue
        cap = left[key]
        points = int(r["points"])
        add = min(points, cap)
        left[key] = cap - add
        added[role] += add
        shift = ""
        if int(r.get("shift", 0)) and r["side"] == "german":
            if role == "attacker":
                shifts.append(Shift(int(r["shift"]), "10.3", f"{_name(ctx.sc, n)} supports the German attack"))
                shift = shifts[-1].label
            elif ctx.options.get("viii_on_defense", "1L") == "1L":
                shifts.append(Shift(-int(r["shift"]), "10.3", f"{_name(ctx.sc, n)} supports the German defense, in his favour, Ambiguity 29"))
                shift = shifts[-1].label
        rows.append({"air": n, "name": _name(ctx.sc, n), "side": r["side"], "role": role, "hex": r["hex"], "units": part,
                     "points": points, "cap": cap, "added": add, "shift": shift, "provisional": bool(r.get("provisional"))})
    if not rows:
        return CombatSupport(data=data)
    data.update(support=rows, ground_totals=[att_total, def_total], air_provisional=any(x["provisional"] for x in rows))
    return CombatSupport(added["attacker"], added["defender"], shifts, data)


def flak_state(ctx: Ctx, hex_id: str) -> tuple[list[str], str]:
    """10.1 (option flak): the German Flak units in a hex, and why they do not halve Soviet tank
    attackers ("" when they do): alone or only with other Flak units; or out of supply (the hex
    must have full or attenuated ground supply, or air supply: supply.supply_state, every unit
    supplied with the option supply off)."""
    if not ctx.options.get("flak", False):
        return [], ""
    here = ctx.occupants(hex_id, "german")
    flak = [u for u in here if ctx.spec(u).type == "flak"]
    if not flak:
        return [], ""
    if len(flak) == len(here):
        return flak, "it is alone or only with other Flak units, so it just defends"
    if supply_state(ctx, flak[0]) == "oos":
        return flak, "its hex is out of supply (it needs ground supply, full or attenuated, or air supply)"
    return flak, ""


def flak_halves(ctx: Ctx, hex_id: str) -> list[str]:
    """10.1: the Flak units that halve the attack factor of every Soviet tank unit attacking the hex
    (empty when none does)."""
    flak, why = flak_state(ctx, hex_id)
    return [] if why else flak


def flak_info(ctx: Ctx, attackers: list[str], target: str) -> dict[str, Any]:
    """The report data on Flak for a Soviet attack with tank units on a hex holding Flak (10.1)."""
    tanks = [u for u in attackers if ctx.spec(u).side == "soviet" and ctx.spec(u).type == "tank"]
    flak, why = flak_state(ctx, target)
    if not flak or not tanks:
        return {}
    return {"units": flak, "tanks": tanks, "applies": not why, "why": why}


def flak_attack_problems(ctx: Ctx, where: Place, units: list[str]) -> list[Problem]:
    """10.1 (option flak): Flak never attacks, and may not accompany a mobile assault."""
    if not ctx.options.get("flak", False):
        return []
    return [problem(where, f"{u} is Flak, which never attacks (nor takes part in a mobile assault)", "10.1")
            for u in units if ctx.spec(u).type == "flak"]


# --- GT12 (10.1, 10.2, 10.4, 8.10, 8.16-8.17) -------------------------------------------------------

def december_air(ctx: Ctx, turn: int) -> None:
    """At the start of GT12 (an automatic phase before the MR phase, sequence.py): every German
    air unit leaves for good (10.2; 8.17: this withdrawal may not be refused), and the Soviet
    receives his GS unit unless either Moscow hex is German-controlled or both are out of supply
    (10.4, 8.10; Ambiguity 18). With the option supply off the supply condition is not checked.

    No option for the conditions (the range half of Ambiguity 18 is the option soviet_gs_range):
    both rules deny the unit when either Moscow hex is German-controlled (8.10 "either Moscow hex",
    10.4 "one or both"), so a reading where only supply counts has no text behind it; and for supply,
    8.10's "supply to the city completely cut" is met exactly when no Moscow hex is in supply, which,
    with neither hex German-controlled, is 10.4's "both Moscow hexes OOS". One Moscow hex out of supply
    leaves the city's supply not completely cut under either wording. The readings agree in every
    position, so there is nothing to choose."""
    air = placements(ctx.position)
    removed = [{"air": n, "hex": r["hex"]} for n, r in sorted(air.items()) if r["side"] == "german"]
    _store(ctx, {n: r for n, r in air.items() if r["side"] != "german"})
    ctx.emit("air-departure", "10.2", turn=turn, units=[a.id for a in ctx.sc.charts.air.german], removed=removed)
    sov = ctx.sc.charts.air.soviet
    received, why = False, ""
    moscow = ctx.sc.map.moscow()
    control = ctx.position["control"]
    held = [h for h in moscow if control.get(h) == "german"]
    checked = bool(ctx.options.get("supply", False))
    if sov is None:
        why = "the charts have no Soviet GS unit"
    elif not moscow:
        why = "the map has no Moscow hexes"
    elif held:
        why = f"{', '.join(held)} {'is' if len(held) == 1 else 'are'} German-controlled"
    else:
        # soviet_hex_state: "supplied" for every hex with the option supply off
        cut = [h for h in moscow if soviet_hex_state(ctx, h) == "oos"]
        if cut and len(cut) == len(moscow):
            why = "both Moscow hexes are out of supply"
        else:
            received = True
            why = ("Moscow is Soviet-controlled and in supply" if checked
                   else "Moscow is Soviet-controlled (supply is not checked: option supply is off)")
    ctx.position["soviet_air"] = received
    ctx.emit("soviet-air", "10.4", turn=turn, received=received, why=why, air=sov.id if sov else "",
             name=sov.name if sov else "", points=sov.points_in(GT12, 1) if sov else 0, moscow=list(moscow))


def flak_withdrawal(ctx: Ctx, turn: int) -> None:
    """10.1, 8.16: every Flak unit not eliminated is withdrawn for good in the first German RWR
    phase of GT12, wherever it is (Ambiguity 22: the on-map and supply tests of 8.16 do not apply);
    8.17: this withdrawal may not be refused. Automatic, at the start of GT12's first sequence."""
    gone = []
    for u in sorted(ctx.units):
        spec = ctx.spec(u)
        if spec.side == "german" and spec.type == "flak" and ctx.at(u) not in ("dead", "withdrawn"):
            gone.append({"unit": u, "from": ctx.at(u)})
            ctx.units[u]["at"] = "withdrawn"
    ctx.emit("flak-withdrawn", "10.1", turn=turn, units=gone)


# --- text: report lines, `pbem show`, the template -------------------------------------------------

def _pts(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def support_lines(d: dict[str, Any]) -> list[str]:
    """The lines of an attack or mobile-assault report for Flak (10.1) and ground support (10.2-10.4)."""
    lines = []
    f = d.get("flak")
    if f:
        if f["applies"]:
            lines.append(f"  - Flak in {d['target']} ({', '.join(f['units'])}): the attack factor of every Soviet tank unit "
                         f"({', '.join(f['tanks'])}) is halved (10.1, combined with the other halvings: Ambiguity 30).")
        else:
            lines.append(f"  - Flak in {d['target']} ({', '.join(f['units'])}) does not halve the Soviet tanks: {f['why']} (10.1).")
    if not d.get("support"):
        return lines
    for r in d["support"]:
        who = "attackers" if r["role"] == "attacker" else "defenders"
        prov = "; provisional 17.8 points" if r["provisional"] else ""
        capped = (f", capped at {r['cap']}, the combat strength of the supported stack's participating units (Ambiguity 29)"
                  if r["added"] < r["points"] else "")
        total = "attack" if r["role"] == "attacker" else "defense"
        lines.append(f"  - Ground support: {r['name']} ({r['air']}, on {r['hex']}) supports the {who} "
                     f"{', '.join(r['units'])}: {_pts(r['points'])}{capped}: +{r['added']} to the {total} total "
                     f"({'10.4' if r['side'] == 'soviet' else '10.2'}, 14.13{', 15.5' if 'launch' in d else ''}; "
                     f"the points never absorb step losses{prov}).")
    ga, gd = d["ground_totals"]
    if d["attack_total"] != ga:
        lines.append(f"  - Attack total with ground support: {ga} + {d['attack_total'] - ga} = {d['attack_total']} (10.2).")
    if d["defense_total"] != gd:
        lines.append(f"  - Defense total with ground support: {gd} + {d['defense_total'] - gd} = {d['defense_total']} (10.2).")
    return lines


def _support_event(d: dict[str, Any]) -> list[str]:
    placed = [f"{p['name']} ({p['air']}, {_pts(p['points'])}" + (f", {p['shift']} column, 10.3" if p["shift"] else "")
              + f") on {p['hex']}{' ' + p['place'] if p['place'] else ''} ({', '.join(p['units'])})" for p in d["placed"]]
    rule = "10.4" if d["side"] == "soviet" else "10.2"
    prov = "; points from the provisional 17.8 schedule" if d["air_provisional"] and d["placed"] else ""
    lines = []
    if d["ended"]:
        ended = ", ".join(f"{x['air']} ({x['hex']})" for x in d["ended"])
        lines.append(f"- The air units committed before leave their stacks: {ended} ({rule}).")
    lines.append(f"- Ground support committed by the {d['side'].capitalize()}: " + ("; ".join(placed) if placed else "none")
                 + f" ({rule}; one per hex, no stacking value, 6.6{prov}).")
    if d["idle"]:
        idle = ", ".join(f"{x['air']} ({_pts(x['points'])})" for x in d["idle"])
        lines.append(f"- Not committed: {idle}.")
    if d["unavailable"]:
        lines.append(f"- No points in this sequence, not available: {', '.join(d['unavailable'])} (17.8).")
    return lines


def _soviet_air(d: dict[str, Any]) -> list[str]:
    if d["received"]:
        return [f"- The Soviet receives the {d['name']} ({d['air']}, {_pts(d['points'])}, no column shift): {d['why']} "
                "(10.4, 8.10, Ambiguity 18). He commits it in his GT12 Ground Support Commitment phases, within "
                f"{SOVIET_RANGE} hexes of Moscow."]
    return [f"- The Soviet does not receive his GS unit{' (' + d['name'] + ')' if d['name'] else ''}: {d['why']} "
            "(10.4, 8.10, Ambiguity 18)."]


def _support_carried(e: Event) -> list[str]:
    d = e.data
    how = f"with move {d['index'] + 1}" if d["index"] is not None else "with its stack"
    return [f"  - {d['name']} ({d['air']}) goes {how} from {d['from']} to {d['to']}: {d['why']} (10.2)."]


def _support_lost(e: Event) -> list[str]:
    d = e.data
    why = d["why"] if d["why"].endswith(")") else f"{d['why']} ({e.rule})"
    return [f"  - {d['name']} ({d['air']}) no longer supports a stack until the {d['side'].capitalize()}'s next "
            f"commitment phase: {why}."]


def _air_departure(e: Event) -> list[str]:
    d = e.data
    gone = "; their stacks lose them: " + ", ".join(f"{x['air']} ({x['hex']})" for x in d["removed"]) if d["removed"] else ""
    return [f"- All German ground-support air units leave for good at the start of GT{d['turn']}: "
            f"{', '.join(d['units']) or 'none'}{gone} (10.2; this withdrawal may not be refused, 8.17)."]


def _flak_withdrawn(e: Event) -> list[str]:
    d = e.data
    what = ", ".join(f"{x['unit']} ({x['from']})" for x in d["units"]) or "none is left"
    return [f"- The Flak corps are withdrawn for good in the first German RWR phase of GT{d['turn']}: {what} "
            "(10.1, 8.16; this withdrawal may not be refused, 8.17)."]


# Report lines of the air and Flak events (10.1-10.4), by kind (render.EVENT_TEXT).
EVENT_TEXT: dict[str, Callable[[Event], list[str]]] = {
    "ground-support": lambda e: _support_event(e.data), "support-carried": _support_carried,
    "support-lost": _support_lost, "air-departure": _air_departure, "soviet-air": lambda e: _soviet_air(e.data),
    "flak-withdrawn": _flak_withdrawn,
}


def position_lines(sc: Scenario, state: dict[str, Any]) -> list[str]:
    """`pbem show`: where each committed air unit is (10.2, 10.4), and the Soviet unit's state."""
    pos = state["position"]
    lines = []
    for n, r in placements(pos).items():
        place = sc.map.hexes[r["hex"]].place if r["hex"] in sc.map.hexes else ""
        shift = f", {r['shift']} column (10.3)" if r.get("shift") else ""
        prov = ", provisional 17.8 points" if r.get("provisional") else ""
        lines.append(f"Ground support ({'10.4' if r['side'] == 'soviet' else '10.2'}): {_name(sc, n)} ({n}), "
                     f"{_pts(int(r['points']))}{shift}{prov}, on the {r['side'].capitalize()} stack in {r['hex']}"
                     + (f" {place}" if place else "") + f" since {r['step']}")
    if "soviet_air" in pos:
        lines.append(f"Soviet GS unit (10.4): {'received' if pos['soviet_air'] else 'not received'} at the start of GT{GT12}")
    return lines


def template_lines(sc: Scenario, state: dict[str, Any], side: str) -> list[str]:
    """The awaited player turn's Ground Support Commitment phase in a template: the air units
    available, with their points in this sequence (17.8, 10.4), and the key that places them."""
    opts = state["options"]
    clock = state["clock"]
    turn, pts = int(clock["turn"]), int(clock["pts"])
    if not opts.get("ground_support") or state["awaits"].get("kind") != "orders" or pts == 0:  # pts 0: the MR step
        return []
    if not [p for p in phases(opts, PLAYER_TURN, turn, side=side) if p.name == "ground-support"]:
        return []
    if side == "soviet" and not state["position"].get("soviet_air"):
        return ["", f"# Ground support (10.4): the Soviet GS unit was not received at the start of GT{GT12}."]
    units = side_units(sc, side)
    rule = "10.4" if side == "soviet" else "10.2"
    prov = ", provisional schedule" if _provisional(sc, side) else ""
    lines = ["", f"# Ground Support Commitment phase ({rule}): place each air unit you use on one of your stacks, at most one",
             "# per hex; it supports that stack in attack and defense until your next commitment phase. Points in this",
             f"# sequence (17.8{prov}):"]
    for a in units:
        p = a.points_in(turn, pts)
        lines.append(f"#   {a.id} ({a.name}): " + (f"{_pts(p)}" + (f", {a.shift} column in your favour (10.3)" if a.shift else "")
                                                     if p > 0 else "no points, not available"))
    if side == "soviet":
        lines.append(f"# The Soviet unit may not go more than {SOVIET_RANGE} hexes from Moscow (10.4).")
    first = next((a.id for a in units if a.points_in(turn, pts) > 0), "AIR")
    lines += ["# [[support]]", f'# air = "{first}"', '# hex = "HEX"']
    return lines


def plug(hooks: Hooks) -> Hooks:
    """The air and Flak rules in the core rules (rules/context.py, Hooks): the air units that go with
    a move (10.2), the Flak units that never attack (10.1) and halve Soviet tanks (10.1), and ground
    support in a combat (10.2-10.4, 14.13)."""
    return replace(hooks, moved=carry, attack_barred=flak_attack_problems, flak=flak_halves, ground_support=air_combat)
