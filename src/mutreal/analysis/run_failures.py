"""Who failed: a mutant run that fails where its program's run with the same seed completes.

A mutant is evidence only when it is its program with one fault injected and otherwise runs as its
program runs. When its run fails and its program's run with the same seed completes, the failure is
one of:

- ``invalid``: mutreal's edit cannot run (a ``NameError`` on a name the edit introduced, a
  ``TypeError`` on a keyword argument it added, an import or attribute it wrote that the framework
  lacks, text that does not parse): a defect of mutreal's operator;
- ``harness``: the run's setting (a missing data file or path, arguments, a module of the program's
  folder not found): a defect of how mutreal ran it;
- ``stillborn``: the operator's own effect on the model makes training impossible (no training data
  left, a loss that cannot take the output's shape): it crashed before its first epoch, in code the
  edit did not write; or none of its runs completed (:func:`mutant_failure`), which leaves no
  prediction to count a kill on;
- ``outgrown``: stopped by mutreal's time or memory limit where its program's run finished, and
  the edit grows training by design (epochs up, smaller batches, copies added, a larger batch,
  later early stopping: the operator's :meth:`~mutreal.mutation.operators.base.Operator.growth`)
  by enough to carry its program's run past that limit: the operator's effect, unmeasured within
  the limit (a higher limit measures it). A limit stop the edit's growth does not explain (an edit
  that does not lengthen training, or its program's run far below the limit) is ``harness``: the
  run's setting (a limit too tight for the machine's load, a hang that is not the edit's);
- None: the model's own failure after training began (a diverged fit that raised, an evaluate that
  no longer fits the model's output): a crash, which kills as it always did.

None of them is a kill: cosmic-ray calls such a mutant *incompetent*, Stryker keeps compile and
runtime errors out of the score. The edit's names come from the mutant's text against its original's
(what the mutant has that its original lacks) and the provenance's ``new`` texts; the decision reads
the run's error type, message and outcome. :func:`classify_failure` is the one public decision
(``compare``, and ``benchmarks/mutant_validity.py``, call it).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.execution.records import Outcome

#: the kinds of failure that are not the model's (:func:`classify_failure`), in the order shown
KINDS = ("invalid", "harness", "stillborn", "outgrown")
#: which kinds are mutreal's own defects (the output says so)
MUTREAL_DEFECTS = ("invalid", "harness")
#: what each kind means, for the outputs
MEANING = {
    "invalid": "mutreal's edit cannot run (a name, keyword or import it wrote): a mutreal defect",
    "harness": "the run's setting failed (data, path, arguments): a mutreal defect",
    "stillborn": "the operator's own effect makes training impossible (it crashed before its first epoch)",
    "outgrown": "the edit makes training longer or larger than mutreal's limit allows (epochs up): unmeasured, "
    "a higher limit measures it",
}

#: error types of the run's setting (files, folders, command line)
_SETTING_ERRORS = frozenset({"FileNotFoundError", "NotADirectoryError", "IsADirectoryError", "PermissionError"})
#: error types of text that does not run at all
_TEXT_ERRORS = frozenset({"SyntaxError", "IndentationError", "TabError"})
_QUOTED = re.compile(r"""['"]([A-Za-z_][A-Za-z0-9_.]*)['"]""")


@dataclass
class EditNames:
    """The names and keyword arguments a mutant's edit wrote (in the mutant, not in its original)."""

    names: set[str] = field(default_factory=set)
    keywords: set[str] = field(default_factory=set)
    #: per limit ("time", "memory"): how many times the edit grows that (its parts' product) and why
    growth: dict[str, tuple[float, str]] = field(default_factory=dict)

    def wrote(self, name: str) -> bool:
        """Whether ``name`` (or a dotted part of it, as a name or an attribute) is one the edit wrote."""
        parts = {name, *name.split(".")}
        return bool((parts | {f".{p}" for p in parts}) & (self.names | self.keywords))


@dataclass
class RunFailure:
    """A failed run that is not the model's: its kind, the error and why it is that kind."""

    kind: str
    error: str
    reason: str

    @property
    def mutreal_defect(self) -> bool:
        return self.kind in MUTREAL_DEFECTS

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "error": self.error, "reason": self.reason, "mutreal_defect": self.mutreal_defect}


def _tokens(source: str) -> tuple[set[str], set[str]]:
    """(names, keyword-argument names) of a program's text (tokens: comments and strings apart). A
    name read as an attribute (``keras.optimizers.Adam``) is kept as ``.Adam``: the bare name ``Adam``
    an edit writes is new in a program that only had the attribute."""
    names: set[str] = set()
    keywords: set[str] = set()
    previous: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.NAME:
                names.add(f".{token.string}" if previous[:1] == ["."] else token.string)
            elif token.type == tokenize.OP and token.string == "=" and len(previous) == 2 and previous[1] in "(,":
                keywords.add(previous[0])
            if token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                previous = [token.string, *previous][:2]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
    return names, keywords


