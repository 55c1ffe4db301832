"""Attacks on the dice protocol and the signed files (docs/protocol.md: Threat model), one test per
attack, grouped by attacker: the sender of orders, the adjudicator, the referee, the game's creator
and a third party who carries the mail.

A test that passes shows pbem refusing the attack the right way: exit 3 where a seal, the chain or
a commitment is concerned, 2 for a malformed file, 1 for a state that does not follow. A test
marked xfail shows an attack that succeeds; its reason says what is wrong.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem.cli import cli
from pbem.demo import order_text
from pbem.engine.model import Submission
from pbem.errors import TamperError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import canonical, content_digest, digest, seal, unsealed
from pbem.exchange.files import dumps, read_toml
from pbem.exchange.game import Doc, load_doc, load_state, next_state, sign_orders, state_zero
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.exchange.ledger import record_reveal
from pbem.exchange.views import make_views, view_body
from pbem.mechanics.dice import face_from_seed
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, SOVIET_STANDING, Game, start_game
from tests.exchange.test_mail import message, save
from tests.exchange.test_referee import Refereed

ATTACK_DIE = "14.31|GT1/1/german|attack 1|4916N|CRT"  # the die of GERMAN_GT1's attack
START = ["0000.state.toml", "0000-german.join.toml", "0000-soviet.join.toml"]  # a game folder's first files

# --- helpers -----------------------------------------------------------------------------------


def pbem(*args: Any) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def refused(code: int, *args: Any, says: tuple[str, ...] = ()) -> Result:
    """Run a pbem command that must fail with exit ``code``, cleanly, saying every word of ``says``."""
    r = pbem(*args)
    assert r.exit_code == code, f"pbem {' '.join(map(str, args))}: exit {r.exit_code}, expected {code}\n{r.output}"
    assert "internal error" not in r.output and "Traceback" not in r.output, r.output
    for word in says:
        assert word in r.output, f"{word!r} not in:\n{r.output}"
    return r


def accepted(*args: Any) -> Result:
    r = pbem(*args)
    assert r.exit_code == 0, r.output
    return r


def keys_to_files(keys: dict[str, KeyPair], root: Path) -> None:
    for side, k in keys.items():
        write_key_files(k, root / side)


def key(root: Path, side: str) -> Path:
    return root / f"{side}.key"


def write(p: Path, data: dict[str, Any]) -> None:
    p.write_text(dumps(data), encoding="utf-8")


def resealed(data: dict[str, Any], signer: str, k: KeyPair) -> dict[str, Any]:
    return seal(unsealed(data), signer, k)


def _full_width_digit(digest_text: str) -> str:
    """The digest with its first decimal digit written in full width (U+FF10..U+FF19)."""
    i = next(i for i, c in enumerate(digest_text) if i >= 7 and c.isdigit())
    return digest_text[:i] + chr(0xFF10 + int(digest_text[i])) + digest_text[i + 1:]


def rewrite(p: Path, change: Callable[[dict[str, Any]], Any], signer: str, k: KeyPair, attest: bool = True) -> dict[str, Any]:
    """Change a file and seal it again as ``signer``: what its author (or a key holder) can do. An
    order, join or reply file's dice are attested again with the same key (unless ``attest`` is
    false), as its author can."""
    data = read_toml(p)
    change(data)
    if attest and data.get("pbem", {}).get("kind") in ("orders", "join", "reply") and isinstance(data.get("dice"), dict):
        data["dice"]["attest"] = proto.attest(k, data["pbem"], data["dice"])
    new = resealed(data, signer, k)
    write(p, new)
    return new


def copy_folder(src: Path, dest: Path, names: list[str] | None = None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for p in sorted(src.iterdir()):
        if p.is_file() and (names is None or p.name in names):
            shutil.copy(p, dest / p.name)
    return dest


def orders_for(state: dict[str, Any], folder: Path, side: str, body: str, k: KeyPair, name: str | None = None) -> Path:
    """An order file answering ``state``, sealed by ``k`` with pbem sign's dice."""
    p = folder / (name or f"{int(state['pbem']['sequence']):04d}-{side}.orders.toml")
    p.write_text(order_text(state, side, body), encoding="utf-8")
    p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p).data, k, Doc(p, state)), encoding="utf-8")
    return p


def submission(doc: Doc) -> Submission:
    h = doc.data["pbem"]
    return Submission(h["kind"], h["side"], doc.data, doc.digest)


def grind(target: Callable[[bytes], bool], seed_of: Callable[[int], bytes], tries: int = 400) -> int:
    """The first ``i`` whose seed satisfies ``target``: what an attacker who can vary the seed does."""
    for i in range(tries):
        if target(seed_of(i)):
            return i
    raise AssertionError("no seed found")


def fake_digest(i: int) -> str:
    return "sha256:" + hashlib.sha256(f"made up {i}".encode()).hexdigest()


# Ed25519 arithmetic, enough to make other valid signatures of one message (any nonce verifies)
# and weak public keys.
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _x_of(y: int, sign: int) -> int:
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = pow(u * pow(v, P - 2, P), (P + 3) // 8, P)
    if (x * x - u * pow(v, P - 2, P)) % P:
        x = x * SQRT_M1 % P
    return P - x if x & 1 != sign else x


BASE = (_x_of(4 * pow(5, P - 2, P) % P, 0), 4 * pow(5, P - 2, P) % P)
IDENTITY = (0, 1)


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def _mul(n: int, pt: tuple[int, int]) -> tuple[int, int]:
    out = IDENTITY
    while n:
        if n & 1:
            out = _add(out, pt)
        pt, n = _add(pt, pt), n >> 1
    return out


def _encode(pt: tuple[int, int]) -> bytes:
    return (pt[1] | (pt[0] & 1) << 255).to_bytes(32, "little")


def other_signature(k: KeyPair, message: bytes, nonce: int) -> bytes:
    """A valid Ed25519 signature of ``message`` by ``k`` made with another nonce than RFC 8032's."""
    from cryptography.hazmat.primitives import serialization

    raw = k.private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    h = hashlib.sha512(raw).digest()
    a = int.from_bytes(h[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    public = _encode(_mul(a, BASE))
    r = nonce % L
    big_r = _encode(_mul(r, BASE))
    kk = int.from_bytes(hashlib.sha512(big_r + public + message).digest(), "little") % L
    return big_r + ((r + kk * a) % L).to_bytes(32, "little")


def with_signature(data: dict[str, Any], signature: bytes) -> dict[str, Any]:
    out = dict(data)
    out["seal"] = {**data["seal"], "signature": base64.b64encode(signature).decode("ascii")}
    return out


def key_text(raw: bytes) -> str:
    return "ed25519:" + base64.b64encode(raw).decode("ascii")


# --- fixtures ----------------------------------------------------------------------------------


@pytest.fixture
def duel(tmp_path: Path) -> Game:
    """A two-player game, joined, awaiting the German's GT1 orders (adjudicated by the Soviet); the
    keys also in files ``tmp_path/SIDE.key``."""
    g = start_game(tmp_path / "game")
    keys_to_files(g.keys, tmp_path)
    return g


@pytest.fixture
def fought(duel: Game) -> Game:
    """``duel`` after the German's GT1 attack: state 0002, sealed by the Soviet, has rolled a die and
    awaits the Soviet's orders, which the German adjudicates."""
    duel.play(GERMAN_GT1)
    return duel


@pytest.fixture
def refereed(tmp_path: Path) -> Refereed:
    """A refereed game after the German's GT1 attack and an empty Soviet turn: views 0001-0003 for
    each side; the keys in files ``tmp_path/PARTY.key``."""
    g = Refereed(tmp_path / "ref")
    g.adjudicate([g.orders("german", GERMAN_GT1)])
    g.adjudicate([g.orders("soviet", "")])
    keys_to_files(g.keys, tmp_path)
    return g


PLAYER_START = ("0000.state.toml", "0000-soviet.join.toml")  # what a player's folder of views holds besides them


def soviet_views(g: Refereed, dest: Path, *extra: str) -> Path:
    """The Soviet player's folder: his views (and the ``extra`` files of the referee's folder, e.g.
    ``PLAYER_START``: the game's first state, which he joined, and his join)."""
    dest.mkdir()
    for p in sorted(g.folder.glob("*-soviet.view.toml")):
        shutil.copy(p, dest / p.name)
    for name in extra:
        shutil.copy(g.folder / name, dest / name)
    return dest


def reseal_view(p: Path, change: Callable[[dict[str, Any]], Any], g: Refereed) -> dict[str, Any]:
    return rewrite(p, change, "referee", g.keys["referee"])


# ===============================================================================================
# The sender of orders
# ===============================================================================================


def test_sender_toml_spellings_of_his_file_give_the_same_digest_and_the_same_dice(fought: Game, tmp_path: Path) -> None:
    """The sender (or anyone) re-spells a sealed order file: inline tables, quoted keys with escapes,
    literal strings, hex integers and -0, CRLF, comments. The seal still holds and the digest,
    the seed and every die stay the same: no spelling of the file reaches a die."""
    orders = fought.folder / "0001-german.orders.toml"
    data = read_toml(orders)

    def escaped(text: str) -> str:  # a basic string with every character as a unicode escape
        return '"' + "".join("\\u" + format(ord(c), "04X") for c in text) + '"'

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return "-0" if v == 0 else hex(v) if v > 0 else str(v)
        if isinstance(v, str):
            return "'" + v + "'" if "'" not in v else escaped(v)
        if isinstance(v, list):
            return "[ " + ", ".join(value(x) for x in v) + " ]"
        return "{ " + ", ".join(escaped(k) + " = " + value(x) for k, x in sorted(v.items(), reverse=True)) + " }"

    text = "# re-spelled\r\n" + "".join(f"{k} = {value(v)}   # {k}\r\n" for k, v in sorted(data.items(), reverse=True))
    other = tmp_path / "respelled.orders.toml"
    other.write_bytes(text.encode("utf-8"))
    assert other.read_bytes() != orders.read_bytes()
    assert load_doc(other).digest == load_doc(orders).digest
    replay = copy_folder(fought.folder, tmp_path / "replay", [*START, "0001.state.toml"])
    accepted("adjudicate", replay / "0001.state.toml", other, "--key", key(tmp_path, "soviet"))
    assert (replay / "0002.state.toml").read_bytes() == (fought.folder / "0002.state.toml").read_bytes()


def test_sender_reseals_his_orders_with_another_nonce_which_gives_the_same_dice(duel: Game, tmp_path: Path) -> None:
    """The sender signs one content twice (Ed25519 accepts any nonce), hoping for two seeds: the seed
    takes the signed content, so both files give the same dice; they are not an equivocation."""
    p = duel.write_orders(GERMAN_GT1)
    data = read_toml(p)
    sig = other_signature(duel.keys["german"], canonical(unsealed(data)), nonce=12345)
    twin = tmp_path / "twin.orders.toml"
    write(twin, with_signature(data, sig))
    assert load_doc(twin).digest != load_doc(p).digest and content_digest(read_toml(twin)) == content_digest(data)
    copy = copy_folder(duel.folder, tmp_path / "copy", [*START, "0001.state.toml"])
    accepted("adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"))
    accepted("adjudicate", copy / "0001.state.toml", twin, "--key", key(tmp_path, "soviet"))
    a, b = read_toml(duel.folder / "0002.state.toml"), read_toml(copy / "0002.state.toml")
    assert a["transition"] == b["transition"]
    shutil.copy(twin, duel.folder / "0001-german-twin.orders.toml")
    accepted("verify", duel.folder, "--quiet")


def test_sender_signs_two_versions_of_his_orders_and_verify_shows_the_equivocation(duel: Game, tmp_path: Path) -> None:
    """The sender signs two different order files for one step, leaving the adjudicator a choice of
    dice: verify stops with exit 3 and names both files."""
    first = duel.write_orders(GERMAN_GT1)
    second = duel.write_orders(GERMAN_GT1.replace('advance = ["Pz1"]', "advance = []"), name="0001-german-2.orders.toml")
    accepted("adjudicate", duel.folder / "0001.state.toml", second, "--key", key(tmp_path, "soviet"))
    refused(3, "verify", duel.folder, "--quiet", says=("equivocation", first.name, second.name))
    refused(3, "verify", first, second, "--quiet", says=("equivocation",))  # the two files alone are the proof


def test_sender_reveals_a_later_secret_of_his_chain(duel: Game, tmp_path: Path) -> None:
    """The sender skips ahead in his chain (dice_index + 1 and that secret), to use a secret he
    likes better: exit 3, the index and the commitment are the state's."""
    p = duel.write_orders(GERMAN_GT1)

    def skip(d: dict[str, Any]) -> None:
        d["pbem"]["dice_index"] = 1
        d["dice"] = {"reveal": duel.secret("german", 1), "commit": proto.commitment(duel.secret("german", 2))}

    rewrite(p, skip, "german", duel.keys["german"])
    refused(3, "adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"), says=("dice_index 1",))
    rewrite(p, lambda d: d["pbem"].__setitem__("dice_index", 0), "german", duel.keys["german"])
    refused(3, "adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"),
            says=("reveal does not match",))


