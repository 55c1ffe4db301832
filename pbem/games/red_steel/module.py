"""The Red Steel game module: what the engine calls (pbem.games.base.GameModule).

Sides: axis, soviet (3.2: the Axis player turn first). Steps of game turn N (docs/red-steel.md):
``TN/axis/move`` (the Status, Engineer and Movement Phases' orders), ``TN/axis/combat``
(bombardment and attacks), ``TN/axis/combat/support`` (the Soviet's defensive support, a reply,
when attacks were declared), then the same for the Soviet player turn. The automatic parts run in
the transition that reaches them: the Introductory Segment of an AM turn (3.1), the supply of the
Status Phase (7.x), the end of a player turn (13.3) and of a game turn (3.4). The adjudicator of
a step is the other side, or the referee.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import IllegalOrdersError, PbemError, Problem
from pbem.exchange.hidden import add_claim, is_sealed_entry, request_draw
from pbem.games.base import BundledGame, problem_rows
from pbem.mechanics.dice import Dice

from . import activation, bombard, combat, data, endturn, engineer, intro, movement, render, status
from . import options as opts
from .context import FULL_AMMO, Ctx, context, other, position_of, step_name
from .data import (
    AXIS,
    ELIMINATED,
    OFF_MAP,
    POOL,
    REINFORCEMENTS,
    SIDES,
    SOVIET,
    load_scenario,
)

COVERAGE_FILE = Path(__file__).with_name("coverage.toml")
INTRO, MOVE, COMBAT, SUPPORT = "intro", "move", "combat", "combat/support"
MOVE_KEYS = ("ammo", "replace", *engineer.KEYS, *movement.KEYS)
COMBAT_KEYS = (*bombard.KEYS, *combat.KEYS)
GAME_KEYS = frozenset({*MOVE_KEYS, *COMBAT_KEYS, "intro", "reply", "standing"})  # the orders body's keys (the rest is the core's envelope)


class RedSteel(BundledGame):
    name = "red-steel"
    aliases: tuple[str, ...] = ("rs", "redsteel", "red_steel")
    title = "Red Steel"
    short_title = "Red Steel"
    ruleset = "pbem-red-steel/1"
    sides: tuple[str, ...] = SIDES
    id_prefix = "rs"
    schema_dir = "red-steel"
    step_rule = "3.0"
    report_details: tuple[str, ...] = ("Attack ", "Defense ", "Odds ")
    coverage_file = COVERAGE_FILE
    scenario_stop = "\n[turns]"  # (pbem.games.base.scenario_file_names)
    case_prefix = "RS"

    # --- data ------------------------------------------------------------------------------------
    # --- what the core shows ---------------------------------------------------------------------
    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"vp": dict(state["position"]["vp"]), "turn": state["clock"]["turn"]}

    def status_line(self, state: dict[str, Any]) -> str:
        sc = load_scenario(str(state["pbem"]["scenario"]))
        c = state["clock"]
        vp = state["position"]["vp"]
        when = sc.turn(int(c["turn"])).label
        return f"game turn {c['turn']} ({when}), {c['side']} {c['phase']}; VP axis {vp['axis']}, soviet {vp['soviet']} (provisional)"

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        return render.status_lines(state)

    def report_notes(self, events: list[Event]) -> list[str]:
        return render.report_notes(events)

    # --- game start ------------------------------------------------------------------------------
    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        sc = load_scenario(scenario)
        o = opts.parse(options)
        units: dict[str, dict[str, Any]] = {}
        for u, spec in sorted(sc.units.items()):
            if u in sc.setup:
                units[u] = {"at": sc.setup[u], "lost": 0}
                if spec.type == "artillery":
                    units[u].update(mode="deployed", ammo=FULL_AMMO)  # 6.1 (d): full ammunition assumed
            elif u in sc.reinforcements:
                units[u] = {"at": REINFORCEMENTS, "lost": 0}
            else:
                units[u] = {"at": POOL, "lost": 0}
        pos: dict[str, Any] = {
            "units": units,
            "control": dict(sc.control),
            "entrenchments": {},
            "bridges": {},
            "ammo": dict(sc.ammo),
            "replacements": 0,
            "aircraft": {"drawn": [], "used": []},
            "activation": {"track": [], "reserve": "", "out": []},
            "garrison_released": False,
            "vp": {AXIS: 0, SOVIET: 0},
        }
        return {"options": o, "clock": {"turn": sc.first_turn, "side": AXIS, "phase": "movement"}, "position": pos}

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        """After the joins: the first game turn (3.0); no die is rolled before the first step."""
        ctx = context(state, dice)
        return self._awaiting(state, ctx, self._begin_game_turn(ctx))

    # --- the sequence ----------------------------------------------------------------------------
    def _begin_game_turn(self, ctx: Ctx) -> str:
        """3.1: an AM turn opens with the Introductory Segment, the Soviet's step (its choices for
        17.3 and 15.14; the dice of 16.0, 17.3 and 12.2 are rolled when it is adjudicated); any
        other turn with the Axis player turn. Returns the step awaited."""
        ctx.side = AXIS
        ctx.emit("turn", "3.0", turn=ctx.turn, date=ctx.time.date, tod=ctx.time.tod)
        if ctx.time.tod == "am":
            return INTRO
        self._begin_player_turn(ctx)
        return MOVE

    def _begin_player_turn(self, ctx: Ctx) -> None:
        """3.31: the Status Phase's supply, before the phasing player sends his orders."""
        ctx.emit("player-turn", "3.3" if ctx.side == AXIS else "3.4", side=ctx.side, turn=ctx.turn)
        status.determine_supply(ctx)

    def _end_player_turn(self, ctx: Ctx) -> str:
        """13.3, 3.4: the end of the player turn; the Soviet's ends the game turn. Returns the step
        awaited next, or "" when the game is over."""
        endturn.end_player_turn(ctx)
        if ctx.side == AXIS:
            ctx.side = SOVIET
            self._begin_player_turn(ctx)
            return MOVE
        if ctx.turn >= ctx.last_turn:
            return ""
        ctx.turn += 1
        return self._begin_game_turn(ctx)

    def _awaiting(self, state: dict[str, Any], ctx: Ctx, phase: str, pending: dict[str, Any] | None = None) -> Transition:
        """The next state: awaiting ``phase`` of the phasing side (or the defender's support reply)."""
        ctx.pos["vp"] = victory_points(ctx)
        clock = {INTRO: "intro", MOVE: "movement"}.get(phase, "combat")
        out: dict[str, Any] = {"options": copy.deepcopy(state["options"]),
                               "clock": {"turn": ctx.turn, "side": ctx.side, "phase": clock},
                               "position": position_of(ctx), "standing": ctx.standing}
        step = step_name(ctx.turn, SOVIET if phase == INTRO else ctx.side, phase)
        if phase == INTRO:
            out["awaits"] = {"kind": "orders", "step": step, "from": [SOVIET], "adjudicator": self._adjudicator(state, SOVIET)}
        elif phase == SUPPORT:
            assert pending is not None
            out["pending"] = pending
            who = other(ctx.side)
            out["awaits"] = {"kind": "reply", "step": step, "from": [who], "adjudicator": self._adjudicator(state, who)}
        else:
            out["awaits"] = {"kind": "orders", "step": step, "from": [ctx.side],
                             "adjudicator": self._adjudicator(state, ctx.side)}
            item = self._reserve_to_open(state, ctx) if phase == MOVE else ""
            if item:  # 15.14: the reserve named in secret is opened when the cup is made
                out["awaits"]["open"] = {SOVIET: [item]}
        self._hidden_bookkeeping(state, ctx, out)
        ctx.emit("awaits", "3.0", **out["awaits"])
        return Transition(out, tuple(ctx.events))

    def _hidden_bookkeeping(self, state: dict[str, Any], ctx: Ctx, out: dict[str, Any]) -> None:
        """The hidden draws the step asked for (16.0) and the claims it made on hidden items (the
        aircraft flown), added to those of the state (docs/protocol.md, Hidden values)."""
        if ctx.draws or state.get("draws"):
            out["draws"] = copy.deepcopy(state.get("draws", {}))
            for side, item, request in ctx.draws:
                request_draw(out, side, item, request)
        if ctx.claims:
            work = {"pbem": state["pbem"], "hidden": copy.deepcopy(state.get("hidden", {}))}
            for owner, item, claim in ctx.claims:
                add_claim(work, owner, item, claim)
            out["hidden"] = work["hidden"]

    def _reserve_to_open(self, state: dict[str, Any], ctx: Ctx) -> str:
        """15.14: the Soviet's hidden reserve of this day, when its movement step comes."""
        if ctx.side != SOVIET or not ctx.secret:
            return ""
        am = max((n for n, t in ctx.sc.turns.items() if n <= ctx.turn and t.tod == "am"), default=0)
        item = intro.reserve_item(am)
        return item if item in state.get("hidden", {}).get(SOVIET, {}) else ""

    def _game_over(self, state: dict[str, Any], ctx: Ctx) -> Transition:
        vp = victory_points(ctx)
        ctx.pos["vp"] = vp
        winner = AXIS if vp[AXIS] > vp[SOVIET] else SOVIET if vp[SOVIET] > vp[AXIS] else "draw"
        result = {"winner": winner, "rule": "18.0", "reason": "the last game turn was played (provisional victory points)",
                  "vp": vp}
        ctx.emit("game-over", "18.0", **result)
        # with hidden values or draws, the core's last step opens them all, adjudicated by the Soviet (docs/protocol.md)
        last = bool(state.get("hidden") or state.get("draws") or ctx.claims)
        out = {"options": copy.deepcopy(state["options"]), "clock": {"turn": ctx.turn, "side": ctx.side, "phase": "game-over"},
               "position": position_of(ctx), "standing": ctx.standing, "result": result,
               "awaits": {"kind": "none", "step": "game-over", "from": [], "adjudicator": SOVIET if last else ""}}
        self._hidden_bookkeeping(state, ctx, out)
        return Transition(out, tuple(ctx.events))

    def _adjudicator(self, state: dict[str, Any], awaited: str) -> str:
        """The referee, else the side that sends nothing in the step."""
        if "referee" in state.get("parties", {}):
            return "referee"
        return other(awaited)

    # --- checking --------------------------------------------------------------------------------
    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        body = submission.body
        step = str(state["awaits"]["step"])
        ctx = context(state, side=str(state["clock"]["side"]))
        problems: list[Problem] = self._hidden_problems(state, ctx, submission)
        if submission.kind == "reply":
            for key in sorted((set(body) & GAME_KEYS) - {"standing", "reply"}):
                problems.append(Problem(key, "a support reply holds [reply] (its support) and [standing] only", "3.34"))
            combat.check_support(ctx, pending_attacks(state), reply_body(body), submission.side, problems)
            return problems
        if step.endswith("/" + INTRO):
            for key in sorted((set(body) & GAME_KEYS) - {"intro", "standing"}):
                problems.append(Problem(key, "the Introductory Segment's file holds [intro] (and [standing]) only", "3.1"))
            intro.check_choices(ctx, dict(body.get("intro", {})), problems)
            return problems
        if step.endswith("/" + MOVE):
            for key in sorted((set(body) & GAME_KEYS) - {*MOVE_KEYS, "standing"}):
                problems.append(Problem(key, f"the movement step's orders are {', '.join(MOVE_KEYS)}; {key} belongs to another step", "3.3"))
            status.check_ammo(ctx, list(body.get("ammo", [])), problems)
            if body.get("replace"):
                if ctx.side != AXIS or ctx.time.tod != "am":
                    problems.append(Problem("replace", "replacements are applied in the Introductory Segment of an AM turn, by the Axis", "3.1"))
                else:
                    intro.check_replacements(ctx, list(body["replace"]), problems)
            engineer.check(ctx, body, problems)
            movement.check(ctx, body, problems)
        else:
            for key in sorted((set(body) & GAME_KEYS) - {*COMBAT_KEYS, "standing"}):
                problems.append(Problem(key, f"the combat step's orders are {', '.join(COMBAT_KEYS)}; {key} belongs to another step", "3.3"))
            bombard.check(ctx, body, problems)
            if ctx.secret:
                problems += self._secret_support_problems(ctx, body)
            else:
                combat.check(ctx, body, problems)
        return problems

    def _secret_support_problems(self, ctx: Ctx, body: dict[str, Any]) -> list[Problem]:
        """3.34c without a referee: the attack support is the attacker's hidden value
        ``support.TN`` (target hex -> artillery), which the defender must not read before he
        allocates his own (3.34b); its sender's own check sees it and checks it as support, the
        adjudicator sees a commitment (it is opened when the combats are resolved)."""
        problems: list[Problem] = []
        attacks = [dict(a) for a in body.get("attack", [])]
        for i, a in enumerate(attacks):
            if "support" in a:
                problems.append(Problem(f"attack[{i}].support", "in a game without a referee the attack support is hidden until the "
                                        f'combats: write it as [hidden] "{combat.support_item(ctx.turn)}" = {{ HEX = ["UNIT"] }} '
                                        "(pbem sign seals it)", "3.34"))
        item = combat.support_item(ctx.turn)
        draft = body.get("hidden", {}).get(item)
        targets = [str(a["target"]) for a in attacks]
        if draft is not None and not targets:
            problems.append(Problem(f"hidden.{item}", "support for no attack: the orders declare none", "9.0"))
        if draft is None and targets:
            problems.append(Problem("hidden", f'attacks commit their support, given or not: [hidden] "{item}" = {{ HEX = ["UNIT"] }}, '
                                    "or {} for none (3.34c: even whether there is support stays secret until the combats)", "3.34"))
        if isinstance(draft, dict) and not is_sealed_entry(draft):  # the sender's own draft: checked as the support it will be
            for t in sorted(draft):
                if t not in targets:
                    problems.append(Problem(f"hidden.{item}.{t}", f"{t} is not a target of these attacks ({', '.join(targets) or 'none'})", "9.11"))
            for a in attacks:
                a["support"] = list(draft.get(str(a["target"]), []))
        found: list[Problem] = []
        combat.check(ctx, {**body, "attack": attacks}, found)
        for p in found:
            where = p.where
            if ".support[" in where:
                i, k = int(where.split("[")[1].split("]")[0]), where.rsplit("[", 1)[1].rstrip("]")
                where = f"hidden.{item}.{targets[i]}[{k}]"
            problems.append(Problem(where, p.message, p.rule))
        return problems

    # --- resolving -------------------------------------------------------------------------------
    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        (sub,) = submissions
        problems = self.check(state, sub) if sub.digest else []  # no orders by the deadline: nothing sent
        if problems:
            raise IllegalOrdersError(f"{sub.side}'s {sub.kind} for {state['awaits']['step']} break the rules", problems)
        ctx = context(state, dice)
        if sub.body.get("standing"):
            ctx.standing[sub.side] = copy.deepcopy(sub.body["standing"])
        step = str(state["awaits"]["step"])
        if sub.kind == "reply":
            pending = copy.deepcopy(state["pending"])
            orders = pending["orders"]
            for owner, items in state["awaits"].get("open", {}).items():  # 3.34c: the attacker's support, opened now
                for item in items:
                    opened = state.get("opened", {}).get(owner, {}).get(item, {}).get("values", [{}])[-1]
                    ctx.emit("support-opened", "3.34", side=owner, support={t: list(us) for t, us in sorted(opened.items())})
                    for a in orders.get("attack", []):
                        a["support"] = list(opened.get(str(a["target"]), []))
            return self._combat_phase(state, ctx, orders, list(reply_body(sub.body).get("support", [])))
        body = sub.body
        if step.endswith("/" + INTRO):
            intro.segment(ctx, dict(body.get("intro", {})))
            self._begin_player_turn(ctx)
            return self._awaiting(state, ctx, MOVE)
        if step.endswith("/" + MOVE):
            ctx.phase = MOVE
            ctx.emit("phase", "3.31", phase="status", step=step)
            status.issue_ammo(ctx, list(body.get("ammo", [])))
            if body.get("replace"):
                intro.apply_replacements(ctx, list(body["replace"]))
            ctx.emit("phase", "3.32", phase="engineer", step=step)
            engineer.phase(ctx, body)
            ctx.emit("phase", "3.33", phase="movement", step=step)
            movement.start_phase(ctx, body)
            if ctx.side == SOVIET:
                for item in state["awaits"].get("open", {}).get(SOVIET, []):  # 15.14: the reserve, opened now
                    value = state.get("opened", {}).get(SOVIET, {}).get(item, {}).get("values", [""])[-1]
                    intro.name_reserve(ctx, str(value), int(item.split(".T")[1]))
                activation.phase(ctx, body)
            else:
                moves = list(enumerate(body.get("move", [])))
                moves.sort(key=lambda im: (not im[1].get("strategic", False), im[0]))  # 5.22: strategic moves first
                movement.make_moves(ctx, moves)
            movement.end_phase(ctx, body)
            ctx.phase = COMBAT
            return self._awaiting(state, ctx, COMBAT)
        ctx.phase = COMBAT
        ctx.emit("phase", "3.34", phase="combat", step=step)
        if ctx.option("bombardment") == "before-combat":
            bombard.resolve(ctx, body)
        targets = combat.declared(ctx, body)
        orders = {k: copy.deepcopy(body[k]) for k in COMBAT_KEYS if k in body}
        if targets:
            ctx.emit("declared", "9.0", side=ctx.side, targets=targets)
            pending = {"orders": orders}
            t = self._awaiting(state, ctx, SUPPORT, pending)
            if combat.support_item(ctx.turn) in body.get("hidden", {}):  # 3.34c: opened by the attacker when it adjudicates the reply
                t.state["awaits"]["open"] = {ctx.side: [combat.support_item(ctx.turn)]}
            return t
        return self._combat_phase(state, ctx, orders, [])

    def _combat_phase(self, state: dict[str, Any], ctx: Ctx, orders: dict[str, Any], support: list[dict[str, Any]]) -> Transition:
        """9.1: the combats, the end of the Combat Phase (13.31, 17.52), then bombardment (A-11,
        default after the Combat Phase as 3.35), and the end of the player turn."""
        combat.resolve_all(ctx, list(orders.get("attack", [])), support)
        combat.end_phase(ctx)  # 13.31, 17.52: the end of the Combat Phase, before bombardment as 3.35
        if ctx.option("bombardment") == "after-combat":
            ctx.emit("phase", "8.0", phase="bombardment", step=step_name(ctx.turn, ctx.side, COMBAT))
            bombard.resolve(ctx, orders)
        nxt = self._end_player_turn(ctx)
        if not nxt:
            return self._game_over(state, ctx)
        return self._awaiting(state, ctx, nxt)

    # --- presentation ----------------------------------------------------------------------------
    def render_module(self) -> Any:
        return render

    def picture_module(self) -> Any:
        from . import picture
        return picture

    def has_turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> bool:
        """Whether ``turn_picture`` draws one, without drawing it."""
        return any(e.kind in ("move", "combat", "advance", "bombardment", "air") for e in events)

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None:
        if not self.has_turn_picture(prev, cur, events):
            return None
        from . import picture
        return picture.turn_svg(cur, events, f"{self.title}: {prev['awaits']['step']}, state {int(cur['pbem']['sequence']):04d}")

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]:
        """A refereed game's view for ``side``: the whole position but the other side's secrets:
        the Soviet does not see which aircraft the Axis drew (16.0), the Axis not which division is
        in reserve (15.14)."""
        pos: dict[str, Any] = copy.deepcopy(state["position"])
        if side == SOVIET:
            pos.get("aircraft", {}).pop("drawn", None)
        if side == AXIS and pos.get("activation", {}).get("reserve"):
            pos["activation"]["reserve"] = ""
            pos["activation"].pop("reserve_since", None)
        return pos

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        """A refereed game's report for ``side``: the events less what ``view_position`` keeps from
        it: the Axis's air draw for the Soviet (it learns that the Axis drew), the reserve for the
        Axis, and the formations in the cup (they would name the reserve by its absence)."""
        out = []
        held = bool(state["position"].get("activation", {}).get("reserve"))
        for e in events:
            if side == SOVIET and e.kind == "air-draw" and not e.data.get("hidden"):
                out.append(Event("air-draw-unseen", e.rule, {}))
            elif side == AXIS and e.kind == "reserve":
                continue
            elif side == AXIS and e.kind == "activation-cup":  # the cup: neither which markers nor how many
                out.append(Event("activation-cup", e.rule, {"formations": [], "unseen": True}))
            elif side == AXIS and held and e.kind == "activated":  # the draw's place in the cup would tell its size
                out.append(Event("activated", e.rule, {k: v for k, v in e.data.items() if k not in ("draw", "of")}))
            else:
                out.append(e)
        return out

    def side_dice(self, state: dict[str, Any], dice: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
        """A refereed game's dice as ``side`` sees them: the Soviet not the dice of the Axis's air
        draw (16.0: the Axis need not reveal how many aircraft it drew, nor which), the Axis not the
        draws of Soviet markers while a division is in reserve (15.14: the draws would tell which
        marker is missing from the cup)."""
        reserve = bool(state["position"].get("activation", {}).get("reserve"))
        out = []
        for d in dice:
            label = str(d["label"])
            if side == SOVIET and label.startswith("16.0|"):  # the air draw and its roll
                continue
            if side == AXIS and reserve and label.startswith("15.1|") and label.endswith("|draw"):
                continue
            out.append(d)
        return out

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        """What the schema cannot say: every unit one of the scenario's, on a hex of the map or off
        it, a hex holding one side's units (5.62), control of hexes of the map."""
        sc = load_scenario(str(state["pbem"]["scenario"]))
        problems = []
        units = state["position"]["units"]
        holders: dict[str, set[str]] = {}
        for u, s in sorted(units.items()):
            if u not in sc.units:
                problems.append(Problem(f"position.units.{u}", "is not a unit of the scenario", "3.0"))
                continue
            at = str(s["at"])
            if at not in OFF_MAP and sc.map.grid.place(at) is None:
                problems.append(Problem(f"position.units.{u}.at", f"'{at[:40]}' is not a hex of the map", "2.3"))
                continue
            if int(s.get("lost", 0)) >= len(sc.units[u].steps) and at != ELIMINATED:
                problems.append(Problem(f"position.units.{u}.lost", "a unit with no step left is eliminated", "17.1"))
            if at not in OFF_MAP:
                holders.setdefault(at, set()).add(sc.units[u].side)
        for u in sorted(set(sc.units) - set(units)):
            problems.append(Problem("position.units", f"{u} is missing", "3.0"))
        for h, sides in sorted(holders.items()):
            if len(sides) > 1:
                problems.append(Problem("position.units", f"{h} holds units of both sides", "5.62"))
        for h in sorted(state["position"]["control"]):
            if sc.map.grid.place(h) is None:
                problems.append(Problem(f"position.control.{h}", "is not a hex of the map", "2.1"))
        return problems

    def _hidden_problems(self, state: dict[str, Any], ctx: Ctx, submission: Submission) -> list[Problem]:
        """What a file may hold hidden (docs/red-steel.md, Secrets): in the Soviet's Introductory
        Segment the reserve of that turn (15.14), a formation or "" (its sender's own check sees the
        value; the adjudicator sees a commitment); the draws the core lets in; nothing else."""
        hidden = dict(submission.body.get("hidden", {}))
        step = str(state["awaits"]["step"])
        out = []
        if ctx.secret and step.endswith("/" + INTRO) and intro.reserve_item(ctx.turn) not in hidden:
            out.append(Problem("hidden", "the Introductory Segment's file commits the reserve, named or not: "
                               f'[hidden] "{intro.reserve_item(ctx.turn)}" = "FORMATION", or "" for none (15.14: even whether '
                               "one is named stays secret; pbem sign seals it)", "15.14"))
        if not hidden:
            return out
        if not ctx.secret:
            return [Problem("hidden", "a game with a referee has no hidden values: the referee keeps the secrets", "15.14")]
        allowed: set[str] = set()
        if str(state["awaits"]["step"]).endswith("/" + INTRO):
            allowed.add(intro.reserve_item(ctx.turn))
        if str(state["awaits"]["step"]).endswith("/" + COMBAT) and submission.side == ctx.side:
            allowed.add(combat.support_item(ctx.turn))
        for item, value in sorted(hidden.items()):
            if self.drawn(item):  # a draw: the core takes it only when one is asked (docs/protocol.md, Hidden draws)
                continue
            if item not in allowed:
                out.append(Problem(f"hidden.{item}", f"{submission.side} may not hide '{item}' in this file"
                                   + (f" (its reserve is {intro.reserve_item(ctx.turn)})" if item.startswith("reserve.") else ""), "15.14"))
            elif item.startswith("reserve.") and isinstance(value, str) and value and value not in ctx.sc.formations:  # a draft
                out.append(Problem(f"hidden.{item}", f"'{value}' is not a Soviet formation of the scenario", "15.14"))
        return out

    hidden_draws = True  # 16.0: the Axis's aircraft, drawn in secret in a game without a referee

    def hidden_pad(self, item: str) -> int:
        """3.34c: a support's box is as large as the largest support could be, so that its size does
        not tell the defender how much artillery supports the attacks (docs/protocol.md)."""
        return 4096 if item.startswith("support.") else 0

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        """16.0: the Axis's secret air draw: the roll, and the aircraft drawn from the cup."""
        roll, drawn = intro.draw_aircraft(dice, [str(a) for a in request["cup"]], "16.0|hidden draw|aircraft")
        return {"roll": roll, "aircraft": drawn}

    def drawn(self, item: str) -> bool:
        return item.startswith("air.")

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        """16.0, 16.1: every aircraft the Axis flew on a day is one its draw of that day gave it;
        15.14: a reserve is one of the Soviet's formations, or none."""
        problems = []
        sc = load_scenario(str(state["pbem"]["scenario"]))
        for value, version in zip(values, versions, strict=True):
            if item.startswith("reserve."):
                if value and value not in sc.formations:
                    problems.append(Problem(f"hidden.{owner}.{item}", f"'{value}' is not a Soviet formation of the scenario", "15.14"))
                continue
            if not item.startswith("air."):
                continue
            got = value.get("aircraft") if isinstance(value, dict) else None
            if not isinstance(got, list):
                problems.append(Problem(f"hidden.{owner}.{item}", f"{value!r} is not an air draw", "16.0"))
                continue
            for claim in version["claims"]:
                if claim.get("flew") not in got:
                    problems.append(Problem(f"hidden.{owner}.{item}", f"{claim.get('flew')} flew in game turn {claim.get('turn')}, "
                                            f"but the draw of that day gave {', '.join(got)} only", "16.0"))
        return problems


    # --- the rules catalog -----------------------------------------------------------------------
    def data_module(self) -> Any:
        """Its scenarios (pbem.games.base.BundledGame)."""
        return data

    def catalog_module(self) -> Any:
        """Its rules catalog's hooks (pbem.games.base.BundledGame)."""
        from . import catalog

        return catalog

    def data_report(self) -> list[dict[str, Any]]:
        """Every chart and bundled scenario: provisional or not, or its problems."""
        from .data import load_charts
        out = []
        ch = load_charts()
        for name, t in (("Terrain Effects Chart", ch.tec), ("Combat Results Table", ch.crt), ("Bombardment Table", ch.bombard),
                        ("Soviet Activation Track", ch.activation), ("Towing Table", ch.towing), ("Breakdown Chart", ch.breakdown)):
            out.append({"item": name, "status": "provisional" if t.provisional else "ok", "note": t.note})
        for name in self.scenarios():
            try:
                sc = load_scenario(name)
            except PbemError as e:
                out += problem_rows(f"scenario {name}", e)
                continue
            out.append({"item": f"map ({name})", "status": "authored", "note": sc.map.note})
            out.append({"item": f"counters ({name})", "status": "provisional", "note": sc.units_note})
            out.append({"item": f"scenario {name}", "status": "provisional" if sc.provisional else "ok",
                        "note": f"{len(sc.units)} units, turns {sc.first_turn}-{sc.last_turn}. {sc.note}"})
        return out

    # --- the built-in player and `pbem demo` -----------------------------------------------------
    def propose(self, state: dict[str, Any], side: str) -> str:
        from . import autoplay
        return autoplay.propose(state, side)

    def demo_scenario(self) -> str:
        return "training"

    def demo_options(self, full: bool) -> dict[str, Any]:
        return {}

    def demo_turn(self, state: dict[str, Any]) -> int:
        return int(state["clock"]["turn"])

    def demo_example(self, scenario: str, step: str, side: str) -> Path | None:
        return None

    def demo_standing(self, side: str) -> dict[str, Any] | None:
        return None

    def demo_orders(self, state: dict[str, Any], side: str, extra: dict[str, Any] | None) -> str:
        return self.propose(state, side)

    def demo_reply(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return self.propose(state, side), "a reply: defensive support"

    def demo_unscripted(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return self.propose(state, side), "proposed by the built-in player"

    def demo_leave_out(self, orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
        return None

    def demo_summary(self, report: str) -> str:
        counts = (("move(s)", report.count("\n- Move ")), ("combat(s)", report.count("\n- **Combat ")),
                  ("bombardment(s)", report.count("\n- Bombardment ")))
        return ", ".join(f"{n} {what}" for what, n in counts if n)


def pending_attacks(state: dict[str, Any]) -> list[dict[str, Any]]:
    """9.0: the attacks declared in the step whose support reply the state awaits (none otherwise)."""
    return list(state.get("pending", {}).get("orders", {}).get("attack", []))


def reply_body(body: dict[str, Any]) -> dict[str, Any]:
    """The defender's support reply: its [reply] table (``support``, a list of { target, units });
    none at all when no reply came by the deadline (9.11)."""
    inner = body.get("reply")
    return inner if isinstance(inner, dict) else {}


def victory_points(ctx: Ctx) -> dict[str, int]:
    """Provisional victory points (18.0 and the victory conditions are NOT IN SOURCE; 15.15, 15.4):
    each side scores the points of the hexes it controls, and one point per three steps of the
    other side eliminated or removed (15.15); withdrawn units count for nobody (15.4)."""
    vp = {AXIS: 0, SOVIET: 0}
    for h, side in ctx.control.items():
        vp[side] += ctx.sc.map.hex(h).vp
    lost = {AXIS: 0, SOVIET: 0}
    for u, s in ctx.units.items():
        spec = ctx.spec(u)
        if s["at"] in ("withdrawn", POOL, REINFORCEMENTS):
            continue
        lost[spec.side] += int(s.get("lost", 0))
    vp[AXIS] += lost[SOVIET] // 3
    vp[SOVIET] += lost[AXIS] // 3
    return vp
