"""One test per normalisation rule of the extractor (aliases, legacy names, eras, folding, ...)."""

from __future__ import annotations

import pytest

from mutreal.program import keras_api
from mutreal.program.model import CONST, ProgramModel


def only_layers(pm: ProgramModel, model: int = 0):
    return pm.models[model].layers


# --- alias and module-path resolution -------------------------------------------------------------


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import tensorflow as tf", "tf.keras.layers.Dense"),
        ("from tensorflow import keras as K", "K.layers.Dense"),
        ("from tensorflow.keras import layers", "layers.Dense"),
        ("from keras.layers.core import Dense as D", "D"),
        ("from keras.layers import *", "Dense"),
        ("import keras", "keras.layers.Dense"),
        ("from tensorflow.python.keras.layers import Dense", "Dense"),
    ],
)
def test_alias_resolution_gives_canonical_layer(ex, imports, call):
    pm = ex(
        f"""
        {imports}
        from keras.models import Sequential
        m = Sequential()
        m.add({call}(8, activation='relu'))
        """
    )
    (layer,) = only_layers(pm)
    assert layer.cls == "Dense" and layer.known
    assert layer.args["units"].value == 8


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("Convolution2D(8, (3, 3))", "Conv2D"),
        ("MaxPool2D()", "MaxPooling2D"),
        ("AvgPool1D()", "AveragePooling1D"),
    ],
)
def test_legacy_layer_class_names_are_canonical(ex, written, canonical):
    pm = ex(
        f"""
        from tensorflow.keras.layers import *
        from tensorflow.keras.models import Sequential
        m = Sequential([{written}])
        """
    )
    assert only_layers(pm)[0].cls == canonical
    assert keras_api.canonical_layer(written.split("(")[0]) == canonical


# --- legacy keyword spellings ---------------------------------------------------------------------


def test_legacy_kwargs_map_to_keras2_names(ex):
    old = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense, Convolution2D
        from keras.regularizers import l2
        m = Sequential()
        m.add(Convolution2D(nb_filter=16, nb_row=3, nb_col=3, border_mode='same', subsample=(2, 2), input_shape=(28, 28, 1)))
        m.add(Dense(output_dim=10, init='he_normal', W_regularizer=l2(0.01), input_dim=784))
        m.compile(loss='mse', optimizer='sgd')
        m.fit(x, y, nb_epoch=5)
        """
    )
    new = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense, Conv2D
        from keras import regularizers
        m = Sequential()
        m.add(Conv2D(filters=16, kernel_size=(3, 3), padding='same', strides=2, input_shape=(28, 28, 1)))
        m.add(Dense(units=10, kernel_initializer='he_normal', kernel_regularizer=regularizers.l2(0.01), input_shape=(784,)))
        m.compile(loss='mse', optimizer='sgd')
        m.fit(x, y, epochs=5)
        """
    )
    for a, b in zip(only_layers(old), only_layers(new), strict=True):
        assert a.cls == b.cls
        assert {k: v.key() for k, v in a.args.items()} == {k: v.key() for k, v in b.args.items()}
    assert old.fits[0].args["epochs"].value == new.fits[0].args["epochs"].value == 5
    assert old.era == "keras1"


def test_legacy_optimizer_lr_is_learning_rate(ex):
    pm = ex(
        """
        from keras.optimizers import Adam
        model.compile(loss='mse', optimizer=Adam(lr=0.01))
        """
    )
    assert pm.compiles[0].optimizer.args["learning_rate"].value == 0.01
    assert "lr" not in pm.compiles[0].optimizer.args


# --- era-aware positional arguments ---------------------------------------------------------------


