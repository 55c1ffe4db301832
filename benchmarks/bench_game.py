"""A game's benchmark: the heaviest step of a bundled scenario, as a ratio to the file floor.

    python benchmarks/bench_game.py --game red-steel [--turns N] [--repeat N] [--scenario kishinev]
    python benchmarks/bench_game.py --game europe-engulfed --scenario 1941-barbarossa

Plays the scenario with the built-in player (`pbem demo --game G --scenario S --turns N`),
then for every transition times `adjudicate` of its state and input files in this process, and for
the heaviest one also the command a user runs (`pbem adjudicate ...` as a new process), each
against the floor: reading, validating, hashing and seal-checking the same files (in process, and
in a new process that does only that). Also `pbem verify` of the whole folder against the floor of
all its files, and the whole-map picture.

Medians of N runs. Not a test: record the figures where they are needed (release notes, reviews).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import (  # type: ignore[import-not-found]  # benchmarks/bench.py, beside this script
    floor_time,
    median_time,
    pbem_command,
    process_time,
)

from pbem.demo import run_demo
from pbem.exchange.canonical import check_seal, digest
from pbem.exchange.chain import verify
from pbem.exchange.files import read_toml
from pbem.exchange.game import adjudicate, load_doc, load_state
from pbem.exchange.keys import KeyPair


def floor(paths: list[Path]) -> None:
    """Parse and validate (load_doc checks the schemas), hash and check the seal of each file."""
    for p in paths:
        doc = load_doc(p)
        digest(doc.data)
        if "seal" in doc.data:
            check_seal(doc.data, str(p))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="red-steel")
    ap.add_argument("--scenario", default="", help="default: the game's demo scenario")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from pbem.engine.registry import find_module

    module = find_module(args.game)
    scenario = args.scenario or module.demo_scenario()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = run_demo(Path(tmp) / "g", args.turns, lambda _line: None, scenario=scenario, game=module.name)
        played = time.perf_counter() - t0
        game = out / "game"
        keys = {s: KeyPair.from_seed(f"pbem demo {s}".encode()) for s in module.sides}
        states = sorted(game.glob("*.state.toml"))
        rows = []
        heaviest = None
        for prev_path, cur_path in zip(states, states[1:], strict=False):
            prev, cur = load_state(prev_path), read_toml(cur_path)
            inputs = sorted(p for p in game.glob("*.toml") if not p.name.endswith(".state.toml")
                            and load_doc(p).digest in cur["pbem"]["inputs"])
            adj = str(prev.data["awaits"]["adjudicator"])
            docs = [load_doc(p, "orders") for p in inputs]

            def step(prev: object = prev, docs: object = docs, adj: str = adj) -> None:
                adjudicate(prev, docs, keys[adj])  # type: ignore[arg-type]

            t = median_time(step, 1)
            if heaviest is None or t > heaviest[0]:
                heaviest = (t, prev_path, inputs, step, adj)
        assert heaviest is not None
        _, prev_path, inputs, step, adj = heaviest
        t_step = median_time(step, args.repeat)
        t_floor = median_time(lambda: floor([prev_path, *inputs]), args.repeat)
        what = f"{prev_path.name} + {', '.join(p.name for p in inputs)}"
        rows.append((f"adjudicate heaviest step, in process ({what})", t_step, t_floor))

        key_file = Path(tmp) / "g" / f"{adj}.key"
        work = Path(tmp) / "cli"
        work.mkdir()

        def cli_step() -> None:
            for p in work.iterdir():
                p.unlink()
            subprocess.run([sys.executable, "-m", "pbem", "adjudicate", str(prev_path), *map(str, inputs), "--key", str(key_file),
                            "-o", str(work / "next.state.toml"), "--report", str(work / "next.report.md")],
                           check=True, capture_output=True)

        probe = [sys.executable, "-c",
                 "import sys; from pathlib import Path; from pbem.exchange.game import load_doc; "
                 "from pbem.exchange.canonical import digest, check_seal\n"
                 "for a in sys.argv[1:]:\n d = load_doc(Path(a)).data; digest(d)\n if 'seal' in d: check_seal(d, a)",
                 str(prev_path), *map(str, inputs)]
        t_cli = median_time(cli_step, args.repeat)
        t_probe = median_time(lambda: subprocess.run(probe, check=True, capture_output=True), args.repeat)
        rows.append(("pbem adjudicate heaviest step, as a command (new process)", t_cli, t_probe))

        files = sorted(p for p in game.iterdir() if p.suffix == ".toml")
        t_verify = median_time(lambda: verify([game]), max(1, args.repeat // 2))
        t_all = median_time(lambda: floor(files), max(1, args.repeat // 2))
        rows.append((f"verify the folder ({len(states)} states, {len(files)} files)", t_verify, t_all))

        t_cli = process_time(pbem_command("verify", "--quiet", str(game)), max(1, args.repeat // 2))
        t_floor = floor_time(files, max(1, args.repeat // 2))[0]
        rows.append(("pbem verify the folder, as a command (new process)", t_cli, t_floor))

        last = load_state(states[-1]).data
        t_pic = median_time(lambda: module.render_svg(last, None), args.repeat)
        t_floor1 = median_time(lambda: floor([states[-1]]), args.repeat)
        rows.append(("whole-map picture of the last state", t_pic, t_floor1))

        svg = Path(tmp) / "map.svg"

        def cli_show() -> None:
            svg.unlink(missing_ok=True)
            subprocess.run(pbem_command("show", str(states[-1]), "--svg", str(svg)), check=True, capture_output=True)

        rows.append(("pbem show --svg of the last state, as a command (new process)", median_time(cli_show, args.repeat),
                     floor_time([states[-1]], args.repeat)[0]))

    print(f"{module.title}, {scenario}: {args.turns} game turn(s), {len(states)} states, played by the built-in player in {played:.1f} s")
    print(f"{'what':<90} {'time':>10} {'floor':>10} {'ratio':>7}")
    for what, t, b in rows:
        print(f"{what:<90} {t * 1000:>8.1f}ms {b * 1000:>8.1f}ms {t / b:>7.1f}")


if __name__ == "__main__":
    main()
