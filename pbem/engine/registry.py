"""The registry of game modules: an explicit list with aliases, no entry-point magic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.errors import UsageError

if TYPE_CHECKING:
    from pbem.games.base import GameModule


def modules() -> list[GameModule]:
    from pbem.games.proud_monster.module import ProudMonster

    return [ProudMonster()]


def find_module(name: str) -> GameModule:
    key = name.strip().lower()
    for m in modules():
        if key == m.name or key in m.aliases:
            return m
    known = ", ".join(m.name for m in modules())
    raise UsageError(f"unknown game '{name}'", hint=f"Known games: {known}.")
