"""Proud Monster: the German Replacement, Withdrawal & Mechanized-Refit (RWR) phase (8.12-8.20,
9.18, 13.9; digest A.3 II.B.1) and the German security divisions (8.21), each behind its option.

The RWR phase opens each German player turn, in both player-turn sequences (Ambiguity 9), before
ground-support commitment and movement. The German orders it in the `[rwr]` table of his order
file, and pbem carries it out in the order of A.3: replacements, withdrawals, refits. Ambiguity 9
has two options: `second_sequence_rwr` ("replacements-refits", the digest's reading of 8.14-8.15;
"refits-only", the outline's "Mechanized Refit Phase" of 5.2: no replacements in the second
sequence) and `withdrawal_sequence` ("first": the withdrawals of the Withdrawal Table's GT are made
in its first-sequence RWR phase, as 10.1 does for the Flak; "either": in the first or the second,
the German choosing, those left open in the first waiting for the second; position
`withdrawals_made` keeps what the first made or refused).

    [rwr]
    replace = ["6ID"]          # 8.14: reduced divisions flipped to full strength from the pool
    refit = ["3Pz"]            # 8.20: divisions refitting, 1d6 each on the Refit Table (17.5)
    [rwr.withdraw]             # 8.16: the units withdrawn, by kind of the Withdrawal Table (17.4)
    infantry = ["8ID"]
    [rwr.refuse]               # 8.17: withdrawals refused, -1 VP per unit
    infantry = 1

Security divisions (8.21) are deployed in the MR phase: pbem has no German order in the automatic
MR phase, so, like the ArKo (rules.arko.form_arko), they are given in the `[declare]` table of the
German's orders of a GT's first player turn (`[declare.security]`, unit = hex).

The position keeps the replacement pool (`replacements`, 8.15), the GT of each division's refit
(`refits_used`, the refit counters on the Turn Record Track, 8.20), and, during the German player
turn only, the units that may not move or attack (`stationary`: 8.20 refitting, 9.18 replaced
while air-supplied; rules.movement.stationary).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.errors import Problem

from .data import OKH_AREAS, WithdrawalKind
from .orders import Rwr
from .rules.arko import mr_declaration_open
from .rules.context import OFF_MAP_BOXES, Ctx
from .rules.control import enter_hex
from .rules.places import path_of, problem, under
from .rules.stacking import stack_problems
from .sequence import sequences_in
from .supply import concentration, supply_state

REPLACEMENT_POOL = 28  # 8.15: German replacement steps for the whole game
# 8.13: the German division types replacements restore: infantry, air-landing, light, mountain,
# parachute and static infantry (units.toml types air-landing and parachute divisions `infantry`).
REPLACEMENT_TYPES = frozenset({"infantry", "light", "mountain", "static"})
REPLACEMENT_NATS = frozenset({"german", "spanish"})  # 8.13: the Spanish 250th counts as German
REPLACEMENT_SUPPLY = ("supplied", "attenuated")  # 8.14; "air" only if the unit stays put (9.18)
WITHDRAWAL_SUPPLY = ("supplied", "attenuated")  # 8.16
REFIT_TYPES = frozenset({"tank", "motorized"})  # 8.18: panzer and motorized-infantry divisions
REFIT_MAX_STEPS = 4  # 8.20
SECURITY_HEXES = ("city", "large_town")  # 8.21
SECURITY_GROUP = 3  # 8.21
SECURITY_SUPPLY = ("supplied", "attenuated")  # 8.21: they appear in supply
RWR_OPTIONS = ("replacements", "withdrawals", "refits")
KEY_OPTION = {"replace": "replacements", "withdraw": "withdrawals", "refuse": "withdrawals", "refit": "refits"}
KEY_RULE = {"replace": "8.14", "withdraw": "8.16", "refuse": "8.17", "refit": "8.20"}


def initial_position(options: dict[str, Any]) -> dict[str, Any]:
    """What a new game's position keeps for these rules: the pool of 28 replacement steps (8.15)
    and no refit made yet (8.20). The basic game keeps neither."""
    out: dict[str, Any] = {}
    if options.get("replacements"):
        out["replacements"] = REPLACEMENT_POOL
    if options.get("refits"):
        out["refits_used"] = {}
    return out


def pool(ctx: Ctx) -> int:
    """The replacement steps left (8.15)."""
    return int(ctx.position.get("replacements", REPLACEMENT_POOL))


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _div(spec_size: str) -> bool:
    return spec_size == "XX"


# --- eligibility: why a unit may not, or "" -----------------------------------------------------

def replace_why(ctx: Ctx, unit: str) -> tuple[str, str]:
    """8.13-8.14, 9.18: why ``unit`` may not be replaced now, as (text, rule); ("", "") when it may.

    A reduced German division of an eligible type (REPLACEMENT_TYPES; the Spanish 250th counts as
    German, other Axis allies never), on the map, in supply or attenuated supply (an air-supplied one
    only if it does not move or attack this player turn, 9.18: it is then kept in place). Units in
    the dead pile never return. What the pool allows is checked by the caller (8.15)."""
    if unit not in ctx.units:
        return f"unknown unit '{unit}'", "8.13"
    spec = ctx.spec(unit)
    if spec.side != "german":
        return f"{unit} is not a German unit", "8.13"
    if spec.nat not in REPLACEMENT_NATS:
        return f"{unit} is {spec.nat.capitalize()}: Axis allied units never receive replacements (only the Spanish 250th counts as German)", "8.13"
    if not _div(spec.size) or spec.type not in REPLACEMENT_TYPES:
        kind = f"{spec.type} {spec.size}"
        hint = "; panzer and motorized-infantry divisions refit instead (8.18)" if spec.type in REFIT_TYPES else ""
        return (f"{unit} ({kind}) is not an infantry, air-landing, light, mountain, parachute or static infantry "
                f"division{hint}"), "8.13"
    if ctx.at(unit) == "dead":
        return f"{unit} is eliminated: German units in the dead pile never return", "8.13"
    if not ctx.on_map(unit):
        return f"{unit} is not on the map ({OFF_MAP_BOXES.get(ctx.at(unit), ctx.at(unit))}): it must be in supply there", "8.14"
    if ctx.steps(unit) >= spec.steps:
        return f"{unit} is at full strength: only reduced divisions are replaced", "8.13"
    state = supply_state(ctx, unit)
    if state not in (*REPLACEMENT_SUPPLY, "air"):
        return f"{unit} in {ctx.at(unit)} is out of supply (attenuated supply is acceptable)", "8.14"
    return "", ""


def withdraw_why(ctx: Ctx, unit: str, kind: str, wk: WithdrawalKind) -> tuple[str, str]:
    """8.16, Ambiguity 22: why ``unit`` may not be withdrawn as a ``kind`` of the Withdrawal Table,
    or ("", ""): a unit that fits the kind (its type, size, German nationality), reduced or not, on
    the map (not in an OKH reserve area) and in supply (attenuated acceptable). With the option
    okh_withdrawals (the other reading of "on the map": the OKH areas are printed on the map sheet)
    a unit in an OKH area qualifies too, in supply there (the areas touch the ZOMO, whose hexes are
    German supply sources, 9.11)."""
    if unit not in ctx.units:
        return f"unknown unit '{unit}'", "8.16"
    spec = ctx.spec(unit)
    if not wk.fits(spec):
        return f"{unit} ({spec.nat} {spec.type} {spec.size}) does not fit the kind '{kind}' of the table ({wk.text})", "17.4"
    if ctx.at(unit) in OKH_AREAS and ctx.options.get("okh_withdrawals"):
        return "", ""
    if not ctx.on_map(unit):
        where = OFF_MAP_BOXES.get(ctx.at(unit), ctx.at(unit))
        return f"{unit} is not on the map ({where}); only units on the map are withdrawn (Ambiguity 22)", "8.16"
    if supply_state(ctx, unit) not in WITHDRAWAL_SUPPLY:
        return f"{unit} in {ctx.at(unit)} is out of supply (attenuated supply is acceptable)", "8.16"
    return "", ""


def refit_why(ctx: Ctx, unit: str) -> tuple[str, str]:
    """8.18-8.20, 9.18, 13.9: why ``unit`` may not refit now, or ("", ""): a German panzer or
    motorized-infantry division that may refit (not `refit = false`: the 2nd and 5th Panzer
    Divisions), has not refitted before in the game, has lost a step, and starts the RWR phase on
    the map in supply — not attenuated, not air-supplied (9.18, Ambiguity 23) — in a hex not
    adjacent to a Soviet unit; and refits have not ended (the first M or S in either zone, 8.19, 13.9).
    Ambiguity 23: a division under supply concentration east of the GAS line (9.20) is still in
    attenuated supply and may not refit; with the option refit_under_concentration it counts as in
    supply (concentration frees it from every GAS-line effect)."""
    if unit not in ctx.units:
        return f"unknown unit '{unit}'", "8.18"
    spec = ctx.spec(unit)
    if spec.side != "german" or spec.nat != "german" or spec.type not in REFIT_TYPES or not _div(spec.size):
        return f"{unit} ({spec.nat} {spec.type} {spec.size}) is not a German panzer or motorized-infantry division", "8.18"
    if not spec.refit:
        return f"{unit} may never refit (the 2nd and 5th Panzer Divisions)", "8.18"
    if ctx.position.get("refits_ended"):
        return f"{unit} may not refit: refits have ended for the rest of the game with the first mud or snow", "8.19"
    used = ctx.position.get("refits_used", {})
    if unit in used:
        return f"{unit} refitted on GT{used[unit]}: each division refits once per game", "8.20"
    if not ctx.on_map(unit):
        return f"{unit} is not on the map ({OFF_MAP_BOXES.get(ctx.at(unit), ctx.at(unit))})", "8.20"
    if ctx.steps(unit) >= spec.steps:
        return f"{unit} has lost no step", "8.20"
    state = supply_state(ctx, unit)
    if state == "air":
        return f"{unit} in {ctx.at(unit)} is air-supplied: mechanized units never refit while air-supplied", "9.18"
    concentrated = unit in (concentration(ctx) or ())
    if state == "attenuated" and concentrated and ctx.options.get("refit_under_concentration"):
        state = "supplied"  # Ambiguity 23: freed from the GAS line's effects, it counts as in supply
    if state != "supplied":
        what = "in attenuated supply, which does not count" if state == "attenuated" else "out of supply"
        if state == "attenuated" and concentrated:
            what += " (nor does supply concentration, Ambiguity 23)"
        return f"{unit} in {ctx.at(unit)} is {what}: a refitting division must be in supply", "8.20"
    near = sorted({s for n in ctx.sc.map.neighbours(ctx.at(unit)) for s in ctx.occupants(n, "soviet")})
    if near:
        return f"{unit} in {ctx.at(unit)} is adjacent to Soviet units ({', '.join(near)})", "8.20"
    return "", ""


def security_hex_why(ctx: Ctx, unit: str, hex_id: str) -> tuple[str, str]:
    """8.21: why a security division may not appear in ``hex_id``, or ("", ""): a German-controlled
    city or large town free of Soviet units and in supply (attenuated acceptable) for the unit."""
    h = ctx.sc.map.hexes[hex_id]
    if h.settlement not in SECURITY_HEXES:
        what = f"{hex_id} {h.place} is a town" if h.settlement == "town" else f"{hex_id} has no town"
        return f"{what}, not a city or large town", "8.21"
    if ctx.position["control"].get(hex_id) != "german":
        return f"{hex_id} {h.place} is not German-controlled", "8.21"
    if ctx.occupants(hex_id, "soviet"):
        return f"{hex_id} {h.place} holds Soviet units", "8.21"
    was = ctx.units[unit]["at"]
    ctx.units[unit]["at"] = hex_id  # supply is traced from the hex it would appear in
    try:
        state = supply_state(ctx, unit)
    finally:
        ctx.units[unit]["at"] = was
    if state not in SECURITY_SUPPLY:
        return f"{hex_id} {h.place} is not in supply", "8.21"
    return "", ""


# --- the phase ------------------------------------------------------------------------------------

def applies(ctx: Ctx) -> bool:
    return any(ctx.options.get(o) for o in RWR_OPTIONS)


def rwr_phase(ctx: Ctx, given: Rwr, problems: list[Problem], unaccounted: str = "problem") -> None:
    """The German RWR phase (A.3 II.B.1): the `[rwr]` orders, replacements first (8.14), then
    withdrawals (8.16-8.17), then refits (8.20). ``unaccounted`` says what a withdrawal the orders
    neither make nor refuse is: a "problem" (orders sent), or "refuse" (no orders by the deadline,
    or after check() found none: -1 VP each, 8.17)."""
    if ctx.side != "german":
        if given.given:
            problems.append(problem(path_of("rwr"), "only the German has a replacement, withdrawal and refit phase", "8.13"))
        return
    for key in sorted(given.given):
        opt = KEY_OPTION[key]
        if not ctx.options.get(opt):
            problems.append(problem(path_of("rwr", key), f"a full-game rule (option {opt} is off)", KEY_RULE[key]))
    if not applies(ctx):
        return
    known = len(problems)
    stats = {"replaced": 0, "withdrawn": 0, "refused": 0, "refits": 0}
    if ctx.options.get("replacements"):
        if given.replace and not replacements_open(ctx):
            problems.append(problem(path_of("rwr", "replace"), "the second sequence's RWR phase is a Mechanized Refit phase only: "
                                    "replacements are made in the first (option second_sequence_rwr = \"refits-only\", "
                                    "Ambiguity 9)", "5.2"))
        else:
            stats["replaced"] = replacements(ctx, list(given.replace), problems)
    if ctx.options.get("withdrawals"):
        stats["withdrawn"], stats["refused"] = withdrawals(ctx, {k: list(v) for k, v in given.withdraw},
                                                           dict(given.refuse), problems, unaccounted)
    if ctx.options.get("refits"):
        stats["refits"] = refits(ctx, list(given.refit), problems)
    if len(problems) == known:
        ctx.emit("rwr-end", "8.13", step=ctx.step, pool=pool(ctx) if ctx.options.get("replacements") else None,
                 full_pool=REPLACEMENT_POOL, **stats)


def replacements_open(ctx: Ctx) -> bool:
    """Ambiguity 9 (option second_sequence_rwr): replacements are made in the RWR phase of either
    sequence (8.14, 8.15: "replacements-refits"), or, reading the 5.2 outline's "Mechanized Refit
    Phase" of the second sequence literally, in the first sequence's only ("refits-only")."""
    return ctx.pts == 1 or ctx.options.get("second_sequence_rwr", "replacements-refits") != "refits-only"


