"""`pbem adjudicate` checks the orders, then resolves them without checking them again: only where
everything the check read is the same (module._LEGAL, by content). An attack on that memory: the
same orders against a changed position are checked again."""

from __future__ import annotations

import copy

import pytest

from pbem.engine.model import Submission
from pbem.errors import IllegalOrdersError
from pbem.exchange.game import load_doc, load_state
from pbem.games.proud_monster import module as pm
from pbem.mechanics.dice import SeededDice
from tests.paths import ROOT

GAME = ROOT / "tests" / "games" / "proud_monster" / "golden" / "campaign"


def _step() -> tuple[dict, Submission]:  # type: ignore[type-arg]
    for p in sorted(GAME.glob("*-german.orders.toml")):
        doc = load_doc(p, "orders")
        if doc.data.get("move"):
            state = load_state(GAME / f"{p.name[:4]}.state.toml").data
            body = {k: v for k, v in doc.data.items() if k != "seal"}
            return state, Submission("orders", "german", body, doc.digest)
    raise AssertionError("no German movement orders in the campaign")


def test_resolve_after_check_skips_only_the_same_content() -> None:
    state, sub = _step()
    module = pm.ProudMonster()
    assert module.check(state, sub) == []
    assert pm._known_legal(state, sub)
    assert pm._known_legal(copy.deepcopy(state), sub)  # the same content, another dict
    changed = copy.deepcopy(state)
    changed["clock"]["turn"] = int(changed["clock"]["turn"]) + 1
    assert not pm._known_legal(changed, sub)
    other = Submission(sub.kind, sub.side, {**sub.body, "move": sub.body["move"][:-1]}, sub.digest)
    assert not pm._known_legal(state, other)


def test_a_position_changed_after_the_check_is_checked_again() -> None:
    """The state changed in place after the check (the same dict): its orders no longer fit, and
    resolve says so."""
    state, sub = _step()
    module = pm.ProudMonster()
    assert module.check(state, sub) == []
    moved = sub.body["move"][0]["units"][0]
    del state["position"]["units"][moved]
    with pytest.raises(IllegalOrdersError):
        module.resolve(state, [sub], SeededDice(seed=b"x"))
