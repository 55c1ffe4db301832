"""`pbem site FOLDER -o DIR`: a static web site of a game folder (README, "Watch a game").

The site is a folder: ``index.html`` (every state in order, one shown at a time by ``site.js``; all
of them, one under another, without JavaScript), ``site.css``, ``site.js``, ``pictures/`` (an SVG
per state: the turn's picture with its moves, attacks and results, or the position; a position's
map that does not change is drawn once, under the units), and ``files/`` (a copy of every signed
file and report the page names, so that its links work on any static host). No server, nothing
fetched from the network, no clock: the same folder gives the same bytes.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.errors import UsageError
from pbem.exchange import names
from pbem.exchange.files import read_bytes
from pbem.exchange.game import Doc
from pbem.exchange.keys import key_id

from . import markdown, plots, series
from .model import MAX_REPORT, Game, Step, read_game

MARKER = ".pbem-site"  # in a folder pbem wrote a site into: the one kind of folder `pbem site` replaces
ASSETS = Path(__file__).parent

e = html.escape


@dataclass
class Picture:
    """A state's picture on the page: one SVG, or a layer over a base map that many states share."""

    src: str
    base: str | None = None
    turn: bool = False


def _split_svg(svg: str) -> tuple[str, list[str], str] | None:
    """An SVG written by pbem.view.svg.document: its opening tag, its top-level children (one a
    line) and its end; None for any other shape."""
    lines = svg.rstrip("\n").split("\n")
    if len(lines) < 3 or not lines[0].startswith("<svg") or lines[-1] != "</svg>":
        return None
    return lines[0], lines[1:-1], "</svg>\n"


def _is_head(line: str) -> bool:
    return line.startswith(("<title>", "<style>", "<defs>"))


def position_pictures(svgs: dict[int, str]) -> tuple[dict[int, Picture], dict[str, str]]:
    """The position pictures of several states as files: the top-level groups every picture of one
    size begins with alike (the map: hexes, terrain) go into a base picture drawn once, under each
    state's layer (the rest: places, units, markers); a layer like an earlier one is that file."""
    files: dict[str, str] = {}
    out: dict[int, Picture] = {}
    parts = {n: _split_svg(s) for n, s in svgs.items()}
    groups: dict[str, list[int]] = {}
    for n, p in parts.items():
        if p is not None:
            groups.setdefault(p[0], []).append(n)
    bases: dict[str, tuple[str, int]] = {}
    for k, (head, members) in enumerate(sorted(groups.items(), key=lambda kv: min(kv[1]))):
        bodies = [[c for c in parts[n][1] if not _is_head(c)] for n in members]  # type: ignore[index]
        common = 0
        if len(members) > 1:
            while all(common < len(b) for b in bodies) and all(b[common] == bodies[0][common] for b in bodies):
                common += 1
        if common and sum(len(c) for c in bodies[0][:common]) > 4096:
            first = parts[members[0]]
            assert first is not None
            heads = [c for c in first[1] if c.startswith(("<style>", "<defs>"))]
            name = f"pictures/map-{k + 1}.svg"
            files[name] = "\n".join([head, *heads, *bodies[0][:common], "</svg>"]) + "\n"
            bases[head] = (name, common)
    by_content: dict[str, str] = {}
    for n in sorted(svgs):
        p = parts[n]
        base = None
        text = svgs[n]
        if p is not None and p[0] in bases:
            base, common = bases[p[0]]
            heads = [c for c in p[1] if _is_head(c)]
            rest = [c for c in p[1] if not _is_head(c)][common:]
            text = "\n".join([p[0], *heads, *rest, "</svg>"]) + "\n"
        dg = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if dg not in by_content:
            by_content[dg] = f"pictures/{names.number(n)}.svg"
            files[by_content[dg]] = text
        out[n] = Picture(by_content[dg], base)
    return out, files


def _pictures(game: Game) -> tuple[dict[int, Picture], dict[str, str]]:
    files: dict[str, str] = {}
    out: dict[int, Picture] = {}
    positions: dict[int, str] = {}
    for step in game.steps:
        if step.picture is not None:
            name = f"pictures/{names.number(step.sequence)}.turn.svg"
            files[name] = step.picture
            out[step.sequence] = Picture(name, None, True)
        else:
            positions[step.sequence] = game.module.render_svg(step.data, game.side)
    more, more_files = position_pictures(positions)
    return out | more, files | more_files


