"""One trusted chain: every check of a game's history, made here and nowhere else (docs/protocol.md:
What `pbem verify` proves, Equivocation, Views, Before a secret is revealed).

A ``Chain`` holds the documents of a game folder, of the files given, or of a folder and the files
of a mail, each parsed with its seal checked first: the states, the views, the join, order and
reply files that answer them, and the reports derived from the transitions. Its methods are the
checks, from one link to the whole history:

- ``check_seals``: each signed file's own seal; ``equivocation``: two different files signed by one
  party for one step; ``fork``: two states (or two views of one side) with one sequence number;
- ``trust``: where the history starts: state 0 re-derived (``check_origin``), or a state named with
  ``--from``;
- ``follow``: a state continues the one before it (the digest it names, the adjudicator's seal, the
  game's keys) and, its inputs at hand, replays (``transition``); ``fresh_commitments``: no party
  commits again to a secret already committed to; ``check_derived``: its report and picture;
- ``view_of``: a view beside the full state it shows; ``follow_views``: a side's views on their
  own (seals, chain, attested dice, commitments, seed, each die); ``views_agree``: two sides'
  views of one state show one story.

``verify`` (`pbem verify`), ``audit`` (`pbem audit`), ``check_before_reveal`` (`pbem sign` and
`pbem adjudicate`, before they reveal a secret) and the intake of `pbem mail read`
(pbem/exchange/mail.py) are its users.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pbem import __version__
from pbem.engine.model import Event
from pbem.errors import (
    IllegalOrdersError,
    MalformedFileError,
    PbemError,
    Problem,
    TamperError,
    UsageError,
    VerificationError,
)
from pbem.mechanics.dice import ALGORITHM, MAX_SIDES, face_from_seed, hmac_stream

from . import contentcache, names
from . import dice as proto
from .canonical import canonical, content_digest, unsealed
from .deadlines import RULE as DEADLINE_RULE
from .files import read_bytes
from .game import (
    Doc,
    adjudicator_of,
    answered,
    check_state_seal,
    derived_files,
    envelope,
    load_doc,
    load_state,
    next_state,
    replay_tag,
    sealed_with,
    side_reports,
    state_zero,
)
from .keys import KeyPair, key_id
from .report import report_version
from .views import SHARED, view_body

MISSING_SHOWN = 10  # sequence numbers named when states are missing from a chain

Label = Callable[[Doc], str]


def by_path(doc: Doc) -> str:
    """How a chain names a document in its messages: by where it was read (a path, or a place in a mail)."""
    return str(doc.path)


def sequence_of(doc: Doc) -> int:
    return int(doc.data["pbem"]["sequence"])


def keys_of(doc: Doc) -> dict[str, str]:
    """The parties' public keys a state or view records."""
    return {p: str(v["key"]) for p, v in doc.data["parties"].items()}


def same_keys(doc: Doc, keys: dict[str, str] | None) -> None:
    """A state or view records the game's ``keys`` (where given): keys never change in a game."""
    if keys is not None and keys_of(doc) != keys:
        raise TamperError(f"{doc.path}: the parties' keys are not the game's", hint="Keys never change in a game: do not accept it.")


