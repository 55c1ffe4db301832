"""Maps of places: one abstraction for hex grids and area maps.

A *place* is somewhere units can be: a hex, a land area, a sea zone, a lake, an off-map box. Two
places are adjacent when they share a *border*; a border carries the *features* the game names for
it (a river, a strait, a coast, a road, a map edge, ...). This module only carries the features: a
game's rules give them their meaning. Sea zones are places of their own, adjacent to the land
places on their coasts.

``PlaceMap`` is what path search (paths.py), supply tracing (supply.py), stacking (stacking.py) and
pictures (pbem.view.places) are written against. Two implementations:

- ``HexGrid``: the places are the hexes of a grid numbered XXYY plus a map letter, as printed
  (hexgrid.py: the geometry, and two maps joined along a shared row whose second ids are aliases);
  adjacency is the grid's, borders are hexsides;
- ``AreaMap``: the places and their borders are listed one by one (``area_map`` builds one from a
  map file's data, docs/map-format.md), with positions and outlines for pictures.

A game attaches its own data by subclassing ``Place`` (typed fields) or, for data read from an area
map file, in ``Place.data``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from pbem.errors import Problem

from .hexgrid import Hex, Numbering, direction, hexside_key, neighbours
from .hexgrid import distance as grid_distance

# Kinds of place a map may use (a game may name others: the abstraction only carries them).
LAND = "land"
SEA = "sea"  # a sea zone, or an all-sea hex
LAKE = "lake"
BOX = "box"  # an off-map box or holding area
WATER_KINDS = frozenset({SEA, LAKE})
NO_FEATURES: frozenset[str] = frozenset()

Links = tuple[tuple[str, ...], tuple[tuple[str, frozenset[str]], ...]]


@dataclass(frozen=True, slots=True)
class Place:
    """One place of a map: its id as printed or as the map file names it, its kind (``LAND``,
    ``SEA``, ``LAKE``, ``BOX`` or one the game names), its terrain, its name, the place it lies
    inside (a fortress in its area; "" for none), and the other data a map file gives it."""

    id: str
    kind: str = LAND
    terrain: str = ""
    name: str = ""
    within: str = ""
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def water(self) -> bool:
        """An all-sea or all-lake place."""
        return self.kind in WATER_KINDS


@dataclass(frozen=True, slots=True)
class Border:
    """The border between two adjacent places (``a`` < ``b``) and its features; ``data`` holds
    what else a map file says of it (such as the sea zone an air route crosses)."""

    a: str
    b: str
    features: frozenset[str] = NO_FEATURES
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def places(self) -> tuple[str, str]:
        return self.a, self.b


P = TypeVar("P", bound=Place)


@runtime_checkable
class Adjacency(Protocol):
    """The least a search needs: the places next to a place."""

    def neighbours(self, place_id: str) -> Sequence[str]: ...


@runtime_checkable
class PlaceMap(Adjacency, Protocol):
    """A map of places, as paths, supply, stacking and pictures use it."""

    def place(self, place_id: str) -> Place | None:
        """The place with this (canonical) id, or None."""
        ...

    def place_ids(self) -> Sequence[str]:
        """Every place's canonical id, sorted."""
        ...

    def canonical(self, place_id: str) -> str | None:
        """The canonical id of a place given by any of its ids (an alias), or None when it names
        no place of the map."""
        ...

    def border_features(self, a: str, b: str) -> frozenset[str]:
        """The features of the border between ``a`` and ``b`` (empty when it has none, or when
        they are not adjacent)."""
        ...

    def borders(self) -> list[Border]:
        """Every border that carries a feature, sorted."""
        ...

    def links(self) -> Mapping[str, Links]:
        """Each place's neighbours split in two, for searches that test only borders with a
        feature: those across a border without a feature, then (neighbour, features) for the
        others; both in the order of ``neighbours``. Worked out once per map."""
        ...

    def distance(self, a: str, b: str) -> int | None:
        """How many borders apart two places are, whatever is in the way: the hex distance on a
        grid (off-map hexes between count too), the fewest borders crossed on an area map (None
        when no chain of borders joins them)."""
        ...


def adjacent(m: Adjacency, a: str, b: str) -> bool:
    return b in m.neighbours(a)


def of_kind(m: PlaceMap, kind: str) -> list[str]:
    """The places of one kind (the sea zones: ``of_kind(m, SEA)``), sorted."""
    return [p for p in m.place_ids() if (x := m.place(p)) is not None and x.kind == kind]


def neighbours_of_kind(m: PlaceMap, place_id: str, kind: str) -> list[str]:
    """The neighbours of a place that are of one kind: the sea zones on an area's coasts, the land
    places on a sea zone's coasts."""
    return sorted(n for n in m.neighbours(place_id) if (x := m.place(n)) is not None and x.kind == kind)


