"""The reveal ledger (docs/protocol.md, "Before a secret is revealed"): for each of the user's keys,
which games it joined (with which salt) and which of its dice secrets pbem revealed, for which
state. It is kept beside the user, not in any game folder, so that neither a second folder, nor a
fork, nor a replayed game can draw one secret out twice or make a party join one game twice.

It holds no secret: one line of JSON per event, ``{"origin", "salt", "join": true}`` or
``{"origin", "salt", "index", "answers"}``, in ``$PBEM_HOME/ledger/KEYID.jsonl`` (``PBEM_HOME``
defaults to ``$XDG_DATA_HOME/pbem``, else ``~/.local/share/pbem``). Deleting it loses that
protection, nothing else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pbem.errors import TamperError, UsageError

from .keys import KeyPair

HOME_ENV = "PBEM_HOME"
_fsync = os.fsync  # the ledger's own (a game folder's writes are made, and tested, elsewhere)


def home() -> Path:
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV])
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "pbem"


def _path(key: KeyPair) -> Path:
    return home() / "ledger" / f"{key.key_id}.jsonl"


def _entries(key: KeyPair) -> list[dict[str, Any]]:
    p = _path(key)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise UsageError(f"{p}: cannot read the reveal ledger ({e.strerror})",
                         hint=f"pbem keeps there which dice secrets it revealed; set ${HOME_ENV} to a folder of yours.") from e
    out = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut off by an interrupted write: the others stand
        if isinstance(entry, dict):
            out.append(entry)
    return out


def _append(key: KeyPair, entry: dict[str, Any]) -> None:
    p = _path(key)
    line = json.dumps(entry, sort_keys=True, separators=(",", ":")) + "\n"
    try:
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(p, "ab") as f:  # one short line appended: whole or not at all
            f.write(line.encode("utf-8"))
            f.flush()
            _fsync(f.fileno())
    except OSError as e:
        raise UsageError(f"{p}: cannot write the reveal ledger ({e.strerror}); nothing was revealed",
                         hint=f"pbem notes there which dice secrets it revealed; set ${HOME_ENV} to a writable folder.") from e


def join_salt(key: KeyPair, origin: str, fresh: str) -> str:
    """The salt of this key's join of the game whose first state is ``origin``, recorded before the
    join leaves: the one recorded if it joined that game before and revealed nothing of it yet (a
    join written again, after a failed or interrupted run, is the same join), else ``fresh``. A
    game it joined and played is not joined again: its first state is being replayed, and the
    secrets of that chain are known."""
    entries = [e for e in _entries(key) if e.get("origin") == origin]
    joined = [str(e.get("salt")) for e in entries if e.get("join")]
    if any(not e.get("join") for e in entries):
        raise TamperError(f"you joined and played the game whose first state is {origin[:19]}... before (your ledger "
                          f"{_path(key)} says so): this first state is a replay of that game",
                          hint="Do not join it: your dice secrets of that game are known. Ask for a new game.")
    if joined:
        return joined[0]
    _append(key, {"origin": origin, "salt": fresh, "join": True})
    return fresh


def record_reveal(key: KeyPair, origin: str, salt: str, index: int, answers: str) -> None:
    """Before a secret leaves: secret ``index`` of this chain was never revealed for another state,
    and the chain is the one of this key's own join of the game (as far as the ledger knows)."""
    for e in _entries(key):
        if e.get("origin") != origin:
            continue
        if e.get("join") and e.get("salt") != salt:
            raise TamperError(f"the state gives you the salt {salt[:8]}..., but you joined this game with {str(e.get('salt'))[:8]}... "
                              f"(your ledger {_path(key)})", hint="The state builds on another join than yours: do not answer it.")
        if not e.get("join") and e.get("salt") == salt and e.get("index") == index and e.get("answers") != answers:
            raise TamperError(f"your dice secret number {index} of this game was revealed before, for the state "
                              f"{str(e.get('answers'))[:19]}... (your ledger {_path(key)}): a fork or a replay asks for it again",
                              hint="A secret is revealed once. Answer only the history you received first; keep the files.")
    if not any(not e.get("join") and e.get("origin") == origin and e.get("salt") == salt and e.get("index") == index
               for e in _entries(key)):
        _append(key, {"origin": origin, "salt": salt, "index": index, "answers": answers})
