"""Manifests from the folder layouts of published deep-learning fault benchmarks.

Every mutreal command takes a manifest (``id,benchmark,buggy,fixed`` plus optional ``source``,
``symptom``, ``dataset``, ``bug_type``; ``;`` between the files of a multi-file side). Benchmarks
are published as folder trees, each in its own layout; this module reads those trees as they are
published, so a researcher points mutreal at a checkout instead of writing a manifest by hand.

Layouts (``ROOT`` is the benchmark repository's root; its top folder, e.g. ``Benchmark``, may be
given instead):

``deeplocalize``
    ``Benchmark/StackOverflow/<SO id>/{Buggy Code|Buggy Model}/**.py`` vs
    ``{Correct Code|Correct Model}/**.py`` (ids ``DeepLocalize-SO:<SO id>``, source: the post) and
    ``Benchmark/GitHub/{Buggy|Correct} Model/<project>/**.py`` (``DeepLocalize-GH:<project>``).
``deepfd``
    ``Benchmark/Subjects/<SO id>/<config>/origin.py`` vs ``repair.py`` (``DeepFD:<SO id>``; a subject
    with several configurations gives one bug per configuration, ``DeepFD:<SO id>/<config>``);
    ``dataset``: the configuration's ``dataset.pkl`` when present.
``defects4ml``
    ``bugs/<nnn>/{buggy,fixed}/**.py`` with ``bugs/<nnn>/conf.ini`` (``url`` -> ``source``,
    ``symptom``, ``bug_type``); ``dataset``: the bug's ``data`` folder when present; ``args``: the
    command-line arguments the bug's ``test_suite.py`` runs a side's program with
    (``os.system('cd fixed;python gol.py 20 30')``), when it gives some.
``sfdata``
    ``SFData/<set>/s<SO id>_original.py`` (the program as posted), ``_context.py`` (the benchmark's
    completed buggy program) and ``_ground_truth.py`` (fixed), ids ``SFData-<set>:<SO id>``. The
    pair is selected on context vs ground truth (the benchmark's own pair); the buggy side is the
    posted program by default (the realism study labelled against it) or, with
    ``buggy="context"``, the completed one, whose ``source_buggy`` is then the posted program (so
    ``mutreal correspond --manifest`` checks the completion against the post). Sets without a ground truth (ISSTA2018) give no pairs.
``tfbugs2018``
    ``StackOverflow/<cause>-<n>/<SO id>-buggy/**.py`` vs ``<SO id>-fix/`` and
    ``Github/<cause>-<n>/<project>-buggy/**.py`` vs ``-fix/`` (raw TensorFlow; ids
    ``TFBugs2018-SO:<cause>-<n>/<SO id>`` and ``TFBugs2018-GH:<cause>-<n>/<project>``; source of a
    GitHub bug: the first URL of the case's ``readme.md``).
``benchdl4real``
    the realism study's adapted programs (``BenchDL4Real/`` of its repository, or the folder
    itself, or ``BenchDL4Real-<part>/`` folders as mutreal's runtime corpus lays them out):
    ``DeepFD/<bug>/origin.py`` vs ``repair.py``, ``DeepLocalize/<bug>/BuggyCode/**.py`` vs
    ``CorrectCode/**.py``, ``Defects4ML/<nnn>/{buggy,fixed}`` (as ``defects4ml``) and
    ``SFData/s<id>_context.py`` vs ``_ground_truth.py``; ids ``BenchDL4Real-<part>:<bug>``,
    benchmark ``BenchDL4Real``; ``dataset``: the bug's ``dataset`` (or ``data``) folder.
``pairs``
    any ``<bug>/buggy/**.py`` vs ``<bug>/fixed/**.py`` at any depth under ROOT, id = the bug
    folder's path with ``:`` between parts (mutreal's own corpus; the dev corpus's
    ``corpus/<set>/<id>``, whose ids this reproduces).

Which files are listed: files of the two sides are paired by their path relative to the side's
root; a side lists its ``.py`` files whose content differs from their partner, a file present on
one side only counting as changed (``all_files=True`` lists every ``.py`` file instead). A bug
with no changed ``.py`` file on a side cannot be classified and is reported as skipped, with the
reason, never silently dropped. ``keras_only`` and ``parsable_only`` apply the dev corpus's
selection (changed files import Keras; every changed file parses as Python 3) and also report
what they skip.
"""

