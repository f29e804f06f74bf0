"""Every name a mutant writes exists in the framework of the program's era, as installed here.

One program per spelling a real program uses (standalone Keras 2, Keras 1 keywords, tf.keras,
Keras 3, a TensorFlow 1 optimizer), each mutated with every operator at every site and every
catalogue value; the names each mutant writes (:mod:`mutreal.mutation.operators.written_names`)
are looked up in keras 3, tf_keras or tensorflow, not in a list kept by hand.
"""

from __future__ import annotations

import pytest

from mutreal.mutation.mutate import Failure, generate
from mutreal.mutation.operators import Program, registry
from mutreal.mutation.operators.written_names import WrittenName, missing_names, written_names

KERAS2 = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Dropout
from keras.callbacks import EarlyStopping
from keras import optimizers, regularizers

x = np.random.rand(60, 4)
y = np.random.randint(0, 3, 60)
model = Sequential()
model.add(Dense(16, input_dim=4, activation='relu', kernel_regularizer=regularizers.l2(0.01)))
model.add(Dropout(0.25))
model.add(Dense(8, use_bias=False))
model.add(Dense(3, activation='softmax'))
model.compile(loss='sparse_categorical_crossentropy', optimizer=optimizers.SGD(lr=0.05), metrics=['accuracy'])
stop = EarlyStopping(monitor='val_loss', patience=3)
model.fit(x, y, batch_size=16, epochs=5, validation_split=0.2, callbacks=[stop])
"""

KERAS1 = """\
import numpy
from keras.models import Sequential
from keras.layers import Dense, Dropout
from keras.regularizers import l2

data = numpy.loadtxt('pima.csv', delimiter=',')
X, Y = data[:, 0:8], data[:, 8]
model = Sequential()
model.add(Dense(12, input_dim=8, init='uniform', activation='relu', W_regularizer=l2(0.001)))
model.add(Dropout(0.2))
model.add(Dense(1, init='uniform', activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(X, Y, nb_epoch=20, batch_size=10, validation_split=0.1)
"""

TF_KERAS = """\
import tensorflow as tf
from sklearn.datasets import load_digits

digits = load_digits()
x, y = digits.data / 16.0, digits.target
inputs = tf.keras.Input(shape=(64,))
h = tf.keras.layers.Dense(32, activation='tanh', kernel_initializer='he_normal')(inputs)
h = tf.keras.layers.Dropout(0.3)(h)
outputs = tf.keras.layers.Dense(10, activation='softmax')(h)
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.01), loss='sparse_categorical_crossentropy')
model.fit(x, y, epochs=3, batch_size=32, validation_data=(x[:100], y[:100]),
          callbacks=[tf.keras.callbacks.EarlyStopping(patience=2)])
"""

KERAS3 = """\
import keras
from keras import layers
import numpy as np

x = np.random.rand(80, 5).astype('float32')
y = keras.ops.convert_to_numpy(keras.ops.sum(x, axis=1) > 2.5).astype('int32')
model = keras.Sequential([
    keras.Input(shape=(5,)),
    layers.Dense(12, activation='relu', kernel_regularizer=keras.regularizers.L2(0.001)),
    layers.Dropout(0.1),
    layers.Dense(1, activation='sigmoid'),
])
model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.002), loss='binary_crossentropy')
model.fit(x, y, epochs=4, batch_size=8, validation_split=0.25,
          callbacks=[keras.callbacks.EarlyStopping(patience=2)])
"""

TF1_OPTIMIZER = """\
import tensorflow as tf
from tensorflow.python.keras import layers
import numpy as np

alpha = 0.0001
x = np.random.rand(40, 3)
y = np.random.rand(40, 1)
model = tf.keras.Sequential()
model.add(layers.Dense(8, activation='relu', input_shape=(3,)))
model.add(layers.Dense(1))
model.compile(optimizer=tf.compat.v1.train.GradientDescentOptimizer(alpha), loss='mse')
model.fit(x, y, epochs=10, batch_size=4)
"""

PROGRAMS = {
    "keras2": KERAS2,
    "keras1": KERAS1,
    "tf_keras": TF_KERAS,
    "keras3": KERAS3,
    "tf1_optimizer": TF1_OPTIMIZER,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_mutant_names_only_apis_its_framework_has(name: str) -> None:
    program = Program(PROGRAMS[name], f"{name}.py")
    checked = 0
    bad = []
    for op_id in registry.operators():
        for item in generate(program, op_id, all_values=True):
            if isinstance(item, Failure):
                continue
            checked += 1
            missing = missing_names(written_names(program, item), program.era)
            if missing:
                bad.append(f"{item.name}: {', '.join(map(str, missing))}")
    assert checked > 40, checked  # the program gives most operators sites
    assert bad == []


def test_the_eras_are_the_ones_meant() -> None:
    eras = {name: Program(text, f"{name}.py").era for name, text in PROGRAMS.items()}
    assert eras == {
        "keras2": "keras2",
        "keras1": "keras1",
        "tf_keras": "tf2",
        "keras3": "keras3",
        "tf1_optimizer": "tf2",
    }


def test_och_on_a_tf1_optimizer_writes_tf1_optimizers_with_the_learning_rate() -> None:
    program = Program(TF1_OPTIMIZER, "tf1.py")
    news = [m.edits[0].new for m in generate(program, "OCH", all_values=True) if not isinstance(m, Failure)]
    assert news == [
        "tf.compat.v1.train.RMSPropOptimizer(alpha)",
        "tf.compat.v1.train.AdagradOptimizer(alpha)",
        "tf.compat.v1.train.AdamOptimizer(alpha)",
        "tf.compat.v1.train.AdadeltaOptimizer(alpha)",
    ]
    assert registry.get("OCG").sites(program) == []  # TF1 optimizers take no clipvalue


@pytest.mark.parametrize(
    ("name", "era", "missing"),
    [
        (WrittenName("name", "tensorflow.compat.v1.train.Adam"), "tf2", True),
        (WrittenName("name", "tensorflow.compat.v1.train.AdamOptimizer"), "tf2", False),
        (WrittenName("name", "tensorflow.train.AdamOptimizer"), "tf2", False),  # TF 1's own path
        (WrittenName("name", "tensorflow.train.Adam"), "tf2", True),
        (
            WrittenName("keyword", "tensorflow.compat.v1.train.GradientDescentOptimizer", "clipvalue"),
            "tf2",
            True,
        ),
        (WrittenName("keyword", "tensorflow.keras.optimizers.SGD", "clipvalue"), "tf2", False),
        (WrittenName("name", "keras.regularizers.l1l2"), "keras2", True),  # Keras 1's name
        (WrittenName("name", "keras.regularizers.l1_l2"), "keras2", False),
        (WrittenName("optimizers", "adamax"), "keras3", False),
        (WrittenName("activations", "swishy"), "keras3", True),
        (WrittenName("losses", "mean_squared_logarithmic_error"), "keras2", False),
    ],
)
def test_the_check_tells_missing_names_from_existing_ones(name: WrittenName, era: str, missing: bool) -> None:
    assert bool(missing_names([name], era)) is missing


def test_written_name_round_trips_through_a_dict() -> None:
    n = WrittenName("keyword", "keras.layers.Dense", "units")
    assert WrittenName.from_dict(n.to_dict()) == n
