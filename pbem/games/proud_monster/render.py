"""Text for people: report lines for Proud Monster events, the position, and order templates."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.engine.model import Event

from . import air, naval, rwr_text, setup
from .air import position_lines as air_position_lines
from .air import support_lines, template_lines
from .data import Scenario, load_scenario, shown_values
from .reinforce import default_mr_orders, eligible, entry_hexes, mr_state, okh_text, open_md_neighbours
from .rules.combat.losses import loss_constraints_text
from .rules.context import OFF_MAP_BOXES, Ctx

MISSING_DATA = (
    ("Soviet Unit Table 17.6", "only 9 CD (5 FZ / 4 IZ) at start and the GT10 arrivals are known; a scenario whose "
                               "Soviet player sets up gives its own ([sut], docs/map-format.md)"),
    ("published map and counters", "not in the rulebook text; bundled scenarios use authored maps and counters"),
)


WEATHER_TEXT = {"D": "D (dry, 13.3)", "R": "R (rain begins, 13.4)", "M": "M (mud, 13.5)", "F": "F (frost, 13.6)",
                "S": "S (snow, 13.7)"}
WEATHER_FLAG_TEXT = {
    "nz_snow": "Deep winter: the NZ's first snow stays for the rest of the game (13.8).",
    "sz_snow": "The SZ's first snow stays for the rest of the game (13.8).",
    "refits_ended": "The first mud or snow: German panzer and motorized-infantry refits end for the rest of the game (13.9).",
    "highway_gone": "The first mud or snow in the NZ: the Minsk-Moscow highway is gone for the rest of the game (13.10).",
}


def _weather_lines(d: dict[str, Any]) -> list[str]:
    """The weather phase (13.2): the die, each zone's result, what stays and what ends for good."""
    if d["die"] is None:
        return [f"- Weather GT{d['turn']}/{d['pts']}: both zones are in snow for the rest of the game; no roll (13.8)."]
    prov = ", provisional table" if d["provisional"] else ""
    nz = f"NZ {d['nz_result']}" + (" — the NZ's snow stays (13.8)" if "NZ" in d["kept"] else "")
    if d["below"]:
        rule = "row for 1" if d["below"] == "first-row" else "D"
        sz_how = f"{d['die']} - 2 = {d['sz_roll']}, below the table: {rule} (option sz_roll_below_table, Ambiguity 35)"
    else:
        sz_how = f"{d['die']} - 2 = {d['sz_roll']}"
    sz = f"SZ {sz_how}: {d['sz_result']}" + (" — the SZ's snow stays (13.8)" if "SZ" in d["kept"] else "")
    lines = [f"- Weather GT{d['turn']}/{d['pts']}: die `{d['label']}` = {d['die']} on the GT{d['turn']} row (17.1{prov}): "
             f"{nz}; {sz} (13.2).",
             f"- Weather in force: NZ {WEATHER_TEXT[d['nz']]}, SZ {WEATHER_TEXT[d['sz']]}."]
    lines += [f"- {WEATHER_FLAG_TEXT[f]}" for f in d["new"]]
    return lines


def _fort_line(d: dict[str, Any]) -> str:
    prov = " (provisional SPAT value)" if d.get("provisional") else ""
    if d["state"] == "intact":
        return (f"- Fort line {d['line']} activates at the start of GT{d['turn']} (SPAT GT{d['spat_turn']}{prov}): "
                f"{', '.join(d['hexes'])} are intact forts (14.25, 17.3).")
    spat = ""
    if d.get("spat_turn") is not None:  # what the cancellation rests on: the line is not active yet
        spat = f" at the start of GT{d['spat_turn']} (SPAT{', provisional value' if d.get('provisional') else ''}, 17.3)"
    why = (f"with the {d['via']} line" if d.get("via")
           else f"a German unit entered {d['by']} by {d['how']} before the line's activation{spat}")
    return f"- Fort line {d['line']} is cancelled for good: {why}; its forts {', '.join(d['hexes'])} never complete (14.25)."


def works_lines(d: dict[str, Any]) -> list[str]:
    """For an attack on a fort or Stalin Line hex whose works give nothing: why (an intact work's
    effect is its shift, 14.27-14.28, or the defense rows' +1, 14.30)."""
    lines = []
    f = d.get("fort")
    if f and f["state"] != "intact":
        what = f"the {'heavy fort' if f['kind'] == 'heavy' else 'fort'} in {d['target']}" + (
            f" ({f['line']} line)" if f.get("line") else "")
        if f["state"] == "uncompleted":
            prov = ", provisional" if f.get("provisional") else ""
            when = f" until the start of GT{f['spat_turn']} (SPAT{prov}, 17.3)" if f.get("spat_turn") else ""
            lines.append(f"  - Works: {what} is uncompleted{when}: no combat effect before its line activates (14.25).")
        elif f["state"] == "cancelled":
            lines.append(f"  - Works: {what} was cancelled with its line: no combat effect (14.25).")
        else:
            lines.append(f"  - Works: {what} is destroyed: only its natural terrain counts (14.26).")
    if d.get("stalin") == "destroyed":
        lines.append(f"  - Works: the Stalin Line in {d['target']} is destroyed: no +1 to the Soviet defense factors "
                     "(14.30, Ambiguity 44).")
    return lines


FORT_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "fort-line": _fort_line,
    "fort-destroyed": lambda d: (f"- The {'heavy fort' if d['fort'] == 'heavy' else 'fort'} in {d['hex']} is destroyed, "
                                 f"entered by {d['how']}; only its natural terrain counts from now on (14.26, Ambiguity 42)."),
    "stalin-destroyed": lambda d: f"- The Stalin Line in {d['hex']} is destroyed, entered by {d['how']} (14.30, Ambiguity 44).",
    "hedgehogs": lambda d: (f"- Hedgehogs (14.40): {', '.join(d['hexes']) or 'none'}"
                            + (f"; declared {', '.join(d['declared'])}" if d["declared"] else "")
                            + (f"; cancelled {', '.join(d['cancelled'])}" if d["cancelled"] else "") + "."),
    "hedgehog-lost": lambda d: (f"- Hedgehog lost in {', '.join(d['hexes'])}: no German-nationality unit is left "
                                f"(after {d['how']}; Ambiguity 48)."),
    "arko-formed": lambda d: f"- The German forms {d['unit']} in {d['hex']} {d['place']} (14.41, MR phase of GT{d['turn']}).",
}


OKH_FROM = {"okh-north": "North OKH area", "okh-south": "South OKH area"}


