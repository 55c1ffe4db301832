"""The Combat Phase (3.34, 9.x, 10.x, 11.x): every attacked hex declared (9.0), the defender's
secret support (9.11, reply), the attacker's support, each combat in the attacker's order
(9.12-9.19), the results (9.2-9.5), isolation (7.7, 7.71), 11.4; at the end recovery rolls
(13.31) and river monitors next to Soviet tanks (17.52)."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem

from .context import Ctx

KEYS = ("attack",)


def check(ctx: Ctx, body: dict[str, Any], problems: list[Problem]) -> None:
    """9.0, 5.21, 5.52, 15.11, 11.2, 11.3, 9.8: the [[attack]] orders."""
    for i, _ in enumerate(body.get("attack", [])):
        problems.append(Problem(f"attack[{i}]", "combat is not played yet", "9.0"))


def declared(ctx: Ctx, body: dict[str, Any]) -> list[str]:
    """9.0, 3.34a: the hexes attacked, in the order given."""
    return [str(a["target"]) for a in body.get("attack", [])]


def check_support(ctx: Ctx, attacks: list[dict[str, Any]], reply: dict[str, Any], side: str, problems: list[Problem]) -> None:
    """3.34b, 9.11, 9.8, 11.2, 11.3: the defender's [[support]] reply."""
    for i, _ in enumerate(reply.get("support", [])):
        problems.append(Problem(f"support[{i}]", "defensive support is not played yet", "9.11"))


def resolve_all(ctx: Ctx, attacks: list[dict[str, Any]], support: list[dict[str, Any]]) -> None:
    """9.1: each combat in the attacker's order with both sides' support."""


def end_phase(ctx: Ctx) -> None:
    """13.31 recovery rolls next to the enemy; 17.52 monitors next to a Soviet tank."""
