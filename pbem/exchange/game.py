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
from typing import Any

from pbem import FILE_FORMAT, __version__
from pbem.engine.core import transition
from pbem.engine.model import Event, Submission
from pbem.engine.registry import find_module
from pbem.errors import (
    IllegalOrdersError,
    MalformedFileError,
    PbemError,
    Problem,
    TamperError,
    UsageError,
    VerificationError,
)
from pbem.mechanics.dice import ALGORITHM, MAX_SIDES, Dice, ForcedDice, SeededDice, face_from_seed

from . import dice as proto
from .canonical import (
    canonical,
    check_seal,
    check_signed_values,
    content_digest,
    digest,
    display_path,
    seal,
    unsealed,
)
from .files import MAX_FILE_BYTES, dumps, has_schema, read_toml, schema_problems, validate
from .hidden import (
    after_step,
    drawn_value,
    draws_after,
    hidden_step,
    is_sealed_entry,
    openings_for,
    seal_value,
    versions_of,
)
from .keys import KeyPair, key_id, public_key_from_text
from .report import render_report, report_version
from .views import check_view_against_state, check_views_agree, make_views, verify_views

FORMAT = FILE_FORMAT
MISSING_SHOWN = 10  # sequence numbers named when states are missing from a chain

STATE_NAME = re.compile(r"([0-9]{4,})\.state\.toml")


@dataclass
class Doc:
    """A parsed file: its path, data and digest."""

    path: Path
    data: dict[str, Any]

    @property
    def digest(self) -> str:
        return digest(self.data)

    @property
    def kind(self) -> str:
        return str(self.data.get("pbem", {}).get("kind", ""))


def load_doc(path: Path, schema: str | None = None) -> Doc:
    return parse_doc(read_toml(path), path, schema)


KIND_NAMES = {"state": "a state", "view": "a side's view of a state", "orders": "an order file",
              "join": "a join file", "reply": "a reply file", "reveal": "a reveal file"}
SUBMISSION_KINDS = ("orders", "join", "reply", "reveal")  # the files a side signs and sends
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


def parse_doc(data: dict[str, Any], path: Path, schema: str | None = None) -> Doc:
    """Validate a parsed document (read from a file, or found in an e-mail): schema, no floats, a
    state's seal present. ``path`` names where it came from in messages."""
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
    _seal_first(data, path)
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
    return Doc(path, data)


ENVELOPE_KEYS = {"state": ("pbem", "parties", "awaits", "transition", "hidden", "opened", "draws", "seal"),
                 "view": ("pbem", "parties", "awaits", "transition", "seal"),
                 "orders": ("pbem", "dice", "hidden", "open", "seal")}


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
    if problems:  # the parties, their commitments and who adjudicates: the chain's own fields
        raise TamperError(f"{path}: {len(problems)} problem(s) in the parties and commitments it records: whoever sealed it "
                          "broke the game's chain", problems, hint="Do not accept it.")
    if not problems:
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
_CHAIN_FIELD = re.compile(r"dice\.(reveal|commit|salt|attest)|transition\.(reveals(\.[^.]+)?|seed|attestations(\.[^.]+(\.[a-z_]+)?)?)"
                          r"|parties\.[^.]+\.(commit|salt|key)|pbem\.(origin|previous|answers|of|inputs(\[\d+\])?)")


def _seal_first(data: dict[str, Any], path: Path) -> None:
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
        canonical(unsealed(data))
    except (TypeError, ValueError):
        return  # not JSON (a date): malformed, reported by the value checks
    check_seal(data, str(path))


def load_state(path: Path, check: bool = True, views: bool = True) -> Doc:
    """A state file, or (where ``views``) a side's view of one (README: Referee)."""
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
    check_seal(s, str(doc.path), str(party["key"]))


# --- new and join ------------------------------------------------------------------------------

