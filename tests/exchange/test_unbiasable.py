"""Nobody can choose a die (docs/protocol.md: one spelling, threat model, equivocation).

The attacks that once let a party pick the dice, kept as tests, and the property behind them:
every spelling of a game file that pbem accepts gives the same digest, the same seed and the same
dice; every other spelling is refused.
"""

from __future__ import annotations

import base64
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.errors import PbemError, TamperError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import canonical, content_digest, digest, seal, unsealed
from pbem.exchange.files import dumps, parse_toml, write_new
from pbem.exchange.game import (
    Doc,
    adjudicate,
    commitments_in,
    envelope,
    load_doc,
    load_state,
    make_join,
    new_game,
    parse_doc,
)
from pbem.exchange.keys import KeyPair
from tests.clihelpers import fails, run
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, SOVIET_STANDING, Game, fixed_salt, start_game
from tests.exchange.spellings import respelled_values, toml_spellings


def read(p: Path) -> dict[str, Any]:
    return tomllib.loads(p.read_text(encoding="utf-8"))


def write(p: Path, data: dict[str, Any]) -> None:
    p.write_text(tomli_w.dumps(data), encoding="utf-8")


def copy_folder(src: Path, dest: Path, upto: int | None = None) -> Path:
    """A copy of a game folder, with only the states (and their files) up to ``upto``."""
    dest.mkdir(parents=True)
    for f in sorted(src.iterdir()):
        if upto is not None and int(f.name[:4]) > upto:
            continue
        if upto is not None and int(f.name[:4]) == upto and not f.name.endswith(".state.toml"):
            continue
        shutil.copy(f, dest / f.name)
    return dest


# --- attack 1: the adjudicator re-spells his own reveal --------------------------------------------

REVEAL_SPELLINGS = {
    "upper case": str.upper,
    "one upper-case digit": lambda r: r[:-1] + r[-1].upper() if r[-1].isalpha() else r[:-2] + "A" + r[-1],
    "spaces between bytes": lambda r: " ".join(r[i:i + 2] for i in range(0, len(r), 2)),
    "a trailing space": lambda r: r + " ",
    "a trailing newline": lambda r: r + "\n",
    "a 0x prefix": lambda r: "0x" + r,
}


@pytest.mark.parametrize("how", sorted(REVEAL_SPELLINGS))
def test_the_adjudicator_cannot_respell_his_reveal(played: Game, tmp_path: Path, how: str) -> None:
    """The adjudicator of a step writes his committed reveal in another spelling that decodes to the
    same bytes and seals the state again: a new seed for each spelling, were any accepted."""
    p = played.folder / "0002.state.toml"  # adjudicated by the soviet
    data = read(p)
    reveal = data["transition"]["reveals"]["soviet"]
    data["transition"]["reveals"]["soviet"] = REVEAL_SPELLINGS[how](reveal)
    assert data["transition"]["reveals"]["soviet"] != reveal
    write(p, seal(unsealed(data), "soviet", played.keys["soviet"]))
    needle = "transition.reveals.soviet"
    fails(tmp_path, 3, ["verify", played.folder], needle, "not in their one spelling")
    fails(tmp_path, 3, ["audit", p], needle)
    fails(tmp_path, 3, ["status", p], needle)
    # by mail, into the receiver's folder that holds the game up to state 0001
    receiver = copy_folder(played.folder, tmp_path / "receiver", upto=1)
    eml = tmp_path / "in.eml"
    eml.write_bytes(mail_with(("0002.state.toml", p.read_text(encoding="utf-8")),
                              ("0001-german.orders.toml", (played.folder / "0001-german.orders.toml").read_text(encoding="utf-8"))))
    fails(tmp_path, 3, ["mail", "read", eml, "--folder", receiver], needle)