def withdrawals_due(ctx: Ctx) -> dict[str, int]:
    """8.16, 17.4, Ambiguity 9 (option withdrawal_sequence): the withdrawals to make or refuse in
    this RWR phase, by kind. "first": those of the table's GT, in its first-sequence RWR phase only;
    "either": in the first, those of the GT, and in the second, those the first left open."""
    table = ctx.sc.charts.withdrawals.due(ctx.turn)
    if ctx.options.get("withdrawal_sequence", "first") != "either":
        return dict(table) if ctx.pts == 1 else {}
    made = _withdrawals_made(ctx) if ctx.pts > 1 else {}
    return {k: n - made.get(k, 0) for k, n in table.items() if n > made.get(k, 0)}


def _withdrawals_made(ctx: Ctx) -> dict[str, int]:
    """Option withdrawal_sequence = "either": the withdrawals made or refused, by kind, in this GT's
    first-sequence RWR phase (position ``withdrawals_made``, kept until the second's)."""
    rec = ctx.position.get("withdrawals_made", {})
    return dict(rec.get("kinds", {})) if int(rec.get("turn", -1)) == ctx.turn else {}


def end_of_player_turn(ctx: Ctx) -> None:
    """8.20: at the end of the German player turn the refit counters come off the units (their GT
    is kept in `refits_used`); 9.18: the air-supplied replaced units are free again."""
    ctx.position.pop("stationary", None)


