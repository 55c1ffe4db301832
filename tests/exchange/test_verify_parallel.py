"""`pbem verify` replays transitions in parallel (chain.replays): the same result, and the same first
error, as a replay in one process."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


# --- a worker that dies ------------------------------------------------------------------------

@pytest.fixture
def deadline() -> object:
    """A test that would wait forever for a dead worker's result fails after a minute instead."""
    import signal

    def expired(_signum: int, _frame: object) -> None:
        raise TimeoutError("waited more than a minute: a result from a dead worker was waited for")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _killing(real: Callable[..., Any], dies: Callable[..., bool]) -> Callable[..., Any]:
    """``real``, but a worker process (not this one) dies on the spot where ``dies`` of the
    arguments is true: killed, as by the system when memory runs out."""
    import signal

    main = os.getpid()

    def fn(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() != main and dies(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return fn


def test_a_replay_worker_that_dies_leaves_its_work_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   deadline: object) -> None:
    game = _folder(tmp_path)
    one = _outcome(game, "1", monkeypatch)
    monkeypatch.setattr(chain.Chain, "transition", _killing(chain.Chain.transition,
                                                            lambda _self, _prev, cur, *a, **k: cur.path.name == "0005.state.toml"))
    assert _outcome(game, "2", monkeypatch) == one


def test_a_reading_worker_that_dies_leaves_its_files_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     deadline: object) -> None:
    game = _folder(tmp_path)
    one = _read(game, "1", monkeypatch)
    monkeypatch.setattr(chain, "load_doc", _killing(chain.load_doc, lambda path, *a, **k: path.name == "0004.state.toml"))
    assert _read(game, "2", monkeypatch) == one


def test_a_process_the_system_refuses_leaves_the_work_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit on processes (a container's): reading and replaying go on in one process."""
    game = _folder(tmp_path)
    one, verified = _read(game, "1", monkeypatch), _outcome(game, "1", monkeypatch)

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    assert _read(game, "2", monkeypatch) == one
    assert _outcome(game, "2", monkeypatch) == verified


def _read_in_a_daemon(game: str) -> object:
    os.environ[chain.JOBS_VARIABLE] = "2"
    os.environ["PBEM_NO_CACHE"] = "1"
    try:
        return [(str(d.path), d.digest) for d in chain.Chain.read([Path(game)]).docs]
    except BaseException as e:  # noqa: BLE001 - the test compares whatever came out
        return f"{type(e).__name__}: {e}"


def test_a_daemonic_process_reads_a_folder_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library caller's pool worker (daemonic: it may have no children) reads the folder itself."""
    import multiprocessing

    game = _folder(tmp_path)
    one = _read(game, "1", monkeypatch)
    assert isinstance(one, list)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_read_in_a_daemon, (str(game),)) == [(p, dg) for p, dg, _ in one]


def test_no_more_files_are_read_in_parallel_than_the_memory_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo the memory would drop to make room is read again here: only what fits is read by the
    workers, and this process parses only the rest."""
    from pbem.exchange import contentcache, files

    game = _folder(tmp_path)
    n = len(list(game.glob("*.toml")))
    monkeypatch.setattr(contentcache, "MEMORY_ENTRIES", chain.PRELOAD_FROM + 2)
    main, parsed_here = os.getpid(), []
    real = files._parse_toml

    def counting(raw: bytes, where: str) -> dict[str, object]:
        if os.getpid() == main:
            parsed_here.append(where)
        return real(raw, where)

    monkeypatch.setattr(files, "_parse_toml", counting)
    assert isinstance(_read(game, "2", monkeypatch), list)
    assert len(parsed_here) == n - (chain.PRELOAD_FROM + 2)
