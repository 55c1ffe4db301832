"""What a game's web site shows, read from a game folder: every state (or, for one side of a refereed
game, every view of that side) in order, with its picture, report, dice, seals and files, and the
result of `pbem verify` on the same files. Nothing here writes; pbem.site.build writes the site."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.engine.model import Event
from pbem.engine.registry import find_module
from pbem.errors import MalformedFileError, PbemError, UsageError
from pbem.exchange import names
from pbem.exchange.chain import Chain, VerifyResult, sequence_of
from pbem.exchange.files import read_bytes
from pbem.exchange.game import Doc, load_doc

MAX_REPORT = 4 * 1024 * 1024  # a report larger than this is not shown (a game's are some kilobytes)


@dataclass
class Verdict:
    """`pbem verify` of the files the site is built from, at the time it was built."""

    ok: bool
    exit_code: int
    summary: str  # the line `pbem verify` prints: "ok: ..." or the error
    hint: str = ""
    trusted_from: str = ""  # the anchor's file name
    anchor_digest: str = ""
    how: str = ""
    notes: list[str] = field(default_factory=list)
    checked: set[int] = field(default_factory=set)  # the sequence numbers whose document the check reached and passed


@dataclass
class Step:
    """One state of the game (or one view of it) as the site shows it."""

    sequence: int
    doc: Doc
    data: dict[str, Any]  # the state, or the view (the position as the side sees it)
    events: list[Event] | None  # the replay's events (a whole game's site; None when not replayed)
    report: str | None  # the Markdown report of the transition that made it
    report_file: str | None
    picture: str | None  # an SVG picture of the turn (moves, attacks and results drawn), if the game has one
    inputs: list[Doc]  # the files this step's transition answered, held in the folder
    missing_inputs: list[str]  # the digests of inputs not in the folder (a side's site: the other side's files)


@dataclass
class Game:
    folder: Path
    side: str | None  # None: the whole game; else that side's site of a refereed game
    module: Any
    steps: list[Step]
    files: list[Path]  # the signed (and derived) files the site links to, copied beside it
    verdict: Verdict


class _Recording(Chain):
    """A chain that keeps each replayed transition's events, and which states the check passed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: dict[int, list[Event]] = {}
        self.passed: set[int] = set()

    def check_derived(self, prev: Doc, cur: Doc, events: list[Event], res: VerifyResult) -> None:
        n = sequence_of(cur)
        self.events[n] = events
        super().check_derived(prev, cur, events, res)
        self.passed.add(n)


def _verdict_ok(res: VerifyResult) -> str:
    def count(n: int, word: str, plural: str | None = None) -> str:
        return f"{n} {word if n == 1 else plural or word + 's'}"

    last = Path(res.last).name
    if res.states == 0:
        return (f"ok: {count(res.views, 'view')} of the referee's states: seals, chain and commitments hold, "
                f"{count(res.dice, 'die', 'dice')} re-derived; last {last}")
    views = f", {count(res.views, 'view')}" if res.views else ""
    return (f"ok: {count(res.states, 'state')}, {count(res.transitions, 'transition')} replayed, "
            f"{count(res.reports, 'report')} and {count(res.pictures, 'picture')} match{views}; last {last}")


def _rel(folder: Path, text: str) -> str:
    """A message's paths as file names of the folder (the site shows no path of the machine it was made on)."""
    prefix = str(folder).rstrip("/") + "/"
    return text.replace(prefix, "")


def read_report(path: Path) -> str | None:
    try:
        return read_bytes(path, MAX_REPORT, "report").decode("utf-8", errors="replace")
    except PbemError:
        return None


def _game_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such game folder", hint="Give the folder of a game: the one with its NNNN.state.toml files.")
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".") and names.parse(p.name) is not None)


def read_game(folder: Path, side: str | None = None) -> Game:
    """The game in ``folder`` as the site shows it: the whole game, or with ``side`` that side's site
    of a refereed game (its views, its reports and its own files only)."""
    files = _game_files(folder)
    if side is None:
        return _whole_game(folder, files)
    return _side_game(folder, files, side)


def _docs(files: list[Path]) -> list[Doc]:
    docs = []
    for f in files:
        if f.suffix == ".toml":
            docs.append(load_doc(f))
    return docs


