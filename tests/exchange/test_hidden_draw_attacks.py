"""Attacks on hidden draws (docs/protocol.md, "Hidden values without a referee", Hidden draws): a
cheating player, a cheating adjudicator, or both colluding against whoever verifies later, on the
test game Hideout (tests/exchange/hideout.py, H-5: each side draws a bonus from a cup with its orders of turn
2). Each test asserts that the attack is refused; an attack that succeeds today is marked xfail
(strict), with why it succeeds and the fix it calls for.

The honest game the tests start from (play_to_contact): red's turn 1 (state 1, blue adjudicates),
blue's turn 1 (state 2, red adjudicates: state 3 asks red for its draw), red's turn 2 commits it
(state 3, blue adjudicates: state 4 asks blue), blue's turn 2 commits blue's (state 4), the contact
(state 5: red replies, both scouts and bonuses are opened), the combat (state 6 awaits the last step,
red's reveal file), the end (state 7)."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.engine import registry
from pbem.engine.model import Transition
from pbem.errors import IllegalOrdersError, MalformedFileError, TamperError, VerificationError
from pbem.exchange import dice as proto
from pbem.exchange import hidden as hv
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import load_doc, make_join, new_game
from pbem.exchange.keys import KeyPair
from tests.clihelpers import fails, run, snapshot
from tests.conftest import Game, joined_salt

from .hideout import Hideout
from .test_hidden_attacks import (
    cli_env,
    draft,
    first,
    forge_state,
    hand_sealed,
    join_salt_of,
    keyfiles,
    origin,
    play_to_contact,
    start,
)

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(autouse=True)
def hideout() -> Iterator[Hideout]:
    m = Hideout()
    registry.register(m)
    registry.unregister("proud-monster")
    yield m
    registry.restore()


# --- playing, forging and reading the test games ---------------------------------------------------

def hidden_secret(g: Game, side: str) -> str:
    """``side``'s hidden-dice secret in the game (its key, the game's origin, its join salt)."""
    return proto.hidden_dice_secret(g.keys[side], origin(g), join_salt_of(g, side))


def draw_of(g: Game, side: str, entry: dict[str, Any], secret: str | None = None) -> Any:
    """What ``side``'s draw ``entry`` ({item, request, seed}) gives with its hidden-dice secret."""
    return hv.drawn_value(Hideout(), secret or hidden_secret(g, side), side, entry)


def attested(side: str, key: KeyPair, edit: Edit) -> Edit:
    """``edit``, then the file's dice attestation made again by its sender (a cheat with his own key)."""
    def out(d: dict[str, Any]) -> None:
        edit(d)
        d["dice"]["attest"] = proto.attest(key, d["pbem"], d["dice"])
    return out


def chosen_bonus(g: Game, side: str, version: int = 0) -> Edit:
    """An edit that commits, in place of the draw ``side``'s file owes, the best bonus it does not draw."""
    st = g.state().data
    entry = st["draws"][side][0]
    value = 3 if draw_of(g, side, entry) != 3 else 2
    sealed = hv.seal_value(g.keys[side], origin(g), join_salt_of(g, side), side, "bonus", version, value)
    return lambda d: d.setdefault("hidden", {}).update(bonus=sealed)


def open_boxes(g: Game, side: str, item: str) -> list[Any]:
    """The values of ``side``'s hidden item, from the boxes of the latest state and its key."""
    versions = g.state().data["hidden"][side][item]["versions"]
    return [hv.open_box(g.keys[side], v["commit"], v["box"]) for v in versions]


def finish(g: Game) -> None:
    """Play the reply and the last step the state awaits, as `pbem sign` and `pbem adjudicate` do."""
    while g.state().data["awaits"]["kind"] in ("reply", "reveal"):
        st = g.state().data
        seq, kind = int(st["pbem"]["sequence"]), st["awaits"]["kind"]
        g.adjudicate(*[g.write_orders("", side=s, name=f"{seq:04d}-{s}.{kind}.toml") for s in st["awaits"]["from"]])


def hexes_of(folder: Path) -> set[str]:
    """Every run of 64 lower-case hex digits in the folder's files (secrets, seeds, digest bodies)."""
    out: set[str] = set()
    for p in sorted(folder.iterdir()):
        for found in re.findall(r"[0-9a-f]{64,}", p.read_text()):
            out |= {found[i:i + 64] for i in range(0, len(found) - 63, 2)}
    return out


def invoke(args: list[Any]) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args])


