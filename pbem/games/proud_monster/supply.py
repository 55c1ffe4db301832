"""Proud Monster supply (9.1-9.15; option ``supply``, full game): supply sources, supply lines, the
supply state of each unit, and the effects of being out of supply (OOS).

A supply line (9.4) is a chain of hexes of any length, with no MP cost, from the unit back to a
source of its side (9.10-9.12). It may not enter an enemy-occupied hex (9.4; there are no zones of
control), an all-sea hex or cross an all-sea hexside (9.4), except the Sivash and Kerch hexsides
(9.15); Soviet lines cross all-lake hexes and hexsides in any weather, German-side lines only in
snow (9.14); German-side lines never enter an intact fort or heavy fort (14.29). A unit on a working
source is in supply. The search runs from the sources outward, once per kind of line.

Effects (9.7-9.8): an OOS unit's MF is halved (rounded up) for a movement phase when it is OOS at
the start of its move; its combat factor is halved when it is OOS at the start of a combat, the
factors being halved in one combat added up and halved once (rounded up, minimum 1; Ambiguity 30:
with another halving, such as armor into swamp, the halvings multiply). In a mobile assault the
defender is checked at the moment of combat, the attackers keep the state they had at the start of
their move (15.4).

Not implemented (coverage.toml): attenuated supply and the GAS line (9.3, 9.6; the GAS line's hexes
and the GAST are missing), air supply (9.18), the Pause (9.19), supply concentration (9.20),
Oranienbaum and Leningrad lake supply (9.13, 9.16), the Black Sea ports (9.17).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .rules import OFF_MAP, Ctx, intact_fort, weather_at, zone_weather
from .sequence import other

GERMAN_NOT_SOURCES = frozenset({"1913N", "2013N", "2014N"})  # 9.11
SOVIET_SOURCE_COLUMN = "60"  # 9.10: the east map edge, 60xxN and 60xxS
OWN_ZOMO_ONLY = {"romanian": "romania", "hungarian": "hungary"}  # 9.11
ZONES = ("NZ", "SZ")  # 13.2


def enabled(ctx: Ctx) -> bool:
    return bool(ctx.options.get("supply", False))


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
    country. 9.12: a source serves only its own side (a captured one is not the captor's)."""
    h = ctx.sc.map.hexes[hex_id]
    if h.water:
        return False
    if kind == "soviet":
        return h.supply == "soviet" or (h.supply == "" and hex_id.startswith(SOVIET_SOURCE_COLUMN))
    german = h.supply == "german" or (h.supply == "" and h.zomo and hex_id not in GERMAN_NOT_SOURCES)
    if kind == "german":
        return german
    return german and h.country == kind


def _side(kind: str) -> str:
    return "soviet" if kind == "soviet" else "german"


def _enemy_hexes(ctx: Ctx, side: str) -> set[str]:
    return {str(s["at"]) for u, s in ctx.units.items() if s["at"] not in OFF_MAP and ctx.spec(u).side == other(side)}


def _side_open(ctx: Ctx, a: str, b: str, side: str) -> bool:
    """A hexside a line may cross from ``b`` toward the source side ``a`` (9.4, 9.14, 9.15): not
    all-sea (the Sivash and Kerch hexsides are features of their own, 9.15); all-lake only for
    Soviet lines or in snow in the zone of the hex toward the source."""
    feats = ctx.sc.map.side_features(a, b)
    if "sea" in feats:
        return False
    return not ("lake" in feats and side != "soviet" and weather_at(ctx, a) != "S")


class _MapLines:
    """What a supply search needs from the map alone, worked out once per scenario's data: the
    sources of each kind of line (9.10-9.12), the all-sea and all-lake hexes, and each hex's
    neighbours with the features of the hexside between them."""

    def __init__(self, ctx: Ctx) -> None:
        m = ctx.sc.map
        hexes = sorted(m.hexes)
        self.sources = {kind: [h for h in hexes if is_source(ctx, h, kind)]
                        for kind in ("soviet", "german", *OWN_ZOMO_ONLY.values())}
        self.sea = frozenset(h for h in hexes if m.hexes[h].terrain == "sea")
        self.lakes = tuple(h for h in hexes if m.hexes[h].terrain == "lake")
        self.forts = tuple(h for h in hexes if m.hexes[h].fort)
        self.links = {h: tuple((n, m.side_features(h, n)) for n in m.neighbours(h)) for h in hexes}


_MAP_LINES: dict[str, _MapLines] = {}  # by the scenario's data digest


def _map_lines(ctx: Ctx) -> _MapLines:
    lines = _MAP_LINES.get(ctx.sc.digest)
    if lines is None:
        if len(_MAP_LINES) >= 16:
            _MAP_LINES.clear()
        lines = _MAP_LINES[ctx.sc.digest] = _MapLines(ctx)
    return lines


