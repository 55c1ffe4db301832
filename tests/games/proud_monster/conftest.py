"""Every Proud Monster test checks, as it runs, what the rules keep to be fast: the index of the
units by hex against a scan of every unit, and each supply search kept up to date (supply._reached)
against a whole-map search of the same position."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem.games.proud_monster import supply
from pbem.games.proud_monster.rules import context
from pbem.mechanics.supply import Reach


@pytest.fixture(autouse=True)
def checked_indexes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    occupants = context.Ctx.occupants
    reached = supply._reached

    def checked_occupants(self: context.Ctx, hex_id: str, side: str | None = None) -> list[str]:
        got = occupants(self, hex_id, side)
        scan = sorted(u for u, s in self.units.items()
                      if s["at"] == hex_id and (side is None or self.sc.units[u].side == side))
        assert got == scan, f"the index of units by hex is out of step at {hex_id}: {got} != {scan}"
        return got

    def checked_reached(ctx: context.Ctx, kind: str, overland: bool = False) -> Any:
        got = reached(ctx, kind, overland)
        if isinstance(got, Reach):
            want = supply._searched(ctx, kind, overland)
            assert got.places() == want, f"the {kind} supply search kept up to date differs from a whole-map search"
        return got

    monkeypatch.setattr(context.Ctx, "occupants", checked_occupants)
    monkeypatch.setattr(supply, "_reached", checked_reached)
    yield
