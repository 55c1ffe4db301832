"""The built-in player of Red Steel: legal orders for any awaited step, from what its side sees,
the same every time (no randomness).

It plays simply: in a movement step each unit steps toward the nearest enemy unit, one hex at a
time while the orders stay legal (an artillery unit stays deployed, an HQ stays behind its units);
in a combat step it attacks every enemy hex it can at odds of 2:1 or better with every adjacent
unit that may attack, supported by its deployed artillery in range; asked for defensive support,
it gives each attacked hex the artillery in range that may support. Every order is checked with
the module's own check before it is kept, so what it proposes is legal by construction.
"""

from __future__ import annotations

from typing import Any

import tomli_w

from pbem.engine.model import Submission

from .context import Ctx, context, other

MAX_STEPS = 3  # hexes a unit tries to advance in one movement step


def propose(state: dict[str, Any], side: str) -> str:
    """The body of an order (or reply) file for the awaited step."""
    from .module import RedSteel

    module = RedSteel()
    aw = state["awaits"]
    ctx = context(state, side=str(state["clock"]["side"]))
    if aw["kind"] == "reply":
        body = _support(module, state, ctx, side)
    elif str(aw["step"]).endswith("/move"):
        body = _moves(module, state, ctx, side)
    else:
        body = _attacks(module, state, ctx, side)
    if not body:
        return f"# {side}: no orders for {aw['step']} (built-in player)\n"
    return tomli_w.dumps(body)


def _legal(module: Any, state: dict[str, Any], side: str, body: dict[str, Any]) -> bool:
    kind = "reply" if state["awaits"]["kind"] == "reply" else "orders"
    return not module.check(state, Submission(kind, side, body))


def _targets(ctx: Ctx, side: str) -> list[str]:
    return sorted({ctx.at(u) for u in ctx.side_units(other(side))})


def _moves(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    enemies = _targets(ctx, side)
    if not enemies:
        return {}
    body: dict[str, Any] = {"move": []}
    for u in ctx.side_units(side):
        spec = ctx.spec(u)
        if spec.type in ("hq", "artillery", "monitor", "bridging-engineer"):
            continue
        here = ctx.at(u)
        path: list[str] = []
        for _ in range(MAX_STEPS):
            cur = path[-1] if path else here
            goal = min(enemies, key=lambda h: (ctx.distance(cur, h), h))
            if ctx.distance(cur, goal) <= 1:
                break
            options = sorted((n for n in ctx.neighbours(cur) if ctx.distance(n, goal) < ctx.distance(cur, goal)
                              and n not in path and n != here), key=lambda n: (ctx.distance(n, goal), n))
            stepped = False
            for n in options:
                trial = {"move": [*body["move"], {"units": [u], "path": [*path, n]}]}
                if _legal(module, state, side, trial):
                    path.append(n)
                    stepped = True
                    break
            if not stepped:
                break
        if path:
            body["move"].append({"units": [u], "path": path})
    return body if body["move"] else {}


def _attacks(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    body: dict[str, Any] = {"attack": []}
    used: set[str] = set()
    for target in _targets(ctx, side):
        attackers = sorted(u for n in ctx.neighbours(target) for u in ctx.units_in(n)
                           if ctx.side_of(u) == side and u not in used and ctx.attack(u) > 0
                           and ctx.spec(u).type not in ("artillery", "hq", "monitor"))
        if not attackers:
            continue
        defense = sum(ctx.defense(u) for u in ctx.units_in(target)) or 1
        attack = sum(ctx.attack(u) for u in attackers)
        if attack < 2 * defense:
            continue
        order = {"target": target, "units": attackers}
        trial = {"attack": [*body["attack"], order]}
        if _legal(module, state, side, trial):
            body["attack"].append(order)
            used.update(attackers)
    return body if body["attack"] else {}


def _support(module: Any, state: dict[str, Any], ctx: Ctx, side: str) -> dict[str, Any]:
    body: dict[str, Any] = {"support": []}
    used: set[str] = set()
    for a in state.get("pending", {}).get("attacks", []):
        target = str(a["target"])
        if not ctx.units_in(target) or ctx.side_of(ctx.units_in(target)[0]) != side:
            continue
        for u in ctx.side_units(side):
            spec = ctx.spec(u)
            if u in used or spec.art is None or ctx.distance(ctx.at(u), target) > spec.art.range:
                continue
            trial = {"support": [*body["support"], {"target": target, "units": [u]}]}
            if _legal(module, state, side, trial):
                body["support"].append({"target": target, "units": [u]})
                used.add(u)
    return body if body["support"] else {}
