"""One HTML page per classified bug: its components, the labels beside them, and the programs side by side.

A table of codes says what classify found; checking it needs the code. Each page shows every
component (code, taxonomy leaf, DeepCrime operator or why there is none, confidence, the rule or
decision that made it), pinned at its lines in a side-by-side diff of the buggy and the fixed
program, the lines classify set aside, and, when labels files are given, each reader's codes beside
the predicted ones.

Results rows name their files as classify was given them: absolute, or relative to the folder
classify ran in. :class:`SourceFinder` tries the folders it is told, then the working folder, then
the results file's folder and each folder above it; a file found nowhere gives a page with a clear
note in place of that program, never a failed report.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mutreal.report.sidebyside import Mark, diff_html
from mutreal.report.tables import Table
from mutreal.report.web import BUG_CSS, CSS, script_tag
from mutreal.study.confidence_levels import (
    LEVELS,
    UNKNOWN,
    component_field,
    confidence_of,
    level_name,
    made_by,
)
from mutreal.study.labelsfile import LabelledBug, ResultComponent, ResultRow, read_labels

#: folder of the bug pages inside a report folder
PAGES_DIR = "bugs"
#: a source file larger than this is not shown (a page must stay openable)
MAX_SOURCE_BYTES = 2_000_000


@dataclass
class LabelSet:
    """One reader's labels (a labels CSV), by bug id; ``name`` is what the pages call the reader."""

    name: str
    path: str
    by_id: dict[str, LabelledBug] = field(default_factory=dict)

    @classmethod
    def read(cls, path: str | Path) -> LabelSet:
        path = Path(path)
        return cls(path.stem, str(path), {bug.id: bug for bug in read_labels(path)})


def read_label_sets(paths: Iterable[str | Path]) -> list[LabelSet]:
    """Label sets named by file stem; two files with the same stem get their parent folder prefixed."""
    sets = [LabelSet.read(p) for p in paths]
    stems = Counter(s.name for s in sets)
    for s in sets:
        if stems[s.name] > 1:
            s.name = f"{Path(s.path).parent.name}/{s.name}"
    return sets


@dataclass
class SourceFinder:
    """Finds the program files a results row names (see the module docstring for the search order)."""

    roots: list[Path]

    @classmethod
    def for_results(cls, results: str | Path | None, extra: Sequence[str | Path] = ()) -> SourceFinder:
        roots = [Path(p) for p in extra] + [Path.cwd()]
        if results is not None:
            roots += list(Path(results).resolve().parents)
        return cls(list(dict.fromkeys(r.resolve() for r in roots)))

    def find(self, name: str | None) -> Path | None:
        if not name:
            return None
        path = Path(name)
        if path.is_absolute():
            return path if path.is_file() else None
        for root in self.roots:
            candidate = root / path
            if candidate.is_file():
                return candidate
        return None


