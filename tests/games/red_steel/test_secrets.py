"""Red Steel's secrets without a referee, played with real keys and files (docs/protocol.md,
Hidden values): the Axis's air draw (16.0) is a hidden draw of its own, its aircraft flown are
claims on it, and the game's last step opens it; a side whose opening contradicts its play is
caught. Attacks kept as tests: flying an aircraft the draw did not give, and naming a draw of
one's own choosing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.demo import order_text
from pbem.errors import IllegalOrdersError, TamperError
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import (
    check_orders,
    load_doc,
    load_state,
    make_join,
    new_game,
    own_hidden,
    sign_orders,
)
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.exchange.ledger import join_salt
from pbem.games.red_steel.module import RedSteel
from tests.exchange.neutral.conftest import SkGame, body_text, salt_of

SIDES = ("axis", "soviet")


def start(folder: Path, seed: str = "rs secrets") -> SkGame:
    """The training scenario, two players, joined: awaiting the Soviet's first Introductory Segment."""
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"{seed} {s}".encode()) for s in SIDES}
    st0 = new_game("red-steel", "training", {s: keys[s].public_text for s in SIDES}, None, keys["axis"], "rs-test", {})
    write_new(folder / "0000.state.toml", dumps(st0))
    g = SkGame(folder, keys)
    st = g.state()
    joins = []
    for s in SIDES:
        j = folder / f"0000-{s}.join.toml"
        write_new(j, dumps(make_join(st, s, keys[s], None, salt=join_salt(keys[s], st.digest, salt_of(s, seed)))))
        joins.append(j)
    g.adjudicate(*joins)
    return g


def refereed(folder: Path, seed: str = "rs referee") -> SkGame:
    """The training scenario with a referee, joined: awaiting the Soviet's first Introductory Segment."""
    folder.mkdir(parents=True)
    parties = (*SIDES, "referee")
    keys = {p: KeyPair.from_seed(f"{seed} {p}".encode()) for p in parties}
    st0 = new_game("red-steel", "training", {s: keys[s].public_text for s in SIDES}, keys["referee"].public_text,
                   keys["referee"], "rs-ref", {})
    write_new(folder / "0000.state.toml", dumps(st0))
    g = SkGame(folder, keys, referee=True)
    st = g.state()
    joins = []
    for p in parties:
        j = folder / f"0000-{p}.join.toml"
        write_new(j, dumps(make_join(st, p, keys[p], None, salt=join_salt(keys[p], st.digest, salt_of(p, seed)))))
        joins.append(j)
    g.adjudicate(*joins)
    return g


def auto(g: SkGame) -> None:
    """The awaited step played by the built-in player (the last step: a reveal file from each side)."""
    st = g.state()
    aw = st.data["awaits"]
    if aw["kind"] == "reveal":
        files = []
        for side in aw["from"]:
            p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.reveal.toml"
            write_new(p, body_text(st.data, side, "\n"))
            p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
            files.append(p)
        g.adjudicate(*files)
        return
    side = str(aw["from"][0])
    p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.{'reply' if aw['kind'] == 'reply' else 'orders'}.toml"
    write_new(p, order_text(st.data, side, RedSteel().propose(st.data, side)))  # the game's part before the [pbem] table
    p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
    g.adjudicate(p)


def to_axis_combat(g: SkGame) -> dict[str, Any]:
    """Play to the Axis's first combat step; the Axis's draw, as its key opens it."""
    while not str(g.state().data["awaits"]["step"]).endswith("axis/combat"):
        auto(g)
    return own_hidden(g.state(), g.keys["axis"])


def enemy_hex(g: SkGame) -> str:
    st = g.state().data
    sc_units = RedSteel().new_game("training", {})["position"]["units"]
    return next(str(s["at"]) for u, s in sorted(st["position"]["units"].items())
                if u in sc_units and u.startswith("S") and str(s["at"])[:1].isdigit())


def play_out(g: SkGame) -> None:
    while g.state().data["awaits"]["kind"] != "none":
        auto(g)


