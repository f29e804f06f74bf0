"""One test per named noise rule of mutreal.diff: a noise-only edit yields no fault component."""

from __future__ import annotations

import pytest

from mutreal.diff import NOISE_RULES

BASE = """\
from keras.models import Sequential
from keras.layers import Dense, Activation
from keras.optimizers import SGD
import numpy as np

x_train = np.random.rand(100, 4)
y_train = np.random.randint(0, 2, 100)
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer=SGD(lr=0.01), metrics=['accuracy'])
model.fit(x_train, y_train, epochs=20, batch_size=16, verbose=0)
model.save('model.h5')
"""

NOISY: dict[str, str] = {
    "prints": BASE.replace("model = Sequential()", "print(x_train.shape)\nmodel = Sequential()").replace(
        "model.save", "print('done')\nmodel.save"
    ),
    "logging": "import logging\nlogging.basicConfig(level=logging.INFO)\n"
    + BASE.replace("model.save", "logging.info('trained')\nmodel.save"),
    "plotting": BASE.replace("model.fit(", "history = model.fit(")
    + "import matplotlib.pyplot as plt\nplt.plot(history.history['loss'])\nplt.savefig('loss.png')\n",
    "verbosity": BASE.replace("verbose=0", "verbose=2") + "model.summary()\n",
    "instrumentation_callbacks": BASE.replace(
        "verbose=0)", "verbose=0, callbacks=[TensorBoard(log_dir='logs'), CSVLogger('log.csv')])"
    ).replace("import numpy as np", "import numpy as np\nfrom keras.callbacks import TensorBoard, CSVLogger"),
    "renamed_variables": BASE.replace("x_train", "features")
    .replace("y_train", "targets")
    .replace("model", "net"),
    "value_moved_into_variable": BASE.replace("SGD(lr=0.01)", "SGD(lr=learning_rate)")
    .replace("epochs=20", "epochs=EPOCHS")
    .replace("model = Sequential()", "learning_rate = 0.01\nEPOCHS = 4 * 5\nmodel = Sequential()"),
    "activation_layer_vs_argument": BASE.replace(
        "model.add(Dense(8, input_dim=4, activation='relu'))",
        "model.add(Dense(8, input_dim=4))\nmodel.add(Activation('relu'))",
    ),
    "result_file_paths": BASE.replace("model.h5", "results/run_2/final_model.h5"),
    "reordered_kwargs": BASE.replace(
        "model.fit(x_train, y_train, epochs=20, batch_size=16, verbose=0)",
        "model.fit(x_train, y_train, verbose=0, batch_size=16, epochs=20)",
    ).replace("Dense(8, input_dim=4, activation='relu')", "Dense(activation='relu', input_dim=4, units=8)"),
    "layer_names": BASE.replace(
        "Dense(1, activation='sigmoid')", "Dense(1, activation='sigmoid', name='out')"
    ),
    "metrics": BASE.replace("metrics=['accuracy']", "metrics=['accuracy', 'mse']"),
    "synthetic_data_source": BASE.replace(
        "x_train = np.random.rand(100, 4)\ny_train = np.random.randint(0, 2, 100)",
        "import pandas as pd\ndata = pd.read_csv('train.csv').values\nx_train = data[:, :4]\ny_train = data[:, 4]",
    ),
    "api_spelling": BASE.replace("from keras.models", "from tensorflow.keras.models")
    .replace("from keras.layers", "from tensorflow.keras.layers")
    .replace("from keras.optimizers", "from tensorflow.keras.optimizers")
    .replace("SGD(lr=0.01)", "SGD(learning_rate=0.01)")
    .replace("epochs=20", "nb_epoch=20")
    .replace("loss='binary_crossentropy'", "loss='binary_crossentropy'"),
}


SNIPPET = """\
from keras.models import Sequential
from keras.layers import Dense, Activation
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
"""
NOISY["completed_snippet"] = SNIPPET.replace("from keras.layers", "import numpy as np\nfrom keras.layers") + (
    "model.add(Dense(8, activation='relu'))\nmodel.add(Dense(1, activation='sigmoid'))\n"
    "model.compile(loss='binary_crossentropy', optimizer='adam')\n"
    "model.fit(np.random.rand(10, 4), np.random.randint(0, 2, 10), epochs=1)\n"
)
RUNTIME_BASE = BASE.replace(
    "import numpy as np", "import numpy as np\nfrom mutreal.runtime import training_data as td"
).replace(
    "model = Sequential()",
    "y_train = np.eye(2)[y_train]\nx_train, y_train = td.remove(x_train, y_train, pct=10.0, seed=0)\nmodel = Sequential()",
)
NOISY["training_data_runtime_calls"] = RUNTIME_BASE.replace(
    "from mutreal.runtime import training_data as td", "import mutreal.runtime.training_data as _mutreal_td"
).replace("td.remove(", "_mutreal_td.remove(")
RESHAPE_BASE = BASE.replace(
    "x_train = np.random.rand(100, 4)",
    "N_ROWS = 100\nx_train = np.random.rand(N_ROWS, 2, 2)\nx_train = x_train.reshape(N_ROWS, 4)",
)
NOISY["reshape_sample_count"] = RESHAPE_BASE.replace(
    "x_train.reshape(N_ROWS, 4)", "np.reshape(x_train, (-1, 4))"
)
BASES = {
    "completed_snippet": SNIPPET,
    "training_data_runtime_calls": RUNTIME_BASE,
    "reshape_sample_count": RESHAPE_BASE,
}


def test_every_noise_rule_has_a_test():
    assert set(NOISY) == set(NOISE_RULES)


@pytest.mark.parametrize("rule", sorted(NOISE_RULES))
def test_noise_rule_yields_no_component(rule, classify_texts):
    result = classify_texts(BASES.get(rule, BASE), NOISY[rule])
    assert result.components == [], [(c.element, c.code, c.before, c.after) for c in result.components]


@pytest.mark.parametrize("rule", sorted(NOISE_RULES))
def test_noise_rule_keeps_a_real_fault_visible(rule, classify_texts):
    """Noise plus one real change: exactly the real change is left."""
    fixed = NOISY[rule].replace("Dense(8,", "Dense(16,").replace("units=8", "units=16")
    result = classify_texts(BASES.get(rule, BASE), fixed)
    assert [c.code for c in result.components] == ["LCN"]
