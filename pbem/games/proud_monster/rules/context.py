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
    hooks: Hooks = field(default_factory=lambda: Hooks())  # the feature rules plugged in (module.HOOKS)

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
