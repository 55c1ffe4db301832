"""Helpers for tests that run the `pbem` command as a user meets it (CliRunner)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from pbem.cli import cli


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
