"""The basic/full switch (digest A.4): the full game turns on every [ADV] rule implemented so far."""

from __future__ import annotations

import pytest

from pbem.errors import IllegalOrdersError
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.options import BASIC_RULES, FULL_GAME
from tests.conftest import EXCHANGE_SCENARIO

M = ProudMonster()


def test_basic_game_has_every_advanced_rule_off() -> None:
    """A.4: the basic game leaves out the [ADV] rules and what A.4 lists, and keeps every other rule:
    untried units (2.15), the Axis allies (7.x), security divisions (8.21), Flak (10.1), naval
    movement (11.x) and the ArKo (14.41) are on in it."""
    opts = M.new_game("training", {})["options"]
    assert opts["ruleset"] == "basic" and not any(opts[k] for k in FULL_GAME if k not in BASIC_RULES)
    assert all(opts[k] is True for k in BASIC_RULES) and set(BASIC_RULES) <= set(FULL_GAME)
    assert {"mobile_assault", "supply", "weather", "fortifications", "german_retreat", "hedgehogs"} <= set(FULL_GAME) - set(BASIC_RULES)


def test_full_game_turns_them_on_and_single_options_still_win() -> None:
    opts = M.new_game("training", {"ruleset": "full"})["options"]
    assert opts["ruleset"] == "full" and all(opts[k] for k in FULL_GAME)
    opts = M.new_game("training", {"ruleset": "full", "fog_of_war": False})["options"]
    assert opts["fog_of_war"] is False and opts["concentric_assault"] is True
    # a scenario's own options (the exchange test scenario keeps its Soviet values known) still win
    assert M.new_game(EXCHANGE_SCENARIO, {"ruleset": "full"})["options"]["untried_units"] is False


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


def test_the_training_scenario_plays_to_its_end_under_the_full_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every full-game rule on, the demo's orders (illegal ones left out by the demo, replies answered
    with the documented defaults) play GT1-3 to the victory check, and the folder verifies."""
    from click.testing import CliRunner

    from pbem.cli import cli
    from pbem.exchange.chain import verify
    from pbem.exchange.files import read_toml

    r = CliRunner().invoke(cli, ["demo", "--full", "--turns", "3", "--out", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    game = tmp_path / "d" / "game"
    states = sorted(game.glob("*.state.toml"))
    last = read_toml(states[-1])
    assert last["options"]["ruleset"] == "full" and last["options"]["supply"] is True
    assert last["result"]["winner"] in ("german", "soviet") and last["awaits"]["kind"] == "none"
    assert verify([game]).transitions == len(states) - 1


def test_a_full_game_made_before_the_full_ruleset_had_its_own_id_still_replays() -> None:
    """A full game now records pbem-proud-monster/1-full; one created before recorded 1-basic, and
    pbem still adjudicates it; a basic game that claims the full ruleset is refused."""
    from pbem.errors import VerificationError
    from pbem.exchange.game import check_ruleset, ruleset_of
    from pbem.games.proud_monster.module import ProudMonster

    m = ProudMonster()
    full = {"pbem": {"ruleset": "pbem-proud-monster/1-full"}, "options": {"ruleset": "full"}}
    assert ruleset_of(m, full["options"]) == "pbem-proud-monster/1-full"
    check_ruleset(full, m, "new")
    check_ruleset({"pbem": {"ruleset": "pbem-proud-monster/1-basic"}, "options": {"ruleset": "full"}}, m, "older")
    check_ruleset({"pbem": {"ruleset": "pbem-proud-monster/1-basic"}, "options": {}}, m, "basic")
    with pytest.raises(VerificationError, match="the game uses the rules 'pbem-proud-monster/1-full'"):
        check_ruleset({"pbem": {"ruleset": "pbem-proud-monster/1-full"}, "options": {}}, m, "basic claiming full")
