"""Files read, parsed and checked once per content: a cache keyed by the SHA-256 of a file's bytes.

A command reads many files that an earlier command read already (`pbem adjudicate` reads the whole
game folder before it reveals a secret; every command reads the scenario's data). What a file's
bytes determine is worked out once and kept under the digest of those bytes:

- the parsed TOML (kept as ``marshal`` data: plain dicts, lists, strings, integers and booleans);
- the document digest of that data;
- the checks it passed (``Memo.record``): each a tag naming the check and anything else the
  verdict depends on (a schema's name; a state's game data, by the game's data digest).

A failed check is never kept: the file is checked again, and its errors are said again, each time.

Within a process the entries are kept in memory; between processes in the cache folder
(``privatedir.cache_dir()``: ``$PBEM_HOME/cache``, else ``$XDG_CACHE_HOME/pbem``, else
``~/.cache/pbem``), under ``content/``. An entry's name is the SHA-256 of the file's bytes and of
everything else a verdict may depend on (``environment()``: this format, pbem's version, the size
and time of each of pbem's source files, the digest of every schema, the Python version, and the
game modules registered, the versions of the libraries that judge: fastjsonschema, jsonschema,
cryptography), and the entry repeats both inside it with a digest of its own content. An entry is
used only if the folders and the file are this user's, are not links and no one else can write
them, the file has no other name (privatedir.py), and it is whole and names the same bytes and
environment; anything else is ignored and written again. So a changed file is another entry (its content, not its size or time, is the key),
a cache from another version or other schemas is not looked at, and two processes writing one entry
at once each write a whole file under a temporary name and rename it. Deleting the folder loses
nothing but time. ``PBEM_NO_CACHE=1`` turns the folder off (the in-memory cache stays). The folder
is kept under ``DISK_BYTES`` (the least recently used entries go first), the memory under
``MEMORY_ENTRIES`` and ``MEMORY_BYTES``.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
from pathlib import Path
from typing import Any

from pbem import __version__

from . import privatedir

FORMAT = "pbem-content-1"  # changes when an entry's layout or the meaning of a tag does
OFF_ENV = privatedir.OFF_ENV
MEMORY_ENTRIES = 4096  # entries kept in a process (a campaign folder has about 250 files)
MEMORY_BYTES = 256 * 1024 * 1024  # and their parsed data, at most (a mailbox of large files)
DISK_BYTES = 512 * 1024 * 1024  # the folder, at most (a campaign's entries take about 30 MB)
ENTRY_LIMIT = 64 * 1024 * 1024  # bytes of an entry read
JUDGES = ("fastjsonschema", "jsonschema", "cryptography")  # libraries whose verdicts are kept
_HEAD = 32  # an entry file: the SHA-256 of the rest, then the marshal data

_memory: dict[str, Memo] = {}
_memory_bytes = 0
_environment: dict[tuple[str, str], str] = {}
_dirty: dict[str, Memo] = {}  # memos to write to the folder
_flush_registered = False


def _tree_digest(root: Path, suffix: str, content: bool) -> str:
    """The digest of the files under ``root`` ending in ``suffix``: their names with their bytes
    (``content``) or their size and modification time (pbem's own source: any edit changes them)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob(f"*{suffix}")):
        h.update(str(p.relative_to(root)).encode("utf-8", "surrogateescape") + b"\0")
        if content:
            h.update(p.read_bytes())
        else:
            st = p.stat()
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        h.update(b"\0")
    return h.hexdigest()


def _versions() -> dict[str, str]:
    import importlib.metadata as metadata

    out = {}
    for name in JUDGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def environment() -> str:
    """The digest of everything besides a file's bytes that a kept verdict depends on."""
    from pbem.engine.registry import fingerprint
    from pbem.resources import schemas_dir

    schemas = schemas_dir()
    key = (str(schemas), fingerprint())
    found = _environment.get(key)
    if found is None:
        material = json.dumps({"format": FORMAT, "pbem": __version__, "python": sys.version,
                               "code": _tree_digest(Path(__file__).resolve().parent.parent, ".py", False),
                               "schemas": _tree_digest(schemas, ".json", True), "registry": key[1],
                               "libraries": _versions()},
                              sort_keys=True)
        found = _environment[key] = hashlib.sha256(material.encode("utf-8")).hexdigest()
    return found


def _folder() -> Path | None:
    if not privatedir.enabled():
        return None
    return privatedir.cache_dir() / "content"


class Memo:
    """What one file's bytes determine: its parsed data, its document digest, the checks it passed."""

    def __init__(self, key: str, raw_digest: str, env: str, blob: bytes, digest: str | None = None,
                 passed: set[str] | None = None) -> None:
        self.key = key
        self.raw_digest = raw_digest
        self.env = env
        self.blob = blob  # marshal of the parsed data: each caller gets its own copy
        self.digest = digest
        self.passed: set[str] = passed or set()
        self.target: Path | None = None

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = marshal.loads(self.blob)
        return data

    def has(self, tag: str) -> bool:
        return tag in self.passed

    def record(self, tag: str | None = None, digest: str | None = None) -> None:
        """Keep that the file passed the check ``tag`` (and/or its document digest)."""
        changed = False
        if tag is not None and tag not in self.passed:
            self.passed.add(tag)
            changed = True
        if digest is not None and self.digest != digest:
            self.digest = digest
            changed = True
        if changed:
            self._save()

    def fields(self) -> tuple[str, str, str, bytes, str | None, list[str]]:
        """The memo as plain values (to hand it from a worker process to its parent: ``adopt``)."""
        return self.key, self.raw_digest, self.env, self.blob, self.digest, sorted(self.passed)

    def _payload(self) -> bytes:
        return marshal.dumps({"format": FORMAT, "env": self.env, "raw": self.raw_digest, "data": self.blob,
                              "digest": self.digest, "passed": sorted(self.passed)})

    def _save(self) -> None:
        """Written to the folder when the process ends (``flush``): a file checked several ways is written once."""
        global _flush_registered
        self.target = _folder() if _disk_allowed() else None  # the folder of the time it was made (tests change it)
        if self.target is None:
            return
        _dirty[self.key] = self
        if not _flush_registered:
            import atexit

            atexit.register(flush)
            _flush_registered = True

    def _write(self, fd: int) -> bool:
        payload = self._payload()
        return privatedir.write(fd, self.key, hashlib.sha256(payload).digest() + payload)


def flush() -> None:
    """Write the memos made or changed in this process to the cache folder (each to the folder of
    the time it was made), and keep the folder within its bound."""
    while _dirty:
        folder = next(iter(_dirty.values())).target
        memos = [m for m in _dirty.values() if m.target == folder]
        for m in memos:
            del _dirty[m.key]
        if folder is None:
            continue
        fd = privatedir.open_folder(folder, create=True)
        if fd is None:
            continue  # no cache: the next process works it out again
        try:
            if sum(m._write(fd) for m in memos):
                privatedir.prune(fd, DISK_BYTES)
        finally:
            os.close(fd)


def _disk_allowed() -> bool:
    from pbem.engine.registry import fingerprint

    return fingerprint() == ""  # games registered at run time (tests) are kept in memory only


def _from_disk(key: str, raw_digest: str, env: str) -> Memo | None:
    folder = _folder()
    if folder is None or not _disk_allowed():
        return None
    fd = privatedir.open_folder(folder)
    if fd is None:
        return None
    try:
        content = privatedir.read(fd, key, ENTRY_LIMIT)
    finally:
        os.close(fd)
    if content is None or len(content) < _HEAD or hashlib.sha256(content[_HEAD:]).digest() != content[:_HEAD]:
        return None
    try:
        entry = marshal.loads(content[_HEAD:])
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("env") != env or entry.get("raw") != raw_digest:
        return None
    blob, digest, passed = entry.get("data"), entry.get("digest"), entry.get("passed")
    if not isinstance(blob, bytes) or not (digest is None or isinstance(digest, str)) \
            or not isinstance(passed, list) or not all(isinstance(t, str) for t in passed):
        return None
    try:
        if not isinstance(marshal.loads(blob), dict):
            return None
    except (ValueError, EOFError, TypeError):
        return None
    return Memo(key, raw_digest, env, blob, digest, set(passed))


def lookup(raw: bytes) -> tuple[Memo | None, str, str]:
    """The memo of a file with these bytes, if one is kept (in memory, else on disk); with the key
    and environment to make one under."""
    raw_digest = hashlib.sha256(raw).hexdigest()
    env = environment()
    key = hashlib.sha256(f"{FORMAT}\0{env}\0{raw_digest}".encode()).hexdigest()
    memo = _memory.get(key)
    if memo is None:
        memo = _from_disk(key, raw_digest, env)
        if memo is not None:
            _remember(memo)
    return memo, key, raw_digest


def _remember(memo: Memo) -> None:
    global _memory_bytes
    if len(_memory) >= MEMORY_ENTRIES or _memory_bytes + len(memo.blob) > MEMORY_BYTES:
        _memory.clear()
        _memory_bytes = 0
    if len(memo.blob) <= MEMORY_BYTES:
        _memory[memo.key] = memo
        _memory_bytes += len(memo.blob)


def keep(raw: bytes, data: dict[str, Any]) -> Memo | None:
    """A new memo of a file with these bytes, parsed to ``data`` (which passed the file's bounds);
    None for data that marshal cannot keep exactly (a TOML date or time: no pbem file has one)."""
    memo, key, raw_digest = lookup(raw)
    if memo is not None:
        return memo
    try:
        blob = marshal.dumps(data)
    except ValueError:
        return None
    memo = Memo(key, raw_digest, environment(), blob)
    _remember(memo)
    memo._save()
    return memo


def room() -> tuple[int, int]:
    """The entries and bytes this process may still keep in memory before it drops them all."""
    return MEMORY_ENTRIES - len(_memory), MEMORY_BYTES - _memory_bytes


def adopt(fields: tuple[str, str, str, bytes, str | None, list[str]]) -> None:
    """Keep a memo a worker process made (``Memo.fields``) as if this process had made it: in memory,
    and written to the folder when this process ends."""
    key, raw_digest, env, blob, digest, passed = fields
    memo = _memory.get(key)
    if memo is None:
        memo = Memo(key, raw_digest, env, blob)
        _remember(memo)
    for tag in passed:
        memo.record(tag)
    if digest is not None:
        memo.record(digest=digest)
    memo._save()


def clear_memory() -> None:
    """Write what is to be written, then forget the entries kept in this process (tests)."""
    global _memory_bytes
    flush()
    _memory.clear()
    _memory_bytes = 0
    _environment.clear()
