"""Deadlines (docs/protocol.md, Deadlines): every awaited step is due, everybody sees when, a missed
one is settled by the game's rules, and each attack on the time is refused.

The games are Proud Monster's training scenario, played through the command line; the time is
always given (--now), never read from the clock."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pbem.exchange.canonical import seal
from pbem.exchange.files import dumps
from pbem.exchange.keys import load_key
from tests.clihelpers import fails, json_errors, run

T0 = "2026-12-01T10:00Z"  # the game is created
T1 = "2026-12-01T12:00Z"  # the joins are adjudicated: GT1/1/german due T1 + 72h, grace 24h more
DUE = "2026-12-04T12:00Z"
GRACE_END = "2026-12-05T12:00Z"


def _keys(tmp: Path, *names: str) -> dict[str, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    for n in names:
        run(["keygen", tmp / n])
    return {n: tmp / f"{n}.key" for n in names}


def _start(tmp: Path, referee: bool = False, deadlines: bool = True) -> tuple[Path, dict[str, Path]]:
    """A joined game awaiting the German's GT1 orders (two players, or with a referee)."""
    keys = _keys(tmp, "alice", "bob", *(["ref"] if referee else []))
    g = tmp / "game"
    args = ["new", "training", "--game", "proud-monster", "--side", f"german={tmp / 'alice.pub'}",
            "--side", f"soviet={tmp / 'bob.pub'}", "-o", g, "--now", T0]
    if referee:
        args += ["--referee", tmp / "ref.pub", "--key", keys["ref"]]
    else:
        args += ["--key", keys["alice"]]
    if deadlines:
        args += ["--option", "deadline.orders=72h", "--option", "deadline.grace=24h"]
    run(args)
    run(["join", g / "0000.state.toml", "--side", "german", "--key", keys["alice"]])
    run(["join", g / "0000.state.toml", "--side", "soviet", "--key", keys["bob"]])
    joins = sorted(g.glob("0000-*.join.toml"))
    if referee:
        run(["join", g / "0000.state.toml", "--side", "referee", "--key", keys["ref"]])
        joins = sorted(g.glob("0000-*.join.toml"))
    run(["adjudicate", g / "0000.state.toml", *joins, "--key", keys["ref" if referee else "alice"], "--now", T1])
    return g, keys


