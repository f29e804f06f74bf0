"""Ahmed et al.'s published realism figures, read so that mutreal's own can stand beside them.

Ahmed et al. ("An Empirical Study of the Realism of Mutants in Deep Learning", arXiv 2512.16741)
trained 86 real faults of DeepFD, DeepLocalize, defect4ML and CleanML beside DeepCrime's mutants and
published, per bug, the coupling strength (CS) and detectability overlap (IoU) of every mutant with the
fault: ``results/coupling_strength/coupling_strength_<bug>_pre_training.csv`` and
``results/detectability_overlap/detectability_overlap_<bug>_pre_training.csv``, one row per mutant
``MM_<bug>_<DeepCrime name>`` and one column ``FM_<bug>_faulty`` whose cells read ``0.6781 (reliable)``
(the ``_clean`` files hold the bare numbers). Their training cannot be re-run (their adapted programs
are not published), so a reader of mutreal's figures can only compare with these numbers; this module
reads them from a snapshot of their repository (a folder or a bare git repository, as ``fetch``
brings it: nothing of theirs ships with mutreal) and names, for each of their bug ids, the programs of
a runtime manifest that are the same bug.

Their bug ids are the benchmarks' own row numbers: ``deepfdNNN`` is row "No" NNN of DeepFD's
``Benchmark/Benchmark-with-patches.xlsx`` (its "Post #" is the Stack Overflow post); ``deeplocalizeNNN``
up to 030 is row "No" of DeepLocalize's ``Benchmark/StackOverflow/Benchmark.xlsx``, and 031 to 040 its
GitHub rows (``Benchmark/GitHub/Benchmark.xlsx`` row NNN - 30: an inference, the regression-type GitHub
bugs being the ones absent); ``defect4mlNNN`` is defect4ML's Fault_ID. A post is one bug whichever
benchmark ships it, so each id lists every runtime-corpus spelling of it.
"""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mutreal.serialise import Record

#: the two published measures: folder and file prefix -> the field of :class:`PublishedMutant`
MEASURES = {"coupling_strength": "cs", "detectability_overlap": "iou"}
#: the training stage of the mutants compared here (they also published post-training mutants)
STAGE = "pre_training"
#: the prefix of a mutant's row and the name of the fault's column in their files
MUTANT_PREFIX, FAULT_SUFFIX = "MM_", "_faulty"
_CELL = re.compile(r"^\s*(?P<value>[-+0-9.eE]+|nan)\s*(?:\((?P<reliable>reliable|unreliable)\))?\s*$")
_BUG = re.compile(r"^(?P<benchmark>[a-z0-9]*?[a-z])(?P<number>\d+)$")
#: DeepLocalize's GitHub bugs are numbered after its 30 Stack Overflow bugs
DEEPLOCALIZE_SO_ROWS = 30


class PublishedError(ValueError):
    """A snapshot or file that does not hold the published figures in their format."""


@dataclass
class PublishedMutant(Record):
    """One mutant of one bug as they published it: its DeepCrime name and both measures."""

    bug: str
    #: DeepCrime's name of the mutant, ``<operator>_mutated0_MP_<parameter>`` (their row without ``MM_<bug>_``)
    name: str
    cs: float | None = None
    iou: float | None = None
    #: their reliability verdict of each measure; None where the file does not say
    cs_reliable: bool | None = None
    iou_reliable: bool | None = None


