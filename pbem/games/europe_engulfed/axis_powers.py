"""The politics of the Axis (9.1, 9.13-9.19, 9.4, 9.41-9.47; I.B, I.D): the Axis minor powers
(Finland, Romania, Hungary, Bulgaria) joining when Germany controls Paris (9.15), where their units
may operate (9.16, 9.17), the Germans in Romania before the German-Soviet war (9.17e), their
stacking penalty (9.18), Ploesti (9.15, 9.19), Swedish ore (9.14), the Russian winter (9.13); Italy:
where its units operate (9.41), its entry into the war (9.42), German aid (9.43), neutral Italy
(9.44), the collapse of its morale (9.45), its surrender (9.46) and the coordination of Axis
operations in the Mediterranean (9.47). The declarations of war (9.11, 9.12) are politics.py's.

State (``position.politics``, besides politics.py's ``war``, ``pact``, ``vichy``):
``italy`` neutral | war | collapsed | surrendered (9.42, 9.45, 9.46); ``minors_joined`` (9.15);
``minor_step`` { nation, turn } (the Axis Minor Step marker, 9.15); ``italy_france`` (9.41: the
French restriction lifted for good); ``leningrad`` (9.17d: the Axis took the Leningrad fortress);
``soviet_war`` (the first player-turn of the German-Soviet war, ``1941-jun/axis``, 9.17c);
and politics.py's ``conquered`` (10.0, provisional: Romania conquered, I.D). A key absent is read from the rest of the position (Italy at
war when it is at war with a major power; the minors joined as the scenario says).

Triggers (I.D) are looked at the end of every phase (``end_phase``, called by movement.end_phase),
in the transition where their condition becomes true: Germany controls Paris (the minors join,
Italy enters the war), Vichy declared (Italy enters the war), an Allied beachhead in France or,
from 1942, an Allied-held area of mainland France (9.41), the Leningrad fortress taken (9.17d),
an Axis minor conquered by the Allies (its units removed; politics.py's provisional conquest, 10.x
NOT IN SOURCE), the collapse of Italian morale
(9.45). The Italian surrender is checked at the end of the Axis player-turn (9.46, I.B).

Orders (the Axis production, ``[production]``): ``italy_aid = n`` (9.43: German WERPs given to
Italy, at most 5), ``[[production.replace]] ... free = true`` (9.15: the free Axis-minor infantry
step), ``winter_spared = { ID = "cadre" | "type" }`` (9.13 with fog of war: the hidden blocks in the
USSR that lose no step, and why). Axis minors' steps are paid with German WERPs (9.15).

Provisional data (charts.toml ``axis_politics``): the turn of the Russian winter, the areas of
mainland Italy (9.46c); conquest is politics.py's (``conquest``).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from .context import INFANTRY_CLASS, Ctx
from .data import ALLIES, AXIS, AXIS_MINORS, MAJORS, NEUTRAL, Turn
from .supply import lose_hidden_step

NEUTRAL_ITALY, AT_WAR, COLLAPSED, SURRENDERED = "neutral", "war", "collapsed", "surrendered"
WESTERN = frozenset({"britain", "usa", "france"})
# 9.17a-d: where the units of each Axis minor may operate (countries of the map).
MINOR_COUNTRIES: dict[str, frozenset[str]] = {
    "bulgaria": frozenset({"bulgaria", "greece", "yugoslavia", "turkey"}),
    "romania": frozenset({"romania", "yugoslavia", "ussr"}),
    "hungary": frozenset({"hungary", "yugoslavia"}),
    "finland": frozenset({"finland", "ussr"}),
}
HUNGARY_AT_WAR = frozenset({"poland", "ussr"})  # 9.17c: once the USSR is at war with the Axis
ITALY_PASS = frozenset({"poland", "hungary", "romania"})  # 9.41: by strategic movement only
ITALIAN_SEA = frozenset({"italy", "libya", "albania"})  # 9.44: Italy, Sicily, Sardinia, Libya, Albania
MORALE_HOLDS = ("gibraltar", "marseille", "athens")  # 9.45
LENINGRAD = "leningrad-fortress"  # 9.17d
PARIS = "paris"  # 9.15, 9.42
MEDITERRANEAN = "mediterranean"  # 9.44, 9.47


# --- the state --------------------------------------------------------------------------------------
def chart(ctx: Ctx) -> dict[str, Any]:
    return dict(ctx.sc.charts["axis_politics"].data)


def _pol(ctx: Ctx) -> dict[str, Any]:
    pol: dict[str, Any] = ctx.pos.setdefault("politics", {"war": [], "pact": False, "vichy": False})
    return pol


def initial(sc: Any, pol: dict[str, Any]) -> dict[str, Any]:
    """The scenario's start (module.new_game): Italy's state and whether the minors have joined."""
    war = {frozenset(p) for p in pol.get("war", [])}
    italy = any(frozenset(("italy", m)) in war for m in MAJORS if m != "italy")
    joined = bool(getattr(sc, "axis_minors_joined", False))
    pairs = [list(p) for p in pol.get("war", [])]
    if joined:  # 9.15: at war alongside Germany
        enemies = sorted({n for p in war if "germany" in p for n in p} - {"germany", *AXIS_MINORS})
        pairs += [sorted([m, e]) for m in AXIS_MINORS for e in enemies if frozenset((m, e)) not in war]
    return {**pol, "war": sorted(pairs), "italy": AT_WAR if italy else NEUTRAL_ITALY, "minors_joined": joined}


def italy(ctx: Ctx) -> str:
    """9.42, 9.45, 9.46: neutral, war, collapsed or surrendered."""
    v = _pol(ctx).get("italy")
    if v:
        return str(v)
    return AT_WAR if any(ctx.at_war("italy", m) for m in MAJORS if m != "italy") else NEUTRAL_ITALY


def italy_at_war(ctx: Ctx) -> bool:
    return italy(ctx) in (AT_WAR, COLLAPSED)


def collapsed(ctx: Ctx) -> bool:
    return italy(ctx) == COLLAPSED


def minors_joined(ctx: Ctx) -> bool:
    v = _pol(ctx).get("minors_joined")
    return bool(getattr(ctx.sc, "axis_minors_joined", False)) if v is None else bool(v)


def axis_soviet_war(ctx: Ctx) -> bool:
    """Whether the Axis and the USSR are at war (Germany or an Axis power at war with the USSR)."""
    return any(ctx.at_war(n, "ussr") for n in ("germany", "italy", *AXIS_MINORS))


def first_soviet_war_turn(ctx: Ctx) -> bool:
    """9.17c: this player-turn is the first in which the Axis and the USSR are at war."""
    if not axis_soviet_war(ctx):
        return False
    at = _pol(ctx).get("soviet_war")
    return not at or at == f"{ctx.turn.key}/{ctx.side}"


def conquered_by_allies(ctx: Ctx, nation: str) -> bool:
    """10.x is NOT IN SOURCE: the provisional conquest politics.py records at the end of each phase
    (``politics.conquered``, the chart ``conquest``), by the Allies."""
    return bool(_pol(ctx).get("conquered", {}).get(nation) == ALLIES)


def _country(ctx: Ctx, a: str) -> str:
    return ctx.area(a).country


def _italian(ctx: Ctx, a: str) -> bool:
    """9.44: Italian territory (Italy, and the areas associated with it: Libya, Albania)."""
    ar = ctx.area(a)
    return ar.country == "italy" or ar.associated == "italy"


# --- the end of every phase (I.B, I.D) --------------------------------------------------------------
def end_phase(ctx: Ctx, rule: str) -> None:
    """At the end of each phase: the triggers of I.D that became true in it, each at once with its
    event (resolution only; the checks of the same phase are ``check``)."""
    pol = _pol(ctx)
    if minors_joined(ctx):
        _minors_at_war(ctx)
    if axis_soviet_war(ctx) and not pol.get("soviet_war"):
        pol["soviet_war"] = f"{ctx.turn.key}/{ctx.side}"
        ctx.emit("soviet-war-restrictions", "9.17", turn=ctx.turn.key, side=ctx.side)
    if ctx.controller(PARIS) == AXIS:
        if not minors_joined(ctx):
            _minors_join(ctx, rule)
        if italy(ctx) == NEUTRAL_ITALY:
            _italy_enters(ctx, "Germany controls Paris", rule)
    if pol.get("vichy") and italy(ctx) == NEUTRAL_ITALY:
        _italy_enters(ctx, "Vichy France was declared", rule)
    if not pol.get("italy_france"):
        why = _france_open(ctx)
        if why:
            pol["italy_france"] = True
            ctx.emit("italy-france", "9.41", why=why, phase=rule)
    if not pol.get("leningrad") and ctx.controller(LENINGRAD) == AXIS:
        pol["leningrad"] = True
        ctx.emit("leningrad-taken", "9.17d", phase=rule)
    for m in AXIS_MINORS:  # 9.15: the units of a minor conquered by the Allies are removed (10.2 NOT IN SOURCE)
        gone = [u for u in sorted(ctx.units) if ctx.nation(u) == m]
        if gone and conquered_by_allies(ctx, m):
            ctx.emit("minor-conquered", "9.15", nation=m, units=gone, phase=rule, provisional=True)
            for u in gone:
                ctx.eliminate(u, "9.15", f"{m.capitalize()} was conquered by the Allies: its units are removed (10.2 NOT IN SOURCE)")
    if italy(ctx) == AT_WAR:
        why = _collapse(ctx)
        if why:
            pol["italy"] = COLLAPSED
            ctx.emit("italy-collapses", "9.45", why=why, phase=rule)


def _minors_at_war(ctx: Ctx) -> list[str]:
    """9.15: the Axis minors go to war alongside Germany: at war with every nation at war with it.
    Returns Germany's enemies."""
    pol = _pol(ctx)
    enemies = sorted({b if a == "germany" else a for a, b in ctx.war_pairs() if "germany" in (a, b)} - set(AXIS_MINORS))
    for m in AXIS_MINORS:
        for e in enemies:
            if not ctx.at_war(m, e):
                pol["war"] = sorted([*pol.get("war", []), sorted([m, e])])
    return enemies


