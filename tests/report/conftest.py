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
