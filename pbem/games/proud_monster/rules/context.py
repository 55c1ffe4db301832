"""The working context of one transition and the records the rules keep in it.

``Ctx``: the scenario, the options in force, a working copy of the position, the events so far and
the dice; where a unit off the map is (digest D.7, ``OFF_MAP_BOXES``); ``MoveTracker``, the
bookkeeping of one movement phase (12.2, 12.5, 12.6, 15.6); ``Decision``, raised when the
adjudication must await a side's decision (14.32, 14.35; docs/protocol.md); ``Hooks``, where the
feature rules plug into the core rules.

Hooks. The core rules (this package) never import the feature modules beside it (supply.py, air.py,
naval.py, assault.py), which build on them. Where a core rule needs what a feature decides, it calls
the hook of its context (``ctx.hooks``): at the start of a move, supply (9.8); after a move, the air
units that go with it (10.2); at the end of a move, its mobile assault (15.x); in a combat, the units
out of supply (9.8), the Flak that halves tanks or may not attack (10.1), ground support (10.2-10.4),
the GAST (9.6) and the invasion PA (11.4); for the ArKo's formation, whether a supply line reaches a
hex (9.4). Each feature module declares its hooks in a ``plug`` function; the game module plugs them
all into one ``Hooks`` (module.HOOKS) and gives it to every context it makes. A hook's default is what
the rules give without the feature (no supply effects, no Flak, no air units, no invasion).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Place, Problem
from pbem.mechanics.dice import Dice
from pbem.mechanics.odds import Shift
from pbem.mechanics.stacking import stacks

from ..data import Scenario, UnitSpec, is_untried, unit_factors
from ..orders import Attack, Move

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


# --- the units of a working position: an index by place, and going back to a checkpoint ----------

class _Routed(dict):  # type: ignore[type-arg]
    """A table whose every change goes through ``__setitem__``/``__delitem__`` (the subclass keeps
    what it must in step there); copied (copy, deepcopy) it is a plain table."""

    __slots__ = ()

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def __ior__(self, other: Any) -> _Routed:  # type: ignore[misc]
        self.update(other)
        return self

    def clear(self) -> None:
        for k in list(self):
            del self[k]

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}


class Unit(_Routed):
    """A unit's record in a working position (``at``, ``steps``, ...): a table like any other, that
    tells its table (``Units``) of every change, so that the table's index of units by place follows
    ``at`` and a checkpoint can be gone back to. Copied (copy.deepcopy, pickle) it is a plain table."""

    __slots__ = ("owner", "uid")

    def __init__(self, items: Any = (), owner: Units | None = None, uid: str = "") -> None:
        super().__init__(items)
        self.owner = owner
        self.uid = uid

    def _changing(self, key: str) -> None:
        if self.owner is not None:
            self.owner._record_changing(self, key)

    def _changed(self, key: str, was: Any) -> None:
        if self.owner is not None and key == "at":
            self.owner._moved(self.uid, was, dict.get(self, "at"))

    def __setitem__(self, key: str, value: Any) -> None:
        self._changing(key)
        was = dict.get(self, key)
        dict.__setitem__(self, key, value)
        self._changed(key, was)

    def __delitem__(self, key: str) -> None:
        self._changing(key)
        was = dict.get(self, key)
        dict.__delitem__(self, key)
        self._changed(key, was)

    def pop(self, key: str, *default: Any) -> Any:
        if key not in self:
            return dict.pop(self, key, *default)
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self))
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __reduce__(self) -> Any:
        return dict, (dict(self),)


class Units(_Routed):
    """The position's ``units`` table in a working context: unit id -> record (``Unit``), with
    ``by_place``, the units in each place (map hex or off-map box) kept in step with every change,
    and ``changed``, the places whose units changed, in order (what a supply search kept up to date
    reads, supply.py). A record put in is a ``Unit`` of this table (a plain table is copied into one).
    ``checkpoint`` and ``rollback`` go back to the records as they were, copying only those changed
    since. Copied (copy.deepcopy, pickle) it is a plain table of plain records."""

    __slots__ = ("by_place", "changed", "_frames")

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        self.by_place: dict[str, set[str]] = {}
        self.changed: list[str] = []
        self._frames: list[_Frame] = []
        for k, v in dict(items).items():
            self[k] = v

    # the index
    def _moved(self, uid: str, was: Any, now: Any) -> None:
        if was == now:
            return
        if was is not None:
            here = self.by_place.get(str(was))
            if here is not None:
                here.discard(uid)
            self.changed.append(str(was))
        if now is not None:
            self.by_place.setdefault(str(now), set()).add(uid)
            self.changed.append(str(now))

    # the checkpoints: each open frame keeps a record's items as they were before its first change
    def _record_changing(self, rec: Unit, key: str) -> None:
        for f in self._frames:
            if rec.uid not in f.records:
                f.records[rec.uid] = (rec, tuple(dict.items(rec)))

    def _table_changing(self) -> None:
        for f in self._frames:
            if f.order is None:  # a unit put in or taken out: the whole table as it is (rare)
                f.order = tuple((uid, rec, tuple(dict.items(rec))) for uid, rec in dict.items(self))

    def checkpoint(self) -> _Frame:
        """A point to go back to (``rollback``) or to let go of (``release``)."""
        frame = _Frame()
        self._frames.append(frame)
        return frame

    def release(self, frame: _Frame) -> None:
        self._frames = [f for f in self._frames if f is not frame]

    def _then(self, frame: _Frame) -> list[tuple[str, Unit, tuple[tuple[str, Any], ...]]]:
        """The table at ``frame``: each unit's id, record and items then, in the table's order then."""
        if frame.order is None:
            return [(uid, rec, items) for uid, (rec, items) in frame.records.items()]
        out = []
        for uid, rec, items in frame.order:
            entry = frame.records.get(uid)
            out.append((uid, rec, entry[1] if entry is not None and entry[0] is rec else items))
        return out

    def rollback(self, frame: _Frame) -> None:
        """Every record, and the table's units and order, back to what they were at ``frame``,
        which is let go (and any taken after it)."""
        i = next(k for k, f in enumerate(self._frames) if f is frame)
        del self._frames[i:]  # every change since was seen by each frame then open: the later ones too
        then = self._then(frame)
        if frame.order is not None:
            for uid, rec in list(dict.items(self)):
                if isinstance(rec, Unit) and rec.owner is self:
                    self._moved(uid, dict.get(rec, "at"), None)
                    rec.owner = None
            dict.clear(self)
            for uid, rec, _ in then:
                dict.__setitem__(self, uid, rec)
                rec.owner, rec.uid = self, uid
                self._moved(uid, None, dict.get(rec, "at"))
        for uid, rec, items in then:
            was = dict.get(rec, "at")
            dict.clear(rec)
            dict.update(rec, items)
            if rec.owner is self:
                self._moved(uid, was, dict.get(rec, "at"))

    def placed_at(self, frame: _Frame, place: str) -> list[str]:
        """The units that were in ``place`` at ``frame`` (which is still open), in id order."""
        if frame.order is not None:
            return sorted(uid for uid, _, items in self._then(frame) if dict(items).get("at") == place)
        changed = {uid: dict(items).get("at") for uid, (_, items) in frame.records.items()}
        return sorted({u for u in self.by_place.get(place, ()) if u not in changed}
                      | {u for u, at in changed.items() if at == place})

    # the table's own changes
    def __setitem__(self, uid: str, rec: Any) -> None:
        self._table_changing()
        old = dict.get(self, uid)
        if isinstance(old, Unit) and old.owner is self:
            self._moved(uid, dict.get(old, "at"), None)
            old.owner = None
        if isinstance(rec, Unit) and rec.owner is None:
            rec.owner, rec.uid = self, uid
        else:
            rec = Unit(rec, self, uid)
        dict.__setitem__(self, uid, rec)
        self._moved(uid, None, dict.get(rec, "at"))

    def __delitem__(self, uid: str) -> None:
        self._table_changing()
        old = dict.get(self, uid)
        dict.__delitem__(self, uid)
        if isinstance(old, Unit) and old.owner is self:
            self._moved(uid, dict.get(old, "at"), None)
            old.owner = None

    def pop(self, uid: str, *default: Any) -> Any:
        if uid not in self:
            return dict.pop(self, uid, *default)
        rec = dict.__getitem__(self, uid)
        del self[uid]
        return rec

    def popitem(self) -> tuple[str, Any]:
        if not self:
            raise KeyError("popitem(): dictionary is empty")
        uid = next(reversed(self))
        return uid, self.pop(uid)

    def setdefault(self, uid: str, default: Any = None) -> Any:
        if uid not in self:
            self[uid] = default
        return dict.__getitem__(self, uid)

    def __reduce__(self) -> Any:
        return dict, ({k: dict(v) for k, v in self.items()},)


@dataclass(eq=False)
class _Frame:
    """A checkpoint of a Units table: each record changed since, with its items as they were, and
    the table (ids, records and their items, in order) as it was if a unit was put in or taken out since."""

    records: dict[str, tuple[Unit, tuple[tuple[str, Any], ...]]] = field(default_factory=dict)
    order: tuple[tuple[str, Unit, tuple[tuple[str, Any], ...]], ...] | None = None


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
    supply_cache: dict[Any, Any] = field(default_factory=dict)  # supply._reached: the searches kept, by what blocks lines
    air: dict[str, Any] = field(default_factory=dict)  # 10.2: the air units' bookkeeping within a transition (air.py)
    hooks: Hooks = field(default_factory=lambda: Hooks())  # the feature rules plugged in (module.HOOKS)

    def __post_init__(self) -> None:
        # the working position is the context's own: its units table indexes the units by place
        units = self.position.get("units")
        if units is not None and type(units) is not Units:
            self.position["units"] = Units(units)

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
        """The units in ``hex_id`` (of ``side``), in id order."""
        units = self.position["units"]
        if type(units) is Units:  # the index, kept in step with every change
            here = units.by_place.get(hex_id)
            if not here:
                return []
            if side is None:
                return sorted(here)
            specs = self.sc.units
            return sorted(u for u in here if specs[u].side == side)
        return sorted(
            u for u, s in self.units.items()
            if s["at"] == hex_id and (side is None or self.sc.units[u].side == side)
        )

    def stacks(self, side: str) -> dict[str, list[str]]:
        """The units of ``side`` in each hex of the map (stacking.stacks), each hex's in id order."""
        return stacks((u, self.at(u)) for u in sorted(self.units) if self.on_map(u) and self.spec(u).side == side)

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


