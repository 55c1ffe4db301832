"""``pbem demo``: play a bundled scenario in a game folder, as two players would.

Keys are generated (from fixed seeds, so the demo is the same on every machine), the game is
created and joined, and each awaited step is answered with the game's example files for its demo
scenario (GameModule.demo_example) or, for any other scenario (or with ``auto``), with the files
its built-in player writes (GameModule.demo_orders): checked, signed, adjudicated by the
adjudicator of the step, reported. The folder is verified at the end. Everything of the game comes
from its module (the demo hooks of pbem.games.base.GameModule); this runner names no game.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.engine.registry import find_module, names, sides_of
from pbem.errors import IllegalOrdersError, UsageError
from pbem.exchange import names as folder_names  # (names: the registry's game names)
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, parse_toml, read_toml, write_all_new, write_new
from pbem.exchange.game import (
    adjudicate,
    check_orders,
    load_doc,
    load_state,
    make_join,
    new_game,
    order_header,
    sign_orders,
)
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.resources import examples_dir

if TYPE_CHECKING:
    from pbem.games.base import GameModule


def demo_salt(side: str) -> str:
    """The demo's salt for a side's secret chain: fixed, so that the demo is reproducible byte for
    byte (a real `pbem join` draws a fresh random salt: docs/protocol.md, Dice)."""
    return hashlib.sha256(f"pbem demo salt {side}".encode()).hexdigest()[:32]


def demo_module(game: str | None = None) -> GameModule:
    """The game the demo plays: ``game``, or the first the registry lists (`pbem games`)."""
    if game is None:
        known = names()
        if not known:
            raise UsageError("no game is installed", hint="`pbem games` lists the games pbem adjudicates.")
        game = known[0]
    return find_module(game)


def order_text(state: dict[str, Any], side: str, body: str) -> str:
    head = order_header(state, side)
    if _bare_keys_first(body):  # keys before the body's first table belong at the top, not in [pbem]
        return body.rstrip("\n") + "\n\n" + "\n".join(head)
    return "\n".join(head) + body


def _bare_keys_first(body: str) -> bool:
    """Whether the body's first line of data is a key = value, not a table header."""
    for line in body.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            return not s.startswith("[")
    return False


def _shown(path: Path) -> str:
    """An example file as the demo names it: its path under the bundled examples folder."""
    try:
        return "examples/" + path.relative_to(examples_dir()).as_posix()
    except ValueError:
        return str(path)


