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