def check_origin(first: Doc) -> str:
    """State 0 must be exactly the start of a known game: its module's state 0 for its scenario,
    options, parties and creator (re-derived). Returns how it was trusted."""
    h = first.data["pbem"]
    parties = first.data["parties"]
    sides = {p: str(v["key"]) for p, v in parties.items() if p != "referee"}
    referee = str(parties["referee"]["key"]) if "referee" in parties else None
    try:
        dl = first.data.get("deadlines")
        body = state_zero(str(h["module"]), str(h["scenario"]), sides, referee, str(h["creator"]), str(h["game"]),
                          dict(first.data["options"]), dict(dl) if isinstance(dl, dict) else None,
                          first.data["awaits"].get("since"))
    except PbemError as e:
        raise VerificationError(f"{first.path}: not the start of a game this pbem knows ({e.message})",
                                hint="A history is trusted from its start (state 0000) or from a state you hold (--from DIGEST).") from e
    if canonical(body) != canonical(unsealed(first.data)):
        raise VerificationError(f"{first.path}: is not the state 0 of scenario '{h['scenario']}' with its options and parties "
                                f"(first difference at {first_difference(body, unsealed(first.data))})",
                                hint="A game's first state is what `pbem new` makes; this one was made otherwise: do not trust it.")
    check_state_seal(first, str(h["creator"]))
    return f"the game's start, re-derived from scenario '{h['scenario']}'"


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two documents first differ, as a dotted path (``transition.dice[0].face``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".")
            if canonical(a[k]) != canonical(b[k]):
                return first_difference(a[k], b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if canonical(x) != canonical(y):
                return first_difference(x, y, f"{path}[{i}]")
        return f"{path} (length {len(a)} vs {len(b)})"
    return path.lstrip(".") or "(top)"


# --- two files for one place in the history --------------------------------------------------------

@dataclass(frozen=True)
class Equivocation:
    """Two different signed contents by one key for one step: the proof is the two files themselves
    (anyone can check both seals and compare what they answer)."""

    what: str  # "submission" or "state"
    first: Doc
    second: Doc

    def error(self) -> TamperError:
        a, b = self.first, self.second
        signer = str(a.data["seal"]["signer"])
        key = str(a.data["seal"]["key"])
        if self.what == "state":
            step = f"state {names.number(sequence_of(a))} (after {str(a.data['pbem']['previous'])[:19]}...)"
        else:
            h = a.data["pbem"]
            step = f"{h['kind']} for step {h['step']} answering {str(h['answers'])[:19]}..."
        problems = [Problem(str(d.path), f"sealed by {signer} (key {key_id(key)}), digest {d.digest}, signed content {content_digest(d.data)}",
                            "equivocation") for d in (a, b)]
        if self.what == "submission" and a.kind == "join" and b.kind == "join":
            return TamperError(
                f"two joins by '{signer}' of one first state ({str(a.data['pbem']['answers'])[:19]}...): {a.path} and {b.path}; "
                "its creator offered that first state twice (a replayed game), or the party joined it twice",
                problems, hint="Answer only the game you joined first. A party's ledger (pbem join) refuses to join a game it played.")
        return TamperError(
            f"equivocation: '{signer}' signed two different files for one step, {step}: {a.path} and {b.path}",
            problems,
            hint="Both seals are valid: the two files prove that this party signed both (check them with `pbem verify` "
                 "on the two files alone). Keep them; accept only the first one you received, and see docs/dice.md (Equivocation).")


def find_equivocation(docs: Iterable[Doc]) -> Equivocation | None:
    """The first pair of well-sealed files by one key for one step with different signed content:
    two submissions answering one state for one side, or two states with one sequence number (or
    one previous state). Files with a broken seal are not counted (they are forgeries, reported as
    such)."""
    seen: dict[tuple[str, ...], Doc] = {}
    for d in sorted(docs, key=lambda x: str(x.path)):
        if "seal" not in d.data:
            continue
        h = d.data["pbem"]
        if d.kind in names.SUBMISSIONS:  # an agreement on the deadline is not the side's submission for the step
            keys = [("agreement" if d.kind == "agree" else "submission", str(h["game"]), str(h["answers"]), str(h["side"]))]
        elif d.kind == "state":
            keys = [("state", str(h["game"]), "seq", str(h["sequence"]))]
            if h["previous"]:
                keys.append(("state", str(h["game"]), "prev", str(h["previous"])))
        else:
            continue
        try:
            sealed_with(d, str(d.path))
        except TamperError:
            continue
        for k in keys:
            other = seen.get((*k, str(d.data["seal"]["key"])))
            if other is None:
                seen[(*k, str(d.data["seal"]["key"]))] = d
            elif content_digest(other.data) != content_digest(d.data):
                return Equivocation(k[0], other, d)
    return None


@dataclass(frozen=True)
class Fork:
    """Two different states (or two different views of one side) with one sequence number: two
    histories, of which at most one is the game."""

    kind: str  # "state" or "view"
    sequence: int
    first: Doc
    second: Doc

    def error(self) -> TamperError:
        return TamperError(f"fork: {self.first.path} and {self.second.path} are two different {self.kind}s with sequence number "
                           f"{self.sequence}", hint="Only one of them can be the game; find out who sent which.")


# --- the chain ------------------------------------------------------------------------------------

@dataclass
class VerifyResult:
    states: int = 0
    transitions: int = 0
    reports: int = 0
    pictures: int = 0
    views: int = 0
    dice: int = 0
    last: str = ""
    anchor: str = ""  # the state the history is trusted from
    anchor_digest: str = ""
    anchor_how: str = ""  # why it is trusted: the game's start re-derived, or named with --from
    notes: list[str] = field(default_factory=list)


class Chain:
    """The documents of one game's history and every check of it (module docstring). ``label``
    names a neighbouring document in messages: by default where it was read."""

    def __init__(self, docs: Iterable[Doc] = (), label: Label = by_path) -> None:
        self.states: list[Doc] = []
        self.views: list[Doc] = []
        self.submissions: list[Doc] = []  # join, order, reply and reveal files
        self.inputs: dict[str, Doc] = {}  # the submissions by digest: what states name as their inputs
        self.reports: dict[tuple[int, str | None], Path] = {}  # by sequence number and side (None: the full report)
        self.label = label
        for d in docs:
            self.add(d)

    @classmethod
    def read(cls, paths: Iterable[Path], *, quiet: bool = False, label: Label = by_path) -> Chain:
        """The game files of folders (every file there but hidden ones) and of files; each TOML file
        parsed with its seal first. A file that cannot be read stops it, or with ``quiet`` is left out."""
        files: list[Path] = []
        for p in paths:
            if p.is_dir():
                files += sorted(x for x in p.iterdir() if x.is_file() and not x.name.startswith("."))
            elif p.is_file():
                files.append(p)
            else:
                raise MalformedFileError(f"{p}: no such file or folder")
        preload(files)
        chain = cls(label=label)
        for f in files:
            n = names.parse(f.name)
            if n is not None and n.kind == "report":
                chain.reports[(n.sequence, n.side)] = f
            elif f.suffix == ".toml":
                try:
                    chain.add(load_doc(f))
                except PbemError:
                    if not quiet:
                        raise
        return chain

    def add(self, doc: Doc) -> None:
        {"state": self.states, "view": self.views}.get(doc.kind, self.submissions).append(doc)
        if doc.kind in names.SUBMISSIONS:
            self.inputs[doc.digest] = doc

    @property
    def docs(self) -> list[Doc]:
        """Every document, in the order of the places they were read from."""
        return sorted(self.states + self.views + self.submissions, key=lambda d: str(d.path))

    def has_inputs(self, state: Doc) -> bool:
        return all(str(dg) in self.inputs for dg in state.data["pbem"]["inputs"])

    def held(self, answers: str, side: str) -> list[Doc]:
        """The sealed order, reply and reveal files of ``side`` answering the state ``answers``: a side
        a referee adjudicates "without its orders" whose orders are here."""
        return [d for d in self.submissions if d.kind in ("orders", "reply", "reveal") and d.data["pbem"].get("answers") == answers
                and d.data["pbem"].get("side") == side and "seal" in d.data]

    # --- each file on its own, and two files for one place --------------------------------------

    def check_seals(self) -> None:
        """Every signed file's seal, checked first against the key its own signer has in it (a state)
        or that signs it (a submission): a file changed after it was signed is tampering, whatever its
        changed fields say (a sequence number, a step, a side). Whose key it must be is the chain's
        question, asked next."""
        for d in self.states:
            check_state_seal(d)
        for d in self.submissions:
            if "seal" in d.data:
                sealed_with(d, str(d.path))

    def equivocation(self) -> Equivocation | None:
        return find_equivocation(self.states + self.submissions)

    @staticmethod
    def fork(docs: Iterable[Doc]) -> Fork | None:
        """The first two different documents with one sequence number (states; views of one side)."""
        seen: dict[tuple[str, int, str], Doc] = {}
        for d in docs:
            k = (d.kind, sequence_of(d), str(d.data["pbem"].get("side", "")))
            if k in seen and seen[k].digest != d.digest:
                return Fork(d.kind, k[1], seen[k], d)
            seen[k] = d
        return None

    @classmethod
    def by_sequence(cls, docs: list[Doc]) -> dict[int, Doc]:
        """Documents of one kind (and side) by sequence number; a fork stops it (exit 3)."""
        fork = cls.fork(docs)
        if fork is not None:
            raise fork.error()
        return {sequence_of(d): d for d in docs}

    # --- the history, from where it is trusted ----------------------------------------------------

    def trust(self, by_seq: dict[int, Doc], anchor: str | None, res: VerifyResult) -> None:
        """Where the history is trusted from: the game's first state, re-derived, or the state whose
        digest the player holds (``anchor``, --from)."""
        seqs = sorted(by_seq)
        if anchor is None:
            first = by_seq[seqs[0]]
            if seqs[0] != 0:
                raise VerificationError(f"the history starts at {first.path} (sequence {seqs[0]}), not at the game's first state",
                                        hint="pbem trusts a history from its start (0000.state.toml), or from a state you hold: "
                                             "give its digest with --from (`pbem status` prints it).")
            res.anchor, res.anchor_digest, res.anchor_how = str(first.path), first.digest, check_origin(first)
            return
        held = [d for d in self.states if d.digest == anchor]
        if not held:
            raise VerificationError(f"--from {anchor[:19]}...: no state among the files given has this digest",
                                    hint="Give the digest `pbem status` prints for the state you hold (sha256:...).")
        res.anchor, res.anchor_digest, res.anchor_how = str(held[0].path), anchor, "named with --from"

    def link(self, prev: Doc, cur: Doc) -> None:
        """``cur`` (a state, or a view) names the digest of ``prev`` (a state, or the state a view shows)
        as the state before it."""
        if cur.data["pbem"]["previous"] != answered(prev):
            raise TamperError(f"{cur.path}: its previous-state digest is not that of {self.label(prev)}: the chain is broken",
                              hint="It does not continue this game's history: do not accept it.")

    def follow(self, prev: Doc, cur: Doc, *, keys: dict[str, str] | None = None, replay: bool = True,
               notes: list[str] | None = None, events: bool = True) -> list[Event] | None:
        """``cur`` continues ``prev``: it names its digest (so a trusted state vouches for every state
        before it), and it is sealed by the party ``prev`` names as adjudicator, with ``keys`` (the
        game's, where they are given: a history whose transitions are not all replayed holds every
        state to them); with ``replay``, the transition replays (``transition``). Returns the replay's
        events (None if not replayed)."""
        self.link(prev, cur)
        if replay:
            return self.transition(prev, cur, notes, keys, events=events)
        check_state_seal(cur, adjudicator_of(prev.data))
        same_keys(cur, keys)
        return None

    def transition(self, prev: Doc, cur: Doc, notes: list[str] | None = None, keys: dict[str, str] | None = None, *,
                   events: bool = True) -> list[Event]:
        """One transition of the trusted chain: ``cur`` sealed by the adjudicator ``prev`` names, with
        the same key (and the game's ``keys`` for every party, where given); every input present,
        sealed, awaited, revealing its committed secret; sides adjudicated without their orders only by
        a referee; and the replay of the rules giving exactly ``cur``. Returns the replay's events."""
        adj = adjudicator_of(prev.data)
        check_state_seal(cur, adj)
        same_keys(cur, keys)
        if cur.data["parties"][adj]["key"] != prev.data["parties"][adj]["key"]:
            raise TamperError(f"{cur.path}: the key of '{adj}' changed")
        inputs = self.inputs
        subs = []
        for dg in cur.data["pbem"]["inputs"]:
            if dg not in inputs:
                raise VerificationError(f"{cur.path}: input {dg[:19]}... is not in the folder",
                                        hint="Put every order, join and reply file of the game in the folder.")
            subs.append(envelope(prev, inputs[dg]).submission)
        tr = cur.data.get("transition", {})
        defaulted = list(tr.get("defaulted", []))
        if defaulted and adj != "referee" and "deadlines" not in prev.data:
            raise VerificationError(f"{cur.path}: records sides adjudicated without their orders ({', '.join(map(str, defaulted))}), "
                                    "which only a referee may do in a game without deadlines",
                                    hint="The adjudicator's state is not what the rules give: do not accept it.")
        for side in defaulted:
            held = self.held(prev.digest, side)
            if held and notes is not None:
                notes.append(f"{cur.path}: adjudicated without {side}'s orders, but {held[0].path}, sealed by {side} for that very "
                             "state, is in the folder: they arrived late, or the referee had them (ask him, with both files)")
        reveal = tr.get("reveals", {}).get(adj) if prev.data["awaits"]["kind"] != "join" else None
        commit = cur.data["parties"][adj].get("commit")
        replayed = replay_tag(prev, cur) if cur.memo is not None else None
        if not events and replayed is not None and cur.memo is not None and cur.memo.has(replayed):
            return []  # these bytes were found to follow from prev before (contentcache.py); no events asked for
        files = {inputs[dg].data["pbem"]["side"]: str(inputs[dg].path) for dg in cur.data["pbem"]["inputs"]} | {"@state": str(cur.path)}
        try:
            expected, found = next_state(prev, subs, reveal, commit, defaulted, tr.get("openings", {}).get(adj), files,
                                          tr.get("hidden_reveals", {}).get(adj), tr.get("at"))
        except UsageError as e:
            raise VerificationError(f"{cur.path}: {e.message}") from e
        except IllegalOrdersError as e:
            if not any(p.rule == DEADLINE_RULE for p in e.problems):  # the rules refuse an input: name the state and files
                sent = ", ".join(f"{side}: {path}" for side, path in sorted(files.items()) if side != "@state")
                raise IllegalOrdersError(f"{cur.path}: {e.message}" + (f" (its inputs {sent})" if sent else ""),
                                         e.problems, e.hint) from e
            raise VerificationError(f"{cur.path}: {e.message}", e.problems, e.hint) from e  # a deadline the state broke
        if canonical(expected) != canonical(unsealed(cur.data)):
            diff = first_difference(expected, unsealed(cur.data))
            raise VerificationError(f"{cur.path}: does not follow from {self.label(prev)}, its inputs and the revealed dice "
                                    f"(first difference at {diff})",
                                    hint="The adjudicator's state is not what the rules give: do not accept it.")
        if replayed is not None and cur.memo is not None:
            cur.memo.record(replayed)
        return found

    @staticmethod
    def fresh_commitments(prev: Doc, cur: Doc, seen: set[str]) -> None:
        """No party commits again to a secret already committed to (and revealed) earlier in the game:
        its next reveal, and with it the next seed, would be known. ``seen``: the commitments of the
        history so far, to which ``cur``'s are added."""
        for party, v in cur.data["parties"].items():
            c = v.get("commit")
            if c is not None and c != prev.data["parties"][party].get("commit") and c in seen \
                    or party in cur.data.get("transition", {}).get("reveals", {}) and c == prev.data["parties"][party].get("commit"):
                raise TamperError(f"{cur.path}: {party} commits again to a dice secret already committed to (and revealed) "
                                  "earlier in the game", hint="A secret is used once; the next one is new.")
            if c is not None:
                seen.add(str(c))

    def check_derived(self, prev: Doc, cur: Doc, events: list[Event], res: VerifyResult) -> None:
        """The report of the transition that made ``cur``, each side's report and the picture, where
        present, are exactly the ones derived from it (only a report written by this pbem is
        compared: the rendering may change between versions)."""
        n = sequence_of(cur)
        path = self.reports.get((n, None))
        if path is None:
            return
        written = path.read_text(encoding="utf-8", errors="replace")
        by = report_version(written)
        if by is not None and by != __version__:
            res.notes.append(f"{path}: written by pbem {by}; reports and pictures are compared only with the pbem that wrote them")
            return
        pic_path = path.parent / names.picture(n)
        compare = pic_path.exists()
        text, picture = derived_files(prev.data, cur.data, events, picture=compare)
        if written != text:
            raise VerificationError(f"{path}: the report does not match the transition it describes",
                                    hint="A report is derived from its transition; regenerate it or find out who changed it.")
        res.reports += 1
        for side, side_text in side_reports(prev.data, cur.data, events).items():
            sp = self.reports.get((n, side))
            if sp is not None:
                if sp.read_text(encoding="utf-8", errors="replace") != side_text:
                    raise VerificationError(f"{sp}: the {side} side's report does not match the transition it describes")
                res.reports += 1
        if picture is not None and compare:
            if pic_path.read_text(encoding="utf-8", errors="replace") != picture:
                raise VerificationError(f"{pic_path}: the picture does not match the transition it shows")
            res.pictures += 1

    # --- the whole history: `pbem verify` ---------------------------------------------------------

    def verify(self, anchor: str | None = None, progress: Callable[[int, int], None] | None = None) -> VerifyResult:
        """Signatures, the chain, the commitments and a deterministic replay of every transition,
        trusted from the game's first state (re-derived) or from the state whose digest is ``anchor``;
        the reports, pictures and views beside them (docs/protocol.md, What `pbem verify` proves)."""
        self.check_seals()
        eq = self.equivocation()
        if eq is not None:
            raise eq.error()
        states, views = self.states, self.views
        if views and all(sequence_of(d) == 0 for d in states):
            return self._verify_views(anchor)
        if not states:
            if self.submissions:
                raise VerificationError("no state files found; the order, join and reply files given have good seals "
                                        "and no two of them conflict",
                                        hint="Give a game folder or its .state.toml files to check a history.")
            raise MalformedFileError("no state files found", hint="Give a game folder or its .state.toml files.")
        games = {d.data["pbem"]["game"] for d in states}
        if len(games) > 1:
            raise TamperError(f"the files belong to different games: {', '.join(sorted(games))}")
        by_seq = self.by_sequence(states)
        seqs = sorted(by_seq)
        res = VerifyResult()
        self.trust(by_seq, anchor, res)
        # the gaps between the sequence numbers found, as numbers or ranges (an absurd number is one gap)
        gaps = [(a + 1, b - 1) for a, b in zip(seqs, seqs[1:], strict=False) if b - a > 1]
        if gaps:
            missing = ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}-{b}" for a, b in gaps)
            raise VerificationError(f"states missing from the chain: sequence {missing}")
        res.states = 1
        seen_commits = {str(v["commit"]) for v in by_seq[seqs[0]].data["parties"].values() if "commit" in v}
        replayed = replays(self, by_seq, seqs[1:])
        try:
            for n in seqs[1:]:
                prev, cur = by_seq[n - 1], by_seq[n]
                if progress:
                    progress(n, seqs[-1])
                done = next(replayed)
                if done is None:  # replayed here, in order: the first failure is the one raised
                    events = self.follow(prev, cur, notes=res.notes)
                    assert events is not None
                    self.fresh_commitments(prev, cur, seen_commits)
                    self.check_derived(prev, cur, events, res)
                else:  # replayed by a worker, which found nothing wrong; the checks of the chain, here in order
                    self.link(prev, cur)
                    res.notes += done.transition_notes
                    self.fresh_commitments(prev, cur, seen_commits)
                    res.notes += done.notes
                    res.reports += done.reports
                    res.pictures += done.pictures
                res.transitions += 1
                res.states += 1
        finally:
            replayed.close()  # the workers stop at the first failure
        last = by_seq[seqs[-1]]
        by_digest = {d.digest: d for d in states}
        beyond: list[Doc] = []
        for v in views:
            st = by_digest.get(str(v.data["pbem"]["of"]))
            if st is not None:
                self.view_of(v, st)
                res.views += 1
            elif sequence_of(v) > seqs[-1]:
                beyond.append(v)  # the referee's later states are not here: checked as a player checks them
            else:
                raise TamperError(f"{v.path}: shows a state {names.number(sequence_of(v))} other than the one here",
                                  hint="The referee's view does not show his state: keep both as proof.")
        for side in sorted({str(v.data["pbem"]["side"]) for v in beyond}):
            c = self.follow_views([v for v in beyond if v.data["pbem"]["side"] == side], start=last)
            res.views += c["views"]
            res.dice += c["dice"]
        self.views_agree(views)
        res.last = str(last.path)
        return res

    def _verify_views(self, anchor: str | None) -> VerifyResult:
        """A player's folder in a refereed game: the game's first state (or --from a view he holds)
        and his views; the hidden part of each transition is the referee's to adjudicate."""
        views = self.views
        res = VerifyResult()
        start = None
        if self.states:
            start = self.states[0]
            res.anchor, res.anchor_digest, res.anchor_how = str(start.path), start.digest, check_origin(start)
        self.views_agree(views)  # two sides shown two stories: proof on its own
        counts = {"views": 0, "dice": 0}
        for side in sorted({str(d.data["pbem"]["side"]) for d in views}):
            c = self.follow_views([d for d in views if d.data["pbem"]["side"] == side], start=start, anchor=anchor)
            counts = {k: counts[k] + c[k] for k in counts}
        if start is None:
            anchored = next(d for d in views if anchor in (d.digest, d.data["pbem"]["of"]))
            res.anchor, res.anchor_digest, res.anchor_how = str(anchored.path), str(anchor), "named with --from"
        last = max(views, key=sequence_of)
        res.views, res.dice, res.last = counts["views"], counts["dice"], str(last.path)
        res.notes = ["views only: seals, chain, commitments and dice checked; the hidden part of each "
                     "transition is the referee's to adjudicate (docs/referee.md)"]
        return res

    # --- before a secret is revealed ----------------------------------------------------------------

    def check_before_reveal(self, state: Doc, party: str, key: KeyPair) -> None:
        """Before ``party`` reveals a dice secret for ``state`` (signing a file that answers it, or
        adjudicating it), the state must continue the game's history as this chain (the folder beside
        it) holds it, so that no forged, forked or replayed state can draw a secret out of its turn
        (docs/protocol.md, Before a secret is revealed): the game's first state as `pbem new` makes it;
        every state since sealed by the adjudicator the one before names, with the game's keys, one per
        sequence number; the last transition replayed (in a refereed game, the side's views from the
        first state); the party's own join, sealed by its key, the only one for this game, with the salt
        the state records; and the secret not already revealed, in any file of the folder, for another
        state."""
        folder = state.path.parent
        zero_path = folder / names.state(0)
        if not zero_path.is_file():
            raise UsageError(f"{state.path}: pbem reveals your dice secret only for a state whose history it can check from "
                             f"the game's first state, and {zero_path} is not there",
                             hint=f"Keep the game's files in one folder ({names.state(0)} and your join at least).")
        zero = load_state(zero_path)
        check_origin(zero)
        docs = self.docs
        fork = self.fork(d for d in docs if d.kind in ("state", "view"))
        if fork is not None:
            raise TamperError(f"{state.path}: {fork.first.path} and {fork.second.path} are two different {fork.kind}s with sequence "
                              f"number {fork.sequence} (a fork): pbem reveals no secret in a game that has two histories",
                              hint="Keep both files as proof; answer only the history you received first.")
        n = sequence_of(state)
        if state.kind == "view":
            side = state.data["pbem"]["side"]
            views = [d for d in self.views if d.data["pbem"]["side"] == side and sequence_of(d) <= n]
            if not any(d.digest == state.digest for d in views):
                views.append(state)
            self.follow_views(views, start=zero)
        else:
            by_seq = {sequence_of(d): d for d in self.states} | {n: state, 0: zero}
            missing = [k for k in range(n + 1) if k not in by_seq]
            if missing:
                raise UsageError(f"{state.path}: states {', '.join(names.number(k) for k in missing[:MISSING_SHOWN])} are not in "
                                 "the folder, so pbem cannot check the history this state continues",
                                 hint="Keep every state of the game in its folder.")
            # every state chained and sealed with the game's keys; replayed: the transition this state
            # comes from, which nobody has checked yet
            keys = keys_of(zero)
            for k in range(1, n + 1):
                self.follow(by_seq[k - 1], by_seq[k], keys=keys, replay=k == n, events=False)
        origin = zero.digest
        party_rec = state.data["parties"].get(party)
        if party_rec is None or "salt" not in party_rec:
            raise TamperError(f"{state.path}: {party} has not joined this game")
        my_key = str(zero.data["parties"][party]["key"])
        salts = set()
        for d in self.submissions:
            if d.kind == "join" and d.data["pbem"]["side"] == party and d.data["pbem"]["answers"] == origin and "seal" in d.data:
                try:
                    sealed_with(d, str(d.path), my_key)
                except TamperError:
                    continue
                salts.add(str(d.data.get("dice", {}).get("salt")))
        if len(salts) > 1:
            raise TamperError(f"{folder}: holds {len(salts)} joins of {party} for this game, with different salts: the game's first "
                              "state was offered twice (replayed)", hint="Answer only the game you joined first; keep the files as proof.")
        if salts != {str(party_rec["salt"])}:
            raise TamperError(f"{state.path}: the salt it records for {party} is not the one of {party}'s join in {folder}",
                              hint="The state builds on another join than yours (a replayed game?): do not answer it.")
        index = int(party_rec["index"])
        secret = proto.secret(key, origin, str(party_rec["salt"]), index)
        here = answered(state)
        for d in docs:
            h = d.data["pbem"]
            if d.kind in ("orders", "reply", "reveal") and d.data.get("dice", {}).get("reveal") == secret and h.get("answers") != here:
                raise TamperError(f"{state.path}: your secret number {index} was already revealed by {d.path}, for another state",
                                  hint="A secret is revealed once: this state is a fork or a replay; do not answer it.")
            if d.kind in ("state", "view") and d.data.get("transition", {}).get("reveals", {}).get(party) == secret \
                    and h.get("previous") != here:
                raise TamperError(f"{state.path}: your secret number {index} was already revealed in {d.path}, for another state",
                                  hint="A secret is revealed once: this state is a fork or a replay; do not answer it.")

    # --- views ------------------------------------------------------------------------------------

    @staticmethod
    def referee_key(view: Doc, start: Doc) -> str:
        """The referee's key as ``start`` (a trusted state or view, or the state a view shows) records it."""
        referee = start.data["parties"].get("referee")
        if referee is None:
            raise TamperError(f"{view.path}: a view, but in the game here ({start.path}) there is no referee to make one",
                              hint="Views come only from the referee of a refereed game: do not accept it.")
        return str(referee["key"])

    @staticmethod
    def sealed_by_referee(view: Doc, keys: dict[str, str]) -> None:
        """A view is sealed by the referee, with the referee's key among the game's ``keys``, and
        records those keys."""
        sealed_with(view, str(view.path), keys["referee"])
        if view.data["seal"]["signer"] != "referee":
            raise TamperError(f"{view.path}: a view is sealed by the referee, not by '{view.data['seal']['signer']}'")
        same_keys(view, keys)

    def view_of(self, view: Doc, state: Doc) -> None:
        """A view beside the referee's full state it names must be exactly that state's view, sealed
        by the state's referee."""
        where = str(view.path)
        sealed_with(view, where, self.referee_key(view, state))
        if canonical(unsealed(view.data)) != canonical(view_body(state.data, str(view.data["pbem"]["side"]))):
            raise VerificationError(f"{where}: is not the view of the state it names for {view.data['pbem']['side']}")

    @staticmethod
    def views_agree(views: list[Doc]) -> None:
        """The views of one state for several sides show the same parties, clock, awaits, options,
        transition and result (a die both show alike; a game may leave a die out of a side's view:
        GameModule.side_dice): a referee who shows two sides different commitments, dice or steps
        equivocates, and the two views prove it (exit 3)."""
        by_of: dict[str, Doc] = {}
        for v in views:
            other = by_of.setdefault(str(v.data["pbem"]["of"]), v)
            if other is v:
                continue
            for k in SHARED:
                mine, theirs = v.data.get(k), other.data.get(k)
                if k == "transition" and isinstance(mine, dict) and isinstance(theirs, dict):
                    # a game may leave a die out of one side's view (GameModule.side_dice): the rest of the
                    # transition is alike, and a die both views show is the same die
                    same = {d["label"]: d for d in theirs.get("dice", [])}
                    if any(d["label"] in same and canonical(d) != canonical(same[d["label"]]) for d in mine.get("dice", [])):
                        mine, theirs = {"dice": 1}, {"dice": 2}
                    else:
                        mine = {x: y for x, y in mine.items() if x != "dice"}
                        theirs = {x: y for x, y in theirs.items() if x != "dice"}
                if canonical(mine) != canonical(theirs):
                    raise TamperError(f"equivocation: the referee's views of one state for {other.data['pbem']['side']} ({other.path}) "
                                      f"and {v.data['pbem']['side']} ({v.path}) show different {k}",
                                      hint="Both views carry the referee's seal: together they prove it. Keep them.")

    def follow_views(self, views: list[Doc], *, start: Doc | None = None, anchor: str | None = None) -> dict[str, int]:
        """A side's series of views on their own (docs/referee.md): every view sealed by the referee;
        the views chain (each one's ``previous`` is the former one's ``of``); every input's dice
        attested by its sender; every reveal matching the party's earlier commitment; the seed and
        every die following from them.

        The series is trusted from ``start``, the game's first state (which the side joined; its keys
        are the game's) or another trusted state, or from the view whose digest, or the digest of whose
        state, is ``anchor``; from there on every view must follow the one before, with no gap, sealed
        by the referee's key and carrying the same keys. Returns the views and dice checked."""
        if not views:
            return {"views": 0, "dice": 0}
        sides = {v.data["pbem"]["side"] for v in views}
        games = {v.data["pbem"]["game"] for v in views}
        if len(games) > 1:
            raise TamperError(f"the views belong to different games: {', '.join(sorted(games))}")
        if len(sides) > 1:
            raise VerificationError(f"views of several sides given ({', '.join(sorted(sides))}); check one side's views at a time")
        by_seq = self.by_sequence(views)
        seqs = sorted(by_seq)
        if start is not None:
            keys = keys_of(start)
            first = sequence_of(start) + 1
            if "referee" not in keys:
                raise VerificationError(f"{start.path}: the game has no referee; views are a refereed game's")
            if start.data["pbem"]["game"] != by_seq[seqs[0]].data["pbem"]["game"]:
                raise TamperError(f"{start.path}: is not a state of the views' game")
            seqs = [n for n in seqs if n >= first]  # views of the trusted state itself or before: compared with states elsewhere
            if not seqs:
                return {"views": 0, "dice": 0}
        else:
            held = [n for n in seqs if anchor in (by_seq[n].digest, by_seq[n].data["pbem"]["of"])]
            if anchor is None or not held:
                raise VerificationError(
                    f"the views start at {by_seq[seqs[0]].path}; pbem trusts them from the game's first state (0000.state.toml, "
                    "the state you joined) or from a view you hold (--from DIGEST)",
                    hint="Put the game's first state in the folder, or give --from with the digest of a view you trust.")
            first = held[0]
            keys = keys_of(by_seq[first])
        missing = [n for n in range(first, seqs[-1] + 1) if n not in by_seq]
        if missing:
            raise VerificationError(f"views missing from the chain: sequence {', '.join(map(str, missing[:10]))}")
        seqs = [n for n in seqs if n >= first]  # before a --from anchor: vouched for by the digests that follow
        dice_checked = 0
        prev = start
        for n in seqs:
            v = by_seq[n]
            self.sealed_by_referee(v, keys)
            if n == first and start is None:
                prev = v
                continue  # the anchor: trusted as it is
            assert prev is not None
            if v.data["pbem"]["previous"] != answered(prev):
                raise TamperError(f"{v.path}: does not follow {prev.path}: the chain of states is broken")
            dice_checked += self._view_transition(v, prev, keys)
            prev = v
        return {"views": len(seqs), "dice": dice_checked}

    @staticmethod
    def _view_transition(v: Doc, p: Doc, keys: dict[str, str]) -> int:
        """A view's transition from the state the former view (or the trusted state) shows: every
        input's dice attested by its sender, the reveals those of the step's senders and referee, each
        matching its earlier commitment, the seed from them, each die from the seed. Returns the dice
        checked."""
        where = str(v.path)
        tr = v.data.get("transition", {})
        aw = p.data["awaits"]
        if "agreed" in tr:  # an agreement on the deadline: no dice, no reveals, every commitment as it was
            if tr.get("reveals") or tr.get("dice") or tr.get("seed") or tr.get("attestations"):
                raise TamperError(f"{where}: an agreement on the deadline rolls no dice, but dice, reveals or a seed are recorded")
            if any(x.get("commit") != p.data["parties"][party].get("commit") for party, x in v.data["parties"].items()):
                raise TamperError(f"{where}: a commitment changed in an agreement on the deadline, which reveals nothing")
            return 0
        defaulted = set(map(str, tr.get("defaulted", [])))
        senders = set(map(str, aw["from"])) - defaulted
        attestations = tr.get("attestations", {})
        if set(attestations) != senders:
            raise TamperError(f"{where}: the transition attests the dice of {', '.join(sorted(attestations)) or 'nobody'}; "
                              f"the step awaited {', '.join(sorted(senders)) or 'nobody'}")
        for side, a in sorted(attestations.items()):
            header = {"game": v.data["pbem"]["game"], "answers": a["answers"], "step": a["step"], "side": side, "dice_index": a["dice_index"]}
            if not proto.attested(keys[side], header, a):
                raise TamperError(f"{where}: {side}'s dice attestation is not {side}'s signature: the referee cannot vouch for "
                                  "another party's dice", hint="Keep the view as proof, and ask the referee for the signed file.")
            if a["answers"] != v.data["pbem"]["previous"] or a["step"] != aw["step"] \
                    or int(a["dice_index"]) != int(p.data["parties"][side]["index"]):
                raise TamperError(f"{where}: {side}'s attested dice answer another state, step or index than the transition's")
            if a["commit"] != v.data["parties"][side].get("commit") or ("salt" in a and a["salt"] != v.data["parties"][side].get("salt")):
                raise TamperError(f"{where}: {side}'s commitment in the view is not the one {side} attested")
        if aw["kind"] == "join" and sequence_of(p) != 0:
            raise TamperError(f"{p.path}: awaits joins, but only the game's first state does")
        if aw["kind"] == "join":
            if tr.get("reveals") or tr.get("dice") or tr.get("seed"):
                raise TamperError(f"{where}: the transition from the joins rolls no dice, but dice, reveals or a seed are recorded")
            return 0
        expected = senders | {str(aw["adjudicator"])}
        check_reveals(v, p, expected, attestations)
        for party, x in v.data["parties"].items():
            if party not in expected and x.get("commit") != p.data["parties"][party].get("commit"):
                raise TamperError(f"{where}: {party}'s commitment changed though {party} revealed nothing")
            if party in expected and x.get("commit") in {str(y.get("commit")) for y in p.data["parties"].values()}:
                raise TamperError(f"{where}: {party} commits again to a secret already committed to: its next secret would be known")
        return len(check_dice(v, check_seed(v, p), labels=True))


