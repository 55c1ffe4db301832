"""The Introductory Segment before each AM game turn (3.1): air availability (16.0), militia
mobilisation (17.3), Romanian replacements (3.1c, 12.2), replacements applied (3.1d, 12.21-12.23),
the Soviet reserve division (15.14, A-74)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx


def segment(ctx: Ctx) -> None:
    """3.1 a-c and e, automatic, at the start of an AM turn (before the Axis player turn)."""


def check_replacements(ctx: Ctx, orders: list[dict[str, Any]], problems: list[Problem]) -> None:
    """3.1d, 12.21-12.23: the Axis [[replace]] orders of an AM turn's movement step."""
    for i, _ in enumerate(orders):
        problems.append(Problem(f"replace[{i}]", "replacements are not played yet", "12.21"))


def apply_replacements(ctx: Ctx, orders: list[dict[str, Any]]) -> None:
    """3.1d: each ordered unit recovers a step; it may not move this AM turn (12.21)."""
