"""Naval operations (8.0): naval combat against units carried by sea (8.1, 8.11-8.14), naval
interdiction of units strat-moving by sea (8.2, 8.21-8.23), fleet point transfers between sea zones
(8.3, 8.31, 8.32) in the Initial and Final Supply Determination Phases (1.21, 1.27; J-2, J-8).

Fleet points (FPs) are public: ``position.fleets`` ``{SEA: {NATION: n}}``; those flipped to their
"w/out Transport" side this game turn (5.34: they carried a unit; 8.3: they were transferred) are
counted in ``position.transport`` ``{SEA: {NATION: n}}`` (cleared at each game turn). The
transfers made this game turn are counted in ``position.free.fleet_transfers`` ``{TURN: {NATION:
n}}`` (A-76: the caps of 8.31 count both supply phases together).

Orders (docs/europe-engulfed.md, "Naval operations"):

- ``[[fleet]] nation, from, to, fp`` in the movement step's file: transfers made in the Initial
  Supply Determination Phase (8.3, J-2), before production; the initial supply determination is
  then made again with the fleets where they now are (1.21).
- ``[final] fleets = [{ nation, from, to, fp }, ...]`` in the file that ends the player-turn:
  transfers made in the Final Supply Determination Phase (8.3, J-8), before the units are traced.

The non-phasing side decides by its STANDING instructions (J-0, J-4, J-5): nobody decides after
seeing dice.

- ``[standing] naval = { SEA = "always" | "stronger" | "half" | "never" }``: whether its FPs in a sea
  zone engage enemy FPs carrying units there (8.11; default ``never``: naval combat is a choice the
  rules give, "may engage"): always; when its FPs there outnumber the enemy's; when they are at
  least half the enemy's (J-4's example); never.
- ``[standing] interdict = { SEA = "always" | "never" }`` (8.21; default ``always``: interdiction
  costs the interdictor nothing, 8.23, J-5).
- ``[standing] naval_losses = [NATION, ...]``: the order in which its nations' FPs are lost within
  each class of 8.14 (the nations not named after, by name); the units a destroyed FP carried are
  lost in the order of the standing ``losses`` list, then GS markers, then the other blocks by id
  (8.14: the owner chooses).

Naval combat (8.12, 8.13, T-8): the engaging side (the FPs in the zone of the nations at war with a
carrying nation, one "player" at a time: the Axis's, the Western Allies', the USSR's, as 3.31
groups them) and the engaged side (the FPs there of the carrying nations' group, all of them:
the 8.11 example counts the 3 that had already carried). Equal numbers: each side 1 die per FP,
hits on 6. Unequal: both sides as many dice as the smaller side's FPs, hits on 6, then the larger
side 1 die per excess FP, hits on 5-6. Losses simultaneous, in the order of 8.14. Interdiction
(8.21-8.23, T-9): for each unit and each sea zone it crosses, each interdicting group with at
least 1 FP per 2 of the moving side's FPs there rolls 1 die per FP, a step lost per 6 (5-6 in the
Mediterranean while it controls Sicily or Malta); FPs are never lost to interdiction (A-37).

Checking never rolls: naval combat and interdiction are fought only when resolving.
"""

from __future__ import annotations

import math
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import axis_powers, supply
from .context import Ctx
from .data import ALLIES, AXIS

KEYS = ("fleet",)

ATLANTIC, MEDITERRANEAN, BALTIC = "atlantic", "mediterranean", "baltic"
GIBRALTAR, ALEXANDRIA, SINAI = "gibraltar", "alexandria", "sinai-desert"  # 8.31
RUHR, DENMARK = "ruhr", "denmark"  # 8.32
WESTERN_TRANSFER = ("britain", "france")  # 8.31
AXIS_FLEET = {ATLANTIC: "germany", BALTIC: "germany", MEDITERRANEAN: "italy"}  # 8.32, 4.2: the nation of an Axis FP by zone
ENGAGE = ("always", "stronger", "half", "never")
INTERDICT = ("always", "never")
GROUP_NAME = {"axis": "the Axis", "western": "the Western Allies", "ussr": "the USSR"}


# --- fleets -------------------------------------------------------------------------------------

def fleets(ctx: Ctx, sea: str) -> dict[str, int]:
    return {str(n): int(k) for n, k in sorted(ctx.pos.get("fleets", {}).get(sea, {}).items()) if int(k) > 0}


def used(ctx: Ctx, sea: str) -> dict[str, int]:
    """The FPs of ``sea`` flipped to "w/out Transport" this game turn (5.34, 8.3), by nation."""
    return {str(n): int(k) for n, k in sorted(ctx.pos.get("transport", {}).get(sea, {}).items()) if int(k) > 0}


