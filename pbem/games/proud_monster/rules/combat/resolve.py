"""One prepared assault resolved (14.5-14.39): the untried units revealed (2.15), the totals and odds
(14.8-14.10), the shifts (14.11), the CRT roll or automatic result (14.31, 17.7), the city doubling
(14.23) and the ArKo (14.41), losses with the defender first (14.32), the German retreat (14.32-14.35)
and the advance after combat (14.39). What the feature rules add (supply 9.6-9.8, ground support
10.1-10.4, the invasion PA 11.4) comes through the context's hooks (context.Hooks).
"""

from __future__ import annotations

from typing import Any

from pbem.mechanics.odds import Odds, apply_shifts
from pbem.mechanics.tables import Result

from ...orders import Attack
from ...sequence import other
from ..arko import arko_before_doubling, arko_bonus, arko_supporting
from ..context import Ctx
from ..hedgehogs import check_hedgehogs
from ..untried import reveal_untried
from ..weather import weather_at, weather_ignores
from ..works import fort_state, spat_data
from .advance import advance_after_combat
from .attacks import attack_condition
from .losses import take_losses
from .retreat import german_defense, retreated
from .shifts import attack_shifts
from .strength import attack_strength, defense_rows, defense_total


def combat_notes(ctx: Ctx, attackers: list[str], target: str) -> dict[str, Any]:
    """What a combat's report says about the defender's hex (a PA's or an MA's, 15.14): the state
    of its fort or Stalin Line (14.24-14.30, option fortifications) and the weather of its zone,
    with the hexside features the weather removes (13.6, 13.7, Ambiguity 35; option weather)."""
    h = ctx.sc.map.hexes[target]
    out: dict[str, Any] = {}
    if fort_state(ctx, target):
        out["fort"] = {"kind": h.fort, "state": fort_state(ctx, target), "line": h.line,
                       **(spat_data(ctx, h.line) if h.line else {})}
    if ctx.options.get("fortifications") and h.stalin:
        out["stalin"] = ctx.position.get("stalin", {}).get(target, "")
    if ctx.options.get("weather", False):  # the weather of the defender's zone (Ambiguity 35)
        out["weather"] = {"zone": h.zone, "weather": weather_at(ctx, target),
                          "ignored": sorted({n for u in attackers for f in ctx.sc.map.border_features(ctx.at(u), target)
                                             if (n := weather_ignores(ctx, f, target))})}
    return out


def crt_outcome(ctx: Ctx, final: Odds, target: str, label: str) -> tuple[
        Result | None, int | None, str, Result, bool, int, int | None, dict[str, Any] | None]:
    """The CRT step of any assault (14.31; 15.14 for mobile assaults): the automatic result off the
    table (14.10) or the die labelled ``label`` on the final column (17.7), then the city doubling
    (14.23: both numbers doubled, 0 becomes 1 except below 1:3; Ambiguity 41 above 7:1).

    Returns (automatic result, die, label used, table result, provisional cell, attacker loss,
    defender loss (None = E), doubling record)."""
    crt = ctx.sc.charts.crt
    auto = crt.automatic(final)
    face: int | None = None
    provisional = False
    if auto is not None:
        result = auto
        label = ""
    else:
        if ctx.dice is None:
            raise RuntimeError("a die is needed, but this is a check without dice")
        face = ctx.dice.roll(label)
        result = crt.lookup(final, face)
        provisional = crt.cell_is_provisional(final, face)
    att_loss, def_loss = result.attacker, result.defender
    doubling = None
    if ctx.sc.map.hexes[target].settlement == "city":
        below = final < crt.first
        new_att = att_loss * 2 if (att_loss or below) else 1
        if auto is not None and final > crt.last and not ctx.options["city_doubling_above_7_1"]:
            new_att = att_loss * 2
        new_def = None if def_loss is None else (def_loss * 2 if (def_loss or below) else 1)
        doubling = {"from": result.label, "attacker": new_att, "defender": new_def}
        zeros = [(old, new) for old, new in ((att_loss, new_att), (def_loss, new_def)) if old == 0]
        if zeros:  # what became of a 0, for the report (14.23)
            doubling["zero"] = ("raised" if any(n for _, n in zeros) else "kept-below-1:3" if below else "kept-above-7:1")
        att_loss, def_loss = new_att, new_def
    return auto, face, label, result, provisional, att_loss, def_loss, doubling


