"""Proud Monster rules: the basic game (digest A.4) — movement, stacking, prepared assaults, control,
VP — and the full-game ([ADV]) rules implemented so far, each behind its option.

Every function that implements a rule names it in its docstring; every problem and event carries
the rule number. The functions work on a ``Ctx``: the scenario, the options in force, a working
copy of the position, the events so far and the dice.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.mechanics.dice import Dice
from pbem.mechanics.hexgrid import direction
from pbem.mechanics.odds import Odds, Shift, apply_shifts, halve_round_up
from pbem.mechanics.paths import cheapest
from pbem.mechanics.stacking import overstacked
from pbem.mechanics.steps import Loss, NeedsDecision, allocate

from .data import (
    ARMOR,
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

OFF_MAP = ("dead", "track")

DEFAULT_OPTIONS: dict[str, Any] = {
    # A.4: "basic" leaves out every [ADV] rule; "full" (the whole rulebook) is not yet available.
    "ruleset": "basic",
    # Ambiguity 6: control passes to a unit merely moving through a hex (3.9 read literally).
    "control_on_pass_through": True,
    # Ambiguity 41: city doubling also turns the attacker's 0 into 1 at odds above 7:1 (0/E -> 1/E).
    "city_doubling_above_7_1": True,
    # Ambiguity 40: every attacker across some water hexside, no single type for all: "1L" or "none".
    "mixed_water_shift": "1L",
    # Ambiguity 55: orders that would end a movement phase over-stacked are rejected ("reject").
    "overstack": "reject",
    # Ambiguity 33: advance after combat across the Sivash or Kerch by units that attacked across it.
    "advance_across_straits": True,
    # Full-game ([ADV]) combat rules, off in the basic game (A.4), each available on its own:
    "concentric_assault": False,  # 14.14
    "mountain_infantry": False,  # 14.17
    "step_loss_exceptions": False,  # 14.35 exceptions 1 and 2
    "soviet_cavalry_half": False,  # 14.36
    "fog_of_war": False,  # 14.7: in views, enemy stacks show their top unit only
    "weather": False,  # 13.1-13.10: a weather roll each player-turn sequence from GT7
    # Ambiguity 35: a modified SZ roll (NZ roll -2, 13.2) below 1 reads the table's row for 1.
    "sz_roll_below_table": "first-row",
    "untried_units": False,  # 2.15: a Soviet unit's counter is drawn when it first fights
}

OPTION_NOTES: dict[str, str] = {
    "ruleset": "A.4: 'basic' leaves out the [ADV] rules; 'full' switches on those implemented so far",
    "control_on_pass_through": "Ambiguity 6 (3.9): a unit passing through a town or city takes control",
    "city_doubling_above_7_1": "Ambiguity 41 (14.23): at odds above 7:1 the attacker's 0 in a city becomes 1",
    "mixed_water_shift": "Ambiguity 40 (14.19/14.20): all attackers across water of mixed types: '1L' or 'none'",
    "overstack": "Ambiguity 55 (6.2): orders ending a movement phase over-stacked are rejected",
    "advance_across_straits": "Ambiguity 33 (12.16): units that attacked across the Sivash/Kerch may advance across it",
    "concentric_assault": "[ADV] (14.14): 1R when attacking from opposite, alternating or four or more hexes",
    "mountain_infantry": "[ADV] (14.17): mountain infantry attacking into hills use their defense factor",
    "step_loss_exceptions": "[ADV] (14.35): attacker's first step from a tank; no elimination before all are reduced",
    "soviet_cavalry_half": "[ADV] (14.36): a Soviet cavalry step satisfies half a point of loss",
    "fog_of_war": "[ADV] (14.7): a side's view shows only the top unit of each enemy stack (refereed games)",
    "weather": "[ADV] (13.2): a weather roll each player-turn sequence from GT7, with the effects of 13.3-13.10",
    "sz_roll_below_table": "Ambiguity 35 (13.2): a modified SZ roll below 1: 'first-row' reads the row for 1, 'dry' gives D",
    "untried_units": "(2.15): Soviet 1-step units are untried; their counter is drawn from its pool when they first fight",
}

LOSS_POLICIES = ("fewest-steps-first", "most-steps-first", "ask")

# The full game (A.4): every [ADV] rule implemented so far is on, unless an option says otherwise.
FULL_GAME: dict[str, Any] = {
    "concentric_assault": True,
    "mountain_infantry": True,
    "step_loss_exceptions": True,
    "soviet_cavalry_half": True,
    "fog_of_war": True,
    "weather": True,
    "untried_units": True,
}

# The values each option may take (the first is the default).
OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "ruleset": ("basic", "full"),
    "control_on_pass_through": (True, False),
    "city_doubling_above_7_1": (True, False),
    "mixed_water_shift": ("1L", "none"),
    "overstack": ("reject",),
    "advance_across_straits": (True, False),
    "concentric_assault": (False, True),
    "mountain_infantry": (False, True),
    "step_loss_exceptions": (False, True),
    "soviet_cavalry_half": (False, True),
    "fog_of_war": (False, True),
    "weather": (False, True),
    "sz_roll_below_table": ("first-row", "dry"),
    "untried_units": (False, True),
}


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
        return f"GT{self.turn}/{self.pts}/{self.side}"


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
    triggers the sudden-death roll (even: the German wins at once).
    """
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
    if (side == "german" and hex_id in moscow and all(control.get(m) == "german" for m in moscow)
            and not ctx.position.get("moscow_rolled", False)):
        ctx.position["moscow_rolled"] = True
        if ctx.dice is None:
            ctx.emit("sudden-death", "4.6", face=None, collapse=None)
            return
        face = ctx.dice.roll(f"4.6|{ctx.step}|Moscow sudden death")
        collapse = face % 2 == 0
        ctx.emit("sudden-death", "4.6", face=face, collapse=collapse)
        if collapse:
            ctx.result = {"winner": "german", "rule": "4.6", "reason": f"Moscow sudden death: rolled {face} (even), the Soviet system collapses"}


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
    """The weather of the zone a hex is in (13.2)."""
    return zone_weather(ctx, ctx.sc.map.hexes[hex_id].zone)


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