# --- the page ---------------------------------------------------------------------------------------

def _file_link(name: str, held: set[str], text: str | None = None) -> str:
    shown = e(text or name)
    return f'<a class="file" href="files/{e(name)}">{shown}</a>' if name in held else f"<span class=\"file\">{shown}</span>"


def _short(digest: str) -> str:
    return digest[:19] + "…" if len(digest) > 20 else digest


def _seal(doc: Doc) -> str:
    seal = doc.data.get("seal")
    if not isinstance(seal, dict):
        return "not sealed"
    return f"sealed by <b>{e(str(seal.get('signer', '?')))}</b> (key {e(key_id(str(seal.get('key', ''))))})"


def _step_title(step: Step, prev: Step | None) -> str:
    """What the state follows from: the step adjudicated to make it."""
    if step.sequence == 0:
        return "the new game"
    if prev is None or prev.sequence != step.sequence - 1:
        return "a state after a gap"
    aw = prev.data.get("awaits", {})
    if aw.get("kind") == "join":
        return "every party joined"
    return f"{aw.get('step', '')} adjudicated"


def _status_line(game: Game, step: Step) -> str:
    try:
        return str(game.module.status_line(step.data))
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""


def _signatures(step: Step, held: set[str], seq_files: dict[str, str]) -> str:
    d = step.data
    rows = [f"<li>{_file_link(step.doc.path.name, held)}: {e(step.doc.kind)} {names.number(step.sequence)}, {_seal(step.doc)}"
            + (f", at {e(str(d['transition']['at']))}" if isinstance(d.get("transition"), dict) and d["transition"].get("at") else "")
            + "</li>"]
    for doc in step.inputs:
        h = doc.data.get("pbem", {})
        name = seq_files.get(doc.digest, doc.path.name)
        rows.append(f"<li>{_file_link(name, held)}: {e(str(h.get('kind', '')))} of <b>{e(str(h.get('side', '')))}</b> for step "
                    f"<code>{e(str(h.get('step', '')))}</code>, answering <code>{e(_short(str(h.get('answers', ''))))}</code>, {_seal(doc)}</li>")
    for dg in step.missing_inputs:
        rows.append(f"<li>an input not in this folder: <code>{e(_short(dg))}</code></li>")
    return "<ul class=\"seals\">" + "".join(rows) + "</ul>"


def _dice(step: Step, held: set[str]) -> str:
    tr = step.data.get("transition")
    if step.sequence == 0 or not isinstance(tr, dict):
        return "<p class=\"none\">No dice: the game's first state.</p>"
    dice = tr.get("dice", [])
    reveals = tr.get("reveals", {})
    head = (f"<p>Seed <code class=\"digest\">{e(str(tr.get('seed', '')))}</code>, derived from the previous state's digest and the "
            f"secrets revealed by {e(', '.join(sorted(reveals)) or 'nobody')} (each matching its earlier commitment). "
            f"Re-derive every die with <code>pbem audit {e(step.doc.path.name)}</code>: a face is HMAC-SHA-256 of the seed and "
            f"the die's label, turned into a face without bias (docs/dice.md).</p>")
    if not dice:
        return head + "<p class=\"none\">No die was rolled in this step.</p>"
    rows = "".join(f"<tr><td><code>{e(str(r.get('label', '')))}</code></td><td>d{e(str(r.get('sides', '')))}</td>"
                   f"<td class=\"face\">{e(str(r.get('face', '')))}</td></tr>" for r in dice)
    return head + f"<table class=\"dice\"><thead><tr><th>label</th><th>die</th><th>face</th></tr></thead><tbody>{rows}</tbody></table>"


def _trust(game: Game, step: Step) -> str:
    v = game.verdict
    if step.sequence in v.checked:
        anchor = f" from {e(v.trusted_from)}" if v.trusted_from else ""
        what = "views' seals, chain and dice" if game.side else "replayed"
        return f"<p class=\"trust ok\">Checked by <code>pbem verify</code> ({what}){anchor}.</p>"
    return "<p class=\"trust bad\">Not checked: <code>pbem verify</code> stopped before this state (see Verification).</p>"


