"""A side-by-side diff of two programs as HTML: difflib-aligned lines, changed lines marked, marks at lines.

A reader checking a classification wants the buggy and the fixed program next to each other, the
changed lines coloured, and each fault component pinned to its lines on both sides, including a
line that did not change textually (a component found at the use of a constant whose definition
changed). Long runs of unchanged lines fold into ``<details>`` so the changes stay close together;
a line that carries a mark is never folded away.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: unchanged lines shown around each change or mark
CONTEXT = 3
#: an unchanged run is folded only when it has at least this many hidden lines
FOLD_MIN = 6
#: intra-line changes are shown only when the two lines are at least this similar
INTRALINE_RATIO = 0.4


@dataclass(frozen=True)
class Row:
    """One aligned row: ``kind`` is equal, change (both sides differ), del (buggy only) or ins (fixed only)."""

    kind: str
    a_no: int | None
    a: str | None
    b_no: int | None
    b: str | None


@dataclass(frozen=True)
class Mark:
    """A component pinned to a line: its number on the page, code, hover text and element id."""

    number: int
    code: str
    title: str
    anchor: str
    side: str


def align(a_lines: Sequence[str], b_lines: Sequence[str]) -> list[Row]:
    """Pair the lines of two programs: difflib's matching blocks, replaced runs paired line by line."""
    matcher = difflib.SequenceMatcher(None, list(a_lines), list(b_lines), autojunk=False)
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                Row("equal", i + 1, a_lines[i], j + 1, b_lines[j])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            i, j = i1 + k, j1 + k
            a = (i + 1, a_lines[i]) if i < i2 else (None, None)
            b = (j + 1, b_lines[j]) if j < j2 else (None, None)
            kind = "change" if a[0] and b[0] else "del" if a[0] else "ins"
            rows.append(Row(kind, a[0], a[1], b[0], b[1]))
    return rows


def _intraline(a: str, b: str) -> tuple[str, str]:
    """Both lines as HTML with the differing characters wrapped in ``<span class="dx">``."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < INTRALINE_RATIO:
        return html.escape(a), html.escape(b)
    out_a, out_b = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        pa, pb = html.escape(a[i1:i2]), html.escape(b[j1:j2])
        if tag == "equal":
            out_a.append(pa)
            out_b.append(pb)
            continue
        if pa:
            out_a.append(f'<span class="dx">{pa}</span>')
        if pb:
            out_b.append(f'<span class="dx">{pb}</span>')
    return "".join(out_a), "".join(out_b)


def _badges(marks: Sequence[Mark]) -> str:
    return "".join(
        f'<a class="badge" href="#comp-{m.number}" id="{m.anchor}" data-comp="{m.number}" '
        f'data-side="{m.side}" title="{html.escape(m.title)}">{m.number}&nbsp;{html.escape(m.code)}</a>'
        for m in marks
    )


def _cells(no: int | None, text_html: str | None, cls: str, marks: Sequence[Mark]) -> str:
    if no is None:
        return '<td class="no"></td><td class="code empty"></td>'
    hl = " hl" if marks else ""
    return (
        f'<td class="no">{no}</td><td class="code {cls}{hl}">{_badges(marks)}'
        f'<span class="src">{text_html or ""}</span></td>'
    )


_SIDE_CLASS = {"equal": ("", ""), "change": ("del", "ins"), "del": ("del", ""), "ins": ("", "ins")}


def _row_html(row: Row, marks_a: Mapping[int, Sequence[Mark]], marks_b: Mapping[int, Sequence[Mark]]) -> str:
    if row.kind == "change" and row.a is not None and row.b is not None:
        a_html, b_html = _intraline(row.a, row.b)
    else:
        a_html = None if row.a is None else html.escape(row.a)
        b_html = None if row.b is None else html.escape(row.b)
    ca, cb = _SIDE_CLASS[row.kind]
    ma = marks_a.get(row.a_no, ()) if row.a_no else ()
    mb = marks_b.get(row.b_no, ()) if row.b_no else ()
    return f'<tr class="{row.kind}">{_cells(row.a_no, a_html, ca, ma)}{_cells(row.b_no, b_html, cb, mb)}</tr>'


_COLGROUP = '<colgroup><col class="no"><col class="code"><col class="no"><col class="code"></colgroup>'


def _table(rows_html: Sequence[str]) -> str:
    return f'<table class="diff">{_COLGROUP}<tbody>' + "\n".join(rows_html) + "</tbody></table>"


def visible_rows(
    rows: Sequence[Row],
    marks_a: Mapping[int, Sequence[Mark]],
    marks_b: Mapping[int, Sequence[Mark]],
    context: int = CONTEXT,
) -> list[bool]:
    """Which rows stay open: changed or marked rows and ``context`` rows around each."""
    anchors = [
        i for i, r in enumerate(rows) if r.kind != "equal" or (r.a_no in marks_a) or (r.b_no in marks_b)
    ]
    shown = [False] * len(rows)
    for i in anchors:
        for k in range(max(0, i - context), min(len(rows), i + context + 1)):
            shown[k] = True
    return shown


def diff_html(
    a_lines: Sequence[str],
    b_lines: Sequence[str],
    marks_a: Mapping[int, Sequence[Mark]] | None = None,
    marks_b: Mapping[int, Sequence[Mark]] | None = None,
    *,
    context: int = CONTEXT,
    fold_min: int = FOLD_MIN,
) -> str:
    """The two programs side by side (buggy left, fixed right) as HTML tables, unchanged runs folded."""
    marks_a, marks_b = marks_a or {}, marks_b or {}
    rows = align(a_lines, b_lines)
    if not rows:
        return '<p class="note">Both files are empty.</p>'
    shown = visible_rows(rows, marks_a, marks_b, context)
    parts: list[str] = []
    if all(r.kind == "equal" for r in rows):
        parts.append('<p class="note">The two files are identical.</p>')
    pending: list[str] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and shown[j] == shown[i]:
            j += 1
        chunk = [_row_html(r, marks_a, marks_b) for r in rows[i:j]]
        if shown[i] or j - i < fold_min:
            pending += chunk
        else:
            if pending:
                parts.append(_table(pending))
                pending = []
            first, last = rows[i], rows[j - 1]
            parts.append(
                f'<details class="fold"><summary>{j - i} unchanged lines '
                f"(buggy {first.a_no}&ndash;{last.a_no}, fixed {first.b_no}&ndash;{last.b_no})</summary>"
                + _table(chunk)
                + "</details>"
            )
        i = j
    if pending:
        parts.append(_table(pending))
    return "\n".join(parts)
