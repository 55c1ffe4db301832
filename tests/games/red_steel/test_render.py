"""Red Steel's reports: each event kind has one renderer, and every event of a played game renders."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.games.red_steel import (
    activation,
    bombard,
    combat,
    endturn,
    engineer,
    intro,
    movement,
    render,
    status,
)

MODULES = (activation, bombard, combat, endturn, engineer, intro, movement, status)
PACKAGE = Path(render.__file__).parent


def test_each_event_kind_has_one_renderer_and_every_emitted_kind_has_one() -> None:
    owners: dict[str, list[str]] = {}
    for mod in MODULES:
        for kind in getattr(mod, "RENDER", {}):
            owners.setdefault(kind, []).append(mod.__name__)
    for kind in render._core_lines():
        owners.setdefault(kind, []).append("render")
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}
    emitted = set()
    for path in PACKAGE.glob("*.py"):
        emitted |= set(re.findall(r'emit\(\s*"([a-z-]+)"', path.read_text(encoding="utf-8")))
    assert emitted and sorted(emitted - set(owners)) == []
