"""Suite-wide rule: in CI (env CI=true) a skip for a system part that .ci/run installs is a failure.

.ci/run installs Chromium and `make test` installs Ray, so there a test skipped for want of either
would hide a broken install step; elsewhere (a developer's machine without them) the skip stays.
A missing GPU, the study's private data or an already-initialised Ray are not installable: they
still skip.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import Phase, settings

#: `make mutation` (tools/mutation/run.py sets MUTREAL_HYPOTHESIS_PROFILE=mutation) runs each
#: mutant's tests once: a tenth of the examples (tests that set their own count scale it by
#: `settings().max_examples / 100`), a fixed seed so a kill is reproducible, no example database
#: shared between mutants, and no shrinking (a mutant is killed by the first failing example; the
#: minimal one is of no use there). Every other run uses Hypothesis' defaults.
settings.register_profile(
    "mutation",
    max_examples=10,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
)
settings.load_profile(os.environ.get("MUTREAL_HYPOTHESIS_PROFILE", "default"))

#: skip reasons (lower case) that name a part .ci/run provides
INSTALLED_BY_CI = ("no chromium", "could not import 'ray'")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") != "true" or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(part in reason.lower() for part in INSTALLED_BY_CI):
        report.outcome = "failed"
        report.longrepr = f"CI=true and .ci/run installs this part, so this skip fails: {reason}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`make test` runs the suite on every core (pytest-xdist, ``--dist loadgroup``): the tests that
    start a local Ray cluster go to one worker, one after another, so two clusters never compete for
    the machine's cores (each asks Ray for all of them) or time out each other's start."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.xdist_group("ray"))


@pytest.fixture(scope="session")
def mutreal_command() -> str:
    """The installed ``mutreal`` console script of the interpreter running the tests: CI runs the suite
    with the project's ``.venv/bin/python`` without activating the venv, so ``mutreal`` is not on PATH."""
    import shutil
    import sys
    from pathlib import Path

    found = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or shutil.which("mutreal")
    if found is None:
        pytest.fail("the mutreal console script is not installed beside this interpreter (pip install -e .)")
    return found