def mail_with(*files: tuple[str, str]) -> bytes:
    from email.message import EmailMessage

    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "a@example.org", "b@example.org", "[pbem] files"
    m.set_content("Game files attached.\n")
    for name, text in files:
        m.add_attachment(text.encode("utf-8"), maintype="application", subtype="toml", filename=name)
    return m.as_bytes()


def test_a_reveal_in_its_one_spelling_is_all_the_seed_takes() -> None:
    """The seed material refuses anything but 64 lower-case hex digits."""
    reveal = "ab" * 32
    good = proto.transition_seed("sha256:" + "0" * 64, {"x": reveal})
    for how, respell in REVEAL_SPELLINGS.items():
        with pytest.raises(ValueError):
            proto.transition_seed("sha256:" + "0" * 64, {"x": respell(reveal)})
        assert not proto.reveal_matches(respell(reveal), proto.commitment(reveal)), how
    assert len(good) == 32


# --- attack 2: re-roll by re-encoding the sender's signature -----------------------------------------

def signature_spellings(sig: str) -> list[str]:
    """Every base64 spelling of the signature's 64 bytes that a lenient decoder accepts: the four
    padding bits of the last character before "==" (16 spellings, the canonical one included)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    assert sig.endswith("==") and len(sig) == 88
    top = alphabet.index(sig[-3]) & 0b110000
    out = [sig[:-3] + alphabet[top | low] + "==" for low in range(16)]
    assert all(base64.b64decode(x) == base64.b64decode(sig) for x in out)
    return out


def test_the_adjudicator_cannot_reencode_the_senders_signature(game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The receiving player changes the last character before "==" of the sender's signature: the
    same signature bytes, 16 spellings, and once 16 digests, so 16 seeds to choose from."""
    monkeypatch.chdir(tmp_path)
    orders = game.write_orders(GERMAN_GT1)
    text = orders.read_text(encoding="utf-8")
    sig = read(orders)["seal"]["signature"]
    spellings = signature_spellings(sig)
    assert len(spellings) == 16 and spellings.count(sig) == 1
    from pbem.exchange.keys import write_key_files

    write_key_files(game.keys["soviet"], tmp_path / "soviet")
    state = game.state_path
    for other in spellings:
        if other == sig:
            continue
        orders.write_text(text.replace(sig, other), encoding="utf-8")
        for args in (["check", state, orders], ["adjudicate", state, orders, "--key", "soviet.key"]):
            fails(tmp_path, 3, args, f"{orders}: the seal's key or signature is not readable", "canonical base64")
    orders.write_text(text, encoding="utf-8")
    game.adjudicate(orders)
    run(["verify", game.folder])
    # after the adjudication, a re-encoded copy in the folder is refused by verify
    orders.write_text(text.replace(sig, spellings[(spellings.index(sig) + 1) % 16]), encoding="utf-8")
    fails(tmp_path, 3, ["verify", game.folder], "canonical base64")


def test_even_an_accepted_other_signature_would_not_change_the_seed(game: Game) -> None:
    """The seed takes no input's content or seal, only the previous state and the reveals: the
    sender sealing the same orders again (any valid signature) gives the same dice."""
    orders = game.write_orders(GERMAN_GT1)
    st = game.state()
    first = adjudicate(st, [load_doc(orders, "orders")], game.keys["soviet"])
    doc = load_doc(orders, "orders")
    other = {**doc.data, "seal": {**doc.data["seal"], "signer": "german"}}
    assert content_digest(other) == content_digest(doc.data)
    again = adjudicate(st, [Doc(orders, other)], game.keys["soviet"])
    assert again.state["transition"] == first.state["transition"]


