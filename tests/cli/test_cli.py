"""The ``pbem`` command (DESIGN §5) through click's CliRunner: help texts, a whole game through the
CLI only, and the exact exit code of every kind of bad input on every command that reads files;
on each failure nothing is written and no traceback is shown (unless ``--debug``)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner

from pbem.cli import cli
from pbem.errors import MalformedFileError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.files import MAX_FILE_BYTES
from pbem.exchange.game import load_state
from pbem.exchange.keys import KeyPair, write_key_files
from tests.clihelpers import fails, run, snapshot
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, SOVIET_STANDING, Game, start_cli_game, start_game
from tests.paths import ROOT

ATTACK = GERMAN_GT1.split("[standing]")[0]  # the [[attack]] table alone


# --- helpers -----------------------------------------------------------------------------------




def read(p: Path) -> dict[str, Any]:
    return tomllib.loads(p.read_text(encoding="utf-8"))


def write(p: Path, data: dict[str, Any]) -> None:
    p.write_text(tomli_w.dumps(data), encoding="utf-8")


@dataclass
class Cli:
    """A game awaiting the German's GT1 orders, with key files, in the current folder."""

    root: Path
    game: Game

    @property
    def folder(self) -> Path:
        return self.game.folder

    @property
    def state(self) -> str:
        return "game/0001.state.toml"


@pytest.fixture
def cg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    return Cli(tmp_path, start_cli_game(tmp_path, monkeypatch))


# --- help --------------------------------------------------------------------------------------

COMMANDS = [
    [], ["keygen"], ["new"], ["join"], ["status"], ["template"], ["check"], ["sign"], ["adjudicate"],
    ["verify"], ["audit"], ["show"], ["rules"], ["module"], ["module", "check"], ["demo"],
]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c) or "pbem")
def test_every_command_has_help_with_an_example(cmd: list[str]) -> None:
    r = run([*cmd, "--help"])
    assert "Example" in r.output
    assert "pbem " + " ".join(cmd) in r.output if cmd else "pbem demo" in r.output
    assert run([*cmd, "-h"]).output == r.output


def test_every_command_is_listed_in_the_help() -> None:
    out = run(["--help"]).output
    for c in ("keygen", "new", "join", "status", "template", "check", "sign", "adjudicate", "verify", "audit", "show",
              "rules", "module", "demo"):
        assert f"\n  {c} " in out


def test_version() -> None:
    assert run(["--version"]).output.startswith("pbem, version ")


# --- a whole game through the CLI --------------------------------------------------------------


