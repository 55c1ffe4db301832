"""Victory (PROVISIONAL: the victory conditions are NOT IN SOURCE, digest Part VI; supplement S2.5
is the only evidence: graded victory levels, a lesser Axis victory "Blood & Concrete", victory tied
to when Germany falls, an "Allied Victory" result). Everything is read from the scenario's victory
table (``victory = "../victory.toml"``, victory_table.py), which an owner of the game replaces
without touching code:

- victory points (VP, ``position.vp``): each side scores the WERPs of the resource areas it
  controls (4.14) and a number for each enemy capital it controls;
- sudden death: checked at the end of every player-turn (after the Final Supply Determination
  Phase, 1.27); the first condition met ends the game (clock phase ``game-over``, ``result`` in the
  state, a report line citing the condition);
- the end: after the scenario's last game turn (1.4), the first ``end`` condition met decides (a
  side, or the side with more VP; a draw when none is met or the VP are equal);
- who would win now (``pbem status``, every report's end of game turn): the sudden-death condition
  met, else the ``end`` condition that would decide if the game ended now.

In a three-player game the winner is a side: an Allied victory is the Western Allies' and the
Soviet Union's together (choosing one winner among them is optional rule 14.48, NOT IN SOURCE).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event

from .context import Ctx
from .data import ALLIES, AXIS, MAJORS, SIDES, Turn
from .victory_table import DRAW, LEADER, Condition, VictoryTable

RULE = "victory (provisional)"
STAND_IN_CAPITAL = 5  # a scenario without a victory table: the old stand-in (resource values, 5 a capital)


def victory_points(ctx: Ctx) -> dict[str, int]:
    """The provisional victory points (NOT IN SOURCE): each side scores the WERP value of every
    resource area it controls (4.14) times the table's ``resource``, and the table's value for
    each enemy capital it controls (map.toml ``capital``)."""
    t: VictoryTable | None = ctx.sc.victory
    per_resource = t.resource if t else 1
    capitals = t.capitals if t else dict.fromkeys(MAJORS, STAND_IN_CAPITAL)
    vp = {AXIS: 0, ALLIES: 0}
    for a, side in sorted(ctx.control.items()):
        if side not in vp:
            continue
        ar = ctx.sc.map.areas.get(a)
        if ar is None:
            continue
        vp[side] += ar.resource * per_resource
        if ar.capital in capitals and ctx.side_of_nation(ar.capital) != side:
            vp[side] += capitals[ar.capital]
    return vp


def surrendered(ctx: Ctx, nation: str) -> bool:
    """A nation has surrendered: it is conquered (10.0, NOT IN SOURCE: politics.conquered and its
    provisional chart ``conquest``)."""
    from .politics import conquered

    return conquered(ctx, nation)


def _in_time(ctx: Ctx, c: Condition) -> bool:
    if c.first and ctx.turn < Turn.parse(c.first):
        return False
    return not (c.last and Turn.parse(c.last) < ctx.turn)


def holds(ctx: Ctx, c: Condition, vp: dict[str, int]) -> tuple[bool, str, str]:
    """Whether the condition holds now: (met, the winner, why in words)."""
    why: list[str] = []
    if not _in_time(ctx, c):
        return False, "", "not in its game turns"
    if c.controls:
        side, areas = str(c.controls["side"]), list(c.controls["areas"])
        held = [a for a in areas if ctx.controller(a) == side]
        need = int(c.controls["at_least"])
        if len(held) < need:
            return False, "", f"the {side} control {len(held)} of {', '.join(areas)} ({need} needed)"
        why.append(f"the {side} control {', '.join(held)}")
    if c.vp:
        side, need = str(c.vp["side"]), int(c.vp["at_least"])
        if vp[side] < need:
            return False, "", f"the {side} have {vp[side]} VP ({need} needed)"
        why.append(f"the {side} have {vp[side]} VP (at least {need})")
    for n in c.surrendered:
        if not surrendered(ctx, n):
            return False, "", f"{n} has not surrendered"
        why.append(f"{n} has surrendered")
    winner = c.winner
    if winner == LEADER:
        winner = AXIS if vp[AXIS] > vp[ALLIES] else ALLIES if vp[ALLIES] > vp[AXIS] else DRAW
        why.append(f"VP axis {vp[AXIS]}, allies {vp[ALLIES]}")
    if c.lead is not None:
        if winner not in SIDES:
            return False, "", "no side leads"
        loser = ALLIES if winner == AXIS else AXIS
        if vp[winner] - vp[loser] < c.lead:
            return False, "", f"the {winner} lead by {vp[winner] - vp[loser]} VP ({c.lead} needed)"
        why.append(f"the {winner} lead by {vp[winner] - vp[loser]} VP (at least {c.lead})")
    return True, winner, "; ".join(why) or "none of the conditions before it is met"


def _result(ctx: Ctx, c: Condition, winner: str, why: str, vp: dict[str, int]) -> dict[str, Any]:
    level = c.level if winner != DRAW else "draw"
    return {"winner": winner, "level": level, "condition": c.id, "title": c.title, "when": c.when, "rule": RULE,
            "reason": f"{c.id} {c.title}, {level}: {why}", "why": why, "note": c.note, "vp": dict(vp), "turn": ctx.turn.key,
            "provisional": True}


def evaluate(ctx: Ctx, when: str) -> dict[str, Any] | None:
    """The first condition of ``when`` ("sudden-death" or "end") of the scenario met now, as a
    result (winner, level, condition, reason, VP), or None."""
    t = ctx.sc.victory
    vp = victory_points(ctx)
    for c in t.of(ctx.sc.id, when) if t else []:
        met, winner, why = holds(ctx, c, vp)
        if met:
            return _result(ctx, c, winner, why, vp)
    return None


def result(ctx: Ctx) -> dict[str, Any]:
    """The result of a game that ends now: a sudden-death condition met, else the first ``end``
    condition met, else a draw."""
    got = evaluate(ctx, "sudden-death") or evaluate(ctx, "end")
    if got:
        return got
    vp = victory_points(ctx)
    return {"winner": DRAW, "level": "draw", "condition": "", "title": "no condition met", "when": "end", "rule": RULE,
            "reason": "no condition of the victory table is met", "why": "no condition of the victory table is met", "note": "", "vp": vp, "turn": ctx.turn.key,
            "provisional": True}


def sudden_death(ctx: Ctx) -> bool:
    """Whether a sudden-death condition is met (checked at the end of every player-turn)."""
    return evaluate(ctx, "sudden-death") is not None


def who(r: dict[str, Any]) -> str:
    return "a draw" if r["winner"] == DRAW else f"the {r['winner']} win ({r['level']})"


def _cond(r: dict[str, Any]) -> str:
    return f"{r['condition']} {r['title']}" if r.get("condition") else r["title"]


def standing(ctx: Ctx) -> str:
    """Who would win now and why (``pbem status``; the end of every game turn's report)."""
    sd = evaluate(ctx, "sudden-death")
    if sd:
        return f"{who(sd)} by sudden death ({_cond(sd)}: {sd['why']})"
    r = result(ctx)
    return f"if the game ended now: {who(r)} ({_cond(r)}: {r['why']})"


def end_of_turn(ctx: Ctx) -> None:
    """The end of a game turn: who would win now (a report line; nothing changes)."""
    vp = victory_points(ctx)
    ctx.emit("victory-standing", RULE, turn=ctx.turn.key, vp=vp, standing=standing(ctx), provisional=True)


def game_over(ctx: Ctx) -> dict[str, Any]:
    """The game ends now: the result (the state's ``result``), with its event."""
    r = result(ctx)
    ctx.emit("game-over", RULE, **r)
    return r


def status(state: dict[str, Any]) -> str:
    """`pbem status`: the VP and who would win now, or the result of a finished game."""
    from .context import context

    if state.get("result"):
        r = state["result"]
        vp = r.get("vp", {})
        return (f"victory (provisional): game over, {who(r) if 'level' in r else r.get('winner')} "
                f"({_cond(r) if 'title' in r else r.get('reason', '')}); VP axis {vp.get('axis')}, allies {vp.get('allies')}")
    ctx = context(state)
    vp = victory_points(ctx)
    return f"victory (provisional): VP axis {vp[AXIS]}, allies {vp[ALLIES]}; {standing(ctx)}"


# --- reports ----------------------------------------------------------------------------------------
def _game_over(e: Event) -> list[str]:
    d = e.data
    vp = d["vp"]
    head = f"## Game over: {who(d) if 'level' in d else d['winner']}"
    cond = f"condition {d['condition']}, {d['title']}" if d.get("condition") else str(d.get("title", ""))
    when = "sudden death at the end of a player-turn" if d.get("when") == "sudden-death" else "after the last game turn"
    out = [f"{head} ({e.rule})", "",
           f"- {cond} ({when}): {d.get('why', d['reason'])}. VP axis {vp['axis']}, allies {vp['allies']}."]
    if d.get("note"):
        out.append(f"- The condition: {d['note']}")
    out.append("- The victory conditions are NOT IN SOURCE (digest Part VI, supplement S2.5): this result comes from the "
               "provisional victory table (scenarios/europe-engulfed/victory.toml), which the owner of the game may replace.")
    return out


def _standing(e: Event) -> list[str]:
    d = e.data
    return [f"- Victory standing at the end of {Turn.parse(str(d['turn'])).label} ({e.rule}): VP axis {d['vp']['axis']}, "
            f"allies {d['vp']['allies']}; {d['standing']}."]


RENDER = {"game-over": _game_over, "victory-standing": _standing}
