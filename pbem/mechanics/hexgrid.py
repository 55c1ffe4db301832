"""Hex geometry for maps numbered XXYY with a map letter (``2817N``): columns, rows, neighbours,
distance, hexsides.

Columns are vertical and numbered west to east; rows are numbered north to south. Layout "odd-q":
an even column's neighbours in the adjacent columns are rows r-1 and r, an odd column's rows r and
r+1. Two map sheets (N and S) are joined along one row: the South sheet's row 00 *is* the North
sheet's last row, so a hex on that row has two ids; the North id is canonical and the South id is
accepted as an alias. places.HexGrid makes such a grid a map of places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_ID = re.compile(r"(\d{2})(\d{2})([NS])", re.ASCII)  # ASCII digits only: no full-width look-alikes
_SHEET_ID = re.compile(r"(\d{2})(\d{2})", re.ASCII)  # a one-sheet map's ids: XXYY

# Direction order used everywhere (a game's rules that number the six neighbours use this order).
DIRECTIONS = ("N", "NE", "SE", "S", "SW", "NW")
_EVEN = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))
_ODD = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))


@dataclass(frozen=True, slots=True, order=True)
class Hex:
    """A hex by column and global row (North rows first, then South rows continuing)."""

    col: int
    row: int


@dataclass(frozen=True, slots=True)
class Numbering:
    """Converts between printed hex ids and grid positions for a two-map (N/S) board, or for a
    one-sheet map (``sheets=False``) whose ids are ``XXYY`` with no map letter (``0712``)."""

    north_last_row: int = 26
    sheets: bool = True

    def parse(self, hex_id: str) -> Hex:
        """``2817N`` (or ``2817`` on a one-sheet map) -> Hex; ValueError for anything that is not a hex id."""
        if not self.sheets:
            m1 = _SHEET_ID.fullmatch(hex_id)
            if not m1:
                raise ValueError(f"'{hex_id}' is not a hex id (4 digits, e.g. 0712)")
            return Hex(int(m1.group(1)), int(m1.group(2)))
        m = _ID.fullmatch(hex_id)
        if not m:
            raise ValueError(f"'{hex_id}' is not a hex id (4 digits and N or S, e.g. 2817N)")
        col, row, half = int(m.group(1)), int(m.group(2)), m.group(3)
        if half == "N":
            if row > self.north_last_row:
                raise ValueError(f"'{hex_id}': the North map has rows 00-{self.north_last_row:02d}")
            return Hex(col, row)
        return Hex(col, self.north_last_row + row)

    def format(self, h: Hex) -> str:
        if not self.sheets:
            return f"{h.col:02d}{h.row:02d}"
        if h.row <= self.north_last_row:
            return f"{h.col:02d}{h.row:02d}N"
        return f"{h.col:02d}{h.row - self.north_last_row:02d}S"

    def canonical(self, hex_id: str) -> str:
        """The canonical id of a hex (a South row-00 id becomes the North id of the shared row)."""
        return self.format(self.parse(hex_id))


def neighbours(h: Hex) -> list[Hex]:
    """The six neighbours in DIRECTIONS order."""
    deltas = _ODD if h.col % 2 else _EVEN
    return [Hex(h.col + dc, h.row + dr) for dc, dr in deltas]


def direction(a: Hex, b: Hex) -> int | None:
    """Index in DIRECTIONS of neighbour ``b`` seen from ``a``; None if not adjacent."""
    for i, n in enumerate(neighbours(a)):
        if n == b:
            return i
    return None


def adjacent(a: Hex, b: Hex) -> bool:
    return direction(a, b) is not None


def _axial(h: Hex) -> tuple[int, int]:
    return h.col, h.row - (h.col - (h.col & 1)) // 2


def distance(a: Hex, b: Hex) -> int:
    """Number of hex steps between two hexes."""
    aq, ar = _axial(a)
    bq, br = _axial(b)
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hexside_key(a: str, b: str) -> str:
    """The key of the hexside between hex ids ``a`` and ``b``: the lower id first."""
    return f"{a}-{b}" if a < b else f"{b}-{a}"


def hexside_corners(a: Hex, b: Hex) -> tuple[frozenset[Hex], frozenset[Hex]]:
    """The two corners of the hexside between adjacent hexes ``a`` and ``b``, each named by the
    three hexes that meet there (``a``, ``b`` and one hex next to both)."""
    common = sorted(set(neighbours(a)) & set(neighbours(b)))
    if len(common) != 2:
        raise ValueError(f"{a} and {b} are not adjacent")
    return frozenset({a, b, common[0]}), frozenset({a, b, common[1]})


def hexside_lines(sides: Iterable[tuple[Hex, Hex]]) -> list[list[tuple[Hex, Hex]]]:
    """Hexsides joined end to end, corner to corner, into lines (a border, a river line), each
    listed in order from one of its ends; a closed line starts at its smallest hexside. Where
    more than two hexsides meet at a corner, the smallest continues the line and the others start
    lines of their own. Lines are sorted by their first hexside: the result is deterministic."""
    norm = sorted({(min(a, b), max(a, b)) for a, b in sides})
    at_corner: dict[frozenset[Hex], list[tuple[Hex, Hex]]] = {}
    corners = {s: hexside_corners(*s) for s in norm}
    for s in norm:
        for c in corners[s]:
            at_corner.setdefault(c, []).append(s)

    def nexts(s: tuple[Hex, Hex], seen: set[tuple[Hex, Hex]]) -> list[tuple[Hex, Hex]]:
        return sorted(t for c in corners[s] for t in at_corner[c] if t != s and t not in seen)

    seen: set[tuple[Hex, Hex]] = set()
    lines: list[list[tuple[Hex, Hex]]] = []
    ends = [s for s in norm if len(nexts(s, set())) <= 1]
    for start in [*ends, *norm]:
        if start in seen:
            continue
        line = [start]
        seen.add(start)
        while True:
            more = nexts(line[-1], seen)
            if not more:
                break
            line.append(more[0])
            seen.add(more[0])
        lines.append(line)
    return sorted(lines)
