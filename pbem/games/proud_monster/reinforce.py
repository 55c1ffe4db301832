"""Proud Monster reinforcements (8.1-8.11, 8.13 Soviet part, 12.22): the Mutual Reinforcement (MR)
phase at the start of every GT, the OKH reserve areas, Soviet placement and the RVGK.

The MR phase (digest A.3 I) has an automatic part and, when the Soviet has something to decide, a
step of its own that awaits his orders (``GT3/MR/soviet``):

- automatic: the GT's German reinforcements appear in the North OKH area (Italian, Romanian and
  Hungarian units in the South one, 8.3, 8.5), or at a scenario's fixed entry hex; Soviet
  reinforcements (none on GT1, 8.7) and, from GT3, the tank brigades of the 2d6 roll (8.9, option
  ``tank_brigades``) and the rifle divisions brought back from the dead pile (8.13, option
  ``soviet_replacements``) wait to be placed; the Guards conversions the schedule calls for are due
  (8.11);
- the Soviet's MR orders: ``[[convert]]`` (8.11) then ``[[place]]`` (8.7): every unit that arrived
  goes to an entry hex, into the RVGK (8.1) or into the Southern Ports Holding Box (11.3).

The German's MR decisions (the ArKo 14.41, security divisions 8.21, diversions between the OKH areas
8.3) are carried out at the start of his orders of the GT's first player turn (``[declare]``), on
the position the MR phase left (Ambiguity 49 for the ArKo). RVGK units enter at the start of any
Soviet player turn (8.1) by ``[[place]]`` in his player-turn orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.errors import Place, Problem

from .data import OKH_AREAS, SOUTH_OKH_NATIONS, UnitSpec
from .naval import place_in_box
from .orders import Conversion, Orders, Placement
from .rules.allies import entry_problems
from .rules.context import OFF_MAP_BOXES, Ctx
from .rules.control import enter_hex
from .rules.movement import okh_entry_hexes, okh_unavailable
from .rules.places import path_of, problem, under
from .rules.stacking import stack_problems, stacking_limit
from .sequence import other
from .supply import soviet_hex_state, supplied_hexes

RVGK_LIMIT = 10  # 8.1: at most 10 units in the RVGK at any time
PLACE_BOXES = ("rvgk", "ports-box")  # 8.1, 11.3: where a Soviet arrival may go instead of a hex
ENTRY_SETTLEMENTS = ("city", "large_town")  # 8.7
TANK_BRIGADE_GT = 3  # 8.9: the 2d6 roll from GT3
REPLACEMENT_GT = 3  # 8.13: Soviet rifle-division replacements from GT3
# 8.13 (spec note): rifle divisions per qualifying MD hex, by GT (July II = 1 ... December = 6).
SOVIET_REPLACEMENT_RATE = {3: 1, 4: 2, 5: 2, 6: 3, 7: 3, 8: 4, 9: 4, 10: 5, 11: 5, 12: 6}
LENINGRAD = "4201N"


def mr_state(ctx: Ctx) -> dict[str, Any]:
    """What the Soviet must still decide in this GT's MR phase (empty when nothing)."""
    mr: dict[str, Any] = ctx.position.get("mr", {})
    return mr


def _entered(ctx: Ctx) -> dict[str, int]:
    """8.7: how many units have entered each hex this GT (reinforcements, replacements, RVGK)."""
    e = ctx.position.setdefault("entered", {"turn": ctx.turn, "hexes": {}})
    if int(e["turn"]) != ctx.turn:
        e.update(turn=ctx.turn, hexes={})
    hexes: dict[str, int] = e["hexes"]
    return hexes


def _capacity_used(ctx: Ctx) -> dict[str, int]:
    """8.7, Ambiguity 16 (option rvgk_entry_capacity): what counts against each hex's one stack per
    GT. "shared", the digest's reading: every entry of the GT, RVGK units entering at the start of a
    Soviet player turn included (_entered). "separate": RVGK units entering at the start of a Soviet
    player turn use a capacity of their own, one stack per hex in that player turn, and leave the
    GT's untouched; in the MR phase nothing changes."""
    return {} if _separate_capacity(ctx) else _entered(ctx)


def _separate_capacity(ctx: Ctx) -> bool:
    return ctx.pts > 0 and ctx.options.get("rvgk_entry_capacity", "shared") == "separate"


# --- the automatic part of the MR phase --------------------------------------------------------

