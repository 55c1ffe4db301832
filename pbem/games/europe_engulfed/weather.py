"""1.1 Weather Determination Phase: the weather of the three zones (West, East, South) this game
turn. In Mar/Apr and Nov/Dec the German and the Soviet player each roll a die (1.11): German higher,
the German result of the Variable Weather Result Box; Soviet higher or a tie, the other one; one
roll for all three zones. Other turns read the fixed weather. Both are printed on the map (NOT IN
SOURCE): charts.toml ``weather`` and ``weather.variable`` are authored stand-ins (provisional),
the German-win result stored first (A-02). The weather is recorded per zone in
``position.weather``; its effects (1.12-1.14, T-19) are read by the rules that use them
(``Ctx.weather(area)``: an area's weather is its zone's, A-03)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.engine.model import Event

from .context import Ctx
from .data import ZONES


def determine(ctx: Ctx) -> None:
    """1.1, 1.11: set ``position.weather`` for this game turn."""
    chart = ctx.sc.charts["weather"]
    data: Mapping[str, Any] = chart.data
    month = ctx.turn.key.split("-")[1]
    variable = data.get("variable", {})
    if isinstance(variable, dict) and month in variable:
        german, soviet = ctx.roll(f"1.11|{ctx.step}|map|german")[0], ctx.roll(f"1.11|{ctx.step}|map|soviet")[0]
        result = "german" if german > soviet else "soviet"
        w = variable[month][result]
        ctx.pos["weather"] = {z: str(w[z]) for z in ZONES}
        ctx.emit("weather", "1.11", turn=ctx.turn.key, weather=dict(ctx.pos["weather"]), dice={"germany": german, "ussr": soviet},
                 result=result, provisional=bool(chart.provisional))
        return
    w = data.get(month)
    if isinstance(w, dict):
        ctx.pos["weather"] = {z: str(w[z]) for z in ZONES}
    ctx.emit("weather", "1.1", turn=ctx.turn.key, weather=dict(ctx.pos.get("weather", {})), provisional=bool(chart.provisional))


def _label(w: str) -> str:
    return {"clear": "Clear", "light-mud": "Lt. Mud", "mud": "Mud", "snow": "Snow"}.get(w, w)


def _weather(e: Event) -> list[str]:
    d = e.data
    w = d["weather"]
    zones = f"West {_label(w.get('west', ''))}, East {_label(w.get('east', ''))}, South {_label(w.get('south', ''))}"
    prov = "; the weather track is printed on the map, not in the source" if d.get("provisional") else ""
    if "dice" in d:
        g, s = d["dice"]["germany"], d["dice"]["ussr"]
        who = ("the German roll is higher: the German result" if d["result"] == "german"
               else "the Soviet roll is higher or the rolls tie: the other result")
        return [f"- Weather ({e.rule}): variable weather, the German player rolls {g}, the Soviet player {s}; {who} "
                f"for all three zones (A-02): {zones}{prov}."]
    return [f"- Weather ({e.rule}): {zones}{prov}."]


RENDER = {"weather": _weather}
