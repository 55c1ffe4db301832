"""Hidden values without a referee (docs/protocol.md, "Hidden values without a referee").

A side commits to what the rules keep hidden in a signed file; the opponent adjudicates in the
open what can be adjudicated and records claims; the owner opens the value when the rules reveal
it, and the game module checks the value against every claim. For party P (key K, join salt S) in
the game whose first state has digest O, version v of item ID::

    salt   = HMAC-SHA-256(K, "pbem/hidden-salt/v1" 0x00 | O | S | ID 0x00 | v (8 bytes) | SHA-256(canonical value))[:16]
    commit = "sha256:" + SHA-256(canonical {"kind": "pbem-hidden-1", "origin": O, "owner": P,
                                            "id": ID, "version": v, "salt": hex(salt), "value": value})
    box    = ChaCha20-Poly1305(key = HMAC-SHA-256(K, "pbem/hidden-box/v1" 0x00 | commit),
                               nonce = 12 zero bytes, aad = commit)(canonical value, padded with spaces
                                                                     to a multiple of 256 bytes)

Nobody without K can compute the salt, so a value from a small set cannot be found by hashing each
candidate; only the owner can open the box, and so recovers every value of his from the folder.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from pbem.engine.model import Event
from pbem.errors import IllegalOrdersError, MalformedFileError, TamperError, VerificationError

from . import names
from .canonical import canonical
from .dice import is_digest, is_salt
from .keys import KeyPair

SALT_TAG = b"pbem/hidden-salt/v1\x00"
BOX_TAG = b"pbem/hidden-box/v1\x00"
KIND = "pbem-hidden-1"
ITEM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
NONCE = bytes(12)


def is_item_id(text: object) -> bool:
    return isinstance(text, str) and ITEM_ID.fullmatch(text) is not None


def item_salt(key: KeyPair, origin: str, join_salt: str, item: str, version: int, value: Any) -> str:
    """The salt of ``value`` as version ``version`` of ``item``: only the owner's key makes it, and
    each value its own, so that opening one value says nothing of another committed for the same
    item and version (a file refused, or replaced before it was adjudicated)."""
    if not is_digest(origin) or not is_salt(join_salt) or not is_item_id(item) or not 0 <= version < 2**63:
        raise ValueError("origin, join salt, item id or version not in their one spelling")
    msg = (SALT_TAG + bytes.fromhex(origin[7:]) + bytes.fromhex(join_salt) + item.encode("ascii") + b"\x00"
           + version.to_bytes(8, "big") + hashlib.sha256(canonical(value)).digest())
    return key.prf(msg)[:16].hex()


def commitment(origin: str, owner: str, item: str, version: int, salt: str, value: Any) -> str:
    """The commitment to a value: binds the game, the owner, the item and its version."""
    material = {"kind": KIND, "origin": origin, "owner": owner, "id": item, "version": version, "salt": salt, "value": value}
    return "sha256:" + hashlib.sha256(canonical(material)).hexdigest()


def _box_key(key: KeyPair, commit: str) -> bytes:
    return key.prf(BOX_TAG + commit.encode("ascii"))


MAX_VERSIONS = 200  # hidden versions a side holds at once (each is copied into every state until opened)
PAD = 256  # a box holds its value padded to a multiple of this many bytes: its size tells nothing of short values
MAX_VALUE_BYTES = 4096  # the canonical JSON of one hidden value at most
MAX_BOX_CHARS = 4 * ((MAX_VALUE_BYTES + 16 + 2) // 3)  # its box: the padded value and the tag, in base64


def _padded(value: Any, pad: int = PAD) -> bytes:
    text = canonical(value)
    if len(text) > MAX_VALUE_BYTES:
        raise ValueError(f"a hidden value is at most {MAX_VALUE_BYTES} bytes as canonical JSON")
    return text + b" " * (-len(text) % pad)


def pad_of(module: Any, item: str) -> int:
    """The size a box of ``item`` is padded to a multiple of: the game module's ``hidden_pad(item)``
    where a value's size could tell something of it (a list of any length), else PAD."""
    fn = getattr(module, "hidden_pad", None)
    pad = int(fn(item)) if fn is not None else PAD
    return min(max(pad, PAD), MAX_VALUE_BYTES)


