"""Untried Soviet units (2.15; option ``untried_units``): the pool of counters an untried unit may be and
its reveal, by a die, when it first fights (14.7, Ambiguity 53).
"""

from __future__ import annotations

from ..data import Scenario, can_be_untried, counter_values, pool_key
from .context import Ctx

_PRINTED_POOLS: dict[str, dict[tuple[str, str, int], dict[str, int]]] = {}  # by the scenario's data digest


def printed_pools(sc: Scenario) -> dict[tuple[str, str, int], dict[str, int]]:
    """2.15: of each kind of untried counter (pool_key), how many counters of the scenario show each
    attack-defense; worked out once per scenario's data."""
    pools = _PRINTED_POOLS.get(sc.digest)
    if pools is None:
        if len(_PRINTED_POOLS) >= 16:
            _PRINTED_POOLS.clear()
        pools = {}
        for spec in sc.units.values():
            if can_be_untried(spec):
                row = pools.setdefault(pool_key(spec), {})
                row[counter_values(spec)] = row.get(counter_values(spec), 0) + 1
        _PRINTED_POOLS[sc.digest] = pools
    return pools


_POOL_UNITS: dict[str, dict[tuple[str, str, int], tuple[str, ...]]] = {}  # by the scenario's data digest


def pool_units(sc: Scenario) -> dict[tuple[str, str, int], tuple[str, ...]]:
    """The scenario's counters of each kind (pool_key), those a tried unit's drawn counter may be
    taken from; worked out once per scenario's data."""
    found = _POOL_UNITS.get(sc.digest)
    if found is None:
        if len(_POOL_UNITS) >= 16:
            _POOL_UNITS.clear()
        by_key: dict[tuple[str, str, int], list[str]] = {}
        for u, spec in sc.units.items():
            by_key.setdefault(pool_key(spec), []).append(u)
        found = _POOL_UNITS[sc.digest] = {k: tuple(v) for k, v in by_key.items()}
    return found


def _values(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("-"))


def counter_pool(ctx: Ctx, unit: str) -> list[str]:
    """2.15: the counters an untried unit may turn out to be: the printed attack-defense of every
    Soviet 1-step counter of the scenario of its type, size and MF (what its back shows), less those
    already drawn for tried units, eliminated ones included (each counter enters play once).
    Sorted by attack, then defense."""
    key = pool_key(ctx.spec(unit))
    left = dict(printed_pools(ctx.sc).get(key, {}))
    units = ctx.units
    for u in pool_units(ctx.sc).get(key, ()):  # only the counters of its kind: the others never count
        st = units.get(u)
        drawn = None if st is None else st.get("tried")
        if drawn is not None and left.get(drawn, 0) > 0:
            left[drawn] -= 1
    # each attack-defense sorted once, then as many times as left (a stable sort of the whole pool)
    return [v for v in sorted(left, key=_values) for _ in range(left[v])]


def reveal_untried(ctx: Ctx, i: int, attackers: list[str], defenders: list[str], what: str = "") -> None:
    """2.15: an untried unit is revealed when it first takes part in combat, attacking or
    defending, at odds computation (14.7, Ambiguity 53): pbem draws which counter it is, without
    replacement, from its pool (counter_pool), with one die of as many sides as counters are left
    (none for a pool of one). Attackers first, then defenders, each by unit id."""
    for role, units in (("attacker", attackers), ("defender", defenders)):
        for u in sorted(units):
            if not ctx.untried(u):
                continue
            pool = counter_pool(ctx, u)
            if not pool:  # every unit of a pool is one of its counters, so one is always left
                raise RuntimeError(f"no counter left in the pool of {u} (2.15)")
            face: int | None = None
            label = ""
            drawn = pool[0]
            if len(pool) > 1:
                if ctx.dice is None:
                    raise RuntimeError("a die is needed, but this is a check without dice")
                label = f"2.15|{ctx.step}|{what or f'attack {i + 1}'}|{u}|counter"
                face = ctx.dice.roll(label, len(pool))
                drawn = pool[face - 1]
            ctx.units[u]["tried"] = drawn
            spec = ctx.spec(u)
            ctx.emit("reveal", "2.15", index=i, unit=u, role=role, type=spec.type, size=spec.size, mf=ctx.mf(u),
                     pool=pool, die=face, label=label, counter=f"{drawn}-{ctx.mf(u)}", **({"what": what} if what else {}))
