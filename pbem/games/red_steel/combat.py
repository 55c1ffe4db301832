"""The Combat Phase (3.34, 9.x, 10.x, 11.x): every attacked hex declared (9.0), the defender's
secret support (9.11, reply), the attacker's support, each combat in the attacker's order
(9.12-9.19), the results (9.2-9.5), isolation (7.7, 7.71), 11.4; at the end recovery rolls
(13.31) and river monitors next to Soviet tanks (17.52).

Readings of the rules (each an option where the digest names an ambiguity, options.py):

- A-12: all attacks are declared, then the defender's secret support (the reply; none when no reply
  comes by the deadline), then the attacker's support (sent with the attacks), then each combat in
  the order of the file.
- 6.8 (b), 9.8, A-53: support over its cap is clipped: the weakest supporting units not needed to
  reach the cap are removed first (they do not fire and spend no volley), and the total counted is
  at most the cap (twice the adjacent attackers' modified attack; the defenders' modified defense).
- 10.3, A-55: an armor or anti-armor value counts only when another unit of an infantry-support
  type (data.INFANTRY_SUPPORT: militia and border guards never) in the same hex takes part in the
  combat; recon units use their own armor, German engineers their own anti-armor.
- 9.3 / 9.32: step losses follow the owner's standing ``losses`` list (one entry a step), then
  the default policy ``most-steps-first`` (spread the losses, keep units in play).
- 9.4, A-44: the units of one side retreat together as a stack (each alone where the stack has no
  hex every unit may enter), hex by hex: each hex adjacent to the last (A-46), never an enemy
  hex, never across the Prut for Soviet units (5.5) nor for Axis units but at a bridge (A-46,
  option ford_retreat), never into prohibited terrain; among the hexes left, option retreat_farther
  (A-45) and the priorities of 9.41 (T10); ties by the standing ``retreat``: own-edge (default:
  the Axis west, the Soviet east), hq (nearest own HQ), together (hexes with friendly units).
- 6.3, A-25: excess units of an overstacked defending hex (the attacker's ``exclude``; by default
  the strongest defenders) add nothing and take no losses, but retreat with the hex and then lose
  one step more; d and Z reach every unit of the defending hex.
- 9.5, 9.52: the units that attacked and did not retreat, and the units stacked with them that the
  order names (``advance_with``), advance along the attacker's ``advance`` hexes,
  each as far as its own distance allows (9.51, 9.55, 9.56), stopping after a river or the Prut
  (9.57) and short of a hex that would overstack (9.53).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.odds import Odds, Shift, apply_shifts
from pbem.mechanics.steps import Loss, allocate

from .context import DEMORALIZED, DEPLOYED, DISRUPTED, ISOLATED, OOS, Ctx, other
from .data import AXIS, INFANTRY_SUPPORT, SOVIET, Terrain
from .movement import adjacent_triggers

KEYS = ("attack",)
STACK_LIMIT = 3  # 6.1: three battalions (the first HQ free: Ctx.stack_value)
LOSS_POLICY = "most-steps-first"  # 9.3: when the owner's standing list does not decide
CROSSINGS = ("river", "prut")  # 9.57


# --- shared with bombardment (bombard.py) ---------------------------------------------------------

def unit_problem(ctx: Ctx, u: str, side: str) -> str:
    """Why ``u`` is not a unit of ``side`` on the map ('' when it is)."""
    if u not in ctx.sc.units:
        return f"{u} is not a unit of the scenario"
    if ctx.side_of(u) != side:
        return f"{u} is not a unit of the {side} side"
    if not ctx.on_map(u):
        return f"{u} is not on the map ({ctx.at(u)})"
    return ""


def activated(ctx: Ctx, u: str) -> bool:
    """15.11, 15.12: a Soviet unit may attack, bombard or give attack support when its formation
    was activated in this Movement Phase, or when it is independent."""
    spec = ctx.spec(u)
    if spec.side != SOVIET or not spec.formation:
        return True
    return spec.formation in ctx.pos.get("activation", {}).get("track", [])


def artillery_problem(ctx: Ctx, u: str, side: str, target: str, mission: str) -> tuple[str, str]:
    """Why artillery ``u`` cannot fire at or for ``target`` (text, rule), ('', '') when it can:
    11.0 artillery or a monitor, 11.6 deployed, 11.23 a volley left, 13.2 not demoralized, 11.21
    not in an enemy ZOC (monitors may, 17.52; A-60 for bombardment), 11.3 in range (A-61)."""
    why = unit_problem(ctx, u, side)
    if why:
        return why, "11.0"
    spec = ctx.spec(u)
    if not spec.artillery or spec.art is None:
        return f"{u} is not artillery or a river monitor: only they {mission} (2.1, 11.0)", "11.0"
    monitor = spec.type == "monitor"
    st = ctx.units[u]
    if not monitor and st.get("mode") != DEPLOYED:
        return f"{u} is towed: artillery supports and bombards only when deployed", "11.6"
    if not monitor and int(st.get("ammo", 0)) <= 0:
        return f"{u} is out of ammunition", "11.23"
    if ctx.status(u) == DEMORALIZED:
        return f"{u} is demoralized and may not support or bombard", "13.2"
    if not monitor and ctx.in_enemy_zoc(ctx.at(u), side):
        return f"{u} is in an enemy ZOC at {ctx.at(u)} and may not fire", "11.21"
    d = ctx.distance(ctx.at(u), target)
    if d > spec.art.range:
        return f"{u} at {ctx.at(u)} is {d} hexes from {target}, beyond its range of {spec.art.range}", "11.3"
    return "", ""


def support_value(ctx: Ctx, u: str, attack: bool) -> int:
    """11.1: the support value printed (art.support_attack, art.support_defense); T5 / 13.1: a
    disrupted battalion or regiment supports attacks with 1 less, never below 2."""
    art = ctx.spec(u).art
    assert art is not None
    v = art.support_attack if attack else art.support_defense
    if attack and ctx.status(u) == DISRUPTED and ctx.spec(u).size in ("battalion", "regiment") and v > 2:
        v = max(2, v - 1)
    return v


def fire(ctx: Ctx, u: str, flag: bool) -> None:
    """11.23: a volley spent (monitors spend none, 17.52); ``flag``: the unit's one mission of the
    phase (A-60)."""
    if ctx.spec(u).type != "monitor":
        ctx.units[u]["ammo"] = max(0, int(ctx.units[u].get("ammo", 0)) - 1)
        ctx.changed()
    if flag:
        ctx.flag(u, "fired")


def terrain_row(ctx: Ctx, h: str) -> Terrain:
    """9.17: the TEC row of the hex's terrain most favourable to the defender (the highest rank):
    its terrain, or its town or city."""
    tec = ctx.sc.charts.tec
    p = ctx.sc.map.hex(h)
    rows = [tec.terrain[p.terrain]]
    if p.town:
        rows.append(tec.terrain["town"])
    if p.city:
        rows.append(tec.terrain["city"])
    return max(rows, key=lambda r: (r.rank, r.name))


def entrenched(ctx: Ctx, h: str, side: str) -> bool:
    """17.2: a completed entrenchment of ``side`` in a hex that is not a town or city (there it
    gives no benefit); A-81: entrenchments benefit only their builder's side."""
    e = ctx.pos.get("entrenchments", {}).get(h)
    return bool(e) and e.get("side") == side and e.get("state") == "done" and not ctx.sc.map.hex(h).urban


