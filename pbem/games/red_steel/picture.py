"""Red Steel pictures (SVG): the hex map (terrain, the Prut, rivers, bridges; roads drawn from
hex centre to hex centre, 5.61), each side's stacks, and for a turn its moves, combats and
bombardments.

Structure, on top of the layers of pbem.view.places: ``<g id="places">``, ``<g id="borders">``
(class ``border prut | river | bridge``), ``<g id="roads">`` (``class="road"`` / ``"main-road"``),
``<g id="names">``, ``<g id="units">`` one ``<g class="units SIDE" data-place="HEX">`` per hex
holding units; turn pictures add ``<g id="turn">``. Deterministic: the same state and events give
the same bytes.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.view.hexmap import HexDrawing, Layout
from pbem.view.places import borders_layer, names_layer, places_layer
from pbem.view.svg import document, el, group, points

from .context import Ctx, context

COLOUR = {"axis": "#5f6b73", "soviet": "#b0302a"}
FILL = {"clear": "#ece6c8", "woods": "#9fbf7f", "hills": "#cfae83", "marsh": "#a9cbbf"}
STROKES = {"prut": ("#1d5fa8", 6.0, ""), "river": ("#2f6fb7", 3.5, ""), "bridge": ("#222222", 2.0, "2 2")}
ROADS = {"road": ("#8a5a2b", 1.8, ""), "main-road": ("#b03a1a", 3.0, "")}
SIZE = 16.0


def _drawing(ctx: Ctx) -> tuple[HexDrawing, float, float]:
    grid = ctx.sc.map.grid
    hexes = [grid.grid_hex(h) for h in grid.place_ids()]
    col0, row0 = min(h.col for h in hexes), min(h.row for h in hexes)
    cols = max(h.col for h in hexes) - col0 + 1
    rows = max(h.row for h in hexes) - row0 + 1
    layout = Layout(SIZE, col0, row0, margin=8.0)
    w, h = layout.extent(cols, rows)
    return HexDrawing(grid, layout), w, h + 24


def _roads(drawing: HexDrawing, ctx: Ctx) -> str:
    out = []
    for b in ctx.sc.map.grid.borders():
        for f in sorted(b.features & set(ROADS)):
            colour, width, _ = ROADS[f]
            out.append(el("polyline", class_=f, data_border=f"{b.a} {b.b}",
                          points=points([drawing.centre(b.a), drawing.centre(b.b)]), fill="none", stroke=colour,
                          stroke_width=width, stroke_linecap="round"))
    return group(out, id="roads")


def _units(drawing: HexDrawing, ctx: Ctx) -> str:
    out = []
    for h in ctx.sc.map.grid.place_ids():
        us = ctx.units_in(h)
        if not us:
            continue
        side = ctx.side_of(us[0])
        x, y = drawing.centre(h)
        out.append(group([el("rect", x=x - 9, y=y - 9, width=18, height=18, rx=2, fill=COLOUR[side], stroke="#fff"),
                          el("text", str(len(us)), x=x, y=y + 4, font_size=10, text_anchor="middle", fill="#fff",
                             font_weight="bold"),
                          el("title", " ".join(us))],
                         class_=f"units {side}", data_place=h))
    return group(out, id="units")


def _map(ctx: Ctx, title: str, extra: list[str]) -> str:
    drawing, w, h = _drawing(ctx)
    m = ctx.sc.map.grid
    body = [places_layer(drawing, m, fill=lambda p: FILL.get(p.terrain, "#ddd")),
            borders_layer(drawing, m, strokes={**STROKES, **{k: ("none", 0.0, "") for k in ROADS}}),
            _roads(drawing, ctx), names_layer(drawing, m), _units(drawing, ctx), *extra,
            el("text", title, x=8, y=h - 8, font_size=12, fill="#222")]
    return document(w, h, body, title=title)


def position_svg(state: dict[str, Any]) -> str:
    ctx = context(state)
    c = state["clock"]
    return _map(ctx, f"{ctx.sc.title}: game turn {c['turn']} ({ctx.time.label}), {c['side']} {c['phase']}", [])


def turn_svg(state: dict[str, Any], events: list[Event], title: str) -> str:
    ctx = context(state)
    drawing, _, _ = _drawing(ctx)
    arrows = []
    for e in events:
        if e.kind == "move" and len(e.data.get("path", [])) >= 1:
            path = [e.data.get("from", e.data["path"][0]), *e.data["path"]]
            arrows.append(el("polyline", class_="move", points=points([drawing.centre(p) for p in path if ctx.sc.map.grid.place(p)]),
                             fill="none", stroke="#333", stroke_width=2))
    return _map(ctx, title, [group(arrows, id="turn")])

