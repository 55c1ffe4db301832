"""The Introductory Segment before each AM game turn (3.1): air availability (16.0), militia
mobilisation (17.3), Romanian replacements (3.1c, 12.2), replacements applied (3.1d, 12.21-12.23),
the Soviet reserve division (15.14, A-74).

Automatic (``segment``), at the start of an AM turn, before the Axis player turn, from the dice and
the Soviet standing instructions (``mobilise``, ``militia``, ``reserve``; adjudication model 6.2):

- a) 16.0, A-77: every aircraft back in the cup; 1d6, max(roll, 3) of the six drawn one at a time
  from the cup (sorted by id), each draw a die with as many faces as aircraft left; in a game
  without a referee a hidden draw of the Axis (16.0: it need not reveal it).
- b) 17.3, 17.31, 17.33, A-82: when the Soviet standing instruction ``mobilise`` is true, 1d6:
  1 two militia, 2 one, 6 one more Romanian replacement step, 3-5 nothing. The militia are the
  scenario's mobilisation pool (``mobilisation.militia``) not on the map: in the pool, or
  eliminated (17.31: they come back the same way). Each goes to the first hex of the standing
  ``militia`` list that is a town or city of the map, Soviet-controlled, 4 hexes or more from every
  Axis unit (A-82) and where it would not overstack (6.1; a choice of this version: the rules
  do not say). Never forced (17.33): without the instruction nothing is rolled.
- c) 12.2, A-9, A-65: 1d6 halved rounded up, plus one for a militia 6: the Romanian replacement
  steps; the steps of the last segment are lost, or kept with option replacements_carry.
- e) 15.14, A-74: the division of the Soviet standing instruction ``reserve`` goes into reserve
  (``activation.reserve``) for option reserve_days days, from the 4 July turn on (the first turn of
  the scenario whose date is 4 July; a scenario with no 4 July turn allows it from its first
  turn). One division at a time: a reserve lasts its days before another is named. In this
  version the reserve is public (15.14 lets the Soviet keep it secret); hidden later.

d) 3.1d, 12.21-12.23: the Axis [[replace]] orders of the AM turn's movement step.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.dice import Dice
from pbem.mechanics.odds import halve_round_up

from .activation import in_play
from .context import DEMORALIZED, DISRUPTED, Ctx
from .data import AXIS, ELIMINATED, POOL, SOVIET

MILITIA_DISTANCE = 4  # 17.3, A-82: 4 hexes or more from any Axis unit
REPLACE_DISTANCE = 3  # 12.21: 3 hexes or more from the nearest enemy unit
REPLACEABLE = ("infantry", "light-infantry")  # 12.22
STACK_LIMIT = Fraction(3)  # 6.1


def segment(ctx: Ctx, choices: dict[str, Any] | None = None) -> None:
    """3.1 a-c and e at the start of an AM turn (before the Axis player turn): the Soviet's
    ``choices`` (its intro file's [intro] table: mobilise, militia, reserve), each one it leaves
    out from its standing instructions."""
    ctx.emit("segment", "3.1", turn=ctx.turn, date=ctx.time.date)
    si = {**ctx.standing.get(SOVIET, {}), **(choices or {})}
    air_availability(ctx)
    bonus = militia(ctx, si)
    replacements(ctx, bonus)
    reserve(ctx, si)


def air_availability(ctx: Ctx) -> None:
    """16.0, A-77, T13: 1d6, draw max(roll, 3) of the six aircraft from the cup. In a game without
    a referee the Axis draws in secret: a hidden draw (docs/protocol.md, Hidden draws) that its
    next file commits as the hidden item ``air.TN``; the aircraft it flies are claims on it, checked
    when the game's last step opens it. With a referee the referee draws, and the Soviet's views
    leave the draw out."""
    cup = sorted(ctx.sc.aircraft)
    if ctx.secret:
        item = air_item(ctx.turn)
        ctx.pos["aircraft"] = {"used": [], "hidden": True, "item": item}
        ctx.draws.append((AXIS, item, {"cup": cup}))
        ctx.emit("air-draw", "16.0", hidden=True, item=item, cup=len(cup))
        return
    assert ctx.dice is not None
    roll, drawn = draw_aircraft(ctx.dice, cup, f"16.0|T{ctx.turn}/soviet/intro|aircraft")
    ctx.pos["aircraft"] = {"drawn": drawn, "used": []}
    ctx.emit("air-draw", "16.0", roll=roll, count=len(drawn), drawn=drawn, strengths=[ctx.sc.aircraft[a] for a in drawn],
             hidden=False, provisional=True)


def air_item(turn: int) -> str:
    """16.0: the hidden item of the Axis's air draw of the AM turn ``turn``."""
    return f"air.T{turn}"


def draw_aircraft(dice: Dice, cup: list[str], label: str) -> tuple[int, list[str]]:
    """16.0, T13: 1d6; max(roll, 3) aircraft drawn one at a time from the cup (sorted by id), each
    draw a die with as many faces as aircraft left."""
    cup = sorted(cup)
    roll = dice.roll(label)
    count = min(len(cup), max(roll, 3))
    if count >= len(cup):
        return roll, cup
    drawn = []
    for i in range(count):
        k = dice.roll(f"{label}|draw {i + 1}", len(cup))
        drawn.append(cup.pop(k - 1))
    return roll, drawn


def _militia_hex(ctx: Ctx, ranked: list[str], u: str) -> tuple[str, list[str]]:
    """17.3, A-82: the first hex of the ranked list a militia may go to, and why each one before it
    may not."""
    why = []
    axis_at = [ctx.at(a) for a in ctx.side_units(AXIS)]
    for h in ranked:
        place = ctx.sc.map.grid.place(h)
        if place is None:
            why.append(f"{h} is not a hex of the map")
        elif not ctx.sc.map.hex(h).urban:
            why.append(f"{h} is not a town or city")
        elif ctx.control.get(h) != SOVIET:
            why.append(f"{h} is not Soviet-controlled")
        elif any(ctx.distance(h, a) < MILITIA_DISTANCE for a in axis_at):
            near = min(ctx.distance(h, a) for a in axis_at)
            why.append(f"{h} is {near} hex(es) from an Axis unit (4 or more needed)")
        elif ctx.stack_value(h, [u]) > STACK_LIMIT:
            why.append(f"{h} would be overstacked (6.1)")
        else:
            return h, why
    return "", why


def militia(ctx: Ctx, si: dict[str, Any]) -> int:
    """17.3, 17.31, 17.33, A-82: the militia roll (``si``: the Soviet's choices); the Romanian
    replacement steps it gives (a 6)."""
    if not si.get("mobilise"):
        ctx.emit("militia", "17.33", attempted=False)
        return 0
    (roll,) = ctx.roll(f"17.3|T{ctx.turn}/soviet/intro|militia")
    wanted = {1: 2, 2: 1}.get(roll, 0)
    if roll == 6:
        ctx.emit("militia", "17.3", attempted=True, roll=roll, wanted=0, placed={}, bonus=1, why=[])
        return 1
    pool = [u for u in ctx.sc.militia if ctx.units[u]["at"] in (POOL, ELIMINATED)]
    ranked = [str(h) for h in si.get("militia", [])]
    placed: dict[str, str] = {}
    why: list[str] = []
    for _ in range(wanted):
        if not pool:
            why.append("no militia is left in the mobilisation pool")
            break
        u = pool[0]
        h, passed = _militia_hex(ctx, ranked, u)
        why += passed
        if not h:
            if not ranked:
                why.append("the standing instruction names no town or city (militia)")
            break
        pool.pop(0)
        returned = ctx.units[u]["at"] == ELIMINATED
        for k in ("status", "supply", "flags", "since"):
            ctx.units[u].pop(k, None)
        ctx.units[u]["lost"] = 0
        ctx.place(u, h)
        placed[u] = h
        if returned:
            why.append(f"{u} was eliminated and comes back (17.31)")
    ctx.emit("militia", "17.3", attempted=True, roll=roll, wanted=wanted, placed=placed, bonus=0,
             why=sorted(set(why), key=why.index))
    return 0


def replacements(ctx: Ctx, bonus: int) -> None:
    """3.1c, 12.2, A-9, A-65: 1d6 halved rounded up, plus a militia 6; kept or not (replacements_carry)."""
    (roll,) = ctx.roll(f"12.2|T{ctx.turn}/soviet/intro|replacements")
    steps = halve_round_up(roll)
    carried = int(ctx.pos.get("replacements", 0)) if ctx.option("replacements_carry") else 0
    lost = 0 if ctx.option("replacements_carry") else int(ctx.pos.get("replacements", 0))
    total = steps + bonus + carried
    ctx.pos["replacements"] = total
    ctx.emit("replacements", "12.2", roll=roll, steps=steps, bonus=bonus, carried=carried, lost=lost, total=total)


def _reserve_from(ctx: Ctx) -> int:
    """15.14, A-74: the first turn a reserve may be named: the scenario's first 4 July turn, else its
    first turn (0 when the scenario has no 4 July turn)."""
    for n, t in sorted(ctx.sc.turns.items()):
        if " ".join(t.date.lower().split()) in ("4 july", "july 4"):
            return n
    return 0


def _days_since(ctx: Ctx, since: int) -> int:
    """The Introductory Segments (days) after turn ``since`` up to this turn."""
    return sum(1 for n, t in ctx.sc.turns.items() if since < n <= ctx.turn and t.tod == "am")


def reserve_item(turn: int) -> str:
    """15.14: the hidden item of the reserve the Soviet names in the Introductory Segment of the AM
    turn ``turn`` (a game without a referee)."""
    return f"reserve.T{turn}"


def reserve(ctx: Ctx, si: dict[str, Any]) -> None:
    """15.14, A-74: the Soviet reserve division, from its choice ``reserve`` (``si``). In a game
    without a referee the choice is the Soviet's hidden value ``reserve.TN``, opened by its first
    movement file of the day (``name_reserve``, when the cup is made)."""
    act = ctx.pos.setdefault("activation", {})
    days = int(ctx.option("reserve_days"))
    cur = str(act.get("reserve", ""))
    if cur:
        since = int(act.get("reserve_since", ctx.turn))
        if _days_since(ctx, since) < days:
            ctx.emit("reserve", "15.14", formation=cur, state="kept", days=days, since=since)
            return
        act["reserve"] = ""
        act.pop("reserve_since", None)
        ctx.emit("reserve", "15.14", formation=cur, state="ended", days=days, since=since)
    if ctx.secret:
        return
    name_reserve(ctx, str(si.get("reserve", "")), ctx.turn)


def name_reserve(ctx: Ctx, want: str, since: int) -> None:
    """15.14, A-74: ``want`` put in reserve from the AM turn ``since`` (none for ""), unless a reserve
    is in force, it is too early, or it is no formation in play."""
    act = ctx.pos.setdefault("activation", {})
    days = int(ctx.option("reserve_days"))
    if not want:
        return
    if act.get("reserve"):
        ctx.emit("reserve", "15.14", formation=want, state="refused", why=f"{act['reserve']} is in reserve already")
        return
    start = _reserve_from(ctx)
    if ctx.turn < start:
        ctx.emit("reserve", "15.14", formation=want, state="refused", why=f"a reserve is named from the 4 July turn (turn {start}) on")
        return
    if want not in ctx.sc.formations or not in_play(ctx, want):
        ctx.emit("reserve", "15.14", formation=want, state="refused", why=f"{want} is not a Soviet formation in play")
        return
    act["reserve"] = want
    act["reserve_since"] = since
    ctx.emit("reserve", "15.14", formation=want, state="named", days=days, since=since, from_turn=start, hidden=ctx.secret)


# --- 3.1d: replacements applied ---------------------------------------------------------------------

def check_replacements(ctx: Ctx, orders: list[dict[str, Any]], problems: list[Problem]) -> None:
    """3.1d, 12.21-12.23: the Axis [[replace]] orders of an AM turn's movement step."""
    have = int(ctx.pos.get("replacements", 0))
    seen: set[str] = set()
    used = 0
    for i, o in enumerate(orders):
        where = f"replace[{i}].unit"
        u = str(o.get("unit", ""))
        if u not in ctx.sc.units:
            problems.append(Problem(where, f"{u} is not a unit of the scenario", "12.21"))
            continue
        spec = ctx.spec(u)
        if spec.side != AXIS or spec.nat != "romanian":
            problems.append(Problem(where, f"{u} is not Romanian: Romanian replacement steps rebuild Romanian units only", "A-65"))
            continue
        if spec.type not in REPLACEABLE:
            problems.append(Problem(where, f"{u} is {spec.type.replace('-', ' ')}: infantry replacements rebuild only "
                                    "infantry and light infantry", "12.22"))
            continue
        if not ctx.on_map(u):
            problems.append(Problem(where, f"{u} is not on the map ({ctx.at(u)})", "12.21"))
            continue
        if u in seen:
            problems.append(Problem(where, f"{u} is named twice: a unit receives one step per Introductory Segment", "12.21"))
            continue
        seen.add(u)
        before = len(problems)
        if int(ctx.units[u].get("lost", 0)) <= 0:
            problems.append(Problem(where, f"{u} is at its printed maximum of {len(spec.steps)} step(s)", "12.23"))
        if ctx.status(u) in (DISRUPTED, DEMORALIZED):
            problems.append(Problem(where, f"{u} is {ctx.status(u)}: it may not receive a replacement step", "12.21"))
        near = ctx.nearest_enemy(ctx.at(u), AXIS)
        if near is not None and near < REPLACE_DISTANCE:
            problems.append(Problem(where, f"{u} is {near} hex(es) from the nearest enemy unit; 3 or more are needed", "12.21"))
        if len(problems) > before:
            continue
        used += 1
        if used > have:
            problems.append(Problem(where, f"the Axis has {have} Romanian replacement step(s) this segment", "12.2"))


def apply_replacements(ctx: Ctx, orders: list[dict[str, Any]]) -> None:
    """3.1d: each ordered unit recovers a step; it may not move this AM turn (12.21, flag
    ``replaced``, cleared at the end of the Axis player turn)."""
    for o in orders:
        u = str(o["unit"])
        ctx.units[u]["lost"] = int(ctx.units[u].get("lost", 0)) - 1
        ctx.flag(u, "replaced")
        ctx.pos["replacements"] = int(ctx.pos.get("replacements", 0)) - 1
        ctx.changed()
        ctx.emit("replaced", "12.21", unit=u, steps=ctx.steps_left(u), of=len(ctx.spec(u).steps),
                 left=ctx.pos["replacements"])


# --- report lines -----------------------------------------------------------------------------------

def _segment(e: Event) -> list[str]:
    return [f"#### Introductory Segment of {e.data['date']} ({e.rule})"]


def _air(e: Event) -> list[str]:
    d = e.data
    if d["hidden"]:
        return [f"- Air availability: the Axis draws its aircraft from the cup of {d['cup']} in secret ({e.rule}): its next "
                f"file commits the draw as its hidden item {d['item']}, made from its hidden-dice secret and this step's seed; "
                "the aircraft it flies are checked against it when the game's last step opens it (16.1, A-77)."]
    drawn = ", ".join(f"{a} (strength {s})" for a, s in zip(d["drawn"], d["strengths"], strict=True))
    return [f"- Air availability: the Axis rolls {d['roll']} and draws {d['count']} aircraft (at least 3) from the cup of 6: "
            f"{drawn}; each may bombard once in this day's daytime turns ({e.rule}, 16.1, A-77). With a referee, the "
            "Soviet's views leave the draw out (16.0)."]


def _militia(e: Event) -> list[str]:
    d = e.data
    if not d["attempted"]:
        return [f"- Militia: the Soviet does not try to mobilise militia (standing instruction mobilise; {e.rule})."]
    if d["bonus"]:
        return [f"- Militia: the Soviet rolls {d['roll']}: no militia, and the Romanians receive 1 infantry replacement step ({e.rule})."]
    if not d["wanted"]:
        return [f"- Militia: the Soviet rolls {d['roll']}: nothing happens (3-5, {e.rule})."]
    placed = "; ".join(f"{u} in {h}" for u, h in d["placed"].items()) or "none"
    out = [f"- Militia: the Soviet rolls {d['roll']}: {d['wanted']} militia battalion(s) in Soviet-controlled towns or cities "
           f"4 hexes or more from any Axis unit ({e.rule}, A-82). Placed: {placed}."]
    if d["why"]:
        out.append("  " + "; ".join(d["why"]) + ".")
    return out


def _replacements(e: Event) -> list[str]:
    d = e.data
    extra = f" plus {d['bonus']} for the militia 6 (17.3)" if d["bonus"] else ""
    carried = f" plus {d['carried']} kept from before (replacements_carry, A-65)" if d["carried"] else ""
    lost = f"; {d['lost']} unused step(s) of the last segment are lost (A-65)" if d["lost"] else ""
    return [f"- Romanian replacements: the Axis rolls {d['roll']}, halved rounded up: {d['steps']} step(s){extra}{carried}: "
            f"{d['total']} this segment{lost} ({e.rule}, 3.1c)."]


def _replaced(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['unit']} receives a replacement step: {d['steps']} of {d['of']} step(s); it may not move this AM turn "
            f"({e.rule}, 12.23); {d['left']} replacement step(s) left."]


