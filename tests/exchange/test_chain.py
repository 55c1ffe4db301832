"""The trusted chain (pbem/exchange/chain.py): each of its checks on its own, on small game folders.

The commands that use it (verify, audit, mail read, sign and adjudicate before a reveal) are tested
as a user meets them in test_exchange.py, test_attacks.py, test_mail*.py and test_referee.py; here
each check is called directly, on a good history and on one broken in exactly the way it refuses.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import MalformedFileError, TamperError, UsageError, VerificationError
from pbem.exchange import dice as proto
from pbem.exchange import names
from pbem.exchange.canonical import check_seal, seal, unsealed
from pbem.exchange.chain import (
    Chain,
    VerifyResult,
    check_dice,
    check_origin,
    check_reveals,
    check_seed,
    find_equivocation,
    first_difference,
    keys_of,
    same_keys,
)
from pbem.exchange.files import dumps, read_toml
from pbem.exchange.game import Doc, load_doc, load_state
from pbem.exchange.keys import KeyPair
from tests.conftest import GERMAN_GT1, Game
from tests.exchange.test_referee import Refereed

MALLORY = KeyPair.from_seed(b"mallory")


def doc(g: Game | Refereed, name: str) -> Doc:
    return load_doc(g.folder / name)


def changed(d: Doc, change: Any, signer: str, key: KeyPair, name: str | None = None) -> Doc:
    """``d`` changed and sealed again by ``signer``: what whoever holds that key can make."""
    data = copy.deepcopy(unsealed(d.data))
    change(data)
    return Doc(d.path.with_name(name or d.path.name), seal(data, signer, key))


def setter(value: Any, *keys: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        for k in keys[:-1]:
            data = data[k]
        data[keys[-1]] = value
    return change


@pytest.fixture
def refereed(tmp_path: Path) -> Refereed:
    """A refereed game after the German's GT1 attack: states 0000-0002, a view of 0001 and 0002 per side."""
    g = Refereed(tmp_path / "ref")
    g.adjudicate([g.orders("german", GERMAN_GT1)])
    return g


# --- reading ----------------------------------------------------------------------------------------

def test_a_folder_is_read_document_by_document(played: Game) -> None:
    chain = Chain.read([played.folder])
    assert [p.path.name for p in chain.states] == [names.state(n) for n in range(4)]
    assert sorted(p.path.name for p in chain.submissions) == ["0000-german.join.toml", "0000-soviet.join.toml",
                                                              "0001-german.orders.toml", "0002-soviet.orders.toml"]
    assert chain.views == []
    assert sorted(chain.reports) == [(1, None), (2, None), (3, None)]
    assert set(chain.inputs) == {d.digest for d in chain.submissions}
    assert [d.path.name for d in chain.docs] == sorted(p.name for p in played.folder.glob("*.toml"))


def test_reading_stops_at_a_file_that_cannot_be_read_unless_quiet(played: Game) -> None:
    (played.folder / "0004.state.toml").write_text("[pbem\n", encoding="utf-8")
    (played.folder / ".hidden.state.toml").write_text("not read", encoding="utf-8")
    with pytest.raises(MalformedFileError, match="0004.state.toml"):
        Chain.read([played.folder])
    assert len(Chain.read([played.folder], quiet=True).states) == 4
    with pytest.raises(MalformedFileError, match="no such file or folder"):
        Chain.read([played.folder / "nothing"])


def test_files_given_one_by_one_are_a_chain_too(played: Game) -> None:
    files = [played.folder / names.state(0), played.folder / names.report(1), played.folder / "0000-german.join.toml"]
    chain = Chain.read(files)
    assert len(chain.states) == 1 and len(chain.submissions) == 1 and list(chain.reports) == [(1, None)]


# --- each file on its own, and two files for one place ------------------------------------------------

def test_a_state_sealed_with_a_key_that_is_not_its_signers_in_the_game_is_refused(played: Game) -> None:
    forged = changed(doc(played, "0002.state.toml"), lambda d: None, "soviet", MALLORY)
    assert check_seal(forged.data, "forged") == MALLORY.public_text  # its seal holds, against the key it names
    with pytest.raises(TamperError, match="0002.state.toml"):
        Chain([forged]).check_seals()
    Chain.read([played.folder]).check_seals()


