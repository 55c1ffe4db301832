"""Stacking limits (6.x and the like): sum each hex's stacking values and compare with its limit."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Overstack:
    hex: str
    value: Fraction
    limit: int


def overstacked(
    stacks: Iterable[tuple[str, list[str]]],
    value: Callable[[str], Fraction],
    limit: Callable[[str], int],
) -> list[Overstack]:
    """Hexes whose units' summed stacking value exceeds the hex's limit."""
    out = []
    for hex_id, units in stacks:
        total = sum((value(u) for u in units), Fraction(0))
        if total > limit(hex_id):
            out.append(Overstack(hex_id, total, limit(hex_id)))
    return out
