"""The WERP ledger (4.1, 4.5: WERPs are public): after each production phase (1.22) one row per
producing nation is kept in the position (``werps_by_turn``: game turn -> nation -> produced,
strategic, maintenance, available, spent, left) and shown in the report as a table; the turn
picture of a production step plots each nation's WERPs available per game turn (the lines of
pbem/site/plots.py), so players see the war economy at a glance.

The columns: ``produced`` the WERPs of the income lines (4.14, 4.11-4.13, 4.7a, conquests and
the transfers other rules add to the income, 9.x) before losses to strategic warfare; ``strategic``
the WERPs lost to strategic warfare (section 2: the income lines of rules 2.x, U-boats, bombing,
V-weapons); ``maintenance`` naval maintenance paid (4.2); ``available`` what the nation could spend
(4.5); ``spent`` what it spent (4.43, hidden builds included, 4.5); ``left`` what is lost (4.1).
The books balance: produced - strategic - maintenance = available = spent + left.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.model import Event

from .context import Ctx
from .data import MAJORS, Turn

KEY = "werps_by_turn"
COLUMNS = ("produced", "strategic", "maintenance", "available", "spent", "left")


def _strategic(rule: Any) -> bool:
    return str(rule).startswith("2.")


def row(e: Event) -> dict[str, int]:
    """One nation's ledger row from its ``werps`` event (production.py, 4.5)."""
    d = e.data
    income = list(d.get("income", []))
    lost = -sum(int(x["werps"]) for x in income if _strategic(x.get("rule")) and int(x["werps"]) < 0)
    produced = int(d.get("produced", 0)) + lost
    return {"produced": produced, "strategic": lost, "maintenance": int(d.get("maintenance", 0)),
            "available": int(d.get("available", 0)), "spent": int(d.get("spending", 0)), "left": int(d.get("left", 0))}


def record(ctx: Ctx, since: int) -> None:
    """After the production phase: the rows of the nations that produced (the ``werps`` events
    since ``since``), kept in the position and shown as a table (a ``werps-table`` event)."""
    rows = {str(e.data["nation"]): row(e) for e in ctx.events[since:] if e.kind == "werps"}
    if not rows:
        return
    book = ctx.pos.setdefault(KEY, {})
    entry = dict(book.get(ctx.turn.key, {}))
    entry.update(rows)
    book[ctx.turn.key] = dict(sorted(entry.items()))
    ctx.pos[KEY] = dict(sorted(book.items(), key=lambda kv: Turn.parse(kv[0]).ordinal()))
    order = {n: i for i, n in enumerate(MAJORS)}
    ctx.emit("werps-table", "4.5", turn=ctx.turn.key, side=ctx.side,
             rows=[{"nation": n, **rows[n]} for n in sorted(rows, key=lambda n: (order.get(n, len(order)), n))])


def series(pos: dict[str, Any]) -> tuple[list[str], dict[str, list[int | None]]]:
    """Each nation's WERPs available by game turn (the labels, one list per nation; None: no
    production that turn)."""
    book = pos.get(KEY, {})
    turns = sorted(book, key=lambda t: Turn.parse(t).ordinal())
    nations = sorted({n for t in turns for n in book[t]}, key=lambda n: (MAJORS.index(n) if n in MAJORS else len(MAJORS), n))
    lines: dict[str, list[int | None]] = {n: [] for n in nations}
    for t in turns:
        for n in nations:
            r = book[t].get(n)
            lines[n].append(int(r["available"]) if r else None)
    return [_short(t) for t in turns], lines


def _short(key: str) -> str:
    t = Turn.parse(key)
    return f"{t.label.split('/')[0]} {str(t.year)[2:]}"


def _table(e: Event) -> list[str]:
    d = e.data
    out = ["", f"WERPs of the {d['side']} in {Turn.parse(str(d['turn'])).label} (4.5; strategic warfare 2.x, naval "
               "maintenance 4.2, never carried over 4.1):", "",
           "| Nation | Produced | Strategic warfare | Maintenance | Available | Spent | Left |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in d["rows"]:
        out.append(f"| {str(r['nation']).capitalize()} | {r['produced']} | {-int(r['strategic']) if r['strategic'] else 0} | "
                   f"{-int(r['maintenance']) if r['maintenance'] else 0} | {r['available']} | {r['spent']} | {r['left']} |")
    out.append("")
    return out


RENDER = {"werps-table": _table}