@dataclass
class Decision(Exception):
    """Raised when a decision is needed that the orders and standing instructions do not cover."""

    side: str
    attack: int
    role: str
    question: dict[str, Any]


@dataclass
class Checkpoint:
    """The working position at one moment, to go back to (``rollback``), as when an attack awaits a
    decision: a copy of everything but the units, and a checkpoint of the units table (which copies
    only the records that change after it)."""

    rest: dict[str, Any]
    units: Any
    frame: _Frame | None


def checkpoint(ctx: Ctx) -> Checkpoint:
    units = ctx.position.get("units")
    if type(units) is Units:
        rest = {k: (None if k == "units" else copy_tree(v)) for k, v in ctx.position.items()}
        return Checkpoint(rest, units, units.checkpoint())
    return Checkpoint(copy_tree(ctx.position), None, None)  # not a working table: a whole copy


def rollback(ctx: Ctx, cp: Checkpoint) -> None:
    """The working position back to what it was at ``cp`` (a new table, as a copy would be)."""
    if cp.frame is None:
        ctx.position = cp.rest
        return
    cp.units.rollback(cp.frame)
    ctx.position = {k: (cp.units if k == "units" else v) for k, v in cp.rest.items()}


def release(ctx: Ctx, cp: Checkpoint) -> None:
    """``cp`` is no longer needed (nothing is gone back to)."""
    if cp.frame is not None:
        cp.units.release(cp.frame)


