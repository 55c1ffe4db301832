"""Game files around the pure engine: new, join, check, sign, adjudicate, verify, audit (docs/protocol.md).

Everything here reads or writes documents (dicts parsed from TOML) and checks seals, the hash
chain and the dice commitments; the rules are the engine's and the game module's.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import FILE_FORMAT
from pbem.engine.core import transition
from pbem.engine.model import Event, Submission
from pbem.engine.registry import find_module, sides_of
from pbem.errors import (
    IllegalOrdersError,
    MalformedFileError,
    PbemError,
    Problem,
    TamperError,
    UsageError,
    VerificationError,
)
from pbem.mechanics.dice import ALGORITHM, Dice, ForcedDice, SeededDice

from . import deadlines as timing
from . import dice as proto
from . import names
from .canonical import (
    canonical,
    check_seal,
    check_signed_values,
    digest,
    display_path,
    seal,
    unsealed,
)
from .files import MAX_FILE_BYTES, dumps, has_schema, read_toml, read_toml_memo, schema_problems, validate
from .hidden import (
    after_step,
    drawn_value,
    draws_after,
    hidden_step,
    is_sealed_entry,
    opening,
    openings_for,
    pad_of,
    seal_value,
    sides_that_drew,
    versions_of,
)
from .keys import KeyPair, key_id, public_key_from_text
from .report import render_report
from .views import make_views

if TYPE_CHECKING:
    from .contentcache import Memo

FORMAT = FILE_FORMAT


@dataclass
class Doc:
    """A parsed file: its path, data and digest. A document read from a file has the memo of the
    file's bytes (contentcache.py), which keeps its digest and the checks it passed."""

    path: Path
    data: dict[str, Any]
    memo: Memo | None = field(default=None, repr=False, compare=False)

    @property
    def digest(self) -> str:
        m = self.memo
        if m is None:
            return digest(self.data)
        if m.digest is None:
            m.record(digest=digest(self.data))
        return str(m.digest)

    @property
    def kind(self) -> str:
        return str(self.data.get("pbem", {}).get("kind", ""))


def load_doc(path: Path, schema: str | None = None) -> Doc:
    data, memo = read_toml_memo(path)
    return parse_doc(data, path, schema, memo)


KIND_NAMES = {"state": "a state", "view": "a side's view of a state", "orders": "an order file",
              "join": "a join file", "reply": "a reply file", "reveal": "a reveal file",
              "agree": "an agreement on the deadline"}
SUBMISSION_KINDS = names.SUBMISSIONS  # the files a side signs and sends
SCHEMA_KINDS = {"state": ("state",), "view": ("view",), "orders": SUBMISSION_KINDS}
SCHEMA_NAMES = {"state": "a state", "view": "a view", "orders": "an order, join, reply or reveal file"}


def _wrong_kind(path: Path, kind: str, schema: str) -> MalformedFileError:
    """A file of another kind than the command expects there (say, the orders given first): named
    as such, rather than as a list of every field the expected kind lacks."""
    hint = "Give the files in the order the command takes them (see its --help)."
    if kind == "view" and schema == "state":
        hint = ("A view cannot be adjudicated: in a refereed game the referee adjudicates from the full state; "
                "send him your orders.")
    return MalformedFileError(f"{path}: {KIND_NAMES[kind]} (kind \"{kind}\"), not {SCHEMA_NAMES[schema]}", hint=hint)


def parse_doc(data: dict[str, Any], path: Path, schema: str | None = None, memo: Memo | None = None) -> Doc:
    """Validate a parsed document (read from a file, or found in an e-mail): schema, no floats, a
    state's seal present. ``path`` names where it came from in messages.

    ``memo``: the memo of the bytes ``data`` was parsed from (contentcache.py). Bytes that passed
    every check before with this ``schema`` are not checked again, but for a state's or view's
    position against its game's data, unless it passed with the same data (by the game's data
    digest)."""
    kind = data.get("pbem", {}).get("kind") if isinstance(data.get("pbem"), dict) else None
    fmt = data.get("pbem", {}).get("format") if isinstance(data.get("pbem"), dict) else None
    if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt < FORMAT:
        raise MalformedFileError(
            f"{path}: file format {fmt}, written by an earlier pbem; this pbem reads format {FORMAT}",
            hint="Format 2 changed the dice protocol (docs/protocol.md): finish a game with the pbem that started it, "
                 "or start it again with this one.")
    if schema is None:
        schema = kind if kind in ("state", "view") else "orders"
    elif isinstance(kind, str) and kind in KIND_NAMES and kind not in SCHEMA_KINDS.get(schema, (kind,)):
        raise _wrong_kind(path, kind, schema)
    checked = f"doc:{schema}"
    if memo is not None and memo.has(checked):
        if schema in ("state", "view"):
            game = _game_tag(data)
            if game is None or not memo.has(game):
                _check_game(data, path)
                if game is not None:
                    memo.record(game)
        return Doc(path, data, memo)
    _seal_first(data, path, memo)
    problems = schema_problems(data, schema, str(path))
    names = [schema]
    if schema in ("state", "view", "orders"):  # the game's part, against the game's own schema (the game named by a string)
        try:
            body_schema = _body_schema(data, schema, path)
        except (MalformedFileError, KeyError, TypeError):
            body_schema = None
        if body_schema is not None:
            names.append(body_schema)
            problems += schema_problems(body_of(data, schema), body_schema, str(path))
            problems.sort(key=lambda p: p.where)
    # A state without its seal is a tampering failure (exit 3), not a malformed file, unless
    # something else is wrong with it too.
    if schema in ("state", "view") and "seal" not in data:  # whatever else is wrong: a state is signed
        raise TamperError(f"{path}: the {'view' if schema == 'view' else 'state'} has no seal",
                          hint="A state is sealed by the party that adjudicated it; ask for the signed file.")
    if problems and "seal" in data and any(_CHAIN_FIELD.fullmatch(p.where[len(str(path)) + 2:]) for p in problems):
        raise TamperError(f"{path}: a sealed file whose dice or chain fields are not in their one spelling "
                          f"({', '.join(p.where[len(str(path)) + 2:] for p in problems[:5])}): whoever sealed it re-spelled "
                          "a value that reaches a seed or a digest", problems,
                          hint="Do not accept it: a reveal, commitment, salt or digest has exactly one spelling (docs/protocol.md).")
    if problems:
        raise MalformedFileError(f"{path}: {len(problems)} schema violation(s) ({', '.join(n + '.schema.json' for n in names)})",
                                 problems, hint="Fix each field listed; `pbem template` writes a valid skeleton.")
    if len(names) == 1:
        _body_schema(data, schema, path)  # a game this pbem does not know: said so
    check_signed_values(data, str(path))
    if schema in ("state", "view"):
        _check_consistency(data, path)
    if memo is not None:
        game = _game_tag(data) if schema in ("state", "view") else None
        memo.record(checked)
        if game is not None:
            memo.record(game)
    return Doc(path, data, memo)


def _game_tag(data: dict[str, Any]) -> str | None:
    """The check of a state's position against its game's data, named with the digest of that data
    (a changed scenario is checked again); None where it cannot be named (the game cannot say)."""
    try:
        h = data["pbem"]
        module = find_module(str(h["module"]))
        return f"game:{module.name}:{module.data_digest(str(h['scenario']))}"
    except Exception:  # whatever it is, _check_game says it
        return None


ENVELOPE_KEYS = {"state": ("pbem", "parties", "awaits", "transition", "hidden", "opened", "draws", "deadlines", "seal"),
                 "view": ("pbem", "parties", "awaits", "transition", "deadlines", "seal"),
                 "orders": ("pbem", "dice", "hidden", "open", "agree", "seal")}


def body_of(data: dict[str, Any], schema: str) -> dict[str, Any]:
    """The game's part of a document: all but its envelope (docs/protocol.md)."""
    return {k: v for k, v in data.items() if k not in ENVELOPE_KEYS[schema]}


