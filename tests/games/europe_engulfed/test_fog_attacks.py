"""The fog of war attacked by a side that plays its hidden blocks against the rules (the opponent's
view of docs/europe-engulfed.md, Fog of war): each attack is caught, by the adjudicator's check
(exit 2) or when the blocks are opened (tamper, exit 3, naming the files). A modified client is
played by switching off the sender's own check of its draft (the adjudicator never sees the values)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.errors import IllegalOrdersError, TamperError
from pbem.exchange import game as exchange_game
from pbem.games.europe_engulfed import fog
from tests.games.europe_engulfed.fog_game import (
    hidden_toml,
    play_out,
    setup_values,
    side_of,
    start,
    start_units,
)
from tests.games.europe_engulfed.test_fog import front


def axis_rear() -> tuple[str, list[str]]:
    """An Axis infantry block and a path of two areas from its own through Axis-held areas with no
    enemy (5.12: a move of two areas, which infantry may not make)."""
    from pbem.games.europe_engulfed.data import load_scenario

    sc = load_scenario("1941-barbarossa")
    units = start_units()
    ground = [a for a, ar in sc.map.areas.items() if ar.kind == "land"]
    axis = {a for a in ground if sc.control.get(a) == "axis"}
    enemy = {str(s["at"]) for x, s in units.items() if side_of(x) != "axis"}
    for u, s in sorted(units.items()):
        if side_of(u) != "axis" or s["block"] != "de-inf":
            continue
        start_at = str(s["at"])
        for b in sc.map.places.neighbours(start_at):
            if b in axis and b not in enemy and not sc.map.features(start_at, b) & {"strait", "air-route"}:
                for c in sc.map.places.neighbours(b):
                    if c in axis and c not in enemy and c != start_at and sc.map.areas[c].terrain != "swamp" \
                            and sc.map.areas[b].terrain != "swamp" and not sc.map.features(b, c) & {"strait", "air-route"}:
                        return u, [b, c]
    raise AssertionError("no two-area path for an Axis infantry block")


def test_infantry_that_moved_two_areas_is_caught_when_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "game", options={"turns": 1})
    g.play(hidden_toml(setup_values("allies")))
    u, path = axis_rear()
    g.play(hidden_toml(setup_values("axis")) + f'\n[[move]]\nunits = ["{u}"]\npath = {path!r}\n'.replace("'", '"'))
    claims = g.state().data["hidden"]["axis"][u]["versions"][0]["claims"]
    assert claims[0]["types"] == ["armor", "cavalry"] and claims[0]["rule"] == "5.12"
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = " ".join(p.render() for p in e.value.problems)
    assert f"{u} moved 2 areas" in said and "it opens as de-inf (infantry)" in said and "[5.12]" in said
    assert "0003.state.toml" in e.value.message  # the state that holds the claim


def test_set_up_values_that_are_not_the_scenario_s_are_caught_when_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "game", options={"turns": 1})
    values = setup_values("allies")
    weak = next(u for u, v in sorted(values.items()) if v["block"] == "su-inf")
    values[weak] = {"block": "su-arm", "steps": 4}  # an infantry set up as armor
    monkeypatch.setattr(fog, "_setup_draft_problems", lambda *a: [])  # the cheat's own client
    g.play(hidden_toml(values))  # the Axis adjudicates commitments: it cannot tell
    monkeypatch.undo()
    g.play(hidden_toml(setup_values("axis")))
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = " ".join(p.render() for p in e.value.problems)
    assert "the scenario sets up" in said and "[D-6]" in said


def test_a_hidden_build_that_costs_more_than_declared_is_caught_when_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "game", options={"turns": 1})
    g.play(hidden_toml(setup_values("allies")))
    build = '\n[[production.build]]\nnation = "germany"\narea = "berlin"\nid = "de.90"\n[production.hidden_werps]\ngermany = 2\n'
    values = {**setup_values("axis"), "de.90": {"block": "de-arm", "steps": 4}}  # 4 + 3 x 2 = 10 WERPs
    said = " ".join(p.render() for p in _draft_problems(g, hidden_toml(values) + build))
    assert "the hidden builds and replacements of germany cost 10 WERPs (4.43); 2 declared" in said
    monkeypatch.setattr(fog, "_werps_draft_problems", lambda *a: [])
    g.play(hidden_toml(values) + build)
    monkeypatch.undo()
    st = g.state().data
    assert "block" not in st["position"]["units"]["de.90"] and st["hidden"]["axis"]["de.90"]["versions"][0]["claims"][0]["werps"] == 2
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = " ".join(p.render() for p in e.value.problems)
    assert "cost 10 WERPs (4.43); 2 were declared and paid" in said and "[4.5]" in said


def test_opening_another_value_than_committed_is_caught_by_the_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = start(tmp_path / "game", options={"turns": 1})
    g.play(hidden_toml(setup_values("allies")))
    u, area = front()
    g.play(hidden_toml(setup_values("axis")) + f'\n[[declare]]\nnation = "germany"\non = "ussr"\n[[move]]\nunits = ["{u}"]\npath = ["{area}"]\n')
    real = exchange_game.openings_for

    def forged(*a: Any) -> dict[str, Any]:
        out = real(*a)
        for versions in out.values():
            versions[-1]["value"] = {"block": "de-arm", "steps": 4}  # the infantry claims to be armor
        return out

    monkeypatch.setattr(exchange_game, "openings_for", forged)
    with pytest.raises(TamperError) as e:
        g.play(f'\n# combat\n[[battle]]\narea = "{area}"\ntype = "normal"\n')
    assert "does not match its commitment" in e.value.message


def test_a_file_that_omits_a_commitment_is_refused_by_the_adjudicator(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    values = setup_values("allies")
    values.pop("su.01")
    with pytest.raises(IllegalOrdersError) as e:
        g.play(hidden_toml(values))
    said = " ".join(p.render() for p in e.value.problems)
    assert "su.01 is missing: the file commits the set-up of your block su.01" in said
    (g.folder / "0001-allies.orders.toml").unlink()  # refused: the side sends another
    g.play(hidden_toml(setup_values("allies")))
    with pytest.raises(IllegalOrdersError) as e:  # the Axis's first orders without its blocks
        g.play('\n[hidden]\n"de.07" = { block = "de-inf", steps = 4 }\n"su.01" = { block = "su-inf", steps = 4 }\n')
    said = " ".join(p.render() for p in e.value.problems)
    assert "de.08 is missing" in said and "hidden.su.01: the file does not commit su.01" in said


def test_a_refereed_view_and_report_never_name_a_hidden_enemy_block(tmp_path: Path) -> None:
    g = start(tmp_path / "game", referee=True, options={"turns": 1})
    allied_types = {s["block"] for x, s in start_units().items() if side_of(x) == "allies"}
    axis_types = {s["block"] for x, s in start_units().items() if side_of(x) == "axis"}
    while g.state().data["awaits"]["kind"] == "orders":
        g.play("\n# no orders\n")
        seq = int(g.state().data["pbem"]["sequence"])
        for side, theirs in (("axis", allied_types), ("allies", axis_types)):
            view = (g.folder / f"{seq:04d}-{side}.view.toml").read_text(encoding="utf-8")
            report = (g.folder / f"{seq:04d}-{side}.report.md").read_text(encoding="utf-8")
            assert not any(f'"{b}"' in view or f" {b} " in report for b in theirs), (side, seq)


def test_claims_on_steps_and_losses_while_hidden_are_checked_in_order() -> None:
    """7.9: a block named a cadre must open at 1 step; one not named must have had 2 or more; a
    later need for full strength counts the steps lost since (ctx.need_steps)."""
    state = {"pbem": {"scenario": "1941-barbarossa"}}
    v = [{"block": "de-inf", "steps": 3}]
    claims = [{"steps": ">=", "n": 2, "lost": 1, "rule": "7.9", "why": "limited supply", "unit": "de.07", "at": 5},
              {"steps": "full", "n": 0, "rule": "4.32", "why": "needed full strength", "unit": "de.07", "at": 6}]
    said = " ".join(p.render() for p in fog.check_opening(state, "axis", "de.07", v, [{"claims": claims}]))
    assert "needed full strength in state 0006, which needs full strength; it had 2 (de-inf committed at 3, 1 lost since)" in said
    cadre = [{"steps": "==", "n": 1, "lost": 1, "rule": "7.9", "why": "limited supply: named a cadre, eliminated", "unit": "de.07", "at": 5}]
    said = " ".join(p.render() for p in fog.check_opening(state, "axis", "de.07", v, [{"claims": cadre}]))
    assert "named a cadre" in said and "needs == 1 step(s); it had 3" in said
    assert fog.check_opening(state, "axis", "de.07", [{"block": "de-inf", "steps": 1}], [{"claims": cadre}]) == []
    said = " ".join(p.render() for p in fog.check_opening(state, "axis", "de.07", [{"block": "su-inf", "steps": 1}], [{"claims": []}]))
    assert "'su-inf' is not a block type of de.07's nation and colour" in said


def _draft_problems(g: Any, body: str) -> list[Any]:
    from pbem.exchange.game import check_orders, load_doc, load_state

    p = g.write(body, sign=False)
    try:
        return list(check_orders(load_state(g.state_path), load_doc(p, "orders")).problems)
    finally:
        p.unlink()
