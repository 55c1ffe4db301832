"""Europe Engulfed in words: report lines for events, the position as text, `pbem status` lines,
order templates.

Each rules module renders its own events: a module's ``RENDER`` maps an event kind to a function
giving the event's Markdown lines. An event whose kind none renders gets a plain line with its
fields (never silence). A line that uses a provisional chart says so (the event carries
``provisional``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.model import Event
from pbem.games.base import EventLines

from . import (
    allied_powers,
    axis_powers,
    breakthrough,
    combat,
    fog,
    landings,
    ledger,
    movement,
    naval,
    parties,
    politics,
    production,
    strategic,
    supply,
    victory,
    weather,
)
from .context import NEW, context
from .data import ALLIES, AXIS, NEUTRAL, SIDES, VICHY, ZONES, Turn

PROVISIONAL = " (provisional data)"


def _core_lines() -> dict[str, Callable[[Event], list[str]]]:
    def turn(e: Event) -> list[str]:
        return [f"## {e.data['label']} ({e.rule})"]

    def player_turn(e: Event) -> list[str]:
        return [f"### {str(e.data['side']).capitalize()} player-turn ({e.rule})"]

    def phase(e: Event) -> list[str]:
        return [f"#### {str(e.data['phase']).capitalize()} phase ({e.rule})"]

    def awaits(e: Event) -> list[str]:
        d = e.data
        return [f"- Next: {d['kind']} for {d['step']} from {', '.join(d['from'])} ({e.rule})."]

    def advance(e: Event) -> list[str]:
        return [f"- The turn marker advances to {Turn.parse(str(e.data['turn'])).label} ({e.rule})."]

    def step_lost(e: Event) -> list[str]:
        return [f"- {e.data['unit']} ({e.data['nation']}) loses a step in {e.data['at']} ({e.data['why']}, {e.rule}): "
                f"{e.data['left']} left."]

    def eliminated(e: Event) -> list[str]:
        d = e.data
        return [f"- {d['unit']} ({d['nation']}) is eliminated in {d['at']} ({d['why']}, {e.rule}) and returns to the force pool."]

    def control(e: Event) -> list[str]:
        return [f"- {e.data['area']} passes to the {e.data['side']} (was {e.data['was']}; {e.rule})."]

    def contested(e: Event) -> list[str]:
        return [f"- {e.data['area']} is now contested ({e.rule})."]

    def sa_spent(e: Event) -> list[str]:
        d = e.data
        return [f"- {str(d['nation']).capitalize()} expends a special action: {d['why']} ({e.rule}; {d['left']} left)."]

    return {"turn": turn, "player-turn": player_turn, "phase": phase, "awaits": awaits, "turn-advance": advance,
            "step-lost": step_lost, "eliminated": eliminated, "control": control, "contested": contested,
            "sa-spent": sa_spent}


event_lines = EventLines(_core_lines, lambda: (allied_powers, axis_powers, breakthrough, combat, fog, landings, ledger, movement,
                                                naval, parties, politics, production, strategic, supply, victory, weather),
                         PROVISIONAL)


def report_notes(events: list[Event]) -> list[str]:
    if any(e.data.get("provisional") for e in events):
        return ["Results marked *(provisional data)* come from a stand-in for a chart or map that is not in "
                "the rules text (`pbem module check europe-engulfed` lists them)."]
    return []


def _names(sc: Any, areas: list[str]) -> str:
    return ", ".join(sc.map.areas[a].name if a in sc.map.areas else a for a in areas)


def _weather(state: dict[str, Any]) -> str:
    w = state["position"].get("weather", {})
    return "weather (1.1): " + ", ".join(f"{z} {w.get(z, 'clear')}" for z in ZONES)


def _sa(state: dict[str, Any], nations: set[str] | None = None) -> str:
    held = {n: int(k) for n, k in sorted(state["position"].get("sa", {}).items())
            if int(k) and (nations is None or n in nations)}
    return "special actions held (7.1): " + (", ".join(f"{n} {k}" for n, k in held.items()) or "none")


def status_lines(state: dict[str, Any]) -> list[str]:
    """Each side's blocks on the map (with GS and OOS counts), the weather (1.1), the special
    actions held (7.1), the contested areas (Glossary; new ones marked, 6.1)."""
    ctx = context(state)
    out = []
    for s in SIDES:
        units = ctx.side_units(s)
        gs = sum(k for a in sorted(ctx.pos.get("gs", {})) for k in ctx.side_gs(a, s).values())
        oos = sum(1 for u in units if ctx.units[u].get("oos"))
        out.append(f"{s}: {len(units)} block(s) on the map, {gs} GS" + (f", {oos} out of supply (1.21)" if oos else ""))
    out.append(_weather(state))
    out.append(_sa(state))
    out.append(victory.status(state))  # who would win now and why (victory.py, provisional)
    con = state["position"].get("contested", {})
    if con:
        out.append("contested (Glossary): " + ", ".join(f"{a}{' (new)' if v == NEW else ''}" for a, v in sorted(con.items())))
    return out


def unit_text(u: str, st: dict[str, Any], full: int | None = None) -> str:
    """A block as its reader knows it: ``de.07 de-arm 3/4`` (``3`` without ``full``), or
    ``de.07 (hidden)`` when its type and steps are hidden (fog of war); ``[oos]`` when out of supply."""
    if st.get("block"):
        text = f"{u} {st['block']} {st.get('steps')}" + (f"/{full}" if full else "")
    else:
        text = f"{u} (hidden)"
    if st.get("oos"):
        text += f" [{st['oos']}]"
    return text


def position_text(state: dict[str, Any], side: str | None) -> str:
    """The position as text: the clock, the weather (1.1), the special actions held (7.1); each
    side's blocks and GS by area as the reader knows them (hidden blocks without type and steps),
    contested (new, 6.1), OOS (1.21), fortifications (6.9) and beachheads (7.22); the fleets; each
    side's controlled areas (Glossary "Control")."""
    ctx = context(state)
    sc = ctx.sc
    c = state["clock"]
    pos = state["position"]
    head = f"# {sc.title}: {Turn.parse(str(c['turn'])).label}, {c['side']} {c['phase']}"
    lines = [head + (f" (as the {side} see it)" if side else ""), "",
             f"- {_weather(state).capitalize()}.", f"- {_sa(state).capitalize()}."]
    aw = state.get("awaits", {})
    if aw.get("step"):
        lines.append(f"- Awaiting: {aw.get('kind')} for {aw['step']} from {', '.join(aw.get('from', [])) or 'nobody'}.")
    lines.append("")
    forts = pos.get("fortifications", {})
    beach = pos.get("beachheads", {})
    for s in SIDES:
        lines.append(f"## {s.capitalize()}")
        by_area: dict[str, list[str]] = {}
        for u in ctx.side_units(s):
            by_area.setdefault(ctx.at(u), []).append(unit_text(u, ctx.units[u], ctx.max_steps(u)))
        for a in sorted(pos.get("gs", {})):
            for n, k in ctx.side_gs(a, s).items():
                by_area.setdefault(a, []).append(f"{k} {n} GS")
        for a in sorted(by_area):
            marks = []
            if ctx.contested(a):
                marks.append("contested, new: combat compulsory (6.1)" if ctx.newly_contested(a) else "contested")
            f = forts.get(a)
            if f and ctx.side_of_nation(str(f.get("nation", ""))) == s:
                marks.append(f"{f.get('kind', 'field')} fortification, {f.get('nation')} (6.9)")
            if beach.get(a) == s:
                marks.append("beachhead (7.22)")
            name = sc.map.areas[a].name if a in sc.map.areas else a
            lines.append(f"- {name}{' (' + '; '.join(marks) + ')' if marks else ''}: " + "; ".join(by_area[a]))
        if not by_area:
            lines.append("- no blocks on the map")
        lines.append("")
    con = pos.get("contested", {})
    if con:
        lines.append("## Contested areas (Glossary)")
        for a, v in sorted(con.items()):
            lines.append(f"- {_names(sc, [a])}: {'new (combat compulsory, 6.1)' if v == NEW else 'contested before'}")
        lines.append("")
    others = [(a, f) for a, f in sorted(forts.items()) if ctx.side_of_nation(str(f.get("nation", ""))) not in SIDES
              or not any(ctx.side_in(a, s) for s in SIDES)]
    if others:
        lines.append("## Fortifications (6.9)")
        lines += [f"- {_names(sc, [a])}: {f.get('kind', 'field')}, {f.get('nation')}" for a, f in others]
        lines.append("")
    fleets = {z: {n: int(k) for n, k in sorted(by.items()) if int(k)} for z, by in sorted(pos.get("fleets", {}).items())}
    if any(fleets.values()):
        lines.append("## Fleet points (section 8)")
        lines += [f"- {_names(sc, [z])}: " + ", ".join(f"{n} {k}" for n, k in by.items()) for z, by in fleets.items() if by]
        lines.append("")
    lines.append("## Control (Glossary)")
    by_ctl: dict[str, list[str]] = {}
    for a in sc.map.of_kind("land", "fortress", "box"):
        by_ctl.setdefault(ctx.controller(a), []).append(a)
    for who in (AXIS, ALLIES, VICHY, NEUTRAL):
        if by_ctl.get(who):
            lines.append(f"- {who} ({len(by_ctl[who])}): {_names(sc, by_ctl[who])}")
    lines.append("")
    return "\n".join(lines)