# --- the dice of one transition: reveals, seed, faces ---------------------------------------------

def check_reveals(cur: Doc, prev: Doc, expected: set[str], attestations: dict[str, Any] | None = None, *,
                  audit: bool = False) -> None:
    """The reveals of the transition from ``prev`` (a state, or the state a view shows) to ``cur`` are
    those of ``expected`` (the step's senders and adjudicator), each the one its sender attested
    (``attestations``, a view's) and matching the party's commitment in ``prev``. ``audit`` words a
    failure as `pbem audit` shows it."""
    where = str(cur.path)
    reveals = cur.data.get("transition", {}).get("reveals", {})
    if set(reveals) != expected:
        raise TamperError(f"{where}: reveals recorded for {', '.join(sorted(reveals)) or 'nobody'}; the step's seed takes "
                          f"those of {', '.join(sorted(expected))}")
    for party, rev in (sorted(reveals.items()) if audit else reveals.items()):
        if attestations is not None and party in attestations and attestations[party].get("reveal") != rev:
            raise TamperError(f"{where}: {party}'s reveal is not the one {party} attested")
        if not proto.reveal_matches(rev, prev.data["parties"][party].get("commit", "")):
            raise TamperError(f"{where}: {party}'s {'' if audit else 'dice '}reveal does not match its commitment in {prev.path}")


