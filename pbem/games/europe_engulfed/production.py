"""Production (1.22, 4.x; J-3 main production): WERPs, naval maintenance, replacement, new units,
ground-support markers, special actions (7.1, 7.11, 7.12), special replacement (7.8), field and
heavy fortifications (6.9x), and the bookkeeping of fleet points, ASW and Flak (4.6x).

The phasing side's nations produce one at a time (4.5), majors first in the order of D-4, then any
other nation named. Per nation: the WERPs produced (4.1, 4.11-4.14, 4.7a), naval maintenance paid
first (4.2, 4.21, A-17), then the orders in this order: special replacements (7.8: the SAs spent
come from those held before the phase), replacements (4.3x), new units (4.4x), fortifications
(6.9x), purchases (GS, SAs, FPs, ASW, Flak). WERPs left are recorded (position ``werps``) and never
carried over (4.1).

Strategic damage (2.0, 1.22: strategic.py, the J-3 sub-step run first) is an income line before
naval maintenance. The Axis politics are axis_powers.py's (hooks here): Swedish ore (9.14),
Ploesti (9.15, 9.19), Italy's production (9.42, 9.45c, A-16), German aid to Italy (9.43), the Axis
minors' steps paid with German WERPs and their free step (9.15), full strength only at home (9.16),
the Russian winter (9.13). Planned (the rest of section 9; the simplest stand-in, nothing):
lend-lease (9.34-9.36), the USSR's peacetime and wartime production (9.24: the scenario's
``production`` stands for it), the Soviet cadre rule and conscription (9.24d, 9.24f, 9.24g), the
British +1 per step (9.38, A-44), Vichy (9.52), Pact areas (9.25), Italy's conquest lifting 6.95a.

Fog of war (4.5, J-0): in a game without a referee a build's type and steps and a replacement's
steps are the owner's hidden values. The file then names only the nation, the area and the id of a
build and the unit of a replacement, and ``hidden_werps = { NATION = n }`` the WERPs they cost
together. Each gets a new hidden item (a build: its id; a replacement: the unit's next item,
``ID.2``, ``ID.3`` ...), with claims the opening must satisfy (fog.py):
``{"built": NATION, "area": AREA, "rule": "4.4"}`` (a block of the nation's force pool, at the
elite the id says), ``{"replaces": OLD_ITEM, "upto": "full" | "less-one", "rule": "4.32"}`` (more
steps than before, at most full strength or one below it), ``{"types": [...], "rule": "4.41"}``
(no armor in a swamp), and ``{"werps": n, "nation": NATION, "items": [...], "rule": "4.5"}`` (the
items' costs by 4.43 add up to the WERPs announced).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import allied_powers, axis_powers, strategic, supply
from .context import Ctx, nation_code, other
from .data import AXIS_MINORS, MAJORS, NATIONS, Turn

KEYS = ("production",)

# 4.32a: the countries where in-supply German units are replaced to full strength.
GERMAN_FULL = frozenset({"germany", "italy", "france", "belgium", "netherlands", "denmark", "hungary", "poland"})
NO_PLACEMENT = frozenset({"leningrad-fortress", "sevastopol"})  # 4.41
FORT_WEATHER = frozenset({"clear", "light-mud"})  # 6.91
CONQUERORS = frozenset({"germany", "ussr"})  # 4.11 (A-15: only these, and Britain's Alexandria)
ASW_NATIONS = frozenset({"britain"})  # 2.1: the British player's ASW level (the U.S.A.'s share, 9.32, planned)
FLEET_YEARLY_DEFAULT = ("germany", "italy", "ussr")  # 4.63


def step_cost(ctx: Ctx, block: str, cadre: bool = False) -> int:
    """4.43: the WERPs of one step of a block type: by its unit type, elite x2 (4.43a), a cadre
    step x2 except militia (4.43b; the 4.43 example: an elite armor cadre step costs 8). The Soviet
    cadre at the normal cost (9.24d), the Soviet +1 (9.24g) and the British +1 (9.38) are
    allied_powers.step_cost's."""
    base = ctx.sc.units.step_cost(block, cadre)
    return allied_powers.step_cost(ctx, ctx.sc.units.blocks[block].nation, base, cadre, ctx.sc.units.step_cost(block))


def build_cost(ctx: Ctx, block: str, steps: int) -> int:
    """4.4, 4.43b: a new block pays its cadre step, then each further step as a replacement."""
    return step_cost(ctx, block, True) + (steps - 1) * step_cost(ctx, block)


def _chart(ctx: Ctx, table: str) -> dict[str, Any]:
    return dict(ctx.sc.charts[table].data)


def sa_limit(ctx: Ctx, nation: str) -> int:
    """7.11 (T-14): the most SAs the nation may hold this year (0 for a nation without a row)."""
    limit = 0
    for row in _chart(ctx, "t14_special_actions").get(nation, []):
        if int(row["from"]) <= ctx.turn.year:
            limit = int(row["limit"])
    return limit


def _line(what: str, werps: int, rule: str) -> dict[str, Any]:
    return {"what": what, "werps": werps, "rule": rule}


def _own_side_homes(ctx: Ctx, nation: str) -> frozenset[str]:
    """The nations whose home areas are not conquests of ``nation``: itself and the producing
    nations of its side (the majors and, for the Axis, its minors, 9.15)."""
    side = ctx.side_of_nation(nation)
    return frozenset({nation} | {m for m in (*MAJORS, *AXIS_MINORS) if ctx.side_of_nation(m) == side})