def group(ctx: Ctx, nation: str) -> str:
    """The player whose FPs a nation's are (3.31): axis, western or ussr."""
    return supply.fp_class(ctx, nation)


def _side_of_group(g: str) -> str:
    return AXIS if g == "axis" else ALLIES


def _standing(ctx: Ctx, g: str) -> dict[str, Any]:
    """The standing instructions of the player of a group of nations (the side's file, J-0)."""
    return dict(ctx.standing.get(_side_of_group(g), {}))


def _set(ctx: Ctx, table: str, sea: str, nation: str, n: int) -> None:
    by = ctx.pos.setdefault(table, {}).setdefault(sea, {})
    if n > 0:
        by[nation] = n
    else:
        by.pop(nation, None)
    if not by:
        ctx.pos[table].pop(sea, None)


def _nation_order(ctx: Ctx, g: str, nations: list[str]) -> list[str]:
    """8.14: the owner's standing ``naval_losses`` order, then the others by name."""
    named = [str(n) for n in _standing(ctx, g).get("naval_losses", []) if str(n) in nations]
    return named + sorted(n for n in nations if n not in named)


# --- naval combat (8.1) ------------------------------------------------------------------------

def _enemy_groups(ctx: Ctx, sea: str, movers: set[str], side: str) -> dict[str, dict[str, int]]:
    """8.11: the FPs in ``sea`` of the nations at war with a moving or carrying nation, by player."""
    out: dict[str, dict[str, int]] = {}
    for n, k in fleets(ctx, sea).items():
        if ctx.side_of_nation(n) == side or not any(ctx.at_war(n, m) for m in movers):
            continue
        if axis_powers.starts_no_naval_combat(ctx, n):  # 9.45b
            continue
        out.setdefault(group(ctx, n), {})[n] = k
    return dict(sorted(out.items()))


def _decides(ctx: Ctx, g: str, sea: str, mine: int, theirs: int) -> tuple[bool, str]:
    """8.11, J-4: the engaging player's standing ``naval`` choice for ``sea``."""
    choice = str(_standing(ctx, g).get("naval", {}).get(sea, "never"))
    ok = {"always": True, "never": False, "stronger": mine > theirs, "half": 2 * mine >= theirs}.get(choice, False)
    return ok, choice


def engage(ctx: Ctx, sea: str, cargo: list[str], gs: dict[str, int], carrying: dict[str, int], rule: str,
           what: str, per_unit: int = 1, side: str = "") -> tuple[list[str], dict[str, int], str]:
    """8.1: the units ``cargo`` (blocks) and ``gs`` (GS markers by nation) carried in ``sea`` by the
    moving side's FPs ``carrying`` (by nation: the FPs carrying them now; ``per_unit`` FPs each,
    7.25) may be engaged by each enemy player with FPs there, as its standing ``naval`` says.
    Returns the blocks and GS lost with the FPs that carried them (8.14; the caller takes them off
    the map: the blocks are eliminated here, the GS markers by the caller, who moves them) and a
    note for the move's report. ``side``: the side whose units sail (the phasing side unless
    given: a retreat by sea, 7.51, is the defender's). Checking (no dice) fights nothing."""
    side = side or ctx.side
    movers = {ctx.nation(u) for u in cargo} | set(gs) | set(carrying)
    enemies = _enemy_groups(ctx, sea, movers, side)
    if not enemies:
        return [], {}, "none: no enemy fleet points in the zone (8.11)"
    if ctx.dice is None:
        return [], {}, "decided when the orders are resolved (8.11)"
    lost_units: list[str] = []
    lost_gs: dict[str, int] = {}
    notes = []
    carry = {n: k for n, k in carrying.items() if k > 0}
    cargo_left = list(cargo)
    gs_left = dict(gs)
    mine_g = group(ctx, sorted(carry)[0]) if carry else (group(ctx, ctx.nation(cargo[0])) if cargo else group(ctx, sorted(gs)[0]))
    for g, theirs in enemies.items():
        engaged = {n: k for n, k in fleets(ctx, sea).items() if group(ctx, n) == mine_g and ctx.side_of_nation(n) == side}
        theirs = {n: k for n, k in fleets(ctx, sea).items() if n in theirs}
        a, b = sum(theirs.values()), sum(engaged.values())
        if not a or not b:
            continue
        ok, choice = _decides(ctx, g, sea, a, b)
        if not ok:
            ctx.emit("naval-combat-declined", "8.11", sea=sea, engaging=GROUP_NAME[g], fp=theirs, enemy_fp=engaged,
                     choice=choice, what=what, by_rule=rule)
            notes.append(f"declined by {GROUP_NAME[g]} (standing naval = {choice})")
            continue
        res = _fight(ctx, sea, g, theirs, mine_g, engaged, carry)
        # 8.14: each carrying FP destroyed takes the units it carries, in the owner's order
        sunk = sum(res["engaged_losses"].get("carrying", {}).values())
        for n, k in res["engaged_losses"].get("carrying", {}).items():
            carry[n] = carry.get(n, 0) - k
        k_units = math.ceil(sunk / per_unit) if sunk else 0
        victims = _cargo_order(ctx, side, cargo_left, gs_left)[:k_units]
        drowned_u = [v for v in victims if not v.startswith("gs:")]
        drowned_gs: dict[str, int] = {}
        for v in victims:
            if v.startswith("gs:"):
                n = v.split(":")[1]
                drowned_gs[n] = drowned_gs.get(n, 0) + 1
                gs_left[n] -= 1
        cargo_left = [u for u in cargo_left if u not in drowned_u]
        ctx.emit("naval-combat", "8.1", sea=sea, what=what, by_rule=rule, engaging=GROUP_NAME[g], engaged=GROUP_NAME[mine_g],
                 choice=choice, **res, cargo_lost=drowned_u, gs_lost=drowned_gs)
        for u in drowned_u:
            ctx.eliminate(u, "8.14", f"carried by a fleet point destroyed in the naval combat in the {sea}")
        for n, k in drowned_gs.items():
            lost_gs[n] = lost_gs.get(n, 0) + k
        lost_units += drowned_u
        notes.append(f"fought with {GROUP_NAME[g]} (standing naval = {choice}; 8.12-8.14)")
        if not cargo_left and not any(gs_left.values()):
            break
    return lost_units, lost_gs, "; ".join(notes) if notes else "none: no enemy fleet points in the zone (8.11)"


