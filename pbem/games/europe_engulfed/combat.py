"""Combat (1.25, 6.x): one combat round in an area (6.2), fire by class (6.25-6.29), hit bonuses
(6.4), ground support (6.6), terrain (6.8x), fortifications (6.9x); the defender's reactions by
standing instructions: retreat (7.51), reinforcement (7.6), counterattack (7.7).

A round (J-6 c): the attack type is declared (6.2); the defender's standing instructions retreat
(7.51) or reinforce (7.6); the GS units are allocated, the attacker's orders first, then the
defender's standing ``air``/``support`` (6.22); air combat (6.23); the blocks are known (6.24: the
module opens them before combat); the defender fires, then the surviving attackers (6.31, 6.32),
unit by unit in a fixed order (armor first, then infantry class, each by id) so that armor gets
its anti-infantry bonus as soon as the enemy armor is gone (6.29); hits on die + HB >= 6 (T-1);
losses by the owner's standing ``losses`` list under 6.27 and 6.28. Then the counterattack (7.7),
the field fortification breached (6.97b), contested areas and control updated.

The Axis minor stacking bonus (9.18, 6.4k) and Italian collapse (9.45a) are axis_powers.py's. Left to
other sections: retreat by sea (7.51, section 8), the surprise attack (14.43b, not in the source).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.steps import allocate

from . import axis_powers, naval, politics
from .context import NEW, OLD, OOS, OOS_MOVED, Ctx, other
from .data import ALLIES, AXIS, MAGINOT_FROM

KEYS = ("battle",)
WESTERN = frozenset({"britain", "france", "usa"})  # 6.84: the Western Allied units the Maginot Line shelters
SNOW_EXEMPT = frozenset({"ussr", "finland"})  # 1.12: attacking in their own home areas
DEFENDING_MUD = frozenset({"infantry", "cavalry", "airborne"})  # 6.4b, A-03 (militia never)
MAX_SUPPORTED = 3  # 6.63
FIRE_RULE = {"normal": "6.31", "assault": "6.32"}
DICE_PER_STEP = {"normal": 1, "assault": 2}  # 6.31, 6.32


# --- checking --------------------------------------------------------------------------------------

def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the battles declared (6.1, 6.2, 6.22, 6.6x): each battle by itself, one
    round per area (6.1), and every newly contested area fought (6.1: compulsory)."""
    seen: dict[str, int] = {}
    for i, b in enumerate(body.get("battle", [])):
        where = f"battle[{i}]"
        area = str(b.get("area", ""))
        if area in seen:
            problems.append(Problem(f"{where}.area", f"{area} is fought in battle[{seen[area]}] already: one round per "
                                    "area in the initial combat phase", "6.1"))
            continue
        seen[area] = i
        check_battle(ctx, b, where, problems)
    for area in compulsory(ctx):
        if area not in seen:
            problems.append(Problem("battle", f"{area} is newly contested: combat there is compulsory (a [[battle]] "
                                    "for it is missing)", "6.1"))


def compulsory(ctx: Ctx) -> list[str]:
    """6.1: the newly contested areas where the phasing side has ground units to attack with."""
    return [a for a, v in sorted(ctx.pos.get("contested", {}).items())
            if v == NEW and ctx.side_in(a, ctx.side) and ctx.side_in(a, other(ctx.side))]


def check_battle(ctx: Ctx, b: dict[str, Any], where: str, problems: list[Problem]) -> None:
    """The problems of one declared battle: a contested area with both sides' ground units (6.1),
    its GS allocation (6.22, 6.6, 6.61-6.63, 1.12, 1.13, 3.4)."""
    area = str(b.get("area", ""))
    att, dfd = ctx.side, other(ctx.side)
    if area not in ctx.sc.map.areas or not ctx.sc.map.areas[area].ground:
        problems.append(Problem(f"{where}.area", f"'{area[:40]}' is not a land area or fortress of the map", "6.1"))
        return
    if not ctx.contested(area):
        problems.append(Problem(f"{where}.area", f"{area} is not contested: combat is fought only where both sides "
                                "have units", "6.1"))
        return
    if not ctx.side_in(area, att):
        problems.append(Problem(f"{where}.area", f"the {att} have no ground unit in {area} to attack with", "6.1"))
        return
    if not ctx.side_in(area, dfd):
        problems.append(Problem(f"{where}.area", f"the {dfd} have no ground unit in {area} to attack", "6.1"))
        return
    air = int(b.get("air", 0))
    support = {str(u): str(n) for u, n in b.get("support", {}).items()}
    usable, why = usable_gs(ctx, area, att)
    if (air or support) and not sum(usable.values()):
        problems.append(Problem(f"{where}.air" if air else f"{where}.support",
                                why[1] if why else f"the {att} have no GS unit in {area}", why[0] if why else "6.22"))
        return
    left = dict(usable)
    for u, nation in support.items():
        w = f"{where}.support.{u}"
        if u not in ctx.units or ctx.at(u) != area or ctx.side_of(u) != att:
            problems.append(Problem(w, f"{u} is not a unit of the {att} in {area}", "6.6"))
            continue
        if left.get(nation, 0) <= 0:
            have = usable.get(nation, 0)
            problems.append(Problem(w, f"no {nation} GS unit left in {area} to support it ({have} usable)", "6.6"))
            continue
        bad = support_problem(ctx, u, nation)
        if bad:
            problems.append(Problem(w, bad[1], bad[0]))
            continue
        left[nation] -= 1
    if len(support) > MAX_SUPPORTED:
        problems.append(Problem(f"{where}.support", f"{len(support)} units supported; each side supports at most "
                                f"{MAX_SUPPORTED} ground units a round", "6.63"))
    if air > sum(left.values()):
        problems.append(Problem(f"{where}.air", f"{air} GS units to fly air combat, but {sum(left.values())} usable "
                                f"GS unit(s) of the {att} in {area} are left after the support", "6.22"))


