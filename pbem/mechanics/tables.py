"""Table look-up for combat results tables given as data (charts are data: scenarios/GAME/charts.toml).

A results table has column labels (odds), row labels (die faces) and cells ``"A/D"``: the
attacker's loss left of the slash, the defender's right of it; ``E`` means every defender is
eliminated. A table may be *provisional*: a stand-in where the printed chart is not in the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .odds import Odds

_SIDE = re.compile(r"(?:([0-9]{1,2})([a-zA-Z]?)|([a-zA-Z])|-)", re.ASCII)


@dataclass(frozen=True, slots=True)
class Result:
    """One cell: each side's number and, for games whose results carry them, a marker letter
    (``"1d/2Z"``: the attacker 1 and d, the defender 2 and Z; ``"-"`` or ``"0"`` for nothing)."""

    attacker: int
    defender: int | None  # None = E (all defenders eliminated)
    attacker_mark: str = ""
    defender_mark: str = ""

    @classmethod
    def parse(cls, text: str) -> Result:
        a, d = (x.strip() for x in text.split("/"))
        if d.upper() == "E":
            an, am = _side(a, text)
            return cls(an, None, am)
        an, am = _side(a, text)
        dn, dm = _side(d, text)
        return cls(an, dn, am, dm)

    @property
    def label(self) -> str:
        def side(n: int | None, mark: str) -> str:
            if n is None:
                return "E"
            return (str(n) if n or not mark else "") + mark if (n or mark) else "0"
        return f"{side(self.attacker, self.attacker_mark)}/{side(self.defender, self.defender_mark)}"


def _side(text: str, cell: str) -> tuple[int, str]:
    m = _SIDE.fullmatch(text)
    if not m:
        raise ValueError(f"'{cell}' is not a result: each side is a number, a letter, both (1d) or -")
    if m.group(3):
        return 0, m.group(3)
    if m.group(1):
        return int(m.group(1)), m.group(2)
    return 0, ""


class OddsColumns:
    """A table whose columns are odds labels, lowest first (``columns``): its first and last column."""

    __slots__ = ()
    columns: tuple[str, ...]

    @property
    def first(self) -> Odds:
        return Odds.parse(self.columns[0])

    @property
    def last(self) -> Odds:
        return Odds.parse(self.columns[-1])


@dataclass(frozen=True, slots=True)
class ResultsTable(OddsColumns):
    name: str
    columns: tuple[str, ...]
    rows: dict[int, tuple[Result, ...]]
    provisional: bool
    note: str
    above: Result  # automatic result right of the last column
    below: Result  # automatic result left of the first column
    known: frozenset[tuple[int, str]] = frozenset()  # (face, column) cells the game's rules give (of a provisional table)

    def automatic(self, odds: Odds) -> Result | None:
        """The result with no die roll when the odds are off the table, else None."""
        if odds > self.last:
            return self.above
        if odds < self.first:
            return self.below
        return None

    def lookup(self, odds: Odds, face: int) -> Result:
        return self.rows[face][self.columns.index(odds.label)]

    def cell_is_provisional(self, odds: Odds, face: int) -> bool:
        return self.provisional and (face, odds.label) not in self.known
