"""Production (1.22, 4.x): WERPs, builds, replacements, special actions (7.1, 7.11, 7.12), special
replacement (7.8), field and heavy fortifications (6.9x)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("production",)


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the [production] table (stub)."""


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.22: the Production Phase (stub)."""


RENDER: dict[str, Any] = {}
