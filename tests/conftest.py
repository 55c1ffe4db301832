"""Shared fixtures: a small game played through the exchange layer with fixed keys."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pbem.demo import order_text
from pbem.exchange import dice as proto
from pbem.exchange.files import dumps, write_all_new, write_new
from pbem.exchange.game import Doc, adjudicate, load_doc, load_state, make_join, new_game, sign_orders
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.exchange.ledger import join_salt
from tests.paths import PM_CATALOG

EXCHANGE_SCENARIO = str(PM_CATALOG / "exchange-scenario.toml")

# Orders that make the small game roll dice: the German attacks R1 in 4916N.
GERMAN_GT1 = """
[[attack]]
target = "4916N"
units = ["Pz1", "Inf1"]
losses = ["Inf1"]
advance = ["Pz1"]

[standing]
loss_policy = "fewest-steps-first"
"""
SOVIET_STANDING = '\n[standing]\nloss_policy = "most-steps-first"\n'


def fixed_salt(side: str, seed: str = "test") -> str:
    """A fixed salt for a side's secret chain, so that test games are reproducible byte for byte."""
    return hashlib.sha256(f"{seed} salt {side}".encode()).hexdigest()[:32]


def joined_salt(state: Doc, side: str, key: KeyPair, seed: str = "test") -> str:
    """The salt of a test join: fixed, and noted in the reveal ledger as `pbem join` notes it (so
    that the test's later commands find the join they expect)."""
    return join_salt(key, state.digest, fixed_salt(side, seed))


@dataclass
class Game:
    folder: Path
    keys: dict[str, KeyPair]
    files: list[Path] = field(default_factory=list)

    @property
    def state_path(self) -> Path:
        return sorted(self.folder.glob("*.state.toml"))[-1]

    def state(self) -> Doc:
        return load_state(self.state_path)

    def secret(self, side: str, index: int) -> str:
        """Secret number ``index`` of ``side``'s chain in this game (docs/protocol.md, Dice)."""
        origin = load_state(self.folder / "0000.state.toml").digest
        joined = load_state(self.folder / "0001.state.toml")  # the salts, as the joins gave them
        return proto.secret(self.keys[side], origin, str(joined.data["parties"][side]["salt"]), index)

    def write_orders(self, body: str, side: str | None = None, sign: bool = True, name: str | None = None) -> Path:
        st = self.state()
        side = side or st.data["awaits"]["from"][0]
        seq = int(st.data["pbem"]["sequence"])
        p = self.folder / (name or f"{seq:04d}-{side}.orders.toml")
        write_new(p, order_text(st.data, side, body))
        if sign:
            d = load_doc(p, "orders")
            p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), d.data, self.keys[side], st), encoding="utf-8")
        return p

    def adjudicate(self, *orders: Path) -> Path:
        st = self.state()
        adj = st.data["awaits"]["adjudicator"]
        res = adjudicate(st, [load_doc(p, "orders") for p in orders], self.keys[adj])
        files = res.outputs(folder=self.folder)
        write_all_new(files)
        return files[0][0]

    def play(self, body: str) -> Path:
        return self.adjudicate(self.write_orders(body))


def start_game(folder: Path, scenario: str = EXCHANGE_SCENARIO, game_id: str = "pm-test", options: dict[str, object] | None = None,
               seed: str = "test", soviet_policy: str = "most-steps-first") -> Game:
    """A game created, joined (the German standing fewest-steps-first, the Soviet ``soviet_policy``)
    and adjudicated up to its first awaited step."""
    folder.mkdir(parents=True, exist_ok=True)
    keys = {s: KeyPair.from_seed(f"{seed} {s}".encode()) for s in ("german", "soviet")}
    state = new_game("proud-monster", scenario, {s: k.public_text for s, k in keys.items()}, None, keys["german"], game_id,
                     dict(options or {}))
    write_new(folder / "0000.state.toml", dumps(state))
    g = Game(folder, keys)
    st = g.state()
    joins = []
    for side, standing in (("german", {"loss_policy": "fewest-steps-first"}), ("soviet", {"loss_policy": soviet_policy})):
        p = folder / f"0000-{side}.join.toml"
        write_new(p, dumps(make_join(st, side, keys[side], standing, salt=joined_salt(st, side, keys[side], seed))))
        joins.append(p)
    g.adjudicate(*joins)
    return g


@pytest.fixture(autouse=True)
def pbem_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own reveal ledger (pbem/exchange/ledger.py): test games reuse keys and salts."""
    home = tmp_path_factory.mktemp("pbem-home")
    monkeypatch.setenv("PBEM_HOME", str(home))
    return home


@pytest.fixture
def game(tmp_path: Path) -> Game:
    """A game that has been joined and awaits the German's GT1 orders."""
    return start_game(tmp_path / "game")


@pytest.fixture
def played(tmp_path: Path) -> Game:
    """A game after the German GT1 attack and an empty Soviet turn: dice were rolled."""
    g = start_game(tmp_path / "game")
    g.play(GERMAN_GT1)
    g.play(SOVIET_STANDING)
    return g


@pytest.fixture
def keyfiles(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for s in ("german", "soviet"):
        k = KeyPair.from_seed(f"test {s}".encode())
        key, _ = write_key_files(k, tmp_path / f"{s}-keys")
        out[s] = key
    return out


def start_cli_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Game:
    """start_game in ``tmp_path/game``, run from ``tmp_path`` as the CLI tests do: each side's key
    files in ``tmp_path/SIDE``, no passphrase in the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    g = start_game(tmp_path / "game")
    for side, key in g.keys.items():
        write_key_files(key, tmp_path / side)
    return g
