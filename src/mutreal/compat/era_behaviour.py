"""Library behaviours that Keras 2-era programs relied on and today's libraries changed, restored at
run time in the workers of those programs (frameworks ``tf_keras`` and ``tf1``).

A benchmark program ran on the pandas and Keras of its time; some of what it did then fails today
for reasons that have nothing to do with its fault. Each entry was found on a real program of the
public benchmarks and restores the documented behaviour of the old release, never a new one:

* pandas 3 infers the ``str`` dtype for text columns, which refuses a number
  (``fillna(0)`` on a text column); pandas < 3 (every benchmark's) read text as ``object``. The
  workers set pandas' own switch for it, ``future.infer_string = False``.
* pandas <= 1.4 set a 2-D array ``(n, k)`` given to one existing column to its first column
  (pandas 1.5 made it a ``ValueError``, GH#46544); a program that one-hot encodes into a column
  (``X[i] = to_categorical(...)``) ran with that column. Restored as it was: the first column.
* Keras in graph mode -- standalone Keras <= 2.3 (era ``keras1``/``keras2``) and TensorFlow 1's
  ``tf.keras`` (``tf.contrib.keras``, a program using TensorFlow 1 API) -- fed numpy arrays to its
  placeholders through ``np.asarray(value, dtype=placeholder dtype)``, so an ``object`` array of numbers (a
  pandas column holding ints and strings once, ``Y[Y == 'R'] = 0``) trained; Keras in eager mode
  refuses it (``Unsupported object type int``). Such arrays are cast to ``floatx`` as then.
* the same Keras wrote every ``model.save(path)`` as HDF5, whatever the file's extension (the
  SavedModel default came with TensorFlow 2.0); tf_keras writes a SavedModel directory unless the
  path ends in ``.h5``/``.keras``. For those programs ``save`` without ``save_format`` writes HDF5 as
  then (``load_model`` reads either).

* SciPy 1.2/1.3 removed ``scipy.misc.imread``/``imresize``/``imsave``: given back over Pillow as SciPy
  documented them (:mod:`mutreal.compat.scipy_misc`).

Which of these a program can meet is listed in its rewrites (:func:`recorded`, decided from its text
and era); the Keras entries are on for a run exactly when its rewrites list them: the worker hands
them to :func:`begin_run` before the program starts, so the record and the behaviour cannot differ.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import warnings
from typing import Any

#: eras of standalone Keras (<= 2.3): graph mode, numpy fed through placeholders, HDF5 saves
STANDALONE_ERAS = frozenset({"keras1", "keras2"})
#: the Model methods that take numpy data (whose object arrays standalone Keras cast)
DATA_METHODS = ("fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch")
#: file endings tf_keras saves as HDF5 / Keras v3 by itself
_OWN_FORMAT_SUFFIXES = (".h5", ".hdf5", ".keras")
#: the lines :func:`recorded` lists, which also switch the Keras entries on for a run
PANDAS_LINE = ("era behaviour: pandas < 3 (text columns as object dtype; a 2-D array set into one "
               "column keeps its first column, as pandas <= 1.4 did)")  # fmt: skip
FEED_LINE = "era behaviour: Keras in graph mode (standalone <= 2.3, TensorFlow 1) feeds numpy object arrays as floatx"
SAVE_LINE = "era behaviour: Keras in graph mode (standalone <= 2.3, TensorFlow 1) saves model.save(path) as HDF5"
SCIPY_MISC_LINE = "era behaviour: scipy.misc's imread/imresize/imsave (removed in SciPy 1.2/1.3) served over Pillow"
_RUN: dict[str, bool] = {"feed": False, "hdf5": False}
_SCIPY_MISC = re.compile(r"\bscipy\.misc\b|\bfrom\s+scipy\s+import\s+(?:[\w\s,]*,\s*)?misc\b")

_PANDAS = re.compile(r"^\s*(?:import\s+pandas\b|from\s+pandas\b)", re.M)
#: a ``save`` call that may be a model's: not numpy's ``np.save`` nor a TF1 ``saver.save(sess, ...)``
_SAVE = re.compile(r"(?<!\bnp)(?<!\bnumpy)(?<![Ss]aver)\.save\s*\(")
_FITS = re.compile(r"\.(?:fit|evaluate|predict|train_on_batch|test_on_batch|predict_on_batch)\s*\(")


def begin_run(rewrites: list[str] | None) -> None:
    """Switch the Keras entries on for the program about to run in this worker exactly when its
    rewrites (:func:`recorded`) list them."""
    listed = set(rewrites or ())
    _RUN["feed"], _RUN["hdf5"] = FEED_LINE in listed, SAVE_LINE in listed


def recorded(source: str, era: str, framework: str, tf1_api: bool = False) -> list[str]:
    """One line per behaviour of this module a program of ``era`` on ``framework`` can meet (listed
    with its rewrites: the text is not changed, the worker restores the behaviour). ``tf1_api``: the
    program uses TensorFlow 1 API or ``tf.contrib`` (its ``tf.keras`` ran in graph mode)."""
    if framework not in ("tf_keras", "tf1"):
        return []
    lines = [PANDAS_LINE] if _PANDAS.search(source) else []
    lines += [SCIPY_MISC_LINE] if _SCIPY_MISC.search(source) else []
    if era in STANDALONE_ERAS or tf1_api or framework == "tf1":
        lines += [FEED_LINE] if _FITS.search(source) else []
        lines += [SAVE_LINE] if _SAVE.search(source) else []
    return lines


# ---------------------------------------------------------------------------------------------------
# pandas
# ---------------------------------------------------------------------------------------------------


def _one_existing_column(frame: Any, key: Any) -> bool:
    if isinstance(key, (list, tuple, slice, set, dict)) or hasattr(key, "__array__"):
        return False
    try:
        return key in frame.columns and bool(frame.columns.is_unique)
    except TypeError:  # unhashable
        return False


def first_column_of_2d(frame: Any, key: Any, value: Any) -> Any:
    """What pandas <= 1.4 set when ``frame[key] = value``: for one existing column and a 2-D array of
    ``len(frame)`` rows and several columns, its first column; else ``value`` unchanged."""
    import numpy as np

    if (
        isinstance(value, np.ndarray)
        and value.ndim == 2
        and value.shape[1] > 1
        and value.shape[0] == len(frame)
        and _one_existing_column(frame, key)
    ):
        warnings.warn(
            f"a 2-D array of shape {value.shape} was set into column {key!r}: it keeps the array's first "
            "column, as pandas <= 1.4 did (pandas >= 1.5 raises)",
            stacklevel=3,
        )
        return value[:, 0]
    return value


def install_pandas() -> None:
    """pandas as the era's programs knew it (see the module); a worker without pandas skips it."""
    try:
        import pandas as pd
    except ImportError:
        return
    with warnings.catch_warnings(), contextlib.suppress(Exception):  # the option is deprecated in pandas 3
        warnings.simplefilter("ignore")
        pd.set_option("future.infer_string", False)
    original = pd.DataFrame.__setitem__
    if getattr(original, "_mutreal_era", False):
        return

    @functools.wraps(original)
    def __setitem__(self: Any, key: Any, value: Any) -> None:  # noqa: N807 - wraps DataFrame.__setitem__
        return original(self, key, first_column_of_2d(self, key, value))

    __setitem__._mutreal_era = True  # type: ignore[attr-defined]
    pd.DataFrame.__setitem__ = __setitem__  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------------------------
