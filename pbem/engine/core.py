"""The pure transition function: ``(state, submissions, dice) -> (next state's game part, events)``.

No files, clock, environment or global randomness: everything comes in as arguments. The phase
sequence is the module's data; joins are handled here because every game starts with them, and
the last step of a game with hidden values (``reveal``: every item opened) because it is the same
in every game.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from pbem.mechanics.dice import Dice

from .model import Event, Submission, Transition

if TYPE_CHECKING:
    from pbem.games.base import GameModule

ENGINE_KEYS = ("options", "clock", "position", "standing", "pending", "result", "awaits", "hidden", "opened", "draws")


def game_part(state: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in state.items() if k in ENGINE_KEYS or k in ("pbem", "parties")}


def transition(module: GameModule, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
    """Resolve the awaited step. Joins: record each party's standing instructions, then let the
    module run the automatic phases up to the first awaited step."""
    s = game_part(state)
    if s["awaits"]["kind"] == "join":
        standing = dict(s.get("standing", {}))
        for sub in submissions:
            if sub.body.get("standing"):
                standing[sub.side] = copy.deepcopy(sub.body["standing"])
        s["standing"] = standing
        t = module.start(s, dice)
        events = (Event("joined", "joins", {"parties": sorted(x.side for x in submissions)}),) + t.events
        return Transition(t.state, events)
    if s["awaits"]["kind"] == "reveal":  # the last step of a game with hidden values: the openings, checked before
        s["awaits"] = {"kind": "none", "step": "reveal", "from": [], "adjudicator": s["awaits"]["adjudicator"]}
        return Transition({k: v for k, v in s.items() if k not in ("pbem", "parties")}, (Event("all-opened", "hidden values", {"opened": "every hidden item"}),))
    return module.resolve(s, submissions, dice)