def take_losses(ctx: Ctx, side: str, units: list[str], n: int, rule: str, why: str,
                first_from: list[str] | None = None, engineers: list[str] | None = None) -> list[dict[str, Any]]:
    """9.3: ``n`` step losses among ``units`` (the owner's standing ``losses`` list, then the
    default policy); ``first_from``: the first step from one of these (9.31, 10.4); ``engineers``:
    half the losses, rounded up, from these if possible (9.61). Returns the steps each unit is to
    lose (``apply_losses`` takes them)."""
    order = [str(x) for x in ctx.standing.get(side, {}).get("losses", [])]
    left = {u: ctx.steps_left(u) for u in units}
    taken: dict[str, int] = {}

    def grab(pool: list[str], k: int, first: list[str] | None = None) -> int:
        avail = [(u, left[u]) for u in pool if left[u] > 0]
        if k <= 0 or not avail:
            return 0
        got: list[Loss] = allocate(avail, k, order, LOSS_POLICY, first_from=first or ())
        steps = 0
        for lo in got:
            left[lo.unit] -= lo.steps
            taken[lo.unit] = taken.get(lo.unit, 0) + lo.steps
            steps += lo.steps
            for _ in range(lo.steps):  # an order entry is one step
                if lo.unit in order:
                    order.remove(lo.unit)
        return steps

    owed = n
    if first_from and owed > 0:
        owed -= grab(units, 1, first_from)
    if engineers and owed > 0:
        want = -(-n // 2) - sum(taken.get(u, 0) for u in engineers)
        owed -= grab(engineers, min(owed, max(0, want)))
    owed -= grab(units, owed)
    return [{"unit": u, "steps": taken[u]} for u in units if taken.get(u, 0)]


def apply_losses(ctx: Ctx, took: list[dict[str, Any]], rule: str, why: str) -> None:
    """The steps ``take_losses`` chose, lost (17.1: artillery eliminated by one)."""
    for x in took:
        for _ in range(int(x["steps"])):
            if not ctx.on_map(x["unit"]) or ctx.lose_step(x["unit"], rule, why):
                break


# --- checking -------------------------------------------------------------------------------------

def _excess_problem(ctx: Ctx, target: str, defenders: list[str], exclude: list[str]) -> str:
    """6.3: the excluded units must be excess units of an overstacked hex."""
    if not exclude:
        return ""
    if ctx.stack_value(target) <= STACK_LIMIT:
        return f"{target} is not overstacked: no defender may be excluded"
    kept = [u for u in defenders if u not in exclude]
    if _value(ctx, kept) > STACK_LIMIT:
        return f"the defenders left in {target} still overstack it: exclude more of them"
    for u in exclude:
        if _value(ctx, [*kept, u]) <= STACK_LIMIT:
            return f"{u} is not an excess unit: the hex is within its limit with it"
    return ""


def _value(ctx: Ctx, units: list[str]) -> Fraction:
    total = sum((ctx.spec(u).stack_value(int(ctx.units[u].get("lost", 0))) for u in units), Fraction(0))
    hqs = sum(1 for u in units if ctx.spec(u).size == "hq")
    return total + Fraction(max(0, hqs - 1), 3)


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """9.0, 5.21, 5.52, 15.11, 11.2, 11.3, 9.54, 6.3: the [[attack]] orders."""
    side = ctx.side
    targets: dict[str, int] = {}
    attackers: dict[str, int] = {}
    fired: dict[str, str] = {}
    for i, b in enumerate(body.get("bombard", [])):
        for u in b.get("units", []):
            fired.setdefault(str(u), f"bombard[{i}]")
    for i, a in enumerate(body.get("attack", [])):
        w = f"attack[{i}]"
        t = str(a["target"])
        if ctx.sc.map.grid.place(t) is None:
            problems.append(Problem(f"{w}.target", f"{t} is not a hex of the map", "2.3"))
            continue
        if t in targets:
            problems.append(Problem(f"{w}.target", f"{t} is attacked by attack[{targets[t]}] already: a hex is attacked once a Combat Phase", "9.0"))
        targets.setdefault(t, i)
        defenders = [u for u in ctx.units_in(t) if ctx.side_of(u) != side]
        if not defenders:
            problems.append(Problem(f"{w}.target", f"{t} holds no enemy unit: only enemy-occupied hexes are attacked", "9.0"))
        elif all(ctx.spec(u).type == "monitor" for u in defenders):
            problems.append(Problem(f"{w}.target", f"{t} holds only river monitors, which are bombarded, never attacked (A-85)", "17.52"))
        for j, u in enumerate(a["units"]):
            uw = f"{w}.units[{j}]"
            why = unit_problem(ctx, u, side)
            if why:
                problems.append(Problem(uw, why, "9.0"))
                continue
            spec = ctx.spec(u)
            if u in attackers:
                problems.append(Problem(uw, f"{u} attacks in attack[{attackers[u]}] already: a unit attacks once a Combat Phase", "9.0"))
            attackers.setdefault(u, i)
            if not ctx.adjacent(ctx.at(u), t):
                problems.append(Problem(uw, f"{u} at {ctx.at(u)} is not adjacent to {t}", "9.0"))
            if spec.type == "monitor":
                problems.append(Problem(uw, f"{u} is a river monitor: it supports and bombards, it does not attack (A-85)", "17.52"))
            elif spec.artillery and ctx.units[u].get("mode") == DEPLOYED:
                problems.append(Problem(uw, f"{u} is deployed artillery: it gives support (support = [...]); it attacks only towed", "11.1"))
            elif ctx.printed(u).a <= 0:
                problems.append(Problem(uw, f"{u} has no attack strength", "9.12"))
            if ctx.flagged(u, "strategic"):
                problems.append(Problem(uw, f"{u} moved strategically this turn and may not attack", "5.21"))
            if ctx.flagged(u, "forded"):
                problems.append(Problem(uw, f"{u} crossed the Prut without a bridge this turn and may not take part in combat", "5.52"))
            if ctx.flagged(u, "attacked"):
                problems.append(Problem(uw, f"{u} attacked already this Combat Phase", "9.0"))
            if not activated(ctx, u):
                problems.append(Problem(uw, f"{u} belongs to {spec.formation}, a formation not activated this turn", "15.11"))
        for k, u in enumerate(a.get("support", [])):
            mission_problems(ctx, u, t, "support", f"{w}.support[{k}]", w, fired, problems)
        adv = [str(h) for h in a.get("advance", [])]
        for k, u in enumerate(a.get("advance_with", [])):
            _with_problem(ctx, a, str(u), adv, f"{w}.advance_with[{k}]", problems)
        if adv:
            if adv[0] != t:
                problems.append(Problem(f"{w}.advance[0]", f"the first hex of an advance is the hex attacked, {t}", "9.54"))
            for k in range(1, len(adv)):
                if ctx.sc.map.grid.place(adv[k]) is None or not ctx.adjacent(adv[k - 1], adv[k]):
                    problems.append(Problem(f"{w}.advance[{k}]", f"{adv[k]} is not a hex adjacent to {adv[k - 1]}", "9.5"))
        exclude = [str(u) for u in a.get("exclude", [])]
        for k, u in enumerate(exclude):
            if u not in defenders:
                problems.append(Problem(f"{w}.exclude[{k}]", f"{u} is not a defender in {t}", "6.3"))
        if defenders and all(u in defenders for u in exclude):
            why = _excess_problem(ctx, t, defenders, exclude)
            if why:
                problems.append(Problem(f"{w}.exclude", why, "6.3"))


def mission_problems(ctx: Ctx, u: str, t: str, mission: str, where: str, order: str, fired: dict[str, str],
                     problems: list[Problem], side: str | None = None) -> None:
    """One artillery unit's mission against (or for) hex ``t``: ``mission`` "support" (attack
    support), "defense" (defensive support) or "bombard": artillery that may fire there (11.x,
    13.2), once a phase (A-60; ``fired``: the orders that fire each unit so far, by unit), of an
    activated formation for a mission of the phasing side (15.11; A-72: defensive support is free);
    aircraft never support (16.2) and bombard alone (16.3)."""
    side = side or ctx.side
    if u in ctx.sc.aircraft:
        problems.append(Problem(where, f"{u} is an aircraft: it bombards alone, in [[air]]", "16.3") if mission == "bombard"
                        else Problem(where, f"{u} is an aircraft: aircraft never support a combat", "16.2"))
        return
    why, rule = artillery_problem(ctx, u, side, t, "bombard" if mission == "bombard" else "support")
    if why:
        problems.append(Problem(where, why, rule))
        return
    if u in fired:
        problems.append(Problem(where, f"{u} fires in {fired[u]} already: one mission a phase (A-60)", "11.1"))
    elif mission != "defense" and ctx.flagged(u, "fired"):
        problems.append(Problem(where, f"{u} fired already this phase (A-60)", "11.1"))
    fired.setdefault(u, order)
    if mission != "defense" and not activated(ctx, u):
        problems.append(Problem(where, f"{u} belongs to {ctx.spec(u).formation}, a formation not activated this turn (A-72)", "15.11"))


def support_item(turn: int) -> str:
    """3.34c: the hidden item of the attack support the phasing side commits in game turn ``turn``
    (a game without a referee): the artillery by target hex, opened when the combats are resolved."""
    return f"support.T{turn}"


def _with_problem(ctx: Ctx, a: dict[str, Any], u: str, adv: list[str], where: str, problems: list[Problem]) -> None:
    """9.52: a unit that advances with the attackers: a unit of the phasing side stacked with one of
    them, not attacking in this combat itself, that may advance (9.56: never artillery), along an
    advance the order gives (9.5)."""
    why = unit_problem(ctx, u, ctx.side)
    if why:
        problems.append(Problem(where, why, "9.52"))
        return
    if u in a["units"]:
        problems.append(Problem(where, f"{u} attacks in this combat: it advances as an attacker", "9.52"))
        return
    hexes = {ctx.at(v) for v in a["units"] if v in ctx.units and ctx.on_map(v)}
    if ctx.at(u) not in hexes:
        problems.append(Problem(where, f"{u} at {ctx.at(u)} is not stacked with a unit of this attack "
                                       f"({', '.join(sorted(hexes)) or 'none on the map'})", "9.52"))
    if ctx.spec(u).artillery:
        problems.append(Problem(where, f"{u} is artillery (or a monitor): it never advances", "9.56"))
    if not adv:
        problems.append(Problem(where, "no advance is given (advance = [...]) for the units to follow", "9.5"))


def declared(ctx: Ctx, body: dict[str, Any]) -> list[str]:
    """9.0, 3.34a: the hexes attacked, in the order given."""
    return [str(a["target"]) for a in body.get("attack", [])]


def check_support(ctx: Ctx, attacks: list[dict[str, Any]], reply: dict[str, Any], side: str, problems: list[Problem]) -> None:
    """3.34b, 9.11, 11.2, 11.3, A-60: the defender's [[support]] reply: artillery of its own for a
    declared target, each unit once (A-72: inactive Soviet formations may support in defense)."""
    targets = [str(a["target"]) for a in attacks]
    seen_t: dict[str, int] = {}
    seen_u: dict[str, str] = {}
    for i, s in enumerate(reply.get("support", [])):
        t = str(s["target"])
        if t not in targets:
            problems.append(Problem(f"support[{i}].target", f"{t} is not a declared target ({', '.join(targets) or 'none'})", "9.11"))
            continue
        if t in seen_t:
            problems.append(Problem(f"support[{i}].target", f"{t} has its support in support[{seen_t[t]}] already: list every unit there", "9.11"))
        seen_t.setdefault(t, i)
        for k, u in enumerate(s["units"]):
            mission_problems(ctx, u, t, "defense", f"support[{i}].units[{k}]", f"support[{i}]", seen_u, problems, side)


# --- resolution -----------------------------------------------------------------------------------

@dataclass
class Combat:
    """One combat's working data (9.1)."""

    target: str
    attackers: list[str]
    defenders: list[str]  # every unit of the defending hex (9.0)
    excluded: list[str]  # 6.3
    order: dict[str, Any]

    @property
    def taking_part(self) -> list[str]:
        return [u for u in self.defenders if u not in self.excluded]


def resolve_all(ctx: Ctx, attacks: list[dict[str, Any]], support: list[dict[str, Any]]) -> None:
    """9.1, A-12: the defender's support for every target is known (none for a target it did not
    support, and none at all when no reply came), then each combat in the attacker's order."""
    defensive: dict[str, list[str]] = {}
    for s in support:
        defensive.setdefault(str(s["target"]), []).extend(str(u) for u in s["units"])
    if attacks:
        ctx.emit("defensive-support", "9.11", side=other(ctx.side),
                 support={t: list(us) for t, us in sorted(defensive.items())})
    later = [str(a["target"]) for a in attacks]
    for a in attacks:
        t = str(a["target"])
        later.remove(t)
        _resolve(ctx, a, defensive.get(t, []), {h: defensive.get(h, []) for h in later})


def _defaults_excluded(ctx: Ctx, t: str, defenders: list[str]) -> list[str]:
    """6.3 (6.8 e): the attacker's default choice of excess units: the strongest defenders first."""
    out: list[str] = []
    kept = sorted(defenders, key=lambda u: (ctx.defense(u), u))
    while _value(ctx, kept) > STACK_LIMIT and kept:
        out.append(kept.pop())
    return sorted(out)


def _valid_support(ctx: Ctx, units: list[str], side: str, t: str, attack: bool,
                   skipped: list[dict[str, str]]) -> list[tuple[str, int]]:
    """The support that may be given, as the orders' check would allow it (the attack support of a
    game without a referee is checked here only, once opened: 3.34c): each unit once (A-60: one
    mission a phase; attack support flags the unit as it fires), of an activated Soviet formation or
    independent for attack support (15.11, A-72)."""
    out = []
    seen: set[str] = set()
    for u in units:
        why, rule = artillery_problem(ctx, u, side, t, "support")
        if not why and (u in seen or (attack and ctx.flagged(u, "fired"))):
            why, rule = f"{u} fires once a phase (A-60)", "11.1"
        if not why and attack and not activated(ctx, u):
            why, rule = f"{u} belongs to {ctx.spec(u).formation}, a formation not activated this turn (A-72)", "15.11"
        if why:
            skipped.append({"unit": u, "why": why, "rule": rule})
            continue
        seen.add(u)
        out.append((u, support_value(ctx, u, attack)))
    return out


def _clip(given: list[tuple[str, int]], cap: int) -> tuple[list[tuple[str, int]], list[str], int]:
    """9.8, 6.8 (b): the weakest units not needed to reach the cap are removed (they do not fire);
    the total counted is at most the cap."""
    kept = sorted(given, key=lambda x: (x[1], x[0]))
    clipped = []
    while kept and sum(v for _, v in kept) - kept[0][1] >= cap:
        clipped.append(kept.pop(0)[0])
    kept_ids = {u for u, _ in kept}
    return [g for g in given if g[0] in kept_ids], sorted(clipped), min(cap, sum(v for _, v in kept))


def _armor_values(ctx: Ctx, units: list[str]) -> tuple[int, int, str, str]:
    """10.3, A-55: the highest armor and anti-armor among ``units`` that may use them (and the
    units holding them)."""
    best_ar, best_aa, who_ar, who_aa = 0, 0, "", ""
    for u in units:
        spec = ctx.spec(u)
        helped = any(v != u and ctx.at(v) == ctx.at(u) and ctx.spec(v).type in INFANTRY_SUPPORT for v in units)
        ar = ctx.armor(u) if helped or spec.type == "recon" else 0
        aa = ctx.anti_armor(u) if helped or (spec.type == "engineer" and spec.nat == "german") else 0
        if ar > best_ar:
            best_ar, who_ar = ar, u
        if aa > best_aa:
            best_aa, who_aa = aa, u
    return best_ar, best_aa, who_ar, who_aa


def _odds(ctx: Ctx, attack: int, defense: int) -> Odds:
    """9.14, A-37: round down (default) or the nearest column."""
    if ctx.option("odds") == "nearest":
        return Odds.nearest(attack, defense)
    return Odds.of(attack, defense)


def _shifts(ctx: Ctx, c: Combat) -> tuple[list[Shift], dict[str, Any]]:
    """9.15, T8: armor (10.1, 10.2, 10.5), envelopment (9.62), engineers (9.61), morale (9.7)."""
    shifts: list[Shift] = []
    a_ar, _, a_who, _ = _armor_values(ctx, c.attackers)
    d_ar, d_aa, d_ar_who, d_aa_who = _armor_values(ctx, c.taking_part)
    d_best = max(d_ar, d_aa)
    info: dict[str, Any] = {"attacker_armor": a_ar, "attacker_armor_unit": a_who, "defender_armor": d_ar,
                            "defender_anti_armor": d_aa, "defender_armor_unit": d_ar_who, "defender_anti_armor_unit": d_aa_who}
    if a_ar > d_best:
        n = min(3, a_ar - d_best)
        shifts.append(Shift(n, "10.1", f"attacking armor {a_ar} ({a_who}) against the defenders' best armor or anti-armor {d_best}"
                                       + (" (at most 3)" if a_ar - d_best > 3 else "")))
        if ctx.option("overwhelming_armor") == "extra" and d_best >= 1 and a_ar >= 5 * d_best:
            shifts.append(Shift(1, "10.2", f"overwhelming armor: {a_ar} against {d_best} is 5:1 or more (A-54)"))
    if a_ar >= 1 and d_ar > a_ar:
        shifts.append(Shift(-1, "10.5", f"defending armor {d_ar} ({d_ar_who}) above the attacking armor {a_ar}"))
    hexes = sorted({ctx.at(u) for u in c.attackers})
    if len(hexes) >= 4:
        shifts.append(Shift(1, "9.62", f"envelopment: attacks from {len(hexes)} hexes ({', '.join(hexes)})"))
    engineers = [u for u in c.attackers if ctx.spec(u).type == "engineer"]
    if engineers and ctx.sc.map.hex(c.target).urban:
        shifts.append(Shift(1, "9.61", f"engineers ({', '.join(engineers)}) attack a town or city (A-50)"))
        info["engineers"] = engineers
    if c.taking_part:
        am = min(ctx.morale(u) for u in c.attackers)
        dm = max(ctx.morale(u) for u in c.taking_part)
        diff = am - dm
        info.update(attacker_morale=am, defender_morale=dm)
        if diff > 0:
            shifts.append(Shift(min(3, diff), "9.7", f"morale: the attackers' lowest {am} against the defenders' highest {dm} (A-52)"))
        elif diff < 0:
            shifts.append(Shift(-min(2, -(diff // 2)), "9.7", f"morale: the attackers' lowest {am} against the defenders' highest {dm} (A-52)"))
    return shifts, info


def _resolve(ctx: Ctx, a: dict[str, Any], dsupport: list[str], later: dict[str, list[str]]) -> None:
    side, enemy = ctx.side, other(ctx.side)
    t = str(a["target"])
    attackers, dropped = [], []
    for u in a["units"]:
        if ctx.on_map(u) and ctx.adjacent(ctx.at(u), t):
            attackers.append(str(u))
        else:
            dropped.append(str(u))
    defenders = [u for u in ctx.units_in(t) if ctx.side_of(u) == enemy and ctx.spec(u).type != "monitor"]
    if not attackers or not defenders:
        ctx.emit("combat-skipped", "9.0", target=t, why="no attacker is left adjacent" if not attackers else "the hex holds no enemy unit now")
        return
    excluded = [str(u) for u in a.get("exclude", []) if u in defenders]
    if not excluded and _value(ctx, defenders) > STACK_LIMIT:
        excluded = _defaults_excluded(ctx, t, defenders)
    c = Combat(t, attackers, defenders, excluded, a)
    for u in attackers:
        ctx.flag(u, "attacked")
    # 7.71: the isolation rolls of the defenders out of supply, applied after the combat
    iso_rolls = []
    for u in defenders:
        if ctx.supply(u) == OOS:
            die = ctx.roll(f"isolation T{ctx.turn} {t} {u}")[0]
            iso_rolls.append({"unit": u, "die": die, "isolated": die <= 3})
    # 9.12, 9.8: attack
    skipped: list[dict[str, str]] = []
    ground_a = {u: ctx.attack(u) for u in attackers}
    a_given = _valid_support(ctx, [str(u) for u in a.get("support", [])], side, t, True, skipped)
    a_cap = 2 * sum(ground_a.values())
    a_kept, a_clipped, a_support = _clip(a_given, a_cap)
    # 9.13, 9.8: defense
    part = c.taking_part
    ground_d = {u: ctx.defense(u) for u in part}
    d_given = _valid_support(ctx, dsupport, enemy, t, False, skipped)
    d_cap = sum(ground_d.values())
    d_kept, d_clipped, d_support = _clip(d_given, d_cap)
    att_total = sum(ground_a.values()) + a_support
    def_total = sum(ground_d.values()) + d_support
    for u, _ in a_kept:
        fire(ctx, u, True)
    for u, _ in d_kept:
        fire(ctx, u, False)
    row = terrain_row(ctx, t)
    line, line_why = row.line, f"{row.name} (9.17)"
    if entrenched(ctx, t, enemy):
        line, line_why = ctx.sc.charts.tec.entrench_line, "an entrenchment (9.13, 17.2)"
    base = _odds(ctx, att_total, def_total)
    shifts, info = _shifts(ctx, c)
    final = apply_shifts(base, shifts)
    crt = ctx.sc.charts.crt
    data: dict[str, Any] = {
        "target": t, "attackers": [{"unit": u, "hex": ctx.at(u), "attack": ground_a[u]} for u in attackers],
        "attack_ground": sum(ground_a.values()), "attack_support": [{"unit": u, "value": v} for u, v in a_given],
        "attack_clipped": a_clipped, "attack_cap": a_cap, "attack_support_counted": a_support, "attack_total": att_total,
        "defenders": [{"unit": u, "defense": ground_d[u]} for u in part], "excluded": excluded,
        "defense_ground": sum(ground_d.values()), "defense_support": [{"unit": u, "value": v} for u, v in d_given],
        "defense_clipped": d_clipped, "defense_cap": d_cap, "defense_support_counted": d_support, "defense_total": def_total,
        "support_skipped": skipped, "dropped": dropped, "odds": base.label if def_total > 0 else "no defense",
        "line": line, "line_why": line_why,
        "shifts": [{"columns": s.columns, "rule": s.rule, "reason": s.reason} for s in shifts],
        "net_shift": sum(s.columns for s in shifts), **info, "provisional": crt.provisional,
    }
    if final > crt.last:
        final = crt.last
        data["clamped"] = "highest"
    if final < crt.first:
        if ctx.option("below_table") == "cancel":
            data.update(final=final.label, cancelled=True)
            ctx.emit("combat", "9.16", **data)
            _after(ctx, c, iso_rolls)
            return
        final = crt.first
        data["clamped"] = "lowest"
    dice = ctx.roll(f"combat T{ctx.turn} {t}", 2)
    total = sum(dice)
    result = crt.lookup(line, final, total)
    data.update(final=final.label, dice=dice, total=total, result=result.label, cancelled=False)
    ctx.emit("combat", "9.18", **data)
    _apply(ctx, c, result, info, later)
    _after(ctx, c, iso_rolls)


def _apply(ctx: Ctx, c: Combat, result: Any, info: dict[str, Any], later: dict[str, list[str]]) -> None:
    """9.2-9.5: losses (with the shortfall of A-42), d and Z, retreats, then the advance."""
    side, enemy = ctx.side, other(ctx.side)
    a_n, d_n = int(result.attacker), result.defender
    a_loss, a_ret = -(-a_n // 2), a_n // 2  # 9.22: the attacker rounds its losses up
    a_elig = [u for u in c.attackers if ctx.printed(u).a > 0]
    cap_a = sum(ctx.steps_left(u) for u in a_elig)
    if d_n is None:  # E: every defender eliminated
        for u in c.defenders:
            ctx.eliminate(u, "9.2", "E result")
        d_loss, d_ret = 0, 0
        short_a, short_d = a_loss > cap_a, False
    else:
        d_loss, d_ret = int(d_n) // 2, -(-int(d_n) // 2)  # the defender rounds its losses down
        d_elig = [u for u in c.taking_part if ctx.printed(u).d > 0]
        cap_d = sum(ctx.steps_left(u) for u in d_elig)
        short_a, short_d = a_loss > cap_a, d_loss > cap_d
    cut = {"attacker": 0, "defender": 0}
    if ctx.option("loss_shortfall") == "either":  # 9.22, A-42: worked out before any loss is taken
        if short_a and d_loss > 0:
            d_loss -= 1
            cut["defender"] = 1
        if short_d and a_loss > 0:
            a_loss -= 1
            cut["attacker"] = 1
    tanks: list[str] = []
    d_aa = info["defender_anti_armor"] if ctx.option("tank_losses") == "anti-armor" \
        else max(info["defender_anti_armor"], info["defender_armor"])
    armored = [u for u in a_elig if ctx.armor(u) > 0]
    if armored:
        top = max(ctx.armor(u) for u in armored)
        if d_aa > top:
            tanks = [u for u in armored if ctx.armor(u) == top]
    a_took = take_losses(ctx, side, a_elig, a_loss, "9.3", "combat loss", tanks or None, info.get("engineers"))
    d_took: list[dict[str, Any]] = []
    if d_n is not None:
        d_elig = [u for u in c.taking_part if ctx.printed(u).d > 0 and ctx.on_map(u)]
        d_took = take_losses(ctx, enemy, d_elig, d_loss, "9.3", "combat loss")
    ctx.emit("losses", "9.22", target=c.target, attacker_number=a_n, defender_number=d_n,
             attacker_losses=a_loss, attacker_retreat=a_ret, defender_losses=d_loss, defender_retreat=d_ret,
             shortfall_cut=cut, attacker_took=a_took, defender_took=d_took, tank_first=tanks,
             engineers=info.get("engineers", []))
    apply_losses(ctx, a_took, "9.3", "combat loss")
    apply_losses(ctx, d_took, "9.3", "combat loss")
    for mark, units in ((result.attacker_mark, c.attackers), (result.defender_mark, c.defenders)):
        for u in units:
            if mark and ctx.on_map(u):
                ctx.disrupt(u, DEMORALIZED if mark == "Z" else DISRUPTED, "9.21")
    a_ret_done = False
    if a_ret > 0:
        survivors = [u for u in c.attackers if ctx.on_map(u)]
        if survivors:
            _retreat(ctx, survivors, side, a_ret, [ctx.at(u) for u in c.defenders if ctx.on_map(u)] or [c.target], [])
            a_ret_done = True
    if d_ret > 0:
        survivors = [u for u in c.defenders if ctx.on_map(u)]
        if survivors:
            _retreat(ctx, survivors, enemy, d_ret, [ctx.at(u) for u in c.attackers if ctx.on_map(u)],
                     [u for u in c.excluded if u in survivors])
    if not a_ret_done and not any(ctx.side_of(u) == enemy for u in ctx.units_in(c.target)):
        dist = max(d_ret, 1)
        _advance(ctx, c, dist, later)


# --- retreat (9.4) --------------------------------------------------------------------------------

def can_enter(ctx: Ctx, u: str, frm: str, to: str, side: str, retreat: bool) -> str:
    """Why ``u`` may not step from ``frm`` into ``to`` in a retreat or an advance ('' when it may):
    enemy units (5.62, A-46), the Prut (5.5, 15.3, 5.53; A-46 option ford_retreat, A-49), terrain
    prohibited to its class (5.13, 9.57)."""
    if ctx.holder(to) == other(side):
        return "enemy units"
    feats = ctx.features(frm, to)
    if "prut" in feats:
        if side == SOVIET:
            return "the Prut (Soviet units never cross it)"
        if "bridge" not in feats:
            spec = ctx.spec(u)
            fords = spec.type not in ("cavalry",) and not spec.artillery and not ctx.motorized(u)
            if not fords or (retreat and not ctx.option("ford_retreat")):
                return "the Prut without a bridge"
    row = ctx.sc.charts.tec.terrain[ctx.sc.map.hex(to).terrain]
    if row.cost(ctx.klass(u)) is None:
        return f"{row.name}, prohibited to {ctx.klass(u)} units"
    return ""


def _edge_key(ctx: Ctx, side: str) -> Callable[[str], tuple[int, str]]:
    """The own map edge (2.1, 7.1): the Axis west (low columns), the Soviet east."""
    return lambda h: ((int(h[:2]) if side == AXIS else -int(h[:2])), h)


def _retreat(ctx: Ctx, units: list[str], side: str, steps: int, enemies: list[str], excess: list[str]) -> None:
    """9.4-9.42, T10, 6.3, 11.22: ``units`` of ``side`` retreat ``steps`` hexes from the enemy in
    ``enemies`` hexes, the units of each hex together (A-44)."""
    for u in list(units):
        if ctx.spec(u).artillery and ctx.units[u].get("mode") == DEPLOYED:
            ctx.eliminate(u, "11.22", "deployed artillery that must retreat")
        elif u in excess and ctx.on_map(u):
            ctx.lose_step(u, "6.3", "an overstacked unit that retreats again")
    by_hex: dict[str, list[str]] = {}
    for u in units:
        if ctx.on_map(u):
            by_hex.setdefault(ctx.at(u), []).append(u)
    for start, stack in sorted(by_hex.items()):
        path = _retreat_path(ctx, stack, side, steps, enemies, start)
        groups = [stack] if path is not None else [[u] for u in stack]
        for g in groups:
            p = path if path is not None else _retreat_path(ctx, g, side, steps, enemies, start)
            if p is None or len(p[0]) < steps:
                for u in g:
                    ctx.eliminate(u, "9.42", f"it could not retreat {steps} hex(es)")
                ctx.emit("retreat", "9.42", side=side, units=g, start=start, path=p[0] if p else [],
                         priorities=p[1] if p else [], needed=steps, eliminated=True)
                continue
            for h in p[0]:
                for u in g:
                    ctx.place(u, h)
                ctx.control[h] = side
                if ctx.option("bridge_trigger") == "any":  # a retreat next to the enemy's works triggers them
                    adjacent_triggers(ctx, h, side)
            ctx.emit("retreat", "9.41", side=side, units=g, start=start, path=p[0], priorities=p[1], needed=steps,
                     eliminated=False, farther=ctx.option("retreat_farther"))


def _retreat_path(ctx: Ctx, units: list[str], side: str, steps: int, enemies: list[str],
                  start: str) -> tuple[list[str], list[int]] | None:
    """The hexes of a retreat, each chosen by 9.41 (T10) and A-45/A-46; None when the units have
    no common first hex; a shorter path when they are stopped on the way."""
    zoc = ctx.zoc_of(other(side))
    pref = str(ctx.standing.get(side, {}).get("retreat", "own-edge"))
    edge = _edge_key(ctx, side)
    hqs = [ctx.at(u) for u in ctx.side_units(side) if ctx.spec(u).type == "hq" and u not in units]

    def far(h: str) -> int:
        return min((ctx.distance(h, e) for e in enemies), default=0)

    def tie(h: str) -> tuple[Any, ...]:
        if pref == "hq":
            return (min((ctx.distance(h, q) for q in hqs), default=0), *edge(h))
        if pref == "together":
            return (0 if ctx.holder(h) == side else 1, *edge(h))
        return edge(h)

    path: list[str] = []
    prios: list[int] = []
    cur = start
    for _ in range(steps):
        cands = [n for n in ctx.neighbours(cur) if n not in path and n != start
                 and all(not can_enter(ctx, u, cur, n, side, True) for u in units)]
        if not cands:
            return None if not path else (path, prios)
        general = ctx.option("retreat_farther") == "general"
        if general:
            farther = [n for n in cands if far(n) > far(cur)]
            cands = farther or cands

        def prio(n: str, general: bool = general, cur: str = cur) -> int:
            over = ctx.stack_value(n, units) > STACK_LIMIT
            if n not in zoc:
                return 2 if over else 1
            if not general and far(n) > far(cur):
                return 3
            if ctx.holder(n) == side:
                return 5 if over else 4
            return 6

        best = min(cands, key=lambda n: (prio(n), tie(n)))
        path.append(best)
        prios.append(prio(best))
        cur = best
    return path, prios


# --- advance (9.5) --------------------------------------------------------------------------------

def max_advance(ctx: Ctx, u: str) -> int:
    """9.56, T11, A-48: artillery never; Soviet units and Axis foot units 2; Axis motorized,
    mechanized and cavalry 3."""
    spec = ctx.spec(u)
    if spec.artillery:
        return 0
    if spec.side == SOVIET:
        return 2
    if ctx.motorized(u) or spec.type == "cavalry":
        return 3
    return 2


def _advance(ctx: Ctx, c: Combat, dist: int, later: dict[str, list[str]]) -> None:
    """9.5-9.57, 11.4: the attackers that did not retreat, and the units stacked with them that
    the order names (9.52), follow the ``advance`` hexes."""
    path = [str(h) for h in c.order.get("advance", [])]
    if not path:
        return
    side = ctx.side
    moved: list[dict[str, Any]] = []
    # 9.52: every attacker, and the units stacked with them that the order names (advance_with)
    start = {ctx.at(u) for u in c.attackers if ctx.on_map(u)}
    stacked = [str(u) for u in c.order.get("advance_with", [])
               if str(u) not in c.attackers and ctx.on_map(str(u)) and ctx.at(str(u)) in start]
    for u in [*c.attackers, *stacked]:
        if not ctx.on_map(u):
            continue
        limit = min(max_advance(ctx, u), dist)
        if limit <= 0:
            moved.append({"unit": u, "path": [], "why": "artillery never advances (9.56)" if ctx.spec(u).artillery else ""})
            continue
        cur, budget, spent, reach, why = ctx.at(u), limit, 0, [], ""
        for h in path:
            if spent >= budget:
                why = f"its advance of {budget} hex(es) is used (9.51, 9.55, 9.56)"
                break
            bad = can_enter(ctx, u, cur, h, side, False)
            if bad or not ctx.adjacent(cur, h):
                why = f"{h}: {bad or 'not adjacent'} (9.57)"
                break
            spent += 1
            if ctx.in_enemy_zoc(h, side):
                budget = max(1, budget - 1)  # 9.55: each enemy ZOC entered, never below 1
            crossed = any(f in ctx.features(cur, h) for f in CROSSINGS)
            reach.append(h)
            cur = h
            if crossed:
                why = "it crossed a river or the Prut (9.57)"
                break
        while reach and ctx.stack_value(reach[-1], [u]) > STACK_LIMIT:  # 9.53: never overstacked at the end
            reach.pop()
            why = "the next hex would be overstacked (9.53)"
        for h in reach:
            ctx.control[h] = side
            if ctx.option("bridge_trigger") == "any":  # so does an advance
                adjacent_triggers(ctx, h, side)
        if reach:
            ctx.place(u, reach[-1])
            ctx.flag(u, "moved")
        moved.append({"unit": u, "path": reach, "why": why})
    ctx.emit("advance", "9.5", target=c.target, distance=dist, path=path, units=moved)
    # 11.4: enemy artillery supporting a later combat, adjacent to an advanced unit in an enemy ZOC
    ended = [ctx.at(m["unit"]) for m in moved if m["path"]]
    for t, us in later.items():
        for art in list(us):
            if not ctx.on_map(art):
                continue
            if any(ctx.adjacent(h, ctx.at(art)) and ctx.in_enemy_zoc(h, side) for h in ended):
                us.remove(art)
                ctx.emit("support-removed", "11.4", unit=art, target=t)


def _after(ctx: Ctx, c: Combat, iso_rolls: list[dict[str, Any]]) -> None:
    """7.7: attackers out of supply become isolated; 7.71: the defenders' rolls take effect (A-32);
    2.1: control of the hexes the ZOCs now reach (A-2)."""
    ctx.zoc_control("2.1")
    for u in c.attackers:
        if ctx.on_map(u) and ctx.supply(u) == OOS:
            ctx.units[u]["supply"] = ISOLATED
            ctx.changed()
            ctx.emit("isolated", "7.7", unit=u, why="it attacked out of supply")
    if not iso_rolls:
        return
    hit = [r["unit"] for r in iso_rolls if r["isolated"]]
    if ctx.option("isolation_roll") == "all":
        victims = list(c.defenders) if hit else []
    else:
        victims = hit
    isolated = []
    for u in victims:
        if ctx.on_map(u) and ctx.supply(u) != ISOLATED:
            ctx.units[u]["supply"] = ISOLATED
            ctx.changed()
            isolated.append(u)
    ctx.emit("isolation-roll", "7.71", target=c.target, rolls=iso_rolls, isolated=isolated, reading=ctx.option("isolation_roll"))


# --- the end of the Combat Phase --------------------------------------------------------------------

def end_phase(ctx: Ctx) -> None:
    """13.31 recovery rolls next to the enemy; 17.52 monitors next to a Soviet tank."""
    enemy = other(ctx.side)
    for u in ctx.side_units(ctx.side):
        if not ctx.status(u) or ctx.flagged(u, "moved") or ctx.flagged(u, "attacked"):
            continue
        if not any(ctx.holder(n) == enemy for n in ctx.neighbours(ctx.at(u))):
            continue  # recovers, if at all, at the end of the player turn (13.31)
        was, m = ctx.status(u), ctx.morale(u)
        die = ctx.roll(f"recovery T{ctx.turn} {u}")[0]
        now = was
        if die < m:
            now = DISRUPTED if was == DEMORALIZED else ""
            if now:
                ctx.units[u]["status"] = now
            else:
                ctx.units[u].pop("status", None)
            ctx.changed()
        ctx.emit("recovery-roll", "13.31", unit=u, die=die, morale=m, was=was, now=now or "recovered")
    tanks = [ctx.at(u) for u in ctx.side_units(SOVIET) if ctx.spec(u).type == "tank"]
    for u in ctx.side_units(AXIS):
        if ctx.spec(u).type == "monitor" and any(h == ctx.at(u) or ctx.adjacent(h, ctx.at(u)) for h in tanks):
            ctx.eliminate(u, "17.52", "a Soviet tank is adjacent at the end of a Combat Phase")


# --- report ---------------------------------------------------------------------------------------

def _units(items: list[dict[str, Any]], key: str) -> str:
    return ", ".join(f"{x['unit']} {x[key]}" for x in items) or "none"


def _combat(e: Event) -> list[str]:
    d = e.data
    t = d["target"]
    if d.get("cancelled"):
        head = (f"- **Combat at {t}**: cancelled, the final odds {d['final']} are below the table (9.16, A-39); "
                "the attackers count as having attacked and the support as fired.")
    else:
        head = f"- **Combat at {t}**: {d['result']} at {d['final']} on the {d['line']} line (9.18)."
    att = ", ".join(f"{x['unit']} from {x['hex']} {x['attack']}" for x in d["attackers"])
    sup = _units(d["attack_support"], "value")
    lines = [head,
             f"  - Attack (9.12): {att} = {d['attack_ground']}; support {sup}, at most twice the attack, {d['attack_cap']} (9.8)"
             + (f", {', '.join(d['attack_clipped'])} not needed and not fired" if d["attack_clipped"] else "")
             + f": {d['attack_support_counted']} counted; total {d['attack_total']}.",
             f"  - Defense (9.13): {_units(d['defenders'], 'defense')} = {d['defense_ground']}"
             + (f" ({', '.join(d['excluded'])} overstacked, adding nothing, 6.3)" if d["excluded"] else "")
             + f"; support {_units(d['defense_support'], 'value')}, at most the defense, {d['defense_cap']} (9.8)"
             + (f", {', '.join(d['defense_clipped'])} not needed and not fired" if d["defense_clipped"] else "")
             + f": {d['defense_support_counted']} counted; total {d['defense_total']}."]
    for s in d["support_skipped"]:
        lines.append(f"  - {s['unit']} gives no support: {s['why']} ({s['rule']}).")
    shifts = "; ".join(f"{'+' if s['columns'] > 0 else ''}{s['columns']} {s['reason']} ({s['rule']})" for s in d["shifts"]) or "none"
    odds = (f"  - Odds {d['attack_total']}:{d['defense_total']} are {d['odds']} (9.14); line {d['line']} "
            f"for {d['line_why']}; shifts: {shifts}; net {d['net_shift']:+d} (9.15) gives {d['final']}")
    if d.get("clamped") == "highest":
        odds += " (the highest column, 9.16)"
    elif d.get("clamped") == "lowest":
        odds += " (below the table: the lowest column, A-39)"
    if not d.get("cancelled"):
        odds += f"; dice {d['dice'][0]} + {d['dice'][1]} = {d['total']}: {d['result']}"
    lines.append(odds + ".")
    return lines


def _losses(e: Event) -> list[str]:
    d = e.data
    dn = "E" if d["defender_number"] is None else d["defender_number"]
    out = [f"- Result at {d['target']} (9.22): the attacker's {d['attacker_number']} is {d['attacker_losses']} step loss(es) "
           f"and {d['attacker_retreat']} hex(es) of retreat; the defender's {dn} is {d['defender_losses']} step loss(es) "
           f"and {d['defender_retreat']} hex(es) of retreat."]
    cut = d["shortfall_cut"]
    for who, n in sorted(cut.items()):
        if n:
            out.append(f"  - The {who}'s losses are cut by {n}: the other side cannot take all of its own (9.22, A-42).")
    if d["tank_first"]:
        out.append(f"  - The attacker's first loss comes from its strongest armor, {' or '.join(d['tank_first'])}: "
                   "the defender's anti-armor is higher (9.31, 10.4).")
    if d["engineers"] and d["attacker_losses"]:
        out.append("  - Half the attacker's losses, rounded up, fall on the engineers if possible (9.61).")
    for who, took in (("Attacker", d["attacker_took"]), ("Defender", d["defender_took"])):
        if took:
            out.append(f"  - {who} losses (9.3): " + ", ".join(f"{x['unit']} {x['steps']} step(s)" for x in took) + ".")
    return out


def _retreat_line(e: Event) -> list[str]:
    d = e.data
    who = ", ".join(d["units"])
    if d["eliminated"]:
        got = f" after {' -> '.join(d['path'])}" if d["path"] else ""
        return [f"- Retreat: {who} cannot retreat {d['needed']} hex(es) from {d['start']}{got} and is eliminated (9.42, A-46)."]
    steps = ", ".join(f"{h} (priority {p})" for h, p in zip(d["path"], d["priorities"], strict=False))
    how = "each hex farther from the enemy where possible (A-45)" if d.get("farther") == "general" else "the priorities of 9.41"
    return [f"- Retreat: {who} retreat {d['needed']} hex(es) from {d['start']}: {steps}; {how} (9.41)."]


def _advance_line(e: Event) -> list[str]:
    d = e.data
    out = [f"- Advance after combat from {d['target']} (9.5): up to {d['distance']} hex(es) along {' -> '.join(d['path'])} (9.51)."]
    for m in d["units"]:
        where = " -> ".join(m["path"]) if m["path"] else "stays"
        out.append(f"  - {m['unit']}: {where}" + (f"; stopped: {m['why']}" if m["why"] else "") + ".")
    return out


def _isolation(e: Event) -> list[str]:
    d = e.data
    rolls = ", ".join(f"{r['unit']} rolls {r['die']}" for r in d["rolls"])
    who = ", ".join(d["isolated"]) or "nobody"
    return [f"- Isolation at {d['target']} (7.71): {rolls} (1-3 isolates, A-32 '{d['reading']}'): {who} isolated."]


def _recovery(e: Event) -> list[str]:
    d = e.data
    ok = d["die"] < d["morale"]
    return [f"- Recovery of {d['unit']} next to the enemy (13.31): die {d['die']} "
            f"{'<' if ok else '>='} morale {d['morale']}: {d['was']} -> {d['now'] if ok else d['was']} (13.32)."]


def _skipped(e: Event) -> list[str]:
    return [f"- Combat at {e.data['target']} not fought: {e.data['why']} ({e.rule})."]


def _dsupport(e: Event) -> list[str]:
    s = e.data["support"]
    text = "; ".join(f"{t}: {', '.join(us)}" for t, us in s.items()) or "none"
    return [f"- {str(e.data['side']).capitalize()} defensive support, allocated in secret (9.11, A-12): {text}."]


def _removed(e: Event) -> list[str]:
    return [f"- {e.data['unit']}'s support of {e.data['target']} is removed: an advancing unit is in ZOC next to it (11.4)."]


def _isolated(e: Event) -> list[str]:
    return [f"- {e.data['unit']} is isolated: {e.data['why']} ({e.rule})."]


def _support_opened(e: Event) -> list[str]:
    given = "; ".join(f"{t}: {', '.join(us) or 'none'}" for t, us in e.data["support"].items()) or "none"
    return [f"- {str(e.data['side']).capitalize()}'s attack support, committed in secret with its attacks and opened now "
            f"that the defender has allocated his ({e.rule}, 9.11, A-12): {given}."]


RENDER = {"support-opened": _support_opened, "combat": _combat, "losses": _losses, "retreat": _retreat_line, "advance": _advance_line,
          "isolation-roll": _isolation, "recovery-roll": _recovery, "combat-skipped": _skipped,
          "defensive-support": _dsupport, "support-removed": _removed, "isolated": _isolated}
