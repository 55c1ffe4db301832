"""The rules catalog: numbered cases, each a position, the orders of one step, the dice and what must
come of it, run against a game module (`pbem catalog run`, and the tests).

A case file (``PREFIX-NNN-short-name.toml``) is checked against the shared schema of case files
(schemas/case.schema.json), and its game is the module whose ``case_prefix`` starts its id. The
module builds the state the case starts from (``catalog_state``); the runner plays the step as a
game does (``check``, then ``resolve`` with the case's dice, then each reply), and checks the
expectations every game shares (legality and the problems, the dice rolled, what is awaited, the
result, the events, the report's words, the hidden values opened, still hidden, claimed or refused);
the module checks its own (``catalog_expect``).

Hidden values (docs/protocol.md) are played as the core keeps them, without the cryptography: a
file's ``[hidden]`` values are recorded (sealed in the file, kept by the runner), what a step asks
is opened and checked with the module's ``check_opening``, and a game that ends with values hidden
has them all opened, as its last step does.
"""

from __future__ import annotations

import copy
import hashlib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import FILE_FORMAT
from pbem.engine.model import Event, Submission, Transition
from pbem.errors import PbemError, Problem
from pbem.mechanics.dice import ForcedDice

if TYPE_CHECKING:
    from pbem.games.base import GameModule

CASE_FILE = re.compile(r"[A-Z][A-Z0-9]*-[0-9]{3}(-.*)?\.toml")  # a case file's name: its id, then words
# the keys of each table of a case file that the runner reads (schemas/case.schema.json)
SHARED_KEYS = {
    "case": ("id", "title", "rules", "no_orders", "no_reply"),
    "position": (),
    "expect": ("legal", "problems", "rolled", "awaits", "awaited", "clock", "result", "events", "no_events",
               "report", "no_report", "tamper", "opened", "hidden", "claims"),
}
FAKE_BOX = "A" * 22 + "=="  # 16 bytes: a box in its one spelling (the runner never opens one)


@dataclass
class Outcome:
    """What a case's step did: the problems of the first file refused (then nothing was played), or
    the final state, every event and the number of dice rolled; replies the case gives that no
    state awaited."""

    problems: list[Problem]
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    rolled: int = 0
    unused_replies: int = 0
    tamper: list[Problem] = field(default_factory=list)  # the problems of an opening refused (then nothing more is played)
    opened: dict[str, list[str]] = field(default_factory=dict)  # the items opened in the case, by owner


@dataclass
class CaseResult:
    """One case run: ``malformed`` lists what is wrong with the file itself (exit 2), ``failures``
    every expectation the game did not meet (exit 1)."""

    path: Path
    id: str = ""
    title: str = ""
    game: str = ""
    malformed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "malformed" if self.malformed else ("fail" if self.failures else "pass")

    def as_json(self) -> dict[str, Any]:
        return {"case": self.id, "file": str(self.path), "game": self.game, "title": self.title, "status": self.status,
                "malformed": self.malformed, "failures": self.failures}


class MalformedCase(PbemError):
    """A case file the runner cannot run: not TOML, against the schema of cases, of no game."""


# --- finding and reading cases -------------------------------------------------------------------
def case_files(paths: Iterable[Path]) -> list[Path]:
    """The case files of ``paths``: a file as given, a folder's case files (``PREFIX-NNN-*.toml``,
    in its subfolders too) by name."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted((f for f in p.rglob("*.toml") if CASE_FILE.fullmatch(f.name)), key=lambda f: (f.parent, f.name))
        else:
            out.append(p)
    return out


def load_case(path: Path) -> dict[str, Any]:
    """A case file's data, checked against schemas/case.schema.json."""
    from pbem.exchange.files import schema_problems

    try:
        with path.open("rb") as f:
            case = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise MalformedCase(f"{path}: not a readable TOML file: {e}") from None
    problems = schema_problems(case, "case", path.name)
    if problems:
        raise MalformedCase(f"{path}: not a case file (schemas/case.schema.json)", problems)
    return case


