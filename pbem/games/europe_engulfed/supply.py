"""Supply (3.x): the Initial (1.21) and Final (1.27, 3.6) Supply Determination Phases, recovery
(3.5), Limited Supply (7.9), and the end of a player-turn (6.96).

A block (or GS marker) of a nation is in supply when (3.1-3.3):
- it is automatically in supply where it stands (3.2): a minor power in its own home area; the
  USSR in the Ural Mountains and Baku, the U.S.A. in the U.S.A. box; the USSR in the Leningrad
  Fortress while it controls Ladoga and Ladoga is in supply; or
- a chain of friendly-controlled areas (straits crossed; friendly contested areas entered and
  crossed; an enemy-controlled contested area only as the line's end: 3.1) joins its area to a
  supply source of its nation: a friendly-controlled home area of the nation, even when contested
  (3.2; for the U.S.A. the British areas too). A major power in one of its home areas traces to
  another one (3.2). No line crosses an ungarrisoned conquered resource area (4.7b; British and US
  lines cross Alexandria while it is British, German lines friendly Italian areas); Axis lines
  cross Vichy territory (9.52, the stand-in of the section 9 rule); or
- it traces overland to a friendly port, then across one sea leg of one or more sea zones (3.3)
  to another friendly port, then overland to a source: every sea zone crossed takes 1 of its
  fleet points' supply capacity (3.31: 4 per British, French or US FP, 3 per Axis or Soviet FP;
  Soviet and Western FPs never mixed; the Mediterranean reductions of 3.33); a unit around the Cape
  counts 4 on the Atlantic (3.32), one through a beachhead 2 (7.22). Consecutive zones are joined
  where the fleet transfer conditions hold (A-12: Gibraltar for the Atlantic and the
  Mediterranean, Denmark or the Ruhr for the Atlantic and the Baltic). The capacity is shared:
  the units supplied are the most that fit, ties broken by the owner's priority (A-70: the
  standing ``losses`` list reversed, blocks not in it first by id, then GS markers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.places import BOX, SEA
from pbem.mechanics.supply import supplied

from .context import OOS, OOS_MOVED, Ctx, other
from .data import ALLIES, AXIS, AXIS_MINORS, MAJORS, NATIONS, VICHY

KEYS = ("final",)

WESTERN = frozenset({"britain", "france", "usa"})  # 3.31: the Western Allies' FPs
AXIS_COUNTRIES = frozenset({"germany", "italy", *AXIS_MINORS})  # 4.7: the Axis's own countries
LENINGRAD, LADOGA = "leningrad-fortress", "ladoga"  # 3.2
MEDITERRANEAN, ATLANTIC = "mediterranean", "atlantic"  # 3.32, 3.33
# sea zones joined in one sea leg where the fleet transfer conditions hold (8.31, 8.32):
# any of these areas controlled by the side tracing.
ZONE_LINKS: dict[frozenset[str], tuple[str, ...]] = {
    frozenset({"atlantic", "mediterranean"}): ("gibraltar",),
    frozenset({"atlantic", "baltic"}): ("denmark", "ruhr"),
}


def fp_class(ctx: Ctx, nation: str) -> str:
    """Whose fleet points carry a nation's supply (3.31): axis, ussr or western."""
    if ctx.side_of_nation(nation) == AXIS:
        return "axis"
    return "ussr" if nation == "ussr" else "western"


@dataclass(frozen=True)
class Route:
    """A sea leg: the zones crossed and what it takes of each zone's capacity."""

    zones: tuple[str, ...]
    demand: tuple[tuple[str, int], ...]
    cape: bool = False
    beachhead: bool = False