def page_names(ids: Iterable[str]) -> dict[str, str]:
    """Bug id -> file name of its page: the id with unsafe characters replaced, numbered on a clash."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for bug_id in dict.fromkeys(ids):
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", bug_id).strip("._") or "bug"
        name, n = f"{stem[:120]}.html", 1
        while name.lower() in taken:
            n += 1
            name = f"{stem[:120]}-{n}.html"
        taken.add(name.lower())
        out[bug_id] = name
    return out


def file_pairs(row: ResultRow) -> list[tuple[str | None, str | None]]:
    """The (buggy, fixed) file pairs of a row: its ``files`` field, else the files its components name.

    The ``files`` field pairs every file classify compared, so a component found on one side only
    (an added preprocessing step or layer has no buggy line) still shows both programs. Rows
    without it (older results) are paired from the components by :func:`pair_component_files`.
    """
    pairs: list[tuple[str | None, str | None]] = []
    for pair in [*(getattr(row, "files", None) or []), *(row.extra.get("files") or [])]:
        if isinstance(pair, dict) and (pair.get("buggy") or pair.get("fixed")):
            pairs.append((pair.get("buggy"), pair.get("fixed")))
    if pairs:
        return list(dict.fromkeys(pairs))
    return pair_component_files([(c.buggy_file, c.fixed_file) for c in row.components])


def pair_component_files(
    named: Sequence[tuple[str | None, str | None]],
) -> list[tuple[str | None, str | None]]:
    """Pair the files components name, as (buggy, fixed).

    A component seen on one side only (no buggy line for an added step) names one file; when
    another component pairs that file it is shown there, else it is paired with the unpaired file
    of the other side of the same name (``buggy/train.py`` with ``fixed/train.py``), else with the
    only unpaired file of the other side. A file left without a partner is on one side only."""
    pairs = list(dict.fromkeys((b, f) for b, f in named if b and f))
    lone_buggy = list(dict.fromkeys(b for b, f in named if b and not f and all(b != p for p, _ in pairs)))
    lone_fixed = list(dict.fromkeys(f for b, f in named if f and not b and all(f != p for _, p in pairs)))
    for b in lone_buggy:
        same = [f for f in lone_fixed if Path(f).name == Path(b).name]
        partner = (
            same[0] if same else lone_fixed[0] if len(lone_fixed) == 1 and len(lone_buggy) == 1 else None
        )
        if partner is not None:
            lone_fixed.remove(partner)
        pairs.append((b, partner))
    pairs += [(None, f) for f in lone_fixed]
    return pairs


# ------------------------------------------------------------------------------------------ pieces


def _e(value: object) -> str:
    return "" if value is None else html.escape(str(value))


def _deepcrime_cell(c: ResultComponent) -> str:
    if c.deepcrime:
        return f"<strong>{_e(c.deepcrime)}</strong>"
    return f'<span class="note">none: {_e(c.reason or "no reason given")}</span>'


def _confidence_cell(c: ResultComponent) -> str:
    level = confidence_of(c)
    reason = component_field(c, "confidence_reason")
    if level is None:
        return '<td class="conf-none"><span class="note">not given</span></td>'
    return (
        f'<td class="conf-{level}" data-sort="{("low", "medium", "high").index(level)}">{level}'
        + (f'<br><span class="note">{_e(reason)}</span>' if reason else "")
        + "</td>"
    )


def _change_cell(c: ResultComponent) -> str:
    before = "<em>(none)</em>" if c.before is None else f"<code>{_e(c.before)}</code>"
    after = "<em>(none)</em>" if c.after is None else f"<code>{_e(c.after)}</code>"
    resolved = component_field(c, "resolved")
    extra = ""
    if isinstance(resolved, dict) and resolved:
        extra = f'<br><span class="note">values: {_e(resolved.get("before"))} &rarr; {_e(resolved.get("after"))}</span>'
    return f"{before} &rarr; {after}{extra}"


def _where_cell(number: int, side: str, file: str | None, line: int | None, placed: set[str]) -> str:
    if line is None:
        return '<span class="note">&ndash;</span>'
    anchor = f"c{number}-{side}"
    name = Path(file).name if file else "?"
    if anchor in placed:
        return f'<a href="#{anchor}">{_e(name)}:{line}</a>'
    return f'{_e(name)}:{line} <span class="note">(not shown: source not found or line outside it)</span>'


def _components_table(row: ResultRow, placed: set[str]) -> str:
    if not row.components:
        what = "no component (order 0: nothing left after the noise rules)" if row.ok else "no component"
        return f'<p class="note">{what}.</p>'
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "#",
            "code",
            "taxonomy leaf",
            "DeepCrime",
            "confidence",
            "made by",
            "element",
            "change",
            "buggy",
            "fixed",
        )
    )
    body = []
    for n, c in enumerate(row.components, 1):
        leaf = _e(c.taxonomy) + (f' <span class="note">{_e(c.taxonomy_id)}</span>' if c.taxonomy_id else "")
        if c.category:
            leaf += f'<br><span class="note">{_e(c.category)}</span>'
        body.append(
            f'<tr id="comp-{n}" data-comp="{n}"><td class="num">{n}</td><td><strong>{_e(c.code)}</strong></td>'
            f"<td>{leaf or '<span class=note>unknown code</span>'}</td><td>{_deepcrime_cell(c)}</td>"
            f"{_confidence_cell(c)}<td>{_e(made_by(c)) or '<span class=note>not given</span>'}</td>"
            f"<td><code>{_e(c.element)}</code></td><td>{_change_cell(c)}</td>"
            f"<td>{_where_cell(n, 'buggy', c.buggy_file, c.buggy_line, placed)}</td>"
            f"<td>{_where_cell(n, 'fixed', c.fixed_file, c.fixed_line, placed)}</td></tr>"
        )
    return (
        f'<table class="data components"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


def _labels_table(row: ResultRow, label_sets: Sequence[LabelSet]) -> str:
    predicted = Counter(row.codes) if row.ok else Counter()
    lines = [
        "<tr><td>classify</td><td>"
        + (_e(", ".join(row.codes)) or '<span class="note">none</span>')
        + "</td><td></td><td></td><td></td></tr>"
    ]
    for s in label_sets:
        bug = s.by_id.get(row.id)
        if bug is None:
            lines.append(f'<tr><td>{_e(s.name)}</td><td colspan="4" class="note">not labelled</td></tr>')
            continue
        labelled = Counter(bug.codes)
        matched = labelled & predicted
        only_reader = sorted((labelled - predicted).elements())
        only_classify = sorted((predicted - labelled).elements())
        lines.append(
            f"<tr><td>{_e(s.name)}</td><td>{_e(bug.codes_text()) or '<span class=note>none</span>'}</td>"
            f'<td class="num">{sum(matched.values())}</td><td>{_e(", ".join(only_reader))}</td>'
            f"<td>{_e(', '.join(only_classify))}</td></tr>"
        )
    return (
        '<table class="labels"><thead><tr><th>reader</th><th>codes</th><th>matched with classify</th>'
        "<th>only this reader</th><th>only classify</th></tr></thead><tbody>"
        + "".join(lines)
        + "</tbody></table>"
    )


def _list_table(items: Sequence[object], empty: str) -> str:
    """A list of dicts (or plain values) from the results row as a table of their keys."""
    if not items:
        return f'<p class="note">{empty}</p>'
    dicts = [i if isinstance(i, dict) else {"value": i} for i in items]
    columns = list(dict.fromkeys(k for d in dicts for k in d))
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(d.get(c))}</td>" for c in columns) + "</tr>" for d in dicts)
    return f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def explained_cell(row: ResultRow) -> str:
    """``9/10`` changed statements explained, or empty where the row does not say."""
    if not row.ok or row.changed_statements is None or row.explained_statements is None:
        return ""
    return f"{row.explained_statements}/{row.changed_statements}"


def _coverage_section(row: ResultRow) -> str:
    """The statement diff's figure and every unexplained change (file, line, text, what it touches)."""
    if not row.ok or row.changed_statements is None:
        return '<p class="note">Not measured: the results row was written before classify read the statement diff.</p>'
    noise = ", ".join(f"{k} {n}" for k, n in row.noise_statements.items())
    figure = (
        f"<p>{row.explained_statements} of {row.changed_statements} changed statements are explained "
        "by a fault component" + (f"; taken out by the noise rules: {_e(noise)}" if noise else "") + ".</p>"
    )
    columns = ("file", "line", "change", "touches", "best_code", "before", "after")
    items = [{k: u.get(k) for k in columns} for u in row.unexplained]
    return figure + _list_table(items, "Every changed statement is explained.")