def _reserve(e: Event) -> list[str]:
    d = e.data
    f = d["formation"]
    if d["state"] == "named":
        start = f"the 4 July turn is turn {d['from_turn']}" if d["from_turn"] else "the scenario has no 4 July turn: a reserve may be named from its first turn"
        return [f"- Reserve: the Soviet puts {f} in reserve for {d['days']} day(s): its marker stays out of the cup on daytime "
                f"turns ({e.rule}, A-74; {start})." + (f" The Soviet named it in secret in the Introductory Segment of turn "
                f"{d['since']} and opens it now that the cup is made (15.14)." if d.get("hidden") else "")]
    if d["state"] == "kept":
        return [f"- Reserve: {f} stays in reserve (named on turn {d['since']}, for {d['days']} day(s); {e.rule}, A-74)."]
    if d["state"] == "ended":
        return [f"- Reserve: {f} leaves the reserve after {d['days']} day(s) ({e.rule}, A-74)."]
    return [f"- Reserve: {f} cannot be put in reserve: {d['why']} ({e.rule}, A-74)."]


def _air_unseen(e: Event) -> list[str]:
    return [f"- Air availability: the referee draws the Axis's aircraft; the Axis need not reveal them ({e.rule})."]


RENDER = {"segment": _segment, "air-draw": _air, "air-draw-unseen": _air_unseen, "militia": _militia, "replacements": _replacements,
          "replaced": _replaced, "reserve": _reserve}