def _minors_join(ctx: Ctx, rule: str) -> None:
    """9.15: from the turn Germany controls Paris the Axis minors are on the Axis side, at war with
    every nation at war with Germany; their home areas become Axis-controlled."""
    pol = _pol(ctx)
    pol["minors_joined"] = True
    enemies = _minors_at_war(ctx)
    ctx.emit("minors-join", "9.15", nations=list(AXIS_MINORS), at_war_with=enemies, phase=rule)
    for a, ar in sorted(ctx.sc.map.areas.items()):
        if ar.home in AXIS_MINORS and ctx.controller(a) == NEUTRAL and ar.ground:
            ctx.set_control(a, AXIS, "9.15")


def _italy_enters(ctx: Ctx, why: str, rule: str) -> None:
    """9.42: Italy declares war on the Allies (Britain and France) and is at war with every nation
    at war with Germany."""
    pol = _pol(ctx)
    pol["italy"] = AT_WAR
    enemies = sorted({b if a == "germany" else a for a, b in ctx.war_pairs() if "germany" in (a, b)} | {"britain", "france"})
    for e in enemies:
        if not ctx.at_war("italy", e):
            pol["war"] = sorted([*pol.get("war", []), sorted(["italy", e])])
    ctx.emit("italy-enters-war", "9.42", why=why, at_war_with=enemies, phase=rule)


