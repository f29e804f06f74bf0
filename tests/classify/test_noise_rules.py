"""One test per named noise rule of mutreal.compare: a noise-only edit yields no fault component.

Two rules are not of that shape and have tests of their own below: ``empty_program`` (nothing is
left to keep a real fault in) and ``wired_loose_layers`` (the wiring is a real change, counted once).
"""

from __future__ import annotations

import pytest

from mutreal.compare import NOISE_RULES
from mutreal.extract import extract_source

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


# a side with statements but no Keras element or data (an empty side is refused by classify)
NOISY["empty_program"] = "import os\nprint(os.getcwd())\n"
# a scaling step the other side lacks would otherwise be listed as removed preprocessing
BASES["empty_program"] = BASE.replace(
    "model = Sequential()", "x_train = x_train / 255.0\nmodel = Sequential()"
)
#: rules tested by their own tests below instead of the noise-only edit
OWN_TESTS = {"wired_loose_layers"}
#: rules after which no real fault can be left to see
NOTHING_LEFT = {"empty_program"}


def test_every_noise_rule_has_a_test():
    assert set(NOISY) | OWN_TESTS == set(NOISE_RULES)


def test_every_noise_rule_is_applied_by_code_or_says_what_holds_it():
    """The registry is the implementation: a rule wraps the function that applies it, or names the
    place that leaves the element out of the program model."""
    for rule in NOISE_RULES.values():
        assert (rule.apply is None) != (rule.held_by is None), rule.name
        assert rule.description, rule.name
        if rule.apply is not None:
            assert rule.apply.__module__.startswith("mutreal.compare."), rule.name


def test_a_rule_held_by_construction_cannot_be_called():
    with pytest.raises(TypeError, match="by construction"):
        NOISE_RULES["prints"]()


@pytest.mark.parametrize("rule", sorted(set(NOISE_RULES) - OWN_TESTS))
def test_noise_rule_yields_no_component(rule, classify_texts):
    result = classify_texts(BASES.get(rule, BASE), NOISY[rule])
    assert result.components == [], [(c.element, c.code, c.before, c.after) for c in result.components]


@pytest.mark.parametrize("rule", sorted(set(NOISE_RULES) - OWN_TESTS - NOTHING_LEFT))
def test_noise_rule_keeps_a_real_fault_visible(rule, classify_texts):
    """Noise plus one real change: exactly the real change is left."""
    fixed = NOISY[rule].replace("Dense(8,", "Dense(16,").replace("units=8", "units=16")
    result = classify_texts(BASES.get(rule, BASE), fixed)
    assert [c.code for c in result.components] == ["LCN"]


def test_empty_program_rule_applies_to_an_empty_side_only():
    rule = NOISE_RULES["empty_program"]
    assert rule(extract_source("")) and rule(extract_source("# a comment\nimport numpy as np\n"))
    assert not rule(extract_source(BASE))
    assert not rule(
        extract_source("import numpy as np\nx_train = np.random.rand(3, 4)\nx_train = x_train / 2\n")
    )


_BRANCH = """\
from tensorflow.keras.layers import Dense, Input
from tensorflow.keras.models import Model

inputs = Input(shape=(4,))
extra = Input(shape=(2,))  # never connected: both programs have loose layers
trunk = Dense(8, activation="relu")(inputs)
side = Dense({width}, activation="relu")(trunk)
score = Dense(1, activation="sigmoid")({feeds})
net = Model(inputs, score)
net.compile(optimizer="adam", loss="binary_crossentropy")
"""


def test_wired_loose_layers_are_counted_in_the_model_only(classify_texts):
    """The fix wires a branch the buggy model left unconnected: one missing layer in the model,
    not also a loose model of its own; a real change inside that branch stays visible as well."""
    result = classify_texts(_BRANCH.format(width=8, feeds="trunk"), _BRANCH.format(width=8, feeds="side"))
    assert [(c.code, c.element.split(".")[0]) for c in result.components] == [("LRM", "model[0]")]
    loose = "from keras.layers import Dense\nfirst = Dense({n}, activation='relu')\nsecond = Dense(1)\n"
    assert [c.code for c in classify_texts(loose.format(n=4), loose.format(n=8)).components] == ["LCN"]
