"""The working context of a Europe Engulfed step: the scenario, a working copy of the position, the
options, the standing instructions, the dice and the events so far; and what every rule asks of
it: where blocks are and what is known of them, control and contested areas (Glossary), weather
(1.1), special actions (7.1), and the claims a rule makes on a hidden block (fog of war).

A block's state in the position (``units[ID]``, docs/europe-engulfed.md): ``nation``, ``elite``,
``at`` (an area, fortress or box), ``block`` and ``steps`` when known to everybody, ``item`` (the
hidden item holding them) when hidden, ``oos`` (oos | oos-moved: 1.21, 3.5), ``flags`` (what it did
this player-turn: moved, strat, dropped, invaded, pinned, sea-supply, entered:AREA ...).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.mechanics.dice import Dice

from . import options as opts
from . import parties as pty
from .data import ALLIES, AXIS, NEUTRAL, NEUTRALS, VICHY, Area, Scenario, Turn, load_scenario

NEW, OLD = "new", "old"  # contested: newly (6.1, Glossary "Newly Contested Area") or before
OOS, OOS_MOVED = "oos", "oos-moved"  # 1.21, 3.5
INFANTRY_CLASS = frozenset({"infantry", "militia", "cavalry", "airborne"})  # Glossary "Infantry-Class Units"
TWO_AREA = frozenset({"armor", "cavalry"})  # 5.12
SETUP, MOVE, COMBAT, BREAKTHROUGH, GAME_OVER = "setup", "move", "combat", "breakthrough", "game-over"


def other(side: str) -> str:
    return ALLIES if side == AXIS else AXIS


def step_name(turn: Turn, side: str, phase: str, n: int = 0) -> str:
    """The step of a player-turn's phase: ``1941-may/axis/move``, ``1941-may/axis/breakthrough/2``."""
    return f"{turn.key}/{side}/{phase}" + (f"/{n}" if n else "")


def nation_code(nation: str) -> str:
    """The start of a nation's block ids (``de.07``): its block types' prefix (units.toml)."""
    return {"germany": "de", "italy": "it", "finland": "fi", "romania": "ro", "hungary": "hu", "bulgaria": "bg",
            "britain": "gb", "usa": "us", "france": "fr", "ussr": "su"}.get(nation, "nt")