def variant(monkeypatch: pytest.MonkeyPatch, change: Callable[[dict[str, Any], list[Any]], dict[str, Any]]) -> None:
    """Hideout with ``change`` applied to the state each resolved step gives (a game module's rules)."""
    real = Hideout.resolve

    def resolve(self: Hideout, state: dict[str, Any], subs: list[Any], dice: Any) -> Transition:
        t = real(self, state, subs, dice)
        return Transition(change(dict(t.state), subs), t.events)

    monkeypatch.setattr(Hideout, "resolve", resolve)


# --- choosing or biasing a draw ------------------------------------------------------------------

def test_no_version_of_either_file_chooses_a_draw(tmp_path: Path) -> None:
    """Blue's turn-1 file, in two versions (another move), leads to the step that asks red for its
    draw: the seed, and so red's draw, is the same for both (no input's content reaches a seed).
    Red's turn-2 file, in two versions, commits that one draw in both."""
    g = start(tmp_path / "g")
    g.play(first(1, "runner", 4))
    other = Game(tmp_path / "other", g.keys)
    shutil.copytree(g.folder, other.folder)
    g.play(first(1, "walker", 2))
    other.play(first(3, "runner", 5))
    asked, asked_other = g.state().data["draws"]["red"], other.state().data["draws"]["red"]
    # the seed takes blue's reveal, committed before red could know it (red joined, and drew, blind to it)
    assert asked[0]["seed"] == g.state().data["transition"]["seed"] and set(g.state().data["transition"]["reveals"]) == {"red", "blue"}
    assert g.state().data["position"] != other.state().data["position"]
    assert asked == asked_other and draw_of(g, "red", asked[0]) == draw_of(other, "red", asked_other[0])
    one = load_doc(g.write_orders("move = 1\n", side="red", name="one.toml")).data["hidden"]["bonus"]
    two = load_doc(g.write_orders("move = 3\n", side="red", name="two.toml")).data["hidden"]["bonus"]
    assert "bonus =" not in (g.folder / "one.toml").read_text()  # sealed: the value is in no line of the file
    assert one == two  # the same commitment and box: the same value, version and salt
    assert hv.open_box(g.keys["red"], one["commit"], one["box"]) == draw_of(g, "red", asked[0])


def test_a_draft_that_names_the_drawn_item_is_refused_by_pbem_sign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "g")
    g.play(first(1, "runner", 4))
    g.play(first(1, "walker", 2))
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = draft(g, "red", "move = 1\n\n[hidden]\nbonus = 3\n", "0003-red.orders.toml")
    fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "drawn, not chosen")


def test_a_hidden_dice_secret_ground_after_the_join_is_refused(tmp_path: Path) -> None:
    """Red commits the best bonus by hand, then grinds join salts for a hidden-dice secret whose
    draw is that bonus, and reveals it at the last step: it does not make red's join commitment."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    entry = g.state().data["draws"]["red"][0]
    edit = chosen_bonus(g, "red")
    g.adjudicate(hand_sealed(g, "red", "move = 3\n", edit))
    g.play("move = 1\n")  # contact
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    chosen = g.state().data["opened"]["red"]["bonus"]["values"][0]
    ground = next(s for s in (proto.hidden_dice_secret(g.keys["red"], origin(g), hashlib.sha256(f"grind {i}".encode()).hexdigest()[:32])
                              for i in range(200)) if draw_of(g, "red", entry, s) == chosen)
    p = hand_sealed(g, "red", "", attested("red", g.keys["red"], lambda d: d["dice"].update(hidden_reveal=ground)),
                    name="0006-red.reveal.toml")
    with pytest.raises(TamperError, match="red's hidden-dice secret does not match the commitment of its join"):
        g.adjudicate(p)
    assert not (g.folder / "0007.state.toml").exists()


@pytest.mark.parametrize("forged", [
    pytest.param("seed", id="another-seed"),
    pytest.param("request", id="another-request"),
    pytest.param("dropped", id="no-draw-asked"),
])
def test_a_drawer_who_seals_the_state_that_asks_for_its_draw_cannot_change_the_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forged: str) -> None:
    """Red adjudicates blue's turn 1 and seals the state that asks red for its draw: knowing its
    hidden-dice secret, it stamps the request with a seed of its choice (ground for the best bonus)
    or another cup, or leaves the request out (to commit nothing, or a bonus of its choice, later).
    Its turn-2 file commits what that state asks; blue's `pbem adjudicate` replays the state first
    and refuses it (exit 1, nothing written), and verify too."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    real = g.state().data["draws"]["red"][0]

    def forge(d: dict[str, Any]) -> None:
        r = d["draws"]["red"][0]
        if forged == "seed":
            r["seed"] = next(s for s in (hashlib.sha256(f"seed {i}".encode()).hexdigest() for i in range(200))
                             if draw_of(g, "red", {**real, "seed": s}) == 3 and s != real["seed"])
        elif forged == "request":
            r["request"] = {"cup": 3}
        else:
            del d["draws"]

    forge_state(g, 3, "red", forge)
    p = g.write_orders("move = 3\n", side="red")  # red's own pbem, with no history check
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 1, ["adjudicate", g.state_path, p, "--key", keys["blue"]], "0003.state.toml: does not follow")
    with pytest.raises(VerificationError, match="0003.state.toml: does not follow.*draws"):
        verify([g.folder])


