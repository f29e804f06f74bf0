"""In-worker capture of what a Keras program does, without editing the program.

Runs only inside worker processes (it imports TensorFlow). :func:`install` patches, once per worker
and framework (``keras3``: Keras 3; ``tf_keras``: Keras 2 as the ``tf-keras`` package maintains it,
what ``tf.keras`` is under ``TF_USE_LEGACY_KERAS=1``; ``tf1``: TensorFlow 1 graph code, whose
``tf.keras`` is whichever of the two that variable selects):

* the framework's ``Model.fit`` / ``evaluate`` / ``predict``, so every top-level call is timed and its
  history or results are recorded with the model's task (:mod:`mutreal.execution.model_task`); a
  fit that raises is recorded too, with the epochs it completed (a crash before the first epoch is
  deterministic: the campaign does not repeat it). After each top-level ``evaluate`` the model
  predicts the same inputs, so per-input correctness is available for per-input killing (Kim et
  al. 2025; :mod:`mutreal.execution.per_input`); a program whose last evaluate gave none gets it
  from :func:`finish_capture` on its last fit's validation data, else its training data;
* the framework's ``get_file`` (and every module that imported it, e.g. ``keras.datasets.mnist``),
  so a dataset that is not in the local cache fails at once with the path to place it at, instead of
  a network time-out;
* training steps outside ``fit`` (TF1 ``Session.run``, an optimiser's ``apply_gradients`` in a
  custom loop) are counted, so a crash after a custom loop trained is not taken for an early one;
* outbound network connections, which fail fast for the same reason (worker machines are offline).

The patches write into the module-level :data:`CURRENT` capture, which the worker swaps per run
(:func:`start_capture`) and closes after the program (:func:`finish_capture`).
"""

from __future__ import annotations

import inspect
import os
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.compat.offline_data import MissingDatasetError  # noqa: F401 - raised here, caught by the worker as fit_capture.MissingDatasetError
from mutreal.execution import per_input
from mutreal.execution.model_task import read_task
from mutreal.execution.per_input import MAX_PREDICTIONS  # noqa: F401 - the limit, where it always was
from mutreal.execution.records import EvaluateRecord, FitRecord

#: The frameworks a worker can run programs on (the era helper's ``framework`` option).
FRAMEWORKS = ("keras3", "tf_keras", "tf1")


@dataclass
class Capture:
    """What one run of a program did, filled by the patched Keras methods."""

    fits: list[FitRecord] = field(default_factory=list)
    evaluations: list[EvaluateRecord] = field(default_factory=list)
    predict_calls: int = 0
    warnings: list[str] = field(default_factory=list)
    depth: int = 0  # >0 while inside a patched call: inner calls (fit's validation) are not recorded
    #: training calls outside fit (TF1 ``Session.run``, ``apply_gradients`` of a custom loop)
    steps_outside_fit: int = 0
    #: the optimizers that applied gradients outside fit: inside a ``tf.function`` (``train_on_batch``,
    #: a compiled custom step) ``apply_gradients`` runs in Python once per trace, not once per step,
    #: so their own step counters (``iterations``) say how many steps they took
    optimizers: list[Any] = field(default_factory=list)
    #: the last top-level fit: (model, its bound arguments, the framework's predict), until finished
    last_fit: tuple[Any, dict[str, Any], Callable[..., Any]] | None = None


CURRENT: Capture = Capture()
_INSTALLED: set[str] = set()
_NETWORK_BLOCKED = False
_ORIGINALS: dict[str, Any] = {}


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