def support_problem(ctx: Ctx, u: str, nation: str) -> tuple[str, str] | None:
    """6.61, 6.62: a GS unit supports a ground unit of its own nationality; a German one also an
    Axis minor's, never an Italian's."""
    un = ctx.nation(u)
    if un == nation:
        return None
    minor = ctx.sc.units.nations.get(un)
    if nation == "germany" and minor is not None and minor.kind == "minor" and ctx.side_of_nation(un) == AXIS:
        return None
    if nation == "germany" and un == "italy":
        return ("6.62", f"{u} is Italian: German GS units support Axis minors' units, never Italian ones")
    return ("6.61", f"{u} is {un}: a GS unit of {nation} supports only a ground unit of its own nationality")


def usable_gs(ctx: Ctx, area: str, side: str) -> tuple[dict[str, int], tuple[str, str] | None]:
    """The GS units of ``side`` in the area that may take part: none in a Snow zone (1.12) or a
    Mud area (1.13); OOS GS units stay out (3.4). Returns them by nation, and why none may."""
    w = ctx.weather(area)
    if w == "snow":
        return {}, ("1.12", f"{area} is in a Snow zone: ground-support units may not be used there")
    if w == "mud":
        return {}, ("1.13", f"{area} is a Mud area: ground-support units cannot take part in combat there")
    oos = ctx.pos.get("gs_oos", {}).get(area, {})
    out = {n: k - int(oos.get(n, 0)) for n, k in ctx.side_gs(area, side).items()}
    out = {n: k for n, k in out.items() if k > 0}
    if not out and ctx.side_gs(area, side):
        return {}, ("3.4", f"the {side}'s GS units in {area} are out of supply and out of combat")
    return out, None


# --- the phase -------------------------------------------------------------------------------------

def initial(ctx: Ctx, battles: list[dict[str, Any]]) -> None:
    """1.25, 6.1: one round in each area declared, in the order given (6.2), then in every newly
    contested area not declared (J-6 a: compulsory, a Normal attack without GS)."""
    done = set()
    for b in battles:
        area = str(b["area"])
        if area in done:
            continue
        done.add(area)
        fight(ctx, b, "1.25")
    for area in compulsory(ctx):
        if area not in done:
            done.add(area)
            fight(ctx, {"area": area, "type": "normal"}, "1.25")


@dataclass
class Round:
    """One round's circumstances (who attacks, and what the rules need to know of the area)."""

    area: str
    attacker: str
    defender: str
    type: str
    counter: bool  # a counterattack round (7.7): the phasing side defends
    first: bool  # the first round of a newly contested area (6.83, 6.84, 7.21, 7.31)
    first_of_turn: bool  # the first round of this player-turn's combat in the area (6.97a, A-66)
    rule: str
    paying: list[str] | None = None
    invasion: str = ""  # 7.21 or 7.31: the defenders' anti-infantry bonus this first round
    supported: dict[str, str] = field(default_factory=dict)  # unit -> GS nation (6.6)
    minors: bool = False  # 9.18: Axis minors stacked at the start of the round


def fight(ctx: Ctx, battle: dict[str, Any], rule: str, paying: list[str] | None = None) -> None:
    """One combat round in ``battle["area"]`` (6.2), with the counterattack that follows (7.7).
    ``paying``: the nations that spent an SA for a breakthrough combat (6.72): only their units
    attack, and the defender's hits go only to them (A-65, option ``breakthrough_losses``)."""
    area = str(battle["area"])
    att, dfd = ctx.side, other(ctx.side)
    if not (ctx.side_in(area, att) and ctx.side_in(area, dfd)):
        return
    typ = str(battle.get("type", "normal"))
    first = ctx.newly_contested(area)
    r = Round(area, att, dfd, typ, False, first, first or rule == "1.25", rule, list(paying) if paying else None)
    r.invasion = _invasion(ctx, area, att) if first else ""
    # 6.21: the defender's reactions, by its standing instructions.
    if _retreat(ctx, area, typ, att, dfd):
        _after(ctx, area, rule, fortified_round=False)
        return
    _reinforce(ctx, area, dfd)
    dstand = ctx.standing.get(dfd, {})
    _round(ctx, r, (dict(battle.get("support", {})), int(battle.get("air", 0))),
           (dict(dstand.get("support", {})), int(dstand.get("air", {}).get(area, 0))))
    _counterattack(ctx, r, battle)
    _after(ctx, area, rule, fortified_round=r.first_of_turn)


def _invasion(ctx: Ctx, area: str, att: str) -> str:
    """7.21, 7.31: the first round against an amphibious invasion or an airborne assault (the
    invasion's bonus when both, 7.31)."""
    us = ctx.side_in(area, att)
    if any(ctx.has_flag(u, "invaded") for u in us):
        return "7.21"
    if any(ctx.has_flag(u, "dropped") for u in us):
        return "7.31"
    return ""


# --- the defender's reactions (standing instructions) ---------------------------------------------

def _reserve(ctx: Ctx, side: str) -> int:
    return int(ctx.standing.get(side, {}).get("sa_reserve", 0))


def _payer(ctx: Ctx, nation: str, side: str, area: str) -> str:
    """The nation whose SA pays for a unit's action (7.1): a major its own; an Axis minor Germany's;
    another minor the major of its side with most units in the area (Britain when none)."""
    n = ctx.sc.units.nations.get(nation)
    if n is not None and n.kind == "major":
        return nation
    if side == AXIS:
        return "germany"
    counts: dict[str, int] = {}
    for u in ctx.side_in(area, side):
        un = ctx.sc.units.nations.get(ctx.nation(u))
        if un is not None and un.kind == "major":
            counts[ctx.nation(u)] = counts.get(ctx.nation(u), 0) + 1
    return min(counts, key=lambda k: (-counts[k], k)) if counts else "britain"