def check_seed(cur: Doc, prev: Doc, *, audit: bool = False) -> bytes:
    """The seed ``cur`` records is the one derived from its reveals and the digest of the state before
    (docs/protocol.md, Dice): nothing else reaches it."""
    where = str(cur.path)
    tr = cur.data.get("transition", {})
    try:
        seed = proto.transition_seed(answered(prev), dict(tr.get("reveals", {})))
    except ValueError as e:
        raise TamperError(f"{where}: the seed material is not in its one spelling ({e})") from e
    if tr.get("seed") != seed.hex():
        raise TamperError(f"{where}: the recorded seed is not the one derived from the reveals" if audit
                          else f"{where}: the seed does not follow from the reveals and the previous state")
    return seed


# A die's label: its rule, its step and its purpose, separated by bars, with no space next to a bar.
_LABEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z.\-]*(\|[^|\s](?:[^|]*[^|\s])?){2,}")


def check_dice(cur: Doc, seed: bytes, *, labels: bool = False) -> list[tuple[dict[str, Any], list[tuple[int, int, bool]]]]:
    """Each die ``cur`` records has the face the seed gives its label. With ``labels`` (a view, which
    cannot replay the rules to see which dice they roll), each label has a die's shape and is rolled
    once. Returns each die with the bytes that gave its face."""
    where = str(cur.path)
    rolled: list[tuple[dict[str, Any], list[tuple[int, int, bool]]]] = []
    seen: set[str] = set()
    for r in cur.data.get("transition", {}).get("dice", []):
        label, sides = r["label"], r["sides"]
        if labels and (not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES or not _LABEL.fullmatch(str(label)) or label in seen):
            raise TamperError(f"{where}: die {str(label)[:60]!r} of {sides} sides is not a die the rules roll "
                              f"(a label is 'rule|step|...' without spaces around its bars, once; 2 to {MAX_SIDES} sides)")
        if not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES:
            raise TamperError(f"{where}: die '{label}' has {sides} sides; dice have 2 to {MAX_SIDES}")
        seen.add(label)
        face, trail = face_from_seed(seed, label, sides)
        if face != r["face"]:
            raise TamperError(f"{where}: die '{label}' is recorded as {r['face']} but the seed gives {face}")
        rolled.append((r, trail))
    return rolled