def mutual_reinforcement(ctx: Ctx, turn: int) -> None:
    """The automatic part of the MR phase (8.1, 8.3, 8.5, 8.7, 8.9, 8.11, 8.13): arrivals, the
    tank-brigade roll, Soviet replacements and the conversions due; ``position.mr`` keeps what the
    Soviet must decide, and the MR step awaits his orders when it is not empty."""
    ctx.position.pop("mr", None)
    ctx.position.pop("entered", None)
    place: list[str] = []
    for t, u, hex_id in (*ctx.sc.reinforcements, *set_up_arrivals(ctx)):
        if u not in ctx.units or ctx.units[u]["at"] != "track" or t > turn:
            continue
        spec = ctx.spec(u)
        if spec.side == "soviet" and turn == 1:
            continue  # 8.7: no Soviet reinforcements on GT1
        if hex_id:
            _fixed_arrival(ctx, u, hex_id)
        elif spec.side == "german":
            area = "okh-south" if spec.nat in SOUTH_OKH_NATIONS else "okh-north"  # 8.3, 8.5
            ctx.units[u]["at"] = area
            ctx.emit("okh-arrival", "8.5" if area == "okh-south" else "8.3", unit=u, area=area, turn=turn)
        else:
            place.append(u)
    if place:
        ctx.emit("soviet-arrivals", "8.7", units=place, turn=turn)
    place += tank_brigades(ctx, turn)
    place += soviet_replacements(ctx, turn)
    due = [{"from": f"{kind} {size}", "guards": g} for t, kind, size, g in ctx.sc.conversions
           if t == turn and ctx.units.get(g, {}).get("at") == "track"]
    if due:
        ctx.emit("conversions-due", "8.11", turn=turn, due=due)
    mr: dict[str, Any] = {}
    if place:
        mr["place"] = place
    if due:
        mr["convert"] = due
    if mr:
        ctx.position["mr"] = mr


def set_up_arrivals(ctx: Ctx) -> list[tuple[int, str, str]]:
    """3.5: the Soviet units a players' set-up left on the Turn Record Track (position `arrivals`,
    setup.py), as reinforcements without a fixed hex: the Soviet places them (8.7)."""
    return sorted((int(t), u, "") for u, t in ctx.position.get("arrivals", {}).items())


def _fixed_arrival(ctx: Ctx, u: str, hex_id: str) -> None:
    """A scenario's fixed entry hex (a short scenario's simplification of 8.3/8.7): the unit
    appears there; one whose hex is enemy-occupied or full is delayed to the next GT (8.1)."""
    side = ctx.spec(u).side
    if ctx.occupants(hex_id, other(side)):
        ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=False, why="the entry hex holds enemy units; delayed")
        return
    full = stack_problems(ctx, hex_id, ctx.occupants(hex_id, side) + [u])  # 6.1, 6.3-6.5, 7.1-7.3
    if full:
        rule, text = full[0]
        why = f"the entry hex is full ({rule}); delayed" if rule in ("6.1", "6.5") else \
            f"the entry hex would hold {text} ({rule}); delayed"
        ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=False, why=why)
        return
    ctx.units[u]["at"] = hex_id
    ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=True, why="")
    enter_hex(ctx, side, hex_id, "reinforcement")


def hex_supply(ctx: Ctx, hex_id: str) -> str:
    """The supply state a Soviet unit in ``hex_id`` would have: "supplied", "lake" (9.16) or "oos"
    (9.2; a Black Sea port is always in supply, 9.17); "supplied" without the supply rules."""
    return soviet_hex_state(ctx, hex_id)


def soviet_supplied(ctx: Ctx, hex_id: str) -> bool:
    """Whether a Soviet unit in ``hex_id`` would be in supply, lake supply included (9.2, 9.16)."""
    return hex_supply(ctx, hex_id) != "oos"


