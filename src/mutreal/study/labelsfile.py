"""Reading manual fault labels in the realism study's format, and classify's results JSONL.

The study wrote its labels by hand in a spreadsheet, so the cells are sloppy in ways that matter:
codes are comma-separated and repeated (``"ACH, ACH, HLR"``: a bug with two activation changes),
a code may carry a note in parentheses (``"LRM (flatten layer)"``, ``"CPP(need to expand dims)"``),
some components were written as free text for a listed code (``"Wrong kernel size"`` is ``LCF``),
and the DeepCrime flags (``is_mutant``) are Y/N per code in the same order with commas, dots or
semicolons between them (``"N,N.N.Y"``). This module reads them exactly as the study's scoring
script (``shared/tools/score_classify.py``) does, so that every figure computed from a
:class:`LabelledBug` matches that script, but keeps the notes, which the script throws away.

Classify's results JSONL is read by :mod:`mutreal.results`, the module that writes it; its names are
re-exported here (``ResultRow`` is ``BugResult``) for callers that read labels and results together.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mutreal.results import (
    BugResult,
    ComponentResult,
    ReadProblem,
    iter_results,
    read_results,
    results_by_id,
)
from mutreal.serialise import Record

__all__ = [
    "ALIASES",
    "LabelledBug",
    "LabelledCode",
    "LabelsFormatError",
    "ReadProblem",
    "ResultComponent",
    "ResultRow",
    "is_labels_file",
    "iter_results",
    "parse_codes",
    "parse_flags",
    "parse_yes_no",
    "read_labels",
    "read_results",
    "results_by_id",
    "unknown_codes",
]

#: free-text labels the study used for a listed code (upper-cased text -> code)
ALIASES: dict[str, str] = {"WRONG KERNEL SIZE": "LCF"}

#: a note in parentheses; the same pattern as the scoring script (no nesting, first ``)`` closes)
_NOTE = re.compile(r"\([^)]*\)")
_FLAG_SEPARATORS = re.compile(r"[,.;]")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


class LabelsFormatError(ValueError):
    """A labels or results file that cannot be read at all (missing columns, not CSV/JSON)."""


@dataclass(frozen=True)
class LabelledCode:
    """One labelled fault component: its code and the labeller's note, if any."""

    code: str
    note: str | None = None

    def __str__(self) -> str:
        return f"{self.code} ({self.note})" if self.note else self.code


def parse_codes(cell: str | None) -> list[LabelledCode]:
    """``"ACH, LRM (flatten layer)"`` -> ``[ACH, LRM with note "flatten layer"]``.

    Codes are what the scoring script's ``codes_of`` returns for the same cell (same order, same
    upper-casing, same aliases); notes are the parenthesised texts of each comma-separated part.
    A note standing alone (``"ACH, (see post)"``) has no code: the script drops it, so it is
    attached to the code before it rather than counted.
    """
    text = cell or ""
    notes: list[str] = []

    def hide(match: re.Match[str]) -> str:
        notes.append(match.group(0)[1:-1].strip())
        return f"\x00{len(notes) - 1}\x00"

    hidden = _NOTE.sub(hide, text)
    out: list[LabelledCode] = []
    for part in hidden.split(","):
        part_notes = [notes[int(i)] for i in _PLACEHOLDER.findall(part)]
        note = "; ".join(n for n in part_notes if n) or None
        code = _PLACEHOLDER.sub("", part).strip().upper()
        if code:
            out.append(LabelledCode(ALIASES.get(code, code), note))
        elif note and out:
            previous = out[-1]
            out[-1] = LabelledCode(previous.code, "; ".join(n for n in (previous.note, note) if n))
    return out


def parse_flags(cell: str | None, n: int) -> tuple[bool, ...] | None:
    """``"N,N.N.Y"`` -> ``(False, False, False, True)`` when it holds exactly ``n`` flags, else None.

    As in the scoring script, each flag is the first letter of a separated item and only ``Y``
    means "DeepCrime can simulate it"; a count that does not match the codes means the flags are
    unusable for that bug (None), not that they are all False.
    """
    items = [x.strip().upper()[:1] for x in _FLAG_SEPARATORS.split(cell or "") if x.strip()]
    if len(items) != n:
        return None
    return tuple(item == "Y" for item in items)


