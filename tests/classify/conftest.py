"""Fixtures for classify tests: write a buggy/fixed pair to files and classify it."""

from __future__ import annotations

import itertools

import pytest

from mutreal.label.classify import classify_pair

_counter = itertools.count()


@pytest.fixture
def classify_texts(tmp_path):
    """classify_texts(buggy_source, fixed_source) -> BugResult (both written to tmp files)."""

    def run(buggy: str, fixed: str, **kwargs):
        n = next(_counter)
        b = tmp_path / f"buggy_{n}.py"
        f = tmp_path / f"fixed_{n}.py"
        b.write_text(buggy)
        f.write_text(fixed)
        return classify_pair(str(b), str(f), **kwargs)

    return run