def _france_open(ctx: Ctx) -> str:
    """9.41 (A-68): an Allied beachhead in France, or from 1942 an Allied-controlled area of
    mainland France."""
    for a, side in sorted(ctx.pos.get("beachheads", {}).items()):
        if side == ALLIES and _country(ctx, a) == "france":
            return f"an Allied beachhead in {ctx.area(a).name}"
    if ctx.turn.year >= 1942:
        for a, ar in sorted(ctx.sc.map.areas.items()):
            if ar.country == "france" and ar.kind == "land" and a not in chart(ctx).get("not_mainland_france", []) \
                    and ctx.controller(a) == ALLIES:
                return f"the Allies control {ar.name}, in mainland France, from 1942"
    return ""


def _collapse(ctx: Ctx) -> str:
    """9.45 (A-53, option ``italy_morale``): no Axis unit in Africa or the Middle-East, and the Axis
    does not control all of Gibraltar, Marseille and Athens (or, the alternative, none of them)."""
    for a, ar in sorted(ctx.sc.map.areas.items()):
        if ar.region in ("africa", "middle-east") and (ctx.side_in(a, AXIS) or ctx.side_gs(a, AXIS)):
            return ""
    held = [a for a in MORALE_HOLDS if ctx.controller(a) == AXIS]
    if ctx.option("italy_morale") == "none-held":
        if held:
            return ""
        return "no Axis unit is left in Africa or the Middle-East, and the Axis controls none of Gibraltar, Marseille and Athens"
    if len(held) == len(MORALE_HOLDS):
        return ""
    lost = [ctx.area(a).name for a in MORALE_HOLDS if a not in held]
    return (f"no Axis unit is left in Africa or the Middle-East, and the Axis does not control {', '.join(lost)} "
            "(all three of Gibraltar, Marseille and Athens are needed, A-53)")


# --- the end of the Axis player-turn (9.46) ---------------------------------------------------------
def mainland_italy(ctx: Ctx) -> list[str]:
    return [str(a) for a in chart(ctx).get("italy_mainland", [])]


def end_player_turn(ctx: Ctx) -> None:
    """9.46 (I.B): at the end of the Axis player-turn Italy surrenders if the Allies control its
    home resource areas (A-54, option ``italy_surrender``: both, or either), or if its morale
    collapsed, the Western Allies control Sicily, and they contest or control an area of mainland
    Italy; all Italian units and fleet points are removed from the game."""
    if ctx.side != AXIS or italy(ctx) not in (AT_WAR, COLLAPSED):
        return
    res = sorted(a for a, ar in ctx.sc.map.areas.items() if ar.home == "italy" and ar.resource > 0 and ar.kind == "land")
    held = [a for a in res if ctx.controller(a) == ALLIES]
    enough = bool(held) and (len(held) == len(res) if ctx.option("italy_surrender") == "both" else True)
    why, provisional = "", False
    if enough:
        why = f"the Allies control Italy's home resource area(s) {', '.join(ctx.area(a).name for a in held)} (A-54)"
    elif collapsed(ctx) and ctx.controller("sicily") == ALLIES:
        for a in mainland_italy(ctx):
            west = [u for u in ctx.side_in(a, ALLIES) if ctx.nation(u) in WESTERN]
            if ctx.controller(a) == ALLIES or (ctx.contested(a) and west):
                what = "control" if ctx.controller(a) == ALLIES else "contest"
                why = (f"Italian morale has collapsed, the Western Allies control Sicily and {what} "
                       f"{ctx.area(a).name} in mainland Italy")
                provisional = True
                break
    if not why:
        return
    _pol(ctx)["italy"] = SURRENDERED
    ctx.emit("italy-surrenders", "9.46", why=why, provisional=provisional)
    for u in [u for u in sorted(ctx.units) if ctx.nation(u) == "italy"]:
        ctx.eliminate(u, "9.46", "Italy surrendered: all Italian units are removed from the game")
    for a in sorted(ctx.pos.get("gs", {})):
        k = ctx.gs_in(a).get("italy", 0)
        if k:
            ctx.add_gs(a, "italy", -k)
    for sea, by in sorted(ctx.pos.get("fleets", {}).items()):
        if by.pop("italy", 0):
            ctx.pos["fleets"][sea] = by
    ctx.pos.get("sa", {}).pop("italy", None)