def test_sender_reveals_the_secret_of_another_game(duel: Game, tmp_path: Path) -> None:
    """The sender reveals secret 0 of his chain in another game (same key, other first state): exit 3."""
    other = start_game(tmp_path / "other", game_id="pm-other")
    p = duel.write_orders(GERMAN_GT1)
    rewrite(p, lambda d: d["dice"].__setitem__("reveal", other.secret("german", 0)), "german", duel.keys["german"])
    refused(3, "adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"),
            says=("reveal does not match",))


ONE_SPELLING = "not in their one spelling"


@pytest.mark.parametrize(
    ("what", "change", "code", "says"),
    [
        ("an upper-case reveal", lambda d: d["dice"].__setitem__("reveal", d["dice"]["reveal"].upper()), 3, ONE_SPELLING),
        ("an upper-case commitment", lambda d: d["dice"].__setitem__("commit", "sha256:" + d["dice"]["commit"][7:].upper()), 3,
         ONE_SPELLING),
        ("a short reveal", lambda d: d["dice"].__setitem__("reveal", d["dice"]["reveal"][:63]), 3, ONE_SPELLING),
        ("a salt in orders", lambda d: d["dice"].__setitem__("salt", "0" * 32), 2, "salt belongs in a join"),
        ("a float dice_index", lambda d: d["pbem"].__setitem__("dice_index", 0.0), 2, "floating-point"),
        ("a boolean dice_index", lambda d: d["pbem"].__setitem__("dice_index", False), 2, "not of type 'integer'"),
        ("an integer beyond 64 bits", lambda d: d["pbem"].__setitem__("dice_index", 2**64), 2, "64-bit"),
        ("an NFD unit id", lambda d: d["attack"][0].__setitem__("losses", ["Inf1", "Ine\u0301"]), 2, "NFC"),
        ("a zero-width space", lambda d: d["attack"][0].__setitem__("units", ["Pz1\u200b", "Inf1"]), 2, "U+200B"),
        ("a bidi override", lambda d: d["attack"][0].__setitem__("target", "\u202e4916N"), 2, "U+202E"),
        ("a control character", lambda d: d["attack"][0].__setitem__("target", "4916N\n"), 2, "control character"),
        ("a homoglyph side", lambda d: d["pbem"].__setitem__("side", "g\u0435rman"), 2, "does not match"),
        ("an answers digest in upper case", lambda d: d["pbem"].__setitem__("answers", "sha256:" + d["pbem"]["answers"][7:].upper()), 3,
         ONE_SPELLING),
        ("full-width digits in the answers digest", lambda d: d["pbem"].__setitem__("answers", _full_width_digit(d["pbem"]["answers"])),
         3, ONE_SPELLING),
    ],
)
def test_sender_signs_a_value_in_another_spelling(duel: Game, tmp_path: Path, what: str, change: Any, code: int, says: str) -> None:
    """The sender signs (and attests) his file with one value spelled another way (docs/protocol.md:
    one spelling), to get another digest for the same meaning: a dice or chain field is tampering
    (exit 3), any other value makes a malformed file (exit 2)."""
    p = duel.write_orders(GERMAN_GT1)
    rewrite(p, change, "german", duel.keys["german"])
    refused(code, "adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"), says=(says,))


def test_sender_replays_his_orders_against_a_later_state(fought: Game, tmp_path: Path) -> None:
    """The sender sends orders that answered an earlier state again: exit 3, they answer another state."""
    fought.play(SOVIET_STANDING)
    old = fought.folder / "0001-german.orders.toml"
    refused(3, "adjudicate", fought.folder / "0003.state.toml", old, "--key", key(tmp_path, "soviet"), says=("answers state",))


def test_sender_answers_another_step(duel: Game, tmp_path: Path) -> None:
    """The sender signs his orders for another step than the awaited one (a later one, whose dice he
    would rather have): exit 1, not the awaited submission."""
    p = duel.write_orders(GERMAN_GT1)
    rewrite(p, lambda d: d["pbem"].__setitem__("step", "GT1/2/german"), "german", duel.keys["german"])
    refused(1, "adjudicate", duel.folder / "0001.state.toml", p, "--key", key(tmp_path, "soviet"), says=("not the awaited step",))


def test_sender_sends_an_order_file_near_the_schemas_limits(duel: Game, tmp_path: Path) -> None:
    """The sender sends 100 moves of 200 unit ids over 100 hexes each (a few hundred kB), hoping to stall
    the adjudicator: every problem is reported, exit 1 (no hang: a few seconds at the limits)."""
    move = '\n[[move]]\nunits = [' + ", ".join(['"Inf2"'] * 200) + ']\npath = [' + ", ".join(['"4716N"', '"4715N"'] * 50) + "]\n"
    p = duel.write_orders(move * 100)
    r = refused(1, "check", duel.folder / "0001.state.toml", p, says=("100 problems",))
    assert "move[99]" in r.output

@pytest.mark.parametrize(
    ("what", "change", "says"),
    [
        ("a reveal", lambda d: d["dice"].__setitem__("reveal", "0" * 64), "no reveal"),
        ("dice_index 1", lambda d: d["pbem"].__setitem__("dice_index", 1), "dice_index 0"),
        ("no salt", lambda d: d["dice"].pop("salt"), "dice.salt"),
    ],
)
def test_joiner_joins_with_a_join_that_is_not_one(tmp_path: Path, what: str, change: Any, says: str) -> None:
    """A party joins with a join carrying a reveal, another index, or no salt (to start his chain
    elsewhere than at its secret 0): a malformed join, exit 2."""
    a = start_game(tmp_path / "a")
    keys_to_files(a.keys, tmp_path)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml", "0000-soviet.join.toml", "0000-german.join.toml"])
    rewrite(b / "0000-soviet.join.toml", change, "soviet", a.keys["soviet"])
    refused(2, "adjudicate", b / "0000.state.toml", b / "0000-german.join.toml", b / "0000-soviet.join.toml",
            "--key", key(tmp_path, "german"), says=(says,))


def test_sender_spells_a_hex_with_full_width_digits(duel: Game, tmp_path: Path) -> None:
    """The sender writes the target hex as '４９１６N' (full-width digits, NFC and no control character),
    the same attack in another spelling: hex ids are ASCII digits only, so it is no hex, exit 1."""
    p = duel.write_orders(GERMAN_GT1.replace('"4916N"', '"\uff14\uff19\uff11\uff16N"'))
    refused(1, "check", duel.folder / "0001.state.toml", p, says=("target '\uff14\uff19\uff11\uff16N' is not a hex of the map",))


def _attested_elsewhere(g: Game, p: Path, tmp_path: Path, source: str) -> str | None:
    """The ``dice.attest`` the sender puts into his orders ``p`` (answering state 0003): his signature
    of the dice of his GT1 orders, none, the opponent's signature of these dice, or his signature of
    these very dice for the same step in another game with the same keys."""
    d = read_toml(p)
    if source == "his attestation of another step":
        return str(read_toml(g.folder / "0001-german.orders.toml")["dice"]["attest"])
    if source == "the opponent's signature":
        return proto.attest(g.keys["soviet"], d["pbem"], d["dice"])
    if source == "another game's":
        other = start_game(tmp_path / "other", game_id="pm-other")
        return proto.attest(g.keys["german"], {**d["pbem"], "game": "pm-other", "answers": other.state().digest}, d["dice"])
    return None


@pytest.mark.parametrize("source", ["his attestation of another step", "none", "the opponent's signature", "another game's"])
def test_sender_attests_his_dice_with_a_signature_made_for_something_else(fought: Game, tmp_path: Path, source: str) -> None:
    """The sender seals orders whose dice.attest is a signature made for other dice, another step or
    game, or by another key, or has none (so that a view could show dice he never attested): the
    seal holds, the attestation does not, exit 3."""
    fought.play(SOVIET_STANDING)
    p = fought.write_orders("")
    d = read_toml(p)
    attest = _attested_elsewhere(fought, p, tmp_path, source)
    if attest is None:
        del d["dice"]["attest"]
    else:
        d["dice"]["attest"] = attest
    write(p, resealed(d, "german", fought.keys["german"]))
    says = ("the dice attestation (dice.attest) is missing or is not german's signature of these dice",)
    refused(3, "check", fought.state_path, p, says=says)
    refused(3, "adjudicate", fought.state_path, p, "--key", key(tmp_path, "soviet"), says=says)


def test_sender_signs_two_versions_of_his_orders_and_both_get_the_same_dice(duel: Game, tmp_path: Path) -> None:
    """The sender varies his orders (his standing instructions, a unit more or less) to find a
    version with better dice: the seed takes no input, so every version gets the same seed and the
    same die for the same attack; he cannot pick among outcomes."""
    a = duel.write_orders(GERMAN_GT1)
    b = duel.write_orders(GERMAN_GT1.replace('"fewest-steps-first"', '"most-steps-first"'), name="0001-german-b.orders.toml")
    assert content_digest(read_toml(a)) != content_digest(read_toml(b))
    copy = copy_folder(duel.folder, tmp_path / "copy", [*START, "0001.state.toml"])
    accepted("adjudicate", duel.folder / "0001.state.toml", a, "--key", key(tmp_path, "soviet"))
    accepted("adjudicate", copy / "0001.state.toml", b, "--key", key(tmp_path, "soviet"))
    one, two = read_toml(duel.folder / "0002.state.toml")["transition"], read_toml(copy / "0002.state.toml")["transition"]
    assert one["seed"] == two["seed"] and one["dice"] == two["dice"] and one["dice"][0]["label"] == ATTACK_DIE


# ===============================================================================================
# The adjudicator (the other player in a two-player game), who writes the next state
# ===============================================================================================


def test_adjudicator_reveals_another_secret_than_his_commitment(fought: Game) -> None:
    """The Soviet adjudicates with a secret other than the one he committed to (his next one), to pick
    the seed: verify refuses with exit 3."""
    rewrite(fought.folder / "0002.state.toml", lambda d: d["transition"]["reveals"].__setitem__("soviet", fought.secret("soviet", 1)),
            "soviet", fought.keys["soviet"])
    refused(3, "verify", fought.folder, "--quiet", says=("dice reveal does not match its commitment",))


