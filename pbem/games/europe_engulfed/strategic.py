"""Strategic warfare (2.0-2.3; J-3 "Strategic warfare sub-step"): the U-boat campaign (2.1,
2.11-2.13), strategic bombing with escorts, interceptors and Flak (2.2, 2.21-2.24), rail
interdiction (2.25), the damage cap (2.26), bombing in support of ground operations (2.27),
V-weapons (2.28), and the purchase limits of strategic assets (2.3, T-7).

When (2.0, 1.22, I.A AX-2 (a) and AL): first in each production phase, in the transition that
reaches the phasing side's movement step, so that its production orders already see the WERPs lost.
At the start of Germany's production phase the Western Allies may bomb Germany; at the start of
Britain's, the U-boats attack (compulsory, 2.0, A-04), then Germany may bomb Britain, then the V-1s
and V-2s are launched (resolved separately, 2.28).

Who decides (J-3 (a)): the attacker's standing instructions (``[standing] strategic``: ``bomb``,
``divert`` (2.27, the Western Allies), ``v1``/``v2`` launch counts (2.28)) and the defender's
(``intercept``: "always" (default), "never" or "stronger", when interception is not compulsory;
``intercept_v1``). The party giving them is the one of the nation concerned: the Western Allied
raid is Britain's and the U.S.A.'s (9.32, their assets shared), the German raids and launches
Germany's, the defence of each its own.

The information track (Glossary "Strategic Assets") is the position's ``assets``: fighters and
bombers by pool (``axis``: Germany's; ``allies``: the shared British and US points, 9.32, the
scenario's keys), ``uboats``, ``asw`` (Britain's level), ``flak`` by nation, ``v1``, ``v2``.
The turn's results are in ``position.strategic``: ``turn``, ``damage`` (WERPs lost by nation this
production phase, read by production.py), ``strat`` (strat-move modifiers by nation: 2.13, 2.25,
read by movement.strat_limit), ``west`` (2.27's modifier of strat-moves touching the West weather
zone), ``diverted`` (the last turn of a 2.27 diversion, for "not in two consecutive turns").

Data: every number is read from charts.toml (T-4 ``t4_air_war``, T-5 ``t5_flak``, T-6
``t6_v_weapons``, T-7 ``t7_strategic_limits``, T-12 ``t12_costs``, and the provisional ``asw`` and
``uboat_attack`` tables): an event decided by a provisional table says so (``provisional``).
"""

from __future__ import annotations

import math
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import supply
from .context import Ctx
from .data import ALLIES, AXIS, Turn

KEYS: tuple[str, ...] = ()  # no order keys: standing instructions (J-3 (a)) and production purchases
STANDING_KEYS = ("bomb", "divert", "v1", "v2", "intercept", "intercept_v1", "interceptors")
INTERCEPT = ("always", "never", "stronger")
WESTERN = ("britain", "usa")  # 9.32: the Western Allies' shared strategic assets
ITEMS = ("fighters", "bombers", "uboats", "v1", "v2")  # bought in production (4.43, 2.3)
CLEAR = frozenset({"clear", "light-mud"})  # 2.22a, 2.23: Clear or Lt. Mud against Mud or Snow


def pool(nation: str) -> str:
    """The key of a nation's fighters and bombers on the information track (the scenario's keys:
    Germany's ``axis``, the shared British and US ``allies``, 9.32)."""
    return AXIS if nation == "germany" else ALLIES


def _chart(ctx: Ctx, name: str) -> dict[str, Any]:
    return dict(ctx.sc.charts[name].data)


def _provisional(ctx: Ctx, name: str) -> bool:
    return bool(getattr(ctx.sc.charts[name], "provisional", False))


def _assets(ctx: Ctx) -> dict[str, Any]:
    return ctx.pos.setdefault("assets", {})  # type: ignore[no-any-return]


def _held(ctx: Ctx, item: str, nation: str = "germany") -> int:
    a = _assets(ctx)
    if item in ("fighters", "bombers"):
        return int(a.get(item, {}).get(pool(nation), 0))
    if item == "flak":
        return int(a.get("flak", {}).get(nation, 0))
    return int(a.get(item, 0))


def _set(ctx: Ctx, item: str, value: int, nation: str = "germany") -> None:
    a = _assets(ctx)
    if item in ("fighters", "bombers"):
        by = dict(a.get(item, {}))
        by[pool(nation)] = value
        a[item] = dict(sorted(by.items()))
    else:
        a[item] = value


def _standing(ctx: Ctx, nation: str) -> dict[str, Any]:
    """The ``strategic`` standing instructions of the party of ``nation``."""
    return dict(ctx.standing.get(ctx.side_of_nation(nation), {}).get("strategic", {}))


