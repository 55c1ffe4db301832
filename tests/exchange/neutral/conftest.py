"""The exchange layer on a game other than Proud Monster: Skirmish (docs/skirmish.md), three sides,
with Proud Monster taken out of the registry in this process (registry.unregister) and in every
`pbem` it spawns ($PBEM_HIDE_GAMES).

``SkGame`` plays a game through pbem.exchange with fixed keys and salts: red, blue and green (and a
referee when asked), on the exchange scenario of data/ (red's first attack always leaves green a
choice of losses, 6.2) or a bundled one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pbem.engine import registry
from pbem.exchange.files import dumps, write_all_new, write_new
from pbem.exchange.game import (
    Doc,
    adjudicate,
    load_doc,
    load_state,
    make_join,
    new_game,
    order_header,
    sign_orders,
)
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.exchange.ledger import join_salt

HIDDEN = ("proud-monster", "red-steel", "europe-engulfed")  # every bundled game but Skirmish
SCENARIO = str(Path(__file__).parent / "data" / "exchange-scenario.toml")
SIDES = ("red", "blue", "green")

# Red's first player turn on the exchange scenario: R4 moves, red attacks west-fields (9 against 5,
# 4.3), and green, which sent no standing instructions, is asked for its losses (6.2).
RED_T1 = """
[[move]]
unit = "R4"
path = ["redhold", "north-pass"]

[[attack]]
target = "west-fields"
units = ["R1", "R2", "R3", "R5"]
advance = ["R1", "R2"]
"""
RED_STANDING = {"loss_policy": "weakest-first"}
BLUE_STANDING = {"loss_policy": "strongest-first", "loss_order": ["B4"]}


@pytest.fixture(autouse=True)
def proud_monster_unregistered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every game but Skirmish out of the registry: in this process and in any `pbem` a test spawns."""
    yield from only_skirmish(monkeypatch)


def only_skirmish(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry with Skirmish alone (the other bundled games hidden), until the generator ends."""
    for name in HIDDEN:
        registry.unregister(name)
    monkeypatch.setenv(registry.HIDE_ENV, ",".join(HIDDEN))
    assert registry.names() == ["skirmish"]
    yield
    registry.restore()


def body_text(state: dict[str, Any], side: str, body: str) -> str:
    """An order or reply file: the [pbem] header `pbem template` writes, then the body."""
    return "\n".join(order_header(state, side)) + body


def salt_of(side: str, seed: str) -> str:
    return hashlib.sha256(f"{seed} salt {side}".encode()).hexdigest()[:32]


@dataclass
class SkGame:
    folder: Path
    keys: dict[str, KeyPair]
    referee: bool = False
    written: list[Path] = field(default_factory=list)

    @property
    def state_path(self) -> Path:
        return sorted(self.folder.glob("*.state.toml"))[-1]

    def state(self) -> Doc:
        return load_state(self.state_path)

    def awaited(self) -> tuple[str, str]:
        """The side awaited and the kind of file it sends ("orders" or "reply")."""
        aw = self.state().data["awaits"]
        return str(aw["from"][0]), "reply" if aw["kind"] == "reply" else "orders"

    def write(self, body: str, side: str | None = None, sign: bool = True) -> Path:
        """The awaited side's file (orders or reply) for the current state, sealed unless ``sign`` is false."""
        st = self.state()
        who, kind = self.awaited()
        side = side or who
        p = self.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.{kind}.toml"
        write_new(p, body_text(st.data, side, body))
        if sign:
            p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, self.keys[side], st),
                         encoding="utf-8")
        return p

    def adjudicate(self, *files: Path, defaulted: list[str] | None = None) -> Path:
        st = self.state()
        res = adjudicate(st, [load_doc(p, "orders") for p in files], self.keys[str(st.data["awaits"]["adjudicator"])], defaulted)
        out = res.outputs(folder=self.folder)
        write_all_new(out)
        return out[0][0]

    def play(self, body: str) -> Path:
        return self.adjudicate(self.write(body))

    def auto(self) -> Path:
        """The built-in player's orders or reply for the awaited step, adjudicated."""
        from pbem.engine.registry import find_module

        st = self.state()
        who, _ = self.awaited()
        return self.play(find_module("skirmish").propose(st.data, who))  # type: ignore[attr-defined]


def start_game(folder: Path, scenario: str = SCENARIO, game_id: str = "sk-test", referee: bool = False,
               seed: str = "neutral", standing: dict[str, dict[str, Any]] | None = None,
               options: dict[str, Any] | None = None) -> SkGame:
    """A Skirmish game created by red (or the referee), joined by every party and adjudicated up
    to red's first player turn. Standing instructions: red weakest-first, blue strongest-first
    after B4, green none (it is asked), unless ``standing`` says otherwise; ``options``: the game's
    rules options (docs/skirmish.md)."""
    folder.mkdir(parents=True, exist_ok=True)
    parties = (*SIDES, "referee") if referee else SIDES
    keys = {p: KeyPair.from_seed(f"{seed} {p}".encode()) for p in parties}
    creator = keys["referee"] if referee else keys["red"]
    st0 = new_game("skirmish", scenario, {s: keys[s].public_text for s in SIDES},
                   keys["referee"].public_text if referee else None, creator, game_id, dict(options or {}))
    write_new(folder / "0000.state.toml", dumps(st0))
    g = SkGame(folder, keys, referee)
    st = g.state()
    stand = standing if standing is not None else {"red": RED_STANDING, "blue": BLUE_STANDING}
    joins = []
    for p in parties:
        j = folder / f"0000-{p}.join.toml"
        write_new(j, dumps(make_join(st, p, keys[p], stand.get(p), salt=join_salt(keys[p], st.digest, salt_of(p, seed)))))
        joins.append(j)
    g.adjudicate(*joins)
    return g


def key_files(g: SkGame, root: Path) -> dict[str, Path]:
    """Each party's key pair as files in ``root`` (``SIDE.key``, ``SIDE.pub``)."""
    root.mkdir(parents=True, exist_ok=True)
    out = {}
    for p, k in g.keys.items():
        key, _ = write_key_files(k, root / p)
        out[p] = key
    return out


@pytest.fixture
def sk(tmp_path: Path) -> SkGame:
    """A joined three-sided game awaiting red's first orders (adjudicated by blue)."""
    return start_game(tmp_path / "game")


def reply_body(state: dict[str, Any]) -> str:
    """A reply naming the last units the awaited question offers, as many as it asks."""
    q = state["pending"]["question"] if "pending" in state else state["question"]
    return "\n[reply]\nlosses = [" + ", ".join(f'"{u}"' for u in q["units"][-int(q["loss"]):]) + "]\n"


@pytest.fixture
def replied(tmp_path: Path) -> SkGame:
    """Red's first attack (0002 awaits green's reply), green's reply (0003, adjudicated by red),
    blue's orders (0004, by green): dice rolled, a reply step, three adjudicators."""
    g = start_game(tmp_path / "game")
    g.play(RED_T1)
    g.play(reply_body(g.state().data))
    g.play("\n# no orders this player turn\n")
    return g
