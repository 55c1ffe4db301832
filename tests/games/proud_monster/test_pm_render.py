"""Proud Monster report lines: one renderer per kind of event (render.EVENT_TEXT), and every kind of
event the module emits has one (none falls back to showing its data)."""

from __future__ import annotations

import re

import pytest

from pbem.engine.model import Event
from pbem.games.proud_monster import render
from tests.paths import ROOT

ROOT = ROOT / "pbem" / "games" / "proud_monster"
EMITTED = re.compile(r"""(?:\bemit|\bEvent)\(\s*["']([a-z-]+)["']""")


def emitted_kinds() -> set[str]:
    return {k for p in ROOT.rglob("*.py") for k in EMITTED.findall(p.read_text(encoding="utf-8"))}


def test_every_emitted_kind_has_a_renderer() -> None:
    kinds = emitted_kinds()
    assert {"attack", "move", "sea-move", "ground-support", "setup", "replacement", "fort-line"} <= kinds
    assert sorted(kinds - set(render.EVENT_TEXT)) == []


def test_a_kind_is_rendered_by_one_table_only() -> None:
    with pytest.raises(ValueError, match="rendered twice: move"):
        render._table({"move": render._move}, {"move": render._move})


def test_an_unknown_kind_shows_its_data() -> None:
    assert render.event_lines(Event("mystery", "1.1", {"a": 1})) == ["- mystery (1.1): {'a': 1}"]


def test_a_template_shows_only_the_keys_the_game_gives_the_side() -> None:
    basic = {"mobile_assault": False, "supply": False, "ground_support": False, "hedgehogs": False, "arko": True}
    soviet = "\n".join(render.order_skeleton(basic, "soviet"))
    for absent in ("[declare]", "air_supply", "assault =", "form_arko", "pause", "concentration", "support =",
                   "overstack_removal"):
        assert absent not in soviet
    assert "form_arko" in "\n".join(
        render.order_skeleton(basic, "german"))
    full = {**basic, "mobile_assault": True, "supply": True, "ground_support": True, "hedgehogs": True}
    german = "\n".join(render.order_skeleton(full, "german"))
    for present in ("# [declare]", "# air_supply = true", '# assault = "HEX"', "# pause = true", "# hedgehog =",
                    "overstack_removal"):
        assert present in german
    full_soviet = "\n".join(render.order_skeleton(full, "soviet"))
    assert "[declare]" not in full_soviet and "air_supply" not in full_soviet and '# assault = "HEX"' in full_soviet