def _period(ctx: Ctx, rows: list[dict[str, Any]], raider: str) -> dict[str, Any]:
    """T-4: the row in force this turn for a raid of ``raider`` ("allied" or "german"): the latest
    whose ``from`` has come (2.24: once in effect, for the rest of the game) and whose ``against``,
    ``bombers`` or ``escorts`` names that raider, when it names one (2.24 is the Allies' alone)."""
    chosen = rows[0]
    for r in rows:
        start = str(r["from"])
        when = Turn.parse(start) if "-" in start else Turn.parse(f"{start}-jan")
        who = [str(r[k]) for k in ("against", "bombers", "escorts") if k in r]
        if ctx.turn >= when and all(w == raider for w in who):
            chosen = r
    return chosen


def _score(faces: list[int], hit: int, exchange: int) -> tuple[int, int]:
    """Hits (a face >= ``hit``; 0: none) and exchanges (``exchange`` <= face < hit; 0: none)."""
    hits = sum(1 for f in faces if hit and f >= hit)
    ex = sum(1 for f in faces if exchange and f >= exchange and not (hit and f >= hit))
    return hits, ex


def _werps_cap(ctx: Ctx, nation: str) -> tuple[int, int]:
    """2.26 (A-08): half (option ``bombing_cap_rounding``) of the WERPs the defender receives from
    the home resource areas it controls and can supply (4.12). Returns (the home WERPs, the cap)."""
    side = ctx.side_of_nation(nation)
    home = 0
    for a in sorted(ctx.sc.map.areas):
        ar = ctx.sc.map.areas[a]
        if ar.kind == "land" and ar.home == nation and ar.resource > 0 and ctx.controller(a) == side \
                and supply.traces(ctx, a, nation):
            home += int(ar.resource)
    cap = home // 2 if ctx.option("bombing_cap_rounding") == "down" else (home + 1) // 2
    return home, cap


# --- the sub-step ---------------------------------------------------------------------------------
def begin_production(ctx: Ctx) -> None:
    """J-3: the strategic warfare sub-step, first in the phasing side's production phase (1.22,
    2.0): the Western Allied bombing of Germany in Germany's (AX-2 (a)); the U-boats, the German
    bombing of Britain and the V-weapons in Britain's (AL). The record of the last turn's results
    is replaced (4.1: strategic damage never carries over)."""
    at = len(ctx.events)
    old = dict(ctx.pos.get("strategic", {}))
    rec: dict[str, Any] = {"turn": ctx.turn.key, "damage": {}, "strat": {}, "west": {}}
    if old.get("diverted"):
        rec["diverted"] = old["diverted"]
    ctx.pos["strategic"] = rec
    if ctx.side == ctx.side_of_nation("germany") and any(ctx.at_war(n, "germany") for n in WESTERN):
        _raid(ctx, rec, "allied")
    if ctx.side == ctx.side_of_nation("britain") and ctx.at_war("germany", "britain"):
        _uboats(ctx, rec)
        _raid(ctx, rec, "german")
        for kind in ("v1", "v2"):
            _launch(ctx, rec, kind)
    for k in ("damage", "strat", "west"):
        rec[k] = dict(sorted(rec[k].items()))
    if len(ctx.events) > at:
        ctx.events.insert(at, Event("phase", "2.0", {"phase": "production: strategic warfare", "step": ctx.step}))


def _add(rec: dict[str, Any], key: str, nation: str, n: int) -> None:
    if n:
        rec[key][nation] = int(rec[key].get(nation, 0)) + n


def _uboats(ctx: Ctx, rec: dict[str, Any]) -> None:
    """2.1, 2.11-2.13 (J-3 (c)): compulsory with at least 1 U-boat point (A-04, option
    ``uboat_minimum``): the ASW Table (Britain's die, the ASW level's column: U-boat points
    destroyed, fractions rounded up), then the U-boat Attack Table (Germany's die, the surviving
    points' band: British WERPs lost); then 2.13: US and British strat-moves -1 per 20 U-boats left
    (A-05, option ``uboat_strat_penalty``)."""
    u = _held(ctx, "uboats")
    need = int(ctx.option("uboat_minimum"))
    if u < need or u <= 0:
        if u > 0:
            ctx.emit("uboats", "2.0 (A-04)", held=u, attack=False, minimum=need)
        return
    asw = _chart(ctx, "asw")
    levels = [int(x) for x in asw["levels"]]
    level = _held(ctx, "asw")
    col = max((i for i, lv in enumerate(levels) if lv <= level), default=0)
    (d1,) = ctx.roll(f"2.11|{ctx.step}|atlantic|asw")
    pct = int(asw["percent"][d1 - 1][col])
    lost = min(u, math.ceil(u * pct / 100))
    left = u - lost
    table = _chart(ctx, "uboat_attack")
    bands = [int(b) for b in table["bands"]]
    (d2,) = ctx.roll(f"2.12|{ctx.step}|atlantic|attack")
    band = max((i for i, b in enumerate(bands) if b <= left), default=-1)
    werps = int(table["werps"][d2 - 1][band]) if band >= 0 else 0
    _set(ctx, "uboats", left)
    _add(rec, "damage", "britain", werps)
    per = int(_chart(ctx, "t4_air_war")["uboat_strat_moves"])
    cut = left // per if ctx.option("uboat_strat_penalty") == "per-20" else int(left >= per)
    for n in WESTERN:
        if cut:
            _add(rec, "strat", n, -cut)
    ctx.emit("uboats", "2.1", held=u, attack=True, asw=level, asw_die=d1, percent=pct, destroyed=lost, left=left,
             attack_die=d2, band=bands[band] if band >= 0 else 0, werps=werps, strat_cut=cut, per=per,
             provisional=_provisional(ctx, "asw") or _provisional(ctx, "uboat_attack"))