def _keep_in_place(ctx: Ctx, unit: str, rule: str) -> None:
    ctx.position.setdefault("stationary", {})[unit] = rule


def replacements(ctx: Ctx, units: list[str], problems: list[Problem]) -> int:
    """8.12-8.15: each listed reduced division is flipped to full strength, one pool step per step
    restored; any number in either sequence of any GT, a unit any number of times in the game, no
    movement or combat penalty (8.14), but an air-supplied one may not move or attack this player
    turn (9.18). The pool of 28 steps is for the whole game; when it is empty there are no more."""
    where = path_of("rwr", "replace")
    left = pool(ctx)
    known = len(problems)
    done: list[tuple[str, int, int, str]] = []
    seen: set[str] = set()
    for j, u in enumerate(units):
        w = under(where, j)
        if u in seen:
            problems.append(problem(w, f"{u} is listed twice: a replacement flips the division to full strength", "8.14"))
            continue
        seen.add(u)
        why, rule = replace_why(ctx, u)
        if why:
            problems.append(problem(w, why, rule))
            continue
        need = ctx.spec(u).steps - ctx.steps(u)
        if need > left:
            after = " after the replacements listed before it" if done else ""
            problems.append(problem(w, f"{u} needs {_n(need, 'replacement step')} and the pool has {left} left{after} "
                                       f"(of {REPLACEMENT_POOL} for the game)", "8.15"))
            continue
        left -= need
        done.append((u, ctx.steps(u), need, supply_state(ctx, u)))
    if len(problems) > known:
        return 0
    for u, before, need, state in done:
        ctx.units[u]["steps"] = ctx.spec(u).steps
        ctx.position["replacements"] = pool(ctx) - need
        if state == "air":
            _keep_in_place(ctx, u, "9.18")
        ctx.emit("replacement", "8.14", unit=u, hex=ctx.at(u), steps=[before, ctx.steps(u)], used=need,
                 pool=pool(ctx), supply=state, step=ctx.step)
    return len(done)


