"""Movement (1.23, 1.24, 5.x): operational movement (5.1), leaving contested areas (5.14, 7.52),
swamps, straits, fortresses, the Urals (5.15-5.18), strategic movement (5.2), sea transport of
land units (5.3), GS alone in an area (6.64), stacking at the end of each phase (5.5)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("move", "evacuate", "strat")


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the movement orders (stub)."""


def operational(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.23, 5.1: the moves in order (stub: each group to the end of its path)."""
    for m in body.get("move", []):
        path = [str(a) for a in m.get("path", [])]
        for u in m.get("units", []):
            if path:
                ctx.place(str(u), path[-1])
                ctx.emit("move", "5.1", unit=str(u), path=[ctx.at(str(u)), *path])
        for a in path:
            ctx.update_contested(a, "5.1")


def strategic(ctx: Ctx, moves: list[dict[str, Any]]) -> None:
    """1.24, 5.2: strategic moves (stub)."""


def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of each phase: fortress stacking (5.5) and the other checks of I.B (stub)."""


RENDER: dict[str, Any] = {}
