"""The built-in player of Europe Engulfed (`pbem demo`, `pbem propose`): legal orders for any
awaited step, from what its side sees, the same every time (no randomness).

It plays simply, but through every step:

- set-up and first orders (fog of war): it commits its blocks as the scenario numbers them (it
  keeps no secret of its own: a player who wants his blocks' types hidden shuffles them within each
  area, docs/europe-engulfed.md, Fog of war), and knows them afterwards from that numbering;
- movement step: the declarations of war of the historical calendar (``DECLARATIONS``: Germany on
  Denmark and Norway in Mar/Apr 1940, on the Low Countries in May/Jun 1940, on Yugoslavia and Greece
  in 1941, on the USSR from May/Jun 1941; Italy on France and Britain from May/Jun 1940; the U.S.A.
  from Jan/Feb 1942), each kept only where the rules allow it (1.23, 9.x); one special action bought
  per major power while it has the WERPs and stays within its limit (7.1, 7.11); then new infantry
  blocks at full strength in its home areas with what is left, keeping a reserve (4.4, 4.41; with
  fog of war their type and steps are hidden values, 4.5: the built-in player builds only its
  nation's plain infantry, so it knows its own builds later); the phasing side's armor, and
  infantry after it, move from areas next to the enemy into the weakest adjacent enemy area whose
  owners their nation is at war with (5.11, 5.12, 1.23), one block always staying behind;
- Axis politics (9.x): Germany aids a neutral Italy with 5 WERPs (9.43); the free Axis-minor
  infantry step goes to a reduced minor block (9.15, open games);
- combat step: every newly contested area, an Assault where its steps are at least half again the
  enemy's, else Normal (6.3); one breakthrough combat bought where it is strongest (6.71);
- breakthrough step: the combats a breakthrough movement made, then the end;
- naval war (8.x): its standing instructions engage enemy FPs carrying units where its own FPs
  in the zone outnumber them (``naval = "stronger"``, 8.11) and interdict always (the default,
  8.21); in its movement file one FP of a nation moves to a zone where the enemy's FPs outnumber the
  nation's, from one where the nation keeps the larger fleet (8.3, when the rules allow it).

Every order is checked with the module's own check before it is kept, so what it proposes is legal
by construction.
"""

from __future__ import annotations

import copy
from typing import Any

import tomli_w

from pbem.engine.model import Submission

from . import axis_powers
from .context import BREAKTHROUGH, COMBAT, MOVE, SETUP, Ctx, context, other
from .data import AXIS_MINORS, MAJORS, Turn
from .parties import side_of_party

MAX_MOVES = 12  # groups the attacker tries to move in one movement step
MAX_BUILDS = 4  # new blocks a nation builds in one production phase
RESERVE = 3  # WERPs a nation keeps back from building
# The declarations of war the built-in player makes, from the game turn given (1.23; each kept only
# if the rules allow it then): the historical calendar of the war in Europe.
DECLARATIONS: tuple[tuple[str, str, str], ...] = (
    ("1940-mar", "germany", "denmark"), ("1940-mar", "germany", "norway"),
    ("1940-may", "germany", "belgium"), ("1940-may", "germany", "netherlands"),
    ("1940-may", "italy", "france"), ("1940-may", "italy", "britain"),
    ("1941-mar", "germany", "yugoslavia"), ("1941-mar", "germany", "greece"),
    ("1941-may", "germany", "ussr"), ("1941-may", "italy", "ussr"),
    ("1942-jan", "usa", "germany"), ("1942-jan", "usa", "italy"),
)


def own_values(module: Any, state: dict[str, Any], side: str) -> dict[str, dict[str, Any]]:
    """The built-in player's own hidden blocks: as the scenario numbers them (its set-up), less the
    steps lost while hidden (``lost``)."""
    start = module.new_game(str(state["pbem"]["scenario"]), {})["position"]["units"]
    ctx = context(state)
    out = {}
    for u, s in ctx.units.items():
        if s.get("item") and ctx.party_of(u) == side and u in start and s.get("item") == u:
            out[u] = {"block": start[u]["block"], "steps": int(start[u]["steps"]) - int(s.get("lost", 0))}
        elif s.get("item") == u and ctx.party_of(u) == side and not s.get("elite") and _build_type(ctx, ctx.nation(u)):
            bt = _build_type(ctx, ctx.nation(u))  # its own build: plain infantry at full strength (see _builds)
            out[u] = {"block": bt, "steps": ctx.sc.units.blocks[bt].steps - int(s.get("lost", 0))}
    return out