def state_zero(module_name: str, scenario: str, sides: dict[str, str], referee: str | None, creator: str,
               game_id: str, options: dict[str, Any]) -> dict[str, Any]:
    """The unsealed state 0 of a game: its parties' keys, the scenario's start, awaiting every
    party's join. `pbem verify` re-derives it to trust a history from its start."""
    module = find_module(module_name)
    if sorted(sides) != sorted(module.sides):
        raise UsageError(f"{module.name} needs --side for each of: {', '.join(module.sides)}",
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
    try:
        game = module.new_game(scenario, options)
    except IllegalOrdersError as e:  # no orders exist yet: a bad option is a usage error (exit 2)
        raise UsageError(e.message, e.problems, e.hint) from e
    return {
        "pbem": {"format": FORMAT, "kind": "state", "game": game_id, "module": module.name, "ruleset": module.ruleset,
                 "scenario": scenario, "data": module.data_digest(scenario), "sequence": 0, "origin": "", "previous": "",
                 "inputs": [], "dice_algorithm": ALGORITHM, "creator": creator},
        "parties": parties,
        **game,
        "awaits": {"kind": "join", "step": "join", "from": sorted(parties), "adjudicator": creator},
    }


def new_game(module_name: str, scenario: str, sides: dict[str, str], referee: str | None, key: KeyPair,
             game_id: str, options: dict[str, Any]) -> dict[str, Any]:
    """State 0: the game, its parties' keys, awaiting every party's join (docs/protocol.md)."""
    keys = {**sides, **({"referee": referee} if referee else {})}
    creator = next((p for p, k in sorted(keys.items()) if k == key.public_text), None)
    if creator is None:
        raise UsageError("--key is not the key of any party of the new game",
                         hint="The creator must be one of the players or the referee.")
    state = state_zero(module_name, scenario, sides, referee, creator, game_id, options)
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
    _check_origin(state)  # the start of a game pbem knows, as `pbem new` makes it
    if side not in s["parties"]:
        raise UsageError(f"'{side}' is not a party of this game", hint=f"Parties: {', '.join(s['parties'])}.")
    if s["parties"][side]["key"] != key.public_text:
        raise UsageError(f"--key is not {side}'s key in this game (key id {key.key_id})")
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


def check_orders(state: Doc, doc: Doc) -> Checked:
    """`pbem check`: the envelope (a draft may be unsealed) and every rule problem."""
    c = envelope(state, doc, require_seal=False)
    if c.submission.kind not in ("join", "reveal"):
        module = find_module(state.data["pbem"]["module"])
        data = state.data
        if state.kind == "view" and "question" in data:
            data = {**data, "pending": {"question": data["question"]}}
        plain = {k: v for k, v in doc.data.get("hidden", {}).items() if not is_sealed_entry(v)}
        c.problems = hidden_value_problems(module.name, plain, str(doc.path))
        if not c.problems:  # the game's rules see values of the types its schema gives
            c.problems = module.check(data, c.submission)
    return c


def sign_orders(path: Path, raw_text: str, data: dict[str, Any], key: KeyPair, state: Doc, force: bool = False) -> str:
    """Seal an order file that answers ``state`` (a state or a view): add the dice reveal and next
    commitment of the sender's secret chain in this game, then the seal.

    The seal and dice tables are appended to the file's own text, so comments stay; the signature
    covers the data (docs/protocol.md).
    """
    h = data.get("pbem", {})
    if "seal" in data or "dice" in data:
        if not force:
            raise UsageError(f"{path}: already has [dice] or [seal]", hint="Use --force to seal it again (the file is rewritten).")
        data = {k: v for k, v in data.items() if k not in ("seal", "dice")}
        raw_text = dumps(data)
    if "dice_index" not in h:
        raise MalformedFileError(f"{path}: pbem.dice_index is missing", hint="Start from `pbem template`, which fills it in.")
    side = str(h["side"])
    party = state.data["parties"].get(side)
    if party is None:
        raise UsageError(f"{path}: '{side}' is not a party of the game of {state.path}")
    if party["key"] != key.public_text:
        raise UsageError(f"--key is not {side}'s key in this game (key id {key.key_id})")
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


def _drew(state: dict[str, Any], side: str) -> bool:
    """Whether ``side`` holds a value it drew hidden (its hidden-dice secret is revealed at the end)."""
    return any("draw" in v for rec in state.get("hidden", {}).get(side, {}).values() for v in rec["versions"]) \
        or any(rec.get("draws") for rec in state.get("opened", {}).get(side, {}).values())


def seal_hidden(path: Path, data: dict[str, Any], key: KeyPair, state: Doc, side: str, origin: str,
                salt: str) -> tuple[dict[str, Any], bool]:
    """A draft's hidden values replaced by their commitments and boxes, and the openings the
    awaited step asks of the side added (docs/protocol.md, Hidden values); whether anything changed."""
    s = state.data
    out = dict(data)
    changed = False
    draws = s.get("draws", {}).get(side, [])
    if draws:  # the draws the game asked of the side: made with its hidden-dice secret, committed hidden
        module = find_module(str(s["pbem"]["module"]))
        secret = proto.hidden_dice_secret(key, origin, salt)
        if any(r["item"] in data.get("hidden", {}) for r in draws):
            raise IllegalOrdersError(f"{path}: [hidden]: {', '.join(r['item'] for r in draws)} are drawn, not chosen: "
                                     "`pbem sign` makes the draws", hint="Leave those items out of the file.")
        data = {**data, "hidden": {**data.get("hidden", {}), **{r["item"]: drawn_value(module, secret, side, r) for r in draws}}}
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
            sealed[item] = seal_value(key, origin, salt, side, item, version, value)
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
               names: dict[str, str] | None = None, adj_hidden: str | None = None) -> tuple[dict[str, Any], list[Event]]:
    """The unsealed next state and its events: the deterministic core shared by adjudicate and verify.

    ``defaulted`` names awaited sides that sent nothing by the deadline; only a referee may
    adjudicate without them, and they are treated as having sent empty orders (README: Referee).
    ``adj_openings``: the hidden items the step asks the adjudicator itself to open, opened (from
    its key when adjudicating, from ``transition.openings`` when verifying). ``names``: each
    input's file, by side, for messages.
    """
    s = prev.data
    defaulted = sorted(defaulted or [])
    if defaulted:
        if adjudicator_of(s) != "referee":
            raise UsageError("only a referee may adjudicate a step without a side's orders (--no-orders)")
        if s["awaits"]["kind"] == "join":
            raise UsageError("a join cannot be adjudicated without the party")
        unknown = [d for d in defaulted if d not in s["awaits"]["from"]]
        if unknown:
            raise UsageError(f"--no-orders {', '.join(unknown)}: the step does not await anything from {', '.join(unknown)}")
        if any(x.side in defaulted for x in subs):
            raise UsageError("a side cannot both send orders and be adjudicated without them")
    module = find_module(s["pbem"]["module"])
    if s["pbem"]["ruleset"] != module.ruleset:
        raise VerificationError(f"{prev.path}: the game uses the rules '{s['pbem']['ruleset']}', this pbem adjudicates '{module.ruleset}'",
                                hint="Install the pbem version the game was created with.")
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
            game["draws"] = draws_after(before, game, seed.hex(), int(s["pbem"]["sequence"]) + 1)
        game = after_step(before, game)
    elif game.get("draws"):
        raise VerificationError("a game asks for a hidden draw only in a step with dice of a game without a referee (not at the "
                                "joins, whose step has no seed; a referee draws in the open and views hide the result)",
                                hint="The game module is wrong; report it.")
    naw = game["awaits"]
    if naw["kind"] not in ("join", "none") and naw["adjudicator"] in naw["from"]:
        raise VerificationError(f"the game module makes {naw['adjudicator']} both send a file in step {naw['step']} and adjudicate it: "
                                "a party cannot reveal its dice secret twice in one step", hint="The game module is wrong; report it.")
    events = opened_events + list(t.events)
    if defaulted:
        events.insert(0, Event("no-orders", "referee", {"sides": defaulted, "step": aw["step"]}))
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
    check_signed_values(nxt, "the next state")
    return nxt, events


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
        state_path = state_path or base / f"{self.sequence:04d}.state.toml"
        report_path = report_path or state_path.parent / f"{self.sequence:04d}.report.md"
        out = [(state_path, dumps(self.state)), (report_path, self.report)]
        if self.picture is not None:
            out.append((report_path.parent / picture_name(self.sequence), self.picture))
        for side, view in sorted(self.views.items()):
            out.append((state_path.parent / f"{self.sequence:04d}-{side}.view.toml", dumps(view)))
        for side, text in sorted(self.side_reports.items()):
            out.append((report_path.parent / side_report_name(self.sequence, side), text))
        return out