def _body_schema(data: dict[str, Any], schema: str, path: Path) -> str:
    """The game module's schema of the game's part of a state, view or order file."""
    try:
        module = find_module(str(data["pbem"]["module"]))
    except PbemError as e:
        raise MalformedFileError(f"{path}: {e.message}", hint=e.hint) from e
    return f"{module.schema_dir}/{schema}-body"


def order_header(state: dict[str, Any], side: str) -> list[str]:
    """The [pbem] table of an order or reply file answering ``state`` (or the full state a view
    shows), for ``side``: the lines `pbem template` starts a file with."""
    aw = state["awaits"]
    answers = state["pbem"].get("of") or digest(state)
    return ["[pbem]", f"format = {FORMAT}", f'kind = "{aw["kind"] if aw["kind"] in ("reply", "reveal") else "orders"}"',
            f'game = "{state["pbem"]["game"]}"', f'module = "{state["pbem"]["module"]}"', f'side = "{side}"',
            f'answers = "{answers}"', f'step = "{aw["step"]}"', f"dice_index = {state['parties'][side]['index']}", ""]


def hidden_value_problems(module_name: str, values: dict[str, Any], where: str) -> list[Problem]:
    """Hidden values against the game's schema of them (``SCHEMA_DIR/hidden``, by item id), when
    the game ships one: checked in a draft before the game's rules see them, and at their opening."""
    name = f"{find_module(module_name).schema_dir}/hidden"
    if not values or not has_schema(name):
        return []
    out = []
    for p in schema_problems(values, name, "@"):
        at = p.where[len("@: "):]
        out.append(Problem(f"{where}: hidden" + ("" if at == "(top level)" else f".{at}"), p.message, p.rule, p.hint))
    return out


def template_text(state: dict[str, Any], side: str) -> str:
    """`pbem template`: the skeleton of the file the awaited step asks of ``side`` (the game
    module writes its part; the last step of a game with hidden values is the core's)."""
    aw = state["awaits"]
    header = order_header(state, side)
    asked = aw.get("open", {}).get(side, [])
    note = ([f"# This step asks you to open your hidden item(s) {', '.join(asked)}: `pbem sign` adds the openings",
             "# ([open]) from the boxes in the state and your key (docs/protocol.md, Hidden values).", ""] if asked else [])
    if aw["kind"] == "reveal":
        return "\n".join(header + ["# The game is over: every hidden item is opened before its result stands."] + note)
    text = find_module(state["pbem"]["module"]).template(state, side, header)
    return text + ("\n" + "\n".join(note) if note else "")


def document_problems(data: dict[str, Any], schema: str, game: str, where: str = "document") -> list[Problem]:
    """Every schema violation of a state, view or order file of ``game``: its envelope against the
    shared schema, its game's part against the game's."""
    return schema_problems(data, schema, where) + schema_problems(body_of(data, schema), f"{find_module(game).schema_dir}/{schema}-body", where)


def check_body(state: Doc, doc: Doc) -> None:
    """An order, join or reply file's orders against the schema of the game of the state it answers
    (parse_doc checked them against the file's own game, which envelope found to be the same)."""
    name = _body_schema(state.data, "orders", state.path)
    validate(body_of(doc.data, "orders"), name, str(doc.path))


def _check_consistency(data: dict[str, Any], path: Path) -> None:
    """What the schemas cannot say of a state or view: the parties the awaits name exist, every
    party of a joined game has its salt and commitment, a view is a refereed game's, and the game
    module finds every piece and place its rules will look up (exit 2 otherwise, before any
    command uses it)."""
    parties = data["parties"]
    aw = data["awaits"]
    problems = [Problem(f"{path}: awaits", f"names '{p}', who is not a party of the game")
                for p in [*aw["from"], *([aw["adjudicator"]] if aw["kind"] != "none" else [])] if p not in parties]
    if int(data["pbem"]["sequence"]) > 0:
        problems += [Problem(f"{path}: parties.{p}", "a party of a joined game has its dice salt and commitment")
                     for p, v in sorted(parties.items()) if "salt" not in v or "commit" not in v]
    if data["pbem"]["kind"] == "view" and "referee" not in parties:
        problems.append(Problem(f"{path}: parties", "a view is a refereed game's, and this one names no referee"))
    if data["pbem"]["kind"] == "view" and (data["pbem"]["side"] not in parties or data["pbem"]["side"] == "referee"):
        problems.append(Problem(f"{path}: pbem.side", f"a view is one player's, and '{str(data['pbem']['side'])[:40]}' is "
                                "not a player of the game"))
    if problems:  # the parties, their commitments and who adjudicates: the chain's own fields
        raise TamperError(f"{path}: {len(problems)} problem(s) in the parties and commitments it records: whoever sealed it "
                          "broke the game's chain", problems, hint="Do not accept it.")
    problems = timing.state_problems(data, str(path))
    if problems:
        raise MalformedFileError(f"{path}: {len(problems)} problem(s) with the deadline of the awaited step", problems,
                                 hint="Whoever sealed it wrote a deadline no state of this game can have: do not accept it.")
    timing.check_allowance(data, str(path))  # a deadline shorter than the options allow: exit 3
    _check_game(data, path)


def _check_game(data: dict[str, Any], path: Path) -> None:
    """A state's or view's position against its game's rules and data (GameModule.check_state)."""
    try:
        module = find_module(str(data["pbem"]["module"]))
        problems = [Problem(f"{path}: {p.where}", p.message, p.rule, p.hint) for p in module.check_state(data)]
    except PbemError as e:
        raise MalformedFileError(f"{path}: its game or scenario cannot be read ({e.message})", e.problems) from e
    if problems:
        raise MalformedFileError(f"{path}: {len(problems)} problem(s) no {'view' if data['pbem']['kind'] == 'view' else 'state'} "
                                 "of this game can have", problems,
                                 hint="Whoever sealed it wrote a state the game cannot be in: do not accept it.")


# The fields of the dice protocol and the hash chain: a sealed file with one of them in another
# spelling than its one valid spelling is tampering (exit 3), not merely malformed.
_CHAIN_FIELD = re.compile(r"dice\.(reveal|commit|salt|attest|hidden|hidden_reveal)"
                          r"|transition\.(reveals(\.[^.]+)?|hidden_reveals(\.[^.]+)?|seed|attestations(\.[^.]+(\.[a-z_]+)?)?)"
                          r"|parties\.[^.]+\.(commit|salt|key|hidden)|pbem\.(origin|previous|answers|of|inputs(\[\d+\])?)")


def _seal_first(data: dict[str, Any], path: Path, memo: Memo | None = None) -> None:
    """A sealed file's seal is checked before anything else looks at it, against the key it names:
    a signed file changed afterwards is tampering (exit 3), whatever the change broke besides (its
    schema, a spelling). Whether the key is the right party's is checked where the game is known."""
    s = data.get("seal")
    if s is None:
        return
    if not isinstance(s, dict) or not all(isinstance(s.get(k), str) for k in ("signer", "key", "signature")):
        raise TamperError(f"{path}: its seal is not a whole seal (a signer, a key and a signature)",
                          hint="A seal is written by `pbem sign` (orders) or by the adjudicator (states): ask for the signed file.")
    try:
        body = canonical(unsealed(data))
    except (TypeError, ValueError):
        return  # not JSON (a date): malformed, reported by the value checks
    check_seal(data, str(path), body=body)
    if memo is not None:
        memo.record(f"seal:{s['key']}")


def replay_tag(prev: Doc, cur: Doc) -> str | None:
    """The check that ``cur`` is exactly what the rules give from ``prev``, its inputs and its dice
    (Chain.transition), kept on ``cur``'s bytes with ``prev``'s digest and the game's data digest;
    None where the game's data cannot be named."""
    game = _game_tag(prev.data)
    return None if game is None else f"replayed:{prev.digest}:{game}"


