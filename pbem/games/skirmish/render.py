"""Skirmish in words: a report's lines for each event kind, the position as text, and the
skeleton order or reply file of each step (`pbem template`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.model import Event

from . import rules
from .data import ELIMINATED, SIDES, load_scenario


def _units(units: list[str]) -> str:
    return ", ".join(units) if units else "none"


def _joined(d: dict[str, Any]) -> list[str]:
    return [f"- Joined: {', '.join(d['parties'])}, each with its key and first dice commitment."]


def _no_orders(d: dict[str, Any]) -> list[str]:
    return [f"- No {' or '.join(d['sides'])} submission for `{d['step']}` by the deadline: the referee adjudicates the step "
            f"as if empty orders had been sent (no moves, no attacks; a loss decision is taken {rules.NO_REPLY_POLICY}, 6.3)."]


def _phase(d: dict[str, Any], rule: str) -> list[str]:
    return ["", f"### {d['phase'].capitalize()} phase, {d['step']} (rule {rule})", ""]


def _move(d: dict[str, Any]) -> list[str]:
    river = f", {d['rivers']} river crossing(s)" if d.get("rivers") else ""
    claim = f"; its type is hidden: its type must allow it, checked when it is opened ({d['claim']})" if d.get("claim") else ""
    return [f"- Move {d['index'] + 1}: {d['unit']} {' → '.join(d['path'])}, cost {d['cost']}{river} (3.1, 3.2){claim}."]


def _control(d: dict[str, Any], rule: str) -> list[str]:
    was = f" from {d['was']}" if d["was"] else ""
    vp = f" ({d['vp']} VP)" if d.get("vp") else ""
    return [f"- Control: {d['area']}{vp} passes{was} to {d['side']} ({rule})."]


def _attack(d: dict[str, Any]) -> list[str]:
    mods = "".join(f", {m['label']} ({m['rule']})" for m in d["modifiers"])
    return [f"- **Attack {d['index'] + 1} on {d['target']}** ({d['side']} against {d['defender']}):",
            f"  - Attack {d['attack']}: {_units(d['attackers'])} (4.3).",
            f"  - Defence {d['defence']}: {_units(d['defenders'])}{mods} (4.3).",
            f"  - Die `{d['label']}` = {d['die']}: {d['die']} + {d['attack']} − {d['defence']} = {d['total']}, result {d['result']}: "
            f"the attacker loses {d['attacker_loss']}, the defender {d['defender_loss']} (4.4)."]


def _skipped(d: dict[str, Any]) -> list[str]:
    return [f"- Attack {d['index'] + 1} on {d['target']} is not made: {d['reason']} (4.2)."]


def _losses(d: dict[str, Any], rule: str) -> list[str]:
    return [f"  - {d['side'].capitalize()} ({d['role']}) loses {_units(d['units'])}, eliminated: {d['by']} ({rule})."]


def _decision(d: dict[str, Any]) -> list[str]:
    return [f"  - **Decision needed from {d['side']}**: {d['text']}; its standing instructions do not decide it "
            f"({d['rule']}). The adjudication stops here."]


def _openings(d: dict[str, Any]) -> list[str]:
    what = "; ".join(f"{side} {', '.join(items)}" for side, items in d["open"].items())
    return [f"- **Attack {d['attack'] + 1} on {d['target']} waits for hidden values to be opened** ({what}): {d['side']}, the "
            f"defender, opens its own in its reply, the attacker in the state it seals ({d['rule']}). The adjudication stops here."]


def _committed(d: dict[str, Any], rule: str) -> list[str]:
    return [f"- {d['side'].capitalize()} commits, hidden: {', '.join(d['items']) or 'nothing'} ({rule})."]


def _reply(d: dict[str, Any], rule: str) -> list[str]:
    if d["default"]:
        return [f"- No reply from {d['side']} by the deadline: {_units(d['losses'])} lost in attack {d['index'] + 1}, "
                f"{rules.NO_REPLY_POLICY} ({rule})."]
    return [f"- {d['side'].capitalize()}'s reply: {_units(d['losses'])} lost in attack {d['index'] + 1} on {d['target']} ({rule})."]


def _advance(d: dict[str, Any]) -> list[str]:
    return [f"  - Advance into {d['target']}: {_units(d['units'])} (4.7)."]


def _side_out(d: dict[str, Any]) -> list[str]:
    return [f"- {d['side'].capitalize()} has no unit left on the map: out of the game (2.4)."]


def _turn_skipped(d: dict[str, Any]) -> list[str]:
    return [f"- `{d['step']}` is skipped: {d['side']} is out of the game (2.4)."]


def _game_over(d: dict[str, Any]) -> list[str]:
    vp = ", ".join(f"{s} {d['vp'][s]}" for s in SIDES if s in d.get("vp", {}))
    last = (f" The values still hidden are opened in a last step (`reveal`) before the result stands ({d['reveal']})."
            if d.get("reveal") else "")
    return ["", f"**Game over: {d['winner']} wins** — {d['reason']} ({d['rule']}); VP {vp}.{last}"]


def _awaits(d: dict[str, Any]) -> list[str]:
    if d["kind"] == "none":
        return []
    return ["", f"Awaited next: {d['kind']} for step `{d['step']}` from {', '.join(d['from'])}; adjudicated by {d['adjudicator']}."]


EVENT_TEXT: dict[str, Callable[[Event], list[str]]] = {
    "joined": lambda e: _joined(e.data),
    "no-orders": lambda e: _no_orders(e.data),
    "phase": lambda e: _phase(e.data, e.rule),
    "move": lambda e: _move(e.data),
    "control": lambda e: _control(e.data, e.rule),
    "attack": lambda e: _attack(e.data),
    "attack-skipped": lambda e: _skipped(e.data),
    "losses": lambda e: _losses(e.data, e.rule),
    "decision-needed": lambda e: _decision(e.data),
    "openings-needed": lambda e: _openings(e.data),
    "committed": lambda e: _committed(e.data, e.rule),
    "reply": lambda e: _reply(e.data, e.rule),
    "advance": lambda e: _advance(e.data),
    "side-out": lambda e: _side_out(e.data),
    "turn-skipped": lambda e: _turn_skipped(e.data),
    "game-over": lambda e: _game_over(e.data),
    "awaits": lambda e: _awaits(e.data),
}


def event_lines(e: Event) -> list[str]:
    """The report lines of an event (EVENT_TEXT); an unknown kind is shown as data."""
    text = EVENT_TEXT.get(e.kind)
    return text(e) if text is not None else [f"- {e.kind} ({e.rule}): {e.data}"]


def position_text(state: dict[str, Any], side: str | None) -> str:
    """Every area of the map with its terrain, towns, controller and units (with their types)."""
    ctx = rules.context(state)
    sc = ctx.sc
    lines = [f"{sc.title}: game turn {ctx.turn} of {ctx.turns}, {ctx.side}'s player turn"
             + (f" (as {side} sees it)" if side else ""), ""]
    for a in sc.map.place_ids():
        p = sc.map.place(a)
        assert p is not None
        town = f"town {sc.vp(a)} VP" if sc.vp(a) else ""
        owner = ctx.control.get(a)
        units = ", ".join(f"{u} ({_type_name(ctx, u)})" for u in ctx.in_area(a))
        lines.append(f"{a:<12} {p.terrain:<7} {town:<10} {('control ' + owner) if owner else '':<14} {units}".rstrip())
    gone = sorted(u for u, s in ctx.units.items() if s["at"] == ELIMINATED)
    if gone:
        lines += ["", f"eliminated: {', '.join(gone)}"]
    vp = rules.vp(ctx)
    lines += ["", "VP: " + ", ".join(f"{s} {vp[s]}" for s in SIDES)]
    return "\n".join(lines) + "\n"


def _type_name(ctx: rules.Ctx, unit: str) -> str:
    t = rules.unit_type(ctx, unit)
    return t.name if t is not None else "type hidden"


def hidden_lines(state: dict[str, Any], side: str) -> list[str]:
    """7.2, 7.6: the [hidden] table of the step's file, with the scenario's types in its order as an
    example (every assignment of the side's types is allowed) and an empty reserve."""
    due = rules.items_due(state, side) if rules.is_hidden_game(state) else []
    if not due:
        return []
    sc = load_scenario(str(state["pbem"]["scenario"]))
    kinds = sorted(rules.side_types(sc, side).elements())
    out = ["[hidden]                      # sealed by `pbem sign`: nobody else sees these values until they are opened (7.4)"]
    units = [u for u in due if u in sc.units]
    if units:
        mix = ", ".join(f"{n} {t}" for t, n in sorted(rules.side_types(sc, side).items()))
        out.append(f"# your units' types (7.1): give them {mix}, in any order")
        out += [f'{u} = "{t}"' for u, t in zip(units, kinds, strict=True)]
    out += [f"# your reserve (7.6): at most {rules.RESERVE_POINTS} points in all, to areas that hold your units after your moves",
            f'"{due[-1]}" = {{}}' + "   # e.g. { mill = 2 }", ""]
    return out


def template(state: dict[str, Any], side: str, header: list[str]) -> str:
    """A skeleton order file for the side's player turn (its units, their allowance and the areas
    next to them as comments), or a reply file for the question awaited from it."""
    head = ["# Order file skeleton written by `pbem template`. Edit, then `pbem check` and `pbem sign`.", *header]
    if state["awaits"]["kind"] == "reply":
        q = state["pending"]["question"] if "pending" in state else state["question"]
        if q["kind"] == "open":
            return "\n".join([*head, f"# Attack {q['attack'] + 1} on {q['target']} (7.4): {q['text']}.", ""])
        head += [f"# Decision (6.2): {q['text']}.", "[reply]",
                 "losses = [" + ", ".join(f'"{u}"' for u in rules.rank(rules.context(state), list(q["units"]),
                                                                        rules.NO_REPLY_POLICY)[:int(q["loss"])]) + "]"
                 + f"   # {q['loss']} of: {', '.join(q['units'])}", ""]
        return "\n".join(head)
    if state["awaits"]["step"] == rules.SETUP_STEP:
        return "\n".join([*head, "# The set-up (7.2): commit your units' types and your reserve.", "", *hidden_lines(state, side)])
    ctx = rules.context(state, side=side)
    m = ctx.sc.map
    head += ["# Your units (docs/skirmish.md): entering an area costs 1, across a river 2 (3.2); no area holding",
             "# another side's units (3.3); at most 3 units of a side in an area (3.4).", "#"]
    for u in ctx.on_map(side):
        here = ctx.at(u)
        t = rules.unit_type(ctx, u)
        near = []
        for n in m.neighbours(here):
            holder = ctx.holder(n)
            near.append(n + (f" ({holder})" if holder and holder != side else "") + (" (river)" if rules.step_cost(ctx, here, n) == 2 else ""))
        what = (f"{t.name} in {here}: allowance {t.allowance}, strength {t.strength}" if t is not None else
                f"in {here}, type hidden: at most the allowance of your type, which is checked when it is opened (7.3)")
        head.append(f"# {u} {what}; next to {', '.join(near)}")
    head += ["", "# [[move]]                    # 3.1: one unit along a path of areas", f'# unit = "{(ctx.on_map(side) or ["ID"])[0]}"',
             '# path = ["AREA"]', "", "# [[attack]]                  # 4.1: after movement, resolved in order (4.2)",
             '# target = "AREA"', '# units = ["ID"]              # the attacker loses its units in this order (4.5)',
             '# advance = ["ID"]            # into the target if it is emptied (4.7)', "",
             "# [standing]                  # 6.1: your losses as a defender in the other sides' turns",
             '# loss_policy = "ask"         # or weakest-first, strongest-first', '# loss_order = ["ID"]', "",
             *hidden_lines(state, side)]
    return "\n".join(head)

