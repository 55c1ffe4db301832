"""The map-of-places abstraction (pbem.mechanics.places): the hex grid and the area map as one
PlaceMap, the area map format (tests/mechanics/data/area-map.toml, schemas/area-map.schema.json), and paths,
supply lines, stacking and pictures written against it."""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.exchange.files import schema_problems
from pbem.mechanics.hexgrid import Numbering, hexside_key
from pbem.mechanics.paths import cheapest, costs_to, reachable, routes
from pbem.mechanics.places import (
    BOX,
    LAND,
    SEA,
    AreaMap,
    Border,
    HexGrid,
    Place,
    PlaceMap,
    area_map,
    neighbours_of_kind,
    of_kind,
)
from pbem.mechanics.stacking import counts, overstacked, stacks
from pbem.mechanics.supply import Reach, supplied, trace
from pbem.view.areamap import area_map_svg
from tests.paths import ROOT

DATA = Path(__file__).parent / "data" / "area-map.toml"
NS = "{http://www.w3.org/2000/svg}"


def raw_map() -> dict[str, Any]:
    with DATA.open("rb") as f:
        return tomllib.load(f)


def example_map() -> AreaMap[Place]:
    m, problems = area_map(raw_map(), str(DATA))
    assert problems == []
    return m


# --- the area map format -------------------------------------------------------------------------

def test_the_example_area_map_is_valid_and_loads() -> None:
    raw = raw_map()
    assert schema_problems(raw, "area-map", str(DATA)) == []
    m = example_map()
    assert isinstance(m, PlaceMap)
    land = of_kind(m, LAND)
    assert len(land) == 13 and "citadel" in land  # twelve areas and a fortress
    assert of_kind(m, SEA) == ["east-sea", "west-sea"]
    assert of_kind(m, BOX) == ["reserve"]
    assert m.neighbours("reserve") == () and m.distance("reserve", "capital") is None
    # borders and their features; the abstraction carries them, whatever they mean
    assert m.border_features("island", "peninsula") == {"strait"} == m.border_features("peninsula", "island")
    assert m.border_features("capital", "river-bend") == {"river"}
    assert m.border_features("capital", "harbour") == frozenset()
    assert m.border_features("capital", "far-east") == frozenset()  # not adjacent
    assert m.border("island", "south-coast") == Border("island", "south-coast", frozenset({"air-route"}))
    route = m.border("south-coast", "island")
    assert route is not None and route.data == {"via": "west-sea"}
    # sea zones are places of their own, adjacent to the areas on their coasts
    assert neighbours_of_kind(m, "west-sea", LAND) == ["island", "peninsula", "south-coast", "west-marches"]
    assert neighbours_of_kind(m, "harbour", SEA) == ["east-sea"]
    assert neighbours_of_kind(m, "capital", SEA) == []
    # a place's game data, and a fortress inside its area
    cap = m.place("capital")
    assert cap is not None and cap.name == "Capital" and cap.terrain == "clear" and cap.data == {"home": "blue", "supply": True}
    citadel = m.place("citadel")
    assert citadel is not None and citadel.within == "harbour" and citadel.data["stacking"] == 2
    assert m.distance("west-marches", "far-east") == 3  # across the two sea zones
    assert m.canonical("capital") == "capital" and m.canonical("nowhere") is None
    # adjacency is symmetric and sorted
    for p in m.place_ids():
        assert list(m.neighbours(p)) == sorted(m.neighbours(p))
        assert all(p in m.neighbours(n) for n in m.neighbours(p))
    plain, featured = m.links()["harbour"]
    assert plain == ("capital", "marsh", "peninsula", "south-coast")
    assert featured == (("citadel", frozenset({"fortress"})), ("east-sea", frozenset({"coast"})))


