"""Attacks on hidden values without a referee (docs/protocol.md, "Hidden values without a referee"):
a cheating player, a cheating adjudicator, or both colluding against whoever verifies later, on the
test game Hideout (tests/exchange/hideout.py). Each test asserts that the attack is refused; an attack that
succeeds today is marked xfail (strict), with why it succeeds and the fix it calls for."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.engine import registry
from pbem.errors import IllegalOrdersError, MalformedFileError, PbemError, TamperError, VerificationError
from pbem.exchange import hidden as hv
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, read_toml, write_new
from pbem.exchange.game import load_doc, load_state, make_join, new_game, sign_orders
from pbem.exchange.keys import KeyPair, write_key_files
from tests.clihelpers import fails, run
from tests.conftest import Game, joined_salt

from .hideout import Hideout

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(autouse=True)
def hideout() -> Iterator[Hideout]:
    m = Hideout()
    registry.register(m)
    registry.unregister("proud-monster")
    yield m
    registry.restore()


def first(move: int, scout: str, plan: int) -> str:
    """A turn-1 order file's body: a public move, the hidden scout and plan (H-1)."""
    return f'move = {move}\n\n[hidden]\nscout = "{scout}"\nplan = {plan}\n'


def start(folder: Path, referee: bool = False) -> Game:
    """A Hideout game, joined: red's turn 1 awaits (blue adjudicates)."""
    folder.mkdir(parents=True)
    sides = ("red", "blue", "referee") if referee else ("red", "blue")
    keys = {s: KeyPair.from_seed(f"hideout {s}".encode()) for s in sides}
    creator = keys["referee"] if referee else keys["red"]
    ref = keys["referee"].public_text if referee else None
    state = new_game("hideout", "hideout", {s: keys[s].public_text for s in ("red", "blue")}, ref, creator, "ho-test", {})
    write_new(folder / "0000.state.toml", dumps(state))
    g = Game(folder, keys)
    st = g.state()
    joins = []
    for side in sides:
        p = folder / f"0000-{side}.join.toml"
        write_new(p, dumps(make_join(st, side, keys[side], None, salt=joined_salt(st, side, keys[side], "hideout"))))
        joins.append(p)
    g.adjudicate(*joins)
    return g


def play_to_contact(g: Game, red: str = first(3, "runner", 4), blue: str = first(1, "walker", 2),
                    more: tuple[str, ...] = ("move = 3\n", "move = 1\n")) -> None:
    """Red 0 -> 3 -> 6, blue 8 -> 7 -> 6: state 5 awaits red's reply, blue adjudicates and opens its own scout."""
    for body in (red, blue, *more):
        g.play(body)


def origin(g: Game) -> str:
    return load_state(g.folder / "0000.state.toml").digest


def join_salt_of(g: Game, side: str) -> str:
    return str(g.state().data["parties"][side]["salt"])


def resign(path: Path, side: str, key: KeyPair, edit: Edit) -> Path:
    """A signed file changed by ``edit`` and sealed again by its own signer (a cheat with his own key)."""
    data = unsealed(load_doc(path).data)
    edit(data)
    path.unlink()
    write_new(path, dumps(seal(data, side, key)))
    return path


def hand_sealed(g: Game, side: str, body: str, edit: Edit, name: str | None = None) -> Path:
    """A file signed as `pbem sign` signs it, then changed by ``edit`` and sealed again by its sender."""
    return resign(g.write_orders(body, side=side, name=name), side, g.keys[side], edit)


def keyfiles(g: Game, where: Path) -> dict[str, Path]:
    return {s: write_key_files(k, where / f"keys-{s}")[0] for s, k in g.keys.items()}


def cli_env(monkeypatch: pytest.MonkeyPatch, where: Path) -> None:
    monkeypatch.chdir(where)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)


def forge_state(g: Game, seq: int, signer: str, edit: Edit, name: str | None = None) -> Path:
    """State ``seq`` changed by ``edit`` and sealed again by ``signer`` (the adjudicator who made it);
    written over the real one, or beside it under ``name`` (a fork)."""
    real = g.folder / f"{seq:04d}.state.toml"
    data = unsealed(load_state(real).data)
    edit(data)
    target = g.folder / name if name else real
    if not name:
        real.unlink()
    write_new(target, dumps(seal(data, signer, g.keys[signer])))
    return target


def draft(g: Game, side: str, body: str, name: str, state: Path | None = None) -> Path:
    """An unsigned file answering the state (the latest, or ``state``), as `pbem template` starts it."""
    from pbem.demo import order_text

    st = load_state(state) if state else g.state()
    p = g.folder / name
    write_new(p, order_text(st.data, side, body))
    return p


def to_contact_resolved(g: Game) -> None:
    """Play to the contact and adjudicate red's reply: state 6 awaits the last step (red's reveal)."""
    play_to_contact(g)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))


# --- learning a value early ----------------------------------------------------------------------

