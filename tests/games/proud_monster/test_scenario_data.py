"""Scenario data: the bundled training scenario, and validate_scenario on broken copies of the
catalog scenario (docs/map-format.md, "Checking your data")."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem import resources
from pbem.cli import cli
from pbem.errors import ModuleDataError, Problem
from pbem.games.proud_monster import data
from pbem.games.proud_monster.data import load_scenario
from pbem.games.proud_monster.validation import validate_scenario
from pbem.resources import scenarios_dir

CATALOG = Path(__file__).parent / "catalog"
CHARTS = scenarios_dir() / "proud-monster" / "charts.toml"
TERRAIN = {"clear", "forest", "hills", "swamp", "sea", "lake"}
FEATURES = {"river", "border", "sivash", "kerch", "lake", "sea", "gas"}


# --------------------------------------------------------------------------- the training scenario


def test_the_training_scenario_loads_and_has_no_validation_problem() -> None:
    assert validate_scenario(load_scenario("training")) == []


def test_the_training_map_is_large_and_has_every_terrain_and_hexside_feature() -> None:
    m = load_scenario("training").map
    assert len(m.hexes) >= 300
    assert {h.terrain for h in m.hexes.values()} == TERRAIN
    assert set().union(*m.hexsides.values()) == FEATURES
    assert m.connected


@pytest.mark.parametrize(
    ("hex_id", "settlement", "name", "vp", "md"),
    [
        ("4201N", "city", "Leningrad", None, True),
        ("4100N", "town", "Oranienbaum", None, None),
        ("2705N", "city", "Riga", None, False),
        ("2817N", "city", "Minsk", 1, True),
        ("5017N", "city", "Moscow", 9, True),
        ("5116N", "city", "Moscow", 9, True),
        ("4921N", "city", "Tula", None, None),
        ("2919S", "city", "Sevastopol", 4, None),
    ],
)
def test_the_training_map_puts_the_rulebook_places_at_their_hexes(
    hex_id: str, settlement: str, name: str, vp: int | None, md: bool | None
) -> None:
    h = load_scenario("training").map.hexes[hex_id]
    assert (h.settlement, h.place, h.terrain) == (settlement, name, "clear")
    assert vp is None or h.vp == vp
    assert md is None or h.md == md


def test_the_training_map_has_the_rulebook_hexsides_and_three_frontier_large_towns() -> None:
    m = load_scenario("training").map
    assert "river" in m.border_features("2608N", "2707N")  # 15.2
    sivash = sorted(k for k, f in m.hexsides.items() if "sivash" in f)
    kerch = sorted(k for k, f in m.hexsides.items() if "kerch" in f)
    assert len(sivash) == 2 and all(set(k.split("-")) <= {"3215S", "3216S", "3315S"} for k in sivash)  # 9.15
    assert len(kerch) == 2 and all(set(k.split("-")) <= {"3719S", "3819S", "3820S"} for k in kerch)
    frontier = [h for h in m.hexes.values() if h.settlement == "large_town" and int(h.id[:2]) <= 22]
    assert len(frontier) == 3  # 3.3


# --------------------------------------------------------------------------- broken copies

Edit = tuple[str, str, str]  # (file, old text, new text); old "" appends new to the file
HEXES = "\n[hexsides]\n"  # replacing this inserts hex lines at the end of [hexes]
SETUP = "scenario.toml"


def hexes(*lines: str) -> Edit:
    return ("map.toml", HEXES, "\n" + "\n".join(lines) + "\n" + HEXES)


def sides(*lines: str) -> Edit:
    return ("map.toml", "", "\n".join(lines) + "\n")


def setup(*entries: tuple[str, str]) -> Edit:
    return (SETUP, "", "".join(f'\n[[setup]]\nunit = "{u}"\nhex = "{h}"\n' for u, h in entries))


def reinforcement(turn: int, unit: str, hex_id: str) -> Edit:
    return (SETUP, "", f'\n[[reinforcement]]\nturn = {turn}\nunit = "{unit}"\nhex = "{hex_id}"\n')


def unit(uid: str, side: str, nat: str, type_: str, steps: int, name: str = "") -> Edit:
    values = ", ".join('"2-2-5"' for _ in range(steps))
    return ("units.toml", "", f'\n[[unit]]\nid = "{uid}"\nname = "{name or uid}"\nside = "{side}"\nnat = "{nat}"\n'
                              f'type = "{type_}"\nsize = "XX"\nsteps = {steps}\nvalues = [{values}]\n')


def copy_scenario(tmp_path: Path, *edits: Edit, scenario: str = "scenario.toml") -> Path:
    """The catalog scenario copied to tmp_path (as scenario.toml, with its map and counters), each
    edit applied once."""
    texts = {
        "map.toml": (CATALOG / "map.toml").read_text(encoding="utf-8"),
        "units.toml": (CATALOG / "units.toml").read_text(encoding="utf-8"),
        SETUP: (CATALOG / scenario).read_text(encoding="utf-8"),
    }
    charts = 'charts = "../../../../scenarios/proud-monster/charts.toml"'
    assert charts in texts[SETUP]
    texts[SETUP] = texts[SETUP].replace(charts, f"charts = {json.dumps(str(CHARTS))}")
    for name, old, new in edits:
        if old:
            assert texts[name].count(old) == 1, (name, old)
            texts[name] = texts[name].replace(old, new)
        else:
            texts[name] += new
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path / SETUP


def problems(tmp_path: Path, *edits: Edit, scenario: str = "scenario.toml") -> list[tuple[str, str]]:
    sc = load_scenario(str(copy_scenario(tmp_path, *edits, scenario=scenario)))
    found = validate_scenario(sc)
    assert all(isinstance(p, Problem) and p.message for p in found)
    return [(p.where, p.rule) for p in found]


@pytest.mark.parametrize("scenario", ["scenario.toml", "exchange-scenario.toml", "reply-scenario.toml"])
def test_the_catalog_scenarios_have_no_validation_problem(tmp_path: Path, scenario: str) -> None:
    assert validate_scenario(load_scenario(str(CATALOG / scenario))) == []
    assert problems(tmp_path, scenario=scenario) == []


# 9.3: a GAS line on the catalog map between columns 48 and 49, and one across its South strip
GAS_LINE = sides(*(f'"{k}" = "gas"' for k in (
    "4812N-4912N", "4813N-4912N", "4813N-4913N", "4814N-4913N", "4814N-4914N", "4815N-4914N", "4815N-4915N",
    "4816N-4915N", "4816N-4916N", "4817N-4916N", "4817N-4917N", "4818N-4917N", "4818N-4918N", "4819N-4918N",
    "4819N-4919N", "4820N-4919N", "4820N-4920N")))
GAS_GAP = sides(*(f'"{k}" = "gas"' for k in (
    "4812N-4912N", "4813N-4912N", "4813N-4913N", "4814N-4913N", "4814N-4914N", "4815N-4914N", "4815N-4915N",
    "4816N-4915N", "4816N-4916N", "4817N-4916N", "4818N-4917N", "4818N-4918N", "4819N-4918N",
    "4819N-4919N", "4820N-4919N", "4820N-4920N")))  # 4817N-4917N left out
GAS_STRIP = sides(*(f'"{k}" = "gas"' for k in (
    "4601S-4701S", "4601S-4726N", "4602S-4701S", "4602S-4702S", "4624N-4724N", "4625N-4724N", "4625N-4725N",
    "4626N-4725N", "4626N-4726N")))

def test_the_catalog_supply_scenario_has_no_validation_problem() -> None:
    """The supply cases' map (its own file): Leningrad, Oranienbaum, a GAS line, a port (9.3-9.17)."""
    sc = load_scenario(str(CATALOG / "supply-scenario.toml"))
    assert validate_scenario(sc) == []
    assert data.gas_sides(sc.map).east == {h for h, x in sc.map.hexes.items() if not x.water and h.endswith("N")
                                           and int(h[:2]) >= 41}


