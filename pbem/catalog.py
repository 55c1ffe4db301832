"""The rules catalog: numbered cases, each a position, the orders of one step, the dice and what must
come of it, run against a game module (`pbem catalog run`, and the tests).

A case file (``PREFIX-NNN-short-name.toml``) is checked against the shared schema of case files
(schemas/case.schema.json), and its game is the module whose ``case_prefix`` starts its id. The
module builds the state the case starts from (``catalog_state``); the runner plays the step as a
game does (``check``, then ``resolve`` with the case's dice, then each reply), and checks the
expectations every game shares (legality and the problems, the dice rolled, what is awaited, the
result, the events, the report's words); the module checks its own (``catalog_expect``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import FILE_FORMAT
from pbem.engine.model import Event, Submission
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
               "report", "no_report"),
}


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
    from pbem.exchange.game import document_problems

    header = {"format": FILE_FORMAT, "kind": "orders", "game": "catalog", "module": module.name, "side": module.sides[0],
              "answers": "sha256:" + "0" * 64, "step": "x"}
    docs = [{"pbem": header, **case.get("orders", {})}]
    docs += [{"pbem": header, "standing": st} for st in case.get("standing", {}).values()]
    docs += [{"pbem": {**header, "kind": "reply"}, "reply": r} for r in case.get("reply", [])]
    return [p for d in docs for p in document_problems(d, "orders", module.name, where)]


# --- playing a case ------------------------------------------------------------------------------
def play(case: dict[str, Any], module: GameModule, folder: Path) -> Outcome:
    """The case's step: its orders checked, then resolved with its dice; then, while a reply is
    awaited, each reply it gives checked and resolved (``no_reply``: an empty one, as a referee's
    --no-orders sends). The first file refused ends it with its problems."""
    meta = case["case"]
    state = module.catalog_state(case, folder)
    side = state["awaits"]["from"][0]
    if meta.get("no_orders"):  # nothing sent by the deadline: an empty body and no digest, not checked
        sub = Submission("orders", side, {}, "")
    else:
        sub = Submission("orders", side, dict(case.get("orders", {})), "sha256:case")
        problems = module.check(state, sub)
        if problems:
            return Outcome(problems, state)
    d = case.get("dice", {})
    dice = ForcedDice(by_label=dict(d.get("by_label", {})), in_order=list(d.get("faces", [])))
    t = module.resolve(state, [sub], dice)
    events = list(t.events)
    replies = [dict(r) for r in case.get("reply", [])]
    while t.state["awaits"]["kind"] == "reply" and (replies or meta.get("no_reply")):
        state = {**state, **t.state}
        who = state["awaits"]["from"][0]
        if replies:
            rsub = Submission("reply", who, {"reply": replies.pop(0)}, "sha256:reply")
            problems = module.check(state, rsub)
            if problems:
                return Outcome(problems, state, events, len(dice.log), len(replies))
        else:
            rsub = Submission("reply", who, {}, "")
        t = module.resolve(state, [rsub], dice)
        events += list(t.events)
    return Outcome([], t.state, events, len(dice.log), len(replies))


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


def problem_failures(expected: list[dict[str, Any]], problems: list[Problem]) -> list[str]:
    """Exactly the problems expected, in order: each its rule and where, its message with the
    expected words."""
    have = [(p.rule, p.where) for p in problems]
    want = [(p["rule"], p["where"]) for p in expected]
    if have != want:
        return [f"problems: expected {want}, got:\n" + "\n".join(p.render() for p in problems)]
    return [f"problems[{i}]: {p['text']!r} not in {g.message!r}"
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
