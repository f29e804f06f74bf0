"""The training slice through a function the training calls: what it returns, the runs and
training calls in it and the calls it makes for their effect, then what those read by name; not
an assignment nothing of that reads (a description string built only to be printed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.coverage import training_slice
from mutreal.compare.statements import statements_of

PROGRAM = """\
import random
from keras.models import Sequential
from keras.layers import Dense


def build(sizes, rows):
    model = Sequential()
    label = 'model: '
    for n in sizes:
        model.add(Dense(n))
        label += str(n)
    print(label)
    random.shuffle(rows)
    {extra}
    return model


rows = [[0.0, 1.0]] * 8
model = build([4, 1], rows)
model.compile(loss='mse', optimizer='sgd')
model.fit(rows, rows, epochs=2)
"""


def outside(extra: str = "pass") -> set[str]:
    side = statements_of(PROGRAM.format(extra=extra), "p.py")
    inside = training_slice(side, set())
    return {st.text for i, st in enumerate(side) if i not in inside and st.noise is None}


def test_a_string_built_to_be_printed_inside_a_called_function_is_outside_training():
    left = outside()
    assert {"label = 'model: '", "label += str(n)"} <= left
    # what the function returns, what that reads, and a call made for its effect stay in
    assert not {"model = Sequential()", "model.add(Dense(n))", "random.shuffle(rows)", "return model"} & left


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["hidden, c = sess.run([encoded, optimizer])", "out = session.run(step)", "h = net.eval()"]))
def test_a_run_or_a_training_call_in_the_function_stays_in_whatever_it_assigns(call):
    # (no name of it says "train": only the run itself keeps it in)
    assert call.split(" = ")[0] not in {t.split(" = ")[0] for t in outside(call)}