def test_a_small_game_through_the_cli_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = run(["keygen", "alice"])
    assert r.output.startswith("wrote alice.key (private, keep it) and alice.pub (public: ed25519:")
    run(["keygen", "bob"])
    for name in ("alice", "bob"):
        assert stat.S_IMODE((tmp_path / f"{name}.key").stat().st_mode) == 0o600
    alice = (tmp_path / "alice.pub").read_text(encoding="ascii").strip()
    bob = (tmp_path / "bob.pub").read_text(encoding="ascii").strip()

    r = run(["new", EXCHANGE_SCENARIO, "--side", "german=alice.pub", "--side", f"soviet={bob}", "--key", "alice.key",
             "--game-id", "pm-cli", "-o", "game"])
    assert r.output == "wrote game/0000.state.toml: game pm-cli, awaiting joins from german, soviet (`pbem join`)\n"
    s0 = read(tmp_path / "game" / "0000.state.toml")
    assert s0["pbem"]["game"] == "pm-cli" and s0["parties"]["german"]["key"] == alice and s0["parties"]["soviet"]["key"] == bob
    assert s0["pbem"]["scenario"] == EXCHANGE_SCENARIO

    assert run(["join", "game/0000.state.toml", "--side", "german", "--key", "alice.key"]).output == "wrote game/0000-german.join.toml\n"
    assert run(["join", "game/0000.state.toml", "--side", "soviet", "--key", "bob.key"]).output == "wrote game/0000-soviet.join.toml\n"
    r = run(["adjudicate", "game/0000.state.toml", "game/0000-german.join.toml", "game/0000-soviet.join.toml", "--key", "alice.key"])
    assert r.output == "wrote game/0001.state.toml, game/0001.report.md\nawaits orders for GT1/1/german from german\n"

    # the German's GT1: template, edit, check, sign, adjudicated by the Soviet
    orders = tmp_path / "game" / "0001-german.orders.toml"
    assert run(["template", "game/0001.state.toml", "--side", "german", "-o", orders]).output == f"wrote {orders}\n"
    with orders.open("a", encoding="utf-8") as f:
        f.write(ATTACK)
    r = run(["check", "game/0001.state.toml", orders])
    assert r.output == f"{orders}: legal for step GT1/1/german (not sealed yet: `pbem sign`)\n"
    assert run(["sign", orders, "--key", "alice.key", "--state", "game/0001.state.toml"]).output == f"sealed {orders}\n"
    assert read(orders)["seal"]["signer"] == "german"
    assert run(["check", "game/0001.state.toml", orders]).output == f"{orders}: legal for step GT1/1/german\n"
    r = json.loads(run(["check", "game/0001.state.toml", orders, "--json"]).output)
    assert r == {"file": str(orders), "ok": True, "exit": 0, "sealed": True}
    r = run(["adjudicate", "game/0001.state.toml", orders, "--key", "bob.key"])
    assert r.output == "wrote game/0002.state.toml, game/0002.report.md, game/0002.turn.svg\nawaits orders for GT1/1/soviet from soviet\n"
    report = (tmp_path / "game" / "0002.report.md").read_text(encoding="utf-8")
    assert "**Attack 1 on 4916N**" in report and "## Dice" in report

    st = json.loads(run(["status", "game/0002.state.toml", "--json"]).output)
    assert st["game"] == "pm-cli" and st["sequence"] == 2
    assert st["awaits"] == {"kind": "orders", "step": "GT1/1/soviet", "from": ["soviet"], "adjudicator": "german"}
    assert st["clock"] == {"turn": 1, "pts": 1, "side": "soviet", "phase": "movement"}
    assert st["result"] is None
    assert "awaits orders for step GT1/1/soviet from soviet; adjudicated by german" in run(["status", "game/0002.state.toml"]).output

    # the Soviet's GT1, template to standard output
    sov = tmp_path / "game" / "0002-soviet.orders.toml"
    sov.write_text(run(["template", "game/0002.state.toml", "--side", "soviet"]).output, encoding="utf-8")
    run(["sign", sov, "--key", "bob.key", "--state", "game/0002.state.toml"])
    run(["adjudicate", "game/0002.state.toml", sov, "--key", "alice.key"])

    v = json.loads(run(["verify", "game", "--json"]).output)
    start = load_state(Path("game/0000.state.toml")).digest
    assert v == {"ok": True, "exit": 0, "states": 4, "transitions": 3, "reports": 3, "pictures": 1, "views": 0, "dice": 0, "last": "game/0003.state.toml", "notes": [],
                 "trusted_from": {"file": "game/0000.state.toml", "digest": start,
                                  "how": f"the game's start, re-derived from scenario '{EXCHANGE_SCENARIO}'"}}
    assert run(["verify", "game", "--quiet"]).output == (
        "ok: 4 states, 3 transitions replayed, 3 reports and 1 picture match; last game/0003.state.toml\n"
        f"trusted from game/0000.state.toml (the game's start, re-derived from scenario '{EXCHANGE_SCENARIO}'; {start})\n")

    a = json.loads(run(["audit", "game/0002.state.toml", "--json"]).output)
    assert a["sequence"] == 2 and len(a["dice"]) >= 1
    assert all(d["matches"] and d["derived"] == d["recorded"] for d in a["dice"])
    assert [d["label"] for d in a["dice"]] == [d["label"] for d in read(tmp_path / "game" / "0002.state.toml")["transition"]["dice"]]
    assert [c["party"] for c in a["commitments"]] == ["german", "soviet"]
    text = run(["audit", "game/0002.state.toml"]).output
    assert "HMAC-SHA-256(seed, label)" in text and "ok" in text
    assert "the transition from the joins rolls no dice" in run(["audit", "game/0001.state.toml"]).output

    shown = run(["show", "game/0003.state.toml"]).output
    assert "Pz1" in shown and "4916N" in shown
    assert run(["show", "game/0003.state.toml", "--side", "german"]).exit_code == 0

    rules = run(["rules", "proud-monster"]).output
    assert "implemented" in rules and "12.4" in rules
    rows = json.loads(run(["rules", "proud-monster", "--json"]).output)["rules"]
    assert {"rule", "status", "title"} <= set(rows[0])
    assert all(isinstance(r["status"], str) and r["rule"] for r in rows)
    assert any(r["status"] == "implemented" and r.get("cases") for r in rows)
    mc = run(["module", "check", "proud-monster"]).output
    assert "provisional" in mc
    assert isinstance(json.loads(run(["module", "check", "proud-monster", "--json"]).output)["rows"], list)


def test_the_cli_game_is_the_library_game(cg: Cli) -> None:
    """Orders signed and adjudicated through the CLI give the same bytes as through the library."""
    lib = start_game(cg.root / "lib")
    lib.play(GERMAN_GT1)
    orders = cg.folder / "0001-german.orders.toml"
    orders.write_bytes((lib.folder / "0001-german.orders.toml").read_bytes())
    run(["adjudicate", cg.state, orders, "--key", "soviet.key"])
    for name in ("0002.state.toml", "0002.report.md"):
        assert (cg.folder / name).read_bytes() == (lib.folder / name).read_bytes()


# --- bad state files, on every command that reads one -------------------------------------------


def state_readers(cg: Cli, state: str) -> list[list[str]]:
    draft = cg.root / "draft.orders.toml"
    if not draft.exists():
        cg.game.write_orders(ATTACK, sign=False, name="../draft.orders.toml")
    sealed = cg.folder / "0001-german.orders.toml"
    if not sealed.exists():
        cg.game.write_orders(ATTACK)
    return [
        ["status", state], ["status", state, "--json"], ["show", state], ["template", state, "--side", "german"],
        ["check", state, str(sealed)], ["check", state, str(draft), "--json"],
        ["sign", str(draft), "--key", "german.key", "--state", state],
        ["adjudicate", state, str(sealed), "--key", "soviet.key"],
        ["verify", state], ["audit", state], ["join", state, "--side", "german", "--key", "german.key"],
    ]