def game_of(case: dict[str, Any]) -> GameModule:
    """The game whose ``case_prefix`` starts the case's id."""
    from pbem.engine.registry import modules

    prefix = str(case["case"]["id"]).split("-", 1)[0]
    games = modules()
    for m in games:
        if m.case_prefix == prefix:
            return m
    known = ", ".join(f"{m.case_prefix} ({m.name})" for m in games)
    raise MalformedCase(f"no game has the cases {prefix}-NNN", hint=f"Case prefixes: {known}.")


def key_problems(case: dict[str, Any], module: GameModule) -> list[str]:
    """Keys of [case], [position] and [expect] that neither the runner nor the game reads (a typo
    would leave an expectation unchecked)."""
    own = module.catalog_keys()
    out = []
    for table, shared in SHARED_KEYS.items():
        known = set(shared) | set(own.get(table, ()))
        out += [f"{table}.{k}: not a key of a {module.name} case" for k in case.get(table, {}) if k not in known]
    return out


def orders_problems(case: dict[str, Any], module: GameModule, where: str) -> list[Problem]:
    """What the case orders, stands by and replies is what a player can send: the order file schema
    and the game's accept its orders, standing instructions and replies."""
    from pbem.exchange.game import document_problems, hidden_value_problems

    header = {"format": FILE_FORMAT, "kind": "orders", "game": "catalog", "module": module.name, "side": module.sides[0],
              "answers": "sha256:" + "0" * 64, "step": "x"}
    docs = [{"pbem": header, **case.get("orders", {})}]
    docs += [{"pbem": header, "standing": st} for st in case.get("standing", {}).values()]
    docs += [{"pbem": {**header, "kind": "reply"}, "reply": r} for r in case.get("reply", [])]
    docs += [{"pbem": {**header, "side": side}, **body} for side, body in case.get("files", {}).items()]
    problems = [p for d in docs for p in document_problems(d, "orders", module.name, where)]
    # the hidden values committed, in the case and before it, against the game's schema of them
    problems += [p for d in docs for p in hidden_value_problems(module.name, d.get("hidden", {}), where)]
    problems += [p for values in case.get("secret", {}).values() for p in hidden_value_problems(module.name, values, where)]
    return problems


# --- playing a case ------------------------------------------------------------------------------
def sealed(side: str, item: str, version: int = 0) -> dict[str, str]:
    """What a signed file holds for a hidden value: a commitment and a box, unique per item."""
    return {"commit": "sha256:" + hashlib.sha256(f"{side} {item} {version}".encode()).hexdigest(), "box": FAKE_BOX}


def start_state(case: dict[str, Any], module: GameModule, folder: Path) -> dict[str, Any]:
    """The game's state of the case (``catalog_state``) with the core's part: a sequence number,
    the values committed before the case (``[secret]``, hidden, with their ``[claims]``; a claim's
    ``at``: the state that recorded it, default 1) and the values opened before it (``[opened]``)."""
    state = module.catalog_state(case, folder)
    state["pbem"] = {"sequence": 1, **state.get("pbem", {})}
    hidden: dict[str, Any] = {}
    for owner, items in case.get("secret", {}).items():
        for item in items:
            claims = [{**c, "at": int(c.get("at", 1))} for c in case.get("claims", {}).get(owner, {}).get(item, [])]
            hidden.setdefault(owner, {})[item] = {"versions": [{**sealed(owner, item), "since": 1, "claims": claims}]}
    if hidden:
        state["hidden"] = hidden
    opened = {owner: {item: {"values": [v], "at": 1} for item, v in items.items()}
              for owner, items in case.get("opened", {}).items()}
    if opened:
        state["opened"] = opened
    return state