def test_a_public_key_in_another_base64_spelling_is_refused(game: Game, tmp_path: Path) -> None:
    """A key in the seal (or the state) with its padding bits set is another spelling of the same key."""
    orders = game.write_orders(GERMAN_GT1)
    text = orders.read_text(encoding="utf-8")
    key = read(orders)["seal"]["key"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(key[-2])
    other = key[:-2] + alphabet[last ^ 1] + "="
    assert base64.b64decode(other[8:]) == base64.b64decode(key[8:])
    orders.write_text(text.replace(key, other), encoding="utf-8")
    fails(tmp_path, 3, ["check", game.state_path, orders], "not readable")


# --- attack 3: a game id used again ----------------------------------------------------------------

def test_a_replayed_first_state_does_not_give_the_same_secrets(tmp_path: Path) -> None:
    """A player starts a "new" game with an old game's id, keys and scenario: its first state is the
    old one byte for byte. The opponent's join draws a fresh salt, so his secrets are new; and the
    secrets revealed in the old game are no part of the new chain."""
    keys = {s: KeyPair.from_seed(f"replay {s}".encode()) for s in ("german", "soviet")}
    states = []
    for name in ("old", "new"):
        st = new_game("proud-monster", EXCHANGE_SCENARIO, {s: k.public_text for s, k in keys.items()}, None, keys["german"], "pm-same", {})
        (tmp_path / name).mkdir()
        write_new(tmp_path / name / "0000.state.toml", dumps(st))
        states.append(load_state(tmp_path / name / "0000.state.toml"))
    assert states[0].digest == states[1].digest  # the very same first state
    old_join = make_join(states[0], "soviet", keys["soviet"])
    new_join = make_join(states[1], "soviet", keys["soviet"])
    assert old_join["dice"]["salt"] != new_join["dice"]["salt"]
    assert old_join["dice"]["commit"] != new_join["dice"]["commit"]
    origin = states[0].digest
    revealed_before = {proto.secret(keys["soviet"], origin, old_join["dice"]["salt"], n) for n in range(20)}
    assert not revealed_before & {proto.secret(keys["soviet"], origin, new_join["dice"]["salt"], n) for n in range(20)}


def test_secrets_are_bound_to_the_games_first_state(tmp_path: Path) -> None:
    """Two games with one id and the same salt but another first state (other options) share no secret."""
    key = KeyPair.from_seed(b"bound")
    a = "sha256:" + "1" * 64
    b = "sha256:" + "2" * 64
    assert {proto.secret(key, a, "00" * 16, n) for n in range(10)}.isdisjoint({proto.secret(key, b, "00" * 16, n) for n in range(10)})


def test_join_refuses_a_commitment_already_used_in_the_folder(game: Game) -> None:
    """A first state replayed into a folder where the party joined it before, with the same salt:
    the join would repeat a commitment whose secrets were revealed; it is refused."""
    st0 = load_state(game.folder / "0000.state.toml")
    used = commitments_in(game.folder)
    assert st0.digest and used
    with pytest.raises(TamperError, match="already used in a game of this folder"):
        make_join(st0, "soviet", game.keys["soviet"], salt=fixed_salt("soviet"), used=used)
    make_join(st0, "soviet", game.keys["soviet"], used=used)  # a fresh salt: a new chain


def test_two_parties_with_one_key_are_refused(tmp_path: Path) -> None:
    key = KeyPair.from_seed(b"one key")
    with pytest.raises(PbemError, match="two parties of the game have the same public key"):
        new_game("proud-monster", EXCHANGE_SCENARIO, {"german": key.public_text, "soviet": key.public_text}, None, key, "pm-x", {})


# --- the seal is checked first ------------------------------------------------------------------

@pytest.mark.parametrize(("field", "value"), [("step", "GT1/2/german"), ("side", "soviet"), ("answers", "sha256:" + "ab" * 32),
                                              ("dice_index", 1), ("kind", "reply")])
def test_a_changed_field_of_sealed_orders_is_tampering(game: Game, tmp_path: Path, field: str, value: Any) -> None:
    orders = game.write_orders(GERMAN_GT1)
    data = read(orders)
    data["pbem"][field] = value
    write(orders, data)
    from pbem.exchange.keys import write_key_files

    key = write_key_files(game.keys["soviet"], tmp_path / "soviet")[0]
    for args in (["check", game.state_path, orders], ["adjudicate", game.state_path, orders, "--key", key]):
        fails(tmp_path, 3, args, "the signature does not match the content")


def test_a_changed_signer_of_sealed_orders_is_tampering(game: Game, tmp_path: Path) -> None:
    orders = game.write_orders(GERMAN_GT1)
    data = read(orders)
    data["seal"]["signer"] = "soviet"
    write(orders, data)
    fails(tmp_path, 3, ["check", game.state_path, orders], "sealed by key")


@pytest.mark.parametrize(("field", "value"), [("sequence", 7), ("sequence", 1), ("game", "pm-other"), ("origin", "")])
def test_a_changed_header_of_a_sealed_state_is_tampering(played: Game, tmp_path: Path, field: str, value: Any) -> None:
    p = played.folder / "0002.state.toml"
    data = read(p)
    data["pbem"][field] = value
    write(p, data)
    for args in (["status", p], ["verify", played.folder], ["audit", p]):
        fails(tmp_path, 3, args, "the signature does not match the content")


# --- verify trusts a history from its start --------------------------------------------------------

def test_one_invented_state_does_not_verify(played: Game, tmp_path: Path) -> None:
    """A single state, sealed by a party of the game, reading "game over: the german wins"."""
    data = read(played.folder / "0003.state.toml")
    data["result"] = {"winner": "german", "rule": "4.4", "reason": "sudden death"}
    data["awaits"] = {"kind": "none", "step": "over", "from": [], "adjudicator": "german"}
    folder = tmp_path / "invented"
    folder.mkdir()
    p = folder / "0003.state.toml"
    write(p, seal(unsealed(data), "german", played.keys["german"]))
    r = fails(tmp_path, 1, ["verify", folder], "the history starts at", "not at the game's first state", "--from")
    assert "ok" not in r.output.split("\n")[0]
    # a player who holds that very state may anchor on it, and is told so
    out = run(["verify", folder, "--from", digest(read(p)), "--quiet"]).output
    assert "trusted from" in out and "named with --from" in out
    fails(tmp_path, 1, ["verify", folder, "--from", "sha256:" + "ab" * 32], "no state among the files given has this digest")
    fails(tmp_path, 2, ["verify", folder, "--from", "SHA256:AB"], "64 lower-case hex digits")


def test_a_first_state_that_pbem_new_would_not_make_does_not_verify(played: Game, tmp_path: Path) -> None:
    """The creator seals a state 0 with another position (the chain after it rebuilt on it)."""
    p = played.folder / "0000.state.toml"
    data = read(p)
    data["position"]["vp"] = 9
    write(p, seal(unsealed(data), "german", played.keys["german"]))
    fails(tmp_path, 1, ["verify", played.folder], "is not the state 0 of scenario", "position.vp")


def test_a_history_anchored_later_is_trusted_from_there(played: Game, tmp_path: Path) -> None:
    folder = tmp_path / "later"
    folder.mkdir()
    for f in played.folder.iterdir():
        if not f.name.startswith("0000"):
            shutil.copy(f, folder / f.name)
    fails(tmp_path, 1, ["verify", folder], "the history starts at")
    anchor = load_state(folder / "0001.state.toml").digest
    out = run(["verify", folder, "--from", anchor]).output
    assert f"trusted from {folder / '0001.state.toml'} (named with --from; {anchor})" in out
    # the states before the anchor are vouched for by the digest that follows them
    out = run(["verify", played.folder, "--from", load_state(played.folder / "0003.state.toml").digest, "--quiet"]).output
    assert "0003.state.toml (named with --from" in out


# --- equivocation -------------------------------------------------------------------------------------

def test_two_order_files_for_one_step_are_an_equivocation(game: Game, tmp_path: Path) -> None:
    """The sender signs two versions of his orders: whichever the adjudicator used, the folder
    holding both proves it, and verify says so with both files."""
    first = game.write_orders(GERMAN_GT1)
    second = game.write_orders('\n[standing]\nloss_policy = "most-steps-first"\n', name="0001-german-2.orders.toml")
    game.adjudicate(first)
    needles = ("equivocation: 'german' signed two different files for one step", "orders for step GT1/1/german",
               f"{first}: sealed by german", f"{second}: sealed by german")
    fails(tmp_path, 3, ["verify", game.folder], *needles)
    fails(tmp_path, 3, ["verify", first, second], *needles)  # the two files are the proof
    second.unlink()
    run(["verify", game.folder])


def test_the_same_orders_twice_are_not_an_equivocation(game: Game, tmp_path: Path) -> None:
    first = game.write_orders(GERMAN_GT1)
    shutil.copy(first, game.folder / "copy.orders.toml")
    game.adjudicate(first)
    run(["verify", game.folder])


# --- the property: every accepted spelling gives the same digest, seed and dice ------------------------

@dataclass
class World:
    """Files of every kind a party writes, each with how pbem accepts it."""

    two: Game  # a played two-player game: joins, orders, states
    reply: Game  # a game with a reply
    refereed: Any  # a refereed game: views


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    from tests.exchange.test_referee import Refereed
    from tests.games.proud_monster.test_reply import find_game_awaiting_a_reply

    two = start_game(tmp_path_factory.mktemp("two") / "game")
    two.play(GERMAN_GT1)
    two.play(SOVIET_STANDING)
    reply = find_game_awaiting_a_reply(tmp_path_factory.mktemp("reply"))
    seq = int(reply.state().data["pbem"]["sequence"])
    p = reply.folder / f"{seq:04d}-soviet.reply.toml"
    from pbem.demo import order_text
    from pbem.exchange.game import sign_orders

    st = reply.state()
    write_new(p, order_text(st.data, "soviet", '\n[reply]\nlosses = ["R1"]\n'))
    p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p).data, reply.keys["soviet"], st), encoding="utf-8")
    reply.adjudicate(p)
    ref = Refereed(tmp_path_factory.mktemp("ref") / "game")
    ref.adjudicate([ref.orders("german", GERMAN_GT1)])
    return World(two, reply, ref)


