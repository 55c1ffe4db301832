"""Proud Monster Soviet naval movement and amphibious invasions (11.1-11.4; option ``naval``, full game).

Orders. The Soviet's order file lists its naval moves as ``[[sea]]`` entries, carried out in the
order given and all before any ground movement (11.2). Each entry has ``units`` and one of:

- ``to = "HEX"``: a sea move to another Soviet-controlled port (the map's ``port = true`` hexes:
  Odessa 2512S, Sevastopol 2919S, Novorossisk 4022S), or ``to = "ports-box"``: the Southern Ports
  Holding Box, which counts as one port (11.2, 11.3);
- ``invade = "HEX"``: the player turn's one amphibious invasion of a Crimean south-coast hex
  (2817S-3620S; the map gives each such hex's nearest all-sea hex as ``beach``, 11.4).

At most 5 units move by sea in a Soviet player turn, the invaders included (11.1, 11.4); tank and
motorized-rifle divisions never do (11.1). Each starts the movement phase in a port or in the Box
(11.2). A unit that entered the Box in this GT may not sail in its first sequence (11.3, Ambiguity
32: units placed there in the Mutual Reinforcement phase wait for the second sequence).

Position. ``position["box_entry"]`` records when each unit now in the Box entered it, as
``{"turn": GT, "pts": sequence}`` with sequence 0 for the Mutual Reinforcement phase; a unit in the
Box without an entry entered it in an earlier GT. ``position["naval"]`` holds what this Soviet player
turn's naval movement decided: the units that moved port to port (``moved``) or landed unopposed
(``landed``), and the invasion force waiting in its all-sea hex (``invasion``: ``target``, ``sea``,
``units``, ``index`` of its [[sea]] entry). It is dropped at the end of the player turn.

Invasion. A target free of enemy units is entered at once; the force may not move or attack further
(11.4). An enemy-held target is attacked by the invasion PA: the [[attack]] on the target, which must
include every invader, is resolved first of the prepared-assault phase whatever its place in the list
(14.5, 11.4), with 1L besides every other shift; the invaders count as fully supplied (11.4, an
override of the supply rules for that combat); other Soviet units from adjacent land hexes may join
it (Ambiguity 31, option ``invasion_joiners``). If the hex is cleared (a German retreat clears it)
the invaders go ashore as an advance after combat; if not, every invader is eliminated, those who
joined from land are not (Ambiguity 31).

Choices where the rules are silent (README): a unit moves by sea once a player turn; the units of
one entry may start in different ports; the invaders attack from their all-sea hex, which counts as
their hex for the concentric assault (14.14); no mobile assault may enter the hex an invasion force
waits to attack, so that the invasion PA takes place (11.4, 14.1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Place, Problem
from pbem.mechanics.odds import Shift

from .data import Scenario, on_south_coast
from .orders import Attack, Move, SeaMove
from .rules.allies import entry_problems
from .rules.combat.advance import advance_after_combat
from .rules.context import OFF_MAP_BOXES, Ctx, Hooks
from .rules.control import enter_hex
from .rules.places import path_of, problem, under
from .sequence import other

BOX = "ports-box"  # 11.3: the Southern Ports Holding Box (rules.context.OFF_MAP_BOXES)
CAPACITY = 5  # 11.1: units by sea per Soviet player turn
NO_SEA = {("tank", "XX"): "a tank division", ("motorized", "XX"): "a motorized-rifle division"}  # 11.1


def enabled(ctx: Ctx) -> bool:
    return bool(ctx.options.get("naval", False))


def record(ctx: Ctx) -> dict[str, Any]:
    """This Soviet player turn's naval movement (empty before any)."""
    rec: dict[str, Any] = ctx.position.get("naval") or {}
    return rec


def invasion(ctx: Ctx) -> dict[str, Any]:
    """The invasion force waiting to make its invasion PA this player turn, or {}."""
    inv: dict[str, Any] = record(ctx).get("invasion") or {}
    return inv