def tank_brigades(ctx: Ctx, turn: int) -> list[str]:
    """8.9 (option tank_brigades): from GT3 the Soviet rolls 2d6 each GT and receives that many
    brigades of the group set aside (the scenario's ``[pools] tank_brigades``, in its order): -3 if
    Leningrad is German-controlled or out of supply, -3 if either Moscow hex is German-controlled or
    every Soviet-held Moscow hex is out of supply (Ambiguity 17). A modified result of 0 or less gives
    none and carries nothing forward; the rolls go on until the whole group has entered. Leningrad
    in lake supply (9.16) counts as cut too.

    Ambiguity 17 needs no option: the other reading, one Soviet-held Moscow hex out of supply, gives
    the same result. The second -3 is asked only when both hexes are Soviet-held; a Soviet-held hex
    holds no German unit (a German entry takes control, 3.9), and 5017N and 5116N are neighbours
    whose hexside a Soviet line may cross (9.4: only enemy-occupied hexes and all-sea hexsides stop
    it), so a line that reaches either reaches both."""
    if not ctx.options.get("tank_brigades") or turn < TANK_BRIGADE_GT:
        return []
    left = [u for u in ctx.sc.tank_brigades if ctx.units.get(u, {}).get("at") == "track"]
    if not left:
        return []
    if ctx.dice is None:
        raise RuntimeError("a die is needed, but this is a check without dice")
    labels = [f"8.9|GT{turn}/MR|tank brigades|die {k}" for k in (1, 2)]
    faces = [ctx.dice.roll(label) for label in labels]
    mods: list[dict[str, Any]] = []
    control = ctx.position["control"]
    if LENINGRAD in ctx.sc.map.hexes:
        state = hex_supply(ctx, LENINGRAD)
        if control.get(LENINGRAD) == "german":
            mods.append({"value": -3, "why": "Leningrad is German-controlled"})
        elif state == "lake":
            mods.append({"value": -3, "why": "Leningrad is in lake supply (9.16)"})
        elif state == "oos":
            mods.append({"value": -3, "why": "Leningrad is out of supply"})
    moscow = ctx.sc.map.moscow()
    if moscow:
        held = [h for h in moscow if control.get(h) != "german"]
        if len(held) < len(moscow):
            mods.append({"value": -3, "why": "a Moscow hex is German-controlled"})
        elif not any(soviet_supplied(ctx, h) for h in held):
            mods.append({"value": -3, "why": "supply to Moscow is completely cut (Ambiguity 17)"})
    total = sum(faces) + sum(int(m["value"]) for m in mods)
    got = left[:max(total, 0)]
    ctx.emit("tank-brigades", "8.9", turn=turn, labels=labels, faces=faces, modifiers=mods, total=total,
             units=got, left=len(left) - len(got))
    return got


def qualifying_md_hexes(ctx: Ctx) -> list[str]:
    """8.13: the Soviet-controlled Military District hexes (cities, large towns and towns, each hex
    counted, Ambiguity 20) with a complete overland supply line at this moment: not in lake supply
    (9.16), not out of supply, and not only by a Black Sea port's own supply (9.17)."""
    control = ctx.position["control"]
    overland = None
    if ctx.options.get("supply"):  # a Black Sea port's own supply (9.17) is no overland line
        overland = supplied_hexes(ctx, "soviet", overland=True)
    return sorted(h.id for h in ctx.sc.map.hexes.values()
                  if h.md and h.settlement and h.country == "ussr" and control.get(h.id) == "soviet"
                  and not ctx.occupants(h.id, "german") and (overland is None or h.id in overland))


def is_rifle_division(spec: UnitSpec) -> bool:
    """8.13: a Soviet rifle division (militia included), not a 2-step Guards unit."""
    return spec.side == "soviet" and spec.type == "infantry" and spec.size == "XX" and not spec.guards


def soviet_replacements(ctx: Ctx, turn: int) -> list[str]:
    """8.13 (option soviet_replacements): from GT3, at the start of each GT, eliminated Soviet rifle
    divisions come back from the dead pile: per qualifying MD hex (qualifying_md_hexes; two-hex Moscow
    counts per hex, Ambiguity 20, or once with the option moscow_replacements = "once") the GT's rate
    (1 in July II, 2 in August, 3 in September, 4 in October, 5 in November, 6 in December). They
    are drawn blind from the dead rifle divisions, one die per division of as many sides as are
    left (Ambiguity 20), come back untried (2.15) and at full strength, and are placed as
    reinforcements are. Replacements are not saved from GT to GT."""
    if not ctx.options.get("soviet_replacements") or turn < REPLACEMENT_GT:
        return []
    hexes = qualifying_md_hexes(ctx)
    rate = SOVIET_REPLACEMENT_RATE.get(turn, SOVIET_REPLACEMENT_RATE[max(SOVIET_REPLACEMENT_RATE)])
    moscow = [h for h in ctx.sc.map.moscow() if h in hexes]
    once = len(moscow) > 1 and ctx.options.get("moscow_replacements", "per-hex") == "once"
    allowed = (len(hexes) - (len(moscow) - 1 if once else 0)) * rate
    dead = sorted(u for u, s in ctx.units.items() if s["at"] == "dead" and is_rifle_division(ctx.spec(u)))
    drawn: list[dict[str, Any]] = []
    got: list[str] = []
    if allowed and dead:
        if allowed >= len(dead):
            got = list(dead)
        else:
            if ctx.dice is None:
                raise RuntimeError("a die is needed, but this is a check without dice")
            pool = list(dead)
            for k in range(allowed):
                label = f"8.13|GT{turn}/MR|replacement {k + 1}|dead rifle divisions"
                face = ctx.dice.roll(label, len(pool))
                pick = pool.pop(face - 1)
                drawn.append({"label": label, "die": face, "of": len(pool) + 1, "unit": pick})
                got.append(pick)
    for u in got:
        st = ctx.units[u]
        st.update(at="track", steps=ctx.spec(u).steps)
        st.pop("tried", None)  # 2.15: it comes back untried; its counter returns to the pool
    if allowed or dead:
        extra = {"moscow_once": moscow} if once else {}
        ctx.emit("soviet-replacements", "8.13", turn=turn, hexes=hexes, rate=rate, allowed=allowed, dead=len(dead),
                 units=got, drawn=drawn, **extra)
    return got


