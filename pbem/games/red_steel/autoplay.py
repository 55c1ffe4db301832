"""The built-in player of Red Steel: legal orders for any awaited step, from what its side sees,
the same every time (no randomness).

It plays simply, but through every phase:

- Introductory Segment (3.1): the Soviet always tries to mobilise militia (17.3), for the towns and
  cities of its own farthest from the Axis;
- movement step: ammunition for every artillery unit short of two volleys while its stockpile lasts
  (11.51); reinforcements enter at their first entry hex (12.11); each other unit steps toward the
  nearest enemy unit, one hex at a time while the orders stay legal, and artillery tows forward and
  deploys when it is out of range of every enemy unit (11.6); a unit next to the enemy that does
  not move starts an entrenchment (17.21);
- combat step: an attack on every enemy hex it can reach at odds of 2:1 or better (before support),
  with every adjacent unit that may attack, supported by its deployed artillery in range, advancing
  into the hex (9.5); its other artillery bombards the enemy hexes it spots (8.0); with a referee,
  the Axis flies each aircraft it drew today against the largest enemy stack (16.1) — in a game
  without a referee its draw is its secret, which the built-in player does not hold, and its
  attack support is committed hidden (3.34c);
- defensive support reply: each attacked hex gets the artillery in range that may support.

Every order is checked with the module's own check before it is kept, so what it proposes is legal
by construction.
"""

from __future__ import annotations

from typing import Any

import tomli_w

from pbem.engine.model import Submission

from .combat import support_item
from .context import DEPLOYED, FULL_AMMO, TOWED, Ctx, context, other
from .data import REINFORCEMENTS, SOVIET
from .intro import reserve_item

MAX_STEPS = 3  # hexes a unit tries to advance in one movement step


def propose(state: dict[str, Any], side: str) -> str:
    """The body of an order (or reply) file for the awaited step."""
    from .module import RedSteel

    module = RedSteel()
    aw = state["awaits"]
    ctx = context(state, side=str(state["clock"]["side"]))
    if aw["kind"] == "reply":
        body = _support(module, state, ctx, side)
    elif aw["kind"] != "orders":
        body = {}
    elif str(aw["step"]).endswith("/intro"):
        body = _intro(ctx)
    elif str(aw["step"]).endswith("/move"):
        body = _movement(module, state, ctx, side)
    else:
        body = _combat(module, state, ctx, side)
    if not body:
        return f"# {side}: no orders for {aw['step']} (built-in player)\n"
    return tomli_w.dumps(body)


class _Builder:
    """Orders added one at a time, each kept only if the whole file stays legal."""

    def __init__(self, module: Any, state: dict[str, Any], side: str) -> None:
        self.module, self.state, self.side = module, state, side
        self.body: dict[str, Any] = {}

    def legal(self, body: dict[str, Any]) -> bool:
        kind = "reply" if self.state["awaits"]["kind"] == "reply" else "orders"
        return not self.module.check(self.state, Submission(kind, self.side, body))

    def trial(self, key: str, order: dict[str, Any]) -> dict[str, Any]:
        return {**self.body, key: [*self.body.get(key, []), order]}

    def add(self, key: str, order: dict[str, Any]) -> bool:
        trial = self.trial(key, order)
        if self.legal(trial):
            self.body = trial
            return True
        return False


def _targets(ctx: Ctx, side: str) -> list[str]:
    return sorted({ctx.at(u) for u in ctx.side_units(other(side))})


def _intro(ctx: Ctx) -> dict[str, Any]:
    """17.3: always try to mobilise, militia to the Soviet towns and cities farthest from the Axis;
    15.14: no reserve (without a referee committed as "", so that whether one is named stays secret)."""
    axis = [ctx.at(u) for u in ctx.side_units(other(SOVIET))]
    towns = [h for h in ctx.sc.map.grid.place_ids() if ctx.sc.map.hex(h).urban and ctx.control.get(h) == SOVIET]
    towns.sort(key=lambda h: (-min((ctx.distance(h, a) for a in axis), default=99), h))
    body: dict[str, Any] = {"intro": {"mobilise": True, "militia": towns[:6]}}
    if ctx.secret:
        body["hidden"] = {reserve_item(ctx.turn): ""}
    return body