def withdrawals(ctx: Ctx, given: dict[str, Any], refused: dict[str, Any], problems: list[Problem],
                unaccounted: str) -> tuple[int, int]:
    """8.16-8.17, 17.4: in the first-sequence RWR phase of a GT the Withdrawal Table lists
    (Ambiguity 9), the German withdraws the units it calls for, naming them by kind
    (`[rwr.withdraw]`), or refuses them unit by unit at -1 VP each (`[rwr.refuse]`). Where no unit of
    the kind can be withdrawn (none on the map in supply), there is no substitute and the VP are
    lost. Orders that leave a withdrawal unaccounted for while a unit could fill it are illegal; with
    no orders by the deadline it is refused. Withdrawn units go to the `withdrawn` box for good.
    With the option withdrawal_sequence = "either" (withdrawals_due) what the first-sequence phase
    leaves open waits for the second-sequence one (a `withdrawals-deferred` event), where all of
    this applies to what is left."""
    table = ctx.sc.charts.withdrawals
    due = withdrawals_due(ctx)
    either = ctx.options.get("withdrawal_sequence", "first") == "either"
    later = either and ctx.pts < sequences_in(ctx.turn)  # what is left open waits for the second sequence
    if either and ctx.pts == sequences_in(ctx.turn):
        ctx.position.pop("withdrawals_made", None)
    known = len(problems)
    if (given or refused) and not due:
        if not table.due(ctx.turn):
            when = f"the Withdrawal Table (17.4) calls for none on GT{ctx.turn}"
        elif either:
            when = (f"the withdrawals due on GT{ctx.turn} were made or refused in the first-sequence RWR phase "
                    "(option withdrawal_sequence = \"either\", Ambiguity 9)")
        else:
            when = "withdrawals are made in the first-sequence RWR phase of the GT (Ambiguity 9)"
        problems.append(problem(path_of("rwr", "withdraw" if given else "refuse"), when, "8.16"))
        return 0, 0
    for key, table_in in (("withdraw", given), ("refuse", refused)):
        for kind in table_in:
            if kind not in due:
                problems.append(problem(path_of("rwr", key, kind), f"no '{kind}' withdrawal is due on GT{ctx.turn} "
                                        f"(due: {_due_text(ctx, due)})", "17.4"))
    if len(problems) > known:
        return 0, 0
    named: dict[str, str] = {}
    plan: list[tuple[str, list[str], int, int, str]] = []  # kind, units, refused, lost, why lost
    for kind, n in due.items():
        wk = table.kinds[kind]
        units = list(given.get(kind, []))
        r = int(refused.get(kind, 0))
        ok: list[str] = []
        mark = len(problems)
        for j, u in enumerate(units):
            w = path_of("rwr", "withdraw", kind, j)
            if u in named:
                problems.append(problem(w, f"{u} is already withdrawn as '{named[u]}'", "8.16"))
                continue
            why, rule = withdraw_why(ctx, u, kind, wk)
            if why:
                problems.append(problem(w, why, rule))
                continue
            named[u] = kind
            ok.append(u)
        if len(units) + r > n:
            problems.append(problem(path_of("rwr", "withdraw", kind), f"{len(units)} withdrawn and {r} refused, but the table calls "
                                    f"for {_n(n, wk.text)} on GT{ctx.turn}", "17.4"))
        if len(problems) > mark:
            continue
        plan.append((kind, ok, r, n - len(ok) - r, ""))
    if len(problems) > known:
        return 0, 0
    final: list[tuple[str, list[str], int, int, str]] = []
    deferred: dict[str, int] = {}
    for kind, ok, r, short, _ in plan:
        wk = table.kinds[kind]
        free = [u for u in sorted(ctx.units) if u not in named and not withdraw_why(ctx, u, kind, wk)[0]]
        why = ""
        if short and later:  # option withdrawal_sequence = "either": made or refused in the second sequence
            final.append((kind, ok, r, 0, ""))
            deferred[kind] = short
            continue
        if short and free and unaccounted == "problem":
            problems.append(problem(path_of("rwr", "withdraw", kind), f"{short} of the {_n(due[kind], wk.text)} due on GT{ctx.turn} "
                                    f"{'is' if short == 1 else 'are'} neither withdrawn nor refused; units that can be: "
                                    f"{', '.join(free)}", "8.16",
                                    f"List them in [rwr.withdraw] {kind} = [...], or refuse them in [rwr.refuse] "
                                    f"{kind} = N at -1 VP each (8.17)."))
            continue
        if short:
            why = "no orders: refused" if free else "no unit of the kind can be withdrawn"
        final.append((kind, ok, r, short, why))
    if len(problems) > known:
        return 0, 0
    provisional = table.provisional and ctx.turn not in table.known
    withdrawn = refusals = 0
    for kind, ok, r, short, why in final:
        wk = table.kinds[kind]
        for u in ok:
            hex_id = ctx.at(u)
            ctx.units[u]["at"] = "withdrawn"
            ctx.emit("withdrawal", "8.16", unit=u, kind=kind, text=wk.text, hex=hex_id, steps=ctx.steps(u),
                     turn=ctx.turn, provisional=provisional)
        withdrawn += len(ok)
        if later and (ok or r):
            rec = ctx.position.setdefault("withdrawals_made", {"turn": ctx.turn, "kinds": {}})
            rec["kinds"][kind] = int(rec["kinds"].get(kind, 0)) + len(ok) + r
        if kind in deferred:
            ctx.emit("withdrawals-deferred", "8.16", kind=kind, text=wk.text, count=deferred[kind], turn=ctx.turn,
                     provisional=provisional)
        for count, reason, rule in ((r, "refused", "8.17"), (short, why, "8.17")):
            if not count:
                continue
            ctx.position["vp"] = int(ctx.position["vp"]) - count
            refusals += count
            ctx.emit("withdrawal-refused", rule, kind=kind, text=wk.text, count=count, reason=reason,
                     vp_change=-count, vp=ctx.position["vp"], turn=ctx.turn, provisional=provisional)
    return withdrawn, refusals