def _can_pay(ctx: Ctx, nation: str, side: str) -> bool:
    return ctx.sa(nation) > _reserve(ctx, side)


def _side_payer(ctx: Ctx, area: str, side: str) -> str | None:
    """The defending nation that pays for a reaction of the whole side (7.51, 7.7): the nation with
    the most steps in the area that can spend an SA (sa_reserve kept)."""
    steps: dict[str, int] = {}
    for u in ctx.side_in(area, side):
        p = _payer(ctx, ctx.nation(u), side, area)
        steps[p] = steps.get(p, 0) + (ctx.steps(u) or 1)
    for n in sorted(steps, key=lambda k: (-steps[k], k)):
        if _can_pay(ctx, n, side):
            return n
    return None


def _retreat(ctx: Ctx, area: str, typ: str, att: str, dfd: str) -> bool:
    """7.51: retreat before combat by the defender's standing ``retreat`` entry for the area (when
    always, on an Assault, or when outnumbered: more attacking blocks than defending ones, A-74),
    for an SA of the defending nation: every defending unit and GS unit to the first area of ``to``
    that is adjacent, friendly-controlled and not contested; else, from a port, to the first that
    is a friendly non-contested port of the same sea zone, each block on an unused FP, where the
    enemy may fight a naval combat (8.11, naval.py) and GS go only along an air-route (else they
    are left alone and lost, 6.64). No rearguard."""
    for e in ctx.standing.get(dfd, {}).get("retreat", []):
        if e.get("area") != area:
            continue
        when = e.get("when", "never")
        ours, theirs = ctx.side_in(area, dfd), ctx.side_in(area, att)
        if not (when == "always" or when == "assault" and typ == "assault" or when == "outnumbered" and len(theirs) > len(ours)):
            return False
        to = next((str(t) for t in e.get("to", []) if t in ctx.neighbours(area) and ctx.friendly(str(t), dfd)
                   and not ctx.contested(str(t))), None)
        sea = ""
        if to is None:
            to, sea = naval.sea_retreat(ctx, area, list(e.get("to", [])), dfd, ours)
            to = to or None
        payer = _side_payer(ctx, area, dfd)
        if to is None or payer is None:
            ctx.emit("retreat-before-combat", "7.51", area=area, side=dfd, done=False,
                     why="no SA to spend" if payer is None else "no listed area adjacent, friendly and not contested")
            return False
        ctx.spend_sa(payer, "7.51", f"retreat before combat from {area}")
        gs = ctx.side_gs(area, dfd)
        sailed = list(ours)
        by_sea = {}
        if sea:
            sailed, note = naval.retreat_by_sea(ctx, area, to, sea, dfd, ours)
            by_sea = {"sea": sea, "naval_combat": note, "lost": [u for u in ours if u not in sailed]}
            if "air-route" not in ctx.sc.map.features(area, to):
                for n, k in gs.items():
                    ctx.add_gs(area, n, -k)
                    ctx.emit("gs-eliminated", "6.64", area=area, nation=n, count=k,
                             why="left alone by a retreat by sea, which GS may not use (7.51)")
                gs = {}
        for u in sailed:
            ctx.place(u, to)
        for n, k in gs.items():
            ctx.add_gs(area, n, -k)
            ctx.add_gs(to, n, k)
        ctx.emit("retreat-before-combat", "7.51", area=area, side=dfd, done=True, to=to, units=sailed, gs=gs, nation=payer,
                 when=when, type=typ, **by_sea)
        ctx.update_contested(to, "7.51")
        return True
    return False


def _bring(ctx: Ctx, area: str, side: str, frm: str, unit: str, rule: str, why: str) -> str:
    """7.6, 7.7: 1 ground unit and all GS units of ``side`` from an adjacent non-contested area, for
    an SA of the unit's nation. Returns what forbids it ("" when done)."""
    if frm not in ctx.neighbours(area):
        return f"{frm} is not adjacent to {area}"
    if ctx.contested(frm):
        return f"{frm} is contested: units there cannot reinforce"
    if unit not in ctx.units or ctx.at(unit) != frm or ctx.side_of(unit) != side:
        return f"{unit} is not a unit of the {side} in {frm}"
    payer = _payer(ctx, ctx.nation(unit), side, area)
    if not _can_pay(ctx, payer, side):
        return f"{payer} has no special action to spend"
    ctx.spend_sa(payer, rule, why)
    ctx.place(unit, area)
    ctx.flag(unit, "reinforced")
    gs = ctx.side_gs(frm, side)
    for n, k in gs.items():
        ctx.add_gs(frm, n, -k)
        ctx.add_gs(area, n, k)
    ctx.emit("reinforced", rule, area=area, side=side, unit=unit, nation=ctx.nation(unit), frm=frm, gs=gs, sa=payer)
    return ""


def _reinforce(ctx: Ctx, area: str, dfd: str) -> None:
    """7.6: the defender's standing ``reinforce`` entries for the area, in order, an SA each. The
    reinforcements count as in the area before the combat began. Only the defender reinforces, and
    only where it has units (A-36: an uncontested invasion or drop has none to reinforce); never in
    a counterattack (7.7)."""
    if not ctx.side_in(area, dfd):
        return
    for e in ctx.standing.get(dfd, {}).get("reinforce", []):
        if e.get("area") != area:
            continue
        why = _bring(ctx, area, dfd, str(e["from"]), str(e["unit"]), "7.6", f"{e['unit']} reinforces the battle of {area}")
        if why:
            ctx.emit("reinforced", "7.6", area=area, side=dfd, unit=str(e["unit"]), frm=str(e["from"]), done=False, why=why)


