"""A real ``pbem`` process killed with SIGKILL at every operation of its write path (the test hook
``PBEM_TEST_HOOK_SIGKILL=kill-at-write-op-K`` of pbem/exchange/files.py): `adjudicate`, `sign`,
`join` and `mail read`.

After each kill the folder, its hidden temporary files aside, is as before the command, or as
before plus the first files of the command's commit order, each complete (docs/protocol.md,
"Writing files": the derived files, then the state, then the files answering it); no file is ever
half written, and `pbem verify` still reads the folder. Running the command again then gives
exactly the folder of an uninterrupted run, byte for byte, with no temporary file left.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.files import TEMP_PREFIX, TEST_HOOK, dumps, write_new
from pbem.exchange.game import new_game
from pbem.exchange.keys import KeyPair, write_key_files
from tests.clihelpers import run
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, start_game
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or os.name != "posix", reason="SIGKILL")

ATTACK = GERMAN_GT1.split("[standing]")[0]
DATE = "Mon, 07 Jul 2025 10:00:00 +0000"


def pbem(args: list[str], cwd: Path, kill_at: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (TEST_HOOK, "PBEM_PASSPHRASE")}
    env["PYTHONPATH"] = str(ROOT)
    if kill_at is not None:
        env[TEST_HOOK] = f"kill-at-write-op-{kill_at}"
    return subprocess.run([sys.executable, "-m", "pbem", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def visible(root: Path) -> dict[str, bytes]:
    """Every file under root but the temporary files, with its bytes; a join file stands for any
    complete join (each `pbem join` draws a fresh salt, so two runs write two joins)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.startswith(TEMP_PREFIX):
            data = p.read_bytes()
            if p.name.endswith(".join.toml") and "salt" in tomllib.loads(data.decode("utf-8"))["dice"]:
                data = b"a complete join"
            out[str(p.relative_to(root))] = data
    return out


def temporary(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(f"{TEMP_PREFIX}*"))


def keys_in(root: Path, seed: str = "test") -> dict[str, KeyPair]:
    keys = {s: KeyPair.from_seed(f"{seed} {s}".encode()) for s in ("german", "soviet")}
    for side, k in keys.items():
        write_key_files(k, root / side)
    return keys


# Each case: make the folder in ``root`` (the current folder of the command); the command; the
# files it writes in their commit order (for `sign`, the file it seals in place); the folder verified.

def join_case(root: Path) -> list[str]:
    keys = keys_in(root)
    (root / "game").mkdir()
    state = new_game("proud-monster", EXCHANGE_SCENARIO, {s: k.public_text for s, k in keys.items()}, None, keys["german"],
                     "pm-test", {})
    write_new(root / "game" / "0000.state.toml", dumps(state))
    return ["join", "game/0000.state.toml", "--side", "german", "--key", "german.key"]


def sign_case(root: Path) -> list[str]:
    g = start_game(root / "game")
    keys_in(root)
    g.write_orders(ATTACK, sign=False)
    return ["sign", "game/0001-german.orders.toml", "--key", "german.key", "--state", "game/0001.state.toml"]


def adjudicate_case(root: Path) -> list[str]:
    g = start_game(root / "game")
    keys_in(root)
    g.write_orders(ATTACK)
    return ["adjudicate", "game/0001.state.toml", "game/0001-german.orders.toml", "--key", "soviet.key"]


def mail_case(root: Path) -> list[str]:
    """The Soviet adjudicated the German's GT1 (state 0002, its report and picture) and sends it
    with his own orders; the German's folder holds everything before 0002."""
    g = start_game(root / "sender")
    g.play(GERMAN_GT1)
    orders = g.write_orders('\n[standing]\nloss_policy = "most-steps-first"\n')  # the Soviet's, sealed
    run(["mail", "write", g.folder / "0002.state.toml", "--orders", orders, "--from", "bob@example.org",
         "--to", "alice@example.org", "--date", DATE, "-o", root / "in.eml"])
    (root / "german").mkdir()
    for f in sorted(g.folder.iterdir()):
        if f.name < "0002":
            shutil.copy(f, root / "german" / f.name)
    shutil.rmtree(root / "sender")
    return ["mail", "read", "in.eml", "--folder", "german"]


