"""The core names no game: no game, side or rule of one in the code, docstrings, comments and help
texts of pbem outside pbem/games/ (the registry, pbem/engine/registry.py, is the one place that
names the games, by module path), nor in the shared schemas (schemas/*.json; each game's schemas
are in its own folder). The protocol the core calls the games through (pbem/games/base.py) is
held to the same."""

from __future__ import annotations

import re
from pathlib import Path

from tests.paths import ROOT

PACKAGE = ROOT / "pbem"
REGISTRY = PACKAGE / "engine" / "registry.py"
PROTOCOL = (PACKAGE / "games" / "__init__.py", PACKAGE / "games" / "base.py")
WORDS = ("proud", "german", "soviet", "pm-", "skirmish", "crossroads", "sk-", "red steel", "red-steel", "red_steel", "redsteel",
         "kishinev", "axis", "europe", "engulfed")  # the games' names, sides, scenarios and id prefixes
FOUND = re.compile("|".join(re.escape(w) for w in WORDS), re.IGNORECASE)


def core_files() -> list[Path]:
    """Every file of the core: pbem/ but its games, the registry, bundled data and byte code; the
    games' protocol; the shared schemas."""
    out = []
    for p in sorted(PACKAGE.rglob("*")):
        rel = p.relative_to(PACKAGE).parts
        if not p.is_file() or p == REGISTRY or "__pycache__" in rel or rel[0] in ("games", "_data"):
            continue
        out.append(p)
    return out + list(PROTOCOL) + sorted((ROOT / "schemas").glob("*.json"))


def hits(paths: list[Path]) -> list[str]:
    """Each line naming a word of WORDS (any case), as ``file:line: text``."""
    out = []
    for p in paths:
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if FOUND.search(line):
                out.append(f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}:{n}: {line.strip()}")
    return out


def test_the_search_covers_the_core_and_finds_what_it_looks_for(tmp_path: Path) -> None:
    names = {p.relative_to(ROOT).as_posix() for p in core_files()}
    assert {"pbem/cli.py", "pbem/demo.py", "pbem/annotations.py", "pbem/exchange/game.py", "pbem/mechanics/odds.py",
            "pbem/view/places.py", "pbem/games/base.py", "schemas/state.schema.json", "schemas/orders.schema.json"} <= names
    assert not any(n.startswith(("pbem/games/proud_monster/", "schemas/proud-monster/")) for n in names)
    assert "pbem/engine/registry.py" not in names
    planted = tmp_path / "x.py"
    planted.write_text("ok\n# the SOVIET side\nid = 'PM-1'\nfine\n", encoding="utf-8")
    assert hits([planted]) == [f"{planted}:2: # the SOVIET side", f"{planted}:3: id = 'PM-1'"]


def test_the_core_and_the_shared_schemas_name_no_game() -> None:
    found = hits(core_files())
    assert found == [], "the core names a game, its sides or its ids:\n" + "\n".join(found)