def test_convolution2d_positional_is_era_aware(ex):
    code = """
        from keras.models import Sequential
        from keras.layers import Convolution2D
        m = Sequential()
        m.add(Convolution2D(32, 3, 3, input_shape=(1, 28, 28)))
        """
    k1 = only_layers(ex(code, era="keras1"))[0]
    assert k1.args["filters"].value == 32
    assert k1.args["kernel_size"].value == [3, 3]
    assert "strides" not in k1.args
    # standalone Keras 2's legacy interface still read three integers as filters, rows, cols
    k2 = only_layers(ex(code, era="keras2"))[0]
    assert k2.args["kernel_size"].value == [3, 3] and "strides" not in k2.args
    # tf.keras and Keras 3 have no such interface: the third integer is the stride
    for era in ("tf2", "keras3"):
        tf = only_layers(ex(code, era=era))[0]
        assert tf.args["kernel_size"].value == [3, 3]
        assert tf.args["strides"].value == [3, 3]
    assert keras_api.positional_params("Conv2D", "tf2")[:3] == ("filters", "kernel_size", "strides")


def test_convolution2d_three_ints_alone_is_keras1_evidence(ex):
    pm = ex(
        """
        from keras.layers import Convolution2D
        from keras.models import Sequential
        m = Sequential([Convolution2D(32, 3, 3)])
        """
    )
    assert pm.era == "keras1"
    assert any("Convolution2D" in e for e in pm.era_evidence)


# --- string vs object spellings -------------------------------------------------------------------


@pytest.mark.parametrize(
    "loss",
    [
        "'mse'",
        "'mean_squared_error'",
        "keras.losses.mean_squared_error",
        "keras.losses.MeanSquaredError()",
        "'MSE'",
    ],
)
def test_loss_spellings_compare_equal(ex, loss):
    pm = ex(f"import keras\nmodel.compile(loss={loss}, optimizer='adam')\n")
    assert pm.compiles[0].loss.key() == (CONST, "mean_squared_error")


def test_loss_object_with_from_logits_differs(ex):
    pm = ex("import keras\nmodel.compile(loss=keras.losses.CategoricalCrossentropy(from_logits=True))\n")
    plain = ex("import keras\nmodel.compile(loss='categorical_crossentropy')\n")
    assert pm.compiles[0].loss.name == "categorical_crossentropy"
    assert pm.compiles[0].loss.key() != plain.compiles[0].loss.key()


def test_string_and_object_optimizer_compare_equal_with_defaults(ex):
    s = ex("import keras\nmodel.compile(loss='mse', optimizer='adam')\n").compiles[0].optimizer
    o = (
        ex("import keras\nmodel.compile(loss='mse', optimizer=keras.optimizers.Adam())\n")
        .compiles[0]
        .optimizer
    )
    e = ex("import keras\nmodel.compile(loss='mse', optimizer=keras.optimizers.Adam(learning_rate=0.001))\n")
    assert s.cls == o.cls == "Adam"
    assert s.spelling == "string" and o.spelling == "object"
    assert s.arg("learning_rate").same(o.arg("learning_rate"))
    assert s.arg("learning_rate").same(e.compiles[0].optimizer.arg("learning_rate"))


def test_activation_spellings_compare_equal(ex):
    pm = ex(
        """
        import tensorflow as tf
        m = tf.keras.Sequential([
            tf.keras.layers.Dense(4, activation='relu'),
            tf.keras.layers.Dense(4, activation=tf.nn.relu),
            tf.keras.layers.Dense(4, activation=tf.keras.activations.relu),
        ])
        """
    )
    keys = {layer.args["activation"].key() for layer in only_layers(pm)}
    assert keys == {(CONST, "relu")}


# --- defaults per era -----------------------------------------------------------------------------


