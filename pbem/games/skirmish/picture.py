"""Skirmish pictures (SVG): the area map (pbem.view.areamap) with each side's units, and for a
turn its moves, attacks and advances.

Structure, on top of the layers of pbem.view.places: ``<g id="units">`` one ``<g class="units SIDE"
data-place="AREA">`` per area holding units (a marker in the side's colour, the unit ids beside
it); ``<g id="control">`` a small ring in the controller's colour on each controlled town; turn
pictures add ``<g id="turn">``: ``class="move"`` arrows along each move's path, ``class="attack"``
arrows from each attacker's area to the target with the result, ``class="advance"`` arrows.
Deterministic: the same state and events give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.engine.model import Event
from pbem.view.areamap import AreaDrawing, area_map_svg
from pbem.view.places import NODE
from pbem.view.svg import el, group, points

from . import rules

COLOUR = {"red": "#c0392b", "blue": "#1f5fa8", "green": "#2e8b3d"}
ARROW = {"move": "#333333", "attack": "#d91e18", "advance": "#7c3aed"}


def _units_layer(drawing: AreaDrawing, ctx: rules.Ctx) -> str:
    out = []
    for area in ctx.sc.map.place_ids():
        units = ctx.in_area(area)
        if not units:
            continue
        side = ctx.side_of(units[0])
        x, y = drawing.centre(area)
        text = " ".join(units)
        w = 6.0 * len(text) + 8
        out.append(group([el("rect", x=x - w / 2, y=y - NODE * 1.9, width=w, height=13, rx=3, fill=COLOUR[side], stroke="#fff"),
                          el("text", text, x=x, y=y - NODE * 1.9 + 10, font_size=9, text_anchor="middle",
                             fill="#fff", font_weight="bold")],
                         class_=f"units {side}", data_place=area))
    return group(out, id="units")


def _control_layer(drawing: AreaDrawing, ctx: rules.Ctx) -> str:
    out = []
    for area in ctx.sc.towns():
        owner = ctx.control.get(area)
        if owner:
            x, y = drawing.centre(area)
            out.append(el("circle", class_=f"control {owner}", data_place=area, cx=x, cy=y, r=NODE + 4, fill="none",
                          stroke=COLOUR[owner], stroke_width=3))
    return group(out, id="control")


def _arrow(kind: str, a: tuple[float, float], b: tuple[float, float], offset: float = 0.0, **kw: object) -> str:
    """An arrow from ``a`` to the edge of the node at ``b``, shifted sideways by ``offset``."""
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    d = max((dx * dx + dy * dy) ** 0.5, 1.0)
    ox, oy = -dy / d * offset, dx / d * offset
    end = (x2 - dx / d * NODE + ox, y2 - dy / d * NODE + oy)
    return el("polyline", class_=kind, points=points([(x1 + ox, y1 + oy), end]), fill="none", stroke=ARROW[kind],
              stroke_width=3, marker_end=f"url(#arrow-{kind})", **kw)


def _turn_layer(drawing: AreaDrawing, events: Sequence[Event], before: dict[str, str]) -> list[str]:
    defs = "<defs>" + "".join(
        f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>' for k, c in ARROW.items()) + "</defs>"
    out = []
    for e in events:
        d = e.data
        if e.kind == "move":
            path = [drawing.centre(a) for a in d["path"]]
            for a, b in zip(path, path[1:], strict=False):
                out.append(_arrow("move", a, b, data_unit=d["unit"]))
        elif e.kind == "attack":
            sources = sorted({before.get(u, "") for u in d["attackers"]} - {""})
            for s in sources:
                out.append(_arrow("attack", drawing.centre(s), drawing.centre(d["target"]), data_target=d["target"]))
            x, y = drawing.centre(d["target"])
            out.append(el("text", f"{d['result']} ({d['die']})", class_="result", x=x, y=y + NODE + 22, font_size=10,
                          text_anchor="middle", fill=ARROW["attack"], font_weight="bold"))
        elif e.kind == "advance":
            for s in sorted({before.get(u, "") for u in d["units"]} - {""}):
                out.append(_arrow("advance", drawing.centre(s), drawing.centre(d["target"]), 7.0, stroke_dasharray="6 3"))
    return [defs, group(out, id="turn")]


def position_svg(state: dict[str, Any], events: Sequence[Event] = (), title: str = "") -> str:
    """The map with the position of ``state`` (and, with ``events``, the turn that led to it)."""
    ctx = rules.context(state)
    heading = title or f"{ctx.sc.title}: game turn {ctx.turn}, {ctx.side}"
    where = _places_of(events)

    def layers(drawing: AreaDrawing) -> list[str]:
        out = [_control_layer(drawing, ctx), _units_layer(drawing, ctx)]
        if events:
            out += _turn_layer(drawing, events, where)
        return out

    return area_map_svg(ctx.sc.map, title=heading, layers=layers)


def _places_of(events: Sequence[Event]) -> dict[str, str]:
    """Where each unit was before it attacked or advanced: its attack's record of its attackers'
    areas, else its move's last area."""
    at: dict[str, str] = {}
    for e in events:
        if e.kind == "move":
            at[e.data["unit"]] = e.data["path"][-1]
        elif e.kind == "attack":
            for u, a in e.data.get("from", {}).items():
                at[u] = a
    return at


def turn_svg(state: dict[str, Any], events: Sequence[Event], title: str) -> str:
    return position_svg(state, events, title)

