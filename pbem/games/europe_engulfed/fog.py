"""Fog of war (Glossary "Ground Units", 4.5, 6.24, 6.74, J-0): each block's type and strength are
hidden from the opponent. Without a referee they are the owner's hidden values (docs/protocol.md,
Hidden values): committed at the set-up and when built or replaced, opened when the block is in a
contested area (6.24), checked against every claim the game recorded while hidden. With a referee,
the views leave them out (J-0 1: enemy blocks show location, count and colour only).

Items (schemas/europe-engulfed/hidden.schema.json): a block's item is its id (``de.07``), holding
``{ block = "de-arm", steps = 3 }``; a revealed block whose strength becomes hidden again (a
replacement, 4.3) gets a new item ``de.07.2``, ``de.07.3`` ... holding its (public) type and its new
steps. A position's block is known (``block``, ``steps``), hidden (``item``), or of a known type with
hidden steps (``block``, ``item``); ``lost`` counts the steps it lost while hidden (7.9, public),
taken off its value when it is opened.

What the other rules modules use here:
- (in supply.py: ``lose_hidden_step``, 7.9: a hidden block in a limited-supply area loses a step:
  the owner named it a cadre (``[final] cadres``: eliminated, a claim that it was at 1 step) or not
  (a claim that it had 2 or more; one step lost, counted in ``lost``, rendered here).)
- ``cadre_problems(ctx, final, problems)`` (supply.check_final): the cadres named are the side's
  hidden blocks in its limited-supply areas.
- In a game with fog of war, the hidden part of production is made here, before production.resolve
  (``before_resolve``): each ``[[production.build]]`` (nation, area, id: its type and steps are the
  item ``id`` of ``[hidden]``) is placed hidden, each ``[[production.replace]]`` of a block gets its
  new value as a new version of its item (or a new item ``ID.N`` when it was revealed);
  production.resolve then only pays ``[production] hidden_werps = { NATION = n }``, the public total
  of those hidden costs (4.5), and skips builds and replacements (``is_hidden_production``).
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import IllegalOrdersError, Problem
from pbem.mechanics.dice import Dice

from . import allied_powers, axis_powers
from . import parties as pty
from .context import BREAKTHROUGH, COMBAT, MOVE, SETUP, Ctx, context, nation_code, other
from .data import ALLIES, AXIS, NEUTRAL, BlockType, load_scenario

SETUP_STEP = "setup"
HIDDEN_KEYS = ("block", "steps", "lost", "item")
COMBAT_RULES = ("6.", "7.5", "7.6", "7.7")  # events of a combat: its blocks are face-up (6.24)


# --- ids and block types ---------------------------------------------------------------------------

def base_id(item: str) -> str:
    """The block an item holds: ``de.07.2`` -> ``de.07``."""
    return ".".join(item.split(".")[:2])


def _one_spelling(unit: str) -> bool:
    """D-5: a block's number is written in its one spelling, two digits at least and no other
    leading zero (``de.07``, ``de.123``; never ``de.007`` nor ``de.00``): one block, one id."""
    num = unit.split(".")[1] if unit.count(".") == 1 else ""
    return num.isascii() and num.isdigit() and int(num) > 0 and f"{int(num):02d}" == num


def id_blocks(sc: Any, unit: str) -> dict[str, BlockType]:
    """The block types a block id may hold: its nation's (by the id's prefix, D-5; ``nt``: the
    neutral pool's, D-4) and its colour (elite ``-e``)."""
    code = unit.split(".")[0]
    elite = code.endswith("-e")
    base = code[:-2] if elite else code
    out = {}
    for k, bt in sc.units.blocks.items():
        c = "nt" if bt.nation == NEUTRAL else nation_code(bt.nation)
        if c == base and bt.elite == elite:
            out[k] = bt
    return out


@functools.lru_cache(maxsize=8)
def _start(scenario: str) -> tuple[tuple[str, str, str, int, str, str], ...]:
    """The scenario's set-up under the ids new_game gives it (D-5: per nation and colour, by area,
    then the set-up's order): (id, area, block, steps, side, nation)."""
    sc = load_scenario(scenario)
    count: Counter[str] = Counter()
    out = []
    for b in sorted(sc.blocks, key=lambda b: (b.area, b.id)):
        nation = sc.map.areas[b.area].country if b.nation == NEUTRAL else b.nation
        code = nation_code(nation) + ("-e" if sc.units.blocks[b.type].elite else "")
        count[code] += 1
        side = sc.units.side_of(nation) if nation in sc.units.nations else ALLIES
        out.append((f"{code}.{count[code]:02d}", b.area, b.type, b.steps, side, nation))
    return tuple(sorted(out))


def setup_group(scenario: str, unit: str, options: dict[str, Any] | None = None) -> tuple[str, list[str], Counter[tuple[str, int]]]:
    """The set-up area of a scenario block, its party's blocks set up there and their types and
    steps (D-6: the scenario's set-up, public): ("", [], {}) for a block not of the set-up. (Three
    players: one party's blocks, whose values only that party commits and opens.)"""
    start = _start(scenario)
    me = next((r for r in start if r[0] == unit), None)
    if me is None:
        return "", [], Counter()
    o = options or {}
    rows = [r for r in start if r[1] == me[1] and r[4] == me[4]
            and pty.party_of_nation(o, r[5], r[4]) == pty.party_of_nation(o, me[5], me[4])]
    return me[1], [r[0] for r in rows], Counter((r[2], r[3]) for r in rows)


