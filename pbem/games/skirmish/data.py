"""Skirmish data: the unit types (rule 1.3), the map and the scenarios (1.2, 1.4).

A scenario is a bundled name (``scenarios/skirmish/NAME/scenario.toml``) or a scenario file
(``.toml``: test and owner data). Its map is an area map file (docs/map-format.md) read into
pbem.mechanics.places.AreaMap; a place's ``vp`` (a town, 5.1) and ``home`` (a side's home town,
1.1) are the game's own keys. Everything is cross-checked when loaded; the digest covers the
scenario and its map, so that a game refuses to replay on other data.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbem.errors import ModuleDataError, Problem
from pbem.exchange.canonical import canonical
from pbem.games.base import bundled_scenario_names, bundled_scenario_path, read_data, scenario_file
from pbem.mechanics.places import AreaMap, Place, area_map
from pbem.resources import scenarios_dir

GAME_DIR = "skirmish"
SIDES: tuple[str, ...] = ("red", "blue", "green")  # 1.1, in the turn order (2.1)
TERRAINS = frozenset({"clear", "forest", "hills"})  # 1.2
RIVER = "river"  # 1.2: the one border feature
ELIMINATED = "eliminated"  # where a unit eliminated in combat is (4.5)


@dataclass(frozen=True, slots=True)
class UnitType:
    """1.3: what a unit's type gives it."""

    name: str
    allowance: int  # movement allowance (3.2)
    strength: int  # combat strength, attacking and defending (4.3)


# 1.3: the unit types.
TYPES: dict[str, UnitType] = {t.name: t for t in (
    UnitType("infantry", 2, 2),
    UnitType("cavalry", 3, 1),
    UnitType("artillery", 1, 3),
)}


@dataclass(frozen=True, slots=True)
class UnitSpec:
    id: str
    side: str
    type: str  # read only through rules.unit_type
    at: str


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    note: str
    turns: int
    map: AreaMap[Place]
    units: dict[str, UnitSpec]
    control: dict[str, str]  # 1.4: the starting control, home towns included
    digest: str

    def vp(self, area: str) -> int:
        """5.1: a town's victory points (0 for an area that is not a town)."""
        p = self.map.place(area)
        return int(p.data.get("vp", 0)) if p is not None else 0

    def home(self, side: str) -> str:
        """1.1: the side's home town."""
        return next(a for a in self.map.place_ids() if (p := self.map.place(a)) is not None and p.data.get("home") == side)

    def towns(self) -> list[str]:
        return [a for a in self.map.place_ids() if self.vp(a) > 0]


def scenario_path(name: str) -> Path:
    """A bundled scenario by name, or a scenario file by path (``.toml``: test and owner data)."""
    return bundled_scenario_path(scenarios_dir() / GAME_DIR, name)


def scenario_names() -> list[str]:
    return bundled_scenario_names(scenarios_dir() / GAME_DIR)


def _read(path: Path, schema: str, problems: list[Problem]) -> dict[str, Any]:
    return read_data(path, problems, schema)


def load_map(path: Path, problems: list[Problem]) -> tuple[AreaMap[Place] | None, dict[str, Any]]:
    """The area map and every problem the game sees in it: its kinds and terrains (1.2), a home
    town for each side (1.1), VP as positive integers (5.1)."""
    raw = _read(path, "area-map", problems)
    if problems:
        return None, raw
    m, found = area_map(raw, str(path))
    problems += [Problem(p.where, p.message, p.rule or "1.2") for p in found]
    for pid in m.place_ids():
        p = m.place(pid)
        assert p is not None
        where = f"{path}: places.{pid}"
        if p.kind != "land":
            problems.append(Problem(where, f"is a {p.kind}; the map has land areas only", "1.2"))
        if p.terrain not in TERRAINS:
            problems.append(Problem(where, f"terrain '{p.terrain}' is none of {', '.join(sorted(TERRAINS))}", "1.2"))
        vp = p.data.get("vp", 0)
        if not isinstance(vp, int) or isinstance(vp, bool) or vp < 0:
            problems.append(Problem(where, "vp is a whole number of victory points, 0 or more", "5.1"))
        home = p.data.get("home")
        if home is not None and home not in SIDES:
            problems.append(Problem(where, f"home '{home}' is not a side ({', '.join(SIDES)})", "1.1"))
    for side in SIDES:
        homes = [a for a in m.place_ids() if (p := m.place(a)) is not None and p.data.get("home") == side]
        if len(homes) != 1:
            problems.append(Problem(f"{path}: places", f"{side} has {len(homes)} home towns; each side has one", "1.1"))
    for b in m.all_borders():
        if b.features - {RIVER}:
            problems.append(Problem(f"{path}: borders.{b.a} {b.b}", "a border is plain or a river", "1.2"))
    return m, raw


@lru_cache(maxsize=16)
def load_scenario(name: str) -> Scenario:
    """A bundled scenario or a scenario file, with its map, cross-checked (ModuleDataError lists
    every problem)."""
    path = scenario_file("Skirmish", name, scenario_path(name), scenario_names())
    problems: list[Problem] = []
    raw = _read(path, "skirmish/scenario", problems)
    if problems:
        raise ModuleDataError(f"{path}: invalid scenario", problems)
    s = raw["scenario"]
    m, map_raw = load_map(path.parent / s["map"], problems)
    if problems or m is None:
        raise ModuleDataError(f"{path}: the scenario's map has problems", problems)
    units = {}
    for uid, u in raw["units"].items():
        if m.place(u["at"]) is None:
            problems.append(Problem(f"{path}: units.{uid}.at", f"'{u['at']}' is not an area of the map", "1.4"))
        units[uid] = UnitSpec(uid, u["side"], u["type"], u["at"])
    control = {}
    for side in SIDES:
        home = [a for a in m.place_ids() if (p := m.place(a)) is not None and p.data.get("home") == side]
        control[home[0]] = side
    for area, side in raw.get("control", {}).items():
        if m.place(area) is None:
            problems.append(Problem(f"{path}: control.{area}", "not an area of the map", "1.4"))
        elif area in control and control[area] != side:
            problems.append(Problem(f"{path}: control.{area}", f"is {control[area]}'s home town", "1.4"))
        control[area] = side
    for area in {u.at for u in units.values()}:
        sides = {u.side for u in units.values() if u.at == area}
        if len(sides) > 1:
            problems.append(Problem(f"{path}: units", f"{area} holds units of {', '.join(sorted(sides))}; an area holds one side's units", "3.3"))
        if sum(1 for u in units.values() if u.at == area) > 3:
            problems.append(Problem(f"{path}: units", f"{area} holds more than 3 units", "3.4"))
        if sides and control.get(area) not in (None, *sides):
            problems.append(Problem(f"{path}: control.{area}", "the area holds another side's units", "3.5"))
    for side in SIDES:
        if not any(u.side == side for u in units.values()):
            problems.append(Problem(f"{path}: units", f"{side} has no unit", "1.4"))
    if problems:
        raise ModuleDataError(f"{path}: the scenario does not fit its map", problems)
    digest = "sha256:" + hashlib.sha256(canonical({"scenario": raw, "map": map_raw})).hexdigest()
    return Scenario(str(s["id"]), str(s["title"]), str(s.get("note", "")), int(s["turns"]), m, units,
                    dict(sorted(control.items())), digest)
