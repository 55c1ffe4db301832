"""Red Steel in words: report lines for events, the position as text, `pbem status` lines, order
templates.

Each rules module renders its own events: a module's ``RENDER`` maps an event kind to a function
giving the event's Markdown lines. An event whose kind none renders gets a plain line with its
fields (never silence). A line that uses a provisional chart says so (the event carries
``provisional``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.model import Event
from pbem.games.base import EventLines

from . import activation, bombard, combat, endturn, engineer, intro, movement, status
from .context import context
from .data import OFF_MAP, POOL, SIDES, load_scenario

PROVISIONAL = " (provisional chart)"


def _core_lines() -> dict[str, Callable[[Event], list[str]]]:
    def turn(e: Event) -> list[str]:
        d = e.data
        tod = dict(am="AM", midday="Mid-Day", pm="PM", night="Night")[d["tod"]]
        return [f"## Game turn {d['turn']}: {d['date']} {tod} ({e.rule})"]

    def player_turn(e: Event) -> list[str]:
        return [f"### {str(e.data['side']).capitalize()} player turn ({e.rule})"]

    def phase(e: Event) -> list[str]:
        return [f"#### {str(e.data['phase']).capitalize()} phase ({e.rule})"]

    def awaits(e: Event) -> list[str]:
        d = e.data
        return [f"- Next: {d['kind']} for {d['step']} from {', '.join(d['from'])} ({e.rule})."]

    def declared(e: Event) -> list[str]:
        return [f"- {str(e.data['side']).capitalize()} declares attacks on {', '.join(e.data['targets'])} ({e.rule})."]

    def step_lost(e: Event) -> list[str]:
        return [f"- {e.data['unit']} loses a step ({e.data['why']}, {e.rule}): {e.data['left']} left."]

    def eliminated(e: Event) -> list[str]:
        return [f"- {e.data['unit']} is eliminated in {e.data['at']} ({e.data['why']}, {e.rule})."]

    def status_change(e: Event) -> list[str]:
        return [f"- {e.data['unit']} is {e.data['status']} ({e.rule})."]

    def game_over(e: Event) -> list[str]:
        d = e.data
        who = "a draw" if d["winner"] == "draw" else f"{d['winner']} wins"
        return [f"## Game over: {who} ({d['reason']}; VP axis {d['vp']['axis']}, soviet {d['vp']['soviet']}, {e.rule})"]

    return {"turn": turn, "player-turn": player_turn, "phase": phase, "awaits": awaits, "declared": declared,
            "step-lost": step_lost, "eliminated": eliminated, "status": status_change, "game-over": game_over}


event_lines = EventLines(_core_lines, lambda: (activation, bombard, combat, endturn, engineer, intro, movement, status),
                         PROVISIONAL)


def report_notes(events: list[Event]) -> list[str]:
    if any(e.data.get("provisional") for e in events):
        return ["Results marked *(provisional chart)* come from a stand-in for a printed chart that is not in "
                "the rules text (`pbem module check red-steel` lists them)."]
    return []


def status_lines(state: dict[str, Any]) -> list[str]:
    """Each side's units on the map and the stockpiles (11.5)."""
    ctx = context(state)
    out = [f"{s}: {len(ctx.side_units(s))} unit(s) on the map" for s in SIDES]
    ammo = state["position"].get("ammo", {})
    if ammo:
        out.append("ammunition (11.5): " + ", ".join(f"{k} {v}" for k, v in sorted(ammo.items())))
    return out


