"""The Skirmish rules catalog (tests/catalog/skirmish/, format in tests/catalog/README.md): every
case file, each citing the rules of docs/skirmish.md it tests, run against the game module."""

from __future__ import annotations

import copy
import hashlib
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem import FILE_FORMAT
from pbem.engine.model import Submission
from pbem.exchange.game import document_problems, hidden_value_problems
from pbem.games.skirmish import rules
from pbem.games.skirmish.data import ELIMINATED, SIDES
from pbem.games.skirmish.module import Skirmish
from pbem.games.skirmish.render import event_lines
from pbem.mechanics.dice import ForcedDice

CATALOG = Path(__file__).parent / "catalog" / "skirmish"
CASES = sorted(CATALOG.glob("SK-*.toml"))
MODULE = Skirmish()
SCENARIO = "crossroads"


def load_case(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


FAKE_BOX = "A" * 22 + "=="  # 16 bytes: a box in its one spelling (the catalog never opens one)


def sealed(side: str, item: str, version: int = 0) -> dict[str, str]:
    """What a signed file holds for a hidden value (docs/protocol.md): a commitment and a box, unique per item."""
    return {"commit": "sha256:" + hashlib.sha256(f"{side} {item} {version}".encode()).hexdigest(), "box": FAKE_BOX}


def build_state(case: dict[str, Any]) -> dict[str, Any]:
    """The scenario's start with the case's position: its `units` placed (with `only`, every other
    unit eliminated), its `control` given, the side and turn whose orders are played; with the
    option hidden (7.x), the values committed before the case (`secret`, with their `claims`) and
    opened (`opened`), as the core keeps them."""
    meta, p = case["case"], case.get("position", {})
    game = MODULE.new_game(SCENARIO, dict(case.get("options", {})))
    units = game["position"]["units"]
    if p.get("only"):
        units = {u: {"at": ELIMINATED} for u in units}
    for u, at in p.get("units", {}).items():
        units[u] = {"at": at}
    parties: dict[str, Any] = {s: {} for s in SIDES}
    if meta.get("referee"):
        parties["referee"] = {}
    side, turn = str(p.get("side", "red")), int(p.get("turn", 1))
    state = {
        "pbem": {"scenario": SCENARIO, "module": "skirmish", "game": "catalog", "sequence": 1},
        "parties": parties,
        "options": game["options"],
        "clock": {"turn": turn, "side": side, "phase": "movement"},
        "position": {"units": units, "control": {**game["position"]["control"], **p.get("control", {})}, "vp": {}},
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": rules.step_name(turn, side), "from": [side], "adjudicator": "x"},
    }
    if p.get("step") == rules.SETUP_STEP:
        state["clock"]["phase"] = "setup"
        state["awaits"] = {"kind": "orders", "step": rules.SETUP_STEP, "from": list(SIDES[1:]), "adjudicator": SIDES[0]}
    hidden: dict[str, Any] = {}
    for owner, items in case.get("secret", {}).items():
        for item in items:
            claims = [{**c, "at": int(c.get("at", 1))} for c in case.get("claims", {}).get(owner, {}).get(item, [])]
            hidden.setdefault(owner, {})[item] = {"versions": [{**sealed(owner, item), "since": 1, "claims": claims}]}
    if hidden:
        state["hidden"] = hidden
    opened = {owner: {item: {"values": [v], "at": 1} for item, v in items.items()} for owner, items in case.get("opened", {}).items()}
    if opened:
        state["opened"] = opened
    state["position"]["vp"] = rules.vp(rules.context(state))
    return state


class Core:
    """What the core does around the module with hidden values (docs/protocol.md), without the
    cryptography: it records a file's [hidden] items (keeping their values, `secret`), opens what a
    step asks (checking each with the module's check_opening, as pbem does) and, when the game ends
    with values hidden, opens them all (the last step)."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.values: dict[str, dict[str, Any]] = copy.deepcopy(case.get("secret", {}))
        self.opened: dict[str, list[str]] = {}
        self.tamper: list[Any] = []

    def commit(self, state: dict[str, Any], sub: Submission) -> Submission:
        """The file as its adjudicator's pbem hands it to the module: its hidden values recorded
        in the state and, in the file, sealed."""
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
                problems = MODULE.check_opening({**state, "opened": state.get("opened", {})}, side, item, values, versions)
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


def step(state: dict[str, Any], t: Any) -> dict[str, Any]:
    """The next state: the module's part, the core's hidden values (with the claims added) and the sequence number."""
    nxt = {**state, **t.state, "pbem": {**state["pbem"], "sequence": int(state["pbem"]["sequence"]) + 1}}
    if "hidden" in state and "hidden" not in t.state:
        nxt["hidden"] = state["hidden"]
    return nxt


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """The case's orders (or set-up files), then its replies (or, `no_reply`, none by the
    deadline), each checked first: the problems of the first illegal file, the problems of an
    opening refused (7.5), or the final state and every event."""
    meta = case["case"]
    state = build_state(case)
    core = Core(case)
    d = case.get("dice", {})
    dice = ForcedDice(by_label=dict(d.get("by_label", {})), in_order=list(d.get("faces", [])))
    if state["awaits"]["step"] == rules.SETUP_STEP:
        subs = [Submission("orders", s, case.get("setup", {}).get(s, {}), f"sha256:{s}") for s in state["awaits"]["from"]]
    else:
        side = state["clock"]["side"]
        subs = [Submission("orders", side, {} if meta.get("no_orders") else case.get("orders", {}),
                           "" if meta.get("no_orders") else "sha256:case")]
    problems = [p for sub in subs if sub.digest for p in MODULE.check(state, sub)]
    if problems:
        return {"problems": problems}
    subs = [core.commit(state, sub) for sub in subs]
    t = MODULE.resolve(state, subs, dice)
    events = list(t.events)
    replies = [dict(r) for r in case.get("reply", [])]
    while t.state["awaits"]["kind"] == "reply" and (replies or meta.get("no_reply") or "open" in t.state["awaits"]):
        state = step(state, t)
        who = state["awaits"]["from"][0]
        if "open" in state["awaits"]:  # 7.4: a reply that opens values and answers nothing else
            if not core.open(state, state["awaits"]["open"]):
                return {"problems": [], "tamper": core.tamper}
            rsub = Submission("reply", who, {}, "sha256:open")
        else:
            rsub = Submission("reply", who, {"reply": replies.pop(0)}, "sha256:reply") if replies else Submission("reply", who, {}, "")
        problems = MODULE.check(state, rsub) if rsub.digest else []
        if problems:
            return {"problems": problems}
        t = MODULE.resolve(state, [rsub], dice)
        events += list(t.events)
    state = step(state, t)
    if state["awaits"]["kind"] == "none" and state.get("hidden"):  # 7.8: the last step opens every value left
        if not core.open(state, {side: sorted(items) for side, items in state["hidden"].items()}):
            return {"problems": [], "tamper": core.tamper}
    return {"problems": [], "state": state, "events": events, "rolled": len(dice.log), "opened": core.opened}


def _subset(expected: dict[str, Any], actual: dict[str, Any], where: str) -> None:
    for k, v in expected.items():
        assert k in actual, f"{where}: no field {k} in {actual}"
        assert actual[k] == v, f"{where}.{k}: expected {v!r}, got {actual[k]!r}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    case = load_case(path)
    meta, exp = case["case"], case["expect"]
    assert re.fullmatch(r"SK-\d{3}", meta["id"]) and path.stem.startswith(meta["id"]), "case id and file name agree"
    assert meta["rules"], "a case cites the rules it tests"
    got = run_case(case)
    if exp.get("legal", True) is False:
        have = [(p.rule, p.where, p.message) for p in got["problems"]]
        assert len(have) == len(exp["problems"]), f"expected {exp['problems']}, got {have}"
        for want, (rule, where, message) in zip(exp["problems"], have, strict=True):
            assert (rule, where) == (want["rule"], want["where"]), f"expected {want}, got {(rule, where, message)}"
            assert want.get("text", "") in message, f"{want['text']!r} not in {message!r}"
        return
    assert not got["problems"], [p.render() for p in got["problems"]]
    if "tamper" in exp or "tamper" in got:
        have = [(p.rule, p.where, p.message) for p in got.get("tamper", [])]
        assert len(have) == len(exp.get("tamper", [])), f"expected the openings refused with {exp.get('tamper')}, got {have}"
        for want, (rule, where, message) in zip(exp["tamper"], have, strict=True):
            assert (rule, where) == (want["rule"], want["where"]), f"expected {want}, got {(rule, where, message)}"
            assert want.get("text", "") in message, f"{want['text']!r} not in {message!r}"
        return
    state, events = got["state"], got["events"]
    for u, at in exp.get("units", {}).items():
        assert state["position"]["units"][u]["at"] == at, f"{u}: expected in {at}, is in {state['position']['units'][u]['at']}"
    for area, side in exp.get("control", {}).items():
        assert state["position"]["control"].get(area) == side, f"control of {area}"
    if "vp" in exp:
        assert state["position"]["vp"] == exp["vp"]
    if "rolled" in exp:
        assert got["rolled"] == exp["rolled"], "dice rolled"
    _subset(exp.get("awaits", {}), state["awaits"], "awaits")
    _subset(exp.get("clock", {}), state["clock"], "clock")
    if "result" in exp:
        _subset(exp["result"], state.get("result", {}), "result")
    else:
        assert "result" not in state, f"unexpected end of game: {state.get('result')}"
    awaited = [e.data for e in events if e.kind == "awaits"]
    if "awaited" in exp:
        assert len(awaited) == len(exp["awaited"]), awaited
        for i, (want, have) in enumerate(zip(exp["awaited"], awaited, strict=True)):
            _subset(want, have, f"awaited[{i}]")
    for kind in exp.get("no_events", []):
        assert not [e for e in events if e.kind == kind], f"no {kind} event may occur"
    for ee in exp.get("events", []):
        matches = [e for e in events if e.kind == ee["kind"] and all(e.data.get(k) == v for k, v in ee.items() if k != "kind")]
        assert matches, f"no {ee['kind']} event with {ee} in {[e for e in events if e.kind == ee['kind']]}"
    if "opened" in exp:
        assert {k: sorted(v) for k, v in got["opened"].items()} == {k: sorted(v) for k, v in exp["opened"].items()}, "values opened"
    for owner, items in exp.get("claims", {}).items():
        for item, claims in items.items():
            have = [{k: v for k, v in c.items() if k != "at"} for c in state["hidden"][owner][item]["versions"][-1]["claims"]]
            assert have == claims, f"claims on {owner}'s {item}: expected {claims}, got {have}"
    for owner, items in exp.get("hidden", {}).items():
        assert sorted(state.get("hidden", {}).get(owner, {})) == sorted(items), f"{owner}'s values still hidden"
    lines = [line for e in events for line in event_lines(e)]
    for words in exp.get("report", []):
        assert any(words in line for line in lines), f"no report line with {words!r}:\n" + "\n".join(lines)


HEADER = {"format": FILE_FORMAT, "kind": "orders", "game": "catalog", "module": "skirmish", "side": "red",
          "answers": "sha256:" + "0" * 64, "step": "x"}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_files_pass_the_order_schema(path: Path) -> None:
    """What a case orders, stands by and replies is what a player can send (schemas/skirmish/orders-body)."""
    case = load_case(path)
    docs = [{"pbem": HEADER, **case.get("orders", {})}]
    docs += [{"pbem": HEADER, "standing": st} for st in case.get("standing", {}).values()]
    docs += [{"pbem": {**HEADER, "kind": "reply"}, "reply": r} for r in case.get("reply", [])]
    docs += [{"pbem": {**HEADER, "side": side, "step": "setup"}, **body} for side, body in case.get("setup", {}).items()]
    problems = [p for d in docs for p in document_problems(d, "orders", "skirmish", path.name)]
    # the hidden values committed (7.x), before and in the case, against the game's schema of them
    problems += [p for d in docs for p in hidden_value_problems("skirmish", d.get("hidden", {}), path.name)]
    problems += [p for values in case.get("secret", {}).values() for p in hidden_value_problems("skirmish", values, path.name)]
    assert not problems, "\n".join(p.render() for p in problems)


def test_every_rule_of_the_rules_is_in_the_table_and_every_case_cites_listed_rules() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "skirmish.md").read_text(encoding="utf-8")
    numbers = re.findall(r"^- \*\*([0-9]+\.[0-9]+)\*\*", doc, re.M)
    rows = MODULE.coverage()
    assert [r["rule"] for r in rows] == numbers, "the table lists the rules of docs/skirmish.md, in order"
    for r in rows:
        assert r["status"] == "implemented" and r["cases"], f"{r['rule']}: implemented, with the cases that test it"
    for path in CASES:
        for rule in load_case(path)["case"]["rules"]:
            assert rule in numbers, f"{path.name} cites {rule}, which docs/skirmish.md does not number"
