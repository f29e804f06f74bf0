"""Synthetic classify results for report tests: rows built here, not from real programs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

SIMULABLE = ["ACH", "HLR", "HNE", "HBS", "LCH", "OCH", "WCI", "RCD", "VRM", "LRM"]
NOT_SIMULABLE = ["CPP", "TWS", "IWS", "LIS", "LDM", "MWA", "APW"]
CATEGORY = {
    "ACH": "Model > Layers > Activation Function",
    "HLR": "Training > Hyperparameters",
    "HNE": "Training > Hyperparameters",
    "HBS": "Training > Hyperparameters",
    "RCD": "Training > Hyperparameters",
    "LCH": "Training > Loss Function",
    "OCH": "Training > Optimiser",
    "WCI": "Model > Model Type & Properties",
    "MWA": "Model > Model Type & Properties",
    "VRM": "Training > Validation/Testing",
    "LRM": "Model > Layers > Missing/Redundant/Wrong Layer",
    "LDM": "Model > Layers > Layer Properties",
    "LIS": "Model > Layers > Layer Properties",
    "CPP": "Training > Preprocessing of Training Data",
    "TWS": "Tensors & Inputs > Wrong Tensor Shape",
    "IWS": "Tensors & Inputs > Wrong Input > Wrong Shape of Input Data",
    "APW": "API",
}


def component(code: str, simulable: bool, line: int = 1) -> dict:
    return {
        "code": code,
        "taxonomy": None,
        "taxonomy_id": None,
        "category": CATEGORY.get(code),
        "deepcrime": code if simulable else None,
        "simulable": simulable,
        "reason": None if simulable else "no operator changes this element",
        "element": f"model[0].layer[{line}].x",
        "before": "'a'",
        "after": "'b'",
        "buggy_file": "b.py",
        "buggy_line": line,
        "fixed_file": "f.py",
        "fixed_line": line,
    }


def row(bug_id: str, benchmark: str, codes: list[tuple[str, bool]], data: dict | None = None) -> dict:
    comps = [component(code, sim, i + 1) for i, (code, sim) in enumerate(codes)]
    return {
        "id": bug_id,
        "benchmark": benchmark,
        "status": "ok",
        "error": None,
        "order": len(comps),
        "simulable": bool(comps) and all(sim for _, sim in codes),
        "components": comps,
        "data": data or {},
    }


def error_row(bug_id: str, benchmark: str, message: str) -> dict:
    return {
        "id": bug_id,
        "benchmark": benchmark,
        "status": "error",
        "error": message,
        "order": 0,
        "simulable": False,
        "components": [],
    }


def synthetic_rows(n: int, seed: int = 7, benchmarks=("BenchA", "BenchB", "BenchC")) -> list[dict]:
    """``n`` rows: orders 0 to 8 (mostly 1-2), some errors, data classes on both sides."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        bench = benchmarks[i % len(benchmarks)]
        if i % 37 == 5:
            rows.append(error_row(f"b{i}", bench, "SyntaxError: line 3"))
            continue
        order = rng.choice([0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 8])
        codes = []
        for _ in range(order):
            if rng.random() < 0.6:
                codes.append(
                    (rng.choice(SIMULABLE[:6]) if rng.random() < 0.7 else rng.choice(SIMULABLE), True)
                )
            else:
                codes.append((rng.choice(NOT_SIMULABLE), False))
        data_class = rng.choice(["real", "real", "fake", None])
        data = {
            "buggy": {"dataset": rng.choice(["mnist", "iris", None]), "class": data_class, "size": None},
            "fixed": {"dataset": None, "class": data_class, "size": None},
        }
        rows.append(row(f"b{i}", bench, codes, data))
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def synthetic_results(tmp_path: Path) -> Path:
    """A results JSONL of 120 synthetic bugs over three benchmarks."""
    return write_jsonl(tmp_path / "results.jsonl", synthetic_rows(120))


@pytest.fixture(scope="session")
def make_rows():
    """The synthetic row builder (tests import no conftest module under importlib mode)."""
    return synthetic_rows


# ------------------------------------------------------------------------- own programs, classified

#: a small Keras program written for these tests; ``{pad}`` holds helper functions so that the
#: model sits far down the file (off the first screen of a bug page)
PROGRAM = '''"""Iris classifier written for mutreal's report tests."""
import numpy as np
from sklearn.datasets import load_iris
from tensorflow import keras
{pad}
data = load_iris()
x, y = data.data.astype("float32"), data.target
{prep}
model = keras.Sequential()
model.add(keras.layers.Dense({units}, activation="{activation}", input_shape=(4,)))
model.add(keras.layers.Dense(3, activation="softmax"))
model.compile(loss="sparse_categorical_crossentropy", optimizer=keras.optimizers.Adam(learning_rate={lr}))
{between}
model.fit(x, y, epochs={epochs}, batch_size=16, verbose=0)
print(model.evaluate(x, y, verbose=0))
'''


def program(pad: int = 0, between: int = 0, **values) -> str:
    """The program with ``pad`` helper functions before the model and ``between`` after compile."""
    settings = {"units": 8, "activation": "relu", "lr": 0.01, "epochs": 50, "prep": "", **values}
    helpers = "".join(f"\n\ndef helper_{i}(v):\n    return v * {i} + 1\n" for i in range(pad))
    filler = "\n".join(
        f"print('step {i}', helper_0(np.float32({i})) if False else {i})" for i in range(between)
    )
    return PROGRAM.format(pad=helpers, between=filler, **settings)


#: bug id -> (buggy settings, fixed settings, layout); layout pads the file so components sit apart
CORPUS = {
    "tall-ach-hne": ({"activation": "sigmoid", "epochs": 2}, {}, {"pad": 30, "between": 70}),
    "short-hlr": ({"lr": 5.0}, {}, {}),
    "noise-only": ({}, {}, {"pad": 2}),
    # a component on one side only: the fixed program adds a scaling step the buggy one lacks
    "added-scaling": ({}, {"prep": "x = x / 8.0"}, {"pad": 4}),
}


def write_corpus(root: Path) -> Path:
    """Own buggy/fixed pairs under ``root/corpus`` and their manifest; returns the manifest."""
    corpus = root / "corpus"
    lines = ["id,benchmark,buggy,fixed"]
    for bug_id, (buggy, fixed, layout) in CORPUS.items():
        for side, values in (("buggy", buggy), ("fixed", fixed)):
            path = corpus / bug_id / side / "train.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            text = program(**layout, **values)
            if bug_id == "noise-only" and side == "fixed":
                text = text.replace("verbose=0))", "verbose=0))  # prints the score")
            path.write_text(text, encoding="utf-8")
        lines.append(f"{bug_id},own,{bug_id}/buggy/train.py,{bug_id}/fixed/train.py")
    manifest = corpus / "manifest.csv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


@pytest.fixture(scope="session")
def classified_corpus(tmp_path_factory) -> tuple[Path, Path]:
    """(root, results JSONL): the own programs above classified by `python -m mutreal classify`,
    run in ``root`` so the rows name files relative to it, as in reports/example."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("own")
    manifest = write_corpus(root)
    results = root / "results.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mutreal",
            "classify",
            "--manifest",
            str(manifest.relative_to(root)),
            "--out",
            str(results),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return root, results


@pytest.fixture(scope="session")
def chromium_binary() -> str:
    """Debian's chromium; skipped where it is missing, except in CI (CI=true), where that fails."""
    import os
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("CI=true but no chromium binary on PATH: the browser tests must run in CI")
        pytest.skip("no chromium binary on PATH (install Debian's `chromium`; .ci/run does)")
    return found
