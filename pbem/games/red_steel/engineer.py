"""The Engineer Phase (3.32): entrenchments (17.2) and bridges (17.4)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("entrench", "bridge", "unbridge")


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """17.21, 17.41, 17.44: the [[entrench]], [[bridge]] and [[unbridge]] orders."""
    for key in KEYS:
        for i, _ in enumerate(body.get(key, [])):
            problems.append(Problem(f"{key}[{i}]", "engineering is not played yet", "17.2"))


def phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """Constructions started, continued and completed at the end of the phase (17.21, 17.41),
    bridges removed (17.44)."""