def test_area_map_problems_the_schema_cannot_see() -> None:
    raw = raw_map()
    raw["borders"] = {**raw["borders"], "harbour capital": [], "capital nowhere": [], "marsh marsh": [],
                      "marsh reserve": "canal", "reserve west-sea": {"features": [], "via": "atlantis"}}
    raw["places"] = {**raw["places"], "keep": {"kind": "castle", "within": "moat", "at": [1, 1]}, "lost": {}}
    _, problems = area_map(raw, "m.toml")
    text = sorted(f"{p.where}: {p.message}" for p in problems)
    assert any("borders.harbour capital: the same border as 'capital harbour'" in t for t in text)
    assert any("borders.capital nowhere: names 'nowhere'" in t for t in text)
    assert any("borders.marsh marsh: a place does not border itself" in t for t in text)
    assert any("borders.marsh reserve: feature 'canal' is not one of the map's features" in t for t in text)
    assert any("via names 'atlantis'" in t for t in text)
    assert any("places.keep: kind 'castle' is not one of the map's kinds" in t for t in text)
    assert any("places.keep: within names 'moat'" in t for t in text)
    assert any("1 place(s) without a position (at), e.g. lost" in t for t in text)


def test_the_schema_refuses_malformed_area_maps() -> None:
    raw = raw_map()
    raw["places"]["Bad Id"] = {}
    raw["borders"]["capital-harbour"] = "river"
    raw["places"]["capital"]["at"] = [1.5, 2]
    where = {p.where for p in schema_problems(raw, "area-map", "m")}
    assert any("places" in w for w in where) and any("borders" in w for w in where)
    assert any("capital.at" in w for w in where)


# --- the hex grid --------------------------------------------------------------------------------

def test_a_hex_grid_is_a_map_of_places_with_the_join_s_aliases() -> None:
    n = Numbering(north_last_row=3)
    ids = [n.format(n.parse(f"{c:02d}{r:02d}N")) for c in range(1, 4) for r in range(1, 4)]
    ids += [f"{c:02d}01S" for c in range(1, 4)]
    g: HexGrid[Place] = HexGrid(n, {h: Place(h) for h in ids}, {hexside_key("0103N", "0101S"): frozenset({"river"})})
    assert isinstance(g, PlaceMap)
    assert g.canonical("0100S") == "0103N"  # the South map's row 00 is the North map's last row
    assert g.canonical("0102S") is None and g.canonical("xyz") is None
    assert "0101S" in g.neighbours("0103N") and "0103N" in g.neighbours("0101S")
    assert g.border_features("0101S", "0103N") == {"river"}
    assert g.borders() == [Border("0101S", "0103N", frozenset({"river"}))]
    assert g.distance("0101N", "0301S") == 4
    assert g.place("0201N") == Place("0201N") and g.place("0909N") is None


def test_proud_monster_s_map_is_the_hex_grid_implementation() -> None:
    from pbem.games.proud_monster.data import load_scenario

    m = load_scenario("campaign").map
    assert isinstance(m, HexGrid) and isinstance(m, PlaceMap)
    h = m.place("2817N")
    assert h is not None and h.name == "Minsk" and h.kind == LAND
    assert m.canonical("3000S") == "3026N"
    assert all((x.kind in (SEA, "lake")) == x.water for x in m.hexes.values())


# --- paths and supply against brute force on random hex regions and area graphs ------------------

def floyd(m: PlaceMap, cost: Any) -> dict[tuple[str, str], int]:
    """Every pair's cheapest cost, by Floyd-Warshall: no heap, no search order."""
    ids = list(m.place_ids())
    inf = 10**9
    d = {(a, b): (0 if a == b else inf) for a in ids for b in ids}
    for a in ids:
        for b in m.neighbours(a):
            c = cost(a, b)
            if c is not None:
                d[a, b] = min(d[a, b], c)
    for k in ids:
        for i in ids:
            dik = d[i, k]
            if dik == inf:
                continue
            for j in ids:
                if dik + d[k, j] < d[i, j]:
                    d[i, j] = dik + d[k, j]
    return {k: v for k, v in d.items() if v < inf}


@st.composite
def hex_regions(draw: st.DrawFn) -> tuple[HexGrid[Place], dict[str, int]]:
    """A random region of a two-map grid (the join row inside it), its hexsides with features, a
    cost per hex (0 a hex no step may enter)."""
    n = Numbering(north_last_row=3)
    cells = draw(st.sets(st.tuples(st.integers(1, 5), st.integers(0, 6)), min_size=2, max_size=18))
    ids = sorted({n.format(n.parse(f"{c:02d}{r:02d}N" if r <= 3 else f"{c:02d}{r - 3:02d}S")) for c, r in cells})
    grid: HexGrid[Place] = HexGrid(n, {h: Place(h) for h in ids}, {})
    pairs = sorted({hexside_key(a, b) for a in ids for b in grid.neighbours(a)})
    sides = {k: frozenset({draw(st.sampled_from(["river", "wall"]))}) for k in pairs if draw(st.booleans())}
    grid = HexGrid(n, grid.hexes, sides)
    return grid, {h: draw(st.integers(0, 4)) for h in ids}