def _whole_game(folder: Path, files: list[Path]) -> Game:
    chain = _Recording(_docs(files))
    for f in files:
        nm = names.parse(f.name)
        if nm is not None and nm.kind == "report":
            chain.reports[(nm.sequence, nm.side)] = f
    if not chain.states:
        raise MalformedFileError(f"{folder}: no state files found", hint="Give a game folder: the one with its NNNN.state.toml files.")
    verdict = _verify(chain, folder)
    by_seq: dict[int, Doc] = {}
    for d in sorted(chain.states, key=lambda d: str(d.path)):
        by_seq.setdefault(sequence_of(d), d)  # a fork: the first by name (the verdict says so)
    module = find_module(str(by_seq[min(by_seq)].data["pbem"]["module"]))
    steps = []
    for n in sorted(by_seq):
        doc = by_seq[n]
        events = chain.events.get(n)
        if events is None and n - 1 in by_seq and chain.has_inputs(doc):
            try:  # the verification stopped earlier: replay this transition on its own, for its picture
                events = chain.transition(by_seq[n - 1], doc)
            except PbemError:
                events = None
        report_path = folder / names.report(n)
        report = read_report(report_path) if report_path.exists() else None
        picture = None
        if n in by_seq and n - 1 in by_seq and events is not None:
            picture = module.turn_picture(by_seq[n - 1].data, doc.data, events)
        inputs = [chain.inputs[str(dg)] for dg in doc.data["pbem"]["inputs"] if str(dg) in chain.inputs]
        missing = [str(dg) for dg in doc.data["pbem"]["inputs"] if str(dg) not in chain.inputs]
        steps.append(Step(n, doc, doc.data, events, report, report_path.name if report is not None else None, picture,
                          inputs, missing))
    return Game(folder, None, module, steps, files, verdict)


def _verify(chain: _Recording, folder: Path) -> Verdict:
    try:
        res = chain.verify()
    except PbemError as e:
        return Verdict(False, e.exit_code, _rel(folder, e.message), _rel(folder, e.hint), checked=set(chain.passed) | ({0} if chain.passed else set()))
    seqs = {sequence_of(d) for d in chain.states} | {sequence_of(d) for d in chain.views}
    return Verdict(True, 0, _rel(folder, _verdict_ok(res)), "", Path(res.anchor).name, res.anchor_digest, res.anchor_how,
                   [_rel(folder, n) for n in res.notes], seqs)


def _side_game(folder: Path, files: list[Path], side: str) -> Game:
    """A side's site: state 0000 (the game's start, which every player holds), the side's views and
    reports, and the files the side itself signed. Nothing else of the folder is read."""
    own: list[Path] = []
    for f in files:
        nm = names.parse(f.name)
        assert nm is not None
        if nm.kind == "state" and nm.sequence == 0 or nm.side == side:
            own.append(f)
    docs = _docs(own)
    views = [d for d in docs if d.kind == "view"]
    start = [d for d in docs if d.kind == "state"]
    if not views:
        sides = sorted({str(x.side) for f in files if (x := names.parse(f.name)) is not None and x.kind == "view"})
        raise UsageError(f"{folder}: no view of side '{side}' (a refereed game's NNNN-{side}.view.toml)",
                         hint=f"Sides with views here: {', '.join(sides)}." if sides
                         else "A side's site is built from its views: only a refereed game has them.")
    chain = _Recording([*start, *views])
    verdict = _verify(chain, folder)
    module = find_module(str(views[0].data["pbem"]["module"]))
    subs = {d.digest: d for d in docs if d.kind in names.SUBMISSIONS}
    steps = []
    if start:
        st = start[0]
        data = {**st.data, "position": module.view_position(st.data, side)}
        steps.append(Step(0, st, data, None, None, None, None, [], []))
    by_seq: dict[int, Doc] = {}
    for v in sorted(views, key=lambda d: str(d.path)):
        by_seq.setdefault(sequence_of(v), v)
    for n in sorted(by_seq):
        v = by_seq[n]
        report_path = folder / names.report(n, side)
        report = read_report(report_path) if report_path.exists() else None
        digests = [str(dg) for dg in v.data["pbem"]["inputs"]]
        steps.append(Step(n, v, v.data, None, report, report_path.name if report is not None else None, None,
                          [subs[dg] for dg in digests if dg in subs], [dg for dg in digests if dg not in subs]))
    return Game(folder, side, module, steps, own, verdict)
