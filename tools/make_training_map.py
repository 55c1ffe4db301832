#!/usr/bin/env python3
"""Generate map.toml, the authored map of the Proud Monster training scenario.

The real map is not available. This map uses the rulebook's hex numbering (digest D.1: XXYY plus
N or S, vertical columns in the "odd-q" layout, the South map's row 00 being the North map's last
row, rule 2.4) and puts every place whose hex the rulebook gives at that hex. Everything else is
invented: terrain, rivers, the border line and the other towns only look like the region.

    python tools/make_training_map.py            # rewrite scenarios/proud-monster/training/map.toml
    python tools/make_training_map.py OUT.toml   # write it elsewhere (to compare)

The output is deterministic. The committed map.toml is the artefact: it may be edited by hand
afterwards (one line per hex and one line per hexside); re-running this script overwrites such
edits. `pbem module check proud-monster` validates the result. The hex numbering and adjacency
are pbem's own (pbem.mechanics.hexgrid); the drawing helpers (blobs, rivers along corners, the
output lines) are in tools/mapauthor.py, shared with make_campaign_map.py.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from mapauthor import (
    NORTH_LAST_ROW,
    SQRT3,
    Coord,
    Sketch,
    centre,
    hex_id,
    neighbours,
    parse_id,
    side_key,
    write,
)

OUT = Path(__file__).resolve().parent.parent / "scenarios" / "proud-monster" / "training" / "map.toml"

# --------------------------------------------------------------------------- the hexes

sketch = Sketch()
hexes = sketch.hexes
add = sketch.add
land = sketch.land


def N(r: int) -> int:
    return r


def S(r: int) -> int:
    return NORTH_LAST_ROW + r


# Main play area: North map columns 19-51, rows 00-22, and column 18 west of Brest.
for c in range(19, 52):
    add(c, 0, 22)
add(18, 15, 22)

# The corridor along the Dnieper down to the Crimea (North rows 23-26, South rows 01-15).
for c in range(29, 34):
    add(c, N(23), S(5))
for c in range(31, 37):
    add(c, S(6), S(9))
add(37, S(6), S(11))
for c in range(30, 37):
    add(c, S(10), S(13))
for c, u in [(33, S(14)), (34, S(14)), (35, S(14)), (36, S(14)), (32, S(15)), (33, S(15))]:
    add(c, u, u)
# The Azov shore east to 3715S/3815S, where 9.3 ends the GAS line.
add(37, S(12), S(15))
add(38, S(14), S(15))

# The Crimea (weather zone SZ, 13.2) and the Taman peninsula beyond the Kerch Strait.
CRIMEA_COLS = {
    28: (15, 17),
    29: (15, 19),
    30: (14, 19),
    31: (14, 19),
    32: (16, 19),
    33: (16, 19),
    34: (17, 19),
    35: (17, 19),
    36: (17, 20),
    37: (18, 19),
    38: (19, 19),
}
crimea: set[Coord] = set()
for c, (r0, r1) in CRIMEA_COLS.items():
    add(c, S(r0), S(r1))
    crimea.update((c, u) for u in range(S(r0), S(r1) + 1))
for h in ["3820S", "3920S", "3921S", "4020S", "4021S", "4022S", "4120S", "4121S"]:
    add(*parse_id(h), parse_id(h)[1])

# Water. All-sea hexes (12.14) and all-lake hexes (13.7).
SEA_N = {
    19: range(0, 6),
    20: range(0, 3),
    21: range(0, 2),
    22: range(0, 2),
    23: range(0, 2),
    24: range(0, 4),
    25: range(0, 5),
    26: range(0, 5),
    27: range(0, 5),
    28: range(2, 4),
    36: range(0, 1),
    37: range(0, 1),
    38: range(0, 1),
    39: range(0, 1),
    42: range(0, 1),
}
for c, rows in SEA_N.items():
    for u in rows:
        hexes[(c, u)] = {
            "t": "sea",
            "name": "Baltic Sea" if c <= 23 else "Gulf of Riga" if c <= 28 else "Gulf of Finland",
        }
LAKES = {
    "Lake Ladoga": ["4400N", "4600N", "4601N", "4700N", "4701N", "4800N"],
    "Lake Peipus": ["3501N", "3502N"],
    "Lake Ilmen": ["4206N", "4306N"],
}
for name, ids in LAKES.items():
    for h in ids:
        hexes[parse_id(h)] = {"t": "lake", "name": name}

# The Black Sea, the Sivash lagoon and the Sea of Azov: every hex next to the southern land.
for h in ["3113S", "3214S"]:
    hexes[parse_id(h)] = {"t": "sea", "name": "Sivash"}
southern_land = [k for k, v in hexes.items() if k[1] >= S(10) and v["t"] != "sea"]
for c in range(25, 44):
    for u in range(S(11), S(23)):
        if (c, u) in hexes or (c >= 37 and u < S(12)):
            continue
        x, y = centre(c, u)
        if any(math.hypot(x - centre(*k)[0], y - centre(*k)[1]) < 1.1 * SQRT3 for k in southern_land):
            azov = (c >= 34 and u <= S(16)) or (c >= 37 and u <= S(19))
            hexes[(c, u)] = {"t": "sea", "name": "Sea of Azov" if azov else "Black Sea"}


# --------------------------------------------------------------------------- countries (3.7)
# Greater Germany: East Prussia (column 19, rows 06-14, and the Suwalki hexes 2013N/2014N named
# by 8.2) and the strip west of the Bug (column 18, rows 15-22). Every German hex is ZOMO: the
# off-map North OKH area lies west of it.
GERMANY = [(19, u) for u in range(6, 15)] + [(20, 13), (20, 14)] + [(18, u) for u in range(15, 23)]
for k in GERMANY:
    hexes[k]["country"] = "germany"
    hexes[k]["zomo"] = True

# --------------------------------------------------------------------------- natural terrain

sketch.seed_noise(1941)
noise = sketch.noise
paint = sketch.paint

# Forest belts.
for col, row, rx, ry in [
    (21.5, 4.0, 1.6, 1.4),  # Courland
    (30.5, 1.2, 2.5, 1.2),  # southern Estonia
    (29.0, 5.5, 1.3, 1.2),  # Vidzeme
    (38.0, 4.0, 2.2, 2.0),  # Luga and Pskov woods
    (44.5, 5.5, 4.2, 2.6),  # Volkhov and Novgorod forests
    (49.5, 5.0, 2.0, 3.5),  # Tikhvin forests
    (47.5, 9.5, 3.5, 2.0),  # north of the upper Volga
    (38.5, 12.0, 1.8, 1.2),  # Velizh woods
    (31.0, 11.5, 1.4, 1.2),  # Lepel woods
    (23.8, 13.5, 1.2, 1.0),  # Rudniki forest
    (25.5, 16.0, 1.4, 1.2),  # Naliboki forest
    (43.0, 14.0, 2.8, 1.6),  # Vyazma-Rzhev forest belt
    (48.0, 15.2, 1.8, 1.4),  # west of Moscow
    (42.0, 20.0, 2.2, 2.0),  # Bryansk forest
    (36.5, 19.8, 1.3, 1.3),  # Sozh woods
    (31.0, 23.5, 1.8, 1.2),  # Chernigov woods
    (27.5, 12.0, 1.2, 1.0),  # Narach woods
    (23.5, 7.0, 1.5, 1.2),  # Samogitian woods
    (26.5, 8.5, 1.5, 1.0),  # Zemgale woods
    (25.2, 10.5, 1.1, 0.9),  # Ukmerge woods
    (32.5, 5.0, 1.5, 1.5),  # Latgale woods
    (33.0, 8.2, 1.2, 1.1),  # Rezekne woods
    (36.5, 6.5, 1.5, 1.2),  # Porkhov woods
    (33.5, 1.5, 1.0, 0.8),  # Peipus shore
    (21.5, 17.6, 1.0, 0.8),  # Bialowieza forest
    (30.3, 13.0, 1.5, 1.5),  # Berezina forests
    (32.5, 17.0, 1.5, 1.2),  # between the Berezina and the Dnieper
    (27.0, 19.0, 1.2, 0.8),  # Slutsk woods
    (33.5, 14.0, 1.0, 1.0),  # Ulla woods
    (46.5, 17.8, 1.8, 1.3),  # Medyn forests
    (49.6, 18.2, 1.0, 1.0),  # Podolsk woods
    (38.0, 18.5, 1.5, 1.2),  # Roslavl woods
    (44.0, 18.2, 1.2, 1.0),  # Ugra woods
    (30.5, 25.0, 1.0, 1.0),  # north of Kiev
]:
    paint("forest", col, row, rx, ry)

# Swamps: the Pripyat marshes south of Minsk (a band along the bottom of the main area), the
# Volkhov and Estonian bogs, the Lubana and the Nevel marshes.
PRIPYAT_TOP = {
    19: 22,
    20: 20,
    21: 20,
    22: 19,
    23: 19,
    24: 19,
    25: 20,
    26: 20,
    27: 20,
    28: 20,
    29: 20,
    30: 21,
    31: 21,
    32: 22,
    33: 22,
}
for (c, u), v in hexes.items():
    if land((c, u)) and c in PRIPYAT_TOP and PRIPYAT_TOP[c] <= u <= 22:
        v["t"] = "forest" if noise[(c, u)] < 0.18 else "swamp"
for col, row, rx, ry in [
    (43.5, 3.0, 1.3, 1.0),  # Volkhov bogs
    (32.0, 0.5, 1.2, 0.8),  # Estonian bogs
    (29.5, 7.0, 1.0, 0.8),  # Lubana marshes
    (36.0, 9.0, 1.0, 0.9),  # Nevel marshes
    (40.5, 7.5, 1.0, 0.8),  # Lovat marshes
    (31.0, 12.0, 0.8, 0.8),  # Berezina marshes
    (25.5, 6.5, 0.8, 0.7),  # Kemeri bog
    (46.5, 12.0, 1.0, 0.8),  # upper Volga marshes
]:
    paint("swamp", col, row, rx, ry, rough=0.3)

# Hills: the Valdai, the Minsk heights, the Smolensk heights, the Central Russian upland, the
# Latgale upland and the Crimean mountains.
for col, row, rx, ry in [
    (45.0, 9.0, 1.8, 1.3),  # Valdai hills
    (29.5, 15.0, 1.0, 0.9),  # Minsk heights
    (40.5, 15.0, 1.2, 0.8),  # Smolensk heights
    (47.0, 21.8, 1.8, 1.0),  # Central Russian upland
    (44.5, 21.0, 0.9, 0.8),  # Central Russian upland, west spur
    (30.5, 8.5, 0.9, 0.9),  # Latgale upland
    (24.0, 9.0, 0.8, 0.8),  # Samogitian heights
]:
    paint("hills", col, row, rx, ry, rough=0.3)
for h in ["3019S", "3118S", "3119S", "3219S", "3218S", "3319S"]:
    hexes[parse_id(h)]["t"] = "hills"

# The German approaches stay open: the Tilsit and Suwalki gaps and the Brest plain.
for h in [
    "2007N",
    "2008N",
    "2107N",
    "2108N",
    "2112N",
    "2113N",
    "2212N",
    "2015N",
    "1917N",
    "1918N",
    "2017N",
    "2018N",
    "2118N",
    "1919N",
]:
    hexes[parse_id(h)]["t"] = "clear"
for k in GERMANY:
    if hexes[k]["t"] == "swamp":
        hexes[k]["t"] = "forest"

# --------------------------------------------------------------------------- places (4.2, D.2)
# (hex, kind, name, vp, md, port). Rulebook hexes: Leningrad 4201N, Oranienbaum 4100N, Riga 2705N,
# Minsk 2817N (1 VP), Moscow 5017N/5116N (9 VP), Tula 4921N, Sevastopol 2919S (4 VP),
# Novorossisk 4022S. Every other place, and every VP value not named above, is invented.
PLACES: list[tuple[str, str, str, int, bool, bool]] = [
    # the Frontier Zone (columns 22 and west): exactly 3 large towns (3.3)
    ("1919N", "large_town", "Brest", 1, False, False),
    ("2016N", "large_town", "Bialystok", 1, False, False),
    ("2114N", "large_town", "Grodno", 0, False, False),
    ("2004N", "town", "Liepaja", 0, False, False),
    ("2208N", "town", "Siauliai", 0, False, False),
    # the Baltic states and the north-west
    ("2311N", "large_town", "Kaunas", 1, False, False),
    ("2512N", "city", "Vilnius", 1, False, False),
    ("2705N", "city", "Riga", 2, False, False),
    ("2910N", "large_town", "Daugavpils", 1, False, False),
    ("3505N", "large_town", "Pskov", 1, False, False),
    ("3601N", "town", "Narva", 0, False, False),
    ("3904N", "town", "Luga", 0, False, False),
    ("4100N", "town", "Oranienbaum", 0, False, False),
    ("4201N", "city", "Leningrad", 5, True, False),
    ("4205N", "large_town", "Novgorod", 1, False, False),
    ("4107N", "town", "Staraya Russa", 0, False, False),
    ("3811N", "large_town", "Velikiye Luki", 0, False, False),
    # Belorussia
    ("2817N", "city", "Minsk", 1, True, False),
    ("2517N", "town", "Baranovichi", 0, False, False),
    ("2420N", "town", "Pinsk", 0, False, False),
    ("3116N", "town", "Borisov", 0, False, False),
    ("3119N", "large_town", "Bobruisk", 0, False, False),
    ("3312N", "town", "Polotsk", 0, False, False),
    ("3514N", "large_town", "Vitebsk", 1, False, False),
    ("3516N", "town", "Orsha", 0, False, False),
    ("3418N", "large_town", "Mogilev", 1, False, False),
    ("3422N", "large_town", "Gomel", 1, False, False),
    # the road to Moscow
    ("3916N", "city", "Smolensk", 2, False, False),
    ("4117N", "town", "Yelnya", 0, False, False),
    ("4416N", "large_town", "Vyazma", 1, False, False),
    ("4513N", "large_town", "Rzhev", 0, False, False),
    ("4716N", "town", "Mozhaisk", 0, False, False),
    ("4913N", "city", "Kalinin", 1, False, False),
    ("5017N", "city", "Moscow", 9, True, False),
    ("5116N", "city", "Moscow", 9, True, False),
    ("4719N", "large_town", "Kaluga", 1, False, False),
    ("4921N", "city", "Tula", 2, False, False),
    ("4222N", "large_town", "Bryansk", 1, False, False),
    # the Ukraine corridor
    ("3224N", "large_town", "Chernigov", 0, False, False),
    ("3001S", "city", "Kiev", 4, True, False),
    ("3307S", "large_town", "Kremenchug", 0, False, False),
    ("3609S", "city", "Dnepropetrovsk", 2, False, False),
    ("3611S", "large_town", "Zaporozhye", 1, False, False),
    ("3013S", "town", "Perekop", 0, False, False),
    # the Crimea and the Taman
    ("2919S", "city", "Sevastopol", 4, False, True),
    ("3118S", "large_town", "Simferopol", 1, False, False),
    ("3419S", "town", "Feodosiya", 0, False, False),
    ("3719S", "large_town", "Kerch", 0, False, False),
    ("4022S", "large_town", "Novorossisk", 1, False, True),
]
for h, kind, name, vp, md, port in PLACES:
    v = hexes[parse_id(h)]
    v[kind] = name
    if kind == "city":
        v["t"] = "clear"  # 12.10: every city hex counts as clear
    if vp:
        v["vp"] = vp
    if md:
        v["md"] = True
    if port:
        v["port"] = True

for k in crimea:
    hexes[k]["zone"] = "SZ"

# The Minsk-Moscow highway (12.20): the rulebook gives only its ends, Minsk 2817N and Moscow 5017N
# (D.2: the path is missing). Invented: a chain of adjacent hexes through Borisov, Orsha, Smolensk,
# Vyazma and Mozhaisk, each leg stepping to the neighbour nearest the next town.
HIGHWAY = ["2817N", "3116N", "3516N", "3916N", "4416N", "4716N", "5017N"]


for k in sketch.walk([parse_id(h) for h in HIGHWAY]):
    assert hexes[k]["t"] not in ("sea", "lake"), hex_id(*k)
    hexes[k]["road"] = True

# --------------------------------------------------------------------------- hexsides

sides = sketch.sides
mark = sketch.mark


# The border (12.18): every hexside between a German and a Soviet hex.
for k in sorted(hexes):
    for n in neighbours(*k):
        if land(k) and land(n) and hexes[k].get("country") == "germany" and "country" not in hexes[n]:
            mark(k, n, "border")

# Sivash (9.15: two of the three hexsides of 3215S/3216S/3315S) and Kerch (two of 3719S/3819S/3820S).
for a, b in [("3215S", "3216S"), ("3216S", "3315S")]:
    mark(parse_id(a), parse_id(b), "sivash")
for a, b in [("3719S", "3820S"), ("3819S", "3820S")]:
    mark(parse_id(a), parse_id(b), "kerch")

# All-sea hexsides: every other hexside between the Crimea and the land outside it, except the
# Perekop isthmus (3013S-3014S).
for k in sorted(crimea):
    for n in neighbours(*k):
        if land(n) and n not in crimea and side_key(k, n) not in sides and side_key(k, n) != "3013S-3014S":
            mark(k, n, "sea")

# All-lake hexsides: Lake Pskov, the narrow southern arm of Lake Peipus.
for a, b in [("3403N", "3503N"), ("3404N", "3503N"), ("3404N", "3504N")]:
    mark(parse_id(a), parse_id(b), "lake")

# The GAS line (9.3) runs along hexsides from 4000N/4100N to 3715S/3815S; the rulebook gives only
# its ends. Invented: straight south between columns 40 and 41 to the southern edge of the main
# area (Leningrad, Oranienbaum and Moscow east of it, Smolensk west), then, on the Azov shore,
# between column 37 and the corridor's two hexes of column 38 (3814S, 3815S), which lie east of it.
for k in sorted(hexes):
    if k[0] == 40 and k[1] <= N(22) and land(k):
        for n in neighbours(*k):
            if n[0] == 41 and land(n):
                mark(k, n, "gas")
for h in ["3814S", "3815S"]:
    for n in neighbours(*parse_id(h)):
        if n[0] == 37 and land(n):
            mark(n, parse_id(h), "gas")

# Rivers run along hexsides (12.15). Each river is a list of hex corners; between two of them it
# follows the shortest chain of land hexsides, kept close to the straight line between them.
RIVERS: dict[str, list[tuple[str, str]]] = {
    # 15.2: the rulebook's example has a river on hexside 2608N-2707N.
    "Western Dvina": [
        ("2705N", "W"),
        ("2706N", "W"),
        ("2707N", "W"),
        ("2707N", "SW"),
        ("2707N", "SE"),
        ("2808N", "SE"),
        ("2909N", "SW"),
        ("2910N", "SE"),
        ("3111N", "SE"),
        ("3312N", "SW"),
        ("3312N", "SE"),
        ("3413N", "SE"),
        ("3514N", "SW"),
        ("3514N", "SE"),
        ("3713N", "SE"),
        ("3912N", "E"),
        ("4111N", "NE"),
        ("4210N", "E"),
    ],
    "Dnieper": [
        ("4315N", "E"),
        ("4115N", "SE"),
        ("3916N", "NW"),
        ("3916N", "W"),
        ("3716N", "SW"),
        ("3516N", "SE"),
        ("3517N", "SE"),
        ("3418N", "E"),
        ("3419N", "SE"),
        ("3420N", "SE"),
        ("3321N", "SE"),
        ("3323N", "SW"),
        ("3125N", "SW"),
        ("3026N", "SE"),
        ("3001S", "E"),
        ("3102S", "SE"),
        ("3204S", "SE"),
        ("3307S", "W"),
        ("3307S", "SW"),
        ("3408S", "SE"),
        ("3508S", "E"),
        ("3609S", "E"),
        ("3609S", "SE"),
        ("3609S", "SW"),
        ("3611S", "W"),
        ("3512S", "NW"),
        ("3312S", "NW"),
        ("3111S", "SW"),
        ("3012S", "SW"),
    ],
    "Berezina": [
        ("3112N", "NE"),
        ("3113N", "SE"),
        ("3116N", "NE"),
        ("3116N", "E"),
        ("3117N", "SE"),
        ("3119N", "NE"),
        ("3119N", "E"),
        ("3220N", "SE"),
        ("3222N", "E"),
        ("3323N", "SW"),
    ],
    "Neman": [
        ("2617N", "NE"),
        ("2416N", "SE"),
        ("2215N", "SE"),
        ("2114N", "SE"),
        ("2114N", "E"),
        ("2213N", "E"),
        ("2311N", "SW"),
        ("2311N", "W"),
        ("2210N", "W"),
        ("2010N", "NE"),
    ],
    "Pripyat": [
        ("1922N", "E"),
        ("2121N", "E"),
        ("2421N", "SE"),
        ("2721N", "SE"),
        ("2922N", "SE"),
        ("3123N", "E"),
        ("3224N", "SW"),
    ],
    "Desna": [("4216N", "E"), ("4218N", "E"), ("4220N", "E"), ("4222N", "E"), ("4322N", "W")],
    "Oka": [
        ("4522N", "E"),
        ("4520N", "E"),
        ("4719N", "W"),
        ("4719N", "SW"),
        ("4720N", "E"),
        ("4919N", "SE"),
        ("5119N", "NE"),
    ],
    "Volga": [
        ("4311N", "SE"),
        ("4512N", "SW"),
        ("4513N", "SE"),
        ("4713N", "E"),
        ("4913N", "W"),
        ("4913N", "SW"),
        ("4914N", "SE"),
        ("5113N", "SE"),
    ],
    "Lovat": [("3811N", "NE"), ("3910N", "SE"), ("4009N", "E"), ("4107N", "SE"), ("4206N", "SW")],
    "Volkhov": [
        ("4205N", "SW"),
        ("4205N", "W"),
        ("4204N", "NW"),
        ("4303N", "W"),
        ("4402N", "NW"),
        ("4501N", "NE"),
    ],
    "Luga": [
        ("4304N", "W"),
        ("4104N", "SW"),
        ("3904N", "SW"),
        ("3904N", "W"),
        ("3803N", "NW"),
        ("3701N", "NW"),
    ],
    "Velikaya": [("3609N", "SW"), ("3508N", "SW"), ("3506N", "SW"), ("3505N", "SW"), ("3505N", "W")],
    "Narva": [("3501N", "NE"), ("3500N", "E")],
}


sketch.draw_rivers(RIVERS)

# The Bug runs along the border from Brest southwards.
for key, feats in sides.items():
    a, b = key.split("-")
    if feats == ["border"] and parse_id(a)[1] >= 17 and parse_id(b)[1] >= 17 and parse_id(a)[0] == 18:
        feats.insert(0, "river")

# --------------------------------------------------------------------------- supply sources (9.10)
# The map ends at column 51, short of the rulebook's east edge (column 60): every land hex of its
# east edge is marked as a Soviet supply source. The German sources are the ZOMO hexes (9.11).
EAST_EDGE = max(c for c, _ in hexes)
for k in sorted(hexes):
    if k[0] == EAST_EDGE and land(k):
        hexes[k]["supply"] = "soviet"

# --------------------------------------------------------------------------- output

NOTE = (
    "Authored for pbem's training scenario; not the published map. Hex ids and the places the "
    "rulebook locates (Leningrad 4201N, Oranienbaum 4100N, Riga 2705N, Minsk 2817N, Moscow 5017N and "
    "5116N, Tula 4921N, Sevastopol 2919S, Novorossisk 4022S, the Sivash among 3215S/3216S/3315S and "
    "the Kerch Strait among 3719S/3819S/3820S, the ends of the GAS line at 4000N/4100N and "
    "3715S/3815S, the Suwalki hexes 2013N/2014N of the ZOMO, and the VP of Minsk, Moscow and "
    "Sevastopol) follow the rules; all other terrain, places and values are invented."
)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    header = [
        "# Proud Monster training map: authored, not the published map (see map.note).",
        "# Format: docs/map-format.md. Generated by tools/make_training_map.py; may be edited by hand.",
    ]
    meta: list[tuple[str, object]] = [("id", "pm-training"), ("title", "Proud Monster training map"),
                                      ("authored", True), ("note", NOTE), ("north_last_row", NORTH_LAST_ROW)]
    write(out, sketch.lines(
        header, meta, ["# t = natural terrain (12.9-12.14): clear | forest | hills | swamp | sea | lake"],
        ["# features: river | border | sivash | kerch | lake (all-lake) | sea (all-sea) | gas (the GAS line, 9.3)"]))
    print(f"wrote {out}: {len(hexes)} hexes, {len(sides)} hexsides")


if __name__ == "__main__":
    main()
