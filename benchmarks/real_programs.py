"""One run of every buggy and fixed program of a runtime manifest, through the installed ``mutreal``.

Usage::

    python benchmarks/real_programs.py MANIFEST [--sides fixed,buggy] [--time-limit S] [--jobs N]
        [--limit K] [--benchmark B] [--json OUT] [--markdown OUT.md] [--store FILE] [--chunk N]
        [--run-arg ARG]...          # e.g. --run-arg=--modernize, or --run-arg=--executor --run-arg=pool
        [--retry-time-limit S] [--retry-memory-limit MIB] [--retry-store FILE] [--no-retry]
    python benchmarks/real_programs.py --from-json OUT [--markdown OUT.md]   # reprint, no runs
    python benchmarks/real_programs.py --from-json OUT --retry --json NEW    # the second pass only

MANIFEST is a runtime manifest (columns ``id, benchmark, buggy, fixed, entry, symptom,
data_missing``; paths relative to the manifest's folder, ``;`` between the files of a side, ``entry``
the side-relative path of the file to run when a side has several). Why this exists: mutreal's
training half was built on its own modern programs; whether it runs the programs of the public
benchmarks *as published* is only known by running every one of them. So this script trains each
program once (seed 0) with ``mutreal run --runs 1 --json`` (the command a user would type, in warm
workers, sandboxed, one campaign per chunk of programs sharing one run store, so a rerun reuses every
finished run and a crash of the runner on one chunk is retried program by program: one bad program
never stops the measurement), then prints per benchmark and side how many programs complete, crash
(by error class, with how many had rewrites applied), miss their data, are still training at the
time limit after at least one epoch ("trains (cut at limit)"), or time out before that, and the time
spent. Every failure is listed with a named cause (see :data:`CAUSES`).

A program stopped at the time limit (cut while training, or before its first epoch) or at the memory
limit gets a second chance: once every program has run, those alone run again with the longer
``--retry-time-limit`` and the larger ``--retry-memory-limit`` (in a store of their own, so the
first pass's runs stay as they were); the tables give both passes, and a program that completes only
then is counted and listed as such. Real programs train for their authors' epochs (DeepFD's
``epoch_50000``), and a fixed limit short enough to measure a whole benchmark in an hour cuts them.

A program's command-line arguments come from the manifest's ``args`` (``args_<side>``) column, read
by mutreal's manifest code, or, where the manifest has none, from the command its benchmark's
layout records (Defects4ML's ``test_suite.py``: ``cd fixed;python gol.py 20 30``); they are passed
to ``mutreal run --args-from``.

Fields of the run record read when present (other helpers add them; nothing here depends on them):
``modernize_changes``, ``era``, ``framework``, ``rewrites``, ``fits``, ``output_tail``.

It prints figures; it is not a timed test (``tests/tools/test_real_programs.py`` runs it on two
programs of its own).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling module, run as a script or loaded by path
import real_programs_causes as causes  # noqa: E402
from real_programs_causes import COMPLETES, CRASH, LOST, MEMORY, MISSING, STATUSES, TIMEOUT, TRAINS_CUT  # noqa: E402

#: Characters of a failure's traceback kept in the results (its end).
TRACEBACK_CHARS = 700


@dataclass
class Program:
    """One side of one bug of the manifest, resolved to the file that runs."""

    id: str
    benchmark: str
    side: str
    path: str
    data_missing: bool = False
    note: str = ""
    #: its command-line arguments (the manifest's ``args``, or its benchmark's recorded command)
    args: list[str] | None = None


@dataclass
class Result:
    """What one run of one program gave, as this script reports it."""

    id: str
    benchmark: str
    side: str
    path: str
    status: str
    outcome: str = ""
    error_type: str | None = None
    error_message: str | None = None
    cause: str | None = None
    wall_time_s: float = 0.0
    epochs: int = 0
    metric_name: str | None = None
    metric: float | None = None
    modernize_changes: list[str] = field(default_factory=list)
    era: str | None = None
    framework: str | None = None
    rewrites: list[str] | None = None
    note: str = ""
    reused: bool = False
    #: the end of the failure's traceback (where the program's own line is)
    traceback_tail: str | None = None
    #: the run's peak resident memory (its whole worker), MiB
    peak_rss_mb: float | None = None
    args: list[str] | None = None
    #: set when the second pass ran it again: the longer limits, and the first pass's verdict
    retry: str | None = None
    first_status: str | None = None
    first_cause: str | None = None
    first_wall_time_s: float | None = None

    @property
    def at_longer_limit(self) -> bool:
        """Whether it completes only at the second pass's longer limits."""
        return self.status == COMPLETES and self.first_status is not None

    @property
    def touched(self) -> bool:
        """Whether a rewrite (modernization, era rewrites) was applied to the program before it ran."""
        changed = [c for c in self.modernize_changes if not c.startswith("not modernized")]
        return bool(changed or self.rewrites)


