"""The exchange layer (DESIGN §3-§4): seals, the hash chain, order envelopes, the dice protocol,
verification by replay, determinism, die fairness, audit, key files and the canonical form."""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from pbem import __version__
from pbem.demo import order_text
from pbem.errors import (
    EXIT_ILLEGAL,
    EXIT_MALFORMED,
    EXIT_TAMPER,
    IllegalOrdersError,
    MalformedFileError,
    TamperError,
    UsageError,
    VerificationError,
)
from pbem.exchange import dice as proto
from pbem.exchange.canonical import canonical, check_seal, seal, unsealed
from pbem.exchange.chain import audit, verify
from pbem.exchange.files import dumps, write_all_new, write_new
from pbem.exchange.game import (
    adjudicate,
    check_orders,
    check_state_seal,
    envelope,
    load_doc,
    load_state,
    next_state,
    sign_orders,
)
from pbem.exchange.keys import PASSPHRASE_ENV, KeyPair, load_key, write_key_files
from pbem.mechanics.dice import ALGORITHM, MAX_SIDES, DiceError, face_from_seed, hmac_stream
from tests.conftest import GERMAN_GT1, SOVIET_STANDING, Game, start_game

# --- helpers -----------------------------------------------------------------------------------


def read(p: Path) -> dict[str, Any]:
    return tomllib.loads(p.read_text(encoding="utf-8"))


def write(p: Path, data: dict[str, Any]) -> None:
    p.write_text(tomli_w.dumps(data), encoding="utf-8")


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def next_of(g: Game, order: Path) -> tuple[dict[str, Any], str]:
    """Adjudicate ``order`` against the game's current state with the right key; nothing written."""
    st = g.state()
    res = adjudicate(st, [load_doc(order, "orders")], g.keys[st.data["awaits"]["adjudicator"]])
    return res.state, res.report


def resealed(data: dict[str, Any], signer: str, key: KeyPair) -> dict[str, Any]:
    return seal(unsealed(data), signer, key)


# --- seals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "change"),
    [
        ("position.vp", lambda d: d["position"].__setitem__("vp", d["position"]["vp"] + 1)),
        ("position.units.Pz1.at", lambda d: d["position"]["units"]["Pz1"].__setitem__("at", "4817N")),
        ("parties.german.commit", lambda d: d["parties"]["german"].__setitem__("commit", "sha256:" + "0" * 64)),
        ("transition.dice[0].face", lambda d: d["transition"]["dice"][0].__setitem__("face", d["transition"]["dice"][0]["face"] % 6 + 1)),
    ],
)
def test_a_changed_value_in_a_sealed_state_breaks_its_seal(played: Game, where: str, change: Any) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    change(data)
    write(p, data)
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert e.value.exit_code == EXIT_TAMPER == 3
    assert str(p) in e.value.message
    assert "signature does not match the content" in e.value.message
    with pytest.raises(TamperError):
        load_state(p)


def test_an_unchanged_state_verifies(played: Game) -> None:
    res = verify([played.folder])
    assert (res.states, res.transitions, res.reports) == (4, 3, 3)
    assert res.last == str(played.folder / "0003.state.toml")


def test_a_changed_sealed_order_file_is_rejected_at_adjudication(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1)
    data = read(p)
    data["attack"][0]["losses"] = ["Pz1"]
    write(p, data)
    before = files_of(game.folder)
    with pytest.raises(TamperError) as e:
        game.adjudicate(p)
    assert e.value.exit_code == 3
    assert str(p) in e.value.message and "signature does not match" in e.value.message
    assert files_of(game.folder) == before


