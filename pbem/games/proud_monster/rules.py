"""Proud Monster rules: the basic game (digest A.4) — movement, stacking, prepared assaults, control,
VP — and the full-game ([ADV]) rules implemented so far, each behind its option.

Every function that implements a rule names it in its docstring; every problem and event carries
the rule number. The functions work on a ``Ctx``: the scenario, the options in force, a working
copy of the position, the events so far and the dice.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.dice import Dice
from pbem.mechanics.hexgrid import direction
from pbem.mechanics.hexgrid import distance as hex_distance
from pbem.mechanics.odds import Odds, Shift, apply_shifts, halve_round_up
from pbem.mechanics.paths import cheapest, costs_to
from pbem.mechanics.stacking import overstacked
from pbem.mechanics.steps import Loss, NeedsDecision, allocate
from pbem.mechanics.tables import Result

from .data import (
    ARMOR,
    OKH_AREAS,
    Scenario,
    UnitSpec,
    can_be_untried,
    counter_values,
    is_untried,
    pool_key,
    stacking_value,
    unit_factors,
)
from .sequence import other

# Where a unit that is not on a map hex is (digest D.7): not yet arrived (the Turn Record Track),
# eliminated (the dead pile), withdrawn for good (8.16), in the North or South OKH reserve area
# (8.2), in the Soviet Supreme Command Reserve (8.1) or in the Southern Ports Holding Box (11.3).
OFF_MAP_BOXES: dict[str, str] = {
    "track": "to arrive",
    "dead": "eliminated",
    "withdrawn": "withdrawn",
    "okh-north": "in the North OKH reserve area",
    "okh-south": "in the South OKH reserve area",
    "rvgk": "in the RVGK",
    "ports-box": "in the Southern Ports Holding Box",
    "removed": "out of play",
    "setup": "to be set up by its player (3.2-3.7)",
}
OFF_MAP = tuple(OFF_MAP_BOXES)


# Ambiguity 14 (option okh_entry = "any-zomo"): the ZOMO of each OKH area, by country: the North
# area's is the Greater-German ZOMO ("any North ZOMO hex", 8.3), the South's the Hungarian and Romanian.
OKH_ZOMO_COUNTRIES = {"north": ("germany",), "south": ("hungary", "romania")}


def okh_entry_hexes(ctx: Ctx, area: str) -> list[str]:
    """8.2: the ZOMO hexes next to an OKH area (the map's `okh` key), through which units enter (8.3).
    Ambiguity 14 (option okh_entry): "listed", the digest's reading, keeps to the ranges of 8.2 (the
    North area, for one, touches the ZOMO along 1908N-1025N except 1913N, 2013N and 2014N); with
    "any-zomo" (the wording of 8.3: "any North ZOMO hex") every ZOMO hex of the area's countries
    (OKH_ZOMO_COUNTRIES) is an entry hex as well."""
    key = area.removeprefix("okh-")
    anywhere = ctx.options.get("okh_entry", "listed") == "any-zomo"
    return sorted(h.id for h in ctx.sc.map.hexes.values()
                  if h.okh == key or (anywhere and h.zomo and h.country in OKH_ZOMO_COUNTRIES[key]))


def okh_unavailable(ctx: Ctx, unit: str) -> str:
    """Why a unit in an OKH area may not enter the map now, or "": a diversion to the other area
    takes one entire player-turn sequence (8.3, Ambiguity 15)."""
    until = ctx.position.get("diverting", {}).get(unit)
    if until is not None and (ctx.turn, ctx.pts) < tuple(until):
        return (f"{unit} is being diverted to the {OFF_MAP_BOXES[ctx.at(unit)][7:]} and may enter the map from GT{until[0]}"
                f" sequence {until[1]} (a diversion takes one entire player-turn sequence)")
    return ""


LOSS_POLICIES = ("fewest-steps-first", "most-steps-first", "ask")


@dataclass
class Ctx:
    """Everything a rule needs during one transition (a working copy; the input state is not changed)."""

    sc: Scenario
    options: dict[str, Any]
    position: dict[str, Any]
    turn: int
    pts: int
    side: str
    dice: Dice | None
    standing: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    result: dict[str, Any] | None = None
    move_oos: dict[str, bool] = field(default_factory=dict)  # 9.8: supply at the start of each unit's move
    # 9.8, 15.4 (supply.check_move): each unit's supply state at the start of its move, and whether
    # it then used the GAST when attacking (9.6)
    move_supply: dict[str, tuple[str, bool]] = field(default_factory=dict)
    supply_cache: dict[Any, frozenset[str]] = field(default_factory=dict)  # supply.supplied_hexes, by what blocks lines
    air: dict[str, Any] = field(default_factory=dict)  # 10.2: the air units' bookkeeping within a transition (air.py)

    # --- position helpers -------------------------------------------------------------------
    @property
    def units(self) -> dict[str, dict[str, Any]]:
        u: dict[str, dict[str, Any]] = self.position["units"]
        return u

    def spec(self, unit: str) -> UnitSpec:
        return self.sc.units[unit]

    def at(self, unit: str) -> str:
        return str(self.units[unit]["at"])

    def steps(self, unit: str) -> int:
        return int(self.units[unit]["steps"])

    def on_map(self, unit: str) -> bool:
        return self.at(unit) not in OFF_MAP

    def occupants(self, hex_id: str, side: str | None = None) -> list[str]:
        return sorted(
            u for u, s in self.units.items()
            if s["at"] == hex_id and (side is None or self.sc.units[u].side == side)
        )

    def stacks(self, side: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for u in sorted(self.units):
            if self.on_map(u) and self.spec(u).side == side:
                out.setdefault(self.at(u), []).append(u)
        return out

    def factors(self, unit: str) -> tuple[int, int, int]:
        """Attack, defense and movement (2.16); a tried unit's are the counter drawn for it (2.15).
        An untried unit's attack and defense are known to nobody: they are drawn first (reveal_untried)."""
        if self.untried(unit):
            raise RuntimeError(f"{unit} is untried: its counter is drawn when it first fights (2.15)")
        return unit_factors(self.spec(unit), self.units[unit])

    def mf(self, unit: str) -> int:
        """The movement factor, which even an untried unit shows (2.15)."""
        return self.spec(unit).factors(self.steps(unit))[2]

    def untried(self, unit: str) -> bool:
        """2.15 (option untried_units): a Soviet 1-step unit that has not yet fought."""
        return is_untried(self.spec(unit), self.units[unit], self.options)

    def emit(self, kind: str, rule: str, /, **data: Any) -> None:
        self.events.append(Event(kind, rule, data))

    @property
    def step(self) -> str:
        """The awaited step: ``GT3/1/german``; the Soviet's Mutual Reinforcement step ``GT3/MR/soviet``."""
        return f"GT{self.turn}/{self.pts or 'MR'}/{self.side}"


# --- control, VP and sudden death (3.9, 4.2-4.6) -----------------------------------------------

def objective_vp(sc: Scenario, control: dict[str, str], hex_id: str) -> int:
    """VP the German holds for one hex: 4.2; Moscow's 9 VP only with both hexes (4.3)."""
    h = sc.map.hexes[hex_id]
    if h.place == "Moscow" and h.settlement == "city":
        return 0
    return h.vp if control.get(hex_id) == "german" else 0


def control_vp(sc: Scenario, control: dict[str, str]) -> int:
    """German VP from controlled cities and large towns (4.2, 4.3)."""
    total = sum(objective_vp(sc, control, h) for h in control)
    moscow = sc.map.moscow()
    if moscow and all(control.get(h) == "german" for h in moscow):
        total += max(sc.map.hexes[h].vp for h in moscow)
    return total


def enter_hex(ctx: Ctx, side: str, hex_id: str, how: str) -> None:
    """3.9: control of a town or city passes the moment an enemy ground unit enters it.

    4.2-4.3: VP are gained or lost at once. 4.6: the first German capture of both Moscow hexes
    triggers the sudden-death roll (even: the German wins at once); the VP count at the next
    Victory Check (Ambiguity 7; option moscow_vp_victory = "at-capture": moscow_vp_check).
    14.25-14.26, 14.30 (option fortifications): a German entry cancels or destroys works (enter_works).
    """
    enter_works(ctx, side, hex_id, how)
    h = ctx.sc.map.hexes[hex_id]
    control: dict[str, str] = ctx.position["control"]
    if not h.settlement or control.get(hex_id) == side:
        return
    before = control_vp(ctx.sc, control)
    previous = control.get(hex_id, "none")
    control[hex_id] = side
    after = control_vp(ctx.sc, control)
    ctx.position["vp"] = int(ctx.position["vp"]) + (after - before)
    ctx.emit("control", "3.9", hex=hex_id, place=h.place, was=previous, now=side, how=how,
             vp_change=after - before, vp=ctx.position["vp"])
    moscow = ctx.sc.map.moscow()
    if not (side == "german" and hex_id in moscow and all(control.get(m) == "german" for m in moscow)):
        return
    if not ctx.position.get("moscow_rolled", False):
        ctx.position["moscow_rolled"] = True
        if ctx.dice is None:
            ctx.emit("sudden-death", "4.6", face=None, collapse=None)
            return
        face = ctx.dice.roll(f"4.6|{ctx.step}|Moscow sudden death")
        collapse = face % 2 == 0
        ctx.emit("sudden-death", "4.6", face=face, collapse=collapse)
        if collapse:
            ctx.result = {"winner": "german", "rule": "4.6", "reason": f"Moscow sudden death: rolled {face} (even), the Soviet system collapses"}
            return
    if ctx.options.get("moscow_vp_victory", "next-check") == "at-capture" and ctx.dice is not None:
        moscow_vp_check(ctx)


def moscow_vp_check(ctx: Ctx) -> None:
    """Ambiguity 7 (4.6 vs 4.1), option moscow_vp_victory = "at-capture": the 9 VP of Moscow "may
    be enough to give him victory at that point" (4.6) read as an immediate VP victory: each time the
    German gains control of both Moscow hexes (after an odd sudden-death roll, or on a later
    recapture, when there is no roll), his VP total is compared at once with the German Victory
    Table's threshold for the current GT (17.2); reaching it ends the game with a German win. The
    digest's reading, "next-check" (the default), has no such check: VP victory is decided only in
    the Victory Check phase at the end of the GT (4.1, 4.5), so the Soviet may still retake a hex
    before it. Checking orders without dice makes no check (the game goes on being checked)."""
    charts = ctx.sc.charts
    turn = ctx.turn
    threshold = charts.victory.get(turn)
    vp = int(ctx.position["vp"])
    won = threshold is not None and vp >= threshold
    if won:
        ctx.result = {"winner": "german", "rule": "4.6",
                      "reason": f"{vp} VP on capturing Moscow in GT{turn} reaches the {threshold} needed (17.2; Ambiguity 7)"}
    ctx.emit("victory-check", "4.6", turn=turn, intruders=[], vp=vp, threshold=threshold, at="moscow",
             provisional=charts.victory_provisional and turn not in charts.victory_known,
             outcome="german" if won else "continue")


# --- weather (13.x) ----------------------------------------------------------------------------

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
    return frozenset(f for f in ctx.sc.map.side_features(a, b) & {"river", "sivash", "kerch"}
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


# --- fortifications (14.24-14.30), hedgehogs (14.40), the ArKo (14.41) --------------------------

FORT_STATES = ("uncompleted", "intact", "destroyed", "cancelled")  # 14.24; "cancelled": 14.25
HEDGEHOG_TURNS = (12,)  # 14.40: the December game turns; the game has only GT12 (Ambiguity 3)
HEDGEHOG_SETTLEMENTS = ("town", "large_town", "city")  # 14.40
ARKO_TYPE = "siege-artillery"  # 14.41: the ArKo, 0-1-4 siege artillery
ARKO_HEXES = ("city", "large_town")  # 14.41: where it is formed, and the settlements its +1 applies to


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


def _spat_data(ctx: Ctx, line: str) -> dict[str, Any]:
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
        ctx.emit("fort-line", "14.25", line=line, state="intact", hexes=hexes, turn=turn, **_spat_data(ctx, line))


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
                     via="" if ln == line else line, **_spat_data(ctx, ln))
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


def in_hedgehog(ctx: Ctx, hex_id: str) -> bool:
    """14.40 (option hedgehogs): a German hedgehog is declared in the hex."""
    return bool(ctx.options.get("hedgehogs")) and hex_id in ctx.position.get("hedgehogs", [])


def german_nationals(ctx: Ctx, hex_id: str) -> list[str]:
    return [u for u in ctx.occupants(hex_id, "german") if ctx.spec(u).nat == "german"]