def _cargo_order(ctx: Ctx, side: str, cargo: list[str], gs: dict[str, int]) -> list[str]:
    """8.14: the owner's choice of the units lost with their FPs: the blocks of its standing
    ``losses`` list in its order, then GS markers, then the other blocks by id."""
    losses = [str(u) for u in ctx.standing.get(side, {}).get("losses", [])]
    named = [u for u in losses if u in cargo]
    markers = [f"gs:{n}" for n in sorted(gs) for _ in range(gs[n])]
    return named + markers + sorted(u for u in cargo if u not in named)


def _fight(ctx: Ctx, sea: str, g: str, theirs: dict[str, int], mine_g: str, engaged: dict[str, int],
           carrying: dict[str, int]) -> dict[str, Any]:
    """8.12, 8.13 (T-8): the dice, hits and simultaneous losses of one naval combat."""
    t8 = ctx.sc.charts["t8_naval_combat"].data
    a, b = sum(theirs.values()), sum(engaged.values())
    small = min(a, b)
    six, six2, five = int(t8["equal_hit"]), int(t8["smaller_part_hit"]), int(t8["excess_hit"])
    first = six if a == b else six2
    label = f"8.1|{ctx.step}|{sea}"
    dice = {"engaging": ctx.roll(f"{label}|engaging", small), "engaged": ctx.roll(f"{label}|engaged", small)}
    if a > b:
        dice["engaging_excess"] = ctx.roll(f"{label}|engaging-excess", a - b)
    if b > a:
        dice["engaged_excess"] = ctx.roll(f"{label}|engaged-excess", b - a)
    hits_by_engaging = sum(1 for d in dice["engaging"] if d >= first) + sum(1 for d in dice.get("engaging_excess", []) if d >= five)
    hits_by_engaged = sum(1 for d in dice["engaged"] if d >= first) + sum(1 for d in dice.get("engaged_excess", []) if d >= five)
    # simultaneous (8.12, 8.13): both sides' losses from the FPs present before the combat
    eng_losses = _lose(ctx, sea, mine_g, engaged, carrying, hits_by_engaging)
    their_losses = _lose(ctx, sea, g, theirs, {}, hits_by_engaged)
    return {"fp": theirs, "enemy_fp": engaged, "equal": a == b, "first_hit": first, "excess_hit": five, "dice": dice,
            "hits": {"engaging": hits_by_engaging, "engaged": hits_by_engaged},
            "engaging_losses": their_losses, "engaged_losses": eng_losses}


