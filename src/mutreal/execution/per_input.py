"""Per-input predictions of a trained model, inside the worker: what per-input killing is made of.

Kim et al.'s per-input killing and Ahmed et al.'s coupling need, per run, whether each input was
predicted right. :mod:`mutreal.execution.fit_capture` calls these helpers on the data of a top-level
``evaluate`` (arrays predicted again, a tf.data dataset or PyDataset read once more, a generator's
batches predicted as they pass) and, for a program whose last evaluate gave no per-input
correctness, on the best data its last ``fit`` had (:func:`held_out_candidates`): the validation
data, else the training data, as DeepCrime measures killability on the training set.

Each evaluated input also gets a short content id (:func:`row_digests`, :func:`input_ids`): a hash
of its row's bytes, shape and dtype and of its label, so that runs of a program that made or split
its data without a seed (other inputs per seed) can still be paired input by input
(:mod:`mutreal.analysis.pairing`); a few bytes per input, and hashing 10k rows costs milliseconds.

Classification outputs become class indices (argmax, or threshold 0.5 for one sigmoid unit, 0 for
one logit of a cross-entropy classifier compiled with ``from_logits=True``; for a multi-label model, several sigmoid units with 0/1
labels of which a row may hold several, the set of units above 0.5 as one number, :func:`label_sets`);
regression outputs stay numbers, judged later by the tolerance rule of ``compare``. The model's task
(:mod:`mutreal.execution.model_task`) decides which, where it was read. Works on Keras 3 and
tf_keras models alike and never imports Keras itself. Capture must never break the program: any
failure gives an empty result.
"""

from __future__ import annotations

import collections.abc
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

from mutreal.execution.model_task import CLASSIFICATION, REGRESSION
from mutreal.execution.records import has_correctness  # noqa: F401 - the rule, one place

#: Keep per-input predictions for at most this many inputs per record (memory of the store).
MAX_PREDICTIONS = 100_000

#: ``predict(model, x, batch_size)``: the framework's own predict (not the patched one)
Predict = Callable[[Any, Any, int], Any]


#: bytes of a row digest; an input id is twice as many hex characters
ID_BYTES = 8


