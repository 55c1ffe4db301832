"""The Proud Monster game module: what the engine calls (pbem.games.base.GameModule)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import IllegalOrdersError, PbemError, Place, Problem
from pbem.games.base import BundledGame, problem_rows
from pbem.mechanics.dice import Dice, ForcedDice
from pbem.mechanics.steps import NeedsDecision, unused_entries

from . import (
    air,
    assault,
    catalog,
    data,
    demo,
    naval,
    picture,
    reinforce,
    render,
    rwr,
    rwr_text,
    setup,
    supply,
)
from .data import OKH_AREAS, Scenario, load_scenario
from .options import DEFAULT_OPTIONS, game_options, unknown_options, value_problems
from .orders import Attack, Move, Orders, Reply, Standing
from .rules.arko import ARKO_TYPE, form_arko
from .rules.combat.attacks import static_attack_problems
from .rules.combat.losses import LOSS_POLICIES, default_losses, loss_constraints_text, loss_reduced
from .rules.combat.resolve import resolve_attack
from .rules.combat.retreat import RETREAT_POLICIES
from .rules.context import OFF_MAP, Ctx, Decision, Hooks, MoveTracker, checkpoint, release, rollback
from .rules.control import victory_check
from .rules.hedgehogs import declare_hedgehogs
from .rules.movement import check_lake_ends
from .rules.places import path_of, problem, under
from .rules.stacking import END_OF_MOVEMENT, check_stacking, remove_overstack
from .rules.weather import initial_weather, weather_phase
from .rules.works import fort_activation, initial_works
from .sequence import (
    PLAYER_TURN,
    SEQUENCE_START,
    TURN_END,
    TURN_START,
    PhaseSpec,
    next_player_turn,
    other,
    phases,
    step_name,
)
from .validation import validate_scenario

COVERAGE_FILE = Path(__file__).with_name("coverage.toml")
STANDING = path_of("standing")  # the standing instructions of an order file (F.7)

# The feature rules plugged into the core rules (rules/context.py, Hooks): supply (9.x), air units and
# Flak (10.x), naval movement and invasions (11.x), mobile assaults (15.x).
HOOKS = assault.plug(naval.plug(air.plug(supply.plug(Hooks()))))

# The automatic phases of the sequence of play (sequence.py) and the rules that run them.
AUTOMATIC: dict[str, Callable[[Ctx, int], None]] = {
    "mutual-reinforcement": reinforce.mutual_reinforcement,  # 8.1-8.13
    "weather": weather_phase,  # 13.2, 13.8-13.10
    "victory-check": victory_check,  # 4.4-4.5
    "fort-activation": fort_activation,  # 14.25
    "december-air": air.december_air,  # 10.2, 10.4: the start of GT12
    "flak-withdrawal": air.flak_withdrawal,  # 10.1, 8.16: the first German RWR phase of GT12
}


# 14.7: events a side sees although they name enemy units: combat reveals both sides' stacks at
# odds computation; control, weather, fort lines, hedgehog markers and the victory check are public.
PUBLIC_EVENTS = frozenset({
    "phase", "joined", "no-orders", "awaits", "game-over", "victory-check", "weather", "control", "sudden-death",
    "fort-line", "fort-destroyed", "stalin-destroyed", "hedgehogs", "hedgehog-lost",
    "attack", "attack-skipped", "mobile-assault", "assault-cavalry", "assault-end", "reveal", "losses", "advance",
    "retreat", "retreat-caught", "decision-needed", "reply", "invasion-assault", "invasion-ashore", "invasion-failed",
})


def _named(value: Any) -> set[str]:
    """Every string in an event's data (unit ids among them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in (_named(k) | _named(v))}
    if isinstance(value, list | tuple):
        return {s for v in value for s in _named(v)}
    return set()


_INT, _STR, _BOOL = (int,), (str,), (bool,)
# A decision awaited mid-turn (14.32, 14.35): the fields every reader of a pending question uses.
QUESTION_FIELDS: dict[str, tuple[type, ...]] = {"attack": _INT, "kind": _STR, "loss": _INT, "role": _STR, "rule": _STR,
                                                "side": _STR, "steps": _INT, "text": _STR, "units": (dict,)}
QUESTION_KIND_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "losses": {"constraints": (dict,)},
    "retreat": {"hexes": (list,), "distances": (dict,), "from_distance": _STR, "none_closer": _BOOL},
}


def question_problems(q: Any, parties: set[str], where: str = "pending.question") -> list[Problem]:
    """A pending question (14.32 retreat, 14.35 losses) with every field its readers use, typed;
    ``where`` names it (a view carries its side's question as ``question``)."""
    if not isinstance(q, dict):
        return [Problem(where, "a question is a table", "14.35")]
    kind, side = q.get("kind"), q.get("side")
    fields = {**QUESTION_FIELDS, **QUESTION_KIND_FIELDS.get(kind if isinstance(kind, str) else "", {})}
    bad = sorted(k for k, types in fields.items() if not isinstance(q.get(k), types) or (types == _INT and isinstance(q.get(k), bool)))
    if not isinstance(kind, str) or kind not in QUESTION_KIND_FIELDS:
        bad.append("kind")
    if not isinstance(side, str) or side not in parties:
        bad.append("side")
    if isinstance(q.get("units"), dict) and not all(isinstance(v, int) and not isinstance(v, bool) for v in q["units"].values()):
        bad.append("units")
    if isinstance(q.get("hexes"), list) and not all(isinstance(h, str) for h in q["hexes"]):
        bad.append("hexes")
    if isinstance(q.get("constraints"), dict) and not (isinstance(q["constraints"].get("weight"), dict)
                                                       and isinstance(q["constraints"].get("first_from"), list)
                                                       and isinstance(q["constraints"].get("spread"), bool)):
        bad.append("constraints")
    return [Problem(f"{where}.{k}", "missing or not what a loss or retreat question holds", "14.35")
            for k in sorted(set(bad))]




# Orders that ``check`` found legal, by the digest of everything it read (the state's engine part
# and the submission): ``resolve`` of the same orders on the same position, next in `pbem
# adjudicate`, does not check them again. Kept in this process only, for a few positions.
_LEGAL: dict[str, None] = {}
_LEGAL_KEPT = 8
_CHECKED_KEYS = ("pbem", "options", "clock", "position", "standing", "pending", "result", "awaits", "hidden", "opened", "draws")


