"""Europe Engulfed data: the map, the blocks, the charts and the scenarios (digest Part VII, D-1 to D-6;
Part V, T-1 to T-20).

The files are ``scenarios/europe-engulfed/``: ``map.toml`` (an area map, docs/map-format.md "Area
maps", with the game's own keys on its places), ``units.toml`` (unit types, nations, block types and
force pools), ``charts.toml`` (the tables, each ``known`` or ``provisional`` with a note) and one
folder per scenario with its ``scenario.toml``. Nothing printed on the map, the labels or the player
aids is in the source: the map, the force pools and the set-ups are authored and marked provisional;
an owner of the game replaces them without touching code.

Everything is cross-checked when loaded, and every problem is reported at once, each with its file,
its key and the rule it breaks (ModuleDataError). A scenario's digest covers its map, blocks, charts
and set-up, so that a game refuses to replay on other data.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbem.errors import ModuleDataError, Problem
from pbem.exchange.canonical import canonical
from pbem.games.base import bundled_scenario_names, bundled_scenario_path, read_data, scenario_file
from pbem.mechanics.places import BOX, LAND, SEA, AreaMap, Place, area_map
from pbem.resources import scenarios_dir

from .victory_table import VictoryTable
from .victory_table import build as build_victory

GAME_DIR = "europe-engulfed"
GAME = "europe-engulfed"
AXIS, ALLIES, NEUTRAL, VICHY = "axis", "allies", "neutral", "vichy"
SIDES: tuple[str, ...] = (AXIS, ALLIES)  # 1.2, 1.3: the Axis player-turn first
CONTROLS: tuple[str, ...] = (AXIS, ALLIES, VICHY)  # Glossary "Control"; 9.52 (an area not named is neutral)

# D-4: the nations.
MAJORS: tuple[str, ...] = ("germany", "italy", "britain", "usa", "france", "ussr")
AXIS_MINORS: tuple[str, ...] = ("finland", "romania", "hungary", "bulgaria")
NEUTRALS: tuple[str, ...] = ("poland", "belgium", "netherlands", "denmark", "norway", "sweden", "switzerland",
                             "spain", "portugal", "turkey", "greece", "yugoslavia", "persia", "baltic-states")
NATIONS = frozenset(MAJORS + AXIS_MINORS + NEUTRALS)

# D-2, D-3: places, terrain and border features.
FORTRESS = "fortress"  # a kind of place (Glossary "Fortress": a separate area inside an area) and its terrain
KINDS = frozenset({LAND, FORTRESS, SEA, BOX})
TERRAINS = frozenset({"clear", "rough", "swamp", "mountain", "desert"})  # D-3 (a fortress's terrain is "fortress")
ZONES: tuple[str, ...] = ("west", "east", "south")  # 1.1
REGIONS = frozenset({"africa", "middle-east"})  # Glossary "Middle-East"; 9.45
FEATURES = frozenset({"river", "strait", "coast", "fortress", "air-route", "maginot", "canal", "passage", "cape-route"})
FORTRESSES = frozenset({"Leningrad", "Sevastopol", "Malta", "Tobruk", "Gibraltar"})  # 6.85
STRAITS = frozenset({"Messina", "Dardanelles", "Kerch"})  # Glossary "Straits"
MAGINOT_FROM = frozenset({"germany", "belgium"})  # 6.84

# D-1: the turns of a year (two months each), as scenario files spell them.
TURNS: tuple[str, ...] = ("jan", "mar", "may", "jul", "sep", "nov")
TURN_NAMES: tuple[str, ...] = ("Jan/Feb", "Mar/Apr", "May/Jun", "Jul/Aug", "Sep/Oct", "Nov/Dec")
YEARS = range(1939, 1946)  # I.A: the rules' dates run from 1939 to 1945

# Part V: the tables every charts file has.
TABLES: dict[str, str] = {
    "t1_hit_numbers": "T-1", "t2_dice": "T-2", "t3_hit_bonuses": "T-3", "t4_air_war": "T-4", "t5_flak": "T-5",
    "t6_v_weapons": "T-6", "t7_strategic_limits": "T-7", "t8_naval_combat": "T-8", "t9_interdiction": "T-9",
    "t10_naval_supply": "T-10", "t11_production": "T-11", "t12_costs": "T-12", "t13_production_limits": "T-13",
    "t14_special_actions": "T-14", "t15_conscription": "T-15", "t16_lend_lease": "T-16", "t17_stacking": "T-17",
    "t18_movement": "T-18", "t19_weather": "T-19", "t20_terrain": "T-20",
}
# Part VI: the charts printed on the map or player aids, absent from the source (provisional).
MAP_CHARTS: dict[str, str] = {"weather": "1.1", "asw": "2.11", "uboat_attack": "2.12", "national_limits": "20.3",
                              "axis_politics": "9.1, 9.4", "conquest": "10.0"}

UP_FRONT = ("bessarabia", "lvov", "brest-litovsk", "lithuania")  # 9.26
GERMAN_MILITIA = frozenset({"germany", "italy", "france", "belgium", "netherlands", "denmark", "hungary", "poland"})  # 9.12


# --- the map ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Area:
    """A place of the map with the game's data (D-2): a land area, a fortress, a sea zone or a box."""

    id: str
    name: str
    kind: str
    terrain: str = ""
    within: str = ""  # a fortress's surrounding area ("" for Malta)
    country: str = ""
    home: str = ""  # the nation whose home area it is
    associated: str = ""  # the major power whose hatched area it is
    weather: str = ""  # west, east or south (1.1)
    region: str = ""  # africa, middle-east or ""
    capital: str = ""  # the nation whose capital it is ("vichy": 9.52)
    resource: int = 0  # WERPs of a resource area (4.14)
    ports: tuple[str, ...] = ()  # the sea zones it is a port on (3.3, 5.3)
    port_if: str = ""  # the fortress whose control makes it a port (Glossary "Fortress")
    invasion: Mapping[str, int] = field(default_factory=dict)  # sea zone -> arrow number (7.2)
    heavy_fort: bool = False  # 6.95c
    supply_source: bool = False  # 3.2
    unlimited_placement: bool = False  # 4.42
    garrison: str = ""  # 4.7
    cities: tuple[str, ...] = ()

    @property
    def fortress(self) -> bool:
        return self.kind == FORTRESS

    @property
    def ground(self) -> bool:
        """A place ground units stand in: a land area, a fortress or the U.S.A. box."""
        return self.kind in (LAND, FORTRESS, BOX)