def _intercepts(ctx: Ctx, defender: str, bombers: int, escorts: int, weather: str) -> tuple[bool, str]:
    """2.22a (A-06): whether the defending fighters intercept, and why: compulsory with 5 bomber
    points in Clear or Lt. Mud, 10 in Mud or Snow (T-4 ``must_intercept``); else by the defender's
    standing ``intercept``."""
    must = _chart(ctx, "t4_air_war")["must_intercept"]
    at = int(must["clear" if weather in CLEAR else "mud"])
    if bombers >= at:
        return True, f"compulsory: {bombers} bomber point(s), {at} or more in {weather} (2.22a)"
    policy = str(_standing(ctx, defender).get("intercept", "always"))
    mine = _held(ctx, "fighters", defender)
    if policy == "never":
        return False, "declined by standing instruction (2.22a)"
    if policy == "stronger" and mine < escorts:
        return False, f"declined by standing instruction: {mine} fighter(s) against {escorts} escort(s) (2.22a)"
    return True, f"by standing instruction, '{policy}' (2.22a)"


def _raid(ctx: Ctx, rec: dict[str, Any], raider: str) -> None:
    """2.2, 2.21-2.27: one strategic bombing raid, ``raider`` "allied" (the Western Allies on
    Germany) or "german" (Germany on Britain), when the bombing party's standing ``bomb`` says so
    and it has a bomber point (2.2). All bombers and all fighters go (2.22); interception (2.22a,
    A-06), escorts (2.22b, 2.24b), interceptors (2.22c, 2.24a, A-07), Flak (2.22d, T-5, A-69),
    bombs (2.23, 2.24a); losses to the track; the WERP damage capped (2.26, A-08), or, diverted,
    West-zone strat-moves (2.27, A-09, A-10); rail interdiction (2.25)."""
    attacker, target = ("britain", "germany") if raider == "allied" else ("germany", "britain")
    order = _standing(ctx, attacker)
    bombers = _held(ctx, "bombers", attacker)
    if not order.get("bomb") or bombers < 1:
        return
    landed = ctx.pos.get("assets", {}).get("france_landing")
    if raider == "german" and (landed or _landed_in_france(ctx)):
        _assets(ctx)["france_landing"] = landed or ctx.turn.key
        ctx.emit("raid-barred", "2.2", turn=_assets(ctx)["france_landing"])
        return
    t4 = _chart(ctx, "t4_air_war")
    weather = str(ctx.pos.get("weather", {}).get("west", "clear"))
    escorts = _held(ctx, "fighters", attacker)
    defenders = _held(ctx, "fighters", target)
    flak = _held(ctx, "flak", target)
    data: dict[str, Any] = {"raider": raider, "attacker": attacker, "target": target, "weather": weather,
                            "bombers": bombers, "escorts": escorts, "defenders": defenders, "flak": flak}
    diverted, why = False, ""
    if raider == "allied" and order.get("divert"):
        diverted, why = _may_divert(ctx, rec, escorts, defenders)
        data["divert"] = {"asked": True, "allowed": diverted, "why": why}
    intercept, iwhy = (False, "no defending fighters (2.22a)") if defenders == 0 else _intercepts(
        ctx, target, bombers, escorts, weather)
    committed = defenders
    if intercept and ctx.option("interception") == "chosen":
        committed = max(0, min(defenders, int(_standing(ctx, target).get("interceptors", defenders))))
    data["intercept"] = {"done": intercept, "why": iwhy, "interceptors": committed if intercept else 0}
    lost = {"escorts": 0, "interceptors": 0, "bombers": 0}
    step = ctx.step
    # b) escorts fire at the interceptors (2.22b; 2.24b from Jan/Feb 1944 for Allied escorts)
    if intercept and escorts and committed:
        row = _period(ctx, list(t4["escorts_vs_interceptors"]), raider)
        faces = ctx.roll(f"2.22b|{step}|{target}|escorts", escorts)
        hits, ex = _score(faces, int(row.get("hit", 0)), int(row.get("exchange", 0)))
        killed = min(hits, committed)
        swaps = min(ex, committed - killed, escorts)
        lost["interceptors"] += killed + swaps
        lost["escorts"] += swaps
        data["escort_fire"] = {"faces": faces, "hit": int(row.get("hit", 0)), "exchange": int(row.get("exchange", 0)),
                               "hits": hits, "exchanges": ex, "killed": killed, "swaps": swaps,
                               "rule": "2.24b" if row.get("hit") else "2.22b"}
    # c) surviving interceptors fire at the bombers (2.22c; 2.24a from Jan/Feb 1943 against Allied bombers)
    alive = bombers
    if intercept and committed - lost["interceptors"] > 0:
        n = committed - lost["interceptors"]
        row = _period(ctx, list(t4["interceptors_vs_bombers"]), raider)
        hit, exch = int(row.get("hit", 0)), int(row.get("exchange", 0))
        if not exch and ctx.option("interceptor_fives") == "miss":
            hit = 6  # the printed example's count
        faces = ctx.roll(f"2.22c|{step}|{target}|interceptors", n)
        hits, ex = _score(faces, hit, exch)
        killed = min(hits, alive)
        swaps = min(ex, alive - killed, n)
        alive -= killed + swaps
        lost["bombers"] += killed + swaps
        lost["interceptors"] += swaps
        data["intercept_fire"] = {"dice": n, "faces": faces, "hit": hit, "exchange": exch, "hits": hits, "exchanges": ex,
                                  "killed": killed, "swaps": swaps, "rule": "2.24a" if exch else "2.22c"}
    # d) Flak (2.22d, T-5; A-69: on the bombers surviving step c)
    alive = _flak(ctx, data, target, flak, alive, bombers, "bombers")
    lost["bombers"] = bombers - alive
    # 2.23: the bombs (2.24a: Allied bombers from Jan/Feb 1943)
    row = _period(ctx, list(t4["bombing"]), raider)
    need = int(row["clear" if weather in CLEAR else "mud"])
    faces = ctx.roll(f"2.23|{step}|{target}|bombs", alive) if alive else []
    hits = sum(1 for f in faces if f >= need)
    later = row is not t4["bombing"][0]
    data["bombs"] = {"dice": alive, "faces": faces, "need": need, "hits": hits, "rule": "2.24a" if later else "2.23"}
    _set(ctx, "bombers", bombers - lost["bombers"], attacker)
    _set(ctx, "fighters", escorts - lost["escorts"], attacker)
    _set(ctx, "fighters", defenders - lost["interceptors"], target)
    data["lost"] = lost
    data["left"] = {"bombers": bombers - lost["bombers"], "escorts": escorts - lost["escorts"],
                    "defenders": defenders - lost["interceptors"]}
    if diverted:
        base = _base_strat(ctx, target)
        cut = min(hits, base)
        _add(rec, "west", target, -cut)
        rec["diverted"] = ctx.turn.key
        data["west"] = {"hits": hits, "cut": cut, "base": base}
        data["damage"] = 0
    else:
        home, cap = _werps_cap(ctx, target)
        dmg = min(hits, cap)
        _add(rec, "damage", target, dmg)
        data["damage"] = dmg
        data["cap"] = {"home": home, "cap": cap, "capped": hits > cap}
    # 2.25: rail interdiction (the Allies' raid; A-10: a diverted raid too, option diversion_rail)
    if raider == "allied" and (not diverted or ctx.option("diversion_rail")):
        per = int(t4["rail_interdiction"]["clear" if weather in CLEAR else "mud"])
        cut = data["left"]["bombers"] // per
        if cut:
            _add(rec, "strat", target, -cut)
        data["rail"] = {"per": per, "cut": cut}
    ctx.emit("raid", "2.2", **data)