def bad_state(cg: Cli, kind: str) -> tuple[str, int, list[str]]:
    """A broken copy of state 0001 (beside the game folder): its path, the exit code and what the
    message must say."""
    p = cg.root / "bad.state.toml"
    data = read(cg.folder / "0001.state.toml")
    if kind == "malformed":
        p.write_text('[pbem]\nformat = 1\nkind = "state\n', encoding="utf-8")
        return str(p), 2, [f"{p}: not valid TOML", "line 3"]
    if kind == "not-utf8":
        p.write_bytes(b'[pbem]\nkind = "\xff\xfe"\n')
        return str(p), 2, [f"{p}: not UTF-8 text"]
    signer = str(data["seal"]["signer"])
    if kind == "schema":  # sealed by its signer as it is: malformed, not changed (a changed file is tampering)
        data["pbem"]["sequence"] = "one"
        data["clock"]["turn"] = "first"
        write(p, seal(unsealed(data), signer, cg.game.keys[signer]))
        return str(p), 2, [f"{p}: 2 schema violation(s)", f"{p}: clock.turn: 'first' is not of type 'integer'",
                           f"{p}: pbem.sequence: 'one' is not of type 'integer'"]
    if kind == "float":
        data["options"]["weight"] = 1.5
        write(p, seal(unsealed(data), signer, cg.game.keys[signer]))
        return str(p), 2, [f"{p}: options.weight: floating-point values are not allowed in signed files"]
    if kind == "missing":
        return str(cg.folder / "nothere.state.toml"), 2, [f"{cg.folder / 'nothere.state.toml'}: "]
    if kind == "folder":
        (cg.root / "adir.toml").mkdir()
        return str(cg.root / "adir.toml"), 2, ["adir.toml"]
    if kind == "tampered":
        data["position"]["units"]["Pz1"]["at"] = "4916N"
        write(p, data)
        return str(p), 3, [f"{p}: the signature does not match the content"]
    if kind == "unsealed":
        del data["seal"]
        write(p, data)
        return str(p), 3, [f"{p}: the state has no seal"]
    if kind == "forged":  # re-sealed with the soviet's key in the german's name
        write(p, seal(unsealed(data), "german", cg.game.keys["soviet"]))
        return str(p), 3, [f"{p}: sealed by key", "but the game expects"]
    if kind == "outsider":
        write(p, seal(unsealed(data), "mallory", KeyPair.from_seed(b"mallory")))
        return str(p), 3, ["'mallory', who is not a party of the game"]
    raise AssertionError(kind)


BAD_STATES = ["malformed", "not-utf8", "schema", "float", "missing", "folder", "tampered", "unsealed", "forged", "outsider"]


@pytest.mark.parametrize("kind", BAD_STATES)
def test_a_bad_state_file_on_every_command(cg: Cli, kind: str) -> None:
    commands = state_readers(cg, "{state}")
    path, code, needles = bad_state(cg, kind)
    for args in ([path if a == "{state}" else a for a in c] for c in commands):
        if kind == "folder" and args[0] == "verify":
            continue  # a folder is a valid argument of verify (tested below)
        r = fails(cg.root, code, args, *needles)
        if "--json" in args:  # the error as JSON on standard output, the paragraph on standard error
            out = json.loads(r.stdout)
            assert out["ok"] is False and out["exit"] == code, r.stdout
            assert r.stderr.startswith("pbem: ") or args[0] == "verify", r.stderr
        else:
            assert r.output.startswith("pbem: "), r.output


def test_verify_json_reports_failures_as_json(cg: Cli) -> None:
    path, _, _ = bad_state(cg, "tampered")
    r = fails(cg.root, 3, ["verify", path, "--json"])
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["exit"] == 3 and "the signature does not match the content" in out["error"]
    path, _, _ = bad_state(cg, "schema")
    out = json.loads(fails(cg.root, 2, ["verify", path, "--json"]).stdout)
    assert sorted(p["where"] for p in out["problems"]) == [f"{path}: clock.turn", f"{path}: pbem.sequence"]


def test_verify_a_folder_with_a_broken_file(cg: Cli) -> None:
    cg.game.play(GERMAN_GT1)
    run(["verify", "game", "--quiet"])
    p = cg.folder / "0002.state.toml"
    data = read(p)
    data["position"]["vp"] = 7
    write(p, data)
    fails(cg.root, 3, ["verify", "game"], "pbem: game/0002.state.toml: the signature does not match the content")
    # validly sealed by its adjudicator, but not what the rules give: verification failure, exit 1
    write(p, seal(unsealed(data), "soviet", cg.game.keys["soviet"]))
    fails(cg.root, 1, ["verify", "game"], "pbem: game/0002.state.toml: does not follow from game/0001.state.toml", "position.vp")


def test_verify_detects_a_fork_and_a_changed_report(cg: Cli) -> None:
    cg.game.play(GERMAN_GT1)
    other = start_game(cg.root / "other")
    other.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')
    (cg.folder / "0002-alt.state.toml").write_bytes((other.folder / "0002.state.toml").read_bytes())
    # the soviet adjudicated both: he signed two states for one step
    needles = ("equivocation: 'soviet' signed two different files for one step, state 0002",
               "game/0002-alt.state.toml: sealed by soviet", "game/0002.state.toml: sealed by soviet", "[equivocation]")
    fails(cg.root, 3, ["verify", "game"], *needles)
    # the proof is the two files: anyone can check it with nothing else
    fails(cg.root, 3, ["verify", "game/0002.state.toml", "game/0002-alt.state.toml"], *needles)
    out = json.loads(fails(cg.root, 3, ["verify", "game", "--json"]).stdout)
    assert out["exit"] == 3 and [p["rule"] for p in out["problems"]] == ["equivocation", "equivocation"]
    (cg.folder / "0002-alt.state.toml").unlink()
    rep = cg.folder / "0002.report.md"
    rep.write_text(rep.read_text(encoding="utf-8") + "\nGerman wins.\n", encoding="utf-8")
    fails(cg.root, 1, ["verify", "game"], "pbem: game/0002.report.md: the report does not match the transition it describes")


