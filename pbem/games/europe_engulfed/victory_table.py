"""The victory table of a scenario (``victory = "../victory.toml"`` in its ``[scenario]``), read
and cross-checked with the map when the scenario loads (data.py). The victory conditions of Europe
Engulfed are NOT IN SOURCE (digest Part VI; supplement S2.5 holds the only evidence: graded
victory levels, a lesser Axis victory called "Blood & Concrete", a victory tied to when Germany
falls, an "Allied Victory" result): the table is provisional and an owner of the game replaces it
without touching code. victory.py evaluates it.

The file (schema schemas/europe-engulfed/victory.schema.json):

```toml
[victory]
provisional = true
note = "what is authored and why"

[points]                      # victory points (VP), shown in every state (position.vp)
resource = 1                  # VP per WERP of a resource area (4.14) to the side controlling it
capitals = { germany = 5 }    # VP to the enemy of the nation whose capital (map.toml) it controls

[[condition]]                 # checked in order: the first met decides
id = "V-01"
title = "Germany falls"
when = "sudden-death"         # at the end of every player-turn; "end": after the last game turn
winner = "allies"             # a side, "leader" (the side with more VP; equal VP: a draw) or "draw"
level = "decisive victory"
scenarios = ["1939"]          # the scenarios it applies to (default: every one)
from = "1939-sep"             # the first and last game turns it applies in (default: any)
until = "1944-nov"
controls = { side = "allies", areas = ["berlin", "ruhr"], at_least = 2 }
vp = { side = "axis", at_least = 85 }
lead = 10                     # the winner's (the leader's) VP exceed the other side's by at least this
surrendered = ["italy"]       # nations conquered (10.0, NOT IN SOURCE: politics.conquered, chart `conquest`)
note = "why"
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.errors import Problem

WHEN = ("sudden-death", "end")
LEADER, DRAW = "leader", "draw"


@dataclass(frozen=True)
class Condition:
    id: str
    title: str
    when: str
    winner: str
    level: str
    note: str
    scenarios: tuple[str, ...] = ()
    first: str = ""
    last: str = ""
    controls: dict[str, Any] = field(default_factory=dict)
    vp: dict[str, Any] = field(default_factory=dict)
    lead: int | None = None
    surrendered: tuple[str, ...] = ()


@dataclass(frozen=True)
class VictoryTable:
    provisional: bool
    note: str
    resource: int
    capitals: dict[str, int]
    conditions: tuple[Condition, ...]

    def of(self, scenario: str, when: str) -> list[Condition]:
        """The conditions of ``when`` ("sudden-death", "end") that apply to ``scenario``, in order."""
        return [c for c in self.conditions if c.when == when and (not c.scenarios or scenario in c.scenarios)]


def build(raw: dict[str, Any], where: str, places: set[str], nations: set[str], sides: tuple[str, ...],
          scenarios: set[str], problems: list[Problem]) -> VictoryTable:
    """The table from its TOML (already checked against its schema), every name checked against
    the map (``places``), the nations, the sides and the bundled ``scenarios``."""
    head = raw.get("victory", {})
    pts = raw.get("points", {})

    def bad(key: str, text: str) -> None:
        problems.append(Problem(f"{where}: {key}", text, "victory (NOT IN SOURCE)"))

    def areas(key: str, names: list[Any]) -> None:
        for a in names:
            if str(a) not in places:
                bad(key, f"'{str(a)[:40]}' is not a place of the map")

    capitals = {str(n): int(v) for n, v in pts.get("capitals", {}).items()}
    for n in capitals:
        if n not in nations:
            bad(f"points.capitals.{n}", f"'{n[:40]}' is not a nation of the game")
    conds = []
    seen: set[str] = set()
    for i, c in enumerate(raw.get("condition", [])):
        w = f"condition[{i}]"
        cid = str(c.get("id", ""))
        if cid in seen:
            bad(f"{w}.id", f"'{cid[:40]}' is the id of an earlier condition")
        seen.add(cid)
        winner = str(c.get("winner", ""))
        if winner not in (*sides, LEADER, DRAW):
            bad(f"{w}.winner", f"'{winner[:40]}' is not a side, '{LEADER}' or '{DRAW}'")
        for s in c.get("scenarios", []):
            if str(s) not in scenarios:
                bad(f"{w}.scenarios", f"'{str(s)[:40]}' is not a bundled scenario")
        ctl = dict(c.get("controls", {}))
        if ctl:
            if str(ctl.get("side", "")) not in sides:
                bad(f"{w}.controls.side", f"'{str(ctl.get('side'))[:40]}' is not a side")
            areas(f"{w}.controls.areas", list(ctl.get("areas", [])))
            ctl = {"side": str(ctl.get("side")), "areas": [str(a) for a in ctl.get("areas", [])],
                   "at_least": int(ctl.get("at_least", len(ctl.get("areas", []))))}
        vp = dict(c.get("vp", {}))
        if vp:
            if str(vp.get("side", "")) not in sides:
                bad(f"{w}.vp.side", f"'{str(vp.get('side'))[:40]}' is not a side")
            vp = {"side": str(vp.get("side")), "at_least": int(vp.get("at_least", 0))}
        for n in c.get("surrendered", []):
            if str(n) not in nations:
                bad(f"{w}.surrendered", f"'{str(n)[:40]}' is not a nation of the game")
        conds.append(Condition(
            id=cid, title=str(c.get("title", cid)), when=str(c.get("when", "end")), winner=winner,
            level=str(c.get("level", "victory")), note=str(c.get("note", "")),
            scenarios=tuple(str(s) for s in c.get("scenarios", [])), first=str(c.get("from", "")), last=str(c.get("until", "")),
            controls=ctl, vp=vp, lead=int(c["lead"]) if "lead" in c else None,
            surrendered=tuple(str(n) for n in c.get("surrendered", []))))
    return VictoryTable(bool(head.get("provisional", True)), str(head.get("note", "")), int(pts.get("resource", 0)),
                        capitals, tuple(conds))
