"""pbem benchmark: one full-size German step of Proud Monster, full game, and supply for all units.

    python benchmarks/bench_fullsize.py [--repeat N] [--scales 0.5,1,2] [--keep DIR]

A synthetic scenario is written into a scratch folder (fixed data: the terrain and rivers come
from a seeded generator, the rulebook's places are at their hexes, so every machine builds the same files): both maps joined (North rows
01-26 and South rows 01-34, columns 10-60, about 3,000 hexes) with mixed terrain, rivers and a few
lakes; about 250 German units (panzer and motorized divisions of 4 steps, infantry of 2) and 250
Soviet 1-step units along a north-south front, with two Soviet pockets behind it. The German
orders of the step are:

* 150 `[[move]]` orders: 40 panzer stacks moving two hexes and making a mobile assault into the
  Soviet front (15.x), 60 infantry stacks closing on the pockets, 50 rear units moving forward;
* 60 `[[attack]]` prepared assaults on the pockets (14.x).

The orders are checked with the module first and any that breaks a rule is dropped (the counts
left are printed). Both sides give standing instructions, so the step runs to its end without
awaiting a reply.

Measured, medians of N runs:

1. what the user waits for: `pbem adjudicate` of the step as a new process, in a game folder
   (state 0, the two joins, state 1 awaiting the step, the signed orders: the scenario starts at
   GT3), at 0.5x, 1x and 2x the full-size position (a front of 30, 60 and 120 rows: hexes, units
   and orders in proportion), against the floor (a new process that reads, validates, hashes and
   checks the seals of the state and the orders). CPU time of the child processes (getrusage) and
   wall time; "cold" with no file kept in the cache folder ($PBEM_HOME/cache/content: every file
   parsed and checked, the transition before the step replayed; the compiled schemas kept), "warm"
   with the cache an earlier command left. The growth ratios (time at 2x over time at 1x) are the CPU figures. Targets: under
   1 s and at most 10x the floor at 1x; at 2x within 2.5x the time at 1x.
2. in process, at 1x: `resolve` of the whole step with real (seeded) dice; supply traced for every
   unit on the map of both sides (`supply.out_of_supply`, every kind of line), the target being
   under 0.2 s.

Not a test: record the figures where they are needed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import median_time  # type: ignore[import-not-found]  # benchmarks/bench.py: the same timing for every benchmark

from pbem.engine.model import Submission
from pbem.games.proud_monster import supply
from pbem.games.proud_monster.data import load_scenario
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.rules.weather import initial_weather
from pbem.games.proud_monster.rules.works import initial_works
from pbem.games.proud_monster.validation import validate_scenario
from pbem.mechanics.dice import SeededDice
from pbem.resources import scenarios_dir

SEED = 1941
TURN = 3  # not GT1: no first-turn restrictions (5.3-5.6)
COLUMNS = range(10, 61)
NORTH_ROWS = 26  # rows 01-26 of the North map (its row 26 is the South map's row 00)
SOUTH_ROWS = 34  # rows 01-34 of the South map
ROWS = NORTH_ROWS + SOUTH_ROWS  # the long grid's rows 1-60 (at 1x; scale() changes these)

FRONT = 40  # the Soviet front column, held on every row
MA_ROWS = range(1, 41)  # rows where a panzer stack makes a mobile assault into the front
POCKETS = (26, 32)  # Soviet pockets: one unit on every even row of these columns
REAR = (14, 18)  # rear German units move from column 14 to 18
REAR_ROWS = range(1, 51)  # rows of the rear units
SOVIET_REAR = 70  # Soviet units in the east


def scale(factor: float) -> None:
    """The position at ``factor`` times the full size: a front of 60 x factor rows, with the hexes,
    units and orders in proportion (the North map keeps its share of the rows)."""
    global NORTH_ROWS, SOUTH_ROWS, ROWS, MA_ROWS, REAR_ROWS, SOVIET_REAR
    ROWS = round(60 * factor)
    NORTH_ROWS = round(26 * factor)
    SOUTH_ROWS = ROWS - NORTH_ROWS
    MA_ROWS = range(1, round(40 * factor) + 1)
    REAR_ROWS = range(1, round(50 * factor) + 1)
    SOVIET_REAR = round(70 * factor)
# Columns every order passes through or targets are clear; the rest is mixed terrain.
CLEAR_COLUMNS = set(range(14, 19)) | set(range(23, 27)) | set(range(29, 33)) | set(range(37, 41))

# The places and hexsides the rulebook locates (checked by validate_scenario where the map has them).
PLACES = {
    "4201N": 'city = "Leningrad", md = true', "2705N": 'city = "Riga"', "2817N": 'city = "Minsk", vp = 1, md = true',
    "5017N": 'city = "Moscow", vp = 9, md = true', "5116N": 'city = "Moscow", vp = 9, md = true',
    "4921N": 'large_town = "Tula"', "2919S": 'city = "Sevastopol", vp = 4, port = true',
}
FEATURES = {("2608N", "2707N"): "river", ("3215S", "3216S"): "sivash", ("3216S", "3315S"): "sivash",
            ("3719S", "3819S"): "kerch", ("3819S", "3820S"): "kerch"}

TARGET_STEP = 1.0
TARGET_STEP_SUPPLY = 0.2


def hex_id(col: int, row: int) -> str:
    """A hex of the long grid (2.4): rows 1-26 are North rows, rows 27-60 South rows 01-34."""
    return f"{col:02d}{row:02d}N" if row <= NORTH_ROWS else f"{col:02d}{row - NORTH_ROWS:02d}S"


def quoted(items: list[str]) -> str:
    return ", ".join(f'"{x}"' for x in items)


def write_scenario(folder: Path, first_turn: int = 1) -> dict[str, Any]:
    """The map, counters and set-up; returns the layout the orders are built from."""
    rng = random.Random(SEED)
    folder.mkdir(parents=True)
    shutil.copyfile(scenarios_dir() / "proud-monster" / "charts.toml", folder / "charts.toml")
    terrain: dict[str, str] = {}
    keep_clear = set(PLACES) | {h for pair in FEATURES for h in pair}  # cities are clear (12.10)
    for c in COLUMNS:
        for r in range(1, ROWS + 1):
            t = "clear"
            if c not in CLEAR_COLUMNS and c != FRONT and hex_id(c, r) not in keep_clear:
                t = rng.choices(["clear", "forest", "hills", "swamp", "lake"], [55, 20, 12, 10, 3])[0]
            terrain[hex_id(c, r)] = t
    hexes = []
    for h in sorted(terrain):
        extra = ""
        if h.startswith("10"):
            extra = ', supply = "german"'  # the west edge: German sources (9.11)
        elif h in PLACES:
            extra = ", " + PLACES[h]
        hexes.append(f'"{h}" = {{ t = "{terrain[h]}"{extra} }}')
    # Rivers: along the column lines 20|21, 34|35 and 46|47, on most rows (not on the order paths).
    sides = set()
    for c in (20, 34, 46):
        for r in range(1, ROWS + 1):
            if rng.random() < 0.8:
                a, b = hex_id(c, r), hex_id(c + 1, r)  # same row: adjacent in both column parities
                if "lake" not in (terrain[a], terrain[b]):
                    sides.add(tuple(sorted((a, b))))
    features = {s: "river" for s in sides} | {s: f for s, f in FEATURES.items() if all(h in terrain for h in s)}
    hexsides = [f'"{a}-{b}" = "{f}"' for (a, b), f in sorted(features.items())]
    (folder / "map.toml").write_text(
        '[map]\nid = "pm-bench-fullsize"\ntitle = "Full-size benchmark map (synthetic)"\nauthored = true\n'
        f"north_last_row = {NORTH_ROWS}\nconnected = false\n\n[hexes]\n" + "\n".join(hexes) + "\n\n[hexsides]\n"
        + "\n".join(hexsides) + "\n", encoding="utf-8")

    units: list[str] = ['[units]\nprovisional = true\nnote = "Synthetic counters (benchmark)."\n']
    setup: list[tuple[str, str]] = []

    def unit(uid: str, side: str, typ: str, steps: int, values: list[str], at: str) -> None:
        nat = side
        units.append(f'[[unit]]\nid = "{uid}"\nside = "{side}"\nnat = "{nat}"\ntype = "{typ}"\nsize = "XX"\n'
                     f"steps = {steps}\nvalues = [{quoted(values)}]\n")
        setup.append((uid, at))

    pz = ["8-6-10", "6-5-10", "4-3-10", "2-2-10"]
    mot = ["6-5-10", "5-4-10", "3-3-10", "2-2-10"]
    inf = ["4-4-5", "2-2-5"]
    soviet = [["2-2-4"], ["3-2-4"], ["1-2-4"], ["2-3-4"]]
    layout: dict[str, Any] = {"ma": [], "pa": [], "rear": []}
    for r in MA_ROWS:  # panzer stacks two hexes from the front
        ids = [f"Pz{r}", f"Mot{r}"]
        unit(ids[0], "german", "tank", 4, pz, hex_id(FRONT - 3, r))
        unit(ids[1], "german", "motorized", 4, mot, hex_id(FRONT - 3, r))
        layout["ma"].append((ids, [hex_id(FRONT - 2, r), hex_id(FRONT - 1, r), hex_id(FRONT, r)]))
    n = 0
    for col in POCKETS:  # infantry pairs two hexes west of each pocket hex
        for r in range(2, ROWS + 1, 2):
            n += 1
            ids = [f"Inf{n}a", f"Inf{n}b"]
            for u in ids:
                unit(u, "german", "infantry", 2, inf, hex_id(col - 3, r))
            layout["pa"].append((ids, [hex_id(col - 2, r), hex_id(col - 1, r)], hex_id(col, r)))
    for r in REAR_ROWS:  # rear units
        uid = f"Rear{r}"
        if r % 2:
            unit(uid, "german", "tank", 4, pz, hex_id(REAR[0], r))
        else:
            unit(uid, "german", "infantry", 2, inf, hex_id(REAR[0], r))
        layout["rear"].append(([uid], [hex_id(c, r) for c in range(REAR[0] + 1, REAR[1] + 1)]))
    k = 0

    def red(at: str) -> None:
        nonlocal k
        k += 1
        unit(f"Rifle{k}", "soviet", "infantry", 1, soviet[k % len(soviet)], at)

    for r in range(1, ROWS + 1):
        red(hex_id(FRONT, r))
        red(hex_id(FRONT, r))
    for col in POCKETS:
        for r in range(2, ROWS + 1, 2):
            red(hex_id(col, r))
    east = [h for h in sorted(terrain) if int(h[:2]) >= 48 and terrain[h] not in ("lake", "sea")]
    for h in rng.sample(east, SOVIET_REAR):
        red(h)
    (folder / "units.toml").write_text("\n".join(units), encoding="utf-8")
    (folder / "scenario.toml").write_text(
        '[scenario]\nid = "bench-fullsize"\ngame = "proud-monster"\ntitle = "Full-size benchmark (synthetic)"\n'
        f'ruleset = "full"\nfirst_turn = {first_turn}\nlast_turn = 12\nmap = "map.toml"\nunits = "units.toml"\n'
        'charts = "charts.toml"\nfree_setup = true\n\n'
        + "\n".join(f'[[setup]]\nunit = "{u}"\nhex = "{h}"\n' for u, h in setup), encoding="utf-8")
    return layout


def build_state(module: ProudMonster, scenario: str) -> dict[str, Any]:
    """The position at the start of the German movement phase of GT3, as a game in progress."""
    base = module.new_game(scenario, {"ruleset": "full"})
    position = base["position"]
    position.update(initial_weather())  # 13.2: Dry
    position.update(initial_works(module.scenario({"pbem": {"scenario": scenario}})))
    return {
        "pbem": {"scenario": scenario, "module": "proud-monster", "game": "bench-fullsize"},
        "parties": {"german": {}, "soviet": {}},
        "options": base["options"],
        "clock": {"turn": TURN, "pts": 1, "side": "german", "phase": "movement"},
        "position": position,
        "standing": {"soviet": {"loss_policy": "fewest-steps-first", "retreat": "never"}},
        "awaits": {"kind": "orders", "step": f"GT{TURN}/1/german", "from": ["german"], "adjudicator": "soviet"},
    }


def orders(layout: dict[str, Any]) -> dict[str, Any]:
    moves = []
    for ids, path in layout["ma"]:
        moves.append({"units": ids, "path": path, "assault": path[-1]})
    for ids, path, _ in layout["pa"]:
        moves.append({"units": ids, "path": path})
    for ids, path in layout["rear"]:
        moves.append({"units": ids, "path": path})
    attacks = [{"target": target, "units": ids} for ids, _, target in layout["pa"]]
    return {"move": moves, "attack": attacks,
            "standing": {"loss_policy": "fewest-steps-first", "retreat": "never"}}


def legal_orders(module: ProudMonster, state: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """Drop the orders the module finds a problem with, until none is left."""
    for _ in range(20):
        problems = module.check(state, Submission("orders", "german", body, "sha256:bench"))
        if not problems:
            return body
        bad: dict[str, set[int]] = {"move": set(), "attack": set()}
        for p in problems:
            for key in bad:
                if p.where.startswith(f"{key}["):
                    bad[key].add(int(p.where[len(key) + 1:p.where.index("]")]))
        if not any(bad.values()):
            raise SystemExit(f"problems not tied to one order: {problems[:5]}")
        body = {**body, **{k: [o for i, o in enumerate(body[k]) if i not in bad[k]] for k in bad}}
    raise SystemExit("the orders could not be made legal")


def median_cpu_time(fn: Any, repeat: int) -> float:
    """The median CPU time of the process over ``repeat`` calls (what the step costs, whatever else runs)."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


