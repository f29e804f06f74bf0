"""`make mutation`: mutation-test mutreal's decisive logic with mutmut 3 and report the survivors.

Why a wrapper: mutmut mutates whole files and runs one pytest selection; the verdict logic needs
a test selection per group (stats tests for stats/, classify tests for the noise rules ...) and a
score per module. So each group of tools/mutation/scope.toml runs in its own scratch folder
(build/mutation/<group>: a copy of src/, tests/ and the data the tests read, plus a generated
pyproject.toml carrying the [tool.mutmut] settings, so the project's own pyproject.toml stays free
of them), and only the mutants of the listed functions are run.

Equivalent mutants are listed one by one in tools/mutation/equivalent.toml with the change they
make and the reason; an entry whose change no longer matches the mutant (the code moved) is
reported as stale and not counted as equivalent.

Output: the score per module on stdout; out/mutation/report.md with every surviving mutant
(file, line, change); out/mutation/results.json for scripts.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCRATCH = ROOT / "build" / "mutation"
OUT = ROOT / "out" / "mutation"
DATA_DIRS = ("taxonomy", "operators", "benchmarks")
KILLED = {"killed", "timeout", "segfault", "suspicious", "caught by type check"}

# mutmut's exit-code table (mutmut.stats.status_by_exit_code), kept here so the report does not
# import mutmut into this process.
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          35: "suspicious", 36: "timeout", 37: "caught by type check", -24: "timeout", 24: "timeout",
          152: "timeout", 255: "timeout", -11: "segfault", -9: "segfault", None: "not checked"}


def module_of(path: str) -> str:
    """``src/mutreal/stats/two_groups.py`` -> ``mutreal.stats.two_groups``."""
    return ".".join(Path(path).relative_to("src").with_suffix("").parts)


def mutant_globs(group: dict) -> list[str]:
    """mutmut mutant-name globs of the group's functions (``Class.method`` -> ``xǁClassǁmethod``)."""
    globs = []
    for path in group["files"]:
        module = module_of(path)
        for name in group["functions"]:
            if "." in name:
                cls, method = name.split(".", 1)
                globs.append(f"{module}.x\u01c1{cls}\u01c1{method}__mutmut_*")
            else:
                globs.append(f"{module}.x_{name}__mutmut_*")
    return globs