def declare_hedgehogs(ctx: Ctx, hexes: list[Any], problems: list[Problem]) -> None:
    """14.40: at the very start of each German movement phase of GT12 the German declares or cancels
    hedgehogs: `hedgehog` in his orders lists every hex that is to be a hedgehog from now on (a hex
    left out is cancelled; without the key the hedgehogs in force stay). Only a town, large town or
    city hex holding a German-nationality unit qualifies (Axis allies only stacked with one); supply
    and Soviet adjacency do not matter."""
    where = "declare.hedgehog"
    known = len(problems)
    if not ctx.options.get("hedgehogs"):
        problems.append(Problem(where, "hedgehogs are a full-game rule (option hedgehogs is off)", "14.40"))
        return
    if ctx.side != "german":
        problems.append(Problem(where, "only the German forms hedgehogs", "14.40"))
        return
    if ctx.turn not in HEDGEHOG_TURNS:
        problems.append(Problem(where, f"hedgehogs are declared only in December game turns (GT12), not GT{ctx.turn}", "14.40"))
        return
    chosen: list[str] = []
    for j, raw in enumerate(hexes):
        w = f"{where}[{j}]"
        h = ctx.sc.map.canonical(str(raw))
        if h is None:
            problems.append(Problem(w, f"'{raw}' is not a hex of the map", "14.40"))
            continue
        spec = ctx.sc.map.hexes[h]
        if h in chosen:
            problems.append(Problem(w, f"{h} is listed twice", "14.40"))
        elif spec.settlement not in HEDGEHOG_SETTLEMENTS:
            problems.append(Problem(w, f"{h} is not a town, large town or city hex", "14.40"))
        elif not german_nationals(ctx, h):
            allies = ctx.occupants(h, "german")
            problems.append(Problem(w, f"{h} holds no German-nationality unit" + (
                f" ({', '.join(allies)} cannot form a hedgehog on their own)" if allies else ""), "14.40"))
        else:
            chosen.append(h)
    if len(problems) > known:
        return
    before = list(ctx.position.get("hedgehogs", []))
    ctx.position["hedgehogs"] = sorted(chosen)
    ctx.emit("hedgehogs", "14.40", hexes=sorted(chosen), declared=sorted(set(chosen) - set(before)),
             cancelled=sorted(set(before) - set(chosen)), step=ctx.step)


def hedgehog_holds(ctx: Ctx, unit: str, start: str) -> bool:
    """Ambiguity 48: whether the hedgehog keeps ``unit`` from moving. 14.40 does not say whether units
    in a hedgehog may move. Option hedgehog_movement: "may-move" (the digest's reading) lets them
    move, and the hedgehog is lost when no German-nationality unit is left (check_hedgehogs);
    "stay" keeps a German-side unit that began the movement phase in a hedgehog hex (declared or
    kept at the very start of the phase) where it is for that phase. Units may still enter a
    hedgehog; the German who wants to move its units out cancels it at the start of the phase."""
    return (ctx.options.get("hedgehog_movement", "may-move") == "stay" and ctx.spec(unit).side == "german"
            and bool(start) and in_hedgehog(ctx, start))


def check_hedgehogs(ctx: Ctx, how: str) -> None:
    """Ambiguity 48: a hedgehog is lost as soon as no German-nationality unit remains in its hex."""
    if not ctx.options.get("hedgehogs") or not ctx.position.get("hedgehogs"):
        return
    lost = [h for h in ctx.position["hedgehogs"] if not german_nationals(ctx, h)]
    if lost:
        ctx.position["hedgehogs"] = [h for h in ctx.position["hedgehogs"] if h not in lost]
        ctx.emit("hedgehog-lost", "14.40", hexes=lost, how=how)


def is_arko(ctx: Ctx, unit: str) -> bool:
    spec = ctx.spec(unit)
    return spec.side == "german" and spec.type == ARKO_TYPE


def arko_fixed(ctx: Ctx, unit: str) -> bool:
    """14.41: the ArKo may not move in the first player-turn sequence after it appears (formed in
    the MR phase of GT n: sequence 1 of GT n)."""
    return bool(ctx.options.get("arko")) and ctx.position.get("arko", {}).get(unit) == ctx.turn and ctx.pts == 1


def mr_declaration_open(ctx: Ctx, where: str, option: str, what: str, rule: str, problems: list[Problem]) -> bool:
    """Whether the German may make one of his Mutual Reinforcement decisions now (the ArKo 14.41, the
    security divisions 8.21): the rule's option is on, and these are his orders of the GT's first
    player turn, where the MR phase's decisions are carried out first (Ambiguity 49). Else a problem."""
    if not ctx.options.get(option):
        problems.append(Problem(where, f"the rule is switched off in this game (option {option})", rule))
        return False
    if ctx.side != "german" or ctx.pts != 1:
        problems.append(Problem(where, f"{what} in the MR phase at the start of a GT: in the German's orders of the GT's "
                                       "first player-turn sequence", rule))
        return False
    return True


def form_arko(ctx: Ctx, raw: Any, problems: list[Problem]) -> None:
    """14.41 (option arko): the German may form the ArKo at the start of any GT, i.e. in the MR phase
    (Ambiguity 49). pbem has no German order in the automatic MR phase, so `form_arko = "HEX"` is
    given in the German's orders of the GT's first player turn and carried out first, before any
    movement, on the position the MR phase left. The hex: a German-controlled city or large town not
    adjacent to a Soviet unit and, with the option supply, in supply (attenuated acceptable): a German
    supply line reaches it (9.4). The ArKo is a unit of the scenario of type siege-artillery held
    off the map (`track`) and not in the reinforcement schedule; once formed it stays until eliminated."""
    where = "declare.form_arko"
    known = len(problems)
    if not mr_declaration_open(ctx, where, "arko", "the ArKo is formed", "14.41", problems):
        return
    scheduled = {u for _, u, _ in ctx.sc.reinforcements}
    held = [u for u in sorted(ctx.units) if is_arko(ctx, u) and ctx.at(u) == "track" and u not in scheduled]
    if not held:
        problems.append(Problem(where, "no ArKo is waiting to be formed (it is formed once and stays until eliminated)", "14.41"))
        return
    h = ctx.sc.map.canonical(str(raw))
    if h is None:
        problems.append(Problem(where, f"'{raw}' is not a hex of the map", "14.41"))
        return
    spec = ctx.sc.map.hexes[h]
    near = sorted({u for n in (h, *ctx.sc.map.neighbours(h)) for u in ctx.occupants(n, "soviet")})
    if spec.settlement not in ARKO_HEXES:
        problems.append(Problem(where, f"{h} is not a city or large town", "14.41"))
    elif ctx.position["control"].get(h) != "german":
        problems.append(Problem(where, f"{h} {spec.place} is not German-controlled", "14.41"))
    elif near:
        problems.append(Problem(where, f"{h} {spec.place} is next to Soviet units ({', '.join(near)})", "14.41"))
    elif ctx.options.get("supply"):
        from .supply import supplied_hexes

        if h not in supplied_hexes(ctx, "german"):
            problems.append(Problem(where, f"{h} {spec.place} is out of supply: no German supply line reaches it (9.4)",
                                    "14.41"))
    if len(problems) > known:
        return
    u = held[0]
    ctx.units[u]["at"] = h
    ctx.position.setdefault("arko", {})[u] = ctx.turn
    ctx.emit("arko-formed", "14.41", unit=u, hex=h, place=spec.place, turn=ctx.turn)


def arko_bonus(ctx: Ctx, attackers: list[str], target: str) -> list[str]:
    """14.41 (option arko): the ArKo units stacked with other units of a PA against a city, large
    town or intact fort or heavy fort hex; they raise the defender's result by 1 (once)."""
    if not ctx.options.get("arko"):
        return []
    if ctx.sc.map.hexes[target].settlement not in ARKO_HEXES and not intact_fort(ctx, target):
        return []
    return [u for u in attackers if is_arko(ctx, u)
            and any(o != u and not is_arko(ctx, o) and ctx.at(o) == ctx.at(u) for o in attackers)]


def arko_supporting(ctx: Ctx, attackers: list[str]) -> list[str]:
    """Ambiguity 49: whether the ArKo takes part in the PA it is ordered into. Option
    arko_participates: true (the digest's reading) makes it a participating attacker with attack
    factor 0: it may absorb attacker step losses and advance after combat; false makes it only
    support the attack (its +1, arko_bonus): it adds no factor, takes no loss, does not advance and
    its supply state does not count (no GAST for it). Returns the ArKo units that only support."""
    if ctx.options.get("arko_participates", True) or not ctx.options.get("arko"):
        return []
    return [u for u in attackers if is_arko(ctx, u)]


def works_shifts(ctx: Ctx, target: str) -> list[Shift]:
    """14.27/14.28: Soviet units defending an intact fort get 1L, an intact heavy fort 2L; 14.40:
    a German hedgehog gives the defender 2L. Both add to every other modifier of the hex."""
    shifts: list[Shift] = []
    kind = intact_fort(ctx, target)
    if ctx.side == "german" and kind == "fort":
        shifts.append(Shift(-1, "14.27", "Soviet defender in an intact fort"))
    elif ctx.side == "german" and kind == "heavy":
        shifts.append(Shift(-2, "14.28", "Soviet defender in an intact heavy fort"))
    if ctx.side == "soviet" and in_hedgehog(ctx, target):
        shifts.append(Shift(-2, "14.40", "German hedgehog (no concentric assault against it, 14.14)"))
    return shifts


def combat_notes(ctx: Ctx, attackers: list[str], target: str) -> dict[str, Any]:
    """What a combat's report says about the defender's hex (a PA's or an MA's, 15.14): the state
    of its fort or Stalin Line (14.24-14.30, option fortifications) and the weather of its zone,
    with the hexside features the weather removes (13.6, 13.7, Ambiguity 35; option weather)."""
    h = ctx.sc.map.hexes[target]
    out: dict[str, Any] = {}
    if fort_state(ctx, target):
        out["fort"] = {"kind": h.fort, "state": fort_state(ctx, target), "line": h.line,
                       **(_spat_data(ctx, h.line) if h.line else {})}
    if ctx.options.get("fortifications") and h.stalin:
        out["stalin"] = ctx.position.get("stalin", {}).get(target, "")
    if ctx.options.get("weather", False):  # the weather of the defender's zone (Ambiguity 35)
        out["weather"] = {"zone": h.zone, "weather": weather_at(ctx, target),
                          "ignored": sorted({n for u in attackers for f in ctx.sc.map.side_features(ctx.at(u), target)
                                             if (n := weather_ignores(ctx, f, target))})}
    return out


def defense_rows(ctx: Ctx, defenders: list[str], target: str, oos: Collection[str] = frozenset()) -> list[dict[str, Any]]:
    """Defense factors (14.8); 14.30: each Soviet unit defending an intact Stalin Line hex adds 1.
    9.7 (option supply): the ``oos`` units are marked, halved together by defense_total."""
    stalin = intact_stalin(ctx, target)
    rows: list[dict[str, Any]] = []
    for u in defenders:
        d = ctx.factors(u)[1]
        if stalin and ctx.spec(u).side == "soviet":
            rows.append({"unit": u, "factor": d + 1, "printed": d, "notes": ["Stalin Line +1 (14.30)"]})
        else:
            rows.append({"unit": u, "factor": d})
        if u in oos:
            rows[-1]["oos"] = True
            rows[-1].setdefault("notes", []).append("out of supply: halved (9.7)")
    return rows


def defense_total(rows: list[dict[str, Any]]) -> int:
    """The defense total (14.8): the factors of units out of supply are added up and halved once,
    rounded up, minimum 1 (9.7, 14.12)."""
    plain = sum(int(r["factor"]) for r in rows if not r.get("oos"))
    halved = sum(int(r["factor"]) for r in rows if r.get("oos"))
    # 14.12: a reduced stack never goes below 1 (rounding up already ensures it; kept explicit).
    return plain + (max(halve_round_up(halved), 1) if any(r.get("oos") for r in rows) else 0)


# --- movement (12.x) ---------------------------------------------------------------------------

def move_weather_hex(ctx: Ctx, a: str | None, b: str) -> str:
    """Ambiguity 35 (13.2, first bullet): the hex whose zone gives the weather of a step from ``a``
    into ``b`` (movement, the entry of a mobile assault, a retreat). The digest's reading (option
    boundary_weather = "entered", the default) takes the hex entered; "left" takes the hex left. The
    two differ only on a step across the NZ/SZ boundary. Combat always uses the defender's hex."""
    if a is not None and a != b and ctx.options.get("boundary_weather", "entered") == "left":
        return a
    return b


def _boundary_note(ctx: Ctx, a: str | None, b: str, notes: list[str]) -> None:
    """The note of a step whose weather came from the hex left, in a zone with other weather than
    the hex entered's (Ambiguity 35)."""
    if a is None or move_weather_hex(ctx, a, b) != a:
        return
    za = "NZ" if a in OKH_AREAS else ctx.sc.map.hexes[a].zone
    wa = weather_at(ctx, a)
    note = (f"{WEATHER_NAMES[wa]} in the {za}, the zone of the hex left, not {WEATHER_NAMES[weather_at(ctx, b)]} "
            "(13.2, Ambiguity 35, option boundary_weather)")
    if za != ctx.sc.map.hexes[b].zone and wa != weather_at(ctx, b) and note not in notes:
        notes.append(note)


