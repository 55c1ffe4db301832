"""Skirmish rules (docs/skirmish.md): movement (3.x), combat (4.x), victory (5.x), the defender's
losses and its reply (6.x). Every problem and event cites its rule.

``unit_type`` is the one place where a unit's type is read: its allowance (3.2) and its strength
(4.3) come from it, and nothing else looks at the scenario's type of a unit. Each move records
its path and its cost (3.2) in its event, so that what a move claims of the unit's type (an
allowance of at least that cost) is known from the public position alone.
"""

from __future__ import annotations

import copy
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
    return Ctx(sc, int(c["turn"]), side or str(c["side"]), copy.deepcopy(pos["units"]), dict(pos["control"]),
               copy.deepcopy(state.get("standing", {})), game_turns(sc, state.get("options", {})), dice)


def game_turns(sc: Scenario, options: dict[str, Any]) -> int:
    """5.3: the number of game turns: the option `turns`, else the scenario's."""
    return int(options.get("turns", sc.turns))


# --- a unit's type --------------------------------------------------------------------------------

def unit_type(ctx: Ctx, unit: str) -> UnitType:
    """1.3: the type of a unit. The only function that reads it."""
    return TYPES[ctx.sc.units[unit].type]


def allowance(ctx: Ctx, unit: str) -> int:
    """3.2: the unit's movement allowance, from its type."""
    return unit_type(ctx, unit).allowance


def strength(ctx: Ctx, unit: str) -> int:
    """4.3: the unit's combat strength, from its type."""
    return unit_type(ctx, unit).strength


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
        ctx.emit("move", "3.1", index=i, unit=unit, side=ctx.side, path=[start, *mv["path"]], cost=cost,
                 rivers=sum(1 for a, b in zip([start, *mv["path"]], mv["path"], strict=False) if step_cost(ctx, a, b) == 2))
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


def open_attack(ctx: Ctx, k: int, at: dict[str, Any]) -> dict[str, Any] | None:
    """4.2-4.4: the attack's totals and die, or None when it is not made (its event says why)."""
    target = str(at["target"])
    defender = ctx.holder(target)
    attackers = [u for u in at["units"] if ctx.at(u) != ELIMINATED]
    if defender is None or defender == ctx.side:
        ctx.emit("attack-skipped", "4.2", index=k, target=target, reason="the target holds no other side's units")
        return None
    if not attackers:
        ctx.emit("attack-skipped", "4.2", index=k, target=target, reason="every attacker was eliminated")
        return None
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
        combat = open_attack(ctx, k, attacks[k])
        if combat is None:
            continue
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
