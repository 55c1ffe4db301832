"""Proud Monster supply (9.1-9.20, 17.10; option ``supply``, full game): supply sources, supply
lines, the supply state of each unit and its effects, and the German's supply measures.

A supply line (9.4) is a chain of hexes of any length, with no MP cost, from the unit back to a
source of its side (9.10-9.12). It may not enter an enemy-occupied hex (9.4; there are no zones of
control), an all-sea hex or cross an all-sea hexside (9.4), except the Sivash and Kerch hexsides
(9.15); Soviet lines cross all-lake hexes and hexsides in any weather, German-side lines only in
snow (9.14); German-side lines never enter an intact fort or heavy fort (14.29). A unit on a working
source is in supply. The search runs from the sources outward, once per kind of line.

States (supply_state): a Soviet unit is in supply, in lake supply (every line crosses an all-lake
hex or hexside, 9.16) or out of supply (OOS, 9.2); in a Black Sea port or the Southern Ports
Holding Box it is always in supply, and no line may be traced to a port from outside (9.17); in
Oranienbaum (4100N) it shares Leningrad's (4201N) state unless Leningrad's supply is cut (9.13). A
German-side unit that traces a line is in supply west of the GAS line and in attenuated supply (AS)
east of it (9.3; which hexes are east: data.gas_sides); one that cannot is air-supplied in a hex
with an air supply marker (9.18), else OOS.

Effects (9.7-9.8): an OOS unit's MF is halved (rounded up) for a movement phase when it is OOS at
the start of its move; its combat factor is halved when it is OOS at the start of a combat, the
factors being halved in one combat added up and halved once (rounded up, minimum 1; Ambiguity 30:
with another halving, such as armor into swamp, the halvings multiply). In a mobile assault the
defender is checked at the moment of combat, the attackers keep the state they had at the start of
their move (15.4). AS and air-supplied units keep their factors (an air-supplied mechanized unit
has MF 6, 9.18), but a German attack with an attacker in AS, or air-supplied east of the GAS line,
rolls on the GAST (17.10) as the last step before the CRT die, once per combat (9.6, Ambiguity 28).

The German's measures, declared in his orders' ``[declare]`` table: the von Paulus Pause (9.19,
``pause``), supply concentration (9.20, ``concentration``) and the air supply markers (9.18,
``air_supply``); their state is kept in the position (``pause``, ``concentration``, ``air_supply``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from pbem.errors import ModuleDataError, Place, Problem
from pbem.mechanics.odds import Shift, halve_round_up
from pbem.mechanics.supply import BorderOpen, Reach, supplied

from .data import OKH_AREAS, gas_sides
from .orders import Attack, Declarations, Move
from .rules.context import OFF_MAP_BOXES, Checkpoint, Ctx, Hooks, MoveTracker, Units, placed_at
from .rules.movement import AIR_SUPPLY_MF
from .rules.places import path_of, problem, under
from .rules.sources import OWN_ZOMO_ONLY, is_source, line_kind
from .rules.weather import weather_at, zone_weather
from .rules.works import intact_fort
from .sequence import other, sequences_in

ZONES = ("NZ", "SZ")  # 13.2
LENINGRAD = "4201N"  # 9.16
ORANIENBAUM = "4100N"  # 9.13
AIR_MARKERS = 2  # 9.18
CONCENTRATION_MARKERS = 18  # 9.20
PAUSE_TURNS = (2, 3)  # 9.19: declared at the end of GT2 or GT3
PAUSE_SEQUENCES = 3  # 9.19: it lasts 3 full player-turn sequences


def enabled(ctx: Ctx) -> bool:
    return bool(ctx.options.get("supply", False))


def _side(kind: str) -> str:
    return "soviet" if kind == "soviet" else "german"


def _enemy_hexes(ctx: Ctx, side: str) -> frozenset[str]:
    """The hexes the units of ``side``'s enemy stand in (off-map boxes left out). Asked for on every
    supply question, found or not in the cache (``supplied_hexes``): the units of a side are those of
    the scenario's counters, listed once per scenario's data."""
    units = ctx.units
    return frozenset(str(units[u]["at"]) for u in _units_of(ctx)[other(side)] if u in units).difference(OFF_MAP_BOXES)


_SIDE_UNITS: dict[str, dict[str, tuple[str, ...]]] = {}  # by the scenario's data digest


def _units_of(ctx: Ctx) -> dict[str, tuple[str, ...]]:
    """The scenario's counters by side, worked out once per scenario's data."""
    found = _SIDE_UNITS.get(ctx.sc.digest)
    if found is None:
        if len(_SIDE_UNITS) >= 16:
            _SIDE_UNITS.clear()
        by_side: dict[str, list[str]] = {}
        for u, spec in ctx.sc.units.items():
            by_side.setdefault(spec.side, []).append(u)
        found = _SIDE_UNITS[ctx.sc.digest] = {k: tuple(v) for k, v in by_side.items()} | \
            {k: () for k in ("german", "soviet") if k not in by_side}
    return found


def _line_crosses(ctx: Ctx, side: str, overland: bool) -> BorderOpen:
    """Whether a line may cross a hexside with the features ``feats`` toward the source side
    ``toward`` (9.4, 9.14, 9.15): not all-sea (the Sivash and Kerch hexsides are features of their
    own, 9.15); all-lake only for Soviet lines or in snow in the zone of the hex toward the source,
    and never for an ``overland`` line (9.16)."""
    soviet = side == "soviet"

    def crosses(toward: str, away: str, feats: frozenset[str]) -> bool:
        if "sea" in feats:
            return False
        return not ("lake" in feats and (overland or (not soviet and weather_at(ctx, toward) != "S")))

    return crosses


class _MapLines:
    """What a supply search needs from the map alone, worked out once per scenario's data: the
    sources of each kind of line (9.10-9.12), the all-sea and all-lake hexes, and the hexes east of
    the GAS line (9.3)."""

    def __init__(self, ctx: Ctx) -> None:
        m = ctx.sc.map
        hexes = sorted(m.hexes)
        self.sources = {kind: [h for h in hexes if is_source(ctx, h, kind)]
                        for kind in ("soviet", "german", *OWN_ZOMO_ONLY.values())}
        self.sea = frozenset(h for h in hexes if m.hexes[h].terrain == "sea")
        self.lakes = tuple(h for h in hexes if m.hexes[h].terrain == "lake")
        self.forts = tuple(h for h in hexes if m.hexes[h].fort)
        self.has_lakes = bool(self.lakes) or any("lake" in f for f in m.hexsides.values())
        self.east = gas_sides(m).east
        self.hungary_romania = frozenset(h for h in hexes if m.hexes[h].country in ("hungary", "romania"))  # 5.3


_MAP_LINES: dict[str, _MapLines] = {}  # by the scenario's data digest


def _map_lines(ctx: Ctx) -> _MapLines:
    lines = _MAP_LINES.get(ctx.sc.digest)
    if lines is None:
        if len(_MAP_LINES) >= 16:
            _MAP_LINES.clear()
        lines = _MAP_LINES[ctx.sc.digest] = _MapLines(ctx)
    return lines


def supplied_hexes(ctx: Ctx, kind: str, overland: bool = False) -> frozenset[str]:
    """Every hex from which a line of this kind reaches a working source (9.4-9.15): the hexes
    reached from the sources not enemy-occupied, through hexes and hexsides a line may use; with
    ``overland`` (Soviet lines, 9.16) never through an all-lake hex or across an all-lake hexside."""
    found = _reached(ctx, kind, overland)
    return found.places() if isinstance(found, Reach) else found


class _Kept:
    """A search kept up to date for one working units table (``Units``): the table, how much of its
    record of changed hexes the search has seen, and the hexes closed whoever holds them."""

    __slots__ = ("reach", "table", "seen", "fixed")

    def __init__(self, reach: Reach, table: Units, fixed: frozenset[str]) -> None:
        self.reach, self.table, self.seen, self.fixed = reach, table, len(table.changed), fixed


def _reached(ctx: Ctx, kind: str, overland: bool = False) -> Reach | frozenset[str]:
    """The hexes a line of this kind reaches now (supplied_hexes), as a set to ask.

    The result depends only on the enemy-occupied hexes, the intact forts, the weather (all-lake
    hexes and hexsides) and the GT1 restriction besides the map. In a working position (a ``Units``
    table) one search is kept for each of the others (``ctx.supply_cache``) and brought up to date
    from the hexes whose units changed since it was last asked (supply.Reach: only the part of the
    map a change touches is searched again); otherwise each search is kept under the enemy-occupied
    hexes too, and made again when one of them changes."""
    side = _side(kind)
    lines = _map_lines(ctx)
    overland = overland and lines.has_lakes  # without lakes every line is overland
    weather = tuple(zone_weather(ctx, z) for z in ZONES)
    forts = tuple(h for h in lines.forts if intact_fort(ctx, h)) if side != "soviet" else ()
    gt1 = side == "soviet" and ctx.turn == 1 and bool(ctx.options.get("gt1_restrictions"))
    units = ctx.position["units"]
    if type(units) is Units:
        key: tuple[Any, ...] = ("kept", kind, forts, weather, overland, gt1)
        kept = ctx.supply_cache.get(key)
        enemy = other(side)
        specs = ctx.sc.units
        if kept is None or kept.table is not units:
            fixed = _closed(ctx, lines, side, forts, overland, gt1)
            held = (h for h, here in units.by_place.items() if any(specs[u].side == enemy for u in here))
            closed = fixed.union(held).difference(OFF_MAP_BOXES)
            kept = ctx.supply_cache[key] = _Kept(
                Reach(ctx.sc.map, lines.sources[kind], closed, _line_crosses(ctx, side, overland)), units, fixed)
        elif kept.seen < len(units.changed):
            close: list[str] = []
            reopen: list[str] = []
            for h in set(units.changed[kept.seen:]).difference(OFF_MAP_BOXES):
                if h in kept.fixed or any(specs[u].side == enemy for u in units.by_place.get(h, ())):
                    close.append(h)
                else:
                    reopen.append(h)
            kept.seen = len(units.changed)
            kept.reach.update(close, reopen)
        found: Reach = kept.reach
        return found
    return _searched(ctx, kind, overland)


def _searched(ctx: Ctx, kind: str, overland: bool = False) -> frozenset[str]:
    """The hexes a line of this kind reaches now, by a whole-map search kept under everything the
    result depends on, the enemy-occupied hexes included (what _reached keeps up to date instead)."""
    side = _side(kind)
    lines = _map_lines(ctx)
    overland = overland and lines.has_lakes
    weather = tuple(zone_weather(ctx, z) for z in ZONES)
    forts = tuple(h for h in lines.forts if intact_fort(ctx, h)) if side != "soviet" else ()
    gt1 = side == "soviet" and ctx.turn == 1 and bool(ctx.options.get("gt1_restrictions"))
    enemy_hexes = _enemy_hexes(ctx, side)
    key = (kind, enemy_hexes, forts, weather, overland, gt1)
    found: frozenset[str] | None = ctx.supply_cache.get(key)
    if found is None:
        closed = set(enemy_hexes) | _closed(ctx, lines, side, forts, overland, gt1)
        found = ctx.supply_cache[key] = supplied(ctx.sc.map, lines.sources[kind], closed, _line_crosses(ctx, side, overland))
    return found


def _closed(ctx: Ctx, lines: _MapLines, side: str, forts: tuple[str, ...], overland: bool, gt1: bool) -> frozenset[str]:
    """The hexes a line may not enter whoever holds them: all-sea (9.4), for German-side lines
    all-lake except in snow (9.14) and an intact fort or heavy fort (14.29); for Soviet overland
    lines all-lake (9.16), on GT1 Hungary and Romania (5.3). (Enemy-occupied hexes are closed too.)"""
    closed = set(lines.sea)
    if side != "soviet":
        closed.update(h for h in lines.lakes if weather_at(ctx, h) != "S")
        closed.update(forts)
    else:
        if overland:
            closed.update(lines.lakes)
        if gt1:  # 5.3: no Soviet line through them on GT1
            closed.update(lines.hungary_romania)
    return frozenset(closed)


# --- the German's measures: the Pause (9.19), concentration (9.20), air supply (9.18) -----------

def pause_state(ctx: Ctx) -> str:
    """9.19: "" (never declared), "declared" (at the end of this GT), "in-force", "completed" or
    "cancelled" (position ``pause``)."""
    return str(ctx.position.get("pause", {}).get("state", ""))


def gas_line_applies(ctx: Ctx) -> bool:
    """9.19, Ambiguity 27: once the Pause is completed the German ignores the GAS line for good."""
    return pause_state(ctx) != "completed"


def east_of_gas(ctx: Ctx, hex_id: str) -> bool:
    """9.3: the hex is east of the GAS line (data.gas_sides); never on a map without one."""
    return hex_id in _map_lines(ctx).east


def concentration(ctx: Ctx) -> frozenset[str] | None:
    """9.20: the units under supply concentration, or None when it is not in force."""
    units = ctx.position.get("concentration")
    return None if units is None else frozenset(units)


def air_hexes(ctx: Ctx) -> frozenset[str]:
    """9.18: the hexes air supply works in now, those of the markers (position ``air_supply``);
    none in a player-turn sequence in which supply is concentrated (9.20, Ambiguity 25)."""
    if "concentration" in ctx.position and not air_with_concentration(ctx):
        return frozenset()
    return frozenset(ctx.position.get("air_supply", []))


def air_sequence_barred(ctx: Ctx) -> bool:
    """Ambiguity 25 (option air_supply_concentration): "sequence", the digest's reading, bars air
    supply for both sides' player turns of a sequence in which supply is concentrated (declaring it
    takes the markers off, and none may be placed while it is in force); "german-turn" bars it in the
    German player turns only: the markers may be placed and move with their stacks, but supply
    nothing until the Soviet player turn, where they work as usual (German defense, 9.8)."""
    return bool(ctx.options.get("air_supply_concentration", "sequence") != "german-turn")


def air_with_concentration(ctx: Ctx) -> bool:
    """Whether air supply works now although supply is concentrated: only with the option
    air_supply_concentration = "german-turn", in the Soviet player turn (air_sequence_barred)."""
    return not air_sequence_barred(ctx) and ctx.side != "german"


# --- supply states (9.2, 9.3, 9.13, 9.16-9.18) --------------------------------------------------

SUPPLY_STATES = ("supplied", "attenuated", "air", "lake", "oos")  # 9.2, 9.3, 9.18, 9.16


def unit_states(ctx: Ctx, units: Iterable[str], lake: bool = False) -> dict[str, str]:
    """The supply state of each unit on the map (supply_state), in the order given; off-map units
    are left out. Without ``lake`` a Soviet unit in lake supply counts as "supplied" (what movement
    and combat need: lake supply changes neither, 9.16)."""
    units = [u for u in units if ctx.on_map(u)]
    if not enabled(ctx):
        return {u: "supplied" for u in units}
    lines = _map_lines(ctx)
    traces = _tracer(ctx)
    air = air_hexes(ctx)
    gas = gas_line_applies(ctx)
    out: dict[str, str] = {}
    for u in units:
        h = ctx.at(u)
        kind = line_kind(ctx, u)
        if kind == "soviet":
            out[u] = _soviet_state(ctx, h, traces, lake)
        elif not traces(kind, h, False):
            out[u] = "air" if h in air else "oos"
        else:
            out[u] = "attenuated" if gas and h in lines.east else "supplied"
    return out


Tracer = Callable[[str, str, bool], bool]


def _tracer(ctx: Ctx) -> Tracer:
    """Whether a line of a kind (overland or not) reaches a hex now; each search made once."""
    reach: dict[tuple[str, bool], Reach | frozenset[str]] = {}

    def traces(kind: str, hex_id: str, overland: bool) -> bool:
        if (kind, overland) not in reach:
            reach[kind, overland] = _reached(ctx, kind, overland)
        return hex_id in reach[kind, overland]

    return traces


def _soviet_state(ctx: Ctx, hex_id: str, traces: Tracer, lake: bool) -> str:
    """9.17: in a port always in supply; 9.13: in Oranienbaum Leningrad's state, unless Leningrad's
    supply (overland or lake) is cut, then its own line; 9.16: "lake" when every line crosses a lake."""
    if ctx.sc.map.hexes[hex_id].port:
        return "supplied"

    def own(h: str) -> str:
        if not traces("soviet", h, False):
            return "oos"
        return "lake" if lake and not traces("soviet", h, True) else "supplied"

    if hex_id == ORANIENBAUM and LENINGRAD in ctx.sc.map.hexes:
        shared = own(LENINGRAD)
        if shared != "oos":
            return shared
    return own(hex_id)


def soviet_hex_state(ctx: Ctx, hex_id: str) -> str:
    """The supply state a Soviet unit in ``hex_id`` has now, whether or not one is there:
    "supplied", "lake" or "oos" (9.2, 9.13, 9.16, 9.17); "supplied" with the option supply off. A
    hex held by German-side units is "oos" (no Soviet line enters it)."""
    if not enabled(ctx):
        return "supplied"
    if ctx.occupants(hex_id, "german"):
        return "oos"
    return _soviet_state(ctx, hex_id, _tracer(ctx), True)


def lake_supplied(ctx: Ctx, hex_id: str) -> bool:
    """9.16 (option supply): whether ``hex_id`` is in lake supply now: Soviet supply lines reach it,
    but every one of them crosses an all-lake hex or all-lake hexside (soviet_hex_state "lake").

    The contract, for the rules that ask (8.7: one stack of reinforcements in a lake-supplied
    Leningrad; 8.9: the tank-brigade roll; 8.11: full supply; 8.13: an overland line): pass the hex
    (Leningrad is ``LENINGRAD``, 4201N); the answer is about Soviet lines as the position stands,
    whether or not a Soviet unit is in the hex. False when the hex's lines are all cut (OOS: ask
    soviet_hex_state), when a line reaches it overland, for a Black Sea port (always in supply,
    9.17) and with the option supply off. Oranienbaum (4100N) answers as Leningrad does while
    Leningrad is in supply (9.13)."""
    return soviet_hex_state(ctx, hex_id) == "lake"


def supply_state(ctx: Ctx, unit: str) -> str:
    """The supply state of a unit now, for the rules that ask for it (8.11, 8.14, 8.16, 8.20, ...):

    - "supplied": in supply (9.2, 9.3): a Soviet unit that traces a line overland, or is in a Black
      Sea port or the Southern Ports Holding Box (9.17); a German-side unit that traces a line west
      of the GAS line, or anywhere once the Pause is completed (9.19, Ambiguity 27);
    - "attenuated": a German-side unit east of the GAS line that traces a line (9.3), also when it
      is under supply concentration, which frees it from the GAS-line effects (9.20: no GAST) but
      does not make it count as in full supply (Ambiguity 23);
    - "air": a German-side unit that cannot trace a line, in a hex with an air supply marker
      (9.18): full combat factors, full MF (6 for mechanized units), the GAST when attacking east
      of the GAS line; replacements only if it neither moves nor attacks, no refit (9.18). A unit
      that traces a line keeps its ground state under a marker;
    - "lake": a Soviet unit in supply whose every line crosses an all-lake hex or hexside (9.16):
      in supply for movement and combat, but not in full or overland supply (8.11, 8.13);
    - "oos": out of supply (9.2, 9.3): halved movement and combat (9.7).

    A unit in an off-map box counts as "supplied" (the Southern Ports Holding Box: 11.3, 9.17).
    With the option supply off (the basic game) every unit counts as "supplied"."""
    return unit_states(ctx, [unit], lake=True).get(unit, "supplied")


def out_of_supply(ctx: Ctx, units: Iterable[str]) -> list[str]:
    """The units (on the map) out of supply now (9.2, 9.3; not those air-supplied, 9.18); none with
    the option off."""
    return [u for u, st in unit_states(ctx, units).items() if st == "oos"]


def gast_liable(ctx: Ctx, unit: str, state: str) -> bool:
    """Whether a German-side attacker in ``state`` makes the German roll on the GAST (17.10): in
    attenuated supply (9.6), or air-supplied east of the GAS line (9.18); not under supply
    concentration (9.20), not once the Pause is completed (9.19), never out of supply (9.7)."""
    if ctx.spec(unit).side != "german" or not ctx.on_map(unit):
        return False
    if state == "air":
        if not (gas_line_applies(ctx) and east_of_gas(ctx, ctx.at(unit))):
            return False
    elif state != "attenuated":
        return False
    chosen = concentration(ctx)
    return not (chosen is not None and unit in chosen)


def check_move(ctx: Ctx, index: int, units: list[str], moved: set[str]) -> None:
    """9.8: supply is checked at the start of each unit's or stack's move; a unit OOS then has its
    MF halved for the movement phase (``ctx.move_oos``, read by movement_allowance), an air-supplied
    mechanized unit has MF 6 (9.18); the state is kept for a mobile assault (``ctx.move_supply``,
    15.4). A unit that already moved this phase (a stack continuing after a split, 12.6) keeps its
    first check."""
    if not enabled(ctx):
        return
    todo = [u for u in units if u not in moved and u not in ctx.move_oos]
    states = unit_states(ctx, todo)
    for u in todo:
        st = states.get(u, "supplied")
        ctx.move_oos[u] = st == "oos"
        ctx.move_supply[u] = (st, gast_liable(ctx, u, st))
    oos = sorted(u for u in todo if states.get(u) == "oos")
    if oos:
        ctx.emit("supply", "9.8", when="move", index=index, units=oos,
                 mf={u: [ctx.mf(u), halve(ctx.mf(u))] for u in oos})
    air = sorted(u for u in todo if states.get(u) == "air")
    if air:
        ctx.emit("supply", "9.18", when="move-air", index=index, units=air,
                 mf={u: [ctx.mf(u), min(ctx.mf(u), AIR_SUPPLY_MF) if ctx.spec(u).mechanized else ctx.mf(u)]
                     for u in air})


def halve(value: int) -> int:
    """9.7: halved, fractions rounded up (half of 5 is 3)."""
    return halve_round_up(value)


def combat_oos(ctx: Ctx, index: int, attackers: list[str], defenders: list[str], what: str) -> set[str]:
    """9.8: at the start of each combat, the participants of both sides are checked; the OOS ones
    have their combat factors halved (9.7), the air-supplied ones keep them (9.18). Reported as a
    ``supply`` event."""
    if not enabled(ctx):
        return set()
    att, dfn = unit_states(ctx, attackers), unit_states(ctx, defenders)
    oos_a = [u for u, st in att.items() if st == "oos"]
    oos_d = [u for u, st in dfn.items() if st == "oos"]
    air = sorted(u for states in (att, dfn) for u, st in states.items() if st == "air")
    if oos_a or oos_d or air:
        ctx.emit("supply", "9.8", when=what, index=index, attackers=oos_a, defenders=oos_d,
                 **({"air": air} if air else {}))
    return set(oos_a) | set(oos_d)


def ma_oos(ctx: Ctx, index: int, attackers: list[str], defenders: list[str]) -> set[str]:
    """15.4: in an MA the defender's supply is checked at the moment of combat; the attackers keep
    the state they had at the start of their move (check_move)."""
    if not enabled(ctx):
        return set()
    att = sorted(u for u in attackers if ctx.move_oos.get(u))
    dfn = unit_states(ctx, defenders)
    oos_d = [u for u, st in dfn.items() if st == "oos"]
    air = sorted([u for u in attackers if ctx.move_supply.get(u, ("", False))[0] == "air"]
                 + [u for u, st in dfn.items() if st == "air"])
    if att or oos_d or air:
        ctx.emit("supply", "15.4", when="mobile assault", index=index, attackers=att, defenders=oos_d,
                 **({"air": air} if air else {}))
    return set(att) | set(oos_d)


def gast(ctx: Ctx, what: str, attackers: list[str], target: str, shifts: list[Shift], rnd: int = 1,
         mobile: bool = False) -> tuple[list[Shift], dict[str, Any]]:
    """9.6, 17.10: the GAST roll of a German attack, the last step before the CRT die: when an
    attacker is in attenuated supply, or air-supplied east of the GAS line (9.18; gast_liable), at
    the start of the combat (9.8), or in a mobile assault at the start of its move (15.4), the
    German rolls the table's die once for the combat (Ambiguity 28; a GT1 round of 15.6 is a combat
    of its own); its result is no effect or a left shift added to ``shifts``. No modifier is applied
    (the printed ones are not known). Returns the shifts and the ``gast`` record of the attack event.

    Option gast_rolls = "per-unit" (the other reading of Ambiguity 28, after 9.8's "a German unit
    that is AS at the start of an attack requires a GAST roll"): one die for each liable attacker,
    in the order of their ids, labelled with the unit; the shifts add up (14.11)."""
    if not enabled(ctx) or ctx.side != "german" or not _map_lines(ctx).east:  # no GAS line, no GAST
        return shifts, {}
    if mobile:
        liable = [u for u in attackers if ctx.move_supply.get(u, ("", False))[1]]
    else:
        states = unit_states(ctx, attackers)
        liable = [u for u in attackers if gast_liable(ctx, u, states.get(u, ""))]
    if not liable:
        return shifts, {}
    table = ctx.sc.charts.gast
    if table is None:
        raise ModuleDataError("the map has a GAS line, but the charts have no GAST (17.10)",
                              hint="Add a [gast] table to the scenario's charts.toml.")
    if ctx.dice is None:
        raise RuntimeError("a die is needed, but this is a check without dice")
    label = f"9.6|{ctx.step}|{what}|{target}|GAST" + (f" round {rnd}" if rnd > 1 else "")
    if ctx.options.get("gast_rolls", "per-combat") == "per-unit":
        rolls: list[dict[str, Any]] = []
        n = 0
        for u in sorted(liable):
            lab = f"9.6|{ctx.step}|{what}|{target}|GAST {u}" + (f" round {rnd}" if rnd > 1 else "")
            f = ctx.dice.roll(lab, table.die)
            rolls.append({"unit": u, "label": lab, "die": f, "result": table.text(f)})
            n += table.shift(f)
        record = {"units": sorted(liable), "rolls": rolls, "result": f"{n}L" if n else "no effect",
                  "provisional": table.provisional}
        extra = [Shift(-n, "17.10", f"GAST, one die per attacker in attenuated supply: {n}L (9.6, Ambiguity 28)")] if n else []
        return [*shifts, *extra], {"gast": record}
    face = ctx.dice.roll(label, table.die)
    n = table.shift(face)
    record = {"units": sorted(liable), "label": label, "die": face, "result": table.text(face),
              "provisional": table.provisional}
    extra = [Shift(-n, "17.10", f"GAST die {face}: attackers in attenuated supply (9.6)")] if n else []
    return [*shifts, *extra], {"gast": record}


# --- the German's declarations at the start of his player turn ----------------------------------

def _pause_sequences(turn: int) -> list[str]:
    """9.19: the 3 player-turn sequences a Pause declared at the end of GT ``turn`` covers."""
    out: list[str] = []
    t, p = turn + 1, 1
    while len(out) < PAUSE_SEQUENCES:
        out.append(f"GT{t}/{p}")
        t, p = (t, p + 1) if p < sequences_in(t) else (t + 1, 1)
    return out


def declarations(ctx: Ctx, declare: Declarations, problems: list[Problem]) -> None:
    """The German's supply declarations at the start of his player turn, from his orders'
    ``[declare]`` table, in this order: the Pause (9.19: ``pause = true`` in the orders of GT2/2 or
    GT3/2 declares it for the end of the GT, ``pause = false`` cancels it), supply concentration
    (9.20: ``concentration``) and the air supply markers (9.18: ``air_supply``). A concentration in
    force that the orders do not name stays in force with the same units (reconfirmed)."""
    if declare.pause is not None:
        declare_pause(ctx, declare.pause, problems)
    if declare.concentration is not None:
        declare_concentration(ctx, list(declare.concentration), problems)
    elif enabled(ctx) and ctx.side == "german" and "concentration" in ctx.position:
        extra = {} if air_sequence_barred(ctx) else {"air": "german-turn"}  # Ambiguity 25
        ctx.emit("concentration", "9.20", state="in-force", units=list(ctx.position["concentration"]), before=[],
                 air_removed=[], step=ctx.step, **extra)
    if declare.air_supply is not None:
        place_air_supply(ctx, list(declare.air_supply), problems)


def _german_only(ctx: Ctx, where: Place, what: str, rule: str, problems: list[Problem]) -> bool:
    if not enabled(ctx):
        problems.append(problem(where, f"{what} is a full-game supply rule (option supply is off)", rule))
        return False
    if ctx.side != "german":
        problems.append(problem(where, f"{what} is the German's; the Soviet cannot declare it", rule))
        return False
    return True


def declare_pause(ctx: Ctx, value: Any, problems: list[Problem]) -> None:
    """9.19: ``pause = true`` in the German's orders of GT2/2 or GT3/2 declares the von Paulus Pause,
    which takes effect at the end of that GT and covers the next 3 player-turn sequences (declared
    at the end of GT2: GT3/1, GT3/2 and GT4/1); the same in his orders of GT3/1 or GT4/1 counts as
    declared at the end of the GT before (nothing of his has happened since), so that he may decide
    after the Soviet's last player turn of the GT; ``pause = false`` at the start of a later German
    player turn cancels it, with no benefit. One Pause per game (the rules speak of "a Pause"; a
    cancelled one cannot be declared again)."""
    where = path_of("declare", "pause")
    if not _german_only(ctx, where, "the von Paulus Pause", "9.19", problems):
        return
    p = ctx.position.get("pause")
    if value:
        if p:
            problems.append(problem(where, f"the Pause was declared at the end of GT{p['declared']} ({p['state']}); "
                                           "the German declares one Pause per game", "9.19"))
        elif ctx.turn - 1 in PAUSE_TURNS and ctx.pts == 1:  # sent at the start of the next GT: as at the end of the last
            seqs = _pause_sequences(ctx.turn - 1)
            ctx.position["pause"] = {"state": "in-force", "declared": ctx.turn - 1, "first": seqs[0], "last": seqs[-1]}
            ctx.emit("pause", "9.19", state="declared", declared=ctx.turn - 1, sequences=seqs, step=ctx.step)
            ctx.emit("pause", "9.19", state="in-force", declared=ctx.turn - 1, sequences=seqs, step=ctx.step)
        elif ctx.turn not in PAUSE_TURNS or ctx.pts != sequences_in(ctx.turn):
            problems.append(problem(where, "the Pause is declared at the end of GT2 or GT3: in the German's orders of "
                                           f"GT2/2 or GT3/2, or of GT3/1 or GT4/1 as if at the end of the GT before, not "
                                           f"{ctx.step}", "9.19"))
        else:
            seqs = _pause_sequences(ctx.turn)
            ctx.position["pause"] = {"state": "declared", "declared": ctx.turn, "first": seqs[0], "last": seqs[-1]}
            ctx.emit("pause", "9.19", state="declared", declared=ctx.turn, sequences=seqs, step=ctx.step)
        return
    if not p or p["state"] not in ("declared", "in-force"):
        problems.append(problem(where, "there is no Pause to cancel" + (f" (it is {p['state']})" if p else ""), "9.19"))
        return
    was = p["state"]
    p["state"] = "cancelled"
    p["cancelled"] = ctx.step
    ctx.emit("pause", "9.19", state="cancelled", declared=p["declared"], sequences=_pause_sequences(p["declared"]),
             step=ctx.step, was=was)


def declare_concentration(ctx: Ctx, units: list[Any], problems: list[Problem]) -> None:
    """9.20: at the start of any German player turn the German declares supply concentration, or
    reconfirms it (possibly with other units), by naming in ``concentration`` the German-side units
    on the map that get its markers: at most 18 (he may name fewer; only the units named are free to
    attack and move). ``concentration = []`` cancels it. Air supply cannot be used in a player-turn
    sequence in which supply is concentrated (Ambiguity 25): markers on the map are taken off."""
    where = path_of("declare", "concentration")
    if not _german_only(ctx, where, "supply concentration", "9.20", problems):
        return
    known = len(problems)
    chosen: list[str] = []
    for j, raw in enumerate(units):
        u = str(raw)
        w = under(where, j)
        if u not in ctx.units:
            problems.append(problem(w, f"unknown unit '{u}'", "9.20", "Use the unit ids `pbem show` lists."))
        elif ctx.spec(u).side != "german":
            problems.append(problem(w, f"{u} is a Soviet unit; the markers go on German-side units", "9.20"))
        elif not ctx.on_map(u):
            problems.append(problem(w, f"{u} is not on the map ({OFF_MAP_BOXES[ctx.at(u)]})", "9.20"))
        elif u in chosen:
            problems.append(problem(w, f"{u} is listed twice", "9.20"))
        else:
            chosen.append(u)
    if len(units) > CONCENTRATION_MARKERS:
        problems.append(problem(where, f"{len(units)} units named; there are {CONCENTRATION_MARKERS} concentration markers",
                                "9.20"))
    if len(problems) > known:
        return
    before = ctx.position.get("concentration")
    if not chosen:
        if before is not None:
            del ctx.position["concentration"]
            ctx.emit("concentration", "9.20", state="cancelled", units=[], before=list(before), air_removed=[],
                     step=ctx.step)
        return
    ctx.position["concentration"] = sorted(chosen)
    removed = list(ctx.position.pop("air_supply", [])) if air_sequence_barred(ctx) else []
    extra = {} if air_sequence_barred(ctx) else {"air": "german-turn"}  # Ambiguity 25
    ctx.emit("concentration", "9.20", state="declared" if before is None else "reconfirmed", units=sorted(chosen),
             before=list(before or []), air_removed=removed, step=ctx.step, **extra)


def place_air_supply(ctx: Ctx, hexes: list[Any], problems: list[Problem]) -> None:
    """9.18: at the start of every German player turn the German places (repositions) the 2 air
    supply markers: ``air_supply`` lists the hexes, one marker per hex, each holding a German-side
    unit, anywhere on the map; ``air_supply = []`` takes them off. Not in a player-turn sequence in
    which supply is concentrated (9.20, Ambiguity 25; with the option air_supply_concentration =
    "german-turn" they may be placed, and work in the Soviet player turn only). Without the key the
    markers stay where they are, with their stacks."""
    where = path_of("declare", "air_supply")
    if not _german_only(ctx, where, "air supply", "9.18", problems):
        return
    if "concentration" in ctx.position and air_sequence_barred(ctx):
        problems.append(problem(where, "supply is concentrated in this player-turn sequence: air supply cannot be used "
                                       "(Ambiguity 25); cancel the concentration first (concentration = [])", "9.20"))
        return
    known = len(problems)
    chosen: list[str] = []
    for j, raw in enumerate(hexes):
        w = under(where, j)
        h = ctx.sc.map.canonical(str(raw))
        if h is None:
            problems.append(problem(w, f"'{raw}' is not a hex of the map", "9.18"))
        elif h in chosen:
            problems.append(problem(w, f"{h} is listed twice; each marker supplies one hex", "9.18"))
        elif not ctx.occupants(h, "german"):
            problems.append(problem(w, f"{h} holds no German-side unit; a marker goes on a German-side stack", "9.18"))
        else:
            chosen.append(h)
    if len(hexes) > AIR_MARKERS:
        problems.append(problem(where, f"{len(hexes)} hexes named; there are {AIR_MARKERS} air supply markers", "9.18"))
    if len(problems) > known:
        return
    before = list(ctx.position.get("air_supply", []))
    if chosen:
        ctx.position["air_supply"] = sorted(chosen)
    else:
        ctx.position.pop("air_supply", None)
    extra = {"concentration": True} if "concentration" in ctx.position else {}  # Ambiguity 25: "german-turn"
    ctx.emit("air-supply", "9.18", hexes=sorted(chosen), units={h: ctx.occupants(h, "german") for h in sorted(chosen)},
             before=before, step=ctx.step, **extra)


# --- what the measures forbid, and the markers that move with their stacks ----------------------

def _hexes_moved(ctx: Ctx, unit: str) -> int:
    """The hexes a unit has entered by movement so far in this movement phase (12.1)."""
    return sum(len(e.data["path"]) for e in ctx.events if e.kind == "move" and unit in e.data["units"])


def _pause_text(ctx: Ctx) -> str:
    p = ctx.position["pause"]
    return f"the von Paulus Pause is in force ({p['first']} to {p['last']}): German-side units may not attack at all"


def move_problems(ctx: Ctx, index: int, move: Move, tr: MoveTracker) -> list[Problem]:
    """The limits of the German's measures on a [[move]], checked before it is made: no mobile
    assault during the Pause (9.19); under supply concentration no mobile assault by a unit without
    a marker, nor a move that takes it more than one hex in the phase (9.20); ``air_supply = true``
    only for a move from a hex with an air supply marker (9.18)."""
    where = path_of("move", index)
    out: list[Problem] = []
    # Units entering from an OKH reserve area (8.2) move too: 9.20 limits them like the others.
    units = [u for u in move.units if u in ctx.units and (ctx.on_map(u) or ctx.at(u) in OKH_AREAS)]
    if move.air_supply is not None:
        if not enabled(ctx):
            out.append(problem(under(where, "air_supply"), "air supply is a full-game supply rule (option supply is off)", "9.18"))
        elif move.air_supply:
            here = {ctx.at(u) for u in units}
            if len(here) != 1 or next(iter(here)) not in ctx.position.get("air_supply", []):
                out.append(problem(under(where, "air_supply"), f"no air supply marker in {', '.join(sorted(here)) or 'its hex'}: "
                                                          "only a move from a marker's hex takes it along", "9.18"))
    if not enabled(ctx) or ctx.side != "german":
        return out
    german = [u for u in units if ctx.spec(u).side == "german"]
    chosen = concentration(ctx)
    if move.assault is not None:
        if pause_state(ctx) == "in-force":
            out.append(problem(under(where, "assault"), _pause_text(ctx), "9.19"))
        free = [u for u in german if chosen is not None and u not in chosen]
        if free:
            out.append(problem(under(where, "assault"), f"{', '.join(free)} {'is' if len(free) == 1 else 'are'} not under "
                                                   "supply concentration and may not attack", "9.20"))
    if chosen is not None:
        steps = len(move.path)
        far = [u for u in german if u not in chosen and u not in tr.ended and _hexes_moved(ctx, u) + steps > 1]
        if far:
            done = [f"{u} has moved {n}" for u in far if (n := _hexes_moved(ctx, u))]
            out.append(problem(where, f"{', '.join(far)} {'is' if len(far) == 1 else 'are'} not under supply concentration "
                                      "and may move at most one hex in the phase"
                                      + (f" ({'; '.join(done)})" if done else ""), "9.20"))
    return out


def attack_problems(ctx: Ctx, attacks: Sequence[Attack]) -> list[Problem]:
    """Prepared assaults the German's measures forbid: any during the Pause (9.19); under supply
    concentration, one with a unit without a marker (9.20)."""
    if not enabled(ctx) or ctx.side != "german":
        return []
    out: list[Problem] = []
    chosen = concentration(ctx)
    for i, a in enumerate(attacks):
        if pause_state(ctx) == "in-force":
            out.append(problem(path_of("attack", i), _pause_text(ctx), "9.19"))
        if chosen is not None:
            free = [u for u in a.units if u in ctx.units and ctx.spec(u).side == "german"
                    and u not in chosen]
            if free:
                out.append(problem(path_of("attack", i), f"{', '.join(free)} {'is' if len(free) == 1 else 'are'} not under "
                                                   "supply concentration and may not attack", "9.20"))
    return out


def _move_marker(ctx: Ctx, origin: str, dest: str, how: str) -> None:
    markers = [h for h in ctx.position["air_supply"] if h != origin]
    merged = dest in markers
    ctx.position["air_supply"] = sorted({*markers, dest})
    ctx.emit("air-supply-moved", "9.18", origin=origin, to=dest, how=how, merged=merged,
             units=ctx.occupants(dest, "german"))


def _sweep(ctx: Ctx, how: str) -> None:
    """A marker whose stack is gone (eliminated) leaves the map until the next placement (9.18)."""
    markers = ctx.position.get("air_supply")
    if not markers:
        return
    gone = [h for h in markers if not ctx.occupants(h, "german")]
    if gone:
        left = [h for h in markers if h not in gone]
        if left:
            ctx.position["air_supply"] = left
        else:
            del ctx.position["air_supply"]
        ctx.emit("air-supply-lost", "9.18", hexes=gone, how=how)


def after_move(ctx: Ctx, index: int, move: Move, origin: str | None) -> None:
    """9.18: after a [[move]] from a hex with an air supply marker, the marker goes with the moving
    units when the move says ``air_supply = true`` or when no German-side unit is left behind (a
    moving air-supplied stack takes its marker); otherwise it stays with the units left behind.
    Units split off take the supply state of the hex where they are."""
    if not enabled(ctx) or not ctx.position.get("air_supply"):
        return
    if origin is not None and origin in ctx.position["air_supply"]:
        moved = [u for u in move.units if u in ctx.units and ctx.on_map(u) and ctx.at(u) != origin]
        if moved and (move.air_supply or not ctx.occupants(origin, "german")):
            _move_marker(ctx, origin, ctx.at(moved[0]), f"move {index + 1}")
    _sweep(ctx, f"move {index + 1}")


def after_attack(ctx: Ctx, index: int, before: Checkpoint) -> None:
    """9.18: a prepared assault may empty a marker's hex: the stack's units that advanced after
    combat (14.39) or retreated (14.32) all into one hex take the marker there; a stack eliminated
    or scattered leaves it off the map until the next placement."""
    if not enabled(ctx) or not ctx.position.get("air_supply"):
        return
    for h in list(ctx.position["air_supply"]):
        if ctx.occupants(h, "german"):
            continue
        were = [u for u in placed_at(before, h) if ctx.spec(u).side == "german"]
        now = {ctx.at(u) for u in were if ctx.on_map(u)}
        if len(now) == 1:
            how = "retreat" if ctx.side == "soviet" else "advance after combat"
            _move_marker(ctx, h, now.pop(), f"{how}, attack {index + 1}")
    _sweep(ctx, f"attack {index + 1}")


def end_of_sequence(ctx: Ctx) -> None:
    """9.19: at the end of a player-turn sequence (the clock still on it): a Pause declared in this
    GT comes into force at the GT's end (A.3 IV.4), one in force ends after its third sequence;
    from then on the German ignores the GAS line (Ambiguity 27)."""
    p = ctx.position.get("pause")
    if not enabled(ctx) or not p:
        return
    here = f"GT{ctx.turn}/{ctx.pts}"
    seqs = _pause_sequences(int(p["declared"]))
    if p["state"] == "declared" and ctx.turn == p["declared"] and ctx.pts == sequences_in(ctx.turn):
        p["state"] = "in-force"
        ctx.emit("pause", "9.19", state="in-force", declared=p["declared"], sequences=seqs, step=here)
    elif p["state"] == "in-force" and here == p["last"]:
        p["state"] = "completed"
        ctx.emit("pause", "9.19", state="completed", declared=p["declared"], sequences=seqs, step=here)


def markers(ctx: Ctx) -> None:
    """The supply markers of the position (option supply) at the end of an adjudication, for the
    reports and pictures (the rules check supply when they need it): ``oos``, the units that cannot
    trace a line (9.2, 9.3); ``attenuated``, ``air`` and ``lake``, the units in attenuated, air and
    lake supply (9.3, 9.18, 9.16; each only when there are some); air supply markers whose stack is
    gone are taken off (9.18), and eliminated units lose their concentration marker (9.20)."""
    if not enabled(ctx):
        return
    _sweep(ctx, "the end of the adjudication")
    if "concentration" in ctx.position:
        ctx.position["concentration"] = [u for u in ctx.position["concentration"] if ctx.on_map(u)]
    states = unit_states(ctx, sorted(ctx.units), lake=True)
    ctx.position["oos"] = [u for u, st in states.items() if st == "oos"]
    for key, state in (("attenuated", "attenuated"), ("air", "air"), ("lake", "lake")):
        found = [u for u, st in states.items() if st == state]
        if found:
            ctx.position[key] = found
        else:
            ctx.position.pop(key, None)


def reaches(ctx: Ctx, kind: str, hex_id: str) -> bool:
    """9.4: whether a supply line of ``kind`` reaches ``hex_id`` now (supplied_hexes)."""
    return hex_id in _reached(ctx, kind)


def plug(hooks: Hooks) -> Hooks:
    """The supply rules in the core rules (rules/context.py, Hooks): supply at the start of a move
    (9.8), the participants of a combat out of supply (9.8), the GAST (9.6, 17.10), and whether a
    line reaches a hex (9.4, for the ArKo's formation, 14.41)."""
    return replace(hooks, move_start=check_move, combat_supply=combat_oos, gast=gast, supply_reaches=reaches)
