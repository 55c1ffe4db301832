"""Hidden values without a referee (docs/protocol.md): committed, boxed, claimed, opened and checked,
on a small test game (tests/exchange/hideout.py) with Proud Monster out of the registry."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.engine import registry
from pbem.errors import IllegalOrdersError, MalformedFileError, TamperError, VerificationError
from pbem.exchange import hidden as hv
from pbem.exchange.canonical import seal
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, read_toml, write_new
from pbem.exchange.game import load_doc, load_state, make_join, new_game, template_text
from pbem.exchange.keys import KeyPair
from tests.conftest import Game, joined_salt

from .hideout import Hideout


def first(move: int, scout: str, plan: int) -> str:
    """A turn-1 order file's body: a public move and the hidden scout and plan (H-1)."""
    return f'move = {move}\n\n[hidden]\nscout = "{scout}"\nplan = {plan}\n'


@pytest.fixture(autouse=True)
def hideout() -> Iterator[Hideout]:
    m = Hideout()
    registry.register(m)
    registry.unregister("proud-monster")
    yield m
    registry.restore()


def start(folder: Path) -> Game:
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"hideout {s}".encode()) for s in ("red", "blue")}
    state = new_game("hideout", "hideout", {s: k.public_text for s, k in keys.items()}, None, keys["red"], "ho-test", {})
    write_new(folder / "0000.state.toml", dumps(state))
    g = Game(folder, keys)
    st = g.state()
    joins = []
    for side in ("red", "blue"):
        p = folder / f"0000-{side}.join.toml"
        write_new(p, dumps(make_join(st, side, keys[side], None, salt=joined_salt(st, side, keys[side], "hideout"))))
        joins.append(p)
    g.adjudicate(*joins)
    return g


def play_to_contact(g: Game, red: str = first(3, "runner", 4), blue: str = first(1, "walker", 2),
                    more: tuple[str, ...] = ("move = 3\n", "move = 1\n")) -> None:
    """Turns until the scouts meet: red 0 -> 3 -> 6, blue 8 -> 7 -> 6 (blue moves last)."""
    for body in (red, blue, *more):
        g.play(body)


