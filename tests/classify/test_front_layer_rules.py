"""A layer inserted in front of the model's first layer (decision LIS-front-layer).

Own small programs: the input shape the old first layer declares stands for the model's input.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.label.classify import classify_pair

_MODEL = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, BatchNormalization, Dropout

x = np.random.rand(120, 5)
y = np.random.randint(0, 2, 120)
net = Sequential()
{front}net.add(Dense(8{shape}, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(x, y, epochs=10)
"""


def _model(front: str = "", shape: str = ", input_dim=5") -> str:
    return _MODEL.format(front=f"net.add({front})\n" if front else "", shape=shape)


def _codes(comps: list[dict]) -> list[tuple]:
    return [(c["code"], c["element"], c["change"]) for c in comps]


def test_a_front_layer_with_the_shape_kept_behind_it_is_one_lrm(classify_cli):
    comps = classify_cli(_model(), _model(front="BatchNormalization()"))
    assert _codes(comps) == [("LRM", "model[0].layer[0]", "added")]


def test_a_front_layer_with_another_shape_behind_it_is_lis_changed(classify_cli):
    comps = classify_cli(_model(), _model(front="BatchNormalization()", shape=", input_dim=6"))
    assert [(c["code"], c["change"], c["before"], c["after"]) for c in comps if c["code"] == "LIS"] == [
        ("LIS", "changed", "5", "6")
    ]


def test_a_front_layer_with_the_input_left_to_the_data_is_no_lis(classify_cli):
    comps = classify_cli(_model(), _model(front="Dense(16, activation='relu')", shape=""))
    assert [c["code"] for c in comps] == ["LRM"]


def test_a_shape_dropped_without_a_new_front_layer_stays_lis(classify_cli):
    """Control: decision LIS-one-side, the declared shape disappears from the same first layer."""
    comps = classify_cli(_model(), _model(shape=""))
    assert _codes(comps) == [("LIS", "model[0].layer[0].input_shape", "removed")]


@settings(max_examples=8, deadline=None)
@given(dim=st.integers(min_value=2, max_value=9), front=st.sampled_from(["BatchNormalization()", "Dropout(0.2)"]))
def test_lis_exactly_when_the_shape_behind_the_front_layer_differs(dim, front):
    """Property: LIS appears exactly when the old first layer's declared shape changed."""
    with tempfile.TemporaryDirectory() as tmp:
        b, f = Path(tmp) / "b.py", Path(tmp) / "f.py"
        b.write_text(_model(), encoding="utf-8")
        f.write_text(_model(front=front, shape=f", input_dim={dim}"), encoding="utf-8")
        codes = [c.code for c in classify_pair(str(b), str(f)).components]
    assert ("LIS" in codes) == (dim != 5)
