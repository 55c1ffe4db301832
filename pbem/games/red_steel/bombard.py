"""Bombardment (8.x): artillery, aircraft (16.x) and river monitors (17.52) against spotted hexes."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("bombard", "air")


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """8.1, 11.2, 11.3, 15.11, 16.1-16.3: the [[bombard]] and [[air]] orders."""
    for key in KEYS:
        for i, _ in enumerate(body.get(key, [])):
            problems.append(Problem(f"{key}[{i}]", "bombardment is not played yet", "8.0"))


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """8.2: each bombardment resolved on the Bombardment Table (orders no longer possible are
    skipped, with the reason)."""