def test_no_public_string_of_the_folder_makes_a_commitment_before_it_is_opened(tmp_path: Path) -> None:
    """Brute force over the small sets (two scout types, six plans) with every hex string the
    folder shows before the contact (dice reveals, seeds, salts, digests, commitments; each
    16-byte window of them) as the salt: no commitment is found."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    st = g.state()
    o = origin(g)
    windows: set[str] = set()
    for p in sorted(g.folder.iterdir()):
        text = p.read_text()
        for run_ in re.findall(r"[0-9a-f]{32,}", text):
            windows |= {run_[i:i + 32] for i in range(0, len(run_) - 31, 2)}
    assert len(windows) > 100
    candidates: dict[str, list[Any]] = {"scout": ["runner", "walker"], "plan": list(range(1, 7))}
    for owner in ("red", "blue"):
        for item, values in candidates.items():
            commit = st.data["hidden"][owner][item]["versions"][0]["commit"]
            found = [(v, s) for v in values for s in windows if hv.commitment(o, owner, item, 0, s, v) == commit]
            assert not found, f"{owner}'s {item} found: {found}"


def test_no_file_or_report_shows_a_hidden_value_before_it_is_opened(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    for p in sorted(g.folder.iterdir()):
        text = p.read_text()
        assert "runner" not in text and "walker" not in text, p.name
    said = [run(["status", g.state_path]).output, run(["template", g.state_path, "--side", "red"]).output]
    assert not any("runner" in t or "walker" in t for t in said)


def test_the_length_of_a_box_does_not_tell_a_value_from_a_small_set(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    o, salt, key = origin(g), join_salt_of(g, "red"), g.keys["red"]
    for a, b in (("armor", "infantry"), (9, 10), ("runner", "walker-2")):
        box_a = hv.seal_value(key, o, salt, "red", "unit", 0, a)["box"]
        box_b = hv.seal_value(key, o, salt, "red", "unit", 0, b)["box"]
        assert len(base64.b64decode(box_a)) == len(base64.b64decode(box_b)), (a, b)


def test_a_refused_file_does_not_give_its_hidden_value_away_when_the_played_one_is_opened(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    refused = g.write_orders('move = 3\n\n[hidden]\nscout = "walker"\n', side="red", name="refused.toml")  # no plan (H-1)
    with pytest.raises(IllegalOrdersError):
        g.adjudicate(refused)
    abandoned = load_doc(refused).data["hidden"]["scout"]["commit"]
    refused.unlink()
    play_to_contact(g)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert g.state().data["opened"]["red"]["scout"]["values"] == ["runner"]
    opened_salt = load_doc(g.folder / "0005-red.reply.toml").data["open"]["scout"][0]["salt"]
    o = origin(g)
    found = [v for v in ("runner", "walker") if hv.commitment(o, "red", "scout", 0, opened_salt, v) == abandoned]
    assert found == []


def test_a_replayed_first_state_is_not_joined_again_and_a_new_join_salts_every_item_anew(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue offers red the game's first state again, byte for byte, to have red commit under the
    salts it will open in the first game. Red, who played that game, is refused the join by its
    ledger (exit 3); and a join with another salt would salt every item anew."""
    g = start(tmp_path / "g")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.folder / "0001-red.orders.toml"
    run(["template", g.state_path, "--side", "red", "-o", p])
    p.write_text(p.read_text().replace("move = 0\n", "move = 3\n"))
    run(["sign", p, "--key", keys["red"]])  # red has revealed a secret of this game: its ledger says so
    replay = tmp_path / "replay"
    replay.mkdir()
    (replay / "0000.state.toml").write_bytes((g.folder / "0000.state.toml").read_bytes())
    fails(replay, 3, ["join", replay / "0000.state.toml", "--side", "red", "--key", keys["red"]], "replay")
    o, key = origin(g), g.keys["red"]
    one, other = join_salt_of(g, "red"), "5a" * 16
    assert hv.item_salt(key, o, one, "scout", 0, "runner") != hv.item_salt(key, o, other, "scout", 0, "runner")
    assert hv.seal_value(key, o, one, "red", "scout", 0, "runner") != hv.seal_value(key, o, other, "red", "scout", 0, "runner")


def test_a_side_cannot_file_the_opponents_commitment_as_its_own(tmp_path: Path) -> None:
    """Blue copies red's commitment and box (to open it as his own once red opened it, or to have
    it claimed twice): a repeated commitment is tampering."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    red_scout = g.state().data["hidden"]["red"]["scout"]["versions"][0]
    copied = {"commit": red_scout["commit"], "box": red_scout["box"]}
    p = hand_sealed(g, "blue", first(1, "walker", 2), lambda d: d["hidden"].update(scout=copied))
    with pytest.raises(TamperError, match="repeats a commitment"):
        g.adjudicate(p)


def test_one_commitment_for_two_items_of_one_file_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    p = hand_sealed(g, "red", first(3, "runner", 4), lambda d: d["hidden"].update(plan=d["hidden"]["scout"]))
    with pytest.raises(TamperError, match="repeats a commitment"):
        g.adjudicate(p)


# --- changing a value after committing; openings that should not pass ------------------------------

def reply_with(g: Game, edit: Edit) -> Path:
    """Red's reply at the contact, as `pbem sign` writes it (the openings), then changed by ``edit``."""
    return hand_sealed(g, "red", "", edit, name="0005-red.reply.toml")


def two_versions(g: Game) -> None:
    """Red commits its scout twice (a runner on turn 1 and again on turn 2), then the scouts meet."""
    play_to_contact(g, more=('move = 3\n\n[hidden]\nscout = "runner"\n', "move = 1\n"))
    assert len(g.state().data["hidden"]["red"]["scout"]["versions"]) == 2


