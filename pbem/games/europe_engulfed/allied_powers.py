"""The Allied powers' rules that are not declarations of war (9.2 the USSR, 9.3 Britain and the
U.S.A., 9.51 France) and the German restrictions of 9.12, each keyed by nation (never by party).

- Where units may operate (checked on every move, strat-move and sea move, movement.py): German
  militia (9.12), the South weather zone closed to the USSR but for Turkey, Persia, Albania,
  Yugoslavia and Italy (9.21), Soviet and Western units never in each other's areas (9.22, 9.28,
  9.33; Persia excepted, A-48), British militia at home (9.33), British units out of French North
  Africa and the Levant until Paris falls or Vichy is declared (9.51b), units in the U.S.A. box
  (9.37: by sea, never straight into a contested area).
  Which Allied nation holds an Allied-controlled area (the Soviet and Western halves of the
  Allies, 9.28): the nations of the Allied units in it; with none, the USSR's home areas, the Pact
  areas and Persia after a Soviet entry are Soviet, the rest Western.
- Production (production.py calls these): the USSR's production by date and war (9.24a-c, A-50),
  the U.S.A.'s none before Jan/Feb 1942 unless at war (9.32), the step costs (9.24d cadre relief,
  9.24g manpower exhaustion, 9.38 British manpower, A-44), Emergency Conscription (9.24f, T-15), the
  4 free elite infantry (9.24e), lend-lease (9.34-9.36, T-16, A-52; rolled at the start of the Allied
  player-turn, since checking never rolls), no strategic assets for the USSR nor France (9.27,
  9.51a).
- The Soviet Up-Front Defence (9.26), checked at the end of every Allied player-turn while the
  Pact is in force.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from .context import Ctx
from .data import GERMAN_MILITIA, UP_FRONT, Turn
from .politics import _pol, soviet_war_began, us_at_war

SOUTH_OPEN = frozenset({"turkey", "persia", "albania", "yugoslavia", "italy"})  # 9.21
WEST = ("britain", "usa", "france")
FRENCH_AFRICA = frozenset({"french-north-africa", "french-levant"})  # 9.51b
NO_ASSETS = frozenset({"ussr", "france"})  # 9.27, 9.51a


# --- who holds an Allied area (9.28) ------------------------------------------------------------

def _camp(nation: str) -> str:
    return "ussr" if nation == "ussr" else "west" if nation in WEST else ""


def holder(ctx: Ctx, area: str) -> str:
    """9.28: which half of the Allies holds an Allied-controlled area: "ussr", "west", or "" (an
    area not Allied-controlled, or Allied units of both halves in it)."""
    allies = ctx.side_of_nation("ussr")
    if ctx.controller(area) != allies:
        return ""
    camps = {_camp(ctx.nation(u)) for u in ctx.side_in(area, allies)} | {_camp(n) for n in ctx.side_gs(area, allies)}
    camps.discard("")
    if len(camps) == 1:
        return camps.pop()
    if camps:
        return ""
    ar = ctx.area(area)
    pol = _pol(ctx)
    if ar.home == "ussr" or ar.country == "ussr" or pact_area(ctx, area) and pol.get("pact"):
        return "ussr"
    if ar.country == "persia":
        return str(pol.get("persia", "west"))
    return "west"


def operate(ctx: Ctx, units: list[str], gs: dict[str, int], area: str, where: str) -> list[Problem]:
    """Where the moving units' nations may operate (9.12, 9.21, 9.22, 9.28, 9.33, 9.51b)."""
    out: list[Problem] = []
    ar = ctx.area(area)
    nations = sorted({ctx.nation(u) for u in units} | {n for n, k in gs.items() if k})
    hold = holder(ctx, area)
    pol = _pol(ctx)
    for n in nations:
        if n == "ussr":
            if ar.weather == "south" and ar.country not in SOUTH_OPEN:
                out.append(Problem(where, f"Soviet units may not operate in the South weather zone ({area}) but in Turkey, "
                                   "Persia, Albania, Yugoslavia and Italy", "9.21"))
            if hold == "west" and ar.country != "persia":
                out.append(Problem(where, f"{area} is held by the Western Allies: Soviet units may not enter it", "9.22, 9.28"))
        elif n in ("britain", "usa"):
            if hold == "ussr" and not (ar.country == "persia" and not any(ctx.nation(u) == "ussr" for u in ctx.units_in(area))):
                what = "a Soviet area" if ar.country != "persia" else "Persia while Soviet units are in it (A-48)"
                out.append(Problem(where, f"{area} is {what}: British and US units may not operate there", "9.33, 9.28"))
            if n == "britain" and ar.country in FRENCH_AFRICA and not (pol.get("paris") or pol.get("vichy")):
                out.append(Problem(where, f"British units may not enter French North Africa or the French Levant ({area}) until "
                                   "Paris is Axis-controlled or Vichy is declared", "9.51b"))
    base = where.rsplit(".path", 1)[0].rsplit(".area", 1)[0]
    for j, u in enumerate(units):
        n = ctx.nation(u)
        if n == "germany" and ar.country not in GERMAN_MILITIA and not ctx.need(
                u, {t for t in ctx.sc.units.types if t != "militia"}, "9.12", f"operated in {area}"):
            out.append(Problem(f"{base}.units[{j}]", f"{u} is German militia: it operates only in Germany, "
                               "Italy, France, Belgium, the Netherlands, Denmark, Hungary and Poland", "9.12"))
        if n == "britain" and ar.home != "britain" and not ctx.need(
                u, {t for t in ctx.sc.units.types if t != "militia"}, "9.33", f"operated in {area}"):
            out.append(Problem(f"{base}.units[{j}]", f"{u} is British militia: it operates only in "
                               "British home areas", "9.33"))
    return out


