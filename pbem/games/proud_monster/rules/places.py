"""Where a problem of the orders is: a structured place (pbem.errors.Place: the path of keys and
indexes into the order file's data, or a hex of the map) for programs such as the built-in player
(autoplay.py), and the ``where`` text people read, written from it."""

from __future__ import annotations

from pbem.errors import Place, Problem


def path_of(*path: str | int) -> Place:
    """The place of an entry of the orders: ``path_of("move", 3)`` is ``move[3]``."""
    return Place(path)


def under(place: Place, *path: str | int) -> Place:
    """A place within ``place``: ``under(path_of("move", 3), "path", 0)`` is ``move[3].path[0]``."""
    return Place(place.path + path, place.map_place)


def at_hex(hex_id: str) -> Place:
    """The place of a problem about a hex of the map rather than one entry of the orders."""
    return Place((), hex_id)


def problem(place: Place, message: str, rule: str = "", hint: str = "", note: str = "", where: str = "") -> Problem:
    """A problem at ``place``: its ``where`` is the place's path (``move[3].path[0]``), then ``note``
    (a step of the path, ``2817N->2818N``); or ``where`` itself, where the text names the place in
    words of its own (``end of movement phase``, ``option arko``)."""
    text = where or " ".join(x for x in (place.text, note) if x)
    return Problem(text, message, rule, hint, place)