def test_implicit_and_explicit_defaults_compare_equal(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        m = Sequential([Dense(3), Dense(3, activation=None), Dense(3, activation='linear', use_bias=True,
                        kernel_initializer='glorot_uniform')])
        """
    )
    a, b, c = only_layers(pm)
    for arg in ("activation", "use_bias", "kernel_initializer"):
        assert a.arg(arg, pm.era).same(b.arg(arg, pm.era))
        assert a.arg(arg, pm.era).same(c.arg(arg, pm.era))
    assert a.arg("activation", pm.era).implicit


@pytest.mark.parametrize(
    "era, adadelta, adagrad, recurrent",
    [
        ("keras1", 1.0, 0.01, "hard_sigmoid"),
        ("keras2", 1.0, 0.01, "hard_sigmoid"),
        ("tf2", 0.001, 0.001, "sigmoid"),
        ("keras3", 0.001, 0.001, "sigmoid"),
    ],
)
def test_defaults_differ_per_era(ex, era, adadelta, adagrad, recurrent):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import LSTM
        m = Sequential([LSTM(8)])
        m.compile(loss='mse', optimizer='adadelta')
        m2 = Sequential([LSTM(8)])
        m2.compile(loss='mse', optimizer='adagrad')
        """,
        era=era,
    )
    assert pm.era == era
    assert pm.compiles[0].optimizer.arg("learning_rate", era).value == adadelta
    assert pm.compiles[1].optimizer.arg("learning_rate", era).value == adagrad
    assert only_layers(pm)[0].arg("recurrent_activation", era).value == recurrent
    assert keras_api.default_arg("Adadelta", "learning_rate", era) == adadelta


def test_epochs_default_per_era(ex):
    assert ex("model.fit(x, y)", era="keras1").fits[0].arg("epochs", "keras1").value == 10
    assert ex("model.fit(x, y)", era="tf2").fits[0].arg("epochs", "tf2").value == 1


def test_era_detection_from_imports(ex):
    assert ex("from tensorflow.keras.layers import Dense\n").era == "tf2"
    assert ex("from keras.layers import Dense\n").era == "keras2"
    assert ex("import keras\nfrom keras import ops\n").era == "keras3"
    pm = ex("from keras.layers import Dense\nmodel.fit(x, y, nb_epoch=3)\n")
    assert pm.era == "keras1" and pm.era_evidence
    mixed = ex("from keras.layers import Dense\nDense(3, init='uniform')\nmodel.fit(x, y, epochs=3)\n")
    assert mixed.era == "keras2" and "Keras 2" in mixed.era_evidence[-1]


# --- constant folding -----------------------------------------------------------------------------


def test_constant_folding_through_variables_and_arithmetic(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        from keras.optimizers import SGD
        lr = 0.01
        hidden = 32 * 2
        EPOCHS = 10 + 5
        shape = (28 * 28,)
        m = Sequential([Dense(hidden, input_shape=shape)])
        m.compile(loss='mse', optimizer=SGD(lr=lr / 10))
        m.fit(x, y, epochs=EPOCHS, batch_size=2 ** 5)
        """
    )
    layer = only_layers(pm)[0]
    assert layer.args["units"].value == 64
    assert layer.args["units"].text == "hidden"
    assert layer.args["input_shape"].value == [784]
    assert pm.compiles[0].optimizer.args["learning_rate"].value == pytest.approx(0.001)
    assert pm.fits[0].args["epochs"].value == 15
    assert pm.fits[0].args["batch_size"].value == 32


def test_value_moved_into_variable_has_same_key(ex):
    a = ex(
        "from keras.layers import Dense\nfrom keras.models import Sequential\nm = Sequential([Dense(5)])\n"
    )
    b = ex(
        "from keras.layers import Dense\nfrom keras.models import Sequential\nn = 5\nm = Sequential([Dense(n)])\n"
    )
    assert only_layers(a)[0].args["units"].same(only_layers(b)[0].args["units"])


# --- loops ----------------------------------------------------------------------------------------


def test_literal_loop_is_unrolled(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        m = Sequential()
        for units in [64, 32]:
            m.add(Dense(units, activation='relu'))
        for _ in range(3):
            m.add(Dense(8))
        m.add(Dense(1))
        """
    )
    layers = only_layers(pm)
    assert [layer.args["units"].value for layer in layers] == [64, 32, 8, 8, 8, 1]
    assert layers[2].origin == "loop"


