"""A crash that is not the model's is not a kill (issue realism-published item 0).

A program that trained and evaluated and then failed in its benchmark's scaffolding (``import time``
... ``end = time()``: the module called) keeps its training and evaluation, and its record says where
it failed; one that fails in a statement using the model (predict on a wrong shape) stays a crash.
The static reading (:mod:`mutreal.execution.scaffolding_failure`) is tested on exceptions raised by
own code (fast); the worker on own programs that train (slow)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mutreal.execution.scaffolding_failure import is_model_value, scaffolding_failure


def _raised(tmp_path: Path, source: str, values: dict[str, Any] | None = None) -> tuple[BaseException, Path, str]:
    """Run ``source`` as a script file (its frames name the file) and return what it raised."""
    source = textwrap.dedent(source)
    script = tmp_path / "program.py"
    script.write_text(source, encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__main__", **(values or {})}
    try:
        exec(compile(source, str(script), "exec"), namespace)
    except Exception as error:  # noqa: BLE001
        return error, script, source
    raise AssertionError("the program did not fail")


TIMING = """
import time
start = time.time()
score = model_score(data)
end = time()
print("took", end - start)
"""


def _model_score(data: np.ndarray) -> np.float64:
    return np.float64(data.mean())


def test_timing_that_calls_the_module_after_the_model_is_scaffolding(tmp_path: Path) -> None:
    error, script, source = _raised(tmp_path, TIMING, {"model_score": _model_score, "data": np.ones(4)})
    found = scaffolding_failure(error, script, source, trained=True)
    assert found is not None
    assert (found.line, found.statement, found.error_type) == (5, "end = time()", "TypeError")


def test_nothing_is_scaffolding_before_the_model_trained(tmp_path: Path) -> None:
    error, script, source = _raised(tmp_path, TIMING, {"model_score": _model_score, "data": np.ones(4)})
    assert scaffolding_failure(error, script, source, trained=False) is None


def test_a_statement_that_reads_the_models_outputs_stays_a_crash(tmp_path: Path) -> None:
    # score is the model's output (a NumPy number); so is a name assigned from it
    program = TIMING.replace('print("took", end - start)', "").replace("end = time()", "shown = score\nshown[3]")
    error, script, source = _raised(tmp_path, program, {"model_score": _model_score, "data": np.ones(4)})
    assert scaffolding_failure(error, script, source, trained=True) is None


def test_a_crash_that_skips_an_evaluation_stays_a_crash(tmp_path: Path) -> None:
    program = TIMING + "data.evaluate()\n"
    error, script, source = _raised(tmp_path, program, {"model_score": _model_score, "data": np.ones(4)})
    assert scaffolding_failure(error, script, source, trained=True) is None


def test_a_crash_inside_a_function_that_uses_the_model_stays_a_crash(tmp_path: Path) -> None:
    program = """
    def report(values):
        return values.reshape(5, 7)
    report(data)
    """
    error, script, source = _raised(tmp_path, program, {"data": np.ones(4)})
    assert scaffolding_failure(error, script, source, trained=True) is None


def test_saving_to_a_path_that_does_not_exist_is_scaffolding(tmp_path: Path) -> None:
    program = """
    import json
    took = 3.5
    with open("no/such/folder/result.json", "w") as handle:
        json.dump({"took": took}, handle)
    """
    error, script, source = _raised(tmp_path, program, {"data": np.ones(4)})
    found = scaffolding_failure(error, script, source, trained=True)
    assert found is not None and found.error_type == "FileNotFoundError" and found.line == 4


@pytest.mark.parametrize("value, expected", [
    (np.zeros(3), True), (np.float32(1.0), True), ([1.0, np.ones(2)], True), ({"a": np.ones(1)}, True),
    (3.5, False), ("text", False), ([1.0, 2.0], False), (sys, False), (print, False), (np.mean, True),
])  # fmt: skip
def test_model_values_are_library_objects_and_containers_of_them(value: Any, expected: bool) -> None:
    assert is_model_value(value) is expected


IRIS = """
import numpy as np
import keras
import time
from sklearn.datasets import load_iris

start = time.time()
x, y = load_iris(return_X_y=True)
x = ((x - x.mean(axis=0)) / x.std(axis=0)).astype("float32")
order = np.random.default_rng(0).permutation(len(x))
x, y = x[order], y[order]
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:120], y[:120], epochs=2, batch_size=16, verbose=0)
model.evaluate(x[120:], y[120:], verbose=0)
"""

PROGRAMS = {
    # DeepLocalize's scaffolding: the module called where its function was meant
    "timing.py": IRIS + "end = time()\nprint('time', end - start)\n",
    # the model's own statement: predict on a wrong shape
    "wrong_shape.py": IRIS + "print(model.predict(x[:, :2], verbose=0))\n",
}


@pytest.mark.slow
def test_a_run_that_crashes_in_timing_after_evaluating_keeps_its_evaluation(tmp_path: Path) -> None:
    from mutreal.execution import execute_campaign

    paths = []
    for name, text in PROGRAMS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(tmp_path / name)
    result = execute_campaign(paths, seeds=[0, 1], jobs=1, progress=False)
    by_name: dict[str, list[Any]] = {}
    for record in result.records:
        by_name.setdefault(Path(record.program).name, []).append(record)
    for record in by_name["timing.py"]:
        assert record.outcome == "ok", record.error_message
        assert record.metric_source == "evaluate" and record.metric_value is not None
        assert record.correct is not None and len(record.correct) == 30  # what its model predicted
        failure = record.scaffolding_failure
        assert failure["line"] == IRIS.count("\n") + 1 and failure["statement"] == "end = time()"
        assert failure["error_type"] == "TypeError" and "end = time()" in failure["traceback"]
    for record in by_name["wrong_shape.py"]:
        assert record.outcome == "crash" and record.scaffolding_failure is None


def test_a_crash_in_a_helper_module_of_the_program_is_read_there(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "timing.py").write_text("import time\n\ndef took(start):\n    return time() - start\n")
    (tmp_path / "shapes.py").write_text("def show(values):\n    return values.reshape(5, 7)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    scaffolding = "import timing\nresult = data.sum()\nprint(timing.took(0.0))\n"
    error, script, source = _raised(tmp_path, scaffolding, {"data": np.ones(4)})
    found = scaffolding_failure(error, script, source, roots=[tmp_path], trained=True)
    assert found is not None and (found.file, found.statement) == ("timing.py", "return time() - start")
    model_helper = "import shapes\nprint(shapes.show(data))\n"
    error, script, source = _raised(tmp_path, model_helper, {"data": np.ones(4)})
    assert scaffolding_failure(error, script, source, roots=[tmp_path], trained=True) is None