def _tank_brigades(d: dict[str, Any]) -> list[str]:
    dice = " + ".join(f"`{lab}` = {f}" for lab, f in zip(d["labels"], d["faces"], strict=True))
    mods = "".join(f" {m['value']:+d} ({m['why']})" for m in d["modifiers"])
    got = f"{len(d['units'])} tank brigade(s) arrive: {', '.join(d['units'])}" if d["units"] else "no tank brigade arrives"
    return [f"- Tank brigades (8.9): 2d6 {dice}{mods} = {d['total']}: {got}; {d['left']} left in the group."]


def _soviet_replacements(d: dict[str, Any]) -> list[str]:
    where = f"{len(d['hexes'])} Military District hex(es) with a complete overland supply line ({', '.join(d['hexes'])})" \
        if d["hexes"] else "no Military District hex with a complete overland supply line"
    if d.get("moscow_once"):  # Ambiguity 20, option moscow_replacements = "once"
        where += (f", Moscow ({' and '.join(d['moscow_once'])}) counting once (option moscow_replacements = \"once\", "
                  "Ambiguity 20)")
    lines = [f"- Soviet replacements (8.13): {where} x {d['rate']} for GT{d['turn']} = {d['allowed']}; "
             f"{d['dead']} rifle division(s) in the dead pile."]
    for x in d["drawn"]:
        lines.append(f"  - Die `{x['label']}` (d{x['of']}) = {x['die']}: {x['unit']} (drawn blind, Ambiguity 20).")
    if d["units"]:
        lines.append(f"  - Back from the dead pile, untried and at full strength, to be placed: {', '.join(d['units'])} (8.13, 2.15).")
    return lines


def _placement(d: dict[str, Any]) -> list[str]:
    came = " from the RVGK" if d["came"] == ["rvgk"] else ""
    one = len(d["units"]) == 1
    if d["to"] == "rvgk":
        return [f"- {', '.join(d['units'])} {'goes' if one else 'go'} into the RVGK, the Supreme Command Reserve (8.1)."]
    if d["to"] == "ports-box":
        return [f"- {', '.join(d['units'])}{came} {'goes' if one else 'go'} into the Southern Ports Holding Box (11.3)."]
    how = f", next to the Military District city {d['md']} (8.7)" if d["md"] else " (8.7)"
    return [f"- {', '.join(d['units'])}{came} {'enters' if one else 'enter'} play in {d['to']}"
            f"{' ' + d['place'] if d['place'] else ''}{how}."]


MR_TEXT: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "mr-default": lambda d: ["- The Soviet sent no MR orders by the deadline: the default placement applies (each unit in the "
                             "first entry hex that takes it, else the RVGK; conversions with the first eligible unit; 8.7)."],
    "okh-arrival": lambda d: [f"- {d['unit']} arrives in the {OKH_FROM[d['area']]} ({'8.5' if d['area'] == 'okh-south' else '8.3'})."],
    "soviet-arrivals": lambda d: [f"- Soviet reinforcements for GT{d['turn']}, to be placed: {', '.join(d['units'])} (8.7)."],
    "tank-brigades": _tank_brigades,
    "soviet-replacements": _soviet_replacements,
    "conversions-due": lambda d: [f"- Guards conversions due on GT{d['turn']} (8.11): "
                                  + "; ".join(f"a {x['from']} unit into {x['guards']}" for x in d["due"]) + "."],
    "placement": _placement,
    "guards-conversion": lambda d: [f"- Guards conversion: {d['unit']} ({OFF_MAP_BOXES.get(d['hex'], 'in ' + d['hex'])}) is "
                                    f"replaced by {d['guards']} at full strength; {d['unit']} is out of play for good (8.11)."],
    "conversions-lost": lambda d: ["- Guards conversions not made, lost for good (8.11: they may not be postponed): "
                                   + "; ".join(f"{x['from']} into {x['guards']}" for x in d["lost"]) + "."],
    "divert": lambda d: ["- Diverted (8.3): " + ", ".join(f"{u} to the {OKH_FROM[a]}" for u, a in d["to"].items())
                         + f"; they may enter the map from GT{d['turn']} sequence {d['pts']} (one entire player-turn "
                           "sequence, Ambiguity 15)."],
}


def _units(rows: list[dict[str, Any]]) -> str:
    return ", ".join(f"{r['unit']} {r['factor']}" + (f" ({'; '.join(r['notes'])})" if r.get("notes") else "") for r in rows)


def supply_line(d: dict[str, Any], rule: str) -> str:
    """A supply check that changes factors (9.7-9.8, 15.4) or keeps them by air supply (9.18)."""
    if d["when"] == "move":
        mf = "; ".join(f"{u} MF {a} halved to {b}" for u, (a, b) in d["mf"].items())
        return (f"- Supply at the start of move {d['index'] + 1}: out of supply (no supply line, 9.4): {mf} for this "
                "movement phase (9.7, 9.8).")
    if d["when"] == "move-air":
        mf = "; ".join(f"{u} MF {a}" + (f" limited to {b} (mechanized)" if b < a else " in full") for u, (a, b) in d["mf"].items())
        return (f"- Supply at the start of move {d['index'] + 1}: air-supplied (no supply line, an air supply marker in "
                f"the hex): {mf} for this movement phase (9.8, 9.18).")
    parts = []
    if d["attackers"]:
        when = " at the start of their move (15.4)" if rule == "15.4" else ""
        parts.append(f"attackers {', '.join(d['attackers'])}{when}")
    if d["defenders"]:
        parts.append(f"defenders {', '.join(d['defenders'])}")
    what = f"mobile assault of move {d['index'] + 1}" if d["when"] == "mobile assault" else f"attack {d['index'] + 1}"
    texts = []
    if parts:
        texts.append(f"out of supply (no supply line, 9.4): {'; '.join(parts)}; their combat factors are added up and "
                     f"halved once, rounded up (9.7, {rule})")
    if d.get("air"):
        texts.append(f"air-supplied: {', '.join(d['air'])} keep their full combat factors (9.18)")
    return f"- Supply for {what}: {'; '.join(texts)}."