def _counterattack(ctx: Ctx, r: Round, battle: dict[str, Any]) -> None:
    """7.7, 6.5: after the round the defender may counterattack by its standing ``counterattack``
    entry for the area (always, or when its steps there are at least the attacker's), for an SA,
    with at least 1 step surviving; it may bring 1 ground unit and all GS units from one adjacent
    non-contested area (``from``, ``unit``). The roles swap (A-59): the phasing side defends, fires
    first and gets the defender's bonuses; the counterattacker's dice are halved as an attacker's
    (A-58, option ``counterattack_halving``)."""
    area, dfd, att = r.area, r.defender, r.attacker
    for e in ctx.standing.get(dfd, {}).get("counterattack", []):
        if e.get("area") != area:
            continue
        ours, theirs = ctx.side_in(area, dfd), ctx.side_in(area, att)
        if not ours or not theirs:
            return
        mine = sum(ctx.steps(u) or 0 for u in ours)
        enemy = sum(ctx.steps(u) or 0 for u in theirs)
        when = e.get("when", "never")
        if not (when == "always" or when == "stronger" and mine >= enemy):
            return
        payer = _side_payer(ctx, area, dfd)
        if payer is None:
            ctx.emit("counterattack", "7.7", area=area, side=dfd, done=False, why="no SA to spend")
            return
        typ = str(e.get("type", "normal"))
        ctx.spend_sa(payer, "7.7", f"counterattack in {area}")
        ctx.emit("counterattack", "7.7", area=area, side=dfd, done=True, type=typ, nation=payer, steps=mine, enemy=enemy)
        if e.get("from") and e.get("unit"):
            why = _bring(ctx, area, dfd, str(e["from"]), str(e["unit"]), "7.7", f"{e['unit']} joins the counterattack in {area}")
            if why:
                ctx.emit("reinforced", "7.7", area=area, side=dfd, unit=str(e["unit"]), frm=str(e["from"]), done=False, why=why)
        c = Round(area, dfd, att, typ, True, r.first, r.first_of_turn, "7.7", None, r.invasion)
        mine_gs = ctx.standing.get(dfd, {})
        _round(ctx, c, (dict(mine_gs.get("support", {})), int(mine_gs.get("air", {}).get(area, 0))),
               (dict(battle.get("support", {})), int(battle.get("air", 0))))
        return


def _after(ctx: Ctx, area: str, rule: str, fortified_round: bool) -> None:
    """After the round (and its counterattack): GS units left without ground units of their side
    where the enemy has some are eliminated (6.64 by analogy); the field fortification is breached
    when enemy units remain (6.97b); a heavy one goes when the Axis control the area (6.95c);
    contested and control updated (Glossary "Control"); a newly contested area's compulsory
    combat is fought, so it is older contested from now on (6.1); blocks stay known (6.74)."""
    for side in (AXIS, ALLIES):
        if not ctx.side_in(area, side) and ctx.side_in(area, other(side)):
            for n, k in ctx.side_gs(area, side).items():
                ctx.add_gs(area, n, -k)
                ctx.emit("gs-eliminated", "6.64", area=area, nation=n, count=k,
                         why="no ground unit of its side left in the area")
    fort = ctx.pos.get("fortifications", {}).get(area)
    if fort and fortified_round and fort.get("kind") == "field":
        owner = ctx.side_of_nation(str(fort["nation"]))
        if ctx.side_in(area, other(owner)):
            del ctx.pos["fortifications"][area]
            ctx.emit("fortification-breached", "6.97", area=area, nation=fort["nation"], fort="field")
    ctx.update_contested(area, "6.2")
    fort = ctx.pos.get("fortifications", {}).get(area)
    if fort and fort.get("kind") == "heavy" and ctx.controller(area) == AXIS:
        del ctx.pos["fortifications"][area]
        ctx.emit("fortification-breached", "6.95", area=area, nation=fort["nation"], fort="heavy")
    if ctx.newly_contested(area):
        ctx.pos["contested"][area] = OLD


# --- a round ----------------------------------------------------------------------------------------

def _allocate_gs(ctx: Ctx, area: str, side: str, support: dict[str, str], air: int) -> tuple[dict[str, int], dict[str, str], list[str]]:
    """6.22: a side's GS allocation: the supports given (6.6, 6.61-6.63, A-24), the legal ones kept
    in order, then ``air`` GS units to air combat from those left (the nation with most first).
    Returns the air GS by nation, the supports, and the entries left out with why."""
    usable, why = usable_gs(ctx, area, side)
    left = dict(usable)
    kept: dict[str, str] = {}
    dropped = []
    for u, n in support.items():
        if u not in ctx.units or ctx.at(u) != area or ctx.side_of(u) != side:
            continue
        bad = support_problem(ctx, u, n)
        if left.get(n, 0) <= 0 or bad or len(kept) >= MAX_SUPPORTED:
            dropped.append(f"{u} ({bad[1] if bad else 'no GS unit left for it' if left.get(n, 0) <= 0 else '6.63: 3 supported'})")
            continue
        kept[u] = n
        left[n] -= 1
    flying: dict[str, int] = {}
    want = max(0, air)
    while want > 0:
        if not any(left.values()):  # the defender's standing asks more: supports give way to air combat
            if not kept:
                break
            u = list(kept)[-1]
            left[kept.pop(u)] += 1
            dropped.append(f"{u} (its GS unit flies air combat)")
            continue
        n = min((k for k in left if left[k] > 0), key=lambda k: (-left[k], k))
        left[n] -= 1
        flying[n] = flying.get(n, 0) + 1
        want -= 1
    if why and (air or support):
        dropped.append(why[1])
    return flying, kept, dropped


