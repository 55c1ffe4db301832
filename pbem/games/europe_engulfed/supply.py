"""Supply (3.x): the Initial (1.21) and Final (1.27, 3.6) Supply Determination Phases, recovery
(3.5), Limited Supply (7.9), and the end of a player-turn (6.96)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("final",)


def traces(ctx: Ctx, area: str, nation: str) -> bool:
    """3.1-3.3: whether a block of ``nation`` in ``area`` traces supply now (stub: always)."""
    return True


def initial(ctx: Ctx) -> None:
    """1.21: the phasing side's blocks traced for supply; OOS markers (stub)."""


def check_final(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """7.9: the [final] table of the file that ends a player-turn (stub)."""


def final(ctx: Ctx, final: dict[str, Any]) -> None:
    """1.27, 3.5, 3.6, 7.9: the Final Supply Determination Phase (stub)."""


def end_player_turn(ctx: Ctx) -> None:
    """6.96: fortifications without a friendly ground unit removed (stub)."""


RENDER: dict[str, Any] = {}
