"""Combat (1.25, 6.x): one combat round in an area (6.2), fire by class (6.25-6.29), hit bonuses
(6.4), ground support (6.6), terrain (6.8x), fortifications (6.9x); the defender's reactions by
standing instructions: retreat (7.51), reinforcement (7.6), counterattack (7.7)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("battle",)


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the battles declared (stub)."""


def initial(ctx: Ctx, battles: list[dict[str, Any]]) -> None:
    """1.25, 6.1: one round in every newly contested area and each chosen one (stub)."""


def check_battle(ctx: Ctx, b: dict[str, Any], where: str, problems: list[Problem]) -> None:
    """Every problem of one battle declared (area, type, GS allocation) (stub)."""


def fight(ctx: Ctx, battle: dict[str, Any], rule: str, paying: list[str] | None = None) -> None:
    """One combat round in ``battle["area"]`` (6.2), with the counterattacks that follow (7.7)."""


RENDER: dict[str, Any] = {}
