"""Reading and writing pbem's TOML files: parse, validate against the JSON Schemas, write atomically."""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from functools import cache
from pathlib import Path
from typing import Any, cast

import jsonschema
import tomli_w

from pbem.errors import MalformedFileError, Problem, UsageError
from pbem.resources import schemas_dir

MAX_FILE_BYTES = 8 * 1024 * 1024


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; every failure is a MalformedFileError naming the file and place."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise MalformedFileError(f"{path}: cannot read the file ({e.strerror})", hint="Check the path.") from e
    if size > MAX_FILE_BYTES:
        raise MalformedFileError(f"{path}: {size} bytes is larger than the {MAX_FILE_BYTES} bytes a pbem file may have")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise MalformedFileError(f"{path}: cannot read the file ({e.strerror})") from e
    return parse_toml(raw, str(path))


def parse_toml(raw: bytes, where: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MalformedFileError(f"{where}: not UTF-8 text (byte {e.start})") from e
    try:
        return tomllib.loads(text)
    except ValueError as e:  # a TOMLDecodeError, or an integer of more than 4300 digits (int's own limit)
        raise MalformedFileError(f"{where}: not valid TOML: {e}", hint="Fix the syntax at that line and column.") from e
    except RecursionError as e:
        raise MalformedFileError(f"{where}: nested too deeply to be a pbem file") from e


@cache
def load_schema(name: str) -> dict[str, Any]:
    path = schemas_dir() / f"{name}.schema.json"
    with path.open(encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """A JSON Schema ``pattern`` compiled with its ECMA-262 meaning: ``$`` is the end of the text
    (Python's ``$`` also matches before a final newline) and ``\\d``, ``\\w``, ``\\s`` are ASCII only (Python's
    match any script's digits). So "2817N\\n" or a hex id in full-width digits does not pass a
    pattern written for "2817N"."""
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
    return re.compile("".join(out), re.ASCII)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _strict_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "string"):
        return
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = ecma_pattern(pattern)
    if not compiled.search(instance):
        yield jsonschema.exceptions.ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
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
