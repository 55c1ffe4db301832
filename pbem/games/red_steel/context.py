"""The working context of a Red Steel step: the scenario, a working copy of the position, the
options, the standing instructions, the dice and the events so far; and what every rule asks of
it: where units are, their values after supply, isolation, disruption and demoralization (T5),
zones of control (4.x), control of hexes (2.1, A-2), distances and adjacency.

A unit's state in the position (``units[ID]``): ``at`` (a hex, or one of data.OFF_MAP), ``lost``
(steps lost, 17.1), and when they apply ``status`` (disrupted | demoralized, 13.x), ``supply``
(oos | isolated, 7.x), ``mode`` (towed | deployed, artillery 11.1), ``ammo`` (volleys left, 11.23),
``flags`` (what it did this player turn: moved, strategic, attacked, forded, replaced, no-move,
built, fired, class-mot, class-foot, entered) and ``since`` (the turn a construction started).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pbem.engine.model import Event
from pbem.mechanics.dice import Dice
from pbem.mechanics.hexgrid import hexside_key
from pbem.mechanics.odds import halve_round_up

from . import options as opts
from .data import AXIS, ELIMINATED, OFF_MAP, SOVIET, Scenario, StepValues, Turn, UnitSpec, load_scenario

DISRUPTED, DEMORALIZED = "disrupted", "demoralized"  # 13.1, 13.2
OOS, ISOLATED = "oos", "isolated"  # 7.6, 7.8
TOWED, DEPLOYED = "towed", "deployed"  # 11.1
FULL_AMMO = 2  # 11.23: two volleys


def other(side: str) -> str:
    return SOVIET if side == AXIS else AXIS


def step_name(turn: int, side: str, phase: str) -> str:
    """The step of a player turn's phase: ``T3/axis/move``, ``T3/soviet/combat``."""
    return f"T{turn}/{side}/{phase}"


