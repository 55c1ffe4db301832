"""Seals, the hash chain, the dice protocol, verification by replay and audit, on a three-sided
Skirmish game with Proud Monster out of the registry: each step's dice come from the sender's and
the adjudicator's secrets; the third side's commitment stays as it was; anyone replays the whole
history."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.errors import IllegalOrdersError, TamperError, VerificationError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.chain import audit, verify
from pbem.exchange.files import dumps
from pbem.exchange.game import check_orders, load_doc, load_state
from pbem.mechanics.dice import face_from_seed
from tests.exchange.neutral.conftest import RED_T1, SkGame, reply_body, start_game


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_the_history_verifies_and_names_its_adjudicators(replied: SkGame) -> None:
    res = verify([replied.folder])
    assert (res.states, res.transitions, res.reports) == (5, 4, 4)
    assert res.anchor == str(replied.folder / "0000.state.toml")
    signers = [load_state(replied.folder / f"{n:04d}.state.toml").data["seal"]["signer"] for n in range(5)]
    assert signers == ["red", "red", "blue", "red", "green"], "creator, joins, red's orders, green's reply, blue's orders"
    last = replied.state().data
    assert last["awaits"] == {"kind": "orders", "step": "T1/green", "from": ["green"], "adjudicator": "red"}


def test_each_steps_dice_are_the_senders_and_the_adjudicators(replied: SkGame) -> None:
    s1, s2, s3 = (load_state(replied.folder / f"{n:04d}.state.toml") for n in (1, 2, 3))
    assert sorted(s2.data["transition"]["reveals"]) == ["blue", "red"]
    assert sorted(s2.data["transition"]["attestations"]) == ["red"]
    assert s2.data["parties"]["green"] == s1.data["parties"]["green"], "the third side reveals nothing and keeps its commitment"
    assert sorted(s3.data["transition"]["reveals"]) == ["green", "red"], "a reply: the defender's and the attacker's"
    for party, rev in s2.data["transition"]["reveals"].items():
        assert proto.reveal_matches(rev, s1.data["parties"][party]["commit"])
    seed = proto.transition_seed(s1.digest, s2.data["transition"]["reveals"])
    assert s2.data["transition"]["seed"] == seed.hex()
    (die,) = s2.data["transition"]["dice"]
    assert die["label"] == "4.4|T1/red|attack 1|west-fields|combat" and die["sides"] == 6
    assert face_from_seed(seed, die["label"], 6)[0] == die["face"]
    assert s2.data["pending"]["combat"]["die"] == die["face"], "the reply finishes the attack with this die"
    assert not s3.data["transition"]["dice"], "the reply's step rolls no die of its own"


def test_audit_rederives_every_die_and_catches_a_changed_face(replied: SkGame) -> None:
    a = audit(replied.folder / "0002.state.toml")
    assert [c["party"] for c in a["commitments"]] == ["blue", "red"] and all(c["matches"] for c in a["commitments"])
    assert [(d["label"], d["recorded"] == d["derived"]) for d in a["dice"]] == [("4.4|T1/red|attack 1|west-fields|combat", True)]
    assert audit(replied.folder / "0001.state.toml")["note"] == "the transition from the joins rolls no dice"
    p = replied.folder / "0002.state.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    data["transition"]["dice"][0]["face"] = data["transition"]["dice"][0]["face"] % 6 + 1
    p.write_text(dumps(seal(unsealed(data), "blue", replied.keys["blue"])), encoding="utf-8")  # blue adjudicated it
    with pytest.raises(TamperError) as e:
        audit(p)
    assert e.value.exit_code == 3 and "but the seed gives" in e.value.message


def test_a_changed_state_breaks_its_seal_and_a_resealed_one_does_not_follow(replied: SkGame) -> None:
    p = replied.folder / "0003.state.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    data["position"]["units"]["R5"]["at"] = "crossroads"
    p.write_text(dumps(data), encoding="utf-8")
    with pytest.raises(TamperError) as e:
        verify([replied.folder])
    assert e.value.exit_code == 3 and str(p) in e.value.message and "signature does not match" in e.value.message
    p.write_text(dumps(seal(unsealed(data), "red", replied.keys["red"])), encoding="utf-8")  # red adjudicated the reply
    with pytest.raises(VerificationError) as v:
        verify([replied.folder])
    assert v.value.exit_code == 1 and "does not follow from" in v.value.message
    assert "first difference at position.units.R5" in v.value.message


def test_a_state_sealed_by_a_side_that_did_not_adjudicate_the_step_is_refused(replied: SkGame) -> None:
    p = replied.folder / "0004.state.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    p.write_text(dumps(seal(unsealed(data), "red", replied.keys["red"])), encoding="utf-8")  # green adjudicated blue's orders
    with pytest.raises(TamperError) as e:
        verify([replied.folder])
    assert "sealed by 'red', but 'green' adjudicates this step" in e.value.message


def test_orders_of_a_side_not_awaited_or_answering_an_old_state_are_refused(sk: SkGame) -> None:
    p = sk.write(RED_T1, side="blue", sign=False)
    with pytest.raises(IllegalOrdersError) as e:
        check_orders(sk.state(), load_doc(p, "orders"))
    assert "'blue' is not awaited; the step awaits red" in e.value.problems[0].message and e.value.problems[0].rule == "2.1"
    p.unlink()
    red = sk.write(RED_T1)
    sk.adjudicate(red)
    with pytest.raises(TamperError) as t:
        check_orders(sk.state(), load_doc(red, "orders"))
    assert "answers state" in t.value.message


def test_the_same_inputs_give_byte_identical_files(tmp_path: Path) -> None:
    games = [start_game(tmp_path / name) for name in ("a", "b")]
    for g in games:
        g.play(RED_T1)
        g.play(reply_body(g.state().data))
    assert files_of(games[0].folder) == files_of(games[1].folder)
    other = start_game(tmp_path / "c", seed="another")
    other.play(RED_T1)
    assert other.state().data["transition"]["seed"] != load_state(games[0].folder / "0002.state.toml").data["transition"]["seed"]


def test_the_built_in_player_plays_a_whole_game_that_verifies(tmp_path: Path) -> None:
    """Three sides, every step answered by the built-in player (orders and replies), each file
    legal, until the game ends (5.2, 5.3); then the whole history replays."""
    g = start_game(tmp_path / "game", scenario="crossroads", standing={}, seed="auto 2")
    steps = []
    while g.state().data["awaits"]["kind"] != "none":
        assert len(steps) < 40, "a game of three game turns ends"
        steps.append(g.state().data["awaits"]["step"])
        g.auto()
    result = g.state().data["result"]
    assert result["rule"] in ("5.2", "5.3") and result["winner"] in ("red", "blue", "green")
    assert [s for s in steps if "reply" not in s][:3] == ["T1/red", "T1/blue", "T1/green"]
    res = verify([g.folder])
    assert res.transitions == len(steps) + 1 and res.reports == res.transitions
    assert [s for s in steps if "/reply-" in s] == ["T1/green/reply-1", "T2/blue/reply-1", "T3/blue/reply-1"], \
        "the built-in player sends no standing instructions: it is asked, and answers"
