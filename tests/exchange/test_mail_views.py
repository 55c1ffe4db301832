"""`pbem mail read` files a view only if the folder's referee sealed it and it continues the folder's
chain (README: E-mail): the referee's key is the one the folder's earliest state or view records, and
the view must follow the side's previous view (its digest, commitments and dice: ``Chain.follow_views``),
or the joins' state, or be exactly the view of a state the folder holds. A forged referee, a broken
chain or another side's view is tampering (exit 3), a view the folder cannot check is not filed
(exit 1); nothing is written, so `status`, `show` and `template` never see such a view.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.files import dumps, read_toml
from pbem.exchange.keys import KeyPair
from tests.clihelpers import fails, run, snapshot
from tests.conftest import GERMAN_GT1, SOVIET_STANDING, start_game
from tests.exchange.test_mail import DATE, message, save
from tests.exchange.test_referee import Refereed


@dataclass
class Views:
    """The referee's game up to state 0002 (a view of each for each side), and the Soviet player's
    folder holding the game's first state (which he joined) and his view 0001."""

    game: Refereed
    player: Path
    root: Path

    def view(self, seq: int, side: str = "soviet") -> dict[str, Any]:
        return read_toml(self.game.folder / f"{seq:04d}-{side}.view.toml")

    def text(self, seq: int, side: str = "soviet") -> str:
        return (self.game.folder / f"{seq:04d}-{side}.view.toml").read_text(encoding="utf-8")

    def resealed(self, view: dict[str, Any], key: KeyPair | None = None) -> str:
        return dumps(seal(unsealed(view), "referee", key or self.game.keys["referee"]))

    def mail(self, *files: tuple[str, str], name: str = "in.eml") -> Path:
        return save(self.root, name, message(*files))


@pytest.fixture
def vs(tmp_path: Path) -> Views:
    g = Refereed(tmp_path / "ref")
    g.adjudicate([g.orders("german", GERMAN_GT1)])  # -> state 0002: the German attack, dice rolled
    player = tmp_path / "soviet"
    player.mkdir()
    shutil.copy(g.folder / "0000.state.toml", player)
    shutil.copy(g.folder / "0001-soviet.view.toml", player)
    return Views(g, player, tmp_path)


def read(vs: Views, eml: Path, code: int, *needles: str, folder: Path | None = None) -> str:
    args = ["mail", "read", eml, "--folder", folder or vs.player]
    if code:
        return fails(vs.root, code, args, *needles).output
    out = run(args).output
    for n in needles:
        assert n in out, f"{n!r} not in:\n{out}"
    return out


def test_the_referees_view_continuing_the_chain_is_filed(vs: Views) -> None:
    eml = vs.root / "view.eml"
    run(["mail", "write", vs.game.folder / "0002-soviet.view.toml", "--from", "ref@example.org", "--to", "bob@example.org",
         "--date", DATE, "-o", eml])
    read(vs, eml, 0, "new    0002-soviet.view.toml", "sealed by the referee; continues the views here "
         "(chain, commitments and dice checked)", "new    0002-soviet.report.md")
    assert (vs.player / "0002-soviet.view.toml").read_bytes() == (vs.game.folder / "0002-soviet.view.toml").read_bytes()
    run(["verify", vs.player])


def test_a_view_sealed_by_a_forged_referee_is_refused(vs: Views) -> None:
    """The forger names his own key as the referee's in the view and seals it with that key: the view
    vouches for itself, but not for the folder, whose referee is the one its view 0001 records."""
    forger = KeyPair.from_seed(b"not the referee")
    v = vs.view(2)
    v["parties"]["referee"]["key"] = forger.public_text
    v["position"]["vp"] = 9
    forged = vs.resealed(v, forger)
    out = read(vs, vs.mail(("0002-soviet.view.toml", forged)), 3, "sealed by key", "but the game expects",
               "for signer 'referee'", "Nothing was written")
    assert "new " not in out
    assert not (vs.player / "0002-soviet.view.toml").exists()


def test_a_view_that_does_not_chain_is_refused(vs: Views) -> None:
    """Sealed by the referee himself, but its previous state is not the one the folder's view 0001 shows."""
    v = vs.view(2)
    v["pbem"]["previous"] = "sha256:" + "ab" * 32
    read(vs, vs.mail(("v.toml", vs.resealed(v))), 3, "does not follow", "the chain of states is broken")


def test_a_view_whose_dice_reveal_breaks_its_commitment_is_refused(vs: Views) -> None:
    # the referee's own reveal: checked against his commitment; a player's: against what he attested
    for party, needle in (("referee", "referee's dice reveal does not match its commitment"),
                          ("german", "german's reveal is not the one german attested")):
        v = vs.view(2)
        assert party in v["transition"]["reveals"]
        v["transition"]["reveals"][party] = "00" * 32
        read(vs, vs.mail(("v.toml", vs.resealed(v))), 3, needle)


