"""Paths on a map of places (places.PlaceMap, hexes or areas) under a cost function (Dijkstra).

A cost function ``step_cost(a, b)`` gives the cost of entering place ``b`` from the adjacent place
``a``, or None when that step is prohibited; it is where a game puts its terrain, its border
features and whatever else blocks a step (enemy units, zones of control). Ties are broken by the
place ids, so every answer is deterministic.

- ``cheapest``: the cheapest path from one place to another;
- ``costs_to``: the cost from each of some places to the nearest of a set of places (one search
  backward from the set);
- ``reachable``: every place reached from one place within a budget, with its cost; ``routes``:
  the cheapest path to each.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence

from .places import Adjacency

StepCost = Callable[[str, str], int | None]


class Neighbours:
    """An Adjacency from a function (or a dict's ``__getitem__``): for graphs that are not maps,
    such as a test's."""

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[str], Iterable[str]]) -> None:
        self._fn = fn

    def neighbours(self, place_id: str) -> Sequence[str]:
        return tuple(self._fn(place_id))


def cheapest(
    graph: Adjacency,
    start: str,
    goal: str,
    step_cost: StepCost,
    limit: int | None = None,
) -> tuple[int, list[str]] | None:
    """The cheapest path from ``start`` to ``goal``: (cost, places entered), or None. ``limit``
    stops the search at that cost."""
    best: dict[str, int] = {start: 0}
    back: dict[str, str] = {}
    queue: list[tuple[int, str]] = [(0, start)]
    while queue:
        cost, here = heapq.heappop(queue)
        if here == goal:
            path = [here]
            while path[-1] != start:
                path.append(back[path[-1]])
            return cost, path[::-1][1:]
        if cost > best.get(here, cost):
            continue
        for nxt in sorted(graph.neighbours(here)):
            step = step_cost(here, nxt)
            if step is None:
                continue
            total = cost + step
            if limit is not None and total > limit:
                continue
            if total < best.get(nxt, total + 1):
                best[nxt] = total
                back[nxt] = here
                heapq.heappush(queue, (total, nxt))
    return None


def costs_to(
    graph: Adjacency,
    goals: Iterable[str],
    step_cost: StepCost,
    wanted: Iterable[str],
) -> dict[str, int]:
    """The cost of the cheapest path from each place of ``wanted`` to the nearest of ``goals``, from
    one search backward from the goals (Dijkstra on the steps reversed): what ``cheapest`` gives from
    each place, with every goal entered at no further cost. Adjacency must be symmetric (it is on
    every map of places). A place with no path is left out. The search stops once every wanted
    place is settled."""
    best: dict[str, int] = {g: 0 for g in goals}
    queue = sorted((0, g) for g in best)
    todo, done = set(wanted), set[str]()
    while queue and not todo <= done:
        cost, here = heapq.heappop(queue)
        if here in done:
            continue
        done.add(here)
        for prev in sorted(graph.neighbours(here)):
            if prev in done:
                continue
            step = step_cost(prev, here)
            if step is not None and cost + step < best.get(prev, cost + step + 1):
                best[prev] = cost + step
                heapq.heappush(queue, (cost + step, prev))
    return {p: best[p] for p in todo if p in done}


def _within(graph: Adjacency, start: str, step_cost: StepCost, budget: int) -> tuple[dict[str, int], dict[str, str]]:
    """Dijkstra from ``start`` within ``budget``: the cheapest cost of each place reached (in the
    order first reached) and the place each was entered from."""
    best: dict[str, int] = {start: 0}
    back: dict[str, str] = {}
    queue: list[tuple[int, str]] = [(0, start)]
    done: set[str] = set()
    while queue:
        cost, here = heapq.heappop(queue)
        if here in done:
            continue
        done.add(here)
        for nxt in sorted(graph.neighbours(here)):
            if nxt in done:
                continue
            step = step_cost(here, nxt)
            if step is None:
                continue
            total = cost + step
            if total <= budget and total < best.get(nxt, total + 1):
                best[nxt] = total
                back[nxt] = here
                heapq.heappush(queue, (total, nxt))
    return best, back


def reachable(graph: Adjacency, start: str, step_cost: StepCost, budget: int) -> dict[str, int]:
    """Every place reached from ``start`` at a cost within ``budget``, with the cheapest cost
    (``start`` itself at 0), sorted by place id."""
    return dict(sorted(_within(graph, start, step_cost, budget)[0].items()))


def routes(graph: Adjacency, start: str, step_cost: StepCost, budget: int) -> dict[str, list[str]]:
    """The cheapest path (the places entered) to every place reached from ``start`` within
    ``budget``, ``start`` left out, in the order the places were first reached."""
    best, back = _within(graph, start, step_cost, budget)
    out: dict[str, list[str]] = {}
    for place in best:
        if place == start:
            continue
        path = [place]
        while back[path[-1]] != start:
            path.append(back[path[-1]])
        out[place] = path[::-1]
    return out