@dataclass(frozen=True)
class EEMap:
    places: AreaMap[Place]  # the map of places paths, supply and pictures use
    areas: dict[str, Area]
    id: str
    title: str
    note: str

    def area(self, pid: str) -> Area:
        return self.areas[pid]

    def of_kind(self, *kinds: str) -> list[str]:
        return sorted(p for p, a in self.areas.items() if a.kind in kinds)

    def by_name(self, name: str) -> list[str]:
        return sorted(p for p, a in self.areas.items() if a.name == name)

    def country(self, country: str) -> list[str]:
        """Every place of a country, fortresses included."""
        return sorted(p for p, a in self.areas.items() if a.country == country)

    def countries(self) -> frozenset[str]:
        return frozenset(a.country for a in self.areas.values() if a.country)

    def features(self, a: str, b: str) -> frozenset[str]:
        return self.places.border_features(a, b)

    def border_name(self, a: str, b: str) -> str:
        found = self.places.border(a, b)
        return str(found.data.get("name", "")) if found is not None else ""

    def fortresses(self) -> list[str]:
        return self.of_kind(FORTRESS)

    def fortress_of(self, area: str) -> str:
        """The fortress inside an area, or ""."""
        return next((p for p in self.fortresses() if self.areas[p].within == area), "")


def _strings(v: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in v) if isinstance(v, list) else ()


def _area(p: Place) -> Area:
    d = p.data
    inv = d.get("invasion", {})
    return Area(
        p.id, p.name, p.kind, p.terrain, p.within, str(d.get("country", "")), str(d.get("home", "")),
        str(d.get("associated", "")), str(d.get("weather", "")), str(d.get("region", "")), str(d.get("capital", "")),
        d["resource"] if isinstance(d.get("resource"), int) else 0, _strings(d.get("port")), str(d.get("port_if", "")),
        {str(k): v for k, v in inv.items()} if isinstance(inv, dict) else {}, d.get("heavy_fort") is True,
        d.get("supply_source") is True, d.get("unlimited_placement") is True, str(d.get("garrison", "")),
        _strings(d.get("cities")),
    )


PLACE_DATA = frozenset({"country", "home", "associated", "weather", "region", "capital", "resource", "port", "port_if",
                        "invasion", "heavy_fort", "supply_source", "unlimited_placement", "garrison", "cities"})


def load_map(path: Path, problems: list[Problem]) -> tuple[EEMap | None, dict[str, Any]]:
    """The area map and every problem the game sees in it (D-2, D-3)."""
    raw = _read(path, "area-map", problems)
    if problems:
        return None, raw
    m, found = area_map(raw, str(path))
    problems += [Problem(x.where, x.message, x.rule or "D-2") for x in found]
    areas = {pid: _area(p) for pid, p in m.places.items()}
    em = EEMap(m, areas, m.id, m.title, m.note)
    _check_places(em, path, raw, problems)
    _check_borders(em, path, problems)
    _check_map_rules(em, path, problems)
    return em, raw


def _check_places(em: EEMap, path: Path, raw: dict[str, Any], problems: list[Problem]) -> None:
    def bad(pid: str, msg: str, rule: str = "D-2") -> None:
        problems.append(Problem(f"{path}: places.{pid}", msg, rule))

    for pid, a in em.areas.items():
        data = raw["places"][pid]
        for key in sorted(set(data) - PLACE_DATA - {"kind", "terrain", "name", "within", "at", "outline"}):
            bad(pid, f"'{key}' is not a key the game reads (a typo?)")
        if a.kind not in KINDS:
            bad(pid, f"kind '{a.kind}' is none of {', '.join(sorted(KINDS))}")
            continue
        if a.kind == SEA:
            if a.terrain or a.country or a.weather:
                bad(pid, "a sea zone has no terrain, country or weather zone", "D-2")
            continue
        if a.kind == FORTRESS and a.terrain != FORTRESS:
            bad(pid, "a fortress's terrain is 'fortress'", "6.85")
        if a.kind == LAND and a.terrain not in TERRAINS:
            bad(pid, f"terrain '{a.terrain}' is none of {', '.join(sorted(TERRAINS))}", "D-3")
        if a.kind in (LAND, FORTRESS):
            if a.weather not in ZONES:
                bad(pid, f"weather zone '{a.weather}' is none of {', '.join(ZONES)}", "1.1")
            if not a.country:
                bad(pid, "every area names its country", "D-2")
        if a.home and a.home not in NATIONS and a.home != "usa":
            bad(pid, f"home '{a.home}' is not a nation", "Glossary")
        if a.associated and a.associated not in MAJORS:
            bad(pid, f"associated '{a.associated}' is not a major power", "Glossary")
        if a.home and a.associated:
            bad(pid, "an area is a home area or an associated (hatched) area, not both", "Glossary")
        if a.region and a.region not in REGIONS:
            bad(pid, f"region '{a.region}' is none of {', '.join(sorted(REGIONS))}", "Glossary")
        if a.capital and a.capital not in NATIONS and a.capital != VICHY:
            bad(pid, f"capital '{a.capital}' is not a nation", "D-4")
        res = data.get("resource")
        if res is not None and (not isinstance(res, int) or isinstance(res, bool) or res < 1):
            bad(pid, "resource is the WERPs of a resource area, a whole number of 1 or more", "4.14")
        for s in a.ports:
            if s not in em.areas or em.areas[s].kind != SEA:
                bad(pid, f"port names '{s}', not a sea zone", "3.3")
            elif "coast" not in em.features(pid, s):
                bad(pid, f"is a port on '{s}' but does not border it with a coast", "3.3")
        if a.port_if and (a.port_if not in em.areas or em.areas[a.port_if].within != pid):
            bad(pid, f"port_if names '{a.port_if}', not a fortress inside this area", "Glossary")
        for s, n in a.invasion.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                bad(pid, f"the invasion arrow on '{s}' is a whole number of units, 1 or more", "7.2")
            if "coast" not in em.features(pid, s):
                bad(pid, f"has an invasion arrow from '{s}', which it does not border", "7.2")
        if a.heavy_fort and not (a.home == "ussr" and a.resource):
            bad(pid, "heavy fortifications are built only in Soviet home resource areas", "6.95c")
        if a.garrison and a.garrison not in MAJORS:
            bad(pid, f"garrison '{a.garrison}' is not a major power", "4.7")


