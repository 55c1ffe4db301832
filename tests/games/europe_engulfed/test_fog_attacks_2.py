"""More attacks on Europe Engulfed's fog of war (docs/europe-engulfed.md, Fog of war), each played
as a cheating side would play it: a hidden block made to act beyond its type or steps where a rule
depends on them, production that costs another sum than declared, a set-up that swaps blocks
between areas, information the opponent should not get, and the bookkeeping of items. A cheat's
own client is played by switching off the sender's check of its draft (the adjudicator never sees
the values): an attack that gets through is a failing test; the limits that remain are marked
xfail with their reason (and said in docs/europe-engulfed.md)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Event
from pbem.errors import TamperError
from pbem.games.europe_engulfed import fog
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.games.europe_engulfed.fog_game import (
    SCENARIO,
    hidden_toml,
    play_out,
    setup_values,
    start,
)

NO_ORDERS = "\n# no orders\n"


def _said(e: TamperError) -> str:
    return " ".join(p.render() for p in e.problems)


def _to_allied_move(g: Any) -> None:
    """The Allies' set-up, the Axis's first orders (its set-up) and empty Axis steps up to the
    Allied movement step of the first game turn."""
    g.play(hidden_toml(setup_values("allies")))
    g.play(hidden_toml(setup_values("axis")))
    while g.state().data["awaits"]["step"] != "1941-may/allies/move":
        g.play(NO_ORDERS)


def hidden_ctx(moves: dict[str, str] | None = None, known: tuple[str, ...] = (), phase: str = "move",
               side: str = "axis", steps: dict[str, int] | None = None) -> tuple[dict[str, Any], Ctx]:
    """A game without a referee at the scenario's start, every block hidden but ``known`` (their
    values public, 6.74), blocks moved by ``moves`` (id -> area), some steps changed."""
    st = EuropeEngulfed().new_game(SCENARIO, {})
    st = {"pbem": {"scenario": SCENARIO, "sequence": 7}, **st}
    st["clock"] = {**st["clock"], "phase": phase, "side": side}
    st["awaits"] = {"kind": "orders", "step": f"1941-may/{side}/{phase}", "from": [side], "adjudicator": "allies"}
    units = st["position"]["units"]
    for u, n in (steps or {}).items():
        units[u]["steps"] = n
    for u, a in (moves or {}).items():
        units[u]["at"] = a
    fog.hide({u: s for u, s in units.items() if u not in known})
    return st, context(st)


def claims_of(ctx: Ctx, u: str) -> list[dict[str, Any]]:
    return [c for _, item, c in ctx.claims if item == u]


def opening(claims: list[dict[str, Any]], value: dict[str, Any], item: str = "de.07") -> str:
    state = {"pbem": {"scenario": SCENARIO}}
    return " ".join(p.render() for p in fog.check_opening(state, "axis", item, [value], [{"claims": claims}]))


# --- a hidden block acting beyond its type or steps ------------------------------------------------

def test_armor_entering_a_fortress_is_caught_when_the_fortress_is_contested(tmp_path: Path) -> None:
    """6.85 (A-27): armor never enters a fortress. de.04, the one German block in Cyrenaica, is
    armor by the scenario's set-up; moved into Tobruk it records the claim, and the combat file
    that opens it (6.24) is caught at once."""
    g = start(tmp_path / "game", options={"turns": 1})
    g.play(hidden_toml(setup_values("allies")))
    g.play(hidden_toml(setup_values("axis")) + '\n[[move]]\nunits = ["de.04"]\npath = ["tobruk"]\n')
    st = g.state().data
    claim = st["hidden"]["axis"]["de.04"]["versions"][0]["claims"][0]
    assert claim["rule"] == "6.85" and claim["types"] == ["airborne", "cavalry", "infantry", "militia"]
    assert st["awaits"]["open"]["axis"] == ["de.04"]
    with pytest.raises(TamperError) as e:
        g.play('\n[[battle]]\narea = "tobruk"\ntype = "normal"\n')
    said = _said(e.value)
    assert "de.04 entered the fortress tobruk" in said and "it opens as de-arm (armor)" in said and "[6.85]" in said
    assert "0003.state.toml" in e.value.message


def test_armor_entering_a_swamp_is_caught_at_the_last_step(tmp_path: Path) -> None:
    """5.15: armor never enters a swamp. The Soviet armor su.05 moves into the Pripet Marshes (no
    enemy there: it stays hidden to the end); the last step's reveal catches it."""
    g = start(tmp_path / "game", options={"turns": 1})
    _to_allied_move(g)
    assert setup_values("allies")["su.05"]["block"] == "su-arm"
    g.play('\n[[move]]\nunits = ["su.05"]\npath = ["pripet-marshes"]\n')
    claims = g.state().data["hidden"]["allies"]["su.05"]["versions"][0]["claims"]
    assert [c["rule"] for c in claims] == ["5.15"]
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = _said(e.value)
    assert "su.05 entered the swamp pripet-marshes" in said and "it opens as su-arm (armor)" in said