@pytest.mark.parametrize("respelled", [
    pytest.param(lambda o: o.update(value="walker"), id="another-value"),
    pytest.param(lambda o: o.update(value=["runner"]), id="value-in-a-list"),
    pytest.param(lambda o: o.update(value={"type": "runner"}), id="value-in-a-table"),
    pytest.param(lambda o: o.update(value="Runner"), id="value-capitalised"),
    pytest.param(lambda o: o.update(salt=o["salt"][:-1] + ("0" if o["salt"][-1] != "0" else "1")), id="salt-changed"),
    pytest.param(lambda o: o.update(salt=hv.item_salt(KeyPair.from_seed(b"hideout red"), o["origin"], o["join"], "scout", 1, "runner")),
                 id="salt-of-another-version"),
    pytest.param(lambda o: o.update(salt=hv.item_salt(KeyPair.from_seed(b"hideout red"), o["origin"], o["join"], "plan", 0, "runner")),
                 id="salt-of-another-item"),
])
def test_an_opening_respelled_is_tampering(tmp_path: Path, respelled: Edit) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    o, join = origin(g), join_salt_of(g, "red")

    def edit(d: dict[str, Any]) -> None:
        opening = d["open"]["scout"][0]
        opening.update(origin=o, join=join)
        respelled(opening)
        del opening["origin"], opening["join"]

    p = reply_with(g, edit)
    with pytest.raises(TamperError, match="does not match its commitment in 0002.state.toml"):
        g.adjudicate(p)
    assert not (g.folder / "0006.state.toml").exists()


def test_an_integer_opened_as_a_string_or_a_boolean_is_tampering(tmp_path: Path) -> None:
    """Plan 1 committed; opened as "1" or as true (equal to 1 in the game's Python): refused."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(3, "runner", 1))
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    spellings: list[Any] = ["1", True, [1]]
    for spelled in spellings:
        def respell(d: dict[str, Any], v: Any = spelled) -> None:
            d["open"]["plan"][0]["value"] = v

        p = hand_sealed(g, "red", "", respell, name="0006-red.reveal.toml")
        with pytest.raises(TamperError, match="plan' \\(version 0\\) does not match"):
            g.adjudicate(p)
        p.unlink()


def test_an_opening_not_in_nfc_is_refused(tmp_path: Path) -> None:
    """A text opened in another spelling of itself (a letter and a combining accent for the one
    accented letter): refused as a malformed file before anything compares it."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    p = reply_with(g, lambda d: d["open"]["scout"][0].update(value="cafe\u0301"))
    with pytest.raises(MalformedFileError, match="NFC"):
        load_doc(p)
    with pytest.raises(MalformedFileError, match="NFC"):
        verify([g.folder])


