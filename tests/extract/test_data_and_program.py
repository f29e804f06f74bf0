"""Data sources and preprocessing chains, frameworks, lines, serialisation and element paths."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.program.model import (
    ProgramModel,
    Value,
    canonical_path,
    compile_path,
    data_path,
    fit_path,
    layer_path,
    parse_path,
)


def ops(pm: ProgramModel, role: str) -> list[str]:
    return [op.op for op in pm.data[role].preprocess]


def test_keras_dataset_and_preprocessing_chain_follow_assignments(ex):
    pm = ex(
        """
        import keras
        from keras.datasets import mnist
        (x_train, y_train), (x_test, y_test) = mnist.load_data()
        x_train = x_train.reshape(-1, 28, 28, 1)
        x_train = x_train.astype('float32')
        x_train = x_train / 255
        x_test = x_test / 255
        y_train = keras.utils.to_categorical(y_train, 10)
        model.fit(x_train, y_train, validation_data=(x_test, y_test), epochs=2)
        """
    )
    xs = pm.data["x_train"]
    assert xs.source.kind == "keras_dataset" and xs.source.name == "mnist" and xs.source.part == "x_train"
    assert xs.source.size == 60000
    assert ops(pm, "x_train") == ["reshape", "astype", "divide"]
    assert xs.preprocess[2].args["operand"].value == 255
    assert xs.preprocess[2].line == 7 and xs.preprocess[2].file == "prog.py"
    assert ops(pm, "y_train") == ["to_categorical"]
    assert pm.data["x_val"].source.part == "x_test" and ops(pm, "x_val") == ["divide"]
    assert pm.fits[0].args["x"].value == "data.x_train"


def test_missing_preprocessing_step_shows_as_shorter_chain(ex):
    code = """
        import numpy as np
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler
        data = np.loadtxt('pima.csv', delimiter=',')
        X = data[:, 0:8]
        Y = data[:, 8]
        X_train, X_test, y_train, y_test = train_test_split(X, Y, test_size=0.2)
        {scale}
        model.fit(X_train, y_train, epochs=10)
        """
    with_scaler = ex(code.format(scale="X_train = StandardScaler().fit_transform(X_train)"))
    without = ex(code.format(scale="pass"))
    src = with_scaler.data["x_train"].source
    assert src.kind == "file" and src.name == "pima.csv" and src.reader == "loadtxt"
    assert ops(with_scaler, "x_train") == ["slice", "train_test_split", "scale"]
    assert with_scaler.data["x_train"].preprocess[-1].name == "StandardScaler"
    assert ops(without, "x_train") == ["slice", "train_test_split"]
    assert with_scaler.data["x_train"].preprocess[1].args["part"].value == "train"


@pytest.mark.parametrize(
    "expr, kind, shape",
    [
        ("np.random.rand(100, 3)", "random", [100, 3]),
        ("np.random.random((50, 2))", "random", [50, 2]),
        ("np.random.randint(0, 2, size=(20, 1))", "random", [20, 1]),
        ("np.array([[0, 0], [0, 1], [1, 0], [1, 1]])", "literal", [4, 2]),
        ("np.zeros((10, 4))", "generated", [10, 4]),
    ],
)
def test_generated_sources_record_shape(ex, expr, kind, shape):
    pm = ex(f"import numpy as np\nX = {expr}\nmodel.fit(X, X)\n")
    src = pm.data["x_train"].source
    assert (src.kind, src.shape) == (kind, shape)
    assert src.origin == "synthetic"


def test_sklearn_loader_and_read_csv(ex):
    pm = ex(
        """
        from sklearn.datasets import load_iris
        import pandas as pd
        iris = load_iris()
        X = iris.data
        labels = pd.read_csv('labels.csv')
        y = pd.get_dummies(labels['species']).values
        model.fit(X, y)
        """
    )
    assert pm.data["x_train"].source.kind == "sklearn" and pm.data["x_train"].source.name == "iris"
    assert pm.data["x_train"].source.size == 150
    assert pm.data["y_train"].source.name == "labels.csv"
    assert ops(pm, "y_train") == ["slice", "one_hot"]


def test_augmentation_generator_and_fit_generator(ex):
    pm = ex(
        """
        from keras.preprocessing.image import ImageDataGenerator
        datagen = ImageDataGenerator(rotation_range=10, horizontal_flip=True)
        datagen.fit(x_train)
        model.fit_generator(datagen.flow(x_train, y_train, batch_size=64), steps_per_epoch=100, epochs=5)
        """
    )
    fit = pm.fits[0]
    assert fit.method == "fit_generator"
    assert fit.args["batch_size"].value == 64 and fit.args["epochs"].value == 5
    assert ops(pm, "x_train") == ["augment"]
    assert pm.data["x_train"].preprocess[0].args["rotation_range"].value == 10


def test_unfollowed_training_data_is_kept_opaque(ex):
    pm = ex("X, y = get_data()\nmodel.fit(X, y, epochs=1)\n")
    assert pm.data["x_train"].source.kind == "opaque"
    assert "get_data()" in pm.data["x_train"].source.text


def test_callbacks_and_fit_arguments(ex):
    pm = ex(
        """
        from keras.callbacks import EarlyStopping, ModelCheckpoint
        es = EarlyStopping(monitor='val_loss', patience=3)
        model.fit(x, y, 32, 10, validation_split=0.1, callbacks=[es, ModelCheckpoint('best.h5')],
                  class_weight={0: 1, 1: 5}, shuffle=False)
        """
    )
    fit = pm.fits[0]
    assert fit.args["batch_size"].value == 32 and fit.args["epochs"].value == 10
    assert fit.args["validation_split"].value == 0.1
    assert [c.cls for c in fit.callbacks] == ["EarlyStopping", "ModelCheckpoint"]
    assert fit.callbacks[0].args["patience"].value == 3
    assert fit.args["class_weight"].value == [[0, 1], [1, 5]]
    assert fit.args["shuffle"].value is False


def test_train_on_batch_in_literal_loop_records_repeat(ex):
    pm = ex("for i in range(100):\n    model.train_on_batch(xb, yb)\n")
    assert pm.fits[0].method == "train_on_batch" and pm.fits[0].repeat == 100


def test_raw_tensorflow_program_is_flagged_and_read_as_graph_code(ex):
    pm = ex(
        """
        import tensorflow as tf
        x = tf.placeholder(tf.float32, [None, 784])
        W = tf.Variable(tf.zeros([784, 10]))
        y = tf.nn.softmax(tf.matmul(x, W))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(train)
        """
    )
    assert (pm.framework, pm.era) == ("tensorflow", "tf1")
    assert [m.kind for m in pm.models] == ["graph"] and not pm.is_keras
    assert [layer.cls for layer in pm.models[0].layers] == ["Input", "Dense", "Activation"]
    assert any("raw TensorFlow" in n for n in pm.notes)


def test_pytorch_and_plain_python_frameworks(ex):
    assert ex("import torch\nnet = torch.nn.Linear(3, 4)\n").framework == "pytorch"
    assert ex("print('hello')\n").framework == "none"


def test_snippet_layers_outside_any_model_form_an_implicit_model(ex):
    pm = ex("Convolution2D(10, 3, 3, border_mode='same', input_shape=(100, 100))\n")
    (model,) = pm.models
    assert model.kind == "loose"
    assert model.layers[0].cls == "Conv2D" and model.layers[0].args["padding"].value == "same"


def test_lines_of_layers_compile_and_fit(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        model = Sequential([
            Dense(4),
            Dense(1),
        ])
        model.compile(loss='mse',
                      optimizer='adam')
        model.fit(x, y)
        """
    )
    assert [layer.line for layer in pm.models[0].layers] == [5, 6]
    assert pm.models[0].line == 4
    assert pm.compiles[0].line == 8 and pm.fits[0].line == 10
    assert all(layer.file == "prog.py" for layer in pm.models[0].layers)


