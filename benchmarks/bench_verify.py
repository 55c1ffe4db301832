"""pbem benchmark: `pbem verify` of a long game at campaign scale (at least 200 transitions).

    python benchmarks/bench_verify.py [--game campaign|pm-campaign|lanes] [--repeat N] [--keep DIR]

The games, each built deterministically (fixed keys, salts and game id: the same files and dice on
every machine):

- ``campaign`` (the default): Europe Engulfed's grand campaign (scenario ``1939``, the whole
  European map and every nation's forces) played by the built-in player for CAMPAIGN_TURNS game
  turns, as `pbem demo --game europe-engulfed --scenario 1939 --turns N` plays it: well over 200
  transitions, each state 60-110 KB.
- ``pm-campaign``: Proud Monster's golden campaign (tests/games/proud_monster/golden/campaign,
  GT1-GT12 of the full game on the full-size map, 74 transitions: the scenario ends there); the
  figure per transition gives the time for 200.
- ``lanes``: a small Proud Monster scenario of LANES separate fronts, each a German stack facing a
  Soviet stack, with reinforcements every game turn; every player turn attacks on every front with
  no loss orders, so each combat whose losses can be taken more than one way awaits a reply (about
  230 transitions of small states: the cost of a transition apart from the size of the position).

It times `verify` in-process (pbem.exchange.chain.verify, after one untimed run) and as the command
a user runs (`pbem verify --quiet`, a new process, which replays on every processor: $PBEM_JOBS),
on a machine that has read none of the files (a CI runner; the compiled schemas kept) and with the
files read before, against the floor as a new process (reading, validating, hashing and
seal-checking every file, none read before), medians of N runs, and prints the figures. Not a test: record the figures where they
are needed.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import floor_time  # type: ignore[import-not-found]  # benchmarks/bench.py, beside this script: new processes keep bytecode

from pbem.demo import demo_salt, order_text, run_demo
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_all_new, write_new
from pbem.exchange.game import Doc, adjudicate, load_doc, load_state, make_join, new_game, sign_orders
from pbem.exchange.keys import KeyPair
from pbem.games.proud_monster.rules.combat.losses import default_losses
from pbem.resources import scenarios_dir

GAME_ID = "pm-bench-long-game"
SCENARIO = "long-game/scenario.toml"  # relative to the scratch folder: the same state bytes everywhere
LANES = 8
SOVIET_PER_LANE = 5  # the stacking limit (6.1)
GERMAN_PER_LANE = 3
SOVIET_REINFORCEMENTS = 3  # per front and game turn; one German
MIN_TRANSITIONS = 200
CAMPAIGN_TURNS = 32  # Europe Engulfed 1939, Sep/Oct 1939 to Jul/Aug 1945: 200 transitions and more
PM_CAMPAIGN = Path(__file__).resolve().parent.parent / "tests" / "games" / "proud_monster" / "golden" / "campaign"


def quoted(items: list[str]) -> str:
    return ", ".join(f'"{x}"' for x in items)


def lane_hexes(lane: int) -> tuple[str, str]:
    """The German and the Soviet hex of a front: 10RR and 11RR touch (10 is even: column 11 rows
    RR-1 and RR); fronts three rows apart touch nothing else."""
    row = 2 + 3 * lane
    return f"10{row:02d}N", f"11{row:02d}N"


def write_scenario(folder: Path) -> None:
    """The long game's scenario: map, counters, set-up and reinforcements; the bundled charts."""
    folder.mkdir(parents=True)
    shutil.copyfile(scenarios_dir() / "proud-monster" / "charts.toml", folder / "charts.toml")
    hexes = []
    for lane in range(LANES):
        g, s = lane_hexes(lane)
        hexes += [f'"{g}" = {{ t = "clear" }}', f'"{s}" = {{ t = "clear" }}']
    (folder / "map.toml").write_text(
        '[map]\nid = "pm-bench"\ntitle = "Benchmark fronts (authored)"\nauthored = true\nconnected = false\n'
        'note = "Separate fronts for the verify benchmark."\n\n[hexes]\n' + "\n".join(sorted(hexes)) + "\n",
        encoding="utf-8")
    units = ['[units]\nprovisional = true\nnote = "Benchmark counters."\n']
    setup: list[str] = []
    reinf: list[str] = []

    def unit(uid: str, side: str, values: list[str], kind: str) -> None:
        units.append(f'[[unit]]\nid = "{uid}"\nside = "{side}"\nnat = "{side}"\ntype = "{kind}"\nsize = "XX"\n'
                     f"steps = {len(values)}\nvalues = [{quoted(values)}]\n")

    for lane in range(LANES):
        g, s = lane_hexes(lane)
        for k in range(GERMAN_PER_LANE):
            uid = f"G{lane}x{k}"
            unit(uid, "german", ["8-6-8", "6-5-8", "4-3-8", "2-2-8"], "tank")
            setup.append(f'[[setup]]\nunit = "{uid}"\nhex = "{g}"\n')
        for k in range(SOVIET_PER_LANE):
            uid = f"S{lane}x{k}"
            unit(uid, "soviet", ["4-4-4"], "infantry")
            setup.append(f'[[setup]]\nunit = "{uid}"\nhex = "{s}"\n')
        for turn in range(2, 13):
            for k in range(SOVIET_REINFORCEMENTS):
                uid = f"S{lane}t{turn}x{k}"
                unit(uid, "soviet", ["4-4-4"], "infantry")
                reinf.append(f'[[reinforcement]]\nturn = {turn}\nunit = "{uid}"\nhex = "{s}"\n')
            uid = f"G{lane}t{turn}"
            unit(uid, "german", ["8-6-8", "6-5-8", "4-3-8", "2-2-8"], "tank")
            reinf.append(f'[[reinforcement]]\nturn = {turn}\nunit = "{uid}"\nhex = "{g}"\n')
    (folder / "units.toml").write_text("\n".join(units), encoding="utf-8")
    (folder / "scenario.toml").write_text(
        '[scenario]\nid = "bench-long-game"\ngame = "proud-monster"\ntitle = "Verify benchmark: a long game"\n'
        'ruleset = "basic"\nfirst_turn = 1\nlast_turn = 12\nmap = "map.toml"\nunits = "units.toml"\n'
        'charts = "charts.toml"\nfree_setup = true\n\n' + "\n".join(setup) + "\n" + "\n".join(reinf),
        encoding="utf-8")


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def orders_for(state: dict[str, Any]) -> str:
    """Attack on every front where both stacks stand, with every unit, leaving every loss to the
    owner: no loss order, no standing instructions."""
    aw = state["awaits"]
    side = aw["from"][0]
    if aw["kind"] == "reply":
        return f"\n[reply]\nlosses = [{quoted(default_losses(state['pending']['question']))}]\n"
    units = state["position"]["units"]
    body = []
    for lane in range(LANES):
        g, s = lane_hexes(lane)
        own, enemy = (g, s) if side == "german" else (s, g)
        mine = sorted(u for u, v in units.items() if v["at"] == own)
        theirs = [u for u, v in units.items() if v["at"] == enemy]
        if mine and theirs:
            body.append(f'[[attack]]\ntarget = "{enemy}"\nunits = [{quoted(mine)}]\n')
    return "\n" + "\n".join(body) if body else "\n# no attack possible\n"