def test_set_up_values_swapped_between_two_areas_are_caught_when_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """D-6: the armor of Brest-Litovsk and an infantry of Kiev swap their values: the side's
    set-up as a whole is the scenario's, each area's is not; caught per area once its blocks are
    all opened (at the latest at the last step)."""
    g = start(tmp_path / "game", options={"turns": 1})
    values = setup_values("allies")
    assert values["su.05"]["block"] == "su-arm" and values["su.10"] == {"block": "su-inf", "steps": 3}
    values["su.05"], values["su.10"] = values["su.10"], values["su.05"]
    monkeypatch.setattr(fog, "_setup_draft_problems", lambda *a: [])  # the cheat's own client
    g.play(hidden_toml(values))
    monkeypatch.undo()
    g.play(hidden_toml(setup_values("axis")))
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = _said(e.value)
    assert "the scenario sets up" in said and "[D-6]" in said


def test_a_hidden_replacement_that_costs_more_than_declared_is_caught_when_opened(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """4.43, 4.5: su.29 (Murmansk, an infantry at 2 steps, at home: 4.32 allows full strength)
    replaced to 4 steps, 2 WERPs, declared as 1 WERP."""
    g = start(tmp_path / "game", options={"turns": 1})
    _to_allied_move(g)
    assert setup_values("allies")["su.29"] == {"block": "su-inf", "steps": 2}
    body = (hidden_toml({"su.29": {"block": "su-inf", "steps": 4}})
            + '\n[[production.replace]]\nunit = "su.29"\n[production.hidden_werps]\nussr = 1\n')
    g.play(body)  # the draft cannot know su.29's former steps: nothing for a modified client to switch off
    st = g.state().data
    assert len(st["hidden"]["allies"]["su.29"]["versions"]) == 2
    with pytest.raises(TamperError) as e:
        play_out(g)
    assert "cost 2 WERPs (4.43); 1 were declared and paid" in _said(e.value)


def test_a_hidden_replacement_to_full_strength_outside_the_areas_of_4_32_is_caught(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """4.32 (A-71): outside its home areas and the areas listed, a block is replaced up to its
    full strength less one. de.26 (Serbia, an infantry at 2 of 4 steps) replaced to 4, the cost
    declared right (2 WERPs): only 3 steps were allowed there."""
    g = start(tmp_path / "game", options={"turns": 2})
    g.play(hidden_toml(setup_values("allies")))
    assert setup_values("axis")["de.26"] == {"block": "de-inf", "steps": 2}
    values = {**setup_values("axis")}
    g.play(hidden_toml(values))  # the first orders commit the set-up; the replacement comes next turn
    while g.state().data["awaits"]["step"] != "1941-jul/axis/move":
        g.play(NO_ORDERS)
    g.play(hidden_toml({"de.26": {"block": "de-inf", "steps": 4}})
           + '\n[[production.replace]]\nunit = "de.26"\n[production.hidden_werps]\ngermany = 2\n')
    claims = g.state().data["hidden"]["axis"]["de.26"]["versions"][1]["claims"]
    assert any(c["rule"].startswith("4.32") for c in claims)
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = _said(e.value)
    assert "de.26" in said and "[4.32" in said


def test_a_hidden_block_under_limited_supply_loses_its_step_for_good() -> None:
    """7.9: a hidden block not named a cadre loses a step, counted in the public ``lost`` and
    taken off when it is opened. (The hole: supply.final recorded the claim but not the count, so
    the block came back at its committed strength when opened.)"""
    from pbem.games.europe_engulfed import supply
    from pbem.mechanics.dice import SeededDice

    st, ctx = hidden_ctx(moves={"de.26": "vologda", "de.27": "vologda"}, phase="combat")
    ctx.dice = SeededDice(seed=b"ee fog 7.9")
    ctx.control["vologda"] = "axis"
    final = {"limited_supply": ["vologda"], "cadres": ["de.27"]}
    problems: list[Any] = []
    supply.check_final(ctx, final, problems)
    assert problems == []
    supply.final(ctx, final)
    assert "de.27" not in ctx.units and ctx.units["de.26"]["lost"] == 1
    assert [c["steps"] for c in claims_of(ctx, "de.26")] == [">="] and claims_of(ctx, "de.26")[0]["lost"] == 1
    assert claims_of(ctx, "de.27")[0]["steps"] == "==" and claims_of(ctx, "de.27")[0]["n"] == 1
    assert any(e.kind == "hidden-step-lost" and e.data["unit"] == "de.26" for e in ctx.events)
    # opened in a later step: its committed 2 steps less the 1 lost while hidden
    later = copy.deepcopy(st)
    later["position"]["units"] = ctx.units
    later["awaits"] = {**later["awaits"], "open": {"axis": ["de.26"]}}
    later["opened"] = {"axis": {"de.26": {"values": [{"block": "de-inf", "steps": 2}], "at": 9}}}
    ctx2 = context(later)
    fog.before_resolve(later, ctx2, _no_file())
    assert ctx2.units["de.26"]["steps"] == 1 and "lost" not in ctx2.units["de.26"]
    # a block that had 1 step and was not named a cadre, or was named one with 2, opens against its claims
    assert "needs >= 2 step(s); it had 1" in opening(claims_of(ctx, "de.26"), {"block": "de-inf", "steps": 1}, "de.26")
    assert "needs == 1 step(s); it had 2" in opening(claims_of(ctx, "de.27"), {"block": "de-inf", "steps": 2}, "de.27")


def _no_file() -> Any:
    from pbem.engine.model import Submission

    return Submission("orders", "axis", {}, "")


def test_a_hidden_infantry_moving_toward_a_breakthrough_is_claimed_when_resolved() -> None:
    """5.42 (A-20): only armor, cavalry and GS within 2 areas of the designated area move toward
    it. The claim was made only by the check (whose working copy is thrown away), never by the
    resolution: a hidden infantry moved with no claim left. Now the resolution asks again who may
    move, and the claim stays on the block's item."""
    from pbem.games.europe_engulfed import breakthrough

    st, ctx = hidden_ctx(moves={"de.11": "lvov"}, phase="breakthrough")
    ctx.step = "1941-may/axis/breakthrough/1"
    body = {"breakthrough": {"kind": "move", "area": "lvov", "moves": [{"units": ["de.13"], "path": ["hungary"]}]}}
    problems: list[Any] = []
    breakthrough.check(ctx, {}, body, problems)
    assert problems == []
    st, ctx = hidden_ctx(moves={"de.11": "lvov"}, phase="breakthrough")
    ctx.step = "1941-may/axis/breakthrough/1"
    assert breakthrough.resolve(ctx, {}, body)
    assert ctx.at("de.13") == "hungary"
    (claim,) = claims_of(ctx, "de.13")
    assert claim["rule"] == "5.42" and claim["types"] == ["armor", "cavalry"]
    assert "which needs a block of type armor or cavalry; it opens as de-inf (infantry)" in opening([claim], {"block": "de-inf", "steps": 4},
                                                                                                     "de.13")


def test_breaking_out_of_an_enemy_occupied_area_with_too_few_steps() -> None:
    """5.43: infantry breaks through out of an area holding enemy units only with 3 steps or more
    (armor, cavalry and airborne at any strength). Checked while the block is still hidden (it is
    opened in that very step, 6.24), the check claims it; resolved, the block is face-up and a
    2-step infantry's move is refused (and said so)."""
    from pbem.games.europe_engulfed import breakthrough

    moves = {"de.26": "lvov"}
    body = {"breakthrough": {"kind": "move", "area": "lvov", "moves": [{"units": ["de.26"], "path": ["hungary"]}]}}
    st, ctx = hidden_ctx(moves=moves, phase="breakthrough")
    ctx.step = "1941-may/axis/breakthrough/1"
    problems: list[Any] = []
    breakthrough.check(ctx, {}, body, problems)
    assert problems == []
    (claim,) = [c for c in claims_of(ctx, "de.26") if c["rule"] == "5.43"]
    assert "which needs a block of type airborne or armor or cavalry or >= 3 step(s); it had de-inf (infantry) at 2" in opening(
        [claim], {"block": "de-inf", "steps": 2}, "de.26")
    assert "5.43" not in opening([claim], {"block": "de-inf", "steps": 3}, "de.26")
    st, ctx = hidden_ctx(moves=moves, phase="breakthrough", known=("de.26",))  # opened in the step: face-up
    ctx.step = "1941-may/axis/breakthrough/1"
    breakthrough.resolve(ctx, {}, body)
    assert ctx.at("de.26") == "lvov"
    (refused,) = [e for e in ctx.events if e.kind == "move-refused"]
    assert refused.rule == "5.43" and "with 2 step(s)" in refused.data["why"]


# --- information leaks --------------------------------------------------------------------------

def _refereed_state() -> dict[str, Any]:
    return {"pbem": {"scenario": SCENARIO}, "clock": {"turn": "1941-may", "side": "axis", "phase": "move"},
            "position": {"units": {}, "control": {}}, "options": {}, "parties": {"referee": {}}}


def test_a_refereed_report_tells_the_other_side_s_production_as_a_total() -> None:
    """4.5: a refereed game's WERPs event of the other side kept its spending lines, which name
    each block built with its type and steps ("de.60: new de-arm of 2 step(s)") and each
    replacement (whose cost per step tells armor from infantry, 4.43). The other side now sees the
    builds and replacements as one total."""
    from pbem.games.europe_engulfed.production import RENDER

    spent = [{"what": "de.60: new de-arm of 2 step(s)", "werps": 6, "rule": "4.4, 4.43"},
             {"what": "de.07: 1 step(s) replaced", "werps": 2, "rule": "4.3, 4.43"},
             {"what": "2 special action(s)", "werps": 10, "rule": "7.11, 4.43"}]
    werps = Event("werps", "4.5", {"nation": "germany", "income": [{"what": "basic", "werps": 30, "rule": "4.1"}],
                                   "produced": 30, "maintenance": 0, "available": 30, "spent": spent, "hidden": 0,
                                   "spending": 18, "left": 12})
    (seen,) = fog.side_events(_refereed_state(), [werps], "allies")
    text = " ".join(RENDER["werps"](seen))
    assert "de-arm" not in text and "de.60" not in text and "de.07" not in text
    assert "hidden builds and replacements 8 (4.5)" in text and "special action" in text and "It spends 18" in text
    assert fog.side_events(_refereed_state(), [werps], "axis") == [werps]


# --- a hidden block brought into a battle -------------------------------------------------------

def test_a_reinforcement_named_in_standing_instructions_fights_face_up(tmp_path: Path) -> None:
    """7.6, 6.24: a block the defender's standing instructions bring into a battle (reinforce,
    counterattack) comes from a non-contested area, hidden. It used to fight with no steps at all
    (combat read its hidden steps as 0: it fired no die and took no hit). Now every block the
    defender's standing instructions name for a contested area is opened with the battle's step
    (by the defender, in the state it seals), and fights at its strength."""
    from tests.games.europe_engulfed.test_fog import front

    g = start(tmp_path / "game", options={"turns": 1})
    u, area = front()
    assert area == "lithuania"
    standing = '\n[standing]\nreinforce = [{ area = "lithuania", from = "latvia", unit = "su.12" }]\n'
    g.play(hidden_toml(setup_values("allies")) + standing)
    g.play(hidden_toml(setup_values("axis")) + f'\n[[declare]]\nnation = "germany"\non = "ussr"\n[[move]]\nunits = ["{u}"]\npath = ["{area}"]\n')
    st = g.state().data
    assert "su.12" in st["awaits"]["open"]["allies"] and st["position"]["units"]["su.12"]["at"] == "latvia"
    g.play(f'\n[[battle]]\narea = "{area}"\ntype = "normal"\n')
    st = g.state().data
    report = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert "su.12 (ussr) reinforces the battle of lithuania" in report
    assert "su.12 (ussr) in latvia is face-up: su-inf, 3 step(s) (6.24)" in report
    assert "Fire (defender) su.12 (ussr infantry, 3 step(s))" in report
    assert st["position"]["units"].get("su.12", {}).get("block", "su-inf") == "su-inf"


# --- production and item bookkeeping --------------------------------------------------------------

def test_a_hidden_build_beyond_the_force_pool_is_caught_when_opened() -> None:
    """4.4: the claim of a nation's hidden production holds the blocks on the map by type (known)
    or hidden; opened, a type built beyond its count is caught."""
    from pbem.games.europe_engulfed.data import load_scenario

    count = load_scenario(SCENARIO).units.blocks["su-arm"].count
    claim = {"werps": 4, "nation": "ussr", "members": {"su.90": {"kind": "build", "version": 0}},
             "costs": {"su-arm": [4, 2], "su-inf": [3, 1]}, "pool": {"known": {"su-arm": count}, "hidden": []},
             "rule": "4.5", "why": "ussr's hidden production", "unit": "su.90", "at": 9}
    state = {"pbem": {"scenario": SCENARIO}}
    said = " ".join(p.render() for p in fog.check_opening(state, "allies", "su.90", [{"block": "su-arm", "steps": 1}],
                                                          [{"claims": [claim]}]))
    assert f"1 su-arm built with {count} on the map; the force pool has {count}" in said and "[4.4]" in said
    ok = fog.check_opening(state, "allies", "su.90", [{"block": "su-inf", "steps": 2}], [{"claims": [{**claim, "werps": 4}]}])
    assert ok == []


def test_a_build_may_not_take_the_id_of_an_eliminated_block() -> None:
    """An eliminated block's item stays in the game (hidden until the last step, or opened): a new
    block taking its id would make the old claims and the new value one item. The build is refused
    by the adjudicator's check (exit 2)."""
    st, ctx = hidden_ctx(side="allies")
    del ctx.units["su.05"]  # eliminated while hidden: its item is still held
    st["hidden"] = {"allies": {"su.05": {"versions": [{"commit": "x", "box": "y", "since": 1, "claims": []}]}}}
    st["opened"] = {"allies": {"su.06": {"values": [{"block": "su-inf", "steps": 4}], "at": 3}}}
    for uid in ("su.05", "su.06"):
        body = {"production": {"build": [{"nation": "ussr", "area": "moscow", "id": uid}], "hidden_werps": {"ussr": 3}}}
        problems = fog._production_problems(st, ctx, "allies", body["production"], {})
        assert any(f"{uid} is already a block or a hidden item of the game" in p.message for p in problems), uid


def test_a_build_s_id_has_one_spelling() -> None:
    """D-5: a block's number has one spelling (two digits at least, no other leading zero): a build
    may not name ``su.060`` beside ``su.60``, nor ``su.00``, nor other digits, as a second id of
    one block number."""
    st, ctx = hidden_ctx(side="allies")
    for uid, ok in (("su.60", True), ("su.123", True), ("su.060", False), ("su.00", False), ("su.6", False), ("su.\uff16\uff10", False)):
        body = {"production": {"build": [{"nation": "ussr", "area": "moscow", "id": uid}], "hidden_werps": {"ussr": 3}}}
        problems = [p for p in fog._production_problems(st, ctx, "allies", body["production"], {}) if p.where.endswith(".id")]
        assert (problems == []) == ok, (uid, problems)
        assert ok or "is not an id of a ussr block (D-5" in problems[0].message


def test_a_replacement_of_a_revealed_block_takes_a_new_item() -> None:
    """4.3: a revealed block replaced gets a new item ID.N, one more than any of its items so far
    (opened or hidden), never an item that exists."""
    st, ctx = hidden_ctx(side="allies", known=("su.05",))
    st["opened"] = {"allies": {"su.05": {"values": [{"block": "su-arm", "steps": 4}], "at": 3},
                               "su.05.2": {"values": [{"block": "su-arm", "steps": 3}], "at": 5}}}
    assert fog.next_item(st, "allies", "su.05") == "su.05.3"
    due = fog.items_due(st, ctx, "allies", {"production": {"replace": [{"unit": "su.05"}]}})
    assert due["su.05.3"]["kind"] == "replace" and due["su.05.3"]["was"] == 4


def test_an_honest_rearguard_is_not_accused() -> None:
    """5.14 (A-60): the blocks staying need as many steps as the enemy has units. Two hidden
    blocks staying against 3 enemy units, opened at 1 and 3 steps: 4 steps, a legal rearguard."""
    from pbem.games.europe_engulfed import movement

    st, ctx = hidden_ctx(side="allies")
    assert movement._rearguard(ctx, ["su.06", "su.07"], 3, "brest-litovsk")
    claim = claims_of(ctx, "su.06")[0]
    assert claim["group_steps"] == {"items": ["su.06", "su.07"], "units": ["su.06", "su.07"], "at_least": 3, "known": 0}
    assert claims_of(ctx, "su.07")[0]["group_steps"] == claim["group_steps"]
    first = _open_rearguard(ctx, "su.06", 1, {})
    assert first == ""  # su.07 is not opened yet: the group is checked when it is
    said = _open_rearguard(ctx, "su.07", 3, {"su.06": 1})
    assert "5.14" not in said and said == ""


def _open_rearguard(ctx: Ctx, item: str, steps: int, before: dict[str, int]) -> str:
    """Opens ``item`` at ``steps`` after the items of ``before`` (opened at their steps)."""
    state = {"pbem": {"scenario": SCENARIO},
             "opened": {"allies": {i: {"values": [{"block": "su-inf", "steps": n}], "at": 8} for i, n in before.items()}}}
    versions = [{"claims": [{**c, "at": 8} for c in claims_of(ctx, item)]}]
    return " ".join(p.render() for p in fog.check_opening(state, "allies", item, [{"block": "su-inf", "steps": steps}], versions))


def test_a_rearguard_too_weak_is_caught_when_its_blocks_are_opened() -> None:
    """5.14 (A-60): two hidden blocks staying against 3 enemy units, opened at 1 and 1 step: 2
    steps, too few; caught when the last of them is opened, whichever it is."""
    from pbem.games.europe_engulfed import movement

    st, ctx = hidden_ctx(side="allies")
    assert movement._rearguard(ctx, ["su.06", "su.07"], 3, "brest-litovsk")
    assert _open_rearguard(ctx, "su.07", 1, {}) == ""
    said = _open_rearguard(ctx, "su.06", 1, {"su.07": 1})
    assert "su.06, su.07 stayed as a rearguard in brest-litovsk in state 0008, which needs at least 3 step(s)" in said
    assert "they had 2 (su.06 1, su.07 1)" in said and "[5.14]" in said


def test_a_rearguard_counts_its_known_blocks_and_the_steps_lost_while_hidden() -> None:
    """5.14 (A-60), 7.9: a known block's steps count in the group's claim; a hidden block's steps
    lost while hidden before the claim are taken off its opened value."""
    from pbem.games.europe_engulfed import movement

    st, ctx = hidden_ctx(side="allies", known=("su.05",), steps={"su.05": 1})
    ctx.units["su.07"]["lost"] = 1
    assert movement._rearguard(ctx, ["su.05", "su.06", "su.07"], 4, "brest-litovsk")
    g = claims_of(ctx, "su.06")[0]["group_steps"]
    assert g == {"items": ["su.06", "su.07"], "units": ["su.06", "su.07"], "at_least": 4, "known": 1, "lost": {"su.07": 1}}
    assert claims_of(ctx, "su.05") == []
    assert _open_rearguard(ctx, "su.06", 1, {"su.07": 3}) == ""  # 1 + 1 + (3 - 1)
    said = _open_rearguard(ctx, "su.06", 1, {"su.07": 2})  # 1 + 1 + (2 - 1)
    assert "they had 3 (su.06 1, su.07 1, and 1 of its known blocks)" in said