def remember_made(prev: Doc, text: str, path: Path) -> None:
    """A state this process made from ``prev`` (its adjudication, ``text`` as written): kept as one
    that follows from ``prev``, so that the adjudicator's next command does not replay it again
    (`pbem verify` always replays)."""
    from .files import parse_toml_memo

    data, memo = parse_toml_memo(text.encode("utf-8"), str(path))
    tag = replay_tag(prev, Doc(path, data, memo))
    if memo is not None and tag is not None:
        memo.record(tag)


def sealed_with(doc: Doc, where: str, key: str | None = None) -> str:
    """check_seal of a document (against ``key``, if given): bytes whose seal was found good with
    that key before (contentcache.py) are not checked again."""
    m = doc.memo
    s = doc.data.get("seal")
    if m is not None and isinstance(s, dict) and isinstance(s.get("key"), str) and (key is None or s["key"] == key) \
            and m.has(f"seal:{s['key']}"):
        return str(s["key"])
    found = check_seal(doc.data, where, key)
    if m is not None:
        m.record(f"seal:{found}")
    return found


def load_state(path: Path, check: bool = True, views: bool = True) -> Doc:
    """A state file, or (where ``views``) a side's view of one (docs/referee.md)."""
    try:
        data = read_toml(path)
    except PbemError:
        data = {}
    kind = data.get("pbem", {}).get("kind") if isinstance(data.get("pbem"), dict) else None
    doc = load_doc(path, "view" if views and kind == "view" else "state")
    if check:
        check_state_seal(doc)
    return doc


def answered(state: Doc) -> str:
    """The digest orders must answer: the state's own, or for a view the full state's it shows."""
    return str(state.data["pbem"]["of"]) if state.kind == "view" else state.digest


def origin_of(state: Doc) -> str:
    """The digest of the game's first state: what every party's secret chain is bound to."""
    return str(state.data["pbem"]["origin"]) or state.digest


def check_state_seal(doc: Doc, expected_signer: str | None = None) -> None:
    """A state is sealed by the party that adjudicated it (its creator for state 0)."""
    s = doc.data
    signer = str(s["seal"]["signer"])
    if expected_signer is not None and signer != expected_signer:
        raise TamperError(f"{doc.path}: sealed by '{signer}', but '{expected_signer}' adjudicates this step")
    party = s["parties"].get(signer)
    if party is None:
        raise TamperError(f"{doc.path}: sealed by '{signer}', who is not a party of the game")
    sealed_with(doc, str(doc.path), str(party["key"]))


# --- new and join ------------------------------------------------------------------------------

def ruleset_of(module: Any, options: dict[str, Any]) -> str:
    """The ruleset version a game records and is replayed under: the module's own, or, for a module
    with variants of its rules (a ``rulesets`` table by the game's option ``ruleset``), the variant's."""
    variants: dict[str, str] = getattr(module, "rulesets", {})
    return variants.get(str(options.get("ruleset", "")), module.ruleset)  # type: ignore[no-any-return]


def check_ruleset(s: dict[str, Any], module: Any, where: str) -> None:
    """The rules a game records are the ones this pbem adjudicates it under: its variant's ruleset,
    or for a game made before the variant had an id of its own, the module's (it still replays)."""
    if s["pbem"]["ruleset"] not in (ruleset_of(module, s.get("options", {})), module.ruleset):
        raise VerificationError(f"{where}: the game uses the rules '{s['pbem']['ruleset']}', "
                                f"this pbem adjudicates '{ruleset_of(module, s.get('options', {}))}'",
                                hint="Install the pbem version the game was created with.")


def state_zero(module_name: str, scenario: str, sides: dict[str, str], referee: str | None, creator: str,
               game_id: str, options: dict[str, Any], deadlines: dict[str, int] | None = None,
               now: str | None = None) -> dict[str, Any]:
    """The unsealed state 0 of a game: its parties' keys, the scenario's start, awaiting every
    party's join (by ``now`` and the join allowance of ``deadlines``, in a game with deadlines).
    `pbem verify` re-derives it to trust a history from its start."""
    module = find_module(module_name)
    try:
        game = module.new_game(scenario, options)
    except IllegalOrdersError as e:  # no orders exist yet: a bad option is a usage error (exit 2)
        raise UsageError(e.message, e.problems, e.hint) from e
    want = sides_of(module, game.get("options", {}), scenario)  # the parties may depend on the options
    if sorted(sides) != sorted(want):
        variants = getattr(module, "side_variants", {}) or {}
        also = "".join(f"; with --option {o}: {', '.join(v)}" for o, v in variants.items() if tuple(v) != want)
        raise UsageError(f"{module.name} needs --side for each of: {', '.join(want)}{also}",
                         hint="Give --side SIDE=PUBKEY once per side (PUBKEY: 'ed25519:...' or a .pub file).")
    keys = {**sides, **({"referee": referee} if referee else {})}
    if len(set(keys.values())) != len(keys):
        raise UsageError("two parties of the game have the same public key",
                         hint="Each side (and the referee) has a key of its own: one signature must name one party.")
    for party, k in sorted(keys.items()):
        try:
            public_key_from_text(k)
        except ValueError as e:
            raise UsageError(f"{party}'s key: {e}") from e
    parties = {s: {"key": k, "index": 0} for s, k in sorted(sides.items())}
    if referee:
        parties["referee"] = {"key": referee, "index": 0}
    return {
        "pbem": {"format": FORMAT, "kind": "state", "game": game_id, "module": module.name,
                 "ruleset": ruleset_of(module, game.get("options", {})),
                 "scenario": scenario, "data": module.data_digest(scenario), "sequence": 0, "origin": "", "previous": "",
                 "inputs": [], "dice_algorithm": ALGORITHM, "creator": creator},
        "parties": parties,
        **game,
        "awaits": {"kind": "join", "step": "join", "from": sorted(parties), "adjudicator": creator,
                   **(timing.step_times(deadlines, "join", now) if deadlines and now else {})},
        **({"deadlines": dict(deadlines)} if deadlines else {}),
    }


def new_game(module_name: str, scenario: str, sides: dict[str, str], referee: str | None, key: KeyPair,
             game_id: str, options: dict[str, Any], now: str | None = None) -> dict[str, Any]:
    """State 0: the game, its parties' keys, awaiting every party's join (docs/protocol.md). The
    options ``deadline.KIND=DURATION`` (the core's, not the game's) give the game deadlines, the
    joins due from ``now``."""
    options, deadlines = timing.split_options(options)
    if deadlines and now is None:
        raise UsageError("a game with deadlines needs the time it is created (--now)")
    keys = {**sides, **({"referee": referee} if referee else {})}
    creator = next((p for p, k in sorted(keys.items()) if k == key.public_text), None)
    if creator is None:
        raise UsageError("--key is not the key of any party of the new game",
                         hint="The creator must be one of the players or the referee.")
    state = state_zero(module_name, scenario, sides, referee, creator, game_id, options, deadlines, now)
    problems = schema_problems(state, "state", "new game")
    problems = [p for p in problems if p.message != "'seal' is a required property"]
    problems += schema_problems(body_of(state, "state"), f"{find_module(module_name).schema_dir}/state-body", "new game")
    if not problems:  # what the game module finds wrong in any state it reads (an option it plays only without a referee)
        problems = [Problem(f"new game: {p.where}", p.message, p.rule, p.hint) for p in find_module(module_name).check_state(state)]
    if problems:  # never write a state that no command could read back
        raise UsageError("the options or the game id do not make a valid game state", problems,
                         hint="Fix the --option or --game-id values listed (a game id has at most 80 letters, digits, '.', '_' or '-').")
    check_signed_values(state, "new game")
    return seal(state, creator, key)


def new_salt() -> str:
    """A fresh salt for a party's secret chain: the one input of the protocol that must be random, so
    that a party's secrets differ even in a game whose first state is replayed byte for byte."""
    return os.urandom(proto.SALT_BYTES).hex()


