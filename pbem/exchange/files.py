"""Reading and writing pbem's files (docs/protocol.md, "Writing files").

Reading: a file is opened without blocking, the opened descriptor must be a regular file, and at
most its limit is read, so a FIFO, a device, a directory or a socket is refused, never read
forever. TOML is parsed, checked against the bounds of a pbem file (nesting, number of values,
64-bit integers), and validated against the JSON Schemas.

Writing: each new file is written in full to a hidden temporary file beside it (mode 0666 less the
umask, 0600 for a private key) and synced; then the files are linked under their names in commit
order, the state last; then the temporary files are removed. A name that is taken is never
overwritten: a file with exactly the bytes to be written counts as written (so a command that was
interrupted completes when run again), any other file is refused before anything is written. On
an error, the files linked so far and the temporary files are removed: the folder is as it was.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import signal
import socket
import stat
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import tomli_w

from pbem.errors import MalformedFileError, PbemError, Problem, UsageError
from pbem.resources import schemas_dir

from . import fasttoml, names

if TYPE_CHECKING:  # imported where a file fails the fast path (schema_problems): it takes a while
    import jsonschema

    from .contentcache import Memo

MAX_FILE_BYTES = 2 * 1024 * 1024  # a TOML file pbem reads (the largest bundled one has about 100 kB)
MAX_DEPTH = 32  # levels of tables and arrays in a TOML file (pbem's own files have fewer than 10)
MAX_VALUES = 100_000  # keys and array items in a TOML file (the largest bundled one has about 7,000)
INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # TOML 1.0: integers are 64-bit signed

P = ParamSpec("P")
R = TypeVar("R")


def _flag(name: str) -> int:
    """An os.O_* flag, or 0 where the system has none."""
    return int(getattr(os, name, 0))


# --- reading -----------------------------------------------------------------------------------

def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def _not_regular(path: Path, what: str, mode: int, error: type[PbemError]) -> PbemError:
    return error(f"{path}: cannot read the {what}: it is {_kind(mode)}, not a regular file",
                 hint="Give the path of the file itself; pbem reads only regular files.")


def read_file(path: Path, limit: int = MAX_FILE_BYTES, what: str = "file",
              error: type[PbemError] = MalformedFileError) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file of at most ``limit`` bytes, and the status of the descriptor read.

    The file is opened without blocking (a FIFO would wait for a writer), the opened descriptor is
    checked (not the name, which could change in between), and at most ``limit`` + 1 bytes are read.
    Every failure is an ``error`` naming the file.
    """
    flags = os.O_RDONLY | _flag("O_NONBLOCK") | _flag("O_NOCTTY") | _flag("O_CLOEXEC") | _flag("O_BINARY")
    try:
        fd = os.open(path, flags)
    except OSError as e:
        try:  # a socket cannot be opened at all; a directory cannot be opened on some systems
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise _not_regular(path, what, mode, error) from e
        raise error(f"{path}: cannot read the {what} ({e.strerror or e})", hint="Check the path.") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, what, st.st_mode, error)
        if st.st_size > limit:
            raise error(f"{path}: {st.st_size} bytes is larger than the {limit} bytes pbem reads from a {what}")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # it grew while being read
            raise error(f"{path}: larger than the {limit} bytes pbem reads from a {what}")
        return b"".join(chunks), st
    except OSError as e:
        raise error(f"{path}: cannot read the {what} ({e.strerror or e})") from e
    finally:
        os.close(fd)


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES, what: str = "file", error: type[PbemError] = MalformedFileError) -> bytes:
    """read_file without the status."""
    return read_file(path, limit, what, error)[0]