def test_another_sides_view_is_refused(vs: Views) -> None:
    read(vs, vs.mail(("v.toml", vs.text(2, "german"))), 3, "a view for german, but", "holds the views of soviet",
         "sent to the wrong player")


def test_a_view_beyond_a_gap_is_not_filed(vs: Views) -> None:
    vs.game.adjudicate([vs.game.orders("soviet", SOVIET_STANDING)])  # -> 0003
    read(vs, vs.mail(("v.toml", vs.text(3))), 1, "is view 0003 of soviet, but neither view 0002 nor state 0002",
         "its chain cannot be checked", "Ask the referee for the views missing")
    # both in one mail: each continues the one before
    read(vs, vs.mail(("a.toml", vs.text(3)), ("b.toml", vs.text(2)), name="both.eml"), 0,
         "new    0002-soviet.view.toml", "new    0003-soviet.view.toml")
    run(["verify", vs.player])


def test_a_view_into_an_empty_folder_is_not_filed_and_the_joins_state_starts_the_chain(vs: Views) -> None:
    empty = vs.root / "empty"
    empty.mkdir()
    eml = vs.mail(("v.toml", vs.text(1)))
    read(vs, eml, 1, "holds no state or view of the game to check it against, so it is not filed",
         "state 0000 (the one you joined from)", folder=empty)
    assert list(empty.iterdir()) == []
    shutil.copy(vs.game.folder / "0000.state.toml", empty)  # the state the player joined from
    read(vs, eml, 0, "new    0001-soviet.view.toml", "continues state 0000 (the joins: no dice)", folder=empty)
    # a forged view 0001 does not get in that way either
    forger = KeyPair.from_seed(b"not the referee")
    v = vs.view(1)
    v["parties"]["referee"]["key"] = forger.public_text
    other = vs.root / "other"
    other.mkdir()
    shutil.copy(vs.game.folder / "0000.state.toml", other)
    read(vs, vs.mail(("v.toml", vs.resealed(v, forger)), name="forged.eml"), 3, "but the game expects", folder=other)


def test_without_a_folder_a_view_is_listed_as_unchecked(vs: Views) -> None:
    before = snapshot(vs.root)
    out = run(["mail", "read", vs.mail(("v.toml", vs.text(2)))]).output
    assert "found  0002-soviet.view.toml" in out and "not checked against the game's history (give --folder GAME)" in out
    assert snapshot(vs.root) == {**before, "in.eml": (vs.root / "in.eml").read_bytes()}


def test_in_the_referees_folder_a_view_must_be_exactly_the_view_of_its_state(vs: Views, tmp_path: Path) -> None:
    ref = tmp_path / "copy"
    shutil.copytree(vs.game.folder, ref)
    (ref / "0002-soviet.view.toml").unlink()
    (ref / "0002-soviet.report.md").unlink()
    v = vs.view(2)
    v["position"]["vp"] = 9
    read(vs, vs.mail(("v.toml", vs.resealed(v))), 1, "is not the view of the state it names", folder=ref)
    read(vs, vs.mail(("v.toml", vs.text(2)), name="good.eml"), 0, "new    0002-soviet.view.toml",
         "which is here: exactly its view, sealed by the referee", folder=ref)


def test_a_view_for_a_game_without_a_referee_is_refused(tmp_path: Path, vs: Views) -> None:
    g = start_game(tmp_path / "game", game_id="pm-refereed")  # a two-player game of the same name
    folder = tmp_path / "two"
    shutil.copytree(g.folder, folder)
    read(vs, vs.mail(("v.toml", vs.text(2))), 3, "there is no referee to make one", folder=folder)


def test_status_show_and_template_never_see_a_refused_view(vs: Views) -> None:
    forger = KeyPair.from_seed(b"not the referee")
    v = vs.view(2)
    v["parties"]["referee"]["key"] = forger.public_text
    v["awaits"]["step"] = "GT9/1/soviet"
    before = snapshot(vs.player)
    read(vs, vs.mail(("v.toml", vs.resealed(v, forger))), 3, "but the game expects")
    assert snapshot(vs.player) == before
    latest = sorted(vs.player.glob("*.view.toml"))[-1]
    assert latest.name == "0001-soviet.view.toml"
    status = run(["status", latest]).output
    assert "state 0001" in status and "GT9" not in status
    assert "GT9" not in run(["show", latest]).output
    fails(vs.root, 2, ["template", latest, "--side", "soviet"], "does not await anything from 'soviet'")
    # the referee's own view 0002 is filed, and orders written from it answer the state it shows
    read(vs, vs.mail(("v.toml", vs.text(2)), name="good.eml"), 0, "new    0002-soviet.view.toml")
    template = run(["template", vs.player / "0002-soviet.view.toml", "--side", "soviet"]).output
    assert f'answers = "{vs.view(2)["pbem"]["of"]}"' in template and "GT9" not in template
