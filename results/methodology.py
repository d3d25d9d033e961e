"""docs/methodology.md as a page of the site: rendered once per change of the file, with an
id on every heading (its GitHub-style slug, so the document's own #links work) and on every
row of the tests table ("test-<id>", for the test pages to link to); each table in a box
that scrolls sideways (.scroll).

Safe by construction: raw HTML in the Markdown is shown as text (html=False), link targets
pass markdown-it's validation (no javascript: or data: URLs), and a relative link to another
file of the repository, which has no page on the site, is kept as its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.token import Token

PATH = Path(settings.BASE_DIR) / "docs" / "methodology.md"

_md = MarkdownIt("commonmark", {"html": False}).enable("table")


def _table_open(self, tokens, idx, options, env) -> str:
    return '<div class="scroll">\n' + self.renderToken(tokens, idx, options, env)


def _table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


# A table scrolls sideways in its own box (the site's .scroll), never the page on a phone.
_md.add_render_rule("table_open", _table_open)
_md.add_render_rule("table_close", _table_close)


@dataclass(frozen=True)
class Methodology:
    title: str
    html: str
    anchors: frozenset[str]  # every id in html

    def test_anchor(self, identifier: str) -> str:
        """The anchor of a test's row in the tests table; "" when it has none."""
        anchor = f"test-{identifier}"
        return anchor if anchor in self.anchors else ""

    def kind_anchor(self, kind: str) -> str:
        """The section on how a kind of test's figures are computed; "" when there is none."""
        anchor = KIND_SECTIONS.get(kind, "")
        return anchor if anchor in self.anchors else ""


# The section of each Test.Kind (by the headings' slugs).
KIND_SECTIONS = {
    "throughput": "throughput-what-each-figure-is",
    "consistency": "performance-consistency",
    "trim": "trim-validation",
    "saturation": "write-saturation",
}


def slug(text: str) -> str:
    """A heading's id as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _text(inline) -> str:
    return "".join(child.content for child in inline.children or [])


def render(source: str) -> Methodology:
    tokens = _md.parse(source)
    anchors: set[str] = set()
    title = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            text = _text(tokens[i + 1])
            title = title or (text if token.tag == "h1" else "")
            anchor = slug(text)
            if anchor and anchor not in anchors:
                token.attrSet("id", anchor)
                anchors.add(anchor)
        elif token.type == "tr_open" and tokens[i + 1].type == "td_open":
            # A test's row: its first cell names it (`id`, or several: `a`, `b`).
            first = tokens[i + 2]
            codes = [c.content for c in first.children or [] if c.type == "code_inline"]
            ids = [f"test-{c}" for c in codes if re.fullmatch(r"[a-z0-9][a-z0-9.-]*", c)]
            if ids and ids[0] not in anchors:
                token.attrSet("id", ids[0])
                anchors.add(ids[0])
                # Further ids of the same row: empty anchors at the start of its first cell.
                extra = [a for a in ids[1:] if a not in anchors]
                if extra:
                    first.children[:0] = [_anchor(first, a) for a in extra]
                    anchors.update(extra)
        elif token.type == "inline":
            _unlink_repository_files(token)
    html = _md.renderer.render(tokens, _md.options, {})
    return Methodology(title=title or "Methodology", html=html, anchors=frozenset(anchors))


def _anchor(inline, anchor: str) -> Token:
    token = Token("html_inline", "", 0)
    token.content = f'<span id="{anchor}"></span>'  # anchor matched [a-z0-9.-]: no escaping
    return token


def _unlink_repository_files(inline) -> None:
    """Links to other files of the repository (relative, not #anchors) become plain text."""
    kept, unlinking = [], False
    for child in inline.children or []:
        if child.type == "link_open":
            href = child.attrGet("href") or ""
            unlinking = not href.startswith(("#", "https://", "http://", "mailto:"))
            if unlinking:
                continue
        elif child.type == "link_close" and unlinking:
            unlinking = False
            continue
        kept.append(child)
    inline.children = kept


@lru_cache(maxsize=2)
def _cached(mtime_ns: int) -> Methodology:
    return render(PATH.read_text(encoding="utf-8"))


def methodology() -> Methodology:
    """The rendered document, re-read when the file changes."""
    return _cached(PATH.stat().st_mtime_ns)