def test_opening_fewer_or_more_versions_is_tampering(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    two_versions(g)
    for edit in (lambda d: d["open"]["scout"].pop(),
                 lambda d: d["open"]["scout"].append(dict(d["open"]["scout"][0])),
                 lambda d: d["open"].update(scout=[])):
        p = reply_with(g, edit)
        with pytest.raises(TamperError, match="version\\(s\\) of red's hidden item 'scout', which has 2"):
            g.adjudicate(p)
        p.unlink()


def test_opening_the_versions_in_another_order_is_tampering(tmp_path: Path) -> None:
    """Both versions hold "runner": swapped, each value still fits, but each salt belongs to its version."""
    g = start(tmp_path / "g")
    two_versions(g)
    p = reply_with(g, lambda d: d["open"]["scout"].reverse())
    with pytest.raises(TamperError, match="version 0\\) does not match"):
        g.adjudicate(p)


def test_a_new_version_does_not_launder_the_claims_of_an_earlier_one(tmp_path: Path) -> None:
    """A walker moves 3 (claimed on version 0), then the side commits a runner as version 1: the
    opening checks each version's claims, so the first move still convicts it."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(3, "walker", 4), more=('move = 3\n\n[hidden]\nscout = "runner"\n', "move = 1\n"))
    versions = g.state().data["hidden"]["red"]["scout"]["versions"]
    assert [[c["moved"] for c in v["claims"]] for v in versions] == [[3], [3]]
    with pytest.raises(TamperError, match="contradicts") as e:
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert any("moved 3 in state 0002" in p.message for p in e.value.problems)


def test_the_same_item_twice_in_one_file_is_malformed(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    p = draft(g, "red", 'move = 1\n\n[hidden]\nscout = "runner"\n"scout" = "walker"\nplan = 1\n', "0001-red.orders.toml")
    with pytest.raises(MalformedFileError):
        load_doc(p)


def test_an_item_opened_cannot_be_committed_again(tmp_path: Path) -> None:
    """Once opened, the salt of (item, version 0) is public: a new commitment under that id would be
    found by hashing each candidate. `pbem sign` refuses it, and so does the adjudicator."""
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    st = g.state()
    p = draft(g, "red", '[hidden]\nscout = "walker"\n', "0006-red.reveal.toml")
    with pytest.raises(IllegalOrdersError, match="opened and stays public|commits to nothing new"):
        sign_orders(p, p.read_text(), load_doc(p).data, g.keys["red"], st)
    p.unlink()
    entry = hv.seal_value(g.keys["red"], origin(g), join_salt_of(g, "red"), "red", "scout", 0, "walker")
    p = hand_sealed(g, "red", "", lambda d: d.update(hidden={"scout": entry}), name="0006-red.reveal.toml")
    with pytest.raises(IllegalOrdersError, match="opened in 0006.state.toml and stays public|commits to nothing new"):
        g.adjudicate(p)


def test_a_new_version_in_the_file_that_opens_the_item_is_refused(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    p = g.write_orders('[hidden]\nscout = "walker"\n', side="red", name="0005-red.reply.toml")
    assert set(load_doc(p).data["hidden"]) == {"scout"} and len(load_doc(p).data["open"]["scout"]) == 1
    with pytest.raises(IllegalOrdersError, match="stays public"):
        g.adjudicate(p)


@pytest.mark.parametrize("edit", [
    pytest.param(lambda d: d.pop("open"), id="nothing"),
    pytest.param(lambda d: d["open"].update(Scout=d["open"].pop("scout")), id="id-capitalised"),
    pytest.param(lambda d: d["open"].update(plan=[{"value": 2, "salt": "0" * 32}]), id="and-its-plan-too"),
    pytest.param(lambda d: d["open"].update(blue=[{"value": "walker", "salt": "0" * 32}]), id="an-item-red-does-not-hold"),
])
def test_a_file_opens_exactly_what_its_step_asks(tmp_path: Path, edit: Edit) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    p = reply_with(g, edit)
    with pytest.raises(IllegalOrdersError, match="but the step asks red to open bonus, scout"):
        g.adjudicate(p)


def test_a_side_cannot_open_the_opponents_item(tmp_path: Path) -> None:
    """Red, at the contact, names blue's scout in its openings (with the value blue will open):
    only red's own items are red's to open; blue's are opened by blue."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    p = reply_with(g, lambda d: d.update(open={"scout": d["open"]["scout"], "blue.scout": [{"value": "walker", "salt": "0" * 32}]}))
    with pytest.raises(IllegalOrdersError, match="opens blue.scout, scout"):
        g.adjudicate(p)


def test_a_side_cannot_open_early_of_its_own_accord(tmp_path: Path) -> None:
    """Red opens its scout on turn 2 (to be believed): a file opens only what its step asks."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    salt = hv.item_salt(g.keys["red"], origin(g), join_salt_of(g, "red"), "scout", 0, "runner")
    p = hand_sealed(g, "red", "move = 3\n", lambda d: d.update(open={"scout": [{"value": "runner", "salt": salt}]}))
    with pytest.raises(IllegalOrdersError, match="the step asks red to open nothing"):
        g.adjudicate(p)


# --- the adjudicator's own openings, and the end of the game ---------------------------------------

def test_an_adjudicator_who_leaves_out_its_own_openings_does_not_verify(tmp_path: Path) -> None:
    """Blue adjudicates the contact and records its scout as opened without the opening that proves
    it (transition.openings left out): nobody can check it against the commitment, so verify refuses."""
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    forge_state(g, 6, "blue", lambda d: d["transition"].pop("openings"))
    with pytest.raises(IllegalOrdersError, match="opens nothing, but the step asks blue to open bonus, scout"):
        verify([g.folder])
    assert CliRunner().invoke(cli, ["verify", str(g.folder)]).exit_code == 1


@pytest.mark.parametrize("edit", [
    pytest.param(lambda d: d["transition"]["openings"]["blue"].update(
        plan=[{"value": 2, "salt": "0" * 32}]), id="an-item-not-asked"),
    pytest.param(lambda d: d["transition"]["openings"].update(red=d["transition"]["openings"]["blue"]), id="for-the-opponent"),
    pytest.param(lambda d: d["opened"]["blue"]["scout"].update(values=["runner"]), id="opened-value-changed"),
    pytest.param(lambda d: d["opened"]["red"]["scout"].update(values=["walker"]), id="opponents-value-changed"),
])
def test_an_adjudicator_whose_openings_differ_from_the_replay_does_not_verify(tmp_path: Path, edit: Edit) -> None:
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    forge_state(g, 6, "blue", edit)
    with pytest.raises((VerificationError, IllegalOrdersError), match="0006.state.toml: does not follow|transition.openings"):
        verify([g.folder])
    assert CliRunner().invoke(cli, ["verify", str(g.folder)]).exit_code == 1


def test_an_adjudicator_who_ends_the_game_without_the_last_reveal_does_not_verify(tmp_path: Path) -> None:
    """Blue seals the contact's state as the end of the game: the plans would never be opened."""
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    assert g.state().data["awaits"]["kind"] == "reveal"

    def over(d: dict[str, Any]) -> None:
        d["awaits"] = {"kind": "none", "step": "over", "from": [], "adjudicator": "blue"}

    forge_state(g, 6, "blue", over)
    with pytest.raises(VerificationError, match="does not follow.*first difference at .awaits"):
        verify([g.folder])


def test_colluding_sides_who_skip_the_last_reveal_do_not_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both sides run a pbem that ends the game with the plans hidden: the folder does not verify."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    real = hv.after_step

    def no_reveal(before: Any, game: dict[str, Any], was_last: bool = False) -> dict[str, Any]:
        out = real(before, game, was_last)
        if out["awaits"]["kind"] == "reveal":
            out["awaits"] = game["awaits"]
        return out

    with monkeypatch.context() as m:
        m.setattr("pbem.exchange.game.after_step", no_reveal)
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    st = g.state().data
    assert st["awaits"]["kind"] == "none" and set(st["hidden"]["red"]) == {"plan"}
    with pytest.raises(VerificationError, match="0006.state.toml: does not follow"):
        verify([g.folder])


def test_colluding_sides_who_leave_out_a_claim_do_not_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red's walker moves 3; blue's pbem records no claim of it, so the opening later passes: the
    replay records the claim, and verify refuses the state that left it out."""
    g = start(tmp_path / "g")
    with monkeypatch.context() as m:
        m.setattr("tests.exchange.hideout.add_claim", lambda *a: None)
        play_to_contact(g, red=first(3, "walker", 4))
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert g.state().data["opened"]["red"]["scout"]["values"] == ["walker"]
    with pytest.raises(VerificationError, match="0002.state.toml: does not follow.*hidden.red.scout.versions.0..claims"):
        verify([g.folder])


def test_colluding_sides_who_accept_a_broken_claim_do_not_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red's walker moves 3 and blue's pbem accepts its opening: verify convicts red's reply."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(3, "walker", 4))
    with monkeypatch.context() as m:
        m.setattr(Hideout, "check_opening", lambda *a: [])
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    with pytest.raises(TamperError, match="0005-red.reply.toml: red's hidden item 'scout', opened as \\[\"walker\"\\], contradicts"):
        verify([g.folder])
    assert CliRunner().invoke(cli, ["verify", str(g.folder)]).exit_code == 3


def test_a_forged_state_that_frames_the_opponent_with_a_claim_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue records in its state that red's scout moved 3 when it moved 1 (to convict red's
    walker at the contact): red's `pbem sign` replays the transition and refuses to answer it."""
    g = start(tmp_path / "g")
    g.play(first(1, "walker", 4))
    forge_state(g, 2, "blue", lambda d: d["hidden"]["red"]["scout"]["versions"][0]["claims"][0].update(moved=3))
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.write_orders(first(1, "walker", 2), side="blue")  # the state awaits blue: red checks it as it adjudicates
    fails(g.folder, 1, ["adjudicate", g.state_path, p, "--key", keys["red"]], "0002.state.toml: does not follow")
    with pytest.raises(VerificationError, match="hidden.red.scout"):
        verify([g.folder])


# --- a forged state asks the owner to open early ---------------------------------------------------

def ask_red_to_open(d: dict[str, Any]) -> None:
    """State 2 as blue would like it: red replies at once, opening its scout and its plan."""
    d["awaits"] = {"kind": "reply", "step": "contact/red", "from": ["red"], "adjudicator": "blue",
                   "open": {"red": ["plan", "scout"]}}


def test_pbem_sign_opens_nothing_for_a_forged_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue adjudicates red's first move and seals, instead of the state the rules give, one that
    asks red to open its scout and plan now. Red's `pbem sign` replays the transition first:
    refused (exit 1), the draft unchanged, no opening written."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    forge_state(g, 2, "blue", ask_red_to_open)
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.folder / "0002-red.reply.toml"
    run(["template", g.state_path, "--side", "red", "-o", p])
    assert "asks you to open your hidden item(s) plan, scout" in p.read_text()
    fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "0002.state.toml: does not follow")
    fails(g.folder, 1, ["sign", p, "--key", keys["red"], "-o", g.folder / "signed.toml"], "does not follow")
    assert "open" not in read_toml(p) and "runner" not in p.read_text()


