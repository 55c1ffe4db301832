"""Dice as an input to the rules (docs/protocol.md): rules code asks, the driver supplies and records.

Rules code asks a ``Dice`` for a roll with a label (rule, place, purpose, index); the driver decides
where the faces come from: the committed seed of a transition (``SeededDice``) or faces fixed by a
test case (``ForcedDice``). Every roll is recorded.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

ALGORITHM = "pbem-dice-2"


@dataclass(frozen=True, slots=True)
class Roll:
    label: str
    sides: int
    face: int


class DiceError(Exception):
    """A die was asked for twice with one label, or a forced die is missing."""


@dataclass(slots=True)
class Dice:
    """Base: records rolls; subclasses supply faces."""

    log: list[Roll] = field(default_factory=list)

    def roll(self, label: str, sides: int = 6) -> int:
        if any(r.label == label for r in self.log):
            raise DiceError(f"die label used twice in one transition: {label}")
        face = self._face(label, sides)
        self.log.append(Roll(label, sides, face))
        return face

    def _face(self, label: str, sides: int) -> int:
        raise NotImplementedError


def hmac_stream(seed: bytes, label: str, block: int) -> bytes:
    msg = label.encode("utf-8") if block == 0 else f"{label}#{block}".encode()
    return hmac.new(seed, msg, hashlib.sha256).digest()


def face_from_seed(seed: bytes, label: str, sides: int) -> tuple[int, list[tuple[int, int, bool]]]:
    """HMAC-SHA-256(seed, label) turned into a face by rejection sampling (no modulo bias).

    Bytes are read in order; a byte ``b`` is accepted when ``b < 256 - 256 % sides`` and gives face
    ``b % sides + 1``. If a block of 32 bytes is all rejected, the next block is
    HMAC(seed, label + "#1"), and so on. Returns the face and the trail (block, byte, accepted).
    """
    if not 2 <= sides <= 256:
        raise DiceError(f"dice have 2 to 256 sides, not {sides}")
    limit = 256 - 256 % sides
    trail: list[tuple[int, int, bool]] = []
    block = 0
    while True:
        for b in hmac_stream(seed, label, block):
            ok = b < limit
            trail.append((block, b, ok))
            if ok:
                return b % sides + 1, trail
        block += 1


@dataclass(slots=True)
class SeededDice(Dice):
    """Faces derived from a transition seed (the dice protocol of docs/protocol.md)."""

    seed: bytes = b""

    def _face(self, label: str, sides: int) -> int:
        return face_from_seed(self.seed, label, sides)[0]


@dataclass(slots=True)
class ForcedDice(Dice):
    """Faces fixed in advance: by label, or in order of asking (for catalog cases)."""

    by_label: dict[str, int] = field(default_factory=dict)
    in_order: list[int] = field(default_factory=list)
    fallback: Dice | None = None

    def _face(self, label: str, sides: int) -> int:
        if label in self.by_label:
            return self.by_label[label]
        if self.in_order:
            return self.in_order.pop(0)
        if self.fallback is not None:
            return self.fallback.roll(label, sides)
        raise DiceError(f"no face given for die '{label}'")
