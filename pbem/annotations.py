"""GitHub Actions annotations: `pbem check --github` and `pbem verify --github` (docs/git.md).

Each failure becomes one workflow command on standard output, which the runner shows as an
annotation on the file::

    ::error file=games/demo/0003-north.orders.toml,title=pbem check [B.2]::move[0].path[0] ...: B4 holds enemy units

Escaping follows the workflow-commands syntax: in the message ``%``, CR and LF are written
``%25``, ``%0D`` and ``%0A``; in a property also ``:`` and ``,`` (``%3A``, ``%2C``).
"""

from __future__ import annotations

import re

from pbem.errors import EXIT_ILLEGAL, EXIT_MALFORMED, EXIT_TAMPER, PbemError, Problem

# What each exit code means, for the title of an annotation that has no rule number.
EXIT_TITLES = {
    EXIT_ILLEGAL: "illegal orders or failed verification",
    EXIT_MALFORMED: "unreadable or malformed file",
    EXIT_TAMPER: "seal/chain/commitment failure",
}

# "games/demo/0003.state.toml: the rest": a message or problem place that starts with a file.
_FILE_PREFIX = re.compile(r"^(?P<file>[^:\n]+\.(?:toml|md|svg)): (?P<rest>.*)$", re.DOTALL)


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, file: str | None = None, title: str | None = None) -> str:
    """One workflow command: ``::LEVEL file=...,title=...::MESSAGE`` (level: error, warning, notice)."""
    props = ",".join(f"{k}={escape_property(v)}" for k, v in (("file", file), ("title", title)) if v)
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


def split_file(text: str, default: str | None) -> tuple[str | None, str]:
    """The file a message or place names at its start, and the rest; else the default file."""
    m = _FILE_PREFIX.match(text)
    if m:
        return m.group("file"), m.group("rest")
    return default, text


def problem_lines(tool: str, problems: list[Problem], file: str | None) -> list[str]:
    """One error per problem, titled with the rule it breaks."""
    out = []
    for p in problems:
        f, where = split_file(p.where, file)
        message = f"{where}: {p.message}" if where else p.message
        if p.hint:
            message += f" {p.hint}"
        out.append(command("error", message, f, f"{tool} [{p.rule}]" if p.rule else tool))
    return out


def error_lines(tool: str, error: PbemError, file: str | None) -> list[str]:
    """A failed command: one error per problem it lists, or one for the error itself."""
    if error.problems:
        return problem_lines(tool, error.problems, split_file(error.message, file)[0])
    f, message = split_file(error.message, file)
    if error.hint:
        message += f"\n{error.hint}"
    return [command("error", message, f, f"{tool} exit {error.exit_code} ({EXIT_TITLES.get(error.exit_code, 'error')})")]


def note_line(tool: str, note: str) -> str:
    """A note that does not fail the command (a report written by another pbem version)."""
    f, message = split_file(note, None)
    return command("notice", message, f, tool)
