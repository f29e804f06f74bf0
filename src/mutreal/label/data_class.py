"""RQ2: which training data a program uses, whether it is real or fake, and its size.

The realism study calls training data *real* when it is a known dataset used before for a
learning task, or meaningful data produced by an automated procedure (a formula for a regression
task, the XOR truth table); *fake* when it refers to no dataset and is not meaningful (random
values, placeholders). This module decides that from static facts about the program's data
source, with one named rule per case (``RULES``), so classify can record it per side and reports
never re-parse programs.

Input is a small plain dataclass, :class:`DataSourceFacts`, so that any extractor can feed it;
:func:`describe_training_data` converts mutreal's program model. Known datasets (Keras, sklearn,
tfds and OpenML loaders, well-known files) and their sizes are data: ``taxonomy/datasets.csv``.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, ClassVar

from mutreal.known_datasets import KnownDataset, known_datasets
from mutreal.serialise import Record, wire

if TYPE_CHECKING:  # the program model is only needed by the adapter
    from mutreal.program.model import DataSource, ProgramModel

#: classes of training data, as the study names them (plus unknown where static facts cannot tell)
DATA_CLASSES = ("real", "fake", "unknown")

#: the rules, in the order they are tried; each result names the rule that decided it
RULES: dict[str, str] = {
    "known_dataset": "a dataset loader (keras.datasets, sklearn, tfds, OpenML) of a known dataset: real",
    "published_loader": "a dataset loader whose dataset is not in the table: real (a published dataset)",
    "known_file": "a file whose name is a known dataset's: real",
    "sklearn_generator": "sklearn make_*: data from a statistical procedure: real",
    "truth_table": "a literal 0/1 array that enumerates all input combinations (XOR, AND...): real",
    "literal_toy": "any other literal array written out in the program: fake (toy data)",
    "filled_at_runtime": "an empty list, or a zeros/empty buffer sized from other data, filled at run time: unknown",
    "formula": "inputs from a grid (arange/linspace) or labels computed by a formula: real",
    "placeholder": "zeros/ones/empty/full arrays of a literal shape: fake",
    "random": "random arrays (numpy/tf/torch/random): fake",
    "unknown_file": "a file not in the table: unknown (the study looked the file up in the source)",
    "generator": "a generator or image folder: unknown (collected data of unknown origin)",
    "no_facts": "no data source found or it could not be resolved: unknown",
}

#: data-source kinds accepted by :class:`DataSourceFacts` (those of ``mutreal.program.model.DataSource``
#: plus ``tfds``, ``openml`` and ``formula``)
SOURCE_KINDS = (
    "keras_dataset",
    "sklearn",
    "tfds",
    "openml",
    "file",
    "random",
    "literal",
    "generated",
    "formula",
    "generator",
    "opaque",
)

_GRID_FUNCS = {"arange", "linspace", "logspace", "geomspace", "meshgrid", "mgrid", "range"}
_PLACEHOLDER_FUNCS = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like"}
_SKLEARN_DEFAULT_SAMPLES = 100  # n_samples default of sklearn's make_* generators


@dataclass
class DataSourceFacts(Record):
    """Static facts about where a program's training data comes from (one role, e.g. x_train).

    ``kind``: one of :data:`SOURCE_KINDS`; ``name``: the dataset, loader or function name as
    written (``mnist``, ``load_iris``, ``make_moons``, ``uniform``) or the file path/name;
    ``arg``: the dataset name passed to a generic loader (``tfds.load("mnist")``,
    ``fetch_openml("mnist_784")``); ``values``: the literal array when written out;
    ``shape``/``size``: what is statically known; ``labels``: facts about the labels (y_train),
    which can make random inputs meaningful (y computed from x by a formula).
    """

    kind: str
    name: str | None = None
    arg: str | None = None
    reader: str | None = None
    values: Any = None
    shape: list[Any] | None = None
    size: int | None = None
    text: str = ""
    labels: DataSourceFacts | None = None


@dataclass
class TrainingData(Record):
    """The RQ2 verdict for one program (one side of a bug); ``to_dict`` uses the key ``class``.

    ``dataset``: canonical name of a known dataset, else the loader/file name, else None;
    ``size``: training samples where statically known (a loader's training split, a file's
    rows, a random array's first dimension); ``rule``: the name in :data:`RULES` that decided.
    """

    data_class: str = field(metadata=wire(key="class"))
    rule: str
    dataset: str | None = None
    size: int | None = None
    test_size: int | None = None
    confidence: str = "high"
    kind: str | None = None
    reason: str = ""
    source: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, metadata=wire(omit="empty"))

    #: written dataset first, as the study's tables read it
    wire_order: ClassVar = ("dataset", "class", "size", "test_size", "confidence", "rule", "kind")
    wire_order += ("reason", "source", "extra")


# ---------------------------------------------------------------------------------------------------
# Known datasets (taxonomy/datasets.csv)
# ---------------------------------------------------------------------------------------------------


def _lookup(column: str, key: str) -> KnownDataset | None:
    want = key.strip().lower()
    for ds in known_datasets():
        if want in (n.lower() for n in getattr(ds, column)):
            return ds
    return None


def _basename(path: str) -> str:
    """File name of a path written for any OS, URLs included (``.../iris.data?x=1`` -> ``iris.data``)."""
    text = path.strip().strip("'\"").split("?")[0].split("#")[0]
    return PureWindowsPath(PurePosixPath(text).name).name


_COMPRESSED = re.compile(r"\.(zip|gz|bz2|xz|tgz|7z)$", flags=re.IGNORECASE)


def find_known_file(path: str) -> KnownDataset | None:
    """The known dataset a file path names (by file name, case-insensitive; a compressed copy
    ``mnist_train.csv.zip`` counts as the file), or None."""
    name = _basename(path)
    while name:
        found = _lookup("files", name)
        if found or not _COMPRESSED.search(name):
            return found
        name = _COMPRESSED.sub("", name)
    return None


def _looks_like_variable(name: str) -> bool:
    """A file argument the model could only give as an expression (``data_path``), not a file name."""
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.strip()) is not None


# ---------------------------------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------------------------------


def _last_name(name: str | None) -> str:
    """``keras.datasets.mnist.load_data`` -> ``mnist``; ``sklearn.datasets.load_iris`` -> ``load_iris``."""
    if not name:
        return ""
    parts = [p for p in re.split(r"[.:/]", name) if p and p not in ("load_data", "load")]
    return parts[-1] if parts else ""


def _first_dim(shape: Sequence[Any] | None) -> int | None:
    if shape and isinstance(shape[0], int) and not isinstance(shape[0], bool):
        return shape[0]
    return None


def _known(rule: str, ds: KnownDataset, facts: DataSourceFacts, split: bool) -> TrainingData:
    """A verdict for a known dataset; ``split``: the loader returns the standard train/test split."""
    if split and ds.train_size is not None:
        size, test = ds.train_size, ds.test_size
    else:
        size, test = ds.total_size or ds.train_size, None
    return TrainingData(
        "real",
        rule,
        ds.name,
        size,
        test,
        "high",
        facts.kind,
        RULES[rule],
        facts.text or None,
        {"task": ds.task},
    )


def is_truth_table(values: Any) -> bool:
    """True when a literal array is a boolean truth table: rows of 0/1 that cover every input
    combination (the XOR/AND/OR inputs ``[[0,0],[0,1],[1,0],[1,1]]``; repeated rows allowed)."""
    rows = _as_rows(values)
    if not rows or not all(isinstance(v, int | float) and v in (0, 1) for row in rows for v in row):
        return False
    width = len(rows[0])
    if width == 0 or width > 8 or any(len(r) != width for r in rows):
        return False
    combos = {tuple(int(v) for v in row) for row in rows}
    return combos == set(product((0, 1), repeat=width))


def _as_rows(values: Any) -> list[list[Any]] | None:
    if not isinstance(values, list | tuple) or not values:
        return None
    if all(isinstance(r, list | tuple) for r in values):
        flat_rows = []
        for r in values:
            # [[[0, 0]], [[0, 1]], ...] (an extra axis) counts like [[0, 0], [0, 1], ...]
            while len(r) == 1 and isinstance(r[0], list | tuple):
                r = r[0]
            if any(isinstance(v, list | tuple) for v in r):
                return None
            flat_rows.append(list(r))
        return flat_rows
    return None


def _literal_size(values: Any, shape: Sequence[Any] | None) -> int | None:
    if isinstance(values, list | tuple):
        return len(values)
    return _first_dim(shape)


def _labels_by_formula(labels: DataSourceFacts | None) -> bool:
    return labels is not None and labels.kind == "formula"


def classify_training_data(facts: DataSourceFacts | None) -> TrainingData:
    """Decide dataset name, class (real/fake/unknown) and size from a program's data facts.

    The rules (:data:`RULES`) in order: known loaders and files first (real, with their sizes);
    then procedures (sklearn generators, truth tables, formulas: real); then random and placeholder
    arrays (fake, size from their shape) unless their labels come from a formula (real: a
    regression task on a formula); then what cannot be told statically (unknown).
    """
    if facts is None:
        return TrainingData("unknown", "no_facts", confidence="low", reason=RULES["no_facts"])
    kind = facts.kind
    key = _last_name(facts.name)
    arg = (facts.arg or "").strip()

    if kind == "keras_dataset":
        ds = _lookup("keras", key)
        if ds:
            return _known("known_dataset", ds, facts, split=True)
        return _published(facts, key or arg)
    if kind == "tfds":
        ds = _lookup("tfds", arg or key)
        if ds:
            return _known("known_dataset", ds, facts, split=True)
        return _published(facts, arg or key)
    if kind == "openml" or (kind == "sklearn" and key == "fetch_openml"):
        ds = _lookup("openml", arg) if arg else None
        if ds:
            return _known("known_dataset", ds, facts, split=False)
        return _published(facts, arg or key)
    if kind == "sklearn":
        if not key.startswith(("load_", "fetch_", "make_")):
            # a bare name (``iris`` for load_iris): find the loader it stands for
            key = next(
                (f"{p}{key}" for p in ("load_", "fetch_") if _lookup("sklearn", f"{p}{key}")),
                f"make_{key}" if re.search(rf"\bmake_{re.escape(key)}\b", facts.text or "") else key,
            )
        if key.startswith("make_"):
            size = facts.size or _first_dim(facts.shape) or _SKLEARN_DEFAULT_SAMPLES
            return TrainingData(
                "real",
                "sklearn_generator",
                key,
                size,
                None,
                "high",
                kind,
                RULES["sklearn_generator"],
                facts.text or None,
            )
        ds = _lookup("sklearn", key)
        if ds:
            return _known("known_dataset", ds, facts, split=key == "fetch_20newsgroups")
        return _published(facts, key)
    if kind == "file":
        path = facts.name or arg
        ds = find_known_file(path) if path else None
        if ds:
            return _known("known_file", ds, facts, split=False)
        return TrainingData(
            "unknown",
            "unknown_file",
            _basename(path) if path and not _looks_like_variable(path) else None,
            facts.size,
            None,
            "low",
            kind,
            RULES["unknown_file"],
            facts.text or None,
        )
    if kind == "literal":
        size = _literal_size(facts.values, facts.shape)
        if size == 0:
            return TrainingData(
                "unknown", "filled_at_runtime", None, None, None, "low", kind, RULES["filled_at_runtime"]
            )
        if is_truth_table(facts.values):
            return TrainingData(
                "real", "truth_table", "truth table", size, None, "high", kind, RULES["truth_table"]
            )
        if _labels_by_formula(facts.labels):
            return TrainingData("real", "formula", None, size, None, "medium", kind, RULES["formula"])
        return TrainingData("fake", "literal_toy", None, size, None, "medium", kind, RULES["literal_toy"])
    if kind in ("generated", "formula"):
        func = key.lower()
        size = facts.size or _first_dim(facts.shape)
        if func in _PLACEHOLDER_FUNCS and not _labels_by_formula(facts.labels):
            literal_shape = bool(facts.shape) and all(
                isinstance(d, int) and not isinstance(d, bool) for d in facts.shape or ()
            )
            if not literal_shape or "len(" in (facts.text or ""):
                # np.zeros((len(sequences), dim)): a buffer sized from other data, filled later
                return TrainingData(
                    "unknown", "filled_at_runtime", None, None, None, "low", kind, RULES["filled_at_runtime"]
                )
            return TrainingData("fake", "placeholder", None, size, None, "high", kind, RULES["placeholder"])
        if kind == "formula" or func in _GRID_FUNCS or _labels_by_formula(facts.labels):
            return TrainingData("real", "formula", None, size, None, "medium", kind, RULES["formula"])
        return TrainingData("unknown", "no_facts", None, size, None, "low", kind, RULES["no_facts"])
    if kind == "random":
        size = facts.size or _first_dim(facts.shape)
        if _labels_by_formula(facts.labels):
            return TrainingData("real", "formula", None, size, None, "medium", kind, RULES["formula"])
        return TrainingData(
            "fake", "random", None, size, None, "high", kind, RULES["random"], facts.text or None
        )
    if kind == "generator":
        return TrainingData(
            "unknown",
            "generator",
            None,
            facts.size,
            None,
            "low",
            kind,
            RULES["generator"],
            facts.text or None,
        )
    return TrainingData("unknown", "no_facts", None, facts.size, None, "low", kind, RULES["no_facts"])


def _published(facts: DataSourceFacts, name: str) -> TrainingData:
    return TrainingData(
        "real",
        "published_loader",
        name or None,
        facts.size,
        None,
        "medium",
        facts.kind,
        RULES["published_loader"],
        facts.text or None,
    )


# ---------------------------------------------------------------------------------------------------
# Adapter from mutreal's program model
# ---------------------------------------------------------------------------------------------------

_STRING = re.compile(r"""(['"])([^'"]+)\1""")
_FORMULA_HINT = re.compile(
    r"[-+*/%]|\*\*|\b(sin|cos|tan|exp|log|sqrt|square|power|abs|sum|dot|where|logical_xor)\b"
)
_RANDOM_HINT = re.compile(r"\brandom\b|\brand(n|int)?\b|\bnormal\b|\buniform\b")


def facts_from_source(
    source: DataSource, labels: DataSource | None = None, x_var: str | None = None
) -> DataSourceFacts:
    """Convert a program-model ``DataSource`` (and the labels' source) into :class:`DataSourceFacts`.

    Where the model has no dedicated field, the source text is read: the first string argument
    (a tfds or OpenML dataset name), a written-out literal array (``ast.literal_eval``, safe).
    Labels count as a formula when their source text computes from the inputs' variable with
    arithmetic or a math function and uses no randomness.
    """
    text = source.text or ""
    kind = source.kind
    name = source.name
    lowered = (name or "").lower()
    arg = None
    m = _STRING.search(text)
    if m:
        arg = m.group(2)
    is_tfds = lowered.startswith(("tfds.", "tensorflow_datasets.")) or re.search(r"\btfds\.", text)
    if kind in ("sklearn", "opaque", "generator") and is_tfds:
        kind = "tfds"
    loader = re.search(r"\b((?:load|fetch|make)_\w+)\s*\(", text)
    if kind == "sklearn" and loader:
        name = loader.group(1)  # the model may keep only the bare dataset name (iris for load_iris)
    values = None
    if kind == "literal":
        values = _literal_values(text)
    size = source.size
    if size is None and kind == "generated":
        size = _grid_length(text)
    label_facts = None
    if labels is not None:
        label_facts = _label_facts(labels, x_var)
    return DataSourceFacts(
        kind=kind,
        name=name,
        arg=arg,
        reader=source.reader,
        values=values,
        shape=source.shape,
        size=size,
        text=text,
        labels=label_facts,
    )


def _grid_length(text: str) -> int | None:
    """Length of ``arange(start, stop, step)`` / ``linspace(a, b, n)`` / ``range(...)`` with literal arguments."""
    m = re.search(r"\b(arange|linspace|range)\s*\(([^()]*)\)", text)
    if not m:
        return None
    try:
        args = [ast.literal_eval(a.strip()) for a in m.group(2).split(",") if a.strip() and "=" not in a]
    except (ValueError, SyntaxError):
        return None
    if not all(isinstance(a, int | float) for a in args):
        return None
    if m.group(1) == "linspace":
        return int(args[2]) if len(args) >= 3 else (50 if len(args) == 2 else None)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args[:2], args[2] if len(args) > 2 else 1)
    if step == 0:
        return None
    return max(0, math.ceil((stop - start) / step))


def _literal_values(text: str) -> Any:
    candidate = text
    m = re.search(r"\[.*\]", text, flags=re.DOTALL)
    if m:
        candidate = m.group(0)
    try:
        return ast.literal_eval(candidate)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _label_facts(labels: DataSource, x_var: str | None) -> DataSourceFacts:
    text = labels.text or ""
    kind = labels.kind
    refers_to_x = bool(x_var) and re.search(rf"\b{re.escape(x_var or '')}\b", text) is not None
    if (
        kind in ("generated", "opaque", "formula")
        and refers_to_x
        and _FORMULA_HINT.search(text)
        and not _RANDOM_HINT.search(text)
    ):
        kind = "formula"
    return DataSourceFacts(kind=kind, name=labels.name, shape=labels.shape, size=labels.size, text=text)


def describe_training_data(model: ProgramModel) -> TrainingData:
    """The RQ2 verdict for a program model: from ``x_train``'s source (else ``y_train``'s), labels
    from ``y_train``. A program whose data the model could not resolve is ``unknown``."""
    data = getattr(model, "data", None) or {}
    x = data.get("x_train")
    y = data.get("y_train")
    primary = x if x is not None and x.source is not None else y
    if primary is None or primary.source is None:
        return classify_training_data(None)
    labels = y.source if (y is not None and primary is x and y.source is not None) else None
    facts = facts_from_source(primary.source, labels, x_var=getattr(primary, "var", None))
    verdict = classify_training_data(facts)
    if verdict.rule == "no_facts" and labels is not None and labels.kind in _LOADER_KINDS:
        # inputs unresolved, labels from a dataset loader or file: the inputs come from there too
        verdict = classify_training_data(facts_from_source(labels))
        verdict.extra["from_role"] = "y_train"
    return verdict


_LOADER_KINDS = ("keras_dataset", "sklearn", "tfds", "openml", "file")
