"""RQ2 training-data rules: one test per rule of mutreal.label.data_class.RULES, plus the model adapter."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mutreal.known_datasets import known_datasets
from mutreal.label.data_class import (
    RULES,
    DataSourceFacts,
    TrainingData,
    classify_training_data,
    describe_training_data,
    find_known_file,
    is_truth_table,
)


def verdict(**kw) -> TrainingData:
    return classify_training_data(DataSourceFacts(**kw))


def test_rule_known_dataset_keras_uses_the_train_split():
    t = verdict(kind="keras_dataset", name="keras.datasets.mnist.load_data")
    assert (t.data_class, t.rule, t.dataset, t.size, t.test_size) == (
        "real",
        "known_dataset",
        "mnist",
        60000,
        10000,
    )
    assert verdict(kind="keras_dataset", name="cifar10").size == 50000
    assert verdict(kind="keras_dataset", name="tensorflow.keras.datasets.boston_housing").size == 404


def test_rule_known_dataset_sklearn_tfds_openml():
    t = verdict(kind="sklearn", name="sklearn.datasets.load_iris")
    assert (t.data_class, t.rule, t.dataset, t.size) == ("real", "known_dataset", "iris", 150)
    assert verdict(kind="sklearn", name="load_digits").size == 1797
    t = verdict(kind="tfds", name="tfds.load", arg="imdb_reviews")
    assert (t.dataset, t.size, t.test_size) == ("imdb", 25000, 25000)
    t = verdict(kind="sklearn", name="fetch_openml", arg="mnist_784")
    assert (t.rule, t.dataset, t.size) == ("known_dataset", "mnist", 70000)


def test_rule_published_loader():
    t = verdict(kind="keras_dataset", name="keras.datasets.some_new_set")
    assert (t.data_class, t.rule, t.dataset, t.size, t.confidence) == (
        "real",
        "published_loader",
        "some_new_set",
        None,
        "medium",
    )
    assert verdict(kind="tfds", arg="svhn_cropped").rule == "published_loader"


def test_rule_known_file():
    t = verdict(kind="file", name="data/pima-indians-diabetes.csv", reader="loadtxt")
    assert (t.data_class, t.rule, t.dataset, t.size) == ("real", "known_file", "pima_indians_diabetes", 768)
    assert verdict(kind="file", name=r"C:\Users\me\IRIS.DATA").dataset == "iris"
    assert verdict(kind="file", name="https://example.org/ml/sonar.all-data?raw=1").dataset == "sonar"
    assert find_known_file("housing.csv").name == "boston_housing"


def test_rule_unknown_file():
    t = verdict(kind="file", name="/home/me/my_measurements.csv", reader="read_csv")
    assert (t.data_class, t.rule, t.dataset, t.confidence) == (
        "unknown",
        "unknown_file",
        "my_measurements.csv",
        "low",
    )


def test_rule_sklearn_generator_sizes():
    t = verdict(kind="sklearn", name="sklearn.datasets.make_moons", size=500)
    assert (t.data_class, t.rule, t.dataset, t.size) == ("real", "sklearn_generator", "make_moons", 500)
    assert verdict(kind="sklearn", name="make_classification").size == 100  # sklearn's default n_samples


def test_rule_truth_table():
    t = verdict(kind="literal", values=[[0, 0], [0, 1], [1, 0], [1, 1]])
    assert (t.data_class, t.rule, t.size) == ("real", "truth_table", 4)
    assert is_truth_table(
        [[1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 1, 1], [1, 0, 1]]
    )
    assert is_truth_table([[[0, 0]], [[0, 1]], [[1, 0]], [[1, 1]]])
    assert not is_truth_table([[0, 0], [0, 1], [1, 0]])  # a combination missing
    assert not is_truth_table([[0, 0], [0, 0], [1, 0], [1, 1]])  # a repeat instead of [0, 1]
    assert is_truth_table([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])  # repeats
    assert not is_truth_table([[0, 2], [0, 1], [1, 0], [1, 1]])


def test_rule_literal_toy():
    t = verdict(kind="literal", values=[[1.5, 2.0, 3.1], [4.0, 5.2, 6.3]])
    assert (t.data_class, t.rule, t.size) == ("fake", "literal_toy", 2)


def test_rule_filled_at_runtime():
    t = verdict(kind="literal", values=[], shape=[0], text="np.array(images)")
    assert (t.data_class, t.rule, t.size) == ("unknown", "filled_at_runtime", None)
    assert verdict(kind="literal", shape=[0], text="np.array(dataX)").rule == "filled_at_runtime"
    buffer = verdict(kind="generated", name="numpy.zeros", text="np.zeros((len(sequences), 10000))")
    assert (buffer.data_class, buffer.rule) == ("unknown", "filled_at_runtime")


def test_rule_formula():
    assert verdict(kind="generated", name="numpy.linspace", shape=[200]).rule == "formula"
    t = verdict(kind="generated", name="numpy.linspace", shape=[200])
    assert (t.data_class, t.size) == ("real", 200)
    # random inputs, labels computed from them by a formula: a regression task on a formula
    t = verdict(
        kind="random", name="numpy.random.uniform", shape=[1000, 1], labels=DataSourceFacts(kind="formula")
    )
    assert (t.data_class, t.rule, t.size) == ("real", "formula", 1000)


def test_rule_placeholder():
    t = verdict(kind="generated", name="numpy.zeros", shape=[32, 28, 28, 1])
    assert (t.data_class, t.rule, t.size) == ("fake", "placeholder", 32)


def test_rule_random():
    t = verdict(kind="random", name="numpy.random.rand", shape=[1000, 20])
    assert (t.data_class, t.rule, t.size) == ("fake", "random", 1000)
    assert verdict(kind="random", name="np.random.randint", shape=None).size is None


def test_rule_generator():
    t = verdict(kind="generator", name="flow_from_directory", text="gen.flow_from_directory('train/')")
    assert (t.data_class, t.rule) == ("unknown", "generator")


def test_rule_no_facts():
    assert classify_training_data(None).rule == "no_facts"
    assert verdict(kind="opaque", text="load_my_data()").data_class == "unknown"


def test_every_rule_has_a_test():
    """Keeps RULES and this file in step: a new rule needs its own test above."""
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    for rule in RULES:
        assert f"def test_rule_{rule}" in source or f"test_rule_{rule}_" in source, rule


def test_known_table_is_consistent():
    names = [d.name for d in known_datasets()]
    assert len(names) == len(set(names))
    for d in known_datasets():
        assert d.total_size or d.train_size, d.name
        if d.train_size and d.test_size and d.total_size:
            assert d.train_size + d.test_size == d.total_size, d.name
        assert d.keras or d.sklearn or d.tfds or d.openml or d.files, d.name
    files = [f.lower() for d in known_datasets() for f in d.files]
    assert len(files) == len(set(files))


@given(st.lists(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=4))
def test_random_size_is_the_first_dimension(shape):
    t = verdict(kind="random", name="numpy.random.normal", shape=shape)
    assert t.data_class == "fake" and t.size == shape[0]


def test_round_trips():
    f = DataSourceFacts(kind="random", name="x", shape=[3, 2], labels=DataSourceFacts(kind="formula"))
    assert DataSourceFacts.from_dict(f.to_dict()) == f
    t = verdict(kind="keras_dataset", name="mnist")
    assert TrainingData.from_dict(t.to_dict()) == t
    assert t.to_dict()["class"] == "real"


# ------------------------------------------------------------------------- adapter from the model


def _program(**roles):
    from mutreal.program import model
    data = {role: model.DataVar(role=role, var=var, source=src) for role, (var, src) in roles.items()}
    return model, model.ProgramModel(data=data)


def test_describe_known_keras_dataset():
    from mutreal.program import model
    src = model.DataSource(kind="keras_dataset", name="mnist", text="mnist.load_data()")
    _, prog = _program(x_train=("x_train", src), y_train=("y_train", src))
    assert describe_training_data(prog).to_dict()["dataset"] == "mnist"


def test_describe_xor_literal_from_source_text():
    from mutreal.program import model
    src = model.DataSource(kind="literal", shape=[4, 2], text="np.array([[0, 0], [0, 1], [1, 0], [1, 1]])")
    _, prog = _program(x_train=("X", src))
    t = describe_training_data(prog)
    assert (t.data_class, t.rule, t.size) == ("real", "truth_table", 4)


def test_describe_random_inputs_with_formula_labels():
    from mutreal.program import model
    x = model.DataSource(
        kind="random", name="numpy.random.uniform", shape=[500, 1], text="np.random.uniform(0, 1, (500, 1))"
    )
    y = model.DataSource(kind="opaque", text="np.sin(2 * np.pi * xs)")
    _, prog = _program(x_train=("xs", x), y_train=("ys", y))
    assert describe_training_data(prog).rule == "formula"
    y_random = model.DataSource(kind="random", text="np.random.randint(0, 2, 500)")
    _, prog = _program(x_train=("xs", x), y_train=("ys", y_random))
    assert describe_training_data(prog).rule == "random"


def test_describe_tfds_and_missing_data():
    from mutreal.program import model
    src = model.DataSource(kind="opaque", name="tfds.load", text="tfds.load('mnist', split='train')")
    _, prog = _program(x_train=("ds", src))
    assert describe_training_data(prog).dataset == "mnist"
    _, empty = _program()
    assert describe_training_data(empty).rule == "no_facts"


def test_describe_unresolved_inputs_fall_back_to_the_labels_loader():
    from mutreal.program import model
    x = model.DataSource(kind="opaque", text="X_train")
    y = model.DataSource(kind="keras_dataset", name="imdb", text="imdb.load_data(num_words=5000)")
    _, prog = _program(x_train=("X_train", x), y_train=("y_train", y))
    t = describe_training_data(prog)
    assert (t.dataset, t.data_class, t.extra["from_role"]) == ("imdb", "real", "y_train")
    # labels written out do not tell where the inputs come from
    y_lit = model.DataSource(kind="literal", text="[0, 1, 1, 0]")
    _, prog = _program(x_train=("X_train", x), y_train=("y_train", y_lit))
    assert describe_training_data(prog).rule == "no_facts"


def test_describe_with_the_models_bare_sklearn_names_and_grids():
    from mutreal.program import model
    src = model.DataSource(kind="sklearn", name="iris", text="datasets.load_iris()")
    _, prog = _program(x_train=("X", src))
    assert (describe_training_data(prog).dataset, describe_training_data(prog).size) == ("iris", 150)
    gen = model.DataSource(
        kind="sklearn", name="moons", shape=[300, 2], size=300, text="make_moons(n_samples=300)"
    )
    _, prog = _program(x_train=("X", gen))
    t = describe_training_data(prog)
    assert (t.rule, t.dataset, t.size) == ("sklearn_generator", "make_moons", 300)
    grid = model.DataSource(
        kind="generated", name="numpy.arange", text="np.arange(0.0, 5.0, 0.1, dtype='float32')"
    )
    _, prog = _program(x_train=("xs", grid))
    assert describe_training_data(prog).size == 50
    f = model.DataSource(kind="file", name="data_path", reader="read_csv", text="pd.read_csv(data_path)")
    _, prog = _program(x_train=("X", f))
    t = describe_training_data(prog)
    assert (t.rule, t.dataset) == ("unknown_file", None)


def test_compressed_copy_of_a_known_file():
    assert find_known_file("data/mnist_train.csv.zip").name == "mnist"
    assert find_known_file("data/unknown.csv.gz") is None
