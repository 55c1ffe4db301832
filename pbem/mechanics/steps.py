"""Step losses: allocating a loss among participating units.

A loss of N points is absorbed one step at a time. Each step satisfies one point, or less where a
rule says so (a game may count a cavalry step as 1/2). Rules may constrain which unit gives the
next step (the attacker's first step from a tank; no unit eliminated while another participant has
more than one step); within the constraints, an owner's ordered list and then a policy decide.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

POLICIES = ("fewest-steps-first", "most-steps-first", "ask")


@dataclass(frozen=True, slots=True)
class Loss:
    unit: str
    steps: int  # steps taken from the unit
    eliminated: bool


class NeedsDecision(Exception):
    """The allocation is not decided by the orders or standing instructions given."""


def allocate(
    units: Sequence[tuple[str, int]],
    loss: int,
    order: Sequence[str],
    policy: str,
    weight: Mapping[str, Fraction] | None = None,
    first_from: Collection[str] = (),
    spread: bool = False,
    reduced: Mapping[str, int] | None = None,
) -> list[Loss]:
    """Take a loss of ``loss`` points from ``units`` (id, steps left).

    ``order`` names units one step per entry (repeat an id for a second step); an entry is used as
    soon as it is allowed. Steps still owed follow ``policy``: ``fewest-steps-first`` (finish off
    weak units first), ``most-steps-first`` (spread the losses) or ``ask`` (NeedsDecision when the
    choice matters). ``weight`` gives the points a unit's step satisfies (default 1);
    ``first_from`` the units the first step must come from if any takes part;
    ``spread`` forbids eliminating a unit while another has more than one step;
    ``reduced`` gives, per unit, the steps at or below which it counts as reduced for ``spread``
    (default 1: reduced to 1 step; a 4-step unit's 3 when being reduced once is enough).
    A loss larger than all steps eliminates everything; the excess is ignored.
    """
    w = weight or {}
    left = {u: s for u, s in units}
    taken = {u: 0 for u, _ in units}
    ids = [u for u, _ in units]

    def capacity(us: Sequence[str]) -> Fraction:
        return sum((left[u] * w.get(u, Fraction(1)) for u in us), Fraction(0))

    owed = Fraction(loss)
    if owed >= capacity(ids):
        return [Loss(u, s, True) for u, s in units if s > 0]
    queue = list(order)
    listed = {u: i for i, u in reversed(list(enumerate(order)))}
    first = True
    while owed > 0:
        alive = [u for u in ids if left[u] > 0]
        allowed = alive
        if first and first_from:
            allowed = [u for u in alive if u in first_from] or alive
        if spread and any(left[u] > (reduced or {}).get(u, 1) for u in allowed):
            allowed = [u for u in allowed if left[u] > 1]
        pick = next((q for q in queue if q in allowed), None)
        if pick is not None:
            queue.remove(pick)
        else:
            if policy == "ask" and len(allowed) > 1 and owed < capacity(alive):
                raise NeedsDecision(f"{owed} point(s) of loss to take among {', '.join(allowed)}")
            if policy == "most-steps-first":
                pick = min(allowed, key=lambda u: (-left[u], listed.get(u, len(order)), u))
            else:
                pick = min(allowed, key=lambda u: (left[u], listed.get(u, len(order)), u))
        left[pick] -= 1
        taken[pick] += 1
        owed -= w.get(pick, Fraction(1))
        first = False
    return [Loss(u, taken[u], left[u] == 0) for u in ids if taken[u] > 0]


def unused_entries(units: Sequence[tuple[str, int]], loss: int, order: Sequence[str], **rules: object) -> list[str]:
    """The entries of ``order`` that an allocation under ``rules`` would not use (for replies)."""
    result = allocate(units, loss, order, "ask", **rules)  # type: ignore[arg-type]
    used = {lo.unit: lo.steps for lo in result}
    out = []
    for u in order:
        if used.get(u, 0) > 0:
            used[u] -= 1
        else:
            out.append(u)
    return out