@st.composite
def area_graphs(draw: st.DrawFn) -> tuple[AreaMap[Place], dict[str, int]]:
    """A random area map: areas and sea zones, random borders with features, a cost per place."""
    k = draw(st.integers(2, 10))
    ids = [f"p{i}" for i in range(k)]
    places = {p: Place(p, draw(st.sampled_from([LAND, LAND, SEA]))) for p in ids}
    borders: dict[tuple[str, str], Border] = {}
    for i in range(k):
        for j in range(i + 1, k):
            if draw(st.integers(0, 2)) == 0:
                feats = draw(st.sets(st.sampled_from(["river", "strait", "wall"]), max_size=2))
                borders[ids[i], ids[j]] = Border(ids[i], ids[j], frozenset(feats))
    return AreaMap("random", "random", places, borders), {p: draw(st.integers(0, 4)) for p in ids}


def maps() -> st.SearchStrategy[tuple[Any, dict[str, int]]]:
    return st.one_of(hex_regions(), area_graphs())


def border_cost(m: PlaceMap, terrain: dict[str, int]) -> Any:
    """Entering a place costs its terrain (0: prohibited), a river 2 more, a wall prohibits."""
    def cost(a: str, b: str) -> int | None:
        feats = m.border_features(a, b)
        if terrain[b] == 0 or "wall" in feats:
            return None
        return terrain[b] + (2 if "river" in feats else 0)
    return cost


def symmetric_cost(m: PlaceMap, terrain: dict[str, int]) -> Any:
    """A cost of the border alone, the same both ways."""
    def cost(a: str, b: str) -> int | None:
        feats = m.border_features(a, b)
        return None if "wall" in feats else 1 + 3 * ("river" in feats) + (terrain[a] + terrain[b]) % 3
    return cost


@settings(max_examples=80, deadline=None)
@given(maps(), st.data())
def test_cheapest_agrees_with_brute_force(mt: tuple[Any, dict[str, int]], data: st.DataObject) -> None:
    m, terrain = mt
    cost = border_cost(m, terrain)
    best = floyd(m, cost)
    ids = list(m.place_ids())
    a, b = data.draw(st.sampled_from(ids)), data.draw(st.sampled_from(ids))
    found = cheapest(m, a, b, cost)
    if (a, b) not in best:
        assert found is None
        return
    assert found is not None and found[0] == best[a, b]
    total, here = 0, a
    for nxt in found[1]:  # the path is a chain of adjacent places whose steps add up to its cost
        assert nxt in m.neighbours(here)
        step = cost(here, nxt)
        assert step is not None
        total, here = total + step, nxt
    assert here == b and total == found[0]
    assert cheapest(m, a, b, cost, limit=best[a, b]) is not None
    if best[a, b] > 0:
        assert cheapest(m, a, b, cost, limit=best[a, b] - 1) is None


@settings(max_examples=80, deadline=None)
@given(maps(), st.data())
def test_costs_to_and_reachable_agree_with_brute_force(mt: tuple[Any, dict[str, int]], data: st.DataObject) -> None:
    m, terrain = mt
    cost = border_cost(m, terrain)
    best = floyd(m, cost)
    ids = list(m.place_ids())
    goals = data.draw(st.sets(st.sampled_from(ids), min_size=1, max_size=3))
    back = costs_to(m, goals, cost, ids)
    for p in ids:
        options = [best[p, g] for g in goals if (p, g) in best]
        assert back.get(p) == (min(options) if options else None), p
    start, budget = data.draw(st.sampled_from(ids)), data.draw(st.integers(0, 8))
    within = reachable(m, start, cost, budget)
    assert within == {q: best[start, q] for q in ids if best.get((start, q), budget + 1) <= budget}
    ways = routes(m, start, cost, budget)
    assert set(ways) == set(within) - {start}
    for q, path in ways.items():  # each route is a chain of steps costing what reachable says
        total, here = 0, start
        for nxt in path:
            step = cost(here, nxt)
            assert nxt in m.neighbours(here) and step is not None
            total, here = total + step, nxt
        assert here == q and total == within[q]