@dataclass
class Ctx:
    sc: Scenario
    turn: Turn
    side: str  # the phasing side (6.1: the attacker)
    phase: str
    units: dict[str, dict[str, Any]]
    pos: dict[str, Any]  # the rest of the position: gs, control, contested, fortifications, sa, ...
    options: dict[str, Any]
    standing: dict[str, dict[str, Any]]
    dice: Dice | None = None
    events: list[Event] = field(default_factory=list)
    secret: bool = False  # fog of war without a referee: block types and steps are the owners' hidden values
    step: str = ""  # the step being adjudicated (dice labels)
    claims: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (owner, item, claim) on hidden blocks
    scratch: dict[str, Any] = field(default_factory=dict)  # bookkeeping of the phase in progress (movement.py: what
    #   moved in it); cleared by movement.end_phase, never saved in the state
    _where: dict[str, list[str]] | None = None
    party_standing: dict[str, dict[str, Any]] | None = None  # three players: the standing by party (``standing`` holds
    #   the Allied parties' merged under "allies", parties.py)

    # --- events, dice, options ------------------------------------------------------------------
    def emit(self, kind: str, rule: str, /, **data: Any) -> None:
        self.events.append(Event(kind, rule, data))

    def roll(self, label: str, n: int = 1) -> list[int]:
        """``n`` six-sided dice under ``label`` (labels ``rule|step|area|purpose``; die i of several
        is ``label#i``)."""
        assert self.dice is not None, "a rule rolled while only checking"
        if n == 1:
            return [self.dice.roll(label)]
        return [self.dice.roll(f"{label}#{i + 1}") for i in range(n)]

    def option(self, name: str) -> Any:
        return opts.get(self.options, name)

    # --- what is known of a block ---------------------------------------------------------------
    def nation(self, u: str) -> str:
        return str(self.units[u]["nation"])

    def side_of(self, u: str) -> str:
        return self.side_of_nation(self.nation(u))

    def side_of_nation(self, nation: str) -> str:
        """A nation's side: a major or Axis minor by its data; a neutral minor the side opposite the
        one at war with it (Part II: minors invaded by the Axis are the Allies'), Allies when none is."""
        n = self.sc.units.nations.get(nation)
        if n is not None and n.side in (AXIS, ALLIES):
            return n.side
        if n is not None and n.pool:
            return self.sc.units.side_of(nation)
        for a, b in self.war_pairs():
            if nation in (a, b):
                enemy = b if a == nation else a
                s = self.side_of_nation(enemy) if enemy != nation else ALLIES
                return other(s) if s in (AXIS, ALLIES) else ALLIES
        return ALLIES

    # --- parties (three players, parties.py) ------------------------------------------------------
    def party_of_nation(self, nation: str) -> str:
        """The party that plays a nation: its side in a two-player game; with three players the
        Allied nations are the ``west``'s or the ``ussr``'s (Part II)."""
        return pty.party_of_nation(self.options, nation, self.side_of_nation(nation))

    def party_of(self, u: str) -> str:
        """The party that owns a block (its hidden values' owner)."""
        return self.party_of_nation(self.nation(u))

    def party_units(self, party: str) -> list[str]:
        return [u for u in sorted(self.units) if self.party_of(u) == party]

    def set_standing(self, party: str, standing: dict[str, Any]) -> None:
        """A file's [standing] replaces its party's (the rules read the side's, merged)."""
        if self.party_standing is None:
            self.standing[party] = copy.deepcopy(standing)
            return
        self.party_standing[party] = copy.deepcopy(standing)
        self.standing = pty.merged_standing(self.options, self.party_standing)

    def standing_out(self) -> dict[str, dict[str, Any]]:
        """The standing instructions as the state records them (by party)."""
        return self.party_standing if self.party_standing is not None else self.standing

    def block(self, u: str) -> str | None:
        """The unit's block type (units.toml), None when hidden from the reader."""
        b = self.units[u].get("block")
        return str(b) if b else None

    def kind(self, u: str) -> str | None:
        """Its unit type (D-5: infantry, militia, cavalry, airborne, armor), None when hidden."""
        b = self.block(u)
        return self.sc.units.blocks[b].type if b else None

    def klass(self, u: str) -> str | None:
        """Its fire and loss class (6.25): "infantry" or "armor", None when hidden."""
        k = self.kind(u)
        return None if k is None else ("armor" if k == "armor" else "infantry")

    def steps(self, u: str) -> int | None:
        s = self.units[u].get("steps")
        return int(s) if s is not None else None

    def max_steps(self, u: str) -> int | None:
        b = self.block(u)
        return self.sc.units.blocks[b].steps if b else None

    def elite(self, u: str) -> bool:
        return bool(self.units[u].get("elite", False))

    def known(self, u: str) -> bool:
        return self.block(u) is not None

    def possible_blocks(self, u: str) -> list[str]:
        """The block types the unit may be: its own when known, else those of its nation and elite."""
        b = self.block(u)
        if b:
            return [b]
        nat, el = self.nation(u), self.elite(u)
        owners = {nat, NEUTRAL} if nat in NEUTRALS else {nat}  # a neutral minor's blocks are the brown pool's (D-4)
        return sorted(k for k, bt in self.sc.units.blocks.items() if bt.nation in owners and bt.elite == el)

    def need(self, u: str, types: frozenset[str] | set[str], rule: str, why: str) -> bool:
        """The rule needs the unit's type among ``types``. Known: whether it is. Hidden: whether it
        could be, and a claim is recorded on its item (checked when it is opened)."""
        k = self.kind(u)
        if k is not None:
            return k in types
        ok = any(self.sc.units.blocks[b].type in types for b in self.possible_blocks(u))
        if ok:
            self.claim(u, {"types": sorted(types), "rule": rule, "why": why})
        return ok

    def need_steps(self, u: str, op: str, n: int, rule: str, why: str) -> bool:
        """The rule needs the unit's steps ``op`` ``n`` (op ">=", "==", "<=", or "full": at full
        strength, n unused). Known: whether they are. Hidden: whether they could be (a claim)."""
        s = self.steps(u)
        if s is not None:
            full = self.max_steps(u) or s
            return {">=": s >= n, "==": s == n, "<=": s <= n, "full": s == full}[op]
        tops = [self.sc.units.blocks[b].steps for b in self.possible_blocks(u)]
        ok = bool(tops) and (op == "full" or op == "<=" and n >= 1 or op in (">=", "==") and max(tops) >= n)
        if ok:
            self.claim(u, {"steps": op, "n": n, "rule": rule, "why": why})
        return ok

    def claim(self, u: str, claim: dict[str, Any]) -> None:
        item = self.units[u].get("item")
        if item:
            self.claims.append((self.party_of(u), str(item), {"unit": u, "step": self.step, **claim}))

    # --- where blocks are -----------------------------------------------------------------------
    def at(self, u: str) -> str:
        return str(self.units[u]["at"])

    def _index(self) -> dict[str, list[str]]:
        if self._where is None:
            where: dict[str, list[str]] = {}
            for u, s in sorted(self.units.items()):
                where.setdefault(str(s["at"]), []).append(u)
            self._where = where
        return self._where

    def units_in(self, area: str) -> list[str]:
        """The blocks in an area (a fortress is an area of its own), sorted by id."""
        return list(self._index().get(area, ()))

    def side_in(self, area: str, side: str) -> list[str]:
        return [u for u in self.units_in(area) if self.side_of(u) == side]

    def side_units(self, side: str) -> list[str]:
        return [u for u in sorted(self.units) if self.side_of(u) == side]

    def gs_in(self, area: str) -> dict[str, int]:
        """The ground-support markers in an area by nation (public)."""
        return {n: int(k) for n, k in sorted(self.pos.get("gs", {}).get(area, {}).items()) if k}

    def side_gs(self, area: str, side: str) -> dict[str, int]:
        return {n: k for n, k in self.gs_in(area).items() if self.side_of_nation(n) == side}

    def add_gs(self, area: str, nation: str, n: int) -> None:
        gs = self.pos.setdefault("gs", {})
        here = gs.setdefault(area, {})
        here[nation] = int(here.get(nation, 0)) + n
        if here[nation] <= 0:
            del here[nation]
        if not here:
            del gs[area]

    def present(self, area: str, side: str) -> bool:
        """Whether ``side`` has ground units or GS units in the area."""
        return bool(self.side_in(area, side) or self.side_gs(area, side))

    def place(self, u: str, area: str) -> None:
        """Put a block somewhere: the one way a block's ``at`` changes."""
        self.units[u]["at"] = area
        self._where = None

    def flag(self, u: str, f: str) -> None:
        flags = self.units[u].setdefault("flags", [])
        if f not in flags:
            flags.append(f)
            flags.sort()

    def has_flag(self, u: str, f: str) -> bool:
        return f in self.units[u].get("flags", [])

    # --- steps ----------------------------------------------------------------------------------
    def lose_step(self, u: str, rule: str, why: str) -> bool:
        """One step lost (Glossary "Steps"): a 1-step block is eliminated. The block's steps must be
        known (a block in combat is revealed, 6.24). Returns whether it was eliminated."""
        s = self.steps(u)
        assert s is not None, f"{u}: a step lost from a hidden block"
        if s <= 1:
            self.eliminate(u, rule, why)
            return True
        self.units[u]["steps"] = s - 1
        self.emit("step-lost", rule, unit=u, nation=self.nation(u), at=self.at(u), left=s - 1, why=why)
        return False

    def eliminate(self, u: str, rule: str, why: str) -> None:
        """Back to the force pool (Glossary "Force Pool")."""
        at = self.at(u)
        self.emit("eliminated", rule, unit=u, nation=self.nation(u), at=at, why=why, block=self.block(u))
        del self.units[u]
        self._where = None

    # --- areas ----------------------------------------------------------------------------------
    def area(self, a: str) -> Area:
        return self.sc.map.areas[a]

    def neighbours(self, a: str) -> list[str]:
        """The places across a land border (fortress and surrounding area, straits included; air-routes
        and sea zones not)."""
        out = []
        for n in self.sc.map.places.neighbours(a):
            if not self.sc.map.areas[n].ground:
                continue
            if "air-route" in self.sc.map.features(a, n) and len(self.sc.map.features(a, n)) == 1:
                continue
            out.append(n)
        return out

    @property
    def control(self) -> dict[str, str]:
        ctl: dict[str, str] = self.pos["control"]
        return ctl

    def controller(self, a: str) -> str:
        """axis, allies, vichy or neutral (Glossary "Control"); an unoccupied fortress follows its
        surrounding area (Glossary "Fortress")."""
        return self.control.get(a, NEUTRAL)

    def friendly(self, a: str, side: str) -> bool:
        return self.controller(a) == side

    def set_control(self, a: str, side: str, rule: str) -> None:
        if self.control.get(a) != side:
            was = self.control.get(a, NEUTRAL)
            self.control[a] = side
            self.emit("control", rule, area=a, side=side, was=was)

    def port_open(self, a: str, side: str) -> bool:
        """Glossary "Fortress", A-01: a fortress's surrounding area is a port of ``side`` only while
        the fortress is friendly and not contested (option fortress_port: or while the surrounding
        area is not contested); any other area's ports are open."""
        f = self.area(a).port_if
        if not f:
            return True
        watched = f if self.option("fortress_port") == "fortress-uncontested" else a
        return self.controller(f) == side and not self.contested(watched)

    def contested(self, a: str) -> bool:
        return a in self.pos.get("contested", {})

    def newly_contested(self, a: str) -> bool:
        return bool(self.pos.get("contested", {}).get(a) == NEW)

    def update_contested(self, a: str, rule: str) -> None:
        """After units entered or left an area: contested while both sides have units there (newly
        when it was not contested before, 6.1); an area held by one side alone is controlled by it
        (Glossary "Control")."""
        axis, allies = self.present(a, AXIS), self.present(a, ALLIES)
        con = self.pos.setdefault("contested", {})
        if axis and allies:
            if a not in con:
                con[a] = NEW
                self.emit("contested", rule, area=a)
        else:
            if a in con:
                del con[a]
            holder = AXIS if self.side_in(a, AXIS) else ALLIES if self.side_in(a, ALLIES) else None
            if holder is not None:
                self.set_control(a, holder, rule)

    def weather(self, a: str) -> str:
        """The weather of an area: its zone's (A-03) this game turn (1.1)."""
        zone = self.area(a).weather or "west"
        return str(self.pos.get("weather", {}).get(zone, "clear"))

    # --- politics and special actions -----------------------------------------------------------
    def war_pairs(self) -> list[tuple[str, str]]:
        return [(str(p[0]), str(p[1])) for p in self.pos.get("politics", {}).get("war", [])]

    def at_war(self, a: str, b: str) -> bool:
        return any({a, b} == {x, y} for x, y in self.war_pairs())

    def sa(self, nation: str) -> int:
        return int(self.pos.get("sa", {}).get(nation, 0))

    def spend_sa(self, nation: str, rule: str, why: str) -> None:
        """7.1: an SA expended goes back to the force pool."""
        held = self.sa(nation)
        assert held > 0, f"{nation} spent an SA it does not hold"
        self.pos.setdefault("sa", {})[nation] = held - 1
        self.emit("sa-spent", rule, nation=nation, why=why, left=held - 1)