def income(ctx: Ctx, nation: str) -> list[dict[str, Any]]:
    """4.1, 4.11-4.14, 4.7a: the WERPs a nation receives, line by line with the rules."""
    side = ctx.side_of_nation(nation)
    if nation in AXIS_MINORS:  # 9.15: an Axis minor's steps are paid with German WERPs
        return [_line("German WERPs left for the Axis minors' steps", axis_powers.german_left(ctx), "9.15")]
    own_basic = axis_powers.basic(ctx, nation)  # 9.42, 9.45c: Italy
    lines = [_line("basic production (scenario)", int(ctx.sc.production.get(nation, 0)), "4.14") if own_basic is None
             else _line(own_basic[1], own_basic[0], own_basic[2])]
    section9 = allied_powers.basic(ctx, nation)  # 9.24a-c, 9.32
    if section9 is not None:
        lines = [_line(f"basic production: {section9[1]}", section9[0], section9[2])]
    amap = ctx.sc.map
    for a in sorted(amap.areas):
        ar = amap.areas[a]
        if ar.resource <= 0 or ar.home != nation or ar.kind != "land":
            continue
        if ctx.controller(a) != side:  # 4.12: the home area's share of the basic production lost
            lines.append(_line(f"{ar.name}: home resource area not friendly-controlled", -ar.resource, "4.12"))
        elif not supply.traces(ctx, a, nation):
            lines.append(_line(f"{ar.name}: home resource area cannot trace supply", -ar.resource, "4.12"))
    own = _own_side_homes(ctx, nation)
    conquered = _chart(ctx, "t11_production").get("conquered", {})
    for a in sorted(amap.areas):
        ar = amap.areas[a]
        if ar.resource <= 0 or ar.kind != "land" or ctx.controller(a) != side:
            continue
        if nation == "britain" and ar.garrison == "britain":  # 4.11, A-15: Alexandria
            value, rule, why = ar.resource, "4.11 (A-15)", "Alexandria"
            garrison = any(ctx.nation(u) == "britain" for u in ctx.units_in(a))
        elif nation in CONQUERORS and ar.home not in own:  # 4.1, 4.11, 4.13
            if ar.home == "ussr":
                soviet = ctx.option("soviet_conquest") == "chart" or a not in ("moscow", "baku")
                value = ar.resource if soviet else int(conquered.get("other", 2))
                rule, why = "4.13 (A-14)", "conquered Soviet resource area"
            else:
                value, rule, why = int(conquered.get("other", 2)), "4.1", "conquered resource area"
            # 4.11: Germany garrisons with Axis ground units; the USSR with its own (4.7).
            garrison = bool(ctx.side_in(a, side)) if nation == "germany" else any(ctx.nation(u) == nation for u in ctx.units_in(a))
            if not garrison and not (ar.home and ctx.side_of_nation(ar.home) != side):
                continue  # a friend's area (Belgium held by the West, Alexandria) is no conquest of this nation's
        else:
            continue
        if not garrison:
            lines.append(_line(f"{ar.name}: {why}, not garrisoned (nothing)", 0, "4.7a"))
        elif not supply.traces(ctx, a, nation):
            lines.append(_line(f"{ar.name}: {why}, cannot trace supply (nothing)", 0, "4.12"))
        else:
            lines.append(_line(f"{ar.name}: {why}, garrisoned", value, rule))
    return lines + axis_powers.income(ctx, nation, lines, supply.traces)  # 9.14, 9.15, 9.45c


def maintenance(ctx: Ctx, nation: str, werps: int) -> tuple[list[dict[str, Any]], int]:
    """4.2, 4.21, A-17: 1 WERP per fleet point on the map, paid first, by a major power at war with
    another major; compulsory up to the WERPs available, and FPs left unpaid for lack of WERPs
    suffer nothing (A-17 ii). Returns the lines and the WERPs paid."""
    paid_for = allied_powers.maintained(ctx, nation)  # 9.32: Britain pays for the pooled US FPs
    fps = sum(int(by.get(n, 0)) for _, by in sorted(ctx.pos.get("fleets", {}).items()) for n in paid_for)
    if not fps or nation not in MAJORS:
        return [], 0
    if not any(ctx.at_war(nation, m) for m in MAJORS if m != nation):
        return [_line(f"naval maintenance of {fps} FP: not at war with a major power (nothing)", 0, "4.21")], 0
    paid = max(0, min(fps, werps))
    lines = [_line(f"naval maintenance of {fps} FP", -paid, "4.2")]
    if paid < fps:
        lines.append(_line(f"{fps - paid} FP unpaid for lack of WERPs: no penalty", 0, "4.2 (A-17)"))
    return lines, paid


@dataclass
class Ledger:
    """One nation's production this phase (4.5)."""

    nation: str
    income: list[dict[str, Any]]
    available: int
    spent: list[dict[str, Any]] = field(default_factory=list)
    hidden_items: list[str] = field(default_factory=list)
    hidden_min: int = 0
    hidden: int = 0
    sa_start: int = 0
    specials: dict[str, str] = field(default_factory=dict)  # area -> where
    placed: dict[str, int] = field(default_factory=dict)  # area -> new units this phase
    conscripts: int = 0  # 9.24f: free non-elite infantry steps left this phase
    free_elite: int = 0  # 9.24e: free elite infantry units left this phase

    def spend(self, what: str, werps: int, rule: str) -> None:
        self.spent.append(_line(what, werps, rule))

    @property
    def total(self) -> int:
        return sum(int(s["werps"]) for s in self.spent) + self.hidden


def _nations(ctx: Ctx, prod: dict[str, Any], problems: list[Problem]) -> list[str]:
    """The nations producing: those of the phasing side with production in the scenario, and those
    the orders name (each must be a nation of the phasing side, 1.22)."""
    named: dict[str, str] = {}
    for key in ("build", "fortify", "special"):
        for i, o in enumerate(prod.get(key, [])):
            named.setdefault(str(o["nation"]), f"production.{key}[{i}].nation")
    for key in ("sa", "gs", "gs_at", "fp", "asw", "flak", *strategic.ITEMS):
        for n in prod.get("buy", {}).get(key, {}):
            named.setdefault(str(n), f"production.buy.{key}.{n}")
    for n in prod.get("hidden_werps", {}):
        named.setdefault(str(n), f"production.hidden_werps.{n}")
    for i, r in enumerate(prod.get("replace", [])):
        u = str(r["unit"])
        if u in ctx.units and ctx.side_of(u) == ctx.side:  # another side's block: refused in _walk
            named.setdefault(ctx.nation(u), f"production.replace[{i}].unit")
    out = {n for n, v in ctx.sc.production.items() if ctx.side_of_nation(n) == ctx.side
           and (v or n in named or (allied_powers.basic(ctx, n) or (0, "", ""))[0])}  # 9.24, 9.32
    for n, where in sorted(named.items()):
        if n not in NATIONS:
            problems.append(Problem(where, f"{n!r} is not a nation of the game", "D-4"))
        elif ctx.side_of_nation(n) != ctx.side:
            problems.append(Problem(where, f"{n} is not a nation of the {ctx.side}: it produces in its own player-turn", "1.22"))
        else:
            out.add(n)
    order = {n: i for i, n in enumerate(MAJORS)}
    return sorted(out, key=lambda n: (order.get(n, len(order)), n))