@settings(max_examples=60, deadline=None)
@given(maps(), st.data())
def test_costs_are_symmetric_where_the_cost_function_is(mt: tuple[Any, dict[str, int]], data: st.DataObject) -> None:
    m, terrain = mt
    cost = symmetric_cost(m, terrain)
    ids = list(m.place_ids())
    a, b = data.draw(st.sampled_from(ids)), data.draw(st.sampled_from(ids))
    there, back = cheapest(m, a, b, cost), cheapest(m, b, a, cost)
    assert (there is None) == (back is None)
    if there is not None and back is not None:
        assert there[0] == back[0]


@settings(max_examples=80, deadline=None)
@given(maps(), st.data())
def test_supply_lines_agree_with_brute_force(mt: tuple[Any, dict[str, int]], data: st.DataObject) -> None:
    """supplied (one search outward from the sources) gives the places a line reaches a source
    from, as a fixpoint does; trace gives the cheapest line to the nearest source."""
    m, terrain = mt
    ids = list(m.place_ids())
    sources = data.draw(st.sets(st.sampled_from(ids), min_size=1, max_size=3))
    closed = {p for p in ids if terrain[p] == 0}

    def crosses(toward: str, away: str, feats: frozenset[str]) -> bool:
        return "wall" not in feats and not ("river" in feats and terrain[toward] == 4)

    got = supplied(m, sorted(sources), closed, crosses)
    reached = {s for s in sources if s not in closed}
    grew = True
    while grew:
        more = {n for p in reached for n in m.neighbours(p)
                if n not in closed and n not in reached and crosses(p, n, m.border_features(p, n))}
        grew = bool(more)
        reached |= more
    assert got == reached

    def step(a: str, b: str) -> int | None:  # the line's step from a (away from the source) into b
        return None if b in closed or not crosses(b, a, m.border_features(a, b)) else 1

    best = floyd(m, step)
    for p in ids:
        line = trace(m, p, sources, step)
        options = [best[p, s] for s in sources if (p, s) in best]
        if not options:
            assert line is None and (p in closed or p not in got)
            continue
        assert line is not None and line.cost == min(options) and line.places[0] == p and line.source in sources
        assert all(b in m.neighbours(a) for a, b in zip(line.places, line.places[1:], strict=False))
        assert p in closed or (p in got) == (line is not None)


@settings(max_examples=150, deadline=None)
@given(maps(), st.data())
def test_a_reach_kept_up_to_date_is_the_whole_map_search(mt: tuple[Any, dict[str, int]], data: st.DataObject) -> None:
    """Reach, changed place by place (closing, reopening, both at once), always gives what a new
    whole-map search (supplied) gives with the closed places of the moment, ends included."""
    m, terrain = mt
    ids = sorted(m.place_ids())
    sources = sorted(data.draw(st.sets(st.sampled_from(ids), min_size=1, max_size=3)))
    ends = data.draw(st.sets(st.sampled_from(ids), max_size=3))
    closed = {p for p in ids if terrain[p] == 0} | data.draw(st.sets(st.sampled_from(ids), max_size=4))

    def crosses(toward: str, away: str, feats: frozenset[str]) -> bool:
        return "wall" not in feats and not ("river" in feats and terrain[toward] == 4)

    reach = Reach(m, sources, closed, crosses, ends)
    assert reach.places() == supplied(m, sources, closed, crosses, ends)
    for _ in range(data.draw(st.integers(1, 8))):
        close = data.draw(st.sets(st.sampled_from(ids), max_size=4))
        reopen = data.draw(st.sets(st.sampled_from(ids), max_size=4))
        reach.update(close, reopen)
        closed = (closed | (close - reopen)) - reopen
        want = supplied(m, sources, closed, crosses, ends)
        assert reach.places() == want and reach.closed == closed
        assert all((p in reach) == (p in want) for p in ids) and len(reach) == len(want)