PAUSE_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "declared": lambda d: (f"- The German declares the von Paulus Pause at the end of GT{d['declared']} (9.19): from the "
                           f"end of the GT it covers {', '.join(d['sequences'])}, when German-side units may not attack, "
                           "by prepared or mobile assault."),
    "in-force": lambda d: (f"- The von Paulus Pause is in force for {', '.join(d['sequences'])}: no German-side unit may "
                           "attack, by prepared or mobile assault; Soviet operations are unaffected (9.19)."),
    "completed": lambda d: (f"- The von Paulus Pause is completed ({d['sequences'][0]} to {d['sequences'][-1]}): for the "
                            "rest of the game the German ignores the GAS line: no attenuated supply, no GAST (9.19, "
                            "Ambiguity 27)."),
    "cancelled": lambda d: (f"- The German cancels the von Paulus Pause declared at the end of GT{d['declared']}, at the "
                            f"start of {d['step']}: no benefit is gained, the GAS line applies (9.19)."),
}


def _concentration_line(d: dict[str, Any]) -> str:
    """9.20: supply concentration declared, reconfirmed, kept or cancelled."""
    if d["state"] == "cancelled":
        return "- Supply concentration is cancelled (9.20): every German-side unit may move and attack again."
    what = {"declared": "declared", "reconfirmed": "reconfirmed", "in-force": "stays in force (reconfirmed)"}[d["state"]]
    n = len(d["air_removed"])
    off = (f" The air supply marker{'s' if n > 1 else ''} in {', '.join(d['air_removed'])} "
           f"{'are' if n > 1 else 'is'} taken off." if n else "")
    air = ("no air supply in the German player turn, the markers supplying in the Soviet player turn only (option "
           "air_supply_concentration = \"german-turn\", Ambiguity 25)") if d.get("air") == "german-turn" else \
        "no air supply in this player-turn sequence (Ambiguity 25)"
    return (f"- Supply concentration {what} at the start of {d['step']} (9.20): {len(d['units'])} of the 18 markers, on "
            f"{', '.join(d['units'])}, free of every GAS-line effect; every other German-side unit may not attack and may "
            f"not move more than one hex; {air}.{off}")


def _air_line(d: dict[str, Any]) -> str:
    """9.18: the air supply markers placed, moved with their stacks, or taken off."""
    if not d["hexes"]:
        return "- The air supply markers are taken off the map (9.18)."
    on = "; ".join(f"{h} ({', '.join(d['units'][h])})" for h in d["hexes"])
    when = ("; supply is concentrated, so they supply nothing in this German player turn, only in the Soviet one "
            "(9.20; option air_supply_concentration = \"german-turn\", Ambiguity 25)") if d.get("concentration") else ""
    return (f"- Air supply markers placed at the start of {d['step']} on {on} (9.18): units there that cannot trace a "
            f"supply line are air-supplied: full combat factors, full MF (6 for mechanized units){when}.")


SUPPLY_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "concentration": _concentration_line,
    "air-supply": _air_line,
    "air-supply-moved": lambda d: (f"- The air supply marker of {d['origin']} goes with its stack to {d['to']} ({d['how']}; "
                                   "9.18)" + (", where the other marker already is: one marker supplies the hex"
                                              if d["merged"] else "") + "."),
    "air-supply-lost": lambda d: (f"- The air supply marker in {', '.join(d['hexes'])} is taken off: no German-side unit is "
                                  f"left in its hex (after {d['how']}; 9.18)."),
}


def steps_list(units: dict[str, int]) -> str:
    """Units with their steps, for a loss decision: "15TD (1 step), 3Pz (4 steps)" (14.35)."""
    return ", ".join(f"{u} ({s} step{'s' if s > 1 else ''})" for u, s in units.items())


def _arko_part(a: dict[str, Any]) -> str:
    """What the ArKo of an attack is, for its line: taking part (":"), or only supporting (Ambiguity 49)."""
    if a.get("supporting"):
        return " supports the attack without taking part in it: no factor, no loss, no advance (Ambiguity 49);"
    return ":"


def pool_runs(pool: list[str]) -> str:
    """The counters left in an untried pool, numbered from 1 as the die counts them, as runs of one
    value with its count and numbers: "1-1 ×1 (#1), 1-2 ×8 (#2-9), 2-3 ×1 (#10)" (2.15)."""
    runs: list[tuple[str, int, int]] = []
    for n, value in enumerate(pool, 1):
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1], n)
        else:
            runs.append((value, n, n))
    return ", ".join(f"{v} ×{b - a + 1} (#{a})" if a == b else f"{v} ×{b - a + 1} (#{a}-{b})" for v, a, b in runs)


# --- report lines: one renderer per event kind (EVENT_TEXT) -------------------------------------

def _no_orders(e: Event) -> list[str]:
    d = e.data
    return [f"- No {' or '.join(d['sides'])} submission for `{d['step']}` by the deadline: the referee adjudicates the step "
            "as if empty orders had been sent (no moves, no attacks; losses by the standing instructions in force, "
            "else fewest-steps-first)."]


def _overstack_removal(e: Event) -> list[str]:
    d = e.data
    how = d.get("source", "fewest steps first")
    by = f" by {d['by']}" if d.get("by") else ""
    return [f"- {d['hex']} is over the stacking limit at the end of the movement phase (a failed mobile assault "
            f"came back): {', '.join(d['units'])} eliminated, the fewest units that make it legal, chosen{by}: "
            f"{how} (6.2)."]


def _joined(e: Event) -> list[str]:
    return [f"- Joined: {', '.join(e.data['parties'])}, each with its key and first dice commitment."]


def _phase(e: Event) -> list[str]:
    d = e.data
    title = d["phase"].replace("-", " ")
    where = d.get("step") or (f"GT{d['turn']}" if "turn" in d else "")
    return ["", f"### {title.capitalize()} phase, {where} (rule {e.rule})", ""]


def _reinforcement(e: Event) -> list[str]:
    d = e.data
    if d["placed"]:
        return [f"- {d['unit']} arrives in {d['hex']} (8.1)."]
    return [f"- {d['unit']} cannot arrive in {d['hex']}: {d['why']} (8.1)."]


def _unseen(e: Event) -> list[str]:
    d = e.data
    return [f"- ({d['count']} event(s) of the {d['enemy']} side you do not see: fog of war, 14.7.)"]


def _move(e: Event) -> list[str]:
    d = e.data
    parts = []
    for u in d["units"]:
        spent, mf = d["mp"][u]
        parts.append(f"{u} {'+'.join(str(c) for c in d['costs'][u])} = {spent} of {mf} MP")
    extra = " Minimum move: one hex for all its MP (12.3)." if d["minimum"] else ""
    notes = f" ({'; '.join(d['notes'])})" if d["notes"] else ""
    start = OKH_FROM.get(d["from"], d["from"])
    entry = f" (enters the map from the {OFF_MAP_BOXES[d['from']][7:]}, 8.3)" if d["from"] in OKH_FROM else ""
    return [f"- Move {d['index'] + 1}: {', '.join(d['units'])} {' > '.join([start, *d['path']])}: {'; '.join(parts)} "
            f"(12.1, 17.9){notes}{entry}.{extra}"]


