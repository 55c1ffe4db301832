"""Named options of a game: one for each ambiguity of its rules that changes play, each defaulting
to its rules digest's reading. A game lists its ``Option``s; a state records only those not at
their default, so that a game played with the defaults has an empty ``options`` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.errors import IllegalOrdersError


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    default: Any
    choices: tuple[Any, ...]  # the values allowed (for an int option: its lowest and highest)
    ambiguity: str  # the digest's entry (A-nn) or rule
    text: str  # what it decides

    @property
    def integer(self) -> bool:
        return isinstance(self.default, int) and not isinstance(self.default, bool)


def parse(known: Mapping[str, Option], options: dict[str, Any]) -> dict[str, Any]:
    """The options given, checked against ``known`` (by name), as the state records them (those at
    their default left out)."""
    out: dict[str, Any] = {}
    for name, raw in sorted(options.items()):
        opt = known.get(name)
        if opt is None:
            raise IllegalOrdersError(f"unknown option {name}", hint="Known: " + ", ".join(known) + ".")
        value: Any = raw
        if isinstance(opt.default, bool):
            if raw in (True, "true"):
                value = True
            elif raw in (False, "false"):
                value = False
            else:
                raise IllegalOrdersError(f"option {name}={raw}: true or false ({opt.ambiguity})")
        elif opt.integer:
            if isinstance(raw, bool) or not str(raw).isdigit() or not opt.choices[0] <= int(raw) <= opt.choices[1]:
                raise IllegalOrdersError(f"option {name}={raw}: a whole number from {opt.choices[0]} to {opt.choices[1]} ({opt.ambiguity})")
            value = int(raw)
        elif raw not in opt.choices:
            raise IllegalOrdersError(f"option {name}={raw}: one of {', '.join(map(str, opt.choices))} ({opt.ambiguity})")
        if value != opt.default:
            out[name] = value
    return out


def get(known: Mapping[str, Option], options: dict[str, Any], name: str) -> Any:
    """An option's value in a game (its default when the state does not record it)."""
    return options.get(name, known[name].default)