def build_long_game(root: Path, echo: Callable[[str], None] = lambda _l: None) -> Path:
    """Write the scenario into ROOT/long-game and play the game into ROOT/game; return that folder.
    Paths in the game are relative to ROOT: run pbem there."""
    keys = {s: KeyPair.from_seed(f"pbem bench {s}".encode()) for s in ("german", "soviet")}
    write_scenario(root / "long-game")
    game = root / "game"
    game.mkdir()
    with chdir(root):
        state = new_game("proud-monster", SCENARIO, {s: k.public_text for s, k in keys.items()}, None, keys["german"], GAME_ID, {})
        write_new(game / "0000.state.toml", dumps(state))
        st = load_state(game / "0000.state.toml")
        joins = []
        for side in ("german", "soviet"):
            p = game / f"0000-{side}.join.toml"
            write_new(p, dumps(make_join(st, side, keys[side], salt=demo_salt(side))))
            joins.append(p)
        st = _adjudicate(game, st, joins, keys)
        while st.data["awaits"]["kind"] != "none":
            aw = st.data["awaits"]
            side = aw["from"][0]
            seq = int(st.data["pbem"]["sequence"])
            p = game / f"{seq:04d}-{side}.{aw['kind']}.toml"
            write_new(p, order_text(st.data, side, orders_for(st.data)))
            d = load_doc(p, "orders")
            p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), d.data, keys[side], st), encoding="utf-8")
            st = _adjudicate(game, st, [p], keys)
            if seq % 25 == 0:
                echo(f"  built {seq + 1} transitions ({aw['step']})")
    return game