def test_adjudicator_spells_his_reveal_in_upper_case(fought: Game) -> None:
    """The Soviet writes his reveal in upper case in the state he seals (the same secret, another
    spelling, another seed): a sealed dice field re-spelled is tampering, exit 3."""
    rewrite(fought.folder / "0002.state.toml", lambda d: d["transition"]["reveals"].__setitem__(
        "soviet", d["transition"]["reveals"]["soviet"].upper()), "soviet", fought.keys["soviet"])
    refused(3, "verify", fought.folder, "--quiet", says=(ONE_SPELLING, "transition.reveals.soviet"))


def _ground_state(g: Game, p: Path, *, keep_inputs: bool, grind_seed: bool = True) -> int:
    """The adjudicator records in state ``p`` a seed of his own making, ground over made-up material
    until the die of the attack changes, and that die (unless ``grind_seed`` is false); and, unless
    ``keep_inputs``, a made-up input digest in place of the sender's file (the seed takes no input
    any more: the made-up material is what he would add). Returns the face recorded."""
    d = read_toml(p)
    tr = d["transition"]
    want = tr["dice"][0]["face"] % 6 + 1 if grind_seed else tr["dice"][0]["face"]

    def seed_of(i: int) -> bytes:
        return hashlib.sha256(canonical({**proto.seed_material(d["pbem"]["previous"], tr["reveals"]), "inputs": [fake_digest(i)]})).digest()

    if grind_seed:
        i = grind(lambda s: face_from_seed(s, ATTACK_DIE, 6)[0] == want, seed_of)
        tr["seed"], tr["dice"][0]["face"] = seed_of(i).hex(), want
    if not keep_inputs:
        d["pbem"]["inputs"] = [fake_digest(-1)]
    write(p, resealed(d, "soviet", g.keys["soviet"]))
    return want


def test_adjudicator_records_a_seed_of_his_own_and_verify_replays(fought: Game) -> None:
    """The Soviet records a seed ground over material of his own choosing (say, the old protocol's
    input digests, made up) and the die it gives: verify replays the transition (exit 1), audit
    re-derives the seed from the previous state and the reveals (exit 3)."""
    _ground_state(fought, fought.folder / "0002.state.toml", keep_inputs=True)
    refused(1, "verify", fought.folder, "--quiet", says=("does not follow", "transition.dice[0].face"))
    refused(3, "audit", fought.folder / "0002.state.toml", says=("recorded seed is not the one derived from the reveals",))


def test_adjudicator_grinds_the_seed_with_made_up_inputs_and_audit_refuses(fought: Game) -> None:
    """The Soviet makes up the input digests of state 0002 (so that the German's own file is not
    found) and grinds the seed; the German, who holds his orders beside the state, audits it: audit
    refuses the seed (exit 3), and with the honest seed, the missing input (exit 1)."""
    _ground_state(fought, fought.folder / "0002.state.toml", keep_inputs=False)
    refused(1, "verify", fought.folder, "--quiet", says=("not in the folder",))
    refused(3, "audit", fought.folder / "0002.state.toml", says=("recorded seed is not the one derived",))
    for name in ("0002.state.toml", "0002.report.md", "0002.turn.svg"):
        (fought.folder / name).unlink(missing_ok=True)
    fought.adjudicate(fought.folder / "0001-german.orders.toml")
    _ground_state(fought, fought.folder / "0002.state.toml", keep_inputs=False, grind_seed=False)
    refused(1, "audit", fought.folder / "0002.state.toml", says=("not in the folder",))


def test_adjudicator_respells_a_die_label_and_audit_refuses(fought: Game) -> None:
    """The Soviet records the attack's die under a re-spelled label ('...|CRT' + spaces) that gives a
    face he likes: verify and audit replay the transition and refuse (exit 1)."""
    p = fought.folder / "0002.state.toml"
    d = read_toml(p)
    tr = d["transition"]
    seed = bytes.fromhex(tr["seed"])
    want = tr["dice"][0]["face"] % 6 + 1
    n = next(n for n in range(1, 200) if face_from_seed(seed, ATTACK_DIE + " " * n, 6)[0] == want)
    tr["dice"][0]["label"], tr["dice"][0]["face"] = ATTACK_DIE + " " * n, want
    write(p, resealed(d, "soviet", fought.keys["soviet"]))
    refused(1, "verify", fought.folder, "--quiet", says=("does not follow", "transition.dice[0]"))
    refused(1, "audit", p, says=("does not follow", "transition.dice[0]"))


def _defaulted_two_player_state(g: Game, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Soviet writes state 0002 as if the German had sent nothing (transition.defaulted, his own
    reveal only: a seed he knew before the orders came), which only a referee may do. (next_state
    refuses it, so it is told once that the adjudicator is a referee.)"""
    import pbem.exchange.game as game_module

    real, asked = game_module.adjudicator_of, []

    def once_a_referee(state: dict[str, Any]) -> str:
        asked.append(1)
        return "referee" if len(asked) == 1 else real(state)

    monkeypatch.setattr(game_module, "adjudicator_of", once_a_referee)
    body, _ = next_state(load_state(g.folder / "0001.state.toml"), [], g.secret("soviet", 0),
                         proto.commitment(g.secret("soviet", 1)), ["german"])
    monkeypatch.setattr(game_module, "adjudicator_of", real)
    p = g.folder / "0002.state.toml"
    write(p, seal(body, "soviet", g.keys["soviet"]))
    return p


def test_adjudicator_adjudicates_without_the_senders_orders_in_a_two_player_game(duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Soviet ignores the German's orders and writes state 0002 with transition.defaulted =
    ["german"]: a seed made of his own reveal only, known to him before. verify and audit must
    refuse it as a state that does not follow (exit 1)."""
    duel.write_orders(GERMAN_GT1)
    p = _defaulted_two_player_state(duel, monkeypatch)
    refused(1, "verify", duel.folder, "--quiet", says=("only a referee",))
    refused(1, "audit", p, says=("only a referee",))


def test_adjudicator_writes_two_next_states_and_verify_shows_the_equivocation(fought: Game, tmp_path: Path) -> None:
    """The Soviet writes two different states 0002 for one step (say, one per die he would like to
    show): verify stops with exit 3 and names both."""
    other = tmp_path / "other-0002.state.toml"
    d = read_toml(fought.folder / "0002.state.toml")
    d["position"]["vp"] = d["position"]["vp"] + 1
    write(other, resealed(d, "soviet", fought.keys["soviet"]))
    shutil.copy(other, fought.folder / "0002-other.state.toml")
    refused(3, "verify", fought.folder, "--quiet", says=("equivocation", "0002-other.state.toml"))


def test_adjudicator_seals_one_state_twice_and_verify_shows_the_fork(fought: Game) -> None:
    """The Soviet seals state 0002 twice (another nonce: same content, another digest), so that the
    German's next orders could answer either: two states with one sequence number, exit 3."""
    d = read_toml(fought.folder / "0002.state.toml")
    twin = with_signature(d, other_signature(fought.keys["soviet"], canonical(unsealed(d)), nonce=777))
    write(fought.folder / "0002-twin.state.toml", twin)
    refused(3, "verify", fought.folder, "--quiet", says=("fork", "0002-twin.state.toml"))


def test_adjudicator_replaces_the_senders_key_in_the_next_state(fought: Game) -> None:
    """The Soviet records his own key for the German in state 0002, to sign the German's next files:
    the state does not follow (exit 1)."""
    rewrite(fought.folder / "0002.state.toml", lambda d: d["parties"]["german"].__setitem__("key", fought.keys["soviet"].public_text),
            "soviet", fought.keys["soviet"])
    refused(1, "verify", fought.folder, "--quiet", says=("does not follow", "parties.german.key"))


def test_adjudicator_commits_to_a_secret_already_revealed(fought: Game) -> None:
    """The Soviet commits, in state 0002, to the secret he reveals in it: his next reveal is then known
    to everyone before the next orders are written. verify must refuse a commitment to a revealed
    secret (exit 3)."""
    prev = load_state(fought.folder / "0001.state.toml")
    orders = load_doc(fought.folder / "0001-german.orders.toml")
    reveal = fought.secret("soviet", 0)
    with pytest.raises(TamperError, match="commits again"):  # pbem's own next_state will not write it
        next_state(prev, [submission(orders)], reveal, proto.commitment(reveal))
    body, _ = next_state(prev, [submission(orders)], reveal, "sha256:" + "ee" * 32)
    body["parties"]["soviet"]["commit"] = proto.commitment(reveal)  # written in by hand
    for name in ("0002.state.toml", "0002.report.md", "0002.turn.svg"):
        (fought.folder / name).unlink()
    write(fought.folder / "0002.state.toml", seal(body, "soviet", fought.keys["soviet"]))
    refused(3, "verify", fought.folder, "--quiet", says=("commits again to a secret already committed to",))


def sealed_by_hand(g: Game, state: dict[str, Any], side: str, body: str, name: str | None = None) -> Path:
    """``side``'s orders answering ``state``, sealed by hand (not by pbem sign, which checks the
    state): the next secret of his chain revealed, the one after committed, the dice attested."""
    p = g.folder / (name or f"{int(state['pbem']['sequence']):04d}-{side}.orders.toml")
    p.write_text(order_text(state, side, body), encoding="utf-8")
    d = read_toml(p)
    idx = int(d["pbem"]["dice_index"])
    d["dice"] = {"reveal": g.secret(side, idx), "commit": proto.commitment(g.secret(side, idx + 1))}
    d["dice"]["attest"] = proto.attest(g.keys[side], d["pbem"], d["dice"])
    write(p, seal(d, side, g.keys[side]))
    return p


@pytest.mark.parametrize(
    ("what", "change", "code", "says"),
    [
        ("an adjudicator who is not a party", lambda d: d["awaits"].__setitem__("adjudicator", "ghost"), 3,
         ("names 'ghost', who is not a party of the game", "parties and commitments")),
        ("no salt for the adjudicator", lambda d: d["parties"]["german"].pop("salt"), 3,
         ("parties.german", "its dice salt and commitment")),
        ("no commitment for the sender", lambda d: d["parties"]["soviet"].pop("commit"), 3,
         ("parties.soviet", "its dice salt and commitment")),
        ("the adjudicator's index at the end of the 64 bits", lambda d: d["parties"]["german"].__setitem__("index", 2**63 - 1), 1,
         ("does not follow", "parties.german.index")),
    ],
)
def test_adjudicator_of_the_previous_step_writes_a_state_that_crashes_the_next_adjudication(
        fought: Game, tmp_path: Path, what: str, change: Any, code: int, says: tuple[str, ...]) -> None:
    """The Soviet writes state 0002 (sealed with his key, so the seal holds) with an inconsistent
    party table, then his orders for it: the German's pbem adjudicate refuses the state before it
    reveals anything: a party table no state can have is tampering with the chain (exit 3); one that
    merely does not follow from 0001 is caught by the replay (exit 1)."""
    p = fought.folder / "0002.state.toml"
    st = rewrite(p, change, "soviet", fought.keys["soviet"])
    orders = sealed_by_hand(fought, st, "soviet", SOVIET_STANDING)
    refused(code, "adjudicate", p, orders, "--key", key(tmp_path, "german"), says=says)
    assert not (fought.folder / "0003.state.toml").exists()


def test_adjudicator_records_a_die_of_one_side(fought: Game) -> None:
    """The Soviet records the attack's die as a die of 1 side: audit must refuse it cleanly."""
    p = fought.folder / "0002.state.toml"
    rewrite(p, lambda d: d["transition"]["dice"][0].__setitem__("sides", 1), "soviet", fought.keys["soviet"])
    refused(1, "verify", fought.folder, "--quiet", says=("does not follow",))
    refused(3, "audit", p, says=("sides",))


def test_adjudicator_orders_the_joins_otherwise(tmp_path: Path) -> None:
    """The creator adjudicates the joins given in another order: the inputs are sorted by side, the
    state is the same byte for byte (no choice there)."""
    a = start_game(tmp_path / "a")
    folder = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml", "0000-german.join.toml", "0000-soviet.join.toml"])
    keys_to_files(a.keys, tmp_path)
    accepted("adjudicate", folder / "0000.state.toml", folder / "0000-soviet.join.toml", folder / "0000-german.join.toml",
             "--key", key(tmp_path, "german"))
    assert (folder / "0001.state.toml").read_bytes() == (a.folder / "0001.state.toml").read_bytes()
    refused(1, "adjudicate", a.folder / "0001.state.toml", a.write_orders(GERMAN_GT1), a.folder / "0001-german.orders.toml",
            "--key", key(tmp_path, "soviet"), says=("twice",))


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("drops the German's attestation", lambda d: d["transition"]["attestations"].pop("german")),
        ("records the German's join attestation instead",
         lambda d: d["transition"]["attestations"].__setitem__("german", dict(d["_join"]))),
    ],
)
def test_adjudicator_records_other_attestations_in_the_state(fought: Game, what: str, change: Any) -> None:
    """The Soviet records in state 0002 no attestation of the German's dice, or the German's join
    attestation in place of his orders' one (so that a view made from it would show other dice):
    verify and audit replay the transition, exit 1."""
    join = read_toml(fought.folder / "0001.state.toml")["transition"]["attestations"]["german"]

    def edit(d: dict[str, Any]) -> None:
        d["_join"] = join
        change(d)
        del d["_join"]

    rewrite(fought.folder / "0002.state.toml", edit, "soviet", fought.keys["soviet"])
    refused(1, "verify", fought.folder, "--quiet", says=("does not follow", "transition.attestations"))
    refused(1, "audit", fought.folder / "0002.state.toml", says=("does not follow", "transition.attestations"))