# --- placement (8.1, 8.7, 11.3, 12.22) -----------------------------------------------------------

def md_neighbourhoods(ctx: Ctx) -> dict[str, str]:
    """8.7: the hexes next to a Military District city or large town that is itself an entry hex
    now; units may enter through them too. Each with the MD hex it belongs to. 9.16: a city in lake
    supply (Leningrad) cannot act as a Military District HQ: it takes one stack, in the city only."""
    out: dict[str, str] = {}
    for h in sorted(entry_hexes(ctx)):
        if ctx.sc.map.hexes[h].md and hex_supply(ctx, h) != "lake":
            for n in ctx.sc.map.neighbours(h):
                out.setdefault(n, h)
    return out


def entry_hexes(ctx: Ctx) -> list[str]:
    """8.7: the Soviet-controlled, supplied cities and large towns free of German units."""
    control = ctx.position["control"]
    return sorted(h.id for h in ctx.sc.map.hexes.values()
                  if h.settlement in ENTRY_SETTLEMENTS and h.country == "ussr" and control.get(h.id) == "soviet"
                  and not ctx.occupants(h.id, "german") and soviet_supplied(ctx, h.id))


def md_near_problem(ctx: Ctx, hex_id: str) -> tuple[str, str]:
    """Why a hex next to a Military District city or large town takes no unit now, as (rule, text),
    or ("", ""): all-sea or all-lake, or holding German units (Ambiguity 16, option
    md_adjacent_entry; with "controlled-supplied" also out of supply, or a town or city not
    Soviet-controlled)."""
    h = ctx.sc.map.hexes[hex_id]
    if h.water:
        return "8.7", f"{hex_id} is an all-{h.terrain} hex (Ambiguity 16)"
    if ctx.occupants(hex_id, "german"):
        return "8.7", f"{hex_id} holds German units (Ambiguity 16)"
    if ctx.options.get("md_adjacent_entry", "not-enemy-occupied") == "controlled-supplied":
        opt = "option md_adjacent_entry = \"controlled-supplied\", Ambiguity 16"
        if h.settlement and ctx.position["control"].get(hex_id) != "soviet":
            return "8.7", f"{hex_id} {h.place} is not Soviet-controlled ({opt})"
        if not soviet_supplied(ctx, hex_id):
            return "8.7", f"{hex_id} is out of supply (9.2; {opt})"
    return "", ""


def open_md_neighbours(ctx: Ctx) -> list[str]:
    """The hexes next to a Military District city or large town that take units now (8.7,
    md_near_problem), other than the entry hexes themselves: what the templates offer."""
    entries = set(entry_hexes(ctx))
    return sorted(n for n in md_neighbourhoods(ctx) if n not in entries and not md_near_problem(ctx, n)[0])


def entry_problem(ctx: Ctx, unit: str, hex_id: str, entries: list[str], md_near: dict[str, str]) -> tuple[str, str]:
    """Why a Soviet unit may not be placed in ``hex_id`` now, as (rule, text), or ("", ""). A hex
    next to a Military District city or large town (``md_near``) takes units when it is not all-sea
    or all-lake and holds no German unit (Ambiguity 16, the digest's reading: option
    md_adjacent_entry = "not-enemy-occupied"); with "controlled-supplied" it must also meet the
    city's own conditions: in Soviet supply (9.2), and Soviet-controlled if it is a town or city
    (3.9: control matters only there)."""
    h = ctx.sc.map.hexes[hex_id]
    if hex_id in entries:
        return "", ""
    if hex_id in md_near:
        closed = md_near_problem(ctx, hex_id)
        if closed[0]:
            return closed
        barred = entry_problems(ctx, unit, hex_id)
        return barred[0] if barred else ("", "")
    if h.settlement in ENTRY_SETTLEMENTS:
        if ctx.position["control"].get(hex_id) != "soviet":
            return "8.7", f"{hex_id} {h.place} is not Soviet-controlled"
        if ctx.occupants(hex_id, "german"):
            return "8.7", f"{hex_id} {h.place} holds German units"
        return "8.7", f"{hex_id} {h.place} is out of supply (9.2)"
    lake = [n for n in ctx.sc.map.neighbours(hex_id) if n in entries and ctx.sc.map.hexes[n].md]
    if lake:  # an MD city next to it that is an entry hex but no MD HQ: it is in lake supply
        return "8.7", (f"{hex_id} is next to {lake[0]} {ctx.sc.map.hexes[lake[0]].place}, which is in lake supply and so "
                       "cannot act as a Military District HQ: units enter the city itself (9.16)")
    return "8.7", (f"{hex_id} is neither a Soviet-controlled, supplied city or large town nor next to a Military "
                   "District one")