# --- transitions replayed in parallel -------------------------------------------------------------

PARALLEL_FROM = 8  # transitions: fewer are replayed in this process (starting workers costs more)
JOBS_VARIABLE = "PBEM_JOBS"  # the number of processes `pbem verify` replays with (1: none but its own)


@dataclass
class Replayed:
    """What a worker found replaying one transition that it found nothing wrong with: the notes of the
    replay and of the derived files, the reports and pictures compared."""

    transition_notes: list[str]
    notes: list[str]
    reports: int
    pictures: int


_WORK: tuple[Chain, dict[int, Doc]] | None = None  # the chain a forked worker replays


def _replay(n: int) -> Replayed | None:
    """In a worker: the transition to state ``n`` replayed and its report and picture compared; None
    if anything is wrong (the verifying process then checks it itself, to raise what it raises)."""
    assert _WORK is not None
    chain, by_seq = _WORK
    prev, cur = by_seq[n - 1], by_seq[n]
    transition_notes: list[str] = []
    res = VerifyResult()
    try:
        events = chain.transition(prev, cur, transition_notes)
        chain.check_derived(prev, cur, events, res)
    except Exception:  # whatever it is, the verifying process meets it again, in order
        return None
    return Replayed(transition_notes, res.notes, res.reports, res.pictures)


