"""Helpers for authoring Proud Monster maps: the drawing and writing that the map generators share.

Used by `make_training_map.py` and `make_campaign_map.py` (run from the repository root; a tool
finds this module beside it). The hex numbering and adjacency are pbem's own
(`pbem.mechanics.hexgrid`, digest D.1 and rule 2.4); what is here only serves authoring: a
`Sketch` holds the hexes and hexsides being drawn, paints blobs of terrain with a seeded noise so
that their edges look natural, routes rivers and lines along hexsides between hex corners, walks
chains of hexes (a road), and writes a map.toml in the format of docs/map-format.md, one sorted
line per hex and per hexside.

Everything is deterministic: the same script writes the same bytes.
"""

from __future__ import annotations

import heapq
import math
import random
from pathlib import Path

from pbem.mechanics import hexgrid
from pbem.mechanics.hexgrid import Hex, Numbering, hexside_key

NORTH_LAST_ROW = 26  # rule 2.4: South row 00 is the same row as North row 26
GRID = Numbering(NORTH_LAST_ROW)
SQRT3 = math.sqrt(3.0)

Coord = tuple[int, int]  # (column, unified row) of a hexgrid.Hex: North row, or 26 + South row
Corner = tuple[int, int]  # a hex corner on a doubled integer lattice (shared by the hexes around it)
Graph = dict[Corner, list[tuple[Corner, str]]]

# The key order of a hex line, and the feature order of a hexside line.
FIELDS = ["t", "country", "zomo", "okh", "town", "large_town", "city", "vp", "md", "port", "beach", "name", "zone",
          "fort", "line", "stalin", "supply", "road"]
FEATURES = ["river", "border", "sivash", "kerch", "lake", "sea", "gas"]


# --------------------------------------------------------------------------- geometry (D.1)


def hex_id(c: int, u: int) -> str:
    """Printed id of a hex; the overlap row is written with its North id (2.4)."""
    return GRID.format(Hex(c, u))


def parse_id(h: str) -> Coord:
    p = GRID.parse(h)
    return p.col, p.row


def neighbours(c: int, u: int) -> list[Coord]:
    return [(n.col, n.row) for n in hexgrid.neighbours(Hex(c, u))]


def centre(c: int, u: int) -> tuple[float, float]:
    """Centre of a flat-topped hex, side length 1, y growing southwards."""
    return 1.5 * c, SQRT3 * (u + 0.5 * (c % 2))


CORNERS = {"E": 0, "SE": 1, "SW": 2, "W": 3, "NW": 4, "NE": 5}


def corner_key(c: int, u: int, k: int) -> Corner:
    x, y = centre(c, u)
    a = math.radians(60 * k)
    return round(2 * (x + math.cos(a))), round(2 * (y + math.sin(a)) / SQRT3)


def corner_point(key: Corner) -> tuple[float, float]:
    return key[0] / 2, key[1] * SQRT3 / 2


def side_key(a: Coord, b: Coord) -> str:
    return hexside_key(hex_id(*a), hex_id(*b))


def route(graph: Graph, where: dict[Corner, tuple[float, float]], start: Corner, goal: Corner) -> list[str]:
    """Hexsides of the cheapest corner path from start to goal (Dijkstra, deterministic), kept close
    to the straight line between them."""
    (x0, y0), (x1, y1) = where[start], where[goal]
    length = math.hypot(x1 - x0, y1 - y0) or 1.0

    def off_line(p: tuple[float, float]) -> float:
        return abs((x1 - x0) * (y0 - p[1]) - (x0 - p[0]) * (y1 - y0)) / length

    best = {start: 0.0}
    back: dict[Corner, tuple[Corner, str]] = {}
    queue = [(0.0, start)]
    while queue:
        d, v = heapq.heappop(queue)
        if v == goal:
            break
        if d > best[v]:
            continue
        for w, key in sorted(graph.get(v, [])):
            nd = d + 1.0 + 0.6 * off_line(where[w])
            if nd < best.get(w, math.inf) - 1e-9:
                best[w] = nd
                back[w] = (v, key)
                heapq.heappush(queue, (nd, w))
    if goal not in best:
        raise SystemExit("river waypoints are not joined by land hexsides")
    path = []
    v = goal
    while v != start:
        v, key = back[v]
        path.append(key)
    return path[::-1]


# --------------------------------------------------------------------------- a map being drawn


