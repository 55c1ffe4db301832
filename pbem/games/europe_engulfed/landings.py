"""Amphibious invasions (7.2, 7.21-7.26) and airborne assaults (7.3, 7.31) in the initial
operational movement phase, as far as the land war needs them; Malta and fortress clean-up (6.85,
6.86)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("invade", "drop")


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the invasions and drops (stub)."""


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """7.2, 7.3 (stub)."""


RENDER: dict[str, Any] = {}
