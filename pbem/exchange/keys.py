"""Ed25519 key pairs: generation, PEM/PKCS#8 files (mode 0600), passphrases, key ids (docs/protocol.md)."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.errors import MalformedFileError, UsageError
from pbem.exchange.files import read_file, write_all_new

PASSPHRASE_ENV = "PBEM_PASSPHRASE"


def public_text_of(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + base64.b64encode(raw).decode("ascii")


def strict_b64decode(text: str, size: int, what: str) -> bytes:
    """Decode base64 that must be in its one canonical spelling (padded, no spaces, zero padding
    bits) and of ``size`` bytes; ValueError otherwise (docs/protocol.md: one spelling)."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as e:
        raise ValueError(f"{what} is not base64") from e
    if len(raw) != size:
        raise ValueError(f"{what} has {len(raw)} bytes, not {size}")
    if base64.b64encode(raw).decode("ascii") != text:
        raise ValueError(f"{what} is not in canonical base64 (padding bits or padding changed)")
    return raw


# Edwards25519 (RFC 8032, 5.1): enough arithmetic to refuse public keys that are not points of the
# prime-order subgroup (small-order points, points with a small-order component, non-canonical
# encodings): such keys let one signature verify for many messages or many spellings.
_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)
_Point = tuple[int, int, int, int]  # extended coordinates X, Y, Z, T


def _add(a: _Point, b: _Point) -> _Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % _P
    bb = (y1 + x1) * (y2 + x2) % _P
    cc = 2 * _D * t1 * t2 % _P
    dd = 2 * z1 * z2 % _P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _decode_point(raw: bytes) -> _Point | None:
    y = int.from_bytes(raw, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _P:
        return None
    u = (y * y - 1) % _P
    v = (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if v * x * x % _P == u:
        pass
    elif v * x * x % _P == (-u) % _P:
        x = x * _SQRT_M1 % _P
    else:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return x, y, 1, x * y % _P


def _is_identity(pt: _Point) -> bool:
    x, y, z, _ = pt
    return x % _P == 0 and (y - z) % _P == 0


def _times(pt: _Point, n: int) -> _Point:
    out: _Point = (0, 1, 1, 0)
    while n:
        if n & 1:
            out = _add(out, pt)
        pt = _add(pt, pt)
        n >>= 1
    return out


def is_strong_point(raw: bytes) -> bool:
    """The 32 bytes are the canonical encoding of a point of the prime-order subgroup, not the identity."""
    pt = _decode_point(raw)
    return pt is not None and not _is_identity(pt) and _is_identity(_times(pt, _L))


@functools.lru_cache(maxsize=256)
def public_key_from_text(text: str) -> Ed25519PublicKey:
    """Parse ``ed25519:<base64>`` in its one spelling; ValueError if it is not one, or if it is a weak
    key (not a point of the prime-order subgroup)."""
    if not isinstance(text, str) or not text.startswith("ed25519:"):
        raise ValueError("a public key is written 'ed25519:<base64>'")
    raw = strict_b64decode(text[len("ed25519:"):], 32, "an Ed25519 public key")
    if not is_strong_point(raw):
        raise ValueError("a weak Ed25519 public key (a small-order or otherwise invalid point); make a new key with `pbem keygen`")
    return Ed25519PublicKey.from_public_bytes(raw)


def key_id(public_text: str) -> str:
    """A short id of a public key: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(public_text.encode("ascii")).hexdigest()[:12]


@dataclass(frozen=True)
class KeyPair:
    """A loaded private key with its public text."""

    private: Ed25519PrivateKey

    @property
    def public_text(self) -> str:
        return public_text_of(self.private.public_key())

    @property
    def key_id(self) -> str:
        return key_id(self.public_text)

    def sign(self, data: bytes) -> bytes:
        return self.private.sign(data)

    def prf(self, message: bytes) -> bytes:
        """A keyed pseudo-random function of the private key (for the dice secret chain, §4)."""
        raw = self.private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return hmac.new(raw, message, hashlib.sha256).digest()

    @classmethod
    def generate(cls) -> KeyPair:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> KeyPair:
        """A key from 32 seed bytes: only for the demo and tests, whose keys must be reproducible."""
        return cls(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest()))

    def private_pem(self, passphrase: bytes | None = None) -> bytes:
        encryption: serialization.KeySerializationEncryption = (
            serialization.BestAvailableEncryption(passphrase) if passphrase else serialization.NoEncryption()
        )
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


MAX_KEY_BYTES = 64 * 1024  # a private key file (an Ed25519 PEM file has a few hundred bytes)


def write_key_files(pair: KeyPair, stem: Path, passphrase: bytes | None = None) -> tuple[Path, Path]:
    """Write ``stem.key`` (mode 0600) and ``stem.pub``, both or neither; refuse to overwrite either."""
    key_path = stem.with_name(stem.name + ".key")
    pub_path = stem.with_name(stem.name + ".pub")
    for p in (key_path, pub_path):
        if os.path.lexists(p):
            raise UsageError(f"{p}: already exists; pbem never overwrites a key", hint="Choose another NAME or move the old file away.")
    folder = key_path.parent if str(key_path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{folder}: cannot write the key files (no such folder)", hint="Create the folder first, or choose another NAME.")
    write_all_new([(key_path, pair.private_pem(passphrase)), (pub_path, pair.public_text + "\n")], private=[key_path])
    return key_path, pub_path


def load_key(path: Path, passphrase: bytes | None = None) -> KeyPair:
    """Load a private key file; the passphrase comes from the argument or $PBEM_PASSPHRASE.

    Like ssh, pbem refuses a key file with any permission for its group or others (on systems with
    POSIX permissions).
    """
    data, st = read_file(path, MAX_KEY_BYTES, "key file", UsageError)
    if passphrase is None and os.environ.get(PASSPHRASE_ENV):
        passphrase = os.environ[PASSPHRASE_ENV].encode("utf-8")
    try:
        private = serialization.load_pem_private_key(data, password=passphrase)
    except TypeError as e:
        if passphrase is None:
            raise UsageError(
                f"{path}: the key is protected by a passphrase",
                hint=f"Set ${PASSPHRASE_ENV} or use --passphrase to be asked for it.",
            ) from e
        raise UsageError(f"{path}: the key is not protected by a passphrase; do not give one") from e
    except ValueError as e:
        raise MalformedFileError(f"{path}: not a readable private key, or a wrong passphrase ({e})") from e
    if not isinstance(private, Ed25519PrivateKey):
        raise MalformedFileError(f"{path}: not an Ed25519 private key")
    if os.name == "posix" and st.st_mode & 0o077:
        raise UsageError(f"{path}: the private key file is open to its group or others (mode {stat.S_IMODE(st.st_mode):04o}); "
                         "pbem refuses to use it, as ssh does",
                         hint=f"Make it private: chmod 600 {path}")
    return KeyPair(private)


def read_public_key(arg: str) -> str:
    """A public key given on the command line: ``ed25519:...`` text or a ``.pub`` file."""
    text = arg.strip()
    if not text.startswith("ed25519:"):
        p = Path(arg)
        try:
            text = p.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{arg}: neither a public key 'ed25519:...' nor a readable .pub file") from e
    try:
        public_key_from_text(text)
    except ValueError as e:
        raise UsageError(f"{arg}: not an Ed25519 public key ({e})") from e
    return text
