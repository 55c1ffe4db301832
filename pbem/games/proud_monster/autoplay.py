"""A simple, deterministic Proud Monster player for demos and golden games.

``propose(module, state, side)`` writes orders for the step a state awaits from a side: the body of
an order file (TOML), legal by ``module.check`` (orders the check refuses are left out, as a
player would). It reads only the position the side may see and never the dice: the untried Soviet
units count at the mean of the counters they may be (2.15). The play is plain: air units support
the strongest stacks next to the enemy (10.2), stacks move toward the enemy and the objectives,
attacks are made at good estimated odds, reinforcements go where the rules allow (the MR
template's proposal), replies take the documented defaults. It is not meant to play well, only
legally and the same way every time. The game module offers it to `pbem demo` (demo_orders), so it
does not import the module: it asks the one it is given for the check and a context (Rules).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol

from pbem.engine.model import Submission
from pbem.errors import Problem
from pbem.exchange.files import dumps
from pbem.mechanics.dice import Dice
from pbem.mechanics.odds import Odds, apply_shifts
from pbem.mechanics.paths import routes

from . import air, rwr, setup
from .assault import ma_cost
from .naval import NO_SEA
from .orders import Rwr
from .reinforce import default_mr_orders
from .rules.allies import entry_problems
from .rules.arko import ARKO_HEXES, is_arko
from .rules.combat.losses import default_losses
from .rules.combat.shifts import attack_shifts
from .rules.context import Ctx
from .rules.hedgehogs import HEDGEHOG_SETTLEMENTS, HEDGEHOG_TURNS, german_nationals
from .rules.movement import hex_cost, hexside_cost, movement_allowance, okh_entry_hexes, stationary
from .rules.stacking import stack_problems
from .rules.untried import counter_pool
from .sequence import other
from .supply import out_of_supply

GOOD_ODDS = {"german": Odds.parse("2:1"), "soviet": Odds.parse("2:1")}  # the final odds an attack needs
MA_ODDS = Odds.parse("4:1")  # a mobile assault is made at these estimated odds or better
MAX_ROUNDS = 40  # passes of check-and-drop before the proposal gives up


class Rules(Protocol):
    """What the player asks of the game module (module.ProudMonster): the check of a submission
    and a working context on a state, as a side sees it."""

    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]: ...

    def context(self, state: dict[str, Any], dice: Dice | None, side: str | None = None) -> Ctx: ...


def propose(module: Rules, state: dict[str, Any], side: str, extra: dict[str, Any] | None = None) -> str:
    """The body of an order (or reply) file for the step ``state`` awaits from ``side``; ``extra``
    (a table of orders, e.g. scripted declarations) is merged into the proposal before checking."""
    aw = state["awaits"]
    if aw["kind"] == "reply":
        return dumps({"reply": reply(state)})
    if setup.in_setup(state):  # 3.2-3.7: the template's proposed set-up
        orders: dict[str, Any] = {"setup": setup.proposal(module.context(state, None, side), side),
                                  "standing": standing(side)}
    elif int(state["clock"]["pts"]) == 0:  # the Soviet's MR step (8.7)
        orders = default_mr_orders(module.context(state, None, side))
    else:
        orders = player_turn(module, state, side)
    for k, v in (extra or {}).items():
        if isinstance(v, dict):
            orders.setdefault(k, {}).update(v)
        elif isinstance(v, list):
            orders[k] = list(v) + list(orders.get(k, []))
        else:
            orders[k] = v
    return body_text(legal(module, state, side, orders))


def body_text(orders: dict[str, Any]) -> str:
    """The orders as the body of an order file, which follows its [pbem] table: every list of
    tables is written as ``[[key]]`` tables (TOML would inline a list of short ones, such as
    ``[[support]]``, as a value of the table before it)."""
    aot = {k: v for k, v in orders.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)}
    parts = [dumps({k: v for k, v in orders.items() if k not in aot})]
    for k, entries in aot.items():
        parts += [f"[[{k}]]\n" + dumps(e) for e in entries]
    return "\n".join(x.rstrip("\n") + "\n" for x in parts if x)


def reply(state: dict[str, Any]) -> dict[str, Any]:
    """A reply as the documented defaults would give it: the first retreat hex offered, losses
    fewest-steps-first (README: standing instructions and replies)."""
    q = state["pending"]["question"]
    if q.get("kind") == "retreat":
        return {"retreat": str(q["hexes"][0])}
    return {"losses": default_losses(q)}


def legal(module: Rules, state: dict[str, Any], side: str, orders: dict[str, Any]) -> dict[str, Any]:
    """The orders less every order ``module.check`` finds a problem with, by the problem's place
    (Problem.place): an entry of a list of orders (a move, an attack, ...) is dropped on its own; a
    hex over-stacked at the end of the movement phase drops the last move or placement into it;
    another problem drops the key of a table it names (sub_table), else the whole table."""
    orders = copy.deepcopy(orders)
    for _ in range(MAX_ROUNDS):
        problems = module.check(state, Submission("orders", side, orders, "sha256:proposal"))
        if not problems:
            return orders
        drop: dict[str, set[int]] = {}
        nested: dict[tuple[str | int, ...], set[int]] = {}  # an entry of a list inside a table: rwr.replace[3]
        removed: set[str] = set()
        for p in problems:
            if p.place is None:  # every problem of the orders names its place (rules/places.py)
                raise RuntimeError(f"the proposal cannot be made legal: {p.render()}")
            path = p.place.path
            key = str(path[0]) if path else ""
            index = next((k for k in path if isinstance(k, int)), None)
            if key in removed:
                continue  # its table went with an earlier problem of this round
            if index is not None and key in orders and isinstance(orders[key], list):
                drop.setdefault(key, set()).add(index)
            elif index is not None and key in orders and isinstance(orders[key], dict):
                at = path.index(index)
                nested.setdefault(tuple(path[:at]), set()).add(index)
            elif p.place.map_place:  # 6.2: a hex over-stacked at the end of the movement phase
                crowded = p.place.map_place  # drop the last move or entry into that hex
                into = [i for i, m in enumerate(orders.get("move", [])) if m.get("path", [""])[-1] == crowded]
                placed = [i for i, m in enumerate(orders.get("place", [])) if m.get("hex") == crowded]
                if into:
                    drop.setdefault("move", set()).add(into[-1])
                elif placed:
                    drop.setdefault("place", set()).add(placed[-1])
                elif orders.get("move"):
                    drop.setdefault("move", set()).add(len(orders["move"]) - 1)
                else:
                    raise RuntimeError(f"the proposal cannot be made legal: {p.render()}")
            elif key in orders:
                sub = sub_table(path)
                if isinstance(orders[key], dict) and sub in orders[key]:
                    del orders[key][sub]
                    if not orders[key]:
                        del orders[key]
                        removed.add(key)
                else:
                    del orders[key]
                    removed.add(key)
            else:
                raise RuntimeError(f"the proposal cannot be made legal: {p.render()}")
        for key, idx in drop.items():
            orders[key] = [x for i, x in enumerate(orders[key]) if i not in idx]
            if not orders[key]:
                del orders[key]
        for where, idx in nested.items():
            holder: Any = orders
            for k in where[:-1]:
                holder = holder.get(k, {}) if isinstance(holder, dict) else {}
            name = where[-1]
            if isinstance(holder, dict) and isinstance(holder.get(name), list):
                holder[name] = [x for i, x in enumerate(holder[name]) if i not in idx]
                if not holder[name]:
                    del holder[name]
            if isinstance(orders.get(str(where[0])), dict) and not orders[str(where[0])]:
                del orders[str(where[0])]
    raise RuntimeError("the proposal cannot be made legal")


def sub_table(path: tuple[str | int, ...]) -> str:
    """The key within the table ``path[0]`` that a problem's place names: the keys up to its first
    index, as one name (``declare.hedgehog[1]`` names ``hedgehog``; ``rwr.withdraw.infantry`` names
    ``withdraw.infantry``, no key of [rwr], so that the whole table is dropped)."""
    names: list[str] = []
    for k in path[1:]:
        if isinstance(k, int):
            break
        names.append(k)
    return ".".join(names)


# --- a player turn ---------------------------------------------------------------------------

def player_turn(module: Rules, state: dict[str, Any], side: str) -> dict[str, Any]:
    """The side's measures at the start of its player turn, mobile assaults at very good odds,
    moves toward the enemy and the objectives, then prepared assaults at good odds."""
    ctx = module.context(state, None, side)
    orders: dict[str, Any] = {"standing": standing(side)}
    support = plan_support(ctx, side)  # before the moves: the commitment phase comes first (10.2)
    if support:
        orders["support"] = support
    orders.update(measures(ctx, side))
    arko = orders.get("declare", {}).get("form_arko")  # 14.41: the ArKo's hex is not for security divisions too
    once = exercises(ctx, side, avoid=frozenset({arko} if arko else ()))
    for k, v in once.items():
        if k != "rwr":
            orders[k] = {**orders[k], **v} if isinstance(v, dict) and isinstance(orders.get(k), dict) else v
    if side == "german" and rwr.applies(ctx):  # 8.13-8.20: after the measures, carried out for the plan below
        plan = plan_rwr(ctx)
        if "rwr" in once:  # the withdrawals refused instead of made (8.17)
            plan.pop("withdraw", None)
            plan.update(once["rwr"])
        if plan:
            orders["rwr"] = plan
        rwr.rwr_phase(ctx, Rwr.parse(plan), [], "refuse")
    for u, at in rvgk_entries(ctx, orders.get("place", [])):
        ctx.units[u]["at"] = at  # 8.1: the RVGK units enter before movement
    assaults = plan_assaults(ctx, side)
    moves = assaults + plan_moves(ctx, side, {u for m in assaults for u in m["units"]})
    if moves:
        orders["move"] = moves
    attacks = plan_attacks(ctx, side, {u for m in assaults for u in m["units"]})
    if attacks:
        orders["attack"] = attacks
    invasion_attack(ctx, orders)
    return orders


def plan_rwr(ctx: Ctx) -> dict[str, Any]:
    """The RWR phase played plainly (8.13-8.20): each withdrawal due is made with the units that may
    go, those with the fewest steps first, by id; every other division that may be replaced is,
    while the pool lasts; every division that may refit does. No security division is deployed
    (each group costs a VP, 8.21)."""
    c = rwr.choices(ctx)
    out: dict[str, Any] = {}
    taken: set[str] = set()
    withdraw: dict[str, list[str]] = {}
    for kind, (n, units) in c.get("withdraw", {}).items():
        pick = sorted((u for u in units if u not in taken), key=lambda u: (ctx.steps(u), u))[:n]
        taken.update(pick)
        if pick:
            withdraw[kind] = pick
    left = int(c.get("pool", 0))
    replace = []
    for u in c.get("replace", []):
        need = ctx.spec(u).steps - ctx.steps(u)
        if u not in taken and need <= left:
            replace.append(u)
            left -= need
    if replace:
        out["replace"] = replace
    if withdraw:
        out["withdraw"] = withdraw
    if c.get("refit"):
        out["refit"] = list(c["refit"])
    return out


def plan_support(ctx: Ctx, side: str) -> list[dict[str, Any]]:
    """The Ground Support Commitment phase (10.2, 10.4): the air units with the most points go to
    the stacks next to the enemy with the most attack strength (those stay and fight), one per hex;
    a Soviet one only within 10 hexes of Moscow (the check drops what it refuses)."""
    if not air.enabled(ctx) or not air.commitment_rule(ctx) or (side == "soviet" and not air.soviet_received(ctx)):
        return []
    enemy = other(side)
    units = sorted((a for a in air.side_units(ctx.sc, side) if a.points_in(ctx.turn, ctx.pts) > 0),
                   key=lambda a: (-a.points_in(ctx.turn, ctx.pts), a.id))
    stacks = [(sum(estimate(ctx, u)[0] for u in us), h) for h, us in ctx.stacks(side).items() if next_to_enemy(ctx, h, enemy)]
    if side == "soviet":
        stacks = [(v, h) for v, h in stacks if (d := air.moscow_distance(ctx, h)) is not None and d <= air.SOVIET_RANGE]
    stacks.sort(key=lambda x: (-x[0], x[1]))
    return [{"air": a.id, "hex": h} for a, (_, h) in zip(units, stacks, strict=False)]


def standing(side: str) -> dict[str, Any]:
    st: dict[str, Any] = {"loss_policy": "fewest-steps-first"}
    if side == "german":
        st["retreat"] = "if-it-saves-a-step"
    return st


def estimate(ctx: Ctx, unit: str) -> tuple[Fraction, Fraction]:
    """Attack and defense of a unit as its owner's enemy may judge them: an untried unit's the mean
    of the counters it may be (2.15), any other its own."""
    if ctx.untried(unit):
        pool = counter_pool(ctx, unit) or ["1-1"]
        a = Fraction(sum(int(v.split("-")[0]) for v in pool), len(pool))
        d = Fraction(sum(int(v.split("-")[1]) for v in pool), len(pool))
        return a, d
    f = ctx.factors(unit)
    return Fraction(f[0]), Fraction(f[1])


def estimated_odds(ctx: Ctx, attackers: list[str], target: str) -> Odds:
    """The final odds of a prepared assault by estimate: totals, then the column shifts (14.11)."""
    enemy = other(ctx.side)
    att = sum(estimate(ctx, u)[0] for u in attackers)
    dfn = sum(estimate(ctx, u)[1] for u in ctx.occupants(target, enemy))
    odds = Odds.of(int(att), max(int(dfn + Fraction(1, 2)), 1))
    return apply_shifts(odds, attack_shifts(ctx, attackers, target))


def plan_attacks(ctx: Ctx, side: str, skip: set[str] | None = None) -> list[dict[str, Any]]:
    """After the planned moves: each enemy hex next to own units (the weakest defence first) is
    attacked by every own unit next to it not yet used, when the estimated odds are good. ``skip``:
    units that made a mobile assault (their hex depends on its result)."""
    enemy = other(side)
    used: set[str] = set(skip or set())
    out: list[dict[str, Any]] = []
    targets = sorted({n for h in ctx.stacks(side) for n in ctx.sc.map.neighbours(h) if ctx.occupants(n, enemy)})
    targets.sort(key=lambda t: (sum(estimate(ctx, u)[1] for u in ctx.occupants(t, enemy)), t))
    for t in targets:
        units = sorted(u for n in ctx.sc.map.neighbours(t) for u in ctx.occupants(n, side)
                       if u not in used and can_attack(ctx, u))
        if not units:
            continue
        if estimated_odds(ctx, units, t) >= GOOD_ODDS[side]:
            used.update(units)
            home = side == "german" or ctx.sc.map.hexes[t].country == "ussr"  # the Soviet keeps to his own land
            out.append({"target": t, "units": units, "advance": units if home else []})
    return out


def can_attack(ctx: Ctx, unit: str) -> bool:
    spec = ctx.spec(unit)
    return (spec.type not in ("flak",) and not (ctx.options.get("arko") and is_arko(ctx, unit))
            and not stationary(ctx, unit))  # 8.20, 9.18


def measures(ctx: Ctx, side: str) -> dict[str, Any]:
    """What the side declares before it moves: the German forms the ArKo as soon as he can (14.41),
    puts the air supply markers on his largest stacks that cannot trace a line (9.18) and on GT12
    makes a hedgehog of every town and city he holds with German units (14.40); the Soviet brings
    his RVGK units in (8.1) and sails the units of the Southern Ports Holding Box to a port (11.2)."""
    out: dict[str, Any] = {}
    declare: dict[str, Any] = {}
    if side == "german":
        arko = arko_hex(ctx)
        if arko:
            declare["form_arko"] = arko
        if ctx.options.get("supply") and "concentration" not in ctx.position:
            cut = out_of_supply(ctx, [u for u in sorted(ctx.units) if ctx.spec(u).side == "german" and ctx.on_map(u)])
            size: dict[str, int] = {}
            for u in cut:
                size[ctx.at(u)] = size.get(ctx.at(u), 0) + 1
            if size:
                declare["air_supply"] = sorted(sorted(size, key=lambda h: (-size[h], h))[:2])
        if ctx.options.get("hedgehogs") and ctx.turn in HEDGEHOG_TURNS:
            declare["hedgehog"] = sorted(h for h in ctx.stacks("german")
                                         if ctx.sc.map.hexes[h].settlement in HEDGEHOG_SETTLEMENTS
                                         and german_nationals(ctx, h))
    else:
        place = [{"units": [u], "hex": h} for u, h in rvgk_entries(ctx, [])]
        if place:
            out["place"] = place
        sea = box_sailing(ctx)
        if sea:
            out["sea"] = sea
    if declare:
        out["declare"] = declare
    return out


# The measures the built-in player takes once, at a given step, so that a long game (the campaign's
# golden game) shows every rule at work: the step, then what it does there (exercises()).
EXERCISES: dict[str, tuple[str, ...]] = {
    "GT2/1/german": ("divert",),
    "GT2/2/german": ("pause",),
    "GT3/1/german": ("security",),
    "GT4/2/soviet": ("ask",),  # its standing instructions ask: the German's next attacks await replies
    "GT5/1/soviet": ("box", "invade"),
    "GT5/2/soviet": ("sail",),
    "GT6/1/german": ("concentration", "retreat-ask"),
    "GT6/2/german": ("no-concentration",),
    "GT9/1/german": ("refuse",),
    "GT9/1/soviet": ("invade",),
    "GT11/1/soviet": ("invade",),
}


def exercises(ctx: Ctx, side: str, avoid: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The one-time measures of EXERCISES at this step, each only where the rules allow it:
    ``divert`` a unit of the North OKH area south (8.3); declare the von Paulus ``pause`` (9.19);
    deploy a group of 3 ``security`` divisions in German-controlled cities and large towns (8.21);
    standing instructions that ``ask`` for losses (14.35) or retreats (``retreat-ask``, 14.32),
    so that the next combats await replies; put a unit of a port into the Southern Ports Holding
    Box by sea (``box``) and sail the Box's units to a port (``sail``, 11.2-11.3); ``invade`` the
    first Crimean south-coast hex the Soviet does not hold (11.4); declare supply ``concentration``
    on the German's 18 strongest units and cancel it (``no-concentration``, 9.20); ``refuse`` the
    withdrawals due (8.17). Orders the check refuses are dropped like any other; ``avoid``: hexes the
    side's other measures use (the ArKo's)."""
    out: dict[str, Any] = {}
    for what in EXERCISES.get(ctx.step, ()):
        if what == "divert":
            north = sorted(u for u, s in ctx.units.items() if s["at"] == "okh-north")
            if north:
                out.setdefault("declare", {})["divert"] = north[:1]
        elif what == "pause":
            out.setdefault("declare", {})["pause"] = True
        elif what == "security":
            pool = [u for u in ctx.sc.security if ctx.units.get(u, {}).get("at") == "track"][:3]
            hexes = [h for h, c in sorted(ctx.position["control"].items()) if c == "german" and h not in avoid
                     and ctx.sc.map.hexes[h].settlement in ("city", "large_town") and ctx.sc.map.hexes[h].country == "ussr"
                     and not ctx.occupants(h, "soviet")]
            where: dict[str, str] = {}
            for u in pool:  # each in the first such hex with room for it (stacking applies, Ambiguity 24)
                room = [h for h in hexes if not stack_problems(
                    ctx, h, ctx.occupants(h, "german") + [x for x, y in where.items() if y == h] + [u])]
                if room:
                    where[u] = room[0]
            if len(where) == 3:
                out.setdefault("declare", {})["security"] = where
        elif what == "ask":
            out["standing"] = {**standing(side), "loss_policy": "ask"}
        elif what == "retreat-ask":
            out["standing"] = {**standing(side), "retreat": "ask"}
        elif what in ("box", "sail", "invade"):
            out.setdefault("sea", []).extend(sea_exercise(ctx, what))
        elif what == "concentration":
            units = sorted((u for u in ctx.units if ctx.spec(u).side == "german" and ctx.on_map(u)),
                           key=lambda u: (-estimate(ctx, u)[0], u))[:18]
            out.setdefault("declare", {})["concentration"] = sorted(units)
        elif what == "no-concentration":
            out.setdefault("declare", {})["concentration"] = []
        elif what == "refuse":
            due = rwr.choices(ctx).get("withdraw", {}) if rwr.applies(ctx) else {}
            if due:
                out["rwr"] = {"refuse": {kind: n for kind, (n, _) in due.items()}}
    if not out.get("sea"):
        out.pop("sea", None)
    return out


