"""The Movement Phase (3.33): breakdown into companies (14.1), strategic movement first (5.2,
5.22), then tactical movement (5.1, 5.3) with zones of control (4.x), reinforcements (12.1),
towing and deploying artillery (5.64, 11.6), the Prut (5.5), river monitors (17.51), the events
of 1.3 (5.62, 7.7, 17.22, 17.42, 17.43, 17.6); at the end stacking (6.2), re-forming (14.2) and
empty entrenchments (17.23). Soviet tank breakdown (15.2) at the start of each tank's move."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("breakdown", "move", "reform", "withdraw", "remove")


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the movement orders, checked on the position as each order leaves it."""
    for key in KEYS:
        v = body.get(key, [])
        for i, _ in enumerate(v if isinstance(v, list) else [v]):
            problems.append(Problem(f"{key}[{i}]", "movement is not played yet", "5.1"))


def start_phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """14.1: battalions broken down; 15.4, 15.15: Soviet withdrawals declared and units removed."""


def make_moves(ctx: Ctx, moves: list[tuple[int, dict[str, Any]]]) -> None:
    """The [[move]] orders given (index in the file, order), in the order given (strategic moves
    first, 5.22: the caller orders them)."""


def end_phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """6.2 (the opponent's standing choice), 14.2, 17.23 at the end of the phasing side's Movement Phase."""