def place_text(sc: Scenario, where: str) -> str:
    """A port or the Box, for people: "2512S Odessa", "the Southern Ports Holding Box"."""
    if where == BOX:
        return "the Southern Ports Holding Box"
    h = sc.map.hexes.get(where)
    return f"{where} {h.place}" if h is not None and h.place else where


def in_port(ctx: Ctx, unit: str) -> bool:
    """11.2: the unit is in a port hex (9.17) or in the Holding Box, which counts as one port."""
    at = ctx.at(unit)
    return at == BOX or (at in ctx.sc.map.hexes and ctx.sc.map.hexes[at].port)


def box_barred(ctx: Ctx, unit: str) -> dict[str, Any] | None:
    """11.3 with Ambiguity 32: a unit that entered the Box in this GT may not move by sea in the
    GT's first sequence (in practice the units placed there in the Mutual Reinforcement phase: one
    that sailed in during sequence 1 has had its sea move). The entry, or None when it may sail."""
    entry: dict[str, Any] | None = ctx.position.get("box_entry", {}).get(unit)
    if entry is not None and int(entry["turn"]) == ctx.turn and ctx.pts == 1:
        return entry
    return None


def entry_text(entry: dict[str, Any]) -> str:
    pts = int(entry["pts"])
    return ("the Mutual Reinforcement phase" if pts == 0 else f"sequence {pts}") + f" of GT{entry['turn']}"


def place_in_box(ctx: Ctx, unit: str, pts: int) -> None:
    """11.3: put a unit in the Southern Ports Holding Box and record when it entered (box_barred):
    ``pts`` is the sequence, 0 for a placement in the Mutual Reinforcement phase (8.1, 8.7)."""
    ctx.units[unit]["at"] = BOX
    ctx.position.setdefault("box_entry", {})[unit] = {"turn": ctx.turn, "pts": pts}


def _leave_box(ctx: Ctx, unit: str) -> None:
    entries: dict[str, Any] = ctx.position.get("box_entry", {})
    entries.pop(unit, None)
    if not entries:
        ctx.position.pop("box_entry", None)


# --- the naval moves (11.1-11.4), before any ground movement ---------------------------------------

def sea_phase(ctx: Ctx, orders: Sequence[SeaMove], problems: list[Problem]) -> None:
    """11.2: all naval movement is finished before any ground movement begins: each [[sea]] entry
    in order (sea_order). An entry with a problem is not carried out; the others are, so that every
    problem of the orders is found at once."""
    if not orders:
        return
    if not enabled(ctx):
        problems.append(problem(path_of("sea"), "naval movement is a full-game rule (option naval is off)", "11.1"))
        return
    if ctx.side != "soviet":
        problems.append(problem(path_of("sea"), "only Soviet units move by sea", "11.1"))
        return
    used: dict[str, int] = {}
    invaded: list[int] = []
    for k, order in enumerate(orders):
        sea_order(ctx, k, order, used, invaded, problems)


def _unit_problems(ctx: Ctx, where: Place, units: list[str], used: dict[str, int]) -> list[Problem]:
    """11.1-11.3: who may move by sea."""
    out: list[Problem] = []
    for u in sorted(set(units), key=units.index):
        if u not in ctx.units:
            out.append(problem(where, f"unknown unit '{u}'", "11.1", "Use the unit ids `pbem show` lists."))
            continue
        spec = ctx.spec(u)
        kind = NO_SEA.get((spec.type, spec.size))
        entry = box_barred(ctx, u)
        if spec.side != "soviet":
            out.append(problem(where, f"{u} is a German-side unit; only Soviet units move by sea", "11.1"))
        elif kind:
            out.append(problem(where, f"{u} is {kind}; tank and motorized-rifle divisions never move by sea", "11.1"))
        elif units.count(u) > 1:
            out.append(problem(where, f"{u} is listed twice", "11.2"))
        elif u in used:
            out.append(problem(where, f"{u} already moves by sea in sea[{used[u]}]; a unit moves by sea once a player turn",
                               "11.2"))
        elif not in_port(ctx, u):
            here = f"is {OFF_MAP_BOXES[ctx.at(u)]}" if ctx.at(u) in OFF_MAP_BOXES else f"is in {ctx.at(u)}"
            out.append(problem(where, f"{u} {here}, not in a port or the Holding Box, where a unit moving by sea starts "
                                      "the movement phase", "11.2"))
        elif entry is not None:
            out.append(problem(where, f"{u} entered the Holding Box in {entry_text(entry)}: it may not move by sea in that "
                                      "GT's first sequence (Ambiguity 32)", "11.3"))
    return out


