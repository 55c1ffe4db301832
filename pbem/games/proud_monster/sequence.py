"""The sequence of play as data (5.0, digest A.3) and the names of awaited steps.

A Game Turn: (with fortifications) the activation of fort lines (14.25), the Mutual Reinforcement
phase (its automatic part, then, when the Soviet has units to place or conversions to make, a step
awaiting his MR orders, ``GT3/MR/soviet``: reinforce.py), one player-turn sequence on
GT1 and two on every other GT (5.4), each with the German player turn first (5.1), then the Victory
Check (4.4-4.5). With the weather rules (full game) each player-turn sequence from GT7 opens with
the automatic weather phase (13.2, digest A.3 II.A). A player turn is one awaited step: its
movement phase (12.0) and prepared-assault phase (14.0) are ordered in one order file and resolved
in that order. A scenario whose players set up starts with their set-up steps (A.2, 3.2-3.7):
`setup/soviet`, then `setup/german`, each one order file.
With ground support (full game) the German player turn of GT1-GT11 opens with his
Ground Support Commitment phase (10.2) and the Soviet player turn of GT12 with the Soviet's (10.4,
"DEC only"); GT12 opens with the German air units' departure and the Soviet's air check (10.2, 10.4)
and, with Flak, its first player-turn sequence with the withdrawal of the Flak corps (10.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SIDES = ("german", "soviet")  # 5.1: the German player turn always comes first
# A.2 (3.2-3.7): before GT1, a players' set-up: the Soviet sets up first, then the German (3.7).
SETUP_SIDES = ("soviet", "german")


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    name: str
    rule: str
    who: str  # "auto" or "phasing"
    advanced: bool = False  # [ADV]: skipped in the basic game (A.4)
    option: str = ""  # an [ADV] phase with its own option(s), space-separated, runs when one is on, in either ruleset
    first_turn: int = 1  # the first GT in which the phase takes place
    last_turn: int = 99  # the last GT in which it takes place
    side: str = ""  # a player-turn phase of one side only ("": both)
    sequence: int = 0  # the only player-turn sequence of the GT in which it takes place (0: every one)


# 14.25 (option fortifications): the fort lines of the SPAT (17.3) whose GT has come activate at
# the very start of the GT, before the Mutual Reinforcement phase (a German entry up to then still
# cancels the line, Ambiguity 43).
# 10.2, 10.4 (option ground_support): at the start of GT12 the German air units leave for good and
# the Soviet receives his one air unit unless Moscow is German-controlled or cut off (Ambiguity 18).
TURN_START = (
    PhaseSpec("fort-activation", "14.25", "auto", advanced=True, option="fortifications"),
    PhaseSpec("december-air", "10.2", "auto", advanced=True, option="ground_support", first_turn=12),
    PhaseSpec("mutual-reinforcement", "8.1", "auto"),
)
# A.3 II.A/III.A: at the start of each player-turn sequence from GT7 (Sep II), before the German
# player turn, the weather is determined (13.2).
# 10.1, 8.16-8.17 (option flak): the Flak corps are withdrawn in the first German RWR phase of GT12;
# the withdrawal cannot be refused, so it is carried out automatically before the German's orders.
SEQUENCE_START = (
    PhaseSpec("weather", "13.2", "auto", advanced=True, option="weather", first_turn=7),
    PhaseSpec("flak-withdrawal", "10.1", "auto", advanced=True, option="flak", first_turn=12, sequence=1),
)
PLAYER_TURN = (
    # 8.13-8.20: the German RWR phase (rwr.py), in the German player turns of both sequences (Ambiguity 9)
    PhaseSpec("replacement-withdrawal-refit", "8.13", "phasing", advanced=True, option="replacements withdrawals refits"),
    # 10.2: the German commits his air units in every player turn before GT12; 10.4: the Soviet in GT12 only
    PhaseSpec("ground-support", "10.2", "phasing", advanced=True, option="ground_support", last_turn=11, side="german"),
    PhaseSpec("ground-support", "10.4", "phasing", advanced=True, option="ground_support", first_turn=12, side="soviet"),
    PhaseSpec("movement", "12.0", "phasing"),
    PhaseSpec("prepared-assault", "14.0", "phasing"),
)
TURN_END = (PhaseSpec("victory-check", "4.5", "auto"),)


def sequences_in(turn: int) -> int:
    """5.4: GT1 has one player-turn sequence, every other GT two."""
    return 1 if turn == 1 else 2


def step_name(turn: int, pts: int, side: str) -> str:
    """``GT3/1/german``; sequence 0 is the Mutual Reinforcement phase: ``GT3/MR/soviet`` (8.7)."""
    return f"GT{turn}/{pts or 'MR'}/{side}"


def setup_step(side: str) -> str:
    """The awaited step of a side's set-up by orders (A.2): setup/soviet, then setup/german."""
    return f"setup/{side}"


def phases(options: Mapping[str, Any], group: tuple[PhaseSpec, ...], turn: int = 1, side: str = "",
           pts: int = 0) -> tuple[PhaseSpec, ...]:
    """The phases of ``group`` that take place on GT ``turn`` (in player-turn sequence ``pts`` and
    the player turn of ``side``, when given) under ``options``: every basic phase; an [ADV] phase in
    the full game, or, when it has its own option, when that option is on (A.4)."""
    def on(p: PhaseSpec) -> bool:
        if not p.advanced:
            return True
        return any(options.get(o) for o in p.option.split()) if p.option else options.get("ruleset") == "full"

    def now(p: PhaseSpec) -> bool:
        return (p.first_turn <= turn <= p.last_turn and (not side or not p.side or p.side == side)
                and (not pts or not p.sequence or p.sequence == pts))
    return tuple(p for p in group if on(p) and now(p))


def next_player_turn(turn: int, pts: int, side: str) -> tuple[int, int, str, bool]:
    """The player turn after (turn, pts, side); the flag says a Victory Check comes in between."""
    if side == SIDES[0]:
        return turn, pts, SIDES[1], False
    if pts < sequences_in(turn):
        return turn, pts + 1, SIDES[0], False
    return turn + 1, 1, SIDES[0], True


def other(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]
