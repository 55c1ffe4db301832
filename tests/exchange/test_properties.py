"""Properties of hostile input and of the canonical form (Hypothesis, deterministic settings).

- Whatever bytes or TOML an order file holds, ``pbem check`` and ``pbem verify`` answer with a clear
  error and exit 1, 2 or 3 (0 only for legal orders), never a traceback or an internal error.
- Loading and dumping a state (or any float-free document) keeps its digest.
- Changing any one value (or key) of a sealed state breaks its seal.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem import FILE_FORMAT
from pbem.cli import cli
from pbem.errors import MalformedFileError, TamperError
from pbem.exchange import dice as proto
from pbem.exchange.canonical import canonical, check_signed_values, digest, seal
from pbem.exchange.files import dumps
from pbem.exchange.game import Doc, check_orders, check_state_seal, document_problems, load_doc, load_state
from tests.clihelpers import json_errors
from tests.conftest import GERMAN_GT1, SOVIET_STANDING, Game, start_game

SETTINGS = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@dataclass
class World:
    root: Path
    game: Game
    state: Path  # 0001: awaits the German's GT1 orders
    later: Path  # 0002: a state reached with dice

    @property
    def state_data(self) -> dict[str, Any]:
        return tomllib.loads(self.state.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("props")
    played = start_game(root / "played")
    played.play(GERMAN_GT1)
    played.play(SOVIET_STANDING)
    g = start_game(root / "game")
    yield World(root, g, g.folder / "0001.state.toml", played.folder / "0002.state.toml")


def invoke(args: list[Any]) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def assert_clean(r: Result, allowed: set[int]) -> None:
    assert r.exit_code in allowed, f"exit {r.exit_code}\n{r.output}\n{r.exception!r}"
    assert "Traceback" not in r.output
    assert "internal error" not in r.output, r.output
    if r.exit_code:
        assert isinstance(r.exception, SystemExit), repr(r.exception)
        if r.stdout.startswith("{"):  # --json: the error as data, the paragraph on standard error
            assert json.loads(r.stdout)["exit"] == r.exit_code
            assert not json_errors("check", json.loads(r.stdout)), r.stdout  # the only command run with --json here
            assert r.stderr.startswith("pbem: "), r.stderr
        else:
            assert r.output.startswith("pbem: ") or r.output.split(":")[0].endswith(".toml"), r.output


# --- strategies --------------------------------------------------------------------------------

UNITS = ["Pz1", "Inf1", "Inf2", "Inf3", "R1", "R2", "R3", "R4"]
HEXES = ["4816N", "4817N", "4715N", "4916N", "5017N", "5116N", "4614N", "4917N", "4914N", "4815N", "4716N", "2817N"]
POLICIES = ["fewest-steps-first", "most-steps-first", "ask"]

keys = st.text(max_size=8)
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(max_size=12),
    st.floats(allow_infinity=True, allow_nan=False),
)
toml_values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3), max_leaves=12)
dates = st.one_of(st.dates(), st.datetimes(), st.times())
any_values = st.recursive(scalars | dates, lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3), max_leaves=12)
float_free = st.recursive(
    st.one_of(st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1), st.text(max_size=12)),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(keys, c, max_size=4),
    max_leaves=25,
)


def rarely(odds: int) -> st.SearchStrategy[bool]:
    """True about once in ``odds`` draws (and False when shrinking)."""
    return st.sampled_from([False] * (odds - 1) + [True])


def sometimes_junk(s: st.SearchStrategy[Any], odds: int = 8) -> st.SearchStrategy[Any]:
    """Mostly the well-formed value, about once in ``odds`` anything TOML can hold."""
    return rarely(odds).flatmap(lambda junk: toml_values if junk else s)


unit = st.sampled_from(UNITS) | st.text(max_size=6)
hexid = st.sampled_from(HEXES) | st.text(max_size=7)
move = st.fixed_dictionaries({"units": sometimes_junk(st.lists(unit, max_size=3)), "path": sometimes_junk(st.lists(hexid, max_size=4))})
attack = st.fixed_dictionaries(
    {"target": sometimes_junk(hexid), "units": sometimes_junk(st.lists(unit, max_size=3))},
    optional={
        "losses": st.lists(unit, max_size=3),
        "advance": st.lists(unit, max_size=2),
        "loss_policy": st.sampled_from(POLICIES) | st.text(max_size=5),
    },
)
standing = st.fixed_dictionaries(
    {}, optional={"loss_policy": st.sampled_from(POLICIES) | st.text(max_size=5), "loss_order": st.lists(unit, max_size=4)}
)


@st.composite
def order_docs(draw: st.DrawFn, state: dict[str, Any], state_digest: str) -> dict[str, Any]:
    """An order-file-like document for ``state``: each part right, wrong, missing or junk."""
    header = {
        "format": sometimes_junk(st.just(FILE_FORMAT), 20),
        "kind": sometimes_junk(st.sampled_from(["orders", "orders", "join", "reply"]), 20),
        "game": sometimes_junk(st.sampled_from([state["pbem"]["game"], "pm-other"]), 20),
        "module": sometimes_junk(st.sampled_from([state["pbem"]["module"]] * 9 + ["chess"]), 20),
        "side": sometimes_junk(st.sampled_from(["german", "german", "soviet", "referee"]), 20),
        "answers": sometimes_junk(st.sampled_from([state_digest, state_digest, state["pbem"]["previous"], "sha256:" + "0" * 64]), 20),
        "step": sometimes_junk(st.sampled_from([state["awaits"]["step"], "GT1/1/soviet", "join"]), 20),
        "dice_index": sometimes_junk(st.sampled_from([0, 0, 1]), 20),
    }
    pbem = {k: draw(v) for k, v in header.items() if not draw(rarely(25))}
    doc: dict[str, Any] = {"pbem": draw(toml_values) if draw(rarely(30)) else pbem}
    for name, s in (("move", st.lists(move, max_size=3)), ("attack", st.lists(attack, max_size=2)), ("standing", standing),
                    ("reply", st.fixed_dictionaries({}, optional={"losses": st.lists(unit, max_size=3)}))):
        if draw(st.booleans()):
            doc[name] = draw(sometimes_junk(s))
    if draw(rarely(15)):
        doc.update(draw(st.dictionaries(keys, toml_values, max_size=2)))
    return doc


def sealed_by(doc: dict[str, Any], side: str, key: Any, game: Game) -> dict[str, Any]:
    """``doc`` with the dice of ``side``'s secret chain in ``game``, sealed by ``key``."""
    doc = dict(doc)
    doc["dice"] = {"reveal": game.secret(side, 0), "commit": proto.commitment(game.secret(side, 1))}
    return seal(doc, side, key)


