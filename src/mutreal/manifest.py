"""Reading a manifest CSV: the list of bugs that classify, validate-operators and correspond work on.

A manifest has one bug a row: ``id,benchmark,buggy,fixed`` and optional columns (``source_buggy``,
``source_fixed``, ``dataset``... as :mod:`mutreal.study.layouts` writes them); ``;`` separates the files
of one side, and relative paths are relative to the manifest's folder, so a manifest and its
programs can be moved together. Every command reads it here, so that the encoding (a BOM from a
spreadsheet), the missing-column messages and the path rules are the same everywhere.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: the columns without which a file is not a manifest
REQUIRED_COLUMNS = ("id", "buggy", "fixed")


class ManifestError(ValueError):
    """A manifest that cannot be used at all (unreadable, not UTF-8, missing columns)."""


def split_files(cell: str | None) -> list[str]:
    """A ``;``-separated cell as its file names (blank parts dropped)."""
    return [p.strip() for p in (cell or "").split(";") if p.strip()]


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
    rows = [
        ManifestRow(
            row["id"],
            row.get("benchmark") or None,
            resolve_files(row["buggy"], base),
            resolve_files(row["fixed"], base),
            cells={k: v for k, v in row.items() if isinstance(k, str) and isinstance(v, str)},
            base=str(base),
        )
        for row in reader
    ]
    return Manifest(path, columns, rows)


def read_manifest(path: str | Path) -> list[ManifestRow]:
    """The rows of a manifest CSV (see :func:`load_manifest`)."""
    return load_manifest(path).rows