class _Links:
    """PlaceMap.links, worked out once per map (kept in the map's ``_cache``)."""

    __slots__ = ()

    def _link_cache(self) -> dict[str, Links]:
        raise NotImplementedError

    def place_ids(self) -> Sequence[str]:
        raise NotImplementedError

    def neighbours(self, place_id: str) -> Sequence[str]:
        raise NotImplementedError

    def border_features(self, a: str, b: str) -> frozenset[str]:
        raise NotImplementedError

    def links(self) -> Mapping[str, Links]:
        cache = self._link_cache()
        if not cache:
            for p in self.place_ids():
                pairs = [(n, self.border_features(p, n)) for n in self.neighbours(p)]
                cache[p] = (tuple(n for n, f in pairs if not f), tuple((n, f) for n, f in pairs if f))
        return cache


# --- a hex grid ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class HexGrid(_Links, Generic[P]):
    """A hex grid as a map of places: ``hexes`` by canonical id (a hex not listed is not on the
    map), ``hexsides`` the features of each hexside that has one, keyed by hexgrid.hexside_key,
    ``adj`` each hex's neighbours on the map in hexgrid.DIRECTIONS order (worked out from the
    numbering when not given)."""

    numbering: Numbering
    hexes: Mapping[str, P]
    hexsides: Mapping[str, frozenset[str]]
    adj: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _cache: dict[str, Links] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.adj and self.hexes:
            object.__setattr__(self, "adj", grid_adjacency(self.numbering, self.hexes))

    def _link_cache(self) -> dict[str, Links]:
        return self._cache

    def neighbours(self, place_id: str) -> tuple[str, ...]:
        return self.adj.get(place_id, ())

    def place(self, place_id: str) -> P | None:
        return self.hexes.get(place_id)

    def place_ids(self) -> list[str]:
        return sorted(self.hexes)

    def canonical(self, place_id: str) -> str | None:
        try:
            c = self.numbering.canonical(place_id)
        except ValueError:
            return None
        return c if c in self.hexes else None

    def border_features(self, a: str, b: str) -> frozenset[str]:
        return self.hexsides.get(hexside_key(a, b), NO_FEATURES)

    def borders(self) -> list[Border]:
        out = []
        for key, feats in sorted(self.hexsides.items()):
            a, b = key.split("-")
            out.append(Border(a, b, feats))
        return out

    def grid_hex(self, place_id: str) -> Hex:
        """The grid position of a hex id (an alias gives its canonical hex's position)."""
        return self.numbering.parse(place_id)

    def distance(self, a: str, b: str) -> int:
        return grid_distance(self.numbering.parse(a), self.numbering.parse(b))

    def direction(self, a: str, b: str) -> int | None:
        """Index in hexgrid.DIRECTIONS of hex ``b`` seen from ``a``; None when not adjacent."""
        return direction(self.numbering.parse(a), self.numbering.parse(b))