def test_adjudicator_commits_again_to_a_secret_of_an_earlier_step(fought: Game) -> None:
    """In state 0004 the Soviet commits again to his first secret (committed in 0001, revealed in
    0002), whose reveal everyone knows: verify refuses a commitment made before (exit 3)."""
    fought.play(SOVIET_STANDING)  # 0003, by the German
    orders = fought.write_orders("")
    prev = fought.state()
    body, _ = next_state(prev, [submission(load_doc(orders))], fought.secret("soviet", 2), proto.commitment(fought.secret("soviet", 0)))
    write(fought.folder / "0004.state.toml", seal(body, "soviet", fought.keys["soviet"]))
    refused(3, "verify", fought.folder, "--quiet", says=("0004.state.toml: soviet commits again to a dice secret already committed to",))


def test_adjudicator_reseals_his_state_to_get_a_second_reveal_of_the_next_adjudicators_secret(fought: Game, tmp_path: Path) -> None:
    """After the German adjudicated the Soviet's orders for state 0002 (state 0003, his secret 1
    revealed), the Soviet puts a re-sealed copy of 0002 and new orders for it into the folder. The
    German's pbem adjudicate must refuse to reveal secret 1 again (exit 3)."""
    accepted("adjudicate", fought.folder / "0002.state.toml", fought.write_orders(SOVIET_STANDING), "--key", key(tmp_path, "german"))
    known = read_toml(fought.folder / "0003.state.toml")["transition"]["reveals"]["german"]
    d = read_toml(fought.folder / "0002.state.toml")
    twin = with_signature(d, other_signature(fought.keys["soviet"], canonical(unsealed(d)), nonce=5))
    write(fought.folder / "0002.z.state.toml", twin)
    orders = orders_for(twin, fought.folder, "soviet", "", fought.keys["soviet"], name="0002-soviet-b.orders.toml")
    seed = proto.transition_seed(digest(twin), {"german": known, "soviet": read_toml(orders)["dice"]["reveal"]}).hex()
    r = pbem("adjudicate", fought.folder / "0002.z.state.toml", orders, "--key", key(tmp_path, "german"),
             "-o", fought.folder / "0003-b.state.toml", "--report", fought.folder / "0003-b.report.md")
    if r.exit_code == 0:
        assert read_toml(fought.folder / "0003-b.state.toml")["transition"]["seed"] == seed, "the Soviet knew the seed"
    assert r.exit_code == 3, r.output


def test_adjudicator_respells_his_reveal_and_adds_a_stray_field(fought: Game) -> None:
    """The Soviet writes his reveal in upper case in state 0002 and adds a field the schema does not
    know: the re-spelled reveal is tampering whatever else is wrong, exit 3."""
    def change(d: dict[str, Any]) -> None:
        d["transition"]["reveals"]["soviet"] = d["transition"]["reveals"]["soviet"].upper()
        d["note"] = "stray"

    rewrite(fought.folder / "0002.state.toml", change, "soviet", fought.keys["soviet"])
    refused(3, "verify", fought.folder, "--quiet", says=(ONE_SPELLING, "transition.reveals.soviet"))


# ===============================================================================================
# The referee
# ===============================================================================================


def test_referee_defaults_a_side_whose_orders_he_holds(refereed: Refereed, tmp_path: Path) -> None:
    """The referee has the German's GT2 orders, computes their dice, and adjudicates the step with
    --no-orders german because the defaulted dice suit him better."""
    g = refereed
    st = g.state()
    orders = g.orders("german", "")
    seq = int(st.data["pbem"]["sequence"])
    assert orders.exists()
    refused(2, "adjudicate", g.folder / f"{seq:04d}.state.toml", "--no-orders", "german", "--key", key(tmp_path, "referee"),
            says=(orders.name, "holds german's sealed orders for this very state"))


def test_referee_defaults_a_side_whose_orders_he_holds_and_verify_notes_it(refereed: Refereed, tmp_path: Path) -> None:
    """The same: verify on the referee's folder replays the defaulted step and says that the German's
    sealed orders for it are there (a note, exit 0: only the deadline tells who is right)."""
    g = refereed
    seq = int(g.state().data["pbem"]["sequence"])
    orders = g.orders("german", "")
    g.adjudicate([], defaulted=["german"])
    r = accepted("verify", g.folder, "--quiet")
    assert f"adjudicated without german's orders, but {orders}" in r.output, r.output
    assert f"{seq + 1:04d}.state.toml" in r.output


def test_referee_changes_a_die_in_a_view_of_a_folder_that_also_holds_state_0(refereed: Refereed, tmp_path: Path) -> None:
    """The referee changes the die of view 0002 for the Soviet; the Soviet's folder also holds state
    0000 and his join. verify must check the views (exit 3), not only state 0."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    reseal_view(mine / "0002-soviet.view.toml", lambda v: v["transition"]["dice"][0].__setitem__(
        "face", v["transition"]["dice"][0]["face"] % 6 + 1), g)
    refused(3, "verify", mine, "--quiet", says=("the seed gives",))


def test_referee_changes_a_die_in_a_view_of_a_folder_of_views(refereed: Refereed, tmp_path: Path) -> None:
    """The referee changes the die of view 0002 in a folder of views only, which the player trusts
    from view 0001 (--from): exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet")
    reseal_view(mine / "0002-soviet.view.toml", lambda v: v["transition"]["dice"][0].__setitem__(
        "face", v["transition"]["dice"][0]["face"] % 6 + 1), g)
    anchor = load_state(mine / "0001-soviet.view.toml").digest
    refused(3, "verify", mine, "--quiet", "--from", anchor, says=("the seed gives",))


def test_referee_drops_the_reveals_from_a_view(refereed: Refereed, tmp_path: Path) -> None:
    """The referee writes view 0002 with no reveals and the die he likes: exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        v["transition"]["reveals"] = {}
        v["transition"]["dice"][0]["face"] = v["transition"]["dice"][0]["face"] % 6 + 1

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("reveals recorded for nobody",))


def test_referee_leaves_a_sides_reveal_out_of_a_view(refereed: Refereed, tmp_path: Path) -> None:
    """The referee leaves the German's reveal out of view 0002 for the Soviet and re-derives seed and
    die without it: the seed must take the reveals of the awaited sides and the referee (exit 3)."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        del tr["reveals"]["german"]
        seed = proto.transition_seed(v["pbem"]["previous"], tr["reveals"])
        tr["seed"] = seed.hex()
        tr["dice"][0]["face"] = face_from_seed(seed, tr["dice"][0]["label"], 6)[0]

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("reveals recorded for referee", "german"))


def made_up_seed(previous: str, reveals: dict[str, str], i: int) -> bytes:
    """A seed of the old protocol's kind: the previous digest, the reveals and a made-up input digest,
    which whoever records it can vary at will."""
    return hashlib.sha256(canonical({**proto.seed_material(previous, reveals), "inputs": [fake_digest(i)]})).digest()


def test_referee_grinds_the_seed_of_a_view(refereed: Refereed, tmp_path: Path) -> None:
    """The referee records in the Soviet's view 0002 a seed ground over a made-up input digest (what
    the old protocol let him vary) until the attack's die is the one he wants: the seed is the
    previous state's digest and the reveals only, exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        want = tr["dice"][0]["face"] % 6 + 1
        i = grind(lambda s: face_from_seed(s, ATTACK_DIE, 6)[0] == want, lambda i: made_up_seed(v["pbem"]["previous"], tr["reveals"], i))
        tr["seed"], tr["dice"][0]["face"] = made_up_seed(v["pbem"]["previous"], tr["reveals"], i).hex(), want

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("the seed does not follow from the reveals",))


def test_referee_substitutes_the_other_sides_commitment_in_a_sides_views(refereed: Refereed, tmp_path: Path) -> None:
    """In the Soviet's view 0001 the referee records his own commitment for the German, and in view
    0002 its secret as the German's reveal, ground for the die he wants: the German's join attests
    his commitment, exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    v2 = read_toml(mine / "0002-soviet.view.toml")
    tr = v2["transition"]
    want = tr["dice"][0]["face"] % 6 + 1

    def secret_of(i: int) -> str:
        return hashlib.sha256(f"referee's choice {i}".encode()).hexdigest()

    def seed_of(i: int) -> bytes:
        return proto.transition_seed(v2["pbem"]["previous"], {**tr["reveals"], "german": secret_of(i)})

    i = grind(lambda s: face_from_seed(s, ATTACK_DIE, 6)[0] == want, seed_of)
    reseal_view(mine / "0001-soviet.view.toml", lambda v: v["parties"]["german"].__setitem__("commit", proto.commitment(secret_of(i))), g)

    def change(v: dict[str, Any]) -> None:
        v["transition"]["reveals"]["german"] = secret_of(i)
        v["transition"]["seed"], v["transition"]["dice"][0]["face"] = seed_of(i).hex(), want

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("0001-soviet.view.toml", "german's commitment in the view is not the one german attested"))


def test_referee_leaves_a_view_out(refereed: Refereed, tmp_path: Path) -> None:
    """The Soviet's folder lacks view 0002: verify reports the missing view (exit 1)."""
    mine = soviet_views(refereed, tmp_path / "soviet", *PLAYER_START)
    (mine / "0002-soviet.view.toml").unlink()
    refused(1, "verify", mine, "--quiet", says=("views missing from the chain: sequence 2",))


