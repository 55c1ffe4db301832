"""Dice of any size (docs/protocol.md, Dice 6): a die of at most 256 sides reads one byte at a time,
as it always did; a larger one (a draw from a pool of counters) reads as many bytes as its size
needs, with rejection sampling, so that a pool of any size can be drawn from."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from pbem.mechanics.dice import MAX_SIDES, DiceError, SeededDice, face_from_seed

SEED = hashlib.sha256(b"a fixed seed").digest()


def stream(label: str, blocks: int) -> bytes:
    out = b""
    for n in range(blocks):
        msg = label.encode() if n == 0 else f"{label}#{n}".encode()
        out += hmac.new(SEED, msg, hashlib.sha256).digest()
    return out


def reference(label: str, sides: int) -> int:
    """The face by the protocol's words, read off the byte stream."""
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256 ** width
    data = stream(label, 64)
    for i in range(0, len(data) - width + 1, width):
        n = int.from_bytes(data[i:i + width], "big")
        if n < span - span % sides:
            return n % sides + 1
    raise AssertionError("no sample accepted in 64 blocks")


@pytest.mark.parametrize("sides", [2, 6, 10, 100, 255, 256, 257, 300, 1000, 65536, 65537, 10**6, MAX_SIDES])
def test_each_face_is_the_protocols(sides: int) -> None:
    for k in range(50):
        label = f"2.15|GT1/1|attack {k}|R{k}|counter"
        face, trail = face_from_seed(SEED, label, sides)
        assert 1 <= face <= sides and face == reference(label, sides)
        assert trail[-1][2] and not any(ok for _, _, ok in trail[:-1])


def test_a_die_of_at_most_256_sides_reads_one_byte_as_before() -> None:
    for k in range(200):
        label = f"14.31|x|{k}"
        first = next(b for b in stream(label, 4) if b < 256 - 256 % 6)
        assert face_from_seed(SEED, label, 6)[0] == first % 6 + 1


def test_a_large_pool_is_drawn_evenly() -> None:
    """1,000 counters, 100,000 draws: every counter comes up, none far more often than the others."""
    counts = Counter(face_from_seed(SEED, f"draw {k}", 1000)[0] for k in range(100_000))
    assert set(counts) == set(range(1, 1001))
    assert max(counts.values()) < 160 and min(counts.values()) > 50  # expected 100 each


def test_samples_that_would_bias_a_face_are_rejected() -> None:
    """For 40,000 sides two bytes make a sample, accepted below 40,000 (65,536 - 65,536 mod
    40,000): above it the next two bytes are read."""
    trails = [face_from_seed(SEED, f"r{k}", 40_000)[1] for k in range(2_000)]
    rejected = [t for t in trails if len(t) > 1]
    assert len(rejected) > 500  # about 39 % of first samples fall in the rejected band
    for trail in rejected:
        assert all(n >= 40_000 for _, n, ok in trail if not ok) and trail[-1][1] < 40_000


def test_dice_beyond_the_largest_are_refused() -> None:
    with pytest.raises(DiceError, match="sides"):
        face_from_seed(SEED, "x", MAX_SIDES + 1)
    with pytest.raises(DiceError):
        face_from_seed(SEED, "x", 1)
    assert 1 <= SeededDice(seed=SEED).roll("pool", 1000) <= 1000