def _check_borders(em: EEMap, path: Path, problems: list[Problem]) -> None:
    def kind(p: str) -> str:
        return em.areas[p].kind

    for b in em.places.all_borders():
        w = f"{path}: borders.{b.a} {b.b}"
        ka, kb = kind(b.a), kind(b.b)
        water = [p for p in b.places if kind(p) == SEA]
        if "coast" in b.features and len(water) != 1:
            problems.append(Problem(w, "a coast is between a sea zone and a land area, fortress or box", "D-2"))
        if not b.features and (ka == SEA) != (kb == SEA):
            problems.append(Problem(w, "a land area borders a sea zone with a coast", "D-2"))
        if (ka == FORTRESS or kb == FORTRESS) and not water and "air-route" not in b.features:
            inner, outer = (b.a, b.b) if ka == FORTRESS else (b.b, b.a)
            if em.areas[inner].within != outer or b.features != {"fortress"}:
                problems.append(Problem(w, "a fortress borders only its surrounding area (feature 'fortress'), sea zones and "
                                        "air-routes",
                                        "6.85"))
        elif "fortress" in b.features:
            problems.append(Problem(w, "the feature 'fortress' joins a fortress and its surrounding area", "6.85"))
        if {"strait", "river", "maginot"} & b.features and (ka != LAND or kb != LAND):
            problems.append(Problem(w, "a strait, river or Maginot border joins two land areas", "D-3"))
        if "strait" in b.features and em.border_name(b.a, b.b) not in STRAITS:
            problems.append(Problem(w, f"a strait is named one of {', '.join(sorted(STRAITS))}", "Glossary"))
        if "maginot" in b.features:
            homes = {em.areas[b.a].home, em.areas[b.b].home}
            if "france" not in homes or not (homes - {"france"}) <= MAGINOT_FROM:
                problems.append(Problem(w, "the Maginot Line is on the border of France with Germany or Belgium", "6.84"))
        if "air-route" in b.features:
            via = b.data.get("via")
            if not isinstance(via, str) or via not in em.areas or kind(via) != SEA:
                problems.append(Problem(w, "an air-route names the sea zone it crosses (via)", "5.13"))
            elif not all("coast" in em.features(p, via) for p in b.places):
                problems.append(Problem(w, f"an air-route joins two areas on the coast of '{via}'", "5.13"))
        if {"passage", "canal", "cape-route"} & b.features and not (ka == kb == SEA) and "canal" not in b.features:
            problems.append(Problem(w, "a passage or the Cape route joins two sea zones", "D-2"))


def _check_map_rules(em: EEMap, path: Path, problems: list[Problem]) -> None:
    where = f"{path}: places"
    forts = em.fortresses()
    names = {em.areas[f].name.removesuffix(" Fortress") for f in forts}
    if names != FORTRESSES or len(forts) != len(FORTRESSES):
        problems.append(Problem(where, f"the fortresses are {', '.join(sorted(FORTRESSES))} (the map has "
                                       f"{', '.join(sorted(names)) or 'none'})", "6.85"))
    for f in forts:
        a = em.areas[f]
        if not a.within and a.name != "Malta":
            problems.append(Problem(f"{path}: places.{f}", "a fortress lies within its surrounding area (only Malta has none)",
                                    "6.85"))
    straits = {em.border_name(b.a, b.b) for b in em.places.all_borders() if "strait" in b.features}
    if straits != STRAITS:
        problems.append(Problem(f"{path}: borders", f"the straits are {', '.join(sorted(STRAITS))} (the map has "
                                                    f"{', '.join(sorted(straits)) or 'none'})", "Glossary"))
    for nation in MAJORS:
        caps = [p for p, a in em.areas.items() if a.capital == nation]
        if nation != "usa" and len(caps) != 1:
            problems.append(Problem(where, f"{nation} has {len(caps)} capitals; a major power has one", "D-4"))
    paris = [p for p, a in em.areas.items() if a.capital == "france"]
    if paris:
        around = [n for n in em.places.neighbours(paris[0]) if em.areas[n].kind == LAND]
        if len(around) != 5:
            problems.append(Problem(f"{path}: places.{paris[0]}", f"Paris has {len(around)} surrounding areas; 9.52 counts 5",
                                    "9.52"))
    if not any(a.kind == BOX and a.home == "usa" for a in em.areas.values()):
        problems.append(Problem(where, "the U.S.A. box (the US home area) is missing", "Glossary"))
    urals = em.by_name("Ural Mountains")
    if len(urals) != 1 or em.areas[urals[0]].terrain != "mountain":
        problems.append(Problem(where, "the Ural Mountains is one area of terrain 'mountain'", "5.18"))
    for p in UP_FRONT:
        if p not in em.areas:
            problems.append(Problem(where, f"'{p}', one of the four up-front areas, is missing", "9.26"))
    ids = em.places.place_ids()
    if ids:
        reached = {p for p in ids if em.places.distance(ids[0], p) is not None}
        if len(reached) != len(ids):
            missing = sorted(set(ids) - reached)
            problems.append(Problem(where, f"the map is not connected: {', '.join(missing[:8])} cannot be reached", "D-2"))