def sea_exercise(ctx: Ctx, what: str) -> list[dict[str, Any]]:
    """11.2-11.4 for exercises(): the units that may sail are the Soviet ones in a port, not tank or
    motorized-rifle divisions."""
    if not ctx.options.get("naval"):
        return []
    ports = sorted(h for h, x in ctx.sc.map.hexes.items() if x.port)
    sailors = [u for u in sorted(ctx.units) if ctx.spec(u).side == "soviet" and ctx.at(u) in ports
               and (ctx.spec(u).type, ctx.spec(u).size) not in NO_SEA]
    if what == "box" and sailors:
        return [{"units": sailors[:1], "to": "ports-box"}]
    if what == "sail":
        box = sorted(u for u, s in ctx.units.items() if s["at"] == "ports-box")[:5]
        held = [h for h in ports if ctx.position["control"].get(h) == "soviet" and not ctx.occupants(h, "german")]
        return [{"units": box, "to": held[0]}] if box and held else []
    if what == "invade":  # a German-held beach first (an invasion PA, 11.4), else an empty one
        beaches = [h.id for h in sorted(ctx.sc.map.hexes.values(), key=lambda x: x.id) if h.beach and not ctx.occupants(h.id, "soviet")]
        beaches.sort(key=lambda h: (not ctx.occupants(h, "german"), h))
        rest = sailors[1:4]
        return [{"units": rest, "invade": beaches[0]}] if beaches and rest else []
    return []