def _destination(ctx: Ctx, where: Place, raw: str, units: list[str]) -> tuple[str | None, list[Problem]]:
    """11.2: a sea move ends in any other Soviet-controlled port, or in the Box."""
    dest = BOX if raw == BOX else ctx.sc.map.canonical(raw)
    if dest is None:
        return None, [problem(under(where, "to"), f"'{raw}' is neither a hex of the map nor \"{BOX}\"", "11.2")]
    out: list[Problem] = []
    if dest != BOX:
        h = ctx.sc.map.hexes[dest]
        held = h.settlement and ctx.position["control"].get(dest) != "soviet"
        if not h.port:
            out.append(problem(under(where, "to"), f"{dest} is not a port: a sea move ends in a Soviet-controlled port or the "
                                              "Holding Box (or invades, `invade`, 11.4)", "11.2"))
        elif held or ctx.occupants(dest, "german"):
            out.append(problem(under(where, "to"), f"{place_text(ctx.sc, dest)} is not Soviet-controlled", "11.2"))
        else:
            out += [problem(under(where, "to"), text, rule) for u in units if u in ctx.units
                    for rule, text in entry_problems(ctx, u, dest)]
    for u in units:
        if u in ctx.units and ctx.at(u) == dest:
            out.append(problem(under(where, "to"), f"{u} is already in {place_text(ctx.sc, dest)}: a sea move goes to another "
                                              "port", "11.2"))
    return dest, out


def _target(ctx: Ctx, where: Place, raw: str, invaded: list[int]) -> tuple[str | None, str | None, list[Problem]]:
    """11.4: the invasion's target, a Crimean south-coast hex, and the all-sea hex nearest it."""
    if invaded:
        return None, None, [problem(under(where, "invade"), f"a second invasion: the Soviet invades once a player turn "
                                                       f"(sea[{invaded[0]}])", "11.4")]
    target = ctx.sc.map.canonical(raw)
    if target is None:
        return None, None, [problem(under(where, "invade"), f"'{raw}' is not a hex of the map", "11.4")]
    h = ctx.sc.map.hexes[target]
    sea = ctx.sc.map.canonical(h.beach) if h.beach else None
    if not on_south_coast(target) or h.water or sea is None or ctx.sc.map.hexes[sea].terrain != "sea":
        return None, None, [problem(under(where, "invade"), f"{target} is not a Crimean south-coast hex (2817S-3620S, with the "
                                                       "all-sea hex nearest it given by the map as `beach`)", "11.4")]
    return target, sea, []


