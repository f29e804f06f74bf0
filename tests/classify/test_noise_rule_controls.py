"""Positive controls of the noise rules: a real change of the very element a rule looks at stays visible.

test_noise_rules.py shows that each noise-only edit yields no fault component; its control is an
unrelated change elsewhere (a Dense 8 -> 16). A rule that also swallowed a real change of its own
element (the reshape target, the appended layers, the callbacks list, the fit call whose verbosity
changed ...) would pass those tests. Here each rule's noise is applied together with a change that
matters, made on the same statement or element, and the change must come out as its component.
Only the public classify API is used (two source texts in, components out).
"""

from __future__ import annotations

import pytest

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

CNN = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Conv2D, Flatten

x_train = np.random.rand(100, 784)
y_train = np.random.randint(0, 10, 100)
x_train = x_train.reshape(100, 28, 28, 1)
model = Sequential()
model.add(Conv2D(8, (3, 3), activation='relu', input_shape=(28, 28, 1)))
model.add(Flatten())
model.add(Dense(10, activation='softmax'))
model.compile(loss='sparse_categorical_crossentropy', optimizer='adam', metrics=['accuracy'])
model.fit(x_train, y_train, epochs=2, batch_size=16)
"""

SNIPPET = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
"""
SNIPPET_TAIL = (
    "model.compile(loss='binary_crossentropy', optimizer='adam')\n"
    "model.fit(np.random.rand(10, 4), np.random.randint(0, 2, 10), epochs=1)\n"
)
HIDDEN = "model.add(Dense(8, activation='relu'))\n"
OUTPUT = "model.add(Dense(1, activation='sigmoid'))\n"

CALLBACKS = BASE.replace("import numpy as np", "import numpy as np\nfrom keras.callbacks import EarlyStopping").replace(
    "verbose=0)", "verbose=0, callbacks=[EarlyStopping(monitor='loss', patience=2)])"
)
RUNTIME = BASE.replace("import numpy as np", "import numpy as np\nfrom mutreal.runtime import training_data as td").replace(
    "model = Sequential()",
    "y_train = np.eye(2)[y_train]\nx_train, y_train = td.remove(x_train, y_train, pct=10.0, seed=0)\nmodel = Sequential()",
)


def _codes(result) -> list[tuple[str, str]]:
    return sorted((c.code, c.element) for c in result.components)


def test_reshape_sample_count_keeps_a_changed_sample_shape(classify_texts):
    """Channels moved from last to first: same sample count, a different sample shape (CPP)."""
    fixed = CNN.replace("reshape(100, 28, 28, 1)", "reshape(100, 1, 28, 28)")
    assert _codes(classify_texts(CNN, fixed)) == [("CPP", "data.x_train.preprocess[0]")]


def test_reshape_sample_count_noise_and_a_changed_rank(classify_texts):
    fixed = CNN.replace("reshape(100, 28, 28, 1)", "reshape(-1, 784, 1)")
    assert _codes(classify_texts(CNN, fixed)) == [("CPP", "data.x_train.preprocess[0]")]


def test_reshape_sample_count_itself_is_noise(classify_texts):
    """The rule's own case on this program, so the two controls above differ from it in one thing."""
    assert classify_texts(CNN, CNN.replace("reshape(100, 28, 28, 1)", "reshape(-1, 28, 28, 1)")).components == []


@pytest.mark.parametrize(
    ("appended", "expected"),
    [
        ([OUTPUT], [("LRM", "model[0].layer[1]")]),  # one layer: not a completed head, a missing layer
        ([HIDDEN, OUTPUT], []),  # two: the benchmark's completion (the rule)
        ([HIDDEN, HIDDEN, OUTPUT], []),  # three: still a completion
        ([HIDDEN, HIDDEN, HIDDEN, OUTPUT], [("MWA", "model[0]")]),  # four: the model was rebuilt
    ],
)
def test_completed_snippet_counts_the_appended_layers(classify_texts, appended, expected):
    result = classify_texts(SNIPPET, SNIPPET + "".join(appended) + SNIPPET_TAIL)
    assert _codes(result) == expected


def test_completed_snippet_does_not_apply_to_a_compiled_model(classify_texts):
    buggy = SNIPPET + OUTPUT + SNIPPET_TAIL
    fixed = SNIPPET + HIDDEN + HIDDEN + OUTPUT + SNIPPET_TAIL
    assert classify_texts(buggy, fixed).components != []


def test_verbosity_noise_next_to_a_changed_batch_size_in_the_same_fit(classify_texts):
    fixed = BASE.replace("batch_size=16, verbose=0", "batch_size=32, verbose=2") + "model.summary()\n"
    assert _codes(classify_texts(BASE, fixed)) == [("HBS", "fit.batch_size")]


def test_instrumentation_callbacks_next_to_a_changed_patience(classify_texts):
    fixed = CALLBACKS.replace(
        "callbacks=[EarlyStopping(monitor='loss', patience=2)]",
        "callbacks=[TensorBoard(log_dir='logs'), EarlyStopping(monitor='loss', patience=5), CSVLogger('l.csv')]",
    ).replace("import EarlyStopping", "import EarlyStopping, TensorBoard, CSVLogger")
    assert _codes(classify_texts(CALLBACKS, fixed)) == [("RCP", "fit.callbacks.EarlyStopping.patience")]