def strings(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield k
            yield from strings(v)
    elif isinstance(data, list):
        for v in data:
            yield from strings(v)
    elif isinstance(data, str):
        yield data


def test_an_honest_game_opens_every_value_when_the_rules_say_and_verifies(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    st = g.state()
    assert st.data["awaits"] == {"kind": "reply", "step": "contact/red", "from": ["red"], "adjudicator": "blue",
                                 "open": {"blue": ["bonus", "scout"], "red": ["bonus", "scout"]}}
    # H-5: the bonuses were drawn with the orders of turn 2, from the seeds of the steps that asked for them
    assert st.data["hidden"]["red"]["bonus"]["versions"][0]["draw"]["at"] == 3
    assert st.data["hidden"]["blue"]["bonus"]["versions"][0]["draw"]["at"] == 4
    # Until then no file of the folder holds a hidden value; the state holds commitments, boxes and claims.
    for p in sorted(g.folder.glob("*.toml")):
        found = {"runner", "walker"} & set(strings(read_toml(p)))
        assert not found, f"{p.name} shows {found}"
    red_scout = st.data["hidden"]["red"]["scout"]["versions"]
    assert [c["moved"] for c in red_scout[0]["claims"]] == [3, 3] and red_scout[0]["since"] == 2
    assert [c["at"] for c in red_scout[0]["claims"]] == [2, 4]
    assert set(st.data["hidden"]["blue"]) == {"scout", "plan", "bonus"}
    assert "`pbem sign` adds the openings" in template_text(st.data, "red")
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    assert load_doc(reply, "orders").data["open"]["scout"][0]["value"] == "runner"
    g.adjudicate(reply)
    st = g.state()
    assert st.data["opened"]["red"]["scout"] == {"values": ["runner"], "at": 6}
    assert st.data["opened"]["blue"]["scout"] == {"values": ["walker"], "at": 6}
    assert set(st.data["transition"]["openings"]["blue"]) == {"bonus", "scout"}  # the adjudicator opened its own
    assert all(st.data["opened"][side]["bonus"]["values"][0] in range(4) for side in ("red", "blue"))
    assert st.data["result"]["winner"] in ("red", "blue")
    # The game module ended the game; the plans are still hidden, so the last step opens them.
    assert st.data["awaits"] == {"kind": "reveal", "step": "reveal", "from": ["red"], "adjudicator": "blue",
                                 "open": {"blue": ["plan"], "red": ["plan"]}}
    report = (g.folder / "0006.report.md").read_text()
    assert "red opens its hidden item `scout`: \"runner\"" in report and "blue opens its hidden item `scout`: \"walker\"" in report
    last = g.write_orders("", side="red", name="0006-red.reveal.toml")
    assert load_doc(last, "orders").data["pbem"]["kind"] == "reveal"
    assert len(load_doc(last, "orders").data["dice"]["hidden_reveal"]) == 64  # red's hidden-dice secret, for its draw
    g.adjudicate(last)
    st = g.state()
    assert set(st.data["transition"]["hidden_reveals"]) == {"blue"}
    assert st.data["awaits"]["kind"] == "none" and "hidden" not in st.data
    assert st.data["opened"]["red"]["plan"]["values"] == [4] and st.data["opened"]["blue"]["plan"]["values"] == [2]
    assert "Every hidden item is open: the game is over." in (g.folder / "0007.report.md").read_text()
    res = verify([g.folder])
    assert res.states == 8


def test_a_scout_that_moved_farther_than_its_opened_type_allows_is_caught(tmp_path: Path) -> None:
    """Red commits a walker (1 a turn) and moves 3: nobody can see it until the type is opened; then
    blue's pbem refuses the opening as tampering (exit 3), naming the files that prove it."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(3, "walker", 4))
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    with pytest.raises(TamperError) as e:
        g.adjudicate(reply)
    msg = e.value.message
    assert "0005-red.reply.toml" in msg and "contradicts" in msg and "0002.state.toml" in msg and "0004.state.toml" in msg
    assert any("a walker moves at most 1" in p.message and p.rule == "H-3" for p in e.value.problems)
    assert not (g.folder / "0006.state.toml").exists()


def test_verify_catches_an_adjudicator_who_opened_its_own_illegal_move(tmp_path: Path, hideout: Hideout,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue moves its walker 3 and, adjudicating the contact, opens it with a pbem that does not
    check: red's `pbem verify` replays the step and exits 3, naming blue's state."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(1, "runner", 4), blue=first(3, "walker", 2), more=("move = 1\n", "move = 3\n"))
    assert g.state().data["awaits"]["adjudicator"] == "blue"
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    with monkeypatch.context() as m:
        m.setattr(Hideout, "check_opening", lambda *a: [])
        g.adjudicate(reply)
    with pytest.raises(TamperError) as e:
        verify([g.folder])
    assert "blue's hidden item 'scout'" in e.value.message and "contradicts" in e.value.message
    assert "0003.state.toml" in e.value.message
    result = CliRunner().invoke(cli, ["verify", str(g.folder)])
    assert result.exit_code == 3, result.output


def test_an_opening_that_does_not_match_its_commitment_is_tampering(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    data = load_doc(reply, "orders").data
    body = {k: v for k, v in data.items() if k != "seal"}
    body["open"]["scout"][0]["value"] = "walker"  # red claims another type than it committed to
    reply.unlink()
    write_new(reply, dumps(seal(body, "red", g.keys["red"])))
    with pytest.raises(TamperError, match="does not match its commitment in 0002.state.toml"):
        g.adjudicate(reply)


def test_verify_catches_an_adjudicator_whose_own_opening_does_not_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    real = hv.openings_for

    def lying(state: Any, side: str, key: KeyPair, origin: str, salt: str) -> dict[str, Any]:
        out = real(state, side, key, origin, salt)
        out["scout"][0]["value"] = "runner"  # blue committed a walker
        return out

    with monkeypatch.context() as m:
        m.setattr("pbem.exchange.game.openings_for", lying)
        m.setattr("pbem.exchange.hidden.opening_matches", lambda *a: True)
        g.adjudicate(reply)
    assert g.state().data["opened"]["blue"]["scout"]["values"] == ["runner"]
    with pytest.raises(TamperError, match="blue's hidden item 'scout' \\(version 0\\) does not match its commitment"):
        verify([g.folder])
    assert CliRunner().invoke(cli, ["verify", str(g.folder)]).exit_code == 3


def test_a_commitment_tells_the_opponent_nothing_and_only_its_owner_opens_the_box(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    g.play(first(1, "runner", 4))
    st = g.state()
    origin = load_state(g.folder / "0000.state.toml").digest
    salt = str(st.data["parties"]["red"]["salt"])
    entry = st.data["hidden"]["red"]["scout"]["versions"][0]
    # The salt needs red's key: blue's key makes another, and nothing public makes the commitment.
    assert hv.item_salt(g.keys["red"], origin, salt, "scout", 0, "runner") != hv.item_salt(g.keys["blue"], origin, salt, "scout", 0, "runner")
    public_guesses = [salt, "0" * 32, str(st.data["parties"]["blue"]["salt"])]
    for value in ("runner", "walker"):
        for guess in public_guesses:
            assert hv.commitment(origin, "red", "scout", 0, guess, value) != entry["commit"]
    assert hv.open_box(g.keys["red"], entry["commit"], entry["box"]) == "runner"
    with pytest.raises(ValueError):
        hv.open_box(g.keys["blue"], entry["commit"], entry["box"])
    # Equal values of two items have unrelated commitments.
    same = [hv.seal_value(g.keys["red"], origin, salt, "red", item, 0, 1)["commit"] for item in ("a", "b")]
    assert same[0] != same[1]


def test_openings_are_exactly_what_the_step_asks(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    g.play(first(1, "runner", 4))
    p = g.folder / "0002-blue.orders.toml"
    g.write_orders(first(1, "walker", 2), side="blue", sign=False)
    text = p.read_text() + '\n[[open.scout]]\nvalue = "walker"\nsalt = "' + "0" * 32 + '"\n'
    p.unlink()
    write_new(p, text)
    with pytest.raises(IllegalOrdersError, match="asks blue to open nothing"):
        from pbem.exchange.game import sign_orders
        sign_orders(p, text, load_doc(p, "orders").data, g.keys["blue"], g.state())
    # Sealed by hand, an opening nobody asked for is refused before any rule.
    body = load_doc(p, "orders").data
    body["hidden"] = {k: hv.seal_value(g.keys["blue"], load_state(g.folder / "0000.state.toml").digest,
                                       str(g.state().data["parties"]["blue"]["salt"]), "blue", k, 0, v)
                      for k, v in body["hidden"].items()}
    from pbem.exchange import dice as proto
    from pbem.exchange.game import origin_of
    st = g.state()
    origin, salt = origin_of(st), str(st.data["parties"]["blue"]["salt"])
    idx = int(st.data["parties"]["blue"]["index"])
    body["dice"] = {"reveal": proto.secret(g.keys["blue"], origin, salt, idx),
                    "commit": proto.commitment(proto.secret(g.keys["blue"], origin, salt, idx + 1))}
    body["dice"]["attest"] = proto.attest(g.keys["blue"], body["pbem"], body["dice"])
    p.unlink()
    write_new(p, dumps(seal(body, "blue", g.keys["blue"])))
    with pytest.raises(IllegalOrdersError, match="the step asks blue to open nothing"):
        g.adjudicate(p)


def _hand_sealed(g: Game, side: str, body_text: str, edit: Any) -> Path:
    """An order file signed as `pbem sign` would, then changed by ``edit`` and sealed again by its sender."""
    p = g.write_orders(body_text, side=side)
    data = {k: v for k, v in load_doc(p, "orders").data.items() if k != "seal"}
    edit(data)
    p.unlink()
    write_new(p, dumps(seal(data, side, g.keys[side])))
    return p


def test_a_signed_file_never_carries_a_hidden_value_in_the_clear(tmp_path: Path) -> None:
    g = start(tmp_path / "g")

    def clear(d: dict[str, Any]) -> None:
        d["hidden"]["scout"] = "runner"

    p = _hand_sealed(g, "red", first(1, "runner", 4), clear)
    with pytest.raises(MalformedFileError, match="never the value"):
        g.adjudicate(p)


def _respelled(box: str) -> str:
    """The same bytes in another base64 spelling (non-zero padding bits), when there is one."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    pad = len(box) - len(box.rstrip("="))
    i = len(box) - pad - 1
    raw = base64.b64decode(box)
    for c in alphabet:
        other = box[:i] + c + box[i + 1:]
        if other != box and base64.b64decode(other) == raw:
            return other
    raise AssertionError("no other spelling")


def test_a_box_has_one_spelling(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    sealed = g.write_orders(first(1, "runner", 4), side="red", name="probe.toml")
    box = load_doc(sealed, "orders").data["hidden"]["plan"]["box"]
    sealed.unlink()
    assert box.endswith("=")  # 16 bytes of tag and one of the value: padded
    other = _respelled(box)
    assert hv.is_box(box) and not hv.is_box(other) and not hv.is_box(box + "\n")
    p = _hand_sealed(g, "red", first(1, "runner", 4), lambda d: d["hidden"]["plan"].update(box=other))
    with pytest.raises(MalformedFileError, match="never the value"):
        g.adjudicate(p)


def test_an_opening_salt_has_one_spelling(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    reply = g.write_orders("", side="red", name="0005-red.reply.toml")
    data = {k: v for k, v in load_doc(reply, "orders").data.items() if k != "seal"}
    data["open"]["scout"][0]["salt"] = data["open"]["scout"][0]["salt"].upper()
    reply.unlink()
    write_new(reply, dumps(seal(data, "red", g.keys["red"])))
    with pytest.raises((TamperError, MalformedFileError)):
        g.adjudicate(reply)


def test_a_game_module_may_only_add_claims(tmp_path: Path) -> None:
    before = {"hidden": {"red": {"scout": {"versions": [{"commit": "sha256:" + "1" * 64, "box": "AAAA", "since": 2, "claims": []}]}}}}
    game = {"awaits": {"kind": "orders", "step": "s", "from": ["red"], "adjudicator": "blue"},
            "hidden": {"red": {"scout": {"versions": [{"commit": "sha256:" + "2" * 64, "box": "AAAA", "since": 2, "claims": []}]}}}}
    with pytest.raises(VerificationError, match="may only add claims"):
        hv.after_step(before, game)
    game["hidden"] = {"red": {"scout": {"versions": [{"commit": "sha256:" + "1" * 64, "box": "AAAA", "since": 2,
                                                       "claims": [{"moved": 1, "at": 3}]}]}}}
    assert hv.after_step(before, game)["hidden"] == game["hidden"]
    dropped = {"awaits": game["awaits"], "hidden": {}}
    with pytest.raises(VerificationError):
        hv.after_step(before, dropped)


def test_the_owner_recovers_every_value_from_the_state_and_its_key(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    play_to_contact(g)
    st = g.state()
    origin = load_state(g.folder / "0000.state.toml").digest
    got = hv.openings_for(st.data, "blue", g.keys["blue"], origin, str(st.data["parties"]["blue"]["salt"]))
    assert [o["value"] for o in got["scout"]] == ["walker"]
    with pytest.raises(ValueError):
        hv.openings_for(st.data, "blue", g.keys["red"], origin, str(st.data["parties"]["blue"]["salt"]))


def test_the_commands_play_the_hidden_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """template, check, sign and adjudicate as a player meets them: the draft shows the value, the
    signed file does not, the opening step's template says what `pbem sign` adds, and the last
    step is one command each."""
    from pbem.exchange.keys import write_key_files
    from tests.clihelpers import run

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = start(tmp_path / "g")
    keyfile = {s: write_key_files(k, tmp_path / s)[0] for s, k in g.keys.items()}

    def turn(side: str, extra: str, seq: int, kind: str = "orders") -> Path:
        p = g.folder / f"{seq:04d}-{side}.{kind}.toml"
        run(["template", g.state_path, "--side", side, "-o", p])
        text = p.read_text()
        if extra:
            text = text.replace("move = 0\n", extra)
        p.write_text(text)
        run(["check", g.state_path, p])
        run(["sign", p, "--key", keyfile[side]])
        adj = g.state().data["awaits"]["adjudicator"]
        run(["adjudicate", g.state_path, p, "--key", keyfile[adj]])
        return p

    p = turn("red", "move = 3\n", 1)
    assert "scout" in p.read_text() and "runner" not in p.read_text()  # the template's example value, sealed
    turn("blue", "move = 1\n", 2)
    turn("red", "move = 3\n", 3)
    turn("blue", "move = 1\n", 4)
    reply = g.folder / "0005-red.reply.toml"
    out = run(["template", g.state_path, "--side", "red"]).output
    assert "asks you to open your hidden item(s) bonus, scout" in out
    turn("red", "", 5, "reply")
    assert load_doc(reply, "orders").data["open"]["scout"][0]["value"] == "runner"
    turn("red", "", 6, "reveal")
    assert g.state().data["awaits"]["kind"] == "none"
    assert "ok" in run(["verify", g.folder]).output


def test_a_step_whose_adjudicator_also_sends_a_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game module that awaits a file from the party that adjudicates the step is wrong (that
    party would reveal one dice secret twice): the step is not written."""
    g = start(tmp_path / "g")
    real = Hideout.resolve

    def wrong(self: Hideout, state: dict[str, Any], subs: list[Any], dice: Any) -> Any:
        t = real(self, state, subs, dice)
        t.state["awaits"] = {**t.state["awaits"], "from": ["red"], "adjudicator": "red"}
        return t

    monkeypatch.setattr(Hideout, "resolve", wrong)
    p = g.write_orders(first(1, "runner", 4), side="red")
    with pytest.raises(VerificationError, match="both send a file"):
        g.adjudicate(p)
    assert not (g.folder / "0002.state.toml").exists()


def test_check_opening_sees_the_items_opened_before_it_in_the_same_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule about several items (no more blocks of a kind than a side has) needs every item
    opened so far: the game module's check of each item sees those opened before it, the step's
    own included (the file's items, then the adjudicator's)."""
    g = start(tmp_path / "g")
    play_to_contact(g)
    seen: list[tuple[str, str, list[str]]] = []

    def record(self: Hideout, state: dict[str, Any], owner: str, item: str, values: list[Any], versions: list[dict[str, Any]]) -> list[Any]:
        seen.append((owner, item, sorted(f"{s}.{i}" for s, items in state.get("opened", {}).items() for i in items)))
        return []

    monkeypatch.setattr(Hideout, "check_opening", record)
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert seen == [("red", "bonus", []), ("red", "scout", ["red.bonus"]),
                    ("blue", "bonus", ["red.bonus", "red.scout"]), ("blue", "scout", ["blue.bonus", "red.bonus", "red.scout"])]
    assert "opened" not in load_state(g.folder / "0005.state.toml").data, "the state before the step opens nothing"


# --- hidden draws (H-5: a bonus from a cup) -------------------------------------------------------

def _red_drawn(g: Game) -> Any:
    """The bonus red's pbem draws for the state that asks for it (red's key, its hidden-dice secret)."""
    from pbem.exchange import dice as proto

    st = g.state()
    origin = load_state(g.folder / "0000.state.toml").digest
    secret = proto.hidden_dice_secret(g.keys["red"], origin, str(st.data["parties"]["red"]["salt"]))
    return hv.drawn_value(Hideout(), secret, "red", st.data["draws"]["red"][0])


def test_a_drawn_value_is_made_by_pbem_sign_and_cannot_be_chosen(tmp_path: Path) -> None:
    g = start(tmp_path / "g")
    g.play(first(1, "runner", 4))
    g.play(first(1, "walker", 2))
    st = g.state()
    assert st.data["draws"] == {"red": [{"item": "bonus", "request": {"cup": 4}, "seed": st.data["transition"]["seed"], "at": 3}]}
    # A draft that names the drawn item is refused: the value is drawn, not chosen.
    with pytest.raises(IllegalOrdersError, match="drawn, not chosen"):
        g.write_orders('move = 1\n\n[hidden]\nbonus = 3\n', side="red")
    (g.folder / "0003-red.orders.toml").unlink()
    # A file that leaves the draw out (sealed by hand) is refused.
    p = _hand_sealed(g, "red", "move = 1\n", lambda d: d["hidden"].pop("bonus"))
    with pytest.raises(IllegalOrdersError, match="asked red to draw bonus"):
        g.adjudicate(p)
    p.unlink()
    value = _red_drawn(g)
    g.adjudicate(g.write_orders("move = 1\n", side="red"))
    entry = g.state().data["hidden"]["red"]["bonus"]["versions"][0]
    assert hv.open_box(g.keys["red"], entry["commit"], entry["box"]) == value
    assert list(g.state().data["draws"]) == ["blue"]  # red's draw is made; blue's is asked of its next file


def test_a_bonus_chosen_instead_of_drawn_is_caught_at_the_last_step(tmp_path: Path) -> None:
    """Red seals by hand the best bonus in place of its draw: nobody can tell until the last step,
    which reveals red's hidden-dice secret; the draw is made again and red's commitment convicted."""
    g = start(tmp_path / "g")
    g.play(first(3, "runner", 4))
    g.play(first(1, "walker", 2))
    origin = load_state(g.folder / "0000.state.toml").digest
    salt = str(g.state().data["parties"]["red"]["salt"])
    chosen = 3 if _red_drawn(g) != 3 else 2
    entry = hv.seal_value(g.keys["red"], origin, salt, "red", "bonus", 0, chosen)
    g.adjudicate(_hand_sealed(g, "red", "move = 3\n", lambda d: d.setdefault("hidden", {}).update(bonus=entry)))
    g.play("move = 1\n")  # contact
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    assert g.state().data["opened"]["red"]["bonus"]["values"] == [chosen]  # matches its commitment: fine so far
    last = g.write_orders("", side="red", name="0006-red.reveal.toml")
    with pytest.raises(TamperError, match=f"red drew {_drawn_again(g)} for its hidden item 'bonus' \\(asked in 0003.state.toml\\), and committed {chosen}"):
        g.adjudicate(last)
    assert not (g.folder / "0007.state.toml").exists()


def _drawn_again(g: Game) -> Any:
    from pbem.exchange import dice as proto

    st = g.state()
    origin = load_state(g.folder / "0000.state.toml").digest
    secret = proto.hidden_dice_secret(g.keys["red"], origin, str(st.data["parties"]["red"]["salt"]))
    return hv.drawn_value(Hideout(), secret, "red", {**st.data["opened"]["red"]["bonus"]["draws"][0], "item": "bonus"})


def test_verify_catches_an_adjudicator_whose_hidden_dice_secret_is_false(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blue, adjudicating the last step, reveals another hidden-dice secret (one that would excuse a
    chosen bonus): red's verify finds it does not make blue's join commitment."""
    g = start(tmp_path / "g")
    play_to_contact(g, red=first(1, "runner", 4), blue=first(3, "runner", 2), more=("move = 1\n", "move = 3\n"))
    g.adjudicate(g.write_orders("", side="red", name="0005-red.reply.toml"))
    last = g.write_orders("", side="red", name="0006-red.reveal.toml")
    with monkeypatch.context() as m:
        m.setattr("pbem.exchange.game.proto.hidden_dice_secret", lambda *a: "ab" * 32)
        m.setattr("pbem.exchange.hidden.check_draws", lambda *a: None)
        g.adjudicate(last)
    assert g.state().data["transition"]["hidden_reveals"] == {"blue": "ab" * 32}
    with pytest.raises(TamperError, match="blue's hidden-dice secret does not match the commitment of its join"):
        verify([g.folder])
