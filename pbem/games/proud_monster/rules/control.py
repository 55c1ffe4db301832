"""Control and victory: control of towns and cities (3.9), the VP they give (4.2-4.3), the
Moscow sudden death (4.6, Ambiguity 7), the ZOMO incursion (4.4) and the Victory Check (4.5, 17.2).
"""

from __future__ import annotations

from ..data import Scenario
from .context import OFF_MAP, Ctx
from .works import enter_works


def objective_vp(sc: Scenario, control: dict[str, str], hex_id: str) -> int:
    """VP the German holds for one hex: 4.2; Moscow's 9 VP only with both hexes (4.3)."""
    h = sc.map.hexes[hex_id]
    if h.place == "Moscow" and h.settlement == "city":
        return 0
    return h.vp if control.get(hex_id) == "german" else 0


def control_vp(sc: Scenario, control: dict[str, str]) -> int:
    """German VP from controlled cities and large towns (4.2, 4.3)."""
    total = sum(objective_vp(sc, control, h) for h in control)
    moscow = sc.map.moscow()
    if moscow and all(control.get(h) == "german" for h in moscow):
        total += max(sc.map.hexes[h].vp for h in moscow)
    return total


def enter_hex(ctx: Ctx, side: str, hex_id: str, how: str) -> None:
    """3.9: control of a town or city passes the moment an enemy ground unit enters it.

    4.2-4.3: VP are gained or lost at once. 4.6: the first German capture of both Moscow hexes
    triggers the sudden-death roll (even: the German wins at once); the VP count at the next
    Victory Check (Ambiguity 7; option moscow_vp_victory = "at-capture": moscow_vp_check).
    14.25-14.26, 14.30 (option fortifications): a German entry cancels or destroys works (enter_works).
    """
    enter_works(ctx, side, hex_id, how)
    h = ctx.sc.map.hexes[hex_id]
    control: dict[str, str] = ctx.position["control"]
    if not h.settlement or control.get(hex_id) == side:
        return
    before = control_vp(ctx.sc, control)
    previous = control.get(hex_id, "none")
    control[hex_id] = side
    after = control_vp(ctx.sc, control)
    ctx.position["vp"] = int(ctx.position["vp"]) + (after - before)
    ctx.emit("control", "3.9", hex=hex_id, place=h.place, was=previous, now=side, how=how,
             vp_change=after - before, vp=ctx.position["vp"])
    moscow = ctx.sc.map.moscow()
    if not (side == "german" and hex_id in moscow and all(control.get(m) == "german" for m in moscow)):
        return
    if not ctx.position.get("moscow_rolled", False):
        ctx.position["moscow_rolled"] = True
        if ctx.dice is None:
            ctx.emit("sudden-death", "4.6", face=None, collapse=None)
            return
        face = ctx.dice.roll(f"4.6|{ctx.step}|Moscow sudden death")
        collapse = face % 2 == 0
        ctx.emit("sudden-death", "4.6", face=face, collapse=collapse)
        if collapse:
            ctx.result = {"winner": "german", "rule": "4.6", "reason": f"Moscow sudden death: rolled {face} (even), the Soviet system collapses"}
            return
    if ctx.options.get("moscow_vp_victory", "next-check") == "at-capture" and ctx.dice is not None:
        moscow_vp_check(ctx)


def moscow_vp_check(ctx: Ctx) -> None:
    """Ambiguity 7 (4.6 vs 4.1), option moscow_vp_victory = "at-capture": the 9 VP of Moscow "may
    be enough to give him victory at that point" (4.6) read as an immediate VP victory: each time the
    German gains control of both Moscow hexes (after an odd sudden-death roll, or on a later
    recapture, when there is no roll), his VP total is compared at once with the German Victory
    Table's threshold for the current GT (17.2); reaching it ends the game with a German win. The
    digest's reading, "next-check" (the default), has no such check: VP victory is decided only in
    the Victory Check phase at the end of the GT (4.1, 4.5), so the Soviet may still retake a hex
    before it. Checking orders without dice makes no check (the game goes on being checked)."""
    charts = ctx.sc.charts
    turn = ctx.turn
    threshold = charts.victory.get(turn)
    vp = int(ctx.position["vp"])
    won = threshold is not None and vp >= threshold
    if won:
        ctx.result = {"winner": "german", "rule": "4.6",
                      "reason": f"{vp} VP on capturing Moscow in GT{turn} reaches the {threshold} needed (17.2; Ambiguity 7)"}
    ctx.emit("victory-check", "4.6", turn=turn, intruders=[], vp=vp, threshold=threshold, at="moscow",
             provisional=charts.victory_provisional and turn not in charts.victory_known,
             outcome="german" if won else "continue")


def victory_check(ctx: Ctx, turn: int) -> None:
    """Victory Check phase: 4.4 ZOMO incursion (-1 VP per Soviet unit in the Greater-German ZOMO),
    4.5 the German Victory Table (17.2), the end of the last turn (4.5: the Soviet wins)."""
    intruders = [u for u, s in sorted(ctx.units.items())
                 if ctx.spec(u).side == "soviet" and s["at"] not in OFF_MAP
                 and ctx.sc.map.hexes[s["at"]].country == "germany" and ctx.sc.map.hexes[s["at"]].zomo]
    if intruders:
        ctx.position["vp"] = int(ctx.position["vp"]) - len(intruders)
    charts = ctx.sc.charts
    threshold = charts.victory.get(turn)
    vp = int(ctx.position["vp"])
    provisional = charts.victory_provisional and turn not in charts.victory_known
    outcome = "continue"
    if threshold is not None and vp >= threshold:
        outcome = "german"
        ctx.result = {"winner": "german", "rule": "4.5", "reason": f"{vp} VP at the end of GT{turn} reaches the {threshold} needed (17.2)"}
    elif turn >= ctx.sc.last_turn:
        outcome = "soviet"
        ctx.result = {"winner": "soviet", "rule": "4.5",
                      "reason": f"the German has not won by the end of GT{turn}, the scenario's last turn"}
    ctx.emit("victory-check", "4.5", turn=turn, intruders=intruders, vp=vp, threshold=threshold,
             provisional=provisional, outcome=outcome)