# standalone Keras on tf_keras
# ---------------------------------------------------------------------------------------------------


def as_placeholder_feed(value: Any, floatx: str = "float32") -> Any:
    """``value`` as standalone Keras fed it: an ``object`` numpy array of numbers becomes ``floatx``
    (``np.asarray(value, dtype)`` at the placeholder); lists, tuples and dicts of arrays element-wise;
    an array that does not convert (strings) and anything else stay as they are."""
    import numpy as np

    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return value
        try:
            return np.asarray(value, dtype=floatx)
        except (TypeError, ValueError):
            return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) and v.dtype == object for v in value):
        return type(value)(as_placeholder_feed(v, floatx) for v in value)
    if isinstance(value, dict) and any(isinstance(v, np.ndarray) and v.dtype == object for v in value.values()):
        return {k: as_placeholder_feed(v, floatx) for k, v in value.items()}
    return value


def _fed(method: Any) -> Any:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _RUN["feed"]:
            import tf_keras

            floatx = tf_keras.backend.floatx()
            args = tuple(as_placeholder_feed(a, floatx) for a in args)
            kwargs = {k: as_placeholder_feed(v, floatx) if k in ("x", "y", "validation_data") else v
                      for k, v in kwargs.items()}  # fmt: skip
        return method(self, *args, **kwargs)

    call._mutreal_era = True  # type: ignore[attr-defined]
    return call


def save_format_of(filepath: Any, save_format: str | None) -> str | None:
    """The format Keras in graph mode saved ``filepath`` in: HDF5 for a path without a format of its
    own, when the program gave none (``None`` keeps tf_keras' choice)."""
    if save_format is not None or not _RUN["hdf5"] or not isinstance(filepath, (str, os.PathLike)):
        return save_format
    return None if str(filepath).lower().endswith(_OWN_FORMAT_SUFFIXES) else "h5"


def install_keras() -> None:
    """tf_keras' Model as Keras in graph mode behaved, for the runs whose rewrites list it."""
    from tf_keras.src.engine.training import Model

    for name in DATA_METHODS:
        method = Model.__dict__.get(name)
        if method is not None and not getattr(method, "_mutreal_era", False):
            setattr(Model, name, _fed(method))
    save = Model.__dict__.get("save")
    if save is None or getattr(save, "_mutreal_era", False):
        return

    @functools.wraps(save)
    def saved(self: Any, filepath: Any, *args: Any, **kwargs: Any) -> Any:
        if not args:
            chosen = save_format_of(filepath, kwargs.get("save_format"))
            if chosen is not None:
                kwargs["save_format"] = chosen
        return save(self, filepath, *args, **kwargs)

    saved._mutreal_era = True  # type: ignore[attr-defined]
    Model.save = saved  # type: ignore[method-assign]


def install(framework: str) -> None:
    """Restore the era's behaviours in a worker of ``framework`` (``tf_keras`` or ``tf1``)."""
    if framework not in ("tf_keras", "tf1"):
        return
    from mutreal.compat import scipy_misc

    install_pandas()
    install_keras()
    scipy_misc.install()