def edit_names(mutant_source: str, original_source: str | None, provenance: Mapping[str, Any] | None = None) -> EditNames:
    """What the edit wrote: names and keyword arguments of the mutant its original lacks, and those
    of the provenance's ``new`` texts that its ``old`` texts lack (a keyword its original has
    elsewhere, added at the edited call)."""
    names, keywords = _tokens(mutant_source)
    if original_source is not None:
        old_names, old_keywords = _tokens(original_source)
        names, keywords = names - old_names, keywords - old_keywords
    parts = (provenance or {}).get("parts") or []
    for part in parts:
        new_names, new_keywords = _tokens(str(part.get("new") or ""))
        old_names, old_keywords = _tokens(str(part.get("old") or ""))
        names |= new_names - old_names
        keywords |= new_keywords - old_keywords
    return EditNames(names, keywords, edit_growth(parts))


def edit_growth(parts: Iterable[Mapping[str, Any]]) -> dict[str, tuple[float, str]]:
    """Per limit (``time``, ``memory``): how many times the edit's parts (a provenance's ``parts``)
    grow it, asked of each part's operator (one owner: the operator knows what its edit does), and
    why; limits no part grows are left out. An operator this mutreal does not know grows nothing."""
    from mutreal.mutation.operators import registry

    operators = registry.operators()
    factors: dict[str, float] = {}
    reasons: dict[str, list[str]] = {}
    for part in parts:
        op = operators.get(str(part.get("operator") or ""))
        if op is None:
            continue
        try:
            grown = op.growth(part.get("old"), part.get("value"))
        except Exception:  # noqa: BLE001 - an operator's defect is never a verdict: no growth
            continue
        for limit, factor in (("time", grown.time), ("memory", grown.memory)):
            if factor > 1:
                factors[limit] = factors.get(limit, 1.0) * factor
                reasons.setdefault(limit, []).append(f"{op.id}: {grown.why}")
    return {limit: (factor, "; ".join(reasons[limit])) for limit, factor in factors.items()}


def edit_names_of(mutant: str | Path, original: str | Path | None) -> EditNames | None:
    """:func:`edit_names` of two files (and the provenance beside the mutant); None when the mutant
    cannot be read."""
    from mutreal.execution.mutant_origin import read_provenance

    try:
        text = Path(mutant).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        original_text = Path(original).read_text(encoding="utf-8", errors="replace") if original else None
    except OSError:
        original_text = None
    return edit_names(text, original_text, read_provenance(mutant))


def _error(run: Any) -> str:
    """``Type: message`` of a failed run: the message's first line, or its last where the first only
    introduces a traceback (Keras' ``in user code:``)."""
    lines = [line.strip() for line in (getattr(run, "error_message", None) or "").strip().splitlines() if line.strip()]
    shown = (lines[-1] if lines[0].endswith(":") else lines[0]) if lines else ""
    return f"{getattr(run, 'error_type', None) or run.outcome}: {shown[:300]}".rstrip(": ")


def _before_first_epoch(run: Any) -> bool:
    from mutreal.execution.crash_repeats import crashed_before_first_epoch

    return crashed_before_first_epoch(run)


def classify_failure(run: Any, reference: Any, edit: EditNames | None) -> RunFailure | None:
    """Who failed in ``run`` (a mutant's run) where ``reference`` (its program's run with the same
    seed) completed: a :class:`RunFailure` of kind ``invalid``, ``harness`` or ``stillborn``, or None
    when the run completed, its program's run did not, or the failure is the model's own (a crash
    after training began: a kill). A run a limit stopped is ``outgrown`` or ``harness``
    (:func:`_limit_failure`)."""
    outcome = Outcome.parse(run.outcome)
    if outcome in (Outcome.OK, Outcome.LOST):
        return None
    if reference is None or Outcome.parse(reference.outcome) != Outcome.OK:
        return None
    if outcome.is_limit:
        return _limit_failure(run, reference, outcome, edit or EditNames())
    error_type = getattr(run, "error_type", None) or ""
    message = getattr(run, "error_message", None) or ""
    error = _error(run)
    quoted = _QUOTED.findall(message)
    edit = edit or EditNames()
    if error_type in _TEXT_ERRORS:
        return RunFailure("invalid", error, "the mutant's text does not parse where its original's does")
    if error_type in ("NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError", "AttributeError",
                      "TypeError"):  # fmt: skip
        wrote = [name for name in quoted if edit.wrote(name)]
        if wrote:
            what = "keyword argument" if wrote[0] in edit.keywords and error_type == "TypeError" else "name"
            return RunFailure("invalid", error, f"{error_type} on the {what} {wrote[0]!r}, which the edit wrote")
    if outcome == Outcome.MISSING_DATA or error_type in _SETTING_ERRORS:
        return RunFailure("harness", error, "a file or folder of the run's setting is missing where its program's "
                          "run found it")  # fmt: skip
    if error_type == "SystemExit" and "status 2" in message:
        return RunFailure("harness", error, "the program refused its command line (argparse's exit status 2)")
    if error_type == "ModuleNotFoundError":
        return RunFailure("harness", error, "a module its program's run imports is not found in the mutant's run")
    if _before_first_epoch(run):
        return RunFailure("stillborn", error, "crashed before its first epoch, in code the edit did not write, "
                          "where its program trains")  # fmt: skip
    return None