def test_program_model_json_round_trip(ex):
    pm = ex(
        """
        import numpy as np
        from tensorflow import keras
        X = np.random.rand(10, 3)
        inp = keras.Input((3,))
        out = keras.layers.Dense(1, kernel_regularizer=keras.regularizers.l2(0.1))(inp)
        m = keras.Model(inp, out)
        m.compile(loss='mse', optimizer=keras.optimizers.SGD(0.1), metrics=['mae'])
        m.fit(X / 2, X[:, 0], epochs=3, callbacks=[keras.callbacks.EarlyStopping(patience=2)])
        """
    )
    d = pm.to_dict()
    again = ProgramModel.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == json.loads(json.dumps(d))
    assert (
        again.models[0].layers[1].args["kernel_regularizer"].key()
        == pm.models[0].layers[1].args["kernel_regularizer"].key()
    )


def test_element_path_helpers():
    assert layer_path(0, 3, "activation") == "model[0].layer[3].activation"
    assert layer_path(1) == "model[1]"
    assert compile_path(0, "optimizer", "learning_rate") == "compile.optimizer.learning_rate"
    assert compile_path(1, "loss") == "compile[1].loss"
    assert fit_path(0, "callbacks", "EarlyStopping", "patience") == "fit.callbacks.EarlyStopping.patience"
    assert data_path("x_train", "preprocess", 2) == "data.x_train.preprocess[2]"
    assert data_path("y_train", "source") == "data.y_train.source"
    assert parse_path("fit[1].epochs") == [("fit", 1), ("epochs", None)]
    assert canonical_path("compile[0].loss") == "compile.loss"
    with pytest.raises(ValueError):
        parse_path("model[0]..layer")


