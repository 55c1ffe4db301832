"""Map pictures (SVG): structure, determinism, and a real rendering to PNG by headless Chromium."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import time
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.files import read_toml
from pbem.games.proud_monster.data import load_scenario, shown_values
from pbem.games.proud_monster.picture import position_svg

GOLDEN = Path(__file__).parent / "golden" / "demo"
NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def by_id(root: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {e.get("id", "")[len(prefix):]: e for e in root.iter() if e.get("id", "").startswith(prefix)}


def test_position_picture_has_every_hex_hexside_place_and_unit_with_documented_ids_and_classes() -> None:
    sc = load_scenario("training")
    state = read_toml(GOLDEN / "0007.state.toml")
    root = parse(position_svg(sc, state))
    hexes = by_id(root, "hex-")
    assert set(hexes) == set(sc.map.hexes)
    for h, e in hexes.items():
        assert e.tag == f"{NS}polygon" and e.get("class", "").split()[:2] == ["hex", sc.map.hexes[h].terrain]
    sides = [e for e in root.iter(f"{NS}line") if "hexside" in e.get("class", "").split()]
    drawn = {(e.get("data-hexside"), e.get("class", "").split()[1]) for e in sides}
    assert drawn == {(k, f) for k, fs in sc.map.hexsides.items() for f in fs}
    places = by_id(root, "place-")
    assert {h for h, x in sc.map.hexes.items() if x.settlement} <= set(places)
    assert "control-soviet" in places["2817N"].get("class", "") and "city" in places["2817N"].get("class", "")
    texts = {t.text for t in root.iter(f"{NS}text")}
    assert {"Minsk", "Moscow", "Leningrad", "Sevastopol"} <= texts
    units = by_id(root, "unit-")
    on_map = {u for u, s in state["position"]["units"].items() if s["at"] not in ("dead", "track")}
    assert set(units) == on_map
    for u, e in units.items():
        spec = sc.units[u]
        assert e.get("class") == f"unit {spec.side} {spec.nat} {spec.type}"
        assert e.get("data-hex") == state["position"]["units"][u]["at"]
        shown = shown_values(spec, state["position"]["units"][u], state["options"])  # ?-?-MF while untried (2.15)
        assert {spec.id, shown} <= {t.text for t in e.iter(f"{NS}text")}
    assert any(t.text and t.text.startswith("?-?-") for e in units.values() for t in e.iter(f"{NS}text"))


def test_turn_pictures_show_moves_attacks_and_control_changes_and_reports_link_them() -> None:
    root = parse((GOLDEN / "0002.turn.svg").read_text(encoding="utf-8"))
    classes = [e.get("class", "") for e in root.iter()]
    assert classes.count("attack") >= 7 and "move" in classes
    report = (GOLDEN / "0002.report.md").read_text(encoding="utf-8")
    assert "](0002.turn.svg)" in report
    labels = {t.text for t in root.iter(f"{NS}text") if t.get("class") == "attack-label"}
    attacks = report.count("- **Attack ")
    assert len(labels) >= 1 and attacks == 7
    assert not (GOLDEN / "0001.turn.svg").exists() and "turn.svg" not in (GOLDEN / "0001.report.md").read_text(encoding="utf-8")


def test_pictures_are_byte_stable_and_fast(tmp_path: Path) -> None:
    runner = CliRunner()
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    for out in (a, b):
        r = runner.invoke(cli, ["show", str(GOLDEN / "0007.state.toml"), "--svg", str(out)])
        assert r.exit_code == 0, r.output
    assert a.read_bytes() == b.read_bytes()
    sc = load_scenario("training")
    state = read_toml(GOLDEN / "0007.state.toml")
    t = time.process_time()  # CPU time: a guard against a pathological slowdown; benchmarks/ measure speed
    position_svg(sc, state)
    assert time.process_time() - t < 5  # generous; benchmarks/bench.py measures it


# --- a real renderer -----------------------------------------------------------------------------

def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def png_pixels(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Decode an 8-bit RGB or RGBA PNG (what Chromium writes): width, height, channels, rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            ul = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def render(svg: Path, png: Path, width: int, height: int, profile: Path) -> None:
    exe = chromium()
    assert exe is not None
    subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         f"--user-data-dir={profile}", f"--window-size={width},{height}", f"--screenshot={png}", svg.resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )


@pytest.mark.skipif(chromium() is None and not os.environ.get("CI"), reason="no Chromium on this machine (.ci/run installs it)")
def test_demo_pictures_render_to_png_with_chromium(tmp_path: Path) -> None:
    runner = CliRunner()
    pictures = [tmp_path / "position.svg", GOLDEN / "0004.turn.svg"]
    assert runner.invoke(cli, ["show", str(GOLDEN / "0007.state.toml"), "--svg", str(pictures[0])]).exit_code == 0
    for k, svg in enumerate(pictures):
        root = parse(svg.read_text(encoding="utf-8"))
        width, height = round(float(root.get("width", "0"))), round(float(root.get("height", "0")))
        png = tmp_path / f"{k}.png"
        render(svg, png, width, height, tmp_path / f"profile{k}")
        w, h, ch, rows = png_pixels(png.read_bytes())
        assert (w, h) == (width, height)
        step = max(1, h // 200)
        sample = [row[i:i + 3] for row in rows[::step] for i in range(0, len(row), ch * max(1, w // 200))]
        colours = set(sample)
        white = sum(1 for c in sample if c == b"\xff\xff\xff")
        assert len(colours) > 50, "the picture has the colours of a map"
        assert white / len(sample) < 0.5, "the picture is not blank"


def test_works_are_drawn_roads_forts_stalin_line_and_hedgehogs() -> None:
    """The highway (12.20), fortifications with their state (14.24-14.30) and hedgehogs (14.40)."""
    from tests.games.proud_monster.pmcase import MODULE, SCENARIO, build_state

    case = {"case": {"id": "PM-000"}, "options": {"fortifications": True, "hedgehogs": True},
            "position": {"turn": 12, "units": {"Inf1": "4917N"}, "hedgehogs": ["4917N"]}}
    state = build_state(case)
    state["position"]["forts"] = {**state["position"].get("forts", {}), "4817N": "destroyed"}
    root = parse(position_svg(MODULE.scenario({"pbem": {"scenario": SCENARIO}}), state))
    works = by_id(root, "works")[""]
    classes = [e.get("class", "") for e in works.iter()]
    assert "road" in classes
    assert "fort destroyed" in classes and "heavy intact" in classes
    assert any(c.startswith("stalin ") for c in classes)
    assert [e.get("data-hex") for e in works.iter() if e.get("class") == "hedgehog"] == ["4917N"]


def test_a_turn_picture_has_a_key_and_a_title_that_fits() -> None:
    """The demo's GT1 German picture: a title sized to the picture's width and, under it, the key of
    its arrows and rings (move, attack, advance, retreat, by sea, control changes), inside the picture."""
    import re as _re
    import xml.etree.ElementTree as ET

    from tests.paths import ROOT

    svg = (ROOT / "docs" / "demo-turn.svg").read_text(encoding="utf-8")
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    width = float(root.get("width", "0"))
    legend = root.find(".//s:g[@id='legend']", ns)
    assert legend is not None
    title = legend.find("s:text[@class='title']", ns)
    assert title is not None and float(title.get("font-size", "0")) * 0.56 * len(title.text or "") <= width - 20 + 1e-6
    keys = legend.findall("s:g[@class='key']", ns)
    assert [k.find("s:text", ns).text for k in keys] == ["move", "attack (odds, result)", "advance", "retreat", "by sea",  # type: ignore[union-attr]
                                                        "control changes"]
    xs = [float(_re.match(r"translate\(([0-9.]+),", k.get("transform", "")).group(1)) for k in keys]  # type: ignore[union-attr]
    assert all(x < width for x in xs)