def _lose(ctx: Ctx, sea: str, g: str, fps: dict[str, int], carrying: dict[str, int], hits: int) -> dict[str, dict[str, int]]:
    """8.14: ``hits`` FPs lost from ``fps`` (by nation) in the order: not yet carried units this
    turn, carrying units now, already carried (or transferred) this turn; within each, the owner's
    standing ``naval_losses`` order of nations."""
    out: dict[str, dict[str, int]] = {"unused": {}, "carrying": {}, "used": {}}
    flipped = used(ctx, sea)
    left = hits
    order = _nation_order(ctx, g, list(fps))
    for cls in ("unused", "carrying", "used"):
        for n in order:
            if not left:
                break
            have = fleets(ctx, sea).get(n, 0)
            carry = min(int(carrying.get(n, 0)), flipped.get(n, 0))
            avail = {"unused": have - flipped.get(n, 0), "carrying": carry, "used": flipped.get(n, 0) - carry}[cls]
            avail = max(0, min(avail, have))
            k = min(avail, left)
            if not k:
                continue
            _set(ctx, "fleets", sea, n, have - k)
            if cls != "unused":
                _set(ctx, "transport", sea, n, flipped.get(n, 0) - k)
                flipped[n] = flipped.get(n, 0) - k
                if cls == "carrying":
                    carrying = {**carrying, n: int(carrying.get(n, 0)) - k}
            out[cls][n] = k
            left -= k
    return {c: v for c, v in out.items() if v}


# --- retreat by sea (7.51) ---------------------------------------------------------------------

def free_for(ctx: Ctx, sea: str, side: str) -> dict[str, int]:
    """5.34: the FPs of ``side``'s nations in ``sea`` not yet used for transport this game turn."""
    fl, us = fleets(ctx, sea), used(ctx, sea)
    return {n: k - us.get(n, 0) for n, k in fl.items() if ctx.side_of_nation(n) == side and k - us.get(n, 0) > 0}


def sea_retreat(ctx: Ctx, area: str, targets: list[str], side: str, units: list[str]) -> tuple[str, str]:
    """7.51: the first of ``targets`` that ``side``'s units retreating from the port ``area`` reach
    by sea: a friendly-controlled, non-contested port on a sea zone of ``area`` where the side has
    an unused FP for each unit (5.34; as 3.31, Soviet and Western FPs carry only their own).
    Returns (area, sea zone), or ("", "")."""
    for t in targets:
        t = str(t)
        if t not in ctx.sc.map.areas or not ctx.area(t).ground or t == area:
            continue
        if not ctx.friendly(t, side) or ctx.contested(t) or not ctx.port_open(t, side):
            continue
        for sea in sorted(set(ctx.area(area).ports) & set(ctx.area(t).ports)):
            if _carriers(ctx, sea, side, units) is not None:
                return t, sea
    return "", ""


def _carriers(ctx: Ctx, sea: str, side: str, units: list[str]) -> dict[str, int] | None:
    free = free_for(ctx, sea, side)
    take: dict[str, int] = {}
    for u in units:
        nat = ctx.nation(u)
        order = [nat] + [n for n in sorted(free) if n != nat and group(ctx, n) == group(ctx, nat)]
        n = next((c for c in order if free.get(c, 0) > 0), "")
        if not n:
            return None
        free[n] -= 1
        take[n] = take.get(n, 0) + 1
    return take


def retreat_by_sea(ctx: Ctx, area: str, to: str, sea: str, side: str, units: list[str]) -> tuple[list[str], str]:
    """7.51, 8.11: ``side``'s units sail from ``area`` to ``to`` across ``sea``, each on an unused FP
    (flipped, 5.34); the enemy may engage them (its standing ``naval``). Returns the units that
    arrive and the note of the naval combat; the caller places them."""
    carry = _carriers(ctx, sea, side, units) or {}
    for n, k in carry.items():
        _set(ctx, "transport", sea, n, used(ctx, sea).get(n, 0) + k)
    lost, _gs, note = engage(ctx, sea, units, {}, carry, "7.51", f"the retreat by sea from {area} to {to}", side=side)
    return [u for u in units if u not in lost], note


# --- naval interdiction (8.2) -------------------------------------------------------------------

