"""Fortifications (14.24-14.30; option ``fortifications``, full game): forts and heavy forts, the fort
lines the SPAT activates (14.25, 17.3), their cancellation and destruction (14.25, 14.26, Ambiguities
42-44) and the Stalin Line (14.30). Their column shifts are in combat/shifts.py (14.27, 14.28), the
Stalin Line's +1 in combat/strength.py.
"""

from __future__ import annotations

from typing import Any

from ..data import Scenario
from .context import Ctx

FORT_STATES = ("uncompleted", "intact", "destroyed", "cancelled")  # 14.24; "cancelled": 14.25


def initial_works(sc: Scenario) -> dict[str, Any]:
    """14.24: the forts of the lines the SPAT lists (17.3: Luga, Leningrad, Vyazma, Mozhaisk,
    Moscow) start uncompleted, every other fort and heavy fort intact; 14.30: the Stalin Line starts
    intact. The position keeps them only with the option fortifications."""
    hexes = sorted(sc.map.hexes.values(), key=lambda x: x.id)
    return {"forts": {h.id: "uncompleted" if h.line in sc.charts.spat.lines else "intact" for h in hexes if h.fort},
            "stalin": {h.id: "intact" for h in hexes if h.stalin}}


def fort_state(ctx: Ctx, hex_id: str) -> str:
    """The state of a hex's fort or heavy fort (14.24), "" for none or with the option off."""
    if not ctx.options.get("fortifications") or not ctx.sc.map.hexes[hex_id].fort:
        return ""
    return str(ctx.position.get("forts", {}).get(hex_id, ""))


def intact_fort(ctx: Ctx, hex_id: str) -> str:
    """"fort" or "heavy" for an intact fort or heavy fort (14.27, 14.28); a destroyed, cancelled or
    uncompleted one has no effect (14.25, 14.26: only the natural terrain counts)."""
    return ctx.sc.map.hexes[hex_id].fort if fort_state(ctx, hex_id) == "intact" else ""


def intact_stalin(ctx: Ctx, hex_id: str) -> bool:
    """14.30: an intact Stalin Line hex (option fortifications)."""
    return bool(ctx.options.get("fortifications")) and ctx.sc.map.hexes[hex_id].stalin \
        and ctx.position.get("stalin", {}).get(hex_id) == "intact"


def spat_data(ctx: Ctx, line: str) -> dict[str, Any]:
    spat = ctx.sc.charts.spat
    return {"spat_turn": spat.lines.get(line), "provisional": spat.provisional and line not in spat.known}


def fort_activation(ctx: Ctx, turn: int) -> None:
    """14.25: at the very start of the GT the SPAT (17.3) gives for it, each uncompleted line that has
    not been cancelled becomes active: its forts are intact from then on (an automatic phase before
    the Mutual Reinforcement phase, sequence.py). A line whose GT has passed (a scenario starting
    later) activates at the start of the scenario's first GT."""
    spat = ctx.sc.charts.spat
    forts: dict[str, str] = ctx.position.setdefault("forts", {})
    by_line: dict[str, list[str]] = {}
    for h, st in sorted(forts.items()):
        line = ctx.sc.map.hexes[h].line
        if st == "uncompleted" and line in spat.lines and spat.lines[line] <= turn:
            by_line.setdefault(line, []).append(h)
    for line, hexes in sorted(by_line.items()):
        for h in hexes:
            forts[h] = "intact"
        ctx.emit("fort-line", "14.25", line=line, state="intact", hexes=hexes, turn=turn, **spat_data(ctx, line))


def cancel_line(ctx: Ctx, line: str, hex_id: str, how: str) -> None:
    """14.25: a German ground unit entering any hex of an uncompleted line, at any time before the
    start of its activation GT (Ambiguity 43), cancels the whole line for good; cancelling a line
    the SPAT names in `cancels` cancels those too (Luga north cancels Luga south, not the reverse)."""
    forts: dict[str, str] = ctx.position["forts"]
    todo, done = [line], set()
    while todo:
        ln = todo.pop(0)
        if ln in done:
            continue
        done.add(ln)
        hexes = sorted(h for h, st in forts.items() if st == "uncompleted" and ctx.sc.map.hexes[h].line == ln)
        for h in hexes:
            forts[h] = "cancelled"
        if hexes:
            ctx.emit("fort-line", "14.25", line=ln, state="cancelled", hexes=hexes, turn=ctx.turn, by=hex_id, how=how,
                     via="" if ln == line else line, **spat_data(ctx, ln))
        todo += ctx.sc.charts.spat.cancels.get(ln, ())


# Ambiguity 42 (option fort_destruction = "assault"): the entries that follow an attack that
# eliminated every defender (14.26: occupied by advance after combat; 15.9: the MA force is in the hex).
WORKS_DESTROYED_BY = ("advance after combat", "mobile assault")


def enter_works(ctx: Ctx, side: str, hex_id: str, how: str) -> None:
    """A German-side ground unit enters a hex (movement, advance after combat, placement; option
    fortifications). 14.25: a fort of an uncompleted line cancels the line (cancel_line). 14.26 with
    the expert note under 14.30 (Ambiguities 42, 44): an intact fort, heavy fort or Stalin Line hex
    free of Soviet units is destroyed the moment it is entered; after a PA that eliminated every
    defender, by the advance after combat. Entering again changes nothing.

    Option fort_destruction = "assault" (14.26 read alone, without the expert note): an intact work
    is destroyed only when a German-side attack eliminated every defender and the hex is then
    occupied, by the advance after a PA or by the force of a mobile assault that cleared it (15.9);
    entered by movement, retreat or placement it stays intact (and, with supply, keeps German
    supply lines out, 14.29, the units in it included). Uncompleted lines are cancelled by any entry
    either way (14.25)."""
    if side != "german" or not ctx.options.get("fortifications") or ctx.occupants(hex_id, "soviet"):
        return
    h = ctx.sc.map.hexes[hex_id]
    state = fort_state(ctx, hex_id)
    if state == "uncompleted":
        cancel_line(ctx, h.line, hex_id, how)
    if ctx.options.get("fort_destruction", "any-entry") == "assault" and how not in WORKS_DESTROYED_BY:
        return
    if state == "intact":
        ctx.position["forts"][hex_id] = "destroyed"
        ctx.emit("fort-destroyed", "14.26", hex=hex_id, fort=h.fort, line=h.line, how=how)
    if intact_stalin(ctx, hex_id):
        ctx.position["stalin"][hex_id] = "destroyed"
        ctx.emit("stalin-destroyed", "14.30", hex=hex_id, how=how)
