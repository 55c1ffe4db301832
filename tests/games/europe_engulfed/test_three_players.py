"""Three players (Part II "Players", J-0 6; docs/europe-engulfed.md, Three players): the Axis, the
Western Allies and the Soviet Union as three parties of one game, each signing its own files.

A three-player game with fog of war played by the built-in player through pbem.exchange and
verified end to end; and the attacks kept as tests: the West ordering Soviet blocks, a party
adjudicating its own orders, one Allied file replayed for the other, an Axis step adjudicated by
the Axis, the Soviet player committing or opening a Western block."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Submission
from pbem.engine.registry import every_side, find_module, sides_of
from pbem.errors import IllegalOrdersError, TamperError, UsageError
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps
from pbem.exchange.game import adjudicate, check_orders, load_doc, load_state, new_game, own_hidden
from pbem.exchange.keys import KeyPair
from pbem.games.europe_engulfed import parties
from pbem.games.europe_engulfed.context import context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.exchange.neutral.conftest import SkGame
from tests.games.europe_engulfed.three_game import PARTIES, proposed, start, step, write

EE = EuropeEngulfed()


def until(g: SkGame, done: Any, most: int = 40) -> dict[str, Any]:
    """Steps by the built-in player until ``done(state)``; the state."""
    for _ in range(most):
        st = g.state().data
        if done(st):
            return st
        step(g)
    raise AssertionError("not reached")


def checked(g: SkGame, side: str, body: str) -> str:
    """`pbem check` of ``side``'s draft for the awaited step: its problems as text."""
    p = write(g, side, body, sign=False)
    try:
        return " ".join(x.render() for x in check_orders(load_state(g.state_path), load_doc(p, "orders")).problems)
    finally:
        p.unlink()


# --- the parties of a game ----------------------------------------------------------------------

def test_the_parties_depend_on_the_option_players() -> None:
    assert EE.sides_for({}, "1941-barbarossa") == ("axis", "allies")
    assert EE.sides_for({"players": 3}, "1941-barbarossa") == ("axis", "west", "ussr")
    assert sides_of(EE, {"players": "3"}) == ("axis", "west", "ussr") and sides_of(find_module("skirmish")) == ("red", "blue", "green")
    assert every_side(EE) == ("axis", "allies", "west", "ussr")
    keys = {p: KeyPair.from_seed(f"sides {p}".encode()) for p in ("axis", "allies", "west", "ussr")}
    with pytest.raises(UsageError, match="needs --side for each of: axis, west, ussr"):
        new_game("europe-engulfed", "1941-barbarossa", {s: keys[s].public_text for s in ("axis", "allies")}, None, keys["axis"],
                 "ee-x", {"players": "3"})
    with pytest.raises(UsageError, match=r"needs --side for each of: axis, allies; with --option players=3: axis, west, ussr"):
        new_game("europe-engulfed", "1941-barbarossa", {s: keys[s].public_text for s in ("axis", "west", "ussr")}, None,
                 keys["axis"], "ee-x", {})
    st = new_game("europe-engulfed", "1941-barbarossa", {s: keys[s].public_text for s in ("axis", "west", "ussr")}, None,
                  keys["axis"], "ee-x", {"players": "3"})
    assert sorted(st["parties"]) == ["axis", "ussr", "west"] and st["options"] == {"players": 3}


def test_each_allied_nation_belongs_to_one_party() -> None:
    """Part II: player 1 plays Britain and the USA, player 2 the USSR, France and the minor powers
    invaded by the Axis; option three_player_split = ussr-alone gives the Soviet player the USSR only."""
    st = {"pbem": {"scenario": "1941-barbarossa"}, "parties": {}, **EE.new_game("1941-barbarossa", {"players": 3})}
    ctx = context(st)
    assert [ctx.party_of_nation(n) for n in ("germany", "italy", "britain", "usa", "ussr", "france")] == \
        ["axis", "axis", "west", "west", "ussr", "ussr"]
    assert ctx.party_of("gb.01") == "west" and ctx.party_of("su.01") == "ussr" and ctx.party_of("de.01") == "axis"
    alone = context({**st, "options": {"players": 3, "three_player_split": "ussr-alone"}})
    assert alone.party_of_nation("france") == "west" and alone.party_of_nation("ussr") == "ussr"
    two = context({"pbem": {"scenario": "1941-barbarossa"}, "parties": {}, **EE.new_game("1941-barbarossa", {})})
    assert two.party_of("gb.01") == "allies" == two.party_of("su.01")