def _nations(ctx: Any, side: str) -> set[str]:
    """The nations of a side (three players: of a party, parties.py)."""
    return {n for n in ctx.sc.units.nations if ctx.party_of_nation(n) == side}


def _standing_lines() -> list[str]:
    return ["# Standing instructions (kept until replaced; decisions in the opponent's player-turn, J-6 e):",
            "# [standing]",
            '# losses = ["ID", "ID"]         # 6.27, 6.28: the order in which your blocks take hits (first legal)',
            '# retreat = [{ area = "AREA", when = "outnumbered", to = ["AREA"] }]   # 7.51 (an SA): always|assault|outnumbered|never',
            '# reinforce = [{ area = "AREA", from = "AREA", unit = "ID" }]         # 7.6 (an SA each)',
            '# counterattack = [{ area = "AREA", when = "stronger", type = "normal" }]   # 7.7 (an SA): always|stronger|never',
            '# air = { AREA = 1 }             # 6.22: GS flying air combat when you defend there (the rest support)',
            '# support = { "ID" = "NATION" }  # 6.6: which defending block each GS supports',
            '# overstack = ["ID"]             # 5.5: your blocks removed first when over a stacking limit',
            "# sa_reserve = 0                 # SAs your standing instructions never spend",
            '# naval = { SEA = "stronger" }    # 8.11: engage enemy FPs carrying units: always|stronger|half|never (default)',
            '# interdict = { SEA = "never" }   # 8.21: interdict strat-moves by sea: always (default)|never',
            '# naval_losses = ["NATION"]       # 8.14: the order in which your nations lose FPs',
            "# [standing.strategic]           # strategic warfare in the enemy's production phase (2.x, J-3 a)",
            "# bomb = true                    # 2.2: bomb with all bombers and fighters when you hold a bomber",
            "# divert = false                 # 2.27 (Western Allies): bomb the Western front when allowed",
            "# v1 = 0                         # 2.28 (Germany): V-1s launched (at least half of those held)",
            "# v2 = 0                         # 2.28 (Germany): V-2s launched (at least half of those held)",
            '# intercept = "always"           # 2.22a, when not compulsory: always|never|stronger',
            "# intercept_v1 = true            # 2.28: your fighters fire at V-1s"]