def seal_value(key: KeyPair, origin: str, join_salt: str, owner: str, item: str, version: int, value: Any,
               pad: int = PAD) -> dict[str, str]:
    """The ``{commit, box}`` that stands in a signed file for ``value`` (its box padded to a
    multiple of ``pad`` bytes, so that its size tells nothing of the value)."""
    salt = item_salt(key, origin, join_salt, item, version, value)
    commit = commitment(origin, owner, item, version, salt, value)
    box = ChaCha20Poly1305(_box_key(key, commit)).encrypt(NONCE, _padded(value, pad), commit.encode("ascii"))
    return {"commit": commit, "box": base64.b64encode(box).decode("ascii")}


def open_box(key: KeyPair, commit: str, box: str) -> Any:
    """The value in a box the key sealed; ValueError if the key did not seal it."""
    try:
        raw = base64.b64decode(box, validate=True)
        plain = ChaCha20Poly1305(_box_key(key, commit)).decrypt(NONCE, raw, commit.encode("ascii"))
        return json.loads(plain.decode("utf-8"))
    except (InvalidTag, ValueError) as e:
        raise ValueError("the box was not sealed by this key") from e


def opening(key: KeyPair, origin: str, join_salt: str, owner: str, item: str, version: int,
            entry: Mapping[str, Any]) -> dict[str, Any]:
    """The opening (value and salt) of one committed version, recovered from its box and checked
    against its commitment: a box filed under another item, version, owner or game opens nothing
    (ValueError)."""
    value = open_box(key, str(entry["commit"]), str(entry["box"]))
    out = {"value": value, "salt": item_salt(key, origin, join_salt, item, version, value)}
    if not opening_matches(origin, owner, item, version, out, str(entry["commit"])):
        raise ValueError(f"the box filed as version {version} of {owner}'s item '{item}' is not that version's")
    return out


def opening_matches(origin: str, owner: str, item: str, version: int, opened: Mapping[str, Any], commit: str) -> bool:
    """An opening's salt is in its one spelling and, with its value, makes the commitment."""
    salt = opened.get("salt")
    return is_salt(salt) and "value" in opened and commitment(origin, owner, item, version, str(salt), opened["value"]) == commit


def is_box(text: object) -> bool:
    """A box is canonical base64 (one spelling), of at least the 16 bytes of its tag."""
    if not isinstance(text, str) or len(text) > MAX_BOX_CHARS:
        return False
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return False
    return len(raw) >= 16 and base64.b64encode(raw).decode("ascii") == text


def is_sealed_entry(entry: object) -> bool:
    """A ``[hidden.ID]`` entry of a signed file: exactly a commitment and a box, each in its one spelling."""
    return isinstance(entry, dict) and set(entry) == {"commit", "box"} and is_digest(entry["commit"]) and is_box(entry["box"])


def versions_of(state: Mapping[str, Any], owner: str, item: str) -> list[dict[str, Any]]:
    return list(state.get("hidden", {}).get(owner, {}).get(item, {}).get("versions", []))


def openings_for(state: Mapping[str, Any], side: str, key: KeyPair, origin: str, join_salt: str) -> dict[str, list[dict[str, Any]]]:
    """The openings the state's awaited step asks of ``side`` (``awaits.open``), from the boxes."""
    out: dict[str, list[dict[str, Any]]] = {}
    for item in state["awaits"].get("open", {}).get(side, []):
        out[item] = [opening(key, origin, join_salt, side, item, v, e) for v, e in enumerate(versions_of(state, side, item))]
    return out