def sea_order(ctx: Ctx, k: int, order: SeaMove, used: dict[str, int], invaded: list[int],
              problems: list[Problem]) -> None:
    """One [[sea]] entry: a sea move to a port or the Box (11.2, 11.3) or the invasion (11.4),
    within the 5 units of the player turn (11.1)."""
    where = path_of("sea", k)
    units = list(order.units)
    found = _unit_problems(ctx, where, units, used)
    if (order.to is not None) == (order.invade is not None):
        found.append(problem(where, "give `to` (a port, or \"ports-box\") or `invade` (a Crimean south-coast hex): one of "
                                    "them", "11.2"))
    if not units:
        found.append(problem(where, "no units", "11.2"))
    fresh = [u for u in dict.fromkeys(units) if u not in used]
    total = len(used) + len(fresh)
    if total > CAPACITY:
        counts = " (an invasion counts within them, 11.4)" if order.invade is not None or invaded else ""
        found.append(problem(where, f"{total} units by sea this player turn; at most {CAPACITY}{counts}", "11.1"))
    for u in fresh:
        used[u] = k
    dest = target = sea = None
    if order.to is not None and order.invade is None:
        dest, more = _destination(ctx, where, order.to, units)
        found += more
    elif order.invade is not None and order.to is None:
        target, sea, more = _target(ctx, where, order.invade, invaded)
        if not more:
            invaded.append(k)
        found += more
    if found:
        problems.extend(found)
        return
    rec = ctx.position.setdefault("naval", {"moved": [], "landed": [], "invasion": {}})
    origins = {u: ctx.at(u) for u in units}
    base = {"index": k, "units": units, "from": origins, "used": total, "capacity": CAPACITY,
            "places": {w: place_text(ctx.sc, w) for w in sorted(set(origins.values()))}}
    if dest is not None:  # the port is Soviet-controlled already: no control changes (3.9)
        for u in units:
            _leave_box(ctx, u)
            if dest == BOX:
                place_in_box(ctx, u, ctx.pts)
            else:
                ctx.units[u]["at"] = dest
        rec["moved"] += units
        ctx.emit("sea-move", "11.2", **base, to=dest, to_place=place_text(ctx.sc, dest))
        return
    if target is None or sea is None:  # the checks above leave one of the two
        raise RuntimeError(f"{where.text}: neither a destination nor an invasion target")
    h = ctx.sc.map.hexes[target]
    for u in units:
        _leave_box(ctx, u)
    if ctx.occupants(target, other(ctx.side)):
        for u in units:
            ctx.units[u]["at"] = sea
        rec["invasion"] = {"target": target, "sea": sea, "units": units, "index": k}
        ctx.emit("sea-invasion", "11.4", **base, target=target, place=h.place, sea=sea)
        return
    for u in units:
        ctx.units[u]["at"] = target
    rec["landed"] += units
    ctx.emit("sea-landing", "11.4", **base, target=target, place=h.place, sea=sea)
    enter_hex(ctx, "soviet", target, "amphibious landing")


# --- what the naval moves forbid afterwards ------------------------------------------------------

def move_problems(ctx: Ctx, index: int, move: Move) -> list[Problem]:
    """Ground moves the naval rules forbid: out of the Box (11.3: only by sea), after a sea move port
    to port (11.2) or an unopposed landing (11.4), by invaders waiting at sea (11.4); and a mobile
    assault into the hex an invasion force waits to attack (a design choice: the invasion PA must
    take place, 11.4, 14.1)."""
    where = path_of("move", index)
    rec = record(ctx)
    inv = invasion(ctx)
    out: list[Problem] = []
    for u in move.units:
        if u not in ctx.units:
            continue
        if ctx.at(u) == BOX:
            out.append(problem(where, f"{u} is in the Southern Ports Holding Box, which units leave only by sea (a [[sea]] "
                                      "entry)", "11.3"))
        elif u in rec.get("moved", []):
            out.append(problem(where, f"{u} moved by sea port to port this player turn: no further ground movement", "11.2"))
        elif u in rec.get("landed", []):
            out.append(problem(where, f"{u} landed in {ctx.at(u)} this player turn and may not move further", "11.4"))
        elif u in inv.get("units", []):
            out.append(problem(where, f"{u} waits in the all-sea hex {inv['sea']} for its invasion PA and may not move",
                               "11.4"))
    if inv and move.assault is not None and ctx.sc.map.canonical(move.assault) == inv["target"]:
        out.append(problem(under(where, "assault"), f"{inv['target']} is the hex the invasion force waits to attack: the "
                                               "invasion PA is the first attack on it (14.1), and no mobile assault may "
                                               "come before it", "11.4"))
    return out


