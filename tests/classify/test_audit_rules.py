"""Rules found auditing classify on real benchmark programs (own small programs, no third-party code)."""

from __future__ import annotations

_RESHAPE = """\
import numpy as np
from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential

N_SAMPLES = {n}
feats = np.zeros(shape=(N_SAMPLES, 4, 4, 8))
feats = np.reshape(feats, {target})
labels = np.zeros(shape=(N_SAMPLES, 3))
head = Sequential([Dense(32, activation="relu", input_dim=4 * 4 * 8), Dense(3, activation="softmax")])
head.compile(optimizer="adam", loss="categorical_crossentropy")
head.fit(feats, labels, epochs=2, batch_size=8)
"""


def test_reshape_reading_a_changed_sample_count_is_no_preprocessing_change(classify_texts):
    """Rule reshape_sample_count: the same reshape, only the number of samples it keeps changed."""
    buggy = _RESHAPE.format(n=900, target="(N_SAMPLES, 4 * 4 * 8)")
    fixed = _RESHAPE.format(n=12, target="(N_SAMPLES, 4 * 4 * 8)")
    assert classify_texts(buggy, fixed).components == []


def test_reshape_to_another_sample_shape_is_still_preprocessing(classify_texts):
    buggy = _RESHAPE.format(n=900, target="(N_SAMPLES, 4 * 4 * 8)")
    fixed = _RESHAPE.format(n=900, target="(N_SAMPLES, 16, 8)")
    assert [c.code for c in classify_texts(buggy, fixed).components] == ["CPP"]