def refuse_special(path: Path, what: str = "file") -> None:
    """Refuse a path that is neither a folder nor a regular file (a FIFO, a socket, a device),
    without opening it; a missing path is left to the reader to name."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise _not_regular(path, what, mode, MalformedFileError)


GAME_FILE = re.compile(r".+\.(toml|md|svg)")


def check_folder_files(folder: Path) -> None:
    """Refuse a game folder holding something that is not a regular file under a name pbem reads
    there (``*.toml``, ``*.md``, ``*.svg``): a FIFO named ``0002.report.md`` would make a reader wait
    forever. Hidden files and other names are not looked at."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return  # the reader itself says what is wrong with the folder
    for e in entries:
        if e.name.startswith(".") or not GAME_FILE.fullmatch(e.name):
            continue
        try:
            mode = os.stat(e.path).st_mode
        except OSError:
            continue  # a dangling link: the reader says it cannot read it
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise MalformedFileError(f"{folder / e.name}: cannot read the file: it is {_kind(mode)}, not a regular file",
                                     hint="A game folder holds the game's files only: remove it from the folder.")


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every failure is a MalformedFileError naming the file and place."""
    return parse_toml(read_bytes(path), str(path))


def read_toml_memo(path: Path) -> tuple[dict[str, Any], Memo | None]:
    """read_toml, with the memo of the file's bytes (contentcache.py: the checks they passed)."""
    return parse_toml_memo(read_bytes(path), str(path))


def read_validated(path: Path, schema: str) -> tuple[dict[str, Any], list[Problem]]:
    """A data file parsed and checked against ``schema``: the data and every schema violation. A file
    whose bytes passed that schema before (contentcache.py) is not checked again."""
    data, memo = read_toml_memo(path)
    tag = f"schema:{schema}"
    if memo is not None and memo.has(tag):
        return data, []
    problems = schema_problems(data, schema, str(path))
    if not problems and memo is not None:
        memo.record(tag)
    return data, problems


def _line_of_long_number(text: str) -> str:
    m = re.search(r"[0-9][0-9_]{99,}", text)
    return f" (line {text.count(chr(10), 0, m.start()) + 1})" if m else ""


_KEY_PART = r"""(?:[A-Za-z0-9_-]++|"[^"\\\n]*+"|'[^'\n]*+')"""
# MAX_DEPTH dots between key parts; a search starts only where a part can (a linear scan)
_LONG_KEY = re.compile(r"(?<![A-Za-z0-9_-])" + _KEY_PART + r"(?:[ \t]*+\.[ \t]*+" + _KEY_PART + "){" + str(MAX_DEPTH) + "}")


def parse_toml(raw: bytes, where: str) -> dict[str, Any]:
    """Parse the bytes of a TOML file within the bounds of a pbem file (``check_bounds``); bytes
    parsed before, in this process or an earlier one, are not parsed again (contentcache.py)."""
    return parse_toml_memo(raw, where)[0]


def parse_toml_memo(raw: bytes, where: str) -> tuple[dict[str, Any], Memo | None]:
    """parse_toml, with the memo of these bytes (None where the data cannot be kept: a TOML date)."""
    from . import contentcache

    memo = contentcache.lookup(raw)[0]
    if memo is not None:
        return memo.data(), memo
    data = _parse_toml(raw, where)
    return data, contentcache.keep(raw, data)