class Sketch:
    """The hexes (coordinate -> the hex's keys) and hexsides (key -> features) of a map being drawn."""

    def __init__(self) -> None:
        self.hexes: dict[Coord, dict[str, object]] = {}
        self.sides: dict[str, list[str]] = {}
        self.noise: dict[Coord, float] = {}

    def add(self, c: int, u0: int, u1: int, t: str = "clear") -> None:
        for u in range(u0, u1 + 1):
            self.hexes[(c, u)] = {"t": t}

    def land(self, k: Coord) -> bool:
        return k in self.hexes and self.hexes[k]["t"] not in ("sea", "lake")

    def seed_noise(self, seed: int) -> None:
        """One random number per hex (in hex-id order), for the rough edges of painted blobs."""
        rng = random.Random(seed)
        self.noise = {k: rng.random() for k in sorted(self.hexes, key=lambda k: hex_id(*k))}

    def in_blob(self, k: Coord, col: float, row: float, rx: float, ry: float, rough: float) -> bool:
        c, u = k
        dx = 0.866 * (c - col) / rx
        dy = (u + 0.5 * (c % 2) - row) / ry
        return math.hypot(dx, dy) <= 1.0 + rough * (self.noise[k] - 0.5)

    def paint(self, t: str, col: float, row: float, rx: float, ry: float, rough: float = 0.5) -> None:
        """Give terrain t to every land hex of an ellipse (radii in hexes) with a rough edge."""
        for k in self.hexes:
            if self.land(k) and self.in_blob(k, col, row, rx, ry, rough):
                self.hexes[k]["t"] = t

    def mark(self, a: Coord, b: Coord, feature: str) -> None:
        if b not in neighbours(*a):
            raise SystemExit(f"{hex_id(*a)} and {hex_id(*b)} are not adjacent")
        feats = self.sides.setdefault(side_key(a, b), [])
        if feature not in feats:
            feats.append(feature)

    def corner_graph(self) -> tuple[Graph, dict[Corner, tuple[float, float]]]:
        """Corners joined by every hexside between two land hexes; each edge knows its hexside."""
        graph: Graph = {}
        where: dict[Corner, tuple[float, float]] = {}
        for k in sorted(self.hexes):
            if not self.land(k):
                continue
            for n in neighbours(*k):
                if not self.land(n) or hex_id(*n) < hex_id(*k):
                    continue
                mine = {corner_key(*k, i) for i in range(6)}
                shared = sorted(mine & {corner_key(*n, i) for i in range(6)})
                a, b = shared
                key = side_key(k, n)
                graph.setdefault(a, []).append((b, key))
                graph.setdefault(b, []).append((a, key))
                where[a] = corner_point(a)
                where[b] = corner_point(b)
        return graph, where

    def draw_lines(self, lines: dict[str, list[Corner]], feature: str) -> None:
        """Mark `feature` on the hexsides of each line, a list of hex corners: between two of them
        the line follows the cheapest chain of land hexsides (route)."""
        graph, where = self.corner_graph()
        for name, keys in lines.items():
            for i, key in enumerate(keys):
                if key not in graph:
                    raise SystemExit(f"{name}: corner {i} {key} is on no hexside between two land hexes")
            for a, b in zip(keys, keys[1:], strict=False):
                for side in route(graph, where, a, b):
                    ha, hb = side.split("-")
                    self.mark(parse_id(ha), parse_id(hb), feature)

    def draw_rivers(self, rivers: dict[str, list[tuple[str, str]]]) -> None:
        """Rivers along hexsides (12.15), each a list of (hex id, corner name) waypoints."""
        self.draw_lines({name: [corner_key(*parse_id(h), CORNERS[c]) for h, c in points]
                         for name, points in rivers.items()}, "river")

    def walk(self, waypoints: list[Coord]) -> list[Coord]:
        """A chain of adjacent hexes through the waypoints, each step to the neighbour nearest the
        next waypoint (a road, 12.20)."""
        path = [waypoints[0]]
        for goal in waypoints[1:]:
            gx, gy = centre(*goal)
            while path[-1] != goal:
                path.append(min(sorted(neighbours(*path[-1])),
                                key=lambda k: math.hypot(centre(*k)[0] - gx, centre(*k)[1] - gy)))
        return path

    # ----------------------------------------------------------------------- output

    def lines(self, header: list[str], meta: list[tuple[str, object]], hex_comments: list[str],
              side_comments: list[str]) -> list[str]:
        """The map.toml text: header comments, [map] with `meta`, one line per hex, one per hexside."""
        by_id = {hex_id(*k): v for k, v in self.hexes.items()}
        out = [*header, "", "[map]", *(f"{k} = {value(v)}" for k, v in meta), "", "[hexes]", *hex_comments]
        out += [hex_line(h, by_id[h]) for h in sorted(by_id)]
        out += ["", "[hexsides]", *side_comments]
        out += [side_line(k, self.sides[k]) for k in sorted(self.sides)]
        return out


def value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def hex_line(h: str, v: dict[str, object]) -> str:
    parts = [f"{f} = {value(v[f])}" for f in FIELDS if f in v]
    return f'"{h}" = {{ {", ".join(parts)} }}'


def side_line(key: str, feats: list[str]) -> str:
    feats = sorted(feats, key=FEATURES.index)
    rhs = value(feats[0]) if len(feats) == 1 else "[" + ", ".join(value(f) for f in feats) + "]"
    return f'"{key}" = {rhs}'


def write(out: Path, lines: list[str]) -> None:
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