# --- where units may go (9.15-9.17, 9.41, 9.44) -----------------------------------------------------
def entry_problems(ctx: Ctx, units: list[str], gs: dict[str, int], frm: str, b: str, *, final: bool, strat: bool,
                   initial: bool, seas: list[str] | None = None) -> list[tuple[str, str]]:
    """Why the blocks ``units`` and GS markers ``gs`` moving from ``frm`` may not enter ``b``
    (``final``: the move ends there; ``strat``: strategic movement; ``initial``: an initial movement
    phase; ``seas``: the sea zones crossed into ``b``). Returns (text, rule) pairs."""
    out: list[tuple[str, str]] = []
    nations = sorted({ctx.nation(u) for u in units} | {n for n, k in gs.items() if k})
    bc, fc = _country(ctx, b), _country(ctx, frm) if frm in ctx.sc.map.areas else ""
    for n in nations:
        if n in AXIS_MINORS:
            if not minors_joined(ctx):
                out.append((f"{n} is not on the Axis side yet: the Axis minors operate from the turn Germany controls "
                            "Paris", "9.15"))
                continue
            allowed = set(MINOR_COUNTRIES[n])
            if n == "hungary" and axis_soviet_war(ctx):
                allowed |= HUNGARY_AT_WAR
            if bc not in allowed:
                out.append((f"{n.capitalize()} units may operate only in {', '.join(sorted(allowed))}", "9.17"))
            if fc == n and bc != n:
                for u in units:
                    if ctx.nation(u) == n and not ctx.need_steps(u, "full", 0, "9.16", f"left {n} for {b}"):
                        out.append((f"{u} is not at full strength: an Axis minor unit leaves its home country only at "
                                    "full strength", "9.16"))
            if seas and fc == "finland" and n != "germany":
                out.append(("only German units may be sea-transported out of Finland", "9.17d"))
        if n == "italy":
            out += _italian_entry(ctx, units, gs, b, final=final, strat=strat, seas=seas)
        if n == "germany" and italy(ctx) == NEUTRAL_ITALY:
            if _italian(ctx, b):
                out.append(("Italy is neutral: Germany may not enter Italian-controlled territory", "9.44"))
            if seas and MEDITERRANEAN in seas:
                out.append(("Italy is neutral: Germany may not use Mediterranean fleet points", "9.44"))
    if {fc, bc} >= {"finland", "ussr"} and fc != bc and not _pol(ctx).get("leningrad") \
            and any(ctx.side_of_nation(n) == AXIS for n in nations):
        out.append(("the Axis has not taken the Leningrad fortress: Axis units may not cross the Finnish-Soviet border", "9.17d"))
    if initial and fc != bc and "hungary" in (fc, bc) and first_soviet_war_turn(ctx):
        out.append(("in the initial movement phases of the first player-turn of the war between the Axis and the USSR no "
                    "unit of either side crosses the Hungarian border", "9.17c"))
    return out


def _italian_entry(ctx: Ctx, units: list[str], gs: dict[str, int], b: str, *, final: bool, strat: bool,
                   seas: list[str] | None) -> list[tuple[str, str]]:
    """9.41, 9.44: where Italian units and GS markers may go."""
    out: list[tuple[str, str]] = []
    ar = ctx.area(b)
    mine = [u for u in units if ctx.nation(u) == "italy"]
    k_gs = int(gs.get("italy", 0))
    if seas and italy(ctx) == NEUTRAL_ITALY and not _italian(ctx, b):
        out.append(("Italy is neutral: its units move by sea only among Italy, Sicily, Sardinia, Libya and Albania", "9.44"))
    if ar.weather == "south":
        return out
    if ar.country == "france" and _pol(ctx).get("italy_france"):
        return out
    if ar.country == "ussr":
        lim = chart(ctx).get("italy_in_ussr", {"ground": 3, "gs": 1})
        there = [u for u in ctx.units if ctx.nation(u) == "italy" and ctx.area(ctx.at(u)).country == "ussr" and u not in mine]
        gs_there = sum(ctx.gs_in(a).get("italy", 0) for a in ctx.sc.map.areas if ctx.area(a).country == "ussr")
        if len(there) + len(mine) > int(lim["ground"]):
            out.append((f"at most {lim['ground']} Italian ground units may operate in the USSR ({len(there)} there)", "9.41"))
        if k_gs and gs_there + k_gs > int(lim["gs"]):
            out.append((f"at most {lim['gs']} Italian GS unit may operate in the USSR ({gs_there} there)", "9.41"))
        return out
    if ar.country in ITALY_PASS and ctx.controller(b) == AXIS:
        if not strat:
            out.append((f"Italian units pass through {ar.country.capitalize()} by strategic movement only", "9.41"))
        elif final:
            out.append((f"Italian units pass through {ar.country.capitalize()} but may not end a phase there", "9.41"))
        return out
    where = "France (until an Allied beachhead there or, from 1942, an Allied-held area of mainland France)" \
        if ar.country == "france" else ar.name
    out.append((f"Italian units operate only in the South weather zone (and up to 3 units in the USSR): not in {where}", "9.41"))
    return out


# --- checks of a file (9.17e at the end of the phases) ----------------------------------------------
def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """9.17e (I.B, A-45, option ``romania_gs``): before the German-Soviet war Romania holds at the
    end of each phase at most 3 German ground units, at most 1 of them armor, and no German GS.
    Checked on the position the file's phases leave."""
    if ctx.at_war("germany", "ussr"):
        return
    lim = chart(ctx).get("romania_germans", {"units": 3, "armor": 1})
    here = [u for u in sorted(ctx.units) if ctx.nation(u) == "germany" and _country(ctx, ctx.at(u)) == "romania"]
    gs = sum(ctx.gs_in(a).get("germany", 0) for a in ctx.sc.map.areas if _country(ctx, a) == "romania")
    counted = len(here) + (gs if ctx.option("romania_gs") == "counted" else 0)
    if counted > int(lim["units"]):
        what = f"{len(here)} German ground units" + (f" and {gs} GS" if counted > len(here) else "")
        problems.append(Problem("move", f"{what} would be in Romania at the end of the phase: before the German-Soviet war at "
                                f"most {lim['units']}", "9.17e"))
    armor = [u for u in here if ctx.kind(u) == "armor"]
    hidden = [u for u in here if ctx.kind(u) is None]
    if len(armor) > int(lim["armor"]):
        problems.append(Problem("move", f"{len(armor)} German armor units would be in Romania: at most {lim['armor']}", "9.17e"))
    elif len(armor) == int(lim["armor"]):
        others = {t for t in ctx.sc.units.types if t != "armor"}
        for u in hidden:
            ctx.need(u, others, "9.17e", "in Romania before the German-Soviet war, with a German armor unit already there")
    if gs and ctx.option("romania_gs") == "none":
        problems.append(Problem("move", f"{gs} German GS unit(s) would be in Romania: before the German-Soviet war no German "
                                "GS may be there (A-45)", "9.17e"))