_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(max_size=5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)


@given(st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=8))
def test_value_round_trip_and_key_stability(value):
    v = Value.const(value, text=repr(value), line=3)
    again = Value.from_dict(json.loads(json.dumps(v.to_dict())))
    assert again.key() == v.key()
    assert again.text == v.text and again.line == 3


@given(
    st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6), st.sampled_from(["+", "-", "*", "//", "%"])
)
def test_constant_folding_matches_python(a, b, op):
    from mutreal.extract import extract_source

    if op in ("//", "%") and b == 0:
        return
    expr = f"({a}) {op} ({b})"
    pm = extract_source(f"units = {expr}\nfrom keras.layers import Dense\nDense(units)\n")
    assert pm.models[0].layers[0].args["units"].value == eval(expr)


def test_in_place_changes_of_arrays_are_steps(ex):
    pm = ex(
        """
        import numpy as np
        y = np.array([1, 2, 2, 1])
        y[y == 2] = 0
        np.random.shuffle(y)
        x = [v * 2 for v in y]
        model.fit(x, y)
        """
    )
    assert ops(pm, "y_train") == ["setitem", "shuffle"]
    assert pm.data["y_train"].preprocess[0].text == "y[y == 2] = 0"
    assert ops(pm, "x_train") == ["setitem", "shuffle", "map"]


def test_wrapper_layers_carry_the_wrapped_layer(ex):
    pm = ex(
        """
        from keras.layers import TimeDistributed, Dense, Bidirectional, LSTM
        from keras.models import Sequential
        m = Sequential([Bidirectional(LSTM(8, return_sequences=True)), TimeDistributed(Dense(2))])
        """
    )
    bi, td = pm.models[0].layers
    assert bi.inner.cls == "LSTM" and bi.args["layer"].kwargs["return_sequences"].value is True
    assert td.inner.args["units"].value == 2 and td.args["layer"].name == "Dense"
    assert len(pm.models) == 1  # wrapped layers are not loose layers


