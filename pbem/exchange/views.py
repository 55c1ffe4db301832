"""Views: what one side may see of a state, signed by the referee (README: Referee).

In a refereed game the referee holds the full states. After each step it sends every side a view:
the clock, what is awaited, the public keys and dice commitments, the side's own standing
instructions, the position as the module lets that side see it, and the transition's dice (every
combat involves both sides, so every roll touches the side's units) with the reveals and input
digests needed to re-derive each of them. A view names the digest of the full state it shows
(`pbem.of`) and of the state before it (`pbem.previous`); orders answer the full state's digest.

Checking a series of views (`pbem verify` on a player's folder) proves: every view is sealed by
the referee; the views chain (each one's `previous` is the former one's `of`); every reveal matches
the party's earlier commitment; the seed and every die follow from them. It cannot prove that the
hidden part of the position was adjudicated correctly: that is what the referee is trusted with.
"""

from __future__ import annotations

import copy
from typing import Any

from pbem import FILE_FORMAT
from pbem.engine.registry import find_module
from pbem.errors import TamperError, VerificationError
from pbem.mechanics.dice import face_from_seed

from . import dice as proto
from .canonical import canonical, check_seal, digest, seal, unsealed
from .keys import KeyPair


def view_body(state: dict[str, Any], side: str) -> dict[str, Any]:
    """The unsealed view of ``state`` for ``side`` (deterministic: verify recomputes it)."""
    module = find_module(state["pbem"]["module"])
    h = state["pbem"]
    body: dict[str, Any] = {
        "pbem": {"format": FILE_FORMAT, "kind": "view", "game": h["game"], "module": h["module"], "ruleset": h["ruleset"],
                 "scenario": h["scenario"], "data": h["data"], "sequence": h["sequence"], "origin": h["origin"], "of": digest(state),
                 "side": side, "previous": h["previous"], "inputs": list(h["inputs"]),
                 "dice_algorithm": h["dice_algorithm"], "creator": h["creator"]},
        "parties": copy.deepcopy(state["parties"]),
        "clock": copy.deepcopy(state["clock"]),
        "awaits": copy.deepcopy(state["awaits"]),
        "options": copy.deepcopy(state["options"]),
        "position": module.view_position(state, side),
        "standing": {side: copy.deepcopy(state["standing"][side])} if side in state.get("standing", {}) else {},
    }
    q = state.get("pending", {}).get("question")
    if q and q.get("side") == side:
        body["question"] = copy.deepcopy(q)
    if "result" in state:
        body["result"] = copy.deepcopy(state["result"])
    if "transition" in state:
        body["transition"] = copy.deepcopy(state["transition"])
    return body


def make_views(state: dict[str, Any], key: KeyPair) -> dict[str, dict[str, Any]]:
    """A sealed view for every side of a refereed game; none in a two-player game."""
    if "referee" not in state["parties"]:
        return {}
    return {side: seal(view_body(state, side), "referee", key) for side in sorted(state["parties"]) if side != "referee"}


def check_view_against_state(view: dict[str, Any], state: dict[str, Any], where: str) -> None:
    """A view beside the referee's full state must be exactly that state's view, sealed by the referee."""
    check_seal(view, where, str(state["parties"]["referee"]["key"]))
    if canonical(unsealed(view)) != canonical(view_body(state, str(view["pbem"]["side"]))):
        raise VerificationError(f"{where}: is not the view of the state it names for {view['pbem']['side']}")


