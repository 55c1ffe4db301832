"""Skirmish: a small three-sided game on an area map (docs/skirmish.md), shipped as the example of
a game module and as the game the exchange tests play with no other game registered.

Three sides (red, blue, green) take turns; units move along the borders of a map of places
(pbem.mechanics.places.AreaMap) with an allowance that depends on their type; combat rolls one
committed die; a defender whose standing instructions do not decide its losses is asked for a reply
during the attacker's turn. Every rule is numbered in docs/skirmish.md and cited in problems and
events.
"""
