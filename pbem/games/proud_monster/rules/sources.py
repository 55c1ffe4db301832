"""Supply sources (9.10-9.12): the hexes a supply line of each side, or of the Romanian and Hungarian
units, may be traced to. The supply rules (supply.py, option ``supply``) trace lines to them; the German
retreat (combat/retreat.py, 14.32) measures its distance to them whether or not the supply rules are on.
"""

from __future__ import annotations

from .context import Ctx

GERMAN_NOT_SOURCES = frozenset({"1913N", "2013N", "2014N"})  # 9.11
SOVIET_SOURCE_COLUMN = "60"  # 9.10: the east map edge, 60xxN and 60xxS
OWN_ZOMO_ONLY = {"romanian": "romania", "hungarian": "hungary"}  # 9.11


def line_kind(ctx: Ctx, unit: str) -> str:
    """Which sources a unit's line may reach (9.11-9.12): "soviet", "german" (German-nationality
    and other German-side units: every German source), "romania" or "hungary" (their own ZOMO)."""
    spec = ctx.spec(unit)
    if spec.side == "soviet":
        return "soviet"
    return OWN_ZOMO_ONLY.get(spec.nat, "german")


def is_source(ctx: Ctx, hex_id: str, kind: str) -> bool:
    """9.10: a Soviet source is a hex of the east edge (column 60) or a hex the map marks
    ``supply = "soviet"``; 9.11: a German source is a ZOMO hex other than 1913N, 2013N and 2014N,
    or a hex marked ``supply = "german"``; Romanian and Hungarian units use only those of their own
    country. 9.12: a source serves only its own side (a captured one is not the captor's). 9.17: a
    Black Sea port is no source (units outside may not trace to it)."""
    h = ctx.sc.map.hexes[hex_id]
    if h.water:
        return False
    if kind == "soviet":
        return h.supply == "soviet" or (h.supply == "" and hex_id.startswith(SOVIET_SOURCE_COLUMN))
    german = h.supply == "german" or (h.supply == "" and h.zomo and hex_id not in GERMAN_NOT_SOURCES)
    if kind == "german":
        return german
    return german and h.country == kind
