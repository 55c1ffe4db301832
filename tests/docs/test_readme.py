"""The README's first two commands work on a fresh machine: install and demo; install and tests.

Each runs in a fresh virtual environment made from a copy of the project. The test command's own
pytest run is executed with ``--collect-only`` (running the whole suite inside itself would recurse).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import PM_GOLDEN, ROOT

README = ROOT / "README.md"


def first_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    head = text[: text.index("## ")]
    return re.findall(r"```sh\n(.+?)\n```", head)


def test_readme_first_screen_has_the_two_commands() -> None:
    cmds = first_commands()
    assert len(cmds) == 2
    assert cmds[0].endswith("pbem demo") and "pip install ." in cmds[0]
    assert "pip install -e '.[test]'" in cmds[1] and "pytest" in cmds[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest -q -n auto" in ci and cmds[1].endswith("python -m pytest -q -n auto")  # in parallel


def _copy_project(dst: Path) -> Path:
    ignore = shutil.ignore_patterns(".venv", ".ci-venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache",
                                    ".mypy_cache", ".ruff_cache", ".hypothesis", "build", "dist")
    shutil.copytree(ROOT, dst, ignore=ignore)
    return dst


def _run(cmd: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p and ".ci-venv" not in p)
    return subprocess.run(["bash", "-c", cmd.replace("python3 ", f"{sys.executable} ", 1)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_readme_demo_command_runs_on_a_fresh_copy(tmp_path: Path) -> None:
    project = _copy_project(tmp_path / "pbem")
    res = _run(first_commands()[0], project)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "ok:" in res.stdout and "transitions replayed" in res.stdout


@pytest.mark.slow
def test_readme_test_command_installs_and_collects_the_tests(tmp_path: Path) -> None:
    project = _copy_project(tmp_path / "pbem")
    cmd = first_commands()[1] + " --collect-only -p no:cacheprovider"
    res = _run(cmd, project)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    # one -q: pytest lists every test id and ends with the count (a run ends with "N passed")
    files = {m for m in re.findall(r"^(tests/\S+\.py)::", res.stdout, re.M)}
    total = re.search(r"^(\d+) tests collected", res.stdout, re.M)
    assert total is not None and int(total.group(1)) > 200 and len(files) >= 8, res.stdout[-2000:]


def test_readme_picture_and_report_excerpt_come_from_the_golden_demo() -> None:
    text = README.read_text(encoding="utf-8")
    golden = PM_GOLDEN / "demo"
    assert "![The German player turn of GT1 in the demo](docs/demo-turn.svg)" in text
    assert (ROOT / "docs" / "demo-turn.svg").read_bytes() == (golden / "0002.turn.svg").read_bytes()
    excerpt = text.split("## What a turn looks like", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    assert excerpt.strip() and excerpt in (golden / "0002.report.md").read_text(encoding="utf-8")


def test_the_package_metadata_is_complete_and_the_version_is_in_one_place() -> None:
    import tomllib

    from pbem import __version__

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert meta["tool"]["hatch"]["version"]["path"] == "pbem/__init__.py"
    assert project["authors"] and any("License :: OSI Approved :: MIT License" == c for c in project["classifiers"])
    assert project["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert __version__.count(".") == 2
