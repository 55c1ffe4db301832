"""1.1 Weather Determination Phase: the weather of the three zones (West, East, South) this game
turn, from the scenario's weather track; in Mar/Apr and Nov/Dec the German and the Soviet player
each roll a die (1.11, A-02). Effects are read by the rules that use them (1.12-1.14, T-19)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.engine.model import Event

from .context import Ctx

ZONES = ("west", "east", "south")


def determine(ctx: Ctx) -> None:
    """1.1, 1.11: set ``position.weather`` for this game turn (stub: the fixed weather only)."""
    fixed: Mapping[str, Any] = ctx.sc.charts["weather"].data
    month = ctx.turn.key.split("-")[1]
    w = fixed.get(month)
    if isinstance(w, dict):
        ctx.pos["weather"] = {z: str(w[z]) for z in ZONES}
    ctx.emit("weather", "1.1", turn=ctx.turn.key, weather=dict(ctx.pos.get("weather", {})))


def _weather(e: Event) -> list[str]:
    w = e.data["weather"]
    return [f"- Weather ({e.rule}): West {w.get('west')}, East {w.get('east')}, South {w.get('south')}."]


RENDER = {"weather": _weather}
