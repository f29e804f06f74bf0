"""Run programs and record the arrays their first ``fit`` call would train on (a test helper).

Usage: ``python fit_capture.py OUT_DIR PROGRAM...`` writes ``OUT_DIR/<stem>.npz`` (``x0``, ``x1``...,
``y``) per program. ``keras.Model.fit`` is replaced by a recorder that reads the training input the
way Keras does (arrays, a list of inputs, a ``tf.data.Dataset``, a ``Sequence``/``PyDataset``, or
``steps_per_epoch`` batches of a generator) and stops the program, so nothing trains. With
``--train`` the programs run and their fit calls train for one epoch (``epochs`` passed as a
keyword is set to 1) and ``OUT_DIR/<stem>.ok`` marks each that finished.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402


class _Stop(Exception):
    pass


def _as_list(x):
    return list(x) if isinstance(x, list | tuple) else [x]


def _concat(batches: list) -> tuple[list[np.ndarray], np.ndarray]:
    xs = [_as_list(b[0]) for b in batches]
    x = [np.concatenate([np.asarray(b[i]) for b in xs]) for i in range(len(xs[0]))]
    y = np.concatenate([np.asarray(b[1]) for b in batches])
    return x, y


def _read(x, y, kwargs) -> tuple[list[np.ndarray], np.ndarray]:
    import tensorflow as tf

    if y is not None:
        return [np.asarray(a) for a in _as_list(x)], np.asarray(y)
    if isinstance(x, tf.data.Dataset):
        return _concat([(b[0], b[1]) for b in x.as_numpy_iterator()])
    if hasattr(x, "__getitem__") and hasattr(x, "__len__"):
        return _concat([x[i] for i in range(len(x))])
    steps = int(kwargs.get("steps_per_epoch") or 1)
    return _concat([next(x) for _ in range(steps)])


def main(argv: list[str]) -> int:
    train = "--train" in argv
    argv = [a for a in argv if a != "--train"]
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    import keras

    real_fit = keras.Model.fit
    captured: dict = {}

    def one_epoch_fit(self, *args, **kwargs):
        return real_fit(self, *args, **{**kwargs, "epochs": 1})

    def recording_fit(self, x=None, y=None, *args, **kwargs):
        captured["x"], captured["y"] = _read(x, y, kwargs)
        raise _Stop

    failures = 0
    for program in argv[1:]:
        path = Path(program).resolve()
        stem = path.stem
        captured.clear()
        keras.Model.fit = one_epoch_fit if train else recording_fit
        sys.path.insert(0, str(path.parent))
        before = set(sys.modules)
        try:
            runpy.run_path(str(path), run_name="__main__")
        except _Stop:
            pass
        except Exception as exc:  # one bad program never stops the others
            failures += 1
            print(f"FAILED {stem}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        finally:
            sys.path.remove(str(path.parent))
            for name in set(sys.modules) - before:  # the program's own helper modules: fresh per program
                if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(path.parent)):
                    del sys.modules[name]
        if train:
            (out / f"{stem}.ok").write_text("ok")
        elif "x" in captured:
            arrays = {f"x{i}": a for i, a in enumerate(captured["x"])}
            np.savez(out / f"{stem}.npz", y=captured["y"], **arrays)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
