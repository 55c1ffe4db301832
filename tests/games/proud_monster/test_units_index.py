"""The working units table (rules/context.py ``Units``): its index of units by place follows every
change, a checkpoint goes back to the table exactly as it was (records, their keys' order, the
table's order), and a copy of it is plain data."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.proud_monster.rules.context import Unit, Units

PLACES = ["0101N", "0102N", "0201N", "dead", "track"]
IDS = ["A", "B", "C", "D", "E"]


def scan(units: dict[str, Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for u, s in units.items():
        if "at" in s:
            out.setdefault(s["at"], set()).add(u)
    return out


def plain(units: dict[str, Any]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The table as data, orders included."""
    return [(u, list(s.items())) for u, s in units.items()]


ops = st.one_of(
    st.tuples(st.just("move"), st.sampled_from(IDS), st.sampled_from(PLACES)),
    st.tuples(st.just("steps"), st.sampled_from(IDS), st.integers(0, 4)),
    st.tuples(st.just("update"), st.sampled_from(IDS), st.sampled_from(PLACES)),
    st.tuples(st.just("tried"), st.sampled_from(IDS), st.sampled_from(["2-2", "3-2"])),
    st.tuples(st.just("untry"), st.sampled_from(IDS), st.none()),
    st.tuples(st.just("put"), st.sampled_from(IDS), st.sampled_from(PLACES)),
    st.tuples(st.just("take"), st.sampled_from(IDS), st.none()),
    st.tuples(st.just("last"), st.none(), st.none()),
    st.tuples(st.just("merge"), st.sampled_from(IDS), st.sampled_from(PLACES)),
    st.tuples(st.just("checkpoint"), st.none(), st.none()),
    st.tuples(st.just("rollback"), st.none(), st.none()),
    st.tuples(st.just("release"), st.none(), st.none()),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ops, max_size=40))
def test_the_index_follows_every_change_and_a_rollback_restores_the_table(program: list[Any]) -> None:
    units = Units({u: {"at": PLACES[i % 3], "steps": 2} for i, u in enumerate(IDS[:3])})
    frames: list[tuple[Any, list[Any]]] = []  # open checkpoints, each with the table as it was
    for op, uid, arg in program:
        if op == "move" and uid in units:
            units[uid]["at"] = arg
        elif op == "steps" and uid in units:
            units[uid]["steps"] = arg
        elif op == "update" and uid in units:
            units[uid].update(at=arg, steps=0)
        elif op == "tried" and uid in units:
            units[uid].setdefault("tried", arg)
        elif op == "untry" and uid in units:
            units[uid].pop("tried", None)
        elif op == "put":
            units[uid] = {"at": arg, "steps": 1}
        elif op == "take" and uid in units:
            del units[uid]
        elif op == "last" and units:
            units.popitem()
        elif op == "merge":
            units |= {uid: {"at": arg, "steps": 3}}
        elif op == "checkpoint":
            frames.append((units.checkpoint(), plain(units)))
        elif op == "rollback" and frames:
            frame, was = frames.pop(data_index := len(frames) // 2)
            del frames[data_index:]
            units.rollback(frame)
            assert plain(units) == was
        elif op == "release" and frames:
            frame, _ = frames.pop()
            units.release(frame)
        assert {k: v for k, v in units.by_place.items() if v} == scan(units)
        assert all(type(s) is Unit and s.owner is units and s.uid == u for u, s in units.items())


def test_a_checkpoint_knows_who_was_in_a_place() -> None:
    units = Units({"A": {"at": "0101N", "steps": 2}, "B": {"at": "0101N", "steps": 1}, "C": {"at": "0102N", "steps": 1}})
    frame = units.checkpoint()
    units["A"]["at"] = "0102N"
    units["B"].update(at="dead", steps=0)
    assert units.placed_at(frame, "0101N") == ["A", "B"] and units.placed_at(frame, "0102N") == ["C"]
    units["D"] = {"at": "0101N", "steps": 1}
    assert units.placed_at(frame, "0101N") == ["A", "B"]
    units.release(frame)


def test_a_copy_of_the_working_table_is_plain_data() -> None:
    units = Units({"A": {"at": "0101N", "steps": 2, "tried": "2-2"}})
    data = {"units": units}
    for copied in (copy.deepcopy(data), pickle.loads(pickle.dumps(data))):
        assert copied == {"units": {"A": {"at": "0101N", "steps": 2, "tried": "2-2"}}}
        assert type(copied["units"]) is dict and type(copied["units"]["A"]) is dict
    assert tomli_w.dumps(data) == tomli_w.dumps({"units": {"A": {"at": "0101N", "steps": 2, "tried": "2-2"}}})
    assert json.dumps(data) == '{"units": {"A": {"at": "0101N", "steps": 2, "tried": "2-2"}}}'
