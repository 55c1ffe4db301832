"""The bundled campaign set up by the players (scenario campaign-setup, 3.2-3.7): its data is the
campaign's but for the set-up, the templates' proposals are legal on the real map and play through
the set-up steps into GT1, and a set-up that breaks a minimum of 3.3, 3.4 or 3.7 is refused with
its rule."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Submission
from pbem.games.proud_monster import setup
from pbem.games.proud_monster.data import OKH_AREAS, Scenario, load_scenario, sut_type
from pbem.games.proud_monster.module import ProudMonster
from tests.clihelpers import run
from tests.conftest import start_game

SCENARIO = "campaign-setup"


@pytest.fixture(scope="module")
def sc() -> Scenario:
    return load_scenario(SCENARIO)


def test_the_scenario_is_the_campaign_set_up_by_the_players(sc: Scenario) -> None:
    """Same map, counters, reinforcements, conversions and pools; no fixed set-up; the SUT's numbers
    per kind and zone are the campaign's Soviet set-up counted by column (3.3: FZ to 22, 3.4: IZ 23+)."""
    camp = load_scenario("campaign")
    assert (sc.setup_by, sc.setup, sc.ruleset, sc.first_turn, sc.last_turn) == ("players", (), "full", 1, 12)
    assert sc.map.hexes == camp.map.hexes and sc.map.hexsides == camp.map.hexsides and sc.units == camp.units
    assert (sc.reinforcements, sc.conversions, sc.tank_brigades, sc.security, sc.options) == \
        (camp.reinforcements, camp.conversions, camp.tank_brigades, camp.security, camp.options)
    counted: dict[str, dict[str, int]] = {"FZ": {}, "IZ": {}}
    for u, h in camp.setup:
        if camp.units[u].side == "soviet":
            row = counted["FZ" if int(h[:2]) <= 22 else "IZ"]
            row[sut_type(camp.units[u])] = row.get(sut_type(camp.units[u]), 0) + 1
    assert sc.sut is not None and sc.sut.provisional and "derived from the campaign" in sc.sut.note.lower()
    assert (sc.sut.fz, sc.sut.iz, sc.sut.schedule) == (counted["FZ"], counted["IZ"], {})
    assert sc.sut.fz["CD"] == 5 and sc.sut.iz["CD"] == 4  # 3.2
    # who sets up what: the campaign's starting units, each side its own
    starting = {u for u, _ in camp.setup}
    assert {u for _, u in setup.to_set_up(sc)} == starting
    listed = run(["module", "check", "proud-monster"]).output  # every bundled scenario, checked
    assert "Soviet Unit Table 17.6 (campaign-setup): Provisional" in listed