def _due_text(ctx: Ctx, due: dict[str, int]) -> str:
    kinds = ctx.sc.charts.withdrawals.kinds
    return ", ".join(f"{_n(n, kinds[k].text)} [{k}]" for k, n in due.items()) or "none"


def refits(ctx: Ctx, units: list[str], problems: list[Problem]) -> int:
    """8.18-8.20: each listed division (refit_why) gets its refit counter: it may not move or attack
    in any way this German player turn (``stationary``), and regains at once the steps of 1d6 on the
    Refit Table (17.5), at most the steps it has lost and never above 4. Once per game each; any
    number of divisions in both sequences until refits end (8.19, 13.9). The conditions hold at the
    start of the phase: replacements and withdrawals change neither supply nor Soviet adjacency."""
    where = path_of("rwr", "refit")
    known = len(problems)
    table = ctx.sc.charts.refit
    if units and table is None:
        problems.append(problem(where, "the charts have no Refit Table (17.5): refits cannot be adjudicated", "17.5"))
        return 0
    ok: list[str] = []
    for j, u in enumerate(units):
        w = under(where, j)
        if u in ok:
            problems.append(problem(w, f"{u} is listed twice", "8.20"))
            continue
        why, rule = refit_why(ctx, u)
        if why:
            problems.append(problem(w, why, rule))
            continue
        ok.append(u)
    if len(problems) > known or table is None:
        return 0
    # Ambiguity 23 (option refit_under_concentration): the units that qualify by supply concentration
    via = {u: supply_state(ctx, u) == "attenuated" for u in ok}
    for u in ok:
        _keep_in_place(ctx, u, "8.20")
        ctx.position.setdefault("refits_used", {})[u] = ctx.turn
        if ctx.dice is None:  # a check: the die is rolled on adjudication
            continue
        label = f"8.20|{ctx.step}|refit|{u}|Refit Table"
        face = ctx.dice.roll(label)
        gain = table.steps[face - 1]
        lost = ctx.spec(u).steps - ctx.steps(u)
        regained = max(min(gain, lost, REFIT_MAX_STEPS - ctx.steps(u)), 0)
        before = ctx.steps(u)
        ctx.units[u]["steps"] = before + regained
        extra = {"concentration": True} if via[u] else {}
        ctx.emit("refit", "8.20", unit=u, hex=ctx.at(u), die=face, label=label, table=gain, lost=lost,
                 regained=regained, steps=[before, ctx.steps(u)], full=ctx.spec(u).steps, turn=ctx.turn,
                 provisional=table.provisional, **extra)
    return len(ok)