def interdict(ctx: Ctx, seas: list[str], units: list[str], gs: dict[str, int], cadres: list[str] | None = None,
              told: dict[str, int] | None = None) -> dict[str, int]:
    """8.21-8.23: each unit strat-moving across ``seas`` (blocks at their destination already, GS
    markers too), one at a time and zone by zone, may be interdicted by each enemy player with FPs in
    the zone that has at least 1 FP per 2 of the moving side's there (8.22), as its standing
    ``interdict`` says (default always). Each hit is a step lost; a GS marker has one. Returns the GS
    markers lost (the blocks' losses are made here). A hidden block (fog of war): its steps told in
    the order (``steps``; ``cadres``: told at 1) are claimed and its hits taken from them (eliminated
    when they reach them); else each hit is a step lost as 7.9 has it, claimed (the claim says it
    had 2 steps or more then). Checking rolls nothing."""
    lost_gs: dict[str, int] = {}
    if ctx.dice is None:
        return lost_gs
    side = ctx.side
    t9 = ctx.sc.charts["t9_interdiction"].data
    ratio = int(t9["ratio"])
    movers = [(u, ctx.nation(u)) for u in units] + [(f"gs:{n}:{i + 1}", n) for n in sorted(gs) for i in range(int(gs[n]))]
    gone: set[str] = set()
    steps_told = {**{str(u): 1 for u in (cadres or [])}, **{str(u): int(n) for u, n in (told or {}).items()}}
    for sea in seas:
        for who, nation in movers:
            marker = who.startswith("gs:")
            for g, theirs in _enemy_groups(ctx, sea, {nation}, side).items():
                if who in gone or (not marker and who not in ctx.units):
                    break
                mine = sum(k for n, k in fleets(ctx, sea).items() if ctx.side_of_nation(n) == side)
                a = sum(theirs.values())
                base = dict(sea=sea, unit="" if marker else who, nation=nation, interdictor=GROUP_NAME[g], fp=theirs,
                            enemy_fp=mine, ratio=ratio)
                if a * ratio < mine:
                    ctx.emit("interdiction-barred", "8.22", **base)
                    continue
                choice = str(_standing(ctx, g).get("interdict", {}).get(sea, "always"))
                if choice == "never":
                    ctx.emit("interdiction-declined", "8.21", **base, choice=choice)
                    continue
                bases = [str(x) for x in t9["mediterranean_bases"] if ctx.controller(str(x)) == _side_of_group(g)]
                hit = int(t9["mediterranean_hit"]) if sea == MEDITERRANEAN and bases else int(t9["hit"])
                dice = ctx.roll(f"8.21|{ctx.step}|{sea}|{who}", a)
                hits = sum(1 for d in dice if d >= hit)
                ctx.emit("interdiction", "8.21", **base, choice=choice, hit=hit, bases=bases, dice=dice, hits=hits)
                for _ in range(hits):
                    if marker:
                        gone.add(who)
                        lost_gs[nation] = lost_gs.get(nation, 0) + 1
                        break
                    why = f"interdicted in the {sea}"
                    if ctx.steps(who) is None and who in steps_told:
                        _hidden_hits(ctx, who, hits, steps_told, why)
                        break
                    if ctx.steps(who) is None:
                        if supply.lose_hidden_step(ctx, who, "8.21", why, False):
                            break
                    elif ctx.lose_step(who, "8.21", why):
                        break
    return lost_gs


def _hidden_hits(ctx: Ctx, u: str, hits: int, told: dict[str, int], why: str) -> None:
    """8.21 on a hidden block whose steps its owner told in the order: a claim that it had them,
    the hits taken from them (eliminated when they reach them, else counted in ``lost``)."""
    have = told[u]
    k = min(hits, have)
    ctx.claim(u, {"steps": "==", "n": have, "lost": k, "rule": "8.21", "why": f"{why}: told at {have} step(s)"})
    if k >= have:
        ctx.eliminate(u, "8.21", f"{why}: {hits} hit(s) on its {have} step(s)")
        return
    told[u] = have - k
    s = ctx.units[u]
    s["lost"] = int(s.get("lost", 0)) + k
    ctx.emit("hidden-step-lost", "8.21", unit=u, nation=ctx.nation(u), at=ctx.at(u), why=why, lost=s["lost"])


# --- fleet point transfers (8.3) ----------------------------------------------------------------

def _count(ctx: Ctx) -> dict[str, int]:
    """A-76: the transfers made this game turn, both supply phases together."""
    return dict(ctx.pos.get("free", {}).get("fleet_transfers", {}).get(ctx.turn.key, {}))