def test_loop_with_unknown_bound_runs_once(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        m = Sequential()
        for _ in range(n_layers):
            m.add(Dense(8))
        """
    )
    assert len(only_layers(pm)) == 1


# --- functional API -------------------------------------------------------------------------------


def test_functional_api_traces_layer_order_and_inbound(ex):
    pm = ex(
        """
        from keras.layers import Input, Dense, Dropout, concatenate
        from keras.models import Model
        inp = Input(shape=(10,))
        a = Dense(16, activation='relu')(inp)
        b = Dense(8, activation='tanh')(inp)
        x = concatenate([a, b])
        x = Dropout(0.5)(x)
        out = Dense(1, activation='sigmoid')(x)
        model = Model(inputs=inp, outputs=out)
        model.compile(loss='binary_crossentropy', optimizer='adam')
        """
    )
    (model,) = pm.models
    assert model.kind == "functional"
    assert [layer.cls for layer in model.layers] == [
        "Input",
        "Dense",
        "Dense",
        "Concatenate",
        "Dropout",
        "Dense",
    ]
    assert model.layers[3].inbound == [1, 2]
    assert model.layers[5].args["activation"].value == "sigmoid"
    assert pm.compiles[0].model == 0


# --- helper functions, several models, subclassing -----------------------------------------------------


def test_helper_function_is_inlined_per_call(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense

        def build(units, act='relu'):
            model = Sequential()
            model.add(Dense(units, activation=act))
            model.add(Dense(1))
            return model

        small = build(4)
        big = build(64, act='tanh')
        big.compile(loss='mse', optimizer='adam')
        big.fit(x, y, epochs=3)
        """
    )
    assert len(pm.models) == 2
    assert pm.models[0].layers[0].args["units"].value == 4
    assert pm.models[1].layers[0].args["activation"].value == "tanh"
    assert pm.models[0].layers[0].origin == "helper"
    assert pm.compiles[0].model == 1 and pm.fits[0].model == 1


def test_function_never_called_is_still_extracted(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        def create_model():
            m = Sequential([Dense(12, input_dim=8), Dense(1, activation='sigmoid')])
            m.compile(loss='binary_crossentropy', optimizer='adam')
            return m
        clf = KerasClassifier(build_fn=create_model, epochs=150)
        """
    )
    assert len(pm.models) == 1 and len(pm.models[0].layers) == 2
    assert pm.compiles[0].loss.value == "binary_crossentropy"


def test_several_models_are_indexed_in_source_order(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        gen = Sequential([Dense(5)])
        disc = Sequential([Dense(1)])
        disc.compile(loss='binary_crossentropy', optimizer='adam')
        gen.compile(loss='mse', optimizer='sgd')
        disc.fit(x, y)
        """
    )
    assert [m.var for m in pm.models] == ["gen", "disc"]
    assert [c.model for c in pm.compiles] == [1, 0]
    assert pm.fits[0].model == 1


def test_subclassed_model_layers_from_init(ex):
    pm = ex(
        """
        import tensorflow as tf
        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.d1 = tf.keras.layers.Dense(32, activation='relu')
                self.drop = tf.keras.layers.Dropout(0.2)
                self.d2 = tf.keras.layers.Dense(10)
            def call(self, x):
                return self.d2(self.drop(self.d1(x)))
        model = Net()
        model.compile(optimizer='adam', loss='sparse_categorical_crossentropy')
        """
    )
    (model,) = pm.models
    assert model.kind == "subclass" and model.cls == "Net"
    assert [layer.cls for layer in model.layers] == ["Dense", "Dropout", "Dense"]
    assert pm.compiles[0].model == 0


# --- activation layers ------------------------------------------------------------------------------


def test_activation_layer_folds_into_previous_layer(ex):
    split = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense, Activation
        m = Sequential([Dense(10), Activation('softmax')])
        """
    )
    inline = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        m = Sequential([Dense(10, activation='softmax')])
        """
    )
    assert len(split.models[0].layers) == 2
    fs, fi = split.models[0].folded_layers(), inline.models[0].folded_layers()
    assert len(fs) == len(fi) == 1
    assert fs[0].activation.same(fi[0].activation)
    assert fs[0].sources == [0, 1]


# --- opaque values --------------------------------------------------------------------------------