class Hidden:
    """The core's hidden values around the module, without the cryptography: the values each side
    committed (kept here, sealed in the state), opened when a step asks, each checked with the
    module's check_opening as pbem checks it."""

    def __init__(self, case: dict[str, Any], module: GameModule) -> None:
        self.module = module
        self.values: dict[str, dict[str, Any]] = copy.deepcopy(case.get("secret", {}))
        self.opened: dict[str, list[str]] = {}
        self.tamper: list[Problem] = []

    def commit(self, state: dict[str, Any], sub: Submission) -> Submission:
        """The file as the adjudicator's pbem hands it to the module: its hidden values recorded in
        the state and, in the file, sealed."""
        hidden = sub.body.get("hidden", {})
        if not hidden:
            return sub
        seq = int(state["pbem"]["sequence"]) + 1
        for item, value in hidden.items():
            self.values.setdefault(sub.side, {})[item] = value
            rec = state.setdefault("hidden", {}).setdefault(sub.side, {}).setdefault(item, {"versions": []})
            rec["versions"].append({**sealed(sub.side, item, len(rec["versions"])), "since": seq, "claims": []})
        body = {**sub.body, "hidden": {item: sealed(sub.side, item) for item in hidden}}
        return Submission(sub.kind, sub.side, body, sub.digest)

    def open(self, state: dict[str, Any], asked: dict[str, list[str]]) -> bool:
        """Open what is asked, each item checked against its claims; False when an opening is refused."""
        seq = int(state["pbem"]["sequence"]) + 1
        for side in sorted(asked):
            for item in sorted(asked[side]):
                versions = state["hidden"][side][item]["versions"]
                values = [self.values[side][item]] * len(versions)
                problems = self.module.check_opening({**state, "opened": state.get("opened", {})}, side, item, values, versions)
                if problems:
                    self.tamper = problems
                    return False
                del state["hidden"][side][item]
                if not state["hidden"][side]:
                    del state["hidden"][side]
                state.setdefault("opened", {}).setdefault(side, {})[item] = {"values": values, "at": seq}
                self.opened.setdefault(side, []).append(item)
        if not state.get("hidden"):
            state.pop("hidden", None)
        return True


def following(state: dict[str, Any], t: Transition) -> dict[str, Any]:
    """The next state: the module's part, the core's hidden values (with the claims the module
    added) and the next sequence number."""
    nxt = {**state, **t.state, "pbem": {**state["pbem"], "sequence": int(state["pbem"]["sequence"]) + 1}}
    if "hidden" in state and "hidden" not in t.state:
        nxt["hidden"] = state["hidden"]
    return nxt


def play(case: dict[str, Any], module: GameModule, folder: Path) -> Outcome:
    """The case's step: its orders (for a step that awaits several sides, each side's file of
    ``[files]``) checked, then resolved with its dice; then, while a reply is awaited, each reply it
    gives checked and resolved (``no_reply``: an empty one, as a referee's --no-orders sends), or,
    for a reply that opens hidden values, the values opened. The first file refused ends it with
    its problems, an opening refused with its tampering; a game over with values hidden has them
    all opened."""
    meta = case["case"]
    state = start_state(case, module, folder)
    core = Hidden(case, module)
    d = case.get("dice", {})
    dice = ForcedDice(by_label=dict(d.get("by_label", {})), in_order=list(d.get("faces", [])))
    sides = list(state["awaits"]["from"])
    if len(sides) > 1:
        subs = [Submission("orders", s, dict(case.get("files", {}).get(s, {})), f"sha256:{s}") for s in sides]
    elif meta.get("no_orders"):  # nothing sent by the deadline: an empty body and no digest, not checked
        subs = [Submission("orders", sides[0], {}, "")]
    else:
        subs = [Submission("orders", sides[0], dict(case.get("orders", {})), "sha256:case")]
    problems = [p for sub in subs if sub.digest for p in module.check(state, sub)]
    if problems:
        return Outcome(problems, state)
    subs = [core.commit(state, sub) for sub in subs]
    t = module.resolve(state, subs, dice)
    events = list(t.events)
    replies = [dict(r) for r in case.get("reply", [])]
    while t.state["awaits"]["kind"] == "reply" and (replies or meta.get("no_reply") or "open" in t.state["awaits"]):
        state = following(state, t)
        who = state["awaits"]["from"][0]
        if "open" in state["awaits"]:  # a reply that opens values and answers nothing else
            if not core.open(state, state["awaits"]["open"]):
                return Outcome([], state, events, len(dice.log), len(replies), core.tamper, core.opened)
            rsub = Submission("reply", who, {}, "sha256:open")
        elif replies:
            rsub = Submission("reply", who, {"reply": replies.pop(0)}, "sha256:reply")
        else:
            rsub = Submission("reply", who, {}, "")
        problems = module.check(state, rsub) if rsub.digest else []
        if problems:
            return Outcome(problems, state, events, len(dice.log), len(replies))
        t = module.resolve(state, [rsub], dice)
        events += list(t.events)
    state = following(state, t)
    if state["awaits"]["kind"] == "none" and state.get("hidden"):  # the last step opens every value left
        if not core.open(state, {side: sorted(items) for side, items in state["hidden"].items()}):
            return Outcome([], state, events, len(dice.log), len(replies), core.tamper, core.opened)
    return Outcome([], state, events, len(dice.log), len(replies), [], core.opened)


