"""Fixtures of the HOM and operator-validation tests.

The helpers live in ``_subjects.py``, registered here as the module ``hom_subjects`` so that test
modules (imported in importlib mode) and plugin entry points can import them by name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("hom_subjects", Path(__file__).with_name("_subjects.py"))
assert _spec is not None and _spec.loader is not None
hom_subjects = importlib.util.module_from_spec(_spec)
sys.modules["hom_subjects"] = hom_subjects
_spec.loader.exec_module(hom_subjects)


@pytest.fixture
def sequential_subject(tmp_path: Path) -> str:
    return hom_subjects.write(tmp_path / "subject_seq.py", hom_subjects.sequential())


@pytest.fixture
def functional_subject(tmp_path: Path) -> str:
    return hom_subjects.write(tmp_path / "subject_fun.py", hom_subjects.FUNCTIONAL)
