"""The options of a Proud Monster game (digest A.4; DESIGN: named switches where the rules are
ambiguous): one declaration per option, from which the defaults, the values, the notes and the full
game's settings are derived.

An option is one of: the ruleset itself (A.4: "basic" or "full"); a reading of one of the digest's
ambiguities (Part E, docs/proud-monster-ambiguities.md), the digest's reading first; a full-game
([ADV]) rule, off in the basic game; or a rule of the basic game that can be switched off. The full
game (A.4) turns on every [ADV] rule implemented so far (``full``); a scenario's options, then
`pbem new --option`, override both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.errors import Problem

from .rules.places import path_of, problem

RULESET = "ruleset"


@dataclass(frozen=True, slots=True)
class Option:
    """One switch: its ``values`` (the default first), the ``rule`` it is about (cited when a game
    gives it a value it may not take), what it does (``text``), the ``ambiguity`` of Part E it
    settles, whether it is an [ADV] rule (``advanced``) and its value in the full game (``full``;
    None: the full game keeps the default)."""

    name: str
    values: tuple[Any, ...]
    rule: str
    text: str
    ambiguity: int = 0
    advanced: bool = False
    full: Any = None

    @property
    def default(self) -> Any:
        return self.values[0]

    @property
    def note(self) -> str:
        """What `pbem rules` and the README say of it: "Ambiguity 6 (3.9): a unit passing ..."."""
        if self.ambiguity:
            return f"Ambiguity {self.ambiguity} ({self.rule}): {self.text}"
        if self.advanced:
            return f"[ADV] ({self.rule}): {self.text}"
        if self.name == RULESET:
            return f"{self.rule}: {self.text}"
        return f"({self.rule}): {self.text}"


OPTIONS: tuple[Option, ...] = (
    Option("ruleset", ("basic", "full"), "A.4",
           "'basic' leaves out the [ADV] rules and what A.4 lists; 'full' plays every rule"),
    Option("control_on_pass_through", (True, False), "3.9",
           "a unit passing through a town or city takes control", ambiguity=6),
    Option("moscow_vp_victory", ("next-check", "at-capture"), "4.6/4.1",
           "VP of a Moscow capture count at the 'next-check', or win 'at-capture' if enough", ambiguity=7),
    Option("city_doubling_above_7_1", (True, False), "14.23",
           "at odds above 7:1 the attacker's 0 in a city becomes 1", ambiguity=41),
    Option("arko_order", ("doubling-first", "arko-first"), "14.23/14.41",
           "in a city the result is doubled, then the ArKo's +1 ('doubling-first'), or 'arko-first'", ambiguity=41),
    Option("mixed_water_shift", ("1L", "none"), "14.19/14.20",
           "all attackers across water of mixed types: '1L' or 'none'", ambiguity=40),
    Option("overstack", ("reject",), "6.2",
           "orders ending a movement phase over-stacked are rejected", ambiguity=55),
    Option("advance_across_straits", (True, False), "12.16",
           "units that attacked across the Sivash/Kerch may advance across it", ambiguity=33),
    Option("concentric_assault", (False, True), "14.14",
           "1R when attacking from opposite, alternating or four or more hexes", advanced=True, full=True),
    Option("concentric_three", ("non-contiguous", "alternating"), "14.14",
           "from three hexes, 1R for any 'non-contiguous' three, or only the two 'alternating' sets", ambiguity=39),
    Option("mountain_infantry", (False, True), "14.17",
           "mountain infantry attacking into hills use their defense factor", advanced=True, full=True),
    Option("step_loss_exceptions", (False, True), "14.35",
           "attacker's first step from a tank; no elimination before all are reduced", advanced=True, full=True),
    Option("exception2_reduced", ("to-1-step", "once"), "14.35",
           "exception 2 waits until every participant is reduced 'to-1-step', or reduced 'once'", ambiguity=46),
    Option("soviet_cavalry_half", (False, True), "14.36",
           "a Soviet cavalry step satisfies half a point of loss", advanced=True, full=True),
    Option("guards_cavalry_half", ("per-step", "per-unit"), "14.36",
           "a 2-step Guards cavalry unit counts 1/2 'per-step' (1 in all), or 1/2 'per-unit'", ambiguity=47),
    Option("fog_of_war", (False, True), "14.7",
           "a side's view shows only the top unit of each enemy stack (refereed games)", advanced=True, full=True),
    Option("weather", (False, True), "13.2",
           "a weather roll each player-turn sequence from GT7, with the effects of 13.3-13.10", advanced=True, full=True),
    Option("rain_zone", ("start", "entered"), "13.4",
           "the rain's -1 MP by the zone of the unit's 'start' hex, or of each hex 'entered'", ambiguity=59),
    Option("boundary_weather", ("entered", "left"), "13.2",
           "a move across the zone boundary uses the weather of the hex 'entered', or the hex 'left'", ambiguity=35),
    Option("highway", (False, True), "12.20",
           "mechanized units pay 1 MP per forest hex along the Minsk-Moscow highway until the first NZ M/S", advanced=True, full=True),
    Option("sz_roll_below_table", ("first-row", "dry"), "13.2",
           "a modified SZ roll below 1: 'first-row' reads the row for 1, 'dry' gives D", ambiguity=35),
    Option("untried_units", (True, False), "2.15",
           "Soviet 1-step units are untried; their counter is drawn from its pool when they first fight", full=True),
    Option("fortifications", (False, True), "14.24/14.27/14.30",
           "forts 1L, heavy forts 2L, Stalin Line +1 defense; lines activate per the SPAT", advanced=True, full=True),
    Option("fort_destruction", ("any-entry", "assault"), "14.26",
           "an empty intact work is destroyed by 'any-entry', or only by occupation after an 'assault'", ambiguity=42),
    Option("hedgehogs", (False, True), "14.40",
           "on GT12 the German may declare hedgehogs (2L, no attack, no concentric shift against)", advanced=True, full=True),
    Option("hedgehog_movement", ("may-move", "stay"), "14.40",
           "units in a hedgehog 'may-move', or 'stay' for the movement phase they begin in it", ambiguity=48),
    Option("arko", (True, False), "14.41",
           "the German may form the ArKo, which adds 1 to the defender's result in a PA on a city or fort", full=True),
    Option("arko_participates", (True, False), "14.41",
           "the ArKo takes part in the PA with 0 and may absorb attacker losses (false: it only supports)", ambiguity=49),
    Option("mobile_assault", (False, True), "15.0",
           "mechanized units (and Soviet cavalry) may attack during movement: `assault` in a [[move]]", advanced=True, full=True),
    Option("stacking_details", (False, True), "6.3/6.4/6.5",
           "German-side brigade 1/2, regiment/battalion 1/4, at most 4 of these; 10 in a city", advanced=True, full=True),
    Option("supply", (False, True), "9.1",
           "supply lines to sources (9.4-9.15); out of supply halves MF and combat factors (9.7), checked per 9.8/15.4", full=True),
    Option("gast_rolls", ("per-combat", "per-unit"), "9.6",
           "the GAST is rolled once 'per-combat', or once for each liable attacker 'per-unit'", ambiguity=28),
    Option("halving_rounding", ("once", "each"), "9.7/14.12",
           "several halvings: multiplied, rounded up 'once', or rounded for 'each' group of units", ambiguity=30),
    Option("axis_allies", (True, False), "7.1/7.5/8.5",
           "Axis allies' stacking, North-map and joint-attack limits; 8.5 Romania/Hungary", full=True),
    Option("hungarian_joint_attack", ("may-not", "may"), "7.4",
           "the Hungarian Fast Corps 'may-not' or 'may' attack with non-German Axis units", ambiguity=13),
    Option("romanian_stacking", ("fractional", "per-counter"), "7.3/6.3",
           "Romanian brigades and regiments count 'fractional' (6.3), or 1 'per-counter'", ambiguity=12),
    Option("gt1_restrictions", (False, True), "5.3",
           "on GT1 no attack from the Hungarian/Romanian ZOMO, no Soviet into Hungary/Romania", advanced=True, full=True),
    Option("gt1_no_attack_from", ("hungary-romania", "set-up"), "5.3",
           "GT1 attack ban: 'hungary-romania' also from any hex there, 'set-up' literal", ambiguity=10),
    Option("german_retreat", (False, True), "14.32",
           "German defenders in a PA may retreat one hex for 1 point of the result (14.33-14.35)", advanced=True, full=True),
    Option("retreat_if_none_closer", ("any-legal", "no-retreat"), "14.32",
           "no retreat hex is closer to supply: 'any-legal' hex, or 'no-retreat'", ambiguity=45),
    Option("retreat_distance", ("path", "hex-distance"), "14.32",
           "closer to supply by the cheapest legal German 'path', or by 'hex-distance'", ambiguity=45),
    Option("tank_brigades", (False, True), "8.9",
           "from GT3 the Soviet rolls 2d6 each GT for tank brigades of the group set aside", advanced=True, full=True),
    Option("soviet_replacements", (False, True), "8.13",
           "from GT3 dead Soviet rifle divisions return, per MD hex in supply at the GT's rate", advanced=True, full=True),
    Option("moscow_replacements", ("per-hex", "once"), "8.13",
           "two-hex Moscow counts 'per-hex' (two MD hexes) or 'once' for replacements", ambiguity=20),
    Option("okh_entry", ("listed", "any-zomo"), "8.2",
           "OKH units enter through the 'listed' ZOMO hexes (8.2) or 'any-zomo' hex of the area", ambiguity=14),
    Option("md_adjacent_entry", ("not-enemy-occupied", "controlled-supplied"), "8.7",
           "a hex next to an MD city takes units 'not-enemy-occupied', or 'controlled-supplied'", ambiguity=16),
    Option("rvgk_entry_capacity", ("shared", "separate"), "8.7",
           "RVGK entries use the hexes' per-GT capacity ('shared') or a 'separate' one", ambiguity=16),
    Option("naval", (True, False), "11.1",
           "up to 5 Soviet units a player turn by sea between Black Sea ports and the Box, or invading the Crimea", full=True),
    Option("invasion_joiners", (True, False), "11.4",
           "other Soviet units from adjacent land hexes may join the invasion PA", ambiguity=31),
    Option("south_border_setup", ("alternate", "every"), "3.3",
           "set-up on the border 1804S-2114S: 'alternate' (no two neighbours empty) or 'every' hex", ambiguity=4),
    Option("iz_columns", ("both-maps", "each-map"), "3.4",
           "4 units in every IZ column, its North and South hexes together ('both-maps') or on 'each-map'", ambiguity=5),
    Option("replacements", (False, True), "8.14",
           "reduced German infantry-class divisions flipped to full strength from a pool of 28 steps", advanced=True, full=True),
    Option("withdrawals", (False, True), "8.16",
           "the German withdraws the units of the Withdrawal Table (17.4) or refuses them at -1 VP each", advanced=True, full=True),
    Option("refits", (False, True), "8.20",
           "German panzer and motorized-infantry divisions refit once per game, 1d6 on the Refit Table (17.5)", advanced=True, full=True),
    Option("second_sequence_rwr", ("replacements-refits", "refits-only"), "5.2",
           "the second sequence's RWR phase has 'replacements-refits' or 'refits-only'", ambiguity=9),
    Option("withdrawal_sequence", ("first", "either"), "8.16",
           "withdrawals in the 'first' sequence's RWR phase, or in 'either' of the GT", ambiguity=9),
    Option("okh_withdrawals", (False, True), "8.16",
           "units in the OKH areas may be withdrawn (true) or not, being off the map", ambiguity=22),
    Option("refit_under_concentration", (False, True), "8.20",
           "a division under supply concentration counts as in supply for a refit", ambiguity=23),
    Option("security_divisions", (True, False), "8.21",
           "the German deploys security divisions in groups of 3 in the MR phase, -1 VP per group", full=True),
    Option("ground_support", (False, True), "10.2",
           "air units committed to stacks (`[[support]]`) add their points in attack and defense", advanced=True, full=True),
    Option("ground_support_cap", ("participating", "stack"), "10.2",
           "GS points capped at the 'participating' units' strength, or the whole 'stack''s", ambiguity=29),
    Option("viii_on_defense", ("1L", "none"), "10.3",
           "VIII Fliegerkorps on a supported German defense: '1L' on the Soviet attack, or 'none'", ambiguity=29),
    Option("soviet_gs_range", ("nearer", "both"), "10.4",
           "the Soviet GS unit within 10 hexes of the 'nearer' Moscow hex, or of 'both'", ambiguity=18),
    Option("flak", (True, False), "10.1",
           "Flak never attacks; it halves Soviet tank attackers of its supplied hex; withdrawn on GT12", full=True),
    Option("air_supply_concentration", ("sequence", "german-turn"), "9.20",
           "with concentration no air supply in the whole 'sequence' or the 'german-turn'", ambiguity=25),
)

BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
DEFAULT_OPTIONS: dict[str, Any] = {o.name: o.default for o in OPTIONS}
OPTION_VALUES: dict[str, tuple[Any, ...]] = {o.name: o.values for o in OPTIONS}
OPTION_NOTES: dict[str, str] = {o.name: o.note for o in OPTIONS}
# The full game (A.4): every [ADV] rule implemented so far is on, unless an option says otherwise.
FULL_GAME: dict[str, Any] = {o.name: o.full for o in OPTIONS if o.full is not None}
# Rules the digest does not mark [ADV] and A.4 does not leave out of the basic game: on in both
# rulesets (each can still be switched off): untried Soviet units (2.15), the ArKo (14.41), the Axis
# allies (7.x), Soviet naval movement (11.x), the security divisions (8.21) and Flak (10.1).
BASIC_RULES: tuple[str, ...] = tuple(o.name for o in OPTIONS if o.full is True and o.default is True)


def game_options(ruleset: str, *given: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a new game: the defaults, the full game's settings for ``ruleset`` "full", then
    each of ``given`` in turn (a scenario's options, then those of `pbem new --option`)."""
    out = {**DEFAULT_OPTIONS, **(FULL_GAME if ruleset == "full" else {}), RULESET: ruleset}
    for layer in given:
        out.update(layer)
    return out


def unknown_options(options: Mapping[str, Any]) -> list[str]:
    """The names in ``options`` that are no option, sorted."""
    return sorted(set(options) - set(BY_NAME))


def value_problems(options: Mapping[str, Any]) -> list[Problem]:
    """A problem for each known option whose value is not one it may take (of the same type as its
    default), citing the option's rule; by option name."""
    return [problem(path_of("options", k), f"{v!r} is not one of {', '.join(repr(x) for x in BY_NAME[k].values)}",
                    BY_NAME[k].rule, where=f"option {k}")
            for k, v in sorted(options.items())
            if k in BY_NAME and (v not in BY_NAME[k].values or type(v) is not type(BY_NAME[k].default))]
