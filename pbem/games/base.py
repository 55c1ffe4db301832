"""What a game module provides to the engine (a Protocol; modules are plain classes)."""

from __future__ import annotations

from typing import Any, Protocol

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import Problem
from pbem.mechanics.dice import Dice


class GameModule(Protocol):
    name: str
    aliases: tuple[str, ...]
    title: str
    ruleset: str  # module and ruleset version, recorded in every state
    sides: tuple[str, ...]
    id_prefix: str  # the start of the game ids `pbem new` makes
    schema_dir: str  # the folder of its JSON Schemas under schemas/: state-body, view-body, orders-body
    step_rule: str  # the rule that says who acts in which step (cited when a file is not the awaited one)
    report_details: tuple[str, ...]  # starts of report lines that are computations (a mail's summary leaves them out)

    def scenarios(self) -> list[str]: ...

    def owns_scenario(self, name: str) -> bool:
        """Whether ``name`` (a bundled scenario, or a scenario file) is one of this game's."""
        ...

    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        """What `pbem status --json` shows of the position (JSON-able: a score, a turn...)."""
        ...

    def status_line(self, state: dict[str, Any]) -> str:
        """`pbem status`'s line for the clock and the score."""
        ...

    def report_notes(self, events: list[Event]) -> list[str]:
        """Markdown lines at the end of a transition's report (provisional charts used...), or none."""
        ...

    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        """The game part of the first state: scenario, options, clock, position (not yet awaiting)."""
        ...

    def data_digest(self, scenario: str) -> str: ...

    def start(self, state: dict[str, Any], dice: Dice) -> Transition:
        """After every party joined: run automatic phases up to the first awaited step."""
        ...

    def check(self, state: dict[str, Any], submission: Submission) -> list[Problem]:
        """Every rule problem of a submission for the awaited step (no dice used)."""
        ...

    def resolve(self, state: dict[str, Any], submissions: list[Submission], dice: Dice) -> Transition: ...

    def template(self, state: dict[str, Any], side: str, header: list[str]) -> str:
        """A skeleton order (or reply) file for the awaited step: ``header`` (the envelope the
        core writes: the [pbem] table) and the game's part, ready to edit."""
        ...

    def render_event(self, event: Event) -> list[str]: ...

    def check_state(self, state: dict[str, Any]) -> list[Problem]:
        """What a state's (or view's) schema cannot say: every piece and place one the game has."""
        ...

    def render_position(self, state: dict[str, Any], side: str | None) -> str: ...

    def status_lines(self, state: dict[str, Any]) -> list[str]:
        """Game counters `pbem status` shows with its summary (pools, markers), one line each."""
        ...

    def render_svg(self, state: dict[str, Any], side: str | None) -> str: ...

    def view_position(self, state: dict[str, Any], side: str) -> dict[str, Any]: ...

    def side_events(self, state: dict[str, Any], events: list[Event], side: str) -> list[Event]:
        """The events of a transition that ``side`` may see (a refereed game's report for that side)."""
        ...

    def turn_picture(self, prev: dict[str, Any], cur: dict[str, Any], events: list[Event]) -> str | None: ...

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        """A hidden item opened (docs/protocol.md, Hidden values): ``values`` by version, each
        ``versions`` entry with the ``claims`` the game recorded while it was hidden. Every problem
        (a value that contradicts a claim, or an impossible change between versions) makes the
        opening tampering. A game without hidden values returns no problem."""
        ...

    def coverage(self) -> list[dict[str, Any]]: ...

    def data_report(self) -> list[dict[str, Any]]: ...
