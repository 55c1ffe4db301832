"""The numbers a game's site plots, per game turn: the victory points every game's summary gives
(`pbem status --json`), and what the game module adds through its optional ``site_series``.

``module.site_series(state, events, side)`` (optional) returns a list of
``{"name": TITLE, "kind": "level" | "sum", "values": {LINE: int}}`` for one state: ``state`` is the
state or, on a side's site, that side's view; ``events`` the transition's events as that side may
see them (None when the site has no replay: a view's); ``side`` the site's side or None. A "level"
series is read at the last state of each game turn (a score, units out of supply), a "sum" series
adds up over the turn's transitions (steps lost, units arriving).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model import Game


@dataclass
class Plot:
    title: str
    labels: list[str]  # one per game turn
    lines: dict[str, list[int | None]]  # a line's name (a side) to one value per turn
    note: str = ""


def turn_label(clock: dict[str, Any]) -> str:
    t = clock.get("turn", "")
    return f"T{t}" if isinstance(t, int) else str(t)


def _vp(summary: dict[str, Any]) -> dict[str, int]:
    vp = summary.get("vp")
    if isinstance(vp, bool):
        return {}
    if isinstance(vp, int):
        return {"VP": vp}
    if isinstance(vp, dict):
        return {str(k): int(v) for k, v in vp.items() if isinstance(v, int) and not isinstance(v, bool)}
    return {}


def plots(game: Game) -> list[Plot]:
    """Every plot of the game, in the order of their first appearance."""
    module = game.module
    hook = getattr(module, "site_series", None)
    labels: list[str] = []
    kinds: dict[str, str] = {}
    order: list[str] = []
    values: dict[str, dict[str, dict[str, int]]] = {}  # name -> turn label -> line -> value

    def add(name: str, kind: str, label: str, vals: dict[str, int]) -> None:
        if name not in kinds:
            kinds[name] = kind
            order.append(name)
        per = values.setdefault(name, {}).setdefault(label, {})
        for line, v in vals.items():
            per[line] = per.get(line, 0) + v if kind == "sum" else v

    for step in game.steps:
        data = step.data
        label = turn_label(data.get("clock", {}))
        if label not in labels:
            labels.append(label)
        try:
            summary = module.summary(data)
        except (KeyError, TypeError, ValueError):
            summary = {}
        vp = _vp(summary)
        if vp:
            add("Victory points", "level", label, vp)
        if hook is not None:
            events = step.events
            if events is not None and game.side is not None:
                events = module.side_events(data, events, game.side)
            for s in hook(data, events, game.side):
                add(str(s["name"]), str(s["kind"]), label, {str(k): int(v) for k, v in s["values"].items()})
    out = []
    sides = [s for s in game.steps[0].data.get("parties", {}) if s != "referee"] if game.steps else []
    for name in order:
        per = values[name]
        lines_order = [s for s in sides if any(s in per.get(lb, {}) for lb in labels)]
        lines_order += sorted({ln for lb in labels for ln in per.get(lb, {})} - set(lines_order))
        lines: dict[str, list[int | None]] = {}
        for ln in lines_order:
            if kinds[name] == "sum":
                lines[ln] = [per.get(lb, {}).get(ln, 0) if lb in per else 0 for lb in labels]
            else:
                lines[ln] = [per[lb][ln] if lb in per and ln in per[lb] else None for lb in labels]
        note = "per game turn" if kinds[name] == "sum" else "at the end of each game turn"
        out.append(Plot(name, labels, lines, note))
    return out
