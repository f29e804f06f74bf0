"""Fixtures for the loaders tests: the study's scoring script, when the checkout sits beside it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SCORE_SCRIPT = REPO.parent / "shared" / "tools" / "score_classify.py"


@pytest.fixture(scope="session")
def score_script() -> Path:
    """Path of ../shared/tools/score_classify.py; the test is skipped where it is absent."""
    if not SCORE_SCRIPT.is_file():
        pytest.skip(f"scoring script not found at {SCORE_SCRIPT}")
    return SCORE_SCRIPT


@pytest.fixture(scope="session")
def score_module(score_script: Path) -> ModuleType:
    """The scoring script imported as a module (its parsing functions, not its main)."""
    spec = importlib.util.spec_from_file_location("score_classify", score_script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