def pact_area(ctx: Ctx, area: str) -> bool:
    """9.25: the areas the USSR occupies under the Pact: the Baltic States, Brest-Litovsk, Lvov and
    Bessarabia."""
    return area in UP_FRONT or ctx.area(area).country == "baltic-states"


def pact_entry(ctx: Ctx, units: list[str], gs: dict[str, int], area: str) -> bool:
    """9.25: under the Pact Soviet units (only) enter a neutral Pact area without a declaration of
    war: the USSR occupies it (it becomes Allied-controlled, a conquest, not a Soviet home area)."""
    nations = {ctx.nation(u) for u in units} | {n for n, k in gs.items() if k}
    return bool(_pol(ctx).get("pact")) and nations == {"ussr"} and pact_area(ctx, area) and ctx.controller(area) == "neutral"


def usa_box(ctx: Ctx, start: str, dest: str, where: str, invasion: bool = False) -> list[Problem]:
    """9.37: units in the U.S.A. box move by sea, but never straight into a contested area nor by an
    amphibious invasion, except invasions of Vichy-controlled Morocco and of Axis-controlled invasion
    sites on the British home island."""
    if ctx.area(start).kind != "box":
        return []
    if invasion:
        ok = (dest == "morocco" and ctx.controller(dest) == "vichy") or (
            ctx.area(dest).home == "britain" and ctx.controller(dest) == ctx.side_of_nation("germany"))
        if not ok:
            return [Problem(where, "units in the U.S.A. box invade only Vichy-controlled Morocco or Axis-controlled invasion "
                            "sites of the British home island", "9.37")]
        return []
    if ctx.contested(dest):
        return [Problem(where, f"units in the U.S.A. box may not move straight into a contested area ({dest})", "9.37")]
    return []