def test_referee_respells_a_die_label_in_a_view(refereed: Refereed, tmp_path: Path) -> None:
    """The referee records the attack's die of view 0002 under a re-spelled label that gives a face
    he likes, consistent with the seed: labels must be in their one spelling (exit 3)."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        seed, want = bytes.fromhex(tr["seed"]), tr["dice"][0]["face"] % 6 + 1
        n = next(n for n in range(1, 200) if face_from_seed(seed, ATTACK_DIE + " " * n, 6)[0] == want)
        tr["dice"][0]["label"], tr["dice"][0]["face"] = ATTACK_DIE + " " * n, want

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("label",))


@pytest.mark.parametrize(
    ("what", "change", "says"),
    [
        ("a die of 1 side", lambda v: v["transition"]["dice"][0].__setitem__("sides", 1), "of 1 sides is not a die the rules roll"),
        ("a reveal of a party the game does not have", lambda v: v["transition"]["reveals"].__setitem__("ghost", "0" * 64),
         "reveals recorded for german, ghost, referee"),
    ],
)
def test_referee_writes_a_view_that_crashes_verify(refereed: Refereed, tmp_path: Path, what: str, change: Any, says: str) -> None:
    """A view sealed by the referee with a die of 1 side, or a reveal of an unknown party: refused
    cleanly, exit 3."""
    mine = soviet_views(refereed, tmp_path / "soviet", *PLAYER_START)
    reseal_view(mine / "0002-soviet.view.toml", change, refereed)
    refused(3, "verify", mine, "--quiet", says=(says,))


def test_referee_shows_a_view_that_is_not_the_view_of_his_state(refereed: Refereed, tmp_path: Path) -> None:
    """The referee's view 0002 shows other dice than his state 0002 (a seed ground over made-up
    material): verify on the referee's folder compares each view with its state, exit 1."""
    g = refereed

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        want = tr["dice"][0]["face"] % 6 + 1
        i = grind(lambda s: face_from_seed(s, ATTACK_DIE, 6)[0] == want, lambda i: made_up_seed(v["pbem"]["previous"], tr["reveals"], i))
        tr["seed"], tr["dice"][0]["face"] = made_up_seed(v["pbem"]["previous"], tr["reveals"], i).hex(), want

    reseal_view(g.folder / "0002-soviet.view.toml", change, g)
    refused(1, "verify", g.folder, "--quiet", says=("is not the view of the state it names",))


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("the German's join attestation", "german's attested dice answer another state, step or index than the transition's"),
        ("the Soviet's attestation of his own step", "german's dice attestation is not german's signature"),
        ("the referee's own signature", "german's dice attestation is not german's signature"),
    ],
)
def test_referee_shows_the_german_dice_attested_by_another_file_or_key(refereed: Refereed, tmp_path: Path, source: str,
                                                                       says: str) -> None:
    """In the Soviet's view 0002 the referee records, as the German's attestation, one made for another
    step (the German's join), another side's (the Soviet's, of step 0002), or his own signature of the
    German's dice: every input's dice are attested by its sender for this step, exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        if source == "the German's join attestation":
            tr["attestations"]["german"] = read_toml(mine / "0001-soviet.view.toml")["transition"]["attestations"]["german"]
        elif source == "the Soviet's attestation of his own step":
            tr["attestations"]["german"] = read_toml(mine / "0003-soviet.view.toml")["transition"]["attestations"]["soviet"]
        else:
            a = tr["attestations"]["german"]
            header = {"game": v["pbem"]["game"], "answers": a["answers"], "step": a["step"], "side": "german", "dice_index": a["dice_index"]}
            a["attest"] = proto.attest(g.keys["referee"], header, a)

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=(says,))


def test_referee_makes_a_step_look_like_the_joins_in_the_other_sides_views(refereed: Refereed, tmp_path: Path) -> None:
    """In the Soviet's view 0001 the referee says the step awaits joins; in view 0002 he leaves out
    the dice, the reveals and the seed of the German's attack. verify must refuse (exit 3): only the
    first transition is the joins'."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    reseal_view(mine / "0001-soviet.view.toml", lambda v: v["awaits"].__setitem__("kind", "join"), g)

    def change(v: dict[str, Any]) -> None:
        v["transition"]["dice"], v["transition"]["reveals"], v["transition"]["seed"] = [], {}, ""

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("join",))


@pytest.mark.parametrize(
    ("what", "relabel"),
    [
        ("another attack's number", lambda n: ATTACK_DIE.replace("attack 1", f"attack {n}")),
        ("another step", lambda n: ATTACK_DIE.replace("GT1/1/german", f"GT{n}/1/german")),
    ],
)
@pytest.mark.xfail(strict=True, reason="a side's views are checked for a label's shape only (rule|step|..., once each): the referee shows "
                   "the Soviet the German's attack rolled under another attack's number, or another step, whichever gives "
                   "the face he wants, and the player, who cannot replay the hidden part, is told every die was re-derived. "
                   "A label's step could at least be the awaited step, and its rule and purpose those the module rolls")
def test_referee_relabels_a_die_in_a_view(refereed: Refereed, tmp_path: Path, what: str, relabel: Callable[[int], str]) -> None:
    """The referee records the attack's die of the Soviet's view 0002 under a well-formed label that
    is not the one the rules roll, chosen for its face: verify must refuse it (exit 3)."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        seed, want = bytes.fromhex(tr["seed"]), tr["dice"][0]["face"] % 6 + 1
        n = next(n for n in range(2, 200) if face_from_seed(seed, relabel(n), 6)[0] == want)
        tr["dice"][0]["label"], tr["dice"][0]["face"] = relabel(n), want

    reseal_view(mine / "0002-soviet.view.toml", change, g)
    refused(3, "verify", mine, "--quiet", says=("label",))


def test_referee_names_a_party_the_game_does_not_have_in_a_views_awaits(refereed: Refereed, tmp_path: Path) -> None:
    """In the Soviet's view 0001 the referee names a 'ghost' as the awaited side, or as the adjudicator
    (hoping for a crash, or a seed without his own reveal): refused cleanly, exit 3."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    reseal_view(mine / "0001-soviet.view.toml", lambda v: v["awaits"].__setitem__("from", ["ghost"]), g)
    refused(3, "verify", mine, "--quiet", says=("names 'ghost', who is not a party of the game",))
    reseal_view(mine / "0001-soviet.view.toml", lambda v: v["awaits"].update({"from": ["german"], "adjudicator": "ghost"}), g)
    refused(3, "verify", mine, "--quiet", says=("names 'ghost', who is not a party of the game",))


def test_referee_mails_state_1_so_that_verify_skips_the_views(refereed: Refereed, tmp_path: Path) -> None:
    """The referee mails the Soviet the full state 0001 (the joins' state: nothing hidden yet) and the
    other joins, which pbem mail read files; the Soviet's view 0002 has a changed die. verify must
    still check the views beyond the states it holds (exit 3)."""
    g = refereed
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    files = [(n, (g.folder / n).read_text(encoding="utf-8")) for n in ("0001.state.toml", "0000-german.join.toml", "0000-referee.join.toml")]
    accepted("mail", "read", save(tmp_path, "state1.eml", message(*files)), "--folder", mine)
    reseal_view(mine / "0002-soviet.view.toml", lambda v: v["transition"]["dice"][0].__setitem__(
        "face", v["transition"]["dice"][0]["face"] % 6 + 1), g)
    refused(3, "verify", mine, "--quiet", says=("the seed gives",))


def _referee_keeps_his_commitment(tmp_path: Path) -> tuple[Refereed, str]:
    """A refereed game where the referee, adjudicating the German's GT1 attack, keeps in state 0002 the
    commitment whose secret he reveals in it; then the Soviet's (empty) step, adjudicated with that
    secret again. Returns the game and the seed the Soviet could compute before writing his orders."""
    g = Refereed(tmp_path / "ref")
    keys_to_files(g.keys, tmp_path)
    origin = load_state(g.folder / "0000.state.toml").digest
    salt = str(g.state().data["parties"]["referee"]["salt"])
    reveal = proto.secret(g.keys["referee"], origin, salt, 0)

    def step(files: list[Path], commit: str) -> dict[str, Any]:
        prev = g.state()
        # pbem's own next_state refuses a repeated commitment: the referee writes it in by hand
        body, _ = next_state(prev, [submission(load_doc(p)) for p in files], reveal, "sha256:" + "ee" * 32)
        body["parties"]["referee"]["commit"] = commit
        st = seal(body, "referee", g.keys["referee"])
        n = int(body["pbem"]["sequence"])
        write(g.folder / f"{n:04d}.state.toml", st)
        for side, v in make_views(st, g.keys["referee"]).items():
            write(g.folder / f"{n:04d}-{side}.view.toml", v)
        return st

    st2 = step([g.orders("german", GERMAN_GT1)], proto.commitment(reveal))
    soviet_secret = proto.secret(g.keys["soviet"], origin, str(st2["parties"]["soviet"]["salt"]), 0)
    known = proto.transition_seed(digest(st2), {"soviet": soviet_secret, "referee": reveal}).hex()
    step([g.orders("soviet", "")], proto.commitment(proto.secret(g.keys["referee"], origin, salt, 1)))
    return g, known


def test_referee_keeps_his_commitment_so_that_the_next_sender_knows_the_seed(tmp_path: Path) -> None:
    """The referee reveals his secret in state 0002 and keeps its commitment: the Soviet computes the
    seed of his own step from his view 0002 and his key before he writes his orders. verify must
    refuse the repeated commitment (exit 3), on the referee's folder and on the Soviet's views."""
    g, known = _referee_keeps_his_commitment(tmp_path)
    assert read_toml(g.folder / "0003.state.toml")["transition"]["seed"] == known, "the Soviet knew the seed of his step"
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    refused(3, "verify", mine, "--quiet", says=("referee",))
    refused(3, "verify", g.folder, "--quiet", says=("(referee) commits again",))


def _german_folder(g: Refereed, dest: Path, views: tuple[str, ...] = ("0001", "0002", "0003")) -> Path:
    dest.mkdir()
    for name in ("0000.state.toml", "0000-german.join.toml", *(f"{n}-german.view.toml" for n in views)):
        shutil.copy(g.folder / name, dest / name)
    return dest


def _resealed_state_3(g: Refereed) -> dict[str, Any]:
    """State 0003 sealed again by the referee with another nonce: the same content, another digest."""
    d = read_toml(g.folder / "0003.state.toml")
    return with_signature(d, other_signature(g.keys["referee"], canonical(unsealed(d)), nonce=99))


def test_referee_forks_a_view_in_the_players_folder_and_sign_refuses(refereed: Refereed, tmp_path: Path) -> None:
    """The German has signed his orders for view 0003; the referee sends him a second view 0003, of
    state 0003 sealed again (another digest), hoping for a second reveal of the same secret with
    another seed: in the German's folder, pbem sign finds the fork (exit 3)."""
    g = refereed
    mine = _german_folder(g, tmp_path / "german")
    first = mine / "0003-german.orders.toml"
    first.write_text(order_text(g.state().data, "german", ""), encoding="utf-8")
    accepted("sign", first, "--key", key(tmp_path, "german"), "--state", mine / "0003-german.view.toml")
    twin = _resealed_state_3(g)
    write(mine / "0003-german-b.view.toml", make_views(twin, g.keys["referee"])["german"])
    second = mine / "0003-german-b.orders.toml"
    second.write_text(order_text(twin, "german", ""), encoding="utf-8")
    refused(3, "sign", second, "--key", key(tmp_path, "german"), "--state", mine / "0003-german-b.view.toml",
            says=("fork", "two different views with sequence number 3"))
    assert "dice" not in read_toml(second)