def _air_combat(ctx: Ctx, r: Round, air: dict[str, dict[str, int]], sup: dict[str, dict[str, str]]) -> None:
    """6.23: each side rolls one die per GS unit flying air combat; each 5 or 6 eliminates one
    enemy GS unit. The owner's choice: its GS units flying air combat go first (the nation with
    most there first), then supporting ones (the nation with most, its last support given up)."""
    if not any(sum(a.values()) for a in air.values()):
        return
    rolls: dict[str, list[int]] = {}
    for side in (r.attacker, r.defender):
        count = sum(air[side].values())
        role = "attacker" if side == r.attacker else "defender"
        rolls[side] = ctx.roll(f"6.23|{ctx.step}|{r.area}|{role}{'-counter' if r.counter else ''}|air", count) if count else []
    lost: dict[str, dict[str, int]] = {}
    for side in (r.attacker, r.defender):
        kills = sum(1 for d in rolls[other(side)] if d >= 5)
        mine: dict[str, int] = {}
        for _ in range(kills):
            if any(air[side].values()):
                n = min((k for k in air[side] if air[side][k] > 0), key=lambda k: (-air[side][k], k))
                air[side][n] -= 1
            elif sup[side]:
                by: dict[str, int] = {}
                for nn in sup[side].values():
                    by[nn] = by.get(nn, 0) + 1
                n = min(by, key=lambda k: (-by[k], k))
                u = [x for x, nn in sup[side].items() if nn == n][-1]
                del sup[side][u]
            else:
                break
            mine[n] = mine.get(n, 0) + 1
            ctx.add_gs(r.area, n, -1)
        lost[side] = mine
    ctx.emit("air-combat", "6.23", area=r.area, counter=r.counter,
             sides=[{"side": s, "gs": len(rolls[s]), "dice": rolls[s],
                     "kills": sum(1 for d in rolls[s] if d >= 5), "lost": lost[other(s)]} for s in (r.attacker, r.defender)])


def _unit_order(ctx: Ctx, units: list[str]) -> list[str]:
    """6.25, 6.29: the fixed order of fire: armor first, then infantry class, each by id."""
    return sorted(units, key=lambda u: (ctx.klass(u) != "armor", u))


def _entered_from(ctx: Ctx, u: str) -> str | None:
    for f in ctx.units[u].get("flags", []):
        for p in ("from:", "entered:", "entered-from:"):
            if f.startswith(p):
                return str(f[len(p):])
    return None


def _crossed(ctx: Ctx, u: str, area: str) -> bool:
    """6.83: the unit entered the area across a river or strait (its ``from:AREA`` flag, else its
    ``crossed:river``/``crossed:strait`` flags)."""
    frm = _entered_from(ctx, u)
    if frm and frm in ctx.sc.map.areas:
        return bool({"river", "strait"} & ctx.sc.map.features(frm, area))
    return ctx.has_flag(u, "crossed:river") or ctx.has_flag(u, "crossed:strait")


def _maginot_entry(ctx: Ctx, u: str, area: str) -> bool:
    """6.84: the unit attacks directly from an adjacent German or Belgian area across the Line."""
    frm = _entered_from(ctx, u)
    return bool(frm and frm in ctx.sc.map.areas and "maginot" in ctx.sc.map.features(frm, area)
                and ctx.sc.map.areas[frm].country in MAGINOT_FROM)


def _maginot(ctx: Ctx, r: Round) -> bool:
    """6.84: the Line holds (not after France's fall or Vichy) and every attacking unit came across it."""
    if r.counter or not r.first or politics.maginot_destroyed(ctx):
        return False
    us = ctx.side_in(r.area, r.attacker)
    return bool(us) and all(_maginot_entry(ctx, u, r.area) for u in us)


def _terrain(ctx: Ctx, area: str) -> str:
    """6.8: the area's terrain for combat: a Swamp counts as Rough in Snow (1.12, 6.82)."""
    a = ctx.sc.map.areas[area]
    if a.fortress:
        return "fortress"
    if a.terrain == "swamp" and ctx.weather(area) == "snow":
        return "rough"
    return a.terrain or "clear"


def _bonuses(ctx: Ctx, r: Round, u: str, role: str, target: str) -> tuple[list[dict[str, Any]], list[str]]:
    """6.4: the hit bonuses of unit ``u`` firing as ``role`` (attacker/defender) at ``target``
    class, and the negations that took some away."""
    area, kind = r.area, ctx.kind(u)
    weather, terrain = ctx.weather(area), _terrain(ctx, area)
    got: list[dict[str, Any]] = []
    neg: list[str] = []

    def add(key: str, what: str, rule: str, value: int = 1) -> None:
        got.append({"key": key, "what": what, "rule": rule, "value": value})

    if ctx.elite(u):
        add("a", "elite", "Glossary")
    if role == "defender" and weather == "mud" and kind in DEFENDING_MUD and ctx.option("mud_defence") == "stacks":
        add("b", "defending in Mud", "1.13")
    if kind == "armor" and target == "infantry":
        if role == "attacker" and terrain in ("rough", "fortress"):
            neg.append("armor attacking in Rough loses its anti-infantry bonus (6.81)" if terrain == "rough" else
                       "armor attacking a fortress gets no anti-infantry bonus (6.85)")
        elif role == "defender" and not ctx.option("armor_hb_defending"):
            pass
        else:
            add("c", "armor firing at infantry", "6.29")
    if u in r.supported:
        add("d", f"{r.supported[u]} GS support", "6.6")
    if role == "defender":
        if terrain == "rough" and (ctx.option("rough_defence") == "every-round" or r.first_of_turn and not r.counter):
            add("e", "defending in Rough" + (" (a Swamp in Snow)" if ctx.sc.map.areas[area].terrain == "swamp" else ""), "6.81")
        if not r.counter and r.first and _river(ctx, r, target):
            add("f", "attack across a river or strait", "6.83")
        if _maginot(ctx, r) and ctx.nation(u) in WESTERN:
            add("g", "the Maginot Line", "6.84", 2)
        if terrain == "fortress":
            add("h", "fortress", "6.85", 2)
        fort = ctx.pos.get("fortifications", {}).get(area)
        if fort and not r.counter and ctx.side_of_nation(str(fort["nation"])) == r.defender:
            if fort.get("kind") == "field" and r.first_of_turn:
                add("i", "field fortification", "6.97")
            elif fort.get("kind") == "heavy" and (r.first_of_turn or ctx.option("heavy_fort_rounds") == "every"):
                add("i", "heavy fortification", "6.95")
        if r.invasion and not r.counter and target == "infantry":
            add("j", "first round against an " + ("invasion" if r.invasion == "7.21" else "airborne assault"), r.invasion)
    elif r.invasion and r.counter and r.first and target == "infantry":
        add("j", "counterattack of the first round against an " + ("invasion" if r.invasion == "7.21" else "airborne assault"),
            r.invasion)
    if r.minors and ctx.side_of(u) != AXIS and target == "infantry":
        add("k", "Axis minors stacked together", "9.18")
    if got and axis_powers.no_italian_bonus(ctx, u):
        neg.append("Italian units receive no hit bonus after the collapse of Italian morale (9.45a)")
        got = []
    if got and kind == "militia":
        neg.append("militia never receive a hit bonus (Glossary)")
        got = []
    if got and kind == "armor" and weather == "mud":
        neg.append("armor receives no hit bonus in Mud (1.13)")
        got = []
    return got, neg