# --- production (9.13, 9.14, 9.15, 9.16, 9.19, 9.42, 9.43, 9.45) ------------------------------------
def basic(ctx: Ctx, nation: str) -> tuple[int, str, str] | None:
    """Italy's basic production (9.42, 9.45c, A-16): 5 while neutral and after its morale
    collapsed, 10 at war, nothing once it surrendered; None for another nation."""
    if nation != "italy":
        return None
    t11 = dict(ctx.sc.charts["t11_production"].data.get("italy", {}))
    st = italy(ctx)
    if st == NEUTRAL_ITALY:
        return int(t11.get("alone", 5)), "basic production while Italy is neutral", "9.42"
    if st == COLLAPSED:
        return int(t11.get("alone", 5)), "basic production after the collapse of Italian morale", "9.45c"
    if st == SURRENDERED:
        return 0, "Italy has surrendered", "9.46"
    return int(t11.get("basic", 10)), "basic production at war", "9.42"


def income(ctx: Ctx, nation: str, lines: list[dict[str, Any]], traces: Any) -> list[dict[str, Any]]:
    """The Axis lines of 4.1's income: Swedish ore (9.14), Ploesti (9.15, 9.19), German aid to Italy
    (9.43), Italy's production at zero after the collapse while a home resource area is lost (9.45c)."""
    out: list[dict[str, Any]] = []
    if nation == "germany":
        ore = _ore(ctx)
        if ore:
            out.append({"what": ore, "werps": int(ctx.sc.charts["t11_production"].data.get("sweden_ore", 2)), "rule": "9.14"})
        out += _ploesti(ctx, traces)
    if nation == "italy" and ctx.scratch.get("italy_aid"):  # 9.43: given in Germany's production, just before
        out.append({"what": "German aid", "werps": int(ctx.scratch["italy_aid"]), "rule": "9.43"})
    if nation == "italy" and collapsed(ctx):
        res = [a for a, ar in sorted(ctx.sc.map.areas.items()) if ar.home == "italy" and ar.resource > 0 and ar.kind == "land"]
        lost = [ctx.area(a).name for a in res if ctx.controller(a) != AXIS]
        total = sum(int(x["werps"]) for x in lines)
        if lost and total:
            out.append({"what": f"Italian morale has collapsed and {', '.join(lost)} is lost: production zero", "werps": -total,
                        "rule": "9.45c"})
    return out


def _ore(ctx: Ctx) -> str:
    """9.14: 2 WERPs while Sweden is neutral and Norway is neutral, or Oslo is Axis-controlled with
    at least 1 Axis FP in the Baltic."""
    if not _neutral_country(ctx, "sweden"):
        return ""
    if _neutral_country(ctx, "norway"):
        return "Swedish ore (Sweden and Norway neutral)"
    fps = sum(int(k) for n, k in ctx.pos.get("fleets", {}).get("baltic", {}).items() if ctx.side_of_nation(n) == AXIS)
    if ctx.controller("oslo") == AXIS and fps >= 1:
        return f"Swedish ore (Sweden neutral, Oslo Axis-controlled, {fps} Axis FP in the Baltic)"
    return ""


def _neutral_country(ctx: Ctx, country: str) -> bool:
    areas = [a for a, ar in ctx.sc.map.areas.items() if ar.country == country and ar.ground]
    at_war = any(country in (a, b) for a, b in ctx.war_pairs())
    return bool(areas) and not at_war and all(ctx.controller(a) == NEUTRAL for a in areas)


def _ploesti(ctx: Ctx, traces: Any) -> list[dict[str, Any]]:
    """9.15: Ploesti supplies WERPs to Germany from the minors' joining; after Romania is conquered,
    to the side that occupies and garrisons it (the Axis: Germany)."""
    a = str(chart(ctx).get("ploesti", "ploesti"))
    ar = ctx.area(a)
    if not minors_joined(ctx) or ctx.controller(a) != AXIS or ar.resource <= 0:
        return []
    if "romania" in _pol(ctx).get("conquered", {}) and not ctx.side_in(a, AXIS):
        return [{"what": f"{ar.name}: Romania conquered, not garrisoned (nothing)", "werps": 0, "rule": "9.15"}]
    if not traces(ctx, a, "germany"):
        return [{"what": f"{ar.name}: cannot trace supply (nothing)", "werps": 0, "rule": "4.12"}]
    return [{"what": f"{ar.name}: oil for Germany", "werps": ar.resource, "rule": "9.15"}]