TOML_BITS = [
    "[pbem]", "format = 1", 'kind = "orders"', 'game = "pm-test"', 'side = "german"', 'step = "GT1/1/german"', "dice_index = 0",
    "[[move]]", 'units = ["Pz1"]', 'path = ["4916N"]', "[[attack]]", 'target = "4916N"', "[standing]", "[seal]", 'signer = "german"',
    "[dice]", 'reveal = "00"', "=", "[", "]", "{", "}", '"', "'''", '"""', ",", ".", "\n", "\r\n", "#", "1979-05-27", "1.5", "inf",
    "a.b.c = 1", "x = [[[[", "\x00", "é",
]
toml_like_text = st.lists(st.sampled_from(TOML_BITS) | st.text(max_size=5), max_size=40).map(lambda xs: "\n".join(xs))


# --- hostile files through the CLI -------------------------------------------------------------


def check_and_verify(world: World, raw: bytes) -> None:
    p = world.root / "case.orders.toml"
    p.write_bytes(raw)
    r = invoke(["check", world.state, p])
    assert_clean(r, {0, 1, 2, 3})
    if r.exit_code == 0:
        assert "legal for step GT1/1/german" in r.output
        c = check_orders(load_state(world.state), load_doc(p, "orders"))
        assert c.problems == []
    assert_clean(invoke(["verify", p]), {1, 2, 3})
    assert_clean(invoke(["check", world.state, p, "--json"]), {0, 1, 2, 3})


@SETTINGS
@given(raw=st.binary(max_size=600))
def test_arbitrary_bytes(world: World, raw: bytes) -> None:
    check_and_verify(world, raw)


