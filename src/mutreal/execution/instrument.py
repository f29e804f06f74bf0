"""In-worker capture of what a Keras program does, without editing the program.

Runs only inside worker processes (it imports TensorFlow). :func:`install` patches, once per worker:

* ``keras.Model.fit`` / ``evaluate`` / ``predict`` so every top-level call is timed and its history
  or results are recorded; after each top-level ``evaluate`` the model predicts the same inputs, so
  per-input correctness is available for per-input killing (Kim et al. 2025): arrays are predicted
  again, a tf.data dataset or PyDataset is read once more, and a generator's batches are predicted
  as they pass on their way to ``evaluate`` (a one-pass generator cannot be read twice);
* ``keras.utils.get_file`` (and every module that imported it, e.g. ``keras.datasets.mnist``), so a
  dataset that is not in the local cache fails at once with the path to place it at, instead of a
  network time-out;
* outbound network connections, which fail fast for the same reason (worker machines are offline).

The patches write into the module-level :data:`CURRENT` capture, which the worker swaps per run.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.execution.records import EvaluateRecord, FitRecord


class MissingDatasetError(FileNotFoundError):
    """A program asked for a data file that is not available offline (recorded as ``missing-data``)."""


@dataclass
class Capture:
    """What one run of a program did, filled by the patched Keras methods."""

    fits: list[FitRecord] = field(default_factory=list)
    evaluations: list[EvaluateRecord] = field(default_factory=list)
    predict_calls: int = 0
    warnings: list[str] = field(default_factory=list)
    depth: int = 0  # >0 while inside a patched call: inner calls (fit's validation) are not recorded


CURRENT: Capture = Capture()
_INSTALLED = False
_ORIGINALS: dict[str, Any] = {}
#: Keep per-input predictions for at most this many inputs per evaluate (memory of the store).
MAX_PREDICTIONS = 100_000


def _floats(values: Any) -> list[float]:
    return [float(v) for v in values]


def _as_numpy(value: Any) -> Any:
    import numpy as np

    if value is None:
        return None
    if isinstance(value, (list, tuple)) and value and not isinstance(value[0], (int, float)):
        return None  # several inputs/outputs: no single per-input label vector
    try:
        array = np.asarray(value)
    except Exception:
        return None
    if array.dtype == object or array.ndim == 0:
        return None
    return array


def _to_classes(array: Any, *, is_label: bool) -> tuple[list[Any], str]:
    """Class indices from probabilities/one-hot (argmax) or one sigmoid unit (0.5), else raw values."""
    import numpy as np

    if array.ndim >= 2 and array.shape[-1] > 1:
        return np.argmax(array, axis=-1).reshape(len(array), -1)[:, 0].tolist(), "class"
    flat = array.reshape(len(array), -1)[:, 0] if array.ndim >= 2 else array
    if np.issubdtype(flat.dtype, np.integer) or np.issubdtype(flat.dtype, np.bool_):
        return flat.astype(int).tolist(), "class"
    if is_label:
        if np.all(np.equal(np.mod(flat, 1), 0)):
            return flat.astype(int).tolist(), "class"
        return _floats(flat), "value"
    if np.all((flat >= 0.0) & (flat <= 1.0)):
        return (flat > 0.5).astype(int).tolist(), "class"
    return _floats(flat), "value"


def _per_input(model: Any, x: Any, y: Any, batch_size: Any) -> dict[str, Any]:
    """Predictions (and labels) of ``model`` on the array inputs of an evaluate call, or nothing."""
    labels = _as_numpy(y)
    inputs = _as_numpy(x) if not isinstance(x, dict) else x
    if inputs is None or (labels is None and y is not None):
        return {}
    try:
        n_inputs = len(labels) if labels is not None else len(inputs)
    except TypeError:
        return {}
    if n_inputs > MAX_PREDICTIONS:
        return {"n_inputs": int(n_inputs)}
    outputs = _predict_eagerly(model, inputs, batch_size)
    if outputs is None:
        outputs = _as_numpy(_ORIGINALS["predict"](model, x, batch_size=batch_size or 32, verbose=0))
    if outputs is None or len(outputs) != n_inputs:
        return {"n_inputs": int(n_inputs)}
    return _per_input_result(outputs, labels)


def _per_input_result(outputs: Any, labels: Any) -> dict[str, Any]:
    """The per-input fields of an :class:`EvaluateRecord` from the model's outputs and the labels."""
    n_inputs = len(outputs)
    predictions, kind = _to_classes(outputs, is_label=False)
    result: dict[str, Any] = {"n_inputs": int(n_inputs), "predictions": predictions, "prediction_kind": kind}
    if labels is not None and len(labels) == n_inputs:
        label_values, label_kind = _to_classes(labels, is_label=True)
        if kind == "class" and label_kind != "class":
            result["prediction_kind"] = "value"
            result["predictions"] = _floats(outputs.reshape(n_inputs, -1)[:, 0])
        result["labels"] = label_values
    return result


