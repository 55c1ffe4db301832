"""Europe Engulfed pictures (SVG): the position on the area map, and the picture of one step.

The map has no outlines (map.toml gives each place a position): it is drawn as a diagram
(pbem.view.areamap.AreaDrawing) of nodes at the places' positions, joined by their borders. What is
drawn:

- every land area and fortress filled in the colour of its controller (Glossary "Control": axis,
  allies, vichy 9.52, else neutral), with a ring in its terrain's colour when not clear (T-20); sea
  zones as blue squares with their fleet points by nation (section 8, public); the U.S.A. box;
- land borders as lines, coasts (a land area and a sea zone) as faint dotted lines, and the
  features that matter to land movement and combat (rivers, straits, the Maginot Line, air-routes,
  the canal, passages and the Cape route; 5.13, 5.16, 6.83, 6.84, 3.32);
- contested areas ringed in red (Glossary "Contested Area"): dashed when newly contested (combat
  compulsory, 6.1), solid when contested from before;
- field and heavy fortifications (6.9x) and beachheads (7.22) as small badges;
- the blocks of each area as small squares in their nation's colour (units.toml ``colour``; elite
  blocks darker), the side's blocks in rows above the area (the phasing side's nearest), with their
  steps when the reader knows them and blank when hidden (``block`` absent: fog of war); an out of
  supply block (1.21, 3.4) outlined in red with a red corner; GS units as round markers in their
  nation's colour with their count (public);
- a band with the title and a legend with this game turn's weather by zone (1.1) and the special
  actions held (7.1).

Structure (ids and classes are part of the contract; tests rely on them). The document holds a
``<g id="title">`` band, the map in ``<g id="map">`` (shifted below the title), then ``<g
id="legend">``. In the map, bottom to top: ``<g id="links">`` (``<line class="link land|coast"
data-border="A B">``), ``<g id="borders">`` (the shared layer, features other than coasts),
``<g id="places">`` (one ``id="place-ID"`` shape per place, ``class="place KIND TERRAIN control-SIDE"``),
``<g id="terrain">``, ``<g id="names">``, ``<g id="contested">`` (``<circle class="contested new|old"
data-place="AREA">``), ``<g id="works">`` (``<g class="fortification field|heavy NATION"
data-place="AREA">``, ``<g class="beachhead SIDE" data-place="AREA">``), ``<g id="fleets">`` (``<g
class="fleet NATION" data-place="SEA" data-points="N">``), ``<g id="blocks">`` (one ``<g
class="blocks" data-place="AREA">`` per area holding blocks, holding one ``<g class="block SIDE
NATION [elite] [hidden] [oos]" data-unit="ID" [data-steps="N"]>`` per block), ``<g id="gs">`` (``<g
class="gs SIDE NATION" data-place="AREA" data-count="N">``); turn pictures add ``<g id="turn">``:
``<polyline class="move|strat-move" data-units="ID ...">`` arrows along each path (5.1, 5.2) and
``<g class="battle" data-place="AREA">`` on each area fought over (6.x).

Deterministic: sorted iteration, numbers with one decimal (pbem.view.svg): the same state and
events give the same bytes.
"""

from __future__ import annotations

import math
from typing import Any

from pbem.engine.model import Event
from pbem.mechanics.places import LAND, SEA, Place
from pbem.view.areamap import AreaDrawing
from pbem.view.places import NODE, borders_layer, names_layer, places_layer
from pbem.view.svg import arrow_defs, document, el, group, points

from .context import NEW, Ctx, context
from .data import ALLIES, AXIS, NEUTRAL, SIDES, VICHY, ZONES, Turn

Point = tuple[float, float]
TITLE_H = 28.0
BW = 11.0  # a block's side
GAP = 1.5
PER_ROW = 5  # blocks in a row above an area
GS_R = 5.5

# units.toml gives each nation's block colour by name (Part II); how each is drawn.
COLOUR_NAMES = {"grey": "#8a8c86", "light green": "#93c97c", "yellow": "#e9cf3c", "dark blue": "#23408f",
                "dark green": "#2f6b35", "light blue": "#86b6e6", "red-orange": "#e05a2b", "brown": "#8b5a2b"}
