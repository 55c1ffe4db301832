#!/usr/bin/env python3
"""Consistency check of the Proud Monster training scenario's data (map, counters, set-up).

Standard library only. Run ``python3 check_data.py [scenario.toml]``; it prints a summary and
every problem found, and exits 1 if there is any problem, 0 otherwise.

Checked: hex ids and the 2.4 map join, hexsides between existing adjacent hexes, the Sivash and
Kerch triangles (9.15), the border (12.18), the places the rulebook locates, terrain and hexside
feature coverage, the three Frontier Zone large towns (3.3), land connectivity, the counters
(2.14), and the set-up and reinforcement lists (3.7, 6.1, 8.2, 8.7).
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter, deque
from pathlib import Path

HERE = Path(__file__).resolve().parent
ID = re.compile(r"^(\d{2})(\d{2})([NS])$")
TERRAIN = ("clear", "forest", "hills", "swamp", "sea", "lake")
FEATURES = ("river", "border", "sivash", "kerch", "lake", "sea")
WATER = ("sea", "lake")
SETTLEMENTS = ("town", "large_town", "city")
STACKING = 5  # 6.1, basic game

# Places whose hex the rulebook gives (2.3, 4.2, 4.3, 8.7, 9.13, 14.25, D.2).
REQUIRED = [
    ("4201N", ("city",), "Leningrad", None, True),
    ("4100N", ("town",), "Oranienbaum", None, None),
    ("2705N", ("city", "large_town"), "Riga", None, False),
    ("2817N", ("city",), "Minsk", 1, True),
    ("5017N", ("city",), "Moscow", 9, True),
    ("5116N", ("city",), "Moscow", 9, True),
    ("4921N", ("city", "large_town"), "Tula", None, None),
    ("2919S", ("city",), "Sevastopol", 4, None),
]
RIVER_2608N_2707N = ("2608N", "2707N")  # 15.2 example: a river on this hexside
SIVASH = ("3215S", "3216S", "3315S")  # 9.15: two of the three hexsides are the Sivash
KERCH = ("3719S", "3819S", "3820S")  # 9.15: two of the three hexsides are the Kerch Strait
# 8.2: the North OKH area touches the ZOMO from 1908N southwards, except 1913N, 2013N and 2014N.
NOT_OKH = ("1906N", "1907N", "1913N", "2013N", "2014N")


class Grid:
    """Hex ids on the joined North and South maps (D.1, 2.4)."""

    def __init__(self, north_last_row: int) -> None:
        self.nlr = north_last_row

    def parse(self, h: str) -> tuple[int, int] | None:
        m = ID.match(h)
        if not m:
            return None
        c, r, half = int(m.group(1)), int(m.group(2)), m.group(3)
        if half == "N":
            return (c, r) if r <= self.nlr else None
        return c, self.nlr + r

    def fmt(self, c: int, u: int) -> str:
        return f"{c:02d}{u:02d}N" if u <= self.nlr else f"{c:02d}{u - self.nlr:02d}S"

    @staticmethod
    def neighbours(c: int, u: int) -> list[tuple[int, int]]:
        if c % 2 == 0:
            return [(c, u - 1), (c, u + 1), (c - 1, u - 1), (c - 1, u), (c + 1, u - 1), (c + 1, u)]
        return [(c, u - 1), (c, u + 1), (c - 1, u), (c - 1, u + 1), (c + 1, u), (c + 1, u + 1)]


def load(path: Path, problems: list[str]) -> dict:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        problems.append(f"{path.name}: cannot read: {e}")
        return {}


def check(scenario_path: Path) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    info: list[str] = []
    scen = load(scenario_path, problems)
    if not scen:
        return problems, info
    base = scenario_path.parent
    mapdata = load(base / scen["scenario"]["map"], problems)
    unitdata = load(base / scen["scenario"]["units"], problems)
    if not mapdata or not unitdata:
        return problems, info

    # ---------------------------------------------------------------- hexes
    grid = Grid(int(mapdata["map"].get("north_last_row", 26)))
    hexes: dict[str, dict] = {}
    at: dict[tuple[int, int], str] = {}
    for h, v in mapdata["hexes"].items():
        pos = grid.parse(h)
        if pos is None:
            problems.append(f"hex {h}: not a hex id of this map (XXYY + N/S, North rows 00-{grid.nlr:02d})")
            continue
        if pos in at:
            problems.append(f"hex {h}: the same hex as {at[pos]} (2.4: South row 00 is North row {grid.nlr})")
            continue
        at[pos] = h
        hexes[h] = v
        if v.get("t") not in TERRAIN:
            problems.append(f"hex {h}: terrain {v.get('t')!r} is not one of {', '.join(TERRAIN)}")
        kinds = [k for k in SETTLEMENTS if k in v]
        if len(kinds) > 1:
            problems.append(f"hex {h}: more than one of town, large_town, city")
        if "vp" in v and not ({"city", "large_town"} & set(kinds)):
            problems.append(f"hex {h}: vp on a hex that is neither a city nor a large town (4.2)")
        if kinds and v.get("t") in WATER:
            problems.append(f"hex {h}: a {kinds[0]} on an all-{v['t']} hex")
        if "city" in v and v.get("t") != "clear":
            problems.append(f"hex {h}: a city hex counts as clear (12.10)")
        if v.get("zomo") and v.get("country") != "germany":
            problems.append(f"hex {h}: zomo outside Greater Germany (3.7)")
        if v.get("zone") == "SZ" and h.endswith("N"):
            problems.append(f"hex {h}: the SZ is on the South map only (13.2)")

    def land(h: str) -> bool:
        return h in hexes and hexes[h].get("t") not in WATER

    def country(h: str) -> str:
        return str(hexes[h].get("country", "ussr"))

    def pos(h: str) -> tuple[int, int]:
        p = grid.parse(h)
        if p is None:
            raise ValueError(h)
        return p

    def canon(h: str) -> str | None:
        p = grid.parse(h)
        return at.get(p) if p is not None else None

    # ---------------------------------------------------------------- hexsides
    sides: dict[frozenset[str], set[str]] = {}
    for key, feats in mapdata.get("hexsides", {}).items():
        parts = key.split("-")
        feats = [feats] if isinstance(feats, str) else list(feats)
        if len(parts) != 2:
            problems.append(f"hexside {key}: written HEX1-HEX2")
            continue
        a, b = (canon(p) for p in parts)
        if a is None or b is None:
            problems.append(f"hexside {key}: names a hex that is not on the map")
            continue
        if pos(b) not in grid.neighbours(*pos(a)):
            problems.append(f"hexside {key}: {a} and {b} are not adjacent")
            continue
        if parts[0] >= parts[1]:
            problems.append(f"hexside {key}: write the lower id first")
        for f in feats:
            if f not in FEATURES:
                problems.append(f"hexside {key}: feature {f!r} is not one of {', '.join(FEATURES)}")
        if {"river", "border", "sivash", "kerch", "lake", "sea"} & set(feats) and not (land(a) and land(b)):
            problems.append(f"hexside {key}: a hexside feature needs land on both sides")
        pair = frozenset((a, b))
        if pair in sides:
            problems.append(f"hexside {key}: listed twice")
        sides[pair] = set(feats)

    def with_feature(f: str) -> list[frozenset[str]]:
        return [p for p, fs in sides.items() if f in fs]

    for name, tri in (("sivash", SIVASH), ("kerch", KERCH)):
        found = with_feature(name)
        inside = [p for p in found if p <= set(tri)]
        if len(found) != 2 or len(inside) != 2:
            problems.append(
                f"{name}: need exactly 2 hexsides among {'/'.join(tri)} (9.15), found {sorted(map(sorted, found))}"
            )

    for h in hexes:
        for n in grid.neighbours(*pos(h)):
            m = at.get(n)
            if m and land(h) and land(m) and country(h) == "germany" and country(m) == "ussr":
                if "border" not in sides.get(frozenset((h, m)), set()):
                    problems.append(f"hexside {h}-{m}: Germany meets the USSR without a border (12.18)")
    for p in with_feature("border"):
        a, b = sorted(p)
        if {country(a), country(b)} != {"germany", "ussr"}:
            problems.append(f"hexside {a}-{b}: border between {country(a)} and {country(b)}")

    # ---------------------------------------------------------------- places
    for h, kinds, name, vp, md in REQUIRED:
        v = hexes.get(h)
        if v is None:
            problems.append(f"{name} {h}: hex missing")
            continue
        kind = next((k for k in SETTLEMENTS if k in v), None)
        if kind not in kinds or v.get(kind) != name:
            problems.append(
                f"{name} {h}: expected a {' or '.join(kinds)} named {name}, found {kind}={v.get(kind) if kind else None}"
            )
        if vp is not None and v.get("vp") != vp:
            problems.append(f"{name} {h}: vp {v.get('vp')} (rulebook: {vp})")
        if md is not None and bool(v.get("md")) != md:
            problems.append(f"{name} {h}: md should be {md}")
    if "river" not in sides.get(frozenset(RIVER_2608N_2707N), set()):
        problems.append("hexside 2608N-2707N: the rulebook's 15.2 example puts a river there")
    fz_large = sorted(h for h in hexes if "large_town" in hexes[h] and pos(h)[0] <= 22)
    if len(fz_large) != 3:
        problems.append(
            f"3.3: the Frontier Zone (columns <= 22) needs exactly 3 large towns, found {fz_large}"
        )

    terrain = Counter(v.get("t") for v in hexes.values())
    features = Counter(f for fs in sides.values() for f in fs)
    for t in TERRAIN:
        if not terrain[t]:
            problems.append(f"no {t} hex")
    for f in FEATURES:
        if not features[f]:
            problems.append(f"no {f} hexside")

    # ---------------------------------------------------------------- connectivity of the land
    blocked = {p for p, fs in sides.items() if fs & {"lake", "sea"}}
    landhexes = sorted(h for h in hexes if land(h))
    seen = {landhexes[0]} if landhexes else set()
    queue = deque(seen)
    while queue:
        h = queue.popleft()
        for n in grid.neighbours(*pos(h)):
            m = at.get(n)
            if m and land(m) and m not in seen and frozenset((h, m)) not in blocked:
                seen.add(m)
                queue.append(m)
    if len(seen) != len(landhexes):
        cut = sorted(set(landhexes) - seen)
        problems.append(f"the land is not connected: {len(cut)} land hexes cut off, e.g. {cut[:8]}")

    # ---------------------------------------------------------------- counters
    units: dict[str, dict] = {}
    for u in unitdata.get("unit", []):
        uid = u.get("id", "")
        if not re.fullmatch(r"[A-Za-z0-9]+", uid):
            problems.append(f"unit {uid!r}: ids are letters and digits only")
        if uid in units:
            problems.append(f"unit {uid}: duplicate id")
        units[uid] = u
        vals = u.get("values", [])
        if len(vals) != u.get("steps"):
            problems.append(f"unit {uid}: {u.get('steps')} steps but {len(vals)} value sets (2.14)")
        if any(not re.fullmatch(r"\d+-\d+-\d+", x) for x in vals):
            problems.append(f"unit {uid}: values are Attack-Defense-Movement, e.g. 4-4-5")
        if u.get("side") == "soviet" and u.get("steps") != 1:
            problems.append(f"unit {uid}: Soviet starting units have 1 step (3.8, 2.15)")
        if (
            u.get("type") in ("tank", "motorized")
            and u.get("side") == "german"
            and u.get("size") == "XX"
            and u.get("steps") != 4
        ):
            problems.append(f"unit {uid}: German panzer and motorized divisions have 4 steps (2.14)")

    # ---------------------------------------------------------------- set-up and reinforcements
    placed: Counter[str] = Counter()
    stack: Counter[str] = Counter()
    for i, e in enumerate(scen.get("setup", [])):
        uid, h = e.get("unit"), canon(e.get("hex", ""))
        placed[uid] += 1
        where = f"setup[{i}] {uid} {e.get('hex')}"
        if uid not in units:
            problems.append(f"{where}: no such unit")
            continue
        if h is None or not land(h):
            problems.append(f"{where}: not a land hex of the map")
            continue
        stack[h] += 1
        if units[uid]["side"] == "german" and not (country(h) == "germany" and hexes[h].get("zomo")):
            problems.append(f"{where}: German units set up in the Greater-German ZOMO (3.7)")
        if units[uid]["side"] == "soviet" and country(h) != "ussr":
            problems.append(f"{where}: Soviet units set up in the USSR (3.3, 3.4)")
    for h, n in sorted(stack.items()):
        if n > STACKING:
            problems.append(f"setup: {n} units in {h}, more than {STACKING} (6.1)")
    first, last = int(scen["scenario"].get("first_turn", 1)), int(scen["scenario"].get("last_turn", 12))
    for i, e in enumerate(scen.get("reinforcement", [])):
        uid, h, turn = e.get("unit"), canon(e.get("hex", "")), e.get("turn")
        placed[uid] += 1
        where = f"reinforcement[{i}] GT{turn} {uid} {e.get('hex')}"
        if uid not in units:
            problems.append(f"{where}: no such unit")
            continue
        if not (isinstance(turn, int) and first < turn <= last):
            problems.append(f"{where}: arrives outside turns {first + 1}-{last}")
        if h is None or not land(h):
            problems.append(f"{where}: not a land hex of the map")
            continue
        if units[uid]["side"] == "german" and not (hexes[h].get("zomo") and h not in NOT_OKH):
            problems.append(
                f"{where}: German units enter through a ZOMO hex next to the North OKH area (8.2, 8.3)"
            )
        if units[uid]["side"] == "soviet" and not (
            country(h) == "ussr" and ({"city", "large_town"} & set(hexes[h]))
        ):
            problems.append(f"{where}: Soviet units arrive in a Soviet city or large town (8.7)")
    for uid, n in sorted(placed.items()):
        if n > 1:
            problems.append(f"unit {uid}: placed {n} times across setup and reinforcement")

    # ---------------------------------------------------------------- summary
    info.append(f"hexes: {len(hexes)} ({len(landhexes)} land), hexsides: {len(sides)}")
    info.append("terrain: " + ", ".join(f"{t} {terrain[t]}" for t in TERRAIN))
    info.append("hexside features: " + ", ".join(f"{f} {features[f]}" for f in FEATURES))
    for kind in SETTLEMENTS:
        names = sorted((h, hexes[h][kind], hexes[h].get("vp")) for h in hexes if kind in hexes[h])
        info.append(
            f"{kind} ({len(names)}): "
            + ", ".join(f"{n} {h}" + (f" [{vp} VP]" if vp else "") for h, n, vp in names)
        )
    info.append(f"Frontier Zone large towns: {', '.join(fz_large)}")
    for side in ("german", "soviet"):
        ids = [u for u in units if units[u].get("side") == side]
        at_start = sum(1 for e in scen.get("setup", []) if e.get("unit") in ids)
        by_turn = Counter(e["turn"] for e in scen.get("reinforcement", []) if e.get("unit") in ids)
        unplaced = sorted(set(ids) - set(placed))
        info.append(
            f"{side}: {len(ids)} counters, {at_start} set up, reinforcements "
            + ", ".join(f"GT{t}: {n}" for t, n in sorted(by_turn.items()))
            + (f"; not scheduled: {', '.join(unplaced)}" if unplaced else "")
        )
    return problems, info


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "scenario.toml"
    problems, info = check(path)
    for line in info:
        print(line)
    for p in problems:
        print("PROBLEM:", p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
