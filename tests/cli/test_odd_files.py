"""Odd input files through the ``pbem`` command: a FIFO, ``/dev/zero``, a directory or a socket where
pbem reads a file, and TOML that is valid but no pbem file (integers past 64 bits, keys of thousands
of parts, deep nesting, huge numbers of keys). Each is refused with exit 2 and a message naming the
file, quickly, and nothing is written; none is ever read forever (an alarm fails a test that hangs).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.exchange.files import INT_MAX, INT_MIN, MAX_DEPTH, MAX_VALUES, parse_toml
from tests.clihelpers import fails, run
from tests.conftest import EXCHANGE_SCENARIO, GERMAN_GT1, Game, start_cli_game
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and sockets are POSIX")

ATTACK = GERMAN_GT1.split("[standing]")[0]
FIFO = "it is a named pipe (FIFO), not a regular file"


class Hung(BaseException):
    """A command waited on a file (not an Exception: pbem's error handler must not catch it)."""


@pytest.fixture(autouse=True)
def alarm() -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise Hung("pbem waited on a file for 30 s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def g(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Game:
    """A game awaiting the German's GT1 orders (sealed in game/0001-german.orders.toml), the key
    files in the current folder."""
    game = start_cli_game(tmp_path, monkeypatch)
    game.write_orders(ATTACK)
    return game


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def unix_socket(path: Path) -> Iterator[Path]:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        yield path
    finally:
        s.close()


STATE = "game/0001.state.toml"
ORDERS = "game/0001-german.orders.toml"


def readers(odd: str) -> dict[str, list[list[str]]]:
    """Every command that reads a file, with ``odd`` in the place of each kind of file."""
    return {
        "state": [["status", odd], ["show", odd], ["show", odd, "--svg", "x.svg"], ["template", odd, "--side", "german"],
                  ["check", odd, ORDERS], ["sign", ORDERS, "--key", "german.key", "--state", odd],
                  ["adjudicate", odd, ORDERS, "--key", "soviet.key"], ["audit", odd], ["verify", odd],
                  ["join", odd, "--side", "german", "--key", "german.key", "-o", "j.toml"],
                  ["mail", "write", odd, "--from", "a@example.org", "--to", "b@example.org", "-o", "x.eml"]],
        "orders": [["check", STATE, odd], ["sign", odd, "--key", "german.key"], ["adjudicate", STATE, odd, "--key", "soviet.key"],
                   ["mail", "write", STATE, "--orders", odd, "--from", "a@example.org", "--to", "b@example.org", "-o", "x.eml"]],
        "key": [["join", "game/0000.state.toml", "--side", "german", "--key", odd, "-o", "j.toml"],
                ["adjudicate", STATE, ORDERS, "--key", odd], ["sign", ORDERS, "--key", odd, "--force", "-o", "s.toml"],
                ["new", "training", "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", odd, "-o", "g2"]],
        "message": [["mail", "read", odd], ["mail", "read", odd, "--folder", "game"],
                    ["mail", "send", odd, "--smtp", "127.0.0.1:9", "--no-starttls"]],
        "public key": [["new", "training", "--side", f"german={odd}", "--side", "soviet=soviet.pub", "--key", "german.key", "-o", "g2"]],
        "scenario": [["new", odd, "--side", "german=german.pub", "--side", "soviet=soviet.pub", "--key", "german.key", "-o", "g2"]],
    }


def test_a_fifo_in_the_place_of_every_file(g: Game, tmp_path: Path) -> None:
    odd = fifo(tmp_path / "odd.toml")
    for kind, commands in readers("odd.toml").items():
        what = "file" if kind in ("state", "orders") else f"{kind} file"
        for args in commands:
            r = fails(tmp_path, 2, args, f"odd.toml: cannot read the {what}: {FIFO}")
            assert r.output.startswith("pbem: "), (args, r.output)
    assert stat.S_ISFIFO(odd.stat().st_mode)


@pytest.mark.parametrize("odd", ["/dev/zero", "adir"])
def test_a_device_or_a_directory_in_the_place_of_every_file(g: Game, tmp_path: Path, odd: str) -> None:
    (tmp_path / "adir").mkdir()
    what = "a character device" if odd == "/dev/zero" else "a directory"
    for commands in readers(odd).values():
        for args in commands:
            if odd == "adir" and args[0] in ("verify", "check", "status", "show") and args[1] == odd:
                continue  # a folder is what verify, check, status and show take there
            if args[:2] == ["new", odd]:
                continue  # a scenario is a bundled name, or a file whose name ends in .toml
            fails(tmp_path, 2, args, f"{odd}: cannot read the", f"it is {what}, not a regular file")


def test_a_socket_in_the_place_of_a_state_a_key_and_a_message(g: Game, tmp_path: Path) -> None:
    for sock in unix_socket(tmp_path / "sock.toml"):
        for args in (["status", "sock.toml"], ["verify", "sock.toml"], ["adjudicate", STATE, ORDERS, "--key", "sock.toml"],
                     ["mail", "read", "sock.toml"]):
            fails(tmp_path, 2, args, "sock.toml: cannot read the", "it is a socket, not a regular file")
        assert stat.S_ISSOCK(sock.stat().st_mode)


def test_a_fifo_in_a_scenarios_data_files(g: Game, tmp_path: Path) -> None:
    src = Path(EXCHANGE_SCENARIO)
    text = src.read_text(encoding="utf-8")
    for name, value in (("map", str(tmp_path / "odd-map.toml")), ("units", str(src.parent / "units.toml")),
                        ("charts", str(ROOT / "scenarios" / "proud-monster" / "charts.toml"))):
        text = re.sub(rf'^{name} = "[^"]+"', f'{name} = "{value}"', text, count=1, flags=re.M)
    (tmp_path / "odd-scenario.toml").write_text(text, encoding="utf-8")
    fifo(tmp_path / "odd-map.toml")
    fails(tmp_path, 2, ["new", "odd-scenario.toml", "--side", "german=german.pub", "--side", "soviet=soviet.pub",
                        "--key", "german.key", "-o", "g2"], "odd-map.toml: cannot read the file", FIFO)


def test_a_fifo_in_a_game_folder(g: Game, tmp_path: Path) -> None:
    """verify, mail read and mail write read the files beside a state by their names: a FIFO
    under such a name is refused, never waited on."""
    g.adjudicate(g.folder / "0001-german.orders.toml")  # -> 0002
    run(["mail", "write", "game/0002.state.toml", "--from", "a@example.org", "--to", "b@example.org", "-o", "in.eml"])
    (g.folder / "0002.turn.svg").unlink()
    fifo(g.folder / "0002.turn.svg")
    fails(tmp_path, 2, ["verify", "game"], f"game/0002.turn.svg: cannot read the file: {FIFO}")
    fails(tmp_path, 2, ["mail", "write", "game/0002.state.toml", "--from", "a@example.org", "--to", "b@example.org", "-o", "x.eml"],
          f"game/0002.turn.svg: cannot read the file: {FIFO}")
    fails(tmp_path, 2, ["mail", "read", "in.eml", "--folder", "game"], f"game/0002.turn.svg: cannot read the file: {FIFO}")
    (g.folder / "0002.turn.svg").unlink()
    run(["verify", "game"])


# --- odd TOML ----------------------------------------------------------------------------------


def odd_toml(kind: str) -> str:
    """Valid TOML (or TOML that Python's parser refuses in its own way) that is no pbem file."""
    head = '[pbem]\nformat = 1\nkind = "orders"\n'
    if kind == "int-4400-digits":
        return head + "dice_index = " + "9" * 4400 + "\n"
    if kind == "int-4300-digits":
        return head + "dice_index = " + "9" * 4300 + "\n"
    if kind == "int-2^63":
        return head + f"dice_index = {INT_MAX + 1}\n"
    if kind == "int-below-2^63":
        return head + f"[standing]\nloss_order = [{INT_MIN - 1}]\n"
    if kind == "dotted-5000":
        return head + "a" + ".a" * 5000 + " = 1\n"
    if kind == "header-5000":
        return head + "[" + ".".join(["t"] * 5000) + "]\n"
    if kind == "nested-arrays":
        return head + "x = " + "[" * 5000 + "]" * 5000 + "\n"
    if kind == "nested-arrays-40":
        return head + "x = " + "[" * 40 + "]" * 40 + "\n"
    if kind == "nested-tables":
        return head + "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n"
    if kind == "many-keys":
        return head + "[many]\n" + "".join(f"k{i} = 1\n" for i in range(150_000))
    if kind == "many-keys-inline":
        return head + "x = {" + ", ".join(f"k{i} = 1" for i in range(150_000)) + "}\n"
    if kind == "many-dotted-tables":  # fewer '=' than values: counted once parsed
        return head + "".join(f"t{i}.v = 1\n" for i in range(60_000))
    if kind == "many-items":
        return head + "x = [" + "1," * 300_000 + "]\n"
    if kind == "many-tables":
        return head + "[[t]]\n" * 120_000
    raise AssertionError(kind)


ODD_TOML = {
    "int-4400-digits": "an integer with thousands of digits (line 4); TOML integers are 64-bit",
    "int-4300-digits": "pbem.dice_index: the integer 99999999999999999999... (4300 digits) is outside the 64-bit range",
    "int-2^63": f"pbem.dice_index: the integer {INT_MAX + 1} is outside the 64-bit range of TOML integers",
    "int-below-2^63": f"standing.loss_order[0]: the integer {INT_MIN - 1} is outside the 64-bit range of TOML integers",
    "dotted-5000": f"a dotted key of more than {MAX_DEPTH} parts (line 4)",
    "header-5000": f"a dotted key of more than {MAX_DEPTH} parts (line 4)",
    "nested-arrays": "nested too deeply to be a pbem file",
    "nested-arrays-40": f"pbem.x[0][0][0][0][0][0]... ({MAX_DEPTH} levels): nested more than {MAX_DEPTH} levels deep",
    "nested-tables": "nested too deeply to be a pbem file",
    "many-keys": f"more than {MAX_VALUES} keys and values",
    "many-keys-inline": f"more than {MAX_VALUES} keys and values",
    "many-dotted-tables": f"more than {MAX_VALUES} keys and values; a pbem file has far fewer",
    "many-items": f"more than {MAX_VALUES} keys and values",
    "many-tables": f"more than {MAX_VALUES} keys and values",
}


@pytest.mark.parametrize("kind", list(ODD_TOML))
def test_odd_toml_is_a_malformed_file(g: Game, tmp_path: Path, kind: str) -> None:
    p = tmp_path / "odd.orders.toml"
    p.write_text(odd_toml(kind), encoding="utf-8")
    for args in (["check", STATE, "odd.orders.toml"], ["status", "odd.orders.toml"], ["verify", "odd.orders.toml"]):
        start = time.process_time()  # CPU time: a pathological file must not cost minutes, however loaded the machine
        r = fails(tmp_path, 2, args, f"pbem: odd.orders.toml: {ODD_TOML[kind]}")
        assert "Traceback" not in r.output and "internal error" not in r.output
        assert time.process_time() - start < 10, f"{kind}: {time.process_time() - start:.1f} s of CPU"


@pytest.mark.parametrize("kind", ["int-4400-digits", "int-2^63", "dotted-5000", "nested-tables", "many-items"])
def test_odd_toml_in_a_mail(g: Game, tmp_path: Path, kind: str) -> None:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = "a@example.org"
    msg.set_content("Your move.\n")
    msg.add_attachment(odd_toml(kind).encode("utf-8"), maintype="application", subtype="toml", filename="odd.toml")
    (tmp_path / "odd.eml").write_bytes(msg.as_bytes())
    # a mail's game file is bounded more tightly still, before it is read (README: E-mail, Bounds)
    needle = "a key or table name of more than 16 dotted parts (at line 4)" if kind == "dotted-5000" else ODD_TOML[kind]
    fails(tmp_path, 2, ["mail", "read", "odd.eml", "--folder", "game"], "attachment 'odd.toml'", needle)


def test_a_signed_file_with_an_integer_past_64_bits(g: Game, tmp_path: Path) -> None:
    """Sealed as it is (its digest could be made), it is still refused: pbem writes back and hashes
    only 64-bit integers."""
    from pbem.exchange.canonical import seal, unsealed
    from tests.cli.test_cli import read, write

    data = read(g.folder / "0001.state.toml")
    data["position"]["vp"] = INT_MAX + 1
    write(tmp_path / "big.state.toml", seal(unsealed(data), "german", g.keys["german"]))
    for args in (["status", "big.state.toml"], ["audit", "big.state.toml"], ["adjudicate", "big.state.toml", ORDERS, "--key", "soviet.key"]):
        fails(tmp_path, 2, args, f"big.state.toml: position.vp: the integer {INT_MAX + 1} is outside the 64-bit range")


def test_the_bounds_themselves_are_accepted() -> None:
    data = parse_toml(f"a = {INT_MAX}\nb = {INT_MIN}\nc = {'[' * MAX_DEPTH}{']' * MAX_DEPTH}\n{'.'.join(['d'] * MAX_DEPTH)} = 1\n".encode(), "x")
    assert data["a"] == INT_MAX and data["b"] == INT_MIN
    many = "".join(f"k{i} = {i}\n" for i in range(MAX_VALUES))
    assert len(parse_toml(many.encode(), "x")) == MAX_VALUES
