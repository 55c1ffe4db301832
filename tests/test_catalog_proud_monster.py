"""The Proud Monster rules catalog: every case file, each citing its rules, asserting every order's result."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem import FILE_FORMAT
from pbem.exchange.game import document_problems
from pbem.games.proud_monster.render import event_lines
from tests.pmcase import CATALOG, load_case, run_case

CASES = sorted(CATALOG.glob("PM-*.toml"))


def _subset(expected: dict[str, Any], actual: dict[str, Any], where: str) -> None:
    """Every field expected is there with the value expected; a list of tables is compared table by
    table (same length, each expected table's fields a subset of the actual one's)."""
    for k, v in expected.items():
        assert k in actual, f"{where}: no field {k} in {actual}"
        got = actual[k]
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v) and isinstance(got, list):
            assert len(got) == len(v), f"{where}.{k}: expected {len(v)} entries, got {got!r}"
            for i, (x, y) in enumerate(zip(v, got, strict=True)):
                assert isinstance(y, dict), f"{where}.{k}[{i}]: expected a table, got {y!r}"
                _subset(x, y, f"{where}.{k}[{i}]")
            continue
        assert got == v, f"{where}.{k}: expected {v!r}, got {got!r}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    case = load_case(path)
    meta = case["case"]
    assert re.fullmatch(r"PM-\d{3}", meta["id"]) and path.stem.startswith(meta["id"]), "case id and file name agree"
    assert meta["rules"], "a case cites the rules it tests"
    exp = case["expect"]
    got = run_case(case)
    if exp.get("legal", True) is False:
        want = sorted((p["rule"], p["where"]) for p in exp["problems"])
        have = sorted((p.rule, p.where) for p in got["problems"])
        assert have == want, "\n".join(p.render() for p in got["problems"])
        for g in got["problems"]:  # the place programs read (Problem.place) is the one the where text names
            assert g.place is not None and (g.where == g.place.text or g.where.startswith(g.place.text + " ")
                                            if g.place.path else g.place.map_place in g.message), g.render()
        for p in exp["problems"]:  # `text`: words the problem's message must contain
            if "text" in p:
                msg = next(g.message for g in got["problems"] if (g.rule, g.where) == (p["rule"], p["where"]))
                assert p["text"] in msg, f"{p['text']!r} not in {msg!r}"
        return
    assert not got["problems"], "\n".join(p.render() for p in got["problems"])
    state, events = got["state"], got["events"]
    orders = case.get("orders", {})
    units = state["position"]["units"]
    moved = {u for m in orders.get("move", []) for u in m["units"]} | {u for a in orders.get("attack", []) for u in a["units"]}
    moved |= {u for us in orders.get("setup", {}).values() for u in us}  # 3.2-3.7: every unit set up
    moved |= {u for s in orders.get("sea", []) for u in s.get("units", [])}  # 11.2-11.4
    missing = moved - set(exp.get("units", {}))
    assert not missing, f"every ordered unit's result is asserted: missing {sorted(missing)}"
    for u, v in exp.get("units", {}).items():
        want = {"at": v} if isinstance(v, str) else v
        _subset(want, units[u], f"units.{u}")
    for u in exp.get("untried", []):
        assert "tried" not in units[u], f"units.{u} should still be untried, but is {units[u].get('tried')}"
    attacks = [e for e in events if e.kind in ("attack", "attack-skipped")]
    exp_attacks = exp.get("attack", [])
    assert len(exp_attacks) == len(orders.get("attack", [])), "one [[expect.attack]] per attack order"
    by_index: dict[int, Any] = {}
    for e in attacks:
        by_index[e.data["index"]] = e  # the last resolution of an attack (after a reply) counts
    for i, ea in enumerate(exp_attacks):
        assert i in by_index, f"attack {i} was not resolved"
        e = by_index[i]
        if ea.get("skipped"):
            assert e.kind == "attack-skipped"
            continue
        _subset({k: v for k, v in ea.items() if k != "shifts"}, e.data, f"attack[{i}]")
        if "shifts" in ea:
            assert [s["label"] + " " + s["rule"] for s in e.data["shifts"]] == ea["shifts"], f"attack[{i}] shifts"
    for ea in exp.get("assault", []):  # one per mobile assault round (15.2, 15.6), by move index
        found = [e for e in events if e.kind == "mobile-assault" and e.data["index"] == ea["move"] and e.data["round"] == ea.get("round", 1)]
        assert found, f"no mobile assault in move {ea['move']} round {ea.get('round', 1)}"
        _subset({k: v for k, v in ea.items() if k not in ("shifts", "move")}, found[-1].data, f"assault[{ea['move']}]")
        if "shifts" in ea:
            assert [s["label"] + " " + s["rule"] for s in found[-1].data["shifts"]] == ea["shifts"], f"assault[{ea['move']}] shifts"
    if "vp" in exp:
        assert state["position"]["vp"] == exp["vp"]
    for h, c in exp.get("control", {}).items():
        assert state["position"]["control"].get(h) == c, f"control of {h}"
    if "awaits" in exp:
        _subset(exp["awaits"], state["awaits"], "awaits")
    if "result" in exp:
        _subset(exp["result"], state.get("result") or {}, "result")
    else:
        assert "result" not in state, f"unexpected end of game: {state.get('result')}"
    if "rolled" in exp:
        assert got["rolled"] == exp["rolled"], "number of dice rolled"
    _subset(exp.get("position", {}), state["position"], "position")
    for key in exp.get("no_position", []):  # position keys that must be absent (markers not in force)
        assert key not in state["position"], f"position.{key} should be absent, but is {state['position'][key]!r}"
    for key in ("forts", "stalin"):  # 14.24-14.26, 14.30: the state of the works named
        for h, v in exp.get(key, {}).items():
            assert state["position"].get(key, {}).get(h) == v, f"{key}.{h}: expected {v}, got {state['position'].get(key, {}).get(h)}"
    for kind in exp.get("no_events", []):
        assert not [e for e in events if e.kind == kind], f"no {kind} event may occur"
    for ee in exp.get("events", []):
        kind = ee["kind"]
        matches = [e for e in events if e.kind == kind and all(e.data.get(k) == v for k, v in ee.items() if k != "kind")]
        assert matches, f"no {kind} event with {ee}"
    if "report" in exp:  # words the report's lines for the events must contain, each on one line
        lines = [line for e in events for line in event_lines(e)]
        for words in exp["report"]:
            assert any(words in line for line in lines), f"no report line with {words!r}:\n" + "\n".join(lines)


HEADER = {"format": FILE_FORMAT, "kind": "orders", "game": "catalog", "module": "proud-monster", "side": "german", "answers": "sha256:" + "0" * 64, "step": "x"}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_files_pass_the_order_schema(path: Path) -> None:
    """What a case orders, stands by and replies is what a player can send: the order file schema
    (schemas/orders.schema.json) accepts the case's orders, standing instructions and replies."""

    case = load_case(path)
    docs = [{"pbem": HEADER, **case.get("orders", {})}]
    docs += [{"pbem": HEADER, "standing": st} for st in case.get("standing", {}).values()]
    docs += [{"pbem": {**HEADER, "kind": "reply"}, "reply": r} for r in case.get("reply", [])]
    problems = [p for d in docs for p in document_problems(d, "orders", "proud-monster", path.name)]
    assert not problems, "\n".join(p.render() for p in problems)