def context(state: dict[str, Any], dice: Dice | None = None, side: str | None = None) -> Ctx:
    """The context of the step the state awaits (a working copy of its position)."""
    sc = load_scenario(str(state["pbem"]["scenario"]))
    pos = copy.deepcopy(state["position"])
    units = pos.pop("units")
    clock = state["clock"]
    secret = "referee" not in state.get("parties", {}) and bool(opts.get(state.get("options", {}), "fog"))
    options = dict(state.get("options", {}))
    standing = copy.deepcopy(state.get("standing", {}))
    by_party = None
    if pty.three(options):  # three players: the rules read the Allied side's standing instructions as one
        by_party, standing = standing, pty.merged_standing(options, standing)
    return Ctx(sc=sc, turn=Turn.parse(str(clock["turn"])), side=side or str(clock["side"]), phase=str(clock["phase"]),
               units=units, pos=pos, options=options, standing=standing, dice=dice, secret=secret,
               step=str(state.get("awaits", {}).get("step", "")), party_standing=by_party)


def position_of(ctx: Ctx) -> dict[str, Any]:
    """The position a context holds, as a state records it (tables sorted)."""
    pos = {k: copy.deepcopy(v) for k, v in sorted(ctx.pos.items())}
    pos["units"] = {u: ctx.units[u] for u in sorted(ctx.units)}
    for k in ("control", "contested", "gs", "fortifications", "beachheads", "sa"):
        if k in pos and isinstance(pos[k], dict):
            pos[k] = dict(sorted(pos[k].items()))
    return pos


VICHY_SIDE = VICHY  # an area Vichy controls (9.52) is neither side's