def test_verify_without_state_files(cg: Cli) -> None:
    fails(cg.root, 2, ["verify", "nothere"], "nothere: no such file or folder")
    (cg.root / "empty").mkdir()
    fails(cg.root, 2, ["verify", "empty"], "no state files found")


def test_audit_needs_the_previous_state(cg: Cli) -> None:
    (cg.root / "alone").mkdir()
    (cg.root / "alone" / "0001.state.toml").write_bytes((cg.folder / "0001.state.toml").read_bytes())
    fails(cg.root, 2, ["audit", "alone/0001.state.toml"], "alone/0000.state.toml: the previous state is needed")


# --- bad order files ---------------------------------------------------------------------------


def orders_readers(state: str, orders: str) -> list[list[str]]:
    return [
        ["check", state, orders], ["check", state, orders, "--json"],
        ["sign", orders, "--key", "german.key", "--state", state],
        ["adjudicate", state, orders, "--key", "soviet.key"],
    ]


def test_malformed_order_file(cg: Cli) -> None:
    p = cg.folder / "0001-german.orders.toml"
    p.write_text('[pbem]\nformat = 1\n[[attack]]\ntarget = \n', encoding="utf-8")
    for args in orders_readers(cg.state, str(p)):
        fails(cg.root, 2, args, f"{p}: not valid TOML", "line 4")


def test_an_order_file_that_is_not_toml_at_all(cg: Cli) -> None:
    p = cg.folder / "0001-german.orders.toml"
    p.write_bytes(bytes(range(256)))
    for args in orders_readers(cg.state, str(p)):
        fails(cg.root, 2, args, f"{p}: not UTF-8 text")


def test_missing_order_file(cg: Cli) -> None:
    for args in orders_readers(cg.state, "game/nothere.orders.toml"):
        fails(cg.root, 2, args, "game/nothere.orders.toml: cannot read the file")


def test_schema_violations_are_all_listed_with_their_paths(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    data = read(p)
    data["pbem"]["format"] = 3
    data["attack"][0]["target"] = 4916
    data["attack"][0]["units"] = "Pz1"
    data["colour"] = "red"
    write(p, data)
    for args in orders_readers(cg.state, str(p)):
        # the envelope against the shared schema, the orders against the game's own: all listed at once
        r = fails(cg.root, 2, args, f"{p}: 4 schema violation(s) (orders.schema.json, proud-monster/orders-body.schema.json)",
                  f"{p}: attack[0].target: 4916 is not of type 'string'",
                  f"{p}: attack[0].units: 'Pz1' is not of type 'array'",
                  f"{p}: pbem.format: 2 was expected",
                  f"{p}: (top level): Additional properties are not allowed ('colour' was unexpected)")
        assert r.output.count("[schema orders]") == 1 and r.output.count("[schema proud-monster/orders-body]") == 3


def test_floats_are_refused_in_order_files(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    p.write_text(p.read_text(encoding="utf-8").replace("dice_index = 0", "dice_index = 0.0"), encoding="utf-8")
    for args in orders_readers(cg.state, str(p)):
        fails(cg.root, 2, args, f"{p}: pbem.dice_index: floating-point values are not allowed")


def test_an_oversized_file_is_refused(cg: Cli) -> None:
    p = cg.folder / "0001-german.orders.toml"
    p.write_text("# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    fails(cg.root, 2, ["check", cg.state, p], f"{p}: ", f"larger than the {MAX_FILE_BYTES} bytes")


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (('side = "german"', 'side = "soviet"'), "pbem.side: 'soviet' is not awaited; the step awaits german [5.1]"),
        (('step = "GT1/1/german"', 'step = "GT1/2/german"'), "pbem.step: 'GT1/2/german' is not the awaited step 'GT1/1/german' [5.1]"),
        (('kind = "orders"', 'kind = "reply"'), "pbem.kind: the game awaits orders, this file is reply [5.1]"),
    ],
)
def test_wrong_side_step_or_kind_is_illegal(cg: Cli, change: tuple[str, str], needle: str) -> None:
    st = cg.game.state()
    from pbem.demo import order_text

    text = order_text(st.data, "german", ATTACK).replace(*change)
    draft = cg.folder / "draft.orders.toml"
    draft.write_text(text, encoding="utf-8")
    fails(cg.root, 1, ["check", cg.state, draft], needle, "not the awaited submission")
    fails(cg.root, 1, ["sign", draft, "--key", "german.key", "--state", cg.state], needle)
    fails(cg.root, 1, ["sign", draft, "--key", "german.key"], needle)  # the state is found in the file's folder
    # sealed by the side it names (without `pbem sign`, which checks first), it is still not awaited
    side = "soviet" if "soviet" in change[1] else "german"
    sign_unchecked(cg, draft, side)
    fails(cg.root, 1, ["check", cg.state, draft], needle)
    fails(cg.root, 1, ["adjudicate", cg.state, draft, "--key", "soviet.key"], needle)


def sign_unchecked(cg: Cli, p: Path, side: str) -> None:
    """Seal ``p`` with ``side``'s key and secret as `pbem sign` would, without checking it first."""
    from pbem.exchange.game import load_doc, sign_orders

    p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, cg.game.keys[side], cg.game.state()),
                 encoding="utf-8")