# --- security divisions (8.21) --------------------------------------------------------------------

def deploy_security(ctx: Ctx, raw: Sequence[tuple[str, str]], problems: list[Problem]) -> None:
    """8.21 (option security_divisions): in the MR phase of any GT the German deploys security
    divisions of the scenario's pool (`[pools] security`, held off the map) in groups of 3, at a
    permanent cost of 1 VP per group. pbem has no German order in the automatic MR phase, so, like
    the ArKo, `[declare.security]` (unit = hex) in the German's orders of the GT's first player turn
    is carried out at the start of movement, before any move (after the RWR phase, in which no
    security division takes part: 1 step, and no kind of the shipped Withdrawal Table). Each
    appears in a German-controlled city or large town in supply (attenuated acceptable;
    security_hex_why), within stacking (Ambiguity 24; adjacency to Soviet units does not matter),
    and acts at once as a 1-step infantry division."""
    where = path_of("declare", "security")
    known = len(problems)
    if not mr_declaration_open(ctx, where, "security_divisions", "security divisions are deployed", "8.21", problems):
        return
    placed: dict[str, str] = {}
    for u, raw_hex in raw:
        w = under(where, u)
        if u not in ctx.sc.security or u not in ctx.units:
            problems.append(problem(w, f"{u} is not a security division of the scenario ([pools] security)", "8.21"))
            continue
        if ctx.at(u) != "track":
            problems.append(problem(w, f"{u} is already deployed ({OFF_MAP_BOXES.get(ctx.at(u), ctx.at(u))})", "8.21"))
            continue
        h = ctx.sc.map.canonical(str(raw_hex))
        if h is None:
            problems.append(problem(w, f"'{raw_hex}' is not a hex of the map", "8.21"))
            continue
        why, rule = security_hex_why(ctx, u, h)
        if why:
            problems.append(problem(w, why, rule))
            continue
        placed[u] = h
    n = len(raw)
    if n % SECURITY_GROUP:
        problems.append(problem(where, f"{_n(n, 'security division')}: they are deployed in groups of {SECURITY_GROUP}", "8.21"))
    for h in sorted(set(placed.values())):
        new = [u for u, x in placed.items() if x == h]
        for rule, text in stack_problems(ctx, h, ctx.occupants(h, "german") + new):
            problems.append(problem(where, f"{h} would hold {text}", rule))
    if len(problems) > known or not placed:
        return
    groups = len(placed) // SECURITY_GROUP
    for u, h in placed.items():
        ctx.units[u]["at"] = h
    ctx.position["vp"] = int(ctx.position["vp"]) - groups
    ctx.emit("security-deployed", "8.21", units=dict(placed), groups=groups, vp_change=-groups,
             vp=ctx.position["vp"], turn=ctx.turn)
    for h in sorted(set(placed.values())):
        enter_hex(ctx, "german", h, "deployment")  # 14.25-14.26: as any German entry