def german_left(ctx: Ctx) -> int:
    """9.15: the German WERPs an Axis minor's steps are paid with (those Germany has left)."""
    return int(ctx.pos.get("werps", {}).get("germany", 0))


def before_orders(ctx: Ctx, n: str, prod: dict[str, Any], ledger: Any, problems: list[Problem]) -> None:
    """9.43: Germany's aid to Italy (at most 5), spent by Germany; Italy receives it in its income."""
    k = int(prod.get("italy_aid", 0) or 0)
    if not k:
        return
    cap = int(ctx.sc.charts["t16_lend_lease"].data.get("germany_to_italy", 5))
    if n == "germany":
        if ctx.side != AXIS:
            return
        if k > cap or k < 0:
            problems.append(Problem("production.italy_aid", f"{k} WERPs: Germany gives Italy at most {cap} a turn", "9.43"))
            return
        if italy(ctx) == SURRENDERED:
            problems.append(Problem("production.italy_aid", "Italy has surrendered", "9.46"))
            return
        ledger.spend("aid to Italy", k, "9.43")
        ctx.scratch["italy_aid"] = k  # Italy's income has it (``income``)


def production_start(ctx: Ctx, prod: dict[str, Any], problems: list[Problem]) -> None:
    """9.13: the Russian winter, at the start of the Axis Production Phase of its turn (provisional:
    Jan/Feb 1942)."""
    if ctx.side != AXIS:
        return
    if "italy_aid" in prod and "germany" not in ctx.sc.production:
        problems.append(Problem("production.italy_aid", "Germany does not produce in this scenario", "9.43"))
    spared = {str(k): str(v) for k, v in prod.get("winter_spared", {}).items()}
    when = Turn.parse(str(chart(ctx).get("russian_winter", "1942-jan")))
    if ctx.turn != when:
        if spared:
            problems.append(Problem("production.winter_spared", f"the Russian winter strikes in {when.label} only", "9.13"))
        return
    kinds = frozenset({"infantry"}) if ctx.option("russian_winter") == "infantry" else INFANTRY_CLASS
    hit: list[str] = []
    for u in sorted(ctx.units):
        if ctx.side_of(u) != AXIS or ctx.nation(u) == "finland" or _country(ctx, ctx.at(u)) != "ussr":
            continue
        why = f"the Russian winter of {when.label}"
        if ctx.known(u):
            if ctx.kind(u) in kinds and int(ctx.steps(u) or 0) > 1:
                hit.append(u)
                ctx.lose_step(u, "9.13", why)
            continue
        reason = spared.get(u)
        if reason == "cadre":
            ctx.need_steps(u, "==", 1, "9.13", f"{why}: spared as a cadre")
        elif reason == "type":
            others = {t for t in ctx.sc.units.types if t not in kinds}
            if not ctx.need(u, others, "9.13", f"{why}: spared as not infantry"):
                problems.append(Problem(f"production.winter_spared.{u}", f"{u} can only be infantry", "9.13"))
        else:
            if not ctx.need(u, kinds, "9.13", f"{why}: infantry loses a step"):
                continue
            hit.append(u)
            lose_hidden_step(ctx, u, "9.13", why, False)
    for u in sorted(spared):
        if u not in ctx.units or ctx.side_of(u) != AXIS or ctx.known(u) or _country(ctx, ctx.at(u)) != "ussr":
            problems.append(Problem(f"production.winter_spared.{u}", f"{u} is not a hidden Axis block in the USSR", "9.13"))
        elif spared[u] not in ("cadre", "type"):
            problems.append(Problem(f"production.winter_spared.{u}", "say why: \"cadre\" (1 step) or \"type\" (not infantry)", "9.13"))
    ctx.emit("russian-winter", "9.13", turn=when.key, units=hit, option=ctx.option("russian_winter"), provisional=True)


def free_step(ctx: Ctx, u: str, r: dict[str, Any], where: str, problems: list[Problem]) -> int:
    """9.15: the one free infantry step of an Axis minor in the Production Phase, not to the same
    country two turns running (the Axis Minor Step marker). Returns the steps it pays for (0 or 1)."""
    if not r.get("free"):
        return 0
    n = ctx.nation(u)
    bad = len(problems)
    if n not in AXIS_MINORS:
        problems.append(Problem(f"{where}.free", f"{u} is {n}'s: the free step is an Axis minor's", "9.15"))
    elif not minors_joined(ctx):
        problems.append(Problem(f"{where}.free", f"{n} has not joined the Axis yet", "9.15"))
    if ctx.scratch.get("free_step"):
        problems.append(Problem(f"{where}.free", f"the free step went to {ctx.scratch['free_step']} already: 1 a turn", "9.15"))
    marker = _pol(ctx).get("minor_step") or {}
    if marker.get("nation") == n and marker.get("turn") == ctx.turn.plus(-1).key:
        problems.append(Problem(f"{where}.free", f"{n} received the free step last turn (the Axis Minor Step marker): not "
                                "the same country two turns running", "9.15"))
    if not ctx.need(u, {"infantry"}, "9.15", "received the free Axis-minor infantry step"):
        problems.append(Problem(f"{where}.free", f"{u} is {ctx.kind(u)}: the free step is an infantry step", "9.15"))
    if len(problems) > bad:
        return 0
    ctx.scratch["free_step"] = u
    _pol(ctx)["minor_step"] = {"nation": n, "turn": ctx.turn.key}
    ctx.emit("minor-step", "9.15", unit=u, nation=n)
    return 1


