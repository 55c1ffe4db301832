"""How the ``pbem`` command writes files (docs/protocol.md, "Writing files"): with the user's umask,
never over an existing file (one with exactly the bytes to write counts as written, so an
interrupted command completes when run again), the state last, and all or nothing: a full disk, a
read-only folder or a refused permission at any operation of the write path gives exit 2, a clear
message, and the folder as it was, without temporary files.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange import files
from tests.clihelpers import fails, run, snapshot
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, SOVIET_STANDING, Game, start_cli_game, start_game

ATTACK = GERMAN_GT1.split("[standing]")[0]
GERMAN_GT2 = '\n[standing]\nloss_policy = "fewest-steps-first"\nloss_order = ["Inf1"]\n'
DATE = "Mon, 07 Jul 2025 10:00:00 +0000"
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@dataclass
class Case:
    """A game awaiting the German's GT1 orders, sealed (``orders``) and a draft (``draft``), with
    the key files, in the current folder; and a mail (``eml``) bringing state 0003, its report and
    the German's next orders to the Soviet's folder (``receiver``)."""

    root: Path
    game: Game
    orders: Path
    draft: Path
    eml: Path
    receiver: Path

    @property
    def folder(self) -> Path:
        return self.game.folder


@pytest.fixture
def case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Case:
    g = start_cli_game(tmp_path, monkeypatch)
    orders = g.write_orders(ATTACK)
    draft = g.write_orders(ATTACK, sign=False, name="../draft.orders.toml")
    sender = start_game(tmp_path / "sender")
    sender.play(GERMAN_GT1)
    sender.play(SOVIET_STANDING)  # -> 0003, adjudicated by the German
    next_orders = sender.write_orders(GERMAN_GT2)
    receiver = tmp_path / "soviet"
    receiver.mkdir()
    for p in sorted(sender.folder.iterdir()):
        if p.name < "0003":
            shutil.copy(p, receiver / p.name)
    eml = tmp_path / "in.eml"
    run(["mail", "write", sender.folder / "0003.state.toml", "--orders", next_orders, "--from", "a@example.org",
         "--to", "b@example.org", "--date", DATE, "-o", eml])
    return Case(tmp_path, g, orders, draft, eml, receiver)


def commands(c: Case) -> dict[str, list[Any]]:
    """Every command that writes into a folder, as the tests below run it."""
    return {
        "adjudicate": ["adjudicate", "game/0001.state.toml", c.orders, "--key", "soviet.key"],
        # a second join, beside the game's folder (in it, it would stop sign: two joins of one party)
        "join": ["join", "game/0000.state.toml", "--side", "german", "--key", "german.key", "-o", "j.toml"],
        "sign": ["sign", c.draft, "--key", "german.key", "--state", c.game.state_path],
        "sign -o": ["sign", c.draft, "--key", "german.key", "--state", c.game.state_path, "-o", "game/s.toml"],
        "template -o": ["template", "game/0001.state.toml", "--side", "german", "-o", "game/t.toml"],
        "show --svg": ["show", "game/0001.state.toml", "--svg", "game/p.svg"],
        "mail read": ["mail", "read", c.eml, "--folder", c.receiver],
        "mail write": ["mail", "write", "game/0001.state.toml", "--from", "a@example.org", "--to", "b@example.org",
                       "--date", DATE, "-o", "game/x.eml"],
        "keygen": ["keygen", "game/carol"],
    }


# --- the umask ---------------------------------------------------------------------------------


@pytest.fixture
def restore_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@posix
@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077, 0o002], ids=oct)
def test_written_files_get_the_users_umask(case: Case, restore_umask: None, mask: int) -> None:
    os.umask(mask)
    cmds = commands(case)
    for name in ("adjudicate", "join", "sign -o", "template -o", "show --svg", "mail read", "mail write", "keygen"):
        run(cmds[name])
    run(cmds["sign"])  # sealed in place: a new file too
    run(["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key",
         "-o", "g2", "--game-id", "pm-2"])
    written = [case.folder / n for n in ("0002.state.toml", "0002.report.md", "0002.turn.svg", "s.toml", "t.toml",
                                         "p.svg", "x.eml", "carol.pub")] + [case.root / "j.toml"]
    written += [case.receiver / n for n in ("0003.state.toml", "0003.report.md", "0003-german.orders.toml")]
    written += [case.draft, case.root / "g2" / "0000.state.toml"]
    assert {str(p): oct(mode(p)) for p in written} == {str(p): oct(0o666 & ~mask) for p in written}
    assert mode(case.folder / "carol.key") == 0o600  # a private key stays private
    assert not [p.name for p in case.folder.iterdir() if p.name.startswith(".")]


# --- never overwrite ---------------------------------------------------------------------------


def test_show_svg_never_overwrites_a_file(case: Case) -> None:
    pic = case.root / "mine.svg"
    pic.write_text("<svg>my own drawing</svg>\n", encoding="utf-8")
    fails(case.root, 2, ["show", "game/0001.state.toml", "--svg", pic],
          f"{pic}: already exists, with other content; pbem never overwrites a file", "Choose another output name")
    for taken in ("game/0001.state.toml", "game/0001.report.md", "german.key"):
        fails(case.root, 2, ["show", "game/0001.state.toml", "--svg", taken], f"{taken}: already exists")
    assert run(["show", "game/0001.state.toml", "--svg", "p.svg"]).output == "wrote p.svg\n"
    # the same picture again: exactly these bytes are there already, which counts as written
    before = snapshot(case.root)
    assert run(["show", "game/0001.state.toml", "--svg", "p.svg"]).output == "already there with exactly this content: p.svg\n"
    assert snapshot(case.root) == before
    # another position under that name is refused
    fails(case.root, 2, ["show", "game/0000.state.toml", "--svg", "p.svg"], "p.svg: already exists, with other content")


@posix
def test_no_writer_takes_a_name_that_is_taken(case: Case) -> None:
    """A file, a folder or a FIFO under the output name (the FIFO never read): refused, exit 2."""
    (case.folder / "adir").mkdir()
    os.mkfifo(case.folder / "fifo")
    (case.folder / "mine").write_text("mine\n", encoding="utf-8")
    cmds = commands(case)
    for name in ("join", "sign -o", "template -o", "show --svg", "mail write"):
        for taken in ("adir", "fifo", "mine"):
            args = [*cmds[name][:-1], f"game/{taken}"]
            fails(case.root, 2, args, f"game/{taken}: already exists, with other content; pbem never overwrites a file")
    for taken in ("carol.key", "carol.pub"):
        (case.folder / taken).write_text("mine\n", encoding="utf-8")
        fails(case.root, 2, cmds["keygen"], f"game/{taken}: already exists; pbem never overwrites a key")
        (case.folder / taken).unlink()
    fails(case.root, 2, [*cmds["adjudicate"], "-o", "game/mine"], "game/mine: already exists, with other content")
    fails(case.root, 2, [*cmds["adjudicate"], "-o", "next.toml", "--report", "game/fifo"], "game/fifo: already exists, with other content")
    fails(case.root, 2, ["demo", "--out", "game"], "game: the folder exists and is not empty")
    fails(case.root, 2, ["demo", "--out", "game/mine"], "game/mine: exists and is not a folder")
    fails(case.root, 2, ["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub",
                         "--key", "german.key", "-o", "game/mine"], "game/mine: exists and is not a folder")


def test_a_file_already_there_with_the_same_bytes_counts_as_written(case: Case) -> None:
    """An adjudication interrupted after the report and picture, before the state: run again, it
    writes the state alone. A report with any other content is refused, and nothing is written."""
    ref = case.root / "ref"
    shutil.copytree(case.folder, ref)
    run(["adjudicate", ref / "0001.state.toml", ref / "0001-german.orders.toml", "--key", "soviet.key"])
    for name in ("0002.report.md", "0002.turn.svg"):
        shutil.copy(ref / name, case.folder / name)
    report = (case.folder / "0002.report.md").read_bytes()
    (case.folder / "0002.report.md").write_bytes(report.replace(b"Attack", b"Atack", 1))
    fails(case.root, 2, commands(case)["adjudicate"], "game/0002.report.md: already exists, with other content")
    (case.folder / "0002.report.md").write_bytes(report)
    r = run(commands(case)["adjudicate"])
    assert r.output.startswith("wrote game/0002.state.toml; 2 other files of this adjudication were there already, from an "
                               "earlier run, with exactly the bytes these inputs give\n")
    assert snapshot(case.folder) == snapshot(ref)


def test_sign_run_again_has_nothing_to_do(case: Case) -> None:
    run(commands(case)["sign"])
    before = snapshot(case.root)
    assert run(commands(case)["sign"]).output == f"{case.draft}: already sealed with this key; nothing to do\n"
    assert snapshot(case.root) == before
    fails(case.root, 2, ["sign", case.draft, "--key", "soviet.key", "--state", case.game.state_path],
          "is not german's key in this game")


def record_links(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    linked: list[str] = []
    real = os.link

    def link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        linked.append(Path(dst).name)
        real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", link)
    return linked


def test_the_state_is_written_last(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state is the commit point: every other file of its step has its name before it does;
    a file a mail brings that answers the state comes after it."""
    linked = record_links(monkeypatch)
    run(["adjudicate", "game/0001.state.toml", case.orders, "--key", "soviet.key", "-o", "next.toml", "--report", "next.md"])
    assert linked == ["0002.turn.svg", "next.md", "next.toml"]
    linked.clear()
    run(commands(case)["adjudicate"])
    assert linked == ["0002.report.md", "0002.turn.svg", "0002.state.toml"]
    linked.clear()
    run(commands(case)["mail read"])
    assert linked == ["0003.report.md", "0003.state.toml", "0003-german.orders.toml",  # then the mail records
                      "0003-german.orders.toml.mail", "0003.state.toml.mail"]


