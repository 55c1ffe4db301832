"""The basic/full switch (digest A.4): the full game turns on every [ADV] rule implemented so far."""

from __future__ import annotations

import pytest

from pbem.errors import IllegalOrdersError
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.rules import FULL_GAME
from tests.conftest import EXCHANGE_SCENARIO

M = ProudMonster()


def test_basic_game_has_every_advanced_rule_off() -> None:
    opts = M.new_game(EXCHANGE_SCENARIO, {})["options"]
    assert opts["ruleset"] == "basic" and not any(opts[k] for k in FULL_GAME)


def test_full_game_turns_them_on_and_single_options_still_win() -> None:
    opts = M.new_game(EXCHANGE_SCENARIO, {"ruleset": "full"})["options"]
    assert opts["ruleset"] == "full" and all(opts[k] for k in FULL_GAME)
    opts = M.new_game(EXCHANGE_SCENARIO, {"ruleset": "full", "fog_of_war": False})["options"]
    assert opts["fog_of_war"] is False and opts["concentric_assault"] is True


def test_an_unknown_ruleset_is_refused() -> None:
    with pytest.raises(IllegalOrdersError, match="invalid option"):
        M.new_game(EXCHANGE_SCENARIO, {"ruleset": "expert"})
