"""The CI step of a game repository (examples/git-game/.github/pbem-ci.sh, docs/git.md) on a
Skirmish game, run as GitHub runs it, with the `pbem` it spawns hiding Proud Monster
($PBEM_HIDE_GAMES): the history verifies, each pushed order or reply file is checked, and every
failure is an annotation on its file."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.exchange.files import dumps
from tests.exchange.neutral.conftest import RED_T1, SkGame, body_text, reply_body, start_game
from tests.paths import ROOT

EXAMPLE = ROOT / "examples" / "git-game"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@dataclass
class Repo:
    path: Path
    game: SkGame

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True, text=True).stdout.strip()

    def commit(self, message: str, *paths: str) -> str:
        self.git("add", "--", *paths)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def ci(self, before: str) -> subprocess.CompletedProcess[str]:
        """The workflow's step in the repository, with what GitHub sets (bash -eo pipefail)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""), GITHUB_SHA=self.git("rev-parse", "HEAD"),
                   GITHUB_WORKSPACE=str(self.path), GITHUB_EVENT_NAME="push", BEFORE=before)
        assert env["PBEM_HIDE_GAMES"] == "proud-monster,red-steel,europe-engulfed"
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", ".github/pbem-ci.sh"], cwd=self.path,
                              env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A game repository (the example's CI files) holding a Skirmish game in games/sk/: the start and
    the joins in one commit, then red's orders and the state 0002 that awaits green's reply."""
    path = tmp_path / "repo"
    shutil.copytree(EXAMPLE / ".github", path / ".github")
    shutil.copy(EXAMPLE / ".gitignore", path / ".gitignore")
    g = start_game(path / "games" / "sk")
    g.play(RED_T1)
    r = Repo(path, g)
    r.git("init", "-q")
    r.git("config", "user.email", "ci@example.org")
    r.git("config", "user.name", "CI test")
    r.git("config", "commit.gpgsign", "false")
    r.commit("new game, joins", ".github", ".gitignore", *(f"games/sk/{p.name}" for p in sorted(g.folder.glob("0000*"))))
    r.commit("state 0001", *(f"games/sk/{p.name}" for p in sorted(g.folder.glob("0001.*"))))
    r.commit("red's orders", "games/sk/0001-red.orders.toml")
    r.commit("state 0002", *(f"games/sk/{p.name}" for p in sorted(g.folder.glob("0002.*"))))
    assert r.git("status", "--porcelain") == ""
    return r


def test_the_whole_history_verifies_and_every_order_file_is_checked(repo: Repo) -> None:
    r = repo.ci("")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "== pbem verify games/sk/" in r.stdout and "ok: 3 states, 2 transitions replayed" in r.stdout
    assert "== pbem check games/sk/0001-red.orders.toml" in r.stdout and "legal for step T1/red" in r.stdout
    assert "pbem: every game verifies and every new order and reply file is legal" in r.stdout and "::" not in r.stdout


def test_a_pushed_reply_is_checked(repo: Repo) -> None:
    before = repo.git("rev-parse", "HEAD")
    reply = repo.game.write(reply_body(repo.game.state().data))
    repo.commit("green's reply", f"games/sk/{reply.name}")
    r = repo.ci(before)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"== pbem check games/sk/{reply.name}" in r.stdout and "legal for step T1/red/reply-1" in r.stdout


def test_an_illegal_reply_fails_with_an_annotation_on_its_file(repo: Repo) -> None:
    before = repo.git("rev-parse", "HEAD")
    reply = repo.game.write('\n[reply]\nlosses = ["R1"]\n')
    repo.commit("green's reply", f"games/sk/{reply.name}")
    r = repo.ci(before)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "ok: 3 states" in r.stdout, "the game itself still verifies"
    errors = [line for line in r.stdout.splitlines() if line.startswith("::error")]
    line = reply.read_text(encoding="utf-8").splitlines().index('losses = ["R1"]') + 1  # the annotation's line: the key's
    assert (f"::error file=games/sk/{reply.name},line={line},title=pbem check [6.2]::reply.losses[0]: R1 is not one of the units "
            "offered (G1, G3, G4)") in errors


def test_orders_from_a_side_not_awaited_fail_with_the_rule_of_the_sequence(repo: Repo) -> None:
    before = repo.git("rev-parse", "HEAD")
    st = repo.game.state()
    p = repo.game.folder / "0002-blue.orders.toml"
    p.write_text(body_text(st.data, "blue", "\n# blue's orders, out of turn\n").replace('kind = "reply"', 'kind = "orders"'),
                 encoding="utf-8")
    repo.commit("blue's orders", "games/sk/0002-blue.orders.toml")
    r = repo.ci(before)
    assert r.returncode == 1, r.stdout + r.stderr
    errors = [line for line in r.stdout.splitlines() if line.startswith("::error")]
    assert any(re.match(r"::error file=games/sk/0002-blue\.orders\.toml,line=\d+,title=pbem check \[2\.1\]::", e) for e in errors), errors


def test_a_tampered_state_fails_with_exit_3_and_an_annotation(repo: Repo) -> None:
    before = repo.git("rev-parse", "HEAD")
    st = repo.game.folder / "0002.state.toml"
    data = tomllib.loads(st.read_text(encoding="utf-8"))
    data["position"]["vp"]["red"] += 5
    st.write_text(dumps(data), encoding="utf-8")
    repo.commit("more VP", "games/sk/0002.state.toml")
    r = repo.ci(before)
    assert r.returncode == 3, r.stdout + r.stderr
    errors = [line for line in r.stdout.splitlines() if line.startswith("::error")]
    assert errors == ["::error file=games/sk/0002.state.toml,title=pbem verify exit 3 (seal/chain/commitment failure)"
                      "::the signature does not match the content: the file was changed after it was signed"
                      "%0AAsk its author for the original file; a changed value cannot carry the old seal."]
