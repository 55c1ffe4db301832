"""Supply lines on a map of places (places.PlaceMap): which places a line reaches a source from,
and the line itself.

A line is a chain of adjacent places. What may carry it is the game's: a set of places it may not
enter (enemy-held, all-sea, ...) and, for each border with a feature (a river, a strait, a lake
side), whether the line crosses it; a border without a feature never stops a line. Or, for lines
with a length or a cost, a step-cost function as for paths (paths.StepCost).

``supplied`` searches the whole map; ``Reach`` keeps the same answer as the places that block lines
change (a unit moves, retreats or is eliminated), redoing only the part of the map the change
touches, so that a game asking after every move and attack does not pay the whole map each time.
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


class Reach:
    """The places from which a line reaches a source, as ``supplied`` finds them, kept up to date
    as the closed places change (``update``): the same answer as a new whole-map search with the
    closed places of the moment, for the same map, sources, border rule and ends.

    It keeps the search's tree (each reached place and the one the line came from): closing a place
    takes off its branch of the tree, which is then grown again from the rest, and opening one grows
    the tree from it; the places no change touches are not visited. ``border_open`` must answer the
    same for the same arguments for as long as the Reach is used."""

    __slots__ = ("_links", "_open", "_ends", "_sources", "closed", "_parent", "_kids", "_frozen")

    def __init__(self, m: PlaceMap, sources: Iterable[str], closed: Collection[str], border_open: BorderOpen,
                 ends: Collection[str] = ()) -> None:
        self._links = m.links()
        self._open = border_open
        self._ends = frozenset(ends)
        self._sources = frozenset(sources)
        self.closed: set[str] = set(closed)
        self._parent: dict[str, str | None] = {}  # each reached place: the place the line came from (None: a source)
        self._kids: dict[str, list[str]] = {}  # the places whose line came from each place
        self._frozen: frozenset[str] | None = None
        self._grow([s for s in sorted(self._sources) if self._root(s)])

    def __contains__(self, place: object) -> bool:
        return place in self._parent

    def __len__(self) -> int:
        return len(self._parent)

    def places(self) -> frozenset[str]:
        """Every place reached, as ``supplied`` returns them."""
        if self._frozen is None:
            self._frozen = frozenset(self._parent)
        return self._frozen

    def _root(self, place: str) -> bool:
        """A source not closed starts a line (it reaches itself)."""
        if place in self.closed or place not in self._sources or place in self._parent:
            return False
        self._parent[place] = None
        return True

    def _link(self, place: str, here: str) -> None:
        self._parent[place] = here
        kids = self._kids.get(here)
        if kids is None:
            self._kids[here] = [place]
        else:
            kids.append(place)

    def _grow(self, frontier: list[str]) -> None:
        """Extend the tree outward from the reached places of ``frontier``, into any place not yet
        reached, not closed, across a border a line may cross, never through an end."""
        links, ends, closed, parent, border_open = self._links, self._ends, self.closed, self._parent, self._open
        queue = deque(frontier)
        pop, push, link = queue.popleft, queue.append, self._link
        while queue:
            here = pop()
            if here in ends:
                continue
            plain, featured = links[here]
            for n in plain:
                if n not in parent and n not in closed:
                    link(n, here)
                    push(n)
            for n, feats in featured:
                if n not in parent and n not in closed and border_open(here, n, feats):
                    link(n, here)
                    push(n)

    def _fed_from(self, place: str) -> str | None:
        """A reached place from which a line enters ``place`` in one step, or None."""
        parent, ends = self._parent, self._ends
        plain, featured = self._links[place]
        for n in plain:
            if n in parent and n not in ends:
                return n
        for n, feats in featured:
            if n in parent and n not in ends and self._open(n, place, feats):
                return n
        return None

    def update(self, close: Iterable[str] = (), reopen: Iterable[str] = ()) -> None:
        """The places of ``close`` are closed from now on, those of ``reopen`` open (a place in both
        ends open). Every place whose line ran through a newly closed place is taken off, then
        the tree grows again from the reached places around what was taken off and what opened."""
        close, reopen = set(close), set(reopen)
        close -= reopen
        close -= self.closed
        reopen &= self.closed
        if not close and not reopen:
            return
        self._frozen = None
        self.closed |= close
        self.closed -= reopen
        parent, kids = self._parent, self._kids
        cut: list[str] = []  # the branches of the closed places, each place once
        for c in close:
            if c not in parent:
                continue
            up = parent[c]
            if up is not None:
                kids[up].remove(c)
            stack = [c]
            while stack:
                x = stack.pop()
                del parent[x]
                cut.append(x)
                stack.extend(kids.pop(x, ()))
        frontier: list[str] = []
        for x in (*cut, *sorted(reopen)):
            if x in self.closed or x in parent:
                continue
            if self._root(x):
                frontier.append(x)
                continue
            up = self._fed_from(x)
            if up is not None:
                self._link(x, up)
                frontier.append(x)
        self._grow(frontier)


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