def accepted(path: Path, text: str, original: Doc, answers: Doc | None, referee_key: str | None) -> Doc | None:
    """The document ``text`` (standing for ``path``) if every reader of its kind accepts it, else None."""
    try:
        data = parse_toml(text.encode("utf-8"), str(path))
        doc = parse_doc(data, path)
        if doc.kind == "state":
            from pbem.exchange.game import check_state_seal

            check_state_seal(doc, str(original.data["seal"]["signer"]))
        elif doc.kind == "view":
            from pbem.exchange.canonical import check_seal

            check_seal(doc.data, str(path), referee_key)
        else:
            assert answers is not None
            envelope(answers, doc)
    except PbemError:
        return None
    return doc


def files_of(world: World) -> list[tuple[Path, Doc | None, str | None]]:
    """(file, the state it answers or None, the referee's key or None) for every kind of file."""
    out: list[tuple[Path, Doc | None, str | None]] = []
    for g in (world.two, world.reply):
        states = {load_state(p).digest: load_state(p) for p in sorted(g.folder.glob("*.state.toml"))}
        for p in sorted(g.folder.glob("*.toml")):
            d = load_doc(p)
            out.append((p, states.get(str(d.data["pbem"].get("answers", ""))), None))
    ref_key = str(load_state(world.refereed.folder / "0000.state.toml").data["parties"]["referee"]["key"])
    for p in sorted(world.refereed.folder.glob("*.view.toml")):
        out.append((p, None, ref_key))
    return out


