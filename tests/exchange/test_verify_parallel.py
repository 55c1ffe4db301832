"""`pbem verify` replays transitions in parallel (chain.replays): the same result, and the same first
error, as a replay in one process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.errors import PbemError
from pbem.exchange import chain
from pbem.exchange.chain import verify
from tests.paths import ROOT

CAMPAIGN = ROOT / "tests" / "games" / "proud_monster" / "golden" / "campaign"
LAST = 12  # states 0000-0012: more transitions than chain.PARALLEL_FROM


def _folder(tmp_path: Path) -> Path:
    game = tmp_path / "game"
    game.mkdir()
    for p in CAMPAIGN.iterdir():
        n = int(p.name[:4])
        if n < LAST or (n == LAST and (p.name.endswith(".state.toml") or p.name.endswith(".report.md"))):
            shutil.copyfile(p, game / p.name)
    return game


def _outcome(game: Path, jobs: str, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv(chain.JOBS_VARIABLE, jobs)
    try:
        res = verify([game])
    except PbemError as e:
        return type(e).__name__, e.message
    return vars(res)


def test_parallel_replay_gives_the_same_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert LAST >= chain.PARALLEL_FROM
    game = _folder(tmp_path)
    one = _outcome(game, "1", monkeypatch)
    assert isinstance(one, dict) and one["transitions"] == LAST and one["reports"] == LAST
    assert _outcome(game, "2", monkeypatch) == one


def test_the_first_failure_is_reported_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two changed reports, the later one likely replayed first by a worker: the earlier is named,
    as in one process."""
    game = _folder(tmp_path)
    for n in (4, 10):
        p = game / f"{n:04d}.report.md"
        p.write_text(p.read_text(encoding="utf-8") + "\nchanged\n", encoding="utf-8")
    one = _outcome(game, "1", monkeypatch)
    assert isinstance(one, tuple) and "0004.report.md" in one[1]
    assert _outcome(game, "2", monkeypatch) == one
