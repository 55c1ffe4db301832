"""pbem benchmark: timings as ratios to parsing, hashing and verifying the signatures of the same files.

    python benchmarks/bench.py [--repeat N] [--scenario campaign]

1. adjudicating the heaviest step of the bundled demo game (the transition that takes longest),
   against reading, hashing and seal-checking its state and order files;
2. `verify` of the demo's game folder, against reading, hashing and seal-checking every file in it;
3. drawing the whole training map with every unit as SVG, against reading, hashing and
   seal-checking the state drawn;
4. `pbem --help` start-up (a new process), against a new process that reads, hashes and checks the
   seal of the demo's last state.

Figures 1-3 also as the command a user runs (`pbem adjudicate`, `pbem verify`, `pbem show --svg`,
each a new process) against the floor as a new process: reading, validating, hashing and
seal-checking the same files, none read before (``floor_time``). `pbem adjudicate` four ways
(``cli_step_times``): pbem's first run on a machine, a machine that has read none of the game's
files, a player's machine as the step arrives (every file read before but the state and the order
files new to it), and again.

With ``--scenario campaign`` the same four figures for the largest bundled scenario: the golden
campaign (tests/games/proud_monster/golden/campaign/, GT1-GT12 on the full-size authored map) instead of the demo, the
whole campaign map instead of the training map.

Medians of N runs. Not a test: record the figures where they are needed (release notes, reviews).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pbem.demo import run_demo
from pbem.exchange.canonical import check_seal, digest
from pbem.exchange.chain import verify
from pbem.exchange.files import read_toml
from pbem.exchange.game import adjudicate, load_doc, load_state
from pbem.exchange.keys import KeyPair


def keep_bytecode() -> None:
    """New processes run as an installed pbem runs: with Python's compiled bytecode kept (pip
    compiles an installed package's modules; a source checkout keeps them in __pycache__ from the
    first run). Where PYTHONDONTWRITEBYTECODE is set, every new process would compile pbem's
    modules from source again (0.1-0.2 s), which no user of an installed pbem waits for: it is
    unset for the processes timed, and pbem's modules are compiled once here."""
    import compileall

    import pbem

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    compileall.compile_dir(str(Path(pbem.__file__).parent), quiet=1)


keep_bytecode()


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def baseline(paths: list[Path]) -> None:
    """Parse, hash and verify the seal of each file: the floor any command must pay."""
    for p in paths:
        data = read_toml(p)
        digest(data)
        if "seal" in data:
            check_seal(data, str(p))


FLOOR_PROBE = ("import sys; from pathlib import Path; from pbem.exchange.game import load_doc; "
               "from pbem.exchange.canonical import digest, check_seal\n"
               "for a in sys.argv[1:]:\n d = load_doc(Path(a)).data; digest(d)\n if 'seal' in d: check_seal(d, a)")


def floor_process(paths: list[Path]) -> list[str]:
    """The floor of a command, as a new process: read, validate, hash and check the seal of each file."""
    return [sys.executable, "-c", FLOOR_PROBE, *map(str, paths)]


def pbem_command(*args: str) -> list[str]:
    """The command a user runs, as a new process."""
    return [sys.executable, "-m", "pbem", *args]


def process_time(cmd: list[str], repeat: int, cwd: Path | None = None) -> float:
    return median_time(lambda: subprocess.run(cmd, check=True, capture_output=True, cwd=cwd), repeat)


def floor_time(paths: list[Path], repeat: int, cwd: Path | None = None) -> tuple[float, list[float]]:
    """The floor as a new process (``floor_process``), wall seconds: the median and every run. Each
    run reads files it has not read before (a $PBEM_HOME of its own, its content cache emptied
    before each run, untimed), with the compiled schemas kept (made by a first, untimed run), as on
    any machine that has run pbem once."""
    home = Path(tempfile.mkdtemp(prefix="pbem-bench-floor-"))
    env = {**os.environ, "PBEM_HOME": str(home)}
    cmd = floor_process(paths)
    try:
        subprocess.run(cmd, check=True, capture_output=True, cwd=cwd, env=env)
        times = []
        for _ in range(repeat):
            shutil.rmtree(home / "cache" / "content", ignore_errors=True)
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, cwd=cwd, env=env)
            times.append(time.perf_counter() - t)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return statistics.median(times), times


