"""The German defensive retreat (14.32 second rule, 14.33-14.35; option ``german_retreat``, full game):
the hexes open to it, the distance to a German supply source (Ambiguity 45), the owner's choice
(standing instructions or a reply) and the units caught by a later attack (14.34).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pbem.mechanics.paths import costs_to

from ...data import UnitSpec
from ..allies import entry_problems
from ..context import Ctx, Decision
from ..control import enter_hex
from ..hedgehogs import in_hedgehog
from ..movement import hex_cost, hexside_cost
from ..sources import is_source, line_kind
from ..stacking import stack_problems
from .losses import standing_for, take_losses

RETREAT_POLICIES = ("never", "if-it-saves-a-step", "always", "ask")


def retreated(ctx: Ctx) -> dict[str, str]:
    """14.34: the German units that retreated in this combat phase, and the hex each retreated into."""
    r: dict[str, str] = ctx.position.get("retreated", {})
    return r


def german_sources(ctx: Ctx, soviet: set[str], units: Collection[str] = ()) -> list[str]:
    """9.11: the German supply sources of the retreating ``units``, not Soviet-occupied: every ZOMO
    hex except 1913N, 2013N and 2014N, or a hex the map marks a German source (sources.is_source);
    for a stack with Romanian or Hungarian units, only the hexes that are a source for every unit
    (they trace only to their own country's ZOMO)."""
    kinds = {line_kind(ctx, u) for u in units} or {"german"}
    return sorted(h for h in ctx.sc.map.hexes
                  if h not in soviet and all(is_source(ctx, h, k) for k in kinds))


def supply_distance(ctx: Ctx, units: list[str], start: str, sources: list[str], soviet: set[str]) -> tuple[int, int]:
    """Ambiguity 45: how far ``start`` is from the nearest German supply source (9.11), as (0, the
    cheapest legal German movement path in MP for the whole stack), else (1, hex distance), else
    (2, 0) when there is no source at all. Smaller is closer (supply_distances)."""
    return supply_distances(ctx, units, [start], sources, soviet)[start]


def supply_distances(ctx: Ctx, units: list[str], starts: list[str], sources: list[str],
                     soviet: set[str]) -> dict[str, tuple[int, int]]:
    """supply_distance for each of ``starts``, from one search: the cheapest cost from every hex to
    the nearest source, found backward from the sources (paths.costs_to), entering
    no hex in ``soviet``; a step costs the most any unit of the stack pays (hex_cost, hexside_cost;
    a Sivash/Kerch crossing its whole MF).

    Option retreat_distance: "path" (the default) is the digest's reading above; "hex-distance"
    measures plain hex distance to the nearest source, through Soviet units, water and all: (1, hexes)."""
    src = set(sources)
    m = ctx.sc.map
    if not src:
        return {s: (2, 0) for s in starts}

    def hexes_away(h: str) -> tuple[int, int]:
        return (1, min(m.distance(h, s) for s in src))

    if ctx.options.get("retreat_distance", "path") == "hex-distance":
        return {s: hexes_away(s) for s in starts}
    # the costs of hex_cost and hexside_cost depend on the unit only by its terrain-cost class, its
    # being mechanized and its side: one of each kind is asked, with the highest MF of its kind
    # (a Sivash/Kerch crossing costs the whole MF)
    kinds: dict[tuple[str, bool, str], tuple[UnitSpec, int]] = {}
    for u in units:
        spec, mf = ctx.spec(u), ctx.mf(u)
        key = (spec.move_class(), spec.mechanized, spec.side)
        if key not in kinds or mf > kinds[key][1]:
            kinds[key] = (spec, mf)
    specs = list(kinds.values())

    def step(a: str, b: str) -> int | None:
        """The cost of entering b from a, or None."""
        if b in soviet:
            return None
        worst = 0
        for spec, mf in specs:
            hc = hex_cost(ctx, spec, b, a)[0]
            sc_ = hexside_cost(ctx, spec, a, b)[0]
            if hc == "no" or sc_ == "no":
                return None
            worst = max(worst, mf if sc_ == "all" else int(hc) + int(sc_))
        return worst

    found = costs_to(ctx.sc.map, src, step, starts)
    return {s: (0, found[s]) if s in found else hexes_away(s) for s in starts}


def _distance_text(ctx: Ctx, d: tuple[int, int]) -> str:
    if ctx.options.get("retreat_distance", "path") == "hex-distance" and d[0] == 1:
        return f"{d[1]} hex{'es' if d[1] != 1 else ''} (hex distance, option retreat_distance)"
    return ("no German supply source" if d[0] == 2 else f"{d[1]} MP" if d[0] == 0 else f"{d[1]} hexes (no path)")


def retreat_open(ctx: Ctx, units: list[str], origin: str) -> tuple[list[str], dict[str, str]]:
    """14.32-14.33: the adjacent hexes a retreat may enter, stacking aside: free of Soviet units
    (empty intact works allowed), not an all-sea or all-lake hex, not across an all-sea/all-lake
    hexside, nor the Sivash/Kerch unless snow is in effect there (12.16, 13.7), and no hex a unit may
    not enter (entry_problems). Also the hexes refused, with why."""
    ok: list[str] = []
    why: dict[str, str] = {}
    for b in sorted(ctx.sc.map.neighbours(origin)):
        if b not in ctx.sc.map.hexes:
            continue
        if ctx.occupants(b, "soviet"):
            why[b] = "it holds Soviet units (14.32)"
            continue
        h = ctx.sc.map.hexes[b]
        reason = ""
        for u in units:
            spec = ctx.spec(u)
            hc, hrule, _ = hex_cost(ctx, spec, b)
            sc_, srule, _ = hexside_cost(ctx, spec, origin, b)
            if hc == "no":
                reason = f"it is an all-{h.terrain} hex ({hrule}, 14.33)"
            elif h.terrain == "lake":  # crossed in snow at the cost of clear, but never a hex to stop in
                reason = "it is an all-lake hex: in snow units may cross lakes but not stop in them (13.7, 14.33)"
            elif sc_ == "no":
                reason = f"the hexside is all-sea or all-lake ({srule}, 14.33)"
            elif sc_ == "all":
                reason = f"it is across the Sivash/Kerch without snow there ({srule}, 14.33)"
            else:
                bad = entry_problems(ctx, u, b)
                if bad:
                    reason = f"{bad[0][1]} ({bad[0][0]})"
            if reason:
                break
        if reason:
            why[b] = reason
        else:
            ok.append(b)
    return ok, why


def retreat_choice(ctx: Ctx, units: list[str], origin: str, legal: list[str],
                   prefs: list[str]) -> tuple[list[str], dict[str, Any]]:
    """14.32 with Ambiguity 45: the hexes the retreat may take, best first: those closer to a German
    supply source (supply_distance) than ``origin``; if none is closer, every legal hex (option
    retreat_if_none_closer "any-legal") or none ("no-retreat"). Among them the owner's order of
    preference, then the lowest hex id. Also what was measured, for the report."""
    soviet = {ctx.at(u) for u in ctx.units if ctx.on_map(u) and ctx.spec(u).side == "soviet"}
    sources = german_sources(ctx, soviet, units)
    found = supply_distances(ctx, units, [origin, *legal], sources, soviet)
    here = found[origin]
    dist = {b: found[b] for b in legal}
    closer = [b for b in legal if dist[b] < here]
    none_closer = not closer
    pool = closer if closer else (list(legal) if ctx.options.get("retreat_if_none_closer") == "any-legal" else [])
    rank = {h: k for k, h in enumerate(prefs)}
    pool.sort(key=lambda h: (rank.get(h, len(rank)), h))
    info = {"from_distance": _distance_text(ctx, here), "distances": {b: _distance_text(ctx, d) for b, d in dist.items()},
            "none_closer": none_closer}
    return pool, info


def retreat_policy(ctx: Ctx, hex_id: str | None = None) -> tuple[str, list[str]]:
    """The German's standing `retreat` (default "ask") and `retreat_hexes` (preferences), for his
    stack in ``hex_id`` (standing_for)."""
    st, _ = standing_for(ctx, "german", hex_id)
    prefs = [c for h in st.retreat_hexes or () if (c := ctx.sc.map.canonical(h))]
    return st.retreat if st.retreat is not None else "ask", prefs


def german_defense(ctx: Ctx, i: int, target: str, defenders: list[str], loss: int,
                   decisions: dict[str, Any]) -> None:
    """The German defenders of a Soviet PA absorb a result of ``loss`` >= 1 (option german_retreat):
    they may retreat all together one hex to satisfy exactly 1 point (14.32, 14.33), after taking the
    rest as step losses in their hex (14.35); never out of a hedgehog (14.40). Whether they retreat:
    the reply to a question, else the standing `retreat`: "never"; "always"; "if-it-saves-a-step",
    retreat unless the stack would be eliminated by the other points anyway; "ask" (the default)
    stops the adjudication when there is a real choice. The hex: retreat_open, then stacking (6.2,
    14.33: no hex within stacking = the whole result as step losses), then retreat_choice."""
    units = [u for u in defenders if ctx.on_map(u)]
    base: dict[str, Any] = {"index": i, "hex": target, "units": units, "result": loss}
    if in_hedgehog(ctx, target):
        take_losses(ctx, "german", "defender", units, loss, i, None, decisions)
        ctx.emit("retreat", "14.40", **base, retreated=False, why="units in a hedgehog may not retreat")
        return
    total = sum(ctx.steps(u) for u in units)
    open_, shut = retreat_open(ctx, units, target)
    policy, prefs = retreat_policy(ctx, target)
    answer = decisions.get(f"{i}/retreat")
    base["policy"] = "reply" if answer is not None else policy
    why = ""
    if answer == "no":
        why = "the German's reply declines it"
    elif answer is None and policy == "never":
        why = "the standing instructions say never"
    elif not open_:
        why = "no adjacent hex is open to it (14.32, 14.33)"
    elif loss - 1 >= total:
        why = "the other points of the result eliminate the stack anyway"
    if why:
        take_losses(ctx, "german", "defender", units, loss, i, None, decisions)
        ctx.emit("retreat", "14.32", **base, retreated=False, why=why, refused=shut)
        return
    if answer is None and policy == "ask":
        fits = [b for b in open_ if not stack_problems(ctx, b, ctx.occupants(b, "german") + units)]
        choice, info = retreat_choice(ctx, units, target, fits, prefs)
        if choice:
            raise Decision("german", i, "defender", {
                "kind": "retreat", "rule": "14.32", "loss": loss, "steps": loss, "hexes": choice,
                "units": {u: ctx.steps(u) for u in units}, **info,
                "text": f"retreat from {target} into one of {', '.join(choice)} for 1 point of {loss}, or not"})
    if answer is not None:
        prefs = [str(answer)] + prefs
    if loss > 1:  # 14.35: the other points first, as step losses in the original hex
        take_losses(ctx, "german", "defender", units, loss - 1, i, None, decisions)
    left = [u for u in units if ctx.on_map(u)]
    base["units"] = left
    legal = [b for b in open_ if not stack_problems(ctx, b, ctx.occupants(b, "german") + left)]
    full = [b for b in open_ if b not in legal]
    choice, info = retreat_choice(ctx, left, target, legal, prefs)
    if not choice:
        take_losses(ctx, "german", "defender", left, 1, i, None, decisions)
        why = ("every open hex would be over-stacked: the whole result is taken as step losses (14.33, 6.2)" if not legal
               else "no legal hex is closer to a German supply source (Ambiguity 45, option retreat_if_none_closer)")
        ctx.emit("retreat", "14.33", **base, retreated=False, why=why, refused=shut, overstacked=full, **info)
        return
    to = choice[0]
    for u in left:
        ctx.units[u]["at"] = to
        ctx.position.setdefault("retreated", {})[u] = to  # 14.34
    straits = sorted(ctx.sc.map.border_features(target, to) & {"sivash", "kerch"})  # open to a retreat in snow only (13.7)
    ctx.emit("retreat", "14.32", **base, retreated=True, to=to, refused=shut, overstacked=full, **info,
             stacking=not stack_problems(ctx, to, ctx.occupants(to, "german")),  # 6.2: always true here
             **({"straits": straits} if straits else {}))
    enter_hex(ctx, "german", to, "retreat")  # 3.9; 14.26 with Ambiguity 42: an empty intact work is destroyed
