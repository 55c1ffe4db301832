"""Step losses (14.32 first paragraph, 14.35-14.38, 2.16): who chooses them (the attack order, the
standing instructions for the stack, F.7, or a reply), the full game's constraints (14.35 exceptions,
14.36 cavalry; Ambiguities 46-47) and the losses taken.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from pbem.mechanics.steps import Loss, NeedsDecision, allocate

from ...orders import Attack, Move, Standing
from ..context import Ctx, Decision

LOSS_POLICIES = ("fewest-steps-first", "most-steps-first", "ask")
STACK_KEYS = ("loss_policy", "loss_order", "retreat", "retreat_hexes")  # what a [[standing.stack]] may override


def standing_for(ctx: Ctx, side: str, hex_id: str | None) -> tuple[Standing, str]:
    """A side's standing instructions for its stack in ``hex_id`` (F.7): the side's defaults, with
    the keys of the first ``[[standing.stack]]`` entry naming that hex in their place. Also where
    they come from, for the report."""
    st = Standing.parse(ctx.standing.get(side, {}))
    if hex_id is not None:
        for entry in st.stack or ():
            if ctx.sc.map.canonical(entry.hex or "") == hex_id:
                merged = replace(st, **{k: getattr(entry, k) for k in STACK_KEYS if getattr(entry, k) is not None})
                return merged, f"standing instructions for {hex_id}"
    return st, "standing instructions"


def policy_for(ctx: Ctx, side: str, attack: Attack | Move | None, hex_id: str | None = None) -> tuple[list[str], str, str]:
    """Loss order and policy: the attack order's own (attacker), else the side's standing
    instructions for the stack in ``hex_id`` (standing_for), else 'ask' (the adjudication stops and
    awaits that side's reply, docs/protocol.md)."""
    st, source = standing_for(ctx, side, hex_id)
    order: list[str] = []
    if attack is not None and attack.losses:
        order = list(attack.losses)
        source = "attack order"
    order += list(st.loss_order or ())
    policy = (attack.loss_policy if attack is not None else None) or st.loss_policy or "ask"
    if st.empty() and attack is not None and not attack.losses and not attack.loss_policy:
        source = "no instructions"
    return order, str(policy), source


def loss_rules(ctx: Ctx, side: str, role: str, units: list[str]) -> dict[str, Any]:
    """The constraints on allocating step losses (full-game options, off in the basic game, A.4):
    14.35 exception 1 (the attacker's first step from a tank/panzer unit), exception 2 (no unit
    eliminated while another participant has more than one step), 14.36 (a Soviet cavalry step
    counts 1/2).

    Ambiguity 46 (option exception2_reduced): "to-1-step" reads exception 2 literally, a 4-step
    panzer division must be down to 1 step before any other participant is eliminated; "once" lets
    a unit count as reduced once it has lost a step (a 4-step division at 3 steps; ``reduced``).
    Ambiguity 47 (option guards_cavalry_half): "per-step" makes each step of a 2-step Guards
    cavalry unit count 1/2 (the unit 1 in all); "per-unit" makes the whole unit count half a unit,
    1/2 in all (1/4 a step)."""
    rules_: dict[str, Any] = {"weight": {}, "first_from": [], "spread": False}
    if ctx.options["step_loss_exceptions"]:
        rules_["spread"] = True
        if role == "attacker":
            rules_["first_from"] = [u for u in units if ctx.spec(u).type == "tank"]
        if ctx.options.get("exception2_reduced", "to-1-step") == "once":
            rules_["reduced"] = {u: max(ctx.spec(u).steps - 1, 1) for u in units}
    if ctx.options["soviet_cavalry_half"]:
        per_unit = ctx.options.get("guards_cavalry_half", "per-step") == "per-unit"
        rules_["weight"] = {u: f"1/{2 * ctx.spec(u).steps}" if per_unit else "1/2" for u in units
                            if ctx.spec(u).side == "soviet" and ctx.spec(u).type == "cavalry"}
    return rules_


def allocate_with(alive: list[tuple[str, int]], loss: int, order: list[str], policy: str, r: dict[str, Any]) -> list[Loss]:
    return allocate(alive, loss, order, policy, weight={u: Fraction(w) for u, w in r["weight"].items()},
                    first_from=r["first_from"], spread=r["spread"], reduced=loss_reduced(r))


def default_losses(q: dict[str, Any]) -> list[str]:
    """The losses of an unanswered question: fewest-steps-first within the rules' constraints."""
    r = q.get("constraints", {"weight": {}, "first_from": [], "spread": False})
    result = allocate_with(list(q["units"].items()), int(q["loss"]), [], "fewest-steps-first", r)
    return [lo.unit for lo in result for _ in range(lo.steps)]


def loss_constraints_text(units: list[str], r: dict[str, Any]) -> list[str]:
    """The constraints of loss_rules on a loss among ``units``, in words with their rules (for the
    reply template and the problems of a reply that breaks them)."""
    out = []
    first = [u for u in units if u in r.get("first_from", [])]
    if first:
        out.append(f"the first step from a tank unit: {', '.join(first)} (14.35 exception 1)")
    if r.get("spread"):
        reduced = "lost a step" if r.get("reduced") else "one step left"
        out.append(f"no unit eliminated until every participant has {reduced} (14.35 exception 2, Ambiguity 46)")
    halves = [u for u in units if u in r.get("weight", {})]
    if halves:
        out.append(f"a step of {', '.join(halves)} counts {r['weight'][halves[0]]} point (14.36, Ambiguity 47)")
    return out


def deciding_rules(alive: list[tuple[str, int]], loss: int, order: list[str], policy: str, r: dict[str, Any],
                   got: list[Loss]) -> list[dict[str, Any]]:
    """The constraints of loss_rules that changed the allocation ``got`` from what the loss order and
    policy alone would give (for the report: the line says which rule decided, not only who chose).
    Each constraint is added in turn (14.36, then 14.35 exceptions 1 and 2) and cited when it changes
    the allocation, or settles one the order and policy left open."""
    def attempt(c: dict[str, Any]) -> list[Loss] | None:
        try:
            return allocate_with(alive, loss, order, policy, c)
        except NeedsDecision:
            return None

    out: list[dict[str, Any]] = []
    cur: dict[str, Any] = {"weight": {}, "first_from": [], "spread": False}
    before = attempt(cur)
    everything = all(lo.eliminated for lo in got) and len(got) == len(alive)
    reduced = "lost a step" if r.get("reduced") else "one step left"
    halves = [u for u, _ in alive if u in r["weight"]]
    weights = sorted({r["weight"][u] for u in halves})
    stages: list[tuple[dict[str, Any], str, str]] = [
        ({"weight": r["weight"]}, "14.36",
         f"a step of {', '.join(halves)} counts {' or '.join(weights)} point"
         + (", so the loss takes every unit" if everything else "")),
        ({"first_from": r["first_from"]}, "14.35 exception 1",
         f"the attacker's first step comes from a tank unit ({', '.join(u for u, _ in alive if u in r['first_from'])})"),
        ({"spread": r["spread"], "reduced": r.get("reduced")}, "14.35 exception 2",
         f"no unit is eliminated until every participant has {reduced}"),
    ]
    for patch, rule, why in stages:
        if not any(patch.values()):
            continue
        cur = {**cur, **patch}
        now = attempt(cur)
        if now != before:
            out.append({"rule": rule, "why": why, **({"every": True} if rule == "14.36" and everything else {})})
        before = now
    return out


def loss_reduced(r: dict[str, Any]) -> dict[str, int] | None:
    """The steps at which each unit counts as reduced for 14.35 exception 2 (Ambiguity 46; absent: 1)."""
    return {u: int(v) for u, v in r["reduced"].items()} if r.get("reduced") else None


def take_losses(ctx: Ctx, side: str, role: str, units: list[str], loss: int | None, attack_index: int,
                attack: Attack | Move | None, decisions: dict[str, Any], ask_fallback: bool = False) -> list[Loss]:
    """14.32/14.35 (first paragraph): a result is absorbed by step losses, divided as the owner
    chooses; E eliminates every participating defender (14.38). With ``ask_fallback`` (a mobile
    assault, resolved during movement) a choice left open is made fewest-steps-first, not asked."""
    alive = [(u, ctx.steps(u)) for u in units if ctx.on_map(u)]
    r = loss_rules(ctx, side, role, [u for u, _ in alive])
    if loss is None:
        losses = [Loss(u, s, True) for u, s in alive]
        source = "E (14.38)"
    elif loss == 0:
        return []
    else:
        key = f"{attack_index}/{role}"
        if key in decisions:
            order, policy = list(decisions[key]), "fewest-steps-first"
            losses = allocate_with(alive, loss, order, policy, r)
            source = f"{side}'s reply"
        else:
            order, policy, source = policy_for(ctx, side, attack if role == "attacker" else None,
                                               ctx.at(alive[0][0]) if role == "defender" and alive else None)
            try:
                losses = allocate_with(alive, loss, order, policy, r)
            except NeedsDecision as e:
                if not ask_fallback:
                    raise Decision(side, attack_index, role, {
                        "kind": "losses", "rule": "14.35", "loss": loss, "steps": min(loss, sum(s for _, s in alive)),
                        "units": {u: s for u, s in alive}, "constraints": r, "text": str(e),
                    }) from e
                losses = allocate_with(alive, loss, order, "fewest-steps-first", r)
                policy = "fewest-steps-first (no reply during movement)"
            if policy == "ask" and not order:
                source = "the only allocation the rules allow"
            elif policy != "ask":
                source += f", {policy}"
        decided = deciding_rules(alive, loss, order, policy.split(" (")[0], r, losses)
    for lo in losses:
        left = ctx.steps(lo.unit) - lo.steps
        ctx.units[lo.unit]["steps"] = max(left, 0)
        if left <= 0:
            ctx.units[lo.unit]["at"] = "dead"
    rules_cited = "14.35" + (", 14.36" if r["weight"] else "")
    extra: dict[str, Any] = {"decided": decided} if loss is not None and decided else {}
    ctx.emit("losses", rules_cited, side=side, role=role, source=source, owed=loss,
             losses=[{"unit": lo.unit, "steps": lo.steps, "eliminated": lo.eliminated} for lo in losses], **extra)
    return losses
