"""The Python API: what the commands do, as functions whose results become pandas DataFrames.

Why a separate layer: the commands print text and write files, which suits a shell but not a
notebook, where one wants to classify a corpus, filter the components, mutate a subject and look at
the mutants without reading JSON back. Each function here calls the same code as its command
(``classify``, ``mutate``, ``hom-generate``, ``report``), so a figure computed in a notebook is the
figure the command prints, and returns a typed result with ``.to_frame()``. The functions are
named apart from the package's modules (``classify_pair``, not ``classify``, which is the module
:mod:`mutreal.label.classify`), so that ``mutreal.<name>`` always means one thing:

- :func:`classify_pair` / :func:`classify_manifest` / :func:`read_results` -> :class:`Classified`:
  ``to_frame()`` one row per fault component, ``to_frame("bug")`` one row per bug;
- :func:`mutate_program` -> :class:`Mutants`: one row per mutant (and per mutant that could not be made);
- :func:`hom_generate` -> :class:`Homs`: one row per higher-order mutant;
- :func:`report_on` -> :class:`ReportTables`: one DataFrame per report table.

pandas is imported only by ``to_frame``, so importing this module stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mutreal import API_NAMES
from mutreal.results import BugResult, ReadProblem

if TYPE_CHECKING:
    import pandas as pd

    from mutreal.mutation.hom import HomReport
    from mutreal.mutation.mutate import Failure
    from mutreal.mutation.operators import Mutant
    from mutreal.report.build import Report

__all__ = list(API_NAMES)

PathLike = str | os.PathLike[str]

#: columns of a bug that the per-component frame repeats on each of its components
_BUG_COLUMNS = ("id", "benchmark", "status", "error", "order", "simulable")


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(rows, columns=list(columns)) if not rows else pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------- classify


@dataclass
class Classified:
    """Classified bugs (the rows of a results JSONL) and the lines that could not be read."""

    bugs: list[BugResult]
    problems: list[ReadProblem] = field(default_factory=list)

    def __iter__(self) -> Iterator[BugResult]:
        return iter(self.bugs)

    def __len__(self) -> int:
        return len(self.bugs)

    def to_frame(self, per: str = "component") -> pd.DataFrame:
        """``per="component"``: a row per fault component, with its bug's id, benchmark and status
        first (a bug without components gives no row); ``per="bug"``: a row per bug, with its codes
        joined by spaces and its components' count."""
        if per == "bug":
            rows = [
                {
                    **{name: getattr(bug, name) for name in _BUG_COLUMNS},
                    "codes": " ".join(bug.codes),
                    "opaque_share": bug.opaque_share,
                }
                for bug in self.bugs
            ]
            return _frame(rows, [*_BUG_COLUMNS, "codes", "opaque_share"])
        if per != "component":
            raise ValueError(f"per must be 'component' or 'bug', not {per!r}")
        rows = []
        for bug in self.bugs:
            head = {f"bug_{name}" if name != "id" else "bug": getattr(bug, name) for name in _BUG_COLUMNS[:3]}
            for component in bug.components:
                row = {**head, **component.to_dict()}
                row["resolved"] = dict(component.resolved)
                rows.append(row)
        return _frame(rows, ["bug", "bug_benchmark", "bug_status", "code"])

    def write(self, path: PathLike) -> Path:
        """Write the bugs as a results JSONL (the bytes ``mutreal classify --manifest`` writes)."""
        from mutreal.results import write_results

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w", encoding="utf-8") as out:
            write_results(self.bugs, out)
        return target


def classify_pair(
    buggy: PathLike | list[str],
    fixed: PathLike | list[str],
    *,
    bug_id: str | None = None,
    tolerant: bool = False,
) -> Classified:
    """Classify one bug (files, ``;``-lists or folders of each side). A bug that cannot be
    classified is an error row with the reason, as in a manifest run, not an exception."""
    from mutreal.label.classify import classify_safely

    sides = [s if isinstance(s, list) else os.fspath(s) for s in (buggy, fixed)]
    name = bug_id or f"{sides[0]} -> {sides[1]}"
    return Classified([classify_safely(sides[0], sides[1], bug_id=name, tolerant=tolerant)])


def classify_manifest(manifest: PathLike, *, jobs: int = 1, tolerant: bool = True) -> Classified:
    """Classify every bug of a manifest CSV, in manifest order (``jobs`` > 1: worker processes).
    An unusable manifest raises :class:`mutreal.manifest.ManifestError`; a bad bug is an error row."""
    from mutreal.label.classify import iter_classify_manifest

    return Classified(list(iter_classify_manifest(manifest, jobs=jobs, tolerant=tolerant, progress=False)))


def read_results(path: PathLike) -> Classified:
    """Read a results JSONL back (unreadable lines are in ``problems``, not raised)."""
    from mutreal.results import read_results as read

    problems: list[ReadProblem] = []
    return Classified(read(os.fspath(path), problems), problems)


# ------------------------------------------------------------------------------------------ mutate


