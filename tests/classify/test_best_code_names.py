"""Values followed through names and function arguments (decision best-code-through-names): a
number assigned to a name coded by what reads it, a flag by its name, a loop by its count with its
side's numbers, a helper's argument or an initial value's first argument as a variable's shape."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statements import statements_of
from mutreal.label.best_code import best_code, best_code_components, parts_of
from mutreal.label.followed_values import Context, constants, shape_helpers


def side(text: str, path: str):
    return statements_of(text, path)


def at(statements, prefix: str):
    return next(s for s in statements if s.text.startswith(prefix) or s.source.startswith(prefix))


def context_of(buggy, fixed) -> Context:
    return Context(
        shape_helpers=shape_helpers(buggy) + shape_helpers(fixed),
        constants=(constants(buggy), constants(fixed)),
        sides=(tuple(buggy), tuple(fixed)),
    )


def coded(before: str, after: str, prefix_b: str, prefix_f: str | None = None, graph: bool = True):
    b, f = side(before, "b.py"), side(after, "f.py")
    found = best_code(StatementChange(at(b, prefix_b), at(f, prefix_f or prefix_b)), graph, context_of(b, f))
    return None if found is None else found[1].kind


def test_a_flag_is_coded_by_its_name():
    assert (
        coded(
            "tf.app.flags.DEFINE_integer('max_steps', 1000000, 'steps to run')\n",
            "tf.app.flags.DEFINE_integer('max_steps', 100, 'steps to run')\n",
            "tf.app.flags",
        )
        is K.FIT_EPOCHS
    )
    assert (
        coded(
            "parser.add_argument('-b', '--batch-size', type=int, default=32)\n",
            "parser.add_argument('-b', '--batch-size', type=int, default=8)\n",
            "parser",
        )
        is K.FIT_BATCH_SIZE
    )
    # a flag whose name the table does not name: nothing
    assert coded("flags.DEFINE_string('data_dir', '/a', 'x')\n", "flags.DEFINE_string('data_dir', '/b', 'x')\n", "flags") is None


def test_an_initial_values_first_argument_is_the_variables_shape():
    before = "w = tf.Variable(tf.random_normal([224 * 224 * 3, 1024]))\n"
    assert coded(before, before.replace("224 * 224 * 3", "56 * 56 * 64"), "w =") is K.TENSOR_SHAPE
    # its spread is its initialisation, and NumPy's normal(loc, scale, size) no variable's shape
    assert coded(
        "w = tf.Variable(tf.random_normal([8, 2], stddev=1.0))\n",
        "w = tf.Variable(tf.random_normal([8, 2], stddev=0.1))\n",
        "w =",
    ) is K.LAYER_KERNEL_INITIALIZER
    assert coded("d = np.random.normal(0, 1, [3])\n", "d = np.random.normal(1, 1, [3])\n", "d =") is None


def test_a_helpers_argument_that_becomes_a_variables_shape():
    helper = (
        "def weight_variable(shape):\n"
        "    initial = tf.truncated_normal(shape, stddev=0.1)\n"
        "    return tf.Variable(initial)\n"
    )
    before = helper + "W_fc1 = weight_variable([7 * 7 * 64, 1024])\n"
    after = helper + "W_fc1 = weight_variable([8 * 8 * 64, 1024])\n"
    assert coded(before, after, "W_fc1") is K.TENSOR_SHAPE
    # a helper that does something else with its argument: no shape
    other = "def scaled(shape):\n    return tf.Variable(tf.zeros([2])) * shape[0]\n"
    assert coded(other + "v = scaled([3, 4])\n", other + "v = scaled([5, 4])\n", "v =") is None


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 5000), st.integers(0, 3))
def test_a_loops_count_is_read_with_its_sides_numbers(n, m, start):
    before = f"num_steps = {n}\nfor step in range({start}, num_steps + {start}):\n    sess.run(train_op)\n"
    after = f"for i in range({m}):\n    sess.run(train_op)\n"
    b, f = side(before, "b.py"), side(after, "f.py")
    change = StatementChange(at(b, "for"), at(f, "for"))
    found = best_code_components([change], True, context_of(b, f))
    if n == m:
        assert found == []  # the same count: no budget change
    else:
        [component] = found
        assert component.kind is K.FIT_EPOCHS and component.evidence["best_code"]
        assert (component.detail["before_number"], component.detail["after_number"]) == (n, m)


def test_a_name_bound_twice_is_no_constant():
    assert constants(side("n = 3\nn = 4\nk = 2\nj = k\n", "x.py")) == {"k": 2.0}


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0001, 10, allow_nan=False), st.floats(0.0001, 10, allow_nan=False))
def test_a_number_is_coded_by_the_statement_that_reads_it(a, c):
    program = "BETA = {}\nloss = cost + BETA * tf.nn.l2_loss(w)\n"
    found = coded(program.format(a), program.format(c), "BETA")
    assert found is (None if a == c else K.LAYER_REGULARIZER)
    # read by nothing the table names: left unexplained
    unread = "limit = {}\nshown = limit * 2\n"
    assert coded(unread.format(a), unread.format(c), "limit") is None
    # Keras programs: no best code through names (the passes follow values there)
    assert coded(program.format(1), program.format(2), "BETA", graph=False) is None


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5000), st.booleans())
def test_a_loop_put_around_the_training_is_its_budget(n, named):
    body = "    sess.run(train_op, feed_dict={x: xs})\n"
    setup = "train_op = tf.train.AdamOptimizer(0.1).minimize(loss)\n"
    bound = f"steps = {n}\n" if named else ""
    loop = f"for i in range({'steps' if named else n}):\n"
    before, after = setup + "if True:\n" + body, setup + bound + loop + body
    b, f = side(before, "b.py"), side(after, "f.py")
    change = StatementChange(None, at(f, "for"))
    [component] = best_code_components([change], True, context_of(b, f))
    assert component.kind is K.FIT_EPOCHS
    assert (component.detail["before_number"], component.detail["after_number"]) == (1, n)
    # a loop around what does not train (a report, a data step) is no budget
    report = setup + bound + loop + "    print(i)\n"
    f2 = side(report, "f.py")
    assert best_code_components([StatementChange(None, at(f2, "for"))], True, context_of(b, f2)) == []


def test_a_loaders_one_hot_flag_is_the_labels_encoding():
    found = coded(
        "mnist = input_data.read_data_sets('/tmp/data/', one_hot=False)\n",
        "mnist = input_data.read_data_sets('/data/MNIST/', one_hot=True)\n",
        "mnist",
    )
    assert found is K.DATA_PREPROCESS
    # the same flag on both sides, another folder: nothing the table names
    same = "mnist = input_data.read_data_sets('{}', one_hot=True)\n"
    assert coded(same.format("/a"), same.format("/b"), "mnist") is None


def test_a_tensorflow_calls_arguments_put_in_its_signatures_form_is_apw():
    """Decision APW-graph-api: the same values handed to a TensorFlow function in another form
    (grouped into a list, another order, a required argument added with the others kept)."""
    for before, after in [
        ("r = tf.image.resize_images(images, 224, 224)\n", "r = tf.image.resize_images(images, [224, 224])\n"),
        ("s = tf.strided_slice(t, [0], [n])\n", "s = tf.strided_slice(t, [0], [n], [1])\n"),
        ("c = tf.nn.conv2d(phi, x, strides=[1, 1, 1, 1])\n", "c = tf.nn.conv2d(x, phi, strides=[1, 1, 1, 1])\n"),
    ]:
        b, f = side(before, "b.py"), side(after, "f.py")
        change = StatementChange(b[0], f[0])
        [component] = best_code_components([change], True, context_of(b, f))
        assert component.kind is K.GRAPH_API, (before, after)
    # another value, or the program's own function: no signature
    assert coded("r = tf.image.resize_images(images, 224, 224)\n", "r = tf.image.resize_images(images, 128, 128)\n", "r") is None
    assert coded("m = Model(a, b)\n", "m = Model(a, b, c)\n", "m") is None
    # an attribute handed over changed (a collection renamed): no change of form
    saver = StatementChange(
        side("s = tf.train.Saver(tf.get_collection(tf.GraphKeys.VARIABLES))\n", "b.py")[0],
        side("s = tf.train.Saver(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))\n", "f.py")[0],
    )
    assert not any(p.signature for p in parts_of(saver))