def _bound(
    function: Callable[..., Any], model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """A call's arguments by name (``x``, ``y``, ``batch_size``, ``validation_split`` ...), or the
    keyword arguments alone when the signature cannot bind them."""
    try:
        bound = inspect.signature(function).bind(model, *args, **kwargs)
    except (TypeError, ValueError):
        return dict(kwargs)
    named = dict(bound.arguments)
    named.update(named.pop("kwargs", None) or {})
    return named


def _number(value: Any) -> float | None:
    """One metric value as a float, or None when it is not one number (``F1Score()`` without an
    ``average`` gives one per class): such a metric cannot be compared and is not recorded."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _scalar_logs(logs: Any) -> dict[str, float]:
    """An evaluate's named results, the metrics that are one number each (see :func:`_number`)."""
    out = {}
    for name, value in dict(logs).items():
        number = _number(value)
        if number is not None:
            out[str(name)] = number
    return out


def _scalar_history(logs: Any) -> dict[str, list[float]]:
    """A History's per-epoch values of the metrics that are one number each epoch."""
    out = {}
    for name, values in dict(logs).items():
        numbers = [_number(v) for v in values]
        if all(n is not None for n in numbers):
            out[str(name)] = [float(n) for n in numbers if n is not None]
    return out


def _epochs_completed(model: Any, before: Any) -> tuple[int, dict[str, list[float]]]:
    """Epochs a fit that raised had completed, from the History callback Keras sets on the model
    (Keras 3 sets it after the first epoch ends, tf_keras before training: both keep ``epoch``)."""
    history = getattr(model, "history", None)
    if history is None or history is before:
        return 0, {}
    epochs = getattr(history, "epoch", None) or []
    logs = getattr(history, "history", None) or {}
    try:
        return len(epochs), _scalar_history(logs)
    except (TypeError, ValueError):
        return len(epochs), {}


def _make_model_patches(originals: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """``fit``/``evaluate``/``predict`` of one framework's Model, recording into :data:`CURRENT`."""
    fit_original, evaluate_original, predict_original = (
        originals["fit"],
        originals["evaluate"],
        originals["predict"],
    )

    def predict(model: Any, x: Any, batch_size: int) -> Any:
        return predict_original(model, x, batch_size=batch_size, verbose=0)

    def fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        capture = CURRENT
        if capture.depth:
            return fit_original(self, *args, **kwargs)
        capture.depth += 1
        before = getattr(self, "history", None)
        start = time.perf_counter()
        try:
            history = fit_original(self, *args, **kwargs)
        except BaseException:
            epochs, logs = _epochs_completed(self, before)
            capture.fits.append(FitRecord(history=logs, epochs=epochs, time_s=time.perf_counter() - start,
                                          task=read_task(self), completed=False))  # fmt: skip
            raise
        finally:
            capture.depth -= 1
        elapsed = time.perf_counter() - start
        logs = getattr(history, "history", None) or {}
        capture.fits.append(FitRecord(
            history=_scalar_history(logs),
            epochs=len(next(iter(logs.values()), [])), time_s=elapsed, task=read_task(self),
        ))  # fmt: skip
        capture.last_fit = (self, _bound(fit_original, self, args, kwargs), predict)
        return history

    def evaluate(self: Any, x: Any = None, y: Any = None, *args: Any, **kwargs: Any) -> Any:
        capture = CURRENT
        if capture.depth:
            return evaluate_original(self, x, y, *args, **kwargs)
        wants_dict = bool(kwargs.pop("return_dict", False))
        steps = kwargs.get("steps")
        steps = steps if isinstance(steps, int) and steps > 0 else None
        task = read_task(self)
        recorder = per_input.BatchPredictions(self, task) if per_input.is_python_iterator(x) else None
        x_eval = per_input.recording(x, recorder, steps) if recorder is not None else x
        capture.depth += 1
        start = time.perf_counter()
        try:
            logs = evaluate_original(self, x_eval, y, *args, return_dict=True, **kwargs)
            elapsed = time.perf_counter() - start
            record = EvaluateRecord(results=_scalar_logs(logs), time_s=elapsed,
                                    task=task)  # fmt: skip
            if recorder is not None:  # the batches were predicted while evaluate read them: not timed
                record.time_s = max(0.0, elapsed - recorder.seconds)
            try:
                batch_size = kwargs.get("batch_size", args[0] if args else None)
                if recorder is not None:
                    extra = recorder.result()
                elif per_input.is_tf_dataset(x) or per_input.is_py_dataset(x):
                    extra = per_input.per_input_batches(self, x, steps, task)
                else:
                    extra = per_input.per_input_arrays(self, x, y, batch_size, predict, task)
            except Exception as error:  # capture must never break the program
                extra = {}
                capture.warnings.append(f"per-input predictions not captured: {error!r}")
            for name, value in extra.items():
                setattr(record, name, value)
            capture.evaluations.append(record)
        finally:
            capture.depth -= 1
        return logs if wants_dict else _flatten_like_keras(self, logs)

    def counted_predict(self: Any, *args: Any, **kwargs: Any) -> Any:
        CURRENT.predict_calls += 1
        return predict_original(self, *args, **kwargs)

    return {"fit": fit, "evaluate": evaluate, "predict": counted_predict}


def finish_capture(completed: bool = True) -> dict[str, Any]:
    """Close the run's capture after the program; the extra fields of the worker's result.

    For a program that completed and whose last evaluate gave no per-input correctness (or that
    never evaluated), the model of its last fit predicts that fit's validation data, else its
    training data, and the result is added as an evaluate record whose ``source`` says which
    (``validation`` / ``training``) and whose ``n_inputs`` says how many. A program whose last
    evaluate gave correctness gets its validation data recorded too, where its fit had any (a share
    of the training data: cheap), so that it can be compared input by input with a version of it
    that never evaluates (a fault that removes the evaluate call; :mod:`mutreal.analysis.common_set`).
    The model and data of the last fit are then let go."""
    capture = CURRENT
    last_fit, capture.last_fit = capture.last_fit, None
    last = capture.evaluations[-1] if capture.evaluations else None
    if completed and last_fit is not None:
        evaluated = last is not None and per_input.has_correctness(last)
        model, call, predict = last_fit
        task = read_task(model)
        start = time.perf_counter()
        try:
            sources = ("validation",) if evaluated else ("validation", "training")
            extra = per_input.per_input_after_fit(model, call, predict, task, sources)
        except Exception as error:  # noqa: BLE001 - capture must never break the run
            extra = {}
            capture.warnings.append(f"per-input predictions after fit not captured: {error!r}")
        if extra:
            record = EvaluateRecord(time_s=time.perf_counter() - start, task=task)
            for name, value in extra.items():
                setattr(record, name, value)
            capture.evaluations.append(record)
    steps = max(capture.steps_outside_fit, _optimizer_steps(capture.optimizers))
    capture.optimizers = []
    return {"steps_outside_fit": steps}


def _optimizer_steps(optimizers: list[Any]) -> int:
    """The steps the optimizers that trained outside fit took, by their own counters (0 where one
    cannot be read: a graph-mode variable without its session)."""
    total = 0
    for optimizer in optimizers:
        try:
            counter = optimizer.iterations
            total += int(counter.numpy() if hasattr(counter, "numpy") else counter)
        except Exception:  # noqa: BLE001 - the calls counted stand
            continue
    return total


def _count_steps(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` counting its successful calls made outside ``fit`` (custom training loops)."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        capture = CURRENT
        if not capture.depth:
            capture.steps_outside_fit += 1
            owner = args[0] if args else None
            if hasattr(owner, "iterations") and all(owner is not seen for seen in capture.optimizers):
                capture.optimizers.append(owner)
        return result

    counted.__wrapped__ = original  # type: ignore[attr-defined]
    return counted


def _patch_steps(owner: type, name: str) -> None:
    """Count the calls of ``owner.name`` where the class that defines it (``Session.run`` is
    ``BaseSession``'s, shared with ``InteractiveSession``), once."""
    defining = next((cls for cls in owner.__mro__ if name in cls.__dict__), None)
    original = defining.__dict__[name] if defining is not None else None
    if original is not None and callable(original) and not hasattr(original, "__wrapped__"):
        setattr(defining, name, _count_steps(original))


def _dataset_cache_dir(cache_dir: str | None, cache_subdir: str, keras_home: bool = True) -> Path:
    if cache_dir is None:
        home = os.environ.get("KERAS_HOME") if keras_home else None
        cache_dir = home or os.path.join(os.path.expanduser("~"), ".keras")
    return Path(cache_dir) / cache_subdir


def _offline_get_file(original_key: str, keras_home: bool) -> Callable[..., Any]:
    """A ``get_file`` that never downloads: cached files are served, absent ones fail with their path.

    ``original_key`` names the framework's own ``get_file`` in :data:`_ORIGINALS`; ``keras_home``:
    whether that framework reads ``KERAS_HOME`` (Keras 3 does, tf_keras does not)."""

    def get_file(fname: Any = None, origin: Any = None, *args: Any, **kwargs: Any) -> Any:
        cache_subdir = kwargs.get("cache_subdir", "datasets")
        cache_dir = kwargs.get("cache_dir")
        name = fname or (str(origin).rstrip("/").split("/")[-1] if origin else "?")
        folder = _dataset_cache_dir(cache_dir, cache_subdir, keras_home)
        target = Path(name) if os.path.isabs(str(name)) else folder / str(name)
        candidates = [target, Path(str(target) + ".tar.gz"), target.with_suffix("")]
        if kwargs.get("extract") or kwargs.get("untar") or (args and args[0] is True):
            candidates.append(Path(str(target) + "_extracted"))
        if any(c.exists() for c in candidates):
            return _ORIGINALS[original_key](fname, origin, *args, **kwargs)
        raise MissingDatasetError(
            f"dataset file '{name}' is not available offline: place it at {target}"
            + (f" (downloaded from {origin})" if origin else "")
        )

    return get_file


_patched_get_file = _offline_get_file("get_file", keras_home=True)
_patched_tf_keras_get_file = _offline_get_file("tf_keras.get_file", keras_home=False)
#: each framework's own get_file (key in _ORIGINALS) -> the offline one that replaces it
_GET_FILES = {"get_file": _patched_get_file, "tf_keras.get_file": _patched_tf_keras_get_file}


def _patch_get_file_everywhere() -> None:
    """Point every loaded module's ``get_file`` that is a framework's own at the offline one
    (``from keras.utils import get_file`` in a dataset module made its own reference)."""
    replacements = {id(_ORIGINALS[key]): patched for key, patched in _GET_FILES.items() if key in _ORIGINALS}
    if not replacements:
        return
    for module in list(sys.modules.values()):
        if module is None:
            continue
        try:
            patched = replacements.get(id(getattr(module, "get_file", None)))
            if patched is not None:
                module.get_file = patched
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


def _install_keras3() -> None:
    import keras
    from keras.src.models.model import Model
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    from keras.src.utils import file_utils

    originals = {"fit": Model.fit, "evaluate": Model.evaluate, "predict": Model.predict}
    _ORIGINALS.update(originals)
    _ORIGINALS["get_file"] = file_utils.get_file
    for name, patched in _make_model_patches(originals).items():
        setattr(Model, name, patched)
    keras.utils.get_file = _patched_get_file
    _patch_steps(BaseOptimizer, "apply_gradients")


def _install_tf_keras() -> None:
    """tf_keras' Model and get_file, patched without importing Keras 3."""
    import tf_keras
    from tf_keras.src.engine.training import Model
    from tf_keras.src.utils import data_utils

    originals = {"fit": Model.fit, "evaluate": Model.evaluate, "predict": Model.predict}
    _ORIGINALS.update({f"tf_keras.{name}": function for name, function in originals.items()})
    _ORIGINALS["tf_keras.get_file"] = data_utils.get_file
    for name, patched in _make_model_patches(originals).items():
        setattr(Model, name, patched)
    tf_keras.utils.get_file = _patched_tf_keras_get_file
    for module_name, class_name in (("tf_keras.src.optimizers.optimizer", "_BaseOptimizer"),
                                    ("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2")):  # fmt: skip
        try:
            module = __import__(module_name, fromlist=[class_name])
            _patch_steps(getattr(module, class_name), "apply_gradients")
        except (ImportError, AttributeError):
            continue


def _install_tf1() -> None:
    """TensorFlow 1 graph code: its sessions' runs are its training steps; its ``tf.keras`` is
    tf_keras under ``TF_USE_LEGACY_KERAS=1``, else Keras 3."""
    import tensorflow as tf

    _patch_steps(tf.compat.v1.Session, "run")
    legacy = os.environ.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true", "yes")
    install_framework("tf_keras" if legacy else "keras3")


def install_framework(framework: str) -> None:
    """Patch one framework once in this worker (see the module); an unknown name is a ValueError."""
    if framework not in FRAMEWORKS:
        raise ValueError(f"unknown framework {framework!r}: choose one of {', '.join(FRAMEWORKS)}")
    if framework in _INSTALLED:
        return
    {"keras3": _install_keras3, "tf_keras": _install_tf_keras, "tf1": _install_tf1}[framework]()
    _INSTALLED.add(framework)


def install(block_network: bool = True, framework: str = "keras3") -> None:
    """Patch ``framework`` (``keras3``, ``tf_keras`` or ``tf1``) and the network once in this worker;
    later calls patch only a framework not patched yet and the ``get_file`` of modules imported since."""
    global _NETWORK_BLOCKED
    install_framework(framework)
    _patch_get_file_everywhere()  # modules imported by a program since the last run
    if block_network and not _NETWORK_BLOCKED:
        _ORIGINALS["connect"] = socket.socket.connect
        _ORIGINALS["getaddrinfo"] = socket.getaddrinfo
        socket.socket.connect = _blocked_connect  # type: ignore[method-assign]
        socket.getaddrinfo = _blocked_getaddrinfo
        _NETWORK_BLOCKED = True


def start_capture() -> Capture:
    """A fresh capture for the next run (the patched methods write into it)."""
    global CURRENT
    CURRENT = Capture()
    return CURRENT