def add_claim(state: dict[str, Any], owner: str, item: str, claim: Mapping[str, Any]) -> None:
    """A game module records a public fact the hidden value of ``item`` must explain (on its
    current version), stamped with the sequence number of the state that records it (``at``):
    checked when the item is opened."""
    versions = state["hidden"][owner][item]["versions"]
    versions[-1]["claims"].append({**copy.deepcopy(dict(claim)), "at": int(state["pbem"]["sequence"]) + 1})


def claims_only_added(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A game module's transition may append claims to hidden items, nothing else."""
    if set(before) != set(after):
        return False
    for owner, items in before.items():
        if set(items) != set(after[owner]):
            return False
        for item, rec in items.items():
            a, b = rec["versions"], after[owner][item]["versions"]
            if len(a) != len(b):
                return False
            for x, y in zip(a, b, strict=True):
                if {k: v for k, v in x.items() if k != "claims"} != {k: v for k, v in y.items() if k != "claims"}:
                    return False
                if y["claims"][:len(x["claims"])] != x["claims"]:
                    return False
    return True


# --- a step of a game with hidden values (next_state, shared by adjudicate and verify) -----------

def _state_file(seq: int) -> str:
    return names.state(seq)


def hidden_step(prev: Any, module: Any, subs: list[Any], adj_openings: Mapping[str, Any] | None,
                names: Mapping[str, str], origin: str,
                value_problems: Callable[[str, dict[str, Any], str], list[Any]],
                adj_hidden: str | None = None) -> tuple[dict[str, Any], list[Event], dict[str, Any]]:
    """Before the game module resolves a step: check and record the openings the step asks for
    (each against its commitment, then the game module's check against the claims), then record the
    new commitments of each file. Returns the state's ``hidden`` and ``opened`` tables (empty ones
    left out), an ``opened`` event per item, and the openings of the adjudicator itself."""
    s = prev.data
    seq = int(s["pbem"]["sequence"]) + 1
    hidden: dict[str, Any] = copy.deepcopy(s.get("hidden", {}))
    opened: dict[str, Any] = copy.deepcopy(s.get("opened", {}))
    asked: Mapping[str, list[str]] = s["awaits"].get("open", {})
    adj = str(s["awaits"]["adjudicator"])
    pending: dict[str, Any] = copy.deepcopy(s.get("draws", {}))
    events: list[Event] = []
    self_opened: dict[str, Any] = {}

    def do_open(side: str, given: Mapping[str, Any], where: str) -> None:
        want = sorted(asked.get(side, []))
        if sorted(given) != want:
            raise IllegalOrdersError(f"{where}: opens {', '.join(sorted(given)) or 'nothing'}, but the step asks {side} to open "
                                     f"{', '.join(want) or 'nothing'} (docs/protocol.md, Hidden values)",
                                     hint="`pbem sign` writes the openings the step asks for.")
        for item in want:
            versions = hidden.get(side, {}).get(item, {}).get("versions", [])
            vals = given[item]
            if not isinstance(vals, list) or len(vals) != len(versions):
                raise TamperError(f"{where}: open.{item} gives {len(vals) if isinstance(vals, list) else 'no'} version(s) of "
                                  f"{side}'s hidden item '{item}', which has {len(versions)}")
            for v, (o, rec) in enumerate(zip(vals, versions, strict=True)):
                if not isinstance(o, Mapping) or not opening_matches(origin, side, item, v, o, str(rec["commit"])):
                    raise TamperError(f"{where}: the opening of {side}'s hidden item '{item}' (version {v}) does not match "
                                      f"its commitment in {_state_file(int(rec['since']))}",
                                      hint="Keep both files: they prove that the side opened another value than it committed to.")
            values = [o["value"] for o in vals]
            wrong = [p for v in values for p in value_problems(str(s["pbem"]["module"]), {item: v}, where)]
            if wrong:
                raise TamperError(f"{where}: {side}'s hidden item '{item}' opens as {json.dumps(values)}, which the game does not allow "
                                  f"(committed in {_state_file(int(versions[0]['since']))})", wrong,
                                  hint="Keep the files named: the side committed to a value the rules do not have.")
            check = getattr(module, "check_opening", None)
            # the state as the item is opened: every item opened before it, in this step too (a rule about several items sees them all)
            problems = list(check({**s, "opened": opened}, side, item, values, versions)) if check is not None else []
            if problems:
                held = sorted({_state_file(int(rec["since"])) for rec in versions}
                              | {_state_file(int(c["at"])) for rec in versions for c in rec["claims"] if "at" in c})
                raise TamperError(f"{where}: {side}'s hidden item '{item}', opened as {json.dumps(values)}, contradicts what "
                                  f"the game recorded of it while hidden ({', '.join(held)})", problems,
                                  hint="Keep the files named: they prove the side played its hidden item against the rules.")
            del hidden[side][item]
            if not hidden[side]:
                del hidden[side]
            opened.setdefault(side, {})[item] = {"values": values, "at": seq}
            if any("draw" in rec for rec in versions):
                opened[side][item]["draws"] = [{"version": v, **rec["draw"]} for v, rec in enumerate(versions) if "draw" in rec]
            events.append(Event("opened", "hidden values", {"side": side, "item": item, "values": values}))

    senders = {x.side for x in subs}
    for x in subs:
        given = x.body.get("open", {})
        if given or x.side in asked:
            do_open(x.side, given, names.get(x.side, f"the {x.kind} file of {x.side}"))
    for side in sorted(asked):
        if side in senders:
            continue
        if side != adj:
            raise IllegalOrdersError(f"the step asks {side} to open hidden items, and {side} sent no file")
        given = dict(adj_openings or {})
        do_open(adj, given, f"{names.get('@state', f'the state {adj} seals')} (transition.openings of {adj})")
        self_opened[adj] = given
    commits = {str(v["commit"]) for items in hidden.values() for rec in items.values() for v in rec["versions"]}
    for x in subs:
        where = names.get(x.side, f"the {x.kind} file of {x.side}")
        if x.kind == "reveal" and x.body.get("hidden"):
            raise IllegalOrdersError(f"{where}: [hidden]: the last step opens what is hidden; it commits to nothing new")
        for item, entry in sorted(x.body.get("hidden", {}).items()):
            if not is_sealed_entry(entry):
                raise MalformedFileError(f"{where}: hidden.{item}: a signed file holds a commitment and a box for a hidden value, "
                                         "never the value", hint="Write the value in the draft and seal it with `pbem sign`.")
            if item in opened.get(x.side, {}):
                raise IllegalOrdersError(f"{where}: hidden.{item}: the item was opened in {_state_file(int(opened[x.side][item]['at']))} "
                                         "and stays public", hint="Give a new item a new id.")
            if entry["commit"] in commits:
                raise TamperError(f"{where}: hidden.{item} repeats a commitment already in the game",
                                  hint="A commitment is made from the side's key, the item and its version: a repeated one is copied.")
            commits.add(str(entry["commit"]))
            rec = hidden.setdefault(x.side, {}).setdefault(item, {"versions": []})
            rec["versions"].append({"commit": entry["commit"], "box": entry["box"], "since": seq, "claims": []})
            draw = next((r for r in pending.get(x.side, []) if r["item"] == item), None)
            if draw is not None:
                rec["versions"][-1]["draw"] = {k: draw[k] for k in ("request", "seed", "at")}
            elif _drawn(module, item) or any("draw" in v for v in rec["versions"][:-1]):
                raise IllegalOrdersError(f"{where}: hidden.{item}: the item is drawn, not chosen, and the game asks {x.side} "
                                         "for no draw of it now", hint="`pbem sign` makes the draws the game asks for.")
        owed = [r["item"] for r in pending.pop(x.side, []) if r["item"] not in x.body.get("hidden", {})]
        if owed:
            raise IllegalOrdersError(f"{where}: [hidden]: the game asked {x.side} to draw {', '.join(owed)}, and the file does not "
                                     "commit the draw", hint="`pbem sign` makes the draws the game asks for and commits them.")
        held = sum(len(r["versions"]) for r in hidden.get(x.side, {}).values())
        if held > MAX_VERSIONS:
            raise IllegalOrdersError(f"{where}: [hidden]: {x.side} would hold {held} hidden values at once; at most {MAX_VERSIONS}",
                                     hint="Every hidden value is copied into each state until it is opened.")
    if s["awaits"]["kind"] == "reveal":  # the last step: the hidden-dice secrets of the sides that drew
        pending = {}
        given = {x.side: x.body.get("dice", {}).get("hidden_reveal") for x in subs}
        for side in sorted(opened):
            if not any(rec.get("draws") for rec in opened[side].values()):
                continue
            if side in given:
                check_draws(module, s, opened, side, str(given[side]), names.get(side, f"the reveal file of {side}"))
            elif side == adj:
                check_draws(module, s, opened, side, str(adj_hidden), f"{names.get('@state', f'the state {adj} seals')} "
                            f"(transition.hidden_reveals of {adj})")
                self_opened["@hidden"] = str(adj_hidden)
            else:
                raise IllegalOrdersError(f"the last step needs {side}'s hidden-dice secret, and {side} sent no file")
    tables = {k: v for k, v in (("hidden", hidden), ("opened", opened), ("draws", pending)) if v}
    return tables, events, self_opened


def sides_that_drew(state: Mapping[str, Any]) -> set[str]:
    """The sides holding a value they drew, hidden or opened: the last step checks their draws."""
    out = {side for side, items in state.get("hidden", {}).items()
           if any("draw" in v for rec in items.values() for v in rec["versions"])}
    return out | {side for side, items in state.get("opened", {}).items() if any(rec.get("draws") for rec in items.values())}


def after_step(before: Mapping[str, Any], game: dict[str, Any], was_last: bool = False) -> dict[str, Any]:
    """After the game module resolved a step: it may only have added claims to hidden items; a game
    never ends with an item hidden (the last step, ``reveal``, opens them all); every item the next
    step asks to open exists, and is asked of a side that sends a file or adjudicates."""
    old = before.get("hidden", {})
    new = game.get("hidden", old)
    if not claims_only_added(old, new):
        raise VerificationError("the game module changed a hidden item in a transition (it may only add claims)")
    out = {k: v for k, v in game.items() if k not in ("hidden", "opened", "draws")}
    if new:
        out["hidden"] = new
    if before.get("opened"):
        out["opened"] = before["opened"]
    if game.get("draws"):
        out["draws"] = game["draws"]
    aw = dict(out["awaits"])
    drew = sides_that_drew(out)
    if aw["kind"] == "none" and (new or drew) and not was_last:  # the last step: every item opened, every draw made again
        nadj = str(aw["adjudicator"])
        aw = {"kind": "reveal", "step": "reveal", "from": [o for o in sorted(set(new) | drew) if o != nadj], "adjudicator": nadj,
              "open": {o: sorted(new[o]) for o in sorted(new)}}
        out["awaits"] = aw
    for side, items in aw.get("open", {}).items():
        if side not in aw["from"] and side != aw["adjudicator"]:
            raise VerificationError(f"the game asks {side} to open hidden items in a step {side} neither sends a file in nor adjudicates")
        missing = [i for i in items if i not in new.get(side, {})]
        if missing:
            raise VerificationError(f"the game asks {side} to open {', '.join(missing)}, which {side} does not hold hidden")
    return out


# --- hidden draws (docs/protocol.md, Hidden draws) ---------------------------------------------------

def request_draw(state: dict[str, Any], side: str, item: str, request: Mapping[str, Any]) -> None:
    """A game module asks ``side`` for a random draw only it may see (counters from a cup): its next
    file commits the result as the hidden item ``item``, made with ``module.draw(request, dice)``
    from the step's seed and the side's hidden-dice secret."""
    state.setdefault("draws", {}).setdefault(side, []).append({"item": item, "request": copy.deepcopy(dict(request))})


def draw_seed(secret_hex: str, seed_hex: str, item: str) -> bytes:
    """The seed of one hidden draw: the owner's hidden-dice secret (committed at its join), the seed
    of the step that asked for it (nobody could choose it) and the item."""
    return hashlib.sha256(canonical({"kind": "pbem-hidden-draw-1", "secret": secret_hex, "seed": seed_hex, "item": item})).digest()


def drawn_value(module: Any, secret_hex: str, side: str, entry: Mapping[str, Any]) -> Any:
    """The value a draw gives (the owner computes it to commit it; anyone, once the secret is
    revealed, to check it)."""
    from pbem.mechanics.dice import SeededDice

    dice = SeededDice(seed=draw_seed(secret_hex, str(entry["seed"]), str(entry["item"])))
    return module.draw(side, copy.deepcopy(entry["request"]), dice)


def _drawn(module: Any, item: str) -> bool:
    """Whether the game draws ``item`` (its values come from draws only, never a side's choice)."""
    drawn = getattr(module, "drawn", None)
    return bool(drawn(item)) if drawn is not None else False


def draws_after(before: Mapping[str, Any], game: dict[str, Any], seed_hex: str, seq: int,
                module: Any = None) -> dict[str, Any]:
    """The draws a game module asked for in a step, stamped with the step's seed; a module may only
    add requests, of sides that send the next step's file, and only if it has hidden draws."""
    old: Mapping[str, list[Any]] = before.get("draws", {})
    new: dict[str, list[Any]] = copy.deepcopy(game.get("draws", old))
    if any(new.values()) and module is not None and not getattr(module, "hidden_draws", False):
        raise VerificationError("the game module asks for a hidden draw, but its joins commit to no hidden-dice secret "
                                "(hidden_draws is off)", hint="The game module is wrong; report it.")
    for side, reqs in new.items():
        kept = list(old.get(side, []))
        if reqs[:len(kept)] != kept:
            raise VerificationError("the game module changed a draw it had asked for (it may only add requests)")
        for r in reqs[len(kept):]:
            if set(r) != {"item", "request"} or not is_item_id(r["item"]):
                raise VerificationError(f"the game module asked {side} for a draw without an item id and a request: {r}")
            r["seed"] = seed_hex
            r["at"] = seq
            if side not in game["awaits"]["from"]:
                raise VerificationError(f"the game module asks {side} for a hidden draw in a step {side} sends no file in")
    missing = [s for s in old if s not in new]
    if missing:
        raise VerificationError("the game module dropped a draw it had asked for")
    return {s: r for s, r in new.items() if r}


def check_draws(module: Any, s: Mapping[str, Any], opened: Mapping[str, Any], side: str, secret_hex: str,
                where: str) -> None:
    """At the last step: every value ``side`` drew (now opened) is what its revealed hidden-dice
    secret gives."""
    from .dice import commitment as secret_commitment
    from .dice import is_reveal

    want = s["parties"][side].get("hidden")
    if want is None:
        raise VerificationError(f"{side} drew hidden values in a game whose joins commit to no hidden-dice secret",
                                hint="The game module is wrong; report it.")
    if not is_reveal(secret_hex) or secret_commitment(secret_hex) != want:
        raise TamperError(f"{where}: {side}'s hidden-dice secret does not match the commitment of its join",
                          hint="Keep the files: the side's hidden draws cannot be checked.")
    for item, rec in sorted(opened.get(side, {}).items()):
        for d in rec.get("draws", []):
            v = int(d["version"])
            expected = drawn_value(module, secret_hex, side, {**d, "item": item})
            if canonical(expected) != canonical(rec["values"][v]):
                raise TamperError(f"{where}: {side} drew {json.dumps(expected)} for its hidden item '{item}' (asked in "
                                  f"{_state_file(int(d['at']))}), and committed {json.dumps(rec['values'][v])}",
                                  hint="Keep the files: the side committed another value than its draw gave.")