# --- committing another value than the draw --------------------------------------------------------

def test_a_bonus_committed_before_the_game_asks_for_it_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    try:
        g.play('move = 3\n\n[hidden]\nscout = "runner"\nplan = 4\nbonus = 3\n')
        g.play(first(1, "walker", 2))
        assert "red" not in g.state().data.get("draws", {})  # the game no longer asks red to draw
        g.play("move = 3\n")
        g.play("move = 1\n")
        finish(g)
        verify([g.folder])
    except (IllegalOrdersError, TamperError) as e:
        assert "bonus" in str(e)
        return
    assert g.state().data["opened"]["red"]["bonus"] == {"values": [3], "at": 6}
    pytest.fail("red chose its bonus (3) in place of a draw, and the game verifies")


def test_a_chosen_version_on_top_of_a_drawn_bonus_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    for body in (first(1, "runner", 4), first(1, "runner", 2), "move = 1\n", "move = 1\n"):  # red 0-1-2, blue 8-7-6
        g.play(body)
    drawn = open_boxes(g, "red", "bonus")
    assert len(drawn) == 1 and drawn[0] in range(4)
    try:
        g.play("move = 1\n\n[hidden]\nbonus = 3\n")  # red at 3: a second version of its bonus, chosen
        g.play("move = 3\n")  # blue at 3: contact
        finish(g)
        verify([g.folder])
    except (IllegalOrdersError, TamperError) as e:
        assert "bonus" in str(e)
        return
    assert g.state().data["opened"]["red"]["bonus"]["values"] == [drawn[0], 3]
    pytest.fail("red replaced its drawn bonus by a chosen one, and the game verifies")


def test_a_file_that_leaves_the_draw_out_or_files_it_under_another_item_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))

    def moved(d: dict[str, Any]) -> None:
        d["hidden"]["bonus-2"] = d["hidden"].pop("bonus")

    p = hand_sealed(g, "red", "move = 3\n", moved)
    with pytest.raises(IllegalOrdersError, match="asked red to draw bonus"):
        g.adjudicate(p)
    assert not (g.folder / "0004.state.toml").exists()


def test_colluding_sides_who_let_a_chosen_bonus_through_the_last_step_do_not_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red commits the best bonus by hand; at the last step blue's pbem does not make red's draw
    again: the state is written, and verify convicts red's commitment."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.adjudicate(hand_sealed(g, "red", "move = 3\n", chosen_bonus(g, "red")))
    g.play("move = 1\n")
    with monkeypatch.context() as m:
        m.setattr("pbem.exchange.hidden.check_draws", lambda *a: None)
        finish(g)
    assert g.state().data["awaits"]["kind"] == "none"
    with pytest.raises(TamperError, match="red drew .* for its hidden item 'bonus' \\(asked in 0003.state.toml\\)"):
        verify([g.folder])
    r = invoke(["verify", g.folder])
    assert r.exit_code == 3 and "internal error" not in r.output