def place_units(ctx: Ctx, orders: Sequence[Placement], allowed: set[str], where: Place, problems: list[Problem]) -> list[str]:
    """``[[place]]``: Soviet units that arrived (or wait in the RVGK) enter play (8.7): in a
    Soviet-controlled, supplied city or large town, or a hex next to a Military District one
    (not enemy-occupied, not all-sea or all-lake, Ambiguity 16; option md_adjacent_entry), each hex
    taking at most one stack per GT (its stacking limit, with the units placed there earlier in the
    GT; Ambiguity 16: RVGK entries count too, option rvgk_entry_capacity, _capacity_used) and within
    stacking with the units already there; or into the RVGK, which
    holds at most 10 units and which a unit enters and leaves at most once a game (8.1, 12.22); or,
    with the naval rules, into the Southern Ports Holding Box (11.3). Returns the units placed."""
    entries = entry_hexes(ctx)
    md_near = md_neighbourhoods(ctx)
    seen: dict[str, int] = {}
    plan: list[tuple[int, list[str], str]] = []
    for i, o in enumerate(orders):
        w = under(where, i)
        units = list(o.units)
        raw = o.hex
        if not units:
            problems.append(problem(w, "no units", "8.7"))
            continue
        bad = False
        for u in units:
            if u in seen:
                problems.append(problem(w, f"{u} is placed twice (also in {under(where, seen[u]).text})", "8.7"))
                bad = True
            elif u not in allowed:
                problems.append(problem(w, f"{u} is not a unit to be placed now" + (
                    f" (it is {OFF_MAP_BOXES.get(ctx.at(u), 'on the map')})" if u in ctx.units else ""), "8.1"))
                bad = True
            seen.setdefault(u, i)
        if raw in PLACE_BOXES:
            if raw == "ports-box" and not ctx.options.get("naval"):
                problems.append(problem(under(w, "hex"), "the Southern Ports Holding Box is used with the naval rules (option naval)",
                                        "11.3"))
                bad = True
            if not bad:
                plan.append((i, units, raw))
            continue
        h = ctx.sc.map.canonical(raw)
        if h is None:
            problems.append(problem(under(w, "hex"), f"'{raw}' is not a hex of the map, \"rvgk\" or \"ports-box\"", "8.7"))
            continue
        if not bad:
            plan.append((i, units, h))
    entered = _capacity_used(ctx)
    rvgk = [u for u, s in ctx.units.items() if s["at"] == "rvgk"]
    used: list[str] = ctx.position.setdefault("rvgk_used", [])
    placed: list[str] = []
    for i, units, dest in plan:
        w = under(where, i)
        if dest == "rvgk":
            again = [u for u in units if u in used and ctx.at(u) != "rvgk"]
            if again:
                problems.append(problem(w, f"{', '.join(again)} already entered the RVGK once; no unit enters it twice a game",
                                        "12.22"))
                continue
            going = [u for u in units if ctx.at(u) != "rvgk"]
            if len(rvgk) + len(going) > RVGK_LIMIT:
                problems.append(problem(w, f"the RVGK would hold {len(rvgk) + len(going)} units; at most {RVGK_LIMIT}", "8.1"))
                continue
            rvgk += going
        elif dest != "ports-box":
            rule, text = "", ""
            for u in units:
                rule, text = entry_problem(ctx, u, dest, entries, md_near)
                if text:
                    break
            if text:
                problems.append(problem(under(w, "hex"), text, rule))
                continue
            limit = stacking_limit(ctx, dest)
            if entered.get(dest, 0) + len(units) > limit:
                when, per = ("now", "per player turn for RVGK entries (option rvgk_entry_capacity = \"separate\", "
                                    "Ambiguity 16)") if _separate_capacity(ctx) else ("this GT", "per GT")
                problems.append(problem(under(w, "hex"), f"{entered.get(dest, 0) + len(units)} units would enter {dest} {when}; "
                                                    f"a hex takes one stack ({limit}) {per}", "8.7"))
                continue
            full = stack_problems(ctx, dest, ctx.occupants(dest, "soviet") + units)
            if full:
                problems.append(problem(under(w, "hex"), f"{dest} would hold {full[0][1]}", full[0][0],
                                        "Stacking is observed during placement (8.7)."))
                continue
            entered[dest] = entered.get(dest, 0) + len(units)
        came = {u: ctx.at(u) for u in units}
        for u in units:
            if dest == "rvgk" and u not in used:
                used.append(u)
            ctx.units[u]["at"] = dest
            if dest == "ports-box":  # 11.3: when it entered the Box (naval.box_barred)
                place_in_box(ctx, u, ctx.pts)
        placed += units
        ctx.emit("placement", "8.7" if dest not in PLACE_BOXES else ("8.1" if dest == "rvgk" else "11.3"),
                 units=units, to=dest, place=ctx.sc.map.hexes[dest].place if dest in ctx.sc.map.hexes else "",
                 md=md_near.get(dest, "") if dest not in entries else "", came=sorted(set(came.values())),
                 turn=ctx.turn, step=ctx.step)
        if dest in ctx.sc.map.hexes:
            enter_hex(ctx, "soviet", dest, "placement")
    if not used:
        ctx.position.pop("rvgk_used", None)
    return placed


