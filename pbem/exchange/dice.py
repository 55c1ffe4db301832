"""The dice protocol (docs/protocol.md, "Dice"): secret chains, commitments, reveals and transition seeds.

Each party's secrets are derived from its private key, the game's first state and a salt the party
chose when it joined, so nothing extra needs storing and no two games share secrets, even when
game ids or keys repeat::

    secret(n) = HMAC-SHA-256(K, "pbem/dice-secret/v2" 0x00 | origin (32 bytes) | salt (16 bytes) | n (8 bytes, big-endian))

The state holds each party's ``salt``, its commitment ``sha256(secret(n))`` and the index ``n``. A
submission reveals ``secret(n)`` and commits to ``secret(n+1)``; the adjudicator does the same in
the state it writes.

Every value that reaches a seed has one spelling: a reveal is exactly 64 lower-case hex digits, a
commitment ``sha256:`` and 64 of them, a salt 32 of them. The seed of a transition is made of the
digest of the previous state (which every input answers) and the reveals, nothing else: every part
of it was fixed before anyone could know the dice, and no input's content or spelling, nor the
choice between two versions of an input, can change a die.

A submission also carries an *attestation* of its dice (``attestation``): the sender's signature
over its game, the state it answers, its step, side, index, reveal and commitment (and, in a join,
its salt). A refereed game's views carry the attestations of every input, so that each side checks
the other sides' reveals and commitments without seeing their orders.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping

from pbem.mechanics.dice import ALGORITHM

from .canonical import canonical
from .keys import KeyPair, public_key_from_text, strict_b64decode

SECRET_TAG = b"pbem/dice-secret/v2\x00"
HIDDEN_DICE_TAG = b"pbem/hidden-dice/v1\x00"
SECRET_HEX = re.compile(r"[0-9a-f]{64}")
SALT_HEX = re.compile(r"[0-9a-f]{32}")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
SALT_BYTES = 16


def is_reveal(text: object) -> bool:
    """A reveal (a secret) is written in exactly one way: 64 lower-case hex digits."""
    return isinstance(text, str) and SECRET_HEX.fullmatch(text) is not None


def is_digest(text: object) -> bool:
    """A digest or commitment is written ``sha256:`` and 64 lower-case hex digits, nothing else."""
    return isinstance(text, str) and DIGEST.fullmatch(text) is not None


def is_salt(text: object) -> bool:
    return isinstance(text, str) and SALT_HEX.fullmatch(text) is not None


def secret(key: KeyPair, origin: str, salt: str, index: int) -> str:
    """Secret number ``index`` of ``key``'s chain in the game whose first state has digest ``origin``."""
    if not is_digest(origin):
        raise ValueError(f"not a digest: {origin!r}")
    if not is_salt(salt):
        raise ValueError(f"not a salt: {salt!r}")
    if not 0 <= index < 2**63:
        raise ValueError(f"secret index out of range: {index}")
    msg = SECRET_TAG + bytes.fromhex(origin[len("sha256:"):]) + bytes.fromhex(salt) + index.to_bytes(8, "big")
    return key.prf(msg).hex()


def hidden_dice_secret(key: KeyPair, origin: str, salt: str) -> str:
    """The secret from which a party's hidden draws are made (docs/protocol.md, Hidden draws):
    committed in its join, revealed in the game's last step."""
    if not is_digest(origin) or not is_salt(salt):
        raise ValueError("origin or salt not in their one spelling")
    return key.prf(HIDDEN_DICE_TAG + bytes.fromhex(origin[len("sha256:"):]) + bytes.fromhex(salt)).hex()


def commitment(secret_hex: str) -> str:
    """``sha256:`` + SHA-256 of the secret's 32 bytes; ValueError if the secret is not spelled as one."""
    if not is_reveal(secret_hex):
        raise ValueError("a secret is 64 lower-case hex digits")
    return "sha256:" + hashlib.sha256(bytes.fromhex(secret_hex)).hexdigest()


def reveal_matches(reveal: object, commit: object) -> bool:
    """The reveal is spelled as the one valid spelling of a secret and hashes to the commitment."""
    return is_reveal(reveal) and is_digest(commit) and commitment(str(reveal)) == commit


def seed_material(previous: str, reveals: dict[str, str]) -> dict[str, object]:
    """What a transition's seed is made of: the digest of the previous state and every reveal, by
    party. ValueError if any of them is not in its one spelling."""
    if not is_digest(previous):
        raise ValueError(f"not a digest: {previous!r}")
    for party, r in reveals.items():
        if not is_reveal(r):
            raise ValueError(f"{party}'s reveal is not 64 lower-case hex digits")
    return {"algorithm": ALGORITHM, "previous": previous, "reveals": dict(sorted(reveals.items()))}


def transition_seed(previous: str, reveals: dict[str, str]) -> bytes:
    return hashlib.sha256(canonical(seed_material(previous, reveals))).digest()


ATTEST_FIELDS = ("game", "answers", "step", "side", "dice_index")


def attestation_body(header: Mapping[str, object], dice: Mapping[str, object]) -> dict[str, object]:
    """What a submission's dice attestation signs: its game, the state it answers, step, side and
    index, and its reveal, commitment and (in a join) salt."""
    return {"pbem": "dice-attestation", **{k: header.get(k) for k in ATTEST_FIELDS},
            **{k: dice[k] for k in ("reveal", "commit", "salt", "hidden", "hidden_reveal") if k in dice}}


def attest(key: KeyPair, header: Mapping[str, object], dice: Mapping[str, object]) -> str:
    """The sender's signature over the dice of a submission with this header (base64)."""
    return base64.b64encode(key.sign(canonical(attestation_body(header, dice)))).decode("ascii")


def attested(key_text: str, header: Mapping[str, object], dice: Mapping[str, object]) -> bool:
    """``dice.attest`` is the signature, by the key ``key_text``, of these dice for this header."""
    from cryptography.exceptions import InvalidSignature

    sig = dice.get("attest")
    if not isinstance(sig, str):
        return False
    try:
        raw = strict_b64decode(sig, 64, "the attestation")
        public_key_from_text(key_text).verify(raw, canonical(attestation_body(header, dice)))
    except (ValueError, InvalidSignature):
        return False
    return True