def test_referee_gets_a_second_reveal_of_a_secret_through_a_second_folder(refereed: Refereed, tmp_path: Path) -> None:
    """As above, but the second view 0003 comes in a second folder (with the game's first state, the
    German's join and his views 0001-0002): pbem sign must not reveal secret 1 again (exit 3)."""
    g = refereed
    mine = _german_folder(g, tmp_path / "german")
    first = mine / "0003-german.orders.toml"
    first.write_text(order_text(g.state().data, "german", ""), encoding="utf-8")
    accepted("sign", first, "--key", key(tmp_path, "german"), "--state", mine / "0003-german.view.toml")
    twin = _resealed_state_3(g)
    other = _german_folder(g, tmp_path / "german-again", ("0001", "0002"))
    write(other / "0003-german.view.toml", make_views(twin, g.keys["referee"])["german"])
    second = other / "0003-german.orders.toml"
    second.write_text(order_text(twin, "german", ""), encoding="utf-8")
    r = pbem("sign", second, "--key", key(tmp_path, "german"), "--state", other / "0003-german.view.toml")
    one, two = read_toml(first), read_toml(second)
    if r.exit_code == 0:
        assert one["dice"]["reveal"] == two["dice"]["reveal"] and one["pbem"]["answers"] != two["pbem"]["answers"]
        reveals = {"german": one["dice"]["reveal"], "referee": "00" * 32}
        assert proto.transition_seed(one["pbem"]["answers"], reveals) != proto.transition_seed(two["pbem"]["answers"], reveals)
    assert r.exit_code == 3, r.output


def test_referee_shows_each_side_another_commitment_of_his(refereed: Refereed, tmp_path: Path) -> None:
    """In the Soviet's views 0002 and 0003 the referee records another commitment of his own and its
    secret as his reveal (another seed) than in the German's: each side's views verify. The two
    views 0002, given together, are the proof: verify must say so (exit 3)."""
    g = refereed
    other_secret = hashlib.sha256(b"the referee's other secret").hexdigest()
    mine = soviet_views(g, tmp_path / "soviet", *PLAYER_START)
    reseal_view(mine / "0002-soviet.view.toml", lambda v: v["parties"]["referee"].__setitem__("commit", proto.commitment(other_secret)), g)

    def change(v: dict[str, Any]) -> None:
        tr = v["transition"]
        tr["reveals"]["referee"] = other_secret
        seed = proto.transition_seed(v["pbem"]["previous"], tr["reveals"])
        tr["seed"] = seed.hex()
        for die in tr["dice"]:
            die["face"] = face_from_seed(seed, die["label"], die["sides"])[0]

    reseal_view(mine / "0003-soviet.view.toml", change, g)
    accepted("verify", mine, "--quiet")
    german = _german_folder(g, tmp_path / "german")
    accepted("verify", german, "--quiet")
    refused(3, "verify", mine / "0002-soviet.view.toml", german / "0002-german.view.toml", "--quiet", says=("referee",))


# ===============================================================================================
# The game's creator (who writes state 0 and adjudicates the joins)
# ===============================================================================================


def _state_zero_folder(folder: Path, sides: dict[str, str], creator: KeyPair, referee: str | None = None) -> Path:
    """A state 0 sealed by the German creator with the parties' keys ``sides`` (and ``referee``),
    written by hand: pbem new (state_zero) refuses one key for two parties or a weak key, so the
    state is made with other keys and then given these."""
    folder.mkdir(parents=True)
    placeholders = {p: KeyPair.from_seed(f"placeholder {p}".encode()).public_text for p in sides}
    body = state_zero("proud-monster", EXCHANGE_SCENARIO, placeholders,
                      KeyPair.from_seed(b"placeholder referee").public_text if referee else None, "german", "pm-made", {})
    for p, k in {**sides, **({"referee": referee} if referee else {})}.items():
        body["parties"][p]["key"] = k
    write(folder / "0000.state.toml", seal(body, "german", creator))
    return folder


def test_creator_writes_a_state_0_that_pbem_new_would_not(duel: Game) -> None:
    """The creator gives himself an extra VP in state 0 (sealed by him): verify re-derives state 0
    from its scenario and refuses it (exit 1)."""
    rewrite(duel.folder / "0000.state.toml", lambda d: d["position"].__setitem__("vp", 5), "german", duel.keys["german"])
    refused(1, "verify", duel.folder / "0000.state.toml", says=("is not the state 0", "position.vp"))


def test_creator_state_0_sealed_by_another_party(tmp_path: Path) -> None:
    """State 0 names the German as creator but is sealed by the Soviet: exit 3."""
    g, s = KeyPair.from_seed(b"c german"), KeyPair.from_seed(b"c soviet")
    folder = _state_zero_folder(tmp_path / "g", {"german": g.public_text, "soviet": s.public_text}, g)
    write(folder / "0000.state.toml", resealed(read_toml(folder / "0000.state.toml"), "soviet", s))
    refused(3, "verify", folder, says=("'german' adjudicates this step",))


def test_creator_gives_two_sides_one_key(tmp_path: Path) -> None:
    """A state 0 whose German and Soviet have one key (one person plays both; a seal's signer, which
    the signature does not cover, can then be swapped between them): verify must refuse (exit 1)."""
    k = KeyPair.from_seed(b"one key")
    folder = _state_zero_folder(tmp_path / "g", {"german": k.public_text, "soviet": k.public_text}, k)
    refused(1, "verify", folder, says=("same public key",))


def test_creator_makes_the_referee_one_of_the_players(tmp_path: Path) -> None:
    """The German creates a refereed game whose referee key is his own key (he would adjudicate his
    own orders knowing every secret of their seeds); the Soviet's verify and join refuse it as not
    the start pbem new makes (exit 1)."""
    g, s = KeyPair.from_seed(b"r german"), KeyPair.from_seed(b"r soviet")
    folder = _state_zero_folder(tmp_path / "g", {"german": g.public_text, "soviet": s.public_text}, g, referee=g.public_text)
    keys_to_files({"soviet": s}, tmp_path)
    refused(1, "verify", folder, says=("same public key",))
    refused(1, "join", folder / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"), says=("same public key",))
    assert not (folder / "0000-soviet.join.toml").exists()


def test_creator_gives_a_side_a_weak_key(tmp_path: Path) -> None:
    """State 0 records a small-order point (order 4) as the Soviet's key: verify refuses it as not
    the start pbem new makes (exit 1)."""
    g = KeyPair.from_seed(b"w german")
    folder = _state_zero_folder(tmp_path / "g", {"german": g.public_text, "soviet": key_text(bytes(32))}, g)
    refused(1, "verify", folder, says=("not the start of a game", "weak"))


def test_creator_replays_state_0_and_a_fresh_join_gives_fresh_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The creator sends a state 0 that is byte for byte that of an earlier game (pbem new with the
    same keys, scenario and game id makes exactly that one). The Soviet whose ledger knows he
    played it refuses to join (exit 3); one who joins it elsewhere (another machine: an empty
    ledger) draws a new salt, so a new commitment and new secrets."""
    a = start_game(tmp_path / "a")
    again = start_game(tmp_path / "again")
    assert (again.folder / "0000.state.toml").read_bytes() == (a.folder / "0000.state.toml").read_bytes()
    a.play(GERMAN_GT1)
    keys_to_files(a.keys, tmp_path)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml"])
    origin = load_state(a.folder / "0000.state.toml").digest
    record_reveal(a.keys["soviet"], origin, str(a.state().data["parties"]["soviet"]["salt"]), 0,
                  load_state(a.folder / "0001.state.toml").digest)  # as his pbem sign of A noted it
    refused(3, "join", b / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"),
            says=("you joined and played the game whose first state is", "replay"))
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "another-machine"))
    accepted("join", b / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"))
    join = read_toml(b / "0000-soviet.join.toml")
    assert join["dice"]["commit"] != read_toml(a.folder / "0000-soviet.join.toml")["dice"]["commit"]
    assert join["dice"]["salt"] != a.state().data["parties"]["soviet"]["salt"]


def _replayed_game(a: Game, b: Path, tmp_path: Path) -> tuple[Path, int]:
    """Game A was played (the Soviet revealed his secret 0 in state 0002). The German starts game B
    in the Soviet's folder ``b`` with A's state 0 (byte for byte what pbem new makes again); the
    Soviet joins it (on a machine whose ledger does not know A: a fresh salt), but the German
    adjudicates A's joins: state 0001 of B is A's.
    Knowing the Soviet's secret 0 from A, and the seed taking no input, the German knows every die
    of his GT1 orders before he writes them. Returns his orders (attacking) and the die they get."""
    keys_to_files(a.keys, tmp_path)
    import os

    os.environ["PBEM_HOME"] = str(tmp_path / "the-soviets-machine")  # (the test's own PBEM_HOME is restored after it)
    accepted("join", b / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"))
    shutil.copy(a.folder / "0001.state.toml", b / "0001.state.toml")  # the German adjudicated A's joins again
    known = read_toml(a.folder / "0002.state.toml")["transition"]["reveals"]["soviet"]
    state1 = load_state(b / "0001.state.toml")
    seed = proto.transition_seed(state1.digest, {"german": a.secret("german", 0), "soviet": known})
    face = face_from_seed(seed, ATTACK_DIE, 6)[0]  # he attacks if it suits him, else holds back
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    chosen = orders_for(state1.data, scratch, "german", GERMAN_GT1, a.keys["german"])
    return Path(shutil.copy(chosen, b / "0001-german.orders.toml")), face


def test_creator_replays_state_0_and_the_victims_old_join(tmp_path: Path) -> None:
    """The German replays game A's state 0 and state 0001 (A's joins) to the Soviet, who joined B
    afresh: the Soviet's pbem adjudicate would reveal his secret 0 of A, which the German knows; it
    refuses the state, whose salt is not that of the Soviet's join in his folder (exit 3)."""
    a = start_game(tmp_path / "a")
    a.play(GERMAN_GT1)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml"])
    chosen, face = _replayed_game(a, b, tmp_path)
    # without A's joins, A's 0001 cannot be replayed in b: refused before anything is revealed
    refused(1, "adjudicate", b / "0001.state.toml", chosen, "--key", key(tmp_path, "soviet"), says=("is not in the folder",))
    shutil.copy(a.folder / "0000-german.join.toml", b)  # with A's German join, 0001 of A replays in b
    shutil.copy(a.folder / "0000-soviet.join.toml", b / "0000-soviet-a.join.toml")  # and the Soviet's old one
    refused(3, "adjudicate", b / "0001.state.toml", chosen, "--key", key(tmp_path, "soviet"),
            says=("joins of soviet for this game, with different salts", "replayed"))
    assert not (b / "0002.state.toml").exists() and face in range(1, 7)