@dataclass
class Mutants:
    """First-order mutants of a program (in memory, and on disk when written) and the failures."""

    mutants: list[Mutant]
    failures: list[Failure] = field(default_factory=list)
    files: list[str | None] = field(default_factory=list)

    def __iter__(self) -> Iterator[Mutant]:
        return iter(self.mutants)

    def __len__(self) -> int:
        return len(self.mutants)

    def to_frame(self) -> pd.DataFrame:
        """A row per mutant: its name, operator, site, element, old and new text, value and file;
        then a row per mutant that could not be made, with ``error`` saying why."""
        rows: list[dict[str, Any]] = []
        for i, mutant in enumerate(self.mutants):
            prov = mutant.provenance.to_dict()
            rows.append(
                {
                    "mutant": mutant.name,
                    **{k: prov[k] for k in ("operator", "site", "element", "old", "new", "value")},
                    "file": self.files[i] if i < len(self.files) else None,
                    "error": None,
                }
            )
        rows += [{"mutant": None, **failure.to_dict()} for failure in self.failures]
        return _frame(rows, ["mutant", "operator", "site", "element", "old", "new", "value", "file", "error"])


def mutate_program(
    program: PathLike,
    operator: str,
    *,
    site: int | None = None,
    value: Any = None,
    all_values: bool = False,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    out_dir: PathLike | None = None,
) -> Mutants:
    """Mutants of ``program`` by one operator (as ``mutreal mutate``: one site and value, or every
    site and catalogue value with ``all_values``); written with their provenance JSON into
    ``out_dir`` when given, else kept in memory only."""
    from mutreal.mutation.mutate import mutate_file

    report = mutate_file(
        os.fspath(program),
        operator,
        out_dir=os.fspath(out_dir) if out_dir is not None else None,
        site=site,
        value=value,
        all_values=all_values,
        seed=seed,
        options=options,
    )
    files = [row["mutant"] for row in report.written] if out_dir is not None else [None] * len(report.mutants)
    # equivalent mutants (not written) are listed with the failures, their error saying why
    return Mutants(report.mutants, [*report.failures, *report.equivalent], files)


# ------------------------------------------------------------------------------------ hom-generate


@dataclass
class Homs:
    """Higher-order mutants built from real fault combinations (:class:`mutreal.mutation.hom.HomReport`)."""

    report: HomReport

    def __len__(self) -> int:
        return len(self.report.homs)

    def to_frame(self) -> pd.DataFrame:
        """A row per HOM: rank, order, codes of the combination, its support, operators and file."""
        rows = [
            {
                "rank": hom.rank,
                "order": hom.order,
                "codes": " ".join(sorted(hom.codes)),
                "support": hom.support,
                "operators": " ".join(p.operator for p in hom.provenance.parts),
                "mutant": hom.provenance.mutant,
                "file": hom.file,
            }
            for hom in self.report.homs
        ]
        return _frame(rows, ["rank", "order", "codes", "support", "operators", "mutant", "file"])

    def skipped_frame(self) -> pd.DataFrame:
        """A row per combination that gave no HOM, with the reason."""
        rows = [s.to_dict() for s in self.report.skipped]
        return _frame(rows, ["codes", "support", "reason"])


def hom_generate(
    subject: PathLike,
    *,
    results: PathLike | Classified | Iterable[BugResult] | None = None,
    orders: Sequence[int] = (2, 3, 4),
    top: int | None = 10,
    seed: int = 0,
    out_dir: PathLike | None = None,
) -> Homs:
    """HOMs of ``subject`` following the fault combinations of ``results`` (a results JSONL or
    classified bugs; None: the shipped table), as ``mutreal hom-generate``."""
    from mutreal.mutation.hom import hom_generate as build

    rows = results.bugs if isinstance(results, Classified) else results
    out = os.fspath(out_dir) if out_dir is not None else None
    return Homs(build(os.fspath(subject), results=rows, orders=orders, top=top, seed=seed, out_dir=out))


# ------------------------------------------------------------------------------------------ report


@dataclass
class ReportTables:
    """The report of ``mutreal report`` (:class:`mutreal.report.build.Report`), table by table."""

    report: Report

    @property
    def names(self) -> list[str]:
        """The tables' names, in the order the report prints them."""
        return [t.name for t in self.report.tables]

    def summary(self) -> dict[str, Any]:
        """The headline figures the command prints (bugs, RSB, RSFC...)."""
        return self.report.summary()

    def to_frame(self, table: str = "table3_order") -> pd.DataFrame:
        """One table of the report as a DataFrame (see :attr:`names`)."""
        found = self.report.table(table)
        if found is None:
            raise KeyError(f"no table {table!r}; the report has {', '.join(self.names)}")
        return _frame(found.records(), found.columns)

    def write(self, out_dir: PathLike, plots: bool = False) -> dict[str, Path]:
        """Write report.md/html/json and tables/*.csv (and plots) as ``mutreal report --out``."""
        from mutreal.report.render import write_report

        return write_report(self.report, out_dir, plots=plots)


def report_on(
    source: PathLike | Classified, *, title: str | None = None, min_support: int | None = None
) -> ReportTables:
    """The report on a results JSONL, a labels CSV or classified bugs in memory."""
    from mutreal.report.build import build_report, report_from_file

    if isinstance(source, Classified):
        from mutreal.report.tables import bugs_from_results

        built = build_report(
            bugs_from_results(source.bugs),
            source="classified bugs",
            problems=source.problems,
            title=title,
            min_support=min_support,
        )
    else:
        built = report_from_file(os.fspath(source), title=title, min_support=min_support)
    return ReportTables(built)
