"""Declarations of war in the initial operational movement phase (1.23), as far as the land war
needs them: a side's blocks enter an enemy area, or attack there, only against nations their side
is at war with. The political rules that limit declarations and follow from them (9.11, 9.23,
9.25, 9.31, 9.42, 9.51, the set-up of a neutral's forces 9.6, J-4 e) come with the whole war: here a
major power of the phasing side declares war on a nation of the other side, and the Nazi-Soviet
Pact (9.25) ends with a war between Germany and the USSR.

Order (the movement step, made before the moves: ``[[declare]] nation = "germany", on = "ussr"``).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from .context import Ctx, other
from .data import ALLIES, AXIS, MAJORS, NEUTRAL, VICHY

KEYS = ("declare",)
CHART_KEYS = frozenset({"rule", "known", "provisional", "note"})


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
    return nation in ctx.pos.get("politics", {}).get("conquered", {}) or bool(conqueror(ctx, nation))


def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of every phase (I.B, I.D): the conquests made in it (10.0, provisional) are
    recorded, each with its event, and what follows from them happens at once."""
    pol = ctx.pos.setdefault("politics", {"war": [], "pact": False, "vichy": False})
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


def _after_conquest(ctx: Ctx, nation: str, side: str) -> None:
    """I.D: what a conquest sets off. Germany conquers Poland: the Nazi-Soviet Pact (9.25)."""
    pol = ctx.pos["politics"]
    if nation == "poland" and side == AXIS and not ctx.at_war("germany", "ussr") and not pol.get("pact"):
        pol["pact"] = True
        ctx.emit("pact", "9.25", began=True)


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


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """1.23: a major power of the phasing side declares war on a nation of the other side it is not
    yet at war with."""
    seen: set[tuple[str, str]] = set()
    for i, d in enumerate(body.get("declare", [])):
        w = f"declare[{i}]"
        n, on = str(d.get("nation", "")), str(d.get("on", ""))
        if n not in MAJORS or ctx.side_of_nation(n) != ctx.side:
            problems.append(Problem(f"{w}.nation", f"'{n[:40]}' is not a major power of the {ctx.side}", "1.23"))
            continue
        if on not in ctx.sc.units.nations or ctx.sc.units.nations[on].kind == "pool" or ctx.side_of_nation(on) == ctx.side:
            problems.append(Problem(f"{w}.on", f"'{on[:40]}' is not a nation of the other side (declarations on neutral "
                                    "countries, 9.11 and 9.6, come with the whole war)", "1.23"))
            continue
        if ctx.at_war(n, on) or (n, on) in seen:
            problems.append(Problem(w, f"{n} is already at war with {on}", "1.23"))
        seen.add((n, on))
    for d in body.get("declare", []):
        _declare(ctx, str(d.get("nation", "")), str(d.get("on", "")), quiet=True)


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.23: the declarations, made before the phase's moves."""
    for d in body.get("declare", []):
        _declare(ctx, str(d["nation"]), str(d["on"]))


def _declare(ctx: Ctx, n: str, on: str, quiet: bool = False) -> None:
    if n not in MAJORS or on not in ctx.sc.units.nations or ctx.at_war(n, on):
        return
    pol = ctx.pos.setdefault("politics", {"war": [], "pact": False, "vichy": False})
    pol["war"] = sorted([*pol.get("war", []), sorted([n, on])])
    ended = bool({n, on} == {"germany", "ussr"} and pol.get("pact"))
    if ended:
        pol["pact"] = False
    if not quiet:
        ctx.emit("war-declared", "1.23", nation=n, on=on, pact_ended=ended)


def _declared(e: Event) -> list[str]:
    d = e.data
    line = f"- {str(d['nation']).capitalize()} declares war on {d['on']} ({e.rule})."
    if d.get("pact_ended"):
        line += " The Nazi-Soviet Pact ends (9.25)."
    return [line]


def _conquered(e: Event) -> list[str]:
    d = e.data
    return [f"- {str(d['nation']).capitalize()} is conquered by the {d['by']}: they control {', '.join(d['areas'])} "
            f"at the end of the phase ({d['phase']}; 10.0, provisional: the conquest chart stands in for 10.0, NOT IN SOURCE)."]


def _pact(e: Event) -> list[str]:
    if e.data.get("began"):
        return ["- Germany has conquered Poland: the Nazi-Soviet Non-Aggression Pact is in force (9.25); the Soviet "
                "Up-Front Defence applies at the end of every Allied player-turn (9.26)."]
    return ["- The Nazi-Soviet Pact ends: Germany and the USSR are at war (9.25)."]


RENDER = {"war-declared": _declared, "nation-conquered": _conquered, "pact": _pact}
