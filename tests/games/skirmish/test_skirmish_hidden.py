"""Skirmish with the option hidden (docs/skirmish.md, 7.x), three sides and no referee, through the
core's hidden values (docs/protocol.md, "Hidden values without a referee"): the units' types and
the reserves committed hidden, moves claimed, an attack that waits for its openings, the last
step; a side that cheats is caught (exit 3) by the adjudicator's pbem or by `pbem verify`. Proud
Monster is out of the registry, in this process and in every `pbem` it would spawn."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.errors import IllegalOrdersError, TamperError, UsageError
from pbem.exchange.canonical import seal
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, read_toml, write_new
from pbem.exchange.game import load_doc, load_state, sign_orders, template_text
from pbem.exchange.hidden import is_sealed_entry
from pbem.games.skirmish import autoplay
from pbem.games.skirmish.data import TYPES
from pbem.games.skirmish.module import Skirmish
from tests.clihelpers import fails, run
from tests.exchange.neutral.conftest import (
    SkGame,
    body_text,
    key_files,
    only_skirmish,
    reply_body,
    start_game,
)

TYPE_NAMES = tuple(TYPES)
RED_TYPES = {"R1": "infantry", "R2": "infantry", "R3": "infantry", "R4": "cavalry", "R5": "artillery"}
BLUE_TYPES = {"B1": "infantry", "B2": "infantry", "B3": "cavalry", "B4": "infantry", "B5": "artillery"}
GREEN_TYPES = {"G1": "artillery", "G2": "infantry", "G3": "infantry", "G4": "cavalry", "G5": "infantry"}

# Red's first player turn on the exchange scenario (tests/exchange/neutral/data): R4 moves while its
# type is hidden (a claim, 7.3); red attacks west-fields, which waits for the types of the four
# attackers, the three defenders and green's reserve to be opened (7.4).
RED_T1 = """
[[move]]
unit = "R4"
path = ["north-pass"]

[[attack]]
target = "west-fields"
units = ["R1", "R2", "R3", "R5"]
advance = ["R1", "R2"]
"""


@pytest.fixture(autouse=True)
def proud_monster_unregistered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from only_skirmish(monkeypatch)


def hidden(values: dict[str, Any]) -> str:
    """A [hidden] table of a draft: the values in the clear (`pbem sign` seals them)."""
    return "\n" + dumps({"hidden": values})


def setup(folder: Path, green: dict[str, Any] | None = None, green_reserve: dict[str, int] | None = None,
          blue_reserve: dict[str, int] | None = None) -> SkGame:
    """A game with the option hidden, joined, and its set-up (7.2) adjudicated by red: state 0002
    awaits red's first orders."""
    g = start_game(folder, options={"hidden": True})
    st = g.state().data
    assert st["awaits"] == {"kind": "orders", "step": "setup", "from": ["blue", "green"], "adjudicator": "red"}
    assert Skirmish().status_line(st) == "the set-up (7.2); VP red 3, blue 3, green 2"
    files = [g.write(hidden({**BLUE_TYPES, "reserve.0": blue_reserve if blue_reserve is not None else {"ford": 2}}), side="blue"),
             g.write(hidden({**(green or GREEN_TYPES), "reserve.0": green_reserve if green_reserve is not None else {"west-fields": 2}}),
                     side="green")]
    g.adjudicate(*files)
    return g


def orders(g: SkGame, body: str = "", types: dict[str, str] | None = None, reserve: dict[str, int] | None = None) -> str:
    """An order file's body with the reserve of the game turn (7.6) and, for red's first, its types (7.2)."""
    turn = int(g.state().data["clock"]["turn"])
    return body + hidden({**(types or {}), f"reserve.{turn}": reserve or {}})


def reveal(g: SkGame) -> Path:
    """The last step (7.8): a reveal file from each side it awaits, adjudicated."""
    st = g.state()
    files = []
    for side in st.data["awaits"]["from"]:
        p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.reveal.toml"
        write_new(p, body_text(st.data, side, "\n"))
        p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
        files.append(p)
    return g.adjudicate(*files)


def play_out(g: SkGame, moves: dict[str, str] | None = None) -> None:
    """Every step to the end: each side's orders (``moves``: the body of a step's orders, by step),
    the replies (openings, 7.4; losses, 6.2), the last step."""
    while (aw := g.state().data["awaits"])["kind"] != "none":
        st = g.state().data
        if aw["kind"] == "reveal":
            reveal(g)
        elif aw["kind"] == "reply":
            g.play("\n" if st["pending"]["question"]["kind"] == "open" else reply_body(st))
        else:
            g.play(orders(g, (moves or {}).get(aw["step"], "")))


