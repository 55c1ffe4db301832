"""Shared mechanics: hex numbering and adjacency (2.3-2.4, D.1), odds (14.8-14.10), tables, steps."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mechanics.hexgrid import Hex, Numbering, adjacent, direction, distance, hexside_key, neighbours
from pbem.mechanics.odds import Odds, Shift, apply_shifts, halve_round_up
from pbem.mechanics.stacking import overstacked
from pbem.mechanics.steps import Loss, NeedsDecision, allocate
from pbem.mechanics.tables import Result

N = Numbering(26)


@pytest.mark.parametrize("a,b", [
    ("5017N", "5116N"), ("2608N", "2707N"), ("2407N", "2406N"), ("2407N", "2506N"),
    ("3719S", "3819S"), ("3719S", "3820S"), ("3819S", "3820S"),
    ("3215S", "3216S"), ("3215S", "3315S"), ("3216S", "3315S"),
    ("4000N", "4100N"), ("3715S", "3815S"), ("4100N", "4201N"), ("4201N", "4300N"), ("4201N", "4301N"),
])
def test_every_adjacency_the_rulebook_names_holds(a: str, b: str) -> None:
    """Digest D.1: the odd-q layout fits every adjacency in the source."""
    assert adjacent(N.parse(a), N.parse(b))
    assert adjacent(N.parse(b), N.parse(a))


def test_map_join_south_row_00_is_north_last_row() -> None:
    """2.4: the South map's northernmost row is the North map's southernmost row."""
    assert N.parse("3000S") == N.parse("3026N")
    assert N.canonical("3000S") == "3026N"
    assert N.format(N.parse("3001S")) == "3001S"
    assert adjacent(N.parse("3026N"), N.parse("3001S"))
    with pytest.raises(ValueError):
        N.parse("3027N")
    with pytest.raises(ValueError):
        N.parse("30x7N")


def test_neighbours_directions_and_distance() -> None:
    h = N.parse("5017N")
    ns = neighbours(h)
    assert len(set(ns)) == 6
    for i, n in enumerate(ns):
        assert direction(h, n) == i
        assert direction(n, h) == (i + 3) % 6
        assert distance(h, n) == 1
    assert distance(N.parse("2817N"), N.parse("5017N")) == 22
    assert distance(N.parse("5017N"), N.parse("5019N")) == 2
    assert hexside_key("5116N", "5017N") == "5017N-5116N"


@given(st.integers(10, 60), st.integers(1, 40), st.integers(10, 60), st.integers(1, 40))
@settings(max_examples=200, derandomize=True)
def test_distance_is_a_metric_consistent_with_adjacency(c1: int, r1: int, c2: int, r2: int) -> None:
    a, b = Hex(c1, r1), Hex(c2, r2)
    assert distance(a, b) == distance(b, a)
    assert (distance(a, b) == 1) == adjacent(a, b)
    assert distance(a, b) >= max(abs(c1 - c2), 0)


@pytest.mark.parametrize("att,dfn,label", [
    (26, 7, "3:1"), (5, 11, "1:3"), (7, 7, "1:1"), (14, 7, "2:1"), (6, 7, "1:2"), (1, 7, "1:7"), (49, 7, "7:1"), (56, 7, "8:1"),
])
def test_odds_both_roundings(att: int, dfn: int, label: str) -> None:
    """14.8: fractions dropped when the attacker is stronger; 14.9: rounded up when weaker."""
    assert Odds.of(att, dfn).label == label


def test_shifts_apply_to_the_actual_odds() -> None:
    """14.31 design note: 20:1 with 2L is 18:1 (not capped first)."""
    o = apply_shifts(Odds.of(20, 1), [Shift(-1, "14.16", "hills"), Shift(-1, "14.22", "large town")])
    assert o.label == "18:1"
    assert Odds.of(2, 1).shift(-2).label == "1:2"
    assert Odds.parse("1:3").shift(1).label == "1:2"
    assert Shift(-2, "14.23", "city").label == "2L" and Shift(1, "14.14", "c").label == "1R"


def test_halving_rounds_up() -> None:
    assert halve_round_up(7) == 4 and halve_round_up(8) == 4 and halve_round_up(1) == 1


def test_result_parsing() -> None:
    assert Result.parse("0/E") == Result(0, None) and Result.parse("0/E").label == "0/E"
    assert Result.parse("4/0") == Result(4, 0)


def test_step_allocation_policies() -> None:
    units = [("A", 2), ("B", 1), ("C", 4)]
    assert allocate(units, 1, ["C"], "ask") == [Loss("C", 1, False)]
    assert allocate(units, 2, [], "fewest-steps-first") == [Loss("A", 1, False), Loss("B", 1, True)]
    assert allocate(units, 2, [], "most-steps-first") == [Loss("C", 2, False)]
    assert allocate(units, 99, [], "ask") == [Loss("A", 2, True), Loss("B", 1, True), Loss("C", 4, True)]
    assert allocate([("A", 2)], 1, [], "ask") == [Loss("A", 1, False)]
    with pytest.raises(NeedsDecision):
        allocate(units, 2, [], "ask")


def test_overstacked() -> None:
    stacks = [("0101N", ["a", "b", "c"]), ("0102N", ["d"])]
    out = overstacked(stacks, lambda u: Fraction(1), lambda h: 2)
    assert [(o.place, o.value, o.limit) for o in out] == [("0101N", 3, 2)]


def test_cheapest_path_prefers_low_cost_and_respects_prohibitions_and_limits() -> None:
    from pbem.mechanics.paths import Neighbours, cheapest

    # a 1-2-3 line with a costly shortcut: a-b-c-d costs 3; a-d directly costs 5; x is prohibited
    graph = {"a": ["b", "d", "x"], "b": ["a", "c"], "c": ["b", "d"], "d": ["a", "c"], "x": ["a"]}
    costs = {("a", "d"): 5, ("a", "x"): None}

    def step(p: str, q: str) -> int | None:
        return costs.get((p, q), 1)

    assert cheapest(Neighbours(graph.__getitem__), "a", "d", step) == (3, ["b", "c", "d"])
    assert cheapest(Neighbours(graph.__getitem__), "a", "x", step) is None
    assert cheapest(Neighbours(graph.__getitem__), "a", "d", step, limit=2) is None
    assert cheapest(Neighbours(graph.__getitem__), "a", "a", step) == (0, [])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 6), st.integers(0, 6)), st.integers(0, 5) | st.none(), max_size=30),
       st.sets(st.integers(0, 6), min_size=1, max_size=3))
def test_costs_to_gives_what_a_forward_search_gives_from_each_place(costs: dict[tuple[int, int], int | None],
                                                                     goals: set[int]) -> None:
    """paths.costs_to (one backward search) agrees with paths.cheapest from every place to the goals."""
    from pbem.mechanics.paths import Neighbours, cheapest, costs_to

    places = [str(i) for i in range(7)]
    edges = {(str(a), str(b)): c for (a, b), c in costs.items() if a != b}
    nbrs = {p: sorted({b for a, b in edges if a == p} | {a for a, b in edges if b == p}) for p in places}

    def step(a: str, b: str) -> int | None:
        return edges.get((a, b))

    back = costs_to(Neighbours(nbrs.__getitem__), [str(g) for g in goals], step, places)
    for p in places:
        def fwd_nbrs(h: str) -> list[str]:
            return [*nbrs[h], *(["*"] if int(h) in goals else [])]

        def fwd_step(a: str, b: str) -> int | None:
            return 0 if b == "*" else step(a, b)

        found = cheapest(Neighbours(fwd_nbrs), p, "*", fwd_step)
        assert back.get(p) == (None if found is None else found[0]), p


def test_a_die_label_is_refused_twice_whatever_happened_to_the_log() -> None:
    """Dice.roll refuses a label already in the log: rolled by it, put in the log by hand, or in a
    log that replaced the first one; a label that left the log may be rolled again."""
    from pbem.mechanics.dice import DiceError, Roll, SeededDice

    dice = SeededDice(seed=b"test")
    dice.roll("a")
    with pytest.raises(DiceError, match="twice"):
        dice.roll("a")
    dice.log.append(Roll("b", 6, 1))
    with pytest.raises(DiceError, match="twice"):
        dice.roll("b")
    dice.log = [Roll("c", 6, 2)]
    dice.roll("a")
    with pytest.raises(DiceError, match="twice"):
        dice.roll("c")
    dice.log.clear()
    dice.roll("c")
    assert [r.label for r in dice.log] == ["c"]
