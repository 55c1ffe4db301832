"""The files of the Proud Monster module import one another without a cycle, and without imports
hidden in functions.

The import graph is read from the source with ``ast``: an edge for every import of a file of the
package, wherever it stands (at the top, under ``TYPE_CHECKING`` or in a function), so that neither
a type-only nor a deferred import can hide a cycle; importing a submodule also runs the ``__init__``
of each package above it, an edge too. The core rules (``rules/``) import only one another, the
scenario data, the sequence of play and the parsed orders: the feature modules (supply, air, naval, mobile assault, RWR,
reinforcements, set-up) plug into them through the context's hooks (rules/context.py, Hooks).

An import inside a function is allowed only to defer a heavy import for start-up speed, and says so
with a ``# start-up:`` comment on its line or the line above.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from pbem.games.proud_monster import air, assault, module, naval, supply
from pbem.games.proud_monster.rules.context import Hooks
from tests.paths import ROOT

PACKAGE = "pbem.games.proud_monster"
ROOT = ROOT / "pbem" / "games" / "proud_monster"
CORE = "rules"
CORE_MAY_IMPORT = ("data", "sequence", "orders")  # besides the core rules themselves
DEFERRED = "# start-up:"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


FILES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def with_packages(name: str) -> list[str]:
    """The module and the packages above it within the game module, whose ``__init__`` runs first."""
    parts = name.split(".")
    return [m for k in range(len(parts), 2, -1) if (m := ".".join(parts[:k])) in FILES and m != name] + [name]


def imported(name: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The files of the package an import statement of module ``name`` loads."""
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    else:
        if node.level:
            here = name.split(".") if FILES[name].name == "__init__.py" else name.split(".")[:-1]
            base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in FILES else base for a in node.names]
    return [m for t in targets if t in FILES for m in with_packages(t)]


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in FILES}
    for name, path in FILES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges[name].update(m for m in imported(name, node) if m != name)
    return edges


def short(name: str) -> str:
    return name.removeprefix(PACKAGE + ".")


def find_cycle(edges: dict[str, set[str]]) -> list[str]:
    """A cycle of the graph as the modules along it, or [] when the graph is a DAG."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return []


def test_the_graph_is_read_from_every_file() -> None:
    edges = graph()
    assert {f"{PACKAGE}.rules.context", f"{PACKAGE}.supply", f"{PACKAGE}.render"} <= edges[f"{PACKAGE}.module"]
    assert f"{PACKAGE}.rules" in edges[f"{PACKAGE}.supply"]  # the package's __init__ runs first
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_module_files_import_one_another_without_a_cycle() -> None:
    cycle = find_cycle(graph())
    assert not cycle, "import cycle: " + " -> ".join(short(m) for m in cycle)


def test_the_core_rules_import_no_feature_module() -> None:
    allowed = {PACKAGE, *(f"{PACKAGE}.{m}" for m in CORE_MAY_IMPORT)}
    core = f"{PACKAGE}.{CORE}"
    wrong = sorted(f"{short(m)} imports {short(n)}" for m, ns in graph().items() if m == core or m.startswith(core + ".")
                   for n in ns if not (n == core or n.startswith(core + ".") or n in allowed))
    assert wrong == []


def top_level(tree: ast.Module) -> set[int]:
    """The statements run when the module is imported: its body, and the body of ``if TYPE_CHECKING:``."""
    out = set()
    for node in tree.body:
        out.add(id(node))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for n in node.body)
    return out


@pytest.mark.parametrize("name", sorted(FILES), ids=short)
def test_no_import_hides_in_a_function(name: str) -> None:
    text = FILES[name].read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    top = top_level(tree)
    hidden = [f"{FILES[name].name}:{n.lineno}: {ast.unparse(n)}" for n in ast.walk(tree)
              if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in top
              and not any(DEFERRED in line for line in lines[max(n.lineno - 2, 0):n.lineno])]
    assert hidden == [], "an import inside a function: move it to the top (or mark a deferral for start-up speed)"


def test_every_hook_is_plugged_by_one_feature_module() -> None:
    """The game module plugs the feature rules into the core rules (module.HOOKS): each hook of
    rules/context.py's Hooks by exactly one feature module."""
    bare = Hooks()
    by: dict[str, list[str]] = {}
    for feature in (supply, air, naval, assault):
        plugged = feature.plug(bare)
        for f in fields(Hooks):
            if getattr(plugged, f.name) is not getattr(bare, f.name):
                by.setdefault(f.name, []).append(feature.__name__.rsplit(".", 1)[-1])
    assert {name: owners for name, owners in by.items() if len(owners) != 1} == {}
    assert sorted(by) == sorted(f.name for f in fields(Hooks))
    assert all(getattr(module.HOOKS, f.name) is not getattr(bare, f.name) for f in fields(Hooks))
