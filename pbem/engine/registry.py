"""The registry of game modules: the one place outside ``pbem.games`` that names a game.

An explicit list of (name, aliases, module path, class name), imported lazily: a command that
needs no game imports none, and a game's import errors stay with that game. Tests may register a
module of their own (``register``) and take one out (``unregister``).

``PBEM_HIDE_GAMES`` (a comma-separated list of game names) leaves bundled or registered games out
of the registry of a process, as ``unregister`` does within one: a test that spawns ``pbem`` hides a
game from it that way, and the hidden game's code is never imported there. It is read at each look-up.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pbem.errors import UsageError

if TYPE_CHECKING:
    from pbem.games.base import GameModule


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    aliases: tuple[str, ...]
    path: str  # the module that defines the game's class
    cls: str


GAMES: list[Entry] = [
    Entry("proud-monster", ("pm", "proudmonster", "proud_monster"), "pbem.games.proud_monster.module", "ProudMonster"),
    Entry("skirmish", ("sk",), "pbem.games.skirmish.module", "Skirmish"),
    Entry("red-steel", ("rs", "redsteel", "red_steel"), "pbem.games.red_steel.module", "RedSteel"),
    Entry("europe-engulfed", ("ee", "europeengulfed", "europe_engulfed"), "pbem.games.europe_engulfed.module", "EuropeEngulfed"),
]

_loaded: dict[str, GameModule] = {}
_extra: dict[str, GameModule] = {}
_hidden: set[str] = set()

HIDE_ENV = "PBEM_HIDE_GAMES"  # game names left out of the registry, comma-separated


def hidden() -> set[str]:
    """The games left out: by ``unregister`` and by $PBEM_HIDE_GAMES."""
    env = {n.strip().lower() for n in os.environ.get(HIDE_ENV, "").split(",") if n.strip()}
    return _hidden | env


def register(module: GameModule) -> None:
    """Add a game module (a test game, or one under development)."""
    _extra[module.name] = module


def unregister(name: str) -> None:
    """Take a game out of the registry (a module registered, or a bundled one)."""
    _extra.pop(name, None)
    _hidden.add(name)


def fingerprint() -> str:
    """What differs from the registry as shipped: "" when nothing was registered or hidden (a
    verdict on a file that depends on its game may then be kept between processes)."""
    out = hidden()
    if not _extra and not out:
        return ""
    return ";".join([*(f"-{n}" for n in sorted(out)), *(f"+{n}:{type(m).__module__}.{type(m).__qualname__}:{id(m)}"
                                                        for n, m in sorted(_extra.items()))])


def restore() -> None:
    """The registry as shipped (tests undo ``register`` and ``unregister`` with it)."""
    _extra.clear()
    _hidden.clear()


def names() -> list[str]:
    out = hidden()
    return [e.name for e in GAMES if e.name not in out] + sorted(n for n in _extra if n not in out)


def _load(e: Entry) -> GameModule:
    if e.name not in _loaded:
        cls = getattr(importlib.import_module(e.path), e.cls)
        _loaded[e.name] = cls()
    return _loaded[e.name]


def modules() -> list[GameModule]:
    out = hidden()
    return [_load(e) for e in GAMES if e.name not in out] + [m for n, m in sorted(_extra.items()) if n not in out]


def find_module(name: str) -> GameModule:
    key = name.strip().lower()
    out = hidden()
    for n, m in _extra.items():
        if n not in out and (key == n or key in m.aliases):
            return m
    for e in GAMES:
        if e.name not in out and (key == e.name or key in e.aliases):
            return _load(e)
    raise UsageError(f"unknown game '{name}'", hint=f"Known games: {', '.join(names()) or 'none'}.")


def sides_of(module: GameModule, options: dict[str, Any] | None = None, scenario: str = "") -> tuple[str, ...]:
    """The parties of a game of ``module`` made with ``options`` (as its state records them) and
    ``scenario``: the module's optional ``sides_for`` when it has one, else its ``sides``."""
    fn = getattr(module, "sides_for", None)
    return tuple(fn(dict(options or {}), scenario)) if fn is not None else tuple(module.sides)


def every_side(module: GameModule) -> tuple[str, ...]:
    """Every party a game of ``module`` may have: ``sides``, then those of its ``side_variants``."""
    variants: dict[str, tuple[str, ...]] = getattr(module, "side_variants", {}) or {}
    return tuple(dict.fromkeys([*module.sides, *(s for v in variants.values() for s in v)]))