def _river(ctx: Ctx, r: Round, target: str) -> bool:
    """6.83, A-26 (option ``river_bonus``): all attacking units crossed (or all of the class fired
    at), or any crossed."""
    us = ctx.side_in(r.area, r.attacker)
    crossed = [u for u in us if _crossed(ctx, u, r.area)]
    if ctx.option("river_bonus") == "any-crossed":
        return bool(crossed)
    if us and len(crossed) == len(us):
        return True
    cls = [u for u in us if ctx.klass(u) == target]
    return bool(cls) and all(u in crossed for u in cls)


def _halvings(ctx: Ctx, r: Round, u: str, role: str) -> list[str]:
    """The halvings of an attacking unit's dice: Snow (1.12, Soviet/Finnish at home exempt), Swamp
    (6.82, infantry class, not in Snow), OOS (3.4); a counterattacker's too by option (A-58)."""
    if role != "attacker" or r.counter and not ctx.option("counterattack_halving"):
        return []
    out = []
    a = ctx.sc.map.areas[r.area]
    w = ctx.weather(r.area)
    if w == "snow" and not (ctx.nation(u) in SNOW_EXEMPT and a.home == ctx.nation(u)):
        out.append("1.12")
    if a.terrain == "swamp" and w != "snow" and ctx.klass(u) == "infantry":
        out.append("6.82")
    if ctx.units[u].get("oos") in (OOS, OOS_MOVED):
        out.append("3.4")
    return out


def _target_class(ctx: Ctx, klass: str, targets: list[str], steps: dict[str, int]) -> str | None:
    """6.25, 6.29: armor at armor, else at infantry; infantry at infantry, else at armor."""
    alive = {ctx.klass(u) for u in targets if steps.get(u, 0) > 0}
    if not alive:
        return None
    if klass in alive:
        return klass
    return "infantry" if klass == "armor" else "armor"


def _dice(ctx: Ctx, r: Round, firing: list[str], role: str, steps: dict[str, int], targets: list[str]) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """6.3, T-2: the dice of each firing unit: 1 or 2 per step; an attacker's halvings applied to
    the class totals (A-57, option ``halving``: cumulative or once; the dice of the units with the
    lowest bonus lost first); armor that came across the Maginot Line silent in the first round."""
    per = DICE_PER_STEP[r.type]
    dice = {u: steps[u] * per for u in firing}
    notes: list[dict[str, Any]] = []
    if role == "attacker" and not r.counter and r.first and not politics.maginot_destroyed(ctx):
        for u in firing:
            if ctx.klass(u) == "armor" and _maginot_entry(ctx, u, r.area):
                notes.append({"unit": u, "silent": True, "rule": "6.84", "dice": dice[u]})
                dice[u] = 0
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for u in firing:
        h = tuple(_halvings(ctx, r, u, role))
        if h and dice[u]:
            groups.setdefault((str(ctx.klass(u)), h), []).append(u)
    for (klass, h), us in sorted(groups.items()):
        total = sum(dice[u] for u in us)
        kept = total // (2 ** len(h)) if ctx.option("halving") == "cumulative" else total // 2
        notes.append({"class": klass, "rules": list(h), "units": us, "dice": total, "kept": kept})
        lose = total - kept

        def hb(u: str) -> int:
            t = _target_class(ctx, str(ctx.klass(u)), targets, steps) or "infantry"
            return sum(b["value"] for b in _bonuses(ctx, r, u, role, t)[0])

        for u in sorted(us, key=lambda x: (hb(x), -firing.index(x))):
            take = min(lose, dice[u])
            dice[u] -= take
            lose -= take
    return dice, notes