def _legal_key(state: dict[str, Any], sub: Submission) -> str | None:
    try:
        text = json.dumps([{k: state.get(k) for k in _CHECKED_KEYS}, sub.kind, sub.side, sub.digest, sub.body],
                          sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):  # not plain data: checked again
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _note_legal(state: dict[str, Any], sub: Submission) -> None:
    key = _legal_key(state, sub)
    if key is not None:
        if len(_LEGAL) >= _LEGAL_KEPT:
            _LEGAL.pop(next(iter(_LEGAL)))
        _LEGAL[key] = None


def _known_legal(state: dict[str, Any], sub: Submission) -> bool:
    key = _legal_key(state, sub)
    return key is not None and key in _LEGAL


class ProudMonster(BundledGame):
    name = "proud-monster"
    aliases: tuple[str, ...] = ("pm", "proudmonster", "proud_monster")
    title = "Proud Monster: The Barbarossa Campaign"
    short_title = "Proud Monster"
    ruleset = "pbem-proud-monster/1-basic"
    rulesets = {"basic": "pbem-proud-monster/1-basic", "full": "pbem-proud-monster/1-full"}  # by the option ruleset (A.4)
    sides: tuple[str, ...] = ("german", "soviet")
    id_prefix = "pm"  # game ids `pbem new` makes: pm-<hex>
    schema_dir = "proud-monster"  # its schemas: schemas/proud-monster/ (state-body, view-body, orders-body, map...)
    step_rule = "5.1"  # the sequence of play: who acts in which step
    report_details: tuple[str, ...] = ("Attackers:", "Defenders:", "Shift ")  # computations a mail summary leaves out
    coverage_file = COVERAGE_FILE
    scenario_stop = "\n[["  # (pbem.games.base.scenario_file_names)
    case_prefix = catalog.CASE_PREFIX  # the rules catalog's cases: PM-NNN

    # --- data --------------------------------------------------------------------------------
    # --- what the core shows of a state or a transition -----------------------------------------
    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        """What `pbem status --json` shows of the position: the German victory points (4.x)."""
        return {"vp": state["position"]["vp"]}

    def status_line(self, state: dict[str, Any]) -> str:
        c = state["clock"]
        return f"GT{c['turn']} sequence {c['pts']} {c['side']} {c['phase']}; German VP {state['position']['vp']}"

    def report_notes(self, events: list[Event]) -> list[str]:
        """The end of a report: which provisional stand-ins for missing printed charts its results
        used (17.x; `pbem module check` lists them)."""
        provisional = [e for e in events if e.kind == "attack" and e.data.get("provisional")]
        prov_vp = [e for e in events if e.kind == "victory-check" and e.data.get("provisional")]
        prov_weather = [e for e in events if e.kind == "weather" and e.data.get("provisional")]
        prov_air = [e for e in events if e.data.get("air_provisional")]
        if not (provisional or prov_vp or prov_weather or prov_air):
            return []
        lines = ["## Provisional charts used", ""]
        if provisional:
            lines.append(f"- CRT 17.7: {len(provisional)} result(s) came from provisional stand-in cells "
                         "(the printed CRT is not in the rulebook; `pbem module check` lists what is provisional).")
        if prov_vp:
            lines.append("- German Victory Table 17.2: the threshold used is a provisional stand-in.")
        if prov_weather:
            lines.append("- Weather Table 17.1: the weather results are a provisional stand-in.")
        if prov_air:
            lines.append("- German GS point schedule 17.8: the air units' points are a provisional stand-in.")
        return lines

    def scenario(self, state: dict[str, Any]) -> Scenario:
        return load_scenario(str(state["pbem"]["scenario"]))

    # --- game start ----------------------------------------------------------------------------
    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        sc = load_scenario(scenario)
        ruleset = options.get("ruleset", sc.options.get("ruleset", sc.ruleset))
        opts = game_options(ruleset, sc.options, options)
        unknown = unknown_options(opts)
        if unknown:
            raise IllegalOrdersError(f"unknown option(s): {', '.join(unknown)}", hint=f"Known: {', '.join(DEFAULT_OPTIONS)}.")
        bad = value_problems(opts)
        if bad:
            raise IllegalOrdersError("invalid option value(s)", bad, hint="`pbem rules proud-monster` and the README list the options.")
        units: dict[str, dict[str, Any]] = {}
        for u, hex_id in sc.setup:
            units[u] = {"at": hex_id, "steps": sc.units[u].steps}  # 3.8: full strength
        for _, u, _ in sc.reinforcements:
            units[u] = {"at": "track", "steps": sc.units[u].steps}
        for u in (*sc.tank_brigades, *sc.security, *(g for *_, g in sc.conversions)):
            units[u] = {"at": "track", "steps": sc.units[u].steps}  # 8.9, 8.21, 8.11: held off the map
        for _, u in setup.to_set_up(sc):  # 3.2-3.7: the units the players set up by orders
            units[u] = {"at": "setup", "steps": sc.units[u].steps}
        if opts.get("arko"):  # 14.41: the ArKo is held off the map until the German forms it
            for u, spec in sorted(sc.units.items()):
                if spec.side == "german" and spec.type == ARKO_TYPE and u not in units:
                    units[u] = {"at": "track", "steps": spec.steps}
        control = {}
        for h in sorted(sc.map.hexes.values(), key=lambda x: x.id):
            if h.settlement:  # 3.9: the Soviets control every town and city at the start
                control[h.id] = "german" if h.country == "germany" else "soviet"
        position = {"vp": 0, "moscow_rolled": False, "units": units, "control": control}  # 4.5: German VP = 0
        if opts.get("weather"):  # 13.2: no weather rolls before GT7, so Dry; the basic game keeps no weather
            position.update(initial_weather())
        if opts.get("fortifications"):  # 14.24, 14.30: the state of every fort and Stalin Line hex
            position.update(initial_works(sc))
        position.update(rwr.initial_position(opts))  # 8.15 the replacement pool, 8.20 refits made
        return {
            "options": opts,
            "clock": {"turn": sc.first_turn, "pts": 0, "side": "", "phase": "setup"},
            "position": position,
            "standing": {},
        }

    def _ctx(self, state: dict[str, Any], dice: Dice | None, side: str | None = None) -> Ctx:
        clock = state["clock"]
        return Ctx(
            sc=self.scenario(state), options=dict(state["options"]), position=copy.deepcopy(state["position"]),
            turn=int(clock["turn"]), pts=int(clock["pts"]), side=side or str(clock["side"]), dice=dice,
            standing=copy.deepcopy(state.get("standing", {})), hooks=HOOKS,
        )

    def context(self, state: dict[str, Any], dice: Dice | None, side: str | None = None) -> Ctx:
        return self._ctx(state, dice, side)

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        sc = self.scenario(state)
        side = setup.first_side(sc)
        if side:  # 3.2-3.7: the players set up before the first GT
            return setup.await_setup(state, self._ctx(state, dice), side, self._adjudicator(state, side))
        return self.begin(state, dice)

    def begin(self, state: dict[str, Any], dice: Dice, events: tuple[Event, ...] | list[Event] = ()) -> Transition:
        """The first GT begins: its automatic phases up to the first German player turn (after the
        events of a set-up, if the players set up)."""
        ctx = self._ctx(state, dice, side="german")
        ctx.events.extend(events)
        ctx.turn, ctx.pts = int(state["clock"]["turn"]), 1
        self._automatic(ctx, TURN_START, ctx.turn)
        return self._after_turn_start(state, ctx)

    def _after_turn_start(self, state: dict[str, Any], ctx: Ctx) -> Transition:
        """After the automatic part of the MR phase: the Soviet's MR step when he has units to place
        or conversions to make (reinforce.py), else the first player-turn sequence's automatic
        phases and the German player turn."""
        if not ctx.result and reinforce.mr_state(ctx):
            ctx.pts, ctx.side = 0, "soviet"
            return self._finish(state, ctx, pending=None)
        ctx.pts, ctx.side = 1, "german"
        if not ctx.result:
            self._automatic(ctx, SEQUENCE_START, ctx.turn)
        return self._finish(state, ctx, pending=None)

    def _automatic(self, ctx: Ctx, group: tuple[PhaseSpec, ...], turn: int) -> None:
        """Run a group of automatic phases in the order the sequence of play gives (sequence.py);
        [ADV] phases are left out of the basic game (A.4)."""
        for ph in phases(ctx.options, group, turn, pts=ctx.pts):
            where = {"step": f"GT{turn}/{ctx.pts}"} if group is SEQUENCE_START else {}  # a sequence's phase
            ctx.emit("phase", ph.rule, phase=ph.name, turn=turn, **where)
            AUTOMATIC[ph.name](ctx, turn)
            if ctx.result:
                return

    # --- awaiting -------------------------------------------------------------------------------
    def _adjudicator(self, state: dict[str, Any], awaited: str) -> str:
        return "referee" if "referee" in state.get("parties", {}) else other(awaited)

    def adjudicator(self, state: dict[str, Any], awaited: str) -> str:
        """Who adjudicates a step awaited from ``awaited``: the referee, else the other player."""
        return self._adjudicator(state, awaited)

    def _finish(self, state: dict[str, Any], ctx: Ctx, pending: dict[str, Any] | None) -> Transition:
        out = {"options": state["options"]}
        supply.markers(ctx)  # 9.2-9.3 (option supply): the OOS markers shown in reports
        air.settle(ctx)  # 10.2: where each committed air unit is at the end of the step
        out["position"] = ctx.position
        out["standing"] = ctx.standing
        out["clock"] = {"turn": ctx.turn, "pts": ctx.pts, "side": ctx.side,
                        "phase": "prepared-assault" if pending else "mutual-reinforcement" if ctx.pts == 0 else "movement"}
        if ctx.result:
            out["result"] = ctx.result
            out["clock"]["phase"] = "game-over"
            out["awaits"] = {"kind": "none", "step": "game-over", "from": [], "adjudicator": ""}
            ctx.emit("game-over", ctx.result["rule"], **ctx.result)
        elif pending is not None:
            who = pending["question"]["side"]
            n = int(pending.get("replies", 0)) + 1
            pending["replies"] = n
            out["pending"] = pending
            out["awaits"] = {"kind": "reply", "step": f"{ctx.step}/reply-{n}", "from": [who],
                             "adjudicator": self._adjudicator(state, who)}
        else:
            out["awaits"] = {"kind": "orders", "step": ctx.step, "from": [ctx.side],
                             "adjudicator": self._adjudicator(state, ctx.side)}
        ctx.emit("awaits", "5.1", **{k: out["awaits"][k] for k in ("kind", "step", "from", "adjudicator")})
        return Transition(out, tuple(ctx.events))

    # --- checking -------------------------------------------------------------------------------
    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        problems = self._check(state, submission, Orders.parse(submission.body))
        if not problems:
            _note_legal(state, submission)
        return problems

    def _check(self, state: dict[str, Any], submission: Submission, orders: Orders) -> list[Problem]:
        """Every problem of the ``orders`` of ``submission`` (parsed once, orders.py), all at once:
        they are played on a working copy of the position without dice, so that each order is
        checked against the position the orders before it leave."""
        if submission.kind == "reply":
            return self._check_reply(state, submission, orders.reply)
        ctx = self._ctx(state, None)
        problems = self._standing_problems(orders.standing, ctx)
        if setup.in_setup(state):  # 3.2-3.7: a set-up step
            return problems + setup.check(ctx, submission.side, setup.set_up_orders(ctx, submission, orders))
        if ctx.pts == 0:  # the Soviet's MR step (8.1, 8.7, 8.11)
            mr = orders if submission.digest else Orders.parse(reinforce.default_mr_orders(ctx))  # no orders: the default
            reinforce.mr_orders(ctx, mr, problems)
            return problems
        self._start_of_player_turn(ctx, orders, problems)
        # 8.13-8.20: the German RWR phase; with no orders by the deadline a withdrawal due is refused (8.17)
        rwr.rwr_phase(ctx, orders.rwr, problems, "refuse" if not submission.digest else "problem")
        air.commitment(ctx, orders.support, problems)  # 10.2, 10.4: the Ground Support Commitment phase
        self._start_of_movement(ctx, orders, problems)
        self._movement(ctx, orders.moves, problems)
        # Attacks are checked against the position after the legal moves (an illegal move is
        # left out), so that every problem is reported at once.
        problems += static_attack_problems(ctx, orders.attacks)
        problems += naval.attack_problems(ctx, orders.attacks)  # 11.2, 11.4
        problems += supply.attack_problems(ctx, orders.attacks)  # 9.19, 9.20
        return problems

    def _start_of_player_turn(self, ctx: Ctx, orders: Orders, problems: list[Problem]) -> None:
        """What comes before the RWR phase (8.13), the commitment (10.2) and movement, in this order:
        the German's Mutual Reinforcement decisions, carried out at the start of his orders of the
        GT's first player turn as if in the MR phase (digest A.3 I; Ambiguity 49): diversions between
        the OKH areas (8.3: `divert`), the ArKo's formation (14.41: `form_arko`), the security
        divisions' deployment (8.21: `security`); the Soviet's RVGK units entering play at the start of
        his player turn (8.1: `[[place]]`); then the German's supply declarations at the start of his
        player turn (9.18-9.20: `pause`, `concentration`, `air_supply`), whose supply states the RWR
        phase asks for (8.14, 8.20 with 9.18). The declarations are in the orders' `[declare]` table."""
        declare = orders.declare
        reinforce.clear_diversions(ctx)
        if declare.divert is not None:  # 8.3: carried out as in the MR phase or at the start of movement
            reinforce.divert(ctx, list(declare.divert), problems)
        if declare.form_arko is not None:
            form_arko(ctx, declare.form_arko, problems)
        if declare.security is not None:  # 8.21: also an MR-phase deployment (rwr.deploy_security)
            rwr.deploy_security(ctx, declare.security, problems)
        reinforce.rvgk_problems(ctx, orders.place, problems)  # 8.1: RVGK units enter
        supply.declarations(ctx, declare, problems)

    def _start_of_movement(self, ctx: Ctx, orders: Orders, problems: list[Problem]) -> None:
        """The very start of the movement phase: the Soviet's naval moves and invasion, all before any
        ground movement (11.2: `[[sea]]`; units that entered from the RVGK at the start of the player
        turn may sail), then the GT12 hedgehog declarations (14.40: `hedgehog` in `[declare]`). What
        comes before the movement phase is in _start_of_player_turn."""
        naval.sea_phase(ctx, orders.sea, problems)  # 11.2-11.4
        if orders.declare.hedgehog is not None:
            declare_hedgehogs(ctx, list(orders.declare.hedgehog), problems)

    def _standing_problems(self, st: Standing, ctx: Ctx, where: Place = STANDING) -> list[Problem]:
        """Every problem of standing instructions (F.7); each ``[[standing.stack]]`` entry names a hex
        of the map once, and its instructions are checked as the side's own are."""
        problems = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(st.stack or ()):
            w = under(where, "stack", i)
            h = ctx.sc.map.canonical(entry.hex or "")
            if h is None:
                problems.append(problem(under(w, "hex"), f"'{entry.hex}' is not a hex of the map", "14.35"))
            elif h in seen:
                problems.append(problem(under(w, "hex"), f"{h} already has instructions in {under(where, 'stack', seen[h]).text}", "14.35"))
            else:
                seen[h] = i
            problems += self._instruction_problems(ctx, w, entry.loss_policy, entry.retreat, entry.retreat_hexes,
                                                   entry.loss_order, None)
        return problems + self._instruction_problems(ctx, where, st.loss_policy, st.retreat, st.retreat_hexes, st.loss_order,
                                                     st.overstack_removal)

    def _instruction_problems(self, ctx: Ctx, where: Place, loss_policy: str | None, retreat: str | None,
                              retreat_hexes: tuple[str, ...] | None, loss_order: tuple[str, ...] | None,
                              overstack_removal: tuple[str, ...] | None) -> list[Problem]:
        """The problems of one set of instructions: the loss policy (14.35), the retreat policy and
        hexes (14.32), the loss order (14.35) and the enemy units removed first (6.2)."""
        problems = []
        if loss_policy is not None and loss_policy not in LOSS_POLICIES:
            problems.append(problem(under(where, "loss_policy"), f"'{loss_policy}' is not one of {', '.join(LOSS_POLICIES)}", "14.35"))
        if retreat is not None and retreat not in RETREAT_POLICIES:
            problems.append(problem(under(where, "retreat"), f"'{retreat}' is not one of {', '.join(RETREAT_POLICIES)}", "14.32"))
        for h in retreat_hexes or ():
            if ctx.sc.map.canonical(h) is None:
                problems.append(problem(under(where, "retreat_hexes"), f"'{h}' is not a hex of the map", "14.32"))
        for u in loss_order or ():
            if u not in ctx.units:
                problems.append(problem(under(where, "loss_order"), f"unknown unit '{u}'", "14.35"))
        for u in overstack_removal or ():
            if u not in ctx.units:
                problems.append(problem(under(where, "overstack_removal"), f"unknown unit '{u}'", "6.2"))
        return problems

    def _check_reply(self, state: dict[str, Any], submission: Submission, reply: Reply | None) -> list[Problem]:
        """A reply names, one step per entry, where the awaited loss goes (14.35; 14.36 if on), or
        the retreat hex, or "no" (14.32)."""
        q = state["pending"]["question"]
        if reply is None:
            if not submission.digest:  # no reply by the deadline: the referee applies the default
                return []
            return [problem(path_of("reply"), "the file has no [reply] table", q["rule"], "`pbem template` writes one.")]
        if q.get("kind") == "retreat":  # 14.32: `retreat` = one of the hexes offered, or "no"
            ans = reply.retreat
            hexes = list(q["hexes"])
            canon = self.scenario(state).map.canonical(ans) if ans is not None else None
            if ans != "no" and canon not in hexes:
                return [problem(path_of("reply", "retreat"), f"{ans!r} is not one of {', '.join(hexes)} or \"no\"", q["rule"],
                                'Write retreat = "HEX" with a hex offered, or retreat = "no".')]
            return []
        losses = list(reply.losses or ())
        problems = []
        for u in sorted(set(losses)):
            if u not in q["units"]:
                problems.append(problem(path_of("reply", "losses"), f"{u} did not take part in this combat", q["rule"]))
            elif losses.count(u) > int(q["units"][u]):
                problems.append(problem(path_of("reply", "losses"), f"{u} has only {q['units'][u]} step(s)", "2.16"))
        if problems:
            return problems
        alive = list(q["units"].items())
        r = q.get("constraints", {"weight": {}, "first_from": [], "spread": False})
        hint = "List one unit id per step lost; repeat an id to take two steps from it."
        try:
            extra = unused_entries(alive, int(q["loss"]), losses, weight={u: Fraction(w) for u, w in r["weight"].items()},
                                   first_from=r["first_from"], spread=r["spread"], reduced=loss_reduced(r))
        except NeedsDecision:
            bound = loss_constraints_text(list(q["units"]), r)
            within = f" within the rules: {'; '.join(bound)}" if bound else ""
            return [problem(path_of("reply", "losses"), f"the steps listed do not take the whole loss of {q['loss']}{within}", q["rule"], hint)]
        if extra:
            why = "more steps than the loss takes, or steps the rules do not allow yet (14.35)"
            problems.append(problem(path_of("reply", "losses"), f"{', '.join(extra)}: {why}", q["rule"], hint))
        return problems

    def _movement(self, ctx: Ctx, moves: Sequence[Move], problems: list[Problem]) -> None:
        """Movement phase (12.x) then the end-of-phase stacking check (6.2)."""
        tr = MoveTracker(start={u: ctx.at(u) for u in ctx.units if ctx.on_map(u) or ctx.at(u) in OKH_AREAS})
        for i, mv in enumerate(moves):
            barred = naval.move_problems(ctx, i, mv)  # 11.2-11.4: after the naval moves
            if barred:
                problems += barred
                continue
            problems += supply.move_problems(ctx, i, mv, tr)  # 9.18-9.20
            here = {ctx.at(u) for u in mv.units if u in ctx.units and ctx.on_map(u)}
            assault.move_or_cancel(ctx, i, mv, tr, problems)  # rules.movement.do_move; 15.x after a mobile assault
            supply.after_move(ctx, i, mv, here.pop() if len(here) == 1 else None)  # 9.18: air supply markers
            if ctx.result:
                return
        if not problems:
            check_lake_ends(ctx, ctx.side, tr, problems)
            check_stacking(ctx, ctx.side, END_OF_MOVEMENT, problems)

    # --- resolving ------------------------------------------------------------------------------
    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        (sub,) = submissions
        if setup.in_setup(state):  # 3.2-3.7: a set-up step
            return self._resolve_setup(state, sub, dice)
        orders = Orders.parse(sub.body)
        problems = [] if _known_legal(state, sub) else self._check(state, sub, orders)
        if problems:
            raise IllegalOrdersError(f"{sub.side}'s {sub.kind} for {state['awaits']['step']} break the rules", problems)
        if sub.kind == "reply":
            pending = copy.deepcopy(state["pending"])
            ctx = self._ctx(state, None)
            q = pending["question"]
            if q.get("kind") == "retreat":  # 14.32: a hex, or "no"; unanswered: the first hex offered
                given = orders.reply.retreat if orders.reply is not None else None
                answer = given if given is not None else str(q["hexes"][0])
                answer = self.scenario(state).map.canonical(answer) or answer
                pending["decisions"][f"{q['attack']}/retreat"] = answer
                ctx.dice = ForcedDice(by_label=dict(pending["faces"]), fallback=dice)
                ctx.emit("reply", "5.1", side=sub.side, question=q, answer=[answer])
                return self._resume(state, ctx, pending)
            # no reply by the deadline (referee): the documented default
            losses = default_losses(q) if orders.reply is None else list(orders.reply.losses or ())
            pending["decisions"][f"{q['attack']}/{q['role']}"] = losses
            ctx.dice = ForcedDice(by_label=dict(pending["faces"]), fallback=dice)
            ctx.emit("reply", "5.1", side=sub.side, question=q, answer=list(losses))
            return self._resume(state, ctx, pending)
        ctx = self._ctx(state, dice)
        if sub.body.get("standing"):
            ctx.standing[sub.side] = copy.deepcopy(sub.body["standing"])
        if ctx.pts == 0:  # the Soviet's MR step, then the GT's first player-turn sequence
            ctx.emit("phase", "8.1", phase="mutual-reinforcement", step=ctx.step)
            mr_problems: list[Problem] = []
            if not sub.digest:  # a referee's --no-orders: the default placement
                ctx.emit("mr-default", "8.7")
            reinforce.mr_orders(ctx, orders if sub.digest else Orders.parse(reinforce.default_mr_orders(ctx)), mr_problems)
            if mr_problems:  # check() ran the same orders; this is a safeguard
                raise IllegalOrdersError("orders break the rules", mr_problems)
            ctx.pts, ctx.side = 1, "german"
            self._automatic(ctx, SEQUENCE_START, ctx.turn)
            return self._finish(state, ctx, pending=None)
        return self._player_turn(state, ctx, orders, list(sub.body.get("attack", [])), None, {"decisions": {}, "replies": 0})

    def _resume(self, state: dict[str, Any], ctx: Ctx, pending: dict[str, Any]) -> Transition:
        """The prepared-assault phase again, from the attack that awaited a decision, with the
        attacks the pending state keeps (14.5)."""
        attacks = list(pending["attacks"])
        return self._player_turn(state, ctx, Orders.parse({"attack": attacks}), attacks, "prepared-assault", pending)

    def _resolve_setup(self, state: dict[str, Any], sub: Submission, dice: Dice) -> Transition:
        """A set-up step (3.2-3.7, setup.py), checked, then carried out; then the German's set-up is
        awaited, or GT1 begins."""
        ctx = self._ctx(state, dice, sub.side)
        orders = Orders.parse(sub.body)
        problems = self._check(state, sub, orders)
        if problems:
            raise IllegalOrdersError(f"{sub.side}'s set-up for {state['awaits']['step']} breaks the rules", problems)
        following = setup.carry_out(ctx, sub, setup.set_up_orders(ctx, sub, orders))
        if following:
            return setup.await_setup({**state, "position": ctx.position}, ctx, following, self._adjudicator(state, following))
        return self.begin({**state, "position": ctx.position, "standing": ctx.standing}, dice, ctx.events)

    def _player_turn(self, state: dict[str, Any], ctx: Ctx, orders: Orders, attacks: list[dict[str, Any]],
                     resume: str | None, pending: dict[str, Any]) -> Transition:
        """The phases of a player turn, in the order of the sequence of play (5.0, sequence.py);
        ``resume`` names the phase an awaited decision interrupted. ``attacks``: the orders'
        [[attack]] tables as sent, which the state keeps while a decision is awaited."""
        turn_phases = phases(ctx.options, PLAYER_TURN, ctx.turn, side=ctx.side)
        names = [p.name for p in turn_phases]
        if resume is None:
            started: list[Problem] = []
            self._start_of_player_turn(ctx, orders, started)  # 9.18-9.20
            if started:  # check() made the same declarations; this is a safeguard
                raise IllegalOrdersError("orders break the rules", started)
        for ph in turn_phases[names.index(resume) if resume else 0:]:
            if ph.name == "replacement-withdrawal-refit" and ctx.side == "german":  # 8.13-8.20 (rwr.py)
                ctx.emit("phase", ph.rule, phase=ph.name, step=ctx.step)
                rwr_problems: list[Problem] = []
                rwr.rwr_phase(ctx, orders.rwr, rwr_problems, "refuse")  # check() refused what orders left open
                if rwr_problems:  # check() ran the same phase; this is a safeguard
                    raise IllegalOrdersError("orders break the rules", rwr_problems)
            elif ph.name == "ground-support":  # 10.2, 10.4 (checked with the orders by check())
                ctx.emit("phase", ph.rule, phase=ph.name, step=ctx.step)
                air.commitment(ctx, orders.support, [])
            elif ph.name == "movement":
                ctx.emit("phase", ph.rule, phase=ph.name, step=ctx.step)
                problems: list[Problem] = []
                self._start_of_movement(ctx, orders, problems)
                self._movement(ctx, orders.moves, problems)
                if problems and all(p.where == END_OF_MOVEMENT for p in problems):
                    # check() assumed every mobile assault clears its hex; a force that failed went
                    # back, and its hex can end over-stacked only now, after the dice: 6.2 applies
                    remove_overstack(ctx, ctx.side)
                elif problems:  # check() simulated the same moves; this is a safeguard
                    raise IllegalOrdersError("orders break the rules", problems)
            elif ph.name == "prepared-assault":
                start = int(pending["question"]["attack"]) if resume == ph.name else 0
                if start == 0:
                    ctx.emit("phase", ph.rule, phase=ph.name, step=ctx.step)
                stopped = self._assaults(state, ctx, orders.attacks, attacks, start, pending)
                if stopped is not None:
                    return stopped
                ctx.position.pop("retreated", None)  # 14.34: kept for one combat phase only
                naval.end_player_turn(ctx)  # 11.2, 11.4: the naval restrictions last the player turn
            if ctx.result:
                return self._finish(state, ctx, None)
        return self._end_player_turn(state, ctx)

    def _assaults(self, state: dict[str, Any], ctx: Ctx, attacks: Sequence[Attack], sent: list[dict[str, Any]],
                  start: int, pending: dict[str, Any]) -> Transition | None:
        """Prepared-assault phase (14.x): attacks in the order given, each fully resolved (14.5),
        the invasion PA first (11.4); after a reply, from the attack that awaited it. ``sent``: the
        [[attack]] tables as sent, kept in the pending state. Returns the transition when a decision
        must be awaited, else None."""
        decisions = pending.get("decisions", {})
        order = naval.assault_order(ctx, attacks)
        for k in order[order.index(start) if "question" in pending and start in order else 0:]:
            before = checkpoint(ctx)  # copies only what the attack changes
            mark = len(ctx.events)
            rolls_before = len(ctx.dice.log) if ctx.dice else 0
            try:
                resolve_attack(ctx, k, attacks[k], decisions)
            except Decision as d:
                rollback(ctx, before)
                faces = dict(pending.get("faces", {})) if k == start else {}
                if ctx.dice is None:
                    raise RuntimeError("a decision point was reached without dice") from d
                rolled_before = {r.label for r in ctx.dice.log[:rolls_before]}
                for r in ctx.dice.log:
                    if r.label not in rolled_before and f"|attack {k + 1}|" in r.label:
                        faces[r.label] = r.face
                keep = ctx.events[mark:]
                del ctx.events[mark:]
                ctx.events.extend(e for e in keep if e.kind in ("reveal", "invasion-assault", "supply", "attack"))
                ctx.emit("decision-needed", d.question["rule"], side=d.side, attack=k, role=d.role, **d.question)
                new_pending = {"attacks": sent, "faces": faces, "decisions": decisions,
                               "replies": pending.get("replies", 0),
                               "question": {"side": d.side, "attack": k, "role": d.role, **d.question}}
                return self._finish(state, ctx, new_pending)
            supply.after_attack(ctx, k, before)  # 9.18: a marker's stack advanced, retreated or was eliminated
            release(ctx, before)
            if ctx.result:
                return self._finish(state, ctx, None)
        return None

    def _end_player_turn(self, state: dict[str, Any], ctx: Ctx) -> Transition:
        """After the Soviet player turn of a GT's last sequence: the end-of-turn phases, then the
        next GT's start (5.2, 5.4); otherwise the next player turn (5.1). A new player-turn sequence
        opens with its automatic phases (the weather, 13.2) before the German player turn."""
        if ctx.side == "german":
            rwr.end_of_player_turn(ctx)  # 8.20: the refit counters come off
        turn, pts, side, end_of_turn = next_player_turn(ctx.turn, ctx.pts, ctx.side)
        new_sequence = end_of_turn or pts != ctx.pts  # 5.1: a sequence opens with the German player turn
        if end_of_turn:
            self._automatic(ctx, TURN_END, ctx.turn)
            if ctx.result:
                return self._finish(state, ctx, None)
        if new_sequence:
            supply.end_of_sequence(ctx)  # 9.19: the Pause begins at the end of its GT, ends after 3 sequences
        if end_of_turn:
            ctx.turn, ctx.pts, ctx.side = turn, pts, side
            self._automatic(ctx, TURN_START, turn)
            return self._after_turn_start(state, ctx)
        ctx.turn, ctx.pts, ctx.side = turn, pts, side
        if new_sequence:
            self._automatic(ctx, SEQUENCE_START, turn)
        return self._finish(state, ctx, None)

    # --- presentation ---------------------------------------------------------------------------
    def template(self, state: dict[str, Any], side: str, header: list[str]) -> str:
        return render.template(state, side, lambda s: self._ctx(state, None, side=s), header)

    def render_event(self, event: Event) -> list[str]:
        return render.event_lines(event)

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        """What the schema cannot say of a state's (or view's) position: every unit one of the
        scenario's counters, each in a map hex or an off-map box (digest D.7), with 1 up to its
        counter's steps on the map (0 to them off it); a pending question naming its side, kind,
        text and, for losses, the units among which to choose. A state sealed by a party with any
        of this wrong is refused as malformed, before any rule or command uses it."""
        sc = load_scenario(str(state["pbem"]["scenario"]))
        problems: list[Problem] = []
        for u, s in sorted(state["position"].get("units", {}).items()):
            where = f"position.units.{u}"
            spec = sc.units.get(u)
            if spec is None:
                problems.append(Problem(where, "is not a unit of the scenario", "2.1"))
                continue
            at, steps = str(s["at"]), int(s["steps"])
            if at in OFF_MAP:
                if not 0 <= steps <= spec.steps:
                    problems.append(Problem(where, f"has {steps} steps; its counter has {spec.steps}", "2.16"))
            elif at in sc.map.hexes and sc.map.canonical(at) == at:
                if not 1 <= steps <= spec.steps:
                    problems.append(Problem(where, f"is on the map with {steps} steps; its counter has 1 to {spec.steps}", "2.16"))
            else:
                problems.append(Problem(f"{where}.at", f"'{at[:40]}' is neither a hex of the map (as printed) nor an off-map box", "2.3"))
        # the question a reply answers (14.32, 14.35): in a state awaiting a reply, and in a view of
        # one for the side asked (views.py gives that side its question)
        aw = state.get("awaits", {})
        if state["pbem"].get("kind") == "view":
            q, where = state.get("question"), "question"
            asked = aw.get("kind") == "reply" and state["pbem"].get("side") in aw.get("from", [])
        else:
            q, where = state.get("pending", {}).get("question"), "pending.question"
            asked = aw.get("kind") == "reply"
        if q is not None:
            problems += question_problems(q, set(state["parties"]), where)
        elif asked:
            problems.append(Problem(where, "awaits a reply but holds no question for it to answer (the losses or "
                                           "retreat pending)", "14.35"))
        return problems

    def render_position(self, state: dict[str, Any], side: str | None) -> str:
        return render.position_text(self.scenario(state), state, side)

    def ctx_of(self, state: dict[str, Any], side: str | None = None) -> Ctx:
        """A working context on ``state`` without dice, for presentation (templates), as ``side``
        (default: the side whose player turn it is)."""
        return self._ctx(state, None, side=side)

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        """The counters `pbem status` adds to its summary: the replacement pool, refits (8.15, 8.20)."""
        return rwr_text.position_lines(self.scenario(state), state)

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]:
        """The position as ``side`` may see it. 14.7 (option fog_of_war): of an enemy stack only
        its top unit, which its owner names first in his standing `top_units`, else the first by
        id; the view counts the others under `hidden`, and the Soviet's RVGK units, which are kept
        hidden from the German (8.1), under `hidden.rvgk`. Without fog (the basic game, 14.7
        beginner note) a side sees everything."""
        pos: dict[str, Any] = copy.deepcopy(state["position"])
        if not state["options"].get("fog_of_war") or side not in self.sides:
            return pos
        sc = self.scenario(state)
        enemy = other(side)
        order = {u: i for i, u in enumerate(Standing.parse(state.get("standing", {}).get(enemy, {})).top_units or ())}
        stacks: dict[str, list[str]] = {}
        for u, s in sorted(pos["units"].items()):
            if sc.units[u].side == enemy and s["at"] not in OFF_MAP:
                stacks.setdefault(str(s["at"]), []).append(u)
        hidden: dict[str, int] = {}
        reserve = sorted(u for u, s in pos["units"].items() if sc.units[u].side == enemy and s["at"] == "rvgk")
        for u in reserve:  # 8.1: the units of the RVGK are kept hidden from the German
            del pos["units"][u]
        if reserve:
            hidden["rvgk"] = len(reserve)
        for hex_id, units in sorted(stacks.items()):
            top = min(units, key=lambda u: (order.get(u, len(order)), u))
            for u in units:
                if u != top:
                    del pos["units"][u]
            if len(units) > 1:
                hidden[hex_id] = len(units) - 1
        if hidden:
            pos["hidden"] = hidden
        for key in ("oos", "attenuated", "air", "lake", "concentration"):  # 14.7: no marker of a unit not seen
            if key in pos:
                pos[key] = [u for u in pos[key] if u in pos["units"]]
        if "stationary" in pos:  # 14.7: nor the refit counter (8.20) of one
            pos["stationary"] = {u: r for u, r in pos["stationary"].items() if u in pos["units"]}
        return pos

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        """14.7 (option fog_of_war): what ``side`` may see of a transition in a refereed game. Every
        event that names none of the enemy's units; of those that do, the public ones: combat
        (its stacks are revealed at odds computation and the attacker may not cancel, 14.7), control,
        weather, fort lines, hedgehog markers, victory; every other event about enemy units (his
        moves, placements, reinforcements, replacements, supply measures, ...) is left out, each run
        of them counted in one ``unseen`` line. Without fog of war a side sees everything."""
        if not state["options"].get("fog_of_war") or side not in self.sides:
            return list(events)
        sc = self.scenario(state)
        enemy = {u for u, spec in sc.units.items() if spec.side != side}
        out: list[Event] = []
        unseen = 0
        for e in events:
            if e.kind in PUBLIC_EVENTS or not (_named(e.data) & enemy):
                if unseen:
                    out.append(Event("unseen", "14.7", {"count": unseen, "enemy": other(side)}))
                    unseen = 0
                out.append(e)
            else:
                unseen += 1
        if unseen:
            out.append(Event("unseen", "14.7", {"count": unseen, "enemy": other(side)}))
        return out

    def render_svg(self, state: dict[str, Any], side: str | None) -> str:
        return picture.position_svg(self.scenario(state), state, side)

    def site_series(self, state: dict[str, Any], events: list[Event] | None, side: str | None) -> list[dict[str, Any]]:
        """What `pbem site` plots besides the VP (pbem/site/series.py)."""
        from . import site  # start-up: only `pbem site` needs it

        return site.series(state, events, side)

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None:
        title = f"{self.title}: {prev['awaits']['step']}, state {int(cur['pbem']['sequence']):04d}"
        return picture.turn_svg(self.scenario(cur), cur, events, title)

    def has_turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> bool:
        """Whether ``turn_picture`` draws one, without drawing it."""
        return bool(picture.turn_hexes(self.scenario(cur), events))

    hidden_draws = False  # no hidden draws (docs/protocol.md, Hidden draws)

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        raise NotImplementedError("this game asks for no hidden draw")

    def drawn(self, item: str) -> bool:
        return False

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        """Proud Monster keeps nothing hidden without a referee (fog of war is a refereed option)."""
        return []

    # --- the rules catalog (pbem/catalog.py) -----------------------------------------------------
    def data_module(self) -> Any:
        """Its scenarios (pbem.games.base.BundledGame)."""
        return data

    def catalog_module(self) -> Any:
        """Its rules catalog's hooks (pbem.games.base.BundledGame)."""
        return catalog

    def data_report(self) -> list[dict[str, Any]]:
        """What is provisional, authored or missing, and every data problem of every bundled
        scenario (status "problem": what the loader refuses, then what validate_scenario finds)."""
        out = []
        for name in self.scenarios():
            try:
                sc = load_scenario(name)
            except PbemError as e:
                out += problem_rows(f"scenario {name}", e)
                continue
            crt = sc.charts.crt
            if crt.provisional:
                out.append({"item": "CRT 17.7", "status": "provisional", "note": crt.note})
            if sc.charts.victory_provisional:
                out.append({"item": "German Victory Table 17.2", "status": "provisional", "note": sc.charts.victory_note})
            if sc.charts.spat.provisional:
                out.append({"item": "SPAT 17.3", "status": "provisional", "note": sc.charts.spat.note})
            if sc.charts.weather.provisional:
                out.append({"item": "Weather Table 17.1", "status": "provisional", "note": sc.charts.weather.note})
            if sc.charts.gast is not None and sc.charts.gast.provisional:
                out.append({"item": "GAST 17.10", "status": "provisional", "note": sc.charts.gast.note})
            if sc.charts.withdrawals.provisional:
                out.append({"item": "German Withdrawal Table 17.4", "status": "provisional", "note": sc.charts.withdrawals.note})
            if sc.charts.refit is None:
                out.append({"item": "Refit Table 17.5", "status": "missing", "note": "the charts give none; refits are refused"})
            elif sc.charts.refit.provisional:
                out.append({"item": "Refit Table 17.5", "status": "provisional", "note": sc.charts.refit.note})
            if sc.charts.air.provisional:
                out.append({"item": "German GS point schedule 17.8", "status": "provisional", "note": sc.charts.air.note})
            if sc.units_provisional:
                out.append({"item": f"counters ({name})", "status": "provisional", "note": sc.units_note})
            if sc.sut is not None and sc.sut.provisional:  # 17.6 of a scenario whose Soviet player sets up
                out.append({"item": f"Soviet Unit Table 17.6 ({name})", "status": "provisional", "note": sc.sut.note})
            out.append({"item": f"map ({name})", "status": "authored", "note": sc.map.note})
            out += [{"item": f"scenario {name}", "status": "problem", "note": p.render()} for p in validate_scenario(sc)]
            out += [{"item": f"scenario {name}", "status": st, "note": note} for st, note in setup.minimum_report(sc)]
        for item, note in render.MISSING_DATA:
            out.append({"item": item, "status": "missing", "note": note})
        uniq: dict[tuple[str, str, str], tuple[dict[str, Any], list[str]]] = {}
        for r in out:  # shared charts, maps and counters are listed once, naming every scenario using them
            kind, _, name = r["item"].partition(" (")
            per_scenario = kind in ("counters", "map")
            key = (kind if per_scenario else r["item"], r["status"], r["note"])
            row, names = uniq.setdefault(key, (r, []))
            if per_scenario and name.rstrip(")") not in names:
                names.append(name.rstrip(")"))
                row["item"] = f"{kind} ({', '.join(names)})"
        return [row for row, _ in uniq.values()]

    def step_name(self, turn: int, pts: int, side: str) -> str:
        return step_name(turn, pts, side)

    # --- pbem demo (demo.py) ------------------------------------------------------------------------
    def demo_scenario(self) -> str:
        """The training scenario: example orders for every step of GT1 and GT2."""
        return demo.SCENARIO

    def demo_options(self, full: bool) -> dict[str, Any]:
        """The full game (every [ADV] rule implemented) with ``full``, else the scenario's own ruleset."""
        return {"ruleset": "full"} if full else {}

    def demo_turn(self, state: dict[str, Any]) -> int:
        return int(state["clock"]["turn"])

    def demo_example(self, scenario: str, step: str, side: str) -> Path | None:
        return demo.example_path(scenario, step, side)

    def demo_standing(self, side: str) -> dict[str, Any] | None:
        from . import autoplay  # start-up: the built-in player, not on the path of a command that adjudicates

        return autoplay.standing(side)

    def demo_orders(self, state: dict[str, Any], side: str, extra: dict[str, Any] | None) -> str:
        from . import autoplay  # start-up: the built-in player

        return autoplay.propose(self, state, side, extra)

    def demo_reply(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return demo.reply_body(state)

    def demo_unscripted(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        return demo.unscripted(state, side, lambda s: self._ctx(state, None, side=s))

    def demo_leave_out(self, orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
        return demo.leave_out(orders, problems)

    def demo_summary(self, report: str) -> str:
        return demo.summary(report)


if TYPE_CHECKING:  # the type checker holds the class to the protocol the core calls
    from pbem.games.base import GameModule

    _AS_PROTOCOL: GameModule = ProudMonster()
