"""Europe Engulfed combat (6.x): what the catalog cannot reach from a combat step's file: a
breakthrough combat's paying nations (6.72, A-65) and the heavy fortification's rounds (A-66)."""

from __future__ import annotations

from typing import Any

from pbem.games.europe_engulfed import combat
from pbem.games.europe_engulfed.catalog import case_state
from pbem.games.europe_engulfed.context import context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from pbem.mechanics.dice import Dice


class Faces(Dice):
    def __init__(self, faces: list[int]) -> None:
        super().__init__()
        self.faces = list(faces)

    def _face(self, label: str, sides: int) -> int:
        return self.faces.pop(0)


def _ctx(units: dict[str, Any], faces: list[int], options: dict[str, Any] | None = None, **position: Any) -> Any:
    case = {"case": {"id": "EE-999"}, "options": options or {},
            "position": {"turn": "1941-jul", "side": "axis", "phase": "breakthrough", "only": True, "units": units, **position}}
    state = case_state(EuropeEngulfed().new_game, case, None)  # type: ignore[arg-type]
    return context(state, Faces(faces))


UNITS = {"de.90": {"at": "minsk", "block": "de-inf", "steps": 1}, "it.90": {"at": "minsk", "block": "it-inf", "steps": 1},
         "su.90": {"at": "minsk", "block": "su-inf", "steps": 1}}


def test_breakthrough_only_paying_nations_attack_and_lose() -> None:
    """6.72, A-65: only the units of the nations that paid fire; the defender's hits go to them."""
    ctx = _ctx(UNITS, [6, 1], contested={"minsk": "old"})
    combat.fight(ctx, {"area": "minsk", "type": "normal"}, "6.72", paying=["italy"])
    assert "it.90" not in ctx.units and "de.90" in ctx.units
    battle = next(e for e in ctx.events if e.kind == "battle")
    assert [f["unit"] for f in battle.data["fire"]] == ["su.90"]  # it.90 eliminated before firing, de.90 did not pay


def test_breakthrough_losses_any() -> None:
    """Option breakthrough_losses = any: the hits may go to units that did not pay."""
    ctx = _ctx(UNITS, [6, 1], {"breakthrough_losses": "any"}, contested={"minsk": "old"})
    ctx.standing = {"axis": {"losses": ["de.90"]}}
    combat.fight(ctx, {"area": "minsk", "type": "normal"}, "6.72", paying=["italy"])
    assert "de.90" not in ctx.units and "it.90" in ctx.units


def test_heavy_fortification_rounds() -> None:
    """A-66: a heavy fortification's +1 in the first round of the turn's combat only (a breakthrough
    round in an older contested area gets none), or every round by option."""
    units = {"de.90": {"at": "minsk", "block": "de-inf", "steps": 1}, "su.90": {"at": "minsk", "block": "su-inf", "steps": 1}}
    forts = {"minsk": {"kind": "heavy", "nation": "ussr"}}
    for option, hb in (("first", 0), ("every", 1)):
        ctx = _ctx(units, [1, 1], {"heavy_fort_rounds": option}, contested={"minsk": "old"}, fortifications=forts)
        combat.fight(ctx, {"area": "minsk", "type": "normal"}, "6.72", paying=["germany"])
        battle = next(e for e in ctx.events if e.kind == "battle")
        assert battle.data["fire"][0]["hb"] == hb
        assert ctx.pos["fortifications"] == forts


def test_no_battle_without_both_sides() -> None:
    """6.1: nothing is fought (no die) where one side has no ground unit."""
    ctx = _ctx({"de.90": {"at": "minsk", "block": "de-inf"}}, [])
    combat.fight(ctx, {"area": "minsk", "type": "normal"}, "1.25")
    assert not ctx.events


def test_render_every_kind() -> None:
    """Every event kind combat makes has its words."""
    assert set(combat.RENDER) >= {"battle", "air-combat", "retreat-before-combat", "reinforced", "counterattack",
                                  "fortification-breached"}