def italian_transport(ctx: Ctx, units: list[str], sea: str, where: str) -> list[Problem]:
    """9.12 (A-42): while Vichy is declared and until the Allies declare war on Vichy France (not
    after France's conquest), one German ground unit a game turn moves by Italian sea transport
    (German units beyond the German FPs free in the zone), and only while Italian ground units
    outnumber German ones in Africa, counted with the units carried."""
    pol = _pol(ctx)
    germans = [u for u in units if ctx.nation(u) == "germany"]
    if not germans or not pol.get("vichy") or any("vichy" in p for p in ctx.war_pairs()):
        return []
    from .politics import conquered
    if conquered(ctx, "france"):
        return []
    own = int(ctx.pos.get("fleets", {}).get(sea, {}).get("germany", 0)) - int(ctx.pos.get("transport", {}).get(sea, {})
                                                                               .get("germany", 0))
    italian = max(0, len(germans) - max(0, own))
    if not italian or not int(ctx.pos.get("fleets", {}).get(sea, {}).get("italy", 0)):
        return []
    out = []
    done = pol.get("italian_transport", {})
    before = int(done.get("units", 0)) if done.get("turn") == ctx.turn.key else 0
    if before + italian > 1:
        out.append(Problem(where, f"{before + italian} German ground units by Italian sea transport this game turn: at most 1 while "
                           "Vichy stands", "9.12"))
    africa = [a for a, ar in ctx.sc.map.areas.items() if ar.region == "africa"]
    ita = sum(1 for u in ctx.units if ctx.nation(u) == "italy" and ctx.at(u) in africa)
    ger = sum(1 for u in ctx.units if ctx.nation(u) == "germany" and ctx.at(u) in africa and u not in germans) + len(germans)
    if ita <= ger:
        out.append(Problem(where, f"{ita} Italian ground units in Africa against {ger} German with those carried: the Italians "
                           "must outnumber the Germans for Italian sea transport (A-42)", "9.12"))
    pol["italian_transport"] = {"turn": ctx.turn.key, "units": before + italian}
    return out


def persia_entered(ctx: Ctx, area: str) -> None:
    """9.22, A-48: Soviet units entering Persia make it Soviet; Western units re-entering it empty of
    Soviet units return it to Britain."""
    if ctx.area(area).country != "persia":
        return
    pol = _pol(ctx)
    here = {ctx.nation(u) for u in ctx.units_in(area)}
    was = str(pol.get("persia", "west"))
    now = "ussr" if "ussr" in here else "west" if here & set(WEST) else was
    if now != was:
        pol["persia"] = now
        ctx.emit("persia", "9.22", holder=now)


# --- production (9.24, 9.27, 9.32, 9.38, 9.34-9.36) ----------------------------------------------
ASSET_KEYS = frozenset({"asw", "flak"})  # fighters, bombers, U-boats, V-weapons: strategic.buy (9.27 there too)


def check_assets(ctx: Ctx, nation: str, buy: dict[str, Any], problems: list[Problem]) -> None:
    """9.27, 9.51a: the USSR and France build no strategic assets (the USSR builds FPs normally)."""
    if nation not in NO_ASSETS:
        return
    for key in sorted(ASSET_KEYS & set(buy)):
        if int(buy.get(key, {}).get(nation, 0) or 0):
            rule = "9.27" if nation == "ussr" else "9.51a"
            problems.append(Problem(f"production.buy.{key}.{nation}", f"{'the USSR' if nation == 'ussr' else 'France'} may not "
                                    "build strategic assets", rule))


def maintained(ctx: Ctx, nation: str) -> list[str]:
    """9.32: the nations whose FPs ``nation`` pays maintenance for: Britain pays for the pooled
    British and US FPs (the U.S.A. once Britain is conquered); every other nation its own."""
    from .politics import conquered
    if nation == "britain":
        return [] if conquered(ctx, "britain") else ["britain", "usa"]
    if nation == "usa":
        return ["britain", "usa"] if conquered(ctx, "britain") else []
    return [nation]


def basic(ctx: Ctx, nation: str) -> tuple[int, str, str] | None:
    """The basic production of the USSR (9.24a-c: 0 in 1939, 9 from 1940, 17 from 1941 while not
    at war with Germany; 34 at war, A-50) and of the U.S.A. (9.32: none before Jan/Feb 1942 unless
    at war; T-11 after); None for the others (the scenario's)."""
    prod = ctx.sc.charts["t11_production"].data
    if nation == "ussr":
        war = soviet_war_began(ctx)
        if war and (ctx.option("soviet_full_production") == "first-phase" or war < ctx.turn):
            return int(prod["ussr"]["basic"]), "at war with Germany: full production", "9.24c (A-50)"
        year = min(str(y) for y in prod["ussr"]["pre_war"])
        for y in sorted(prod["ussr"]["pre_war"], key=int):
            if int(y) <= ctx.turn.year:
                year = str(y)
        return int(prod["ussr"]["pre_war"][year]), f"not at war with Germany ({year} rate)", "9.24a-b"
    if nation == "usa":
        if us_at_war(ctx) or ctx.turn >= Turn.parse("1942-jan"):
            return int(prod["usa"]["basic"]), "basic production", "9.32, 4.14"
        return 0, "no production phase before Jan/Feb 1942 while not at war", "9.32"
    return None


