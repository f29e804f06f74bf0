"""Decision lost-block-noise: what a tolerant parse makes up where it set aside a control-flow header
(its block read unconditionally) is no fault; a line the fix edited there still is."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.label.lost_blocks import lost_lines
from mutreal.program.source import parse_source

HEAD = """\
import numpy as np
import tensorflow as tf

rows = np.random.rand(60, 5).astype(np.float32)
marks = np.random.randint(0, 2, (60, 1)).astype(np.float32)
inputs = tf.placeholder(tf.float32, shape=[None, 5])
truth = tf.placeholder(tf.float32, shape=[None, 1])


def block(tensor, size, kind):
    weights = tf.Variable(tf.random_normal([int(tensor.get_shape()[1]), size]))
    out = tf.matmul(tensor, weights)
"""
TAIL = """

hidden = block(inputs, 6, "{first}")
guess = block(hidden, 1, "{last}")
loss = tf.reduce_mean(tf.square(guess - truth))
step = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(12):
        sess.run(step, feed_dict={{inputs: rows, truth: marks}})
"""
_ACTIVATIONS = ("relu", "sigmoid", "tanh", "elu", "softplus")


def _program(kinds: list[str], activations: list[str], header_indent: int, first: str, last: str) -> str:
    """A helper choosing its activation by ``kind`` (if/elif.../else), headers indented by
    ``header_indent`` spaces (4 parses; less does not)."""
    pad = " " * header_indent
    lines = []
    for i, (kind, act) in enumerate(zip(kinds, activations, strict=True)):
        if i == 0:
            lines.append(f'{pad}if kind == "{kind}":')
        elif i == len(kinds) - 1:
            lines.append(f"{pad}else:")
        else:
            lines.append(f'{pad}elif kind == "{kind}":')
        lines.append(f"        return tf.nn.{act}(out)")
    return HEAD + "\n".join(lines) + "\n" + TAIL.format(first=first, last=last)


def _codes(classify_texts, buggy: str, fixed: str) -> list[str]:
    result = classify_texts(buggy, fixed, tolerant=True)
    assert result.status == "ok", result.error
    return sorted(c.code for c in result.components)


def test_the_body_of_a_set_aside_control_header_is_lost_and_a_with_body_is_not() -> None:
    text = textwrap.dedent(
        """\
        def f(x, kind):
            with scope():
              y = 1
          if kind == 2:
                return x
            return y
        """
    )
    parsed = parse_source(text, "p.py", tolerant=True)
    assert [s.line for s in parsed.set_aside][:1] == [4]
    assert 5 in lost_lines(parsed) and 3 not in lost_lines(parsed)
    with_aside = parse_source(
        "def f(x):\n    y = 0\n  with a:\n    y = 1\n    return y\n", "q.py", tolerant=True
    )
    assert [s.text.strip() for s in with_aside.set_aside][:1] == ["with a:"]
    assert lost_lines(with_aside) == set()


@pytest.mark.parametrize("spelling", ["tf", "compat"])
def test_a_re_indented_branch_gives_nothing_and_an_edited_branch_its_code(classify_texts, spelling) -> None:
    kinds, acts = ["relu", "sigmoid"], ["relu", "sigmoid"]

    def spelt(text: str) -> str:
        compat = "import tensorflow.compat.v1 as tf\n\ntf.disable_v2_behavior()\n"
        return text if spelling == "tf" else text.replace("import tensorflow as tf\n", compat)

    fixed = spelt(_program(kinds, acts, 4, "relu", "sigmoid"))
    buggy = spelt(_program(kinds, acts, 2, "relu", "sigmoid"))
    assert _codes(classify_texts, buggy, fixed) == []
    edited = spelt(_program(kinds, ["relu", "tanh"], 4, "relu", "sigmoid"))
    assert _codes(classify_texts, buggy, edited) == ["ACH"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.sampled_from(_ACTIVATIONS), min_size=2, max_size=4, unique=True),
    st.integers(1, 3),  # at column 0 the headers parse (module level): another program, not a lost block
    st.data(),
)
def test_re_indenting_a_branching_helper_is_never_a_fault(
    classify_texts, activations: list[str], indent: int, data: st.DataObject
) -> None:
    """Whatever the branches, the calls and the bad indentation of the headers: the fix that only
    re-indents them gives no component (``classify_texts`` writes new files for every example)."""
    kinds = [f"k{i}" for i in range(len(activations))]
    first, last = data.draw(st.sampled_from(kinds)), data.draw(st.sampled_from(kinds))
    fixed = _program(kinds, activations, 4, first, last)
    buggy = _program(kinds, activations, indent, first, last)
    assert _codes(classify_texts, buggy, fixed) == []
