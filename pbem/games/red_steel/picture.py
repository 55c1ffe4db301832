"""Red Steel pictures (SVG): the position on the hex map, and the picture of one turn.

What is drawn: the terrain (2.3, the TEC's rows), the Prut and the rivers on their hexsides, roads
and main roads from hex centre to hex centre (5.61), printed bridges on their hexsides, towns,
cities and Kishinev (17.6) with their VP; every stack as its top counter in the colours of 2.2
(German grey, Romanian yellow, Ukrainian blue, Soviet red-brown, NKVD dark red, militia white)
with its markers and the number of units in the hex; entrenchments (17.2) and bridges placed or
being built (17.4); the ZOC (4.1) of the side not moving; each HQ's road to its supply edge (7.21,
7.41); the Soviet Activation Track (15.1); a legend.

Structure (ids and classes are part of the contract; tests rely on them). The document holds a
``<g id="title">`` band, the map in ``<g id="map">`` (shifted below the title), then the
``<g id="activation">`` panel and the ``<g id="legend">``. In the map, bottom to top:

- ``<g id="places">``, ``<g id="borders">`` (the Prut and rivers, ``class="border prut|river"``):
  the shared layers of pbem.view.places; ``<g id="hexids">`` the hex numbers (``class="hexid"``);
- ``<g id="roads">``: ``<polyline class="road|main-road" data-border="A B">`` centre to centre;
- ``<g id="towns">``: ``<g class="town [city] [kishinev]" data-place="HEX">`` with the name (and VP);
- ``<g id="works">``: ``<polygon class="entrenchment building|done SIDE" data-place="HEX">``;
- ``<g id="zoc" class="zoc SIDE">``: ``<polygon class="zoc SIDE" data-place="HEX">`` hatched, the ZOC of
  the side not moving (4.1, 4.2: never across the Prut);
- ``<g id="supply">``: ``<polyline class="hq-route SIDE" data-unit="HQ">`` each HQ's road to its edge
  (a ``<circle class="hq-route SIDE">`` when it stands on that edge), or ``<circle class="hq-cut SIDE"
  data-unit="HQ">`` where it has none (7.21, 7.41);
- ``<g id="units">``: one ``<g class="units SIDE" data-place="HEX" data-units="ID ...">`` per hex
  holding units (every unit on the map once, top counter first), holding the top counter ``<g
  class="counter NAT TYPE" data-unit="ID">`` (its id without the nationality prefix, its size and
  type, its current values: attack-defense-MA, or support attack-defense and range for deployed
  artillery) with its markers, each ``class="marker KIND ..."``: ``status disrupted`` (d, 13.1),
  ``status demoralized`` (Z, 13.2), ``supply oos`` / ``supply isolated`` (7.6, 7.8), ``mode towed`` /
  ``mode deployed`` (11.1), ``ammo`` (``data-ammo``, 11.23), ``steps`` (``data-lost``, 17.1); and
  ``<g class="count">`` with the number of units when there are more than one;
- ``<g id="bridges">`` (above the counters, so that none hides): ``<g class="bridge printed|placed|building"
  data-border="A B">`` on the hexside (5.54, 17.41);
- ``<g id="turn">`` (turn pictures only): ``class="move"`` arrows along paths (5.1),
  ``class="attack"`` arrows from each attacking hex to the target and ``<g class="combat-result"
  data-place="HEX">`` with the odds and result (9.1-9.2), ``class="support attack|defense"`` arrows
  from artillery to the combat (9.8, 11.3), ``class="bombard"`` arrows from artillery and ``class="air"``
  arrows from the sky (8.2, 16.1) with ``class="bombard-result"``, ``class="retreat"`` (9.4) and
  ``class="advance"`` (9.5) arrows.

The activation panel holds one ``<g class="box [drawn]" data-box="N">`` per box of the track, with
its printed number and the formation drawn into it this turn (position.activation.track).

Deterministic: iteration in sorted order, numbers written with one decimal (pbem.view.svg): the
same state and events give the same bytes.
"""

from __future__ import annotations

import math
from typing import Any

from pbem.engine.model import Event
from pbem.view.hexmap import SQRT3, HexDrawing, Layout
from pbem.view.places import borders_layer, places_layer
from pbem.view.svg import arrow_defs, document, el, group, points

from . import status
from .context import DEMORALIZED, DISRUPTED, ISOLATED, OOS, Ctx, context, other
from .data import AXIS, SOVIET, UnitSpec

