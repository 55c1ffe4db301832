"""The one error hierarchy of pbem, and the exit codes it maps to (see the README).

Exit codes: 0 ok, 1 orders illegal or verification failed, 2 usage error or unreadable/malformed
file, 3 signature, chain or commitment failure (tampering).
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_MALFORMED = 2
EXIT_TAMPER = 3


@dataclass(frozen=True, slots=True)
class Place:
    """Where a problem is, for programs: the path of keys and list indexes into the submitted
    document's data (``("move", 3, "path", 0)`` for ``move[3].path[0]``), and, for a problem about a
    place of the game's map rather than one entry (a hex over-stacked at the end of a phase), that
    place's id (``map_place``)."""

    path: tuple[str | int, ...] = ()
    map_place: str = ""

    @property
    def text(self) -> str:
        """The path as a problem's ``where`` writes it: ``move[3].path[0]``, ``declare.hedgehog[1]``."""
        out = ""
        for key in self.path:
            out += f"[{key}]" if isinstance(key, int) else f".{key}" if out else key
        return out


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where, which rule, what, and how to fix it; ``place`` says
    where for programs (a game's built-in player reads it), and is neither rendered nor compared."""

    where: str
    message: str
    rule: str = ""
    hint: str = ""
    place: Place | None = field(default=None, compare=False)

    def render(self) -> str:
        rule = f" [{self.rule}]" if self.rule else ""
        hint = f" {self.hint}" if self.hint else ""
        return f"{self.where}: {self.message}{rule}{hint}"

    def as_json(self) -> dict[str, str]:
        return {"where": self.where, "rule": self.rule, "message": self.message, "hint": self.hint}


class PbemError(Exception):
    """Base of every error pbem reports to a user; carries its exit code and problems."""

    exit_code = EXIT_MALFORMED

    def __init__(self, message: str, problems: list[Problem] | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.problems: list[Problem] = list(problems or [])
        self.hint = hint

    def render(self) -> str:
        lines = [self.message]
        lines += [f"  - {p.render()}" for p in self.problems]
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)


class UsageError(PbemError):
    """A command was called wrongly (missing option, unknown game, unwritable folder)."""

    exit_code = EXIT_MALFORMED


class MalformedFileError(PbemError):
    """A file could not be read, is not valid TOML, or violates its JSON Schema."""

    exit_code = EXIT_MALFORMED


class IllegalOrdersError(PbemError):
    """Orders break the rules of the game or do not fit the awaited step."""

    exit_code = EXIT_ILLEGAL


class VerificationError(PbemError):
    """A game folder or transition does not replay to what was recorded."""

    exit_code = EXIT_ILLEGAL


class TamperError(PbemError):
    """A seal, the hash chain or a dice commitment does not hold."""

    exit_code = EXIT_TAMPER


class ModuleDataError(PbemError):
    """A game module's data file (map, counters, charts, scenario) is inconsistent."""

    exit_code = EXIT_MALFORMED


@dataclass(slots=True)
class Problems:
    """Collects problems so that every one is reported, not just the first."""

    items: list[Problem] = field(default_factory=list)

    def add(self, where: str, message: str, rule: str = "", hint: str = "") -> None:
        self.items.append(Problem(where, message, rule, hint))

    def __bool__(self) -> bool:
        return bool(self.items)
