"""Europe Engulfed in words: report lines for events, the position as text, `pbem status` lines,
order templates.

Each rules module renders its own events: a module's ``RENDER`` maps an event kind to a function
giving the event's Markdown lines. An event whose kind none renders gets a plain line with its
fields (never silence). A line that uses a provisional chart says so (the event carries
``provisional``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.model import Event

from . import breakthrough, combat, fog, landings, movement, production, supply, weather
from .context import context
from .data import SIDES, Turn, load_scenario

PROVISIONAL = " (provisional data)"


def _core_lines() -> dict[str, Callable[[Event], list[str]]]:
    def turn(e: Event) -> list[str]:
        return [f"## {e.data['label']} ({e.rule})"]

    def player_turn(e: Event) -> list[str]:
        return [f"### {str(e.data['side']).capitalize()} player-turn ({e.rule})"]

    def phase(e: Event) -> list[str]:
        return [f"#### {str(e.data['phase']).capitalize()} phase ({e.rule})"]

    def awaits(e: Event) -> list[str]:
        d = e.data
        return [f"- Next: {d['kind']} for {d['step']} from {', '.join(d['from'])} ({e.rule})."]

    def advance(e: Event) -> list[str]:
        return [f"- The turn marker advances to {Turn.parse(str(e.data['turn'])).label} ({e.rule})."]

    def step_lost(e: Event) -> list[str]:
        return [f"- {e.data['unit']} ({e.data['nation']}) loses a step in {e.data['at']} ({e.data['why']}, {e.rule}): "
                f"{e.data['left']} left."]

    def eliminated(e: Event) -> list[str]:
        d = e.data
        return [f"- {d['unit']} ({d['nation']}) is eliminated in {d['at']} ({d['why']}, {e.rule}) and returns to the force pool."]

    def control(e: Event) -> list[str]:
        return [f"- {e.data['area']} passes to the {e.data['side']} (was {e.data['was']}; {e.rule})."]

    def contested(e: Event) -> list[str]:
        return [f"- {e.data['area']} is now contested ({e.rule})."]

    def sa_spent(e: Event) -> list[str]:
        d = e.data
        return [f"- {str(d['nation']).capitalize()} expends a special action: {d['why']} ({e.rule}; {d['left']} left)."]

    def game_over(e: Event) -> list[str]:
        d = e.data
        who = "a draw" if d["winner"] == "draw" else f"the {d['winner']} win"
        return [f"## Game over: {who} ({d['reason']}; VP axis {d['vp']['axis']}, allies {d['vp']['allies']})"]

    return {"turn": turn, "player-turn": player_turn, "phase": phase, "awaits": awaits, "turn-advance": advance,
            "step-lost": step_lost, "eliminated": eliminated, "control": control, "contested": contested,
            "sa-spent": sa_spent, "game-over": game_over}


def _registry() -> dict[str, Callable[[Event], list[str]]]:
    out = _core_lines()
    for mod in (breakthrough, combat, fog, landings, movement, production, supply, weather):
        out.update(getattr(mod, "RENDER", {}))
    return out


_LINES: dict[str, Callable[[Event], list[str]]] | None = None


def event_lines(e: Event) -> list[str]:
    global _LINES
    if _LINES is None:
        _LINES = _registry()
    fn = _LINES.get(e.kind)
    if fn is not None:
        lines = fn(e)
    else:
        fields = ", ".join(f"{k} {v}" for k, v in e.data.items() if k != "provisional")
        lines = [f"- {e.kind}: {fields} ({e.rule})."]
    if e.data.get("provisional") and lines and PROVISIONAL.strip() not in lines[-1]:
        lines[-1] = lines[-1].rstrip() + PROVISIONAL
    return lines


def report_notes(events: list[Event]) -> list[str]:
    if any(e.data.get("provisional") for e in events):
        return ["Results marked *(provisional data)* come from a stand-in for a chart or map that is not in "
                "the rules text (`pbem module check europe-engulfed` lists them)."]
    return []


def status_lines(state: dict[str, Any]) -> list[str]:
    """Each side's blocks on the map, the special actions held (7.1), the contested areas."""
    ctx = context(state)
    out = [f"{s}: {len(ctx.side_units(s))} block(s) on the map" for s in SIDES]
    sa = state["position"].get("sa", {})
    if sa:
        out.append("special actions (7.1): " + ", ".join(f"{k} {v}" for k, v in sorted(sa.items())))
    con = state["position"].get("contested", {})
    if con:
        out.append("contested (Glossary): " + ", ".join(f"{a}{' (new)' if v == 'new' else ''}" for a, v in sorted(con.items())))
    return out


def unit_text(u: str, st: dict[str, Any]) -> str:
    """A block as its reader knows it: ``de.07 de-arm 3/4`` or ``de.07 (hidden)``."""
    if st.get("block"):
        text = f"{u} {st['block']} {st.get('steps')}"
    else:
        text = f"{u} (hidden)"
    if st.get("oos"):
        text += f" [{st['oos']}]"
    return text


def position_text(state: dict[str, Any], side: str | None) -> str:
    """The position as text: the clock, then each side's blocks and GS by area."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    ctx = context(state)
    c = state["clock"]
    lines = [f"# {sc.title}: {Turn.parse(str(c['turn'])).label}, {c['side']} {c['phase']}", ""]
    for s in SIDES:
        lines.append(f"## {s.capitalize()}")
        by_area: dict[str, list[str]] = {}
        for u in ctx.side_units(s):
            by_area.setdefault(ctx.at(u), []).append(unit_text(u, ctx.units[u]))
        for a, gs in sorted(state["position"].get("gs", {}).items()):
            for n, k in sorted(gs.items()):
                if ctx.side_of_nation(n) == s:
                    by_area.setdefault(a, []).append(f"{k} {n} GS")
        for a in sorted(by_area):
            mark = " (contested)" if ctx.contested(a) else ""
            lines.append(f"- {sc.map.areas[a].name}{mark}: " + "; ".join(by_area[a]))
        lines.append("")
    return "\n".join(lines)


def template(state: dict[str, Any], side: str, header: list[str]) -> str:
    """A skeleton file for the awaited step, each kind of order shown commented out."""
    phase = str(state["clock"]["phase"])
    out = [*header, ""]
    if phase == "move":
        out += ["# Production (1.22, 4.x).", "# [[production.build]]", '# nation = "NATION"', '# area = "AREA"',
                '# block = "BLOCK-TYPE"', "# steps = 1", "",
                "# Initial operational movement (1.23, 5.1): a group of blocks along a path of areas.", "# [[move]]",
                '# units = ["ID"]', '# path = ["AREA"]', "",
                "# Initial strategic movement (1.24, 5.2).", "# [[strat]]", '# units = ["ID"]', '# path = ["AREA", "AREA"]']
    elif phase == "combat":
        out += ["# Initial combat (1.25, 6.x): every newly contested area, and any other contested area you choose.",
                "# [[battle]]", '# area = "AREA"', '# type = "normal"      # or "assault" (6.3)', "",
                "# [next]", "# breakthrough = true   # buy breakthrough phases with special actions (1.26)", "",
                "# [final]", '# limited_supply = ["AREA"]   # 7.9: an SA per area']
    elif phase == "breakthrough":
        out += ["# One breakthrough phase (1.26): combat, move or strat; or end.", "# [breakthrough]",
                '# kind = "combat"', '# area = "AREA"', '# type = "normal"', "",
                "# [final]", '# limited_supply = ["AREA"]']
    else:
        out += ["# The set-up: your blocks' types and steps, hidden from your opponent (pbem sign seals them)."]
    return "\n".join(out) + "\n"