SIZE = 32.0  # hex corner radius: a counter 38 px wide fits, its id readable at 100 %
MARGIN = 6.0
TITLE_H = 26.0
CW, CH = 38.0, 32.0  # a counter's width and height
Point = tuple[float, float]

FILL = {"clear": "#ece6c8", "woods": "#9fbf7f", "hills": "#cfae83", "marsh": "#a9cbbf"}
STROKES = {"prut": ("#1d5fa8", 6.0, ""), "river": ("#3a7cc4", 3.0, "")}
ROADS = {"main-road": ("#b03a1a", 3.2), "road": ("#8a5a2b", 1.8)}
SIDE_INK = {AXIS: "#3b4046", SOVIET: "#8b2a1c"}
# 2.2: the counters' colours (background, print)
NAT_COLOURS = {"german": ("#9a9c94", "#111111"), "romanian": ("#e9cf5c", "#111111"), "ukrainian": ("#7d9fd3", "#111111"),
               "soviet": ("#9b4a2c", "#ffffff")}
NKVD = ("#5e0f14", "#ffffff")
MILITIA = ("#f8f6ee", "#8b2a1c")
TYPE_ABBR = {"infantry": "inf", "light-infantry": "lt inf", "engineer": "eng", "bridging-engineer": "bridge",
             "machine-gun": "mg", "cavalry": "cav", "recon": "recon", "tank": "tank", "anti-tank": "AT",
             "anti-aircraft": "AA", "artillery": "art", "hq": "HQ", "militia": "militia", "border-guard": "border",
             "mountain-infantry": "mtn", "motorcycle": "mcycle", "monitor": "monitor"}
SIZE_MARK = {"company": "I", "battalion": "II", "regiment": "III", "hq": ""}
ARROWS = {"move": "#1d4ed8", "attack": "#d91e18", "support": "#e07b00", "bombard": "#b45309", "air": "#6d28d9",
          "retreat": "#0f766e", "advance": "#7c3aed"}
STYLE = (".hexid{font-size:6.5px;fill:#77715f;text-anchor:middle}"
         ".town text{font-size:8.5px;font-weight:bold;text-anchor:middle;fill:#1a1a1a;"
         "paint-order:stroke;stroke:#fffdf3;stroke-width:2.4px}"
         ".counter text,.marker text,.count text,.box text,.combat-result text,.bombard-result text{text-anchor:middle}"
         ".legend text,#activation text.caption{font-size:9.5px}")


def _width(text: str, size: float) -> float:
    """A generous estimate of the width of ``text`` in DejaVu Sans at ``size`` px."""
    return 0.62 * size * len(text)


def counter_colours(spec: UnitSpec) -> tuple[str, str]:
    """2.2: the background and print colours of a counter."""
    if spec.nkvd:
        return NKVD
    if spec.type == "militia":
        return MILITIA
    return NAT_COLOURS.get(spec.nat, ("#cccccc", "#111111"))


def short_label(u: str) -> str:
    """The id without its nationality prefix ("G-I/1" -> "I/1"), the colour telling the nationality."""
    head, sep, rest = u.partition("-")
    return rest if sep and len(head) == 1 and rest else u


def _fitted(text: str, x: float, y: float, size: float, room: float, **kw: object) -> str:
    """A text centred at x that never overflows ``room`` px (squeezed with textLength when long)."""
    fit = _width(text, size) > room
    return el("text", text, x=x, y=y, font_size=size, textLength=room if fit else None,
              lengthAdjust="spacingAndGlyphs" if fit else None, **kw)


