"""One run of every buggy and fixed program of a runtime manifest, through the installed ``mutreal``.

Usage::

    python benchmarks/real_programs.py MANIFEST [--sides fixed,buggy] [--time-limit S] [--jobs N]
        [--limit K] [--benchmark B] [--json OUT] [--markdown OUT.md] [--store FILE] [--chunk N]
        [--run-arg ARG]...          # e.g. --run-arg=--modernize, or --run-arg=--executor --run-arg=pool
    python benchmarks/real_programs.py --from-json OUT [--markdown OUT.md]   # reprint, no runs

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

#: Characters of a failure's traceback kept in the results (its end).
TRACEBACK_CHARS = 700
#: Outcome words this script reports (the run record's outcome, refined).
COMPLETES = "completes"
CRASH = "crash"
MISSING = "missing data"
TRAINS_CUT = "trains (cut at limit)"
TIMEOUT = "timeout"
MEMORY = "memory"
LOST = "lost"
STATUSES = (COMPLETES, CRASH, MISSING, TRAINS_CUT, TIMEOUT, MEMORY, LOST)

#: (cause, pattern on "ErrorType: message") in order; the first match names a failure's cause.
CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.S))
    for name, pattern in (
        (
            "missing data",
            r"^(FileNotFoundError|MissingData|URLError|HTTPError|OSError: \[Errno -?\d+\] "
            r"(No such file|Temporary failure|Name or service))|download|Errno 2|Errno -3|"
            r"unable to open file|No such file or directory|urlopen error|not found: .*\.(csv|txt|npy|h5|gz)"
            r"|Input 'filename' of 'ReadFile' Op has type float32"  # a glob that found no file
            r"|No data files found",  # a program's own check of its data folder
        ),
        (
            "instrumentation (benchmark scaffolding)",
            r"DeepLocalize|keras\.callbacks' has no attribute|time\.clock|'clock'|SystemExit",
        ),
        (
            "removed Python/numpy/scipy/sklearn API",
            r"module 'numpy' has no attribute|numpy\.\w+` was a deprecated"
            r"|scipy\.misc|has no attribute 'imread'|has no attribute 'imresize'|module 'time' has no attribute"
            r"|cannot import name '\w+' from 'collections'|sklearn\.cross_validation|No module named 'sklearn\.\w+'"
            r"|np\.(float|int|bool|object)\b|has no attribute 'asscalar'|fractions|inspect\.getargspec"
            r"|categorical_features|OneHotEncoder|Imputer|sklearn\.(externals|grid_search|learning_curve)",
        ),
        (
            "TensorFlow 1 Estimators (tf.estimator removed in TensorFlow 2.16)",
            r"Estimators left with tf\.estimator|has no attribute 'estimator'"
            r"|has no attribute '(real_valued_column|sparse_column\w*|embedding_column|LinearRegressor|DNNClassifier)'",
        ),
        ("distributed TensorFlow (needs a cluster and its job arguments)", r'Job "[^"]*" was not defined in cluster'),
        ("TF1 graph: the program leaves a placeholder unfed", r"You must feed a value for placeholder"),
        (
            "TensorFlow 1 API",
            r"module 'tensorflow' has no attribute|tensorflow\.contrib|No module named "
            r"'tensorflow\.(contrib|examples)|tf\.(placeholder|Session|compat\.v1)|tensorflow\.compat\.v1"
            r"|eager execution|tensorflow\.python\.\w+' has no attribute"
            r"|make_(initializable|one_shot)_iterator|has no attribute '(get_default_graph|Session)'",
        ),
        (
            "Keras 3 removal/change",
            r"keras\.(layers\.core|utils\.np_utils|wrappers|preprocessing|engine|legacy)"
            r"|No module named 'keras\.|cannot import name '\w+' from 'keras|ImageDataGenerator|nb_epoch"
            r"|Unrecognized keyword arguments|Argument\(s\) not recognized|unexpected keyword argument"
            r"|A KerasTensor cannot be used as input to a TensorFlow function"
            r"|expected a positive integer|must end in `\.weights\.h5`"
            r"|^KeyError: '(val_)?acc'|\bKeras [23]\b|\bMerge\b|predict_classes|fit_generator|evaluate_generator|has no attribute "
            r"'(get_session|set_session|image_dim_ordering|set_image_dim_ordering|_get_available_gpus)'",
        ),
        (
            "SciKeras on tf_keras: a model without an input shape before fit",
            r"len\(self\.model_\.outputs\)",  # SciKeras counts the outputs of the model its builder returned
        ),
        ("missing package", r"^ModuleNotFoundError|^ImportError|TensorBoard is not installed"),
        # an object array (e.g. a pandas object column): Keras 2 on TensorFlow 1 fed it as float, tf_keras refuses
        ("shape/dtype error", r"shape|Shape|dimension|Dimension|rank|dtype|incompatible|Incompatible"
         r"|Failed to convert a NumPy array to a Tensor"),
        ("syntax (Python 2 or broken file)", r"^(SyntaxError|IndentationError|TabError)"),
        ("worker", r"WorkerDied|ChannelError|killed|signal"),
    )
)


#: The cause of a FileNotFoundError raised by a write: the program's output folder is not there (a
#: program written to run from another working directory), which says nothing about its data.
WRITES_MISSING_FOLDER = "writes into a folder that is not there (working directory)"
#: The program's last line of a traceback, when it writes a file (open for writing, savers).
_WRITE_CALL = re.compile(
    r"""\bopen\([^\n]*,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]|\.(?:to_csv|to_json|savefig|save|save_weights|"""
    r"""imwrite|savetxt|dump)\("""
)
#: Packages the programs import that mutreal's extras do not install, and why (see pyproject.toml's
#: ``benchmarks`` extra for those it does: OpenCV, seaborn).
PACKAGE_NOTES: dict[str, str] = {
    "mlflow": "experiment tracker, not installed",
    "hyperdash": "experiment tracker of a closed service, not installed",
    "keras_contrib": "published on GitHub only, not on PyPI",
    "tensorflow_datasets": "downloads its data sets at run time, which workers cannot",
    "tensorflow_probability": "not installed",
    "cv2": "install mutreal[benchmarks]",
    "seaborn": "install mutreal[benchmarks]",
}


def _writes(traceback: str | None) -> bool:
    """Whether the last line of the program a traceback shows writes a file."""
    lines = [line for line in (traceback or "").splitlines() if line.startswith("    ") and line.strip()]
    code = [line for line in lines if not line.lstrip().startswith(("File ", "^", "~"))]
    return bool(code) and bool(_WRITE_CALL.search(code[-1]))


def _missing_package(message: str | None) -> str:
    """``missing package`` with the package named, and why it is missing where this script knows."""
    found = re.search(r"No module named '([\w.]+)'|cannot import name '\w+' from '([\w.]+)'", message or "")
    if not found:
        return "missing package"
    module = found.group(1) or found.group(2)
    top = module.split(".")[0]
    if top in ("keras", "tf_keras", "tensorflow", "sklearn", "numpy", "scipy"):
        return "module moved or removed in an installed library"  # not a package to install
    note = PACKAGE_NOTES.get(top)
    return f"missing package: {top}" + (f" ({note})" if note else "")


@dataclass
class Program:
    """One side of one bug of the manifest, resolved to the file that runs."""

    id: str
    benchmark: str
    side: str
    path: str
    data_missing: bool = False
    note: str = ""


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
                )  # fmt: skip
            )
    return programs


# -------------------------------------------------------------------------------------- the runs


def cause_of(
    error_type: str | None, message: str | None, traceback: str | None = None, epochs: int = 0
) -> str:
    """The named cause of a failure, from its error class and message (``other`` when none fits).

    A crash after at least one finished epoch is named ``after training: <cause>`` (the program's own
    reporting code, or instrumentation, failed once the model had trained: a different matter from a
    program that never trains); a program reading ``sys.argv`` it was not given needs arguments; an
    ``assert`` on the framework's version (TFBugs2018 pins ``tf.__version__ == "1.8.0"``) is a pin; an
    otherwise unnamed error raised inside Keras 3 is one of its stricter checks (a float where it wants
    an int), which the Keras 2 these programs were written for let pass.
    """
    text = f"{error_type or ''}: {message or ''}"
    name = next((name for name, pattern in CAUSES if pattern.search(text)), "other")
    if name == "missing data" and _writes(traceback):
        name = WRITES_MISSING_FOLDER
    if name == "missing package":
        name = "missing package: tensorboard" if "TensorBoard is not installed" in text else _missing_package(message)
    if name == "other" and error_type == "IndexError" and "sys.argv" in (traceback or ""):
        name = "needs command-line arguments"
    if name == "other" and error_type == "AssertionError" and "__version__" in (traceback or ""):
        name = "version pin (assert on tf.__version__)"
    if name == "other" and "site-packages/keras/src/" in (traceback or ""):
        name = "Keras 3 stricter check (raised inside Keras 3)"
    if epochs >= 1 and name not in ("missing data",):
        name = f"after training: {name}"
    return name


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


#: Keras' built-in data sets -> the file (or folder) of each in the Keras data-set folder.
KERAS_DATASETS: dict[str, str] = {
    "mnist": "mnist.npz", "fashion_mnist": "fashion-mnist", "cifar10": "cifar-10-batches-py",
    "cifar100": "cifar-100-python", "imdb": "imdb.npz", "reuters": "reuters.npz",
    "boston_housing": "boston_housing.npz",
}  # fmt: skip


def _absent_keras_dataset(path: str) -> str | None:
    """The Keras built-in data set the program loads (``mnist.load_data()``) that the workers cannot
    serve (not in ``$KERAS_HOME/datasets`` or ``~/.keras/datasets``, shown read-only to them), if any."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    home = Path(os.environ.get("KERAS_HOME") or Path.home() / ".keras") / "datasets"
    for name in re.findall(r"\b(\w+)\.load_data\(", text):
        entry = KERAS_DATASETS.get(name)
        if entry and not any((home / f).exists() for f in (entry, entry + ".tar.gz")):
            return name
    return None


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
    error_type, message = row.get("error_type"), row.get("error_message")
    trace = (record.get("traceback") or "")[-TRACEBACK_CHARS:]
    if status == CRASH and cause_of(error_type, message) == "missing data":
        status = MISSING
    if status == MISSING and _writes(trace):
        status = CRASH  # the program's output folder is not there: not its data
    failed = status not in (COMPLETES, TRAINS_CUT)
    cause = cause_of(error_type, message, trace, epochs) if failed else None
    absent = _absent_keras_dataset(program.path) if cause and cause.startswith("missing package") else None
    if absent:  # it could not run here with the package either: its data is not present
        status, cause = MISSING, "missing data"
        message = f"{message} (and it loads Keras' {absent} data set, not available offline)"
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
        peak_rss_mb=record.get("peak_rss_mb"),
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


def _campaign(
    paths: list[str], args: argparse.Namespace, store: Path
) -> tuple[list[dict[str, Any]] | None, str]:
    """Run ``paths`` as one ``mutreal run`` campaign: its JSON run rows, or None and why not."""
    command = [
        *mutreal_command(), "run", "--runs", "1", "--json", "-q", "--timeout", str(args.time_limit),
        "--jobs", str(args.jobs), "--store", str(store),
        *(["--memory-limit", str(args.memory_limit)] if args.memory_limit else []), *args.run_arg, *paths,
    ]  # fmt: skip
    budget = len(paths) * (args.time_limit + 30) + 180
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=budget, check=False)
    except subprocess.TimeoutExpired:
        return None, f"mutreal run did not finish within {budget:g} s"
    try:
        start = done.stdout.index("{")
        payload = json.JSONDecoder().raw_decode(done.stdout[start:])[0]
        return list(payload["runs"]), ""
    except (ValueError, KeyError, TypeError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return None, f"mutreal run exited {done.returncode} without JSON: {' | '.join(tail)[:400]}"


def run_chunk(chunk: list[Program], args: argparse.Namespace, store: Path) -> list[Result]:
    """Results of one chunk; a chunk the runner fails on is retried one program at a time."""
    rows, why = _campaign([p.path for p in chunk], args, store)
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
        }  # fmt: skip
    return out