def child_cpu() -> float:
    """The CPU time (user and system) of the child processes waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def process_times(cmd: list[str], repeat: int, env: dict[str, str] | None = None,
                  before: Callable[[], object] | None = None) -> tuple[float, float]:
    """Medians of ``repeat`` runs of ``cmd`` as a new process: wall time, and CPU time of the
    process (getrusage of the children: what the command costs whatever else the machine runs).
    ``before`` runs ahead of each (untimed): it clears an output folder or a cache."""
    walls, cpus = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        c, t = child_cpu(), time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=None if env is None else {**os.environ, **env})
        walls.append(time.perf_counter() - t)
        cpus.append(child_cpu() - c)
    return statistics.median(walls), statistics.median(cpus)


def cli_step_times(game: Path, prev_path: Path, inputs: list[Path], key_dir: Path, tmp: Path,
                   repeat: int) -> list[tuple[str, float]]:
    """`pbem adjudicate` of the step from ``prev_path`` with ``inputs``, in a copy of the folder as it
    was then, four ways (wall seconds, medians; the set-up of each run untimed): pbem's first run
    on the machine (an empty $PBEM_HOME: the schemas compiled too); a machine that has read none of
    the game's files (the compiled schemas kept); the step arriving on a player's machine (every
    file read before but the state and the input files new to it: read by verifying the folder
    without them); and again (every file read before)."""
    shutil.rmtree(tmp, ignore_errors=True)
    work, out, homes = tmp / "step", tmp / "out", tmp / "homes"
    work.mkdir(parents=True)
    adj = load_state(prev_path).data["awaits"]["adjudicator"]
    n = int(prev_path.name[:4])
    for p in game.iterdir():  # the folder as it was when the step was adjudicated
        if p.name[:4].isdigit() and (int(p.name[:4]) < n or p == prev_path or p in inputs):
            (work / p.name).write_bytes(p.read_bytes())
    cmd = pbem_command("adjudicate", str(work / prev_path.name), *(str(work / p.name) for p in inputs),
                       "--key", str(key_dir / f"{adj}.key"), "-o", str(out / "next.state.toml"),
                       "--report", str(out / "next.report.md"))

    def fresh(cache: Path | None) -> Callable[[], None]:
        """Before a run: no output, and $PBEM_HOME a copy of ``cache`` (None: empty)."""
        def run() -> None:
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            shutil.rmtree(homes / "run", ignore_errors=True)
            if cache is None:
                (homes / "run").mkdir(parents=True)
            else:
                shutil.copytree(cache, homes / "run")
        return run

    history = tmp / "history"
    history.mkdir()
    for p in work.iterdir():
        if p.name != prev_path.name and p.name not in {i.name for i in inputs}:
            (history / p.name).write_bytes(p.read_bytes())
    subprocess.run(pbem_command("verify", "--quiet", str(history)), check=True, capture_output=True,
                   env={**os.environ, "PBEM_HOME": str(homes / "history")})
    shutil.copytree(homes / "history", homes / "schemas")
    shutil.rmtree(homes / "schemas" / "cache" / "content")
    run_env = {"PBEM_HOME": str(homes / "run")}
    out_rows = [(how, process_times(cmd, repeat, run_env, fresh(cache))[0])
                for how, cache in (("first run: empty $PBEM_HOME", None),
                                   ("no game file read before", homes / "schemas"),
                                   ("the history read before", homes / "history"))]
    fresh(None)()
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, **run_env})
    out_rows.append(("every file read before", process_times(cmd, repeat, run_env, lambda: (shutil.rmtree(out), out.mkdir()))[0]))
    return out_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--scenario", choices=("training", "campaign"), default="training")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.scenario == "campaign":  # the golden campaign, played by `pbem demo --scenario campaign --turns 12`
            game = Path(__file__).resolve().parent.parent / "tests" / "games" / "proud_monster" / "golden" / "campaign"
        else:
            game = run_demo(Path(tmp) / "demo", 2, lambda _line: None) / "game"
        keys = {s: KeyPair.from_seed(f"pbem demo {s}".encode()) for s in ("german", "soviet")}
        states = sorted(game.glob("*.state.toml"))
        rows = []

        # 1. the heaviest step
        heaviest = None
        for prev_path, cur_path in zip(states, states[1:], strict=False):
            prev = load_state(prev_path)
            cur = load_state(cur_path)
            inputs = [p for p in game.glob("*.toml") if not p.name.endswith(".state.toml")
                      and load_doc(p).digest in cur.data["pbem"]["inputs"]]
            adj = prev.data["awaits"]["adjudicator"]
            docs = [load_doc(p, "orders") for p in inputs]

            def step(prev: object = prev, docs: object = docs, adj: str = adj) -> None:
                adjudicate(prev, docs, keys[adj])  # type: ignore[arg-type]

            t = median_time(step, args.repeat)
            if heaviest is None or t > heaviest[0]:
                heaviest = (t, prev_path, inputs, step)
        assert heaviest is not None
        t_step, prev_path, inputs, _ = heaviest
        t_base = median_time(lambda: baseline([prev_path, *inputs]), args.repeat)
        rows.append((f"adjudicate heaviest step ({prev_path.name} + {', '.join(p.name for p in inputs)})", t_step, t_base))

        # 1b. the same step as the command a user runs, against the floor as a process; and the
        # game's last step, whose folder holds the longest history to check before a secret is revealed
        key_dir = Path(tmp) / "keys"
        key_dir.mkdir()
        from pbem.exchange.keys import write_key_files

        for side, pair in keys.items():
            write_key_files(pair, key_dir / side)
        last_inputs = [p for p in game.glob("*.toml") if not p.name.endswith(".state.toml")
                       and load_doc(p).digest in load_state(states[-1]).data["pbem"]["inputs"]]
        for what, step_prev, step_inputs in (("the same step", prev_path, inputs), (f"the last step ({states[-2].name})", states[-2], last_inputs)):
            t_floor = floor_time([step_prev, *step_inputs], args.repeat)[0]
            for how, t in cli_step_times(game, step_prev, step_inputs, key_dir, Path(tmp) / "cli", args.repeat):
                rows.append((f"pbem adjudicate, {what} (new process, {how})", t, t_floor))

        # 2. verify the folder
        files = sorted(p for p in game.iterdir() if p.suffix == ".toml")
        t_verify = median_time(lambda: verify([game]), args.repeat)
        t_base = median_time(lambda: baseline(files), args.repeat)
        rows.append((f"verify {args.scenario} folder ({len(states)} states, {len(files)} files)", t_verify, t_base))

        t_cli = process_time(pbem_command("verify", "--quiet", str(game)), max(1, args.repeat // 2))
        t_floor = floor_time(files, max(1, args.repeat // 2))[0]
        rows.append(("pbem verify, the same folder (new process)", t_cli, t_floor))

        # 3. the map picture of the largest bundled map with every unit (issue target: under 1 s)
        from pbem.games.proud_monster.data import load_scenario
        from pbem.games.proud_monster.picture import position_svg

        first = load_state(states[1]).data  # after the joins: every set-up unit on the map
        sc = load_scenario(args.scenario)
        t_pic = median_time(lambda: position_svg(sc, first, None), args.repeat)
        t_base = median_time(lambda: baseline([states[1]]), args.repeat)
        rows.append((f"map picture, whole {args.scenario} map ({len(sc.map.hexes)} hexes, all units)", t_pic, t_base))

        svg = Path(tmp) / "map.svg"

        def cli_show() -> None:
            svg.unlink(missing_ok=True)
            subprocess.run(pbem_command("show", str(states[1]), "--svg", str(svg)), check=True, capture_output=True)

        t_cli = median_time(cli_show, args.repeat)
        t_floor = floor_time([states[1]], args.repeat)[0]
        rows.append(("pbem show --svg, the same map (new process)", t_cli, t_floor))

        # 4. start-up
        def run(cmd: list[str]) -> None:
            subprocess.run(cmd, check=True, capture_output=True)

        pbem = [sys.executable, "-m", "pbem", "--help"]
        probe = [sys.executable, "-c",
                 "import sys; from pbem.exchange.files import read_toml; from pbem.exchange.canonical import digest, check_seal; "
                 f"d = read_toml(__import__('pathlib').Path({str(states[-1])!r})); digest(d); check_seal(d, 'x')"]
        t_help = median_time(lambda: run(pbem), args.repeat)
        t_base = median_time(lambda: run(probe), args.repeat)
        rows.append(("pbem --help start-up (new process)", t_help, t_base))

    print(f"{'what':<75} {'time':>10} {'baseline':>10} {'ratio':>7}")
    for what, t, b in rows:
        print(f"{what:<75} {t * 1000:>8.1f}ms {b * 1000:>8.1f}ms {t / b:>7.1f}")


if __name__ == "__main__":
    main()