def rvgk_problems(ctx: Ctx, orders: Sequence[Placement], problems: list[Problem]) -> None:
    """8.1: at the start of any Soviet player turn RVGK units may enter play at the normal
    reinforcement-entry hexes (``[[place]]`` in his player-turn orders); a unit leaves the RVGK at
    most once a game (12.22: it never goes back)."""
    if not orders:
        return
    if ctx.side != "soviet":
        problems.append(problem(path_of("place"), "only Soviet units are placed (8.7) or enter from the RVGK (8.1)", "8.1"))
        return
    rvgk = {u for u, s in ctx.units.items() if s["at"] == "rvgk"}
    for i, o in enumerate(orders):
        if o.hex == "rvgk":
            problems.append(problem(path_of("place", i, "hex"), "units on the map never go back into the RVGK; new units enter it "
                                                        "only in the MR phase", "8.1"))
            return
    place_units(ctx, orders, rvgk, path_of("place"), problems)


# --- the Soviet MR step ----------------------------------------------------------------------

def convert_units(ctx: Ctx, orders: Sequence[Conversion], problems: list[Problem]) -> None:
    """8.11 Guards conversions: on the GTs the schedule gives (17.6, the scenario's `[[conversion]]`)
    the Soviet may replace a non-Guards unit of the listed type and size by the 2-step Guards unit:
    a tried unit on the map or in the RVGK, in full supply (not lake supply, not out of supply; an
    RVGK unit qualifies, Ambiguity 19) and not next to a German-side unit; an untried one only if no
    tried unit qualifies. The removed unit is out of play for good; the Guards unit takes its hex
    (or its place in the RVGK) at full strength and may move and fight at once. A conversion not
    made in the MR phase that calls for it is lost (no postponing)."""
    due: list[dict[str, str]] = list(mr_state(ctx).get("convert", []))
    known = len(problems)
    done: list[tuple[str, str]] = []
    taken: set[str] = set()
    for i, o in enumerate(orders):
        w = path_of("convert", i)
        u = o.unit
        want = o.guards
        if u not in ctx.units or ctx.spec(u).side != "soviet":
            problems.append(problem(w, f"'{u}' is not a Soviet unit", "8.11"))
            continue
        spec = ctx.spec(u)
        kind = f"{spec.type} {spec.size}"
        match = [d for d in due if d["from"] == kind and d["guards"] not in taken and (not want or d["guards"] == want)]
        if not match:
            problems.append(problem(w, f"no conversion of a {kind} unit" + (f" into {want}" if want else "")
                                       + f" is due this GT (due: {', '.join(d['from'] + ' -> ' + d['guards'] for d in due) or 'none'})",
                                    "8.11"))
            continue
        why = conversion_problem(ctx, u)
        if why:
            problems.append(problem(w, why, "8.11"))
            continue
        if ctx.untried(u):
            better = [x for x in eligible(ctx, kind) if not ctx.untried(x) and x not in {a for a, _ in done}]
            if better:
                problems.append(problem(w, f"{u} is untried, and tried {kind} units qualify ({', '.join(better)}); an untried "
                                           "unit is converted only when no tried one qualifies", "8.11"))
                continue
        if u in {a for a, _ in done}:
            problems.append(problem(w, f"{u} is converted twice", "8.11"))
            continue
        taken.add(match[0]["guards"])
        done.append((u, match[0]["guards"]))
    if len(problems) > known:
        return
    for u, g in done:
        where = ctx.at(u)
        ctx.units[u].update(at="removed")
        ctx.units[g] = {"at": where, "steps": ctx.spec(g).steps}
        ctx.emit("guards-conversion", "8.11", unit=u, guards=g, hex=where, turn=ctx.turn)
    lost = [d for d in due if d["guards"] not in taken]
    if lost:
        ctx.emit("conversions-lost", "8.11", turn=ctx.turn, lost=lost)


