"""Proud Monster map pictures: the position, and the picture of one turn (SVG).

Structure (ids and classes are part of the contract, tests rely on them):

- ``<g id="hexes">``: one ``<polygon id="hex-2817N" class="hex TERRAIN [germany] [zomo]">`` per hex;
- ``<g id="hexsides">``: one ``<line class="hexside FEATURE" data-hexside="A-B">`` per feature;
- ``<g id="works">``: the highway (``class="road"`` lines), fortifications (``class="fort|heavy
  STATE"`` and ``class="stalin STATE"`` with ``data-hex``) and hedgehogs (``class="hedgehog"``);
- ``<g id="supply">`` (option supply, when there are markers): the air supply markers (``class="air-supply"`` with ``data-hex``, 9.18);
- ``<g id="places">``: ``<g id="place-2817N" class="place city|large_town|town control-SIDE">``
  with the name and, where it has one, the VP value in a red circle (4.2);
- ``<g id="units">``: one ``<g id="unit-ID" class="unit SIDE NATIONALITY TYPE" data-hex="HEX">``
  per unit on the map: a counter in the colours of 2.8, the type symbol, the id, the printed
  attack-defense-movement of its current step (``?-?-MF`` for an untried Soviet unit, 2.15), its steps,
  its supply marker (``class="oos|as|air|lake"``: out of, attenuated, air or lake supply, 9.2-9.18) and a
  supply concentration marker (``class="concentration"``, 9.20);
- ``<g id="ground-support">``: one ``<g class="ground-support SIDE" data-air="ID" data-hex="HEX">`` per air
  unit committed to a stack (10.2, 10.4): a marker with its id and points;
- ``<g id="turn">`` (turn pictures only): ``class="move"`` arrows along movement paths,
  ``class="attack"`` arrows to each target with the odds and the result, ``class="advance"``
  arrows, ``class="retreat"`` arrows (German retreats, 14.32), ``class="control"`` rings on hexes that changed hands,
  ``class="sea"`` dashed arrows of naval moves (11.2-11.4: from each port, or the ``id="ports-box"`` Southern
  Ports Holding Box drawn in a corner, to the destination or the invasion's all-sea hex) and ``class="landing"``
  arrows from that hex ashore.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.view.hexmap import SQRT3, HexDrawing, Layout
from pbem.view.svg import document, el, group, num, points

from .data import Scenario, UnitSpec, shown_values

BOX = "ports-box"  # 11.3: the Southern Ports Holding Box, off the map
SEA_EVENTS = ("sea-move", "sea-landing", "sea-invasion")  # 11.2, 11.4

SIZE = 36.0

TERRAIN_FILL = {
    "clear": "#ece6c8", "forest": "#9fbf7f", "hills": "#cfae83", "swamp": "#a9cbbf", "sea": "#8fb9dc", "lake": "#a9d3ec",
}
SIDE_STROKE = {"river": ("#2f6fb7", 4.0, ""), "border": ("#7a2a6e", 2.5, "7 4"), "sivash": ("#178c8c", 5.0, "3 3"),
               "kerch": ("#178c8c", 5.0, "3 3"), "lake": ("#2f6fb7", 6.0, ""), "sea": ("#2f6fb7", 6.0, ""),
               "gas": ("#e07b00", 3.0, "9 3")}  # 9.3: the GAS line
# The supply marker of a counter (option supply): its text and colour (9.2-9.3, 9.16, 9.18).
SUPPLY_MARKERS = (("oos", "OOS", "#c0262d"), ("attenuated", "AS", "#e07b00"), ("air", "AIR", "#1d4ed8"),
                  ("lake", "LAKE", "#2f6fb7"))
CONTROL = {"german": "#333333", "soviet": "#c0262d"}

LEGEND_HEIGHT = 64  # the band under the map: the title, and a turn picture's key
STYLE = (
    ".hex{stroke:#8a8470;stroke-width:0.6}.hex.germany{fill-opacity:0.75}"
    ".hexid{font-size:7px;fill:#6d6858;text-anchor:middle}"
    ".place text{font-size:9px;font-weight:bold;text-anchor:middle;fill:#222}"
    ".vp{font-size:8px;fill:#fff;text-anchor:middle;font-weight:bold}"
    ".unit text{text-anchor:middle}.uid{font-size:7.5px;font-weight:bold}.uval{font-size:8px}"
    ".turn text{font-size:10px;font-weight:bold}"
)


def counter_colours(spec: UnitSpec) -> tuple[str, str]:
    """Background and print colours of a counter (2.8)."""
    if spec.side == "german":
        return {
            "hungarian": ("#3f7f3a", "#ffffff"), "italian": ("#3f7f3a", "#000000"), "romanian": ("#1f3f8f", "#ffffff"),
        }.get(spec.nat, ("#1a1a1a", "#ffffff") if spec.mechanized else ("#8c9079", "#000000"))
    if spec.steps == 2:
        return "#6b4a2b", "#ffffff"  # Guards
    if spec.type == "tank" and spec.size == "XX":
        return "#c0262d", "#ffffff"
    if spec.type in ("tank", "motorized") and spec.size == "X":
        return "#f2b8c6", "#000000"
    if spec.type == "motorized":
        return "#e3b93c", "#000000"
    if spec.type == "cavalry":
        return "#fbfbf5", "#6b4a2b"
    if spec.size == "X":
        return "#d8c29d", "#000000"
    return "#e3b93c", "#6b4a2b"


def type_symbol(spec: UnitSpec, x: float, y: float, w: float, h: float, ink: str) -> list[str]:
    """A NATO-style unit-type box: infantry X, cavalry /, tank oval, motorized X and oval, ..."""
    out = [el("rect", x=x, y=y, width=w, height=h, fill="none", stroke=ink, stroke_width=0.8)]
    line = {"stroke": ink, "stroke_width": 0.8}
    oval = el("ellipse", cx=x + w / 2, cy=y + h / 2, rx=w * 0.32, ry=h * 0.3, fill="none", **line)
    cross = [el("line", x1=x, y1=y, x2=x + w, y2=y + h, **line), el("line", x1=x, y1=y + h, x2=x + w, y2=y, **line)]
    diag = [el("line", x1=x, y1=y + h, x2=x + w, y2=y, **line)]
    t = spec.type
    if t == "tank":
        out.append(oval)
    elif t == "motorized":
        out += [*cross, oval]
    elif t == "armored-recon":
        out += [*diag, oval]
    elif t == "cavalry":
        out += diag
    elif t == "assault-gun":
        out += [oval, el("line", x1=x + w * 0.2, y1=y + h / 2, x2=x + w * 0.8, y2=y + h / 2, **line)]
    elif t == "flak":
        out.append(el("path", d=f"M{num(x + w * 0.2)},{num(y + h * 0.9)} Q{num(x + w / 2)},{num(y)} {num(x + w * 0.8)},{num(y + h * 0.9)}",
                      fill="none", **line))
    elif t == "mountain":
        out += [*cross, el("polygon", points=points([(x + w / 2, y + h * 0.55), (x + w * 0.35, y + h), (x + w * 0.65, y + h)]), fill=ink)]
    elif t == "siege-artillery":
        out.append(el("circle", cx=x + w / 2, cy=y + h / 2, r=h * 0.22, fill=ink))
    else:
        out += cross
    return out


def counter(spec: UnitSpec, steps: int, x: float, y: float, side_px: float, values: str | None = None,
            supply: str = "", concentration: bool = False) -> list[str]:
    """One counter, top-left at (x, y): colours, type symbol, id, the values it shows (``values``,
    else the printed attack-defense-movement of its current step), steps; ``supply``: the key of a
    small supply marker (SUPPLY_MARKERS: "oos", "attenuated", "air", "lake"); ``concentration``: a
    supply concentration marker (9.20)."""
    bg, ink = counter_colours(spec)
    if values is None:
        a, d, m = spec.factors(steps)
        values = f"{a}-{d}-{m}"
    out = [el("rect", x=x, y=y, width=side_px, height=side_px, rx=2, fill=bg, stroke="#000", stroke_width=0.7)]
    out += type_symbol(spec, x + side_px * 0.27, y + side_px * 0.28, side_px * 0.46, side_px * 0.3, ink)
    out.append(el("text", spec.id, x=x + side_px / 2, y=y + side_px * 0.24, class_="uid", fill=ink))
    out.append(el("text", values, x=x + side_px / 2, y=y + side_px * 0.9, class_="uval", fill=ink))
    if spec.steps > 1:
        for k in range(spec.steps):  # step pips: filled = steps left (2.14, 2.16)
            out.append(el("circle", cx=x + side_px - 3, cy=y + 4 + k * 4.2, r=1.5,
                          fill=ink if k < steps else "none", stroke=ink, stroke_width=0.5))
    for key, text, colour in SUPPLY_MARKERS:
        if supply == key:
            out.append(el("rect", x=x + 1, y=y + side_px * 0.62, width=side_px * 0.42, height=7, fill="#ffffff",
                          stroke=colour, stroke_width=0.6, class_="as" if key == "attenuated" else key))
            out.append(el("text", text, x=x + 1 + side_px * 0.21, y=y + side_px * 0.62 + 5.6, font_size=5.5,
                          fill=colour, font_weight="bold"))
    if concentration:
        out.append(el("circle", cx=x + 4, cy=y + 4, r=3.2, fill="#ffffff", stroke="#7c3aed", stroke_width=0.8,
                      class_="concentration"))
        out.append(el("text", "C", x=x + 4, y=y + 5.8, font_size=5, fill="#7c3aed", font_weight="bold"))
    return out


class Picture:
    """Draws a scenario's map (all of it, or the part around some hexes) with a position."""

    def __init__(self, sc: Scenario, hexes: list[str] | None = None, margin: int = 0) -> None:
        self.sc = sc
        m = sc.map
        ids = m.place_ids() if hexes is None else hexes
        grid = [m.grid_hex(h) for h in ids]
        self.col0 = min(h.col for h in grid) - margin
        self.col1 = max(h.col for h in grid) + margin
        self.row0 = min(h.row for h in grid) - margin
        self.row1 = max(h.row for h in grid) + margin
        self.layout = Layout(SIZE, self.col0, self.row0, margin=SIZE * 0.5)
        self.drawing = HexDrawing(m, self.layout)  # where each hex is drawn (pbem.view.places.PlaceDrawing)
        self.shown = [h for h in m.place_ids() if self.col0 <= m.grid_hex(h).col <= self.col1
                      and self.row0 <= m.grid_hex(h).row <= self.row1]

    def centre(self, hex_id: str) -> tuple[float, float]:
        return self.drawing.centre(hex_id)

    def size(self) -> tuple[float, float]:
        w, h = self.layout.extent(self.col1 - self.col0 + 1, self.row1 - self.row0 + 1)
        return w, h + LEGEND_HEIGHT  # room for the title and the key

    # --- layers --------------------------------------------------------------------------------
    def hexes(self) -> str:
        out = []
        for h in self.shown:
            spec = self.sc.map.hexes[h]
            cls = f"hex {spec.terrain}" + (f" {spec.country}" if spec.country != "ussr" else "") + (" zomo" if spec.zomo else "")
            pts = self.drawing.outline(h)
            out.append(el("polygon", id=f"hex-{h}", class_=cls, points=points(pts), fill=TERRAIN_FILL[spec.terrain]))
            cx, cy = self.centre(h)
            out += self.texture(spec.terrain, cx, cy)
            if spec.country == "germany":
                out.append(el("polygon", points=points(pts), fill="#5a5a5a", fill_opacity=0.18, stroke="none"))
            out.append(el("text", h, x=cx, y=cy - SIZE * SQRT3 / 2 + 8, class_="hexid"))
        return group(out, id="hexes")

    @staticmethod
    def texture(terrain: str, cx: float, cy: float) -> list[str]:
        if terrain == "forest":
            return [el("circle", cx=cx + dx, cy=cy + dy, r=3.2, fill="#5f8f4a", fill_opacity=0.7)
                    for dx, dy in ((-12, 10), (0, 14), (12, 10))]
        if terrain == "hills":
            return [el("path", d=f"M{num(cx + dx - 6)},{num(cy + 14)} L{num(cx + dx)},{num(cy + 6)} L{num(cx + dx + 6)},{num(cy + 14)}",
                       fill="none", stroke="#8b6b43", stroke_width=1.2) for dx in (-9, 9)]
        if terrain == "swamp":
            return [el("line", x1=cx - 12 + dx, y1=cy + 12 + dy, x2=cx - 4 + dx, y2=cy + 12 + dy, stroke="#4f7f6f", stroke_width=1.2)
                    for dx, dy in ((0, 0), (10, 4), (4, -4), (14, -2))]
        return []

    def works(self, position: dict[str, Any]) -> str:
        """The highway (12.20) as a road between adjacent road hexes, fortifications (14.24-14.30)
        with their state, and hedgehogs (14.40): ``<g id="works">`` with classes ``road``,
        ``fort STATE``, ``heavy STATE``, ``stalin STATE`` and ``hedgehog``."""
        out = []
        roads = [h for h in self.shown if self.sc.map.hexes[h].road]
        road_set = set(roads)
        for h in roads:
            for n in self.sc.map.neighbours(h):
                if n in road_set and h < n:
                    (x1, y1), (x2, y2) = self.centre(h), self.centre(n)
                    out.append(el("line", class_="road", x1=x1, y1=y1 + 10, x2=x2, y2=y2 + 10, stroke="#8a5a2b",
                                  stroke_width=2.5, stroke_opacity=0.8))
        forts = position.get("forts", {})
        stalin = position.get("stalin", {})
        for h in self.shown:
            spec = self.sc.map.hexes[h]
            cx, cy = self.centre(h)
            if spec.fort:
                state = forts.get(h, "intact")
                colour = "#555" if state in ("destroyed", "cancelled") else "#c0262d"
                r = 5.0 if spec.fort == "fort" else 7.0
                pts = [(cx - SIZE * 0.62 + dx, cy + SIZE * 0.05 + dy) for dx, dy in ((0, -r), (r, 0), (0, r), (-r, 0))]
                out.append(el("polygon", class_=f"{spec.fort} {state}", data_hex=h, points=points(pts), fill="none",
                              stroke=colour, stroke_width=2, stroke_dasharray="2 2" if state == "uncompleted" else None))
            if spec.stalin:
                state = stalin.get(h, "intact")
                out.append(el("text", "SL", class_=f"stalin {state}", data_hex=h, x=cx + SIZE * 0.6, y=cy + SIZE * 0.2,
                              font_size=8, font_weight="bold", fill="#555" if state == "destroyed" else "#c0262d",
                              text_anchor="middle"))
        for h in sorted(position.get("hedgehogs", [])):
            if h in self.shown:
                cx, cy = self.centre(h)
                out.append(el("circle", class_="hedgehog", data_hex=h, cx=cx, cy=cy, r=SIZE * 0.7, fill="none",
                              stroke="#333", stroke_width=2.5, stroke_dasharray="1 3"))
        return group(out, id="works")

    def air(self, position: dict[str, Any]) -> str:
        """The air units committed to stacks (10.2, 10.4): a marker with the id and the points right of
        the stack's top counter (``<g id="ground-support">``, one ``class="ground-support SIDE"`` group each)."""
        out = []
        for n, r in sorted(position.get("ground_support", {}).items()):
            if r["hex"] not in self.shown:
                continue
            cx, cy = self.centre(r["hex"])
            x, y, w = cx + SIZE * 0.3, cy - SIZE * 0.14, SIZE * 0.6  # right of the top counter, below the VP circle
            fill, ink = ("#1f4e8c", "#ffffff") if r["side"] == "german" else ("#c0262d", "#ffffff")
            parts = [el("rect", x=x, y=y, width=w, height=10, rx=5, fill=fill, stroke="#000", stroke_width=0.5),
                     el("text", f"{n} {r['points']}", x=x + w / 2, y=y + 7.4, font_size=6.5, font_weight="bold",
                        fill=ink, text_anchor="middle")]
            out.append(group(parts, class_=f"ground-support {r['side']}", data_air=n, data_hex=r["hex"]))
        return group(out, id="ground-support") if out else ""

    def supply(self, position: dict[str, Any]) -> list[str]:
        """The air supply markers (9.18): ``<g id="supply">`` with ``class="air-supply"`` per hex; no
        layer when there is none."""
        if not position.get("air_supply"):
            return []
        out = []
        for h in sorted(position.get("air_supply", [])):
            if h in self.shown:
                cx, cy = self.centre(h)
                x, y = cx + SIZE * 0.35, cy - SIZE * 0.75
                out.append(group([el("rect", x=x, y=y, width=20, height=9, rx=2, fill="#1d4ed8", stroke="#fff",
                                     stroke_width=0.6),
                                  el("text", "AIR", x=x + 10, y=y + 7, font_size=6.5, fill="#fff", font_weight="bold",
                                     text_anchor="middle")], class_="air-supply", data_hex=h))
        return [group(out, id="supply")]

    def hexsides(self) -> str:
        out = []
        for border in self.sc.map.borders():
            a, b, feats = border.a, border.b, border.features
            key = f"{a}-{b}"
            if a not in self.shown or b not in self.shown:
                continue
            edge = self.drawing.border(a, b)
            if edge is None:
                continue
            (x1, y1), (x2, y2) = edge
            for f in sorted(feats):
                colour, width, dash = SIDE_STROKE[f]
                out.append(el("line", class_=f"hexside {f}", data_hexside=key, x1=x1, y1=y1, x2=x2, y2=y2, stroke=colour,
                              stroke_width=width, stroke_dasharray=dash or None, stroke_linecap="round"))
        return group(out, id="hexsides")

    def places(self, control: dict[str, str]) -> str:
        out = []
        named: set[str] = set()
        for h in self.shown:
            spec = self.sc.map.hexes[h]
            if not spec.settlement and (not spec.place or spec.place in named):
                continue  # a sea or lake name is written once, on its first hex
            named.add(spec.place)
            cx, cy = self.centre(h)
            owner = control.get(h, "")
            colour = CONTROL.get(owner, "#555")
            parts = []
            if spec.settlement == "city":
                parts.append(el("rect", x=cx - 9, y=cy - 7, width=18, height=12, fill=colour, stroke="#000", stroke_width=0.6))
            elif spec.settlement == "large_town":
                parts.append(el("rect", x=cx - 6, y=cy - 5, width=12, height=9, fill=colour, stroke="#000", stroke_width=0.6))
            elif spec.settlement == "town":
                parts.append(el("circle", cx=cx, cy=cy - 1, r=4.5, fill=colour, stroke="#000", stroke_width=0.6))
            if spec.place:
                parts.append(el("text", spec.place, x=cx, y=cy + SIZE * 0.74))
            if spec.vp:
                parts.append(el("circle", cx=cx + SIZE * 0.55, cy=cy - SIZE * 0.42, r=6.5, fill="#c0262d"))
                parts.append(el("text", str(spec.vp), x=cx + SIZE * 0.55, y=cy - SIZE * 0.42 + 3, class_="vp"))
            cls = f"place {spec.settlement or 'named'}" + (f" control-{owner}" if owner else "")
            out.append(group(parts, id=f"place-{h}", class_=cls))
        return group(out, id="places")

    def units(self, units: dict[str, dict[str, Any]], hidden: dict[str, int] | None = None,
              options: dict[str, Any] | None = None, position: dict[str, Any] | None = None) -> str:
        """The counters; ``position`` gives their supply markers (option supply: ``oos``,
        ``attenuated``, ``air``, ``lake``, ``concentration``)."""
        pos = position or {}
        marker = {u: key for key, _, _ in reversed(SUPPLY_MARKERS) for u in pos.get(key, ())}
        chosen = set(pos.get("concentration", ()))
        stacks: dict[str, list[str]] = {}
        for u in sorted(units):
            s = units[u]
            if s["at"] not in self.shown:
                continue
            stacks.setdefault(str(s["at"]), []).append(u)
        out = []
        side_px = SIZE * 0.95
        for h, us in sorted(stacks.items()):
            cx, cy = self.centre(h)
            # the stack is drawn bottom first, each counter offset up and left: the top unit is
            # the last of the hex's units in id order, as `pbem show` lists them
            for k, u in enumerate(us):
                off = (len(us) - 1 - k) * 3.0
                x, y = cx - side_px / 2 + off - 4, cy - side_px / 2 + off - 2
                spec = self.sc.units[u]
                shown = shown_values(spec, units[u], options or {})
                out.append(group(counter(spec, int(units[u]["steps"]), x, y, side_px, shown, marker.get(u, ""), u in chosen),
                                 id=f"unit-{u}",
                                 class_=f"unit {spec.side} {spec.nat} {spec.type}", data_hex=h))
            count = len(us) + (hidden or {}).get(h, 0)
            if count > 1:
                out.append(el("text", f"×{count}", x=cx + side_px / 2 - 2, y=cy + side_px / 2 + 8, font_size=9,
                              font_weight="bold", class_="stackcount"))
        return group(out, id="units")

    # --- turn overlay --------------------------------------------------------------------------
    def box_anchor(self) -> tuple[float, float]:
        """Where naval moves to and from the off-map Holding Box start and end (11.3)."""
        _, h = self.size()
        return 70.0, h - 58.0

    def sea_moves(self, events: list[Event]) -> list[str]:
        """Naval moves (11.2-11.4): a dashed arrow from each port (or the Box) to the destination port
        (or the Box) or to the invasion's all-sea hex, and for a landing an arrow from there ashore."""
        out: list[str] = []
        sea = [e for e in events if e.kind in SEA_EVENTS]
        if any(BOX in (e.data.get("to"), *e.data["from"].values()) for e in sea):
            x, y = self.box_anchor()
            out.append(group([el("rect", x=x - 62, y=y - 2, width=124, height=16, rx=3, fill="#ffffff", fill_opacity=0.85,
                                 stroke="#1e3a8a"),
                              el("text", "Holding Box (11.3)", x=x, y=y + 10, text_anchor="middle", font_size=9,
                                 fill="#1e3a8a")], id="ports-box"))

        def at(where: str) -> tuple[float, float] | None:
            if where == BOX:
                return self.box_anchor()
            return self.centre(where) if where in self.shown else None

        for e in sea:
            d = e.data
            end = d["to"] if e.kind == "sea-move" else d["sea"]
            for start in sorted(set(d["from"].values())):
                a, b = at(start), at(end)
                if a is None or b is None:
                    continue
                units = " ".join(u for u in d["units"] if d["from"][u] == start)
                out.append(el("line", class_="sea", data_units=units, data_to=end, x1=a[0], y1=a[1] + 4, x2=b[0], y2=b[1] + 4,
                              stroke="#1e3a8a", stroke_width=2.5, stroke_dasharray="8 4", marker_end="url(#arrow-sea)"))
            if e.kind == "sea-landing" and d["sea"] in self.shown and d["target"] in self.shown:
                (x1, y1), (x2, y2) = self.centre(d["sea"]), self.centre(d["target"])
                out.append(el("line", class_="landing", data_hex=d["target"], x1=x1, y1=y1, x2=x2, y2=y2, stroke="#1e3a8a",
                              stroke_width=3, marker_end="url(#arrow-sea)"))
        return out

    def turn(self, events: list[Event]) -> str:
        out = self.sea_moves(events)
        for e in events:
            d = e.data
            if e.kind == "move":
                hexes = [d["from"], *d["path"]]
                pts = [self.centre(h) for h in hexes if h in self.shown]
                if len(pts) > 1:
                    out.append(el("polyline", class_="move", data_units=" ".join(d["units"]), points=points(pts), fill="none",
                                  stroke="#1d4ed8", stroke_width=3, stroke_opacity=0.85, marker_end="url(#arrow-move)"))
            elif e.kind in ("attack", "mobile-assault"):  # a mobile assault (15.2) is drawn as an attack
                tx, ty = self.centre(d["target"])
                for hx in sorted({r["hex"] for r in d["attackers"]}):
                    x, y = self.centre(hx)
                    fx, fy = x + (tx - x) * 0.25, y + (ty - y) * 0.25
                    ex, ey = x + (tx - x) * 0.72, y + (ty - y) * 0.72
                    out.append(el("line", class_="attack", data_target=d["target"], x1=fx, y1=fy, x2=ex, y2=ey, stroke="#d91e18",
                                  stroke_width=3.5, marker_end="url(#arrow-attack)"))
                label = f"{d['final']} {d['outcome']}"
                out.append(el("rect", x=tx - 27, y=ty - SIZE * 0.9 - 11, width=54, height=14, rx=3, fill="#fff", stroke="#d91e18"))
                out.append(el("text", label, x=tx, y=ty - SIZE * 0.9, text_anchor="middle", fill="#d91e18", class_="attack-label"))
            elif e.kind == "retreat" and d.get("retreated"):  # 14.32: a German retreat after combat
                (x, y), (tx, ty) = self.centre(d["hex"]), self.centre(d["to"])
                out.append(el("line", class_="retreat", data_hex=d["to"], x1=x, y1=y - 6, x2=tx, y2=ty - 6,
                              stroke="#0f766e", stroke_width=2.5, stroke_dasharray="3 3", marker_end="url(#arrow-retreat)"))
            elif e.kind == "control":
                cx, cy = self.centre(d["hex"])
                out.append(el("circle", class_="control", data_hex=d["hex"], cx=cx, cy=cy, r=SIZE * 0.8, fill="none",
                              stroke=CONTROL.get(d["now"], "#000"), stroke_width=3, stroke_dasharray="5 3"))
        attacks = {e.data["index"]: e.data for e in events if e.kind == "attack"}
        for e in events:
            if e.kind == "advance" and e.data["units"] and e.data["index"] in attacks:
                a = attacks[e.data["index"]]
                src = next((r["hex"] for r in a["attackers"] if r["unit"] in e.data["units"]), None)
                if src:
                    (x, y), (tx, ty) = self.centre(src), self.centre(e.data["hex"])
                    out.append(el("line", class_="advance", data_hex=e.data["hex"], x1=x, y1=y + 6, x2=tx, y2=ty + 6,
                                  stroke="#7c3aed", stroke_width=2.5, stroke_dasharray="6 3", marker_end="url(#arrow-advance)"))
        return group(out, id="turn", class_="turn")

    @staticmethod
    def defs() -> str:
        def arrow(name: str, colour: str) -> str:
            return (f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
                    f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')

        return ("<defs>" + arrow("move", "#1d4ed8") + arrow("attack", "#d91e18") + arrow("advance", "#7c3aed")
                + arrow("retreat", "#0f766e") + arrow("sea", "#1e3a8a") + "</defs>")

    def legend(self, text: str, turn: bool = False) -> str:
        """The title, in a size that fits the picture's width, and the key of what the picture
        draws: the arrows and rings of a turn, the markers of the position."""
        w, h = self.size()
        top = h - LEGEND_HEIGHT
        size = max(6.0, min(11.0, (w - 20) / max(1, 0.56 * len(text))))
        out = [el("rect", x=0, y=top, width=w, height=LEGEND_HEIGHT, fill="#f7f5ec"),
               el("text", text, x=10, y=top + 16, font_size=round(size, 1), class_="title")]
        keys: list[tuple[str, str]] = []
        if turn:
            keys = [(f'<line x1="0" y1="0" x2="18" y2="0" stroke="{c}" stroke-width="2.5"{dash} marker-end="url(#arrow-{k})"/>', label)
                    for k, c, dash, label in (("move", "#1d4ed8", "", "move"), ("attack", "#d91e18", "", "attack (odds, result)"),
                                              ("advance", "#7c3aed", ' stroke-dasharray="6 3"', "advance"),
                                              ("retreat", "#0f766e", ' stroke-dasharray="3 3"', "retreat"),
                                              ("sea", "#1e3a8a", ' stroke-dasharray="8 4"', "by sea"))]
            keys.append(('<circle cx="9" cy="0" r="6" fill="none" stroke="#555" stroke-width="2" stroke-dasharray="5 3"/>',
                         "control changes"))
        x, y = 10.0, top + 34
        for shape, label in keys:
            width = 30 + 5.6 * len(label)
            if x > 10 and x + width > w - 6:  # the next row of the key
                x, y = 10.0, y + 16
            out.append(f'<g transform="translate({x:.1f},{y:.1f})" class="key">{shape}'
                       f'<text x="24" y="4" font-size="9">{label}</text></g>')
            x += width + 8
        return group(out, id="legend", class_="legend")


def position_svg(sc: Scenario, state: dict[str, Any], side: str | None = None) -> str:
    """The whole map with the position of ``state`` (as ``side`` may see it: the basic game
    hides nothing, A.4 and the 14.7 beginner note)."""
    pic = Picture(sc)
    pos = state["position"]
    c = state["clock"]
    w, h = pic.size()
    title = f"{sc.title}: GT{c['turn']}, sequence {c['pts']}, {c['side'] or '-'} {c['phase']}; German VP {pos['vp']}"
    if pos.get("pause", {}).get("state") == "in-force":  # 9.19
        title += f"; von Paulus Pause {pos['pause']['first']} to {pos['pause']['last']}"
    body = [pic.defs(), pic.hexes(), pic.hexsides(), pic.works(pos), *pic.supply(pos), pic.places(pos["control"]),
            pic.units(pos["units"], pos.get("hidden"), state.get("options"), pos), pic.air(pos),
            pic.legend(title)]
    return document(w, h, [b for b in body if b], title=title, style=STYLE)


def turn_hexes(sc: Scenario, events: list[Event]) -> list[str]:
    """The hexes of the map where a turn happened (moves, attacks, advances, control changes ...);
    none when nothing happened on the map (then the turn has no picture)."""
    touched: list[str] = []
    for e in events:
        d = e.data
        if e.kind == "move":
            touched += [d["from"], *d["path"]]
        elif e.kind in ("attack", "mobile-assault"):
            touched += [d["target"], *(r["hex"] for r in d["attackers"])]
        elif e.kind in ("control", "advance"):
            touched.append(d["hex"])
        elif e.kind == "retreat" and d.get("retreated"):
            touched += [d["hex"], d["to"]]
        elif e.kind == "setup":  # 3.2-3.7: the hexes a players' set-up filled
            touched += list(d["hexes"])
        elif e.kind in SEA_EVENTS:  # 11.2-11.4
            touched += [*d["from"].values(), d.get("to", ""), d.get("sea", ""), d.get("target", "")]
        elif e.kind == "ground-support":  # 10.2, 10.4: where the air units were committed
            touched += [x["hex"] for x in d["placed"]]
    return [h for h in touched if h in sc.map.hexes]


def turn_svg(sc: Scenario, state: dict[str, Any], events: list[Event], title: str) -> str | None:
    """The part of the map where a turn happened, with its moves, attacks, advances and control
    changes over the position after it; None when nothing happened on the map."""
    touched = turn_hexes(sc, events)
    if not touched:
        return None
    pic = Picture(sc, touched, margin=2)
    pos = state["position"]
    w, h = pic.size()
    body = [pic.defs(), pic.hexes(), pic.hexsides(), pic.works(pos), *pic.supply(pos), pic.places(pos["control"]),
            pic.units(pos["units"], None, state.get("options"), pos), pic.air(pos), pic.turn(events),
            pic.legend(title, turn=True)]
    return document(w, h, [b for b in body if b], title=title, style=STYLE)