# --- units --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UnitType:
    """D-5: a type of block."""

    name: str
    klass: str  # infantry or armor (6.25)
    move: int  # operational move in supply (5.11, 5.12)
    cost: int  # WERPs per step (4.43)
    cadre: int  # the factor of the first step (4.43b)
    hit_bonus: bool  # may get hit bonuses (militia never, Glossary)


@dataclass(frozen=True, slots=True)
class Nation:
    id: str
    side: str  # axis, allies or neutral (the shared brown blocks)
    kind: str  # major, minor or pool
    colour: str = ""
    blocks: int = 0
    elite_blocks: int = 0
    gs: int = 0  # ground-support markers supplied (Glossary)
    pool: str = ""  # the pool of a minor's blocks (axis-minors)
    members: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BlockType:
    """A block type of the force pool: nation, unit type, elite, full strength, how many blocks."""

    id: str
    nation: str
    type: str
    elite: bool
    steps: int
    count: int


@dataclass(frozen=True)
class Units:
    types: dict[str, UnitType]
    nations: dict[str, Nation]
    blocks: dict[str, BlockType]
    minor_forces: dict[str, dict[str, int]]
    provisional: bool
    note: str

    def step_cost(self, block: str, cadre: bool = False) -> int:
        """4.43: the WERPs of one step of a block type (elite doubled, a cadre step per its type)."""
        b = self.blocks[block]
        t = self.types[b.type]
        return t.cost * (2 if b.elite else 1) * (t.cadre if cadre else 1)

    def side_of(self, nation: str) -> str:
        n = self.nations[nation]
        return self.nations[n.pool].side if n.pool else n.side


def load_units(path: Path, problems: list[Problem]) -> tuple[Units | None, dict[str, Any]]:
    raw = _read(path, f"{GAME_DIR}/units", problems)
    if problems:
        return None, raw
    where = str(path)
    types = {k: UnitType(k, v["class"], v["move"], v["cost"], v["cadre"], v["hit_bonus"]) for k, v in raw["types"].items()}
    nations = {k: Nation(k, v["side"], v["kind"], str(v.get("colour", "")), int(v.get("blocks", 0)),
                         int(v.get("elite_blocks", 0)), int(v.get("gs", 0)), str(v.get("pool", "")),
                         tuple(v.get("members", ()))) for k, v in raw["nations"].items()}
    blocks = {k: BlockType(k, v["nation"], v["type"], bool(v.get("elite", False)), v["steps"], v["count"])
              for k, v in raw["blocks"].items()}
    forces = {k: dict(v) for k, v in raw.get("minor_forces", {}).items() if isinstance(v, dict)}
    for t in ("infantry", "militia", "cavalry", "airborne", "armor"):
        if t not in types:
            problems.append(Problem(f"{where}: types", f"the unit type '{t}' is missing", "D-5"))
    for k, n in nations.items():
        w = f"{where}: nations.{k}"
        if n.kind == "pool":
            for m in n.members:
                if m not in nations and m not in NATIONS:
                    problems.append(Problem(w, f"member '{m}' is not a nation", "D-4"))
        elif k not in NATIONS:
            problems.append(Problem(w, "is not a nation of the game", "D-4"))
        if n.pool and (n.pool not in nations or nations[n.pool].kind != "pool" or k not in nations[n.pool].members):
            problems.append(Problem(w, f"pool '{n.pool}' is not a pool that lists it", "D-4"))
        if n.kind == "major" and n.side == NEUTRAL:
            problems.append(Problem(w, "a major power is on a side", "D-4"))
    for m in MAJORS:
        if m not in nations:
            problems.append(Problem(f"{where}: nations", f"the major power '{m}' is missing", "D-4"))
    plain: Counter[str] = Counter()
    elite: Counter[str] = Counter()
    for k, b in blocks.items():
        w = f"{where}: blocks.{k}"
        if b.type not in types:
            problems.append(Problem(w, f"type '{b.type}' is not a unit type", "D-5"))
        if b.nation not in nations:
            problems.append(Problem(w, f"nation '{b.nation}' is not a nation of the file", "D-4"))
            continue
        colour = nations[b.nation].pool or b.nation
        (elite if b.elite else plain)[colour] += b.count
        if b.elite and b.nation not in ("germany", "ussr"):
            problems.append(Problem(w, "only Germany and the USSR have elite blocks", "Glossary"))
        if b.elite and b.type in ("militia",):
            problems.append(Problem(w, "militia are never elite", "Glossary"))
    for k, n in nations.items():
        if n.blocks and plain[k] != n.blocks:
            problems.append(Problem(f"{where}: nations.{k}", f"its block types count {plain[k]} blocks; the colour has {n.blocks}",
                                    "Part II"))
        if elite[k] != n.elite_blocks:
            problems.append(Problem(f"{where}: nations.{k}", f"its elite block types count {elite[k]} blocks; the colour has "
                                                            f"{n.elite_blocks}", "Part II"))
    total = sum(n.blocks + n.elite_blocks for n in nations.values())
    if total != 284:
        problems.append(Problem(f"{where}: nations", f"the colours hold {total} blocks; the game has 284", "Part II"))
    pool = {k: b for k, b in blocks.items() if b.nation == NEUTRAL}
    for minor, f in forces.items():
        w = f"{where}: minor_forces.{minor}"
        if minor not in NEUTRALS:
            problems.append(Problem(w, "is not a neutral minor power", "9.6"))
        for bid, n in f.items():
            if bid not in pool:
                problems.append(Problem(w, f"'{bid}' is not a block type of the neutral pool", "9.6"))
            elif n > pool[bid].count:
                problems.append(Problem(w, f"{n} blocks of '{bid}'; the pool has {pool[bid].count}", "9.6"))
    mf = raw.get("minor_forces", {})
    return Units(types, nations, blocks, forces, bool(raw["units"]["provisional"]) or bool(mf.get("provisional")),
                 str(raw["units"].get("note", ""))), raw