def _full_allowed(ctx: Ctx, u: str, area: str, ledger: Ledger) -> tuple[bool, str]:
    """4.32: whether the unit may be replaced to full strength where it is, and why."""
    n, ar = ctx.nation(u), ctx.area(area)
    if area in ledger.specials:
        return True, "7.8, 4.32(3)"
    minor = axis_powers.minor_full_at_home(ctx, u, area)  # 9.16
    if minor is not None:
        return minor
    if ar.home == n:
        return True, "4.32: own home area"
    if n == "germany" and ar.country in GERMAN_FULL:
        return True, "4.32a"
    if n in ("britain", "usa") and (ar.country in ("britain", "usa") or "atlantic" in ar.ports and not ctx.contested(area)):
        return True, "4.32b"
    if ctx.option("oos_replacement_steps") == "full":
        return True, "4.32 (A-71: full)"
    return False, "4.32 (A-71)"


def _replace(ctx: Ctx, r: dict[str, Any], where: str, ledger: Ledger, problems: list[Problem]) -> None:
    """4.3, 4.31, 4.32: steps restored to a reduced block on the map."""
    u = str(r["unit"])
    n = ctx.nation(u)
    area = ctx.at(u)
    bad = len(problems)
    if ctx.secret and "steps" in r:
        problems.append(Problem(f"{where}.steps", "a replacement's steps are hidden in a game without a referee "
                                "(the WERPs go in hidden_werps): given in the clear they tell the opponent", "4.5"))
    if not ctx.secret and "steps" not in r:
        problems.append(Problem(where, "a replacement names its steps", "4.3"))
    if ctx.units[u].get("oos"):
        problems.append(Problem(f"{where}.unit", f"{u} is out of supply: only units in supply are replaced", "4.31"))
    eligible = ctx.controller(area) == ctx.side and not ctx.contested(area)
    if not eligible and area not in ledger.specials:
        what = "contested" if ctx.contested(area) else "not friendly-controlled"
        problems.append(Problem(f"{where}.unit", f"{u} is in {area}, {what}: replacement needs a friendly-controlled, "
                                "non-contested area or fortress, unless an SA makes the area eligible (7.8)", "4.31"))
    full, why = _full_allowed(ctx, u, area, ledger)
    top = ctx.max_steps(u)
    have = ctx.steps(u)
    block = ctx.block(u)
    if ctx.secret:
        if have is not None and top is not None and have >= (top if full else top - 1):
            problems.append(Problem(f"{where}.unit", f"{u} has {have} of {top} steps: no more may be replaced in {area} ({why})", "4.32"))
        if len(problems) > bad:
            return
        if not full:  # 4.32: the new value, hidden, stays below full strength (checked when it is opened)
            ctx.claim(u, {"steps": "below-full", "n": 0, "rule": why, "why": f"was replaced in {area}, where it may not reach "
                          "full strength"})
        free = axis_powers.free_step(ctx, u, r, where, problems)  # 9.15: the free step, worth 1 step, not paid
        ledger.hidden_items.append(u)  # its new value is fog.py's (a new version of its item, or a new item ID.N)
        cheapest = min(step_cost(ctx, b) for b in ctx.possible_blocks(u))
        ledger.hidden_min += 0 if free else cheapest
        ctx.emit("replaced", "4.3", nation=n, unit=u, at=area, hidden=True, upto=why)
        return
    steps = int(r.get("steps", 0))
    if have is None or top is None or block is None:  # a refereed game knows every block
        problems.append(Problem(f"{where}.unit", f"{u}'s block is not known to the adjudicator", "4.3"))
        return
    cap = top if full else top - 1
    if steps and have + steps > cap:
        text = (f"{u} has {have} of {top} steps: {steps} more would make {have + steps}, but in {area} it may be "
                f"replaced up to {cap} ({why})")
        problems.append(Problem(f"{where}.steps", text, "4.32"))
    if len(problems) > bad or not steps:
        return
    free_step = axis_powers.free_step(ctx, u, r, where, problems)  # 9.15
    if len(problems) > bad:
        return
    cost = (steps - free_step) * step_cost(ctx, block)
    free = _conscripted(ctx, ledger, block, steps - free_step)  # 9.24f
    cost -= free * step_cost(ctx, block)
    ctx.units[u]["steps"] = have + steps
    ledger.spend(f"{u}: {steps} step(s) replaced" + (f", {free} by Emergency Conscription (9.24f)" if free else ""), cost,
                 "4.3, 4.43")
    ctx.emit("replaced", "4.3", nation=n, unit=u, at=area, block=block, steps=steps, was=have, now=have + steps,
             cost=cost, upto=cap, why=why, special=area in ledger.specials, conscripts=free)


def _conscripted(ctx: Ctx, ledger: Ledger, block: str, steps: int) -> int:
    """9.24f: the steps of a non-elite Soviet infantry block paid by Emergency Conscription (first,
    while any are left this phase)."""
    bt = ctx.sc.units.blocks[block]
    if ledger.nation != "ussr" or bt.elite or bt.type != "infantry" or not ledger.conscripts:
        return 0
    k = min(steps, ledger.conscripts)
    ledger.conscripts -= k
    return k


def _next_id(ctx: Ctx, nation: str, elite: bool) -> str:
    """D-5 (docs): the next free number of the nation's blocks (elite blocks numbered apart)."""
    code = nation_code(nation) + ("-e" if elite else "")
    used = [int(u.split(".")[1]) for u in ctx.units if u.split(".")[0] == code and u.split(".")[1].isdigit()]
    return f"{code}.{max(used, default=0) + 1:02d}"