class Net:
    """The supply lines of one side in the position of a context (worked out once per nation)."""

    def __init__(self, ctx: Ctx, side: str) -> None:
        self.ctx, self.side = ctx, side
        self._reached: dict[tuple[str, str], frozenset[str]] = {}
        self._ends: dict[str, frozenset[str]] = {}
        self._caps: dict[str, dict[str, int]] = {}

    # --- areas --------------------------------------------------------------------------------
    def friendly(self, a: str) -> bool:
        ar = self.ctx.area(a)
        if ar.kind == BOX:  # the U.S.A. box is its nation's (3.2)
            return self.ctx.side_of_nation(ar.home) == self.side
        c = self.ctx.controller(a)
        return c == self.side or (self.side == AXIS and c == VICHY)  # 9.52: Axis lines cross Vichy territory

    def garrison_needed(self, a: str, nation: str) -> frozenset[str] | None:
        """4.7: the nations whose ground units garrison a friendly resource area the line would
        cross, or None when it needs no garrison (or the nation's line may cross it anyway, 4.7b)."""
        ar = self.ctx.area(a)
        if not ar.resource or self.ctx.controller(a) != self.side:
            return None
        if ar.garrison:  # Alexandria: a British ground unit; British and US lines cross it anyway
            return None if nation in ("britain", "usa") else frozenset({ar.garrison})
        if self.side == AXIS:
            if ar.country in AXIS_COUNTRIES:  # Italian areas need none until Italy falls (9.46, later)
                return None
            return frozenset(n for n in NATIONS if self.ctx.side_of_nation(n) == AXIS)
        if ar.country in ("germany", "italy"):
            return WESTERN
        if ar.country in NATIONS and self.ctx.side_of_nation(ar.country) == ALLIES:
            return None  # an Allied country's own area (the USSR's areas included)
        # conquered elsewhere (the USSR's conquests, 4.7; the Western Allies' alike): an Allied garrison
        return frozenset(n for n in NATIONS if self.ctx.side_of_nation(n) == ALLIES)

    def ungarrisoned(self, a: str, nation: str) -> bool:
        need = self.garrison_needed(a, nation)
        if need is None:
            return False
        return not any(self.ctx.nation(u) in need for u in self.ctx.units_in(a))

    def ends(self, nation: str) -> frozenset[str]:
        """The places a line may enter but not cross: enemy-controlled contested areas (3.1) and
        ungarrisoned conquered resource areas (4.7b)."""
        if nation not in self._ends:
            out = set()
            for a, ar in self.ctx.sc.map.areas.items():
                if not ar.ground:
                    continue
                if self.ctx.contested(a) and self.ctx.controller(a) == other(self.side):
                    out.add(a)
                elif self.friendly(a) and self.ungarrisoned(a, nation):
                    out.add(a)
            self._ends[nation] = frozenset(out)
        return self._ends[nation]

    def sources(self, nation: str) -> frozenset[str]:
        """3.2: the nation's friendly-controlled home areas (contested or not); for the U.S.A.
        the British ones too (Glossary "Home Area")."""
        homes = {nation, "britain"} if nation == "usa" else {nation}
        return frozenset(a for a, ar in self.ctx.sc.map.areas.items()
                         if ar.ground and ar.home in homes and self.friendly(a) and a not in self.ends(nation))

    def closed(self, nation: str) -> frozenset[str]:
        ends = self.ends(nation)
        return frozenset(a for a, ar in self.ctx.sc.map.areas.items() if not ar.ground or not (a in ends or self.friendly(a)))

    def reached(self, nation: str, without: str = "") -> frozenset[str]:
        """Every place whose line reaches a source of the nation overland (3.1); ``without``: a
        source left out (a major power in a home area traces to another one, 3.2)."""
        key = (nation, without)
        if key not in self._reached:
            srcs = self.sources(nation) - {without}
            ends = self.ends(nation) | ({without} if without else set())
            self._reached[key] = supplied(self.ctx.sc.map.places, sorted(srcs), self.closed(nation) - ends, _border_open, ends)
        return self._reached[key]

    def automatic(self, a: str, nation: str) -> str:
        """3.2: why a unit of the nation is in supply where it stands whatever its lines, or ""."""
        ar = self.ctx.area(a)
        if ar.supply_source and ar.home == nation:
            return f"automatically in supply in {ar.name} (3.2)"
        if a == LENINGRAD and nation == "ussr" and self.ctx.controller(LADOGA) == self.side and self.overland(LADOGA, "ussr"):
            return "automatically in supply in the Leningrad Fortress: the USSR holds Ladoga and it is in supply (3.2)"
        if nation not in MAJORS and ar.home == nation:
            return "a minor power in its own home area (3.2)"
        if nation == "france" and self.ctx.controller(a) == VICHY:  # 9.52 (section 9's rule, stood in for here)
            return "Vichy French ground units are always in supply (9.52)"
        return ""

    def overland(self, a: str, nation: str) -> bool:
        """3.1, 3.2: a chain of friendly areas to a source (to another one from a major's home area)."""
        homes = {nation, "britain"} if nation == "usa" else {nation}
        if nation in MAJORS and self.ctx.area(a).home in homes:
            return a in self.reached(nation, a)
        return a in self.reached(nation)

    # --- sea legs -----------------------------------------------------------------------------
    def port_zones(self, a: str, exit_port: bool = False) -> tuple[tuple[str, ...], bool]:
        """The sea zones a friendly port area is on, and whether it is a port only as the side's
        beachhead (7.22: counts 2)."""
        ar = self.ctx.area(a)
        zones = tuple(ar.ports)
        if self.friendly(a) and zones:
            if not self.ctx.port_open(a, self.side):  # Glossary "Fortress", A-01
                return (), False
            return zones, False
        if not exit_port and self.ctx.pos.get("beachheads", {}).get(a) == self.side:
            return tuple(sorted({*zones, *ar.invasion})), True
        return (), False

    def capacity(self, cls: str) -> dict[str, int]:
        """3.31, 3.33: the supply capacity of each sea zone for a class of FPs."""
        if cls not in self._caps:
            per = self.ctx.sc.charts["t10_naval_supply"].data["per_fp"]
            minus = 0
            enemy = other(self.side)
            if any(self.ctx.controller(a) == enemy for a in ("malta", "sicily", "sardinia")):
                minus += 1  # 3.33 (1)
            if cls == "western" and self.ctx.controller("crete") == AXIS:
                minus += 1  # 3.33 (2)
            caps: dict[str, int] = {}
            for z, by in sorted(self.ctx.pos.get("fleets", {}).items()):
                total = 0
                for n, k in sorted(by.items()):
                    if fp_class(self.ctx, n) != cls:
                        continue
                    each = int(per.get(n, per.get("axis", 3) if cls == "axis" else 3))
                    total += int(k) * max(0, each - (minus if z == MEDITERRANEAN else 0))
                caps[z] = total
            self._caps[cls] = caps
        return self._caps[cls]

    def zone_links(self, cls: str) -> dict[str, list[tuple[str, bool]]]:
        """The sea zones a leg may pass between (A-12), with whether the link is the Cape route
        (3.32: Western Allies only)."""
        out: dict[str, list[tuple[str, bool]]] = {}
        places = self.ctx.sc.map.places
        for z in self.ctx.sc.map.of_kind(SEA):
            for n in places.neighbours(z):
                if self.ctx.area(n).kind != SEA:
                    continue
                feats = places.border_features(z, n)
                if "cape-route" in feats:
                    if cls == "western":
                        out.setdefault(z, []).append((n, True))
                    continue
                need = ZONE_LINKS.get(frozenset({z, n}))
                if need is not None and any(self.ctx.controller(a) == self.side for a in need):
                    out.setdefault(z, []).append((n, False))
        return out

    def routes(self, a: str, nation: str) -> list[Route]:
        """3.3: the sea legs a unit of the nation in area ``a`` may trace supply by (one leg each,
        possibly over several zones), cheapest first; those no zone's capacity allows left out."""
        ctx = self.ctx
        ends = self.ends(nation)
        # overland from the unit to the ports it reaches (the unit's own area may be an end: the
        # line comes into it)
        shut = {p for p, ar in ctx.sc.map.areas.items() if not ar.ground or not self.friendly(p) or p in ends} - {a}
        seen = supplied(ctx.sc.map.places, [a], shut, _border_open)
        entry: dict[str, bool] = {}  # zone -> only through a beachhead
        for p in sorted(seen):
            zones, bh = self.port_zones(p)
            for z in zones:
                entry[z] = entry.get(z, True) and bh
        reached = self.reached(nation)
        exits: set[str] = set()
        for p, ar in ctx.sc.map.areas.items():
            if p == a or p in seen or not ar.ground or p not in reached:
                continue
            if p in ends and p not in self.sources(nation):
                continue
            zones, _ = self.port_zones(p, exit_port=True)
            exits.update(zones)
        cls = fp_class(ctx, nation)
        links = self.zone_links(cls)
        caps = self.capacity(cls)
        found: dict[tuple[tuple[str, int], ...], Route] = {}

        def walk(path: list[str], cape: bool, bh: bool) -> None:
            z = path[-1]
            if z in exits:
                demand: dict[str, int] = {}
                cape_zones = {p for p in path if cape and _is_cape_end(ctx, p)}
                for p in path:
                    if p in cape_zones:
                        continue
                    demand[p] = (4 if cape and p == ATLANTIC else 1) * (2 if bh else 1)
                if all(caps.get(zz, 0) >= k for zz, k in demand.items()):
                    key = tuple(sorted(demand.items()))
                    r = Route(tuple(path), key, cape, bh)
                    if key not in found or len(r.zones) < len(found[key].zones):
                        found[key] = r
            for n, is_cape in links.get(z, []):
                if n not in path:
                    walk([*path, n], cape or is_cape, bh)

        for z in sorted(entry):
            walk([z], False, entry[z])
        return sorted(found.values(), key=lambda r: (sum(k for _, k in r.demand), r.demand))


