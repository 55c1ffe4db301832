"""Column shifts (14.11): terrain (14.16), settlements (14.22-14.23), rivers and straits (14.19-14.20,
5.5, Ambiguity 40), works (14.27-14.28) and hedgehogs (14.40), the concentric assault (14.14,
Ambiguity 39) and the Soviet's snow shift (13.7).
"""

from __future__ import annotations

from pbem.mechanics.odds import Shift

from ..context import Ctx
from ..hedgehogs import in_hedgehog
from ..weather import combat_terrain, water_features, weather_at
from ..works import intact_fort


def works_shifts(ctx: Ctx, target: str) -> list[Shift]:
    """14.27/14.28: Soviet units defending an intact fort get 1L, an intact heavy fort 2L; 14.40:
    a German hedgehog gives the defender 2L. Both add to every other modifier of the hex."""
    shifts: list[Shift] = []
    kind = intact_fort(ctx, target)
    if ctx.side == "german" and kind == "fort":
        shifts.append(Shift(-1, "14.27", "Soviet defender in an intact fort"))
    elif ctx.side == "german" and kind == "heavy":
        shifts.append(Shift(-2, "14.28", "Soviet defender in an intact heavy fort"))
    if ctx.side == "soviet" and in_hedgehog(ctx, target):
        shifts.append(Shift(-2, "14.40", "German hedgehog (no concentric assault against it, 14.14)"))
    return shifts


def attack_shifts(ctx: Ctx, units: list[str], target: str) -> list[Shift]:
    """Column shifts of 14.11: terrain (14.16), settlements (14.22-14.23), rivers (14.19, 5.5),
    Sivash/Kerch (14.20), mixed water (Ambiguity 40); the weather of the defender's zone (Ambiguity
    35): no river in F and S, no Sivash/Kerch in S, 1R for every Soviet prepared assault in S (13.7)."""
    shifts: list[Shift] = []
    h = ctx.sc.map.hexes[target]
    terrain = combat_terrain(ctx, target)  # 12.10: every city hex counts as clear
    row = ctx.sc.charts.terrain[terrain]
    if int(row.get("shift", 0)):
        shifts.append(Shift(int(row["shift"]), "14.16", f"defender in {terrain}"))
    if h.settlement:
        row = ctx.sc.charts.settlements[h.settlement]
        if int(row.get("shift", 0)):
            shifts.append(Shift(int(row["shift"]), str(row.get("rule", "")), f"defender in a {h.settlement.replace('_', ' ')}"))
    shifts += works_shifts(ctx, target)  # 14.27, 14.28, 14.40
    if ctx.options["concentric_assault"] and concentric(ctx, units, target) \
            and not (ctx.side == "soviet" and in_hedgehog(ctx, target)):  # 14.14: not against a hedgehog
        shifts.append(Shift(1, "14.14", "concentric assault"))
    kinds = []
    for u in units:
        water = water_features(ctx, ctx.at(u), target)
        if "river" in water and ctx.turn == 1 and ctx.spec(u).side == "german":
            water = water - {"river"}  # 5.5: German-side units ignore rivers on GT1
        kinds.append(water)
    if kinds and all(kinds):
        if all("river" in k for k in kinds):
            shifts.append(Shift(-1, "14.19", "every attacker attacks across a river"))
        elif all(k & {"sivash", "kerch"} for k in kinds):
            shifts.append(Shift(-2, "14.20", "every attacker attacks across the Sivash/Kerch"))
        elif ctx.options["mixed_water_shift"] == "1L":
            shifts.append(Shift(-1, "14.19", "every attacker across water of mixed types (Ambiguity 40)"))
    if ctx.side == "soviet" and weather_at(ctx, target) == "S":
        shifts.append(Shift(1, "13.7", "snow: every Soviet prepared assault"))
    return shifts


def concentric(ctx: Ctx, units: list[str], target: str) -> bool:
    """14.14: attacked from two opposite hexes, three alternating hexes, or four or more hexes
    (Ambiguity 39: number the six neighbours 0-5). Option concentric_three: "non-contiguous" (the
    digest's reading) takes the sets as what the attacking hexes must include, so any three but
    three contiguous ones qualify (three non-contiguous hexes hold an opposite pair or are
    alternating); "alternating" takes them as the exact pictures, so from exactly three hexes only
    {0, 2, 4} and {1, 3, 5} qualify, and an opposite pair with a third hex beside one of them does not."""
    dirs = {unit_direction(ctx, target, ctx.at(u)) for u in units}
    dirs.discard(None)
    if len(dirs) >= 4:
        return True
    if dirs in ({0, 2, 4}, {1, 3, 5}):
        return True
    if ctx.options.get("concentric_three", "non-contiguous") == "alternating" and len(dirs) != 2:
        return False
    return any(d is not None and (d + 3) % 6 in dirs for d in dirs)


def unit_direction(ctx: Ctx, a: str, b: str) -> int | None:
    return ctx.sc.map.direction(a, b)
