"""The worked example of docs/game-module.md is a game pbem plays: its module and schemas, taken
from the document as they are written there, registered in the registry like any game, play a
whole game with `pbem demo` (keys, joins, orders checked, signed, adjudicated, reports, verified),
`pbem check` finds the problem of an order the rules forbid, and its catalog case passes the
catalog runner. The core needs no change for it: nothing in it names the example's game."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pbem.errors
import pbem.exchange.files
from pbem.catalog import run_case
from pbem.demo import run_demo
from pbem.engine import registry
from pbem.exchange.files import dumps, read_toml
from pbem.exchange.game import check_orders, load_doc, load_state, order_header
from pbem.games.base import GameModule
from tests.clihelpers import snapshot
from tests.paths import ROOT

DOC = ROOT / "docs" / "game-module.md"
BLOCK = re.compile(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)\n```", re.S)


def doc_files() -> dict[str, str]:
    """The files the document gives, each marked ``<!-- file: NAME -->`` before its code block."""
    return {name: text + "\n" for name, text in BLOCK.findall(DOC.read_text(encoding="utf-8"))}


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The example's module registered, its schemas beside the shared ones; the registry as shipped
    afterwards."""
    files = doc_files()
    schemas = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", schemas, ignore=shutil.ignore_patterns("proud-monster"))
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    monkeypatch.setattr(pbem.exchange.files, "schemas_dir", lambda: schemas)
    spec = importlib.util.spec_from_file_location("dash_example", tmp_path / "dash.py")
    assert spec is not None and spec.loader is not None
    mod: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules["dash_example"] = mod
    spec.loader.exec_module(mod)
    game = mod.Dash()
    registry.register(game)
    try:
        yield game
    finally:
        registry.restore()
        sys.modules.pop("dash_example", None)


def test_the_document_gives_the_module_and_its_three_schemas() -> None:
    assert sorted(doc_files()) == ["catalog/DASH-001-tailwind.toml", "dash.py", "schemas/dash/orders-body.schema.json",
                                   "schemas/dash/state-body.schema.json", "schemas/dash/view-body.schema.json"]


def test_the_example_has_every_member_of_the_protocol(example: Any) -> None:
    members = set(GameModule.__annotations__) | {n for n, v in vars(GameModule).items() if callable(v) and not n.startswith("_")}
    assert {"name", "sides", "check", "resolve", "demo_scenario", "demo_summary"} <= members
    assert sorted(n for n in members if not hasattr(example, n)) == []


def test_the_example_plays_a_whole_game_with_pbem_demo(example: Any, tmp_path: Path) -> None:
    lines: list[str] = []
    folder = run_demo(tmp_path / "a", 6, lines.append, game="dash")
    assert lines[0] == f"pbem demo: Dash, sprint scenario, 6 game turns, in {tmp_path / 'a'}"
    assert "$ pbem new sprint --side north=north.pub --side south=south.pub --key north.key --game-id dash-demo-sprint -o game" in lines
    assert "$ pbem template game/0001.state.toml --side north   (a run of 3 squares)" in lines
    assert "    awaits orders for T1/south from south" in lines
    assert any(line.startswith("ok: ") and "transitions replayed" in line for line in lines)  # verified
    game = folder / "game"
    last = read_toml(sorted(game.glob("*.state.toml"))[-1])
    assert last["awaits"]["kind"] == "none" and last["result"]["rule"] == "4"
    assert last["result"]["winner"] in ("north", "south")
    reports = "".join(p.read_text(encoding="utf-8") for p in sorted(game.glob("*.report.md")))
    assert "# Dash: a race along a track: report 0002" in reports and "runner runs 3 square(s)" in reports
    first = read_toml(game / "0001-north.orders.toml")
    assert first["run"] == {"squares": 3} and first["pbem"]["module"] == "dash" and "seal" in first
    again = run_demo(tmp_path / "b", 6, lambda _line: None, game="dash")
    assert snapshot(game) == snapshot(again / "game"), "the same game, byte for byte"


def test_the_example_checks_orders_against_its_rules_and_its_schema(example: Any, tmp_path: Path) -> None:
    folder = run_demo(tmp_path / "a", 1, lambda _line: None, game="dash")
    state = load_state(folder / "game" / "0001.state.toml")
    draft = tmp_path / "draft.toml"
    header = "\n".join(order_header(state.data, "north"))
    draft.write_text(header + "\n" + dumps({"run": {"squares": 5}}), encoding="utf-8")
    problems = check_orders(state, load_doc(draft, "orders")).problems
    assert [p.render() for p in problems] == ["run.squares: a run is 1 to 3 squares, not 5 [3]"]
    draft.write_text(header + "\n" + dumps({"run": {"squares": "far"}}), encoding="utf-8")
    with pytest.raises(pbem.errors.MalformedFileError, match="dash/orders-body"):
        load_doc(draft, "orders")


def test_the_example_s_catalog_case_passes_and_a_wrong_expectation_fails(example: Any, tmp_path: Path) -> None:
    case = tmp_path / "catalog" / "DASH-001-tailwind.toml"
    result = run_case(case, catch=False)
    assert (result.id, result.game, result.status, result.failures) == ("DASH-001", "dash", "pass", [])
    case.write_text(case.read_text(encoding="utf-8").replace("north = 12, south = 7", "north = 11, south = 7"), encoding="utf-8")
    assert run_case(case, catch=False).failures == ["position.north: expected 11, got 12"]