# --- charts -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Table:
    id: str
    label: str  # T-n, or the rule of a map chart
    rule: str
    known: bool
    provisional: bool
    note: str
    data: Mapping[str, Any] = field(compare=False, hash=False, repr=False)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


@dataclass(frozen=True)
class Charts:
    tables: dict[str, Table]
    digest_data: dict[str, Any]

    def __getitem__(self, key: str) -> Table:
        return self.tables[key]

    def provisional(self) -> list[Table]:
        return [t for t in self.tables.values() if t.provisional]


def charts_path() -> Path:
    return scenarios_dir() / GAME_DIR / "charts.toml"


def load_charts(path: Path, problems: list[Problem]) -> tuple[Charts | None, dict[str, Any]]:
    raw = _read(path, f"{GAME_DIR}/charts", problems)
    if problems:
        return None, raw
    tables: dict[str, Table] = {}
    for key, t in raw.items():
        if key == "charts":
            continue
        w = f"{path}: {key}"
        label = TABLES.get(key) or (f"map chart {MAP_CHARTS[key]}" if key in MAP_CHARTS else "")
        if not label:
            problems.append(Problem(w, "is not a table of the game (T-1 to T-20 or a map chart of Part VI)", "Part V"))
            continue
        known, prov = t.get("known") is True, t.get("provisional") is True
        if known == prov:
            problems.append(Problem(w, "a table is either known (the rules give it) or provisional, not both or neither",
                                    label))
        if prov and not str(t.get("note", "")).strip():
            problems.append(Problem(w, "a provisional table says in a note what is known and what is a stand-in", label))
        if key in MAP_CHARTS and known:
            problems.append(Problem(w, "this chart is printed on the map and NOT IN SOURCE: it is provisional", "Part VI"))
        tables[key] = Table(key, label, str(t["rule"]), known, prov, str(t.get("note", "")), t)
    for key, label in {**TABLES, **MAP_CHARTS}.items():
        if key not in tables:
            problems.append(Problem(f"{path}", f"the table '{key}' ({label}) is missing", "Part V"))
    if problems:
        return None, raw
    _check_tables(tables, path, problems)
    return Charts(tables, raw), raw


def _check_tables(t: dict[str, Table], path: Path, problems: list[Problem]) -> None:
    """What the charts must say for the rules to work on them (a wrong shape, not a wrong value)."""
    def need(key: str, item: str, ok: bool) -> None:
        if not ok:
            problems.append(Problem(f"{path}: {key}.{item}", "missing or of the wrong shape", t[key].label))

    need("t1_hit_numbers", "hit_on", isinstance(t["t1_hit_numbers"].data.get("hit_on"), int))
    need("t17_stacking", "fortress", isinstance(t["t17_stacking"].data.get("fortress"), int))
    need("t17_stacking", "soviet_fortress", isinstance(t["t17_stacking"].data.get("soviet_fortress"), int))
    need("t12_costs", "step", isinstance(t["t12_costs"].data.get("step"), dict))
    need("t11_production", "germany", isinstance(t["t11_production"].data.get("germany"), dict))
    need("t20_terrain", "clear", isinstance(t["t20_terrain"].data.get("clear"), dict))
    rows = t["t6_v_weapons"].data.get("rows")
    need("t6_v_weapons", "rows", isinstance(rows, list) and [r.get("roll") for r in rows] == [1, 2, 3, 4, 5])
    for z in ("asw", "uboat_attack"):
        grid = t[z].data.get("percent" if z == "asw" else "werps")
        need(z, "rows", isinstance(grid, list) and len(grid) == 6)