def attack_problems(ctx: Ctx, attacks: Sequence[Attack]) -> list[Problem]:
    """Attacks the naval rules forbid or require: none by units that moved port to port (11.2) or
    landed unopposed (11.4); the invaders attack only the hex they invade, all of them (11.4); an
    enemy-held target must be attacked (11.4, 14.1), so the invasion PA takes no condition on earlier
    results (`if_cleared`, `if_held`, 14.5); others may join only with the option invasion_joiners
    (Ambiguity 31)."""
    rec = record(ctx)
    inv = invasion(ctx)
    force = list(inv.get("units", []))
    out: list[Problem] = []
    made = False
    for i, a in enumerate(attacks):
        where = path_of("attack", i)
        target = ctx.sc.map.canonical(a.target)
        units = list(a.units)
        for u in units:
            if u in rec.get("moved", []):
                out.append(problem(where, f"{u} moved by sea port to port this player turn and may not attack", "11.2"))
            elif u in rec.get("landed", []):
                out.append(problem(where, f"{u} landed unopposed this player turn and may not attack", "11.4"))
            elif u in force and target != inv["target"]:
                out.append(problem(where, f"{u} is an invader: it attacks only the hex it invades, {inv['target']}", "11.4"))
        if not inv or target != inv["target"]:
            continue
        made = True
        missing = [u for u in force if u not in units]
        if missing:
            out.append(problem(where, f"every invading unit takes part in the invasion PA: {', '.join(missing)} "
                                      f"{'is' if len(missing) == 1 else 'are'} missing", "11.4"))
        conditions = [k for k, hexes in a.conditions() if hexes]
        if conditions:
            out.append(problem(where, f"the invasion PA is made whatever happened before it ({', '.join(conditions)}): an "
                                      "invasion against an enemy-held hex must attack (14.1)", "11.4"))
        joiners = [u for u in units if u not in force]
        if joiners and not ctx.options.get("invasion_joiners", True):
            out.append(problem(where, f"{', '.join(joiners)} may not join the invasion PA (option invasion_joiners is off, "
                                      "Ambiguity 31)", "11.4"))
    if inv and not made:
        out.append(problem(path_of("sea", inv['index']), f"the invasion force must attack {inv['target']}, which enemy units hold: "
                                                   "an [[attack]] on it with every invader (the invasion PA)", "11.4",
                           f'Add [[attack]] target = "{inv["target"]}", units = {force!r}.'.replace("'", '"')))
    return out


# --- the invasion PA (11.4, 14.5) ---------------------------------------------------------------

def assault_order(ctx: Ctx, attacks: Sequence[Attack]) -> list[int]:
    """14.5, 11.4: the order in which the attacks are resolved: the invasion PA first, then the
    others in the order given."""
    target = invasion(ctx).get("target")
    first = [i for i, a in enumerate(attacks) if target and ctx.sc.map.canonical(a.target) == target]
    return first + [i for i in range(len(attacks)) if i not in first]


def invasion_attack(ctx: Ctx, index: int, target: str, attackers: list[str]) -> list[str]:
    """11.4: the invaders among an attack's units, when it is the invasion PA (reported), else []."""
    inv = invasion(ctx)
    if not inv or inv["target"] != target:
        return []
    force = [u for u in inv["units"] if u in attackers]
    ctx.emit("invasion-assault", "11.4", index=index, target=target, sea=inv["sea"], units=force,
             joiners=[u for u in attackers if u not in force])
    return force


def invasion_shifts(force: list[str]) -> list[Shift]:
    """11.4: the invasion PA takes 1L in addition to every other shift."""
    return [Shift(-1, "11.4", "amphibious invasion")] if force else []