def _movement(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    b = _Builder(module, state, side)
    enemies = _targets(ctx, side)
    for u in ctx.side_units(side):  # 11.51: ammunition while the stockpile lasts
        spec = ctx.spec(u)
        if spec.type == "artillery" and int(ctx.units[u].get("ammo", 0)) < FULL_AMMO:
            b.add("ammo", {"unit": u, "volleys": FULL_AMMO - int(ctx.units[u].get("ammo", 0))}) or \
                b.add("ammo", {"unit": u, "volleys": 1})
    for u in sorted(ctx.units):  # 12.11: reinforcements whose turn has come
        r = ctx.sc.reinforcements.get(u)
        if ctx.units[u]["at"] == REINFORCEMENTS and r is not None and r.turn <= ctx.turn and ctx.side_of(u) == side:
            for h in r.entry:
                if b.add("move", {"units": [u], "path": [h]}):
                    break
    moved = {x for m in b.body.get("move", []) for x in m["units"]}
    if not enemies:
        return b.body
    for u in ctx.side_units(side):
        spec = ctx.spec(u)
        if u in moved or spec.type in ("hq", "monitor", "bridging-engineer"):
            continue
        here = ctx.at(u)
        if spec.type == "artillery":
            _artillery(b, ctx, u, enemies)
            continue
        path = _advance(b, ctx, u, here, enemies)
        if path:
            b.body["move"] = [*b.body.get("move", []), {"units": [u], "path": path}]
        elif any(ctx.holder(n) == other(side) for n in ctx.neighbours(here)):
            b.add("entrench", {"unit": u})  # 17.21: a unit holding its ground next to the enemy digs in
    return b.body


def _advance(b: _Builder, ctx: Ctx, u: str, here: str, enemies: list[str]) -> list[str]:
    """The longest legal path, one hex at a time, toward the nearest enemy unit."""
    path: list[str] = []
    for _ in range(MAX_STEPS):
        cur = path[-1] if path else here
        goal = min(enemies, key=lambda h: (ctx.distance(cur, h), h))
        if ctx.distance(cur, goal) <= 1:
            break
        options = sorted((n for n in ctx.neighbours(cur) if ctx.distance(n, goal) < ctx.distance(cur, goal)
                          and n not in path and n != here), key=lambda n: (ctx.distance(n, goal), n))
        for n in options:
            if b.legal(b.trial("move", {"units": [u], "path": [*path, n]})):
                path.append(n)
                break
        else:
            break
    return path


def _artillery(b: _Builder, ctx: Ctx, u: str, enemies: list[str]) -> None:
    """11.6: deployed artillery in range of an enemy stays; out of range it tows a hex forward and
    deploys again; towed artillery deploys where it is."""
    spec = ctx.spec(u)
    assert spec.art is not None
    here = ctx.at(u)
    in_range = any(ctx.distance(here, e) <= spec.art.range for e in enemies)
    mode = ctx.units[u].get("mode")
    if mode == TOWED:
        b.add("move", {"units": [u], "path": [], "deploy": True})
        return
    if mode != DEPLOYED or in_range:
        return
    goal = min(enemies, key=lambda h: (ctx.distance(here, h), h))
    for n in sorted(ctx.neighbours(here), key=lambda n: (ctx.distance(n, goal), n)):
        if ctx.distance(n, goal) < ctx.distance(here, goal) and (
                b.add("move", {"units": [u], "path": [n], "tow": True, "deploy": True})
                or b.add("move", {"units": [u], "path": [n], "tow": True})):
            return


def _combat(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    b = _Builder(module, state, side)
    used: set[str] = set()
    artillery = [u for u in ctx.side_units(side) if ctx.spec(u).art is not None]
    for target in _targets(ctx, side):
        attackers = sorted(u for n in ctx.neighbours(target) for u in ctx.units_in(n)
                           if ctx.side_of(u) == side and u not in used and ctx.attack(u) > 0
                           and ctx.spec(u).type not in ("artillery", "hq", "monitor"))
        if not attackers:
            continue
        defense = sum(ctx.defense(u) for u in ctx.units_in(target)) or 1
        if sum(ctx.attack(u) for u in attackers) < 2 * defense:
            continue
        order: dict[str, Any] = {"target": target, "units": attackers, "advance": [target]}
        if not _add_attack(b, ctx, order):
            order.pop("advance")
            if not _add_attack(b, ctx, order):
                continue
        used.update(attackers)
        k = len(b.body["attack"]) - 1
        for art in artillery:  # 9.11: every deployed gun in range that may support
            if art in used:
                continue
            trial = dict(b.body["attack"][k])
            trial["support"] = [*trial.get("support", []), art]
            attacks = list(b.body["attack"])
            attacks[k] = trial
            if b.legal(_as_sent(ctx, {**b.body, "attack": attacks})):
                b.body["attack"] = attacks
                used.add(art)
    if ctx.secret and b.body.get("attack"):  # 3.34c: without a referee the support is committed hidden, given or not
        support = {str(a["target"]): a.pop("support") for a in b.body["attack"] if a.get("support")}
        b.body["hidden"] = {support_item(ctx.turn): support}
    for art in artillery:  # 8.0: the rest bombard the nearest enemy hex they may
        if art in used:
            continue
        for target in sorted(_targets(ctx, side), key=lambda h: (ctx.distance(ctx.at(art), h), h)):
            if target not in {a["target"] for a in b.body.get("bombard", [])} and b.add("bombard", {"target": target, "units": [art]}):
                used.add(art)
                break
    air = ctx.pos.get("aircraft", {})
    drawn = [a for a in air.get("drawn", []) if a not in air.get("used", [])]
    stacks = sorted(_targets(ctx, side), key=lambda h: (-len(ctx.units_in(h)), h))
    for a in drawn:  # 16.1: each aircraft drawn today, once, at the largest enemy stack
        for target in stacks:
            if b.add("air", {"aircraft": a, "target": target}):
                break
    return b.body


def _add_attack(b: _Builder, ctx: Ctx, order: dict[str, Any]) -> bool:
    trial = b.trial("attack", order)
    if b.legal(_as_sent(ctx, trial)):
        b.body = trial
        return True
    return False


def _as_sent(ctx: Ctx, body: dict[str, Any]) -> dict[str, Any]:
    """Combat orders as they are sent: without a referee the attack support is the hidden value
    ``support.TN`` (3.34c), by target."""
    if not ctx.secret:
        return body
    attacks = [{k: v for k, v in a.items() if k != "support"} for a in body.get("attack", [])]
    support = {str(a["target"]): list(a["support"]) for a in body.get("attack", []) if a.get("support")}
    out = {**body, "attack": attacks}
    if attacks:
        out["hidden"] = {support_item(ctx.turn): support}
    return out


def _support(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    support: list[dict[str, Any]] = []
    used: set[str] = set()
    b = _Builder(module, state, side)
    for a in state.get("pending", {}).get("orders", {}).get("attack", []):
        target = str(a["target"])
        if not ctx.units_in(target) or ctx.side_of(ctx.units_in(target)[0]) != side:
            continue
        units: list[str] = []
        for u in ctx.side_units(side):
            spec = ctx.spec(u)
            if u in used or spec.art is None or ctx.distance(ctx.at(u), target) > spec.art.range:
                continue
            if b.legal({"reply": {"support": [*support, {"target": target, "units": [*units, u]}]}}):
                units.append(u)
                used.add(u)
        if units:
            support.append({"target": target, "units": units})
    return {"reply": {"support": support}} if support else {}