# --- scenarios ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, order=True)
class Turn:
    """A game turn (D-1): a year and one of its six two-month turns."""

    year: int
    index: int  # 0 = Jan/Feb ... 5 = Nov/Dec

    @classmethod
    def parse(cls, text: str) -> Turn:
        year, _, month = text.partition("-")
        return cls(int(year), TURNS.index(month))

    @property
    def label(self) -> str:
        return f"{TURN_NAMES[self.index]} {self.year}"

    @property
    def key(self) -> str:
        return f"{self.year}-{TURNS[self.index]}"

    def ordinal(self) -> int:
        return self.year * 6 + self.index

    def plus(self, turns: int) -> Turn:
        n = self.ordinal() + turns
        return Turn(n // 6, n % 6)


@dataclass(frozen=True, slots=True)
class Block:
    """A block on the map at the start: its id (area/type/n), block type, nation and steps."""

    id: str
    type: str
    nation: str
    steps: int
    area: str


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    note: str
    provisional: bool
    start: Turn
    end: Turn
    first: str
    map: EEMap
    units: Units
    charts: Charts
    war: frozenset[frozenset[str]]
    pact: bool
    vichy: bool
    control: dict[str, str]  # place -> axis, allies or vichy (a place not named is neutral)
    production: dict[str, int]
    assets: dict[str, Any]
    fleets: dict[str, dict[str, int]]
    blocks: tuple[Block, ...]
    gs: dict[str, dict[str, int]]  # area -> nation -> ground-support markers
    digest: str
    axis_minors_joined: bool = False  # 9.15: the Axis minors on the Axis side at the start
    victory: VictoryTable | None = None  # the scenario's victory table (victory_table.py; NOT IN SOURCE)

    @property
    def turns(self) -> int:
        return self.end.ordinal() - self.start.ordinal() + 1

    def at_war(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.war

    def controller(self, place: str) -> str:
        return self.control.get(place, NEUTRAL)

    def blocks_in(self, area: str) -> list[Block]:
        return [b for b in self.blocks if b.area == area]


def scenario_path(name: str) -> Path:
    """A bundled scenario by name, or a scenario file by path (``.toml``: test and owner data)."""
    return bundled_scenario_path(scenarios_dir() / GAME_DIR, name)


def scenario_names() -> list[str]:
    return bundled_scenario_names(scenarios_dir() / GAME_DIR)


def _read(path: Path, schema: str, problems: list[Problem]) -> dict[str, Any]:
    return read_data(path, problems, schema)


@lru_cache(maxsize=16)
def load_scenario(name: str) -> Scenario:
    """A bundled scenario or a scenario file with its map, blocks and charts, cross-checked
    (ModuleDataError lists every problem)."""
    path = scenario_file("Europe Engulfed", name, scenario_path(name), scenario_names())
    problems: list[Problem] = []
    raw = _read(path, f"{GAME_DIR}/scenario", problems)
    if problems:
        raise ModuleDataError(f"{path}: invalid scenario", problems)
    s = raw["scenario"]
    folder = path.parent
    units, units_raw = load_units(folder / s["units"], problems)
    em, map_raw = load_map(folder / s["map"], problems)
    charts, charts_raw = load_charts(folder / s["charts"], problems)
    if problems or units is None or em is None or charts is None:
        raise ModuleDataError(f"{path}: the scenario's map, blocks or charts have problems", problems)
    problems += data_problems(em, units, charts, str(folder / s["charts"]))
    sc = _build(path, raw, em, units, charts, problems)
    victory, victory_raw = None, None
    if s.get("victory"):  # the victory table (victory_table.py: provisional, NOT IN SOURCE)
        victory_raw = _read(folder / s["victory"], f"{GAME_DIR}/victory", problems)
        if victory_raw:
            victory = build_victory(victory_raw, str(folder / s["victory"]), set(em.areas), set(NATIONS), SIDES,
                                    set(scenario_names()), problems)
    if problems:
        raise ModuleDataError(f"{path}: the scenario does not fit its map, blocks or charts", problems)
    parts = {"scenario": raw, "map": map_raw, "units": units_raw, "charts": charts_raw}
    if victory_raw is not None:
        parts["victory"] = victory_raw
    digest = "sha256:" + hashlib.sha256(canonical(parts)).hexdigest()
    return Scenario(**{**sc, "digest": digest, "victory": victory})


def data_problems(em: EEMap, units: Units, charts: Charts, where: str) -> list[Problem]:
    """The map, the blocks and the charts against one another: costs and moves (T-12, T-18), the
    terrain rows (T-20) and the production of the resource areas (T-11, 4.12, 4.14)."""
    out: list[Problem] = []
    costs = charts["t12_costs"]["step"]
    moves = charts["t18_movement"].data
    for name, t in units.types.items():
        if costs.get(name) != t.cost:
            out.append(Problem(f"{where}: t12_costs.step.{name}", f"is {costs.get(name)}; units.toml gives the type {t.cost}",
                               "4.43"))
        if moves.get(name) != t.move:
            out.append(Problem(f"{where}: t18_movement.{name}", f"is {moves.get(name)}; units.toml gives the type {t.move}",
                               "5.11"))
    terrains = {a.terrain for a in em.areas.values() if a.terrain}
    for tr in sorted(terrains - set(charts["t20_terrain"].data)):
        out.append(Problem(f"{where}: t20_terrain", f"has no row for the map's terrain '{tr}'", "T-20"))
    prod = charts["t11_production"].data
    exceptions = prod.get("ussr_areas", {})
    for nation in MAJORS:
        row = prod.get(nation, {})
        areas = [(p, a) for p, a in em.areas.items() if a.home == nation and a.resource]
        if not areas:
            continue
        for p, a in areas:
            want = exceptions.get(p, row.get("area")) if nation == "ussr" else row.get("area")
            if a.resource != want:
                out.append(Problem(f"{em.id}: places.{p}", f"a {nation} home resource area is worth {want} (has {a.resource})",
                                   "4.14"))
        on_map = int(row.get("basic", 0)) - int(row.get("off_map", 0))
        total = sum(a.resource for _, a in areas)
        if total != on_map:
            out.append(Problem(f"{em.id}: places", f"{nation}'s home resource areas give {total} WERPs; its basic production "
                                                   f"on the map is {on_map}", "4.12"))
    minor = prod.get("minor", {}).get("area")
    for p, a in em.areas.items():
        if a.resource and a.home and a.home not in MAJORS and a.resource != minor:
            out.append(Problem(f"{em.id}: places.{p}", f"a minor power's resource area is worth {minor}", "4.14"))
    for n, listed in sorted(charts["conquest"].data.items()):  # 10.0 (provisional): the areas that conquer a nation
        if n in ("rule", "known", "provisional", "note"):
            continue
        if n not in NATIONS or not isinstance(listed, list) or any(x not in em.areas or not em.areas[x].ground for x in listed):
            out.append(Problem(f"{where}: conquest.{n}", "a nation of the game with a list of land areas of the map", "10.0"))
    return out


def _resolve_control(raw: dict[str, Any], em: EEMap, where: str, problems: list[Problem]) -> dict[str, str]:
    countries = em.countries()
    by_country: dict[str, str] = {}
    by_area: dict[str, str] = {}
    for side in CONTROLS:
        for name in raw.get(side, []):
            if name in em.areas and em.areas[name].kind in (LAND, FORTRESS, BOX):
                if name in by_area:
                    problems.append(Problem(f"{where}.{side}", f"'{name}' is given to {by_area[name]} too", "Glossary"))
                by_area[name] = side
            elif name in countries:
                if name in by_country:
                    problems.append(Problem(f"{where}.{side}", f"'{name}' is given to {by_country[name]} too", "Glossary"))
                by_country[name] = side
            else:
                problems.append(Problem(f"{where}.{side}", f"'{name}' is neither a country nor an area of the map", "Glossary"))
    out: dict[str, str] = {}
    for p, a in em.areas.items():
        owner: str | None = by_area.get(p) or by_country.get(a.country)
        if a.kind == BOX and a.home == "usa" and not owner:
            owner = ALLIES  # the U.S.A. box: the US home area (Glossary)
        if owner:
            out[p] = owner
    return dict(sorted(out.items()))


def _build(path: Path, raw: dict[str, Any], em: EEMap, units: Units, charts: Charts,
           problems: list[Problem]) -> dict[str, Any]:
    w = str(path)
    s = raw["scenario"]
    start, end = Turn.parse(s["start"]), Turn.parse(s["end"])
    for key, t in (("start", start), ("end", end)):
        if t.year not in YEARS:
            problems.append(Problem(f"{w}: scenario.{key}", f"{t.label} is outside 1939-1945", "D-1"))
    if end < start:
        problems.append(Problem(f"{w}: scenario.end", f"{end.label} is before the start, {start.label}", "D-1"))
    pol = raw.get("politics", {})
    war: set[frozenset[str]] = set()
    for i, pair in enumerate(pol.get("war", [])):
        bad = [n for n in pair if n not in NATIONS]
        if bad or pair[0] == pair[1]:
            problems.append(Problem(f"{w}: politics.war[{i}]", f"{', '.join(bad) or pair[0]}: two different nations", "D-4"))
        war.add(frozenset(pair))
    control = _resolve_control(raw["control"], em, f"{w}: control", problems)
    production = dict(raw.get("production", {}))
    for n in production:
        if n not in MAJORS:
            problems.append(Problem(f"{w}: production.{n}", "only a major power has a production phase", "4.1"))
    assets = dict(raw.get("assets", {}))
    limits = charts["t7_strategic_limits"]["max_held"]
    for item in ("fighters", "bombers"):
        for side, n in assets.get(item, {}).items():
            if side not in SIDES:
                problems.append(Problem(f"{w}: assets.{item}.{side}", "is not a side", "Glossary"))
            elif n > limits[item]:
                problems.append(Problem(f"{w}: assets.{item}.{side}", f"{n}; a side holds at most {limits[item]}", "Glossary"))
    if assets.get("uboats", 0) > limits["uboats"]:
        problems.append(Problem(f"{w}: assets.uboats", f"Germany holds at most {limits['uboats']} U-boat points", "Glossary"))
    flak_max = charts["t5_flak"]["max_level"]
    for n, lvl in assets.get("flak", {}).items():
        if n not in ("germany", "britain") or lvl > flak_max:
            problems.append(Problem(f"{w}: assets.flak.{n}", f"Flak levels are Germany's and Britain's, at most {flak_max}",
                                    "2.22d"))
    sa_rows = charts["t14_special_actions"].data
    for n, held in assets.get("special_actions", {}).items():
        rows = sa_rows.get(n)
        if not isinstance(rows, list):
            problems.append(Problem(f"{w}: assets.special_actions.{n}", "has no special-action limit (T-14)", "7.11"))
            continue
        current = [r["limit"] for r in rows if r["from"] <= start.year]
        limit = current[-1] if current else 0
        if held > limit:
            problems.append(Problem(f"{w}: assets.special_actions.{n}", f"{held}; {n} holds at most {limit} in {start.year}",
                                    "7.11"))
    fleets: dict[str, dict[str, int]] = {}
    for sea, by in raw.get("fleets", {}).items():
        if sea not in em.areas or em.areas[sea].kind != SEA:
            problems.append(Problem(f"{w}: fleets.{sea}", "is not a sea zone of the map", "8.x"))
        for n in by:
            if n not in MAJORS:
                problems.append(Problem(f"{w}: fleets.{sea}.{n}", "only major powers have fleet points", "Glossary"))
        fleets[sea] = dict(by)
    blocks, gs = _setup(w, raw["setup"], em, units, control, problems)
    pact = bool(pol.get("pact", False))
    vichy = bool(pol.get("vichy", False))
    _setup_rules(w, em, units, charts, control, blocks, gs, pact, frozenset(war), start, problems)
    return dict(id=str(s["id"]), title=str(s["title"]), note=str(s.get("note", "")), provisional=bool(s.get("provisional")),
                start=start, end=end, first=str(s.get("first", AXIS)), map=em, units=units, charts=charts,
                war=frozenset(war), pact=pact, vichy=vichy, control=control, production=production, assets=assets,
                fleets=fleets, blocks=tuple(blocks), gs=gs, axis_minors_joined=bool(pol.get("axis_minors_joined", False)))


def _setup(w: str, raw: dict[str, Any], em: EEMap, units: Units, control: dict[str, str],
           problems: list[Problem]) -> tuple[list[Block], dict[str, dict[str, int]]]:
    blocks: list[Block] = []
    gs: dict[str, dict[str, int]] = {}
    used: Counter[str] = Counter()
    for area, content in sorted(raw.items()):
        where = f"{w}: setup.{area}"
        if area not in em.areas or not em.areas[area].ground:
            problems.append(Problem(where, "is not a land area, fortress or box of the map", "D-6"))
            continue
        for bid, steps in sorted(content.items()):
            if bid == "gs":
                for n in steps:
                    if n not in units.nations or units.nations[n].kind != "major":
                        problems.append(Problem(f"{where}.gs.{n}", "ground-support units are a major power's", "6.61"))
                gs[area] = dict(steps)
                continue
            if bid not in units.blocks:
                problems.append(Problem(f"{where}.{bid}", "is not a block type of units.toml", "D-5"))
                continue
            bt = units.blocks[bid]
            for i, st in enumerate(steps):
                if not 1 <= st <= bt.steps:
                    problems.append(Problem(f"{where}.{bid}[{i}]", f"{st} steps; the block has 1 to {bt.steps}", "D-5"))
                blocks.append(Block(f"{area}/{bid}/{i + 1}", bid, bt.nation, st, area))
            used[bid] += len(steps)
    for bid, n in sorted(used.items()):
        if n > units.blocks[bid].count:
            problems.append(Problem(f"{w}: setup", f"{n} blocks of '{bid}' are set up; the force pool has "
                                                   f"{units.blocks[bid].count}", "4.4"))
    on_map: Counter[str] = Counter()
    for by in gs.values():
        on_map.update(by)
    for n, k in sorted(on_map.items()):
        if n in units.nations and k > units.nations[n].gs:
            problems.append(Problem(f"{w}: setup", f"{k} {n} ground-support units; it has {units.nations[n].gs} markers",
                                    "Glossary"))
    return blocks, gs


def _setup_rules(w: str, em: EEMap, units: Units, charts: Charts, control: dict[str, str], blocks: list[Block],
                 gs: dict[str, dict[str, int]], pact: bool, war: frozenset[frozenset[str]], start: Turn,
                 problems: list[Problem]) -> None:
    """The set-up against the rules that hold at the end of every phase: one side per area (no
    contested area at the start), control, fortress stacking (5.5, T-17), where units may be."""
    stack = charts["t17_stacking"].data
    by_area: dict[str, list[Block]] = {}
    for b in blocks:
        by_area.setdefault(b.area, []).append(b)
    for area, here in sorted(by_area.items()):
        a = em.areas[area]
        where = f"{w}: setup.{area}"
        ctl = control.get(area, NEUTRAL)
        sides = set()
        for b in here:
            bt = units.blocks[b.type]
            side = ctl if b.nation == NEUTRAL else units.side_of(b.nation)
            sides.add(side)
            if ctl == VICHY:
                if b.nation != "france" or bt.type != "infantry" or b.steps > 2:
                    problems.append(Problem(f"{where}.{b.type}", "Vichy territory holds French infantry of up to 2 steps only",
                                            "9.52"))
            elif side != ctl and not (ctl == NEUTRAL and a.home == b.nation):
                problems.append(Problem(f"{where}.{b.type}", f"a {b.nation} block in an area controlled by {ctl}", "Glossary"))
            if bt.type == "armor" and (a.terrain == "swamp" or a.fortress):
                problems.append(Problem(f"{where}.{b.type}", "armor may not be in a swamp or a fortress", "5.15, A-27"))
            if side == AXIS and area in em.by_name("Ural Mountains"):
                problems.append(Problem(f"{where}.{b.type}", "Axis units may not enter the Ural Mountains", "5.18"))
            if b.nation == "italy" and a.weather != "south" and a.country != "ussr":
                problems.append(Problem(f"{where}.{b.type}", "Italian units operate in the South weather zone", "9.41"))
            if bt.type == "militia" and b.nation == "germany" and a.country not in GERMAN_MILITIA:
                problems.append(Problem(f"{where}.{b.type}", "German militia operate only in " + ", ".join(sorted(GERMAN_MILITIA)),
                                        "9.12"))
            if bt.type == "militia" and b.nation == "britain" and a.home != "britain":
                problems.append(Problem(f"{where}.{b.type}", "British militia operate only in British home areas", "9.33"))
        if len(sides) > 1:
            problems.append(Problem(where, "holds both sides' blocks: no area is contested at the start", "Glossary"))
        if a.fortress:
            soviet_only = all(b.nation == "ussr" for b in here)
            limit = stack["soviet_fortress"] if soviet_only else stack["fortress"]
            if len(here) > limit:
                problems.append(Problem(where, f"{len(here)} units in a fortress; the limit is {limit} (GS not counted)", "5.5"))
    for area in gs:
        a = em.areas[area]
        for n in gs[area]:
            if n in units.nations and units.side_of(n) != control.get(area, NEUTRAL) and a.home != n:
                problems.append(Problem(f"{w}: setup.{area}.gs.{n}", f"in an area controlled by {control.get(area, NEUTRAL)}",
                                        "Glossary"))
    if frozenset(("germany", "ussr")) not in war:
        romania = [b for b in blocks if b.nation == "germany" and em.areas[b.area].country == "romania"]
        armor = [b for b in romania if units.blocks[b.type].type == "armor"]
        if len(romania) > 3 or len(armor) > 1 or any(em.areas[x].country == "romania" and "germany" in by
                                                         for x, by in gs.items()):
            problems.append(Problem(f"{w}: setup", f"{len(romania)} German units in Romania ({len(armor)} armor); before the "
                                                   "German-Soviet war at most 3, 1 armor, no GS", "9.17e"))
    if pact:
        soviet = [b for b in blocks if b.nation == "ussr"]
        front = [b for b in soviet if b.area in UP_FRONT]
        if 2 * len(front) < len(soviet):
            problems.append(Problem(f"{w}: setup", f"{len(front)} of {len(soviet)} Soviet ground units are in "
                                                   f"{', '.join(UP_FRONT)}; at least half must be", "9.26"))
        for x, by in gs.items():
            if "ussr" in by and x not in UP_FRONT:
                problems.append(Problem(f"{w}: setup.{x}.gs", "every Soviet GS unit is in the up-front areas", "9.26"))
        if start < Turn(1941, 0):
            for x in UP_FRONT:
                if not any(b.area == x for b in soviet):
                    problems.append(Problem(f"{w}: setup", f"{x} holds no Soviet unit; before Jan/Feb 1941 each up-front "
                                                           "area holds one", "9.26"))