def _picture_html(step: Step, pic: Picture | None, title: str) -> str:
    if pic is None:
        return ""
    alt = e(f"State {names.number(step.sequence)}: {title}")
    kind = "the turn: moves, attacks and results" if pic.turn else "the position"
    img = f'<img class="layer" src="{e(pic.src)}" alt="{alt}" loading="lazy">'
    if pic.base:
        img = f'<img class="base" src="{e(pic.base)}" alt="" loading="lazy">' + img
    return (f'<figure class="picture{" stacked" if pic.base else ""}"><div class="frame">{img}</div>'
            f'<figcaption>{e(kind.capitalize())} · <a href="{e(pic.src)}">open the picture</a></figcaption></figure>')


def _section(game: Game, step: Step, index: int, pic: Picture | None, held: set[str], seq_files: dict[str, str]) -> str:
    n = names.number(step.sequence)
    title = _step_title(step, game.steps[index - 1] if index else None)
    aw = step.data.get("awaits", {})
    awaits = (f"awaits {e(str(aw.get('kind', '')))} for <code>{e(str(aw.get('step', '')))}</code> from "
              f"{e(', '.join(map(str, aw.get('from', []))) or 'nobody')}" if aw.get("kind") not in (None, "none") else "the game is over")
    result = step.data.get("result")
    if isinstance(result, dict) and result.get("winner"):
        awaits += f"; the {e(str(result['winner']))} wins" + (f" ({e(str(result['rule']))})" if result.get("rule") else "")
    report = ""
    if step.report is not None:
        report_name = step.report_file or ""
        body = markdown.to_html(step.report, images={}, heading_shift=2)
        report = (f'<details class="report" open><summary>Report {_file_link(report_name, held)}</summary>'
                  f'<div class="md">{body}</div></details>')
    elif step.sequence:
        report = "<p class=\"none\">No report in the folder for this step.</p>"
    return (f'<section class="state" id="s{n}" data-index="{index}" data-title="{e(title)}">'
            f'<h2><span class="seq">{n}</span> {e(title)}</h2>'
            f'<p class="status">{e(_status_line(game, step))}<br>{awaits}</p>'
            f'{_trust(game, step)}'
            f'<div class="cols"><div class="col-pic">{_picture_html(step, pic, title)}</div>'
            f'<div class="col-text">{report}'
            f'<details class="dice-box"><summary>Dice</summary>{_dice(step, held)}</details>'
            f'<details class="seal-box" open><summary>Signed files</summary>{_signatures(step, held, seq_files)}</details>'
            f'</div></div></section>')


def _verification(game: Game) -> str:
    v = game.verdict
    cls = "ok" if v.ok else "bad"
    lines = [f'<p class="verdict {cls}"><b>pbem verify</b>: {e(v.summary)}</p>']
    if v.ok and v.trusted_from:
        lines.append(f"<p>Trusted from <code>{e(v.trusted_from)}</code> ({e(v.how)}; <code class=\"digest\">{e(v.anchor_digest)}</code>).</p>")
    if not v.ok:
        lines.append(f"<p>Exit code {v.exit_code}. {e(v.hint)}</p>")
    for note in v.notes:
        lines.append(f"<p class=\"note\">note: {e(note)}</p>")
    what = ("the views of this side and the game's first state" if game.side else "every file of the game folder")
    lines.append(f"<p>Checked when this site was made by pbem {e(__version__)}, on {what}. Check it yourself: download the files "
                 "and run <code>pbem verify FOLDER</code>.</p>")
    return "".join(lines)


def page(game: Game, pictures: dict[int, Picture], plot_list: list[series.Plot]) -> str:
    first = game.steps[0].data
    h = first["pbem"]
    title = f"{game.module.title}: {h['game']}" + (f", as the {game.side} side sees it" if game.side else "")
    held = {p.name for p in game.files}
    seq_files: dict[str, str] = {}
    sections = [_section(game, s, i, pictures.get(s.sequence), held, seq_files) for i, s in enumerate(game.steps)]
    last = len(game.steps) - 1
    plots_html = "".join(f'<figure class="plot-box">{plots.line_chart(p.title, p.labels, p.lines, _sides(game), f"plot-{i + 1}", p.note)}</figure>'
                         for i, p in enumerate(plot_list)) or "<p class=\"none\">Nothing to plot.</p>"
    files = "".join(f"<li>{_file_link(p.name, held)}</li>" for p in game.files)
    v = game.verdict
    badge = ("verified" if v.ok else "NOT verified")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pbem {e(__version__)}">
