"""The checks of one spelling (canonical.check_signed_values) and of a file's bounds
(files.check_bounds) first walk the data without naming places; the walk that names the place runs
only where the first finds something. The first walk must never pass what the second refuses."""

from __future__ import annotations

import datetime
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.errors import MalformedFileError
from pbem.exchange import canonical, files
from pbem.mechanics.dice import DiceError, ForcedDice


class Ints(int):
    pass


class Strs(str):
    pass


class Lists(list):  # type: ignore[type-arg]
    pass


LEAVES = st.one_of(st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=6),
                   st.sampled_from(["é", "e\u0301", "\u200b", "\x00", "\t", "\ue000", "\x85", 1.5, None,
                                    datetime.date(2000, 1, 1), Ints(2**64), Ints(3), Strs("\x01"), (1, 2)]))


def trees(depth: int) -> st.SearchStrategy[Any]:
    if depth == 0:
        return LEAVES
    inner = trees(depth - 1)
    keys = st.one_of(st.text(max_size=3), st.sampled_from(["\x01", "e\u0301", "ok"]))
    return st.one_of(LEAVES, st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3),
                     st.builds(lambda d: OrderedDict(d), st.dictionaries(keys, inner, max_size=2)),
                     st.builds(Lists, st.lists(inner, max_size=2)))


def refused(check: Any, data: Any) -> bool:
    try:
        check(data)
    except MalformedFileError:
        return True
    return False


@settings(max_examples=1500, deadline=None)
@given(trees(4))
def test_the_one_spelling_walks_agree(data: Any) -> None:
    assert refused(lambda d: canonical.check_signed_values(d, "f"), data) == \
        refused(lambda d: canonical._check_signed_values(d, "f", ""), data)


def slow_bounds(data: Any) -> None:
    saved = files._within_bounds
    files._within_bounds = lambda _d: False  # type: ignore[assignment]
    try:
        files.check_bounds(data, "f")
    finally:
        files._within_bounds = saved  # type: ignore[assignment]


@settings(max_examples=1500, deadline=None)
@given(trees(4))
def test_the_bounds_walks_agree(data: Any) -> None:
    doc = {"x": data}
    assert refused(lambda d: files.check_bounds(d, "f"), doc) == refused(slow_bounds, doc)


@pytest.mark.parametrize("data", [{"a": OrderedDict(x=2**64)}, {"a": Lists([2**64])}, {"a": Ints(2**64)},
                                  {"a": [[[]]] * 2}, {"a": {"b": [1] * 3}}])
def test_the_bounds_walks_agree_on_subclasses_and_shapes(data: dict[str, Any]) -> None:
    assert refused(lambda d: files.check_bounds(d, "f"), data) == refused(slow_bounds, data)


def test_the_bounds_at_their_limits() -> None:
    deep: Any = [1]
    for _ in range(files.MAX_DEPTH - 1):
        deep = [deep]
    ok = {"a": deep}  # MAX_DEPTH levels below the top: the innermost list holds a value at the limit
    for data in (ok, {"a": [deep]}, {"a": list(range(files.MAX_VALUES - 1))}, {"a": list(range(files.MAX_VALUES))}):
        assert refused(lambda d: files.check_bounds(d, "f"), data) == refused(slow_bounds, data)


@pytest.mark.parametrize("face", [0, 7, -1, True, "3", 2.0])
def test_a_forced_die_refuses_a_face_it_does_not_have(face: object) -> None:
    with pytest.raises(DiceError, match="has 6 sides"):
        ForcedDice(by_label={"x": face}).roll("x", 6)  # type: ignore[dict-item]
    with pytest.raises(DiceError, match="has 6 sides"):
        ForcedDice(in_order=[face]).roll("x", 6)  # type: ignore[list-item]


def test_a_forced_die_gives_each_of_its_faces() -> None:
    assert [ForcedDice(in_order=[k]).roll("x", 257) for k in (1, 256, 257)] == [1, 256, 257]
