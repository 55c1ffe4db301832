"""The pbem commands on Skirmish, a three-sided game, with Proud Monster out of the registry: keygen,
games, rules, module check, new, join, status, template, check, sign, adjudicate (with dice), a
reply during another side's turn, show, verify and audit, as a user types them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pbem.exchange.game import load_state
from tests.clihelpers import fails, run
from tests.exchange.neutral.conftest import RED_T1, SCENARIO, reply_body

SIDE_ARGS = ["--side", "red=red.pub", "--side", "blue=blue.pub", "--side", "green=green.pub"]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the three players' keys (made by `pbem keygen`), as the current folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    for side in ("red", "blue", "green"):
        assert "key id" in run(["keygen", side]).output
    return tmp_path


def joined(root: Path) -> Path:
    """`pbem new` by red, the three joins, the joins adjudicated by red: state 0001."""
    run(["new", SCENARIO, *SIDE_ARGS, "--key", "red.key", "-o", "game"])
    for side in ("red", "blue", "green"):
        assert f"wrote game/0000-{side}.join.toml" in run(["join", "game/0000.state.toml", "--side", side, "--key", f"{side}.key"]).output
    r = run(["adjudicate", "game/0000.state.toml", "game/0000-blue.join.toml", "game/0000-green.join.toml",
             "game/0000-red.join.toml", "--key", "red.key"])
    assert "awaits orders for T1/red from red" in r.output
    return root / "game"


def orders_from_template(path: str, side: str, body: str) -> None:
    """`pbem template` for the awaited step, with ``body`` written under its header."""
    state = path.split("-")[0] + ".state.toml"
    run(["template", state, "--side", side, "-o", path])
    text = Path(path).read_text(encoding="utf-8")
    Path(path).write_text(text + body, encoding="utf-8")


def test_only_skirmish_is_known(cli: Path) -> None:
    games = json.loads(run(["games", "--json"]).output)["games"]
    assert games == [{"game": "skirmish", "title": "Skirmish", "sides": ["red", "blue", "green"], "scenarios": ["crossroads"]}]
    assert run(["games"]).output == "skirmish: Skirmish; sides red, blue, green; scenarios crossroads\n"
    fails(cli, 2, ["rules", "proud-monster"], "unknown game 'proud-monster'", "Known games: skirmish.")
    fails(cli, 2, ["new", "training", *SIDE_ARGS, "--key", "red.key", "-o", "g"], "no game has a scenario 'training'")
    rows = json.loads(run(["rules", "skirmish", "--json"]).output)["rules"]
    assert [r["rule"] for r in rows][:3] == ["1.1", "1.2", "1.3"] and all(r["status"] == "implemented" for r in rows)
    assert "SK-010" in next(r for r in rows if r["rule"] == "6.2")["cases"]
    assert "ok           scenario crossroads: 15 units, 3 game turns" in run(["module", "check", "skirmish"]).output


def test_new_takes_a_key_for_each_of_the_three_sides(cli: Path) -> None:
    fails(cli, 2, ["new", "crossroads", "--side", "red=red.pub", "--side", "blue=blue.pub", "--key", "red.key", "-o", "g"],
          "skirmish needs --side for each of: red, blue, green")
    fails(cli, 2, ["new", "crossroads", *SIDE_ARGS, "--side", "yellow=red.pub", "--key", "red.key", "-o", "g"],
          "skirmish needs --side for each of: red, blue, green")
    fails(cli, 2, ["new", "crossroads", "--side", "red=red.pub", "--side", "blue=red.pub", "--side", "green=green.pub",
                   "--key", "red.key", "-o", "g"], "two parties of the game have the same public key")
    r = run(["new", "crossroads", *SIDE_ARGS, "--key", "green.key", "-o", "g"])
    assert "awaiting joins from blue, green, red" in r.output
    st = load_state(cli / "g" / "0000.state.toml").data
    assert st["pbem"]["game"].startswith("sk-") and st["pbem"]["module"] == "skirmish" and st["pbem"]["creator"] == "green"
    assert sorted(st["parties"]) == ["blue", "green", "red"]
    assert st["awaits"] == {"kind": "join", "step": "join", "from": ["blue", "green", "red"], "adjudicator": "green"}
    fails(cli, 2, ["new", "crossroads", *SIDE_ARGS, "--key", "red.key", "-o", "g2", "--option", "turns=0"],
          "the number of game turns is a whole number from 1 to 99")
    run(["new", "crossroads", *SIDE_ARGS, "--key", "red.key", "-o", "g3", "--option", "turns=5"])
    assert load_state(cli / "g3" / "0000.state.toml").data["options"] == {"turns": 5}


def test_a_player_turn_and_a_reply_by_command(cli: Path) -> None:
    game = joined(cli)
    s = json.loads(run(["status", "game/0001.state.toml", "--json"]).output)
    assert s["module"] == "skirmish" and s["awaits"] == {"kind": "orders", "step": "T1/red", "from": ["red"], "adjudicator": "blue"}
    assert s["summary"] == {"vp": {"red": 3, "blue": 3, "green": 2}}
    out = run(["status", "game/0001.state.toml"]).output
    assert "game turn 1, red movement; VP red 3, blue 3, green 2" in out and "adjudicated by blue" in out
    # red's orders: template, check, sign; adjudicated by blue (not green, not red)
    orders_from_template("game/0001-red.orders.toml", "red", RED_T1)
    template = (game / "0001-red.orders.toml").read_text(encoding="utf-8")
    assert 'step = "T1/red"' in template and "# R4 cavalry in mill: allowance 3, strength 1" in template
    assert "legal for step T1/red (not sealed yet" in run(["check", "game/0001.state.toml", "game/0001-red.orders.toml"]).output
    assert "sealed game/0001-red.orders.toml" in run(["sign", "game/0001-red.orders.toml", "--key", "red.key"]).output
    fails(cli, 2, ["adjudicate", "game/0001.state.toml", "game/0001-red.orders.toml", "--key", "green.key"],
          "This step is adjudicated by 'blue'")
    r = run(["adjudicate", "game/0001.state.toml", "game/0001-red.orders.toml", "--key", "blue.key"])
    assert "game/0002.state.toml, game/0002.report.md, game/0002.turn.svg" in r.output
    assert "awaits reply for T1/red/reply-1 from green" in r.output
    st = load_state(game / "0002.state.toml").data
    assert [d["label"] for d in st["transition"]["dice"]] == ["4.4|T1/red|attack 1|west-fields|combat"]
    assert sorted(st["transition"]["reveals"]) == ["blue", "red"], "the sender's and the adjudicator's secrets"
    q = st["pending"]["question"]
    assert q["side"] == "green" and q["units"] == ["G1", "G3", "G4"] and q["loss"] in (1, 2)
    out = run(["status", "game/0002.state.toml"]).output
    assert f"decision needed from green: {q['text']} (6.2)" in out and "adjudicated by red" in out
    # green's reply during red's turn: its template proposes the weakest units; adjudicated by red
    run(["template", "game/0002.state.toml", "--side", "green", "-o", "game/0002-green.reply.toml"])
    reply = (game / "0002-green.reply.toml").read_text(encoding="utf-8")
    assert 'kind = "reply"' in reply and 'step = "T1/red/reply-1"' in reply and "[reply]" in reply
    assert tomllib.loads(reply)["reply"]["losses"] == ["G4", "G1"][:q["loss"]]
    run(["check", "game/0002.state.toml", "game/0002-green.reply.toml"])
    run(["sign", "game/0002-green.reply.toml", "--key", "green.key"])
    fails(cli, 2, ["adjudicate", "game/0002.state.toml", "game/0002-green.reply.toml", "--key", "blue.key"],
          "This step is adjudicated by 'red'")
    assert "awaits orders for T1/blue from blue" in run(["adjudicate", "game/0002.state.toml", "game/0002-green.reply.toml",
                                                         "--key", "red.key"]).output
    report = (game / "0003.report.md").read_text(encoding="utf-8")
    assert "- Green's reply: " in report and "(6.2)" in report and "by its reply (4.6)" in report
    assert "adjudicated by green" in run(["status", "game/0003.state.toml"]).output
    # the whole history, and the dice of the attack
    out = run(["verify", "game"]).output
    assert "ok: 4 states, 3 transitions replayed, 3 reports and " in out
    assert "trusted from game/0000.state.toml (the game's start, re-derived from scenario" in out
    a = json.loads(run(["audit", "game/0002.state.toml", "--json"]).output)
    assert [c["party"] for c in a["commitments"]] == ["blue", "red"]
    assert [(d["label"], d["derived"]) for d in a["dice"]] == [("4.4|T1/red|attack 1|west-fields|combat", st["transition"]["dice"][0]["face"])]
    text = run(["audit", "game/0002.state.toml"]).output
    assert "4.4|T1/red|attack 1|west-fields|combat: HMAC-SHA-256(seed, label)" in text and text.rstrip().endswith("ok")
    assert "no dice were rolled in this transition" in run(["audit", "game/0003.state.toml"]).output


def test_show_and_template_for_each_side(cli: Path) -> None:
    joined(cli)
    text = run(["show", "game/0001.state.toml"]).output
    assert "west-fields  clear              control green  G1 (infantry), G3 (infantry), G4 (cavalry)" in text
    assert text.rstrip().endswith("VP: red 3, blue 3, green 2")
    assert "(as blue sees it)" in run(["show", "game/0001.state.toml", "--side", "blue"]).output
    fails(cli, 2, ["show", "game/0001.state.toml", "--side", "yellow"], "'yellow' is not a side of this game")
    run(["show", "game/0001.state.toml", "--svg", "pos.svg"])
    svg = (cli / "pos.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and 'class="units green" data-place="west-fields"' in svg
    fails(cli, 2, ["template", "game/0001.state.toml", "--side", "blue"], "the game does not await anything from 'blue'")


def test_check_names_every_problem_with_its_rule(cli: Path) -> None:
    joined(cli)
    orders_from_template("game/0001-red.orders.toml", "red",
                         '\n[[move]]\nunit = "R5"\npath = ["west-fields"]\n\n[[attack]]\ntarget = "crossroads"\nunits = ["R4"]\n')
    r = fails(cli, 1, ["check", "game/0001.state.toml", "game/0001-red.orders.toml"], "2 problems")
    assert "move[0].path[0]: west-fields holds green's units [3.3]" in r.output
    assert "attack[0].target: crossroads holds no other side's units after movement [4.1]" in r.output
    out = json.loads(run(["check", "game/0001.state.toml", "game/0001-red.orders.toml", "--json"], 1).stdout)
    assert [(p["where"], p["rule"]) for p in out["problems"]] == [("move[0].path[0]", "3.3"), ("attack[0].target", "4.1")]
    fails(cli, 1, ["sign", "game/0001-red.orders.toml", "--key", "red.key"], "not signed: 2 problems")


def test_a_reply_from_the_wrong_side_or_naming_other_units_is_refused(cli: Path) -> None:
    joined(cli)
    orders_from_template("game/0001-red.orders.toml", "red", RED_T1)
    run(["sign", "game/0001-red.orders.toml", "--key", "red.key"])
    run(["adjudicate", "game/0001.state.toml", "game/0001-red.orders.toml", "--key", "blue.key"])
    st = load_state(cli / "game" / "0002.state.toml")
    Path("game/0002-green.reply.toml").write_text(
        "\n".join(["[pbem]", "format = 2", 'kind = "reply"', f'game = "{st.data["pbem"]["game"]}"', 'module = "skirmish"',
                   'side = "green"', f'answers = "{st.digest}"', 'step = "T1/red/reply-1"', "dice_index = 1", ""])
        + '\n[reply]\nlosses = ["R1", "R1", "G1", "G3"]\n', encoding="utf-8")
    r = fails(cli, 1, ["check", "game/0002.state.toml", "game/0002-green.reply.toml"], "[6.2]")
    assert "reply.losses[0]: R1 is not one of the units offered (G1, G3, G4) [6.2]" in r.output
    assert "reply.losses: 4 unit(s) named; the question asks for" in r.output
    Path("game/0002-blue.reply.toml").write_text(
        (cli / "game" / "0002-green.reply.toml").read_text(encoding="utf-8").replace('side = "green"', 'side = "blue"'), encoding="utf-8")
    fails(cli, 1, ["check", "game/0002.state.toml", "game/0002-blue.reply.toml"],
          "'blue' is not awaited; the step awaits green [2.1]")
    assert reply_body(st.data).startswith("\n[reply]\nlosses = [")