def parse_yes_no(cell: str | None) -> bool | None:
    """``Y``/``yes``/``true``/``1`` -> True, ``N``/``no``/``false``/``0`` -> False, blank or other -> None."""
    value = (cell or "").strip().lower()
    if value in {"y", "yes", "true", "1"}:
        return True
    if value in {"n", "no", "false", "0"}:
        return False
    return None


@dataclass
class LabelledBug(Record):
    """One row of a labels file: a bug's manual fault components and DeepCrime flags."""

    id: str
    codes: list[str]
    flags: list[bool] | None = None
    notes: list[str | None] = field(default_factory=list)
    benchmark: str | None = None
    realistic: bool | None = None
    symptom: str | None = None
    raw_codes: str = ""
    raw_flags: str = ""

    @property
    def order(self) -> int:
        """Number of labelled fault components."""
        return len(self.codes)

    @property
    def simulable(self) -> bool | None:
        """All components flagged Y (the study's RSB numerator); None when the flags are unusable."""
        if self.flags is None:
            return None
        return bool(self.codes) and all(self.flags)

    def labelled_codes(self) -> list[LabelledCode]:
        """The codes with their notes, in label order."""
        notes = self.notes or [None] * len(self.codes)
        return [LabelledCode(c, n) for c, n in zip(self.codes, notes, strict=False)]

    def codes_text(self) -> str:
        """The codes written back in the study's format, notes included."""
        return ", ".join(str(c) for c in self.labelled_codes())

    @classmethod
    def from_row(cls, row: dict[str, str | None]) -> LabelledBug:
        """A labels-CSV row (``id,codes,is_mutant[,benchmark][,realistic][,symptom]``) -> bug."""
        raw_codes = row.get("codes") or ""
        raw_flags = row.get("is_mutant") or ""
        parsed = parse_codes(raw_codes)
        flags = parse_flags(raw_flags, len(parsed))
        return cls(
            id=(row.get("id") or "").strip(),
            codes=[p.code for p in parsed],
            flags=None if flags is None else list(flags),
            notes=[p.note for p in parsed],
            benchmark=(row.get("benchmark") or "").strip() or None,
            realistic=parse_yes_no(row.get("realistic")),
            symptom=(row.get("symptom") or "").strip() or None,
            raw_codes=raw_codes,
            raw_flags=raw_flags,
        )


def read_labels(path: str | Path) -> list[LabelledBug]:
    """Every row of a labels CSV, in file order, rows with no code included (order-0 labels).

    Callers that score against the study keep only bugs with codes, as the scoring script does
    (``[b for b in bugs if b.codes]``). Raises :class:`LabelsFormatError` when the ``id`` or
    ``codes`` column is missing, since nothing could be read then.
    """
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        columns = set(reader.fieldnames or [])
        missing = {"id", "codes"} - columns
        if missing:
            raise LabelsFormatError(
                f"{path}: not a labels file, missing column(s) {', '.join(sorted(missing))} "
                f"(expected id,codes,is_mutant[,benchmark][,realistic][,symptom])"
            )
        return [LabelledBug.from_row(row) for row in reader]


def is_labels_file(path: str | Path) -> bool:
    """True when ``path`` looks like a labels CSV (has ``id`` and ``codes`` columns), not JSONL."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return {"id", "codes"} <= {h.strip() for h in header}


# ------------------------------------------------------------------- results JSONL (old names)

#: the results rows are :class:`mutreal.results.BugResult`; these names stay for existing callers
ResultRow = BugResult
ResultComponent = ComponentResult


def unknown_codes(bugs: Iterable[LabelledBug], known: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Codes of the labels that are not fault codes (typos, free text with no alias): code -> bug ids.

    ``known`` defaults to the shipped taxonomy's codes and aliases; a labelling tool shows these
    so that "LHC" is fixed in the labels instead of silently counting as a code of its own.
    """
    if known is None:
        from mutreal.label.taxonomy import load_taxonomy

        taxonomy = load_taxonomy()
        is_known = taxonomy.has_code
    else:
        names = {k.strip().upper() for k in known}
        is_known = names.__contains__
    out: dict[str, list[str]] = {}
    for bug in bugs:
        for code in bug.codes:
            if not is_known(code):
                out.setdefault(code, []).append(bug.id)
    return out