def honest(folder: Path) -> SkGame:
    g = setup(folder)
    g.play(orders(g, RED_T1, RED_TYPES, {"orchard": 1, "north-pass": 1}))
    return g


def strings(data: Any, skip: tuple[str, ...] = ()) -> Iterator[str]:
    """Every key and string of a document, less the tables named ``skip`` (at any depth)."""
    if isinstance(data, dict):
        for k, v in data.items():
            if k in skip:
                continue
            yield k
            yield from strings(v, skip)
    elif isinstance(data, list):
        for v in data:
            yield from strings(v, skip)
    elif isinstance(data, str):
        yield data


def test_an_honest_three_sided_game_with_hidden_types_and_reserves_verifies(tmp_path: Path) -> None:
    g = honest(tmp_path / "game")
    st = g.state().data
    assert st["awaits"] == {"kind": "reply", "step": "T1/red/reply-1", "from": ["green"], "adjudicator": "red",
                            "open": {"green": ["G1", "G3", "G4", "reserve.0"], "red": ["R1", "R2", "R3", "R5"]}}
    assert st["pending"]["question"]["kind"] == "open" and "combat" not in st["pending"]
    assert not st["transition"]["dice"], "no die before the types are open"
    assert [c["cost"] for c in st["hidden"]["red"]["R4"]["versions"][0]["claims"]] == [1]
    assert st["hidden"]["red"]["reserve.1"]["versions"][0]["claims"] == [{"areas": ["north-pass", "orchard", "west-woods"], "at": 3}]
    assert st["hidden"]["green"]["reserve.0"]["versions"][0]["claims"] == [
        {"areas": ["east-fields", "greenhold", "west-fields"], "at": 2}]
    assert "# Attack 1 on west-fields (7.4): open G1, G3, G4, reserve.0" in template_text(st, "green")
    g.play("\n")  # green's reply: `pbem sign` adds the openings; red opens its own in the state it seals
    st = g.state().data
    reply = load_doc(g.folder / "0003-green.reply.toml", "orders").data
    assert {k: [o["value"] for o in v] for k, v in reply["open"].items()} == {
        "G1": ["artillery"], "G3": ["infantry"], "G4": ["cavalry"], "reserve.0": [{"west-fields": 2}]}
    assert {k: [o["value"] for o in v] for k, v in st["transition"]["openings"]["red"].items()} == {
        "R1": ["infantry"], "R2": ["infantry"], "R3": ["infantry"], "R5": ["artillery"]}
    assert st["opened"]["green"]["G1"] == {"values": ["artillery"], "at": 4}
    report = (g.folder / "0004.report.md").read_text(encoding="utf-8")
    assert "- red opens its hidden item `R5`: \"artillery\"" in report
    assert "  - Attack 9: R1, R2, R3, R5 (4.3)." in report and "  - Defence 8: G1, G3, G4, +2 reserve (reserve.0) (7.7) (4.3)." in report
    play_out(g, {"T1/green": '\n[[move]]\nunit = "G5"\npath = ["east-fields"]\n'})
    st = g.state().data
    assert st["awaits"]["kind"] == "none" and "hidden" not in st and st["result"]["rule"] == "5.3"
    assert {s: sorted(st["opened"][s]) for s in ("red", "blue")} == {
        "red": ["R1", "R2", "R3", "R4", "R5", "reserve.1", "reserve.2"],
        "blue": ["B1", "B2", "B3", "B4", "B5", "reserve.0", "reserve.1", "reserve.2"]}
    assert st["opened"]["green"]["G5"]["values"] == ["infantry"]
    last = load_state(sorted(g.folder.glob("*.state.toml"))[-2]).data
    assert last["awaits"]["kind"] == "reveal" and last["clock"]["side"] == "green"
    assert last["awaits"]["adjudicator"] == "green" and last["awaits"]["from"] == ["blue", "red"], "7.8"
    assert "opened in a last step (`reveal`) before the result stands (7.8)" in \
        (g.folder / f"{int(last['pbem']['sequence']):04d}.report.md").read_text(encoding="utf-8")
    res = verify([g.folder])
    assert res.states == int(st["pbem"]["sequence"]) + 1 and res.anchor == str(g.folder / "0000.state.toml")
    assert "ok" in run(["verify", g.folder]).output


