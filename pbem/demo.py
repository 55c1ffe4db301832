"""``pbem demo``: play a bundled scenario in a game folder, as two players would.

Keys are generated (from fixed seeds, so the demo is the same on every machine), the game is
created and joined, and each awaited step is answered with the example orders in
``examples/proud-monster/training/`` or, for a scenario without examples (or with ``auto``), with
the orders the simple built-in player proposes (``autoplay.propose``): checked, signed,
adjudicated by the other player, reported. The folder is verified at the end.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.engine.registry import find_module
from pbem.errors import IllegalOrdersError, UsageError
from pbem.exchange import names
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
from pbem.games.proud_monster import autoplay
from pbem.games.proud_monster.module import ProudMonster
from pbem.resources import examples_dir

SCENARIO = "training"
GAME_ID = "pm-demo-training"
SIDES = ("german", "soviet")


def demo_salt(side: str) -> str:
    """The demo's salt for a side's secret chain: fixed, so that the demo is reproducible byte for
    byte (a real `pbem join` draws a fresh random salt: docs/protocol.md, Dice)."""
    return hashlib.sha256(f"pbem demo salt {side}".encode()).hexdigest()[:32]


def example_path(step: str, scenario: str = SCENARIO) -> Path:
    return examples_dir() / "proud-monster" / scenario / (step.replace("/", "-") + ".toml")


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


def run_demo(out: Path | None, turns: int, echo: Callable[[str], None], options: dict[str, Any] | None = None,
             scenario: str = SCENARIO, auto: bool = False) -> Path:
    module = find_module("proud-monster")
    pm = ProudMonster()
    if scenario not in module.scenarios():
        raise UsageError(f"no bundled Proud Monster scenario '{scenario}'", hint=f"Bundled: {', '.join(module.scenarios())}.")
    if out is None:
        folder = Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    else:
        if out.exists() and any(out.iterdir()):
            raise UsageError(f"{out}: the folder exists and is not empty", hint="Give a new folder, or none for a temporary one.")
        out.mkdir(parents=True, exist_ok=True)
        folder = out
    game = folder / "game"
    game.mkdir()
    auto = auto or scenario != SCENARIO  # only the training scenario has a complete set of example orders
    game_id = GAME_ID if scenario == SCENARIO and not auto else f"pm-demo-{scenario}" + ("-auto" if auto else "")
    echo(f"pbem demo: Proud Monster, {scenario} scenario, {turns} game turn(s), in {folder}"
         + (" (orders proposed by the built-in player)" if auto else ""))
    keys: dict[str, KeyPair] = {}
    for side in SIDES:
        keys[side] = KeyPair.from_seed(f"pbem demo {side}".encode())
        write_key_files(keys[side], folder / side)
        echo(f"$ pbem keygen {side}            -> {side}.key, {side}.pub (key id {keys[side].key_id})")
    state = new_game("proud-monster", scenario, {s: keys[s].public_text for s in SIDES}, None, keys["german"], game_id,
                     dict(options or {}))
    path = game / names.state(0)
    write_new(path, dumps(state))
    echo(f"$ pbem new {scenario} --side german=german.pub --side soviet=soviet.pub --key german.key --game-id {game_id} -o game")
    st = load_state(path)
    joins = []
    for side in SIDES:
        ex = example_path(f"join-{side}", scenario)
        standing = read_toml(ex).get("standing") if ex.exists() and not auto else autoplay.standing(side) if auto else None
        jp = game / names.submission(0, side, "join")
        write_new(jp, dumps(make_join(st, side, keys[side], standing, salt=demo_salt(side))))
        joins.append(jp)
        echo(f"$ pbem join game/{names.state(0)} --side {side} --key {side}.key")
    st = _adjudicate(game, st, joins, keys, echo)
    while st.data["awaits"]["kind"] != "none" and int(st.data["clock"]["turn"]) <= turns:
        aw = st.data["awaits"]
        side = aw["from"][0]
        seq = int(st.data["pbem"]["sequence"])
        ex = example_path(aw["step"], scenario)
        op = game / names.submission(seq, side, "reply" if aw["kind"] == "reply" else "orders")
        if auto:
            # a scenario's example file, if any, adds the decisions of that step to the built-in
            # player's proposal (examples/proud-monster/SCENARIO/: the campaign's scripted measures)
            extra = read_toml(ex) if ex.exists() and scenario != SCENARIO else None
            body = autoplay.propose(pm, st.data, side, extra)
            source = "proposed by the built-in player" + (f", with examples/proud-monster/{scenario}/{ex.name}" if extra else "")
        elif ex.exists():
            body = ex.read_text(encoding="utf-8")
            source = f"filled in from examples/proud-monster/{SCENARIO}/{ex.name}"
        elif aw["kind"] == "reply":
            body, source = _reply_body(st.data)
        elif int(st.data["clock"]["pts"]) == 0:  # the Soviet's MR step (8.7): the template's proposal
            template = module.template(st.data, side, order_header(st.data, side))
            body, source = template.split("\ndice_index = ", 1)[1].split("\n", 1)[1], "the template's proposed placements"
        else:
            body, source = "# no orders this player turn\n", "no orders"
        echo(f"$ pbem template game/{names.state(seq)} --side {side}   ({source})")
        body = _legal_body(st, op, side, body, echo)
        write_new(op, order_text(st.data, side, body))
        echo(f"$ pbem check game/{names.state(seq)} {op.name}      -> legal")
        doc = load_doc(op, "orders")
        text = sign_orders(op, op.read_text(encoding="utf-8"), doc.data, keys[side], st)
        parse_toml(text.encode("utf-8"), str(op))
        op.write_text(text, encoding="utf-8")
        echo(f"$ pbem sign {op.name} --key {side}.key")
        st = _adjudicate(game, st, [op], keys, echo)
    echo("$ pbem verify game")
    res = verify([game])
    echo(f"ok: {res.states} states, {res.transitions} transitions replayed, {res.reports} reports and {res.pictures} pictures match")
    last = game / names.state(res.states - 1)
    write_new(folder / "position.svg", module.render_svg(load_state(last).data, None))
    echo(f"$ pbem show game/{last.name} --svg position.svg")
    r = st.data.get("result")
    if r:
        echo(f"game over: the {r['winner']} wins ({r['rule']}): {r['reason']}")
    echo(f"The game folder is {game}; read the reports (*.report.md) there.")
    return folder


def _legal_body(st: Any, op: Path, side: str, body: str, echo: Callable[[str], None]) -> str:
    """The example orders, less any order that the dice of this game made illegal.

    The examples were written for one run of the dice; if a change of the module's data changes
    the dice, an order may no longer fit the position (a unit did not advance, a hex was not
    taken). `pbem check` finds it; the demo says so and leaves that order out, as a player would.
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
        data = parse_toml(body.encode("utf-8"), str(op))
        drop: dict[str, set[int]] = {}
        for p in c.problems:
            m = re.match(r"^(move|attack)\[(\d+)\]", p.where)
            if m:
                drop.setdefault(m.group(1), set()).add(int(m.group(2)))
            elif p.where.startswith("end of movement"):
                drop.setdefault("move", set()).update(range(len(data.get("move", []))))
            else:  # nothing the demo can leave out would help
                raise IllegalOrdersError(f"{op}: the example orders break the rules", c.problems)
            echo(f"$ pbem check ... -> {p.render()}  (left out of the demo's orders)")
        for key, idx in drop.items():
            data[key] = [x for i, x in enumerate(data.get(key, [])) if i not in idx]
            if not data[key]:
                del data[key]
        body = dumps(data)
    raise IllegalOrdersError(f"{op}: the example orders cannot be made legal", c.problems)


