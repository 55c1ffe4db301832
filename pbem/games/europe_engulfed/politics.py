"""Declarations of war and the political events of the war (9.0, 9.11, 9.23, 9.25, 9.31, 9.51c,
9.52; I.B checks, I.D triggers), and conquest (10.0, NOT IN SOURCE: the provisional chart
``conquest``).

Declarations are made only in the initial operational movement phase (1.23), before the phase's
moves: ``[[declare]] nation = "germany", on = "ussr"``. Who may declare war on whom is ruled by
nation (never by party): Germany 9.11 (not on Vichy; Switzerland only once France is conquered or
Vichy declared; before Mar/Apr 1940 no minor but Poland unless enemy units are in Germany, A-41;
Belgium and the Netherlands one country), the USSR 9.23 (Germany: before Jan/Feb 1942 only when a
condition holds, A-49) and 9.25 (the Baltic States under the Pact; its Soviet units also enter the
neutral Pact areas without a declaration, allied_powers.pact_entry), Britain and the U.S.A. 9.31
(Germany; Norway and Denmark while at war with Germany; Vichy from Jan/Feb 1942, A-40; Portugal once
the Axis is at war with Spain; the U.S.A. only once it is in the war), France 9.51c (Germany only).
Italy's declarations (9.42) are the Axis politics' (a stand-in here: a nation of the other side).

A neutral declared on (9.6, NOT IN SOURCE; A-64) joins the other side at once: its areas become
controlled by that side and its forces are the scenario's set-up (provisional: the scenario places
them from the start).

What follows from a war, a conquest or a date happens at the moment it happens, each with an
event: the Pact (9.25) begins when Germany conquers Poland and ends with a German-Soviet war; the
U.S.A. enters the war at the start of Jan/Feb 1942 (I.C, option ``us_entry``); Vichy (9.52) may be
declared at the start of either player-turn (Germany controls Paris and traces supply to it) or at
the end of any phase (the Axis controls the five areas around Paris), the Axis player's standing
``vichy`` ("accept", the default, or "decline": a window declined never reopens); France
conquered instead: one French FP escapes to Britain (9.52). The Soviet and Western rules that are
not declarations are in allied_powers.py.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import axis_powers
from .context import Ctx, other
from .data import ALLIES, AXIS, MAJORS, NEUTRAL, NEUTRALS, VICHY, Turn

KEYS = ("declare",)
CHART_KEYS = frozenset({"rule", "known", "provisional", "note"})
ONE_COUNTRY = (frozenset({"belgium", "netherlands"}),)  # 9.11c
WESTERN = ("britain", "usa", "france")
VICHY_REGIONS = {"south": "the part of mainland France in the South weather zone, and Corsica",
                 "africa": "French North Africa", "levant": "the French Levant"}  # 9.52 a)-c)


def _pol(ctx: Ctx) -> dict[str, Any]:
    pol: dict[str, Any] = ctx.pos.setdefault("politics", {"war": [], "pact": False, "vichy": False})
    return pol


def side_at_war(ctx: Ctx, side: str, nation: str) -> bool:
    """Whether a nation of ``side`` is at war with ``nation`` (Axis minors fight Germany's wars)."""
    return any(ctx.at_war(n, nation) for n in _nations(ctx, side))


def _nations(ctx: Ctx, side: str) -> list[str]:
    return sorted(n for n in ctx.sc.units.nations if ctx.sc.units.nations[n].kind != "pool" and ctx.side_of_nation(n) == side)


def owners(ctx: Ctx, area: str, side: str) -> list[str]:
    """The nations of the other side that hold ``area`` against ``side``: those of its blocks there,
    else the nation whose home (or country) the area is, when that nation is the other side's."""
    enemy = other(side)
    held = sorted({ctx.nation(u) for u in ctx.side_in(area, enemy)} | set(ctx.side_gs(area, enemy)))
    if held:
        return held
    if ctx.controller(area) != enemy:
        return []
    a = ctx.area(area)
    for n in (a.home, a.country, a.associated):
        if n and n in ctx.sc.units.nations and ctx.side_of_nation(n) == enemy:
            return [n]
    return []


def may_enter(ctx: Ctx, side: str, area: str) -> str:
    """1.23: why ``side``'s blocks may not enter ``area`` (a nation there it is not at war with), or ""."""
    if ctx.controller(area) in (NEUTRAL, VICHY):
        return ""  # movement refuses neutral and Vichy areas itself
    peace = [n for n in owners(ctx, area, side) if not side_at_war(ctx, side, n)]
    if peace:
        return f"the {side} are not at war with {', '.join(peace)}: a declaration of war comes first ([[declare]], 1.23)"
    return ""


# --- conquest (10.0, NOT IN SOURCE: the provisional chart `conquest`) ---------------------------

def conqueror(ctx: Ctx, nation: str) -> str:
    """10.0 (NOT IN SOURCE; provisional chart ``conquest``): the side that conquers ``nation`` now,
    i.e. a side at war with it controls every area the chart lists for it; "" when none does (a
    nation not listed, or listed with no area, is never conquered)."""
    areas = [str(a) for a in ctx.sc.charts["conquest"].data.get(nation, []) or []] if nation not in CHART_KEYS else []
    if not areas:
        return ""
    held = {ctx.controller(a) for a in areas}
    if len(held) != 1:
        return ""
    (side,) = held
    if side not in (AXIS, ALLIES) or side == ctx.side_of_nation(nation) or not side_at_war(ctx, side, nation):
        return ""
    return side


def conquered(ctx: Ctx, nation: str) -> bool:
    """10.0 (provisional): whether ``nation`` is conquered: once conquered (``politics.conquered``,
    recorded at the end of the phase it happens) it stays so; else whether it is conquered now."""
    return nation in _pol(ctx).get("conquered", {}) or bool(conqueror(ctx, nation))


# --- declarations (1.23, 9.11, 9.23, 9.25, 9.31, 9.51c) -----------------------------------------

def _enemy_in_germany(ctx: Ctx) -> bool:
    """9.11b: enemy units have entered Germany (checked in the German player-turn's first step,
    which is its start as far as the Allies' units go)."""
    return any(ctx.area(ctx.at(u)).home == "germany" for u in ctx.side_units(other(ctx.side_of_nation("germany"))))


def _german(ctx: Ctx, on: str) -> tuple[str, str]:
    """9.11: Germany's declarations."""
    if on == VICHY:
        return "Germany may never declare war on Vichy France", "9.11a"
    if on == "switzerland" and not (conquered(ctx, "france") or _pol(ctx).get("vichy")):
        return "Germany may not declare war on Switzerland until it has conquered France or declared Vichy", "9.11a"
    start = Turn.parse(str(ctx.option("minor_war_from")))
    if on in NEUTRALS and on != "poland" and ctx.turn < start and not _enemy_in_germany(ctx):
        return (f"before {start.label} Germany declares war on no minor power but Poland, unless enemy units have "
                "entered Germany", "9.11b (A-41)")
    return "", ""


def soviet_may_declare(ctx: Ctx) -> tuple[bool, str]:
    """9.23 (A-49): whether the USSR may declare war on Germany in this Allied player-turn, and why:
    from Jan/Feb 1942 freely; before, only if (a) fewer than 5 German ground units are in Poland and
    East Prussia (from Jan/Feb 1940; fewer than 10 from Mar/Apr 1941), (b) Germany controls an area
    of Britain with a non-airborne unit there, or (c) Germany has declared war on or conquered Turkey."""
    if ctx.turn >= Turn.parse("1942-jan"):
        return True, "from Jan/Feb 1942 the USSR declares war freely (9.23)"
    why = []
    if ctx.turn >= Turn.parse("1940-jan"):
        limit = 10 if ctx.turn >= Turn.parse("1941-mar") else 5
        there = [u for u in ctx.units if ctx.nation(u) == "germany"
                 and (ctx.area(ctx.at(u)).country == "poland" or ctx.at(u) == "east-prussia")]
        if len(there) < limit:
            why.append(f"(a) {len(there)} German ground unit(s) in Poland and East Prussia, fewer than {limit}")
    kinds = {t for t in ctx.sc.units.types if t != "airborne"}
    for a in sorted(x for x, ar in ctx.sc.map.areas.items() if ar.country == "britain"):
        if ctx.controller(a) == ctx.side_of_nation("germany") and any(
                ctx.nation(u) == "germany" and ctx.need(u, kinds, "9.23b", f"held {a} for the Soviet declaration")
                for u in ctx.units_in(a)):
            why.append(f"(b) Germany controls {a} with a non-airborne unit there")
            break
    if ctx.at_war("germany", "turkey") or conquered(ctx, "turkey"):
        why.append("(c) Germany has declared war on or conquered Turkey")
    return bool(why), "; ".join(why)


def _soviet(ctx: Ctx, on: str) -> tuple[str, str]:
    """9.23, 9.25: the USSR's declarations."""
    if on == "germany":
        ok, _ = soviet_may_declare(ctx)
        if not ok:
            return ("before Jan/Feb 1942 the USSR declares war on Germany only if fewer than 5 German ground units (10 from "
                    "Mar/Apr 1941) are in Poland and East Prussia, Germany holds an area of Britain with a non-airborne "
                    "unit, or Germany has declared war on or conquered Turkey", "9.23 (A-49)")
        return "", ""
    if on == "baltic-states":
        if not _pol(ctx).get("pact"):
            return "the USSR occupies the Baltic States only under the Nazi-Soviet Pact", "9.25"
        return "", ""
    return "the USSR declares war only on Germany (9.23), and occupies the Baltic States under the Pact (9.25)", "9.23"


def _western(ctx: Ctx, n: str, on: str) -> tuple[str, str]:
    """9.31, 9.51c: the declarations of Britain, the U.S.A. and France."""
    if n == "france":
        return ("", "") if on == "germany" else ("France may declare war only on Germany", "9.51c")
    if n == "usa" and not us_at_war(ctx):
        return "the U.S.A. is not yet in the war (it enters in Jan/Feb 1942, I.C)", "9.31"
    if on == "germany":
        return "", ""
    if on in ("norway", "denmark"):
        if not ctx.at_war(n, "germany"):
            return f"{n} declares war on {on} only while at war with Germany", "9.31"
        return "", ""
    if on == VICHY:
        start = Turn.parse(str(ctx.option("vichy_war_from")))
        if not _pol(ctx).get("vichy"):
            return "Vichy France has not been declared", "9.31"
        if ctx.turn < start:
            return f"war on Vichy France is declared from {start.label}", "9.31 (A-40)"
        return "", ""
    if on == "portugal":
        if not any(ctx.at_war(a, "spain") for a in _nations(ctx, ctx.side_of_nation("germany"))):
            return "war on Portugal only after the Axis has declared war on Spain", "9.31"
        return "", ""
    return f"besides Germany, {n} declares war only on Norway, Denmark, Vichy France and Portugal", "9.31"


def declaration_problem(ctx: Ctx, n: str, on: str) -> tuple[str, str]:
    """Why ``n`` may not declare war on ``on`` now ("" when it may), with the rule."""
    if n == "germany":
        return _german(ctx, on)
    if n == "ussr":
        return _soviet(ctx, on)
    if n in WESTERN:
        return _western(ctx, n, on)
    return axis_powers.italian_declaration(ctx, on) if n == "italy" else ("", "")  # 9.42: the Axis politics


def _targets(ctx: Ctx, on: str) -> list[str]:
    for group in ONE_COUNTRY:
        if on in group:
            return sorted(group)
    return [on]


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """1.23: each declaration is a major power's of the phasing side, on a nation not of its side
    it is not yet at war with, within the limits of its nation (9.11, 9.23, 9.25, 9.31, 9.51c)."""
    seen: set[tuple[str, str]] = set()
    for i, d in enumerate(body.get("declare", [])):
        w = f"declare[{i}]"
        n, on = str(d.get("nation", "")), str(d.get("on", ""))
        if n not in MAJORS or ctx.side_of_nation(n) != ctx.side:
            problems.append(Problem(f"{w}.nation", f"'{n[:40]}' is not a major power of the {ctx.side}", "1.23"))
            continue
        known = on in ctx.sc.units.nations and ctx.sc.units.nations[on].kind != "pool"
        if on != VICHY and (not known and on not in NEUTRALS or (on not in NEUTRALS and ctx.side_of_nation(on) == ctx.side)):
            problems.append(Problem(f"{w}.on", f"'{on[:40]}' is not a nation of the other side nor a neutral", "1.23"))
            continue
        if on in NEUTRALS and ctx.side_of_nation(on) == ctx.side and any(ctx.at_war(x, on) for x in MAJORS):
            problems.append(Problem(f"{w}.on", f"{on} is at war on the {ctx.side}' side", "1.23"))
            continue
        if ctx.at_war(n, on) or (n, on) in seen:
            problems.append(Problem(w, f"{n} is already at war with {on}", "1.23"))
            continue
        text, rule = declaration_problem(ctx, n, on)
        if text:
            problems.append(Problem(w, text, rule))
            continue
        seen.add((n, on))
        _declare(ctx, n, on, quiet=True)


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.23: the declarations, made before the phase's moves."""
    for d in body.get("declare", []):
        _declare(ctx, str(d["nation"]), str(d["on"]))


def _war(ctx: Ctx, a: str, b: str) -> None:
    pol = _pol(ctx)
    if not ctx.at_war(a, b):
        pol["war"] = sorted([*pol.get("war", []), sorted([a, b])])


def _declare(ctx: Ctx, n: str, on: str, quiet: bool = False, rule: str = "1.23") -> None:
    if n not in MAJORS or ctx.at_war(n, on):
        return
    pol = _pol(ctx)
    side = ctx.side_of_nation(n)
    joined: dict[str, list[str]] = {}
    for t in _targets(ctx, on):
        neutral = t in NEUTRALS and not any(ctx.at_war(x, t) for x in MAJORS)
        _war(ctx, n, t)
        if neutral:  # 9.6 (NOT IN SOURCE), A-64: the neutral joins the other side at once
            areas = sorted(a for a, ar in ctx.sc.map.areas.items() if ar.country == t and ar.ground
                           and ctx.controller(a) == NEUTRAL)
            for a in areas:
                ctx.control[a] = other(side)
            if areas:
                joined[t] = areas
    ended = bool({n, on} == {"germany", "ussr"} and pol.get("pact"))
    if ended:
        pol["pact"] = False
    if not quiet:
        ctx.emit("war-declared", rule, nation=n, on=on, pact_ended=ended, also=[t for t in _targets(ctx, on) if t != on],
                 joined=joined, provisional=bool(joined))
    if {n, on} == {"germany", "ussr"}:
        soviet_war_begins(ctx, quiet)


def soviet_war_began(ctx: Ctx) -> Turn | None:
    """The game turn the German-Soviet war began (``politics.soviet_war``: ``TURN/SIDE``, the first
    player-turn of the war), None while Germany and the USSR are at peace."""
    if not ctx.at_war("germany", "ussr"):
        return None
    at = str(_pol(ctx).get("soviet_war", ""))
    return Turn.parse(at.split("/")[0]) if at else ctx.turn


def soviet_war_begins(ctx: Ctx, quiet: bool = False) -> None:
    """I.D, Germany-USSR at war: the Pact and Up-Front Defence end (9.25, 9.26); Soviet production 34
    (9.24c, A-50), cadre relief until 1943 (9.24d), 4 free elite infantry the next Jan/Feb (9.24e),
    Emergency Conscription available (9.24f), lend-lease to the USSR (9.34, 9.35)."""
    pol = _pol(ctx)
    if pol.get("free_elite"):
        return
    pol.setdefault("soviet_war", f"{ctx.turn.key}/{ctx.side}")  # the first player-turn of the war (also 9.17c's)
    pol["pact"] = False
    nxt = ctx.turn.plus(1)
    while nxt.key.split("-")[1] != "jan":
        nxt = nxt.plus(1)
    pol["free_elite"] = nxt.key
    if not quiet:
        ctx.emit("soviet-war", "9.24", turn=ctx.turn.key, free_elite=nxt.key)


# --- the U.S.A. enters the war (I.C: Jan/Feb 1942) ------------------------------------------------

def us_at_war(ctx: Ctx) -> bool:
    """9.32: the U.S.A. is at war (with a major power of the other side)."""
    return any(ctx.at_war("usa", m) for m in MAJORS if ctx.side_of_nation(m) != ctx.side_of_nation("usa"))


def _us_entry(ctx: Ctx) -> None:
    """I.C (9.34 implies it; the rule that fixes it is NOT IN SOURCE): at the start of the entry
    turn (option ``us_entry``) the U.S.A. is at war with Germany and every nation at war with Britain
    on the Axis side."""
    when = str(ctx.option("us_entry"))
    if when == "never" or us_at_war(ctx) or ctx.turn < Turn.parse(when):
        return
    enemies = sorted({"germany"} | {m for m in MAJORS if ctx.at_war("britain", m)})
    for e in enemies:
        _war(ctx, "usa", e)
    _pol(ctx)["us_entry"] = ctx.turn.key
    ctx.emit("us-entry", "9.34", turn=ctx.turn.key, at_war_with=enemies)


# --- Vichy (9.52) ------------------------------------------------------------------------------

def _around_paris(ctx: Ctx) -> list[str]:
    return sorted(n for n in ctx.neighbours("paris") if ctx.area(n).kind == "land")


def _vichy_window(ctx: Ctx, when: str) -> str:
    """9.52: why Germany may declare Vichy now, or "": (1) at the start of either player-turn
    Germany controls Paris and traces supply to it; (2) at the end of any phase the Axis controls the
    five areas around Paris."""
    pol = _pol(ctx)
    if pol.get("vichy") or pol.get("vichy_declined") or conquered(ctx, "france"):
        return ""
    axis = ctx.side_of_nation("germany")
    if when == "start" and ctx.controller("paris") == axis:
        from . import supply  # supply imports nothing of politics; imported here to keep the module light
        if supply.traces(ctx, "paris", "germany"):
            return "9.52(1): Germany controls Paris and traces supply to it at the start of a player-turn"
    if when == "end" and all(ctx.controller(a) == axis for a in _around_paris(ctx)):
        return f"9.52(2): the Axis controls the five areas around Paris ({', '.join(_around_paris(ctx))}) at the end of a phase"
    return ""


def vichy_regions(ctx: Ctx) -> dict[str, list[str]]:
    """9.52 a)-c): the areas of each Vichy region."""
    out: dict[str, list[str]] = {"south": [], "africa": [], "levant": []}
    for a, ar in sorted(ctx.sc.map.areas.items()):
        if ar.kind != "land":
            continue
        if ar.home == "france" and ar.weather == "south":
            out["south"].append(a)
        elif ar.country == "french-north-africa":
            out["africa"].append(a)
        elif ar.country == "french-levant":
            out["levant"].append(a)
    return out


def _nearest_axis(ctx: Ctx, start: str, vichy: set[str]) -> str:
    axis = ctx.side_of_nation("germany")
    seen, frontier = {start}, [start]
    while frontier:
        nxt: list[str] = []
        for a in frontier:
            for b in sorted(ctx.neighbours(a)):
                if b in seen or not ctx.area(b).ground:
                    continue
                if ctx.controller(b) == axis and b not in vichy:
                    return b
                seen.add(b)
                nxt.append(b)
        frontier = sorted(nxt)
    return ""


def declare_vichy(ctx: Ctx, why: str) -> None:
    """9.52: Vichy France is set up. Its three regions become Vichy territory (pro-Axis neutral,
    capital Lyon); a French infantry unit of 2 steps stands in one area of each (the Axis player's
    standing ``vichy_units``, default Marseille, Morocco, Lebanon: kept as public garrisons in
    ``politics.vichy_units``; they never move and are always in supply); every French FP is removed
    (A-55); French ground units in Vichy territory are removed (A-55: NOT IN SOURCE, provisional);
    Axis units there go to the nearest Axis-controlled area. I.D: Italy enters the war (9.42, the
    Axis politics), Switzerland may be attacked (9.11a), the Maginot Line is gone (6.84), the limits
    on Italian sea transport begin (9.12)."""
    pol = _pol(ctx)
    pol["vichy"] = True
    regions = vichy_regions(ctx)
    territory = {a for v in regions.values() for a in v}
    allies, axis = ctx.side_of_nation("france"), ctx.side_of_nation("germany")
    for a in sorted(territory):  # an area held by other Allied units than French stays theirs
        if ctx.controller(a) == axis or (ctx.controller(a) == allies
                                         and not any(ctx.nation(u) != "france" for u in ctx.side_in(a, allies))):
            ctx.control[a] = VICHY
    removed = []
    for u in sorted(ctx.units):
        at = ctx.at(u)
        if at not in territory:
            continue
        if ctx.nation(u) == "france":
            removed.append(u)
            ctx.eliminate(u, "9.52", "a French unit in Vichy territory when Vichy is declared (A-55, provisional)")
        elif ctx.side_of(u) == ctx.side_of_nation("germany"):
            to = _nearest_axis(ctx, at, territory)
            if to:
                ctx.place(u, to)
                ctx.emit("vichy-moved", "9.52", unit=u, frm=at, to=to)
    standing = ctx.standing.get(ctx.side_of_nation("germany"), {}).get("vichy_units", {})
    placed = {}
    for region, default in (("south", "marseille"), ("africa", "morocco"), ("levant", "lebanon")):
        area = str(standing.get(region, default))
        if area not in regions[region]:
            area = default
        placed[area] = 2
    pol["vichy_units"] = dict(sorted(placed.items()))
    fleets = sum(int(by.pop("france", 0)) for by in ctx.pos.get("fleets", {}).values())
    ctx.emit("vichy", "9.52", why=why, regions={k: v for k, v in regions.items()}, garrisons=pol["vichy_units"],
             french_fp_removed=fleets, removed=removed, provisional=bool(removed))


def _france_conquered(ctx: Ctx) -> None:
    """9.52: France conquered instead of Vichy: one French FP (the Allied standing ``french_fleet``,
    default the Atlantic) escapes to Britain, replaced by a British FP in the same sea zone; the rest
    are removed."""
    fleets = ctx.pos.get("fleets", {})
    want = str(ctx.standing.get(ctx.side_of_nation("france"), {}).get("french_fleet", "atlantic"))
    seas = [s for s in ("atlantic", "mediterranean") if int(fleets.get(s, {}).get("france", 0))]
    escape = want if want in seas else (seas[0] if seas else "")
    removed = sum(int(by.pop("france", 0)) for by in fleets.values())
    if escape:
        fleets[escape]["britain"] = int(fleets[escape].get("britain", 0)) + 1
        fleets[escape] = dict(sorted(fleets[escape].items()))
        removed -= 1
    ctx.emit("french-fleet", "9.52", escaped=escape, removed=removed)


# --- fixed points (I.B) and triggers (I.D) --------------------------------------------------------

def _vichy_offer(ctx: Ctx, when: str) -> None:
    why = _vichy_window(ctx, when)
    if not why:
        return
    choice = str(ctx.standing.get(ctx.side_of_nation("germany"), {}).get("vichy", "accept"))
    if choice == "decline":
        _pol(ctx)["vichy_declined"] = True
        ctx.emit("vichy-declined", "9.52", why=why)
        return
    declare_vichy(ctx, why)


def _paris(ctx: Ctx) -> None:
    """I.D: Germany controls Paris (for the first time): US lend-lease to Britain from the next Allied
    player-turn (9.34), British units may enter French North Africa and the Levant (9.51b), the Axis
    minors join and Italy may enter the war (9.15, 9.42: the Axis politics)."""
    pol = _pol(ctx)
    if pol.get("paris") or ctx.controller("paris") != ctx.side_of_nation("germany"):
        return
    pol["paris"] = ctx.turn.key
    ctx.emit("paris", "9.34", turn=ctx.turn.key)


def start_player_turn(ctx: Ctx) -> None:
    """The start of either player-turn (I.B): the U.S.A.'s entry (I.C), the Vichy window (9.52(1))."""
    _us_entry(ctx)
    _paris(ctx)
    _vichy_offer(ctx, "start")


def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of every phase (I.B, I.D): the conquests made in it (10.0, provisional) are
    recorded, each with its event, and what follows from them happens at once; Germany controlling
    Paris; the Vichy window (9.52(2))."""
    pol = _pol(ctx)
    for n in sorted(k for k in ctx.sc.charts["conquest"].data if k not in CHART_KEYS):
        if n in pol.get("conquered", {}):
            continue
        side = conqueror(ctx, n)
        if not side:
            continue
        pol["conquered"] = dict(sorted({**pol.get("conquered", {}), n: side}.items()))
        areas = sorted(str(a) for a in ctx.sc.charts["conquest"].data[n])
        ctx.emit("nation-conquered", "10.0", nation=n, by=side, areas=areas, phase=rule, provisional=True)
        _after_conquest(ctx, n, side)
    _paris(ctx)
    _vichy_offer(ctx, "end")


def _after_conquest(ctx: Ctx, nation: str, side: str) -> None:
    """I.D: what a conquest sets off. Germany conquers Poland: the Nazi-Soviet Pact (9.25); France
    conquered: its fleet (9.52)."""
    pol = _pol(ctx)
    if nation == "poland" and side == ctx.side_of_nation("germany") and not ctx.at_war("germany", "ussr") \
            and not pol.get("pact"):
        pol["pact"] = True
        ctx.emit("pact", "9.25", began=True)
    if nation == "france" and not pol.get("vichy"):
        _france_conquered(ctx)


def maginot_destroyed(ctx: Ctx) -> bool:
    """6.84, I.D: the Maginot Line is gone once Vichy is declared or France conquered."""
    return bool(_pol(ctx).get("vichy")) or conquered(ctx, "france")


# --- reports ------------------------------------------------------------------------------------
def _name(n: Any) -> str:
    return {"ussr": "the USSR", "usa": "the U.S.A.", "vichy": "Vichy France"}.get(str(n), str(n).capitalize())


def _declared(e: Event) -> list[str]:
    d = e.data
    who = _name(d["nation"])
    line = f"- {who[0].upper()}{who[1:]} declares war on {_name(d['on'])} ({e.rule})."
    if d.get("also"):
        line += f" Belgium and the Netherlands count as one country: war on {', '.join(map(_name, d['also']))} too (9.11c)."
    for n, areas in sorted(d.get("joined", {}).items()):
        line += (f" {_name(n)}, neutral until now, joins the other side: it controls {', '.join(areas)} and its forces are "
                 "the scenario's set-up (9.6 NOT IN SOURCE, A-64; provisional).")
    if d.get("pact_ended"):
        line += " The Nazi-Soviet Pact ends (9.25)."
    return [line]


def _conquered(e: Event) -> list[str]:
    d = e.data
    return [f"- {_name(d['nation'])} is conquered by the {d['by']}: they control {', '.join(d['areas'])} "
            f"at the end of the phase ({d['phase']}; 10.0, provisional: the conquest chart stands in for 10.0, NOT IN SOURCE)."]


def _pact(e: Event) -> list[str]:
    if e.data.get("began"):
        return ["- Germany has conquered Poland: the Nazi-Soviet Non-Aggression Pact is in force (9.25); the Soviet "
                "Up-Front Defence applies at the end of every Allied player-turn (9.26)."]
    return ["- The Nazi-Soviet Pact ends: Germany and the USSR are at war (9.25)."]


def _soviet_war(e: Event) -> list[str]:
    return [f"- Germany and the USSR are at war: the Pact and the Up-Front Defence end (9.25, 9.26); Soviet production is "
            f"34 WERPs from its next Production Phase (9.24c, A-50); a new unit's cadre step costs the normal step cost "
            f"until 1943 (9.24d); 4 free elite infantry units come in {Turn.parse(str(e.data['free_elite'])).label} "
            "(9.24e); Emergency Conscription may be declared (9.24f); lend-lease may go to the USSR (9.34, 9.35)."]


def _us_entry_line(e: Event) -> list[str]:
    return [f"- The U.S.A. enters the war in {Turn.parse(str(e.data['turn'])).label} (I.C; option us_entry): at war with "
            f"{', '.join(map(_name, e.data['at_war_with']))}; US lend-lease to Britain and the USSR ends (9.34), the U.S.A. "
            "produces (9.32)."]


def _vichy_line(e: Event) -> list[str]:
    d = e.data
    g = ", ".join(f"{a} ({s} steps)" for a, s in d["garrisons"].items())
    line = (f"- Vichy France is declared ({d['why']}): {', '.join(VICHY_REGIONS.values())} become Vichy territory, a "
            f"pro-Axis neutral with its capital at Lyon; Vichy French infantry in {g}, always in supply, never moving; "
            f"{d['french_fp_removed']} French FP removed (9.52, A-55).")
    if d.get("removed"):
        line += f" French units in Vichy territory removed: {', '.join(d['removed'])} (A-55; provisional)."
    return [line + " The Maginot Line is gone (6.84); Switzerland may be attacked (9.11a)."]


def _vichy_moved(e: Event) -> list[str]:
    return [f"- {e.data['unit']} leaves Vichy territory ({e.data['frm']}) for the nearest Axis-controlled area, {e.data['to']} (9.52)."]


def _vichy_declined(e: Event) -> list[str]:
    return [f"- Germany declines to declare Vichy ({e.data['why']}; its standing `vichy = \"decline\"`): the option never "
            "returns, France must be conquered (9.52)."]


def _french_fleet(e: Event) -> list[str]:
    d = e.data
    esc = f"one French FP escapes to Britain in the {d['escaped']} (a British FP now)" if d["escaped"] else "no French FP escapes"
    return [f"- France is conquered: {esc}; {d['removed']} French FP removed (9.52)."]


def _paris_line(e: Event) -> list[str]:
    return ["- Germany controls Paris (I.D): US lend-lease to Britain from the next Allied player-turn (9.34); British units "
            "may enter French North Africa and the French Levant (9.51b)."]


RENDER = {"war-declared": _declared, "nation-conquered": _conquered, "pact": _pact, "soviet-war": _soviet_war,
          "us-entry": _us_entry_line, "vichy": _vichy_line, "vichy-moved": _vichy_moved, "vichy-declined": _vichy_declined,
          "french-fleet": _french_fleet, "paris": _paris_line}
