"""Europe Engulfed in words: the position as text (blocks as the reader knows them, GS, contested,
OOS, fortifications, beachheads, weather, SAs, control), status lines, and the templates of each
step (every order documented, valid TOML, the state's facts)."""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any

from pbem.exchange.files import schema_problems
from pbem.games.europe_engulfed import render
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.paths import ROOT


def game(phase: str = "move", side: str = "axis", **position: Any) -> dict[str, Any]:
    g = EuropeEngulfed().new_game("1941-barbarossa", {})
    g["position"].update(copy.deepcopy(position))
    g["clock"].update(phase=phase, side=side)
    return {"pbem": {"scenario": "1941-barbarossa"}, **g, "standing": {},
            "awaits": {"kind": "orders", "step": f"{g['clock']['turn']}/{side}/{phase}", "from": [side]}}


def test_unit_text_says_what_the_reader_knows() -> None:
    assert render.unit_text("de.07", {"block": "de-arm", "steps": 3}, 4) == "de.07 de-arm 3/4"
    assert render.unit_text("de.07", {"block": "de-arm", "steps": 3, "oos": "oos"}) == "de.07 de-arm 3 [oos]"
    assert render.unit_text("su.01", {"nation": "ussr", "item": "su.01"}) == "su.01 (hidden)"


def test_position_text_lists_blocks_gs_contested_oos_fortifications_weather_and_sas() -> None:
    state = game(contested={"brest-litovsk": "new", "lvov": "old"}, weather={"west": "clear", "east": "mud", "south": "clear"},
                 fortifications={"moscow": {"kind": "field", "nation": "ussr"}}, beachheads={"crete": "axis"},
                 sa={"germany": 3, "ussr": 1})
    units = state["position"]["units"]
    units["su.05"]["oos"] = "oos"
    units["su.06"] = {k: v for k, v in units["su.06"].items() if k not in ("block", "steps")}
    text = render.position_text(state, "axis")
    assert text.startswith("# Barbarossa, 1941: May/Jun 1941, axis move (as the axis see it)")
    assert "- Weather (1.1): west clear, east mud, south clear." in text
    assert "- Special actions held (7.1): germany 3, ussr 1." in text
    line = next(x for x in text.splitlines() if x.startswith("- Brest-Litovsk"))
    assert "contested, new: combat compulsory (6.1)" in line
    assert "su.05 su-arm 4/4 [oos]" in line and "su.06 (hidden)" in line and "1 ussr GS" in line
    assert "su-inf" not in line.split("su.06")[1].split(";")[0]
    assert any(x.startswith("- Lvov (contested)") for x in text.splitlines())
    assert "field fortification, ussr (6.9)" in next(x for x in text.splitlines() if x.startswith("- Moscow"))
    assert "## Contested areas (Glossary)" in text and "- Brest-Litovsk: new (combat compulsory, 6.1)" in text
    assert "## Fleet points (section 8)" in text
    ctl = next(x for x in text.splitlines() if x.startswith("- axis ("))
    assert "Berlin" in ctl and "Moscow" not in ctl


def test_status_lines() -> None:
    state = game(contested={"minsk": "new", "kiev": "old"}, sa={"germany": 2})
    state["position"]["units"]["su.05"]["oos"] = "oos"
    lines = render.status_lines(state)
    assert lines[0].startswith("axis: ") and "GS" in lines[0]
    assert "1 out of supply (1.21)" in lines[1]
    assert "weather (1.1): west clear, east clear, south clear" in lines
    assert "special actions held (7.1): germany 2" in lines
    assert "contested (Glossary): kiev, minsk (new)" in lines


def _template(state: dict[str, Any], side: str = "axis") -> str:
    text = render.template(state, side, ["# header"])
    tomllib.loads(text)  # nothing but comments: the file is valid as it is
    return text


def test_the_move_template_documents_every_order_of_the_step() -> None:
    state = game(sa={"germany": 3, "ussr": 1})
    state["position"]["units"]["de.05"]["oos"] = "oos"
    text = _template(state)
    for key in ("[[production.build]]", "[[production.replace]]", "[[production.fortify]]", "[[production.special]]",
                "[production.buy]", "[[move]]", "[[evacuate]]", "[[invade]]", "[[drop]]", "[[strat]]", "[standing]",
                "[[fleet]]"):
        assert f"# {key}" in text, key
    for rule in ("1.22", "4.4", "5.1", "7.52", "7.2", "7.3", "1.24", "5.33", "6.27", "7.51", "7.6", "7.7", "8.3", "8.11",
                 "8.21"):
        assert rule in text, rule
    assert "# Special actions held (7.1): germany 3." in text  # the side's own nations only
    assert "de.05 in East Prussia" in text


def test_the_combat_template_lists_the_newly_contested_areas_that_must_be_fought() -> None:
    state = game("combat", contested={"minsk": "new", "kiev": "old"})
    text = _template(state)
    assert "compulsory (6.1): Minsk" in text and "your choice (1.25): Kiev" in text
    assert '# area = "minsk"' in text and '# area = "kiev"' in text
    assert text.index('"minsk"') < text.index('"kiev"')
    for key in ("[[battle]]", "[next]", "breakthrough = true", "[final]", "limited_supply", "cadres", "[standing]",
                "fleets = [{"):
        assert key in text, key


def test_the_breakthrough_template_gives_the_sas_held_and_the_compulsory_combats() -> None:
    state = game("breakthrough", sa={"germany": 2, "italy": 1, "britain": 2})
    state["pending"] = {"breakthroughs": 1, "battles": ["smolensk"]}
    text = _template(state)
    assert "# Special actions held (7.1): germany 2, italy 1." in text
    assert "(6.73, already paid): Smolensk" in text and '# area = "smolensk"' in text
    for kind in ('"combat"', '"move"', '"strat"', '"end"'):
        assert f"# kind = {kind}" in text
    assert "[final]" in text


def test_the_setup_template_commits_hidden_blocks() -> None:
    text = _template(game("setup"), "allies")
    assert "# [hidden]" in text and "6.24" in text


def _uncommented(text: str) -> str:
    """A template with its orders uncommented (placeholders kept): the file a player fills in."""
    lines = []
    for line in text.splitlines():
        body = line[2:] if line.startswith("# ") else ""
        if body.startswith("[") or "=" in body.split("#")[0]:
            lines.append(body)
    out = "\n".join(lines)
    for placeholder, value in (("BLOCK-TYPE", "de-arm"), ("NAT.NN", "de.59"), ("NATION", "germany"), ("AREA", "minsk"),
                               ("SEA", "baltic"), ("ID", "de.07")):
        out = re.sub(rf"\b{re.escape(placeholder)}\b", value, out)
    return out


def test_the_documented_order_examples_and_the_templates_fit_the_orders_schema() -> None:
    """docs/europe-engulfed.md's TOML examples, and each template's commented orders (one kind of
    breakthrough at a time), are orders the schema accepts."""

    doc = (ROOT / "docs" / "europe-engulfed.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", doc, flags=re.S)
    assert len(blocks) >= 7
    for text in blocks:
        body = tomllib.loads(text)
        assert schema_problems(body, "europe-engulfed/orders-body", "doc") == [], text
    for phase in ("move", "combat"):
        body = tomllib.loads(_uncommented(render.template(game(phase, contested={"minsk": "new"}), "axis", [])))
        assert schema_problems(body, "europe-engulfed/orders-body", phase) == [], phase
        assert body["standing"]["losses"] == ["de.07", "de.07"]
        assert ("move" in body) == (phase == "move") and ("battle" in body) == (phase == "combat")