def test_shapes_taken_from_data_fold_into_layer_arguments(ex):
    pm = ex(
        """
        import numpy as np
        from keras.models import Sequential
        from keras.layers import LSTM, Dense
        X = np.random.random((100, 50, 1)).astype('float32')
        flat = X.reshape(100, -1)
        model = Sequential([LSTM(4, input_shape=X.shape[1:]), Dense(1, input_dim=flat.shape[1])])
        model.fit(X, X[:, 0], batch_size=len(X))
        """
    )
    lstm, dense = pm.models[0].layers
    assert lstm.args["input_shape"].value == [50, 1]
    assert lstm.args["input_shape"].text == "X.shape[1:]"
    assert dense.args["input_shape"].value == [50]
    assert pm.fits[0].args["batch_size"].value == 100


def test_published_dataset_shapes_are_known(ex):
    pm = ex(
        """
        from keras.datasets import mnist
        from keras.layers import Dense
        (x_train, y_train), (x_test, y_test) = mnist.load_data()
        x_train = x_train.reshape(x_train.shape[0], -1) / 255
        Dense(10, input_shape=x_train.shape[1:])
        """
    )
    assert pm.models[0].layers[0].args["input_shape"].value == [784]


def test_eye_indexing_is_one_hot_of_the_labels(ex):
    pm = ex(
        """
        import numpy as np
        Y = np.random.randint(0, 3, size=(50,))
        Y = np.eye(3)[Y]
        model.fit(np.zeros(shape=(50, 4)), Y)
        """
    )
    y = pm.data["y_train"]
    assert y.source.kind == "random" and [o.op for o in y.preprocess] == ["one_hot"]
    assert y.preprocess[0].args["depth"].value == 3
    assert pm.data["x_train"].source.shape == [50, 4]


def test_multi_input_arrays_get_numbered_roles(ex):
    pm = ex("import numpy as np\na = np.zeros((2, 3))\nb = np.ones((2, 5))\nmodel.predict([a, b])\n")
    assert pm.data["x_pred"].source.shape == [2, 3]
    assert pm.data["x_pred_2"].source.shape == [2, 5]


def test_list_accumulation_becomes_one_array(ex):
    pm = ex(
        """
        import cv2
        import numpy as np
        data = []
        for path in paths:
            image = cv2.imread(path)
            data.append(image)
        data = np.array(data, dtype="float") / 255.0
        model.fit(data, labels)
        """
    )
    x = pm.data["x_train"]
    assert x.source.kind == "file" and x.source.reader == "imread"
    assert [o.op for o in x.preprocess] == ["stack", "astype", "divide"]


def test_evaluate_and_predict_calls_are_recorded(ex):
    pm = ex(
        """
        from keras.preprocessing.image import load_img, img_to_array
        x = img_to_array(load_img('cat.jpg'))
        x = x.reshape((1, 150, 150, 3))
        model.evaluate(x_test, y_test, batch_size=16)
        model.predict(x, 1)
        """
    )
    ev, pr = pm.evaluations
    assert ev.method == "evaluate" and ev.args["batch_size"].value == 16 and ev.index == 0
    assert pr.method == "predict" and pr.args["batch_size"].value == 1 and pr.index == 0
    assert pm.data["x_pred"].source.name == "cat.jpg" and pm.data["x_pred"].source.reader == "load_img"
    assert pm.data["x_test"].source.kind == "opaque"
    from mutreal.program.model import evaluation_path

    assert evaluation_path("predict_classes", 1, "batch_size") == "predict[1].batch_size"


def test_python_list_and_numpy_literal_sources_differ(ex):
    a = ex("x = [[0, 1], [1, 0]]\nmodel.fit(x, x)\n").data["x_train"].source
    b = ex("import numpy as np\nx = np.array([[0, 1], [1, 0]])\nmodel.fit(x, x)\n").data["x_train"].source
    assert a.shape == b.shape == [2, 2]
    assert a.key() != b.key() and a.name == "list"