def test_pbem_sign_opens_nothing_in_a_forked_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue sends the real state 2 and, beside it, another state 2 asking red to open: a fork."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    forged = forge_state(g, 2, "blue", ask_red_to_open, name="0002-b.state.toml")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.folder / "0002-red.reply.toml"
    run(["template", forged, "--side", "red", "-o", p])
    fails(g.folder, 3, ["sign", p, "--key", keys["red"], "--state", forged], "(a fork)")


def test_pbem_sign_opens_nothing_for_a_state_whose_boxes_were_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue files red's scout's box under red's plan and asks red to open the plan: red's pbem
    would decrypt the scout's box and write its value as the plan's. `pbem sign` refuses the state."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))

    def moved(d: dict[str, Any]) -> None:
        ask_red_to_open(d)
        red = d["hidden"]["red"]
        red["plan"], red["scout"] = red["scout"], red["plan"]

    forge_state(g, 2, "blue", moved)
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = g.folder / "0002-red.reply.toml"
    run(["template", g.state_path, "--side", "red", "-o", p])
    fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "does not follow")


def test_the_owner_never_writes_an_opening_that_does_not_make_its_commitment(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))

    def moved(d: dict[str, Any]) -> None:
        ask_red_to_open(d)
        red = d["hidden"]["red"]
        red["plan"], red["scout"] = red["scout"], red["plan"]

    forge_state(g, 2, "blue", moved)
    st = g.state()
    p = draft(g, "red", "", "0002-red.reply.toml")
    try:
        text = sign_orders(p, p.read_text(), load_doc(p).data, g.keys["red"], st)
    except PbemError:
        return  # refused: nothing written
    assert "runner" not in text


# --- hostile values and tables: refused with an exit code, never an internal error ----------------

