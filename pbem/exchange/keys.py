"""Ed25519 key pairs: generation, PEM/PKCS#8 files (mode 0600), passphrases, key ids (docs/protocol.md)."""

from __future__ import annotations

import base64
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


def public_key_from_text(text: str) -> Ed25519PublicKey:
    """Parse ``ed25519:<base64>``; ValueError if it is not one."""
    if not text.startswith("ed25519:"):
        raise ValueError("a public key is written 'ed25519:<base64>'")
    raw = base64.b64decode(text[len("ed25519:"):], validate=True)
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key has 32 bytes")
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
