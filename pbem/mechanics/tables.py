"""Table look-up for combat results tables given as data (charts are data: scenarios/GAME/charts.toml).

A results table has column labels (odds), row labels (die faces) and cells ``"A/D"``: the
attacker's loss left of the slash, the defender's right of it; ``E`` means every defender is
eliminated. A table may be *provisional*: a stand-in where the printed chart is not in the source.
"""

from __future__ import annotations

from dataclasses import dataclass

from .odds import Odds


@dataclass(frozen=True, slots=True)
class Result:
    attacker: int
    defender: int | None  # None = E (all defenders eliminated)

    @classmethod
    def parse(cls, text: str) -> Result:
        a, d = text.split("/")
        return cls(int(a), None if d.strip().upper() == "E" else int(d))

    @property
    def label(self) -> str:
        return f"{self.attacker}/{'E' if self.defender is None else self.defender}"


@dataclass(frozen=True, slots=True)
class ResultsTable:
    name: str
    columns: tuple[str, ...]
    rows: dict[int, tuple[Result, ...]]
    provisional: bool
    note: str
    above: Result  # automatic result right of the last column
    below: Result  # automatic result left of the first column
    known: frozenset[tuple[int, str]] = frozenset()  # (face, column) cells the game's rules give (of a provisional table)

    @property
    def first(self) -> Odds:
        return Odds.parse(self.columns[0])

    @property
    def last(self) -> Odds:
        return Odds.parse(self.columns[-1])

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