UNKNOWN_COLOUR = "#a0a0a0"
ELITE_DARKER = 0.42  # how much darker an elite block is drawn
CONTROL_FILL = {AXIS: "#cfcdc8", ALLIES: "#f4cdbd", VICHY: "#c9ddef", NEUTRAL: "#f3efdc"}
SEA_FILL, BOX_FILL = "#8fb9dc", "#f2efe2"
TERRAIN_RING = {"rough": "#9a6b3a", "swamp": "#2a8c7a", "mountain": "#5b4630", "desert": "#d4a017",
                "fortress": "#444444"}
SIDE_INK = {AXIS: "#2b2b2b", ALLIES: "#b3261e", VICHY: "#2f5f8f", NEUTRAL: "#6b5a3a"}
CONTESTED = {NEW: ("#d91e18", "5 3"), "old": ("#e07b00", "")}
OOS_INK = "#d91e18"
# Borders drawn with the shared layer (coasts are links of their own); colour, width, dash.
STROKES = {"river": ("#2f6fb7", 3.5, ""), "strait": ("#178c8c", 4.5, "3 3"), "maginot": ("#5a2a82", 5.0, "2 2"),
           "air-route": ("#4a4a4a", 1.5, "1 4"), "canal": ("#1d6fa8", 3.0, "6 2"), "passage": ("#5b7fa6", 1.5, "6 4"),
           "cape-route": ("#7a2a6e", 1.5, "8 5"), "fortress": ("#555555", 2.0, "1 2")}
ARROWS = {"move": "#1d4ed8", "strat-move": "#7c3aed", "battle": "#d91e18"}
STYLE = (".blocks text{font-size:8px;font-weight:bold;text-anchor:middle}"
         ".gs text,.fleet text,.badge text{font-size:7.5px;font-weight:bold;text-anchor:middle}"
         ".legend text{font-size:11px}"
         "svg.plot .plot-title{font-size:14px;font-weight:600}svg.plot .grid{stroke:#e3e7ea;stroke-width:1}"
         "svg.plot .tick,svg.plot .key,svg.plot .note{font-size:11px;fill:#555}")


