"""Set-up before GT1 (3.2-3.8, digest A.2 and F.1).

The rules a set-up must meet, usable for a scenario's fixed set-up (``scenario_problems``, part of
``validation.validate_scenario`` and so of `pbem module check`) and for the players' set-up orders:

* 3.3 Frontier Zone (column 22 and west): a unit in every border hex from 2006N to 1703S; along
  1804S-2114S the option south_border_setup (Ambiguity 4); a unit in each FZ large town;
* 3.4 Interior Zone (column 23 and east): an IZ unit in every city and large town, 4 units in every
  hex column, its North and South hexes together (Ambiguity 5; option iz_columns);
* 3.7 German: the Hungarian Fast Corps alone in Hungary, Romanian units in Romania or the South OKH
  area, at most 7 German non-mechanized divisions and 1 assault-gun battalion there, every other
  unit in the Greater-German ZOMO or the North OKH area (8.4: units held back wait there);
* 3.8 Soviet starting units have 1 step; stacking 6.1-6.5 and 7.1-7.3 (``rules.stacking.stack_problems``).

Border hexes are the USSR hexes on a ``border`` hexside, ordered along the border line
(``border_lines``). A map that lacks the hexes a minimum concerns (a training or test map) is
checked where it has them; ``minimums`` says what it could not check, and a scenario may declare
the minimums its map cannot meet (``unmet_minimums``).

With ``setup_by = "players"`` (or one side) in the scenario, the players set up by orders after
the joins: the Soviet first (step ``setup/soviet``: his units of each SUT kind for the Frontier and
Interior Zones, 3.2-3.4; the units not set up go to the Turn Record Track by the SUT's schedule,
3.5, and arrive in the MR phase like other Soviet reinforcements without a fixed hex), then the
German (``setup/german``, 3.6-3.7), each order file checked with every problem at once; then GT1
begins (``ProudMonster.begin``). ``proposal`` gives each side a set-up for the template and the
built-in player: the Soviet's meets every minimum the SUT's units allow, the German's spreads his
units over the ZOMO by 3.7. A referee's `--no-orders` uses ``missing_orders``: the Soviet's
proposal, or every German unit held back in its OKH area.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import Place, Problem
from pbem.mechanics.hexgrid import distance, hexside_lines

from .data import (
    COUNTRY_NAMES,
    FRONTIER_LAST_COLUMN,
    OKH_AREAS,
    SOUTH_OKH_NATIONS,
    MapData,
    Scenario,
    UnitSpec,
    shown_values,
    sut_type,
)
from .options import game_options
from .orders import Orders
from .rules.allies import entry_problems
from .rules.arko import ARKO_TYPE
from .rules.context import OFF_MAP_BOXES, Ctx
from .rules.places import path_of, problem, under
from .rules.stacking import stack_problems
from .sequence import SETUP_SIDES, setup_step

ALL_OCCUPIED = ("2006N", "1703S")  # 3.3: a unit in every border hex of this stretch
ALTERNATE = ("1804S", "2114S")  # 3.3, Ambiguity 4: the garbled rule for this stretch
IZ_COLUMN_UNITS = 4  # 3.4: units in every hex column of the Interior Zone
LAST_COLUMN = 60  # 9.10, D.1: the east edge of the published maps
SOUTH_LIMITS = {"division": 7, "assault gun": 1}  # 3.7(3): in Romania and the South OKH area
SOUTH_NAMES = {"division": "German non-mechanized divisions", "assault gun": "assault-gun battalions"}
ZONE_NAMES = {"FZ": "Frontier Zone", "IZ": "Interior Zone"}
BOX_NAMES = {"okh-north": "the North OKH reserve area", "okh-south": "the South OKH reserve area"}
# Where a set-up problem is: the place in the orders (or the scenario's [[setup]] list), and a note
# that follows its path in the ``where`` text ("setup (column 23)", "setup[3] 6RD 1919N").
Where = tuple[Place, str]
OTHER_KEYS = ("move", "attack", "declare", "reply")  # order tables that have no place in a set-up step


# --------------------------------------------------------------------------- the border (3.3)


def border_lines(m: MapData) -> list[list[str]]:
    """The border hexes (USSR hexes on a `border` hexside, 12.18) in order along each line of the
    border the map has: its hexsides joined corner to corner (``hexside_lines``), each hexside's USSR
    hex taken once, in the order the line passes it."""
    n = m.numbering
    sides = []
    for key, feats in m.hexsides.items():
        a, b = key.split("-")
        if "border" in feats and (m.hexes[a].country == "ussr") != (m.hexes[b].country == "ussr"):
            sides.append((n.parse(a), n.parse(b)))
    out = []
    for line in hexside_lines(sides):
        hexes: list[str] = []
        for x, y in line:
            ids = [n.format(x), n.format(y)]
            ussr = next(h for h in ids if m.hexes[h].country == "ussr")
            if ussr not in hexes:
                hexes.append(ussr)
        out.append(hexes)
    return out


def stretch(m: MapData, lines: list[list[str]], first: str, last: str) -> tuple[list[str], str]:
    """The border hexes from ``first`` to ``last`` along the border, and a note when the map has
    only part of the stretch. A line with both ends: the hexes between them. A line with one of
    them: from it toward the end of the line nearer the other (the map's border stops there). Neither
    on the map: none (the note says so)."""
    n = m.numbering

    def toward(line: list[str], i: int, goal: str) -> list[str]:
        g = n.parse(goal)
        back = distance(n.parse(line[0]), g) < distance(n.parse(line[-1]), g)
        return line[i::-1] if back else line[i:]

    lf = next((ln for ln in lines if first in ln), None)
    ll = next((ln for ln in lines if last in ln), None)
    if lf is not None and lf is ll:
        i, j = lf.index(first), lf.index(last)
        return (lf[i:j + 1] if i <= j else lf[j:i + 1][::-1]), ""
    head = toward(lf, lf.index(first), last) if lf else []
    tail = toward(ll, ll.index(last), first)[::-1] if ll else []
    if not head and not tail:
        return [], f"{first}-{last}: the map has neither end of this stretch of the border; not checked"
    parts = [f"from {a} to {b}" if a != b else f"at {a}" for a, b in ((first, head[-1] if head else ""),
                                                                         (tail[0] if tail else "", last)) if a and b]
    missing = " and ".join(x for x, line in ((first, lf), (last, ll)) if line is None)
    gap = f"the map does not have {missing}" if missing else "the map's border breaks off between them"
    return head + tail, f"{first}-{last}: {gap}; checked {' and '.join(parts)}, where its border ends"


# --------------------------------------------------------------------------- minimums (3.3, 3.4)


@dataclass(frozen=True, slots=True)
class Minimum:
    """One set-up minimum: the Soviet units in ``hexes`` together number at least ``need``;
    ``place`` names it (its first hex, or "column NN")."""

    rule: str
    what: str
    hexes: tuple[str, ...]
    need: int = 1
    place: str = ""

    def count(self, at: Mapping[str, int]) -> int:
        return sum(at.get(h, 0) for h in self.hexes)


def column(m: MapData, hex_id: str) -> int:
    return m.numbering.parse(hex_id).col


def zone(m: MapData, hex_id: str) -> str:
    """3.3, 3.4: the Frontier Zone is column 22 and every column west of it, the Interior Zone column
    23 and east, on both maps."""
    return "FZ" if column(m, hex_id) <= FRONTIER_LAST_COLUMN else "IZ"


def minimums(sc: Scenario, options: Mapping[str, Any]) -> tuple[list[Minimum], list[str]]:
    """Every 3.3 and 3.4 minimum of the scenario's map, and notes on what the map lacks to check the
    rest (each note starts with its rule)."""
    m = sc.map
    lines = border_lines(m)
    out: list[Minimum] = []
    notes: list[str] = []
    a, note = stretch(m, lines, *ALL_OCCUPIED)
    out += [Minimum("3.3", f"border hex {h} (2006N-1703S)", (h,), place=h) for h in a]
    notes += [f"3.3 border {note}"] if note else []
    b, note = stretch(m, lines, *ALTERNATE)
    if options.get("south_border_setup", "alternate") == "every":
        out += [Minimum("3.3", f"border hex {h} (1804S-2114S, every hex: option south_border_setup, Ambiguity 4)", (h,),
                        place=h) for h in b]
    else:
        out += [Minimum("3.3", f"border hexes {x} and {y} (1804S-2114S): not both empty (option south_border_setup, "
                               "Ambiguity 4)", (x, y), place=x) for x, y in zip(b, b[1:], strict=False)]
    notes += [f"3.3 border {note}"] if note else []
    land = sorted((h for h in m.hexes.values() if h.country == "ussr" and not h.water), key=lambda h: h.id)
    large = [h for h in land if h.settlement == "large_town" and zone(m, h.id) == "FZ"]
    out += [Minimum("3.3", f"Frontier Zone large town {h.id} {h.place}", (h.id,), place=h.id) for h in large]
    if len(large) < 3:
        notes.append(f"3.3 the map has {len(large)} of the 3 large towns of the Frontier Zone")
    towns = [h for h in land if h.settlement in ("city", "large_town") and zone(m, h.id) == "IZ"]
    out += [Minimum("3.4", f"Interior Zone {h.settlement.replace('_', ' ')} {h.id} {h.place}", (h.id,), place=h.id)
            for h in towns]
    out += column_minimums(m, [h.id for h in land if zone(m, h.id) == "IZ"], options)
    cols = {column(m, h.id) for h in land if zone(m, h.id) == "IZ"}
    if cols and max(cols) < LAST_COLUMN:
        notes.append(f"3.4 the map's Interior Zone ends at column {max(cols):02d} (the rulebook's runs to {LAST_COLUMN}); "
                     "the columns it has are checked")
    return out, notes


def column_minimums(m: MapData, iz: list[str], options: Mapping[str, Any]) -> list[Minimum]:
    """3.4: 4 units in every hex column of the Interior Zone (``iz``: its land hexes). Ambiguity 5
    (option iz_columns): "both-maps", the digest's reading, counts a column's North and South hexes
    together (the 42xxN/S example runs from Leningrad on the North map to Kharkov on the South one);
    "each-map" asks 4 units in each map's part of a column (42xxN and 42xxS apart)."""
    per_map = options.get("iz_columns", "both-maps") == "each-map"
    cols: dict[tuple[int, str], list[str]] = {}
    for h in iz:
        cols.setdefault((column(m, h), h[-1] if per_map else ""), []).append(h)
    how = "its hexes on this map only: option iz_columns = \"each-map\", Ambiguity 5" if per_map else \
        "its North and South hexes together, Ambiguity 5"
    return [Minimum("3.4", f"Interior Zone column {c:02d}{half} ({how})", tuple(hs), IZ_COLUMN_UNITS,
                    f"column {c:02d}{half}") for (c, half), hs in sorted(cols.items())]


def minimum_problems(sc: Scenario, options: Mapping[str, Any], soviet_at: Mapping[str, int],
                     where: Callable[[str], Where]) -> list[Problem]:
    """The 3.3 and 3.4 minimums that ``soviet_at`` (Soviet units per hex) leaves unmet, but those of
    the rules the scenario declares its map cannot meet (unmet_minimums); ``where`` names a
    minimum's place (a hex, or "column NN") in the input."""
    problems = []
    for mn in minimums(sc, options)[0]:
        n = mn.count(soviet_at)
        if n < mn.need and mn.rule not in sc.unmet_minimums:
            place, note = where(mn.place)
            problems.append(problem(place, f"{mn.what}: {n} unit{'s' if n != 1 else ''}, {mn.need} or more "
                                           "needed", mn.rule, "Set up more Soviet units there.", note=note))
    return problems


def minimum_summary(sc: Scenario, options: Mapping[str, Any], soviet_at: Mapping[str, int]) -> list[dict[str, Any]]:
    """For the report: per rule (3.3, 3.4) how many minimums are met, which are not, and whether the
    scenario declares that rule's minimums unmet."""
    rows: dict[str, dict[str, Any]] = {}
    for mn in minimums(sc, options)[0]:
        r = rows.setdefault(mn.rule, {"rule": mn.rule, "met": 0, "unmet": [], "declared": mn.rule in sc.unmet_minimums})
        if mn.count(soviet_at) >= mn.need:
            r["met"] += 1
        else:
            r["unmet"].append(mn.what)
    return [rows[k] for k in sorted(rows)]


# --------------------------------------------------------------------------- placements


@dataclass(frozen=True, slots=True)
class Placement:
    """A unit set up in a hex or an OKH area; ``where`` names it in the input (the place, and a note
    after its path in the ``where`` text)."""

    unit: str
    at: str
    where: Where


def _water_rule(terrain: str) -> str:
    return "12.14" if terrain == "sea" else "13.7"


def south_kind(spec: UnitSpec) -> str:
    """3.7(3): the German units that may start in Romania and the South OKH area besides the
    Romanians: non-mechanized divisions ("division") and assault-gun battalions ("assault gun")."""
    if spec.side != "german" or spec.nat != "german":
        return ""
    if not spec.mechanized and spec.size == "XX" and spec.type != ARKO_TYPE:
        return "division"
    if spec.type == "assault-gun" and spec.size == "II":
        return "assault gun"
    return ""


def soviet_placement(ctx: Ctx, unit: str, at: str) -> list[tuple[str, str]]:
    """Where a Soviet starting unit may set up (as (rule, text) problems): on a land hex of the USSR
    (3.3, 3.4), never in an OKH area (8.4); 3.8: Soviet starting units have 1 step (the Guards come
    later, 8.11)."""
    spec = ctx.spec(unit)
    if at in OKH_AREAS:
        return [("8.4", "only German-side units wait in an OKH reserve area")]
    h = ctx.sc.map.hexes[at]
    if h.water:
        return [(_water_rule(h.terrain), f"no unit sets up on an all-{h.terrain} hex")]
    out = []
    if h.country != "ussr":
        out.append(("3.3, 3.4", f"Soviet units set up in the USSR, not in {COUNTRY_NAMES[h.country]}"))
    if spec.steps != 1 and spec.guards:
        out.append(("3.8", "Soviet starting units have 1 step; the Guards are reinforcements"))
    return out


def german_placement(ctx: Ctx, unit: str, at: str) -> list[tuple[str, str]]:
    """3.7: where a German-side starting unit may set up (as (rule, text) problems). Hungary: only the
    Hungarian Fast Corps (1). Romania: Romanian units (2), and German non-mechanized divisions and
    assault-gun battalions (3, counted by ``south_problems``). Every other unit in the Greater-German
    ZOMO or held back in the North OKH area (4; 8.4); Italian, Romanian and Hungarian units held back
    use the South one (8.5), as may the units of (3). Only ZOMO hexes (the strip west of the
    border). With the option axis_allies, the 7.2-7.4 and 8.5 limits on where allies may be."""
    spec = ctx.spec(unit)
    south = south_kind(spec)
    if at == "okh-north":
        if spec.nat == "romanian":
            return [("3.7", "Romanian units start in Romania or the South OKH area")]
        if spec.nat in SOUTH_OKH_NATIONS:
            return [("8.5", "Italian, Romanian and Hungarian units use the South OKH area, not the North one")]
        return []
    if at == "okh-south":
        if spec.nat in SOUTH_OKH_NATIONS or south:
            return []
        return [("3.7", "only Romanian, Hungarian and Italian units, German non-mechanized divisions and assault-gun "
                        "battalions start in the South OKH area; hold this unit back in the North one (okh-north, 8.4)")]
    h = ctx.sc.map.hexes[at]
    if h.water:
        return [(_water_rule(h.terrain), f"no unit sets up on an all-{h.terrain} hex")]
    if not h.zomo:
        return [("3.7", f"German-side units set up in a ZOMO hex, the strip west of the Soviet border; {at} is in "
                        f"{COUNTRY_NAMES[h.country]} but not in the ZOMO")]
    out = []
    if h.country == "hungary" and spec.nat != "hungarian":
        out.append(("3.7", "only the Hungarian Fast Corps sets up in Hungary"))
    elif h.country == "romania" and spec.nat != "romanian" and not south:
        out.append(("3.7", "in Romania only Romanian units, German non-mechanized divisions and assault-gun battalions "
                           "set up"))
    elif h.country == "germany" and spec.nat == "romanian":
        out.append(("3.7", "Romanian units start in Romania or the South OKH area"))
    if ctx.options.get("axis_allies", False):
        out += [(rule, text.replace("may not move onto", "may not set up on"))
                for rule, text in entry_problems(ctx, unit, at) if rule != "8.5" or not out]
    return out


def south_problems(ctx: Ctx, placements: Iterable[Placement], where: Place) -> list[Problem]:
    """3.7(3): at most 7 German non-mechanized divisions and 1 assault-gun battalion start in Romania
    and the South OKH area (fewer is allowed)."""
    found: dict[str, list[str]] = {}
    for p in placements:
        kind = south_kind(ctx.spec(p.unit))
        if kind and (p.at == "okh-south" or (p.at in ctx.sc.map.hexes and ctx.sc.map.hexes[p.at].country == "romania")):
            found.setdefault(kind, []).append(p.unit)
    return [problem(where, f"{len(us)} {SOUTH_NAMES[k]} in Romania and the South OKH area ({', '.join(sorted(us))}); "
                           f"at most {SOUTH_LIMITS[k]}", "3.7", "Set the others up in the Greater-German ZOMO or "
                                                                  "hold them back in the North OKH area (okh-north).")
            for k, us in sorted(found.items()) if len(us) > SOUTH_LIMITS[k]]


def stacking_problems(ctx: Ctx, placements: Iterable[Placement], where: Callable[[str], Where]) -> list[Problem]:
    """3.3, 3.7(5): set-up within normal stacking, each side's units per hex (6.1-6.5, 7.1-7.3). The
    OKH areas have no hexes and no stacking limit."""
    stacks: dict[tuple[str, str], list[str]] = {}
    for p in placements:
        if p.at in ctx.sc.map.hexes and not ctx.sc.map.hexes[p.at].water:
            stacks.setdefault((p.at, ctx.spec(p.unit).side), []).append(p.unit)
    return [problem(place, f"{h} would hold {text}", rule, "Set some of its units up elsewhere.", note=note)
            for (h, _), units in sorted(stacks.items()) for place, note in [where(h)]
            for rule, text in stack_problems(ctx, h, units)]


def scenario_options(sc: Scenario) -> dict[str, Any]:
    """The options a new game of the scenario has unless `pbem new --option` changes them."""
    ruleset = sc.options.get("ruleset", sc.ruleset)
    return game_options(ruleset, sc.options)


def _ctx(sc: Scenario, options: dict[str, Any], side: str = "german") -> Ctx:
    return Ctx(sc=sc, options=options, position={"units": {}, "control": {}, "vp": 0}, turn=sc.first_turn, pts=0,
               side=side, dice=None)


def scenario_problems(sc: Scenario) -> list[Problem]:
    """The set-up rules on a scenario's fixed set-up (the [[setup]] list), each problem with its rule:
    no unit on water; Soviet starting units with 1 step (3.8); stacking (6.1-6.5, 7.1-7.3) under the
    options a new game of the scenario has; unless the set-up is free (``free_setup``, test data):
    Soviet units in the USSR and the 3.3/3.4 minimums, German units by 3.7 and 8.4/8.5. A minimum of a
    rule in ``unmet_minimums`` is not a problem (`pbem module check` lists it), but declaring a rule
    the set-up meets is."""
    ctx = _ctx(sc, scenario_options(sc))
    problems: list[Problem] = []
    placements = [Placement(u, h, (path_of("setup", i), f"{u} {h}")) for i, (u, h) in enumerate(sc.setup)]
    for p in placements:
        spec = sc.units[p.unit]
        if spec.side == "soviet":
            found = soviet_placement(ctx, p.unit, p.at)
        else:
            found = german_placement(ctx, p.unit, p.at)
        if sc.free_setup:  # a free position: only water, the Soviet 1-step rule and who uses which OKH area
            found = [(r, t) for r, t in found if r in ("12.14", "13.7", "3.8", "8.4", "8.5")]
        problems += [problem(p.where[0], text, rule, note=p.where[1]) for rule, text in found]
    problems += stacking_problems(ctx, placements, lambda h: (path_of("setup"), h))
    if sc.free_setup:
        return problems
    problems += south_problems(ctx, placements, path_of("setup"))
    if not sc.sets_up("soviet"):
        at: dict[str, int] = {}
        for p in placements:
            if sc.units[p.unit].side == "soviet":
                at[p.at] = at.get(p.at, 0) + 1
        problems += minimum_problems(sc, ctx.options, at, lambda h: (path_of("setup"), h))
        for row in minimum_summary(sc, ctx.options, at):
            if row["declared"] and not row["unmet"]:
                problems.append(problem(path_of("scenario", "unmet_minimums"), f"declares the {row['rule']} minimums unmet, but the "
                                                                   "set-up meets every one: remove it", row["rule"]))
    return problems


def minimum_report(sc: Scenario) -> list[tuple[str, str]]:
    """For `pbem module check`: (status, note) rows on the set-up minimums: "unmet" for each minimum
    of a rule the scenario declares unmet, "limited" for what its map lacks to check them all."""
    options = scenario_options(sc)
    rows: list[tuple[str, str]] = []
    mins, notes = minimums(sc, options)
    if not sc.free_setup and not sc.sets_up("soviet"):
        at: dict[str, int] = {}
        for u, h in sc.setup:
            if sc.units[u].side == "soviet":
                at[h] = at.get(h, 0) + 1
        for rule in sc.unmet_minimums:
            these = [mn for mn in mins if mn.rule == rule]
            short = [f"{mn.place} {mn.count(at)} of {mn.need}" for mn in these if mn.count(at) < mn.need]
            if short:
                rows.append(("unmet", f"{len(short)} of the {len(these)} minimums not met, as the scenario declares "
                                      f"(unmet_minimums): {', '.join(short)} [{rule}]"))
    if not sc.free_setup:
        rows += [("limited", f"{n.split(' ', 1)[1]} [{n.split(' ', 1)[0]}]") for n in notes]
    return rows


# --------------------------------------------------------------------------- the set-up steps


def to_set_up(sc: Scenario) -> list[tuple[str, str]]:
    """The units each side's player sets up by orders, as (side, unit), in units.toml order: the
    Soviet's set-up pool (3.2: his 1-step units not otherwise placed; the SUT says how many of each
    kind set up), the German's starting forces (3.7: every German-side unit not a reinforcement, not a
    security division, 8.21, and not the ArKo, 14.41)."""
    placed = {u for u, _ in sc.setup} | {u for _, u, _ in sc.reinforcements} | set(sc.tank_brigades) \
        | set(sc.security) | {g for *_, g in sc.conversions}
    out = []
    for u, spec in sc.units.items():
        if u in placed or not sc.sets_up(spec.side):
            continue
        if spec.side == "soviet" and spec.steps == 1:
            out.append(("soviet", u))
        elif spec.side == "german" and spec.type != ARKO_TYPE:
            out.append(("german", u))
    return out


def first_side(sc: Scenario) -> str:
    """The side that sets up first by orders (3.2, 3.7: the Soviet before the German), "" for none."""
    return next((s for s in SETUP_SIDES if sc.sets_up(s)), "")


def in_setup(state: Mapping[str, Any]) -> bool:
    """Whether the state awaits a set-up (the steps setup/soviet and setup/german)."""
    return str(state.get("awaits", {}).get("step", "")).startswith("setup/")


def await_setup(state: dict[str, Any], ctx: Ctx, side: str, adjudicator: str) -> Transition:
    """The state awaiting ``side``'s set-up orders, adjudicated by ``adjudicator`` (the other side or
    the referee)."""
    step = setup_step(side)
    out = {"options": state["options"], "position": ctx.position, "standing": ctx.standing,
           "clock": {"turn": ctx.sc.first_turn, "pts": 0, "side": side, "phase": "setup"},
           "awaits": {"kind": "orders", "step": step, "from": [side], "adjudicator": adjudicator}}
    ctx.emit("awaits", "3.2" if side == "soviet" else "3.7", **out["awaits"])
    return Transition(out, tuple(ctx.events))


def pool(ctx: Ctx, side: str) -> list[str]:
    """The units of ``side`` still to be set up, in units.toml order."""
    return [u for u, spec in ctx.sc.units.items() if spec.side == side and ctx.units.get(u, {}).get("at") == "setup"]


def _why_not(ctx: Ctx, unit: str, side: str) -> tuple[str, str]:
    """Why a unit is not one ``side`` sets up, as (rule, text)."""
    sc = ctx.sc
    spec = ctx.spec(unit)
    if spec.side != side:
        return ("3.2" if side == "soviet" else "3.7"), f"{unit} is {'a Soviet' if spec.side == 'soviet' else 'a German-side'} unit"
    later = {u: t for t, u, _ in sc.reinforcements}
    if unit in later:
        return ("3.5" if side == "soviet" else "3.6"), f"{unit} is a reinforcement: it arrives on GT{later[unit]}"
    if unit in sc.tank_brigades:
        return "8.9", f"{unit} is one of the tank brigades set aside for the rolls from GT3"
    if unit in sc.security:
        return "8.21", f"{unit} is a security division, held aside until deployed"
    if any(g == unit for *_, g in sc.conversions):
        return "3.2", f"{unit} is a Guards unit, set aside for a conversion (8.11)"
    if spec.type == ARKO_TYPE and side == "german":
        return "14.41", f"{unit} is the ArKo, held aside until the German forms it"
    if unit not in ctx.units:
        return ("3.2" if side == "soviet" else "3.7"), f"{unit} is not in this game"
    at = ctx.at(unit)
    return ("3.2" if side == "soviet" else "3.7"), f"{unit} is already {OFF_MAP_BOXES.get(at, f'in {at}')}"


def read_placements(ctx: Ctx, side: str, table: Sequence[tuple[str, tuple[str, ...]]], problems: list[Problem]) -> list[Placement]:
    """The `[setup]` table of a set-up order file: each key a hex (its printed id; a South id of the
    2.4 join row is the same hex as the North one) or, for the German, an OKH area; each value the
    units set up there. Problems for a key that is no hex of the map, a hex given twice, a unit that
    is unknown, of the other side, not one to set up (with why), or listed twice; the units kept
    are the placements."""
    rule = "3.2" if side == "soviet" else "3.7"
    todo = set(pool(ctx, side))
    out: list[Placement] = []
    keys: dict[str, str] = {}
    first: dict[str, Place] = {}
    for key, listed in table:
        where = path_of("setup", key)
        at = key if key in OKH_AREAS else ctx.sc.map.canonical(key)
        if at is None:
            problems.append(problem(where, f"'{key}' is not a hex of the map" + (" nor an OKH area (okh-north, okh-south)"
                                                                                  if side == "german" else ""), rule))
            continue
        if at in keys:
            problems.append(problem(where, f"the same hex as setup.{keys[at]} (2.4): list its units once", rule))
            continue
        keys[at] = key
        for i, u in enumerate(listed):
            uw = under(where, i)
            u = str(u)
            if u not in ctx.sc.units:
                problems.append(problem(uw, f"unknown unit '{u}'", rule))
            elif u in first:
                problems.append(problem(uw, f"{u} is set up twice (also {first[u].text})", rule))
            elif u not in todo:
                r, text = _why_not(ctx, u, side)
                problems.append(problem(uw, f"{text}: not one of the units this set-up places", r))
            else:
                first[u] = uw
                out.append(Placement(u, at, (uw, "")))
    return out


def set_up_orders(ctx: Ctx, submission: Submission, orders: Orders) -> Orders:
    """The orders of a set-up step: those sent, or with no orders by the deadline (a referee's
    `--no-orders`) the set-up of missing_orders."""
    if not submission.digest and not submission.body:
        return Orders.parse({"setup": missing_orders(ctx, submission.side)})
    return orders


def check(ctx: Ctx, side: str, orders: Orders) -> list[Problem]:
    """Every problem of ``side``'s set-up orders (3.2-3.8, 6.x, 7.x; set_up_orders), all at once."""
    problems = [problem(path_of(k), f"a set-up step takes [setup] (and [standing]) only, not [{k}]", "5.1")
                for k in OTHER_KEYS if k in orders.tables]
    placements = read_placements(ctx, side, orders.setup, problems)
    placement = soviet_placement if side == "soviet" else german_placement
    for p in placements:
        problems += [problem(p.where[0], text if text.startswith(p.unit) else f"{p.unit}: {text}", rule, note=p.where[1])
                     for rule, text in placement(ctx, p.unit, p.at)]
    problems += stacking_problems(ctx, placements, lambda h: (path_of("setup", h), ""))
    if side == "german":
        problems += south_problems(ctx, placements, path_of("setup"))
        missing = [u for u in pool(ctx, "german") if u not in {p.unit for p in placements}]
        if missing:
            problems.append(problem(path_of("setup"), f"not set up: {', '.join(missing)}; every German starting unit sets up in a "
                                             "ZOMO hex or is held back in an OKH area", "3.7",
                                    "List the units to hold back under okh-north (8.4) or okh-south (8.5)."))
        return problems
    problems += sut_problems(ctx, placements)
    at: dict[str, int] = {}
    for p in placements:
        at[p.at] = at.get(p.at, 0) + 1
    problems += minimum_problems(ctx.sc, ctx.options, at,
                                 lambda place: (path_of("setup"), f"({place})") if place.startswith("column")
                                 else (path_of("setup", place), ""))
    return problems


def sut_problems(ctx: Ctx, placements: Iterable[Placement]) -> list[Problem]:
    """3.2: of each kind the SUT gives (17.6) exactly its number of units in the Frontier Zone and in
    the Interior Zone (the zone is the column of the hex, 3.3-3.4)."""
    sut = ctx.sc.sut
    if sut is None:
        return []
    count: dict[tuple[str, str], int] = {}
    for p in placements:
        if p.at in ctx.sc.map.hexes:
            key = (sut_type(ctx.spec(p.unit)), zone(ctx.sc.map, p.at))
            count[key] = count.get(key, 0) + 1
    problems = []
    for k in sorted({*sut.kinds(), *(k for k, _ in count)}):
        for z, row in (("FZ", sut.fz), ("IZ", sut.iz)):
            have, need = count.get((k, z), 0), row.get(k, 0)
            if have != need:
                problems.append(problem(path_of("setup"), f"{k}: {have} set up in the {ZONE_NAMES[z]}, the SUT sets up {need} "
                                                 "there (17.6)", "3.2"))
    return problems


def default_setup(ctx: Ctx) -> dict[str, list[str]]:
    """The German set-up of a referee's adjudication without his orders (`--no-orders german`): every
    starting unit held back in its OKH area (8.4; Italian, Romanian and Hungarian units in the South
    one, 8.5), which 3.7 allows."""
    out: dict[str, list[str]] = {}
    for u in pool(ctx, "german"):
        out.setdefault("okh-south" if ctx.spec(u).nat in SOUTH_OKH_NATIONS else "okh-north", []).append(u)
    return out


def soviet_proposal(ctx: Ctx) -> dict[str, list[str]]:
    """A Soviet set-up that meets the minimums as far as the SUT's units allow, the same every time
    (the template's proposal, the built-in player's, and a referee's `--no-orders soviet`): of each
    kind the first units (units.toml order) for the Frontier Zone, the next for the Interior Zone;
    then, minimum by minimum in the order ``minimums`` gives them (the border from 2006N, every
    second hex of 1804S-2114S under "alternate", the FZ large towns, the IZ cities and large towns,
    the IZ columns), the next unit of the zone into the first of its hexes that stays within
    stacking (a column: its cities and large towns first); the units left, one by one, into the hexes
    used so far in their zone, round the list."""
    sc, m, sut = ctx.sc, ctx.sc.map, ctx.sc.sut
    todo: dict[str, list[str]] = {"FZ": [], "IZ": []}
    by_kind: dict[str, list[str]] = {}
    for u in pool(ctx, "soviet"):
        by_kind.setdefault(sut_type(ctx.spec(u)), []).append(u)
    for k, us in by_kind.items():
        fz, iz = (sut.fz.get(k, 0), sut.iz.get(k, 0)) if sut else (0, 0)
        todo["FZ"] += us[:fz]
        todo["IZ"] += us[fz:fz + iz]
    order = list(sc.units)
    for z in todo:
        todo[z].sort(key=order.index)
    placed: dict[str, list[str]] = {}

    def put(hexes: Iterable[str]) -> bool:
        for h in hexes:
            z = zone(m, h)
            if todo[z] and not stack_problems(ctx, h, placed.get(h, []) + [todo[z][0]]):
                placed.setdefault(h, []).append(todo[z].pop(0))
                return True
        return False

    at: dict[str, int] = {}
    for mn in minimums(sc, ctx.options)[0]:
        if mn.rule in sc.unmet_minimums:
            continue
        hexes = list(mn.hexes) if len(mn.hexes) == 1 else [mn.hexes[-1], *mn.hexes[:-1]] if len(mn.hexes) == 2 else \
            sorted(mn.hexes, key=lambda h: (m.hexes[h].settlement not in ("city", "large_town"), h))
        while mn.count(at) < mn.need and put(hexes):
            at = {h: len(us) for h, us in placed.items()}
    for z in ("FZ", "IZ"):
        used = [h for h in placed if zone(m, h) == z] or sorted(
            (h.id for h in m.hexes.values() if h.country == "ussr" and not h.water and zone(m, h.id) == z),
            key=lambda h: _order((h, None)))
        i = misses = 0
        while todo[z] and misses < len(used):
            misses = 0 if put([used[i % len(used)]]) else misses + 1
            i += 1
    return placed


def german_proposal(ctx: Ctx) -> dict[str, list[str]]:
    """A German set-up in the ZOMO that 3.7 allows, the same every time (the template's proposal and
    the built-in player's): the Hungarian units into the Hungarian ZOMO hexes (3.7(1)), the Romanian
    ones into the Romanian hexes (3.7(2)), then up to 7 German non-mechanized divisions and 1
    assault-gun battalion (3.7(3)) into the Romanian hexes; every other German-side unit over the
    Greater-German ZOMO hexes taken north to south (3.7(4)), each type and size spread evenly along
    the strip (units.toml order): each unit to the hex at its share of the strip, or the nearest one
    with room under stacking (6.1-6.5, 7.1-7.3); a unit with no room anywhere, and every Italian
    unit, is held back in its OKH area (8.4, 8.5)."""
    m = ctx.sc.map
    n = m.numbering
    strip: dict[str, list[str]] = {}
    for h in sorted((h for h in m.hexes.values() if h.zomo and not h.water),
                    key=lambda h: (n.parse(h.id).row, n.parse(h.id).col)):
        strip.setdefault(h.country, []).append(h.id)
    placed: dict[str, list[str]] = {}

    def fits(u: str, h: str) -> bool:
        return not german_placement(ctx, u, h) and not stack_problems(ctx, h, placed.get(h, []) + [u])

    def put(u: str, hexes: list[str], first: int = 0) -> bool:
        order = sorted(range(len(hexes)), key=lambda i: (abs(i - first), i))
        for i in order:
            if fits(u, hexes[i]):
                placed.setdefault(hexes[i], []).append(u)
                return True
        return False

    south = dict.fromkeys(SOUTH_LIMITS, 0)
    held: list[str] = []
    rest: list[str] = []
    for u in pool(ctx, "german"):
        spec = ctx.spec(u)
        kind = south_kind(spec)
        if spec.nat in ("hungarian", "romanian"):
            if not put(u, strip.get("hungary" if spec.nat == "hungarian" else "romania", [])):
                held.append(u)
        elif spec.nat in SOUTH_OKH_NATIONS:
            held.append(u)
        elif kind and south[kind] < SOUTH_LIMITS[kind] and put(u, strip.get("romania", [])):
            south[kind] += 1
        else:
            rest.append(u)
    germany = strip.get("germany", [])
    kinds: dict[tuple[str, str], list[str]] = {}
    for u in rest:
        kinds.setdefault((ctx.spec(u).type, ctx.spec(u).size), []).append(u)
    for us in kinds.values():
        for i, u in enumerate(us):
            if not germany or not put(u, germany, (2 * i + 1) * len(germany) // (2 * len(us))):
                held.append(u)
    for u in held:
        placed.setdefault("okh-south" if ctx.spec(u).nat in SOUTH_OKH_NATIONS else "okh-north", []).append(u)
    return dict(sorted(placed.items(), key=_order))


def proposal(ctx: Ctx, side: str) -> dict[str, list[str]]:
    """The set-up the template writes and the built-in player uses: the Soviet's
    ``soviet_proposal``, the German's ``german_proposal``."""
    return soviet_proposal(ctx) if side == "soviet" else german_proposal(ctx)


def missing_orders(ctx: Ctx, side: str) -> dict[str, list[str]]:
    """The set-up of a referee's adjudication without a side's orders (`--no-orders`): the Soviet's
    ``soviet_proposal`` (the minimums must be met), the German's ``default_setup`` (every unit held
    back in its OKH area, which 3.7 allows)."""
    return soviet_proposal(ctx) if side == "soviet" else default_setup(ctx)


def schedule(ctx: Ctx, left: list[str]) -> dict[int, list[str]]:
    """3.5: the Soviet units not set up go to the Turn Record Track by the SUT's schedule (17.6): of
    each kind, in the order units.toml lists them, to the earliest GT first."""
    sut = ctx.sc.sut
    out: dict[int, list[str]] = {}
    if sut is None:
        return out
    by_kind: dict[str, list[str]] = {}
    for u in left:
        by_kind.setdefault(sut_type(ctx.spec(u)), []).append(u)
    for gt in sorted(sut.schedule):
        for k, n in sorted(sut.schedule[gt].items()):
            take, by_kind[k] = by_kind.get(k, [])[:n], by_kind.get(k, [])[n:]
            out.setdefault(gt, []).extend(take)
    return {gt: sorted(us, key=list(ctx.sc.units).index) for gt, us in out.items() if us}


def carry_out(ctx: Ctx, sub: Submission, orders: Orders) -> str:
    """Carry out a set-up the rules accept (check): its units go to their hexes or OKH areas
    (3.2-3.7); the Soviet's units not set up go to the Turn Record Track (3.5, position `arrivals`).
    Returns the side whose set-up is awaited next (the German's after the Soviet's, 3.7), or "" when
    GT1 begins."""
    if sub.body.get("standing"):
        ctx.standing[sub.side] = copy.deepcopy(sub.body["standing"])
    placements = read_placements(ctx, sub.side, orders.setup, [])
    for p in placements:
        ctx.units[p.unit]["at"] = p.at
    hexes: dict[str, list[str]] = {}
    for p in placements:
        hexes.setdefault(p.at, []).append(p.unit)
    data: dict[str, Any] = {"side": sub.side, "hexes": {h: sorted(us) for h, us in sorted(hexes.items(), key=_order)},
                            "default": not sub.body}
    if sub.side == "soviet":
        at = {h: len(us) for h, us in hexes.items()}
        data["zones"] = {z: sum(n for h, n in at.items() if zone(ctx.sc.map, h) == z) for z in ZONE_NAMES}
        data["minimums"] = minimum_summary(ctx.sc, ctx.options, at)
        data["untried"] = bool(ctx.options.get("untried_units"))
        data["sut_provisional"] = bool(ctx.sc.sut and ctx.sc.sut.provisional)
        ctx.emit("setup", "3.2", **data)
        track = schedule(ctx, pool(ctx, "soviet"))
        arrivals = ctx.position.setdefault("arrivals", {})
        for gt, units in track.items():
            for u in units:
                ctx.units[u]["at"] = "track"
                arrivals[u] = gt
        if track:
            ctx.emit("setup-track", "3.5", arrivals=[{"turn": gt, "units": us} for gt, us in sorted(track.items())],
                     provisional=data["sut_provisional"], note=ctx.sc.sut.note if ctx.sc.sut else "")
    else:
        south = [p for p in placements if south_kind(ctx.spec(p.unit))
                 and (p.at == "okh-south" or (p.at in ctx.sc.map.hexes and ctx.sc.map.hexes[p.at].country == "romania"))]
        data["south"] = {k: sum(1 for p in south if south_kind(ctx.spec(p.unit)) == k) for k in SOUTH_LIMITS}
        ctx.emit("setup", "3.7", **data)
    return "german" if sub.side == "soviet" and ctx.sc.sets_up("german") else ""


# --------------------------------------------------------------------------- report and template


def _order(item: tuple[str, Any]) -> tuple[int, str]:
    """Hexes of the North map, then of the South map, then the OKH areas, each by id."""
    key = item[0]
    return (2 if key in OKH_AREAS else 1 if key.endswith("S") else 0), key


def _units_at(hexes: Mapping[str, list[str]], keys: Iterable[str]) -> str:
    return "; ".join(f"{h} {', '.join(hexes[h])}" for h in keys)


def _setup_track(e: Event) -> list[str]:
    """3.5: the Soviet's units not set up, on the Turn Record Track by the SUT's schedule."""
    d = e.data
    prov = " — provisional schedule" if d["provisional"] else ""
    rows = "; ".join(f"GT{r['turn']}: {', '.join(r['units'])}" for r in d["arrivals"])
    return [f"- Set aside on the Turn Record Track by the SUT's schedule (3.5, 17.6{prov}): {rows}."]


def _setup(e: Event) -> list[str]:
    """A side's set-up (3.2-3.4 the Soviet's, 3.6-3.7 the German's)."""
    d = e.data
    hexes: dict[str, list[str]] = d["hexes"]
    n = sum(len(us) for us in hexes.values())
    default = " (no orders by the deadline: every unit held back in its OKH area, 8.4, 8.5)" if d.get("default") else ""
    if d["side"] == "soviet" and d.get("default"):
        default = " (no orders by the deadline: the proposed set-up of `pbem template`)"
    if d["side"] == "german":
        lines = [f"- **German set-up** (3.6-3.7): {n} unit{'s' if n != 1 else ''}{default}."]
        on_map = [h for h in hexes if h not in OKH_AREAS]
        if on_map:
            lines.append(f"  - In the ZOMO: {_units_at(hexes, on_map)}.")
        for box in OKH_AREAS:
            if box in hexes:
                why = "8.4" if box == "okh-north" else "3.7, 8.5"
                lines.append(f"  - Held back in {BOX_NAMES[box]} ({why}): {', '.join(hexes[box])}.")
        s = d["south"]
        lines.append(f"  - In Romania and the South OKH area: {s['division']} of at most {SOUTH_LIMITS['division']} German "
                     f"non-mechanized divisions, {s['assault gun']} of at most {SOUTH_LIMITS['assault gun']} assault-gun "
                     "battalion (3.7).")
        return lines
    prov = ", provisional" if d["sut_provisional"] else ""
    untried = ", untried: nobody knows their values until they first fight (2.15)" if d["untried"] else ""
    lines = [f"- **Soviet set-up** (3.2-3.4){default}: {n} units from the Soviet Unit Table (17.6{prov}), "
             f"{d['zones']['FZ']} in the Frontier Zone and {d['zones']['IZ']} in the Interior Zone{untried}."]
    for z, name in ZONE_NAMES.items():
        keys = [h for h in hexes if (int(h[:2]) <= FRONTIER_LAST_COLUMN) == (z == "FZ")]
        if keys:
            lines.append(f"  - {name}: {_units_at(hexes, keys)}.")
    for row in d["minimums"]:
        if row["unmet"]:
            lines.append(f"  - {row['rule']}: {row['met']} minimums met; not met, as the scenario declares its map cannot: "
                         f"{'; '.join(row['unmet'])}.")
        else:
            what = "Frontier Zone: border hexes, large towns" if row["rule"] == "3.3" else \
                "Interior Zone: cities, large towns, 4 units per column"
            lines.append(f"  - {row['rule']} ({what}): all {row['met']} minimums met.")
    return lines


# Report lines for the set-up events (3.2-3.7), by kind (render.EVENT_TEXT).
EVENT_TEXT: dict[str, Callable[[Event], list[str]]] = {"setup": _setup, "setup-track": _setup_track}


def template(ctx: Ctx, head: list[str]) -> str:
    """The skeleton of a set-up order file for ``ctx``'s side: what to place, where it may go, the
    minimums to meet."""
    side = ctx.side
    units = pool(ctx, side)
    if side == "soviet":
        return "\n".join(head + _soviet_template(ctx, units)) + "\n"
    return "\n".join(head + _german_template(ctx, units)) + "\n"


def _label(ctx: Ctx, u: str) -> str:
    return f"{u} {shown_values(ctx.spec(u), ctx.units[u], ctx.options)}"


def _wrapped(head: str, items: list[str], width: int = 110) -> list[str]:
    """Comment lines listing ``items`` after ``head``, comma-separated, continued on indented
    comment lines so that none is much longer than ``width`` (a full-size pool has 168 units)."""
    indent = "#       "
    out = [head]
    for i, item in enumerate(items):
        text = item + ("," if i < len(items) - 1 else "")
        if out[-1] in (head, indent):
            out[-1] += text
        elif len(out[-1]) + 1 + len(text) > width:
            out.append(indent + text)
        else:
            out[-1] += " " + text
    return out


def _soviet_template(ctx: Ctx, units: list[str]) -> list[str]:
    sc = ctx.sc
    sut = sc.sut
    lines = ["# Soviet set-up (3.2-3.5): in [setup], each hex lists the units that set up in it."]
    if ctx.options.get("untried_units"):
        lines.append("# Your units are untried (2.15): a counter shows its type and MF only, and nobody learns its values")
        lines.append("# until it first fights.")
    prov = ", provisional" if sut and sut.provisional else ""
    lines.append(f"# The Soviet Unit Table (17.6{prov}): of each kind, the units for the Frontier Zone (column "
                 f"{FRONTIER_LAST_COLUMN} and west, 3.3)")
    lines.append("# and the Interior Zone (column 23 and east, 3.4); " + (
        "the units you do not set up go to the Turn Record Track (3.5)." if sut and sut.schedule else
        "it schedules no unit for the Turn Record Track (3.5): set up every one."))
    by_kind: dict[str, list[str]] = {}
    for u in units:
        by_kind.setdefault(sut_type(ctx.spec(u)), []).append(u)
    for k in sorted(by_kind):
        fz, iz = (sut.fz.get(k, 0), sut.iz.get(k, 0)) if sut else (0, 0)
        lines += _wrapped(f"#   {k}: FZ {fz}, IZ {iz}, of {len(by_kind[k])}: ", [_label(ctx, u) for u in by_kind[k]])
    if sut and sut.schedule:
        lines.append("#   Turn Record Track: " + "; ".join(
            f"GT{gt} " + ", ".join(f"{n} {k}" for k, n in sorted(row.items())) for gt, row in sorted(sut.schedule.items())))
    mins, notes = minimums(sc, ctx.options)
    lines.append("# Minimums (3.3, 3.4); more is allowed, less is not. Stacking: 5 units a hex (6.1, 6.4"
                 + (", 10 in a city, 6.5" if ctx.options.get("stacking_details") else "") + ").")
    for mn in mins:
        if mn.rule in sc.unmet_minimums:
            continue
        if len(mn.hexes) > 2:
            lines.append(f"#   {mn.rule} {mn.what}: {mn.need} units")
        else:
            lines.append(f"#   {mn.rule} {mn.what}")
    for r in sorted(sc.unmet_minimums):
        lines.append(f"#   {r}: the scenario declares its map cannot meet these minimums; they are not enforced")
    lines += [f"#   ({n})" for n in notes]
    why: dict[str, list[str]] = {}
    for mn in mins:
        if len(mn.hexes) <= 2 and mn.rule not in sc.unmet_minimums:
            hx = sc.map.hexes[mn.place]
            label = f"{mn.rule} " + ("border" if mn.what.startswith("border") else
                                     f"{hx.settlement.replace('_', ' ')} {hx.place}")
            for h in mn.hexes:
                if label not in why.setdefault(h, []):
                    why[h].append(label)
    proposed = soviet_proposal(ctx)
    lines += ["", "# A proposal that meets every minimum the SUT's units allow (check it, then edit it as you wish):",
              "[setup]"]
    for h in [*proposed, *(h for h in why if h not in proposed)]:
        note = f"   # {'; '.join(why[h])}" if h in why else ""
        lines.append(f'"{h}" = [' + ", ".join(f'"{u}"' for u in proposed.get(h, [])) + "]" + note)
    lines += ["", "# Standing instructions for the German's first player turn, committed before his dice.",
              "[standing]", 'loss_policy = "fewest-steps-first"   # fewest-steps-first | most-steps-first | ask',
              "loss_order = []", '# overstack_removal = ["UNIT"]  # 6.2: enemy units you remove first when a failed mobile assault over-stacks his hex', ""]
    return lines


def _german_template(ctx: Ctx, units: list[str]) -> list[str]:
    sc = ctx.sc
    zomo: dict[str, list[str]] = {}
    for h in sorted(sc.map.hexes.values(), key=lambda x: x.id):
        if h.zomo and not h.water:
            zomo.setdefault(h.country, []).append(h.id)
    lines = ["# German set-up (3.6-3.7): in [setup], each ZOMO hex (or OKH area) lists the units that set up there.",
             "# As written below, a legal set-up: the units spread over the ZOMO, those with no room held back in an",
             "# OKH area (8.4, 8.5); holding every unit back is legal too. Edit it as you wish:",
             "#   only the Hungarian Fast Corps in Hungary (3.7(1)); Romanian units in Romania or okh-south (3.7(2));",
             f"#   at most {SOUTH_LIMITS['division']} German non-mechanized divisions and {SOUTH_LIMITS['assault gun']} "
             "assault-gun battalion in Romania and okh-south (3.7(3));",
             "#   every other unit in the Greater-German ZOMO or okh-north (3.7(4)); stacking 6.1-6.5, 7.1-7.3 (3.7(5)).",
             "# ZOMO hexes:"]
    for c in ("germany", "hungary", "romania"):
        if c in zomo:
            lines += _wrapped(f"#   {COUNTRY_NAMES[c]}: ", zomo[c])
    soviet: dict[str, list[str]] = {}
    for u, st in sorted(ctx.units.items()):
        if ctx.spec(u).side == "soviet" and st["at"] in sc.map.hexes:
            soviet.setdefault(str(st["at"]), []).append(_label(ctx, u))
    near = sorted({n for hs in zomo.values() for h in hs for n in sc.map.neighbours(h) if n in soviet},
                  key=lambda h: _order((h, None)))
    if near:
        lines.append("# The Soviet set-up next to the ZOMO" + (" (untried counters, 2.15)" if ctx.options.get("untried_units")
                                                               else "") + ":")
        lines += [f"#   {h}: {', '.join(soviet[h])}" for h in near]
    lines += ["", "[setup]"]
    for key, us in german_proposal(ctx).items():
        lines.append(f'"{key}" = [' + ", ".join(f'"{u}"' for u in us) + "]" if key not in OKH_AREAS else
                     f"{key} = [" + ", ".join(f'"{u}"' for u in us) + "]")
    lines += ["",
              "# Standing instructions for the Soviet's player turns, committed before his dice.",
              "[standing]", 'loss_policy = "fewest-steps-first"   # fewest-steps-first | most-steps-first | ask',
              "loss_order = []", '# overstack_removal = ["UNIT"]  # 6.2: enemy units you remove first when a failed mobile assault over-stacks his hex', ""]
    return lines