def position_text(state: dict[str, Any], side: str | None) -> str:
    """The position as text: the clock, then each side's units by hex."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    c = state["clock"]
    lines = [f"# {sc.title}: game turn {c['turn']} ({sc.turn(int(c['turn'])).label}), {c['side']} {c['phase']}", ""]
    units = state["position"]["units"]
    for s in SIDES:
        lines.append(f"## {s.capitalize()}")
        by_hex: dict[str, list[str]] = {}
        for u, st in sorted(units.items()):
            if sc.units[u].side == s:
                by_hex.setdefault(str(st["at"]), []).append(_unit_text(sc.units[u].name, u, st))
        for h in sorted(k for k in by_hex if k not in OFF_MAP):
            lines.append(f"- {h}{_hex_name(sc, h)}: " + "; ".join(by_hex[h]))
        for h in sorted(k for k in by_hex if k in OFF_MAP):
            if h == POOL:  # companies and militia not in play (14.1, 17.3): a count
                lines.append(f"- {h}: {len(by_hex[h])} counter(s) not in play (companies 14.1, militia 17.3)")
            else:
                lines.append(f"- {h}: " + "; ".join(by_hex[h]))
        lines.append("")
    return "\n".join(lines)


def _hex_name(sc: Any, h: str) -> str:
    p = sc.map.grid.place(h)
    return f" ({p.name})" if p is not None and p.name else ""


def _unit_text(name: str, u: str, st: dict[str, Any]) -> str:
    marks = [m for m in (st.get("status"), st.get("supply"), st.get("mode")) if m]
    if st.get("lost"):
        marks.append(f"-{st['lost']} step(s)")
    return u + (f" [{', '.join(marks)}]" if marks else "")


def template(state: dict[str, Any], side: str, header: list[str]) -> str:
    """A skeleton file for the awaited step, each kind of order shown commented out."""
    step = str(state["awaits"]["step"])
    out = [*header, ""]
    if state["awaits"]["kind"] == "reply":
        attacks = state.get("pending", {}).get("orders", {}).get("attack", [])
        out += ["# Defensive support (3.34b, 9.11): artillery of yours supporting a declared target."]
        out += [f"# Declared: {a['target']}, attacked by {', '.join(a['units'])}" for a in attacks]
        out += ["# [[reply.support]]", '# target = "HEX"', '# units = ["UNIT"]']
    elif step.endswith("/intro"):
        out += ["# Introductory Segment (3.1): your choices; what you leave out comes from your standing instructions.",
                "# [intro]", "# mobilise = true            # 17.3: try to mobilise militia",
                '# militia = ["HEX"]           # 17.3: towns and cities for them, best first']
        if "referee" in state.get("parties", {}):
            out += ['# reserve = "FORMATION"       # 15.14: a division in reserve ("" for none)']
        else:
            out += ["", "# 15.14: the division in reserve, or \"\" for none: hidden (pbem sign seals it), always given.",
                    "[hidden]", f'"reserve.T{state["clock"]["turn"]}" = ""']
    elif step.endswith("/move"):
        out += ["# Status Phase: ammunition issued (11.51).", "# [[ammo]]", '# unit = "UNIT"', "# volleys = 2", "",
                "# Engineer Phase (17.2, 17.4).", "# [[entrench]]", '# unit = "UNIT"', "",
                "# Movement Phase (5.x): a unit or stack along a path of adjacent hexes.", "# [[move]]",
                '# units = ["UNIT"]', '# path = ["HEX", "HEX"]', "# strategic = false"]
    elif "referee" not in state.get("parties", {}):
        out += ["# Combat Phase (9.x): a target hex and the attacking units.", "# [[attack]]",
                '# target = "HEX"', '# units = ["UNIT"]', "",
                "# The artillery supporting each attack, hidden until the defender has allocated his (3.34c);",
                "# given with every attack, {} for none; pbem sign seals it:", "# [hidden]",
                f'# "support.T{state["clock"]["turn"]}" = {{ HEX = ["UNIT"] }}', "",
                "# Bombardment (8.x).", "# [[bombard]]", '# target = "HEX"', '# units = ["UNIT"]']
    else:
        out += ["# Combat Phase (9.x): a target hex, the attacking units, the artillery supporting.", "# [[attack]]",
                '# target = "HEX"', '# units = ["UNIT"]', "# support = []", "",
                "# Bombardment (8.x).", "# [[bombard]]", '# target = "HEX"', '# units = ["UNIT"]']
    return "\n".join(out) + "\n"
