"""The Engineer Phase (3.32): entrenchments (17.2) and bridges (17.4).

- [[entrench]] unit (17.21, A-81): any unit of the phasing side on the map, not demoralized (13.2),
  that did not move strategically (5.21, A-19), starts an entrenchment in its hex
  (``entrenchments[HEX] = {side, state "building", unit, since}``). It is completed at the end of
  the second friendly Engineer Phase, or of the first for an engineer battalion (type engineer,
  size battalion). In a town or city it is legal but gives nothing (17.2): the event says so.
- [[bridge]] unit, hexside (17.41): a bridging engineer in one of the two hexes of a river or Prut
  hexside with no bridge starts a bridge (``bridges[HEXSIDE] = {side, unit, state "building",
  since}``); at the end of the second friendly Engineer Phase it is placed: the engineer becomes
  the bridge, stays in its hex, and the hexside counts as bridged (``Ctx.bridged``) for movement
  and supply.
- [[unbridge]] unit, to (17.44): a placed bridge flipped back to its engineer, put in either hex
  the bridge joined; the engineer may not move in the following Movement Phase (flag
  ``no-move``, cleared at the end of the player turn).
- A builder must not leave its hex until the work is done (17.21, 17.41): at each friendly
  Engineer Phase, a construction whose builder is not in its hex stops (its marker removed), and so
  does one whose builder moved in the player turn (endturn.py). A placed bridge whose engineer
  left the map is gone too (17.43). The 17.22, 17.42, 17.43 triggers (an enemy unit moving
  adjacent) and 17.23 are the Movement Phase's.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.hexgrid import hexside_key

from .context import DEMORALIZED, Ctx

KEYS = ("entrench", "bridge", "unbridge")
RIVERS = frozenset({"river", "prut"})  # 17.4: bridges over rivers, the Prut included


def engineer_battalion(ctx: Ctx, u: str) -> bool:
    """17.21, A-81: an engineer battalion builds in one Engineer Phase."""
    spec = ctx.spec(u)
    return spec.type == "engineer" and spec.size == "battalion"


def bridge_of(ctx: Ctx, u: str) -> str | None:
    """17.41: the hexside of the bridge a bridging engineer builds or is (None: none)."""
    for side_key, b in sorted(ctx.pos.get("bridges", {}).items()):
        if b.get("unit") == u:
            return str(side_key)
    return None


def building(ctx: Ctx, u: str) -> str | None:
    """The entrenchment hex or bridge hexside a unit is building (17.21, 17.41), or None."""
    for h, e in sorted(ctx.pos.get("entrenchments", {}).items()):
        if e.get("unit") == u and e.get("state") == "building":
            return str(h)
    b = bridge_of(ctx, u)
    if b is not None and ctx.pos["bridges"][b].get("state") == "building":
        return b
    return None


def _unit(ctx: Ctx, where: str, u: str, problems: list[Problem], rule: str) -> bool:
    """The common checks of an engineering order's unit: the phasing side's, on the map, not
    demoralized (13.2)."""
    if u not in ctx.sc.units:
        problems.append(Problem(where, f"{u} is not a unit of the scenario", rule))
        return False
    if ctx.side_of(u) != ctx.side:
        problems.append(Problem(where, f"{u} is not yours: only the phasing player does engineering work", "3.32"))
        return False
    if not ctx.on_map(u):
        problems.append(Problem(where, f"{u} is not on the map ({ctx.at(u)})", rule))
        return False
    if ctx.status(u) == DEMORALIZED:
        problems.append(Problem(where, f"{u} is demoralized: it may not do engineering work", "13.2"))
        return False
    return True


def _hexside(ctx: Ctx, key: str) -> tuple[str, str] | None:
    a, _, b = key.partition("-")
    grid = ctx.sc.map.grid
    if grid.place(a) is None or grid.place(b) is None or hexside_key(a, b) != key or not ctx.adjacent(a, b):
        return None
    return a, b


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """17.21, 17.41, 17.44: the [[entrench]], [[bridge]] and [[unbridge]] orders."""
    busy: set[str] = set()
    ents = ctx.pos.get("entrenchments", {})
    bridges = ctx.pos.get("bridges", {})
    for i, o in enumerate(body.get("entrench", [])):
        where = f"entrench[{i}].unit"
        u = str(o.get("unit", ""))
        if not _unit(ctx, where, u, problems, "17.21"):
            continue
        h = ctx.at(u)
        if ctx.spec(u).type == "monitor":
            problems.append(Problem(where, f"{u} is a river monitor: it cannot entrench", "17.21"))
        elif ctx.flagged(u, "strategic"):
            problems.append(Problem(where, f"{u} moved strategically: it may not do engineering work", "5.21"))
        elif u in busy or building(ctx, u) is not None or bridge_of(ctx, u) is not None:
            problems.append(Problem(where, f"{u} is already building or is a bridge", "17.21"))
        elif h in ents and ents[h].get("side") == ctx.side:
            problems.append(Problem(where, f"{h} already has an entrenchment of yours ({ents[h].get('state')})", "17.2"))
        elif any(ctx.at(str(x.get("unit"))) == h for x in body.get("entrench", [])[:i] if str(x.get("unit")) in ctx.units):
            problems.append(Problem(where, f"another unit starts an entrenchment in {h} already", "17.2"))
        busy.add(u)
    for i, o in enumerate(body.get("bridge", [])):
        where = f"bridge[{i}]"
        u = str(o.get("unit", ""))
        if not _unit(ctx, f"{where}.unit", u, problems, "17.41"):
            continue
        if ctx.spec(u).type != "bridging-engineer":
            problems.append(Problem(f"{where}.unit", f"{u} is not a bridging engineer", "17.4"))
            continue
        if u in busy or building(ctx, u) is not None or bridge_of(ctx, u) is not None:
            problems.append(Problem(f"{where}.unit", f"{u} is already building or is a bridge", "17.41"))
            continue
        busy.add(u)
        key = str(o.get("hexside", ""))
        ab = _hexside(ctx, key)
        if ab is None:
            problems.append(Problem(f"{where}.hexside", f"{key} is not the hexside of two adjacent hexes of the map, "
                                    "the lower id first", "17.4"))
            continue
        if not ctx.features(*ab) & RIVERS:
            problems.append(Problem(f"{where}.hexside", f"{key} is not a river or Prut hexside", "17.4"))
        elif ctx.at(u) not in ab:
            problems.append(Problem(f"{where}.hexside", f"{u} in {ctx.at(u)} is not in either hex of {key}", "17.41"))
        elif ctx.bridged(*ab) or key in bridges or any(str(x.get("hexside")) == key for x in body.get("bridge", [])[:i]):
            problems.append(Problem(f"{where}.hexside", f"{key} has a bridge already, or one being built", "17.41"))
    for i, o in enumerate(body.get("unbridge", [])):
        where = f"unbridge[{i}]"
        u = str(o.get("unit", ""))
        if not _unit(ctx, f"{where}.unit", u, problems, "17.44"):
            continue
        placed = bridge_of(ctx, u)
        if placed is None or bridges[placed].get("state") != "placed":
            problems.append(Problem(f"{where}.unit", f"{u} is not a placed bridge", "17.44"))
            continue
        if u in busy:
            problems.append(Problem(f"{where}.unit", f"{u} has another engineering order", "17.44"))
            continue
        busy.add(u)
        to = str(o.get("to", ""))
        a, _, b = placed.partition("-")
        if to not in (a, b):
            problems.append(Problem(f"{where}.to", f"{to} is not one of the hexes the bridge {placed} joins ({a}, {b})", "17.44"))
        elif ctx.holder(to) not in (None, ctx.side):
            problems.append(Problem(f"{where}.to", f"{to} holds enemy units", "5.62"))


def _stop_lost(ctx: Ctx) -> None:
    """17.21, 17.41, 17.43: constructions whose builder left the hex stop; placed bridges whose
    engineer is off the map are gone."""
    ents = ctx.pos.setdefault("entrenchments", {})
    for h, e in sorted(ents.items()):
        if e.get("side") != ctx.side or e.get("state") != "building":
            continue
        u = str(e.get("unit", ""))
        if u not in ctx.units or ctx.at(u) != h:
            del ents[h]
            ctx.emit("entrench", "17.21", unit=u, hex=h, state="stopped", why="the builder left the hex")
    bridges = ctx.pos.setdefault("bridges", {})
    for key, b in sorted(bridges.items()):
        if b.get("side") != ctx.side:
            continue
        u = str(b.get("unit", ""))
        here = u in ctx.units and ctx.on_map(u) and ctx.at(u) in key.split("-")
        if not here:
            del bridges[key]
            rule = "17.41" if b.get("state") == "building" else "17.43"
            why = "the engineer left the hex" if b.get("state") == "building" else "the engineer is not on the map"
            ctx.emit("bridge", rule, unit=u, hexside=key, state="stopped" if b.get("state") == "building" else "removed", why=why)


def stop_moved(ctx: Ctx) -> None:
    """17.21, 17.41, A-19: at the end of the player turn, constructions of the phasing side whose
    builder moved this player turn (left the hex, even to come back) stop."""
    ents = ctx.pos.get("entrenchments", {})
    for h, e in sorted(ents.items()):
        u = str(e.get("unit", ""))
        if e.get("side") == ctx.side and e.get("state") == "building" and u in ctx.units and ctx.flagged(u, "moved"):
            del ents[h]
            ctx.emit("entrench", "17.21", unit=u, hex=h, state="stopped", why="the builder moved")
    bridges = ctx.pos.get("bridges", {})
    for key, b in sorted(bridges.items()):
        u = str(b.get("unit", ""))
        if b.get("side") == ctx.side and b.get("state") == "building" and u in ctx.units and ctx.flagged(u, "moved"):
            del bridges[key]
            ctx.emit("bridge", "17.41", unit=u, hexside=key, state="stopped", why="the engineer moved")


def phase(ctx: Ctx, body: dict[str, Any]) -> None:
    """Constructions started, continued and completed at the end of the phase (17.21, 17.41),
    bridges removed (17.44)."""
    _stop_lost(ctx)
    ents = ctx.pos.setdefault("entrenchments", {})
    bridges = ctx.pos.setdefault("bridges", {})
    for h, e in sorted(ents.items()):  # the second friendly Engineer Phase: completed
        if e.get("side") == ctx.side and e.get("state") == "building" and int(e.get("since", ctx.turn)) < ctx.turn:
            e["state"] = "done"
            ctx.emit("entrench", "17.21", unit=e.get("unit", ""), hex=h, state="done", since=e.get("since"),
                     urban=ctx.sc.map.hex(h).urban)
    for key, b in sorted(bridges.items()):
        if b.get("side") == ctx.side and b.get("state") == "building" and int(b.get("since", ctx.turn)) < ctx.turn:
            b["state"] = "placed"
            ctx.emit("bridge", "17.41", unit=b["unit"], hexside=key, state="placed", since=b.get("since"))
    for o in body.get("unbridge", []):
        u, to = str(o["unit"]), str(o["to"])
        key = bridge_of(ctx, u)
        assert key is not None
        del bridges[key]
        ctx.place(u, to)
        ctx.flag(u, "no-move")
        ctx.emit("bridge", "17.44", unit=u, hexside=key, state="removed", to=to)
    for o in body.get("entrench", []):
        u = str(o["unit"])
        h = ctx.at(u)
        fast = engineer_battalion(ctx, u)
        ents[h] = {"side": ctx.side, "state": "done" if fast else "building", "unit": u, "since": ctx.turn}
        ctx.emit("entrench", "17.21", unit=u, hex=h, state="done" if fast else "building", since=ctx.turn,
                 fast=fast, urban=ctx.sc.map.hex(h).urban)
    for o in body.get("bridge", []):
        u, key = str(o["unit"]), str(o["hexside"])
        bridges[key] = {"side": ctx.side, "unit": u, "state": "building", "since": ctx.turn}
        ctx.emit("bridge", "17.41", unit=u, hexside=key, state="building", since=ctx.turn)
    ctx.changed()


# --- report lines -----------------------------------------------------------------------------------

def _entrench(e: Event) -> list[str]:
    d = e.data
    urban = (" It is in a town or city: it gives the defender nothing (17.2).") if d.get("urban") else ""
    if d["state"] == "stopped":
        return [f"- The entrenchment in {d['hex']} is removed: {d['why']} before it was completed ({e.rule})."]
    if d["state"] == "building" and d.get("since") is not None:
        return [f"- {d['unit']} starts an entrenchment in {d['hex']}: under construction, completed at the end of its next "
                f"Engineer Phase if it stays ({e.rule}, A-81).{urban}"]
    if d.get("fast"):
        return [f"- {d['unit']}, an engineer battalion, entrenches {d['hex']} in one Engineer Phase: completed ({e.rule}, A-81).{urban}"]
    return [f"- The entrenchment of {d['unit']} in {d['hex']}, started on turn {d['since']}, is completed at the end of this "
            f"second Engineer Phase ({e.rule}).{urban}"]


def _bridge(e: Event) -> list[str]:
    d = e.data
    st = d["state"]
    if st == "building":
        return [f"- {d['unit']} starts a bridge across {d['hexside']}; it is placed at the end of its second Engineer Phase if "
                f"the engineer stays ({e.rule})."]
    if st == "placed":
        return [f"- {d['unit']} becomes the bridge across {d['hexside']} (started on turn {d['since']}): the hexside is bridged "
                f"for movement and supply ({e.rule}, 7.5)."]
    if st == "stopped":
        return [f"- The bridge of {d['unit']} across {d['hexside']} is not built: {d['why']} ({e.rule})."]
    if "to" in d:
        return [f"- The bridge across {d['hexside']} is taken up: {d['unit']} is an engineer again in {d['to']} and may not move "
                f"in this Movement Phase ({e.rule})."]
    return [f"- The bridge of {d['unit']} across {d['hexside']} is gone: {d['why']} ({e.rule})."]


RENDER = {"entrench": _entrench, "bridge": _bridge}
