"""Where pbem finds its bundled data: schemas, scenarios and examples.

Installed from a wheel they live in ``pbem/_data``; in a source checkout (editable install, tests)
they are the top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_root() -> Path:
    installed = _PKG / "_data"
    if (installed / "schemas").is_dir():
        return installed
    return _PKG.parent


def schemas_dir() -> Path:
    return data_root() / "schemas"


def scenarios_dir() -> Path:
    return data_root() / "scenarios"


def examples_dir() -> Path:
    return data_root() / "examples"
