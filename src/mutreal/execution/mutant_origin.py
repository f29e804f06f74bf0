"""Which program a mutant is of, from the provenance ``mutate`` writes beside it: its run's setting.

A mutant is evidence only when it runs as its program runs: in its program's folder (under that
folder's name: Defects4ML's programs write ``fixed/result.json``), beside its sibling files and data,
with its arguments and on its framework. Mutants are written elsewhere (``mutate --out``, ``compare
--mutants reconstruct|all``, HOMs), so that setting comes from the provenance JSON beside each
(``<mutant>.json``: ``original``, ``original_sha256``, ``parts``; written by
:func:`mutreal.mutation.mutate.write_program_files`), one reading for every command.

A provenance whose original is not there is an error before anything trains
(:class:`ProvenanceError`): run elsewhere, the mutant would fail on a missing file, which reads as
a kill. A mutant without provenance is taken as a mutant of the program the command names (its
``--fixed``, its ``ORIGINAL``), as before.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the keys that make a JSON beside a program the provenance of a mutant
PROVENANCE_KEYS = ("original", "original_sha256", "parts")


class ProvenanceError(ValueError):
    """A mutant's provenance names an original that is not there, or is another program's."""


def provenance_path(mutant: str | Path) -> Path:
    """Where a mutant's provenance is written: ``<mutant stem>.json`` beside it."""
    return Path(mutant).with_suffix(".json")


def read_provenance(mutant: str | Path) -> dict[str, Any] | None:
    """The provenance beside ``mutant``, or None when there is none (or the JSON beside it is
    something else: a data file of the program's own)."""
    path = provenance_path(mutant)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not all(key in data for key in PROVENANCE_KEYS):
        return None
    return data


@lru_cache(maxsize=256)
def _sha256(path: Path, _mtime: float) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_sha256(path: str | Path) -> str | None:
    """The SHA-256 of a file's bytes (what the provenance's ``original_sha256`` is), None if unreadable."""
    path = Path(path).resolve()
    try:
        return _sha256(path, path.stat().st_mtime)
    except OSError:
        return None


def original_of(mutant: str | Path, expected: str | Path | None = None) -> Path | None:
    """The program ``mutant`` is a mutant of, from its provenance; None without provenance.

    The provenance's ``original`` is the path ``mutate`` was given (relative to where it ran): it is
    looked for as written, beside the provenance, and as ``expected`` (the program the command
    names) when that has the original's content. Raises :class:`ProvenanceError` when it is nowhere,
    or when ``expected`` is given and the mutant is of another program (other content)."""
    data = read_provenance(mutant)
    if data is None:
        return None
    written = Path(str(data["original"]))
    sha = str(data.get("original_sha256") or "")
    if expected is not None and sha and file_sha256(expected) == sha:
        return Path(expected)
    beside = provenance_path(mutant).parent
    candidates = [written] if written.is_absolute() else [written, beside / written, beside / written.name]
    found = [c for c in candidates if c.is_file()]
    same = [c for c in found if file_sha256(c) == sha]
    original = (same or found or [None])[0]
    if original is None:
        raise ProvenanceError(
            f"{mutant}: its provenance ({provenance_path(mutant).name}) names the original {written}, which is "
            "not there: mutreal cannot run it in its program's setting (folder, data, arguments, framework); "
            "write the mutant again with mutreal mutate --out, or put its original back"
        )
    if expected is not None and Path(expected).resolve() != original.resolve():  # and other content
        raise ProvenanceError(
            f"{mutant}: its provenance names {original} as its original, not {expected}: "
            "it is a mutant of another program"
        )
    return original


def provenance_data_folders(programs: list[str | Path]) -> dict[str, str]:
    """Program path -> its original's folder, for each mutant among ``programs`` whose provenance
    names an original in another folder: the folder it runs in (its data, its sibling files, the
    folder name it writes results under). A command that runs programs it was given (``mutreal
    run``) reads this, as ``compare`` and ``kill`` do for their mutants. Raises
    :class:`ProvenanceError` for a mutant whose original is not there, before anything trains."""
    folders = {}
    for program in programs:
        home = run_folder(program)
        if home is not None and home != Path(program).resolve().parent:
            folders[str(program)] = str(home)
    return folders


def run_folder(mutant: str | Path, expected: str | Path | None = None) -> Path | None:
    """The folder ``mutant`` runs in: its original's (:func:`original_of`, same ``expected`` and
    errors), resolved; None without provenance (the caller decides: its own folder, or the
    program the command names)."""
    original = original_of(mutant, expected)
    return None if original is None else original.resolve().parent
