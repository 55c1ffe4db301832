"""Regenerate the golden game (tests/golden/demo/) after a deliberate change of output.

    python tools/regen_golden.py

The golden game is `pbem demo --out ...`; tests/test_golden.py compares a fresh run with it byte
for byte. The example game repository's game (examples/git-game/games/demo/) is the same game;
tests/test_git_ci.py checks that it is.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from pbem.demo import run_demo

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "demo"
EXAMPLE = ROOT / "examples" / "git-game" / "games" / "demo"
DOCS = ROOT / "docs"
README_PICTURE = "0002.turn.svg"  # the German GT1 player turn, shown in the README


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = run_demo(Path(tmp) / "demo", 2, lambda _line: None)
        for dest in (GOLDEN, EXAMPLE):
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(out / "game", dest)
    shutil.copyfile(GOLDEN / README_PICTURE, DOCS / "demo-turn.svg")
    print(f"wrote {GOLDEN}, {EXAMPLE} and {DOCS / 'demo-turn.svg'}")


if __name__ == "__main__":
    main()