def test_the_air_draw_is_the_axis_secret_and_its_opening_is_checked_at_the_end(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)  # the Soviet's Introductory Segment: its adjudication asks the Axis for its draw
    st = g.state().data
    assert st["draws"]["axis"][0]["item"] == "air.T1" and "drawn" not in st["position"]["aircraft"]
    mine = own_hidden(g.state(), g.keys["axis"])
    drawn = mine["draws"]["air.T1"]
    assert 3 <= len(drawn["aircraft"]) <= 6 and own_hidden(g.state(), g.keys["soviet"])["draws"] == {}
    mine = to_axis_combat(g)
    assert mine["hidden"]["air.T1"] == drawn  # committed by the Axis's movement file, as the draw gave it
    entry = g.state().data["hidden"]["axis"]["air.T1"]["versions"][0]
    assert set(entry) >= {"commit", "box"} and json.dumps(drawn["aircraft"]) not in json.dumps(entry)  # sealed in its box
    flown = drawn["aircraft"][0]
    g.play(f'\n[[air]]\naircraft = "{flown}"\ntarget = "{enemy_hex(g)}"\n')
    claims = g.state().data["hidden"]["axis"]["air.T1"]["versions"][0]["claims"]
    assert [(c["flew"], c["turn"]) for c in claims] == [(flown, 1)]  # the Soviet adjudicated the mission, a claim on the draw
    play_out(g)
    last = g.state().data
    assert last["opened"]["axis"]["air.T1"]["values"][-1] == drawn and last["result"]["rule"] == "18.0"
    res = verify([g.folder])
    assert res.transitions == len(list(g.folder.glob("*.state.toml"))) - 1


