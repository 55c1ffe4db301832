"""GitHub Actions annotations: `pbem check --github` and `pbem verify --github` (docs/git.md).

Each failure becomes one workflow command on standard output, which the runner shows as an
annotation on the file::

    ::error file=games/demo/0003-north.orders.toml,title=pbem check [B.2]::move[0].path[0] ...: B4 holds enemy units

Escaping follows the workflow-commands syntax: in the message ``%``, CR and LF are written
``%25``, ``%0D`` and ``%0A``; in a property also ``:`` and ``,`` (``%3A``, ``%2C``).
"""

from __future__ import annotations

import re
from pathlib import Path

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


def command(level: str, message: str, file: str | None = None, title: str | None = None,
            line: int | None = None, col: int | None = None) -> str:
    """One workflow command: ``::LEVEL file=...,line=...,col=...,title=...::MESSAGE`` (level: error,
    warning, notice); ``line`` and ``col`` (1-based) where pbem knows them, so that a pull request
    shows the annotation on that line."""
    given = (("file", file), ("line", str(line) if line and file else None), ("col", str(col) if col and line and file else None),
             ("title", title))
    props = ",".join(f"{k}={escape_property(v)}" for k, v in given if v)
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")  # tomllib's place of a syntax error
_PLACE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*?)(?:\[(?P<index>\d+)\])?(?:\.(?P<key>[A-Za-z_]\w*))?(?:[\[. ]|$)")
MAX_READ = 1 << 20  # a file larger than this is not read for line numbers


def line_in_file(file: str | None, where: str) -> int | None:
    """The line of an order file that a problem's place names: ``move[2]`` is the third ``[[move]]``
    header, ``move[2].path`` its ``path =`` line, ``standing.loss_order`` the ``loss_order =`` line
    of ``[standing]``; None when the file cannot be read or the place is not found."""
    m = _PLACE.match(where)
    if not file or not m:
        return None
    try:
        path = Path(file)
        if not path.is_file() or path.stat().st_size > MAX_READ:
            return None
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    name, index, key = m.group("name"), m.group("index"), m.group("key")
    if index is None and "." in name and key is None:  # standing.loss_order: table standing, key loss_order
        name, key = name.rsplit(".", 1)
    esc = re.escape(name)
    header = re.compile(rf"^\s*\[\[\s*{esc}\s*\]\]" if index is not None else rf"^\s*\[\s*{esc}\s*\]")
    starts = [i for i, ln in enumerate(lines) if header.match(ln)]
    nth = int(index) if index is not None else 0
    if nth >= len(starts):
        at_top = re.compile(rf"^\s*{esc}\s*=")  # a top-level key
        found = next((i for i, ln in enumerate(lines) if at_top.match(ln)), None)
        return None if found is None or index is not None else found + 1
    start = starts[nth]
    if key:
        key_line = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for i in range(start + 1, len(lines)):
            if re.match(r"^\s*\[", lines[i]):
                break
            if key_line.match(lines[i]):
                return i + 1
    return start + 1


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
        out.append(command("error", message, f, f"{tool} [{p.rule}]" if p.rule else tool, line=line_in_file(f, where)))
    return out


def error_lines(tool: str, error: PbemError, file: str | None) -> list[str]:
    """A failed command: one error per problem it lists, or one for the error itself."""
    if error.problems:
        return problem_lines(tool, error.problems, split_file(error.message, file)[0])
    f, message = split_file(error.message, file)
    at = _TOML_AT.search(message)  # a TOML syntax error: its line and column
    if error.hint:
        message += f"\n{error.hint}"
    return [command("error", message, f, f"{tool} exit {error.exit_code} ({EXIT_TITLES.get(error.exit_code, 'error')})",
                    line=int(at.group(1)) if at else None, col=int(at.group(2)) if at else None)]


def note_line(tool: str, note: str) -> str:
    """A note that does not fail the command (a report written by another pbem version)."""
    f, message = split_file(note, None)
    return command("notice", message, f, tool)