# --- movement (12.x) ---------------------------------------------------------------------------

def hexside_cost(ctx: Ctx, unit: UnitSpec, a: str, b: str) -> tuple[int | str, str, list[str]]:
    """Cost of crossing the hexside a-b: 12.15 rivers (+1/+2), 12.16 Sivash/Kerch ("all"),
    all-sea/all-lake hexsides prohibited ("no"); 5.5: German-side units ignore rivers on GT1.
    Weather of the zone of the hex entered (Ambiguity 35): F ignores rivers (13.6); S ignores
    rivers, the Sivash and the Kerch, and lets units cross all-lake hexsides (13.7)."""
    total: int | str = 0
    rule = ""
    notes: list[str] = []
    for feat in sorted(ctx.sc.map.side_features(a, b)):
        if feat == "river" and ctx.turn == 1 and unit.side == "german":
            notes.append("river ignored on GT1 (5.5)")
            continue
        ignored = weather_ignores(ctx, feat, b)
        if not ignored and feat == "lake" and weather_at(ctx, b) == "S":
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
    return total, rule, notes


def hex_cost(ctx: Ctx, unit: UnitSpec, b: str) -> tuple[int | str, str, list[str]]:
    """Cost of entering hex b by its natural terrain (12.10-12.14; a city counts as clear, 12.10).
    Weather of b's zone (Ambiguity 35): F and S make swamp Dry clear (13.6, 13.7); M and S double
    the Dry in-hex cost (13.5, 13.7; Ambiguity 37); in S an all-lake hex may be crossed (13.7), at
    the cost of clear (the rules give none)."""
    h = ctx.sc.map.hexes[b]
    w = weather_at(ctx, b)
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
    if w in ("M", "S"):
        cost *= 2
        notes.append(f"in-hex costs doubled in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
    return cost, str(row.get("rule", "")), notes


def movement_allowance(ctx: Ctx, unit: str, start: str) -> tuple[int, list[str]]:
    """The MP a unit may spend in this movement phase: its movement factor (12.1), 1 less for a
    German-side unit in R (13.4; Soviet units are unaffected), by the weather of the zone of the hex
    where it began the phase (Ambiguity 59)."""
    mf = ctx.mf(unit)
    if ctx.spec(unit).side == "german" and weather_at(ctx, start) == "R":
        return max(mf - 1, 0), [f"rain: German-side movement allowance {mf} - 1 (13.4)"]
    return mf, []


@dataclass
class MoveTracker:
    """Per-phase movement bookkeeping: MP spent (12.2), start hexes (12.5), parent stacks (12.6)."""

    start: dict[str, str]
    spent: dict[str, int] = field(default_factory=dict)
    moved: set[str] = field(default_factory=set)
    open_group: str | None = None
    closed: set[str] = field(default_factory=set)
    last_order: dict[str, int] = field(default_factory=dict)  # the [[move]] that last moved each unit


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
        elif not ctx.on_map(u):
            problems.append(Problem(where, f"{u} is not on the map ({ctx.at(u)})", "12.22"))
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
        problems.append(Problem(where, "units that did not begin the phase stacked together cannot move as one stack", "12.5"))
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
    start_spent = {u: tr.spent.get(u, 0) for u in units}
    path: list[str] = []
    for j, raw in enumerate(path_in):
        c = ctx.sc.map.canonical(raw)
        if c is None:
            problems.append(Problem(f"{where}.path[{j}]", f"'{raw}' is not a hex of the map", "12.22"))
            return
        path.append(c)
    if not path:
        problems.append(Problem(where, "the path is empty: list every hex entered, in order", "12.1"))
        return
    enemy = other(side)
    mark = len(ctx.events)
    costs: dict[str, list[int]] = {u: [] for u in units}
    minimum = False
    notes: list[str] = []
    for j, nxt in enumerate(path):
        w = f"{where}.path[{j}] {current}->{nxt}"
        if nxt not in ctx.sc.map.neighbours(current):
            problems.append(Problem(w, f"{nxt} is not adjacent to {current}", "12.1", "Units move hex to adjacent hex."))
            return
        if ctx.occupants(nxt, enemy):
            problems.append(Problem(w, f"{nxt} holds enemy units", "12.4", "Attack it in the prepared-assault phase instead."))
            return
        for u in units:
            spec = ctx.spec(u)
            mf, mnotes = movement_allowance(ctx, u, tr.start[u])
            hc, hrule, hnotes = hex_cost(ctx, spec, nxt)
            sc_, srule, snotes = hexside_cost(ctx, spec, current, nxt)
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
                    rain = mf < ctx.mf(u) and spent + cost <= ctx.mf(u)  # short only because of 13.4
                    problems.append(Problem(w, f"{u} needs {cost} MP to enter {nxt} but has {mf - spent} of {mf} left"
                                               + (f" (movement factor {ctx.mf(u)} - 1 in rain)" if rain else ""),
                                            "13.4" if rain else "12.1",
                                            route_hint(ctx, u, origin, path[-1], mf - start_spent.get(u, 0))))
                    return
            tr.spent[u] = spent + cost
            costs[u].append(cost)
        for u in units:
            ctx.units[u]["at"] = nxt
            tr.moved.add(u)
            tr.last_order[u] = index
        if ctx.options["control_on_pass_through"] or j == len(path) - 1:
            enter_hex(ctx, side, nxt, "movement")
        if ctx.result:
            break
        current = nxt
    ctx.events.insert(mark, Event("move", "12.1", {
        "index": index, "units": units, "from": origin, "path": path, "costs": costs,
        "mp": {u: [tr.spent[u], movement_allowance(ctx, u, tr.start[u])[0]] for u in units}, "minimum": minimum,
        "notes": notes}))


def route_hint(ctx: Ctx, unit: str, origin: str, goal: str, mp: int) -> str:
    """For a move that runs out of MP: the cheapest legal path to the same hex, if one fits (17.9)."""
    spec = ctx.spec(unit)
    enemy = other(spec.side)

    def step(a: str, b: str) -> int | None:
        if ctx.occupants(b, enemy):
            return None
        hc, _, _ = hex_cost(ctx, spec, b)
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
    """6.1: 5 units per hex (the 10-unit city limit of 6.5 is a full-game rule)."""
    return ctx.sc.charts.stacking_limit


def check_lake_ends(ctx: Ctx, side: str, tr: MoveTracker, problems: list[Problem]) -> None:
    """13.7: in snow units may cross all-lake hexes but may not end their move in one."""
    for u in sorted(tr.moved):
        h = ctx.at(u)
        hx = ctx.sc.map.hexes.get(h)
        if ctx.spec(u).side == side and hx is not None and hx.terrain == "lake":
            problems.append(Problem(f"move[{tr.last_order[u]}]", f"{u} would end its move in the all-lake hex {h}; "
                                    "in snow units may cross lakes but not stop in them", "13.7",
                                    "Continue the move out of the lake in the same order."))


def check_stacking(ctx: Ctx, side: str, where: str, problems: list[Problem]) -> None:
    """6.2: stacking is enforced at the end of every movement phase (Ambiguity 55: reject)."""
    for o in overstacked(ctx.stacks(side).items(), lambda u: stacking_value(ctx.spec(u)), lambda h: stacking_limit(ctx, h)):
        problems.append(Problem(where, f"{o.hex} would hold {o.value} units at the end of the movement phase; the limit is {o.limit}", "6.1",
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
        for u in units:
            if u not in ctx.units:
                problems.append(Problem(where, f"unknown unit '{u}'", "14.3"))
                continue
            if ctx.spec(u).side != side:
                problems.append(Problem(where, f"{u} is not a {side} unit", "14.1"))
                continue
            if not ctx.on_map(u):
                problems.append(Problem(where, f"{u} is not on the map", "14.1"))
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
        for key in ("losses", "advance"):
            for u in a.get(key, []):
                if u not in units:
                    problems.append(Problem(f"{where}.{key}", f"{u} is not one of this attack's units", "14.35" if key == "losses" else "14.39"))
        pol = a.get("loss_policy")
        if pol is not None and pol not in LOSS_POLICIES:
            problems.append(Problem(f"{where}.loss_policy", f"'{pol}' is not one of {', '.join(LOSS_POLICIES)}", "14.35"))
    return problems


@dataclass
class Decision(Exception):
    """Raised when a decision is needed that the orders and standing instructions do not cover."""

    side: str
    attack: int
    role: str
    question: dict[str, Any]


def attack_strength(ctx: Ctx, units: list[str], target: str) -> tuple[int, list[dict[str, Any]]]:
    """Attack total (14.8) with 14.18 (armor into swamp halved) and 14.20 (armor across straits = 1);
    in F and S swamp counts as clear (13.6, 13.7) and in S the Sivash and Kerch are ignored (13.7)."""
    rows = []
    plain = 0
    halved = 0
    swamp = combat_terrain(ctx, target) == "swamp"
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
        if spec.type in ARMOR and feats & {"sivash", "kerch"}:
            row["factor"] = 1
            row["notes"].append("armor across Sivash/Kerch: 1 (14.20)")
            plain += 1
        elif spec.type in ARMOR and swamp:
            row["notes"].append("armor attacking into swamp: halved (14.18)")
            halved += a
        else:
            if spec.type in ARMOR and ctx.sc.map.hexes[target].terrain == "swamp":
                w = weather_at(ctx, target)
                row["notes"].append(f"not halved: swamp counts as clear in {WEATHER_NAMES[w]} ({WEATHER_RULES[w]})")
            plain += a
        rows.append(row)
    total = plain + (halve_round_up(halved) if halved else 0)
    return total, rows


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
    if ctx.options["concentric_assault"] and concentric(ctx, units, target):
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
    (Ambiguity 39: number the six neighbours 0-5; any three but three contiguous ones qualify)."""
    dirs = {unit_direction(ctx, target, ctx.at(u)) for u in units}
    dirs.discard(None)
    if len(dirs) >= 4:
        return True
    return any(d is not None and (d + 3) % 6 in dirs for d in dirs) or dirs in ({0, 2, 4}, {1, 3, 5})


def policy_for(ctx: Ctx, side: str, attack: dict[str, Any] | None) -> tuple[list[str], str, str]:
    """Loss order and policy: the attack order's own (attacker), else the side's standing
    instructions, else 'ask' (the adjudication stops and awaits that side's reply, docs/protocol.md)."""
    st = ctx.standing.get(side, {})
    order: list[str] = []
    source = "standing instructions"
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
    counts 1/2)."""
    rules_: dict[str, Any] = {"weight": {}, "first_from": [], "spread": False}
    if ctx.options["step_loss_exceptions"]:
        rules_["spread"] = True
        if role == "attacker":
            rules_["first_from"] = [u for u in units if ctx.spec(u).type == "tank"]
    if ctx.options["soviet_cavalry_half"]:
        rules_["weight"] = {u: "1/2" for u in units if ctx.spec(u).side == "soviet" and ctx.spec(u).type == "cavalry"}
    return rules_


def allocate_with(alive: list[tuple[str, int]], loss: int, order: list[str], policy: str, r: dict[str, Any]) -> list[Loss]:
    return allocate(alive, loss, order, policy, weight={u: Fraction(w) for u, w in r["weight"].items()},
                    first_from=r["first_from"], spread=r["spread"])


def take_losses(ctx: Ctx, side: str, role: str, units: list[str], loss: int | None, attack_index: int,
                attack: dict[str, Any] | None, decisions: dict[str, Any]) -> list[Loss]:
    """14.32/14.35 (first paragraph): a result is absorbed by step losses, divided as the owner
    chooses; E eliminates every participating defender (14.38)."""
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
            order, policy, source = policy_for(ctx, side, attack if role == "attacker" else None)
            try:
                losses = allocate_with(alive, loss, order, policy, r)
            except NeedsDecision as e:
                raise Decision(side, attack_index, role, {
                    "kind": "losses", "rule": "14.35", "loss": loss, "steps": min(loss, sum(s for _, s in alive)),
                    "units": {u: s for u, s in alive}, "constraints": r, "text": str(e),
                }) from e
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
    defenders = ctx.occupants(target, enemy)
    if not defenders or not attackers:
        ctx.emit("attack-skipped", "14.5", index=i, target=target,
                 reason="the hex holds no enemy unit any more" if not defenders else "no attacker is left")
        return
    reveal_untried(ctx, i, attackers, defenders)
    att_total, att_rows = attack_strength(ctx, attackers, target)
    def_rows: list[dict[str, Any]] = [{"unit": u, "factor": ctx.factors(u)[1]} for u in defenders]
    def_total = sum(r["factor"] for r in def_rows)
    odds = Odds.of(att_total, def_total)
    shifts = attack_shifts(ctx, attackers, target)
    final = apply_shifts(odds, shifts)
    crt = ctx.sc.charts.crt
    auto = crt.automatic(final)
    face: int | None = None
    label = ""
    provisional = False
    if auto is not None:
        result = auto
    else:
        if ctx.dice is None:
            raise RuntimeError("a die is needed, but this is a check without dice")
        label = f"14.31|{ctx.step}|attack {i + 1}|{target}|CRT"
        face = ctx.dice.roll(label)
        result = crt.lookup(final, face)
        provisional = crt.cell_is_provisional(final, face)
    att_loss, def_loss = result.attacker, result.defender
    city = ctx.sc.map.hexes[target].settlement == "city"
    doubling = None
    if city:
        below = final < crt.first
        new_att = att_loss * 2 if (att_loss or below) else 1
        if auto is not None and final > crt.last and not ctx.options["city_doubling_above_7_1"]:
            new_att = att_loss * 2
        new_def = None if def_loss is None else (def_loss * 2 if (def_loss or below) else 1)
        doubling = {"from": result.label, "attacker": new_att, "defender": new_def}
        att_loss, def_loss = new_att, new_def
    h = ctx.sc.map.hexes[target]
    extra: dict[str, Any] = {}
    if ctx.options.get("weather", False):  # the weather of the defender's zone (Ambiguity 35)
        extra["weather"] = {"zone": h.zone, "weather": weather_at(ctx, target),
                            "ignored": sorted({n for u in attackers for f in ctx.sc.map.side_features(ctx.at(u), target)
                                               if (n := weather_ignores(ctx, f, target))})}
    ctx.emit("attack", "14.31", index=i, target=target, place=h.place, terrain=h.terrain, settlement=h.settlement,
             attackers=att_rows, defenders=def_rows, attack_total=att_total, defense_total=def_total,
             odds=odds.label, shifts=[{"label": s.label, "rule": s.rule, "reason": s.reason} for s in shifts],
             final=final.label, automatic=auto is not None, die=face, label=label, result=result.label,
             provisional=provisional, city=doubling,
             outcome=f"{att_loss}/{'E' if def_loss is None else def_loss}", **extra)
    # 14.32: the defender always absorbs its full result before the attacker absorbs his.
    take_losses(ctx, enemy, "defender", defenders, def_loss, i, None, decisions)
    take_losses(ctx, side, "attacker", attackers, att_loss, i, a, decisions)
    if not ctx.occupants(target, enemy):
        advance_after_combat(ctx, i, a, target)


def counter_pool(ctx: Ctx, unit: str) -> list[str]:
    """2.15: the counters an untried unit may turn out to be: the printed attack-defense of every
    Soviet 1-step counter of the scenario of its type, size and MF (what its back shows), less those
    already drawn for tried units, eliminated ones included (each counter enters play once).
    Sorted by attack, then defense."""
    key = pool_key(ctx.spec(unit))
    left: dict[str, int] = {}
    for spec in ctx.sc.units.values():
        if can_be_untried(spec) and pool_key(spec) == key:
            left[counter_values(spec)] = left.get(counter_values(spec), 0) + 1
    for u, st in ctx.units.items():
        drawn = st.get("tried")
        if drawn is not None and pool_key(ctx.spec(u)) == key and left.get(drawn, 0) > 0:
            left[drawn] -= 1
    pool = [v for v, n in left.items() for _ in range(n)]
    return sorted(pool, key=lambda v: tuple(int(x) for x in v.split("-")))


def reveal_untried(ctx: Ctx, i: int, attackers: list[str], defenders: list[str]) -> None:
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
                label = f"2.15|{ctx.step}|attack {i + 1}|{u}|counter"
                face = ctx.dice.roll(label, len(pool))
                drawn = pool[face - 1]
            ctx.units[u]["tried"] = drawn
            spec = ctx.spec(u)
            ctx.emit("reveal", "2.15", index=i, unit=u, role=role, type=spec.type, size=spec.size, mf=ctx.mf(u),
                     pool=pool, die=face, label=label, counter=f"{drawn}-{ctx.mf(u)}")


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
        here = sum(stacking_value(ctx.spec(x)) for x in ctx.occupants(target, ctx.side))
        if here + stacking_value(ctx.spec(u)) > limit:
            refused.append({"unit": u, "why": f"the hex would exceed the stacking limit of {limit} (6.1)"})
            continue
        ctx.units[u]["at"] = target
        moved.append(u)
    if moved or refused:
        ctx.emit("advance", "14.39", index=i, hex=target, units=moved, refused=refused)
    if moved:
        enter_hex(ctx, ctx.side, target, "advance after combat")


# --- turn structure ----------------------------------------------------------------------------

def reinforcements(ctx: Ctx, turn: int) -> None:
    """8.1: this GT's reinforcements appear at their scenario entry hex in the MR phase; a unit whose
    entry hex is enemy-occupied or full is delayed to the next GT (8.1 allows delay)."""
    for t, u, hex_id in ctx.sc.reinforcements:
        if u not in ctx.units or ctx.units[u]["at"] != "track" or t > turn:
            continue
        side = ctx.spec(u).side
        if side == "soviet" and turn == 1:
            continue  # 8.7: no Soviet reinforcements on GT1
        here = ctx.occupants(hex_id, side)
        if ctx.occupants(hex_id, other(side)):
            ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=False, why="the entry hex holds enemy units; delayed")
            continue
        if len(here) + 1 > stacking_limit(ctx, hex_id):
            ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=False, why="the entry hex is full (6.1); delayed")
            continue
        ctx.units[u]["at"] = hex_id
        ctx.emit("reinforcement", "8.1", unit=u, hex=hex_id, placed=True, why="")
        enter_hex(ctx, side, hex_id, "reinforcement")


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
    return copy.deepcopy(ctx.position)


def unit_direction(ctx: Ctx, a: str, b: str) -> int | None:
    n = ctx.sc.map.numbering
    return direction(n.parse(a), n.parse(b))
