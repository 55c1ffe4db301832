"""Red Steel's secrets without a referee, played with real keys and files (docs/protocol.md,
Hidden values): the Axis's air draw (16.0) is a hidden draw of its own, its aircraft flown are
claims on it, and the game's last step opens it; a side whose opening contradicts its play is
caught. Attacks kept as tests: flying an aircraft the draw did not give, and naming a draw of
one's own choosing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.errors import IllegalOrdersError, TamperError
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import load_doc, make_join, new_game, own_hidden, sign_orders
from pbem.exchange.keys import KeyPair, write_key_files
from pbem.exchange.ledger import join_salt
from pbem.games.red_steel.module import RedSteel
from tests.exchange.neutral.conftest import SkGame, body_text, salt_of

SIDES = ("axis", "soviet")


def start(folder: Path, seed: str = "rs secrets") -> SkGame:
    """The training scenario, two players, joined: awaiting the Soviet's first Introductory Segment."""
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"{seed} {s}".encode()) for s in SIDES}
    st0 = new_game("red-steel", "training", {s: keys[s].public_text for s in SIDES}, None, keys["axis"], "rs-test", {})
    write_new(folder / "0000.state.toml", dumps(st0))
    g = SkGame(folder, keys)
    st = g.state()
    joins = []
    for s in SIDES:
        j = folder / f"0000-{s}.join.toml"
        write_new(j, dumps(make_join(st, s, keys[s], None, salt=join_salt(keys[s], st.digest, salt_of(s, seed)))))
        joins.append(j)
    g.adjudicate(*joins)
    return g


def auto(g: SkGame) -> None:
    """The awaited step played by the built-in player (the last step: a reveal file from each side)."""
    st = g.state()
    aw = st.data["awaits"]
    if aw["kind"] == "reveal":
        files = []
        for side in aw["from"]:
            p = g.folder / f"{int(st.data['pbem']['sequence']):04d}-{side}.reveal.toml"
            write_new(p, body_text(st.data, side, "\n"))
            p.write_text(sign_orders(p, p.read_text(encoding="utf-8"), load_doc(p, "orders").data, g.keys[side], st), encoding="utf-8")
            files.append(p)
        g.adjudicate(*files)
        return
    g.play("\n" + RedSteel().propose(st.data, str(aw["from"][0])))


def to_axis_combat(g: SkGame) -> dict[str, Any]:
    """Play to the Axis's first combat step; the Axis's draw, as its key opens it."""
    while not str(g.state().data["awaits"]["step"]).endswith("axis/combat"):
        auto(g)
    return own_hidden(g.state(), g.keys["axis"])


def enemy_hex(g: SkGame) -> str:
    st = g.state().data
    sc_units = RedSteel().new_game("training", {})["position"]["units"]
    return next(str(s["at"]) for u, s in sorted(st["position"]["units"].items())
                if u in sc_units and u.startswith("S") and str(s["at"])[:1].isdigit())


def play_out(g: SkGame) -> None:
    while g.state().data["awaits"]["kind"] != "none":
        auto(g)


def test_the_air_draw_is_the_axis_secret_and_its_opening_is_checked_at_the_end(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)  # the Soviet's Introductory Segment: its adjudication asks the Axis for its draw
    st = g.state().data
    assert st["draws"]["axis"][0]["item"] == "air.T1" and "drawn" not in st["position"]["aircraft"]
    mine = own_hidden(g.state(), g.keys["axis"])
    drawn = mine["draws"]["air.T1"]
    assert 3 <= len(drawn["aircraft"]) <= 6 and own_hidden(g.state(), g.keys["soviet"])["draws"] == {}
    mine = to_axis_combat(g)
    assert mine["hidden"]["air.T1"] == drawn  # committed by the Axis's movement file, as the draw gave it
    entry = g.state().data["hidden"]["axis"]["air.T1"]["versions"][0]
    assert set(entry) >= {"commit", "box"} and json.dumps(drawn["aircraft"]) not in json.dumps(entry)  # sealed in its box
    flown = drawn["aircraft"][0]
    g.play(f'\n[[air]]\naircraft = "{flown}"\ntarget = "{enemy_hex(g)}"\n')
    claims = g.state().data["hidden"]["axis"]["air.T1"]["versions"][0]["claims"]
    assert [(c["flew"], c["turn"]) for c in claims] == [(flown, 1)]  # the Soviet adjudicated the mission, a claim on the draw
    play_out(g)
    last = g.state().data
    assert last["opened"]["axis"]["air.T1"]["values"][-1] == drawn and last["result"]["rule"] == "18.0"
    res = verify([g.folder])
    assert res.transitions == len(list(g.folder.glob("*.state.toml"))) - 1


def test_an_aircraft_the_draw_did_not_give_is_caught_when_the_draw_is_opened(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    mine = to_axis_combat(g)
    missing = sorted(load_aircraft() - set(mine["hidden"]["air.T1"]["aircraft"]))
    if not missing:
        pytest.skip("this seed draws all six aircraft")
    g.play(f'\n[[air]]\naircraft = "{missing[0]}"\ntarget = "{enemy_hex(g)}"\n')  # the Soviet cannot tell: a claim
    with pytest.raises(TamperError) as e:
        play_out(g)
    said = " ".join(p.render() for p in e.value.problems)
    assert "contradicts what the game recorded of it while hidden" in e.value.message
    assert f"{missing[0]} flew in game turn 1" in said and "[16.0]" in said


def test_a_draw_is_never_chosen(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)
    with pytest.raises(IllegalOrdersError) as e:
        g.play('\n[hidden]\n"air.T1" = { aircraft = ["Ju87-1", "Ju87-2", "He111-1", "Ju88-1", "PZL37-1", "IAR37-1"], roll = 6 }\n')
    assert "drawn, not chosen" in e.value.message


def test_pbem_hidden_shows_a_side_its_own_secrets_only(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    auto(g)
    keys: dict[str, Path] = {}
    for s, k in g.keys.items():
        keys[s], _ = write_key_files(k, tmp_path / s)
    r = CliRunner().invoke(cli, ["hidden", str(g.state_path), "--key", str(keys["axis"]), "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["side"] == "axis" and set(got["draws"]) == {"air.T1"}
    r = CliRunner().invoke(cli, ["hidden", str(g.state_path), "--key", str(keys["soviet"])])
    assert r.exit_code == 0 and "soviet holds nothing hidden" in r.output


def load_aircraft() -> set[str]:
    from pbem.games.red_steel.data import load_scenario

    return set(load_scenario("training").aircraft)
