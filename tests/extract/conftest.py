"""Helpers for extractor tests: extract small programs written inline."""

from __future__ import annotations

import textwrap

import pytest

from mutreal.extract import extract_source
from mutreal.program.model import ProgramModel


def extract(code: str, era: str | None = None) -> ProgramModel:
    """Extract a dedented program (path ``prog.py``)."""
    return extract_source(textwrap.dedent(code), "prog.py", era=era)


@pytest.fixture
def ex():
    return extract