# ----------------------------------------------------------------------------------- the manifest


def _pick_entry(files: list[str], entry: str, root: Path) -> tuple[str | None, str]:
    """The file of a side that runs: the one ``entry`` names, the only one, or the one that trains."""
    if not files:
        return None, "the side lists no file"
    if entry:
        wanted = entry.replace("\\", "/").strip("/")
        for name in files:
            if name.replace("\\", "/").endswith("/" + wanted) or name == wanted:
                return name, ""
        return None, f"entry {entry!r} is not one of the side's files"
    if len(files) == 1:
        return files[0], ""
    for name in files:  # several files, no entry: the one that trains
        try:
            text = (root / name).read_text(errors="replace")
        except OSError:
            continue
        if re.search(r"\.fit(_generator)?\(|Session\(", text):
            return name, f"no entry among {len(files)} files: ran the one that trains"
    return files[0], f"no entry among {len(files)} files: ran the first"


def _side_missing(missing: list[str], side_file: str, other_file: str) -> bool:
    """Whether the manifest's missing data concerns this side (not only the other side's folder)."""
    if not missing:
        return False
    own, other = Path(side_file).parent, Path(other_file).parent
    for item in missing:
        path = Path(item)
        if own in path.parents or own == path.parent:
            return True
        if other in path.parents:
            continue
        return True  # beside both sides (the bug's own data folder)
    return False


def _recorded_args(path: str) -> list[str] | None:
    """The arguments the program's benchmark runs it with, where its layout records a command
    (a Defects4ML ``test_suite.py`` beside the ``buggy``/``fixed`` folder it sits in)."""
    from mutreal.study.layouts import recorded_commands

    program = Path(path)
    for folder in program.parents:
        if folder.name in ("buggy", "fixed"):
            commands = recorded_commands(folder.parent / "test_suite.py").get(folder.name, {})
            return commands.get(program.relative_to(folder).as_posix())
    return None


def _args_of(row: dict[str, str], side: str, path: str) -> list[str] | None:
    """A side's arguments: the row's ``args_<side>`` / ``args`` cell (mutreal's manifest rule), else
    the command the benchmark records; None when neither gives any."""
    from mutreal.manifest import args_of

    return args_of(row, side) or (_recorded_args(path) if path else None)


def read_manifest(path: Path, sides: list[str], benchmark: str | None, limit: int | None) -> list[Program]:
    """The programs to run, side by side in the order of ``sides`` (all fixed ones first by default)."""
    root = path.resolve().parent
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if benchmark:
        wanted = {b.strip().lower() for b in benchmark.split(",")}
        rows = [r for r in rows if (r.get("benchmark") or "").lower() in wanted]
    if limit is not None:
        rows = rows[:limit]
    programs: list[Program] = []
    for side in sides:
        other = "buggy" if side == "fixed" else "fixed"
        for row in rows:
            files = [f for f in (row.get(side) or "").split(";") if f]
            others = [f for f in (row.get(other) or "").split(";") if f]
            chosen, note = _pick_entry(files, (row.get("entry") or "").strip(), root)
            missing = [m for m in (row.get("data_missing") or "").split(";") if m]
            path_text = str(root / chosen) if chosen else ""
            other_file = others[0] if others else ""
            programs.append(
                Program(
                    id=row["id"],
                    benchmark=row.get("benchmark") or "?",
                    side=side,
                    path=path_text,
                    data_missing=bool(chosen) and _side_missing(missing, chosen, other_file),
                    note=note,
                    args=_args_of(row, side, path_text),
                )  # fmt: skip
            )
    return programs


# -------------------------------------------------------------------------------------- the runs


