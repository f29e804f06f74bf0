"""The manifest CSV, read and written: the list of bugs every command that takes ``--manifest`` works on
(classify, validate-operators, correspond, run, reproduce, compare) and ``mutreal manifest`` writes.

A manifest has one bug a row: ``id,benchmark,buggy,fixed`` and optional columns (``source_buggy``,
``source_fixed``, ``dataset``... as :mod:`mutreal.study.layouts` writes them); ``;`` separates the files
of one side, and relative paths are relative to the manifest's folder, so a manifest and its
programs can be moved together. ``args`` is the command line the benchmark runs a bug's programs
with (``20 30``, shell-quoted: ``--name "a b"``); ``args_buggy`` / ``args_fixed`` give one side its
own. Real programs read ``sys.argv`` (Defects4ML's ``gol.py`` reads a board size from it) and crash
without it, so the runners give each program its row's arguments (:func:`program_args`). Every command reads it here, so that the encoding (a BOM from a
spreadsheet), the missing-column messages and the path rules are the same everywhere.
"""

from __future__ import annotations

import csv
import io
import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

#: the columns a manifest is written with, in this order; ``benchmark`` may be absent from one written by hand
COLUMNS = ("id", "benchmark", "buggy", "fixed")
#: the columns without which a file is not a manifest
REQUIRED_COLUMNS = ("id", "buggy", "fixed")
#: the column of a bug's command-line arguments; ``args_<side>`` overrides it for one side
ARGS_COLUMN = "args"
SIDES = ("buggy", "fixed")
#: optional columns ``mutreal manifest`` writes (after :data:`COLUMNS`, only when some row has a value);
#: reproduce also reads ``metric``, ``lower_is_better`` and ``entry``, which people add by hand
OPTIONAL_COLUMNS = (
    "source", "symptom", "dataset", "bug_type", "source_buggy", "source_fixed",
    ARGS_COLUMN, f"{ARGS_COLUMN}_buggy", f"{ARGS_COLUMN}_fixed",
)  # fmt: skip
#: optional columns that hold file paths (relative ones resolve like ``buggy`` and ``fixed``)
PATH_COLUMNS = ("source_buggy", "source_fixed")
#: what separates the files of one side (a multi-file program) in a path cell
FILE_SEPARATOR = ";"


class ManifestError(ValueError):
    """A manifest that cannot be used at all (unreadable, not UTF-8, missing columns)."""


def split_files(cell: str | None) -> list[str]:
    """A ``;``-separated cell as its file names (blank parts dropped)."""
    return [p.strip() for p in (cell or "").split(FILE_SEPARATOR) if p.strip()]


def join_files(paths: Iterable[str]) -> str:
    """File names as one path cell (the inverse of :func:`split_files`)."""
    return FILE_SEPARATOR.join(paths)


@dataclass
class ManifestRow:
    """One bug of a manifest, paths resolved against the manifest's folder."""

    id: str
    benchmark: str | None
    buggy: list[str]
    fixed: list[str]
    #: every cell of the row as written (the optional columns included), paths not resolved
    cells: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: the manifest's folder, against which relative paths of other columns resolve
    base: str = field(default="", compare=False, repr=False)

    def files(self, column: str) -> list[str]:
        """The files of a path column (``source_buggy``...), resolved like ``buggy`` and ``fixed``."""
        return resolve_files(self.cells.get(column), Path(self.base))

    def args(self, side: str) -> list[str] | None:
        """The command-line arguments of ``side``'s program (:func:`args_of` its cells)."""
        return args_of(self.cells, side)


def args_of(cells: Mapping[str, object], side: str) -> list[str] | None:
    """The command-line arguments a manifest row (its cells by column) gives ``side``'s program: its
    ``args_<side>`` cell, else ``args``; None when the row gives none (a blank cell gives none: ``""``
    is written ``''``); :class:`ManifestError` when the quoting does not close."""
    for column in (f"{ARGS_COLUMN}_{side}", ARGS_COLUMN):
        cell = cells.get(column)
        if isinstance(cell, str) and cell.strip():
            return split_args(cell)
    return None