def test_a_reach_redoes_only_the_part_of_the_map_a_change_touches() -> None:
    """Closing a corner far from the source looks at the places around it, not the whole map."""
    n = Numbering(north_last_row=20)
    ids = sorted(f"{c:02d}{r:02d}N" for c in range(1, 21) for r in range(1, 21))
    grid: HexGrid[Place] = HexGrid(n, {h: Place(h) for h in ids}, {})

    class Counted(dict):  # type: ignore[type-arg]
        looked: set[str] = set()

        def __getitem__(self, key: str) -> Any:
            self.looked.add(key)
            return super().__getitem__(key)

    links = Counted(grid.links())

    class Map:
        def links(self) -> Any:
            return links

    reach = Reach(Map(), ["0101N"], set(), lambda a, b, f: True)  # type: ignore[arg-type]
    assert reach.places() == frozenset(ids)
    Counted.looked = set()
    reach.update(close=["2020N"])
    assert reach.places() == frozenset(ids) - {"2020N"} and len(Counted.looked) <= 7
    Counted.looked = set()
    reach.update(reopen=["2020N"])
    assert reach.places() == frozenset(ids) and len(Counted.looked) <= 7


# --- supply, stacking and the picture on the example area map -------------------------------------

def test_supply_on_the_example_map_crosses_a_strait_but_not_the_sea() -> None:
    m = example_map()
    blue = [p for p in m.place_ids() if (x := m.place(p)) is not None and x.data.get("home") == "blue"]
    sea = set(of_kind(m, SEA))

    def crosses(toward: str, away: str, feats: frozenset[str]) -> bool:
        return "air-route" not in feats and "fortress" not in feats

    held_by_red = {"capital"}
    got = supplied(m, blue, sea | held_by_red, crosses)
    assert "island" in got  # over the strait from the peninsula
    assert "capital" not in got and "citadel" not in got and "reserve" not in got
    assert "far-east" in got  # around the capital: south coast, harbour, marsh
    line = trace(m, "island", set(blue), lambda a, b: None if b in sea | held_by_red or not crosses(b, a, m.border_features(a, b))
                 else 1)
    assert line is not None and line.places == ("island", "peninsula", "harbour", "south-coast", "west-marches")


def test_stacking_per_place_on_the_example_map() -> None:
    m = example_map()
    at = [("a1", "citadel"), ("a2", "citadel"), ("a3", "citadel"), ("b1", "harbour"), ("f1", "east-sea")]
    assert stacks(at) == {"citadel": ["a1", "a2", "a3"], "harbour": ["b1"], "east-sea": ["f1"]}
    assert counts(at) == {"citadel": 3, "east-sea": 1, "harbour": 1}
    assert counts(at, lambda u: Fraction(1, 2) if u == "a3" else Fraction(1))["citadel"] == Fraction(5, 2)

    def limit(p: str) -> int:
        x = m.place(p)
        return int(x.data.get("stacking", 99)) if x is not None else 99

    out = overstacked(stacks(at).items(), lambda u: Fraction(1), limit)
    assert [(o.place, o.value, o.limit) for o in out] == [("citadel", 3, 2)]


def test_the_example_map_s_picture_is_a_diagram_of_its_places_and_borders() -> None:
    m = example_map()
    svg = area_map_svg(m, {"harbour": ["u1", "u2"], "west-sea": ["fleet"]})
    assert svg == area_map_svg(m, {"harbour": ["u1", "u2"], "west-sea": ["fleet"]})  # deterministic
    root = ET.fromstring(svg)
    shapes = {e.get("id"): e for e in root.iter() if (e.get("id") or "").startswith("place-")}
    assert set(shapes) == {f"place-{p}" for p in m.place_ids()}
    assert shapes["place-capital"].tag == f"{NS}circle" and shapes["place-west-sea"].tag == f"{NS}rect"
    assert shapes["place-capital"].get("class") == "place land clear"
    links = [e for e in root.iter(f"{NS}line") if e.get("class") == "link"]
    assert len(links) == len(m.all_borders())
    feats = sorted((e.get("class") or "", e.get("data-border") or "") for e in root.iter(f"{NS}polyline"))
    assert ("border strait", "island peninsula") in feats and ("border river", "capital river-bend") in feats
    assert len(feats) == sum(len(b.features) for b in m.borders())
    stack = [e for e in root.iter(f"{NS}g") if e.get("class") == "stack"]
    assert [s.get("data-place") for s in stack] == ["harbour", "west-sea"]