def _take_hits(ctx: Ctx, owner: str, pool: list[str], steps: dict[str, int], target: str, hits: int) -> list[dict[str, Any]]:
    """6.26-6.28: ``hits`` step losses on the target class by the owner's standing ``losses`` list
    (the first legal entry; unlisted units most steps first): every full-strength unit of the class
    takes a step before a reduced one (6.27, A-23, option ``full_strength_first``); hits beyond the
    class go to the other class (6.28), then are ignored."""
    order = [str(u) for u in ctx.standing.get(owner, {}).get("losses", [])]
    out: list[dict[str, Any]] = []
    for _ in range(hits):
        alive = [u for u in pool if steps.get(u, 0) > 0]
        cls = [u for u in alive if ctx.klass(u) == target] or alive
        if not cls:
            out.append({"ignored": True})
            continue
        if ctx.option("full_strength_first") == "one-each":
            full = [u for u in cls if steps[u] == (ctx.max_steps(u) or steps[u])]
            allowed = full or cls
        else:
            top = max(steps[u] for u in cls)
            allowed = [u for u in cls if steps[u] == top]
        (loss,) = allocate([(u, steps[u]) for u in allowed], 1, order, "most-steps-first")
        steps[loss.unit] -= 1
        out.append({"unit": loss.unit, "class": ctx.klass(loss.unit), "other_class": ctx.klass(loss.unit) != target})
    return out


def _fire(ctx: Ctx, r: Round, role: str, firing: list[str], pool: list[str], steps: dict[str, int], owner: str) -> list[dict[str, Any]]:
    """One side's fire, unit by unit (6.25, 6.29), each unit's hits taken at once (6.26-6.28)."""
    dice, notes = _dice(ctx, r, firing, role, steps, pool)
    out: list[dict[str, Any]] = []
    for n in notes:
        out.append({"note": n})
    label_rule = FIRE_RULE[r.type]
    for u in firing:
        if steps.get(u, 0) <= 0 or dice[u] <= 0:
            continue
        target = _target_class(ctx, str(ctx.klass(u)), pool, steps)
        if target is None:
            break
        got, neg = _bonuses(ctx, r, u, role, target)
        hb = sum(b["value"] for b in got)
        tag = f"{role}{'-counter' if r.counter else ''}"
        faces = ctx.roll(f"{label_rule}|{ctx.step}|{r.area}|{tag}|{u}", dice[u])
        cap = ctx.option("hit_cap") == "natural-one-misses"
        hits = sum(1 for d in faces if d + hb >= 6 and not (cap and d == 1))
        losses = _take_hits(ctx, owner, pool, steps, target, hits)
        out.append({"unit": u, "nation": ctx.nation(u), "class": ctx.klass(u), "kind": ctx.kind(u), "steps": steps[u], "target": target,
                    "dice": faces, "hb": hb, "bonuses": got, "negated": neg, "need": max(1, 6 - hb), "hits": hits,
                    "losses": losses})
    return out


def _round(ctx: Ctx, r: Round, att_gs: tuple[dict[str, Any], int], def_gs: tuple[dict[str, Any], int]) -> None:
    """6.22-6.32: GS allocation (the attacker's, then the defender's: each a support table and a
    number flying air combat), air combat, the defender's fire, the surviving attackers' fire; then
    the losses made on the blocks (ctx.lose_step) after the ``battle`` event."""
    area = r.area
    r.minors = axis_powers.minor_stacking(ctx, area)  # 9.18: at the start of each combat round
    a_air, a_sup, a_drop = _allocate_gs(ctx, area, r.attacker, {str(k): str(v) for k, v in att_gs[0].items()}, att_gs[1])
    d_air, d_sup, d_drop = _allocate_gs(ctx, area, r.defender, {str(k): str(v) for k, v in def_gs[0].items()}, def_gs[1])
    airs = {r.attacker: dict(a_air), r.defender: dict(d_air)}
    sups = {r.attacker: dict(a_sup), r.defender: dict(d_sup)}
    _air_combat(ctx, r, airs, sups)
    r.supported = {**sups[r.attacker], **sups[r.defender]}
    attackers = ctx.side_in(area, r.attacker)
    if r.paying is not None and not r.counter:
        attackers = [u for u in attackers if ctx.nation(u) in r.paying]
    defenders = ctx.side_in(area, r.defender)
    pool = attackers
    if r.paying is not None and not r.counter and ctx.option("breakthrough_losses") == "any":
        pool = ctx.side_in(area, r.attacker)
    steps = {u: int(ctx.steps(u) or 0) for u in ctx.units_in(area)}
    fire_d = _fire(ctx, r, "defender", _unit_order(ctx, defenders), pool, steps, r.attacker)
    survivors = [u for u in _unit_order(ctx, attackers) if steps[u] > 0]
    fire_a = _fire(ctx, r, "attacker", survivors, defenders, steps, r.defender)
    lost = {u: int(ctx.steps(u) or 0) - steps[u] for u in steps if int(ctx.steps(u) or 0) > steps[u]}
    ctx.emit("battle", "7.7" if r.counter else FIRE_RULE[r.type], area=area, name=ctx.sc.map.areas[area].name, type=r.type,
             round="counterattack" if r.counter else "attack", first=r.first, attacker=r.attacker, defender=r.defender,
             rule=r.rule, paying=r.paying, supported=dict(r.supported),
             gs={r.attacker: {"air": a_air, "support": a_sup, "ignored": a_drop},
                 r.defender: {"air": d_air, "support": d_sup, "ignored": d_drop}},
             fire=[{"side": r.defender, **f} for f in fire_d] + [{"side": r.attacker, **f} for f in fire_a],
             losses={u: {"steps": n, "left": steps[u]} for u, n in sorted(lost.items())})
    for u, n in sorted(lost.items()):
        for _ in range(n):
            if u in ctx.units:
                ctx.lose_step(u, "6.26", f"the battle of {ctx.sc.map.areas[area].name}")


# --- words -----------------------------------------------------------------------------------------

def _side(s: str) -> str:
    return "Axis" if s == AXIS else "Allies"


