"""Helpers for tests that run the `pbem` command as a user meets it (CliRunner)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from pbem.cli import cli
from tests.paths import ROOT

CLI_SCHEMAS = ROOT / "schemas" / "cli"


@cache
def schema_registry() -> Registry:
    """Every schema of the repository (schemas/, schemas/cli/) by its $id, as they refer to one another."""
    resources = []
    for p in [*sorted((ROOT / "schemas").glob("*.schema.json")), *sorted(CLI_SCHEMAS.glob("*.schema.json"))]:
        schema = json.loads(p.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def json_errors(command: str, data: Any) -> list[str]:
    """What in a command's --json output breaks its schema (schemas/cli/COMMAND.schema.json; `module
    check` is module-check): one line each, none if it holds."""
    v = Draft202012Validator({"$ref": f"pbem:cli/{command}"}, registry=schema_registry())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(data)]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (hidden and temporary files included), with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run(args: Sequence[Any], code: int = 0, env: dict[str, str] | None = None, input: str | None = None) -> Result:
    argv = [str(a) for a in args]
    r = CliRunner().invoke(cli, argv, env=env, input=input)
    assert r.exit_code == code, f"pbem {' '.join(argv)}: exit {r.exit_code}, expected {code}\n{r.output}\n{r.exception!r}"
    assert "Traceback" not in r.output
    assert "internal error" not in r.output
    if code == 0:
        assert r.exception is None, repr(r.exception)
    else:
        assert isinstance(r.exception, SystemExit), repr(r.exception)
    return r


def fails(root: Path, code: int, args: Sequence[Any], *needles: str) -> Result:
    """Run a command that must fail with ``code``, write nothing, and say every needle."""
    before = snapshot(root)
    r = run(args, code)
    assert snapshot(root) == before, "a failing command wrote or changed files"
    for n in needles:
        assert n in r.output, f"{n!r} not in:\n{r.output}"
    return r
