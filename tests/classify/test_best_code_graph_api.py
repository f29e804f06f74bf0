"""Graph code's best codes for a TensorFlow function used otherwise (decisions APD-graph-removed-api,
APW-graph-function, IWF-graph-dtype, LWC-graph-update), each pinned both ways: a change it codes
and a near one it must leave to another row, or unexplained."""

from __future__ import annotations

from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.label.best_code import best_code, best_code_components

from .test_best_code import change


def kind_of(before: str | None, after: str | None) -> K | None:
    found = best_code(change(before, after), graph=True)
    return found[1].kind if found is not None else None


def kinds(*changes: StatementChange) -> list[K]:
    return [c.kind for c in best_code_components(list(changes), graph=True)]


def test_a_removed_summary_function_alone_is_a_deprecated_api():
    assert kinds(change("tf.merge_all_summaries()", None)) == [K.GRAPH_DEPRECATED_API]
    assert kinds(change("w = tf.train.SummaryWriter('logs', sess.graph)", None)) == [K.GRAPH_DEPRECATED_API]


def test_a_removed_summary_function_beside_another_change_is_left_for_the_reader():
    rate = change("opt = tf.train.AdamOptimizer(0.1)", "opt = tf.train.AdamOptimizer(0.001)")
    assert kinds(change("tf.merge_all_summaries()", None), rate) == [K.COMPILE_LEARNING_RATE]
    # the table still names it, as a hint on the listed change
    assert kind_of("tf.merge_all_summaries()", None) is K.GRAPH_DEPRECATED_API


def test_a_removed_function_replaced_is_a_deprecated_api_beside_other_changes():
    old = change(
        "out, fw, bw = tf.nn.bidirectional_rnn(cf, cb, xs)",
        "out, fw = tf.nn.bidirectional_dynamic_rnn(cf, cb, xs)",
    )
    rate = change("opt = tf.train.AdamOptimizer(0.1)", "opt = tf.train.AdamOptimizer(0.001)")
    assert sorted(kinds(old, rate)) == sorted([K.GRAPH_DEPRECATED_API, K.COMPILE_LEARNING_RATE])
    # a function of today's API, or a removed one the fixed program still calls, is no such change
    assert (
        kind_of("out = tf.nn.dynamic_rnn(c, xs)", "out = tf.nn.static_rnn(c, xs)")
        is not K.GRAPH_DEPRECATED_API
    )
    assert (
        kind_of("h = tf.nn.rnn(c, xs)", "h = tf.nn.rnn(c, xs, dtype=tf.float32)")
        is not K.GRAPH_DEPRECATED_API
    )


def test_a_call_only_taken_away_beside_other_changes_may_be_a_cut():
    rate = change("opt = tf.train.AdamOptimizer(0.1)", "opt = tf.train.AdamOptimizer(0.001)")
    assert kinds(change("h = tf.nn.rnn(c, xs)", None), rate) == [K.COMPILE_LEARNING_RATE]


def test_a_cast_put_around_a_value_handed_over_is_its_input_format():
    assert kind_of("z = tf.matmul(x, y)", "z = tf.matmul(x, tf.cast(y, tf.float32))") is K.DATA_INPUT_FORMAT
    assert (
        kind_of(
            "o, s = tf.nn.dynamic_rnn(c, e, dtype=tf.float32)",
            "o, s = tf.nn.dynamic_rnn(c, e, dtype=tf.float64)",
        )
        is K.DATA_INPUT_FORMAT
    )


def test_a_cast_in_a_loss_is_the_loss_and_a_dtype_taken_away_is_no_type_change():
    assert (
        kind_of(
            "cost = tf.reduce_mean(tf.square(p - y))",
            "cost = tf.reduce_mean(tf.square(p - tf.cast(y, tf.float32)))",
        )
        is K.COMPILE_LOSS_CALCULATION
    )
    assert kind_of("o = tf.nn.dynamic_rnn(c, e, dtype=tf.float32)", "o = tf.nn.dynamic_rnn(c, e)") is None


def test_the_type_of_a_value_gives_way_to_an_element_of_its_group():
    cast = change("h = tf.matmul(x, w)", "h = tf.matmul(tf.cast(x, tf.float32), w)")
    shape = change("x = tf.placeholder(tf.int32, [None, 3])", "x = tf.placeholder(tf.int32, [None, 4])")
    assert kinds(cast, shape) == [K.TENSOR_SHAPE]