def _flak(ctx: Ctx, data: dict[str, Any], target: str, level: int, alive: int, raid: int, what: str) -> int:
    """2.22d, T-5: Flak dice by the level (points per die, rounded down; A-69, option
    ``flak_basis``: the points surviving interception, or the whole raid); each 6 destroys one."""
    t5 = _chart(ctx, "t5_flak")
    per = int(t5["points_per_die"].get(str(level), 0))
    basis = alive if ctx.option("flak_basis") == "survivors" else raid
    dice = basis // per if per else 0
    if not dice or not alive:
        data["flak_fire"] = {"level": level, "per": per, "basis": basis, "dice": 0, "faces": [], "killed": 0}
        return alive
    faces = ctx.roll(f"2.22d|{ctx.step}|{target}|flak-{what}", dice)
    hit = int(t5.get("hit", 6))
    killed = min(alive, sum(1 for f in faces if f >= hit))
    data["flak_fire"] = {"level": level, "per": per, "basis": basis, "dice": dice, "faces": faces, "killed": killed}
    return alive - killed


def _base_strat(ctx: Ctx, nation: str) -> int:
    """5.24: the nation's strat-moves by the National Limits Chart (``national_limits``, by year;
    movement.strat_limit reads it the same way), before strategic warfare."""
    row = dict(_chart(ctx, "national_limits").get(nation, {}))
    years = sorted(int(y) for y in row if int(y) <= ctx.turn.year)
    return max(int(row[str(years[-1])]) if years else 0, int(ctx.option("strat_limit_floor")))