def commit_by_hand(g: Game, item: str, value: Any) -> Edit:
    """An edit that puts in red's file a commitment to ``value`` (anything the core seals) for ``item``."""
    entry = hv.seal_value(g.keys["red"], origin(g), join_salt_of(g, "red"), "red", item, 0, value)
    return lambda d: d["hidden"].update({item: entry})


@pytest.mark.parametrize("spelled", [pytest.param('["runner"]', id="a-list"), pytest.param('{ type = "runner" }', id="a-table")])
def test_a_draft_with_a_hidden_value_of_the_wrong_type_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   spelled: str) -> None:
    g = start(tmp_path / "g")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = draft(g, "red", f"move = 1\n\n[hidden]\nplan = 1\nscout = {spelled}\n", "0001-red.orders.toml")
    fails(g.folder, 1, ["check", g.state_path, p], "hidden.scout")
    fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "hidden.scout")


def test_opening_a_value_of_the_wrong_type_is_tampering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "g")
    g.adjudicate(hand_sealed(g, "red", first(3, "runner", 4), commit_by_hand(g, "scout", ["runner"])))
    for body in (first(1, "walker", 2), "move = 3\n", "move = 1\n"):
        g.play(body)
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    assert load_doc(reply).data["open"]["scout"][0]["value"] == ["runner"]
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 3, ["adjudicate", g.state_path, reply, "--key", keys["blue"]], "0005-red.reply.toml")


def test_verify_convicts_an_adjudicator_who_opened_a_value_of_the_wrong_type(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    entry = hv.seal_value(g.keys["blue"], origin(g), join_salt_of(g, "blue"), "blue", "scout", 0, ["walker"])
    g.adjudicate(hand_sealed(g, "blue", first(1, "walker", 2), lambda d: d["hidden"].update(scout=entry)))
    g.play("move = 3\n")
    g.play("move = 1\n")
    combat = Hideout._combat
    with monkeypatch.context() as m:  # blue's pbem: no check, and its combat reads the list as a walker
        m.setattr(Hideout, "check_opening", lambda *a: [])
        m.setattr("pbem.exchange.game.hidden_value_problems", lambda *a: [])
        m.setattr(Hideout, "_combat", lambda self, s, dice: combat(
            self, {**s, "opened": {**s["opened"], "blue": {"scout": {"values": ["walker"], "at": 6}}}}, dice))
        g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert g.state().data["opened"]["blue"]["scout"]["values"] == [["walker"]]
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 3, ["verify", g.folder], "0006.state.toml")


def test_a_plan_spelled_as_a_boolean_is_not_a_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "g")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    p = draft(g, "red", 'move = 1\n\n[hidden]\nscout = "runner"\nplan = true\n', "0001-red.orders.toml")
    fails(g.folder, 1, ["check", g.state_path, p], "hidden.plan")
    fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "hidden.plan")


@pytest.mark.parametrize("entry", [
    pytest.param("runner", id="a-value"),
    pytest.param({}, id="an-empty-table"),
    pytest.param({"commit": "sha256:" + "1" * 64}, id="no-box"),
    pytest.param({"commit": "sha256:" + "1" * 64, "box": "AAAA"}, id="a-box-shorter-than-its-tag"),
    pytest.param({"commit": "sha256:" + "1" * 64, "box": base64.b64encode(bytes(20)).decode() + "\n"}, id="a-box-with-a-newline"),
    pytest.param({"commit": "SHA256:" + "1" * 64, "box": base64.b64encode(bytes(20)).decode()}, id="a-commit-respelled"),
    pytest.param({"commit": "sha256:" + "1" * 64, "box": base64.b64encode(bytes(20)).decode(), "value": "runner"},
                 id="a-value-beside"),
])
def test_a_hostile_hidden_entry_is_refused_before_any_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: Any) -> None:
    g = start(tmp_path / "g")
    p = hand_sealed(g, "red", first(3, "runner", 4), lambda d: d["hidden"].update(scout=entry))
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    r = run(["adjudicate", g.state_path, p, "--key", keys["blue"]], 2)
    assert "hidden.scout" in r.output and not (g.folder / "0002.state.toml").exists()


@pytest.mark.parametrize("edit", [
    pytest.param(lambda d: d["open"].update(scout="runner"), id="not-a-list"),
    pytest.param(lambda d: d["open"].update(scout=["runner"]), id="a-list-of-values"),
    pytest.param(lambda d: d["open"]["scout"][0].pop("salt"), id="no-salt"),
    pytest.param(lambda d: d["open"]["scout"][0].pop("value"), id="no-value"),
    pytest.param(lambda d: d["open"]["scout"][0].update(version=0), id="a-field-more"),
    pytest.param(lambda d: d["open"]["scout"][0].update(salt=d["open"]["scout"][0]["salt"].upper()), id="salt-upper-case"),
    pytest.param(lambda d: d["open"]["scout"][0].update(salt=d["open"]["scout"][0]["salt"] + "00"), id="salt-longer"),
    pytest.param(lambda d: d["open"].update({"scout!": d["open"]["scout"]}), id="an-id-out-of-its-spelling"),
    pytest.param(lambda d: d.update(open=[d["open"]]), id="open-a-list"),
])
def test_a_hostile_open_table_is_refused_with_an_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Edit) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    p = reply_with(g, edit)
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    r = CliRunner().invoke(cli, ["adjudicate", str(g.state_path), str(p), "--key", str(keys["blue"])])
    assert r.exit_code in (1, 2, 3) and isinstance(r.exception, SystemExit), r.output
    assert "internal error" not in r.output and "Traceback" not in r.output
    assert not (g.folder / "0006.state.toml").exists()


