"""Supply lines on a map of places (places.PlaceMap): which places a line reaches a source from,
and the line itself.

A line is a chain of adjacent places. What may carry it is the game's: a set of places it may not
enter (enemy-held, all-sea, ...) and, for each border with a feature (a river, a strait, a lake
side), whether the line crosses it; a border without a feature never stops a line. Or, for lines
with a length or a cost, a step-cost function as for paths (paths.StepCost).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from .paths import StepCost
from .places import PlaceMap

# border_open(toward, away, features): may a line cross the border between the place nearer the
# source (``toward``) and the one farther from it (``away``), given the border's features?
BorderOpen = Callable[[str, str, frozenset[str]], bool]


def supplied(m: PlaceMap, sources: Iterable[str], closed: Collection[str], border_open: BorderOpen,
             ends: Collection[str] = ()) -> frozenset[str]:
    """Every place from which a line reaches one of ``sources`` (a source itself included), found
    from the sources outward: no place of ``closed`` is entered (a closed source is no source), a
    border without a feature is always crossed, one with a feature when ``border_open`` says so.
    A place of ``ends`` is reached but no line passes through it (a line may end there, as in a
    place held by the enemy that the line may enter but not cross). Every source must be a place of
    the map."""
    start = [s for s in sources if s not in closed]
    visited = set(closed)
    visited.update(start)
    queue = deque(start)
    links = m.links()
    # the search runs once for each change of what blocks a line: kept tight
    pop, push, seen = queue.popleft, queue.append, visited.add
    while queue:
        here = pop()
        if here in ends:
            continue
        plain, featured = links[here]
        for n in plain:
            if n not in visited:
                seen(n)
                push(n)
        for n, feats in featured:
            if n not in visited and border_open(here, n, feats):
                seen(n)
                push(n)
    return frozenset(visited.difference(closed))


@dataclass(frozen=True, slots=True)
class Line:
    """A supply line: its cost and the places it runs through, from the unit's place to the source."""

    cost: int
    places: tuple[str, ...]

    @property
    def source(self) -> str:
        return self.places[-1]


def trace(m: PlaceMap, start: str, sources: Collection[str], step_cost: StepCost, limit: int | None = None) -> Line | None:
    """The cheapest line from ``start`` to the nearest of ``sources`` (ties broken by the place ids),
    or None; ``step_cost(a, b)`` is the cost of the line's step from ``a`` into ``b`` (None: it may
    not), ``limit`` the highest cost a line may have."""
    best: dict[str, int] = {start: 0}
    back: dict[str, str] = {}
    queue: list[tuple[int, str]] = [(0, start)]
    while queue:
        cost, here = heapq.heappop(queue)
        if cost > best.get(here, cost):
            continue
        if here in sources:
            path = [here]
            while path[-1] != start:
                path.append(back[path[-1]])
            return Line(cost, tuple(reversed(path)))
        for nxt in sorted(m.neighbours(here)):
            step = step_cost(here, nxt)
            if step is None:
                continue
            total = cost + step
            if (limit is None or total <= limit) and total < best.get(nxt, total + 1):
                best[nxt] = total
                back[nxt] = here
                heapq.heappush(queue, (total, nxt))
    return None