def step_cost(ctx: Ctx, nation: str, base: int, cadre: bool, plain: int) -> int:
    """4.43 with section 9: ``base`` the chart's cost of the step (``plain`` without the cadre
    doubling): the Soviet cadre step at the normal cost from the German-Soviet war until 1943
    (9.24d); +1 a Soviet step from Jan/Feb 1945 after Emergency Conscription (9.24g); +1 a British
    step until Jan/Feb 1944 (9.38; A-44 option british_manpower)."""
    pol = _pol(ctx)
    cost = base
    if nation == "ussr" and cadre and soviet_war_began(ctx) and ctx.turn < Turn.parse("1943-jan"):
        cost = plain
    if nation == "ussr" and pol.get("conscription") and ctx.turn >= Turn.parse(
            str(ctx.sc.charts["t15_conscription"].data.get("extra_cost_from", "1945-jan"))):
        cost += 1
    if nation == "britain":
        until = ctx.turn < Turn.parse("1944-jan")
        if until == (ctx.option("british_manpower") == "until-1944"):
            cost += 1
    return cost


def conscripts(ctx: Ctx, nation: str) -> int:
    """9.24f (T-15): the free non-elite infantry steps Emergency Conscription gives this turn."""
    since = str(_pol(ctx).get("conscription", ""))
    if nation != "ussr" or not since:
        return 0
    i = ctx.turn.ordinal() - Turn.parse(since).ordinal()
    steps = [int(s) for s in ctx.sc.charts["t15_conscription"].data["steps"]]
    return steps[i] if 0 <= i < len(steps) else 0


def check_conscription(ctx: Ctx, prod: dict[str, Any], problems: list[Problem]) -> None:
    """9.24f: the USSR declares Emergency Conscription once, at war with Germany, in its
    Production Phase (``[production] conscription = true``)."""
    if not prod.get("conscription"):
        return
    pol = _pol(ctx)
    if ctx.side_of_nation("ussr") != ctx.side:
        problems.append(Problem("production.conscription", "Emergency Conscription is the USSR's", "9.24f"))
    elif not soviet_war_began(ctx):
        problems.append(Problem("production.conscription", "Emergency Conscription comes once the USSR is at war with Germany",
                                "9.24f"))
    elif pol.get("conscription"):
        problems.append(Problem("production.conscription", "Emergency Conscription was declared already "
                                f"({Turn.parse(str(pol['conscription'])).label}): once only", "9.24f"))
    else:
        pol["conscription"] = ctx.turn.key
        ctx.emit("conscription", "9.24f", steps=[int(s) for s in ctx.sc.charts["t15_conscription"].data["steps"]])


def free_werps(ctx: Ctx, prod: dict[str, Any], nation: str) -> int:
    """9.24e-f with fog of war: the worth of what the USSR's hidden items get free — the conscript
    steps announced (``[production] conscripts = { ussr = n }``, each a non-elite infantry step) and
    the free elite infantry units built (full strength): the hidden costs add up to the WERPs
    announced plus it (fog.py)."""
    if nation != "ussr" or not ctx.secret:
        return 0
    units = ctx.sc.units
    inf = step_cost(ctx, nation, units.step_cost("su-inf"), False, units.step_cost("su-inf"))
    worth = int(prod.get("conscripts", {}).get(nation, 0)) * inf
    elite = [k for k, bt in sorted(units.blocks.items()) if bt.nation == nation and bt.elite and bt.type == "infantry"]
    if elite:
        bt = units.blocks[elite[0]]
        one = step_cost(ctx, nation, units.step_cost(elite[0], True), True, units.step_cost(elite[0]))
        one += (bt.steps - 1) * step_cost(ctx, nation, units.step_cost(elite[0]), False, units.step_cost(elite[0]))
        worth += one * sum(1 for b in prod.get("build", []) if b.get("free") and str(b.get("nation")) == nation)
    return worth


