"""A statement taken out and put back inside a call (``table.insert(k, v)`` against
``sess.run(table.insert(k, v))``) is one changed statement of the diff, wherever the diff found
the two halves; a statement merely sharing a name with another stays two changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.statement_diff import statement_changes
from mutreal.compare.statements import statements_of

_NAMES = st.sampled_from(["table", "queue", "op", "writer", "counter"])
_METHODS = st.sampled_from(["insert", "enqueue", "assign", "update", "add"])
_WRAPPERS = st.sampled_from(["sess.run", "session.run", "tf.identity", "print_and_return"])


@settings(max_examples=40, deadline=None)
@given(_NAMES, _METHODS, _WRAPPERS, st.integers(0, 3))
def test_a_statement_wrapped_in_a_call_is_one_change(obj, method, wrapper, between):
    common = [f"keep_{k} = {k}" for k in range(between)]
    call = f"{obj}.{method}(key, val)"
    buggy = "\n".join(["x = 1", call, *common, "y = 2"]) + "\n"
    fixed = "\n".join(["x = 1", *common, f"{wrapper}({call})", "y = 2"]) + "\n"
    changes = statement_changes(statements_of(buggy, "b.py"), statements_of(fixed, "f.py"))
    assert [c.change for c in changes] == ["changed"]
    assert changes[0].buggy.text.endswith(f"{method}(key, val)")
    # taken out of the call again: the same one change, the other way round
    back = statement_changes(statements_of(fixed, "f.py"), statements_of(buggy, "b.py"))
    assert [c.change for c in back] == ["changed"]


def test_a_shared_name_or_a_longer_name_is_no_wrapping():
    buggy = "x = 1\nrun(a)\ny = 2\n"
    fixed = "x = 1\ny = 2\nrerun(a, b, c, d)\n"
    changes = statement_changes(statements_of(buggy, "b.py"), statements_of(fixed, "f.py"))
    assert sorted(c.change for c in changes) == ["added", "removed"]
    buggy = "x = 1\ntable.insert(k, v)\ny = 2\n"
    fixed = "x = 1\ny = 2\nsess.run(table.insert(k, v).mark)\n"
    changes = statement_changes(statements_of(buggy, "b.py"), statements_of(fixed, "f.py"))
    assert sorted(c.change for c in changes) == ["added", "removed"]


def test_a_removed_statement_in_a_fix_whose_first_change_is_added_is_explained():
    """A best-code component whose group starts with an added statement has no line of the
    buggy side of its own: the removed statements of its group are still its (decision
    one-inconsistency-one-component), read in the pair's buggy file."""
    from mutreal.compare.coverage import cover
    from mutreal.label.best_code import best_code_components

    buggy = statements_of(
        "import tensorflow as tf\nq = tf.FIFOQueue(3, tf.float32)\nb = 2\n"
        "out = legacy.tie(q, update)\n",
        "b.py",
    )
    fixed = statements_of(
        "import tensorflow as tf\nq = tf.FIFOQueue(3, tf.float32)\n"
        "with tf.control_dependencies([out]):\n    pass\nb = 2\n",
        "f.py",
    )
    first = cover(buggy, fixed, [], graph=True)
    components = best_code_components(first.open, graph=True)
    assert [c.buggy_line for c in components] == [None] and components[0].detail["buggy_lines"] == [4]
    again = cover(buggy, fixed, components, graph=True)
    assert again.changed == first.changed and again.unexplained == []


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["a", "x", "phi", "img"]), st.sampled_from(["b", "w", "kernel", "filt"]), st.booleans())
def test_names_that_change_places_are_no_rename(first, second, merge):
    """Rule renamed_variables on statements: a consistent renaming only. Arguments swapped
    (``conv2d(phi, x)`` against ``conv2d(x, phi)``) or two names read as one are another value
    handed over: a change; ``self`` is the object, no variable."""
    from mutreal.compare.statement_diff import StatementChange, renamed

    buggy = statements_of(f"out = op({first}, {second})\n", "b.py")[0]
    after = f"out = op({second}, {second})\n" if merge else f"out = op({second}, {first})\n"
    fixed = statements_of(after, "f.py")[0]
    assert not renamed(StatementChange(buggy, fixed))
    other_name = statements_of(f"result = op({first}_new, {second})\n", "f.py")[0]
    assert renamed(StatementChange(buggy, other_name))
    own = statements_of(f"self.out = op({first}, {second})\n", "b.py")[0]
    assert renamed(StatementChange(own, statements_of(f"out = op({first}, {second})\n", "f.py")[0]))