# --- what the German may do, for the template and the position -----------------------------------

def choices(ctx: Ctx) -> dict[str, Any]:
    """What the RWR phase offers the German now: the pool, the divisions that may be replaced or
    may refit, the withdrawals due with the units that may fill each, the security divisions
    waiting (each list by unit id)."""
    out: dict[str, Any] = {}
    german = [u for u in sorted(ctx.units) if ctx.spec(u).side == "german"]
    if ctx.options.get("replacements") and replacements_open(ctx):
        out["pool"] = pool(ctx)
        out["replace"] = [u for u in german if not replace_why(ctx, u)[0]]
    if ctx.options.get("refits"):
        out["refit"] = [u for u in german if not refit_why(ctx, u)[0]]
    if ctx.options.get("withdrawals") and (ctx.pts == 1 or withdrawals_due(ctx)):
        table = ctx.sc.charts.withdrawals
        out["withdraw"] = {k: (n, [u for u in german if not withdraw_why(ctx, u, k, table.kinds[k])[0]])
                           for k, n in withdrawals_due(ctx).items()}
        out["withdraw_provisional"] = table.provisional and ctx.turn not in table.known
    if ctx.options.get("security_divisions") and ctx.pts == 1:
        out["security"] = [u for u in ctx.sc.security if u in ctx.units and ctx.at(u) == "track"]
    return out
