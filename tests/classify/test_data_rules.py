"""Rules for the training data itself: another data file (TRD) and remapped label values (TCL).

Own small programs; each rule with controls that must stay as they were.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.label.classify import classify_pair

_FILES = """\
import numpy as np
import pandas as pd
from keras.models import Sequential
from keras.layers import Dense
feats = {x_reader}('{x_path}')
marks = {y_reader}('{y_path}')
net = Sequential()
net.add(Dense(10, input_dim=4, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(feats, marks, epochs=8, batch_size=4)
"""


def _files(x_path: str, y_path: str, x_reader: str = "np.load", y_reader: str = "np.load") -> str:
    return _FILES.format(x_path=x_path, y_path=y_path, x_reader=x_reader, y_reader=y_reader)


def test_training_on_another_data_file_is_one_trd_without_operator(classify_cli):
    """Decision TRD-data-file: the inputs and the labels read from other files: one TRD."""
    comps = classify_cli(_files("d/x_part.npy", "d/y_part.npy"), _files("d/x_full.npy", "d/y_full.npy"))
    assert [(c["code"], c["element"], c["deepcrime"], c["simulable"]) for c in comps] == [
        ("TRD", "data.x_train.source", None, False)
    ]
    assert comps[0]["before"] == "np.load('d/x_part.npy')"
    assert comps[0]["after"] == "np.load('d/x_full.npy')"
    assert comps[0]["reason"].startswith("DeepCrime's TRD only drops part")


def test_another_label_file_alone_is_trd(classify_cli):
    comps = classify_cli(_files("d/x.npy", "d/y_old.npy"), _files("d/x.npy", "d/y_new.npy"))
    assert [(c["code"], c["element"]) for c in comps] == [("TRD", "data.y_train.source")]


def test_the_same_file_in_another_directory_is_no_component(classify_cli):
    """Control: a benchmark keeping the files elsewhere (same names) changes no data."""
    comps = classify_cli(
        _files("C:\\\\Users\\\\me\\\\x.npy", "C:/Users/me/y.npy"), _files("data/x.npy", "data/y.npy")
    )
    assert comps == []


def test_a_file_read_by_another_reader_is_a_swapped_source(classify_cli):
    """Control: another reader is another data set-up (decision data-source-noise), not TRD."""
    buggy = _files("d/x.csv", "d/y.npy", x_reader="pd.read_csv")
    assert classify_cli(buggy, _files("d/x.npy", "d/y.npy")) == []


@settings(max_examples=15, deadline=None)
@given(
    old=st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    new=st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    folder=st.sampled_from(["", "data/", "/tmp/set/"]),
)
def test_any_renamed_training_file_is_trd_and_only_a_renamed_one(old, new, folder):
    """Property: a TRD exactly when the file name (not its folder) differs."""
    with tempfile.TemporaryDirectory() as tmp:
        b, f = Path(tmp) / "b.py", Path(tmp) / "f.py"
        b.write_text(_files(f"{folder}{old}.npy", "y.npy"), encoding="utf-8")
        f.write_text(_files(f"other/{new}.npy", "y.npy"), encoding="utf-8")
        codes = [c.code for c in classify_pair(str(b), str(f)).components]
    assert codes == (["TRD"] if old != new else [])


_LABELS = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
pts = np.random.rand(120, 3)
tags = np.random.randint(0, 2, 120)
{step}
clf = Sequential()
clf.add(Dense(6, input_dim=3, activation='relu'))
clf.add(Dense(1, activation='sigmoid'))
clf.compile(loss='binary_crossentropy', optimizer='sgd')
clf.fit(pts, tags, epochs=5, batch_size=8)
"""


def test_inverted_binary_labels_are_tcl_both_ways(classify_cli):
    """Decision TCL-label-remap: ``k - y`` on the labels changes their values."""
    inverted, plain = _LABELS.format(step="tags = 1 - tags"), _LABELS.format(step="")
    for buggy, fixed in ((inverted, plain), (plain, inverted)):
        comps = classify_cli(buggy, fixed)
        assert [(c["code"], c["element"], c["deepcrime"], c["simulable"]) for c in comps] == [
            ("TCL", "data.y_train.preprocess[0]", "TCL", True)
        ]


def test_class_ids_set_to_others_on_train_and_test_labels_are_one_tcl(classify_cli):
    """Decision TCL-label-remap: ``y[y == 2] = 1`` on the training and test labels is one remap."""
    buggy = _LABELS.format(step="test_tags = np.random.randint(0, 3, 40)").replace(
        "(0, 2, 120)", "(0, 3, 120)"
    )
    buggy = buggy.replace("clf.fit(pts, tags, epochs=5, batch_size=8)", "clf.fit(pts, tags, epochs=5, batch_size=8)\n"
                          "clf.evaluate(np.random.rand(40, 3), test_tags)")  # fmt: skip
    fixed = buggy.replace(
        "test_tags = np.random.randint(0, 3, 40)",
        "test_tags = np.random.randint(0, 3, 40)\ntags[tags == 2] = 1\ntest_tags[test_tags == 2] = 1",
    )
    comps = classify_cli(buggy, fixed)
    assert [(c["code"], c["element"]) for c in comps] == [("TCL", "data.y_train.preprocess[0]")]


def test_label_encoding_and_scaling_stay_preprocessing(classify_cli):
    """Controls: a shift of ids, one-hot encoding and scaling of the labels re-spell them: CPP."""
    plain = _LABELS.format(step="")
    for step in ("tags = tags - 1", "tags = np.eye(2)[tags]", "tags = tags / 2"):
        assert [c["code"] for c in classify_cli(plain, _LABELS.format(step=step))] == ["CPP"], step


def test_inverting_the_inputs_is_preprocessing(classify_cli):
    """Control: ``1 - x`` on the inputs (inverted pixel values) is a preprocessing step."""
    plain = _LABELS.format(step="")
    assert [c["code"] for c in classify_cli(plain, _LABELS.format(step="pts = 1 - pts"))] == ["CPP"]


_BATCH = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
pts = np.random.rand(90, 2)
lab = np.random.randint(0, 2, 90)
net = Sequential([Dense(5, input_dim=2, activation='relu'), Dense(1, activation='sigmoid')])
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(pts, lab, epochs=3, batch_size={batch})
"""


def test_the_length_of_the_training_array_as_batch_size_is_a_full_batch(classify_cli):
    """Decision HBS-full-batch: len(x) of the array fit reads is the whole set in one batch."""
    for full in ("len(pts)", "pts.shape[0]", "len(lab)"):
        comps = classify_cli(_BATCH.format(batch=full), _BATCH.format(batch=8))
        assert [(c["code"], c["deepcrime"]) for c in comps] == [("HBS", "HDB")], full


def test_the_length_of_an_array_the_call_does_not_train_on_is_undecidable(classify_cli):
    """Control: the length of a frame the program never trains on (or never defines) is an unknown
    value against a number: no component."""
    for other in ("len(frame.index)", "len(frame)", "other.shape[0]"):
        assert classify_cli(_BATCH.format(batch=other), _BATCH.format(batch=8)) == [], other


_FROM_FILE = """\
import pandas as pd
from sklearn.preprocessing import LabelEncoder
from keras.models import Sequential
from keras.layers import Dense
rows = pd.read_csv('records.csv').values
feats = rows[:, :4]
marks = rows[:, 4]
{encode}net = Sequential([Dense(8, input_dim=4, activation='relu'), Dense(2, activation='softmax')])
net.compile(loss='categorical_crossentropy', optimizer='adam')
net.fit(feats, marks, epochs=4)
"""
_GENERATED = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
feats = np.random.random((60, 4))
marks = np.random.randint(0, 2, 60)
marks = np.eye(2)[marks]
net = Sequential([Dense(8, input_dim=4, activation='relu'), Dense(2, activation='softmax')])
net.compile(loss='categorical_crossentropy', optimizer='adam')
net.fit(feats, marks, epochs=4)
"""


def test_encoding_generated_labels_that_replace_a_file_is_no_component(classify_cli):
    """Decision CPP-swapped-labels: the file's labels are unknown; the fix's one-hot encoding of
    its random class ids is set-up of the generated data."""
    assert classify_cli(_FROM_FILE.format(encode=""), _GENERATED) == []


def test_labels_the_buggy_program_made_class_ids_still_miss_their_encoding(classify_cli):
    """Control: with LabelEncoder on the buggy side the labels are known integer ids: CPP."""
    encode = "marks = LabelEncoder().fit_transform(marks)\n"
    assert [c["code"] for c in classify_cli(_FROM_FILE.format(encode=encode), _GENERATED)] == ["CPP"]


def test_encoding_generated_labels_against_unknown_arrays_is_still_cpp(classify_cli):
    """Control: a posted fit on arrays it never defines (no file read) keeps the study's CPP."""
    buggy = _GENERATED.split("feats = ")[0] + "net = " + _GENERATED.split("net = ", 1)[1]
    assert [c["code"] for c in classify_cli(buggy, _GENERATED)] == ["CPP"]


_TWO_MODELS = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Dropout
xs = np.random.random((50, 4))
ys = np.eye(3)[np.random.randint(0, 3, 50)]
{helper}net = Sequential([Dense(10, input_dim=4, activation='relu'), {dropout}Dense(3, activation='softmax')])
net.compile(loss='categorical_crossentropy', optimizer='adam')
net.fit(xs, ys, epochs=3)
"""


def test_the_compiled_model_is_paired_with_the_fixed_compiled_model(classify_cli):
    """With more models on one side, the model each program trains is compared first, not the
    helper whose layer classes happen to match best."""
    buggy = _TWO_MODELS.format(
        helper="aux = Sequential([Dense(4, input_dim=4), Dense(3)])\n", dropout="Dropout(0.5), "
    )
    fixed = _TWO_MODELS.format(helper="", dropout="")
    comps = classify_cli(buggy, fixed)
    assert [(c["code"], c["element"]) for c in comps] == [("LAD", "model[1].layer[1]")]


def test_a_step_dropped_with_the_real_data_it_prepared_is_no_component(classify_cli):
    """Decision CPP-swapped-source-steps: the file's scaling goes with the file."""
    buggy = _FROM_FILE.format(encode="feats = feats / 255.0\n")
    generated = _GENERATED.replace("marks = np.eye(2)[marks]\n", "")
    assert classify_cli(buggy, generated) == []


def test_a_step_dropped_from_the_same_real_data_is_still_cpp(classify_cli):
    """Control: the same file on both sides, its scaling removed: a preprocessing change."""
    buggy = _FROM_FILE.format(encode="feats = feats / 255.0\n")
    assert [c["code"] for c in classify_cli(buggy, _FROM_FILE.format(encode=""))] == ["CPP"]