def run_demo(out: Path | None, turns: int, echo: Callable[[str], None], options: dict[str, Any] | None = None,
             scenario: str | None = None, auto: bool = False, game: str | None = None, full: bool = False) -> Path:
    """Play ``scenario`` of ``game`` (default: the first game, its demo scenario) for ``turns`` game
    turns into ``out`` (default: a new temporary folder), echoing each command as a player would
    type it; ``options``: the game's options (with ``full``, those of its full rules too). Returns
    the folder."""
    module = demo_module(game)
    demo_scenario = module.demo_scenario()
    scenario = scenario or demo_scenario
    if scenario not in module.scenarios():
        raise UsageError(f"no bundled {module.short_title} scenario '{scenario}'", hint=f"Bundled: {', '.join(module.scenarios())}.")
    if out is None:
        folder = Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    else:
        if out.exists() and any(out.iterdir()):
            raise UsageError(f"{out}: the folder exists and is not empty", hint="Give a new folder, or none for a temporary one.")
        out.mkdir(parents=True, exist_ok=True)
        folder = out
    game_dir = folder / "game"
    game_dir.mkdir()
    auto = auto or scenario != demo_scenario  # only the demo scenario has a complete set of example orders
    game_id = f"{module.id_prefix}-demo-{scenario}" + ("-auto" if auto else "")
    echo(f"pbem demo: {module.short_title}, {scenario} scenario, {turns} game turn{'' if turns == 1 else 's'}, in {folder}"
         + (" (orders proposed by the built-in player)" if auto else ""))
    game_options = {**module.demo_options(full), **(options or {})}
    sides = sides_of(module, game_options, scenario)  # the parties may depend on the options (a game of three players)
    creator = sides[0]
    keys: dict[str, KeyPair] = {}
    for side in sides:
        keys[side] = KeyPair.from_seed(f"pbem demo {side}".encode())
        write_key_files(keys[side], folder / side)
        echo(f"$ pbem keygen {side}            -> {side}.key, {side}.pub (key id {keys[side].key_id})")
    state = new_game(module.name, scenario, {s: keys[s].public_text for s in sides}, None, keys[creator], game_id,
                     game_options)
    path = game_dir / folder_names.state(0)
    write_new(path, dumps(state))
    shown = "".join(f" --option {k}={v}" for k, v in sorted((options or {}).items()))
    echo(f"$ pbem new {scenario}{shown} {' '.join(f'--side {s}={s}.pub' for s in sides)} --key {creator}.key --game-id {game_id} -o game")
    st = load_state(path)
    joins = []
    for side in sides:
        ex = None if auto else module.demo_example(scenario, "join", side)
        standing = module.demo_standing(side) if auto else read_toml(ex).get("standing") if ex else None
        jp = game_dir / folder_names.submission(0, side, "join")
        write_new(jp, dumps(make_join(st, side, keys[side], standing, salt=demo_salt(side))))
        joins.append(jp)
        echo(f"$ pbem join game/{folder_names.state(0)} --side {side} --key {side}.key")
    st = _adjudicate(module, game_dir, st, joins, keys, echo)
    while st.data["awaits"]["kind"] != "none" and module.demo_turn(st.data) <= turns:
        aw = st.data["awaits"]
        seq = int(st.data["pbem"]["sequence"])
        files = []
        for side in aw["from"]:  # one file from each side the step awaits
            ex = module.demo_example(scenario, aw["step"], side)
            op = game_dir / folder_names.submission(seq, side, aw["kind"] if aw["kind"] in ("reply", "reveal") else "orders")
            if auto:
                # a scenario's example file, if any, adds the decisions of that step to the built-in
                # player's proposal (a long game's scripted measures)
                extra = read_toml(ex) if ex and scenario != demo_scenario else None
                body = module.demo_orders(st.data, side, extra)
                source = "proposed by the built-in player" + (f", with {_shown(ex)}" if ex and extra else "")
            elif ex:
                body = ex.read_text(encoding="utf-8")
                source = f"filled in from {_shown(ex)}"
            elif aw["kind"] == "reply":
                body, source = module.demo_reply(st.data, side)
            else:
                body, source = module.demo_unscripted(st.data, side)
            echo(f"$ pbem template game/{folder_names.state(seq)} --side {side}   ({source})")
            body = _legal_body(module, st, op, side, body, echo)
            write_new(op, order_text(st.data, side, body))
            echo(f"$ pbem check game/{folder_names.state(seq)} {op.name}      -> legal")
            doc = load_doc(op, "orders")
            text = sign_orders(op, op.read_text(encoding="utf-8"), doc.data, keys[side], st)
            parse_toml(text.encode("utf-8"), str(op))
            op.write_text(text, encoding="utf-8")
            echo(f"$ pbem sign {op.name} --key {side}.key")
            files.append(op)
        st = _adjudicate(module, game_dir, st, files, keys, echo)
    echo("$ pbem verify game")
    res = verify([game_dir])
    def count(n: int, word: str) -> str:
        return f"{n} {word}" + ("" if n == 1 else "s")

    echo(f"ok: {count(res.states, 'state')}, {count(res.transitions, 'transition')} replayed, {count(res.reports, 'report')} "
         f"and {count(res.pictures, 'picture')} match")
    last = game_dir / folder_names.state(res.states - 1)
    write_new(folder / "position.svg", module.render_svg(load_state(last).data, None))
    echo(f"$ pbem show game/{last.name} --svg position.svg")
    r = st.data.get("result")
    if r:
        echo(f"game over: the {r['winner']} wins ({r['rule']}): {r['reason']}")
    echo(f"The game folder is {game_dir}; read the reports (*.report.md) there.")
    return folder


def _legal_body(module: GameModule, st: Any, op: Path, side: str, body: str, echo: Callable[[str], None]) -> str:
    """The example orders, less any order that the dice of this game made illegal.

    The examples were written for one run of the dice; if a change of the module's data changes
    the dice, an order may no longer fit the position (a unit did not advance, a place was not
    taken). `pbem check` finds it; the demo says so and leaves that order out (the game's
    demo_leave_out says which), as a player would.
    """
    scratch = op.with_name(op.name + ".draft")
    for _ in range(20):
        scratch.write_text(order_text(st.data, side, body), encoding="utf-8")
        try:
            c = check_orders(st, load_doc(scratch, "orders"))
        finally:
            scratch.unlink()
        if not c.problems:
            return body
        kept = module.demo_leave_out(parse_toml(body.encode("utf-8"), str(op)), list(c.problems))
        if kept is None:  # nothing the demo can leave out would help
            raise IllegalOrdersError(f"{op}: the example orders break the rules", c.problems)
        for p in c.problems:
            echo(f"$ pbem check ... -> {p.render()}  (left out of the demo's orders)")
        body = dumps(kept)
    raise IllegalOrdersError(f"{op}: the example orders cannot be made legal", c.problems)


def _adjudicate(module: GameModule, game: Path, st: Any, inputs: list[Path], keys: dict[str, KeyPair],
                echo: Callable[[str], None]) -> Any:
    adj = st.data["awaits"]["adjudicator"]
    res = adjudicate(st, [load_doc(p, "orders") for p in inputs], keys[adj])
    nxt, seq = res.state, res.sequence
    files = res.outputs(folder=game)
    write_all_new(files)
    sp = files[0][0]
    aw = nxt["awaits"]
    inputs_named = " ".join(p.name for p in inputs)
    echo(f"$ pbem adjudicate game/{folder_names.state(seq - 1)} {inputs_named} --key {adj}.key   -> {', '.join(p.name for p, _ in files)}")
    summary = module.demo_summary(res.report)
    if summary:
        echo("    " + summary)
    if aw["kind"] != "none":
        echo(f"    awaits {aw['kind']} for {aw['step']} from {', '.join(aw['from'])}")
    return load_state(sp)
