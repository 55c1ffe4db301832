"""What the web site of a Europe Engulfed game plots (pbem site; pbem/games/europe_engulfed/site.py):
the WERPs each nation announces (4.5), the steps each side loses, the blocks on the map."""

from __future__ import annotations

from pathlib import Path

from pbem.engine.model import Event
from pbem.games.europe_engulfed.module import EuropeEngulfed
from pbem.site.build import build
from pbem.site.series import plots

GOLDEN = Path(__file__).parent / "golden" / "barbarossa"


def test_the_series_of_one_transition() -> None:
    state = {"pbem": {"scenario": "1941-barbarossa"}, **EuropeEngulfed().new_game("1941-barbarossa", {})}
    events = [Event("werps", "4.5", {"nation": "germany", "available": 34}), Event("werps", "4.5", {"nation": "italy", "available": 6}),
              Event("step-lost", "6.26", {"unit": "de.01", "nation": "germany"}),
              Event("eliminated", "6.26", {"unit": "su.01", "nation": "ussr"}), Event("step-lost", "7.9", {"unit": "su.02", "nation": "ussr"})]
    got = {s["name"]: s for s in EuropeEngulfed().site_series(state, events, None)}
    assert got["WERPs announced, by nation (4.5)"] == {"name": "WERPs announced, by nation (4.5)", "kind": "sum",
                                                       "values": {"germany": 34, "italy": 6}}
    assert got["Steps lost (6.26, 7.9)"]["values"] == {"axis": 1, "allies": 2}
    assert got["Blocks on the map"]["values"] == {"axis": 58, "allies": 51} and got["Blocks on the map"]["kind"] == "level"


def test_the_golden_game_s_site_plots_production_by_nation(tmp_path: Path) -> None:
    game, files = build(GOLDEN, tmp_path / "site")
    by_title = {p.title: p for p in plots(game)}
    werps = by_title["WERPs announced, by nation (4.5)"]
    assert werps.labels == ["1941-may", "1941-jul", "1941-sep", "1941-nov"]
    assert {"germany", "britain", "ussr"} <= set(werps.lines)
    assert all(isinstance(v, int) and v > 0 for v in werps.lines["germany"])
    assert "Steps lost (6.26, 7.9)" in by_title and "Blocks on the map" in by_title
    assert "WERPs announced, by nation (4.5)" in files["index.html"].decode("utf-8")
