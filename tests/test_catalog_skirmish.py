"""The Skirmish rules catalog (tests/catalog/skirmish/, format in tests/catalog/README.md): every
case file, each citing the rules of docs/skirmish.md it tests, run against the game module."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem import FILE_FORMAT
from pbem.engine.model import Submission
from pbem.exchange.game import document_problems
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


def build_state(case: dict[str, Any]) -> dict[str, Any]:
    """The scenario's start with the case's position: its `units` placed (with `only`, every other
    unit eliminated), its `control` given, the side and turn whose orders are played."""
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
        "pbem": {"scenario": SCENARIO, "module": "skirmish", "game": "catalog"},
        "parties": parties,
        "options": game["options"],
        "clock": {"turn": turn, "side": side, "phase": "movement"},
        "position": {"units": units, "control": {**game["position"]["control"], **p.get("control", {})}, "vp": {}},
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": rules.step_name(turn, side), "from": [side], "adjudicator": "x"},
    }
    state["position"]["vp"] = rules.vp(rules.context(state))
    return state


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """The case's orders, then its replies (or, `no_reply`, none by the deadline), each checked
    first: the problems of the first illegal file, or the final state and every event."""
    meta = case["case"]
    state = build_state(case)
    side = state["clock"]["side"]
    sub = Submission("orders", side, {} if meta.get("no_orders") else case.get("orders", {}),
                     "" if meta.get("no_orders") else "sha256:case")
    problems = MODULE.check(state, sub) if sub.digest else []
    if problems:
        return {"problems": problems}
    d = case.get("dice", {})
    dice = ForcedDice(by_label=dict(d.get("by_label", {})), in_order=list(d.get("faces", [])))
    t = MODULE.resolve(state, [sub], dice)
    events = list(t.events)
    replies = [dict(r) for r in case.get("reply", [])]
    while t.state["awaits"]["kind"] == "reply" and (replies or meta.get("no_reply")):
        state = {**state, **t.state}
        who = state["awaits"]["from"][0]
        rsub = Submission("reply", who, {"reply": replies.pop(0)}, "sha256:reply") if replies else Submission("reply", who, {}, "")
        problems = MODULE.check(state, rsub) if rsub.digest else []
        if problems:
            return {"problems": problems}
        t = MODULE.resolve(state, [rsub], dice)
        events += list(t.events)
    return {"problems": [], "state": t.state, "events": events, "rolled": len(dice.log)}


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
    problems = [p for d in docs for p in document_problems(d, "orders", "skirmish", path.name)]
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
