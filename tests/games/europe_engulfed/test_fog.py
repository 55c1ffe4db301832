"""Europe Engulfed's fog of war played with real keys and signed files (docs/europe-engulfed.md,
Fog of war; docs/protocol.md, Hidden values): the set-up commitments (J-0, D-6), the openings of
blocks in contested areas (6.24), the last step's reveal, and a refereed game's views (J-0)."""

from __future__ import annotations

from pathlib import Path

from pbem.engine.model import Event
from pbem.exchange.chain import verify
from pbem.exchange.game import own_hidden
from pbem.games.europe_engulfed import fog
from tests.games.europe_engulfed.fog_game import (
    checked,
    hidden_toml,
    play_out,
    setup_values,
    side_of,
    start,
    start_units,
)


def front(side: str = "allies") -> tuple[str, str]:
    """An Axis infantry block and an adjacent area held by ``side``'s blocks at the start (5.11:
    infantry moves 1 area)."""
    from pbem.games.europe_engulfed.data import load_scenario

    m = load_scenario("1941-barbarossa").map
    units = start_units()
    held = sorted({str(s["at"]) for u, s in units.items() if side_of(u) == side})
    for u, s in sorted(units.items()):
        if side_of(u) == "axis" and s["block"] == "de-inf":
            near = [a for a in held if a in m.places.neighbours(str(s["at"])) and "strait" not in m.features(str(s["at"]), a)]
            if near:
                return u, near[0]
    raise AssertionError("no Axis infantry next to an enemy-held area in the set-up")


def test_the_set_up_hides_every_block_and_each_side_commits_its_own(tmp_path: Path) -> None:
    g = start(tmp_path / "game", options={"turns": 1})
    st = g.state().data
    assert st["awaits"] == {"kind": "orders", "step": "setup", "from": ["allies"], "adjudicator": "axis"}
    assert all("block" not in s and "steps" not in s and s["item"] == u for u, s in st["position"]["units"].items())
    g.play(hidden_toml(setup_values("allies")))
    st = g.state().data
    assert st["awaits"]["step"] == "1941-may/axis/move" and set(st["hidden"]["allies"]) == set(setup_values("allies"))
    assert "axis" not in st.get("hidden", {})
    assert own_hidden(g.state(), g.keys["allies"])["hidden"] == setup_values("allies")
    said = checked(g, "\n# no orders\n")  # 6 Axis blocks missing: the first orders commit them
    assert "de.07 is missing: the file commits the set-up of your block de.07" in said and "[J-0]" in said
    g.play(hidden_toml(setup_values("axis")))
    assert set(g.state().data["hidden"]["axis"]) == set(setup_values("axis"))
    play_out(g)
    last = g.state().data
    assert last["awaits"]["step"] == "reveal" and last["opened"]["axis"]["de.07"]["values"] == [setup_values("axis")["de.07"]]
    assert verify([g.folder]).transitions == len(list(g.folder.glob("*.state.toml"))) - 1


def test_blocks_in_a_contested_area_are_opened_in_the_next_step(tmp_path: Path) -> None:
    """6.24: the attacker opens its block in its combat file, the defender (the adjudicator) in the
    state it seals; their values are then public in the position (6.74: they stay known)."""
    g = start(tmp_path / "game", options={"turns": 1})
    g.play(hidden_toml(setup_values("allies")))
    u, area = front()
    g.play(hidden_toml(setup_values("axis")) + f'\n[[declare]]\nnation = "germany"\non = "ussr"\n[[move]]\nunits = ["{u}"]\npath = ["{area}"]\n')
    st = g.state().data
    theirs = sorted(x for x, s in st["position"]["units"].items() if s["at"] == area and side_of(x) == "allies")
    assert st["awaits"]["open"] == {"allies": theirs, "axis": [u]}
    assert "block" not in st["position"]["units"][u]
    g.play(f'\n# the combat file; pbem sign opens the block\n[[battle]]\narea = "{area}"\ntype = "normal"\n')
    st = g.state().data
    units = st["position"]["units"]
    for x, values in [(u, setup_values("axis")[u]), *((x, setup_values("allies")[x]) for x in theirs)]:
        if x in units:  # revealed (6.24) and public from now on, less the steps the battle took (6.26)
            assert units[x]["block"] == values["block"] and "item" not in units[x] and units[x]["steps"] <= values["steps"]
    assert st["transition"]["openings"]["allies"]  # the defender opened its blocks in the state it sealed
    report = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert f"{u} (germany) in {area} is face-up: de-inf" in report and "(6.24)" in report
    play_out(g)
    assert verify([g.folder]).transitions > 5


