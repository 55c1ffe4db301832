"""The German ArKo (14.41; option ``arko``): its formation in the MR phase (Ambiguity 49, with the
timing the security divisions share, 8.21), its first sequence without movement, its +1 to the
defender's result in a prepared assault on a city, large town or intact fort (with the city
doubling: Ambiguity 41) and whether it takes part in the attack (Ambiguity 49).
"""

from __future__ import annotations

from typing import Any

from pbem.errors import Place, Problem
from pbem.mechanics.tables import Result

from .context import Ctx
from .places import path_of, problem
from .works import intact_fort

ARKO_TYPE = "siege-artillery"  # 14.41: the ArKo, 0-1-4 siege artillery
ARKO_HEXES = ("city", "large_town")  # 14.41: where it is formed, and the settlements its +1 applies to


def is_arko(ctx: Ctx, unit: str) -> bool:
    spec = ctx.spec(unit)
    return spec.side == "german" and spec.type == ARKO_TYPE


def arko_fixed(ctx: Ctx, unit: str) -> bool:
    """14.41: the ArKo may not move in the first player-turn sequence after it appears (formed in
    the MR phase of GT n: sequence 1 of GT n)."""
    return bool(ctx.options.get("arko")) and ctx.position.get("arko", {}).get(unit) == ctx.turn and ctx.pts == 1


def mr_declaration_open(ctx: Ctx, where: Place, option: str, what: str, rule: str, problems: list[Problem]) -> bool:
    """Whether the German may make one of his Mutual Reinforcement decisions now (the ArKo 14.41, the
    security divisions 8.21): the rule's option is on, and these are his orders of the GT's first
    player turn, where the MR phase's decisions are carried out first (Ambiguity 49). Else a problem."""
    if not ctx.options.get(option):
        problems.append(problem(where, f"the rule is switched off in this game (option {option})", rule))
        return False
    if ctx.side != "german" or ctx.pts != 1:
        problems.append(problem(where, f"{what} in the MR phase at the start of a GT: in the German's orders of the GT's "
                                       "first player-turn sequence", rule))
        return False
    return True


def form_arko(ctx: Ctx, raw: Any, problems: list[Problem]) -> None:
    """14.41 (option arko): the German may form the ArKo at the start of any GT, i.e. in the MR phase
    (Ambiguity 49). pbem has no German order in the automatic MR phase, so `form_arko = "HEX"` is
    given in the German's orders of the GT's first player turn and carried out first, before any
    movement, on the position the MR phase left. The hex: a German-controlled city or large town not
    adjacent to a Soviet unit and, with the option supply, in supply (attenuated acceptable): a German
    supply line reaches it (9.4). The ArKo is a unit of the scenario of type siege-artillery held
    off the map (`track`) and not in the reinforcement schedule; once formed it stays until eliminated."""
    where = path_of("declare", "form_arko")
    known = len(problems)
    if not mr_declaration_open(ctx, where, "arko", "the ArKo is formed", "14.41", problems):
        return
    scheduled = {u for _, u, _ in ctx.sc.reinforcements}
    held = [u for u in sorted(ctx.units) if is_arko(ctx, u) and ctx.at(u) == "track" and u not in scheduled]
    if not held:
        problems.append(problem(where, "no ArKo is waiting to be formed (it is formed once and stays until eliminated)", "14.41"))
        return
    h = ctx.sc.map.canonical(str(raw))
    if h is None:
        problems.append(problem(where, f"'{raw}' is not a hex of the map", "14.41"))
        return
    spec = ctx.sc.map.hexes[h]
    near = sorted({u for n in (h, *ctx.sc.map.neighbours(h)) for u in ctx.occupants(n, "soviet")})
    if spec.settlement not in ARKO_HEXES:
        problems.append(problem(where, f"{h} is not a city or large town", "14.41"))
    elif ctx.position["control"].get(h) != "german":
        problems.append(problem(where, f"{h} {spec.place} is not German-controlled", "14.41"))
    elif near:
        problems.append(problem(where, f"{h} {spec.place} is next to Soviet units ({', '.join(near)})", "14.41"))
    elif ctx.options.get("supply") and not ctx.hooks.supply_reaches(ctx, "german", h):  # 9.4 (supply.py)
        problems.append(problem(where, f"{h} {spec.place} is out of supply: no German supply line reaches it (9.4)", "14.41"))
    if len(problems) > known:
        return
    u = held[0]
    ctx.units[u]["at"] = h
    ctx.position.setdefault("arko", {})[u] = ctx.turn
    ctx.emit("arko-formed", "14.41", unit=u, hex=h, place=spec.place, turn=ctx.turn)


def arko_bonus(ctx: Ctx, attackers: list[str], target: str) -> list[str]:
    """14.41 (option arko): the ArKo units stacked with other units of a PA against a city, large
    town or intact fort or heavy fort hex; they raise the defender's result by 1 (once)."""
    if not ctx.options.get("arko"):
        return []
    if ctx.sc.map.hexes[target].settlement not in ARKO_HEXES and not intact_fort(ctx, target):
        return []
    return [u for u in attackers if is_arko(ctx, u)
            and any(o != u and not is_arko(ctx, o) and ctx.at(o) == ctx.at(u) for o in attackers)]


def arko_supporting(ctx: Ctx, attackers: list[str]) -> list[str]:
    """Ambiguity 49: whether the ArKo takes part in the PA it is ordered into. Option
    arko_participates: true (the digest's reading) makes it a participating attacker with attack
    factor 0: it may absorb attacker step losses and advance after combat; false makes it only
    support the attack (its +1, arko_bonus): it adds no factor, takes no loss, does not advance and
    its supply state does not count (no GAST for it). Returns the ArKo units that only support."""
    if ctx.options.get("arko_participates", True) or not ctx.options.get("arko"):
        return []
    return [u for u in attackers if is_arko(ctx, u)]


def arko_before_doubling(result: Result, doubling: dict[str, Any]) -> int:
    """Ambiguity 41 (14.23 with 14.41), option arko_order = "arko-first": in a city the ArKo's +1 is
    added to the table's defender number first and the sum is then doubled (14.23): 1/1 becomes 2/4,
    not 2/3 as with the digest's "doubling-first" (double, then +1). The sum is at least 1, so
    14.23's "0 becomes 1" has nothing left to do. Returns the defender's loss; ``doubling`` records it."""
    loss = 2 * (int(result.defender or 0) + 1)
    doubling["defender"] = loss
    doubling["arko_first"] = True
    if result.attacker != 0:  # the defender's number is not a 0 any more: only the attacker's could be
        doubling.pop("zero", None)
    return loss
