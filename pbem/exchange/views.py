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
import re
from typing import Any

from pbem import FILE_FORMAT
from pbem.engine.registry import find_module
from pbem.errors import TamperError, VerificationError
from pbem.mechanics.dice import MAX_SIDES, face_from_seed

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


SHARED = ("parties", "clock", "awaits", "options", "transition", "result")  # what every side's view of a state shows alike


def check_views_agree(views: list[tuple[str, dict[str, Any]]]) -> None:
    """The views of one state for several sides show the same parties, clock, awaits, options,
    transition and result: a referee who shows two sides different commitments, dice or steps
    equivocates, and the two views prove it (exit 3)."""
    by_of: dict[str, tuple[str, dict[str, Any]]] = {}
    for where, v in views:
        other = by_of.setdefault(str(v["pbem"]["of"]), (where, v))
        if other[1] is v:
            continue
        for k in SHARED:
            if canonical(v.get(k)) != canonical(other[1].get(k)):
                raise TamperError(f"equivocation: the referee's views of one state for {other[1]['pbem']['side']} ({other[0]}) "
                                  f"and {v['pbem']['side']} ({where}) show different {k}",
                                  hint="Both views carry the referee's seal: together they prove it. Keep them.")


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
        first = int(s0["pbem"]["sequence"]) + 1
        if "referee" not in keys:
            raise VerificationError(f"{swhere}: the game has no referee; views are a refereed game's")
        if s0["pbem"]["game"] != by_seq[seqs[0]][1]["pbem"]["game"]:
            raise TamperError(f"{swhere}: is not a state of the views' game")
        seqs = [n for n in seqs if n >= first]  # views of the trusted state itself or before: compared with states elsewhere
        if not seqs:
            return {"views": 0, "dice": 0}
    else:
        held = [n for n in seqs if anchor in (digest(by_seq[n][1]), by_seq[n][1]["pbem"]["of"])]
        if anchor is None or not held:
            raise VerificationError(
                f"the views start at {by_seq[seqs[0]][0]}; pbem trusts them from the game's first state (0000.state.toml, "
                "the state you joined) or from a view you hold (--from DIGEST)",
                hint="Put the game's first state in the folder, or give --from with the digest of a view you trust.")
        first = held[0]
        keys = {p: str(x["key"]) for p, x in by_seq[first][1]["parties"].items()}
    missing = [n for n in range(first, seqs[-1] + 1) if n not in by_seq]
    if missing:
        raise VerificationError(f"views missing from the chain: sequence {', '.join(map(str, missing[:10]))}")
    if seqs[0] < first:
        seqs = [n for n in seqs if n >= first]  # before a --from anchor: vouched for by the digests that follow
    referee_key = keys["referee"]
    dice_checked = 0
    prev_view: tuple[str, dict[str, Any]] | None = None
    if start is not None:
        prev_view = start
    for n in seqs:
        where, v = by_seq[n]
        check_seal(v, where, referee_key)
        if v["seal"]["signer"] != "referee":
            raise TamperError(f"{where}: a view is sealed by the referee, not by '{v['seal']['signer']}'")
        if {p: str(x["key"]) for p, x in v["parties"].items()} != keys:
            raise TamperError(f"{where}: the parties' keys are not the game's")
        if n == first and start is None:
            prev_view = (where, v)
            continue  # the anchor: trusted as it is
        assert prev_view is not None
        pwhere, p = prev_view
        p_of = digest(p) if p["pbem"]["kind"] == "state" else p["pbem"]["of"]
        if v["pbem"]["previous"] != p_of:
            raise TamperError(f"{where}: does not follow {pwhere}: the chain of states is broken")
        dice_checked += _check_view_transition(where, v, pwhere, p, keys)
        prev_view = (where, v)
    return {"views": len(seqs), "dice": dice_checked}


