"""Fixtures of the operator tests: the three mutation subjects, parsed once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from mutreal.mutation.operators import Program

SUBJECTS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "subjects_mutation"
SUBJECTS = ("seq_keras2_legacy", "functional_tfkeras", "cnn")

_programs: dict[str, Program] = {}


def subject_path(name: str) -> Path:
    return SUBJECTS_DIR / f"{name}.py"


def subject_program(name: str) -> Program:
    """The parsed subject (cached: a Program is read-only once built)."""
    if name not in _programs:
        _programs[name] = Program.from_file(str(subject_path(name)))
    return _programs[name]


@pytest.fixture(params=SUBJECTS)
def subject(request) -> Program:
    return subject_program(request.param)