def _control(e: Event) -> list[str]:
    d = e.data
    sign = f"{d['vp_change']:+d}" if d["vp_change"] else "no"
    return [f"- Control: {d['place'] or d['hex']} ({d['hex']}) passes from {d['was']} to {d['now']} by {d['how']} (3.9); "
            f"{sign} VP (4.2), German VP now {d['vp']}."]


def _sudden_death(e: Event) -> list[str]:
    d = e.data
    if d["face"] is None:
        return ["- Moscow captured for the first time: the sudden-death die will be rolled on adjudication (4.6)."]
    verdict = "even: the Soviet system collapses, the German wins" if d["collapse"] else "odd: play continues"
    return [f"- Moscow sudden death (4.6): die `4.6|Moscow sudden death` = {d['face']}, {verdict}."]


def _reveal(e: Event) -> list[str]:
    d = e.data
    kind = f"{d['type']} {d['size']}, MF {d['mf']}"
    if d["die"] is None:
        how = f"the only counter of its kind left is {d['pool'][0]}"
    else:
        how = (f"die `{d['label']}` (d{len(d['pool'])}) = {d['die']} draws counter {d['die']} of the {len(d['pool'])} left "
               f"({pool_runs(d['pool'])})")
    fight = d.get("what") or f"attack {d['index'] + 1}"
    return [f"- {d['unit']} (untried {kind}) first fights, as {d['role']} in {fight}: {how}; "
            f"it is a {d['counter']} (2.15)."]


def _weather(e: Event) -> list[str]:
    return _weather_lines(e.data)


def _attack(e: Event) -> list[str]:
    d = e.data
    lines = [f"- **Attack {d['index'] + 1} on {d['target']}**" + (f" ({d['place']})" if d["place"] else "")
             + f", {d['settlement'].replace('_', ' ') or d['terrain']}:"]
    if "weather" in d:
        w = d["weather"]
        ignored = f"; {', '.join(w['ignored'])}" if w["ignored"] else ""
        lines.append(f"  - Weather in the defender's zone ({w['zone']}, Ambiguity 35): {WEATHER_TEXT[w['weather']]}{ignored}.")
    lines += works_lines(d)  # 14.25, 14.26, 14.30: works that have no effect, and why
    ground = d.get("ground_totals") or [d["attack_total"], d["defense_total"]]  # before ground support (10.2)
    lines.append(f"  - Attackers: {_units(d['attackers'])}; total {ground[0]} (14.8).")
    lines.append(f"  - Defenders: {_units(d['defenders'])}; total {ground[1]}.")
    lines += support_lines(d)  # 10.1 Flak, 10.2-10.4 ground support
    rule = "14.8" if d["attack_total"] >= d["defense_total"] else "14.9"
    lines.append(f"  - Odds {d['attack_total']}:{d['defense_total']} = {d['odds']} ({rule}).")
    for s in d["shifts"]:
        if s["rule"] != "17.10" or "gast" not in d:
            lines.append(f"  - Shift {s['label']}: {s['reason']} ({s['rule']}).")
    if "gast" in d:  # 9.6, 17.10: the last step before the CRT die
        g = d["gast"]
        prov = ", provisional table" if g["provisional"] else ""
        if "rolls" in g:  # option gast_rolls = "per-unit" (Ambiguity 28)
            dice = "; ".join(f"die `{r['label']}` = {r['die']}: {r['result']}" for r in g["rolls"])
            lines.append(f"  - GAST (17.10{prov}), one die per attacker in attenuated or air supply east of the GAS "
                         f"line ({', '.join(g['units'])}; 9.6, 9.18, Ambiguity 28): {dice}; in all {g['result']}"
                         + (" to the German odds" if g["result"] != "no effect" else "") + ".")
        else:
            lines.append(f"  - GAST (17.10{prov}): attackers in attenuated or air supply east of the GAS line "
                         f"({', '.join(g['units'])}; 9.6, 9.18): die `{g['label']}` = {g['die']}: {g['result']}"
                         + (" to the German odds" if g["result"] != "no effect" else "") + ".")
    if d["shifts"]:
        lines.append(f"  - Final odds {d['final']} (14.11, shifts on the actual odds 14.31).")
    if d["automatic"]:
        lines.append(f"  - Off the table: automatic result {d['result']}, no die (14.10).")
    else:
        prov = " — provisional CRT value" if d["provisional"] else ""
        lines.append(f"  - Die `{d['label']}` = {d['die']}: CRT {d['final']} gives {d['result']}{prov} (14.31, 17.7).")
    if d["city"] and d["city"].get("arko_first"):  # Ambiguity 41, option arko_order = "arko-first"
        c, a = d["city"], d["arko"]
        lines.append(f"  - ArKo ({', '.join(a['units'])}){_arko_part(a)} the defender's result {a['from']} becomes {a['to']} "
                     "before city doubling (14.41, Ambiguity 41, option arko_order).")
        lines.append(f"  - City: {c['from']} with the ArKo's +1 becomes {c['attacker']}/{c['defender']} "
                     f"({_doubling_why(c)}); outcome {d['outcome']}.")
        return lines
    if d["city"]:
        c = d["city"]
        lines.append(f"  - City: {c['from']} becomes {c['attacker']}/{'E' if c['defender'] is None else c['defender']} "
                     f"({_doubling_why(c)}).")
    if "arko" in d and d["arko"].get("idle"):
        lines.append(f"  - ArKo ({', '.join(d['arko']['units'])}) supports the attack without taking part in it (Ambiguity 49), "
                     "but adds nothing: only stacked with other attackers of a PA on a city, large town, fort or heavy "
                     "fort does it raise the defender's result (14.41).")
    elif "arko" in d:
        a = d["arko"]
        lines.append(f"  - ArKo ({', '.join(a['units'])}){_arko_part(a)} the defender's result {a['from']} becomes {a['to']} "
                     f"(14.41, after city doubling, Ambiguity 41); outcome {d['outcome']}.")
    return lines


