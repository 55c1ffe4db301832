"""Stacking on a map of places: the units in each place, and the places whose units' summed
stacking value exceeds the place's limit."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Overstack:
    place: str
    value: Fraction
    limit: int


def stacks(positions: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """The units in each place, from (unit, place) pairs; each place's units in the order given,
    the places in the order first met."""
    out: dict[str, list[str]] = {}
    for unit, place in positions:
        out.setdefault(place, []).append(unit)
    return out


def counts(positions: Iterable[tuple[str, str]], value: Callable[[str], Fraction] | None = None) -> dict[str, Fraction]:
    """The summed stacking value of each place's units (each unit 1 without ``value``), sorted by place."""
    total: dict[str, Fraction] = {}
    for unit, place in positions:
        total[place] = total.get(place, Fraction(0)) + (value(unit) if value else Fraction(1))
    return dict(sorted(total.items()))


def overstacked(
    stacks: Iterable[tuple[str, list[str]]],
    value: Callable[[str], Fraction],
    limit: Callable[[str], int],
) -> list[Overstack]:
    """The places whose units' summed stacking value exceeds the place's limit."""
    out = []
    for place, units in stacks:
        total = sum((value(u) for u in units), Fraction(0))
        if total > limit(place):
            out.append(Overstack(place, total, limit(place)))
    return out