def _noise_hits(row: ResultRow) -> list[object]:
    """Noise-rule hits, under whichever name the results row gives them."""
    for name in ("noise", "noise_hits", "noise_rules", "dropped"):
        value = row.extra.get(name)
        if isinstance(value, list):
            return value
    return []


def _read_lines(path: Path) -> list[str] | str:
    """The file's lines, or why it cannot be shown."""
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            return f"{path} is {size} bytes, too large to show"
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"cannot read {path}: {exc}"


def _marks(row: ResultRow, side: str, file: str | None) -> dict[int, list[Mark]]:
    out: dict[int, list[Mark]] = {}
    if file is None:
        return out
    for n, c in enumerate(row.components, 1):
        c_file = c.buggy_file if side == "buggy" else c.fixed_file
        line = c.buggy_line if side == "buggy" else c.fixed_line
        if c_file == file and isinstance(line, int):
            title = f"{c.code}: {c.taxonomy or ''} ({c.element or ''})"
            out.setdefault(line, []).append(Mark(n, c.code, title, f"c{n}-{side}", side))
    return out


def _pair_section(
    row: ResultRow, buggy: str | None, fixed: str | None, finder: SourceFinder, placed: set[str]
) -> str:
    notes, sides = [], []
    for side, name in (("buggy", buggy), ("fixed", fixed)):
        if name is None:
            notes.append(f"No {side} file: this file is on one side only.")
            sides.append([])
            continue
        found = finder.find(name)
        lines = _read_lines(found) if found else None
        if lines is None or isinstance(lines, str):
            looked = ", ".join(str(r) for r in finder.roots[:4]) + (" ..." if len(finder.roots) > 4 else "")
            why = (
                lines
                if isinstance(lines, str)
                else f"{name} not found (looked under {looked}; give --sources DIR)"
            )
            notes.append(f"The {side} program is not shown: {why}.")
            sides.append(None)
            continue
        sides.append(lines)
    marks_a = _marks(row, "buggy", buggy) if sides[0] is not None else {}
    marks_b = _marks(row, "fixed", fixed) if sides[1] is not None else {}
    if sides[0] is None and sides[1] is None:
        body = ""
    else:
        a_lines, b_lines = sides[0] or [], sides[1] or []
        marks_a = {k: v for k, v in marks_a.items() if 1 <= k <= len(a_lines)}
        marks_b = {k: v for k, v in marks_b.items() if 1 <= k <= len(b_lines)}
        body = diff_html(a_lines, b_lines, marks_a, marks_b)
    for marks in (marks_a, marks_b):
        placed.update(m.anchor for ms in marks.values() for m in ms)
    note_html = "".join(f'<p class="missing">{_e(n)}</p>' for n in notes)
    return (
        f'<div class="filepair"><h3><span>buggy: {_e(buggy or "(none)")}</span>'
        f"<span>fixed: {_e(fixed or '(none)')}</span></h3>{note_html}{body}</div>"
    )


