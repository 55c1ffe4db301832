"""Breakthrough phases (1.26, 5.4, 6.7, 7.4): each bought with a special action: a breakthrough
operational or strategic movement phase, or a breakthrough combat round in one area."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("breakthrough",)


def can_continue(ctx: Ctx, pending: dict[str, Any] | None = None) -> bool:
    """Whether the phasing side may buy another breakthrough phase (an SA held, 1.26) (stub)."""
    return False


def check(ctx: Ctx, pending: dict[str, Any], body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of a breakthrough step's file (stub)."""


def resolve(ctx: Ctx, pending: dict[str, Any], body: dict[str, Any]) -> bool:
    """One breakthrough phase; False when the side ends its breakthroughs (stub)."""
    return False


RENDER: dict[str, Any] = {}