def print_figures(results: list[Result], elapsed: float) -> None:
    """The tables: per benchmark and side; crash classes; every failure with its cause."""
    figures = summary(results)
    header = ("benchmark/side", "N", "ok", "crash", "missing", "trains-cut", "timeout", "memory", "lost",
              "ok/present", "time s")  # fmt: skip
    table = [header]
    for name, f in figures.items():
        share = "-" if f["share_runs_of_present"] is None else f"{100 * f['share_runs_of_present']:.0f}%"
        table.append((name, str(f["programs"]), str(f[COMPLETES]), str(f[CRASH]), str(f[MISSING]),
                      str(f[TRAINS_CUT]), str(f[TIMEOUT]), str(f[MEMORY]), str(f[LOST]), share,
                      f"{f['time_s']:.0f}"))  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    print(
        "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table)
    )
    print("\n(ok/present: completes or trains (cut at limit), among programs whose data is present)")
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
    figures = summary(results)
    lines = [
        "# Real programs: one run of every program of the runtime corpus",
        "",
        f"Manifest `{meta.get('manifest')}`, time limit {meta.get('time_limit_s')} s per run, "
        f"--jobs {meta.get('jobs')}, memory limit per worker: {_limit_text(meta.get('memory_limit_mb', 4096.0))}, "
        f"`mutreal run` arguments: {meta.get('run_args') or 'none'}; "
        f"{'complete' if meta.get('complete') else 'PARTIAL (still running)'}: {len(results)} programs. "
        f"Printed by `python benchmarks/real_programs.py --from-json {meta.get('json', 'OUT.json')}`.",
        "",
        "| benchmark/side | N | completes | crash | missing data | trains (cut) | timeout | memory | lost "
        "| runs / data present | time s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, f in figures.items():
        share = "-" if f["share_runs_of_present"] is None else f"{100 * f['share_runs_of_present']:.0f}%"
        lines.append(
            f"| {name} | {f['programs']} | {f[COMPLETES]} | {f[CRASH]} | {f[MISSING]} | {f[TRAINS_CUT]} "
            f"| {f[TIMEOUT]} | {f[MEMORY]} | {f[LOST]} | {share} | {f['time_s']:.0f} |"
        )
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
        "summary": summary(results),
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


def from_json(path: Path, markdown_out: Path | None) -> int:
    """Print the figures of a saved ``--json`` file (and write its Markdown) without running anything."""
    payload = json.loads(path.read_text())
    names = {f.name for f in fields(Result)}
    results = [Result(**{k: v for k, v in row.items() if k in names}) for row in payload["results"]]
    for r in results:  # causes as this script names them now (the file may be older than its table)
        if r.status == MISSING and r.outcome != "not run" and _writes(r.traceback_tail):
            r.status = CRASH
        if r.status == CRASH:
            r.cause = cause_of(r.error_type, r.error_message, r.traceback_tail, r.epochs)
        elif r.status in (TIMEOUT, MEMORY):
            r.cause = "time limit" if r.status == TIMEOUT else "memory limit"
    if markdown_out:
        _write_atomic(markdown_out, markdown(results, {**payload, "json": str(path)}))
    print_figures(results, float(payload.get("elapsed_s") or 0.0))
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
    args = parser.parse_args(argv)
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
    if args.json_out:
        write_json(args.json_out, results, args, done=True)
    print_figures(results, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