def test_the_templates_proposals_set_up_the_campaign_and_gt1_begins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   sc: Scenario) -> None:
    """pbem new, join, then for setup/soviet and setup/german: the template's proposal, `pbem check`
    legal, signed and adjudicated; every minimum of 3.3 and 3.4 met on the real map, 3.7 kept, and GT1
    awaits the German."""
    monkeypatch.chdir(tmp_path)
    run(["keygen", "alice"])
    run(["keygen", "bob"])
    run(["new", SCENARIO, "--side", "german=alice.pub", "--side", "soviet=bob.pub", "--key", "alice.key", "--game-id",
         "pm-campaign-setup", "-o", "game"])
    run(["join", "game/0000.state.toml", "--side", "german", "--key", "alice.key"])
    run(["join", "game/0000.state.toml", "--side", "soviet", "--key", "bob.key"])
    r = run(["adjudicate", "game/0000.state.toml", "game/0000-german.join.toml", "game/0000-soviet.join.toml",
             "--key", "alice.key"])
    assert r.output.endswith("awaits orders for setup/soviet from soviet\n")

    soviet = tmp_path / "game" / "0001-soviet.orders.toml"
    run(["template", "game/0001.state.toml", "--side", "soviet", "-o", soviet])
    text = soviet.read_text(encoding="utf-8")
    assert "#   CD: FZ 5, IZ 4, of 9:" in text and "#   3.4 Interior Zone column 60" in text
    assert run(["check", "game/0001.state.toml", soviet]).output.endswith(
        "legal for step setup/soviet (not sealed yet: `pbem sign`)\n")
    run(["sign", soviet, "--key", "bob.key", "--state", "game/0001.state.toml"])
    r = run(["adjudicate", "game/0001.state.toml", soviet, "--key", "alice.key"])
    assert r.output.endswith("awaits orders for setup/german from german\n")
    report = (tmp_path / "game" / "0002.report.md").read_text(encoding="utf-8")
    assert "250 units from the Soviet Unit Table (17.6, provisional), 71 in the Frontier Zone and 179 in the Interior " \
           "Zone" in report
    assert "3.3 (Frontier Zone: border hexes, large towns): all 50 minimums met." in report
    assert "3.4 (Interior Zone: cities, large towns, 4 units per column): all 112 minimums met." in report
    assert "Turn Record Track" not in report  # the SUT schedules nothing: the arrivals are the [[reinforcement]] list

    german = tmp_path / "game" / "0002-german.orders.toml"
    run(["template", "game/0002.state.toml", "--side", "german", "-o", german])
    gtext = german.read_text(encoding="utf-8")
    table = tomllib.loads(gtext)["setup"]
    assert table["1201S"] == ["HF"]  # 3.7(1): the Hungarian Fast Corps alone in Hungary
    assert run(["check", "game/0002.state.toml", german]).output.endswith(
        "legal for step setup/german (not sealed yet: `pbem sign`)\n")
    run(["sign", german, "--key", "alice.key", "--state", "game/0002.state.toml"])
    r = run(["adjudicate", "game/0002.state.toml", german, "--key", "bob.key"])
    assert r.output.endswith("awaits orders for GT1/1/german from german\n")
    report = (tmp_path / "game" / "0003.report.md").read_text(encoding="utf-8")
    assert "- **German set-up** (3.6-3.7): 160 units." in report
    assert "7 of at most 7 German non-mechanized divisions, 1 of at most 1 assault-gun battalion (3.7)" in report

    state = tomllib.loads((tmp_path / "game" / "0003.state.toml").read_text(encoding="utf-8"))
    units = state["position"]["units"]
    assert all(st["at"] != "setup" for st in units.values())
    for u, st in units.items():
        spec = sc.units[u]
        if spec.side == "german" and st["at"] not in OKH_AREAS and st["at"] in sc.map.hexes:
            h = sc.map.hexes[st["at"]]
            assert h.zomo and (h.country == "germany" or spec.nat in ("romanian", "hungarian")
                               or setup.south_kind(spec)), (u, st["at"])
    on_map = sum(1 for u, st in units.items() if sc.units[u].side == "german" and st["at"] in sc.map.hexes)
    assert on_map >= 150  # the proposal sets the army up at the border, not in the OKH areas
    v = json.loads(run(["verify", "game", "--json"]).output)
    assert v["ok"] and v["states"] == 4 and v["transitions"] == 3


@pytest.fixture(scope="module")
def at_soviet_setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return start_game(tmp_path_factory.mktemp("cs") / "game", SCENARIO, "pm-cs").state().data


def problems(state: dict[str, Any], side: str, table: dict[str, list[str]]) -> list[str]:
    """Each problem of the set-up ``table`` as "where: text [rule]"."""
    return [f"{p.where}: {p.message} [{p.rule}]"
            for p in ProudMonster().check(state, Submission("orders", side, {"setup": table}, "sha256:x"))]


def moved(table: dict[str, list[str]], unit: str, to: str) -> dict[str, list[str]]:
    out = copy.deepcopy(table)
    for us in out.values():
        if unit in us:
            us.remove(unit)
    out.setdefault(to, []).append(unit)
    return {h: us for h, us in out.items() if us}