def _doubling_why(c: dict[str, Any]) -> str:
    """What 14.23 did to the numbers of a result in a city: doubled, and a 0 raised to 1 or kept."""
    zero = c.get("zero")
    if zero == "raised":
        return "losses doubled, 0 becomes 1, 14.23"
    if zero == "kept-below-1:3":
        return "losses doubled; below 1:3 a 0 stays 0, 14.23"
    if zero == "kept-above-7:1":
        return ("losses doubled; the automatic 0 above 7:1 stays 0, 14.23, Ambiguity 41, "
                "option city_doubling_above_7_1")
    return "losses doubled, 14.23"


def _mobile_assault(e: Event) -> list[str]:
    """15.2-15.14: shaped like a prepared assault's attack event, with its own first line and rules."""
    d = e.data
    lines = _attack(e)
    rnd = f", round {d['round']} (15.6)" if d["round"] > 1 else ""
    lines[0] = (f"- **Mobile assault, move {d['index'] + 1}, from {d['launch']} into {d['target']}**"
                + (f" ({d['place']})" if d["place"] else "") + f", {d['settlement'].replace('_', ' ') or d['terrain']}{rnd} (15.2):")
    return [x.replace("(14.31, 17.7)", "(15.14, 14.31, 17.7)")
            .replace("east of the GAS line (", "east of the GAS line at the start of their move (")
            .replace("; 9.6, 9.18)", "; 15.4, 9.6, 9.18)")
            for x in lines]


def _assault_cavalry(e: Event) -> list[str]:
    what = ", ".join(f"{x['unit']} " + ("eliminated" if x["eliminated"] else "reduced to 1 step") for x in e.data["losses"])
    return [f"  - Soviet cavalry adding its attack factor: {what}, apart from the die loss (15.12)."]


def _assault_end(e: Event) -> list[str]:
    d = e.data
    mp = "; ".join(f"{u} {s} of {m} MP" for u, (s, m) in d["mp"].items())
    if d["cleared"]:
        return [f"  - {d['target']} is cleared: {', '.join(d['units'])} are in it and may go on moving ({mp}; 15.9)."]
    if not d["units"]:
        return ["  - The mobile assault fails and no assaulting unit is left (15.3)."]
    return [f"  - The mobile assault fails: {', '.join(d['units'])} go back to {d['launch']}, where their move ends ({mp}; 15.6)."]


def _move_cancelled(e: Event) -> list[str]:
    d = e.data
    return [f"- Move {d['index'] + 1} ({', '.join(d['units'])}) is not made: {d['why']} (orders after a mobile assault are "
            f"checked as if it cleared its hex; {e.rule})."]


def _attack_skipped(e: Event) -> list[str]:
    d = e.data
    return [f"- Attack {d['index'] + 1} on {d['target']} does not take place: {d['reason']} (14.5)."]


def _losses(e: Event) -> list[str]:
    d = e.data
    if not d["losses"]:
        return []
    what = ", ".join(f"{x['unit']} " + ("eliminated" if x["eliminated"] else f"loses {x['steps']} step" + ("s" if x["steps"] > 1 else ""))
                     for x in d["losses"])
    if d["owed"] is None:
        return [f"  - E: every defender is eliminated: {', '.join(x['unit'] for x in d['losses'])} (14.38)."]
    head = f"  - {d['role'].capitalize()} ({d['side']}) absorbs {d['owed']}: {what} — "
    decided = d.get("decided") or []
    if not decided:
        return [head + f"by {d['source']} (14.35, 2.16)."]
    why = "; ".join(f"{x['why']} ({x['rule']})" for x in decided)
    if len(decided) == 1 and decided[0].get("every"):
        return [head + why + "."]  # 14.36 alone: every unit goes, whoever chose the order
    return [head + f"{why}; otherwise by {d['source']} (2.16)."]


def _advance(e: Event) -> list[str]:
    d = e.data
    lines = []
    if d["units"]:
        lines.append(f"  - Advance after combat into {d['hex']}: {', '.join(d['units'])} (14.39).")
    for r in d["refused"]:
        lines.append(f"  - {r['unit']} does not advance: {r['why']}.")
    return lines


def _retreat(e: Event) -> list[str]:
    d = e.data
    if not d["retreated"]:
        why = d["why"] if d["why"].endswith(")") else f"{d['why']} ({e.rule})"
        shut = "".join(f"; {h}: {r}" for h, r in d.get("refused", {}).items()) if "no adjacent hex" in d["why"] else ""
        return [f"  - No German retreat from {d['hex']}: {why}{shut}."]
    dist = f"; supply distance {d['from_distance']} from {d['hex']}, {d['distances'][d['to']]} from {d['to']} (Ambiguity 45)"
    if d["none_closer"]:
        dist += "; no hex is closer, so any legal hex (Ambiguity 45)"
    verb = "retreats" if len(d["units"]) == 1 else "retreat"
    across = "".join(f"; across the {f.capitalize()} hexside, which snow opens to it (13.7, 12.16)" for f in d.get("straits", []))
    return [f"  - German retreat: {', '.join(d['units'])} {verb} from {d['hex']} into {d['to']} for 1 point of {d['result']} "
            f"(14.32, 14.33){dist}{across}; stacking respected (6.2)."]


def _retreat_caught(e: Event) -> list[str]:
    d = e.data
    verb = "is" if len(d["units"]) == 1 else "are"
    return [f"  - {', '.join(d['units'])} retreated into {d['hex']} this phase and {verb} eliminated; this does not count "
            "toward the result (14.34)."]


def _decision_needed(e: Event) -> list[str]:
    """A question the adjudication stops at: a German retreat (14.32) or step losses (14.35)."""
    d = e.data
    if d.get("kind") == "retreat":
        return [f"- **Decision needed from {d['side']}**: retreat in attack {d['attack'] + 1} into one of {', '.join(d['hexes'])} "
                f"for 1 point of {d['loss']}, or not; the standing instructions say ask (14.32). The adjudication stops here."]
    units = steps_list(d["units"])
    bound = "".join(f"; {b}" for b in loss_constraints_text(list(d["units"]), d.get("constraints", {})))
    return [f"- **Decision needed from {d['side']}**: {d['steps']} step loss(es) as {d['role']} in attack {d['attack'] + 1} "
            f"among {units}{bound}; the standing instructions do not decide it ({d['rule']}). The adjudication stops here."]