def hexside_cost(ctx: Ctx, unit: UnitSpec, a: str, b: str) -> tuple[int | str, str, list[str]]:
    """Cost of crossing the hexside a-b: 12.15 rivers (+1/+2), 12.16 Sivash/Kerch ("all"),
    all-sea/all-lake hexsides prohibited ("no"); 5.5: German-side units ignore rivers on GT1.
    Weather of the zone of the hex entered (Ambiguity 35; option boundary_weather = "left": of the
    hex left, move_weather_hex): F ignores rivers (13.6); S ignores rivers, the Sivash and the Kerch,
    and lets units cross all-lake hexsides (13.7)."""
    total: int | str = 0
    rule = ""
    notes: list[str] = []
    wx = move_weather_hex(ctx, a, b)
    for feat in sorted(ctx.sc.map.side_features(a, b)):
        if feat == "river" and ctx.turn == 1 and unit.side == "german":
            notes.append("river ignored on GT1 (5.5)")
            continue
        ignored = weather_ignores(ctx, feat, wx)
        if not ignored and feat == "lake" and weather_at(ctx, wx) == "S":
            ignored = "all-lake hexside crossed in snow (13.7)"
        if ignored:
            notes.append(ignored)
            continue
        row = ctx.sc.charts.hexsides.get(feat)
        if row is None:
            continue
        c = row[unit.move_class()]
        if c == "no" or total == "no":
            return "no", str(row.get("rule", "")), notes
        if c == "all" or total == "all":
            total, rule = "all", str(row.get("rule", ""))
            continue
        total = int(total) + int(c)
        if int(c):
            notes.append(f"{feat} +{c} ({row.get('rule', '')})")
            rule = str(row.get("rule", ""))
    if ctx.sc.map.side_features(a, b):
        _boundary_note(ctx, a, b, notes)
    return total, rule, notes


def along_highway(ctx: Ctx, a: str | None, b: str) -> bool:
    """12.20 (option highway): a step from a road hex to an adjacent road hex follows the Minsk-Moscow
    highway (Ambiguity 34), while the highway exists: the first M or S in the NZ ends it (13.10)."""
    if a is None or not ctx.options.get("highway", False) or ctx.position.get("highway_gone", False):
        return False
    hexes = ctx.sc.map.hexes
    return a in hexes and hexes[a].road and hexes[b].road


def hex_cost(ctx: Ctx, unit: UnitSpec, b: str, a: str | None = None) -> tuple[int | str, str, list[str]]:
    """Cost of entering hex b (from a, if given) by its natural terrain (12.10-12.14; a city counts
    as clear, 12.10). 12.20: a mechanized unit entering a forest hex along the highway from a pays 1.
    Weather of b's zone (Ambiguity 35; option boundary_weather = "left": of a's, move_weather_hex):
    F and S make swamp Dry clear (13.6, 13.7); M and S double the Dry in-hex cost (13.5, 13.7;
    Ambiguity 37); in S an all-lake hex may be crossed (13.7), at the cost of clear (the rules give none)."""
    h = ctx.sc.map.hexes[b]
    w = weather_at(ctx, move_weather_hex(ctx, a, b))
    terrain = "clear" if h.settlement == "city" else h.terrain
    notes: list[str] = []
    if terrain == "swamp" and w in ("F", "S"):
        terrain = "clear"
        notes.append(f"swamp counts as clear in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
    elif terrain == "lake" and w == "S":
        terrain = "clear"
        notes.append("all-lake hex crossed in snow, at the cost of clear (13.7)")
    row = ctx.sc.charts.terrain[terrain]
    c = row[unit.move_class()]
    if c == "no":
        return "no", str(row.get("rule", "")), notes
    cost = int(c)
    if terrain == "forest" and unit.mechanized and cost > 1 and along_highway(ctx, a, b):
        cost = 1
        notes.append("forest along the Minsk-Moscow highway: 1 MP for a mechanized unit (12.20)")
    if w in ("M", "S"):
        cost *= 2
        notes.append(f"in-hex costs doubled in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
    _boundary_note(ctx, a, b, notes)
    return cost, str(row.get("rule", "")), notes


AIR_SUPPLY_MF = 6  # 9.18: the MF of an air-supplied mechanized unit


def supply_mf(ctx: Ctx, unit: str) -> tuple[int, str]:
    """The movement factor after supply (option supply), by the unit's state at the start of its
    move (9.8): halved, rounded up, out of supply (9.7); at most 6 for an air-supplied mechanized
    unit (9.18). Also why, or ""."""
    mf = ctx.mf(unit)
    if ctx.move_oos.get(unit):
        return halve_round_up(mf), f"movement factor {mf} halved out of supply, 9.7"
    if ctx.move_supply.get(unit, ("", False))[0] == "air" and ctx.spec(unit).mechanized and mf > AIR_SUPPLY_MF:
        return AIR_SUPPLY_MF, f"movement factor {mf}: {AIR_SUPPLY_MF} for an air-supplied mechanized unit, 9.18"
    return mf, ""


def movement_allowance(ctx: Ctx, unit: str, start: str, entered: str | None = None) -> tuple[int, list[str]]:
    """The MP a unit may spend in this movement phase: its movement factor (12.1), 1 less for a
    German-side unit in R (13.4; Soviet units are unaffected), by the weather of the zone of the hex
    where it began the phase (Ambiguity 59). 9.7-9.8 (option supply): a unit out of supply at the
    start of its move has its MF halved, rounded up, for the phase (before the rain's -1); an
    air-supplied mechanized unit has MF 6 (9.18; supply_mf).

    Option rain_zone = "entered" (the other reading of Ambiguity 59): the rain goes by the zone of
    the hex being ``entered``: a hex in a zone with R is entered only within the allowance less 1,
    a hex of a zone without R within the whole allowance (MP already spent count either way)."""
    if entered is not None and ctx.options.get("rain_zone", "start") == "entered":
        return _allowance(ctx, unit, entered, f"rain in the {ctx.sc.map.hexes[entered].zone}, the zone of the hex entered: "
                                              "German-side movement allowance {mf} - 1 (13.4, Ambiguity 59)")
    return _allowance(ctx, unit, start, "rain: German-side movement allowance {mf} - 1 (13.4)")


def _allowance(ctx: Ctx, unit: str, rain_hex: str, rain_note: str) -> tuple[int, list[str]]:
    """movement_allowance, with the rain of the zone of ``rain_hex``."""
    mf = ctx.mf(unit)
    notes: list[str] = []
    if ctx.move_oos.get(unit):
        notes.append(f"out of supply at the start of its move: movement factor {mf} halved to {halve_round_up(mf)} (9.7, 9.8)")
        mf = halve_round_up(mf)
    elif supply_mf(ctx, unit)[0] < mf:
        notes.append(f"air-supplied at the start of its move: mechanized movement factor {mf} limited to "
                     f"{AIR_SUPPLY_MF} (9.18)")
        mf = AIR_SUPPLY_MF
    if ctx.spec(unit).side == "german" and weather_at(ctx, rain_hex) == "R":
        return max(mf - 1, 0), [*notes, rain_note.format(mf=mf)]
    return mf, notes


@dataclass
class MoveTracker:
    """Per-phase movement bookkeeping: MP spent (12.2), start hexes (12.5), parent stacks (12.6)."""

    start: dict[str, str]
    spent: dict[str, int] = field(default_factory=dict)
    moved: set[str] = field(default_factory=set)
    open_group: str | None = None
    closed: set[str] = field(default_factory=set)
    last_order: dict[str, int] = field(default_factory=dict)  # the [[move]] that last moved each unit
    ended: dict[str, int] = field(default_factory=dict)  # 15.6: the [[move]] whose failed MA ended each unit's move
    assaults: int = 0  # mobile assaults resolved so far in the phase (15.2)


# 8.20, 9.18: the units that may not move or attack in this German player turn, kept in the
# position's `stationary` by the RWR phase (rwr.py) until the end of the player turn: a refitting
# division (8.20), an infantry division replaced while air-supplied (9.18).
STATIONARY_WHY = {"8.20": "is refitting this player turn", "9.18": "was replaced while air-supplied this player turn"}


def stationary(ctx: Ctx, unit: str) -> str:
    """The rule that keeps ``unit`` from moving and attacking this player turn (8.20, 9.18), or ""."""
    return str(ctx.position.get("stationary", {}).get(unit, ""))


def do_move(ctx: Ctx, index: int, order: dict[str, Any], tr: MoveTracker, problems: list[Problem]) -> None:
    """One [[move]]: a unit or stack moves hex by hex along its path (12.1-12.7, 12.14-12.16, 12.22)."""
    where = f"move[{index}]"
    side = ctx.side
    units: list[str] = list(order.get("units", []))
    path_in: list[str] = list(order.get("path", []))
    bad = False
    for u in units:
        if u not in ctx.units:
            problems.append(Problem(where, f"unknown unit '{u}'", "12.1", "Use the unit ids `pbem show` lists."))
            bad = True
        elif ctx.spec(u).side != side:
            problems.append(Problem(where, f"{u} is a {ctx.spec(u).side} unit; {side} moves only its own units", "12.1"))
            bad = True
        elif ctx.at(u) in OKH_AREAS:
            why = okh_unavailable(ctx, u)
            if why:
                problems.append(Problem(where, why, "8.3"))
                bad = True
        elif not ctx.on_map(u):
            problems.append(Problem(where, f"{u} is not on the map ({OFF_MAP_BOXES[ctx.at(u)]})", "12.22"))
            bad = True
        elif arko_fixed(ctx, u):
            problems.append(Problem(where, f"{u} was formed this GT and may not move in the first player-turn sequence "
                                           "after it appears", "14.41"))
            bad = True
        elif u in tr.ended:
            problems.append(Problem(where, f"{u}'s move ended when its mobile assault in move[{tr.ended[u]}] failed", "15.6"))
            bad = True
        elif hedgehog_holds(ctx, u, tr.start.get(u, "")):  # 14.40, Ambiguity 48
            problems.append(Problem(where, f"{u} began the movement phase in the hedgehog {tr.start[u]}: units in a hedgehog "
                                           "may not move (option hedgehog_movement = \"stay\")", "14.40",
                                    "Cancel the hedgehog at the start of the phase (leave its hex out of `hedgehog`) "
                                    "to move its units."))
            bad = True
        elif stationary(ctx, u):  # 8.20, 9.18: the RWR phase kept it in place
            rule = stationary(ctx, u)
            problems.append(Problem(where, f"{u} {STATIONARY_WHY[rule]}: it may not move"
                                    + (" or make a mobile assault" if "assault" in order else ""), rule))
            bad = True
    if "assault" in order and not ctx.options.get("mobile_assault", False):
        problems.append(Problem(f"{where}.assault", "mobile assaults are a full-game rule (option mobile_assault is off)", "15.2",
                                "Attack the hex in the prepared-assault phase instead."))
        bad = True
    if len(set(units)) != len(units):
        problems.append(Problem(where, "a unit is listed twice", "12.5"))
        bad = True
    if bad or not units:
        if not units:
            problems.append(Problem(where, "no units", "12.1"))
        return
    here = {ctx.at(u) for u in units}
    if len(here) > 1:
        problems.append(Problem(where, f"the units are in different hexes ({', '.join(sorted(here))}); a stack moves from one hex", "12.5"))
        return
    starts = {tr.start[u] for u in units}
    if len(starts) > 1:
        problems.append(Problem(where, "units that did not begin the phase stacked together cannot move as one stack"
                                + (" or make an MA together" if "assault" in order else ""), "15.8" if "assault" in order else "12.5"))
        return
    group = starts.pop()
    if group in tr.closed:
        problems.append(Problem(where, f"the stack that began in {group} cannot resume its move after another stack moved", "12.6"))
        return
    if tr.open_group is not None and tr.open_group != group:
        tr.closed.add(tr.open_group)
    tr.open_group = group
    current = here.pop()
    origin = current
    if ctx.options.get("supply"):
        from .supply import check_move  # 9.8: supply at the start of the move

        check_move(ctx, index, units, tr.moved)
    start_spent = {u: tr.spent.get(u, 0) for u in units}
    path: list[str] = []
    for j, raw in enumerate(path_in):
        c = ctx.sc.map.canonical(raw)
        if c is None:
            if raw in OKH_AREAS:  # 8.3, 8.6, 12.22: the off-map areas are never entered from the map
                why, rule = (("Soviet units never move into the OKH reserve areas", "8.6") if side == "soviet" else
                             ("a unit in play on the map never moves back into an OKH reserve area", "8.3"))
                problems.append(Problem(f"{where}.path[{j}]", why, rule))
                return
            problems.append(Problem(f"{where}.path[{j}]", f"'{raw}' is not a hex of the map", "12.22"))
            return
        path.append(c)
    if not path:
        problems.append(Problem(where, "the path is empty: list every hex entered, in order", "12.1"))
        return
    assault = ctx.sc.map.canonical(str(order["assault"])) if "assault" in order else None
    if "assault" in order and assault != path[-1]:
        problems.append(Problem(f"{where}.assault", f"the assaulted hex '{order['assault']}' must be the last hex of the path", "15.2"))
        return
    walk = path[:-1] if assault else path  # 15.2: the last hex is entered by the mobile assault
    enemy = other(side)
    mark = len(ctx.events)
    costs: dict[str, list[int]] = {u: [] for u in units}
    minimum = False
    notes: list[str] = []
    if origin in OKH_AREAS and assault and not walk:
        problems.append(Problem(f"{where}.assault", f"a mobile assault is launched from a hex of the map, not from the "
                                                    f"{OFF_MAP_BOXES[origin][3:]}", "15.7"))
        return
    for j, nxt in enumerate(walk):
        w = f"{where}.path[{j}] {current}->{nxt}"
        if current in OKH_AREAS:  # 8.3: from an OKH area through a ZOMO hex next to it (8.2, Ambiguity 14)
            area = current.removeprefix("okh-")
            entries = okh_entry_hexes(ctx, current)
            if nxt not in entries:
                which = ("a ZOMO hex of its countries (option okh_entry = \"any-zomo\", Ambiguity 14)"
                         if ctx.options.get("okh_entry", "listed") == "any-zomo" else "a ZOMO hex next to it")
                problems.append(Problem(w, f"units enter from the {area.capitalize()} OKH area only through {which} "
                                           f"({', '.join(entries) or 'none on this map'})", "8.2",
                                        "Start the path with one of those hexes."))
                return
        elif nxt == current:  # 12.1: the path lists the hexes entered; the start hex is not one of them
            where_from = "the units start in" if j == 0 else "the path entered just before"
            problems.append(Problem(w, f"{nxt} is the hex {where_from}: a path lists only the hexes entered, in order",
                                    "12.1", f"Leave {nxt} out of path here."))
            return
        elif nxt not in ctx.sc.map.neighbours(current):
            problems.append(Problem(w, f"{nxt} is not adjacent to {current}", "12.1", "Units move hex to adjacent hex."))
            return
        if ctx.occupants(nxt, enemy):
            problems.append(Problem(w, f"{nxt} holds enemy units", "12.4", "Attack it in the prepared-assault phase instead."))
            return
        barred = [rt for u in units for rt in entry_problems(ctx, u, nxt)]  # 5.3, 7.2-7.4, 8.5
        if barred:
            problems.extend(Problem(w, text, rule) for rule, text in barred)
            return
        for u in units:
            spec = ctx.spec(u)
            mf, mnotes = movement_allowance(ctx, u, tr.start[u], nxt)
            hc, hrule, hnotes = hex_cost(ctx, spec, nxt, current)
            sc_, srule, snotes = hexside_cost(ctx, spec, current, nxt) if current not in OKH_AREAS else (0, "", [])
            if hc == "no":
                problems.append(Problem(w, f"{nxt} is an all-{ctx.sc.map.hexes[nxt].terrain} hex; ground units may not enter it", hrule))
                return
            if sc_ == "no":
                problems.append(Problem(w, "the hexside is all-sea or all-lake and may not be crossed", srule))
                return
            notes.extend(n for n in mnotes + hnotes + snotes if n not in notes)
            spent = tr.spent.get(u, 0)
            if sc_ == "all":
                # 12.16: must begin the phase in the adjacent hex; crossing uses all MP.
                if spent or current != tr.start[u]:
                    problems.append(Problem(w, f"{u} may cross the Sivash/Kerch only when it begins its movement phase next to the hexside", "12.16"))
                    return
                cost = mf
            else:
                cost = int(hc) + int(sc_)
            if spent + cost > mf:
                if spent == 0 and j == 0 and len(path) == 1 and u not in tr.moved:
                    cost = mf  # 12.3: one hex by spending all MP at the start of the move
                    minimum = True
                else:
                    full, why = supply_mf(ctx, u)  # 9.7, 9.18
                    rain = mf < full and spent + cost <= full  # short only because of 13.4
                    problems.append(Problem(w, f"{u} needs {cost} MP to enter {nxt} but has {mf - spent} of {mf} left"
                                               + (f" (movement factor {full} - 1 in rain)" if rain else "")
                                               + (f" ({why})" if why else ""),
                                            "13.4" if rain else "12.1",
                                            route_hint(ctx, u, origin, walk[-1], mf - start_spent.get(u, 0))))
                    return
            tr.spent[u] = spent + cost
            costs[u].append(cost)
        for u in units:
            ctx.units[u]["at"] = nxt
            tr.moved.add(u)
            tr.last_order[u] = index
        enter_works(ctx, side, nxt, "movement")  # 14.25, 14.26: every hex entered, passed through or not
        if ctx.options["control_on_pass_through"] or j == len(walk) - 1:
            enter_hex(ctx, side, nxt, "movement")
        if ctx.result:
            break
        current = nxt
    if walk:
        ctx.events.insert(mark, Event("move", "12.1", {
            "index": index, "units": units, "from": origin, "path": walk, "costs": costs,
            "mp": {u: [tr.spent[u], movement_allowance(ctx, u, tr.start[u], walk[-1])[0]] for u in units}, "minimum": minimum,
            "notes": notes}))
    from . import air  # 10.2: an air unit goes with its stack, or stays (the air module builds on this one)

    air.carry(ctx, index, order, units, origin, walk, assault, problems)
    if assault and not ctx.result:
        from .assault import mobile_assault  # 15.0 (the assault module builds on this one)

        mobile_assault(ctx, index, order, units, current, assault, tr, problems)
        air.land(ctx, index, units, origin)  # 15.5
    check_hedgehogs(ctx, "movement")  # Ambiguity 48


def route_hint(ctx: Ctx, unit: str, origin: str, goal: str, mp: int) -> str:
    """For a move that runs out of MP: the cheapest legal path to the same hex, if one fits (17.9)."""
    spec = ctx.spec(unit)
    enemy = other(spec.side)

    def step(a: str, b: str) -> int | None:
        if ctx.occupants(b, enemy):
            return None
        hc, _, _ = hex_cost(ctx, spec, b, a)
        sc_, _, _ = hexside_cost(ctx, spec, a, b)
        if hc == "no" or sc_ in ("no", "all"):
            return None
        return int(hc) + int(sc_)

    found = cheapest(origin, goal, ctx.sc.map.neighbours, step, limit=mp)
    if found is None:
        return f"No path from {origin} to {goal} fits in the {mp} MP {unit} has for this move (17.9)."
    cost, route = found
    return f"The cheapest path from {origin} to {goal} costs {unit} {cost} of {mp} MP: {', '.join(route)} (17.9)."


def stacking_limit(ctx: Ctx, hex_id: str) -> int:
    """6.1: 5 units per hex; 6.5 (option stacking_details): 10 in a city hex, for both sides and only
    for units in the city."""
    if ctx.options.get("stacking_details", False) and ctx.sc.map.hexes[hex_id].settlement == "city":
        return CITY_STACKING_LIMIT
    return ctx.sc.charts.stacking_limit


CITY_STACKING_LIMIT = 10  # 6.5
SMALL_UNITS_CAP = 4  # 6.3: battalions and regiments in one hex when stacking is enforced
GERMAN_LIKE = frozenset({"german", "croatian", "french", "spanish"})  # 7.5: they count as German
AXIS_ALLIES = {"italian": "7.2", "romanian": "7.3", "hungarian": "7.4"}  # 7.1: never together
HUNGARY_ROMANIA = frozenset({"hungary", "romania"})  # 5.3, 8.5
BARRED_COUNTRY = {"romanian": "hungary", "hungarian": "romania"}  # 8.5
COUNTRY_NAMES = {"hungary": "Hungary", "romania": "Romania"}
COUNTRY_ADJECTIVES = {"hungary": "Hungarian", "romania": "Romanian"}


def unit_stacking(ctx: Ctx, unit: str) -> Fraction:
    """A unit's stacking value: 1 (6.1), or the 6.3/6.4 value with the option stacking_details.

    Ambiguity 12 (7.3 with 6.3): Romanians stack "up to 5 units as defined in 6.3". The digest's
    reading (option romanian_stacking = "fractional", the default) gives a Romanian brigade 1/2 and a
    regiment or battalion 1/4 like every German-side unit; "per-counter" counts every Romanian
    counter as 1 unit, as 6.4 does for the Soviets (the 4-battalion cap of 6.3 still applies)."""
    spec = ctx.spec(unit)
    if spec.nat == "romanian" and ctx.options.get("romanian_stacking", "fractional") == "per-counter":
        return Fraction(1)
    return stacking_value(spec, bool(ctx.options.get("stacking_details", False)))


def _count(v: Fraction) -> str:
    whole, part = divmod(v, 1)
    return str(int(whole)) if not part else (f"{int(whole)} {part}" if whole else str(part))


def on_north_map(hex_id: str) -> bool:
    """7.2-7.4: a hex of the North map; a canonical id of the 2.4 join row (26N = 00S) ends in N,
    so that row counts as North."""
    return hex_id.endswith("N")


def stack_problems(ctx: Ctx, hex_id: str, units: list[str]) -> list[tuple[str, str]]:
    """What is wrong with ``units`` (one side's) stacked in ``hex_id``, as (rule, text): the limit
    (6.1; 6.3/6.4 values and the 6.5 city limit with the option stacking_details), at most 4
    German-side battalions/regiments (6.3), and with the option axis_allies no two of Romanian,
    Hungarian and Italian units together (7.1) and at most one German unit (7.5: French, Croatian and
    Spanish ones included) with Italian (7.2) or Romanian (7.3) units."""
    out: list[tuple[str, str]] = []
    for o in overstacked([(hex_id, units)], lambda u: unit_stacking(ctx, u), lambda h: stacking_limit(ctx, h)):
        rule = "6.5" if o.limit == CITY_STACKING_LIMIT and o.limit != ctx.sc.charts.stacking_limit else "6.1"
        out.append((rule, f"{_count(o.value)} units; the limit is {o.limit}"))
    specs = {u: ctx.spec(u) for u in units}
    if ctx.options.get("stacking_details", False):
        small = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.size in ("III", "II"))
        if len(small) > SMALL_UNITS_CAP:
            out.append(("6.3", f"{len(small)} battalions/regiments ({', '.join(small)}); at most {SMALL_UNITS_CAP}"))
    if ctx.options.get("axis_allies", False):
        allies = sorted({sp.nat for sp in specs.values() if sp.side == "german" and sp.nat in AXIS_ALLIES})
        if len(allies) > 1:
            out.append(("7.1", f"{' and '.join(a.capitalize() for a in allies)} units together; Romanian, Hungarian and Italian units "
                               "may not stack with one another"))
        germans = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.nat in GERMAN_LIKE)
        for nat in ("italian", "romanian"):
            if nat in allies and len(germans) > 1:
                out.append((AXIS_ALLIES[nat], f"{len(germans)} German units ({', '.join(germans)}) with {nat.capitalize()} units; "
                                              "only one may stack with them"))
    return out