@pytest.mark.parametrize("seq", [pytest.param(4, id="the-version-loses-its-draw"), pytest.param(6, id="the-opening-loses-its-draws")])
def test_colluding_sides_who_drop_a_draw_record_do_not_verify(tmp_path: Path, seq: int) -> None:
    """Red commits the best bonus by hand; blue, colluding, seals the state that records it
    without its draw record (state 4), or opens it without its draws (state 6): the last step has
    nothing to check, but the replay of that state refuses it."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.adjudicate(hand_sealed(g, "red", "move = 3\n", chosen_bonus(g, "red")))
    if seq == 4:
        forge_state(g, 4, "blue", lambda d: d["hidden"]["red"]["bonus"]["versions"][0].pop("draw"))
    g.play("move = 1\n")
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    if seq == 6:
        forge_state(g, 6, "blue", lambda d: d["opened"]["red"]["bonus"].pop("draws"))
    finish(g)  # red's draw is never made again: the states say it drew nothing
    assert "hidden_reveal" not in load_doc(g.folder / "0006-red.reveal.toml").data["dice"]
    with pytest.raises(VerificationError, match=f"{seq:04d}.state.toml: does not follow"):
        verify([g.folder])


def test_a_forged_draw_record_that_frames_the_opponent_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue, sealing the state that records red's bonus, also records red's plan as drawn (a request
    its committed plan will not match at the last step, convicting red). Red's `pbem adjudicate` of
    blue's next orders replays the state first and refuses it (exit 1); verify too."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.play("move = 3\n")
    fake = {"request": {"cup": 4}, "seed": g.state().data["transition"]["seed"], "at": 4}
    forge_state(g, 4, "blue", lambda d: d["hidden"]["red"]["plan"]["versions"][0].update(draw=fake))
    p = g.write_orders("move = 1\n", side="blue")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 1, ["adjudicate", g.state_path, p, "--key", keys["red"]], "0004.state.toml: does not follow")
    with pytest.raises(VerificationError, match="0004.state.toml: does not follow.*hidden.red.plan"):
        verify([g.folder])


def test_a_chosen_value_for_a_second_draw_of_an_item_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant of Hideout asks red for its bonus again on turn 3 (a second draw, a new version):
    red draws the first honestly and chooses the second; the last step makes every version's draw
    again and convicts the second."""
    variant(monkeypatch, asks("red", when="turn 3/red"))
    g = start(tmp_path / "g")
    for body in (first(1, "runner", 4), first(1, "runner", 2), "move = 1\n", "move = 1\n"):  # red 0-1-2, blue 8-7-6
        g.play(body)
    assert g.state().data["draws"]["red"][0]["at"] == 5
    g.adjudicate(hand_sealed(g, "red", "move = 1\n", chosen_bonus(g, "red", version=1)))
    g.play("move = 3\n")  # contact at 3
    g.adjudicate(g.write_orders("", side="red", name="0007-red.reply.toml"))
    assert len(g.state().data["opened"]["red"]["bonus"]["draws"]) == 2
    with pytest.raises(TamperError, match="red drew .* for its hidden item 'bonus' \\(asked in 0005.state.toml\\)"):
        finish(g)


@pytest.mark.parametrize("cheat", [pytest.param("seals", id="seals-its-cheat"), pytest.param("omits", id="omits-its-secret")])
def test_an_adjudicator_who_chose_its_own_bonus_is_convicted_at_the_last_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cheat: str) -> None:
    """Blue (who adjudicates the last step and reveals its own hidden-dice secret in the state it
    seals) commits the best bonus by hand. Its honest pbem refuses to seal the last step; a cheating
    one that skips the check, or that leaves its secret out (transition.hidden_reveals), does not verify."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.play("move = 3\n")
    g.adjudicate(hand_sealed(g, "blue", "move = 1\n", chosen_bonus(g, "blue")))
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    last = g.write_orders("", side="red", name="0006-red.reveal.toml")
    with pytest.raises(TamperError, match="blue drew .* for its hidden item 'bonus'"):
        g.adjudicate(last)
    assert not (g.folder / "0007.state.toml").exists()
    with monkeypatch.context() as m:
        m.setattr("pbem.exchange.hidden.check_draws", lambda *a: None)
        g.adjudicate(last)
    assert set(g.state().data["transition"]["hidden_reveals"]) == {"blue"}
    if cheat == "omits":
        forge_state(g, 7, "blue", lambda d: d["transition"].pop("hidden_reveals"))
        with pytest.raises(TamperError, match="blue's hidden-dice secret does not match the commitment of its join"):
            verify([g.folder])
    else:
        with pytest.raises(TamperError, match="blue drew .* for its hidden item 'bonus' \\(asked in 0004.state.toml\\)"):
            verify([g.folder])


@pytest.mark.parametrize("edit", [
    pytest.param(lambda g: lambda d: d["dice"].pop("hidden_reveal"), id="left-out"),
    pytest.param(lambda g: lambda d: d["dice"].update(hidden_reveal=g.secret("red", 3)), id="a-dice-secret-instead"),
    pytest.param(lambda g: lambda d: d["dice"].update(hidden_reveal=hashlib.sha256(b"any").hexdigest()), id="made-up"),
])
def test_a_reveal_file_without_the_drawers_hidden_dice_secret_is_tampering(tmp_path: Path, edit: Callable[[Game], Edit]) -> None:
    """The last step's reveal file of red, who drew, without red's hidden-dice secret (to keep a
    chosen bonus from being checked), or with another secret in its place."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    p = hand_sealed(g, "red", "", attested("red", g.keys["red"], edit(g)), name="0006-red.reveal.toml")
    with pytest.raises(TamperError, match="red's hidden-dice secret does not match the commitment of its join"):
        g.adjudicate(p)
    assert not (g.folder / "0007.state.toml").exists()