def _seen(module: Any, state: dict[str, Any], side: str) -> Ctx:
    """The context as the side knows it: its own hidden blocks filled in."""
    ctx = context(state)
    for u, v in own_values(module, state, side).items():
        ctx.units[u]["block"] = v["block"]
        ctx.units[u]["steps"] = v["steps"]
    return ctx


class _Builder:
    """Orders added one at a time, each kept only if the whole file stays legal."""

    def __init__(self, module: Any, state: dict[str, Any], side: str, body: dict[str, Any]) -> None:
        self.module, self.state, self.side = module, state, side
        self.body = body

    def legal(self, body: dict[str, Any]) -> bool:
        return not self.module.check(self.state, Submission("orders", self.side, body))

    def add(self, key: str, order: dict[str, Any]) -> bool:
        trial = {**self.body, key: [*self.body.get(key, []), order]}
        if self.legal(trial):
            self.body = trial
            return True
        return False


def _hidden_due(module: Any, state: dict[str, Any], side: str) -> dict[str, Any]:
    """The values the file must commit (fog of war: the side's blocks not committed yet)."""
    from . import fog

    ctx = context(state)
    if not ctx.secret:
        return {}
    due = fog.items_due(state, ctx, side, {})
    start = own_values(module, state, side)
    return {item: start[what["unit"]] for item, what in sorted(due.items()) if what["kind"] == "setup" and what["unit"] in start}


def propose(module: Any, state: dict[str, Any], side: str) -> str:
    """The body of the side's file for the awaited step (``module``: the game module, whose check
    keeps each order only if the file stays legal)."""
    aw = state["awaits"]
    phase = str(state["clock"]["phase"])
    body: dict[str, Any] = {}
    hidden = _hidden_due(module, state, side)
    if hidden:
        body["hidden"] = hidden
    if aw["kind"] == "orders" and phase != SETUP and side_of_party(side) == state["clock"]["side"]:  # (three players: a
        #   party in the other side's step only opens its blocks, parties.py)
        b = _Builder(module, state, side, body)
        ctx = _seen(module, state, side)
        if phase == MOVE:
            _naval(b, ctx)
            _production(b, ctx, side)
            _axis_politics(b, ctx)
            _strategic(b, ctx, state)
            _politics(b, ctx, state)
            _builds(b, ctx)
            _declarations(b, ctx)
            _movement(b, ctx)
        elif phase == COMBAT:
            _combat(b, ctx, side)
        elif phase == BREAKTHROUGH:
            _breakthrough(b, ctx, state.get("pending", {}))
        body = b.body
    if not body:
        return f"# {side}: no orders for {aw['step']} (built-in player)\n"
    return tomli_w.dumps(body)


def _majors(ctx: Ctx, party: str = "") -> list[str]:
    """The phasing side's major powers with production (three players: the party's, parties.py)."""
    return sorted(n for n, v in ctx.sc.production.items() if v and ctx.side_of_nation(n) == ctx.side
                  and (not party or ctx.party_of_nation(n) == party))


def _naval(b: _Builder, ctx: Ctx) -> None:
    """8.11: standing naval = "stronger" in every sea zone; 8.3: one fleet transfer toward the zone
    where the enemy's FPs most outnumber a nation's own, from a zone where its fleet is the larger."""
    seas = sorted(z for z, ar in ctx.sc.map.areas.items() if ar.kind == "sea")
    # the file's own standing instructions kept (three players: the party's, not the merged Allied ones,
    # whose other keys are the other Allied player's to give, parties.py)
    own = ctx.standing.get(ctx.side, {}) if b.side == ctx.side else b.state.get("standing", {}).get(b.side, {})
    mine = {**own, **b.body.get("standing", {})}
    b.body = {**b.body, "standing": {**mine, "naval": {z: "stronger" for z in seas}}}
    fleets = ctx.pos.get("fleets", {})

    def strength(z: str, mine: bool) -> int:
        return sum(int(k) for n, k in fleets.get(z, {}).items() if (ctx.side_of_nation(n) == ctx.side) == mine)

    for n in sorted({n for by in fleets.values() for n in by if ctx.side_of_nation(n) == ctx.side}):
        short = [z for z in seas if strength(z, False) > strength(z, True)]
        spare = [z for z in seas if int(fleets.get(z, {}).get(n, 0)) > 1 and strength(z, True) > strength(z, False) + 1]
        for dst in sorted(short, key=lambda z: (strength(z, True) - strength(z, False), z)):
            if any(b.add("fleet", {"nation": n, "from": src, "to": dst, "fp": 1}) for src in spare if src != dst):
                return