def _limit_failure(run: Any, reference: Any, outcome: Outcome, edit: EditNames) -> RunFailure:
    """A run mutreal's time or memory limit stopped where its program's run with the same seed
    finished: ``outgrown`` when the edit's growth of that resource times what the program's run used
    (its wall time, its peak memory) reaches the limit, ``harness`` otherwise. The program's run is
    the measure: it ran in the same setting, so an edit that does not grow training by that much
    cannot explain the stop, and a stop the edit does not explain is never the model's verdict."""
    which, option = outcome.limit or ("time", "--timeout")
    if which == "time":
        used, limit, unit = getattr(reference, "wall_time_s", None), getattr(run, "timeout_s", None), "s"
    else:
        used, limit, unit = getattr(reference, "peak_rss_mb", None), getattr(run, "memory_limit_mb", None), "MB"
    factor, why = edit.growth.get(which, (1.0, ""))
    shown_limit = f"{limit:g} {unit}" if limit else "its limit"
    shown_used = f"{used:.0f} {unit}" if used else "an unknown amount"
    error = f"{outcome.value}: stopped at mutreal's {which} limit ({shown_limit})"
    if factor > 1 and (factor == float("inf") or (used and limit and used * factor >= limit)):
        grows = "without bound" if factor == float("inf") else f"{factor:g} times"
        return RunFailure("outgrown", error, f"the edit grows its {which} {grows} ({why}); its program's run used "
                          f"{shown_used}: past the limit, the operator's own effect; rerun with a higher {option}")  # fmt: skip
    because = f"grows it only {factor:g} times ({why})" if factor > 1 else "does not grow it"
    return RunFailure("harness", error, f"its program's run with the same seed finished using {shown_used} and the "
                      f"edit {because}: the run's setting (a limit too tight for the machine's load, a hang "
                      f"that is not the edit's); rerun with a higher {option}")  # fmt: skip


def classify_runs(runs: Iterable[Any], references: Iterable[Any], edit: EditNames | None) -> list[RunFailure]:
    """:func:`classify_failure` of each run against its program's run with the same seed (paired by
    seed); the failures that are not the model's."""
    by_seed = {r.seed: r for r in references}
    found = []
    for run in runs:
        failure = classify_failure(run, by_seed.get(run.seed), edit)
        if failure is not None:
            found.append(failure)
    return found


def mutant_failure(runs: Sequence[Any], references: Sequence[Any], mutant: str | Path) -> dict[str, Any] | None:
    """The failure of a mutant (``runs``, the file ``mutant``) some of whose runs failed, not by the
    model's doing, where its program's run with the same seed (``references``) completed: the first
    such run's :class:`RunFailure` with how many runs failed so (``runs`` of ``of``); None otherwise.
    Such a mutant has no kill, KP, coupling or IoU: its runs do not test what its edit meant."""
    original = next((r.program for r in references), None)
    failures = classify_runs(runs, references, edit_names_of(mutant, original)) or _none_completed(runs, references)
    if not failures:
        return None
    return {**failures[0].to_dict(), "runs": len(failures), "of": len(runs)}


def failure_note(failure: Mapping[str, Any]) -> str:
    """The note of a mutant's :func:`mutant_failure`: kind, how many runs, the error, what the kind
    means. The kill report and the fault comparison both list a failed mutant with it."""
    return (f"{failure['kind']} ({failure['runs']} of {failure['of']} runs): {failure['error']}; "
            f"{MEANING[failure['kind']]}: not a kill")  # fmt: skip


def _none_completed(runs: Sequence[Any], references: Sequence[Any]) -> list[RunFailure]:
    """A mutant none of whose runs completed, each where its program's run with the same seed did,
    though training began: stillborn too. Such runs leave no prediction to count kills on (a failed
    run would be wrong on every input, a KP of 1 that says nothing about the edit); limits aside
    (a run a limit stopped is said in the row's notes, and a higher limit trains it)."""
    by_seed = {r.seed: r for r in references}
    failed = [r for r in runs if Outcome.parse(r.outcome) not in (Outcome.OK, Outcome.LOST)
              and not Outcome.parse(r.outcome).is_limit]  # fmt: skip
    if not runs or len(failed) < len(runs):
        return []
    if any(by_seed.get(r.seed) is None or Outcome.parse(by_seed[r.seed].outcome) != Outcome.OK for r in failed):
        return []
    reason = "no run completed where its program's did: the operator's own effect leaves nothing trained and evaluated"
    return [RunFailure("stillborn", _error(r), reason) for r in failed]


def failure_counts(failures: Iterable[Mapping[str, Any] | None]) -> dict[str, int]:
    """Mutants per kind of failure that is not the model's (every kind shown, 0 included), and how
    many of them are mutreal's own defects (invalid, harness)."""
    counts = {kind: 0 for kind in KINDS}
    for failure in failures:
        if failure:
            counts[failure["kind"]] = counts.get(failure["kind"], 0) + 1
    counts["mutreal_defects"] = sum(counts[kind] for kind in MUTREAL_DEFECTS)
    return counts