@pytest.mark.parametrize("value", [pytest.param(7, id="an-integer"), pytest.param(["ab" * 32], id="a-list"),
                                   pytest.param({"red": "ab" * 32}, id="a-table"), pytest.param("", id="empty")])
# A respelled dice field in a sealed file is tampering (exit 3), as every dice field (docs/protocol.md).
def test_a_hostile_hidden_dice_secret_is_refused_with_an_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: Any) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    p = hand_sealed(g, "red", "", attested("red", g.keys["red"], lambda d: d["dice"].update(hidden_reveal=value)),
                    name="0006-red.reveal.toml")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    r = fails(g.folder, 3, ["adjudicate", g.state_path, p, "--key", keys["blue"]], "dice.hidden_reveal")
    assert "internal error" not in r.output


# --- a last step that never checks the draws ---------------------------------------------------------

def opens_at_contact(sides: tuple[str, ...]) -> Callable[[dict[str, Any], list[Any]], dict[str, Any]]:
    """A variant of Hideout whose contact also opens the plans of ``sides`` (a game whose rules open
    what they hide before the end)."""
    def change(s: dict[str, Any], subs: list[Any]) -> dict[str, Any]:
        if s["awaits"]["kind"] == "reply":
            s["awaits"] = {**s["awaits"], "open": {o: sorted(set(items) | ({"plan"} if o in sides else set()))
                                                    for o, items in s["awaits"]["open"].items()}}
        return s
    return change