def no_special_actions(ctx: Ctx, nation: str) -> bool:
    """9.24f: no SA bought during the 4 turns of Emergency Conscription."""
    return conscripts(ctx, nation) > 0 and bool(ctx.sc.charts["t15_conscription"].data.get("no_special_actions", True))


def free_elite(ctx: Ctx, nation: str) -> int:
    """9.24e: the free full-strength elite infantry units the USSR receives this turn (4 in the
    first Jan/Feb after the German-Soviet war began), 0 otherwise."""
    return 4 if nation == "ussr" and str(_pol(ctx).get("free_elite", "")) == ctx.turn.key else 0


def lend_lease_lines(ctx: Ctx, nation: str, prod: dict[str, Any], problems: list[Problem]) -> list[dict[str, Any]]:
    """9.34-9.36 (T-16): the lend-lease WERPs a nation receives or sends this Production Phase: US
    lend-lease rolled at the start of the Allied player-turn (``politics.lend_lease``), the U.S.A.'s
    transfer after its entry (9.36, ``lend_lease.usa_to_britain``), Britain's to the USSR (9.35,
    ``lend_lease.britain_to_ussr = { route, werps }``, recorded for the USSR, which produces later)."""
    pol = _pol(ctx)
    ll = pol.get("lend_lease", {})
    if ll.get("turn") != ctx.turn.key:
        ll = {}
    orders = prod.get("lend_lease", {})
    out = []
    if nation == "britain" and int(ll.get("britain", 0)):
        out.append({"what": f"US lend-lease (die {ll['britain_die']})", "werps": int(ll["britain"]), "rule": "9.34 (A-52)"})
    if nation == "usa":
        sent = int(ll.get("britain", 0)) + int(ll.get("ussr", 0))
        if sent:
            out.append({"what": "US lend-lease sent", "werps": -sent, "rule": "9.34"})
    if nation == "ussr":
        if int(ll.get("ussr", 0)):
            out.append({"what": f"US lend-lease (die {ll['ussr_die']})", "werps": int(ll["ussr"]), "rule": "9.34 (A-52)"})
        if int(ll.get("from_britain", 0)):
            out.append({"what": f"British lend-lease via {ll['route']}", "werps": int(ll["from_britain"]), "rule": "9.35"})
    k = int(orders.get("usa_to_britain", 0))
    if k and nation in ("usa", "britain"):
        cap = int(ctx.option("us_to_uk_cap_after_entry")) or int(ctx.sc.charts["t16_lend_lease"].data["us_after_entry"])
        if not us_at_war(ctx):
            if nation == "britain":
                problems.append(Problem("production.lend_lease.usa_to_britain", "the U.S.A. transfers WERPs this way once "
                                        "in the war (9.34 before)", "9.36"))
        elif k > cap:
            if nation == "britain":
                problems.append(Problem("production.lend_lease.usa_to_britain", f"at most {cap} WERPs a turn (A-52)", "9.36"))
        else:
            out.append({"what": "US transfer after entry", "werps": k if nation == "britain" else -k, "rule": "9.36 (A-52)"})
    return out


