"""Proud Monster orders are parsed once into frozen values (orders.py), which the rules check and
carry out: each table read, what is left out told apart from what is given empty."""

from __future__ import annotations

import dataclasses

import pytest

from pbem.games.proud_monster.orders import (
    Attack,
    Declarations,
    Move,
    Orders,
    Placement,
    Reply,
    SeaMove,
    StackInstructions,
    Standing,
    Support,
)

BODY = {
    "support": [{"air": "VIII", "hex": "2817N"}],
    "move": [{"units": ["3Pz", "4Pz"], "path": ["1818N", "1919N"], "assault": "1919N", "losses": ["4Pz"], "rounds": 2,
              "support": ["VIII"]},
             {"units": ["6ID"], "path": ["1717N"], "air_supply": True}],
    "sea": [{"units": ["51RD"], "to": "ports-box"}, {"units": ["52RD"], "invade": "3019S"}],
    "attack": [{"target": "1919N", "units": ["3Pz"], "advance": ["3Pz"], "if_cleared": ["2020N"]}],
    "place": [{"units": ["7RD"], "hex": "rvgk"}],
    "declare": {"hedgehog": [], "form_arko": "2817N", "security": {"Sich1": "2817N"}},
    "rwr": {"refit": ["3Pz"], "withdraw": {"infantry": ["8ID"]}, "refuse": {"panzer": 1}},
    "standing": {"loss_policy": "ask", "stack": [{"hex": "2817N", "retreat": "never"}]},
}


def test_every_table_is_read() -> None:
    o = Orders.parse(BODY)
    assert o.tables == tuple(BODY)
    assert o.support == (Support("VIII", "2817N"),)
    assert o.moves[0] == Move(units=("3Pz", "4Pz"), path=("1818N", "1919N"), assault="1919N", losses=("4Pz",), rounds=2,
                              support=("VIII",))
    assert o.moves[1].air_supply is True and o.moves[1].assault is None and o.moves[1].rounds == 1
    assert o.sea == (SeaMove(("51RD",), to="ports-box"), SeaMove(("52RD",), invade="3019S"))
    assert o.attacks == (Attack("1919N", ("3Pz",), advance=("3Pz",), if_cleared=("2020N",)),)
    assert o.attacks[0].conditions() == (("if_cleared", ("2020N",)), ("if_held", ()))
    assert o.place == (Placement(("7RD",), "rvgk"),)
    assert o.declare == Declarations(hedgehog=(), form_arko="2817N", security=(("Sich1", "2817N"),))
    assert o.rwr.given == ("refit", "withdraw", "refuse") and o.rwr.withdraw == (("infantry", ("8ID",)),)
    assert o.standing == Standing(loss_policy="ask", stack=(StackInstructions(hex="2817N", retreat="never"),))
    assert o.reply is None


def test_left_out_is_not_given_empty() -> None:
    """A hedgehog list given empty cancels every hedgehog (14.40); no `hedgehog` key keeps them."""
    assert Orders.parse({}).declare == Declarations() and not Declarations().any()
    assert Declarations.parse({"hedgehog": []}).hedgehog == () and Declarations.parse({"hedgehog": []}).any()
    assert Standing().empty() and not Standing.parse({"stack": []}).empty()
    assert Orders.parse({"reply": {}}).reply == Reply()
    assert Reply.parse({"losses": ["6RD", "6RD"]}).losses == ("6RD", "6RD")


def test_the_values_are_frozen() -> None:
    move = Orders.parse(BODY).moves[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.units = ()  # type: ignore[misc]
    assert dataclasses.replace(move, units=("3Pz",)).units == ("3Pz",)
