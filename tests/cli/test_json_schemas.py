"""Every command's --json output against its JSON Schema (schemas/cli/COMMAND.schema.json,
docs/json.md): the golden games, games `pbem demo` plays, and broken inputs for the error shape.
Every output has ``ok`` and ``exit`` (the exit code the command ends with), and ``error``, ``hint``
and ``problems`` exactly when it failed; an error is printed in that shape on standard output
whatever raised it (a file, a usage error, an unknown option)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from pbem.cli import cli
from tests.clihelpers import CLI_SCHEMAS, json_errors, schema_registry
from tests.paths import PM_GOLDEN, SK_CATALOG, TESTS

RS_GOLDEN = TESTS / "games" / "red_steel" / "golden"
GOLDEN = [PM_GOLDEN / "demo", PM_GOLDEN / "campaign", RS_GOLDEN / "training"]
REGISTRY = schema_registry()


def json_commands() -> Iterator[tuple[str, click.Command]]:
    """Every command of `pbem` with a --json option, named as its schema file is: `module check` is
    module-check."""

    def walk(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
        for name, cmd in sorted(group.commands.items()):
            if isinstance(cmd, click.Group):
                yield from walk(cmd, f"{prefix}{name}-")
            elif any("--json" in p.opts for p in cmd.params if isinstance(p, click.Option)):
                yield f"{prefix}{name}", cmd

    yield from walk(cli, "")


def pbem(schema: str, args: Sequence[Any], code: int = 0) -> dict[str, Any]:
    """Run `pbem ARGS` (with --json), check its exit code, validate what it printed on standard
    output against ``schema`` and return it."""
    argv = [str(a) for a in args]
    r = CliRunner().invoke(cli, argv)
    assert r.exit_code == code, f"pbem {' '.join(argv)}: exit {r.exit_code}, expected {code}\n{r.output}"
    assert "Traceback" not in r.output
    data: dict[str, Any] = json.loads(r.stdout)
    errors = json_errors(schema, data)
    assert not errors, f"pbem {' '.join(argv)}: not its schema {schema}:\n" + "\n".join(errors)
    assert data["ok"] is (code == 0) and data["exit"] == code
    if code:
        assert data["error"] and data["error"] in r.stderr, "the paragraph on standard error too"
    return data


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Games `pbem demo` plays: skirmish (three sides) and red-steel (hidden values)."""
    root = tmp_path_factory.mktemp("demos")
    mp = pytest.MonkeyPatch()
    mp.setenv("PBEM_HOME", str(tmp_path_factory.mktemp("pbem-home")))
    try:
        for game in ("skirmish", "red-steel"):
            r = CliRunner().invoke(cli, ["demo", "--game", game, "--out", str(root / game)])
            assert r.exit_code == 0, r.output
    finally:
        mp.undo()
    return root


def latest(folder: Path) -> Path:
    return sorted(folder.glob("*.state.toml"))[-1]


# --- the schemas themselves ---------------------------------------------------------------------
def test_every_command_with_json_has_a_schema() -> None:
    names = [name for name, _ in json_commands()]
    assert set(names) == {"status", "check", "verify", "audit", "hidden", "games", "rules", "module-check",
                          "catalog-run", "mail-read"}
    assert sorted(p.name.removesuffix(".schema.json") for p in CLI_SCHEMAS.glob("*.schema.json")) == sorted([*names, "common"])