def _route(ctx: Ctx, nation: str, src: str, dst: str) -> tuple[str, str, int, str]:
    """8.31, 8.32: (problem, rule, cap, the nation the FP becomes) for a transfer of ``nation``'s FP
    from ``src`` to ``dst``; cap 0: no limit (A-39)."""
    pair = {src, dst}
    if nation in WESTERN_TRANSFER:
        if pair != {ATLANTIC, MEDITERRANEAN}:
            return f"{nation.capitalize()} transfers FPs between the Atlantic and the Mediterranean only", "8.31", 0, nation
        if ctx.controller(GIBRALTAR) == ALLIES:
            return "", "8.31", 2, nation
        if ctx.controller(ALEXANDRIA) == ALLIES and ctx.controller(SINAI) == ALLIES:  # the Allies hold the Suez route
            return "", "8.31", 1, nation
        return ("the Allies control neither Gibraltar nor both Alexandria and the Sinai Desert: no Western Allied transfer "
                "between the Atlantic and the Mediterranean"), "8.31", 0, nation
    if ctx.side_of_nation(nation) == AXIS and nation in ("germany", "italy"):
        cap = int(ctx.option("axis_fleet_transfers"))
        if pair == {BALTIC, ATLANTIC}:
            if nation != "germany":
                return "only German FPs sail in the Baltic", "8.32", cap, nation
            if ctx.controller(RUHR) != AXIS and ctx.controller(DENMARK) != AXIS:
                return "the Axis controls neither the Ruhr nor Denmark: no transfer between the Baltic and the Atlantic", "8.32", cap, nation
            return "", "8.32", cap, "germany"
        if pair == {ATLANTIC, MEDITERRANEAN}:
            italy_at_war = any("italy" in p for p in ctx.war_pairs())
            if not italy_at_war or ctx.controller(GIBRALTAR) != AXIS:
                return ("an Axis transfer between the Atlantic and the Mediterranean needs Italy at war and Gibraltar "
                        "Axis-controlled"), "8.32", cap, nation
            return "", "8.32", cap, AXIS_FLEET[dst]
        return "the Axis transfers between the Baltic and the Atlantic, or the Atlantic and the Mediterranean", "8.32", cap, nation
    if nation == "ussr":
        return "the USSR transfers no FPs: only the Western Allies and the Axis do", "8.3", 0, nation
    return f"{nation} transfers no FPs: 8.31 gives the transfers to Britain and France", "8.31", 0, nation


class _NoCapacity(supply.Net):
    """8.3: the destination port's supply is traced with the supply capacity ignored (a zone with
    fleet points of the class is crossed whatever its capacity)."""

    def capacity(self, cls: str) -> dict[str, int]:
        if cls not in self._caps:
            caps = {}
            for z, by in sorted(self.ctx.pos.get("fleets", {}).items()):
                caps[z] = 999 if any(int(k) > 0 and supply.fp_class(self.ctx, n) == cls for n, k in by.items()) else 0
            self._caps[cls] = caps
        return self._caps[cls]


def supplied_port(ctx: Ctx, sea: str, nation: str) -> str:
    """8.3: a friendly-controlled port on ``sea`` that traces supply for ``nation`` overland (3.1) or
    by sea (3.3), capacity ignored; "" when there is none."""
    side = ctx.side_of_nation(nation)
    net = _NoCapacity(ctx, side)
    for a, ar in sorted(ctx.sc.map.areas.items()):
        if not ar.ground or sea not in ar.ports or ctx.controller(a) != side or not ctx.port_open(a, side):
            continue
        if net.automatic(a, nation) or net.overland(a, nation) or net.routes(a, nation):
            return a
    return ""


def transfer(ctx: Ctx, t: dict[str, Any], where: str, problems: list[Problem] | None, phase: str) -> bool:
    """8.3: one transfer of ``fp`` FPs of ``nation`` from a sea zone to another in the phasing
    side's ``phase`` (initial 1.21 or final 1.27). Checked (``problems`` given: problems recorded,
    the transfer made on the working context when it has none) or made; a transfer found illegal
    when resolving (the position changed since it was checked) is refused with an event."""
    nation, src, dst = str(t.get("nation", "")), str(t.get("from", "")), str(t.get("to", ""))
    k = int(t.get("fp", 1))
    bad: list[Problem] = []
    for key, z in (("from", src), ("to", dst)):
        if z not in ctx.sc.map.areas or ctx.area(z).kind != "sea":
            bad.append(Problem(f"{where}.{key}", f"'{z[:40]}' is not a sea zone", "8.3"))
    if not bad and src == dst:
        bad.append(Problem(f"{where}.to", "a transfer goes to another sea zone", "8.3"))
    if nation not in ctx.sc.units.nations or ctx.side_of_nation(nation) != ctx.side:
        bad.append(Problem(f"{where}.nation", f"'{nation[:40]}' is not a nation of the {ctx.side}: FPs transfer in their "
                           "own side's supply determination phases", "8.3"))
    if k < 1:
        bad.append(Problem(f"{where}.fp", "at least 1 FP transfers", "8.3"))
    if bad:
        return _refused(ctx, bad, where, problems, t)
    why, rule, cap, becomes = _route(ctx, nation, src, dst)
    if why:
        bad.append(Problem(f"{where}.to", why, rule))
        return _refused(ctx, bad, where, problems, t)
    free = fleets(ctx, src).get(nation, 0) - used(ctx, src).get(nation, 0)
    if k > free:
        bad.append(Problem(f"{where}.fp", f"{nation} has {max(free, 0)} FP(s) in the {src} still able to carry units; only "
                           "those transfer (8.3: FPs that have sea-transported or transferred this turn do not)", "8.3"))
    done = _count(ctx)
    if cap and done.get(nation, 0) + k > cap:
        bad.append(Problem(f"{where}.fp", f"{nation} may transfer {cap} FP(s) a turn here ({rule}); {done.get(nation, 0)} "
                           f"transferred this turn (A-76: both supply phases count)", rule))
    if bad:
        return _refused(ctx, bad, where, problems, t)
    # made (on the working copy when checking): the destination's port is looked for with the FP there
    _set(ctx, "fleets", src, nation, fleets(ctx, src).get(nation, 0) - k)
    _set(ctx, "fleets", dst, becomes, fleets(ctx, dst).get(becomes, 0) + k)
    port = supplied_port(ctx, dst, becomes)
    if not port:
        _set(ctx, "fleets", dst, becomes, fleets(ctx, dst).get(becomes, 0) - k)
        _set(ctx, "fleets", src, nation, fleets(ctx, src).get(nation, 0) + k)
        bad.append(Problem(f"{where}.to", f"the {dst} has no friendly-controlled port of the {ctx.side} that traces supply "
                           f"for {becomes} overland or by sea (8.3; supply capacity ignored)", "8.3"))
        return _refused(ctx, bad, where, problems, t)
    _set(ctx, "transport", dst, becomes, used(ctx, dst).get(becomes, 0) + k)  # 8.3: flipped to "w/out Transport"
    turn = ctx.turn.key
    ctx.pos.setdefault("free", {})["fleet_transfers"] = {turn: {**done, nation: done.get(nation, 0) + k}}
    ctx.emit("fleet-transfer", rule, nation=nation, becomes=becomes, sea_from=src, sea_to=dst, fp=k, port=port, cap=cap,
             count=done.get(nation, 0) + k, phase=phase)
    return True


