"""The working context of one transition and the records the rules keep in it.

``Ctx``: the scenario, the options in force, a working copy of the position, the events so far and
the dice; where a unit off the map is (digest D.7, ``OFF_MAP_BOXES``); ``MoveTracker``, the
bookkeeping of one movement phase (12.2, 12.5, 12.6, 15.6); ``Decision``, raised when the
adjudication must await a side's decision (14.32, 14.35; docs/protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.engine.model import Event
from pbem.mechanics.dice import Dice

from ..data import Scenario, UnitSpec, is_untried, unit_factors

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
