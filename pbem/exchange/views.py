"""Views: what one side may see of a state, signed by the referee (docs/referee.md).

In a refereed game the referee holds the full states. After each step it sends every side a view:
the clock, what is awaited, the public keys and dice commitments, the side's own standing
instructions, the position as the module lets that side see it, and the transition's dice (every
combat involves both sides, so every roll touches the side's units) with the reveals and input
digests needed to re-derive each of them. A view names the digest of the full state it shows
(`pbem.of`) and of the state before it (`pbem.previous`); orders answer the full state's digest.

Views are made here; they are checked with the rest of the history (pbem/exchange/chain.py:
``Chain.view_of``, ``Chain.follow_views``, ``Chain.views_agree``).
"""

from __future__ import annotations

import copy
from typing import Any

from pbem import FILE_FORMAT
from pbem.engine.registry import find_module

from .canonical import digest, seal
from .keys import KeyPair


def view_body(state: dict[str, Any], side: str) -> dict[str, Any]:
    """The unsealed view of ``state`` for ``side`` (deterministic: verify recomputes it)."""
    module = find_module(state["pbem"]["module"])
    h = state["pbem"]
    body: dict[str, Any] = {
        "pbem": {"format": FILE_FORMAT, "kind": "view", "game": h["game"], "module": h["module"], "ruleset": h["ruleset"],
                 "scenario": h["scenario"], "data": h["data"], "sequence": h["sequence"], "origin": h["origin"], "of": digest(state),
                 "side": side, "previous": h["previous"], "inputs": list(h["inputs"]),
                 "dice_algorithm": h["dice_algorithm"], "creator": h["creator"]},
        "parties": copy.deepcopy(state["parties"]),
        "clock": copy.deepcopy(state["clock"]),
        "awaits": copy.deepcopy(state["awaits"]),
        "options": copy.deepcopy(state["options"]),
        "position": module.view_position(state, side),
        "standing": {side: copy.deepcopy(state["standing"][side])} if side in state.get("standing", {}) else {},
    }
    if "deadlines" in state:
        body["deadlines"] = copy.deepcopy(state["deadlines"])
    q = state.get("pending", {}).get("question")
    if q and q.get("side") == side:
        body["question"] = copy.deepcopy(q)
    if "result" in state:
        body["result"] = copy.deepcopy(state["result"])
    if "transition" in state:
        body["transition"] = copy.deepcopy(state["transition"])
        if "dice" in body["transition"]:
            body["transition"]["dice"] = side_dice(module, state, side)
    return body


def side_dice(module: Any, state: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """The dice of a transition that ``side`` of a refereed game may see: those its game module
    keeps (``side_dice``: a die that would tell a secret, such as a draw from a cup, is left out of
    that side's view and report; the full state keeps every die), all of them otherwise."""
    dice = copy.deepcopy(list(state.get("transition", {}).get("dice", [])))
    keep = getattr(module, "side_dice", None)
    return list(keep(state, dice, side)) if keep is not None else dice


SHARED = ("parties", "clock", "awaits", "options", "transition", "result", "deadlines")  # what every side's view of a state shows alike


def make_views(state: dict[str, Any], key: KeyPair) -> dict[str, dict[str, Any]]:
    """A sealed view for every side of a refereed game; none in a two-player game."""
    if "referee" not in state["parties"]:
        return {}
    return {side: seal(view_body(state, side), "referee", key) for side in sorted(state["parties"]) if side != "referee"}
