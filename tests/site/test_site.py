"""`pbem site`: what the site holds, the same bytes from the same folder, a refereed game's side
sites that leak nothing of the other side, and a folder that does not verify."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.files import read_toml
from pbem.site.build import MARKER, build
from tests.conftest import GERMAN_GT1
from tests.exchange.test_referee import Refereed
from tests.paths import PM_GOLDEN

DEMO = PM_GOLDEN / "demo"


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_same_folder_gives_the_same_bytes_and_the_site_is_replaced_whole(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["site", str(DEMO), "-o", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    assert "8 states" in r.output and "verified: ok: 8 states, 7 transitions replayed" in r.output
    game = tmp_path / "copy"
    shutil.copytree(DEMO, game)  # another path, the same files
    build(game, tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    (tmp_path / "a" / "pictures" / "stale.svg").write_text("old", encoding="utf-8")
    build(DEMO, tmp_path / "a")  # a site pbem wrote is replaced, with no file of the old one left
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    html = (tmp_path / "a" / "index.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in html and "/work/" not in html, "no path of the machine it was made on"


def test_the_page_has_every_state_its_picture_report_dice_and_signed_files(tmp_path: Path) -> None:
    build(DEMO, tmp_path / "s")
    html = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'<section class="state" id="s(\d{4})"', html)
    assert ids == [f"{n:04d}" for n in range(8)]
    sections = dict(zip(ids, re.split(r'<section class="state" id="s\d{4}"', html)[1:], strict=True))
    for n, text in sections.items():
        pics = re.findall(r'<img class="layer" src="([^"]+)"', text)
        assert len(pics) == 1 and (tmp_path / "s" / pics[0]).is_file(), n
    assert "pictures/0002.turn.svg" in sections["0002"], "a step with moves shows the turn's picture"
    two = sections["0002"]
    state = read_toml(DEMO / "0002.state.toml")
    for die in state["transition"]["dice"]:
        assert f"<code>{die['label']}</code></td><td>d{die['sides']}</td><td class=\"face\">{die['face']}</td>" in two
    assert state["transition"]["seed"] in two and "pbem audit 0002.state.toml" in two
    assert '<a class="file" href="files/0001-german.orders.toml">0001-german.orders.toml</a>: orders of <b>german</b>' in two
    assert "sealed by <b>soviet</b>" in two and "Attack 2 on 1919N" in two
    assert "Checked by <code>pbem verify</code> (replayed) from 0000.state.toml" in two
    assert 'class="badge ok"' in html and "ok: 8 states, 7 transitions replayed" in html
    for name in re.findall(r'href="files/([^"]+)"', html):
        assert (tmp_path / "s" / "files" / name).read_bytes() == (DEMO / name).read_bytes()
    assert "<script src=\"site.js\"></script>" in html
    assert not re.search(r'(src|href)="(https?:)?//', html), "nothing fetched from the network"


def test_a_folder_that_does_not_verify_gets_a_site_that_says_so(tmp_path: Path) -> None:
    game = tmp_path / "game"
    shutil.copytree(DEMO, game)
    p = game / "0005.report.md"
    p.write_text(p.read_text(encoding="utf-8").replace("Attack 1", "Attack 9", 1), encoding="utf-8")
    r = CliRunner().invoke(cli, ["site", str(game), "-o", str(tmp_path / "s")])
    assert r.exit_code == 1 and "NOT verified" in r.output
    html = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert 'class="badge bad"' in html and "0005.report.md: the report does not match the transition it describes" in html
    sections = re.split(r'<section class="state" id="s\d{4}"', html)[1:]
    assert "Checked by" in sections[4] and "Not checked" in sections[5] and "Not checked" in sections[7]


def test_an_output_folder_that_is_not_a_site_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    r = CliRunner().invoke(cli, ["site", str(DEMO), "-o", str(out)])
    assert r.exit_code == 2 and f"no {MARKER} in it" in r.output and (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    r = CliRunner().invoke(cli, ["site", str(tmp_path / "nothing"), "-o", str(tmp_path / "s")])
    assert r.exit_code == 2 and "no such game folder" in r.output


GERMAN_UNITS = re.compile(r"\b(Inf\d+|Pz\d+)\b")  # the exchange scenario's German units


@pytest.fixture(scope="module")
def refereed(tmp_path_factory: pytest.TempPathFactory) -> Refereed:
    g = Refereed(tmp_path_factory.mktemp("ref") / "game", {"fog_of_war": True})
    g.adjudicate([g.orders("german", '\n[[move]]\nunits = ["Inf2"]\npath = ["4716N"]\n' + GERMAN_GT1)])
    g.adjudicate([g.orders("soviet", "")])
    g.adjudicate([g.orders("german", '\n[[move]]\nunits = ["Pz1"]\npath = ["4817N"]\n\n[[move]]\nunits = ["Inf2"]\npath = ["4717N", "4817N"]\n')])
    return g


def test_a_side_site_of_a_refereed_game_shows_no_enemy_unit_the_side_could_not_see(refereed: Refereed, tmp_path: Path) -> None:
    folder = refereed.folder
    r = CliRunner().invoke(cli, ["site", str(folder), "--side", "soviet", "-o", str(tmp_path / "soviet")])
    assert r.exit_code == 0, r.output
    site = tmp_path / "soviet"
    html = (site / "index.html").read_text(encoding="utf-8")
    linked = sorted(p.name for p in (site / "files").iterdir())
    assert all(n == "0000.state.toml" or "-soviet." in n for n in linked), linked
    assert not any(n.endswith(".state.toml") and n != "0000.state.toml" for n in linked)
    views = sorted(folder.glob("*-soviet.view.toml"))
    sections = dict(zip(re.findall(r'<section class="state" id="s(\d{4})"', html),
                        re.split(r'<section class="state" id="s\d{4}"', html)[1:], strict=True))
    assert sorted(sections) == ["0000", *[v.name[:4] for v in views]]
    hidden_somewhere = False
    for v in views:
        n = v.name[:4]
        view = read_toml(v)
        seen = {u for u in view["position"]["units"] if GERMAN_UNITS.fullmatch(u)}
        report = (folder / f"{n}-soviet.report.md").read_text(encoding="utf-8")
        told = set(GERMAN_UNITS.findall(report))
        full = set(read_toml(folder / f"{n}.state.toml")["position"]["units"])
        hidden_somewhere |= bool({u for u in full if GERMAN_UNITS.fullmatch(u)} - seen)
        text = re.sub(r"<[^>]+>", " ", sections[n])
        assert set(GERMAN_UNITS.findall(text)) <= seen | told, n
        for pic in re.findall(r'src="(pictures/[^"]+)"', sections[n]):
            drawn = set(re.findall(r'id="unit-([^"]+)"', (site / pic).read_text(encoding="utf-8")))
            assert {u for u in drawn if GERMAN_UNITS.fullmatch(u)} <= seen, (n, pic)
    assert hidden_somewhere, "the game hides some German unit from the Soviet"
    last = views[-1].name[:4]
    assert "Pz1" not in re.sub(r"<[^>]+>", " ", sections[last])
    assert "ok: " in html and "views only" in html
    r = CliRunner().invoke(cli, ["site", str(folder), "--side", "finnish", "-o", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no view of side 'finnish'" in r.output


def test_the_referee_site_of_the_same_game_shows_everything(refereed: Refereed, tmp_path: Path) -> None:
    build(refereed.folder, tmp_path / "all")
    html = (tmp_path / "all" / "index.html").read_text(encoding="utf-8")
    assert "Pz1" in html and 'class="badge ok"' in html


def test_the_example_workflow_publishes_the_site_after_the_verification(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.paths import ROOT

    example = ROOT / "examples" / "git-game"
    text = (example / ".github" / "workflows" / "pbem.yml").read_text(encoding="utf-8")
    job = text.split("\n  site:\n", 1)[1]
    assert "    needs: pbem\n" in job and "github.event_name == 'push'" in job
    assert "      pages: write\n      id-token: write\n" in job and "bash .github/pbem-site.sh _site" in job
    assert "actions/upload-pages-artifact@" in job and "actions/deploy-pages@" in job
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    env.pop("GITHUB_WORKSPACE", None)
    work = tmp_path / "repo"
    shutil.copytree(example, work)
    r = subprocess.run(["bash", ".github/pbem-site.sh", "_site"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '<a href="demo/index.html">demo</a>' in (work / "_site" / "index.html").read_text(encoding="utf-8")
    assert 'class="badge ok"' in (work / "_site" / "demo" / "index.html").read_text(encoding="utf-8")
