"""A Europe Engulfed game played through pbem.exchange with fixed keys (the fog of war's tests):
without a referee (hidden values, sealed by `pbem sign`) or refereed (views)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import check_orders, load_doc, load_state, make_join, new_game, sign_orders
from pbem.exchange.keys import KeyPair
from pbem.exchange.ledger import join_salt
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.exchange.neutral.conftest import SkGame, body_text, salt_of

SIDES = ("axis", "allies")
SCENARIO = "1941-barbarossa"


def start(folder: Path, seed: str = "ee fog", options: dict[str, Any] | None = None, referee: bool = False) -> SkGame:
    """1941-barbarossa, joined: awaiting the Allies' set-up (or, refereed, the Axis's first orders)."""
    folder.mkdir(parents=True)
    parties = (*SIDES, "referee") if referee else SIDES
    keys = {p: KeyPair.from_seed(f"{seed} {p}".encode()) for p in parties}
    creator = keys["referee"] if referee else keys["axis"]
    st0 = new_game("europe-engulfed", SCENARIO, {s: keys[s].public_text for s in SIDES},
                   keys["referee"].public_text if referee else None, creator, "ee-fog", dict(options or {}))
    write_new(folder / "0000.state.toml", dumps(st0))
    g = SkGame(folder, keys, referee)
    st = g.state()
    joins = []
    for p in parties:
        j = folder / f"0000-{p}.join.toml"
        write_new(j, dumps(make_join(st, p, keys[p], None, salt=join_salt(keys[p], st.digest, salt_of(p, seed)))))
        joins.append(j)
    g.adjudicate(*joins)
    return g


def start_units() -> dict[str, dict[str, Any]]:
    """The scenario's blocks as new_game numbers them, with their types and steps."""
    units: dict[str, dict[str, Any]] = EuropeEngulfed().new_game(SCENARIO, {})["position"]["units"]
    return units


def side_of(u: str) -> str:
    return "axis" if u.split(".")[0].removesuffix("-e") in ("de", "it", "fi", "ro", "hu", "bg") else "allies"


def hidden_toml(values: dict[str, dict[str, Any]]) -> str:
    lines = ["", "[hidden]"]
    lines += [f'"{u}" = {{ block = "{v["block"]}", steps = {v["steps"]} }}' for u, v in sorted(values.items())]
    return "\n".join(lines) + "\n"


def setup_values(side: str) -> dict[str, dict[str, Any]]:
    return {u: {"block": s["block"], "steps": s["steps"]} for u, s in start_units().items() if side_of(u) == side}


def checked(g: SkGame, body: str) -> str:
    """`pbem check` of a draft for the awaited step: its problems as text (the draft removed)."""
    p = g.write(body, sign=False)
    try:
        return " ".join(x.render() for x in check_orders(load_state(g.state_path), load_doc(p, "orders")).problems)
    finally:
        p.unlink()


def reveal(g: SkGame) -> Path:
    """The last step: a reveal file from each side it awaits (`pbem sign` opens every item)."""
    st = g.state()
    files = []
    for side in st.data["awaits"]["from"]:
        p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.reveal.toml"
        write_new(p, body_text(st.data, side, "\n"))
        p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
        files.append(p)
    return g.adjudicate(*files)


def play_out(g: SkGame) -> None:
    """Empty orders to the end, then the last step."""
    while (aw := g.state().data["awaits"])["kind"] == "orders":
        g.play("\n# no orders\n")
    if aw["kind"] == "reveal":
        reveal(g)