def test_unresolvable_values_stay_opaque_with_text_and_are_counted(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        m = Sequential([Dense(get_units(), activation='relu'), Dense(n_out)])
        m.compile(loss='mse', optimizer='adam')
        """
    )
    first, second = only_layers(pm)
    assert first.args["units"].is_opaque and first.args["units"].text == "get_units()"
    assert second.args["units"].is_opaque and second.args["units"].text == "n_out"
    opaque, total = pm.opaque_counts()
    assert opaque == 2 and total == 3 + 2  # 3 layer args, loss and optimizer (no hyperparameters)
    assert pm.opaque_share() == pytest.approx(2 / 5)


# --- regularizers and initializers --------------------------------------------------------------


def test_regularizer_spellings_compare_equal(ex):
    keys = set()
    for reg in (
        "l2(0.01)",
        "regularizers.l2(0.01)",
        "regularizers.L2(l2=0.01)",
        "'l2'",
        "l1_l2(l1=0, l2=0.01)",
    ):
        pm = ex(
            f"""
            from keras import regularizers
            from keras.regularizers import l2, l1_l2
            from keras.layers import Dense
            from keras.models import Sequential
            m = Sequential([Dense(3, kernel_regularizer={reg})])
            """
        )
        keys.add(only_layers(pm)[0].args["kernel_regularizer"].key())
    assert len(keys) == 1


def test_initializer_object_and_string_compare_equal(ex):
    a = ex(
        "import tensorflow as tf\nm = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer='he_normal')])"
    )
    b = ex(
        "import tensorflow as tf\n"
        "m = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.HeNormal())])"
    )
    assert only_layers(a)[0].args["kernel_initializer"].same(only_layers(b)[0].args["kernel_initializer"])


def test_tf2_shortcut_modules_are_keras(ex):
    pm = ex(
        """
        import tensorflow as tf
        model.compile(optimizer=tf.optimizers.Adam(0.01), loss=tf.losses.MeanSquaredError())
        """
    )
    assert pm.compiles[0].optimizer.cls == "Adam"
    assert pm.compiles[0].optimizer.args["learning_rate"].value == 0.01
    assert pm.compiles[0].loss.value == "mean_squared_error"


def test_layer_specific_legacy_kwargs_only_apply_to_their_layer():
    assert keras_api.canonical_kwarg("Dropout", "p") == "rate"
    assert keras_api.canonical_kwarg("Dense", "p") == "p"
    assert keras_api.canonical_kwarg("LeakyReLU", "negative_slope", "keras3") == "alpha"
    assert keras_api.canonical_kwarg("ReLU", "negative_slope") == "negative_slope"
    assert keras_api.canonical_kwarg("Embedding", "output_dim") == "output_dim"
    assert keras_api.canonical_kwarg("LSTM", "output_dim") == "units"
    assert keras_api.canonical_kwarg("Embedding", "init") == "embeddings_initializer"


def test_constant_conditions_select_one_branch(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense, Dropout
        USE_DROPOUT = False
        DEPTH = 2
        m = Sequential([Dense(8)])
        if USE_DROPOUT:
            m.add(Dropout(0.5))
        elif DEPTH > 1:
            m.add(Dense(4))
        else:
            m.add(Dense(2))
        if unknown_flag:
            m.add(Dense(3))
        """
    )
    assert [layer.args.get("units").value for layer in pm.models[0].layers] == [8, 4, 3]


def test_pooling_strides_default_to_pool_size(ex):
    pm = ex(
        """
        from keras.layers import MaxPooling2D
        from keras.models import Sequential
        m = Sequential([MaxPooling2D(), MaxPooling2D(pool_size=(3, 3), strides=3), MaxPooling2D(3)])
        """
    )
    a, b, c = pm.models[0].layers
    assert a.arg("strides").value == [2, 2] and a.arg("strides").implicit
    assert b.arg("strides").same(c.arg("strides"))