def test_no_file_shows_a_value_before_it_is_opened(tmp_path: Path) -> None:
    """Until a type or reserve is opened (7.4) no state, signed file, report or picture holds it:
    the signed files and states hold commitments and boxes; the claims say only costs and areas."""
    g = honest(tmp_path / "game")
    play_out(g, {"T1/green": '\n[[move]]\nunit = "G5"\npath = ["east-fields"]\n'})
    checked = 0
    for p in sorted(g.folder.glob("*.toml")):
        data = read_toml(p)
        shown = [s for s in strings(data, skip=("opened", "open", "openings")) if s in TYPE_NAMES]
        assert not shown, f"{p.name} shows {shown}"
        if data["pbem"]["kind"] == "state":
            for items in data.get("hidden", {}).values():
                for rec in items.values():
                    for v in rec["versions"]:
                        assert set(v) == {"commit", "box", "since", "claims"}
                        assert all(set(c) in ({"cost", "at"}, {"areas", "at"}) for c in v["claims"])
        else:
            assert all(is_sealed_entry(e) for e in data.get("hidden", {}).values()), p.name
            asked = load_state(g.folder / f"{p.name[:4]}.state.toml").data["awaits"].get("open", {}).get(data["pbem"]["side"], [])
            assert sorted(data.get("open", {})) == sorted(asked), f"{p.name} opens exactly what its step asks"
        checked += 1
    # the reports and pictures name a type only where the core opens it, in the state that opens it
    for p in sorted([*g.folder.glob("*.report.md"), *g.folder.glob("*.svg")]):
        opened = load_state(g.folder / f"{p.name[:4]}.state.toml").data.get("opened", {})
        for line in p.read_text(encoding="utf-8").splitlines():
            if any(t in line for t in TYPE_NAMES):
                m = re.fullmatch(r"- (\w+) opens its hidden item `([\w.-]+)`: .*", line)
                assert m and opened[m.group(1)][m.group(2)]["at"] == int(p.name[:4]), f"{p.name}: {line}"
    assert checked > 20
    st = load_state(g.folder / "0003.state.toml").data
    assert "type hidden" in Skirmish().render_position(st, None) and "R1 (type hidden)" in Skirmish().render_position(st, None)


def cheat_sign(g: SkGame, body: str, side: str | None = None) -> Path:
    """A file signed by a pbem that skips the sender's own check (`pbem sign` runs it: exit 1)."""
    return g.write(body, side=side)


