"""Proud Monster components as data: map, counters, charts and scenarios (docs/map-format.md).

Loaded from ``scenarios/proud-monster/``; every file is validated against its JSON Schema and
cross-checked (units named in a scenario exist, hexsides join adjacent hexes, ...).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbem.errors import ModuleDataError, Problem
from pbem.exchange.canonical import canonical
from pbem.exchange.files import read_validated, schema_problems
from pbem.games.base import bundled_scenario_names, bundled_scenario_path, scenario_file
from pbem.mechanics.dice import MAX_SIDES
from pbem.mechanics.hexgrid import Hex, Numbering, adjacent, hexside_key
from pbem.mechanics.odds import Odds
from pbem.mechanics.places import LAND, WATER_KINDS, HexGrid, Place
from pbem.mechanics.tables import Result, ResultsTable
from pbem.resources import scenarios_dir

GAME_DIR = "proud-monster"
OKH_AREAS = ("okh-north", "okh-south")  # 8.2: the off-map OKH reserve areas

# 2.11: mechanized types; everything else is non-mechanized.
MECHANIZED = frozenset({"tank", "motorized", "assault-gun", "armored-recon", "flak"})
ARMOR = frozenset({"tank", "assault-gun", "armored-recon"})  # 14.18, 14.20


@dataclass(frozen=True, slots=True)
class UnitSpec:
    id: str
    name: str
    side: str
    nat: str
    type: str
    size: str
    steps: int
    values: tuple[tuple[int, int, int], ...]  # index 0 = full strength
    refit: bool = True  # 8.18: False for the 2nd and 5th Panzer Divisions, which never refit

    @property
    def guards(self) -> bool:
        """2.15: every Soviet unit has 1 step but the 15 Guards units, which have 2 (8.11)."""
        return self.side == "soviet" and self.steps == 2

    @property
    def mechanized(self) -> bool:
        return self.type in MECHANIZED

    def factors(self, steps: int) -> tuple[int, int, int]:
        """Attack, defense and movement factors with ``steps`` steps left (2.16)."""
        return self.values[self.steps - steps]

    def move_class(self) -> str:
        """Terrain-cost class of 12.10-12.13: mech, cavalry-mountain or nonmech."""
        if self.mechanized:
            return "mech"
        if self.type in ("cavalry", "mountain"):
            return "cavmtn"
        return "nonmech"


@dataclass(frozen=True, slots=True)
class HexSpec(Place):
    """A hex of the map (a place of the hex grid, pbem.mechanics.places: its ``id``, ``terrain``,
    its ``kind`` land, sea or lake from the terrain, its ``name`` that of its place) with what the
    rules read of it."""

    country: str = "ussr"
    zomo: bool = False
    settlement: str = ""  # town | large_town | city
    place: str = ""
    vp: int = 0
    md: bool = False
    zone: str = "NZ"
    fort: str = ""  # 14.24/14.28: "fort" | "heavy" (a Soviet fortification), "" for none
    line: str = ""  # 14.24: the fort line the fort belongs to (the SPAT's lines start uncompleted)
    stalin: bool = False  # 14.30: a Stalin Line hex
    supply: str = ""  # 9.10/9.11: "soviet" or "german", a supply source the map marks; "" the rulebook's rule
    road: bool = False  # 12.20: a hex of the Minsk-Moscow highway
    port: bool = False  # 9.17, 11.2: a Soviet Black Sea port
    okh: str = ""  # 8.2: "north" or "south", a ZOMO hex next to that OKH reserve area
    beach: str = ""  # 11.4: on a Crimean south-coast hex, the nearest all-sea hex


@dataclass(frozen=True, kw_only=True)
class MapData(HexGrid[HexSpec]):
    """The map (2.3-2.4, D.1): a hex grid of places (pbem.mechanics.places.HexGrid: neighbours,
    border_features, canonical, distance, ...) whose hexes are HexSpecs, with its id, title and note."""

    id: str
    title: str
    note: str
    connected: bool = True  # the land is one piece (False for a map fragment, such as test data)

    def moscow(self) -> tuple[str, ...]:
        return tuple(sorted(h.id for h in self.hexes.values() if h.place == "Moscow" and h.settlement == "city"))


@dataclass(frozen=True)
class WeatherTable:
    """17.1: the result (D, R, M, F or S: 13.3-13.7) of a 1d6 roll for each GT from GT7
    (row[face - 1]); the SZ uses the same roll -2 (13.2), and what a modified roll below 1 means is
    an option (sz_roll_below_table, Ambiguity 35)."""

    rows: dict[int, tuple[str, ...]]
    provisional: bool = True
    note: str = ""

    def result(self, turn: int, roll: int) -> str:
        """The result of a (modified) roll on GT ``turn``'s row; a roll below 1 reads the row for 1
        and one above 6 the row for 6 (the caller applies the option for rolls below 1). A GT the
        table does not list reads the last row before it."""
        listed = [t for t in self.rows if t <= turn]
        row = self.rows[max(listed)] if listed else self.rows[min(self.rows)]
        return row[min(max(roll, 1), len(row)) - 1]


@dataclass(frozen=True)
class Spat:
    """17.3 SPAT: the GT at whose start each uncompleted fort line becomes active (14.25), and the
    lines whose cancellation cancels others too (14.25: Luga north cancels Luga south)."""

    lines: dict[str, int] = field(default_factory=dict)
    cancels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    provisional: bool = True
    known: frozenset[str] = frozenset()
    note: str = ""


@dataclass(frozen=True, slots=True)
class AirUnit:
    """A ground-support air unit (10.2-10.4): its id and name, its GS points for each player-turn
    sequence (``points[GT]`` = one value per sequence of that GT, 5.4; a GT not listed, or 0, means
    not available) and its column shift in favour of the units it supports (10.3: VIII
    Fliegerkorps, 1)."""

    id: str
    name: str
    points: dict[int, tuple[int, ...]]
    shift: int = 0

    def points_in(self, turn: int, pts: int) -> int:
        row = self.points.get(turn, ())
        return row[pts - 1] if 0 < pts <= len(row) else 0


@dataclass(frozen=True)
class AirCharts:
    """17.8 German GS point schedule (the German air units and their points, GT1-GT11) and the one
    Soviet GS unit of 10.4 (5 points, GT12)."""

    german: tuple[AirUnit, ...] = ()
    soviet: AirUnit | None = None
    provisional: bool = True
    note: str = ""

    def unit(self, air_id: str) -> AirUnit | None:
        return next((a for a in (*self.german, *((self.soviet,) if self.soviet else ())) if a.id == air_id), None)


@dataclass(frozen=True)
class GastTable:
    """17.10 German Attenuated Supply Table: for each face of its die (``results[face - 1]``) the
    columns the German odds shift left, 0 for no effect (9.6). The rulebook gives neither the die,
    the shifts nor the modifiers printed beneath the table: the bundled table is a stand-in."""

    results: tuple[int, ...]
    provisional: bool = True
    note: str = ""

    @property
    def die(self) -> int:
        """The sides of its die: one result per face."""
        return len(self.results)

    def shift(self, face: int) -> int:
        return self.results[face - 1]

    def text(self, face: int) -> str:
        n = self.shift(face)
        return f"{n}L" if n else "no effect"


@dataclass(frozen=True)
class WithdrawalKind:
    """What a line of the German Withdrawal Table (17.4) may call for: the units that fit it, by
    type (units.toml `type`), size (any when empty) and nationality (German when not given)."""

    text: str
    types: frozenset[str]
    sizes: frozenset[str] = frozenset()
    nats: frozenset[str] = frozenset({"german"})

    def fits(self, spec: UnitSpec) -> bool:
        return (spec.side == "german" and spec.type in self.types and spec.nat in self.nats
                and (not self.sizes or spec.size in self.sizes))


@dataclass(frozen=True)
class WithdrawalTable:
    """17.4: for each GT, how many German units of each kind are withdrawn (8.16); a GT the table
    does not list has none."""

    kinds: dict[str, WithdrawalKind] = field(default_factory=dict)
    rows: dict[int, dict[str, int]] = field(default_factory=dict)
    provisional: bool = True
    known: frozenset[int] = frozenset()
    note: str = ""

    def due(self, turn: int) -> dict[str, int]:
        return dict(self.rows.get(turn, {}))


@dataclass(frozen=True)
class RefitTable:
    """17.5: the steps a refitting German panzer or motorized-infantry division regains for each
    1d6 roll (steps[face - 1]; 8.20)."""

    steps: tuple[int, ...]
    provisional: bool = True
    note: str = ""


@dataclass(frozen=True)
class Charts:
    crt: ResultsTable
    victory: dict[int, int]
    victory_provisional: bool
    victory_known: frozenset[int]
    victory_note: str
    terrain: dict[str, dict[str, Any]]
    hexsides: dict[str, dict[str, Any]]
    settlements: dict[str, dict[str, Any]]
    stacking_limit: int
    weather: WeatherTable
    spat: Spat = field(default_factory=Spat)
    gast: GastTable | None = None  # 17.10; None when the charts file has none
    withdrawals: WithdrawalTable = field(default_factory=WithdrawalTable)
    refit: RefitTable | None = None  # 17.5; None: the charts give none (refits are then refused)
    air: AirCharts = field(default_factory=AirCharts)


# 3.2: the SUT's abbreviations (17.6), as unit type and size. A SUT may also name another kind of
# Soviet unit as "type size" (e.g. "cavalry X"), as a Guards conversion does.
SUT_TYPES: dict[str, tuple[str, str]] = {
    "CD": ("cavalry", "XX"), "MRD": ("motorized", "XX"), "RB": ("infantry", "X"), "RD": ("infantry", "XX"),
    "TD": ("tank", "XX"), "TB": ("tank", "X"), "MRB": ("motorized", "X"),
}
NOT_AT_START = ("TB", "MRB")  # 3.2: no tank or motorized-rifle brigades in the starting set-up
SETUP_BY = ("scenario", "players", "soviet", "german")  # who sets up: the scenario's list, or the players


def sut_type(spec: UnitSpec) -> str:
    """A Soviet unit's kind in the SUT (3.2): its abbreviation (CD, MRD, RB, RD, TD, TB, MRB), else
    "type size"."""
    for abbr, kind in SUT_TYPES.items():
        if kind == (spec.type, spec.size):
            return abbr
    return f"{spec.type} {spec.size}"


@dataclass(frozen=True)
class Sut:
    """17.6, the Soviet Unit Table (not in the rulebook text: scenario data): for each kind of unit
    how many start in the Frontier Zone and in the Interior Zone (3.2), and how many of the others
    arrive on each GT (3.5). The 15 Guards units are not in it (3.2: set aside; 8.11 conversions)."""

    fz: dict[str, int]
    iz: dict[str, int]
    schedule: dict[int, dict[str, int]]
    provisional: bool = True
    note: str = ""

    def kinds(self) -> list[str]:
        return sorted({*self.fz, *self.iz, *(k for row in self.schedule.values() for k in row)})


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    note: str
    ruleset: str
    first_turn: int
    last_turn: int
    options: dict[str, Any]
    setup: tuple[tuple[str, str], ...]  # (unit, hex or OKH area, 8.4)
    reinforcements: tuple[tuple[int, str, str], ...]  # (GT, unit, fixed entry hex or "" for the rules' entry)
    map: MapData
    units: dict[str, UnitSpec]
    units_provisional: bool
    units_note: str
    charts: Charts
    digest: str
    free_setup: bool = False  # the set-up is a free position (test data): 3.3-3.7 are not checked
    conversions: tuple[tuple[int, str, str, str], ...] = ()  # 8.11: (GT, type, size, Guards unit)
    tank_brigades: tuple[str, ...] = ()  # 8.9: the group of tank brigades rolled for from GT3
    security: tuple[str, ...] = ()  # 8.21: the German security divisions held off the map
    setup_by: str = "scenario"  # SETUP_BY: "players" (or one side) set up by orders before GT1 (3.2-3.7)
    sut: Sut | None = None  # 17.6: with a Soviet set-up by the player
    unmet_minimums: tuple[str, ...] = ()  # set-up minimums (3.3, 3.4) the scenario declares its map cannot meet

    def sets_up(self, side: str) -> bool:
        """Whether ``side`` sets up by orders before the first GT (3.2-3.7), not from the list."""
        return self.setup_by in ("players", side)


def _parse_values(text: str) -> tuple[int, int, int]:
    a, d, m = (int(x) for x in text.split("-"))
    return a, d, m


def _need(problems: list[Problem], data: dict[str, Any], schema: str, where: str) -> None:
    problems.extend(schema_problems(data, schema, where))


def _load(path: Path, schema: str, problems: list[Problem]) -> dict[str, Any]:
    data, found = read_validated(path, schema)  # bytes that passed the schema before are not checked again
    problems.extend(found)
    return data


def load_charts(path: Path, problems: list[Problem]) -> tuple[Charts | None, dict[str, Any]]:
    raw = _load(path, "proud-monster/charts", problems)
    if problems:
        return None, raw
    c = raw["crt"]
    rows = {int(face): tuple(Result.parse(x) for x in cells) for face, cells in c["rows"].items()}
    for face, cells in rows.items():
        if len(cells) != len(c["columns"]):
            problems.append(Problem(f"{path}: crt.rows.{face}", f"{len(cells)} cells for {len(c['columns'])} columns", "17.7"))
    for col in c["columns"]:
        Odds.parse(col)
    crt = ResultsTable(
        name="CRT 17.7",
        columns=tuple(c["columns"]),
        rows=rows,
        provisional=bool(c.get("provisional", False)),
        note=c.get("note", ""),
        above=Result.parse(c["above"]),
        below=Result.parse(c["below"]),
        known=frozenset((int(f), col) for f, col in c.get("known", [])),
    )
    v = raw["victory"]
    w = raw["weather"]
    weather = WeatherTable(
        rows={int(t): tuple(cells) for t, cells in sorted(w["table"].items(), key=lambda x: int(x[0]))},
        provisional=bool(w.get("provisional", False)),
        note=w.get("note", ""),
    )
    charts = Charts(
        crt=crt,
        victory={int(k): int(x) for k, x in v["thresholds"].items()},
        victory_provisional=bool(v.get("provisional", False)),
        victory_known=frozenset(int(x) for x in v.get("known", [])),
        victory_note=v.get("note", ""),
        terrain=raw["terrain"],
        hexsides=raw["hexsides"],
        settlements=raw["settlements"],
        stacking_limit=int(raw["stacking"]["limit"]),
        weather=weather,
        spat=_load_spat(raw.get("spat", {})),
        gast=_load_gast(raw["gast"]) if "gast" in raw else None,
        withdrawals=_load_withdrawals(raw.get("withdrawals", {}), path, problems),
        refit=_load_refit(raw["refit"]) if "refit" in raw else None,
        air=_load_air(raw.get("air", {}), f"{path}: air", problems),
    )
    return charts, raw


def _load_gast(raw: dict[str, Any]) -> GastTable:
    """17.10: ``results`` per die face, each "none" or a left shift such as "1L"."""
    return GastTable(
        results=tuple(0 if r == "none" else int(str(r)[:-1]) for r in raw["results"]),
        provisional=bool(raw.get("provisional", False)),
        note=str(raw.get("note", "")),
    )


def _load_withdrawals(raw: dict[str, Any], path: Path, problems: list[Problem]) -> WithdrawalTable:
    kinds = {str(k): WithdrawalKind(text=str(v["text"]), types=frozenset(str(x) for x in v["types"]),
                                    sizes=frozenset(str(x) for x in v.get("sizes", [])),
                                    nats=frozenset(str(x) for x in v.get("nats", ["german"])))
             for k, v in raw.get("kinds", {}).items()}
    rows: dict[int, dict[str, int]] = {}
    for turn, line in sorted(raw.get("table", {}).items(), key=lambda x: int(x[0])):
        for kind in line:
            if kind not in kinds:
                problems.append(Problem(f"{path}: withdrawals.table.{turn}", f"unknown kind '{kind}': not in "
                                                                             "withdrawals.kinds", "17.4"))
        rows[int(turn)] = {str(k): int(n) for k, n in line.items()}
    return WithdrawalTable(kinds=kinds, rows=rows, provisional=bool(raw.get("provisional", False)),
                           known=frozenset(int(x) for x in raw.get("known", [])), note=str(raw.get("note", "")))


def _load_refit(raw: dict[str, Any]) -> RefitTable:
    return RefitTable(steps=tuple(int(x) for x in raw["steps"]), provisional=bool(raw.get("provisional", False)),
                      note=str(raw.get("note", "")))


def _load_air(raw: dict[str, Any], where: str, problems: list[Problem]) -> AirCharts:
    """17.8 and 10.4 from the charts' [air] table; each GT's list has one value per player-turn
    sequence (5.4: one on GT1, two on every other GT)."""
    def unit(e: dict[str, Any], w: str) -> AirUnit:
        points: dict[int, tuple[int, ...]] = {}
        for t, row in sorted(e.get("points", {}).items(), key=lambda x: int(x[0])):
            values = tuple(int(x) for x in (row if isinstance(row, list) else [row]))
            if len(values) != (1 if int(t) == 1 else 2):
                problems.append(Problem(f"{w}.points.{t}", f"{len(values)} value(s) for GT{t}, which has "
                                                             f"{1 if int(t) == 1 else 2} player-turn sequence(s)", "5.4"))
            points[int(t)] = values
        return AirUnit(str(e["id"]), str(e.get("name", e["id"])), points, int(e.get("shift", 0)))

    german = tuple(unit(e, f"{where}.german[{i}]") for i, e in enumerate(raw.get("german", [])))
    soviet = raw.get("soviet")
    ids = [a.id for a in german] + ([str(soviet["id"])] if soviet else [])
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(Problem(where, f"the air unit id {dup} is given twice", "17.8"))
    sov = None
    if soviet:  # 10.4: GT12 only, the same points in both sequences, no column shift
        sov = AirUnit(str(soviet["id"]), str(soviet.get("name", soviet["id"])), {12: (int(soviet["points"]),) * 2})
    return AirCharts(german, sov, bool(raw.get("provisional", False)), str(raw.get("note", "")))


def _load_spat(raw: dict[str, Any]) -> Spat:
    return Spat(
        lines={str(k): int(v) for k, v in raw.get("lines", {}).items()},
        cancels={str(k): tuple(str(x) for x in v) for k, v in raw.get("cancels", {}).items()},
        provisional=bool(raw.get("provisional", False)),
        known=frozenset(str(x) for x in raw.get("known", [])),
        note=str(raw.get("note", "")),
    )


def load_map(path: Path, problems: list[Problem]) -> tuple[MapData | None, dict[str, Any]]:
    raw = _load(path, "proud-monster/map", problems)
    if problems:
        return None, raw
    numbering = Numbering(int(raw["map"].get("north_last_row", 26)))
    hexes: dict[str, HexSpec] = {}
    for hid, h in raw["hexes"].items():
        try:
            cid = numbering.canonical(hid)
        except ValueError as e:
            problems.append(Problem(f"{path}: hexes.{hid}", str(e), "2.3"))
            continue
        if cid in hexes:
            problems.append(Problem(f"{path}: hexes.{hid}", f"the same hex as {cid} (2.4 map join)", "2.4"))
            continue
        kinds = [k for k in ("city", "large_town", "town") if k in h]
        if len(kinds) > 1:  # 12.17: a hex has one settlement at most
            problems.append(Problem(f"{path}: hexes.{hid}", f"both {' and '.join(kinds)}: a hex has at most one of town, "
                                                             "large_town and city", "12.17"))
        kind = kinds[0] if kinds else ""
        hexes[cid] = HexSpec(
            id=cid,
            kind=h["t"] if h["t"] in WATER_KINDS else LAND,
            terrain=h["t"],
            name=h.get(kind, h.get("name", "")) if kind else h.get("name", ""),
            country=h.get("country", "ussr"),
            zomo=bool(h.get("zomo", False)),
            settlement=kind,
            place=h.get(kind, h.get("name", "")) if kind else h.get("name", ""),
            vp=int(h.get("vp", 0)),
            md=bool(h.get("md", False)),
            zone=h.get("zone", "NZ"),
            fort=h.get("fort", ""),
            line=h.get("line", ""),
            stalin=bool(h.get("stalin", False)),
            supply=h.get("supply", ""),
            road=bool(h.get("road", False)),
            port=bool(h.get("port", False)),
            okh=h.get("okh", ""),
            beach=h.get("beach", ""),
        )
    hexsides: dict[str, frozenset[str]] = {}
    written: dict[str, str] = {}
    for key, feats in raw.get("hexsides", {}).items():
        parts = key.split("-")
        if len(parts) != 2:
            problems.append(Problem(f"{path}: hexsides.{key}", "a hexside is written 'HEX1-HEX2'"))
            continue
        try:
            a, b = (numbering.canonical(p) for p in parts)
        except ValueError as e:
            problems.append(Problem(f"{path}: hexsides.{key}", str(e)))
            continue
        if a not in hexes or b not in hexes:
            problems.append(Problem(f"{path}: hexsides.{key}", "names a hex that is not on the map"))
            continue
        if not adjacent(numbering.parse(a), numbering.parse(b)):
            problems.append(Problem(f"{path}: hexsides.{key}", f"{a} and {b} are not adjacent (D.1 layout)"))
            continue
        side = hexside_key(a, b)
        if side in written:
            problems.append(Problem(f"{path}: hexsides.{key}", f"the same hexside as {written[side]}: give it once"))
            continue
        written[side] = key
        hexsides[side] = frozenset([feats] if isinstance(feats, str) else feats)
    m = raw["map"]
    return MapData(numbering, hexes, hexsides, id=m["id"], title=m["title"], note=m.get("note", ""),
                   connected=bool(m.get("connected", True))), raw


def load_units(path: Path, problems: list[Problem]) -> tuple[dict[str, UnitSpec], dict[str, Any]]:
    raw = _load(path, "proud-monster/units", problems)
    if problems:
        return {}, raw
    units: dict[str, UnitSpec] = {}
    for i, u in enumerate(raw["unit"]):
        where = f"{path}: unit[{i}] ({u['id']})"
        if u["id"] in units:
            problems.append(Problem(where, "duplicate unit id"))
        if len(u["values"]) != u["steps"]:
            problems.append(Problem(where, f"{u['steps']} steps need {u['steps']} value sets, got {len(u['values'])}", "2.14"))
            continue
        units[u["id"]] = UnitSpec(
            u["id"], u.get("name", u["id"]), u["side"], u["nat"], u["type"], u["size"], u["steps"],
            tuple(_parse_values(v) for v in u["values"]), refit=bool(u.get("refit", True)),
        )
    return units, raw


def scenario_path(name: str) -> Path:
    """A bundled scenario by name, or a scenario file by path (``.toml``: test and owner data)."""
    return bundled_scenario_path(scenarios_dir() / GAME_DIR, name)


def scenario_names() -> list[str]:
    return bundled_scenario_names(scenarios_dir() / GAME_DIR)


@lru_cache(maxsize=8)
def load_scenario(name: str) -> Scenario:
    """Load and cross-check a bundled scenario; ModuleDataError lists every problem found."""
    path = scenario_file("Proud Monster", name, scenario_path(name), scenario_names())
    problems: list[Problem] = []
    raw = _load(path, "proud-monster/scenario", problems)
    if problems:
        raise ModuleDataError(f"{path}: invalid scenario", problems)
    s = raw["scenario"]
    charts_file = path.parent / s["charts"] if "charts" in s else scenarios_dir() / GAME_DIR / "charts.toml"
    charts, charts_raw = load_charts(charts_file, problems)
    mapdata, map_raw = load_map(path.parent / s["map"], problems)
    units, units_raw = load_units(path.parent / s["units"], problems)
    if problems or charts is None or mapdata is None:
        raise ModuleDataError(f"{path}: the scenario's data files have problems", problems)
    placed: set[str] = set()

    def placements(key: str) -> list[tuple[dict[str, Any], str]]:
        """Each entry of a set-up or reinforcement list with its canonical hex ("" for a
        reinforcement entering by the rules, an OKH area for a German unit held back); cross-checked."""
        out = []
        for i, e in enumerate(raw.get(key, [])):
            where = f"{path}: {key}[{i}]"
            given = e.get("hex", "")
            hid = given if given in ("", *OKH_AREAS) else mapdata.canonical(given)
            if e["unit"] not in units:
                problems.append(Problem(where, f"unknown unit {e['unit']}"))
            if hid is None:
                problems.append(Problem(where, f"{e['hex']} is not a hex of the map"))
            if e["unit"] in placed:
                problems.append(Problem(where, f"{e['unit']} is placed twice"))
            placed.add(e["unit"])
            out.append((e, given if hid is None else hid))
        return out

    def pool(key: str) -> tuple[str, ...]:
        """A pool of units held off the map (8.9, 8.21): known units, none of them placed."""
        ids = tuple(str(u) for u in raw.get("pools", {}).get(key, []))
        for u in ids:
            if u not in units:
                problems.append(Problem(f"{path}: pools.{key}", f"unknown unit {u}"))
            elif u in placed:
                problems.append(Problem(f"{path}: pools.{key}", f"{u} is also in the set-up or the reinforcements"))
            placed.add(u)
        return ids

    setup = [(e["unit"], hid) for e, hid in placements("setup")]
    reinf = [(int(e["turn"]), e["unit"], hid) for e, hid in placements("reinforcement")]
    tank_brigades, security = pool("tank_brigades"), pool("security")
    conversions = []
    for i, e in enumerate(raw.get("conversion", [])):
        kind, size = str(e["from"]).split(" ")
        g = units.get(e["guards"])
        if g is None or not g.guards:
            problems.append(Problem(f"{path}: conversion[{i}]", f"{e['guards']} is not a Soviet 2-step Guards unit", "8.11"))
        elif e["guards"] in placed:
            problems.append(Problem(f"{path}: conversion[{i}]", f"{e['guards']} is converted in twice, or is also placed", "8.11"))
        placed.add(e["guards"])
        conversions.append((int(e["turn"]), kind, size, str(e["guards"])))
    setup_by = str(s.get("setup_by", "scenario"))
    sut = _load_sut(raw, path, setup_by, units, placed, (int(s.get("first_turn", 1)), int(s.get("last_turn", 12))),
                    setup, problems)
    if problems:
        raise ModuleDataError(f"{path}: the scenario does not fit its data", problems)
    digest = "sha256:" + hashlib.sha256(
        canonical({"scenario": raw, "map": map_raw, "units": units_raw, "charts": charts_raw})
    ).hexdigest()
    return Scenario(
        id=s["id"], title=s["title"], note=s.get("note", ""), ruleset=s.get("ruleset", "basic"),
        first_turn=int(s.get("first_turn", 1)), last_turn=int(s.get("last_turn", 12)),
        options=dict(raw.get("options", {})), setup=tuple(setup), reinforcements=tuple(reinf),
        map=mapdata, units=units, units_provisional=bool(units_raw.get("units", {}).get("provisional", False)),
        units_note=units_raw.get("units", {}).get("note", ""), charts=charts, digest=digest,
        free_setup=bool(s.get("free_setup", False)), conversions=tuple(conversions),
        tank_brigades=tank_brigades, security=security, setup_by=setup_by, sut=sut,
        unmet_minimums=tuple(str(x) for x in s.get("unmet_minimums", [])),
    )


def soviet_setup_pool(units: dict[str, UnitSpec], placed: set[str]) -> list[str]:
    """3.2: the units a Soviet player sets up from, in the order units.toml lists them: every Soviet
    1-step unit the scenario does not place, schedule or hold in a pool (the 15 Guards units are set
    aside, 3.2, and come in by conversion, 8.11)."""
    return [u for u, spec in units.items() if spec.side == "soviet" and spec.steps == 1 and u not in placed]


def _load_sut(raw: dict[str, Any], path: Path, setup_by: str, units: dict[str, UnitSpec], placed: set[str],
              turns: tuple[int, int], setup: list[tuple[str, str]], problems: list[Problem]) -> Sut | None:
    """The SUT (17.6) of a scenario whose Soviet player sets up (3.2-3.5), cross-checked: no [[setup]]
    of a side that sets up by orders, no brigades of 3.2 at the start, arrivals within the scenario's
    turns and never on GT1 (8.7), and every unit of the set-up pool either set up or scheduled."""
    where = f"{path}: sut"
    for u, _ in setup:
        side = units[u].side if u in units else ""
        if setup_by in ("players", side):
            problems.append(Problem(f"{path}: setup", f"{u} is in [[setup]], but with setup_by = \"{setup_by}\" the "
                                                      f"{side} player sets up his units himself", "3.2" if side == "soviet" else "3.7"))
    t = raw.get("sut")
    if setup_by not in ("players", "soviet"):
        if t is not None:
            problems.append(Problem(where, "a SUT is used only when the Soviet player sets up (setup_by = \"players\" "
                                           "or \"soviet\")", "17.6"))
        return None
    if t is None:
        problems.append(Problem(where, f"setup_by = \"{setup_by}\": the Soviet player sets up from the Soviet Unit Table; "
                                       "give [sut]", "3.2"))
        return None
    sut = Sut(fz={str(k): int(v) for k, v in t.get("fz", {}).items()},
              iz={str(k): int(v) for k, v in t.get("iz", {}).items()},
              schedule={int(g): {str(k): int(v) for k, v in row.items()} for g, row in t.get("schedule", {}).items()},
              provisional=bool(t.get("provisional", True)), note=str(t.get("note", "")))
    for zone, row in (("fz", sut.fz), ("iz", sut.iz)):
        for k in sorted(row):
            if k in NOT_AT_START and row[k]:
                problems.append(Problem(f"{where}.{zone}.{k}", "no tank or motorized-rifle brigade is in the Soviet "
                                                               "starting set-up: they arrive as reinforcements", "3.2"))
    first, last = turns
    for g in sorted(sut.schedule):
        if not max(first, 1) < g <= last:
            problems.append(Problem(f"{where}.schedule.{g}", f"GT{g} is not a turn after the first that the scenario "
                                                             f"plays (GT{first + 1}-GT{last}; no Soviet reinforcement on "
                                                             "GT1, 8.7)", "8.1"))
    pool: dict[str, list[str]] = {}
    for u in soviet_setup_pool(units, placed):
        pool.setdefault(sut_type(units[u]), []).append(u)
    for k in sorted({*sut.kinds(), *pool}):
        start = sut.fz.get(k, 0) + sut.iz.get(k, 0)
        later = sum(row.get(k, 0) for row in sut.schedule.values())
        have = len(pool.get(k, []))
        if have != start + later:
            problems.append(Problem(f"{where} {k}", f"{start} set up and {later} scheduled, but the scenario has {have} "
                                                    f"{k} unit(s) to set up from (every Soviet 1-step unit it does not "
                                                    "place otherwise): each one is set up or scheduled", "3.5"))
    return sut


# 6.3: German-side sizes counting less than a full unit (with the option stacking_details).
GERMAN_SIZE_VALUES = {"X": Fraction(1, 2), "III": Fraction(1, 4), "II": Fraction(1, 4)}
SMALL_SIZES = frozenset({"III", "II"})  # 6.3: regiments and battalions


def stacking_value(spec: UnitSpec, details: bool = False) -> Fraction:
    """Basic game: every unit counts 1 (6.1). With ``details`` (option stacking_details): a German-side
    brigade counts 1/2 and a regiment or battalion 1/4 (6.3); a corps (the Hungarian Fast Corps, each
    Flak corps, the ArKo: 6.3 design note, 14.41) and a division count 1; every Soviet unit counts 1,
    whatever its size (6.4)."""
    if not details or spec.side == "soviet":
        return Fraction(1)
    return GERMAN_SIZE_VALUES.get(spec.size, Fraction(1))


# --------------------------------------------------------------------------- untried Soviet units (2.15)

MAX_POOL = MAX_SIDES  # the largest die pbem rolls (pbem.mechanics.dice)


def can_be_untried(spec: UnitSpec) -> bool:
    """2.15: every Soviet unit but the 2-step Guards starts untried (option untried_units)."""
    return spec.side == "soviet" and spec.steps == 1


def pool_key(spec: UnitSpec) -> tuple[str, str, int]:
    """What the back of an untried counter tells (2.15): its type and MF, and its size, which its
    colour gives away (2.8; 3.2 sorts the counters by type and colour)."""
    return spec.type, spec.size, spec.values[0][2]


def counter_values(spec: UnitSpec) -> str:
    """The printed attack-defense of a 1-step counter, as the position records a tried unit: "2-3"."""
    a, d, _ = spec.values[0]
    return f"{a}-{d}"


def is_untried(spec: UnitSpec, unit: dict[str, Any], options: dict[str, Any]) -> bool:
    """2.15: with the option untried_units, a Soviet 1-step unit is untried until it first fights;
    the position then records the counter drawn (``tried``)."""
    return bool(options.get("untried_units")) and can_be_untried(spec) and "tried" not in unit


def unit_factors(spec: UnitSpec, unit: dict[str, Any]) -> tuple[int, int, int]:
    """Attack, defense and movement of a unit in the position: a tried unit has the values of the
    counter drawn for it (2.15), any other unit those of its current step (2.16)."""
    if "tried" in unit:
        a, d = (int(x) for x in str(unit["tried"]).split("-"))
        return a, d, spec.values[0][2]
    return spec.factors(int(unit["steps"]))


def shown_values(spec: UnitSpec, unit: dict[str, Any], options: dict[str, Any]) -> str:
    """The factors a counter shows: attack-defense-movement, "?-?-MF" for an untried unit (2.15)."""
    if is_untried(spec, unit, options):
        return f"?-?-{spec.values[0][2]}"
    a, d, m = unit_factors(spec, unit)
    return f"{a}-{d}-{m}"


def as_hex(m: MapData, hex_id: str) -> Hex:
    return m.numbering.parse(hex_id)


# --------------------------------------------------------------------------- the GAS line (9.3)

GAS_ENDS = (("4000N", "4100N"), ("3715S", "3815S"))  # 9.3: the line runs from the first to the second
WATER_SIDES = frozenset({"sea", "lake", "sivash", "kerch"})  # hexsides the land does not cross


@dataclass(frozen=True)
class GasSides:
    """The land hexes east and west of the GAS line (9.3), worked out by ``gas_sides``; ``both``
    holds the hexes reached from both sides, which a line without gaps leaves empty."""

    east: frozenset[str]
    west: frozenset[str]
    both: frozenset[str]


def gas_sides(m: MapData) -> GasSides:
    """Which land hexes are east of the GAS line (9.3), the hexsides the map marks ``gas``.

    The line runs north to south, so of the two hexes of a ``gas`` hexside in different columns the
    one in the higher column is east of it and the other west (a hexside between two hexes of one
    column, where the line steps sideways, decides nothing). From these hexes the land is filled
    outward, hex to adjacent land hex, never across a ``gas`` hexside nor across water: an all-sea or
    all-lake hex, or an all-sea, all-lake, Sivash or Kerch hexside. What is reached from the east
    hexes is east of the line; everything else is west, including land the line does not touch
    (land cut off by water, such as the Crimea, whose only link east is the Kerch Strait: 9.3 design
    note). A map without ``gas`` hexsides has no east side."""
    seeds: dict[str, set[str]] = {"east": set(), "west": set()}
    for key, feats in sorted(m.hexsides.items()):
        if "gas" not in feats:
            continue
        a, b = key.split("-")
        ca, cb = as_hex(m, a).col, as_hex(m, b).col
        if ca != cb:
            seeds["east"].add(a if ca > cb else b)
            seeds["west"].add(b if ca > cb else a)

    def fill(start: set[str]) -> frozenset[str]:
        seen = {h for h in start if not m.hexes[h].water}
        todo = sorted(seen)
        while todo:
            here = todo.pop()
            for n in m.neighbours(here):
                if n in seen or m.hexes[n].water or m.border_features(here, n) & (WATER_SIDES | {"gas"}):
                    continue
                seen.add(n)
                todo.append(n)
        return frozenset(seen)

    east, west = fill(seeds["east"]), fill(seeds["west"])
    return GasSides(east, west, east & west)


# --------------------------------------------------------------------------- validation
# What the schemas and the loader cannot see: whether the data fits the rules. Every check is
# generic: it holds for the published map, for an authored map and for a small test map alike.


@dataclass(frozen=True, slots=True)
class RulebookPlace:
    """A place whose hex the rulebook gives; a map that has the hex must put the place there."""

    hex: str
    kinds: tuple[str, ...]
    name: str
    rule: str
    vp: int | None = None  # None: the rulebook does not give it
    md: bool | None = None


RULEBOOK_PLACES = (
    RulebookPlace("4201N", ("city",), "Leningrad", "2.3", md=True),
    RulebookPlace("4100N", ("town",), "Oranienbaum", "9.13"),
    RulebookPlace("2705N", ("city", "large_town"), "Riga", "8.7", md=False),
    RulebookPlace("2817N", ("city",), "Minsk", "4.2", vp=1, md=True),
    RulebookPlace("5017N", ("city",), "Moscow", "4.3", vp=9, md=True),
    RulebookPlace("5116N", ("city",), "Moscow", "4.3", vp=9, md=True),
    RulebookPlace("4921N", ("city", "large_town"), "Tula", "14.25"),
    RulebookPlace("2919S", ("city",), "Sevastopol", "4.2", vp=4),
)
RULEBOOK_RIVERS = (("2608N", "2707N", "15.2"),)  # the 15.2 example crosses a river there
# 9.15: each is two of the three hexsides among its three hexes.
TRIANGLES = (("sivash", "the Sivash", ("3215S", "3216S", "3315S")),
             ("kerch", "the Kerch Strait", ("3719S", "3819S", "3820S")))
# 8.2: the North OKH area touches the ZOMO along 1908N-1025N, except 1913N, 2013N and 2014N.
NOT_NORTH_OKH = frozenset({"1906N", "1907N", "1913N", "2013N", "2014N"})
SOUTH_OKH_NATIONS = frozenset({"italian", "romanian", "hungarian"})  # 8.5
ZOMO_COUNTRIES = frozenset({"germany", "hungary", "romania"})  # 3.7
FRONTIER_LAST_COLUMN = 22  # 3.3: the Frontier Zone is column 22 and every column west of it
FRONTIER_LARGE_TOWNS = 3  # 3.3: "each of the 3 large towns in the FZ"
VP_SETTLEMENTS = ("city", "large_town")
COUNTRY_NAMES = {"ussr": "the USSR", "germany": "Greater Germany", "hungary": "Hungary", "romania": "Romania",
                 "neutral": "a neutral country"}


def _water_rule(h: HexSpec) -> str:
    return "12.14" if h.terrain == "sea" else "13.7"


def _soviet_steps_ok(u: UnitSpec) -> bool:
    """2.15: every Soviet unit has 1 step, except the Guards units, which may have 2."""
    return u.steps == 1 or (u.steps == 2 and "guards" in u.name.lower())


def _hex_problems(m: MapData) -> list[Problem]:
    problems = []
    for h in sorted(m.hexes.values(), key=lambda x: x.id):
        where = f"hex {h.id}"
        if h.vp and h.settlement not in VP_SETTLEMENTS:
            problems.append(Problem(where, f"vp {h.vp} on a hex that is neither a city nor a large town", "4.2"))
        if h.settlement and h.water:
            problems.append(Problem(where, f"a {h.settlement.replace('_', ' ')} on an all-{h.terrain} hex; "
                                           "a hex only partly water takes the terrain of its land part", "D.2"))
        if h.settlement == "city" and h.terrain != "clear":
            problems.append(Problem(where, f"a city hex counts as clear: enter t = \"clear\", not {h.terrain}", "12.10"))
        if h.zomo and h.country not in ZOMO_COUNTRIES:
            problems.append(Problem(where, f"zomo on a hex of {COUNTRY_NAMES[h.country]}: the ZOMO is in Greater "
                                           "Germany, Hungary or Romania", "3.7"))
        if h.zone == "SZ" and h.id.endswith("N"):
            problems.append(Problem(where, "the Southern weather zone is on the South map only", "13.2"))
        if (h.fort or h.stalin) and h.water:
            problems.append(Problem(where, f"a {'Stalin Line hex' if h.stalin else h.fort.replace('heavy', 'heavy fort')} "
                                           f"on an all-{h.terrain} hex; fortifications are on land", "14.24"))
        if h.road and h.water:
            problems.append(Problem(where, f"road on an all-{h.terrain} hex; the Minsk-Moscow highway is on land", "12.20"))
        if h.line and not h.fort:
            problems.append(Problem(where, f"line \"{h.line}\" without fort: only a fort or heavy fort belongs to a "
                                           "fort line", "14.24"))
    large = sorted(h.id for h in m.hexes.values() if h.settlement == "large_town" and h.country == "ussr"
                   and m.numbering.parse(h.id).col <= FRONTIER_LAST_COLUMN)
    if len(large) > FRONTIER_LARGE_TOWNS:
        problems.append(Problem("Frontier Zone", f"{len(large)} large towns ({', '.join(large)}); the Frontier Zone "
                                                 f"has {FRONTIER_LARGE_TOWNS}", "3.3"))
    return problems


def _hexside_problems(m: MapData) -> list[Problem]:
    problems = []
    for key, feats in sorted(m.hexsides.items()):
        a, b = key.split("-")
        water = [x for x in (a, b) if m.hexes[x].water]
        if feats and water:
            problems.append(Problem(f"hexside {key}", f"{', '.join(sorted(feats))} next to the all-{m.hexes[water[0]].terrain}"
                                                      f" hex {water[0]}: a hexside feature needs land on both sides", "D.3"))
        countries = {m.hexes[a].country, m.hexes[b].country}
        if "border" in feats and not (len(countries) == 2 and "ussr" in countries):
            named = " and ".join(COUNTRY_NAMES[c] for c in sorted(countries))
            problems.append(Problem(f"hexside {key}", f"a border {'between' if len(countries) == 2 else 'inside'} "
                                                      f"{named}: a border separates the USSR from another country", "12.18"))
    for h in sorted(m.hexes):
        for n in m.neighbours(h):
            if h < n and not m.hexes[h].water and not m.hexes[n].water \
                    and {m.hexes[h].country, m.hexes[n].country} == {"germany", "ussr"} \
                    and "border" not in m.border_features(h, n):
                problems.append(Problem(f"hexside {hexside_key(h, n)}", "Germany meets the USSR here: mark the border",
                                        "12.18"))
    for feature, name, tri in TRIANGLES:
        if not all(h in m.hexes for h in tri):
            continue
        found = sorted(k for k, fs in m.hexsides.items() if feature in fs)
        inside = [k for k in found if set(k.split("-")) <= set(tri)]
        if len(inside) != 2 or len(found) != 2:
            problems.append(Problem(feature, f"{name} is exactly 2 of the 3 hexsides among {'/'.join(tri)}, and no "
                                             f"other hexside; found {', '.join(found) or 'none'}", "9.15"))
    for a, b, rule in RULEBOOK_RIVERS:
        if a in m.hexes and b in m.hexes and "river" not in m.border_features(a, b):
            problems.append(Problem(f"hexside {hexside_key(a, b)}", "the rulebook puts a river here", rule))
    return problems


def _place_problems(m: MapData) -> list[Problem]:
    problems = []
    for p in RULEBOOK_PLACES:
        h = m.hexes.get(p.hex)
        if h is None:
            continue
        where = f"hex {p.hex}"
        if h.settlement not in p.kinds or h.place != p.name:
            found = f"{h.settlement.replace('_', ' ')} {h.place}".strip() if h.settlement else "no town"
            problems.append(Problem(where, f"the rulebook puts {p.name}, a {' or '.join(k.replace('_', ' ') for k in p.kinds)},"
                                           f" here; found {found}", p.rule))
        if p.vp is not None and h.vp != p.vp:
            problems.append(Problem(where, f"{p.name} has {p.vp} VP, not {h.vp}", p.rule))
        if p.md is not None and h.md != p.md:
            problems.append(Problem(where, f"{p.name} {'is' if p.md else 'is not'} a Military District city: "
                                           f"md = {'true' if p.md else 'false'}", p.rule))
    return problems


CRIMEA_SOUTH_COAST = ("2817S", "3620S")  # 11.4: the hexes an amphibious invasion may target


def on_south_coast(hex_id: str) -> bool:
    """11.4: a hex of the Crimean south coast's range, 2817S to 3620S inclusive in hex-id order
    (South-map columns 28 to 36); which of them are coastal the map says with `beach`."""
    return hex_id.endswith("S") and CRIMEA_SOUTH_COAST[0] <= hex_id <= CRIMEA_SOUTH_COAST[1]


def _beach_problems(m: MapData) -> list[Problem]:
    """11.4: `beach` is given only on a land hex of the Crimean south coast (2817S-3620S) and names
    an adjacent all-sea hex, the one nearest it, where an invading force waits."""
    problems = []
    for h in sorted((x for x in m.hexes.values() if x.beach), key=lambda x: x.id):
        where = f"hex {h.id}"
        sea = m.canonical(h.beach)
        if h.water:
            problems.append(Problem(where, f"beach on an all-{h.terrain} hex: an invasion lands on a coastal land hex", "11.4"))
        elif not on_south_coast(h.id):
            problems.append(Problem(where, "beach outside the Crimean south coast (2817S-3620S), the only hexes an invasion "
                                           "may target", "11.4"))
        elif sea is None:
            problems.append(Problem(where, f"beach names {h.beach}, which is not a hex of the map", "11.4"))
        elif sea not in m.neighbours(h.id) or m.hexes[sea].terrain != "sea":
            problems.append(Problem(where, f"beach names {sea}, which is not an all-sea hex next to {h.id}", "11.4"))
    return problems


def _gas_problems(sc: Scenario) -> list[Problem]:
    """The GAS line (9.3), on a map that has one: it divides the land (no hex reached from both
    sides, every ``gas`` hexside between a hex east of it and one west of it), begins and ends at the
    rulebook's hexsides where the map has their hexes, leaves the Crimea (the SZ, and 3819S) and
    every German supply source west of it (9.3 design note, 9.11), and the charts have a GAST (17.10)."""
    m = sc.map
    gas = sorted(k for k, f in m.hexsides.items() if "gas" in f)
    if not gas:
        return []
    problems = []
    g = gas_sides(m)
    if g.both:
        both = sorted(g.both)
        problems.append(Problem("GAS line", f"the line does not divide the land: {len(both)} hex(es) are reached from "
                                            f"both sides, e.g. {', '.join(both[:6])} (a gap in the line?)", "9.3"))
    for a, b in GAS_ENDS:
        if a in m.hexes and b in m.hexes and "gas" not in m.border_features(a, b):
            problems.append(Problem(f"hexside {hexside_key(a, b)}", "the GAS line runs from 4000N/4100N to 3715S/3815S: "
                                                                    "mark this hexside gas", "9.3"))
    if sc.charts.gast is None:
        problems.append(Problem("charts", "the map has a GAS line but the charts have no [gast] table", "17.10"))
    if g.both:  # with a gap there is no east side to check
        return problems
    for key in gas:
        a, b = key.split("-")
        if (a in g.east) == (b in g.east):
            problems.append(Problem(f"hexside {key}", "marked gas, but not between a hex east of the GAS line and one "
                                                      "west of it", "9.3"))
    for h in sorted(g.east):
        spec = m.hexes[h]
        if spec.zone == "SZ" or h == "3819S":
            problems.append(Problem(f"hex {h}", "east of the GAS line, but the whole Crimea (3819S and beyond, "
                                                "the SZ) counts as west of it", "9.3"))
        if spec.supply == "german" or (spec.supply == "" and spec.zomo):
            problems.append(Problem(f"hex {h}", "a German supply source east of the GAS line", "9.11"))
    return problems


RULEBOOK_PORTS = (("2512S", "Odessa"), ("2919S", "Sevastopol"), ("4022S", "Novorossisk"))  # 9.17


def _port_problems(m: MapData) -> list[Problem]:
    """9.17: the rulebook's Black Sea ports are ports where the map has their hexes; a port is on land."""
    problems = []
    for h, name in RULEBOOK_PORTS:
        if h in m.hexes and not m.hexes[h].port:
            problems.append(Problem(f"hex {h}", f"the rulebook makes {name} a Black Sea port: port = true", "9.17"))
    for h in sorted(x for x, spec in m.hexes.items() if spec.port and spec.water):
        problems.append(Problem(f"hex {h}", f"a port on an all-{m.hexes[h].terrain} hex; a port is a land hex", "9.17"))
    return problems