def _set_text(c: Counter[tuple[str, int]]) -> str:
    return ", ".join(f"{b} {s}" + (f" x{n}" if n > 1 else "") for (b, s), n in sorted(c.items()))


def step_cost(ctx: Ctx, block: str, cadre: bool) -> int:
    """4.43: production.step_cost where it exists (the nations' exceptions), else the chart's."""
    from . import production

    fn = getattr(production, "step_cost", None)
    return int(fn(ctx, block, cadre)) if fn is not None else ctx.sc.units.step_cost(block, cadre)


# --- the set-up step -------------------------------------------------------------------------------

def hide(units: dict[str, dict[str, Any]]) -> None:
    """Every block's type and steps become its owner's hidden item (J-0)."""
    for u, s in units.items():
        s.pop("block", None)
        s.pop("steps", None)
        s["item"] = u


def setup_step(module: Any, state: dict[str, Any], ctx: Ctx) -> Transition:
    """J-0, D-6: a game without a referee opens with the set-up: every block hidden, the Allies'
    file commits the type and steps of each of theirs (adjudicated by the Axis), the Axis commits
    its own in its first orders file. The values of an area's blocks are the scenario's set-up of
    that area, in any order (checked in the sender's draft and when the blocks are opened)."""
    hide(ctx.units)
    out: dict[str, Any] = {"options": copy.deepcopy(state["options"]),
                           "clock": {"turn": ctx.turn.key, "side": ALLIES, "phase": SETUP},
                           "position": _position(ctx), "standing": ctx.standing_out(),
                           "awaits": {"kind": "orders", "step": SETUP_STEP, "from": pty.awaited(ctx.options, ALLIES),
                                      "adjudicator": AXIS}}
    ctx.emit("fog-setup", "J-0", sides=[ALLIES, AXIS])
    ctx.emit("awaits", "J-0", **{k: out["awaits"][k] for k in ("kind", "step", "from", "adjudicator")})
    return Transition(out, tuple(ctx.events))


def _position(ctx: Ctx) -> dict[str, Any]:
    from .context import position_of
    from .victory import victory_points

    ctx.pos["vp"] = victory_points(ctx)
    return position_of(ctx)