def test_a_refereed_step_writes_the_state_after_the_views(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.exchange.game import adjudicate, load_doc, load_state
    from tests.exchange.test_referee import Refereed

    g = Refereed(tmp_path / "ref")
    orders = g.orders("german", GERMAN_GT1)
    res = adjudicate(load_state(g.folder / "0001.state.toml"), [load_doc(orders, "orders")], g.keys["referee"])
    linked = record_links(monkeypatch)
    files.write_all_new(res.outputs(folder=g.folder))
    assert linked == ["0002-german.report.md", "0002-soviet.report.md", "0002.report.md", "0002.turn.svg",
                      "0002-german.view.toml", "0002-soviet.view.toml", "0002.state.toml"]


# --- faults: all or nothing --------------------------------------------------------------------

ERRNOS = [errno.ENOSPC, errno.EROFS, errno.EACCES]
HINTS = {errno.ENOSPC: "The disk is full", errno.EROFS: "read-only file system", errno.EACCES: "You may not write in that folder"}


def fault_at(monkeypatch: pytest.MonkeyPatch, k: int, code: int) -> list[int]:
    """Make the k-th operation of the write path fail with ``code``; returns the operation count."""
    count = [0]

    def point() -> None:
        count[0] += 1
        if count[0] == k:
            raise OSError(code, os.strerror(code))

    monkeypatch.setattr(files, "_point", point)
    return count


@pytest.mark.parametrize("name", ["adjudicate", "join", "sign", "sign -o", "template -o", "show --svg", "mail read", "mail write",
                                  "keygen"])
def test_a_fault_at_any_operation_writes_nothing(case: Case, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """ENOSPC, EROFS and EACCES at each operation in turn: exit 2, a clear message naming the folder
    (or the file sealed in place) and the cause, and every file as it was, no temporary file left.
    Past the last operation, the command runs to its end."""
    args = [str(a) for a in commands(case)[name]]
    k = 0
    while True:
        k += 1
        for code in ERRNOS:
            count = fault_at(monkeypatch, k, code)
            before = snapshot(case.root)
            r = CliRunner().invoke(cli, args)
            if count[0] < k:  # no k-th operation: the command ran to its end
                assert r.exit_code == 0, r.output
                assert k > 4, f"{name}: only {k - 1} operations"
                return
            assert r.exit_code == 2, f"{name}, fault at operation {k}: exit {r.exit_code}\n{r.output}"
            assert snapshot(case.root) == before, f"{name}, fault at operation {k}: files changed"
            what = f"{case.draft}: cannot write the sealed file" if name == "sign" else "cannot write there"
            assert r.output.startswith("pbem: ") and f"{what} ({os.strerror(code)})" in r.output, r.output
            assert ("the file is unchanged" if name == "sign" else "nothing was written") in r.output
            assert HINTS[code] in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(
    ("function", "code"),
    [("write", errno.ENOSPC), ("fsync", errno.EIO), ("link", errno.EROFS), ("open", errno.EACCES), ("close", errno.EDQUOT)],
)
def test_the_operating_system_failing(case: Case, monkeypatch: pytest.MonkeyPatch, function: str, code: int) -> None:
    """The system calls themselves failing (not the write path's own points)."""
    real = getattr(os, function)
    armed = [False]  # close: only the close of a file just written and synced fails

    def failing(*args: Any, **kwargs: Any) -> Any:
        if function == "open" and not args[1] & os.O_CREAT:
            return real(*args, **kwargs)  # reading goes on
        if function == "close":
            real(*args, **kwargs)
            if not armed[0]:
                return None
            armed[0] = False
        raise OSError(code, os.strerror(code))

    if function == "close":
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            real_fsync(fd)
            armed[0] = stat.S_ISREG(os.fstat(fd).st_mode)

        monkeypatch.setattr(os, "fsync", fsync)
    for name in ("adjudicate", "mail read", "join"):
        args = commands(case)[name]
        before = snapshot(case.root)
        monkeypatch.setattr(os, function, failing)
        try:
            r = CliRunner().invoke(cli, [str(a) for a in args])
        finally:
            monkeypatch.setattr(os, function, real)
        assert r.exit_code == 2, r.output
        assert f"cannot write there ({os.strerror(code)}); nothing was written" in r.output, r.output
        assert snapshot(case.root) == before
    def denied(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(os, "replace", denied)
    fails(case.root, 2, commands(case)["sign"], f"{case.draft}: cannot write the sealed file (Permission denied); the file is unchanged")


# --- leftovers of a killed run -----------------------------------------------------------------


def dead_pid() -> int:
    p = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(p.stdout)


def test_leftover_temporary_files_confuse_no_reader_and_the_next_writer_removes_them(case: Case) -> None:
    dead = f"{files.TEMP_PREFIX}{files._HOST}-{dead_pid()}-0123456789ab"
    alive = f"{files.TEMP_PREFIX}{files._HOST}-{os.getppid()}-0123456789ab"
    old = f"{files.TEMP_PREFIX}0000beef-1-0123456789ab"  # another machine's, two days old
    other = f"{files.TEMP_PREFIX}notes"  # not a name pbem gives
    two_days = time.time() - 2 * 24 * 3600
    for folder in (case.folder, case.receiver):
        state = sorted(folder.glob("*.state.toml"))[-1].read_bytes()
        for name in (dead, alive, old, other):  # each a copy of a state, under a hidden name
            (folder / name).write_bytes(state.replace(b"sequence = ", b"sequence = 1"))
        os.utime(folder / old, (two_days, two_days))
    hidden = sorted([dead, alive, old, other])

    def left(folder: Path) -> list[str]:
        return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))

    # the readers see each game as it is
    assert "ok: 2 states" in run(["verify", "game"]).output
    assert "legal for step GT1/1/german" in run(["check", "game", case.orders]).output
    assert "ok: 3 states" in run(["verify", case.receiver]).output
    assert left(case.folder) == hidden and left(case.receiver) == hidden
    # the next writer in a folder removes what a killed run left, and nothing else
    run(commands(case)["adjudicate"])
    assert left(case.folder) == sorted([alive, other])
    assert "ok: 3 states" in run(["verify", "game"]).output
    assert "new    0003.state.toml" in run(commands(case)["mail read"]).output
    assert left(case.receiver) == sorted([alive, other])
    assert "ok: 4 states" in run(["verify", case.receiver]).output