def entry_problems(ctx: Ctx, unit: str, hex_id: str) -> list[tuple[str, str]]:
    """Hexes a unit may not enter, as (rule, text): with the option axis_allies Italian, Romanian
    and Hungarian units not onto the North map (7.2-7.4), Romanian units not into Hungary and
    Hungarian units not into Romania (8.5); with the option gt1_restrictions no Soviet unit into
    Hungary or Romania on GT1 (5.3)."""
    spec = ctx.spec(unit)
    country = ctx.sc.map.hexes[hex_id].country
    out: list[tuple[str, str]] = []
    if ctx.options.get("axis_allies", False) and spec.side == "german":
        if spec.nat in AXIS_ALLIES and on_north_map(hex_id):
            out.append((AXIS_ALLIES[spec.nat], f"{unit} is {spec.nat.capitalize()} and may not move onto the North map ({hex_id})"))
        if BARRED_COUNTRY.get(spec.nat) == country:
            out.append(("8.5", f"{unit} is {spec.nat.capitalize()} and may never enter {COUNTRY_NAMES[country]} ({hex_id})"))
    if ctx.options.get("gt1_restrictions", False) and ctx.turn == 1 and spec.side == "soviet" \
            and country in HUNGARY_ROMANIA:
        out.append(("5.3", f"on GT1 no Soviet unit may move into {COUNTRY_NAMES[country]} ({hex_id})"))
    return out


def check_lake_ends(ctx: Ctx, side: str, tr: MoveTracker, problems: list[Problem]) -> None:
    """13.7: in snow units may cross all-lake hexes but may not end their move in one."""
    for u in sorted(tr.moved):
        h = ctx.at(u)
        hx = ctx.sc.map.hexes.get(h)
        if ctx.spec(u).side == side and hx is not None and hx.terrain == "lake":
            problems.append(Problem(f"move[{tr.last_order[u]}]", f"{u} would end its move in the all-lake hex {h}; "
                                    "in snow units may cross lakes but not stop in them", "13.7",
                                    "Continue the move out of the lake in the same order."))


END_OF_MOVEMENT = "end of movement phase"


def remove_overstack(ctx: Ctx, side: str) -> None:
    """6.2: a hex over the limit at the end of a movement phase loses the minimum number of units,
    removed by the opposing player. Orders are rejected before the dice when they would end
    over-stacked (Ambiguity 55); this is reached only when a failed mobile assault sent its force
    back into a hex filled since (15.6). The opponent chooses by his standing instructions,
    committed before the dice: ``overstack_removal`` lists the enemy units he removes first, in
    order (overstack_choice). Among the removals of the fewest units that make the hex legal, the
    one that takes the units listed earliest is made; units he does not list go fewest steps first,
    then by id. There is no reply during movement (as for the losses of a mobile assault, 15.6)."""
    enemy = other(side)
    listed = [str(u) for u in ctx.standing.get(enemy, {}).get("overstack_removal", [])]
    for hex_id, units in sorted(ctx.stacks(side).items()):
        if not stack_problems(ctx, hex_id, units):
            continue
        gone = overstack_choice(ctx, hex_id, units, listed)
        for u in gone:
            ctx.units[u]["at"] = "dead"
            ctx.units[u]["steps"] = 0
        used = [u for u in gone if u in listed]
        ctx.emit("overstack-removal", "6.2", hex=hex_id, units=gone, by=enemy,
                 source=f"{enemy}'s standing instructions" if used else "fewest steps first")


