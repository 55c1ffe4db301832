"""A private key file that its group or others may read, write or run is refused (exit 2), as ssh
refuses one, with the `chmod 600` that makes it private; mode 0600 or 0400 is used."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.clihelpers import fails, run
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, start_cli_game

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")

ATTACK = GERMAN_GT1.split("[standing]")[0]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o606, 0o620, 0o602, 0o610, 0o601, 0o700 | 0o044], ids=oct)
def test_a_key_open_to_others_is_refused_on_every_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int) -> None:
    g = start_cli_game(tmp_path, monkeypatch)
    draft = g.write_orders(ATTACK, sign=False)
    sealed = g.write_orders(ATTACK, name="sealed.orders.toml")
    for side in ("german", "soviet"):
        os.chmod(tmp_path / f"{side}.key", mode)
    needles = (f"german.key: the private key file is open to its group or others (mode {mode:04o})",
               "Make it private: chmod 600 german.key")
    for args in (
        ["new", EXCHANGE_SCENARIO, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key", "-o", "g2"],
        ["join", "game/0000.state.toml", "--side", "german", "--key", "german.key", "-o", "j.toml"],
        ["sign", draft, "--key", "german.key"],
        ["sign", draft, "--key", "german.key", "--state", "game/0001.state.toml"],
    ):
        fails(tmp_path, 2, args, *needles)
    fails(tmp_path, 2, ["adjudicate", "game/0001.state.toml", sealed, "--key", "soviet.key"], "soviet.key: the private key file is open",
          "chmod 600 soviet.key")


@pytest.mark.parametrize("mode", [0o600, 0o400], ids=oct)
def test_a_private_key_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int) -> None:
    g = start_cli_game(tmp_path, monkeypatch)
    sealed = g.write_orders(ATTACK)
    os.chmod(tmp_path / "soviet.key", mode)
    assert run(["adjudicate", "game/0001.state.toml", sealed, "--key", "soviet.key"]).output.startswith("wrote game/0002.state.toml")


def test_keygen_writes_a_private_key_whatever_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    old = os.umask(0)
    try:
        run(["keygen", "carol"])
    finally:
        os.umask(old)
    assert (tmp_path / "carol.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "carol.pub").stat().st_mode & 0o777 == 0o666


def test_a_key_that_is_not_a_key_says_so_before_its_mode(tmp_path: Path) -> None:
    """What the file is comes first: a .pub or a text given as --key is named as no private key."""
    (tmp_path / "junk.key").write_text("hello\n", encoding="ascii")
    os.chmod(tmp_path / "junk.key", 0o644)
    from pbem.errors import MalformedFileError
    from pbem.exchange.keys import load_key

    with pytest.raises(MalformedFileError, match="not a readable private key"):
        load_key(tmp_path / "junk.key")