def _battle_lines(area: str, rule: str) -> list[str]:
    return ["# [[battle]]", f'# area = "{area}"', f'# type = "normal"          # or "assault" (6.3); {rule}',
            "# air = 0                   # 6.22: your GS in the area flying air combat (6.23); the rest support",
            '# support = { "ID" = "NATION" }   # 6.6: the block each supporting GS of a nation supports']


def _final_lines() -> list[str]:
    return ["# The Final Supply Determination Phase (1.27) ends your player-turn with this file:",
            "# [final]", '# limited_supply = ["AREA"]   # 7.9: an SA per area keeps its OOS blocks (each loses a step)',
            '# cadres = ["ID"]             # 7.9 with fog of war: your hidden blocks there at one step (eliminated)',
            '# overstack = ["ID"]          # 5.5: blocks removed first if an area is over its stacking limit',
            '# fleets = [{ nation = "NATION", from = "SEA", to = "SEA", fp = 1 }]   # 8.3: fleet transfers (8.31, 8.32)']


def template(state: dict[str, Any], side: str, header: list[str]) -> str:
    """A skeleton file for the awaited step: every order it may hold, commented out, with the facts
    of the current state the orders depend on (docs/europe-engulfed.md, Orders)."""
    ctx = context(state)
    sc = ctx.sc
    phase = str(state["clock"]["phase"])
    pos = state["position"]
    mine = ctx.party_units(side)
    out = [*header, ""]
    out.append(f"# {Turn.parse(str(state['clock']['turn'])).label}, {side}: {_weather(state)}.")
    out.append(f"# {_sa(state, _nations(ctx, side)).capitalize()}.")
    con = pos.get("contested", {})
    if phase != "setup" and side in parties.ALLIED and ctx.side != ALLIES:  # three players: an opening in the Axis's step
        opened = ", ".join(state["awaits"].get("open", {}).get(side, [])) or "none"
        out += [f"# Three players: this file of yours in the Axis's step {state['awaits']['step']} opens your blocks in",
                f"# contested areas (6.24: {opened}; pbem sign writes the openings) and may give your [standing]; no orders.",
                "", *_standing_lines()]
        return "\n".join(out) + "\n"
    if phase == "setup":
        out += ["# The set-up (fog of war, J-0): commit the type and steps of every block of yours, hidden from",
                "# your opponent until the block is in a contested area (6.24); pbem sign seals them.",
                "# [hidden]", '# "ID" = { block = "BLOCK-TYPE", steps = 4 }', "", *_standing_lines()]
        return "\n".join(out) + "\n"
    if phase == "move":
        oos = [u for u in mine if ctx.units[u].get("oos")]
        if oos:
            out.append("# Your blocks out of supply (1.21, 3.4): " + ", ".join(f"{u} in {_names(sc, [ctx.at(u)])}" for u in oos))
        old = [a for a in sorted(con) if ctx.side_in(a, side)]
        if old:
            out.append(f"# Contested areas where you have blocks (5.14, 7.52): {_names(sc, old)}")
        fl = ", ".join(f"{z} " + " ".join(f"{n} {k}" for n, k in sorted(by.items())) for z, by in sorted(pos.get("fleets", {}).items()))
        out += ["",
                f"# Fleet points (public; 5.34 w/out Transport this turn: {pos.get('transport', {}) or 'none'}): {fl or 'none'}.",
                "# Fleet transfers of the initial supply phase (8.3, J-2), made first: unused FPs, 8.31/8.32 routes.",
                '# [[fleet]]', '# nation = "NATION"', '# from = "SEA"', '# to = "SEA"', "# fp = 1",
                "",
                "# Production (1.22, 4.x): one nation at a time (4.5).",
                "# [[production.build]]             # 4.4, 4.41: a new block from the force pool, in a home area",
                '# nation = "NATION"', '# area = "AREA"', '# block = "BLOCK-TYPE"      # e.g. de-arm (units.toml)',
                "# steps = 1", '# id = "NAT.NN"               # the next free number of the nation',
                "# [[production.replace]]           # 4.3: steps added to a block on the map",
                '# unit = "ID"', "# steps = 1",
                "# [[production.fortify]]           # 6.9x: a field fortification (heavy: 6.95c)",
                '# area = "AREA"', '# nation = "NATION"', "# heavy = false",
                "# [[production.special]]           # 7.8: an SA held from an earlier turn makes the area eligible",
                '# area = "AREA"', '# nation = "NATION"',
                "# [production.buy]                 # 7.1 special actions, 4.43 GS units",
                '# sa = { NATION = 1 }', '# gs = { NATION = 1 }', '# gs_at = { NATION = ["AREA"] }   # where the new GS are placed',
                "# fighters = { NATION = 1 }        # 2.3, 4.43: strategic assets (also bombers, uboats, v1, v2;",
                "# uboats = { NATION = 1 }          #   asw and flak once a year, 4.61)",
                "",
                "# Initial operational movement (1.23, 5.1), in order: a group of blocks along one path from",
                "# where they stand (1 area, armor and cavalry 2: 5.11, 5.12); GS units move too (from, gs).",
                "# [[move]]", '# units = ["ID", "ID"]', '# path = ["AREA", "AREA"]',
                "# [[move]]", '# gs = { NATION = 1 }', '# from = "AREA"', '# path = ["AREA"]',
                "",
                "# Leaving a contested area (7.52, an SA): a nation's blocks evacuate it.",
                "# [[evacuate]]", '# area = "AREA"', '# nation = "NATION"', '# moves = [{ units = ["ID"], path = ["AREA"] }]',
                "",
                "# Amphibious invasion (7.2, an SA): from ports across one sea zone onto a coastal area.",
                "# [[invade]]", '# units = ["ID"]', '# from = ["AREA"]', '# sea = "SEA"', '# area = "AREA"',
                "",
                "# Airborne assault (7.3, an SA): an airborne block dropped on an area.",
                "# [[drop]]", '# unit = "ID"', '# from = "AREA"', '# area = "AREA"',
                "",
                "# Initial strategic movement (1.24, 5.2): after every operational move; through friendly areas,",
                "# across sea zones by sea transport (5.32; cape: the Cape route, 5.33).",
                "# [[strat]]", '# units = ["ID"]', '# path = ["AREA", "AREA", "AREA"]', '# sea = ["SEA"]', "# cape = false",
                '# steps = { "ID" = 1 }          # 8.21, fog of war: hidden blocks\' steps told for interdiction hits']
    elif phase == "combat":
        new = [a for a, v in sorted(con.items()) if v == NEW]
        older = [a for a, v in sorted(con.items()) if v != NEW]
        out += [f"# Newly contested areas: one combat round each is compulsory (6.1): {_names(sc, new) or 'none'}",
                f"# Contested from before: a round there is your choice (1.25): {_names(sc, older) or 'none'}",
                "", "# Initial combat (1.25, 6.2): one [[battle]] per area fought."]
        for a in new:
            out += [*_battle_lines(a, "compulsory (6.1)"), ""]
        for a in older:
            out += [*_battle_lines(a, "optional"), ""]
        if not con:
            out += [*_battle_lines("AREA", "6.2"), ""]
        out += ["# Breakthrough phases after the combats (1.26, 6.7): each costs a special action.",
                "# [next]", "# breakthrough = true", "", *_final_lines()]
    elif phase == "breakthrough":
        pend = state.get("pending", {})
        due = [str(b.get("area") if isinstance(b, dict) else b) for b in pend.get("battles", [])]
        out.append(f"# Breakthrough phases bought so far this player-turn: {int(pend.get('breakthroughs', 0))}.")
        if due:
            out += [f"# Combats a breakthrough movement made compulsory (6.73, already paid): {_names(sc, due)}"]
            for a in due:
                out += _battle_lines(a, "compulsory (6.73)")
        out += ["",
                "# One breakthrough phase (1.26), bought with a special action of each nation taking part (6.72):",
                "# a combat round in one area (6.71, 6.72):",
                "# [breakthrough]", '# kind = "combat"', '# area = "AREA"', '# type = "normal"        # or "assault" (6.3)',
                "# air = 0", '# nations = ["NATION"]     # 6.72: the major powers that spend an SA and attack',
                '# support = { "ID" = "NATION" }',
                "# or breakthrough operational movement (5.4) toward a designated area:",
                '# kind = "move"', '# area = "AREA"            # the designated area (5.42)',
                '# moves = [{ units = ["ID"], path = ["AREA"] }]',
                "# or breakthrough strategic movement (5.4, 5.2):",
                '# kind = "strat"', '# [[breakthrough.strat]]', '# units = ["ID"]', '# path = ["AREA", "AREA"]',
                "# or no more breakthrough phases:", '# kind = "end"', "", *_final_lines()]
    else:
        out += ["# Nothing is awaited from you in this step."]
        return "\n".join(out) + "\n"
    out += ["", *_standing_lines()]
    return "\n".join(out) + "\n"