def test_two_different_orders_of_one_side_for_one_state_are_an_equivocation(played: Game) -> None:
    orders = doc(played, "0001-german.orders.toml")
    other = changed(orders, setter([], "attack"), "german", played.keys["german"], "0001-german-2.orders.toml")
    eq = Chain([orders, other]).equivocation()
    assert eq is not None and eq.what == "submission" and {eq.first.path.name, eq.second.path.name} == {orders.path.name, other.path.name}
    assert "equivocation: 'german' signed two different files for one step" in eq.error().message
    # the same content sealed again (another signature) means the same: no equivocation
    assert find_equivocation([orders, Doc(other.path, orders.data)]) is None


def test_two_states_of_one_number_are_a_fork_and_two_of_one_adjudicator_an_equivocation(played: Game) -> None:
    st = doc(played, "0002.state.toml")
    twin = changed(st, setter(7, "position", "vp"), "soviet", played.keys["soviet"], "0002-twin.state.toml")
    fork = Chain.fork([doc(played, "0001.state.toml"), st, twin])
    assert fork is not None and (fork.kind, fork.sequence, fork.first, fork.second) == ("state", 2, st, twin)
    assert fork.error().message.startswith(f"fork: {st.path} and {twin.path} are two different states with sequence number 2")
    with pytest.raises(TamperError, match="fork"):
        Chain.by_sequence([st, twin])
    eq = find_equivocation([st, twin])
    assert eq is not None and eq.what == "state"
    assert Chain.fork([st, Doc(twin.path, st.data)]) is None  # one state in two files: no fork


def test_views_of_two_sides_are_no_fork_but_two_views_of_one_side_are(refereed: Refereed) -> None:
    german, soviet = doc(refereed, "0002-german.view.toml"), doc(refereed, "0002-soviet.view.toml")
    assert Chain.fork([german, soviet]) is None
    other = changed(soviet, setter(5, "position", "vp"), "referee", refereed.keys["referee"], "0002-soviet-2.view.toml")
    fork = Chain.fork([german, soviet, other])
    assert fork is not None and fork.kind == "view" and "two different views with sequence number 2" in fork.error().message


# --- where the history starts ----------------------------------------------------------------------

def test_the_history_is_trusted_from_state_0_re_derived(played: Game) -> None:
    chain = Chain.read([played.folder])
    res = VerifyResult()
    chain.trust(Chain.by_sequence(chain.states), None, res)
    assert res.anchor == str(played.folder / "0000.state.toml")
    assert res.anchor_how.startswith("the game's start, re-derived from scenario")


def test_a_state_0_other_than_its_scenarios_is_not_a_start(played: Game) -> None:
    zero = changed(doc(played, "0000.state.toml"), setter(99, "position", "vp"), "german", played.keys["german"])
    with pytest.raises(VerificationError, match=r"is not the state 0 of scenario .* \(first difference at position.vp\)"):
        check_origin(zero)
    sealed_by_other = changed(doc(played, "0000.state.toml"), lambda d: None, "soviet", played.keys["soviet"])
    with pytest.raises(TamperError, match="'german' adjudicates this step"):
        check_origin(sealed_by_other)


def test_a_history_without_its_start_is_trusted_only_from_a_digest_held(played: Game) -> None:
    chain = Chain([doc(played, "0002.state.toml"), doc(played, "0003.state.toml")])
    by_seq = Chain.by_sequence(chain.states)
    with pytest.raises(VerificationError, match="starts at .*0002.state.toml .*not at the game's first state"):
        chain.trust(by_seq, None, VerifyResult())
    with pytest.raises(VerificationError, match="no state among the files given has this digest"):
        chain.trust(by_seq, doc(played, "0001.state.toml").digest, VerifyResult())
    res = VerifyResult()
    chain.trust(by_seq, chain.states[1].digest, res)
    assert (res.anchor, res.anchor_how) == (str(chain.states[1].path), "named with --from")


# --- one state after another -----------------------------------------------------------------------

def test_a_state_follows_the_one_before_and_replays(played: Game) -> None:
    chain = Chain.read([played.folder])
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    events = chain.follow(s1, s2)
    assert events is not None and "attack" in {e.kind for e in events}
    assert chain.follow(s1, s2, replay=False, keys=keys_of(s1)) is None


