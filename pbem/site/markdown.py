"""A small, safe Markdown-to-HTML converter for the subset pbem's reports use.

Blocks: ATX headings (``#`` to ``######``), lists (``-``, ``*`` or ``1.``) nested by indentation,
a list item's continuation lines, paragraphs and blank lines. Inline: ``code``, ``**strong**``,
``*emphasis*``, images ``![alt](file)`` and links ``[text](target)``. Everything else is text:
every ``<``, ``>``, ``&`` and quote is escaped, so no markup of the report's own reaches the page.
A link or image target is kept only when it is a plain relative file name (``0002.turn.svg``) or,
for a link, an ``https:`` address; ``images`` maps an image's file name to the address the page
shows it under (an image not in it is shown as its alt text).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

_HEADING = re.compile(r"(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"( *)([-*]|\d{1,9}[.)])\s+(.*)$")
_SAFE_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*")
_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"
    r"|!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]*)\)"
    r"|\[(?P<text>[^\]]+)\]\((?P<href>[^)\s]*)\)"
    r"|\*\*(?P<strong>.+?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"
)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _safe_file(target: str) -> bool:
    return bool(_SAFE_FILE.fullmatch(target)) and ".." not in target.split("/")


def inline(text: str, images: Mapping[str, str] | None = None, link: Callable[[str], str | None] | None = None) -> str:
    """One line of inline Markdown as HTML: everything escaped but the constructs the module names."""
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(_esc(text[pos:m.start()]))
        pos = m.end()
        if m.group("code") is not None:
            out.append(f"<code>{_esc(m.group('code_text').strip())}</code>")
        elif m.group("src") is not None:
            alt, src = m.group("alt"), m.group("src")
            shown = (images or {}).get(src) if _safe_file(src) else None
            if shown is None:
                out.append(f'<span class="missing-picture">[{_esc(alt)}]</span>')
            else:
                out.append(f'<img src="{_esc(shown)}" alt="{_esc(alt)}" loading="lazy">')
        elif m.group("href") is not None:
            target = m.group("href")
            href = link(target) if link is not None else None
            if href is None and target.startswith("https://") and '"' not in target:
                href = target
            label = inline(m.group("text"), images, link)
            out.append(f'<a href="{_esc(href)}">{label}</a>' if href else label)
        elif m.group("strong") is not None:
            out.append(f"<strong>{inline(m.group('strong'), images, link)}</strong>")
        else:
            out.append(f"<em>{inline(m.group('em'), images, link)}</em>")
    out.append(_esc(text[pos:]))
    return "".join(out)


def to_html(markdown: str, images: Mapping[str, str] | None = None, link: Callable[[str], str | None] | None = None,
            heading_shift: int = 0) -> str:
    """A Markdown document as an HTML fragment (module docstring). ``heading_shift`` lowers every
    heading by that many levels (a report's ``#`` title becomes ``<h2>`` inside a page)."""
    out: list[str] = []
    stack: list[tuple[int, str]] = []  # the open lists: (indentation, "ul" or "ol")
    item_open: list[bool] = []  # whether the innermost list of each level has an open <li>
    para: list[str] = []

    def close_para() -> None:
        if para:
            out.append("<p>" + " ".join(inline(p, images, link) for p in para) + "</p>")
            para.clear()

    def close_lists(to_indent: int = -1) -> None:
        while stack and stack[-1][0] > to_indent:
            _, tag = stack.pop()
            if item_open.pop():
                out.append("</li>")
            out.append(f"</{tag}>")

    for raw in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.expandtabs(4).rstrip()
        if not line.strip():
            close_para()
            continue
        h = _HEADING.fullmatch(line)
        if h and not line.startswith(" "):
            close_para()
            close_lists()
            level = min(6, len(h.group(1)) + heading_shift)
            out.append(f"<h{level}>{inline(h.group(2), images, link)}</h{level}>")
            continue
        m = _ITEM.match(line)
        if m:
            close_para()
            indent, tag = len(m.group(1)), "ol" if m.group(2)[0].isdigit() else "ul"
            close_lists(indent)
            if not stack or stack[-1][0] < indent:
                out.append(f"<{tag}>")
                stack.append((indent, tag))
                item_open.append(False)
            elif item_open[-1]:
                out.append("</li>")
            out.append("<li>" + inline(m.group(3), images, link))
            item_open[-1] = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        if stack and indent > 0 and item_open[-1]:  # a continuation of the open list item
            out.append("<br>" + inline(line.strip(), images, link))
            continue
        close_lists()
        para.append(line.strip())
    close_para()
    close_lists()
    return "\n".join(out) + ("\n" if out else "")
