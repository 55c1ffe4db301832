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


def move_group(ctx: Ctx, m: dict[str, Any], where: str, problems: list[Problem] | None, mode: str = "operational") -> None:
    """One operational move of a group of blocks (and GS markers) along ``m["path"]`` (5.1):
    ``mode`` operational (1.23), breakthrough (5.4: the caller checks who may move, 5.42) or
    evacuate (7.52). Checking (``problems`` given) and resolving are the same walk on the
    context: a problem is recorded with ``where`` (``move[2].path[1]``) and the move is not made;
    resolving, each step is made and its events emitted (stub)."""


def strat_move(ctx: Ctx, m: dict[str, Any], where: str, problems: list[Problem] | None, mode: str = "initial") -> None:
    """One strategic move (5.2), ``mode`` initial (1.24) or breakthrough (5.44) (stub)."""


def strategic(ctx: Ctx, moves: list[dict[str, Any]]) -> None:
    """1.24, 5.2: strategic moves (stub)."""


def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of each phase: fortress stacking (5.5) and the other checks of I.B (stub)."""


RENDER: dict[str, Any] = {}
