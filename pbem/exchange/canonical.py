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
import re
import unicodedata
from typing import Any

from pbem.errors import MalformedFileError, TamperError

from .keys import KeyPair, public_key_from_text, strict_b64decode

INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # TOML integers are 64-bit
_REFUSED_CATEGORIES = {"Cc": "a control character", "Cf": "an invisible formatting character",
                       "Cs": "a surrogate", "Co": "a private-use character"}


def _string_problem(text: str) -> str | None:
    """Why a string of a signed file has more than one spelling (or none readable), if it has."""
    if not text.isascii():
        if unicodedata.normalize("NFC", text) != text:
            return "is not in Unicode normal form NFC (the same text can be spelled with other code points)"
        for c in text:
            cat = unicodedata.category(c)
            if cat in _REFUSED_CATEGORIES:
                return f"contains {_REFUSED_CATEGORIES[cat]} (U+{ord(c):04X})"
    else:
        m = _CONTROL.search(text)
        if m is not None:
            return f"contains a control character (U+{ord(m.group()):04X})"
    return None


_CONTROL = re.compile("[\x00-\x1f\x7f]")


def _signable(data: Any) -> bool:
    """Whether ``check_signed_values`` passes ``data``, found without building the path of every
    value (most documents pass: the walk that names the place runs only for one that does not)."""
    stack = [data]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            if _string_problem(v) is not None:
                return False
        elif t is int:
            if not INT_MIN <= v <= INT_MAX:
                return False
        elif t is dict:
            for k in v:
                if type(k) is not str or _string_problem(k) is not None:
                    return False
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
        elif t is not bool:
            return False
    return True


def check_signed_values(data: Any, where: str = "document", path: str = "") -> None:
    """Every value of a signed document has exactly one spelling (docs/protocol.md: one spelling):
    no floats, dates or times (their JSON form is not exact), integers within 64 bits, every string
    and key in NFC without control, formatting, surrogate or private-use characters.

    ``where`` names the file, ``path`` the field within it.
    """
    if not path and _signable(data):
        return
    _check_signed_values(data, where, path)


def _check_signed_values(data: Any, where: str, path: str) -> None:
    if isinstance(data, bool):
        return
    if isinstance(data, int):
        if not INT_MIN <= data <= INT_MAX:
            raise MalformedFileError(f"{where}: {path or '(top level)'}: the integer does not fit in 64 bits")
        return
    if isinstance(data, str):
        why = _string_problem(data)
        if why:
            raise MalformedFileError(f"{where}: {path or '(top level)'}: the text {why}",
                                     hint="Write it with plain characters; pbem files hold ids and names, not formatted text.")
        return
    if isinstance(data, float):
        raise MalformedFileError(f"{where}: {path or '(top level)'}: floating-point values are not allowed in signed files")
    if isinstance(data, (datetime.date, datetime.time)):  # TOML dates and times have no canonical JSON form
        raise MalformedFileError(f"{where}: {path or '(top level)'}: dates and times are not allowed in signed files")
    if isinstance(data, dict):
        for key, value in data.items():
            here = f"{path}.{key}" if path else str(key)
            why = _string_problem(str(key))
            if why:
                raise MalformedFileError(f"{where}: {display_path(here)}: the key {why}")
            _check_signed_values(value, where, here)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            _check_signed_values(value, where, f"{path}[{i}]")


def display_path(path: str, limit: int = 120) -> str:
    """A field path safe to print: control characters shown as ?, the length bounded."""
    out = "".join(c if c.isprintable() else "?" for c in path)
    return out if len(out) <= limit else out[: limit - 3] + "..."


check_no_floats = check_signed_values  # the former name


def canonical(data: Any) -> bytes:
    """Sorted-key compact JSON, UTF-8: the bytes that are signed and hashed."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(document: dict[str, Any]) -> str:
    """The document's digest: SHA-256 of its canonical form including the seal. The chain and the
    file names refer to documents by it."""
    return "sha256:" + sha256_hex(canonical(document))


def content_digest(document: dict[str, Any]) -> str:
    """The digest of the document's signed content (its canonical form without the seal): what a
    transition's seed is made of, so that no spelling or re-making of a signature changes a die."""
    return "sha256:" + sha256_hex(canonical(unsealed(document)))


def unsealed(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "seal"}


SIGNATURE_BYTES = 64


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


def check_seal(document: dict[str, Any], where: str, expected_key: str | None = None, body: bytes | None = None) -> str:
    """Verify the document's seal; return the signer's public key text. ``body``: the canonical
    form of the document without its seal, where the caller has it already.

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
        signature = strict_b64decode(str(s["signature"]), SIGNATURE_BYTES, "the signature")
    except (ValueError, TypeError) as e:
        raise TamperError(f"{where}: the seal's key or signature is not readable ({e})") from e
    from cryptography.exceptions import InvalidSignature

    try:
        public.verify(signature, canonical(unsealed(document)) if body is None else body)
    except InvalidSignature as e:
        raise TamperError(
            f"{where}: the signature does not match the content: the file was changed after it was signed",
            hint="Ask its author for the original file; a changed value cannot carry the old seal.",
        ) from e
    return key_text