STANDING = {"loss_policy": "fewest-steps-first", "retreat": "never"}


def write_game(folder: Path) -> tuple[Path, Path, Path, str]:
    """A game folder of the synthetic scenario (written beside it, starting at GT3) as players make
    it: state 0, both joins, state 1 awaiting the German step, and the German's signed orders (those
    the module finds legal). Returns the state, the orders, the adjudicator's key file and a summary."""
    from pbem.exchange.files import dumps, write_all_new, write_new
    from pbem.exchange.game import (
        adjudicate,
        load_doc,
        load_state,
        make_join,
        new_game,
        order_header,
        sign_orders,
    )
    from pbem.exchange.keys import KeyPair, write_key_files
    from pbem.exchange.ledger import join_salt

    layout = write_scenario(folder / "scenario", first_turn=TURN)
    scenario = str(folder / "scenario" / "scenario.toml")
    keys = {s: KeyPair.from_seed(f"pbem bench fullsize {s}".encode()) for s in ("german", "soviet")}
    for side, pair in keys.items():
        write_key_files(pair, folder / side)
    game = folder / "game"
    game.mkdir()
    zero = new_game("proud-monster", scenario, {s: k.public_text for s, k in keys.items()}, None, keys["german"],
                    "bench-fullsize", {"ruleset": "full"})
    write_new(game / "0000.state.toml", dumps(zero))
    st = load_state(game / "0000.state.toml")
    joins = []
    for side, pair in keys.items():
        p = game / f"0000-{side}.join.toml"
        salt = join_salt(pair, st.digest, hashlib.sha256(f"pbem bench fullsize salt {side}".encode()).hexdigest()[:32])
        write_new(p, dumps(make_join(st, side, pair, STANDING, salt=salt)))
        joins.append(p)
    res = adjudicate(st, [load_doc(p, "orders") for p in joins], keys[str(st.data["awaits"]["adjudicator"])])
    write_all_new(res.outputs(folder=game))
    one = load_state(game / "0001.state.toml")
    module = ProudMonster()
    body = legal_orders(module, one.data, orders(layout))
    text = "\n".join(order_header(one.data, "german")) + "\n" + dumps(body)
    path = game / "0001-german.orders.toml"
    write_new(path, text)
    doc = load_doc(path, "orders")
    path.write_text(sign_orders(path, text, doc.data, keys["german"], one), encoding="utf-8")
    adj = str(one.data["awaits"]["adjudicator"])
    n_ma = sum(1 for m in body["move"] if "assault" in m)
    return (game / "0001.state.toml", path, folder / f"{adj}.key",
            f"{len(one.data['position']['units'])} units, {len(body['move'])} moves ({n_ma} with a mobile assault), "
            f"{len(body['attack'])} prepared assaults")


