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
from .data import MAJORS, NEUTRAL, VICHY

KEYS = ("declare",)


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


RENDER = {"war-declared": _declared}