def test_snippets_without_imports_still_resolve_keras_names(ex):
    pm = ex(
        """
        opt = Adagrad(lr=0.1)
        model = kr.Sequential()
        model.add(kr.layers.Dense(4, activation='relu'))
        model.compile(loss='mse', optimizer=opt)
        model.fit(x, y, callbacks=[EarlyStopping(patience=2)])
        """
    )
    assert pm.compiles[0].optimizer.cls == "Adagrad"
    assert pm.compiles[0].optimizer.args["learning_rate"].value == 0.1
    assert pm.models[0].layers[0].cls == "Dense"
    assert pm.fits[0].callbacks[0].cls == "EarlyStopping"


def test_layers_and_callbacks_collected_in_lists(ex):
    pm = ex(
        """
        from keras.layers import Input, Dense
        from keras.models import Model
        from keras.callbacks import EarlyStopping
        inp = Input(shape=(4,))
        h = Dense(8)(inp)
        outs = []
        for name in names:
            outs.append(Dense(2, activation='sigmoid')(h))
        cbs = []
        cbs.append(EarlyStopping(patience=4))
        model = Model(inputs=inp, outputs=outs)
        model.fit(x, y, callbacks=cbs)
        """
    )
    assert [layer.cls for layer in pm.models[0].layers] == ["Input", "Dense", "Dense"]
    assert pm.fits[0].callbacks[0].args["patience"].value == 4
    assert len(pm.models) == 1


def test_frozen_layers_and_loops_over_layer_lists(ex):
    pm = ex(
        """
        from keras.models import Sequential
        from keras.layers import Dense
        blocks = [Dense(16), Dense(8)]
        model = Sequential()
        for block in blocks:
            model.add(block)
        model.layers[0].trainable = False
        for layer in model.layers[1:]:
            layer.trainable = True
        n = len(model.layers)
        model.add(Dense(n))
        """
    )
    layers = pm.models[0].layers
    assert [layer.args["units"].value for layer in layers] == [16, 8, 2]
    assert layers[0].args["trainable"].value is False
    assert layers[1].args["trainable"].value is True and "trainable" not in layers[2].args


def test_optimizer_positional_arguments_follow_the_era(ex):
    code = "import keras\nmodel.compile(loss='mse', optimizer=keras.optimizers.SGD(0.1, 0.9, 1e-6, True))\n"
    k2 = ex(code, era="keras2").compiles[0].optimizer
    assert k2.args["decay"].value == 1e-6 and k2.args["nesterov"].value is True
    tf = ex("import keras\nmodel.compile(optimizer=keras.optimizers.SGD(0.1, 0.9, True))\n", era="tf2")
    assert tf.compiles[0].optimizer.args["nesterov"].value is True


def test_metric_spellings(ex):
    a = ex("import keras\nmodel.compile(loss='mse', metrics=['acc'])\n").compiles[0].metrics
    b = (
        ex("import keras\nmodel.compile(loss='mse', metrics=[keras.metrics.Accuracy()])\n")
        .compiles[0]
        .metrics
    )
    c = ex("import keras\nmodel.compile(loss='mse', metrics=['accuracy'])\n").compiles[0].metrics
    assert a.same(b) and a.same(c) and a.value == ["accuracy"]


def test_plain_relu_layer_folds_like_an_activation_layer(ex):
    pm = ex(
        """
        import tensorflow as tf
        m = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.ReLU(), tf.keras.layers.Dense(2),
                                 tf.keras.layers.ReLU(max_value=6.0)])
        """
    )
    folded = pm.models[0].folded_layers()
    assert [f.layer.cls for f in folded] == ["Dense", "Dense", "ReLU"]
    assert folded[0].activation.value == "relu" and folded[0].sources == [0, 1]


def test_list_comprehensions_of_layers(ex):
    pm = ex(
        """
        import tensorflow as tf
        UNITS = [64, 32]
        m = tf.keras.Sequential([tf.keras.layers.Dense(u, activation='relu') for u in UNITS])
        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = [tf.keras.layers.Dense(8) for _ in range(3)]
                self.out = tf.keras.layers.Dense(1)
        net = Net()
        sizes = [2 * k for k in range(3)]
        """
    )
    assert [layer.args["units"].value for layer in pm.models[0].layers] == [64, 32]
    assert [layer.args["units"].value for layer in pm.models[1].layers] == [8, 8, 8, 1]
