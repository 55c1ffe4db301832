"""The cache of files by content (pbem/exchange/contentcache.py), as an adversary sees it: a
poisoned cache file, a cache of another version, a file changed with the same size and time, two
processes writing at once. Each test fails if its defence is taken out."""

from __future__ import annotations

import hashlib
import marshal
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import PbemError, TamperError
from pbem.exchange import contentcache
from pbem.exchange.files import read_toml
from pbem.exchange.game import load_doc, load_state
from tests.conftest import Game


@pytest.fixture(autouse=True)
def fresh_memory() -> Any:
    """Each test starts with nothing kept in memory: what it reads comes from the file or the folder."""
    contentcache.clear_memory()
    yield
    contentcache.clear_memory()


def entry_path(raw: bytes) -> Path:
    """Where the cache keeps the memo of these bytes."""
    folder = contentcache._folder()
    assert folder is not None
    raw_digest = hashlib.sha256(raw).hexdigest()
    key = hashlib.sha256(f"{contentcache.FORMAT}\0{contentcache.environment()}\0{raw_digest}".encode()).hexdigest()
    return folder / key


def forged_entry(raw: bytes, data: dict[str, Any], passed: list[str], env: str | None = None) -> bytes:
    """A whole, well-formed entry that says ``raw`` parses to ``data`` and passed ``passed``."""
    payload = marshal.dumps({"format": contentcache.FORMAT, "env": env or contentcache.environment(),
                             "raw": hashlib.sha256(raw).hexdigest(), "data": marshal.dumps(data), "digest": None,
                             "passed": passed})
    return hashlib.sha256(payload).digest() + payload


def forge(path: Path, raw: bytes, data: dict[str, Any], passed: list[str], env: str | None = None) -> None:
    """``forged_entry`` written at ``path``, private to this user."""
    path.unlink(missing_ok=True)
    path.write_bytes(forged_entry(raw, data, passed, env))
    path.chmod(0o600)


def poisoned(state: Path) -> tuple[bytes, dict[str, Any]]:
    """The bytes of a state and a forged reading of them: a unit with one step less."""
    raw = state.read_bytes()
    data = read_toml(state)
    unit = sorted(data["position"]["units"])[0]
    data["position"]["units"][unit]["steps"] = int(data["position"]["units"][unit]["steps"]) + 7
    return raw, data


def test_a_kept_file_reads_alike_and_is_not_shared(game: Game) -> None:
    path = game.state_path
    first = load_state(path)
    contentcache.flush()
    assert entry_path(path.read_bytes()).is_file()
    contentcache.clear_memory()
    again = load_state(path)  # from the folder
    assert again.data == first.data and again.digest == first.digest
    again.data["position"]["units"].clear()  # a reader's copy is its own
    assert load_state(path).data == first.data


@pytest.mark.parametrize("how", ["writable by others", "folder writable by others", "a link"])
def test_a_poisoned_entry_is_not_used(game: Game, how: str) -> None:
    path = game.state_path
    load_state(path)  # kept
    contentcache.flush()
    raw, forged = poisoned(path)
    entry = entry_path(raw)
    if how == "a link":
        elsewhere = entry.parent.parent / "forged"
        forge(elsewhere, raw, forged, ["doc:state"])
        entry.unlink()
        entry.symlink_to(elsewhere)
    else:
        forge(entry, raw, forged, ["doc:state"])
        if how == "writable by others":
            entry.chmod(0o666)
        else:
            entry.parent.chmod(0o777)
    contentcache.clear_memory()
    try:
        assert load_state(path).data == read_toml_uncached(path)
    finally:
        entry.parent.chmod(0o700)