def _is_cape_end(ctx: Ctx, zone: str) -> bool:
    """A sea zone joined to the others only by the Cape route (the Red Sea, the Persian Gulf: 3.32):
    a leg around the Cape takes nothing of it."""
    places = ctx.sc.map.places
    seas = [n for n in places.neighbours(zone) if ctx.area(n).kind == SEA]
    return bool(seas) and all("cape-route" in places.border_features(zone, n) for n in seas)


def _border_open(toward: str, away: str, feats: frozenset[str]) -> bool:
    """3.1: lines cross land borders and straits; an air-route alone is no land border."""
    return not (feats == frozenset({"air-route"}) or "passage" in feats or "cape-route" in feats)


# --- the allocation of sea capacity (3.31, A-70) ----------------------------------------------

def allocate(items: list[tuple[str, list[Route]]], caps: dict[str, int]) -> dict[str, Route]:
    """The sea leg of each item supplied: the most items that the zones' capacities allow (3.31,
    A-70), ties broken by the order of ``items`` (the first ones first). Items with the same
    routes are alike: the search runs over how many of each group take each route."""
    groups: dict[tuple[Route, ...], list[str]] = {}
    for name, routes in items:
        if routes:
            groups.setdefault(tuple(routes), []).append(name)
    keys = list(groups)
    zones = sorted(caps)
    start = tuple(caps[z] for z in zones)

    def best(mins: tuple[int, ...]) -> tuple[int, tuple[tuple[int, ...], ...]] | None:
        @cache
        def go(g: int, left: tuple[int, ...]) -> tuple[int, tuple[tuple[int, ...], ...]] | None:
            if g == len(keys):
                return 0, ()
            routes, n = keys[g], len(groups[keys[g]])
            result: tuple[int, tuple[tuple[int, ...], ...]] | None = None
            for counts in _splits(routes, n, left, zones):
                if sum(counts) < mins[g]:
                    continue
                rest = list(left)
                for r, c in zip(routes, counts, strict=True):
                    for z, k in r.demand:
                        rest[zones.index(z)] -= k * c
                sub = go(g + 1, tuple(rest))
                if sub is not None and (result is None or sum(counts) + sub[0] > result[0]):
                    result = (sum(counts) + sub[0], (counts, *sub[1]))
            return result
        return go(0, start)

    mins = [0] * len(keys)
    top = best(tuple(mins))
    if top is None:
        return {}
    most = top[0]
    for _name, routes in items:  # by priority, each item supplied if the most still fit
        if not routes:
            continue
        g = keys.index(tuple(routes))
        mins[g] += 1
        got = best(tuple(mins))
        if got is None or got[0] < most:
            mins[g] -= 1
    final = best(tuple(mins))
    assert final is not None
    out: dict[str, Route] = {}
    for g, counts in enumerate(final[1]):
        chosen = [name for name, _ in items if name in groups[keys[g]]][: sum(counts)]
        take = iter(chosen)
        for r, c in zip(keys[g], counts, strict=True):
            for _ in range(c):
                out[next(take)] = r
    return out