def test_extracted_model_pickles_without_the_tree(ex):
    import pickle

    pm = ex(
        """
        import numpy as np
        from keras.models import Sequential
        from keras.layers import Dense
        x = np.random.rand(10, 3) / 2
        m = Sequential([Dense(4, input_shape=(3,)), Dense(1)])
        m.compile(loss='mse', optimizer='sgd', metrics=['mae'])
        m.fit(x, x[:, 0], epochs=2 * 3)
        """
    )
    blob = pickle.dumps(pm)
    assert b"libcst" not in blob
    again = pickle.loads(blob)
    assert again.to_dict() == pm.to_dict()
    assert again.fits[0].args["epochs"].text == "2 * 3"


def test_raw_tensorflow_with_keras_utilities_is_tensorflow(ex):
    pm = ex(
        """
        import tensorflow as tf
        from keras.datasets import mnist
        from keras.utils import to_categorical
        (x_train, y_train), _ = mnist.load_data()
        y_train = to_categorical(y_train)
        x = tf.placeholder(tf.float32, [None, 784])
        W = tf.Variable(tf.zeros([784, 10]))
        step = tf.train.AdamOptimizer(0.01).minimize(loss)
        """
    )
    assert pm.framework == "tensorflow" and pm.raw_tensorflow


def test_keras_model_with_gradient_tape_is_mixed_keras(ex):
    pm = ex(
        """
        import tensorflow as tf
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        """
    )
    assert pm.framework == "keras" and pm.raw_tensorflow
    assert any("mixes raw TensorFlow" in n for n in pm.notes)


def test_tf_data_pipeline_gives_arrays_and_batch_size(ex):
    pm = ex(
        """
        import numpy as np
        import tensorflow as tf
        x = np.random.rand(64, 3)
        y = np.random.randint(0, 2, size=(64,))
        ds = tf.data.Dataset.from_tensor_slices((x / 2, y)).shuffle(64).batch(16)
        model.fit(ds, epochs=2)
        """
    )
    assert pm.fits[0].args["batch_size"].value == 16
    assert [o.op for o in pm.data["x_train"].preprocess] == ["divide", "shuffle"]
    assert pm.data["y_train"].source.kind == "random"


def test_file_names_fold_through_path_joins(ex):
    pm = ex(
        """
        import os
        import pandas as pd
        DATA = 'data'
        df = pd.read_csv(os.path.join(DATA, 'train' + '.csv'))
        model.fit(df.values[:, :-1], df.values[:, -1])
        """
    )
    assert pm.data["x_train"].source.name == "data/train.csv"


@pytest.mark.parametrize("build", ["'pics/' + names[k]", "names[k] + '.png'", "'%s.jpg' % names[k]"])
def test_text_built_from_a_table_column_is_a_path_not_a_step(ex, build):
    """``"dir/" + df[i][0]`` builds a file name: no arithmetic step enters the image chain."""
    pm = ex(
        f"""
        import cv2
        import numpy as np
        import pandas as pd
        names = pd.read_csv("index.csv").values[:, 0]
        images = []
        for k in range(len(names)):
            images.append(cv2.imread({build}))
        images = np.array(images) / 255.0
        model.fit(images, targets)
        """
    )
    assert ops(pm, "x_train") == ["stack", "divide"]
    assert pm.data["x_train"].source.reader == "imread"


def test_program_without_fit_keeps_its_arrays_by_name(ex):
    """A posted snippet that never trains has no x_train role; its module-level arrays are kept by name."""
    pm = ex(
        """
        import numpy as np
        raw = np.random.rand(40, 6)
        scaled = raw / raw.max()
        """
    )
    assert pm.data == {} and not pm.fits
    assert [o.op for o in pm.untrained_data["scaled"].preprocess] == ["divide"]
    again = ProgramModel.from_dict(json.loads(json.dumps(pm.to_dict())))
    assert again.untrained_data["scaled"].to_dict() == pm.untrained_data["scaled"].to_dict()
    trained = ex(
        """
        import numpy as np
        raw = np.random.rand(40, 6)
        model.fit(raw / raw.max(), np.zeros(40))
        """
    )
    assert trained.untrained_data == {}