def _production(b: _Builder, ctx: Ctx, party: str = "") -> None:
    """7.1: a special action for each major power (of the party) that can pay for one."""
    for n in _majors(ctx, party):
        trial = copy.deepcopy(b.body)
        trial.setdefault("production", {}).setdefault("buy", {}).setdefault("sa", {})[n] = 1
        if b.legal(trial):
            b.body = trial


def _axis_politics(b: _Builder, ctx: Ctx) -> None:
    """9.43: Germany gives a neutral Italy the most WERPs it may (5) while it keeps 10; 9.15: the free
    Axis-minor step to the first reduced minor infantry block it knows, where it is legal."""
    if ctx.side != "axis":
        return
    if axis_powers.italy(ctx) == axis_powers.NEUTRAL_ITALY and int(ctx.sc.production.get("germany", 0)) >= 15:
        trial = copy.deepcopy(b.body)
        trial.setdefault("production", {})["italy_aid"] = int(ctx.sc.charts["t16_lend_lease"].data.get("germany_to_italy", 5))
        if b.legal(trial):
            b.body = trial
    if ctx.secret:
        return  # a hidden block's new strength is a hidden value the built-in player does not commit here
    for u in sorted(ctx.units):
        if ctx.nation(u) in AXIS_MINORS and ctx.kind(u) == "infantry" and (ctx.steps(u) or 0) < (ctx.max_steps(u) or 0):
            trial = copy.deepcopy(b.body)
            trial.setdefault("production", {}).setdefault("replace", []).append({"unit": u, "steps": 1, "free": True})
            if b.legal(trial):
                b.body = trial
                return


def _build_type(ctx: Ctx, nation: str) -> str:
    """The block type the built-in player builds for a major power: its plain infantry."""
    name = f"{nation_code_of(nation)}-inf"
    bt = ctx.sc.units.blocks.get(name)
    return name if nation in MAJORS and bt is not None and bt.nation == nation and not bt.elite else ""


def nation_code_of(nation: str) -> str:
    from .context import nation_code

    return nation_code(nation)


def _builds(b: _Builder, ctx: Ctx) -> None:
    """4.4, 4.41: new infantry blocks at full strength in the nation's home areas (nearest the
    enemy first), while the WERPs left after the special actions allow, keeping ``RESERVE`` back."""
    from . import production

    for n in _majors(ctx, b.side):  # (three players: the party's own nations)
        bt = _build_type(ctx, n)
        if not bt:
            continue
        full = ctx.sc.units.blocks[bt].steps
        cost = production.build_cost(ctx, bt, full)
        homes = sorted((a for a in ctx.sc.map.areas if ctx.sc.map.areas[a].home == n and ctx.controller(a) == ctx.side
                        and not ctx.contested(a) and ctx.sc.map.areas[a].kind == "land"),
                       key=lambda a: (-sum(1 for t in ctx.neighbours(a) if ctx.controller(t) == other(ctx.side)), a))
        built = 0
        for area in homes:
            for _ in range(2):
                if built >= MAX_BUILDS or not _build_one(b, ctx, n, bt, full, cost, area):
                    break
                built += 1


def _build_one(b: _Builder, ctx: Ctx, n: str, bt: str, full: int, cost: int, area: str) -> bool:
    from .production import _next_id

    trial = copy.deepcopy(b.body)
    prod = trial.setdefault("production", {})
    taken = {str(x["id"]) for x in prod.get("build", [])}
    uid = _next_id(ctx, n, False)
    if uid in taken:  # the ids of this file's earlier builds
        code, num = uid.split(".")
        nums = [int(x.split(".")[1]) for x in taken if x.split(".")[0] == code]
        uid = f"{code}.{max([int(num) - 1, *nums]) + 1:02d}"
    order: dict[str, Any] = {"nation": n, "area": area, "id": uid}
    if ctx.secret:
        trial.setdefault("hidden", {})[uid] = {"block": bt, "steps": full}
        prod.setdefault("hidden_werps", {})[n] = int(prod.get("hidden_werps", {}).get(n, 0)) + cost
    else:
        order.update(block=bt, steps=full)
    prod.setdefault("build", []).append(order)
    if _left(b, ctx, trial, n) < RESERVE or not b.legal(trial):
        return False
    b.body = trial
    return True