def overstack_choice(ctx: Ctx, hex_id: str, units: list[str], listed: list[str]) -> list[str]:
    """6.2: the fewest units whose removal leaves ``hex_id`` within stacking (6.1, 6.3-6.5, 7.1-7.3);
    of those sets, the one ranked first by the opponent's list (each unit's place in it, units not
    listed after it by fewest steps, then id), compared unit by unit from the best-ranked one."""
    def rank(u: str) -> tuple[int, int, str]:
        return (listed.index(u) if u in listed else len(listed), ctx.steps(u), u)

    pool = sorted(units, key=rank)
    for k in range(1, len(pool) + 1):
        fits = [list(c) for c in combinations(pool, k)
                if not stack_problems(ctx, hex_id, [u for u in units if u not in c])]
        if fits:
            return min(fits, key=lambda c: [rank(u) for u in c])
    return pool


def check_stacking(ctx: Ctx, side: str, where: str, problems: list[Problem]) -> None:
    """6.2: stacking is enforced at the end of every movement phase (Ambiguity 55: reject); what is
    checked: stack_problems (6.1, 6.3-6.5, 7.1-7.3)."""
    for hex_id, units in ctx.stacks(side).items():
        for rule, text in stack_problems(ctx, hex_id, units):
            problems.append(Problem(where, f"at the end of the movement phase {hex_id} would hold {text}", rule,
                                    "Move some units elsewhere."))


# --- prepared assaults (14.x) ------------------------------------------------------------------

def static_attack_problems(ctx: Ctx, attacks: list[dict[str, Any]]) -> list[Problem]:
    """Legality of the attack list at the start of the prepared-assault phase (14.1-14.6)."""
    problems: list[Problem] = []
    used: dict[str, int] = {}
    targets: dict[str, int] = {}
    side = ctx.side
    for i, a in enumerate(attacks):
        where = f"attack[{i}]"
        t = ctx.sc.map.canonical(str(a.get("target", "")))
        if t is None:
            problems.append(Problem(where, f"target '{a.get('target')}' is not a hex of the map", "14.3"))
            continue
        if not ctx.occupants(t, other(side)):
            problems.append(Problem(where, f"{t} holds no enemy unit to attack", "14.1"))
        if t in targets:
            problems.append(Problem(where, f"{t} is already attacked by attack[{targets[t]}]; a unit may be attacked once per combat phase", "14.4"))
        targets.setdefault(t, i)
        units = list(a.get("units", []))
        if not units:
            problems.append(Problem(where, "no attacking units", "14.3"))
        elif ctx.options.get("arko") and all(u in ctx.units and is_arko(ctx, u) for u in units):
            problems.append(Problem(where, "the ArKo never attacks on its own", "14.41"))
        for key in ("losses", "advance"):  # Ambiguity 49: an ArKo that only supports the attack
            for u in arko_supporting(ctx, [u for u in a.get(key, []) if u in ctx.units and u in units]):
                problems.append(Problem(f"{where}.{key}", f"{u} only supports the attack (option arko_participates = false): "
                                        "it " + ("takes no loss" if key == "losses" else "does not advance"), "14.41"))
        for u in units:
            if u not in ctx.units:
                problems.append(Problem(where, f"unknown unit '{u}'", "14.3"))
                continue
            if ctx.spec(u).side == side and ctx.on_map(u) and in_hedgehog(ctx, ctx.at(u)):
                problems.append(Problem(where, f"{u} is in the hedgehog {ctx.at(u)}; units in a hedgehog may not attack", "14.40"))
                continue
            if ctx.spec(u).side != side:
                problems.append(Problem(where, f"{u} is not a {side} unit", "14.1"))
                continue
            if not ctx.on_map(u):
                problems.append(Problem(where, f"{u} is not on the map", "14.1"))
                continue
            if stationary(ctx, u):  # 8.20, 9.18
                problems.append(Problem(where, f"{u} {STATIONARY_WHY[stationary(ctx, u)]}: it may not attack",
                                        stationary(ctx, u)))
                continue
            if u in used:
                problems.append(Problem(where, f"{u} already attacks in attack[{used[u]}]; a unit attacks at most once per combat phase", "14.4"))
            used.setdefault(u, i)
            h = ctx.at(u)
            if t not in ctx.sc.map.neighbours(h):
                problems.append(Problem(where, f"{u} in {h} is not adjacent to {t}", "14.3"))
                continue
            feats = ctx.sc.map.side_features(h, t)
            for feat in sorted(feats & {"sea", "lake"}):
                # 17.9: all-sea (12.14) and all-lake (13.7) hexsides are prohibited; cite the
                # chart's rule for the feature, as movement does. In snow a lake hexside may be
                # crossed by movement, but still not attacked across (13.7).
                rule = str(ctx.sc.charts.hexsides.get(feat, {}).get("rule", "12.14"))
                snow = feat == "lake" and weather_at(ctx, t) == "S"
                problems.append(Problem(where, f"{u} cannot attack across the all-{feat} hexside {h}-{t}"
                                               + (" (not even in snow, when it may be crossed)" if snow else ""),
                                        "13.7" if snow else rule))
                break
        own = [u for u in dict.fromkeys(units) if u in ctx.units and ctx.spec(u).side == side and ctx.on_map(u)]
        problems += attack_restriction_problems(ctx, where, t, own)  # 5.3, 7.2-7.4
        for key in ("losses", "advance"):
            for u in a.get(key, []):
                if u not in units:
                    problems.append(Problem(f"{where}.{key}", f"{u} is not one of this attack's units", "14.35" if key == "losses" else "14.39"))
        listed = list(a.get("losses", []))
        for u in dict.fromkeys(listed):
            if u in units and u in ctx.units and listed.count(u) > ctx.steps(u):
                problems.append(Problem(f"{where}.losses", f"{u} is listed {listed.count(u)} times but has "
                                        f"{ctx.steps(u)} step(s); one entry per step it may lose", "14.35"))
        pol = a.get("loss_policy")
        if pol is not None and pol not in LOSS_POLICIES:
            problems.append(Problem(f"{where}.loss_policy", f"'{pol}' is not one of {', '.join(LOSS_POLICIES)}", "14.35"))
        for key in CONDITION_KEYS:
            for j, raw in enumerate(a.get(key, [])):
                if ctx.sc.map.canonical(str(raw)) is None:
                    problems.append(Problem(f"{where}.{key}[{j}]", f"'{raw}' is not a hex of the map", "14.5"))
    return problems


CONDITION_KEYS = ("if_cleared", "if_held")


def attack_condition(ctx: Ctx, a: dict[str, Any]) -> str:
    """14.5 (digest F.0): attacks need not be declared in advance and each is resolved before the
    next begins, so an attack order may depend on the results of those before it: `if_cleared`
    lists hexes that must hold no enemy unit by then, `if_held` hexes that must still hold one.
    Never a condition on what a combat reveals (14.7: the attack is ordered before its odds are
    computed). Returns why the attack is not made, or ""."""
    enemy = other(ctx.side)
    for raw in a.get("if_cleared", []):
        h = ctx.sc.map.canonical(str(raw))
        if h is not None and ctx.occupants(h, enemy):
            return f"its condition: {h} is not cleared (if_cleared)"
    for raw in a.get("if_held", []):
        h = ctx.sc.map.canonical(str(raw))
        if h is not None and not ctx.occupants(h, enemy):
            return f"its condition: {h} holds no enemy unit any more (if_held)"
    return ""


def phase_origin(ctx: Ctx, unit: str) -> str:
    """Where a unit began this movement phase: the start of its first move (12.1), else its hex."""
    for e in ctx.events:
        if e.kind == "move" and unit in e.data["units"]:
            return str(e.data["from"])
    return ctx.at(unit)


def gt1_barred(ctx: Ctx, unit: str) -> str:
    """5.3 (option gt1_restrictions): why a German-side unit may not attack on GT1, or "": it set up
    in the Hungarian or Romanian ZOMO (its scenario set-up hex; for a position without a set-up list,
    the hex where it began the GT1 movement phase); Ambiguity 10 (option gt1_no_attack_from =
    "hungary-romania"): nor may any unit attacking from a hex of Hungary or Romania, such as units
    that entered from the South OKH area."""
    hexes = ctx.sc.map.hexes
    setup = dict(ctx.sc.setup).get(unit)
    if setup is None and unit not in {r for _, r, _ in ctx.sc.reinforcements}:
        setup = phase_origin(ctx, unit)
    if setup is not None and setup in hexes and hexes[setup].zomo and hexes[setup].country in HUNGARY_ROMANIA:
        return f"set up in the {COUNTRY_ADJECTIVES[hexes[setup].country]} ZOMO ({setup})"
    here = hexes[ctx.at(unit)]
    if ctx.options.get("gt1_no_attack_from", "hungary-romania") == "hungary-romania" and here.country in HUNGARY_ROMANIA:
        return f"attacks from {COUNTRY_NAMES[here.country]} ({here.id}; Ambiguity 10)"
    return ""


def attack_restriction_problems(ctx: Ctx, where: str, target: str, units: list[str]) -> list[Problem]:
    """Who may not attack, or not together: with the option axis_allies, Italian, Romanian and
    Hungarian units not into the North map (7.2-7.4), Italians and Romanians not together with
    non-German Axis units (7.2, 7.3; French, Croatian and Spanish units count as German, 7.5), nor
    the Hungarians (7.4, Ambiguity 13: option hungarian_joint_attack); with the option
    gt1_restrictions on GT1, no Soviet attack into Hungary or Romania and no attack by German-side
    units set up in their ZOMO (5.3; gt1_barred); with the option flak, no Flak unit (10.1)."""
    from .air import flak_attack_problems  # 10.1

    problems: list[Problem] = flak_attack_problems(ctx, where, units)
    specs = {u: ctx.spec(u) for u in units}
    if ctx.options.get("axis_allies", False):
        for u, sp in specs.items():
            if sp.side == "german" and sp.nat in AXIS_ALLIES and on_north_map(target):
                problems.append(Problem(where, f"{u} is {sp.nat.capitalize()} and may not attack into the North map ({target})",
                                        AXIS_ALLIES[sp.nat]))
        for nat, rule in AXIS_ALLIES.items():
            if nat == "hungarian" and ctx.options.get("hungarian_joint_attack", "may-not") == "may":
                continue
            mine = sorted(u for u, sp in specs.items() if sp.nat == nat)
            others = sorted(u for u, sp in specs.items() if sp.side == "german" and sp.nat not in GERMAN_LIKE | {nat})
            if mine and others:
                problems.append(Problem(where, f"{nat.capitalize()} units ({', '.join(mine)}) may not attack together with "
                                               f"non-German Axis units ({', '.join(others)})", rule))
    if ctx.options.get("gt1_restrictions", False) and ctx.turn == 1:
        country = ctx.sc.map.hexes[target].country
        if ctx.side == "soviet" and country in HUNGARY_ROMANIA:
            problems.append(Problem(where, f"on GT1 no Soviet unit may attack into {COUNTRY_NAMES[country]} ({target})",
                                    "5.3"))
        for u, sp in specs.items():
            why = gt1_barred(ctx, u) if sp.side == "german" else ""
            if why:
                problems.append(Problem(where, f"{u} {why}: it may not attack on GT1", "5.3"))
    return problems


@dataclass
class Decision(Exception):
    """Raised when a decision is needed that the orders and standing instructions do not cover."""

    side: str
    attack: int
    role: str
    question: dict[str, Any]


