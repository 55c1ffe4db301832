"""The names of a game folder's files (pbem/exchange/names.py): made and parsed in one place."""

from __future__ import annotations

import pytest

from pbem.exchange import names
from pbem.exchange.game import load_doc
from pbem.exchange.names import Name
from tests.conftest import Game


def test_every_kind_of_name_is_made_as_the_protocol_says() -> None:
    assert names.number(3) == "0003"
    assert names.number(12345) == "12345"
    assert names.state(0) == "0000.state.toml"
    assert names.report(2) == "0002.report.md"
    assert names.report(2, "soviet") == "0002-soviet.report.md"
    assert names.picture(2) == "0002.turn.svg"
    assert names.view(4, "german") == "0004-german.view.toml"
    assert names.submission(1, "german", "orders") == "0001-german.orders.toml"
    assert names.submission(0, "soviet", "join") == "0000-soviet.join.toml"
    assert names.submission(5, "soviet", "reply") == "0005-soviet.reply.toml"
    assert names.submission(6, "red", "reveal") == "0006-red.reveal.toml"
    assert names.inputs_glob(7) == "0007-*.toml"
    with pytest.raises(ValueError):
        names.submission(1, "german", "state")


@pytest.mark.parametrize("name, parsed", [
    ("0000.state.toml", Name("state", 0, None)),
    ("0012.report.md", Name("report", 12, None)),
    ("0012-soviet.report.md", Name("report", 12, "soviet")),
    ("0012.turn.svg", Name("picture", 12, None)),
    ("0003-german.view.toml", Name("view", 3, "german")),
    ("0003-german.orders.toml", Name("orders", 3, "german")),
    ("0000-referee.join.toml", Name("join", 0, "referee")),
    ("10000-soviet.reply.toml", Name("reply", 10000, "soviet")),
    ("0006-red.reveal.toml", Name("reveal", 6, "red")),
])
def test_a_name_parses_and_is_made_again(name: str, parsed: Name) -> None:
    assert names.parse(name) == parsed
    assert str(parsed) == name
    assert names.is_game_file(name)


@pytest.mark.parametrize("name", [
    "003.state.toml",  # fewer than four digits
    "0003-german.state.toml",  # a state names no side
    "0003-german.turn.svg",
    "0003.view.toml",  # a view, order, join or reply file names its side
    "0003.orders.toml",
    "0003-German.orders.toml",  # a side as the schemas spell it
    "0003-../x.orders.toml",
    "0003.state.toml\n",
    "\u0663\u0660\u0660\u0660.state.toml",  # digits, but not ASCII ones
    "0003.state.json",
    "game.toml",
])
def test_other_names_are_not_a_game_folders(name: str) -> None:
    assert names.parse(name) is None
    assert not names.is_game_file(name)


def test_the_kind_of_any_name_is_read_from_its_suffix() -> None:
    assert names.kind("next.state.toml") == "state"
    assert names.kind("x-german.view.toml") == "view"
    assert names.kind("mine.orders.toml") == "orders"
    assert names.kind("0002.turn.svg") == "picture"
    assert names.kind("notes.md") is None


def test_a_documents_name_comes_from_its_content(played: Game) -> None:
    """A state is named by its sequence number; a submission by that of the state it answers."""
    folder = played.folder
    for p in sorted(folder.glob("*.toml")):
        d = load_doc(p)
        n = names.parse(p.name)
        assert n is not None
        assert names.of_document(d.data, n.sequence) == p.name
    with pytest.raises(ValueError):
        names.of_document(load_doc(folder / "0001-german.orders.toml").data)