def jobs() -> int:
    """The processes to replay with: $PBEM_JOBS, else the processors this process may run on."""
    wanted = os.environ.get(JOBS_VARIABLE, "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def replays(chain: Chain, by_seq: dict[int, Doc], seqs: list[int]) -> Generator[Replayed | None, None, None]:
    """For each transition (to the states ``seqs``, in order), what a worker found, or None where this
    process is to replay it itself. Transitions are independent once the chain is read: each replays
    from its own previous state and inputs; the chain's checks and any failure are taken in order by
    the caller, so the output and the first error are those of a replay in one process. Workers are
    forked (where the system cannot fork, or with one processor, nothing runs in parallel)."""
    n_jobs = min(jobs(), len(seqs))
    if n_jobs < 2 or len(seqs) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        yield from (None for _ in seqs)
        return
    global _WORK
    _WORK = (chain, by_seq)
    try:
        yield from forked_map(_replay, seqs, n_jobs, 1)
    finally:
        _WORK = None


T = TypeVar("T")
R = TypeVar("R")


def forked_map(fn: Callable[[T], R | None], items: list[T], n_jobs: int, chunksize: int) -> Generator[R | None, None, None]:
    """``fn`` of each item in ``n_jobs`` forked worker processes, the results in order; None for each
    result not received, which every caller takes as "do it yourself": where a worker dies (killed,
    out of memory) and breaks the pool, so that nothing waits for a result that will never come;
    where the system refuses a process (a limit on processes, no descriptor left); in a daemonic
    process, which may have no children. A caller that stops early (the first error found) cancels
    what has not started. Workers ignore Ctrl-C: this process stops them."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    received = 0
    executor = None
    try:
        if multiprocessing.current_process().daemon:
            raise OSError("a daemonic process has no children")
        executor = ProcessPoolExecutor(n_jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_start)
        for result in executor.map(fn, items, chunksize=chunksize):
            received += 1
            yield result
    except (BrokenProcessPool, OSError):
        pass
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
    yield from (None for _ in items[received:])


def _worker_start() -> None:
    """In a worker: Ctrl-C is for the process that started it (which stops the workers), not for
    the worker, which would print its traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


# --- files read in parallel -----------------------------------------------------------------------

PRELOAD_FROM = 16  # files this machine has not read: fewer are read in this process alone
MEMO_BYTES_PER_BYTE = 2  # a file's memo in memory, at most, per byte of the file (its parsed data, marshalled)


def _preload(path: Path) -> tuple[str, str, str, bytes, str | None, list[str]] | None:
    """In a worker: a file read, parsed and checked as ``load_doc`` does, and what it found kept
    (its memo); None if anything is wrong or cannot be kept (the parent reads it itself, to say
    what it says)."""
    try:
        doc = load_doc(path)
        if doc.memo is None:
            return None
        _ = doc.digest  # worked out here, kept in the memo
        return doc.memo.fields()
    except Exception:  # whatever it is, the parent meets it again, in order
        return None


def preload(files: list[Path]) -> None:
    """Before a folder's files are read in order: those this machine has not read before (no memo:
    contentcache.py) read, parsed and checked by worker processes, one per processor ($PBEM_JOBS),
    their memos kept here, so that reading them in order takes them from the cache. Nothing is
    decided in the workers: a file that fails there is read again here, in order, and fails here
    as it would have. Workers are forked; where the system cannot fork, or with one processor, or
    with few files to read, nothing runs in parallel."""
    n_jobs = jobs()
    if n_jobs < 2 or len(files) < PRELOAD_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return
    todo = []
    for f in files:
        if f.suffix != ".toml":
            continue
        try:
            raw = read_bytes(f)
        except PbemError:
            continue
        if contentcache.lookup(raw)[0] is None:
            todo.append((f, len(raw)))
    # no more than the memory of this process keeps: a memo it would drop to make room is read again
    room, room_bytes = contentcache.room()
    fits: list[Path] = []
    for f, size in todo:
        if len(fits) >= room or size * MEMO_BYTES_PER_BYTE > room_bytes:
            break
        fits.append(f)
        room_bytes -= size * MEMO_BYTES_PER_BYTE
    if len(fits) < PRELOAD_FROM:
        return
    for fields in forked_map(_preload, fits, min(n_jobs, len(fits)), 4):
        if fields is not None:
            contentcache.adopt(fields)


# --- the users ------------------------------------------------------------------------------------

def verify(paths: list[Path], progress: Callable[[int, int], None] | None = None, anchor: str | None = None) -> VerifyResult:
    """`pbem verify` on folders or files (``Chain.verify``)."""
    return Chain.read(paths).verify(anchor, progress)


def check_before_reveal(state: Doc, party: str, key: KeyPair) -> None:
    """`pbem sign` and `pbem adjudicate`, before ``party`` reveals a secret for ``state``: the folder
    beside it, checked (``Chain.check_before_reveal``; files that cannot be read are left out)."""
    Chain.read([state.path.parent], quiet=True).check_before_reveal(state, party, key)


def audit(state_path: Path) -> dict[str, Any]:
    """`pbem audit`: every die of the transition that produced the state, re-derived from the reveals,
    each failure named (a reveal, the seed, a die), then the transition checked as `pbem verify`
    checks it (the previous state beside it, its seal, every input, the replay)."""
    cur = load_state(state_path)
    folder = state_path.parent
    n = sequence_of(cur)
    if n == 0:
        return {"state": str(state_path), "sequence": 0, "dice": [], "note": "state 0 has no transition"}
    prev_path = folder / names.state(n - 1)
    if not prev_path.exists():
        raise UsageError(f"{prev_path}: the previous state is needed to audit {state_path}")
    prev = load_state(prev_path)
    chain = Chain.read(sorted(folder.glob(names.inputs_glob(n - 1))), quiet=True)
    chain.follow(prev, cur, replay=False)
    head = {"state": str(state_path), "sequence": n, "previous": prev.digest, "inputs": cur.data["pbem"]["inputs"]}
    if prev.data["awaits"]["kind"] == "join":
        chain.transition(prev, cur)
        return {**head, "seed": "", "commitments": [], "dice": [], "algorithm": ALGORITHM,
                "note": "the transition from the joins rolls no dice"}
    aw = prev.data["awaits"]
    tr = cur.data.get("transition", {})
    reveals = dict(tr.get("reveals", {}))
    check_reveals(cur, prev, (set(aw["from"]) - set(tr.get("defaulted", []))) | {str(aw["adjudicator"])}, audit=True)
    seed = check_seed(cur, prev, audit=True)
    rows = []
    for r, trail in check_dice(cur, seed):
        used = [t for t in trail if t[2]][0]
        rows.append({"label": r["label"], "sides": r["sides"], "recorded": r["face"], "derived": r["face"],
                     "hmac": hmac_stream(seed, r["label"], 0).hex(), "byte": used[1], "rejected": sum(1 for t in trail if not t[2]),
                     "matches": True})
    chain.transition(prev, cur)
    return {**head, "seed_material": proto.seed_material(prev.digest, reveals), "seed": seed.hex(),
            "commitments": [{"party": party, "reveal": rev, "commitment": prev.data["parties"][party].get("commit", ""), "matches": True}
                            for party, rev in sorted(reveals.items())],
            "dice": rows, "algorithm": ALGORITHM}