def _reply(e: Event) -> list[str]:
    """The answer to a question: a retreat hex or "no" (14.32), or the steps lost (14.35)."""
    d = e.data
    if d["question"].get("kind") == "retreat":
        ans = d["answer"][0]
        return [f"- {d['side'].capitalize()}'s reply: " + ("no retreat" if ans == "no" else f"retreat into {ans}")
                + f" in attack {d['question']['attack'] + 1} (14.32)."]
    return [f"- {d['side'].capitalize()}'s reply: losses {', '.join(d['answer'])} for attack {d['question']['attack'] + 1} (14.35)."]


def _victory_check(e: Event) -> list[str]:
    d = e.data
    lines = []
    if d["intruders"]:
        lines.append(f"- ZOMO incursion: {len(d['intruders'])} Soviet unit(s) in the Greater-German ZOMO ({', '.join(d['intruders'])}): "
                     f"-{len(d['intruders'])} VP (4.4).")
    prov = " (provisional table value)" if d["provisional"] else ""
    need = "no threshold" if d["threshold"] is None else f"{d['threshold']} needed{prov}"
    verdict = {"continue": "play continues", "german": "the German wins", "soviet": "the Soviet wins"}[d["outcome"]]
    if d.get("at") == "moscow":  # Ambiguity 7, option moscow_vp_victory = "at-capture"
        lines.append(f"- Immediate victory check on capturing Moscow, GT{d['turn']} (4.6 read as an immediate VP victory, "
                     f"Ambiguity 7, option moscow_vp_victory): German VP {d['vp']}, {need} (17.2): {verdict}.")
        return lines
    lines.append(f"- Victory check GT{d['turn']}: German VP {d['vp']}, {need} (4.5, 17.2): {verdict}.")
    return lines


def _game_over(e: Event) -> list[str]:
    d = e.data
    return ["", f"**Game over: the {d['winner']} wins** — {d['reason']} ({d['rule']})."]


def _awaits(e: Event) -> list[str]:
    d = e.data
    if d["kind"] == "none":
        return []
    return ["", f"Awaited next: {d['kind']} for step `{d['step']}` from {', '.join(d['from'])}; adjudicated by {d['adjudicator']}."]


def _lines(text: Callable[[dict[str, Any]], list[str]]) -> Callable[[Event], list[str]]:
    """A renderer from a table of texts by the event's data (MR_TEXT)."""
    return lambda e: text(e.data)


def _line(text: Callable[[dict[str, Any]], str]) -> Callable[[Event], list[str]]:
    """A renderer of one line from a table of texts by the event's data (FORT_TEXT, SUPPLY_TEXT, ...)."""
    return lambda e: [text(e.data)]


EventText = Callable[[Event], list[str]]


def _table(*parts: Mapping[str, EventText]) -> dict[str, EventText]:
    """The renderers of every part, each event kind given by one part only."""
    out: dict[str, EventText] = {}
    for part in parts:
        twice = sorted(set(out) & set(part))
        if twice:
            raise ValueError(f"event kinds rendered twice: {', '.join(twice)}")
        out.update(part)
    return out


# The report lines of each kind of event: the game's own, then the feature modules' tables.
EVENT_TEXT: dict[str, EventText] = _table(
    {
        "no-orders": _no_orders, "overstack-removal": _overstack_removal, "joined": _joined, "phase": _phase,
        "reinforcement": _reinforcement, "unseen": _unseen, "move": _move, "control": _control,
        "sudden-death": _sudden_death, "reveal": _reveal, "weather": _weather, "attack": _attack,
        "mobile-assault": _mobile_assault, "assault-cavalry": _assault_cavalry, "assault-end": _assault_end,
        "supply": lambda e: [supply_line(e.data, e.rule)], "pause": lambda e: [PAUSE_TEXT[e.data["state"]](e.data)],
        "move-cancelled": _move_cancelled, "attack-skipped": _attack_skipped, "losses": _losses, "advance": _advance,
        "retreat": _retreat, "retreat-caught": _retreat_caught, "decision-needed": _decision_needed, "reply": _reply,
        "victory-check": _victory_check, "game-over": _game_over, "awaits": _awaits,
    },
    {k: _lines(f) for k, f in MR_TEXT.items()},  # 8.1-8.13
    {k: _line(f) for k, f in FORT_TEXT.items()},  # 14.24-14.30, 14.40, 14.41
    {k: _line(f) for k, f in SUPPLY_TEXT.items()},  # 9.18, 9.20
    {k: _line(f) for k, f in rwr_text.EVENT_TEXT.items()},  # 8.12-8.21
    setup.EVENT_TEXT,  # 3.2-3.7
    naval.EVENT_TEXT,  # 11.1-11.4
    air.EVENT_TEXT,  # 10.1-10.4
)


def event_lines(e: Event) -> list[str]:
    """The report lines of an event: its kind's renderer (EVENT_TEXT); an unknown kind is shown as data."""
    text = EVENT_TEXT.get(e.kind)
    return text(e) if text is not None else [f"- {e.kind} ({e.rule}): {e.data}"]


# The supply markers a unit shows (option supply): out of supply (9.2-9.3), attenuated supply (9.3),
# air supply (9.18), lake supply (9.16), a supply concentration marker (9.20).
SUPPLY_TAGS = (("oos", "OOS"), ("attenuated", "AS"), ("air", "AIR"), ("lake", "LAKE"), ("concentration", "CONC"))
PAUSE_STATES = {"declared": "declared, in force from the end of GT{declared}: {first} to {last}",
                "in-force": "in force, {first} to {last}: no German-side attack",
                "completed": "completed ({first} to {last}): the German ignores the GAS line",
                "cancelled": "cancelled ({cancelled})"}


def supply_summary(pos: dict[str, Any]) -> list[str]:
    """The German's supply measures in force (9.18-9.20), one line each, for `pbem show` and templates."""
    lines = []
    if "pause" in pos:
        p = pos["pause"]
        lines.append(f"von Paulus Pause (9.19): {PAUSE_STATES[p['state']].format(**{'cancelled': '', **p})}")
    if "concentration" in pos:
        lines.append(f"Supply concentration (9.20): {len(pos['concentration'])} of 18 markers"
                     + (f": {', '.join(pos['concentration'])}" if pos["concentration"] else ""))
    if pos.get("air_supply"):
        lines.append(f"Air supply markers (9.18): {', '.join(pos['air_supply'])}")
    return lines


