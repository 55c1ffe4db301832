"""Fill the `cases` of each rule in each game's coverage table from its rules catalog.

    python tools/sync_coverage.py            # rewrite the tables (pbem/games/*/coverage.toml)
    python tools/sync_coverage.py --check    # exit 1 if a table is out of date

A rule's cases are the catalog cases whose `rules` cite it. The status and note of each rule are
kept as written, and so are the comment lines at the top of a table; an `implemented` rule must end
up with at least one case.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Each game: its coverage table, its catalog folder and the file names of its cases there.
GAMES = (
    (ROOT / "pbem" / "games" / "proud_monster" / "coverage.toml", ROOT / "tests" / "games" / "proud_monster" / "catalog", "PM-*.toml"),
    (ROOT / "pbem" / "games" / "skirmish" / "coverage.toml", ROOT / "tests" / "games" / "skirmish" / "catalog", "SK-*.toml"),
    (ROOT / "pbem" / "games" / "red_steel" / "coverage.toml", ROOT / "tests" / "games" / "red_steel" / "catalog", "RS-*.toml"),
    (ROOT / "pbem" / "games" / "europe_engulfed" / "coverage.toml", ROOT / "tests" / "games" / "europe_engulfed" / "catalog", "EE-*.toml"),
)


def catalog_cases(catalog: Path, pattern: str) -> dict[str, list[str]]:
    by_rule: dict[str, list[str]] = {}
    for p in sorted(catalog.glob(pattern)):
        with p.open("rb") as f:
            case = tomllib.load(f)["case"]
        for r in dict.fromkeys(case["rules"]):  # a rule cited twice by one case lists the case once
            by_rule.setdefault(r, []).append(case["id"])
    return by_rule


def header(text: str) -> list[str]:
    """The comment lines at the top of a table, and the blank line after them."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or (line == "" and out and out[-1] != ""):
            out.append(line)
        else:
            break
    return out if out and out[-1] == "" else [*out, ""]


def render(rows: list[dict[str, object]], head: list[str]) -> str:
    out = list(head)
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


def synced(table: Path, catalog: Path, pattern: str) -> str:
    text = table.read_text(encoding="utf-8")
    rows = tomllib.loads(text)["rule"]
    cases = catalog_cases(catalog, pattern)
    for r in rows:
        r["cases"] = cases.get(r["rule"], []) if r["status"] == "implemented" else []
    return render(rows, header(text))


def main() -> int:
    status = 0
    for table, catalog, pattern in GAMES:
        text = synced(table, catalog, pattern)
        if "--check" in sys.argv:
            if table.read_text(encoding="utf-8") != text:
                print(f"{table} is out of date: run python tools/sync_coverage.py")
                status = 1
            continue
        table.write_text(text, encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