def _parse_toml(raw: bytes, where: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MalformedFileError(f"{where}: not UTF-8 text (byte {e.start})") from e
    # Parsing takes time by the number of values, and by the square of a dotted key's parts: a file
    # with far too many values (each '=' or ',' outside strings stands for at least one, each '['
    # or '[[' for one) or a key of too many parts is refused before it is parsed.
    signs = max(raw.count(b"="), raw.count(b","), raw.count(b"[") // 2)
    if signs > MAX_VALUES:
        raise MalformedFileError(f"{where}: more than {MAX_VALUES} keys and values (by the signs '=', ',' and '[' "
                                 f"that separate them); a pbem file has far fewer")
    long_key = _LONG_KEY.search(text)
    if long_key is not None:
        raise MalformedFileError(f"{where}: a dotted key of more than {MAX_DEPTH} parts (line "
                                 f"{text.count(chr(10), 0, long_key.start()) + 1}); a pbem file has a few levels at most")
    try:
        data = fasttoml.loads(text)  # the layout pbem writes, read fast; any other text is tomllib's
    except fasttoml.Unsupported:
        data = _tomllib_loads(text, where)
    check_bounds(data, where)
    return data


def _tomllib_loads(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MalformedFileError(f"{where}: not valid TOML: {e}", hint="Fix the syntax at that line and column.") from e
    except RecursionError as e:
        raise MalformedFileError(f"{where}: nested too deeply to be a pbem file") from e
    except ValueError as e:  # Python's limit on the digits of an integer (4,300)
        raise MalformedFileError(f"{where}: an integer with thousands of digits{_line_of_long_number(text)}; "
                                 f"TOML integers are 64-bit") from e


def _short_path(path: Sequence[str | int]) -> str:
    shown = _path_text(path[:8])
    return shown + (f"... ({len(path)} levels)" if len(path) > 8 else "")


def check_bounds(data: dict[str, Any], where: str) -> None:
    """The bounds of a pbem file, which every later step (hashing, writing back, the schemas) can
    then take: at most MAX_DEPTH levels of nesting, MAX_VALUES keys and items, 64-bit integers."""
    if _within_bounds(data):
        return
    count = 0
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        children: Iterable[tuple[str | int, Any]]
        if isinstance(value, dict):
            children = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
                digits = str(abs(value))
                shown = ("-" if value < 0 else "") + (digits if len(digits) <= 30 else f"{digits[:20]}... ({len(digits)} digits)")
                raise MalformedFileError(f"{where}: {_short_path(path)}: the integer {shown} is outside the 64-bit range "
                                         f"of TOML integers (-2^63 to 2^63-1)")
            continue
        if value and len(path) >= MAX_DEPTH:
            raise MalformedFileError(f"{where}: {_short_path(path)}: nested more than {MAX_DEPTH} levels deep; "
                                     "a pbem file has a few levels at most")
        count += len(value)
        if count > MAX_VALUES:
            raise MalformedFileError(f"{where}: more than {MAX_VALUES} keys and values; a pbem file has far fewer")
        stack.extend((v, (*path, k)) for k, v in children)


def _within_bounds(data: dict[str, Any]) -> bool:
    """Whether ``check_bounds`` passes ``data``, found without the path of every value (the walk
    that names the place runs only for data out of bounds)."""
    count = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        t = type(value)
        if t is dict or t is list:
            if value:
                if depth >= MAX_DEPTH:
                    return False
                count += len(value)
                if count > MAX_VALUES:
                    return False
                stack.extend((v, depth + 1) for v in (value.values() if t is dict else value))
        elif t is int:
            if not INT_MIN <= value <= INT_MAX:
                return False
        elif t is not bool and isinstance(value, (int, dict, list)):  # a subclass: the full walk decides
            return False
    return True


def has_schema(name: str) -> bool:
    """Whether the schema ``name`` exists (a game module's optional schemas: its hidden values)."""
    return (schemas_dir() / f"{name}.schema.json").is_file()


@cache
def load_schema(name: str) -> dict[str, Any]:
    path = schemas_dir() / f"{name}.schema.json"
    with path.open(encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def ecma_regex(pattern: str) -> str:
    """A JSON Schema ``pattern`` as a Python regular expression with its ECMA-262 meaning: ``$`` is
    the end of the text (Python's ``$`` also matches before a final newline); compile it ASCII-only
    so that ``\\d``, ``\\w``, ``\\s`` mean what ECMA-262 means (Python's match any script's digits)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        elif c == "$" and not in_class:
            c = r"\Z"
        out.append(c)
        i += 1
    return "".join(out)


def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """A JSON Schema ``pattern`` compiled with its ECMA-262 meaning (``ecma_regex``). So "2817N\\n"
    or a hex id in full-width digits does not pass a pattern written for "2817N"."""
    return re.compile(ecma_regex(pattern), re.ASCII)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _strict_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "string"):
        return
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = ecma_pattern(pattern)
    if not compiled.search(instance):
        import jsonschema

        yield jsonschema.exceptions.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = load_schema(name)
    base = jsonschema.validators.validator_for(schema)
    cls = jsonschema.validators.extend(base, {"pattern": _strict_pattern})  # type: ignore[no-untyped-call]
    return cast(jsonschema.protocols.Validator, cls(schema))


def _path_text(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


VALUE_SHOWN = 100  # characters of an offending value quoted in a schema message


def _message(e: jsonschema.exceptions.ValidationError) -> str:
    """The validator's message, with an offending value too long to read (a path of thousands of
    hexes, a huge string) cut to its start and its size."""
    shown = repr(e.instance)
    if len(shown) <= VALUE_SHOWN or shown not in e.message:
        return e.message
    size = f"{len(e.instance)} items" if isinstance(e.instance, list | dict) else f"{len(shown)} characters"
    return e.message.replace(shown, f"{shown[:VALUE_SHOWN]}... ({size})")


@cache
def _fast_validator(name: str) -> Callable[[Any], bool] | None:
    from .fastschema import compile_validator  # the compiled fast path (fastschema.py)

    return compile_validator(load_schema(name))


def schema_problems(data: Any, schema: str, where: str) -> list[Problem]:
    """Every schema violation, each with its path (not just the first). A file the compiled fast
    path accepts has none; any other is checked by jsonschema, which lists them all."""
    fast = _fast_validator(schema)
    if fast is not None and fast(data):
        return []
    errors = sorted(_validator(schema).iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [Problem(f"{where}: {_path_text(e.absolute_path)}", _message(e), rule=f"schema {schema}") for e in errors]


def validate(data: Any, schema: str, where: str, problems: list[Problem] | None = None) -> None:
    """Raise MalformedFileError listing every schema violation (``problems`` if already computed)."""
    if problems is None:
        problems = schema_problems(data, schema, where)
    if problems:
        raise MalformedFileError(
            f"{where}: {len(problems)} schema violation(s) ({schema}.schema.json)",
            problems,
            hint="Fix each field listed; `pbem template` writes a valid skeleton.",
        )


def dumps(data: dict[str, Any]) -> str:
    return tomli_w.dumps(data)


# --- writing -----------------------------------------------------------------------------------

TEMP_PREFIX = ".pbem-tmp-"  # a temporary file: hidden, and no suffix that a reader of game files looks at
_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
_TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)-[0-9a-f]+")
STALE_SECONDS = 24 * 3600  # a temporary file this old is a leftover, whichever machine wrote it
CHUNK = 256 * 1024  # bytes per write call

TEST_HOOK = "PBEM_TEST_HOOK_SIGKILL"
_TEST_HOOK_VALUE = re.compile(r"kill-at-write-op-([0-9]+)")
_ops_done = 0


def _point() -> None:
    """One operation of the write path is about to be done.

    Test hook: with the environment variable PBEM_TEST_HOOK_SIGKILL set to ``kill-at-write-op-K``,
    the process kills itself with SIGKILL just before its K-th operation (creating, writing, syncing,
    closing, linking, renaming or removing a file, or syncing a folder), so that the tests can
    interrupt a real command at every point of its writing (tests/exchange/test_write_kill.py). Any other
    value does nothing.
    """
    global _ops_done
    _ops_done += 1
    value = os.environ.get(TEST_HOOK)
    if value:
        m = _TEST_HOOK_VALUE.fullmatch(value)
        if m and int(m.group(1)) == _ops_done and hasattr(signal, "SIGKILL"):
            os.kill(os.getpid(), signal.SIGKILL)


def _op(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Do one operation of the write path (a point where the tests interrupt or fail it)."""
    _point()
    return fn(*args, **kwargs)


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":  # no way to ask without side effects: leftovers go by their age only
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_leftovers(folder: Path) -> list[str]:
    """Remove the temporary files that a killed pbem left in ``folder``: those of a process of this
    machine that is gone, and any older than a day. Best effort: an error is not one of the
    command's. Returns the names removed."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for e in entries:
        m = _TEMP_NAME.fullmatch(e.name)
        if m is None:
            continue
        try:
            st = e.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                continue
            if (m["host"] == _HOST and not _alive(int(m["pid"]))) or now - st.st_mtime > STALE_SECONDS:
                os.unlink(e.path)
                removed.append(e.name)
        except OSError:
            continue
    return removed


def _exists_error(path: Path) -> UsageError:
    return UsageError(f"{path}: already exists, with other content; pbem never overwrites a file",
                      hint="Choose another output name, or move the file away if it is yours and wrong.")


def _present(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds exactly ``data`` (an earlier run of the same command wrote
    it); False when the name is free. Any other file (or link, folder, FIFO) under the name is
    refused."""
    if not os.path.lexists(path):
        return False
    try:
        if read_bytes(path, len(data), "file", UsageError) == data:
            return True
    except UsageError:
        pass
    raise _exists_error(path)


_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV}


def _hint(code: int | None) -> str:
    if code == errno.ENOSPC or code == getattr(errno, "EDQUOT", None):
        return "The disk is full: free some space and run the command again."
    if code == errno.EROFS:
        return "The folder is on a read-only file system: choose another folder (-o), or make it writable."
    if code in (errno.EACCES, errno.EPERM):
        return "You may not write in that folder: choose another one (-o), or change its permissions."
    return "Run the command again once the cause is fixed."


def _sync_folder(folder: Path, point: bool = True) -> None:
    """Make the names linked in ``folder`` durable before the next step (where the system can).
    ``point``: one of the operations of the write path (tests interrupt or fail it)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | _flag("O_DIRECTORY") | _flag("O_CLOEXEC"))
    except OSError:
        return  # a folder that may be written but not read: no way to sync it
    try:
        if point:
            _point()
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP, errno.EOPNOTSUPP):  # cannot sync a folder here
            raise
    finally:
        os.close(fd)


def _rank(path: Path, commit: Path | None) -> int:
    """Commit order: derived files (reports, pictures), then views, then states (the commit points,
    in sequence order), then the submissions answering them, then the mail records (``FILE.mail``)
    of the files named before them."""
    if path.name.endswith(".mail"):
        return 4
    kind = names.kind(path.name)
    if path == commit or kind == "state":
        return 2
    if kind == "view":
        return 1
    if kind in names.SUBMISSIONS:
        return 3
    return 0


class _Writer:
    """One command's new files: staged in temporary files, then linked in commit order."""

    def __init__(self) -> None:
        self.temps: list[Path] = []
        self.linked: list[Path] = []
        self.where = Path(".")

    def stage(self, path: Path, data: bytes, private: bool) -> Path:
        """``data`` in a new temporary file beside ``path``, written in full and synced."""
        folder = self.where = _folder(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _flag("O_CLOEXEC") | _flag("O_BINARY") | _flag("O_NOFOLLOW")
        while True:
            tmp = folder / f"{TEMP_PREFIX}{_HOST}-{os.getpid()}-{secrets.token_hex(6)}"
            try:
                fd = _op(os.open, tmp, flags, 0o600 if private else 0o666)  # the umask applies to 0666
                break
            except FileExistsError:
                continue
        self.temps.append(tmp)
        try:
            if private and hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            view = memoryview(data)
            done = 0
            while done < len(data):
                done += _op(os.write, fd, view[done:done + CHUNK])
            _op(os.fsync, fd)
        finally:
            try:
                _point()
            finally:
                os.close(fd)
        return tmp

    def link(self, tmp: Path, path: Path, data: bytes) -> bool:
        """Give the staged file its name, which must be free (or hold exactly ``data``)."""
        self.where = _folder(path)
        try:
            _op(os.link, tmp, path)
        except FileExistsError:
            if _present(path, data):
                return False
            raise
        except OSError as e:
            if e.errno not in _NO_HARD_LINKS:
                raise
            # a file system without hard links: a rename, the name checked just before
            if _present(path, data):
                return False
            _op(os.rename, tmp, path)
            self.temps.remove(tmp)
        self.linked.append(path)
        return True

    def clean(self) -> None:
        for t in list(self.temps):
            _op(os.unlink, t)
            self.temps.remove(t)

    def undo(self) -> None:
        """After an error: remove what this command linked and staged (best effort)."""
        for p in [*reversed(self.linked), *self.temps]:
            try:
                os.unlink(p)
            except OSError:
                pass
        self.linked.clear()
        self.temps.clear()


def write_all_new(files: Sequence[tuple[Path, str | bytes]], commit: Path | None = None,
                  private: Iterable[Path] = ()) -> list[Path]:
    """Write several new files, all or nothing, in commit order (``commit`` and any state last).

    Returns the files written; a file already holding exactly its bytes counts as written and is
    left alone. Any other file under one of the names is refused before anything is written; an
    error while writing removes what was written (UsageError, exit 2). ``private`` files get mode
    0600, the others 0666 less the umask.
    """
    items = sorted(((Path(p), d.encode("utf-8") if isinstance(d, str) else bytes(d)) for p, d in files),
                   key=lambda it: (_rank(it[0], commit), str(it[0])))
    for folder in dict.fromkeys(_folder(p) for p, _ in items):
        if not folder.is_dir():
            raise UsageError(f"{folder}: the output folder does not exist", hint="Create it first, or choose another output name.")
    todo = [(p, d) for p, d in items if not _present(p, d)]
    for folder in dict.fromkeys(_folder(p) for p, _ in items):  # also when all is written already (a run
        remove_leftovers(folder)  # killed after its last link left its temporary files)
    if not todo:
        return []
    keys = {Path(p) for p in private}
    w = _Writer()
    try:
        staged = [(p, d, w.stage(p, d, p in keys)) for p, d in todo]
        unsynced: dict[Path, None] = {}  # folders with names linked since they were last synced
        last_rank: int | None = None
        for p, d, tmp in staged:
            rank = _rank(p, commit)
            if unsynced and (rank != last_rank or rank == 2):  # what came before is durable first
                for folder in unsynced:
                    _sync_folder(folder)
                unsynced.clear()
            if w.link(tmp, p, d):
                unsynced[_folder(p)] = None
            last_rank = rank
        for folder in unsynced:
            _sync_folder(folder)
        w.clean()
    except OSError as e:
        w.undo()
        raise UsageError(f"{w.where}: cannot write there ({e.strerror or e}); nothing was written", hint=_hint(e.errno)) from e
    except BaseException:
        w.undo()
        raise
    return list(w.linked)


def write_new(path: Path, text: str | bytes, private: bool = False) -> bool:
    """Write one new file atomically; never overwrite. False if it already held exactly ``text``."""
    return bool(write_all_new([(path, text)], private=[path] if private else []))


def replace_file(path: Path, data: str | bytes, what: str, before: bytes | None = None) -> None:
    """Replace a file atomically (`pbem sign` sealing an order file in place): a new file written in
    full and synced, renamed over it. ``before``: the bytes it must still hold (else nothing is done)."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    real = Path(os.path.realpath(path))  # a link: the file it points to is sealed
    remove_leftovers(_folder(real))
    w = _Writer()
    try:
        tmp = w.stage(real, raw, False)
        if before is not None:
            try:
                now: bytes | None = read_bytes(real, len(before), what, UsageError)
            except UsageError:
                now = None
            if now != before:
                raise UsageError(f"{path}: changed while pbem was writing {what}; it was left as it is",
                                 hint="Run the command again.")
        _op(os.replace, tmp, real)
        w.temps.clear()
    except OSError as e:
        w.undo()
        raise UsageError(f"{path}: cannot write {what} ({e.strerror or e}); the file is unchanged", hint=_hint(e.errno)) from e
    except BaseException:
        w.undo()
        raise
    try:  # the file is replaced, whole: what is left is its durability, not an error of the command
        _sync_folder(_folder(real), point=False)
    except OSError:
        pass
