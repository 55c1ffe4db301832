"""A simple built-in Skirmish player: legal orders (or a reply) for the awaited step, for demos and
tests that play whole games.

It moves each unit (but one left in its home town) toward the nearest town its side does not hold,
or next to the nearest enemy, by the cheapest route within its allowance (3.1-3.4); then it attacks
every enemy area where the attack total beats the defence (4.1, 4.3), with every unit next to it
that has not attacked, advancing with them (4.7). A reply names the weakest units (6.1). It sends
no standing instructions, so its own losses are asked for (6.2). Deterministic. It does not play
the option hidden (7.1): the types it would need are its players' secrets, not in the state.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem, UsageError
from pbem.exchange.files import dumps
from pbem.mechanics.paths import costs_to, routes

from . import rules
from .data import RIVER


def propose(state: dict[str, Any], side: str) -> str:
    """The body of an order or reply file (no [pbem] header) for the step awaited from ``side``."""
    if rules.is_hidden_game(state):
        raise UsageError("the built-in player does not play the option hidden (7.1): the types are the players' secrets")
    if state["awaits"]["kind"] == "reply":
        q = state["pending"]["question"] if "pending" in state else state["question"]
        losses = rules.rank(rules.context(state), list(q["units"]), rules.NO_REPLY_POLICY)[:int(q["loss"])]
        return "\n" + dumps({"reply": {"losses": losses}})
    ctx = rules.context(state, side=side)
    moves = _moves(ctx, side)
    attacks = _attacks(ctx, side)
    body: dict[str, Any] = {}
    if moves:
        body["move"] = moves
    if attacks:
        body["attack"] = attacks
    return "\n" + dumps(body) if body else "\n# no orders this player turn\n"


def _moves(ctx: rules.Ctx, side: str) -> list[dict[str, Any]]:
    m = ctx.sc.map
    home = ctx.sc.home(side)
    out: list[dict[str, Any]] = []

    def step(a: str, b: str) -> int | None:
        holder = ctx.holder(b)
        return None if holder is not None and holder != side else rules.step_cost(ctx, a, b)

    kept_home = False
    for u in ctx.on_map(side):
        here = ctx.at(u)
        if here == home and not kept_home:
            kept_home = True
            continue
        goals = [a for a in ctx.sc.towns() if ctx.control.get(a) != side and ctx.holder(a) is None]
        enemy_next = [n for a in m.place_ids() if (h := ctx.holder(a)) is not None and h != side
                      for n in m.neighbours(a) if ctx.holder(n) in (None, side)]
        targets = set(goals) | set(enemy_next)
        if here in targets:
            continue
        reach = routes(m, here, step, rules.allowance(ctx, u))
        if not reach:
            continue
        far = costs_to(m, sorted(targets), lambda a, b: rules.step_cost(ctx, a, b), [here, *reach]) if targets else {}
        best = min(reach, key=lambda a: (far.get(a, 99), len(reach[a]), a))
        if far.get(best, 99) >= far.get(here, 99):
            continue
        problems: list[Problem] = []
        rules.movement(ctx, [{"unit": u, "path": reach[best]}], problems)
        if problems:
            ctx.units[u]["at"] = here
            continue
        out.append({"unit": u, "path": reach[best]})
    return out


def _attacks(ctx: rules.Ctx, side: str) -> list[dict[str, Any]]:
    m = ctx.sc.map
    used: set[str] = set()
    out = []
    for target in m.place_ids():
        holder = ctx.holder(target)
        if holder is None or holder == side:
            continue
        units = [u for n in m.neighbours(target) if ctx.holder(n) == side for u in ctx.in_area(n) if u not in used]
        if not units:
            continue
        attack = sum(rules.strength(ctx, u) for u in units)
        defence = sum(rules.strength(ctx, u) for u in ctx.in_area(target))
        defence += (m.place(target).terrain in rules.DEFENSIVE_TERRAIN)  # type: ignore[union-attr]
        defence += any(RIVER in m.border_features(ctx.at(u), target) for u in units)
        if attack <= defence:
            continue
        units.sort(key=lambda u: (rules.strength(ctx, u), u))  # the weakest first: they take the attacker's losses
        used.update(units)
        out.append({"target": target, "units": units, "advance": units[:rules.STACKING_LIMIT]})
    problems: list[Problem] = []
    rules.check_attacks(ctx, out, problems)
    return [] if problems else out

