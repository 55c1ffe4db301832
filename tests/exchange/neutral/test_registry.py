"""Proud Monster out of the registry: within a process (registry.unregister) and in the `pbem` a
test spawns ($PBEM_HIDE_GAMES), where a whole Skirmish game is played without importing a line of
Proud Monster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.engine import registry
from pbem.errors import UsageError
from tests.paths import PM_GOLDEN

PBEM = Path(sys.executable).parent / "pbem"
PM_STATE = PM_GOLDEN / "demo" / "0000.state.toml"


def spawn(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed `pbem`, with this process's environment ($PBEM_HIDE_GAMES among it)."""
    return subprocess.run([str(PBEM), *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=dict(os.environ))


def test_unregister_and_restore_within_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert registry.names() == ["skirmish"]
    with pytest.raises(UsageError) as e:
        registry.find_module("pm")
    assert e.value.message == "unknown game 'pm'" and e.value.hint == "Known games: skirmish."
    monkeypatch.delenv(registry.HIDE_ENV)
    assert registry.names() == ["skirmish"], "unregister holds without the variable"
    registry.restore()
    assert registry.names() == ["proud-monster", "skirmish", "red-steel", "europe-engulfed"]
    monkeypatch.setenv(registry.HIDE_ENV, " Skirmish ,nothing-such, red-steel,europe-engulfed")
    assert registry.names() == ["proud-monster"] and [m.name for m in registry.modules()] == ["proud-monster"]
    registry.unregister("proud-monster")
    assert registry.names() == [] and registry.modules() == []


def test_a_spawned_pbem_does_not_know_the_hidden_game() -> None:
    r = spawn("games", "--json")
    assert r.returncode == 0, r.stderr
    assert [g["game"] for g in json.loads(r.stdout)["games"]] == ["skirmish"]
    r = spawn("status", str(PM_STATE))
    assert r.returncode == 2 and "unknown game 'proud-monster'" in r.stderr
    r = spawn("verify", str(PM_STATE.parent))
    assert r.returncode == 2 and "unknown game 'proud-monster'" in r.stderr


SCRIPT = r"""
import json, sys
from pbem.cli import cli

def pbem(*args):
    try:
        cli.main(list(args), prog_name="pbem", standalone_mode=False, obj={})
    except SystemExit as e:
        assert not e.code, (args, e.code)

for side in ("red", "blue", "green"):
    pbem("keygen", side)
pbem("new", "crossroads", "--side", "red=red.pub", "--side", "blue=blue.pub", "--side", "green=green.pub",
     "--key", "red.key", "-o", "game")
for side in ("red", "blue", "green"):
    pbem("join", "game/0000.state.toml", "--side", side, "--key", f"{side}.key")
pbem("adjudicate", "game/0000.state.toml", "game/0000-blue.join.toml", "game/0000-green.join.toml",
     "game/0000-red.join.toml", "--key", "red.key")
pbem("template", "game/0001.state.toml", "--side", "red", "-o", "game/0001-red.orders.toml")
with open("game/0001-red.orders.toml", "a") as f:
    f.write('\n[[move]]\nunit = "R4"\npath = ["mill", "crossroads"]\n\n[[attack]]\ntarget = "west-fields"\nunits = ["R3"]\n')
pbem("check", "game/0001.state.toml", "game/0001-red.orders.toml")
pbem("sign", "game/0001-red.orders.toml", "--key", "red.key")
pbem("adjudicate", "game/0001.state.toml", "game/0001-red.orders.toml", "--key", "blue.key")
pbem("status", "game/0002.state.toml", "--json")
pbem("show", "game/0002.state.toml", "--svg", "pos.svg")
pbem("verify", "game")
pbem("audit", "game/0002.state.toml")
pbem("mail", "write", "game/0002.state.toml", "--from", "blue@example.org", "--to", "green@example.org", "-o", "m.eml")
pbem("mail", "read", "m.eml")
print(json.dumps(sorted(m for m in sys.modules if m.startswith("pbem.games."))))
"""


def test_a_whole_game_by_command_in_a_process_that_never_imports_the_hidden_game(tmp_path: Path) -> None:
    """new, join, adjudicate, template, check, sign, status, show, verify, audit, mail write and
    read on Skirmish in a fresh interpreter with $PBEM_HIDE_GAMES: no module of Proud Monster
    is ever imported, so nothing of the core needs it."""
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    imported = json.loads(r.stdout.strip().splitlines()[-1])
    assert imported and all(m.startswith("pbem.games.skirmish") or m == "pbem.games.base" for m in imported), imported  # base: the protocol, no game
    assert "ok: 3 states, 2 transitions replayed" in r.stdout
    assert (tmp_path / "game" / "0002.report.md").read_text(encoding="utf-8").startswith("# Skirmish: report 0002")
