"""Proud Monster mobile assault (15.0-15.14; option ``mobile_assault``, full game): an attack made
during movement by the last hex of a [[move]]'s path (``assault = "HEX"``).

Orders are checked before any die is rolled, assuming every mobile assault clears its hex; when a
mobile assault fails, the later moves its result makes impossible are cancelled (``move-cancelled``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.errors import Problem
from pbem.mechanics.odds import Odds, Shift, apply_shifts

from .air import air_combat, land
from .data import ARMOR
from .orders import Move
from .rules.combat.attacks import attack_restriction_problems
from .rules.combat.losses import take_losses
from .rules.combat.resolve import combat_notes, crt_outcome
from .rules.combat.shifts import attack_shifts
from .rules.combat.strength import attack_strength, defense_rows, defense_total
from .rules.context import Ctx, Hooks, MoveTracker, Units
from .rules.control import enter_hex
from .rules.hedgehogs import in_hedgehog
from .rules.movement import do_move, hexside_cost, movement_allowance
from .rules.places import path_of, problem
from .rules.stacking import stack_problems
from .rules.untried import reveal_untried
from .rules.weather import combat_terrain, weather_at, weather_ignores
from .sequence import other
from .supply import gast, ma_oos

NO_MA_NATIONS = frozenset({"italian", "hungarian", "romanian"})  # 15.1
# Shifts of a prepared assault that an MA does not take: concentric (15.3), the PA water shifts
# (an MA has its own river shift, 15.10), the Soviet snow PA shift (13.7; no MA in snow anyway).
PA_ONLY_SHIFTS = frozenset({"14.14", "14.19", "14.20", "13.7"})


def ma_cost(ctx: Ctx, side: str) -> tuple[int, str]:
    """15.2: an MA costs a German 7 MP (6 on GT1, 5.6/15.6) and a Soviet 4, whatever the terrain."""
    if side == "soviet":
        return 4, "15.2"
    return (6, "5.6") if ctx.turn == 1 else (7, "15.2")


def is_soviet_cavalry(ctx: Ctx, unit: str) -> bool:
    spec = ctx.spec(unit)
    return spec.side == "soviet" and spec.type == "cavalry"


def assault_problems(ctx: Ctx, index: int, move: Move, units: list[str], launch: str, target: str,
                     tr: MoveTracker) -> list[Problem]:
    """The limits of 15.1-15.3, 15.6-15.8 and 12.3 on an MA from ``launch`` into ``target``."""
    where = path_of("move", index, "assault")
    side = ctx.side
    problems: list[Problem] = []
    h = ctx.sc.map.hexes[target]
    if target not in ctx.sc.map.neighbours(launch):
        return [problem(where, f"{target} is not adjacent to {launch}", "15.2")]
    if not ctx.occupants(target, other(side)):
        return [problem(where, f"{target} holds no enemy unit to assault; enter it by normal movement", "15.2")]
    for u in units:
        spec = ctx.spec(u)
        if spec.nat in NO_MA_NATIONS:
            problems.append(problem(where, f"{u} is {spec.nat.capitalize()}: Italian, Hungarian and Romanian units never take part in an MA", "15.1"))
        elif spec.type == "flak" and not ctx.options.get("flak"):  # with the option flak: 10.1 (air.flak_attack_problems)
            problems.append(problem(where, f"{u} is Flak, which may not take part in an MA", "15.1"))
        elif not spec.mechanized and not is_soviet_cavalry(ctx, u):
            problems.append(problem(where, f"{u} is not mechanized; only mechanized units (and Soviet cavalry, 15.12) make an MA", "15.1"))
    if any(ctx.spec(u).type == "motorized" for u in units) and not any(ctx.spec(u).type in ARMOR for u in units):
        problems.append(problem(where, "motorized infantry may take part only with a tank, assault-gun or armored-recon unit in the same MA", "15.1"))
    if combat_terrain(ctx, target) == "swamp":
        problems.append(problem(where, f"{target} is a swamp hex; no MA may be made against swamp", "15.3"))
    if side == "german" and in_hedgehog(ctx, launch):  # 14.40, Ambiguity 48: hedgehog units never attack, MA included
        problems.append(problem(where, f"{launch} is a hedgehog; units in a hedgehog may not attack, by MA either", "14.40"))
    # 15.3: never in mud or snow, anywhere: the weather of the assaulted hex's zone and of the launch hex's
    for hx in dict.fromkeys((target, launch)):
        w = weather_at(ctx, hx)
        if w in ("M", "S"):
            problems.append(problem(where, f"no MA in {'mud' if w == 'M' else 'snow'} ({hx}'s zone "
                                           f"{ctx.sc.map.hexes[hx].zone})", "15.3"))
            break
    if h.settlement == "city" and ctx.sc.map.hexes[launch].settlement == "city":
        problems.append(problem(where, f"no MA directly from one city hex ({launch}) into another ({target})", "15.3"))
    feats = ctx.sc.map.border_features(launch, target)
    if feats & {"sivash", "kerch"}:
        problems.append(problem(where, f"no MA across the Sivash or Kerch hexside {launch}-{target}", "15.3"))
    elif feats & {"sea", "lake"}:
        problems.append(problem(where, f"the hexside {launch}-{target} may not be crossed", "15.2"))
    else:
        cost, rule = ma_cost(ctx, side)
        for u in units:
            side_cost, _, _ = hexside_cost(ctx, ctx.spec(u), launch, target)
            need = cost + (int(side_cost) if isinstance(side_cost, int) else 0)
            mf, _ = movement_allowance(ctx, u, tr.start[u], target)  # Ambiguity 59: rain_zone
            left = mf - tr.spent.get(u, 0)
            if need > left:
                minimum = " (the one-hex minimum move does not permit an MA, 12.3)" if u not in tr.moved else ""
                problems.append(problem(where, f"{u} needs {need} MP for the MA ({cost} for the MA ({rule}) + {need - cost} for the hexside) "
                                               f"but has {left} of {mf} left{minimum}", "15.3" if minimum else "15.2"))
    # 15.7 / 6.2: the launch hex is a stacking checkpoint (with the full game's 6.3-6.5 and 7.x limits)
    for rule, text in stack_problems(ctx, launch, ctx.occupants(launch, side)):
        problems.append(problem(where, f"when the MA begins, the launch hex holds {text} ({rule})", "15.7"))
    # who may not attack, or not together (7.2-7.4, 5.3), applies to an MA as to a PA (15.14)
    problems += attack_restriction_problems(ctx, where, target, units)
    rounds = move.rounds
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
        problems.append(problem(path_of("move", index, "rounds"), f"{rounds!r} is not a number of rounds (1 or more)", "15.6"))
    elif rounds > 1 and not (ctx.turn == 1 and side == "german"):
        problems.append(problem(path_of("move", index, "rounds"), "only German MAs on GT1 may run more than one round", "15.6"))
    if move.on_failure != "return":
        problems.append(problem(path_of("move", index, "on_failure"), f"'{move.on_failure}' is not a choice: a failed MA returns "
                                "the force to the hex it attacked from and its move ends", "15.6"))
    for u in move.losses:
        if u not in units:
            problems.append(problem(path_of("move", index, "losses"), f"{u} is not one of this MA's units", "14.35"))
    return problems


def ma_shifts(ctx: Ctx, units: list[str], launch: str, target: str) -> list[Shift]:
    """15.14: the defender's hex shifts as for a PA (attack_shifts), less those of PAs only: never
    concentric (15.3); 15.10 river shift if the force entered across a river (not ignored by the
    weather, 13.6-13.7, nor by Germans on GT1, 5.5); 15.11 forest 1L."""
    shifts = [s for s in attack_shifts(ctx, units, target) if s.rule not in PA_ONLY_SHIFTS]
    river = "river" in ctx.sc.map.border_features(launch, target) and not weather_ignores(ctx, "river", target)
    if river and not (ctx.turn == 1 and ctx.side == "german"):
        shifts.append(Shift(-1, "15.10", "the MA force entered across a river"))
    if combat_terrain(ctx, target) == "forest":
        shifts.append(Shift(-1, "15.11", "MA against a forest hex"))
    return shifts


def assault_round(ctx: Ctx, index: int, move: Move, units: list[str], launch: str, target: str,
                  rnd: int) -> bool:
    """One MA round, resolved like a PA (15.14): untried units drawn (2.15), odds, shifts, the CRT
    roll or automatic result, city doubling (14.23); the defender cannot retreat and both sides take
    step losses, the defender first (15.3, 14.32); Soviet cavalry that add their attack factor are
    eliminated at once, a full-strength 2-step Guards cavalry unit reduced (15.12), apart from the
    die loss. Returns whether the hex was cleared.

    Ambiguity 52: the eliminated cavalry's attack factors count in the odds. No option: 15.12 makes
    the elimination the price of "adding its attack factor" and keeps it apart from the die loss,
    so the factor is in the combat; read the other way a cavalry MA would lose its units and add
    nothing, and a cavalry-only MA, which 15.12 allows, would always be at 0 attack."""
    side = ctx.side
    enemy = other(side)
    attackers = [u for u in units if ctx.on_map(u)]
    defenders = ctx.occupants(target, enemy)
    reveal_untried(ctx, index, attackers, defenders, what=f"move {index + 1}")
    oos = ma_oos(ctx, index, attackers, defenders)  # 15.4, 9.7 (option supply)
    att_total, att_rows = attack_strength(ctx, attackers, target, oos)
    def_rows = defense_rows(ctx, defenders, target, oos)  # 14.30: the Stalin Line; 9.7
    def_total = defense_total(def_rows)
    gs = air_combat(ctx, attackers, defenders, target, oos, att_total, def_total, force=index)  # 15.5, 10.1-10.4
    att_total, def_total = att_total + gs.attack, def_total + gs.defense
    odds = Odds.of(att_total, def_total)
    shifts = ma_shifts(ctx, attackers, launch, target) + gs.shifts  # 10.3
    extra: dict[str, Any] = {**gs.data, **combat_notes(ctx, attackers, target)}  # works, weather (15.14)
    if ctx.options.get("supply"):  # 9.6, 15.4: the GAST by the attackers' supply at the start of their move
        shifts, gast_data = gast(ctx, f"move {index + 1}", attackers, target, shifts, rnd=rnd, mobile=True)
        extra.update(gast_data)
    final = apply_shifts(odds, shifts)
    label = f"{'15.2' if rnd == 1 else '15.6'}|{ctx.step}|move {index + 1}|{target}|CRT" + (f" round {rnd}" if rnd > 1 else "")
    auto, face, label, result, provisional, att_loss, def_loss, doubling = crt_outcome(ctx, final, target, label)
    h = ctx.sc.map.hexes[target]
    ctx.emit("mobile-assault", "15.2", index=index, round=rnd, launch=launch, target=target, place=h.place,
             terrain=h.terrain, settlement=h.settlement, attackers=att_rows, defenders=def_rows, attack_total=att_total,
             defense_total=def_total, odds=odds.label,
             shifts=[{"label": s.label, "rule": s.rule, "reason": s.reason} for s in shifts],
             final=final.label, automatic=auto is not None, die=face, label=label, result=result.label,
             provisional=provisional, city=doubling, outcome=f"{att_loss}/{'E' if def_loss is None else def_loss}", **extra)
    cavalry = [u for u in attackers if is_soviet_cavalry(ctx, u) and ctx.factors(u)[0] > 0]
    if cavalry:  # 15.12: at once, apart from the die loss
        gone = []
        for u in cavalry:
            if ctx.spec(u).steps == 2 and ctx.steps(u) == 2:
                ctx.units[u]["steps"] = 1
                gone.append({"unit": u, "steps": 1, "eliminated": False})
            else:
                gone.append({"unit": u, "steps": ctx.steps(u), "eliminated": True})
                ctx.units[u]["steps"] = 0
                ctx.units[u]["at"] = "dead"
        ctx.emit("assault-cavalry", "15.12", index=index, losses=gone)
    # 14.32: the defender absorbs its full result first; no retreat after an MA (15.3, 14.33 note).
    key = -1 - index  # decisions of mobile assaults are never awaited (ask_fallback)
    take_losses(ctx, enemy, "defender", defenders, def_loss, key, None, {}, ask_fallback=True)
    take_losses(ctx, side, "attacker", [u for u in attackers if ctx.on_map(u)], att_loss, key, move, {}, ask_fallback=True)
    return not ctx.occupants(target, enemy)


def mobile_assault(ctx: Ctx, index: int, move: Move, units: list[str], launch: str, target: str,
                   tr: MoveTracker, problems: list[Problem]) -> None:
    """An MA by the force of a [[move]] from ``launch`` into ``target`` (15.2): legality, MP, then
    the round(s). Cleared: the force is in the hex (15.9: no advance, it may go on moving with the
    MP left; control and VP, 3.9). Not cleared: the force stays in the hex it attacked from and its
    move ends (15.6 option 2), unless a GT1 German force with 6 MP left makes another round, up to
    the order's ``rounds`` (15.6 option 1, Ambiguity 50). Checking without dice assumes success.

    Ambiguity 50 needs no option: each further round costs another 6 MP, and no other reading is
    tenable. 6 MP is exactly the GT1 German MA cost (5.6, 15.6), so "still has 6 MP" is the price of
    the next MA; a round that only required 6 MP left without spending them would let a force that
    fails repeat the MA for nothing until it cleared the hex, which 15.2 ("normally only one round")
    and 15.6's condition exist to prevent. Hexside costs cannot come back either: multi-round MAs are
    German and on GT1 only, when German-side units ignore rivers (5.5), and no MA crosses the Sivash,
    the Kerch (15.3) or an all-sea/all-lake hexside. "The same unit or stack": the round is made by
    the whole surviving force, so it needs 6 MP for every unit of it."""
    found = assault_problems(ctx, index, move, units, launch, target, tr)
    if found:
        problems.extend(found)
        return
    cost, rule = ma_cost(ctx, ctx.side)
    first = {u: cost + int(c) for u in units
             for c in [hexside_cost(ctx, ctx.spec(u), launch, target)[0]] if isinstance(c, int)}
    rounds = move.rounds if isinstance(move.rounds, int) else 1  # an integer: assault_problems
    tr.assaults += 1
    cleared = True
    rnd = 0
    while True:
        rnd += 1
        alive = [u for u in units if ctx.on_map(u)]
        for u in alive:
            tr.spent[u] = tr.spent.get(u, 0) + (first[u] if rnd == 1 else cost)
            tr.moved.add(u)
            tr.last_order[u] = index
        if ctx.dice is None:
            break  # a check: the orders after an MA are checked as if it cleared the hex
        cleared = assault_round(ctx, index, move, alive, launch, target, rnd)
        alive = [u for u in units if ctx.on_map(u)]
        if cleared or not alive or rnd >= rounds:
            break
        if any(movement_allowance(ctx, u, tr.start[u], target)[0] - tr.spent[u] < cost for u in alive):
            break  # 15.6: another round only while the same force still has 6 MP
    alive = [u for u in units if ctx.on_map(u)]
    mp = {u: [tr.spent[u], movement_allowance(ctx, u, tr.start[u], target)[0]] for u in alive}
    if ctx.dice is None:
        for u in alive:
            ctx.units[u]["at"] = target
        return
    if cleared and alive:
        for u in alive:
            ctx.units[u]["at"] = target
        ctx.emit("assault-end", "15.9", index=index, target=target, launch=launch, units=alive, cleared=True, rounds=rnd,
                 mp=mp, cost_rule=rule)
        enter_hex(ctx, ctx.side, target, "mobile assault")
        return
    for u in alive:
        tr.ended[u] = index
    ctx.emit("assault-end", "15.6", index=index, target=target, launch=launch, units=alive, cleared=cleared, rounds=rnd,
             mp=mp, cost_rule=rule)


def assault_at_end_of_move(ctx: Ctx, index: int, move: Move, units: list[str], origin: str, launch: str,
                           target: str, tr: MoveTracker, problems: list[Problem]) -> None:
    """The mobile assault that ends the [[move]] of ``units`` from ``origin`` (15.2): made from
    ``launch`` into ``target`` (mobile_assault), then the air units that went with its force land
    with it (10.2, 15.5: air.land)."""
    mobile_assault(ctx, index, move, units, launch, target, tr, problems)
    land(ctx, index, units, origin)


def move_or_cancel(ctx: Ctx, index: int, move: Move, tr: MoveTracker, problems: list[Problem]) -> None:
    """A [[move]] in the movement phase. After a mobile assault has been resolved (with dice), the
    orders were checked as if it had cleared its hex: units it eliminated are left out of later
    moves, and a move its result makes impossible is not made (``move-cancelled``)."""
    if ctx.dice is None or not tr.assaults:
        do_move(ctx, index, move, tr, problems)
        return
    # Left out: the units a mobile assault eliminated (the dead pile), not those off the map by
    # right (an OKH reserve area, the RVGK, a holding box), whose move is checked like any other.
    units = [u for u in move.units if u in ctx.units and ctx.at(u) != "dead"]
    if not units:
        ctx.emit("move-cancelled", "15.2", index=index, units=list(move.units),
                 why="every unit of the move was eliminated in a mobile assault")
        return
    table = ctx.units if isinstance(ctx.units, Units) else None
    frame = table.checkpoint() if table is not None else None  # copies only the records the move changes
    saved_pos = None if table is not None else {u: dict(s) for u, s in ctx.units.items()}
    saved_control = dict(ctx.position["control"])
    saved_vp = ctx.position["vp"]
    saved_tr = (dict(tr.spent), set(tr.moved), tr.open_group, set(tr.closed), dict(tr.last_order), dict(tr.ended))
    mark = len(ctx.events)
    found: list[Problem] = []
    try:
        do_move(ctx, index, replace(move, units=tuple(units)), tr, found)
    except BaseException:
        if table is not None and frame is not None:
            table.release(frame)
        raise
    if not found:
        if table is not None and frame is not None:
            table.release(frame)
        return
    if table is not None and frame is not None:
        table.rollback(frame)
        ctx.position["units"] = table
    else:
        ctx.position["units"] = saved_pos
    ctx.position["control"] = saved_control
    ctx.position["vp"] = saved_vp
    tr.spent, tr.moved, tr.open_group, tr.closed, tr.last_order, tr.ended = saved_tr
    del ctx.events[mark:]
    ctx.emit("move-cancelled", found[0].rule, index=index, units=units, why=found[0].message)


def plug(hooks: Hooks) -> Hooks:
    """The mobile-assault rules in the core rules (rules/context.py, Hooks): the assault that ends a
    move (15.x)."""
    return replace(hooks, mobile_assault=assault_at_end_of_move)