def test_labels_read_in_another_encoding_by_an_evaluation():
    assert (
        kind_of(
            "hit = tf.equal(tf.argmax(p, 1), tf.argmax(y, 1))",
            "hit = tf.equal(tf.argmax(p, 1), tf.cast(y, dtype=tf.int64))",
        )
        is K.DATA_PREPROCESS
    )
    # outside a comparison the same replacement is no evaluation's labels
    assert kind_of("k = tf.argmax(y, 1)", "k = tf.cast(y, tf.int64)") is not K.DATA_PREPROCESS


def test_one_tensorflow_function_for_another_is_an_api_use():
    assert kind_of("p = tf.matmul(a, b)", "p = tf.tensordot(a, b, axes=[[1], [0]])") is K.GRAPH_API
    assert kind_of("t = tf.zeros([1, 2])", "t = tf.Variable([0, 0])") is K.GRAPH_API
    assert kinds(change("t = tf.zeros([1, 2])", "t = tf.Variable([0, 0])")) == [K.GRAPH_API]


def test_functions_of_other_libraries_or_rows_of_their_own_are_not_the_api():
    assert kind_of("p = np.sum(a)", "p = np.mean(a)") is None
    assert kind_of("h = tf.nn.relu(z)", "h = tf.nn.sigmoid(z)") is K.LAYER_ACTIVATION
    # a variable's initial value drawn otherwise is its initialisation, not the API
    assert (
        kind_of(
            "w = tf.get_variable('w', [3, 2], initializer=tf.zeros_initializer())",
            "w = tf.get_variable('w', [3, 2], initializer=tf.glorot_uniform_initializer())",
        )
        is K.LAYER_KERNEL_INITIALIZER
    )


def test_a_with_block_written_for_an_expression_reads_the_calls_of_both():
    rewrite = change("d = control_flow_ops.with_dependencies([d], x)", "with tf.control_dependencies([d]):")
    assert kinds(rewrite) == [K.GRAPH_API]
    assert kinds(change("f = open(path)", "with open(path) as f:")) == []


def test_a_hand_written_weight_update_computed_otherwise_is_its_loss_calculation():
    assert (
        kind_of(
            "up = w.assign_add(learning_rate * (pos - neg))",
            "up = w.assign_add(learning_rate * (pos - neg) / tf.cast(tf.shape(x)[0], tf.float32))",
        )
        is K.COMPILE_LOSS_CALCULATION
    )
    # the rate's number is not the update's calculation; an assign with no rate is no weight update
    assert (
        kind_of("up = w.assign_add(0.1 * g)", "up = w.assign_add(0.01 * g)") is not K.COMPILE_LOSS_CALCULATION
    )
    assert kind_of("n = step.assign(step + 1)", "n = step.assign(step + 2)") is not K.COMPILE_LOSS_CALCULATION


def test_a_queues_shapes_and_a_reductions_axes_are_tensor_shapes():
    assert kind_of("shapes=[1024, 1024, 3]", "shapes=[[1024, 3]]") is K.TENSOR_SHAPE
    assert kind_of(None, "e = tf.reduce_sum(embedded, [1])") is K.TENSOR_SHAPE
    assert kind_of("m, v = tf.nn.moments(x, axes=[0])", "m, v = tf.nn.moments(x, axes=[1])") is K.TENSOR_SHAPE
    # a reduction over every axis (an accuracy's mean) changes no shape the graph relies on
    assert kind_of(None, "acc = tf.reduce_mean(hits)") is None


def test_keras_programs_keep_their_hints():
    """Graph code's rows are for graph code: a Keras program's change keeps the hint it had."""
    found = best_code(change("p = tf.matmul(a, b)", "p = tf.tensordot(a, b, axes=[[1], [0]])"), graph=False)
    assert found is None
    assert best_code(change("tf.merge_all_summaries()", None), graph=False) is None


def test_a_numpy_array_given_another_shape_on_one_side_is_the_fed_data_shape():
    assert kind_of(None, "batch = np.expand_dims(batch, 0)") is K.DATA_RESHAPE
    assert kind_of("image = np.expand_dims(image, axis=4)", None) is K.DATA_RESHAPE
    # a tensor's new axis is the graph's, and a step that also computes is no reshape alone
    assert kind_of(None, "h = tf.expand_dims(h, 0)") is not K.DATA_RESHAPE
    assert kind_of(None, "batch = np.expand_dims(batch / 255.0, 0).astype(np.float32)") is not K.DATA_RESHAPE