def row_digests(inputs: Any) -> list[bytes] | None:
    """One digest per row of ``inputs`` (an array, or named arrays with rows in step): the row's
    bytes, shape and dtype, so that equal rows of one program's runs get equal digests; None when
    the rows cannot be read as arrays."""
    import hashlib

    import numpy as np

    arrays = [inputs[k] for k in sorted(inputs)] if isinstance(inputs, dict) else [inputs]
    try:
        arrays = [np.asarray(a) for a in arrays]
    except Exception:
        return None
    if not arrays or any(a.dtype == object or a.ndim == 0 for a in arrays):
        return None
    arrays = [np.ascontiguousarray(a) for a in arrays]
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        return None
    # one bytes buffer per array, sliced per row: no per-row numpy call (10k rows of 20 floats hash
    # in a few milliseconds, 10k MNIST images in about a tenth of a second)
    base = hashlib.blake2b(b"".join(f"{a.dtype.str}{a.shape[1:]}".encode() for a in arrays), digest_size=ID_BYTES)
    # the arrays' own bytes, not a copy (tobytes): a training set judged at the end of a run can be
    # hundreds of MB, and a second copy then could push the run over the memory limit
    buffers = [_bytes_of(a) for a in arrays]
    widths = [len(b) // n if n else 0 for b in buffers]
    digests = []
    for i in range(n):
        h = base.copy()
        for buffer, width in zip(buffers, widths, strict=True):
            h.update(buffer[i * width : (i + 1) * width])
        digests.append(h.digest())
    return digests


def _bytes_of(array: Any) -> memoryview:
    """A C-contiguous array's bytes as a flat view (a copy only where numpy cannot view them so)."""
    import numpy as np

    try:
        return memoryview(array.reshape(-1).view(np.uint8))
    except (TypeError, ValueError):
        return memoryview(array.tobytes())


def input_ids(digests: list[bytes], labels: list[Any] | None) -> list[str] | None:
    """The id of each test case: its row digest (hex) and its label, ``"<digest>:<label>"`` (the same
    row with another label is another test case); None when digests and labels differ in length."""
    if labels is None or len(labels) != len(digests):
        return None
    return [f"{d.hex()}:{y}" for d, y in zip(digests, labels, strict=True)]


def with_ids(result: dict[str, Any], digests: list[bytes] | None) -> dict[str, Any]:
    """``result`` with ``input_ids`` where its labels and the row digests pair up."""
    ids = None if digests is None else input_ids(digests, result.get("labels"))
    if ids is not None:
        result["input_ids"] = ids
    return result


def _floats(values: Any) -> list[float]:
    return [float(v) for v in values]


def as_numpy(value: Any) -> Any:
    """``value`` as one numpy array, or None (several inputs/outputs, objects, scalars)."""
    import numpy as np

    if value is None:
        return None
    if not isinstance(value, (list, tuple)) and not hasattr(value, "__array__") and not hasattr(value, "shape"):
        # a dataset, generator or Sequence (Keras' DirectoryIterator iterates for ever): reading it
        # here would consume the program's batches or never end
        return None
    if isinstance(value, (list, tuple)) and any(hasattr(v, "shape") or isinstance(v, dict) for v in value):
        return None  # several inputs/outputs (a list of arrays): no single per-input label vector
    # a nested list of numbers (``x = [[73., 80.], [93., 88.]]`` as many small programs write their
    # data) is one array; a ragged one becomes an object array and is refused below
    try:
        array = np.asarray(value)
    except Exception:
        return None
    if array.dtype == object or array.ndim == 0:
        return None
    return array


def to_classes(array: Any, *, is_label: bool, classifier: bool = False, logits: bool = False) -> tuple[list[Any], str]:
    """Class indices from probabilities/one-hot (argmax) or one sigmoid unit (0.5), else raw values.

    ``classifier``: the model is known to classify with a cross-entropy
    (:mod:`mutreal.execution.model_task`), so one output unit with values outside [0, 1] still gives a
    class, not a regression value: thresholded at 0 where the loss reads it as a logit (``logits``:
    ``BinaryCrossentropy(from_logits=True)``), else at 0.5, as Keras' accuracy reads a loss given by
    name (it clips the output into [0, 1]).
    An output that is not finite (a model that diverged to NaN) predicts no class: it gets class -1,
    wrong whatever the label, instead of turning the whole run into "values"."""
    import numpy as np

    rows = array.reshape(len(array), -1) if array.ndim >= 2 else array.reshape(len(array), 1)
    finite = (
        np.isfinite(rows).all(axis=1) if np.issubdtype(rows.dtype, np.floating) else np.ones(len(rows), bool)
    )
    if array.ndim >= 2 and array.shape[-1] > 1:
        classes = np.argmax(np.nan_to_num(array, nan=0.0), axis=-1).reshape(len(array), -1)[:, 0]
        return np.where(finite, classes, -1).tolist(), "class"
    flat = rows[:, 0]
    if np.issubdtype(flat.dtype, np.integer) or np.issubdtype(flat.dtype, np.bool_):
        return flat.astype(int).tolist(), "class"
    seen = flat[finite]
    if is_label:
        if np.all(np.equal(np.mod(seen, 1), 0)):
            return np.where(finite, np.nan_to_num(flat), -1).astype(int).tolist(), "class"
        return _floats(flat), "value"
    if classifier and logits:  # a logit's class is its sign, wherever its values lie
        return np.where(finite, np.nan_to_num(flat) > 0.0, -1).astype(int).tolist(), "class"
    if classifier or _probabilities(flat):
        return np.where(finite, np.nan_to_num(flat) > 0.5, -1).astype(int).tolist(), "class"
    return _floats(flat), "value"


def is_multi_label(outputs: Any, labels: Any, task: dict[str, Any] | None = None) -> bool:
    """Whether the model tags each input with a set of labels: several output units and labels of 0s
    and 1s of which a row may hold several or none (sigmoid units, whatever the loss: old programs
    train them with MSE), where the argmax of a row would name one unit of many and say nothing of
    whether the model was right. The labels decide, so that programs that differ only in their loss
    or activation (a fault, a mutant) are judged alike. One-hot labels stay single-label (argmax), as
    does a softmax or a categorical cross-entropy, which read one class per input."""
    import numpy as np

    if outputs.ndim != 2 or outputs.shape[1] < 2 or getattr(labels, "shape", None) != outputs.shape:
        return False
    task = task or {}
    if "softmax" in str(task.get("activation") or "") or "categorical" in str(task.get("loss") or ""):
        return False
    values = np.asarray(labels)
    if not np.isin(values, (0, 1)).all():
        return False
    if not task and not _probabilities(outputs):
        return False  # numbers outside [0, 1] from a model of unknown task: not sigmoid units
    return bool((values.sum(axis=1) != 1).any())


def _probabilities(outputs: Any) -> bool:
    """Whether every finite output lies in [0, 1] (sigmoid units, not logits)."""
    import numpy as np

    values = np.asarray(outputs, dtype=float)
    seen = values[np.isfinite(values)]
    return bool(((seen >= 0.0) & (seen <= 1.0)).all())


def label_sets(array: Any, *, classifier: bool = False, logits: bool = False) -> list[int]:
    """Each row's set of labels as one class number (bit ``j`` for unit ``j``): units above 0.5 of an
    output (above 0 where they are logits: a cross-entropy ``classifier`` compiled with ``logits``),
    the 1s of a label row; a row that is not finite is class -1 (wrong whatever the label). One
    number per input keeps the per-input record's form: correct is prediction == label, all units
    right."""
    import numpy as np

    rows = np.asarray(array, dtype=float)
    finite = np.isfinite(rows).all(axis=1)
    bits = np.nan_to_num(rows) > (0.0 if classifier and logits else 0.5)
    weights = [1 << j for j in range(rows.shape[1])]
    return [sum(w for w, on in zip(weights, row, strict=True) if on) if ok else -1 for row, ok in zip(bits, finite, strict=True)]


def per_input_result(outputs: Any, labels: Any, task: dict[str, Any] | None = None) -> dict[str, Any]:
    """The per-input fields of an :class:`~mutreal.execution.records.EvaluateRecord` from the model's
    outputs and the labels: classes for a classifier, numbers for a regression model (``task``)."""
    n_inputs = len(outputs)
    if task and task.get("kind") == REGRESSION:
        width = int(math.prod(outputs.shape[1:])) if outputs.ndim > 1 else 1
        if width != 1:  # several numbers per input: no single tolerance rule applies
            return {"n_inputs": int(n_inputs)}
        result: dict[str, Any] = {"n_inputs": int(n_inputs), "prediction_kind": "value",
                                  "predictions": _floats(outputs.reshape(n_inputs))}  # fmt: skip
        if labels is not None and len(labels) == n_inputs and int(math.prod(labels.shape[1:])) == 1:
            result["labels"] = _floats(labels.reshape(n_inputs))
        return result
    # a class from any output only where a cross-entropy reads it (labels 0 and 1; a hinge loss's are
    # -1 and 1); a logit (class 1 above 0) only where that loss was compiled with from_logits=True: a
    # loss named "binary_crossentropy" on a linear unit reads probabilities, and Keras' accuracy
    # thresholds it at 0.5 (reading it as a logit made mutreal's classes disagree with the program's
    # own accuracy: compare's accuracy_disagreements)
    classifier = bool(task) and task.get("kind") == CLASSIFICATION and "crossentropy" in str(task.get("loss") or "")
    logits = classifier and bool((task or {}).get("from_logits"))
    if labels is not None and len(labels) == n_inputs and is_multi_label(outputs, labels, task):
        return {"n_inputs": int(n_inputs), "predictions": label_sets(outputs, classifier=classifier, logits=logits),
                "labels": label_sets(labels), "prediction_kind": "class"}  # fmt: skip
    predictions, kind = to_classes(outputs, is_label=False, classifier=classifier, logits=logits)
    result = {"n_inputs": int(n_inputs), "predictions": predictions, "prediction_kind": kind}
    if labels is not None and len(labels) == n_inputs:
        label_values, label_kind = to_classes(labels, is_label=True)
        if kind == "class" and label_kind != "class":
            result["prediction_kind"] = "value"
            result["predictions"] = _floats(outputs.reshape(n_inputs, -1)[:, 0])
        result["labels"] = label_values
    return result


def predict_eagerly(model: Any, inputs: Any, batch_size: int | None) -> Any:
    """Outputs of ``model`` on array inputs by direct calls in chunks (no ``predict`` function tracing,
    which would cost more than the evaluate itself on small test sets); ``None`` if that fails (a
    graph-mode TF1 program, several inputs)."""
    import numpy as np

    if isinstance(inputs, dict):
        return None
    chunk = max(int(batch_size or 0), 1024)
    try:
        parts = [
            np.asarray(model(inputs[i : i + chunk], training=False)) for i in range(0, len(inputs), chunk)
        ]
    except Exception:
        return None
    return np.concatenate(parts) if parts else None


def per_input_arrays(
    model: Any, x: Any, y: Any, batch_size: Any, predict: Predict, task: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Predictions (and labels) of ``model`` on array inputs, or nothing."""
    labels = as_numpy(y)
    inputs = as_numpy(x) if not isinstance(x, dict) else x
    if inputs is None or (labels is None and y is not None):
        return {}
    try:
        # named inputs ({"image": ..., "meta": ...}) count their rows, not their names
        rows = next(iter(inputs.values()), None) if isinstance(inputs, dict) else inputs
        n_inputs = len(labels) if labels is not None else len(rows)
    except TypeError:
        return {}
    if n_inputs > MAX_PREDICTIONS:
        return {"n_inputs": int(n_inputs)}
    size = batch_size if isinstance(batch_size, int) else None
    outputs = predict_eagerly(model, inputs, size)
    if outputs is None:
        outputs = as_numpy(predict(model, x, size or 32))
    if outputs is None or len(outputs) != n_inputs:
        return {"n_inputs": int(n_inputs)}
    return with_ids(per_input_result(outputs, labels, task), row_digests(inputs))


def _split_batch(batch: Any) -> tuple[Any, Any]:
    """(inputs, labels) of one batch as Keras reads it: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``."""
    if isinstance(batch, (tuple, list)):
        if len(batch) == 1:
            return batch[0], None
        return batch[0], batch[1]
    return batch, None


class BatchPredictions:
    """Per-input outputs and labels collected batch by batch (generators, datasets, PyDatasets).

    Each batch is predicted when it passes (eager calls, no ``predict`` tracing), so only the outputs
    and labels are kept, not the inputs: a test set of large images costs no more memory than its
    labels, and each row's digest (:func:`row_digests`, 8 bytes). Past :data:`MAX_PREDICTIONS` inputs
    only the count is kept. Any failure (a batch that is
    not an array, inputs and labels of different lengths) gives up quietly: capture must never break
    the program, and an evaluate without per-input records is still recorded.
    """

    def __init__(self, model: Any, task: dict[str, Any] | None = None) -> None:
        self.model = model
        self.task = task
        self.outputs: list[Any] = []
        self.labels: list[Any] = []
        self.digests: list[bytes] | None = []
        self.count = 0
        self.failed = False
        self.labelled = True
        self.seconds = 0.0  # spent predicting (inside evaluate for a generator: not evaluate's time)

    def add(self, batch: Any) -> None:
        if self.failed:
            return
        try:
            xb, yb = _split_batch(batch)
            inputs = as_numpy(xb) if not isinstance(xb, dict) else None
            labels = as_numpy(yb)
            if inputs is None or (yb is not None and labels is None):
                self.failed = True
                return
            self.count += len(inputs)
            if self.count > MAX_PREDICTIONS:
                self.outputs, self.labels, self.digests = [], [], []
                return
            began = time.perf_counter()
            outputs = predict_eagerly(self.model, inputs, None)
            self.seconds += time.perf_counter() - began
            if (
                outputs is None
                or len(outputs) != len(inputs)
                or (labels is not None and len(labels) != len(inputs))
            ):
                self.failed = True
                return
            self.outputs.append(outputs)
            digests = row_digests(inputs) if self.digests is not None else None
            if digests is None:
                self.digests = None
            else:
                self.digests.extend(digests)  # type: ignore[union-attr]
            if labels is None:
                self.labelled = False
            else:
                self.labels.append(labels)
        except Exception:
            self.failed = True

    def result(self) -> dict[str, Any]:
        import numpy as np

        if self.failed or not self.count:
            return {}
        if self.count > MAX_PREDICTIONS:
            return {"n_inputs": int(self.count)}
        outputs = np.concatenate(self.outputs)
        labels = np.concatenate(self.labels) if self.labelled and self.labels else None
        return with_ids(per_input_result(outputs, labels, self.task), self.digests)


def is_tf_dataset(x: Any) -> bool:
    return type(x).__module__.startswith("tensorflow") and hasattr(x, "cardinality") and hasattr(x, "take")


def is_py_dataset(x: Any) -> bool:
    """A Keras 3 ``PyDataset`` or a tf_keras/Keras ``Sequence`` (indexable batches; ``len`` is the
    batch count), told by class name so that neither Keras is imported to ask."""
    return any(
        cls.__name__ in ("PyDataset", "Sequence") and cls.__module__.split(".")[0] in ("keras", "tf_keras")
        for cls in type(x).__mro__
    )


def is_python_iterator(x: Any) -> bool:
    """A generator or other one-pass iterator of batches (``evaluate(gen, steps=...)``)."""
    return isinstance(x, collections.abc.Iterator) and not is_tf_dataset(x) and not is_py_dataset(x)


def recording(iterator: Any, collector: BatchPredictions, steps: int | None) -> Iterator[Any]:
    """Yield the program's batches unchanged to ``evaluate``, predicting each as it passes.

    At most ``steps`` batches are recorded: Keras may read ahead of the last evaluated step."""
    recorded = 0
    for batch in iterator:
        if steps is None or recorded < steps:
            collector.add(batch)
            recorded += 1
        yield batch


def per_input_batches(
    model: Any, x: Any, steps: int | None, task: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Per-input records of a tf.data dataset or a PyDataset, by reading it once more.

    This assumes the set yields the same inputs in every run of a program (as arrays do); a set
    reshuffled per iteration would pair runs' inputs wrongly, as it would for any tool."""
    collector = BatchPredictions(model, task)
    if is_tf_dataset(x):
        import tensorflow as tf

        dataset = x.take(steps) if steps else x
        if int(dataset.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
            return {}
        for batch in dataset:
            collector.add(batch)
            if collector.failed or collector.count > MAX_PREDICTIONS:
                break
    else:
        for index in range(min(len(x), steps) if steps else len(x)):
            collector.add(x[index])
            if collector.failed or collector.count > MAX_PREDICTIONS:
                break
    return collector.result()


def held_out_candidates(fit_call: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The data a fit call had, best first, as ``(source, x, y)``: its ``validation_data``, the part
    ``validation_split`` held out (the last share of the arrays, as Keras splits it), its training
    arrays. A training set that is a dataset or generator is left out (it may be reshuffled between
    runs, and a generator cannot be read again)."""
    candidates: list[tuple[str, Any, Any]] = []
    x, y = fit_call.get("x"), fit_call.get("y")
    validation = fit_call.get("validation_data")
    if isinstance(validation, (tuple, list)) and len(validation) >= 2:
        candidates.append(("validation", validation[0], validation[1]))
    elif validation is not None and (is_tf_dataset(validation) or is_py_dataset(validation)):
        candidates.append(("validation", validation, None))
    split = fit_call.get("validation_split") or 0.0
    inputs, labels = as_numpy(x), as_numpy(y)
    if isinstance(split, (int, float)) and 0.0 < split < 1.0 and inputs is not None and labels is not None:
        split_at = int(math.floor(len(inputs) * (1.0 - float(split))))
        if 0 < split_at < len(inputs):
            candidates.append(("validation", inputs[split_at:], labels[split_at:]))
    if inputs is not None and labels is not None and not is_python_iterator(x):
        candidates.append(("training", inputs, labels))
    return candidates


def per_input_after_fit(
    model: Any,
    fit_call: dict[str, Any],
    predict: Predict,
    task: dict[str, Any] | None,
    sources: tuple[str, ...] = ("validation", "training"),
) -> dict[str, Any]:
    """The per-input fields (with ``source``) on the best data of a fit call, among ``sources``,
    that gives correctness, or nothing."""
    batch_size = fit_call.get("batch_size")
    for source, x, y in held_out_candidates(fit_call):
        if source not in sources:
            continue
        try:
            if y is None:
                extra = per_input_batches(model, x, None, task)
            else:
                extra = per_input_arrays(model, x, y, batch_size, predict, task)
        except Exception:  # noqa: BLE001 - try the next set
            continue
        if extra.get("predictions") and extra.get("labels") is not None:
            return {**extra, "source": source}
    return {}
