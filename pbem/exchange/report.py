"""The Markdown turn report, derived from a transition (docs/protocol.md): never the other way round."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pbem import __version__
from pbem.engine.model import Event

from . import names

if TYPE_CHECKING:
    from pbem.games.base import GameModule


def render_report(module: GameModule, prev: dict[str, Any], cur: dict[str, Any], events: list[Event],
                  picture: str | None = None, side: str | None = None) -> str:
    """The Markdown report of a transition; with ``side``, the report for that side of a refereed
    game: only the events it may see (``module.side_events``), no picture (it shows the full position)."""
    h = cur["pbem"]
    if side is not None:
        events = module.side_events(cur, events, side)
        picture = None
    lines = [
        f"# {module.title}: report {names.number(h['sequence'])}" + (f", for the {side} side" if side else ""),
        "",
        f"- Game `{h['game']}`, scenario `{h['scenario']}`, ruleset `{h['ruleset']}`{_variant(cur['options'])}; "
        f"written by pbem {__version__}.",
        f"- Step adjudicated: `{prev['awaits']['step']}` ({prev['awaits']['kind']} from {', '.join(prev['awaits']['from'])}), "
        f"by {cur['seal']['signer']}.",
        f"- Previous state `{h['previous']}`; inputs: " + ", ".join(f"`{d}`" for d in h["inputs"]) + ".",
    ]
    tr = dict(cur.get("transition", {}))
    if side is not None and tr.get("dice"):
        from .views import side_dice

        tr["dice"] = side_dice(module, cur, side)
    if tr.get("reveals"):
        lines.append(f"- Dice: algorithm `{h['dice_algorithm']}`, seed `{tr['seed']}` from the reveals of "
                     f"{', '.join(sorted(tr['reveals']))} (re-derive them with `pbem audit`).")
    lines += _deadline_lines(cur)
    if picture:
        lines += ["", f"![Map of this step: moves, attacks and control changes]({picture})"]
    body: list[str] = []
    for e in events:
        body += core_event_lines(e) if e.kind in CORE_EVENTS else module.render_event(e)
    lines += _fill_empty_phases(body)
    notes = module.report_notes(events)
    if notes:
        lines += ["", *notes]
    if tr.get("dice"):
        lines += ["", "## Dice", ""]
        for r in tr["dice"]:
            lines.append(f"- `{r['label']}`: d{r['sides']} = {r['face']}")
    return "\n".join(lines).rstrip() + "\n"


def _variant(options: dict[str, Any]) -> str:
    """The game's variant of its ruleset, where its options name one."""
    v = options.get("ruleset")
    return f" ({v} game)" if v else ""


CORE_EVENTS = ("opened", "all-opened", "missed", "agreed")


def _deadline_lines(cur: dict[str, Any]) -> list[str]:
    """The time of the adjudication and the deadline of the step awaited next (a game with deadlines)."""
    at = cur.get("transition", {}).get("at")
    if "deadlines" not in cur or at is None:
        return []
    aw = cur["awaits"]
    due = f"; `{aw['step']}` is due {aw['due']} (grace {cur['deadlines']['grace']}h)" if "due" in aw else ""
    return [f"- Adjudicated at {at}{due}."]


def core_event_lines(e: Event) -> list[str]:
    """The report lines of what the core does in every game (docs/protocol.md, Hidden values)."""
    if e.kind == "missed":
        d = e.data
        return [f"- No {' or '.join(d['sides'])} file for `{d['step']}`: it was due {d['due']} and the grace period ended "
                f"{d['grace_until']}; at {d['at']} {d['by']} adjudicates the step without it, as the game's rules settle a "
                "missing side (its standing instructions, the game's defaults for empty orders)."]
    if e.kind == "agreed":
        d = e.data
        terms = ([f"`{d['step']}` now due {d['due']}"] if "due" in d else []) + \
            [f"{k} {v}h" for k, v in sorted(d.get("deadlines", {}).items())]
        return [f"- Every player ({', '.join(d['players'])}) agreed: {'; '.join(terms)}. Nothing else changes."]
    if e.kind == "opened":
        values = ", ".join(json.dumps(v, ensure_ascii=False, sort_keys=True) for v in e.data["values"])
        return [f"- {e.data['side']} opens its hidden item `{e.data['item']}`: {values} (checked against its commitment "
                "and everything recorded of it while hidden)."]
    return ["", "Every hidden item is open: the game is over."]


def report_version(text: str) -> str | None:
    """The pbem version that wrote a report, from its header line (None if it does not say)."""
    m = re.search(r"; written by pbem ([0-9][^ .]*(?:\.[0-9A-Za-z]+)*)\.$", text[:2000], re.M)
    return m.group(1) if m else None


def _fill_empty_phases(lines: list[str]) -> list[str]:
    """Say so when a phase had nothing in it, and keep single blank lines."""
    out: list[str] = []
    for i, line in enumerate(lines):
        if line == "" and out and out[-1] == "":
            continue
        out.append(line)
        if line.startswith("### "):
            rest = [x for x in lines[i + 1:] if x != ""]
            if not rest or rest[0].startswith("### ") or rest[0].startswith("Awaited next"):
                out += ["", "- Nothing in this phase."]
    return out