@dataclass
class Ctx:
    sc: Scenario
    turn: int
    side: str  # the phasing side
    phase: str
    units: dict[str, dict[str, Any]]
    pos: dict[str, Any]  # the rest of the position: control, entrenchments, bridges, ammo, ...
    options: dict[str, Any]
    standing: dict[str, dict[str, Any]]
    dice: Dice | None = None
    events: list[Event] = field(default_factory=list)
    secret: bool = False  # a game without a referee: 16.0's draw, 15.14's reserve are the owner's hidden values
    claims: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (owner, item, claim) recorded on hidden values
    draws: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (side, item, request): hidden draws asked
    _where: dict[str, list[str]] | None = None
    _zoc: dict[str, frozenset[str]] = field(default_factory=dict)

    # --- events and dice --------------------------------------------------------------------------
    def emit(self, kind: str, rule: str, /, **data: Any) -> None:
        self.events.append(Event(kind, rule, data))

    def roll(self, label: str, n: int = 1) -> list[int]:
        """``n`` six-sided dice under ``label`` (each die its own label: ``label#1``...)."""
        assert self.dice is not None, "a rule rolled while only checking"
        if n == 1:
            return [self.dice.roll(label)]
        return [self.dice.roll(f"{label}#{i + 1}") for i in range(n)]

    def option(self, name: str) -> Any:
        return opts.get(self.options, name)

    # --- time -------------------------------------------------------------------------------------
    @property
    def time(self) -> Turn:
        return self.sc.turn(self.turn)

    @property
    def night(self) -> bool:
        return self.time.night

    @property
    def last_turn(self) -> int:
        return int(self.option("turns")) or self.sc.last_turn

    @property
    def control(self) -> dict[str, str]:
        ctl: dict[str, str] = self.pos["control"]
        return ctl

    # --- where units are --------------------------------------------------------------------------
    def spec(self, u: str) -> UnitSpec:
        return self.sc.units[u]

    def side_of(self, u: str) -> str:
        return self.sc.units[u].side

    def at(self, u: str) -> str:
        return str(self.units[u]["at"])

    def on_map(self, u: str) -> bool:
        return self.units[u]["at"] not in OFF_MAP

    def _index(self) -> dict[str, list[str]]:
        if self._where is None:
            where: dict[str, list[str]] = {}
            for u, s in sorted(self.units.items()):
                if s["at"] not in OFF_MAP:
                    where.setdefault(str(s["at"]), []).append(u)
            self._where = where
        return self._where

    def units_in(self, hex_id: str) -> list[str]:
        """The units in a hex, sorted by id."""
        return list(self._index().get(hex_id, ()))

    def side_units(self, side: str) -> list[str]:
        return [u for u in sorted(self.units) if self.on_map(u) and self.side_of(u) == side]

    def holder(self, hex_id: str) -> str | None:
        """The side whose units are in a hex (5.62: a hex holds one side's units), or None."""
        us = self.units_in(hex_id)
        return self.side_of(us[0]) if us else None

    def place(self, u: str, where: str) -> None:
        """Put a unit somewhere (a hex, or off the map): the one way a unit's ``at`` changes."""
        self.units[u]["at"] = where
        self.changed()

    def changed(self) -> None:
        """Forget what was worked out from the position (after a unit moved, or its steps, mode or
        ammunition changed)."""
        self._where = None
        self._zoc = {}

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.sc.map.grid.neighbours(a)

    def distance(self, a: str, b: str) -> int:
        return self.sc.map.grid.distance(a, b)

    def neighbours(self, h: str) -> tuple[str, ...]:
        return self.sc.map.grid.neighbours(h)

    def features(self, a: str, b: str) -> frozenset[str]:
        return self.sc.map.features(a, b)

    def bridged(self, a: str, b: str) -> bool:
        """5.5, 5.61, 7.5, 17.41: the hexside between two adjacent hexes has a bridge: a printed one,
        or one placed by a bridging engineer (``bridges``, state "placed"); a bridge still being
        built is none."""
        if "bridge" in self.features(a, b):
            return True
        placed = self.pos.get("bridges", {}).get(hexside_key(a, b))
        return placed is not None and placed.get("state") == "placed"

    def nearest_enemy(self, h: str, side: str) -> int | None:
        """The distance from a hex to the nearest unit of the other side on the map, or None."""
        ds = [self.distance(h, self.at(u)) for u in self.side_units(other(side))]
        return min(ds) if ds else None

    # --- flags ------------------------------------------------------------------------------------
    def flags(self, u: str) -> list[str]:
        return list(self.units[u].get("flags", []))

    def flagged(self, u: str, flag: str) -> bool:
        return flag in self.units[u].get("flags", ())

    def flag(self, u: str, flag: str) -> None:
        fl = self.units[u].setdefault("flags", [])
        if flag not in fl:
            fl.append(flag)
            fl.sort()

    # --- values (T5) ------------------------------------------------------------------------------
    def steps_left(self, u: str) -> int:
        return len(self.spec(u).steps) - int(self.units[u].get("lost", 0))

    def printed(self, u: str) -> StepValues:
        """The values printed for the unit's current step (17.1)."""
        return self.spec(u).steps[int(self.units[u].get("lost", 0))]

    def status(self, u: str) -> str:
        return str(self.units[u].get("status", ""))

    def supply(self, u: str) -> str:
        return str(self.units[u].get("supply", ""))

    def attack(self, u: str) -> int:
        """9.12: attack strength after supply (7.61, 7.8), then disruption (13.1, A-66) or
        demoralization (13.2, A-67); 9.63: each pair never both."""
        v = self.printed(u).a
        if self.supply(u) == ISOLATED:
            v = halve_round_up(v)
        elif self.supply(u) == OOS:
            v = max(1, v - 1) if v > 0 else 0
        if self.status(u) == DEMORALIZED:
            v = halve_round_up(v)
        elif self.status(u) == DISRUPTED and self.spec(u).size in ("battalion", "regiment") and v > 2:
            v = max(2, v - 1)
        return v

    def defense(self, u: str) -> int:
        """9.13: defense strength after isolation (7.8) and demoralization (13.2, A-67)."""
        v = self.printed(u).d
        if self.supply(u) == ISOLATED:
            v = halve_round_up(v)
        if self.status(u) == DEMORALIZED:
            v = halve_round_up(v)
        return v

    def _reduced(self, u: str, v: int, cut: int) -> int:
        """7.8, 13.2, T5: a value less ``cut`` if the unit is isolated and ``cut`` again if it is
        demoralized, never to 0 (A-33: a value of 0 stays 0)."""
        for hit in (self.supply(u) == ISOLATED, self.status(u) == DEMORALIZED):
            if hit and v:
                v = max(1, v - cut)
        return v

    def morale(self, u: str) -> int:
        """9.7, 13.31 (A-52: current morale): -1 isolated (7.8) and -1 demoralized (13.2), never to 0 (A-33)."""
        return self._reduced(u, self.printed(u).m, 1)

    def armor(self, u: str) -> int:
        """10.x: armor, -2 isolated (7.8) and -2 demoralized (13.2), never to 0 (A-33)."""
        return self._reduced(u, self.printed(u).ar, 2)

    def anti_armor(self, u: str) -> int:
        """10.x: anti-armor, -1 isolated (7.8) and -1 demoralized (13.2), never to 0 (A-33)."""
        return self._reduced(u, self.printed(u).aa, 1)

    def klass(self, u: str) -> str:
        """The movement class this player turn (2.1; 17.7: a motorcycle unit's choice, A-87: the class
        it moved with; A-48: motorized when it has not moved)."""
        k = self.spec(u).move
        if k == "motorcycle":
            return "foot" if self.flagged(u, "class-foot") else "mot"
        return k

    def motorized(self, u: str) -> bool:
        return self.klass(u) in ("mot", "mech")

    def ma(self, u: str) -> int:
        """5.0, T5: the MA after supply (7.62), isolation (7.8) and demoralization (13.2)."""
        v = self.printed(u).ma
        mot = self.motorized(u)
        if self.supply(u) == ISOLATED:
            v -= 4 if mot else 1
        elif self.supply(u) == OOS and mot:
            v -= 2
        if self.status(u) == DEMORALIZED:
            v -= 4 if mot else 2
        return max(0, v)

    # --- zones of control (4.x) ---------------------------------------------------------------------
    def zoc_attack(self, u: str) -> int:
        """A-14: the attack strength that counts for 4.1 (printed by default)."""
        return self.printed(u).a if self.option("zoc_values") == "printed" else self.attack(u)

    def exerts_zoc(self, hex_id: str) -> bool:
        """4.1: the units in a hex have a ZOC when their attack strengths total 3 or more, or when
        one of them is deployed artillery with ammunition."""
        us = [u for u in self.units_in(hex_id) if self.spec(u).type != "monitor"]  # monitors have no ZOC
        if sum(self.zoc_attack(u) for u in us) >= 3:
            return True
        return any(self.spec(u).type == "artillery" and self.units[u].get("mode") == "deployed" and int(self.units[u].get("ammo", 0)) > 0
                   for u in us)

    def zoc_crosses(self, a: str, b: str) -> bool:
        """4.0, 4.2, A-13: a ZOC extends across a hexside the unit could cross, never across the Prut."""
        return "prut" not in self.features(a, b)

    def zoc_of(self, side: str) -> frozenset[str]:
        """Every hex in the ZOC of ``side``'s units (worked out once until a unit moves or changes:
        ``changed``)."""
        hit = self._zoc.get(side)
        if hit is not None:
            return hit
        out: set[str] = set()
        for h, us in self._index().items():
            if self.side_of(us[0]) != side or not self.exerts_zoc(h):
                continue
            classes = {self.klass(u) for u in us if self.spec(u).type != "monitor"}
            out.update(n for n in self.neighbours(h) if self.zoc_crosses(h, n) and any(self.could_enter(k, n) for k in classes))
        self._zoc[side] = frozenset(out)
        return self._zoc[side]

    def could_enter(self, klass: str, h: str) -> bool:
        """4.0, A-13: whether a unit of the movement class could enter the hex at all (the TEC's
        prohibited terrain, 5.11: the least favourable terrain of the hex)."""
        p = self.sc.map.hex(h)
        tec = self.sc.charts.tec.terrain
        rows = [p.terrain, *(["town"] if p.town else []), *(["city"] if p.city else [])]
        return all(tec[r].cost(klass) is not None for r in rows if r in tec)

    def in_enemy_zoc(self, h: str, side: str) -> bool:
        return h in self.zoc_of(other(side))

    def zoc_control(self, rule: str) -> None:
        """2.1, A-2: an empty hex that only one side's ZOC reaches becomes that side's (a contested
        hex keeps its controller; an occupied one is its occupant's, 5.1); one ``control`` event
        lists the hexes that changed hands."""
        gained: dict[str, list[str]] = {}
        for side in (AXIS, SOVIET):
            for h in sorted(self.zoc_of(side) - self.zoc_of(other(side))):
                if self.control.get(h) != side and not self.units_in(h):
                    self.control[h] = side
                    gained.setdefault(side, []).append(h)
        if gained:
            self.emit("control", rule, gained=gained)

    # --- stacking (6.x) ---------------------------------------------------------------------------
    def stack_value(self, hex_id: str, extra: list[str] | None = None) -> Fraction:
        """6.1, 6.5, T3: battalion-equivalents in a hex: the first HQ free, each further HQ a company;
        A-85: river monitors count nothing."""
        us = [u for u in [*self.units_in(hex_id), *(extra or [])] if self.spec(u).type != "monitor"]
        total = sum((self.spec(u).stack_value(int(self.units[u].get("lost", 0))) for u in us), Fraction(0))
        hqs = sum(1 for u in us if self.spec(u).size == "hq")
        return total + Fraction(max(0, hqs - 1), 3)

    # --- losses -----------------------------------------------------------------------------------
    def lose_step(self, u: str, rule: str, why: str) -> bool:
        """One step lost (17.1: artillery is eliminated by it); True when the unit is eliminated."""
        if self.spec(u).artillery or self.steps_left(u) <= 1:
            self.eliminate(u, rule, why)
            return True
        self.units[u]["lost"] = int(self.units[u].get("lost", 0)) + 1
        self.changed()
        self.emit("step-lost", rule, unit=u, why=why, left=self.steps_left(u))
        return False

    def eliminate(self, u: str, rule: str, why: str) -> None:
        was = self.at(u)
        self.place(u, ELIMINATED)
        for k in ("status", "supply", "mode", "ammo", "flags", "since"):
            self.units[u].pop(k, None)
        self.units[u]["lost"] = len(self.spec(u).steps)
        self.emit("eliminated", rule, unit=u, at=was, why=why)

    def disrupt(self, u: str, level: str, rule: str) -> None:
        """9.21, 13.1, 13.2, T5: d disrupts (a disrupted unit becomes demoralized), Z demoralizes
        (a demoralized unit loses a step); A-68: d on a demoralized unit as the option says."""
        cur = self.status(u)
        if level == DEMORALIZED or cur == DISRUPTED:
            if cur == DEMORALIZED:
                if level == DEMORALIZED or self.option("d_on_demoralized") == "step":
                    self.lose_step(u, "13.2", "demoralized again")
                return
            self.units[u]["status"] = DEMORALIZED
            self.emit("status", rule, unit=u, status=DEMORALIZED)
        elif cur == "":
            self.units[u]["status"] = DISRUPTED
            self.emit("status", rule, unit=u, status=DISRUPTED)


def context(state: dict[str, Any], dice: Dice | None = None, side: str | None = None) -> Ctx:
    """A working context on a state (or a view): everything it changes is a copy."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    c = state["clock"]
    pos = copy.deepcopy(state["position"])
    units = pos.pop("units")
    return Ctx(sc, int(c["turn"]), side or str(c["side"]), str(c.get("phase", "")), units, pos,
               dict(state.get("options", {})), copy.deepcopy(state.get("standing", {})), dice,
               secret="referee" not in state.get("parties", {"referee": {}}))


def position_of(ctx: Ctx) -> dict[str, Any]:
    """The position a context has reached, as a state holds it (keys sorted)."""
    out: dict[str, Any] = {"units": {u: dict(sorted(s.items())) for u, s in sorted(ctx.units.items())}}
    for k, v in sorted(ctx.pos.items()):
        out[k] = v
    out["control"] = dict(sorted(ctx.control.items()))
    return out
