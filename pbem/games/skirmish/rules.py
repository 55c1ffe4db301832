"""Skirmish rules (docs/skirmish.md): movement (3.x), combat (4.x), victory (5.x), the defender's
losses and its reply (6.x). Every problem and event cites its rule.

``unit_type`` is the one place where a unit's type is read: its allowance (3.2) and its strength
(4.3) come from it, and nothing else looks at the scenario's type of a unit. Each move records
its path and its cost (3.2) in its event, so that what a move claims of the unit's type (an
allowance of at least that cost) is known from the public position alone.

With the option ``hidden`` (7.x) a unit's type is its side's secret until it is opened: the
type is read from the values opened (``state["opened"]``), a unit whose type is hidden moves by
the largest allowance of its side's types and each of its moves is a claim (``Ctx.claims``)
checked when the type is opened (``opening_problems``); an attack waits for the types of the
units in it, and the defender's reserve, to be opened (``to_open``).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.dice import Dice

from .data import ELIMINATED, RIVER, SIDES, TYPES, Scenario, UnitType, load_scenario

STACKING_LIMIT = 3  # 3.4: units of one side in an area
DEFENSIVE_TERRAIN = frozenset({"forest", "hills"})  # 4.3
LOSS_POLICIES = ("weakest-first", "strongest-first", "ask")  # 6.1
DEFAULT_POLICY = "ask"  # 6.1: no standing instructions, or no policy given
NO_REPLY_POLICY = "weakest-first"  # 6.3: a reply not sent by the deadline
RESERVE_POINTS = 2  # 7.6: a side's reserve
RESERVE_ITEM = re.compile(r"reserve\.([0-9]{1,2})")  # 7.6: the hidden item of a reserve, by game turn (0: the set-up)
SETUP_STEP = "setup"  # 7.2


@dataclass
class Ctx:
    """A player turn being played: the scenario, a working copy of the position, the standing
    instructions, the dice (None when only checking) and the events so far."""

    sc: Scenario
    turn: int
    side: str
    units: dict[str, dict[str, Any]]
    control: dict[str, str]
    standing: dict[str, dict[str, Any]]
    turns: int
    dice: Dice | None = None
    events: list[Event] = field(default_factory=list)
    hidden: bool = False  # 7.1: the option hidden
    types: dict[str, str] = field(default_factory=dict)  # 7.4: the types opened, by unit (option hidden)
    reserves: dict[str, tuple[str, dict[str, int] | None]] = field(default_factory=dict)  # 7.6: each side's reserve in force, None while hidden
    claims: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # 7.3, 7.6: (owner, item, claim) to record

    @property
    def step(self) -> str:
        return step_name(self.turn, self.side)

    def emit(self, kind: str, rule: str, /, **data: Any) -> None:
        self.events.append(Event(kind, rule, data))

    def at(self, unit: str) -> str:
        return str(self.units[unit]["at"])

    def side_of(self, unit: str) -> str:
        return self.sc.units[unit].side

    def in_area(self, area: str) -> list[str]:
        return sorted(u for u, s in self.units.items() if s["at"] == area)

    def holder(self, area: str) -> str | None:
        """The side whose units are in the area (an area holds one side's units, 3.3), or None."""
        units = self.in_area(area)
        return self.side_of(units[0]) if units else None

    def alive(self, side: str) -> bool:
        """2.4: a side is in the game while it has a unit on the map."""
        return any(s["at"] != ELIMINATED and self.side_of(u) == side for u, s in self.units.items())

    def on_map(self, side: str) -> list[str]:
        return sorted(u for u, s in self.units.items() if s["at"] != ELIMINATED and self.side_of(u) == side)


def step_name(turn: int, side: str) -> str:
    """2.2: the step of a player turn."""
    return f"T{turn}/{side}"


def context(state: dict[str, Any], dice: Dice | None = None, side: str | None = None) -> Ctx:
    """A working context on a state (or a view) as ``side`` (default: the side whose turn it is)."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    c = state["clock"]
    pos = state["position"]
    ctx = Ctx(sc, int(c["turn"]), side or str(c["side"]), copy.deepcopy(pos["units"]), dict(pos["control"]),
              copy.deepcopy(state.get("standing", {})), game_turns(sc, state.get("options", {})), dice)
    if is_hidden_game(state):
        ctx.hidden = True
        opened = state.get("opened", {})
        for items in opened.values():
            for item, rec in items.items():
                if item in sc.units:
                    ctx.types[item] = str(rec["values"][-1])
        for owner in SIDES:
            item = reserve_in_force(state, owner)
            if item is not None:
                rec = opened.get(owner, {}).get(item)
                ctx.reserves[owner] = (item, dict(rec["values"][-1]) if rec is not None else None)
    return ctx


def is_hidden_game(state: dict[str, Any]) -> bool:
    """7.1: the option hidden."""
    return bool(state.get("options", {}).get("hidden"))


def reserve_in_force(state: dict[str, Any], side: str) -> str | None:
    """7.6: the side's reserve committed last (hidden or opened), or None before its first."""
    items = [*state.get("hidden", {}).get(side, {}), *state.get("opened", {}).get(side, {})]
    turns = [int(m.group(1)) for i in items if (m := RESERVE_ITEM.fullmatch(i))]
    return reserve_item(max(turns)) if turns else None


def reserve_item(turn: int) -> str:
    """7.6: the item of the reserve a side commits in game turn ``turn`` (0: the set-up)."""
    return f"reserve.{turn}"


def game_turns(sc: Scenario, options: dict[str, Any]) -> int:
    """5.3: the number of game turns: the option `turns`, else the scenario's."""
    return int(options.get("turns", sc.turns))


# --- a unit's type --------------------------------------------------------------------------------

def unit_type(ctx: Ctx, unit: str) -> UnitType | None:
    """1.3: the type of a unit, the only function that reads it; with the option hidden (7.1), the
    type its side opened (7.4), or None while it is hidden."""
    if ctx.hidden:
        t = ctx.types.get(unit)
        return TYPES[t] if t is not None else None
    return TYPES[ctx.sc.units[unit].type]


def side_types(sc: Scenario, side: str) -> Counter[str]:
    """7.1: the types the scenario gives a side, which it gives its units in any order (option hidden)."""
    return Counter(u.type for u in sc.units.values() if u.side == side)


def hidden_allowance(sc: Scenario, side: str) -> int:
    """7.3: the largest allowance of the side's types: how far a unit whose type is hidden may move."""
    return max(TYPES[t].allowance for t in side_types(sc, side))


def allowance(ctx: Ctx, unit: str) -> int:
    """3.2: the unit's movement allowance, from its type; while its type is hidden, the largest of
    its side's types (7.3)."""
    t = unit_type(ctx, unit)
    return t.allowance if t is not None else hidden_allowance(ctx.sc, ctx.side_of(unit))


def strength(ctx: Ctx, unit: str) -> int:
    """4.3: the unit's combat strength, from its type (opened before any combat, 7.4)."""
    t = unit_type(ctx, unit)
    if t is None:
        raise ValueError(f"the type of {unit} is hidden: an attack waits for it to be opened (7.4)")
    return t.strength


def step_cost(ctx: Ctx, a: str, b: str) -> int:
    """3.2: entering area ``b`` from ``a``: 1, or 2 across a river."""
    return 2 if RIVER in ctx.sc.map.border_features(a, b) else 1


# --- movement -------------------------------------------------------------------------------------

def own_unit(ctx: Ctx, unit: str, where: str, rule: str, problems: list[Problem]) -> bool:
    """``unit`` is one of the side's units on the map; else a problem."""
    if unit not in ctx.sc.units or unit not in ctx.units:
        problems.append(Problem(where, f"unknown unit '{unit}'", rule))
    elif ctx.side_of(unit) != ctx.side:
        problems.append(Problem(where, f"{unit} is {ctx.side_of(unit)}'s, not {ctx.side}'s", rule))
    elif ctx.at(unit) == ELIMINATED:
        problems.append(Problem(where, f"{unit} was eliminated", rule))
    else:
        return True
    return False


def take_control(ctx: Ctx, area: str, side: str, rule: str) -> None:
    """3.5, 4.7: the side takes control of the area."""
    was = ctx.control.get(area)
    if was != side:
        ctx.control[area] = side
        ctx.emit("control", rule, area=area, side=side, was=was or "", vp=ctx.sc.vp(area))


def movement(ctx: Ctx, moves: list[dict[str, Any]], problems: list[Problem]) -> None:
    """3.1-3.5: each move in the order given, on the working position; every problem is listed
    (a move with one is left out, so the moves after it are checked against the rest)."""
    m = ctx.sc.map
    moved: dict[str, int] = {}
    for i, mv in enumerate(moves):
        where = f"move[{i}]"
        unit = str(mv["unit"])
        if not own_unit(ctx, unit, f"{where}.unit", "3.1", problems):
            continue
        if unit in moved:
            problems.append(Problem(f"{where}.unit", f"{unit} already moved in move[{moved[unit]}]; a unit moves once", "3.1"))
            continue
        start = here = ctx.at(unit)
        cost = 0
        ok = True
        for j, area in enumerate(mv["path"]):
            w = f"{where}.path[{j}]"
            if m.place(area) is None:
                problems.append(Problem(w, f"'{area}' is not an area of the map", "3.1"))
                ok = False
                break
            if area not in m.neighbours(here):
                problems.append(Problem(w, f"{area} is not adjacent to {here}", "3.1"))
                ok = False
                break
            holder = ctx.holder(area)
            if holder is not None and holder != ctx.side:
                problems.append(Problem(w, f"{area} holds {holder}'s units", "3.3"))
                ok = False
                break
            cost += step_cost(ctx, here, area)
            here = area
        if not ok:
            continue
        limit = allowance(ctx, unit)
        if cost > limit:
            problems.append(Problem(f"{where}.path", f"the path costs {cost}; {unit}'s movement allowance is {limit}", "3.2"))
            continue
        moved[unit] = i
        ctx.units[unit]["at"] = here
        claimed = {"claim": "7.3"} if unit_type(ctx, unit) is None else {}
        if claimed:
            ctx.claims.append((ctx.side, unit, {"cost": cost}))
        ctx.emit("move", "3.1", index=i, unit=unit, side=ctx.side, path=[start, *mv["path"]], cost=cost,
                 rivers=sum(1 for a, b in zip([start, *mv["path"]], mv["path"], strict=False) if step_cost(ctx, a, b) == 2),
                 **claimed)
        take_control(ctx, here, ctx.side, "3.5")
    for area in sorted({ctx.at(u) for u in moved}):
        n = len(ctx.in_area(area))
        if n > STACKING_LIMIT:
            problems.append(Problem(f"end of movement: {area}", f"{n} units of {ctx.side}; at most {STACKING_LIMIT}", "3.4"))


# --- combat ---------------------------------------------------------------------------------------

def check_attacks(ctx: Ctx, attacks: list[dict[str, Any]], problems: list[Problem]) -> None:
    """4.1, 4.7: each attack against the position after movement: its target holds another side's
    units, its attackers are the side's, adjacent to it, each in one attack; advance units attack."""
    m = ctx.sc.map
    used: dict[str, int] = {}
    for k, at in enumerate(attacks):
        where = f"attack[{k}]"
        target = str(at["target"])
        if m.place(target) is None:
            problems.append(Problem(f"{where}.target", f"'{target}' is not an area of the map", "4.1"))
            continue
        holder = ctx.holder(target)
        if holder is None or holder == ctx.side:
            problems.append(Problem(f"{where}.target", f"{target} holds no other side's units after movement", "4.1"))
        for j, unit in enumerate(at["units"]):
            w = f"{where}.units[{j}]"
            if not own_unit(ctx, unit, w, "4.1", problems):
                continue
            if unit in used:
                problems.append(Problem(w, f"{unit} already attacks in attack[{used[unit]}]; a unit attacks once", "4.1"))
                continue
            used[unit] = k
            if target not in m.neighbours(ctx.at(unit)):
                problems.append(Problem(w, f"{unit} in {ctx.at(unit)} is not adjacent to {target}", "4.1"))
        advance = list(at.get("advance", []))
        for j, unit in enumerate(advance):
            if unit not in at["units"]:
                problems.append(Problem(f"{where}.advance[{j}]", f"{unit} does not attack in this attack; only attackers advance", "4.7"))
            elif advance.index(unit) != j:
                problems.append(Problem(f"{where}.advance[{j}]", f"{unit} is listed twice", "4.7"))
        if len(set(advance)) > STACKING_LIMIT:
            problems.append(Problem(f"{where}.advance", f"{len(set(advance))} units; at most {STACKING_LIMIT} of a side in an area", "3.4"))


def combat_result(total: int) -> tuple[str, int, int]:
    """4.4: the result of a modified die: (code, attacker's loss, defender's loss)."""
    if total <= 1:
        return "A1", 1, 0
    if total <= 3:
        return "EX", 1, 1
    if total <= 5:
        return "D1", 0, 1
    return "D2", 0, 2


def die_label(ctx: Ctx, k: int, target: str) -> str:
    return f"4.4|{ctx.step}|attack {k + 1}|{target}|combat"


@dataclass(frozen=True)
class Question:
    """6.2: a decision the standing instructions leave to the defender."""

    side: str
    loss: int
    units: list[str]
    taken: list[str]


def rank(ctx: Ctx, units: list[str], policy: str) -> list[str]:
    """6.1: weakest-first: the lowest strength first, then the lowest allowance, then by id;
    strongest-first: the highest first, then by id."""
    if policy == "strongest-first":
        return sorted(units, key=lambda u: (-strength(ctx, u), -allowance(ctx, u), u))
    return sorted(units, key=lambda u: (strength(ctx, u), allowance(ctx, u), u))


def defender_losses(ctx: Ctx, side: str, defenders: list[str], n: int) -> tuple[list[str], str] | Question:
    """6.1-6.2: which defending units are lost: those of the side's `loss_order` first, then by its
    `loss_policy`; a Question when the policy is `ask` (the default) and the choice matters."""
    if n >= len(defenders):
        return list(defenders), "no choice, every defender is lost"
    st = ctx.standing.get(side, {})
    order = list(dict.fromkeys(u for u in st.get("loss_order", []) if u in defenders))
    taken = order[:n]
    rest = n - len(taken)
    candidates = [u for u in defenders if u not in taken]
    if rest == 0:
        return taken, "by its standing loss_order"
    policy = str(st.get("loss_policy", DEFAULT_POLICY))
    if policy == "ask":
        return Question(side, rest, candidates, taken)
    return taken + rank(ctx, candidates, policy)[:rest], ("by its standing loss_order, then " if taken else "by its standing ") + policy


def eliminate(ctx: Ctx, units: list[str]) -> None:
    for u in units:
        ctx.units[u]["at"] = ELIMINATED


def attack_made(ctx: Ctx, k: int, at: dict[str, Any]) -> tuple[str, list[str]] | None:
    """4.2: the defending side and the attackers left, or None when the attack is not made (its
    event says why)."""
    target = str(at["target"])
    defender = ctx.holder(target)
    attackers = [u for u in at["units"] if ctx.at(u) != ELIMINATED]
    if defender is None or defender == ctx.side:
        ctx.emit("attack-skipped", "4.2", index=k, target=target, reason="the target holds no other side's units")
        return None
    if not attackers:
        ctx.emit("attack-skipped", "4.2", index=k, target=target, reason="every attacker was eliminated")
        return None
    return defender, attackers


def to_open(ctx: Ctx, target: str, defender: str, attackers: list[str]) -> dict[str, list[str]]:
    """7.4: what must be opened before an attack is resolved (option hidden): the hidden types of
    its attackers and defenders, and the defender's reserve while it is hidden; by side."""
    if not ctx.hidden:
        return {}
    out = {ctx.side: sorted(u for u in attackers if unit_type(ctx, u) is None),
           defender: sorted(u for u in ctx.in_area(target) if unit_type(ctx, u) is None)}
    item, value = ctx.reserves.get(defender, ("", {}))
    if value is None:
        out[defender].append(item)
    return {side: items for side, items in sorted(out.items()) if items}


def reserve_points(ctx: Ctx, side: str, area: str) -> int:
    """7.7: the points of the side's reserve in force allocated to the area (opened before the attack, 7.4)."""
    value = ctx.reserves.get(side, ("", {}))[1]
    return int((value or {}).get(area, 0))


def open_attack(ctx: Ctx, k: int, at: dict[str, Any], defender: str, attackers: list[str]) -> dict[str, Any]:
    """4.3-4.4: the attack's totals and die."""
    target = str(at["target"])
    defenders = ctx.in_area(target)
    attack = sum(strength(ctx, u) for u in attackers)
    defence = sum(strength(ctx, u) for u in defenders)
    mods = []
    terrain = ctx.sc.map.place(target).terrain  # type: ignore[union-attr]
    if terrain in DEFENSIVE_TERRAIN:
        mods.append({"label": f"+1 {terrain}", "rule": "4.3"})
    across = sorted(u for u in attackers if RIVER in ctx.sc.map.border_features(ctx.at(u), target))
    if across:
        mods.append({"label": f"+1 river ({', '.join(across)})", "rule": "4.3"})
    defence += len(mods)
    reserve = reserve_points(ctx, defender, target) if ctx.hidden else 0
    if reserve:
        mods.append({"label": f"+{reserve} reserve ({ctx.reserves[defender][0]})", "rule": "7.7"})
        defence += reserve
    assert ctx.dice is not None, "combat is resolved with dice"
    die = ctx.dice.roll(die_label(ctx, k, target), 6)
    total = die + attack - defence
    code, a_loss, d_loss = combat_result(total)
    ctx.emit("attack", "4.3", index=k, target=target, side=ctx.side, defender=defender, attackers=attackers,
             defenders=defenders, **{"from": {u: ctx.at(u) for u in attackers}}, attack=attack, defence=defence, modifiers=mods, die=die, total=total, result=code,
             attacker_loss=a_loss, defender_loss=d_loss, label=die_label(ctx, k, target))
    return {"index": k, "target": target, "defender": defender, "die": die, "result": code,
            "attacker_loss": a_loss, "defender_loss": d_loss}


def finish_attack(ctx: Ctx, at: dict[str, Any], combat: dict[str, Any], lost: list[str], how: str) -> None:
    """4.5-4.7: the losses of both sides, then the advance into an emptied target."""
    k, target, defender = int(combat["index"]), str(combat["target"]), str(combat["defender"])
    if lost:
        eliminate(ctx, lost)
        ctx.emit("losses", "4.6", index=k, side=defender, role="defender", units=lost, by=how)
    attackers = [u for u in at["units"] if ctx.at(u) != ELIMINATED]
    a_lost = attackers[:int(combat["attacker_loss"])]
    if a_lost:
        eliminate(ctx, a_lost)
        ctx.emit("losses", "4.5", index=k, side=ctx.side, role="attacker", units=a_lost, by="in the attack's order of units")
    if not ctx.in_area(target):
        movers = [u for u in at.get("advance", []) if ctx.at(u) != ELIMINATED][:STACKING_LIMIT]
        if movers:
            for u in movers:
                ctx.units[u]["at"] = target
            ctx.emit("advance", "4.7", index=k, target=target, units=movers)
            take_control(ctx, target, ctx.side, "4.7")
    for side in (defender, ctx.side):
        if not ctx.alive(side):
            ctx.emit("side-out", "2.4", side=side)


def question_text(q: Question, target: str, k: int) -> str:
    return (f"choose {q.loss} of your units in {target} to lose in attack {k + 1} "
            f"(among {', '.join(q.units)})" + (f"; {', '.join(q.taken)} lost by your loss_order" if q.taken else ""))


def resolve_attacks(ctx: Ctx, attacks: list[dict[str, Any]], start: int) -> dict[str, Any] | None:
    """4.2: the attacks from ``start`` on, in order, each fully resolved; stops at a decision (6.2)
    or when one side is left (5.2). Returns the question's pending record, or None."""
    for k in range(start, len(attacks)):
        if winner(ctx) is not None:
            return None
        made = attack_made(ctx, k, attacks[k])
        if made is None:
            continue
        need = to_open(ctx, str(attacks[k]["target"]), *made)
        if need:
            q = {"side": made[0], "kind": "open", "attack": k, "target": str(attacks[k]["target"]), "open": need, "rule": "7.4",
                 "text": open_text(need, made[0], str(attacks[k]["target"]), k)}
            ctx.emit("openings-needed", "7.4", **q)
            return {"attacks": attacks, "question": q}
        combat = open_attack(ctx, k, attacks[k], *made)
        target = str(combat["target"])
        defenders = ctx.in_area(target)
        n = min(int(combat["defender_loss"]), len(defenders))
        if n == 0:
            finish_attack(ctx, attacks[k], combat, [], "")
            continue
        decided = defender_losses(ctx, str(combat["defender"]), defenders, n)
        if isinstance(decided, Question):
            q = {"side": decided.side, "kind": "losses", "attack": k, "target": target, "loss": decided.loss,
                 "units": decided.units, "taken": decided.taken, "rule": "6.2", "text": question_text(decided, target, k)}
            ctx.emit("decision-needed", "6.2", **q)
            return {"attacks": attacks, "combat": combat, "question": q}
        finish_attack(ctx, attacks[k], combat, *decided)
    return None


def open_text(need: dict[str, list[str]], defender: str, target: str, k: int) -> str:
    return (f"open {', '.join(need.get(defender, [])) or 'nothing'} (your units' types in {target}, your reserve) for attack {k + 1}"
            + "".join(f"; {side} opens {', '.join(items)} in the state it seals" for side, items in need.items() if side != defender))


def reply_problems(question: dict[str, Any], reply: dict[str, Any] | None, where: str = "reply") -> list[Problem]:
    """6.2: a reply names exactly as many units as the question asks, among those it offers."""
    if reply is None:
        return [Problem(where, "a reply file holds [reply] losses = [...]", "6.2")]
    losses = list(reply.get("losses", []))
    problems = []
    for j, u in enumerate(losses):
        if u not in question["units"]:
            problems.append(Problem(f"{where}.losses[{j}]", f"{u} is not one of the units offered ({', '.join(question['units'])})", "6.2"))
        elif losses.index(u) != j:
            problems.append(Problem(f"{where}.losses[{j}]", f"{u} is listed twice", "6.2"))
    if len(losses) != int(question["loss"]):
        problems.append(Problem(f"{where}.losses", f"{len(losses)} unit(s) named; the question asks for {question['loss']}", "6.2"))
    return problems


def answer(ctx: Ctx, question: dict[str, Any], reply: dict[str, Any] | None) -> tuple[list[str], bool]:
    """The units a reply names, or (no reply by the deadline, 6.3) weakest-first."""
    if reply is None:
        return rank(ctx, list(question["units"]), NO_REPLY_POLICY)[:int(question["loss"])], True
    return list(reply["losses"]), False


# --- the turn order and victory -------------------------------------------------------------------

def winner(ctx: Ctx) -> str | None:
    """5.2: the one side left with units."""
    left = [s for s in SIDES if ctx.alive(s)]
    return left[0] if len(left) == 1 else None


def vp(ctx: Ctx) -> dict[str, int]:
    """5.1: each side's VP, the towns it controls."""
    return {s: sum(ctx.sc.vp(a) for a, c in ctx.control.items() if c == s) for s in SIDES}


def next_player_turn(ctx: Ctx) -> tuple[int, str] | None:
    """2.1, 2.4: the next player turn of a side still in the game, or None after the last game turn."""
    turn, i = ctx.turn, SIDES.index(ctx.side)
    for _ in range(len(SIDES)):
        i += 1
        if i == len(SIDES):
            i, turn = 0, turn + 1
        if turn > ctx.turns:
            return None
        side = SIDES[i]
        if ctx.alive(side):
            return turn, side
        ctx.emit("turn-skipped", "2.4", step=step_name(turn, side), side=side)
    return None


def final_result(ctx: Ctx) -> dict[str, Any]:
    """5.3: most VP; then more units on the map; then later in the turn order."""
    points = vp(ctx)
    best = max(SIDES, key=lambda s: (points[s], len(ctx.on_map(s)), SIDES.index(s)))
    tied = [s for s in SIDES if points[s] == points[best]]
    why = f"{points[best]} VP" + ("" if len(tied) == 1 else f", tied with {', '.join(s for s in tied if s != best)}: "
                                   f"{len(ctx.on_map(best))} units on the map")
    return {"winner": best, "rule": "5.3", "reason": f"the most VP after game turn {ctx.turns} ({why})", "vp": points}


def next_side_after(ctx: Ctx, side: str) -> str:
    """2.3: the next side after ``side`` in the turn order that is still in the game."""
    i = SIDES.index(side)
    for d in range(1, len(SIDES)):
        s = SIDES[(i + d) % len(SIDES)]
        if ctx.alive(s):
            return s
    return side


# --- hidden units and reserves (option hidden, 7.x) -------------------------------------------------

def items_due(state: dict[str, Any], side: str) -> list[str]:
    """7.2, 7.6: the hidden items a side's file for the awaited step commits: in the set-up, its
    units' types and its reserve 0; in its first player turn, the first side in the turn order its
    units' types; in every player turn, its reserve of the game turn; in a reply, nothing."""
    aw = state["awaits"]
    if aw["kind"] != "orders":
        return []
    sc = load_scenario(str(state["pbem"]["scenario"]))
    units = sorted(u for u, spec in sc.units.items() if spec.side == side)
    if aw["step"] == SETUP_STEP:
        return [*units, reserve_item(0)]
    turn = int(state["clock"]["turn"])
    return [*(units if turn == 1 and side == SIDES[0] else []), reserve_item(turn)]


def reserve_problems(value: Any, areas: list[str], where: str) -> list[Problem]:
    """7.6: a reserve allocates at most its points, in all, to areas that hold the side's units."""
    if not isinstance(value, dict):
        return [Problem(where, "a reserve is a table of areas and points", "7.6")]
    problems = []
    for area, points in sorted(value.items()):
        if area not in areas:
            problems.append(Problem(f"{where}.{area}", f"{area} is not an area of the side's units when the reserve was made ({', '.join(areas) or 'none'})", "7.6"))
        if type(points) is not int or points < 1:
            problems.append(Problem(f"{where}.{area}", f"{points!r} is not a number of points (1 or more)", "7.6"))
    total = sum(p for p in value.values() if type(p) is int)
    if total > RESERVE_POINTS:
        problems.append(Problem(where, f"{total} points allocated; a reserve has {RESERVE_POINTS}", "7.6"))
    return problems


def hidden_problems(state: dict[str, Any], side: str, hidden: dict[str, Any], ctx: Ctx) -> list[Problem]:
    """7.1, 7.2, 7.6: a file's [hidden] items are exactly those its step commits (none without the
    option hidden); where the values are seen (the sender's own draft), each unit's a type, the
    side's units given exactly the side's types, the reserve allocated to areas of the side's
    units (``ctx``: the position after the file's moves)."""
    from pbem.exchange.hidden import is_sealed_entry

    if not is_hidden_game(state):
        return [Problem(f"hidden.{item}", "nothing is hidden in this game (the option hidden is off)", "7.1") for item in sorted(hidden)]
    due = items_due(state, side)
    problems = [Problem(f"hidden.{item}", f"the step does not commit {item} ({'it commits ' + ', '.join(due) if due else 'it commits nothing'})",
                        "7.2" if item in ctx.sc.units else "7.6") for item in sorted(hidden) if item not in due]
    problems += [Problem("hidden", f"{item} is missing: the step commits it", "7.2" if item in ctx.sc.units else "7.6")
                 for item in due if item not in hidden]
    plain = {k: v for k, v in hidden.items() if k in due and not is_sealed_entry(v)}
    units = [u for u in due if u in ctx.sc.units]
    given = [plain[u] for u in units if u in plain]
    if units and len(given) == len(units) and all(isinstance(t, str) and t in TYPES for t in given):
        if Counter(given) != side_types(ctx.sc, side):
            want = ", ".join(f"{n} {t}" for t, n in sorted(side_types(ctx.sc, side).items()))
            problems.append(Problem("hidden", f"{side}'s units are given {', '.join(f'{n} {t}' for t, n in sorted(Counter(given).items()))}; "
                                    f"the scenario gives {side} {want}", "7.1"))
    for u in units:
        if u in plain and (not isinstance(plain[u], str) or plain[u] not in TYPES):
            problems.append(Problem(f"hidden.{u}", f"{plain[u]!r} is not a unit type ({', '.join(TYPES)})", "1.3"))
    for item in (i for i in due if i not in ctx.sc.units and i in plain):
        problems += reserve_problems(plain[item], side_areas(ctx, side), f"hidden.{item}")
    return problems


def side_areas(ctx: Ctx, side: str) -> list[str]:
    """7.6: the areas that hold the side's units."""
    return sorted({ctx.at(u) for u in ctx.on_map(side)})


def opening_problems(state: dict[str, Any], owner: str, item: str, values: list[Any], versions: list[dict[str, Any]]) -> list[Problem]:
    """7.5: a type or reserve opened, against what the game recorded of it while it was hidden:
    each move within the type's allowance (3.2, 7.3), no more units of a type than the scenario
    gives the side (7.1, with the types the side opened before, in this step too), a reserve
    within its points and the areas it was made for (7.6)."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    problems = []
    where = f"hidden.{owner}.{item}"
    for value, version in zip(values, versions, strict=True):
        if item in sc.units:
            if sc.units[item].side != owner:
                problems.append(Problem(where, f"{item} is not a unit of {owner}", "7.2"))
                continue
            if not isinstance(value, str) or value not in TYPES:
                problems.append(Problem(where, f"{value!r} is not a unit type", "1.3"))
                continue
            t = TYPES[value]
            for claim in version["claims"]:
                if int(claim["cost"]) > t.allowance:
                    problems.append(Problem(where, f"{item} moved at a cost of {claim['cost']} in state {int(claim['at']):04d}; "
                                            f"the allowance of {value} is {t.allowance}", "3.2"))
            opened = state.get("opened", {}).get(owner, {})
            same = sum(1 for u, rec in opened.items() if u in sc.units and u != item and rec["values"][-1] == value)
            allowed = side_types(sc, owner)[value]
            if same + 1 > allowed:
                problems.append(Problem(where, f"{item} would be {owner}'s unit number {same + 1} of type {value}; "
                                        f"the scenario gives {owner} {allowed}", "7.1"))
        elif RESERVE_ITEM.fullmatch(item):
            areas = sorted({a for c in version["claims"] for a in c.get("areas", [])})
            problems += reserve_problems(value, areas, where)
        else:
            problems.append(Problem(where, "is neither a unit nor a reserve", "7.2"))
    return problems
