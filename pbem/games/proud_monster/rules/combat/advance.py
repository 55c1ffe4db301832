"""Advance after combat (14.39): victorious attackers enter the emptied hex within stacking and the
terrain's limits (12.16, Ambiguity 33; 7.2-7.4, 8.5).
"""

from __future__ import annotations

from ...orders import Attack
from ..allies import entry_problems
from ..context import Ctx
from ..control import enter_hex
from ..stacking import stack_problems, stacking_limit
from ..weather import water_features


def advance_after_combat(ctx: Ctx, i: int, a: Attack, target: str) -> None:
    """14.39: when a prepared assault empties the hex, victorious attackers may advance into it,
    within stacking, obeying terrain prohibitions; the choice is made before the next combat."""
    wanted = [u for u in a.advance if ctx.on_map(u) and u in a.units]
    moved: list[str] = []
    refused: list[dict[str, str]] = []
    limit = stacking_limit(ctx, target)
    for u in wanted:
        feats = water_features(ctx, ctx.at(u), target)  # 13.7: in snow the Sivash and Kerch are ignored
        if feats & {"sivash", "kerch"} and not ctx.options["advance_across_straits"]:
            refused.append({"unit": u, "why": "may not advance across the Sivash/Kerch (12.16)"})
            continue
        why = [f"{text} ({rule})" for rule, text in entry_problems(ctx, u, target)]  # 7.2-7.4, 8.5
        for rule, text in stack_problems(ctx, target, ctx.occupants(target, ctx.side) + [u]):
            why.append(f"the hex would exceed the stacking limit of {limit} ({rule})" if rule in ("6.1", "6.5")
                       else f"the hex would hold {text} ({rule})")
        if why:
            refused.append({"unit": u, "why": "; ".join(why)})
            continue
        ctx.units[u]["at"] = target
        moved.append(u)
    if moved or refused:
        ctx.emit("advance", "14.39", index=i, hex=target, units=moved, refused=refused)
    if moved:
        enter_hex(ctx, ctx.side, target, "advance after combat")