def britain_to_ussr(ctx: Ctx, prod: dict[str, Any], available: int, problems: list[Problem]) -> tuple[int, dict[str, Any]]:
    """9.35: Britain sends WERPs to the USSR once Germany and the USSR are at war: at most half its
    WERPs (after strategic warfare, US lend-lease and maintenance), all at once by one route: via
    Murmansk up to 2 per Atlantic FP (half arrives if Germany holds Trondheim; closed while the Axis
    holds the Onega Swamp), via Persia up to 1 per Atlantic FP (half arrives; closed while the Axis
    holds Persia). Returns the WERPs sent and what arrives."""
    order = prod.get("lend_lease", {}).get("britain_to_ussr")
    if not order:
        return 0, {}
    w = "production.lend_lease.britain_to_ussr"
    t = ctx.sc.charts["t16_lend_lease"].data
    route, k = str(order.get("route", "")), int(order.get("werps", 0))
    axis = ctx.side_of_nation("germany")
    atlantic = sum(int(ctx.pos.get("fleets", {}).get("atlantic", {}).get(n, 0)) for n in ("britain", "usa"))
    bad = len(problems)
    if not soviet_war_began(ctx):
        problems.append(Problem(w, "Britain sends lend-lease to the USSR once Germany and the USSR are at war", "9.35"))
    if k <= 0:
        problems.append(Problem(f"{w}.werps", "the WERPs sent: a positive number", "9.35"))
    if k > available // 2:
        problems.append(Problem(f"{w}.werps", f"at most half of Britain's {available} WERPs: {available // 2}", "9.35"))
    if route == "murmansk":
        cap, arrive = int(t["murmansk_per_fp"]) * atlantic, k
        if ctx.controller(str(t["murmansk_closed_by"])) == axis:
            problems.append(Problem(f"{w}.route", "the Murmansk route is closed while the Axis controls the Onega Swamp", "9.35"))
        if ctx.controller(str(t["murmansk_halved_by"])) == axis:
            arrive = k // 2
    elif route == "persia":
        cap, arrive = int(t["persia_per_fp"]) * atlantic, k // 2
        if ctx.controller("persia") == axis:
            problems.append(Problem(f"{w}.route", "the Persia route is closed while the Axis controls Persia", "9.35"))
    else:
        problems.append(Problem(f"{w}.route", "the route is murmansk or persia", "9.35"))
        return 0, {}
    if k > cap:
        problems.append(Problem(f"{w}.werps", f"the {route} route carries at most {cap} WERPs ({atlantic} Atlantic FP)", "9.35"))
    if len(problems) > bad:
        return 0, {}
    ll = _pol(ctx).setdefault("lend_lease", {"turn": ctx.turn.key})
    if ll.get("turn") != ctx.turn.key:
        ll.clear()
        ll["turn"] = ctx.turn.key
    ll.update(route=route, from_britain=arrive)
    return k, {"route": route, "sent": k, "arrives": arrive, "lost": k - arrive, "fp": atlantic}


def roll_lend_lease(ctx: Ctx) -> None:
    """9.34 (A-52): at the start of the Allied player-turn, from the first one after Germany
    controls Paris and until the U.S.A. enters the war, lend-lease "may be sent": when the Allies'
    standing ``lend_lease = true`` asks for it, one die for US lend-lease to Britain (and one for the
    USSR once at war with Germany): the option us_lendlease_formula ("chart": the die times T-16
    us_die_factor, at most us_max; "die": the die)."""
    pol = _pol(ctx)
    paris = str(pol.get("paris", ""))
    if ctx.side != ctx.side_of_nation("britain") or not paris or us_at_war(ctx):
        return
    if not ctx.standing.get(ctx.side_of_nation("britain"), {}).get("lend_lease"):
        return
    t = ctx.sc.charts["t16_lend_lease"].data
    ll: dict[str, Any] = {"turn": ctx.turn.key}
    for to in ("britain", "ussr"):
        if to == "ussr" and not soviet_war_began(ctx):
            continue
        (die,) = ctx.roll(f"9.34|{ctx.turn.key}|{to}|lend-lease")
        k = die if ctx.option("us_lendlease_formula") == "die" else min(die * int(t["us_die_factor"]), int(t["us_max"]))
        ll[to], ll[f"{to}_die"] = k, die
        ctx.emit("lend-lease", "9.34", to=to, die=die, werps=k, formula=ctx.option("us_lendlease_formula"), provisional=True)
    pol["lend_lease"] = ll


# --- the Up-Front Defence (9.26) ------------------------------------------------------------------