def _mix(colour: str, other: str, t: float) -> str:
    """``colour`` moved a fraction ``t`` towards ``other`` (both ``#rrggbb``)."""
    a = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(other[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def _ink(fill: str) -> str:
    """Black or white print, whichever reads on ``fill``."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def nation_colour(ctx: Ctx, nation: str, elite: bool = False) -> str:
    """A nation's block colour (units.toml ``colour``; a minor's is its pool's, D-4; a neutral
    minor's the brown blocks'), darker for elite blocks (Part II: the elite colour)."""
    ns = ctx.sc.units.nations
    n = ns.get(nation)
    name = ""
    if n is not None:
        name = n.colour or (ns[n.pool].colour if n.pool in ns else "")
    if not name:
        name = next((p.colour for _, p in sorted(ns.items()) if nation in p.members), "")
    if not name and NEUTRAL in ns:
        name = ns[NEUTRAL].colour
    base = COLOUR_NAMES.get(name, UNKNOWN_COLOUR)
    return _mix(base, "#000000", ELITE_DARKER) if elite else base


def _abbr(nation: str) -> str:
    return {"germany": "GE", "italy": "IT", "britain": "GB", "usa": "US", "france": "FR", "ussr": "SU"}.get(nation, nation[:2].upper())


def _width(text: str, size: float) -> float:
    return 0.62 * size * len(text)


class Picture:
    """The map of a context's scenario and the position on it."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.m = ctx.sc.map.places
        self.drawing = AreaDrawing(self.m)
        self.map_w, self.map_h = self.drawing.extent()
        self.width = max(self.map_w, 720.0)

    def centre(self, a: str) -> Point:
        return self.drawing.centre(a)

    def on_map(self, a: Any) -> bool:
        return isinstance(a, str) and a in self.ctx.sc.map.areas

    # --- the map ---------------------------------------------------------------------------------
    def fill(self, p: Place) -> str:
        if p.kind == SEA:
            return SEA_FILL
        if p.kind == "box" and p.id not in self.ctx.control:
            return BOX_FILL
        return CONTROL_FILL.get(self.ctx.controller(p.id), CONTROL_FILL[NEUTRAL])

    def links(self) -> str:
        """Every border as a line between centres: land borders plain, coasts faint and dotted."""
        out = []
        for b in self.m.all_borders():
            kinds = {self.ctx.sc.map.areas[b.a].kind, self.ctx.sc.map.areas[b.b].kind}
            if b.features & {"passage", "cape-route", "canal", "air-route"}:
                continue  # drawn as its feature only
            (x1, y1), (x2, y2) = self.centre(b.a), self.centre(b.b)
            if SEA in kinds:
                out.append(el("line", class_="link coast", data_border=f"{b.a} {b.b}", x1=x1, y1=y1, x2=x2, y2=y2,
                              stroke="#5b7fa6", stroke_width=0.8, stroke_opacity=0.35, stroke_dasharray="2 3"))
            else:
                out.append(el("line", class_="link land", data_border=f"{b.a} {b.b}", x1=x1, y1=y1, x2=x2, y2=y2,
                              stroke="#8a8470", stroke_width=1.2))
        return group(out, id="links")

    def terrain(self) -> str:
        """T-20: a ring in the terrain's colour inside each area that is not clear."""
        out = []
        for a in sorted(self.ctx.sc.map.areas):
            area = self.ctx.sc.map.areas[a]
            colour = TERRAIN_RING.get(area.terrain)
            if colour is None or area.kind not in (LAND,):
                continue
            x, y = self.centre(a)
            out.append(el("circle", class_=f"terrain {area.terrain}", data_place=a, cx=x, cy=y, r=NODE - 3.5, fill="none",
                          stroke=colour, stroke_width=2.6, stroke_dasharray="4 2" if area.terrain == "swamp" else None))
        return group(out, id="terrain")

    def contested(self) -> str:
        """Glossary "Contested Area": new (6.1: combat compulsory) dashed, older solid."""
        out = []
        for a, v in sorted(self.ctx.pos.get("contested", {}).items()):
            if not self.on_map(a):
                continue
            kind = NEW if v == NEW else "old"
            colour, dash = CONTESTED[kind]
            x, y = self.centre(a)
            r = NODE * (0.6 if self.ctx.sc.map.areas[a].fortress else 1.0) + 4.5
            out.append(el("circle", class_=f"contested {kind}", data_place=a, cx=x, cy=y, r=r, fill="none", stroke=colour,
                          stroke_width=3.2, stroke_dasharray=dash or None))
        return group(out, id="contested")

    def _badge(self, cls: str, a: str, dx: float, text: str, fill: str, title: str) -> str:
        x, y = self.centre(a)
        cx, cy = x + dx, y + NODE * 0.55
        return group([el("title", title), el("rect", x=cx - 6, y=cy - 6, width=12, height=12, rx=1.5, fill=fill,
                                             stroke="#111", stroke_width=0.8),
                      el("text", text, x=cx, y=cy + 2.8, fill=_ink(fill))], class_=f"badge {cls}", data_place=a)

    def works(self) -> str:
        """6.9x fortifications (F field, H heavy, in the builder's colour) and 7.22 beachheads."""
        out = []
        for a, f in sorted(self.ctx.pos.get("fortifications", {}).items()):
            if self.on_map(a):
                kind = "heavy" if f.get("kind") == "heavy" else "field"
                nat = str(f.get("nation", ""))
                out.append(self._badge(f"fortification {kind} {nat}".strip(), a, -NODE * 0.85, kind[0].upper(),
                                       nation_colour(self.ctx, nat), f"{kind} fortification ({nat}, 6.9)"))
        for a, side in sorted(self.ctx.pos.get("beachheads", {}).items()):
            if self.on_map(a):
                out.append(self._badge(f"beachhead {side}", a, NODE * 0.85, "B", SIDE_INK.get(str(side), "#555555"),
                                       f"beachhead of the {side} (7.22)"))
        return group(out, id="works")

    def fleets(self) -> str:
        """The fleet points in each sea zone, by nation (public)."""
        out = []
        for z, by in sorted(self.ctx.pos.get("fleets", {}).items()):
            if not self.on_map(z):
                continue
            x, y = self.centre(z)
            rows = [(n, int(k)) for n, k in sorted(by.items()) if int(k)]
            for i, (n, k) in enumerate(rows):
                fill = nation_colour(self.ctx, n)
                text = f"{_abbr(n)} {k}"
                w = _width(text, 7.5) + 6
                fx, fy = x + NODE + 4, y - NODE + 1 + i * 11
                out.append(group([el("title", f"{n}: {k} fleet point(s)"),
                                  el("rect", x=fx, y=fy, width=w, height=10, rx=2, fill=fill, stroke="#fff", stroke_width=0.6),
                                  el("text", text, x=fx + w / 2, y=fy + 7.6, fill=_ink(fill))],
                                 class_=f"fleet {n}", data_place=z, data_points=k))
        return group(out, id="fleets")

    def _block(self, u: str, x: float, y: float) -> str:
        ctx = self.ctx
        s = ctx.units[u]
        nat = ctx.nation(u)
        fill = nation_colour(ctx, nat, ctx.elite(u))
        steps = ctx.steps(u) if ctx.known(u) else None
        oos = bool(s.get("oos"))
        cls = f"block {ctx.side_of(u)} {nat}" + (" elite" if ctx.elite(u) else "") + (" hidden" if steps is None else "") + \
            (" oos" if oos else "")
        title = u + (f" {ctx.block(u)} {steps}/{ctx.max_steps(u)}" if steps is not None else " (hidden)") + \
            (f" [{s['oos']}]" if oos else "")
        parts = [el("title", title),
                 el("rect", x=x, y=y, width=BW, height=BW, rx=1.2, fill=fill, stroke=OOS_INK if oos else "#111",
                    stroke_width=1.6 if oos else 0.6)]
        if oos:
            parts.append(el("polygon", points=points([(x + BW - 4.5, y), (x + BW, y), (x + BW, y + 4.5)]), fill=OOS_INK))
        if steps is not None:
            parts.append(el("text", str(steps), x=x + BW / 2, y=y + BW - 2.6, fill=_ink(fill)))
        return group(parts, class_=cls, data_unit=u, data_steps=steps)

    def blocks(self) -> str:
        """The blocks of each area in rows above it: the phasing side's nearest, then the other's."""
        ctx = self.ctx
        order = [ctx.side, *[s for s in SIDES if s != ctx.side]]
        out = []
        for a in sorted({ctx.at(u) for u in ctx.units}):
            if not self.on_map(a):
                continue
            x, y = self.centre(a)
            r = NODE * (0.6 if ctx.sc.map.areas[a].fortress else 1.0)
            rows: list[list[str]] = []
            for side in order:
                mine = sorted(ctx.side_in(a, side), key=lambda u: (ctx.nation(u), not ctx.elite(u), u))
                rows += [mine[i:i + PER_ROW] for i in range(0, len(mine), PER_ROW)]
            parts = []
            for k, row in enumerate(rows):
                by = y - r - 3 - (k + 1) * (BW + GAP)
                x0 = x - (len(row) * (BW + GAP) - GAP) / 2
                for i, u in enumerate(row):
                    parts.append(self._block(u, x0 + i * (BW + GAP), by))
            out.append(group(parts, class_="blocks", data_place=a))
        return group(out, id="blocks")

    def gs(self) -> str:
        """Ground-support units (public markers, counted per area and nation) right of the area."""
        out = []
        i_by: dict[str, int] = {}
        for a, by in sorted(self.ctx.pos.get("gs", {}).items()):
            if not self.on_map(a):
                continue
            x, y = self.centre(a)
            for n, k in sorted(by.items()):
                if not int(k):
                    continue
                i = i_by.get(a, 0)
                i_by[a] = i + 1
                fill = nation_colour(self.ctx, n)
                cx, cy = x + NODE + GS_R + 1, y - NODE * 0.45 + i * (2 * GS_R + 1.5)
                out.append(group([el("title", f"{k} {n} GS"),
                                  el("circle", cx=cx, cy=cy, r=GS_R, fill=fill, stroke="#111", stroke_width=0.7),
                                  el("text", str(k), x=cx, y=cy + 2.7, fill=_ink(fill))],
                                 class_=f"gs {self.ctx.side_of_nation(n)} {n}", data_place=a, data_count=k))
        return group(out, id="gs")

    # --- turns -----------------------------------------------------------------------------------
    def turn(self, events: list[Event]) -> str:
        """The step's moves (``move``, ``strat-move``: ``path`` from the start) as arrows, and each
        ``battle`` (``area``) as a burst on its area."""
        out: list[str] = []
        bursts: list[str] = []
        fought: set[str] = set()
        for k, e in enumerate(events):
            d = e.data
            if e.kind in ("move", "strat-move"):
                line = self._arrow(e.kind, [a for a in d.get("path", []) if self.on_map(a)], (k % 3 - 1) * 3.0,
                                   data_units=" ".join(map(str, d.get("units", []))) or None)
                if line:
                    out.append(line)
            elif e.kind == "battle":
                a = d.get("area")
                if self.on_map(a) and a not in fought:
                    fought.add(str(a))
                    bursts.append(self._burst(str(a)))
        return group(out + bursts, id="turn", class_="turn")

    def _arrow(self, kind: str, path: list[str], offset: float, **kw: object) -> str | None:
        pts: list[Point] = []
        for a in path:
            p = self.centre(a)
            if not pts or pts[-1] != p:
                pts.append(p)
        if len(pts) < 2:
            return None
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        pts[-1] = (x2 - (x2 - x1) / d * NODE * 0.8, y2 - (y2 - y1) / d * NODE * 0.8)
        pts = [(x + offset, y + offset) for x, y in pts]
        return el("polyline", class_=kind, points=points(pts), fill="none", stroke=ARROWS[kind], stroke_width=3.2,
                  stroke_opacity=0.9, stroke_linecap="round", stroke_linejoin="round",
                  stroke_dasharray="7 4" if kind == "strat-move" else None, marker_end=f"url(#arrow-{kind})", **kw)

    def _burst(self, a: str) -> str:
        """6.x: a red eight-pointed burst on an area fought over."""
        x, y = self.centre(a)
        pts = [(x + (NODE * 0.95 if i % 2 == 0 else NODE * 0.45) * math.cos(math.pi * i / 8),
                y + (NODE * 0.95 if i % 2 == 0 else NODE * 0.45) * math.sin(math.pi * i / 8)) for i in range(16)]
        return group([el("title", f"battle in {self.ctx.sc.map.areas[a].name}"),
                      el("polygon", points=points(pts), fill=ARROWS["battle"], fill_opacity=0.55, stroke=ARROWS["battle"],
                         stroke_width=1.2)], class_="battle", data_place=a)

    # --- panels ----------------------------------------------------------------------------------
    def title(self, text: str) -> str:
        size = min(15.0, (self.width - 16) / (0.62 * max(1, len(text))))
        return group([el("rect", x=0, y=0, width=self.width, height=TITLE_H, fill="#f7f5ec"),
                      el("text", text, x=10, y=TITLE_H / 2 + size * 0.36, font_size=size, font_weight="bold", fill="#222")],
                     id="title")

    def legend(self, top: float, turn: bool) -> tuple[str, float]:
        ctx = self.ctx
        items: list[tuple[list[str], str]] = []
        for side, name in ((AXIS, "Axis-controlled"), (ALLIES, "Allied-controlled"), (VICHY, "Vichy (9.52)"),
                           (NEUTRAL, "neutral")):
            items.append(([el("circle", cx=7, cy=-4, r=6, fill=CONTROL_FILL[side], stroke="#5d584a")], name))
        items.append(([el("rect", x=1, y=-10, width=12, height=12, rx=2, fill=SEA_FILL, stroke="#5d584a")],
                      "sea zone, fleet points"))
        for terrain, colour in sorted(TERRAIN_RING.items()):
            if terrain != "fortress":
                items.append(([el("circle", cx=7, cy=-4, r=5.5, fill="none", stroke=colour, stroke_width=2.4)],
                              f"{terrain} (T-20)"))
        for kind, name in ((NEW, "newly contested (6.1)"), ("old", "contested")):
            colour, dash = CONTESTED[kind]
            items.append(([el("circle", cx=7, cy=-4, r=6, fill="none", stroke=colour, stroke_width=2.6,
                              stroke_dasharray=dash or None)], name))
        by_colour: dict[str, list[str]] = {}
        for n in sorted({ctx.nation(u) for u in ctx.units} | {n for by in ctx.pos.get("gs", {}).values() for n in by}):
            by_colour.setdefault(nation_colour(ctx, n), []).append(n)
        for colour, names in sorted(by_colour.items(), key=lambda kv: kv[1]):
            label = ", ".join(names) if len(names) <= 2 else f"{names[0]}, {names[1]} ... ({len(names)})"
            items.append(([el("rect", x=0, y=-9, width=BW, height=BW, rx=1.2, fill=colour, stroke="#111", stroke_width=0.6),
                           el("rect", x=BW + 1.5, y=-9, width=BW, height=BW, rx=1.2, fill=_mix(colour, "#000000", ELITE_DARKER),
                              stroke="#111", stroke_width=0.6)], label))
        items.append(([el("rect", x=1, y=-9, width=BW, height=BW, rx=1.2, fill="#8a8c86", stroke="#111", stroke_width=0.6),
                       el("text", "3", x=1 + BW / 2, y=-1, font_size=8, font_weight="bold", fill="#111", text_anchor="middle")],
                      "steps known; elite darker"))
        items.append(([el("rect", x=1, y=-9, width=BW, height=BW, rx=1.2, fill="#8a8c86", stroke="#111", stroke_width=0.6)],
                      "hidden block"))
        items.append(([el("rect", x=1, y=-9, width=BW, height=BW, rx=1.2, fill="#8a8c86", stroke=OOS_INK, stroke_width=1.6),
                       el("polygon", points=points([(1 + BW - 4.5, -9), (1 + BW, -9), (1 + BW, -4.5)]), fill=OOS_INK)],
                      "out of supply (3.4)"))
        items.append(([el("circle", cx=7, cy=-4, r=GS_R, fill="#8a8c86", stroke="#111"),
                       el("text", "2", x=7, y=-1.3, font_size=7.5, font_weight="bold", text_anchor="middle")],
                      "GS units (count)"))
        items.append(([el("rect", x=1, y=-10, width=12, height=12, rx=1.5, fill="#e05a2b", stroke="#111"),
                       el("text", "F", x=7, y=-1.2, font_size=7.5, font_weight="bold", text_anchor="middle")],
                      "fortification F/H (6.9)"))
        items.append(([el("rect", x=1, y=-10, width=12, height=12, rx=1.5, fill=SIDE_INK[ALLIES], stroke="#111"),
                       el("text", "B", x=7, y=-1.2, font_size=7.5, font_weight="bold", fill="#fff", text_anchor="middle")],
                      "beachhead (7.22)"))
        for feat, name in (("river", "river (5.16)"), ("strait", "strait (5.16)"), ("maginot", "Maginot Line (6.84)"),
                           ("air-route", "air-route (5.13)")):
            colour, width, dash = STROKES[feat]
            items.append(([el("line", x1=0, y1=-4, x2=16, y2=-4, stroke=colour, stroke_width=width,
                              stroke_dasharray=dash or None)], name))
        if turn:
            for kind, name in (("move", "move (5.1)"), ("strat-move", "strategic move (5.2)")):
                items.append(([el("line", x1=0, y1=-4, x2=15, y2=-4, stroke=ARROWS[kind], stroke_width=2.6,
                                  stroke_dasharray="5 3" if kind == "strat-move" else None,
                                  marker_end=f"url(#arrow-{kind})")], name))
            items.append(([el("circle", cx=7, cy=-4, r=6, fill=ARROWS["battle"], fill_opacity=0.55)], "battle (6.x)"))
        iw, ih = 190.0, 17.0
        per_row = max(1, int((self.width - 20) // iw))
        rows = -(-len(items) // per_row)
        w = ctx.pos.get("weather", {})
        facts = ["Weather (1.1): " + ", ".join(f"{z} {w.get(z, 'clear')}" for z in ZONES)]
        sa = {n: int(k) for n, k in sorted(ctx.pos.get("sa", {}).items()) if int(k)}
        facts.append("Special actions held (7.1): " + (", ".join(f"{n} {k}" for n, k in sa.items()) or "none"))
        height = 10 + len(facts) * 16 + rows * ih + 6
        out = [el("rect", x=0, y=top, width=self.width, height=height, fill="#f7f5ec")]
        for i, text in enumerate(facts):
            out.append(el("text", text, x=10, y=top + 20 + i * 16, font_size=12, font_weight="bold", fill="#222",
                          class_="weather" if i == 0 else "sa"))
        base = top + 14 + len(facts) * 16
        for k, (swatch, name) in enumerate(items):
            x, y = 10 + (k % per_row) * iw, base + 10 + (k // per_row) * ih
            out.append(group([*swatch, el("text", name, x=30, y=0)], transform=f"translate({x:.1f} {y:.1f})"))
        return group(out, id="legend", class_="legend"), height

    # --- the whole -------------------------------------------------------------------------------
    def svg(self, title: str, events: list[Event] | None = None) -> str:
        m = self.m
        layers = [self.links(), borders_layer(self.drawing, m, strokes=STROKES, only=STROKES),
                  places_layer(self.drawing, m, fill=self.fill), self.terrain(), names_layer(self.drawing, m),
                  self.contested(), self.works(), self.fleets(), self.blocks(), self.gs()]
        if events is not None:
            layers.append(self.turn(events))
        top = TITLE_H + self.map_h
        legend, lh = self.legend(top, events is not None)
        body = [arrow_defs({k: v for k, v in ARROWS.items() if k != "battle"}), self.title(title),
                group(layers, id="map", transform=f"translate(0 {TITLE_H:.0f})"), legend]
        plot, ph = self.werps(top + lh, events or [])
        if plot:
            body.append(plot)
        return document(self.width, top + lh + ph, body, title=title, style=STYLE)

    def werps(self, top: float, events: list[Event]) -> tuple[str, float]:
        """A production step's picture: each nation's WERPs available by game turn (ledger.py,
        4.5), drawn as pbem/site/plots.py draws the site's plots, in ``<g id="werps">``."""
        if not any(e.kind == "werps-table" for e in events):
            return "", 0.0
        from pbem.site import plots

        from . import ledger

        labels, lines = ledger.series(self.ctx.pos)
        chart = plots.line_chart("WERPs available by nation and game turn (4.5)", labels, lines, [], "werps-plot",
                                 "after strategic warfare and naval maintenance")
        w = min(float(plots.WIDTH), self.width - 20)
        h = w * plots.HEIGHT / plots.WIDTH
        chart = chart.replace("<svg ", f'<svg x="10" y="{top + 6:.1f}" width="{w:.1f}" height="{h:.1f}" ', 1)
        return group([el("rect", x=0, y=top, width=self.width, height=h + 12, fill="#ffffff"), chart], id="werps"), h + 12


def _title(ctx: Ctx, state: dict[str, Any]) -> str:
    c = state["clock"]
    return f"{ctx.sc.title}: {Turn.parse(str(c['turn'])).label}, {c['side']} {c['phase']}"


def position_svg(state: dict[str, Any], title: str = "") -> str:
    """The whole map with every block as its reader knows it (a view's hidden blocks blank)."""
    ctx = context(state)
    return Picture(ctx).svg(title or _title(ctx, state))


def turn_svg(state: dict[str, Any], events: list[Event], title: str) -> str:
    """The position after a step with its moves (arrows along their paths) and battles."""
    ctx = context(state)
    return Picture(ctx).svg(title or _title(ctx, state), list(events))
