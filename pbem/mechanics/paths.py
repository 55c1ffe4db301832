"""Path costs on a graph of hexes or areas: the cheapest path under a cost function (Dijkstra).

Used where a rule or a message needs the cheapest way from one place to another: a movement
error's hint today; supply tracing and retreats toward supply are the same search.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable


def cheapest(
    start: str,
    goal: str,
    neighbours: Callable[[str], Iterable[str]],
    step_cost: Callable[[str, str], int | None],
    limit: int | None = None,
) -> tuple[int, list[str]] | None:
    """The cheapest path from ``start`` to ``goal``: (cost, hexes entered), or None.

    ``step_cost(a, b)`` is the cost of entering ``b`` from ``a``, or None when that step is
    prohibited. Ties are broken by the hex ids, so the answer is deterministic. ``limit`` stops
    the search at that cost.
    """
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
        for nxt in sorted(neighbours(here)):
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
    goals: Iterable[str],
    neighbours: Callable[[str], Iterable[str]],
    step_cost: Callable[[str, str], int | None],
    wanted: Iterable[str],
) -> dict[str, int]:
    """The cost of the cheapest path from each place of ``wanted`` to the nearest of ``goals``, from
    one search backward from the goals (Dijkstra on the steps reversed): what ``cheapest`` gives from
    each place, with every goal entered at no further cost. ``step_cost(a, b)`` is the cost of
    entering ``b`` from ``a`` (None: prohibited) and ``neighbours`` must be symmetric. A place with
    no path is left out. The search stops once every wanted place is settled."""
    best: dict[str, int] = {g: 0 for g in goals}
    queue = sorted((0, g) for g in best)
    todo, done = set(wanted), set[str]()
    while queue and not todo <= done:
        cost, here = heapq.heappop(queue)
        if here in done:
            continue
        done.add(here)
        for prev in sorted(neighbours(here)):
            if prev in done:
                continue
            step = step_cost(prev, here)
            if step is not None and cost + step < best.get(prev, cost + step + 1):
                best[prev] = cost + step
                heapq.heappush(queue, (cost + step, prev))
    return {p: best[p] for p in todo if p in done}
