"""The data a campaign produces: one :class:`RunRecord` per training of a program with one seed.

A record is what the statistics read (``mutreal.stats``): the compared metric and its direction,
every ``fit`` history and ``evaluate`` result, per-input predictions (with true labels where the
program passed them) for per-input killing, timings for overhead figures, and for failed runs the
outcome with a clear message. Records are plain JSON (``to_dict``/``from_dict``) so the SQLite store,
CSV export, Ray transport and other tools share one format.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mutreal.execution.model_task import choose_metric
from mutreal.serialise import TextEnum


class Outcome(TextEnum):
    """How one run ended. A ``str`` whose value is the word the store, JSON and CSV have always held,
    so records written before this type existed read back unchanged and new ones are byte-identical.

    :meth:`parse` is the only way in from stored text: an outcome this mutreal does not know is a
    :class:`UnknownOutcome` error naming the known ones, never a silent new category.
    """

    #: A run that finished; its metric may still be ``None`` when the program never evaluated.
    OK = "ok"
    #: The program raised an exception (or exited non-zero, or killed its worker).
    CRASH = "crash"
    #: The run exceeded the campaign's time limit; its worker was killed and replaced.
    TIMEOUT = "timeout"
    #: The worker's resident memory exceeded the limit; the worker was killed and replaced.
    MEMORY = "memory"
    #: The program needs a data file that is not there (offline dataset download, absent file).
    MISSING_DATA = "missing-data"
    #: Not the program's doing: its worker was lost (the service or a Ray node went away, the runner
    #: was interrupted, the worker was killed from outside twice). Not a verdict: a rerun trains it again.
    LOST = "lost"

    @classmethod
    def parse(cls, value: str | Outcome) -> Outcome:
        """The outcome named ``value``; :class:`UnknownOutcome` for a word this mutreal does not know."""
        try:
            return cls(value)
        except ValueError:
            known = ", ".join(member.value for member in cls)
            raise UnknownOutcome(f"unknown run outcome {value!r} (this mutreal knows: {known})") from None

    @property
    def is_limit(self) -> bool:
        """Caused by the campaign's limits rather than the program: rerun when a limit is raised."""
        return self in (Outcome.TIMEOUT, Outcome.MEMORY)

    @property
    def limit(self) -> tuple[str, str] | None:
        """(which limit, the option that raises it) of a run a limit stopped: ``("time", "--timeout")``,
        ``("memory", "--memory-limit")``; None for any other outcome. One wording for every row."""
        return {Outcome.TIMEOUT: ("time", "--timeout"), Outcome.MEMORY: ("memory", "--memory-limit")}.get(self)


class UnknownOutcome(ValueError):
    """A stored or received outcome that is none of :class:`Outcome` (a newer mutreal, a hand edit)."""


OK = Outcome.OK
CRASH = Outcome.CRASH
TIMEOUT = Outcome.TIMEOUT
MEMORY = Outcome.MEMORY
MISSING_DATA = Outcome.MISSING_DATA
LOST = Outcome.LOST
OUTCOMES: tuple[Outcome, ...] = tuple(Outcome)

#: Substrings of metric names that mean "lower is better" (losses and errors).
_LOWER_IS_BETTER_HINTS = (
    "loss",
    "error",
    "mse",
    "mae",
    "mape",
    "msle",
    "crossentropy",
    "hinge",
    "huber",
    "logcosh",
    "kl_divergence",
    "kld",
    "poisson",
)


def metric_direction(name: str) -> str:
    """``"lower"`` for loss-like metric names, ``"higher"`` otherwise (accuracy, AUC, precision...)."""
    lowered = name.lower()
    return "lower" if any(hint in lowered for hint in _LOWER_IS_BETTER_HINTS) else "higher"


def default_metric_name(results: dict[str, float], task: dict[str, Any] | None = None) -> str | None:
    """The metric compared by default among one ``evaluate()``'s named results.

    An accuracy-like metric when there is one (the study compares accuracy), otherwise the first
    metric that is not the loss, otherwise the loss itself; for a regression model (``task``, read at
    run time) no classification metric: see :func:`mutreal.execution.model_task.choose_metric`.
    """
    return choose_metric(results, task)