FIXED_TRIANGLE = [hexes('"3215S" = { t = "clear" }', '"3216S" = { t = "clear" }', '"3315S" = { t = "clear" }'),
                  ("map.toml", '"4719N-4720N" = "sivash"\n', "")]

BROKEN: dict[str, tuple[list[Edit], list[tuple[str, str]]]] = {
    # hexes
    "vp on a town": (
        [("map.toml", 'town = "Mozhaisk" }', 'town = "Mozhaisk", vp = 1 }')], [("hex 4816N", "4.2")]),
    "fort on a sea hex": (
        [("map.toml", '"5219N" = { t = "sea" }', '"5219N" = { t = "sea", fort = "heavy" }')], [("hex 5219N", "14.24")]),
    "Stalin Line on a lake hex": (
        [("map.toml", '"5014N" = { t = "lake"', '"5014N" = { t = "lake", stalin = true')], [("hex 5014N", "14.24")]),
    "fort line without a fort": (
        [("map.toml", '"4612N" = { t = "clear" }', '"4612N" = { t = "clear", line = "Luga north" }')], [("hex 4612N", "14.24")]),
    "town on a sea hex": (
        [("map.toml", '"5219N" = { t = "sea" }', '"5219N" = { t = "sea", town = "Atlantis" }')], [("hex 5219N", "D.2")]),
    "city not clear": (
        [("map.toml", '"4917N" = { t = "clear", city', '"4917N" = { t = "hills", city')], [("hex 4917N", "12.10")]),
    "zomo in the USSR": (
        [("map.toml", '"4612N" = { t = "clear" }', '"4612N" = { t = "clear", zomo = true }')], [("hex 4612N", "3.7")]),
    "SZ on the North map": (
        [("map.toml", '"4612N" = { t = "clear" }', '"4612N" = { t = "clear", zone = "SZ" }')], [("hex 4612N", "13.2")]),
    "four Frontier Zone large towns": (  # each is also an FZ large town without a unit (3.3 minimum)
        [hexes(*(f'"22{r:02d}N" = {{ t = "clear", large_town = "T{r}" }}' for r in range(1, 5)))],
        [("Frontier Zone", "3.3"), *((f"setup 22{r:02d}N", "3.3") for r in range(1, 5))]),
    # hexsides
    "feature next to a sea hex": ([sides('"5218N-5219N" = "sea"')], [("hexside 5218N-5219N", "D.3")]),
    "border missing": (
        [("map.toml", '"4612N-4613N" = "border"\n', "")], [("hexside 4612N-4613N", "12.18")]),
    "border inside the USSR": ([sides('"4616N-4715N" = "border"')], [("hexside 4616N-4715N", "12.18")]),
    "the 15.2 river missing": (
        [hexes('"2608N" = { t = "clear" }', '"2707N" = { t = "clear" }')], [("hexside 2608N-2707N", "15.2")]),
    "a Sivash hexside outside its triangle": (
        [FIXED_TRIANGLE[0], sides('"3215S-3216S" = "sivash"', '"3216S-3315S" = "sivash"')], [("sivash", "9.15")]),
    "one Sivash hexside": (
        [*FIXED_TRIANGLE, sides('"3215S-3216S" = "sivash"')], [("sivash", "9.15")]),
    "three Kerch hexsides": (
        [hexes('"3719S" = { t = "clear" }', '"3819S" = { t = "clear" }', '"3820S" = { t = "clear" }'),
         ("map.toml", '"4819N-4820N" = "kerch"\n', ""),
         sides('"3719S-3819S" = "kerch"', '"3719S-3820S" = "kerch"', '"3819S-3820S" = "kerch"')],
        [("kerch", "9.15")]),
    # the places the rulebook locates, where the map has their hex
    "Leningrad renamed": (
        [hexes('"4201N" = { t = "clear", city = "Petrograd", md = true }')], [("hex 4201N", "2.3")]),
    "Oranienbaum missing": ([hexes('"4100N" = { t = "clear" }')], [("hex 4100N", "9.13")]),
    "Riga an MD city": ([hexes('"2705N" = { t = "clear", city = "Riga", vp = 2, md = true }')], [("hex 2705N", "8.7")]),
    "Minsk 2 VP": ([hexes('"2817N" = { t = "clear", city = "Minsk", vp = 2, md = true }')], [("hex 2817N", "4.2")]),
    "Moscow not MD": (
        [("map.toml", '"5116N" = { t = "clear", city = "Moscow", vp = 9, md = true }',
          '"5116N" = { t = "clear", city = "Moscow", vp = 9 }')], [("hex 5116N", "4.3")]),
    "Tula a town": ([hexes('"4921N" = { t = "clear", town = "Tula" }')], [("hex 4921N", "14.25")]),
    "Sevastopol 3 VP": ([hexes('"2919S" = { t = "clear", city = "Sevastopol", vp = 3, port = true }')], [("hex 2919S", "4.2")]),
    # the GAS line (9.3) and the ports (9.17)
    "a gap in the GAS line": ([GAS_GAP], [("GAS line", "9.3")]),
    "a stray GAS hexside": ([GAS_LINE, sides('"5015N-5016N" = "gas"')], [("hexside 5015N-5016N", "9.3")]),
    "the Crimea and a German source east of the GAS line": (
        [GAS_STRIP], [("hex 4701S", "9.3"), ("hex 4702S", "9.3"), ("hex 4702S", "9.11")]),
    "the GAS line not from 4000N/4100N": (
        [hexes('"4000N" = { t = "clear" }', '"4100N" = { t = "clear", town = "Oranienbaum" }'), GAS_LINE],
        [("hexside 4000N-4100N", "9.3")]),
    "Odessa not a port": ([hexes('"2512S" = { t = "clear", city = "Odessa" }')], [("hex 2512S", "9.17")]),
    "a port on a sea hex": ([("map.toml", '"5219N" = { t = "sea" }', '"5219N" = { t = "sea", port = true }')],
                            [("hex 5219N", "9.17")]),
    # the land
    "land in two pieces": ([("map.toml", "connected = false", "connected = true")], [("map", "12.14")]),
    # counters
    "a 2-step Soviet rifle division": ([unit("R9", "soviet", "soviet", "infantry", 2)], [("unit R9", "2.15")]),
    "a 2-step panzer division": ([unit("Pz9", "german", "german", "tank", 2)], [("unit Pz9", "2.14")]),
    # set-up
    "a German unit outside the ZOMO": ([setup(("Pz1", "4816N"))], [("setup[0] Pz1 4816N", "3.7")]),
    "a Soviet unit in Germany": ([setup(("R1", "4614N"))], [("setup[0] R1 4614N", "3.3, 3.4")]),
    "a unit on a lake": ([setup(("R1", "5014N"))], [("setup[0] R1 5014N", "13.7")]),
    "a Guards unit at the start": (
        [unit("G1", "soviet", "soviet", "infantry", 2, "1st Guards Rifle Division"), setup(("G1", "4916N"))],
        [("setup[0] G1 4916N", "3.8")]),
    "six units in a hex": (
        [setup(*((u, "4916N") for u in ("R1", "R2", "R3", "R4", "R5", "R6")))], [("setup 4916N", "6.1")]),
    # reinforcements
    "a reinforcement on the first turn": ([reinforcement(1, "R1", "5017N")], [("reinforcement[0] GT1 R1 5017N", "8.1")]),
    "a reinforcement after the last turn": (
        [("scenario.toml", "last_turn = 12", "last_turn = 3"), reinforcement(4, "R1", "5017N")],
        [("reinforcement[0] GT4 R1 5017N", "8.1")]),
    "a reinforcement on a sea hex": ([reinforcement(2, "R1", "5219N")], [("reinforcement[0] GT2 R1 5219N", "12.14")]),
    "a Soviet reinforcement in the open": ([reinforcement(2, "R1", "4612N")], [("reinforcement[0] GT2 R1 4612N", "8.7")]),
    "a German reinforcement in the USSR": (
        [reinforcement(2, "Inf3", "4816N")], [("reinforcement[0] GT2 Inf3 4816N", "8.2")]),
    "a German reinforcement away from the North OKH area": (
        [hexes('"2013N" = { t = "clear", country = "germany", zomo = true }'), reinforcement(2, "Inf3", "2013N")],
        [("reinforcement[0] GT2 Inf3 2013N", "8.2")]),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_copy_gives_exactly_its_problem(tmp_path: Path, case: str) -> None:
    edits, expected = BROKEN[case]
    assert problems(tmp_path, *edits) == expected


FINE: dict[str, list[Edit]] = {
    "a GAS line": [GAS_LINE],
    "the GAS line from 4000N/4100N": [hexes('"4000N" = { t = "clear" }', '"4100N" = { t = "clear", town = "Oranienbaum" }'),
                                      GAS_LINE, sides('"4000N-4100N" = "gas"')],
    "the Sivash triangle": [*FIXED_TRIANGLE, sides('"3215S-3216S" = "sivash"', '"3216S-3315S" = "sivash"')],
    "the 15.2 river": [hexes('"2608N" = { t = "clear" }', '"2707N" = { t = "clear" }'), sides('"2608N-2707N" = "river"')],
    "Minsk as the rulebook has it": [hexes('"2817N" = { t = "clear", city = "Minsk", vp = 1, md = true }')],
    "a 2-step Guards unit as a reinforcement": [
        unit("G1", "soviet", "soviet", "infantry", 2, "1st Guards Rifle Division"), reinforcement(2, "G1", "5017N")],
    "an Italian motorized division of 2 steps": [unit("It1", "german", "italian", "motorized", 2)],
    "German units in the ZOMO": [setup(("Pz1", "4614N"), ("Inf1", "4614N"))],
    "a Soviet reinforcement next to Moscow (MD)": [reinforcement(2, "R1", "5016N")],
    "a German reinforcement in the ZOMO": [reinforcement(2, "Inf3", "4613N")],
    "a free set-up": [("scenario.toml", "[scenario]\n", "[scenario]\nfree_setup = true\n"), setup(("Pz1", "4816N"))],
}


@pytest.mark.parametrize("case", list(FINE))
def test_data_that_fits_the_rules_gives_no_problem(tmp_path: Path, case: str) -> None:
    assert problems(tmp_path, *FINE[case]) == []


def test_the_loader_refuses_a_hex_with_two_settlements(tmp_path: Path) -> None:
    old = '"4916N" = { t = "forest", large_town = "Vereya", vp = 1 }'
    path = copy_scenario(tmp_path, ("map.toml", old, old.replace('vp = 1', 'vp = 1, town = "Borovsk"')))
    with pytest.raises(ModuleDataError) as e:
        load_scenario(str(path))
    assert [(p.rule, p.message) for p in e.value.problems if "4916N" in p.where] == [
        ("12.17", "both large_town and town: a hex has at most one of town, large_town and city")]


def test_the_gas_line_divides_the_land_east_and_west(tmp_path: Path) -> None:
    """9.3 (data.gas_sides): the hexes of a gas hexside in the higher column are east of it; the
    land reached from them without crossing the line or water is east, the rest west, the South
    strip, which the line does not touch, included."""
    sc = load_scenario(str(copy_scenario(tmp_path, GAS_LINE)))
    g = data.gas_sides(sc.map)
    land = {h for h, x in sc.map.hexes.items() if not x.water}
    assert g.east == {h for h in land if h.endswith("N") and 49 <= int(h[:2]) <= 53 and int(h[2:4]) <= 20}
    assert g.west == {h for h in land if h.endswith("N") and int(h[:2]) <= 48 and int(h[2:4]) <= 20}
    assert not g.both and {"4601S", "4724N"} <= land - g.east - g.west
    assert data.gas_sides(load_scenario(str(CATALOG / "scenario.toml")).map).east == frozenset()


def test_the_training_map_has_a_gas_line_with_the_crimea_west_of_it() -> None:
    """9.3: from 4000N/4100N to 3715S/3815S; Leningrad and Moscow east of it, the Crimea west."""
    m = load_scenario("training").map
    g = data.gas_sides(m)
    assert "gas" in m.border_features("4000N", "4100N") and "gas" in m.border_features("3715S", "3815S")
    assert {"4100N", "4201N", "5017N", "5116N", "3815S"} <= g.east and not g.both
    assert not {h for h, x in m.hexes.items() if x.zone == "SZ"} & g.east
    assert {"3916N", "2817N", "3819S", "2919S"} <= g.west


def test_a_gas_line_needs_the_gast(tmp_path: Path) -> None:
    """17.10: a map with a GAS line on charts without a [gast] table is a data problem."""
    path = copy_scenario(tmp_path, GAS_LINE)
    text = CHARTS.read_text(encoding="utf-8")
    start = text.index("[gast]")
    end = text.index("\n\n", start)
    (tmp_path / "charts.toml").write_text(text[:start] + text[end + 2:], encoding="utf-8")
    scen = path.read_text(encoding="utf-8").replace(f"charts = {json.dumps(str(CHARTS))}", 'charts = "charts.toml"')
    path.write_text(scen, encoding="utf-8")
    sc = load_scenario(str(path))
    assert sc.charts.gast is None
    assert [(p.where, p.rule) for p in validate_scenario(sc)] == [("charts", "17.10")]


def test_the_loader_refuses_a_hexside_given_twice(tmp_path: Path) -> None:
    path = copy_scenario(tmp_path, sides('"4713N-4613N" = "border"'))
    with pytest.raises(ModuleDataError) as e:
        load_scenario(str(path))
    assert any("the same hexside as 4613N-4713N" in p.message for p in e.value.problems)


# --------------------------------------------------------------------------- pbem module check


def test_module_check_exits_0_on_the_bundled_data() -> None:
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster"])
    assert r.exit_code == 0, r.output
    assert "problem" not in r.output and "provisional" in r.output
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    rows = out["rows"]
    assert (out["ok"], out["exit"]) == (True, 0) and all(row["status"] != "problem" for row in rows)
    items = [row["item"] for row in rows]  # a map or counters two scenarios share are listed once
    assert items.count("map (campaign, campaign-setup)") == 1 and items.count("counters (campaign, campaign-setup)") == 1
    assert not any(i in ("map (campaign)", "map (campaign-setup)") for i in items)


@pytest.fixture
def broken_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A bundled-scenario folder whose training map gives Minsk 2 VP, in place of the real one."""
    root = tmp_path / "scenarios"
    shutil.copytree(scenarios_dir() / "proud-monster", root / "proud-monster")
    m = root / "proud-monster" / "training" / "map.toml"
    text = m.read_text(encoding="utf-8")
    old = '"2817N" = { t = "clear", city = "Minsk", vp = 1, md = true, road = true }'
    assert old in text
    m.write_text(text.replace(old, old.replace("vp = 1", "vp = 2")), encoding="utf-8")
    monkeypatch.setattr(data, "scenarios_dir", lambda: root)
    monkeypatch.setattr(resources, "scenarios_dir", lambda: root)  # the bundled scenario paths (pbem.games.base)
    load_scenario.cache_clear()
    yield root
    load_scenario.cache_clear()


def test_module_check_lists_each_problem_of_a_bundled_scenario_and_exits_1(broken_bundle: Path) -> None:
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster"])
    assert r.exit_code == 1, r.output
    assert "problem      scenario training: hex 2817N: Minsk has 1 VP, not 2 [4.2]" in r.output
    assert "provisional" in r.output  # the other rows stay
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster", "--json"])
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    rows = [row for row in out["rows"] if row["status"] == "problem"]
    assert rows == [{"item": "scenario training", "status": "problem", "note": "hex 2817N: Minsk has 1 VP, not 2 [4.2]"}]
    assert (out["ok"], out["exit"], out["error"]) == (False, 1, "proud-monster: 1 data problem")
    assert out["problems"] == [{"where": "scenario training", "message": "hex 2817N: Minsk has 1 VP, not 2 [4.2]", "rule": "", "hint": ""}]


def test_module_check_lists_what_the_loader_refuses(broken_bundle: Path) -> None:
    units = broken_bundle / "proud-monster" / "training" / "units.toml"
    units.write_text(units.read_text(encoding="utf-8").replace('id = "1Pz"', 'id = "10RD"', 1), encoding="utf-8")
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster", "--json"])
    assert r.exit_code == 1, r.output
    notes = [row["note"] for row in json.loads(r.stdout)["rows"] if row["status"] == "problem"]
    assert notes and any("duplicate unit id" in n for n in notes)