def test_pbem_adjudicate_opens_nothing_of_its_own_for_a_forged_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red seals the contact's state asking blue, who adjudicates red's reply and opens its own
    items in the state it seals, to open its plan too (early): blue's `pbem adjudicate` replays the
    transition first and writes nothing."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    forge_state(g, 5, "red", lambda d: d["awaits"]["open"].update(blue=["plan", "scout"]))
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    fails(g.folder, 1, ["adjudicate", g.state_path, reply, "--key", keys["blue"]], "0005.state.toml: does not follow")


def test_pbem_sign_of_a_sealed_reply_for_a_forged_state_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply already sealed (an earlier run) is signed again for a forged state: `pbem sign`
    compares before it checks the history, and must still write nothing and say no value."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    forge_state(g, 2, "blue", ask_red_to_open)
    p = g.write_orders("", side="red", name="0002-red.reply.toml", sign=True)
    data = unsealed(load_doc(p).data)
    del data["open"]
    p.unlink()
    write_new(p, dumps(seal(data, "red", g.keys["red"])))
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    r = fails(g.folder, 1, ["sign", p, "--key", keys["red"], "--force"], "does not follow")
    assert "runner" not in r.output
    r = fails(g.folder, 1, ["sign", p, "--key", keys["red"]], "does not follow")
    assert "runner" not in r.output


# --- the last step -------------------------------------------------------------------------------

def test_a_commitment_in_the_last_step_does_not_wedge_the_game(tmp_path: Path) -> None:
    """A loser commits one more item in the last step, to make another last step and so on: `pbem
    sign` refuses [hidden] in a reveal file, and so does the adjudicator (the last step only opens)."""
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    with pytest.raises(IllegalOrdersError, match="commits to nothing new"):
        g.write_orders("[hidden]\nextra = 5\n", side="red", name="0006-red.reveal.toml")
    (g.folder / "0006-red.reveal.toml").unlink()
    entry = hv.seal_value(g.keys["red"], origin(g), join_salt_of(g, "red"), "red", "extra", 0, 5)
    p = hand_sealed(g, "red", "", lambda d: d.update(hidden={"extra": entry}), name="0006-red.reveal.toml")
    with pytest.raises(IllegalOrdersError, match="commits to nothing new"):
        g.adjudicate(p)
    assert not (g.folder / "0007.state.toml").exists()


