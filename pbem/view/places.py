"""Pictures of a map of places (pbem.mechanics.places.PlaceMap): where each place and border is
drawn (PlaceDrawing: view.hexmap.HexDrawing for a hex grid, view.areamap.AreaDrawing for an area
map), and the layers any game can draw with it: places, borders, names and stacks.

Structure (ids and classes are part of the contract): ``<g id="links">`` one ``<line class="link">``
per border of a diagram (a map without outlines); ``<g id="places">`` one ``id="place-ID"`` shape
per place, ``class="place KIND TERRAIN"`` (a polygon where the map gives an outline, else a circle
for a land place and a rounded square for any other kind); ``<g id="borders">`` one ``<polyline
class="border FEATURE" data-border="A B">`` per feature of a border; ``<g id="names">``; ``<g
id="stacks">`` one ``<g class="stack" data-place="ID">`` per place with units: their count and ids.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

from pbem.mechanics.places import LAND, Place, PlaceMap

from .svg import el, group, points

Point = tuple[float, float]
NODE = 18.0  # the radius of a place drawn as a node


class PlaceDrawing(Protocol):
    """Where a map's places are drawn, by place id."""

    def centre(self, place_id: str) -> Point: ...

    def outline(self, place_id: str) -> list[Point] | None:
        """The polygon of the place, or None where it is drawn as a node."""
        ...

    def border(self, a: str, b: str) -> list[Point] | None:
        """The line of the border between two adjacent places, or None."""
        ...


# Default fills by kind and terrain; a game passes its own ``fill``.
KIND_FILL = {"sea": "#8fb9dc", "lake": "#a9d3ec", "box": "#f2efe2"}
TERRAIN_FILL = {"clear": "#ece6c8", "forest": "#9fbf7f", "rough": "#cfae83", "hills": "#cfae83", "mountain": "#b59a7a",
                "swamp": "#a9cbbf", "fortress": "#d9d2c0"}
# Default strokes of border features: (colour, width, dash).
FEATURE_STROKE = {"river": ("#2f6fb7", 4.0, ""), "strait": ("#178c8c", 5.0, "3 3"), "coast": ("#5b7fa6", 1.5, "2 3"),
                  "road": ("#8a5a2b", 2.5, ""), "rail": ("#333333", 2.0, "6 2"), "fortress": ("#555555", 2.0, "1 2"),
                  "air-route": ("#4a4a4a", 1.5, "1 4")}
OTHER_STROKE = ("#7a2a6e", 2.5, "7 4")


def default_fill(p: Place) -> str:
    return KIND_FILL.get(p.kind) or TERRAIN_FILL.get(p.terrain, "#e8e4d4")


def links_layer(drawing: PlaceDrawing, m: PlaceMap) -> str:
    """Every border as a thin line between the centres of its places (for a diagram)."""
    out = []
    for a in m.place_ids():
        for b in m.neighbours(a):
            if a < b:
                (x1, y1), (x2, y2) = drawing.centre(a), drawing.centre(b)
                out.append(el("line", class_="link", data_border=f"{a} {b}", x1=x1, y1=y1, x2=x2, y2=y2,
                              stroke="#8a8470", stroke_width=1.2))
    return group(out, id="links")


def places_layer(drawing: PlaceDrawing, m: PlaceMap, fill: Callable[[Place], str] = default_fill) -> str:
    out = []
    for pid in m.place_ids():
        p = m.place(pid)
        if p is None:
            continue
        cls = f"place {p.kind}" + (f" {p.terrain}" if p.terrain else "")
        shape = drawing.outline(pid)
        if shape is not None:
            out.append(el("polygon", id=f"place-{pid}", class_=cls, points=points(shape), fill=fill(p), stroke="#8a8470",
                          stroke_width=1.0))
            continue
        x, y = drawing.centre(pid)
        r = NODE * (0.6 if p.within else 1.0)
        if p.kind == LAND:
            out.append(el("circle", id=f"place-{pid}", class_=cls, cx=x, cy=y, r=r, fill=fill(p), stroke="#5d584a",
                          stroke_width=1.0))
        else:
            out.append(el("rect", id=f"place-{pid}", class_=cls, x=x - r, y=y - r, width=2 * r, height=2 * r, rx=5,
                          fill=fill(p), stroke="#5d584a", stroke_width=1.0))
    return group(out, id="places")


def borders_layer(drawing: PlaceDrawing, m: PlaceMap,
                  strokes: Mapping[str, tuple[str, float, str]] = FEATURE_STROKE,
                  only: Collection[str] | None = None) -> str:
    """Each feature of each border (or only those of ``only``: a game draws the others itself), in
    the stroke the game gives it (else OTHER_STROKE)."""
    out = []
    for border in m.borders():
        feats = border.features if only is None else border.features & frozenset(only)
        if not feats:
            continue
        line = drawing.border(border.a, border.b)
        if line is None:
            continue
        for f in sorted(feats):
            colour, width, dash = strokes.get(f, OTHER_STROKE)
            out.append(el("polyline", class_=f"border {f}", data_border=f"{border.a} {border.b}", points=points(line),
                          fill="none", stroke=colour, stroke_width=width, stroke_dasharray=dash or None,
                          stroke_linecap="round"))
    return group(out, id="borders")


def names_layer(drawing: PlaceDrawing, m: PlaceMap) -> str:
    out = []
    for pid in m.place_ids():
        p = m.place(pid)
        if p is not None and p.name:
            x, y = drawing.centre(pid)
            out.append(el("text", p.name, x=x, y=y + NODE + 11, font_size=10, text_anchor="middle", fill="#222"))
    return group(out, id="names")


def stacks_layer(drawing: PlaceDrawing, stacks: Mapping[str, Sequence[str]]) -> str:
    """The units in each place: a marker with their count, and their ids beside it."""
    out = []
    for pid, units in sorted(stacks.items()):
        if not units:
            continue
        x, y = drawing.centre(pid)
        out.append(group([el("circle", cx=x + NODE * 0.8, cy=y - NODE * 0.8, r=8, fill="#1f4e8c", stroke="#fff"),
                          el("text", str(len(units)), x=x + NODE * 0.8, y=y - NODE * 0.8 + 3.5, font_size=9,
                             text_anchor="middle", fill="#fff", font_weight="bold"),
                          el("text", " ".join(units), x=x + NODE * 0.8 + 11, y=y - NODE * 0.8 + 3.5, font_size=8,
                             fill="#1f4e8c")],
                         class_="stack", data_place=pid))
    return group(out, id="stacks")
