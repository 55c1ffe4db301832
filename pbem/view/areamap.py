"""Pictures of an area map (pbem.mechanics.places.AreaMap), SVG: areas as polygons where the map
gives their outlines, else a diagram of nodes at the map's positions joined by their borders.

``area_map_svg`` draws the layers of view.places (structure and classes there); ``AreaDrawing`` says
where each place and border is drawn. Deterministic: the same map and stacks give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.mechanics.places import AreaMap, Place

from .places import (
    FEATURE_STROKE,
    NODE,
    Point,
    borders_layer,
    default_fill,
    links_layer,
    names_layer,
    places_layer,
    stacks_layer,
)
from .svg import document

MARGIN = 40.0


class AreaDrawing:
    """Where an area map's places are drawn: at their positions (else their outline's centroid),
    shifted by a margin; a border runs along the outline vertices two areas share, else from centre
    to centre."""

    __slots__ = ("m", "margin")

    def __init__(self, m: AreaMap[Any], margin: float = MARGIN) -> None:
        self.m = m
        self.margin = margin

    def _shift(self, p: tuple[int, int]) -> Point:
        return p[0] + self.margin, p[1] + self.margin

    def centre(self, place_id: str) -> Point:
        if place_id in self.m.positions:
            return self._shift(self.m.positions[place_id])
        shape = self.m.outlines.get(place_id)
        if shape:
            x = sum(p[0] for p in shape) / len(shape)
            y = sum(p[1] for p in shape) / len(shape)
            return x + self.margin, y + self.margin
        return self.margin, self.margin

    def outline(self, place_id: str) -> list[Point] | None:
        shape = self.m.outlines.get(place_id)
        return None if shape is None else [self._shift(p) for p in shape]

    def border(self, a: str, b: str) -> list[Point] | None:
        if self.m.border(a, b) is None:
            return None
        sa, sb = self.m.outlines.get(a), self.m.outlines.get(b)
        if sa and sb:
            shared = [p for p in sa if p in set(sb)]
            if len(shared) >= 2:
                return [self._shift(p) for p in shared]
        return [self.centre(a), self.centre(b)]

    def extent(self) -> tuple[float, float]:
        pts = [*self.m.positions.values(), *(p for shape in self.m.outlines.values() for p in shape)]
        if not pts:
            return 2 * self.margin, 2 * self.margin
        return max(p[0] for p in pts) + 2 * self.margin + NODE, max(p[1] for p in pts) + 2 * self.margin + NODE


def area_map_svg(m: AreaMap[Any], stacks: Mapping[str, Sequence[str]] | None = None, title: str = "",
                 fill: Callable[[Place], str] = default_fill,
                 strokes: Mapping[str, tuple[str, float, str]] = FEATURE_STROKE,
                 layers: Callable[[AreaDrawing], Sequence[str]] | None = None) -> str:
    """The whole map with the units in each place (``stacks``: place -> unit ids); ``layers``, given
    where each place is drawn, adds a game's own layers on top (its counters, a turn's arrows)."""
    drawing = AreaDrawing(m)
    w, h = drawing.extent()
    if m.outlines:  # a border is drawn over the areas it separates
        body = [places_layer(drawing, m, fill), borders_layer(drawing, m, strokes)]
    else:  # the links and their features under the nodes
        body = [links_layer(drawing, m), borders_layer(drawing, m, strokes), places_layer(drawing, m, fill)]
    body.append(names_layer(drawing, m))
    if stacks:
        body.append(stacks_layer(drawing, stacks))
    if layers is not None:
        body += layers(drawing)
    return document(w, h, body, title=title or m.title)