def _adjudicate(game: Path, st: Doc, inputs: list[Path], keys: dict[str, KeyPair]) -> Doc:
    res = adjudicate(st, [load_doc(p, "orders") for p in inputs], keys[st.data["awaits"]["adjudicator"]])
    files = res.outputs(folder=game)
    write_all_new(files)
    return load_state(files[0][0])


def median_time(fn: Callable[[], object], repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def build(kind: str, root: Path) -> tuple[Path, Path]:
    """The game ``kind`` built (or copied) under ``root``: its folder, and the folder to run pbem in."""
    if kind == "lanes":
        return build_long_game(root, print), root
    if kind == "pm-campaign":
        game = root / "game"
        shutil.copytree(PM_CAMPAIGN, game)
        return game, root
    run_demo(root / "demo", CAMPAIGN_TURNS, lambda _line: None, scenario="1939", auto=True, game="europe-engulfed")
    return root / "demo" / "game", root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("campaign", "pm-campaign", "lanes"), default="campaign")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="Build the game in this (new) folder and keep it.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        game, cwd = build(args.game, root)
        built = time.perf_counter() - t
        states = len(list(game.glob("*.state.toml")))
        n = states - 1
        size = sum(p.stat().st_size for p in game.glob("*.state.toml")) / states / 1024
        print(f"{args.game}: {n} transitions, states of {size:.0f} KB on average, built in {built:.1f} s in {game}")
        if args.game != "pm-campaign" and n < MIN_TRANSITIONS:
            sys.exit(f"only {n} transitions: the benchmark needs at least {MIN_TRANSITIONS}")
        rel = game.relative_to(cwd)

        with chdir(cwd):
            res = verify([rel])
            assert res.transitions == n, res
            t_lib, runs = median_time(lambda: verify([rel]), args.repeat)
        pbem = Path(sys.executable).with_name("pbem")
        cmd = [str(pbem)] if pbem.exists() else [sys.executable, "-m", "pbem.cli"]
        home = Path(tmp) / "home"

        def cli(cold: bool) -> tuple[float, list[float]]:
            """`pbem verify --quiet` as a new process, medians of the runs; ``cold``: no game file read
            before (the content cache emptied before each run, untimed; the compiled schemas kept)."""
            if not home.exists():  # a first run, untimed: the schemas compiled
                home.mkdir()
                subprocess.run([*cmd, "verify", "--quiet", str(rel)], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                               env={**os.environ, "PBEM_HOME": str(home)})
            times = []
            for _ in range(args.repeat):
                if cold:
                    shutil.rmtree(home / "cache" / "content", ignore_errors=True)
                t = time.perf_counter()
                subprocess.run([*cmd, "verify", "--quiet", str(rel)], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                               env={**os.environ, "PBEM_HOME": str(home)})
                times.append(time.perf_counter() - t)
            return statistics.median(times), times

        t_cold, cold_runs = cli(True)
        t_warm, warm_runs = cli(False)
        files = sorted(p for p in game.iterdir() if p.suffix == ".toml")
        t_floor, floor_runs = floor_time(files, args.repeat, cwd)
        print(f"machine: {platform.machine()}, {os.cpu_count()} CPU(s), {platform.processor() or platform.platform()}, "
              f"Python {platform.python_version()}")
        print(f"{'what':<58} {'median s':>9} {'per transition ms':>18} {'200 transitions s':>18}  runs")
        for what, med, all_runs in (("verify (in-process, pbem.exchange.chain)", t_lib, runs),
                                    ("pbem verify --quiet (new process, no file read before)", t_cold, cold_runs),
                                    ("pbem verify --quiet (new process, files read before)", t_warm, warm_runs),
                                    ("floor: read, validate, hash, seals (new process)", t_floor, floor_runs)):
            print(f"{what:<58} {med:>9.2f} {1000 * med / n:>18.1f} {200 * med / n:>18.1f}  "
                  + " ".join(f"{x:.2f}" for x in all_runs))


if __name__ == "__main__":
    main()
