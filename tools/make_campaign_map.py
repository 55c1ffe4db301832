#!/usr/bin/env python3
"""Generate the Proud Monster campaign scenario: an authored full-size map, a provisional order of
battle and the GT1-GT12 scenario (scenarios/proud-monster/campaign/).

The published maps and counters are not available. This map uses the rulebook's hex numbering
(digest D.1: XXYY plus N or S, vertical columns in the "odd-q" layout, the South map's row 00 being
the North map's row 26, rule 2.4), puts every place whose hex the rulebook gives at that hex, and
draws the rest from general knowledge of 1941 geography: the coasts, lakes, rivers, forests,
marshes and hills, the towns and the borders are given below in longitude and latitude, and placed
by an affine projection fitted (least squares) to the rulebook's own located places (Leningrad
4201N, Riga 2705N, Minsk 2817N, Moscow 5017N/5116N, Tula 4921N, Odessa 2512S, Sevastopol 2919S,
Novorossisk 4022S, Kerch 3719S, Oranienbaum 4100N); the fit puts Kharkov in column 42, as rule 3.4
says. The rulebook's ranges (the ZOMO 1906N-1025N and its OKH hexes, the border hexes 2006N-1703S
and 1804S-2114S, the Sivash and Kerch triangles, the GAS line's ends, the Luga line's hexes) are
drawn hex by hex. Everything else is invented: terrain, rivers, towns, VP, Military Districts.

    python tools/make_campaign_map.py         # rewrite scenarios/proud-monster/campaign/*.toml and
                                              # scenarios/proud-monster/campaign-setup/scenario.toml
    python tools/make_campaign_map.py DIR     # write DIR/campaign/*.toml and DIR/campaign-setup/ (to compare)

Two scenarios come out of one run, so that they cannot drift apart: `campaign`, with its fixed
set-up, and `campaign-setup`, the same game set up by the players (setup_by = "players"), which
uses the campaign folder's map.toml and units.toml and has the same reinforcements, conversions
and pools; its Soviet Unit Table (17.6, provisional) counts the campaign's Soviet set-up by kind
and zone.

The output is deterministic. The committed files are the artefact: they may be edited by hand
afterwards (one line per hex and per hexside in map.toml); re-running this script overwrites such
edits. `pbem module check proud-monster` validates the result. The counters and the set-up are
written by campaign_oob.py (imported); the drawing helpers are tools/mapauthor.py.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import campaign_oob
from mapauthor import (
    CORNERS,
    NORTH_LAST_ROW,
    SQRT3,
    Coord,
    Corner,
    Sketch,
    centre,
    corner_key,
    corner_point,
    hex_id,
    neighbours,
    parse_id,
    side_key,
    value,
    write,
)

from pbem.games.proud_monster.data import FRONTIER_LAST_COLUMN, SUT_TYPES

OUT = Path(__file__).resolve().parent.parent / "scenarios" / "proud-monster"  # campaign/ and campaign-setup/ in it

FIRST_COLUMN, LAST_COLUMN = 10, 60  # the western ZOMO strip (about column 10) to the east edge (9.10)
LAST_ROW = NORTH_LAST_ROW + 30  # the South map's rows 01-30 continue the North map's 00-26 (2.4)

LonLat = tuple[float, float]

# --------------------------------------------------------------------------- the projection
# (lon, lat) -> the hex plane of mapauthor.centre(). A local equirectangular projection in km,
# then the affine map that best fits the places the rulebook locates.

ANCHORS: list[tuple[str, LonLat]] = [
    ("4201N", (30.32, 59.94)),  # Leningrad (2.3)
    ("4100N", (29.75, 59.92)),  # Oranienbaum (9.13)
    ("2705N", (24.10, 56.95)),  # Riga (8.7)
    ("2817N", (27.56, 53.90)),  # Minsk (4.2)
    ("5017N", (37.55, 55.75)),  # Moscow, the western hex (4.3)
    ("5116N", (37.70, 55.76)),  # Moscow, the eastern hex
    ("4921N", (37.62, 54.19)),  # Tula (14.25)
    ("2512S", (30.73, 46.48)),  # Odessa (2.3)
    ("2919S", (33.52, 44.60)),  # Sevastopol (4.2)
    ("4022S", (37.77, 44.72)),  # Novorossisk (9.17)
    ("3719S", (36.47, 45.36)),  # Kerch (9.15)
]


def _km(p: LonLat) -> tuple[float, float]:
    lon, lat = p
    return (lon - 30.0) * 111.3 * math.cos(math.radians(lat)), (52.0 - lat) * 111.2


def _solve(rows: list[list[float]], rhs: list[float]) -> list[float]:
    """Least squares: the normal equations of rows . x = rhs, by Gauss-Jordan elimination."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * b for r, b in zip(rows, rhs, strict=True))]
         for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(m[k][i]))
        m[i], m[p] = m[p], m[i]
        for k in range(n):
            if k != i:
                f = m[k][i] / m[i][i]
                m[k] = [a - f * b for a, b in zip(m[k], m[i], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def _fit() -> tuple[list[float], list[float]]:
    rows, xs, ys = [], [], []
    for h, p in ANCHORS:
        x, y = _km(p)
        cx, cy = centre(*parse_id(h))
        rows.append([x, y, 1.0])
        xs.append(cx)
        ys.append(cy)
    return _solve(rows, xs), _solve(rows, ys)


FX, FY = _fit()


def _affine(p: LonLat) -> tuple[float, float]:
    x, y = _km(p)
    return FX[0] * x + FX[1] * y + FX[2], FY[0] * x + FY[1] * y + FY[2]


# What the affine fit misses at each anchor, spread around by inverse-distance weights, so that
# every anchor lands on its own hex and the coasts and rivers near it move with it.
RESIDUALS = [(_affine(p), (centre(*parse_id(h))[0] - _affine(p)[0], centre(*parse_id(h))[1] - _affine(p)[1]))
             for h, p in ANCHORS]


def _warp(q: tuple[float, float]) -> tuple[float, float]:
    wsum = wx = wy = 0.0
    for (ax, ay), (rx, ry) in RESIDUALS:
        w = 1.0 / ((q[0] - ax) ** 2 + (q[1] - ay) ** 2 + 4.0)
        wsum += w
        wx += w * rx
        wy += w * ry
    return wx / wsum, wy / wsum


def plane(p: LonLat) -> tuple[float, float]:
    """A point of the map (longitude, latitude) on the hex plane of mapauthor.centre()."""
    q = _affine(p)
    dx, dy = _warp(q)
    return q[0] + dx, q[1] + dy


def lonlat(k: Coord) -> LonLat:
    """The longitude and latitude of a hex centre (the projection inverted, by a few fixed-point steps)."""
    px, py = centre(*k)
    a, b, c = FX
    d, e, f = FY
    det = a * e - b * d
    q = (px, py)
    for _ in range(8):
        dx, dy = _warp(q)
        q = (px - dx, py - dy)
    x = (e * (q[0] - c) - b * (q[1] - f)) / det
    y = (a * (q[1] - f) - d * (q[0] - c)) / det
    lat = 52.0 - y / 111.2
    return 30.0 + x / (111.3 * math.cos(math.radians(lat))), lat


def nearest_hex(p: LonLat) -> Coord:
    """The hex whose centre is nearest a point."""
    px, py = plane(p)
    c0 = round(px / 1.5)
    best = min(((c, round(py / SQRT3 - 0.5 * (c % 2)) + du) for c in range(c0 - 1, c0 + 2) for du in (-1, 0, 1)),
               key=lambda k: (math.hypot(centre(*k)[0] - px, centre(*k)[1] - py), k))
    return best


def inside(p: LonLat, poly: list[LonLat]) -> bool:
    """Point in polygon (even-odd rule) in longitude and latitude."""
    x, y = p
    n = len(poly)
    hit = False
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


# --------------------------------------------------------------------------- water (12.14, 13.7)
# Coastlines and lake shores from general knowledge, in (longitude, latitude), clockwise or not.

BALTIC: list[LonLat] = [
    (14.0, 54.2), (19.5, 54.4), (20.6, 54.95), (21.25, 55.1), (21.25, 55.45), (21.12, 55.72), (21.05, 55.95),
    (21.0, 56.5), (21.05, 56.85), (21.57, 57.39), (22.0, 57.57), (22.6, 57.76), (23.2, 57.3), (23.6, 57.02),
    (24.1, 57.05), (24.4, 57.3), (24.35, 57.9), (24.5, 58.38), (23.7, 58.35), (23.5, 58.6), (23.5, 59.0),
    (24.0, 59.3), (24.75, 59.45), (25.5, 59.55), (26.5, 59.55), (27.4, 59.45), (28.05, 59.47), (28.35, 59.7),
    (29.0, 59.8), (29.45, 59.93), (29.75, 59.98), (30.15, 59.9), (30.22, 59.98), (30.0, 60.12), (29.2, 60.2),
    (28.7, 60.7), (27.5, 60.5), (26.0, 60.4), (24.0, 60.1), (22.0, 60.3), (20.0, 61.5), (14.0, 61.5),
]
BLACK_SEA: list[LonLat] = [
    (28.5, 43.0), (28.65, 44.17), (29.1, 44.8), (29.65, 45.15), (29.75, 45.38), (30.2, 45.85), (30.45, 46.07),
    (30.75, 46.5), (31.0, 46.6), (31.55, 46.6), (31.9, 46.7), (32.0, 46.55), (31.6, 46.48), (32.5, 46.12),
    (33.0, 46.1), (33.55, 46.08), (33.0, 45.8), (32.6, 45.5), (32.48, 45.35), (32.9, 45.3), (33.4, 45.18),
    (33.58, 44.9), (33.48, 44.62), (33.5, 44.5), (33.75, 44.38), (34.15, 44.49), (34.4, 44.67), (34.97, 44.83),
    (35.1, 44.9), (35.4, 45.03), (35.8, 45.0), (36.4, 45.07), (36.6, 45.22), (36.9, 45.1), (37.32, 44.9),
    (37.77, 44.72), (38.5, 44.35), (39.07, 44.1), (39.73, 43.6), (40.5, 43.0), (41.0, 42.9), (41.6, 42.0),
    (41.6, 40.5), (28.0, 40.5),
]
AZOV: list[LonLat] = [
    (34.85, 46.17), (35.4, 46.4), (36.0, 46.62), (36.8, 46.75), (37.55, 47.05), (38.2, 47.1), (38.9, 47.22),
    (39.3, 47.15), (39.2, 47.0), (38.3, 46.7), (38.2, 46.3), (38.17, 46.05), (37.9, 45.6), (37.4, 45.3),
    (36.9, 45.35), (36.62, 45.42), (36.45, 45.47), (36.1, 45.47), (35.8, 45.47), (35.5, 45.32), (35.2, 45.6),
    (35.0, 45.9),
]
SIVASH: list[LonLat] = [
    (33.75, 46.15), (34.2, 46.25), (34.6, 46.2), (34.85, 46.17), (35.0, 45.9), (35.2, 45.6), (35.45, 45.34),
    (35.1, 45.5), (34.9, 45.7), (34.5, 45.9), (34.1, 45.95), (33.75, 46.08),
]
LAKES: dict[str, list[LonLat]] = {
    "Lake Ladoga": [(31.05, 59.98), (31.6, 60.12), (32.3, 60.15), (32.9, 60.3), (33.4, 60.55), (33.2, 61.0),
                    (32.5, 61.5), (31.0, 61.6), (30.0, 61.1), (30.5, 60.4), (31.0, 60.1)],
    "Lake Onega": [(34.5, 61.5), (35.2, 61.0), (35.8, 61.0), (36.3, 61.3), (36.2, 62.0), (34.5, 62.0)],
    "Lake Peipus": [(27.0, 58.93), (27.75, 59.0), (28.0, 58.95), (27.8, 58.6), (27.7, 58.35), (27.9, 58.2),
                    (28.1, 58.0), (28.3, 57.85), (27.9, 57.8), (27.7, 58.05), (27.5, 58.25), (27.3, 58.45),
                    (27.1, 58.7)],
    "Lake Ilmen": [(30.9, 58.2), (31.0, 58.35), (31.3, 58.45), (31.6, 58.4), (31.8, 58.2), (31.5, 58.05),
                   (31.1, 58.1)],
    "Lake Beloye": [(37.3, 60.1), (37.6, 59.95), (38.1, 60.05), (38.0, 60.35), (37.6, 60.4)],
}

# --------------------------------------------------------------------------- the ZOMO and the border (3.3, 3.7, 8.2)
# The Zones of Military Operations: the printed strip west of the Soviet border, one hex wide but for
# the Suwalki hexes (1913N inland, 2013N and 2014N at the tip), from the Baltic to the Danube. The
# map has no hexes west of it: that is the OKH reserve areas (8.2). Greater Germany runs 1906N-1025N
# (3.7), Hungary from 1026N, Romania to 2115S (8.2).
ZOMO: list[tuple[str, str]] = [
    *((f"19{r:02d}N", "germany") for r in range(6, 13)),  # Memel and East Prussia
    ("1813N", "germany"), ("1913N", "germany"), ("2013N", "germany"), ("2014N", "germany"),  # the Suwalki hexes
    ("1814N", "germany"), ("1714N", "germany"), ("1615N", "germany"),  # the Narew
    *((f"16{r:02d}N", "germany") for r in range(16, 24)),  # the Bug, Terespol to Sokal
    ("1523N", "germany"), ("1423N", "germany"), ("1323N", "germany"),  # overland to the San
    ("1224N", "germany"), ("1124N", "germany"), ("1025N", "germany"),  # the San
    ("1026N", "hungary"), ("1126N", "hungary"), ("1201S", "hungary"), ("1301S", "hungary"),  # the Carpathians
    ("1302S", "hungary"), ("1403S", "hungary"),
    ("1503S", "romania"), ("1604S", "romania"), ("1704S", "romania"),  # Bukovina
    *((f"18{r:02d}S", "romania") for r in range(5, 14)),  # the Prut
    ("1814S", "romania"), ("1914S", "romania"), ("2015S", "romania"), ("2115S", "romania"),  # the Danube
]
# 8.2: the North OKH area touches the ZOMO along 1908N-1025N, except 1913N, 2013N and 2014N; the
# South one from 1026N to 2115S. 1906N and 1907N face the Curonian Lagoon.
NOT_OKH = {"1906N", "1907N", "1913N", "2013N", "2014N"}
RIVER_BORDERS = {"Bug": [f"16{r:02d}N" for r in range(16, 24)], "San": ["1224N", "1124N", "1025N"],
                 "Prut": [f"18{r:02d}S" for r in range(5, 14)], "Danube": ["1814S", "1914S", "2015S", "2115S"]}
FORCE_WATER: dict[str, tuple[str, str]] = {  # hexes the rules need as water, whatever the projection says
    "1905N": ("sea", "Baltic Sea"), "1806N": ("sea", "Curonian Lagoon"), "1807N": ("sea", "Curonian Lagoon"),
    "1808N": ("sea", "Curonian Lagoon"),
    "4400N": ("lake", "Lake Ladoga"), "4600N": ("lake", "Lake Ladoga"),  # 9.16: Leningrad's lake route
    "3919S": ("sea", "Sea of Azov"),  # 9.15: the Kerch Strait's hexsides are the only way across
}
FORCE_LAND = ["2512S", "4000N", "4100N", "4200N", "4300N", "4301N", "4401N", "4500N"]  # 2.3, 9.13, 9.16, 9.3


def _ids(spec: str) -> list[str]:
    """ "2916S-3216S" -> the hexes of that row from column 29 to 32."""
    a, b = spec.split("-")
    return [f"{c:02d}{a[2:]}" for c in range(int(a[:2]), int(b[:2]) + 1)]


# The Crimea (weather zone SZ, 13.2), drawn hex by hex: the Perekop isthmus 3115S, the Sivash
# triangle 3215S/3216S/3315S (9.15: 3216S on the peninsula), the south coast 2817S-3620S (11.4),
# Sevastopol 2919S, Kerch 3719S and the tip 3819S, with Taman 3820S across the strait.
CRIMEA = [h for row in ("3115S-3115S", "2916S-3216S", "2817S-3317S", "2918S-3618S", "2919S-3819S", "3020S-3620S")
          for h in _ids(row)]
BOX = (27, 38, NORTH_LAST_ROW + 15, NORTH_LAST_ROW + 22)  # columns and rows drawn by hand around it
BOX_LAND = [*_ids("3215S-3815S"), "3820S"]
SEAS = {
    "Karkinit Bay": _ids("2715S-3015S") + _ids("2716S-2816S"),
    "Sivash": ["3316S", "3416S", "3417S"],
    "Sea of Azov": _ids("3516S-4516S") + _ids("3517S-4317S") + _ids("3718S-4118S"),
}


def build_water(sk: Sketch) -> None:
    """Every hex of the grid, land or water by its centre; the rulebook's hexes forced."""
    for c in range(FIRST_COLUMN, LAST_COLUMN + 1):
        for u in range(0, LAST_ROW + 1):
            p = lonlat((c, u))
            v: dict[str, object] = {"t": "clear"}
            for name, poly in (("Baltic Sea", BALTIC), ("Black Sea", BLACK_SEA), ("Sea of Azov", AZOV),
                               ("Sivash", SIVASH)):
                if inside(p, poly):
                    v = {"t": "sea", "name": name}
            for name, poly in LAKES.items():
                if inside(p, poly):
                    v = {"t": "lake", "name": name}
            sk.hexes[(c, u)] = v
    c0, c1, u0, u1 = BOX
    land = {parse_id(h) for h in CRIMEA + BOX_LAND}
    for c in range(c0, c1 + 1):
        for u in range(u0, u1 + 1):
            sk.hexes[(c, u)] = {"t": "clear"} if (c, u) in land else {"t": "sea", "name": "Black Sea"}
    for name, ids in SEAS.items():
        for h in ids:
            sk.hexes[parse_id(h)] = {"t": "sea", "name": name}
    for h, (t, name) in FORCE_WATER.items():
        sk.hexes[parse_id(h)] = {"t": t, "name": name}
    for h in FORCE_LAND:
        sk.hexes[parse_id(h)] = {"t": "clear"}


def build_countries(sk: Sketch) -> None:
    """The ZOMO strip; the USSR is the land east of it (flood fill from Moscow); land west of it,
    and islands, are not on the map, nor lakes away from its land, nor water west of the strip."""
    zomo = {parse_id(h): country for h, country in ZOMO}
    for k, country in zomo.items():
        sk.hexes[k] = {"t": "clear", "country": country, "zomo": True}
        if hex_id(*k) not in NOT_OKH:
            sk.hexes[k]["okh"] = "south" if country != "germany" else "north"
    seen = {parse_id("5017N")}
    todo = list(seen)
    while todo:
        k = todo.pop()
        for n in neighbours(*k):
            if n not in seen and n not in zomo and sk.land(n):
                seen.add(n)
                todo.append(n)
    kept = seen | set(zomo)
    for k in [k for k in sk.hexes if sk.land(k) and k not in kept]:
        del sk.hexes[k]
    near = {n for k in kept for n in neighbours(*k)}
    near |= {m for n in near for m in neighbours(*n)}
    for k in [k for k in sk.hexes if sk.hexes[k]["t"] == "lake" and k not in near]:
        del sk.hexes[k]
    # No water west of the strip either (the OKH areas touch the ZOMO there, 8.2), but the Curonian
    # Lagoon and the Baltic off Memel (1905N-1808N), which keep 1906N and 1907N from the North area.
    strip_col: dict[int, int] = {}
    for c, u in zomo:
        strip_col[u] = min(c, strip_col.get(u, c))
    last = max(strip_col)
    forced = {parse_id(h) for h in FORCE_WATER}
    for k in [k for k in sk.hexes if not sk.land(k) and k not in forced]:
        c, u = k
        if (u in strip_col and c < strip_col[u]) or (u > last and c < zomo_end_col(zomo)):
            del sk.hexes[k]


def zomo_end_col(zomo: dict[Coord, str]) -> int:
    """The column of the strip's southern end (2115S, on the Danube mouth)."""
    return max(zomo, key=lambda k: (k[1], k[0]))[0]


def build_borders(sk: Sketch) -> None:
    """12.18: a border on every hexside between the USSR and the ZOMO of Germany, Hungary or Romania."""
    for k in sorted(sk.hexes):
        for n in neighbours(*k):
            if sk.land(k) and sk.land(n) and sk.hexes[k].get("zomo") and n in sk.hexes and not sk.hexes[n].get("zomo"):
                sk.mark(k, n, "border")


# --------------------------------------------------------------------------- natural terrain (12.9-12.13)
# Blobs: (longitude, latitude, radius across and down in hexes). Painted in this order, so hills
# and swamps overwrite forest.
FOREST: list[tuple[str, float, float, float, float]] = [
    ("Estonian forests", 25.8, 58.6, 3.0, 1.3), ("Vidzeme woods", 26.3, 57.3, 2.2, 1.0),
    ("Courland woods", 22.4, 57.0, 1.6, 0.9), ("Gdov and Luga woods", 29.0, 58.8, 2.6, 1.5),
    ("Volkhov forests", 31.6, 59.3, 3.0, 1.4), ("Tikhvin taiga", 34.5, 59.9, 4.5, 1.8),
    ("Vologda taiga", 39.0, 59.8, 6.0, 2.2), ("Kostroma forests", 43.0, 58.4, 4.0, 2.6),
    ("Ostashkov forests", 33.4, 57.0, 3.0, 1.8), ("Toropets woods", 31.2, 56.6, 2.0, 1.4),
    ("Olenino forests", 34.8, 56.2, 2.0, 1.3), ("Vyazma forests", 33.8, 55.3, 2.4, 1.5),
    ("Volokolamsk woods", 36.4, 55.7, 1.7, 1.2), ("Meshchera forest", 40.0, 55.6, 3.0, 1.2),
    ("Vladimir woods", 40.8, 56.6, 2.0, 1.4), ("Kaluga forests", 35.5, 54.3, 2.0, 1.1),
    ("Bryansk forest", 34.3, 53.0, 2.4, 1.9), ("Polotsk woods", 29.0, 55.4, 2.0, 1.2),
    ("Berezina forests", 28.7, 54.3, 1.7, 1.4), ("Naliboki forest", 26.4, 53.8, 1.4, 1.1),
    ("Bialowieza forest", 23.9, 52.7, 1.1, 0.9), ("Rudniki forest", 24.8, 54.4, 1.4, 1.1),
    ("Chernigov woods", 31.6, 51.8, 1.9, 1.2), ("Volhynian forest", 26.8, 50.9, 2.4, 1.1),
    ("Korosten woods", 29.0, 50.8, 1.7, 1.1), ("Sumy woods", 35.3, 51.9, 1.1, 0.9),
    ("Mordovian forests", 42.8, 54.6, 2.5, 1.9), ("Vetluga forests", 44.5, 57.5, 2.2, 2.2),
    ("Samogitian woods", 22.8, 55.5, 1.0, 0.8), ("Smolensk woods", 31.3, 55.0, 1.2, 0.8),
]
SWAMP: list[tuple[str, float, float, float, float]] = [
    ("Pripyat marshes", 27.2, 51.95, 7.0, 1.7), ("western Polesie", 24.6, 51.7, 2.0, 1.1),
    ("Volkhov bogs", 31.9, 59.0, 1.2, 1.0), ("Demyansk marshes", 32.4, 57.8, 1.2, 0.9),
    ("Staraya Russa bogs", 31.5, 57.9, 1.0, 0.7), ("Lubana marshes", 27.0, 56.75, 0.9, 0.7),
    ("Meshchera marshes", 40.4, 55.3, 1.5, 0.8), ("Kuban plavni", 38.3, 45.75, 1.0, 0.8),
    ("Estonian bogs", 26.8, 58.7, 1.0, 0.8), ("Lepel marshes", 28.6, 54.8, 0.9, 0.7),
    ("Sebezh marshes", 28.9, 56.5, 0.7, 0.6),
]
HILLS: list[tuple[str, float, float, float, float]] = [
    ("Valdai hills", 33.2, 57.6, 1.8, 1.5), ("Carpathian foothills", 23.6, 48.9, 1.8, 1.1),
    ("Gorgany", 24.7, 48.4, 1.4, 0.9), ("Podolian upland", 26.6, 48.9, 1.1, 0.8),
    ("Central Russian upland", 37.6, 52.4, 1.4, 1.1), ("Kursk heights", 36.6, 51.3, 1.1, 0.9),
    ("Donets ridge", 38.9, 48.2, 2.0, 0.8), ("Caucasus foothills", 41.0, 44.2, 5.0, 1.2),
    ("Stavropol upland", 42.4, 45.1, 2.0, 1.4), ("Ergeni hills", 44.2, 47.6, 0.9, 2.2),
    ("Minsk heights", 27.3, 54.0, 0.9, 0.8), ("Latgale upland", 27.3, 56.3, 0.9, 0.8),
    ("Samogitian upland", 22.6, 55.9, 0.8, 0.8), ("Klin-Dmitrov ridge", 37.1, 56.3, 1.2, 0.6),
    ("Volga heights", 45.0, 50.5, 1.2, 2.0), ("Caucasus range", 42.6, 43.2, 7.0, 1.4),
]
CRIMEAN_MOUNTAINS = ["3019S", "3119S", "3219S", "3319S", "3120S", "3220S", "3320S"]
KEEP_OPEN = {  # the German approaches and the Perekop isthmus stay clear
    "2006N", "2007N", "2008N", "2112N", "2113N", "2114N", "2015N", "1914N", "3114S", "3115S",
}


def to_blob(p: LonLat) -> tuple[float, float]:
    """The (column, row) centre that Sketch.paint takes, of a point."""
    x, y = plane(p)
    return x / 1.5, y / SQRT3


def build_terrain(sk: Sketch) -> None:
    sk.seed_noise(1941)
    for t, blobs, rough in (("forest", FOREST, 0.5), ("swamp", SWAMP, 0.35), ("hills", HILLS, 0.35)):
        for _, lon, lat, rx, ry in blobs:
            col, row = to_blob((lon, lat))
            sk.paint(t, col, row, rx, ry, rough)
    for h in CRIMEAN_MOUNTAINS:
        sk.hexes[parse_id(h)]["t"] = "hills"
    for k, v in sk.hexes.items():  # the Carpathians: the Hungarian ZOMO and the Bukovina hexes
        if v.get("country") == "hungary" or hex_id(*k) in ("1503S", "1604S"):
            v["t"] = "hills"
        elif v.get("zomo") and v["t"] == "swamp":
            v["t"] = "forest"
    for h in KEEP_OPEN:
        sk.hexes[parse_id(h)]["t"] = "clear"


# --------------------------------------------------------------------------- rivers (12.15)
# Each river: points from upstream to downstream, (longitude, latitude) or a (hex, corner) the
# rulebook fixes; between two points the river follows land hexsides.
Waypoint = LonLat | tuple[str, str]
RIVERS: dict[str, list[Waypoint]] = {
    "Western Dvina": [(32.6, 56.6), (31.2, 55.6), (30.2, 55.19), (28.8, 55.48), (28.0, 55.78), (26.5, 55.88),
                      ("2608N", "E"), ("2608N", "NE"), (24.3, 56.85)],  # 15.2: the river on 2608N-2707N
    "Dnieper": [(33.5, 55.5), (33.3, 54.9), (32.05, 54.78), (30.42, 54.5), (30.33, 53.9), (30.05, 53.09),
                (30.4, 52.37), (30.5, 51.4), (30.52, 50.45), (31.45, 49.75), (32.06, 49.44), (33.42, 49.07),
                (35.04, 48.46), (35.14, 47.84), (34.4, 47.57), (33.48, 46.81), (32.62, 46.64)],
    "Berezina": [(28.5, 54.75), (28.5, 54.23), (29.23, 53.14), (30.1, 52.6)],
    "Pripyat": [(24.2, 51.6), (26.1, 52.11), (28.0, 52.0), (29.25, 52.05), (30.3, 51.45)],
    "Neman": [(27.0, 53.6), (25.5, 53.75), (23.85, 53.68), (24.0, 54.1), (23.9, 54.9), (22.9, 55.05)],
    "Dniester": [(23.3, 49.4), (24.7, 49.12), (25.73, 48.65), (26.5, 48.5), (27.8, 48.45), (28.3, 48.2),
                 (29.0, 47.76), (29.17, 47.26), (29.5, 46.85), (30.0, 46.35)],
    "Southern Bug": [(27.0, 49.75), (28.47, 49.23), (29.5, 48.7), (30.85, 48.05), (31.33, 47.56), (31.8, 47.1)],
    "Desna": [(33.5, 54.5), (34.36, 53.24), (33.1, 52.58), (33.26, 52.0), (32.3, 51.6), (31.3, 51.5), (30.6, 50.55)],
    "Sozh": [(32.3, 54.3), (31.7, 53.7), (31.0, 52.43), (30.6, 51.95)],
    "Don": [(38.3, 53.9), (38.9, 52.8), (39.1, 51.6), (39.5, 51.0), (40.1, 50.45), (40.7, 49.9), (41.7, 49.6),
            (43.0, 49.0), (43.2, 48.3), (42.1, 47.65), (40.6, 47.5), (39.7, 47.23), (39.35, 47.12)],
    "Donets": [(36.6, 50.6), (36.7, 49.84), (37.26, 49.2), (38.4, 48.9), (40.3, 48.3), (40.9, 47.7)],
    "Volga": [(32.5, 57.2), (33.6, 56.7), (34.33, 56.26), (34.93, 56.5), (35.9, 56.86), (36.77, 56.72),
              (37.3, 56.85), (37.85, 57.24), (38.33, 57.53), (38.84, 58.05), (39.87, 57.63), (40.93, 57.77),
              (42.15, 57.44), (43.5, 56.6)],
    "Oka": [(36.07, 52.97), (36.13, 53.8), (36.25, 54.52), (37.07, 54.5), (37.4, 54.92), (38.15, 54.83),
            (38.78, 55.09), (39.74, 54.63), (41.4, 54.93), (42.05, 55.57), (43.0, 56.0)],
    "Lovat": [(30.53, 56.34), (31.1, 56.8), (31.6, 57.14), (31.4, 57.8)],
    "Volkhov": [(31.3, 58.55), (31.67, 59.12), (32.0, 59.45), (32.3, 59.95)],
    "Luga": [(30.2, 58.4), (29.85, 58.73), (29.2, 59.1), (28.6, 59.37), (28.35, 59.6)],
    "Velikaya": [(28.65, 56.7), (28.35, 57.35), (28.33, 57.82)],
    "Narva": [(27.8, 59.0), (28.2, 59.38)],
    "Mius": [(38.9, 48.2), (38.8, 47.7), (38.6, 47.3)],
    "Vorskla": [(35.9, 50.9), (35.0, 50.0), (34.5, 49.2)],
    "Psel": [(36.0, 51.2), (35.0, 50.6), (33.7, 49.4)],
    "Ugra": [(33.6, 54.6), (34.8, 54.6), (35.5, 54.75), (36.3, 54.55)],
    "Sula": [(33.3, 51.0), (33.0, 50.0), (32.7, 49.4)],
}


def corner_near(corners: list[Corner], p: tuple[float, float]) -> Corner:
    return min(corners, key=lambda k: (math.hypot(corner_point(k)[0] - p[0], corner_point(k)[1] - p[1]), k))


def waypoint_corner(corners: list[Corner], w: Waypoint) -> Corner:
    if isinstance(w[0], str):
        h, c = w
        return corner_key(*parse_id(str(h)), CORNERS[str(c)])
    lon, lat = w
    return corner_near(corners, plane((float(lon), float(lat))))


def build_rivers(sk: Sketch) -> None:
    graph, _ = sk.corner_graph()
    corners = sorted(graph)
    sk.draw_lines({name: [waypoint_corner(corners, w) for w in points] for name, points in RIVERS.items()}, "river")
    for hexes in RIVER_BORDERS.values():  # the Bug, the San, the Prut and the Danube run along the border
        for h in hexes:
            k = parse_id(h)
            for n in neighbours(*k):
                if side_key(k, n) in sk.sides and "border" in sk.sides[side_key(k, n)]:
                    sk.mark(k, n, "river")


# --------------------------------------------------------------------------- places (4.2, 8.7, D.2)
# (kind, name, longitude, latitude, VP, Military District). The rulebook's places are put at their
# hexes (AT); every other place goes to the land hex nearest its position not yet taken. Invented:
# every VP and MD not in the rulebook (4.2 gives Minsk 1, Sevastopol 4, Moscow 9; 2.3 and 8.7 make
# Leningrad, Minsk and Moscow MD cities and Riga not one). The VP are sparse in the west, so that the
# historical advance stays short of the German Victory Table (17.2, itself provisional).
Place = tuple[str, str, float, float, int, bool]
AT = {"Leningrad": "4201N", "Oranienbaum": "4100N", "Riga": "2705N", "Minsk": "2817N", "Tula": "4921N",
      "Odessa": "2512S", "Sevastopol": "2919S", "Novorossisk": "4022S", "Kerch": "3719S", "Brest": "1718N",
      "Shlisselburg": "4301N", "Perekop": "3115S", "Genichesk": "3315S", "Simferopol": "3118S",
      "Feodosiya": "3419S", "Yalta": "3120S", "Yevpatoria": "2917S"}
CITIES: list[Place] = [
    ("city", "Leningrad", 30.32, 59.94, 6, True), ("city", "Minsk", 27.56, 53.90, 1, True),
    ("city", "Riga", 24.10, 56.95, 2, False), ("city", "Kiev", 30.52, 50.45, 4, True),
    ("city", "Kharkov", 36.23, 49.99, 3, True), ("city", "Odessa", 30.73, 46.48, 2, True),
    ("city", "Sevastopol", 33.52, 44.60, 4, False), ("city", "Smolensk", 32.05, 54.78, 2, False),
    ("city", "Tula", 37.62, 54.19, 2, False), ("city", "Tallinn", 24.75, 59.44, 1, False),
    ("city", "Vilnius", 25.28, 54.69, 1, False), ("city", "Dnepropetrovsk", 35.04, 48.46, 2, False),
    ("city", "Zaporozhye", 35.14, 47.84, 1, False), ("city", "Stalino", 37.80, 48.00, 2, False),
    ("city", "Voroshilovgrad", 39.30, 48.57, 1, False), ("city", "Rostov", 39.70, 47.23, 3, True),
    ("city", "Krasnodar", 38.98, 45.03, 1, False), ("city", "Stalingrad", 44.50, 48.70, 3, True),
    ("city", "Voronezh", 39.20, 51.67, 2, True), ("city", "Kursk", 36.19, 51.73, 1, False),
    ("city", "Kalinin", 35.90, 56.86, 1, False), ("city", "Yaroslavl", 39.87, 57.63, 2, True),
    ("city", "Ivanovo", 40.98, 57.00, 2, False),
]
LARGE_TOWNS: list[Place] = [
    # the Frontier Zone's three (3.3)
    ("large_town", "Bialystok", 23.16, 53.13, 0, False), ("large_town", "Lvov", 24.03, 49.84, 1, False),
    ("large_town", "Kishinev", 28.86, 47.00, 0, False),
    ("large_town", "Kaunas", 23.90, 54.90, 0, False), ("large_town", "Daugavpils", 26.50, 55.88, 0, False),
    ("large_town", "Tartu", 26.72, 58.38, 0, False), ("large_town", "Pskov", 28.33, 57.82, 1, False),
    ("large_town", "Novgorod", 31.27, 58.52, 1, False), ("large_town", "Velikiye Luki", 30.53, 56.34, 0, False),
    ("large_town", "Vitebsk", 30.20, 55.19, 1, False), ("large_town", "Mogilev", 30.33, 53.90, 0, False),
    ("large_town", "Gomel", 31.00, 52.43, 1, False), ("large_town", "Bobruisk", 29.23, 53.14, 0, False),
    ("large_town", "Bryansk", 34.36, 53.24, 1, False), ("large_town", "Orel", 36.07, 52.97, 1, True),
    ("large_town", "Kaluga", 36.25, 54.52, 0, False), ("large_town", "Vyazma", 34.30, 55.21, 0, False),
    ("large_town", "Rzhev", 34.33, 56.26, 0, False), ("large_town", "Zhitomir", 28.65, 50.25, 0, False),
    ("large_town", "Vinnitsa", 28.47, 49.23, 1, False), ("large_town", "Kirovograd", 32.26, 48.51, 0, False),
    ("large_town", "Kremenchug", 33.42, 49.07, 1, False), ("large_town", "Poltava", 34.55, 49.59, 1, False),
    ("large_town", "Sumy", 34.80, 50.91, 0, False), ("large_town", "Chernigov", 31.30, 51.50, 0, False),
    ("large_town", "Kherson", 32.62, 46.64, 0, False), ("large_town", "Nikolaev", 31.99, 46.97, 1, False),
    ("large_town", "Krivoi Rog", 33.35, 47.91, 1, False), ("large_town", "Mariupol", 37.55, 47.10, 1, False),
    ("large_town", "Taganrog", 38.90, 47.22, 0, False), ("large_town", "Melitopol", 35.37, 46.85, 0, False),
    ("large_town", "Simferopol", 34.10, 44.95, 1, False), ("large_town", "Kerch", 36.47, 45.36, 0, False),
    ("large_town", "Novorossisk", 37.77, 44.72, 1, False), ("large_town", "Belgorod", 36.59, 50.60, 0, False),
    ("large_town", "Ryazan", 39.74, 54.63, 1, False), ("large_town", "Vladimir", 40.40, 56.13, 1, False),
    ("large_town", "Kostroma", 40.93, 57.77, 1, False), ("large_town", "Rybinsk", 38.84, 58.05, 1, False),
    ("large_town", "Vologda", 39.90, 59.20, 1, True), ("large_town", "Cherepovets", 37.90, 59.13, 1, False),
    ("large_town", "Kolomna", 38.78, 55.09, 1, False), ("large_town", "Serpukhov", 37.40, 54.92, 1, False),
    ("large_town", "Lipetsk", 39.60, 52.60, 1, False), ("large_town", "Yelets", 38.50, 52.62, 1, False),
    ("large_town", "Tambov", 41.45, 52.72, 1, False), ("large_town", "Artemovsk", 38.00, 48.60, 0, False),
    ("large_town", "Shakhty", 40.20, 47.70, 1, False), ("large_town", "Novocherkassk", 40.10, 47.42, 1, False),
    ("large_town", "Voroshilovsk", 41.97, 45.04, 1, False), ("large_town", "Armavir", 41.12, 45.00, 1, False),
    ("large_town", "Maikop", 40.10, 44.60, 1, False),
]
TOWNS: list[tuple[str, float, float]] = [
    ("Liepaja", 21.0, 56.5), ("Ventspils", 21.57, 57.39), ("Siauliai", 23.32, 55.93), ("Panevezys", 24.36, 55.73),
    ("Taurage", 22.29, 55.25), ("Jelgava", 23.72, 56.65), ("Valmiera", 25.43, 57.54), ("Parnu", 24.5, 58.38),
    ("Narva", 28.2, 59.38), ("Kingisepp", 28.6, 59.37), ("Luga", 29.85, 58.73), ("Krasnogvardeisk", 30.1, 59.57),
    ("Oranienbaum", 29.75, 59.92), ("Shlisselburg", 31.03, 59.94), ("Volkhov", 32.3, 59.92), ("Tikhvin", 33.6, 59.64),
    ("Chudovo", 31.67, 59.12), ("Staraya Russa", 31.35, 58.0), ("Kholm", 31.6, 57.14), ("Demyansk", 32.47, 57.64),
    ("Ostashkov", 33.1, 57.15), ("Valdai", 33.24, 57.98), ("Borovichi", 33.92, 58.39), ("Bologoye", 34.05, 57.88),
    ("Vyshny Volochek", 34.57, 57.59), ("Torzhok", 34.96, 57.04), ("Bezhetsk", 36.7, 57.78), ("Uglich", 38.33, 57.53),
    ("Klin", 36.73, 56.33), ("Volokolamsk", 35.95, 56.03), ("Dmitrov", 37.52, 56.35), ("Zagorsk", 38.13, 56.3),
    ("Mozhaisk", 36.03, 55.5), ("Maloyaroslavets", 36.47, 55.01), ("Yukhnov", 35.23, 54.74),
    ("Sukhinichi", 35.35, 54.1), ("Yelnya", 33.17, 54.57), ("Dorogobuzh", 33.3, 54.92), ("Yartsevo", 32.69, 55.07),
    ("Belyi", 32.94, 55.84), ("Toropets", 31.63, 56.5), ("Nevel", 29.92, 56.02), ("Sebezh", 28.49, 56.29),
    ("Ostrov", 28.35, 57.35), ("Polotsk", 28.8, 55.48), ("Orsha", 30.42, 54.5), ("Borisov", 28.5, 54.23),
    ("Rogachev", 30.05, 53.09), ("Krichev", 31.7, 53.7), ("Roslavl", 32.85, 53.95), ("Mozyr", 29.25, 52.05),
    ("Korosten", 28.64, 50.95), ("Novograd-Volynsky", 27.6, 50.6), ("Shepetovka", 27.07, 50.18),
    ("Belaya Tserkov", 30.12, 49.8), ("Cherkassy", 32.06, 49.44), ("Nezhin", 31.88, 51.05), ("Konotop", 33.2, 51.24),
    ("Priluki", 32.38, 50.59), ("Romny", 33.48, 50.75), ("Lubny", 33.0, 50.02), ("Novgorod-Seversky", 33.26, 52.0),
    ("Karachev", 34.98, 53.12), ("Mtsensk", 36.55, 53.28), ("Efremov", 38.1, 53.15), ("Stalinogorsk", 38.28, 54.08),
    ("Kashira", 38.15, 54.83), ("Oboyan", 36.3, 51.2), ("Stary Oskol", 37.84, 51.3), ("Valuyki", 38.1, 50.2),
    ("Kupyansk", 37.62, 49.7), ("Izyum", 37.26, 49.2), ("Lozovaya", 36.32, 48.89), ("Krasnograd", 35.45, 49.37),
    ("Pavlograd", 35.87, 48.52), ("Nikopol", 34.4, 47.57), ("Kakhovka", 33.48, 46.81), ("Berdyansk", 36.8, 46.75),
    ("Genichesk", 34.8, 46.17), ("Perekop", 33.7, 46.15), ("Dzhankoi", 34.4, 45.7), ("Yevpatoria", 33.37, 45.2),
    ("Yalta", 34.16, 44.5), ("Feodosiya", 35.38, 45.03), ("Ochakov", 31.54, 46.62), ("Voznesensk", 31.33, 47.56),
    ("Balta", 29.62, 47.94), ("Lisichansk", 38.43, 48.9), ("Kramatorsk", 37.55, 48.72), ("Boguchar", 41.55, 49.94),
    ("Pavlovsk", 40.1, 50.45), ("Liski", 39.5, 51.0), ("Rossosh", 39.57, 50.2), ("Kalach", 43.53, 48.69),
    ("Kotelnikovo", 43.15, 47.63), ("Salsk", 41.54, 46.48), ("Tikhoretsk", 40.12, 45.85), ("Kropotkin", 40.57, 45.44),
    ("Yeysk", 38.27, 46.7), ("Tuapse", 39.07, 44.1), ("Anapa", 37.32, 44.9), ("Temryuk", 37.38, 45.28),
    ("Sochi", 39.73, 43.6), ("Elista", 44.27, 46.31), ("Borisoglebsk", 42.08, 51.37), ("Michurinsk", 40.5, 52.9),
    ("Millerovo", 40.4, 48.92), ("Kamensk", 40.27, 48.32), ("Murom", 42.05, 55.57), ("Kovrov", 41.31, 56.36),
    ("Kineshma", 42.15, 57.44), ("Lodeynoye Pole", 33.55, 60.73), ("Uman", 30.22, 48.75), ("Pervomaisk", 30.85, 48.05),
    ("Berdichev", 28.6, 49.9), ("Proskurov", 27.0, 49.42), ("Kamenets-Podolsky", 26.58, 48.68),
    ("Mogilev-Podolsky", 27.8, 48.45), ("Tiraspol", 29.6, 46.85), ("Balti", 27.93, 47.76), ("Izmail", 28.83, 45.35),
    ("Chernovtsy", 25.93, 48.29), ("Stanislav", 24.71, 48.92), ("Tarnopol", 25.6, 49.55), ("Drogobych", 23.5, 49.35),
    ("Rovno", 26.25, 50.62), ("Lutsk", 25.33, 50.75), ("Kovel", 24.71, 51.21), ("Brest", 23.69, 52.09),
    ("Pinsk", 26.1, 52.11), ("Baranovichi", 26.0, 53.13), ("Grodno", 23.83, 53.68), ("Lida", 25.3, 53.89),
    ("Molodechno", 26.85, 54.31), ("Balashov", 43.18, 51.55), ("Gatchina", 30.1, 59.57),
]


def place_hex(sk: Sketch, name: str, p: LonLat, taken: set[Coord]) -> Coord:
    """The rulebook's hex of a place, else the free land hex nearest its position."""
    if name in AT:
        return parse_id(AT[name])
    px, py = plane(p)
    ring = {nearest_hex(p)}
    for _ in range(3):
        ring |= {n for k in ring for n in neighbours(*k)}
    free = [k for k in ring if sk.land(k) and k not in taken and sk.hexes[k].get("country", "ussr") == "ussr"
            and hex_id(*k) not in AT.values()]
    return min(free, key=lambda k: (math.hypot(centre(*k)[0] - px, centre(*k)[1] - py), k))


def build_places(sk: Sketch) -> dict[str, Coord]:
    """Cities, large towns and towns; a city hex is clear (12.10). Moscow is two hexes (4.3)."""
    where: dict[str, Coord] = {}
    taken = {parse_id("5017N"), parse_id("5116N")}
    for h in ("5017N", "5116N"):
        sk.hexes[parse_id(h)].update({"t": "clear", "city": "Moscow", "vp": 9, "md": True})
    where["Moscow"] = parse_id("5017N")
    places = [*CITIES, *LARGE_TOWNS, *(("town", n, lon, lat, 0, False) for n, lon, lat in TOWNS)]
    for kind, name, lon, lat, vp, md in places:
        if name in where:
            continue
        k = place_hex(sk, name, (lon, lat), taken)
        if k in taken:
            raise SystemExit(f"{name}: {hex_id(*k)} already has a place")
        taken.add(k)
        where[name] = k
        v = sk.hexes[k]
        v[kind] = name
        if kind == "city":
            v["t"] = "clear"
        if vp:
            v["vp"] = vp
        if md:
            v["md"] = True
    for h in ("2512S", "2919S", "4022S"):  # 9.17, 11.2: Odessa, Sevastopol, Novorossisk
        sk.hexes[parse_id(h)]["port"] = True
    return where


# --------------------------------------------------------------------------- fortifications (14.24-14.30)
# The Stalin Line (14.30): the fortified regions along the 1939 border, each a chain of hexes
# between two points. Invented but for the idea: where the regions were.
STALIN_LINE: dict[str, tuple[LonLat, LonLat]] = {
    "Pskov": ((28.15, 58.0), (28.3, 57.6)), "Ostrov": ((28.3, 57.45), (28.3, 57.1)),
    "Sebezh": ((28.35, 56.45), (28.55, 56.05)), "Polotsk": ((28.4, 55.8), (28.0, 55.3)),
    "Minsk": ((27.0, 54.4), (26.8, 53.7)), "Slutsk": ((27.1, 53.3), (27.35, 52.85)),
    "Mozyr": ((28.2, 52.2), (28.9, 51.75)), "Korosten": ((28.0, 51.35), (28.3, 50.8)),
    "Novograd-Volynsky": ((27.55, 50.8), (27.35, 50.4)), "Shepetovka": ((27.0, 50.3), (27.05, 49.95)),
    "Letichev": ((27.2, 49.65), (27.7, 49.2)), "Mogilev-Yampol": ((27.6, 48.6), (28.4, 48.2)),
    "Rybnitsa": ((28.9, 47.95), (29.1, 47.45)), "Tiraspol": ((29.3, 47.1), (29.8, 46.55)),
}
# Forts and heavy forts that start intact (14.24): invented, at the great fortresses.
FORTS = {"Sevastopol": "heavy", "Odessa": "heavy", "Kiev": "heavy", "Brest": "fort", "Perekop": "fort",
         "Tallinn": "fort"}
# The SPAT's lines (17.3, charts.toml [spat.lines]), which start uncompleted (14.24). The rulebook
# gives the Luga line's ends (north 3801N-4303N, south 4003N-4105N), Leningrad = 4300N and Tula in
# the Mozhaisk line (14.25); the other hexes are invented chains between the points given.
LUGA_NORTH = ["3801N", "3802N", "3902N", "4002N", "4102N", "4203N", "4303N"]
LUGA_SOUTH = ["4003N", "4004N", "4104N", "4105N"]
LINES: dict[str, list[LonLat]] = {
    "Vyazma": [(33.1, 57.1), (33.5, 56.6), (33.2, 56.1), (33.5, 55.5), (33.9, 55.0), (34.3, 54.45)],
    "Mozhaisk": [(35.9, 56.3), (36.0, 55.55), (36.4, 55.0), (36.5, 54.55), (37.62, 54.19)],
}


def chain(sk: Sketch, points: list[LonLat]) -> list[Coord]:
    return [k for k in sk.walk([nearest_hex(p) for p in points]) if sk.land(k)]


def build_works(sk: Sketch, where: dict[str, Coord]) -> None:
    for a, b in STALIN_LINE.values():
        for k in chain(sk, [a, b]):
            if sk.hexes[k].get("country", "ussr") == "ussr" and "city" not in sk.hexes[k]:
                sk.hexes[k]["stalin"] = True
    forts = {where[name]: t for name, t in FORTS.items()}
    for n in neighbours(*where["Kiev"])[4:6]:  # the Kiev fortified region: the SW and NW approaches
        forts[n] = "fort"
    for k, t in forts.items():
        sk.hexes[k]["fort"] = t
    lines = {"Luga north": [parse_id(h) for h in LUGA_NORTH], "Luga south": [parse_id(h) for h in LUGA_SOUTH],
             "Leningrad": [parse_id("4300N")]}
    for name, points in LINES.items():
        lines[name] = chain(sk, points)
    moscow = [parse_id("5017N"), parse_id("5116N")]
    lines["Moscow"] = sorted({n for m in moscow for n in neighbours(*m) if n not in moscow and sk.land(n)})
    for name, ks in lines.items():
        for k in ks:
            if not sk.land(k):
                raise SystemExit(f"line {name}: {hex_id(*k)} is water")
            sk.hexes[k].pop("stalin", None)
            sk.hexes[k]["fort"] = "fort"
            sk.hexes[k]["line"] = name


# --------------------------------------------------------------------------- the Minsk-Moscow highway (12.20)
HIGHWAY = ["Minsk", "Borisov", "Orsha", "Smolensk", "Yartsevo", "Vyazma", "Mozhaisk", "Moscow"]


def build_highway(sk: Sketch, where: dict[str, Coord]) -> list[Coord]:
    """Invented between the rulebook's ends (2817N, 5017N): a chain through the towns on the road."""
    road = sk.walk([where[n] for n in HIGHWAY])
    for k in road:
        if not sk.land(k):
            raise SystemExit(f"the highway crosses water at {hex_id(*k)}")
        sk.hexes[k]["road"] = True
    return road


# --------------------------------------------------------------------------- the GAS line (9.3)
# Along hexsides from the 4000N/4100N hexside to the 3715S/3815S one: the coast of the Gulf of
# Finland to the coast of the Sea of Azov. Between the ends the line is invented: east of Pskov,
# Velikiye Luki, Smolensk, Gomel, Chernigov and Kremenchug, west of Leningrad, Novgorod, Bryansk,
# Poltava and Dnepropetrovsk, across the Dnieper above Zaporozhye, leaving the whole Crimea west of
# it (9.3 design note).
GAS_LINE: list[Waypoint] = [("4000N", "E"), ("4000N", "SE"), (29.9, 58.3), (30.6, 57.2), (31.9, 55.9),
                            (32.9, 54.4), (32.4, 52.6), (32.6, 50.9), (34.0, 49.3), (35.5, 47.6),
                            ("3715S", "NE"), ("3715S", "E")]


def build_gas(sk: Sketch) -> None:
    graph, _ = sk.corner_graph()
    corners = sorted(graph)
    sk.draw_lines({"GAS line": [waypoint_corner(corners, w) for w in GAS_LINE]}, "gas")


# --------------------------------------------------------------------------- the Crimea (9.15, 11.4, 13.2)


def build_crimea(sk: Sketch) -> None:
    """The Sivash (two of the three hexsides among 3215S/3216S/3315S) and the Kerch Strait (two among
    3719S/3819S/3820S); every other hexside between the Crimea and the land outside it is all-sea but
    the Perekop isthmus (3114S-3115S); the Crimea is the Southern weather zone; the south coast
    2817S-3620S names the Black Sea hex nearest each of its hexes (11.4)."""
    crimea = {parse_id(h) for h in CRIMEA}
    for a, b in (("3215S", "3216S"), ("3216S", "3315S")):
        sk.mark(parse_id(a), parse_id(b), "sivash")
    for a, b in (("3719S", "3820S"), ("3819S", "3820S")):
        sk.mark(parse_id(a), parse_id(b), "kerch")
    for k in sorted(crimea):
        sk.hexes[k]["zone"] = "SZ"
        for n in neighbours(*k):
            if sk.land(n) and n not in crimea and side_key(k, n) not in sk.sides and side_key(k, n) != "3114S-3115S":
                sk.mark(k, n, "sea")
    order = [3, 4, 2, 5, 1, 0]  # S, SW, SE, NW, NE, N (hexgrid.DIRECTIONS)
    for k in sorted(crimea):
        seas = [neighbours(*k)[i] for i in order]
        black = [n for n in seas if n in sk.hexes and sk.hexes[n].get("name") == "Black Sea"]
        if black and k[0] <= parse_id("3620S")[0]:
            sk.hexes[k]["beach"] = hex_id(*black[0])


# --------------------------------------------------------------------------- output

MAP_NOTE = (
    "Authored for pbem's campaign scenario; not the published map. From the rulebook: the hex numbering "
    "and the join of the two maps (2.3, 2.4), Leningrad 4201N, Oranienbaum 4100N, Riga 2705N, Minsk 2817N "
    "(1 VP), Moscow 5017N and 5116N (9 VP), Tula 4921N, Odessa 2512S, Sevastopol 2919S (4 VP), "
    "Novorossisk 4022S and the three Black Sea ports (9.17), Kharkov in column 42 (3.4), the Greater-German "
    "ZOMO 1906N-1025N with the Suwalki hexes 1913N, 2013N and 2014N (3.7, 8.2, 9.11), the OKH hexes of 8.2, "
    "the border hexes 2006N-1703S and 1804S-2114S (3.3), the South OKH area's ZOMO 1026N-2115S (8.2), the "
    "Sivash among 3215S/3216S/3315S and the Kerch Strait among 3719S/3819S/3820S (9.15), the GAS line's "
    "ends 4000N/4100N and 3715S/3815S with the whole Crimea west of it (9.3), Leningrad's key hexes 4300N, "
    "4301N, 4401N and 4500N on Lake Ladoga (9.16), the Luga line's parts 3801N-4303N and 4003N-4105N and "
    "the Leningrad line 4300N (14.25), the Crimean south coast 2817S-3620S (11.4), the river on 2608N-2707N "
    "(15.2), the highway's ends 2817N and 5017N (12.20). Drawn from general knowledge of 1941 geography "
    "and invented: every other hex's terrain, the rivers, the other towns and their VP and Military "
    "Districts, the course of the GAS line, the highway and the other fort lines, the Stalin Line and "
    "the intact forts."
)
HEX_COMMENTS = [
    "# t = natural terrain (12.9-12.14): clear | forest | hills | swamp | sea | lake",
    "# country/zomo (3.7), okh (8.2), town/large_town/city, vp (4.2), md (8.7), port (9.17), beach (11.4),",
    "# zone (13.2), fort/line (14.24-14.28), stalin (14.30), road (12.20). docs/map-format.md has them all.",
]
SIDE_COMMENTS = ["# features: river | border | sivash | kerch | lake (all-lake) | sea (all-sea) | gas (the GAS line)"]


def border_hexes(sk: Sketch) -> list[Coord]:
    """The Soviet hexes on the border (3.3), in the order of the ZOMO strip they face, north to south."""
    strip = [parse_id(h) for h, _ in ZOMO]
    faces = {}
    for k in sorted(sk.hexes):
        if sk.land(k) and not sk.hexes[k].get("zomo"):
            idx = [strip.index(n) for n in neighbours(*k) if n in strip and "border" in sk.sides.get(side_key(k, n), [])]
            if idx:
                faces[k] = (min(idx), max(idx))
    return sorted(faces, key=lambda k: (faces[k], k))


def build_map() -> tuple[Sketch, dict[str, Coord]]:
    sk = Sketch()
    build_water(sk)
    build_countries(sk)
    build_terrain(sk)
    build_borders(sk)
    build_rivers(sk)
    where = build_places(sk)
    build_works(sk, where)
    build_highway(sk, where)
    build_gas(sk)
    build_crimea(sk)
    return sk, where


UNITS_NOTE = (
    "Provisional counters for the campaign scenario: the published counter values are not in the rulebook "
    "(digest D.5). The units are the 1941 order of battle from general knowledge; every value is invented "
    "in the spirit of the training counters, but the ArKo 0-1-4 (14.41). From the rulebook: 4 steps for the "
    "German panzer and motorized divisions (2.14), 1 step for every Soviet unit but the 15 Guards units, "
    "which have 2 (2.15), the 1st and 2nd SS motorized divisions and brigades (2.10), 3 Flak corps (10.1), "
    "9 security divisions (8.21), the Hungarian Fast Corps (6.3), the 2nd and 5th Panzer Divisions that "
    "never refit (8.18). The Soviet counters of one type, size and MF are a pool (2.15); its values are "
    "spread over it."
)
SCENARIO_NOTE = (
    "The full game (A.4), GT1-GT12 (22 June to mid-December 1941), on the authored campaign map with "
    "provisional counters. From the rulebook: 9 Soviet cavalry divisions at the start, 5 in the Frontier "
    "Zone and 4 in the Interior Zone, and no tank or motorized rifle brigade (3.2); no Soviet reinforcement "
    "on GT1 (8.7); on GT10 2 cavalry divisions, 1 rifle brigade, 20 rifle divisions and 1 tank division "
    "(3.5); the Guards conversions on GT7, GT10 (1 Guards tank brigade) and GT11, 15 Guards units in all "
    "(8.11, 2.15); the 48 tank brigades rolled for from GT3 (8.9); the 9 security divisions (8.21); the "
    "ArKo, formed in play (14.41); the 7th Parachute Division on GT6 (3.6); the 2nd and 5th Panzer "
    "Divisions on GT7 (2.17). Invented (the Soviet Unit Table 17.6 and the counters' entry turns are not in "
    "the rulebook): the set-up, which meets the minimums of 3.3, 3.4 and 3.7 and the stacking limits, and "
    "both reinforcement schedules. Reinforcements have no fixed hex: German units arrive in their OKH area, "
    "Soviet units are placed by the Soviet player (8.3, 8.5, 8.7)."
)


def field_lines(u: campaign_oob.Unit) -> list[str]:
    out = [f"id = {value(u.id)}", f"name = {value(u.name)}", f"side = {value(u.side)}", f"nat = {value(u.nat)}",
           f"type = {value(u.kind)}", f"size = {value(u.size)}", f"steps = {len(u.values)}",
           "values = [" + ", ".join(value(x) for x in u.values) + "]"]
    return out + ([] if u.refit else ["refit = false"])


def units_lines(o: campaign_oob.Oob) -> list[str]:
    out = ["# Proud Monster campaign scenario: counters (provisional). Format: docs/map-format.md.",
           "# Generated by tools/make_campaign_map.py (tools/campaign_oob.py); may be edited by hand.",
           "# Values are Attack-Defense-Movement as printed (14.30); values[0] is full strength, the last",
           "# entry the last step left (2.16). Soviet values are the hidden (tried) side (2.15).",
           "", "[units]", "provisional = true", f"note = {value(UNITS_NOTE)}"]
    for side in ("german", "soviet"):
        out += ["", "# " + "=" * 96, f"# {'German' if side == 'german' else 'Soviet'} side", "# " + "=" * 96]
        groups: dict[str, list[campaign_oob.Unit]] = {}
        for u in o.units:
            if u.side == side:
                groups.setdefault(u.group, []).append(u)
        for group, us in groups.items():
            out += ["", f"# {group}"]
            for u in us:
                out += ["", "[[unit]]", *field_lines(u)]
    return out


def scenario_head(sid: str, title: str, note: str, files: str, what: str) -> list[str]:
    return [f"# Proud Monster {what}, reinforcements, conversions and pools. Format: docs/map-format.md.",
            "# Generated by tools/make_campaign_map.py (tools/campaign_oob.py); may be edited by hand.",
            "", "[scenario]", f"id = {value(sid)}", 'game = "proud-monster"', f"title = {value(title)}",
            f"note = {value(note)}", 'ruleset = "full"', "first_turn = 1", "last_turn = 12",
            f"map = {value(files + 'map.toml')}", f"units = {value(files + 'units.toml')}"]


def arrival_lines(o: campaign_oob.Oob, units: dict[str, campaign_oob.Unit]) -> list[str]:
    """The reinforcements, the conversions and the pools: the same in both scenarios."""
    out = ["", "# " + "=" * 96, "# Reinforcements (8.1; provisional schedule): no hex, the rules place them",
           "# (German units in their OKH area, 8.3, 8.5; Soviet units by the Soviet player, 8.7).", "# " + "=" * 96]
    for side in ("german", "soviet"):
        for gt in range(2, 13):
            entries = [uid for t, uid in o.reinforcements if t == gt and units[uid].side == side]
            if entries:
                out += ["", f"# {'German' if side == 'german' else 'Soviet'} GT{gt}"]
            for uid in entries:
                out += ["", "[[reinforcement]]", f"turn = {gt}", f"unit = {value(uid)}"]
    out += ["", "# Guards conversions (8.11): GT7, GT10 (one Guards tank brigade, 3.5) and GT11"]
    for gt, kind, uid in o.conversions:
        out += ["", "[[conversion]]", f"turn = {gt}", f"from = {value(kind)}", f"guards = {value(uid)}"]
    out += ["", "[pools]", "# 8.9: the 48 tank brigades rolled for from GT3; 8.21: the 9 security divisions",
            "tank_brigades = [" + ", ".join(value(x) for x in o.tank_brigades) + "]",
            "security = [" + ", ".join(value(x) for x in o.security) + "]"]
    return out


def scenario_lines(o: campaign_oob.Oob, units: dict[str, campaign_oob.Unit]) -> list[str]:
    out = scenario_head("campaign", "Proud Monster: the Barbarossa campaign, GT1-GT12 (authored map, provisional counters)",
                        SCENARIO_NOTE, "", "campaign scenario: set-up")
    out += ["", "# " + "=" * 96, "# Set-up (3.2-3.8): the Soviet units first, then the German units (3.7).",
            "# " + "=" * 96]
    heading = ""
    for side in ("soviet", "german"):
        for uid, h, head in o.setup:
            if units[uid].side != side:
                continue
            if head != heading:
                out += ["", f"# {head}"]
                heading = head
            out += ["", "[[setup]]", f"unit = {value(uid)}", f"hex = {value(h)}"]
    return out + arrival_lines(o, units)


SETUP_SCENARIO_NOTE = (
    "The campaign (A.4, GT1-GT12) on the same map, counters, reinforcements, conversions and pools as the "
    "campaign scenario, but the players set up (3.2-3.7): the Soviet player from the Soviet Unit Table "
    "(17.6, provisional: not in the rulebook), his units of each kind in the Frontier Zone (column 22 and "
    "west) and the Interior Zone (column 23 and east) meeting the minimums of 3.3 and 3.4, then the German "
    "player in the ZOMO and the OKH areas by 3.7. Generated with the campaign scenario by "
    "tools/make_campaign_map.py."
)
SUT_NOTE = (
    "Provisional: the printed Soviet Unit Table (17.6) is not in the rulebook. Derived from the campaign "
    "scenario's fixed Soviet set-up: of each kind, as many units in the Frontier Zone (column 22 and west, "
    "3.3) and in the Interior Zone (column 23 and east, 3.4) as that set-up has there; from the rulebook, "
    "the 5 and 4 cavalry divisions and no tank or motorized-rifle brigade (3.2). Every other Soviet unit "
    "arrives by the campaign's [[reinforcement]] list (3.5, 8.7), the Guards by conversion (8.11) and the "
    "tank brigades by the rolls of 8.9, so no unit is left for the Turn Record Track: the table has no "
    "schedule."
)


def toml_key(k: str) -> str:
    return k if k.isalnum() else value(k)


def setup_scenario_lines(o: campaign_oob.Oob, units: dict[str, campaign_oob.Unit]) -> list[str]:
    """The campaign-setup scenario: the campaign's, less its [[setup]] list, with setup_by = "players"
    and a SUT (17.6) whose numbers per kind and zone are those of the campaign's Soviet set-up."""
    out = scenario_head("campaign-setup", "Proud Monster: the Barbarossa campaign, GT1-GT12, set up by the players "
                        "(authored map, provisional counters)", SETUP_SCENARIO_NOTE, "../campaign/",
                        "campaign scenario set up by the players: the Soviet Unit Table")
    out += ['setup_by = "players"']
    count: dict[str, dict[str, int]] = {"fz": {}, "iz": {}}
    for uid, h, _ in o.setup:
        u = units[uid]
        if u.side == "soviet":
            row = count["fz" if int(h[:2]) <= FRONTIER_LAST_COLUMN else "iz"]
            row[sut_kind(u)] = row.get(sut_kind(u), 0) + 1
    out += ["", "# " + "=" * 96,
            "# Set-up (3.2-3.7): the Soviet player first, from the Soviet Unit Table, then the German player.",
            "# " + "=" * 96, "", "# 17.6 (provisional): the campaign's fixed Soviet set-up, counted by kind and zone.",
            "[sut]", "provisional = true", f"note = {value(SUT_NOTE)}"]
    for z in ("fz", "iz"):
        out.append(f"{z} = {{ " + ", ".join(f"{toml_key(k)} = {n}" for k, n in sorted(count[z].items())) + " }")
    return out + arrival_lines(o, units)


def sut_kind(u: campaign_oob.Unit) -> str:
    """The unit's kind in the SUT (data.sut_type): a 3.2 abbreviation, else "type size"."""
    for abbr, kind in SUT_TYPES.items():
        if kind == (u.kind, u.size):
            return abbr
    return f"{u.kind} {u.size}"


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out, setup_out = root / "campaign", root / "campaign-setup"
    out.mkdir(parents=True, exist_ok=True)
    setup_out.mkdir(parents=True, exist_ok=True)
    sk, where = build_map()
    header = ["# Proud Monster campaign map: authored, not the published map (see map.note).",
              "# Format: docs/map-format.md. Generated by tools/make_campaign_map.py; may be edited by hand."]
    meta: list[tuple[str, object]] = [("id", "pm-campaign"), ("title", "Proud Monster campaign map (authored)"),
                                      ("authored", True), ("note", MAP_NOTE), ("north_last_row", NORTH_LAST_ROW)]
    write(out / "map.toml", sk.lines(header, meta, HEX_COMMENTS, SIDE_COMMENTS))
    o = campaign_oob.build(sk, where, border_hexes(sk))
    units = {u.id: u for u in o.units}
    write(out / "units.toml", units_lines(o))
    write(out / "scenario.toml", scenario_lines(o, units))
    write(setup_out / "scenario.toml", setup_scenario_lines(o, units))
    sides = {s: sum(1 for u in o.units if u.side == s) for s in ("german", "soviet")}
    print(f"wrote {out}: map.toml ({len(sk.hexes)} hexes, {len(sk.sides)} hexsides), units.toml "
          f"({sides['german']} German-side, {sides['soviet']} Soviet units), scenario.toml "
          f"({len(o.setup)} set up, {len(o.reinforcements)} reinforcements); wrote {setup_out}: scenario.toml")


if __name__ == "__main__":
    main()
