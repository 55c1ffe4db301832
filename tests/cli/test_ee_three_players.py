"""A three-player Europe Engulfed game played by e-mail from the command line (Part II: the Axis, the
Western Allies, the Soviet Union; docs/europe-engulfed.md, Three players): each player has a
folder and a key of his own, writes his files with `pbem template` (the body the built-in player
proposes for his party), `pbem check`s and `pbem sign`s them, and mails them to the step's
adjudicator (copied to the third player, whose folder must hold every file of the game), who
files them with `pbem mail read`, adjudicates and mails the next state to both others; the game ends with the last step (every hidden block opened) and `pbem verify` of each
player's folder."""

from __future__ import annotations

import tomllib
from pathlib import Path

import tomli_w

from pbem.exchange.files import read_toml
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.clihelpers import run

PARTIES = ("axis", "west", "ussr")
DATE = "Tue, 01 Dec 2026 12:00:00 +0000"


def latest(folder: Path) -> Path:
    return sorted(folder.glob("*.state.toml"))[-1]


def mail(src: Path, state: Path, to: list[str], tmp: Path, orders: Path | None = None) -> None:
    """``src``'s player mails ``state`` (and his ``orders``) to the players ``to``, who file it."""
    eml = tmp / f"{state.stem}-{src.name}-{orders.stem if orders else 'state'}.eml"
    run(["mail", "write", state, *(["--orders", orders] if orders else []), "--from", f"{src.name}@example.org",
         *[x for p in to for x in ("--to", f"{p}@example.org")], "--date", DATE, "-o", eml])
    for p in to:
        run(["mail", "read", eml, "--folder", src.parent / p])


def own_file(folder: Path, party: str, keys: Path) -> Path:
    """The party's file for the awaited step: `pbem template`, the built-in player's orders for its
    party in place of the skeleton's, `pbem check`, `pbem sign`."""
    state = latest(folder)
    data = read_toml(state)
    kind = "reveal" if data["awaits"]["kind"] == "reveal" else "orders"
    out = folder / f"{int(data['pbem']['sequence']):04d}-{party}.{kind}.toml"
    run(["template", state, "--side", party, "-o", out])
    body = {} if kind == "reveal" else tomllib.loads(EuropeEngulfed().propose(data, party))
    skeleton = tomllib.loads(out.read_text(encoding="utf-8"))
    out.write_text(tomli_w.dumps({"pbem": skeleton["pbem"], **body}), encoding="utf-8")
    if kind == "orders":
        run(["check", state, out])
    run(["sign", out, "--key", keys / f"{party}.key"])
    return out


def test_a_three_player_game_by_e_mail_is_played_and_verified_by_each_player(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    for p in PARTIES:
        run(["keygen", keys / p])
        (tmp_path / p).mkdir()
    run(["new", "1941-barbarossa", "--option", "players=3", "--option", "turns=1",
         *[x for p in PARTIES for x in ("--side", f"{p}={keys / p}.pub")], "--key", keys / "axis.key",
         "--game-id", "ee-three-mail", "-o", tmp_path / "axis"])
    mail(tmp_path / "axis", latest(tmp_path / "axis"), ["west", "ussr"], tmp_path)
    joins = []
    for p in ("west", "ussr"):
        r = run(["join", latest(tmp_path / p), "--side", p, "--key", keys / f"{p}.key"])
        assert r.exit_code == 0
        j = tmp_path / p / f"0000-{p}.join.toml"
        mail(tmp_path / p, latest(tmp_path / p), [q for q in PARTIES if q != p], tmp_path, j)
        joins.append(tmp_path / "axis" / j.name)
    run(["join", latest(tmp_path / "axis"), "--side", "axis", "--key", keys / "axis.key"])
    mail(tmp_path / "axis", latest(tmp_path / "axis"), ["west", "ussr"], tmp_path, tmp_path / "axis" / "0000-axis.join.toml")
    run(["adjudicate", latest(tmp_path / "axis"), *joins, tmp_path / "axis" / "0000-axis.join.toml", "--key", keys / "axis.key"])
    mail(tmp_path / "axis", latest(tmp_path / "axis"), ["west", "ussr"], tmp_path)
    seen: list[tuple[str, tuple[str, ...], str]] = []
    for _ in range(40):
        adj_folder = next(tmp_path / p for p in PARTIES if read_toml(latest(tmp_path / p))["pbem"]["sequence"]
                          == max(read_toml(latest(tmp_path / q))["pbem"]["sequence"] for q in PARTIES))
        aw = read_toml(latest(adj_folder))["awaits"]
        if aw["kind"] == "none":
            break
        adj = str(aw["adjudicator"])
        seen.append((str(aw["step"]), tuple(aw["from"]), adj))
        files = []
        for p in aw["from"]:
            f = own_file(tmp_path / p, p, keys)
            mail(tmp_path / p, latest(tmp_path / p), [q for q in PARTIES if q != p], tmp_path, f)  # to all: each
            #   player's folder holds every file of the game
            files.append(tmp_path / adj / f.name)
        r = run(["adjudicate", latest(tmp_path / adj), *files, "--key", keys / f"{adj}.key"])
        assert "Traceback" not in r.output
        mail(tmp_path / adj, latest(tmp_path / adj), [p for p in PARTIES if p != adj], tmp_path)
    steps = {s: (f, a) for s, f, a in seen}
    assert steps["setup"] == (("ussr", "west"), "axis")
    assert steps["1941-may/axis/move"] == (("axis",), "ussr")
    assert steps["1941-may/axis/combat"] == (("axis", "west"), "ussr")  # the West opens its block attacked (6.24)
    assert steps["1941-may/allies/move"] == (("ussr", "west"), "axis")
    assert steps["reveal"][1] == "ussr"
    last = read_toml(latest(tmp_path / "axis"))
    assert last["awaits"]["kind"] == "none" and not last.get("hidden")
    n = len(list((tmp_path / "axis").glob("*.state.toml")))
    for p in PARTIES:
        assert f"ok: {n} states, {n - 1} transitions replayed" in run(["verify", tmp_path / p]).output


def test_the_demo_plays_a_three_player_game(tmp_path: Path) -> None:
    out = run(["demo", "--game", "europe-engulfed", "--option", "players=3", "--turns", "1", "--out", tmp_path / "demo"]).output
    assert "$ pbem new 1941-barbarossa --option players=3 --side axis=axis.pub --side west=west.pub --side ussr=ussr.pub" in out
    assert "$ pbem adjudicate game/0001.state.toml 0001-ussr.orders.toml 0001-west.orders.toml --key axis.key" in out
    assert "awaits orders for 1941-may/allies/move from ussr, west" in out and "ok: 11 states, 10 transitions replayed" in out
    assert sorted(p.name for p in (tmp_path / "demo").glob("*.key")) == ["axis.key", "ussr.key", "west.key"]