def verify_views(views: list[tuple[str, dict[str, Any]]], *, start: tuple[str, dict[str, Any]] | None = None,
                 anchor: str | None = None) -> dict[str, int]:
    """Check a side's series of views: seals, chain, commitments and every die (module docstring).

    The series is trusted from ``start``, the game's first state (which the side joined; its keys
    are the game's), or from the view whose digest, or the digest of whose state, is ``anchor``;
    from there on every view must follow the one before, with no gap, sealed by the referee's key
    and carrying the same keys."""
    if not views:
        return {"views": 0, "dice": 0}
    sides = {v["pbem"]["side"] for _, v in views}
    games = {v["pbem"]["game"] for _, v in views}
    if len(games) > 1:
        raise TamperError(f"the views belong to different games: {', '.join(sorted(games))}")
    if len(sides) > 1:
        raise VerificationError(f"views of several sides given ({', '.join(sorted(sides))}); check one side's views at a time")
    by_seq: dict[int, tuple[str, dict[str, Any]]] = {}
    for where, v in views:
        n = int(v["pbem"]["sequence"])
        if n in by_seq and digest(by_seq[n][1]) != digest(v):
            raise TamperError(f"fork: {by_seq[n][0]} and {where} are two different views of sequence {n}")
        by_seq[n] = (where, v)
    seqs = sorted(by_seq)
    if start is not None:
        swhere, s0 = start
        keys = {p: str(x["key"]) for p, x in s0["parties"].items()}
        first, prev_of = 1, digest(s0)
        if "referee" not in keys:
            raise VerificationError(f"{swhere}: the game has no referee; views are a refereed game's")
        if int(s0["pbem"]["sequence"]) != 0 or s0["pbem"]["game"] != by_seq[seqs[0]][1]["pbem"]["game"]:
            raise TamperError(f"{swhere}: is not the first state of the views' game")
    else:
        held = [n for n in seqs if anchor in (digest(by_seq[n][1]), by_seq[n][1]["pbem"]["of"])]
        if anchor is None or not held:
            raise VerificationError(
                f"the views start at {by_seq[seqs[0]][0]}; pbem trusts them from the game's first state (0000.state.toml, "
                "the state you joined) or from a view you hold (--from DIGEST)",
                hint="Put the game's first state in the folder, or give --from with the digest of a view you trust.")
        first, prev_of = held[0], None
        keys = {p: str(x["key"]) for p, x in by_seq[first][1]["parties"].items()}
    missing = [n for n in range(first, seqs[-1] + 1) if n not in by_seq]
    if missing:
        raise VerificationError(f"views missing from the chain: sequence {', '.join(map(str, missing[:10]))}")
    if seqs[0] < first:
        seqs = [n for n in seqs if n >= first]  # before a --from anchor: vouched for by the digests that follow
    referee_key = keys["referee"]
    dice_checked = 0
    for n in seqs:
        where, v = by_seq[n]
        check_seal(v, where, referee_key)
        if v["seal"]["signer"] != "referee":
            raise TamperError(f"{where}: a view is sealed by the referee, not by '{v['seal']['signer']}'")
        if {p: str(x["key"]) for p, x in v["parties"].items()} != keys:
            raise TamperError(f"{where}: the parties' keys are not the game's")
        tr = v.get("transition", {})
        if tr.get("dice") and not tr.get("reveals"):
            raise TamperError(f"{where}: dice recorded without the reveals they come from")
        if n == first and prev_of is not None:
            if v["pbem"]["previous"] != prev_of:
                raise TamperError(f"{where}: does not follow the game's first state {start[0] if start else ''}: the chain is broken")
            continue  # the joins roll no dice
        if n == first:
            continue
        pwhere, p = by_seq[n - 1]
        if v["pbem"]["previous"] != p["pbem"]["of"]:
            raise TamperError(f"{where}: does not follow {pwhere}: the chain of states is broken")
        tr = v.get("transition", {})
        for party, rev in tr.get("reveals", {}).items():
            if not proto.reveal_matches(rev, p["parties"][party].get("commit", "")):
                raise TamperError(f"{where}: {party}'s dice reveal does not match its commitment in {pwhere}")
        if tr.get("reveals"):
            signed = tr.get("signed_inputs", [])
            if len(signed) != len(v["pbem"]["inputs"]):
                raise TamperError(f"{where}: the transition records {len(signed)} signed-content digests for "
                                  f"{len(v['pbem']['inputs'])} inputs")
            try:
                seed = proto.transition_seed(str(v["pbem"]["previous"]), list(signed), dict(tr["reveals"]))
            except ValueError as e:
                raise TamperError(f"{where}: the seed material is not in its one spelling ({e})") from e
            if tr.get("seed") != seed.hex():
                raise TamperError(f"{where}: the seed does not follow from the reveals and inputs")
            for r in tr.get("dice", []):
                face, _ = face_from_seed(seed, r["label"], int(r["sides"]))
                if face != r["face"]:
                    raise TamperError(f"{where}: die '{r['label']}' is recorded as {r['face']} but the seed gives {face}")
                dice_checked += 1
    return {"views": len(seqs), "dice": dice_checked}