def resolve_attack(ctx: Ctx, i: int, a: Attack, decisions: dict[str, Any]) -> None:
    """One prepared assault, fully resolved before the next (14.5): totals, odds (14.8-14.10),
    shifts (14.11), the CRT roll (14.31) or automatic result, city doubling (14.23), losses with the
    defender first (14.32, 14.35, 14.38), then advance after combat (14.39)."""
    side = ctx.side
    enemy = other(side)
    target = ctx.sc.map.canonical(a.target)
    if target is None:  # checked by static_attack_problems before any attack is resolved
        raise RuntimeError(f"attack {i}: target {a.target} is not on the map")
    attackers = [u for u in a.units if ctx.on_map(u)]
    supporting = arko_supporting(ctx, attackers)  # 14.41, Ambiguity 49: an ArKo that does not take part
    attackers = [u for u in attackers if u not in supporting]
    defenders = ctx.occupants(target, enemy)
    unmet = attack_condition(ctx, a)
    if unmet:
        ctx.emit("attack-skipped", "14.5", index=i, target=target, reason=unmet)
        return
    if not defenders or not attackers:
        ctx.emit("attack-skipped", "14.5", index=i, target=target,
                 reason="the hex holds no enemy unit any more" if not defenders else "no attacker is left")
        return
    reveal_untried(ctx, i, attackers, defenders)
    hooks = ctx.hooks
    invaders = hooks.invasion(ctx, i, target, attackers)  # 11.4: the invasion PA's force, else [] (naval.py)
    # 9.8: both sides' participants, at the start of the combat (supply.py); 11.4: invaders count as
    # fully supplied for the player turn in which they land
    oos = hooks.combat_supply(ctx, i, [u for u in attackers if u not in invaders], defenders, "prepared assault")
    att_total, att_rows = attack_strength(ctx, attackers, target, oos)
    caught = [u for u in defenders if u in retreated(ctx)]  # 14.34: retreated here this phase
    fighting = [u for u in defenders if u not in caught]
    def_rows = defense_rows(ctx, fighting, target, oos)  # 14.30: the Stalin Line; 9.7
    def_rows += [{"unit": u, "factor": 0, "notes": ["retreated into this hex this phase: adds nothing (14.34)"]} for u in caught]
    def_total = defense_total(def_rows)  # 9.7: out-of-supply defenders halved together
    gs = hooks.ground_support(ctx, attackers, defenders, target, oos, att_total, def_total)  # 10.1-10.4, 14.13 (air.py)
    att_total, def_total = att_total + gs.attack, def_total + gs.defense
    odds = Odds.of(att_total, def_total)
    shifts = attack_shifts(ctx, attackers, target) + hooks.invasion_shifts(invaders)  # 11.4: 1L
    shifts += gs.shifts  # 10.3
    extra: dict[str, Any] = dict(gs.data)
    shifts, gast_data = hooks.gast(ctx, f"attack {i + 1}", attackers, target, shifts)  # 9.6: the last step before the CRT die
    extra.update(gast_data)
    final = apply_shifts(odds, shifts)
    label = f"14.31|{ctx.step}|attack {i + 1}|{target}|CRT"
    auto, face, label, result, provisional, att_loss, def_loss, doubling = crt_outcome(ctx, final, target, label)
    h = ctx.sc.map.hexes[target]
    arko = arko_bonus(ctx, attackers + supporting, target)
    if arko and doubling and def_loss is not None and ctx.options.get("arko_order", "doubling-first") == "arko-first":
        def_loss = arko_before_doubling(result, doubling)  # Ambiguity 41, the other reading
        extra["arko"] = {"units": arko, "from": result.defender, "to": int(result.defender or 0) + 1, "before_doubling": True,
                         **({"supporting": True} if supporting else {})}
    elif arko:  # 14.41: the defender's result +1, after the city doubling (Ambiguity 41); E stays E
        extra["arko"] = {"units": arko, "from": "E" if def_loss is None else def_loss,
                         "to": "E" if def_loss is None else def_loss + 1,
                         **({"supporting": True} if supporting else {})}
        def_loss = None if def_loss is None else def_loss + 1
    elif supporting:  # Ambiguity 49: an ArKo that only supports, to no effect here
        extra["arko"] = {"units": supporting, "supporting": True, "idle": True}
    extra.update(combat_notes(ctx, attackers, target))
    ctx.emit("attack", "14.31", index=i, target=target, place=h.place, terrain=h.terrain, settlement=h.settlement,
             attackers=att_rows, defenders=def_rows, attack_total=att_total, defense_total=def_total,
             odds=odds.label, shifts=[{"label": s.label, "rule": s.rule, "reason": s.reason} for s in shifts],
             final=final.label, automatic=auto is not None, die=face, label=label, result=result.label,
             provisional=provisional, city=doubling,
             outcome=f"{att_loss}/{'E' if def_loss is None else def_loss}", **extra)
    # 14.32: the defender always absorbs its full result before the attacker absorbs his.
    if caught and def_loss != 0:  # 14.34: eliminated, not counting toward the result
        for u in caught:
            ctx.units[u].update(at="dead", steps=0)
        ctx.emit("retreat-caught", "14.34", index=i, hex=target, units=caught)
    if fighting and enemy == "german" and ctx.options.get("german_retreat") and def_loss is not None and def_loss >= 1:
        german_defense(ctx, i, target, fighting, def_loss, decisions)  # 14.32-14.35, 14.40
    elif fighting:
        take_losses(ctx, enemy, "defender", fighting, def_loss, i, None, decisions)
    take_losses(ctx, side, "attacker", attackers, att_loss, i, a, decisions)
    if invaders:
        hooks.invasion_end(ctx, i, a, target, invaders)  # 11.4: ashore, or eliminated (naval.py)
    elif not ctx.occupants(target, enemy):
        advance_after_combat(ctx, i, a, target)
    check_hedgehogs(ctx, f"attack {i + 1}")  # Ambiguity 48