def _splits(routes: tuple[Route, ...], n: int, left: tuple[int, ...], zones: list[str]) -> Iterable[tuple[int, ...]]:
    """Every way to put up to ``n`` units on the routes within the capacity ``left``."""
    if not routes:
        yield ()
        return
    r, rest = routes[0], routes[1:]
    most = n
    for z, k in r.demand:
        most = min(most, left[zones.index(z)] // k if k else n)
    for c in range(most, -1, -1):
        after = list(left)
        for z, k in r.demand:
            after[zones.index(z)] -= k * c
        for tail in _splits(rest, n - c, tuple(after), zones):
            yield (c, *tail)


# --- a determination for one side --------------------------------------------------------------

@dataclass
class Result:
    """Who of a side is in supply, and how."""

    how: dict[str, str]  # unit or GS marker -> "overland" | "automatic: why" | "sea"
    sea: dict[str, Route]
    oos: dict[str, str]  # unit or GS marker -> why not
    used: dict[str, dict[str, int]]  # FP class -> zone -> capacity used
    caps: dict[str, dict[str, int]]


def gs_items(ctx: Ctx, side: str) -> list[tuple[str, str, str]]:
    """The side's GS markers one by one: (name ``gs:AREA:NATION:i``, area, nation)."""
    out = []
    for a, by in sorted(ctx.pos.get("gs", {}).items()):
        for n, k in sorted(by.items()):
            if ctx.side_of_nation(n) == side:
                out += [(f"gs:{a}:{n}:{i + 1}", a, n) for i in range(int(k))]
    return out


def priority(ctx: Ctx, side: str, units: list[str]) -> list[str]:
    """A-70: the order in which a side's units are supplied when the sea capacity is short: the
    blocks its standing ``losses`` list does not name (by id), then those it names from the last
    to the first."""
    losses = [str(u) for u in ctx.standing.get(side, {}).get("losses", [])]
    named = [u for u in reversed(losses) if u in units]
    return [u for u in sorted(units) if u not in named] + named


def determine(ctx: Ctx, side: str) -> Result:
    """3.1-3.33: the supply of every block and GS marker of ``side``."""
    net = Net(ctx, side)
    how: dict[str, str] = {}
    oos: dict[str, str] = {}
    wants: dict[str, list[tuple[str, list[Route]]]] = {}
    blocks = [(u, ctx.at(u), ctx.nation(u)) for u in priority(ctx, side, ctx.side_units(side))]
    for name, a, nation in blocks + gs_items(ctx, side):
        auto = net.automatic(a, nation)
        if auto:
            how[name] = "automatic: " + auto
        elif net.overland(a, nation):
            how[name] = "overland"
        else:
            routes = net.routes(a, nation)
            if routes:
                wants.setdefault(fp_class(ctx, nation), []).append((name, routes))
            else:
                oos[name] = "no chain of friendly-controlled areas to a supply source (3.1, 3.2) and no sea leg (3.3)"
    sea: dict[str, Route] = {}
    used: dict[str, dict[str, int]] = {}
    caps: dict[str, dict[str, int]] = {}
    for cls, items in sorted(wants.items()):
        caps[cls] = net.capacity(cls)
        got = allocate(items, caps[cls])
        sea.update(got)
        for name, _ in items:
            if name in got:
                how[name] = "sea"
                for z, k in got[name].demand:
                    used.setdefault(cls, {}).setdefault(z, 0)
                    used[cls][z] += k
            else:
                oos[name] = "its sea legs' capacity is taken by other units (3.31, A-70)"
    return Result(how, sea, oos, used, caps)


def traces(ctx: Ctx, area: str, nation: str) -> bool:
    """3.1-3.3: whether a block of ``nation`` in ``area`` traces supply now: automatically, overland,
    or by a sea leg whose zones have the capacity for it (the capacity other units use is the
    unit determinations' business: initial, final)."""
    net = Net(ctx, ctx.side_of_nation(nation))
    return bool(net.automatic(area, nation) or net.overland(area, nation) or net.routes(area, nation))


def _supply_event(ctx: Ctx, rule: str, phase: str, r: Result) -> None:
    oos = [{"unit": u, "at": ctx.at(u) if not u.startswith("gs:") else u.split(":")[1], "why": w} for u, w in sorted(r.oos.items())]
    sea = [{"unit": u, "zones": list(rt.zones), "demand": dict(rt.demand), "cape": rt.cape, "beachhead": rt.beachhead}
           for u, rt in sorted(r.sea.items())]
    capacity = {cls: {z: {"capacity": c, "used": r.used.get(cls, {}).get(z, 0)} for z, c in sorted(caps.items()) if c}
                for cls, caps in sorted(r.caps.items())}
    ctx.emit("supply", rule, side=ctx.side, phase=phase, oos=oos, sea=sea, capacity=capacity,
             supplied=len(r.how))


# --- the phases ---------------------------------------------------------------------------------

def initial(ctx: Ctx) -> None:
    """1.21: the phasing side's blocks traced for supply: an OOS marker on each that cannot (3.4:
    its effects are read by movement, combat and production); the others in supply until the
    final determination (1.21). A Soviet block whose line crossed a sea zone is flagged
    ``sea-supply`` (5.41, A-19)."""
    r = determine(ctx, ctx.side)
    for u in ctx.side_units(ctx.side):
        if u in r.oos:
            ctx.units[u]["oos"] = OOS
        else:
            ctx.units[u].pop("oos", None)
            if u in r.sea and ctx.nation(u) == "ussr" and ctx.option("sea_supply_pin") != "none":
                ctx.flag(u, "sea-supply")
    _supply_event(ctx, "1.21", "initial", r)


def check_final(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """7.9: the [final] table of the file that ends a player-turn: each Limited Supply area a
    place of the map, named once, where the side has units, with an SA of a nation with units
    there for each (the SAs held now); ``cadres`` the side's blocks."""
    final = body.get("final", {})
    left = {n: ctx.sa(n) for n in sorted(ctx.pos.get("sa", {}))}
    seen: set[str] = set()
    for i, a in enumerate(final.get("limited_supply", [])):
        w = f"final.limited_supply[{i}]"
        a = str(a)
        if a not in ctx.sc.map.areas or not ctx.area(a).ground:
            problems.append(Problem(w, f"'{a[:40]}' is not a land area, fortress or box of the map", "7.9"))
            continue
        if a in seen:
            problems.append(Problem(w, f"{a} is named twice: one SA gives Limited Supply to all the units of an area", "7.9"))
            continue
        seen.add(a)
        nations = _nations_in(ctx, a, ctx.side)
        if not nations:
            problems.append(Problem(w, f"the {ctx.side} have no unit in {a}", "7.9"))
            continue
        payer = _payer(nations, left)
        if payer is None:
            problems.append(Problem(w, f"no nation with units in {a} ({', '.join(nations)}) holds a special action left", "7.9"))
            continue
        left[payer] -= 1
    for i, u in enumerate(final.get("cadres", [])):
        w = f"final.cadres[{i}]"
        u = str(u)
        if u not in ctx.units or ctx.side_of(u) != ctx.side:
            problems.append(Problem(w, f"{u} is not a block of the {ctx.side}", "7.9"))
        elif ctx.steps(u) is not None and ctx.steps(u) != 1:
            problems.append(Problem(w, f"{u} has {ctx.steps(u)} steps: it is not a cadre", "7.9"))


def _nations_in(ctx: Ctx, a: str, side: str) -> list[str]:
    return sorted({ctx.nation(u) for u in ctx.side_in(a, side)} | set(ctx.side_gs(a, side)))


def _payer(nations: list[str], left: dict[str, int]) -> str | None:
    """The nation that spends the SA for an area: the one with units there holding the most SAs
    (ties by name)."""
    have = [n for n in nations if left.get(n, 0) > 0]
    return min(have, key=lambda n: (-left[n], n)) if have else None


def lose_hidden_step(ctx: Ctx, u: str, rule: str, why: str, cadre: bool) -> bool:
    """7.9 on a block whose steps are hidden: named a cadre by its owner (``[final] cadres``), it is
    eliminated, with a claim that it was at 1 step; else it loses one step, with a claim that it had
    2 or more (the loss counted in the public ``lost``, taken off its value when it is opened).
    Returns whether it was eliminated."""
    if cadre:
        ctx.claim(u, {"steps": "==", "n": 1, "lost": 1, "rule": rule, "why": f"{why}: named a cadre, eliminated"})
        ctx.eliminate(u, rule, why)
        return True
    ctx.claim(u, {"steps": ">=", "n": 2, "lost": 1, "rule": rule, "why": f"{why}: not named a cadre, loses a step"})
    s = ctx.units[u]
    s["lost"] = int(s.get("lost", 0)) + 1
    ctx.emit("hidden-step-lost", rule, unit=u, nation=ctx.nation(u), at=ctx.at(u), why=why, lost=s["lost"])
    return False


def final(ctx: Ctx, final: dict[str, Any]) -> None:
    """1.27, 3.5, 3.6, 7.9: the Final Supply Determination Phase. Every block and GS marker of the
    phasing side is traced again; an OOS block recovers only here: by tracing if it did not move,
    and if it moved also by having gained a friendly area (3.5, A-13, flag ``gained``; option
    oos_recovery). A unit not in supply is eliminated (3.6) unless it has Limited Supply (7.9: an
    SA spent for its area, or automatically in a friendly-controlled fortress): then it loses a
    step, cadres and GS markers are eliminated (A-72, option fortress_limited_supply). The
    survivors count as in supply until the next Initial Supply Determination (3.6)."""
    r = determine(ctx, ctx.side)
    _supply_event(ctx, "3.6", "final", r)
    out: dict[str, str] = {}  # unit or GS marker -> why it is not in supply
    for u in ctx.side_units(ctx.side):
        mark = ctx.units[u].get("oos")
        if u in r.oos:
            out[u] = r.oos[u]
            continue
        if mark in (OOS, OOS_MOVED):
            moved = mark == OOS_MOVED or ctx.has_flag(u, "moved")
            gained = ctx.has_flag(u, "gained")
            if moved and not gained and ctx.option("oos_recovery") == "gain":
                out[u] = "it moved while out of supply without gaining a friendly-controlled area (3.5, A-13)"
                continue
            ctx.emit("oos-recovered", "3.5", unit=u, nation=ctx.nation(u), at=ctx.at(u), moved=moved, gained=gained,
                     how=r.how.get(u, ""))
    gs_out: dict[tuple[str, str], int] = {}
    gs_why: dict[tuple[str, str], str] = {}
    for name, why in sorted(r.oos.items()):
        if name.startswith("gs:"):
            _, a, n, _i = name.split(":")
            gs_out[(a, n)] = gs_out.get((a, n), 0) + 1
            gs_why[(a, n)] = why
    # 7.9: Limited Supply, bought per area or automatic in a friendly fortress
    where = {u: ctx.at(u) for u in out}
    areas = set(where.values()) | {a for a, _ in gs_out}
    bought: dict[str, str] = {}
    for a in [str(x) for x in final.get("limited_supply", [])]:
        if a not in areas:
            ctx.emit("limited-supply", "7.9", area=a, nation="", spent=False, units=[], lost=[], eliminated=[],
                     automatic=False, why="every unit there is in supply: no special action is spent")
            continue
        payer = _payer(_nations_in(ctx, a, ctx.side), {n: ctx.sa(n) for n in ctx.pos.get("sa", {})})
        if payer is None:
            continue
        ctx.spend_sa(payer, "7.9", f"Limited Supply in {a}")
        bought[a] = payer
    cadres = {str(u) for u in final.get("cadres", [])}
    for a in sorted(areas):
        units = sorted(u for u in out if where[u] == a)
        gs = {n: k for (aa, n), k in gs_out.items() if aa == a}
        fortress = ctx.area(a).fortress and ctx.controller(a) == ctx.side
        if a in bought or fortress:
            no_loss = a not in bought and ctx.option("fortress_limited_supply") == "no-loss"
            lost: list[str] = []
            gone: list[str] = []
            for u in units:
                if no_loss:
                    continue
                s = ctx.steps(u)
                if s is None:  # fog of war: the owner's [final] cadres tell which hidden blocks are at one step
                    (gone if lose_hidden_step(ctx, u, "7.9", "Limited Supply", u in cadres) else lost).append(u)
                elif s <= 1:
                    gone.append(u)
                    ctx.eliminate(u, "7.9", "a cadre under Limited Supply")
                else:
                    lost.append(u)
                    ctx.lose_step(u, "7.9", "Limited Supply")
            for n, k in sorted(gs.items()):
                ctx.add_gs(a, n, -k)
            ctx.emit("limited-supply", "7.9", area=a, nation=bought.get(a, ""), spent=a in bought, units=units,
                     lost=lost, eliminated=gone, gs=gs, automatic=a not in bought,
                     why=("a friendly-controlled fortress (7.9, A-72)" if a not in bought else "a special action spent"),
                     no_loss=no_loss)
            continue
        for u in units:
            ctx.emit("oos-eliminated", "3.6", unit=u, nation=ctx.nation(u), at=a, why=out[u])
            ctx.eliminate(u, "3.6", "out of supply at the Final Supply Determination")
        for n, k in sorted(gs.items()):
            ctx.add_gs(a, n, -k)
            ctx.emit("oos-eliminated", "3.6", gs=k, nation=n, at=a, why=gs_why[(a, n)])
    for u in ctx.side_units(ctx.side):  # 3.6: every survivor counts as in supply
        ctx.units[u].pop("oos", None)


def end_player_turn(ctx: Ctx) -> None:
    """6.96: at the end of each player-turn a field or heavy fortification in an area with no
    friendly ground unit is removed."""
    forts = ctx.pos.get("fortifications", {})
    for a in sorted(forts):
        f = forts[a]
        side = ctx.side_of_nation(str(f["nation"]))
        if not ctx.side_in(a, side):
            del forts[a]
            ctx.emit("fortification-removed", "6.96", area=a, fortification=str(f["kind"]), nation=str(f["nation"]))


# --- report lines --------------------------------------------------------------------------------

def _name(u: str) -> str:
    if u.startswith("gs:"):
        n = u.split(":")[2]
        return f"a {n} GS unit"
    return u


def _supply(e: Event) -> list[str]:
    d = e.data
    what = "Initial" if d["phase"] == "initial" else "Final"
    out = [f"- {what} supply of the {d['side']} ({e.rule}): {d['supplied']} unit(s) trace supply, {len(d['oos'])} out of supply."]
    for s in d["sea"]:
        how = " around the Cape, counting 4 on the Atlantic (3.32)" if s["cape"] else ""
        how += " through a beachhead, counting 2 (7.22)" if s["beachhead"] else ""
        out.append(f"  - Supply {_name(s['unit'])} across {', '.join(s['zones'])}{how} (3.3).")
    for cls, zones in d["capacity"].items():
        for z, c in zones.items():
            out.append(f"  - Supply capacity of the {cls} fleet points in {z}: {c['used']} of {c['capacity']} used (3.31, 3.33).")
    for o in d["oos"]:
        out.append(f"  - Supply: {_name(o['unit'])} in {o['at']} is out of supply: {o['why']}.")
    return out


def _recovered(e: Event) -> list[str]:
    d = e.data
    how = " and gained a friendly-controlled area" if d["moved"] else " and did not move"
    return [f"- {d['unit']} ({d['nation']}) in {d['at']} recovers from out of supply: it traces supply{how} ({e.rule})."]


def _eliminated(e: Event) -> list[str]:
    d = e.data
    who = f"{d['gs']} {d['nation']} GS unit(s)" if "gs" in d else f"{d['unit']} ({d['nation']})"
    return [f"- {who} in {d['at']}: not in supply at the Final Supply Determination and without Limited Supply: "
            f"{d['why']}; eliminated ({e.rule})."]


def _limited(e: Event) -> list[str]:
    d = e.data
    if not d["units"] and not d.get("gs"):
        return [f"- Limited Supply in {d['area']} ({e.rule}): {d['why']}."]
    how = f"{d['nation']} spends a special action" if d["spent"] else f"automatic: {d['why']}"
    what = "no step is lost (option fortress_limited_supply)" if d.get("no_loss") else (
        f"a step lost by {', '.join(d['lost']) or 'none'}; eliminated: {', '.join(d['eliminated']) or 'none'}"
        + (" and the GS units" if d.get("gs") else ""))
    return [f"- Limited Supply in {d['area']} ({e.rule}; {how}): {what}. The survivors count as in supply (3.6)."]


def _fort(e: Event) -> list[str]:
    d = e.data
    return [f"- The {d['fortification']} fortification of {d['nation']} in {d['area']} is removed: no friendly ground unit there "
            f"at the end of the player-turn ({e.rule})."]


RENDER = {"supply": _supply, "oos-recovered": _recovered, "oos-eliminated": _eliminated, "limited-supply": _limited,
          "fortification-removed": _fort}