def _render_battle(e: Event) -> list[str]:
    d = e.data
    what = "counterattack" if d["round"] == "counterattack" else "round 1" if d.get("first") else "a new round"
    lines = [f"- **Battle of {d['name']}** ({d['type']}, {what}; {e.rule}): the {_side(d['attacker'])} attack, "
             f"the {_side(d['defender'])} defend" + (f" (only the units of {', '.join(d['paying'])}, who paid: 6.72)"
                                                      if d.get("paying") else "") + "."]
    for s in (d["attacker"], d["defender"]):
        g = d["gs"][s]
        parts = []
        if g["support"]:
            parts.append("support " + ", ".join(f"{u} by a {n} GS" for u, n in g["support"].items())
                         + ("" if all(u in d.get("supported", g["support"]) for u in g["support"]) else
                            " (" + ", ".join(f"{u}'s GS lost in air combat" for u in g["support"] if u not in d["supported"]) + ")"))
        if g["air"]:
            parts.append("air combat " + ", ".join(f"{k} {n}" for n, k in g["air"].items()))
        if g["ignored"]:
            parts.append("not used: " + "; ".join(g["ignored"]))
        if parts:
            lines.append(f"  - {_side(s)} GS (6.22): " + "; ".join(parts) + ".")
    for f in d["fire"]:
        if "note" in f:
            n = f["note"]
            if n.get("silent"):
                lines.append(f"  - {n['unit']} came across the Maginot Line: armor silent in the first round (6.84).")
            else:
                lines.append(f"  - Dice halved ({', '.join(n['rules'])}, A-57): {n['class']}-class dice of "
                             f"{', '.join(n['units'])} {n['dice']} -> {n['kept']}.")
            continue
        hb = ", ".join(f"+{b['value']} {b['what']} {b['rule']}" for b in f["bonuses"]) or "no bonus"
        neg = f" ({'; '.join(f['negated'])})" if f["negated"] else ""
        role = "defender" if f["side"] == d["defender"] else "attacker"
        hits = ", ".join(_hit_words(h) for h in f["losses"]) or "none"
        lines.append(f"  - Fire ({role}) {f['unit']} ({f['nation']} {f['kind']}, {f['steps']} step(s)) at {f['target']}: "
                     f"dice {f['dice']}, HB {f['hb']} [{hb}]{neg}, hits on {f['need']}+ (T-1): {f['hits']} hit(s): {hits}.")
    if d["losses"]:
        lines.append("  - Losses (6.27, 6.28): " + ", ".join(
            f"{u} -{v['steps']}" + (" (eliminated)" if v["left"] <= 0 else f" ({v['left']} left)") for u, v in d["losses"].items()) + ".")
    else:
        lines.append("  - No losses.")
    return lines


def _hit_words(h: dict[str, Any]) -> str:
    if h.get("ignored"):
        return "ignored (no enemy unit left, 6.28)"
    return f"{h['unit']}" + (" (excess to the other class, 6.28)" if h.get("other_class") else "")


def _render_air(e: Event) -> list[str]:
    parts = []
    for s in e.data["sides"]:
        lost = ", ".join(f"{k} {n}" for n, k in s["lost"].items()) or "none"
        parts.append(f"the {_side(s['side'])} roll {s['dice']} ({s['kills']} kill(s) on 5-6; enemy GS lost: {lost})")
    return [f"- Air combat in {e.data['area']} ({e.rule}): " + "; ".join(parts) + "."]


def _render_retreat(e: Event) -> list[str]:
    d = e.data
    if not d.get("done"):
        return [f"- The {_side(d['side'])} cannot retreat before combat from {d['area']}: {d['why']} ({e.rule})."]
    gs = ", ".join(f"{k} {n} GS" for n, k in d["gs"].items())
    return [f"- The {_side(d['side'])} retreat before combat from {d['area']} to {d['to']} ({e.rule}, standing "
            f"instruction '{d['when']}', {d['nation']} SA): {', '.join(d['units']) or 'no unit arrives'}"
            + (f" and {gs}" if gs else "")
            + (f", by sea across the {d['sea']} (each block on an unused FP, 5.34; naval combat, 8.11: {d['naval_combat']}"
               + (f"; lost at sea: {', '.join(d['lost'])}" if d.get("lost") else "") + ")" if d.get("sea") else "") + "."]


def _render_reinforced(e: Event) -> list[str]:
    d = e.data
    if d.get("done") is False:
        return [f"- {d['unit']} cannot reinforce {d['area']} from {d['frm']}: {d['why']} ({e.rule})."]
    gs = ", ".join(f"{k} {n} GS" for n, k in d["gs"].items())
    return [f"- {d['unit']} ({d['nation']}) reinforces the battle of {d['area']} from {d['frm']}" + (f" with {gs}" if gs else "")
            + f" ({e.rule}, {d['sa']} SA)."]


def _render_counter(e: Event) -> list[str]:
    d = e.data
    if not d.get("done"):
        return [f"- The {_side(d['side'])} cannot counterattack in {d['area']}: {d['why']} ({e.rule})."]
    return [f"- The {_side(d['side'])} counterattack in {d['area']} ({d['type']}; {d['steps']} step(s) against {d['enemy']}; "
            f"{d['nation']} SA; {e.rule}): the phasing side defends and fires first (A-59)."]


def _render_breached(e: Event) -> list[str]:
    d = e.data
    if d["fort"] == "heavy":
        return [f"- The {d['nation']} heavy fortification in {d['area']} is lost: the Axis control the area ({e.rule})."]
    return [f"- The {d['nation']} field fortification in {d['area']} is breached: enemy units remain after the first round ({e.rule})."]


def _render_gs_lost(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['count']} {d['nation']} GS unit(s) in {d['area']} are eliminated: {d['why']} ({e.rule})."]


RENDER: dict[str, Any] = {
    "battle": _render_battle,
    "air-combat": _render_air,
    "retreat-before-combat": _render_retreat,
    "reinforced": _render_reinforced,
    "counterattack": _render_counter,
    "fortification-breached": _render_breached,
    "gs-eliminated": _render_gs_lost,
}