def test_a_game_that_opens_everything_before_the_end_still_checks_the_draws(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant(monkeypatch, opens_at_contact(("red", "blue")))
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.adjudicate(hand_sealed(g, "red", "move = 3\n", chosen_bonus(g, "red")))
    g.play("move = 1\n")
    try:
        finish(g)
        verify([g.folder])
    except TamperError as e:
        assert "red drew" in str(e)
        return
    assert g.state().data["awaits"]["kind"] == "none" and "hidden_reveals" not in g.state().data["transition"]
    pytest.fail("the game ended with red's chosen bonus never checked against its draw, and verifies")


def test_a_drawer_that_holds_nothing_hidden_at_the_end_is_asked_for_its_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant(monkeypatch, opens_at_contact(("red",)))
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.adjudicate(hand_sealed(g, "red", "move = 3\n", chosen_bonus(g, "red")))
    g.play("move = 1\n")
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    aw = g.state().data["awaits"]
    assert aw["kind"] == "reveal" and aw["open"] == {"blue": ["plan"]}
    assert aw["from"] == ["red"], "the last step does not ask red, who drew, for its hidden-dice secret"
    with pytest.raises(TamperError, match="red drew"):
        finish(g)


# --- learning a draw early -------------------------------------------------------------------------

def test_no_file_before_the_last_step_holds_a_hidden_dice_secret(tmp_path: Path) -> None:
    """Every 64-hex-digit run of the folder before the last step (dice reveals, seeds, digests,
    commitments, attestations' reveals), as a secret: none makes a side's hidden-dice commitment,
    and none makes that side's draws."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    st = g.state().data
    candidates = hexes_of(g.folder)
    assert len(candidates) > 40
    for side in ("red", "blue"):
        real = hidden_secret(g, side)
        assert real not in candidates
        assert not [c for c in candidates if proto.commitment(c) == st["parties"][side]["hidden"]]
        assert real not in run(["template", g.state_path, "--side", "red"]).output + run(["status", g.state_path]).output


def test_no_public_string_of_the_folder_opens_a_drawn_bonus_before_the_contact(tmp_path: Path) -> None:
    """A bonus is one of four values: every 32-hex-digit window of the folder before the contact, as
    the salt, with each of them makes neither side's bonus commitment."""
    g = start(tmp_path / "g")
    for body in (first(3, "runner", 4), first(1, "walker", 2), "move = 1\n", "move = 1\n"):  # red 0-3-4, blue 8-7-6
        g.play(body)
    st = g.state().data
    assert st["awaits"]["kind"] == "orders"
    salts = {h[i:i + 32] for h in hexes_of(g.folder) for i in range(0, 33, 2)}
    for side in ("red", "blue"):
        commit = st["hidden"][side]["bonus"]["versions"][0]["commit"]
        assert not [(v, salt) for v in range(4) for salt in salts if hv.commitment(origin(g), side, "bonus", 0, salt, v) == commit]


def test_a_hidden_dice_secret_is_bound_to_the_game_and_the_join(tmp_path: Path) -> None:
    """The hidden-dice secret is no dice secret of the chain, and another game or join salt gives
    another: a draw says nothing of another game's draws."""
    g = start(tmp_path / "g")
    key, o, salt = g.keys["red"], origin(g), join_salt_of(g, "red")
    hidden = proto.hidden_dice_secret(key, o, salt)
    assert hidden not in {proto.secret(key, o, salt, n) for n in range(20)}
    assert hidden != proto.hidden_dice_secret(key, o, "5a" * 16)
    assert hidden != proto.hidden_dice_secret(key, "sha256:" + hashlib.sha256(b"another game").hexdigest(), salt)
    assert hidden != proto.hidden_dice_secret(g.keys["blue"], o, salt)


def reveal_now(d: dict[str, Any]) -> None:
    """State 4 as blue would like it: the game over at once, red's reveal file (and its hidden-dice
    secret) awaited, though blue has not drawn yet and red's bonus is still to be played."""
    d["awaits"] = {"kind": "reveal", "step": "reveal", "from": ["red"], "adjudicator": "blue",
                   "open": {"blue": ["plan", "scout"], "red": ["bonus", "plan", "scout"]}}
    d.pop("draws", None)
    d["result"] = {"winner": "blue"}


@pytest.mark.parametrize("fork", [pytest.param(False, id="in-place"), pytest.param(True, id="a-fork")])
def test_pbem_sign_reveals_no_hidden_dice_secret_for_a_forged_last_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: bool) -> None:
    """Blue seals, in place of the state its adjudication of red's turn 2 gives, one that ends the
    game and awaits red's reveal file: red's `pbem sign` would put its hidden-dice secret in it.
    It replays the state first and refuses it (or the fork): nothing written, no secret said."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.play("move = 3\n")
    forged = forge_state(g, 4, "blue", reveal_now, name="0004-b.state.toml" if fork else None)
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.folder / "0004-red.reveal.toml"
    run(["template", forged, "--side", "red", "-o", p])
    r = fails(g.folder, 3 if fork else 1, ["sign", p, "--key", keys["red"], "--state", forged], "fork" if fork else "does not follow")
    secret = hidden_secret(g, "red")
    assert secret not in r.output and all(secret not in q.read_text() for q in g.folder.iterdir())


def test_pbem_sign_of_a_sealed_file_says_nothing_of_a_draw_for_a_forged_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue's bonus is committed hidden (state 5). Red takes blue's sealed turn-1 file and a copy of
    the state it answers (state 2), adds to it a draw asked of blue with the seed of blue's real
    draw and a cup of 256, seals it, and asks blue to sign the file again against it."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    g.play("move = 1\n")
    real = g.state().data["draws"]["blue"][0]
    g.play("move = 1\n")
    bonus = open_boxes(g, "blue", "bonus")[0]
    probe = {**real, "request": {"cup": 256}}
    told = draw_of(g, "blue", probe)
    assert told > 3 and told % 4 == bonus  # what the forged draw would give away

    forged = forge_state(g, 2, "red", lambda d: d.update(draws={"blue": [probe]}), name="forged.state.toml")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    before = snapshot(g.folder)
    r = invoke(["sign", g.folder / "0002-blue.orders.toml", "--key", keys["blue"], "--state", forged])
    assert r.exit_code in (1, 2, 3) and "internal error" not in r.output
    assert snapshot(g.folder) == before
    assert f"{told} is greater than" not in r.output, "the forger learns blue's hidden bonus"


@pytest.mark.parametrize("request_", [pytest.param({}, id="no-cup"), pytest.param({"cup": 1}, id="a-one-sided-die")])
def test_pbem_sign_of_a_sealed_file_with_a_hostile_draw_request_is_no_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request_: dict[str, Any]) -> None:
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    hostile = {"item": "bonus", "request": request_, "seed": hashlib.sha256(b"seed").hexdigest(), "at": 2}
    forged = forge_state(g, 2, "red", lambda d: d.update(draws={"blue": [hostile]}), name="forged.state.toml")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    before = snapshot(g.folder)
    r = invoke(["sign", g.folder / "0002-blue.orders.toml", "--key", keys["blue"], "--state", forged])
    assert r.exit_code in (1, 3) and "internal error" not in r.output, r.output
    assert snapshot(g.folder) == before


# --- joins and their commitment ------------------------------------------------------------------

def new_only(folder: Path) -> Game:
    """A Hideout game as `pbem new` makes it: state 0, awaiting the joins."""
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"hideout {s}".encode()) for s in ("red", "blue")}
    state = new_game("hideout", "hideout", {s: k.public_text for s, k in keys.items()}, None, keys["red"], "ho-test", {})
    write_new(folder / "0000.state.toml", dumps(state))
    return Game(folder, keys)


def joins(g: Game, edit: dict[str, Edit]) -> list[Path]:
    st = g.state()
    out = []
    for side in ("red", "blue"):
        data = make_join(st, side, g.keys[side], None, salt=joined_salt(st, side, g.keys[side], "hideout"))
        if side in edit:
            data = unsealed(data)
            attested(side, g.keys[side], edit[side])(data)
            data = seal(data, side, g.keys[side])
        p = g.folder / f"0000-{side}.join.toml"
        write_new(p, dumps(data))
        out.append(p)
    return out


def test_a_join_without_its_hidden_dice_commitment_is_refused(tmp_path: Path) -> None:
    """Blue joins without dice.hidden, to draw later from a secret it picks once it knows the seeds."""
    g = new_only(tmp_path / "g")
    with pytest.raises(MalformedFileError, match="carries dice.hidden"):
        g.adjudicate(*joins(g, {"blue": lambda d: d["dice"].pop("hidden")}))
    assert not (g.folder / "0001.state.toml").exists()


def test_a_join_with_a_hidden_dice_commitment_in_a_game_without_draws_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Hideout, "hidden_draws", False)
    g = new_only(tmp_path / "g")
    extra = "sha256:" + hashlib.sha256(b"a commitment").hexdigest()
    with pytest.raises(MalformedFileError, match="carries no dice.hidden"):
        g.adjudicate(*joins(g, {"blue": lambda d: d["dice"].update(hidden=extra)}))
    assert not (g.folder / "0001.state.toml").exists()


@pytest.mark.parametrize("field", ["hidden", "hidden_reveal"])
def test_hidden_dice_fields_outside_their_file_are_refused(tmp_path: Path, field: str) -> None:
    """A turn's orders carry neither a hidden-dice commitment (a second one, to draw from) nor a
    hidden-dice secret (the last step's)."""
    g = start(tmp_path / "g")
    value = "sha256:" + "1" * 64 if field == "hidden" else hidden_secret(g, "red")
    p = hand_sealed(g, "red", first(3, "runner", 4), attested("red", g.keys["red"], lambda d: d["dice"].update({field: value})))
    with pytest.raises(MalformedFileError, match="dice.hidden belongs in a join, dice.hidden_reveal in the last step"):
        g.adjudicate(p)


@pytest.mark.parametrize("where", [pytest.param("join", id="a-joins-commitment"), pytest.param("reveal", id="a-reveal-files-secret")])
def test_a_hidden_dice_commitment_or_secret_respelled_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The commitment in upper case, and the secret: one spelling each, refused before anything else."""
    if where == "join":
        g = new_only(tmp_path / "g")
        files = joins(g, {"blue": lambda d: d["dice"].update(hidden=d["dice"]["hidden"].upper().replace("SHA256", "sha256"))})
        after = g.folder / "0001.state.toml"
    else:
        g = start(tmp_path / "g")
        play_to_contact(g)
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
        files = [hand_sealed(g, "red", "", attested("red", g.keys["red"], lambda d: d["dice"].update(
            hidden_reveal=d["dice"]["hidden_reveal"].upper())), name="0006-red.reveal.toml")]
        after = g.folder / "0007.state.toml"
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    adj = str(g.state().data["awaits"]["adjudicator"])
    r = invoke(["adjudicate", g.state_path, *files, "--key", keys[adj]])
    assert r.exit_code in (2, 3) and "internal error" not in r.output and not after.exists()


def test_a_respelled_hidden_dice_commitment_is_tampering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = new_only(tmp_path / "g")
    files = joins(g, {"blue": lambda d: d["dice"].update(hidden=d["dice"]["hidden"].upper().replace("SHA256", "sha256"))})
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 3, ["adjudicate", g.state_path, *files, "--key", keys["red"]], "dice.hidden")


def test_a_creator_who_replaces_a_joiners_hidden_dice_commitment_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red creates the game and adjudicates the joins: it records for blue a hidden-dice commitment
    of its own making, so that blue's honest secret convicts blue at the last step. Blue's `pbem
    adjudicate` of red's first orders replays the joins first and refuses (exit 1, nothing written)."""
    g = start(tmp_path / "g")
    framed = "sha256:" + hashlib.sha256(b"not blue's").hexdigest()
    forge_state(g, 1, "red", lambda d: d["parties"]["blue"].update(hidden=framed))
    p = g.write_orders(first(3, "runner", 4), side="red")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 1, ["adjudicate", g.state_path, p, "--key", keys["blue"]], "0001.state.toml: does not follow")
    with pytest.raises(VerificationError, match="parties.blue.hidden"):
        verify([g.folder])