def _pool_left(ctx: Ctx, block: str) -> int:
    """4.4: the blocks of a type still in the force pool (units.toml count less those on the map)."""
    on_map = sum(1 for s in ctx.units.values() if s.get("block") == block)
    return ctx.sc.units.blocks[block].count - on_map


def _colour_blocks(ctx: Ctx, nation: str, elite: bool) -> list[str]:
    """The block types a hidden block of the nation and colour may be (D-5)."""
    owners = {nation, "neutral"} if ctx.sc.units.nations.get(nation) is None else {nation}
    return sorted(k for k, bt in ctx.sc.units.blocks.items() if bt.nation in owners and bt.elite == elite)


def _pool_left_hidden(ctx: Ctx, nation: str, elite: bool) -> int:
    """4.4 with hidden types: the nation's blocks of that colour not on the map."""
    total = sum(b.count for b in ctx.sc.units.blocks.values() if b.nation == nation and b.elite == elite)
    on_map = sum(1 for s in ctx.units.values() if s.get("nation") == nation and bool(s.get("elite")) == elite)
    return total - on_map


def _placement(ctx: Ctx, nation: str, area: str, where: str, ledger: Ledger, problems: list[Problem]) -> None:
    """4.41, 4.42: where a new unit may be placed."""
    ar = ctx.area(area)
    side = ctx.side
    if area in NO_PLACEMENT:
        problems.append(Problem(where, f"new units may not be placed in the {ar.name}", "4.41"))
        return
    if ar.home != nation:
        problems.append(Problem(where, f"{area} is not a home area of {nation}: new units are placed in its home areas", "4.41"))
        return
    if ctx.controller(area) != side:
        problems.append(Problem(where, f"{area} is not friendly-controlled", "4.41"))
    if not supply.traces(ctx, area, nation):
        problems.append(Problem(where, f"{area} cannot trace supply: new units are placed in supply", "4.41"))
    limits = _chart(ctx, "t13_production_limits")
    limit = int(limits.get("new_units_per_area", 2))
    rule = "4.41"
    if ctx.contested(area):
        if nation == "ussr" and area == "baku" and ctx.controller(area) == side:
            limit, rule = int(limits.get("baku_contested", 1)), "4.42"
        else:
            problems.append(Problem(where, f"{area} is contested: new units are placed in non-contested areas", "4.41"))
    elif ar.unlimited_placement:
        limit, rule = 0, "4.42"
    ledger.placed[area] = ledger.placed.get(area, 0) + 1
    if limit and ledger.placed[area] == limit + 1:
        problems.append(Problem(where, f"at most {limit} new unit(s) may be placed in {area} per turn", rule))


def _build(ctx: Ctx, b: dict[str, Any], where: str, ledger: Ledger, problems: list[Problem]) -> None:
    """4.4, 4.41-4.43: a new block from the force pool."""
    n, area = str(b["nation"]), str(b["area"])
    bad = len(problems)
    if area not in ctx.sc.map.areas:
        problems.append(Problem(f"{where}.area", f"no area {area!r} on the map", "4.41"))
        return
    block = str(b.get("block", ""))
    steps = int(b.get("steps", 0))
    if ctx.secret:
        for k in ("block", "steps"):
            if k in b:
                problems.append(Problem(f"{where}.{k}", f"a new block's {'type' if k == 'block' else 'steps'} is hidden in a game "
                                        "without a referee (the WERPs go in hidden_werps): given in the clear it tells the opponent", "4.5"))
        elite = str(b.get("id", "")).split(".")[0].endswith("-e")
        placed = str(b.get("id", "")) in ctx.units  # resolving: fog.py placed the hidden block already
        if not placed and _pool_left_hidden(ctx, n, elite) <= 0:
            problems.append(Problem(where, f"no {'elite ' if elite else ''}{n} block is left in the force pool", "4.4"))
    else:
        if not block or not steps:
            problems.append(Problem(where, "a new block names its block type (block) and its steps", "4.4"))
            return
        bt = ctx.sc.units.blocks.get(block)
        if bt is None or bt.nation != n:
            problems.append(Problem(f"{where}.block", f"{block!r} is not a block type of {n}", "4.4"))
            return
        elite = bt.elite
        if steps > bt.steps:
            problems.append(Problem(f"{where}.steps", f"{block} has at most {bt.steps} steps", "4.4"))
        if _pool_left(ctx, block) <= 0:
            problems.append(Problem(f"{where}.block", f"no {block} block is left in the force pool ({bt.count}, all on the map)", "4.4"))
        if bt.type == "armor" and ctx.area(area).terrain == "swamp":
            problems.append(Problem(f"{where}.area", f"armor may not be produced in a swamp ({area})", "4.41"))
    _placement(ctx, n, area, f"{where}.area", ledger, problems)
    uid = str(b.get("id", "")) if ctx.secret else _next_id(ctx, n, elite)  # fog of war: fog.py checks the id (an item never used)
    if not ctx.secret and "id" in b and str(b["id"]) != uid:
        problems.append(Problem(f"{where}.id", f"the new block's id is the next free id of its nation: {uid}", "4.4"))
    if len(problems) > bad:
        return
    if ctx.secret:  # the block itself, its item and its claims are fog.py's (placed before the production phase)
        if uid in ctx.units and ctx.area(area).terrain == "swamp":
            kinds = {t for t in ctx.sc.units.types if t != "armor"}
            ctx.need(uid, kinds, "4.41", f"armor may not be produced in a swamp ({area})")
        ledger.hidden_items.append(uid)
        if b.get("free"):  # 9.24e, fog of war: its worth is added to the announced WERPs (fog.py, allied_powers.free_werps)
            if not ledger.free_elite or not elite:
                problems.append(Problem(f"{where}.free", "free units are the USSR's 4 full-strength elite infantry units of "
                                        "the first Jan/Feb after the German-Soviet war began", "9.24e"))
                return
            ledger.free_elite -= 1
        else:
            ledger.hidden_min += min(step_cost(ctx, x, True) for x in _colour_blocks(ctx, n, elite))
        ctx.emit("built", "4.4", nation=n, unit=uid, at=area, elite=elite, hidden=True, free=bool(b.get("free")))
        return
    cost = build_cost(ctx, block, steps)
    free = _conscripted(ctx, ledger, block, steps)
    if free:
        cost -= step_cost(ctx, block, True) + (free - 1) * step_cost(ctx, block)
    if b.get("free"):  # 9.24e: a free elite infantry unit at full strength
        bt = ctx.sc.units.blocks[block]
        if not ledger.free_elite or not (bt.elite and bt.type == "infantry" and steps == bt.steps):
            problems.append(Problem(f"{where}.free", "free units are the USSR's 4 full-strength elite infantry units of the first "
                                    "Jan/Feb after the German-Soviet war began", "9.24e"))
            return
        ledger.free_elite -= 1
        cost = 0
    ctx.units[uid] = {"nation": n, "elite": elite, "at": area, "block": block, "steps": steps}
    ctx.place(uid, area)
    cadre = step_cost(ctx, block, True)
    ledger.spend(f"{uid}: new {block} of {steps} step(s)", cost, "4.4, 4.43")
    ctx.emit("built", "4.4", nation=n, unit=uid, at=area, block=block, steps=steps, cost=cost, cadre=cadre,
             step=step_cost(ctx, block), elite=elite, conscripts=free, free=bool(b.get("free")))