def test_creator_gets_a_party_to_join_twice_with_one_salt(duel: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the random salt repeat (a broken generator: here, forced), the Soviet's second join of
    a replayed state 0 would repeat his chain: once he has played it (his ledger knows), pbem join
    refuses (exit 3); before, the join written again is the same join, the same file."""
    salt = duel.state().data["parties"]["soviet"]["salt"]
    monkeypatch.setattr("pbem.exchange.game.new_salt", lambda: salt)
    accepted("join", duel.folder / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"),
             "-o", duel.folder.parent / "again.join.toml")
    again = read_toml(duel.folder.parent / "again.join.toml")["dice"]
    assert again["commit"] == read_toml(duel.folder / "0000-soviet.join.toml")["dice"]["commit"]  # the same chain
    record_reveal(duel.keys["soviet"], load_state(duel.folder / "0000.state.toml").digest, str(salt), 0,
                  load_state(duel.folder / "0001.state.toml").digest)
    refused(3, "join", duel.folder / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"),
            "-o", duel.folder / "0000-soviet-again.join.toml", says=("you joined and played", "replay"))


def test_creator_copies_the_other_partys_commitment_into_his_join(tmp_path: Path) -> None:
    """The creator joins with the Soviet's salt and commitment copied into his own join (to share the
    Soviet's secrets' fate): two parties with one commitment, exit 3."""
    a = start_game(tmp_path / "a")
    keys_to_files(a.keys, tmp_path)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml", "0000-soviet.join.toml", "0000-german.join.toml"])
    soviet = read_toml(b / "0000-soviet.join.toml")
    rewrite(b / "0000-german.join.toml", lambda d: d.__setitem__("dice", dict(soviet["dice"])), "german", a.keys["german"])
    refused(3, "adjudicate", b / "0000.state.toml", b / "0000-german.join.toml", b / "0000-soviet.join.toml",
            "--key", key(tmp_path, "german"), says=("same dice commitment",))


def test_creator_records_another_salt_for_the_joiner(duel: Game) -> None:
    """The creator writes state 0001 with another salt for the Soviet than his join's: verify replays
    the joins, exit 1."""
    rewrite(duel.folder / "0001.state.toml", lambda d: d["parties"]["soviet"].__setitem__("salt", "ab" * 16), "german",
            duel.keys["german"])
    refused(1, "verify", duel.folder, "--quiet", says=("parties.soviet.salt",))


def test_creator_gets_a_party_to_join_a_state_0_that_pbem_new_would_not(duel: Game, tmp_path: Path) -> None:
    """The creator gives himself an extra VP in state 0 and sends it to the Soviet to join: pbem join
    re-derives state 0 and refuses it (exit 1); no join is written."""
    folder = copy_folder(duel.folder, tmp_path / "fresh", ["0000.state.toml"])
    rewrite(folder / "0000.state.toml", lambda d: d["position"].__setitem__("vp", 5), "german", duel.keys["german"])
    refused(1, "join", folder / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"),
            says=("is not the state 0", "position.vp"))
    assert not (folder / "0000-soviet.join.toml").exists()


def test_creator_replays_state_0_to_frame_the_joiner_as_equivocating(tmp_path: Path) -> None:
    """The German replays game A's state 0 as game B's; the Soviet joins B with pbem join. The German
    then shows the two joins as the Soviet's equivocation: verify must not blame the Soviet."""
    a = start_game(tmp_path / "a")
    keys_to_files(a.keys, tmp_path)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml"])
    accepted("join", b / "0000.state.toml", "--side", "soviet", "--key", key(tmp_path, "soviet"))
    r = pbem("verify", a.folder / "0000-soviet.join.toml", b / "0000-soviet.join.toml", "--quiet")
    assert "equivocation: 'soviet'" not in r.output, r.output


def test_creator_replays_state_0_and_slips_the_victims_old_join_into_his_folder(tmp_path: Path) -> None:
    """As above, but the Soviet's old join of game A (and the German's) is in the Soviet's folder too,
    under another name: pbem adjudicate must refuse a folder holding two joins of the Soviet for one
    first state (exit 3), not reveal the secret of the old one."""
    a = start_game(tmp_path / "a")
    a.play(GERMAN_GT1)
    b = copy_folder(a.folder, tmp_path / "b", ["0000.state.toml"])
    chosen, face = _replayed_game(a, b, tmp_path)
    shutil.copy(a.folder / "0000-soviet.join.toml", b / "0000-soviet-a.join.toml")
    shutil.copy(a.folder / "0000-german.join.toml", b / "0000-german.join.toml")
    r = pbem("adjudicate", b / "0001.state.toml", chosen, "--key", key(tmp_path, "soviet"))
    if r.exit_code == 0:
        assert read_toml(b / "0002.state.toml")["transition"]["dice"][0]["face"] == face, "the German knew the die"
    assert r.exit_code == 3, r.output
    assert "join" in r.output


# ===============================================================================================
# A third party who carries the mail (or the opponent, using a key of his own)
# ===============================================================================================


