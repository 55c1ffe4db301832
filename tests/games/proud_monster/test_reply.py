"""A decision the standing instructions do not cover: the adjudication stops, the state awaits a
reply from that side, and the reply finishes the combat with the same die (docs/protocol.md)."""

from __future__ import annotations

import copy
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.demo import order_text
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, read_toml, write_new
from pbem.exchange.game import load_state, make_join, new_game
from pbem.exchange.keys import KeyPair
from pbem.games.proud_monster.module import ProudMonster
from tests.conftest import Game, joined_salt

SCENARIO = str(Path(__file__).parent / "catalog" / "reply-scenario.toml")
ATTACK = '''
[[attack]]
target = "4916N"
units = ["Pz1", "Pz2"]
losses = ["Pz1", "Pz2", "Pz1", "Pz2"]
'''


def start(folder: Path, game_id: str) -> Game:
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"reply {s}".encode()) for s in ("german", "soviet")}
    state = new_game("proud-monster", SCENARIO, {s: k.public_text for s, k in keys.items()}, None, keys["german"], game_id, {})
    write_new(folder / "0000.state.toml", dumps(state))
    g = Game(folder, keys)
    joins = []
    for side in ("german", "soviet"):  # no standing instructions: the Soviet will be asked
        p = folder / f"0000-{side}.join.toml"
        write_new(p, dumps(make_join(g.state(), side, keys[side], salt=joined_salt(g.state(), side, keys[side]))))
        joins.append(p)
    g.adjudicate(*joins)
    return g


def find_game_awaiting_a_reply(tmp_path: Path) -> Game:
    """The dice are the seeded ones; look for the first game id whose CRT die gives the two Soviet
    divisions a loss of exactly one step (1:1 rolls 3-5 on the CRT in use), so there is a choice."""
    for n in range(40):
        g = start(tmp_path / f"g{n}", f"pm-reply-{n}")
        g.play(ATTACK)
        if g.state().data["awaits"]["kind"] == "reply":
            return g
    raise AssertionError("no game id among 40 gave a one-step loss")


def test_an_uncovered_decision_awaits_a_reply_and_the_reply_finishes_the_combat(tmp_path: Path) -> None:
    g = find_game_awaiting_a_reply(tmp_path)
    st = g.state().data
    assert st["awaits"] == {"kind": "reply", "step": "GT1/1/german/reply-1", "from": ["soviet"], "adjudicator": "german"}
    q = st["pending"]["question"]
    assert q["side"] == "soviet" and q["role"] == "defender" and q["loss"] == 1 and q["units"] == {"R1": 1, "R2": 1}
    report = (g.folder / "0002.report.md").read_text(encoding="utf-8")
    assert "**Decision needed from soviet**" in report
    face = st["transition"]["dice"][0]["face"]
    assert st["position"]["units"]["R1"]["at"] == "4916N" and st["position"]["units"]["R2"]["at"] == "4916N"

    runner = CliRunner()
    tpl = runner.invoke(cli, ["template", str(g.folder / "0002.state.toml"), "--side", "soviet"])
    assert tpl.exit_code == 0 and "[reply]" in tpl.output and 'kind = "reply"' in tpl.output
    bad = g.write_orders('\n[reply]\nlosses = ["R1", "R2"]\n', side="soviet", sign=False, name="bad.reply.toml")
    r = runner.invoke(cli, ["check", str(g.folder / "0002.state.toml"), str(bad)])
    assert r.exit_code == 1 and "R2: more steps than the loss takes" in r.output and "[14.35]" in r.output
    bad.unlink()

    reply = g.write_orders('\n[reply]\nlosses = ["R2"]\n', side="soviet", name="0002-soviet.reply.toml")
    assert read_toml(reply)["pbem"]["step"] == "GT1/1/german/reply-1"
    g.adjudicate(reply)
    st3 = g.state().data
    units = st3["position"]["units"]
    assert units["R2"]["at"] == "dead" and units["R1"]["at"] == "4916N"
    assert st3["awaits"] == {"kind": "orders", "step": "GT1/1/soviet", "from": ["soviet"], "adjudicator": "german"}
    assert "pending" not in st3
    assert all("CRT" not in d["label"] for d in st3["transition"]["dice"]), "the CRT die is not rolled again"
    report3 = (g.folder / "0003.report.md").read_text(encoding="utf-8")
    assert f"= {face}:" in report3 and "Soviet's reply: losses R2" in report3
    res = verify([g.folder])
    assert res.transitions == 3 and res.reports == 3
    assert load_state(g.folder / "0003.state.toml").data["parties"]["soviet"]["index"] == 2


def test_a_reply_from_the_wrong_side_is_refused(tmp_path: Path) -> None:
    g = find_game_awaiting_a_reply(tmp_path)
    p = g.folder / "x.reply.toml"
    write_new(p, order_text(g.state().data, "german", '\n[reply]\nlosses = ["R2"]\n'))
    r = CliRunner().invoke(cli, ["check", str(g.folder / "0002.state.toml"), str(p)])
    assert r.exit_code == 1 and "'german' is not awaited" in r.output



def test_a_state_awaiting_a_reply_holds_its_question_and_a_view_for_the_side_asked_too() -> None:
    """14.35: a reply answers the question pending; a state awaiting one without it (a hostile file
    once crashed `pbem template`) is refused at reading, with the place and the rule; a view of it
    for the side asked must carry the question (views.py gives it that side only)."""
    golden = Path(__file__).parent / "golden" / "campaign"
    st = next(d for d in (read_toml(p) for p in sorted(golden.glob("*.state.toml"))) if d["awaits"]["kind"] == "reply")
    pm = ProudMonster()
    assert not pm.check_state(st)
    asked = st["awaits"]["from"][0]
    no_question = copy.deepcopy(st)
    del no_question["pending"]["question"]
    assert [(p.where, p.rule) for p in pm.check_state(no_question)] == [("pending.question", "14.35")]
    view = {**copy.deepcopy(st), "pbem": {**st["pbem"], "kind": "view", "side": asked}}
    view["question"] = view.pop("pending")["question"]
    assert not pm.check_state(view)
    del view["question"]
    assert [(p.where, p.rule) for p in pm.check_state(view)] == [("question", "14.35")]
    other = {**view, "pbem": {**view["pbem"], "side": next(s for s in ("german", "soviet") if s != asked)}}
    assert not pm.check_state(other)  # the other side's view has no question to carry
    bad = copy.deepcopy(st)
    bad["pending"]["question"]["units"] = "R1"
    view_bad = {**copy.deepcopy(view), "question": bad["pending"]["question"]}
    assert [p.where for p in pm.check_state(view_bad)] == ["question.units"]
