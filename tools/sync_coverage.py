"""Fill the `cases` of each rule in a game's coverage table from the rules catalog.

    python tools/sync_coverage.py            # rewrite pbem/games/proud_monster/coverage.toml
    python tools/sync_coverage.py --check    # exit 1 if the table is out of date

A rule's cases are the catalog cases whose `rules` cite it. The status and note of each rule are
kept as written; an `implemented` rule must end up with at least one case.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "pbem" / "games" / "proud_monster" / "coverage.toml"
CATALOG = ROOT / "tests" / "catalog" / "proud-monster"


def catalog_cases() -> dict[str, list[str]]:
    by_rule: dict[str, list[str]] = {}
    for p in sorted(CATALOG.glob("PM-*.toml")):
        with p.open("rb") as f:
            case = tomllib.load(f)["case"]
        for r in dict.fromkeys(case["rules"]):  # a rule cited twice by one case lists the case once
            by_rule.setdefault(r, []).append(case["id"])
    return by_rule


def render(rows: list[dict[str, object]]) -> str:
    out = [
        "# Rule coverage of Proud Monster (digest ../shared/rules/proud-monster.md), one [[rule]] per rule number.",
        "# status: implemented (with the catalog cases that test it) | planned (full-game rule, not yet adjudicated)",
        "#         | not-applicable (why) | needs-data (what is missing). `cases` is filled by tools/sync_coverage.py.",
        "",
    ]
    for r in rows:
        out.append("[[rule]]")
        out.append(f'rule = "{r["rule"]}"')
        out.append(f'title = "{r["title"]}"')
        out.append(f'status = "{r["status"]}"')
        if r.get("note"):
            out.append(f'note = "{r["note"]}"')
        cases = r.get("cases", [])
        out.append("cases = [" + ", ".join(f'"{c}"' for c in cases) + "]")  # type: ignore[union-attr]
        out.append("")
    return "\n".join(out)


def main() -> int:
    with TABLE.open("rb") as f:
        rows = tomllib.load(f)["rule"]
    cases = catalog_cases()
    for r in rows:
        r["cases"] = cases.get(r["rule"], []) if r["status"] == "implemented" else []
    text = render(rows)
    if "--check" in sys.argv:
        if TABLE.read_text(encoding="utf-8") != text:
            print(f"{TABLE} is out of date: run python tools/sync_coverage.py")
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
