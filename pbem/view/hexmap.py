"""Hex grid to pixels for vertical columns (odd-q layout, flat-topped hexes).

Odd columns sit half a hex lower than even ones, as such a numbering implies. Corners are
numbered 0-5 clockwise from the right (y grows downwards); the edge towards neighbour direction d
(pbem.mechanics.hexgrid.DIRECTIONS: N, NE, SE, S, SW, NW) joins corners (d+4)%6 and (d+5)%6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pbem.mechanics.hexgrid import Hex
from pbem.mechanics.places import HexGrid

SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True, slots=True)
class Layout:
    size: float  # corner radius in pixels
    col0: int  # first column drawn
    row0: int  # first global row drawn
    margin: float = 0.0

    def centre(self, h: Hex) -> tuple[float, float]:
        x = self.margin + self.size + 1.5 * self.size * (h.col - self.col0)
        y = self.margin + SQRT3 * self.size * (h.row - self.row0 + 0.5 * (h.col % 2) + 0.5)
        return x, y

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        cx, cy = self.centre(h)
        return [(cx + self.size * math.cos(math.radians(60 * k)), cy + self.size * math.sin(math.radians(60 * k)))
                for k in range(6)]

    def edge(self, h: Hex, d: int) -> tuple[tuple[float, float], tuple[float, float]]:
        c = self.corners(h)
        return c[(d + 4) % 6], c[(d + 5) % 6]

    def extent(self, cols: int, rows: int) -> tuple[float, float]:
        """Width and height of a drawing of ``cols`` columns and ``rows`` rows."""
        return (2 * self.margin + self.size * (1.5 * cols + 0.5),
                2 * self.margin + SQRT3 * self.size * (rows + 0.5))


class HexDrawing:
    """A hex grid of places drawn with a Layout: where each hex is, by its id (view.places.PlaceDrawing)."""

    __slots__ = ("grid", "layout")

    def __init__(self, grid: HexGrid[Any], layout: Layout) -> None:
        self.grid = grid
        self.layout = layout

    def centre(self, place_id: str) -> tuple[float, float]:
        return self.layout.centre(self.grid.grid_hex(place_id))

    def outline(self, place_id: str) -> list[tuple[float, float]]:
        return self.layout.corners(self.grid.grid_hex(place_id))

    def border(self, a: str, b: str) -> list[tuple[float, float]] | None:
        """The hexside between two adjacent hexes, from ``a``'s corners; None when they are not adjacent."""
        d = self.grid.direction(a, b)
        if d is None:
            return None
        return list(self.layout.edge(self.grid.grid_hex(a), d))