def test_forged_seal_on_orders(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    fails(cg.root, 2, ["sign", p, "--key", "soviet.key"], "is not german's key in this game")
    # the soviet seals it in the german's name all the same
    body = {**read(p), "dice": {"reveal": cg.game.secret("german", 0), "commit": proto.commitment(cg.game.secret("german", 1))}}
    write(p, seal(body, "german", cg.game.keys["soviet"]))
    for args in orders_readers(cg.state, str(p)):
        fails(cg.root, 3, args, f"{p}: sealed by key", "but the game expects", "signer 'german'")


def test_a_changed_sealed_order_file(cg: Cli) -> None:
    """A sealed order file changed afterwards is tampering for every reader; its author's key (and
    only his) seals it again, its comments kept."""
    p = cg.game.write_orders(ATTACK)
    p.write_text(p.read_text(encoding="utf-8").replace('advance = ["Pz1"]', 'advance = ["Inf1"]  # changed'), encoding="utf-8")
    for args in orders_readers(cg.state, str(p)):
        if args[0] != "sign":
            fails(cg.root, 3, args, f"{p}: the signature does not match the content")
    fails(cg.root, 3, ["check", cg.state, str(p)], "If it is your own file, `pbem sign` with your key seals it again.")
    fails(cg.root, 3, ["sign", str(p), "--key", "soviet.key", "--state", cg.state], f"{p}: the signature does not match the content")
    r = run(["sign", str(p), "--key", "german.key", "--state", cg.state])
    assert r.output.startswith(f"sealed {p} again: it was changed after its seal (its comments are kept)"), r.output
    text = p.read_text(encoding="utf-8")
    assert 'advance = ["Inf1"]  # changed' in text and text.count("[seal]") == 1 and text.count("[dice]") == 1
    assert run(["check", cg.state, str(p)]).output == f"{p}: legal for step GT1/1/german\n"


def test_unsealed_orders_cannot_be_adjudicated(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    fails(cg.root, 3, ["adjudicate", cg.state, p, "--key", "soviet.key"], f"{p}: the file is not sealed", "pbem sign")


def test_a_seal_without_dice_is_tampering(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    write(p, seal(read(p), "german", cg.game.keys["german"]))
    fails(cg.root, 3, ["adjudicate", cg.state, p, "--key", "soviet.key"], f"{p}: no [dice] commitment")


def test_a_reused_order_file(cg: Cli) -> None:
    old = cg.game.write_orders(GERMAN_GT1)
    cg.game.adjudicate(old)
    cg.game.play(SOVIET_STANDING)  # state 0003: the german is to move again
    st = "game/0003.state.toml"
    fails(cg.root, 3, ["check", st, old], f"{old}: answers state", "out of date or replayed")
    fails(cg.root, 3, ["adjudicate", st, old, "--key", "soviet.key"], f"{old}: answers state")
    fails(cg.root, 3, ["sign", old, "--force", "--key", "german.key", "--state", st], f"{old}: answers state")
    # copied under the name the new orders would have: still refused
    new = cg.folder / "0003-german.orders.toml"
    new.write_bytes(old.read_bytes())
    fails(cg.root, 3, ["adjudicate", st, new, "--key", "soviet.key"], f"{new}: answers state")


def test_orders_for_another_game(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    p.write_text(p.read_text(encoding="utf-8").replace('game = "pm-test"', 'game = "pm-else"'), encoding="utf-8")
    fails(cg.root, 3, ["check", cg.state, p], f"{p}: belongs to game 'pm-else', not 'pm-test'")


def test_adjudicate_with_the_wrong_key(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "german.key"],
          "This step is adjudicated by 'soviet'", "is not soviet's key in this game")
    write_key_files(KeyPair.from_seed(b"mallory"), cg.root / "mallory")
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "mallory.key"], "is not soviet's key in this game")
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "nothere.key"], "nothere.key: cannot read the key file")
    (cg.root / "junk.key").write_text("not a key\n", encoding="ascii")
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "junk.key"], "junk.key: not a readable private key")


def test_a_passphrase_protected_key_through_the_cli(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)
    os.rename(cg.root / "soviet.key", cg.root / "plain-soviet.key")
    os.rename(cg.root / "soviet.pub", cg.root / "plain-soviet.pub")
    write_key_files(cg.game.keys["soviet"], cg.root / "soviet", b"s3cret")
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "soviet.key"], "soviet.key: the key is protected by a passphrase",
          "PBEM_PASSPHRASE")
    before = snapshot(cg.root)
    r = CliRunner().invoke(cli, ["adjudicate", cg.state, str(p), "--key", "soviet.key"], env={"PBEM_PASSPHRASE": "wrong"})
    assert r.exit_code == 2 and "wrong passphrase" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["adjudicate", cg.state, str(p), "--key", "soviet.key", "--passphrase"], input="wrong\n")
    assert r.exit_code == 2 and "wrong passphrase" in r.output
    assert snapshot(cg.root) == before
    run(["adjudicate", cg.state, p, "--key", "soviet.key", "--passphrase"], input="s3cret\n")
    assert (cg.folder / "0002.state.toml").exists()