def test_a_unit_moved_farther_than_its_opened_type_allows_is_caught_at_adjudication(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Green's G1 is an artillery (allowance 1) and crosses the river to greenhold (cost 2): while
    its type is hidden the move is legal (7.3) and claimed; when red attacks greenhold, green's
    reply opens G1 and red's pbem refuses it as tampering (exit 3, 7.5), naming the files."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = setup(tmp_path / "game")
    g.play(orders(g, "", RED_TYPES))
    g.play(orders(g))
    g.play(orders(g, '\n[[move]]\nunit = "G1"\npath = ["greenhold"]\n'))  # T1/green: a move no artillery makes
    claims = g.state().data["hidden"]["green"]["G1"]["versions"][0]["claims"]
    assert claims == [{"cost": 2, "at": 5}]
    g.play(orders(g, '\n[[attack]]\ntarget = "greenhold"\nunits = ["R5"]\n'))
    st = g.state()
    assert st.data["awaits"]["open"] == {"green": ["G1", "G5", "reserve.1"], "red": ["R5"]}
    reply = g.write("\n")
    with pytest.raises(TamperError) as e:
        g.adjudicate(reply)
    msg = e.value.message
    assert str(reply) in msg and "green's hidden item 'G1'" in msg and "contradicts" in msg
    assert "0002.state.toml" in msg and "0005.state.toml" in msg, "the state that holds the commitment, the one with the claim"
    assert [(p.rule, p.message) for p in e.value.problems] == [
        ("3.2", "G1 moved at a cost of 2 in state 0005; the allowance of artillery is 1")]
    keys = key_files(g, tmp_path / "keys")
    r = fails(g.folder, 3, ["adjudicate", st.path, reply, "--key", keys["red"]], "contradicts", "0006-green.reply.toml")
    assert "[3.2]" in r.output
    assert not (g.folder / "0007.state.toml").exists()


def test_verify_catches_a_side_that_opened_its_own_illegal_move_as_adjudicator(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red's R4 is an artillery: in T2/red it crosses the river to the crossroads (cost 2) and
    attacks ford; red adjudicates blue's reply and opens R4 in its own state with a pbem that does
    not check the claims. Blue's and green's `pbem verify` replay the step: exit 3, naming it."""
    g = setup(tmp_path / "game")
    red = {**RED_TYPES, "R4": "artillery", "R5": "cavalry"}
    g.play(orders(g, "", red))
    g.play(orders(g))
    g.play(orders(g))
    g.play(orders(g, '\n[[move]]\nunit = "R4"\npath = ["crossroads"]\n\n[[attack]]\ntarget = "ford"\nunits = ["R4"]\n'))
    st = g.state().data
    assert st["awaits"]["adjudicator"] == "red" and st["awaits"]["open"] == {"blue": ["B1", "B2", "reserve.1"], "red": ["R4"]}
    with monkeypatch.context() as m:
        m.setattr(Skirmish, "check_opening", lambda *a: [])
        g.adjudicate(g.write("\n"))
    assert g.state().data["opened"]["red"]["R4"]["values"] == ["artillery"]
    with pytest.raises(TamperError) as e:
        verify([g.folder])
    msg = e.value.message
    assert "red's hidden item 'R4'" in msg and "contradicts" in msg and "0003.state.toml" in msg and "0006.state.toml" in msg
    assert [p.rule for p in e.value.problems] == ["3.2"]
    r = CliRunner().invoke(cli, ["verify", str(g.folder)])
    assert r.exit_code == 3 and "R4 moved at a cost of 2 in state 0006; the allowance of artillery is 1" in r.output, r.output


def test_an_opening_that_does_not_match_its_commitment_is_tampering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = honest(tmp_path / "game")
    st = g.state()
    reply = g.write("\n")
    data = {k: v for k, v in load_doc(reply, "orders").data.items() if k != "seal"}
    data["open"]["G1"][0]["value"] = "infantry"  # green committed an artillery
    reply.unlink()
    write_new(reply, dumps(seal(data, "green", g.keys["green"])))
    with pytest.raises(TamperError, match="green's hidden item 'G1' \\(version 0\\) does not match its commitment in 0002.state.toml"):
        g.adjudicate(reply)
    keys = key_files(g, tmp_path / "keys")
    fails(g.folder, 3, ["adjudicate", st.path, reply, "--key", keys["red"]], "does not match its commitment")


def test_a_reserve_of_more_points_than_allowed_is_refused_by_check_and_caught_when_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """7.6: `pbem check` (and `pbem sign`) refuse a set-up whose reserve has 3 points (exit 1); a
    green that signs it anyway passes the set-up (red cannot see it) and is caught when red's
    attack opens it (exit 3)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = start_game(tmp_path / "game", options={"hidden": True})
    keys = key_files(g, tmp_path / "keys")
    draft = g.write(hidden({**GREEN_TYPES, "reserve.0": {"west-fields": 2, "greenhold": 1}}), side="green", sign=False)
    r = fails(g.folder, 1, ["check", g.state_path, draft], "3 points allocated; a reserve has 2")
    assert "[7.6]" in r.output
    fails(g.folder, 1, ["sign", draft, "--key", keys["green"]], "3 points allocated")
    draft.unlink()
    blue = g.write(hidden({**BLUE_TYPES, "reserve.0": {}}), side="blue")
    g.adjudicate(blue, cheat_sign(g, hidden({**GREEN_TYPES, "reserve.0": {"west-fields": 2, "greenhold": 1}}), side="green"))
    g.play(orders(g, RED_T1, RED_TYPES))
    reply = g.write("\n")
    with pytest.raises(TamperError) as e:
        g.adjudicate(reply)
    assert "green's hidden item 'reserve.0'" in e.value.message and "0002.state.toml" in e.value.message
    assert [(p.rule, p.message) for p in e.value.problems] == [("7.6", "3 points allocated; a reserve has 2")]


def test_more_units_of_a_type_opened_in_one_file_than_the_side_has_is_tampering(tmp_path: Path) -> None:
    """The core shows check_opening every item opened before it, in the same step too: green's two
    artilleries, opened together in one reply, break 7.1 (exit 3)."""
    g = setup(tmp_path / "game", green={**GREEN_TYPES, "G3": "artillery", "G5": "infantry", "G2": "infantry"})
    g.play(orders(g, RED_T1, RED_TYPES))
    reply = g.write("\n")
    with pytest.raises(TamperError) as e:
        g.adjudicate(reply)
    assert "green's hidden item 'G3'" in e.value.message
    assert [(p.rule, p.message) for p in e.value.problems] == [
        ("7.1", "G3 would be green's unit number 2 of type artillery; the scenario gives green 1")]


def test_the_commands_play_the_set_up_and_an_opening(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """template, check, sign, adjudicate as players meet them: the set-up template commits every
    type and a reserve, its signed file none of them; an opening reply is a template signed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = start_game(tmp_path / "game", options={"hidden": True})
    keys = key_files(g, tmp_path / "keys")
    files = []
    for side in ("blue", "green"):
        p = g.folder / f"0001-{side}.orders.toml"
        run(["template", g.state_path, "--side", side, "-o", p])
        text = p.read_text(encoding="utf-8")
        assert 'step = "setup"' in text and '"reserve.0" = {}' in text and "1 artillery, 1 cavalry, 3 infantry" in text
        assert "legal for step setup" in run(["check", g.state_path, p]).output
        run(["sign", p, "--key", keys[side]])
        assert not any(t in p.read_text(encoding="utf-8") for t in TYPE_NAMES), "sealed: no type in the clear"
        files.append(p)
    out = run(["adjudicate", g.state_path, *files, "--key", keys["red"]]).output
    assert "awaits orders for T1/red from red" in out
    p = g.folder / "0002-red.orders.toml"
    run(["template", g.state_path, "--side", "red", "-o", p])
    text = p.read_text(encoding="utf-8")
    assert "# R4 in mill, type hidden" in text and '"reserve.1" = {}' in text
    p.write_text(text.replace("# [[move]]", RED_T1 + "\n# [[move]]"), encoding="utf-8")
    bad = p.read_text(encoding="utf-8").replace('R1 = "artillery"', 'R1 = "dragoon"')
    q = g.folder / "bad-red.orders.toml"
    q.write_text(bad, encoding="utf-8")
    fails(g.folder, 1, ["check", g.state_path, q], "hidden.R1")
    q.unlink()
    run(["check", g.state_path, p])
    run(["sign", p, "--key", keys["red"]])
    run(["adjudicate", g.state_path, p, "--key", keys["blue"]])
    reply = g.folder / "0003-green.reply.toml"
    out = run(["template", g.state_path, "--side", "green"]).output
    assert "asks you to open your hidden item(s) G1, G3, G4, reserve.0" in out
    run(["template", g.state_path, "--side", "green", "-o", reply])
    run(["sign", reply, "--key", keys["green"]])
    assert tomllib.loads(reply.read_text(encoding="utf-8"))["open"]["reserve.0"][0]["value"] == {}
    run(["adjudicate", g.state_path, reply, "--key", keys["red"]])
    assert "ok" in run(["verify", g.folder]).output


def test_the_option_is_played_without_a_referee_and_not_by_the_built_in_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pbem new` refuses a state no command could read (the game module's check of a state, 7.1); the built-in player cannot know the types."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    for p in ("red", "blue", "green", "ref"):
        run(["keygen", p])
    sides = ["--side", "red=red.pub", "--side", "blue=blue.pub", "--side", "green=green.pub"]
    r = fails(tmp_path, 2, ["new", "crossroads", *sides, "--referee", "ref.pub", "--key", "ref.key", "-o", "g", "--option", "hidden=true"],
              "hidden units and reserves are played without a referee")
    assert "[7.1]" in r.output
    fails(tmp_path, 2, ["new", "crossroads", *sides, "--key", "red.key", "-o", "g", "--option", "hidden=maybe"], "option hidden=maybe")
    run(["new", "crossroads", *sides, "--key", "red.key", "-o", "g", "--option", "hidden=true"])
    st = load_state(tmp_path / "g" / "0000.state.toml").data
    assert st["options"] == {"hidden": True}
    g = setup(tmp_path / "game")
    with pytest.raises(UsageError, match="does not play the option hidden"):
        autoplay.propose(g.state().data, "red")


def test_the_schema_types_the_hidden_values(tmp_path: Path) -> None:
    """schemas/skirmish/hidden.schema.json: a unit's type is one of the types of 1.3, a reserve a table of points."""
    from pbem.exchange.files import load_schema

    schema = load_schema("skirmish/hidden")
    assert next(iter(schema["patternProperties"].values()))["enum"] == list(TYPE_NAMES)
    g = start_game(tmp_path / "game", options={"hidden": True})
    with pytest.raises(IllegalOrdersError, match="nothing was signed"):
        g.write(hidden({**BLUE_TYPES, "reserve.0": {"ford": 3}}), side="blue")
