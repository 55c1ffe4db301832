"""The reports' Markdown as HTML: the subset pbem writes, and everything else escaped."""

from __future__ import annotations

from pbem.site.markdown import inline, to_html
from tests.paths import PM_GOLDEN


def test_the_subset_reports_use() -> None:
    text = "# Title\n\n- Game `g`, **Attack 1** on *1919N*:\n  - Odds 19:4.\n  It spends 5.\n- Two\n\n### Phase\n\nA paragraph\ngoes on.\n\n1. one\n"
    out = to_html(text, heading_shift=1)
    assert out == ("<h2>Title</h2>\n<ul>\n<li>Game <code>g</code>, <strong>Attack 1</strong> on <em>1919N</em>:\n<ul>\n"
                   "<li>Odds 19:4.\n<br>It spends 5.\n</li>\n</ul>\n</li>\n<li>Two\n</li>\n</ul>\n<h4>Phase</h4>\n"
                   "<p>A paragraph goes on.</p>\n<ol>\n<li>one\n</li>\n</ol>\n")


def test_markup_of_its_own_is_escaped() -> None:
    hostile = ('- <script>alert(1)</script> & "q" \'s\n'
               '- [x](javascript:alert(1)) [y](https://example.org/"onmouseover=x) ![a](https://evil.example/p.svg) ![b](../up.svg)\n'
               '- `<b>` **<i>**\n')
    out = to_html(hostile, images={"ok.svg": "pictures/ok.svg"})
    assert "<script" not in out and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#x27;s" in out
    assert "javascript:" not in out.replace("(javascript:", "") and "href" not in out
    assert "<img" not in out and "evil" not in out.split("missing-picture")[0]
    assert "<code>&lt;b&gt;</code>" in out and "<strong>&lt;i&gt;</strong>" in out
    assert '<img src="pictures/ok.svg" alt="map" loading="lazy">' == inline("![map](ok.svg)", {"ok.svg": "pictures/ok.svg"})
    assert inline("[site](https://example.org/a)") == '<a href="https://example.org/a">site</a>'


def test_every_golden_report_converts_with_its_lists_balanced() -> None:
    for p in sorted(PM_GOLDEN.glob("*/*.report.md")):
        out = to_html(p.read_text(encoding="utf-8"))
        for tag in ("ul", "li", "p", "strong", "code"):
            assert out.count(f"<{tag}>") == out.count(f"</{tag}>"), (p, tag)
        assert "**" not in out and "`" not in out, p