# -------------------------------------------------------------------------------------------- page


def render_bug_page(
    row: ResultRow,
    finder: SourceFinder,
    label_sets: Sequence[LabelSet] = (),
    report_href: str = "../report.html",
    extra: str = "",
) -> str:
    """The page of one bug (self-contained HTML, inline styles and script); ``extra`` is HTML shown
    before the programs (the bug's reproduction runs and mutants, see :mod:`mutreal.report.campaigns`)."""
    placed: set[str] = set()
    pairs = file_pairs(row)
    programs = [_pair_section(row, b, f, finder, placed) for b, f in pairs]
    if not pairs:
        programs = ['<p class="missing">The results row names no file, so no program is shown.</p>']
    status = "ok" if row.ok else f"{row.status}: {row.error or ''}"
    meta = [
        f"<span>benchmark <strong>{_e(row.benchmark or '(none)')}</strong></span>",
        f"<span>status <strong>{_e(status)}</strong></span>",
        f"<span>order <strong>{row.order}</strong></span>",
        f"<span>DeepCrime can simulate every component: <strong>{'yes' if row.simulable else 'no'}</strong></span>",
    ]
    if row.opaque_share:
        meta.append(f"<span>opaque share {row.opaque_share:.0%}</span>")
    era = row.era or {}
    if era:
        meta.append(f"<span>era {_e(era.get('buggy'))} &rarr; {_e(era.get('fixed'))}</span>")
    labels = ""
    if label_sets:
        labels = "<h2>Labels beside the predicted codes</h2>" + _labels_table(row, label_sets)
    components = _components_table(row, placed)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(row.id)} - mutreal</title><style>{CSS}{BUG_CSS}</style></head><body>\n"
        f'<p><a href="{_e(report_href)}">&larr; report</a></p>\n'
        f"<h1>{_e(row.id)}</h1>\n"
        f'<p class="meta">{"".join(meta)}</p>\n'
        f"<h2>Fault components</h2>\n{components}\n{labels}\n"
        "<h2>Lines set aside</h2>\n"
        + _list_table(row.set_aside, "No line was set aside: every line of both programs parsed.")
        + "\n<h2>Changed statements explained</h2>\n"
        + _coverage_section(row)
        + "\n<h2>Noise-rule hits</h2>\n"
        + _list_table(_noise_hits(row), "The results row records no noise-rule hit.")
        + (f"\n{extra}" if extra else "")
        + "\n<h2>Programs (buggy left, fixed right)</h2>\n"
        + "\n".join(programs)
        + f"\n{script_tag()}</body></html>\n"
    )


