"""A tiny SVG writer: elements as text, attributes in the order given, numbers with one decimal.

Deterministic by construction (same input, same bytes), so pictures can be compared in golden
tests and verified like reports.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr


def num(x: float) -> str:
    """One decimal, no trailing '.0', no '-0'."""
    s = f"{x:.1f}"
    if s.endswith(".0"):
        s = s[:-2]
    return "0" if s == "-0" else s


_NAMES: dict[str, str] = {}  # a keyword to its attribute name (xlink__href -> xlink:href, class_ -> class)
_PLAIN = frozenset('&<>"\'\n\r\t')  # what quoteattr would rewrite: a value without them is quoted as it is


def _name(k: str) -> str:
    name = _NAMES.get(k)
    if name is None:
        name = _NAMES[k] = k.rstrip("_").replace("__", ":").replace("_", "-")
    return name


def attrs(**kw: object) -> str:
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        val = num(v) if isinstance(v, float) else str(v)
        out.append(f' {_name(k)}="{val}"' if _PLAIN.isdisjoint(val) else f" {_name(k)}={quoteattr(val)}")
    return "".join(out)


def el(tag: str, text: str | None = None, /, **kw: object) -> str:
    if text is None:
        return f"<{tag}{attrs(**kw)}/>"
    return f"<{tag}{attrs(**kw)}>{escape(text)}</{tag}>"


def group(children: list[str], **kw: object) -> str:
    return f"<g{attrs(**kw)}>" + "".join(children) + "</g>"


def points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def arrow_defs(colours: dict[str, str]) -> str:
    """``<defs>`` with an arrow head ``<marker id="arrow-NAME">`` per name, in its colour (sorted by
    name); a line ends in one with ``marker_end="url(#arrow-NAME)"``."""
    return "<defs>" + "".join(
        f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
        for k, c in sorted(colours.items())) + "</defs>"


def document(width: float, height: float, body: list[str], view_box: tuple[float, float, float, float] | None = None,
             title: str = "", style: str = "") -> str:
    vb = view_box or (0.0, 0.0, width, height)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" height="{num(height)}" '
            f'viewBox="{" ".join(num(v) for v in vb)}" font-family="DejaVu Sans, Verdana, sans-serif">')
    parts = [head]
    if title:
        parts.append(el("title", title))
    if style:
        parts.append(f"<style>{style}</style>")
    parts += body
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