def test_two_different_reveal_files_for_one_step_are_an_equivocation(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    to_contact_resolved(g)
    played = g.write_orders("move = 0\n", side="red", name="0006-red.reveal.toml")
    g.write_orders("move = 2\n", side="red", name="0006-red.reveal-2.toml")
    g.adjudicate(played)
    with pytest.raises(TamperError, match="equivocation"):
        verify([g.folder])


def blue_ends_the_game_holding_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant of Hideout in which red commits nothing and the game ends after blue's first move,
    blue adjudicating the last step: only the adjudicator holds hidden items at the end."""
    from pbem.engine.model import Transition

    real = Hideout.resolve

    def resolve(self: Hideout, state: dict[str, Any], subs: list[Any], dice: Any) -> Transition:
        t = real(self, state, subs, dice)
        if subs and subs[0].side == "blue":
            return Transition({**{k: v for k, v in t.state.items() if k != "draws"}, "result": {"winner": "blue"},
                               "awaits": {"kind": "none", "step": "over", "from": [], "adjudicator": "blue"}}, t.events)
        return t

    monkeypatch.setattr(Hideout, "check", lambda self, state, sub: [])
    monkeypatch.setattr(Hideout, "resolve", resolve)


def test_a_last_step_only_the_adjudicator_opens_can_be_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blue_ends_the_game_holding_everything(monkeypatch)
    g = start(tmp_path / "g")
    g.play("move = 1\n")
    g.play(first(1, "walker", 2))
    assert g.state().data["awaits"] == {"kind": "reveal", "step": "reveal", "from": [], "adjudicator": "blue",
                                        "open": {"blue": ["plan", "scout"]}}
    keys = keyfiles(g, tmp_path)
    cli_env(monkeypatch, tmp_path)
    run(["adjudicate", g.state_path, "--key", keys["blue"]])
    assert g.state().data["awaits"]["kind"] == "none"


def test_a_last_step_only_the_adjudicator_opens_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same step adjudicated through the library: its openings are checked by verify, and a
    forged one is refused."""
    blue_ends_the_game_holding_everything(monkeypatch)
    g = start(tmp_path / "g")
    g.play("move = 1\n")
    g.play(first(1, "walker", 2))
    g.adjudicate()
    assert g.state().data["opened"]["blue"]["plan"]["values"] == [2]
    assert verify([g.folder]).states == 5
    forge_state(g, 4, "blue", lambda d: d["transition"]["openings"]["blue"]["plan"][0].update(value=5))
    with pytest.raises(TamperError, match="blue's hidden item 'plan' \\(version 0\\) does not match"):
        verify([g.folder])


# --- refereed games ------------------------------------------------------------------------------

def test_a_refereed_game_shows_no_hidden_value_in_the_views_or_side_reports(tmp_path: Path) -> None:
    """With a referee, [hidden] travels in the clear to the referee; blue's views and reports
    (and red's of blue's values) carry none of it."""
    g = start(tmp_path / "g", referee=True)
    red = g.write_orders(first(3, "runner", 4), side="red")
    assert load_doc(red).data["hidden"] == {"scout": "runner", "plan": 4}  # not sealed: the referee reads it
    g.adjudicate(red)
    blue = g.write_orders(first(1, "walker", 2), side="blue")
    g.adjudicate(blue)
    views = sorted(g.folder.glob("*-blue.view.toml")) + sorted(g.folder.glob("*-blue.report.md"))
    assert views
    for p in views:
        assert "runner" not in p.read_text(), p.name
    for p in sorted(g.folder.glob("*-red.view.toml")) + sorted(g.folder.glob("*-red.report.md")):
        assert "walker" not in p.read_text(), p.name
    for p in sorted(g.folder.glob("*.view.toml")):
        assert not {"hidden", "opened"} & set(read_toml(p)), p.name


# --- the mail, and the size of what a side commits ---------------------------------------------------

def test_mail_read_files_a_state_in_which_the_adjudicator_opened_its_own_items(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    from email.message import EmailMessage

    g = start(tmp_path / "g")
    to_contact_resolved(g)
    red = tmp_path / "red"
    red.mkdir()
    for p in sorted(g.folder.iterdir()):
        if p.name < "0006":
            shutil.copy(p, red / p.name)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "blue@example.org", "red@example.org", "[pbem ho-test] 0006"
    msg.set_content("Your move.\n")
    for n in ("0006.state.toml", "0006.report.md"):
        msg.add_attachment((g.folder / n).read_bytes(), maintype="application", subtype="toml", filename=n)
    mail = tmp_path / "0006.eml"
    mail.write_bytes(msg.as_bytes())
    cli_env(monkeypatch, tmp_path)
    run(["mail", "read", mail, "--folder", red])
    assert (red / "0006.state.toml").read_bytes() == (g.folder / "0006.state.toml").read_bytes()


def test_mail_read_refuses_a_state_whose_adjudicator_left_out_its_openings(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    from email.message import EmailMessage

    g = start(tmp_path / "g")
    to_contact_resolved(g)
    forge_state(g, 6, "blue", lambda d: d["transition"].pop("openings"))
    red = tmp_path / "red"
    red.mkdir()
    for p in sorted(g.folder.iterdir()):
        if p.name < "0006":
            shutil.copy(p, red / p.name)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "blue@example.org", "red@example.org", "[pbem ho-test] 0006"
    msg.set_content("Your move.\n")
    msg.add_attachment((g.folder / "0006.state.toml").read_bytes(), maintype="application", subtype="toml",
                       filename="0006.state.toml")
    mail = tmp_path / "0006.eml"
    mail.write_bytes(msg.as_bytes())
    cli_env(monkeypatch, tmp_path)
    fails(red, 1, ["mail", "read", mail, "--folder", red], "blue to open bonus, scout")


def test_commitments_cannot_grow_a_state_past_what_pbem_reads(tmp_path: Path) -> None:
    """A box is bounded (a value of at most 4 kB), and so is what a side holds hidden (200 values):
    a huge box is refused before any rule; two sides each at the limit would make a state larger
    than pbem reads, and the file that would do it is refused (nothing written)."""
    import hashlib

    def bloat(n: int, size: int) -> Any:
        def edit(d: dict[str, Any]) -> None:
            tag = str(d["pbem"]["answers"])
            d.setdefault("hidden", {}).update({f"junk{i}": {"commit": "sha256:" + hashlib.sha256(f"{tag} {i}".encode()).hexdigest(),
                                                           "box": base64.b64encode(bytes(size)).decode()} for i in range(n)})
        return edit

    g = start(tmp_path / "g")
    with pytest.raises(MalformedFileError, match="hidden.junk0"):
        g.adjudicate(hand_sealed(g, "red", first(0, "runner", 4), bloat(2, 700_000)))
    (g.folder / "0001-red.orders.toml").unlink()
    with pytest.raises(MalformedFileError, match="schema"):  # more than 200 in one file
        g.adjudicate(hand_sealed(g, "red", first(0, "runner", 4), bloat(199, 4112)))
    (g.folder / "0001-red.orders.toml").unlink()
    g.adjudicate(hand_sealed(g, "red", first(0, "runner", 4), bloat(198, 4112)))  # 200 with the scout and the plan
    p = hand_sealed(g, "blue", first(0, "walker", 2), bloat(198, 4112))
    assert p.stat().st_size < 2 * 1024 * 1024
    with pytest.raises(IllegalOrdersError, match="more than pbem reads"):
        g.adjudicate(p)
    assert not (g.folder / "0003.state.toml").exists()
    load_state(g.state_path)
    p.unlink()
    g.adjudicate(hand_sealed(g, "blue", first(0, "walker", 2), bloat(2, 4112)))
    with pytest.raises(IllegalOrdersError, match="at most 200"):  # red at its limit: one more is too many
        g.adjudicate(hand_sealed(g, "red", "move = 0\n", bloat(1, 4112)))