@dataclass
class FitRecord:
    """One ``model.fit`` call: its per-epoch history and how long it took inside the program."""

    history: dict[str, list[float]] = field(default_factory=dict)
    epochs: int = 0
    time_s: float = 0.0
    #: what the compiled model is for (:func:`mutreal.execution.model_task.read_task`), or None
    task: dict[str, Any] | None = None
    #: False when the fit raised: ``epochs`` then counts the epochs it completed before
    completed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FitRecord:
        return cls(**{k: data[k] for k in ("history", "epochs", "time_s", "task", "completed") if k in data})


@dataclass
class EvaluateRecord:
    """One top-level ``model.evaluate`` call (validation inside ``fit`` is not one).

    ``predictions`` are the model's outputs on the evaluated inputs, made right after the evaluate
    with the same weights: class indices when ``prediction_kind == "class"`` (argmax, or threshold 0.5
    for one sigmoid unit), raw numbers for ``"value"``; ``labels`` are the true labels in the same form
    when the program passed arrays (``None`` for generators and datasets, whose inputs are not kept).

    ``source`` says which inputs these are: ``evaluate`` (a top-level evaluate call of the program),
    or, for a program whose last evaluate gave no per-input correctness (most real programs never
    evaluate), a record mutreal made after the program ended, predicting with the trained model the
    last fit's ``validation`` data (``validation_data``, or the part ``validation_split`` held out)
    or else its ``training`` data (where DeepCrime measures killability); such a record has no
    ``results`` and is never the source of the compared metric.

    ``input_ids`` name each evaluated test case by content (``"<hash of the input row's bytes, shape
    and dtype>:<label>"``, :func:`mutreal.execution.per_input.input_ids`), in the order of
    ``predictions``: runs of a program that made or split its data without a seed evaluated other
    inputs per seed, and are paired input by input through these ids
    (:mod:`mutreal.analysis.pairing`). ``None`` in records written before they existed, and where
    the rows could not be read (several inputs of other lengths, no labels).
    """

    results: dict[str, float] = field(default_factory=dict)
    time_s: float = 0.0
    n_inputs: int | None = None
    predictions: list[Any] | None = None
    labels: list[Any] | None = None
    prediction_kind: str | None = None
    source: str = "evaluate"
    task: dict[str, Any] | None = None
    input_ids: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvaluateRecord:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @property
    def correct(self) -> list[bool] | None:
        """Per input: was the prediction right? ``None`` without labels or for regression.

        Also ``None`` when predictions and labels differ in length (a program whose evaluate data
        could not be paired input by input): pairing the first ``min(len)`` of them would silently
        compare inputs with the wrong labels and give a killing probability for inputs that do not
        exist.
        """
        if self.predictions is None or self.labels is None or self.prediction_kind != "class":
            return None
        if len(self.predictions) != len(self.labels):
            return None
        return [int(p) == int(y) for p, y in zip(self.predictions, self.labels, strict=True)]


class PerInputView:
    """Per-input fields read from a record's ``last_evaluation`` (the run's per-input record): one
    definition for :class:`RunRecord` and for views that pick another per-input record
    (:class:`mutreal.analysis.common_set.OnSet`)."""

    last_evaluation: Any  # provided by the class (a property)

    @property
    def predictions(self) -> list[Any] | None:
        """Per-input predictions of the per-input record (see :class:`EvaluateRecord`)."""
        last = self.last_evaluation
        return last.predictions if last else None

    @property
    def labels(self) -> list[Any] | None:
        last = self.last_evaluation
        return last.labels if last else None

    @property
    def correct(self) -> list[bool] | None:
        """Per input of the per-input record: prediction == label (for per-input killing)."""
        last = self.last_evaluation
        return last.correct if last else None