def _land_problems(m: MapData) -> list[Problem]:
    """The land is one piece: every land hex reaches every other without crossing an all-sea or
    all-lake hex or hexside (12.14, 13.7). A map with islands or separate parts says connected = false."""
    land = sorted(h for h, x in m.hexes.items() if not x.water)
    if not land:
        return []
    seen = {land[0]}
    todo = [land[0]]
    while todo:
        h = todo.pop()
        for n in m.neighbours(h):
            if n not in seen and not m.hexes[n].water and not m.border_features(h, n) & {"sea", "lake"}:
                seen.add(n)
                todo.append(n)
    cut = [h for h in land if h not in seen]
    if not cut:
        return []
    return [Problem("map", f"the land is not one piece: {len(cut)} land hex(es) cut off from {land[0]}, e.g. "
                           f"{', '.join(cut[:8])} (a map with separate parts says connected = false)", "12.14")]


def _unit_problems(sc: Scenario) -> list[Problem]:
    problems = []
    pools: dict[tuple[str, str, int], int] = {}
    for u in sc.units.values():
        if can_be_untried(u):
            pools[pool_key(u)] = pools.get(pool_key(u), 0) + 1
    for (kind, size, mf), n in sorted(pools.items()):
        if n > MAX_POOL:
            problems.append(Problem(f"units {kind} {size} MF {mf}", f"{n} untried counters of one kind; pbem draws one "
                                                                     f"with a die of at most {MAX_POOL} sides", "2.15"))
    for uid, u in sorted(sc.units.items()):
        if u.side == "soviet" and not _soviet_steps_ok(u):
            problems.append(Problem(f"unit {uid}", f"{u.steps} steps: every Soviet unit but the Guards has 1 step", "2.15"))
        if u.side == "german" and u.nat == "german" and u.type in ("tank", "motorized") and u.size == "XX" \
                and u.steps != 4:
            problems.append(Problem(f"unit {uid}", f"{u.steps} steps: German panzer and motorized divisions have 4", "2.14"))
    return problems


