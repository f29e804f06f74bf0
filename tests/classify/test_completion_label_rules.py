"""A one-hot encoding that only completes a snippet's data is not CPP (decision CPP-completion-labels).

Own small programs: the buggy program trains on arrays it never builds; the fix generates them.
"""

from __future__ import annotations

_POSTED = """\
from keras.models import Sequential
from keras.layers import Dense

net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(3, activation='softmax'))
net.compile(loss='{loss}', optimizer='adam')
net.fit(features, {labels}, epochs=10)
"""

_COMPLETED = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from keras.utils import to_categorical

features = np.random.rand(90, 6)
{labels} = to_categorical(np.random.randint(0, 3, 90))

net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(3, activation='softmax'))
net.compile(loss='{loss}', optimizer='adam')
net.fit(features, {labels}, epochs=10)
"""

_PREDICT_ONLY = """\
import numpy as np
from mylib import load_trained

net = load_trained("weights.h5")
sample = np.load("sample.npy")
print(net.predict(sample))
"""


def _codes(comps: list[dict]) -> list[str]:
    return [c["code"] for c in comps]


def test_labels_named_one_hot_need_no_encoding_from_the_completion(classify_cli):
    loss = "categorical_crossentropy"
    comps = classify_cli(
        _POSTED.format(loss=loss, labels="labels_onehot"), _COMPLETED.format(loss=loss, labels="labels_onehot")
    )
    assert comps == []


def test_unnamed_out_of_view_labels_keep_the_cpp(classify_cli):
    """Control: what the post's labels looked like is unknown; the study reads the encoding as CPP."""
    loss = "categorical_crossentropy"
    comps = classify_cli(_POSTED.format(loss=loss, labels="targets"), _COMPLETED.format(loss=loss, labels="targets"))
    assert [(c["code"], c["element"], c["change"]) for c in comps] == [("CPP", "data.y_train.preprocess[0]", "added")]


def test_a_changed_loss_keeps_the_encoding_as_cpp(classify_cli):
    """Control: the fix moves to a categorical loss; the encoding is part of that fix."""
    comps = classify_cli(
        _POSTED.format(loss="sparse_categorical_crossentropy", labels="y_encoded"),
        _COMPLETED.format(loss="categorical_crossentropy", labels="y_encoded"),
    )
    assert sorted(_codes(comps)) == ["CPP", "LCH"]


def test_a_program_that_only_predicts_gets_no_cpp_for_the_completions_labels(classify_cli):
    """The buggy program binds a prediction input but never trains: the fix's labels and their
    encoding come with the completion."""
    comps = classify_cli(_PREDICT_ONLY, _COMPLETED.format(loss="categorical_crossentropy", labels="ys"))
    assert "CPP" not in _codes(comps)
