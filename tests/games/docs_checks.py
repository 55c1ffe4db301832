"""What the games' own documentation tests share: a rules catalog's cases and the rules each
cites, and the code a documentation page names (``Where:`` of an ambiguities page)."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

from pbem.games.named_options import Option


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


OPTION_LINE = re.compile(r"^ *- `(\w+)` = (.+?) — \S", re.M)  # an ambiguities page's option line


def field(body: str, name: str) -> str:
    """The text of an ambiguities page entry's ``- **Name:**`` bullet, its continuation and sub-bullets included."""
    m = re.search(rf"^- \*\*{name}:\*\*(.*?)(?=^- \*\*|\Z)", body, re.M | re.S)
    return m.group(1).rstrip() if m else ""


def toml_value(raw: str) -> Any:
    return tomllib.loads(f"v = {raw}")["v"]


def options_in(block: str) -> dict[str, tuple[list[Any], list[Any]]]:
    """The option lines of a block: name -> (every value written, the values marked default)."""
    out: dict[str, tuple[list[Any], list[Any]]] = {}
    for m in OPTION_LINE.finditer(block):
        spec = m.group(2)
        values = [toml_value(v) for v in re.findall(r"`([^`]+)`", spec)]
        defaults = [toml_value(v) for v in re.findall(r"`([^`]+)` \(default\)", spec)]
        assert m.group(1) not in out, f"{m.group(1)} is listed twice"
        out[m.group(1)] = (values, defaults)
    return out


def ambiguity_of(opt: Option) -> int | None:
    """The number of the ambiguity (A-nn) an option settles, None for another option."""
    m = re.fullmatch(r"A-(\d+)", opt.ambiguity)
    return int(m.group(1)) if m else None