# --- a game module's draws in the wrong place ------------------------------------------------------

def asks(side: str, item: str = "bonus", request: dict[str, Any] | None = None, when: str = "turn 1/blue") -> Callable[[dict[str, Any], list[Any]], dict[str, Any]]:
    """A variant of Hideout that also asks ``side`` for a draw in the state that awaits step ``when``."""
    def change(s: dict[str, Any], subs: list[Any]) -> dict[str, Any]:
        if s["awaits"]["step"] == when:
            hv.request_draw(s, side, item, request if request is not None else {"cup": 4})
        return s
    return change


@pytest.mark.parametrize("change, says", [
    pytest.param(asks("red"), "asks red for a hidden draw in a step red sends no file in", id="of-the-adjudicator"),
    pytest.param(asks("blue", item="bonus!"), "without an item id and a request", id="an-item-id-out-of-its-spelling"),
    pytest.param(asks("blue", item="x" * 81), "without an item id and a request", id="an-item-id-too-long"),
])
def test_a_draw_asked_where_no_file_commits_it_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any, says: str) -> None:
    variant(monkeypatch, change)
    g = start(tmp_path / "g")
    with pytest.raises(VerificationError, match=re.escape(says)):
        g.play(first(3, "runner", 4))
    assert not (g.folder / "0002.state.toml").exists()