def grid_adjacency(numbering: Numbering, hexes: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each hex's neighbours among ``hexes``, in hexgrid.DIRECTIONS order."""
    on_map = set(hexes)
    out: dict[str, tuple[str, ...]] = {}
    for h in on_map:
        ns = (numbering.format(n) for n in neighbours(numbering.parse(h)))
        out[h] = tuple(n for n in ns if n in on_map)
    return dict(sorted(out.items()))


# --- an area map ---------------------------------------------------------------------------------

Point = tuple[int, int]


@dataclass(frozen=True)
class AreaMap(_Links, Generic[P]):
    """An area map: places (land areas, sea zones, boxes, ...) and the borders between them, each
    listed once (``borders`` by (a, b), a < b, including those without a feature). ``positions``
    and ``outlines`` place the areas in a picture (pbem.view.areamap): a point for each place, and
    where the map gives one, the polygon of its outline."""

    id: str
    title: str
    places: Mapping[str, P]
    border_table: Mapping[tuple[str, str], Border]
    positions: Mapping[str, Point] = field(default_factory=dict)
    outlines: Mapping[str, tuple[Point, ...]] = field(default_factory=dict)
    note: str = ""
    adj: Mapping[str, tuple[str, ...]] = field(default_factory=dict, init=False)
    _cache: dict[str, Links] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        adj: dict[str, list[str]] = {p: [] for p in self.places}
        for a, b in self.border_table:
            adj[a].append(b)
            adj[b].append(a)
        object.__setattr__(self, "adj", {p: tuple(sorted(ns)) for p, ns in sorted(adj.items())})

    def _link_cache(self) -> dict[str, Links]:
        return self._cache

    def neighbours(self, place_id: str) -> tuple[str, ...]:
        return self.adj.get(place_id, ())

    def place(self, place_id: str) -> P | None:
        return self.places.get(place_id)

    def place_ids(self) -> list[str]:
        return sorted(self.places)

    def canonical(self, place_id: str) -> str | None:
        return place_id if place_id in self.places else None

    def border(self, a: str, b: str) -> Border | None:
        """The border between two places, or None when they are not adjacent."""
        return self.border_table.get((a, b) if a < b else (b, a))

    def border_features(self, a: str, b: str) -> frozenset[str]:
        found = self.border(a, b)
        return NO_FEATURES if found is None else found.features

    def borders(self) -> list[Border]:
        return [b for _, b in sorted(self.border_table.items()) if b.features]

    def all_borders(self) -> list[Border]:
        """Every border, with or without a feature, sorted."""
        return [b for _, b in sorted(self.border_table.items())]

    def distance(self, a: str, b: str) -> int | None:
        if a not in self.places or b not in self.places:
            return None
        seen = {a: 0}
        queue = deque([a])
        while queue:
            here = queue.popleft()
            if here == b:
                return seen[here]
            for n in self.neighbours(here):
                if n not in seen:
                    seen[n] = seen[here] + 1
                    queue.append(n)
        return None


def _feature_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return _feature_list(value.get("features", []))
    return [str(x) for x in value]


PLACE_KEYS = frozenset({"kind", "terrain", "name", "within", "at", "outline"})


def area_map(data: Mapping[str, Any], where: str = "map") -> tuple[AreaMap[Place], list[Problem]]:
    """An AreaMap from an area map file's data (schemas/area-map.schema.json, already checked),
    with every problem the schema cannot see: a border naming an unknown place, a place bordering
    itself, a border given twice (in either order), ``within`` naming an unknown place, a kind or
    feature the map does not declare (when it declares ``kinds`` or ``features``), a place without
    a position on a map that positions its places. Keys of a place other than those this module
    reads go to ``Place.data``; so do those of a border given as a table."""
    problems: list[Problem] = []
    head = data.get("map", {})
    kinds = head.get("kinds")
    features = head.get("features")
    places: dict[str, Place] = {}
    positions: dict[str, Point] = {}
    outlines: dict[str, tuple[Point, ...]] = {}
    for pid, raw in sorted(data.get("places", {}).items()):
        w = f"{where}: places.{pid}"
        kind = str(raw.get("kind", LAND))
        if kinds is not None and kind not in kinds:
            problems.append(Problem(w, f"kind '{kind}' is not one of the map's kinds ({', '.join(kinds)})"))
        extra = {k: v for k, v in raw.items() if k not in PLACE_KEYS}
        places[pid] = Place(pid, kind, str(raw.get("terrain", "")), str(raw.get("name", pid)),
                            str(raw.get("within", "")), extra)
        if "at" in raw:
            positions[pid] = (int(raw["at"][0]), int(raw["at"][1]))
        if "outline" in raw:
            outlines[pid] = tuple((int(x), int(y)) for x, y in raw["outline"])
    for pid, p in places.items():
        if p.within and p.within not in places:
            problems.append(Problem(f"{where}: places.{pid}", f"within names '{p.within}', which is not a place of the map"))
        elif p.within == pid:
            problems.append(Problem(f"{where}: places.{pid}", "a place does not lie within itself"))
    if positions and len(positions) < len(places):
        missing = sorted(set(places) - set(positions))
        problems.append(Problem(f"{where}: places", f"{len(missing)} place(s) without a position (at), e.g. "
                                                    f"{', '.join(missing[:6])}: give every place one, or none"))
    borders: dict[tuple[str, str], Border] = {}
    written: dict[tuple[str, str], str] = {}
    for key, value in data.get("borders", {}).items():
        w = f"{where}: borders.{key}"
        ends = key.split(" ")
        if len(ends) != 2 or not all(ends):
            problems.append(Problem(w, "a border is written 'PLACE1 PLACE2': two place ids and one space between"))
            continue
        unknown = [e for e in ends if e not in places]
        if unknown:
            problems.append(Problem(w, f"names {', '.join(repr(u) for u in unknown)}, not a place of the map"))
            continue
        a, b = sorted(ends)
        if a == b:
            problems.append(Problem(w, "a place does not border itself"))
            continue
        if (a, b) in written:
            problems.append(Problem(w, f"the same border as '{written[a, b]}': give it once"))
            continue
        written[a, b] = key
        feats = _feature_list(value)
        if features is not None:
            for f in feats:
                if f not in features:
                    problems.append(Problem(w, f"feature '{f}' is not one of the map's features ({', '.join(features)})"))
        extra = {k: v for k, v in value.items() if k != "features"} if isinstance(value, Mapping) else {}
        for k, v in extra.items():
            if isinstance(v, str) and k in ("via",) and v not in places:
                problems.append(Problem(w, f"{k} names '{v}', not a place of the map"))
        borders[a, b] = Border(a, b, frozenset(feats), extra)
    m = AreaMap(str(head.get("id", "")), str(head.get("title", "")), places, dict(sorted(borders.items())),
                positions, outlines, str(head.get("note", "")))
    return m, problems
