"""The Status Phase (3.31): supply for every unit of the phasing side (7.x), ammunition issued to
artillery (11.5-11.54)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx


def determine_supply(ctx: Ctx) -> None:
    """7.2-7.5, 7.22, 7.42, 7.72: the phasing side's units traced, out-of-supply markers placed,
    isolated units that trace returned to supply. Automatic, at the start of a player turn."""


def check_ammo(ctx: Ctx, orders: list[dict[str, Any]], problems: list[Problem]) -> None:
    """11.51-11.54: [[ammo]] orders."""
    for i, _ in enumerate(orders):
        problems.append(Problem(f"ammo[{i}]", "ammunition issue is not played yet", "11.51"))


def issue_ammo(ctx: Ctx, orders: list[dict[str, Any]]) -> None:
    """11.51, 11.52: volleys issued from the stockpiles."""
