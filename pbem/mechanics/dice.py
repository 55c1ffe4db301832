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
    # the labels of the log's rolls, so that a roll need not read the whole log: kept for one log
    # list (``_of``), for its first ``_seen`` rolls
    _labels: set[str] = field(default_factory=set, init=False, repr=False, compare=False)
    _of: list[Roll] | None = field(default=None, init=False, repr=False, compare=False)
    _seen: int = field(default=0, init=False, repr=False, compare=False)

    def rolled(self, label: str) -> bool:
        """Whether a die with this label was rolled (is in the log)."""
        log = self.log
        if self._of is not log or self._seen > len(log):
            self._labels, self._of, self._seen = set(), log, 0
        for k in range(self._seen, len(log)):
            self._labels.add(log[k].label)
        self._seen = len(log)
        return label in self._labels

    def roll(self, label: str, sides: int = 6) -> int:
        if self.rolled(label):
            raise DiceError(f"die label used twice in one transition: {label}")
        face = self._face(label, sides)
        self.log.append(Roll(label, sides, face))
        return face

    def _face(self, label: str, sides: int) -> int:
        raise NotImplementedError


def hmac_stream(seed: bytes, label: str, block: int) -> bytes:
    msg = label.encode("utf-8") if block == 0 else f"{label}#{block}".encode()
    return hmac.new(seed, msg, hashlib.sha256).digest()


MAX_SIDES = 2**32  # the largest die: a pool of counters drawn from, at most this many


def face_from_seed(seed: bytes, label: str, sides: int) -> tuple[int, list[tuple[int, int, bool]]]:
    """HMAC-SHA-256(seed, label) turned into a face by rejection sampling (no modulo bias).

    The stream of bytes is HMAC-SHA-256(seed, label), then HMAC(seed, label + "#1"), "#2" ... A die
    of at most 256 sides reads one byte at a time: a byte ``b`` is accepted when ``b < 256 - 256 %
    sides`` and gives face ``b % sides + 1``. A larger die (a pool of counters) reads k bytes at a
    time, k the fewest bytes that hold ``sides - 1``, as a big-endian number ``n``, accepted when
    ``n < 256**k - 256**k % sides``, giving face ``n % sides + 1``. Returns the face and the trail
    (block of the sample's first byte, the sample, accepted).
    """
    if not 2 <= sides <= MAX_SIDES:
        raise DiceError(f"dice have 2 to {MAX_SIDES} sides, not {sides}")
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256 ** width
    limit = span - span % sides
    trail: list[tuple[int, int, bool]] = []
    block = 0
    pending: list[tuple[int, int]] = []  # (block, byte) of a sample not yet complete
    while True:
        for b in hmac_stream(seed, label, block):
            pending.append((block, b))
            if len(pending) < width:
                continue
            n = int.from_bytes(bytes(x for _, x in pending), "big")
            first = pending[0][0]
            pending = []
            ok = n < limit
            trail.append((first, n, ok))
            if ok:
                return n % sides + 1, trail
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
            return self._within(label, sides, self.by_label[label])
        if self.in_order:
            return self._within(label, sides, self.in_order.pop(0))
        if self.fallback is not None:
            return self.fallback.roll(label, sides)
        raise DiceError(f"no face given for die '{label}'")

    @staticmethod
    def _within(label: str, sides: int, face: int) -> int:
        if type(face) is not int or not 1 <= face <= sides:
            raise DiceError(f"face {face} given for die '{label}', which has {sides} sides")
        return face
