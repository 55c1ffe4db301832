"""The built-in player (`pbem demo`, `pbem propose`): legal orders from what the side may see."""

from __future__ import annotations

from typing import Any


def propose(state: dict[str, Any], side: str) -> str:
    """The body of the side's file for the awaited step (stub: no orders)."""
    return "# no orders\n"
