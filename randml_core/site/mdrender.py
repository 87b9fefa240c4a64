"""Markdown to HTML for the site (markdown-it-py), with the claims' verdict words as badges.

The reports write their verdicts in a few styles: upper case (``**HELD**``, ``NOT HELD:``, a
``NOT TESTED (SUBSTITUTE; ...)`` table cell), lower case in bold (``**Verdict: held (1 of 1)**``) or
at the start of a table cell (``not held (8 datasets: ...)``). Those become badges; the same words
in running text ("held if the mean is above ...", the rule that decided a claim) stay plain text.
Every table gets the ``sortable`` class and a scrolling wrapper; relative links and images are
rewritten to stay valid from the page's directory; raw HTML in the markdown is escaped, except
lines that hold only an HTML comment (markers such as ``<!-- claims-status:start -->``), which are
dropped: GitHub hides them and ends a table there, so the site does too.

Tables stay narrow enough to read: a note repeated in the body cells of a table ("not run (skipped by
rule, see below)", "needs download: `make data`") becomes a short mark (a, b, ...; the full text on
hover) with a legend under the table, and "mean ± std" breaks before the "±", never inside a number.
"""
from __future__ import annotations

import html
import os
import re
from pathlib import Path

#: what to install when markdown-it-py is missing (the optional extra ``site`` in pyproject.toml; ``make`` installs
#: ``dev``, which holds it)
INSTALL = "pip install 'randml[site]' (in a source checkout: pip install -e '.[site]')"

try:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
except ModuleNotFoundError as exc:  # an optional dependency: say which extra brings it, not only the module name
    if exc.name not in ("markdown_it", "mdurl"):
        raise
    raise ModuleNotFoundError(f"the results site needs markdown-it-py, which is not installed: {INSTALL}",
                              name=exc.name) from None

# (pattern, css class); longer phrases first so "not held" is never read as "held"
VERDICTS = [("not tested", "v-not-tested"), ("not held", "v-not-held"), ("held", "v-held"),
            ("inconclusive", "v-inconclusive"), ("undecidable here", "v-undecidable"),
            ("reference", "v-reference"), ("substitute", "v-substitute"), ("stand-in", "v-substitute")]
_WORDS = "|".join(re.escape(w) for w, _ in VERDICTS)
UPPER = re.compile(r"(?<![\w-])(" + _WORDS.upper() + r")(?![\w-])")
ANY_CASE = re.compile(r"(?<![\w-])(" + _WORDS + "|" + _WORDS.upper() + r")(?![\w-])")
CLASS = {w: c for w, c in VERDICTS}
#: a line that is only an HTML comment (a marker for a generator), with its line break
COMMENT_LINE = re.compile(r"^[ \t]*<!--.*?-->[ \t]*(?:\n|$)", re.MULTILINE)


#: a cell that starts with a number ("0.857 ± 0.027", "+0.54", "98.69") is a value, never a note
NUMBER = re.compile(r"^[\u2212+-]?(\d+\.?\d*|\.\d+)")
NOTE_MIN_CHARS = 16  # a repeated cell text at least this long (and not a value or a verdict) becomes a mark


def new_md() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("table_open", lambda self, tokens, idx, options, env:
                       '<div class="scroll">' + self.renderToken(tokens, idx, options, env))
    md.add_render_rule("table_close", lambda self, tokens, idx, options, env:
                       self.renderToken(tokens, idx, options, env) + "</div>\n"
                       + (tokens[idx].meta or {}).get("legend", ""))
    return md


def _is_note(text: str) -> bool:
    """A cell text that may become a mark: long, not a value, not a verdict, not a quotation."""
    text = text.strip()
    return (len(text) >= NOTE_MIN_CHARS and not NUMBER.match(text) and not ANY_CASE.match(text)
            and not text.startswith(('"', "\u201c", "**")))


def _body_cells(tokens: list[Token], start: int) -> tuple[list[int], int]:
    """Indices of the inline tokens of the body cells (first column left out) of the table opened at
    ``start``, and the index of its ``table_close``."""
    cells, col, i = [], 0, start
    while tokens[i].type != "table_close":
        if tokens[i].type == "tr_open":
            col = 0
        elif tokens[i].type == "td_open":
            if col > 0:
                cells.append(i + 1)
            col += 1
        i += 1
    return cells, i


def _marks(tokens: list[Token]) -> None:
    """Replace each note repeated in a table's body cells by a mark, and hang the legend on the table's
    ``table_close`` (rendered after the scrolling box, so it stays in view)."""
    for start in [i for i, t in enumerate(tokens) if t.type == "table_open"]:
        cells, close = _body_cells(tokens, start)
        texts = [tokens[i].content.strip() for i in cells]
        notes = [t for t in dict.fromkeys(texts) if _is_note(t) and texts.count(t) > 1]
        if not notes:
            continue
        label = {note: chr(ord("a") + k) if k < 26 else str(k + 1) for k, note in enumerate(notes)}
        for i, text in zip(cells, texts):
            if text in label:
                tokens[i].children = [_html(_mark(label[text], text))]
        items = "".join(f"<li>{_mark(label[n], n)} {render_inline(n)}</li>" for n in notes)
        tokens[close].meta = {**(tokens[close].meta or {}), "legend": f'<ul class="legend">{items}</ul>\n'}


def _mark(label: str, note: str) -> str:
    plain = re.sub(r"[`*_]", "", note)
    return f'<abbr class="mark" title="{html.escape(plain)}">{html.escape(label)}</abbr>'


