"""Regenerate the golden game (tests/golden/demo/) after a deliberate change of output.

    python tools/regen_golden.py

The golden game is `pbem demo --out ...`; tests/test_golden.py compares a fresh run with it byte
for byte.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from pbem.demo import run_demo

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "demo"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = run_demo(Path(tmp) / "demo", 2, lambda _line: None)
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        shutil.copytree(out / "game", GOLDEN)
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