def _may_divert(ctx: Ctx, rec: dict[str, Any], allied: int, german: int) -> tuple[bool, str]:
    """2.27 (A-10, option ``diversion_ratio``): the Western Allies' fighters at least twice
    Germany's (or more than twice), compared before the air combat; not in two consecutive turns."""
    last = str(rec.get("diverted", ""))
    if last and Turn.parse(last) == ctx.turn.plus(-1):
        return False, f"the raid was diverted last turn ({Turn.parse(last).label}): not in two consecutive turns (2.27)"
    strict = ctx.option("diversion_ratio") == "more-than"
    ok = allied > 2 * german if strict else allied >= 2 * german
    if not ok:
        how = "more than" if strict else "at least"
        return False, f"{allied} Allied fighter(s) against {german} German: {how} 2:1 is needed (2.27, A-10)"
    return True, f"{allied} Allied fighter(s) against {german} German, 2:1 (2.27, A-10)"


def _landed_in_france(ctx: Ctx) -> bool:
    """2.2 (10.12 NOT IN SOURCE; stand-in): an Allied beachhead (7.22) in a French area."""
    side = ctx.side_of_nation("britain")
    return any(v == side and a in ctx.sc.map.areas and ctx.sc.map.areas[a].country == "france"
               for a, v in sorted(ctx.pos.get("beachheads", {}).items()))


def _launch(ctx: Ctx, rec: dict[str, Any], kind: str) -> None:
    """2.28: the V-1s or V-2s launched at Britain, resolved apart from the German raid: at least
    half the points held (rounded up), as Germany's standing ``v1``/``v2`` asks (more: all), from a
    friendly-controlled launch area (T-6 ``v1_launch``/``v2_launch``); V-1s are intercepted (5-6, no
    exchange, T-4) and meet Flak (T-5), V-2s neither; each survivor rolls on the V-Weapon Chart (V-2
    +1); every launched point is removed."""
    held = _held(ctx, kind)
    if held <= 0:
        return
    t6 = _chart(ctx, "t6_v_weapons")
    side = ctx.side_of_nation("germany")
    sites = [str(a) for a in t6.get(f"{kind}_launch", [])]
    usable = [a for a in sites if ctx.controller(a) == side and not ctx.contested(a)]
    low = (held + 1) // 2
    asked = _standing(ctx, "germany").get(kind)
    n = low if asked is None else max(low, min(held, int(asked)))
    data: dict[str, Any] = {"kind": kind, "held": held, "minimum": low, "asked": asked, "sites": sites}
    if not usable:
        data.update(launched=0, left=held)
        ctx.emit("v-weapons", "2.28", **data)
        return
    alive = n
    if kind == "v1":
        fighters = _held(ctx, "fighters", "britain")
        if fighters and _standing(ctx, "britain").get("intercept_v1", True):
            hit = int(_chart(ctx, "t4_air_war")["interceptors_vs_v1"])
            faces = ctx.roll(f"2.28|{ctx.step}|britain|v1-interceptors", fighters)
            killed = min(alive, sum(1 for f in faces if f >= hit))
            data["intercept_fire"] = {"dice": fighters, "faces": faces, "hit": hit, "killed": killed}
            alive -= killed
        alive = _flak(ctx, data, "britain", _held(ctx, "flak", "britain"), alive, n, "v1")
    mod = int(t6.get("v2_modifier", 1)) if kind == "v2" else 0
    faces = ctx.roll(f"2.28|{ctx.step}|britain|{kind}-chart", alive) if alive else []
    rows = sorted(t6["rows"], key=lambda r: int(r["roll"]))
    werps, unknown = 0, False
    for f in faces:
        row = max((r for r in rows if int(r["roll"]) <= f + mod), key=lambda r: int(r["roll"]), default=None)
        if row is not None:
            werps += int(row["werps"])
            unknown = unknown or not row.get("known", True)
    _set(ctx, kind, held - n)
    _add(rec, "damage", "britain", werps)
    data.update(launched=n, survivors=alive, faces=faces, modifier=mod, werps=werps, left=held - n, site=usable[0],
                provisional=unknown or (_provisional(ctx, "t6_v_weapons") and bool(faces)))
    ctx.emit("v-weapons", "2.28", **data)


# --- what other rules read ------------------------------------------------------------------------
def _record(ctx: Ctx) -> dict[str, Any]:
    rec = ctx.pos.get("strategic", {})
    return rec if isinstance(rec, dict) and rec.get("turn") == ctx.turn.key else {}


def damage(ctx: Ctx, nation: str) -> int:
    """1.22, 4.1: the WERPs strategic warfare took from the nation this turn (2.12, 2.23, 2.28)."""
    return int(_record(ctx).get("damage", {}).get(nation, 0))


