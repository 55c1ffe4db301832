"""Hideout: a two-side test game with hidden values (docs/protocol.md, "Hidden values without a referee").

Rules (cited as H-n in its problems):
- H-1 On turn 1 each side commits, hidden, its scout's type (``runner``: moves up to 3; ``walker``:
  up to 1, fights better) and a plan (an integer 1 to 6), and may move.
- H-2 Red (starting at 0) and blue (at 8) move their scouts towards each other on a track, in turns;
  a move is public, the scout's type is not: the move is recorded as a claim of the scout.
- H-3 A scout never moves farther than its type allows: checked when the type is opened.
- H-4 When the scouts meet, the side that did not move replies, and both scouts are opened (the
  mover, who adjudicates the reply, opens its own in the state it seals); then a combat: each side
  rolls a d6 and adds its strength (runner 1, walker 3); the higher total wins, the replying side
  on a tie. The game is over; the plans are opened in the last step.
- H-5 Each side draws, hidden, a bonus from a cup (a d4 less 1: 0 to 3) with its orders of turn 2,
  opened with its scout and added to its combat total.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import Problem
from pbem.exchange.hidden import add_claim, is_sealed_entry, request_draw
from pbem.mechanics.dice import Dice

ALLOWANCE = {"runner": 3, "walker": 1}
STRENGTH = {"runner": 1, "walker": 3}
SCHEMAS = Path(__file__).parent / "data" / "hideout"


class Hideout:
    name = "hideout"
    aliases: tuple[str, ...] = ()
    title = "Hideout"
    ruleset = "hideout-1"
    sides = ("red", "blue")
    id_prefix = "ho"
    schema_dir = str(SCHEMAS)
    step_rule = "H-2"
    report_details: tuple[str, ...] = ()
    hidden_draws = True

    def scenarios(self) -> list[str]:
        return ["hideout"]

    def owns_scenario(self, name: str) -> bool:
        return name == "hideout"

    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"turn": state["clock"]["turn"], "at": state["position"]["at"]}

    def status_line(self, state: dict[str, Any]) -> str:
        return f"Turn {state['clock']['turn']}"

    def report_notes(self, events: list[Event]) -> list[str]:
        return []

    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        return {"options": dict(options), "clock": {"turn": 1}, "position": {"at": {"red": 0, "blue": 8}}}

    def data_digest(self, scenario: str) -> str:
        return "sha256:" + "0" * 64

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        s = dict(state)
        s["awaits"] = {"kind": "orders", "step": "turn 1/red", "from": ["red"], "adjudicator": "blue"}
        return Transition(_game(s), ())

    def drawn(self, item: str) -> bool:
        return item == "bonus"  # H-5: drawn, never chosen

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        """H-5: a bonus from the cup, which only its owner sees until it is opened."""
        return dice.roll("H-5|cup", int(request["cup"])) - 1

    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        problems = []
        hidden = submission.body.get("hidden", {})
        if state["awaits"]["kind"] == "orders" and state["clock"]["turn"] == 1:
            for item in ("scout", "plan"):
                if item not in hidden:
                    problems.append(Problem(f"hidden.{item}", f"on turn 1 a side commits its {item} (hidden)", "H-1"))
        scout, plan = hidden.get("scout"), hidden.get("plan")
        if scout is not None and not is_sealed_entry(scout) and (not isinstance(scout, str) or scout not in ALLOWANCE):  # the sender's own check sees the value
            problems.append(Problem("hidden.scout", f"'{scout}' is not a scout type (runner, walker)", "H-1"))
        if plan is not None and not is_sealed_entry(plan) and not _is_plan(plan):
            problems.append(Problem("hidden.plan", "a plan is an integer from 1 to 6", "H-1"))
        return problems

    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition:
        s = {**state, "position": {"at": dict(state["position"]["at"])}, "clock": dict(state["clock"])}
        aw = s["awaits"]
        if aw["kind"] == "reply":
            return self._combat(s, dice)
        sub = submissions[0]
        side, other = sub.side, ("blue" if sub.side == "red" else "red")
        move = int(sub.body.get("move", 0))
        at = s["position"]["at"]
        at[side] = min(at[side] + move, at[other]) if side == "red" else max(at[side] - move, at[other])
        if "scout" in s.get("hidden", {}).get(side, {}):
            add_claim(s, side, "scout", {"moved": move})
        events = [Event("move", "H-2", {"side": side, "by": move, "to": at[side]})]
        if at["red"] >= at["blue"]:
            s["awaits"] = {"kind": "reply", "step": f"contact/{other}", "from": [other], "adjudicator": side,
                           "open": {o: sorted({"scout", "bonus"} & set(s.get("hidden", {}).get(o, {}))) for o in (other, side)}}
            s["pending"] = {"mover": side}
            events.append(Event("contact", "H-4", {"at": at[side]}))
        else:
            if side == "blue":
                s["clock"]["turn"] += 1
            s["awaits"] = {"kind": "orders", "step": f"turn {s['clock']['turn']}/{other}", "from": [other], "adjudicator": side}
            if s["clock"]["turn"] == 2 and "referee" not in s["parties"] and "bonus" not in s.get("hidden", {}).get(other, {}):
                request_draw(s, other, "bonus", {"cup": 4})  # H-5
        return Transition(_game(s), tuple(events))

    def _combat(self, s: dict[str, Any], dice: Dice) -> Transition:
        mover = s["pending"]["mover"]
        replier = "blue" if mover == "red" else "red"
        totals = {}
        for side in ("red", "blue"):
            kind = s["opened"][side]["scout"]["values"][-1]
            bonus = s["opened"][side].get("bonus", {"values": [0]})["values"][-1]
            totals[side] = dice.roll(f"H-4|{side}|combat", 6) + STRENGTH[kind] + bonus
        winner = mover if totals[mover] > totals[replier] else replier
        s.pop("pending", None)
        s["result"] = {"winner": winner}
        s["awaits"] = {"kind": "none", "step": "over", "from": [], "adjudicator": mover}
        return Transition(_game(s), (Event("combat", "H-4", {"totals": totals, "winner": winner}),))

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        problems = []
        for value, version in zip(values, versions, strict=True):
            if item == "scout":
                if not isinstance(value, str) or value not in ALLOWANCE:
                    problems.append(Problem(f"hidden.{owner}.scout", f"'{value}' is not a scout type", "H-1"))
                    continue
                for claim in version["claims"]:
                    if claim["moved"] > ALLOWANCE[value]:
                        problems.append(Problem(f"hidden.{owner}.scout", f"moved {claim['moved']} in state {claim['at']:04d}: "
                                                f"a {value} moves at most {ALLOWANCE[value]}", "H-3"))
            elif item == "bonus" and not (type(value) is int and 0 <= value <= 3):
                problems.append(Problem(f"hidden.{owner}.bonus", f"{value!r} is not a bonus (0 to 3)", "H-5"))
            elif item == "plan" and not _is_plan(value):
                problems.append(Problem(f"hidden.{owner}.plan", f"{value!r} is not a plan (1 to 6)", "H-1"))
        return problems

    def template(self, state: dict[str, Any], side: str, header: list[str]) -> str:
        if state["awaits"]["kind"] != "orders":
            return "\n".join(header)
        lines = ["move = 0", "", *header]  # a bare key before the first table
        if state["clock"]["turn"] == 1:
            lines += ["[hidden]", 'scout = "runner"', "plan = 1", ""]
        return "\n".join(lines)

    def render_event(self, event: Event) -> list[str]:
        if event.kind == "joined":
            return [f"- Joined: {', '.join(event.data['parties'])}."]
        return [f"- {event.kind}: {sorted(event.data.items())} ({event.rule})."]

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        return []

    def render_position(self, state: dict[str, Any], side: str | None) -> str:
        return f"red at {state['position']['at']['red']}, blue at {state['position']['at']['blue']}\n"

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        return []

    def render_svg(self, state: dict[str, Any], side: str | None) -> str:
        return "<svg xmlns='http://www.w3.org/2000/svg'/>"

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]:
        return dict(state["position"])

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        return events

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None:
        return None

    def coverage(self) -> list[dict[str, Any]]:
        return []

    def data_report(self) -> list[dict[str, Any]]:
        return []


def _is_plan(value: Any) -> bool:
    return type(value) is int and 1 <= value <= 6


def _game(s: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in s.items() if k not in ("pbem", "parties")}
