"""pbem fuzz run: generated hostile input to every reader a user can reach.

    python benchmarks/fuzz.py [--seed N] [--examples N] [--jobs N] [--readers NAME,...] [--findings DIR]
    python benchmarks/fuzz.py --replay DIR/NAME/case.json
    python benchmarks/fuzz.py --worlds DIR

The contract (README: exit codes): bad input gets a clear error with exit code 1, 2 or 3, never an
internal error or a traceback, never a hang, and nothing is written when a command fails.

Inputs come from Hypothesis, seeded from --seed (the same seed gives the same inputs), built on the
real files of three games played with fixed keys: a two-player game with dice rolled and the next
orders written, a refereed game with its views, and a game awaiting a reply. A file is mutated in
one place (a value replaced, deleted, duplicated, renamed, retyped, re-spelled, truncated or
resized, Unicode injected, a huge integer, deep nesting, a long string, a part of another file
grafted in), then left with its stale seal, sealed again by the right key (so the change reaches
the checks behind the seal), by the wrong key or by another party, or unsealed; or changed as
bytes (flipped, deleted, inserted, lines duplicated, swapped or cut off, dotted keys thousands
deep, an oversize file); or it is raw junk (bytes, text, TOML-like text, TOML documents). E-mail:
the messages `pbem mail write` makes for those games, rebuilt with a game file mutated, attached
in other ways, pasted into the text (quoted, CRLF, format=flowed), with hostile headers and part
headers, nested or too many parts or files, cut off, its bytes mutated, several in an mbox; and
MIME-like junk.

A reader is one command with the file it reads (`status STATE`, `check ORDERS`, `mail read
--folder`, ...). The command's own function (what `guarded` wraps in pbem.cli) is called
in-process on a copy of the games; every --cli-every'th input also goes through the real command
line (click's CliRunner), which must give the same exit code and no traceback. An outcome is ok,
a PbemError with its exit code, or an internal error (any other exception). The folders a command
was given are compared before and after: a failing command, and a command that never writes, must
have written nothing. Each input's time is bounded (--timeout); anything over --slow seconds of
processor time is reported.

Findings (internal errors, hangs, slow inputs, files written on failure, a command line that
disagrees) are printed with the input that caused them and saved under --findings, a few per kind
of failure, each with a case.json that --replay runs again through `pbem --debug` to show the
traceback. Not a test (tests/fuzz/test_fuzz.py runs the same harness briefly): record the figures
where they are needed.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import email
import email.policy
import hashlib
import io
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from email.message import EmailMessage
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import click
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from pbem.cli import adjudicate, audit, check, cli, join, show, sign, status, template, verify
from pbem.cli_mail import mail_read, mail_write
from pbem.errors import PbemError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import digest, seal, unsealed
from pbem.exchange.keys import KeyPair, write_key_files

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the games and strategies of the tests
    sys.path.insert(0, str(ROOT))

from tests.conftest import GERMAN_GT1, SOVIET_STANDING, Game, start_game  # noqa: E402
from tests.exchange.test_properties import (  # noqa: E402
    TOML_BITS,
    any_values,
    dict_paths,
    float_free,
    get,
    keys,
    leaves,
    order_docs,
    other_value,
    put,
    toml_like_text,
)
from tests.exchange.test_referee import Refereed  # noqa: E402
from tests.games.proud_monster.test_reply import find_game_awaiting_a_reply  # noqa: E402

TOTAL = 100_000  # the full run: at least this many inputs
DATE = "Mon, 07 Jul 2025 10:00:00 +0000"
GERMAN_GT2 = ('\n[[move]]\nunits = ["Inf2"]\npath = ["4716N"]\n\n[[attack]]\ntarget = "5017N"\nunits = ["Pz1"]\nlosses = ["Pz1"]\n\n'
              '[standing]\nloss_policy = "fewest-steps-first"\nloss_order = ["Inf1"]\n')
REPLY = '\n[reply]\nlosses = ["R2"]\n'
SUBMISSIONS = ("orders", "join", "reply")


# --- the games: real files to start from ---------------------------------------------------------


@dataclass
class Source:
    """A real game file: where it is (relative to the worlds' root), its text and data, and the
    keys of its game (to seal a changed copy again)."""

    rel: str
    text: str
    data: dict[str, Any]
    world: str

    @property
    def kind(self) -> str:
        return str(self.data["pbem"]["kind"])

    @property
    def folder(self) -> str:
        return self.rel.rsplit("/", 1)[0]


@dataclass
class Attachment:
    name: str
    content: bytes
    maintype: str
    subtype: str
    source: Source | None  # the game file it is, if it is one


@dataclass
class MailSource:
    """A message `pbem mail write` made, and the folder (of the receiver) it is read into."""

    rel: str
    raw: bytes
    folder: str
    body: str
    files: list[Attachment]


@dataclass
class Worlds:
    root: Path
    pairs: dict[str, dict[str, KeyPair]]  # world -> party -> key
    key_files: dict[str, dict[str, str]]  # world -> party -> key file (relative)
    secrets: dict[str, tuple[str, dict[str, str]]]  # world -> (first state's digest, party -> salt)
    sources: list[Source]
    mails: list[MailSource]

    def pool(self, kind: str | tuple[str, ...], folder: str | None = None) -> list[Source]:
        kinds = (kind,) if isinstance(kind, str) else kind
        return [s for s in self.sources if s.kind in kinds and (folder is None or s.folder == folder)]

    def by_digest(self, wanted: str, kinds: tuple[str, ...] = ("state",)) -> Source | None:
        for s in self.sources:
            if s.kind in kinds and digest(s.data) == wanted:
                return s
        return None

    def answered(self, src: Source) -> Source:
        """The state an order, join or reply file answers."""
        found = self.by_digest(str(src.data["pbem"]["answers"]))
        assert found is not None, src.rel
        return found

    def inputs_of(self, state: Source) -> list[Source]:
        """The real files answering a state (the joins of state 0, the orders of a later one)."""
        d = digest(state.data)
        return [s for s in self.sources if s.kind in SUBMISSIONS and s.data["pbem"]["answers"] == d]

    def answering_view(self, view: Source) -> Source | None:
        return next((s for s in self.sources if s.kind in SUBMISSIONS and s.data["pbem"]["answers"] == view.data["pbem"]["of"]), None)

    def key_file(self, world: str, party: str) -> str:
        return self.key_files[world][party]


def build_worlds(root: Path) -> Worlds:
    """The games, the receivers' folders and the messages, deterministically (fixed keys and salts).

    played/: a two-player game, states 0000-0003, the German's sealed orders for 0003;
    refereed/: a refereed game, states 0000-0002 with a view and a report per side, the Soviet's
    orders for 0002; reply/: a game whose state 0002 awaits a Soviet reply, and the reply;
    player/: the Soviet's folder of views in the refereed game; inbox-*/: the folders the
    messages in mail/ are read into; keys/: every party's key; out/: for the files commands write.
    """
    root.mkdir(parents=True)
    os.environ["PBEM_HOME"] = str(root.parent / "pbem-home-worlds")  # never the user's own reveal ledger
    played = start_game(root / "played")
    played.play(GERMAN_GT1)
    played.play(SOVIET_STANDING)
    played.write_orders(GERMAN_GT2)
    ref = Refereed(root / "refereed")
    ref.adjudicate([ref.orders("german", GERMAN_GT1)])
    ref.orders("soviet", SOVIET_STANDING)
    with tempfile.TemporaryDirectory() as tmp:
        found = find_game_awaiting_a_reply(Path(tmp))
        shutil.copytree(found.folder, root / "reply")
    reply = Game(root / "reply", found.keys)
    reply.write_orders(REPLY, side="soviet", name="0002-soviet.reply.toml")
    games = {"played": played.keys, "refereed": ref.keys, "reply": reply.keys}

    def copy_some(src: str, dst: str, keep: Callable[[str], bool]) -> None:
        (root / dst).mkdir()
        for p in sorted((root / src).iterdir()):
            if keep(p.name):
                shutil.copy(p, root / dst / p.name)

    copy_some("refereed", "player", lambda n: n == "0000.state.toml" or n.endswith(("-soviet.view.toml", "-soviet.report.md")))
    copy_some("played", "inbox-played", lambda n: n < "0003")
    copy_some("player", "inbox-player", lambda n: n.startswith("0001"))
    copy_some("refereed", "inbox-referee", lambda n: n != "0002-soviet.orders.toml")
    copy_some("reply", "inbox-reply", lambda n: n != "0002-soviet.reply.toml")
    for d in ("inbox-new", "out", "mail", "keys"):
        (root / d).mkdir()
    key_files: dict[str, dict[str, str]] = {}
    for world, pairs in games.items():
        for party, pair in pairs.items():
            write_key_files(pair, root / "keys" / f"{world}-{party}")
            key_files.setdefault(world, {})[party] = f"keys/{world}-{party}.key"
    sources: list[Source] = []
    for world in ("played", "refereed", "reply", "player"):
        for p in sorted((root / world).glob("*.toml")):
            text = p.read_text(encoding="utf-8")
            sources.append(Source(f"{world}/{p.name}", text, tomllib_loads(text), "refereed" if world == "player" else world))
    secrets = {}
    for world in games:
        first = tomllib_loads((root / world / "0000.state.toml").read_text(encoding="utf-8"))
        last = tomllib_loads(sorted((root / world).glob("*.state.toml"))[-1].read_text(encoding="utf-8"))
        secrets[world] = (digest(first), {p: str(v["salt"]) for p, v in last["parties"].items()})
    worlds = Worlds(root, games, key_files, secrets, sources, [])
    messages = [  # (name, state, orders, the receiver's folder)
        ("played", "played/0003.state.toml", "played/0003-german.orders.toml", "inbox-played"),
        ("new", "played/0000.state.toml", "played/0000-soviet.join.toml", "inbox-new"),
        ("view", "refereed/0002-soviet.view.toml", None, "inbox-player"),
        ("orders", "player/0002-soviet.view.toml", "refereed/0002-soviet.orders.toml", "inbox-referee"),
        ("reply", "reply/0002.state.toml", "reply/0002-soviet.reply.toml", "inbox-reply"),
    ]
    with contextlib.chdir(root):
        for name, state, orders, folder in messages:
            out = f"mail/{name}.eml"
            argv = ["mail", "write", state, *(["--orders", orders] if orders else []), "--from", "alice@example.org",
                    "--to", "bob@example.org", "--date", DATE, "-o", out]
            r = CliRunner().invoke(cli, argv)
            assert r.exit_code == 0, r.output
            worlds.mails.append(mail_source(worlds, out, (root / out).read_bytes(), folder))
    return worlds


def tomllib_loads(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


def mail_source(w: Worlds, rel: str, raw: bytes, folder: str) -> MailSource:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = ""
    files = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        content = part.get_payload(decode=True)
        assert isinstance(content, bytes)
        name = part.get_filename()
        if name is None:
            body = content.decode("utf-8")
            continue
        src = next((s for s in w.sources if s.text.encode("utf-8") == content), None)
        files.append(Attachment(name, content, part.get_content_maintype(), part.get_content_subtype(), src))
    return MailSource(rel, raw, folder, body, files)


# --- hostile values and documents ----------------------------------------------------------------

HUGE_INTS = [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30, -(10**30), 10**4000]
INJECTED = ["\u0301", "\u200b", "\u200d", "\u202e", "\ufeff", "\ue000", "\U0001f600", "\x7f", "\x00", "\n", "\t", "\r",
            "\\", '"', "'", "\u2028", "\ud7ff", "\U0010ffff", "\u0130", "\ufb00", "\u0410", "\uff10"]
FULLWIDTH = str.maketrans("0123456789ABCDEFNS", "０１２３４５６７８９ＡＢＣＤＥＦＮＳ")
HOMOGLYPHS = str.maketrans("aeopcxHNS", "аеорсхНΝЅ")
NEW_KEYS = ["seal", "dice", "pending", "transition", "question", "result", "standing", "move", "attack", "reply", "declare",
            "setup", "of", "side", "sequence", "inputs", "answers", "kind", "format", "x", "", " ", "é", "e\u0301", "\x00"]


def spellings(s: str) -> list[str]:
    """Other spellings of a string: another case, normal form, padding, digits or letters."""
    out = [unicodedata.normalize("NFD", s), s.upper(), s.lower(), s.swapcase(), " " + s, s + " ", s + "\n", "\ufeff" + s,
           s.translate(FULLWIDTH), s.translate(HOMOGLYPHS), s.replace("sha256:", "SHA256:"), s + "=", s[:-1], s + s[-1:],
           s.replace("-", "_"), s.replace("N", "S")]
    if s:
        out.append(s[:-1] + chr(ord(s[-1]) ^ 1))
    return [x for x in out if x != s] or [s + "x"]


def respelled(v: Any) -> st.SearchStrategy[Any]:
    if isinstance(v, str):
        inject = st.builds(lambda i, c: v[:i] + c + v[i:], st.integers(0, len(v)), st.sampled_from(INJECTED))
        return st.sampled_from(spellings(v)) | inject
    if isinstance(v, bool):
        return st.sampled_from([int(v), str(v).lower(), not v])
    if isinstance(v, int):
        return st.sampled_from([str(v), v + 2**64, -v, bool(v), [v], f"{v:#x}"])
    return st.just(v)


def retyped(v: Any) -> st.SearchStrategy[Any]:
    out: list[Any] = [[v], {"value": v}, "", 0, True, []]
    if isinstance(v, dict):
        out += [list(v.values()), list(v)]
    elif isinstance(v, list):
        out += [{str(i): x for i, x in enumerate(v)}, v[0] if v else {}]
    else:
        out.append(str(v))
    if isinstance(v, str) and v.lstrip("-").isdigit():
        out.append(int(v))
    return st.sampled_from(out)


def resized(v: Any) -> st.SearchStrategy[Any]:
    if isinstance(v, bool):
        return st.just(not v)
    if isinstance(v, int):
        return st.sampled_from([0, -1, 1, v + 1, v - 1, v * 1000, -v, 2**31, 2**53 + 1, *HUGE_INTS])
    if isinstance(v, str):
        return st.builds(lambda k: v * k, st.sampled_from([2, 100, 10_000])) | st.builds(lambda k: v[:k], st.integers(0, len(v)))
    if isinstance(v, list):
        return st.one_of(st.just([]), st.builds(lambda k: v[:k], st.integers(0, len(v))),
                         st.builds(lambda k: v * k, st.sampled_from([2, 50, 2000])),
                         st.builds(lambda k: v + v[:1] * k, st.sampled_from([1, 1000])))
    if isinstance(v, dict):
        items = list(v.items())
        return st.one_of(st.just({}), st.builds(lambda k: dict(items[:k]), st.integers(0, len(items))),
                         st.builds(lambda k: {**v, **{f"{x}{i}": y for i in range(k) for x, y in items[:1]}}, st.sampled_from([10, 1000])))
    return st.just(v)


def nested(depth: int, leaf: Any, table: bool) -> Any:
    for _ in range(depth):
        leaf = {"a": leaf} if table else [leaf]
    return leaf


long_strings = st.builds(lambda c, n: c * n, st.sampled_from(["A", "é", "\U0001f600", "2817N", "e\u0301", " ", "\\"]),
                         st.sampled_from([100, 10_000, 300_000]))
deep_values = st.builds(nested, st.sampled_from([2, 10, 60, 140]), st.sampled_from([1, "x", []]), st.booleans())


def hostile_value(old: Any) -> st.SearchStrategy[Any]:
    """Another value where ``old`` was: of the same kind with another meaning, of another type,
    re-spelled, resized, huge, long, deep, or anything TOML holds (dates and floats too)."""
    return st.one_of(other_value(old), any_values, st.sampled_from(HUGE_INTS), respelled(old), retyped(old), resized(old),
                     long_strings, deep_values)


def new_key(old: Any) -> st.SearchStrategy[str]:
    s = str(old)
    return st.sampled_from([*spellings(s), *NEW_KEYS]) | keys


def nodes(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every table, array and value below the top."""
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else []
    for k, v in items:
        yield (*path, k)
        yield from nodes(v, (*path, k))


# raw TOML for a value that no data can be dumped from: too deep, too big, not even valid
RAW_VALUES = st.one_of(
    st.builds(lambda n: "[" * n + "1" + "]" * n, st.sampled_from([100, 250, 400, 1000, 100_000])),
    st.builds(lambda n: "{ a = " * n + "1" + " }" * n, st.sampled_from([100, 250, 400, 1000])),
    st.builds(lambda n, sign: sign + "9" * n, st.sampled_from([19, 20, 40, 4300, 4301, 20_000]), st.sampled_from(["", "-", "+"])),
    st.sampled_from(["0x" + "f" * 17, "0o" + "7" * 30, "0b" + "1" * 70, "1_000", "+0", "-0", "00", "nan", "inf", "-inf", "1e400",
                     "1979-05-27T07:32:00Z", "07:32:00", '"\\uD800"', '"\\u0000"', "'''\nx'''", '"""\\\n"""', "true", "[]", "{}",
                     '"' + "\\\\" * 1000 + '"', "[1, 'a', { b = 2 }]", '"\\U0010FFFF"', "'\u202e'"]),
)
MARK = "\ue000fuzz-value\ue000"
SEALINGS = ["reseal"] * 5 + ["stale"] * 2 + ["unsealed", "wrong-key", "other-signer"]


def reseal(d: dict[str, Any], how: str, src: Source, w: Worlds) -> dict[str, Any]:
    """``d`` sealed as ``how`` says: again by its signer's key, by another party's key in the
    signer's name, by another party, without a seal, or with its stale seal."""
    if how == "stale":
        return d
    if how == "unsealed":
        return unsealed(d)
    s = src.data.get("seal", {})
    pairs = w.pairs[src.world]
    signer = str(s.get("signer") or src.data["pbem"].get("side") or "german")
    others = sorted(p for p in pairs if p != signer) or [signer]
    try:
        if how == "reseal" and signer in pairs:
            return seal(d, signer, pairs[signer])
        if how == "wrong-key":
            return seal(d, signer, pairs[others[0]])
        return seal(d, others[-1], pairs[others[-1]])
    except (TypeError, ValueError, RecursionError):  # not JSON (a date, a float): only the stale seal
        return d


def dump(d: dict[str, Any], fallback: str) -> str:
    try:
        return tomli_w.dumps(d)
    except (TypeError, ValueError, RecursionError):
        return fallback


@st.composite
def mutated_doc(draw: st.DrawFn, src: Source, w: Worlds) -> bytes:
    """The file's data changed in one place, then sealed one way or another (see SEALINGS)."""
    d = copy.deepcopy(src.data)
    op = draw(st.sampled_from(["replace"] * 4 + ["delete"] * 2 + ["duplicate", "rename", "retype", "respell", "respell", "truncate",
                                                                  "resize", "inject", "graft", "swap", "raw", "raw"]), label="op")
    paths = list(nodes(d))
    p = draw(st.sampled_from(paths), label="path")
    parent, last, old = get(d, p[:-1]), p[-1], get(d, p)
    raw = None
    if op == "replace":
        put(d, p, draw(hostile_value(old)))
    elif op == "delete":
        del parent[last]
    elif op == "duplicate":
        if isinstance(parent, list):
            parent.insert(last, copy.deepcopy(old))
        else:
            parent[draw(new_key(last))] = copy.deepcopy(old)
    elif op == "rename" and isinstance(parent, dict):
        parent[draw(new_key(last))] = parent.pop(last)
    elif op == "retype":
        put(d, p, draw(retyped(old)))
    elif op == "respell":
        put(d, p, draw(respelled(old)))
    elif op in ("truncate", "rename"):  # (an array item has no name to change: cut it instead)
        put(d, p, draw(resized(old)) if isinstance(old, str | list | dict) else old)
    elif op == "resize":
        put(d, p, draw(resized(old)))
    elif op == "inject":
        table = draw(st.sampled_from([(), *dict_paths(d)]))
        get(d, table)[draw(st.sampled_from(NEW_KEYS) | keys)] = draw(hostile_value({}) | float_free)
    elif op == "graft":  # the same place in another file of this kind (or of any kind)
        others = [s.data for s in w.sources if s.rel != src.rel]
        other = draw(st.sampled_from(others))
        with contextlib.suppress(KeyError, IndexError, TypeError):
            put(d, p, copy.deepcopy(get(other, p)))
    elif op == "swap":
        q = draw(st.sampled_from(list(leaves(d))))
        a, b = get(d, p), get(d, q)
        if q[: len(p)] != p and p[: len(q)] != q:  # neither inside the other
            put(d, p, b)
            put(d, q, a)
    elif op == "raw":
        put(d, p, MARK)
        raw = draw(RAW_VALUES)
    how = draw(st.sampled_from(SEALINGS), label="sealing") if p[0] != "seal" else "stale"
    fallback = src.text
    if raw is None:
        return dump(reseal(d, how, src, w), fallback).encode("utf-8")
    text = dump(d, fallback).replace(f'"{MARK}"', raw)
    if how in ("reseal", "wrong-key", "other-signer") and len(raw) < 10_000:
        with contextlib.suppress(Exception):  # the raw value read back, then sealed: past the seal check
            text = tomli_w.dumps(reseal(tomllib_loads(text), how, src, w))
    return text.encode("utf-8")


SNIPPETS = st.sampled_from([*TOML_BITS, *INJECTED, "[pbem]", "[[move]]", "[seal]", "= =", "\\u", '"\\', "[a.b]\n[a]\n"]) | st.text(max_size=12)


@st.composite
def mutated_bytes(draw: st.DrawFn, b: bytes) -> bytes:
    """The bytes of a file or message changed in one place, as a line-wrapping or careless editor,
    a truncated transfer or an attacker would."""
    op = draw(st.sampled_from(["flip", "bit", "delete", "insert", "insert", "truncate", "dup_line", "swap_lines", "drop_line",
                               "line_endings", "encoding", "raw_value", "raw_value", "dotted", "comment", "indent", "upper",
                               "dup_table", "oversize"]), label="byte op")
    n = len(b)
    i = draw(st.integers(0, max(n - 1, 0)), label="at")
    lines = b.split(b"\n")
    j = min(i * len(lines) // max(n, 1), len(lines) - 1)  # the line of position i
    if op == "flip":
        return b[:i] + bytes([draw(st.integers(0, 255))]) + b[i + 1:]
    if op == "bit":
        return b[:i] + bytes([b[i] ^ (1 << draw(st.integers(0, 7)))]) + b[i + 1:] if n else b
    if op == "delete":
        return b[:i] + b[i + draw(st.sampled_from([1, 2, 3, 8, 64, 1000])):]
    if op == "insert":
        return b[:i] + draw(SNIPPETS).encode("utf-8", "surrogatepass") + b[i:]
    if op == "truncate":
        return b[:i]
    if op == "dup_line":
        return b"\n".join([*lines[: j + 1], *lines[j:]])
    if op == "swap_lines":
        k = draw(st.integers(0, len(lines) - 1))
        lines[j], lines[k] = lines[k], lines[j]
        return b"\n".join(lines)
    if op == "drop_line":
        return b"\n".join(lines[:j] + lines[j + 1:])
    if op == "line_endings":
        return b.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r", b"\n\n", b"\r\r\n", b"\n\r"])))
    if op == "encoding":
        enc = draw(st.sampled_from(["bom", "utf-16", "latin-1", "nul", "cp1252"]))
        if enc == "bom":
            return b"\xef\xbb\xbf" + b
        if enc == "nul":
            return b + b"\x00"
        return b.decode("utf-8", "replace").encode(enc, "replace")
    if op == "raw_value":
        cands = [k for k, line in enumerate(lines) if b" = " in line]
        if cands:
            k = draw(st.sampled_from(cands))
            lines[k] = lines[k].split(b" = ", 1)[0] + b" = " + draw(RAW_VALUES).encode("utf-8")
        return b"\n".join(lines)
    if op == "dotted":  # tables and dotted keys thousands deep: the parser makes them without recursion
        depth = draw(st.sampled_from([20, 100, 400, 1000, 5000]))
        line = draw(st.sampled_from(["a" + ".a" * depth + " = 1", "[" + "a." * depth + "b]", "[[" + "a." * depth + "b]]",
                                     "x = { " + "a." * depth + "b = 1 }"]))
        return b"\n".join([*lines[:j], line.encode("ascii"), *lines[j:]])
    if op == "comment":
        lines[j] = b"# " + lines[j]
        return b"\n".join(lines)
    if op == "indent":
        return b"\n".join(b"\t  " + line for line in lines)
    if op == "upper":
        lines[j] = lines[j].upper()
        return b"\n".join(lines)
    if op == "dup_table":
        heads = [line for line in lines if line.startswith(b"[")]
        if heads:
            lines.insert(j, draw(st.sampled_from(heads)) + b"\nx = 1")
        return b"\n".join(lines)
    return b + b"\n#" + b"x" * (8 * 1024 * 1024 + 1)  # oversize


def text_bytes(s: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    return s.map(lambda t: t.encode("utf-8", "surrogatepass"))


junk_bytes = st.one_of(
    st.binary(max_size=2000),
    text_bytes(st.text(max_size=600)),
    text_bytes(toml_like_text),
    st.dictionaries(keys, any_values, max_size=5).map(tomli_w.dumps).map(str.encode),
    text_bytes(st.builds(lambda kind, rest: f'[pbem]\nformat = 2\nkind = "{kind}"\n{rest}',
                         st.sampled_from(["state", "view", "orders", "join", "reply", "x"]), toml_like_text)),
)


@st.composite
def order_like(draw: st.DrawFn, src: Source, w: Worlds) -> bytes:
    """An order-like document for the state ``src`` answers (tests/exchange/test_properties.py), unsealed,
    sealed with the sender's dice, or forged."""
    state = w.answered(src).data
    doc = draw(order_docs(state, digest(state)))
    how = draw(st.sampled_from(["unsealed", "sealed", "forged"]))
    side = str(src.data["pbem"]["side"])
    if how != "unsealed":
        origin, salts = w.secrets[src.world]
        key = w.pairs[src.world][side]
        idx = int(state["parties"][side]["index"])
        doc["dice"] = {"reveal": proto.secret(key, origin, salts[side], idx),
                       "commit": proto.commitment(proto.secret(key, origin, salts[side], idx + 1))}
        signer = side if how == "sealed" else sorted(p for p in w.pairs[src.world] if p != side)[0]
        doc = dump_safe_seal(doc, side, w.pairs[src.world][signer])
    return dump(doc, src.text).encode("utf-8")


def dump_safe_seal(doc: dict[str, Any], signer: str, key: KeyPair) -> dict[str, Any]:
    try:
        return seal(doc, signer, key)
    except (TypeError, ValueError):
        return doc


@st.composite
def file_bytes(draw: st.DrawFn, src: Source, w: Worlds) -> bytes:
    """A hostile version of a real file: mutated data, mutated bytes, both, junk, or the file itself."""
    ways = ["doc"] * 9 + ["bytes"] * 5 + ["both", "junk", "junk", "original"]
    if src.kind in SUBMISSIONS:
        ways += ["order-like"] * 2
    how = draw(st.sampled_from(ways), label="file")
    if how == "doc":
        return draw(mutated_doc(src, w))
    if how == "bytes":
        return draw(mutated_bytes(src.text.encode("utf-8")))
    if how == "both":
        return draw(mutated_bytes(draw(mutated_doc(src, w))))
    if how == "junk":
        return draw(junk_bytes)
    if how == "order-like":
        return draw(order_like(src, w))
    return src.text.encode("utf-8")


# --- hostile e-mail ------------------------------------------------------------------------------

FILENAMES = ["../../0004.state.toml", "/etc/passwd", "", "a" * 300, "0003.state.toml\x00.txt", "CON", "..", "rapport é.toml",
             "\u202etxt.toml", "0003.state.toml", "x.eml"]
TYPES = [("application", "toml"), ("text", "plain"), ("application", "octet-stream"), ("text", "x-toml"), ("image", "svg+xml"),
         ("text", "markdown"), ("message", "rfc822"), ("multipart", "mixed")]
CTES = ["base64", "quoted-printable", "7bit", "8bit"]
HOSTILE_HEADERS = [
    "Subject: " + "A" * 20_000, "Subject: =?x-unknown?B?SGVsbG8=?=", "Subject: =?utf-8?B?////?=", "Subject: =?utf-8?Q?=FF=FE=00?=",
    "From: " + "<" * 2000, 'From: "unterminated', "To: undisclosed-recipients:;", "Content-Type: multipart/mixed",
    'Content-Type: multipart/mixed; boundary=""', "Content-Type: multipart/mixed; boundary=" + "x" * 2000,
    "Content-Type: text/plain; charset=x-unknown", "Content-Type: text/plain; charset=utf-7", "Content-Type: text/plain; charset=utf-16",
    "Content-Type: text/plain; format=flowed; delsp=yes", "Content-Type: message/rfc822", "Content-Type: ;;;",
    "Content-Type: text/plain; charset*=x-unknown''%FF", "Content-Transfer-Encoding: base64", "Content-Transfer-Encoding: quoted-printable",
    "Content-Transfer-Encoding: x-uuencode", "Content-Transfer-Encoding: 8bit", 'Content-Disposition: attachment; filename="../../0004.state.toml"',
    "Content-Disposition: attachment; filename*=x-unknown''%FF%FE", "Content-Disposition: attachment; filename*0*=utf-8''a; filename*2=b",
    "Content-Disposition: inline", "MIME-Version: 2.0", "X-Fold:" + "\r\n x" * 2000, "Subject: caf\udce9", "Date: yesterday",
    "Received: " + "a" * 100_000, "Content-Type: multipart/digest; boundary=x", "Bcc: eve@example.org",
]
PART_EDITS = [
    (b"Content-Transfer-Encoding: base64", [b"Content-Transfer-Encoding: quoted-printable", b"Content-Transfer-Encoding: 7bit",
                                            b"Content-Transfer-Encoding: x-bogus", b"Content-Transfer-Encoding: base64\nContent-Transfer-Encoding: 8bit", b""]),
    (b'filename="', [b'filename="../../', b'filename="' + b"a" * 5000, b'filename="\xff\xfe', b'filename*=x-unknown\'\'%FF; x="']),
    (b"Content-Type: application/toml", [b"Content-Type: text/plain; charset=x-unknown", b"Content-Type: multipart/mixed",
                                         b"Content-Type: message/rfc822", b"Content-Type: text/plain; format=flowed; delsp=yes",
                                         b"Content-Type: text/plain; charset=utf-16"]),
    (b"Content-Type: text/plain", [b"Content-Type: text/html", b"Content-Type: text/plain; charset=x-unknown",
                                   b"Content-Type: text/plain; format=flowed", b"Content-Type: multipart/alternative"]),
    (b"--=_pbem_", [b"--=_other_", b"--", b"-- =_pbem_", b"--=_pbem_\n--=_pbem_"]),
    (b"MIME-Version: 1.0", [b"", b"MIME-Version: 9"]),
]
MIME_BITS = [
    "From: alice@example.org", "To: bob@example.org", "Subject: [pbem pm-test] 0003", "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b"', "Content-Type: multipart/alternative; boundary=b", "--b", "--b--",
    "Content-Type: text/plain; charset=utf-8", "Content-Type: text/plain; charset=x-unknown; format=flowed; delsp=yes",
    "Content-Type: application/toml", "Content-Type: message/rfc822", "Content-Transfer-Encoding: base64",
    "Content-Transfer-Encoding: quoted-printable", "Content-Transfer-Encoding: x-bogus", 'Content-Disposition: attachment; filename="0003.state.toml"',
    "Content-Disposition: attachment; filename*=utf-8''%2e%2e%2fx", "", "", "[pbem]", 'kind = "orders"', "format = 2", "> [pbem]",
    ">> format = 2", "W3BiZW1dCg==", "=5Bpbem=5D", "=?utf-8?b?w6k=?=", "=?x-unknown?q?=FF?=", "\t folded", "From x@y Mon Jan  1 00:00:00 2024",
    ">From me", "=", "--", "[seal]", 'signer = "german"',
]
mime_like = st.builds(lambda xs, sep: sep.join(xs), st.lists(st.sampled_from(MIME_BITS) | st.text(max_size=10), max_size=60),
                      st.sampled_from(["\n", "\r\n"]))
PROSE = ["Your move.", "Here are my orders.", "", "-- ", "Alice", "On Mon, Bob wrote:", "[pbem] in the middle of a line",
         "key = value", "[not pbem]", "From here on", "> quoted prose", "=" * 80]


def flowed(text: str, width: int) -> str:
    """Format=flowed with delsp=yes: long lines broken every ``width`` characters, each soft break
    marked by a trailing space (RFC 3676)."""
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            out.append(line[:width] + " ")
            line = line[width:]
        out.append(line)
    return "\n".join(out)


@st.composite
def attachment_bytes(draw: st.DrawFn, a: Attachment, w: Worlds) -> bytes:
    if a.source is not None and draw(st.integers(0, 2)) == 0:
        return draw(file_bytes(a.source, w))
    return a.content


def new_message(ms: MailSource) -> EmailMessage:
    msg = EmailMessage()
    orig = email.message_from_bytes(ms.raw, policy=email.policy.default)
    for h in ("From", "To", "Subject", "Date", "Message-ID"):
        if orig[h] is not None:
            msg[h] = str(orig[h])
    return msg


def as_bytes(msg: EmailMessage, crlf: bool) -> bytes:
    if msg.is_multipart():  # a fixed boundary: the email package draws one at random
        msg.set_boundary("=_fuzz_=")
    return msg.as_bytes(policy=email.policy.SMTP if crlf else email.policy.default)


@st.composite
def attached(draw: st.DrawFn, ms: MailSource, w: Worlds) -> bytes:
    """The message rebuilt: its files (one perhaps mutated, dropped, duplicated, another version
    added, a file of another game) attached with other types, encodings and names."""
    msg = new_message(ms)
    msg.set_content(draw(st.sampled_from([ms.body, "", "\n".join(PROSE)])))
    files = [(a.name, draw(attachment_bytes(a, w)), a.maintype, a.subtype) for a in ms.files]
    extra = draw(st.sampled_from(["none"] * 4 + ["drop", "twice", "version", "other-game", "shuffle"]))
    if extra == "drop" and files:
        files.pop(draw(st.integers(0, len(files) - 1)))
    elif extra == "twice" and files:
        files.append(files[draw(st.integers(0, len(files) - 1))])
    elif extra == "version":
        games = [a for a in ms.files if a.source is not None]
        if games:
            a = draw(st.sampled_from(games))
            assert a.source is not None
            files.append((a.name, draw(mutated_doc(a.source, w)), a.maintype, a.subtype))
    elif extra == "other-game":
        s = draw(st.sampled_from(w.sources))
        files.append((s.rel.rsplit("/", 1)[1], s.text.encode("utf-8"), "application", "toml"))
    elif extra == "shuffle":
        files = draw(st.permutations(files))
    for name, content, maintype, subtype in files:
        if draw(st.integers(0, 3)) == 0:
            maintype, subtype = draw(st.sampled_from(TYPES))
            if maintype in ("multipart", "message"):
                maintype, subtype = "application", "x-" + subtype
        filename = draw(st.sampled_from([name] * 6 + FILENAMES + [None]))
        cte = draw(st.sampled_from(CTES))
        try:
            msg.add_attachment(content, maintype=maintype, subtype=subtype, filename=filename, cte=cte)
        except (ValueError, TypeError, UnicodeError):
            msg.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
    return as_bytes(msg, draw(st.booleans()))


@st.composite
def pasted(draw: st.DrawFn, ms: MailSource, w: Worlds) -> bytes:
    """The game files pasted into the text of a message, one perhaps mutated: quoted, between
    prose, with CRLF or format=flowed line breaks, in another charset or transfer encoding."""
    texts = [draw(attachment_bytes(a, w)).decode("utf-8", "replace") for a in ms.files if a.source is not None]
    blocks = []
    for t in texts:
        blocks += [draw(st.sampled_from(PROSE)), t]
    text = "\n".join(blocks + [draw(st.sampled_from(PROSE))])
    quote = draw(st.sampled_from(["", "", "> ", ">> ", ">", "> > ", "  > "]))
    if quote:
        text = "\n".join(quote + line for line in text.split("\n"))
    style = draw(st.sampled_from(["plain", "plain", "flowed", "hard-wrapped", "crlf"]))
    width = draw(st.sampled_from([20, 40, 72, 78]))
    if style == "hard-wrapped":  # a mail program breaking long lines without marking them
        text = flowed(text, width).replace(" \n", "\n")
    elif style == "flowed":
        text = flowed(text, width)
    msg = new_message(ms)
    charset = draw(st.sampled_from(["utf-8", "utf-8", "latin-1", "us-ascii", "utf-16"]))
    cte = draw(st.sampled_from(["quoted-printable", "base64", "8bit", "7bit"]))
    try:
        msg.set_content(text, charset=charset, cte=cte)
    except (ValueError, UnicodeError, LookupError):
        msg.set_content(text)
    if style == "flowed":
        msg.set_param("format", "flowed")
        msg.set_param("delsp", "yes")
    if draw(st.booleans()) and ms.files:  # the report or picture attached beside the pasted files
        for a in ms.files:
            if a.source is None:
                msg.add_attachment(a.content, maintype=a.maintype, subtype=a.subtype, filename=a.name)
    return as_bytes(msg, style == "crlf" or draw(st.booleans()))


def split_head(raw: bytes) -> tuple[bytes, bytes, bytes]:
    for sep in (b"\r\n\r\n", b"\n\n"):
        if sep in raw:
            head, body = raw.split(sep, 1)
            return head, sep, body
    return raw, b"\n\n", b""


@st.composite
def with_headers(draw: st.DrawFn, raw: bytes) -> bytes:
    """Hostile header lines added to the top of a message, or put in place of its own."""
    head, sep, body = split_head(raw)
    nl = b"\r\n" if sep == b"\r\n\r\n" else b"\n"
    lines = head.split(nl)
    for h in draw(st.lists(st.sampled_from(HOSTILE_HEADERS), min_size=1, max_size=3)):
        name = h.split(":", 1)[0].lower().encode()
        if draw(st.booleans()):  # in place of the message's own (with its folded lines)
            kept, skip = [], False
            for line in lines:
                if line[:1] in (b" ", b"\t") and skip:
                    continue
                skip = line.lower().startswith(name + b":")
                if not skip:
                    kept.append(line)
            lines = kept
        lines.append(h.encode("utf-8", "surrogateescape").replace(b"\r\n", nl))
    if draw(st.integers(0, 9)) == 0:
        lines += [b"X-Many: " + str(k).encode() for k in range(draw(st.sampled_from([1000, 20_000])))]
    return nl.join(lines) + sep + body


@st.composite
def part_edited(draw: st.DrawFn, raw: bytes) -> bytes:
    """A part's own headers changed: its transfer encoding, file name, type, or boundary lines."""
    cands = [(old, news) for old, news in PART_EDITS if old in raw]
    if not cands:
        return raw
    old, news = draw(st.sampled_from(cands))
    pieces = raw.split(old)
    k = draw(st.integers(1, len(pieces) - 1))
    return old.join(pieces[:k]) + draw(st.sampled_from(news)) + old.join(pieces[k:])


def multipart(parts: list[bytes], boundary: str, headers: bytes = b"From: a@example.org\nTo: b@example.org\nMIME-Version: 1.0\n") -> bytes:
    b = boundary.encode()
    out = headers + b'Content-Type: multipart/mixed; boundary="' + b + b'"\n\n'
    for p in parts:
        out += b"--" + b + b"\n" + p + b"\n"
    return out + b"--" + b + b"--\n"


@st.composite
def restructured(draw: st.DrawFn, ms: MailSource, w: Worlds) -> bytes:
    """A message of another shape: nested deep, too many parts or files, a message inside a
    message, cut off at a boundary, a game file in the preamble, an oversize file or message."""
    op = draw(st.sampled_from(["nest", "nest", "rfc822", "many-parts", "many-files", "cut", "cut", "preamble", "oversize-file",
                               "oversize-message", "headers-only", "empty-parts"]))
    file = next((a for a in ms.files if a.source is not None), ms.files[0])
    text = file.content
    leaf = b"Content-Type: text/plain; charset=utf-8\n\n" + text
    if op == "nest":
        depth = draw(st.sampled_from([2, 10, 50, 200, 1000]))
        inner = leaf
        for k in range(depth):
            inner = b'Content-Type: multipart/mixed; boundary="n' + str(k).encode() + b'"\n\n--n' + str(k).encode() + b"\n" + inner + \
                b"\n--n" + str(k).encode() + b"--\n"
        return b"From: a@example.org\nTo: b@example.org\nMIME-Version: 1.0\n" + inner
    if op == "rfc822":
        inner = ms.raw
        for _ in range(draw(st.sampled_from([1, 3, 30]))):
            inner = multipart([b"Content-Type: message/rfc822\n\n" + inner], "r")
        return inner
    if op == "many-parts":
        n = draw(st.sampled_from([499, 501, 3000]))
        return multipart([b"Content-Type: text/plain\n\nx"] * n + [leaf], "p")
    if op == "many-files":
        n = draw(st.sampled_from([50, 51, 200]))
        copies = [b"Content-Type: application/toml\n\n" + text + b"\n# " + str(k).encode() if draw(st.booleans()) else
                  b"Content-Type: application/toml\n\n" + text for k in range(n)]
        return multipart(copies, "f")
    if op == "cut":
        raw = ms.raw
        marks = [k for k in range(len(raw)) if raw.startswith(b"--=_pbem", k)] or [len(raw) // 2]
        return raw[: draw(st.sampled_from(marks)) + draw(st.integers(0, 40))]
    if op == "preamble":
        head, sep, body = split_head(ms.raw)
        return head + sep + text + b"\n" + body + b"\n" + text
    if op == "oversize-file":
        big = text + b"\n#" + b"x" * (1024 * 1024 + draw(st.sampled_from([-200, 1, 100])))
        return multipart([b"Content-Type: application/toml\n\n" + big], "o")
    if op == "oversize-message":
        return multipart([leaf, b"Content-Type: text/plain\n\n" + b"y" * (10 * 1024 * 1024 + 1)], "m")
    if op == "headers-only":
        return split_head(ms.raw)[0] + b"\n"
    return multipart([b"", b"\n", b"Content-Type: application/toml\n\n", leaf, b"Content-Type: text/plain; charset=x-unknown\n\n\xff"], "e")


@st.composite
def mbox(draw: st.DrawFn, w: Worlds) -> bytes:
    """Several messages in an mbox: real ones, rebuilt ones, with or without >From escapes."""
    if draw(st.integers(0, 19)) == 0:
        return b"".join(b"From x@example.org Mon Jul  7 10:00:00 2025\nSubject: a\n\nb\n\n" for _ in range(1001))
    msgs = []
    for ms in draw(st.lists(st.sampled_from(w.mails), min_size=1, max_size=4)):
        msgs.append(draw(st.sampled_from([ms.raw, ms.raw])) if draw(st.booleans()) else draw(attached(ms, w)))
    escape = draw(st.booleans())
    out = b""
    for m in msgs:
        if escape:
            m = b"\n".join(b">" + line if line.startswith(b"From ") else line for line in m.split(b"\n"))
        out += b"From fuzz@example.org Mon Jul  7 10:00:00 2025\n" + m + draw(st.sampled_from([b"\n", b"", b"\n\n"]))
    return out


@st.composite
def mail_bytes(draw: st.DrawFn, ms: MailSource, w: Worlds) -> bytes:
    how = draw(st.sampled_from(["original"] + ["attached"] * 6 + ["pasted"] * 4 + ["headers"] * 3 + ["part-headers"] * 2 +
                               ["structure"] * 2 + ["bytes"] * 3 + ["mbox"] * 2 + ["junk"] * 2), label="mail")
    if how == "attached":
        return draw(attached(ms, w))
    if how == "pasted":
        return draw(pasted(ms, w))
    if how == "headers":
        return draw(with_headers(draw(st.sampled_from([ms.raw, draw(attached(ms, w))]))))
    if how == "part-headers":
        return draw(part_edited(ms.raw))
    if how == "structure":
        return draw(restructured(ms, w))
    if how == "bytes":
        return draw(mutated_bytes(ms.raw))
    if how == "mbox":
        return draw(mbox(w))
    if how == "junk":
        return draw(st.one_of(st.binary(max_size=3000), text_bytes(mime_like)))
    return ms.raw


# --- the readers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One input: the bytes put at ``target`` (relative to the worlds' root), and the command line."""

    argv: tuple[str, ...]
    target: str
    data: bytes


@dataclass(frozen=True)
class Reader:
    name: str
    writes: bool  # the command writes files when it succeeds
    cases: Callable[[Worlds], st.SearchStrategy[Case]]


Argv = Callable[[st.DrawFn, Source, Worlds], tuple[str, ...]]


def on_files(pool: Callable[[Worlds], list[Source]], argv: Argv) -> Callable[[Worlds], st.SearchStrategy[Case]]:
    def cases(w: Worlds) -> st.SearchStrategy[Case]:
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            src = draw(st.sampled_from(pool(w)), label="source")
            data = draw(file_bytes(src, w))
            return Case(argv(draw, src, w), src.rel, data)

        return case()

    return cases


def one_of(draw: st.DrawFn, *options: tuple[str, ...]) -> tuple[str, ...]:
    return draw(st.sampled_from(options))


def adjudicator_key(w: Worlds, state: Source) -> str:
    return w.key_file(state.world, str(state.data["awaits"]["adjudicator"]))


def state_pool(w: Worlds) -> list[Source]:
    return w.pool("state")


def first_states(w: Worlds) -> list[Source]:
    return [s for s in w.pool("state") if s.data["pbem"]["sequence"] == 0]


def submissions(w: Worlds) -> list[Source]:
    return [s for s in w.pool(SUBMISSIONS) if not s.folder.startswith("player")]


def views(w: Worlds) -> list[Source]:
    return w.pool("view")


def player_views(w: Worlds) -> list[Source]:
    return w.pool("view", "player")


def verify_state(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    held = w.pool("state", s.folder)
    anchor = digest(held[min(1, len(held) - 1)].data)
    return one_of(d, ("verify", s.folder, "--quiet"), ("verify", s.folder, "--json"), ("verify", s.rel),
                  ("verify", s.folder, "--quiet", "--from", anchor))


def adjudicate_state(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    inputs = [x.rel for x in w.inputs_of(s)]
    return ("adjudicate", s.rel, *inputs, "--key", adjudicator_key(w, s), "-o", "out/next.state.toml")


def join_state(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    side = d(st.sampled_from(sorted(w.pairs[s.world])))
    return ("join", s.rel, "--side", side, "--key", w.key_file(s.world, side), "-o", "out/join.toml")


def mail_write_argv(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    answering = w.answering_view(s) if s.kind == "view" else next(iter(w.inputs_of(s)), None)
    orders = ("--orders", answering.rel) if answering is not None and d(st.booleans()) else ()
    return ("mail", "write", s.rel, *orders, "--from", "alice@example.org", "--to", "bob@example.org", "--date", DATE, "-o", "out/mail.eml")


def check_orders(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    state = d(st.sampled_from([w.answered(s).rel, s.folder]))
    return ("check", state, s.rel, *one_of(d, (), ("--json",), ("--github",)))


def sign_orders(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    key = w.key_file(s.world, str(s.data["pbem"]["side"]))
    state = w.answered(s).rel
    return ("sign", s.rel, "--key", key, *one_of(d, ("--state", state), (), ("--force",), ("-o", "out/signed.toml"), ("--state", state, "--force")))


def adjudicate_orders(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    state = w.answered(s)
    others = [x.rel for x in w.inputs_of(state) if x.rel != s.rel]
    return ("adjudicate", state.rel, s.rel, *others, "--key", adjudicator_key(w, state), "-o", "out/next.state.toml")


def check_view(d: st.DrawFn, s: Source, w: Worlds) -> tuple[str, ...]:
    orders = w.answering_view(s)
    assert orders is not None, s.rel
    return ("check", s.rel, orders.rel, *one_of(d, (), ("--json",)))


def mail_cases(with_folder: bool) -> Callable[[Worlds], st.SearchStrategy[Case]]:
    def cases(w: Worlds) -> st.SearchStrategy[Case]:
        @st.composite
        def case(draw: st.DrawFn) -> Case:
            ms = draw(st.sampled_from(w.mails), label="message")
            data = draw(mail_bytes(ms, w))
            folder = ("--folder", ms.folder) if with_folder else ()
            return Case(("mail", "read", "mail/fuzz.eml", *folder, *one_of(draw, (), ("--json",))), "mail/fuzz.eml", data)

        return case()

    return cases


def json_flag(d: st.DrawFn) -> tuple[str, ...]:
    return one_of(d, (), ("--json",))


READERS = [
    Reader("status STATE", False, on_files(state_pool, lambda d, s, w: ("status", s.rel, *json_flag(d)))),
    Reader("show STATE", False, on_files(state_pool, lambda d, s, w: ("show", s.rel, *one_of(d, (), ("--side", "german"), ("--side", "soviet"))))),
    Reader("template STATE", True, on_files(state_pool, lambda d, s, w: (
        "template", s.rel, "--side", d(st.sampled_from([*s.data["awaits"]["from"], "german"])), "-o", "out/template.toml"))),
    Reader("audit STATE", False, on_files(state_pool, lambda d, s, w: ("audit", s.rel, *json_flag(d)))),
    Reader("verify STATE", False, on_files(state_pool, verify_state)),
    Reader("adjudicate STATE", True, on_files(state_pool, adjudicate_state)),
    Reader("join STATE", True, on_files(first_states, join_state)),
    Reader("mail write STATE", True, on_files(lambda w: [*state_pool(w), *views(w)], mail_write_argv)),
    Reader("check ORDERS", False, on_files(submissions, check_orders)),
    Reader("sign ORDERS", True, on_files(submissions, sign_orders)),
    Reader("adjudicate ORDERS", True, on_files(submissions, adjudicate_orders)),
    Reader("status VIEW", False, on_files(views, lambda d, s, w: ("status", s.rel, *json_flag(d)))),
    Reader("check VIEW", False, on_files(views, check_view)),
    Reader("verify VIEWS", False, on_files(player_views, lambda d, s, w: ("verify", "player", *one_of(d, ("--quiet",), ("--json",))))),
    Reader("mail read", False, mail_cases(False)),
    Reader("mail read --folder", True, mail_cases(True)),
]
COMMANDS: dict[str, click.Command] = {c.name or "": c for c in (status, show, template, audit, verify, adjudicate, join, check, sign)}
COMMANDS |= {"mail read": mail_read, "mail write": mail_write}


# --- running an input ------------------------------------------------------------------------------


class Timeout(BaseException):
    """An input ran longer than --timeout (a BaseException: pbem's own handlers do not take it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout


@dataclass
class Outcome:
    code: int | None  # the exit code; None for an internal error or a timeout
    kind: str  # "ok", "error" (a PbemError or exit), "internal", "timeout"
    seconds: float  # wall-clock time
    error: str = ""
    trace: str = ""
    where: str = ""  # the innermost pbem frame of an internal error
    cpu: float = 0.0  # processor time: what --slow is compared with (the wall clock counts other programs too)


def _where(tb: list[traceback.FrameSummary]) -> str:
    frames = [f for f in tb if f"{os.sep}pbem{os.sep}" in f.filename] or tb
    f = frames[-1]
    return f"{f.filename.rsplit(os.sep + 'pbem' + os.sep, 1)[-1]}:{f.lineno} ({f.name})"


def call_in_process(argv: tuple[str, ...], timeout: float) -> Outcome:
    """Run the command's own function (what `guarded` wraps): its exit code, or the exception."""
    name, rest = (" ".join(argv[:2]), argv[2:]) if argv[0] == "mail" else (argv[0], argv[1:])
    cmd = COMMANDS[name]
    # the group's context settings: a command caches its help option from the first context it is
    # given, so a context without them would take `-h` from the command for good
    ctx = cmd.make_context(name, list(rest), help_option_names=["-h", "--help"])
    fn = cmd.callback.__wrapped__  # type: ignore[union-attr]
    sink = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    out = _run(fn, ctx, sink, start, timeout)
    out.cpu = time.process_time() - cpu
    return out


def _run(fn: Callable[..., Any], ctx: click.Context, sink: io.StringIO, start: float, timeout: float) -> Outcome:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        try:
            with ctx, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                fn(**ctx.params)
            return Outcome(0, "ok", time.perf_counter() - start)
        except PbemError as e:  # what `guarded` prints: the paragraph, and for --json the problems
            e.render()
            json.dumps([p.as_json() for p in e.problems])
            return Outcome(e.exit_code, "error", time.perf_counter() - start, f"{type(e).__name__}: {e.message[:300]}")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            return Outcome(code, "ok" if code == 0 else "error", time.perf_counter() - start)
        except click.ClickException as e:
            return Outcome(e.exit_code, "error", time.perf_counter() - start, f"{type(e).__name__}: {e}")
    except Timeout:
        return Outcome(None, "timeout", time.perf_counter() - start, f"no answer within {timeout} s")
    except Exception as e:  # an internal error: what the user sees as "pbem: internal error"
        tb = traceback.extract_tb(e.__traceback__)
        return Outcome(None, "internal", time.perf_counter() - start, f"{type(e).__name__}: {str(e)[:300]}",
                       "".join(traceback.format_exception(e)), _where(tb))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def call_cli(argv: tuple[str, ...], timeout: float) -> tuple[int | None, str]:
    """The same command line through click, as a user runs it: its exit code and output."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        r = CliRunner().invoke(cli, list(argv))
    except Timeout:
        return None, "timeout"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    out = r.output
    if r.exit_code and not isinstance(r.exception, SystemExit):
        out += f"\n(not a clean exit: {r.exception!r})"
    return r.exit_code, out


@dataclass
class Finding:
    kind: str  # internal, timeout, slow, wrote-on-failure, wrote, temp-file, cli
    reader: str
    signature: str
    argv: tuple[str, ...]
    target: str
    message: str
    seconds: float
    trace: str = ""
    saved: str = ""
    count: int = 1


@dataclass
class Stats:
    reader: str
    inputs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    cli_runs: int = 0
    seconds: float = 0.0  # in the commands
    wall: float = 0.0  # with the generation of the inputs
    slowest: list[tuple[float, str]] = field(default_factory=list)  # (seconds, input digest)
    findings: list[Finding] = field(default_factory=list)
    fingerprint: str = ""  # digest of every input, in order: the same seed gives the same run


Snapshot = dict[str, bytes]


def snapshot(root: Path, scope: list[str]) -> Snapshot:
    out: Snapshot = {}
    for d in scope:
        for base, dirs, files in os.walk(root / d):
            dirs.sort()
            for f in files:
                p = Path(base) / f
                out[str(p.relative_to(root))] = p.read_bytes()
            for sub in dirs:
                out[str((Path(base) / sub).relative_to(root)) + "/"] = b""
    return out


class Runner:
    """Runs the inputs of one reader in a copy of the worlds; keeps its statistics and findings."""

    def __init__(self, ws: Path, reader: Reader, opts: Options) -> None:
        self.ws, self.reader, self.opts = ws, reader, opts
        self.stats = Stats(reader.name)
        self.pristine: dict[str, Snapshot] = {}
        self.seen: Counter[str] = Counter()
        self.fp = hashlib.sha256()
        self.current: Case | None = None
        self.started = 0.0

    def scope(self, case: Case) -> list[str]:
        tops = {a.split("/", 1)[0] for a in (*case.argv, case.target)}
        return sorted(t for t in tops if t and (self.ws / t).is_dir())

    def restore(self, scope: list[str], now: Snapshot) -> None:
        for d in scope:
            if d not in self.pristine:
                continue
            want = self.pristine[d]
            for rel, data in now.items():
                if rel.split("/", 1)[0] != d or rel in want and want[rel] == data:
                    continue
                p = self.ws / rel
                if rel.endswith("/"):
                    if rel not in want:
                        shutil.rmtree(p, ignore_errors=True)
                elif rel in want:
                    p.write_bytes(want[rel])
                else:
                    p.unlink(missing_ok=True)
            for rel, data in want.items():
                if rel not in now and not rel.endswith("/"):
                    (self.ws / rel).write_bytes(data)

    def run(self, case: Case) -> None:
        st_ = self.stats
        st_.inputs += 1
        n = st_.inputs
        self.fp.update(hashlib.sha256(repr(case.argv).encode() + case.data).digest())
        scope = self.scope(case)
        for d in scope:
            if d not in self.pristine:
                self.pristine[d] = {k: v for k, v in snapshot(self.ws, [d]).items()}
        target = self.ws / case.target
        target.write_bytes(case.data)
        # each input with an empty reveal ledger of its own (as on a fresh machine): what one input
        # noted there must not decide another's outcome
        home = self.ws.parent / "pbem-home"
        shutil.rmtree(home, ignore_errors=True)
        os.environ["PBEM_HOME"] = str(home)
        before = snapshot(self.ws, scope)
        self.current, self.started = case, time.monotonic()
        out = call_in_process(case.argv, self.opts.timeout)
        self.current = None
        after = snapshot(self.ws, scope)
        st_.seconds += out.seconds
        st_.outcomes["internal" if out.kind == "internal" else "timeout" if out.kind == "timeout" else str(out.code)] += 1
        st_.slowest = sorted([*st_.slowest, (out.seconds, case_id(case))], reverse=True)[:5]
        if out.kind in ("internal", "timeout"):
            sig = f"{out.error.split(':', 1)[0]} at {out.where}" if out.kind == "internal" else "timeout"
            self.find(out.kind, sig, case, out.error, out.seconds, out.trace)
        elif out.code not in (0, 1, 2, 3):
            self.find("exit-code", f"exit {out.code}", case, f"exit code {out.code}", out.seconds)
        if out.cpu > self.opts.slow and out.kind != "timeout":
            self.find("slow", "slow", case, f"{out.seconds:.2f} s ({out.cpu:.2f} s of processor time, over {self.opts.slow} s)", out.seconds)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        if changed:
            if out.code != 0:
                self.find("wrote-on-failure", "wrote on failure", case, f"exit {out.code} but wrote {changed[:5]}", out.seconds)
            elif not self.reader.writes:
                self.find("wrote", "a reading command wrote", case, f"wrote {changed[:5]}", out.seconds)
            elif any(Path(k).name.startswith(".pbem-") for k in changed):
                self.find("temp-file", "a temporary file left", case, f"left {changed[:5]}", out.seconds)
        self.restore(scope, after)
        if self.opts.cli_every and n % self.opts.cli_every == 0 and out.kind in ("ok", "error"):
            st_.cli_runs += 1
            target.write_bytes(case.data)
            before = snapshot(self.ws, scope)
            code, text = call_cli(case.argv, self.opts.timeout)
            after = snapshot(self.ws, scope)
            problems = []
            if code != out.code:
                problems.append(f"exit {code} through the command line, {out.code} in-process")
            for bad in ("Traceback", "internal error", "not a clean exit"):
                if bad in text:
                    problems.append(f"the output says {bad!r}")
            if code and not clean_error(text):
                problems.append("the error is not a pbem paragraph")
            if code and before != after:
                problems.append("wrote on failure")
            if problems:
                self.find("cli", "; ".join(problems), case, "; ".join(problems) + "\n" + text[-2000:], out.seconds)
            self.restore(scope, after)

    def find(self, kind: str, signature: str, case: Case, message: str, seconds: float, trace: str = "") -> None:
        key = f"{kind}: {signature}"
        self.seen[key] += 1
        for f in self.stats.findings:
            if f"{f.kind}: {f.signature}" == key:
                f.count += 1
                if kind == "slow" and seconds > f.seconds or self.seen[key] <= self.opts.keep:
                    self.save(Finding(kind, self.reader.name, signature, case.argv, case.target, message, seconds, trace), case)
                    if kind == "slow" and seconds > f.seconds:
                        f.seconds, f.argv, f.message = seconds, case.argv, message
                return
        f = Finding(kind, self.reader.name, signature, case.argv, case.target, message, seconds, trace)
        self.stats.findings.append(f)
        self.save(f, case)
        if not self.opts.quiet:
            shown = case.data[:300]
            print(f"\n[{self.reader.name}] {kind}: {message.splitlines()[0] if message else ''}\n  pbem {' '.join(case.argv)}\n"
                  f"  input ({len(case.data)} bytes) at {case.target}: {shown!r}{'...' if len(case.data) > 300 else ''}\n"
                  f"  saved: {f.saved}  (python benchmarks/fuzz.py --replay {f.saved}/case.json)", flush=True)

    def save(self, f: Finding, case: Case) -> str:
        if self.opts.findings is None:
            return ""
        slug = "".join(c if c.isalnum() else "-" for c in f"{f.reader}-{f.kind}").strip("-")
        k = 1
        while (self.opts.findings / f"{slug}-{k}").exists():
            k += 1
        d = self.opts.findings / f"{slug}-{k}"
        d.mkdir(parents=True)
        f.saved = f.saved or str(d)
        ext = ".eml" if case.target.endswith(".eml") else ".toml"
        (d / f"input{ext}").write_bytes(case.data)
        (d / "case.json").write_text(json.dumps({**asdict(f), "argv": list(case.argv), "input": f"input{ext}", "seed": self.opts.seed},
                                                indent=2, ensure_ascii=False), encoding="utf-8")
        return str(d)


def clean_error(text: str) -> bool:
    """A failing command's output as the README promises it: a `pbem: ` paragraph (after `mail
    read`'s listing), the error as JSON (--json), or the problems of `check` (also as annotations)."""
    return ("\n" + text).find("\npbem: ") >= 0 or text.lstrip().startswith("{") or re.search(r" problems?:", text) is not None or "::error" in text


def case_id(case: Case) -> str:
    return hashlib.sha256(repr(case.argv).encode() + case.data).hexdigest()[:12]


@dataclass
class Options:
    seed: int = 0
    examples: int = 100
    timeout: float = 30.0
    slow: float = 1.0
    cli_every: int = 20
    keep: int = 3
    findings: Path | None = None
    quiet: bool = False
    progress: bool = False


def reader_seed(seed: int, name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"pbem fuzz {seed} {name}".encode()).digest()[:8], "big")


def run_reader(reader: Reader, worlds: Worlds, ws: Path, opts: Options) -> Stats:
    """Every input Hypothesis generates for one reader (--examples of them, from the seed), run in
    ``ws``, a fresh copy of the worlds."""
    shutil.copytree(worlds.root, ws)
    runner = Runner(ws, reader, opts)
    hard = opts.timeout * 3 + 30
    done = threading.Event()

    def watchdog() -> None:  # an input the alarm cannot interrupt (a loop in C): saved, then the run stops
        while not done.wait(1.0):
            case = runner.current
            if case is not None and time.monotonic() - runner.started > hard:
                runner.find("hang", "hang", case, f"no answer within {hard} s", hard)
                print(f"[{reader.name}] hang: stopping the run", flush=True)
                os._exit(70)

    threading.Thread(target=watchdog, daemon=True).start()
    os.environ.pop("PBEM_PASSPHRASE", None)
    start = time.perf_counter()

    @settings(max_examples=opts.examples, database=None, deadline=None, phases=[Phase.generate], derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(case=reader.cases(worlds))
    def drive(case: Case) -> None:
        runner.run(case)
        if opts.progress and runner.stats.inputs % 1000 == 0:
            print(f"  {reader.name}: {runner.stats.inputs} inputs, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    try:
        with contextlib.chdir(ws):
            hypothesis_seed(reader_seed(opts.seed, reader.name))(drive)()
    finally:
        done.set()
    runner.stats.wall = time.perf_counter() - start
    runner.stats.fingerprint = runner.fp.hexdigest()[:16]
    return runner.stats


def _task(name: str, base: str, opts: Options) -> Stats:
    reader = next(r for r in READERS if r.name == name)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        worlds = build_worlds(Path(tmp) / "worlds")
        stats = run_reader(reader, worlds, Path(tmp) / "ws", opts)
    print(f"{name}: {stats.inputs} inputs in {stats.wall:.0f} s, {sum(f.count for f in stats.findings)} findings "
          f"(inputs digest {stats.fingerprint})", flush=True)
    return stats


# --- the report --------------------------------------------------------------------------------------


def table(all_stats: list[Stats], wall: float) -> str:
    head = f"{'reader':<20} {'inputs':>7} {'ok':>6} {'exit 1':>7} {'exit 2':>7} {'exit 3':>7} {'internal':>8} {'timeout':>7} {'cli':>5} {'slowest':>8} {'time':>8}"
    rows = [head, "-" * len(head)]
    total = Stats("total")
    for s in all_stats:
        o = s.outcomes
        rows.append(f"{s.reader:<20} {s.inputs:>7} {o['0']:>6} {o['1']:>7} {o['2']:>7} {o['3']:>7} {o['internal']:>8} {o['timeout']:>7} "
                    f"{s.cli_runs:>5} {s.slowest[0][0] if s.slowest else 0:>7.2f}s {s.wall:>7.0f}s")
        total.inputs += s.inputs
        total.outcomes.update(s.outcomes)
        total.cli_runs += s.cli_runs
        total.slowest = sorted([*total.slowest, *s.slowest], reverse=True)[:5]
    o = total.outcomes
    rows += ["-" * len(head), f"{'total':<20} {total.inputs:>7} {o['0']:>6} {o['1']:>7} {o['2']:>7} {o['3']:>7} {o['internal']:>8} "
             f"{o['timeout']:>7} {total.cli_runs:>5} {total.slowest[0][0] if total.slowest else 0:>7.2f}s {wall:>7.0f}s"]
    return "\n".join(rows)


def findings_text(all_stats: list[Stats]) -> str:
    merged: dict[str, list[Finding]] = {}
    for s in all_stats:
        for f in s.findings:
            merged.setdefault(f"{f.kind}: {f.signature}", []).append(f)
    if not merged:
        return "no findings: no internal error, no hang, nothing over the time limit, nothing written on failure"
    lines = [f"{len(merged)} finding(s):"]
    for key, fs in sorted(merged.items()):
        worst = max(fs, key=lambda f: f.seconds)
        lines.append(f"- {key}: {sum(f.count for f in fs)} input(s) in {', '.join(f.reader for f in fs)}")
        lines.append(f"    e.g. pbem {' '.join(worst.argv)}   ({worst.message.splitlines()[0][:160] if worst.message else ''})")
        if worst.saved:
            lines.append(f"    python benchmarks/fuzz.py --replay {worst.saved}/case.json")
    return "\n".join(lines)


def replay(path: Path, worlds_dir: Path | None) -> int:
    """Run a saved input again through `pbem --debug`, in freshly built worlds: the traceback."""
    case = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "worlds"
        if worlds_dir is not None and worlds_dir.exists():
            shutil.copytree(worlds_dir, root)
        else:
            build_worlds(root)
        (root / case["target"]).write_bytes((path.parent / case["input"]).read_bytes())
        print(f"cd {root} && pbem --debug {' '.join(case['argv'])}")
        with contextlib.chdir(root):
            r = CliRunner().invoke(cli, ["--debug", *case["argv"]])
        print(r.output)
        if r.exc_info and not isinstance(r.exception, SystemExit):
            print("".join(traceback.format_exception(*r.exc_info)))
        print(f"exit {r.exit_code}")
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0, help="Hypothesis seed: the same seed gives the same inputs (default 0).")
    ap.add_argument("--examples", type=int, default=-(-TOTAL // len(READERS)), help="Inputs per reader (default: %(default)s, "
                    f"{TOTAL:,} in all).")
    ap.add_argument("--readers", help="Comma-separated reader names (default: all): " + ", ".join(r.name for r in READERS))
    ap.add_argument("--jobs", type=int, default=1, help="Readers run at the same time, each in a process of its own.")
    ap.add_argument("--cli-every", type=int, default=20, help="Every Nth input also through the command line (0: never).")
    ap.add_argument("--timeout", type=float, default=30.0, help="Seconds an input may take before it is stopped (a finding).")
    ap.add_argument("--slow", type=float, default=1.0, help="Seconds over which an input is reported as slow.")
    ap.add_argument("--findings", type=Path, default=Path("fuzz-findings"), help="Where failing inputs are saved.")
    ap.add_argument("--keep", type=int, default=3, help="Inputs saved per kind of finding.")
    ap.add_argument("--quiet", action="store_true", help="Do not print each finding as it is found (only the summary).")
    ap.add_argument("--replay", type=Path, metavar="CASE.json", help="Run a saved input again with --debug, then stop.")
    ap.add_argument("--worlds", type=Path, metavar="DIR", help="Build the games into DIR (to reproduce by hand), then stop; "
                    "with --replay, use them.")
    args = ap.parse_args()
    if args.replay:
        sys.exit(replay(args.replay, args.worlds))
    if args.worlds:
        build_worlds(args.worlds)
        print(f"built the games into {args.worlds}")
        return
    names = args.readers.split(",") if args.readers else [r.name for r in READERS]
    unknown = [n for n in names if n not in {r.name for r in READERS}]
    if unknown:
        ap.error(f"unknown reader(s): {', '.join(unknown)}")
    opts = Options(args.seed, args.examples, args.timeout, args.slow, args.cli_every, args.keep, args.findings, args.quiet,
                   progress=args.jobs == 1)
    print(f"pbem fuzz run: seed {args.seed}, {args.examples} inputs for each of {len(names)} readers, {args.jobs} job(s)", flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as base:
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs, mp_context=get_context("fork")) as pool:
                all_stats = list(pool.map(_task, names, [base] * len(names), [opts] * len(names)))
        else:
            all_stats = [_task(n, base, opts) for n in names]
    wall = time.perf_counter() - start
    print()
    print(f"pbem fuzz run, seed {args.seed}: {sum(s.inputs for s in all_stats):,} inputs in {wall:.0f} s "
          f"({os.cpu_count()} CPUs, {args.jobs} job(s)); exit codes of the commands in-process, `cli` = also run through the command line")
    print(table(all_stats, wall))
    slow = sorted(((t, s.reader, i) for s in all_stats for t, i in s.slowest), reverse=True)[:5]
    print("slowest inputs: " + ", ".join(f"{t:.2f} s ({r})" for t, r, _ in slow))
    print(findings_text(all_stats))
    sys.exit(1 if any(s.findings for s in all_stats) else 0)


if __name__ == "__main__":
    main()