def _epochs(record: dict[str, Any]) -> int:
    """Epochs the run finished, from its ``fit`` histories or, failing that, its output's progress."""
    done = sum(int(f.get("epochs") or 0) for f in record.get("fits") or [])
    if done:
        return done
    tail = record.get("output_tail") or ""
    marks = re.findall(r"Epoch (\d+)/\d+", tail)
    if marks:
        return max(int(m) - 1 for m in marks)
    # no epoch line left in the tail: a finished epoch's own line (a full bar, or verbose=2's line, with
    # its time and loss) still shows one epoch done
    return 1 if _FINISHED_EPOCH.search(tail) else 0


#: The line Keras prints when an epoch ends: ``6/6 [=====] - 1s 60ms/step - loss: ...`` or ``50/50 - 6s - loss:``.
_FINISHED_EPOCH = re.compile(r"(?m)^\s*(\d+)/\1 (?:\[=+\] )?- \d+m?s [^\n]*\bloss: ")


def classify(program: Program, row: dict[str, Any], record: dict[str, Any]) -> Result:
    """The script's verdict on one run (``row`` from ``mutreal run --json``, ``record`` from the store)."""
    outcome = str(row.get("outcome") or record.get("outcome") or "")
    epochs = _epochs(record)
    status = {
        "ok": COMPLETES, "crash": CRASH, "missing-data": MISSING, "memory": MEMORY, "lost": LOST,
    }.get(outcome, TIMEOUT if outcome == "timeout" else LOST)  # fmt: skip
    if outcome == "timeout" and epochs >= 1:
        status = TRAINS_CUT
    error_type = row.get("error_type")
    message = causes.graph_detail(row.get("error_message"), record.get("traceback"))
    trace = (record.get("traceback") or "")[-TRACEBACK_CHARS:]
    if status == CRASH and causes.cause_of(error_type, message) == "missing data":
        status = MISSING
    if status == MISSING and causes.writes_a_file(trace):
        status = CRASH  # the program's output folder is not there: not its data
    failed = status not in (COMPLETES, TRAINS_CUT)
    cause = causes.cause_of(error_type, message, trace, epochs) if failed else None
    status, cause, message = causes.refined(program.path, status, cause, message, error_type, epochs)
    if status in (TIMEOUT, MEMORY):
        cause = "time limit" if status == TIMEOUT else "memory limit"
    return Result(
        id=program.id, benchmark=program.benchmark, side=program.side, path=program.path, status=status,
        outcome=outcome, error_type=error_type, error_message=message,
        cause=cause,
        wall_time_s=float(row.get("wall_time_s") or 0.0), epochs=epochs, metric_name=row.get("metric_name"),
        metric=row.get("metric"), modernize_changes=list(record.get("modernize_changes") or []),
        era=record.get("era"), framework=record.get("framework"), rewrites=record.get("rewrites"),
        note=program.note, reused=bool(record.get("reused")), traceback_tail=trace or None,
        peak_rss_mb=record.get("peak_rss_mb"), args=program.args,
    )  # fmt: skip


def _stored_records(store: Path, keys: list[str]) -> dict[str, dict[str, Any]]:
    """Full run records by key from the run store (its ``record`` column); empty when unreadable."""
    if not keys or not store.exists():
        return {}
    try:
        with sqlite3.connect(store) as db:
            marks = ",".join("?" * len(keys))
            rows = db.execute(f"SELECT key, record FROM runs WHERE key IN ({marks})", keys).fetchall()
    except sqlite3.Error:
        return {}
    return {key: json.loads(text) for key, text in rows}


def mutreal_command() -> list[str]:
    """The installed ``mutreal`` console script (beside this Python, else on PATH)."""
    beside = Path(sys.executable).parent / "mutreal"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("mutreal")
    return [found] if found else [sys.executable, "-m", "mutreal"]


def _args_manifest(programs: list[Program], folder: Path) -> Path | None:
    """A manifest of the programs that take arguments (for ``mutreal run --args-from``), or None."""
    from mutreal.manifest import join_args

    taking = [p for p in programs if p.args]
    if not taking:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix="args-", suffix=".csv")
    with os.fdopen(handle, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "buggy", "fixed", "args"])
        for p in taking:
            writer.writerow([p.id, p.path if p.side == "buggy" else "", p.path if p.side == "fixed" else "",
                             join_args(p.args or [])])  # fmt: skip
    return Path(name)


