"""Fog of war (Glossary "Ground Units", 4.5, 6.24, 6.74, J-0): each block's type and strength are
hidden from the opponent. Without a referee they are the owner's hidden values (docs/protocol.md,
Hidden values): committed at the set-up and when built or replaced, opened when the block is in a
contested area (6.24), checked against every claim the game recorded while hidden. With a referee,
the views leave them out."""

from __future__ import annotations

import copy
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import Problem
from pbem.mechanics.dice import Dice

from .context import Ctx


def setup_step(module: Any, state: dict[str, Any], ctx: Ctx) -> Transition:
    """The set-up step of a game without a referee (stub: straight to the first turn)."""
    t: Transition = module._awaiting(state, ctx, module._begin_game_turn(ctx))
    return t


def resolve_setup(module: Any, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
    raise NotImplementedError


def file_problems(state: dict[str, Any], ctx: Ctx, submission: Submission) -> list[Problem]:
    """What a file may hold hidden (stub: nothing)."""
    hidden = dict(submission.body.get("hidden", {}))
    return [Problem(f"hidden.{k}", "nothing is hidden in this file", "J-0") for k in sorted(hidden)]


def before_resolve(state: dict[str, Any], ctx: Ctx, sub: Submission) -> None:
    """The blocks opened in this step made public in the working position (stub)."""


def after_step(state: dict[str, Any], ctx: Ctx, out: dict[str, Any]) -> None:
    """The openings the next step asks for (stub)."""


def view_position(state: dict[str, Any], side: str) -> dict[str, Any]:
    return copy.deepcopy(dict(state["position"]))


def side_events(state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
    return list(events)


def check_opening(state: dict[str, Any], owner: str, item: str, values: list[Any],
                  versions: list[dict[str, Any]]) -> list[Problem]:
    return []