def reinforcement_problems(sc: Scenario) -> list[Problem]:
    """The reinforcement schedule's problems: a GT the scenario plays after its first, and an entry hex
    where the rules let the unit arrive (8.1-8.7)."""
    problems = []
    m = sc.map
    md_reach = {n for h in m.hexes.values() if h.md and h.settlement in VP_SETTLEMENTS and h.country == "ussr"
                for n in m.neighbours(h.id)}
    for i, (turn, uid, hid) in enumerate(sc.reinforcements):
        u = sc.units[uid]
        where = f"reinforcement[{i}] GT{turn} {uid} {hid}".rstrip()
        if not sc.first_turn < turn <= sc.last_turn:
            problems.append(Problem(where, f"arrives outside GT{sc.first_turn + 1}-GT{sc.last_turn}, the turns after "
                                           "the first that the scenario plays", "8.1"))
        if not hid:  # the rules' entry: the OKH area (8.3, 8.5) or the Soviet's placement (8.7)
            continue
        h = m.hexes[hid]
        if h.water:
            problems.append(Problem(where, f"no unit arrives on an all-{h.terrain} hex", _water_rule(h)))
            continue
        if u.side == "german":
            if u.nat in SOUTH_OKH_NATIONS:
                if not h.zomo:
                    problems.append(Problem(where, "German-side reinforcements enter through a ZOMO hex", "8.5"))
            elif not (h.zomo and h.country == "germany"
                      and (hid not in NOT_NORTH_OKH or sc.options.get("okh_entry") == "any-zomo")):  # Ambiguity 14
                problems.append(Problem(where, "German reinforcements enter through a Greater-German ZOMO hex next to "
                                               "the North OKH area", "8.2"))
        elif not (h.country == "ussr" and (h.settlement in VP_SETTLEMENTS or hid in md_reach)):
            problems.append(Problem(where, "Soviet reinforcements are placed in a Soviet city or large town, or next "
                                           "to a Military District one", "8.7"))
    return problems


def component_problems(sc: Scenario) -> list[Problem]:
    """Every way a loaded scenario's map and counters break the rules (docs/map-format.md), each with
    its rule; with the set-up rules' (setup.scenario_problems) and reinforcement_problems, what
    validation.validate_scenario finds.

    The checks the loader makes (schemas, hex ids, hexsides joining adjacent hexes, known units,
    each unit placed once) are not repeated. The places, rivers and triangles the rulebook locates
    are checked only where the map has their hexes, so that a small map passes.
    """
    m = sc.map
    problems = (_hex_problems(m) + _hexside_problems(m) + _place_problems(m) + _beach_problems(m) + _port_problems(m)
                + _gas_problems(sc))
    if m.connected:
        problems += _land_problems(m)
    return problems + _unit_problems(sc)