def supplied_hexes(ctx: Ctx, kind: str) -> frozenset[str]:
    """Every hex from which a line of this kind reaches a working source (9.4-9.15): the hexes
    reached from the sources not enemy-occupied, through hexes and hexsides a line may use.

    The hexes a line may not enter are gathered first; the result depends only on them
    and on the weather (all-lake hexsides), so it is kept for the transition (``ctx.supply_cache``)
    and worked out again only when one of them changes."""
    side = _side(kind)
    enemy = _enemy_hexes(ctx, side)
    lines = _map_lines(ctx)
    # the hexes a line may not enter: enemy-occupied (9.4), all-sea (9.4), for German-side lines
    # all-lake except in snow (9.14) and an intact fort or heavy fort (14.29)
    closed = set(enemy) | lines.sea
    if side != "soviet":
        closed.update(h for h in lines.lakes if weather_at(ctx, h) != "S")
        closed.update(h for h in lines.forts if intact_fort(ctx, h))
    weather = tuple(zone_weather(ctx, z) for z in ZONES)
    key = (kind, frozenset(closed), weather)
    found = ctx.supply_cache.get(key)
    if found is not None:
        return found
    start = [h for h in lines.sources[kind] if h not in closed]
    seen = set(start)
    queue = deque(start)
    while queue:
        here = queue.popleft()
        for n, feats in lines.links[here]:
            if n in seen or n in closed:
                continue
            if feats and not _side_open(ctx, here, n, side):
                continue
            seen.add(n)
            queue.append(n)
    found = ctx.supply_cache[key] = frozenset(seen)
    return found


def out_of_supply(ctx: Ctx, units: Iterable[str]) -> list[str]:
    """The units (on the map) that cannot trace a supply line now (9.2, 9.3); none with the option off."""
    if not enabled(ctx):
        return []
    reach: dict[str, frozenset[str]] = {}
    out = []
    for u in units:
        if not ctx.on_map(u):
            continue
        kind = line_kind(ctx, u)
        if kind not in reach:
            reach[kind] = supplied_hexes(ctx, kind)
        if ctx.at(u) not in reach[kind]:
            out.append(u)
    return out


def check_move(ctx: Ctx, index: int, units: list[str], moved: set[str]) -> None:
    """9.8: supply is checked at the start of each unit's or stack's move; a unit OOS then has its
    MF halved for the movement phase (``ctx.move_oos``, read by movement_allowance). A unit that
    already moved this phase (a stack continuing after a split, 12.6) keeps its first check."""
    if not enabled(ctx):
        return
    todo = [u for u in units if u not in moved and u not in ctx.move_oos]
    oos = set(out_of_supply(ctx, todo))
    for u in todo:
        ctx.move_oos[u] = u in oos
    if oos:
        ctx.emit("supply", "9.8", when="move", index=index, units=sorted(oos),
                 mf={u: [ctx.mf(u), halve(ctx.mf(u))] for u in sorted(oos)})


def halve(value: int) -> int:
    """9.7: halved, fractions rounded up (half of 5 is 3)."""
    return -(-value // 2)


def combat_oos(ctx: Ctx, index: int, attackers: list[str], defenders: list[str], what: str) -> set[str]:
    """9.8: at the start of each combat, the participants of both sides are checked; the OOS ones
    have their combat factors halved (9.7). Reported as a ``supply`` event."""
    if not enabled(ctx):
        return set()
    att = out_of_supply(ctx, attackers)
    dfn = out_of_supply(ctx, defenders)
    if att or dfn:
        ctx.emit("supply", "9.8", when=what, index=index, attackers=att, defenders=dfn)
    return set(att) | set(dfn)


def ma_oos(ctx: Ctx, index: int, attackers: list[str], defenders: list[str]) -> set[str]:
    """15.4: in an MA the defender's supply is checked at the moment of combat; the attackers keep
    the state they had at the start of their move (check_move)."""
    if not enabled(ctx):
        return set()
    att = sorted(u for u in attackers if ctx.move_oos.get(u))
    dfn = out_of_supply(ctx, defenders)
    if att or dfn:
        ctx.emit("supply", "15.4", when="mobile assault", index=index, attackers=att, defenders=dfn)
    return set(att) | set(dfn)


def markers(ctx: Ctx) -> None:
    """OOS markers of the position (option supply): the units that cannot trace a line at the end
    of the adjudication, for the reports and pictures; the rules check supply when they need it."""
    if enabled(ctx):
        ctx.position["oos"] = sorted(out_of_supply(ctx, sorted(ctx.units)))


SUPPLY_STATES = ("supplied", "attenuated", "oos")  # 9.2, 9.3


def supply_state(ctx: Ctx, unit: str) -> str:
    """The supply state of a unit on the map now, for the rules that ask for it (8.11, 8.14, 8.16,
    8.20, ...): "supplied" or "oos" (9.2; a German-side unit also 9.3, without the GAS line, which
    the map does not give, every German unit that traces a line counts as in supply). With the
    option supply off (the basic game) every unit counts as supplied."""
    return "oos" if out_of_supply(ctx, [unit]) else "supplied"
