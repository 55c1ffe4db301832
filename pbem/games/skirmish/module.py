"""The Skirmish game module: what the engine calls (pbem.games.base.GameModule).

Sides: red, blue, green (data.SIDES, the turn order). Steps: ``T{turn}/{side}`` for a player turn's
orders, ``T{turn}/{side}/reply-{n}`` for a defender's reply during it (2.2); with the option
hidden, ``setup`` before the first (7.2); the core reports the values it opens. Event kinds: phase,
move, control, attack, attack-skipped, decision-needed, openings-needed, reply, losses, advance,
side-out, turn-skipped, committed, game-over, awaits; and the core's joined and no-orders.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import IllegalOrdersError, PbemError, Problem
from pbem.exchange.hidden import add_claim
from pbem.games.base import BundledGame, problem_rows
from pbem.mechanics.dice import Dice

from . import autoplay, catalog, data, picture, render, rules
from .data import ELIMINATED, SIDES, TYPES, load_scenario
from .rules import Ctx

COVERAGE_FILE = Path(__file__).with_name("coverage.toml")
OPTIONS = ("turns", "hidden")


class Skirmish(BundledGame):
    name = "skirmish"
    aliases: tuple[str, ...] = ("sk",)
    title = "Skirmish"
    short_title = "Skirmish"
    ruleset = "pbem-skirmish/1"
    sides: tuple[str, ...] = SIDES
    id_prefix = "sk"
    schema_dir = "skirmish"
    step_rule = "2.1"
    report_details: tuple[str, ...] = ("Attack ", "Defence ")  # the computation lines of a report (a mail leaves them out)
    coverage_file = COVERAGE_FILE
    scenario_stop = "\n[units]"  # (pbem.games.base.scenario_file_names)
    case_prefix = catalog.CASE_PREFIX  # the rules catalog's cases: SK-NNN

    # --- data ------------------------------------------------------------------------------------
    # --- what the core shows ------------------------------------------------------------------------
    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        """5.1: each side's VP."""
        return {"vp": dict(state["position"]["vp"])}

    def status_line(self, state: dict[str, Any]) -> str:
        c = state["clock"]
        vp = state["position"]["vp"]
        when = "the set-up (7.2)" if c["phase"] == "setup" else f"game turn {c['turn']}, {c['side']} {c['phase']}"
        return f"{when}; VP " + ", ".join(f"{s} {vp.get(s, 0)}" for s in SIDES)

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        """Each side's units on the map, or that it is out of the game (2.4)."""
        ctx = rules.context(state)
        return [f"{s}: {len(ctx.on_map(s))} unit(s) on the map" if ctx.alive(s) else f"{s}: out of the game (2.4)" for s in SIDES]

    def report_notes(self, events: list[Event]) -> list[str]:
        return []

    # --- game start ---------------------------------------------------------------------------------
    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        sc = load_scenario(scenario)
        unknown = sorted(k for k in options if k not in OPTIONS)
        if unknown:
            raise IllegalOrdersError(f"unknown option(s): {', '.join(unknown)}", hint=f"Known: {', '.join(OPTIONS)}.")
        opts: dict[str, Any] = {}
        if "turns" in options:
            v = options["turns"]
            if isinstance(v, bool) or not str(v).isdigit() or not 1 <= int(v) <= 99:
                raise IllegalOrdersError(f"option turns={v}: the number of game turns is a whole number from 1 to 99")
            opts["turns"] = int(v)
        if "hidden" in options:
            v = options["hidden"]
            if v not in (True, False):
                raise IllegalOrdersError(f"option hidden={v}: true or false (7.1)")
            if v:
                opts["hidden"] = True
        ctx = Ctx(sc, 1, SIDES[0], {u: {"at": s.at} for u, s in sorted(sc.units.items())}, dict(sc.control), {},
                  rules.game_turns(sc, opts))
        return {"options": opts, "clock": {"turn": 1, "side": SIDES[0], "phase": "movement"},
                "position": {"units": ctx.units, "control": ctx.control, "vp": rules.vp(ctx)}}

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        """After the joins: red's first player turn (2.1); with the option hidden, first the set-up
        in which the other sides commit their units' types and reserves (7.2), adjudicated by red."""
        ctx = rules.context(state, dice)
        if ctx.hidden:
            aw = {"kind": "orders", "step": rules.SETUP_STEP, "from": list(SIDES[1:]), "adjudicator": SIDES[0]}
            ctx.emit("awaits", "7.2", **aw)
            out = {"options": copy.deepcopy(state["options"]), "clock": {"turn": 1, "side": SIDES[0], "phase": "setup"},
                   "position": copy.deepcopy(state["position"]), "standing": ctx.standing, "awaits": aw}
            return Transition(out, tuple(ctx.events))
        return self._finish(state, ctx, None, advance=False)

    def adjudicator(self, state: dict[str, Any], awaited: str, ctx: Ctx | None = None) -> str:
        """2.3: the referee, else the next side in the turn order still in the game; a reply, the
        side whose player turn it is."""
        if "referee" in state.get("parties", {}):
            return "referee"
        ctx = ctx or rules.context(state)
        if awaited != ctx.side:
            return ctx.side
        return rules.next_side_after(ctx, awaited)

    def _finish(self, state: dict[str, Any], ctx: Ctx, pending: dict[str, Any] | None, advance: bool = True) -> Transition:
        """The next state: awaiting the defender's reply (``pending``, 6.2), or after the player turn
        (``advance``) the next side's orders (2.1, 2.4), or the end of the game (5.2, 5.3)."""
        out: dict[str, Any] = {"options": copy.deepcopy(state["options"])}
        result: dict[str, Any] | None = None
        if pending is None:
            won = rules.winner(ctx)
            if won is not None:
                result = {"winner": won, "rule": "5.2", "reason": "the only side left with units", "vp": rules.vp(ctx)}
            elif advance:
                nxt = rules.next_player_turn(ctx)
                if nxt is None:
                    result = rules.final_result(ctx)
                else:
                    ctx.turn, ctx.side = nxt
        out["position"] = {"units": ctx.units, "control": dict(sorted(ctx.control.items())), "vp": rules.vp(ctx)}
        out["standing"] = ctx.standing
        if ctx.claims:
            out["hidden"] = self._claimed(state, ctx)
        phase = "game-over" if result else "combat" if pending else "movement"
        out["clock"] = {"turn": ctx.turn, "side": ctx.side, "phase": phase}
        if result is not None:
            out["result"] = result
            # 7.8: with hidden values left, the core's last step opens them, adjudicated by the side that played last
            out["awaits"] = {"kind": "none", "step": "game-over", "from": [], "adjudicator": ctx.side if ctx.hidden else ""}
            ctx.emit("game-over", str(result["rule"]), **result, **({"reveal": "7.8"} if state.get("hidden") else {}))
        elif pending is not None:
            n = int(state.get("pending", {}).get("replies", 0)) + 1 if state["awaits"]["kind"] == "reply" else 1
            pending["replies"] = n
            out["pending"] = pending
            who = pending["question"]["side"]
            out["awaits"] = {"kind": "reply", "step": f"{ctx.step}/reply-{n}", "from": [who],
                             "adjudicator": self.adjudicator(state, who, ctx)}
            if pending["question"]["kind"] == "open":  # 7.4: the defender opens in its reply, the attacker in the state it seals
                out["awaits"]["open"] = copy.deepcopy(pending["question"]["open"])
        else:
            out["awaits"] = {"kind": "orders", "step": ctx.step, "from": [ctx.side],
                             "adjudicator": self.adjudicator(state, ctx.side, ctx)}
        ctx.emit("awaits", "2.3", **out["awaits"])
        return Transition(out, tuple(ctx.events))

    def _claimed(self, state: dict[str, Any], ctx: Ctx) -> dict[str, Any]:
        """7.3, 7.6: the hidden items with the claims of this step added."""
        work = {"pbem": state["pbem"], "hidden": copy.deepcopy(state.get("hidden", {}))}
        for owner, item, claim in ctx.claims:
            add_claim(work, owner, item, claim)
        hidden: dict[str, Any] = work["hidden"]
        return hidden

    # --- checking -------------------------------------------------------------------------------------
    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        body = submission.body
        problems = self._standing_problems(state, submission.side, body.get("standing"))
        hidden = dict(body.get("hidden", {}))
        if submission.kind == "reply":
            for key in ("move", "attack"):
                if key in body:
                    problems.append(Problem(key, "a reply holds [reply] (and [standing]), no orders", "6.2"))
            if hidden:
                problems += rules.hidden_problems(state, submission.side, hidden, rules.context(state, side=submission.side))
            q = state.get("pending", {}).get("question")
            if q is None:
                return [*problems, Problem("reply", "no decision is awaited", "6.2")]
            if q["kind"] == "open":
                if "reply" in body:
                    problems.append(Problem("reply", "this reply opens hidden values (`pbem sign` adds them) and answers nothing else", "7.4"))
                return problems
            return problems + rules.reply_problems(q, body.get("reply"))
        if "reply" in body:
            problems.append(Problem("reply", "a [reply] answers a question, in a reply file", "6.2"))
        ctx = rules.context(state, side=submission.side)
        if state["awaits"]["step"] == rules.SETUP_STEP:
            problems += [Problem(key, "the set-up commits the units' types and the reserve, nothing else", "7.2")
                         for key in ("move", "attack") if key in body]
        else:
            for i, t in self._draft_types(state, submission.side, hidden).items():
                ctx.types[i] = t  # the sender's own check sees its types: its moves by their allowance
            rules.movement(ctx, list(body.get("move", [])), problems)
            rules.check_attacks(ctx, list(body.get("attack", [])), problems)
        if hidden or ctx.hidden:
            problems += rules.hidden_problems(state, submission.side, hidden, ctx)
        return problems

    def _draft_types(self, state: dict[str, Any], side: str, hidden: dict[str, Any]) -> dict[str, str]:
        """The types a draft commits (seen by its sender's own check only), when they are types of the side's units."""
        if not rules.is_hidden_game(state):
            return {}
        sc = load_scenario(str(state["pbem"]["scenario"]))
        return {u: v for u, v in hidden.items() if u in sc.units and sc.units[u].side == side and isinstance(v, str) and v in TYPES}

    def _standing_problems(self, state: dict[str, Any], side: str, standing: dict[str, Any] | None) -> list[Problem]:
        """6.1: a loss order names the side's own units, once each."""
        if not standing:
            return []
        sc = load_scenario(str(state["pbem"]["scenario"]))
        out = []
        order = list(standing.get("loss_order", []))
        for j, u in enumerate(order):
            if u not in sc.units or sc.units[u].side != side:
                out.append(Problem(f"standing.loss_order[{j}]", f"'{u}' is not a unit of {side}", "6.1"))
            elif order.index(u) != j:
                out.append(Problem(f"standing.loss_order[{j}]", f"{u} is listed twice", "6.1"))
        return out

    # --- resolving ------------------------------------------------------------------------------------
    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        if state["awaits"]["step"] == rules.SETUP_STEP:
            return self._setup(state, submissions, dice)
        (sub,) = submissions
        problems = self.check(state, sub) if sub.digest else []  # a side adjudicated without orders sent nothing
        if problems:
            raise IllegalOrdersError(f"{sub.side}'s {sub.kind} for {state['awaits']['step']} break the rules", problems)
        ctx = rules.context(state, dice)
        if sub.body.get("standing"):
            ctx.standing[sub.side] = copy.deepcopy(sub.body["standing"])
        if sub.kind == "reply":
            pending = copy.deepcopy(state["pending"])
            q = pending["question"]
            if q["kind"] == "open":  # 7.4: the core opened the values; the attack is resolved with them
                return self._combat(state, ctx, pending["attacks"], int(q["attack"]))
            lost, default = rules.answer(ctx, q, sub.body.get("reply"))
            ctx.emit("reply", "6.2" if not default else "6.3", side=sub.side, index=int(q["attack"]), target=q["target"],
                     losses=lost, default=default)
            k = int(q["attack"])
            how = "by its reply" if not default else f"no reply, {rules.NO_REPLY_POLICY}"
            rules.finish_attack(ctx, pending["attacks"][k], pending["combat"], [*q["taken"], *lost], how)
            return self._combat(state, ctx, pending["attacks"], k + 1)
        ctx.emit("phase", "2.1", phase="movement", step=ctx.step)
        problems = []
        rules.movement(ctx, list(sub.body.get("move", [])), problems)
        if problems:  # check() found none: a safeguard
            raise IllegalOrdersError("the moves break the rules", problems)
        if ctx.hidden:  # 7.6: the reserve made for the areas of the side's units after its movement
            item = rules.reserve_item(ctx.turn)
            ctx.claims.append((sub.side, item, {"areas": rules.side_areas(ctx, sub.side)}))
            items = sorted(sub.body.get("hidden", {}))
            ctx.emit("committed", "7.2" if set(items) - {item} else "7.6", side=sub.side, items=items)
        attacks = copy.deepcopy(list(sub.body.get("attack", [])))
        ctx.emit("phase", "2.1", phase="combat", step=ctx.step)
        return self._combat(state, ctx, attacks, 0)

    def _setup(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        """7.2, 7.6: each side's units' types and reserve committed (the core recorded them); the
        reserve made for the areas of its units; then red's first player turn."""
        for sub in submissions:
            problems = self.check(state, sub)
            if problems:
                raise IllegalOrdersError(f"{sub.side}'s set-up breaks the rules", problems)
        ctx = rules.context(state, dice)
        for sub in sorted(submissions, key=lambda x: x.side):
            if sub.body.get("standing"):
                ctx.standing[sub.side] = copy.deepcopy(sub.body["standing"])
            ctx.claims.append((sub.side, rules.reserve_item(0), {"areas": rules.side_areas(ctx, sub.side)}))
            ctx.emit("committed", "7.2", side=sub.side, items=sorted(sub.body.get("hidden", {})))
        return self._finish(state, ctx, None, advance=False)

    def _combat(self, state: dict[str, Any], ctx: Ctx, attacks: list[dict[str, Any]], start: int) -> Transition:
        pending = rules.resolve_attacks(ctx, attacks, start)
        return self._finish(state, ctx, pending)

    # --- presentation ---------------------------------------------------------------------------------
    def render_module(self) -> Any:
        return render

    def picture_module(self) -> Any:
        return picture

    def has_turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> bool:
        """Whether ``turn_picture`` draws one, without drawing it."""
        return any(e.kind in ("move", "attack", "advance") for e in events)

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None:
        if not self.has_turn_picture(prev, cur, events):
            return None
        return picture.turn_svg(cur, events, f"{self.title}: {prev['awaits']['step']}, state {int(cur['pbem']['sequence']):04d}")

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]:
        """Nothing is hidden: every side sees the whole position."""
        return copy.deepcopy(state["position"])

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        return list(events)

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        """What the schema cannot say: every unit one of the scenario's, in an area of the map or
        eliminated, one side's units to an area (3.3); control of areas of the map; a pending
        question about the defending units of an area."""
        sc = load_scenario(str(state["pbem"]["scenario"]))
        problems = []
        units = state["position"]["units"]
        holders: dict[str, set[str]] = {}
        for u, s in sorted(units.items()):
            if u not in sc.units:
                problems.append(Problem(f"position.units.{u}", "is not a unit of the scenario", "1.4"))
            elif s["at"] != ELIMINATED and sc.map.place(str(s["at"])) is None:
                problems.append(Problem(f"position.units.{u}.at", f"'{str(s['at'])[:40]}' is not an area of the map", "1.2"))
            else:
                holders.setdefault(str(s["at"]), set()).add(sc.units[u].side)
        for u in sorted(set(sc.units) - set(units)):
            problems.append(Problem("position.units", f"{u} is missing", "1.4"))
        for area, sides in sorted(holders.items()):
            if area != ELIMINATED and len(sides) > 1:
                problems.append(Problem("position.units", f"{area} holds units of {', '.join(sorted(sides))}", "3.3"))
        for area in sorted(state["position"]["control"]):
            if sc.map.place(area) is None:
                problems.append(Problem(f"position.control.{area}", "is not an area of the map", "1.2"))
        q = state.get("pending", {}).get("question") or state.get("question")
        if q is not None:
            if q["side"] not in state["parties"]:
                problems.append(Problem("pending.question.side", "is not a party of the game", "6.2"))
            bad = [u for u in [*q.get("units", []), *q.get("taken", [])] if u not in units or units[u]["at"] != q["target"]]
            if bad:
                problems.append(Problem("pending.question.units", f"{', '.join(bad)} do not defend {q['target']}", "6.2"))
        if rules.is_hidden_game(state) and "referee" in state["parties"]:
            problems.append(Problem("options.hidden", "hidden units and reserves are played without a referee", "7.1"))
        return problems

    hidden_draws = False  # no hidden draws (docs/protocol.md, Hidden draws)

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        raise NotImplementedError("this game asks for no hidden draw")

    def drawn(self, item: str) -> bool:
        return False

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        """7.5: a unit's type against its moves and its side's types; a reserve against its points and areas."""
        return rules.opening_problems(state, owner, item, values, versions)


    # --- the rules catalog (pbem/catalog.py) ----------------------------------------------------------
    def data_module(self) -> Any:
        """Its scenarios (pbem.games.base.BundledGame)."""
        return data

    def catalog_module(self) -> Any:
        """Its rules catalog's hooks (pbem.games.base.BundledGame)."""
        return catalog

    def data_report(self) -> list[dict[str, Any]]:
        """Every bundled scenario: its map and units, or its problems."""
        out = []
        for name in self.scenarios():
            try:
                sc = load_scenario(name)
            except PbemError as e:
                out += problem_rows(f"scenario {name}", e)
                continue
            out.append({"item": f"map ({name})", "status": "authored", "note": sc.map.note})
            out.append({"item": f"scenario {name}", "status": "ok",
                        "note": f"{len(sc.units)} units, {sc.turns} game turns, types " + ", ".join(sorted(TYPES))})
        return out

    # --- the built-in player and `pbem demo` ------------------------------------------------------------
    def propose(self, state: dict[str, Any], side: str) -> str:
        """The orders (or the reply) of a simple built-in player for the awaited step: an order
        file's body, without its [pbem] header."""
        return autoplay.propose(state, side)

    def demo_scenario(self) -> str:
        return "crossroads"

    def demo_options(self, full: bool) -> dict[str, Any]:
        return {}  # one set of rules

    def demo_turn(self, state: dict[str, Any]) -> int:
        return int(state["clock"]["turn"])

    def demo_example(self, scenario: str, step: str, side: str) -> Path | None:
        return None  # no example files: the built-in player answers every step

    def demo_standing(self, side: str) -> dict[str, Any] | None:
        return None  # 6.1: it is asked for its losses, and answers (demo_reply)

    def demo_orders(self, state: dict[str, Any], side: str, extra: dict[str, Any] | None) -> str:
        return autoplay.propose(state, side)

    def demo_reply(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        body = autoplay.propose(state, side)
        return body, "a reply: losses " + ", ".join(tomllib.loads(body)["reply"]["losses"])

    def demo_unscripted(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return autoplay.propose(state, side), "proposed by the built-in player"

    def demo_leave_out(self, orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
        """The orders less the moves and attacks the problems are about; None for any other problem."""
        drop: dict[str, set[int]] = {}
        for p in problems:
            key, _, rest = p.where.partition("[")
            if key in ("move", "attack") and rest.split("]")[0].isdigit():
                drop.setdefault(key, set()).add(int(rest.split("]")[0]))
            elif p.where.startswith("end of movement"):
                drop.setdefault("move", set()).update(range(len(orders.get("move", []))))
            else:
                return None
        kept = {k: v for k, v in orders.items() if k not in drop}
        for key, idx in drop.items():
            left = [x for i, x in enumerate(orders.get(key, [])) if i not in idx]
            if left:
                kept[key] = left
        return kept

    def demo_summary(self, report: str) -> str:
        counts = (("move(s)", report.count("\n- Move ")), ("attack(s)", report.count("\n- **Attack ")),
                  ("control change(s)", report.count("\n- Control: ")))
        return ", ".join(f"{n} {what}" for what, n in counts if n)