# --- the expectations every game shares ----------------------------------------------------------
def subset(expected: dict[str, Any], actual: dict[str, Any], where: str) -> list[str]:
    """Every field expected is there with the value expected; a list of tables is compared table by
    table (same length, each expected table's fields a subset of the actual one's)."""
    out: list[str] = []
    for k, v in expected.items():
        if k not in actual:
            out.append(f"{where}: no field {k} in {actual}")
            continue
        got = actual[k]
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v) and isinstance(got, list):
            if len(got) != len(v):
                out.append(f"{where}.{k}: expected {len(v)} entries, got {got!r}")
                continue
            for i, (x, y) in enumerate(zip(v, got, strict=True)):
                if isinstance(y, dict):
                    out += subset(x, y, f"{where}.{k}[{i}]")
                else:
                    out.append(f"{where}.{k}[{i}]: expected a table, got {y!r}")
            continue
        if got != v:
            out.append(f"{where}.{k}: expected {v!r}, got {got!r}")
    return out


def matches(ee: dict[str, Any], events: list[Event]) -> list[Event]:
    """The events of ``ee``'s kind whose data has each of its other fields."""
    return [e for e in events if e.kind == ee["kind"] and all(e.data.get(k) == v for k, v in ee.items() if k != "kind")]


def problem_failures(expected: list[dict[str, Any]], problems: list[Problem], key: str = "problems") -> list[str]:
    """Exactly the problems expected, in order: each its rule and where, its message with the
    expected words."""
    have = [(p.rule, p.where) for p in problems]
    want = [(p["rule"], p["where"]) for p in expected]
    if have != want:
        return [f"{key}: expected {want}, got:\n" + "\n".join(p.render() for p in problems)]
    return [f"{key}[{i}]: {p['text']!r} not in {g.message!r}"
            for i, (p, g) in enumerate(zip(expected, problems, strict=True)) if p.get("text", "") not in g.message]