def up_front(ctx: Ctx) -> None:
    """9.26: at the end of every Allied player-turn while the Pact is in force, at least half the
    Soviet ground units and every Soviet GS must be in Bessarabia, Lvov, Brest-Litovsk and Lithuania,
    and until Jan/Feb 1941 each of these areas must hold a ground unit. Else the German player may
    move Soviet units from outside, unseen, into the front areas the Allies control: it does when its
    standing ``up_front`` says so (``true``, or the Soviet units to take first; then by id; each to
    the front area with the fewest Soviet units, an empty one first)."""
    pol = _pol(ctx)
    if not pol.get("pact") or ctx.side != ctx.side_of_nation("ussr"):
        return
    allies = ctx.side_of_nation("ussr")
    front = [a for a in UP_FRONT if a in ctx.sc.map.areas and ctx.controller(a) == allies and not ctx.contested(a)]
    soviet = sorted(u for u in ctx.units if ctx.nation(u) == "ussr")
    inside = [u for u in soviet if ctx.at(u) in UP_FRONT]
    need = (len(soviet) + 1) // 2
    each = ctx.turn < Turn.parse("1941-jan")
    empty = [a for a in front if not any(ctx.nation(u) == "ussr" for u in ctx.units_in(a))] if each else []
    gs_out = {a: by["ussr"] for a, by in sorted(ctx.pos.get("gs", {}).items()) if a not in UP_FRONT and by.get("ussr")}
    ok = len(inside) >= need and not empty and not gs_out
    ctx.emit("up-front", "9.26", units=len(soviet), inside=len(inside), need=need, empty=empty, gs_outside=sum(gs_out.values()),
             ok=ok)
    wish = ctx.standing.get(ctx.side_of_nation("germany"), {}).get("up_front")
    if ok or not front or not wish:
        return
    order = [str(u) for u in (wish if isinstance(wish, list) else []) if str(u) in soviet]
    order += [u for u in soviet if u not in order]
    outside = [u for u in order if ctx.at(u) not in UP_FRONT]
    moved = 0
    while outside and (len(inside) + moved < need or empty):
        u = outside.pop(0)
        to = empty.pop(0) if empty else min(front, key=lambda a: (sum(ctx.nation(x) == "ussr" for x in ctx.units_in(a)), a))
        frm = ctx.at(u)
        ctx.place(u, to)
        moved += 1
        ctx.emit("up-front-moved", "9.26", unit=u, frm=frm, to=to)
    for a, k in gs_out.items():
        to = front[0]
        ctx.add_gs(a, "ussr", -k)
        ctx.add_gs(to, "ussr", k)
        ctx.emit("up-front-moved", "9.26", gs=k, frm=a, to=to)


# --- reports ------------------------------------------------------------------------------------
def _lend_lease(e: Event) -> list[str]:
    d = e.data
    how = "the die" if d["formula"] == "die" else "the die times 3, at most 15 (T-16)"
    return [f"- US lend-lease to {'Britain' if d['to'] == 'britain' else 'the USSR'}: die {d['die']}, {d['werps']} WERPs "
            f"({how}; 9.34, A-52, provisional)."]


def _conscription(e: Event) -> list[str]:
    s = e.data["steps"]
    return [f"- The USSR declares Emergency Conscription: {', '.join(map(str, s))} free non-elite infantry steps in this and "
            "the next three Soviet Production Phases; no special action bought meanwhile (9.24f, T-15)."]


def _up_front(e: Event) -> list[str]:
    d = e.data
    state = "met" if d["ok"] else "not met: the German player moves Soviet units from outside"
    line = (f"- Soviet Up-Front Defence (9.26): {d['inside']} of {d['units']} Soviet ground units in Bessarabia, Lvov, "
            f"Brest-Litovsk and Lithuania (at least {d['need']})")
    if d["empty"]:
        line += f", {', '.join(d['empty'])} empty"
    if d["gs_outside"]:
        line += f", {d['gs_outside']} Soviet GS outside"
    return [line + f": {state}."]


def _up_front_moved(e: Event) -> list[str]:
    d = e.data
    what = d.get("unit") or f"{d['gs']} Soviet GS"
    return [f"- {what} moved from {d['frm']} to {d['to']} (9.26)."]


def _persia(e: Event) -> list[str]:
    who = "the USSR" if e.data["holder"] == "ussr" else "Britain"
    return [f"- Persia is held by {who} now (9.22, A-48)."]


def _ll_sent(e: Event) -> list[str]:
    d = e.data
    return [f"- Britain sends {d['sent']} WERPs of lend-lease to the USSR via {d['route'].capitalize()} ({d['fp']} Atlantic FP): "
            f"{d['arrives']} arrive, {d['lost']} lost (9.35)."]


RENDER = {"lend-lease": _lend_lease, "conscription": _conscription, "up-front": _up_front, "up-front-moved": _up_front_moved,
          "persia": _persia, "lend-lease-sent": _ll_sent}