def test_renamed_variable_with_a_changed_value(classify_texts):
    fixed = BASE.replace("x_train", "features").replace(
        "features = np.random.rand(100, 4)", "features = np.random.rand(100, 4) * 255"
    )
    assert _codes(classify_texts(BASE, fixed)) == [("CPP", "data.x_train.preprocess[0]")]


@pytest.mark.parametrize(
    ("variable", "code", "element"),
    [("learning_rate = 0.1", "HLR", "compile.optimizer.learning_rate"), ("EPOCHS = 4 * 4", "HNE", "fit.epochs")],
)
def test_value_moved_into_variable_with_a_different_value(classify_texts, variable, code, element):
    fixed = (
        BASE.replace("SGD(lr=0.01)", "SGD(lr=learning_rate)")
        .replace("epochs=20", "epochs=EPOCHS")
        .replace("model = Sequential()", "learning_rate = 0.01\nEPOCHS = 4 * 5\nmodel = Sequential()")
    )
    name = variable.split(" =")[0]
    fixed = fixed.replace(f"{name} = {'0.01' if name == 'learning_rate' else '4 * 5'}", variable)
    assert _codes(classify_texts(BASE, fixed)) == [(code, element)]


def test_activation_layer_with_a_different_activation(classify_texts):
    fixed = BASE.replace(
        "model.add(Dense(8, input_dim=4, activation='relu'))",
        "model.add(Dense(8, input_dim=4))\nmodel.add(Activation('tanh'))",
    )
    assert _codes(classify_texts(BASE, fixed)) == [("ACH", "model[0].layer[0].activation")]


def test_reordered_kwargs_with_one_value_changed(classify_texts):
    fixed = BASE.replace(
        "model.fit(x_train, y_train, epochs=20, batch_size=16, verbose=0)",
        "model.fit(x_train, y_train, verbose=0, batch_size=16, epochs=10)",
    )
    assert _codes(classify_texts(BASE, fixed)) == [("HNE", "fit.epochs")]


def test_layer_name_added_to_a_layer_whose_activation_changes(classify_texts):
    fixed = BASE.replace("Dense(1, activation='sigmoid')", "Dense(1, activation='softmax', name='out')")
    assert _codes(classify_texts(BASE, fixed)) == [("ACH", "model[0].layer[1].activation")]


def test_metrics_changed_in_a_compile_whose_loss_changes(classify_texts):
    fixed = BASE.replace("metrics=['accuracy']", "metrics=['accuracy', 'mse']").replace(
        "loss='binary_crossentropy'", "loss='mse'"
    )
    assert _codes(classify_texts(BASE, fixed)) == [("LCH", "compile.loss")]


def test_api_spelling_with_a_changed_learning_rate(classify_texts):
    fixed = (
        BASE.replace("from keras.", "from tensorflow.keras.")
        .replace("SGD(lr=0.01)", "SGD(learning_rate=0.1)")
        .replace("epochs=20", "nb_epoch=20")
    )
    assert _codes(classify_texts(BASE, fixed)) == [("HLR", "compile.optimizer.learning_rate")]


def test_synthetic_data_source_with_added_scaling(classify_texts):
    fixed = BASE.replace(
        "x_train = np.random.rand(100, 4)\ny_train = np.random.randint(0, 2, 100)",
        "import pandas as pd\ndata = pd.read_csv('train.csv').values\nx_train = data[:, :4]\n"
        "y_train = data[:, 4]\nx_train = x_train / 255.0",
    )
    assert _codes(classify_texts(BASE, fixed)) == [("CPP", "data.x_train.preprocess[1]")]


@pytest.mark.parametrize("noise", ["print(x_train.shape)", "import logging\nlogging.info('scaling')"])
def test_print_and_logging_next_to_a_real_preprocessing_change(classify_texts, noise):
    fixed = BASE.replace("model = Sequential()", f"{noise}\nx_train = x_train * 255\nmodel = Sequential()")
    assert _codes(classify_texts(BASE, fixed)) == [("CPP", "data.x_train.preprocess[0]")]


def test_plotting_the_history_of_a_fit_whose_epochs_change(classify_texts):
    fixed = BASE.replace("model.fit(x_train, y_train, epochs=20", "history = model.fit(x_train, y_train, epochs=30")
    fixed += "import matplotlib.pyplot as plt\nplt.plot(history.history['loss'])\nplt.savefig('loss.png')\n"
    assert _codes(classify_texts(BASE, fixed)) == [("HNE", "fit.epochs")]


def test_training_data_runtime_call_respelled_with_a_changed_share(classify_texts):
    fixed = RUNTIME.replace(
        "from mutreal.runtime import training_data as td", "import mutreal.runtime.training_data as _mutreal_td"
    ).replace("td.remove(x_train, y_train, pct=10.0", "_mutreal_td.remove(x_train, y_train, pct=30.0")
    result = classify_texts(RUNTIME, fixed)
    assert result.components and {c.code for c in result.components} == {"TRD"}
    assert any("pct=30.0" in (c.after or "") for c in result.components)
