"""The Axis allies and the first game turn (7.1-7.5, 8.5, 5.3; options ``axis_allies`` and
``gt1_restrictions``): the nationalities that may not stack together or go north (7.1-7.4), the
countries Romanian and Hungarian units never enter (8.5), and the hexes no Soviet unit enters on GT1
(5.3).
"""

from __future__ import annotations

from .context import Ctx

GERMAN_LIKE = frozenset({"german", "croatian", "french", "spanish"})  # 7.5: they count as German
AXIS_ALLIES = {"italian": "7.2", "romanian": "7.3", "hungarian": "7.4"}  # 7.1: never together
HUNGARY_ROMANIA = frozenset({"hungary", "romania"})  # 5.3, 8.5
BARRED_COUNTRY = {"romanian": "hungary", "hungarian": "romania"}  # 8.5
COUNTRY_NAMES = {"hungary": "Hungary", "romania": "Romania"}
COUNTRY_ADJECTIVES = {"hungary": "Hungarian", "romania": "Romanian"}


def on_north_map(hex_id: str) -> bool:
    """7.2-7.4: a hex of the North map; a canonical id of the 2.4 join row (26N = 00S) ends in N,
    so that row counts as North."""
    return hex_id.endswith("N")


def entry_problems(ctx: Ctx, unit: str, hex_id: str) -> list[tuple[str, str]]:
    """Hexes a unit may not enter, as (rule, text): with the option axis_allies Italian, Romanian
    and Hungarian units not onto the North map (7.2-7.4), Romanian units not into Hungary and
    Hungarian units not into Romania (8.5); with the option gt1_restrictions no Soviet unit into
    Hungary or Romania on GT1 (5.3)."""
    spec = ctx.spec(unit)
    country = ctx.sc.map.hexes[hex_id].country
    out: list[tuple[str, str]] = []
    if ctx.options.get("axis_allies", False) and spec.side == "german":
        if spec.nat in AXIS_ALLIES and on_north_map(hex_id):
            out.append((AXIS_ALLIES[spec.nat], f"{unit} is {spec.nat.capitalize()} and may not move onto the North map ({hex_id})"))
        if BARRED_COUNTRY.get(spec.nat) == country:
            out.append(("8.5", f"{unit} is {spec.nat.capitalize()} and may never enter {COUNTRY_NAMES[country]} ({hex_id})"))
    if ctx.options.get("gt1_restrictions", False) and ctx.turn == 1 and spec.side == "soviet" \
            and country in HUNGARY_ROMANIA:
        out.append(("5.3", f"on GT1 no Soviet unit may move into {COUNTRY_NAMES[country]} ({hex_id})"))
    return out