def check_choices(ctx: Ctx, choices: dict[str, Any], problems: list[Problem]) -> None:
    """3.1b and e: the Soviet's [intro] table: the towns and cities it names for militia are towns
    or cities of the map (17.3; whether one may take a militia is seen when it is placed), the
    reserve one of its formations (15.14)."""
    for i, h in enumerate(choices.get("militia", [])):
        place = ctx.sc.map.grid.place(str(h))
        if place is None:
            problems.append(Problem(f"intro.militia[{i}]", f"'{h}' is not a hex of the map", "17.3"))
        elif not ctx.sc.map.hex(str(h)).urban:
            problems.append(Problem(f"intro.militia[{i}]", f"{h} is not a town or city: militia are placed in one", "17.3"))
    if ctx.secret and "reserve" in choices:
        problems.append(Problem("intro.reserve", "in a game without a referee the reserve is the Soviet's secret: name it as "
                                f'[hidden] "{reserve_item(ctx.turn)}" = "FORMATION" (pbem sign seals it)', "15.14"))
    want = choices.get("reserve")
    if want and want not in ctx.sc.formations:
        problems.append(Problem("intro.reserve", f"'{want}' is not a Soviet formation of the scenario "
                                f"({', '.join(ctx.sc.formations)})", "15.14"))