def invasion_attack(ctx: Ctx, orders: dict[str, Any]) -> None:
    """11.4: an invasion of an enemy-held hex is a prepared assault by every invader, resolved first;
    the attack planned on that hex, if any, is joined to it (Ambiguity 31)."""
    for s in orders.get("sea", []):
        target = s.get("invade")
        if target and ctx.occupants(target, "german"):
            joined = [a for a in orders.get("attack", []) if a["target"] == target]
            land = [u for a in joined for u in a["units"]]
            orders["attack"] = [{"target": target, "units": list(s["units"]) + land, "advance": list(s["units"]) + land}] + \
                [a for a in orders.get("attack", []) if a["target"] != target]


def arko_hex(ctx: Ctx) -> str:
    """14.41: the first German-controlled city or large town, by id, not next to a Soviet unit,
    when an ArKo waits to be formed at the start of a GT; else ""."""
    if not ctx.options.get("arko") or ctx.pts != 1:
        return ""
    scheduled = {u for _, u, _ in ctx.sc.reinforcements}
    if not any(is_arko(ctx, u) and ctx.at(u) == "track" and u not in scheduled for u in ctx.units):
        return ""
    for h, c in sorted(ctx.position["control"].items()):
        spec = ctx.sc.map.hexes[h]
        if c == "german" and spec.settlement in ARKO_HEXES and spec.country == "ussr" \
                and not any(ctx.occupants(n, "soviet") for n in (h, *ctx.sc.map.neighbours(h))):
            return str(h)
    return ""