def test_an_aircraft_the_draw_did_not_give_is_caught_when_the_draw_is_opened(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    mine = to_axis_combat(g)
    missing = sorted(load_aircraft() - set(mine["hidden"]["air.T1"]["aircraft"]))
    if not missing:
        pytest.skip("this seed draws all six aircraft")
    g.play(f'\n[[air]]\naircraft = "{missing[0]}"\ntarget = "{enemy_hex(g)}"\n')  # the Soviet cannot tell: a claim
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = " ".join(p.render() for p in e.value.problems)
    assert "contradicts what the game recorded of it while hidden" in e.value.message
    assert f"{missing[0]} flew in game turn 1" in said and "[16.0]" in said


def test_a_draw_is_never_chosen(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)
    with pytest.raises(IllegalOrdersError) as e:
        g.play('\n[hidden]\n"air.T1" = { aircraft = ["Ju87-1", "Ju87-2", "He111-1", "Ju88-1", "PZL37-1", "IAR37-1"], roll = 6 }\n')
    assert "drawn, not chosen" in e.value.message


def test_pbem_hidden_shows_a_side_its_own_secrets_only(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)
    keys: dict[str, Path] = {}
    for s, k in g.keys.items():
        keys[s], _ = write_key_files(k, tmp_path / s)
    r = CliRunner().invoke(cli, ["hidden", str(g.state_path), "--key", str(keys["axis"]), "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["side"] == "axis" and set(got["draws"]) == {"air.T1"}
    r = CliRunner().invoke(cli, ["hidden", str(g.state_path), "--key", str(keys["soviet"])])
    assert r.exit_code == 0 and r.output == 'soviet reserve.T1 (hidden) = ""\n'  # no reserve, committed as such (15.14)


def load_aircraft() -> set[str]:
    from pbem.games.red_steel.data import load_scenario

    return set(load_scenario("training").aircraft)


def test_the_reserve_is_named_in_secret_and_opened_when_the_cup_is_made(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    said = checked(g, '\n[intro]\nreserve = "11TD"\n')  # 15.14: named in the open, it would tell the Axis
    assert "[hidden]" in said
    formation = sorted(load_formations())[0]
    g.play(f'\n[hidden]\n"reserve.T1" = "{formation}"\n')
    st = g.state().data
    assert "reserve.T1" in st["hidden"]["soviet"] and st["position"]["activation"]["reserve"] == ""
    assert own_hidden(g.state(), g.keys["soviet"])["hidden"] == {"reserve.T1": formation}
    while not str(g.state().data["awaits"]["step"]).endswith("soviet/move"):
        auto(g)
    assert g.state().data["awaits"]["open"] == {"soviet": ["reserve.T1"]}
    auto(g)  # the Soviet's movement file opens it; the cup is made without its marker
    st = g.state().data
    assert st["opened"]["soviet"]["reserve.T1"]["values"] == [formation]
    assert st["position"]["activation"]["reserve"] == formation and formation not in st["position"]["activation"]["track"]
    play_out(g)
    assert verify([g.folder]).transitions > 10


def test_a_reserve_that_is_no_formation_is_refused_by_its_sender(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    assert "'99XX' is not a Soviet formation of the scenario" in checked(g, '\n[hidden]\n"reserve.T1" = "99XX"\n')
    said = checked(g, '\n[hidden]\n"reserve.T5" = ""\n')
    assert "may not hide 'reserve.T5'" in said and 'commits the reserve, named or not: [hidden] "reserve.T1"' in said


def load_formations() -> tuple[str, ...]:
    from pbem.games.red_steel.data import load_scenario

    return load_scenario("training").formations


def checked(g: SkGame, body: str) -> str:
    """`pbem check` of a draft for the awaited step: its problems, as text (the draft is removed)."""
    p = g.write(body, sign=False)
    try:
        return " ".join(x.render() for x in check_orders(load_state(g.state_path), load_doc(p, "orders")).problems)
    finally:
        p.unlink()


def test_a_refereed_game_keeps_each_side_s_secret_out_of_the_other_s_views_and_reports(tmp_path: Path) -> None:
    g = refereed(tmp_path / "game")
    folder = g.folder
    formation = sorted(load_formations())[0]
    g.play(f'\n[intro]\nreserve = "{formation}"\n')  # with a referee the reserve is named in the open, to the referee
    full = g.state().data
    drawn = full["position"]["aircraft"]["drawn"]
    assert drawn and full["position"]["activation"]["reserve"] == formation
    seq = int(full["pbem"]["sequence"])
    views = {s: folder / f"{seq:04d}-{s}.view.toml" for s in SIDES}
    axis, soviet = (views[s].read_text(encoding="utf-8") for s in SIDES)
    assert not any(f'"{a}"' in soviet for a in drawn) and all(f'"{a}"' in axis for a in drawn)
    assert f'reserve = "{formation}"' in soviet and f'reserve = "{formation}"' not in axis
    reports = {s: (folder / f"{seq:04d}-{s}.report.md").read_text(encoding="utf-8") for s in SIDES}
    assert reports and not any(a in reports["soviet"] for a in drawn) and "the referee draws the Axis's aircraft" in reports["soviet"]
    assert formation not in reports["axis"].split("## Dice")[0]


def test_a_refereed_game_s_dice_of_a_secret_draw_stay_out_of_the_other_side_s_view(tmp_path: Path) -> None:
    """16.0: the faces of the draw would name the aircraft (the cup is sorted by id): the Soviet's
    view and report leave the air dice out; the Axis's keep them; the full state keeps every die."""
    from pbem.exchange.views import side_dice
    from pbem.games.red_steel.module import RedSteel as Module

    dice = [{"label": "16.0|T1/soviet/intro|aircraft", "sides": 6, "face": 4},
            {"label": "16.0|T1/soviet/intro|aircraft|draw 1", "sides": 6, "face": 2},
            {"label": "17.3|T1/soviet/intro|militia", "sides": 6, "face": 3},
            {"label": "15.1|T2/soviet/move|box 1|draw", "sides": 3, "face": 1}]
    state = {"transition": {"dice": dice}, "position": {"activation": {"reserve": "44TD"}}}
    assert [d["label"] for d in side_dice(Module(), state, "soviet")] == ["17.3|T1/soviet/intro|militia", "15.1|T2/soviet/move|box 1|draw"]
    assert [d["label"] for d in side_dice(Module(), state, "axis")] == [d["label"] for d in dice[:3]]
    state["position"]["activation"]["reserve"] = ""
    assert len(side_dice(Module(), state, "axis")) == 4 and state["transition"]["dice"] == dice


def test_the_attack_support_stays_hidden_until_the_defender_has_allocated_his(tmp_path: Path) -> None:
    """3.34b-c, A-12: the defender allocates in secret, the attacker places its support: without a
    referee the attacker commits its support hidden with its attacks, the defender replies without
    reading it, and the attacker opens it as it adjudicates the reply."""
    g = start(tmp_path / "game")
    while True:  # to an Axis combat step whose built-in orders attack with support
        st = g.state()
        if str(st.data["awaits"]["step"]).endswith("axis/combat"):
            body = RedSteel().propose(st.data, "axis")
            if "support.T" in body:
                break
        auto(g)
        assert st.data["awaits"]["kind"] != "none", "no supported attack in the whole game"
    auto(g)  # the combat file: the support is a commitment in it
    sent = sorted(g.folder.glob("*-axis.orders.toml"))[-1].read_text(encoding="utf-8")
    assert "support = [" not in sent and "[hidden" in sent and '"support.T' in sent
    st = g.state().data
    item = next(iter(st["awaits"]["open"]["axis"]))
    assert st["awaits"]["kind"] == "reply" and st["awaits"]["adjudicator"] == "axis" and item.startswith("support.T")
    assert all("support" not in a for a in st["pending"]["orders"]["attack"])  # the defender sees the targets and attackers only
    auto(g)  # the Soviet's reply; the Axis adjudicates it and opens its support
    st = g.state().data
    opened = st["opened"]["axis"][item]["values"][-1]
    report = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert opened and "attack support, committed in secret with its attacks and opened now" in report
    assert all(u in report for units in opened.values() for u in units)
    play_out(g)
    assert verify([g.folder]).transitions > 10


def test_support_given_in_the_open_without_a_referee_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    while not str(g.state().data["awaits"]["step"]).endswith("axis/combat"):
        auto(g)
    st = g.state().data
    target = enemy_hex(g)
    said = checked(g, f'\n[[attack]]\ntarget = "{target}"\nunits = ["G-I/IR47"]\nsupport = ["G-AR/1"]\n')
    assert "attack[0].support: in a game without a referee the attack support is hidden" in said
    said = checked(g, f'\n[hidden]\n"support.T{st["clock"]["turn"]}" = {{ "{target}" = ["G-AR/1"] }}\n')
    assert "support for no attack" in said


def test_a_refereed_game_plays_to_its_end_and_each_side_verifies_its_views(tmp_path: Path) -> None:
    """The whole training day refereed, every step from the built-in player: the full folder
    verifies, and so does each side's folder of its own views (state 0000, its views and reports)."""
    g = refereed(tmp_path / "game")
    while (aw := g.state().data["awaits"])["kind"] != "none":
        st = g.state()
        side = str(aw["from"][0])
        p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.{'reply' if aw['kind'] == 'reply' else 'orders'}.toml"
        write_new(p, order_text(st.data, side, RedSteel().propose(st.data, side)))
        p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
        g.adjudicate(p)
    last = g.state().data
    assert last["result"]["rule"] == "18.0" and "reveal" not in [last["awaits"]["step"]]
    res = verify([g.folder])
    assert res.transitions == len(list(g.folder.glob("*.state.toml"))) - 1
    for side in SIDES:
        mine = tmp_path / side
        mine.mkdir()
        for p in [g.folder / "0000.state.toml", *g.folder.glob(f"*-{side}.view.toml")]:
            (mine / p.name).write_bytes(p.read_bytes())
        assert verify([mine]).views == len(list(g.folder.glob(f"*-{side}.view.toml"))) > 10