@dataclass
class Case:
    name: str
    make: Callable[[Path], list[str]]
    order: list[str]  # the files written, in commit order (in place: the one file replaced)
    folder: str  # what `pbem verify` reads after a kill


CASES = [
    Case("join", join_case, ["game/0000-german.join.toml"], "game"),
    Case("sign", sign_case, ["game/0001-german.orders.toml"], "game"),
    Case("adjudicate", adjudicate_case, ["game/0002.report.md", "game/0002.turn.svg", "game/0002.state.toml"], "game"),
    Case("mail read", mail_case, ["german/0002.report.md", "german/0002.turn.svg", "german/0002.state.toml",
                                  "german/0002-soviet.orders.toml", "german/0002-soviet.orders.toml.mail",
                                  "german/0002.state.toml.mail"], "german"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_command_killed_at_any_operation_leaves_a_folder_that_completes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                           case: Case) -> None:
    base = tmp_path / "base"
    base.mkdir()
    args = case.make(base)
    before = visible(base)
    ref = tmp_path / "ref"
    shutil.copytree(base, ref)
    done = pbem(args, ref)
    assert done.returncode == 0, done.stderr
    after = visible(ref)
    assert temporary(ref) == []
    changed = sorted(n for n in after if before.get(n) != after[n])
    assert changed == sorted(case.order), changed

    def states() -> list[dict[str, bytes]]:
        """The folders the command may leave: before, and before with each prefix of the commit order."""
        out = [dict(before)]
        for name in case.order:
            out.append({**out[-1], name: after[name]})
        return out

    allowed = states()

    def kill(k: int) -> tuple[int, Path, subprocess.CompletedProcess[str]]:
        d = tmp_path / f"k{k:03d}"
        shutil.copytree(base, d)
        return k, d, pbem(args, d, kill_at=k)

    # kill at operation 1, 2, ... until a run reaches its end before its k-th operation
    workers = max(2, os.cpu_count() or 2)
    killed: list[tuple[int, Path]] = []
    k = 0
    finished = False
    with ThreadPoolExecutor(workers) as pool:
        while not finished:
            batch = list(pool.map(kill, range(k + 1, k + 1 + workers)))
            k += workers
            for n, d, r in batch:
                if finished:
                    shutil.rmtree(d)
                elif r.returncode == -signal.SIGKILL:
                    killed.append((n, d))
                else:
                    assert r.returncode == 0, f"{case.name}, operation {n}: exit {r.returncode}\n{r.stderr}"
                    assert visible(d) == after and temporary(d) == []
                    finished = True
        points = len(killed)
        assert [n for n, _ in killed] == list(range(1, points + 1))
        assert points >= 5 * len(case.order), f"{case.name}: only {points} operations"

        seen: dict[int, Path] = {}
        for n, d in killed:
            got = visible(d)
            assert got in allowed, f"{case.name}, killed at operation {n}: not a folder the command may leave"
            seen.setdefault(allowed.index(got), d)
        # a kill before the first name happened, and one after each name but maybe the last (an
        # in-place seal has no operation after its rename)
        assert set(range(len(allowed) - 1)) <= set(seen) <= set(range(len(allowed))), (case.name, sorted(seen))
    # each folder a kill may leave, with the killed run's temporary files: readers see the game it holds
    for d in seen.values():
        folder = d / case.folder
        ok = run(["verify", folder, "--quiet"]).output
        last = sorted(folder.glob("*.state.toml"))[-1]
        assert ok.startswith("ok: ") and ok.splitlines()[0].endswith(f"last {last}"), ok
        run(["status", last])
    # run again (here, in this process): exactly the folder of an uninterrupted run, no temporary file left
    for n, d in killed:
        monkeypatch.chdir(d)
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 0, f"{case.name}, run again after operation {n}: exit {r.exit_code}\n{r.output}"
        assert visible(d) == after, f"{case.name}, run again after operation {n}: not the folder of an uninterrupted run"
        assert temporary(d) == [], f"{case.name}, run again after operation {n}: {temporary(d)}"