from __future__ import annotations

import ast
import configparser
import csv
import io
import logging
import os
import re
import shlex
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from mutreal.serialise import Record

#: manifest columns in the order they are written (optional ones only when some pair has them)
REQUIRED_COLUMNS = ("id", "benchmark", "buggy", "fixed")
OPTIONAL_COLUMNS = (
    "source", "symptom", "dataset", "bug_type", "source_buggy", "source_fixed", "args", "args_buggy", "args_fixed",
)  # fmt: skip
#: optional columns that hold file paths (made relative like buggy/fixed)
_PATH_COLUMNS = ("source_buggy", "source_fixed")

_KERAS = re.compile(
    rb"^[ \t]*(?:(?:import|from)[ \t]+(?:tensorflow(?:\.python)?\.)?keras\b"
    rb"|from[ \t]+tensorflow(?:\.python)?[ \t]+import[^\n]*\bkeras\b)"
    rb"|\btf\.keras\b",
    re.M,
)
log = logging.getLogger(__name__)
_URL = re.compile(r"https?://[^\s)>\]\"']+")


class LayoutError(ValueError):
    """The folder does not hold the named layout (or the layout name is unknown)."""


@dataclass
class BenchmarkPair(Record):
    """One bug of a benchmark: its buggy and fixed files (absolute paths) and what the layout says."""

    id: str
    benchmark: str
    buggy: list[Path]
    fixed: list[Path]
    source: str | None = None
    symptom: str | None = None
    dataset: str | None = None
    bug_type: str | None = None
    #: files of the source a side was made from (``mutreal correspond --manifest`` compares them)
    source_buggy: list[Path] = field(default_factory=list)
    source_fixed: list[Path] = field(default_factory=list)
    #: the command-line arguments of both sides' programs, shell-quoted (``args_<side>``: of one side,
    #: when the two differ), as the benchmark records its run command; see :mod:`mutreal.manifest`
    args: str | None = None
    args_buggy: str | None = None
    args_fixed: str | None = None


@dataclass
class SkippedPair(Record):
    """A bug of the layout that gives no manifest row, and why (so nothing is lost silently)."""

    id: str
    reason: str


@dataclass
class LayoutScan(Record):
    """What reading one benchmark tree gave: its pairs, in id order, and the bugs skipped."""

    layout: str
    root: Path
    pairs: list[BenchmarkPair] = field(default_factory=list)
    skipped: list[SkippedPair] = field(default_factory=list)


@dataclass
class _Candidate:
    """A bug as the layout shows it: files keyed by their path relative to the side's root."""

    id: str
    benchmark: str
    buggy: dict[str, Path]
    fixed: dict[str, Path]
    source: str | None = None
    symptom: str | None = None
    dataset: str | None = None
    bug_type: str | None = None
    #: replaces the buggy side after selection (SFData: the program as posted)
    buggy_override: list[Path] | None = None
    source_buggy: list[Path] = field(default_factory=list)
    problem: str | None = None
    #: side -> {program path relative to the side: its command-line arguments}, as recorded
    commands: dict[str, dict[str, list[str]]] = field(default_factory=dict)


# ------------------------------------------------------------------------------------ the layouts


def _anchor(root: Path, top: str) -> Path:
    """``root/top`` when it exists, else ``root`` itself (the user gave the top folder)."""
    return root / top if (root / top).is_dir() else root