def rvgk_entries(ctx: Ctx, given: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """8.1: the Soviet's RVGK units, each into the first entry hex that takes it (8.7); with
    ``given`` (orders already made), the units and hexes they name."""
    if given:
        return [(u, str(p["hex"])) for p in given for u in p["units"]]
    if ctx.side != "soviet" or not any(s["at"] == "rvgk" for s in ctx.units.values()):
        return []
    probe = copy.deepcopy(ctx)
    probe.position["mr"] = {"place": sorted(u for u, s in ctx.units.items() if s["at"] == "rvgk")}
    return [(u, str(p["hex"])) for p in default_mr_orders(probe)["place"] if p["hex"] not in ("rvgk", "ports-box")
            for u in p["units"]]


def box_sailing(ctx: Ctx) -> list[dict[str, Any]]:
    """11.2-11.3: up to 5 units of the Southern Ports Holding Box sail to the first Soviet-controlled
    port, by id (naval rules); the rules refuse those that entered the Box this GT's first sequence."""
    if not ctx.options.get("naval"):
        return []
    ports = sorted(h for h, x in ctx.sc.map.hexes.items() if x.port and ctx.position["control"].get(h) == "soviet"
                   and not ctx.occupants(h, "german"))
    box = sorted(u for u, s in ctx.units.items() if s["at"] == "ports-box")[:5]
    if not ports or not box:
        return []
    return [{"units": box, "to": ports[0]}]


def plan_assaults(ctx: Ctx, side: str) -> list[dict[str, Any]]:
    """15.x (option mobile_assault): a stack of mechanized units with a tank, assault-gun or
    armored-recon unit, next to a weak enemy stack, assaults it from where it stands when the
    estimated odds are very good and it has the MP (7, 6 on GT1 for the German, 4 for the Soviet,
    plus the hexside); the rules refuse what they forbid (swamp, weather, city to city, straits)."""
    if not ctx.options.get("mobile_assault"):
        return []
    enemy = other(side)
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    cost, _ = ma_cost(ctx, side)
    for h, units in sorted(ctx.stacks(side).items()):
        mech = [u for u in units if ctx.spec(u).mechanized and ctx.spec(u).type != "flak"
                and ctx.spec(u).nat not in ("italian", "hungarian", "romanian") and not stationary(ctx, u)]
        if not any(ctx.spec(u).type in ("tank", "assault-gun", "armored-recon") for u in mech):
            continue
        for t in sorted(ctx.sc.map.neighbours(h)):
            if not ctx.occupants(t, enemy) or any(u in used for u in mech):
                continue
            if any(movement_allowance(ctx, u, h)[0] < cost + 2 for u in mech):
                continue
            if estimated_odds(ctx, mech, t) >= MA_ODDS:
                out.append({"units": mech, "path": [t], "assault": t})
                used.update(mech)
    return out


def plan_moves(ctx: Ctx, side: str, skip: set[str] | None = None) -> list[dict[str, Any]]:
    """Each stack, in hex order, moves as one toward the hex nearest the enemy and the objectives
    that it can reach and hold within stacking; stacks next to the enemy stay and fight. The moves
    are carried out on ``ctx`` so that later stacks see them. ``skip``: units that already moved."""
    enemy = other(side)
    goals = objectives(ctx, side)
    out: list[dict[str, Any]] = []
    planned: dict[str, list[str]] = {}
    groups: dict[tuple[str, int], list[str]] = {}
    for u in sorted(ctx.units):  # 12.5: units that began in one hex move as one stack or apart
        if ctx.spec(u).side == side and movable(ctx, u) and u not in (skip or set()):
            groups.setdefault((ctx.at(u), ctx.mf(u)), []).append(u)
    for (start, _), units in sorted(groups.items(), key=lambda x: (x[0][0], -x[0][1])):
        if start in ctx.sc.map.hexes and next_to_enemy(ctx, start, enemy):
            continue
        best = destination(ctx, side, units, start, goals, planned)
        if best is None:
            continue
        path = best
        out.append({"units": units, "path": path})
        for u in units:
            ctx.units[u]["at"] = path[-1]
        planned.setdefault(path[-1], []).extend(units)
    return out


def movable(ctx: Ctx, unit: str) -> bool:
    at = ctx.at(unit)
    return (ctx.on_map(unit) or at in ("okh-north", "okh-south")) and ctx.mf(unit) > 0 and not stationary(ctx, unit)


def next_to_enemy(ctx: Ctx, h: str, enemy: str) -> bool:
    return any(ctx.occupants(n, enemy) for n in ctx.sc.map.neighbours(h))


def objectives(ctx: Ctx, side: str) -> list[str]:
    """Where a side wants to be: the German the Soviet-held cities and large towns; the Soviet his
    own cities and large towns nearest the German units, and the hexes next to them."""
    control = ctx.position["control"]
    if side == "german":
        return sorted(h for h, c in control.items() if c == "soviet" and ctx.sc.map.hexes[h].settlement in ("city", "large_town"))
    return sorted(h for h in ctx.stacks("german"))


def destination(ctx: Ctx, side: str, units: list[str], start: str, goals: list[str],
                planned: dict[str, list[str]]) -> list[str] | None:
    """The path of the stack to the reachable hex nearest a goal (hex distance), ties by id; a hex
    next to the enemy is preferred, stacking is kept. None when it should stay."""
    reach = reachable(ctx, side, units, start)
    if not reach:
        return None
    m = ctx.sc.map
    enemy = other(side)
    goal_hexes = [g for g in goals if g in m.hexes]

    def score(h: str) -> tuple[int, int, str]:
        near = min((m.distance(h, g) for g in goal_hexes), default=0)
        return (0 if next_to_enemy(ctx, h, enemy) else 1, near, h)

    here = score(start) if start in ctx.sc.map.hexes else (2, 10_000, start)
    for h in sorted(reach, key=score):
        if score(h) >= here:
            return None
        if stack_problems(ctx, h, ctx.occupants(h, side) + units):
            continue
        if side == "soviet" and ctx.sc.map.hexes[h].country != "ussr":
            continue
        return reach[h]
    return None


def reachable(ctx: Ctx, side: str, units: list[str], start: str) -> dict[str, list[str]]:
    """Every hex the stack can end its move in this phase, with the cheapest path (12.1-12.16; 8.3
    from an OKH area through its entry hexes): Dijkstra on the rules' own costs, the stack paying
    the dearest cost of its units, within the smallest allowance."""
    enemy = other(side)
    mp = min(movement_allowance(ctx, u, start)[0] for u in units)
    specs = [ctx.spec(u) for u in units]

    def step(a: str, b: str) -> int | None:
        if ctx.occupants(b, enemy) or any(entry_problems(ctx, u, b) for u in units):
            return None
        worst = 0
        for s in specs:
            hc = hex_cost(ctx, s, b, a if a in ctx.sc.map.hexes else None)[0]
            sc = (0, "", []) if a not in ctx.sc.map.hexes else hexside_cost(ctx, s, a, b)
            if hc == "no" or sc[0] in ("no", "all"):
                return None
            worst = max(worst, int(hc) + int(sc[0]))
        return worst

    found = routes(_Entries(ctx), start, step, mp)
    return {h: path for h, path in found.items() if not ctx.sc.map.hexes[h].water}


class _Entries:
    """The map's adjacency (pbem.mechanics.places), with an OKH area's entry hexes as its
    neighbours (8.3)."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    def neighbours(self, h: str) -> Sequence[str]:
        if h in ("okh-north", "okh-south"):
            return okh_entry_hexes(self.ctx, h)
        return self.ctx.sc.map.neighbours(h)