def attack_strength(ctx: Ctx, units: list[str], target: str,
                    oos: Collection[str] = frozenset()) -> tuple[int, list[dict[str, Any]]]:
    """Attack total (14.8) with 14.18 (armor into swamp halved) and 14.20 (armor across straits = 1);
    in F and S swamp counts as clear (13.6, 13.7) and in S the Sivash and Kerch are ignored (13.7).
    9.7 (option supply): the ``oos`` units' factors are halved too; 10.1 (option flak): so are Soviet
    tank units attacking a hex where German Flak works (air.flak_halves); the halved factors are added
    up and rounded up once, minimum 1, a unit halved twice counting a quarter (14.12, Ambiguity 30).
    With the option halving_rounding = "each", each halving is a reduction of its own (14.12 read
    reduction by reduction): the units under the same halvings are added up and halved, rounded up,
    apart from the others (halving_groups). A unit halved twice counts the same either way (half of
    a rounded half is a rounded quarter); the readings part when different halvings fall on
    different units."""
    from .air import flak_halves  # 10.1 (the air module builds on this one)

    rows = []
    plain = 0
    halved = Fraction(0)
    groups: dict[tuple[str, ...], list[tuple[dict[str, Any], int]]] = {}  # Ambiguity 30: by the halvings
    swamp = combat_terrain(ctx, target) == "swamp"
    flak = flak_halves(ctx, target)
    for u in units:
        a = ctx.factors(u)[0]
        spec = ctx.spec(u)
        feats = water_features(ctx, ctx.at(u), target)
        row: dict[str, Any] = {"unit": u, "hex": ctx.at(u), "printed": a, "factor": a, "notes": []}
        if ctx.options["mountain_infantry"] and spec.type == "mountain" and ctx.sc.map.hexes[target].terrain == "hills" \
                and ctx.sc.map.hexes[target].settlement != "city":
            a = ctx.factors(u)[1]  # 14.17: mountain infantry attacking into hills use their defense factor
            row["factor"] = a
            row["notes"].append("mountain infantry into hills: defense factor (14.17)")
        cut = Fraction(1, 2) if u in oos else Fraction(1)
        cuts: list[str] = []  # the halvings of this unit (Ambiguity 30)
        if u in oos:
            row["notes"].append("out of supply: halved (9.7)")
            cuts.append("9.7")
        if flak and spec.side == "soviet" and spec.type == "tank":
            cut /= 2
            row["notes"].append(f"tank attacking Flak ({', '.join(flak)}): halved (10.1)")
            cuts.append("10.1")
        base = a
        if spec.type in ARMOR and feats & {"sivash", "kerch"}:
            row["factor"] = 1
            row["notes"].append("armor across Sivash/Kerch: 1 (14.20)")
            base = 1
            if cut != 1:
                halved += cut
            else:
                plain += 1
        elif spec.type in ARMOR and swamp:
            row["notes"].append("armor attacking into swamp: halved (14.18)")
            halved += a * cut / 2
            cuts.append("14.18")
        else:
            if spec.type in ARMOR and ctx.sc.map.hexes[target].terrain == "swamp":
                w = weather_at(ctx, target)
                row["notes"].append(f"not halved: swamp counts as clear in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
            if cut != 1:
                halved += a * cut
            else:
                plain += a
        if cuts:
            groups.setdefault(tuple(sorted(cuts)), []).append((row, base))
        rows.append(row)
    if ctx.options.get("halving_rounding", "once") == "each":
        return plain + halving_groups(groups), rows
    # 14.12: the reduced factors, added up and rounded up once, never go below 1 (Ambiguity 30).
    total = plain + (max(-(-halved.numerator // halved.denominator), 1) if halved else 0)
    return total, rows


def halving_groups(groups: dict[tuple[str, ...], list[tuple[dict[str, Any], int]]]) -> int:
    """Ambiguity 30, option halving_rounding = "each": each halving rounded up on its own. The units
    under the same halvings (9.7 out of supply, 10.1 Flak, 14.18 armor into swamp) form a group:
    their factors are added up and halved once per halving, rounded up each time (14.12: one
    reduction on several units is made once on their sum), at least 1 (a group of factor 0 adds
    0); the groups are then added.
    The last row of each group says so. Returns the sum of the groups."""
    total = 0
    for cuts, members in sorted(groups.items()):
        value = sum(b for _, b in members)
        start = value
        for _ in cuts:
            value = halve_round_up(value)
        value = max(value, 1) if start else 0  # a factor of 0 (the ArKo) is not reduced to 1
        total += value
        who = "+".join(r["unit"] for r, _ in members)
        members[-1][0]["notes"].append(
            f"{who}: {start} halved ({', '.join(cuts)}), rounded up apart from the other halvings: {value} "
            "(14.12, Ambiguity 30)")
    return total


def attack_shifts(ctx: Ctx, units: list[str], target: str) -> list[Shift]:
    """Column shifts of 14.11: terrain (14.16), settlements (14.22-14.23), rivers (14.19, 5.5),
    Sivash/Kerch (14.20), mixed water (Ambiguity 40); the weather of the defender's zone (Ambiguity
    35): no river in F and S, no Sivash/Kerch in S, 1R for every Soviet prepared assault in S (13.7)."""
    shifts: list[Shift] = []
    h = ctx.sc.map.hexes[target]
    terrain = combat_terrain(ctx, target)  # 12.10: every city hex counts as clear
    row = ctx.sc.charts.terrain[terrain]
    if int(row.get("shift", 0)):
        shifts.append(Shift(int(row["shift"]), "14.16", f"defender in {terrain}"))
    if h.settlement:
        row = ctx.sc.charts.settlements[h.settlement]
        if int(row.get("shift", 0)):
            shifts.append(Shift(int(row["shift"]), str(row.get("rule", "")), f"defender in a {h.settlement.replace('_', ' ')}"))
    shifts += works_shifts(ctx, target)  # 14.27, 14.28, 14.40
    if ctx.options["concentric_assault"] and concentric(ctx, units, target) \
            and not (ctx.side == "soviet" and in_hedgehog(ctx, target)):  # 14.14: not against a hedgehog
        shifts.append(Shift(1, "14.14", "concentric assault"))
    kinds = []
    for u in units:
        water = water_features(ctx, ctx.at(u), target)
        if "river" in water and ctx.turn == 1 and ctx.spec(u).side == "german":
            water = water - {"river"}  # 5.5: German-side units ignore rivers on GT1
        kinds.append(water)
    if kinds and all(kinds):
        if all("river" in k for k in kinds):
            shifts.append(Shift(-1, "14.19", "every attacker attacks across a river"))
        elif all(k & {"sivash", "kerch"} for k in kinds):
            shifts.append(Shift(-2, "14.20", "every attacker attacks across the Sivash/Kerch"))
        elif ctx.options["mixed_water_shift"] == "1L":
            shifts.append(Shift(-1, "14.19", "every attacker across water of mixed types (Ambiguity 40)"))
    if ctx.side == "soviet" and weather_at(ctx, target) == "S":
        shifts.append(Shift(1, "13.7", "snow: every Soviet prepared assault"))
    return shifts


def concentric(ctx: Ctx, units: list[str], target: str) -> bool:
    """14.14: attacked from two opposite hexes, three alternating hexes, or four or more hexes
    (Ambiguity 39: number the six neighbours 0-5). Option concentric_three: "non-contiguous" (the
    digest's reading) takes the sets as what the attacking hexes must include, so any three but
    three contiguous ones qualify (three non-contiguous hexes hold an opposite pair or are
    alternating); "alternating" takes them as the exact pictures, so from exactly three hexes only
    {0, 2, 4} and {1, 3, 5} qualify, and an opposite pair with a third hex beside one of them does not."""
    dirs = {unit_direction(ctx, target, ctx.at(u)) for u in units}
    dirs.discard(None)
    if len(dirs) >= 4:
        return True
    if dirs in ({0, 2, 4}, {1, 3, 5}):
        return True
    if ctx.options.get("concentric_three", "non-contiguous") == "alternating" and len(dirs) != 2:
        return False
    return any(d is not None and (d + 3) % 6 in dirs for d in dirs)


STACK_KEYS = ("loss_policy", "loss_order", "retreat", "retreat_hexes")  # what a [[standing.stack]] may override


def standing_for(ctx: Ctx, side: str, hex_id: str | None) -> tuple[dict[str, Any], str]:
    """A side's standing instructions for its stack in ``hex_id`` (F.7): the side's defaults, with
    the keys of the first ``[[standing.stack]]`` entry naming that hex in their place. Also where
    they come from, for the report."""
    st: dict[str, Any] = ctx.standing.get(side, {})
    if hex_id is not None:
        for entry in st.get("stack", []):
            if ctx.sc.map.canonical(str(entry.get("hex", ""))) == hex_id:
                merged = {**st, **{k: v for k, v in entry.items() if k in STACK_KEYS}}
                return merged, f"standing instructions for {hex_id}"
    return st, "standing instructions"


def policy_for(ctx: Ctx, side: str, attack: dict[str, Any] | None, hex_id: str | None = None) -> tuple[list[str], str, str]:
    """Loss order and policy: the attack order's own (attacker), else the side's standing
    instructions for the stack in ``hex_id`` (standing_for), else 'ask' (the adjudication stops and
    awaits that side's reply, docs/protocol.md)."""
    st, source = standing_for(ctx, side, hex_id)
    order: list[str] = []
    if attack is not None and attack.get("losses"):
        order = list(attack["losses"])
        source = "attack order"
    order += [u for u in st.get("loss_order", [])]
    policy = (attack or {}).get("loss_policy") or st.get("loss_policy") or "ask"
    if not st and attack is not None and not attack.get("losses") and not attack.get("loss_policy"):
        source = "no instructions"
    return order, str(policy), source


def loss_rules(ctx: Ctx, side: str, role: str, units: list[str]) -> dict[str, Any]:
    """The constraints on allocating step losses (full-game options, off in the basic game, A.4):
    14.35 exception 1 (the attacker's first step from a tank/panzer unit), exception 2 (no unit
    eliminated while another participant has more than one step), 14.36 (a Soviet cavalry step
    counts 1/2).

    Ambiguity 46 (option exception2_reduced): "to-1-step" reads exception 2 literally, a 4-step
    panzer division must be down to 1 step before any other participant is eliminated; "once" lets
    a unit count as reduced once it has lost a step (a 4-step division at 3 steps; ``reduced``).
    Ambiguity 47 (option guards_cavalry_half): "per-step" makes each step of a 2-step Guards
    cavalry unit count 1/2 (the unit 1 in all); "per-unit" makes the whole unit count half a unit,
    1/2 in all (1/4 a step)."""
    rules_: dict[str, Any] = {"weight": {}, "first_from": [], "spread": False}
    if ctx.options["step_loss_exceptions"]:
        rules_["spread"] = True
        if role == "attacker":
            rules_["first_from"] = [u for u in units if ctx.spec(u).type == "tank"]
        if ctx.options.get("exception2_reduced", "to-1-step") == "once":
            rules_["reduced"] = {u: max(ctx.spec(u).steps - 1, 1) for u in units}
    if ctx.options["soviet_cavalry_half"]:
        per_unit = ctx.options.get("guards_cavalry_half", "per-step") == "per-unit"
        rules_["weight"] = {u: f"1/{2 * ctx.spec(u).steps}" if per_unit else "1/2" for u in units
                            if ctx.spec(u).side == "soviet" and ctx.spec(u).type == "cavalry"}
    return rules_


def allocate_with(alive: list[tuple[str, int]], loss: int, order: list[str], policy: str, r: dict[str, Any]) -> list[Loss]:
    return allocate(alive, loss, order, policy, weight={u: Fraction(w) for u, w in r["weight"].items()},
                    first_from=r["first_from"], spread=r["spread"], reduced=loss_reduced(r))


def loss_constraints_text(units: list[str], r: dict[str, Any]) -> list[str]:
    """The constraints of loss_rules on a loss among ``units``, in words with their rules (for the
    reply template and the problems of a reply that breaks them)."""
    out = []
    first = [u for u in units if u in r.get("first_from", [])]
    if first:
        out.append(f"the first step from a tank unit: {', '.join(first)} (14.35 exception 1)")
    if r.get("spread"):
        reduced = "lost a step" if r.get("reduced") else "one step left"
        out.append(f"no unit eliminated until every participant has {reduced} (14.35 exception 2, Ambiguity 46)")
    halves = [u for u in units if u in r.get("weight", {})]
    if halves:
        out.append(f"a step of {', '.join(halves)} counts {r['weight'][halves[0]]} point (14.36, Ambiguity 47)")
    return out


def loss_reduced(r: dict[str, Any]) -> dict[str, int] | None:
    """The steps at which each unit counts as reduced for 14.35 exception 2 (Ambiguity 46; absent: 1)."""
    return {u: int(v) for u, v in r["reduced"].items()} if r.get("reduced") else None


def take_losses(ctx: Ctx, side: str, role: str, units: list[str], loss: int | None, attack_index: int,
                attack: dict[str, Any] | None, decisions: dict[str, Any], ask_fallback: bool = False) -> list[Loss]:
    """14.32/14.35 (first paragraph): a result is absorbed by step losses, divided as the owner
    chooses; E eliminates every participating defender (14.38). With ``ask_fallback`` (a mobile
    assault, resolved during movement) a choice left open is made fewest-steps-first, not asked."""
    alive = [(u, ctx.steps(u)) for u in units if ctx.on_map(u)]
    r = loss_rules(ctx, side, role, [u for u, _ in alive])
    if loss is None:
        losses = [Loss(u, s, True) for u, s in alive]
        source = "E (14.38)"
    elif loss == 0:
        return []
    else:
        key = f"{attack_index}/{role}"
        if key in decisions:
            losses = allocate_with(alive, loss, list(decisions[key]), "fewest-steps-first", r)
            source = f"{side}'s reply"
        else:
            order, policy, source = policy_for(ctx, side, attack if role == "attacker" else None,
                                               ctx.at(alive[0][0]) if role == "defender" and alive else None)
            try:
                losses = allocate_with(alive, loss, order, policy, r)
            except NeedsDecision as e:
                if not ask_fallback:
                    raise Decision(side, attack_index, role, {
                        "kind": "losses", "rule": "14.35", "loss": loss, "steps": min(loss, sum(s for _, s in alive)),
                        "units": {u: s for u, s in alive}, "constraints": r, "text": str(e),
                    }) from e
                losses = allocate_with(alive, loss, order, "fewest-steps-first", r)
                policy = "fewest-steps-first (no reply during movement)"
            if policy == "ask" and not order:
                source = "the only allocation the rules allow"
            elif policy != "ask":
                source += f", {policy}"
    for lo in losses:
        left = ctx.steps(lo.unit) - lo.steps
        ctx.units[lo.unit]["steps"] = max(left, 0)
        if left <= 0:
            ctx.units[lo.unit]["at"] = "dead"
    rules_cited = "14.35" + (", 14.36" if r["weight"] else "")
    ctx.emit("losses", rules_cited, side=side, role=role, source=source, owed=loss,
             losses=[{"unit": lo.unit, "steps": lo.steps, "eliminated": lo.eliminated} for lo in losses])
    return losses


def crt_outcome(ctx: Ctx, final: Odds, target: str, label: str) -> tuple[
        Result | None, int | None, str, Result, bool, int, int | None, dict[str, Any] | None]:
    """The CRT step of any assault (14.31; 15.14 for mobile assaults): the automatic result off the
    table (14.10) or the die labelled ``label`` on the final column (17.7), then the city doubling
    (14.23: both numbers doubled, 0 becomes 1 except below 1:3; Ambiguity 41 above 7:1).

    Returns (automatic result, die, label used, table result, provisional cell, attacker loss,
    defender loss (None = E), doubling record)."""
    crt = ctx.sc.charts.crt
    auto = crt.automatic(final)
    face: int | None = None
    provisional = False
    if auto is not None:
        result = auto
        label = ""
    else:
        if ctx.dice is None:
            raise RuntimeError("a die is needed, but this is a check without dice")
        face = ctx.dice.roll(label)
        result = crt.lookup(final, face)
        provisional = crt.cell_is_provisional(final, face)
    att_loss, def_loss = result.attacker, result.defender
    doubling = None
    if ctx.sc.map.hexes[target].settlement == "city":
        below = final < crt.first
        new_att = att_loss * 2 if (att_loss or below) else 1
        if auto is not None and final > crt.last and not ctx.options["city_doubling_above_7_1"]:
            new_att = att_loss * 2
        new_def = None if def_loss is None else (def_loss * 2 if (def_loss or below) else 1)
        doubling = {"from": result.label, "attacker": new_att, "defender": new_def}
        att_loss, def_loss = new_att, new_def
    return auto, face, label, result, provisional, att_loss, def_loss, doubling


def arko_before_doubling(result: Result, doubling: dict[str, Any]) -> int:
    """Ambiguity 41 (14.23 with 14.41), option arko_order = "arko-first": in a city the ArKo's +1 is
    added to the table's defender number first and the sum is then doubled (14.23): 1/1 becomes 2/4,
    not 2/3 as with the digest's "doubling-first" (double, then +1). The sum is at least 1, so
    14.23's "0 becomes 1" has nothing left to do. Returns the defender's loss; ``doubling`` records it."""
    loss = 2 * (int(result.defender or 0) + 1)
    doubling["defender"] = loss
    doubling["arko_first"] = True
    return loss


def resolve_attack(ctx: Ctx, i: int, a: dict[str, Any], decisions: dict[str, Any]) -> None:
    """One prepared assault, fully resolved before the next (14.5): totals, odds (14.8-14.10),
    shifts (14.11), the CRT roll (14.31) or automatic result, city doubling (14.23), losses with the
    defender first (14.32, 14.35, 14.38), then advance after combat (14.39)."""
    side = ctx.side
    enemy = other(side)
    target = ctx.sc.map.canonical(str(a["target"]))
    if target is None:  # checked by static_attack_problems before any attack is resolved
        raise RuntimeError(f"attack {i}: target {a['target']} is not on the map")
    attackers = [u for u in a["units"] if ctx.on_map(u)]
    supporting = arko_supporting(ctx, attackers)  # 14.41, Ambiguity 49: an ArKo that does not take part
    attackers = [u for u in attackers if u not in supporting]
    defenders = ctx.occupants(target, enemy)
    unmet = attack_condition(ctx, a)
    if unmet:
        ctx.emit("attack-skipped", "14.5", index=i, target=target, reason=unmet)
        return
    if not defenders or not attackers:
        ctx.emit("attack-skipped", "14.5", index=i, target=target,
                 reason="the hex holds no enemy unit any more" if not defenders else "no attacker is left")
        return
    reveal_untried(ctx, i, attackers, defenders)
    from . import naval  # 11.4 (the naval module builds on this one)

    invaders = naval.invasion_attack(ctx, i, target, attackers)  # 11.4: the invasion PA's force, else []
    oos: set[str] = set()
    if ctx.options.get("supply"):
        from .supply import combat_oos  # 9.8: both sides' participants, at the start of the combat

        # 11.4: invaders count as fully supplied for the player turn in which they land
        oos = combat_oos(ctx, i, [u for u in attackers if u not in invaders], defenders, "prepared assault")
    att_total, att_rows = attack_strength(ctx, attackers, target, oos)
    caught = [u for u in defenders if u in retreated(ctx)]  # 14.34: retreated here this phase
    fighting = [u for u in defenders if u not in caught]
    def_rows = defense_rows(ctx, fighting, target, oos)  # 14.30: the Stalin Line; 9.7
    def_rows += [{"unit": u, "factor": 0, "notes": ["retreated into this hex this phase: adds nothing (14.34)"]} for u in caught]
    def_total = defense_total(def_rows)  # 9.7: out-of-supply defenders halved together
    from .air import air_combat  # the air module builds on this one

    gs = air_combat(ctx, attackers, defenders, target, oos, att_total, def_total)  # 10.1-10.4, 14.13
    att_total, def_total = att_total + gs.attack, def_total + gs.defense
    odds = Odds.of(att_total, def_total)
    shifts = attack_shifts(ctx, attackers, target) + naval.invasion_shifts(invaders)  # 11.4: 1L
    shifts += gs.shifts  # 10.3
    extra: dict[str, Any] = dict(gs.data)
    if ctx.options.get("supply"):
        from .supply import gast  # 9.6: the GAST, the last step before the CRT die

        shifts, gast_data = gast(ctx, f"attack {i + 1}", attackers, target, shifts)
        extra.update(gast_data)
    final = apply_shifts(odds, shifts)
    label = f"14.31|{ctx.step}|attack {i + 1}|{target}|CRT"
    auto, face, label, result, provisional, att_loss, def_loss, doubling = crt_outcome(ctx, final, target, label)
    h = ctx.sc.map.hexes[target]
    arko = arko_bonus(ctx, attackers + supporting, target)
    if arko and doubling and def_loss is not None and ctx.options.get("arko_order", "doubling-first") == "arko-first":
        def_loss = arko_before_doubling(result, doubling)  # Ambiguity 41, the other reading
        extra["arko"] = {"units": arko, "from": result.defender, "to": int(result.defender or 0) + 1, "before_doubling": True,
                         **({"supporting": True} if supporting else {})}
    elif arko:  # 14.41: the defender's result +1, after the city doubling (Ambiguity 41); E stays E
        extra["arko"] = {"units": arko, "from": "E" if def_loss is None else def_loss,
                         "to": "E" if def_loss is None else def_loss + 1,
                         **({"supporting": True} if supporting else {})}
        def_loss = None if def_loss is None else def_loss + 1
    elif supporting:  # Ambiguity 49: an ArKo that only supports, to no effect here
        extra["arko"] = {"units": supporting, "supporting": True, "idle": True}
    extra.update(combat_notes(ctx, attackers, target))
    ctx.emit("attack", "14.31", index=i, target=target, place=h.place, terrain=h.terrain, settlement=h.settlement,
             attackers=att_rows, defenders=def_rows, attack_total=att_total, defense_total=def_total,
             odds=odds.label, shifts=[{"label": s.label, "rule": s.rule, "reason": s.reason} for s in shifts],
             final=final.label, automatic=auto is not None, die=face, label=label, result=result.label,
             provisional=provisional, city=doubling,
             outcome=f"{att_loss}/{'E' if def_loss is None else def_loss}", **extra)
    # 14.32: the defender always absorbs its full result before the attacker absorbs his.
    if caught and def_loss != 0:  # 14.34: eliminated, not counting toward the result
        for u in caught:
            ctx.units[u].update(at="dead", steps=0)
        ctx.emit("retreat-caught", "14.34", index=i, hex=target, units=caught)
    if fighting and enemy == "german" and ctx.options.get("german_retreat") and def_loss is not None and def_loss >= 1:
        german_defense(ctx, i, target, fighting, def_loss, decisions)  # 14.32-14.35, 14.40
    elif fighting:
        take_losses(ctx, enemy, "defender", fighting, def_loss, i, None, decisions)
    take_losses(ctx, side, "attacker", attackers, att_loss, i, a, decisions)
    if invaders:
        naval.invasion_outcome(ctx, i, a, target, invaders)  # 11.4: ashore, or eliminated
    elif not ctx.occupants(target, enemy):
        advance_after_combat(ctx, i, a, target)
    check_hedgehogs(ctx, f"attack {i + 1}")  # Ambiguity 48


# --- German defensive retreat (14.32 second rule, 14.33-14.35, 14.40; option german_retreat) -----

RETREAT_POLICIES = ("never", "if-it-saves-a-step", "always", "ask")
NOT_SUPPLY_SOURCES = frozenset({"1913N", "2013N", "2014N"})  # 9.11


def retreated(ctx: Ctx) -> dict[str, str]:
    """14.34: the German units that retreated in this combat phase, and the hex each retreated into."""
    r: dict[str, str] = ctx.position.get("retreated", {})
    return r


def german_sources(ctx: Ctx, soviet: set[str], units: Collection[str] = ()) -> list[str]:
    """9.11: the German supply sources of the retreating ``units``, not Soviet-occupied: every ZOMO
    hex except 1913N, 2013N and 2014N, or a hex the map marks a German source (supply.is_source);
    for a stack with Romanian or Hungarian units, only the hexes that are a source for every unit
    (they trace only to their own country's ZOMO)."""
    from .supply import is_source, line_kind

    kinds = {line_kind(ctx, u) for u in units} or {"german"}
    return sorted(h for h in ctx.sc.map.hexes
                  if h not in soviet and all(is_source(ctx, h, k) for k in kinds))


def supply_distance(ctx: Ctx, units: list[str], start: str, sources: list[str], soviet: set[str]) -> tuple[int, int]:
    """Ambiguity 45: how far ``start`` is from the nearest German supply source (9.11), as (0, the
    cheapest legal German movement path in MP for the whole stack), else (1, hex distance), else
    (2, 0) when there is no source at all. Smaller is closer (supply_distances)."""
    return supply_distances(ctx, units, [start], sources, soviet)[start]


def supply_distances(ctx: Ctx, units: list[str], starts: list[str], sources: list[str],
                     soviet: set[str]) -> dict[str, tuple[int, int]]:
    """supply_distance for each of ``starts``, from one search: the cheapest cost from every hex to
    the nearest source, found backward from the sources (paths.costs_to), entering
    no hex in ``soviet``; a step costs the most any unit of the stack pays (hex_cost, hexside_cost;
    a Sivash/Kerch crossing its whole MF).

    Option retreat_distance: "path" (the default) is the digest's reading above; "hex-distance"
    measures plain hex distance to the nearest source, through Soviet units, water and all: (1, hexes)."""
    src = set(sources)
    n = ctx.sc.map.numbering
    if not src:
        return {s: (2, 0) for s in starts}

    def hexes_away(h: str) -> tuple[int, int]:
        return (1, min(hex_distance(n.parse(h), n.parse(s)) for s in src))

    if ctx.options.get("retreat_distance", "path") == "hex-distance":
        return {s: hexes_away(s) for s in starts}
    specs = [(ctx.spec(u), ctx.mf(u)) for u in units]

    def step(a: str, b: str) -> int | None:
        """The cost of entering b from a, or None."""
        if b in soviet:
            return None
        worst = 0
        for spec, mf in specs:
            hc = hex_cost(ctx, spec, b, a)[0]
            sc_ = hexside_cost(ctx, spec, a, b)[0]
            if hc == "no" or sc_ == "no":
                return None
            worst = max(worst, mf if sc_ == "all" else int(hc) + int(sc_))
        return worst

    def nbrs(h: str) -> list[str]:
        return [p for p in ctx.sc.map.neighbours(h) if p in ctx.sc.map.hexes]

    found = costs_to(src, nbrs, step, starts)
    return {s: (0, found[s]) if s in found else hexes_away(s) for s in starts}


def _distance_text(ctx: Ctx, d: tuple[int, int]) -> str:
    if ctx.options.get("retreat_distance", "path") == "hex-distance" and d[0] == 1:
        return f"{d[1]} hex{'es' if d[1] != 1 else ''} (hex distance, option retreat_distance)"
    return ("no German supply source" if d[0] == 2 else f"{d[1]} MP" if d[0] == 0 else f"{d[1]} hexes (no path)")


def retreat_open(ctx: Ctx, units: list[str], origin: str) -> tuple[list[str], dict[str, str]]:
    """14.32-14.33: the adjacent hexes a retreat may enter, stacking aside: free of Soviet units
    (empty intact works allowed), not an all-sea or all-lake hex, not across an all-sea/all-lake
    hexside, nor the Sivash/Kerch unless snow is in effect there (12.16, 13.7), and no hex a unit may
    not enter (entry_problems). Also the hexes refused, with why."""
    ok: list[str] = []
    why: dict[str, str] = {}
    for b in sorted(ctx.sc.map.neighbours(origin)):
        if b not in ctx.sc.map.hexes:
            continue
        if ctx.occupants(b, "soviet"):
            why[b] = "it holds Soviet units (14.32)"
            continue
        h = ctx.sc.map.hexes[b]
        reason = ""
        for u in units:
            spec = ctx.spec(u)
            hc, hrule, _ = hex_cost(ctx, spec, b)
            sc_, srule, _ = hexside_cost(ctx, spec, origin, b)
            if hc == "no":
                reason = f"it is an all-{h.terrain} hex ({hrule}, 14.33)"
            elif h.terrain == "lake":  # crossed in snow at the cost of clear, but never a hex to stop in
                reason = "it is an all-lake hex: in snow units may cross lakes but not stop in them (13.7, 14.33)"
            elif sc_ == "no":
                reason = f"the hexside is all-sea or all-lake ({srule}, 14.33)"
            elif sc_ == "all":
                reason = f"it is across the Sivash/Kerch without snow there ({srule}, 14.33)"
            else:
                bad = entry_problems(ctx, u, b)
                if bad:
                    reason = f"{bad[0][1]} ({bad[0][0]})"
            if reason:
                break
        if reason:
            why[b] = reason
        else:
            ok.append(b)
    return ok, why


def retreat_choice(ctx: Ctx, units: list[str], origin: str, legal: list[str],
                   prefs: list[str]) -> tuple[list[str], dict[str, Any]]:
    """14.32 with Ambiguity 45: the hexes the retreat may take, best first: those closer to a German
    supply source (supply_distance) than ``origin``; if none is closer, every legal hex (option
    retreat_if_none_closer "any-legal") or none ("no-retreat"). Among them the owner's order of
    preference, then the lowest hex id. Also what was measured, for the report."""
    soviet = {ctx.at(u) for u in ctx.units if ctx.on_map(u) and ctx.spec(u).side == "soviet"}
    sources = german_sources(ctx, soviet, units)
    found = supply_distances(ctx, units, [origin, *legal], sources, soviet)
    here = found[origin]
    dist = {b: found[b] for b in legal}
    closer = [b for b in legal if dist[b] < here]
    none_closer = not closer
    pool = closer if closer else (list(legal) if ctx.options.get("retreat_if_none_closer") == "any-legal" else [])
    rank = {h: k for k, h in enumerate(prefs)}
    pool.sort(key=lambda h: (rank.get(h, len(rank)), h))
    info = {"from_distance": _distance_text(ctx, here), "distances": {b: _distance_text(ctx, d) for b, d in dist.items()},
            "none_closer": none_closer}
    return pool, info


def retreat_policy(ctx: Ctx, hex_id: str | None = None) -> tuple[str, list[str]]:
    """The German's standing `retreat` (default "ask") and `retreat_hexes` (preferences), for his
    stack in ``hex_id`` (standing_for)."""
    st, _ = standing_for(ctx, "german", hex_id)
    prefs = [c for h in st.get("retreat_hexes", []) if (c := ctx.sc.map.canonical(str(h)))]
    return str(st.get("retreat", "ask")), prefs


def german_defense(ctx: Ctx, i: int, target: str, defenders: list[str], loss: int,
                   decisions: dict[str, Any]) -> None:
    """The German defenders of a Soviet PA absorb a result of ``loss`` >= 1 (option german_retreat):
    they may retreat all together one hex to satisfy exactly 1 point (14.32, 14.33), after taking the
    rest as step losses in their hex (14.35); never out of a hedgehog (14.40). Whether they retreat:
    the reply to a question, else the standing `retreat`: "never"; "always"; "if-it-saves-a-step",
    retreat unless the stack would be eliminated by the other points anyway; "ask" (the default)
    stops the adjudication when there is a real choice. The hex: retreat_open, then stacking (6.2,
    14.33: no hex within stacking = the whole result as step losses), then retreat_choice."""
    units = [u for u in defenders if ctx.on_map(u)]
    base: dict[str, Any] = {"index": i, "hex": target, "units": units, "result": loss}
    if in_hedgehog(ctx, target):
        take_losses(ctx, "german", "defender", units, loss, i, None, decisions)
        ctx.emit("retreat", "14.40", **base, retreated=False, why="units in a hedgehog may not retreat")
        return
    total = sum(ctx.steps(u) for u in units)
    open_, shut = retreat_open(ctx, units, target)
    policy, prefs = retreat_policy(ctx, target)
    answer = decisions.get(f"{i}/retreat")
    base["policy"] = "reply" if answer is not None else policy
    why = ""
    if answer == "no":
        why = "the German's reply declines it"
    elif answer is None and policy == "never":
        why = "the standing instructions say never"
    elif not open_:
        why = "no adjacent hex is open to it (14.32, 14.33)"
    elif loss - 1 >= total:
        why = "the other points of the result eliminate the stack anyway"
    if why:
        take_losses(ctx, "german", "defender", units, loss, i, None, decisions)
        ctx.emit("retreat", "14.32", **base, retreated=False, why=why, refused=shut)
        return
    if answer is None and policy == "ask":
        fits = [b for b in open_ if not stack_problems(ctx, b, ctx.occupants(b, "german") + units)]
        choice, info = retreat_choice(ctx, units, target, fits, prefs)
        if choice:
            raise Decision("german", i, "defender", {
                "kind": "retreat", "rule": "14.32", "loss": loss, "steps": loss, "hexes": choice,
                "units": {u: ctx.steps(u) for u in units}, **info,
                "text": f"retreat from {target} into one of {', '.join(choice)} for 1 point of {loss}, or not"})
    if answer is not None:
        prefs = [str(answer)] + prefs
    if loss > 1:  # 14.35: the other points first, as step losses in the original hex
        take_losses(ctx, "german", "defender", units, loss - 1, i, None, decisions)
    left = [u for u in units if ctx.on_map(u)]
    base["units"] = left
    legal = [b for b in open_ if not stack_problems(ctx, b, ctx.occupants(b, "german") + left)]
    full = [b for b in open_ if b not in legal]
    choice, info = retreat_choice(ctx, left, target, legal, prefs)
    if not choice:
        take_losses(ctx, "german", "defender", left, 1, i, None, decisions)
        why = ("every open hex would be over-stacked: the whole result is taken as step losses (14.33, 6.2)" if not legal
               else "no legal hex is closer to a German supply source (Ambiguity 45, option retreat_if_none_closer)")
        ctx.emit("retreat", "14.33", **base, retreated=False, why=why, refused=shut, overstacked=full, **info)
        return
    to = choice[0]
    for u in left:
        ctx.units[u]["at"] = to
        ctx.position.setdefault("retreated", {})[u] = to  # 14.34
    straits = sorted(ctx.sc.map.side_features(target, to) & {"sivash", "kerch"})  # open to a retreat in snow only (13.7)
    ctx.emit("retreat", "14.32", **base, retreated=True, to=to, refused=shut, overstacked=full, **info,
             stacking=not stack_problems(ctx, to, ctx.occupants(to, "german")),  # 6.2: always true here
             **({"straits": straits} if straits else {}))
    enter_hex(ctx, "german", to, "retreat")  # 3.9; 14.26 with Ambiguity 42: an empty intact work is destroyed


_PRINTED_POOLS: dict[str, dict[tuple[str, str, int], dict[str, int]]] = {}  # by the scenario's data digest


def printed_pools(sc: Scenario) -> dict[tuple[str, str, int], dict[str, int]]:
    """2.15: of each kind of untried counter (pool_key), how many counters of the scenario show each
    attack-defense; worked out once per scenario's data."""
    pools = _PRINTED_POOLS.get(sc.digest)
    if pools is None:
        if len(_PRINTED_POOLS) >= 16:
            _PRINTED_POOLS.clear()
        pools = {}
        for spec in sc.units.values():
            if can_be_untried(spec):
                row = pools.setdefault(pool_key(spec), {})
                row[counter_values(spec)] = row.get(counter_values(spec), 0) + 1
        _PRINTED_POOLS[sc.digest] = pools
    return pools


def counter_pool(ctx: Ctx, unit: str) -> list[str]:
    """2.15: the counters an untried unit may turn out to be: the printed attack-defense of every
    Soviet 1-step counter of the scenario of its type, size and MF (what its back shows), less those
    already drawn for tried units, eliminated ones included (each counter enters play once).
    Sorted by attack, then defense."""
    key = pool_key(ctx.spec(unit))
    left = dict(printed_pools(ctx.sc).get(key, {}))
    for u, st in ctx.units.items():
        drawn = st.get("tried")
        if drawn is not None and pool_key(ctx.spec(u)) == key and left.get(drawn, 0) > 0:
            left[drawn] -= 1
    pool = [v for v, n in left.items() for _ in range(n)]
    return sorted(pool, key=lambda v: tuple(int(x) for x in v.split("-")))


def reveal_untried(ctx: Ctx, i: int, attackers: list[str], defenders: list[str], what: str = "") -> None:
    """2.15: an untried unit is revealed when it first takes part in combat, attacking or
    defending, at odds computation (14.7, Ambiguity 53): pbem draws which counter it is, without
    replacement, from its pool (counter_pool), with one die of as many sides as counters are left
    (none for a pool of one). Attackers first, then defenders, each by unit id."""
    for role, units in (("attacker", attackers), ("defender", defenders)):
        for u in sorted(units):
            if not ctx.untried(u):
                continue
            pool = counter_pool(ctx, u)
            if not pool:  # every unit of a pool is one of its counters, so one is always left
                raise RuntimeError(f"no counter left in the pool of {u} (2.15)")
            face: int | None = None
            label = ""
            drawn = pool[0]
            if len(pool) > 1:
                if ctx.dice is None:
                    raise RuntimeError("a die is needed, but this is a check without dice")
                label = f"2.15|{ctx.step}|{what or f'attack {i + 1}'}|{u}|counter"
                face = ctx.dice.roll(label, len(pool))
                drawn = pool[face - 1]
            ctx.units[u]["tried"] = drawn
            spec = ctx.spec(u)
            ctx.emit("reveal", "2.15", index=i, unit=u, role=role, type=spec.type, size=spec.size, mf=ctx.mf(u),
                     pool=pool, die=face, label=label, counter=f"{drawn}-{ctx.mf(u)}", **({"what": what} if what else {}))


def advance_after_combat(ctx: Ctx, i: int, a: dict[str, Any], target: str) -> None:
    """14.39: when a prepared assault empties the hex, victorious attackers may advance into it,
    within stacking, obeying terrain prohibitions; the choice is made before the next combat."""
    wanted = [u for u in a.get("advance", []) if ctx.on_map(u) and u in a["units"]]
    moved: list[str] = []
    refused: list[dict[str, str]] = []
    limit = stacking_limit(ctx, target)
    for u in wanted:
        feats = water_features(ctx, ctx.at(u), target)  # 13.7: in snow the Sivash and Kerch are ignored
        if feats & {"sivash", "kerch"} and not ctx.options["advance_across_straits"]:
            refused.append({"unit": u, "why": "may not advance across the Sivash/Kerch (12.16)"})
            continue
        why = [f"{text} ({rule})" for rule, text in entry_problems(ctx, u, target)]  # 7.2-7.4, 8.5
        for rule, text in stack_problems(ctx, target, ctx.occupants(target, ctx.side) + [u]):
            why.append(f"the hex would exceed the stacking limit of {limit} ({rule})" if rule in ("6.1", "6.5")
                       else f"the hex would hold {text} ({rule})")
        if why:
            refused.append({"unit": u, "why": "; ".join(why)})
            continue
        ctx.units[u]["at"] = target
        moved.append(u)
    if moved or refused:
        ctx.emit("advance", "14.39", index=i, hex=target, units=moved, refused=refused)
    if moved:
        enter_hex(ctx, ctx.side, target, "advance after combat")


# --- turn structure ----------------------------------------------------------------------------

def victory_check(ctx: Ctx, turn: int) -> None:
    """Victory Check phase: 4.4 ZOMO incursion (-1 VP per Soviet unit in the Greater-German ZOMO),
    4.5 the German Victory Table (17.2), the end of the last turn (4.5: the Soviet wins)."""
    intruders = [u for u, s in sorted(ctx.units.items())
                 if ctx.spec(u).side == "soviet" and s["at"] not in OFF_MAP
                 and ctx.sc.map.hexes[s["at"]].country == "germany" and ctx.sc.map.hexes[s["at"]].zomo]
    if intruders:
        ctx.position["vp"] = int(ctx.position["vp"]) - len(intruders)
    charts = ctx.sc.charts
    threshold = charts.victory.get(turn)
    vp = int(ctx.position["vp"])
    provisional = charts.victory_provisional and turn not in charts.victory_known
    outcome = "continue"
    if threshold is not None and vp >= threshold:
        outcome = "german"
        ctx.result = {"winner": "german", "rule": "4.5", "reason": f"{vp} VP at the end of GT{turn} reaches the {threshold} needed (17.2)"}
    elif turn >= ctx.sc.last_turn:
        outcome = "soviet"
        ctx.result = {"winner": "soviet", "rule": "4.5",
                      "reason": f"the German has not won by the end of GT{turn}, the scenario's last turn"}
    ctx.emit("victory-check", "4.5", turn=turn, intruders=intruders, vp=vp, threshold=threshold,
             provisional=provisional, outcome=outcome)


def snapshot(ctx: Ctx) -> dict[str, Any]:
    """A copy of the working position, to go back to when an attack awaits a decision."""
    copied: dict[str, Any] = copy_tree(ctx.position)
    return copied


def copy_tree(x: Any) -> Any:
    """A deep copy of TOML-shaped data (tables, arrays, scalars), as copy.deepcopy makes it, faster."""
    if isinstance(x, dict):
        return {k: copy_tree(v) for k, v in x.items()}
    if isinstance(x, list):
        return [copy_tree(v) for v in x]
    return x


def unit_direction(ctx: Ctx, a: str, b: str) -> int | None:
    n = ctx.sc.map.numbering
    return direction(n.parse(a), n.parse(b))