<title>{e(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="site.css">
</head>
<body>
<header>
<h1>{e(title)}</h1>
<p class="meta">Scenario <code>{e(str(h['scenario']))}</code>, ruleset <code>{e(str(h['ruleset']))}</code>, {len(game.steps)} states.
<a class="badge {'ok' if v.ok else 'bad'}" href="#verification">{badge}</a></p>
<nav class="stepper" aria-label="states">
<button type="button" id="prev" title="previous state (←)">◀</button>
<input type="range" id="slider" min="0" max="{last}" value="0" step="1" aria-label="state">
<button type="button" id="next" title="next state (→)">▶</button>
<span id="where" aria-live="polite"></span>
</nav>
<p class="keys">Keys: ← → previous and next state, Home and End the first and the last. <a href="#plots">Plots</a> · <a href="#verification">Verification</a> · <a href="#files">Files</a></p>
</header>
<main>
{chr(10).join(sections)}
</main>
<section id="plots"><h2>Plots</h2>{plots_html}</section>
<section id="verification"><h2>Verification</h2>{_verification(game)}</section>
<section id="files"><h2>Files</h2><p>The signed files of the game{f" that the {e(game.side)} side holds" if game.side else ""}, as they are in its folder.</p><ul class="files">{files}</ul></section>
<footer>Made with pbem {e(__version__)}: <code>pbem site{f" --side {e(game.side)}" if game.side else ""} FOLDER -o DIR</code>.</footer>
<script src="site.js"></script>
</body>
</html>
"""


def _sides(game: Game) -> list[str]:
    return [s for s in game.steps[0].data.get("parties", {}) if s != "referee"]


# --- writing --------------------------------------------------------------------------------------

def site_files(game: Game) -> dict[str, bytes]:
    """Every file of the site by its path in it."""
    pictures, picture_files = _pictures(game)
    out: dict[str, bytes] = {"index.html": page(game, pictures, series.plots(game)).encode("utf-8")}
    out["site.css"] = (ASSETS / "site.css").read_bytes()
    out["site.js"] = (ASSETS / "site.js").read_bytes()
    for name, text in picture_files.items():
        out[name] = text.encode("utf-8")
    for p in game.files:
        out[f"files/{p.name}"] = read_bytes(p, MAX_REPORT, "game file")
    out[".nojekyll"] = b""
    out[MARKER] = (json.dumps({"pbem": __version__, "side": game.side}, sort_keys=True) + "\n").encode("utf-8")
    return out


def _replaceable(out: Path) -> bool:
    if not out.exists():
        return True
    if not out.is_dir() or out.is_symlink():
        return False
    entries = list(out.iterdir())
    return not entries or (out / MARKER).is_file()


def write_site(files: dict[str, bytes], out: Path) -> None:
    """The site's files into ``out``: a new or empty folder, or a site pbem wrote before (replaced
    whole, so that no file of an older site stays). The site is written beside it first, then moved in."""
    if not _replaceable(out):
        raise UsageError(f"{out}: exists and is not a site pbem wrote (no {MARKER} in it)",
                         hint="Give a new or empty folder: pbem site replaces only a site it wrote.")
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        for name, data in sorted(files.items()):
            p = tmp / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        for d in [tmp, *sorted({(tmp / n).parent for n in files})]:
            os.chmod(d, 0o755 & ~_umask())
        for name in files:
            os.chmod(tmp / name, 0o644 & ~_umask())
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.rename(out, old / "site")
        os.rename(tmp, out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def build(folder: Path, out: Path, side: str | None = None) -> tuple[Game, dict[str, bytes]]:
    """`pbem site`: read the game, make the site's files, write them. Returns the game read and the files."""
    game = read_game(folder, side)
    files = site_files(game)
    write_site(files, out)
    return game, files


def describe(game: Game, files: dict[str, Any], out: Path) -> str:
    pictures = sum(1 for n in files if n.startswith("pictures/"))
    copied = sum(1 for n in files if n.startswith("files/"))
    return (f"wrote {out}/index.html: {len(game.steps)} states, {pictures} pictures, {copied} signed files linked; "
            f"{'verified' if game.verdict.ok else 'NOT verified'}: {game.verdict.summary}")