def _fortify(ctx: Ctx, f: dict[str, Any], where: str, ledger: Ledger, problems: list[Problem]) -> None:
    """6.91-6.95: a field fortification, or a Soviet heavy fortification upgrading one (6.95c)."""
    n, area, heavy = str(f["nation"]), str(f["area"]), bool(f.get("heavy", False))
    bad = len(problems)
    if area not in ctx.sc.map.areas:
        problems.append(Problem(f"{where}.area", f"no area {area!r} on the map", "6.91"))
        return
    ar = ctx.area(area)
    forts = ctx.pos.setdefault("fortifications", {})
    if ctx.weather(area) not in FORT_WEATHER:
        problems.append(Problem(f"{where}.area", f"{area} has {ctx.weather(area)} weather: fortifications are built "
                                "only in Clear or Lt. Mud turns", "6.91"))
    if ar.kind != "land" or ar.terrain != "clear":
        what = "a fortress" if ar.kind == "fortress" else f"{ar.terrain or ar.kind} terrain"
        problems.append(Problem(f"{where}.area", f"{area} is {what}: fortifications are built in Clear terrain", "6.91, 6.94"))
    if ctx.controller(area) != ctx.side:
        problems.append(Problem(f"{where}.area", f"{area} is not friendly-controlled", "6.91"))
    if ctx.contested(area):
        problems.append(Problem(f"{where}.area", f"{area} is contested", "6.91"))
    if not any(ctx.nation(u) == n for u in ctx.units_in(area)):
        problems.append(Problem(f"{where}.area", f"no {n} ground unit is in {area}: a fortification needs one of its nation", "6.91"))
    if n == "germany" and ar.weather == "south":
        problems.append(Problem(f"{where}.nation", f"{area} is in the South weather zone: Germany builds no fortifications "
                                "there until Italy is conquered or surrenders (only Italy does)", "6.95a (A-29)"))
    if n == "ussr" and ctx.turn.year < 1942 and not ctx.at_war("ussr", "germany") and ar.home != "ussr":
        problems.append(Problem(f"{where}.area", f"{area} is not a Soviet home area: until 1942 or war with Germany the "
                                "USSR fortifies only its home areas", "6.95b (A-30)"))
    here = forts.get(area)
    assets = ctx.pos.setdefault("assets", {})
    if heavy:
        built = int(assets.get("heavy_fortifications", {}).get(n, 0))
        if n != "ussr":
            problems.append(Problem(f"{where}.heavy", "only the USSR builds heavy fortifications", "6.95c"))
        elif not ar.heavy_fort:
            problems.append(Problem(f"{where}.area", f"{area} is not a home resource area marked for heavy fortifications", "6.95c"))
        elif here is None or here.get("kind") != "field" or here.get("nation") != n:
            problems.append(Problem(f"{where}.area", f"a heavy fortification upgrades an existing {n} field fortification; "
                                    f"{area} has {'a heavy one' if here and here.get('kind') == 'heavy' else 'none'}", "6.95c"))
        elif built >= 2:
            problems.append(Problem(f"{where}.heavy", "the USSR has built its 2 heavy fortifications: no more may ever be built",
                                    "6.95c (A-31)"))
    elif here is not None:
        problems.append(Problem(f"{where}.area", f"{area} already has a {here.get('kind')} fortification", "6.94"))
    if len(problems) > bad:
        return
    costs = _chart(ctx, "t12_costs")
    if heavy:
        cost = int(costs.get("heavy_fortification", 10))
        forts[area] = {"kind": "heavy", "nation": n}
        assets.setdefault("heavy_fortifications", {})[n] = int(assets.get("heavy_fortifications", {}).get(n, 0)) + 1
        ledger.spend(f"heavy fortification in {area}", cost, "6.95c, 4.43")
    else:
        cost = int(costs.get("field_fortification", 5))
        forts[area] = {"kind": "field", "nation": n}
        ledger.spend(f"field fortification in {area}", cost, "6.91, 4.43")
    ctx.pos["fortifications"] = dict(sorted(forts.items()))
    ctx.emit("fortified", "6.95c" if heavy else "6.91", nation=n, area=area, fort="heavy" if heavy else "field", cost=cost)


def _special(ctx: Ctx, s: dict[str, Any], where: str, ledger: Ledger, problems: list[Problem]) -> None:
    """7.8: an SA held from an earlier turn makes one contested or enemy-controlled area eligible."""
    n, area = str(s["nation"]), str(s["area"])
    bad = len(problems)
    if area not in ctx.sc.map.areas:
        problems.append(Problem(f"{where}.area", f"no area {area!r} on the map", "7.8"))
        return
    if area in ledger.specials:
        problems.append(Problem(f"{where}.area", f"{area} is already made eligible by {ledger.specials[area]}", "7.8"))
    elif not ctx.contested(area) and ctx.controller(area) != other(ctx.side):
        problems.append(Problem(f"{where}.area", f"{area} is neither contested nor enemy-controlled: no SA is needed (4.31)", "7.8"))
    if len(ledger.specials) >= ledger.sa_start:
        problems.append(Problem(where, f"{n} holds {ledger.sa_start} SA(s) from earlier turns, all spent: an SA bought this "
                                "phase is not used in it", "7.8"))
    if len(problems) > bad:
        return
    ledger.specials[area] = where
    ctx.spend_sa(n, "7.8", f"special replacement in {area}")


