"""Plots of a game as small SVG line charts, drawn here (no library, nothing fetched): one chart per
series, one line per side, the game turns along the bottom."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

# Colours by a line's place: the game's sides first, in the order the game lists them.
PALETTE = ("#4a5d7e", "#b3261e", "#2e7d32", "#8e44ad", "#d68910", "#117a65", "#6e2c00", "#1b4f72")

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 28, 48


def colour(side: str, index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _num(x: float) -> str:
    """A coordinate with one decimal at most, the same on every machine."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _ticks(low: int, high: int) -> list[int]:
    """The values marked up the side of the chart: multiples of one step, a handful of them."""
    span = max(1, high - low)
    step = 1
    for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        step = s
        if span / s <= 6:
            break
    first = (low // step) * step
    return list(range(first, high + step, step))


def line_chart(title: str, labels: Sequence[str], lines: Mapping[str, Sequence[int | None]], sides: Sequence[str],
               chart_id: str, note: str = "") -> str:
    """An SVG line chart: ``lines`` maps a side to one value per label (None: no value then)."""
    e = html.escape
    values = [v for vs in lines.values() for v in vs if v is not None]
    low, high = (min(0, *values), max(1, *values)) if values else (0, 1)
    ticks = _ticks(low, high)
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = max(1, len(labels) - 1)

    def x(i: int) -> float:
        return LEFT + plot_w * i / n if len(labels) > 1 else LEFT + plot_w / 2

    def y(v: int) -> float:
        return TOP + plot_h * (high - v) / max(1, high - low)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" id="{e(chart_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="{e(title)}">',
           f'<title>{e(title)}</title>',
           f'<text class="plot-title" x="{LEFT}" y="18">{e(title)}</text>']
    for t in ticks:
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_num(y(t))}" y2="{_num(y(t))}"/>'
                   f'<text class="tick" x="{LEFT - 6}" y="{_num(y(t) + 4)}" text-anchor="end">{t}</text>')
    every = max(1, (len(labels) + 11) // 12)
    for i, label in enumerate(labels):
        if i % every == 0 or i == len(labels) - 1:
            out.append(f'<text class="tick" x="{_num(x(i))}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{e(label)}</text>')
    names = [*[s for s in sides if s in lines], *[s for s in lines if s not in sides]]
    for k, side in enumerate(names):
        vs = lines[side]
        c = colour(side, k)
        runs: list[list[str]] = [[]]
        for i, v in enumerate(vs):
            if v is None:
                runs.append([])
                continue
            runs[-1].append(f"{_num(x(i))},{_num(y(v))}")
        for run in runs:
            if len(run) > 1:
                out.append(f'<polyline class="series" data-side="{e(side)}" fill="none" stroke="{c}" stroke-width="2" points="{" ".join(run)}"/>')
        for i, v in enumerate(vs):
            if v is not None:
                out.append(f'<circle cx="{_num(x(i))}" cy="{_num(y(v))}" r="2.5" fill="{c}"><title>{e(side)}, {e(labels[i])}: {v}</title></circle>')
    kx = LEFT
    for k, side in enumerate(names):
        out.append(f'<rect x="{kx}" y="{HEIGHT - 18}" width="12" height="4" fill="{colour(side, k)}"/>'
                   f'<text class="key" x="{kx + 16}" y="{HEIGHT - 12}">{e(side)}</text>')
        kx += 24 + 8 * len(side)
    if note:
        out.append(f'<text class="note" x="{WIDTH - RIGHT}" y="{HEIGHT - 12}" text-anchor="end">{e(note)}</text>')
    out.append("</svg>")
    return "".join(out)
