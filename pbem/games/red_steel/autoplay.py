"""The built-in player of Red Steel: legal orders for any awaited step, from what its side sees,
the same every time (no randomness)."""

from __future__ import annotations

from typing import Any


def propose(state: dict[str, Any], side: str) -> str:
    """The body of an order (or reply) file for the awaited step: no orders yet."""
    return f"# {side}: no orders for {state['awaits']['step']}\n"
