"""Proud Monster problems name their place for programs (pbem.errors.Place): the path into the order
file's data, or the hex of a problem about the map; the built-in player (autoplay.legal) reads it
instead of the ``where`` text, which stays as it was, as does the problems' JSON. That every problem
of a catalog case names the place its ``where`` text names is checked by the game's catalog hook (pbem/games/proud_monster/catalog.py)."""

from __future__ import annotations

from pbem.errors import Place, Problem
from pbem.games.proud_monster.autoplay import sub_table
from pbem.games.proud_monster.rules.places import at_hex, path_of, problem, under


def test_a_place_is_neither_rendered_nor_compared() -> None:
    p = problem(under(path_of("move", 3), "path", 0), "4718N is not adjacent to 4516N", "12.1", "Units move hex to adjacent hex.",
                note="4516N->4718N")
    assert p.where == "move[3].path[0] 4516N->4718N"
    assert p.place == Place(("move", 3, "path", 0))
    assert p.render() == "move[3].path[0] 4516N->4718N: 4718N is not adjacent to 4516N [12.1] Units move hex to adjacent hex."
    assert p.as_json() == {"where": "move[3].path[0] 4516N->4718N", "rule": "12.1", "message": "4718N is not adjacent to 4516N",
                           "hint": "Units move hex to adjacent hex."}
    assert p == Problem(p.where, p.message, p.rule, p.hint)
    assert problem(at_hex("2817N"), "over the limit", "6.1", where="end of movement phase").where == "end of movement phase"
    assert Place(("declare", "hedgehog", 1)).text == "declare.hedgehog[1]"
    assert Place(("standing", "stack", 0, "hex")).text == "standing.stack[0].hex"


def test_the_built_in_player_drops_the_key_a_place_names() -> None:
    assert sub_table(("declare", "hedgehog", 1)) == "hedgehog"
    assert sub_table(("standing", "stack", 0, "hex")) == "stack"
    assert sub_table(("rwr", "withdraw", "infantry")) == "withdraw.infantry"  # no key of [rwr]: the table goes
    assert sub_table(("sea",)) == ""