def test_the_world_has_every_kind_of_file(world: World) -> None:
    kinds = {load_doc(p).kind for p, _, _ in files_of(world)}
    assert kinds == {"state", "join", "orders", "reply", "view"}


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@PROPERTY
@given(data=st.data())
def test_every_toml_spelling_of_a_file_gives_the_same_digest(world: World, data: st.DataObject) -> None:
    """The same data written in any TOML spelling is accepted and is the same document."""
    path, answers, ref_key = data.draw(st.sampled_from(files_of(world)), label="file")
    original = load_doc(path)
    text = data.draw(toml_spellings(original.data), label="text")
    doc = accepted(path, text, original, answers, ref_key)
    assert doc is not None, text
    assert doc.digest == original.digest
    assert canonical(doc.data) == canonical(original.data)


@PROPERTY
@given(data=st.data())
def test_every_other_spelling_of_a_value_is_refused(world: World, data: st.DataObject) -> None:
    """One value spelled otherwise (case, white space, Unicode form, base64 padding, a prefix): the
    file is refused, or it would be another digest and so other dice."""
    path, answers, ref_key = data.draw(st.sampled_from(files_of(world)), label="file")
    original = load_doc(path)
    where, changed = data.draw(respelled_values(original.data), label="value")
    text = data.draw(toml_spellings(changed), label="text")
    doc = accepted(path, text, original, answers, ref_key)
    if doc is not None:
        assert doc.digest == original.digest, f"{path.name}: {where} accepted in another spelling"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_an_accepted_spelling_of_the_orders_gives_the_same_dice(world: World, data: st.DataObject) -> None:
    """The adjudicator adjudicating any accepted spelling of the sender's orders (or of the state
    they answer) gets the seed and the dice that were recorded."""
    g = world.two
    orders = g.folder / "0001-german.orders.toml"
    prev = load_state(g.folder / "0001.state.toml")
    recorded = read(g.folder / "0002.state.toml")["transition"]
    text = data.draw(toml_spellings(load_doc(orders).data), label="orders")
    state_text = data.draw(toml_spellings(prev.data), label="state")
    prev2 = parse_doc(parse_toml(state_text.encode("utf-8"), str(prev.path)), prev.path)
    doc = parse_doc(parse_toml(text.encode("utf-8"), str(orders)), orders)
    res = adjudicate(prev2, [doc], g.keys["soviet"])
    assert res.state["transition"] == recorded
    assert res.state["transition"]["seed"] == proto.transition_seed(prev.digest, recorded["reveals"]).hex()