def _refused(ctx: Ctx, bad: list[Problem], where: str, problems: list[Problem] | None, t: dict[str, Any]) -> bool:
    if problems is not None:
        problems.extend(bad)
    else:
        ctx.emit("fleet-transfer-refused", bad[0].rule, where=where, nation=str(t.get("nation", "")), why=bad[0].message)
    return False


def transfers(ctx: Ctx, orders: list[dict[str, Any]], key: str, problems: list[Problem] | None, phase: str) -> bool:
    """The transfers of one phase, in order. Returns whether any was made."""
    made = False
    for i, t in enumerate(orders):
        made = transfer(ctx, t, f"{key}[{i}]", problems, phase) or made
    return made


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """The movement step's ``[[fleet]]`` transfers (8.3, J-2), made on the working context; the
    initial supply determination made again with them (1.21), so that the orders after them see it."""
    if transfers(ctx, list(body.get("fleet", [])), "fleet", problems, "initial"):
        supply.initial(ctx)


def initial(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.21, 8.3: the transfers of the Initial Supply Determination Phase; the determination made
    again with the fleets where they now are."""
    if transfers(ctx, list(body.get("fleet", [])), "fleet", None, "initial"):
        supply.initial(ctx)


def check_final(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """``[final] fleets`` (8.3, J-8), checked on the position before the step's combats (resolving
    checks them again)."""
    transfers(ctx, list(body.get("final", {}).get("fleets", [])), "final.fleets", problems, "final")


def final(ctx: Ctx, final: dict[str, Any]) -> None:
    """1.27, 8.3: the transfers of the Final Supply Determination Phase, before the units are traced."""
    transfers(ctx, list(final.get("fleets", [])), "final.fleets", None, "final")


# --- report lines -------------------------------------------------------------------------------

def _fp(by: dict[str, Any]) -> str:
    return ", ".join(f"{n} {k}" for n, k in sorted(by.items())) or "none"


def _faces(d: list[int]) -> str:
    return " ".join(str(x) for x in d) or "-"


def _r_combat(e: Event) -> list[str]:
    d = e.data
    a, b = sum(d["fp"].values()), sum(d["enemy_fp"].values())
    dice = d["dice"]
    el, gl = d.get("engaged_losses", {}), d.get("engaging_losses", {})
    how = ("equal numbers: each side rolls 1 die per FP, hitting on 6 (8.12)" if d["equal"] else
           f"unequal numbers: both sides roll {min(a, b)} {'die' if min(a, b) == 1 else 'dice'} hitting on {d['first_hit']}, then the larger side 1 die per "
           f"excess FP hitting on {d['excess_hit']}-6 (8.13)")
    out = [f"- **Naval combat in the {d['sea']}** ({e.rule}; against {d['what']}, {d['by_rule']}): {d['engaging']} engage "
           f"(standing naval = {d['choice']}, 8.11) with {a} FP ({_fp(d['fp'])}) against {b} FP of {d['engaged']} "
           f"({_fp(d['enemy_fp'])}); {how}.",
           "",
           "  | Side | FPs | Dice | Hits scored | FPs lost (8.14) |",
           "  |---|---|---|---|---|"]
    for who, fp, mine, extra, hits, losses in ((d["engaging"], d["fp"], dice.get("engaging", []), dice.get("engaging_excess", []),
                                                d["hits"]["engaging"], gl),
                                               (d["engaged"], d["enemy_fp"], dice.get("engaged", []), dice.get("engaged_excess", []),
                                                d["hits"]["engaged"], el)):
        faces = _faces(mine) + (f" + excess {_faces(extra)}" if extra else "")
        lost = "; ".join(f"{c} {_fp(v)}" for c, v in losses.items()) or "none"
        out.append(f"  | {who} | {_fp(fp)} | {faces} | {hits} | {lost} |")
    out.append("")
    sunk = list(d.get("cargo_lost", [])) + [f"{k} {n} GS" for n, k in sorted(d.get("gs_lost", {}).items())]
    if sunk:
        out.append(f"  Losses are simultaneous (8.12, 8.13). The FPs carrying units that were destroyed take their cargo with "
                   f"them (8.14): {', '.join(sunk)} lost at sea.")
    else:
        out.append("  Losses are simultaneous (8.12, 8.13); no carrying FP was destroyed, so every unit carried goes on (8.14).")
    return out


def _r_declined(e: Event) -> list[str]:
    d = e.data
    return [f"- No naval combat in the {d['sea']} against {d['what']}: {d['engaging']} ({_fp(d['fp'])}) do not engage "
            f"the {sum(d['enemy_fp'].values())} enemy FP (standing naval = {d['choice']}; {e.rule})."]


def _mover(d: dict[str, Any]) -> str:
    return d["unit"] or f"a GS marker ({d['nation']})"


def _r_interdiction(e: Event) -> list[str]:
    d = e.data
    why = (f"5-6 in the Mediterranean while {d['interdictor']} control {', '.join(d['bases'])}" if d["hit"] <= 5
           else f"{d['hit']}")
    out = [f"- **Interdiction in the {d['sea']}** ({e.rule}): {d['interdictor']} ({sum(d['fp'].values())} FP: {_fp(d['fp'])}; "
           f"the moving side has {d['enemy_fp']}, 8.22 allows it at 1 FP per {d['ratio']}) roll {len(d['dice'])} dice at "
           f"{_mover(d)} ({d['nation']}), hitting on {why}: {_faces(d['dice'])}, {d['hits']} hit(s), each a step lost by the "
           "unit (8.21); no FP is lost to interdiction (8.23, A-37).",
           "",
           "  | Interdictor | FPs | Dice | Hit on | Hits |",
           "  |---|---|---|---|---|",
           f"  | {d['interdictor']} | {_fp(d['fp'])} | {_faces(d['dice'])} | {d['hit']}+ | {d['hits']} |"]
    return out


def _r_barred(e: Event) -> list[str]:
    d = e.data
    return [f"- No interdiction of {_mover(d)} in the {d['sea']}: {d['interdictor']} have {sum(d['fp'].values())} FP against "
            f"{d['enemy_fp']} of the moving side, fewer than 1 per {d['ratio']} ({e.rule})."]


def _r_interdict_declined(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['interdictor']} do not interdict {_mover(d)} in the {d['sea']} (standing interdict = {d['choice']}; {e.rule})."]


def _r_transfer(e: Event) -> list[str]:
    d = e.data
    cap = f"{d['count']} of {d['cap']} this turn" if d["cap"] else f"{d['count']} this turn, no limit (A-39)"
    change = (f"; it becomes {d['becomes'].capitalize()}'s (8.32: German in the Atlantic, Italian in the Mediterranean; "
              "the new owner pays its maintenance, 4.2)" if d["becomes"] != d["nation"] else "")
    return [f"- {str(d['nation']).capitalize()} transfers {d['fp']} FP from the {d['sea_from']} to the {d['sea_to']} in the "
            f"{d['phase']} supply determination phase ({e.rule}; {cap}; the {d['sea_to']} has the supplied friendly port "
            f"{d['port']}, 8.3){change}. The FP is flipped to \"w/out Transport\": it carries no unit this turn, but supplies, "
            "fights and interdicts there (8.3)."]


def _r_transfer_refused(e: Event) -> list[str]:
    return [f"- The fleet transfer {e.data['where']} is not made: {e.data['why']} ({e.rule})."]


RENDER: dict[str, Any] = {"naval-combat": _r_combat, "naval-combat-declined": _r_declined, "interdiction": _r_interdiction,
                          "interdiction-barred": _r_barred, "interdiction-declined": _r_interdict_declined,
                          "fleet-transfer": _r_transfer, "fleet-transfer-refused": _r_transfer_refused}
