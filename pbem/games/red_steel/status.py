"""The Status Phase (3.31): supply for every unit of the phasing side (7.x), ammunition issued to
artillery (11.5-11.54).

Supply (7.0-7.72, T4), worked out at the start of each player turn for the phasing side, before
its orders are awaited:

- an HQ's own supply is its road: 7.21 (German and Romanian HQs) a route of any length along road
  or main-road hexsides to the west map edge, or to the north edge from the scenario's
  ``north_edge_from`` turn on (A-27); 7.41 (Soviet HQs) to the east edge. An HQ on such an edge
  hex is in supply;
- another unit traces a line of hexes (A-30: hexes counted, terrain ignored) to an HQ in supply:
  German units 12 hexes to a German HQ (7.2); Romanian and Ukrainian units as the option
  ``romanian_supply`` says (A-28: 7.3 is missing); Soviet units 6 hexes to THEIR HQ, independent
  ones to any Soviet HQ (7.4, A-4);
- every line and route: never into a hex held by enemy units (7.2, 7.21, 7.41; A-29 for Soviet
  lines too), never into an enemy ZOC hex unless a friendly unit is in it (7.2, 7.4), across the
  Prut only at a bridge, printed or placed (7.5, 17.41), and a Soviet line never across it (5.5,
  15.3, A-30);
- a unit that traces is in supply: an out-of-supply or isolated marker is removed (7.72); one that
  cannot is out of supply (7.22, 7.42), or stays isolated (7.72);
- river monitors are not traced: they are river craft with no supply rule (A-85) and need no
  ammunition (17.52).

The lines are found with the shared mechanics (pbem.mechanics.supply.trace).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.supply import Line, trace

from .context import FULL_AMMO, ISOLATED, OOS, Ctx
from .data import AXIS, SOVIET

RANGE = {"german": 12, "romanian": 12, "ukrainian": 12, "soviet": 6}  # 7.2, 7.3, 7.4
ROADS = frozenset({"road", "main-road"})  # 7.21, 7.41
STOCKPILE = {"german": "german", "romanian": "romanian", "ukrainian": "romanian", "soviet": "soviet"}  # 11.54


def stockpile_of(nat: str) -> str:
    """11.54: the stockpile that supplies a nationality's artillery. The Ukrainians (2.2) are not
    named by 11.54: they draw on the Romanian stockpile, as they trace supply with the Romanians
    (option romanian_supply, A-28)."""
    return STOCKPILE[nat]


def _blocked(ctx: Ctx, side: str) -> frozenset[str]:
    """7.2, 7.21, 7.4, 7.41, A-29: the hexes a line of ``side`` may not enter: those held by enemy
    units, and those in an enemy ZOC with no friendly unit in them."""
    out = set()
    for h in ctx.sc.map.grid.place_ids():
        holder = ctx.holder(h)
        if holder is not None and holder != side:
            out.add(h)
        elif holder is None and ctx.in_enemy_zoc(h, side):
            out.add(h)
    return frozenset(out)


def crosses(ctx: Ctx, side: str, a: str, b: str) -> bool:
    """7.5, 5.5, 15.3, A-30: may a supply line cross the hexside a-b? The Prut only at a bridge
    (printed or placed, ``Ctx.bridged``), and never a Soviet line; other hexsides always."""
    if "prut" in ctx.features(a, b):
        return side == AXIS and ctx.bridged(a, b)
    return True


def _unit_cost(ctx: Ctx, side: str, blocked: frozenset[str]) -> Callable[[str, str], int | None]:
    def step(a: str, b: str) -> int | None:
        if b in blocked or not crosses(ctx, side, a, b):
            return None
        return 1  # hexes counted
    return step


def _road_cost(ctx: Ctx, side: str, blocked: frozenset[str]) -> Callable[[str, str], int | None]:
    def step(a: str, b: str) -> int | None:
        if b in blocked or not (ctx.features(a, b) & ROADS) or not crosses(ctx, side, a, b):
            return None
        return 1
    return step


def edges_of(ctx: Ctx, side: str) -> list[str]:
    """7.1, 7.21, 7.41, A-27: the map edges an HQ of ``side`` traces its road to: the Axis the west
    edge, and the north edge from the scenario's ``north_edge_from`` turn on; the Soviet the east
    edge."""
    if side == SOVIET:
        return ["east"]
    return ["west", "north"] if ctx.turn >= ctx.sc.north_edge_from else ["west"]


def hq_routes(ctx: Ctx, side: str, blocked: frozenset[str] | None = None) -> dict[str, tuple[Line | None, str]]:
    """7.21, 7.41: each HQ of ``side`` on the map: its road route to a supply edge (or None) and the
    edge reached."""
    blocked = _blocked(ctx, side) if blocked is None else blocked
    edges = edges_of(ctx, side)
    edge_of = {}
    for e in reversed(edges):
        for h in ctx.sc.map.edges[e]:
            edge_of[h] = e
    step = _road_cost(ctx, side, blocked)
    out: dict[str, tuple[Line | None, str]] = {}
    for u in ctx.side_units(side):
        if ctx.spec(u).type != "hq":
            continue
        line = trace(ctx.sc.map.grid, ctx.at(u), frozenset(edge_of), step)
        out[u] = (line, edge_of[line.source] if line is not None else "")
    return out


def _hqs_for(ctx: Ctx, u: str, supplied_hqs: list[str]) -> tuple[list[str], str]:
    """7.2, 7.3 (A-28), 7.4: the HQs in supply a unit may trace to, and what it needs (words)."""
    spec = ctx.spec(u)
    if spec.side == SOVIET:
        if spec.hq:
            return [h for h in supplied_hqs if h == spec.hq], f"its HQ {spec.hq}"
        return [h for h in supplied_hqs], "a Soviet HQ"
    if spec.nat == "german":
        return [h for h in supplied_hqs if ctx.spec(h).nat == "german"], "a German HQ"
    if ctx.option("romanian_supply") == "romanian-hq" and any(
            ctx.spec(h).nat == "romanian" for h in ctx.side_units(AXIS) if ctx.spec(h).type == "hq"):
        return [h for h in supplied_hqs if ctx.spec(h).nat == "romanian"], "a Romanian HQ"
    return list(supplied_hqs), "an Axis HQ"


def determine_supply(ctx: Ctx) -> None:
    """7.2-7.5, 7.22, 7.42, 7.72: the phasing side's units traced, out-of-supply markers placed,
    isolated units that trace returned to supply. Automatic, at the start of a player turn."""
    side = ctx.side
    blocked = _blocked(ctx, side)
    routes = hq_routes(ctx, side, blocked)
    hq_rule = "7.41" if side == SOVIET else "7.21"
    supplied_hqs = sorted(h for h, (line, _) in routes.items() if line is not None)
    step = _unit_cost(ctx, side, blocked)
    counts = {"in": 0, OOS: 0, ISOLATED: 0}
    for u in sorted(ctx.side_units(side), key=lambda x: (ctx.spec(x).type != "hq", x)):  # HQs first (7.21, 7.41)
        spec = ctx.spec(u)
        if spec.type == "monitor":
            continue
        was = ctx.supply(u) or "in"
        data: dict[str, Any] = {"unit": u, "side": side, "was": was}
        if spec.type == "hq":
            line, edge = routes[u]
            rule = hq_rule
            data.update(hq=True, edges=edges_of(ctx, side))
            if line is not None:
                data.update(edge=edge, length=line.cost, via=list(line.places))
            else:
                data["why"] = f"no road route to the {' or '.join(edges_of(ctx, side))} map edge free of enemy units and enemy ZOC"
        else:
            rule = "7.4" if side == SOVIET else "7.2" if spec.nat == "german" else "7.3"
            targets, need = _hqs_for(ctx, u, supplied_hqs)
            reach = RANGE[spec.nat]
            line = trace(ctx.sc.map.grid, ctx.at(u), frozenset(ctx.at(h) for h in targets), step, limit=reach) \
                if targets else None
            data.update(hq=False, range=reach)
            if line is not None:
                data.update(to=sorted(h for h in targets if ctx.at(h) == line.source)[0], length=line.cost)
            elif spec.hq and side == SOVIET and not ctx.on_map(spec.hq):
                data["why"] = f"its HQ {spec.hq} is not on the map"
            elif not targets:
                data["why"] = f"{need} is not in supply (or not on the map)"
            else:
                data["why"] = f"no line of {reach} hexes or fewer to {need} in supply, free of enemy units and enemy ZOC"
        if line is not None:
            ctx.units[u].pop("supply", None)
            state = "in"
            if was != "in":
                rule = "7.72"
        elif was == ISOLATED:
            state = ISOLATED  # 7.72: isolated it stays
        else:
            ctx.units[u]["supply"] = OOS
            state = OOS
            rule = "7.42" if side == SOVIET else "7.22"
        counts[state] += 1
        data["state"] = state
        if spec.type == "hq" or state != "in" or was != "in":
            ctx.emit("supply", rule, **data)
    ctx.emit("supply-summary", "3.31", side=side, turn=ctx.turn, supplied=counts["in"], oos=counts[OOS],
             isolated=counts[ISOLATED], north_edge=side == AXIS and ctx.turn >= ctx.sc.north_edge_from,
             north_edge_from=ctx.sc.north_edge_from)


# --- ammunition (11.5) -----------------------------------------------------------------------------

def cost_of(ctx: Ctx, u: str, volleys: int) -> int:
    """11.51, A-62, 6.5: one point a volley, two for an artillery regiment."""
    spec = ctx.spec(u)
    return volleys * (2 if spec.art is not None and spec.art.regiment else 1)


def check_ammo(ctx: Ctx, orders: list[dict[str, Any]], problems: list[Problem]) -> None:
    """11.51-11.54: [[ammo]] orders: artillery of the phasing side on the map that traced supply in
    this Status Phase (11.53), from its own stockpile (11.54), a regiment at double cost (11.51,
    A-62), never above two volleys (A-62); river monitors need none (17.52)."""
    left = {k: int(v) for k, v in ctx.pos.get("ammo", {}).items()}
    given: dict[str, int] = {}
    for i, o in enumerate(orders):
        where = f"ammo[{i}]"
        u = str(o.get("unit", ""))
        volleys = int(o.get("volleys", 0))
        if u not in ctx.sc.units:
            problems.append(Problem(f"{where}.unit", f"{u} is not a unit of the scenario", "11.51"))
            continue
        spec = ctx.spec(u)
        if spec.side != ctx.side:
            problems.append(Problem(f"{where}.unit", f"{u} is not yours: ammunition goes to the phasing player's artillery", "11.51"))
            continue
        if spec.type == "monitor":
            problems.append(Problem(f"{where}.unit", f"{u} is a river monitor: monitors never use up ammunition", "17.52"))
            continue
        if spec.type != "artillery":
            problems.append(Problem(f"{where}.unit", f"{u} is not artillery: only artillery receives ammunition", "11.51"))
            continue
        if not ctx.on_map(u):
            problems.append(Problem(f"{where}.unit", f"{u} is not on the map", "11.51"))
            continue
        ok = True
        if ctx.supply(u):
            what = "out of supply" if ctx.supply(u) == OOS else "isolated"
            problems.append(Problem(f"{where}.unit", f"{u} is {what}: artillery receives ammunition only when it can trace "
                                    "a supply line in the Status Phase", "11.53"))
            ok = False
        have = int(ctx.units[u].get("ammo", 0)) + given.get(u, 0)
        if have + volleys > FULL_AMMO:
            problems.append(Problem(f"{where}.volleys", f"{u} has {have} volley(s): {volleys} more would make {have + volleys}, "
                                    f"above the full load of {FULL_AMMO}", "A-62"))
            ok = False
        pile = stockpile_of(spec.nat)
        cost = cost_of(ctx, u, volleys)
        if ok and cost > left.get(pile, 0):
            regiment = " (a regiment: double, 11.51)" if cost > volleys else ""
            problems.append(Problem(f"{where}.volleys", f"{volleys} volley(s) for {u} cost {cost} point(s){regiment}; "
                                    f"the {pile} stockpile has {left.get(pile, 0)} left", "11.54"))
            ok = False
        if ok:
            left[pile] = left.get(pile, 0) - cost
            given[u] = given.get(u, 0) + volleys


def issue_ammo(ctx: Ctx, orders: list[dict[str, Any]]) -> None:
    """11.51, 11.52: volleys issued from the stockpiles, each an event."""
    pos_ammo = ctx.pos.setdefault("ammo", {})
    for o in orders:
        u = str(o["unit"])
        volleys = int(o["volleys"])
        spec = ctx.spec(u)
        pile = stockpile_of(spec.nat)
        cost = cost_of(ctx, u, volleys)
        pos_ammo[pile] = int(pos_ammo.get(pile, 0)) - cost
        ctx.units[u]["ammo"] = int(ctx.units[u].get("ammo", 0)) + volleys
        ctx.changed()
        ctx.emit("ammo", "11.51", unit=u, volleys=volleys, cost=cost, stockpile=pile, left=pos_ammo[pile],
                 regiment=cost > volleys, ammo=ctx.units[u]["ammo"])


# --- report lines -----------------------------------------------------------------------------------

def _supply_line(e: Event) -> list[str]:
    d = e.data
    u, state = d["unit"], d["state"]
    if d.get("hq"):
        if state == "in":
            back = " and is back in supply" if d["was"] != "in" else ""
            return [f"- Supply: HQ {u} traces a road route of {d['length']} hex(es) to the {d['edge']} map edge{back} "
                    f"({e.rule})."]
        head = f"- Supply: HQ {u} has {d['why']}"
    else:
        if state == "in":
            return [f"- Supply: {u} traces a line of {d['length']} hex(es) to {d['to']} (at most {d['range']}) and is back "
                    f"in supply, its {MARKER[d['was']]} marker removed ({e.rule})."]
        head = f"- Supply: {u} has {d['why']}" if d["why"].startswith("no ") else f"- Supply: for {u}, {d['why']}"
    if state == ISOLATED:
        return [f"{head}: it stays isolated (7.72)."]
    return [f"{head}: it is out of supply ({e.rule}; 7.61, 7.62)."]


MARKER = {OOS: "out-of-supply", ISOLATED: "isolated"}


def _summary(e: Event) -> list[str]:
    d = e.data
    north = ""
    if d["side"] == AXIS:
        north = (" The north map edge is a German supply source from turn "
                 f"{d['north_edge_from']} (7.21, A-27){'' if d['north_edge'] else ', not yet'}.")
    return [f"- Status Phase supply ({e.rule}, 7.0): {d['supplied']} {d['side']} unit(s) in supply, {d['oos']} out of "
            f"supply, {d['isolated']} isolated.{north}"]


def _ammo(e: Event) -> list[str]:
    d = e.data
    reg = ", double for an artillery regiment (11.51, A-62)" if d["regiment"] else ""
    return [f"- Ammunition: {d['unit']} receives {d['volleys']} volley(s) for {d['cost']} point(s) of the {d['stockpile']} "
            f"stockpile{reg}; it has {d['ammo']}, the stockpile {d['left']} left ({e.rule}, 11.52, 11.54)."]


RENDER = {"supply": _supply_line, "supply-summary": _summary, "ammo": _ammo}