def write_bug_pages(
    rows: Sequence[ResultRow],
    out_dir: str | Path,
    finder: SourceFinder,
    label_sets: Sequence[LabelSet] = (),
    extra: dict[str, str] | None = None,
) -> dict[str, Path]:
    """Write ``bugs/<page>.html`` for every row under ``out_dir``; returns bug id -> path.
    ``extra``: bug id -> HTML sections added to its page."""
    folder = Path(out_dir) / PAGES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    names = page_names(r.id for r in rows)
    written: dict[str, Path] = {}
    for row in rows:
        path = folder / names[row.id]
        html_text = render_bug_page(row, finder, label_sets, extra=(extra or {}).get(row.id, ""))
        path.write_text(html_text, encoding="utf-8")
        written[row.id] = path
    return written


@dataclass
class BugPages:
    """What the per-bug pages need: the rows, where their sources are, and the readers' labels."""

    rows: list[ResultRow]
    finder: SourceFinder
    label_sets: list[LabelSet] = field(default_factory=list)
    #: bug id -> HTML sections added to its page (campaign results)
    extra: dict[str, str] = field(default_factory=dict)

    def names(self) -> dict[str, str]:
        return page_names(r.id for r in self.rows)

    def hrefs(self) -> dict[str, str]:
        """Bug id -> link to its page, relative to the report folder."""
        return {bug_id: f"{PAGES_DIR}/{name}" for bug_id, name in self.names().items()}

    def index_table(self) -> Table:
        """Every bug, one row each, for the report's bug list (its ids link to the pages)."""
        columns = ["id", "benchmark", "status", "order", "codes", "DeepCrime", "confidence", "explained"]
        columns += [f"codes ({s.name})" for s in self.label_sets]
        rows = []
        for row in self.rows:
            levels = Counter(level_name(c) for c in row.components)
            confidence = " ".join(
                f"{level}:{levels[level]}" for level in (*reversed(LEVELS), UNKNOWN) if levels[level]
            )
            labelled = []
            for s in self.label_sets:
                bug = s.by_id.get(row.id)
                labelled.append("(not labelled)" if bug is None else ", ".join(bug.codes))
            rows.append(
                [
                    row.id,
                    row.benchmark or "",
                    row.status if row.ok else f"{row.status}: {row.error or ''}",
                    row.order,
                    ", ".join(row.codes),
                    ", ".join(c.deepcrime or "-" for c in row.components),
                    confidence,
                    explained_cell(row),
                    *labelled,
                ]
            )
        note = "Each id links to the bug's page: its components at their lines in the two programs."
        return Table("bugs", "Every bug", columns, rows, note)

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        return write_bug_pages(self.rows, out_dir, self.finder, self.label_sets, self.extra)
