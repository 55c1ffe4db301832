"""pbem benchmark: `pbem site` of the golden campaign (75 states, GT1-GT12), as a ratio to
`pbem verify` of the same folder.

    python benchmarks/bench_site.py [--repeat N] [--folder FOLDER]

Building a site replays every transition as `pbem verify` does (its events draw the turn
pictures), then draws a picture per state, converts the reports and writes the files; the ratio
says what the site adds to the verification. Both are timed in-process, as the CPU time of this
process (the wall clock of a shared machine says more about its neighbours), medians of N runs.
Not a test: record the figures where they are needed.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pbem.exchange.chain import verify
from pbem.site.build import build

ROOT = Path(__file__).resolve().parent.parent
CAMPAIGN = ROOT / "tests" / "games" / "proud_monster" / "golden" / "campaign"


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median CPU and wall-clock seconds of ``repeat`` runs of ``fn``."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=CAMPAIGN)
    args = ap.parse_args()
    folder = args.folder
    states = len(list(folder.glob("*.state.toml")))
    print(f"pbem site benchmark: {folder.name}, {states} states; Python {platform.python_version()} on {platform.machine()}")
    v_cpu, v_wall = timed(lambda: verify([folder]), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        s_cpu, s_wall = timed(lambda: build(folder, out), args.repeat)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        files = sum(1 for p in out.rglob("*") if p.is_file())
    print(f"pbem verify: {v_cpu:.2f} s CPU ({v_wall:.2f} s wall)")
    print(f"pbem site:   {s_cpu:.2f} s CPU ({s_wall:.2f} s wall); {files} files, {size / 1e6:.1f} MB")
    print(f"ratio site / verify: {s_cpu / v_cpu:.2f} (CPU), {s_wall / v_wall:.2f} (wall)")


if __name__ == "__main__":
    main()