# --- a game played by the three parties and verified --------------------------------------------

def test_a_three_player_game_with_fog_of_war_is_played_and_verified(tmp_path: Path) -> None:
    """The set-up from both Allied players (each commits its own blocks), adjudicated by the Axis;
    the Axis steps adjudicated by the Soviet player (axis_adjudicator), the West sending a file
    that opens its block attacked in an Axis combat step (6.24); the Allied steps from both,
    merged, adjudicated by the Axis; the last step; `pbem verify` of the folder."""
    g = start(tmp_path / "game", options={"turns": "1"})
    st = g.state().data
    assert st["awaits"] == {"kind": "orders", "step": "setup", "from": ["ussr", "west"], "adjudicator": "axis"}
    step(g)
    st = g.state().data
    assert st["awaits"]["from"] == ["axis"] and st["awaits"]["adjudicator"] == "ussr"
    assert {i.split(".")[0] for i in st["hidden"]["west"]} == {"gb", "us"}
    assert {i.split(".")[0] for i in st["hidden"]["ussr"]} == {"su", "fr"}
    assert own_hidden(g.state(), g.keys["west"])["hidden"]["gb.01"] == {"block": "gb-arm", "steps": 3}
    assert "gb.01" not in own_hidden(g.state(), g.keys["ussr"])["hidden"]  # the Soviet player's key opens no Western box
    st = until(g, lambda s: "west" in s["awaits"]["from"] and s["clock"]["side"] == "axis")
    assert st["awaits"]["from"] == ["axis", "west"] and st["awaits"]["adjudicator"] == "ussr"
    assert st["awaits"]["open"]["west"] == ["gb.13"] and "ussr" in st["awaits"]["open"]
    skeleton = EE.template(st, "west", [])
    assert "opens your blocks in\n# contested areas (6.24: gb.13; pbem sign writes the openings)" in skeleton
    assert "[[battle]]" not in skeleton
    said = checked(g, "west", '\n[[battle]]\narea = "western-desert"\ntype = "normal"\n')
    assert "the west player's file in 1941-may/axis/combat opens its blocks (6.24) only" in said
    step(g)
    assert g.state().data["opened"]["west"]["gb.13"]["values"] == [{"block": "gb-inf", "steps": 3}]
    st = until(g, lambda s: s["clock"]["side"] == "allies" and s["clock"]["phase"] == "move")
    assert st["awaits"] == {"kind": "orders", "step": "1941-may/allies/move", "from": ["ussr", "west"], "adjudicator": "axis"}
    step(g)
    report = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert "The orders of the ussr and the west players are played as one Allied player-turn's" in report
    until(g, lambda s: s["awaits"]["kind"] == "reveal")
    step(g)
    assert g.state().data["awaits"]["kind"] == "none"
    assert verify([g.folder]).transitions == len(list(g.folder.glob("*.state.toml"))) - 1


# --- attacks ------------------------------------------------------------------------------------

def at_allied_move(tmp_path: Path) -> SkGame:
    g = start(tmp_path / "game", options={"turns": "1", "fog": "false"})
    until(g, lambda s: s["clock"]["side"] == "allies" and s["clock"]["phase"] == "move")
    return g


def test_the_west_may_not_order_soviet_blocks_nor_soviet_production(tmp_path: Path) -> None:
    g = at_allied_move(tmp_path)
    su = next(u for u, s in sorted(g.state().data["position"]["units"].items()) if s["nation"] == "ussr")
    said = checked(g, "west", f'\n[[move]]\nunits = ["{su}"]\npath = ["moscow"]\n[production.buy]\nsa = {{ ussr = 1 }}\n')
    assert f"move[0].units[0]: {su} is a block of the ussr player (ussr); the west player orders only his own (Part II)" in said
    assert "production.buy.sa.ussr: ussr is the ussr player's nation; the west player orders only his own" in said
    said = checked(g, "ussr", '\n[standing]\nlosses = ["gb.01"]\n')
    assert "standing.losses[0]: gb.01 is a block of the west player (britain)" in said
    assert checked(g, "west", "\n# nothing\n") == ""


