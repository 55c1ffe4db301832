"""The Europe Engulfed game module: what the engine calls (pbem.games.base.GameModule).

Sides: axis, allies (1.2, 1.3: the Axis player-turn first). A game turn (two months, I.A) opens
with the weather (1.1); each player-turn is three kinds of step (docs/europe-engulfed.md):
``TURN/SIDE/move`` (production, operational and strategic movement: 1.22-1.24),
``TURN/SIDE/combat`` (the initial combat phase, 1.25) and ``TURN/SIDE/breakthrough/N`` (one
breakthrough phase each, 1.26, while the side spends special actions); the final supply
determination (1.27) ends the player-turn in the transition of its last file. Automatic parts run
in the transition that reaches them: the weather (1.1), the initial supply determination (1.21),
the end of a player-turn (6.96) and turn advancement (1.4). The adjudicator of a step is the other
side, or the referee. With fog of war and no referee, a ``setup`` step comes first (fog.py).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import IllegalOrdersError, PbemError, Problem
from pbem.exchange.hidden import add_claim
from pbem.games.base import BundledGame, problem_rows
from pbem.mechanics.dice import Dice

from . import (
    allied_powers,
    axis_powers,
    breakthrough,
    combat,
    data,
    fog,
    landings,
    ledger,
    movement,
    naval,
    parties,
    politics,
    production,
    render,
    strategic,
    supply,
    victory,
    weather,
)
from . import options as opts
from .context import (
    BREAKTHROUGH,
    COMBAT,
    GAME_OVER,
    MOVE,
    NEW,
    OLD,
    SETUP,
    Ctx,
    context,
    nation_code,
    position_of,
    step_name,
)
from .data import ALLIES, AXIS, NEUTRAL, NEUTRALS, SIDES, Turn, load_scenario
from .victory import victory_points

COVERAGE_FILE = Path(__file__).with_name("coverage.toml")
MOVE_KEYS = ("production", *naval.KEYS, *politics.KEYS, *movement.KEYS, *landings.KEYS)
COMBAT_KEYS = ("battle", "next", "final")
BREAKTHROUGH_KEYS = ("battle", "breakthrough", "final")
GAME_KEYS = frozenset({*MOVE_KEYS, *COMBAT_KEYS, *BREAKTHROUGH_KEYS, "standing"})


class EuropeEngulfed(BundledGame):
    name = "europe-engulfed"
    aliases: tuple[str, ...] = ("ee", "europeengulfed", "europe_engulfed")
    title = "Europe Engulfed"
    short_title = "Europe Engulfed"
    ruleset = "pbem-europe-engulfed/1"
    sides: tuple[str, ...] = SIDES
    id_prefix = "ee"
    schema_dir = "europe-engulfed"
    step_rule = "1.0"
    report_details: tuple[str, ...] = ("Fire ", "Dice ", "Supply ")
    coverage_file = COVERAGE_FILE
    scenario_stop = "\n[politics]"  # (pbem.games.base.scenario_file_names)
    case_prefix = "EE"
    side_variants: dict[str, tuple[str, ...]] = {"players=3": parties.THREE}  # Part II: three players

    def sides_for(self, options: dict[str, Any], scenario: str) -> tuple[str, ...]:
        """The parties of a game (Part II): axis, allies; with ``players = 3`` axis, west, ussr."""
        return parties.parties(options)

    # --- what the core shows ---------------------------------------------------------------------
    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"vp": dict(state["position"]["vp"]), "turn": state["clock"]["turn"]}

    def status_line(self, state: dict[str, Any]) -> str:
        c = state["clock"]
        vp = state["position"]["vp"]
        w = state["position"].get("weather", {})
        return (f"{Turn.parse(str(c['turn'])).label}, {c['side']} {c['phase']}; weather west {w.get('west')}, east "
                f"{w.get('east')}, south {w.get('south')}; VP axis {vp['axis']}, allies {vp['allies']} (provisional)"
                + (f"; game over: {victory.who(state['result'])}" if state.get("result", {}).get("level") else ""))

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        return render.status_lines(state)

    def report_notes(self, events: list[Event]) -> list[str]:
        return render.report_notes(events)

    # --- game start ------------------------------------------------------------------------------
    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        """The scenario's set-up: each block under its public id (``NAT.NN``, D-5: numbered per
        nation by area, the id telling nothing of its type), with its block type and steps (fog.py
        takes them out of a game without a referee once the sides have committed them)."""
        sc = load_scenario(scenario)
        o = opts.parse(options)
        units: dict[str, dict[str, Any]] = {}
        count: dict[str, int] = {}
        for b in sorted(sc.blocks, key=lambda b: (b.area, b.id)):
            nation = sc.map.areas[b.area].country if b.nation == NEUTRAL else b.nation
            code = nation_code(nation) + ("-e" if sc.units.blocks[b.type].elite else "")
            count[code] = count.get(code, 0) + 1
            units[f"{code}.{count[code]:02d}"] = {"nation": nation, "elite": sc.units.blocks[b.type].elite, "at": b.area,
                                                   "block": b.type, "steps": b.steps}
        pos: dict[str, Any] = {
            "weather": {"west": "clear", "east": "clear", "south": "clear"},
            "units": units,
            "gs": {a: dict(sorted(by.items())) for a, by in sorted(sc.gs.items())},
            "control": {a: s for a, s in sorted(sc.control.items()) if s != NEUTRAL},
            "contested": {},
            "fortifications": {},
            "beachheads": {},
            "sa": dict(sorted(sc.assets.get("special_actions", {}).items())),
            "werps": {},
            "fleets": {z: dict(sorted(by.items())) for z, by in sorted(sc.fleets.items())},
            "transport": {},
            "strat": {},
            "politics": axis_powers.initial(sc, {"war": sorted(sorted(p) for p in sc.war), "pact": sc.pact, "vichy": sc.vichy}),
            "assets": copy.deepcopy({k: v for k, v in sc.assets.items() if k != "special_actions"}),
            "next_allowed": {},
            "vp": {AXIS: 0, ALLIES: 0},
        }
        return {"options": o, "clock": {"turn": sc.start.key, "side": sc.first, "phase": MOVE}, "position": pos}

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        """After the joins: with fog of war and no referee, the set-up step in which the sides
        commit their blocks (fog.py); else the first game turn (1.1, 1.21)."""
        ctx = context(state, dice)
        if ctx.secret:
            return fog.setup_step(self, state, ctx)
        return self._awaiting(state, ctx, self._begin_game_turn(ctx))

    # --- the sequence ----------------------------------------------------------------------------
    def _begin_game_turn(self, ctx: Ctx) -> str:
        """1.0: a game turn opens with the Weather Determination Phase (1.1), then the Axis
        player-turn (1.2). Returns the phase awaited."""
        ctx.side = AXIS
        ctx.emit("turn", "1.0", turn=ctx.turn.key, label=ctx.turn.label)
        ctx.pos["transport"] = {}  # 5.34: sea transport is counted per game turn
        weather.determine(ctx)
        self._begin_player_turn(ctx)
        return MOVE

    def _begin_player_turn(self, ctx: Ctx) -> None:
        """1.21: the Initial Supply Determination Phase, before the phasing player's orders."""
        ctx.emit("player-turn", "1.2" if ctx.side == AXIS else "1.3", side=ctx.side, turn=ctx.turn.key)
        for u in ctx.side_units(ctx.side):
            ctx.units[u].pop("flags", None)
        ctx.pos["strat"] = {}
        politics.start_player_turn(ctx)  # I.B, I.C, I.D: the U.S.A.'s entry, Paris, the Vichy window 9.52(1)
        allied_powers.roll_lend_lease(ctx)  # 9.34: US lend-lease, rolled before the Allied production
        supply.initial(ctx)
        strategic.begin_production(ctx)  # 1.22, 2.0, J-3: strategic warfare first, before the production orders

    def _end_player_turn(self, ctx: Ctx) -> str:
        """The end of a player-turn (6.96); the Allied one ends the game turn (1.4). Returns the
        phase awaited next, or "" when the game is over."""
        axis_powers.end_player_turn(ctx)  # 9.46 (I.B)
        supply.end_player_turn(ctx)
        allied_powers.up_front(ctx)  # 9.26: at the end of every Allied player-turn while the Pact holds
        for a, v in list(ctx.pos.get("contested", {}).items()):
            if v == NEW:
                ctx.pos["contested"][a] = OLD
        if victory.sudden_death(ctx):  # the provisional victory table: sudden death ends the game (victory.py)
            return ""
        if ctx.side == AXIS:
            ctx.side = ALLIES
            self._begin_player_turn(ctx)
            return MOVE
        last = ctx.sc.end if not ctx.option("turns") else ctx.sc.start.plus(int(ctx.option("turns")) - 1)
        victory.end_of_turn(ctx)  # who would win now (a report line)
        if ctx.turn >= last:
            return ""
        ctx.emit("turn-advance", "1.4", turn=ctx.turn.plus(1).key)
        ctx.turn = ctx.turn.plus(1)
        return self._begin_game_turn(ctx)

    def _awaiting(self, state: dict[str, Any], ctx: Ctx, phase: str, n: int = 0,
                  pending: dict[str, Any] | None = None) -> Transition:
        """The next state: awaiting ``phase`` of the phasing side."""
        ctx.pos["vp"] = victory_points(ctx)
        out: dict[str, Any] = {"options": copy.deepcopy(state["options"]),
                               "clock": {"turn": ctx.turn.key, "side": ctx.side, "phase": phase},
                               "position": position_of(ctx), "standing": ctx.standing_out()}
        if pending:
            out["pending"] = pending
        out["awaits"] = {"kind": "orders", "step": step_name(ctx.turn, ctx.side, phase, n),
                         "from": parties.awaited(ctx.options, ctx.side), "adjudicator": self._adjudicator(state, ctx.side)}
        if ctx.secret:
            fog.after_step(state, ctx, out)
        self._claims(state, ctx, out)
        ctx.emit("awaits", "1.0", **{k: out["awaits"][k] for k in ("kind", "step", "from", "adjudicator")})
        return Transition(out, tuple(ctx.events))

    def _claims(self, state: dict[str, Any], ctx: Ctx, out: dict[str, Any]) -> None:
        """The claims this step made on hidden blocks, added to those of the state."""
        if ctx.claims:
            work = {"pbem": state["pbem"], "hidden": copy.deepcopy(out.get("hidden", state.get("hidden", {})))}
            for owner, item, claim in ctx.claims:
                if item in work["hidden"].get(owner, {}):
                    add_claim(work, owner, item, claim)
            out["hidden"] = work["hidden"]

    def _game_over(self, state: dict[str, Any], ctx: Ctx) -> Transition:
        result = victory.game_over(ctx)  # the provisional victory table (victory.py)
        ctx.pos["vp"] = dict(result["vp"])
        last = bool(state.get("hidden") or ctx.claims)
        out = {"options": copy.deepcopy(state["options"]), "clock": {"turn": ctx.turn.key, "side": ctx.side, "phase": GAME_OVER},
               "position": position_of(ctx), "standing": ctx.standing_out(), "result": result,
               "awaits": {"kind": "none", "step": "game-over", "from": [], "adjudicator": parties.adjudicator(state, AXIS) if last else ""}}
        self._claims(state, ctx, out)
        return Transition(out, tuple(ctx.events))

    def _adjudicator(self, state: dict[str, Any], awaited: str) -> str:
        """The referee, else the side that sends nothing in the step (three players: the Axis for
        an Allied step, the option ``axis_adjudicator``'s party for an Axis step, parties.py)."""
        return parties.adjudicator(state, awaited)

    # --- checking --------------------------------------------------------------------------------
    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        body = submission.body
        phase = str(state["clock"]["phase"])
        ctx = context(state, side=str(state["clock"]["side"]))
        problems: list[Problem] = fog.file_problems(state, ctx, submission)
        strategic.check(ctx, body, problems)  # J-3 (a): the standing strategic instructions
        if ctx.party_standing is not None:  # three players (parties.py)
            if parties.side_of_party(submission.side) != ctx.side and phase != SETUP:  # an opening in the other side's step
                for key in sorted((set(body) & GAME_KEYS) - {"standing"}):
                    problems.append(Problem(key, f"the {submission.side} player's file in {state['awaits']['step']} opens its "
                                            "blocks (6.24) only", "6.24"))
                if "standing" in body:  # the step's seed is known to the Allied players before it is sent (protocol)
                    problems.append(Problem("standing", f"the {submission.side} player's file in {state['awaits']['step']} "
                                            "opens its blocks (6.24) only: its [standing] would be chosen when the step's "
                                            f"dice can be known (the adjudicating {state['awaits']['adjudicator']} player's "
                                            "secret and its own); give it in an Allied step's file", "6.24"))
                return problems + parties.ownership_problems(ctx, submission.side, body)
            if submission.side in parties.ALLIED:
                problems += parties.ownership_problems(ctx, submission.side, body)
            if submission.side in parties.ALLIED and phase != SETUP:
                problems += [p for p in self._rules_problems(state, ctx, phase, body) if p.where != "battle"]
                return problems  # a combat due (6.1, 6.73) may be the other Allied file's: checked merged (resolve)
        if phase == SETUP:
            for key in sorted((set(body) & GAME_KEYS) - {"standing"}):
                problems.append(Problem(key, "the set-up file commits the side's blocks ([hidden]) and its [standing] only", "J-0"))
            return problems
        return problems + self._rules_problems(state, ctx, phase, body)

    def _rules_problems(self, state: dict[str, Any], ctx: Ctx, phase: str, body: dict[str, Any]) -> list[Problem]:
        """The rules' problems of a step's orders (the keys of its step, then each rule module's)."""
        problems: list[Problem] = []
        allowed = {MOVE: MOVE_KEYS, COMBAT: COMBAT_KEYS, BREAKTHROUGH: BREAKTHROUGH_KEYS}[phase]
        for key in sorted((set(body) & GAME_KEYS) - {*allowed, "standing"}):
            problems.append(Problem(key, f"the {phase} step's orders are {', '.join(allowed)}; {key} belongs to another step", "1.0"))
        if phase == MOVE:
            naval.check(ctx, body, problems)  # 8.3, J-2: fleet transfers of the initial supply phase come first
            production.check(ctx, body, problems)
            politics.check(ctx, body, problems)
            movement.check(ctx, body, problems)
            landings.check(ctx, body, problems)
            axis_powers.check(ctx, body, problems)  # 9.17e at the end of the phases
        elif phase == COMBAT:
            combat.check(ctx, body, problems)
            supply.check_final(ctx, body, problems)
            naval.check_final(ctx, body, problems)
        else:
            breakthrough.check(ctx, state.get("pending", {}), body, problems)
            axis_powers.check(ctx, body, problems)
            supply.check_final(ctx, body, problems)
            naval.check_final(ctx, body, problems)
        return problems

    # --- resolving -------------------------------------------------------------------------------
    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        if state["clock"]["phase"] == SETUP:
            return fog.resolve_setup(self, state, submissions, dice)
        if len(submissions) > 1 or parties.three(state.get("options", {})):
            ctx, body = self._parties_orders(state, submissions, dice)
        else:
            (sub,) = submissions
            problems = self.check(state, sub) if sub.digest else []  # no orders by the deadline: nothing sent
            if problems:
                raise IllegalOrdersError(f"{sub.side}'s {sub.kind} for {state['awaits']['step']} break the rules", problems)
            ctx = context(state, dice)
            if ctx.secret:
                fog.before_resolve(state, ctx, sub)
            if sub.body.get("standing"):
                ctx.set_standing(sub.side, sub.body["standing"])
            body = sub.body
        phase = str(state["clock"]["phase"])
        if phase == MOVE:
            naval.initial(ctx, body)  # 1.21, 8.3: fleet transfers in the initial supply determination phase
            ctx.emit("phase", "1.22", phase="production", step=ctx.step)
            at = len(ctx.events)
            production.resolve(ctx, body)
            ledger.record(ctx, at)  # the WERP ledger and its table (ledger.py, 4.5)
            ctx.emit("phase", "1.23", phase="initial operational movement", step=ctx.step)
            politics.resolve(ctx, body)
            movement.operational(ctx, body)
            landings.resolve(ctx, body)
            movement.end_phase(ctx, "1.23")
            ctx.emit("phase", "1.24", phase="initial strategic movement", step=ctx.step)
            movement.strategic(ctx, list(body.get("strat", [])))
            movement.end_phase(ctx, "1.24")
            return self._awaiting(state, ctx, COMBAT)
        if phase == COMBAT:
            ctx.emit("phase", "1.25", phase="initial combat", step=ctx.step)
            combat.initial(ctx, list(body.get("battle", [])))
            landings.after_combat(ctx)  # 7.22: beachheads; Glossary "Control": uncontested landings
            movement.end_phase(ctx, "1.25")
            if body.get("next", {}).get("breakthrough") and breakthrough.can_continue(ctx):
                return self._awaiting(state, ctx, BREAKTHROUGH, 1, {"breakthroughs": 0, "battles": []})
            return self._final(state, ctx, dict(body.get("final", {})))
        pending = copy.deepcopy(state.get("pending", {}))
        ctx.emit("phase", "1.26", phase="breakthrough", step=ctx.step)
        go_on = breakthrough.resolve(ctx, pending, body)
        movement.end_phase(ctx, "1.26")
        if go_on and breakthrough.can_continue(ctx, pending):
            pending["breakthroughs"] = int(pending.get("breakthroughs", 0)) + 1
            return self._awaiting(state, ctx, BREAKTHROUGH, int(pending["breakthroughs"]) + 1, pending)
        return self._final(state, ctx, dict(body.get("final", {})))

    def _parties_orders(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> tuple[Ctx, dict[str, Any]]:
        """Three players (parties.py): each file checked alone (its problems named by its party),
        the Allied files merged and checked together (each problem named in its file), the
        openings and hidden production of every file made, each party's [standing] kept. Returns
        the context and the orders the rules play (the phasing side's, merged)."""
        problems: list[Problem] = []
        for sub in submissions:
            if sub.digest:
                problems += [Problem(f"{sub.side}: {p.where}", p.message, p.rule, p.hint) for p in self.check(state, sub)]
        if problems:
            raise IllegalOrdersError(f"the orders for {state['awaits']['step']} break the rules", problems)
        ctx = context(state, dice)
        phasing = [s for s in submissions if parties.side_of_party(s.side) == ctx.side]
        if len(phasing) > 1:
            choice = str(ctx.standing.get(AXIS, {}).get("allied_choice", ""))
            body, origin = parties.merge(ctx.options, {s.side: s.body for s in phasing}, choice)
            extra = self._rules_problems(state, context(state, side=ctx.side), str(state["clock"]["phase"]), body)
            if extra:
                raise IllegalOrdersError(f"the Allied orders for {state['awaits']['step']}, merged, break the rules",
                                         [parties.name_file(p, origin) for p in extra],
                                         hint="Each Allied player's file is legal alone; together they are not: agree and send again.")
            ctx.emit("merged", "Part II", files=[s.side for s in phasing], step=ctx.step)
        else:
            body = dict(phasing[0].body) if phasing else {}
        if ctx.secret:
            fog.open_awaited(state, ctx)
            for sub in sorted(submissions, key=lambda x: x.side):
                fog.file_values(state, ctx, sub)
        for sub in sorted(submissions, key=lambda x: x.side):
            if sub.body.get("standing"):
                ctx.set_standing(sub.side, sub.body["standing"])
        return ctx, body

    def _final(self, state: dict[str, Any], ctx: Ctx, final: dict[str, Any]) -> Transition:
        """1.27: the Final Supply Determination Phase, then the end of the player-turn."""
        ctx.emit("phase", "1.27", phase="final supply determination", step=ctx.step)
        naval.final(ctx, final)  # 8.3: fleet transfers of the final supply determination phase (J-8)
        landings.final(ctx, final)  # 5.5, 6.85, 6.86: fortress and Malta clean-up (J-8)
        supply.final(ctx, final)
        movement.end_phase(ctx, "1.27")
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
        """Whether ``turn_picture`` draws one, without drawing it: a step with moves or battles."""
        return any(e.kind in ("move", "strat-move", "battle", "werps-table") for e in events)

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None:
        if not self.has_turn_picture(prev, cur, events):
            return None
        from . import picture
        return picture.turn_svg(cur, events, f"{self.title}: {prev['awaits']['step']}, state {int(cur['pbem']['sequence']):04d}")

    def site_series(self, state: dict[str, Any], events: list[Event] | None, side: str | None) -> list[dict[str, Any]]:
        """What `pbem site` plots (pbem/site/series.py): WERPs by nation, steps lost, blocks on the map."""
        from . import site
        return site.series(state, events, side)

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]:
        """A refereed game's view for ``side``: the other side's blocks outside contested areas
        without their type and steps (fog of war, J-0)."""
        return fog.view_position(state, side)

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        return fog.side_events(state, events, side)

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        """What the schema cannot say: every block in a ground place of the map, of a nation of the
        game, with a block type of its nation and steps within it; control of places of the map."""
        sc = load_scenario(str(state["pbem"]["scenario"]))
        problems = []
        for u, s in sorted(state["position"]["units"].items()):
            w = f"position.units.{u}"
            at = str(s["at"])
            if at not in sc.map.areas or not sc.map.areas[at].ground:
                problems.append(Problem(f"{w}.at", f"'{at[:40]}' is not a land area, fortress or box of the map", "D-2"))
            nat = str(s["nation"])
            if nat not in sc.units.nations and nat not in NEUTRALS:
                problems.append(Problem(f"{w}.nation", f"'{nat[:40]}' is not a nation of the game", "D-4"))
            b = s.get("block")
            if b is not None:
                bt = sc.units.blocks.get(str(b))
                if bt is None:
                    problems.append(Problem(f"{w}.block", f"'{str(b)[:40]}' is not a block type", "D-5"))
                elif bt.nation not in (nat, NEUTRAL) or bt.elite != bool(s.get("elite", False)):
                    problems.append(Problem(f"{w}.block", f"{b} is not a block of {nat} ({'elite' if s.get('elite') else 'not elite'})", "D-5"))
                elif not 1 <= int(s.get("steps", 0)) <= bt.steps:
                    problems.append(Problem(f"{w}.steps", f"{s.get('steps')} steps; {b} has 1 to {bt.steps}", "D-5"))
        for a in sorted(state["position"]["control"]):
            if a not in sc.map.areas:
                problems.append(Problem(f"position.control.{a}", "is not a place of the map", "Glossary"))
        return problems

    # --- hidden values (fog.py) ------------------------------------------------------------------
    hidden_draws = False  # no hidden draws: blocks are chosen (built, set up), never drawn

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        raise NotImplementedError("Europe Engulfed asks for no hidden draw")

    def drawn(self, item: str) -> bool:
        return False

    def hidden_pad(self, item: str) -> int:
        return 0

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        return fog.check_opening(state, owner, item, values, versions)

    # --- the rules catalog -----------------------------------------------------------------------
    def data_module(self) -> Any:
        return data

    def catalog_module(self) -> Any:
        from . import catalog

        return catalog

    def data_report(self) -> list[dict[str, Any]]:
        """Every chart and bundled scenario: provisional or not, or its problems."""
        out = []
        for name in self.scenarios():
            try:
                sc = load_scenario(name)
            except PbemError as e:
                out += problem_rows(f"scenario {name}", e)
                continue
            if name == self.scenarios()[0]:
                out.append({"item": "map", "status": "authored", "note": sc.map.note})
                out.append({"item": "blocks", "status": "provisional" if sc.units.provisional else "ok", "note": sc.units.note})
                for t in sc.charts.provisional():
                    out.append({"item": f"{t.label} {t.id}", "status": "provisional", "note": t.note})
            out.append({"item": f"scenario {name}", "status": "provisional" if sc.provisional else "ok",
                        "note": f"{len(sc.blocks)} blocks, {sc.start.label} to {sc.end.label}. {sc.note}"})
            if sc.victory is not None:
                conds = ", ".join(c.id for c in (*sc.victory.of(name, "sudden-death"), *sc.victory.of(name, "end")))
                out.append({"item": f"victory {name}", "status": "provisional" if sc.victory.provisional else "ok",
                            "note": f"conditions {conds}. {sc.victory.note}"})
        return out

    # --- the built-in player and `pbem demo` -----------------------------------------------------
    def propose(self, state: dict[str, Any], side: str) -> str:
        from . import autoplay
        return autoplay.propose(self, state, side)

    def demo_scenario(self) -> str:
        return "1941-barbarossa"

    def demo_options(self, full: bool) -> dict[str, Any]:
        return {}

    def demo_turn(self, state: dict[str, Any]) -> int:
        sc = load_scenario(str(state["pbem"]["scenario"]))
        return Turn.parse(str(state["clock"]["turn"])).ordinal() - sc.start.ordinal() + 1

    def demo_example(self, scenario: str, step: str, side: str) -> Path | None:
        return None

    def demo_standing(self, side: str) -> dict[str, Any] | None:
        return None

    def demo_orders(self, state: dict[str, Any], side: str, extra: dict[str, Any] | None) -> str:
        return self.propose(state, side)

    def demo_reply(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return self.propose(state, side), "a reply"

    def demo_unscripted(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return self.propose(state, side), "proposed by the built-in player"

    def demo_leave_out(self, orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
        return None

    def demo_summary(self, report: str) -> str:
        counts = (("move(s)", report.count("\n- Move ")), ("battle(s)", report.count("\n- **Battle ")))
        return ", ".join(f"{n} {what}" for what, n in counts if n)