def _state(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _orders(g: Path, keys: dict[str, Path], n: int = 1, side: str = "german") -> Path:
    p = g / f"{n:04d}-{side}.orders.toml"
    run(["template", g / f"{n:04d}.state.toml", "--side", side, "-o", p])
    run(["sign", p, "--key", keys["alice" if side == "german" else "bob"]])
    return p


def test_a_step_answered_in_time(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    s0, s1 = _state(g / "0000.state.toml"), _state(g / "0001.state.toml")
    assert s0["awaits"]["since"] == T0 and s0["awaits"]["due"] == "2026-12-08T10:00Z"  # joins: 168h by default
    assert s1["deadlines"] == {"join": 168, "orders": 72, "reply": 48, "reveal": 48, "grace": 24}
    assert (s1["awaits"]["since"], s1["awaits"]["due"]) == (T1, DUE)
    r = run(["status", g, "--now", "2026-12-03T10:00Z"])
    assert f"due {DUE}: 1d 2h left (grace until {GRACE_END})" in r.output
    out = json.loads(run(["status", g, "--now", "2026-12-03T10:00Z", "--json"]).output)
    assert not json_errors("status", out)
    assert out["deadline"] == {"since": T1, "due": DUE, "grace_until": GRACE_END, "now": "2026-12-03T10:00Z",
                               "status": "in-time", "left": 26 * 60, "late": 0}
    orders = _orders(g, keys)
    run(["adjudicate", g / "0001.state.toml", orders, "--key", keys["bob"], "--now", "2026-12-03T11:00Z"])
    s2 = _state(g / "0002.state.toml")
    assert (s2["awaits"]["since"], s2["awaits"]["due"]) == ("2026-12-03T11:00Z", "2026-12-06T11:00Z")
    assert s2["transition"]["at"] == "2026-12-03T11:00Z" and "missed" not in s2["transition"]
    assert "- Adjudicated at 2026-12-03T11:00Z; `GT1/1/soviet` is due 2026-12-06T11:00Z (grace 24h)." in \
        (g / "0002.report.md").read_text()
    assert "ok: 3 states, 2 transitions replayed" in run(["verify", g]).output


def test_a_reminder(tmp_path: Path) -> None:
    g, _ = _start(tmp_path)
    args = ["mail", "remind", g / "0001.state.toml", "--from", "bob@example.org", "--to", "alice@example.org",
            "--now", "2026-12-04T18:00Z"]
    run([*args, "-o", tmp_path / "r1.eml"])
    run([*args, "-o", tmp_path / "r2.eml"])
    raw = (tmp_path / "r1.eml").read_bytes()
    assert raw == (tmp_path / "r2.eml").read_bytes()  # the same state, addresses and time: the same bytes
    import email
    import email.policy

    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Subject"] == f"[pbem {_state(g / '0001.state.toml')['pbem']['game']}] 0001: reminder: GT1/1/german from german due {DUE}"
    assert msg["Date"] == "Fri, 04 Dec 2026 18:00:00 +0000"
    body = msg.get_content()
    assert f"Due: {DUE} (UTC); grace period until {GRACE_END}." in body
    assert "late by 6h, within the grace period" in body
    assert "pbem template 0001.state.toml --side german -o 0001-german.orders.toml" in body
    plain, _ = _start(tmp_path / "old", deadlines=False)  # a game without deadlines has nothing to remind of
    fails(tmp_path, 2, ["mail", "remind", plain / "0001.state.toml", "--from", "a@example.org", "--to", "b@example.org",
                        "--now", T1, "-o", tmp_path / "r3.eml"], "has no deadlines")


def test_a_late_answer_within_the_grace_period(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    late = "2026-12-05T11:59Z"
    assert "late by 23h 59m, within the grace period until" in run(["status", g, "--now", late]).output
    fails(g, 1, ["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", late],
          "0001.state.toml", "awaits.due", "deadlines.grace", f"runs until {GRACE_END}")
    orders = _orders(g, keys)
    run(["adjudicate", g / "0001.state.toml", orders, "--key", keys["bob"], "--now", late])  # late, but in grace: taken
    assert _state(g / "0002.state.toml")["pbem"]["inputs"]
    run(["verify", g])


def test_a_missed_deadline_in_a_two_player_game(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    assert "past the grace period" in run(["status", g, "--now", GRACE_END]).output
    run(["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", GRACE_END])
    s2 = _state(g / "0002.state.toml")
    assert s2["transition"]["defaulted"] == ["german"]
    assert s2["transition"]["missed"] == {"at": GRACE_END, "due": DUE, "grace_until": GRACE_END}
    assert list(s2["transition"]["reveals"]) == ["soviet"]  # the late side reveals nothing
    report = (g / "0002.report.md").read_text()
    assert f"No german file for `GT1/1/german`: it was due {DUE} and the grace period ended {GRACE_END}" in report
    run(["verify", g])
    # The German's own orders arriving afterwards are no longer answered: the step is past.
    assert _state(g / "0002.state.toml")["awaits"]["from"] == ["soviet"]


def test_a_game_without_deadlines_keeps_no_orders_for_the_referee(tmp_path: Path) -> None:
    g, keys = _start(tmp_path, deadlines=False)
    s1 = _state(g / "0001.state.toml")
    assert "deadlines" not in s1 and "due" not in s1["awaits"]
    fails(g, 2, ["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", GRACE_END],
          "only a referee")


def test_a_missed_deadline_in_a_refereed_game(tmp_path: Path) -> None:
    g, keys = _start(tmp_path, referee=True)
    view = _state(g / "0001-german.view.toml")
    assert view["awaits"]["due"] == DUE and view["deadlines"]["grace"] == 24  # every side sees it
    assert f"due {DUE}" in run(["status", g / "0001-german.view.toml", "--now", T1]).output
    fails(g, 1, ["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["ref"], "--now", DUE],
          "cannot be adjudicated without german yet")
    run(["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["ref"], "--now", "2026-12-06T00:00Z"])
    s2 = _state(g / "0002.state.toml")
    assert s2["transition"]["defaulted"] == ["german"] and s2["transition"]["missed"]["at"] == "2026-12-06T00:00Z"
    assert _state(g / "0002-soviet.view.toml")["transition"]["missed"] == s2["transition"]["missed"]
    run(["verify", g])


def _reseal(path: Path, key: Path, change: dict) -> None:
    """Change a state's fields and seal it again with the adjudicator's own key: what he could send."""
    data = _state(path)
    data.pop("seal")
    for where, value in change.items():
        node = data
        *head, last = where.split(".")
        for k in head:
            node = node[k]
        node[last] = value
    signer = tomllib.loads(path.read_text())["seal"]["signer"]
    path.chmod(0o644)
    path.write_text(dumps(seal(data, signer, load_key(key))))


def test_a_deadline_shorter_than_the_options_allow_is_refused(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    _reseal(g / "0001.state.toml", keys["alice"], {"awaits.due": "2026-12-02T12:00Z"})  # 24h, the game gives 72h
    r = fails(g, 3, ["status", g / "0001.state.toml", "--now", T1], "0001.state.toml", "awaits.due",
              "deadlines.orders", "2026-12-04T12:00Z at the earliest")
    assert "Traceback" not in r.output
    fails(g, 3, ["verify", g], "awaits.due")
    fails(g, 3, ["template", g / "0001.state.toml", "--side", "german"], "awaits.due")


@pytest.mark.parametrize("due", ["2026-12-04T12:00+00:00", "2026-12-04T12:00:00Z", "2026-12-4T12:00Z", "2026-02-30T12:00Z"])
def test_a_deadline_has_one_spelling(tmp_path: Path, due: str) -> None:
    g, keys = _start(tmp_path)
    _reseal(g / "0001.state.toml", keys["alice"], {"awaits.due": due})
    fails(g, 2, ["status", g / "0001.state.toml", "--now", T1], "0001.state.toml", "awaits.due")


@pytest.mark.parametrize("now", ["2026-12-05T12:00", "2026-12-05T12:00:00Z", "2026-12-05 12:00Z", "2026-13-05T12:00Z"])
def test_now_has_one_spelling(tmp_path: Path, now: str) -> None:
    g, keys = _start(tmp_path)
    fails(g, 2, ["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", now], "--now")


def test_time_does_not_go_back(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    orders = _orders(g, keys)
    fails(g, 1, ["adjudicate", g / "0001.state.toml", orders, "--key", keys["bob"], "--now", "2026-12-01T11:59Z"],
          "time does not go back", "awaits.since")


def test_a_backdated_adjudication_does_not_replay(tmp_path: Path) -> None:
    """An adjudicator who defaults the late side and then changes the recorded time to hide that he
    did it too early: his own seal holds, the replay does not."""
    g, keys = _start(tmp_path)
    run(["adjudicate", g / "0001.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", GRACE_END])
    _reseal(g / "0002.state.toml", keys["bob"], {"transition.at": "2026-12-04T13:00Z", "transition.missed.at": "2026-12-04T13:00Z",
                                                 "awaits.since": "2026-12-04T13:00Z", "awaits.due": "2026-12-07T13:00Z"})
    fails(g, 1, ["verify", g], "0002.state.toml", "cannot be adjudicated without german yet")


def test_a_pause_agreed_by_both(tmp_path: Path) -> None:
    g, keys = _start(tmp_path)
    st = g / "0001.state.toml"
    run(["agree", st, "--side", "soviet", "--key", keys["bob"], "--due", "2026-12-20T12:00Z", "--deadline", "orders=96h"])
    # Signed by one side only: refused, nothing written.
    fails(g, 1, ["adjudicate", st, g / "0001-soviet.agree.toml", "--key", keys["bob"], "--now", "2026-12-02T10:00Z"],
          "needs the file of every player", "missing: german")
    # The other side signs other terms: refused.
    other = tmp_path / "other.agree.toml"
    run(["agree", st, "--side", "german", "--key", keys["alice"], "--due", "2026-12-21T12:00Z", "-o", other])
    fails(g, 1, ["adjudicate", st, g / "0001-soviet.agree.toml", other, "--key", keys["bob"], "--now", "2026-12-02T10:00Z"],
          "do not hold the same terms")
    run(["agree", st, "--side", "german", "--key", keys["alice"], "--due", "2026-12-20T12:00Z", "--deadline", "orders=96h"])
    agreements = sorted(g.glob("0001-*.agree.toml"))
    run(["adjudicate", st, *agreements, "--key", keys["bob"], "--now", "2026-12-02T10:00Z"])
    s2 = _state(g / "0002.state.toml")
    assert s2["awaits"]["step"] == "GT1/1/german" and s2["awaits"]["due"] == "2026-12-20T12:00Z"
    assert s2["deadlines"]["orders"] == 96 and s2["transition"]["agreed"] == {"due": "2026-12-20T12:00Z", "deadlines": {"orders": 96}}
    assert s2["parties"] == _state(st)["parties"] and s2["position"] == _state(st)["position"]  # no dice, nothing else
    assert "in-time" in run(["status", g, "--now", "2026-12-10T10:00Z", "--json"]).output
    fails(g, 1, ["adjudicate", g / "0002.state.toml", "--no-orders", "german", "--key", keys["bob"], "--now", GRACE_END],
          "2026-12-21T12:00Z")  # the old deadline is gone
    orders = _orders(g, keys, 2)
    run(["adjudicate", g / "0002.state.toml", orders, "--key", keys["bob"], "--now", "2026-12-10T10:00Z"])
    assert _state(g / "0003.state.toml")["awaits"]["due"] == "2026-12-14T10:00Z"  # the agreed 96h for orders
    run(["verify", g])


def test_a_pause_never_shortens_and_the_referee_does_not_agree(tmp_path: Path) -> None:
    g, keys = _start(tmp_path, referee=True)
    st = g / "0001.state.toml"
    fails(g, 2, ["agree", st, "--side", "referee", "--key", keys["ref"], "--due", "2026-12-20T12:00Z"], "not a player")
    run(["agree", st, "--side", "german", "--key", keys["alice"], "--due", "2026-12-03T12:00Z"])
    run(["agree", st, "--side", "soviet", "--key", keys["bob"], "--due", "2026-12-03T12:00Z"])
    fails(g, 1, ["adjudicate", st, *sorted(g.glob("0001-*.agree.toml")), "--key", keys["ref"], "--now", T1],
          "a pause only gives time")