def strat_modifier(ctx: Ctx, nation: str, west: bool = False) -> int:
    """5.24: the change to the nation's strat-moves this turn by strategic warfare: U-boats (2.13)
    for Britain and the U.S.A., rail interdiction (2.25) for Germany, and with ``west`` (a move
    that starts in, ends in or passes through the West weather zone) the 2.27 diversion (A-09)."""
    rec = _record(ctx)
    mod = int(rec.get("strat", {}).get(nation, 0))
    if west or ctx.option("diversion_scope") == "all":
        mod += int(rec.get("west", {}).get(nation, 0))
    return mod


def damage_line(ctx: Ctx, nation: str, gross: int) -> list[dict[str, Any]]:
    """4.1, 1.22: the income line of strategic damage (never below no WERPs at all)."""
    d = damage(ctx, nation)
    if not d:
        return []
    taken = min(d, max(0, gross))
    what = "strategic warfare damage" + (f" ({d} inflicted, only {taken} to take)" if taken < d else "")
    return [{"what": what, "werps": -taken, "rule": "2.0, 1.22"}]


# --- production purchases (4.43, 2.3, T-7, Glossary) ------------------------------------------------
def buy(ctx: Ctx, n: str, buy: dict[str, Any], spend: Any, problems: list[Problem]) -> None:
    """Fighters, bombers, U-boats, V-1s and V-2s bought by nation ``n`` (4.43, 2.28 costs; 2.3/T-7
    per-turn limits; the Glossary's holding limits, Britain and the U.S.A. sharing theirs, 9.32;
    Italy, France and the USSR build none, 9.43, 9.51a, 9.27; V-1s from Jan/Feb 1944, V-2s from the
    T-6 ``v2_from`` turn, 2.28). ``spend(what, werps, rule)`` charges the nation's ledger."""
    asked = {k: int(buy.get(k, {}).get(n, 0)) for k in ITEMS}
    if not any(asked.values()):
        return
    t7 = _chart(ctx, "t7_strategic_limits")
    costs = _chart(ctx, "t12_costs")
    t6 = _chart(ctx, "t6_v_weapons")
    bad = len(problems)
    row = t7.get(n)
    limits: dict[str, Any] | None = dict(row) if isinstance(row, dict) else None
    rule_none = {"italy": "9.43", "france": "9.51a", "ussr": "9.27"}
    for k, v in asked.items():
        w = f"production.buy.{k}.{n}"
        if v < 0:
            problems.append(Problem(w, f"{v}: a purchase is a positive number", "4.43"))
        elif v and limits is None:
            problems.append(Problem(w, f"{n} cannot build strategic assets", rule_none.get(n, "2.3")))
        elif v and limits is not None and k in ("uboats", "v1", "v2") and int(limits.get(k, 0)) == 0:
            problems.append(Problem(w, f"{n} builds no {_name(k)}", "2.3"))
    if len(problems) > bad or limits is None:
        return
    air = asked["fighters"] + asked["bombers"]
    if air > int(limits.get("aircraft", 0)):
        problems.append(Problem(f"production.buy.fighters.{n}", f"{n} builds at most {limits.get('aircraft', 0)} aircraft "
                                f"points (fighters and bombers) a turn; {air} asked", "2.3"))
    if asked["bombers"] > int(limits.get("bombers", 0)):
        problems.append(Problem(f"production.buy.bombers.{n}", f"{n} builds at most {limits.get('bombers', 0)} bomber points "
                                f"a turn; {asked['bombers']} asked", "2.3"))
    for k in ("uboats", "v1", "v2"):
        if asked[k] > int(limits.get(k, 0)):
            problems.append(Problem(f"production.buy.{k}.{n}", f"{n} builds at most {limits.get(k, 0)} {_name(k)} a turn; "
                                    f"{asked[k]} asked", "2.3"))
    for k in ("v1", "v2"):
        start = Turn.parse(str(t6.get(f"{k}_from", "1944-jan" if k == "v1" else "1944-sep")))
        if asked[k] and ctx.turn < start:
            problems.append(Problem(f"production.buy.{k}.{n}", f"{_name(k)} may be bought from {start.label} on", "2.28"))
    most = t7.get("max_held", {})
    for k in ("fighters", "bombers", "uboats"):
        have = _held(ctx, k, n)
        if asked[k] and have + asked[k] > int(most.get(k, 999)):
            whose = "the Western Allies (shared, 9.32)" if n in WESTERN else n
            problems.append(Problem(f"production.buy.{k}.{n}", f"{whose} hold {have} {_name(k)}, at most {most[k]}: "
                                    f"{max(0, int(most[k]) - have)} more may be bought", "Glossary"))
    if len(problems) > bad:
        return
    price = {"fighters": asked["fighters"] * int(costs.get("fighter", 3)),
             "bombers": asked["bombers"] * int(costs.get("bomber", 5)),
             "uboats": asked["uboats"] * int(costs.get("uboat", 1)),
             "v1": math.ceil(asked["v1"] / int(costs.get("v1_points_per_werp", 2))),
             "v2": asked["v2"] * int(costs.get("v2", 1))}
    for k in ITEMS:
        if not asked[k]:
            continue
        _set(ctx, k, _held(ctx, k, n) + asked[k], n)
        spend(f"{asked[k]} {_name(k)}", price[k], "4.43, 2.28" if k in ("v1", "v2") else "4.43")
        ctx.emit("assets-bought", "2.3", nation=n, item=k, bought=asked[k], held=_held(ctx, k, n), cost=price[k])