def conversion_problem(ctx: Ctx, u: str) -> str:
    """Why a unit may not be converted now (8.11), or "". Ambiguity 19: a unit in the RVGK always
    qualifies. No option: 8.11 itself lets the Soviet pick "a tried tank brigade on the map or in the
    RVGK", and the criteria hold there by themselves, the RVGK being off the map (no German-side unit
    can be next to it) and its units entering play in supply (8.8). The only other reading, that an
    RVGK unit never qualifies because the criteria cannot be traced off the map, would strike the
    rule's own "or in the RVGK"; it is not offered."""
    spec = ctx.spec(u)
    if spec.guards:
        return f"{u} is already a Guards unit"
    at = ctx.at(u)
    if at == "rvgk":
        return ""
    if not ctx.on_map(u):
        return f"{u} is {OFF_MAP_BOXES[at]}; only a unit on the map or in the RVGK is converted"
    near = sorted({x for n in ctx.sc.map.neighbours(at) for x in ctx.occupants(n, "german")})
    if near:
        return f"{u} in {at} is next to German-side units ({', '.join(near)})"
    state = hex_supply(ctx, at)
    if state != "supplied":
        return f"{u} in {at} is not in full supply ({'lake supply, 9.16' if state == 'lake' else 'out of supply'})"
    return ""


def eligible(ctx: Ctx, kind: str) -> list[str]:
    """8.11: the Soviet units of a kind ("rifle XX") that may be converted into Guards now, by id."""
    return sorted(u for u, s in ctx.units.items()
                  if ctx.spec(u).side == "soviet" and f"{ctx.spec(u).type} {ctx.spec(u).size}" == kind
                  and (ctx.on_map(u) or s["at"] == "rvgk") and not conversion_problem(ctx, u))


def mr_orders(ctx: Ctx, orders: Orders, problems: list[Problem]) -> None:
    """The Soviet's MR orders: conversions (8.11), then the placement of every unit that arrived
    (8.1, 8.7, 11.3). Every arrival must be placed; a unit may be kept back only in the RVGK (8.1)."""
    mr = mr_state(ctx)
    given = {"move": bool(orders.moves), "attack": bool(orders.attacks), "declare": orders.declare.any(), "sea": bool(orders.sea)}
    for key in ("move", "attack", "declare", "sea"):
        if given[key]:
            problems.append(problem(path_of(key), "the MR phase takes placements and conversions only; movement and attacks "
                                         "come in the player turn", "5.1"))
    convert_units(ctx, orders.convert, problems)
    arrivals = list(mr.get("place", []))
    placed = place_units(ctx, orders.place, set(arrivals), path_of("place"), problems)
    missing = [u for u in arrivals if u not in placed]
    if missing and not problems:
        problems.append(problem(path_of("place"), f"not placed: {', '.join(missing)}; every unit that arrives is placed on the map, "
                                         "in the RVGK or in the Southern Ports Holding Box", "8.1",
                                "`pbem template` lists them with the entry hexes open to them."))
    ctx.position.pop("mr", None)


