"""Red Steel's named options: one for each ambiguity of the rules that changes play (digest
section 5), each defaulting to the digest's reading (docs/red-steel-ambiguities.md lists them).

A game's options are given to `pbem new --option NAME=VALUE`; a state records only those not at
their default, so that a game played with the defaults has an empty ``options`` table.
"""

from __future__ import annotations

from typing import Any

from pbem.games import named_options
from pbem.games.named_options import Option

OPTIONS: tuple[Option, ...] = (
    Option("turns", 0, (0, 99), "18.0", "the last game turn played (0: the scenario's)"),
    Option("bombardment", "after-combat", ("after-combat", "before-combat"), "A-11",
           "where bombardment falls in a player turn: as 3.35, after the Combat Phase, or before the attacks are declared"),
    Option("odds", "round-down", ("round-down", "nearest"), "A-37",
           "the CRT column of a ratio: the listed column at or below it, or the nearest"),
    Option("below_table", "cancel", ("cancel", "lowest-column"), "A-39",
           "an attack whose final odds are below the table: cancelled (its units count as having attacked) or resolved on the lowest column"),
    Option("loss_shortfall", "either", ("either", "none"), "A-42",
           "a side that cannot take all its step losses reduces the other side's by one"),
    Option("retreat_farther", "general", ("general", "priority"), "A-45",
           "9.41's 'one hex farther from the attackers': a requirement of every retreat hex, or only the third priority"),
    Option("isolation_roll", "all", ("all", "unit"), "A-32",
           "a 1-3 on a defender's isolation roll isolates every defending unit of the combat, or only the unit rolled for"),
    Option("isolation_spend", "half-or-more", ("half-or-more", "more-than-half"), "A-31",
           "an out-of-supply motorized or mechanized unit is isolated when it spends this much of its MA"),
    Option("d_on_demoralized", "none", ("none", "step"), "A-68",
           "a d result on a demoralized unit: no effect, or as demoralized again (a step lost)"),
    Option("overwhelming_armor", "extra", ("extra", "none"), "A-54",
           "10.2: one more column right at armor 5:1 or more, beyond the cap of 3, or not used"),
    Option("tank_losses", "anti-armor", ("anti-armor", "armor-too"), "A-56",
           "9.31 / 10.4: the attacker's first loss from its strongest armor when the defender's anti-armor (or armor too) is higher"),
    Option("spotting", "any", ("any", "all"), "A-34",
           "8.1 at two hexes: spotted when at least one hex between is not a town or city, or only when none is"),
    Option("zoc_values", "printed", ("printed", "modified"), "A-14",
           "4.1: the attack strength that gives a ZOC, printed or after status effects"),
    Option("entry_delay", "occupied", ("occupied", "zoc"), "A-64",
           "12.11: reinforcements are delayed while enemy units occupy the entry hex, or also while it is in enemy ZOC"),
    Option("romanian_supply", "romanian-hq", ("romanian-hq", "any-axis-hq"), "A-28",
           "7.3 (missing): Romanian and Ukrainian units trace as 7.2 to a Romanian HQ (any Axis HQ when none is on the map), or to any Axis HQ"),
    Option("replacements_carry", False, (False, True), "A-65",
           "12.2: Romanian replacement steps not used in their Introductory Segment are kept"),
    Option("reserve_days", 1, (1, 99), "A-74", "15.14: the days a division stays in reserve"),
    Option("activation", "plans", ("plans",), "6.6",
           "15.1: the Soviet player's moves for every formation are sent at once and made in the order the chits are drawn"),
    Option("bridge_trigger", "any", ("any", "movement"), "A-84",
           "17.42 / 17.43: an enemy unit adjacent by any movement, advance or retreat, or by movement only"),
    Option("ford_retreat", False, (False, True), "A-46", "an Axis unit may retreat across the Prut where it could ford it"),
)

BY_NAME = {o.name: o for o in OPTIONS}


def parse(options: dict[str, Any]) -> dict[str, Any]:
    """The options given, checked, as the state records them (those at their default left out)."""
    return named_options.parse(BY_NAME, options)


def get(options: dict[str, Any], name: str) -> Any:
    """An option's value in a game (its default when the state does not record it)."""
    return named_options.get(BY_NAME, options, name)

