"""The compiled fast path of the schemas (pbem/exchange/fastschema.py): never laxer than jsonschema,
and a cache that an opponent cannot use to make it so."""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path
from typing import Any

import pytest

from pbem.exchange import fastschema
from pbem.exchange.files import _fast_validator, _validator, load_schema, read_toml, schema_problems
from pbem.exchange.game import _body_schema, body_of
from tests.paths import ROOT

GOLDEN = sorted((ROOT / "tests" / "games").glob("*/golden/*/*.toml"))
VALUES: list[Any] = ["x\n", "2817N\n", "２８１７N", "", True, False, 0, 1, -1, 2**40, [], {}, ["a"], {"a": 1},
                     "sha256:" + "0" * 64, "sha256:" + "0" * 63 + "A", None]


def _full_ok(name: str, data: Any) -> bool:
    return not any(True for _ in _validator(name).iter_errors(data))


def _parts(path: Path, data: dict[str, Any], kind: str | None = None) -> list[tuple[str, Any]]:
    kind = kind or data["pbem"]["kind"]
    schema = kind if kind in ("state", "view") else "orders"
    out = [(schema, data)]
    try:
        out.append((_body_schema(data, schema, path), body_of(data, schema)))
    except Exception:  # a part the mutation broke: only the envelope
        pass
    return out


def _leaves(x: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(x, dict):
        for k, v in x.items():
            out += _leaves(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _leaves(v, (*path, i))
    return out


def test_every_golden_file_takes_the_fast_path() -> None:
    assert GOLDEN
    for p in GOLDEN:
        data = read_toml(p)
        for name, part in _parts(p, data):
            fast = _fast_validator(name)
            assert fast is not None, name
            assert fast(part), f"{p}: {name}"


@pytest.mark.parametrize("seed", range(3))
def test_never_laxer_than_jsonschema(seed: int) -> None:
    """Golden files changed in one place: whatever the fast path accepts, jsonschema accepts."""
    rng = random.Random(seed)
    files = rng.sample(GOLDEN, min(12, len(GOLDEN)))
    for p in files:
        data = read_toml(p)
        leaves = _leaves(data)[1:]
        for _ in range(25):
            d = copy.deepcopy(data)
            where = rng.choice(leaves)
            target = d
            for k in where[:-1]:
                target = target[k]
            v = rng.choice(VALUES)
            if v is None:
                if not isinstance(target, dict):
                    continue
                del target[where[-1]]
            elif isinstance(target, dict) and rng.random() < 0.2:
                target[f"{where[-1]}_x"] = v
            else:
                target[where[-1]] = v
            for name, part in _parts(p, d, data["pbem"]["kind"]):
                fast = _fast_validator(name)
                assert fast is not None
                if fast(part):
                    assert _full_ok(name, part), f"{p}: {name}: {where} = {v!r} passed the fast path only"


@pytest.mark.parametrize("value", ["2817N\n", "２８１７N", "2817Ｎ"])
def test_patterns_have_their_ecma_meaning(value: str) -> None:
    """A hex id with a final newline or full-width digits fails both paths (Python's ``$`` and ``\\d``
    would let it through)."""
    schema = {"type": "string", "pattern": "^[0-9]{4}[NS]$"}
    assert not fastschema.compile_validator(schema)(value)  # type: ignore[misc]
    schema = {"type": "string", "pattern": "^\\d{4}[NS]$"}
    assert not fastschema.compile_validator(schema)(value)  # type: ignore[misc]


def test_draft_2020_words_are_kept() -> None:
    """prefixItems, dependentSchemas, a $ref with siblings, a const of an integer: what fastjsonschema
    alone would ignore or mix up."""
    schema = {"$defs": {"n": {"type": "integer"}},
              "type": "object",
              "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
                             "ref": {"$ref": "#/$defs/n", "maximum": 3},
                             "one": {"const": 1}},
              "dependentSchemas": {"a": {"required": ["b"]}}}
    valid = fastschema.compile_validator(schema)
    assert valid is not None
    assert valid({"pair": ["x", 1], "ref": 2, "one": 1, "a": 1, "b": 2})
    for bad in ({"pair": [1, "x"]}, {"pair": ["x", 1, 2]}, {"ref": 4}, {"one": True}, {"a": 1}):
        assert not valid(bad), bad


def test_unknown_keywords_have_no_fast_path() -> None:
    assert fastschema.compile_validator({"type": "object", "unevaluatedProperties": False}) is None
    assert fastschema.compile_validator({"$ref": "pbem:state#/properties/awaits"}) is None


def test_problems_are_jsonschemas(tmp_path: Path) -> None:
    """A file that fails lists every error, as jsonschema finds them."""
    data = read_toml(GOLDEN[0])
    bad = copy.deepcopy(data)
    bad["pbem"]["game"] = 1
    bad["pbem"]["sequence"] = "x"
    problems = schema_problems(bad, "state" if bad["pbem"]["kind"] == "state" else "orders", "f")
    assert len(problems) >= 2


# --- the cache: what an opponent (or an accident) could do to it -----------------------------------

def _cached(schema: dict[str, Any]) -> Path:
    fastschema.compile_validator(schema)
    files = list((fastschema.cache_dir() / "schemas").glob("*.code"))
    assert files
    return max(files, key=lambda p: p.stat().st_mtime_ns)


LAX = {"type": "object"}
STRICT = {"type": "object", "required": ["must"]}


def _plant(tmp_path: Path) -> Path:
    """The cache file of STRICT replaced by the code of a schema that accepts anything."""
    lax = _cached(LAX).read_bytes()
    target = _cached(STRICT)
    target.write_bytes(lax)
    return target


def test_cache_is_keyed_by_content() -> None:
    """Another schema (a changed one) is another cache file: a stale validator is never used."""
    a, b = _cached(LAX), _cached(STRICT)
    assert a != b
    assert not fastschema.compile_validator(STRICT)({})  # type: ignore[misc]


def test_a_cache_file_others_can_write_is_not_used(tmp_path: Path) -> None:
    target = _plant(tmp_path)
    os.chmod(target, 0o666)
    assert not fastschema.compile_validator(STRICT)({})  # type: ignore[misc]


def test_a_symlinked_cache_file_is_not_used(tmp_path: Path) -> None:
    target = _cached(STRICT)
    lax = _cached(LAX)
    target.unlink()
    target.symlink_to(lax)
    assert not fastschema.compile_validator(STRICT)({})  # type: ignore[misc]


@pytest.mark.parametrize("junk", [b"", b"not marshal data", b"\x00" * 100])
def test_a_broken_cache_file_is_made_again(junk: bytes) -> None:
    target = _cached(STRICT)
    os.chmod(target, 0o600)
    target.write_bytes(junk)
    assert not fastschema.compile_validator(STRICT)({})  # type: ignore[misc]
    assert fastschema.compile_validator(STRICT)({"must": 1})  # type: ignore[misc]


def test_the_bundled_schemas_compile_without_a_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No cache folder to write (read-only home): the fast path still works, compiled in memory."""
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    monkeypatch.setenv("PBEM_HOME", str(ro))
    assert fastschema.compile_validator(load_schema("orders")) is not None
