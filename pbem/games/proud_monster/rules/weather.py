"""Weather (13.1-13.10; option ``weather``, full game): the Weather Determination phase (13.2, 17.1),
the weather in force in each zone, the permanent effects (13.8-13.10), and what the weather does to
hexside features and terrain in combat (13.6, 13.7, Ambiguity 35). Its effects on movement are in
movement.py (13.4-13.7).
"""

from __future__ import annotations

from typing import Any

from ..data import OKH_AREAS
from .context import Ctx

WEATHER_NAMES = {"D": "dry", "R": "rain", "M": "mud", "F": "frost", "S": "snow"}
WEATHER_RULES = {"D": "13.3", "R": "13.4", "M": "13.5", "F": "13.6", "S": "13.7"}
WEATHER_FLAGS = ("nz_snow", "sz_snow", "refits_ended", "highway_gone")  # 13.8, 13.8, 13.9, 13.10
STRAITS = {"sivash": "the Sivash", "kerch": "the Kerch Strait"}


def initial_weather() -> dict[str, Any]:
    """The weather of a position when the weather rules are on: Dry in both zones until the first
    roll on GT7 (13.2, 17.1) and no permanent effect yet (13.8-13.10). The basic game keeps none."""
    return {"weather": {"NZ": "D", "SZ": "D"}, **{f: False for f in WEATHER_FLAGS}}


def zone_weather(ctx: Ctx, zone: str) -> str:
    """13.2: the weather in force in a zone (NZ or SZ); always Dry when the weather rules are off
    (the basic game, A.4) and until the first roll (GT7)."""
    if not ctx.options.get("weather", False):  # a game started before the option existed has none
        return "D"
    return str(ctx.position.get("weather", {}).get(zone, "D"))


def weather_at(ctx: Ctx, hex_id: str) -> str:
    """The weather of the zone a hex is in (13.2); the off-map OKH areas, in the west, are in the NZ."""
    return zone_weather(ctx, "NZ" if hex_id in OKH_AREAS else ctx.sc.map.hexes[hex_id].zone)


def weather_ignores(ctx: Ctx, feat: str, hex_id: str) -> str:
    """13.6/13.7: why the weather makes a hexside feature vanish for movement and combat, or "".
    F and S remove rivers; S also the Sivash and the Kerch Strait. The zone is that of the hex
    entered or attacked (Ambiguity 35); the Sivash hexsides count as being in the SZ (13.7)."""
    w = zone_weather(ctx, "SZ" if feat == "sivash" else ctx.sc.map.hexes[hex_id].zone)
    if feat == "river" and w in ("F", "S"):
        return f"river ignored in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})"
    if feat in STRAITS and w == "S":
        return f"{STRAITS[feat]} ignored in snow (13.7)"
    return ""


def water_features(ctx: Ctx, a: str, b: str) -> frozenset[str]:
    """The river, Sivash and Kerch hexsides between a unit in ``a`` and the hex ``b`` it attacks or
    enters after combat, less those the weather removes (13.6, 13.7)."""
    return frozenset(f for f in ctx.sc.map.border_features(a, b) & {"river", "sivash", "kerch"}
                     if not weather_ignores(ctx, f, b))


def combat_terrain(ctx: Ctx, hex_id: str) -> str:
    """The natural terrain of a hex for combat: a city counts as clear (12.10); swamp counts as
    clear in F and S (13.6, 13.7)."""
    h = ctx.sc.map.hexes[hex_id]
    if h.settlement == "city" or (h.terrain == "swamp" and weather_at(ctx, hex_id) in ("F", "S")):
        return "clear"
    return h.terrain


def weather_phase(ctx: Ctx, turn: int) -> None:
    """Weather Determination phase (13.2; digest A.3 II.A), at the start of each player-turn
    sequence from GT7, before the German player turn: one 1d6 on the Weather Table (17.1) gives the
    NZ; the SZ reads the same roll -2, no second die (a modified roll below 1: option
    sz_roll_below_table, Ambiguity 35). 13.8: the first S in the NZ stays for the rest of the game;
    the SZ rolls until its own first S, which then stays too (spec note); with both zones in snow
    nothing is rolled. 13.9: the first M or S in either zone ends refits for good; 13.10: the first M
    or S in the NZ ends the Minsk-Moscow highway for good (kept as flags of the position)."""
    pos = ctx.position
    for k, v in initial_weather().items():
        pos.setdefault(k, v)
    table = ctx.sc.charts.weather
    label = f"13.2|GT{turn}/{ctx.pts}|weather"
    data: dict[str, Any] = {"turn": turn, "pts": ctx.pts, "label": label, "die": None, "nz_result": None,
                            "sz_roll": None, "sz_result": None, "below": "", "kept": [], "new": [],
                            "provisional": table.provisional}
    if pos["nz_snow"] and pos["sz_snow"]:
        pos["weather"] = {"NZ": "S", "SZ": "S"}
        ctx.emit("weather", "13.8", nz="S", sz="S", **{**data, "kept": ["NZ", "SZ"], "provisional": False})
        return
    if ctx.dice is None:
        raise RuntimeError("a die is needed, but this is a check without dice")
    face = ctx.dice.roll(label)
    nz_result = table.result(turn, face)
    sz_roll = face - 2
    below = ""
    if sz_roll < 1:
        below = str(ctx.options.get("sz_roll_below_table", "first-row"))
        sz_result = "D" if below == "dry" else table.result(turn, 1)
    else:
        sz_result = table.result(turn, sz_roll)
    kept = [z for z, f in (("NZ", "nz_snow"), ("SZ", "sz_snow")) if pos[f]]
    nz = "S" if pos["nz_snow"] else nz_result
    sz = "S" if pos["sz_snow"] else sz_result
    new: list[str] = []
    for flag, now in (("nz_snow", nz == "S"), ("sz_snow", sz == "S"),
                      ("refits_ended", nz in ("M", "S") or sz in ("M", "S")),
                      ("highway_gone", nz in ("M", "S"))):
        if now and not pos[flag]:
            pos[flag] = True
            new.append(flag)
    pos["weather"] = {"NZ": nz, "SZ": sz}
    data.update(die=face, nz_result=nz_result, sz_roll=sz_roll, sz_result=sz_result, below=below, kept=kept, new=new)
    ctx.emit("weather", "13.2", nz=nz, sz=sz, **data)