def invasion_outcome(ctx: Ctx, index: int, attack: Attack, target: str, force: list[str]) -> None:
    """11.4 with Ambiguity 31: the invasion PA cleared the hex (by elimination or a German retreat):
    the invaders go ashore as an advance after combat (14.39), then the units that joined it advance
    as the attack's `advance` says; it did not: every invader is eliminated (no evacuation from a
    beach), the joiners stay where they are."""
    alive = [u for u in force if ctx.on_map(u)]
    if ctx.occupants(target, other(ctx.side)):
        for u in alive:
            ctx.units[u].update(at="dead", steps=0)
        ctx.emit("invasion-failed", "11.4", index=index, hex=target, units=alive,
                 joiners=[u for u in attack.units if u not in force and ctx.on_map(u)])
        return
    for u in alive:
        ctx.units[u]["at"] = target
    ctx.emit("invasion-ashore", "11.4", index=index, hex=target, units=alive)
    if alive:
        enter_hex(ctx, ctx.side, target, "invasion")
    advance_after_combat(ctx, index, replace(attack, advance=tuple(u for u in attack.advance if u not in force)), target)


def end_player_turn(ctx: Ctx) -> None:
    """The restrictions of this player turn's naval moves end with it (11.2, 11.4): afterwards the
    units trace supply and move normally."""
    ctx.position.pop("naval", None)


def plug(hooks: Hooks) -> Hooks:
    """The naval rules in the core rules (rules/context.py, Hooks): the invasion PA's force, its 1L
    and its outcome (11.4)."""
    return replace(hooks, invasion=invasion_attack, invasion_shifts=invasion_shifts, invasion_end=invasion_outcome)


# --- text -------------------------------------------------------------------------------------

def _from_text(d: dict[str, Any]) -> str:
    by: dict[str, list[str]] = {}
    for u, where in d["from"].items():
        by.setdefault(where, []).append(u)
    return "; ".join(f"{', '.join(us)} from {d['places'][w]}" for w, us in by.items())


def _capacity(d: dict[str, Any]) -> str:
    return f" Naval capacity used: {d.get('used')} of {d.get('capacity')} units this player turn (11.1)."


def _target_text(d: dict[str, Any]) -> str:
    return f"{d.get('target')}" + (f" ({d['place']})" if d.get("place") else "")


def _sea_move(e: Event) -> list[str]:
    d = e.data
    box = " In the Box they are always in supply and leave it only by sea (11.3)." if d["to"] == BOX else ""
    return [f"- Sea move {d['index'] + 1} (11.2): {_from_text(d)} to {d['to_place']} by sea on the Black "
            f"Sea (11.1); no further ground movement and no attack this player turn (11.2).{box}{_capacity(d)}"]


def _sea_landing(e: Event) -> list[str]:
    d = e.data
    return [f"- Amphibious invasion, sea move {d['index'] + 1} (11.4): {_from_text(d)} to the all-sea hex "
            f"{d['sea']} nearest {_target_text(d)}, which holds no enemy unit: they go ashore at once and may not move or "
            f"attack further this player turn (11.4).{_capacity(d)}"]


def _sea_invasion(e: Event) -> list[str]:
    d = e.data
    return [f"- Amphibious invasion, sea move {d['index'] + 1} (11.4): {_from_text(d)} to the all-sea hex "
            f"{d['sea']} nearest {_target_text(d)}, which enemy units hold: they wait there, may not move, and make the "
            f"invasion PA on it, the first prepared assault of the phase (11.4, 14.5).{_capacity(d)}"]


def _invasion_assault(e: Event) -> list[str]:
    d = e.data
    joined = f"; joined by {', '.join(d['joiners'])} from adjacent land hexes (Ambiguity 31)" if d["joiners"] else ""
    return [f"- **Attack {d['index'] + 1} is the invasion PA on {d['target']}** (11.4), resolved first of the phase "
            f"(14.5): {', '.join(d['units'])} attack from the all-sea hex {d['sea']} and count as fully supplied this "
            f"player turn (11.4){joined}; the attack takes 1L (11.4)."]