class Snapshot:
    """Files of their repository, from a folder (a checkout) or a bare git repository (``fetch``'s)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.bare = (self.path / "HEAD").is_file() and (self.path / "objects").is_dir()
        if not self.bare and not self.path.is_dir():
            raise PublishedError(f"{self.path}: neither a folder nor a bare git repository")

    def names(self, folder: str) -> list[str]:
        """The files directly in ``folder`` (relative to the repository's root), sorted."""
        if not self.bare:
            base = self.path / folder
            return sorted(p.name for p in base.iterdir() if p.is_file()) if base.is_dir() else []
        listing = self._git("ls-tree", "--name-only", f"HEAD:{folder}", missing_ok=True)
        return sorted(line for line in listing.decode().splitlines() if line)

    def read(self, relative: str) -> bytes:
        if not self.bare:
            return (self.path / relative).read_bytes()
        return self._git("show", f"HEAD:{relative}")

    def _git(self, *args: str, missing_ok: bool = False) -> bytes:
        result = subprocess.run(["git", f"--git-dir={self.path}", *args], capture_output=True, check=False)
        if result.returncode != 0:
            if missing_ok:
                return b""
            raise PublishedError(f"{self.path}: git {' '.join(args)}: {result.stderr.decode().strip()}")
        return result.stdout


def parse_cell(cell: str) -> tuple[float | None, bool | None]:
    """``"0.6781 (reliable)"`` -> (0.6781, True); ``"0.5"`` -> (0.5, None); ``"nan"`` or blank -> (None, ...)."""
    match = _CELL.match(cell or "")
    if not match:
        if not (cell or "").strip():
            return None, None
        raise PublishedError(f"cell {cell!r} is not a number with an optional (reliable)/(unreliable)")
    value = float(match.group("value"))
    reliable = {"reliable": True, "unreliable": False}.get(match.group("reliable") or "")
    return (None if value != value else value), reliable


def parse_measure_file(text: str, bug: str) -> dict[str, tuple[float | None, bool | None]]:
    """One measure file of one bug: DeepCrime name -> (value, reliable)."""
    import csv

    rows = list(csv.reader(io.StringIO(text)))
    if not rows or len(rows[0]) < 2 or not rows[0][1].endswith(FAULT_SUFFIX):
        raise PublishedError(f"bug {bug}: the header names no fault column ({rows[0] if rows else 'empty file'})")
    prefix = f"{MUTANT_PREFIX}{bug}_"
    found = {}
    for row in rows[1:]:
        if len(row) < 2 or not row[0].startswith(prefix):
            continue
        found[row[0][len(prefix):]] = parse_cell(row[1])
    return found


def published_bugs(snapshot: Snapshot) -> list[str]:
    """Their bug ids that have pre-training figures, sorted."""
    pattern = re.compile(rf"^coupling_strength_(?P<bug>[a-z0-9]*?[a-z]\d+)_{STAGE}(?:_clean)?\.csv$")
    return sorted({m.group("bug") for n in snapshot.names("results/coupling_strength") if (m := pattern.match(n))})


def read_bug(snapshot: Snapshot, bug: str) -> list[PublishedMutant]:
    """Every published mutant of ``bug`` with both measures. The annotated file is preferred (it carries
    their reliability verdict); the ``_clean`` one is read where only it exists."""
    mutants: dict[str, PublishedMutant] = {}
    for folder, field_name in MEASURES.items():
        names = set(snapshot.names(f"results/{folder}"))
        for suffix in ("", "_clean"):
            name = f"{folder}_{bug}_{STAGE}{suffix}.csv"
            if name in names:
                text = snapshot.read(f"results/{folder}/{name}").decode("utf-8-sig")
                for mutant, (value, reliable) in parse_measure_file(text, bug).items():
                    record = mutants.setdefault(mutant, PublishedMutant(bug, mutant))
                    setattr(record, field_name, value)
                    setattr(record, f"{field_name}_reliable", reliable)
                break
    return [mutants[name] for name in sorted(mutants)]


def numbered_rows(table: Iterable[Mapping[str, object]], number: str, value: str) -> dict[int, str]:
    """A benchmark table's rows as row number -> the ``value`` column (rows without a number skipped):
    DeepFD's and DeepLocalize's spreadsheets number their bugs in a "No" column."""
    found = {}
    for row in table:
        raw, cell = row.get(number), row.get(value)
        try:
            key = int(float(str(raw)))
        except ValueError:
            continue
        if cell is not None and str(cell).strip() and str(cell) != "nan":
            text = str(cell).strip()
            found[key] = text[:-2] if re.fullmatch(r"\d+\.0", text) else text
    return found


def runtime_ids(bug: str, deepfd_posts: Mapping[int, str], deeplocalize_posts: Mapping[int, str],
                deeplocalize_github: Mapping[int, str]) -> list[str]:  # fmt: skip
    """The runtime-corpus ids that hold ``bug`` (their id), most original first: the benchmark's own
    program before the realism study's adapted one (BenchDL4Real); empty when the bug's benchmark is
    not one the runtime corpus lays out (CleanML) or its row is unknown."""
    match = _BUG.match(bug)
    if not match:
        raise PublishedError(f"{bug!r} is not a bug id of theirs (benchmark name and number)")
    benchmark, number = match.group("benchmark"), int(match.group("number"))
    if benchmark == "defect4ml":
        nnn = f"{number:03d}"
        return [f"Defects4ML:{nnn}", f"Defects4ML@61f3b06:{nnn}", f"BenchDL4Real-Defects4ML:{nnn}"]
    if benchmark == "deepfd" and number in deepfd_posts and not deepfd_posts[number].isdigit():
        project = deepfd_posts[number]  # DeepFD took a few bugs from DeepLocalize's GitHub projects
        return [f"DeepFD:{project}", f"DeepLocalize-GH:{project}", f"BenchDL4Real-DeepLocalize:{project}"]
    if benchmark == "deepfd" and number in deepfd_posts:
        post = deepfd_posts[number]
        return [f"DeepFD:{post}", f"DeepLocalize-SO:{post}", f"BenchDL4Real-DeepFD:{post}", f"BenchDL4Real-DeepLocalize:{post}"]
    if benchmark == "deeplocalize" and number <= DEEPLOCALIZE_SO_ROWS and number in deeplocalize_posts:
        post = deeplocalize_posts[number]
        return [f"DeepLocalize-SO:{post}", f"DeepFD:{post}", f"BenchDL4Real-DeepLocalize:{post}", f"BenchDL4Real-DeepFD:{post}"]
    if benchmark == "deeplocalize" and (number - DEEPLOCALIZE_SO_ROWS) in deeplocalize_github:
        project = deeplocalize_github[number - DEEPLOCALIZE_SO_ROWS].rstrip("/").split("/")[-1]
        return [f"DeepLocalize-GH:{project}", f"BenchDL4Real-DeepLocalize:{project}"]
    return []


def first_present(candidates: Iterable[str], manifest_ids: Iterable[str]) -> str | None:
    """The first candidate id a manifest holds; a DeepFD subject with several configurations is laid
    out as ``DeepFD:<post>/<config>``, so a candidate also matches the first of its configurations."""
    ids = sorted(set(manifest_ids))
    for candidate in candidates:
        if candidate in ids:
            return candidate
        configured = [i for i in ids if i.startswith(f"{candidate}/")]
        if configured:
            return configured[0]
    return None