def test_another_dimension_of_a_shape_read_is_a_tensor_shape():
    assert (
        kind_of("if n != x.get_shape().as_list()[0]:", "if n != x.get_shape().as_list()[1]:")
        is K.TENSOR_SHAPE
    )
    assert kind_of("rows = tf.shape(x)[0]", "rows = tf.shape(x)[1]") is K.TENSOR_SHAPE
    # another number beside the same dimension is not
    assert kind_of("if n > x.get_shape().as_list()[0]:", "if n > 2 * x.get_shape().as_list()[0]:") is None
    assert kind_of("if count > 3:", "if count > 4:") is None


def test_a_helper_told_which_activation_is_the_activation():
    assert kind_of("out = dense(h, 10)", "out = dense(h, 10, activation=None)") is K.LAYER_ACTIVATION
    assert kind_of("out = dense(h, 10)", "out = dense(h, 10, name='out')") is None


def test_a_version_assert_alone_is_the_api_version_and_beside_others_the_benchmarks():
    assert kinds(change(None, 'assert tf.__version__ > "0.5.0"')) == [K.GRAPH_DEPRECATED_API]
    rate = change("opt = tf.train.AdamOptimizer(0.1)", "opt = tf.train.AdamOptimizer(0.001)")
    assert kinds(change(None, 'assert tf.__version__ == "1.8.0"'), rate) == [K.COMPILE_LEARNING_RATE]
    assert kinds(change(None, "assert x.shape[0] > 0")) == []


def test_a_tensor_handed_to_constant_replaced_by_a_value_is_an_api_use():
    fix = change(
        "t = tf.constant(tf.random_normal([2, 2]))", "t = tf.constant(np.random.normal(size=(2, 2)))"
    )
    assert kinds(fix) == [K.GRAPH_API]
    # a value replaced by another value is no API use
    assert kinds(change("t = tf.constant([1, 2])", "t = tf.constant(np.arange(2))")) == []


def test_removed_statements_are_the_fix_only_where_nothing_else_is():
    cut = change("batch = np.expand_dims(batch, axis=4)", None)
    assert kinds(cut) == []  # the fixed program may have cut it
    assert [c.kind for c in best_code_components([cut], graph=True, alone=True)] == [K.DATA_RESHAPE]
    other = change("opt = tf.train.AdamOptimizer(0.1)", "opt = tf.train.AdamOptimizer(0.001)")
    assert [c.kind for c in best_code_components([cut, other], graph=True, alone=True)] == [
        K.COMPILE_LEARNING_RATE
    ]
    # an initialiser's run taken away: the fixed program may initialise nothing any more
    init = change("sess.run(tf.global_variables_initializer())", None)
    assert best_code_components([init], graph=True, alone=True) == []


def test_a_variable_scope_put_in_is_its_own_component_a_name_scope_is_not():
    assert kinds(change(None, "with tf.variable_scope('output'):")) == [K.GRAPH_VARIABLE_SCOPE]
    assert kinds(change(None, "tf.get_variable_scope().reuse_variables()")) == [K.GRAPH_VARIABLE_SCOPE]
    assert kinds(change(None, "with tf.name_scope('output'):")) == []
    # a scope only taken away may be a cut
    assert kinds(change("with tf.variable_scope('output'):", None)) == []


def test_a_removed_function_gives_way_to_an_element_its_statement_also_changes():
    both = change("h = tf.reshape(tf.mul(x, 0.5), [-1, 10])", "h = tf.reshape(tf.multiply(x, 0.5), [-1, 20])")
    assert kinds(both) == [K.TENSOR_SHAPE]
    # an initialiser TensorFlow only deprecated still runs: no deprecated API
    assert kind_of("init = tf.initialize_all_variables()", None) is not K.GRAPH_DEPRECATED_API


def test_a_loops_shape_invariants_are_tensor_shapes():
    before = "i, y = tf.while_loop(cond, body, [i0, y0])"
    after = "i, y = tf.while_loop(cond, body, [i0, y0], shape_invariants=[i0.get_shape(), tf.TensorShape([None])])"
    assert kind_of(before, after) is K.TENSOR_SHAPE
    # the loop's other keywords are not its shapes
    assert (
        kind_of(before, "i, y = tf.while_loop(cond, body, [i0, y0], back_prop=False)") is not K.TENSOR_SHAPE
    )


def test_a_removed_summary_function_beside_a_passes_component_is_the_readers():
    summary = change("tf.merge_all_summaries()", None)
    assert [c.kind for c in best_code_components([summary], graph=True, alone=True)] == [
        K.GRAPH_DEPRECATED_API
    ]
    assert best_code_components([summary], graph=True, alone=False) == []
