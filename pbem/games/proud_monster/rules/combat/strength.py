"""Combat strength (14.8, 14.12): the attack and defense totals with their halvings (9.7 out of
supply, 10.1 Flak through the context's hooks, 14.18 armor into swamp; Ambiguity 30), 14.17 mountain
infantry, 14.20 armor across the straits and 14.30 the Stalin Line's +1.
"""

from __future__ import annotations

from collections.abc import Collection
from fractions import Fraction
from typing import Any

from pbem.mechanics.odds import halve_round_up

from ...data import ARMOR
from ..context import Ctx
from ..weather import WEATHER_NAMES, WEATHER_RULES, combat_terrain, water_features, weather_at
from ..works import intact_stalin


def defense_rows(ctx: Ctx, defenders: list[str], target: str, oos: Collection[str] = frozenset()) -> list[dict[str, Any]]:
    """Defense factors (14.8); 14.30: each Soviet unit defending an intact Stalin Line hex adds 1.
    9.7 (option supply): the ``oos`` units are marked, halved together by defense_total."""
    stalin = intact_stalin(ctx, target)
    rows: list[dict[str, Any]] = []
    for u in defenders:
        d = ctx.factors(u)[1]
        if stalin and ctx.spec(u).side == "soviet":
            rows.append({"unit": u, "factor": d + 1, "printed": d, "notes": ["Stalin Line +1 (14.30)"]})
        else:
            rows.append({"unit": u, "factor": d})
        if u in oos:
            rows[-1]["oos"] = True
            rows[-1].setdefault("notes", []).append("out of supply: halved (9.7)")
    return rows


def defense_total(rows: list[dict[str, Any]]) -> int:
    """The defense total (14.8): the factors of units out of supply are added up and halved once,
    rounded up, minimum 1 (9.7, 14.12)."""
    plain = sum(int(r["factor"]) for r in rows if not r.get("oos"))
    halved = sum(int(r["factor"]) for r in rows if r.get("oos"))
    # 14.12: a reduced stack never goes below 1 (rounding up already ensures it; kept explicit).
    return plain + (max(halve_round_up(halved), 1) if any(r.get("oos") for r in rows) else 0)


def attack_strength(ctx: Ctx, units: list[str], target: str,
                    oos: Collection[str] = frozenset()) -> tuple[int, list[dict[str, Any]]]:
    """Attack total (14.8) with 14.18 (armor into swamp halved) and 14.20 (armor across straits = 1);
    in F and S swamp counts as clear (13.6, 13.7) and in S the Sivash and Kerch are ignored (13.7).
    9.7 (option supply): the ``oos`` units' factors are halved too; 10.1 (option flak): so are Soviet
    tank units attacking a hex where German Flak works (air.flak_halves); the halved factors are added
    up and rounded up once, minimum 1, a unit halved twice counting a quarter (14.12, Ambiguity 30).
    With the option halving_rounding = "each", each halving is a reduction of its own (14.12 read
    reduction by reduction): the units under the same halvings are added up and halved, rounded up,
    apart from the others (halving_groups). A unit halved twice counts the same either way (half of
    a rounded half is a rounded quarter); the readings part when different halvings fall on
    different units."""
    rows = []
    plain = 0
    halved = Fraction(0)
    groups: dict[tuple[str, ...], list[tuple[dict[str, Any], int]]] = {}  # Ambiguity 30: by the halvings
    swamp = combat_terrain(ctx, target) == "swamp"
    flak = ctx.hooks.flak(ctx, target)  # 10.1 (air.py)
    for u in units:
        a = ctx.factors(u)[0]
        spec = ctx.spec(u)
        feats = water_features(ctx, ctx.at(u), target)
        row: dict[str, Any] = {"unit": u, "hex": ctx.at(u), "printed": a, "factor": a, "notes": []}
        if ctx.options["mountain_infantry"] and spec.type == "mountain" and ctx.sc.map.hexes[target].terrain == "hills" \
                and ctx.sc.map.hexes[target].settlement != "city":
            a = ctx.factors(u)[1]  # 14.17: mountain infantry attacking into hills use their defense factor
            row["factor"] = a
            row["notes"].append("mountain infantry into hills: defense factor (14.17)")
        cut = Fraction(1, 2) if u in oos else Fraction(1)
        cuts: list[str] = []  # the halvings of this unit (Ambiguity 30)
        if u in oos:
            row["notes"].append("out of supply: halved (9.7)")
            cuts.append("9.7")
        if flak and spec.side == "soviet" and spec.type == "tank":
            cut /= 2
            row["notes"].append(f"tank attacking Flak ({', '.join(flak)}): halved (10.1)")
            cuts.append("10.1")
        base = a
        if spec.type in ARMOR and feats & {"sivash", "kerch"}:
            row["factor"] = 1
            row["notes"].append("armor across Sivash/Kerch: 1 (14.20)")
            base = 1
            if cut != 1:
                halved += cut
            else:
                plain += 1
        elif spec.type in ARMOR and swamp:
            row["notes"].append("armor attacking into swamp: halved (14.18)")
            halved += a * cut / 2
            cuts.append("14.18")
        else:
            if spec.type in ARMOR and ctx.sc.map.hexes[target].terrain == "swamp":
                w = weather_at(ctx, target)
                row["notes"].append(f"not halved: swamp counts as clear in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
            if cut != 1:
                halved += a * cut
            else:
                plain += a
        if cuts:
            groups.setdefault(tuple(sorted(cuts)), []).append((row, base))
        rows.append(row)
    if ctx.options.get("halving_rounding", "once") == "each":
        return plain + halving_groups(groups), rows
    # 14.12: the reduced factors, added up and rounded up once, never go below 1 (Ambiguity 30).
    total = plain + (max(-(-halved.numerator // halved.denominator), 1) if halved else 0)
    return total, rows


def halving_groups(groups: dict[tuple[str, ...], list[tuple[dict[str, Any], int]]]) -> int:
    """Ambiguity 30, option halving_rounding = "each": each halving rounded up on its own. The units
    under the same halvings (9.7 out of supply, 10.1 Flak, 14.18 armor into swamp) form a group:
    their factors are added up and halved once per halving, rounded up each time (14.12: one
    reduction on several units is made once on their sum), at least 1 (a group of factor 0 adds
    0); the groups are then added.
    The last row of each group says so. Returns the sum of the groups."""
    total = 0
    for cuts, members in sorted(groups.items()):
        value = sum(b for _, b in members)
        start = value
        for _ in cuts:
            value = halve_round_up(value)
        value = max(value, 1) if start else 0  # a factor of 0 (the ArKo) is not reduced to 1
        total += value
        who = "+".join(r["unit"] for r, _ in members)
        members[-1][0]["notes"].append(
            f"{who}: {start} halved ({', '.join(cuts)}), rounded up apart from the other halvings: {value} "
            "(14.12, Ambiguity 30)")
    return total
