"""Canonical form, digests and seals of signed documents (docs/protocol.md).

The signature covers the canonical form of a document's data without its ``seal`` table:
sorted-key compact JSON in UTF-8. A document's digest is SHA-256 of the canonical form *with* the
seal, written ``sha256:<hex>``.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
from typing import Any

from pbem.errors import MalformedFileError, TamperError

from .keys import KeyPair, public_key_from_text


def check_no_floats(data: Any, where: str = "document", path: str = "") -> None:
    """Signed documents contain no floats (docs/protocol.md): their canonical form must be exact (nor TOML
    dates and times, which JSON cannot hold).

    ``where`` names the file, ``path`` the field within it.
    """
    if isinstance(data, float):
        raise MalformedFileError(f"{where}: {path or '(top level)'}: floating-point values are not allowed in signed files")
    if isinstance(data, (datetime.date, datetime.time)):  # TOML dates and times have no canonical JSON form
        raise MalformedFileError(f"{where}: {path or '(top level)'}: dates and times are not allowed in signed files")
    if isinstance(data, dict):
        for key, value in data.items():
            check_no_floats(value, where, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            check_no_floats(value, where, f"{path}[{i}]")


def canonical(data: Any) -> bytes:
    """Sorted-key compact JSON, UTF-8: the bytes that are signed and hashed."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(document: dict[str, Any]) -> str:
    """The document's digest: SHA-256 of its canonical form including the seal."""
    return "sha256:" + sha256_hex(canonical(document))


def unsealed(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "seal"}


def seal(document: dict[str, Any], signer: str, key: KeyPair) -> dict[str, Any]:
    """Return a copy of ``document`` with a ``seal`` signed by ``key`` in the name of ``signer``."""
    body = unsealed(document)
    signature = key.sign(canonical(body))
    sealed = dict(body)
    sealed["seal"] = {
        "signer": signer,
        "key": key.public_text,
        "signature": base64.b64encode(signature).decode("ascii"),
    }
    return sealed


def check_seal(document: dict[str, Any], where: str, expected_key: str | None = None) -> str:
    """Verify the document's seal; return the signer's public key text.

    Raises TamperError if the seal is missing, was made by another key than ``expected_key``, or
    does not match the content (any change of meaning breaks it).
    """
    s = document.get("seal")
    if not isinstance(s, dict) or not {"signer", "key", "signature"} <= set(s):
        raise TamperError(f"{where}: the file has no seal", hint="Seal it with `pbem sign` (orders) or ask its author for the signed file.")
    key_text = str(s["key"])
    if expected_key is not None and key_text != expected_key:
        raise TamperError(
            f"{where}: sealed by key {key_text[:20]}..., but the game expects {expected_key[:20]}... for signer '{s['signer']}'",
            hint="The file was signed with the wrong key, or it is a forgery.",
        )
    try:
        public = public_key_from_text(key_text)
        signature = base64.b64decode(str(s["signature"]), validate=True)
    except (ValueError, TypeError) as e:
        raise TamperError(f"{where}: the seal's key or signature is not readable ({e})") from e
    from cryptography.exceptions import InvalidSignature

    try:
        public.verify(signature, canonical(unsealed(document)))
    except InvalidSignature as e:
        raise TamperError(
            f"{where}: the signature does not match the content: the file was changed after it was signed",
            hint="Ask its author for the original file; a changed value cannot carry the old seal.",
        ) from e
    return key_text