def test_a_state_without_seal_is_tampering(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    del data["seal"]
    write(p, data)
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert e.value.exit_code == 3
    assert f"{p}: the state has no seal" in e.value.message
    with pytest.raises(TamperError):
        load_state(p)


def test_a_state_without_seal_and_with_schema_errors_is_tampering(played: Game) -> None:
    """A state is signed: one without its seal is tampering (exit 3) whatever else is wrong with it."""
    p = played.folder / "0002.state.toml"
    data = read(p)
    del data["seal"]
    data["clock"]["turn"] = "one"
    write(p, data)
    with pytest.raises(TamperError) as e:
        load_state(p)
    assert e.value.exit_code == 3 and e.value.message == f"{p}: the state has no seal"


def test_an_order_file_without_seal_is_rejected_at_adjudication(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1, sign=False)
    with pytest.raises(TamperError) as e:
        game.adjudicate(p)
    assert e.value.message == f"{p}: the file is not sealed"
    # while `check` accepts an unsealed draft
    c = check_orders(game.state(), load_doc(p, "orders"))
    assert c.problems == [] and c.sealed is False


def test_a_state_resealed_by_the_wrong_party_is_a_forgery(played: Game) -> None:
    # 0002 was adjudicated (sealed) by the soviet player.
    p = played.folder / "0002.state.toml"
    data = read(p)
    assert data["seal"]["signer"] == "soviet"
    # the german re-seals it in the soviet's name: the key is not the soviet's
    write(p, resealed(data, "soviet", played.keys["german"]))
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert "but the game expects" in e.value.message and "for signer 'soviet'" in e.value.message
    # the german re-seals it in his own name: he does not adjudicate that step
    write(p, resealed(data, "german", played.keys["german"]))
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert e.value.message == f"{p}: sealed by 'german', but 'soviet' adjudicates this step"


def test_a_state_sealed_by_an_outsider_is_rejected(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    write(p, resealed(data, "mallory", KeyPair.from_seed(b"mallory")))
    with pytest.raises(TamperError) as e:
        load_state(p)
    assert "'mallory', who is not a party of the game" in e.value.message


def test_orders_sealed_with_another_key_are_a_forgery(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1, sign=False)
    d = load_doc(p, "orders")
    # the soviet writes orders in the german's name (`pbem sign` refuses: the key is not the german's)
    with pytest.raises(UsageError, match="is not german's key in this game"):
        sign_orders(p, p.read_text(encoding="utf-8"), d.data, game.keys["soviet"], game.state())
    body = {**d.data, "dice": {"reveal": game.secret("german", 0), "commit": proto.commitment(game.secret("german", 1))}}
    write(p, seal(body, "german", game.keys["soviet"]))
    with pytest.raises(TamperError) as e:
        check_orders(game.state(), load_doc(p, "orders"))
    assert "but the game expects" in e.value.message and "signer 'german'" in e.value.message
    with pytest.raises(TamperError):
        game.adjudicate(p)


# --- the envelope: game, state, side, step ------------------------------------------------------


def test_an_order_file_reused_one_step_later_is_rejected(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1)
    game.adjudicate(p)
    game.play(SOVIET_STANDING)  # the german is to move again
    st = game.state()
    before = files_of(game.folder)
    with pytest.raises(TamperError) as e:
        adjudicate(st, [load_doc(p, "orders")], game.keys["soviet"])
    assert e.value.exit_code == 3
    assert f"{p}: answers state" in e.value.message and str(st.path) in e.value.message
    with pytest.raises(TamperError):
        check_orders(st, load_doc(p, "orders"))
    assert files_of(game.folder) == before


def test_orders_answering_an_older_state_digest_are_rejected(game: Game) -> None:
    old = load_state(game.folder / "0000.state.toml")
    st = game.state()
    text = order_text(st.data, "german", GERMAN_GT1).replace(st.digest, old.digest)
    p = game.folder / "0001-german.orders.toml"
    write_new(p, text)
    d = load_doc(p, "orders")
    p.write_text(sign_orders(p, text, d.data, game.keys["german"], st), encoding="utf-8")
    with pytest.raises(TamperError) as e:
        game.adjudicate(p)
    assert f"answers state {old.digest[:19]}..., not {st.path}" in e.value.message


def test_orders_for_another_game_are_rejected(game: Game) -> None:
    st = game.state()
    text = order_text(st.data, "german", GERMAN_GT1).replace('game = "pm-test"', 'game = "pm-other"')
    p = game.folder / "0001-german.orders.toml"
    write_new(p, text)
    with pytest.raises(TamperError) as e:
        check_orders(st, load_doc(p, "orders"))
    assert e.value.message == f"{p}: belongs to game 'pm-other', not 'pm-test'"


def test_orders_of_the_wrong_side_are_illegal(game: Game) -> None:
    p = game.write_orders("", side="soviet")
    with pytest.raises(IllegalOrdersError) as e:
        game.adjudicate(p)
    assert e.value.exit_code == EXIT_ILLEGAL == 1
    [prob] = e.value.problems
    assert (prob.where, prob.rule) == (f"{p}: pbem.side", "5.1")
    assert prob.message == "'soviet' is not awaited; the step awaits german"


def test_orders_for_the_wrong_step_are_illegal(game: Game) -> None:
    st = game.state()
    text = order_text(st.data, "german", GERMAN_GT1).replace('step = "GT1/1/german"', 'step = "GT2/1/german"')
    p = game.folder / "0001-german.orders.toml"
    write_new(p, text)
    with pytest.raises(IllegalOrdersError) as e:
        check_orders(st, load_doc(p, "orders"))
    [prob] = e.value.problems
    assert (prob.where, prob.rule) == (f"{p}: pbem.step", "5.1")
    assert "'GT2/1/german' is not the awaited step 'GT1/1/german'" == prob.message


def test_a_join_file_for_an_orders_step_is_illegal(game: Game) -> None:
    j = game.folder / "0000-german.join.toml"
    data = read(j)
    data["pbem"]["answers"] = game.state().digest
    p = game.folder / "late.join.toml"
    write(p, resealed(data, "german", game.keys["german"]))
    with pytest.raises(IllegalOrdersError) as e:
        check_orders(game.state(), load_doc(p, "orders"))
    rules = {(x.where, x.rule) for x in e.value.problems}
    assert rules == {(f"{p}: pbem.kind", "5.1"), (f"{p}: pbem.step", "5.1")}


# --- dice --------------------------------------------------------------------------------------


def test_a_reveal_that_does_not_match_the_commitment_is_tampering(game: Game) -> None:
    st = game.state()
    key = game.keys["german"]
    p = game.folder / "0001-german.orders.toml"
    write_new(p, order_text(st.data, "german", GERMAN_GT1))
    body = load_doc(p, "orders").data
    # dice_index 0 as awaited, but the reveal is another secret of the chain
    body["dice"] = {"reveal": game.secret("german", 5), "commit": proto.commitment(game.secret("german", 1))}
    body["dice"]["attest"] = proto.attest(key, body["pbem"], body["dice"])
    write(p, seal(body, "german", key))
    with pytest.raises(TamperError) as e:
        game.adjudicate(p)
    assert e.value.message == f"{p}: the dice reveal does not match german's commitment in the state"


def test_a_wrong_dice_index_is_tampering(game: Game) -> None:
    st = game.state()
    p = game.folder / "0001-german.orders.toml"
    text = order_text(st.data, "german", GERMAN_GT1).replace("dice_index = 0", "dice_index = 1")
    write_new(p, text)
    with pytest.raises(UsageError, match="dice_index 1, but german's next secret"):  # pbem sign refuses it
        sign_orders(p, text, load_doc(p, "orders").data, game.keys["german"], st)
    body = load_doc(p, "orders").data
    body["dice"] = {"reveal": game.secret("german", 1), "commit": proto.commitment(game.secret("german", 2))}
    body["dice"]["attest"] = proto.attest(game.keys["german"], body["pbem"], body["dice"])
    write(p, seal(body, "german", game.keys["german"]))
    with pytest.raises(TamperError) as e:
        game.adjudicate(p)
    assert "dice_index 1 but german's next secret is number 0" in e.value.message


def test_the_adjudicator_cannot_use_another_reveal(game: Game) -> None:
    st = game.state()
    p = game.write_orders(GERMAN_GT1)
    sub = envelope(st, load_doc(p, "orders")).submission
    wrong = game.secret("soviet", 1)  # not the committed secret number 0
    with pytest.raises(TamperError) as e:
        next_state(st, [sub], wrong, proto.commitment(game.secret("soviet", 2)))
    assert "the adjudicator's (soviet) dice reveal does not match its commitment" in e.value.message


def test_verify_catches_an_adjudicator_that_changed_its_reveal(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    data["transition"]["reveals"]["soviet"] = played.secret("soviet", 7)
    write(p, resealed(data, "soviet", played.keys["soviet"]))
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert "the adjudicator's (soviet) dice reveal does not match its commitment" in e.value.message


def test_secret_chain_and_commitments(played: Game) -> None:
    k = played.keys["german"]
    origin = load_state(played.folder / "0000.state.toml").digest
    salt = str(played.state().data["parties"]["german"]["salt"])
    s0 = proto.secret(k, origin, salt, 0)
    assert len(s0) == 64 and int(s0, 16) >= 0
    assert proto.secret(k, origin, salt, 0) == s0 == played.secret("german", 0)  # derived, nothing stored
    assert proto.secret(k, origin, salt, 1) != s0
    assert proto.secret(k, "sha256:" + "ab" * 32, salt, 0) != s0  # bound to the game's first state
    assert proto.secret(k, origin, "cd" * 16, 0) != s0  # and to the party's salt
    assert proto.secret(played.keys["soviet"], origin, salt, 0) != s0
    assert proto.commitment(s0) == "sha256:" + hashlib.sha256(bytes.fromhex(s0)).hexdigest()
    assert proto.reveal_matches(s0, proto.commitment(s0))
    assert not proto.reveal_matches(proto.secret(k, origin, salt, 1), proto.commitment(s0))
    assert not proto.reveal_matches("not hex", proto.commitment(s0))
    # every state records, for each party, the commitment to its secret number `index`
    states = [load_state(p) for p in sorted(played.folder.glob("*.state.toml"))]
    assert [int(s.data["pbem"]["sequence"]) for s in states] == [0, 1, 2, 3]
    for st in states[1:]:
        assert st.data["pbem"]["origin"] == origin
        for side, party in st.data["parties"].items():
            assert party["commit"] == proto.commitment(played.secret(side, int(party["index"])))
    # each reveal in a transition is secret number `index` of the previous state, hashing to its commitment
    seen = 0
    for prev, cur in zip(states, states[1:], strict=False):
        for side, rev in cur.data["transition"]["reveals"].items():
            pp = prev.data["parties"][side]
            assert rev == played.secret(side, int(pp["index"]))
            assert proto.commitment(rev) == pp["commit"]
            assert int(cur.data["parties"][side]["index"]) == int(pp["index"]) + 1
            seen += 1
    assert seen == 4  # two transitions with dice, two reveals each


def test_the_adjudicators_reveal_matches_its_earlier_commitment(played: Game) -> None:
    for n, adj in ((2, "soviet"), (3, "german")):
        prev = load_state(played.folder / f"{n - 1:04d}.state.toml")
        cur = load_state(played.folder / f"{n:04d}.state.toml")
        assert prev.data["awaits"]["adjudicator"] == adj == cur.data["seal"]["signer"]
        rev = cur.data["transition"]["reveals"][adj]
        assert proto.commitment(rev) == prev.data["parties"][adj]["commit"]
        assert cur.data["parties"][adj]["commit"] == proto.commitment(played.secret(adj, int(prev.data["parties"][adj]["index"]) + 1))
        # the seed: the previous state's digest (which every input answers) and the reveals, nothing else
        seed = proto.transition_seed(prev.digest, cur.data["transition"]["reveals"])
        assert cur.data["transition"]["seed"] == seed.hex()


# --- the chain, replay and reports --------------------------------------------------------------


def test_a_fork_is_detected(played: Game, tmp_path: Path) -> None:
    # a second game from the same start, where the german sends other orders for GT1
    other = start_game(tmp_path / "other")
    other.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')
    alt = other.folder / "0002.state.toml"
    assert alt.read_bytes() != (played.folder / "0002.state.toml").read_bytes()
    shutil.copy(alt, played.folder / "0002-alt.state.toml")
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert e.value.exit_code == 3
    # both are sealed by the soviet, who adjudicated that step: he signed two states for one step
    assert e.value.message.startswith("equivocation: 'soviet' signed two different files for one step, state 0002")
    assert "0002.state.toml" in e.value.message and "0002-alt.state.toml" in e.value.message
    assert [p.rule for p in e.value.problems] == ["equivocation", "equivocation"]


def test_the_same_state_twice_is_not_a_fork(played: Game) -> None:
    shutil.copy(played.folder / "0002.state.toml", played.folder / "0002-copy.state.toml")
    assert verify([played.folder]).states == 4


def test_a_validly_sealed_state_that_does_not_follow_from_its_inputs(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    data["position"]["vp"] = 5
    write(p, resealed(data, "soviet", played.keys["soviet"]))
    load_state(p)  # the seal is good
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert e.value.exit_code == 1
    assert e.value.message.startswith(f"{p}: does not follow from {played.folder / '0001.state.toml'}")
    assert "first difference at position.vp" in e.value.message


def test_a_validly_sealed_state_with_a_changed_die_face(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    die = data["transition"]["dice"][0]
    die["face"] = die["face"] % 6 + 1
    write(p, resealed(data, "soviet", played.keys["soviet"]))
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert "first difference at" in e.value.message
    with pytest.raises(TamperError) as e2:
        audit(p)
    assert f"die '{die['label']}' is recorded as {die['face']}" in e2.value.message


def test_a_changed_report_fails_verification(played: Game) -> None:
    r = played.folder / "0002.report.md"
    r.write_text(r.read_text(encoding="utf-8").replace("d6 = ", "d6 = 1"), encoding="utf-8")
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert e.value.exit_code == 1
    assert e.value.message == f"{r}: the report does not match the transition it describes"


def test_a_missing_input_fails_verification(played: Game) -> None:
    (played.folder / "0001-german.orders.toml").unlink()
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert "0002.state.toml: input sha256:" in e.value.message and "is not in the folder" in e.value.message


def test_a_missing_state_breaks_the_chain(played: Game) -> None:
    (played.folder / "0002.state.toml").unlink()
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert e.value.message == "states missing from the chain: sequence 2"


def test_an_absurd_sequence_number_is_one_gap_in_the_chain(played: Game) -> None:
    """A state that claims sequence 2**60 (sealed again by its signer) makes one gap, named as a
    range, not a list of every number in between."""
    import tomllib

    from pbem.exchange.canonical import seal
    from pbem.exchange.files import dumps

    p = played.folder / "0003.state.toml"
    d = tomllib.loads(p.read_text(encoding="utf-8"))
    d.pop("seal")
    d["pbem"]["sequence"] = 2**60
    signer = tomllib.loads((played.folder / "0002.state.toml").read_text(encoding="utf-8"))["seal"]["signer"]
    p.write_text(dumps(seal(d, signer, played.keys[signer])), encoding="utf-8")
    with pytest.raises(VerificationError) as e:
        verify([played.folder])
    assert e.value.message == f"states missing from the chain: sequence 3-{2**60 - 1}"


def test_a_state_from_another_chain_is_rejected(played: Game, tmp_path: Path) -> None:
    other = start_game(tmp_path / "other")
    other.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')
    other.play(SOVIET_STANDING)
    # replace 0003 by the other game's 0003: its previous digest is another 0002
    shutil.copy(other.folder / "0003.state.toml", played.folder / "0003.state.toml")
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert "its previous-state digest is not that of" in e.value.message


# --- determinism -------------------------------------------------------------------------------


def test_same_inputs_give_byte_identical_files(tmp_path: Path) -> None:
    out = []
    for name in ("a", "b"):
        g = start_game(tmp_path / name)
        g.play(GERMAN_GT1)
        g.play(SOVIET_STANDING)
        out.append(files_of(g.folder))
    a, b = out
    assert sorted(a) == sorted(b) and len(a) == 12  # 4 states, 3 reports, 1 picture, 2 joins, 2 order files
    for name in a:
        assert a[name] == b[name], name
    # and the dice of the attack were really rolled
    assert read(tmp_path / "a" / "0002.state.toml")["transition"]["dice"]


# --- die faces ---------------------------------------------------------------------------------

SEED = hashlib.sha256(b"pbem uniformity test").digest()


def chi_square(sides: int, n: int) -> float:
    counts = [0] * sides
    for i in range(n):
        face, _ = face_from_seed(SEED, f"label {i}", sides)
        assert 1 <= face <= sides
        counts[face - 1] += 1
    expected = n / sides
    return sum((c - expected) ** 2 / expected for c in counts)


def test_d6_faces_are_uniform() -> None:
    assert chi_square(6, 60_000) < 20.515  # p = 0.001, 5 degrees of freedom


def test_d20_faces_are_uniform() -> None:
    assert chi_square(20, 60_000) < 43.82  # p = 0.001, 19 degrees of freedom


def test_no_modulo_bias_where_naive_modulo_would_be_strongly_biased() -> None:
    # d100 from one byte: `byte % 100` gives faces 1-56 three bytes each and 57-100 only two
    n = 60_000
    fair = [0] * 100
    naive = [0] * 100
    for i in range(n):
        fair[face_from_seed(SEED, f"label {i}", 100)[0] - 1] += 1
        naive[hmac_stream(SEED, f"label {i}", 0)[0] % 100] += 1
    def ratio(c: list[int]) -> float:
        return (sum(c[:56]) / 56) / (sum(c[56:]) / 44)
    assert 0.95 < ratio(fair) < 1.05
    assert ratio(naive) > 1.4


def _label_whose_first_byte(pred: Any, sides: int) -> tuple[str, bytes]:
    for i in range(100_000):
        label = f"14.31|test|{i}"
        stream = hmac_stream(SEED, label, 0)
        if pred(stream[0]):
            return label, stream
    raise AssertionError("no such label")


def test_rejection_sampling_for_d6_rejects_bytes_252_and_above() -> None:
    label, stream = _label_whose_first_byte(lambda b: b >= 252, 6)
    assert stream == hmac.new(SEED, label.encode("utf-8"), hashlib.sha256).digest()
    face, trail = face_from_seed(SEED, label, 6)
    k = next(i for i, b in enumerate(stream) if b < 252)
    assert k >= 1
    assert trail == [(0, b, False) for b in stream[:k]] + [(0, stream[k], True)]
    assert face == stream[k] % 6 + 1


def test_rejection_sampling_accepts_251_for_d6_and_rejects_240_for_d20() -> None:
    label, stream = _label_whose_first_byte(lambda b: b == 251, 6)
    face, trail = face_from_seed(SEED, label, 6)
    assert trail == [(0, 251, True)] and face == 251 % 6 + 1 == 6
    label, stream = _label_whose_first_byte(lambda b: 240 <= b < 252, 20)
    face, trail = face_from_seed(SEED, label, 20)
    assert trail[0] == (0, stream[0], False)
    k = next(i for i, b in enumerate(stream) if b < 240)
    assert face == stream[k] % 20 + 1
    # the same byte is accepted for a d6
    assert face_from_seed(SEED, label, 6)[1][0] == (0, stream[0], stream[0] < 252)


def test_a_fully_rejected_block_continues_with_the_next_block(monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.mechanics.dice as md

    real = md.hmac_stream
    seen: list[tuple[str, int]] = []

    def fake(seed: bytes, label: str, block: int) -> bytes:
        seen.append((label, block))
        return bytes([255] * 32) if block == 0 else real(seed, label, block)

    monkeypatch.setattr(md, "hmac_stream", fake)
    face, trail = md.face_from_seed(SEED, "x", 6)
    nxt = hmac.new(SEED, b"x#1", hashlib.sha256).digest()
    k = next(i for i, b in enumerate(nxt) if b < 252)
    assert trail[:32] == [(0, 255, False)] * 32
    assert trail[32:] == [(1, b, False) for b in nxt[:k]] + [(1, nxt[k], True)]
    assert face == nxt[k] % 6 + 1
    assert seen == [("x", 0), ("x", 1)]


@pytest.mark.parametrize("sides", [0, 1, MAX_SIDES + 1])
def test_impossible_dice_are_refused(sides: int) -> None:
    with pytest.raises(DiceError, match=f"not {sides}"):
        face_from_seed(SEED, "x", sides)


# --- audit -------------------------------------------------------------------------------------


def test_audit_rederives_every_die(played: Game) -> None:
    total = 0
    for n in (1, 2, 3):
        p = played.folder / f"{n:04d}.state.toml"
        res = audit(p)
        cur = read(p)
        assert res["sequence"] == n and res["algorithm"] == ALGORITHM
        assert [r["label"] for r in res["dice"]] == [d["label"] for d in cur["transition"]["dice"]]
        for row, rec in zip(res["dice"], cur["transition"]["dice"], strict=True):
            assert row["recorded"] == rec["face"] == row["derived"] and row["matches"] is True
            # independently: HMAC-SHA-256(seed, label), rejection sampling
            seed = bytes.fromhex(res["seed"])
            stream = hmac.new(seed, row["label"].encode("utf-8"), hashlib.sha256).digest()
            assert row["hmac"] == stream.hex()
            limit = 256 - 256 % row["sides"]
            accepted = [b for b in stream if b < limit]
            assert row["byte"] == accepted[0] and row["rejected"] == stream.index(accepted[0])
            assert rec["face"] == accepted[0] % row["sides"] + 1
            total += 1
        if n == 1:  # the joins: no dice, no seed
            assert res["seed"] == cur["transition"]["seed"] == "" and res["dice"] == [] and res["commitments"] == []
            assert res["note"] == "the transition from the joins rolls no dice"
            continue
        assert [c["party"] for c in res["commitments"]] == ["german", "soviet"]
        assert all(c["matches"] for c in res["commitments"])
        assert hashlib.sha256(canonical(res["seed_material"])).hexdigest() == res["seed"] == cur["transition"]["seed"]
    assert total >= 1
    assert audit(played.folder / "0000.state.toml")["dice"] == []


def test_audit_refuses_a_reveal_that_does_not_match(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    data["transition"]["reveals"]["german"] = played.secret("german", 9)
    write(p, resealed(data, "soviet", played.keys["soviet"]))
    with pytest.raises(TamperError) as e:
        audit(p)
    assert e.value.message == f"{p}: german's reveal does not match its commitment in {played.folder / '0001.state.toml'}"


# --- keys --------------------------------------------------------------------------------------


def test_private_key_file_has_mode_0600(tmp_path: Path) -> None:
    k = KeyPair.from_seed(b"alice")
    key, pub = write_key_files(k, tmp_path / "alice")
    assert (key.name, pub.name) == ("alice.key", "alice.pub")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert pub.read_text(encoding="ascii") == k.public_text + "\n"
    assert key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert load_key(key).public_text == k.public_text


def test_a_passphrase_protected_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    k = KeyPair.from_seed(b"bob")
    key, _ = write_key_files(k, tmp_path / "bob", b"correct horse")
    assert key.read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert load_key(key, b"correct horse").public_text == k.public_text
    with pytest.raises(MalformedFileError) as e:
        load_key(key, b"wrong horse")
    assert e.value.exit_code == 2 and str(key) in e.value.message and "wrong passphrase" in e.value.message
    with pytest.raises(UsageError) as e2:
        load_key(key)
    assert e2.value.message == f"{key}: the key is protected by a passphrase"
    assert PASSPHRASE_ENV in e2.value.hint
    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse")
    assert load_key(key).public_text == k.public_text
    monkeypatch.setenv(PASSPHRASE_ENV, "wrong horse")
    with pytest.raises(MalformedFileError):
        load_key(key)


def test_a_passphrase_for_an_unprotected_key_is_refused(tmp_path: Path) -> None:
    key, _ = write_key_files(KeyPair.from_seed(b"carol"), tmp_path / "carol")
    with pytest.raises(UsageError, match="not protected by a passphrase"):
        load_key(key, b"something")


def test_write_key_files_refuses_to_overwrite(tmp_path: Path) -> None:
    key, pub = write_key_files(KeyPair.from_seed(b"dave"), tmp_path / "dave")
    before = (key.read_bytes(), pub.read_bytes())
    with pytest.raises(UsageError) as e:
        write_key_files(KeyPair.from_seed(b"eve"), tmp_path / "dave")
    assert e.value.message == f"{key}: already exists; pbem never overwrites a key"
    assert (key.read_bytes(), pub.read_bytes()) == before
    # a left-over .pub alone also blocks, and no .key is written
    (tmp_path / "frank.pub").write_text("x", encoding="ascii")
    with pytest.raises(UsageError):
        write_key_files(KeyPair.from_seed(b"frank"), tmp_path / "frank")
    assert not (tmp_path / "frank.key").exists()


def test_a_file_that_is_not_a_key(tmp_path: Path) -> None:
    p = tmp_path / "x.key"
    p.write_text("hello", encoding="ascii")
    with pytest.raises(MalformedFileError, match="not a readable private key"):
        load_key(p)
    with pytest.raises(UsageError, match="cannot read the key file"):
        load_key(tmp_path / "missing.key")


# --- canonical form ----------------------------------------------------------------------------


def test_reformatting_a_sealed_order_file_keeps_its_seal(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1)
    original = load_doc(p, "orders")
    text = p.read_text(encoding="utf-8")
    assert "\r" not in text
    d = original.data
    dice_inline = f'dice = {{ reveal = "{d["dice"]["reveal"]}", commit = "{d["dice"]["commit"]}", attest = "{d["dice"]["attest"]}" }}\n'
    without_dice_table = text.replace(f'[dice]\nreveal = "{d["dice"]["reveal"]}"\ncommit = "{d["dice"]["commit"]}"\n'
                                      f'attest = "{d["dice"]["attest"]}"\n', "")
    assert "[dice]" not in without_dice_table
    variants = {
        "crlf": text.replace("\n", "\r\n"),
        "spaces": "# a comment at the top\n\n"
        + text.replace(" = ", "   =\t").replace("\n[", "\n\n\n   [").replace("\n", "   # note\n"),
        "re-dumped": tomli_w.dumps(d).replace("\n", "\r\n"),
        "inline": dice_inline + without_dice_table,
    }
    st = game.state()
    for name, v in variants.items():
        assert v.encode() != text.encode(), name
        q = game.folder / f"{name}.orders.toml"
        q.write_bytes(v.encode("utf-8"))
        d = load_doc(q, "orders")
        assert canonical(d.data) == canonical(original.data), name
        assert d.digest == original.digest, name
        check_seal(d.data, str(q), game.keys["german"].public_text)
        envelope(st, d)
    # the state adjudicated from the CRLF file is the same as from the original
    nxt_a, rep_a = next_of(game, p)
    nxt_b, rep_b = next_of(game, game.folder / "crlf.orders.toml")
    assert dumps(nxt_a) == dumps(nxt_b) and rep_a == rep_b


def test_a_change_of_meaning_breaks_the_seal_while_a_comment_does_not(game: Game) -> None:
    p = game.write_orders(GERMAN_GT1)
    text = p.read_text(encoding="utf-8")
    q = game.folder / "commented.orders.toml"
    q.write_text(text.replace('target = "4916N"', 'target = "4916N"   # Vereya'), encoding="utf-8")
    check_seal(load_doc(q, "orders").data, str(q))
    q.write_text(text.replace('advance = ["Pz1"]', 'advance = []'), encoding="utf-8")
    with pytest.raises(TamperError, match="signature does not match"):
        check_seal(load_doc(q, "orders").data, str(q))


def test_digest_is_sha256_of_the_canonical_form_with_the_seal(played: Game) -> None:
    p = played.folder / "0002.state.toml"
    d = load_state(p)
    assert d.digest == "sha256:" + hashlib.sha256(canonical(d.data)).hexdigest()
    assert canonical({"b": 1, "a": ["é", {"d": True, "c": 2}]}) == '{"a":["é",{"c":2,"d":true}],"b":1}'.encode()
    assert d.digest == read(played.folder / "0003.state.toml")["pbem"]["previous"]


def test_write_all_new_writes_nothing_when_one_target_exists(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("old", encoding="utf-8")
    with pytest.raises(UsageError, match="already exists"):
        write_all_new([(tmp_path / "a.toml", "x"), (tmp_path / "b.md", "y")])
    assert sorted(os.listdir(tmp_path)) == ["b.md"]
    assert (tmp_path / "b.md").read_text(encoding="utf-8") == "old"


def test_check_state_seal_accepts_the_creator_of_state_0(played: Game) -> None:
    st = load_state(played.folder / "0000.state.toml", check=False)
    check_state_seal(st, "german")
    with pytest.raises(TamperError, match="'soviet' adjudicates this step"):
        check_state_seal(st, "soviet")


def test_exit_codes() -> None:
    assert (TamperError("x").exit_code, VerificationError("x").exit_code, IllegalOrdersError("x").exit_code,
            MalformedFileError("x").exit_code, UsageError("x").exit_code) == (3, 1, 1, 2, 2)
    assert EXIT_MALFORMED == 2


def test_states_of_two_games_in_one_folder(played: Game, tmp_path: Path) -> None:
    other = start_game(tmp_path / "other", game_id="pm-other")
    shutil.copy(other.folder / "0000.state.toml", played.folder / "0000-other.state.toml")
    with pytest.raises(TamperError) as e:
        verify([played.folder])
    assert e.value.message == "the files belong to different games: pm-other, pm-test"


def test_a_report_written_by_another_pbem_version_is_noted_not_compared(played: Game) -> None:
    """Reports carry the version that wrote them; verify compares those of its own version only."""
    from pbem.exchange.report import report_version

    p = played.folder / "0002.report.md"
    text = p.read_text(encoding="utf-8")
    assert report_version(text) == __version__
    p.write_text(text.replace(f"written by pbem {__version__}.", "written by pbem 0.0.1.") + "changed\n", encoding="utf-8")
    res = verify([played.folder])
    assert res.reports == 2 and len(res.notes) == 1 and "written by pbem 0.0.1" in res.notes[0]


def test_a_game_of_another_ruleset_version_is_not_replayed(played: Game) -> None:
    from pbem.exchange.game import Doc

    prev = load_state(played.folder / "0001.state.toml")
    sub = envelope(prev, load_doc(played.folder / "0001-german.orders.toml")).submission
    old = Doc(prev.path, {**prev.data, "pbem": {**prev.data["pbem"], "ruleset": "pbem-proud-monster/0-old"}})
    with pytest.raises(VerificationError, match="uses the rules 'pbem-proud-monster/0-old'"):
        next_state(old, [sub], None, None)
