"""What the games' own documentation tests share: a rules catalog's cases and the rules each
cites, and the code a documentation page names (``Where:`` of an ambiguities page)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from types import ModuleType


def catalog_rules(folder: Path, prefix: str) -> dict[str, list[str]]:
    """Each case of a rules catalog (``PREFIX-*.toml`` in ``folder``) with the rules it cites."""
    out = {}
    for p in sorted(folder.glob(f"{prefix}-*.toml")):
        with p.open("rb") as f:
            c = tomllib.load(f)["case"]
        out[c["id"]] = c["rules"]
    return out


def resolve(ref: str, bases: tuple[str, ...]) -> object:
    """A dotted name a page gives: a module under one of ``bases`` (the game's package, then pbem),
    then attributes ("combat._resolve", "context.Ctx.attack", "mechanics.odds.apply_shifts")."""
    parts = ref.split(".")
    for base in bases:
        for k in range(len(parts), 0, -1):
            try:
                obj: ModuleType | object = importlib.import_module(".".join([base, *parts[:k]]))
            except ModuleNotFoundError:
                continue
            for attr in parts[k:]:
                assert hasattr(obj, attr), f"{ref}: {attr} is not in {base}.{'.'.join(parts[:k])}"
                obj = getattr(obj, attr)
            return obj
    raise AssertionError(f"{ref} names no module of pbem")


def check_coverage_rows(rows: list[dict[str, object]], cases: dict[str, list[str]], statuses: set[str]) -> None:
    """A coverage table's rows are true: each rule once, a known status, an implemented rule tested
    by catalog cases that cite it, any other saying why (its note) with no case."""
    numbers = [r["rule"] for r in rows]
    assert len(numbers) == len(set(numbers)), "each rule once"
    for r in rows:
        assert r["status"] in statuses, r
        listed = list(r.get("cases", []))  # type: ignore[call-overload]
        if r["status"] == "implemented":
            assert listed, f"{r['rule']} is implemented but no catalog case tests it"
            for cid in listed:
                assert r["rule"] in cases[cid], f"{cid} does not cite {r['rule']}"
        else:
            assert not listed and r.get("note"), f"{r['rule']}: a rule that is not implemented says why"