def _left(b: _Builder, ctx: Ctx, body: dict[str, Any], n: str) -> int:
    """The WERPs the nation would have left with these orders (4.5; the production walk's own sums)."""
    from . import production

    probe = context(b.state)
    for u, v in ctx.units.items():  # the side's own hidden blocks as it knows them
        if v.get("block") and u in probe.units:
            probe.units[u].setdefault("block", v["block"])
            probe.units[u].setdefault("steps", v.get("steps"))
    problems: list[Any] = []
    at = len(probe.events)
    production._walk(probe, dict(body.get("production", {})), problems)
    for e in probe.events[at:]:
        if e.kind == "werps" and e.data.get("nation") == n:
            return int(e.data["available"]) - int(e.data["spending"])
    return 0


def _declarations(b: _Builder, ctx: Ctx) -> None:
    """1.23: the calendar's declarations of war due by this game turn, each kept only if legal."""
    for when, n, on in DECLARATIONS:
        if ctx.turn < Turn.parse(when) or ctx.side_of_nation(n) != ctx.side or ctx.at_war(n, on):
            continue
        if any(d.get("nation") == n and d.get("on") == on for d in b.body.get("declare", [])):
            continue
        if b.add("declare", {"nation": n, "on": on}):
            pol = ctx.pos.setdefault("politics", {"war": [], "pact": False, "vichy": False})
            pol["war"] = sorted([*pol.get("war", []), sorted([n, on])])
            if {n, on} == {"germany", "ussr"}:
                pol["pact"] = False


# 9.26, 9.34: the standing political instructions the built-in player gives once (the Axis moves
# Soviet units up front when the Pact requires it; the Allies ask for US lend-lease).
POLITICS_STANDING: dict[str, dict[str, Any]] = {"axis": {"up_front": True}, "allies": {"lend_lease": True},
                                                "west": {"lend_lease": True}}


def _politics(b: _Builder, ctx: Ctx, state: dict[str, Any]) -> None:
    """9.26, 9.34 standing instructions, given once; 9.24f: Emergency Conscription once the USSR has
    lost a home resource area at war with Germany."""
    mine = dict(state.get("standing", {}).get(b.side, {}))
    want = POLITICS_STANDING.get(b.side, {})
    if want and any(k not in mine for k in want):
        trial = copy.deepcopy(b.body)
        trial["standing"] = {**mine, **trial.get("standing", {}), **want}
        if b.legal(trial):
            b.body = trial
    pol = ctx.pos.get("politics", {})
    lost = any(ar.home == "ussr" and ar.resource and ctx.controller(a) != ctx.side_of_nation("ussr")
               for a, ar in ctx.sc.map.areas.items())
    if ctx.side_of_nation("ussr") == ctx.side and lost and not pol.get("conscription"):
        trial = copy.deepcopy(b.body)
        trial.setdefault("production", {})["conscription"] = True
        if b.legal(trial):
            b.body = trial


def _at_war_with_owners(ctx: Ctx, units: list[str], target: str) -> bool:
    """1.23: every block's nation (an Axis minor: Germany's wars) is at war with every nation that
    holds the target."""
    from .politics import owners

    held = owners(ctx, target, ctx.side)
    for u in units:
        n = ctx.nation(u)
        n = "germany" if n in AXIS_MINORS else n
        if any(not ctx.at_war(n, o) for o in held):
            return False
    return True


# 2.2, 2.22a, 2.28 (J-3 (a)): the standing strategic instructions the built-in player gives once, and
# the strategic assets it buys each production phase (2.3, 4.43), each kept only if legal.
STRATEGIC_STANDING: dict[str, Any] = {"bomb": True, "intercept": "stronger"}
STRATEGIC_BUYS: tuple[tuple[str, str, int], ...] = (("uboats", "germany", 2), ("fighters", "germany", 1),
                                                    ("fighters", "britain", 1), ("v1", "germany", 2))


