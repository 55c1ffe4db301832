"""The attack orders of a prepared-assault phase: which attacks may be made (14.1-14.6), their
conditions on earlier results (14.5), who may not attack or not together (5.3, 7.2-7.4; 10.1 through
the context's hooks).
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.errors import Place, Problem

from ...orders import Attack
from ...sequence import other
from ..allies import (
    AXIS_ALLIES,
    COUNTRY_ADJECTIVES,
    COUNTRY_NAMES,
    GERMAN_LIKE,
    HUNGARY_ROMANIA,
    on_north_map,
)
from ..arko import arko_supporting, is_arko
from ..context import Ctx
from ..hedgehogs import in_hedgehog
from ..movement import STATIONARY_WHY, stationary
from ..places import path_of, problem, under
from ..weather import weather_at
from .losses import LOSS_POLICIES


def static_attack_problems(ctx: Ctx, attacks: Sequence[Attack]) -> list[Problem]:
    """Legality of the attack list at the start of the prepared-assault phase (14.1-14.6)."""
    problems: list[Problem] = []
    used: dict[str, int] = {}
    targets: dict[str, int] = {}
    side = ctx.side
    for i, a in enumerate(attacks):
        where = path_of("attack", i)
        t = ctx.sc.map.canonical(a.target)
        if t is None:
            problems.append(problem(where, f"target '{a.target}' is not a hex of the map", "14.3"))
            continue
        if not ctx.occupants(t, other(side)):
            own = ctx.occupants(t, side)
            problems.append(problem(where, f"{t} holds your own units ({', '.join(own)}), no enemy unit to attack" if own
                                    else f"{t} holds no enemy unit to attack", "14.1",
                                    "The target is the enemy's hex, next to the attacking units' hexes." if own else ""))
        if t in targets:
            problems.append(problem(where, f"{t} is already attacked by attack[{targets[t]}]; a unit may be attacked once per combat phase", "14.4"))
        targets.setdefault(t, i)
        units = list(a.units)
        if not units:
            problems.append(problem(where, "no attacking units", "14.3"))
        elif ctx.options.get("arko") and all(u in ctx.units and is_arko(ctx, u) for u in units):
            problems.append(problem(where, "the ArKo never attacks on its own", "14.41"))
        for key, named in (("losses", a.losses), ("advance", a.advance)):  # Ambiguity 49: an ArKo that only supports
            for u in arko_supporting(ctx, [u for u in named if u in ctx.units and u in units]):
                problems.append(problem(under(where, key), f"{u} only supports the attack (option arko_participates = false): "
                                        "it " + ("takes no loss" if key == "losses" else "does not advance"), "14.41"))
        for u in units:
            if u not in ctx.units:
                problems.append(problem(where, f"unknown unit '{u}'", "14.3"))
                continue
            if ctx.spec(u).side == side and ctx.on_map(u) and in_hedgehog(ctx, ctx.at(u)):
                problems.append(problem(where, f"{u} is in the hedgehog {ctx.at(u)}; units in a hedgehog may not attack", "14.40"))
                continue
            if ctx.spec(u).side != side:
                problems.append(problem(where, f"{u} is not a {side} unit", "14.1"))
                continue
            if not ctx.on_map(u):
                problems.append(problem(where, f"{u} is not on the map", "14.1"))
                continue
            if stationary(ctx, u):  # 8.20, 9.18
                problems.append(problem(where, f"{u} {STATIONARY_WHY[stationary(ctx, u)]}: it may not attack",
                                        stationary(ctx, u)))
                continue
            if u in used:
                problems.append(problem(where, f"{u} already attacks in attack[{used[u]}]; a unit attacks at most once per combat phase", "14.4"))
            used.setdefault(u, i)
            h = ctx.at(u)
            if h == t:  # the target is the unit's own hex: said once, by the target's problem above
                continue
            if t not in ctx.sc.map.neighbours(h):
                problems.append(problem(where, f"{u} in {h} is not adjacent to {t}", "14.3"))
                continue
            feats = ctx.sc.map.border_features(h, t)
            for feat in sorted(feats & {"sea", "lake"}):
                # 17.9: all-sea (12.14) and all-lake (13.7) hexsides are prohibited; cite the
                # chart's rule for the feature, as movement does. In snow a lake hexside may be
                # crossed by movement, but still not attacked across (13.7).
                rule = str(ctx.sc.charts.hexsides.get(feat, {}).get("rule", "12.14"))
                snow = feat == "lake" and weather_at(ctx, t) == "S"
                problems.append(problem(where, f"{u} cannot attack across the all-{feat} hexside {h}-{t}"
                                               + (" (not even in snow, when it may be crossed)" if snow else ""),
                                        "13.7" if snow else rule))
                break
        own = [u for u in dict.fromkeys(units) if u in ctx.units and ctx.spec(u).side == side and ctx.on_map(u)]
        problems += attack_restriction_problems(ctx, where, t, own)  # 5.3, 7.2-7.4
        for key, named in (("losses", a.losses), ("advance", a.advance)):
            for u in named:
                if u not in units:
                    problems.append(problem(under(where, key), f"{u} is not one of this attack's units", "14.35" if key == "losses" else "14.39"))
        listed = list(a.losses)
        for u in dict.fromkeys(listed):
            if u in units and u in ctx.units and listed.count(u) > ctx.steps(u):
                problems.append(problem(under(where, "losses"), f"{u} is listed {listed.count(u)} times but has "
                                        f"{ctx.steps(u)} step(s); one entry per step it may lose", "14.35"))
        pol = a.loss_policy
        if pol is not None and pol not in LOSS_POLICIES:
            problems.append(problem(under(where, "loss_policy"), f"'{pol}' is not one of {', '.join(LOSS_POLICIES)}", "14.35"))
        for key, hexes in a.conditions():
            for j, raw in enumerate(hexes):
                if ctx.sc.map.canonical(raw) is None:
                    problems.append(problem(under(where, key, j), f"'{raw}' is not a hex of the map", "14.5"))
    return problems


def attack_condition(ctx: Ctx, a: Attack) -> str:
    """14.5 (digest F.0): attacks need not be declared in advance and each is resolved before the
    next begins, so an attack order may depend on the results of those before it: `if_cleared`
    lists hexes that must hold no enemy unit by then, `if_held` hexes that must still hold one.
    Never a condition on what a combat reveals (14.7: the attack is ordered before its odds are
    computed). Returns why the attack is not made, or ""."""
    enemy = other(ctx.side)
    for raw in a.if_cleared:
        h = ctx.sc.map.canonical(raw)
        if h is not None and ctx.occupants(h, enemy):
            return f"its condition: {h} is not cleared (if_cleared)"
    for raw in a.if_held:
        h = ctx.sc.map.canonical(raw)
        if h is not None and not ctx.occupants(h, enemy):
            return f"its condition: {h} holds no enemy unit any more (if_held)"
    return ""


def phase_origin(ctx: Ctx, unit: str) -> str:
    """Where a unit began this movement phase: the start of its first move (12.1), else its hex."""
    for e in ctx.events:
        if e.kind == "move" and unit in e.data["units"]:
            return str(e.data["from"])
    return ctx.at(unit)


def gt1_barred(ctx: Ctx, unit: str) -> str:
    """5.3 (option gt1_restrictions): why a German-side unit may not attack on GT1, or "": it set up
    in the Hungarian or Romanian ZOMO (its scenario set-up hex; for a position without a set-up list,
    the hex where it began the GT1 movement phase); Ambiguity 10 (option gt1_no_attack_from =
    "hungary-romania"): nor may any unit attacking from a hex of Hungary or Romania, such as units
    that entered from the South OKH area."""
    hexes = ctx.sc.map.hexes
    setup = dict(ctx.sc.setup).get(unit)
    if setup is None and unit not in {r for _, r, _ in ctx.sc.reinforcements}:
        setup = phase_origin(ctx, unit)
    if setup is not None and setup in hexes and hexes[setup].zomo and hexes[setup].country in HUNGARY_ROMANIA:
        return f"set up in the {COUNTRY_ADJECTIVES[hexes[setup].country]} ZOMO ({setup})"
    here = hexes[ctx.at(unit)]
    if ctx.options.get("gt1_no_attack_from", "hungary-romania") == "hungary-romania" and here.country in HUNGARY_ROMANIA:
        return f"attacks from {COUNTRY_NAMES[here.country]} ({here.id}; Ambiguity 10)"
    return ""


def attack_restriction_problems(ctx: Ctx, where: Place, target: str, units: list[str]) -> list[Problem]:
    """Who may not attack, or not together: with the option axis_allies, Italian, Romanian and
    Hungarian units not into the North map (7.2-7.4), Italians and Romanians not together with
    non-German Axis units (7.2, 7.3; French, Croatian and Spanish units count as German, 7.5), nor
    the Hungarians (7.4, Ambiguity 13: option hungarian_joint_attack); with the option
    gt1_restrictions on GT1, no Soviet attack into Hungary or Romania and no attack by German-side
    units set up in their ZOMO (5.3; gt1_barred); with the option flak, no Flak unit (10.1)."""
    problems: list[Problem] = ctx.hooks.attack_barred(ctx, where, units)  # 10.1: Flak (air.py)
    specs = {u: ctx.spec(u) for u in units}
    if ctx.options.get("axis_allies", False):
        for u, sp in specs.items():
            if sp.side == "german" and sp.nat in AXIS_ALLIES and on_north_map(target):
                problems.append(problem(where, f"{u} is {sp.nat.capitalize()} and may not attack into the North map ({target})",
                                        AXIS_ALLIES[sp.nat]))
        for nat, rule in AXIS_ALLIES.items():
            if nat == "hungarian" and ctx.options.get("hungarian_joint_attack", "may-not") == "may":
                continue
            mine = sorted(u for u, sp in specs.items() if sp.nat == nat)
            others = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.nat not in GERMAN_LIKE | {nat})
            if mine and others:
                problems.append(problem(where, f"{nat.capitalize()} units ({', '.join(mine)}) may not attack together with "
                                               f"non-German Axis units ({', '.join(others)})", rule))
    if ctx.options.get("gt1_restrictions", False) and ctx.turn == 1:
        country = ctx.sc.map.hexes[target].country
        if ctx.side == "soviet" and country in HUNGARY_ROMANIA:
            problems.append(problem(where, f"on GT1 no Soviet unit may attack into {COUNTRY_NAMES[country]} ({target})",
                                    "5.3"))
        for u, sp in specs.items():
            why = gt1_barred(ctx, u) if sp.side == "german" else ""
            if why:
                problems.append(problem(where, f"{u} {why}: it may not attack on GT1", "5.3"))
    return problems
