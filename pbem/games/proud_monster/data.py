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
from pbem.exchange.files import read_toml, schema_problems
from pbem.mechanics.hexgrid import Hex, Numbering, adjacent, hexside_key, neighbours
from pbem.mechanics.odds import Odds
from pbem.mechanics.tables import Result, ResultsTable
from pbem.resources import scenarios_dir

GAME_DIR = "proud-monster"

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
class HexSpec:
    id: str
    terrain: str
    country: str = "ussr"
    zomo: bool = False
    settlement: str = ""  # town | large_town | city
    place: str = ""
    vp: int = 0
    md: bool = False
    zone: str = "NZ"

    @property
    def water(self) -> bool:
        return self.terrain in ("sea", "lake")


@dataclass(frozen=True)
class MapData:
    id: str
    title: str
    note: str
    numbering: Numbering
    hexes: dict[str, HexSpec]
    hexsides: dict[str, frozenset[str]]
    adj: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        return self.adj.get(hex_id, ())

    def side_features(self, a: str, b: str) -> frozenset[str]:
        return self.hexsides.get(hexside_key(a, b), frozenset())

    def canonical(self, hex_id: str) -> str | None:
        """The canonical id of a map hex, or None when the id is malformed or off the map."""
        try:
            c = self.numbering.canonical(hex_id)
        except ValueError:
            return None
        return c if c in self.hexes else None

    def moscow(self) -> tuple[str, ...]:
        return tuple(sorted(h.id for h in self.hexes.values() if h.place == "Moscow" and h.settlement == "city"))


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


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    note: str
    ruleset: str
    first_turn: int
    last_turn: int
    options: dict[str, Any]
    setup: tuple[tuple[str, str], ...]
    reinforcements: tuple[tuple[int, str, str], ...]
    map: MapData
    units: dict[str, UnitSpec]
    units_provisional: bool
    units_note: str
    charts: Charts
    digest: str


def _parse_values(text: str) -> tuple[int, int, int]:
    a, d, m = (int(x) for x in text.split("-"))
    return a, d, m


def _need(problems: list[Problem], data: dict[str, Any], schema: str, where: str) -> None:
    problems.extend(schema_problems(data, schema, where))


def _load(path: Path, schema: str, problems: list[Problem]) -> dict[str, Any]:
    data = read_toml(path)
    _need(problems, data, schema, str(path))
    return data


def load_charts(path: Path, problems: list[Problem]) -> tuple[Charts | None, dict[str, Any]]:
    raw = _load(path, "pm-charts", problems)
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
    )
    return charts, raw


def load_map(path: Path, problems: list[Problem]) -> tuple[MapData | None, dict[str, Any]]:
    raw = _load(path, "pm-map", problems)
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
        kind = next((k for k in ("city", "large_town", "town") if k in h), "")
        hexes[cid] = HexSpec(
            id=cid,
            terrain=h["t"],
            country=h.get("country", "ussr"),
            zomo=bool(h.get("zomo", False)),
            settlement=kind,
            place=h.get(kind, h.get("name", "")) if kind else h.get("name", ""),
            vp=int(h.get("vp", 0)),
            md=bool(h.get("md", False)),
            zone=h.get("zone", "NZ"),
        )
    hexsides: dict[str, frozenset[str]] = {}
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
        hexsides[hexside_key(a, b)] = frozenset([feats] if isinstance(feats, str) else feats)
    adj: dict[str, tuple[str, ...]] = {}
    for hid in hexes:
        ns = (numbering.format(n) for n in neighbours(numbering.parse(hid)))
        adj[hid] = tuple(n for n in ns if n in hexes)
    m = raw["map"]
    return MapData(m["id"], m["title"], m.get("note", ""), numbering, hexes, hexsides, adj), raw


def load_units(path: Path, problems: list[Problem]) -> tuple[dict[str, UnitSpec], dict[str, Any]]:
    raw = _load(path, "pm-units", problems)
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
            tuple(_parse_values(v) for v in u["values"]),
        )
    return units, raw


def scenario_path(name: str) -> Path:
    """A bundled scenario by name, or a scenario file by path (``.toml``: test and owner data)."""
    if name.endswith(".toml"):
        return Path(name)
    return scenarios_dir() / GAME_DIR / name / "scenario.toml"


def scenario_names() -> list[str]:
    root = scenarios_dir() / GAME_DIR
    return sorted(p.parent.name for p in root.glob("*/scenario.toml"))


@lru_cache(maxsize=8)
def load_scenario(name: str) -> Scenario:
    """Load and cross-check a bundled scenario; ModuleDataError lists every problem found."""
    path = scenario_path(name)
    if not path.is_file():
        raise ModuleDataError(f"no Proud Monster scenario '{name}'", hint=f"Bundled: {', '.join(scenario_names())}.")
    problems: list[Problem] = []
    raw = _load(path, "pm-scenario", problems)
    if problems:
        raise ModuleDataError(f"{path}: invalid scenario", problems)
    s = raw["scenario"]
    charts_file = path.parent / s["charts"] if "charts" in s else scenarios_dir() / GAME_DIR / "charts.toml"
    charts, charts_raw = load_charts(charts_file, problems)
    mapdata, map_raw = load_map(path.parent / s["map"], problems)
    units, units_raw = load_units(path.parent / s["units"], problems)
    if problems or charts is None or mapdata is None:
        raise ModuleDataError(f"{path}: the scenario's data files have problems", problems)
    placed: dict[str, str] = {}
    setup = []
    for i, e in enumerate(raw.get("setup", [])):
        where = f"{path}: setup[{i}]"
        hid = mapdata.canonical(e["hex"])
        if e["unit"] not in units:
            problems.append(Problem(where, f"unknown unit {e['unit']}"))
        if hid is None:
            problems.append(Problem(where, f"{e['hex']} is not a hex of the map"))
        if e["unit"] in placed:
            problems.append(Problem(where, f"{e['unit']} is placed twice"))
        placed[e["unit"]] = e["hex"]
        setup.append((e["unit"], hid or e["hex"]))
    reinf = []
    for i, e in enumerate(raw.get("reinforcement", [])):
        where = f"{path}: reinforcement[{i}]"
        hid = mapdata.canonical(e["hex"])
        if e["unit"] not in units:
            problems.append(Problem(where, f"unknown unit {e['unit']}"))
        if hid is None:
            problems.append(Problem(where, f"{e['hex']} is not a hex of the map"))
        if e["unit"] in placed:
            problems.append(Problem(where, f"{e['unit']} is placed twice"))
        placed[e["unit"]] = e["hex"]
        reinf.append((int(e["turn"]), e["unit"], hid or e["hex"]))
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
    )


def stacking_value(spec: UnitSpec) -> Fraction:
    """Basic game: every unit counts 1 (6.1); 6.3/6.4 fractions are full-game rules."""
    return Fraction(1)


def as_hex(m: MapData, hex_id: str) -> Hex:
    return m.numbering.parse(hex_id)