def test_keygen_with_a_passphrase_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fails(tmp_path, 2, ["keygen", "carol", "--passphrase-env", "PBEM_TEST_UNSET"], "$PBEM_TEST_UNSET is not set")
    run(["keygen", "carol", "--passphrase-env", "PBEM_TEST_PW"], env={"PBEM_TEST_PW": "pw"})
    assert (tmp_path / "carol.key").read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    run(["keygen", "dave", "--passphrase"], input="pw\npw\n")
    assert (tmp_path / "dave.key").read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")


def test_illegal_orders_list_every_problem_with_its_rule(cg: Cli) -> None:
    body = '\n[[move]]\nunits = ["Pz1"]\npath = ["4916N"]\n\n[[move]]\nunits = ["XX"]\npath = ["4916N"]\n'
    p = cg.game.write_orders(body, sign=False)
    needles = ("move[0].path[0] 4816N->4916N: 4916N holds enemy units [12.4]", "move[1]: unknown unit 'XX' [")
    r = fails(cg.root, 1, ["check", cg.state, p], f"{p}: 2 problems:", *needles)
    assert r.output.count("  - ") == 2
    assert re.search(r"move\[1\]: unknown unit 'XX' \[\d+(\.\d+)+\]", r.output), r.output
    # one numbering explained: the TOML path counts from 0, the report from 1 (docs/files.md, Numbering)
    assert "(Places count from 0 as in TOML: move[0] is [[move]] number 1 in the file, which a report calls Move 1.)" in r.output
    out = json.loads(fails(cg.root, 1, ["check", cg.state, p, "--json"]).stdout)
    assert out["ok"] is False and [x["where"] for x in out["problems"]] == ["move[0].path[0] 4816N->4916N", "move[1]"]
    assert out["problems"][0]["rule"] == "12.4" and re.fullmatch(r"\d+(\.\d+)+", out["problems"][1]["rule"])
    fails(cg.root, 1, ["sign", p, "--key", "german.key", "--state", cg.state], f"{p}: not signed: 2 problems", *needles)
    fails(cg.root, 1, ["sign", p, "--key", "german.key"], f"{p}: not signed: 2 problems", *needles)
    sign_unchecked(cg, p, "german")  # sealed without `pbem sign`, which checks first
    fails(cg.root, 1, ["adjudicate", cg.state, p, "--key", "soviet.key"], "2 problem(s) in the orders; nothing was adjudicated",
          *needles)


def test_a_bad_standing_instruction_is_illegal(cg: Cli) -> None:
    p = cg.game.write_orders('\n[standing]\nloss_policy = "never"\nloss_order = ["Nobody"]\noverstack_removal = ["Ghost"]\n',
                             sign=False)
    fails(cg.root, 1, ["check", cg.state, p], "standing.loss_policy: 'never' is not one of", "[14.35]",
          "standing.loss_order: unknown unit 'Nobody' [14.35]", "standing.overstack_removal: unknown unit 'Ghost' [6.2]")


def test_adjudicate_needs_one_file_from_each_awaited_party(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)
    fails(cg.root, 1, ["adjudicate", cg.state, p, p, "--key", "soviet.key"], "not awaited or twice: german")
    s0 = "game/0000.state.toml"
    fails(cg.root, 1, ["adjudicate", s0, "game/0000-german.join.toml", "--key", "german.key"], "missing: soviet")


def test_join_errors(cg: Cli) -> None:
    fails(cg.root, 1, ["join", cg.state, "--side", "german", "--key", "german.key"], "the game does not await joins")
    s0 = "game/0000.state.toml"
    # joined already with this key: nothing to do (a run interrupted after it wrote completes so)
    assert run(["join", s0, "--side", "german", "--key", "german.key"]).output == (
        "game/0000-german.join.toml: already joined with this key; nothing to do\n")
    (cg.root / "other.toml").write_text("mine\n", encoding="utf-8")
    fails(cg.root, 2, ["join", s0, "--side", "german", "--key", "german.key", "-o", "other.toml"], "other.toml: already exists")
    fails(cg.root, 2, ["join", s0, "--side", "german", "--key", "soviet.key"], "is not german's key in this game")
    fails(cg.root, 2, ["join", s0, "--side", "martian", "--key", "german.key"], "'martian' is not a party of this game")
    fails(cg.root, 2, ["join", s0, "--side", "german", "--key", "german.key", "-o", "nodir/j.toml"], "nodir: the output folder does not exist")
    run(["join", s0, "--side", "german", "--key", "german.key", "-o", "j.toml"])


# --- outputs that cannot be written --------------------------------------------------------------


