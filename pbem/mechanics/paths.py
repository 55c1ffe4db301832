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