@dataclass
class RunRecord(PerInputView):
    """One training of one program with one seed, as the store keeps it.

    Keys: ``key`` is the content hash that identifies the run (program text, the data files in its
    folder, the result-affecting configuration, the seed and the package versions); the same key is
    never trained twice. ``metric_name``/``metric_value``/``direction`` hold the campaign's compared
    metric; :meth:`metric` re-selects another one from the stored evaluate results.
    Times: ``wall_time_s`` is the whole run in the worker (program start to end, including imports and
    data loading); ``fit_time_s``/``evaluate_time_s`` the in-script time spent inside ``fit``/``evaluate``.
    """

    key: str
    program: str
    seed: int
    outcome: Outcome
    program_hash: str = ""
    data_hash: str = ""
    config_hash: str = ""
    env_hash: str = ""
    metric_name: str | None = None
    metric_value: float | None = None
    direction: str | None = None
    metric_source: str | None = None
    fits: list[FitRecord] = field(default_factory=list)
    evaluations: list[EvaluateRecord] = field(default_factory=list)
    wall_time_s: float = 0.0
    fit_time_s: float = 0.0
    evaluate_time_s: float = 0.0
    error_type: str | None = None
    error_message: str | None = None
    traceback: str | None = None
    output_tail: str = ""
    peak_rss_mb: float | None = None
    timeout_s: float | None = None
    memory_limit_mb: float | None = None
    worker: str = ""
    worker_run_index: int = 0
    started_at: str = ""
    finished_at: str = ""
    campaign_id: str = ""
    label: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    #: The rewrites of ``--modernize`` in records written before the framework of a run was chosen per
    #: program (they are in ``rewrites`` since); read from old stores, no longer written.
    modernize_changes: list[str] = field(default_factory=list)
    #: The program's era as classify reads it (``keras1``, ``keras2``, ``tf2``, ``keras3``), or ``tf1``
    #: for TensorFlow 1 graph code (:mod:`mutreal.compat.framework_choice`); empty in records of old stores.
    era: str = ""
    #: The framework the run had: ``keras3``, ``tf_keras`` or ``tf1`` (empty in old stores: Keras 3).
    framework: str = ""
    #: Every rewrite applied to the program before it ran, one line each (era rewrites, removed APIs,
    #: the benchmark's instrumentation removed, ``--modernize``).
    rewrites: list[str] = field(default_factory=list)
    #: The command-line arguments the program was given (``sys.argv[1:]``: the campaign's ``args`` or
    #: its own from a manifest's ``args`` column).
    args: list[str] = field(default_factory=list)
    #: The isolation the run had: ``bwrap`` (bubblewrap sandbox) or ``none`` (see the README).
    sandbox: str = ""
    #: The signal that killed the run's first worker when the run was retried once (e.g. ``SIGKILL``).
    retried_after: str | None = None
    #: Why the worker was replaced after this run (it held too much of the memory limit for the next).
    worker_replaced_after: str | None = None
    #: The calls that trained outside ``fit`` (TF1 ``Session.run``, ``apply_gradients`` of a custom loop).
    steps_outside_fit: int = 0
    #: Not trained: the key of this program's run that crashed before its first epoch, whose crash
    #: this seed's record repeats (such a crash is deterministic; ``--repeat-crashes`` trains it).
    repeated_from: str | None = None
    #: Where a run that trained and evaluated failed afterwards in statements that touch neither the
    #: model nor its data or outputs (timing, printing it, saving to a path): its file, line,
    #: statement, error and traceback (:mod:`mutreal.execution.scaffolding_failure`). Such a run is
    #: ``ok``: its training and evaluation are kept, its per-input kills are what its model predicted.
    scaffolding_failure: dict[str, Any] | None = None
    #: True when the record came from the store instead of a training in this campaign (not stored).
    reused: bool = False

    def __post_init__(self) -> None:
        self.outcome = Outcome.parse(self.outcome)  # a plain word (worker result, old store) is checked once

    # -- derived views -------------------------------------------------------------------------
    @property
    def ok(self) -> bool:
        return self.outcome == OK

    @property
    def crashed(self) -> bool:
        """True for any outcome but ``ok`` and ``lost`` (what the study calls a crash symptom)."""
        return self.outcome not in (OK, LOST)

    @property
    def last_evaluation(self) -> EvaluateRecord | None:
        """The run's per-input record: its last ``evaluate`` call where that gave per-input
        correctness, else the record mutreal made after the program (validation, else training data),
        else the last evaluate. A program that evaluated with correctness also has its validation
        data recorded after it (:mod:`mutreal.analysis.common_set` uses that one where another
        program of a comparison never evaluates)."""
        if not self.evaluations:
            return None
        own = [e for e in self.evaluations if e.source == "evaluate"]
        if own and has_correctness(own[-1]):  # the rule finish_capture judged the run's evaluate by
            return own[-1]
        return self.evaluations[-1]


    def metric(self, name: str | None = None) -> tuple[str | None, float | None, str | None]:
        """(name, value, direction) of metric ``name`` (default: the campaign's choice).

        Looks in the last ``evaluate()`` first, then in the last epoch of the last ``fit`` (where
        ``val_<name>`` is preferred over the training value). Returns ``(name, None, direction)`` when
        the run has no such metric.
        """
        if name is None and self.metric_name is not None:
            return self.metric_name, self.metric_value, self.direction
        chosen, value, _source = select_metric(self.fits, self.evaluations, name)
        return chosen, value, (metric_direction(chosen) if chosen else None)

    # -- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data.pop("reused")
        data["outcome"] = self.outcome.value  # plain JSON, YAML and pickles: the word, not the type
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["fits"] = [FitRecord.from_dict(f) for f in data.get("fits", [])]
        kwargs["evaluations"] = [EvaluateRecord.from_dict(e) for e in data.get("evaluations", [])]
        return cls(**kwargs)