def free_werps(ctx: Ctx, prod: dict[str, Any], nation: str) -> int:
    """9.15 with fog of war: the worth of the free step among ``nation``'s hidden replacements (an
    infantry step, not paid: the hidden costs add up to the WERPs announced plus it)."""
    for r in prod.get("replace", []):
        u = str(r.get("unit", ""))
        if r.get("free") and u in ctx.units and ctx.nation(u) == nation:
            return int(ctx.sc.charts["t12_costs"].data.get("step", {}).get("infantry", 1))
    return 0


def after_orders(ctx: Ctx, n: str, prod: dict[str, Any], ledger: Any, problems: list[Problem]) -> None:
    """9.15: an Axis minor's steps paid with German WERPs (Germany's left drop); 9.19: the Ploesti
    limits on new units (A-47); 9.45d: no Italian SA after the collapse."""
    if n in AXIS_MINORS and ledger.total:
        werps = ctx.pos.setdefault("werps", {})
        werps["germany"] = max(0, int(werps.get("germany", 0)) - ledger.total)
        ctx.emit("minor-paid", "9.15", nation=n, werps=ledger.total, left=werps["germany"])
    if n == "italy" and collapsed(ctx) and int(prod.get("buy", {}).get("sa", {}).get("italy", 0)):
        problems.append(Problem("production.buy.sa.italy", "Italian morale has collapsed: Italy may not build special actions", "9.45d"))
    _ploesti_limits(ctx, n, prod, problems)


def _ploesti_limits(ctx: Ctx, n: str, prod: dict[str, Any], problems: list[Problem]) -> None:
    lim = dict(ctx.sc.charts["t13_production_limits"].data.get("no_ploesti", {}))
    a = str(chart(ctx).get("ploesti", "ploesti"))
    if ctx.side != AXIS or ctx.turn.year < int(lim.get("from", 1943)) or ctx.controller(a) == AXIS:
        return
    if ctx.side_of_nation(n) != AXIS:
        return
    count = ctx.scratch.setdefault("ploesti_units", [0])
    armor = ctx.scratch.setdefault("ploesti_armor", [0, 0])
    for i, b in enumerate(prod.get("build", [])):
        if str(b.get("nation")) != n:
            continue
        w = f"production.build[{i}]"
        block = str(b.get("block", ""))
        bt = ctx.sc.units.blocks.get(block)
        if bt is not None:
            if bt.type == "militia":
                continue
            count[0] += 1
            if n == "germany" and bt.type == "armor":
                armor[0] += int(b.get("steps", 0))
                armor[1] += int(b.get("steps", 0)) if bt.elite else 0
        else:
            uid = str(b.get("id", ""))
            if count[0] >= int(lim.get("units", 2)) and uid in ctx.units:
                if not ctx.need(uid, {"militia"}, "9.19", "a new unit beyond the Ploesti limit"):
                    problems.append(Problem(w, "Ploesti lost: no more than 2 new units other than militia", "9.19"))
                continue
            count[0] += 1
        if count[0] == int(lim.get("units", 2)) + 1:
            problems.append(Problem(w, f"the Axis does not control Ploesti in {ctx.turn.year}: at most {lim.get('units', 2)} "
                                    "new units other than militia in a Production Phase (A-47)", "9.19"))
        if bt is None or n != "germany" or bt.type != "armor":
            continue
        steps, top, elite = int(b.get("steps", 0)), int(lim.get("german_armor_steps", 3)), int(lim.get("elite_steps", 1))
        if armor[0] > top >= armor[0] - steps:
            problems.append(Problem(w, f"Ploesti lost: new German armor is limited to {top} steps in a Production Phase", "9.19"))
        if bt.elite and armor[1] > elite >= armor[1] - steps:
            problems.append(Problem(w, f"Ploesti lost: at most {elite} elite German armor step in a Production Phase", "9.19"))


def minor_full_at_home(ctx: Ctx, u: str, area: str) -> tuple[bool, str] | None:
    """9.16: an Axis minor unit is replaced to full strength only in its home country (7.8 aside);
    None for another nation."""
    n = ctx.nation(u)
    if n not in AXIS_MINORS:
        return None
    if ctx.area(area).country == n:
        return True, "9.16: in its home country"
    return False, "9.16: an Axis minor reaches full strength only at home"


# --- combat (9.18, 9.45a) ---------------------------------------------------------------------------
def minor_stacking(ctx: Ctx, area: str) -> bool:
    """9.18 (A-46, option ``minor_stacking``): at the start of a combat round, units of two or more
    different Axis minor countries (or two or more Axis minor units) in the area."""
    minors = [u for u in ctx.units_in(area) if ctx.nation(u) in AXIS_MINORS]
    if ctx.option("minor_stacking") == "units":
        hit = len(minors) >= 2
    else:
        hit = len({ctx.nation(u) for u in minors}) >= 2
    if hit:
        ctx.emit("minor-stacking", "9.18", area=area, units=minors, nations=sorted({ctx.nation(u) for u in minors}),
                 option=ctx.option("minor_stacking"))
    return hit


def starts_no_naval_combat(ctx: Ctx, nation: str) -> bool:
    """9.45b: after the collapse Italian FPs start no naval combat nor naval interdiction (they
    defend, and carry, normally)."""
    return nation == "italy" and collapsed(ctx)


def no_italian_bonus(ctx: Ctx, u: str) -> bool:
    """9.45a: after the collapse of its morale Italian units receive no hit bonuses."""
    return ctx.nation(u) == "italy" and collapsed(ctx)