def default_mr_orders(ctx: Ctx) -> dict[str, Any]:
    """The MR orders pbem proposes (the template) and applies when the Soviet sent none by the
    deadline (a referee's ``--no-orders``): each conversion due with the first eligible unit by id,
    tried units first (8.11); each unit to place in the first entry hex that still takes it, by id
    (8.7: one stack per hex per GT, stacking observed), else the RVGK while it has room (8.1), else
    the Southern Ports Holding Box with the naval rules (11.3). A unit nothing takes is left out
    (the orders are then illegal, and the template shows why)."""
    orders: dict[str, Any] = {}
    taken: set[str] = set()
    for d in mr_state(ctx).get("convert", []):
        ok = [u for u in eligible(ctx, d["from"]) if u not in taken]
        ok.sort(key=lambda u: (ctx.untried(u), u))
        if ok:
            taken.add(ok[0])
            orders.setdefault("convert", []).append({"unit": ok[0], "guards": d["guards"]})
    hexes = entry_hexes(ctx) + sorted(set(md_neighbourhoods(ctx)) - set(entry_hexes(ctx)))
    entries, md_near = entry_hexes(ctx), md_neighbourhoods(ctx)
    entered = dict(ctx.position.get("entered", {}).get("hexes", {})) \
        if int(ctx.position.get("entered", {}).get("turn", -1)) == ctx.turn else {}
    if _separate_capacity(ctx):
        entered = {}  # RVGK entries in a player turn: a capacity of their own (Ambiguity 16)
    plan: dict[str, list[str]] = {}
    rvgk = sum(1 for s in ctx.units.values() if s["at"] == "rvgk")
    for u in mr_state(ctx).get("place", []):
        dest = ""
        for h in hexes:
            here = plan.get(h, [])
            if entry_problem(ctx, u, h, entries, md_near)[1] or entered.get(h, 0) + len(here) + 1 > stacking_limit(ctx, h):
                continue
            if stack_problems(ctx, h, ctx.occupants(h, "soviet") + here + [u]):
                continue
            dest = h
            break
        if not dest and rvgk < RVGK_LIMIT and u not in ctx.position.get("rvgk_used", []):
            dest, rvgk = "rvgk", rvgk + 1
        elif not dest and ctx.options.get("naval"):
            dest = "ports-box"
        if dest:
            plan.setdefault(dest, []).append(u)
    orders["place"] = [{"units": us, "hex": h} for h, us in plan.items()]
    return orders


# --- German diversions between the OKH areas (8.3, 8.5, 5.3) ------------------------------------

def divert(ctx: Ctx, raw: list[Any], problems: list[Problem]) -> None:
    """8.3: the German may divert units from the North OKH area to the South one, or back; the
    diversion takes one entire player-turn sequence: units diverted at the start of sequence n may
    enter the map from the German movement phase of sequence n + 1 (Ambiguity 15). 8.5: Italian,
    Romanian and Hungarian units never enter the North area; 5.3 (option gt1_restrictions): no
    German-side unit moves from one OKH area to the other on GT1. `divert` in `[declare]`."""
    where = path_of("declare", "divert")
    known = len(problems)
    if ctx.side != "german":
        problems.append(problem(where, "only the German diverts units between the OKH areas", "8.3"))
        return
    if ctx.options.get("gt1_restrictions") and ctx.turn == 1:
        problems.append(problem(where, "on GT1 no German-side unit may move from one OKH area to the other", "5.3"))
        return
    units: list[str] = []
    for j, u in enumerate(str(x) for x in raw):
        w = under(where, j)
        if u not in ctx.units or ctx.spec(u).side != "german":
            problems.append(problem(w, f"'{u}' is not a German-side unit", "8.3"))
        elif ctx.at(u) not in OKH_AREAS:
            problems.append(problem(w, f"{u} is not in an OKH area", "8.3"))
        elif okh_unavailable(ctx, u):
            problems.append(problem(w, f"{u} is already being diverted", "8.3"))
        elif ctx.at(u) == "okh-south" and ctx.spec(u).nat in SOUTH_OKH_NATIONS:
            problems.append(problem(w, f"{u} is {ctx.spec(u).nat.capitalize()}: Italian, Romanian and Hungarian units never "
                                       "enter the North OKH area", "8.5"))
        elif u in units:
            problems.append(problem(w, f"{u} is listed twice", "8.3"))
        else:
            units.append(u)
    if len(problems) > known:
        return
    turn, pts = (ctx.turn, ctx.pts + 1) if ctx.pts < (1 if ctx.turn == 1 else 2) else (ctx.turn + 1, 1)
    diverting = ctx.position.setdefault("diverting", {})
    for u in units:
        to = "okh-south" if ctx.at(u) == "okh-north" else "okh-north"
        ctx.units[u]["at"] = to
        diverting[u] = [turn, pts]
    if units:
        ctx.emit("divert", "8.3", units=units, turn=turn, pts=pts,
                 to={u: ctx.at(u) for u in units})


def clear_diversions(ctx: Ctx) -> None:
    """Diversions that have run their sequence are forgotten (8.3)."""
    d = ctx.position.get("diverting")
    if d:
        for u in [u for u, until in d.items() if (ctx.turn, ctx.pts) >= tuple(until)]:
            del d[u]
        if not d:
            ctx.position.pop("diverting", None)


def okh_text(ctx: Ctx) -> list[str]:
    """Template lines: the units in each OKH area and where they enter (8.2, 8.3)."""
    out = []
    for area in OKH_AREAS:
        units = sorted(u for u, s in ctx.units.items() if s["at"] == area)
        if units:
            out.append(f"#   {OFF_MAP_BOXES[area][7:]}: {', '.join(units)}; enter through {', '.join(okh_entry_hexes(ctx, area))}")
    return out