@SETTINGS
@given(text=st.text(max_size=400) | toml_like_text)
def test_arbitrary_text(world: World, text: str) -> None:
    check_and_verify(world, text.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(doc=st.dictionaries(keys, any_values, max_size=5))
def test_arbitrary_toml_documents(world: World, doc: dict[str, Any]) -> None:
    check_and_verify(world, tomli_w.dumps(doc).encode("utf-8"))


@SETTINGS
@given(data=st.data(), how=st.sampled_from(["unsealed", "sealed", "forged"]))
def test_order_like_files(world: World, data: st.DataObject, how: str) -> None:
    st_data = world.state_data
    doc = data.draw(order_docs(st_data, digest(st_data)))
    keys_ = world.game.keys
    if how == "sealed":
        doc = sealed_by(doc, "german", keys_["german"], world.game)
    elif how == "forged":
        doc = sealed_by(doc, "german", keys_["soviet"], world.game)
    check_and_verify(world, tomli_w.dumps(doc).encode("utf-8"))


def test_the_order_strategy_reaches_every_exit_code(world: World) -> None:
    """The generated order files are not all rejected at the first gate: every outcome occurs."""
    seen: set[int] = set()

    @settings(SETTINGS, max_examples=120)
    @given(data=st.data(), how=st.sampled_from(["unsealed", "sealed", "forged"]))
    def probe(data: st.DataObject, how: str) -> None:
        st_data = world.state_data
        doc = data.draw(order_docs(st_data, digest(st_data)))
        if how != "unsealed":
            doc = sealed_by(doc, "german", world.game.keys["german" if how == "sealed" else "soviet"], world.game)
        p = world.root / "probe.orders.toml"
        p.write_text(tomli_w.dumps(doc), encoding="utf-8")
        seen.add(invoke(["check", world.state, p]).exit_code)

    probe()
    assert seen == {0, 1, 2, 3}


# --- states: round trips and seals -------------------------------------------------------------


def leaves(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, (*path, k))
    elif isinstance(x, list) and x:
        for i, v in enumerate(x):
            yield from leaves(v, (*path, i))
    else:
        yield path


def dict_paths(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(x, dict):
        if x:
            yield path
        for k, v in x.items():
            yield from dict_paths(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from dict_paths(v, (*path, i))


def get(x: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        x = x[p]
    return x


def put(x: Any, path: tuple[Any, ...], value: Any) -> None:
    get(x, path[:-1])[path[-1]] = value


def other_value(old: Any) -> st.SearchStrategy[Any]:
    """A value of the same kind (and sometimes of another kind) whose meaning differs from ``old``."""
    if isinstance(old, bool):
        same: st.SearchStrategy[Any] = st.just(not old)
    elif isinstance(old, int):
        same = st.integers(min_value=-(2**63), max_value=2**63 - 1)
    elif isinstance(old, str):
        same = st.one_of(st.text(max_size=12), st.just(old + " "), st.just(old[:-1]), st.just(old.upper()), st.just(old.swapcase()))
    else:
        same = float_free
    return st.one_of(same, same, same, float_free).filter(lambda v: canonical(v) != canonical(old))


@SETTINGS
@given(data=st.data())
def test_flipping_any_value_of_a_sealed_state_breaks_its_seal(world: World, data: st.DataObject) -> None:
    original = tomllib.loads(world.later.read_text(encoding="utf-8"))
    path = data.draw(st.sampled_from(sorted(leaves(original), key=repr)), label="path")
    d = copy.deepcopy(original)
    new = data.draw(other_value(get(d, path)), label="new value")
    put(d, path, new)
    p = world.root / "flipped.state.toml"
    refused(p, d)
    # through the CLI: the file is refused (3, or 2 when the change also breaks the schema)
    assert_clean(invoke(["status", p]), {2, 3})


def refused(p: Path, d: dict[str, Any]) -> None:
    """A changed state is refused: as tampering if it is still well-formed, else as malformed."""
    p.write_text(dumps(d), encoding="utf-8")
    with pytest.raises((TamperError, MalformedFileError)) as e:
        load_state(p)
    if not document_problems(d, "state", "proud-monster", str(p)):
        assert isinstance(e.value, TamperError)
        with pytest.raises(TamperError):
            check_state_seal(Doc(p, d))


@SETTINGS
@given(data=st.data())
def test_renaming_any_key_of_a_sealed_state_breaks_its_seal(world: World, data: st.DataObject) -> None:
    d = tomllib.loads(world.later.read_text(encoding="utf-8"))
    path = data.draw(st.sampled_from(sorted(dict_paths(d), key=repr)), label="table")
    table = get(d, path)
    old = data.draw(st.sampled_from(sorted(table)), label="key")
    new = data.draw(st.text(max_size=10).filter(lambda k: k not in table), label="new key")
    table[new] = table.pop(old)
    refused(world.root / "renamed.state.toml", d)


def test_every_leaf_of_the_state_is_covered(world: World) -> None:
    """The leaf list the properties draw from includes the position, the dice and the seal."""
    paths = set(leaves(tomllib.loads(world.later.read_text(encoding="utf-8"))))
    for p in [("position", "vp"), ("position", "units", "Pz1", "at"), ("transition", "dice", 0, "face"), ("seal", "signature"),
              ("parties", "soviet", "key"), ("pbem", "inputs", 0), ("awaits", "from", 0)]:
        assert p in paths


@SETTINGS
@given(data=st.data())
def test_hostile_state_files_on_every_state_command(world: World, data: st.DataObject) -> None:
    """A state with any one value replaced by anything TOML can hold (dates and floats too)."""
    original = tomllib.loads(world.later.read_text(encoding="utf-8"))
    d = copy.deepcopy(original)
    path = data.draw(st.sampled_from(sorted(leaves(d), key=repr)), label="path")
    put(d, path, data.draw(any_values.filter(lambda v: canonical_or_none(v) != canonical(get(original, path))), label="value"))
    p = world.root / "hostile.state.toml"
    p.write_text(tomli_w.dumps(d), encoding="utf-8")
    for cmd in (["status", p], ["show", p], ["audit", p], ["verify", p], ["template", p, "--side", "soviet"]):
        assert_clean(invoke(cmd), {1, 2, 3})


def canonical_or_none(d: Any) -> bytes | None:
    try:
        return canonical(d)
    except (TypeError, ValueError):
        return None


def test_states_round_trip_through_toml(world: World) -> None:
    folder = world.later.parent
    for p in sorted(folder.glob("*.state.toml")):
        doc = load_state(p)
        text = dumps(doc.data)
        assert tomllib.loads(text) == doc.data
        q = world.root / "roundtrip.state.toml"
        q.write_text(text.replace("\n", "\r\n"), encoding="utf-8")
        again = load_state(q)
        assert again.digest == doc.digest
        assert dumps(again.data) == text
        q.unlink()


@SETTINGS
@given(data=st.data())
def test_changed_states_round_trip_with_their_digest(world: World, data: st.DataObject) -> None:
    d = tomllib.loads(world.later.read_text(encoding="utf-8"))
    path = data.draw(st.sampled_from(sorted(leaves(d), key=repr)), label="path")
    put(d, path, data.draw(float_free, label="value"))
    assert digest(tomllib.loads(dumps(d))) == digest(d)


@SETTINGS
@given(doc=st.dictionaries(keys, float_free, max_size=6))
def test_float_free_documents_round_trip_with_their_digest(doc: dict[str, Any]) -> None:
    back = tomllib.loads(tomli_w.dumps(doc))
    assert back == doc
    assert digest(back) == digest(doc)


def test_dates_are_not_part_of_a_signed_document(world: World) -> None:
    d = tomllib.loads(world.later.read_text(encoding="utf-8"))
    d["options"]["since"] = dt.date(1941, 6, 22)
    p = world.root / "dated.state.toml"
    p.write_text(tomli_w.dumps(d), encoding="utf-8")
    r = invoke(["status", p])
    assert_clean(r, {2})
    assert f"{p}: options.since: dates and times are not allowed in signed files" in r.output


def consistent(d: dict[str, Any]) -> bool:
    """A state the game can be in (its parties, pieces and places): else malformed (exit 2)."""
    from pbem.exchange.game import _check_consistency

    try:
        _check_consistency(d, Path("x"))
    except MalformedFileError:
        return False
    except TamperError:  # the parties or commitments broken: tampering, exit 3
        return True
    return True


def well_spelled(d: dict[str, Any]) -> bool:
    """Every value in its one spelling (docs/protocol.md), else the file is malformed (exit 2)."""
    try:
        check_signed_values(d)
    except MalformedFileError:
        return False
    return True


@SETTINGS
@given(data=st.data())
def test_a_validly_resealed_change_never_verifies(world: World, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The adjudicator itself changes any one value of the state it wrote and seals it again with its
    own key: the seal holds, but the replay refuses the state (or the chain/commitment checks do)."""
    import shutil

    original = tomllib.loads(world.later.read_text(encoding="utf-8"))
    path = data.draw(st.sampled_from(sorted((p for p in leaves(original) if p[0] != "seal"), key=repr)), label="path")
    d = copy.deepcopy(original)
    put(d, path, data.draw(other_value(get(d, path)), label="new value"))
    folder = tmp_path_factory.mktemp("resealed")
    for f in world.later.parent.iterdir():
        shutil.copy(f, folder / f.name)
    signer = original["seal"]["signer"]
    (folder / world.later.name).write_text(dumps(seal(d, signer, world.game.keys[signer])), encoding="utf-8")
    r = invoke(["verify", folder, "--quiet"])
    assert_clean(r, {1, 2, 3})
    if not document_problems(d, "state", "proud-monster", "x") and well_spelled(d) and consistent(d):
        assert r.exit_code in (1, 3)