def _buy(ctx: Ctx, n: str, buy: dict[str, Any], ledger: Ledger, problems: list[Problem]) -> None:
    """Purchases: GS markers (4.43, 4.4, 4.41), SAs (7.1, 7.11, 7.12), FPs (4.62-4.64), ASW and Flak
    (4.61); fighters, bombers, U-boats, V-1s and V-2s (2.3, 2.28: strategic.buy)."""
    costs = _chart(ctx, "t12_costs")
    side = ctx.side
    k = int(buy.get("gs", {}).get(n, 0))
    at = [str(a) for a in buy.get("gs_at", {}).get(n, [])]
    where = f"production.buy.gs.{n}"
    if k or at:
        bad = len(problems)
        if len(at) != k:
            problems.append(Problem(f"production.buy.gs_at.{n}", f"{k} GS bought, {len(at)} area(s) given: one area each", "4.41"))
        nat = ctx.sc.units.nations.get(n)
        on_map = sum(int(by.get(n, 0)) for by in ctx.pos.get("gs", {}).values())
        supplied = nat.gs if nat else 0
        if on_map + k > supplied:
            problems.append(Problem(where, f"{n} has {supplied} GS marker(s), {on_map} on the map: {supplied - on_map} left "
                                    "in the force pool", "4.4"))
        for i, a in enumerate(at):
            w = f"production.buy.gs_at.{n}[{i}]"
            ar = ctx.sc.map.areas.get(a)
            if ar is None or ar.home != n:
                problems.append(Problem(w, f"{a} is not a home area of {n}: a new GS is placed in one", "4.41"))
            elif ctx.controller(a) != side:
                problems.append(Problem(w, f"{a} is not friendly-controlled", "4.41"))
        if len(problems) == bad:
            cost = k * int(costs.get("gs", 5))
            for a in at:
                ctx.add_gs(a, n, 1)
            ledger.spend(f"{k} GS", cost, "4.43")
            ctx.emit("gs-bought", "4.43", nation=n, bought=k, areas=at, cost=cost)
    k = int(buy.get("sa", {}).get(n, 0))
    if k and allied_powers.no_special_actions(ctx, n):
        problems.append(Problem(f"production.buy.sa.{n}", "no special action is bought during the 4 turns of Emergency "
                                "Conscription", "9.24f"))
    elif k:
        limit, held = sa_limit(ctx, n), ctx.sa(n)
        if held + k > limit:
            over = " (over a lowered limit, A-32)" if held > limit else ""
            problems.append(Problem(f"production.buy.sa.{n}", f"{n} holds {held} SA(s){over} and may hold at most {limit} in "
                                    f"{ctx.turn.year}: {max(0, limit - held)} may be bought", "7.11"))
        else:
            cost = k * int(costs.get("special_action", 5))
            ctx.pos.setdefault("sa", {})[n] = held + k
            ctx.pos["sa"] = dict(sorted(ctx.pos["sa"].items()))
            ledger.spend(f"{k} SA", cost, "7.1, 4.43")
            ctx.emit("sa-bought", "7.1", nation=n, bought=k, held=held + k, limit=limit, cost=cost)
    allied_powers.check_assets(ctx, n, buy, problems)  # 9.27, 9.51a
    _buy_fleet(ctx, n, buy, ledger, problems)
    _buy_level(ctx, n, buy, "asw", ledger, problems)
    _buy_level(ctx, n, buy, "flak", ledger, problems)
    strategic.buy(ctx, n, buy, ledger.spend, problems)  # 2.3, 2.28, 4.43: fighters, bombers, U-boats, V-weapons


def _allowed(ctx: Ctx, key: str) -> str:
    """4.61-4.63: the turn a Next Allowed marker waits for ("" when none is on the track ahead)."""
    when = str(ctx.pos.get("next_allowed", {}).get(key, ""))
    if when and ctx.turn < Turn.parse(when):
        return when
    return ""


def _buy_fleet(ctx: Ctx, n: str, buy: dict[str, Any], ledger: Ledger, problems: list[Problem]) -> None:
    sea = buy.get("fp", {}).get(n)
    if sea is None:
        return
    sea = str(sea)
    where = f"production.buy.fp.{n}"
    bad = len(problems)
    if n not in MAJORS:
        problems.append(Problem(where, "only the major powers build fleet points", "4.62"))
    wait = _allowed(ctx, f"{n}/fp")
    if wait:
        problems.append(Problem(where, f"{n}'s Next Allowed marker is on {Turn.parse(wait).label}: no FP before then",
                                "4.63" if n in FLEET_YEARLY_DEFAULT else "4.62"))
    ar = ctx.sc.map.areas.get(sea)
    if ar is None or ar.kind != "sea":
        problems.append(Problem(where, f"{sea!r} is not a sea zone", "4.64"))
    elif not any(p.home == n and sea in p.ports and ctx.controller(p.id) == ctx.side for p in ctx.sc.map.areas.values()):
        problems.append(Problem(where, f"{sea} is not adjacent to a port in a friendly-controlled home area of {n}", "4.64"))
    if len(problems) > bad:
        return
    cost = int(_chart(ctx, "t12_costs").get("fleet_point", 10))
    fleets = ctx.pos.setdefault("fleets", {})
    fleets.setdefault(sea, {})[n] = int(fleets.get(sea, {}).get(n, 0)) + 1
    fleets[sea] = dict(sorted(fleets[sea].items()))
    marker = ctx.turn.plus(int(_chart(ctx, "t13_production_limits").get("fleet_next_allowed", 2)))
    yearly = _chart(ctx, "t13_production_limits").get("fleet_per_year", list(FLEET_YEARLY_DEFAULT))
    if n in yearly:
        marker = max(marker, Turn.parse(f"{ctx.turn.year + 1}-jan"))
    ctx.pos.setdefault("next_allowed", {})[f"{n}/fp"] = marker.key
    ctx.pos["next_allowed"] = dict(sorted(ctx.pos["next_allowed"].items()))
    ledger.spend(f"1 FP in the {ar.name if ar else sea}", cost, "4.62, 4.43")
    ctx.emit("bought", "4.63" if n in yearly else "4.62", nation=n, item="fp", sea=sea, cost=cost, next_allowed=marker.key)


