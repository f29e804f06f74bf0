"""Mutants are real programs: a training-data + epochs HOM of the tf.keras subject trains (slow)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mutreal.mutation.operators import apply_edits, registry

from .conftest import subject_program


@pytest.mark.slow
def test_training_data_mutant_runs(tmp_path) -> None:
    program = subject_program("functional_tfkeras")
    edits = [
        registry.get("TRD").apply(program, 0, 50, seed=3),
        registry.get("HNE").apply(program, 0, 1),
        registry.get("ACH").apply(program, 2, "sigmoid"),
    ]
    mutant = apply_edits(program, edits)
    path = tmp_path / mutant.name
    path.write_text(mutant.code)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    accuracy = float(out.stdout.strip().splitlines()[-1])
    assert 0.0 <= accuracy <= 1.0
