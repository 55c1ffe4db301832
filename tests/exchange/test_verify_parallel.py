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


# --- files read in parallel (chain.preload) ----------------------------------------------------------

def _read(game: Path, jobs: str, monkeypatch: pytest.MonkeyPatch, quiet: bool = False) -> object:
    """What reading the folder gives, from nothing kept: each document's path, digest and data, or the error."""
    from pbem.exchange import contentcache

    contentcache.clear_memory()
    monkeypatch.setenv("PBEM_NO_CACHE", "1")
    monkeypatch.setenv(chain.JOBS_VARIABLE, jobs)
    try:
        read = chain.Chain.read([game], quiet=quiet)
    except PbemError as e:
        return type(e).__name__, e.message
    return [(str(d.path), d.digest, d.data) for d in read.docs]


def test_files_read_in_parallel_give_the_same_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.exchange import contentcache

    game = _folder(tmp_path)
    assert len(list(game.glob("*.toml"))) >= chain.PRELOAD_FROM
    one = _read(game, "1", monkeypatch)
    assert isinstance(one, list) and len(one) == len(list(game.glob("*.toml")))
    contentcache.clear_memory()
    adopted: list[str] = []
    real_adopt = contentcache.adopt
    monkeypatch.setattr(contentcache, "adopt", lambda fields: (adopted.append(fields[0]), real_adopt(fields)))
    assert _read(game, "2", monkeypatch) == one
    assert len(adopted) == len(one)  # every file was read by a worker, and taken from its memo here


def test_a_file_that_fails_in_a_worker_fails_in_order_as_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _folder(tmp_path)
    (game / "0003.state.toml").write_text("[pbem\nkind = 1\n", encoding="utf-8")  # not TOML
    bad_schema = sorted(game.glob("0005-*.toml"))[0]
    bad_schema.write_text(bad_schema.read_text(encoding="utf-8").replace('kind = "', 'kind = "x', 1), encoding="utf-8")
    one = _read(game, "1", monkeypatch)
    assert isinstance(one, tuple) and "0003.state.toml" in one[1] and "not valid TOML" in one[1]
    assert _read(game, "2", monkeypatch) == one
    quiet_one = _read(game, "1", monkeypatch, quiet=True)
    assert isinstance(quiet_one, list)
    assert not any(p.endswith(("0003.state.toml", bad_schema.name)) for p, _, _ in quiet_one)
    assert _read(game, "2", monkeypatch, quiet=True) == quiet_one


def test_a_folder_this_machine_has_read_is_not_read_in_parallel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.exchange import contentcache

    game = _folder(tmp_path)
    monkeypatch.setenv(chain.JOBS_VARIABLE, "2")
    chain.Chain.read([game])  # kept in memory
    forked: list[int] = []
    monkeypatch.setattr(chain.multiprocessing, "get_context", lambda *a: forked.append(1))
    again = chain.Chain.read([game])
    assert not forked and len(again.docs) == len(list(game.glob("*.toml")))
    contentcache.clear_memory()