def _py_files(side_root: Path) -> dict[str, Path]:
    """``.py`` files under a side's root, keyed by their relative POSIX path."""
    if not side_root.is_dir():
        return {}
    return {
        p.relative_to(side_root).as_posix(): p
        for p in sorted(side_root.rglob("*.py"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _so_url(post_id: str) -> str:
    return f"https://stackoverflow.com/questions/{post_id}"


def _sorted_dirs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _deeplocalize(root: Path) -> Iterator[_Candidate]:
    base = _anchor(root, "Benchmark")
    if not (base / "StackOverflow").is_dir() and not (base / "GitHub").is_dir():
        raise LayoutError(f"{root}: no Benchmark/StackOverflow or Benchmark/GitHub folder (DeepLocalize)")
    for bug in _sorted_dirs(base / "StackOverflow"):
        sides: dict[bool, dict[str, Path]] = {False: {}, True: {}}
        for kind in ("Code", "Model"):
            sides[False].update(_py_files(bug / f"Buggy {kind}"))
            sides[True].update(_py_files(bug / f"Correct {kind}"))
        if not sides[False] and not sides[True]:
            continue  # not a bug folder
        source = _so_url(bug.name) if bug.name.isdigit() else None
        yield _Candidate(f"DeepLocalize-SO:{bug.name}", "DeepLocalize", sides[False], sides[True], source)
    buggy_root, fixed_root = base / "GitHub" / "Buggy Model", base / "GitHub" / "Correct Model"
    projects = {p.name for p in _sorted_dirs(buggy_root)} | {p.name for p in _sorted_dirs(fixed_root)}
    for project in sorted(projects):
        yield _Candidate(
            f"DeepLocalize-GH:{project}",
            "DeepLocalize",
            _py_files(buggy_root / project),
            _py_files(fixed_root / project),
        )


def _deepfd(root: Path) -> Iterator[_Candidate]:
    base = _anchor(root, "Benchmark")
    subjects = base / "Subjects" if (base / "Subjects").is_dir() else base
    if not any(subjects.glob("*/*/origin.py")):
        raise LayoutError(f"{root}: no Benchmark/Subjects/<id>/<config>/origin.py (DeepFD)")
    for subject in _sorted_dirs(subjects):
        configs = [
            c for c in _sorted_dirs(subject) if (c / "origin.py").is_file() or (c / "repair.py").is_file()
        ]
        for config in configs:
            bug_id = f"DeepFD:{subject.name}" if len(configs) == 1 else f"DeepFD:{subject.name}/{config.name}"
            buggy = {"main.py": config / "origin.py"} if (config / "origin.py").is_file() else {}
            fixed = {"main.py": config / "repair.py"} if (config / "repair.py").is_file() else {}
            dataset = config / "dataset.pkl"
            yield _Candidate(
                bug_id,
                "DeepFD",
                buggy,
                fixed,
                source=_so_url(subject.name) if subject.name.isdigit() else None,
                dataset=str(dataset) if dataset.is_file() else None,
            )


def _defects4ml(root: Path) -> Iterator[_Candidate]:
    bugs = _anchor(root, "bugs")
    found = False
    for bug in _sorted_dirs(bugs):
        if not ((bug / "buggy").is_dir() or (bug / "fixed").is_dir()):
            continue
        found = True
        cand = _Candidate(
            f"Defects4ML:{bug.name}", "Defects4ML", _py_files(bug / "buggy"), _py_files(bug / "fixed")
        )
        conf = bug / "conf.ini"
        if conf.is_file():
            parser = configparser.ConfigParser(interpolation=None, strict=False)
            try:
                parser.read(conf, encoding="utf-8")
                meta = parser["DEFAULT"]
                cand.source = meta.get("url") or None
                cand.symptom = meta.get("symptom") or None
                cand.bug_type = meta.get("bug_type") or None
            except (configparser.Error, UnicodeDecodeError) as exc:
                log.warning("%s: unreadable conf.ini, pair kept without its metadata: %s", conf, exc)
        if (bug / "data").is_dir():
            cand.dataset = str(bug / "data")
        cand.commands = recorded_commands(bug / "test_suite.py")
        yield cand
    if not found:
        raise LayoutError(f"{root}: no bugs/<nnn>/{{buggy,fixed}} folder (Defects4ML)")


def recorded_commands(test_suite: Path) -> dict[str, dict[str, list[str]]]:
    """The run commands a Defects4ML ``test_suite.py`` records: side -> {program path relative to
    the side: its arguments}, for commands that pass arguments.

    The suite runs each side with a shell command in a string (``'cd buggy;python gol.py 20 30'``,
    ``'python fixed/train.py --size 250 250'``); the side is the folder it ``cd``s into or the
    program path's first part, and a command naming neither is taken for both sides. Only string
    constants are read (the file is parsed, never run); an unreadable suite records nothing."""
    try:
        tree = ast.parse(test_suite.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, dict[str, list[str]]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and "python" in node.value):
            continue
        side: str | None = None
        for part in re.split(r"\s*(?:;|&&|\|\||\n)\s*", node.value):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            if len(words) > 1 and words[0] == "cd":
                first = Path(words[1]).parts[0] if Path(words[1]).parts else ""
                side = first if first in ("buggy", "fixed") else side
            elif len(words) > 2 and re.fullmatch(r"python[\d.]*", words[0]) and words[1].endswith(".py"):
                script = Path(words[1])
                own = script.parts[0] if script.parts[0] in ("buggy", "fixed") else side
                rel = Path(*script.parts[1:]).as_posix() if own and script.parts[0] == own else script.as_posix()
                for name in (own,) if own else ("buggy", "fixed"):
                    found.setdefault(name, {})[rel] = words[2:]
    return found


def _pair_args(cand: _Candidate, buggy: list[Path], fixed: list[Path]) -> dict[str, str | None]:
    """The ``args`` cells of a pair: the recorded arguments of the program each side lists (one
    ``args`` when both sides agree, ``args_<side>`` otherwise)."""
    own: dict[str, list[str] | None] = {}
    for side, files, listed in (("buggy", cand.buggy, buggy), ("fixed", cand.fixed, fixed)):
        commands = cand.commands.get(side, {})
        own[side] = next((commands[rel] for rel, path in files.items() if rel in commands and path in listed), None)
    if own["buggy"] == own["fixed"]:
        return {"args": shlex.join(own["buggy"]) if own["buggy"] else None}
    return {f"args_{side}": shlex.join(args) if args else None for side, args in own.items()}


_SF_FILE = re.compile(r"s(\d+)_(original|context|ground_truth)\.py$")


def _sfdata(root: Path, buggy: str = "original") -> Iterator[_Candidate]:
    base = _anchor(root, "SFData")
    groups: dict[tuple[str, str], dict[str, Path]] = {}
    for path in sorted(base.rglob("s*_*.py")):
        m = _SF_FILE.match(path.name)
        if m:
            rel = path.relative_to(base).parts
            set_name = rel[0] if len(rel) > 1 else base.name
            groups.setdefault((set_name, m[1]), {})[m[2]] = path
    if not groups:
        raise LayoutError(f"{root}: no SFData/<set>/s<id>_context.py files (SFData)")
    for (set_name, post), files in sorted(groups.items()):
        cand = _Candidate(
            f"SFData-{set_name}:{post}",
            "SFData",
            {"main.py": files["context"]} if "context" in files else {},
            {"main.py": files["ground_truth"]} if "ground_truth" in files else {},
            source=_so_url(post),
        )
        if buggy == "original":
            if "original" in files:
                cand.buggy_override = [files["original"]]
            else:
                cand.problem = "no s<id>_original.py (the program as posted)"
        elif "original" in files:
            cand.source_buggy = [files["original"]]  # the completed program's source: the post
        yield cand


def _tfbugs2018(root: Path) -> Iterator[_Candidate]:
    found = False
    for folder, tag in (("StackOverflow", "SO"), ("Github", "GH"), ("GitHub", "GH")):
        for case in _sorted_dirs(root / folder):
            names = {p.name[: -len("-buggy")] for p in _sorted_dirs(case) if p.name.endswith("-buggy")}
            names |= {p.name[: -len("-fix")] for p in _sorted_dirs(case) if p.name.endswith("-fix")}
            readme_url = None
            for readme in ("readme.md", "README.md"):
                if (case / readme).is_file():
                    m = _URL.search((case / readme).read_text(encoding="utf-8", errors="replace"))
                    readme_url = m.group(0) if m else None
                    break
            for name in sorted(names):
                found = True
                source = _so_url(name) if tag == "SO" and name.isdigit() else readme_url
                yield _Candidate(
                    f"TFBugs2018-{tag}:{case.name}/{name}",
                    "TFBugs2018",
                    _py_files(case / f"{name}-buggy"),
                    _py_files(case / f"{name}-fix"),
                    source=source,
                )
    if not found:
        raise LayoutError(f"{root}: no StackOverflow|Github/<cause>-<n>/<name>-buggy folder (TFBugs2018)")


#: BenchDL4Real's sub-benchmarks, in the order they are read
_BENCHDL4REAL_PARTS = ("DeepFD", "DeepLocalize", "Defects4ML", "SFData")


def _benchdl4real_parts(root: Path) -> dict[str, Path]:
    """Folders of BenchDL4Real's sub-benchmarks under ``root``: as published
    (``BenchDL4Real/<part>``, or ``<part>`` when ROOT is that folder) or flattened
    (``BenchDL4Real-<part>``, as mutreal's runtime corpus lays it out)."""
    flattened = {part: root / f"BenchDL4Real-{part}" for part in _BENCHDL4REAL_PARTS}
    for base in (root / "BenchDL4Real", None, root):
        # ROOT itself only when it holds no BenchDL4Real folder of either shape: a runtime corpus
        # has the original benchmarks' DeepFD/, SFData/... beside its BenchDL4Real-<part> folders
        folders = flattened if base is None else {part: base / part for part in _BENCHDL4REAL_PARTS}
        parts = {part: folder for part, folder in folders.items() if folder.is_dir()}
        if parts:
            return parts
    return {}


def _benchdl4real(root: Path) -> Iterator[_Candidate]:
    """The realism study's adapted programs: each sub-benchmark in its own published shape, ids
    ``BenchDL4Real-<part>:<bug>``, benchmark ``BenchDL4Real``.

    DeepFD: ``<bug>/origin.py`` vs ``repair.py`` (``dataset``: the bug's ``dataset`` folder);
    DeepLocalize: ``<bug>/BuggyCode/**.py`` vs ``CorrectCode/**.py``, ``origin.py`` paired with
    ``repair.py``; Defects4ML: ``<nnn>/{buggy,fixed}`` with ``conf.ini`` as in Defects4ML itself;
    SFData: ``s<id>_context.py`` vs ``_ground_truth.py`` (the study adapted the completed program,
    there is no posted one beside it).
    """
    parts = _benchdl4real_parts(root)
    if not parts:
        raise LayoutError(
            f"{root}: no BenchDL4Real/{{{','.join(_BENCHDL4REAL_PARTS)}}} or BenchDL4Real-<part> folder (BenchDL4Real)"
        )
    for part, folder in parts.items():
        if part == "SFData":
            inner = _sfdata(folder, "context") if any(folder.rglob("s*_context.py")) else iter(())
        elif part == "Defects4ML":
            inner = (
                _defects4ml(folder)
                if any(folder.glob("*/buggy")) or any(folder.glob("*/fixed"))
                else iter(())
            )
        else:
            inner = _benchdl4real_bugs(part, folder)
        for cand in inner:
            cand.id = f"BenchDL4Real-{part}:{cand.id.split(':', 1)[1]}"
            cand.benchmark = "BenchDL4Real"
            yield cand


def _benchdl4real_bugs(part: str, folder: Path) -> Iterator[_Candidate]:
    """BenchDL4Real's DeepFD (one folder per bug, origin/repair side by side) and DeepLocalize
    (``BuggyCode``/``CorrectCode`` per bug) parts, ids ``<part>:<bug>``."""
    for bug in _sorted_dirs(folder):
        if part == "DeepFD":
            buggy = {"main.py": bug / "origin.py"} if (bug / "origin.py").is_file() else {}
            fixed = {"main.py": bug / "repair.py"} if (bug / "repair.py").is_file() else {}
        else:
            buggy, fixed = _py_files(bug / "BuggyCode"), _py_files(bug / "CorrectCode")
            if "repair.py" in fixed and "origin.py" in buggy and "origin.py" not in fixed:
                fixed["origin.py"] = fixed.pop("repair.py")  # the pair's two files, compared as one
        dataset = bug / "dataset"
        if not buggy and not fixed:
            continue  # not a bug folder
        yield _Candidate(
            f"{part}:{bug.name}", part, buggy, fixed,
            source=_so_url(bug.name) if bug.name.isdigit() else None,
            dataset=str(dataset) if dataset.is_dir() else None,
        )  # fmt: skip


def _pairs(root: Path, benchmark: str | None = None) -> Iterator[_Candidate]:
    """Any folder holding ``buggy/`` and ``fixed/`` (at any depth) is a bug; its id is its path
    relative to ROOT with ``:`` between parts, so ``corpus/DeepFD/31556268`` under ``corpus`` is
    ``DeepFD:31556268`` (the dev corpus's ids) and ``k1-iris-ach`` is ``k1-iris-ach``."""
    bugs = sorted({p.parent for p in root.rglob("buggy") if p.is_dir() and (p.parent / "fixed").is_dir()})
    if not bugs:
        raise LayoutError(f"{root}: no <bug>/buggy + <bug>/fixed folders (pairs)")
    for bug in bugs:
        rel = bug.relative_to(root).parts
        bug_id = ":".join(rel) if rel else root.name
        name = benchmark or (rel[0].split("-")[0] if len(rel) > 1 else root.name)
        yield _Candidate(bug_id, name, _py_files(bug / "buggy"), _py_files(bug / "fixed"))


#: layout name -> reader; the names ``mutreal manifest --layout`` accepts
LAYOUTS: dict[str, Callable[..., Iterator[_Candidate]]] = {
    "deeplocalize": _deeplocalize,
    "deepfd": _deepfd,
    "defects4ml": _defects4ml,
    "sfdata": _sfdata,
    "tfbugs2018": _tfbugs2018,
    "benchdl4real": _benchdl4real,
    "pairs": _pairs,
}


# ------------------------------------------------------------------------------------- selection


def _parses(path: Path) -> bool:
    with warnings.catch_warnings():  # old code: invalid escape sequences and the like
        warnings.simplefilter("ignore")
        try:
            ast.parse(path.read_bytes())
            return True
        except (SyntaxError, ValueError):
            return False


def _changed(candidate: _Candidate, all_files: bool) -> tuple[list[Path], list[Path]]:
    """The files each side lists: changed ``.py`` files (see the module docstring), sorted by key."""
    if all_files:
        return [candidate.buggy[k] for k in sorted(candidate.buggy)], [
            candidate.fixed[k] for k in sorted(candidate.fixed)
        ]
    same = {
        k
        for k in candidate.buggy.keys() & candidate.fixed.keys()
        if candidate.buggy[k].read_bytes() == candidate.fixed[k].read_bytes()
    }
    return (
        [candidate.buggy[k] for k in sorted(candidate.buggy) if k not in same],
        [candidate.fixed[k] for k in sorted(candidate.fixed) if k not in same],
    )


def scan_layout(
    layout: str,
    root: str | Path,
    *,
    buggy: str = "original",
    all_files: bool = False,
    keras_only: bool = False,
    parsable_only: bool = False,
    benchmark: str | None = None,
) -> LayoutScan:
    """Read the benchmark tree ``root`` in the named layout into pairs (and skipped bugs).

    ``buggy`` only matters for SFData (``original``: as posted; ``context``: completed);
    ``benchmark`` names the benchmark of a ``pairs`` tree (default: the first folder's name up to
    its first ``-``, or ROOT's name when bugs sit directly under it). Raises
    :class:`LayoutError` when the layout is unknown or the tree does not hold it at all; a single
    bug that cannot be listed is reported in ``skipped`` instead.
    """
    name = layout.lower().replace("-", "").replace("_", "")
    if name not in LAYOUTS:
        raise LayoutError(f"unknown layout {layout!r}; known: {', '.join(LAYOUTS)}")
    if buggy not in ("original", "context"):
        raise LayoutError(f"--buggy must be 'original' or 'context', not {buggy!r}")
    root = Path(root).resolve()
    if not root.is_dir():
        raise LayoutError(f"{root}: not a folder")
    reader = LAYOUTS[name]
    if name == "sfdata":
        candidates = reader(root, buggy)
    elif name == "pairs":
        candidates = reader(root, benchmark)
    else:
        candidates = reader(root)
    scan = LayoutScan(name, root)
    for cand in candidates:
        try:
            b, f = _changed(cand, all_files)
        except OSError as exc:
            scan.skipped.append(SkippedPair(cand.id, f"unreadable file: {exc}"))
            continue
        reason = None
        if not b:
            reason = "no changed .py file on the buggy side"
        elif not f:
            reason = "no changed .py file on the fixed side"
        elif cand.problem is not None:
            reason = cand.problem
        if reason is None and parsable_only:
            bad = [p.name for p in (*b, *f) if not _parses(p)]
            if bad:
                reason = f"not Python 3: {', '.join(bad)}"
        if reason is None and keras_only and not any(_KERAS.search(p.read_bytes()) for p in (*b, *f)):
            reason = "changed files do not import Keras"
        if reason is not None:
            scan.skipped.append(SkippedPair(cand.id, reason))
            continue
        scan.pairs.append(
            BenchmarkPair(
                cand.id,
                cand.benchmark,
                cand.buggy_override if cand.buggy_override is not None else b,
                f,
                cand.source,
                cand.symptom,
                cand.dataset,
                cand.bug_type,
                source_buggy=cand.source_buggy,
                **_pair_args(cand, b, f),
            )
        )
    scan.pairs.sort(key=lambda p: p.id)
    return scan


def detect_layout(root: str | Path) -> str | None:
    """The layout whose marker folders ``root`` holds, or None (used for helpful errors)."""
    root = Path(root)
    markers = {
        "deeplocalize": ("Benchmark/StackOverflow", "Benchmark/GitHub/Buggy Model"),
        "deepfd": ("Benchmark/Subjects",),
        "defects4ml": ("bugs",),
        "sfdata": ("SFData",),
        "tfbugs2018": ("StackOverflow", "Github"),
    }
    if (root / "BenchDL4Real").is_dir() or any(root.glob("BenchDL4Real-*")):
        return "benchdl4real"
    for name, paths in markers.items():
        if any((root / p).is_dir() for p in paths):
            if name == "deeplocalize" and (root / "Benchmark/Subjects").is_dir():
                continue
            return name
    return None


# --------------------------------------------------------------------------------------- writing


def _path_text(path: Path, relative_to: Path | None) -> str:
    if relative_to is None:
        return str(path)
    return Path(os.path.relpath(path, relative_to)).as_posix()


def manifest_rows(pairs: list[BenchmarkPair], relative_to: str | Path | None = None) -> list[dict[str, str]]:
    """Manifest rows (strings) for pairs; paths relative to ``relative_to`` when given, else absolute.

    ``dataset`` is a path when it names an existing file or folder, and is made relative the same
    way; optional columns appear only when at least one pair has a value.
    """
    base = Path(relative_to).resolve() if relative_to is not None else None
    rows = []
    for pair in pairs:
        row = {
            "id": pair.id,
            "benchmark": pair.benchmark,
            "buggy": ";".join(_path_text(p, base) for p in pair.buggy),
            "fixed": ";".join(_path_text(p, base) for p in pair.fixed),
        }
        for column in OPTIONAL_COLUMNS:
            value = getattr(pair, column)
            if column in _PATH_COLUMNS:
                value = ";".join(_path_text(p, base) for p in value)
            elif column == "dataset" and value and Path(value).exists():
                value = _path_text(Path(value), base)
            row[column] = value or ""
        rows.append(row)
    return rows


def write_manifest(
    pairs: list[BenchmarkPair], out: str | Path | TextIO, relative_to: str | Path | None = None
) -> None:
    """Write the manifest CSV to a path (paths relative to its folder unless ``relative_to`` says
    otherwise) or to an open text stream (paths absolute unless ``relative_to`` is given)."""
    if isinstance(out, (str, Path)):
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        base = relative_to if relative_to is not None else out.parent
        with open(out, "w", newline="", encoding="utf-8") as fh:
            _write_rows(manifest_rows(pairs, base), fh)
    else:
        _write_rows(manifest_rows(pairs, relative_to), out)


def _write_rows(rows: list[dict[str, str]], fh: TextIO) -> None:
    columns = list(REQUIRED_COLUMNS) + [c for c in OPTIONAL_COLUMNS if any(r[c] for r in rows)]
    writer = csv.DictWriter(fh, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def manifest_text(pairs: list[BenchmarkPair], relative_to: str | Path | None = None) -> str:
    """The manifest CSV as a string."""
    buffer = io.StringIO()
    write_manifest(pairs, buffer, relative_to)
    return buffer.getvalue()