def position_text(sc: Scenario, state: dict[str, Any], side: str | None) -> str:
    pos = state["position"]
    clock = state["clock"]
    lines = [f"{sc.title} — GT{clock['turn']}, sequence {clock['pts']}, {clock['side'] or '-'} {clock['phase']}",
             f"German VP: {pos['vp']}"]
    if "weather" in pos:  # only with the weather rules (13.2)
        w = pos["weather"]
        gone = [t for f, t in (("refits_ended", "refits ended (13.9)"), ("highway_gone", "highway gone (13.10)")) if pos.get(f)]
        lines.append(f"Weather: NZ {WEATHER_TEXT[w['NZ']]}, SZ {WEATHER_TEXT[w['SZ']]}" + (f"; {', '.join(gone)}" if gone else ""))
    if "forts" in pos:  # only with the option fortifications (14.24-14.30)
        states = sorted({*pos["forts"].values(), *(f"Stalin Line {v}" for v in pos.get("stalin", {}).values())})
        lines.append("Forts: " + "; ".join(
            f"{st}: " + ", ".join(sorted([h for h, v in pos["forts"].items() if v == st]
                                         + [h for h, v in pos.get("stalin", {}).items() if f"Stalin Line {v}" == st]))
            for st in states))
    if pos.get("hedgehogs"):
        lines.append(f"German hedgehogs (14.40): {', '.join(pos['hedgehogs'])}")
    lines += supply_summary(pos)
    lines += rwr_text.position_lines(sc, state)  # 8.15, 8.20, 8.21
    lines += air_position_lines(sc, state)  # 10.2, 10.4
    if state.get("result"):
        r = state["result"]
        lines.append(f"Game over: the {r['winner']} wins ({r['rule']}): {r['reason']}")
    for s in ("german", "soviet"):
        stacks: dict[str, list[str]] = {}
        off: dict[str, list[str]] = {}
        for u, st in sorted(pos["units"].items()):
            if sc.units[u].side != s:
                continue
            spec = sc.units[u]
            if st["at"] in OFF_MAP_BOXES:
                due = pos.get("arrivals", {}).get(u)  # 3.5: the Turn Record Track box of a unit a set-up left off
                off.setdefault(st["at"], []).append(f"{u} (GT{due})" if due else u)
                continue
            shown = shown_values(spec, st, state["options"])
            tags = "".join(f" {tag}" for key, tag in SUPPLY_TAGS if u in pos.get(key, ()))  # 9.x (option supply)
            stacks.setdefault(st["at"], []).append(f"{u} {shown}" + (f" [{st['steps']}/{spec.steps}]" if spec.steps > 1 else "") + tags)
        hidden = {h: n for h, n in pos.get("hidden", {}).items() if h in stacks}
        lines.append("")
        more = f", {sum(hidden.values())} more under them (14.7)" if hidden else ""
        lines.append(f"{s.capitalize()} units ({sum(len(v) for v in stacks.values())} on the map{more}):")
        for h in sorted(stacks):
            place = sc.map.hexes[h].place
            extra = f" + {hidden[h]} unseen" if h in hidden else ""
            lines.append(f"  {h}{' ' + place if place else ''}: {', '.join(stacks[h])}{extra}")
        for where, us in sorted(off.items()):
            shown_off = naval.box_text(state, us) if where == naval.BOX else ", ".join(us)  # 11.3: when they entered
            lines.append(f"  {OFF_MAP_BOXES[where]}: {shown_off}")
        if s == "soviet" and "rvgk" in pos.get("hidden", {}):
            lines.append(f"  in the RVGK: {pos['hidden']['rvgk']} unit(s), unseen (8.1)")
    held = [h for h, c in sorted(pos["control"].items()) if c == "german" and sc.map.hexes[h].country != "germany"]
    lines.append("")
    lines.append("German-controlled towns and cities: " + (", ".join(f"{h} {sc.map.hexes[h].place}" for h in held) or "none"))
    return "\n".join(lines) + "\n"


def template(state: dict[str, Any], side: str, context: Callable[[str], Ctx], header: list[str]) -> str:
    """A skeleton order file for the awaited step, with the side's units listed as comments;
    ``context(side)`` gives a fresh working context on ``state`` as that side, without dice;
    ``header`` is the file's envelope, as the core writes it."""
    aw = state["awaits"]
    sc = load_scenario(str(state["pbem"]["scenario"]))
    head = ["# Order file skeleton written by `pbem template`. Edit, then `pbem check` and `pbem sign`.", *header]
    if aw["kind"] == "reply":
        q = state["pending"]["question"] if "pending" in state else state["question"]
        if q.get("kind") == "retreat":
            head += [f"# Decision: retreat in attack {q['attack'] + 1} into one of {', '.join(q['hexes'])} for 1 point of "
                     f"{q['loss']} (14.32), or \"no\" to take it as a step loss.",
                     "[reply]", f'retreat = "{q["hexes"][0]}"', ""]
            return "\n".join(head)
        among = steps_list(q["units"])
        bound = loss_constraints_text(list(q["units"]), q.get("constraints", {}))
        head += [f"# Decision: {q['steps']} step loss(es) as {q['role']} in attack {q['attack'] + 1}, among {among} ({q['rule']}).",
                 *(f"# The rules: {b}." for b in bound),
                 "# One unit id per step lost; repeat an id to take a second step from it.",
                 "[reply]", "losses = []", ""]
        return "\n".join(head)
    if setup.in_setup(state):  # 3.2-3.7: what to set up, where, and the minimums to meet
        return setup.template(context(side), head)
    if int(state["clock"]["pts"]) == 0:  # the Soviet's Mutual Reinforcement step (8.1, 8.7, 8.11)
        return "\n".join(head + mr_template(context("soviet")))
    stacks: dict[str, dict[str, list[str]]] = {"own": {}, "enemy": {}}
    for u, s in sorted(state["position"]["units"].items()):
        if s["at"] in OFF_MAP_BOXES:
            continue
        spec = sc.units[u]
        label = f"{u} {shown_values(spec, s, state['options'])}" + (f" ({s['steps']} steps)" if spec.steps > 1 else "")
        stacks["own" if spec.side == side else "enemy"].setdefault(s["at"], []).append(label)
    if "weather" in state["position"]:  # only with the weather rules (13.2)
        w = state["position"]["weather"]
        head.append(f"# Weather: NZ {WEATHER_TEXT[w['NZ']]}, SZ {WEATHER_TEXT[w['SZ']]}.")
    head += [f"# {line}." for line in supply_summary(state["position"])]
    head.append("# Your stacks (hex: unit attack-defense-movement):")
    for h, us in sorted(stacks["own"].items()):
        place = sc.map.hexes[h].place
        head.append(f"#   {h}{' ' + place if place else ''}: {', '.join(us)}")
    near = sorted({n for h in stacks["own"] for n in sc.map.neighbours(h) if n in stacks["enemy"]})
    if near:
        head.append("# Enemy stacks next to yours:")
        for h in near:
            place = sc.map.hexes[h].place
            head.append(f"#   {h}{' ' + place if place else ''}: {', '.join(stacks['enemy'][h])}")
    head += template_lines(sc, state, side)  # 10.2, 10.4: the Ground Support Commitment phase
    head += off_map_template(context(side), side)
    head += naval.template_lines(sc, state, side)  # 11.1-11.4: the ports, the Box, the [[sea]] keys
    head += ["", *rwr_text.template_lines(context(side))]  # 8.13-8.21
    head += order_skeleton(state["options"], side)
    return "\n".join(head)


