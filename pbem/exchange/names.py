"""The names of a game folder's files (docs/protocol.md, Game folder): made and parsed here only.

Every file of a game is named by the sequence number of the state it belongs to, four digits or
more, so that ``ls`` shows the history in order:

- ``NNNN.state.toml``: state NNNN; ``NNNN.report.md`` and ``NNNN.turn.svg``: its report and the
  picture of its turn;
- ``NNNN-SIDE.view.toml`` and ``NNNN-SIDE.report.md``: a refereed game's view of state NNNN for
  SIDE, and the report for that side;
- ``NNNN-SIDE.join.toml``, ``NNNN-SIDE.orders.toml``, ``NNNN-SIDE.reply.toml``,
  ``NNNN-SIDE.reveal.toml``: SIDE's join, orders, reply or last openings (a game with hidden values)
  answering state NNNN.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

SUBMISSIONS = ("orders", "join", "reply", "reveal", "agree")  # the kinds of file a party sends, answering a state
STATE_GLOB = "*.state.toml"
VIEW_GLOB = "*.view.toml"

_SIDE = r"[a-z][a-z0-9-]{0,40}"  # a side, as the schemas spell it
_KINDS = {"state.toml": "state", "view.toml": "view", "orders.toml": "orders", "join.toml": "join", "reply.toml": "reply",
          "reveal.toml": "reveal", "agree.toml": "agree", "report.md": "report", "turn.svg": "picture"}
_NAME = re.compile(rf"(?P<seq>[0-9]{{4,}})(?:-(?P<side>{_SIDE}))?\.(?P<kind>{'|'.join(re.escape(k) for k in _KINDS)})")


def number(sequence: int) -> str:
    """A sequence number as file names (and the messages that name a state) write it: 0003."""
    return f"{sequence:04d}"


def state(sequence: int) -> str:
    return f"{number(sequence)}.state.toml"


def report(sequence: int, side: str | None = None) -> str:
    """The report of a transition; with ``side``, the report for that side of a refereed game."""
    return f"{number(sequence)}-{side}.report.md" if side else f"{number(sequence)}.report.md"


def picture(sequence: int) -> str:
    """The picture of the turn that produced state ``sequence``."""
    return f"{number(sequence)}.turn.svg"


def view(sequence: int, side: str) -> str:
    return f"{number(sequence)}-{side}.view.toml"


def submission(sequence: int, side: str, kind: str) -> str:
    """A join, order, reply or reveal file of ``side`` answering state ``sequence``."""
    if kind not in SUBMISSIONS:
        raise ValueError(f"no file of kind {kind!r} answers a state")
    return f"{number(sequence)}-{side}.{kind}.toml"


def kind(name: str) -> str | None:
    """The kind of file a name says, by its suffix alone (any name: ``-o next.state.toml`` too)."""
    for suffix, k in _KINDS.items():
        if name.endswith("." + suffix):
            return k
    return None


def inputs_glob(sequence: int) -> str:
    """The files answering state ``sequence`` (and its views), as a glob pattern."""
    return f"{number(sequence)}-*.toml"


def of_document(data: dict[str, Any], sequence: int | None = None) -> str:
    """The folder's name for a state, view or submission: a submission is named by ``sequence``, the
    number of the state it answers (which its content names only by digest)."""
    h = data["pbem"]
    kind = str(h["kind"])
    if kind == "state":
        return state(int(h["sequence"]))
    if kind == "view":
        return view(int(h["sequence"]), str(h["side"]))
    if sequence is None:
        raise ValueError("a submission is named by the sequence number of the state it answers")
    return submission(sequence, str(h["side"]), kind)


@dataclass(frozen=True)
class Name:
    """A game folder's file name, parsed: its kind (state, view, orders, join, reply, report,
    picture), the sequence number and the side it names (None for the whole game's files)."""

    kind: str
    sequence: int
    side: str | None

    def __str__(self) -> str:
        if self.kind == "state":
            return state(self.sequence)
        if self.kind == "picture":
            return picture(self.sequence)
        if self.kind == "report":
            return report(self.sequence, self.side)
        assert self.side is not None
        if self.kind == "view":
            return view(self.sequence, self.side)
        return submission(self.sequence, self.side, self.kind)


def parse(name: str) -> Name | None:
    """The kind, sequence number and side of a game folder's file name; None for any other name
    (a side where its kind has none, none where it needs one, an unknown suffix)."""
    m = _NAME.fullmatch(name)
    if m is None:
        return None
    kind, side = _KINDS[m.group("kind")], m.group("side")
    if kind in ("state", "picture") and side is not None or kind not in ("state", "picture", "report") and side is None:
        return None
    return Name(kind, int(m.group("seq")), side)


def is_game_file(name: str) -> bool:
    """Whether pbem would file anything under ``name``: it never writes outside a game folder's names."""
    return parse(name) is not None