def placed_at(cp: Checkpoint, place: str) -> list[str]:
    """The units that were in ``place`` at ``cp``, in id order."""
    if cp.frame is None:
        return sorted(u for u, st in cp.rest["units"].items() if st["at"] == place)
    placed: list[str] = cp.units.placed_at(cp.frame, place)
    return placed


def copy_tree(x: Any) -> Any:
    """A deep copy of TOML-shaped data (tables, arrays, scalars), as copy.deepcopy makes it, faster."""
    if isinstance(x, dict):
        return {k: copy_tree(v) for k, v in x.items()}
    if isinstance(x, list):
        return [copy_tree(v) for v in x]
    return x


# --- hooks: where the feature rules plug into the core rules -------------------------------------

@dataclass(frozen=True)
class CombatSupport:
    """What ground support and Flak bring to one combat (10.1-10.4, 14.13): points added to each
    side's total, column shifts, and what the report shows (``support``, ``ground_totals``, ``flak``)."""

    attack: int = 0
    defense: int = 0
    shifts: list[Shift] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


MoveStart = Callable[[Ctx, int, list[str], set[str]], None]
Moved = Callable[[Ctx, int, Move, list[str], str, list[str], str | None, list[Problem]], None]
MobileAssault = Callable[[Ctx, int, Move, list[str], str, str, str, MoveTracker, list[Problem]], None]
AttackBarred = Callable[[Ctx, Place, list[str]], list[Problem]]
Flak = Callable[[Ctx, str], list[str]]
CombatSupply = Callable[[Ctx, int, list[str], list[str], str], set[str]]
GroundSupport = Callable[[Ctx, list[str], list[str], str, Collection[str], int, int], CombatSupport]
Gast = Callable[[Ctx, str, list[str], str, list[Shift]], tuple[list[Shift], dict[str, Any]]]
Invasion = Callable[[Ctx, int, str, list[str]], list[str]]
InvasionShifts = Callable[[list[str]], list[Shift]]
InvasionEnd = Callable[[Ctx, int, Attack, str, list[str]], None]
Reaches = Callable[[Ctx, str, str], bool]