def make_join(state: Doc, side: str, key: KeyPair, standing: dict[str, Any] | None = None, salt: str | None = None,
              used: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """A party's signed join: its first dice commitment, bound to this game's first state and a
    fresh salt (docs/protocol.md, Dice). ``used``: commitments already seen (in the folder); a join
    never repeats one."""
    s = state.data
    if s["awaits"]["kind"] != "join":
        raise IllegalOrdersError(f"{state.path}: the game does not await joins (it awaits {s['awaits']['kind']})")
    from .chain import check_origin  # (the chain reads games with this module)

    check_origin(state)  # the start of a game pbem knows, as `pbem new` makes it
    if side not in s["parties"]:
        raise UsageError(f"'{side}' is not a party of this game", hint=f"Parties: {', '.join(s['parties'])}.")
    if s["parties"][side]["key"] != key.public_text:
        raise wrong_key(key, side, state)
    salt = salt if salt is not None else new_salt()
    commit = proto.commitment(proto.secret(key, origin_of(state), salt, 0))
    if commit in used:
        raise TamperError(f"{state.path}: your first dice commitment for this game was already used in a game of this folder",
                          hint="The game's first state replays one you joined before: your secrets there are known. Do not join it.")
    header: dict[str, Any] = {"format": FORMAT, "kind": "join", "game": s["pbem"]["game"], "module": s["pbem"]["module"],
                              "side": side, "answers": state.digest, "step": "join", "dice_index": 0}
    dice: dict[str, Any] = {"salt": salt, "commit": commit}
    if getattr(find_module(str(s["pbem"]["module"])), "hidden_draws", False):  # docs/protocol.md, Hidden draws
        dice["hidden"] = proto.commitment(proto.hidden_dice_secret(key, origin_of(state), salt))
    dice["attest"] = proto.attest(key, header, dice)
    doc: dict[str, Any] = {"pbem": header, "dice": dice}
    if standing:
        doc["standing"] = standing
    return seal(doc, side, key)


def commitments_in(folder: Path, origin: str = "") -> set[str]:
    """Every dice commitment recorded in the game files of a folder (joins, orders, states), but
    those of the game whose first state is ``origin`` (a join written again is the same join)."""
    out: set[str] = set()
    for p in sorted(folder.glob("*.toml")):
        try:
            d = load_doc(p)
        except PbemError:
            continue
        h = d.data["pbem"]
        if origin and (h.get("origin") == origin or d.digest == origin or (d.kind == "join" and h.get("answers") == origin)):
            continue
        if d.kind in SUBMISSION_KINDS:
            c = d.data.get("dice", {}).get("commit")
            if isinstance(c, str):
                out.add(c)
        elif d.kind in ("state", "view"):
            out |= {str(v["commit"]) for v in d.data["parties"].values() if "commit" in v}
    return out


# --- submissions -------------------------------------------------------------------------------

@dataclass
class Checked:
    doc: Doc
    submission: Submission
    problems: list[Problem] = field(default_factory=list)
    sealed: bool = True


def check_submission_seal(state: Doc, doc: Doc) -> None:
    """The seal of a submission, checked before anything else looks at the file: sealed by a party
    of the game, in the name of the side it speaks for, with the key the state records. A changed
    side, step, answers or anything else breaks it: tampering (exit 3)."""
    o, where = doc.data, str(doc.path)
    signer = str(o["seal"]["signer"])
    party = state.data["parties"].get(signer)
    if party is None:
        raise TamperError(f"{where}: sealed by '{signer}', who is not a party of this game")
    check_seal(o, where, str(party["key"]))
    if signer != o["pbem"]["side"]:
        raise TamperError(f"{where}: sealed by '{signer}' for side '{o['pbem']['side']}'")


def envelope(state: Doc, doc: Doc, require_seal: bool = True) -> Checked:
    """Check that an order/join/reply file answers this state: game, seal, state digest, step, side
    and dice reveal. Seal, chain and commitment failures raise TamperError (the seal first: a
    signed file whose fields were changed is tampering, whatever else is wrong); a wrong step or
    side raises IllegalOrdersError."""
    s, o = state.data, doc.data
    h = o["pbem"]
    where = str(doc.path)
    if h["game"] != s["pbem"]["game"]:
        raise TamperError(f"{where}: belongs to game '{h['game']}', not '{s['pbem']['game']}'",
                          hint="Use the orders written for this game.")
    if h["module"] != s["pbem"]["module"]:
        raise TamperError(f"{where}: written for the game module '{h['module']}', not '{s['pbem']['module']}'",
                          hint="Use the orders written for this game.")
    sealed = "seal" in o
    if require_seal and not sealed:
        raise TamperError(f"{where}: the file is not sealed", hint="Seal it with `pbem sign FILE --key KEY`.")
    if sealed:
        check_submission_seal(state, doc)
    check_body(state, doc)
    if h["answers"] != answered(state):
        raise TamperError(f"{where}: answers state {h['answers'][:19]}..., not {state.path} ({answered(state)[:19]}...)",
                          hint="An order file is bound to one state: it is out of date or replayed. Write new orders with `pbem template`.")
    aw = s["awaits"]
    problems = []
    if aw["kind"] == "none":
        raise IllegalOrdersError(f"{where}: the game is over; nothing is awaited")
    if h["kind"] == "agree":
        return Checked(doc, _agreement(state, doc, sealed), sealed=sealed)
    rule = find_module(str(s["pbem"]["module"])).step_rule
    if h["kind"] != aw["kind"]:
        problems.append(Problem(f"{where}: pbem.kind", f"the game awaits {aw['kind']}, this file is {h['kind']}", rule))
    if h["step"] != aw["step"]:
        problems.append(Problem(f"{where}: pbem.step", f"'{display_path(str(h['step']))}' is not the awaited step '{aw['step']}'", rule))
    if h["side"] not in aw["from"]:
        problems.append(Problem(f"{where}: pbem.side", f"'{h['side']}' is not awaited; the step awaits {', '.join(aw['from'])}", rule))
    if problems:
        raise IllegalOrdersError(f"{where}: not the awaited submission", problems)
    party = s["parties"][h["side"]]
    if sealed and "referee" not in s["parties"]:
        for item, entry in sorted(o.get("hidden", {}).items()):
            if not is_sealed_entry(entry):
                raise MalformedFileError(f"{where}: hidden.{item}: a signed file holds a commitment and a box (canonical base64) "
                                         "for a hidden value, never the value", hint="Write the value in the draft and seal it with `pbem sign`.")
    if sealed:
        d = o.get("dice")
        if d is None:
            raise TamperError(f"{where}: no [dice] commitment", hint="`pbem sign` adds it.")
        if not proto.attested(str(party["key"]), h, d):
            raise TamperError(f"{where}: the dice attestation (dice.attest) is missing or is not {h['side']}'s signature of these dice",
                              hint="`pbem sign` (or `pbem join`) writes it.")
        draws = bool(getattr(find_module(str(s["pbem"]["module"])), "hidden_draws", False))
        if h["kind"] == "join" and ("hidden" in d) != draws:
            raise MalformedFileError(f"{where}: a join of this game {'carries' if draws else 'carries no'} dice.hidden "
                                     "(the commitment of the party's hidden draws)", hint="Make the join with `pbem join`.")
        if h["kind"] != "join" and "hidden" in d or h["kind"] != "reveal" and "hidden_reveal" in d:
            raise MalformedFileError(f"{where}: dice.hidden belongs in a join, dice.hidden_reveal in the last step's reveal file")
        if h["kind"] == "join":
            if "salt" not in d or "reveal" in d or int(h.get("dice_index", -1)) != 0:
                raise MalformedFileError(f"{where}: a join carries dice.salt and dice.commit, dice_index 0 and no reveal",
                                         hint="Make the join with `pbem join`.")
        else:
            if "salt" in d:
                raise MalformedFileError(f"{where}: dice.salt belongs in a join only")
            if int(h.get("dice_index", -1)) != int(party["index"]):
                raise TamperError(f"{where}: dice_index {h.get('dice_index')} but {h['side']}'s next secret is number {party['index']}")
            if "reveal" not in d or not proto.reveal_matches(d["reveal"], party["commit"]):
                raise TamperError(f"{where}: the dice reveal does not match {h['side']}'s commitment in the state",
                                  hint="The reveal must come from the same key and game (`pbem sign`).")
    sub = Submission(h["kind"], h["side"], o, doc.digest)
    return Checked(doc, sub, sealed=sealed)


def _agreement(state: Doc, doc: Doc, sealed: bool) -> Submission:
    """An agreement (kind ``agree``, docs/protocol.md, Deadlines): a player's signed consent to new
    deadline terms for the awaited step of the state it answers; it takes effect when every player's
    file with the same terms is adjudicated. It carries no dice and no orders."""
    s, o, where = state.data, doc.data, str(doc.path)
    h = o["pbem"]
    if not sealed:
        raise TamperError(f"{where}: the agreement is not sealed", hint="`pbem agree` writes it sealed.")
    if "deadlines" not in s:
        raise IllegalOrdersError(f"{where}: the game of {state.path} has no deadlines to agree on",
                                 [Problem(f"{where}: agree", "a game without deadline options", timing.RULE)])
    problems = []
    if h["side"] == "referee" or h["side"] not in s["parties"]:
        problems.append(Problem(f"{where}: pbem.side", f"'{h['side']}' is not a player of the game: the players agree", timing.RULE))
    if h["step"] != s["awaits"]["step"]:
        problems.append(Problem(f"{where}: pbem.step", f"'{display_path(str(h['step']))}' is not the awaited step "
                                                       f"'{s['awaits']['step']}'", timing.RULE))
    if problems:
        raise IllegalOrdersError(f"{where}: not an agreement on the awaited step", problems)
    extra = sorted(k for k in o if k not in ("pbem", "agree", "seal"))
    if extra or "agree" not in o or "dice_index" in h:
        raise MalformedFileError(f"{where}: an agreement holds [pbem] (no dice_index), [agree] and [seal] only"
                                 + (f"; it has {', '.join(extra)}" if extra else ""), hint="`pbem agree` writes it.")
    try:
        timing.agreement_terms(o["agree"], where)
    except UsageError as e:
        raise MalformedFileError(e.message, e.problems, e.hint) from e
    return Submission("agree", str(h["side"]), o, doc.digest)


def check_orders(state: Doc, doc: Doc) -> Checked:
    """`pbem check`: the envelope (a draft may be unsealed) and every rule problem."""
    c = envelope(state, doc, require_seal=False)
    if c.submission.kind not in ("join", "reveal", "agree"):
        module = find_module(state.data["pbem"]["module"])
        data = state.data
        if state.kind == "view" and "question" in data:
            data = {**data, "pending": {"question": data["question"]}}
        plain = {k: v for k, v in doc.data.get("hidden", {}).items() if not is_sealed_entry(v)}
        c.problems = hidden_value_problems(module.name, plain, str(doc.path))
        if not c.problems:  # the game's rules see values of the types its schema gives
            c.problems = module.check(data, c.submission)
    return c


def wrong_key(key: KeyPair, side: str, state: Doc, key_file: Path | str | None = None, hint: str | None = None) -> UsageError:
    """The error for a key that is not ``side``'s in the game of ``state``: which key file and key
    id were given, and which key id the game expects."""
    given = f"--key {key_file}" if key_file is not None else "--key"
    party = state.data.get("parties", {}).get(side, {})
    want = f"key id {key_id(party['key'])}" if isinstance(party.get("key"), str) else "another key"
    return UsageError(f"{given} (key id {key.key_id}) is not {side}'s key in this game: {state.path} expects {side}'s {want}",
                      hint=hint or f"Give --key the private key whose public key was given for {side} at `pbem new` "
                                   f"(`pbem keygen` printed its key id).")


def without_seal_text(raw_text: str, unsealed_data: dict[str, Any]) -> str:
    """An order file's text without its ``[dice]`` and ``[seal]`` tables, its comments kept: the
    file to seal again. Where taking the tables out of the text does not give exactly
    ``unsealed_data`` (tables written in another way), the file is written again from its data."""
    import tomllib

    out: list[str] = []
    skipping = False
    for line in raw_text.split("\n"):
        head = line.strip()
        if head.startswith("[") and not head.startswith("[["):
            name = head[1:].split("]", 1)[0].strip()
            skipping = name in ("dice", "seal") or name.startswith(("dice.", "seal."))
        elif head.startswith("[["):
            skipping = False
        if not skipping:
            out.append(line)
    text = "\n".join(out).rstrip("\n") + "\n"
    try:
        same = tomllib.loads(text) == unsealed_data
    except tomllib.TOMLDecodeError:
        same = False
    return text if same else dumps(unsealed_data)


def sign_orders(path: Path, raw_text: str, data: dict[str, Any], key: KeyPair, state: Doc, force: bool = False) -> str:
    """Seal an order file that answers ``state`` (a state or a view): add the dice reveal and next
    commitment of the sender's secret chain in this game, then the seal.

    The seal and dice tables are appended to the file's own text, so comments stay; the signature
    covers the data (docs/protocol.md).
    """
    h = data.get("pbem", {})
    if "seal" in data or "dice" in data:
        if not force:
            raise UsageError(f"{path}: already has [dice] or [seal]", hint="Use --force to seal it again.")
        data = {k: v for k, v in data.items() if k not in ("seal", "dice")}
        raw_text = without_seal_text(raw_text, data)
    if "dice_index" not in h:
        raise MalformedFileError(f"{path}: pbem.dice_index is missing", hint="Start from `pbem template`, which fills it in.")
    side = str(h["side"])
    party = state.data["parties"].get(side)
    if party is None:
        raise UsageError(f"{path}: '{side}' is not a party of the game of {state.path}")
    if party["key"] != key.public_text:
        raise wrong_key(key, side, state)
    if "salt" not in party:
        raise UsageError(f"{state.path}: {side} has not joined the game yet; there is nothing to sign")
    idx = int(h["dice_index"])
    origin = origin_of(state)
    salt = str(party["salt"])
    if idx != int(party["index"]):
        raise UsageError(f"{path}: dice_index {idx}, but {side}'s next secret in {state.path} is number {party['index']}",
                         hint="Write the file from `pbem template`, which fills it in.")
    dice = {"reveal": proto.secret(key, origin, salt, idx), "commit": proto.commitment(proto.secret(key, origin, salt, idx + 1))}
    if dice["reveal"] and proto.commitment(dice["reveal"]) != party.get("commit"):
        raise TamperError(f"{state.path}: the commitment it records for {side} is not one your key made for this game",
                          hint="The state was not made from your files: do not answer it.")
    if state.data["awaits"]["kind"] == "reveal" and _drew(state.data, side):
        dice["hidden_reveal"] = proto.hidden_dice_secret(key, origin, salt)
    dice["attest"] = proto.attest(key, h, dice)
    body = dict(data)
    if "referee" not in state.data["parties"] and state.data["awaits"]["kind"] != "join":
        body, rewrite = seal_hidden(path, body, key, state, side, origin, salt)
        if rewrite:  # values taken out of the file: written again from its data (comments are not kept)
            raw_text = dumps(body)
    body["dice"] = dice
    sealed = seal(body, side, key)
    s = sealed["seal"]
    text = raw_text.rstrip("\n") + "\n\n"
    text += f'[dice]\nreveal = "{dice["reveal"]}"\ncommit = "{dice["commit"]}"\n'
    if "hidden_reveal" in dice:
        text += f'hidden_reveal = "{dice["hidden_reveal"]}"\n'
    text += f'attest = "{dice["attest"]}"\n\n'
    text += f'[seal]\nsigner = "{s["signer"]}"\nkey = "{s["key"]}"\nsignature = "{s["signature"]}"\n'
    return text


def own_hidden(state: Doc, key: KeyPair) -> dict[str, Any]:
    """What the side whose key this is holds hidden in ``state``: the value of each of its hidden
    items (its latest version, from the boxes only its key opens), and the value of each draw the
    state asks of it, as `pbem sign` will commit it (docs/protocol.md, Hidden values)."""
    s = state.data
    side = next((p for p, rec in s["parties"].items() if rec.get("key") == key.public_text), None)
    if side is None:
        raise UsageError(f"--key (key id {key.key_id}) is the key of no party of the game of {state.path}")
    party = s["parties"][side]
    origin, salt = origin_of(state), str(party.get("salt", ""))
    items: dict[str, Any] = {}
    for item in sorted(s.get("hidden", {}).get(side, {})):
        versions = versions_of(s, side, item)
        if versions:
            items[item] = opening(key, origin, salt, side, item, len(versions) - 1, versions[-1])["value"]
    draws: dict[str, Any] = {}
    requests = s.get("draws", {}).get(side, [])
    if requests:
        module = find_module(str(s["pbem"]["module"]))
        secret = proto.hidden_dice_secret(key, origin, salt)
        draws = {str(r["item"]): drawn_value(module, secret, side, r) for r in requests}
    opened = {item: rec["values"][-1] for item, rec in sorted(s.get("opened", {}).get(side, {}).items())}
    return {"side": side, "hidden": items, "draws": draws, "opened": opened}


def _drew(state: dict[str, Any], side: str) -> bool:
    """Whether ``side`` holds a value it drew, hidden or opened (its hidden-dice secret is revealed at the end)."""
    return side in sides_that_drew(state)


def seal_hidden(path: Path, data: dict[str, Any], key: KeyPair, state: Doc, side: str, origin: str,
                salt: str) -> tuple[dict[str, Any], bool]:
    """A draft's hidden values replaced by their commitments and boxes, and the openings the
    awaited step asks of the side added (docs/protocol.md, Hidden values); whether anything changed."""
    s = state.data
    out = dict(data)
    changed = False
    draws = s.get("draws", {}).get(side, [])
    module = find_module(str(s["pbem"]["module"]))
    chosen = sorted(item for item, v in data.get("hidden", {}).items()
                    if not is_sealed_entry(v) and (module.drawn(item) or any(r["item"] == item for r in draws)))
    if chosen:
        raise IllegalOrdersError(f"{path}: [hidden]: {', '.join(chosen)} {'is' if len(chosen) == 1 else 'are'} drawn, not chosen: "
                                 "`pbem sign` makes the draws the game asks for", hint="Leave those items out of the file.")
    if draws:  # the draws the game asked of the side: made with its hidden-dice secret, committed hidden
        secret = proto.hidden_dice_secret(key, origin, salt)
        made = {}
        for r in draws:
            try:
                made[r["item"]] = drawn_value(module, secret, side, r)
            except Exception as e:  # a request the game cannot draw from: a state no rule made
                raise TamperError(f"{state.path}: asks {side} for a draw the game does not make ({type(e).__name__})",
                                  hint="The state was not made by the rules: do not answer it.") from e
        bad = hidden_value_problems(module.name, made, str(path))
        if bad:  # never the drawn value in the message: it is the side's secret
            raise TamperError(f"{state.path}: asks {side} for a draw whose result the game does not allow",
                              hint="The state was not made by the rules: do not answer it.")
        kept = {k: v for k, v in data.get("hidden", {}).items() if k not in made}  # a draw sealed before (--force) is made again
        data = {**data, "hidden": {**kept, **made}}
    if "hidden" in data and s["awaits"]["kind"] == "reveal":
        raise IllegalOrdersError(f"{path}: [hidden]: the last step opens what is hidden; it commits to nothing new")
    if "hidden" in data:
        plain = {k: v for k, v in data["hidden"].items() if not is_sealed_entry(v)}
        problems = hidden_value_problems(str(s["pbem"]["module"]), plain, str(path))
        if problems:
            raise IllegalOrdersError(f"{path}: {len(problems)} hidden value(s) the game does not allow; nothing was signed", problems,
                                     hint="Fix them (see `pbem check`).")
        sealed: dict[str, Any] = {}
        for item, value in sorted(data["hidden"].items()):
            if is_sealed_entry(value):  # sealed before (--force)
                sealed[item] = value
                continue
            if item in s.get("opened", {}).get(side, {}):
                raise IllegalOrdersError(f"{path}: hidden.{item}: the item was opened and stays public", hint="Give a new item a new id.")
            version = len(versions_of(s, side, item))
            sealed[item] = seal_value(key, origin, salt, side, item, version, value, pad_of(module, item))
        out["hidden"] = sealed
        changed = True
    asked = s["awaits"].get("open", {}).get(side)
    if asked:
        if state.kind == "view":
            raise UsageError(f"{path}: a view cannot ask for openings")
        try:
            out["open"] = openings_for(s, side, key, origin, salt)
        except ValueError as e:
            raise TamperError(f"{state.path}: a hidden item it records for {side} was not sealed by your key for this game",
                              hint="The state was not made from your files: do not answer it.") from e
        changed = True
    elif "open" in data:
        raise IllegalOrdersError(f"{path}: [open]: the step asks {side} to open nothing")
    return out, changed


# --- adjudication ------------------------------------------------------------------------------

def commits_of(state: dict[str, Any]) -> set[str]:
    """Every dice commitment a state records (one per party)."""
    return {str(v["commit"]) for v in state["parties"].values() if "commit" in v}


def adjudicator_of(state: dict[str, Any]) -> str:
    return str(state["awaits"]["adjudicator"])


def next_state(prev: Doc, subs: list[Submission], adj_reveal: str | None, adj_commit: str | None,
               defaulted: list[str] | None = None, adj_openings: dict[str, Any] | None = None,
               names: dict[str, str] | None = None, adj_hidden: str | None = None,
               now: str | None = None) -> tuple[dict[str, Any], list[Event]]:
    """The unsealed next state and its events: the deterministic core shared by adjudicate and verify.

    ``defaulted`` names awaited sides that sent nothing by the deadline; only a referee may
    adjudicate without them, and they are treated as having sent empty orders (docs/referee.md).
    ``adj_openings``: the hidden items the step asks the adjudicator itself to open, opened (from
    its key when adjudicating, from ``transition.openings`` when verifying). ``names``: each
    input's file, by side, for messages. ``now``: the time of the adjudication, in a game with
    deadlines (``transition.at`` when verifying): the next step is due from it, and sides are
    adjudicated without their files only past the deadline and its grace period.
    """
    s = prev.data
    defaulted = sorted(defaulted or [])
    timed = "deadlines" in s
    if timed:
        now = timing.check_now(s, now, str(prev.path))
    if subs and all(x.kind == "agree" for x in subs):
        if defaulted:
            raise UsageError("an agreement on the deadline is adjudicated alone, without --no-orders")
        return _agreed_state(prev, subs, str(now))
    if any(x.kind == "agree" for x in subs):
        raise UsageError("agreement files are adjudicated on their own, not with orders")
    missed: dict[str, str] | None = None
    if defaulted:
        if adjudicator_of(s) != "referee" and not timed:
            raise UsageError("only a referee may adjudicate a step without a side's orders (--no-orders), "
                             "or a player in a game with deadlines, once they have passed")
        if s["awaits"]["kind"] == "join":
            raise UsageError("a join cannot be adjudicated without the party")
        unknown = [d for d in defaulted if d not in s["awaits"]["from"]]
        if unknown:
            raise UsageError(f"--no-orders {', '.join(unknown)}: the step does not await anything from {', '.join(unknown)}")
        if any(x.side in defaulted for x in subs):
            raise UsageError("a side cannot both send orders and be adjudicated without them")
        if timed:
            missed = timing.check_missed(s, str(now), defaulted, str(prev.path))
        owe = sorted(d for d in defaulted if s["awaits"].get("open", {}).get(d) or s["awaits"]["kind"] == "reveal")
        if owe and "referee" not in s["parties"]:
            raise IllegalOrdersError(f"--no-orders {', '.join(owe)}: the step asks {', '.join(owe)} to open hidden items, "
                                     "which only its key can do: it cannot be settled without its file",
                                     hint="The game stops here; the files show who owes what (docs/referee.md).")
    module = find_module(s["pbem"]["module"])
    check_ruleset(s, module, str(prev.path))
    if module.data_digest(s["pbem"]["scenario"]) != s["pbem"]["data"]:
        raise VerificationError(f"{prev.path}: the installed data of scenario '{s['pbem']['scenario']}' differs from the data this game was started with",
                                hint="Install the pbem version the game was created with.")
    aw = s["awaits"]
    got = sorted([x.side for x in subs] + defaulted)
    if got != sorted(aw["from"]):
        missing = sorted(set(aw["from"]) - set(got))
        extra = sorted({x for x in got if x not in aw["from"] or got.count(x) > 1})
        raise IllegalOrdersError(f"the step {aw['step']} needs one file from each of {', '.join(aw['from'])}"
                                 + (f"; missing: {', '.join(missing)}" if missing else "")
                                 + (f"; not awaited or twice: {', '.join(extra)}" if extra else ""))
    subs = sorted(subs, key=lambda x: x.side)
    inputs = [x.digest for x in subs]
    origin = origin_of(prev)
    parties = copy.deepcopy(s["parties"])
    adj = adjudicator_of(s)
    reveals: dict[str, str] = {}
    attestations = {x.side: {**{k: x.body["pbem"][k] for k in ("answers", "step", "dice_index")},
                             **{k: v for k, v in x.body["dice"].items() if k in ("reveal", "commit", "salt", "hidden", "hidden_reveal", "attest")}}
                    for x in subs}
    if aw["kind"] == "join":
        for x in subs:
            parties[x.side]["commit"] = x.body["dice"]["commit"]
            parties[x.side]["salt"] = x.body["dice"]["salt"]
            if "hidden" in x.body["dice"]:
                parties[x.side]["hidden"] = x.body["dice"]["hidden"]
        commits = [str(v["commit"]) for v in parties.values()]
        if len(set(commits)) != len(commits):
            raise TamperError("two parties joined with the same dice commitment",
                              hint="A join's commitment is made from the party's own key and a fresh salt; a repeated one is copied.")
        dice: Dice = ForcedDice()
        seed = b""
    else:
        for x in subs:
            reveals[x.side] = x.body["dice"]["reveal"]
            if x.body["dice"]["commit"] == s["parties"][x.side]["commit"]:
                raise TamperError(f"{x.side} commits again to the secret it reveals: its next secret would be known",
                                  hint="Each file commits to a new secret (`pbem sign` makes it).")
            parties[x.side]["commit"] = x.body["dice"]["commit"]
            parties[x.side]["index"] = int(parties[x.side]["index"]) + 1
        if adj_reveal is None or not proto.reveal_matches(adj_reveal, s["parties"][adj]["commit"]):
            raise TamperError(f"the adjudicator's ({adj}) dice reveal does not match its commitment in {prev.path}")
        reveals[adj] = adj_reveal
        if adj_commit is None:
            raise TamperError(f"the adjudicator's ({adj}) next dice commitment is missing")
        if adj_commit == s["parties"][adj]["commit"] or adj_commit in commits_of(s):
            raise TamperError(f"the adjudicator ({adj}) commits again to a secret already committed to: its next secret "
                              "would be known, and with it the next seed", hint="Each state commits to a new secret.")
        parties[adj]["commit"] = adj_commit
        parties[adj]["index"] = int(parties[adj]["index"]) + 1
        if not proto.is_digest(adj_commit):
            raise TamperError(f"the adjudicator's ({adj}) next dice commitment is not 'sha256:' and 64 lower-case hex digits")
        seed = proto.transition_seed(prev.digest, reveals)
        dice = SeededDice(seed=seed)
    played = sorted(subs + [Submission(aw["kind"], d, {}, "") for d in defaulted], key=lambda x: x.side)
    sealed_hidden = "referee" not in s["parties"] and aw["kind"] != "join"
    if sealed_hidden:
        before, opened_events, self_opened = hidden_step(prev, module, subs, adj_openings, names or {}, origin,
                                                             hidden_value_problems, adj_hidden)
    else:
        before, opened_events, self_opened = {k: copy.deepcopy(s[k]) for k in ("hidden", "opened", "draws") if k in s}, [], {}
    t = transition(module, {**{k: v for k, v in s.items() if k not in ("hidden", "opened", "draws")}, **before}, played, dice)
    game = dict(t.state)
    if sealed_hidden:
        if game.get("draws") or before.get("draws"):
            game["draws"] = draws_after(before, game, seed.hex(), int(s["pbem"]["sequence"]) + 1, module)
        game = after_step(before, game, was_last=aw["kind"] == "reveal")
    elif game.get("draws"):
        raise VerificationError("a game asks for a hidden draw only in a step with dice of a game without a referee (not at the "
                                "joins, whose step has no seed; a referee draws in the open and views hide the result)",
                                hint="The game module is wrong; report it.")
    naw = game["awaits"]
    if naw["kind"] not in ("join", "none") and naw["adjudicator"] in naw["from"]:
        raise VerificationError(f"the game module makes {naw['adjudicator']} both send a file in step {naw['step']} and adjudicate it: "
                                "a party cannot reveal its dice secret twice in one step", hint="The game module is wrong; report it.")
    events = opened_events + list(t.events)
    if defaulted and adj == "referee":
        events.insert(0, Event("no-orders", "referee", {"sides": defaulted, "step": aw["step"]}))
    if missed is not None:
        events.insert(0, Event("missed", timing.RULE, {"sides": defaulted, "step": aw["step"], "by": adj, **missed}))
    nxt: dict[str, Any] = {
        "pbem": {**s["pbem"], "sequence": int(s["pbem"]["sequence"]) + 1, "origin": origin, "previous": prev.digest,
                 "inputs": inputs},
        "parties": parties,
        **game,
        "transition": {"seed": seed.hex(), "attestations": attestations, "reveals": dict(sorted(reveals.items())),
                       "dice": [{"label": r.label, "sides": r.sides, "face": r.face} for r in dice.log]},
    }
    hidden_reveal = self_opened.pop("@hidden", None)
    if self_opened:
        nxt["transition"]["openings"] = self_opened
    if hidden_reveal is not None:
        nxt["transition"]["hidden_reveals"] = {adjudicator_of(s): hidden_reveal}
    if defaulted:
        nxt["transition"]["defaulted"] = defaulted
    if timed:
        nxt["deadlines"] = copy.deepcopy(s["deadlines"])
        nxt["awaits"] = {k: v for k, v in nxt["awaits"].items() if k not in ("since", "due")}
        nxt["awaits"].update(timing.step_times(s["deadlines"], str(naw["kind"]), str(now)))
        nxt["transition"]["at"] = now
        if missed is not None:
            nxt["transition"]["missed"] = missed
    check_signed_values(nxt, "the next state")
    return nxt, events


def _agreed_state(prev: Doc, subs: list[Submission], now: str) -> tuple[dict[str, Any], list[Event]]:
    """The state an agreement of every player makes (docs/protocol.md, Deadlines): the same position
    and awaited step, the agreed deadline of that step (never earlier than it was) and the agreed
    allowances for the steps to come; no dice, no reveals."""
    s = prev.data
    players = sorted(p for p in s["parties"] if p != "referee")
    got = sorted(x.side for x in subs)
    if got != players:
        missing = sorted(set(players) - set(got))
        raise IllegalOrdersError("an agreement on the deadline needs the file of every player"
                                 + (f"; missing: {', '.join(missing)}" if missing else f"; given: {', '.join(got)}"),
                                 [Problem(f"{prev.path}: parties", f"players {', '.join(players)}", timing.RULE)],
                                 hint="Each player signs the same terms with `pbem agree`.")
    terms = [canonical(x.body["agree"]) for x in subs]
    if len(set(terms)) != 1:
        raise IllegalOrdersError("the players' agreement files do not hold the same terms ([agree])",
                                 [Problem(f"{x.side}: agree", canonical(x.body["agree"]).decode("utf-8"), timing.RULE) for x in subs],
                                 hint="Each player signs the same terms with `pbem agree`.")
    agreed = copy.deepcopy(subs[0].body["agree"])
    aw = s["awaits"]
    if "due" in agreed and timing.parse_time(agreed["due"], "agree.due") < timing.parse_time(str(aw["due"]), "awaits.due"):
        raise IllegalOrdersError(f"agree.due {agreed['due']} is earlier than the deadline it replaces ({aw['due']}): a pause "
                                 "only gives time", [Problem("agree.due", f"before awaits.due {aw['due']}", timing.RULE)])
    nxt = {k: copy.deepcopy(v) for k, v in s.items() if k not in ("seal", "transition")}
    nxt["pbem"] = {**s["pbem"], "sequence": int(s["pbem"]["sequence"]) + 1, "origin": origin_of(prev), "previous": prev.digest,
                   "inputs": [x.digest for x in sorted(subs, key=lambda x: x.side)]}
    nxt["deadlines"] = {**s["deadlines"], **agreed.get("deadlines", {})}
    nxt["awaits"]["due"] = agreed.get("due", aw["due"])
    timing.grace_until(nxt, "agree.due")  # its grace period ends within the calendar
    nxt["transition"] = {"seed": "", "attestations": {}, "reveals": {}, "dice": [], "at": now, "agreed": agreed}
    check_signed_values(nxt, "the next state")
    return nxt, [Event("agreed", timing.RULE, {"step": aw["step"], "players": players, **agreed})]


@dataclass(frozen=True)
class Adjudication:
    """The result of adjudicating a step: the sealed next state, its report and its picture."""

    state: dict[str, Any]
    report: str
    picture: str | None  # SVG of the turn, when something happened on the map
    events: list[Event]
    views: dict[str, dict[str, Any]] = field(default_factory=dict)  # refereed games: one per side
    side_reports: dict[str, str] = field(default_factory=dict)  # refereed games: what each side may see

    @property
    def sequence(self) -> int:
        return int(self.state["pbem"]["sequence"])

    def outputs(self, state_path: Path | None = None, report_path: Path | None = None, folder: Path | None = None) -> list[tuple[Path, str]]:
        """The files to write: the state, the report, and the picture beside the report."""
        base = folder or Path(".")
        state_path = state_path or base / names.state(self.sequence)
        report_path = report_path or state_path.parent / names.report(self.sequence)
        out = [(state_path, dumps(self.state)), (report_path, self.report)]
        if self.picture is not None:
            out.append((report_path.parent / names.picture(self.sequence), self.picture))
        for side, view in sorted(self.views.items()):
            out.append((state_path.parent / names.view(self.sequence, side), dumps(view)))
        for side, text in sorted(self.side_reports.items()):
            out.append((report_path.parent / names.report(self.sequence, side), text))
        return out


def side_reports(prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> dict[str, str]:
    """A refereed game's report for each side: the events it may see (docs/referee.md)."""
    if "referee" not in cur["parties"]:
        return {}
    module = find_module(cur["pbem"]["module"])
    return {side: render_report(module, prev, cur, events, side=side) for side in sorted(cur["parties"]) if side != "referee"}


def derived_files(prev: dict[str, Any], cur: dict[str, Any], events: list[Event], *,
                  picture: bool = True) -> tuple[str, str | None]:
    """The report and the picture of a transition, both derived from it (never the other way round).
    Without ``picture`` (nothing to compare it with), the picture is not drawn where the module can
    tell whether there is one without drawing it (``has_turn_picture``): the report names it alike."""
    module = find_module(cur["pbem"]["module"])
    has = getattr(module, "has_turn_picture", None)
    drawn: str | None = None
    if picture or has is None:
        drawn = module.turn_picture(prev, cur, events)
        shown = drawn is not None
    else:
        shown = bool(has(prev, cur, events))
    seq = int(cur["pbem"]["sequence"])
    report = render_report(module, prev, cur, events, names.picture(seq) if shown else None)
    return report, drawn


def adjudicate(prev: Doc, docs: list[Doc], key: KeyPair, defaulted: list[str] | None = None,
               now: str | None = None) -> Adjudication:
    """Check every input, resolve the step, seal the next state; with its report and picture.
    ``defaulted``: sides adjudicated without orders (their deadline passed). ``now``: the time of
    the adjudication, in a game with deadlines."""
    s = prev.data
    adj = adjudicator_of(s)
    if s["awaits"]["kind"] == "none":
        raise IllegalOrdersError(f"{prev.path}: the game is over; there is nothing to adjudicate")
    if s["parties"][adj]["key"] != key.public_text:
        raise wrong_key(key, adj, prev, hint=f"This step is adjudicated by '{adj}': the other player (or the referee) "
                                             "adjudicates your orders; send them the file.")
    checked = [envelope(prev, d) for d in docs]
    problems: list[Problem] = []
    module = find_module(s["pbem"]["module"])
    for c in checked:
        if c.submission.kind not in ("join", "reveal", "agree"):
            problems += [Problem(f"{c.doc.path}: {p.where}", p.message, p.rule, p.hint) for p in module.check(s, c.submission)]
    if problems:
        raise IllegalOrdersError(f"{len(problems)} problem(s) in the orders; nothing was adjudicated", problems,
                                 hint="The sender fixes them (see `pbem check`) and sends new orders.")
    idx = int(s["parties"][adj]["index"])
    reveal = commit = None
    own_openings = None
    agreement = bool(checked) and all(c.submission.kind == "agree" for c in checked)
    if s["awaits"]["kind"] != "join" and not agreement:
        origin, salt = origin_of(prev), str(s["parties"][adj]["salt"])
        reveal = proto.secret(key, origin, salt, idx)
        commit = proto.commitment(proto.secret(key, origin, salt, idx + 1))
        if adj in s["awaits"].get("open", {}) and adj not in s["awaits"]["from"]:
            try:
                own_openings = openings_for(s, adj, key, origin, salt)
            except ValueError as e:
                raise TamperError(f"{prev.path}: a hidden item it records for {adj} was not sealed by your key for this game") from e
    names = {c.submission.side: str(c.doc.path) for c in checked}
    own_hidden = None
    if s["awaits"]["kind"] == "reveal" and _drew(s, adj):
        own_hidden = proto.hidden_dice_secret(key, origin_of(prev), str(s["parties"][adj]["salt"]))
    body, events = next_state(prev, [c.submission for c in checked], reveal, commit, defaulted, own_openings, names, own_hidden,
                              now)
    sealed = seal(body, adj, key)
    size = len(dumps(sealed).encode("utf-8"))
    if size > MAX_FILE_BYTES:  # never write a state no command could read back
        raise IllegalOrdersError(f"the next state would be {size:,} bytes, more than pbem reads ({MAX_FILE_BYTES:,}); nothing was adjudicated",
                                 hint="The inputs carry more than a game holds (hidden values, most likely): the sender sends a smaller file.")
    report, picture = derived_files(prev.data, sealed, events)
    return Adjudication(sealed, report, picture, events, make_views(sealed, key), side_reports(prev.data, sealed, events))


# --- finding the state a file answers ----------------------------------------------------------

def find_state_for(doc: Doc, folder: Path) -> Doc | None:
    """The state (or, in a refereed game, the side's view) in ``folder`` that ``doc`` answers."""
    wanted = doc.data.get("pbem", {}).get("answers")
    for p in sorted([*folder.glob(names.STATE_GLOB), *folder.glob(names.VIEW_GLOB)]):
        try:
            d = load_doc(p)
        except PbemError:
            continue
        if d.kind in ("state", "view") and answered(d) == wanted:
            return d
    return None