def _name(k: str) -> str:
    return {"fighters": "fighter points", "bombers": "bomber points", "uboats": "U-boat points", "v1": "V-1 points",
            "v2": "V-2 points"}[k]


# --- standing instructions (J-3 (a)) --------------------------------------------------------------
def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """The ``[standing] strategic`` instructions of the file: known keys, an interception policy of
    INTERCEPT, launch counts and interceptors not negative (J-3 (a), 2.2, 2.27, 2.28)."""
    st = body.get("standing", {}).get("strategic")
    if st is None:
        return
    if not isinstance(st, dict):
        problems.append(Problem("standing.strategic", "a table of bomb, divert, v1, v2, intercept, intercept_v1", "J-3"))
        return
    for k in sorted(st):
        w = f"standing.strategic.{k}"
        v = st[k]
        if k not in STANDING_KEYS:
            problems.append(Problem(w, f"unknown; the strategic instructions are {', '.join(STANDING_KEYS)}", "J-3"))
        elif k in ("bomb", "divert", "intercept_v1") and not isinstance(v, bool):
            problems.append(Problem(w, "true or false", {"bomb": "2.2", "divert": "2.27"}.get(k, "2.28")))
        elif k == "intercept" and v not in INTERCEPT:
            problems.append(Problem(w, f"{v!r}: one of {', '.join(INTERCEPT)}", "2.22a"))
        elif k in ("v1", "v2", "interceptors") and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            problems.append(Problem(w, f"{v!r}: a number of points, 0 or more", "2.28" if k != "interceptors" else "2.22a"))


# --- reports ---------------------------------------------------------------------------------------
def _faces(faces: list[int]) -> str:
    return " ".join(str(f) for f in faces) if faces else "—"


def _who(raider: str) -> tuple[str, str]:
    return ("the Western Allies bomb", "Germany") if raider == "allied" else ("Germany bombs", "Britain")


def _raid_lines(e: Event) -> list[str]:
    d = e.data
    att, tgt = _who(str(d["raider"]))
    w = str(d["weather"]).replace("light-mud", "Lt. Mud").capitalize()
    it = d["intercept"]
    head = (f"- Strategic bombing ({e.rule}): {att} {tgt} with {d['bombers']} bomber point(s), escorted by "
            f"{d['escorts']} fighter point(s) (2.22: all of them); West weather {w}. {tgt}'s {d['defenders']} fighter "
            f"point(s) {'intercept' if it['done'] else 'do not intercept'}: {it['why']}.")
    if d.get("divert"):
        dv = d["divert"]
        head += (" The raid supports the Western front (2.27): " if dv["allowed"] else
                 " A diversion to the Western front was asked but is not allowed: ") + f"{dv['why']}."
    rows = ["", "| Step | Dice | Rolled | Result |", "|---|---|---|---|"]
    ef = d.get("escort_fire")
    if ef:
        hit = f"{ef['hit']}+ destroys an interceptor, " if ef["hit"] else ""
        rows.append(f"| Escorts fire at interceptors ({ef['rule']}) | {len(ef['faces'])} | {_faces(ef['faces'])} | {hit}"
                    f"{ef['exchange']}{'' if ef['hit'] else '+'} is an exchange: {ef['killed']} interceptor(s) destroyed, "
                    f"{ef['swaps']} exchange(s) |")
    fi = d.get("intercept_fire")
    if fi:
        ex = f", {fi['exchange']} is an exchange" if fi["exchange"] else ""
        rows.append(f"| Interceptors fire at bombers ({fi['rule']}) | {fi['dice']} | {_faces(fi['faces'])} | {fi['hit']}+ "
                    f"destroys a bomber{ex}: {fi['killed']} destroyed, {fi['swaps']} exchange(s) |")
    ff = d.get("flak_fire", {})
    if ff.get("dice"):
        rows.append(f"| Flak level {ff['level']} (2.22d, T-5) | {ff['dice']} (1 per {ff['per']} of {ff['basis']}) | "
                    f"{_faces(ff['faces'])} | 6 destroys a bomber: {ff['killed']} destroyed |")
    else:
        rows.append(f"| Flak level {ff.get('level', 0)} (2.22d, T-5) | 0 | — | no Flak die |")
    b = d["bombs"]
    rows.append(f"| Bombs ({b['rule']}) | {b['dice']} | {_faces(b['faces'])} | {b['need']}+ hits: {b['hits']} hit(s) |")
    lost, left = d["lost"], d["left"]
    rows.append("")
    rows.append("| Losses | Bombers | Escorts | Interceptors |")
    rows.append("|---|---|---|---|")
    rows.append(f"| Lost | {lost['bombers']} | {lost['escorts']} | {lost['interceptors']} |")
    rows.append(f"| Left on the track | {left['bombers']} | {left['escorts']} | {left['defenders']} |")
    rows.append("")
    if "west" in d:
        wv = d["west"]
        tail = (f"  Result: {b['hits']} hit(s) on the Western front: German strat-moves that start in, end in or pass "
                f"through the West weather zone are {wv['cut']} fewer this turn (2.27, A-09; hits beyond its {wv['base']} "
                "strat-moves are ignored); no WERP is lost.")
    else:
        cap = d["cap"]
        capped = f", capped at {cap['cap']}" if cap["capped"] else ""
        tail = (f"  Result: {b['hits']} hit(s): {tgt} loses {d['damage']} WERP(s) this turn (2.23{capped}; 2.26: at most "
                f"half of the {cap['home']} WERPs of its controlled home areas, A-08).")
    if "rail" in d:
        r = d["rail"]
        tail += (f" Rail interdiction (2.25): {left['bombers']} bomber point(s) remain, 1 per {r['per']}: German strat-moves "
                 f"{'-' + str(r['cut']) if r['cut'] else 'unchanged'} this turn (never below 1, 5.24).")
    return [head, *rows, tail]