def test_a_soviet_set_up_breaking_a_minimum_on_the_campaign_map_is_refused(at_soviet_setup: dict[str, Any]) -> None:
    """3.3: a border hex left empty; 3.4: an Interior Zone column with 3 units. The SUT's numbers per
    zone and the stacking stay as they were, so the minimum is the only problem."""
    m = ProudMonster()
    ctx = m.context(at_soviet_setup, None, "soviet")
    table = setup.soviet_proposal(ctx)
    assert problems(at_soviet_setup, "soviet", table) == []
    # 3.3: 2006N's units to 2112N (Frontier Zone both)
    bad = table
    for u in table["2006N"]:
        bad = moved(bad, u, "2112N")
    assert len(bad["2112N"]) <= 5
    assert problems(at_soviet_setup, "soviet", bad) == [
        "setup.2006N: border hex 2006N (2006N-1703S): 0 units, 1 or more needed [3.3]"]
    # 3.4: column 60 has exactly the 4 units of 6000N; one of them to Moscow (column 50)
    assert [h for h in table if h.startswith("60")] == ["6000N"] and len(table["6000N"]) == 4
    bad = moved(table, table["6000N"][0], "5017N")
    assert problems(at_soviet_setup, "soviet", bad) == [
        "setup (column 60): Interior Zone column 60 (its North and South hexes together, Ambiguity 5): 3 units, "
        "4 or more needed [3.4]"]


def test_a_german_set_up_breaking_3_7_on_the_campaign_map_is_refused(tmp_path: Path) -> None:
    """3.7(3): an eighth German non-mechanized division in the South OKH area; 3.7(1): a German panzer
    division in Hungary with the Fast Corps."""
    g = start_game(tmp_path / "game", SCENARIO, "pm-cs-german")
    m = ProudMonster()
    st = g.state().data
    g.play("[setup]\n" + "".join(f'"{h}" = {json.dumps(us)}\n'
                                  for h, us in setup.soviet_proposal(m.context(st, None, "soviet")).items()))
    st = g.state().data
    assert st["awaits"]["step"] == "setup/german"
    table = setup.german_proposal(m.context(st, None, "german"))
    assert problems(st, "german", table) == []
    south = [u for h, us in table.items() if h in st["position"]["units"] or h.endswith("S") for u in us
             if setup.south_kind(m.context(st, None, "german").spec(u)) == "division"]
    assert len(south) == 7
    extra = next(u for h, us in table.items() if h.endswith("N") for u in us if u.endswith("ID"))
    found = problems(st, "german", moved(table, extra, "okh-south"))
    assert len(found) == 1 and found[0].startswith("setup: 8 German non-mechanized divisions in Romania and the South "
                                                   "OKH area (") and found[0].endswith("; at most 7 [3.7]")
    assert problems(st, "german", moved(table, "1Pz", "1201S")) == [
        "setup.1201S[1]: 1Pz: only the Hungarian Fast Corps sets up in Hungary [3.7]"]


def test_the_demo_plays_the_players_set_up_and_gt1(tmp_path: Path) -> None:
    """`pbem demo --scenario campaign-setup --auto --turns 1`: both set-up steps by the built-in
    player (the templates' proposals), then GT1, and the replay verifies."""
    out = run(["demo", "--scenario", SCENARIO, "--auto", "--turns", "1", "--out", tmp_path / "demo"]).output
    steps = [line.split("awaits orders for ")[1] for line in out.splitlines() if "awaits orders for " in line]
    assert steps == ["setup/soviet from soviet", "setup/german from german", "GT1/1/german from german",
                     "GT1/1/soviet from soviet", "GT2/MR/soviet from soviet"]
    assert "ok: 6 states, 5 transitions replayed, 5 reports" in out
    report = (tmp_path / "demo" / "game" / "0003.report.md").read_text(encoding="utf-8")
    assert "- **German set-up** (3.6-3.7): 160 units." in report
    lines = out.splitlines()
    gt1 = re.search(r"(\d+) attack\(s\)", lines[next(i for i, x in enumerate(lines) if "adjudicate game/0003" in x) + 1])
    assert gt1 is not None and int(gt1.group(1)) >= 5  # the German GT1: the army sets up at the border
