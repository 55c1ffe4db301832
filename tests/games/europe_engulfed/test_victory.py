"""The provisional victory table (victory.py, victory_table.py, scenarios/europe-engulfed/victory.toml;
the victory conditions are NOT IN SOURCE, supplement S2.5) and the WERP ledger (ledger.py): the
table is data an owner replaces without code, checked when the scenario loads; `pbem module check`
lists it as provisional; `pbem status` says who would win now; the ledger's columns balance.
The conditions themselves are catalog cases EE-930..EE-943."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Event
from pbem.errors import ModuleDataError
from pbem.games.europe_engulfed import data, ledger, victory
from pbem.games.europe_engulfed.context import context
from pbem.games.europe_engulfed.module import EuropeEngulfed

DATA = Path(__file__).resolve().parents[3] / "scenarios" / "europe-engulfed"


def _copy(tmp_path: Path, victory_text: str) -> Path:
    for name in ("map.toml", "units.toml", "charts.toml"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "victory.toml").write_text(victory_text, encoding="utf-8")
    (tmp_path / "s").mkdir()
    shutil.copy(DATA / "1939" / "scenario.toml", tmp_path / "s" / "scenario.toml")
    return tmp_path / "s" / "scenario.toml"


def _state(scenario: str, **position: Any) -> dict[str, Any]:
    st = EuropeEngulfed().new_game(scenario, {})
    st["pbem"] = {"scenario": scenario}
    st["position"].update(position)
    return st


def test_the_bundled_table_is_provisional_and_listed_by_module_check() -> None:
    sc = data.load_scenario("1939")
    assert sc.victory is not None and sc.victory.provisional and "NOT IN SOURCE" in sc.victory.note
    assert [c.id for c in sc.victory.of("1939", "end")] == ["V-08", "V-09", "V-10"]
    assert all(c.note for c in sc.victory.conditions)
    rows = {r["item"]: r for r in EuropeEngulfed().data_report()}
    assert rows["victory 1939"]["status"] == "provisional" and "V-01" in rows["victory 1939"]["note"]
    assert rows["victory 1941-barbarossa"]["status"] == "provisional"


def test_a_broken_table_is_refused_with_every_problem(tmp_path: Path) -> None:
    text = (DATA / "victory.toml").read_text(encoding="utf-8")
    text = text.replace('areas = ["berlin"] }', 'areas = ["atlantis"] }', 1).replace('winner = "axis"', 'winner = "japan"', 1)
    text = text.replace('scenarios = ["1941-barbarossa"]', 'scenarios = ["1942-torch"]', 1)
    text = text.replace('surrendered = ["britain"]', 'surrendered = ["narnia"]', 1)
    with pytest.raises(ModuleDataError) as err:
        data.load_scenario(str(_copy(tmp_path, text)))
    got = [p.render() for p in err.value.problems]
    for words in ("'atlantis' is not a place of the map", "'japan' is not a side", "'1942-torch' is not a bundled scenario",
                  "'narnia' is not a nation of the game"):
        assert any(words in p for p in got), (words, got)


def test_an_owner_replaces_the_table_without_code(tmp_path: Path) -> None:
    text = """[victory]
note = "A house rule: the side with more VP wins at the end, by 10 at least; else a draw."
[points]
resource = 2
capitals = {}
[[condition]]
id = "H-1"
title = "More production"
when = "end"
winner = "leader"
level = "victory on points"
lead = 10
note = "House rule."
"""
    path = _copy(tmp_path, text)
    sc = data.load_scenario(str(path))
    st = _state(str(path))
    ctx = context(st)
    assert victory.victory_points(ctx) == {"axis": 80, "allies": 122}  # each resource point counts twice, no capitals
    r = victory.result(ctx)
    assert (r["winner"], r["level"], r["condition"]) == ("allies", "victory on points", "H-1")
    assert sc.victory is not None and not sc.victory.of(str(path), "sudden-death")


def test_status_says_who_would_win_now_and_why() -> None:
    st = _state("1939")
    line = EuropeEngulfed().status_lines(st)
    text = next(x for x in line if x.startswith("victory"))
    assert text == ("victory (provisional): VP axis 40, allies 61; if the game ended now: the axis win (lesser victory "
                    "(Blood & Concrete)) (V-08 Blood & Concrete: the axis control berlin, ruhr, saxony, silesia, bavaria, "
                    "austria, bohemia, east-prussia)")
    control = dict(st["position"]["control"], berlin="allies", bohemia="allies", ruhr="allies", saxony="allies",
                   silesia="allies")
    st2 = _state("1939", control=control)
    st2["clock"]["turn"] = "1944-may"
    assert "the allies win (decisive victory) by sudden death (V-03 Germany falls before 1945: germany has surrendered)" \
        in victory.status(st2)


def test_a_finished_game_s_status_gives_its_result() -> None:
    st = _state("1939")
    st["result"] = {"winner": "axis", "level": "marginal victory", "condition": "V-09", "title": "Germany still stands",
                    "vp": {"axis": 50, "allies": 40}}
    assert victory.status(st) == ("victory (provisional): game over, the axis win (marginal victory) (V-09 Germany still "
                                  "stands); VP axis 50, allies 40")
    assert EuropeEngulfed().status_line(st).endswith("game over: the axis win (marginal victory)")


def test_the_ledger_row_balances_with_strategic_losses() -> None:
    e = Event("werps", "4.5", {"nation": "britain", "income": [
        {"what": "basic production", "werps": 24, "rule": "4.14"},
        {"what": "U-boat attack", "werps": -4, "rule": "2.12"},
        {"what": "bombing", "werps": -2, "rule": "2.26"}],
        "produced": 18, "maintenance": 6, "available": 12, "spending": 10, "left": 2})
    r = ledger.row(e)
    assert r == {"produced": 24, "strategic": 6, "maintenance": 6, "available": 12, "spent": 10, "left": 2}
    assert r["produced"] - r["strategic"] - r["maintenance"] == r["available"] == r["spent"] + r["left"]
    lines = ledger.RENDER["werps-table"](Event("werps-table", "4.5", {"turn": "1941-may", "side": "allies",
                                                                      "rows": [{"nation": "britain", **r}]}))
    assert "| Britain | 24 | -6 | -6 | 12 | 10 | 2 |" in lines
    assert any("WERPs of the allies in May/Jun 1941" in x for x in lines)


def test_the_ledger_series_has_a_line_per_nation_and_a_gap_where_none_produced() -> None:
    pos = {"werps_by_turn": {"1939-sep": {"germany": {"available": 27}, "france": {"available": 12}},
                             "1939-nov": {"germany": {"available": 29}}}}
    labels, lines = ledger.series(pos)
    assert labels == ["Sep 39", "Nov 39"]
    assert lines == {"germany": [27, 29], "france": [12, None]}
