"""The dice protocol (docs/protocol.md): secret chains, commitments, reveals and transition seeds.

Each party's secrets are derived from its private key and the game id, so nothing extra needs
storing: ``secret(n) = HMAC-SHA-256(private key, "pbem/dice-secret/v1" | game | n)``. The state
holds each party's commitment ``sha256(secret(n))`` and the index ``n``. A submission reveals
``secret(n)`` and commits to ``secret(n+1)``; the adjudicator does the same in the state it writes.

The seed of a transition is SHA-256 of the canonical JSON of
``{"algorithm", "previous", "inputs", "reveals"}``; rolls are made by ``pbem.mechanics.dice``.
"""

from __future__ import annotations

import hashlib

from pbem.mechanics.dice import ALGORITHM

from .canonical import canonical
from .keys import KeyPair


def secret(key: KeyPair, game: str, index: int) -> str:
    msg = b"pbem/dice-secret/v1\x00" + game.encode("utf-8") + b"\x00" + str(index).encode("ascii")
    return key.prf(msg).hex()


def commitment(secret_hex: str) -> str:
    return "sha256:" + hashlib.sha256(bytes.fromhex(secret_hex)).hexdigest()


def reveal_matches(reveal: str, commit: str) -> bool:
    try:
        return commitment(reveal) == commit
    except ValueError:
        return False


def seed_material(previous: str, inputs: list[str], reveals: dict[str, str]) -> dict[str, object]:
    return {"algorithm": ALGORITHM, "previous": previous, "inputs": list(inputs), "reveals": dict(sorted(reveals.items()))}


def transition_seed(previous: str, inputs: list[str], reveals: dict[str, str]) -> bytes:
    return hashlib.sha256(canonical(seed_material(previous, inputs, reveals))).digest()
