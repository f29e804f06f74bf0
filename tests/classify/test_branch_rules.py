"""Models that merge branches: a fix that joins or separates them changes the topology (one MWA).

Decision MWA-merged-models. Own small programs; controls keep their per-layer components.
"""

from __future__ import annotations

_FUNCTIONAL_TWO = """\
import numpy as np
from tensorflow import keras
from tensorflow.keras import layers

a = keras.Input(shape=(6,))
b = keras.Input(shape=(4,))
ha = layers.Dense(8, activation="relu")(a)
hb = layers.Dense(8, activation="relu")(b)
joined = layers.concatenate([ha, hb])
out = layers.Dense(1, activation="sigmoid")(joined)
net = keras.Model([a, b], out)
net.compile(optimizer="adam", loss="binary_crossentropy")
net.fit([np.random.rand(40, 6), np.random.rand(40, 4)], np.random.randint(0, 2, 40), epochs=3)
"""

_FUNCTIONAL_ONE = """\
import numpy as np
from tensorflow import keras
from tensorflow.keras import layers

a = keras.Input(shape=(10,))
h = layers.Dense(8, activation="relu")(a)
out = layers.Dense(1, activation="sigmoid")(h)
net = keras.Model(a, out)
net.compile(optimizer="adam", loss="binary_crossentropy")
net.fit(np.random.rand(40, 10), np.random.randint(0, 2, 40), epochs=3)
"""

_MERGED = """\
from keras.models import Sequential
from keras.layers import Dense, Dropout, Merge
import numpy as np

left = Sequential()
left.add(Dense(4, input_dim=3, activation='relu'))
right = Sequential()
right.add(Dense(4, input_dim=2, activation='relu'))
joined = Sequential()
joined.add(Merge([left, right], mode='{mode}'))
{extra}joined.add(Dense(1, activation='sigmoid'))
joined.compile(loss='binary_crossentropy', optimizer='adam')
joined.fit([np.random.rand(60, 3), np.random.rand(60, 2)], np.random.randint(0, 2, 60), nb_epoch=5)
"""


def _codes(comps: list[dict]) -> list[tuple]:
    return [(c["code"], c["element"], c["confidence"]) for c in comps]


def test_two_functional_branches_made_one_is_one_mwa(classify_cli):
    comps = classify_cli(_FUNCTIONAL_TWO, _FUNCTIONAL_ONE)
    assert [c["code"] for c in comps] == ["MWA"]
    assert comps[0]["before"].endswith("merging branches")
    assert comps[0]["deepcrime"] is None and comps[0]["simulable"] is False


def test_one_branch_split_into_two_merged_ones_is_one_mwa(classify_cli):
    comps = classify_cli(_FUNCTIONAL_ONE, _FUNCTIONAL_TWO)
    assert [c["code"] for c in comps] == ["MWA"]
    assert comps[0]["after"].endswith("merging branches")


def test_another_merge_mode_of_the_same_models_is_no_mwa(classify_cli):
    """Control: both programs merge the two models; the merge's mode is not the topology."""
    comps = classify_cli(_MERGED.format(mode="concat", extra=""), _MERGED.format(mode="sum", extra=""))
    assert "MWA" not in [c["code"] for c in comps]


def test_a_dropout_added_after_a_merge_stays_one_lrm(classify_cli):
    """Control: a layer added to a merged model is a layer change, as in any model."""
    comps = classify_cli(
        _MERGED.format(mode="concat", extra=""), _MERGED.format(mode="concat", extra="joined.add(Dropout(0.5))\n")
    )
    assert [c["code"] for c in comps] == ["LRM"]