def side_report_name(sequence: int, side: str) -> str:
    return f"{sequence:04d}-{side}.report.md"


def side_reports(prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> dict[str, str]:
    """A refereed game's report for each side: the events it may see (README: Referee)."""
    if "referee" not in cur["parties"]:
        return {}
    module = find_module(cur["pbem"]["module"])
    return {side: render_report(module, prev, cur, events, side=side) for side in sorted(cur["parties"]) if side != "referee"}


def picture_name(sequence: int) -> str:
    return f"{sequence:04d}.turn.svg"


def derived_files(prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> tuple[str, str | None]:
    """The report and the picture of a transition, both derived from it (never the other way round)."""
    module = find_module(cur["pbem"]["module"])
    picture = module.turn_picture(prev, cur, events)
    seq = int(cur["pbem"]["sequence"])
    report = render_report(module, prev, cur, events, picture_name(seq) if picture is not None else None)
    return report, picture


def adjudicate(prev: Doc, docs: list[Doc], key: KeyPair, defaulted: list[str] | None = None) -> Adjudication:
    """Check every input, resolve the step, seal the next state; with its report and picture.
    ``defaulted``: sides a referee adjudicates without orders (their deadline passed)."""
    s = prev.data
    adj = adjudicator_of(s)
    if s["awaits"]["kind"] == "none":
        raise IllegalOrdersError(f"{prev.path}: the game is over; there is nothing to adjudicate")
    if s["parties"][adj]["key"] != key.public_text:
        raise UsageError(f"this step is adjudicated by '{adj}', and --key is not {adj}'s key (key id {key.key_id})",
                         hint="The other player (or the referee) adjudicates your orders: send them the file.")
    checked = [envelope(prev, d) for d in docs]
    problems: list[Problem] = []
    module = find_module(s["pbem"]["module"])
    for c in checked:
        if c.submission.kind not in ("join", "reveal"):
            problems += [Problem(f"{c.doc.path}: {p.where}", p.message, p.rule, p.hint) for p in module.check(s, c.submission)]
    if problems:
        raise IllegalOrdersError(f"{len(problems)} problem(s) in the orders; nothing was adjudicated", problems,
                                 hint="The sender fixes them (see `pbem check`) and sends new orders.")
    idx = int(s["parties"][adj]["index"])
    reveal = commit = None
    own_openings = None
    if s["awaits"]["kind"] != "join":
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
    body, events = next_state(prev, [c.submission for c in checked], reveal, commit, defaulted, own_openings, names, own_hidden)
    sealed = seal(body, adj, key)
    size = len(dumps(sealed).encode("utf-8"))
    if size > MAX_FILE_BYTES:  # never write a state no command could read back
        raise IllegalOrdersError(f"the next state would be {size:,} bytes, more than pbem reads ({MAX_FILE_BYTES:,}); nothing was adjudicated",
                                 hint="The inputs carry more than a game holds (hidden values, most likely): the sender sends a smaller file.")
    report, picture = derived_files(prev.data, sealed, events)
    return Adjudication(sealed, report, picture, events, make_views(sealed, key), side_reports(prev.data, sealed, events))


# --- before revealing a secret --------------------------------------------------------------------

def check_before_reveal(state: Doc, party: str, key: KeyPair) -> None:
    """Before ``party`` reveals a dice secret for ``state`` (signing a file that answers it, or
    adjudicating it), the state must continue the game's history as the folder beside it holds it,
    so that no forged, forked or replayed state can draw a secret out of its turn (docs/protocol.md,
    Threat model): the game's first state as `pbem new` makes it; every state since sealed by the
    adjudicator the one before names, with the game's keys, one per sequence number; the last
    transition replayed (in a refereed game, the side's views from the first state); the party's
    own join, sealed by its key, the only one for this game, with the salt the state records; and
    the secret not already revealed, in any file of the folder, for another state."""
    folder = state.path.parent
    zero_path = folder / "0000.state.toml"
    if not zero_path.is_file():
        raise UsageError(f"{state.path}: pbem reveals your dice secret only for a state whose history it can check from "
                         f"the game's first state, and {zero_path} is not there",
                         hint="Keep the game's files in one folder (0000.state.toml and your join at least).")
    zero = load_state(zero_path)
    _check_origin(zero)
    docs = [d for d in (_load_quietly(p) for p in sorted(folder.glob("*.toml"))) if d is not None]
    by_seq: dict[tuple[str, int, str], Doc] = {}
    for d in docs:
        if d.kind in ("state", "view"):
            k = (d.kind, int(d.data["pbem"]["sequence"]), str(d.data["pbem"].get("side", "")))
            if k in by_seq and by_seq[k].digest != d.digest:
                raise TamperError(f"{state.path}: {by_seq[k].path} and {d.path} are two different {d.kind}s with sequence number "
                                  f"{k[1]} (a fork): pbem reveals no secret in a game that has two histories",
                                  hint="Keep both files as proof; answer only the history you received first.")
            by_seq[k] = d
    if state.kind == "view":
        views = [d for d in docs if d.kind == "view" and d.data["pbem"]["side"] == state.data["pbem"]["side"]
                 and int(d.data["pbem"]["sequence"]) <= int(state.data["pbem"]["sequence"])]
        if not any(d.digest == state.digest for d in views):
            views.append(state)
        verify_views([(str(d.path), d.data) for d in views], start=(str(zero.path), zero.data))
    else:
        _check_history_to(state, zero, docs)
    origin = zero.digest
    party_rec = state.data["parties"].get(party)
    if party_rec is None or "salt" not in party_rec:
        raise TamperError(f"{state.path}: {party} has not joined this game")
    my_key = str(zero.data["parties"][party]["key"])
    salts = set()
    for d in docs:
        if d.kind == "join" and d.data["pbem"]["side"] == party and d.data["pbem"]["answers"] == origin and "seal" in d.data:
            try:
                check_seal(d.data, str(d.path), my_key)
            except TamperError:
                continue
            salts.add(str(d.data.get("dice", {}).get("salt")))
    if len(salts) > 1:
        raise TamperError(f"{folder}: holds {len(salts)} joins of {party} for this game, with different salts: the game's first "
                          "state was offered twice (replayed)", hint="Answer only the game you joined first; keep the files as proof.")
    if salts != {str(party_rec["salt"])}:
        raise TamperError(f"{state.path}: the salt it records for {party} is not the one of {party}'s join in {folder}",
                          hint="The state builds on another join than yours (a replayed game?): do not answer it.")
    index = int(party_rec["index"])
    secret = proto.secret(key, origin, str(party_rec["salt"]), index)
    here = answered(state)
    for d in docs:
        h = d.data["pbem"]
        if d.kind in ("orders", "reply", "reveal") and d.data.get("dice", {}).get("reveal") == secret and h.get("answers") != here:
            raise TamperError(f"{state.path}: your secret number {index} was already revealed by {d.path}, for another state",
                              hint="A secret is revealed once: this state is a fork or a replay; do not answer it.")
        if d.kind in ("state", "view") and d.data.get("transition", {}).get("reveals", {}).get(party) == secret \
                and h.get("previous") != here:
            raise TamperError(f"{state.path}: your secret number {index} was already revealed in {d.path}, for another state",
                              hint="A secret is revealed once: this state is a fork or a replay; do not answer it.")


def _check_history_to(state: Doc, zero: Doc, docs: list[Doc]) -> None:
    """The states of the folder from 0000 to ``state``: chained, sealed by their adjudicators with
    the game's keys; the transitions after the last one the party took part in replayed."""
    n = int(state.data["pbem"]["sequence"])
    by_seq = {int(d.data["pbem"]["sequence"]): d for d in docs if d.kind == "state"}
    by_seq[n] = state
    by_seq[0] = zero
    missing = [k for k in range(n + 1) if k not in by_seq]
    if missing:
        raise UsageError(f"{state.path}: states {', '.join(f'{k:04d}' for k in missing[:10])} are not in the folder, so "
                         "pbem cannot check the history this state continues",
                         hint="Keep every state of the game in its folder.")
    inputs = {d.digest: d for d in docs if d.kind in SUBMISSION_KINDS}
    for k in range(1, n + 1):
        prev, cur = by_seq[k - 1], by_seq[k]
        if cur.data["pbem"]["previous"] != prev.digest:
            raise TamperError(f"{cur.path}: its previous-state digest is not that of {prev.path}: the chain is broken")
        adj = adjudicator_of(prev.data)
        check_state_seal(cur, adj)
        if {p: v["key"] for p, v in cur.data["parties"].items()} != {p: v["key"] for p, v in zero.data["parties"].items()}:
            raise TamperError(f"{cur.path}: the parties' keys are not the game's")
    # replayed: the transitions since the last state whose inputs all were here before (the latest is
    # the one this state comes from, which nobody has checked yet)
    if n > 0:
        others = [d for d in docs if d.kind != "state"]
        check_transition(by_seq[n - 1], by_seq[n], inputs, others)


# --- verify ------------------------------------------------------------------------------------

@dataclass
class VerifyResult:
    states: int = 0
    transitions: int = 0
    reports: int = 0
    pictures: int = 0
    views: int = 0
    dice: int = 0
    last: str = ""
    anchor: str = ""  # the state the history is trusted from
    anchor_digest: str = ""
    anchor_how: str = ""  # why it is trusted: the game's start re-derived, or named with --from
    notes: list[str] = field(default_factory=list)


def collect(paths: list[Path]) -> tuple[list[Doc], list[Doc], dict[str, Path]]:
    """States, other game files, and report paths from folders or files."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += sorted(x for x in p.iterdir() if x.is_file() and not x.name.startswith("."))
        elif p.is_file():
            files.append(p)
        else:
            raise MalformedFileError(f"{p}: no such file or folder")
    states: list[Doc] = []
    others: list[Doc] = []
    reports: dict[str, Path] = {}
    for f in files:
        if f.name.endswith(".report.md"):
            reports[f.name[: -len(".report.md")]] = f
        elif f.suffix == ".toml":
            d = load_doc(f)
            (states if d.kind == "state" else others).append(d)
    return states, others, reports


@dataclass(frozen=True)
class Equivocation:
    """Two different signed contents by one key for one step: the proof is the two files themselves
    (anyone can check both seals and compare what they answer)."""

    what: str  # "submission" or "state"
    first: Doc
    second: Doc

    def error(self) -> TamperError:
        a, b = self.first, self.second
        signer = str(a.data["seal"]["signer"])
        key = str(a.data["seal"]["key"])
        if self.what == "state":
            step = f"state {int(a.data['pbem']['sequence']):04d} (after {str(a.data['pbem']['previous'])[:19]}...)"
        else:
            h = a.data["pbem"]
            step = f"{h['kind']} for step {h['step']} answering {str(h['answers'])[:19]}..."
        problems = [Problem(str(d.path), f"sealed by {signer} (key {key_id(key)}), digest {d.digest}, signed content {content_digest(d.data)}",
                            "equivocation") for d in (a, b)]
        if self.what == "submission" and a.kind == "join" and b.kind == "join":
            return TamperError(
                f"two joins by '{signer}' of one first state ({str(a.data['pbem']['answers'])[:19]}...): {a.path} and {b.path}; "
                "its creator offered that first state twice (a replayed game), or the party joined it twice",
                problems, hint="Answer only the game you joined first. A party's ledger (pbem join) refuses to join a game it played.")
        return TamperError(
            f"equivocation: '{signer}' signed two different files for one step, {step}: {a.path} and {b.path}",
            problems,
            hint="Both seals are valid: the two files prove that this party signed both (check them with `pbem verify` "
                 "on the two files alone). Keep them; accept only the first one you received, and see the README (Equivocation).")


def find_equivocation(docs: list[Doc]) -> Equivocation | None:
    """The first pair of well-sealed files by one key for one step with different signed content:
    two submissions answering one state for one side, or two states with one sequence number (or
    one previous state). Files with a broken seal are not counted (they are forgeries, reported as
    such)."""
    seen: dict[tuple[str, ...], Doc] = {}
    for d in sorted(docs, key=lambda x: str(x.path)):
        if "seal" not in d.data:
            continue
        h = d.data["pbem"]
        if d.kind in SUBMISSION_KINDS:
            keys = [("submission", str(h["game"]), str(h["answers"]), str(h["side"]))]
        elif d.kind == "state":
            keys = [("state", str(h["game"]), "seq", str(h["sequence"]))]
            if h["previous"]:
                keys.append(("state", str(h["game"]), "prev", str(h["previous"])))
        else:
            continue
        try:
            check_seal(d.data, str(d.path))
        except TamperError:
            continue
        for k in keys:
            other = seen.get((*k, str(d.data["seal"]["key"])))
            if other is None:
                seen[(*k, str(d.data["seal"]["key"]))] = d
            elif content_digest(other.data) != content_digest(d.data):
                return Equivocation(k[0], other, d)
    return None


def _check_own_seals(states: list[Doc], others: list[Doc]) -> None:
    """Every signed file's seal, checked first against the key its own signer has in it (a state)
    or that signs it (a submission): a file changed after it was signed is tampering, whatever its
    changed fields say (a sequence number, a step, a side). Whose key it must be is the chain's
    question, asked next."""
    for d in states:
        check_state_seal(d)
    for d in others:
        if d.kind in SUBMISSION_KINDS and "seal" in d.data:
            check_seal(d.data, str(d.path))


def _check_origin(first: Doc) -> str:
    """State 0 must be exactly the start of a known game: its module's state 0 for its scenario,
    options, parties and creator (re-derived). Returns how it was trusted."""
    h = first.data["pbem"]
    parties = first.data["parties"]
    sides = {p: str(v["key"]) for p, v in parties.items() if p != "referee"}
    referee = str(parties["referee"]["key"]) if "referee" in parties else None
    try:
        body = state_zero(str(h["module"]), str(h["scenario"]), sides, referee, str(h["creator"]), str(h["game"]),
                          dict(first.data["options"]))
    except PbemError as e:
        raise VerificationError(f"{first.path}: not the start of a game this pbem knows ({e.message})",
                                hint="A history is trusted from its start (state 0000) or from a state you hold (--from DIGEST).") from e
    if canonical(body) != canonical(unsealed(first.data)):
        raise VerificationError(f"{first.path}: is not the state 0 of scenario '{h['scenario']}' with its options and parties "
                                f"(first difference at {_first_difference(body, unsealed(first.data))})",
                                hint="A game's first state is what `pbem new` makes; this one was made otherwise: do not trust it.")
    check_state_seal(first, str(h["creator"]))
    return f"the game's start, re-derived from scenario '{h['scenario']}'"


def check_transition(prev: Doc, cur: Doc, inputs: dict[str, Doc], others: list[Doc],
                     notes: list[str] | None = None) -> list[Event]:
    """One transition of the trusted chain: ``cur`` sealed by the adjudicator ``prev`` names, with the
    same key; every input present, sealed, awaited, revealing its committed secret; no party
    committing again to a secret already used; and the replay of the rules giving exactly ``cur``.
    Returns the replay's events."""
    adj = adjudicator_of(prev.data)
    check_state_seal(cur, adj)
    if cur.data["parties"][adj]["key"] != prev.data["parties"][adj]["key"]:
        raise TamperError(f"{cur.path}: the key of '{adj}' changed")
    subs = []
    for dg in cur.data["pbem"]["inputs"]:
        if dg not in inputs:
            raise VerificationError(f"{cur.path}: input {dg[:19]}... is not in the folder",
                                    hint="Put every order, join and reply file of the game in the folder.")
        subs.append(envelope(prev, inputs[dg]).submission)
    tr = cur.data.get("transition", {})
    defaulted = list(tr.get("defaulted", []))
    if defaulted and adj != "referee":
        raise VerificationError(f"{cur.path}: records sides adjudicated without their orders ({', '.join(map(str, defaulted))}), "
                                "which only a referee may do", hint="The adjudicator's state is not what the rules give: do not accept it.")
    for side in defaulted:
        held = [d for d in others if d.kind in ("orders", "reply", "reveal") and d.data["pbem"].get("answers") == prev.digest
                and d.data["pbem"].get("side") == side and "seal" in d.data]
        if held and notes is not None:
            notes.append(f"{cur.path}: adjudicated without {side}'s orders, but {held[0].path}, sealed by {side} for that very "
                         "state, is in the folder: they arrived late, or the referee had them (ask him, with both files)")
    reveal = tr.get("reveals", {}).get(adj) if prev.data["awaits"]["kind"] != "join" else None
    commit = cur.data["parties"][adj].get("commit")
    names = {inputs[dg].data["pbem"]["side"]: str(inputs[dg].path) for dg in cur.data["pbem"]["inputs"]} | {"@state": str(cur.path)}
    try:
        expected, events = next_state(prev, subs, reveal, commit, defaulted, tr.get("openings", {}).get(adj), names,
                                      tr.get("hidden_reveals", {}).get(adj))
    except UsageError as e:
        raise VerificationError(f"{cur.path}: {e.message}") from e
    if canonical(expected) != canonical(unsealed(cur.data)):
        diff = _first_difference(expected, unsealed(cur.data))
        raise VerificationError(f"{cur.path}: does not follow from {prev.path}, its inputs and the revealed dice (first difference at {diff})",
                                hint="The adjudicator's state is not what the rules give: do not accept it.")
    return events


def verify(paths: list[Path], progress: Any = None, anchor: str | None = None) -> VerifyResult:
    """Signatures, the chain, the commitments and a deterministic replay of every transition,
    trusted from the game's first state (re-derived) or from the state whose digest is ``anchor``."""
    states, others, reports = collect(paths)
    _check_own_seals(states, others)
    eq = find_equivocation(states + others)
    if eq is not None:
        raise eq.error()
    views = [d for d in others if d.kind == "view"]
    if views and all(int(d.data["pbem"]["sequence"]) == 0 for d in states):  # a player's folder in a refereed game
        res = VerifyResult()
        start = None
        if states:
            zero = states[0]
            res.anchor, res.anchor_digest, res.anchor_how = str(zero.path), zero.digest, _check_origin(zero)
            start = (str(zero.path), zero.data)
        check_views_agree([(str(d.path), d.data) for d in views])  # two sides shown two stories: proof on its own
        counts = {"views": 0, "dice": 0}
        for side in sorted({str(d.data["pbem"]["side"]) for d in views}):
            c = verify_views([(str(d.path), d.data) for d in views if d.data["pbem"]["side"] == side], start=start, anchor=anchor)
            counts = {k: counts[k] + c[k] for k in counts}
        check_views_agree([(str(d.path), d.data) for d in views])
        if start is None:
            anchored = next(d for d in views if anchor in (d.digest, d.data["pbem"]["of"]))
            res.anchor, res.anchor_digest, res.anchor_how = str(anchored.path), str(anchor), "named with --from"
        last = max(views, key=lambda d: int(d.data["pbem"]["sequence"]))
        res.views, res.dice, res.last = counts["views"], counts["dice"], str(last.path)
        res.notes = ["views only: seals, chain, commitments and dice checked; the hidden part of each "
                     "transition is the referee's to adjudicate (README: Referee)"]
        return res
    if not states:
        if others:
            raise VerificationError("no state files found; the order, join and reply files given have good seals "
                                    "and no two of them conflict",
                                    hint="Give a game folder or its .state.toml files to check a history.")
        raise MalformedFileError("no state files found", hint="Give a game folder or its .state.toml files.")
    games = {d.data["pbem"]["game"] for d in states}
    if len(games) > 1:
        raise TamperError(f"the files belong to different games: {', '.join(sorted(games))}")
    by_seq: dict[int, Doc] = {}
    for d in states:
        n = int(d.data["pbem"]["sequence"])
        if n in by_seq and by_seq[n].digest != d.digest:
            raise TamperError(f"fork: {by_seq[n].path} and {d.path} are two different states with sequence number {n}",
                              hint="Only one of them can be the game; find out who sent which.")
        by_seq[n] = d
    seqs = sorted(by_seq)
    res = VerifyResult()
    if anchor is None:
        first = by_seq[seqs[0]]
        if seqs[0] != 0:
            raise VerificationError(f"the history starts at {first.path} (sequence {seqs[0]}), not at the game's first state",
                                    hint="pbem trusts a history from its start (0000.state.toml), or from a state you hold: "
                                         "give its digest with --from (`pbem status` prints it).")
        res.anchor, res.anchor_digest, res.anchor_how = str(first.path), first.digest, _check_origin(first)
    else:
        held = [d for d in states if d.digest == anchor]
        if not held:
            raise VerificationError(f"--from {anchor[:19]}...: no state among the files given has this digest",
                                    hint="Give the digest `pbem status` prints for the state you hold (sha256:...).")
        res.anchor, res.anchor_digest, res.anchor_how = str(held[0].path), anchor, "named with --from"
    # the gaps between the sequence numbers found, as numbers or ranges (an absurd number is one gap)
    gaps = [(a + 1, b - 1) for a, b in zip(seqs, seqs[1:], strict=False) if b - a > 1]
    if gaps:
        missing = ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}-{b}" for a, b in gaps)
        raise VerificationError(f"states missing from the chain: sequence {missing}")
    # Each state names the digest of the one before (so a trusted state vouches for every state
    # before it) and is sealed by the party the state before names as its adjudicator, with the
    # key the chain carries from the trusted state on; and it must replay.
    inputs = {d.digest: d for d in others}
    res.states = 1
    seen_commits = {str(v["commit"]) for v in by_seq[seqs[0]].data["parties"].values() if "commit" in v}
    for n in seqs[1:]:
        prev, cur = by_seq[n - 1], by_seq[n]
        if progress:
            progress(n, seqs[-1])
        if cur.data["pbem"]["previous"] != prev.digest:
            raise TamperError(f"{cur.path}: its previous-state digest is not that of {prev.path}: the chain is broken")
        events = check_transition(prev, cur, inputs, others, res.notes)
        for party, v in cur.data["parties"].items():
            c = v.get("commit")
            if c is not None and c != prev.data["parties"][party].get("commit") and c in seen_commits \
                    or party in cur.data.get("transition", {}).get("reveals", {}) and c == prev.data["parties"][party].get("commit"):
                raise TamperError(f"{cur.path}: {party} commits again to a dice secret already committed to (and revealed) "
                                  "earlier in the game", hint="A secret is used once; the next one is new.")
            if c is not None:
                seen_commits.add(str(c))
        stem = cur.path.name[: -len(".state.toml")]
        if stem in reports:
            written = reports[stem].read_text(encoding="utf-8", errors="replace")
            by = report_version(written)
            if by is not None and by != __version__:
                res.notes.append(f"{reports[stem]}: written by pbem {by}; reports and pictures are compared only with the pbem that wrote them")
            else:
                text, picture = derived_files(prev.data, cur.data, events)
                if written != text:
                    raise VerificationError(f"{reports[stem]}: the report does not match the transition it describes",
                                            hint="A report is derived from its transition; regenerate it or find out who changed it.")
                res.reports += 1
                for side, side_text in side_reports(prev.data, cur.data, events).items():
                    sp = reports.get(f"{stem}-{side}")
                    if sp is not None:
                        if sp.read_text(encoding="utf-8", errors="replace") != side_text:
                            raise VerificationError(f"{sp}: the {side} side's report does not match the transition it describes")
                        res.reports += 1
                pic_path = reports[stem].parent / picture_name(n)
                if picture is not None and pic_path.exists():
                    if pic_path.read_text(encoding="utf-8", errors="replace") != picture:
                        raise VerificationError(f"{pic_path}: the picture does not match the transition it shows")
                    res.pictures += 1
        res.transitions += 1
        res.states += 1
    by_digest = {d.digest: d for d in states}
    last = by_seq[seqs[-1]]
    beyond: list[Doc] = []
    for v in views:
        st = by_digest.get(str(v.data["pbem"]["of"]))
        if st is not None:
            check_view_against_state(v.data, st.data, str(v.path))
            res.views += 1
        elif int(v.data["pbem"]["sequence"]) > seqs[-1]:
            beyond.append(v)  # the referee's later states are not here: checked as a player checks them
        else:
            raise TamperError(f"{v.path}: shows a state {int(v.data['pbem']['sequence']):04d} other than the one here",
                              hint="The referee's view does not show his state: keep both as proof.")
    for side in sorted({str(v.data["pbem"]["side"]) for v in beyond}):
        c = verify_views([(str(v.path), v.data) for v in beyond if v.data["pbem"]["side"] == side], start=(str(last.path), last.data))
        res.views += c["views"]
        res.dice += c["dice"]
    check_views_agree([(str(v.path), v.data) for v in views])
    res.last = str(by_seq[seqs[-1]].path)
    return res


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".")
            if canonical(a[k]) != canonical(b[k]):
                return _first_difference(a[k], b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if canonical(x) != canonical(y):
                return _first_difference(x, y, f"{path}[{i}]")
        return f"{path} (length {len(a)} vs {len(b)})"
    return path.lstrip(".") or "(top)"


# --- audit -------------------------------------------------------------------------------------

def audit(state_path: Path) -> dict[str, Any]:
    """Every die of the transition that produced the state, re-derived from the reveals, after the
    transition itself is checked as `pbem verify` checks it (seals, inputs, reveals, replay)."""
    cur = load_state(state_path)
    folder = state_path.parent
    n = int(cur.data["pbem"]["sequence"])
    if n == 0:
        return {"state": str(state_path), "sequence": 0, "dice": [], "note": "state 0 has no transition"}
    prev_path = folder / f"{n - 1:04d}.state.toml"
    if not prev_path.exists():
        raise UsageError(f"{prev_path}: the previous state is needed to audit {state_path}")
    prev = load_state(prev_path)
    if cur.data["pbem"]["previous"] != prev.digest:
        raise TamperError(f"{state_path}: its previous-state digest is not that of {prev_path}")
    others = [d for d in (_load_quietly(p) for p in sorted(folder.glob(f"{n - 1:04d}-*.toml"))) if d is not None]
    tr = cur.data.get("transition", {})
    if prev.data["awaits"]["kind"] == "join":
        check_transition(prev, cur, {d.digest: d for d in others}, others)
        return {"state": str(state_path), "sequence": n, "previous": prev.digest, "inputs": cur.data["pbem"]["inputs"],
                "seed": "", "commitments": [], "dice": [], "algorithm": ALGORITHM,
                "note": "the transition from the joins rolls no dice"}
    # the dice first, each failure named (a reveal, the seed, a die), then the whole transition replayed
    aw = prev.data["awaits"]
    expected = (set(aw["from"]) - set(tr.get("defaulted", []))) | {str(aw["adjudicator"])}
    if set(tr.get("reveals", {})) != expected:
        raise TamperError(f"{state_path}: reveals recorded for {', '.join(sorted(tr.get('reveals', {}))) or 'nobody'}; "
                          f"the step's seed takes those of {', '.join(sorted(expected))}")
    commitments = []
    for party, rev in sorted(tr.get("reveals", {}).items()):
        commit = prev.data["parties"][party].get("commit", "")
        if not proto.reveal_matches(rev, commit):
            raise TamperError(f"{state_path}: {party}'s reveal does not match its commitment in {prev_path}")
        commitments.append({"party": party, "reveal": rev, "commitment": commit, "matches": True})
    seed = proto.transition_seed(prev.digest, dict(tr.get("reveals", {})))
    if tr.get("seed") != seed.hex():
        raise TamperError(f"{state_path}: the recorded seed is not the one derived from the reveals")
    rows = []
    for r in tr.get("dice", []):
        sides = r["sides"]
        if not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES:
            raise TamperError(f"{state_path}: die '{r['label']}' has {sides} sides; dice have 2 to {MAX_SIDES}")
        face, trail = face_from_seed(seed, r["label"], sides)
        if face != r["face"]:
            raise TamperError(f"{state_path}: die '{r['label']}' is recorded as {r['face']} but the seed gives {face}")
        used = [t for t in trail if t[2]][0]
        rows.append({"label": r["label"], "sides": sides, "recorded": r["face"], "derived": face,
                     "hmac": proto_hmac_hex(seed, r["label"]), "byte": used[1], "rejected": sum(1 for t in trail if not t[2]),
                     "matches": True})
    check_transition(prev, cur, {d.digest: d for d in others}, others)
    return {"state": str(state_path), "sequence": n, "previous": prev.digest, "inputs": cur.data["pbem"]["inputs"],
            "seed_material": proto.seed_material(prev.digest, dict(tr.get("reveals", {}))),
            "seed": seed.hex(), "commitments": commitments, "dice": rows, "algorithm": ALGORITHM}


def _load_quietly(p: Path) -> Doc | None:
    try:
        return load_doc(p)
    except PbemError:
        return None


def proto_hmac_hex(seed: bytes, label: str) -> str:
    from pbem.mechanics.dice import hmac_stream

    return hmac_stream(seed, label, 0).hex()


def find_state_for(doc: Doc, folder: Path) -> Doc | None:
    """The state (or, in a refereed game, the side's view) in ``folder`` that ``doc`` answers."""
    wanted = doc.data.get("pbem", {}).get("answers")
    for p in sorted([*folder.glob("*.state.toml"), *folder.glob("*.view.toml")]):
        try:
            d = load_doc(p)
        except PbemError:
            continue
        if d.kind in ("state", "view") and answered(d) == wanted:
            return d
    return None