def has_correctness(record: Any) -> bool:
    """Whether an evaluate record holds per-input correctness: predictions paired with labels (the
    worker records validation data after a run whose last evaluate has none, and
    :attr:`RunRecord.last_evaluation` prefers the program's own evaluate where it has it)."""
    return bool(record.predictions) and record.labels is not None and len(record.labels) == len(record.predictions)


def _as_float(value: Any) -> float | None:
    """A metric value as a float (NaN and inf are kept: a diverged run is data), None if not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def select_metric(
    fits: list[FitRecord], evaluations: list[EvaluateRecord], name: str | None = None
) -> tuple[str | None, float | None, str | None]:
    """Choose the compared metric: (name, value, source) with source ``"evaluate"`` or ``"fit"``.

    Default: the accuracy-like (else first) metric of the last ``evaluate()``; without any evaluate,
    the last epoch of the last ``fit`` (validation values preferred). ``name`` picks a metric by name;
    ``val_`` prefixes are tried on fit histories.
    """
    evaluations = [e for e in evaluations if e.source == "evaluate"]  # not the per-input records after fit
    task = run_task(fits, evaluations)
    if evaluations:
        results = evaluations[-1].results
        chosen = name if name is not None else default_metric_name(results, task)
        if chosen is not None and chosen in results:
            return chosen, _as_float(results[chosen]), "evaluate"
    if fits:
        history = fits[-1].history
        if name is None:
            val_only = {k[4:]: v for k, v in history.items() if k.startswith("val_")}
            base = val_only or history
            chosen = default_metric_name({k: 0.0 for k in base}, task)
            key = ("val_" + chosen) if val_only and chosen is not None else chosen
        else:
            chosen = name
            key = f"val_{name}" if f"val_{name}" in history else name
        if chosen is not None and key in history and history[key]:
            return chosen, _as_float(history[key][-1]), "fit"
    return name, None, None


def run_task(fits: list[FitRecord], evaluations: list[EvaluateRecord]) -> dict[str, Any] | None:
    """The task of the model a run trained or evaluated last, as read at run time (None: not read)."""
    for record in [*reversed(evaluations), *reversed(fits)]:
        if record.task:
            return record.task
    return None