def _invasion_ashore(e: Event) -> list[str]:
    d = e.data
    if not d["units"]:
        return [f"  - {d['hex']} is cleared, but no invading unit is left to go ashore (11.4)."]
    return [f"  - The invasion clears {d['hex']}: {', '.join(d['units'])} go ashore, as an advance after combat "
            "(14.39, Ambiguity 31), and may not move further this player turn (11.4)."]


def _invasion_failed(e: Event) -> list[str]:
    d = e.data
    kept = (f"; the units that joined it from land are not eliminated: {', '.join(d['joiners'])} (Ambiguity 31)"
            if d["joiners"] else "")
    if not d["units"]:
        return [f"  - The invasion PA does not clear {d['hex']}; no invading unit is left (11.4){kept}."]
    return [f"  - The invasion PA does not clear {d['hex']}: every invading unit is eliminated, "
            f"{', '.join(d['units'])}; there is no evacuation from a beach (11.4){kept}."]


# Report lines for the naval events (11.1-11.4), by kind (render.EVENT_TEXT).
EVENT_TEXT: dict[str, Callable[[Event], list[str]]] = {
    "sea-move": _sea_move, "sea-landing": _sea_landing, "sea-invasion": _sea_invasion,
    "invasion-assault": _invasion_assault, "invasion-ashore": _invasion_ashore, "invasion-failed": _invasion_failed,
}


def entered_this_gt(state: dict[str, Any], units: list[str]) -> dict[str, dict[str, Any]]:
    """The units of ``units`` that entered the Box in the current GT, with their entries (11.3)."""
    entries = state["position"].get("box_entry", {})
    turn = int(state["clock"]["turn"])
    return {u: entries[u] for u in units if u in entries and int(entries[u]["turn"]) == turn}


def box_text(state: dict[str, Any], units: list[str]) -> str:
    """The units in the Box for `pbem show`, and which of them entered it in this GT, when (11.3)."""
    recent = entered_this_gt(state, units)
    return ", ".join(units) + ("; entered in this GT: " + ", ".join(f"{u} in {entry_text(e)}" for u, e in recent.items())
                               if recent else "")


def template_lines(sc: Scenario, state: dict[str, Any], side: str) -> list[str]:
    """For the Soviet's order skeleton (option naval): the Black Sea ports and the Box with their
    units, and the [[sea]] keys, commented (11.1-11.4)."""
    if side != "soviet" or not state["options"].get("naval"):
        return []
    pos = state["position"]
    units = pos["units"]
    own = {u: s for u, s in sorted(units.items()) if sc.units[u].side == "soviet"}
    lines = ["", "# Black Sea ports and the Southern Ports Holding Box (11.2), where sea moves start:"]
    for h in sorted(x for x, spec in sc.map.hexes.items() if spec.port):
        here = [u for u, s in own.items() if s["at"] == h]
        owner = pos["control"].get(h, "")
        lines.append(f"#   {place_text(sc, h)}" + (f" ({owner}-controlled)" if owner else "") + f": {', '.join(here) or '-'}")
    boxed = [u for u, s in own.items() if s["at"] == BOX]
    lines.append(f"#   the Holding Box: {', '.join(boxed) or '-'}")
    recent = entered_this_gt(state, boxed)
    if recent and int(state["clock"]["pts"]) == 1:
        lines.append(f"#     not in this sequence, having entered the Box in this GT (11.3): {', '.join(recent)}")
    lines += [
        "# Naval movement (11.x), before any ground movement: at most 5 units a player turn, no tank or",
        "# motorized-rifle divisions; a unit that moved port to port neither moves nor attacks further.",
        "# [[sea]]",
        '# units = ["UNIT"]',
        f'# to = "HEX"                    # another Soviet-controlled port, or "{BOX}" (11.2)',
        "# [[sea]]",
        '# units = ["UNIT"]',
        '# invade = "HEX"                # once a player turn, a Crimean south-coast hex 2817S-3620S (11.4); if enemy',
        "#                                # units hold it: an [[attack]] on it with every invader, resolved first",
    ]
    return lines