# --- the reveal ledger ----------------------------------------------------------------------------

def test_an_unwritable_ledger_reveals_nothing(game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.exchange.keys import write_key_files

    monkeypatch.chdir(tmp_path)
    write_key_files(game.keys["german"], tmp_path / "german")
    (tmp_path / "not-a-folder").write_text("x", encoding="utf-8")
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "not-a-folder"))
    orders = game.write_orders(GERMAN_GT1, sign=False)
    before = orders.read_bytes()
    fails(tmp_path, 2, ["sign", orders, "--key", "german.key"], "the reveal ledger", "PBEM_HOME")
    assert orders.read_bytes() == before


def test_a_replayed_first_state_is_not_joined_again_once_played(game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The German joined and played a game; its first state, replayed byte for byte in a new folder,
    would reuse his chain there: `pbem join` refuses (exit 3), from the ledger."""
    from pbem.exchange.keys import write_key_files

    monkeypatch.chdir(tmp_path)
    write_key_files(game.keys["german"], tmp_path / "german")
    run(["sign", game.write_orders(GERMAN_GT1, sign=False), "--key", "german.key"])  # played: a secret revealed
    replay = tmp_path / "replay"
    replay.mkdir()
    shutil.copy(game.folder / "0000.state.toml", replay)
    r = run(["join", replay / "0000.state.toml", "--side", "german", "--key", "german.key"], 3)
    assert "you joined and played the game whose first state is" in r.output and "replay" in r.output
    assert not (replay / "0000-german.join.toml").exists()