def shared_failures(case: dict[str, Any], module: GameModule, got: Outcome) -> list[str]:
    """The expectations every game's cases may have."""
    exp = case["expect"]
    if exp.get("legal", True) is False:
        if not got.problems:
            return ["the orders were expected to be refused, but were legal"]
        return problem_failures(exp["problems"], got.problems)
    if got.problems:
        return ["the orders were refused:\n" + "\n".join(p.render() for p in got.problems)]
    if "tamper" in exp or got.tamper:  # an opening refused: nothing else is played
        if not got.tamper:
            return ["an opening was expected to be refused, but every value opened was accepted"]
        return problem_failures(exp.get("tamper", []), got.tamper, "tamper")
    out = []
    if got.unused_replies:
        out.append(f"{got.unused_replies} reply(ies) left: no reply was awaited for them")
    state, events = got.state, got.events
    if "rolled" in exp and got.rolled != exp["rolled"]:
        out.append(f"dice rolled: expected {exp['rolled']}, got {got.rolled}")
    out += subset(exp.get("awaits", {}), state["awaits"], "awaits")
    if "clock" in exp:
        out += subset(exp["clock"], state.get("clock", {}), "clock")
    if "result" in exp:
        out += subset(exp["result"], state.get("result") or {}, "result")
    elif "result" in state:
        out.append(f"unexpected end of game: {state['result']}")
    if "awaited" in exp:
        awaited = [e.data for e in events if e.kind == "awaits"]
        if len(awaited) != len(exp["awaited"]):
            out.append(f"awaited: expected {len(exp['awaited'])} awaits, got {awaited}")
        else:
            for i, (want, have) in enumerate(zip(exp["awaited"], awaited, strict=True)):
                out += subset(want, have, f"awaited[{i}]")
    for kind in exp.get("no_events", []):
        if any(e.kind == kind for e in events):
            out.append(f"no {kind} event may occur: {[e.data for e in events if e.kind == kind]}")
    for ee in exp.get("events", []):
        if not matches(ee, events):
            out.append(f"no {ee['kind']} event with {ee} in {[e.data for e in events if e.kind == ee['kind']]}")
    if "opened" in exp:
        have_opened = {k: sorted(v) for k, v in got.opened.items() if v}
        want_opened = {k: sorted(v) for k, v in exp["opened"].items() if v}
        if have_opened != want_opened:
            out.append(f"values opened: expected {want_opened}, got {have_opened}")
    for owner, items in exp.get("hidden", {}).items():
        still = sorted(state.get("hidden", {}).get(owner, {}))
        if still != sorted(items):
            out.append(f"{owner}'s values still hidden: expected {sorted(items)}, got {still}")
    for owner, by_item in exp.get("claims", {}).items():
        for item, claims in by_item.items():
            rec = state.get("hidden", {}).get(owner, {}).get(item)
            if rec is None:
                out.append(f"claims on {owner}'s {item}: it is not hidden")
                continue
            claimed = [{k: v for k, v in c.items() if k != "at"} for c in rec["versions"][-1]["claims"]]
            if claimed != claims:
                out.append(f"claims on {owner}'s {item}: expected {claims}, got {claimed}")
    if "report" in exp or "no_report" in exp:
        lines = [line for e in events for line in module.render_event(e)]
        for words in exp.get("report", []):
            if not any(words in line for line in lines):
                out.append(f"no report line with {words!r}:\n" + "\n".join(lines))
        for words in exp.get("no_report", []):
            if any(words in line for line in lines):
                out.append(f"a report line with {words!r}:\n" + "\n".join(line for line in lines if words in line))
    return out


# --- running ------------------------------------------------------------------------------------
def check_case(path: Path) -> tuple[dict[str, Any], GameModule]:
    """A case file read and checked: its data and its game (MalformedCase if it cannot be run)."""
    case = load_case(path)
    meta = case["case"]
    module = game_of(case)
    bad = key_problems(case, module)
    if path.name != meta["id"] + ".toml" and not path.name.startswith(meta["id"] + "-"):
        bad.insert(0, f"case.id: {meta['id']} does not start the file name {path.name}")
    if bad:
        raise MalformedCase(f"{path}: " + "; ".join(bad))
    problems = orders_problems(case, module, path.name)
    if problems:
        raise MalformedCase(f"{path}: orders, standing instructions or replies no player could send", problems)
    return case, module


def run_case(path: Path, catch: bool = True) -> CaseResult:
    """One case file run, with every failure of an expectation; ``catch``: an error of the game's
    code is a failure (else it is raised, with its traceback)."""
    result = CaseResult(path)
    try:
        case, module = check_case(path)
    except MalformedCase as e:
        result.malformed = [str(e), *(p.render() for p in e.problems)]
        return result
    meta = case["case"]
    result.id, result.title, result.game = meta["id"], meta["title"], module.name
    try:
        got = play(case, module, path.parent)
        result.failures = shared_failures(case, module, got) + module.catalog_expect(case, got.problems, got.state, got.events)
    except PbemError as e:
        if not catch:
            raise
        result.malformed = [f"{path}: {e}", *(p.render() for p in e.problems)]
    except Exception as e:  # the game's code failed on the case: the case fails, with the error
        if not catch:
            raise
        result.failures = [f"error: {type(e).__name__}: {e}"]
    return result


def run_cases(paths: Iterable[Path]) -> list[CaseResult]:
    return [run_case(p) for p in case_files(paths)]