def _uboat_lines(e: Event) -> list[str]:
    d = e.data
    if not d["attack"]:
        return [f"- The U-boats ({e.rule}): {d['held']} point(s), fewer than {d['minimum']}: no U-boat attack."]
    band = f"{d['band']}+ U-boats" if d["band"] else "no U-boat left"
    cut = (f" {d['left']} U-boat point(s) remain: British and US strat-moves are each {d['strat_cut']} fewer this turn "
           f"(2.13, A-05: 1 per {d['per']})." if d["strat_cut"] else f" {d['left']} remain: no strat-move penalty (2.13).")
    return ["- The U-boat campaign (2.1; compulsory, 2.0):", "",
            "| Step | Die | Column | Result |", "|---|---|---|---|",
            f"| ASW Table (2.11), Britain rolls | {d['asw_die']} | ASW level {d['asw']} | {d['percent']}% of {d['held']}, "
            f"rounded up: {d['destroyed']} U-boat point(s) destroyed |",
            f"| U-boat Attack Table (2.12), Germany rolls | {d['attack_die']} | {band} ({d['left']} left) | Britain loses "
            f"{d['werps']} WERP(s) this turn |", "",
            f"  Result: U-boats {d['held']} → {d['left']}; Britain loses {d['werps']} WERP(s).{cut}"]


def _v_lines(e: Event) -> list[str]:
    d = e.data
    name = "V-1" if d["kind"] == "v1" else "V-2"
    if not d["launched"]:
        return [f"- {name}s ({e.rule}): {d['held']} point(s) held, but no launch area is friendly-controlled "
                f"({', '.join(d['sites'])}): none is launched."]
    rows = ["", "| Step | Dice | Rolled | Result |", "|---|---|---|---|"]
    fi = d.get("intercept_fire")
    if fi:
        rows.append(f"| British fighters intercept (2.28) | {fi['dice']} | {_faces(fi['faces'])} | {fi['hit']}+ destroys a "
                    f"V-1, no exchange: {fi['killed']} destroyed |")
    ff = d.get("flak_fire")
    if ff:
        rows.append(f"| Flak level {ff['level']} (2.28, 2.22d) | {ff['dice']} | {_faces(ff['faces'])} | 6 destroys a V-1: "
                    f"{ff['killed']} destroyed |")
    mod = f" +{d['modifier']}" if d["modifier"] else ""
    rows.append(f"| V-Weapon Chart (T-6{mod}) | {d['survivors']} | {_faces(d['faces'])} | {d['werps']} WERP(s) |")
    rows.append("")
    immune = " V-2s are immune to interception and Flak." if d["kind"] == "v2" else ""
    return [f"- {name} launch ({e.rule}) from {d['site']}: {d['launched']} of {d['held']} point(s) (at least half, "
            f"rounded up: {d['minimum']}).{immune}", *rows,
            f"  Result: Britain loses {d['werps']} WERP(s); every launched point is removed, {d['left']} left."]


def _barred(e: Event) -> list[str]:
    return [f"- Germany may not bomb Britain: the Allies have landed in France ({e.rule}; since "
            f"{Turn.parse(str(e.data['turn'])).label}; 10.12 is not in the rules text, an Allied beachhead in France stands in)."]


def _bought(e: Event) -> list[str]:
    d = e.data
    return [f"- {str(d['nation']).capitalize() if d['nation'] != 'usa' else 'The U.S.A.'} buys {d['bought']} "
            f"{_name(str(d['item']))} for {d['cost']} WERPs ({e.rule}, 4.43): {d['held']} held."]


RENDER: dict[str, Any] = {"raid": _raid_lines, "uboats": _uboat_lines, "v-weapons": _v_lines, "raid-barred": _barred,
                          "assets-bought": _bought}