def _check_view_transition(where: str, v: dict[str, Any], pwhere: str, p: dict[str, Any], keys: dict[str, str]) -> int:
    """A view's transition from the state the former view (or the first state) shows: every input's
    dice attested by its sender, the reveals those of the step's senders and referee, each matching
    its earlier commitment, the seed from them, each die from the seed. Returns the dice checked."""
    tr = v.get("transition", {})
    aw = p["awaits"]
    defaulted = set(map(str, tr.get("defaulted", [])))
    senders = set(map(str, aw["from"])) - defaulted
    attestations = tr.get("attestations", {})
    if set(attestations) != senders:
        raise TamperError(f"{where}: the transition attests the dice of {', '.join(sorted(attestations)) or 'nobody'}; "
                          f"the step awaited {', '.join(sorted(senders)) or 'nobody'}")
    for side, a in sorted(attestations.items()):
        header = {"game": v["pbem"]["game"], "answers": a["answers"], "step": a["step"], "side": side, "dice_index": a["dice_index"]}
        if not proto.attested(keys[side], header, a):
            raise TamperError(f"{where}: {side}'s dice attestation is not {side}'s signature: the referee cannot vouch for "
                              "another party's dice", hint="Keep the view as proof, and ask the referee for the signed file.")
        if a["answers"] != v["pbem"]["previous"] or a["step"] != aw["step"] or int(a["dice_index"]) != int(p["parties"][side]["index"]):
            raise TamperError(f"{where}: {side}'s attested dice answer another state, step or index than the transition's")
        if a["commit"] != v["parties"][side].get("commit") or ("salt" in a and a["salt"] != v["parties"][side].get("salt")):
            raise TamperError(f"{where}: {side}'s commitment in the view is not the one {side} attested")
    reveals = tr.get("reveals", {})
    if aw["kind"] == "join" and int(p["pbem"]["sequence"]) != 0:
        raise TamperError(f"{pwhere}: awaits joins, but only the game's first state does")
    if aw["kind"] == "join":
        if reveals or tr.get("dice") or tr.get("seed"):
            raise TamperError(f"{where}: the transition from the joins rolls no dice, but dice, reveals or a seed are recorded")
        return 0
    expected = senders | {str(aw["adjudicator"])}
    if set(reveals) != expected:
        raise TamperError(f"{where}: reveals recorded for {', '.join(sorted(reveals)) or 'nobody'}; the step's seed takes "
                          f"those of {', '.join(sorted(expected))}")
    for party, rev in reveals.items():
        if party in attestations and attestations[party].get("reveal") != rev:
            raise TamperError(f"{where}: {party}'s reveal is not the one {party} attested")
        if not proto.reveal_matches(rev, p["parties"][party].get("commit", "")):
            raise TamperError(f"{where}: {party}'s dice reveal does not match its commitment in {pwhere}")
    for party, x in v["parties"].items():
        if party not in expected and x.get("commit") != p["parties"][party].get("commit"):
            raise TamperError(f"{where}: {party}'s commitment changed though {party} revealed nothing")
        if party in expected and x.get("commit") in {str(y.get("commit")) for y in p["parties"].values()}:
            raise TamperError(f"{where}: {party} commits again to a secret already committed to: its next secret would be known")
    try:
        seed = proto.transition_seed(str(v["pbem"]["previous"]), dict(reveals))
    except ValueError as e:
        raise TamperError(f"{where}: the seed material is not in its one spelling ({e})") from e
    if tr.get("seed") != seed.hex():
        raise TamperError(f"{where}: the seed does not follow from the reveals and the previous state")
    labels: set[str] = set()
    for r in tr.get("dice", []):
        label, sides = r["label"], r["sides"]
        if not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES or not _LABEL.fullmatch(str(label)) or label in labels:
            raise TamperError(f"{where}: die {str(label)[:60]!r} of {sides} sides is not a die the rules roll "
                              f"(a label is 'rule|step|...' without spaces around its bars, once; 2 to {MAX_SIDES} sides)")
        labels.add(label)
        face, _ = face_from_seed(seed, label, sides)
        if face != r["face"]:
            raise TamperError(f"{where}: die '{label}' is recorded as {r['face']} but the seed gives {face}")
    return len(labels)


# A die's label: its rule, its step and its purpose, separated by bars, with no space next to a bar.
_LABEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z.\-]*(\|[^|\s](?:[^|]*[^|\s])?){2,}")
