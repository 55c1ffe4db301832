"""Set-up by the players (3.2-3.7) beyond the catalog cases: the border order (hexside lines), a
small players' set-up through `pbem template/check/sign/adjudicate/verify`, the templates, the
referee's default, views, the SUT's cross-checks by the loader, and the set-up minimums on fixed
set-ups (`validate_scenario`, `pbem module check`)."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.engine.model import Submission
from pbem.errors import ModuleDataError
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_all_new, write_new
from pbem.exchange.game import adjudicate, load_doc, load_state, make_join, new_game
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.games.proud_monster import autoplay, setup
from pbem.games.proud_monster.data import load_scenario
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.validation import validate_scenario
from pbem.mechanics.hexgrid import Hex, Numbering, adjacent, hexside_lines
from pbem.resources import scenarios_dir
from tests.clihelpers import fails, run
from tests.conftest import joined_salt, start_game
from tests.games.proud_monster.pmcase import CATALOG

SETUP = str(CATALOG / "setup-scenario.toml")
GERMAN_SETUP = str(CATALOG / "setup-german-scenario.toml")
CHARTS = scenarios_dir() / "proud-monster" / "charts.toml"

# The legal set-ups of PM-470 and PM-485.
SOVIET = {"2006N": ["R1"], "2007N": ["R2"], "2008N": ["R3"], "1703S": ["R4"], "1805S": ["R5"], "1906S": ["R6"],
          "1908S": ["R7"], "2107N": ["C1"], "2207N": ["C2"], "1905S": ["T1"], "2106N": ["R8"], "2206N": ["R9"],
          "2005S": ["R10"], "2307N": ["R11", "R12", "R16", "R17", "R18"], "2306S": ["R15", "C3"], "2406N": ["R13"],
          "2407N": ["R14"], "2405S": ["M1", "T2"]}
GERMAN = {"1906N": ["Pz1", "Pz2", "Mot1", "Inf1", "Inf2"], "1907N": ["Inf3", "Inf4", "Rgt1", "Rec1", "Bn1"],
          "1604S": ["Hu1"], "1704S": ["Ro1"], "1705S": ["Ro2"], "1706S": ["Inf5", "StuG1"], "1807S": ["Inf6"],
          "okh-north": ["Inf8", "StuG2", "Bn2"], "okh-south": ["Inf7", "It1"]}


def setup_table(table: dict[str, list[str]]) -> str:
    return "[setup]\n" + "".join(f'"{h}" = [{", ".join(chr(34) + u + chr(34) for u in us)}]\n' for h, us in table.items())


def with_setup(template: str, table: dict[str, list[str]]) -> str:
    """A template with its [setup] table replaced by ``table`` (the comments and [standing] kept)."""
    head, rest = template.split("\n[setup]\n")
    return head + "\n" + setup_table(table) + rest[rest.index("\n# Standing"):]


# --------------------------------------------------------------------------- the border's order


def test_hexside_lines_join_hexsides_corner_to_corner_from_one_end() -> None:
    n = Numbering()
    # the border of the column-19 hexes 1906N-1908N against column 20: five hexsides, one line
    pairs = [("1908N", "2008N"), ("1906N", "2007N"), ("1907N", "2008N"), ("1906N", "2006N"), ("1907N", "2007N")]
    lines = hexside_lines((n.parse(a), n.parse(b)) for a, b in pairs)
    assert [[(n.format(a), n.format(b)) for a, b in line] for line in lines] == [
        [("1906N", "2006N"), ("1906N", "2007N"), ("1907N", "2007N"), ("1907N", "2008N"), ("1908N", "2008N")]]
    # two separate pieces give two lines; the six hexsides around a hex give one closed line
    apart = hexside_lines([(n.parse("1906N"), n.parse("2006N")), (n.parse("3010N"), n.parse("3110N"))])
    assert len(apart) == 2
    ring = hexside_lines((Hex(30, 10), x) for x in (Hex(30, 9), Hex(31, 9), Hex(31, 10), Hex(30, 11), Hex(29, 10), Hex(29, 9)))
    assert len(ring) == 1 and len(ring[0]) == 6


def test_the_training_border_runs_from_2006N_hex_by_hex() -> None:
    sc = load_scenario("training")
    (line,) = setup.border_lines(sc.map)
    assert line[-1] == "2006N" or line[0] == "2006N"
    n = sc.map.numbering
    assert all(adjacent(n.parse(a), n.parse(b)) for a, b in zip(line, line[1:], strict=False))
    assert {"2013N", "2014N"}.isdisjoint(line)  # the Suwalki hexes are German (ZOMO), not border hexes
    hexes, note = setup.stretch(sc.map, [line], "2006N", "1703S")
    assert hexes[0] == "2006N" and hexes[-1] == "1922N" and len(hexes) == len(line)
    assert "does not have 1703S" in note and "from 2006N to 1922N" in note
    assert setup.stretch(sc.map, [line], "1804S", "2114S") == ([], "1804S-2114S: the map has neither end of this "
                                                                  "stretch of the border; not checked")


def test_the_catalog_set_up_map_has_both_ends_of_the_frontier_in_two_pieces() -> None:
    sc = load_scenario(SETUP)
    lines = setup.border_lines(sc.map)
    a, note = setup.stretch(sc.map, lines, "2006N", "1703S")
    assert a == ["2006N", "2007N", "2008N", "1703S"] and "breaks off" in note
    b, note = setup.stretch(sc.map, lines, "1804S", "2114S")
    assert b == ["1804S", "1805S", "1806S", "1906S", "1907S", "1908S"] and "does not have 2114S" in note


# --------------------------------------------------------------------------- a players' set-up by the CLI


def test_a_players_set_up_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run(["keygen", "alice"])
    run(["keygen", "bob"])
    run(["new", SETUP, "--side", "german=alice.pub", "--side", "soviet=bob.pub", "--key", "alice.key", "--game-id",
         "pm-setup", "-o", "game", "--option", "untried_units=true"])
    run(["join", "game/0000.state.toml", "--side", "german", "--key", "alice.key"])
    run(["join", "game/0000.state.toml", "--side", "soviet", "--key", "bob.key"])
    r = run(["adjudicate", "game/0000.state.toml", "game/0000-german.join.toml", "game/0000-soviet.join.toml",
             "--key", "alice.key"])
    assert r.output.endswith("awaits orders for setup/soviet from soviet\n")
    assert "to be set up by its player (3.2-3.7): C1, C2" in run(["show", "game/0001.state.toml"]).output

    # the Soviet: the template proposes a legal set-up; an empty one breaks every minimum and the SUT
    orders = tmp_path / "game" / "0001-soviet.orders.toml"
    run(["template", "game/0001.state.toml", "--side", "soviet", "-o", orders])
    text = orders.read_text(encoding="utf-8")
    assert 'step = "setup/soviet"' in text and "#   RD: FZ 10, IZ 8, of 20: R1 ?-?-5" in text
    assert "#   3.3 border hex 2006N (2006N-1703S)" in text and '"2006N" = ["R1", "C1"]   # 3.3 border' in text
    assert run(["check", "game/0001.state.toml", orders]).output.endswith("legal for step setup/soviet (not sealed yet: `pbem sign`)\n")
    orders.write_text(with_setup(text, {}), encoding="utf-8")
    fails(tmp_path, 1, ["check", "game/0001.state.toml", orders], "23 problems",
              "setup.2006N: border hex 2006N (2006N-1703S): 0 units, 1 or more needed [3.3]",
              "setup: RD: 0 set up in the Frontier Zone, the SUT sets up 10 there (17.6) [3.2]",
              "setup (column 24): Interior Zone column 24")
    orders.write_text(with_setup(text, SOVIET), encoding="utf-8")
    assert run(["check", "game/0001.state.toml", orders]).output.endswith("legal for step setup/soviet (not sealed yet: `pbem sign`)\n")
    run(["sign", orders, "--key", "bob.key", "--state", "game/0001.state.toml"])
    fails(tmp_path, 2, ["adjudicate", "game/0001.state.toml", orders, "--key", "bob.key"], "adjudicated by 'german'")
    r = run(["adjudicate", "game/0001.state.toml", orders, "--key", "alice.key"])
    assert r.output == "wrote game/0002.state.toml, game/0002.report.md, game/0002.turn.svg\nawaits orders for setup/german from german\n"
    report = (tmp_path / "game" / "0002.report.md").read_text(encoding="utf-8")
    assert "- **Soviet set-up** (3.2-3.4): 24 units from the Soviet Unit Table (17.6, provisional), 13 in the Frontier " \
           "Zone and 11 in the Interior Zone, untried" in report
    assert "GT2: R19, R20, RB1; GT3: C4, TB1." in report
    state = tomllib.loads((tmp_path / "game" / "0002.state.toml").read_text(encoding="utf-8"))
    assert state["position"]["arrivals"] == {"C4": 3, "R19": 2, "R20": 2, "RB1": 2, "TB1": 3}
    assert all("tried" not in u for u in state["position"]["units"].values())  # 2.15: nobody knows the values
    assert "to arrive: C4 (GT3), G1, R19 (GT2)" in run(["show", "game/0002.state.toml"]).output

    # the German: the template proposes a legal set-up in the ZOMO (3.7); he sets up his own
    gorders = tmp_path / "game" / "0002-german.orders.toml"
    run(["template", "game/0002.state.toml", "--side", "german", "-o", gorders])
    gtext = gorders.read_text(encoding="utf-8")
    assert "#   2006N: R1 ?-?-5" in gtext  # the Soviet set-up as untried counters (2.15)
    assert '"1603S" = ["Hu1"]' in gtext and '"1706S" = ["Ro1", "Ro2"]' in gtext and 'okh-south = ["It1"]' in gtext
    assert '"1704S" = ["Inf1", "Inf2", "Inf3", "Inf4", "Inf5"]' in gtext  # 3.7(3): 7 divisions, 1 assault gun
    assert run(["check", "game/0002.state.toml", gorders]).output.endswith("legal for step setup/german (not sealed yet: `pbem sign`)\n")
    bad = dict(GERMAN, **{"1603S": ["Inf1"]})
    bad["1906N"] = ["Pz1", "Pz2", "Mot1", "Inf2"]
    gorders.write_text(with_setup(gtext, bad), encoding="utf-8")
    fails(tmp_path, 1, ["check", "game/0002.state.toml", gorders], "setup.1603S[0]: Inf1: only the Hungarian Fast Corps sets up in Hungary [3.7]")
    gorders.write_text(with_setup(gtext, GERMAN), encoding="utf-8")
    run(["sign", gorders, "--key", "alice.key", "--state", "game/0002.state.toml"])
    r = run(["adjudicate", "game/0002.state.toml", gorders, "--key", "bob.key"])
    assert r.output.endswith("awaits orders for GT1/1/german from german\n")
    report = (tmp_path / "game" / "0003.report.md").read_text(encoding="utf-8")
    assert "- **German set-up** (3.6-3.7): 21 units." in report and "Held back in the North OKH reserve area (8.4): Bn2, Inf8, StuG2." in report
    assert "### Mutual reinforcement phase, GT1" in report
    v = json.loads(run(["verify", "game", "--json"]).output)
    assert v["ok"] and v["states"] == 4 and v["transitions"] == 3


# --------------------------------------------------------------------------- the referee, views


class Refereed:
    """A refereed game of the set-up scenario after the joins."""

    PARTIES = ("german", "soviet", "referee")

    def __init__(self, folder: Path, options: dict[str, object] | None = None) -> None:
        folder.mkdir(parents=True)
        self.folder = folder
        self.keys = {p: KeyPair.from_seed(f"set-up test {p}".encode()) for p in self.PARTIES}
        st = new_game("proud-monster", SETUP, {s: self.keys[s].public_text for s in ("german", "soviet")},
                      self.keys["referee"].public_text, self.keys["referee"], "pm-setup-ref", dict(options or {}))
        write_new(folder / "0000.state.toml", dumps(st))
        joins = []
        for p in self.PARTIES:
            j = folder / f"0000-{p}.join.toml"
            write_new(j, dumps(make_join(load_state(folder / "0000.state.toml"), p, self.keys[p], salt=joined_salt(load_state(folder / "0000.state.toml"), p, self.keys[p]))))
            joins.append(j)
        res = adjudicate(load_state(folder / "0000.state.toml"), [load_doc(j, "orders") for j in joins], self.keys["referee"])
        write_all_new(res.outputs(folder=folder))

    def last(self) -> Path:
        return sorted(self.folder.glob("[0-9][0-9][0-9][0-9].state.toml"))[-1]


def test_the_referee_adjudicates_missing_set_ups_by_the_proposals(tmp_path: Path) -> None:
    """`--no-orders soviet`: the template's proposed set-up; `--no-orders german`: every unit held
    back in its OKH area. The German's view shows the Soviet set-up under fog of war (14.7)."""
    g = Refereed(tmp_path / "game", {"fog_of_war": True})
    key, _ = write_key_files(g.keys["referee"], tmp_path / "referee")
    r = CliRunner().invoke(cli, ["adjudicate", str(g.last()), "--no-orders", "soviet", "--key", str(key)])
    assert r.exit_code == 0, r.output
    report = (g.folder / "0002.report.md").read_text(encoding="utf-8")
    assert "- **Soviet set-up** (3.2-3.4) (no orders by the deadline: the proposed set-up of `pbem template`): 24 units" in report
    assert "3.3 (Frontier Zone: border hexes, large towns): all 12 minimums met." in report
    # fog of war (14.7): the German's view of the Soviet set-up shows the top unit of each stack only
    view = tomllib.loads((g.folder / "0002-german.view.toml").read_text(encoding="utf-8"))
    assert view["position"]["hidden"]["2405S"] == 4 and view["awaits"]["step"] == "setup/german"
    assert sum(1 for u in view["position"]["units"].values() if u["at"] == "2405S") == 1
    r = CliRunner().invoke(cli, ["adjudicate", str(g.last()), "--no-orders", "german", "--key", str(key)])
    assert r.exit_code == 0, r.output
    report = (g.folder / "0003.report.md").read_text(encoding="utf-8")
    assert "no orders by the deadline: every unit held back in its OKH area, 8.4, 8.5" in report
    final = tomllib.loads((g.folder / "0003.state.toml").read_text(encoding="utf-8"))
    units = final["position"]["units"]
    assert units["Pz1"]["at"] == "okh-north" and units["Ro1"]["at"] == "okh-south" and units["It1"]["at"] == "okh-south"
    assert final["awaits"]["step"] == "GT1/1/german"
    assert CliRunner().invoke(cli, ["verify", str(g.folder), "--quiet"]).exit_code == 0