def test_a_draw_asked_in_the_state_that_ends_the_game_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game module asks red for a draw as the game ends: no file would ever commit it."""
    def change(s: dict[str, Any], subs: list[Any]) -> dict[str, Any]:
        if s["awaits"]["kind"] == "none":
            hv.request_draw(s, "red", "late", {"cup": 4})
        return s

    variant(monkeypatch, change)
    g = start(tmp_path / "g")
    play_to_contact(g)
    with pytest.raises(VerificationError, match="asks red for a hidden draw in a step red sends no file in"):
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert not (g.folder / "0006.state.toml").exists()


def test_a_draw_asked_at_the_joins_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The joins' step has no seed: a draw asked there would be made from a seed of nobody's dice."""
    real = Hideout.start

    def start_drawing(self: Hideout, state: dict[str, Any], dice: Any) -> Transition:
        t = real(self, state, dice)
        s = dict(t.state)
        hv.request_draw(s, "red", "bonus", {"cup": 4})
        return Transition(s, t.events)

    monkeypatch.setattr(Hideout, "start", start_drawing)
    g = new_only(tmp_path / "g")
    with pytest.raises(VerificationError, match="only in a step with dice"):
        g.adjudicate(*joins(g, {}))
    assert not (g.folder / "0001.state.toml").exists()


def test_a_draw_asked_in_a_refereed_game_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a referee, [hidden] travels in the clear to the referee: a draw would be the sender's to
    choose. A module that asks for one there is refused."""
    variant(monkeypatch, asks("blue", when="turn 1/blue"))
    g = start(tmp_path / "g", referee=True)
    with pytest.raises(VerificationError, match="only in a step with dice of a game without a referee"):
        g.play(first(3, "runner", 4))


def test_a_draw_asked_by_a_game_without_hidden_draws_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Hideout, "hidden_draws", False)
    g = start(tmp_path / "g")
    assert "hidden" not in g.state().data["parties"]["red"]
    g.play(first(3, "runner", 4))
    with pytest.raises(VerificationError, match="hidden_draws|hidden draw"):
        g.play(first(1, "walker", 2))  # the step that asks red for its bonus
