"""The site in a real browser: headless Chromium, started by the test and driven through the Chrome
DevTools Protocol (tests/site/cdp.py). No console error; every state reachable by the keyboard and
by the slider, each with its picture loaded; the plots drawn; every link to a signed file resolves;
a phone's screen shows it without sideways scrolling; a screenshot of one step has the window's size
and is not blank."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.site.build import build
from tests.games.proud_monster.test_pictures import png_pixels
from tests.paths import PM_GOLDEN
from tests.site.cdp import Browser, need_chromium

WIDTH, HEIGHT = 1280, 900


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "demo"
    build(PM_GOLDEN / "demo", out)
    return out


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    need_chromium()
    b = Browser(tmp_path / "profile", WIDTH, HEIGHT)
    try:
        yield b
    finally:
        b.close()


def current(b: Browser) -> str:
    return str(b.evaluate("document.querySelector('section.state.current').id"))


def pictures_loaded(b: Browser, timeout: float = 30) -> int:
    """Waits until every picture of the state shown has loaded; returns how many it has."""
    deadline = time.monotonic() + timeout
    js = ("(() => { const imgs = [...document.querySelectorAll('section.state.current img')];"
          " return imgs.length && imgs.every(i => i.complete && i.naturalWidth > 0) ? imgs.length : 0; })()")
    while time.monotonic() < deadline:
        n = int(b.evaluate(js))
        if n:
            return n
        time.sleep(0.05)
    raise AssertionError(f"the pictures of {current(b)} did not load")


def test_every_state_is_reachable_by_keyboard_and_slider_with_its_picture_and_no_console_error(site: Path, browser: Browser) -> None:
    states = sorted(p.name.split(".")[0] for p in (PM_GOLDEN / "demo").glob("*.state.toml"))
    browser.open(site.joinpath("index.html").as_uri())
    assert current(browser) == "s" + states[0]
    assert pictures_loaded(browser) >= 1
    for n in states[1:]:  # the right arrow, state after state
        browser.key("ArrowRight", "ArrowRight", 39)
        assert current(browser) == "s" + n
        assert pictures_loaded(browser) >= 1
        assert browser.evaluate("location.hash") == "#s" + n
    browser.key("ArrowRight", "ArrowRight", 39)
    assert current(browser) == "s" + states[-1], "the last state stays"
    browser.key("Home", "Home", 36)
    assert current(browser) == "s" + states[0]
    browser.key("End", "End", 35)
    assert current(browser) == "s" + states[-1]
    for n in reversed(states[:-1]):
        browser.key("ArrowLeft", "ArrowLeft", 37)
        assert current(browser) == "s" + n
    # the slider: focused, its own arrow keys move it; then a click at its right end
    browser.evaluate("document.getElementById('slider').focus()")
    for n in states[1:]:
        browser.key("ArrowRight", "ArrowRight", 39)
        assert current(browser) == "s" + n
        assert int(browser.evaluate("document.getElementById('slider').value")) == states.index(n)
    browser.key("Home", "Home", 36)
    assert current(browser) == "s" + states[0]
    box = browser.evaluate("(() => { const r = document.getElementById('slider').getBoundingClientRect();"
                           " return [r.right - 3, r.top + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
    assert current(browser) == "s" + states[-1]
    browser.evaluate("document.getElementById('prev').click()")
    assert current(browser) == "s" + states[-2]
    # an address names a state
    browser.evaluate("location.hash = '#s" + states[3] + "'")
    time.sleep(0.2)
    assert current(browser) == "s" + states[3]
    assert browser.console_errors() == []


def test_plots_are_drawn_and_links_to_the_signed_files_resolve(site: Path, browser: Browser) -> None:
    browser.open(site.joinpath("index.html").as_uri())
    plots = browser.evaluate("[...document.querySelectorAll('#plots svg.plot')].map(s => [s.id, s.querySelectorAll('polyline, circle').length,"
                             " s.getBoundingClientRect().width])")
    assert len(plots) >= 3 and all(n > 0 and w > 100 for _, n, w in plots), plots
    titles = browser.evaluate("[...document.querySelectorAll('#plots svg.plot > title')].map(t => t.textContent)")
    assert {"Victory points", "Steps lost"} <= set(titles)
    hrefs = browser.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")
    files = [h for h in hrefs if "/files/" in h]
    assert len(files) >= len(list((PM_GOLDEN / "demo").iterdir())), "every file of the folder is linked"
    for h in hrefs:
        if h.startswith("file://"):
            path = Path(urllib.parse.unquote(urllib.parse.urlparse(h).path))
            assert path.is_file(), h
    for h in files:  # the copy is the folder's file, byte for byte
        name = urllib.parse.unquote(h.rsplit("/", 1)[1])
        assert (site / "files" / name).read_bytes() == (PM_GOLDEN / "demo" / name).read_bytes()
    assert browser.console_errors() == []


def test_a_phone_screen_shows_the_page_without_sideways_scrolling(site: Path, browser: Browser) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
    browser.open(site.joinpath("index.html").as_uri() + "#s0002")
    assert current(browser) == "s0002"
    assert pictures_loaded(browser) >= 1
    assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    picture, text = browser.evaluate("(() => { const s = document.querySelector('section.state.current');"
                                     " return [s.querySelector('.col-pic').getBoundingClientRect().width,"
                                     " s.querySelector('.col-text').getBoundingClientRect().top]; })()")
    assert picture > 300, "the picture takes the phone's width"
    assert browser.evaluate("document.getElementById('next').getBoundingClientRect().height") >= 30, "buttons big enough to tap"
    del text
    assert browser.console_errors() == []


def test_a_screenshot_of_one_step_has_the_window_size_and_is_not_blank(site: Path, browser: Browser, tmp_path: Path) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
    browser.open(site.joinpath("index.html").as_uri() + "#s0002")
    assert pictures_loaded(browser) >= 1
    png = browser.screenshot()
    (tmp_path / "step.png").write_bytes(png)
    w, h, ch, rows = png_pixels(png)
    assert (w, h) == (WIDTH, HEIGHT)
    sample = [row[i:i + 3] for row in rows[::9] for i in range(0, len(row), ch * 7)]
    assert len(set(sample)) > 100, "the map, the report and the stepper have many colours"
    background = max(set(sample), key=sample.count)
    assert sample.count(background) / len(sample) < 0.6, "the step is not a blank page"
    assert len(png) > 50_000
