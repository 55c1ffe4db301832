"""A three-player Europe Engulfed game (Part II: the Axis, the Western Allies, the Soviet Union)
played through pbem.exchange with fixed keys: each party signs its own files, the built-in player
proposes each party's orders."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import load_doc, make_join, new_game, sign_orders
from pbem.exchange.keys import KeyPair
from pbem.exchange.ledger import join_salt
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.exchange.neutral.conftest import SkGame, body_text, salt_of

PARTIES = ("axis", "west", "ussr")
SCENARIO = "1941-barbarossa"


def start(folder: Path, seed: str = "ee three", options: dict[str, Any] | None = None, referee: bool = False) -> SkGame:
    """1941-barbarossa for three players, joined: awaiting the Allied parties' set-up (fog of war),
    or the Axis's first orders (refereed, or fog off)."""
    folder.mkdir(parents=True)
    parties = (*PARTIES, "referee") if referee else PARTIES
    keys = {p: KeyPair.from_seed(f"{seed} {p}".encode()) for p in parties}
    creator = keys["referee"] if referee else keys["axis"]
    st0 = new_game("europe-engulfed", SCENARIO, {s: keys[s].public_text for s in PARTIES},
                   keys["referee"].public_text if referee else None, creator, "ee-three", {"players": "3", **(options or {})})
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


def write(g: SkGame, side: str, body: str, sign: bool = True) -> Path:
    """``side``'s file for the awaited step (sealed, hidden values and openings, unless ``sign`` is false)."""
    st = g.state()
    kind = "reveal" if st.data["awaits"]["kind"] == "reveal" else "orders"
    p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.{kind}.toml"
    if p.exists():
        p.unlink()
    text = body_text(st.data, side, "\n")
    game = tomllib.loads(body)
    if game:  # the body's tables after the [pbem] header (its top-level keys would fall in [pbem])
        text = tomli_w.dumps({**tomllib.loads(text), **game})
    write_new(p, text)
    if sign:
        p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st),
                     encoding="utf-8")
    return p


def proposed(g: SkGame, side: str) -> str:
    """The built-in player's file body for ``side`` (its hidden values from the set-up's numbering)."""
    return EuropeEngulfed().propose(g.state().data, side)


def step(g: SkGame) -> Path:
    """Every awaited party's file by the built-in player, adjudicated by the step's adjudicator."""
    st = g.state().data
    files = [write(g, side, "\n" if st["awaits"]["kind"] == "reveal" else "\n" + proposed(g, side)) for side in st["awaits"]["from"]]
    return g.adjudicate(*files)
