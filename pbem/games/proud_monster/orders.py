"""The orders of a Proud Monster order or reply file, parsed once into values (README: Proud Monster).

An order file's body is validated against its schema before any rule is looked at; ``Orders.parse``
then reads each table into small frozen values: ground-support commitments (``[[support]]``, 10.2),
moves (``[[move]]``, 12.x, 15.x), naval moves (``[[sea]]``, 11.x), prepared assaults
(``[[attack]]``, 14.x), placements and Guards conversions (``[[place]]``, ``[[convert]]``, 8.1-8.11),
the declarations before the first move (``[declare]``), the RWR phase (``[rwr]``, 8.13-8.20), a
set-up (``[setup]``, 3.2-3.7), a reply (``[reply]``, 14.32, 14.35) and standing instructions
(``[standing]``, F.7). The rules check these values and carry them out; the state keeps the standing
instructions, and the attacks while a decision is awaited, as they were sent. A key the orders leave
out is ``None`` where leaving it out means something (a declaration not made is not a declaration of
nothing). Parsing reads what the schema allows and is as forgiving as the rules were of what it does
not (the built-in player and the catalog call the rules without a schema): a missing list is empty, a
value is read as text where the rules read it so; a move's ``rounds`` is kept as given, for 15.6 to
check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


def _names(values: Iterable[Any] | None) -> tuple[str, ...]:
    return tuple(str(v) for v in values or ())


def _maybe_names(table: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    return _names(table[key]) if key in table else None


@dataclass(frozen=True, slots=True)
class Support:
    """``[[support]]``: the air unit ``air`` placed on the side's stack in ``hex`` (10.2, 10.4)."""

    air: str
    hex: str

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Support:
        return cls(str(raw.get("air", "")), str(raw.get("hex", "")))


@dataclass(frozen=True, slots=True)
class Move:
    """``[[move]]``: ``units`` move as one stack along ``path``, every hex entered in order (12.1);
    ``assault``: the last hex of the path is a mobile assault (15.2), with the attacker's ``losses``
    first to last (14.35), ``rounds`` (15.6, as given: the rules check it) and ``on_failure`` (15.6);
    ``air_supply``: this part of an air-supplied stack takes the marker (9.18; None: not said);
    ``support``: the air units this part of a splitting stack takes along (10.2)."""

    units: tuple[str, ...]
    path: tuple[str, ...]
    assault: str | None = None
    losses: tuple[str, ...] = ()
    loss_policy: str | None = None
    rounds: object = 1
    on_failure: str = "return"
    air_supply: bool | None = None
    support: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Move:
        return cls(
            units=_names(raw.get("units")), path=_names(raw.get("path")),
            assault=str(raw["assault"]) if "assault" in raw else None, losses=_names(raw.get("losses")),
            loss_policy=str(raw["loss_policy"]) if raw.get("loss_policy") is not None else None,
            rounds=raw.get("rounds", 1), on_failure=str(raw.get("on_failure", "return")),
            air_supply=bool(raw["air_supply"]) if "air_supply" in raw else None, support=_names(raw.get("support")),
        )


@dataclass(frozen=True, slots=True)
class SeaMove:
    """``[[sea]]``: ``units`` move by sea ``to`` a port or the Holding Box (11.2, 11.3), or
    ``invade`` a Crimean south-coast hex (11.4); the rules require exactly one of the two."""

    units: tuple[str, ...]
    to: str | None = None
    invade: str | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> SeaMove:
        return cls(_names(raw.get("units")), str(raw["to"]) if "to" in raw else None,
                   str(raw["invade"]) if "invade" in raw else None)