def test_adjudicate_never_overwrites_and_writes_nothing_on_failure(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)
    (cg.root / "taken.toml").write_text("mine\n", encoding="utf-8")
    (cg.root / "taken.md").write_text("mine\n", encoding="utf-8")
    (cg.root / "afile").write_text("x", encoding="utf-8")
    adj = ["adjudicate", cg.state, p, "--key", "soviet.key"]
    fails(cg.root, 2, [*adj, "-o", "taken.toml"], "taken.toml: already exists")
    fails(cg.root, 2, [*adj, "-o", "next.toml", "--report", "taken.md"], "taken.md: already exists")
    fails(cg.root, 2, [*adj, "-o", "nodir/next.toml"], "nodir: the output folder does not exist")
    fails(cg.root, 2, [*adj, "-o", "afile/next.toml"], "afile: the output folder does not exist")
    fails(cg.root, 2, [*adj, "-o", "next.toml", "--report", "nodir/r.md"], "nodir: the output folder does not exist")
    run(adj)
    assert (cg.folder / "0002.state.toml").exists() and (cg.folder / "0002.report.md").exists()
    # run again: the same files, already there with exactly these bytes, count as written
    before = snapshot(cg.root)
    r = run(adj)
    assert r.output.startswith("game/0002.state.toml: this adjudication is made already: the state exists, and so do its "
                               "other files, with exactly the bytes these inputs give (the same inputs always give the same "
                               "bytes); nothing was written\n")
    assert snapshot(cg.root) == before
    (cg.folder / "0002.report.md").write_text("mine\n", encoding="utf-8")  # a different file is still refused
    fails(cg.root, 2, adj, "game/0002.report.md: already exists, with other content")


def test_template_sign_keygen_and_new_never_overwrite(cg: Cli) -> None:
    (cg.root / "taken.toml").write_text("mine\n", encoding="utf-8")
    fails(cg.root, 2, ["template", cg.state, "--side", "german", "-o", "taken.toml"], "taken.toml: already exists")
    fails(cg.root, 2, ["template", cg.state, "--side", "german", "-o", "nodir/t.toml"], "nodir: the output folder does not exist")
    fails(cg.root, 2, ["template", cg.state, "--side", "soviet"], "does not await anything from 'soviet'")
    fails(cg.root, 2, ["template", "game/0000.state.toml", "--side", "german"], "the game awaits joins: use `pbem join`")
    p = cg.game.write_orders(ATTACK, sign=False)
    fails(cg.root, 2, ["sign", p, "--key", "german.key", "-o", "taken.toml"], "taken.toml: already exists")
    fails(cg.root, 2, ["sign", p, "--key", "german.key", "-o", "nodir/s.toml"], "nodir: the output folder does not exist")
    fails(cg.root, 2, ["sign", p, "--key", "soviet.key", "--state", cg.state], "is not german's key in this game")
    run(["sign", p, "--key", "german.key"])
    before = snapshot(cg.root)
    assert run(["sign", p, "--key", "german.key"]).output == f"{p}: already sealed with this key; nothing to do\n"
    assert snapshot(cg.root) == before
    fails(cg.root, 2, ["sign", p, "--key", "soviet.key"], "is not german's key in this game")
    fails(cg.root, 2, ["keygen", "german"], "german.key: already exists; pbem never overwrites a key")
    fails(cg.root, 2, ["keygen", "nodir/k"], "cannot write the key files")
    new = ["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key"]
    fails(cg.root, 2, [*new, "-o", "game"], "game: the folder exists and is not empty")
    fails(cg.root, 2, [*new, "-o", "taken.toml/g"], "taken.toml/g: cannot create the folder")
    run([*new, "-o", "g2", "--game-id", "pm-2"])
    assert sorted(os.listdir(cg.root / "g2")) == ["0000.state.toml"]


def test_new_with_bad_arguments(cg: Cli) -> None:
    base = ["new", EXCHANGE_SCENARIO, "--key", "german.key", "-o", "g2"]
    fails(cg.root, 2, [*base, "--side", "german=german.pub"], "needs --side for each of: german, soviet")
    fails(cg.root, 2, [*base, "--side", "german=german.pub", "--side", "soviet=nothere.pub"], "nothere.pub: neither a public key")
    (cg.root / "bad.pub").write_text("ed25519:AAAA\n", encoding="ascii")
    fails(cg.root, 2, [*base, "--side", "german=german.pub", "--side", "soviet=bad.pub"], "bad.pub: not an Ed25519 public key")
    fails(cg.root, 2, [*base, "--side", "german", "--side", "soviet=soviet.pub"], "--side german: write SIDE=PUBKEY")
    fails(cg.root, 2, [*base, "--side", "german=soviet.pub", "--side", "soviet=soviet.pub"], "--key is not the key of any party")
    fails(cg.root, 2, ["new", "nowhere.toml", "--key", "german.key", "-o", "g2", "--side", "german=german.pub", "--side", "soviet=soviet.pub"],
          "no game has a scenario 'nowhere.toml'", "pbem games")
    fails(cg.root, 2, ["new", "nowhere.toml", "--game", "proud-monster", "--key", "german.key", "-o", "g2", "--side", "german=german.pub",
                       "--side", "soviet=soviet.pub"], "no Proud Monster scenario 'nowhere.toml'")
    fails(cg.root, 2, [*base, "--game", "chess", "--side", "german=german.pub", "--side", "soviet=soviet.pub"], "unknown game 'chess'")
    assert not (cg.root / "g2").exists()


def test_show_status_rules_and_module_errors(cg: Cli) -> None:
    fails(cg.root, 2, ["show", cg.state, "--svg", "nowhere/x.svg"], "nowhere: the output folder does not exist")
    fails(cg.root, 2, ["show", cg.state, "--side", "martian"], "'martian' is not a side of this game")
    fails(cg.root, 2, ["rules", "chess"], "unknown game 'chess'")
    fails(cg.root, 2, ["rules", "chess", "--json"], "unknown game 'chess'")
    fails(cg.root, 2, ["module", "check", "chess"], "unknown game 'chess'")
    fails(cg.root, 2, ["status"], "Missing argument 'STATE'")
    fails(cg.root, 2, ["frobnicate"], "No such command 'frobnicate'")


