"""Decision completed-snippet-values, read by a reviewer: a value the post read from outside and
the benchmark wrote in is the snippet's completion, but a literal of the post's own changed in the
same statement is a change of the program and must stay one (it was blanked away with the values)."""

from __future__ import annotations

from mutreal.compare.coverage import cover
from mutreal.compare.statements import statements_of

_POSTED = """import json
import tensorflow as tf
params = json.loads(open('p.json').read())
x = tf.placeholder(tf.float32, [None, 28, 28, 1])
h = tf.layers.conv2d(x, params['filters'], 3)
"""

_COMPLETED = """import tensorflow as tf
filters = 32
x = tf.placeholder(tf.float32, [None, 28, 28, 1])
h = tf.layers.conv2d(x, filters, 3)
"""


def test_a_value_written_in_for_a_parameters_file_is_the_completion() -> None:
    coverage = cover(statements_of(_POSTED, "b.py"), statements_of(_COMPLETED, "f.py"), [])
    assert coverage.changed == 0
    assert coverage.noise.get("completed_snippet") == 3


def test_a_value_written_in_place_is_the_completion_too() -> None:
    fixed = _COMPLETED.replace("filters = 32\n", "").replace("x, filters, 3", "x, 32, 3")
    coverage = cover(statements_of(_POSTED, "b.py"), statements_of(fixed, "f.py"), [])
    assert coverage.changed == 0


def test_the_posts_own_literal_changed_beside_it_stays_a_change() -> None:
    fixed = _COMPLETED.replace("x, filters, 3", "x, filters, 5")  # kernel size 3 -> 5: the fix
    coverage = cover(statements_of(_POSTED, "b.py"), statements_of(fixed, "f.py"), [])
    changed = [(u.before, u.after) for u in coverage.unexplained]
    assert ("h = tf.layers.conv2d(x, params['filters'], 3)", "h = tf.layers.conv2d(x, filters, 5)") in changed


def test_another_call_around_the_outside_value_stays_a_change() -> None:
    fixed = _COMPLETED.replace("tf.layers.conv2d(x, filters, 3)", "tf.layers.dense(x, filters)")
    coverage = cover(statements_of(_POSTED, "b.py"), statements_of(fixed, "f.py"), [])
    assert any(u.before and "conv2d" in u.before for u in coverage.unexplained)
