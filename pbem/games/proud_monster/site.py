"""What `pbem site` plots of a Proud Monster game (pbem/site/series.py): steps lost by each side
(14.35), units out of supply (9.x markers), and units arriving (reinforcements, 8.x)."""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event

from .data import load_scenario

ARRIVALS = {"soviet-arrivals": "soviet", "tank-brigades": "soviet", "okh-arrival": "german"}  # 8.7, 8.9, 8.3


def series(state: dict[str, Any], events: list[Event] | None, side: str | None) -> list[dict[str, Any]]:
    sc = load_scenario(str(state["pbem"]["scenario"]))
    sides = ("german", "soviet")
    out: list[dict[str, Any]] = []
    if events is not None:
        lost = dict.fromkeys(sides, 0)
        arrived = dict.fromkeys(sides, 0)
        for e in events:
            if e.kind == "losses" and e.data.get("side") in lost:
                lost[str(e.data["side"])] += sum(int(x.get("steps", 0)) for x in e.data.get("losses") or [])
            elif e.kind in ARRIVALS:
                arrived[ARRIVALS[e.kind]] += len(e.data["units"]) if isinstance(e.data.get("units"), list) else 1
        out.append({"name": "Steps lost", "kind": "sum", "values": lost})
        out.append({"name": "Units arriving (reinforcements)", "kind": "sum", "values": arrived})
    pos = state.get("position", {})
    oos = dict.fromkeys(sides, 0)
    for u in pos.get("oos", []):
        spec = sc.units.get(u)
        if spec is not None and spec.side in oos:
            oos[spec.side] += 1
    if side is not None:  # a side's site: only what its view shows of the enemy, which may be nothing
        oos = {s: n for s, n in oos.items() if s == side or n}
    out.append({"name": "Units out of supply", "kind": "level", "values": oos})
    return out