def test_a_party_cannot_adjudicate_its_own_orders_and_the_axis_not_its_own_steps(tmp_path: Path) -> None:
    g = at_allied_move(tmp_path)
    st = g.state()
    files = [write(g, s, "\n# nothing\n") for s in ("ussr", "west")]
    docs = [load_doc(p, "orders") for p in files]
    for own in ("west", "ussr"):
        with pytest.raises(UsageError, match="is not axis's key in this game"):
            adjudicate(st, docs, g.keys[own])
    g.adjudicate(*files)
    g2 = start(tmp_path / "g2", options={"turns": "1", "fog": "false"})
    st2 = g2.state()
    assert st2.data["awaits"]["from"] == ["axis"] and st2.data["awaits"]["adjudicator"] == "ussr"
    p = write(g2, "axis", "\n# nothing\n")
    for wrong in ("axis", "west"):
        with pytest.raises(UsageError, match="is not ussr's key in this game"):
            adjudicate(st2, [load_doc(p, "orders")], g2.keys[wrong])


def test_one_allied_file_replayed_for_the_other_is_refused(tmp_path: Path) -> None:
    g = at_allied_move(tmp_path)
    st = g.state()
    west = write(g, "west", "\n# nothing\n")
    text = west.read_text(encoding="utf-8")
    forged = g.folder / f"{west.name.replace('west', 'ussr')}"
    forged.write_text(re.sub(r'side = "west"', 'side = "ussr"', text, count=1), encoding="utf-8")
    with pytest.raises(TamperError, match="the signature does not match the content"):  # the West's signature, not the Soviet's
        adjudicate(st, [load_doc(west, "orders"), load_doc(forged, "orders")], g.keys["axis"])
    copy2 = g.folder / "again-west.orders.toml"
    copy2.write_text(text, encoding="utf-8")
    with pytest.raises(IllegalOrdersError, match="missing: ussr; not awaited or twice: west"):  # the West's file twice
        adjudicate(st, [load_doc(west, "orders"), load_doc(copy2, "orders")], g.keys["axis"])
    forged.unlink()
    copy2.unlink()


def test_the_soviet_player_cannot_commit_nor_open_a_western_block(tmp_path: Path) -> None:
    g = start(tmp_path / "game", options={"turns": "1"})
    body = proposed(g, "ussr")
    said = checked(g, "ussr", "\n" + body + '\n[hidden."gb.01"]\nblock = "gb-arm"\nsteps = 3\n')
    assert "hidden.gb.01: the file does not commit gb.01" in said
    step(g)
    until(g, lambda s: "west" in s["awaits"]["from"] and s["clock"]["side"] == "axis")
    st = g.state()
    axis = write(g, "axis", "\n" + proposed(g, "axis"))
    with pytest.raises(IllegalOrdersError, match="needs one file from each of axis, west; missing: west"):
        adjudicate(st, [load_doc(axis, "orders")], g.keys["ussr"])


def test_a_battle_both_allied_players_give_is_fought_by_the_axis_s_choice() -> None:
    """A-75, 6.2: both list the same area: the Axis's standing allied_choice decides; without it the West's."""
    west = {"battle": [{"area": "minsk", "type": "normal"}], "move": [{"units": ["gb.01"], "path": ["x"]}]}
    ussr = {"battle": [{"area": "minsk", "type": "assault"}, {"area": "kiev", "type": "normal"}],
            "production": {"buy": {"sa": {"ussr": 1}}}, "next": {"breakthrough": True}}
    body, origin = parties.merge({"players": 3}, {"west": west, "ussr": ussr})
    assert body["battle"] == [{"area": "minsk", "type": "normal"}, {"area": "kiev", "type": "normal"}]
    assert origin["battle[1]"] == ("ussr", "battle[1]") and origin["move[0]"] == ("west", "move[0]")
    assert body["next"] == {"breakthrough": True} and body["production"] == {"buy": {"sa": {"ussr": 1}}}
    body, origin = parties.merge({"players": 3}, {"west": west, "ussr": ussr}, choice="ussr")
    assert body["battle"][0] == {"area": "minsk", "type": "assault"} and origin["battle[0]"] == ("ussr", "battle[0]")
    both = parties.merge({"players": 3}, {"west": {"breakthrough": {"kind": "end"}},
                                          "ussr": {"breakthrough": {"kind": "combat", "area": "minsk"}}})[0]
    assert both["breakthrough"] == {"kind": "combat", "area": "minsk"}


def test_a_refereed_view_shows_the_other_allied_player_s_blocks_by_the_option_allied_view(tmp_path: Path) -> None:
    st = {"pbem": {"scenario": "1941-barbarossa"}, "parties": {"referee": {}},
          **EE.new_game("1941-barbarossa", {"players": 3})}
    west = EE.view_position(st, "west")["units"]
    assert "block" in west["gb.01"] and "block" in west["su.01"] and "block" not in west["de.01"]
    st["options"] = {"players": 3, "allied_view": "own"}
    west = EE.view_position(st, "west")["units"]
    assert "block" in west["gb.01"] and "block" not in west["su.01"]
    axis = EE.view_position(st, "axis")["units"]
    assert "block" not in axis["gb.01"] and "block" in axis["de.01"]
    assert dumps(st)


