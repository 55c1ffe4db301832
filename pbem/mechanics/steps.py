"""Step losses (2.16, 14.35): allocating a loss of N steps among participating units."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

POLICIES = ("fewest-steps-first", "most-steps-first", "ask")


@dataclass(frozen=True, slots=True)
class Loss:
    unit: str
    steps: int  # steps taken from the unit
    eliminated: bool


class NeedsDecision(Exception):
    """The allocation is not decided by the orders or standing instructions given."""


def allocate(units: Sequence[tuple[str, int]], loss: int, order: Sequence[str], policy: str) -> list[Loss]:
    """Take ``loss`` steps from ``units`` (id, steps left).

    ``order`` names units one step per entry (repeat an id to take a second step from it); entries
    naming a unit with no steps left are passed over. Steps still owed then follow ``policy``:
    ``fewest-steps-first`` (finish off weak units first), ``most-steps-first`` (spread the losses),
    or ``ask`` (raise NeedsDecision if the choice matters). A loss larger than all steps eliminates
    everything; the excess is ignored (digest Ambiguity 46).
    """
    left = {u: s for u, s in units}
    taken = {u: 0 for u, _ in units}
    owed = min(loss, sum(left.values()))
    for u in order:
        if owed == 0:
            break
        if left.get(u, 0) > 0:
            left[u] -= 1
            taken[u] += 1
            owed -= 1
    if owed > 0:
        alive = [u for u, _ in units if left[u] > 0]
        if policy == "ask" and owed < sum(left[u] for u in alive) and len(alive) > 1:
            raise NeedsDecision(f"{owed} step(s) to allocate among {', '.join(alive)}")
        listed = {u: i for i, u in reversed(list(enumerate(order)))}
        while owed > 0:
            alive = [u for u, _ in units if left[u] > 0]
            if policy == "most-steps-first":
                pick = min(alive, key=lambda u: (-left[u], listed.get(u, len(order)), u))
            else:
                pick = min(alive, key=lambda u: (left[u], listed.get(u, len(order)), u))
            left[pick] -= 1
            taken[pick] += 1
            owed -= 1
    return [Loss(u, taken[u], left[u] == 0) for u, _ in units if taken[u] > 0]