@pytest.mark.parametrize("path", sorted(CLI_SCHEMAS.glob("*.schema.json")), ids=lambda p: p.name)
def test_the_schemas_are_draft_2020_12_with_the_common_keys(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"pbem:cli/{path.name.removesuffix('.schema.json')}"
    if path.name != "common.schema.json":  # the common keys, and no other key than the command's own
        assert schema["$ref"] == "pbem:cli/common#/$defs/result" and schema["additionalProperties"] is False
        assert {"ok", "exit", "error", "hint", "problems"} <= set(schema["properties"])


def test_the_common_result_ties_ok_exit_and_error() -> None:
    common = Draft202012Validator({"$ref": "pbem:cli/common#/$defs/result"}, registry=REGISTRY)
    problem = {"where": "move[0]", "message": "unknown unit", "rule": "3.1", "hint": ""}
    assert common.is_valid({"ok": True, "exit": 0})
    assert common.is_valid({"ok": False, "exit": 1, "error": "x: 1 problem", "hint": "", "problems": [problem]})
    assert not common.is_valid({"ok": True, "exit": 1})
    assert not common.is_valid({"ok": False, "exit": 0, "error": "x", "hint": "", "problems": []})
    assert not common.is_valid({"ok": True, "exit": 0, "problems": []})
    assert not common.is_valid({"ok": False, "exit": 2, "error": "x"})
    assert not common.is_valid({"ok": False, "exit": 2, "error": "x", "hint": "", "problems": [{"where": "a"}]})


# --- each command on real inputs ----------------------------------------------------------------
@pytest.mark.parametrize("folder", GOLDEN, ids=lambda p: f"{p.parent.parent.name}-{p.name}")
def test_status_and_audit_of_the_golden_games(folder: Path) -> None:
    s = pbem("status", ["status", folder, "--json"])
    assert s["file"] == str(latest(folder)) and s["digest"].startswith("sha256:")
    for state in sorted(folder.glob("*.state.toml"))[:4]:  # state 0, the joins' transition, dice
        a = pbem("audit", ["audit", state, "--json"])
        assert a["state"] == str(state)
    assert any(pbem("audit", ["audit", state, "--json"])["dice"] for state in sorted(folder.glob("*.state.toml"))[2:8])


@pytest.mark.parametrize("folder", [PM_GOLDEN / "demo", RS_GOLDEN / "training"], ids=lambda p: p.name)
def test_verify_and_check_of_the_golden_games(folder: Path) -> None:
    v = pbem("verify", ["verify", folder, "--json"])
    assert v["states"] == len(list(folder.glob("*.state.toml"))) and v["trusted_from"]["file"].endswith("0000.state.toml")
    orders = sorted(folder.glob("*.orders.toml"))[0]
    c = pbem("check", ["check", folder, orders, "--json"])
    assert (c["file"], c["sealed"]) == (str(orders), True)


def test_the_demos_games(demos: Path) -> None:
    for game in ("skirmish", "red-steel"):
        folder = demos / game / "game"
        pbem("status", ["status", folder, "--json"])
        pbem("verify", ["verify", folder, "--json"])
    h = pbem("hidden", ["hidden", latest(demos / "red-steel" / "game"), "--key", demos / "red-steel" / "axis.key", "--json"])
    assert h["side"] == "axis" and h["hidden"]
    h = pbem("hidden", ["hidden", latest(demos / "skirmish" / "game"), "--key", demos / "skirmish" / "red.key", "--json"])
    assert (h["side"], h["hidden"]) == ("red", {})


def test_check_of_illegal_orders(demos: Path, tmp_path: Path) -> None:
    folder = demos / "skirmish" / "game"
    draft = tmp_path / "draft.toml"
    r = CliRunner().invoke(cli, ["template", str(latest(folder)), "--side", "red", "-o", str(draft)])
    assert r.exit_code == 0, r.output
    c = pbem("check", ["check", latest(folder), draft, "--json"])
    assert c["sealed"] is False
    draft.write_text(draft.read_text(encoding="utf-8") + '\n[[move]]\nunit = "XX"\npath = ["nowhere"]\n', encoding="utf-8")
    c = pbem("check", ["check", latest(folder), draft, "--json"], 1)
    assert c["error"] == f"{draft}: 1 problem" and c["problems"][0]["where"] == "move[0].unit"
    assert c["problems"][0]["rule"] and (c["file"], c["sealed"]) == (str(draft), False)


def test_games_rules_and_module_check() -> None:
    games = pbem("games", ["games", "--json"])["games"]
    assert {g["game"] for g in games} >= {"proud-monster", "red-steel", "skirmish"}
    for g in games:
        r = pbem("rules", ["rules", g["game"], "--json"])
        assert r["game"] == g["game"] and r["rules"]
        m = pbem("module-check", ["module", "check", g["game"], "--json"])
        assert m["game"] == g["game"] and m["rows"]


def test_catalog_run_passes_fails_and_malformed(tmp_path: Path) -> None:
    data = pbem("catalog-run", ["catalog", "run", SK_CATALOG, "--json"])
    assert data["passed"] == len(data["cases"]) > 0 and (data["failed"], data["malformed"]) == (0, 0)
    reply = SK_CATALOG / "SK-010-reply.toml"
    bad = tmp_path / reply.name
    bad.write_text(reply.read_text(encoding="utf-8").replace("rolled = 2", "rolled = 3", 1), encoding="utf-8")
    data = pbem("catalog-run", ["catalog", "run", bad, "--json"], 1)
    assert data["failed"] == 1 and data["problems"][0]["where"] == str(bad)
    assert data["problems"][0]["message"].startswith("SK-010: dice rolled: expected 3, got 2")
    ugly = tmp_path / "SK-099-ugly.toml"
    ugly.write_text("[case\n", encoding="utf-8")
    data = pbem("catalog-run", ["catalog", "run", bad, ugly, "--json"], 2)
    assert (data["failed"], data["malformed"]) == (1, 1) and len(data["problems"]) == 2


def test_mail_read(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    shutil.copytree(PM_GOLDEN / "demo", folder)
    eml = tmp_path / "0007.eml"
    r = CliRunner().invoke(cli, ["mail", "write", str(folder / "0007.state.toml"), "--from", "bob@example.org",
                                 "--to", "alice@example.org", "--date", "Mon, 07 Jul 2025 10:00:00 +0000", "-o", str(eml)])
    assert r.exit_code == 0, r.output
    data = pbem("mail-read", ["mail", "read", eml, "--json"])
    assert data["messages"] == 1 and {f["status"] for f in data["files"]} == {"found"} and data["folder"] is None
    data = pbem("mail-read", ["mail", "read", eml, "--folder", folder, "--json"])
    assert {f["status"] for f in data["files"]} == {"known"} and data["written"] == []
    empty = tmp_path / "empty.eml"
    empty.write_text("From: a@example.org\nTo: b@example.org\nSubject: hello\n\nNo game file here.\n", encoding="utf-8")
    data = pbem("mail-read", ["mail", "read", empty, "--ok-if-none", "--json"])
    assert data["files"] == []
    pbem("mail-read", ["mail", "read", empty, "--json"], 2)


# --- errors, whatever raised them, in the common shape ------------------------------------------
def test_errors_in_the_common_shape(tmp_path: Path, demos: Path) -> None:
    broken = tmp_path / "0001.state.toml"
    broken.write_text("[pbem\nkind = 'state'\n", encoding="utf-8")
    orders = tmp_path / "0001-red.orders.toml"
    orders.write_text("[pbem]\nformat = 2\n", encoding="utf-8")
    not_a_mail = tmp_path / "mail.eml"
    not_a_mail.write_bytes(b"")
    key = demos / "skirmish" / "red.key"
    for schema, args in [
        ("status", ["status", broken]), ("check", ["check", broken, orders]),
        ("check", ["check", latest(demos / "skirmish" / "game"), orders]), ("verify", ["verify", broken]),
        ("verify", ["verify", tmp_path]), ("audit", ["audit", broken]), ("hidden", ["hidden", broken, "--key", key]),
        ("rules", ["rules", "chess"]), ("module-check", ["module", "check", "chess"]),
        ("catalog-run", ["catalog", "run", tmp_path]), ("mail-read", ["mail", "read", not_a_mail]),
    ]:
        data = pbem(schema, [*args, "--json"], 2)
        assert set(data) == {"ok", "exit", "error", "hint", "problems"}, args
    p = pbem("status", ["status", broken, "--json"], 2)
    assert str(broken) in p["error"]


def test_a_tampered_file_exits_3_in_the_common_shape(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    shutil.copytree(PM_GOLDEN / "demo", folder)
    state = folder / "0003.state.toml"
    state.write_text(state.read_text(encoding="utf-8").replace('game = "pm-demo-training"', 'game = "pm-demo-trainin"', 1),
                     encoding="utf-8")
    for schema, args in [("verify", ["verify", folder]), ("status", ["status", state]), ("audit", ["audit", state])]:
        data = pbem(schema, [*args, "--json"], 3)
        assert data["error"]


@pytest.mark.parametrize("args", [["rules"], ["rules", "skirmish", "--bogus"], ["module", "check"], ["catalog", "run"],
                                  ["verify"], ["check", "x.toml"], ["mail", "read"], ["games", "--bogus"]],
                         ids=" ".join)
def test_usage_errors_in_the_common_shape(args: list[str]) -> None:
    schema = {"module": "module-check", "catalog": "catalog-run", "mail": "mail-read"}.get(args[0], args[0])
    data = pbem(schema, [*args, "--json"], 2)
    assert set(data) == {"ok", "exit", "error", "hint", "problems"} and "--help" in data["hint"]


def test_an_internal_error_in_the_common_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.engine import registry

    def broken() -> list[Any]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(registry, "modules", broken)
    data = pbem("games", ["games", "--json"], 2)
    assert data["error"] == "internal error: RuntimeError: a bug" and "--debug" in data["hint"]