def order_skeleton(options: Mapping[str, Any], side: str) -> list[str]:
    """The commented keys of a player turn's orders: only those the game's rules (its options) give
    to ``side``, so that a basic game's template shows no full-game key and the Soviet's no German one."""
    german = side == "german"
    ma, supply, gs = bool(options.get("mobile_assault")), bool(options.get("supply")), bool(options.get("ground_support"))
    out = ["# Movement phase (12.x): one [[move]] per unit or stack, in order; path = every hex entered.",
           "# [[move]]", '# units = ["UNIT"]', '# path = ["HEX", "HEX"]']
    if ma:
        out += ['# assault = "HEX"              # mobile assault (15.2): the last hex of path',
                '# losses = ["UNIT"]            # the MA attacker\'s step losses, first to last (14.35)']
    if supply and german:
        out.append("# air_supply = true            # this part of an air-supplied stack takes the marker (9.18)")
    if gs:
        out.append('# support = ["AIR"]            # this part of a split stack takes its air unit (10.2)')
    out += ["", "# Prepared assaults (14.x), resolved in this order.", "# [[attack]]", '# target = "HEX"',
            '# units = ["UNIT", "UNIT"]', '# losses = ["UNIT"]            # one id per step lost, first to last (14.35)',
            '# advance = ["UNIT"]           # advance if the hex is emptied (14.39)',
            '# if_cleared = ["HEX"]         # made only if these hexes hold no enemy unit by then (14.5)', ""]
    declare = []
    if german and options.get("hedgehogs"):
        declare.append('# hedgehog = ["HEX"]            # GT12 hedgehogs (14.40)')
    if german and options.get("arko"):
        declare.append('# form_arko = "HEX"             # the ArKo (14.41)')
    if german and supply:
        declare += ['# concentration = ["UNIT"]     # 9.20: declare or reconfirm supply concentration, up to 18 units; [] cancels',
                    '# air_supply = ["HEX", "HEX"]  # 9.18: the 2 air supply markers, one per German-side stack; [] takes them off',
                    "# pause = true                 # 9.19: the von Paulus Pause, in the orders of GT2/2 or GT3/2 (or GT3/1, GT4/1);"
                    " false cancels it"]
    if declare:
        out += ["# Declarations made before the first move:", "# [declare]", *declare, ""]
    out += ["# Standing instructions for decisions during the opponent's turn, committed before his dice.",
            "[standing]", 'loss_policy = "fewest-steps-first"   # fewest-steps-first | most-steps-first | ask', "loss_order = []"]
    if ma:
        out.append('# overstack_removal = ["UNIT"]  # 6.2: enemy units you remove first when a failed mobile assault over-stacks his hex')
    return [*out, ""]


def off_map_template(ctx: Ctx, side: str) -> list[str]:
    """Template lines for units off the map that the player turn may bring in: the German's units
    in the OKH areas (8.2, 8.3), the Soviet's in the RVGK (8.1)."""
    out: list[str] = []
    if side == "german":
        okh = okh_text(ctx)
        if okh:
            out += ["# In the OKH reserve areas (8.2): a [[move]] of them starts with an entry hex, paying its cost (8.3);",
                    "# [declare] divert = [\"UNIT\"] sends units to the other area, for one player-turn sequence (8.3).", *okh]
    else:
        rvgk = sorted(u for u, s in ctx.units.items() if s["at"] == "rvgk")
        if rvgk:
            entries = entry_hexes(ctx)
            near = open_md_neighbours(ctx)
            out += [f"# In the RVGK (8.1): {', '.join(rvgk)}. They may enter play now, before movement:",
                    "# [[place]]", '# units = ["UNIT"]', '# hex = "HEX"',
                    f"# Entry hexes (8.7): {', '.join(entries) or 'none'}" + (f"; next to a Military District city: "
                                                                             f"{', '.join(near)}" if near else "")]
    return out


def mr_template(ctx: Ctx) -> list[str]:
    """The Soviet's MR orders skeleton (8.1, 8.7, 8.11): what is due and where units may go, then
    the orders pbem proposes (reinforce.default_mr_orders), ready to edit; ``ctx`` is the Soviet's."""
    mr = mr_state(ctx)
    out = [f"# Mutual Reinforcement phase of GT{ctx.turn} (8.1): conversions first, then place every unit that arrived."]
    for d in mr.get("convert", []):
        ok = eligible(ctx, d["from"])
        out.append(f"# Guards conversion due (8.11): a {d['from']} unit into {d['guards']}; eligible now: {', '.join(ok) or 'none'}"
                   " (tried units first; a conversion not made now is lost).")
    if mr.get("place"):
        entries = entry_hexes(ctx)
        near = open_md_neighbours(ctx)
        out += [f"# To place: {', '.join(f'{u} ({ctx.spec(u).type} {ctx.spec(u).size})' for u in mr['place'])}.",
                f"# Entry hexes (8.7): {', '.join(entries) or 'none'}"
                + (f"; next to a Military District city: {', '.join(near)}" if near else "") + ".",
                '# Or hex = "rvgk" (at most 10 units there, 8.1)' + (', or "ports-box" (11.3)' if ctx.options.get("naval") else "")
                + ". One stack per hex per GT, stacking observed (8.7)."]
    out += ["# Proposed (edit freely):", ""]
    orders = default_mr_orders(ctx)
    for c in orders.get("convert", []):
        out += ["[[convert]]", f'unit = "{c["unit"]}"', f'guards = "{c["guards"]}"', ""]
    for p in orders["place"]:
        out += ["[[place]]", "units = [" + ", ".join(f'"{u}"' for u in p["units"]) + "]", f'hex = "{p["hex"]}"', ""]
    return out
