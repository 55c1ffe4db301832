"""Red Steel data: the charts (scenarios/red-steel/charts.toml), the map, the counters and the
scenarios (docs/red-steel.md, "Data").

Nothing printed is in the rules source (digest 3.2, 4.1): the Terrain Effects Chart, the Combat
Results Table, the Bombardment Table, the Towing Table, the Breakdown Chart, the Soviet Activation
Track, the Turn Record Track, the counters, the map and the set-up are data, each table marked
``provisional`` with a note, and replaceable by an owner of the physical game without touching
code. Everything is cross-checked when loaded; a scenario's digest covers its charts, map, counters
and set-up, so that a game refuses to replay on other data.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbem.errors import ModuleDataError, Problem
from pbem.exchange.canonical import canonical
from pbem.games.base import bundled_scenario_names, bundled_scenario_path, read_data, scenario_file
from pbem.mechanics.hexgrid import Numbering, hexside_key
from pbem.mechanics.odds import Odds
from pbem.mechanics.places import HexGrid, Place
from pbem.mechanics.tables import OddsColumns, Result
from pbem.resources import scenarios_dir

GAME_DIR = "red-steel"
AXIS, SOVIET = "axis", "soviet"
SIDES: tuple[str, ...] = (AXIS, SOVIET)  # 3.2: the Axis player turn first
NATS = {AXIS: ("german", "romanian", "ukrainian"), SOVIET: ("soviet",)}  # 2.2
TERRAINS = ("clear", "woods", "hills", "marsh")  # rows of the TEC (provisional, digest 4.2)
FEATURES = frozenset({"prut", "river", "bridge", "road", "main-road"})  # hexside features (digest 4.2)
TODS = ("am", "midday", "pm", "night")  # the times of day, in order
TYPES = frozenset({
    "infantry", "light-infantry", "engineer", "bridging-engineer", "machine-gun", "cavalry", "recon", "tank",
    "anti-tank", "anti-aircraft", "artillery", "hq", "militia", "border-guard", "mountain-infantry", "motorcycle",
    "monitor",
})
SIZES = ("company", "battalion", "regiment", "hq")
MOVES = ("foot", "mot", "mech", "motorcycle")  # 2.1, 17.7
INFANTRY_SUPPORT = frozenset({"infantry", "light-infantry", "engineer", "machine-gun", "cavalry", "recon",
                              "mountain-infantry", "motorcycle"})  # 10.3 (militia and border guards never, 17.34)
ARTILLERY = frozenset({"artillery", "monitor"})  # 11.0, 17.52
UNIT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9./+-]{0,23}", re.ASCII)

# Where a unit is when it is not on the map.
REINFORCEMENTS = "reinforcements"  # 12.1: not yet arrived
ELIMINATED = "eliminated"
BREAKDOWN_BOX = "breakdown"  # 14.1: a battalion broken down into companies
WITHDRAWN = "withdrawn"  # 15.4: left the map with its division
REMOVED = "removed"  # 15.15: removed by the Soviet player
POOL = "pool"  # 17.3, 14.x: a militia not mobilised, a company not in play
OFF_MAP = frozenset({REINFORCEMENTS, ELIMINATED, BREAKDOWN_BOX, WITHDRAWN, REMOVED, POOL})


# --- charts -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Terrain:
    """A TEC row: movement costs by class (5.13) and its CRT line (9.17)."""

    name: str
    foot: int | None  # None: prohibited
    mot: int | None
    mech: int | None
    line: str  # the CRT terrain line (9.17)
    bombard: int  # the Bombardment Table column shift (8.2; negative: toward weaker effects)
    rank: int  # how favourable to the defender (9.17: the highest is used); for movement the costliest is used (5.11)

    def cost(self, klass: str) -> int | None:
        return {"foot": self.foot, "mot": self.mot, "mech": self.mech}[klass]


@dataclass(frozen=True)
class Tec:
    """The Terrain Effects Chart (NOT IN SOURCE, digest 3.2): provisional."""

    terrain: dict[str, Terrain]  # clear, woods, hills, marsh, town, city
    road: int  # 5.61: the cost of a hex entered along a road
    main_road: int  # 5.61: along a main road
    river: int  # 5.54: extra cost to cross a river hexside without a bridge
    zoc_enter: int  # 4.3 / A-15: extra cost to enter an enemy ZOC hex
    zoc_leave: int  # 4.3 / A-15: extra cost to leave one
    strategic_factor: int  # 5.2: the MA is multiplied by this under strategic movement (provisional)
    entrench_line: str  # 9.13: the CRT line of an entrenched defender (unless the hex's line is better)
    entrench_bombard: int  # 8.2: the Bombardment Table shift of an entrenchment
    provisional: bool
    note: str


@dataclass(frozen=True)
class Crt(OddsColumns):
    """The Combat Results Table (NOT IN SOURCE): odds columns, terrain lines, 2d6 rows (A-41)."""

    columns: tuple[str, ...]
    lines: dict[str, dict[int, tuple[Result, ...]]]  # terrain line -> 2d6 total -> one result per column
    provisional: bool
    note: str

    def lookup(self, line: str, odds: Odds, total: int) -> Result:
        return self.lines[line][total][self.columns.index(odds.label)]


@dataclass(frozen=True)
class BombardTable:
    """The Bombardment Table (NOT IN SOURCE): columns by total strength, 2d6 rows; results are
    step losses and d (disrupted) or Z (demoralized) (8.2)."""

    columns: tuple[int, ...]  # the lowest strength of each column
    rows: dict[int, tuple[Result, ...]]  # 2d6 total -> results (the defender's side of a Result)
    size_shift: dict[int, int]  # target size in battalions (8.2 step 3) -> column shift
    air_road_shift: int  # 16.5 / A-54: toward stronger effects
    provisional: bool
    note: str

    def column(self, strength: int) -> int:
        """The index of the column of a total strength, or -1 below the first."""
        return max((i for i, lo in enumerate(self.columns) if strength >= lo), default=-1)


@dataclass(frozen=True)
class Activation:
    """The Soviet Activation Track (15.1, NOT IN SOURCE): the number printed in each box, and the
    turn modifier by time of day."""

    boxes: tuple[int, ...]
    modifier: dict[str, int]
    provisional: bool
    note: str


@dataclass(frozen=True)
class Towing:
    """The Towing Table (11.6, A-63, NOT IN SOURCE): the MP a mode change costs."""

    to_towed: int
    to_deployed: int
    provisional: bool
    note: str


@dataclass(frozen=True)
class Breakdown:
    """The Breakdown Chart (14.0, A-70, NOT IN SOURCE): the companies a full battalion of a type
    and nationality breaks into."""

    companies: dict[tuple[str, str], int]  # (nat, type) -> number of companies
    provisional: bool
    note: str


@dataclass(frozen=True)
class Charts:
    tec: Tec
    crt: Crt
    bombard: BombardTable
    activation: Activation
    towing: Towing
    breakdown: Breakdown
    digest_data: dict[str, Any]


# --- map ----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RSHex(Place):
    town: str = ""
    city: str = ""
    kishinev: bool = False
    vp: int = 0

    @property
    def urban(self) -> bool:
        """A town or a city (8.1, 9.61, 16.5, 17.2, 17.3)."""
        return bool(self.town or self.city)


@dataclass(frozen=True)
class RSMap:
    grid: HexGrid[RSHex]
    id: str
    title: str
    note: str
    edges: dict[str, frozenset[str]]  # 7.1: west, north, east, south

    @property
    def kishinev(self) -> str:
        """The Kishinev hex (17.6), or "" on a map without it (a training map)."""
        return next((h for h in self.grid.place_ids() if (p := self.grid.place(h)) is not None and p.kishinev), "")

    def hex(self, h: str) -> RSHex:
        p = self.grid.place(h)
        assert p is not None, h
        return p

    def features(self, a: str, b: str) -> frozenset[str]:
        return self.grid.border_features(a, b)


# --- counters -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StepValues:
    a: int  # attack strength
    d: int  # defense strength (0: none, 5.62)
    aa: int  # anti-armor
    ar: int  # armor
    m: int  # morale
    ma: int  # movement allowance


@dataclass(frozen=True, slots=True)
class ArtValues:
    """11.1: the deployed side of an artillery unit (its steps give the towed side)."""

    support_attack: int
    support_defense: int
    range: int
    regiment: bool  # 11.51: double ammunition


@dataclass(frozen=True)
class UnitSpec:
    id: str
    name: str
    side: str
    nat: str
    type: str
    size: str
    move: str
    formation: str  # "" = independent (15.12)
    hq: str  # "" = independent (7.4)
    nkvd: bool
    steps: tuple[StepValues, ...]
    art: ArtValues | None = None

    @property
    def artillery(self) -> bool:
        return self.type in ARTILLERY

    def stack_value(self, step: int) -> Fraction:
        """T3 / 6.1, 6.5: battalion-equivalents for stacking (an HQ: 0 here; 6.1 counts them by hex)."""
        if self.size == "company":
            return Fraction(1, 3)
        if self.size == "hq":
            return Fraction(0)
        if self.type == "mountain-infantry" and self.size == "regiment":
            return Fraction(2) if len(self.steps) - step >= 3 else Fraction(1)
        return Fraction(1)

    def target_value(self, step: int) -> Fraction:
        """T3 / 8.2, 6.5, A-23: battalion-equivalents as a bombardment target."""
        if self.size == "company" or self.size == "hq":
            return Fraction(1, 3)
        if self.size == "regiment" and self.nat == "soviet" and self.type in ("mountain-infantry", "artillery"):
            return Fraction(2)
        return Fraction(1)


@dataclass(frozen=True)
class Turn:
    n: int
    date: str
    tod: str

    @property
    def night(self) -> bool:
        return self.tod == "night"

    @property
    def label(self) -> str:
        return f"{self.date} {dict(am='AM', midday='Mid-Day', pm='PM', night='Night')[self.tod]}"


@dataclass(frozen=True)
class Reinforcement:
    unit: str
    turn: int
    entry: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    note: str
    provisional: bool
    charts: Charts
    map: RSMap
    units: dict[str, UnitSpec]
    units_note: str
    turns: dict[int, Turn]
    first_turn: int
    last_turn: int
    setup: dict[str, str]
    reinforcements: dict[str, Reinforcement]
    control: dict[str, str]  # 2.1: every hex's controller at the start
    ammo: dict[str, int]  # 11.5
    aircraft: dict[str, int]  # 16.0: id -> bombardment strength
    militia: tuple[str, ...]  # 17.3: the militia that mobilisation places
    north_edge_from: int  # 7.21, A-27
    digest: str
    formations: tuple[str, ...] = field(default=())
    garrison: tuple[str, ...] = field(default=())  # 17.6: the Chisinau garrison (scenario `[garrison] units`)

    def turn(self, n: int) -> Turn:
        return self.turns[n]


# --- loading ------------------------------------------------------------------------------------

def charts_path() -> Path:
    return scenarios_dir() / GAME_DIR / "charts.toml"


def scenario_path(name: str) -> Path:
    """A bundled scenario by name, or a scenario file by path (``.toml``: test and owner data)."""
    return bundled_scenario_path(scenarios_dir() / GAME_DIR, name)


def scenario_names() -> list[str]:
    return bundled_scenario_names(scenarios_dir() / GAME_DIR)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Reader:
    """Typed look-ups in raw TOML data that record a problem (file, key, rule) instead of raising."""

    def __init__(self, path: Path, problems: list[Problem]) -> None:
        self.path = path
        self.problems = problems

    def bad(self, where: str, msg: str, rule: str = "") -> None:
        self.problems.append(Problem(f"{self.path}: {where}", msg, rule))

    def table(self, raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
        v = raw.get(key)
        if not isinstance(v, dict):
            self.bad(f"{where}{key}", "is missing (a table)")
            return {}
        return v

    def int(self, raw: dict[str, Any], key: str, where: str, lo: int = 0, default: int | None = None) -> int:
        v = raw.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            self.bad(f"{where}{key}", f"is a whole number, {lo} or more")
            return lo
        return v

    def str(self, raw: dict[str, Any], key: str, where: str, choices: tuple[str, ...] | frozenset[str] | None = None,
            default: str | None = None) -> str:
        v = raw.get(key, default)
        if not isinstance(v, str) or (choices is not None and v not in choices):
            self.bad(f"{where}{key}", "is text" + (f": one of {', '.join(sorted(choices))}" if choices else ""))
            return ""
        return v


@lru_cache(maxsize=4)
def load_charts(path: Path | None = None) -> Charts:
    path = path or charts_path()
    problems: list[Problem] = []
    raw = read_data(path, problems)
    if problems:
        raise ModuleDataError(f"{path}: unreadable charts", problems)
    r = _Reader(path, problems)
    t = r.table(raw, "tec", "")
    terrain = {}
    for name, row in sorted(r.table(t, "terrain", "tec.").items()):
        w = f"tec.terrain.{name}."
        costs = {}
        for k in ("foot", "mot", "mech"):
            v = row.get(k)
            costs[k] = None if v == "no" else r.int(row, k, w, 1)
        terrain[name] = Terrain(name, costs["foot"], costs["mot"], costs["mech"], r.str(row, "line", w),
                                int(row.get("bombard", 0)), r.int(row, "rank", w))
    for need in (*TERRAINS, "town", "city"):
        if need not in terrain:
            r.bad("tec.terrain", f"has no row '{need}'", "5.13")
    tec = Tec(terrain, r.int(t, "road", "tec.", 1), r.int(t, "main_road", "tec.", 1), r.int(t, "river", "tec."),
              r.int(t, "zoc_enter", "tec."), r.int(t, "zoc_leave", "tec."), r.int(t, "strategic_factor", "tec.", 1),
              r.str(t, "entrench_line", "tec."), int(t.get("entrench_bombard", 0)),
              bool(t.get("provisional", False)), str(t.get("note", "")))
    c = r.table(raw, "crt", "")
    columns = tuple(str(x) for x in c.get("columns", []))
    for col in columns:
        try:
            Odds.parse(col)
        except ValueError:
            r.bad("crt.columns", f"'{col}' is not odds (n:1 or 1:n)", "9.14")
    lines: dict[str, dict[int, tuple[Result, ...]]] = {}
    for line, rows in sorted(r.table(c, "lines", "crt.").items()):
        lines[line] = {}
        for total in range(2, 13):
            cells = rows.get(str(total))
            if not isinstance(cells, list) or len(cells) != len(columns):
                r.bad(f"crt.lines.{line}.{total}", f"is a list of {len(columns)} results, one per column", "9.18")
                continue
            try:
                lines[line][total] = tuple(Result.parse(str(x)) for x in cells)
            except ValueError as e:
                r.bad(f"crt.lines.{line}.{total}", str(e), "9.2")
    for tr in terrain.values():
        if tr.line not in lines:
            r.bad(f"tec.terrain.{tr.name}.line", f"'{tr.line}' is not a line of the CRT", "9.17")
    if tec.entrench_line not in lines:
        r.bad("tec.entrench_line", f"'{tec.entrench_line}' is not a line of the CRT", "9.13")
    crt = Crt(columns, lines, bool(c.get("provisional", False)), str(c.get("note", "")))
    b = r.table(raw, "bombardment", "")
    brows: dict[int, tuple[Result, ...]] = {}
    bcols = tuple(int(x) for x in b.get("columns", []) if _int(x))
    for total in range(2, 13):
        cells = b.get("rows", {}).get(str(total))
        if not isinstance(cells, list) or len(cells) != len(bcols):
            r.bad(f"bombardment.rows.{total}", f"is a list of {len(bcols)} results", "8.2")
            continue
        try:
            brows[total] = tuple(Result.parse("0/" + str(x)) for x in cells)
        except ValueError as e:
            r.bad(f"bombardment.rows.{total}", str(e), "8.2")
    size_shift = {int(k): int(v) for k, v in b.get("size_shift", {}).items()}
    bomb = BombardTable(bcols, brows, size_shift, int(b.get("air_road_shift", 1)),
                        bool(b.get("provisional", False)), str(b.get("note", "")))
    a = r.table(raw, "activation", "")
    act = Activation(tuple(int(x) for x in a.get("boxes", [])), {k: int(v) for k, v in a.get("modifier", {}).items()},
                     bool(a.get("provisional", False)), str(a.get("note", "")))
    for tod in TODS:
        if tod not in act.modifier:
            r.bad("activation.modifier", f"has no modifier for '{tod}'", "15.1")
    tw = r.table(raw, "towing", "")
    towing = Towing(r.int(tw, "to_towed", "towing."), r.int(tw, "to_deployed", "towing."),
                    bool(tw.get("provisional", False)), str(tw.get("note", "")))
    bd = r.table(raw, "breakdown", "")
    companies = {}
    for key, n in bd.get("companies", {}).items():
        nat, _, typ = key.partition(".")
        companies[(nat, typ)] = int(n)
    brk = Breakdown(companies, bool(bd.get("provisional", False)), str(bd.get("note", "")))
    if problems:
        raise ModuleDataError(f"{path}: the charts have problems", problems)
    return Charts(tec, crt, bomb, act, towing, brk, raw)


def load_map(path: Path, problems: list[Problem]) -> tuple[RSMap | None, dict[str, Any]]:
    raw = read_data(path, problems)
    if problems:
        return None, raw
    r = _Reader(path, problems)
    meta = r.table(raw, "map", "")
    numbering = Numbering(sheets=False)
    hexes: dict[str, RSHex] = {}
    for hid, h in sorted(r.table(raw, "hexes", "").items()):
        where = f"hexes.{hid}."
        try:
            if numbering.canonical(hid) != hid:
                raise ValueError
        except ValueError:
            r.bad(f"hexes.{hid}", "is not a hex id XXYY (column, then row, 2 digits each)", "2.3")
            continue
        if not isinstance(h, dict):
            r.bad(f"hexes.{hid}", "is an inline table { t = ... }", "2.3")
            continue
        unknown = sorted(set(h) - {"t", "town", "city", "kishinev", "vp"})
        if unknown:
            r.bad(f"hexes.{hid}", f"unknown key(s) {', '.join(unknown)}", "2.3")
        t = r.str(h, "t", where, TERRAINS)
        vp = h.get("vp", 0)
        if not _int(vp) or vp < 0:
            r.bad(f"{where}vp", "is a whole number, 0 or more")
            vp = 0
        hexes[hid] = RSHex(hid, terrain=t, name=str(h.get("town") or h.get("city") or ""), town=str(h.get("town", "")),
                           city=str(h.get("city", "")), kishinev=bool(h.get("kishinev", False)), vp=int(vp))
    sides: dict[str, frozenset[str]] = {}
    for key, v in sorted(raw.get("hexsides", {}).items()):
        feats = [v] if isinstance(v, str) else list(v) if isinstance(v, list) else []
        a, _, b = key.partition("-")
        if a not in hexes or b not in hexes or hexside_key(a, b) != key:
            r.bad(f"hexsides.{key}", "is not two hexes of the map, the lower id first", "2.3")
            continue
        bad = [f for f in feats if f not in FEATURES]
        if bad or not feats:
            r.bad(f"hexsides.{key}", f"features are {', '.join(sorted(FEATURES))}", "2.3")
            continue
        sides[key] = frozenset(feats)
    grid = HexGrid(numbering, hexes, sides)
    for key in sides:
        a, _, b = key.partition("-")
        if b not in grid.neighbours(a):
            r.bad(f"hexsides.{key}", "the two hexes are not adjacent", "2.3")
    kish = [h for h, p in hexes.items() if p.kishinev]
    if len(kish) > 1:
        r.bad("hexes", f"{len(kish)} hexes are the Kishinev hex (kishinev = true); a map has one at most", "17.6")
    edges: dict[str, frozenset[str]] = {}
    if hexes:
        cols = sorted({int(h[:2]) for h in hexes})
        rows = sorted({int(h[2:]) for h in hexes})
        edges = {"west": frozenset(h for h in hexes if int(h[:2]) == cols[0]),
                 "east": frozenset(h for h in hexes if int(h[:2]) == cols[-1]),
                 "north": frozenset(h for h in hexes if int(h[2:]) == rows[0]),
                 "south": frozenset(h for h in hexes if int(h[2:]) == rows[-1])}
    m = RSMap(grid, str(meta.get("id", "")), str(meta.get("title", "")), str(meta.get("note", "")), edges)
    return m, raw


def _steps(r: _Reader, raw: Any, where: str) -> tuple[StepValues, ...]:
    out = []
    if not isinstance(raw, list) or not raw:
        r.bad(f"{where}steps", "is a list of step values, full strength first", "17.1")
        return ()
    for i, s in enumerate(raw):
        w = f"{where}steps[{i}]."
        if not isinstance(s, dict):
            r.bad(w, "is an inline table { a, d, aa, ar, m, ma }")
            continue
        out.append(StepValues(*(r.int(s, k, w, 0, 0 if k in ("aa", "ar") else None) for k in ("a", "d", "aa", "ar", "m", "ma"))))
    return tuple(out)


def load_units(path: Path, problems: list[Problem]) -> tuple[dict[str, UnitSpec], dict[str, Any]]:
    raw = read_data(path, problems)
    if problems:
        return {}, raw
    r = _Reader(path, problems)
    units: dict[str, UnitSpec] = {}
    for i, u in enumerate(raw.get("unit", [])):
        where = f"unit[{i}]."
        uid = str(u.get("id", ""))
        if not UNIT_ID.fullmatch(uid):
            r.bad(f"{where}id", "is 1-24 letters, digits and . / + - (a letter or digit first)", "2.2")
            continue
        if uid in units:
            r.bad(f"{where}id", f"{uid} is listed twice", "2.2")
            continue
        side = r.str(u, "side", where, SIDES)
        nat = r.str(u, "nat", where, NATS.get(side, ("german",)))
        art = None
        if isinstance(u.get("art"), dict):
            a = u["art"]
            art = ArtValues(r.int(a, "support_attack", where + "art."), r.int(a, "support_defense", where + "art."),
                            r.int(a, "range", where + "art.", 1), bool(a.get("regiment", False)))
        typ = r.str(u, "type", where, TYPES)
        if typ in ARTILLERY and art is None:
            r.bad(f"{where}art", "artillery and monitors have art = { support_attack, support_defense, range }", "11.1")
        units[uid] = UnitSpec(uid, str(u.get("name", uid)), side, nat, typ, r.str(u, "size", where, SIZES),
                              r.str(u, "move", where, MOVES), str(u.get("formation", "")), str(u.get("hq", "")),
                              bool(u.get("nkvd", False)), _steps(r, u.get("steps"), where), art)
    for uid, u in units.items():
        if u.hq and (u.hq not in units or units[u.hq].type != "hq" or units[u.hq].side != u.side):
            r.bad(f"unit {uid}.hq", f"'{u.hq}' is not an HQ of its side", "7.4")
        if u.artillery and len(u.steps) != 1:
            r.bad(f"unit {uid}.steps", "artillery has one step (17.1)", "17.1")
    return units, raw


@lru_cache(maxsize=16)
def load_scenario(name: str) -> Scenario:
    """A bundled scenario or a scenario file, with its charts, map and counters, cross-checked
    (ModuleDataError lists every problem)."""
    path = scenario_file("Red Steel", name, scenario_path(name), scenario_names())
    charts = load_charts()
    problems: list[Problem] = []
    raw = read_data(path, problems)
    if problems:
        raise ModuleDataError(f"{path}: invalid scenario", problems)
    r = _Reader(path, problems)
    s = r.table(raw, "scenario", "")
    if s.get("game") != "red-steel":
        r.bad("scenario.game", "is \"red-steel\"")
    m, map_raw = load_map(path.parent / str(s.get("map", "map.toml")), problems)
    units, units_raw = load_units(path.parent / str(s.get("units", "units.toml")), problems)
    if m is None or problems:
        raise ModuleDataError(f"{path}: the scenario's map or counters have problems", problems)
    turns = {}
    for k, t in sorted(r.table(raw, "turns", "").items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
        if not k.isdigit() or not isinstance(t, dict):
            r.bad(f"turns.{k}", "a turn number and { date, tod }", "2.5")
            continue
        turns[int(k)] = Turn(int(k), r.str(t, "date", f"turns.{k}."), r.str(t, "tod", f"turns.{k}.", TODS))
    first = r.int(s, "first_turn", "scenario.", 1, 1)
    last = r.int(s, "last_turn", "scenario.", 1)
    for n in range(first, last + 1):
        if n not in turns:
            r.bad("turns", f"turn {n} is missing", "2.5")
    setup = {}
    for uid, hx in sorted(raw.get("setup", {}).items()):
        if uid not in units:
            r.bad(f"setup.{uid}", "is not a unit of the counters", "3.0")
        elif m.grid.place(str(hx)) is None:
            r.bad(f"setup.{uid}", f"'{hx}' is not a hex of the map", "3.0")
        else:
            setup[uid] = str(hx)
    reinf = {}
    for i, x in enumerate(raw.get("reinforcement", [])):
        uid = str(x.get("unit", ""))
        entry = tuple(str(h) for h in x.get("entry", []))
        if uid not in units or uid in setup or uid in reinf:
            r.bad(f"reinforcement[{i}].unit", f"'{uid}' is not a unit of the counters, or is placed twice", "12.11")
            continue
        if not entry or any(m.grid.place(h) is None for h in entry):
            r.bad(f"reinforcement[{i}].entry", "is a list of hexes of the map", "12.11")
            continue
        reinf[uid] = Reinforcement(uid, r.int(x, "turn", f"reinforcement[{i}].", first), entry)
    mob = raw.get("mobilisation", {})
    militia = tuple(str(u) for u in mob.get("militia", []))
    garrison = tuple(str(u) for u in raw.get("garrison", {}).get("units", []))
    for uid in garrison:
        if uid not in units or units[uid].side != SOVIET:
            r.bad("garrison.units", f"'{uid}' is not a Soviet unit of the counters", "17.6")
    for uid, spec in company_counters(units, charts.breakdown).items():
        if uid in units:
            r.bad(f"unit {uid}", "is the id of a company counter made from the Breakdown Chart", "14.0")
        units[uid] = spec
    for uid in militia:
        if uid not in units or units[uid].type != "militia" or uid in setup or uid in reinf:
            r.bad("mobilisation.militia", f"'{uid}' is not a militia kept off the map", "17.3")
    ctl = raw.get("control", {})
    lo, hi = (list(ctl.get("axis_columns", [0, 0])) + [0, 0])[:2]
    control = {h: (AXIS if lo <= int(h[:2]) <= hi else SOVIET) for h in m.grid.place_ids()}
    for h, side in ctl.get("hexes", {}).items():
        if h in control and side in SIDES:
            control[h] = side
    for uid, hx in setup.items():
        control[hx] = units[uid].side
    ammo = {k: int(v) for k, v in raw.get("ammo", {}).items() if k in ("german", "romanian", "soviet")}
    aircraft = {str(k): int(v) for k, v in sorted(raw.get("aircraft", {}).items())}
    if len(aircraft) != 6:
        r.bad("aircraft", f"{len(aircraft)} aircraft; the Axis has 6 (16.0)", "16.0")
    formations = tuple(sorted({u.formation for u in units.values() if u.side == SOVIET and u.formation}))
    if problems:
        raise ModuleDataError(f"{path}: the scenario does not fit its map or counters", problems)
    victory = raw.get("victory", {})
    digest = "sha256:" + hashlib.sha256(canonical({"scenario": raw, "map": map_raw, "units": units_raw,
                                                   "charts": charts.digest_data})).hexdigest()
    return Scenario(str(s.get("id", "")), str(s.get("title", "")), str(s.get("note", "")), bool(s.get("provisional", False)),
                    charts, m, units, str(units_raw.get("units", {}).get("note", "")), turns, first, last, setup, reinf,
                    control, ammo, aircraft, militia, int(victory.get("north_edge_from", 1)), digest, formations, garrison)


def company_counters(units: dict[str, UnitSpec], chart: Breakdown) -> dict[str, UnitSpec]:
    """14.0, A-70: the company counters of the Breakdown Chart, one set per German and Romanian
    battalion of a type the chart lists: ``BATTALION.c1`` ... ``.cN``, of one step each, with the
    battalion's type, morale, anti-armor and armor (14.3), a third of its full attack and defense
    (at least 1) and its MA (the chart's provisional stand-in). They start in the pool."""
    out: dict[str, UnitSpec] = {}
    for uid, u in sorted(units.items()):
        n = chart.companies.get((u.nat, u.type), 0)
        if u.size != "battalion" or u.nat not in ("german", "romanian") or not n:
            continue
        full = u.steps[0]
        step = StepValues(max(1, full.a // 3), max(1, full.d // 3), full.aa, full.ar, full.m, full.ma)
        for k in range(1, n + 1):
            cid = f"{uid}.c{k}"
            if UNIT_ID.fullmatch(cid):
                out[cid] = UnitSpec(cid, f"{u.name}, company {k}", u.side, u.nat, u.type, "company", u.move, u.formation,
                                    u.hq, u.nkvd, (step,))
    return out
