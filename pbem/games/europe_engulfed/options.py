"""Europe Engulfed's named options: one for each ambiguity of the rules that changes play (digest
Part VIII, A-01..A-77), each defaulting to the digest's reading
(docs/europe-engulfed-ambiguities.md lists them), and the game's own settings.

A game's options are given to `pbem new --option NAME=VALUE`; a state records only those not at
their default.
"""

from __future__ import annotations

from typing import Any

from pbem.games import named_options
from pbem.games.named_options import Option

OPTIONS: tuple[Option, ...] = (
    Option("turns", 0, (0, 60), "D-1", "the number of game turns played (0: the scenario's, to its last turn)"),
    Option("fog", True, (True, False), "J-0",
           "a game without a referee hides each block's type and strength from the opponent (hidden values); false: every block open"),
    Option("fortress_port", "fortress-uncontested", ("fortress-uncontested", "area-uncontested"), "A-01",
           "the surrounding area is a port while the fortress is friendly and not contested, or while the surrounding area is not contested"),
    Option("mud_defence", "stacks", ("stacks", "none"), "A-03",
           "defending infantry, cavalry and airborne get +1 HB in Mud (6.4b), stacking with other bonuses; none: no Mud bonus"),
    Option("oos_recovery", "gain", ("gain", "trace"), "A-13",
           "3.5: a moved OOS unit recovers only if it gained a friendly area this player-turn, or by tracing supply alone"),
    Option("sea_supply_pin", "initial", ("initial", "none"), "A-19",
           "5.41: Soviet units supplied across a sea zone at the initial supply determination make no breakthrough movement"),
    Option("breakthrough_reach", "one-more", ("one-more", "none"), "A-20",
           "5.42: armor, cavalry and GS within 2 areas of the designated area may move 1 area into a friendly non-contested area adjacent to it"),
    Option("fortress_attack_limit", "attacker", ("attacker", "defender"), "A-21",
           "5.5: twice the attacker's own fortress stacking limit may attack a fortress, or twice the defender's"),
    Option("full_strength_first", "one-each", ("one-each", "even"), "A-23",
           "6.27: every full-strength unit of the target class takes a hit before a reduced one; even: losses spread evenly"),
    Option("rough_defence", "every-round", ("every-round", "first-round"), "A-25",
           "6.81: defenders in Rough get +1 HB in every round, or in the first round only"),
    Option("river_bonus", "all-crossed", ("all-crossed", "any-crossed"), "A-26",
           "6.83: the river/strait HB in the first round when every attacking unit crossed (or a fired-at class all crossed), or when any crossed"),
    Option("armor_in_fortress", False, (False, True), "A-27", "6.85: armor may enter a fortress"),
    Option("heavy_fort_rounds", "first", ("first", "every"), "A-66",
           "6.95c: a heavy fortification gives its +1 in the first round of each combat, or in every round"),
    Option("hit_cap", "none", ("none", "natural-one-misses"), "A-56", "T-1: no cap on hit bonuses, or a die of 1 always misses"),
    Option("halving", "cumulative", ("cumulative", "once"), "A-57",
           "several halvings (Snow, Swamp, OOS) each halve the dice (rounded down at the end), or halve once"),
    Option("counterattack_halving", True, (True, False), "A-58",
           "Snow, Swamp and OOS halving apply to the counterattacking units"),
    Option("rearguard", "steps-vs-units", ("steps-vs-units", "units-vs-units"), "A-60",
           "5.14b: the rearguard's steps at least the enemy's ground units in the area, or its units at least theirs"),
    Option("armor_hb_defending", True, (True, False), "A-62",
           "6.29/6.4c: defending armor firing at infantry-class units also gets the +1 HB"),
    Option("breakthrough_losses", "paying-only", ("paying-only", "any"), "A-65",
           "6.72: in a breakthrough combat, defender hits go only to units of nations that spent an SA"),
    Option("soviet_conquest", "chart", ("chart", "two"), "A-14",
           "4.13: a garrisoned Soviet resource area gives the Axis its chart value (1; Moscow 4, Baku 5), or Moscow and Baku 2"),
    Option("oos_replacement_steps", "less-one", ("less-one", "full"), "A-71",
           "4.32: outside the listed areas a unit is replaced up to one step below full strength"),
    Option("fortress_limited_supply", "lose-step", ("lose-step", "no-loss"), "A-72",
           "7.9: units OOS in a friendly fortress lose a step each Final Supply phase (automatic Limited Supply)"),
    Option("breakthrough_retreat_sa", "spent", ("spent", "refunded"), "A-73",
           "7.51: a breakthrough combat round whose defender retreats before combat still costs the attacker its SA, or gives it back"),
    Option("airdrop_weather", "clear", ("clear", "clear-or-light-mud"), "A-77",
           "7.3: airborne drops only in Clear, or also in Lt. Mud"),
    Option("players", 2, (2, 3), "Part II",
           "two players (axis, allies) or three (axis, west: Britain and the USA, ussr: the USSR, France and the Allied minors)"),
    Option("three_player_split", "rulebook", ("rulebook", "ussr-alone"), "Part II",
           "three players: the Soviet player plays the USSR, France and the minors invaded by the Axis; ussr-alone: the USSR only"),
    Option("axis_adjudicator", "ussr", ("ussr", "west"), "1.1",
           "three players: the Allied party that adjudicates the Axis steps (the Soviet player, who rolls the weather against the German)"),
    Option("allied_view", "shared", ("shared", "own"), "Part II",
           "three players with a referee: each Allied player sees the other's blocks (one Allied side), or only his own"),
    Option("uboat_minimum", 1, (1, 5), "A-04",
           "2.0: the U-boat points with which the U-boat attack is compulsory (the stray \"5\" read as nothing: 1)"),
    Option("uboat_strat_penalty", "per-20", ("per-20", "once"), "A-05",
           "2.13: US and British strat-moves -1 each per full 20 U-boat points left, or -1 once with 20 or more"),
    Option("interception", "all", ("all", "chosen"), "A-06",
           "2.22a: an interception commits all the defender's fighters, or the number of its standing `interceptors`"),
    Option("interceptor_fives", "hit", ("hit", "miss"), "A-07",
           "2.22c: an interceptor's 5 destroys a bomber (the rule), or misses before 1943 (the printed example's count)"),
    Option("bombing_cap_rounding", "down", ("down", "up"), "A-08",
           "2.26: half the WERPs of the controlled home areas, rounded down or up"),
    Option("diversion_scope", "west", ("west", "all"), "A-09",
           "2.27: a raid's hits on the Western front cut German strat-moves touching the West weather zone, or all of them"),
    Option("diversion_ratio", "at-least", ("at-least", "more-than"), "A-10",
           "2.27: the Western Allies' fighters at least twice Germany's, or more than twice"),
    Option("diversion_rail", True, (True, False), "A-10", "2.27: rail interdiction (2.25) applies to a diverted raid too"),
    Option("flak_basis", "survivors", ("survivors", "raid"), "A-69",
           "2.22d: Flak dice by the bomber (or V-1) points surviving interception, or by the whole raid"),
    Option("axis_fleet_transfers", 0, (0, 20), "A-39",
           "8.32: the most FPs each Axis nation transfers a turn (0: no limit beyond the conditions of 8.32)"),
    Option("russian_winter", "infantry", ("infantry", "class"), "A-43",
           "9.13: the Russian winter strikes the infantry type (elite too; not cavalry, airborne, militia), or the whole infantry class"),
    Option("romania_gs", "none", ("none", "counted"), "A-45",
           "9.17e: no German GS in Romania before the German-Soviet war, or GS counted among the 3 German units"),
    Option("minor_stacking", "nations", ("nations", "units"), "A-46",
           "9.18: the Allied bonus when units of two or more Axis minor countries share an area, or any two Axis minor units"),
    Option("italy_morale", "not-all", ("not-all", "none-held"), "A-53",
           "9.45: Italian morale collapses when the Axis does not hold all of Gibraltar, Marseille and Athens, or holds none"),
    Option("italy_surrender", "both", ("both", "either"), "A-54",
           "9.46: Italy surrenders when the Allies control both its home resource areas, or either"),
    Option("strat_limit_floor", 1, (0, 10), "5.24", "the lowest strat-move allowance of a nation (5.24: never below 1)"),
    Option("vichy_war_from", "1942-jan", ("1942-jan", "1942-jul"), "A-40",
           "9.31: Britain and the U.S.A. may declare war on Vichy France from Jan/Feb 1942, or from Jul/Aug 1942"),
    Option("minor_war_from", "1940-mar", ("1940-mar", "1940-may"), "A-41",
           "9.11b: Germany declares war on minors other than Poland from Mar/Apr 1940, or only after it (May/Jun 1940)"),
    Option("british_manpower", "until-1944", ("until-1944", "from-1944"), "A-44",
           "9.38: a British ground step costs +1 WERP until Jan/Feb 1944, or from Jan/Feb 1944"),
    Option("soviet_full_production", "first-phase", ("first-phase", "next-turn"), "A-50",
           "9.24c: 34 Soviet WERPs from the first Soviet Production Phase at war with Germany, or from the next game turn"),
    Option("us_lendlease_formula", "chart", ("chart", "die"), "A-52",
           "9.34: US lend-lease is the die times T-16's us_die_factor, at most us_max; or the die itself"),
    Option("us_to_uk_cap_after_entry", 0, (0, 40), "A-52",
           "9.36: the most WERPs the U.S.A. transfers to Britain a turn after its entry (0: T-16's us_after_entry)"),
    Option("us_entry", "1942-jan", ("1942-jan", "never"), "I.C",
           "the U.S.A. enters the war at the start of Jan/Feb 1942 (implied by 9.34; the rule is NOT IN SOURCE), or never by date"),
)

BY_NAME = {o.name: o for o in OPTIONS}


def parse(options: dict[str, Any]) -> dict[str, Any]:
    """The options given, checked, as the state records them (those at their default left out)."""
    return named_options.parse(BY_NAME, options)


def get(options: dict[str, Any], name: str) -> Any:
    """An option's value in a game (its default when the state does not record it)."""
    return named_options.get(BY_NAME, options, name)
