"""Text for people about the RWR phase (8.12-8.20) and the security divisions (8.21): report lines
for their events, position lines for `pbem show` and `pbem status`, and the order-template block."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .data import OKH_AREAS, Scenario
from .rules.context import OFF_MAP_BOXES, Ctx
from .rwr import REPLACEMENT_POOL, choices
from .sequence import sequences_in

UNIT = '"UNIT"'
PROVISIONAL_17_4 = " (provisional Withdrawal Table 17.4)"


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _steps(n: int) -> str:
    return _n(n, "step")


def _replacement(d: dict[str, Any]) -> str:
    air = "; air-supplied: it may not move or attack this player turn (9.18)" if d["supply"] == "air" else ""
    supply = {"supplied": "in supply", "attenuated": "in attenuated supply", "air": "air-supplied"}.get(d["supply"], d["supply"])
    return (f"- Replacement: {d['unit']} in {d['hex']} ({supply}) is restored from {d['steps'][0]} to {d['steps'][1]} steps "
            f"for {_steps(d['used'])} of the pool; {d['pool']} of {REPLACEMENT_POOL} left (8.12-8.15){air}.")


def _withdrawal(d: dict[str, Any]) -> str:
    prov = PROVISIONAL_17_4 if d["provisional"] else " (17.4)"
    where = d["hex"]
    if where in OKH_AREAS:  # option okh_withdrawals (Ambiguity 22)
        where = (f"the {OFF_MAP_BOXES[where].removeprefix('in the ')} (option okh_withdrawals: the OKH areas count as "
                 "on the map, Ambiguity 22)")
    return (f"- Withdrawal GT{d['turn']}: {d['unit']} ({d['text']}, {_steps(d['steps'])}) leaves {where} for good"
            f"{prov}; withdrawn (8.16).")


def _refused(d: dict[str, Any]) -> str:
    prov = PROVISIONAL_17_4 if d["provisional"] else " (17.4)"
    what = _n(d["count"], d["text"])
    if d["reason"] == "refused":
        how = f"refused by the German: {d['vp_change']:+d} VP"
    elif d["reason"].startswith("no orders"):
        how = f"no orders by the deadline, so refused: {d['vp_change']:+d} VP"
    else:
        how = f"no unit of the kind can be withdrawn (none on the map in supply), so there is no substitute: {d['vp_change']:+d} VP"
    return f"- Withdrawal GT{d['turn']} of {what}{prov}: {how} (8.17); German VP now {d['vp']}."


def _deferred(d: dict[str, Any]) -> str:
    prov = PROVISIONAL_17_4 if d["provisional"] else " (17.4)"
    return (f"- Withdrawal GT{d['turn']} of {_n(d['count'], d['text'])}{prov}: neither made nor refused in this "
            "first-sequence RWR phase, so it waits for the second-sequence one, where it is withdrawn or refused "
            "(8.16-8.17; option withdrawal_sequence = \"either\", Ambiguity 9).")


def _refit(d: dict[str, Any]) -> str:
    prov = ", provisional table" if d["provisional"] else ""
    capped = ""
    if d["regained"] < d["table"]:
        capped = f"; steps beyond the {_steps(d['lost'])} lost are forfeit" if d["table"] > d["lost"] else "; no unit exceeds 4 steps"
    conc = (" (under supply concentration east of the GAS line, which counts as in supply: option "
            "refit_under_concentration, Ambiguity 23)") if d.get("concentration") else ""
    return (f"- Refit: {d['unit']} in {d['hex']}{conc} gets its refit counter (8.20): die `{d['label']}` = {d['die']}, "
            f"Refit Table {_steps(d['table'])} (17.5{prov}){capped}; it regains {_steps(d['regained'])}, "
            f"{d['steps'][0]} to {d['steps'][1]} of {d['full']}. It may not move or attack this player turn and "
            f"refits no more this game (8.20).")


def _security(d: dict[str, Any]) -> str:
    where = ", ".join(f"{u} in {h}" for u, h in d["units"].items())
    return (f"- Security divisions deployed (8.21, MR phase of GT{d['turn']}): {where}; {_n(d['groups'], 'group')} of 3, "
            f"{d['vp_change']:+d} VP for good, German VP now {d['vp']}. They act at once as 1-step infantry divisions.")


def _end(d: dict[str, Any]) -> str:
    done = [f"{d['replaced']} replaced"] if d["replaced"] else []
    done += [f"{d['withdrawn']} withdrawn"] if d["withdrawn"] else []
    done += [f"{_n(d['refused'], 'withdrawal')} not made"] if d["refused"] else []
    done += [_n(d["refits"], "refit")] if d["refits"] else []
    pool = f"; replacement pool {d['pool']} of {d['full_pool']} steps (8.15)" if d["pool"] is not None else ""
    return f"- RWR phase {d['step']}: " + (", ".join(done) if done else "no replacement, withdrawal or refit") + f"{pool}."


EVENT_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "replacement": _replacement,
    "withdrawal": _withdrawal,
    "withdrawal-refused": _refused,
    "withdrawals-deferred": _deferred,
    "refit": _refit,
    "security-deployed": _security,
    "rwr-end": _end,
}


def position_lines(sc: Scenario, state: dict[str, Any]) -> list[str]:
    """The pool (8.15), the refits made (8.20, Turn Record Track), the units kept in place this
    player turn (8.20, 9.18) and the security divisions waiting (8.21), where the game keeps them."""
    pos = state["position"]
    lines = []
    if "replacements" in pos:
        lines.append(f"German replacement pool (8.15): {pos['replacements']} of {REPLACEMENT_POOL} steps")
    if "refits_used" in pos:
        used = ", ".join(f"{u} GT{t}" for u, t in sorted(pos["refits_used"].items())) or "none"
        ended = "; refits have ended (8.19, 13.9)" if pos.get("refits_ended") else ""
        lines.append(f"Refits made (8.20): {used}{ended}")
    if pos.get("stationary"):
        lines.append("May not move or attack this player turn: "
                     + ", ".join(f"{u} ({'refitting, 8.20' if r == '8.20' else 'air-supplied replacement, 9.18'})"
                                 for u, r in sorted(pos["stationary"].items())))
    if state["options"].get("security_divisions"):
        waiting = [u for u in sc.security if pos["units"].get(u, {}).get("at") == "track"]
        if waiting:
            lines.append(f"Security divisions waiting (8.21): {', '.join(waiting)}")
    return lines


def template_lines(ctx: Ctx) -> list[str]:
    """The RWR block of a German order template: what may be ordered now, and the keys."""
    if ctx.side != "german":
        return []
    c = choices(ctx)
    lines: list[str] = []
    if any(k in c for k in ("replace", "refit", "withdraw")):
        lines.append("# RWR phase (8.13-8.20), before any move: replacements, then withdrawals, then refits.")
        if "pool" in c:
            lines.append(f"# Replacement pool: {c['pool']} of {REPLACEMENT_POOL} steps (8.15). Reduced divisions that may be "
                         f"replaced: {', '.join(c['replace']) or 'none'}")
        if "refit" in c:
            lines.append(f"# Divisions that may refit (8.20; 1d6 on the Refit Table 17.5, once per game, no move or "
                         f"attack this turn): {', '.join(c['refit']) or 'none'}")
        due = c.get("withdraw", {})
        kinds = ctx.sc.charts.withdrawals.kinds
        prov = ", provisional" if c.get("withdraw_provisional") else ""
        for k, (n, units) in due.items():
            lines.append(f"# Withdrawal due on GT{ctx.turn} (17.4{prov}): {_n(n, kinds[k].text)} [{k}]; units that can be "
                         f"withdrawn: {', '.join(units) or 'none (the VP are lost, 8.17)'}")
        lines += ["# [rwr]", '# replace = ["UNIT"]', '# refit = ["UNIT"]']
        if due:
            later = (ctx.pts < sequences_in(ctx.turn) and ctx.options.get("withdrawal_sequence", "first") == "either")
            lines.append("# [rwr.withdraw]               # 8.16: every withdrawal due is withdrawn or refused"
                         + (" (those left open wait for the second sequence: Ambiguity 9)" if later else ""))
            lines += [f"# {k} = [{', '.join([UNIT] * n)}]" for k, (n, _) in due.items()]
            lines.append("# [rwr.refuse]                 # 8.17: -1 VP per unit refused")
            lines += [f"# {k} = 0" for k in due]
        lines.append("")
    if c.get("security"):
        lines += [f"# Security divisions waiting (8.21): {', '.join(c['security'])}. Deployed in groups of 3, -1 VP per group, "
                  "each in a German-controlled city or large town in supply:",
                  "# [declare.security]", '# UNIT = "HEX"', ""]
    return lines
