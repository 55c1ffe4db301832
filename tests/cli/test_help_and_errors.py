"""What a player meets when something is wrong or when he asks: errors that name the file, the key
and what the game expects; `status` on a game folder; an author sealing his changed file again;
a finished adjudication run again; counts in the singular; the help's order, texts and scenarios;
shell completion of scenarios, sides and files."""

from __future__ import annotations

import click
import pytest
from click.shell_completion import ShellComplete

from pbem.cli import ORDER, cli
from pbem.engine.registry import modules
from pbem.exchange.game import load_state
from tests.cli.test_cli import ATTACK, Cli
from tests.clihelpers import fails, run, snapshot
from tests.conftest import start_cli_game


@pytest.fixture
def cg(tmp_path, monkeypatch) -> Cli:  # type: ignore[no-untyped-def]
    return Cli(tmp_path, start_cli_game(tmp_path, monkeypatch))


def where(cg: Cli, unit: str) -> str:
    return str(load_state(cg.folder / "0001.state.toml").data["position"]["units"][unit]["at"])


def test_a_wrong_key_names_the_key_file_its_id_and_the_key_the_game_expects(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK, sign=False)
    german = cg.game.keys["german"].key_id
    soviet = cg.game.keys["soviet"].key_id
    for args in (["sign", p, "--key", "soviet.key"], ["sign", p, "--key", "soviet.key", "--state", cg.state]):
        fails(cg.root, 2, args, f"--key soviet.key (key id {soviet}) is not german's key in this game: ",
              f"0001.state.toml expects german's key id {german}")
    fails(cg.root, 2, ["adjudicate", cg.state, p, "--key", "german.key"],
          f"--key german.key (key id {german}) is not soviet's key in this game", f"expects soviet's key id {soviet}",
          "This step is adjudicated by 'soviet'")


def test_sign_without_state_checks_the_key_of_a_sealed_file_against_the_state_beside_it(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)  # sealed by the German
    fails(cg.root, 2, ["sign", p, "--key", "soviet.key"], "is not german's key in this game", "expects german's key id")


def test_an_edited_sealed_file_is_sealed_again_by_its_author_with_its_comments(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK)
    text = p.read_text(encoding="utf-8").replace('losses = ["Inf1"]', '# my note\nlosses = ["Pz1"]  # the panzer takes it')
    p.write_text(text, encoding="utf-8")
    fails(cg.root, 3, ["sign", p, "--key", "soviet.key"], "the signature does not match the content")
    r = run(["sign", p, "--key", "german.key"])
    assert "again: it was changed after its seal" in r.output and "equivocation" in r.output
    out = p.read_text(encoding="utf-8")
    assert "# my note" in out and "# the panzer takes it" in out and out.count("[seal]") == 1
    assert "legal for step" in run(["check", cg.state, p]).output
    # --force on an intact sealed file keeps the comments too
    run(["sign", p, "--key", "german.key", "--force"])
    assert "# my note" in p.read_text(encoding="utf-8")


def test_status_and_show_take_the_game_folder(cg: Cli) -> None:
    assert run(["status", "game"]).output == run(["status", cg.state]).output
    assert run(["show", "game"]).output == run(["show", cg.state]).output
    (cg.root / "empty").mkdir()
    fails(cg.root, 2, ["status", "empty"], "empty: a folder with no state file")


def test_the_order_problems_name_the_units_and_the_own_hex(cg: Cli) -> None:
    h = where(cg, "Inf1")
    p = cg.game.write_orders(f'[[move]]\nunits = ["Inf1", "Inf1"]\npath = ["{h}"]\n', sign=False)
    fails(cg.root, 1, ["check", cg.state, p], "a unit is listed twice: Inf1")
    p.unlink()
    p = cg.game.write_orders('[[move]]\nunits = ["Inf1"]\npath = ["9999N"]\n', sign=False)
    fails(cg.root, 1, ["check", cg.state, p], f"{p}: 1 problem:", "'9999N' (the move of Inf1) is not a hex of the map of",
          "A hex id is four digits")
    p.unlink()
    p = cg.game.write_orders(f'[[attack]]\ntarget = "{h}"\nunits = ["Inf1"]\n', sign=False)
    r = fails(cg.root, 1, ["check", cg.state, p], f"{h} holds your own units (", "no enemy unit to attack")
    assert "is not adjacent" not in r.output


def test_an_adjudication_run_again_says_it_is_made(cg: Cli) -> None:
    p = cg.game.write_orders(ATTACK + '\n[standing]\nloss_policy = "fewest-steps-first"\n')
    run(["adjudicate", cg.state, p, "--key", "soviet.key"])
    before = snapshot(cg.root)
    out = run(["adjudicate", cg.state, p, "--key", "soviet.key"]).output
    assert "game/0002.state.toml: this adjudication is made already" in out and "the same inputs always give the same bytes" in out
    assert snapshot(cg.root) == before
    out = run(["verify", "game"]).output
    assert "2 transitions replayed, 2 reports and 1 picture match" in out


def test_the_help_lists_the_commands_in_the_order_of_a_game_whole() -> None:
    out = run(["--help"]).output
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line.startswith("  ") and
              not line.startswith("    ")]
    assert listed[:len(ORDER)] == [n for n in ORDER if n in listed]
    assert listed[:12] == ["keygen", "new", "join", "template", "check", "sign", "adjudicate", "agree", "status", "show", "hidden", "verify"]
    assert "..." not in out.split("Commands:\n", 1)[1]


def _commands(cmd: click.Command, path: list[str]) -> list[tuple[list[str], click.Command]]:
    out = [(path, cmd)]
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            out += _commands(sub, [*path, name])
    return out


def test_every_option_has_a_help_text() -> None:
    for path, cmd in _commands(cli, []):
        for prm in cmd.params:
            if isinstance(prm, click.Option) and prm.name != "help":
                assert prm.help, f"pbem {' '.join(path)} {'/'.join(prm.opts)}: no help text"


def test_new_and_demo_list_the_scenarios_and_adjudicate_the_picture() -> None:
    for command in ("new", "demo"):
        out = run([command, "--help"]).output
        for m in modules():
            assert m.name in out and all(s in out for s in m.scenarios())
    assert "picture of the turn" in run(["adjudicate", "--help"]).output


def complete(args: list[str], incomplete: str) -> list[str]:
    comp = ShellComplete(cli, {}, "pbem", "_PBEM_COMPLETE")
    return [c.value for c in comp.get_completions(args, incomplete)]


def test_completion_of_scenarios_games_sides_and_files(cg: Cli) -> None:
    assert "crossroads" in complete(["new"], "cross")
    assert complete(["demo", "--game", "skirmish", "--scenario"], "") == ["crossroads"]
    assert "skirmish" in complete(["rules"], "sk")
    assert complete(["template", cg.state, "--side"], "") == ["german", "soviet"]
    assert complete(["new", "crossroads", "--side"], "") == ["red=", "blue=", "green="]
    assert "game/0001.state.toml" in complete(["status"], "game/")
    assert complete(["sign", "x", "--key"], "sov") == ["soviet.key"]