# --- --debug -----------------------------------------------------------------------------------


def test_debug_shows_the_traceback(cg: Cli) -> None:
    path, _, _ = bad_state(cg, "malformed")
    r = CliRunner().invoke(cli, ["--debug", "status", path])
    assert isinstance(r.exception, MalformedFileError)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plain = subprocess.run([sys.executable, "-m", "pbem", "status", path], capture_output=True, text=True, env=env, check=False)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr and plain.stderr.startswith(f"pbem: {path}: not valid TOML")
    debug = subprocess.run([sys.executable, "-m", "pbem", "--debug", "status", path], capture_output=True, text=True, env=env, check=False)
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr
    assert "pbem.errors.MalformedFileError" in debug.stderr


@pytest.mark.parametrize("key", ["nothere.key", "junk.key", "german.pub", "game"])
def test_a_bad_key_file_on_every_command_that_reads_one(cg: Cli, key: str) -> None:
    (cg.root / "junk.key").write_text("-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n", encoding="ascii")
    draft = cg.game.write_orders(ATTACK, sign=False, name="../draft.orders.toml")
    sealed = cg.game.write_orders(ATTACK)
    needle = f"{key}: cannot read the key file" if key in ("nothere.key", "game") else f"{key}: not a readable private key"
    for args in (
        ["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", key, "-o", "g2"],
        ["join", "game/0000.state.toml", "--side", "german", "--key", key, "-o", "j.toml"],
        ["sign", draft, "--key", key], ["sign", draft, "--key", key, "--state", cg.state],
        ["adjudicate", cg.state, sealed, "--key", key],
    ):
        fails(cg.root, 2, args, needle)


def test_an_unwritable_folder(cg: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing fails (as in a read-only folder): a clear error, exit 2, nothing written or changed."""
    from pbem.exchange import files

    draft = cg.game.write_orders(ATTACK, sign=False)
    sealed = cg.game.write_orders(ATTACK, name="sealed.orders.toml")

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "_point", denied)  # before every operation of the write path
    fails(cg.root, 2, ["adjudicate", cg.state, sealed, "--key", "soviet.key"], "game: cannot write there (Permission denied)")
    fails(cg.root, 2, ["template", cg.state, "--side", "german", "-o", "game/t.toml"], "game: cannot write there")
    fails(cg.root, 2, ["join", "game/0000.state.toml", "--side", "german", "--key", "german.key", "-o", "j.toml"], "cannot write there")
    fails(cg.root, 2, ["sign", draft, "--key", "german.key", "-o", "game/s.toml"], "cannot write there")
    fails(cg.root, 2, ["sign", draft, "--key", "german.key"], f"{draft}: cannot write the sealed file (Permission denied)")


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--option", "nonsense=1"], ["unknown option(s): nonsense"]),
        (["--option", "ruleset=weird"], ["invalid option value(s)", "option ruleset: 'weird' is not one of 'basic', 'full' [A.4]"]),
        (["--option", "mixed_water_shift=2L"], ["option mixed_water_shift: '2L' is not one of '1L', 'none' [14.19/14.20]"]),
        (["--option", "ruleset"], ["--option ruleset: write NAME=VALUE"]),
        (["--game-id", "x" * 81], ["new game: pbem.game: '" + "x" * 81 + "' does not match"]),
        (["--game-id", "game\x1b[2J"], ["new game: pbem.game: ", "does not match", "at most 80 letters, digits"]),
        (["--game-id", "ｇａｍｅ１"], ["new game: pbem.game: ", "does not match"]),
    ],
)
def test_new_never_writes_a_state_it_could_not_read_back(cg: Cli, extra: list[str], needles: list[str]) -> None:
    new = ["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key", "-o", "g2"]
    fails(cg.root, 2, [*new, *extra], *needles)
    assert not (cg.root / "g2").exists()


def test_a_long_game_id_up_to_the_limit_works(cg: Cli) -> None:
    gid = "pm-" + "x" * 77
    run(["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key",
         "-o", "g2", "--game-id", gid])
    assert json.loads(run(["status", "g2/0000.state.toml", "--json"]).output)["game"] == gid


def test_games_lists_every_game_with_its_sides_and_scenarios(cg: Cli) -> None:
    out = json.loads(run(["games", "--json"]).output)["games"]
    pm = next(g for g in out if g["game"] == "proud-monster")
    assert pm["sides"] == ["german", "soviet"] and {"training", "campaign", "campaign-setup"} <= set(pm["scenarios"])
    assert run(["games"]).output.startswith("proud-monster: Proud Monster: The Barbarossa Campaign; sides german, soviet; scenarios ")


def test_new_finds_the_game_of_its_scenario(cg: Cli) -> None:
    """Without --game, the one game that has the scenario (a bundled name, or a file naming its game)."""
    run(["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key", "-o", "g3"])
    st = load_state(cg.root / "g3" / "0000.state.toml")
    assert st.data["pbem"]["module"] == "proud-monster" and st.data["pbem"]["game"].startswith("pm-")
    s = json.loads(run(["status", cg.state, "--json"]).output)
    assert s["module"] == "proud-monster" and s["summary"] == {"vp": 0} and "vp" not in s