def command_rows(scales: list[float], repeat: int, tmp: Path) -> list[tuple[float, str, float, float, float, float, float, float]]:
    """`pbem adjudicate` of the step at each scale: (scale, summary, cold wall, cold CPU, warm wall,
    warm CPU, floor wall, floor CPU)."""
    from bench import floor_process, pbem_command, process_times

    rows = []
    for factor in scales:
        scale(factor)
        folder = tmp / f"x{factor}"
        folder.mkdir()
        state, orders_path, key, summary = write_game(folder)
        out = folder / "out"
        home = folder / "home"
        cmd = pbem_command("adjudicate", str(state), str(orders_path), "--key", str(key), "-o", str(out / "next.state.toml"),
                           "--report", str(out / "next.report.md"))

        def fresh_out(out: Path = out) -> None:
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()

        def cold(out: Path = out, home: Path = home) -> None:
            fresh_out(out)
            shutil.rmtree(home / "cache" / "content", ignore_errors=True)  # the compiled schemas stay

        env = {"PBEM_HOME": str(home)}
        cold_wall, cold_cpu = process_times(cmd, repeat, env, cold)
        warm_wall, warm_cpu = process_times(cmd, repeat, env, fresh_out)
        # the floor reads files it has not read before, the compiled schemas kept (as "cold")
        floor_wall, floor_cpu = process_times(floor_process([state, orders_path]), repeat, env,
                                              lambda home=home: shutil.rmtree(home / "cache" / "content", ignore_errors=True))
        rows.append((factor, summary, cold_wall, cold_cpu, warm_wall, warm_cpu, floor_wall, floor_cpu))
    scale(1)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scales", default="0.5,1,2", help="sizes of the position for the command, as factors of the full size")
    ap.add_argument("--keep", type=Path, help="write the scenario here instead of a scratch folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = command_rows([float(x) for x in args.scales.split(",")], args.repeat, Path(tmp))
        folder = (args.keep or Path(tmp)) / "bench-fullsize"
        layout = write_scenario(folder)
        scenario = str(folder / "scenario.toml")
        sc = load_scenario(scenario)
        data_problems = validate_scenario(sc)
        module = ProudMonster()
        state = build_state(module, scenario)
        body = legal_orders(module, state, orders(layout))
        n_ma = sum(1 for m in body["move"] if "assault" in m)
        german = sum(1 for u in sc.units.values() if u.side == "german")
        print(f"scenario: {len(sc.map.hexes)} hexes, {len(sc.units)} units ({german} German-side, "
              f"{len(sc.units) - german} Soviet), data problems {len(data_problems)}")
        print(f"legal orders: {len(body['move'])} moves ({n_ma} with a mobile assault), "
              f"{len(body['attack'])} prepared assaults")
        sub = Submission("orders", "german", body, "sha256:bench")

        def step() -> Any:
            return module.resolve(state, [sub], SeededDice(seed=b"pbem bench fullsize"))  # state is not changed

        t = step()
        kinds: dict[str, int] = {}
        for e in t.events:
            kinds[e.kind] = kinds.get(e.kind, 0) + 1
        print(f"step: {len(t.events)} events; awaits {t.state['awaits']['kind']}; "
              + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()) if k in
                          ("attack", "assault-end", "move-cancelled", "loss", "reveal", "supply")))
        t_step = median_time(step, args.repeat)
        t_cpu = median_cpu_time(step, args.repeat)

        ctx = module._ctx(state, None)  # the position at the start of the step: every unit on the map
        on_map = sorted(u for u in ctx.units if ctx.on_map(u))

        def trace() -> list[str]:
            ctx.supply_cache.clear()  # traced afresh, as at the start of a transition
            return supply.out_of_supply(ctx, on_map)

        t_supply = median_time(trace, args.repeat)
        oos = trace()

        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, load {load:.2f}, Python {platform.python_version()}")
        print(f"medians of {args.repeat} runs")
        print("  pbem adjudicate of the step, as a new process (CPU time of the process; wall time in brackets):")
        print(f"    {'size':<6} {'cold':>16} {'warm':>16} {'floor':>16} {'warm/floor':>10}  position")
        for factor, summary, cw, cc, ww, wc, fw, fc in rows:
            print(f"    {factor:<6g} {cc:>7.3f} s ({cw:5.2f}) {wc:>7.3f} s ({ww:5.2f}) {fc:>7.3f} s ({fw:5.2f}) {wc / fc:>10.1f}  {summary}")
        by = {r[0]: r for r in rows}
        if 1.0 in by:
            one = by[1.0]
            print(f"    at 1x: warm {one[5]:.3f} s CPU, target < {TARGET_STEP} s: {'met' if one[5] < TARGET_STEP else 'MISSED'}; "
                  f"{one[5] / one[7]:.1f}x the floor, target <= 10x: {'met' if one[5] / one[7] <= 10 else 'MISSED'}")
            for k in (0.5, 2.0):
                if k in by:
                    print(f"    growth {k:g}x / 1x (CPU): cold {by[k][3] / one[3]:.2f}, warm {by[k][5] / one[5]:.2f}"
                          + ("  target <= 2.5: " + ("met" if by[k][5] / one[5] <= 2.5 else "MISSED") if k == 2.0 else ""))
        print(f"  whole step adjudicated (resolve, in process): {t_step:.3f} s  target < {TARGET_STEP} s: "
              f"{'met' if t_step < TARGET_STEP else 'MISSED'}  (CPU time {t_cpu:.3f} s: on a shared machine the "
              "wall time also counts the time other work took the CPU)")
        print(f"  supply of all {len(on_map)} units on the map ({len(oos)} OOS): {t_supply:.3f} s  "
              f"target < {TARGET_STEP_SUPPLY} s: {'met' if t_supply < TARGET_STEP_SUPPLY else 'MISSED'}")


if __name__ == "__main__":
    main()
