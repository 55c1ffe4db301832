"""Every game's rules catalog (tests/games/GAME/catalog/, format in tests/games/README.md), each case run
by the one runner of pbem/catalog.py: checked against schemas/case.schema.json, played through its
game's module, its shared expectations checked by the runner and its game's by the game's hooks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.catalog import case_files, check_case, run_case
from pbem.engine.registry import modules

CATALOGS = sorted(p / "catalog" for p in Path(__file__).parent.iterdir() if (p / "catalog").is_dir())
CASES = case_files(CATALOGS)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    result = run_case(path, catch=False)
    assert result.malformed == [], "\n".join(result.malformed)
    assert result.failures == [], "\n".join(result.failures)


def test_every_game_has_a_catalog_of_its_own_cases_only() -> None:
    games = {}
    for folder in CATALOGS:
        found = {check_case(p)[1].name for p in case_files([folder])}
        assert len(found) == 1, f"{folder}: the cases of one game, not {sorted(found)}"
        games[found.pop()] = folder
    assert sorted(games) == sorted(m.name for m in modules()), "a catalog for every game, one folder each"
    assert len(CASES) > 500