def _campaign(
    programs: list[Program], args: argparse.Namespace, store: Path
) -> tuple[list[dict[str, Any]] | None, str]:
    """Run ``programs`` as one ``mutreal run`` campaign: its JSON run rows, or None and why not."""
    paths = [p.path for p in programs]
    with_args = _args_manifest(programs, store.parent)
    command = [
        *mutreal_command(), "run", "--runs", "1", "--json", "-q", "--timeout", str(args.time_limit),
        "--jobs", str(args.jobs), "--store", str(store),
        *(["--memory-limit", str(args.memory_limit)] if args.memory_limit else []),
        *(["--args-from", str(with_args)] if with_args else []), *args.run_arg, *paths,
    ]  # fmt: skip
    budget = len(paths) * (args.time_limit + 30) + 180
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=budget, check=False)
    except subprocess.TimeoutExpired:
        return None, f"mutreal run did not finish within {budget:g} s"
    finally:
        if with_args:
            with_args.unlink(missing_ok=True)
    try:
        start = done.stdout.index("{")
        payload = json.JSONDecoder().raw_decode(done.stdout[start:])[0]
        return list(payload["runs"]), ""
    except (ValueError, KeyError, TypeError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return None, f"mutreal run exited {done.returncode} without JSON: {' | '.join(tail)[:400]}"


def run_chunk(chunk: list[Program], args: argparse.Namespace, store: Path) -> list[Result]:
    """Results of one chunk; a chunk the runner fails on is retried one program at a time."""
    rows, why = _campaign(chunk, args, store)
    if rows is None and len(chunk) > 1:
        return [r for p in chunk for r in run_chunk([p], args, store)]
    if rows is None:
        p = chunk[0]
        return [Result(id=p.id, benchmark=p.benchmark, side=p.side, path=p.path, status=LOST, outcome="runner",
                       error_type="RunnerError", error_message=why, cause="runner", note=p.note)]  # fmt: skip
    by_path = {str(Path(r["program"]).resolve()): r for r in rows}
    if len(chunk) == 1 and len(rows) == 1:  # a run stored under another path: the same program and data
        by_path = {str(Path(chunk[0].path).resolve()): rows[0]}
    unmatched = [p for p in chunk if str(Path(p.path).resolve()) not in by_path]
    if unmatched and len(chunk) > 1:  # asked alone, its run comes back whatever path it is stored under
        retried = {id(p): run_chunk([p], args, store)[0] for p in unmatched}
    else:
        retried = {}
    records = _stored_records(store, [r["key"] for r in rows if r.get("key")])
    results = []
    for p in chunk:
        if id(p) in retried:
            results.append(retried[id(p)])
            continue
        row = by_path.get(str(Path(p.path).resolve()))
        if row is None:
            results.append(Result(id=p.id, benchmark=p.benchmark, side=p.side, path=p.path, status=LOST,
                                  outcome="runner", error_type="RunnerError", cause="runner",
                                  error_message="mutreal run returned no run for this program", note=p.note))  # fmt: skip
            continue
        results.append(classify(p, row, records.get(row.get("key") or "", {})))
    return results


def _not_run(program: Program, status: str, message: str) -> Result:
    return Result(id=program.id, benchmark=program.benchmark, side=program.side, path=program.path, status=status,
                  outcome="not run", error_message=message, cause=status, note=program.note)  # fmt: skip


# ------------------------------------------------------------------------------- the second pass


def retry_limits(args: argparse.Namespace) -> tuple[float, float]:
    """The second pass's time and memory limits: as given, else 600 s and 80% of this machine's
    memory shared by the jobs (never below the first pass's)."""
    import psutil

    memory = args.retry_memory_limit
    if memory is None:
        memory = 0.8 * psutil.virtual_memory().total / (1024 * 1024) / max(1, args.jobs)
    return max(args.retry_time_limit, args.time_limit), max(memory, args.memory_limit or 0.0)


def second_pass(results: list[Result], args: argparse.Namespace, store: Path) -> list[Result]:
    """The results with every program stopped at a limit run once more at the longer limits (in
    ``store``, the second pass's own), each new result carrying its first-pass verdict."""
    seconds, mib = retry_limits(args)
    chosen = [
        r for r in results
        if r.first_status is None and ((r.status in (TRAINS_CUT, TIMEOUT) and seconds > args.time_limit)
                                       or (r.status == MEMORY and mib > (args.memory_limit or 0.0)))
    ]  # fmt: skip
    args.retry_text = f"a time limit of {seconds:g} s and a memory limit of {mib:.0f} MiB"
    if not chosen:
        return results
    longer = argparse.Namespace(**{**vars(args), "time_limit": seconds, "memory_limit": mib})
    programs = [Program(r.id, r.benchmark, r.side, r.path, note=r.note, args=r.args) for r in chosen]
    again: dict[tuple[str, str, str], Result] = {}
    for start in range(0, len(programs), max(1, args.chunk)):
        for new in run_chunk(programs[start : start + max(1, args.chunk)], longer, store):
            again[(new.id, new.side, new.path)] = new
        print(f"[second pass {len(again)}/{len(programs)}]", file=sys.stderr, flush=True)
    out = []
    for r in results:
        new = again.get((r.id, r.side, r.path))
        if new is None:
            out.append(r)
            continue
        new.retry = f"time limit {seconds:g} s, memory limit {mib:.0f} MiB"
        new.first_status, new.first_cause, new.first_wall_time_s = r.status, r.cause, r.wall_time_s
        if new.status == TIMEOUT:
            new.cause = f"time limit (also at {seconds:g} s)"
        elif new.status == MEMORY:
            new.cause = f"memory limit (also at {mib:.0f} MiB)"
        out.append(new)
    return out


def first_pass(results: list[Result]) -> list[Result]:
    """The results as the first pass gave them (a retried program's first verdict and time)."""
    return [
        r if r.first_status is None
        else Result(**{**asdict(r), "status": r.first_status, "cause": r.first_cause,
                       "wall_time_s": r.first_wall_time_s or 0.0, "first_status": None})
        for r in results
    ]  # fmt: skip


# ----------------------------------------------------------------------------------- the figures


def _head(message: str | None, width: int = 110) -> str:
    text = " ".join((message or "").split())
    text = re.sub(r" \(this looks like a Keras 1/2-era program: try --modernize\)", "", text)
    return text if len(text) <= width else text[: width - 1] + "…"


def summary(results: list[Result]) -> dict[str, Any]:
    """Counts per benchmark and side (and overall), crash classes, time."""
    groups: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in results:
        groups[(r.benchmark, r.side)].append(r)
        groups[("ALL", r.side)].append(r)
    out: dict[str, Any] = {}
    for (bench, side), items in sorted(groups.items()):
        counts = Counter(r.status for r in items)
        crashes = Counter(r.error_type or "?" for r in items if r.status == CRASH)
        touched = Counter(r.error_type or "?" for r in items if r.status == CRASH and r.touched)
        present = [r for r in items if r.status != MISSING]
        ran = sum(1 for r in present if r.status in (COMPLETES, TRAINS_CUT))
        out[f"{bench}/{side}"] = {
            "programs": len(items), **{s: counts.get(s, 0) for s in STATUSES},
            "data_present": len(present), "share_runs_of_present": round(ran / len(present), 3) if present else None,
            "crash_classes": dict(crashes.most_common()), "crash_classes_rewritten": dict(touched),
            "time_s": round(sum(r.wall_time_s for r in items), 1),
            "completes_at_longer_limit": sum(r.at_longer_limit for r in items),
            "retried": sum(r.first_status is not None for r in items),
        }  # fmt: skip
    return out


def _table(figures: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per benchmark and side: counts, the share that runs among programs with their data,
    time; ``longer`` counts the programs that complete only at the second pass's limits."""
    rows = []
    for name, f in figures.items():
        share = "-" if f["share_runs_of_present"] is None else f"{100 * f['share_runs_of_present']:.0f}%"
        rows.append((name, str(f["programs"]), str(f[COMPLETES]), str(f.get("completes_at_longer_limit", 0)),
                     str(f[CRASH]), str(f[MISSING]), str(f[TRAINS_CUT]), str(f[TIMEOUT]), str(f[MEMORY]),
                     str(f[LOST]), share, f"{f['time_s']:.0f}"))  # fmt: skip
    return rows


def _passes(results: list[Result]) -> list[tuple[str, list[Result]]]:
    """The tables to print: the results, and before them the first pass's when a second pass ran."""
    if not any(r.first_status is not None for r in results):
        return [("", results)]
    return [("first pass", first_pass(results)), ("after the second pass", results)]


def _longer(results: list[Result]) -> list[str]:
    """One line per program the second pass ran: its first verdict and time, and its second."""
    return [
        f"{r.id} {r.side}: {r.first_status} at {r.first_wall_time_s or 0:.0f} s -> {r.status} in "
        f"{r.wall_time_s:.0f} s ({r.retry})"
        for r in sorted(results, key=lambda r: (not r.at_longer_limit, r.benchmark, r.id))
        if r.first_status is not None
    ]  # fmt: skip


def print_figures(results: list[Result], elapsed: float) -> None:
    """The tables: per benchmark and side; crash classes; every failure with its cause."""
    figures = summary(results)
    header = ("benchmark/side", "N", "ok", "ok-longer", "crash", "missing", "trains-cut", "timeout", "memory",
              "lost", "ok/present", "time s")  # fmt: skip
    for title, items in _passes(results):
        table = [header, *_table(summary(items))]
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]
        print(f"{title}:" if title else "", end="\n" if title else "")
        print("\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table))
    print("\n(ok/present: completes or trains (cut at limit), among programs whose data is present; "
          "ok-longer: of ok, those that complete only at the second pass's longer limits)")  # fmt: skip
    if any(r.first_status is not None for r in results):
        print("\nsecond pass (programs stopped at a limit, run again at longer limits):")
        print("\n".join(f"  {line}" for line in _longer(results)))
    print("\ncrashes by error class (rewritten: rewrites were applied before the run):")
    for name, f in figures.items():
        if f["crash_classes"] and not name.startswith("ALL"):
            parts = [f"{k} {v}" + (f" (rewritten {f['crash_classes_rewritten'][k]})"
                                   if k in f["crash_classes_rewritten"] else "")
                     for k, v in f["crash_classes"].items()]  # fmt: skip
            print(f"  {name}: " + ", ".join(parts))
    failures = [r for r in results if r.status not in (COMPLETES, TRAINS_CUT)]
    print(f"\nfailures by cause ({len(failures)}):")
    by_cause: dict[str, list[Result]] = defaultdict(list)
    for r in failures:
        by_cause[r.cause or "other"].append(r)
    for cause, items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        print(f"  {cause} ({len(items)}):")
        for r in sorted(items, key=lambda r: (r.benchmark, r.id, r.side)):
            extra = []
            if r.era or r.framework:
                extra.append(f"era {r.era} on {r.framework}")
            if r.touched:
                extra.append("rewritten")
            suffix = f" [{'; '.join(extra)}]" if extra else ""
            print(f"    {r.id} {r.side}: {r.error_type or r.outcome}: {_head(r.error_message)}{suffix}")
    print(f"\n{len(results)} programs, {elapsed:.0f} s")


def markdown(results: list[Result], meta: dict[str, Any]) -> str:
    """The figures as Markdown: counts per benchmark and side, then every failure grouped by cause
    and, within a cause, by error class and message head, with the program ids (what a reader
    looking for the removed APIs real programs hit needs)."""
    lines = [
        "# Real programs: one run of every program of the runtime corpus",
        "",
        f"Manifest `{meta.get('manifest')}`, time limit {meta.get('time_limit_s')} s per run, "
        f"--jobs {meta.get('jobs')}, memory limit per worker: {_limit_text(meta.get('memory_limit_mb', 4096.0))}, "
        f"`mutreal run` arguments: {meta.get('run_args') or 'none'}; "
        f"{'complete' if meta.get('complete') else 'PARTIAL (still running)'}: {len(results)} programs. "
        f"Printed by `python benchmarks/real_programs.py --from-json {meta.get('json', 'OUT.json')}`.",
    ]
    if meta.get("retry"):
        lines[-1] += (f" Second pass: programs stopped at a limit ran again with {meta['retry']} "
                      "('completes at longer limit': of the programs that complete, those that did only then).")  # fmt: skip
    for title, items in _passes(results):
        lines += ["", *([f"**{title.capitalize()}**", ""] if title else [])]
        lines += [
            "| benchmark/side | N | completes | completes at longer limit | crash | missing data | trains (cut) "
            "| timeout | memory | lost | runs / data present | time s |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *("| " + " | ".join(row) + " |" for row in _table(summary(items))),
        ]
    if any(r.first_status is not None for r in results):
        lines += ["", "## Second pass: programs stopped at a limit, run again at longer limits", ""]
        lines += [f"- {line}" for line in _longer(results)]
    failures = [r for r in results if r.status not in (COMPLETES, TRAINS_CUT)]
    by_cause: dict[str, dict[tuple[str, str], list[Result]]] = defaultdict(lambda: defaultdict(list))
    for r in failures:
        by_cause[r.cause or "other"][(r.error_type or r.outcome, _head(r.error_message, 100))].append(r)
    lines += ["", f"## Failures by cause ({len(failures)})", ""]
    for cause, groups in sorted(by_cause.items(), key=lambda kv: -sum(len(v) for v in kv[1].values())):
        lines.append(f"### {cause} ({sum(len(v) for v in groups.values())})")
        lines.append("")
        for (error, head), items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            names = ", ".join(
                f"{r.id} {r.side}" + (" (rewritten)" if r.touched else "")
                for r in sorted(items, key=lambda r: (r.id, r.side))
            )
            lines.append(f"- `{error}: {head}` ({len(items)}): {names}")
        lines.append("")
    return "\n".join(lines)


def _limit_text(limit: Any) -> str:
    return f"{limit:g} MiB" if isinstance(limit, (int, float)) else str(limit)


def write_json(path: Path, results: list[Result], args: argparse.Namespace, done: bool) -> None:
    """The raw results and the figures (rewritten after every chunk, so a partial run is readable)."""
    payload = {
        "manifest": str(args.manifest), "time_limit_s": args.time_limit, "jobs": args.jobs,
        "memory_limit_mb": args.memory_limit or "mutreal run's default (80% of RAM / jobs)",
        "run_args": args.run_arg, "complete": done, "elapsed_s": round(time.monotonic() - args.started, 1),
        "retry": getattr(args, "retry_text", None),
        "summary": summary(results), "first_pass_summary": summary(first_pass(results)),
        "results": [asdict(r) for r in results],
    }  # fmt: skip
    _write_atomic(path, json.dumps(payload, indent=1, default=str))
    if args.markdown:
        _write_atomic(args.markdown, markdown(results, {**payload, "json": str(path)}))


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as out:
        out.write(text)
    os.replace(temp, path)


def load_results(path: Path) -> tuple[dict[str, Any], list[Result]]:
    """A saved ``--json`` file's payload and results, causes named as this script names them now
    (the file may be older than its rules)."""
    payload = json.loads(path.read_text())
    names = {f.name for f in fields(Result)}
    results = [Result(**{k: v for k, v in row.items() if k in names}) for row in payload["results"]]
    for r in results:
        if r.status == MISSING and r.outcome != "not run" and causes.writes_a_file(r.traceback_tail):
            r.status = CRASH
        if r.status == CRASH:
            r.cause = causes.cause_of(r.error_type, r.error_message, r.traceback_tail, r.epochs)
            r.status, r.cause, r.error_message = causes.refined(
                r.path, r.status, r.cause, r.error_message, r.error_type, r.epochs
            )
        elif r.status in (TIMEOUT, MEMORY) and r.first_status is None:
            r.cause = "time limit" if r.status == TIMEOUT else "memory limit"
    return payload, results


def from_json(path: Path, markdown_out: Path | None) -> int:
    """Print the figures of a saved ``--json`` file (and write its Markdown) without running anything."""
    payload, results = load_results(path)
    if markdown_out:
        _write_atomic(markdown_out, markdown(results, {**payload, "json": str(path)}))
    print_figures(results, float(payload.get("elapsed_s") or 0.0))
    return 0


def retry_from_json(args: argparse.Namespace) -> int:
    """The second pass of a saved ``--json`` (its programs stopped at a limit, at the longer limits),
    written to ``--json`` with the first pass's figures kept; the first pass's settings are the file's."""
    payload, results = load_results(args.from_json)
    if not args.json_out:
        raise SystemExit("--retry needs --json (where the results of both passes are written)")
    memory = payload.get("memory_limit_mb")
    args.time_limit = float(payload.get("time_limit_s") or args.time_limit)
    args.memory_limit = float(memory) if isinstance(memory, (int, float)) else None
    args.manifest, args.run_arg = payload.get("manifest"), list(payload.get("run_args") or [])
    args.started = time.monotonic() - float(payload.get("elapsed_s") or 0.0)
    store = args.retry_store or args.json_out.with_suffix(".retry.sqlite")
    results = second_pass(results, args, store)
    write_json(args.json_out, results, args, done=bool(payload.get("complete")))
    print_figures(results, time.monotonic() - args.started)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifest", type=Path, nargs="?")
    parser.add_argument("--from-json", type=Path, default=None, help="print the figures of a saved --json")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the figures as Markdown")
    parser.add_argument("--sides", default="fixed,buggy", help="sides to run, in order [fixed,buggy]")
    parser.add_argument("--time-limit", type=float, default=90.0, help="seconds per run [90]")
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers per campaign [1]")
    parser.add_argument(
        "--memory-limit", type=float, default=None,
        help="MiB per worker [mutreal run's default: 80%% of this machine's memory / jobs]",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=None, help="only the first K bugs (after --benchmark)")
    parser.add_argument("--benchmark", default=None, help="only these benchmarks (comma-separated)")
    parser.add_argument("--json", dest="json_out", type=Path, default=None, help="write raw results here")
    parser.add_argument(
        "--store", type=Path, default=None, help="run store (reused by reruns) [beside --json]"
    )
    parser.add_argument("--chunk", type=int, default=12, help="programs per mutreal campaign [12]")
    parser.add_argument(
        "--run-arg", action="append", default=[], help="extra `mutreal run` argument (repeatable)"
    )
    parser.add_argument("--run-missing", action="store_true", help="also run programs whose data is missing")
    parser.add_argument("--retry-time-limit", type=float, default=900.0,
                        help="second pass: seconds per run for programs stopped at the time limit [900: "
                        "TFBugs2018's 20,000-step programs take 530 s on a 2-core machine]")
    parser.add_argument("--retry-memory-limit", type=float, default=None,
                        help="second pass: MiB per worker for programs stopped at the memory limit "
                        "[80%% of this machine's memory / jobs]")
    parser.add_argument("--retry-store", type=Path, default=None,
                        help="the second pass's run store [beside the store: <stem>.retry.sqlite]")
    parser.add_argument("--no-retry", action="store_true", help="no second pass")
    parser.add_argument("--retry", action="store_true",
                        help="with --from-json: run its second pass only (its programs stopped at a limit)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.from_json and args.retry:
        return retry_from_json(args)
    if args.from_json:
        return from_json(args.from_json, args.markdown)
    if args.manifest is None or not args.manifest.is_file():
        parser.error(f"no manifest at {args.manifest}")
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    if not sides or any(s not in ("buggy", "fixed") for s in sides):
        parser.error("--sides takes buggy, fixed or both")
    programs = read_manifest(args.manifest, sides, args.benchmark, args.limit)
    store = args.store or (args.json_out.with_suffix(".sqlite") if args.json_out
                           else Path(tempfile.mkdtemp(prefix="real-programs-")) / "runs.sqlite")  # fmt: skip
    started = args.started = time.monotonic()
    results: list[Result] = []
    queue: list[Program] = []
    for p in programs:
        if not p.path:
            results.append(_not_run(p, LOST, p.note or "no file to run"))
        elif p.data_missing and not args.run_missing:
            results.append(_not_run(p, MISSING, "data missing (manifest's data_missing)"))
        else:
            queue.append(p)
    for start in range(0, len(queue), max(1, args.chunk)):
        chunk = queue[start : start + max(1, args.chunk)]
        results.extend(run_chunk(chunk, args, store))
        print(
            f"[{len(results)}/{len(programs)}] {time.monotonic() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        if args.json_out:
            write_json(args.json_out, results, args, done=False)
    order = {(p.id, p.side): i for i, p in enumerate(programs)}
    results.sort(key=lambda r: order.get((r.id, r.side), 0))
    if not args.no_retry:
        results = second_pass(results, args, args.retry_store or store.with_name(f"{store.stem}.retry.sqlite"))
    if args.json_out:
        write_json(args.json_out, results, args, done=True)
    print_figures(results, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