def _reply_body(state: dict[str, Any]) -> tuple[str, str]:
    """A reply to the decision awaited (README: standing instructions and replies): the demo's
    player answers as the documented defaults would: the first retreat hex offered, losses
    fewest-steps-first."""
    from pbem.games.proud_monster.module import default_losses

    q = state["pending"]["question"]
    if q.get("kind") == "retreat":
        return f'\n[reply]\nretreat = "{q["hexes"][0]}"\n', f"a reply: retreat to {q['hexes'][0]}"
    losses = default_losses(q)
    return "\n[reply]\nlosses = [" + ", ".join(f'"{u}"' for u in losses) + "]\n", f"a reply: losses {', '.join(losses)}"


def _adjudicate(game: Path, st: Any, inputs: list[Path], keys: dict[str, KeyPair], echo: Callable[[str], None]) -> Any:
    adj = st.data["awaits"]["adjudicator"]
    res = adjudicate(st, [load_doc(p, "orders") for p in inputs], keys[adj])
    nxt, seq = res.state, res.sequence
    files = res.outputs(folder=game)
    write_all_new(files)
    sp = files[0][0]
    aw = nxt["awaits"]
    given = " ".join(p.name for p in inputs)
    echo(f"$ pbem adjudicate game/{names.state(seq - 1)} {given} --key {adj}.key   -> {', '.join(p.name for p, _ in files)}")
    summary = _summary(res.report)
    if summary:
        echo("    " + summary)
    if aw["kind"] != "none":
        echo(f"    awaits {aw['kind']} for {aw['step']} from {', '.join(aw['from'])}")
    return load_state(sp)


def _summary(report: str) -> str:
    moves = report.count("\n- Move ")
    attacks = report.count("\n- **Attack ")
    controls = report.count("\n- Control: ")
    parts = []
    if moves:
        parts.append(f"{moves} move(s)")
    if attacks:
        parts.append(f"{attacks} attack(s)")
    if controls:
        parts.append(f"{controls} control change(s)")
    return ", ".join(parts)
