"""--modernize rewrites numpy's removed aliases: the rewritten program runs on the installed numpy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mutreal.compat.modernize import NUMPY_REMOVED, modernize_source, numpy_aliases_to_rewrite

PROGRAM = """import numpy as np
import numpy
x = np.zeros(3, dtype=np.float) + np.NaN * 0
n = numpy.int(2.7)
flags = np.array([True, False], dtype=np.bool)
total = np.product([2, 3]) + np.cumproduct([1, 2])[-1]
low = np.NINF
both = np.alltrue([True, True]) and not np.sometrue([False])
"""


def test_rewritten_program_runs_and_keeps_meaning():
    result = modernize_source(PROGRAM)
    namespace: dict = {}
    exec(compile(result.source, "<modernized>", "exec"), namespace)  # the installed numpy runs it
    assert namespace["x"].dtype == np.float64 and namespace["n"] == 2
    assert namespace["flags"].dtype == np.bool_ and namespace["total"] == 8
    assert namespace["low"] == -np.inf and namespace["both"] is True
    rewritten = {c.before.split(".")[1] for c in result.changes if c.kind == "numpy alias"}
    used = {"float", "NaN", "int", "bool", "product", "cumproduct", "NINF", "alltrue", "sometrue"}
    assert rewritten == used & set(numpy_aliases_to_rewrite())


def test_attributes_of_other_names_are_left_alone():
    source = "import numpy as np\nclass C:\n    float = 1\nc = C()\ny = c.float + np.float64(1)\n"
    assert modernize_source(source).source == source


@pytest.mark.parametrize("alias", sorted(NUMPY_REMOVED))
def test_only_aliases_the_installed_numpy_lacks_are_rewritten(alias):
    # a name that still works is left as written; each replacement exists in the installed numpy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exists = hasattr(np, alias)
    assert (alias in numpy_aliases_to_rewrite()) == (not exists)
    assert eval(NUMPY_REMOVED[alias], {"np": np}) is not None