def _html(content: str) -> Token:
    tok = Token("html_inline", "", 0)
    tok.content = content
    return tok


def badge(word: str) -> str:
    return f'<span class="badge {CLASS[word.lower()]}">{html.escape(word)}</span>'


def _badged(text: str, pattern: re.Pattern) -> list[Token]:
    """Text and html_inline tokens: the verdict words of ``text`` matched by ``pattern`` as badges."""
    out, pos = [], 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            out.append(_text(text[pos:m.start()]))
        tok = Token("html_inline", "", 0)
        tok.content = badge(m.group(1))
        out.append(tok)
        pos = m.end()
    if pos < len(text):
        out.append(_text(text[pos:]))
    return out


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def _badge_inline(children: list[Token], cell: bool) -> list[Token]:
    out, strong = [], 0
    for k, child in enumerate(children):
        if child.type == "strong_open":
            strong += 1
        elif child.type == "strong_close":
            strong -= 1
        if child.type != "text":
            out.append(child)
            continue
        text = child.content
        lead = ANY_CASE.match(text.lstrip()) if cell and k == 0 else None
        if strong:
            out += _badged(text, ANY_CASE)
        elif lead:  # a cell that starts with its verdict; the rest of it is ordinary text
            end = len(text) - len(text.lstrip()) + lead.end()
            out += _badged(text[:end], ANY_CASE) + _badged(text[end:], UPPER)
        else:
            out += _badged(text, UPPER)
    return out


def _relink(url: str, source_dir: Path | None, page_dir: Path) -> str:
    if source_dir is None or not url or re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", url, re.I):
        return url
    path, _, frag = url.partition("#")
    target = os.path.relpath((source_dir / path).resolve(), page_dir.resolve())
    return target.replace(os.sep, "/") + (f"#{frag}" if frag else "")


def render(text: str, page_dir: Path, source_dir: Path | None = None, demote: int = 1,
           row_class=None) -> str:
    """HTML of the markdown ``text`` for a page in ``page_dir``; ``source_dir`` is where the
    markdown file lives (its relative links are rebased); headings move down ``demote`` levels;
    ``row_class(header, cells)`` may name a class for a table body row (cells as plain text)."""
    md = new_md()
    tokens = md.parse(COMMENT_LINE.sub("\n", text))
    _marks(tokens)
    header: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(6, int(tok.tag[1]) + demote)}"
        elif tok.type == "table_open":
            tok.attrSet("class", "sortable")
            header = []
        elif tok.type == "th_open":
            header.append(tokens[i + 1].content)
        elif tok.type == "tr_open" and row_class is not None and header and tokens[i + 1].type == "td_open":
            cells, j = [], i + 1
            while tokens[j].type != "tr_close":
                if tokens[j].type == "inline":
                    cells.append(tokens[j].content)
                j += 1
            cls = row_class(header, cells)
            if cls:
                tok.attrSet("class", cls)
        elif tok.type == "inline" and tok.children is not None:
            cell = i > 0 and tokens[i - 1].type == "td_open"  # body cells only: headers name columns
            if cell:
                _no_break_after_plus_minus(tok.children)
            tok.children = _badge_inline(tok.children, cell)
            for child in tok.children:
                if child.type == "link_open":
                    child.attrSet("href", _relink(str(child.attrGet("href")), source_dir, page_dir))
                elif child.type == "image":
                    child.attrSet("src", _relink(str(child.attrGet("src")), source_dir, page_dir))
    return md.renderer.render(tokens, md.options, {})


def _no_break_after_plus_minus(children: list[Token]) -> None:
    """'0.857 ± 0.027' may wrap before the '±' only: a narrow column shows the mean over '± std'."""
    for child in children:
        if child.type == "text":
            child.content = child.content.replace(" \u00b1 ", " \u00b1\u00a0")


def render_inline(text: str) -> str:
    """One line of markdown (a table cell) as inline HTML."""
    return new_md().renderInline(text)


def tables_after_heading(text: str, heading: str) -> list[tuple[list[str], list[list[str]]]]:
    """The tables (header, rows of raw cell markdown) between the heading titled ``heading`` and
    the next heading of the same or a higher level."""
    tokens = new_md().parse(text)
    out, level, table = [], None, None
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            if level is not None and int(tok.tag[1]) <= level:
                break
            if tokens[i + 1].content.strip() == heading:
                level = int(tok.tag[1])
        elif level is None:
            continue
        elif tok.type == "table_open":
            table = ([], [])
            out.append(table)
        elif tok.type == "tr_open" and table is not None:
            row = []
            if tokens[i + 1].type == "td_open":
                table[1].append(row)
        elif tok.type == "inline" and table is not None and tokens[i - 1].type in ("th_open", "td_open"):
            (table[0] if tokens[i - 1].type == "th_open" else table[1][-1]).append(tok.content)
    return out


def section_of(text: str, heading: str) -> str:
    """The markdown between the heading titled ``heading`` and the next heading of its level or
    above (line ranges from the parser, so a '#' inside a code block is not a heading)."""
    tokens = new_md().parse(text)
    heads = [(int(t.tag[1]), tokens[i + 1].content.strip(), t.map) for i, t in enumerate(tokens)
             if t.type == "heading_open"]
    lines = text.splitlines()
    for n, (level, title, span) in enumerate(heads):
        if title == heading:
            end = next((s[0] for lv, _, s in heads[n + 1:] if lv <= level), len(lines))
            return "\n".join(lines[span[1]:end]).strip() + "\n"
    return ""