def resolve_setup(module: Any, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
    """The Allies' set-up file (its values recorded by the core), then the first game turn (1.0)."""
    for sub in submissions:
        problems = module.check(state, sub) if sub.digest else []
        if problems:
            raise IllegalOrdersError(f"{sub.side}'s set-up breaks the rules", problems)
    ctx = context(state, dice)
    for sub in sorted(submissions, key=lambda x: x.side):
        if sub.body.get("standing"):
            ctx.set_standing(sub.side, sub.body["standing"])
        ctx.emit("committed", "J-0", side=sub.side, items=len(sub.body.get("hidden", {})), what="set-up")
    t: Transition = module._awaiting(state, ctx, module._begin_game_turn(ctx))
    return t


# --- what a file commits ---------------------------------------------------------------------------

def held_before(state: dict[str, Any], side: str) -> set[str]:
    """The items ``side`` committed before the file being checked (the state the module resolves
    already holds the file's own commitments, each ``since`` the next state)."""
    seq = int(state.get("pbem", {}).get("sequence", 0))
    hidden = {i for i, rec in state.get("hidden", {}).get(side, {}).items() if int(rec["versions"][0].get("since", 0)) <= seq}
    return hidden | set(state.get("opened", {}).get(side, {}))


def next_item(state: dict[str, Any], side: str, unit: str) -> str:
    """A revealed block's next item: ``ID.N``, one more than any item of the block so far."""
    held = held_before(state, side)
    n = max([1, *(int(i.split(".")[2]) for i in held if i != unit and base_id(i) == unit)])
    return f"{unit}.{n + 1}"


def is_hidden_production(ctx: Ctx) -> bool:
    """4.5: in a game with fog of war builds and replacements are hidden values (made by fog.py)."""
    return ctx.secret


def items_due(state: dict[str, Any], ctx: Ctx, side: str, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The items a file of ``side`` commits, each with what it is: the side's blocks not committed
    yet (the set-up: the Allies' in the set-up file, the Axis's in its first orders, J-0); in the
    production of its move step, each block built (item: its id, 4.4) and each block replaced (its
    item's new version, or a new item ``ID.N`` for a revealed block, 4.3)."""
    due: dict[str, dict[str, Any]] = {}
    held = held_before(state, side)
    for u in ctx.party_units(side):
        item = ctx.units[u].get("item")
        if item and item not in held:
            due[str(item)] = {"kind": "setup", "unit": u}
    if ctx.phase != MOVE or pty.side_of_party(side) != ctx.side:
        return due
    prod = body.get("production", {}) if isinstance(body.get("production"), dict) else {}
    for i, b in enumerate(prod.get("build", [])):
        uid = str(b.get("id", ""))
        if uid:
            due[uid] = {"kind": "build", "unit": uid, "nation": str(b.get("nation", "")), "where": f"production.build[{i}]"}
    for i, r in enumerate(prod.get("replace", [])):
        u = str(r.get("unit", ""))
        if u not in ctx.units or ctx.party_of(u) != side:
            continue
        item = ctx.units[u].get("item")
        if item:
            due[str(item)] = {"kind": "replace", "unit": u, "block": ctx.block(u), "where": f"production.replace[{i}]"}
        else:
            due[next_item(state, side, u)] = {"kind": "replace", "unit": u, "block": ctx.block(u), "was": ctx.steps(u),
                                              "where": f"production.replace[{i}]"}
    return due


def _value_problems(sc: Any, unit: str, value: Any, where: str, nation: str = "") -> list[Problem]:
    """D-5: a hidden value is a block type of the id's nation and colour, at 1 to its full steps."""
    if not isinstance(value, dict) or not isinstance(value.get("block"), str) or type(value.get("steps")) is not int:
        return [Problem(where, f"{value!r} is not a block's type and steps ({{ block = \"TYPE\", steps = N }})", "D-5")]
    allowed = id_blocks(sc, unit)
    b = str(value["block"])
    if b not in allowed or (nation and allowed[b].nation not in (nation, NEUTRAL)):
        kinds = ", ".join(sorted(allowed)) or "none"
        return [Problem(where, f"'{b[:40]}' is not a block type of {unit}'s nation and colour ({kinds})", "D-5")]
    if not 1 <= int(value["steps"]) <= allowed[b].steps:
        return [Problem(where, f"{value['steps']} steps; {b} has 1 to {allowed[b].steps}", "D-5")]
    return []


def file_problems(state: dict[str, Any], ctx: Ctx, submission: Submission) -> list[Problem]:
    """J-0, 4.5: a file's [hidden] items are exactly those its step commits (``items_due``; none in a
    game with a referee or without fog of war), builds and replacements name no type nor steps in
    the open, each nation's hidden spending is declared (``hidden_werps``); in the sender's own
    draft (values not yet sealed) each value is a block of the id's nation and colour within its
    steps, an area's set-up values are the scenario's set-up of that area (D-6), a replacement adds
    steps to the revealed block's type, and the builds' and replacements' costs (4.43) make each
    nation's ``hidden_werps``. The draft's values are written into ``ctx`` so that the sender's own
    check of its orders sees its blocks (the adjudicator's check sees commitments only)."""
    from pbem.exchange.hidden import is_sealed_entry

    body = submission.body
    hidden = dict(body.get("hidden", {}))
    side = submission.side
    prod = body.get("production", {}) if isinstance(body.get("production"), dict) else {}
    if not ctx.secret:
        out = [Problem(f"hidden.{k}", "nothing is hidden in this game: with a referee (or the option fog off) every "
                       "block is written in the open", "J-0") for k in sorted(hidden)]
        return out
    due = items_due(state, ctx, side, body)
    problems = [Problem(f"hidden.{k}", f"the file does not commit {k} ("
                        + (f"it commits {', '.join(sorted(due))}" if due else "it commits nothing") + ")", "J-0")
                for k in sorted(hidden) if k not in due]
    for item, what in sorted(due.items()):
        if item not in hidden:
            why = {"setup": "the set-up of your block", "build": "the block built", "replace": "the block replaced"}[what["kind"]]
            problems.append(Problem("hidden", f"{item} is missing: the file commits {why} {what['unit']} "
                                    f'([hidden] "{item}" = {{ block = "TYPE", steps = N }}; pbem sign seals it)',
                                    "J-0" if what["kind"] == "setup" else "4.5"))
    spent: dict[str, list[str]] = {}
    if ctx.phase == MOVE and pty.side_of_party(side) == ctx.side:
        problems += _production_problems(state, ctx, side, prod, spent)
    plain = {k: v for k, v in hidden.items() if k in due and not is_sealed_entry(v)}
    if not plain:
        return problems
    for item, value in sorted(plain.items()):
        what = due[item]
        bad = _value_problems(ctx.sc, what["unit"], value, f"hidden.{item}", str(what.get("nation", "")))
        problems += bad
        if bad:
            continue
        if what.get("block") and value["block"] != what["block"]:
            problems.append(Problem(f"hidden.{item}", f"{what['unit']} is a {what['block']} (revealed); it cannot become a "
                                    f"{value['block']}", "6.74"))
        if what.get("was") is not None and int(value["steps"]) <= int(what["was"]):
            problems.append(Problem(f"hidden.{item}", f"{what['unit']} has {what['was']} step(s); a replacement adds steps "
                                    f"({value['steps']} is not more)", "4.3"))
        if what["kind"] == "setup" and what["unit"] in ctx.units:  # the sender's own check sees its blocks
            ctx.units[what["unit"]]["block"] = value["block"]
            ctx.units[what["unit"]]["steps"] = int(value["steps"])
    problems += _setup_draft_problems(ctx, due, plain)
    problems += _werps_draft_problems(ctx, due, plain, prod, spent)
    return problems


def _production_problems(state: dict[str, Any], ctx: Ctx, side: str, prod: dict[str, Any],
                         spent: dict[str, list[str]]) -> list[Problem]:
    """4.5: builds and replacements hidden, their nations' hidden spending declared."""
    problems = []
    taken = set(ctx.units) | held_before(state, side)
    for i, b in enumerate(prod.get("build", [])):
        w = f"production.build[{i}]"
        nat = str(b.get("nation", ""))
        uid = str(b.get("id", ""))
        if not uid:
            problems.append(Problem(f"{w}.id", "with fog of war a build names the new block's id (its hidden item)", "4.5"))
            continue
        if uid in taken:
            problems.append(Problem(f"{w}.id", f"{uid} is already a block or a hidden item of the game: a new block takes the "
                                    "next free number of its nation", "4.4"))
        elif not id_blocks(ctx.sc, uid) or nation_code(nat) != uid.split(".")[0].removesuffix("-e") \
                or not _one_spelling(uid):
            problems.append(Problem(f"{w}.id", f"{uid} is not an id of a {nat} block (D-5: {nation_code(nat)}.NN, elite "
                                    f"{nation_code(nat)}-e.NN)", "D-5"))
        taken.add(uid)
        spent.setdefault(nat, []).append(uid)
    for r in prod.get("replace", []):
        u = str(r.get("unit", ""))
        if u in ctx.units and ctx.party_of(u) == side:
            spent.setdefault(ctx.nation(u), []).append(u)
    return problems


def _setup_draft_problems(ctx: Ctx, due: dict[str, dict[str, Any]], plain: dict[str, Any]) -> list[Problem]:
    """D-6: the values given to an area's blocks are the scenario's set-up of that area."""
    problems = []
    seen: set[str] = set()
    for item, what in sorted(due.items()):
        if what["kind"] != "setup" or item in seen:
            continue
        area, ids, want = setup_group(ctx.sc.id, item, ctx.options)
        seen.update(ids)
        if not ids or not all(i in plain and isinstance(plain[i], dict) for i in ids):
            continue
        got = Counter((str(plain[i].get("block")), int(plain[i].get("steps", 0))) for i in ids)
        if got != want:
            problems.append(Problem("hidden", f"{', '.join(ids)} in {area} are given {_set_text(got)}; the scenario sets up "
                                    f"{_set_text(want)} there (any order)", "D-6"))
    return problems


def _werps_draft_problems(ctx: Ctx, due: dict[str, dict[str, Any]], plain: dict[str, Any], prod: dict[str, Any],
                          spent: dict[str, list[str]]) -> list[Problem]:
    """4.5, 4.43: the hidden builds' and replacements' costs make the declared hidden_werps (when
    the draft knows each: builds, and replacements of revealed blocks; a hidden block's former
    steps are in its earlier commitment, checked when it is opened)."""
    problems = []
    declared = prod.get("hidden_werps", {})
    for nat, units in sorted(spent.items()):
        mine = {i: w for i, w in due.items() if w["kind"] != "setup" and w["unit"] in units}
        total: int | None = 0
        for item, what in sorted(mine.items()):
            v = plain.get(item)
            if total is None or not isinstance(v, dict) or v.get("block") not in ctx.sc.units.blocks:
                total = None
            elif what["kind"] == "build":
                total += step_cost(ctx, v["block"], True) + (int(v["steps"]) - 1) * step_cost(ctx, v["block"], False)
            elif what.get("was") is not None:
                total += (int(v["steps"]) - int(what["was"])) * step_cost(ctx, v["block"], False)
            else:
                total = None
        free = axis_powers.free_werps(ctx, prod, nat) + allied_powers.free_werps(ctx, prod, nat)  # 9.15, 9.24e-f
        if total is not None and nat in declared and int(declared[nat]) + free != total:
            problems.append(Problem(f"production.hidden_werps.{nat}", f"the hidden builds and replacements of {nat} cost "
                                    f"{total} WERPs (4.43); {declared[nat]} declared", "4.5"))
    return problems


# --- resolving -------------------------------------------------------------------------------------

def before_resolve(state: dict[str, Any], ctx: Ctx, sub: Submission) -> None:
    """6.24: the blocks opened in this step are face-up: their values (less the steps lost while
    hidden, 7.9) made public in the working position. 4.5: the file's hidden builds and
    replacements made, each with a claim of its nation's declared hidden spending."""
    open_awaited(state, ctx)
    file_values(state, ctx, sub)


def open_awaited(state: dict[str, Any], ctx: Ctx) -> None:
    """6.24: the blocks opened in this step face-up (before_resolve)."""
    for side, items in sorted(state["awaits"].get("open", {}).items()):
        for item in items:
            rec = state.get("opened", {}).get(side, {}).get(item)
            if rec is None:
                continue
            value = rec["values"][-1]
            u = next((x for x, s in ctx.units.items() if s.get("item") == item), None)
            if u is None:
                continue
            s = ctx.units[u]
            lost = int(s.pop("lost", 0))
            s.pop("item", None)
            s["block"] = str(value["block"])
            s["steps"] = int(value["steps"]) - lost
            ctx.emit("revealed", "6.24", unit=u, side=side, nation=ctx.nation(u), at=ctx.at(u), block=s["block"],
                     steps=s["steps"], lost=lost)


def file_values(state: dict[str, Any], ctx: Ctx, sub: Submission) -> None:
    """4.5: a file's hidden builds and replacements made (before_resolve)."""
    if sub.digest and ctx.phase == MOVE and pty.side_of_party(sub.side) == ctx.side:
        _hidden_production(state, ctx, sub)
    items = [k for k in sorted(sub.body.get("hidden", {}))]
    if items:
        ctx.emit("committed", "4.5" if ctx.phase == MOVE else "J-0", side=sub.side, items=len(items), what="values")


def _hidden_production(state: dict[str, Any], ctx: Ctx, sub: Submission) -> None:
    """4.4, 4.3, 4.5: the hidden builds placed (public: nation, area, id), the replaced blocks' new
    items; on each a claim of its nation's group (the declared total, the costs of its possible
    types, the force pool: 4.4) that its opening checks once every item of the group is opened."""
    prod = sub.body.get("production", {})
    if not isinstance(prod, dict):
        return
    side = sub.side
    due = items_due(state, ctx, side, sub.body)
    before = {u: dict(s) for u, s in ctx.units.items()}
    groups: dict[str, dict[str, Any]] = {}
    for item, what in sorted(due.items()):
        if what["kind"] == "setup":
            continue
        u = what["unit"]
        if what["kind"] == "build":
            b = next(x for x in prod.get("build", []) if str(x.get("id", "")) == u)
            nat = str(b["nation"])
            ctx.units[u] = {"nation": nat, "elite": u.split(".")[0].endswith("-e"), "at": str(b["area"]), "item": u}
            ctx._where = None
            member: dict[str, Any] = {"kind": "build", "version": 0}
        else:
            nat = ctx.nation(u)
            s = ctx.units[u]
            versions = state.get("hidden", {}).get(side, {}).get(item, {}).get("versions", [])
            if what.get("was") is not None:  # a revealed block: its strength hidden again, a new item
                s.pop("steps", None)
                s["item"] = item
                member = {"kind": "replace", "version": 0, "was": int(what["was"])}
            else:
                member = {"kind": "replace", "version": max(len(versions) - 1, 0), "lost": int(s.pop("lost", 0))}
        g = groups.setdefault(nat, {"members": {}, "units": {}})
        g["members"][item] = member
        g["units"][item] = u
    declared = prod.get("hidden_werps", {})
    for nat, g in sorted(groups.items()):
        kinds = sorted({k for u in g["units"].values() for k in id_blocks(ctx.sc, u) if ctx.sc.units.blocks[k].nation in (nat, NEUTRAL)})
        costs = {k: [step_cost(ctx, k, True), step_cost(ctx, k, False)] for k in kinds}
        builds = [i for i, m in g["members"].items() if m["kind"] == "build"]
        pool: dict[str, Any] = {}
        if builds:  # 4.4: the blocks of the nation on the map before the builds, known by type or hidden
            known = Counter(str(s["block"]) for x, s in before.items() if s.get("nation") == nat and s.get("block"))
            pool = {"known": {k: known[k] for k in kinds if known[k]},
                    "hidden": sorted(str(s["item"]) for x, s in before.items() if s.get("nation") == nat and not s.get("block")
                                     and s.get("item"))}
        free = axis_powers.free_werps(ctx, prod, nat) + allied_powers.free_werps(ctx, prod, nat)  # 9.15, 9.24e-f
        claim = {"werps": int(declared.get(nat, 0)) + free, "nation": nat, "members": g["members"], "costs": costs,
                 "rule": "4.5", "why": f"{nat}'s hidden production"}
        if pool:
            claim["pool"] = pool
        for item, u in sorted(g["units"].items()):
            ctx.claims.append((side, item, {"unit": u, "step": ctx.step, **copy.deepcopy(claim)}))


def cadre_problems(ctx: Ctx, final: dict[str, Any], problems: list[Problem]) -> None:
    """7.9 (fog of war): each block named in ``[final] cadres`` is one of the phasing side's blocks
    whose steps are hidden, in an area given Limited Supply, named once."""
    areas = {str(a) for a in final.get("limited_supply", [])}
    names = [str(u) for u in final.get("cadres", [])]
    for i, u in enumerate(names):
        w = f"final.cadres[{i}]"
        if u not in ctx.units or ctx.side_of(u) != ctx.side:
            problems.append(Problem(w, f"'{u[:20]}' is not a block of the {ctx.side}", "7.9"))
        elif ctx.steps(u) is not None:
            problems.append(Problem(w, f"{u}'s steps are known ({ctx.steps(u)}): 7.9 applies to it in the open", "7.9"))
        elif ctx.at(u) not in areas:
            problems.append(Problem(w, f"{u} is in {ctx.at(u)}, which is not given Limited Supply", "7.9"))
        elif names.index(u) != i:
            problems.append(Problem(w, f"{u} is named twice", "7.9"))


def after_step(state: dict[str, Any], ctx: Ctx, out: dict[str, Any]) -> None:
    """6.24: every hidden block in a contested area is opened in the next step: by the side that
    sends its file, or by the adjudicator in the state it seals (the core's ``awaits.open``). A block
    whose value is not committed yet is opened once it is. Before a combat or breakthrough step the
    defender (its adjudicator) also opens each hidden block its standing instructions bring into a
    battle in a contested area (7.6 reinforce, 7.7 counterattack): it would fight there face-up."""
    hidden = out.get("hidden", state.get("hidden", {}))
    aw = out["awaits"]
    ask: dict[str, list[str]] = {}
    for u in sorted(ctx.units):
        s = ctx.units[u]
        item = s.get("item")
        if not item or not ctx.contested(str(s["at"])):
            continue
        owner = ctx.party_of(u)
        if item in hidden.get(owner, {}) and (owner in aw["from"] or owner == aw["adjudicator"] or ctx.party_standing is not None):
            ask.setdefault(owner, []).append(str(item))
    dfd = other(ctx.side)  # 7.6, 7.7: a block the defender's standing instructions bring into a battle fights face-up
    if out["clock"]["phase"] in (COMBAT, BREAKTHROUGH) and (dfd == aw["adjudicator"] or ctx.party_standing is not None):
        for key in ("reinforce", "counterattack"):
            for e in ctx.standing.get(dfd, {}).get(key, []):
                u = str(e.get("unit", ""))
                item = ctx.units.get(u, {}).get("item")
                owner = ctx.party_of(u) if u in ctx.units else ""
                if item and ctx.contested(str(e.get("area", ""))) and ctx.side_of(u) == dfd and item in hidden.get(owner, {}) \
                        and item not in ask.get(owner, []):
                    ask.setdefault(owner, []).append(str(item))
    for owner in sorted(ask):  # three players: an Allied party owing openings in a step it neither sends nor adjudicates
        if owner not in aw["from"] and owner != aw["adjudicator"]:  # sends a file that opens them (parties.py)
            aw["from"] = sorted([*aw["from"], owner])
    if ask:
        aw["open"] = {k: sorted(set(v)) for k, v in sorted(ask.items())}


# --- refereed games: views and reports -------------------------------------------------------------

def view_position(state: dict[str, Any], side: str) -> dict[str, Any]:
    """J-0 1: a side sees its own blocks in full; the other side's outside contested areas show
    their location, nation and colour only (6.24, 6.74: face-up while the area is contested)."""
    pos: dict[str, Any] = copy.deepcopy(dict(state["position"]))
    if side not in (AXIS, ALLIES, *pty.ALLIED):
        return pos
    ctx = context(state)
    contested = set(pos.get("contested", {}))
    for u, s in pos.get("units", {}).items():
        if not _sees(ctx, side, u) and str(s["at"]) not in contested:
            for k in ("block", "steps", "lost"):
                s.pop(k, None)
    return pos


def _sees(ctx: Ctx, party: str, u: str) -> bool:
    """Whether ``party`` sees the block's type and steps (refereed game): its own; three players:
    the other Allied player's too with ``allied_view = "shared"`` (the rules' one Allied side)."""
    mine = ctx.party_of(u)
    if mine == party:
        return True
    return mine in pty.ALLIED and party in pty.ALLIED and ctx.option("allied_view") == "shared"


def side_events(state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
    """A refereed game's report for ``side``: an event of the other side's block outside combat that
    names its type or steps (a build, a replacement, a supply loss: 4.5, J-0) is told without them."""
    if side not in (AXIS, ALLIES, *pty.ALLIED):
        return list(events)
    ctx = context(state)
    out = []
    shared = ctx.option("allied_view") == "shared"
    for e in events:
        u = e.data.get("unit")
        nat = e.data.get("nation")
        if not isinstance(nat, str) and isinstance(u, str) and u in state["position"].get("units", {}):
            nat = str(state["position"]["units"][u]["nation"])
        theirs = isinstance(nat, str) and ctx.party_of_nation(nat) != side \
            and not (shared and side in pty.ALLIED and ctx.party_of_nation(nat) in pty.ALLIED)
        if theirs and e.kind == "werps":  # 4.5: the spending is public, what was built or replaced is not
            out.append(_werps_seen(e))
            continue
        telling = any(k in e.data for k in ("block", "steps", "left", "cost", "type", "kind"))
        if theirs and telling and not str(e.rule).startswith(COMBAT_RULES):
            keep: dict[str, Any] = {k: e.data[k] for k in ("unit", "nation", "at", "area", "why") if k in e.data}
            out.append(Event("unseen", e.rule, {"event": e.kind, **keep}))
        else:
            out.append(e)
    return out


def _werps_seen(e: Event) -> Event:
    """The other side's production as it sees it (4.5): the WERPs announced and spent, the builds'
    and replacements' lines (which name the block types and steps) told as one total."""
    mine = ("4.4, 4.43", "4.3, 4.43")
    spent = [x for x in e.data.get("spent", []) if str(x.get("rule")) not in mine]
    hidden = sum(int(x["werps"]) for x in e.data.get("spent", []) if str(x.get("rule")) in mine)
    return Event(e.kind, e.rule, {**e.data, "spent": spent, "hidden": int(e.data.get("hidden", 0)) + hidden})


# --- openings ----------------------------------------------------------------------------------------

def _cmp(op: str, have: int, n: int, full: int) -> bool:
    return {">=": have >= n, "==": have == n, "<=": have <= n, "full": have == full, "below-full": have < full}.get(op, False)


def check_opening(state: dict[str, Any], owner: str, item: str, values: list[Any],
                  versions: list[dict[str, Any]]) -> list[Problem]:
    """6.24, J-0: a block's opened values against what the game recorded of it while hidden: a block
    type of its id's nation and colour, the same type in every version (and the revealed type of
    an ``ID.N`` item); every claim: the type a rule needed (``ctx.need``: 5.12, 7.3 ...), the steps
    (``ctx.need_steps``; the steps lost while hidden, 7.9, counted in order); a rearguard's total
    steps (5.14, ``group_steps``) once every hidden block of it is opened; the scenario's set-up
    of its area (D-6) once the side's blocks set up there are all opened; its nation's hidden
    production (4.5, 4.43: the costs of the group's items make the declared total; 4.4: the force
    pool) once every item of the group is opened."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    unit = base_id(item)
    where = f"hidden.{owner}.{item}"
    problems: list[Problem] = []
    for v, value in enumerate(values):
        problems += _value_problems(sc, unit, value, f"{where}[{v}]")
    if problems:
        return problems
    block = str(values[0]["block"])
    bt = sc.units.blocks[block]
    if any(str(x["block"]) != block for x in values):
        problems.append(Problem(where, f"{unit} opens as {', '.join(str(x['block']) for x in values)}: a block never changes "
                                "its type", "D-5"))
    opt = dict(state.get("options", {}))
    if bt.nation != NEUTRAL and pty.party_of_nation(opt, bt.nation, sc.units.side_of(bt.nation)) != owner:
        problems.append(Problem(where, f"{block} is not a block of the {owner}", "D-4"))
    for value, version in zip(values, versions, strict=True):
        for c, have, lost in _claims_steps(value, version):
            when = f"in state {int(c.get('at', 0)):04d}" if "at" in c else "while hidden"
            rule = str(c.get("rule", "J-0"))
            u = str(c.get("unit", unit))
            if "types" in c and bt.type not in c["types"]:
                problems.append(Problem(where, f"{u} {c.get('why', 'acted')} {when}, which needs a block of type "
                                        f"{' or '.join(c['types'])}; it opens as {block} ({bt.type})", rule))
            if "steps" in c and not _cmp(str(c["steps"]), have, int(c.get("n", 0)), bt.steps):
                need = {"full": "full strength", "below-full": f"fewer than its full {bt.steps} steps"}.get(
                    str(c["steps"]), f"{c['steps']} {c.get('n')} step(s)")
                problems.append(Problem(where, f"{u} {c.get('why', 'acted')} {when}, which needs {need}; it had {have} "
                                        f"({block} committed at {value['steps']}" + (f", {lost} lost since" if lost else "") + ")", rule))
            if "either" in c and not any(("types" not in alt or bt.type in alt["types"])
                                         and ("steps" not in alt or _cmp(str(alt["steps"]), have, int(alt.get("n", 0)), bt.steps))
                                         for alt in c["either"]):
                alts = " or ".join(f"a block of type {' or '.join(alt['types'])}" if "types" in alt else
                                   f"{alt['steps']} {alt.get('n')} step(s)" for alt in c["either"])
                problems.append(Problem(where, f"{u} {c.get('why', 'acted')} {when}, which needs {alts}; it had {block} "
                                        f"({bt.type}) at {have} step(s)", rule))
            if "block" in c and c["block"] != block:
                problems.append(Problem(where, f"{u} was revealed as {c['block']} {when}; it opens as {block}", rule))
            if "members" in c:
                problems += _group_problems(sc, state, owner, item, values, c, where)
            if "group_steps" in c:
                problems += _group_steps_problems(state, owner, item, have, c, where)
    problems += _setup_problems(sc, state, owner, item, values, where)
    return problems


def _claims_steps(value: Any, version: dict[str, Any]) -> list[tuple[dict[str, Any], int, int]]:
    """Each claim of a version with the block's steps when it was made: the version's value less
    the steps lost while hidden before it (7.9, counted in the claims' order), and those lost."""
    out = []
    lost = 0
    for c in version.get("claims", []):
        out.append((c, int(value["steps"]) - lost, lost))
        lost += int(c.get("lost", 0))
    return out


def _group_steps_problems(state: dict[str, Any], owner: str, item: str, have: int, c: dict[str, Any],
                          where: str) -> list[Problem]:
    """5.14 (A-60): once every hidden block of a rearguard is opened, their steps when it stayed
    (``have`` for the item being opened; an item opened before it by its last value less the steps
    it had lost while hidden then, recorded in the claim: a rearguard stands in a contested area
    and is opened in the next step, 6.24) and the steps of its known blocks make at least the
    number of enemy units it stayed against."""
    g = c["group_steps"]
    steps: dict[str, int] = {}
    for m in g["items"]:
        if m == item:
            steps[m] = have
            continue
        vals = _values_of(state, owner, m, item, [])
        if vals is None:
            return []  # checked when the last of them is opened
        steps[m] = int(vals[-1]["steps"]) - int(g.get("lost", {}).get(m, 0))
    total = sum(steps.values()) + int(g.get("known", 0))
    if total >= int(g["at_least"]):
        return []
    when = f"in state {int(c.get('at', 0)):04d}" if "at" in c else "while hidden"
    each = ", ".join(f"{u} {steps[m]}" for u, m in zip(g["units"], g["items"], strict=True))
    known = f", and {g['known']} of its known blocks" if g.get("known") else ""
    return [Problem(where, f"{', '.join(g['units'])} stayed as {c.get('why', 'a rearguard')} {when}, which needs at least "
                    f"{g['at_least']} step(s) (the enemy's units there); they had {total} ({each}{known})",
                    str(c.get("rule", "5.14")))]


def _values_of(state: dict[str, Any], owner: str, item: str, current: str, values: list[Any]) -> list[Any] | None:
    if item == current:
        return values
    rec = state.get("opened", {}).get(owner, {}).get(item)
    return list(rec["values"]) if rec is not None else None


def _setup_problems(sc: Any, state: dict[str, Any], owner: str, item: str, values: list[Any], where: str) -> list[Problem]:
    """D-6: once every block the side set up in an area is opened, their first values are the
    scenario's set-up of that area."""
    if base_id(item) != item:
        return []
    area, ids, want = setup_group(sc.id, item, dict(state.get("options", {})))
    if not ids or item not in ids:
        return []
    got: Counter[tuple[str, int]] = Counter()
    for i in ids:
        vals = _values_of(state, owner, i, item, values)
        if vals is None:
            return []  # checked when the last of them is opened
        got[(str(vals[0]["block"]), int(vals[0]["steps"]))] += 1
    if got == want:
        return []
    return [Problem(where, f"{', '.join(ids)}, set up in {area}, open as {_set_text(got)}; the scenario sets up "
                    f"{_set_text(want)} there", "D-6")]


def _group_problems(sc: Any, state: dict[str, Any], owner: str, item: str, values: list[Any], c: dict[str, Any],
                    where: str) -> list[Problem]:
    """4.5, 4.43: once every item of a nation's hidden production is opened, their costs make the
    declared total; 4.4: no block type built beyond its force pool."""
    got: dict[str, list[Any]] = {}
    for m in c["members"]:
        vals = _values_of(state, owner, m, item, values)
        if vals is None:
            return []
        got[m] = vals
    total = 0
    problems = []
    costs = c.get("costs", {})
    built: Counter[str] = Counter()
    for m, spec in sorted(c["members"].items()):
        v = int(spec.get("version", 0))
        if v >= len(got[m]):
            return [Problem(where, f"{m} has no version {v}, which the hidden production of {c.get('nation')} made", "4.5")]
        val = got[m][v]
        b = str(val["block"])
        if b not in costs:
            problems.append(Problem(where, f"{m} opens as {b}, not a block {c.get('nation')} could build", "4.4"))
            continue
        cadre, step = (int(x) for x in costs[b])
        if spec["kind"] == "build":
            total += cadre + (int(val["steps"]) - 1) * step
            built[b] += 1
            continue
        was = spec.get("was")
        if was is None:
            if v == 0:
                continue
            was = int(got[m][v - 1]["steps"]) - int(spec.get("lost", 0))
        added = int(val["steps"]) - int(was)
        if added < 1:
            problems.append(Problem(where, f"{m} was replaced from {was} to {val['steps']} step(s): a replacement adds steps", "4.3"))
        total += max(added, 0) * step
    if total != int(c["werps"]):
        problems.append(Problem(where, f"the hidden builds and replacements of {c.get('nation')} ({', '.join(sorted(c['members']))}) "
                                f"cost {total} WERPs (4.43); {c['werps']} were declared and paid", "4.5"))
    pool = c.get("pool")
    if pool and built:
        for b, n in sorted(built.items()):
            held = int(pool.get("known", {}).get(b, 0))
            for h in pool.get("hidden", []):
                vals = _values_of(state, owner, h, item, values)
                if vals is not None and str(vals[0]["block"]) == b:
                    held += 1
            if held + n > sc.units.blocks[b].count:
                problems.append(Problem(where, f"{n} {b} built with {held} on the map; the force pool has "
                                        f"{sc.units.blocks[b].count}", "4.4"))
    return problems


# --- reports ---------------------------------------------------------------------------------------

def _r_setup(e: Event) -> list[str]:
    return ["- Fog of war (J-0): every block stands hidden; the Allies commit their blocks' types and steps in the set-up, "
            "the Axis in its first orders (each area's blocks are the scenario's set-up of that area, D-6)."]


def _r_committed(e: Event) -> list[str]:
    d = e.data
    return [f"- The {d['side']} commit {d['items']} hidden value(s) ({d['what']}; sealed: the type and steps stay hidden "
            f"until opened, {e.rule})."]


def _r_revealed(e: Event) -> list[str]:
    d = e.data
    lost = f", {d['lost']} step(s) lost while hidden taken off" if d.get("lost") else ""
    return [f"- {d['unit']} ({d['nation']}) in {d['at']} is face-up: {d['block']}, {d['steps']} step(s){lost} ({e.rule})."]


def _r_build(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['nation'].capitalize()} builds {d['unit']} in {d['at']}; its type and steps are hidden ({e.rule}, 4.5)."]


def _r_replace(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['nation'].capitalize()} replaces steps of {d['unit']} in {d['at']}; its new strength is hidden "
            f"(item {d['item']}; {e.rule}, 4.5)."]


def _r_lost(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['unit']} ({d['nation']}, hidden) loses a step in {d['at']} ({d['why']}, {e.rule}); {d['lost']} lost "
            "while hidden, taken off when it is opened."]


def _r_unseen(e: Event) -> list[str]:
    d = e.data
    at = d.get("at") or d.get("area") or "?"
    return [f"- {d.get('unit', 'a block')} ({d.get('nation', '?')}) in {at}: {d['event']} ({e.rule}); its type and steps "
            "are hidden from you (J-0)."]


RENDER: dict[str, Any] = {"fog-setup": _r_setup, "committed": _r_committed, "revealed": _r_revealed,
                          "hidden-build": _r_build, "hidden-replace": _r_replace, "hidden-step-lost": _r_lost,
                          "unseen": _r_unseen}
