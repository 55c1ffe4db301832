"""What `pbem site` plots of a Europe Engulfed game (pbem/site/series.py): the WERPs each nation
announces in its production phase (4.5: public), the steps each side loses (6.26, 7.9), and the
blocks each side has on the map."""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event

from .context import context
from .data import SIDES


def series(state: dict[str, Any], events: list[Event] | None, side: str | None) -> list[dict[str, Any]]:
    ctx = context(state)
    out: list[dict[str, Any]] = []
    if events is not None:
        werps: dict[str, int] = {}
        lost = dict.fromkeys(SIDES, 0)
        for e in events:
            if e.kind == "werps" and isinstance(e.data.get("available"), int):
                werps[str(e.data["nation"])] = werps.get(str(e.data["nation"]), 0) + int(e.data["available"])
            elif e.kind in ("step-lost", "eliminated") and e.data.get("nation"):
                s = ctx.side_of_nation(str(e.data["nation"]))
                if s in lost:
                    lost[s] += 1
        if werps:
            out.append({"name": "WERPs announced, by nation (4.5)", "kind": "sum", "values": werps})
        out.append({"name": "Steps lost (6.26, 7.9)", "kind": "sum", "values": lost})
    on_map = {s: len(ctx.side_units(s)) for s in SIDES}
    out.append({"name": "Blocks on the map", "kind": "level", "values": on_map})
    return out
