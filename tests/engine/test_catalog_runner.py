"""The catalog runner (pbem/catalog.py) and `pbem catalog run`: a case whose expectation the game
does not meet fails, naming it, for each kind of expectation, shared or a game's; a file that is
not a case (against schemas/case.schema.json, of no game, with a key no one reads, orders no player
could send) is malformed; exit 0, 1 and 2 and the JSON of the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.catalog import case_files, run_case
from tests.clihelpers import run
from tests.paths import PM_CATALOG, SK_CATALOG

SK_REPLY = SK_CATALOG / "SK-010-reply.toml"  # a reply, two dice, events, report words, awaited
SK_ILLEGAL = SK_CATALOG / "SK-013-attack-problems.toml"
PM_MOVES = PM_CATALOG / "PM-001-clear-costs.toml"
SK_SETUP = SK_CATALOG / "SK-021-hidden-setup.toml"  # files by side, hidden values committed and claimed
SK_TAMPER = SK_CATALOG / "SK-027-hidden-move-contradicted.toml"  # an opening refused
SK_LAST = SK_CATALOG / "SK-030-hidden-last-step.toml"  # the values opened by the last step


def changed(src: Path, tmp: Path, old: str, new: str, name: str | None = None) -> Path:
    """A copy of a case file in ``tmp`` with ``old`` replaced by ``new``; a Proud Monster case names
    the catalog scenario of its folder by its full path."""
    text = src.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {src.name}"
    text = text.replace(old, new, 1)
    if src.name.startswith("PM-"):
        text = text.replace("[case]\n", f"[case]\nscenario = {json.dumps(str(src.parent / 'scenario.toml'))}\n", 1)
    out = tmp / (name or src.name)
    out.write_text(text, encoding="utf-8")
    return out


def test_the_cases_as_written_pass(tmp_path: Path) -> None:
    for src in (SK_REPLY, SK_ILLEGAL, PM_MOVES):
        r = run_case(changed(src, tmp_path, "[case]", "[case]"))
        assert (r.status, r.failures, r.malformed) == ("pass", [], []), src.name
        assert r.id == src.name[:6] and r.game == ("skirmish" if src.name.startswith("SK") else "proud-monster")


@pytest.mark.parametrize(("src", "old", "new", "words"), [
    (SK_REPLY, "rolled = 2", "rolled = 3", "dice rolled: expected 3, got 2"),
    (SK_REPLY, 'from = ["blue"], adjudicator = "green"', 'from = ["green"], adjudicator = "green"', "awaited[1].from"),
    (SK_REPLY, 'kind = "advance", target = "crossroads"', 'kind = "advance", target = "mill"', "no advance event with"),
    (SK_REPLY, "report = [\"Decision", "no_events = [\"reply\"]\nreport = [\"Decision", "no reply event may occur"),
    (SK_REPLY, "(among G1, G4)", "(among G1, G5)", "no report line with"),
    (SK_REPLY, "report = [", "no_report = [\"west-fields\"]\nreport = [", "a report line with 'west-fields'"),
    (SK_REPLY, "rolled = 2", "rolled = 2\nresult = { winner = \"red\" }", "result: no field winner"),
    (SK_REPLY, "rolled = 2", "rolled = 2\nawaits = { step = \"T1/green\" }", "awaits.step: expected 'T1/green'"),
    (SK_REPLY, "rolled = 2", "rolled = 2\nclock = { side = \"green\" }", "clock.side: expected 'green', got 'blue'"),
    (SK_REPLY, 'losses = ["G1"]\n\n[expect]', 'losses = ["G1"]\n\n[[reply]]\nlosses = ["G4"]\n\n[expect]',
     "1 reply(ies) left: no reply was awaited"),
    (SK_REPLY, 'G1 = "eliminated"', 'G1 = "west-fields"', "G1: expected in west-fields, is in eliminated"),
    (SK_REPLY, 'control = { crossroads = "red" }', 'control = { crossroads = "blue" }', "control of crossroads"),
    (SK_REPLY, "rolled = 2", "rolled = 2\nvp = { red = 1 }", "vp: expected {'red': 1}"),
    (SK_ILLEGAL, 'where = "attack[3].advance[1]"', 'where = "attack[3].advance[2]"', "problems: expected"),
    (SK_ILLEGAL, 'text = "B1 is blue\'s"', 'text = "B1 is green\'s"', "problems[3]: \"B1 is green's\" not in"),
    (SK_ILLEGAL, "legal = false\nproblems = [\n  { rule = \"4.1\", where = \"attack[0].target\"",
     "legal = false\nproblems = [\n  { rule = \"4.7\", where = \"attack[3].advance[1]\" },\n  { rule = \"4.1\", where = \"attack[0].target\"",
     "problems: expected"),  # in the order check gives them
    (SK_TAMPER, "the allowance of artillery is 1", "the allowance of artillery is 2", "tamper[0]: "),
    (SK_LAST, 'red = ["R1", "R2", "R3", "R4", "R5", "reserve.3"]', 'red = ["R1", "R2", "R3", "R4", "reserve.3"]', "values opened"),
    (SK_LAST, "hidden = { red = []", 'hidden = { red = ["R1"]', "red's values still hidden: expected ['R1'], got []"),
    (SK_SETUP, '"reserve.0" = [{ areas = ["bluehold", "east-woods", "ford"] }]', '"reserve.0" = [{ areas = ["ford"] }]',
     "claims on blue's reserve.0"),
    (SK_SETUP, 'hidden = { blue = ["B1", "B2", "B3", "B4", "B5", "reserve.0"]', 'hidden = { blue = ["B1", "B2", "B3", "B4", "reserve.0"]',
     "blue's values still hidden"),
    (PM_MOVES, 'Pz1 = "4916N", Inf1', 'Pz1 = "4816N", Inf1', "units.Pz1.at: expected '4816N', got '4916N'"),
    (PM_MOVES, 'units = { Pz1 = "4916N", Inf1 = "4917N" }', 'units = { Pz1 = "4916N" }',
     "every ordered unit's result is asserted: missing ['Inf1']"),
    (PM_MOVES, "vp = 4", "vp = 3", "vp: expected 3, got 4"),
    (PM_MOVES, '"4816N" = "german"', '"4816N" = "soviet"', "control of 4816N: expected soviet"),
    (PM_MOVES, "vp = 4", "vp = 4\nposition = { vp = 5 }", "position.vp: expected 5, got 4"),
    (PM_MOVES, "vp = 4", "vp = 4\nno_position = [\"vp\"]", "position.vp should be absent"),
    (PM_MOVES, "costs = { Pz1 = [1, 2] }", "costs = { Pz1 = [1, 1] }", "no move event with"),
    (PM_MOVES, "vp = 4", "vp = 4\n\n[[expect.attack]]\nodds = \"3:1\"", "one [[expect.attack]] per attack order"),
])
def test_an_expectation_not_met_fails_naming_it(tmp_path: Path, src: Path, old: str, new: str, words: str) -> None:
    r = run_case(changed(src, tmp_path, old, new))
    assert r.status == "fail" and r.malformed == [], r.malformed
    assert any(words in f for f in r.failures), "\n".join(r.failures)


def test_orders_expected_refused_that_are_legal_fail(tmp_path: Path) -> None:
    path = changed(PM_MOVES, tmp_path, "[expect]\nunits = { Pz1 = \"4916N\", Inf1 = \"4917N\" }\nvp = 4\n"
                   "control = { \"4816N\" = \"german\", \"4916N\" = \"german\", \"4917N\" = \"german\" }",
                   "[expect]\nlegal = false\nproblems = [{ rule = \"12.1\", where = \"move[0]\" }]")
    path.write_text(path.read_text(encoding="utf-8").split("events = [")[0], encoding="utf-8")
    r = run_case(path)
    assert r.status == "fail" and r.failures == ["the orders were expected to be refused, but were legal"]


@pytest.mark.parametrize(("old", "new", "words"), [
    ("rules = [\"12.1\", \"12.10\", \"12.11\", \"3.9\"]", "rules = []", "should be non-empty"),
    ('title = "', 'titel = "', "'title' is a required property"),
    ('id = "PM-001"', 'id = "ZZ-001"', "no game has the cases ZZ-NNN"),
    ('id = "PM-001"', 'id = "PM-002"', "case.id: PM-002 does not start the file name PM-001-clear-costs.toml"),
    ("vp = 4", "vp = 4\nunit = { Pz1 = \"4916N\" }", "expect.unit: not a key of a proud-monster case"),
    ("turn = 2", "trun = 2", "position.trun: not a key of a proud-monster case"),
    ("vp = 4", "vp = 4\nlegal = false", "'problems' is a required property"),
    ("vp = 4", "vp = 4\nproblems = [{ rule = \"12.1\", where = \"move[0]\" }]", "should not be valid"),
    ("vp = 4", "vp = 4\nlegal = false\nproblems = [{ rule = \"12.1\", where = \"move[0]\" }]", "'vp' is not one of"),
    ('path = ["4816N", "4916N"]', 'path = "4816N"', "orders, standing instructions or replies no player could send"),
    ("[position]", "[dice]\nfaces = [0]\n\n[position]", "0 is less than the minimum of 1"),
    ("[case]", "[case", "not a readable TOML file"),
    ("vp = 4", "vp = 4\ntamper = [{ rule = \"12.1\", where = \"move[0]\" }]", "'vp' is not one of ['tamper']"),
    ("[position]", "[secret.german]\nx = 1\n\n[claims.german]\nx = [{ at = 0 }]\n\n[position]", "0 is less than the minimum of 1"),
])
def test_a_file_that_is_no_case_is_malformed(tmp_path: Path, old: str, new: str, words: str) -> None:
    r = run_case(changed(PM_MOVES, tmp_path, old, new))
    assert r.status == "malformed" and r.failures == []
    assert any(words in m for m in r.malformed), "\n".join(r.malformed)


def test_a_folder_gives_its_case_files_by_name_in_its_subfolders_too(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    a = changed(SK_REPLY, tmp_path / "sub", "[case]", "[case]")
    b = changed(SK_ILLEGAL, tmp_path, "[case]", "[case]")
    (tmp_path / "notes.toml").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "SK-1-short.toml").write_text("x = 1\n", encoding="utf-8")
    assert case_files([tmp_path]) == [b, a]
    assert case_files([tmp_path / "notes.toml"]) == [tmp_path / "notes.toml"]  # a file given is a case


def test_pbem_catalog_run_exits_0_1_2(tmp_path: Path) -> None:
    good = changed(SK_REPLY, tmp_path, "[case]", "[case]")
    r = run(["catalog", "run", tmp_path])
    assert r.output.strip() == "1 case: 1 passed, 0 failed, 0 malformed"
    bad = changed(SK_ILLEGAL, tmp_path, "B1 is blue", "B1 is green")
    r = run(["catalog", "run", tmp_path], 1)
    assert "FAIL SK-013 An attack names a target holding another side's units" in r.output and str(bad) in r.output
    assert "problems[3]: \"B1 is green's\" not in" in r.output
    assert r.output.splitlines()[-1] == "2 cases: 1 passed, 1 failed, 0 malformed"
    ugly = changed(SK_REPLY, tmp_path, "rolled = 2", "rolled = -1", "SK-099-ugly.toml")
    r = run(["catalog", "run", good, bad, ugly], 2)
    assert f"MALFORMED {ugly}" in r.output and "-1 is less than the minimum of 0" in r.output
    assert r.output.splitlines()[-1] == "3 cases: 1 passed, 1 failed, 1 malformed"
    data = json.loads(run(["catalog", "run", tmp_path, "--json"], 2).stdout)
    assert (data["ok"], data["exit"], data["passed"], data["failed"], data["malformed"]) == (False, 2, 1, 1, 1)
    assert data["error"] == "3 cases: 1 failed, 1 malformed" and {p["where"] for p in data["problems"]} == {str(bad), str(ugly)}
    assert [(c["case"], c["game"], c["status"]) for c in data["cases"]] == [
        ("SK-010", "skirmish", "pass"), ("SK-013", "skirmish", "fail"), ("", "", "malformed")]
    assert data["cases"][1]["file"] == str(bad) and data["cases"][1]["failures"][0].startswith("problems[3]")


def test_pbem_catalog_run_on_a_folder_without_cases_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "map.toml").write_text("x = 1\n", encoding="utf-8")
    r = run(["catalog", "run", tmp_path], 2)
    assert "no case file in" in r.output
    r = run(["catalog", "run", tmp_path / "missing"], 2)
    assert "does not exist" in r.output


def test_pbem_catalog_run_runs_every_game_s_catalog() -> None:
    r = run(["catalog", "run", SK_CATALOG, SK_REPLY])
    n = len(list(SK_CATALOG.glob("SK-*.toml")))
    assert r.output.strip() == f"{n + 1} cases: {n + 1} passed, 0 failed, 0 malformed"
