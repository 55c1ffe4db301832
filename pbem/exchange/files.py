"""Reading and writing pbem's TOML files.

Reading: a file is opened without blocking, the opened descriptor must be a regular file, and at
most its limit is read, so a FIFO, a device, a directory or a socket is refused, never read
forever. TOML is parsed, checked against the bounds of a pbem file (nesting, number of values,
64-bit integers), and validated against the JSON Schemas. Writing is atomic (temp file + rename).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import tomli_w

from pbem.errors import MalformedFileError, PbemError, Problem, UsageError
from pbem.resources import schemas_dir

MAX_FILE_BYTES = 2 * 1024 * 1024  # a TOML file pbem reads (the largest bundled one has about 100 kB)
MAX_DEPTH = 32  # levels of tables and arrays in a TOML file (pbem's own files have fewer than 10)
MAX_VALUES = 100_000  # keys and array items in a TOML file (the largest bundled one has about 7,000)
INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # TOML 1.0: integers are 64-bit signed

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


def _line_of_long_number(text: str) -> str:
    m = re.search(r"[0-9][0-9_]{99,}", text)
    return f" (line {text.count(chr(10), 0, m.start()) + 1})" if m else ""


_KEY_PART = r"""(?:[A-Za-z0-9_-]++|"[^"\\\n]*+"|'[^'\n]*+')"""
# MAX_DEPTH dots between key parts; a search starts only where a part can (a linear scan)
_LONG_KEY = re.compile(r"(?<![A-Za-z0-9_-])" + _KEY_PART + r"(?:[ \t]*+\.[ \t]*+" + _KEY_PART + "){" + str(MAX_DEPTH) + "}")


def parse_toml(raw: bytes, where: str) -> dict[str, Any]:
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
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MalformedFileError(f"{where}: not valid TOML: {e}", hint="Fix the syntax at that line and column.") from e
    except RecursionError as e:
        raise MalformedFileError(f"{where}: nested too deeply to be a pbem file") from e
    except ValueError as e:  # Python's limit on the digits of an integer (4,300)
        raise MalformedFileError(f"{where}: an integer with thousands of digits{_line_of_long_number(text)}; "
                                 f"TOML integers are 64-bit") from e
    check_bounds(data, where)
    return data


def _short_path(path: Sequence[str | int]) -> str:
    shown = _path_text(path[:8])
    return shown + (f"... ({len(path)} levels)" if len(path) > 8 else "")


def check_bounds(data: dict[str, Any], where: str) -> None:
    """The bounds of a pbem file, which every later step (hashing, writing back, the schemas) can
    then take: at most MAX_DEPTH levels of nesting, MAX_VALUES keys and items, 64-bit integers."""
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


@cache
def load_schema(name: str) -> dict[str, Any]:
    path = schemas_dir() / f"{name}.schema.json"
    with path.open(encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


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


def schema_problems(data: Any, schema: str, where: str) -> list[Problem]:
    """Every schema violation, each with its path (not just the first)."""
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


def _temp_beside(path: Path, text: str) -> Path:
    """``text`` in a new temporary file in ``path``'s folder (to be renamed onto ``path``)."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{folder}: the output folder does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".pbem-", dir=folder)
    except OSError as e:
        raise UsageError(f"{folder}: cannot write there ({e.strerror})", hint="Choose a writable folder.") from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def write_new(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file + rename); never overwrite an existing file."""
    if path.exists():
        raise UsageError(f"{path}: already exists; pbem never overwrites a state, report or order file",
                         hint="Choose another output name, or remove the file if it is yours and wrong.")
    tmp = _temp_beside(path, text)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError as e:
            raise UsageError(f"{path}: already exists; pbem never overwrites a state or report") from e
        except OSError:
            if path.exists():
                raise UsageError(f"{path}: already exists; pbem never overwrites a state or report") from None
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_all_new(files: list[tuple[Path, str]]) -> None:
    """Write several new files; if any target exists nothing is written; roll back on failure."""
    for p, _ in files:
        if p.exists():
            raise UsageError(f"{p}: already exists; pbem never overwrites a state or report",
                             hint="Choose another output name (-o/--report).")
    written: list[Path] = []
    try:
        for p, text in files:
            write_new(p, text)
            written.append(p)
    except BaseException:
        for p in written:
            p.unlink(missing_ok=True)
        raise


def write_replacing(path: Path, text: str) -> None:
    """Write a file that may be replaced (a picture asked for by `pbem show --svg`), atomically."""
    if path.exists() and path.name.endswith((".state.toml", ".report.md")):
        raise UsageError(f"{path}: pbem never overwrites a state or report")
    tmp = _temp_beside(path, text)
    try:
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