def no_move_start(ctx: Ctx, index: int, units: list[str], moved: set[str]) -> None:
    """Without the supply rules a move's units keep their movement factor (9.8)."""


def no_moved(ctx: Ctx, index: int, move: Move, units: list[str], origin: str, walk: list[str],
             assault: str | None, problems: list[Problem]) -> None:
    """Without the air rules no air unit goes with a stack (10.2)."""


def no_mobile_assault(ctx: Ctx, index: int, move: Move, units: list[str], origin: str, launch: str,
                      target: str, tr: MoveTracker, problems: list[Problem]) -> None:
    """A move that ends in a mobile assault needs the mobile-assault rules (15.x, assault.py)."""
    raise RuntimeError(f"move[{index}] makes a mobile assault, but no mobile-assault rules are plugged in")


def no_attack_barred(ctx: Ctx, where: Place, units: list[str]) -> list[Problem]:
    """Without Flak every unit may attack (10.1)."""
    return []


def no_flak(ctx: Ctx, hex_id: str) -> list[str]:
    """Without Flak no Soviet tank unit is halved (10.1)."""
    return []


def no_combat_supply(ctx: Ctx, index: int, attackers: list[str], defenders: list[str], what: str) -> set[str]:
    """Without the supply rules every unit fights in supply (9.8)."""
    return set()


def no_ground_support(ctx: Ctx, attackers: list[str], defenders: list[str], target: str, oos: Collection[str],
                      att_total: int, def_total: int) -> CombatSupport:
    """Without air units a combat has no ground support (10.2)."""
    return CombatSupport()


def no_gast(ctx: Ctx, what: str, attackers: list[str], target: str,
            shifts: list[Shift]) -> tuple[list[Shift], dict[str, Any]]:
    """Without the supply rules no GAST is rolled (9.6)."""
    return shifts, {}


def no_invasion(ctx: Ctx, index: int, target: str, attackers: list[str]) -> list[str]:
    """Without the naval rules no attack is an invasion PA (11.4)."""
    return []


def no_invasion_shifts(force: list[str]) -> list[Shift]:
    """Without the naval rules no attack takes the invasion's 1L (11.4)."""
    return []


def no_invasion_end(ctx: Ctx, index: int, attack: Attack, target: str, force: list[str]) -> None:
    """Never called: without the naval rules there is no invasion force (11.4)."""


def reaches_anywhere(ctx: Ctx, kind: str, hex_id: str) -> bool:
    """Without the supply rules every hex counts as reached by a supply line (9.4)."""
    return True


@dataclass(frozen=True, slots=True)
class Hooks:
    """The functions through which the feature rules act in the core rules, each with the rule it
    serves; the defaults are the rules without the feature (see this module's docstring)."""

    move_start: MoveStart = no_move_start  # 9.8: supply at the start of a move (movement.do_move)
    moved: Moved = no_moved  # 10.2: after a move, the air units going with it (movement.do_move)
    mobile_assault: MobileAssault = no_mobile_assault  # 15.x, 15.5: the move's mobile assault (movement.do_move)
    attack_barred: AttackBarred = no_attack_barred  # 10.1: units that never attack (combat.attacks)
    flak: Flak = no_flak  # 10.1: the Flak units halving Soviet tanks attacking a hex (combat.strength)
    combat_supply: CombatSupply = no_combat_supply  # 9.8: the participants out of supply (combat.resolve)
    ground_support: GroundSupport = no_ground_support  # 10.2-10.4, 14.13 (combat.resolve)
    gast: Gast = no_gast  # 9.6, 17.10: the GAST shifts, the last step before the CRT die (combat.resolve)
    invasion: Invasion = no_invasion  # 11.4: the invaders of an invasion PA (combat.resolve)
    invasion_shifts: InvasionShifts = no_invasion_shifts  # 11.4: its 1L (combat.resolve)
    invasion_end: InvasionEnd = no_invasion_end  # 11.4: ashore, or eliminated (combat.resolve)
    supply_reaches: Reaches = reaches_anywhere  # 9.4: a line of this kind reaches the hex (arko.form_arko)
