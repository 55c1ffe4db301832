"""What a game module provides to the engine (a Protocol; modules are plain classes)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pbem.engine.model import Event, Submission, Transition
from pbem.errors import ModuleDataError, PbemError, Problem
from pbem.mechanics.dice import Dice


class GameModule(Protocol):
    name: str
    aliases: tuple[str, ...]
    title: str
    short_title: str  # the game's name as a sentence gives it ("pbem demo: NAME, SCENARIO scenario, ...")
    ruleset: str  # module and ruleset version, recorded in every state
    sides: tuple[str, ...]  # the parties of a game with default options (``sides_of`` for a given game)
    id_prefix: str  # the start of the game ids `pbem new` makes
    schema_dir: str  # the folder of its JSON Schemas under schemas/: state-body, view-body, orders-body
    step_rule: str  # the rule that says who acts in which step (cited when a file is not the awaited one)
    report_details: tuple[str, ...]  # starts of report lines that are computations (a mail's summary leaves them out)
    case_prefix: str  # the start of its rules catalog's case ids (PREFIX-NNN): `pbem catalog run` knows a case's game by it

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

    # Optional: ``sides_for(options, scenario) -> tuple[str, ...]`` the parties of a game made with
    # these options (as the game's state records them: those at their default left out) and
    # scenario, when they are not always ``sides`` (a game for two or three players); and
    # ``side_variants: dict[str, tuple[str, ...]]`` the other sets of parties by the option that
    # makes them (``{"players=3": ("north", "east", "south")}``), for listings (pbem.engine.registry
    # ``sides_of``, ``every_side``).

    # Optional: ``has_turn_picture(prev, cur, events) -> bool`` whether ``turn_picture`` draws one,
    # without drawing it: `pbem verify` then draws only the pictures it has a file to compare with.

    # Optional: ``side_dice(state, dice, side) -> list`` the dice of a transition that a side of a
    # refereed game may see in its view and report (a die of a secret draw left out); a module
    # without it shows every die (pbem.exchange.views.side_dice).

    hidden_draws: bool  # whether its joins commit to a hidden-dice secret (docs/protocol.md, Hidden draws)

    def draw(self, side: str, request: dict[str, Any], dice: Dice) -> Any:
        """A hidden draw the module asked of ``side`` (``pbem.exchange.hidden.request_draw``): the
        value, made with ``dice`` (seeded by the side's hidden-dice secret and the asking step's
        seed), which only the side sees until it is opened. A game without hidden draws never
        asks for one."""
        ...

    def drawn(self, item: str) -> bool:
        """Whether the hidden item ``item`` is drawn (its values come only from draws the game asks
        for: a side's file may not commit one of its own choosing)."""
        ...

    def check_opening(self, state: dict[str, Any], owner: str, item: str, values: list[Any],
                      versions: list[dict[str, Any]]) -> list[Problem]:
        """A hidden item opened (docs/protocol.md, Hidden values): ``values`` by version, each
        ``versions`` entry with the ``claims`` the game recorded while it was hidden. Every problem
        (a value that contradicts a claim, or an impossible change between versions) makes the
        opening tampering. A game without hidden values returns no problem."""
        ...

    def coverage(self) -> list[dict[str, Any]]: ...

    # --- the rules catalog (pbem/catalog.py, `pbem catalog run`) ----------------------------------
    def catalog_keys(self) -> dict[str, tuple[str, ...]]:
        """The keys of a case file's tables ``"case"``, ``"position"`` and ``"expect"`` that the
        game reads, beyond the ones every game's cases share (schemas/case.schema.json): a key that
        neither names makes the case malformed."""
        ...

    def catalog_state(self, case: dict[str, Any], folder: Path) -> dict[str, Any]:
        """The state a case starts from (``case``: the case file's data, checked against
        schemas/case.schema.json; ``folder``: the case file's folder, for data files beside it): the
        game's part with ``pbem`` (its ``scenario``), ``parties`` and the ``awaits`` of the step the
        case's orders are for, built from the case's ``position``, ``options`` and ``standing``."""
        ...

    def catalog_expect(self, case: dict[str, Any], problems: list[Problem], state: dict[str, Any],
                       events: list[Event]) -> list[str]:
        """Every failure of the game's own expectations in ``case["expect"]``, one message each
        (none: the case passes them), after the step was played: ``problems`` of the file refused
        (then ``state`` is the one it was checked against and nothing was played), or the final
        ``state`` and every event. The runner checks the shared expectations itself."""
        ...

    def data_report(self) -> list[dict[str, Any]]: ...

    # --- `pbem demo` (pbem/demo.py): the game played in a folder, as its players would ---------
    def demo_scenario(self) -> str:
        """The bundled scenario `pbem demo` plays when none is named: the one whose example files
        (demo_example) answer every step of its first game turns. Any other scenario, or
        ``--auto``, is played with the built-in player's orders (demo_orders)."""
        ...

    def demo_options(self, full: bool) -> dict[str, Any]:
        """The options the demo creates its game with (as `pbem new --option`); ``full``: under
        every rule of the game's full rules implemented so far (`pbem demo --full`)."""
        ...

    def demo_turn(self, state: dict[str, Any]) -> int:
        """The game turn ``state`` is in: `pbem demo --turns N` answers steps while it is N or less."""
        ...

    def demo_example(self, scenario: str, step: str, side: str) -> Path | None:
        """The bundled example file ``side`` sends for ``step`` (as ``awaits.step`` names it;
        ``"join"`` for its join) in ``scenario``, if there is one. It holds the game's part of the
        file, TOML without the ``[pbem]`` table (the demo writes the envelope, then signs); of a
        join's, the demo sends the ``[standing]`` table. The demo names the file by its path under
        the bundled ``examples/`` folder (pbem.resources.examples_dir)."""
        ...

    def demo_standing(self, side: str) -> dict[str, Any] | None:
        """The standing instructions the built-in player sends with its join, or None."""
        ...

    def demo_orders(self, state: dict[str, Any], side: str, extra: dict[str, Any] | None) -> str:
        """The built-in player's file body (TOML, without the [pbem] table) for the step ``state``
        awaits from ``side``: orders, or a reply when a reply is awaited; legal by ``check``, from
        what ``side`` may see, and the same every time. ``extra``: the game's part of an example
        file for the step, to be merged in (a scenario's scripted orders), or None."""
        ...

    def demo_reply(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        """A reply to the decision ``state`` awaits from ``side`` when the example files have none:
        the body, as the documented defaults answer it, and a few words on it for the demo's
        output (``a reply: ...``)."""
        ...

    def demo_unscripted(self, state: dict[str, Any], side: str) -> tuple[str, str]:
        """Orders for a step the example files do not script (a reply aside): the body (it may
        be a comment only: no orders) and a few words on where it comes from."""
        ...

    def demo_leave_out(self, orders: dict[str, Any], problems: list[Problem]) -> dict[str, Any] | None:
        """Example orders that `pbem check` finds these problems with, less the orders the
        problems are about (the demo's dice may differ from the ones the examples were written
        for: a hex not taken, a unit elsewhere); None when leaving orders out cannot help."""
        ...

    def demo_summary(self, report: str) -> str:
        """A few words on what a transition's report holds (the demo prints them under each
        adjudication), or "" for nothing worth a line."""
        ...


MAX_SCENARIO_HEAD = 64 * 1024  # the part of a scenario file read to see which game it is for


def scenario_file_names(name: str, game: str, stop: str) -> bool:
    """Whether ``name`` is a scenario file whose [scenario] table names ``game``: its head, read up
    to ``stop`` (the start of the first table after [scenario] in the game's format), is enough."""
    if not name.endswith(".toml"):
        return False
    try:
        with open(name, "rb") as f:
            head = tomllib.loads(f.read(MAX_SCENARIO_HEAD).decode("utf-8", errors="replace").split(stop, 1)[0])
    except (OSError, ValueError):
        return False
    return bool(head.get("scenario", {}).get("game") == game)


def bundled_scenario_path(folder: Path, name: str) -> Path:
    """A game's bundled scenario by name (``FOLDER/NAME/scenario.toml``, ``folder``: the game's
    folder of scenarios), or a scenario file by path (``.toml``: test and owner data)."""
    if name.endswith(".toml"):
        return Path(name)
    return folder / name / "scenario.toml"


def bundled_scenario_names(folder: Path) -> list[str]:
    """The names of the bundled scenarios in a game's folder of scenarios, sorted."""
    return sorted(p.parent.name for p in folder.glob("*/scenario.toml"))


def scenario_file(title: str, name: str, path: Path, bundled: list[str]) -> Path:
    """The file of scenario ``name`` of the game ``title`` (at ``path``), or ModuleDataError naming
    the bundled ones when there is none."""
    try:
        found = path.is_file()
    except OSError as err:
        raise ModuleDataError(f"no {title} scenario '{name[:80]}' ({err.strerror})") from err
    if not found:
        raise ModuleDataError(f"no {title} scenario '{name[:80]}'", hint=f"Bundled: {', '.join(bundled)}.")
    return path


def read_data(path: Path, problems: list[Problem], schema: str | None = None) -> dict[str, Any]:
    """A data file's TOML, checked against ``schema`` when given; what is wrong goes into
    ``problems`` (with the file's path) and an unreadable file gives {}."""
    from pbem.exchange.files import read_toml, read_validated

    try:
        if schema is None:
            return read_toml(path)
        data, found = read_validated(path, schema)  # bytes that passed the schema before are not checked again
    except PbemError as e:
        problems.append(Problem(str(path), e.message))
        return {}
    problems += found
    return data


def problem_rows(item: str, err: PbemError) -> list[dict[str, Any]]:
    """`pbem module check` rows for data a game refuses to load: one per problem, or the message."""
    return [{"item": item, "status": "problem", "note": p.render()} for p in err.problems] \
        or [{"item": item, "status": "problem", "note": err.message}]


class BundledGame:
    """What every bundled game does alike: its coverage table from its TOML file (``coverage_file``),
    the rules catalog's hooks from its catalog module (``catalog_module()``: ``KEYS``,
    ``case_state`` and ``case_failures``), and its words and pictures from its render and picture
    modules (``render_module()``, ``picture_module()``; a game draws otherwise by its own
    ``render_svg``)."""

    coverage_file: Path
    name: str
    scenario_stop: str  # the start of the first table after [scenario] in the game's scenario files

    def data_module(self) -> Any:
        """Its data module: ``scenario_names()`` and ``load_scenario(name)`` (with ``digest``)."""
        raise NotImplementedError

    def scenarios(self) -> list[str]:
        names: list[str] = self.data_module().scenario_names()
        return names

    def owns_scenario(self, name: str) -> bool:
        """A bundled scenario of this game, or a scenario file whose [scenario] names it."""
        return name in self.scenarios() or scenario_file_names(name, self.name, self.scenario_stop)

    def data_digest(self, scenario: str) -> str:
        return str(self.data_module().load_scenario(scenario).digest)

    def catalog_module(self) -> Any:
        raise NotImplementedError

    def new_game(self, scenario: str, options: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def render_module(self) -> Any:
        """Its module of words: ``template``, ``event_lines``, ``position_text``."""
        raise NotImplementedError

    def picture_module(self) -> Any:
        """Its module of pictures: ``position_svg(state)``."""
        raise NotImplementedError

    def template(self, state: dict[str, Any], side: str, header: list[str]) -> str:
        text: str = self.render_module().template(state, side, header)
        return text

    def render_event(self, event: Event) -> list[str]:
        lines: list[str] = self.render_module().event_lines(event)
        return lines

    def render_position(self, state: dict[str, Any], side: str | None) -> str:
        text: str = self.render_module().position_text(state, side)
        return text

    def render_svg(self, state: dict[str, Any], side: str | None) -> str:
        svg: str = self.picture_module().position_svg(state)
        return svg

    def coverage(self) -> list[dict[str, Any]]:
        with self.coverage_file.open("rb") as f:
            rows: list[dict[str, Any]] = tomllib.load(f)["rule"]
        return rows

    def catalog_keys(self) -> dict[str, tuple[str, ...]]:
        keys: dict[str, tuple[str, ...]] = self.catalog_module().KEYS
        return keys

    def catalog_state(self, case: dict[str, Any], folder: Path) -> dict[str, Any]:
        state: dict[str, Any] = self.catalog_module().case_state(self.new_game, case, folder)
        return state

    def catalog_expect(self, case: dict[str, Any], problems: list[Problem], state: dict[str, Any],
                       events: list[Event]) -> list[str]:
        failures: list[str] = self.catalog_module().case_failures(case, problems, state, events)
        return failures


class EventLines:
    """A game's report lines for its events: each rules module renders its own events through a
    module-level ``RENDER = {"kind": fn(Event) -> list[str]}``; ``core`` gives the game's own. An
    event whose kind none renders gets a plain line with its fields (never silence); a line that
    used provisional data (the event carries ``provisional``) ends with ``provisional``'s words."""

    def __init__(self, core: Callable[[], dict[str, Callable[[Event], list[str]]]], modules: Callable[[], tuple[Any, ...]],
                 provisional: str) -> None:
        self._core, self._modules, self.provisional = core, modules, provisional
        self._lines: dict[str, Callable[[Event], list[str]]] | None = None

    def __call__(self, e: Event) -> list[str]:
        if self._lines is None:
            lines_by_kind = self._core()
            for mod in self._modules():
                lines_by_kind.update(getattr(mod, "RENDER", {}))
            self._lines = lines_by_kind
        fn = self._lines.get(e.kind)
        if fn is not None:
            lines = fn(e)
        else:
            fields = ", ".join(f"{k} {v}" for k, v in e.data.items() if k != "provisional")
            lines = [f"- {e.kind}: {fields} ({e.rule})."]
        if e.data.get("provisional") and lines and self.provisional.strip() not in lines[-1]:
            lines[-1] = lines[-1].rstrip() + self.provisional
        return lines


def table_failures(name: str, want: Any, have: Any) -> list[str]:
    """A catalog expectation on one of the position's tables: each key given (a table), or the
    whole value, as the state has it."""
    if isinstance(want, dict) and isinstance(have, dict):
        return [f"{name}.{k}: expected {v}, got {have.get(k)}" for k, v in want.items() if have.get(k) != v]
    return [] if have == want else [f"{name}: expected {want}, got {have}"]