def test_an_area_map_with_outlines_is_drawn_as_polygons_with_shared_border_lines() -> None:
    raw = {"map": {"id": "t", "title": "T"},
           "places": {"a": {"outline": [[0, 0], [100, 0], [100, 100], [0, 100]]},
                      "b": {"outline": [[100, 0], [200, 0], [200, 100], [100, 100]], "terrain": "forest"},
                      "s": {"kind": "sea", "outline": [[0, 100], [100, 100], [200, 100], [200, 160], [0, 160]]}},
           "borders": {"a b": "river", "a s": "coast", "b s": "coast"}}
    assert schema_problems(raw, "area-map", "t") == []
    m, problems = area_map(raw)
    assert problems == []
    root = ET.fromstring(area_map_svg(m))
    assert [e.get("id") for e in root.iter(f"{NS}polygon")] == ["place-a", "place-b", "place-s"]
    assert not [e for e in root.iter(f"{NS}line") if e.get("class") == "link"]
    river = next(e for e in root.iter(f"{NS}polyline") if e.get("class") == "border river")
    assert river.get("points") == "140,40 140,140"  # the shared edge, shifted by the margin
    coasts = sorted((e.get("data-border"), e.get("points")) for e in root.iter(f"{NS}polyline") if e.get("class") == "border coast")
    assert coasts == [("a s", "140,140 40,140"), ("b s", "240,140 140,140")]


@pytest.mark.parametrize("name", ["training", "campaign"])
def test_hex_paths_go_through_the_abstraction(name: str) -> None:
    from pbem.games.proud_monster.data import load_scenario

    m = load_scenario(name).map
    ids = m.place_ids()
    a, b = ids[0], ids[-1]
    found = cheapest(m, a, b, lambda x, y: None if m.hexes[y].water else 1)
    if found is not None:
        assert found[0] >= m.distance(a, b)


def test_the_picture_layers_draw_a_hex_grid_too() -> None:
    """view.places layers are written against PlaceDrawing: a hex grid's HexDrawing serves them."""
    from pbem.view.hexmap import HexDrawing, Layout
    from pbem.view.places import borders_layer, places_layer

    n = Numbering(north_last_row=3)
    ids = ["0101N", "0102N", "0201N"]
    g: HexGrid[Place] = HexGrid(n, {h: Place(h, terrain="clear") for h in ids}, {"0101N-0102N": frozenset({"river"})})
    drawing = HexDrawing(g, Layout(10.0, 1, 1))
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{places_layer(drawing, g)}{borders_layer(drawing, g)}</svg>')
    polys = list(root.iter(f"{NS}polygon"))
    assert [p.get("id") for p in polys] == ["place-0101N", "place-0102N", "place-0201N"]
    assert all(len((p.get("points") or "").split()) == 6 for p in polys)
    river = next(root.iter(f"{NS}polyline"))
    assert river.get("class") == "border river" and len((river.get("points") or "").split()) == 2
    assert drawing.border("0101N", "0301N") is None


def test_the_abstraction_names_no_game() -> None:
    """The shared map code carries what games name; it names no game or side itself."""
    root = ROOT / "pbem"
    files = [root / "mechanics" / f for f in ("places.py", "paths.py", "supply.py", "stacking.py", "hexgrid.py")]
    files += [root / "view" / f for f in ("places.py", "areamap.py", "hexmap.py")]
    for f in files:
        text = f.read_text(encoding="utf-8").lower()
        for word in ("proud monster", "europe engulfed", "red steel", "soviet", "german", "axis", "allies", "rulebook"):
            assert word not in text, f"{f.name} names {word!r}"


def test_svg_attributes_are_quoted_as_xml_quoteattr_does() -> None:
    """pbem.view.svg.attrs writes a plain value as it is and any other through quoteattr: the same
    bytes for every kind of value (names from keywords, floats with one decimal, quotes, escapes)."""
    from xml.sax.saxutils import quoteattr

    from pbem.view.svg import attrs, num

    values = ["x", "a b", "#id", 'M0,0 "q"', "it's", 'both "and" \'', "a&b<c>", "l\nn\tt\r", 1.25, -0.04, 3, "é ü"]
    for v in values:
        val = num(v) if isinstance(v, float) else str(v)
        assert attrs(class_=v) == f" class={quoteattr(val)}", v
    assert attrs(xlink__href="#a", stroke_width=1.5, skip=None) == ' xlink:href="#a" stroke-width="1.5"'