def test_the_built_in_player_sets_up_and_the_set_aside_units_arrive_in_the_mr_step(tmp_path: Path) -> None:
    """autoplay.propose answers the set-up steps with the proposals; on GT2 the units the set-up left
    for GT2 (3.5) are among those the Soviet places in his MR step (8.7)."""
    g = start_game(tmp_path / "game", SETUP, "pm-setup-auto")
    m = ProudMonster()
    for _ in range(8):
        st = g.state().data
        if st["awaits"]["step"] == "GT2/MR/soviet":
            break
        g.play(autoplay.propose(m, st, st["awaits"]["from"][0]))
    st = g.state().data
    assert st["awaits"]["step"] == "GT2/MR/soviet"
    assert {"R19", "R20", "RB1"} <= set(st["position"]["mr"]["place"])
    assert "C4" not in st["position"]["mr"]["place"]  # GT3 (3.5)
    result = verify([g.folder])  # raises on any failure
    assert result.transitions == int(st["pbem"]["sequence"])


# --------------------------------------------------------------------------- the SUT, checked by the loader


def copy_setup(tmp_path: Path, old: str = "", new: str = "", scenario: str = "setup-scenario.toml") -> str:
    """The set-up scenario copied to tmp_path with one edit (old "" appends new)."""
    for name in ("setup-map.toml", "setup-units.toml"):
        shutil.copyfile(CATALOG / name, tmp_path / name)
    text = (CATALOG / scenario).read_text(encoding="utf-8")
    text = text.replace('charts = "../../../../scenarios/proud-monster/charts.toml"', f"charts = {json.dumps(str(CHARTS))}")
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    else:
        text += new
    (tmp_path / "scenario.toml").write_text(text, encoding="utf-8")
    return str(tmp_path / "scenario.toml")


