"""What `pbem demo` asks of Proud Monster (the demo hooks of pbem.games.base.GameModule).

The training scenario has example orders for every step of its first two game turns
(``examples/proud-monster/training/``: one file per step, named after the step, and one per side's
join with its standing instructions). A step they do not script is answered as a player who reads
the documents would: a reply by the documented defaults, the Mutual Reinforcement step with the
template's proposal, a player turn with no orders. Any other scenario is played by the built-in
player (autoplay.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.errors import Problem
from pbem.resources import examples_dir

from . import autoplay, setup
from .render import mr_template
from .rules.combat.losses import default_losses
from .rules.context import Ctx

SCENARIO = "training"  # the scenario whose example orders script the demo
EXAMPLES = "proud-monster"  # the game's folder under examples/


def example_path(scenario: str, step: str, side: str) -> Path | None:
    """The example file of ``side`` for ``step`` of ``scenario`` (``join-SIDE.toml`` for a join,
    else the step with '-' for '/': ``GT1-1-german.toml``), if there is one."""
    name = f"join-{side}" if step == "join" else step.replace("/", "-")
    path = examples_dir() / EXAMPLES / scenario / f"{name}.toml"
    return path if path.is_file() else None


def reply_body(state: dict[str, Any]) -> tuple[str, str]:
    """A reply to the decision awaited (README: standing instructions and replies), as the
    documented defaults would give it: the first retreat hex offered, losses fewest-steps-first."""
    q = state["pending"]["question"]
    if q.get("kind") == "retreat":
        return f'\n[reply]\nretreat = "{q["hexes"][0]}"\n', f"a reply: retreat to {q['hexes'][0]}"
    losses = default_losses(q)
    return "\n[reply]\nlosses = [" + ", ".join(f'"{u}"' for u in losses) + "]\n", f"a reply: losses {', '.join(losses)}"


def unscripted(state: dict[str, Any], side: str, context: Callable[[str], Ctx]) -> tuple[str, str]:
    """Orders for a step the examples do not script: a set-up (3.2-3.7) or the Soviet's MR step
    (8.7) with the template's proposal, a player turn with none. ``context(side)`` is a working
    context on ``state`` as that side, without dice."""
    if setup.in_setup(state):
        return autoplay.body_text({"setup": setup.proposal(context(side), side)}), "the template's proposed set-up"
    if int(state["clock"]["pts"]) == 0:
        return "\n".join(["", *mr_template(context("soviet"))]), "the template's proposed placements"
    return "# no orders this player turn\n", "no orders"


ORDER_ENTRY = re.compile(r"^(move|attack)\[(\d+)\]")


def leave_out(orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
    """The orders less the moves and attacks the problems are about (all the moves for a hex
    over-stacked at the end of movement, 6.2); None when another problem stands in the way."""
    drop: dict[str, set[int]] = {}
    for p in problems:
        m = ORDER_ENTRY.match(p.where)
        if m:
            drop.setdefault(m.group(1), set()).add(int(m.group(2)))
        elif p.where.startswith("end of movement"):
            drop.setdefault("move", set()).update(range(len(orders.get("move", []))))
        else:
            return None
    kept = dict(orders)
    for key, idx in drop.items():
        kept[key] = [x for i, x in enumerate(kept.get(key, [])) if i not in idx]
        if not kept[key]:
            del kept[key]
    return kept


def summary(report: str) -> str:
    """The moves, attacks and control changes of a report, counted: ``2 move(s), 7 attack(s)``."""
    counts = (("move(s)", report.count("\n- Move ")), ("attack(s)", report.count("\n- **Attack ")),
              ("control change(s)", report.count("\n- Control: ")))
    return ", ".join(f"{n} {what}" for what, n in counts if n)