def _buy_level(ctx: Ctx, n: str, buy: dict[str, Any], item: str, ledger: Ledger, problems: list[Problem]) -> None:
    """4.61: an ASW or Flak level raised once a year (Next Allowed: Jan/Feb of the next year)."""
    k = int(buy.get(item, {}).get(n, 0))
    if not k:
        return
    where = f"production.buy.{item}.{n}"
    bad = len(problems)
    assets = ctx.pos.setdefault("assets", {})
    if k > 1:
        problems.append(Problem(where, f"the {item.upper() if item == 'asw' else 'Flak'} level is raised at most once a year", "4.61"))
    if item == "asw" and n not in ASW_NATIONS:
        problems.append(Problem(where, "the ASW level is Britain's (2.1)", "4.61"))
    level = int(assets.get("asw", 0)) if item == "asw" else int(assets.get("flak", {}).get(n, -1))
    if item == "flak" and level < 0:
        problems.append(Problem(where, f"{n} has no Flak level (2.22d)", "4.61"))
    if item == "flak" and level >= 4:
        problems.append(Problem(where, f"{n}'s Flak level is at its maximum, 4", "4.61 (T-13)"))
    wait = _allowed(ctx, f"{n}/{item}")
    if wait:
        problems.append(Problem(where, f"{n}'s {item} Next Allowed marker is on {Turn.parse(wait).label}: raised once a year",
                                "4.61"))
    if len(problems) > bad:
        return
    cost = int(_chart(ctx, "t12_costs").get("asw_level" if item == "asw" else "flak_level", 15 if item == "asw" else 10))
    if item == "asw":
        assets["asw"] = level + 1
    else:
        assets.setdefault("flak", {})[n] = level + 1
    marker = f"{ctx.turn.year + 1}-jan"
    ctx.pos.setdefault("next_allowed", {})[f"{n}/{item}"] = marker
    ctx.pos["next_allowed"] = dict(sorted(ctx.pos["next_allowed"].items()))
    ledger.spend(f"{item} level {level} to {level + 1}", cost, "4.61, 4.43")
    ctx.emit("bought", "4.61", nation=n, item=item, level=level + 1, cost=cost, next_allowed=marker)


def _walk(ctx: Ctx, prod: dict[str, Any], problems: list[Problem]) -> None:
    """The Production Phase (1.22, 4.5): each nation in turn. Checking and resolving are the same
    walk on the working context; an order that breaks a rule records its problems and is not made."""
    hidden_werps = {str(k): int(v) for k, v in prod.get("hidden_werps", {}).items()}
    if hidden_werps and not ctx.secret:
        problems.append(Problem("production.hidden_werps", "nothing is hidden in a refereed or open game: blocks and steps "
                                "are given in the builds and replacements", "4.5"))
    allied_powers.check_conscription(ctx, prod, problems)
    axis_powers.production_start(ctx, prod, problems)  # 9.13
    for n in _nations(ctx, prod, problems):
        lines = income(ctx, n)
        lines += strategic.damage_line(ctx, n, sum(int(x["werps"]) for x in lines))  # 1.22, 2.0: before maintenance
        lines += allied_powers.lend_lease_lines(ctx, n, prod, problems)  # 9.34-9.36
        gross = sum(int(x["werps"]) for x in lines)
        upkeep, paid = maintenance(ctx, n, gross)
        ledger = Ledger(n, lines + upkeep, gross - paid, sa_start=ctx.sa(n), conscripts=allied_powers.conscripts(ctx, n),
                        free_elite=allied_powers.free_elite(ctx, n))
        if n == "britain":  # 9.35: sent at once, from the WERPs after strategic warfare, US lend-lease and maintenance
            sent, ll = allied_powers.britain_to_ussr(ctx, prod, ledger.available, problems)
            if sent:
                ledger.spend(f"lend-lease to the USSR via {ll['route']}", sent, "9.35")
                ctx.emit("lend-lease-sent", "9.35", **ll)
        data: dict[str, Any] = {"nation": n}
        at = len(ctx.events)
        axis_powers.before_orders(ctx, n, prod, ledger, problems)  # 9.43
        for i, s in enumerate(prod.get("special", [])):
            if str(s["nation"]) == n:
                _special(ctx, s, f"production.special[{i}]", ledger, problems)
        for i, r in enumerate(prod.get("replace", [])):
            if str(r["unit"]) in ctx.units and ctx.nation(str(r["unit"])) == n and ctx.side_of(str(r["unit"])) == ctx.side:
                _replace(ctx, r, f"production.replace[{i}]", ledger, problems)
        for i, b in enumerate(prod.get("build", [])):
            if str(b["nation"]) == n:
                _build(ctx, b, f"production.build[{i}]", ledger, problems)
        for i, f in enumerate(prod.get("fortify", [])):
            if str(f["nation"]) == n:
                _fortify(ctx, f, f"production.fortify[{i}]", ledger, problems)
        _buy(ctx, n, dict(prod.get("buy", {})), ledger, problems)
        _hidden(ctx, n, hidden_werps, ledger, problems, prod)
        axis_powers.after_orders(ctx, n, prod, ledger, problems)  # 9.15, 9.19, 9.45d
        if ledger.total > ledger.available:
            problems.append(Problem("production", f"{n} spends {ledger.total} WERPs but has {ledger.available}", "4.1"))
        left = max(0, ledger.available - ledger.total)
        data.update(income=ledger.income, produced=gross, maintenance=paid, available=ledger.available,
                    spent=ledger.spent, hidden=ledger.hidden, spending=ledger.total, left=left)
        ctx.events.insert(at, Event("werps", "4.5", data))
        ctx.pos.setdefault("werps", {})[n] = left
        ctx.pos["werps"] = dict(sorted(ctx.pos["werps"].items()))
    for i, r in enumerate(prod.get("replace", [])):
        u = str(r["unit"])
        if u not in ctx.units:
            problems.append(Problem(f"production.replace[{i}].unit", f"no block {u!r} is on the map", "4.3"))
        elif ctx.side_of(u) != ctx.side:
            problems.append(Problem(f"production.replace[{i}].unit", f"{u} is not a block of the {ctx.side}", "1.22"))


