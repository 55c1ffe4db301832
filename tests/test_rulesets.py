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


def test_the_weather_is_kept_in_the_position_only_with_the_weather_rules() -> None:
    """13.2: a game with the weather rules starts Dry with no permanent effect; the basic game keeps
    no weather at all (its states stay as they were)."""
    basic = M.new_game(EXCHANGE_SCENARIO, {})
    assert basic["options"]["weather"] is False
    assert not {"weather", "nz_snow", "sz_snow", "refits_ended", "highway_gone"} & set(basic["position"])
    for opts in ({"ruleset": "full"}, {"weather": True}):
        pos = M.new_game(EXCHANGE_SCENARIO, opts)["position"]
        assert pos["weather"] == {"NZ": "D", "SZ": "D"}
        assert not any(pos[f] for f in ("nz_snow", "sz_snow", "refits_ended", "highway_gone"))


def test_the_sz_roll_option_is_checked() -> None:
    with pytest.raises(IllegalOrdersError, match="invalid option"):
        M.new_game(EXCHANGE_SCENARIO, {"sz_roll_below_table": "snow"})