LOADER = {
    "the SUT sets up more than the pool has": ("fz = { RD = 10, CD = 2, TD = 1 }", "fz = { RD = 11, CD = 2, TD = 1 }",
                                               "scenario.toml: sut RD", "3.5"),
    "a tank brigade at the start": ("fz = { RD = 10, CD = 2, TD = 1 }", "fz = { RD = 10, CD = 2, TD = 1, TB = 1 }",
                                    "scenario.toml: sut.fz.TB", "3.2"),
    "a Soviet reinforcement on GT1": ("2 = { RD = 2, RB = 1 }", "1 = { RD = 2, RB = 1 }", "scenario.toml: sut.schedule.1", "8.1"),
    "no SUT": ("[sut]\n", "[not_sut]\n", "scenario.toml: sut", "3.2"),
    "a SUT for a fixed set-up": ('setup_by = "players"', 'setup_by = "german"', "scenario.toml: sut", "17.6"),
    "a Soviet unit in [[setup]]": ("", '\n[[setup]]\nunit = "R1"\nhex = "2006N"\n', "scenario.toml: setup", "3.2"),
}


@pytest.mark.parametrize("case", list(LOADER))
def test_the_loader_refuses_a_sut_that_does_not_fit(tmp_path: Path, case: str) -> None:
    old, new, where, rule = LOADER[case]
    if case == "no SUT":  # a table the schema refuses is a schema problem; drop the whole [sut]
        path = copy_setup(tmp_path)
        text = Path(path).read_text(encoding="utf-8")
        start, end = text.index("[sut]"), text.index("[[reinforcement]]")
        Path(path).write_text(text[:start] + text[end:], encoding="utf-8")
    else:
        path = copy_setup(tmp_path, old, new)
    with pytest.raises(ModuleDataError) as e:
        load_scenario(path)
    found = [(p.where.split("/")[-1], p.rule) for p in e.value.problems]
    assert (where, rule) in found, found