def _predict_eagerly(model: Any, inputs: Any, batch_size: int | None) -> Any:
    """Outputs of ``model`` on array inputs by direct calls in chunks (no ``predict`` function tracing,
    which would cost more than the evaluate itself on small test sets); ``None`` if that fails."""
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
    labels. Past :data:`MAX_PREDICTIONS` inputs only the count is kept. Any failure (a batch that is
    not an array, inputs and labels of different lengths) gives up quietly: capture must never break
    the program, and an evaluate without per-input records is still recorded.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.outputs: list[Any] = []
        self.labels: list[Any] = []
        self.count = 0
        self.failed = False
        self.labelled = True
        self.seconds = 0.0  # spent predicting (inside evaluate for a generator: not evaluate's time)

    def add(self, batch: Any) -> None:
        if self.failed:
            return
        try:
            xb, yb = _split_batch(batch)
            inputs = _as_numpy(xb) if not isinstance(xb, dict) else None
            labels = _as_numpy(yb)
            if inputs is None or (yb is not None and labels is None):
                self.failed = True
                return
            self.count += len(inputs)
            if self.count > MAX_PREDICTIONS:
                self.outputs, self.labels = [], []
                return
            began = time.perf_counter()
            outputs = _predict_eagerly(self.model, inputs, None)
            self.seconds += time.perf_counter() - began
            if (
                outputs is None
                or len(outputs) != len(inputs)
                or (labels is not None and len(labels) != len(inputs))
            ):
                self.failed = True
                return
            self.outputs.append(outputs)
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
        return _per_input_result(outputs, labels)


def _is_tf_dataset(x: Any) -> bool:
    return type(x).__module__.startswith("tensorflow") and hasattr(x, "cardinality") and hasattr(x, "take")


def _is_py_dataset(x: Any) -> bool:
    """A ``keras.utils.PyDataset`` or ``Sequence`` (indexable batches; ``len`` is the batch count)."""
    try:
        from keras.utils import PyDataset
    except ImportError:  # pragma: no cover - Keras 3 always has it
        return False
    return isinstance(x, PyDataset)


def _is_python_iterator(x: Any) -> bool:
    """A generator or other one-pass iterator of batches (``evaluate(gen, steps=...)``)."""
    import collections.abc

    return isinstance(x, collections.abc.Iterator) and not _is_tf_dataset(x) and not _is_py_dataset(x)


def _recording(iterator: Any, collector: BatchPredictions, steps: int | None) -> Any:
    """Yield the program's batches unchanged to ``evaluate``, predicting each as it passes.

    At most ``steps`` batches are recorded: Keras may read ahead of the last evaluated step."""
    recorded = 0
    for batch in iterator:
        if steps is None or recorded < steps:
            collector.add(batch)
            recorded += 1
        yield batch


def _per_input_batches(model: Any, x: Any, steps: int | None) -> dict[str, Any]:
    """Per-input records of an evaluate on a tf.data dataset or a PyDataset, by reading it once more.

    This assumes the test set yields the same inputs in every run of a program (as arrays do); a
    test set reshuffled per iteration would pair runs' inputs wrongly, as it would for any tool."""
    collector = BatchPredictions(model)
    if _is_tf_dataset(x):
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


def _flatten_like_keras(model: Any, logs: dict[str, float]) -> Any:
    """What ``evaluate(return_dict=False)`` returns for ``logs`` (a scalar for a single value)."""
    flatten = getattr(model, "_flatten_metrics_in_order", None)
    if flatten is not None:
        try:
            return flatten(logs)
        except Exception:
            pass
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def _patched_fit(self: Any, *args: Any, **kwargs: Any) -> Any:
    capture = CURRENT
    if capture.depth:
        return _ORIGINALS["fit"](self, *args, **kwargs)
    capture.depth += 1
    start = time.perf_counter()
    try:
        history = _ORIGINALS["fit"](self, *args, **kwargs)
    finally:
        elapsed = time.perf_counter() - start
        capture.depth -= 1
    logs = getattr(history, "history", None) or {}
    record = FitRecord(
        history={str(k): _floats(v) for k, v in logs.items()},
        epochs=len(next(iter(logs.values()), [])),
        time_s=elapsed,
    )
    capture.fits.append(record)
    return history