@dataclass(frozen=True, slots=True)
class Attack:
    """``[[attack]]``: a prepared assault on ``target`` by ``units`` (14.1-14.3), with the attacker's
    ``losses`` first to last or its ``loss_policy`` (14.35), the units to ``advance`` if the hex is
    emptied (14.39), and its conditions on earlier results, ``if_cleared`` and ``if_held`` (14.5)."""

    target: str
    units: tuple[str, ...]
    losses: tuple[str, ...] = ()
    advance: tuple[str, ...] = ()
    loss_policy: str | None = None
    if_cleared: tuple[str, ...] = ()
    if_held: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Attack:
        return cls(
            target=str(raw.get("target", "")), units=_names(raw.get("units")), losses=_names(raw.get("losses")),
            advance=_names(raw.get("advance")),
            loss_policy=str(raw["loss_policy"]) if raw.get("loss_policy") is not None else None,
            if_cleared=_names(raw.get("if_cleared")), if_held=_names(raw.get("if_held")),
        )

    def conditions(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The conditions on earlier results by key (14.5): ``if_cleared``, then ``if_held``."""
        return (("if_cleared", self.if_cleared), ("if_held", self.if_held))


@dataclass(frozen=True, slots=True)
class Placement:
    """``[[place]]``: Soviet ``units`` that arrived, or wait in the RVGK, enter play in ``hex``, or
    go into the RVGK or the Holding Box (8.1, 8.7, 11.3)."""

    units: tuple[str, ...]
    hex: str

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Placement:
        return cls(_names(raw.get("units")), str(raw.get("hex", "")))


@dataclass(frozen=True, slots=True)
class Conversion:
    """``[[convert]]``: the Soviet ``unit`` converted into a Guards unit, ``guards`` if named (8.11)."""

    unit: str
    guards: str = ""

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Conversion:
        return cls(str(raw.get("unit", "")), str(raw.get("guards", "")))


@dataclass(frozen=True, slots=True)
class Declarations:
    """``[declare]``, carried out before the first move: diversions between the OKH areas (8.3), the
    ArKo's formation (14.41), the security divisions (8.21: unit and hex), the German's supply
    measures (9.18-9.20) and the GT12 hedgehogs (14.40). None: not declared."""

    divert: tuple[str, ...] | None = None
    form_arko: str | None = None
    security: tuple[tuple[str, str], ...] | None = None
    pause: bool | None = None
    concentration: tuple[str, ...] | None = None
    air_supply: tuple[str, ...] | None = None
    hedgehog: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Declarations:
        security = raw.get("security")
        return cls(
            divert=_maybe_names(raw, "divert"), form_arko=str(raw["form_arko"]) if "form_arko" in raw else None,
            security=tuple((str(u), str(h)) for u, h in security.items()) if isinstance(security, Mapping) else None,
            pause=bool(raw["pause"]) if "pause" in raw else None, concentration=_maybe_names(raw, "concentration"),
            air_supply=_maybe_names(raw, "air_supply"), hedgehog=_maybe_names(raw, "hedgehog"),
        )

    def any(self) -> bool:
        """Whether anything is declared (the table is not empty)."""
        return any(getattr(self, f) is not None for f in self.__slots__)


@dataclass(frozen=True, slots=True)
class Rwr:
    """``[rwr]``, the German RWR phase (8.13-8.20): divisions replaced (8.14), withdrawn by kind of
    the Withdrawal Table (8.16) or refused by kind (8.17), and refitting (8.20). ``given``: the keys
    of the table, in the file's order."""

    given: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    withdraw: tuple[tuple[str, tuple[str, ...]], ...] = ()
    refuse: tuple[tuple[str, Any], ...] = ()
    refit: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Rwr:
        return cls(
            given=tuple(raw), replace=_names(raw.get("replace")),
            withdraw=tuple((str(k), _names(v)) for k, v in dict(raw.get("withdraw", {})).items()),
            refuse=tuple((str(k), v) for k, v in dict(raw.get("refuse", {})).items()), refit=_names(raw.get("refit")),
        )


@dataclass(frozen=True, slots=True)
class Reply:
    """``[reply]``: the answer to the question a step awaits: the steps lost, one unit id per step
    (14.35), or the retreat hex or "no" (14.32). None: not answered."""

    losses: tuple[str, ...] | None = None
    retreat: str | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Reply:
        return cls(_maybe_names(raw, "losses"), str(raw["retreat"]) if raw.get("retreat") is not None else None)


@dataclass(frozen=True, slots=True)
class StackInstructions:
    """A ``[[standing.stack]]`` entry (F.7): instructions for the stack in ``hex`` in place of the side's
    own (STACK_KEYS of rules/combat/losses.py). None: not given."""

    hex: str | None = None
    loss_policy: str | None = None
    loss_order: tuple[str, ...] | None = None
    retreat: str | None = None
    retreat_hexes: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> StackInstructions:
        return cls(
            hex=str(raw["hex"]) if "hex" in raw else None,
            loss_policy=str(raw["loss_policy"]) if "loss_policy" in raw else None, loss_order=_maybe_names(raw, "loss_order"),
            retreat=str(raw["retreat"]) if "retreat" in raw else None, retreat_hexes=_maybe_names(raw, "retreat_hexes"),
        )


@dataclass(frozen=True, slots=True)
class Standing:
    """``[standing]``: a side's standing instructions, committed before the opponent's dice (F.7):
    how it takes step losses (14.35) and whether and where its stacks retreat (14.32), which enemy
    units it removes first from an over-stacked hex (6.2), which of its units tops each stack in a
    view (14.7), and the instructions for single stacks (``stack``). None: not given."""

    loss_policy: str | None = None
    loss_order: tuple[str, ...] | None = None
    retreat: str | None = None
    retreat_hexes: tuple[str, ...] | None = None
    overstack_removal: tuple[str, ...] | None = None
    top_units: tuple[str, ...] | None = None
    stack: tuple[StackInstructions, ...] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Standing:
        stack = raw.get("stack")
        return cls(
            loss_policy=str(raw["loss_policy"]) if "loss_policy" in raw else None, loss_order=_maybe_names(raw, "loss_order"),
            retreat=str(raw["retreat"]) if "retreat" in raw else None, retreat_hexes=_maybe_names(raw, "retreat_hexes"),
            overstack_removal=_maybe_names(raw, "overstack_removal"), top_units=_maybe_names(raw, "top_units"),
            stack=tuple(StackInstructions.parse(e) for e in stack) if stack is not None else None,
        )

    def empty(self) -> bool:
        """Whether no instruction is given at all."""
        return all(getattr(self, f) is None for f in self.__slots__)


@dataclass(frozen=True, slots=True)
class Orders:
    """The body of an order or reply file: each table parsed (module docstring); ``tables``: the
    tables the file gives, in its order."""

    tables: tuple[str, ...] = ()
    support: tuple[Support, ...] = ()
    moves: tuple[Move, ...] = ()
    sea: tuple[SeaMove, ...] = ()
    attacks: tuple[Attack, ...] = ()
    place: tuple[Placement, ...] = ()
    convert: tuple[Conversion, ...] = ()
    declare: Declarations = Declarations()
    rwr: Rwr = Rwr()
    setup: tuple[tuple[str, tuple[str, ...]], ...] = ()
    reply: Reply | None = None
    standing: Standing = Standing()

    @classmethod
    def parse(cls, body: Mapping[str, Any]) -> Orders:
        return cls(
            tables=tuple(body),
            support=tuple(Support.parse(e) for e in body.get("support", [])),
            moves=tuple(Move.parse(e) for e in body.get("move", [])),
            sea=tuple(SeaMove.parse(e) for e in body.get("sea", [])),
            attacks=tuple(Attack.parse(e) for e in body.get("attack", [])),
            place=tuple(Placement.parse(e) for e in body.get("place", [])),
            convert=tuple(Conversion.parse(e) for e in body.get("convert", [])),
            declare=Declarations.parse(body.get("declare", {})),
            rwr=Rwr.parse(body.get("rwr", {})),
            setup=tuple((str(k), _names(v)) for k, v in dict(body.get("setup", {})).items()),
            reply=Reply.parse(body["reply"]) if "reply" in body else None,
            standing=Standing.parse(body.get("standing", {})),
        )