def read_toml_uncached(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_a_forged_entry_of_this_user_is_trusted_only_as_far_as_its_own_digest(game: Game) -> None:
    """A damaged entry (a byte changed, cut short) is not used: its digest no longer matches."""
    path = game.state_path
    load_state(path)
    contentcache.flush()
    entry = entry_path(path.read_bytes())
    good = entry.read_bytes()
    i = good.index(b"phase", 32)  # a byte of the data: marshal still reads it, as other data
    for damaged in (good[:-10], good[:i] + bytes([good[i] ^ 1]) + good[i + 1:]):
        entry.unlink()
        entry.write_bytes(damaged)
        entry.chmod(0o600)
        contentcache.clear_memory()
        assert load_state(path).data == read_toml_uncached(path)


def test_a_cache_of_another_version_is_not_used(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    path = game.state_path
    raw, forged = poisoned(path)
    with monkeypatch.context() as m:
        m.setattr(contentcache, "__version__", "0.0.1")
        contentcache.clear_memory()
        old_env = contentcache.environment()
        old_entry = entry_path(raw)
        old_entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        forge(old_entry, raw, forged, ["doc:state"], env=old_env)  # what another version kept
    contentcache.clear_memory()
    assert contentcache.environment() != old_env
    assert load_state(path).data == read_toml_uncached(path)  # another name: not looked at
    # the other version's entry put under this version's name: it names its own environment
    entry = entry_path(raw)
    entry.unlink()
    entry.write_bytes(old_entry.read_bytes())
    entry.chmod(0o600)
    contentcache.clear_memory()
    assert load_state(path).data == read_toml_uncached(path)


def test_an_entry_names_the_bytes_it_was_made_from(game: Game) -> None:
    """An entry copied under the name of other bytes (same environment) is not used for them."""
    path = game.state_path
    zero = game.folder / "0000.state.toml"
    load_state(zero)
    contentcache.flush()
    raw = path.read_bytes()
    entry = entry_path(raw)
    entry.unlink(missing_ok=True)
    entry.write_bytes(entry_path(zero.read_bytes()).read_bytes())
    entry.chmod(0o600)
    contentcache.clear_memory()
    assert load_state(path).data == read_toml_uncached(path)


def test_a_file_changed_with_the_same_size_and_time_is_read_again(game: Game) -> None:
    path = game.state_path
    load_state(path)
    st = os.stat(path)
    raw = path.read_bytes()
    i = raw.index(b'steps = ') + len(b'steps = ')
    changed = raw[:i] + (b"3" if raw[i:i + 1] != b"3" else b"2") + raw[i + 1:]
    assert len(changed) == len(raw)
    path.write_bytes(changed)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    with pytest.raises(TamperError):  # its seal no longer matches: the change is seen
        load_state(path)


def test_a_check_that_failed_is_not_kept(game: Game) -> None:
    path = game.state_path
    raw = path.read_bytes()
    i = raw.index(b'steps = ') + len(b'steps = ')
    path.write_bytes(raw[:i] + b"9" + raw[i + 1:])
    for _ in range(2):
        with pytest.raises(TamperError):
            load_state(path)
        contentcache.clear_memory()


def test_the_game_data_is_part_of_a_state_verdict(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """A state found consistent with one scenario's data is checked again with other data."""
    from pbem.games.proud_monster.module import ProudMonster

    path = game.state_path
    load_state(path)
    checked: list[str] = []
    real = ProudMonster.check_state

    def spy(self: ProudMonster, state: dict[str, Any]) -> Any:
        checked.append(str(state["pbem"]["sequence"]))
        return real(self, state)

    monkeypatch.setattr(ProudMonster, "check_state", spy)
    contentcache.clear_memory()
    load_state(path)
    assert checked == []  # the same bytes, the same data: not checked again
    monkeypatch.setattr(ProudMonster, "data_digest", lambda self, scenario: "sha256:" + "0" * 64)
    load_state(path)
    assert checked == [str(load_state(path).data["pbem"]["sequence"])]


def _hammer(args: tuple[str, str, int]) -> list[str]:
    """A process reading a state again and again with its memory cleared, as another writes it."""
    home, path, n = args
    os.environ["PBEM_HOME"] = home
    seen = set()
    for _ in range(n):
        contentcache.clear_memory()
        try:
            seen.add(load_doc(Path(path), "state").digest)
        except PbemError as e:
            seen.add(f"error: {e.message}")
    return sorted(seen)


def test_processes_writing_one_entry_at_once(game: Game, pbem_home: Path) -> None:
    path = game.state_path
    expected = load_state(path).digest
    contentcache.flush()
    folder = contentcache._folder()
    assert folder is not None
    for p in folder.iterdir():
        p.unlink()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.map(_hammer, [(str(pbem_home), str(path), 15)] * 4)
    assert all(r == [expected] for r in results), results
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []
    contentcache.clear_memory()
    assert load_state(path).digest == expected
    contentcache.flush()
    raw = entry_path(path.read_bytes()).read_bytes()
    assert hashlib.sha256(raw[32:]).digest() == raw[:32]
