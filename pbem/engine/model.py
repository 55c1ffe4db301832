"""Values the engine passes around: submissions, events, decisions and transitions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, as data; reports and ``--json`` render it.

    ``kind`` names the event (``move``, ``attack``, ``control`` ...), ``rule`` the rule number(s) it
    applies, ``data`` its details (JSON-able).
    """

    kind: str
    rule: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, **self.data}


@dataclass(frozen=True, slots=True)
class Submission:
    """A parsed, already authenticated input file of a transition (orders, join or reply)."""

    kind: str
    side: str
    body: dict[str, Any]
    digest: str = ""


@dataclass(frozen=True, slots=True)
class Transition:
    """What the engine returns: the next state's game part and the events that led to it."""

    state: dict[str, Any]
    events: tuple[Event, ...]