def test_a_draft_s_set_up_values_are_checked_against_the_scenario(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    values = setup_values("allies")
    values["su.01"] = {"block": "su-arm", "steps": 4}
    values["gb.01"] = {"block": "de-arm", "steps": 4}
    values["su.02"] = {"block": "su-inf", "steps": 9}
    said = checked(g, hidden_toml(values))
    assert "hidden.gb.01: 'de-arm' is not a block type of gb.01's nation and colour" in said
    assert "hidden.su.02: 9 steps; su-inf has 1 to 4" in said
    assert "the scenario sets up" in said and "[D-6]" in said
    said = checked(g, hidden_toml(setup_values("allies")) + '\n[[move]]\nunits = ["su.01"]\npath = ["minsk"]\n')
    assert "move: the set-up file commits the side's blocks" in said


def test_a_game_with_a_referee_or_without_fog_hides_nothing_in_files(tmp_path: Path) -> None:
    g = start(tmp_path / "open", options={"fog": False})
    st = g.state().data
    assert st["awaits"]["step"] == "1941-may/axis/move" and all("block" in s for s in st["position"]["units"].values())
    said = checked(g, '\n[hidden]\n"de.07" = { block = "de-inf", steps = 4 }\n')
    assert "nothing is hidden in this game" in said


def test_a_refereed_view_shows_the_other_side_s_blocks_by_location_and_colour_only(tmp_path: Path) -> None:
    """J-0 1: each side sees its own blocks in full; the other's outside contested areas without
    type or steps; blocks in contested areas face-up (6.24, 6.74)."""
    g = start(tmp_path / "game", referee=True)
    u, area = front()
    g.play(f'\n[[declare]]\nnation = "germany"\non = "ussr"\n[[move]]\nunits = ["{u}"]\npath = ["{area}"]\n')
    full = g.state().data
    seq = int(full["pbem"]["sequence"])
    axis_view = (g.folder / f"{seq:04d}-axis.view.toml").read_text(encoding="utf-8")
    allies_view = (g.folder / f"{seq:04d}-allies.view.toml").read_text(encoding="utf-8")
    pos = fog.view_position(full, "axis")
    far = next(x for x, s in sorted(full["position"]["units"].items()) if side_of(x) == "allies" and s["at"] != area)
    assert "block" not in pos["units"][far] and pos["units"][far]["at"] == full["position"]["units"][far]["at"]
    near = next(x for x, s in sorted(full["position"]["units"].items()) if side_of(x) == "allies" and s["at"] == area)
    assert pos["units"][near]["block"] == full["position"]["units"][near]["block"]  # contested: face-up
    assert all("block" in s for x, s in pos["units"].items() if side_of(x) == "axis")
    units = full["position"]["units"]
    face_up = {str(s["block"]) for x, s in units.items() if side_of(x) == "allies" and s["at"] == area}
    unseen = {str(s["block"]) for x, s in units.items() if side_of(x) == "allies"} - face_up
    assert unseen and all(f'"{b}"' not in axis_view and f'"{b}"' in allies_view for b in unseen)
    assert '"de-arm"' in axis_view


def test_a_refereed_report_leaves_out_the_other_side_s_build_types() -> None:
    state = {"pbem": {"scenario": "1941-barbarossa"}, "clock": {"turn": "1941-may", "side": "axis", "phase": "move"},
             "position": {"units": {}, "control": {}}, "options": {}, "parties": {"referee": {}}}
    built = Event("build", "4.4", {"unit": "de.60", "nation": "germany", "at": "berlin", "block": "de-arm", "steps": 2, "cost": 6})
    fire = Event("fire", "6.31", {"unit": "de.07", "nation": "germany", "at": "minsk", "block": "de-arm"})
    seen = fog.side_events(state, [built, fire], "allies")
    assert seen[0].kind == "unseen" and "block" not in seen[0].data and "cost" not in seen[0].data
    assert seen[1] == fire and fog.side_events(state, [built], "axis") == [built]
    assert "its type and steps are hidden from you" in fog.RENDER["unseen"](seen[0])[0]


def test_the_set_up_numbering_is_new_game_s() -> None:
    """fog.py recomputes the set-up's ids (it cannot import module.py): the same as new_game."""
    units = start_units()
    for u, s in units.items():
        area, ids, want = fog.setup_group("1941-barbarossa", u)
        assert area == s["at"] and u in ids and want[(s["block"], s["steps"])] >= 1