class Picture:
    """The map of a context's scenario and the position in it."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        grid = ctx.sc.map.grid
        self.grid = grid
        hexes = [grid.grid_hex(h) for h in grid.place_ids()]
        col0, row0 = min(h.col for h in hexes), min(h.row for h in hexes)
        cols = max(h.col for h in hexes) - col0 + 1
        rows = max(h.row for h in hexes) - row0 + 1
        self.layout = Layout(SIZE, col0, row0, margin=MARGIN)
        self.drawing = HexDrawing(grid, self.layout)
        self.map_w, self.map_h = self.layout.extent(cols, rows)
        self.width = max(self.map_w, 480.0)

    def centre(self, h: str) -> Point:
        return self.drawing.centre(h)

    def on_map(self, h: Any) -> bool:
        return isinstance(h, str) and self.grid.place(h) is not None

    # --- the map ---------------------------------------------------------------------------------
    def hexids(self) -> str:
        out = []
        for h in self.grid.place_ids():
            x, y = self.centre(h)
            out.append(el("text", h, x=x, y=y - SIZE * SQRT3 / 2 + 7.5, class_="hexid"))
        return group(out, id="hexids")

    def roads(self) -> str:
        """5.61: a road runs from hex centre to hex centre across a hexside marked road or main-road."""
        out = []
        for kind, (colour, width) in ROADS.items():
            for b in self.grid.borders():
                if kind in b.features:
                    out.append(el("polyline", class_=kind, data_border=f"{b.a} {b.b}",
                                  points=points([self.centre(b.a), self.centre(b.b)]), fill="none", stroke=colour,
                                  stroke_width=width, stroke_linecap="round"))
        return group(out, id="roads")

    def _bridge(self, a: str, b: str, state: str, colour: str) -> str:
        """A bridge: two short rails across the hexside between ``a`` and ``b``, along the crossing."""
        (ax, ay), (bx, by) = self.centre(a), self.centre(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        d = math.hypot(bx - ax, by - ay) or 1.0
        ux, uy = (bx - ax) / d, (by - ay) / d  # along the crossing
        px, py = -uy, ux  # along the hexside
        half, gap = SIZE * 0.3, 3.5
        rails = [el("line", x1=mx - ux * half + px * s, y1=my - uy * half + py * s, x2=mx + ux * half + px * s,
                    y2=my + uy * half + py * s, stroke=colour, stroke_width=2.2,
                    stroke_dasharray="3 2" if state == "building" else None) for s in (-gap, gap)]
        deck = el("polygon", points=points([(mx - ux * half + px * gap, my - uy * half + py * gap),
                                            (mx + ux * half + px * gap, my + uy * half + py * gap),
                                            (mx + ux * half - px * gap, my + uy * half - py * gap),
                                            (mx - ux * half - px * gap, my - uy * half - py * gap)]),
                  fill="#f4efe0" if state != "building" else "none", stroke="none")
        return group([deck, *rails], class_=f"bridge {state}", data_border=f"{a} {b}")

    def bridges(self) -> str:
        """Printed bridges (5.54, 7.5) and those placed or being built by engineers (17.41-17.44)."""
        out = []
        for border in self.grid.borders():
            if "bridge" in border.features:
                out.append(self._bridge(border.a, border.b, "printed", "#333333"))
        for key, br in sorted(self.ctx.pos.get("bridges", {}).items()):
            a, _, b = str(key).partition("-")
            if self.on_map(a) and self.on_map(b):
                state = "building" if br.get("state") == "building" else "placed"
                out.append(self._bridge(a, b, state, SIDE_INK.get(str(br.get("side", "")), "#333333")))
        return group(out, id="bridges")

    def towns(self) -> str:
        """Towns and cities with their names and VP; Kishinev (17.6) marked with a star."""
        out = []
        for h in self.grid.place_ids():
            p = self.ctx.sc.map.hex(h)
            if not p.name:
                continue
            x, y = self.centre(h)
            ty = y + SIZE * 0.78
            parts = []
            if p.city:
                parts.append(el("rect", x=x - SIZE * 0.8, y=ty - 8.5, width=SIZE * 1.6, height=11, rx=2, fill="#d9c9b0",
                                stroke="#5d4a33", stroke_width=0.6))
            parts.append(el("text", ("★ " if p.kishinev else "") + p.name + (f" ({p.vp})" if p.vp else ""), x=x, y=ty))
            cls = "town" + (" city" if p.city else "") + (" kishinev" if p.kishinev else "")
            out.append(group(parts, class_=cls, data_place=h))
        return group(out, id="towns")

    def works(self) -> str:
        """17.2: an entrenchment, a ring of works inside its hex (dashed while being built)."""
        out = []
        for h, e in sorted(self.ctx.pos.get("entrenchments", {}).items()):
            if not self.on_map(h):
                continue
            cx, cy = self.centre(h)
            ring = [(cx + (x - cx) * 0.86, cy + (y - cy) * 0.86) for x, y in self.drawing.outline(h)]
            state = "building" if e.get("state") == "building" else "done"
            side = str(e.get("side", ""))
            out.append(el("polygon", class_=f"entrenchment {state} {side}".strip(), data_place=h, points=points(ring),
                          fill="none", stroke="#6b4a2b", stroke_width=3.2, stroke_linejoin="round",
                          stroke_dasharray="5 3" if state == "building" else "1.5 1.5"))
        return group(out, id="works")

    def zoc(self) -> str:
        """4.1, 4.2: the hexes in the ZOC of the side not moving, hatched in its colour."""
        side = other(self.ctx.side)
        out = []
        for h in sorted(self.ctx.zoc_of(side)):
            out.append(el("polygon", class_=f"zoc {side}", data_place=h, points=points(self.drawing.outline(h)),
                          fill=f"url(#hatch-{side})", stroke="none"))
        return group(out, id="zoc", class_=f"zoc {side}")

    def supply(self) -> str:
        """7.21, 7.41: each HQ's road route to its supply edge (none: a ring on the HQ)."""
        out = []
        for side in (AXIS, SOVIET):
            routes = status.hq_routes(self.ctx, side)
            for hq, (line, _) in sorted(routes.items()):
                colour = SIDE_INK[side]
                if line is None:
                    x, y = self.centre(self.ctx.at(hq))
                    out.append(el("circle", class_=f"hq-cut {side}", data_unit=hq, cx=x, cy=y, r=SIZE * 0.82, fill="none",
                                  stroke="#c0262d", stroke_width=2.5, stroke_dasharray="4 3"))
                elif len(line.places) == 1:  # the HQ stands on its edge
                    x, y = self.centre(line.places[0])
                    out.append(el("circle", class_=f"hq-route {side}", data_unit=hq, cx=x, cy=y, r=SIZE * 0.82, fill="none",
                                  stroke=colour, stroke_width=1.6, stroke_opacity=0.7, stroke_dasharray="2 4"))
                else:
                    out.append(el("polyline", class_=f"hq-route {side}", data_unit=hq,
                                  points=points([self.centre(h) for h in line.places]), fill="none", stroke=colour,
                                  stroke_width=1.6, stroke_opacity=0.7, stroke_dasharray="2 4", stroke_linecap="round"))
        return group(out, id="supply")

    # --- counters --------------------------------------------------------------------------------
    def stack_order(self, units: list[str]) -> list[str]:
        """The units of a hex, top counter first: combat units before HQs, the strongest attack first."""
        return sorted(units, key=lambda u: (self.ctx.spec(u).type == "hq", -self.ctx.printed(u).a, u))

    def values(self, u: str) -> str:
        """The values the counter shows: deployed artillery its support values and range (11.1),
        any other unit the attack-defense-MA of its current step (17.1)."""
        spec = self.ctx.spec(u)
        if spec.art is not None and (spec.type == "monitor" or self.ctx.units[u].get("mode") == "deployed"):
            return f"{spec.art.support_attack}-{spec.art.support_defense} r{spec.art.range}"
        v = self.ctx.printed(u)
        return f"{v.a}-{v.d}-{v.ma}"

    def counter(self, u: str, x: float, y: float) -> str:
        """One counter, top-left at (x, y), with its markers."""
        ctx = self.ctx
        spec = ctx.spec(u)
        state = ctx.units[u]
        bg, ink = counter_colours(spec)
        art = spec.type == "artillery"
        out = [el("rect", x=x, y=y, width=CW, height=CH, rx=2.5, fill=bg, stroke="#111", stroke_width=0.8),
               _fitted(short_label(u), x + CW / 2, y + 9, 8.0, CW - 4, font_weight="bold", fill=ink),
               _fitted(f"{SIZE_MARK[spec.size]} {TYPE_ABBR.get(spec.type, spec.type)}".strip(), x + CW / 2 + (3 if art else 0),
                       y + 18.5, 7.0, CW - (14 if art else 7), fill=ink),
               _fitted(self.values(u), x + CW / 2, y + 29, 8.5, CW - 4, font_weight="bold", fill=ink)]
        status_ = ctx.status(u)
        if status_ in (DISRUPTED, DEMORALIZED):  # 13.1, 13.2
            colour, letter = ("#f08c00", "d") if status_ == DISRUPTED else ("#c0262d", "Z")
            out.append(group([el("circle", cx=x + 1, cy=y + 1, r=6, fill=colour, stroke="#fff", stroke_width=1),
                              el("text", letter, x=x + 1, y=y + 4.5, font_size=9, font_weight="bold", fill="#fff")],
                             class_=f"marker status {status_}"))
        supply = ctx.supply(u)
        if supply in (OOS, ISOLATED):  # 7.6, 7.8
            colour, text = ("#c0262d", "OOS") if supply == OOS else ("#6d28d9", "ISO")
            out.append(group([el("rect", x=x + CW - 17, y=y - 4, width=19, height=9, rx=2, fill=colour, stroke="#fff",
                                 stroke_width=0.8),
                              el("text", text, x=x + CW - 7.5, y=y + 3, font_size=6.5, font_weight="bold", fill="#fff")],
                             class_=f"marker supply {supply}"))
        mode = str(state.get("mode", ""))
        if art and mode in ("towed", "deployed"):  # 11.1
            out.append(group([el("rect", x=x + 1.5, y=y + 12, width=8, height=8.5, rx=1.5, fill="#fff", stroke="#333",
                                 stroke_width=0.6),
                              el("text", "T" if mode == "towed" else "D", x=x + 5.5, y=y + 19, font_size=7,
                                 font_weight="bold", fill="#333")],
                             class_=f"marker mode {mode}"))
        if art:  # 11.23: the volleys left, on the right edge
            ammo = int(state.get("ammo", 0))
            dots = [el("circle", cx=x + CW - 3.2, cy=y + 13 + 5 * k, r=2, fill=ink if k < ammo else "none",
                       stroke=ink, stroke_width=0.7) for k in range(2)]
            out.append(group(dots, class_="marker ammo", data_ammo=ammo))
        lost = int(state.get("lost", 0))
        if len(spec.steps) > 1:  # 17.1: filled pips are the steps left
            pips = [el("circle", cx=x + CW - 2.8, cy=y + 13 + 4.2 * k, r=1.5, fill=ink if k < len(spec.steps) - lost else "none",
                       stroke=ink, stroke_width=0.5) for k in range(len(spec.steps))]
            out.append(group(pips, class_="marker steps", data_lost=lost))
        return group(out, class_=f"counter {spec.nat} {spec.type}", data_unit=u)

    def units(self) -> str:
        out = []
        where: dict[str, list[str]] = {}
        for u, s in sorted(self.ctx.units.items()):
            if self.on_map(s.get("at")):
                where.setdefault(str(s["at"]), []).append(u)
        for h in sorted(where):
            us = self.stack_order(where[h])
            side = self.ctx.side_of(us[0])
            cx, cy = self.centre(h)
            x, y = cx - CW / 2, cy - CH / 2 - 2
            parts = [el("title", "; ".join(self._describe(u) for u in us))]
            for k in range(min(len(us) - 1, 2), 0, -1):  # the counters beneath, as edges
                bg, _ = counter_colours(self.ctx.spec(us[k]))
                parts.append(el("rect", x=x + 2.5 * k, y=y + 2.5 * k, width=CW, height=CH, rx=2.5, fill=bg, stroke="#111",
                                stroke_width=0.6))
            parts.append(self.counter(us[0], x, y))
            if len(us) > 1:
                parts.append(group([el("circle", cx=x + CW + 4, cy=y + CH + 3, r=6.5, fill="#1a1a1a", stroke="#fff",
                                       stroke_width=0.8),
                                    el("text", f"{len(us)}", x=x + CW + 4, y=y + CH + 6.2, font_size=8.5, font_weight="bold",
                                       fill="#fff")], class_="count"))
            out.append(group(parts, class_=f"units {side}", data_place=h, data_units=" ".join(us)))
        return group(out, id="units")

    def _describe(self, u: str) -> str:
        s = self.ctx.units[u]
        marks = [m for m in (self.ctx.status(u), {OOS: "out of supply", ISOLATED: "isolated"}.get(self.ctx.supply(u), ""),
                             str(s.get("mode", ""))) if m]
        if self.ctx.spec(u).type == "artillery":
            marks.append(f"ammo {int(s.get('ammo', 0))}")
        if int(s.get("lost", 0)):
            marks.append(f"{int(s['lost'])} step(s) lost")
        return f"{u} {self.values(u)}" + (f" ({', '.join(marks)})" if marks else "")

    # --- panels ----------------------------------------------------------------------------------
    def title(self, text: str) -> str:
        size = min(13.0, (self.width - 16) / (0.62 * max(1, len(text))))
        return group([el("rect", x=0, y=0, width=self.width, height=TITLE_H, fill="#f7f5ec"),
                      el("text", text, x=8, y=TITLE_H / 2 + size * 0.36, font_size=size, font_weight="bold", fill="#222")],
                     id="title")

    def activation(self, top: float) -> tuple[str, float]:
        """15.1: the Soviet Activation Track: each box, its printed number and the formation drawn
        into it this turn."""
        boxes = self.ctx.sc.charts.activation.boxes
        track = [str(f) for f in self.ctx.pos.get("activation", {}).get("track", [])]
        bw, bh = 62.0, 30.0
        per_row = max(1, int((self.width - 16) // (bw + 4)))
        out = [el("text", "Soviet Activation Track (15.1)", x=8, y=top + 12, class_="caption", font_weight="bold")]
        for k, n in enumerate(boxes):
            x = 8 + (k % per_row) * (bw + 4)
            y = top + 18 + (k // per_row) * (bh + 4)
            drawn = track[k] if k < len(track) else ""
            parts = [el("rect", x=x, y=y, width=bw, height=bh, rx=2, fill="#f3d9cf" if drawn else "#fbfaf4", stroke="#8b2a1c",
                        stroke_width=0.8),
                     el("text", str(n), x=x + 7, y=y + 9, font_size=7.5, fill="#8b2a1c", font_weight="bold")]
            if drawn:
                parts.append(_fitted(drawn, x + bw / 2, y + 22, 9.0, bw - 6, font_weight="bold", fill="#1a1a1a"))
            out.append(group(parts, class_="box drawn" if drawn else "box", data_box=k + 1))
        rows = max(1, -(-len(boxes) // per_row))
        return group(out, id="activation", class_="activation"), 18 + rows * (bh + 4) + 4

    def legend(self, top: float, turn: bool) -> tuple[str, float]:
        items: list[tuple[list[str], str]] = []
        for nat, name in (("german", "German"), ("romanian", "Romanian"), ("ukrainian", "Ukrainian"), ("soviet", "Soviet")):
            bg, _ = NAT_COLOURS[nat]
            items.append(([el("rect", x=0, y=-8, width=14, height=10, fill=bg, stroke="#111", stroke_width=0.6)], name))
        for (bg, _), name in ((NKVD, "NKVD"), (MILITIA, "militia")):
            items.append(([el("rect", x=0, y=-8, width=14, height=10, fill=bg, stroke="#111", stroke_width=0.6)], name))
        for letter, colour, name in (("d", "#f08c00", "disrupted (13.1)"), ("Z", "#c0262d", "demoralized (13.2)")):
            items.append(([el("circle", cx=7, cy=-3, r=5.5, fill=colour),
                           el("text", letter, x=7, y=0.5, font_size=8, font_weight="bold", fill="#fff", text_anchor="middle")],
                          name))
        for text, colour, name in (("OOS", "#c0262d", "out of supply (7.6)"), ("ISO", "#6d28d9", "isolated (7.8)")):
            items.append(([el("rect", x=0, y=-8, width=20, height=9, rx=2, fill=colour),
                           el("text", text, x=10, y=-1.5, font_size=6.5, font_weight="bold", fill="#fff", text_anchor="middle")],
                          name))
        items.append(([el("text", "T/D", x=0, y=0, font_size=8, font_weight="bold", fill="#333")], "towed/deployed (11.1)"))
        items.append(([el("circle", cx=4, cy=-3, r=2.2, fill="#333"), el("circle", cx=10, cy=-3, r=2.2, fill="#fff", stroke="#333")],
                      "volleys left (11.23)"))
        items.append(([el("circle", cx=4, cy=-3, r=1.6, fill="#333"), el("circle", cx=10, cy=-3, r=1.6, fill="none", stroke="#333")],
                      "steps left (17.1)"))
        items.append(([el("rect", x=0, y=-8, width=16, height=10, fill="none", stroke="#6b4a2b", stroke_width=2.5,
                          stroke_dasharray="1.5 1.5")], "entrenchment (17.2)"))
        items.append(([el("line", x1=0, y1=-6, x2=16, y2=-6, stroke="#333", stroke_width=2),
                       el("line", x1=0, y1=0, x2=16, y2=0, stroke="#333", stroke_width=2)], "bridge (17.4)"))
        items.append(([el("rect", x=0, y=-8, width=16, height=10, fill=f"url(#hatch-{other(self.ctx.side)})",
                          stroke="#999", stroke_width=0.5)], f"ZOC of the {other(self.ctx.side)} side (4.1)"))
        items.append(([el("line", x1=0, y1=-3, x2=16, y2=-3, stroke="#3b4046", stroke_width=1.6, stroke_dasharray="2 4")],
                      "HQ road to its edge (7.21)"))
        if turn:
            for kind, name in (("move", "move (5.1)"), ("attack", "attack (9.1)"), ("support", "artillery support (9.8)"),
                               ("bombard", "bombardment (8.2)"), ("air", "air bombardment (16.1)"),
                               ("retreat", "retreat (9.4)"), ("advance", "advance (9.5)")):
                items.append(([el("line", x1=0, y1=-3, x2=14, y2=-3, stroke=ARROWS[kind], stroke_width=2.5,
                                  marker_end=f"url(#arrow-{kind})")], name))
        iw, ih = 150.0, 15.0
        per_row = max(1, int((self.width - 16) // iw))
        out = [el("rect", x=0, y=top, width=self.width, height=8 + ih * -(-len(items) // per_row), fill="#f7f5ec")]
        for k, (swatch, name) in enumerate(items):
            x, y = 8 + (k % per_row) * iw, top + 14 + (k // per_row) * ih
            out.append(group([*swatch, el("text", name, x=22, y=0)], transform=f"translate({x:.1f} {y:.1f})"))
        return group(out, id="legend", class_="legend"), 8 + ih * -(-len(items) // per_row)

    # --- turns -----------------------------------------------------------------------------------
    def _line(self, kind: str, hexes: list[Any], offset: float = 0.0, **kw: object) -> str | None:
        """An arrow of ``kind`` through the centres of ``hexes`` (those of the map; repeats dropped),
        shifted by ``offset`` px, stopping short of the last centre."""
        pts: list[Point] = []
        for h in hexes:
            if self.on_map(h):
                p = self.centre(h)
                if not pts or pts[-1] != p:
                    pts.append(p)
        if len(pts) < 2:
            return None
        pts = [(x + offset, y + offset) for x, y in pts]
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        pts[-1] = (x2 - (x2 - x1) / d * SIZE * 0.35, y2 - (y2 - y1) / d * SIZE * 0.35)
        return el("polyline", class_=kind, points=points(pts), fill="none", stroke=ARROWS[kind.split()[0]],
                  stroke_width=3, stroke_opacity=0.9, stroke_linecap="round", stroke_linejoin="round",
                  marker_end=f"url(#arrow-{kind.split()[0]})", **kw)

    def _label(self, cls: str, h: str, text: str, colour: str) -> str:
        x, y = self.centre(h)
        w = _width(text, 9.0) + 8
        return group([el("rect", x=x - w / 2, y=y - SIZE * 0.85 - 11, width=w, height=13, rx=3, fill="#fff", stroke=colour),
                      el("text", text, x=x, y=y - SIZE * 0.85 - 1.5, font_size=9, font_weight="bold", fill=colour)],
                     class_=cls, data_place=h)

    def _unit_hex(self, u: Any) -> str | None:
        s = self.ctx.units.get(str(u))
        return str(s["at"]) if s is not None and self.on_map(s.get("at")) else None

    def turn(self, events: list[Event]) -> str:
        out: list[str | None] = []
        labels: list[str] = []
        attacked: dict[str, dict[str, str]] = {}  # target -> unit -> the hex it attacked from
        for e in events:
            d = e.data
            if e.kind == "move":  # 5.1
                start = d.get("start", d.get("from"))
                out.append(self._line("move", [start, *d.get("path", [])], data_units=" ".join(map(str, d.get("units", [])))))
            elif e.kind == "combat":  # 9.1-9.2, 9.8
                t = str(d.get("target", ""))
                if not self.on_map(t):
                    continue
                rows = [r if isinstance(r, dict) else {"unit": r, "hex": self._unit_hex(r)} for r in d.get("attackers", [])]
                attacked[t] = {str(r.get("unit")): str(r.get("hex")) for r in rows if r.get("hex")}
                for h in sorted(set(attacked[t].values())):
                    out.append(self._line("attack", [h, t], data_target=t))
                for key, cls in (("attack_support", "support attack"), ("defense_support", "support defense")):
                    for s in d.get(key, []):
                        art = s.get("unit") if isinstance(s, dict) else s
                        at = self._unit_hex(art)
                        if at and at != t:
                            out.append(self._line(cls, [at, t], -4.0, data_unit=str(art), data_target=t,
                                                  stroke_dasharray="5 3"))
                result = "cancelled" if d.get("cancelled") else str(d.get("result", "?"))
                labels.append(self._label("combat-result", t, f"{d.get('final', d.get('odds', ''))} {result}".strip(), ARROWS["attack"]))
            elif e.kind in ("bombardment", "air"):  # 8.2, 16.1
                t = str(d.get("target", ""))
                if not self.on_map(t):
                    continue
                if e.kind == "air":
                    x, y = self.centre(t)
                    sx, sy = x - SIZE * 1.3, y - SIZE * 1.5
                    out.append(el("line", class_="air", data_aircraft=str(d.get("aircraft", "")), data_target=t, x1=sx, y1=sy,
                                  x2=x - SIZE * 0.3, y2=y - SIZE * 0.35, stroke=ARROWS["air"], stroke_width=3,
                                  stroke_dasharray="6 3", marker_end="url(#arrow-air)"))
                    out.append(el("text", str(d.get("aircraft", "")), x=sx, y=sy - 3, font_size=8.5, font_weight="bold",
                                  fill=ARROWS["air"], text_anchor="middle", class_="air-label"))
                else:
                    arts = d.get("artillery", d.get("units", []))
                    for a in arts:
                        u = a.get("unit") if isinstance(a, dict) else a
                        at = self._unit_hex(u)
                        if at and at != t:
                            out.append(self._line("bombard", [at, t], data_unit=str(u), data_target=t, stroke_dasharray="7 3"))
                res = str(d.get("result", "?"))
                labels.append(self._label("bombard-result", t, "no effect" if res in ("0", "-") else res, ARROWS["bombard"]))
            elif e.kind == "retreat":  # 9.4
                out.append(self._line("retreat", [d.get("start"), *d.get("path", [])], 4.0,
                                      data_units=" ".join(map(str, d.get("units", []))), stroke_dasharray="3 3"))
            elif e.kind == "advance":  # 9.5
                t = str(d.get("target", ""))
                for m in d.get("units", []):
                    if not isinstance(m, dict) or not m.get("path"):
                        continue
                    start = attacked.get(t, {}).get(str(m.get("unit")))
                    out.append(self._line("advance", [start, *m["path"]], 4.0, data_unit=str(m.get("unit")),
                                          stroke_dasharray="6 3"))
        return group([x for x in out if x] + labels, id="turn", class_="turn")

    # --- the whole -------------------------------------------------------------------------------
    def svg(self, title: str, events: list[Event] | None = None) -> str:
        m = self.grid
        hatch = "".join(
            f'<pattern id="hatch-{side}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            f'<line x1="0" y1="0" x2="0" y2="6" stroke="{SIDE_INK[side]}" stroke-width="1.2" stroke-opacity="0.28"/></pattern>'
            for side in (AXIS, SOVIET))
        layers = [places_layer(self.drawing, m, fill=lambda p: FILL.get(p.terrain, "#e8e4d4")), self.hexids(), self.roads(),
                  borders_layer(self.drawing, m, strokes=STROKES, only=STROKES), self.zoc(), self.works(),
                  self.supply(), self.towns(), self.units(), self.bridges()]
        if events is not None:
            layers.append(self.turn(events))
        top = TITLE_H + self.map_h
        panel, ph = self.activation(top)
        legend, lh = self.legend(top + ph, events is not None)
        body = [arrow_defs(ARROWS), f"<defs>{hatch}</defs>", self.title(title),
                group(layers, id="map", transform=f"translate(0 {TITLE_H:.0f})"), panel, legend]
        return document(self.width, top + ph + lh, body, title=title, style=STYLE)


def position_svg(state: dict[str, Any]) -> str:
    """The whole map with the position of ``state`` (nothing is hidden in this version)."""
    ctx = context(state)
    c = state["clock"]
    return Picture(ctx).svg(f"{ctx.sc.title}: game turn {c['turn']} ({ctx.time.label}), {c['side']} {c.get('phase', '')}".strip())


def turn_svg(state: dict[str, Any], events: list[Event], title: str) -> str:
    """The map with the position after a transition, and its moves, combats, bombardments,
    retreats and advances drawn over it."""
    return Picture(context(state)).svg(title, list(events))