def _hidden(ctx: Ctx, n: str, hidden_werps: dict[str, int], ledger: Ledger, problems: list[Problem],
            prod: dict[str, Any] | None = None) -> None:
    """4.5 with fog of war: the WERPs spent on hidden builds and replacements, announced."""
    if not ctx.secret:
        return
    prod = prod or {}
    where = f"production.hidden_werps.{n}"
    k = hidden_werps.get(n)
    if ledger.hidden_items and k is None:
        problems.append(Problem("production.hidden_werps", f"{n}'s hidden builds and replacements cost WERPs: announce them "
                                f"(hidden_werps.{n})", "4.5"))
        return
    if k is None:
        return
    if not ledger.hidden_items and k:
        problems.append(Problem(where, f"{n} spends {k} hidden WERPs on no hidden build or replacement", "4.5"))
        return
    used = int(prod.get("conscripts", {}).get(n, 0))  # 9.24f, fog of war: conscript steps among the hidden items
    if used > ledger.conscripts:
        problems.append(Problem(f"production.conscripts.{n}", f"{used} conscript steps; Emergency Conscription gives {n} "
                                f"{ledger.conscripts} this turn", "9.24f"))
        return
    if k + used < ledger.hidden_min:
        problems.append(Problem(where, f"{n}'s hidden builds and replacements cost at least {ledger.hidden_min} WERPs", "4.43"))
        return
    ledger.hidden = k  # fog.py records on each hidden item the claim that their costs make k (4.5)


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """Every problem of the [production] table (the walk made on the working context)."""
    _walk(ctx, dict(body.get("production", {})), problems)


def resolve(ctx: Ctx, body: dict[str, Any]) -> None:
    """1.22: the Production Phase, each nation of the phasing side in turn (4.5)."""
    _walk(ctx, dict(body.get("production", {})), [])


# --- reports ----------------------------------------------------------------------------------------
def _nat(n: Any) -> str:
    return {"ussr": "The USSR", "usa": "The U.S.A."}.get(str(n), str(n).capitalize())


def _werps(e: Event) -> list[str]:
    d = e.data
    inc = "; ".join(f"{x['what']} {int(x['werps']):+d} ({x['rule']})" for x in d["income"])
    out = [f"- {_nat(d['nation'])} announces {d['available']} WERPs ({e.rule}): {inc}."]
    spent = [f"{x['what']} {x['werps']} ({x['rule']})" for x in d["spent"]]
    if d.get("hidden"):
        spent.append(f"hidden builds and replacements {d['hidden']} (4.5)")
    what = "; ".join(spent) if spent else "nothing"
    out.append(f"  It spends {d['spending']}: {what}; {d['left']} WERP(s) left, never carried over (4.1).")
    return out


def _built(e: Event) -> list[str]:
    d = e.data
    if d.get("hidden"):
        return [f"- {_nat(d['nation'])} builds {d['unit']} in {d['at']}, its type and steps hidden ({e.rule}, 4.5)."]
    return [f"- {_nat(d['nation'])} builds {d['unit']}, a {d['block']} of {d['steps']} step(s), in {d['at']} ({e.rule}): "
            f"{d['cost']} WERPs (cadre step {d['cadre']}, each further step {d['step']}; 4.43)."]


def _replaced(e: Event) -> list[str]:
    d = e.data
    if d.get("hidden"):
        return [f"- {_nat(d['nation'])} replaces steps of {d['unit']} in {d['at']}, hidden ({e.rule}, 4.5; up to {d['upto']})."]
    sp = " in an area made eligible by a special action (7.8)" if d.get("special") else ""
    return [f"- {d['unit']} ({d['block']}) is replaced {d['steps']} step(s) in {d['at']}{sp}, from {d['was']} to {d['now']} "
            f"({e.rule}; at most {d['upto']} there, {d['why']}): {d['cost']} WERPs (4.43)."]


def _fortified(e: Event) -> list[str]:
    d = e.data
    what = "upgrades the field fortification to a heavy fortification" if d["fort"] == "heavy" else "builds a field fortification"
    return [f"- {_nat(d['nation'])} {what} in {d['area']} ({e.rule}): {d['cost']} WERPs."]


def _sa_bought(e: Event) -> list[str]:
    d = e.data
    return [f"- {_nat(d['nation'])} buys {d['bought']} special action(s) for {d['cost']} WERPs, placed in its home areas "
            f"({e.rule}, 7.12): {d['held']} held, at most {d['limit']} (7.11)."]


def _gs_bought(e: Event) -> list[str]:
    d = e.data
    return [f"- {_nat(d['nation'])} buys {d['bought']} ground-support unit(s) for {d['cost']} WERPs ({e.rule}), placed in "
            f"{', '.join(d['areas'])}."]


def _bought(e: Event) -> list[str]:
    d = e.data
    if d["item"] == "fp":
        what = f"1 fleet point, placed in the {d['sea']}"
    else:
        what = f"an {d['item'].upper()} level (now {d['level']})" if d["item"] == "asw" else f"a Flak level (now {d['level']})"
    return [f"- {_nat(d['nation'])} buys {what} for {d['cost']} WERPs ({e.rule}); Next Allowed: {d['next_allowed']}."]


RENDER: dict[str, Any] = {"werps": _werps, "built": _built, "replaced": _replaced, "fortified": _fortified,
                          "sa-bought": _sa_bought, "gs-bought": _gs_bought, "bought": _bought}