# --------------------------------------------------------------------------- fixed set-ups


def test_a_fixed_set_up_is_checked_against_the_minimums(tmp_path: Path) -> None:
    assert validate_scenario(load_scenario(GERMAN_SETUP)) == []
    path = copy_setup(tmp_path, 'unit = "R1"\nhex = "2006N"', 'unit = "R1"\nhex = "2106N"', scenario="setup-german-scenario.toml")
    found = [(p.where, p.rule, p.message) for p in validate_scenario(load_scenario(path))]
    assert found == [("setup 2006N", "3.3", "border hex 2006N (2006N-1703S): 0 units, 1 or more needed")]


def test_a_scenario_declares_minimums_its_map_cannot_meet_and_may_not_declare_met_ones(tmp_path: Path) -> None:
    path = copy_setup(tmp_path, 'setup_by = "german"', 'setup_by = "german"\nunmet_minimums = ["3.3"]',
                      scenario="setup-german-scenario.toml")
    found = [(p.where, p.rule) for p in validate_scenario(load_scenario(path))]
    assert found == [("scenario.unmet_minimums", "3.3")]
    rows = setup.minimum_report(load_scenario("training"))
    assert rows[0][0] == "unmet" and rows[0][1].startswith("50 of the 60 minimums not met, as the scenario declares")
    assert rows[0][1].endswith("[3.4]")
    assert ("limited", "border 1804S-2114S: the map has neither end of this stretch of the border; not checked [3.3]") in rows