def _strategic(b: _Builder, ctx: Ctx, state: dict[str, Any]) -> None:
    """Strategic warfare (2.x): standing instructions to bomb when able and to intercept while the
    fighters are at least the escorts, given once; a few strategic assets bought with the WERPs left."""
    mine = dict(state.get("standing", {}).get(b.side, {}))
    if "strategic" not in mine:
        trial = copy.deepcopy(b.body)
        trial["standing"] = {**mine, **trial.get("standing", {}), "strategic": dict(STRATEGIC_STANDING)}
        if b.legal(trial):
            b.body = trial
    for item, nation, n in STRATEGIC_BUYS:
        if ctx.side_of_nation(nation) != ctx.side:
            continue
        trial = copy.deepcopy(b.body)
        trial.setdefault("production", {}).setdefault("buy", {}).setdefault(item, {})[nation] = n
        if b.legal(trial):
            b.body = trial


def _steps(ctx: Ctx, units: list[str]) -> int:
    return sum(ctx.steps(u) or 2 for u in units)


def _movement(b: _Builder, ctx: Ctx) -> None:
    """5.1: from each area of its own next to the enemy, armor then infantry into the weakest
    adjacent enemy area whose owners their nations are at war with (1.23), one block staying
    behind."""
    enemy = other(ctx.side)
    tried = 0
    for area in sorted({ctx.at(u) for u in ctx.side_units(ctx.side)}):
        if ctx.contested(area) or ctx.area(area).fortress:
            continue
        targets = [t for t in ctx.neighbours(area) if ctx.controller(t) == enemy and not ctx.area(t).fortress]
        if not targets:
            continue
        target = min(targets, key=lambda t: (len(ctx.side_in(t, enemy)), t))
        mine = ctx.side_in(area, ctx.side)
        armor = [u for u in mine if ctx.kind(u) == "armor"]
        infantry = [u for u in mine if ctx.kind(u) in ("infantry", "cavalry")]
        go = [u for u in (armor + infantry) if _at_war_with_owners(ctx, [u], target)][:max(len(mine) - 1, 0)]
        if not go or _steps(ctx, go) < _steps(ctx, ctx.side_in(target, enemy)):
            continue
        if b.add("move", {"units": go, "path": [target]}):
            tried += 1
        elif len(go) > 1 and b.add("move", {"units": go[:1], "path": [target]}):
            tried += 1
        if tried >= MAX_MOVES:
            break


def _battle(ctx: Ctx, area: str) -> dict[str, Any]:
    mine = _steps(ctx, ctx.side_in(area, ctx.side))
    theirs = _steps(ctx, ctx.side_in(area, other(ctx.side)))
    return {"area": area, "type": "assault" if 2 * mine >= 3 * max(theirs, 1) else "normal"}


def _combat(b: _Builder, ctx: Ctx, party: str = "") -> None:
    """6.1: every newly contested area (three players: each Allied party lists them all; the
    merged orders fight each once); then a breakthrough bought when an SA is held (1.26)."""
    due = [_battle(ctx, a) for a in sorted(a for a, v in ctx.pos.get("contested", {}).items() if v == "new")]
    if due:  # every one at once: each is compulsory (6.1)
        b.body = {**b.body, "battle": due}
    if any(ctx.sa(n) for n in _majors(ctx, party)) and ctx.pos.get("contested"):
        trial = {**b.body, "next": {"breakthrough": True}}
        if b.legal(trial):
            b.body = trial


def _breakthrough(b: _Builder, ctx: Ctx, pending: dict[str, Any]) -> None:
    """6.73: the combats due; then one breakthrough combat where it is strongest (6.71), or the end."""
    due = [_battle(ctx, str(a)) for a in pending.get("battles", [])]
    if due:  # 6.73: every one at once
        b.body = {**b.body, "battle": due}
    if not pending.get("breakthroughs"):
        areas = sorted(ctx.pos.get("contested", {}), key=lambda a: (-_steps(ctx, ctx.side_in(a, ctx.side)), a))
        for area in areas:
            if not ctx.side_in(area, ctx.side) or not ctx.side_in(area, other(ctx.side)):
                continue
            trial = {**b.body, "breakthrough": {"kind": "combat", **_battle(ctx, area)}}
            if b.legal(trial):
                b.body = trial
                return
    b.body = {**b.body, "breakthrough": {"kind": "end"}}
