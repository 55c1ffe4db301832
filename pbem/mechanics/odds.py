"""Odds ratios and combat results table (CRT) column shifts, for games whose combat compares an
attack total with a defense total.

Odds are kept as an *ordinal* so that shifts work past the ends of the table (the actual odds are
shifted, not odds first capped at the table's last column): 1:1 is 0, n:1 is n-1, 1:n is -(n-1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Odds:
    ordinal: int

    @classmethod
    def of(cls, attack: int, defense: int) -> Odds:
        """Attack total against defense total.

        Attacker stronger or equal: attack / defense, fractions dropped (26 vs 7 = 3:1).
        Attacker weaker: defense / attack, fractions rounded up, written 1:n (5 vs 11 = 1:3).
        A game that rounds otherwise computes its own ordinal.
        """
        if defense <= 0:
            return cls(10_000)
        if attack <= 0:
            return cls(-10_000)
        if attack >= defense:
            return cls(attack // defense - 1)
        return cls(-(-(-defense // attack) - 1))

    @classmethod
    def nearest(cls, attack: int, defense: int) -> Odds:
        """Attack total against defense total, at the nearest odds (a tie goes to the defender):
        16 vs 5 = 3:1, 17 vs 5 = 3:1, 18 vs 5 = 4:1; 5 vs 12 = 1:2, 5 vs 13 = 1:3."""
        if defense <= 0:
            return cls(10_000)
        if attack <= 0:
            return cls(-10_000)
        if attack >= defense:
            n, rest = divmod(attack, defense)
            return cls(n - 1 + (1 if 2 * rest > defense else 0))
        n, rest = divmod(defense, attack)
        return cls(-(n - 1 + (1 if 2 * rest >= attack else 0)))

    @classmethod
    def parse(cls, text: str) -> Odds:
        a, d = (int(x) for x in text.split(":"))
        if a != 1 and d != 1:
            raise ValueError(f"odds are n:1 or 1:n, not {text}")
        return cls(a - 1) if d == 1 else cls(-(d - 1))

    def shift(self, columns: int) -> Odds:
        """Positive = to the right (better for the attacker), negative = to the left."""
        return Odds(self.ordinal + columns)

    @property
    def label(self) -> str:
        if self.ordinal >= 0:
            return f"{self.ordinal + 1}:1"
        return f"1:{-self.ordinal + 1}"

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Shift:
    """One column shift with the rule that grants it: ``-1`` is 1L, ``+1`` is 1R."""

    columns: int
    rule: str
    reason: str

    @property
    def label(self) -> str:
        return f"{abs(self.columns)}{'R' if self.columns > 0 else 'L'}"


def apply_shifts(odds: Odds, shifts: list[Shift]) -> Odds:
    """The odds after every shift: shifts add up, and all are applied before the die is rolled."""
    return odds.shift(sum(s.columns for s in shifts))


def halve_round_up(total: int) -> int:
    """Halve a combined total once, rounding fractions up."""
    return -(-total // 2)