def test_module_check_lists_the_declared_and_the_unchecked_minimums() -> None:
    r = CliRunner().invoke(cli, ["module", "check", "proud-monster"])
    assert r.exit_code == 0, r.output
    assert "unmet        scenario training: 50 of the 60 minimums not met" in r.output
    assert "limited      scenario training: border 2006N-1703S: the map does not have 1703S; checked from 2006N to 1922N" in r.output


def test_the_soviet_template_marks_what_is_not_enforced(tmp_path: Path) -> None:
    """A scenario that declares 3.4 unmet does not enforce it on a players' set-up either; the
    template says so and proposes no 3.4 hex."""
    path = copy_setup(tmp_path, 'setup_by = "players"', 'setup_by = "players"\nunmet_minimums = ["3.4"]')
    m = ProudMonster()
    base = m.new_game(path, {})
    state = {"pbem": {"scenario": path, "game": "g"}, "parties": {"german": {"index": 0}, "soviet": {"index": 0}},
             **base, "awaits": {"kind": "orders", "step": "setup/soviet", "from": ["soviet"], "adjudicator": "german"}}
    text = m.template(state, "soviet", [])
    assert "#   3.4: the scenario declares its map cannot meet these minimums; they are not enforced" in text
    assert "# 3.4 city Vilnius" not in text and '"2006N" = ["R1"' in text
    table = {h: us for h, us in SOVIET.items() if h not in ("2306S",)}
    table["2305S"] = ["R15", "C3"]  # 2306S left empty: a 3.4 minimum, not enforced here
    assert m.check(state, Submission("orders", "soviet", {"setup": table}, "sha256:x")) == []