def _patched_evaluate(self: Any, x: Any = None, y: Any = None, *args: Any, **kwargs: Any) -> Any:
    capture = CURRENT
    if capture.depth:
        return _ORIGINALS["evaluate"](self, x, y, *args, **kwargs)
    wants_dict = bool(kwargs.pop("return_dict", False))
    steps = kwargs.get("steps")
    steps = steps if isinstance(steps, int) and steps > 0 else None
    recorder = BatchPredictions(self) if _is_python_iterator(x) else None
    x_eval = _recording(x, recorder, steps) if recorder is not None else x
    capture.depth += 1
    start = time.perf_counter()
    try:
        logs = _ORIGINALS["evaluate"](self, x_eval, y, *args, return_dict=True, **kwargs)
        elapsed = time.perf_counter() - start
        record = EvaluateRecord(results={str(k): float(v) for k, v in dict(logs).items()}, time_s=elapsed)
        if recorder is not None:  # the batches were predicted while evaluate read them: not timed
            record.time_s = max(0.0, elapsed - recorder.seconds)
        try:
            batch_size = kwargs.get("batch_size", args[0] if args else None)
            if recorder is not None:
                extra = recorder.result()
            elif _is_tf_dataset(x) or _is_py_dataset(x):
                extra = _per_input_batches(self, x, steps)
            else:
                extra = _per_input(self, x, y, batch_size if isinstance(batch_size, int) else None)
        except Exception as error:  # capture must never break the program
            extra = {}
            capture.warnings.append(f"per-input predictions not captured: {error!r}")
        for name, value in extra.items():
            setattr(record, name, value)
        capture.evaluations.append(record)
    finally:
        capture.depth -= 1
    return logs if wants_dict else _flatten_like_keras(self, logs)


def _patched_predict(self: Any, *args: Any, **kwargs: Any) -> Any:
    CURRENT.predict_calls += 1
    return _ORIGINALS["predict"](self, *args, **kwargs)


def _dataset_cache_dir(cache_dir: str | None, cache_subdir: str) -> Path:
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return Path(cache_dir) / cache_subdir


def _patched_get_file(fname: Any = None, origin: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``get_file`` that never downloads: cached files are served, absent ones fail with their path."""
    cache_subdir = kwargs.get("cache_subdir", "datasets")
    cache_dir = kwargs.get("cache_dir")
    name = fname or (str(origin).rstrip("/").split("/")[-1] if origin else "?")
    folder = _dataset_cache_dir(cache_dir, cache_subdir)
    target = Path(name) if os.path.isabs(str(name)) else folder / str(name)
    candidates = [target, Path(str(target) + ".tar.gz"), target.with_suffix("")]
    if kwargs.get("extract") or kwargs.get("untar"):
        candidates.append(Path(str(target) + "_extracted"))
    if any(c.exists() for c in candidates):
        return _ORIGINALS["get_file"](fname, origin, *args, **kwargs)
    raise MissingDatasetError(
        f"dataset file '{name}' is not available offline: place it at {target}"
        + (f" (downloaded from {origin})" if origin else "")
    )


def _patch_get_file_everywhere() -> None:
    import sys

    original = _ORIGINALS.get("get_file")
    if original is None:
        return
    for module in list(sys.modules.values()):
        if module is None:
            continue
        try:
            if getattr(module, "get_file", None) is original:
                module.get_file = _patched_get_file
        except Exception:
            continue


class NetworkBlockedError(MissingDatasetError, ConnectionError):
    """Outbound connections are refused in workers so downloads fail at once."""


def _blocked_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) and address else address
    if isinstance(host, str) and host in _LOCAL_HOSTS or self.family == socket.AF_UNIX:
        return _ORIGINALS["connect"](self, address)
    raise NetworkBlockedError(
        f"network access to {address!r} is blocked in mutreal workers: a program that downloads data "
        "must find it locally; place the file where the program looks for it (for Keras datasets: "
        "~/.keras/datasets/)"
    )


_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0", ""})


def _blocked_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    """Name lookups fail at once for remote hosts (an offline DNS lookup can hang for a minute)."""
    name = host.decode() if isinstance(host, bytes) else host
    if name is None or str(name) in _LOCAL_HOSTS:
        return _ORIGINALS["getaddrinfo"](host, *args, **kwargs)
    raise NetworkBlockedError(
        f"network access to {name!r} is blocked in mutreal workers: a program that downloads data "
        "must find it locally; place the file where the program looks for it (for Keras datasets: "
        "~/.keras/datasets/)"
    )


def install(block_network: bool = True) -> None:
    """Patch Keras (and the network) once in this worker; later calls only re-patch ``get_file``."""
    global _INSTALLED
    if _INSTALLED:
        _patch_get_file_everywhere()  # modules imported by a program since the last run
        return
    import keras
    from keras.src.models.model import Model
    from keras.src.utils import file_utils

    _ORIGINALS["fit"] = Model.fit
    _ORIGINALS["evaluate"] = Model.evaluate
    _ORIGINALS["predict"] = Model.predict
    _ORIGINALS["get_file"] = file_utils.get_file
    Model.fit = _patched_fit
    Model.evaluate = _patched_evaluate
    Model.predict = _patched_predict
    _patch_get_file_everywhere()
    keras.utils.get_file = _patched_get_file
    if block_network:
        _ORIGINALS["connect"] = socket.socket.connect
        _ORIGINALS["getaddrinfo"] = socket.getaddrinfo
        socket.socket.connect = _blocked_connect  # type: ignore[method-assign]
        socket.getaddrinfo = _blocked_getaddrinfo
    _INSTALLED = True


def start_capture() -> Capture:
    """A fresh capture for the next run (the patched methods write into it)."""
    global CURRENT
    CURRENT = Capture()
    return CURRENT