# --- 9.42: Italy's declarations ----------------------------------------------------------------------
def italian_declaration(ctx: Ctx, on: str) -> tuple[str, str]:
    """9.42: neutral Italy declares war on nobody until Germany controls Paris or Vichy is declared
    (then on the minor neutrals too); ("", "") when it may."""
    if italy(ctx) == SURRENDERED:
        return "Italy has surrendered", "9.46"
    if italy_at_war(ctx) or ctx.controller(PARIS) == AXIS or _pol(ctx).get("vichy"):
        return "", ""
    return "Italy is neutral: it declares war on nobody until Germany controls Paris or declares Vichy", "9.42"


# --- 9.47 --------------------------------------------------------------------------------------------
def invasion_payers(ctx: Ctx, sea: str, units: list[str], cost: int) -> dict[str, int] | str | None:
    """9.47: an Axis amphibious invasion with the Mediterranean fleet uses an Italian special
    action (Italy at war), and a German one too when non-Italian units take part. None: not such."""
    if sea != MEDITERRANEAN or not units or ctx.side_of(units[0]) != AXIS:
        return None
    if not italy_at_war(ctx):
        return "an Axis invasion with the Mediterranean fleet needs an Italian special action, once Italy is at war (9.47)"
    out = {"italy": cost}
    if any(ctx.nation(u) != "italy" for u in units):
        out["germany"] = 1
    return out


# --- reports -----------------------------------------------------------------------------------------
def _p(d: dict[str, Any]) -> str:
    return " (provisional data)" if d.get("provisional") else ""


def _r_join(e: Event) -> list[str]:
    d = e.data
    foes = ", ".join(d["at_war_with"]) or "nobody yet"
    return [f"- Germany controls Paris: the Axis minors ({', '.join(d['nations'])}) join the Axis ({e.rule}), at war with "
            f"{foes}; Ploesti supplies WERPs to Germany and German units may operate in these countries."]


def _r_italy(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['why']}: Italy enters the war ({e.rule}), at war with {', '.join(d['at_war_with'])}; its production rises "
            "to 10 WERPs a turn and it pays naval maintenance."]


def _r_france(e: Event) -> list[str]:
    return [f"- {e.data['why']}: Italian units may now operate anywhere in France, for the rest of the game ({e.rule})."]


def _r_leningrad(e: Event) -> list[str]:
    return [f"- The Axis has taken the Leningrad fortress: Axis units may cross the Finnish-Soviet border; Finnish units "
            f"operate only in Finland and the USSR ({e.rule})."]


def _r_conquered(e: Event) -> list[str]:
    d = e.data
    extra = ", and Ploesti pays the side that occupies and garrisons it" if d["nation"] == "romania" else ""
    return [f"- {str(d['nation']).capitalize()} is conquered by the Allies (10.x NOT IN SOURCE){_p(d)}: its units are removed "
            f"({', '.join(d['units'])}){extra} ({e.rule})."]


def _r_collapse(e: Event) -> list[str]:
    return [f"- Italian morale collapses for good ({e.rule}): {e.data['why']}. Italian units get no hit bonus, its fleet starts "
            "no naval combat, its production falls to 5 WERPs, and it builds no more special actions."]


def _r_surrender(e: Event) -> list[str]:
    d = e.data
    return [f"- Italy surrenders at the end of the Axis player-turn ({e.rule}){_p(d)}: {d['why']}. All Italian units and fleet "
            "points are removed from the game."]


def _r_soviet(e: Event) -> list[str]:
    return [f"- The Axis and the USSR are at war ({e.rule}): Hungarian units may also operate in Poland and the USSR, the "
            "limit on Germans in Romania ends (9.17e), and no unit crosses the Hungarian border in the initial movement "
            "phases of this player-turn (9.17c)."]


def _r_winter(e: Event) -> list[str]:
    d = e.data
    who = ", ".join(d["units"]) or "none"
    what = "infantry" if d["option"] == "infantry" else "infantry-class"
    return [f"- The Russian winter of {Turn.parse(str(d['turn'])).label}{_p(d)}: every Axis {what} unit in the USSR, Finnish "
            f"units and cadres excepted, loses a step ({e.rule}, A-43): {who}."]


def _r_step(e: Event) -> list[str]:
    d = e.data
    return [f"- {d['unit']} ({d['nation']}) receives the free Axis-minor infantry step ({e.rule}); the Axis Minor Step marker goes "
            f"to {d['nation']}, which may not have it next turn."]


def _r_paid(e: Event) -> list[str]:
    d = e.data
    return [f"- {str(d['nation']).capitalize()}'s steps are paid with German WERPs ({e.rule}): {d['werps']}; Germany has "
            f"{d['left']} left."]


def _r_stack(e: Event) -> list[str]:
    d = e.data
    what = "units of two or more Axis minor countries" if d["option"] == "nations" else "two or more Axis minor units"
    return [f"- In {d['area']} {what} stand together at the start of the round ({', '.join(d['units'])}): the Allies get an "
            f"anti-infantry hit bonus there ({e.rule}, A-46)."]


RENDER: dict[str, Any] = {
    "minors-join": _r_join, "italy-enters-war": _r_italy, "italy-france": _r_france, "leningrad-taken": _r_leningrad,
    "minor-conquered": _r_conquered, "italy-collapses": _r_collapse, "italy-surrenders": _r_surrender,
    "soviet-war-restrictions": _r_soviet, "russian-winter": _r_winter, "minor-step": _r_step, "minor-paid": _r_paid,
    "minor-stacking": _r_stack,
}