def test_a_state_naming_another_previous_state_breaks_the_chain(played: Game) -> None:
    chain = Chain.read([played.folder], label=lambda d: f"state {names.number(int(d.data['pbem']['sequence']))}")
    with pytest.raises(TamperError, match="0003.state.toml: its previous-state digest is not that of state 0001: the chain is broken"):
        chain.follow(doc(played, "0001.state.toml"), doc(played, "0003.state.toml"))


def test_a_state_sealed_by_another_than_the_adjudicator_is_refused(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    by_german = changed(doc(played, "0002.state.toml"), lambda d: None, "german", played.keys["german"])
    with pytest.raises(TamperError, match="sealed by 'german', but 'soviet' adjudicates this step"):
        Chain.read([played.folder]).follow(s1, by_german, replay=False)


def test_a_state_with_other_keys_is_refused_where_the_game_keys_are_held(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    other = changed(doc(played, "0002.state.toml"), setter(MALLORY.public_text, "parties", "german", "key"), "soviet",
                    played.keys["soviet"])
    chain = Chain.read([played.folder])
    with pytest.raises(TamperError, match="the parties' keys are not the game's"):
        chain.follow(s1, other, keys=keys_of(s1), replay=False)
    assert chain.follow(s1, other, replay=False) is None  # not held to them: the replay compares them
    with pytest.raises(VerificationError, match="does not follow .*first difference at parties.german.key"):
        chain.follow(s1, other)
    same_keys(s1, keys_of(doc(played, "0003.state.toml")))


def test_the_adjudicators_key_never_changes(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    rekeyed = changed(doc(played, "0002.state.toml"), setter(MALLORY.public_text, "parties", "soviet", "key"), "soviet", MALLORY)
    with pytest.raises(TamperError, match="the key of 'soviet' changed"):
        Chain.read([played.folder]).transition(s1, rekeyed)


def test_a_transition_replays_only_with_all_its_inputs(played: Game) -> None:
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    chain = Chain([d for d in Chain.read([played.folder]).docs if d.path.name != "0001-german.orders.toml"])
    assert not chain.has_inputs(s2) and Chain.read([played.folder]).has_inputs(s2)
    with pytest.raises(VerificationError, match="0002.state.toml: input sha256:.* is not in the folder"):
        chain.transition(s1, s2)


def test_a_state_that_is_not_what_the_rules_give_does_not_follow(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    lie = changed(doc(played, "0002.state.toml"), setter(9, "position", "vp"), "soviet", played.keys["soviet"])
    with pytest.raises(VerificationError) as e:
        Chain.read([played.folder]).transition(s1, lie)
    assert e.value.message == f"{lie.path}: does not follow from {s1.path}, its inputs and the revealed dice (first difference at position.vp)"


def test_only_a_referee_adjudicates_a_side_without_its_orders(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    defaulted = changed(doc(played, "0002.state.toml"), setter(["german"], "transition", "defaulted"), "soviet", played.keys["soviet"])
    with pytest.raises(VerificationError, match=r"records sides adjudicated without their orders \(german\), which only a referee"):
        Chain.read([played.folder]).transition(s1, defaulted)


def test_a_sides_sealed_orders_for_a_state_are_found(played: Game) -> None:
    chain = Chain.read([played.folder])
    s1 = doc(played, "0001.state.toml")
    assert [d.path.name for d in chain.held(s1.digest, "german")] == ["0001-german.orders.toml"]
    assert chain.held(s1.digest, "soviet") == []
    assert chain.held(doc(played, "0000.state.toml").digest, "german") == []  # a join is not orders


def test_a_commitment_is_made_once(played: Game) -> None:
    s2, s3 = doc(played, "0002.state.toml"), doc(played, "0003.state.toml")
    seen = {str(v["commit"]) for d in (doc(played, "0001.state.toml"), s2) for v in d.data["parties"].values()}
    Chain.fresh_commitments(s2, s3, set(seen))
    old = doc(played, "0001.state.toml").data["parties"]["german"]["commit"]
    again = changed(s3, setter(old, "parties", "german", "commit"), "german", played.keys["german"])
    with pytest.raises(TamperError, match="german commits again to a dice secret already committed to"):
        Chain.fresh_commitments(s2, again, set(seen))


# --- reports and pictures ------------------------------------------------------------------------------

def test_a_report_and_picture_are_those_derived_from_their_transition(played: Game) -> None:
    chain = Chain.read([played.folder])
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    events = chain.follow(s1, s2)
    assert events is not None
    res = VerifyResult()
    chain.check_derived(s1, s2, events, res)
    assert (res.reports, res.pictures) == (1, 1)
    report = played.folder / names.report(2)
    report.write_text(report.read_text(encoding="utf-8") + "\nA line nobody derived.\n", encoding="utf-8")
    with pytest.raises(VerificationError, match="0002.report.md: the report does not match the transition it describes"):
        chain.check_derived(s1, s2, events, VerifyResult())
    report.write_text(re.sub(r"; written by pbem .*\.$", "; written by pbem 0.0.1.", report.read_text(encoding="utf-8"), count=1,
                             flags=re.M), encoding="utf-8")
    res = VerifyResult()
    chain.check_derived(s1, s2, events, res)
    assert res.reports == 0 and "written by pbem 0.0.1" in res.notes[0]


def test_a_changed_picture_is_refused(played: Game) -> None:
    chain = Chain.read([played.folder])
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    events = chain.follow(s1, s2)
    assert events is not None
    picture = played.folder / names.picture(2)
    picture.write_text(picture.read_text(encoding="utf-8").replace("</svg>", "<g/></svg>"), encoding="utf-8")
    with pytest.raises(VerificationError, match="0002.turn.svg: the picture does not match"):
        chain.check_derived(s1, s2, events, VerifyResult())


def test_a_report_is_found_by_its_states_number(played: Game, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for name in ("0001.state.toml", names.report(2)):
        shutil.copy(played.folder / name, other / name)
    shutil.copy(played.folder / "0002.state.toml", other / "next.state.toml")  # a state given under another name
    chain = Chain.read([other, played.folder / "0001-german.orders.toml"])
    s1, s2 = chain.states
    events = chain.follow(s1, s2)
    assert events is not None
    res = VerifyResult()
    chain.check_derived(s1, s2, events, res)
    assert res.reports == 1


# --- the dice of one transition ---------------------------------------------------------------------------

def test_the_dice_are_those_of_the_reveals_and_the_seed(played: Game) -> None:
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    check_reveals(s2, s1, {"german", "soviet"})
    seed = check_seed(s2, s1)
    assert seed.hex() == s2.data["transition"]["seed"]
    rolled = check_dice(s2, seed, labels=True)
    assert [r["label"] for r, _ in rolled] == [d["label"] for d in s2.data["transition"]["dice"]] and rolled


def test_a_reveal_that_is_not_the_committed_secret_is_refused(played: Game) -> None:
    s1 = doc(played, "0001.state.toml")
    bad = changed(doc(played, "0002.state.toml"), setter("00" * 32, "transition", "reveals", "german"), "soviet", played.keys["soviet"])
    with pytest.raises(TamperError, match="german's dice reveal does not match its commitment in .*0001.state.toml"):
        check_reveals(bad, s1, {"german", "soviet"})
    with pytest.raises(TamperError, match="german's reveal does not match its commitment"):
        check_reveals(bad, s1, {"german", "soviet"}, audit=True)
    with pytest.raises(TamperError, match="reveals recorded for german, soviet; the step's seed takes those of soviet"):
        check_reveals(bad, s1, {"soviet"})
    with pytest.raises(TamperError, match="german's reveal is not the one german attested"):
        check_reveals(bad, s1, {"german", "soviet"}, {"german": {"reveal": played.secret("german", 0)}})


def test_a_seed_or_a_face_of_its_own_is_refused(played: Game) -> None:
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    ground = changed(s2, setter("ab" * 32, "transition", "seed"), "soviet", played.keys["soviet"])
    with pytest.raises(TamperError, match="the seed does not follow from the reveals and the previous state"):
        check_seed(ground, s1)
    with pytest.raises(TamperError, match="the recorded seed is not the one derived from the reveals"):
        check_seed(ground, s1, audit=True)
    die = s2.data["transition"]["dice"][0]
    other_face = changed(s2, lambda d: d["transition"]["dice"][0].__setitem__("face", die["face"] % 6 + 1), "soviet",
                         played.keys["soviet"])
    with pytest.raises(TamperError, match=f"die '{die['label']}' is recorded as {die['face'] % 6 + 1} but the seed gives {die['face']}"):
        check_dice(other_face, check_seed(s2, s1))


def test_a_view_checks_each_labels_shape_and_rolls_it_once(played: Game) -> None:
    s1, s2 = doc(played, "0001.state.toml"), doc(played, "0002.state.toml")
    seed = check_seed(s2, s1)
    twice = changed(s2, lambda d: d["transition"]["dice"].append(dict(d["transition"]["dice"][0])), "soviet", played.keys["soviet"])
    with pytest.raises(TamperError, match="is not a die the rules roll"):
        check_dice(twice, seed, labels=True)
    assert len(check_dice(twice, seed)) == 2  # a full state: the replay says which dice the rules roll
    one_side = changed(s2, lambda d: d["transition"]["dice"][0].__setitem__("sides", 1), "soviet", played.keys["soviet"])
    with pytest.raises(TamperError, match="has 1 sides; dice have 2 to "):
        check_dice(one_side, seed)


# --- views ---------------------------------------------------------------------------------------------------

def test_a_view_beside_its_state_is_exactly_its_view(refereed: Refereed) -> None:
    chain = Chain.read([refereed.folder])
    state, view = doc(refereed, "0002.state.toml"), doc(refereed, "0002-soviet.view.toml")
    chain.view_of(view, state)
    shown = changed(view, setter(7, "position", "vp"), "referee", refereed.keys["referee"])
    with pytest.raises(VerificationError, match="is not the view of the state it names for soviet"):
        chain.view_of(shown, state)
    with pytest.raises(TamperError, match="no referee to make one"):
        chain.view_of(view, changed(state, lambda d: d["parties"].pop("referee"), "referee", refereed.keys["referee"]))


def test_two_sides_views_of_one_state_show_one_story(refereed: Refereed) -> None:
    german, soviet = doc(refereed, "0002-german.view.toml"), doc(refereed, "0002-soviet.view.toml")
    Chain.views_agree([german, soviet])
    other = changed(soviet, setter("GT9/1/soviet", "awaits", "step"), "referee", refereed.keys["referee"])
    with pytest.raises(TamperError, match="views of one state for german .* and soviet .* show different awaits"):
        Chain.views_agree([german, other])


def test_two_sides_views_may_leave_different_dice_out_but_never_show_one_die_two_ways(refereed: Refereed) -> None:
    """A game may leave a die out of one side's view (GameModule.side_dice); a die both views show
    is one die: a referee showing the sides two faces of it equivocates."""
    german, soviet = doc(refereed, "0002-german.view.toml"), doc(refereed, "0002-soviet.view.toml")
    dice = list(soviet.data["transition"]["dice"])
    assert dice, "the transition rolled dice"
    fewer = changed(soviet, setter(dice[1:], "transition", "dice"), "referee", refereed.keys["referee"])
    Chain.views_agree([german, fewer])  # one die left out of the soviet's view: one story still
    first = dict(dice[0])
    first["face"] = first["face"] % int(first["sides"]) + 1
    lying = changed(soviet, setter([first, *dice[1:]], "transition", "dice"), "referee", refereed.keys["referee"])
    with pytest.raises(TamperError, match="show different transition"):
        Chain.views_agree([german, lying])
    other_seed = changed(soviet, setter("00" * 32, "transition", "seed"), "referee", refereed.keys["referee"])
    with pytest.raises(TamperError, match="show different transition"):
        Chain.views_agree([german, other_seed])


def test_a_sides_views_follow_from_the_state_it_joined(refereed: Refereed) -> None:
    zero = doc(refereed, "0000.state.toml")
    views = [doc(refereed, "0001-soviet.view.toml"), doc(refereed, "0002-soviet.view.toml")]
    assert Chain().follow_views(views, start=zero) == {"views": 2, "dice": len(views[1].data["transition"]["dice"])}
    assert Chain().follow_views(views, anchor=views[0].digest)["views"] == 2
    with pytest.raises(VerificationError, match="views missing from the chain: sequence 1"):
        Chain().follow_views(views[1:], start=zero)
    with pytest.raises(VerificationError, match="pbem trusts them from the game's first state"):
        Chain().follow_views(views)
    with pytest.raises(VerificationError, match="views of several sides given"):
        Chain().follow_views([*views, doc(refereed, "0002-german.view.toml")], start=zero)


def test_a_view_is_sealed_by_the_games_referee_and_chains(refereed: Refereed) -> None:
    zero = doc(refereed, "0000.state.toml")
    v1, v2 = doc(refereed, "0001-soviet.view.toml"), doc(refereed, "0002-soviet.view.toml")
    Chain.sealed_by_referee(v2, keys_of(zero))
    forged = changed(v2, setter(MALLORY.public_text, "parties", "referee", "key"), "referee", MALLORY)
    with pytest.raises(TamperError, match="but the game expects"):
        Chain().follow_views([v1, forged], start=zero)
    off = changed(v2, setter("sha256:" + "ab" * 32, "pbem", "previous"), "referee", refereed.keys["referee"])
    with pytest.raises(TamperError, match="does not follow .*0001-soviet.view.toml: the chain of states is broken"):
        Chain().follow_views([v1, off], start=zero)


# --- the users: the whole history, before a reveal ------------------------------------------------------------

def test_verify_counts_what_it_checked(played: Game, refereed: Refereed) -> None:
    res = Chain.read([played.folder]).verify()
    assert (res.states, res.transitions, res.reports, res.pictures, res.views) == (4, 3, 3, 1, 0)
    assert res.last == str(played.folder / "0003.state.toml")
    res = Chain.read([refereed.folder]).verify()
    assert (res.states, res.transitions, res.views) == (3, 2, 4)


def test_verify_of_a_players_views_checks_them_on_their_own(refereed: Refereed, tmp_path: Path) -> None:
    player = tmp_path / "player"
    player.mkdir()
    for name in ("0000.state.toml", "0001-soviet.view.toml", "0002-soviet.view.toml"):
        shutil.copy(refereed.folder / name, player / name)
    res = Chain.read([player]).verify()
    assert (res.states, res.views) == (0, 2) and res.notes[0].startswith("views only")


def test_before_a_reveal_the_folder_holds_one_history_to_the_state(played: Game) -> None:
    st = load_state(played.folder / "0003.state.toml")
    Chain.read([played.folder]).check_before_reveal(st, "german", played.keys["german"])
    twin = changed(doc(played, "0002.state.toml"), setter(7, "position", "vp"), "soviet", played.keys["soviet"])
    (played.folder / "0002-twin.state.toml").write_text(dumps(twin.data), encoding="utf-8")
    with pytest.raises(TamperError, match="two different states with sequence number 2 .a fork.: pbem reveals no secret"):
        Chain.read([played.folder]).check_before_reveal(st, "german", played.keys["german"])
    (played.folder / "0002-twin.state.toml").unlink()
    (played.folder / "0001.state.toml").unlink()
    with pytest.raises(UsageError, match="states 0001 are not in the folder"):
        Chain.read([played.folder]).check_before_reveal(st, "german", played.keys["german"])


def test_before_a_reveal_the_secret_is_not_revealed_for_another_state(played: Game) -> None:
    st = load_state(played.folder / "0003.state.toml")
    secret = proto.secret(played.keys["german"], doc(played, "0000.state.toml").digest,
                          str(st.data["parties"]["german"]["salt"]), int(st.data["parties"]["german"]["index"]))
    # the German's own orders for state 0001 again, revealing his next secret: signed by him, for another state
    elsewhere = unsealed(read_toml(played.folder / "0001-german.orders.toml"))
    elsewhere["dice"]["reveal"] = secret
    elsewhere["dice"]["attest"] = proto.attest(played.keys["german"], elsewhere["pbem"], elsewhere["dice"])
    (played.folder / "0001-german-again.orders.toml").write_text(dumps(seal(elsewhere, "german", played.keys["german"])),
                                                                  encoding="utf-8")
    with pytest.raises(TamperError, match="your secret number 2 was already revealed by .*0001-german-again.orders.toml, "
                                          "for another state"):
        Chain.read([played.folder]).check_before_reveal(st, "german", played.keys["german"])


def test_first_difference_names_the_place() -> None:
    assert first_difference({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}) == "a.b[1]"
    assert first_difference({"a": 1}, {"a": 1, "c": 2}) == "c"
    assert first_difference([1], [1, 2]) == " (length 1 vs 2)"
    assert first_difference(1, 2) == "(top)"
