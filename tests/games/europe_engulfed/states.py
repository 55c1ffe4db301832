"""A working Europe Engulfed state for unit tests: the Barbarossa scenario's map and charts with
the units and position keys a test gives (refereed unless ``secret``)."""

from __future__ import annotations

from typing import Any

from pbem.games.europe_engulfed.module import EuropeEngulfed


def state_with(units: dict[str, dict[str, Any]], side: str = "axis", secret: bool = False, phase: str = "move",
               standing: dict[str, Any] | None = None, **pos: Any) -> dict[str, Any]:
    game = EuropeEngulfed().new_game("1941-barbarossa", {})
    game["position"]["units"] = units
    game["position"]["gs"] = {}
    for k, v in pos.items():
        if k == "control":
            game["position"]["control"].update(v)
        else:
            game["position"][k] = v
    parties: dict[str, Any] = {"axis": {}, "allies": {}}
    if not secret:
        parties["referee"] = {}
    return {"pbem": {"scenario": "1941-barbarossa", "module": "europe-engulfed", "game": "t"}, "parties": parties,
            "options": game["options"], "clock": {"turn": "1941-may", "side": side, "phase": phase},
            "position": game["position"], "standing": standing or {},
            "awaits": {"kind": "orders", "step": f"1941-may/{side}/{phase}", "from": [side], "adjudicator": "referee"}}