def split_args(cell: str) -> list[str]:
    """An ``args`` cell as its arguments (shell quoting: ``--name "a b"`` is two arguments);
    :class:`ManifestError` when the quoting does not close."""
    try:
        return shlex.split(cell)
    except ValueError as exc:
        raise ManifestError(f"arguments {cell!r} cannot be split ({exc})") from None


def join_args(args: Iterable[str]) -> str:
    """Arguments as an ``args`` cell (the inverse of :func:`split_args`)."""
    return shlex.join(list(args))


def resolve_files(cell: str | None, base: Path) -> list[str]:
    """The files of a cell, relative ones joined to ``base`` (absolute ones kept)."""
    return [p if os.path.isabs(p) else str(base / p) for p in split_files(cell)]


@dataclass
class Manifest:
    """A read manifest: its rows in file order and the columns it has."""

    path: Path
    columns: list[str]
    rows: list[ManifestRow]

    def has_any(self, names: Iterable[str]) -> bool:
        """Whether the manifest has at least one of the columns ``names``."""
        return bool(set(names) & set(self.columns))

    def program_args(self) -> dict[str, list[str]]:
        """Every program of the manifest that has arguments -> its arguments (each file of a side:
        the one that runs is not known here), for a campaign's ``program_args``."""
        found: dict[str, list[str]] = {}
        for row in self.rows:
            for side in SIDES:
                args = row.args(side)
                if args is not None:
                    found.update({path: args for path in getattr(row, side)})
        return found


def load_manifest(path: str | Path) -> Manifest:
    """Read a manifest CSV; :class:`ManifestError` (with the file's name and why) when unusable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read manifest ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ManifestError(
            f"{path}: manifest is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = list(reader.fieldnames or [])
    missing = set(REQUIRED_COLUMNS) - set(columns)
    if missing:
        raise ManifestError(f"{path}: manifest lacks column(s) {', '.join(sorted(missing))}")
    base = path.parent
    raw = list(reader)
    for row in raw:  # bad quoting is an error of the file, said before anything runs
        for column in (ARGS_COLUMN, *(f"{ARGS_COLUMN}_{side}" for side in SIDES)):
            if isinstance(row.get(column), str):
                try:
                    split_args(row[column])
                except ManifestError as exc:
                    raise ManifestError(f"{path}: bug {row.get('id')}: {column}: {exc}") from None
    rows = [
        ManifestRow(
            row["id"],
            row.get("benchmark") or None,
            resolve_files(row["buggy"], base),
            resolve_files(row["fixed"], base),
            cells={k: v for k, v in row.items() if isinstance(k, str) and isinstance(v, str)},
            base=str(base),
        )
        for row in raw
    ]
    return Manifest(path, columns, rows)


def read_manifest(path: str | Path) -> list[ManifestRow]:
    """The rows of a manifest CSV (see :func:`load_manifest`)."""
    return load_manifest(path).rows


def program_args(path: str | Path) -> dict[str, list[str]]:
    """The command-line arguments of every program of a manifest that has some (path -> arguments)."""
    return load_manifest(path).program_args()


def write_rows(rows: Iterable[Mapping[str, str]], handle: TextIO) -> None:
    """Manifest rows (cells by column) as CSV on an open text stream: :data:`COLUMNS` first, then the
    :data:`OPTIONAL_COLUMNS` some row fills, in their order. Written as UTF-8 without a byte-order mark
    by :func:`write_manifest`; :func:`load_manifest` reads either."""
    rows = list(rows)
    columns = list(COLUMNS) + [c for c in OPTIONAL_COLUMNS if any(r.get(c) for r in rows)]
    writer = csv.DictWriter(handle, columns, extrasaction="ignore", lineterminator="\n", restval="")
    writer.writeheader()
    writer.writerows(rows)


def write_manifest(rows: Iterable[Mapping[str, str]], path: str | Path) -> None:
    """Write manifest rows to ``path`` (its folder made), see :func:`write_rows`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        write_rows(rows, handle)