def prepare(group: dict, folder: Path, allow_missing_tests: bool = False) -> None:
    """Lay out the scratch folder: fresh copies of src/ and tests/, links to data, a mutmut config."""
    tests = [t for t in group["tests"] if (ROOT / t).exists()]
    if tests != group["tests"] and not allow_missing_tests:
        missing = sorted(set(group["tests"]) - set(tests))
        raise SystemExit(f"group {group['name']}: test paths missing: {', '.join(missing)}")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copytree(ROOT / "src", folder / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "tests", folder / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for name in DATA_DIRS:
        (folder / name).symlink_to(ROOT / name)
    for path in group["files"]:
        unwrap_decorators(folder / path)
    pyproject = (ROOT / "pyproject.toml").read_text()
    settings = {
        "source_paths": ["src"],
        "only_mutate": group["files"],
        "also_copy": list(DATA_DIRS),
        "pytest_add_cli_args": ["-m", "not slow", "-p", "no:cacheprovider"],
        "pytest_add_cli_args_test_selection": tests,
        "use_git_change_detection": False,
        # mutmut stops a mutant after (its tests' clean time + 1 s) x this many seconds of WALL time
        # (and twice that of CPU time) and counts it killed; the clean time is measured once, so
        # on a shared, loaded machine a small multiplier turns slow-but-passing mutants into false
        # "timeouts" (6 did here); 20 leaves room for a load several times the clean run's
        "timeout_multiplier": 20.0,
    }
    lines = ["", "[tool.mutmut]"] + [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    (folder / "pyproject.toml").write_text(pyproject + "\n".join(lines) + "\n")


#: decorators that only cache a pure function: dropped in the scratch copy (a cache the parent
#: process filled while mutmut mapped tests would hand a mutant the original's answers)
CACHE_DECORATORS = {"lru_cache", "cache", "functools.lru_cache", "functools.cache"}
#: decorators mutmut itself mutates through (it leaves every other decorated function unmutated)
KEPT_DECORATORS = {"staticmethod", "classmethod"}


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def unwrap_decorators(path: Path) -> None:
    """Let mutmut mutate decorated module-level functions in the scratch copy.

    mutmut 3 skips every decorated function (but static/class methods), and the decisive rules
    are decorated: ``@applies(...)`` records which decisions a function applies, ``@noise_rule``
    registers a noise rule. So ``@d1 @d2 def f`` becomes ``def f`` followed by ``f = d1(d2(f))``:
    the same object under the same name, registered in the same order, but now with mutmut's
    trampoline inside. Cache decorators are dropped (see CACHE_DECORATORS).
    """
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    for node in reversed(tree.body):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.decorator_list:
            continue
        names = [_decorator_name(d) for d in node.decorator_list]
        if set(names) & KEPT_DECORATORS:
            continue
        wrapped = node.name
        for decorator, name in reversed(list(zip(node.decorator_list, names, strict=True))):
            if name not in CACHE_DECORATORS:
                wrapped = f"({ast.get_source_segment(source, decorator)})({wrapped})"
        first = node.decorator_list[0].lineno - 1
        after = [f"{node.name} = {wrapped}\n"] if wrapped != node.name else []
        lines[node.end_lineno:node.end_lineno] = after
        del lines[first:node.lineno - 1]
    path.write_text("".join(lines))


def run_group(group: dict, folder: Path, jobs: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # fewer Hypothesis examples, no shrinking, a fixed seed (the profile is in tests/conftest.py)
    env["MUTREAL_HYPOTHESIS_PROFILE"] = "mutation"
    start = time.monotonic()
    # the mutmut script next to this interpreter (a venv's bin/ need not be on PATH)
    beside = Path(sys.executable).parent / "mutmut"
    mutmut = str(beside) if beside.exists() else (shutil.which("mutmut") or "mutmut")
    log = folder / "mutmut.log"
    with open(log, "w") as handle:
        proc = subprocess.run(
            [mutmut, "run", "--max-children", str(jobs), *mutant_globs(group)],
            cwd=folder, env=env, stdout=handle, stderr=subprocess.STDOUT,
        )
    if proc.returncode != 0:
        tail = log.read_text()[-3000:]
        raise SystemExit(f"mutmut failed for group {group['name']} (exit {proc.returncode}):\n{tail}")
    return time.monotonic() - start


def statuses(group: dict, folder: Path) -> dict[str, tuple[str, str]]:
    """``mutant name -> (source file, status)`` for the mutants of the group's functions."""
    globs = mutant_globs(group)
    found: dict[str, tuple[str, str]] = {}
    for path in group["files"]:
        meta = json.loads((folder / "mutants" / (path + ".meta")).read_text())
        for key, code in meta["exit_code_by_key"].items():
            if any(fnmatch.fnmatchcase(key, g) for g in globs):
                found[key] = (path, STATUS.get(code, "suspicious"))
    return found


def unmutated(group: dict, found: dict[str, tuple[str, str]]) -> list[str]:
    """Listed functions with no mutant at all (a stale name, or code mutmut cannot mutate): a
    scope that silently tests nothing must not read as a perfect score."""
    missing = []
    for name in group["functions"]:
        globs = mutant_globs({"files": group["files"], "functions": [name]})
        if not any(fnmatch.fnmatchcase(key, g) for key in found for g in globs):
            missing.append(name)
    return missing


_DIFF_SCRIPT = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
out = {}
for name, path in json.loads(sys.stdin.read()):
    out[name] = get_diff_for_mutant(name, path=path)
print(json.dumps(out))
"""


def diffs(folder: Path, names: list[tuple[str, str]]) -> dict[str, str]:
    if not names:
        return {}
    proc = subprocess.run([sys.executable, "-c", _DIFF_SCRIPT], cwd=folder, input=json.dumps(names),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _function_line(source_path: Path, mutant: str) -> int:
    """First line of the function a mutant belongs to, in the original file."""
    tail = mutant.rsplit(".", 1)[1].split("__mutmut_")[0]
    parts = tail[2:].split("\u01c1") if tail.startswith("x\u01c1") else [tail[2:]]
    tree = ast.parse(source_path.read_text())
    body = tree.body
    for index, part in enumerate(parts):
        for node in body:
            if getattr(node, "name", None) == part:
                if index == len(parts) - 1:
                    # mutmut's diff starts at the decorators it keeps; the others are unwrapped
                    kept = [d for d in node.decorator_list if _decorator_name(d) in KEPT_DECORATORS]
                    return node.decorator_list[0].lineno if kept else node.lineno
                body = node.body
                break
    return 0


def change_of(diff: str, source_path: Path, mutant: str) -> tuple[int, str]:
    """(file line, ``- old / + new``) of a mutant's diff against the original function."""
    start = _function_line(source_path, mutant)
    removed, added, line = [], [], 0
    offset = 0
    for row in diff.splitlines():
        hunk = re.match(r"@@ -(\d+)", row)
        if hunk:
            offset = int(hunk.group(1)) - 1
            continue
        if row.startswith(("---", "+++")):
            continue
        if row.startswith("-"):
            removed.append(row[1:].strip())
            line = line or start + offset
        elif row.startswith("+"):
            added.append(row[1:].strip())
        if not row.startswith("+"):
            offset += 1
    return line, f"- {' / '.join(removed)}  + {' / '.join(added)}"


def load_equivalents() -> dict[str, dict]:
    data = tomllib.loads((HERE / "equivalent.toml").read_text())
    return {entry["mutant"]: entry for entry in data.get("mutant", [])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", action="append", help="run only these groups (default: all)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="mutmut --max-children (2: the machine has 2 shared cores)")
    parser.add_argument("--allow-missing-tests", action="store_true",
                        help="drop missing test paths of scope.toml (to measure an older checkout)")
    parser.add_argument("--report-only", action="store_true", help="rebuild the report from the last run")
    args = parser.parse_args()

    scope = tomllib.loads((HERE / "scope.toml").read_text())["group"]
    # optional groups (the p-value numerics) run only when named with --group
    groups = [g for g in scope if (g["name"] in args.group if args.group else not g.get("optional"))]
    equivalents = load_equivalents()
    results, started = [], time.monotonic()
    walls: list[tuple[str, int, float]] = []
    for group in groups:
        folder = SCRATCH / group["name"]
        seconds = 0.0
        if not args.report_only:
            prepare(group, folder, args.allow_missing_tests)
            print(f"[{group['name']}] running mutmut ...", flush=True)
            seconds = run_group(group, folder, args.jobs)
        found = statuses(group, folder)
        for name in unmutated(group, found):
            print(f"[{group['name']}] WARNING: {name} is listed in scope.toml but has no mutant", flush=True)
            results.append({"group": group["name"], "file": None, "mutant": name, "status": "not mutated",
                            "line": 0, "change": "", "equivalent": False, "reason": None,
                            "stale_equivalent": False, "killed_equivalent": False})
        survivors = [(name, path) for name, (path, status) in found.items() if status not in KILLED]
        diff_by_name = diffs(folder, survivors)
        for name, (path, status) in sorted(found.items()):
            line, change = (0, "")
            if status not in KILLED:
                line, change = change_of(diff_by_name[name], ROOT / path, name)
            entry = equivalents.get(name)
            equivalent = entry is not None and status not in KILLED and entry.get("change") == change
            stale = entry is not None and status not in KILLED and not equivalent
            results.append({"group": group["name"], "file": path, "mutant": name, "status": status,
                            "line": line, "change": change, "equivalent": equivalent,
                            "reason": entry["reason"] if equivalent else None, "stale_equivalent": stale,
                            # listed as equivalent, yet a test tells it apart: the reason is wrong
                            "killed_equivalent": entry is not None and status in KILLED})
        walls.append((group["name"], len(found), seconds))
        print(f"[{group['name']}] {len(found)} mutants in {seconds:.0f} s", flush=True)
        # the report is rewritten after every group, so a run cut short keeps the finished groups
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n")
        write_report(results, time.monotonic() - started, walls, quiet=group is not groups[-1])
    return 0


def score_rows(results: list[dict]) -> list[tuple[str, int, int, int, float]]:
    rows = []
    for path in sorted({r["file"] for r in results if r["file"]}):
        mine = [r for r in results if r["file"] == path]
        equivalent = sum(r["equivalent"] for r in mine)
        killed = sum(r["status"] in KILLED for r in mine)
        counted = len(mine) - equivalent
        rows.append((path, len(mine), equivalent, killed, killed / counted if counted else 1.0))
    return rows


def write_report(results: list[dict], seconds: float, walls: list[tuple[str, int, float]],
                 quiet: bool = False) -> None:
    rows = score_rows(results)
    total = sum(r[1] for r in rows)
    equivalent = sum(r[2] for r in rows)
    killed = sum(r[3] for r in rows)
    overall = killed / (total - equivalent) if total > equivalent else 1.0
    lines = ["# Mutation score of mutreal's decisive logic", "",
             f"{total} mutants, {equivalent} equivalent, {killed} killed: score {overall:.1%} "
             f"of non-equivalent mutants ({seconds / 60:.1f} min)", "",
             "| module | mutants | equivalent | killed | score |", "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {p} | {n} | {e} | {k} | {s:.1%} |" for p, n, e, k, s in rows]
    lines += ["", "| group | mutants | wall |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {count} | {wall / 60:.1f} min |" for name, count, wall in walls]
    missing = [r for r in results if r["status"] == "not mutated"]
    if missing:
        lines += ["", "## Listed in scope.toml but without any mutant (fix the scope)", ""]
        lines += [f"- group {r['group']}: `{r['mutant']}`" for r in missing]
    lines += ["", "## Surviving mutants", ""]
    for r in results:
        if r["status"] not in KILLED and not r["equivalent"] and r["file"]:
            stale = " (listed as equivalent, but the change no longer matches)" if r["stale_equivalent"] else ""
            lines.append(f"- `{r['file']}:{r['line']}` {r['status']}{stale} `{r['mutant']}`: `{r['change']}`")
    refuted = [r for r in results if r["killed_equivalent"]]
    if refuted:
        lines += ["", "## Listed as equivalent but killed (remove from equivalent.toml: the reason is wrong)", ""]
        lines += [f"- `{r['file']}` `{r['mutant']}`" for r in refuted]
    timeouts = [r for r in results if r["status"] == "timeout"]
    lines += ["", f"## Counted killed by a timeout ({len(timeouts)}): check these on a quiet machine", ""]
    lines += [f"- `{r['file']}` `{r['mutant']}`" for r in timeouts]
    lines += ["", "## Equivalent mutants (tools/mutation/equivalent.toml)", ""]
    lines += [f"- `{r['file']}:{r['line']}` `{r['mutant']}`: {r['reason']}" for r in results if r["equivalent"]]
    (OUT / "report.md").write_text("\n".join(lines) + "\n")
    if quiet:
        return
    print(f"\n{'module':<45} {'mutants':>7} {'equiv':>6} {'killed':>6} {'score':>7}")
    for p, n, e, k, s in rows:
        print(f"{p:<45} {n:>7} {e:>6} {k:>6} {s:>7.1%}")
    print(f"{'total':<45} {total:>7} {equivalent:>6} {killed:>6} {overall:>7.1%}")
    print(f"{len(timeouts)} of the killed mutants were stopped by mutmut's timeout")
    if refuted:
        print(f"{len(refuted)} mutants listed in equivalent.toml were killed: see the report")
    print(f"report: {OUT / 'report.md'}")


if __name__ == "__main__":
    sys.exit(main())