def test_a_refereed_three_player_game_gives_each_party_its_view(tmp_path: Path) -> None:
    """J-0 1 with three players: the referee adjudicates every step; each party's view hides the
    enemy side's blocks (the Axis's from both Allied players, theirs from the Axis)."""
    g = start(tmp_path / "game", options={"turns": "1"}, referee=True)
    st = g.state().data
    assert st["awaits"]["from"] == ["axis"] and st["awaits"]["adjudicator"] == "referee"
    step(g)
    st = g.state().data
    assert st["awaits"]["from"] == ["axis"] and st["clock"]["phase"] == "combat"
    views = {p: load_doc(next(g.folder.glob(f"{int(st['pbem']['sequence']):04d}-{p}.view.toml")), "view").data for p in PARTIES}
    contested = set(st["position"]["contested"])
    for party, v in views.items():
        units = v["position"]["units"]
        quiet = {u: s for u, s in units.items() if s["at"] not in contested}
        for u, s in quiet.items():
            enemy = (u.split(".")[0].removesuffix("-e") in ("de", "it", "fi", "ro", "hu", "bg")) != (party == "axis")
            assert ("block" in s) != enemy, (party, u)
    step(g)
    assert verify([g.folder]).transitions >= 3


def test_the_merged_allied_orders_are_checked_and_each_problem_names_its_file(tmp_path: Path) -> None:
    """Each file alone may leave a compulsory combat (6.1) to the other; merged, a newly contested
    area neither fights is refused; a problem of the merged orders names the file it came from."""
    import tomllib

    from pbem.engine.model import Submission
    from pbem.errors import Problem
    from pbem.mechanics.dice import ForcedDice
    from tests.paths import ROOT

    folder = ROOT / "tests" / "games" / "europe_engulfed" / "catalog"
    case = tomllib.loads(next(folder.glob("EE-903-*.toml")).read_text(encoding="utf-8"))
    state = EE.catalog_state(case, folder)
    subs = [Submission("orders", p, {}, f"sha256:{p}") for p in ("ussr", "west")]
    assert all(EE.check(state, s) == [] for s in subs)
    with pytest.raises(IllegalOrdersError, match="the Allied orders for 1941-jul/allies/combat, merged, break the rules") as e:
        EE.resolve(state, subs, ForcedDice())
    assert [(p.where, p.rule) for p in e.value.problems] == [("west and ussr (merged): battle", "6.1")]
    origin = parties.merge({"players": 3}, {"west": {"move": [{"units": ["gb.01"]}]}, "ussr": {"move": [{"units": ["su.01"]}]}})[1]
    named = parties.name_file(Problem("move[1].path", "no path", "5.1"), origin)
    assert named.where == "ussr: move[0].path" and named.rule == "5.1"


def test_the_demo_plays_three_players_and_every_proposal_is_legal_for_its_own_party(tmp_path: Path) -> None:
    """`pbem demo --game europe-engulfed --option players=3`: the built-in player's file for the
    Soviet player kept the Allied side's merged standing instructions, the West's `strategic` and
    `lend_lease` among them, which the Soviet player may not give (Part II): the demo stopped at the
    first Allied move of 1941. Each party's proposal now passes its own check, and the game verifies."""
    from pbem.demo import run_demo
    from pbem.games.europe_engulfed import autoplay

    folder = run_demo(tmp_path / "demo", 2, lambda _line: None, options={"players": 3}, game="europe-engulfed")
    game = folder / "game"
    res = verify([game])
    assert res.states == len(list(game.glob("*.state.toml"))) and res.transitions >= 15  # the old demo stopped at state 14
    allied_moves = 0
    for p in sorted(game.glob("*.state.toml")):
        st = load_state(p).data
        aw = st["awaits"]
        if aw["kind"] != "orders" or st["clock"]["side"] != "allies" or st["clock"]["phase"] != "move":
            continue
        for party in aw["from"]:
            data = tomllib.loads(autoplay.propose(EE, st, party))
            assert not EE.check(st, Submission("orders", party, data)), (p.name, party)
            if party == "ussr":
                assert not {"strategic", "lend_lease"} & set(data.get("standing", {})), p.name
        allied_moves += 1
    assert allied_moves >= 2