def _flip_padding_bits(text: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = text.rstrip("=")
    last = alphabet.index(body[-1])
    return body[:-1] + alphabet[last ^ 1] + text[len(body):]


@pytest.mark.parametrize(
    ("what", "respell", "says"),
    [
        ("non-zero padding bits", _flip_padding_bits, "canonical base64"),
        ("no padding", lambda t: t.rstrip("="), "not readable"),
        ("the URL-safe alphabet", lambda t: t.replace("+", "-").replace("/", "_") if ("+" in t or "/" in t) else t[:-3] + "-==", "not readable"),
        ("a space inside", lambda t: t[:40] + " " + t[40:], "not readable"),
        ("a line break inside", lambda t: t[:40] + "\n" + t[40:], "not readable"),
        ("S + L", lambda t: base64.b64encode(base64.b64decode(t)[:32] + (int.from_bytes(base64.b64decode(t)[32:], "little") + L)
                                            .to_bytes(32, "little")).decode(), "does not match"),
    ],
)
def test_mail_respells_a_seals_signature(fought: Game, what: str, respell: Any, says: str) -> None:
    """The carrier re-spells the signature of the German's orders (so that its digest, and the state
    that records it, change): exit 3."""
    p = fought.folder / "0001-german.orders.toml"
    d = read_toml(p)
    d["seal"]["signature"] = respell(d["seal"]["signature"])
    write(p, d)
    refused(3, "verify", fought.folder, "--quiet", says=(says,))


@pytest.mark.parametrize(
    ("what", "raw"),
    [
        ("the identity", (1).to_bytes(32, "little")),
        ("a point of order 4", bytes(32)),
        ("a non-canonical encoding (y >= p)", (P + 1).to_bytes(32, "little")),
        ("a point with a small-order component", _encode(_add(_mul(12345, BASE), (SQRT_M1, 0)))),
    ],
)
def test_mail_seals_with_a_weak_key(fought: Game, what: str, raw: bytes) -> None:
    """The carrier seals orders with a weak public key (one signature for many messages): exit 3."""
    p = fought.folder / "0001-german.orders.toml"
    d = read_toml(p)
    d["seal"]["key"] = key_text(raw)
    write(p, d)
    refused(3, "check", fought.folder / "0001.state.toml", p, says=("weak",))


def test_mail_respells_a_key_with_other_padding_bits(fought: Game) -> None:
    """The carrier writes the seal's key with non-zero padding bits (the same 32 bytes): exit 3."""
    p = fought.folder / "0001-german.orders.toml"
    d = read_toml(p)
    d["seal"]["key"] = _flip_padding_bits(d["seal"]["key"])
    write(p, d)
    refused(3, "verify", fought.folder, "--quiet", says=("canonical base64",))


def test_mail_swaps_the_signer_of_a_state(fought: Game) -> None:
    """The carrier names another signer in state 0002's seal (the signer is outside the signature;
    a new signer would make a new digest): exit 3."""
    p = fought.folder / "0002.state.toml"
    d = read_toml(p)
    d["seal"]["signer"] = "german"
    write(p, d)
    refused(3, "status", p, says=("sealed by key",))
    refused(3, "verify", fought.folder, "--quiet")


def test_mail_changes_a_value_of_a_sealed_state_into_a_malformed_one(fought: Game) -> None:
    """The carrier changes state 0002's sequence to -1 (not even schema-valid): the seal is checked
    first, exit 3."""
    p = fought.folder / "0002.state.toml"
    d = read_toml(p)
    d["pbem"]["sequence"] = -1
    write(p, d)
    refused(3, "verify", fought.folder, "--quiet", says=("signature does not match",))
    refused(3, "audit", p, says=("signature does not match",))


def test_mail_strips_a_states_seal_and_changes_a_value(fought: Game) -> None:
    """The carrier removes state 0002's seal and sets its sequence to -1: a state without its seal is
    tampering whatever else is wrong with it, exit 3."""
    p = fought.folder / "0002.state.toml"
    d = unsealed(read_toml(p))
    d["pbem"]["sequence"] = -1
    write(p, d)
    refused(3, "status", p, says=("no seal",))


def test_mail_strips_a_states_seal(fought: Game) -> None:
    """The carrier removes state 0002's seal: exit 3."""
    p = fought.folder / "0002.state.toml"
    write(p, unsealed(read_toml(p)))
    refused(3, "verify", fought.folder, "--quiet", says=("no seal",))


def test_mail_adds_a_byte_order_mark(fought: Game) -> None:
    """The carrier adds a BOM to the orders: not valid TOML, exit 2."""
    p = fought.folder / "0001-german.orders.toml"
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    refused(2, "check", fought.folder / "0001.state.toml", p, says=("not valid TOML",))


def test_mail_appends_a_state_sealed_with_his_own_key(fought: Game) -> None:
    """The carrier appends a state 0003 that records his own key for the adjudicator and is sealed
    with it: exit 3."""
    mallory = KeyPair.from_seed(b"mallory")
    d = read_toml(fought.folder / "0002.state.toml")
    d["pbem"]["sequence"], d["pbem"]["previous"] = 3, digest(d)
    d["parties"]["german"]["key"] = mallory.public_text
    write(fought.folder / "0003.state.toml", seal(unsealed(d), "german", mallory))
    refused(3, "verify", fought.folder, "--quiet", says=("key of 'german' changed",))


def test_mail_mixes_in_a_state_of_another_game(fought: Game, tmp_path: Path) -> None:
    """The carrier puts a state of another game into the folder: exit 3."""
    other = start_game(tmp_path / "other", game_id="pm-other")
    shutil.copy(other.folder / "0001.state.toml", fought.folder / "0009-other.state.toml")
    refused(3, "verify", fought.folder, "--quiet", says=("different games",))


def test_mail_sends_an_invented_history_that_starts_later(fought: Game, tmp_path: Path) -> None:
    """The carrier sends a history from state 0002 on, without its start: not ok (exit 1) unless the
    player names a state he holds with --from; --from a digest that is not there is exit 1, a
    malformed one exit 2."""
    later = copy_folder(fought.folder, tmp_path / "later", ["0002.state.toml"])
    refused(1, "verify", later, "--quiet", says=("not at the game's first state",))
    refused(1, "verify", later, "--quiet", "--from", fake_digest(1), says=("no state among the files",))
    refused(2, "verify", later, "--quiet", "--from", "sha256:" + "A" * 64, says=("64 lower-case hex digits",))
    r = accepted("verify", later, "--quiet", "--from", load_state(later / "0002.state.toml").digest)
    assert "named with --from" in r.output, "the output says what the history is trusted from"


def test_mail_sends_a_state_numbered_near_the_end_of_64_bits(fought: Game) -> None:
    """The carrier adds a state numbered 2**63 - 1 (sealed with a key of his own): verify reports the
    gap at once, exit 1, without walking it."""
    mallory = KeyPair.from_seed(b"mallory")
    d = unsealed(read_toml(fought.folder / "0002.state.toml"))
    d["pbem"]["sequence"] = 2**63 - 1
    d["parties"]["soviet"]["key"] = mallory.public_text
    write(fought.folder / "9999.state.toml", seal(d, "soviet", mallory))
    refused(1, "verify", fought.folder, "--quiet", says=("states missing from the chain: sequence 3-9223372036854775806",))


def test_mail_has_the_player_verify_views_from_a_digest_he_does_not_hold(refereed: Refereed, tmp_path: Path) -> None:
    """The player verifies his views --from the digest of a state he holds; the views given show
    another one: exit 1, as for states."""
    mine = soviet_views(refereed, tmp_path / "soviet")
    refused(1, "verify", mine, "--quiet", "--from", fake_digest(3), says=("the views start at", "a view you hold (--from DIGEST)"))


def test_mail_puts_a_huge_integer_into_a_file(fought: Game) -> None:
    """The carrier adds a file with a 5000-digit integer to the game folder: exit 2, a malformed file."""
    (fought.folder / "0009-german.orders.toml").write_text("[pbem]\nformat = " + "9" * 5000 + "\n", encoding="utf-8")
    refused(2, "verify", fought.folder, "--quiet", says=("0009-german.orders.toml",))


def test_mail_puts_a_deeply_nested_file_into_the_folder(fought: Game) -> None:
    """The carrier adds a file nested thousands of levels deep: exit 2."""
    (fought.folder / "0009-german.orders.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    refused(2, "verify", fought.folder, "--quiet", says=("nested too deeply",))


def _forged_state_1(duel: Game, mail: Path) -> tuple[Path, Path]:
    """A state 0001 that records the carrier's own key for the Soviet, is sealed with it and sets the
    German's index to 1, in folder ``mail``; and the German's orders for it, not yet sealed."""
    mallory = KeyPair.from_seed(b"mallory")
    d = unsealed(read_toml(duel.folder / "0001.state.toml"))
    d["parties"]["german"]["index"] = 1
    d["parties"]["soviet"]["key"] = mallory.public_text
    forged = seal(d, "soviet", mallory)
    write(mail / "0001.state.toml", forged)
    orders = mail / "0001-german.orders.toml"
    orders.write_text(order_text(forged, "german", GERMAN_GT1), encoding="utf-8")
    return mail / "0001.state.toml", orders


def test_mail_forges_a_state_that_makes_pbem_sign_reveal_a_secret_ahead_of_its_turn(duel: Game, tmp_path: Path) -> None:
    """The opponent (or the carrier) sends the German a forged state 0001 (the Soviet's key his own,
    the German's index 1) so that pbem sign reveals the German's secret number 1 ahead of its turn.
    Alone, it has no history to check (exit 2); in a folder with the game's first state and joins,
    it is not sealed by the creator (exit 3). Nothing is revealed."""
    mail = tmp_path / "mail"
    mail.mkdir()
    state, orders = _forged_state_1(duel, mail)
    refused(2, "sign", orders, "--key", key(tmp_path, "german"), "--state", state, says=("0000.state.toml is not there",))
    assert "dice" not in read_toml(orders)
    folder = copy_folder(duel.folder, tmp_path / "folder", START)
    state, orders = _forged_state_1(duel, folder)
    refused(3, "sign", orders, "--key", key(tmp_path, "german"), "--state", state, says=("sealed by 'soviet', but 'german' adjudicates",))
    assert read_toml(orders).get("dice", {}).get("reveal") != duel.secret("german", 1)


def test_mail_forges_a_state_that_makes_pbem_adjudicate_reveal_the_adjudicators_secret(duel: Game, tmp_path: Path) -> None:
    """The Soviet's folder holds state 0000 and both joins; he receives a state 0001 whose German key
    is a second key of the German's (state and orders sealed and attested with it, the German's real
    reveal in the orders). His pbem adjudicate refuses the state: its keys are not the game's
    (exit 3); he reveals nothing."""
    second = KeyPair.from_seed(b"the German's second key")
    soviet = copy_folder(duel.folder, tmp_path / "soviet", START)
    d = unsealed(read_toml(duel.folder / "0001.state.toml"))
    d["parties"]["german"]["key"] = second.public_text
    forged = seal(d, "german", second)
    write(soviet / "0001.state.toml", forged)
    orders = soviet / "0001-german.orders.toml"
    orders.write_text(order_text(forged, "german", ""), encoding="utf-8")
    o = read_toml(orders)
    o["dice"] = {"reveal": duel.secret("german", 0), "commit": proto.commitment(duel.secret("german", 1))}
    o["dice"]["attest"] = proto.attest(second, o["pbem"], o["dice"])
    write(orders, seal(o, "german", second))
    refused(3, "adjudicate", soviet / "0001.state.toml", orders, "--key", key(tmp_path, "soviet"),
            says=("the parties' keys are not the game's",))
    assert not (soviet / "0002.state.toml").exists(), "the Soviet revealed his secret 0 for a forged state"


def test_mail_sends_orders_of_another_game(fought: Game, tmp_path: Path) -> None:
    """The carrier sends orders of another game (same keys) as this game's: exit 3."""
    other = start_game(tmp_path / "other", game_id="pm-other")
    p = other.write_orders(GERMAN_GT1)
    refused(3, "check", fought.folder / "0001.state.toml", p, says=("belongs to game 'pm-other'",))


def test_mail_sends_a_join_of_another_game(duel: Game, tmp_path: Path) -> None:
    """The carrier gives the creator the Soviet's join of another game with the same keys and game id
    (another option): it answers another state 0, exit 3."""
    other = start_game(tmp_path / "other", options={"fog_of_war": True})
    fresh = copy_folder(duel.folder, tmp_path / "fresh", ["0000.state.toml", "0000-german.join.toml"])
    refused(3, "adjudicate", fresh / "0000.state.toml", fresh / "0000-german.join.toml", other.folder / "0000-soviet.join.toml",
            "--key", key(tmp_path, "german"), says=("answers state",))


def _forge_state_1(d: dict[str, Any]) -> dict[str, Any]:
    mallory = KeyPair.from_seed(b"mallory")
    d = unsealed(d)
    d["parties"]["german"]["key"] = mallory.public_text
    return seal(d, "german", mallory)


@pytest.mark.parametrize(
    ("what", "tamper", "code", "says"),
    [
        ("no state 0000", lambda f: (f / "0000.state.toml").unlink(), 2, ("0000.state.toml is not there",)),
        ("no join of the German", lambda f: (f / "0000-german.join.toml").unlink(), 3, ("is not the one of german's join",)),
        ("no state 0001", lambda f: (f / "0001.state.toml").unlink(), 2, ("states 0001 are not in the folder",)),
        ("a forged state 0001", lambda f: write(f / "0001.state.toml", _forge_state_1(read_toml(f / "0001.state.toml"))), 3,
         ("0001.state.toml: the parties' keys are not the game's",)),
        ("another game's state 0000", lambda f: shutil.copy(f.parent / "other" / "game" / "0000.state.toml", f / "0000.state.toml"), 3,
         ("its previous-state digest is not that of", "the chain is broken")),
    ],
)
def test_mail_leaves_the_adjudicators_folder_without_the_history_of_the_state(fought: Game, tmp_path: Path, what: str, tamper: Any,
                                                                               code: int, says: tuple[str, ...]) -> None:
    """The German is to adjudicate the Soviet's orders for state 0002 (revealing his secret) in a
    folder from which the carrier took, or in which he replaced, a file of the history: pbem
    adjudicate does not reveal anything for a state whose history it cannot check."""
    orders = fought.write_orders(SOVIET_STANDING)
    start_game(tmp_path / "other" / "game", game_id="pm-other")
    tamper(fought.folder)
    refused(code, "adjudicate", fought.folder / "0002.state.toml", orders, "--key", key(tmp_path, "german"), says=says)
    assert not (fought.folder / "0003.state.toml").exists()


def test_mail_sends_a_view_as_the_state_of_a_two_player_game(duel: Game, tmp_path: Path) -> None:
    """The carrier sends the German a 'view' of state 0001 (the German's index 1), sealed by a
    'referee' with a key of his own, for pbem sign; and gives it to pbem adjudicate: a two-player
    game has no referee (exit 3), and a view is never adjudicated (exit 2)."""
    mallory = KeyPair.from_seed(b"mallory")
    st = read_toml(duel.folder / "0001.state.toml")
    body = view_body(st, "german")
    body["parties"]["german"]["index"] = 1
    fake = duel.folder / "0001-german.view.toml"
    write(fake, seal(body, "referee", mallory))
    orders = duel.folder / "0001-german.orders.toml"
    orders.write_text(order_text(st, "german", GERMAN_GT1), encoding="utf-8")
    refused(3, "sign", orders, "--key", key(tmp_path, "german"), "--state", fake,
            says=("a view is a refereed game's, and this one names no referee",))
    assert "dice" not in read_toml(orders)
    refused(2, "adjudicate", fake, orders, "--key", key(tmp_path, "soviet"), says=("not a state", "A view cannot be adjudicated"))


def test_mail_links_a_game_file_to_dev_zero(fought: Game, tmp_path: Path) -> None:
    """The opponent adds to the game folder (a push to a shared git repository) a symbolic link
    0009-german.orders.toml -> /dev/zero. The German's pbem adjudicate must skip or refuse it
    cleanly, not read it."""
    import resource
    import subprocess
    import sys

    orders = fought.write_orders(SOVIET_STANDING)
    (fought.folder / "0009-german.orders.toml").symlink_to("/dev/zero")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    r = subprocess.run([sys.executable, "-m", "pbem", "adjudicate", str(fought.folder / "0002.state.toml"), str(orders),
                        "--key", str(key(tmp_path, "german"))], capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert r.returncode in (0, 2) and "internal error" not in r.stderr, r.stderr
    assert r.returncode == 0 or "0009-german.orders.toml" in r.stderr, r.stderr


def test_mail_strips_the_signature_from_a_states_seal(fought: Game) -> None:
    """The carrier deletes seal.signature from state 0002 (keeping signer and key) and changes its
    VP: tampering, exit 3."""
    p = fought.folder / "0002.state.toml"
    d = read_toml(p)
    del d["seal"]["signature"]
    d["position"]["vp"] += 1
    write(p, d)
    refused(3, "status", p, says=("is not a whole seal",))


def test_mail_brings_a_view_1_whose_commitment_no_join_attests(refereed: Refereed, tmp_path: Path) -> None:
    """The referee (or a carrier holding a copy of his seal) mails the Soviet, whose folder holds the
    game's first state and his join, a view 0001 recording another commitment for the German than
    the German's join: pbem mail read must refuse it (exit 3) and write nothing."""
    g = refereed
    mine = tmp_path / "soviet"
    mine.mkdir()
    for name in PLAYER_START:
        shutil.copy(g.folder / name, mine / name)
    v = read_toml(g.folder / "0001-soviet.view.toml")
    v["parties"]["german"]["commit"] = proto.commitment("ab" * 32)
    eml = save(tmp_path, "view1.eml", message(("0001-soviet.view.toml", dumps(resealed(v, "referee", g.keys["referee"])))))
    refused(3, "mail", "read", eml, "--folder", mine, says=("german's commitment in the view is not the one german attested",))
    assert not (mine / "0001-soviet.view.toml").exists()


def test_mail_adds_an_unsealed_join_to_the_folder(duel: Game, tmp_path: Path) -> None:
    """The opponent adds to the game folder a join of the Soviet's, unsealed and without dice: the
    Soviet's pbem adjudicate must ignore it or refuse it cleanly."""
    orders = duel.write_orders(GERMAN_GT1)
    j = read_toml(duel.folder / "0000-soviet.join.toml")
    del j["dice"], j["seal"]
    write(duel.folder / "0000-soviet-x.join.toml", j)
    r = pbem("adjudicate", duel.folder / "0001.state.toml", orders, "--key", key(tmp_path, "soviet"))
    assert "internal error" not in r.output, r.output
    assert r.exit_code == 0 or "0000-soviet-x.join.toml" in r.output, r.output
