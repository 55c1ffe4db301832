"""Stacking (6.1-6.5): the stacking value of each unit (6.3-6.4, option ``stacking_details``; Ambiguity
12), the limits of a hex (6.1, 6.5) with the Axis allies' limits (7.1-7.3, allies.py), the check at
the end of each movement phase (6.2, Ambiguity 55) and the removal of an over-stacked hex's units
after a failed mobile assault (6.2, 15.6).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from pbem.errors import Problem
from pbem.mechanics.stacking import overstacked

from ..data import stacking_value
from ..orders import Standing
from ..sequence import other
from .allies import AXIS_ALLIES, GERMAN_LIKE
from .context import Ctx
from .places import at_hex, problem

CITY_STACKING_LIMIT = 10  # 6.5
SMALL_UNITS_CAP = 4  # 6.3: battalions and regiments in one hex when stacking is enforced
END_OF_MOVEMENT = "end of movement phase"  # 6.2: where the end-of-phase stacking problems are


def stacking_limit(ctx: Ctx, hex_id: str) -> int:
    """6.1: 5 units per hex; 6.5 (option stacking_details): 10 in a city hex, for both sides and only
    for units in the city."""
    if ctx.options.get("stacking_details", False) and ctx.sc.map.hexes[hex_id].settlement == "city":
        return CITY_STACKING_LIMIT
    return ctx.sc.charts.stacking_limit


def unit_stacking(ctx: Ctx, unit: str) -> Fraction:
    """A unit's stacking value: 1 (6.1), or the 6.3/6.4 value with the option stacking_details.

    Ambiguity 12 (7.3 with 6.3): Romanians stack "up to 5 units as defined in 6.3". The digest's
    reading (option romanian_stacking = "fractional", the default) gives a Romanian brigade 1/2 and a
    regiment or battalion 1/4 like every German-side unit; "per-counter" counts every Romanian
    counter as 1 unit, as 6.4 does for the Soviets (the 4-battalion cap of 6.3 still applies)."""
    spec = ctx.spec(unit)
    if spec.nat == "romanian" and ctx.options.get("romanian_stacking", "fractional") == "per-counter":
        return Fraction(1)
    return stacking_value(spec, bool(ctx.options.get("stacking_details", False)))


def _count(v: Fraction) -> str:
    whole, part = divmod(v, 1)
    return str(int(whole)) if not part else (f"{int(whole)} {part}" if whole else str(part))


def stack_problems(ctx: Ctx, hex_id: str, units: list[str]) -> list[tuple[str, str]]:
    """What is wrong with ``units`` (one side's) stacked in ``hex_id``, as (rule, text): the limit
    (6.1; 6.3/6.4 values and the 6.5 city limit with the option stacking_details), at most 4
    German-side battalions/regiments (6.3), and with the option axis_allies no two of Romanian,
    Hungarian and Italian units together (7.1) and at most one German unit (7.5: French, Croatian and
    Spanish ones included) with Italian (7.2) or Romanian (7.3) units."""
    out: list[tuple[str, str]] = []
    for o in overstacked([(hex_id, units)], lambda u: unit_stacking(ctx, u), lambda h: stacking_limit(ctx, h)):
        rule = "6.5" if o.limit == CITY_STACKING_LIMIT and o.limit != ctx.sc.charts.stacking_limit else "6.1"
        out.append((rule, f"{_count(o.value)} units; the limit is {o.limit}"))
    specs = {u: ctx.spec(u) for u in units}
    if ctx.options.get("stacking_details", False):
        small = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.size in ("III", "II"))
        if len(small) > SMALL_UNITS_CAP:
            out.append(("6.3", f"{len(small)} battalions/regiments ({', '.join(small)}); at most {SMALL_UNITS_CAP}"))
    if ctx.options.get("axis_allies", False):
        allies = sorted({sp.nat for sp in specs.values() if sp.side == "german" and sp.nat in AXIS_ALLIES})
        if len(allies) > 1:
            out.append(("7.1", f"{' and '.join(a.capitalize() for a in allies)} units together; Romanian, Hungarian and Italian units "
                               "may not stack with one another"))
        germans = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.nat in GERMAN_LIKE)
        for nat in ("italian", "romanian"):
            if nat in allies and len(germans) > 1:
                out.append((AXIS_ALLIES[nat], f"{len(germans)} German units ({', '.join(germans)}) with {nat.capitalize()} units; "
                                              "only one may stack with them"))
    return out


def remove_overstack(ctx: Ctx, side: str) -> None:
    """6.2: a hex over the limit at the end of a movement phase loses the minimum number of units,
    removed by the opposing player. Orders are rejected before the dice when they would end
    over-stacked (Ambiguity 55); this is reached only when a failed mobile assault sent its force
    back into a hex filled since (15.6). The opponent chooses by his standing instructions,
    committed before the dice: ``overstack_removal`` lists the enemy units he removes first, in
    order (overstack_choice). Among the removals of the fewest units that make the hex legal, the
    one that takes the units listed earliest is made; units he does not list go fewest steps first,
    then by id. There is no reply during movement (as for the losses of a mobile assault, 15.6)."""
    enemy = other(side)
    listed = list(Standing.parse(ctx.standing.get(enemy, {})).overstack_removal or ())
    for hex_id, units in sorted(ctx.stacks(side).items()):
        if not stack_problems(ctx, hex_id, units):
            continue
        gone = overstack_choice(ctx, hex_id, units, listed)
        for u in gone:
            ctx.units[u]["at"] = "dead"
            ctx.units[u]["steps"] = 0
        used = [u for u in gone if u in listed]
        ctx.emit("overstack-removal", "6.2", hex=hex_id, units=gone, by=enemy,
                 source=f"{enemy}'s standing instructions" if used else "fewest steps first")


def overstack_choice(ctx: Ctx, hex_id: str, units: list[str], listed: list[str]) -> list[str]:
    """6.2: the fewest units whose removal leaves ``hex_id`` within stacking (6.1, 6.3-6.5, 7.1-7.3);
    of those sets, the one ranked first by the opponent's list (each unit's place in it, units not
    listed after it by fewest steps, then id), compared unit by unit from the best-ranked one."""
    def rank(u: str) -> tuple[int, int, str]:
        return (listed.index(u) if u in listed else len(listed), ctx.steps(u), u)

    pool = sorted(units, key=rank)
    for k in range(1, len(pool) + 1):
        fits = [list(c) for c in combinations(pool, k)
                if not stack_problems(ctx, hex_id, [u for u in units if u not in c])]
        if fits:
            return min(fits, key=lambda c: [rank(u) for u in c])
    return pool


def check_stacking(ctx: Ctx, side: str, where: str, problems: list[Problem]) -> None:
    """6.2: stacking is enforced at the end of every movement phase (Ambiguity 55: reject); what is
    checked: stack_problems (6.1, 6.3-6.5, 7.1-7.3)."""
    for hex_id, units in ctx.stacks(side).items():
        for rule, text in stack_problems(ctx, hex_id, units):
            problems.append(problem(at_hex(hex_id), f"at the end of the movement phase {hex_id} would hold {text}", rule,
                                    "Move some units elsewhere.", where=where))
