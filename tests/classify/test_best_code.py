"""A best code for what no pass explains (decision best-code-statement), and one component per
inconsistency (decision one-inconsistency-one-component): read from what the changed part of a
statement touches, at low confidence, a component in graph code and a hint in Keras programs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statements import statements_of
from mutreal.label.best_code import RULES, best_code, best_code_components, parts_of, rule_code


def statement(text: str | None, path: str):
    """The first statement of ``text`` (a compound header is given a body)."""
    if not text:
        return None
    return statements_of(text + ("\n    pass\n" if text.endswith(":") else "\n"), path)[0]


def change(before: str | None, after: str | None) -> StatementChange:
    return StatementChange(statement(before, "b.py"), statement(after, "f.py"))


def test_the_part_that_differs_carries_its_call_and_keyword():
    [part] = parts_of(
        change("opt = tf.train.AdamOptimizer(1e-3)", "opt = tf.train.AdamOptimizer(1e-3, epsilon=0.1)")
    )
    assert (part.callee, part.keyword, part.target) == ("AdamOptimizer", "epsilon", "opt")


def test_what_a_change_touches_gives_its_code():
    cases = {
        (
            "opt = tf.train.AdamOptimizer(0.001)",
            "opt = tf.train.AdamOptimizer(0.001, epsilon=0.0001)",
        ): K.COMPILE_EPSILON,
        ("acc = est.evaluate(input_fn=f)", "acc = est.evaluate(input_fn=f, steps=10)"): K.EVALUATION_STEPS,
        (
            "cost = -tf.reduce_sum(y * tf.log(p))",
            "cost = -tf.reduce_sum(y * tf.log(tf.clip_by_value(p, 1e-10, 1.0)))",
        ): K.COMPILE_LOSS_CALCULATION,
        ("for i in range(20000):", "for i in range(200):"): K.FIT_EPOCHS,
        ("end = i + batch_size", "end = min(i + batch_size, len(x))"): K.DATA_BATCHING,
        ("feed = batch", "feed = np.expand_dims(batch, 1)"): K.DATA_RESHAPE,
        ("h = tf.reshape(h, [-1, 100])", "h = tf.reshape(h, [-1, 7 * 7 * 64])"): K.TENSOR_SHAPE,
        ("s = prep.StandardScaler().fit(x)", "s = prep.MinMaxScaler().fit(x)"): K.DATA_PREPROCESS,
        (None, "config.gpu_options.allow_growth = True"): K.SESSION_MEMORY,
        (None, "sess.run(tf.global_variables_initializer())"): K.MODEL_INITIALISATION,
    }
    for (before, after), kind in cases.items():
        found = best_code(change(before, after), graph=True)
        assert found is not None and found[1].kind is kind, (before, after, found)


def test_a_change_touching_nothing_the_table_names_has_no_code():
    assert best_code(change("threshold = 0.5", "threshold = 0.7"), graph=True) is None
    # another tensor handed to a shape function is no shape change
    assert best_code(change("g = tf.transpose(v)", "g = tf.transpose(self.v)"), graph=True) is None


def test_changes_that_feed_one_another_are_one_low_confidence_component():
    coupled = [
        change("end = i + batch_size", "end = min(i + batch_size, len(x))"),
        change("b = x[i:end].reshape((batch_size, 28))", "b = x[i:end].reshape((end - i, 28))"),
        change("opt = tf.train.AdamOptimizer(0.001)", "opt = tf.train.AdamOptimizer(0.001, epsilon=0.1)"),
    ]
    components = best_code_components(coupled, graph=True)
    assert [c.kind for c in components] == [K.DATA_BATCHING, K.COMPILE_EPSILON]
    assert components[0].detail["statements"] == 2
    assert all(c.evidence["best_code"] for c in components)


def test_removed_only_and_rewritten_additions_get_no_best_code():
    removed = [change("sess.run(tf.global_variables_initializer())", None)]
    assert best_code_components(removed, graph=True) == []
    added = [change(None, f"w{i} = tf.Variable(tf.zeros([{i}, 2]))") for i in range(6)]
    added.append(change(None, "sess.run(tf.global_variables_initializer())"))
    assert best_code_components(added, graph=True) == []


def test_in_graph_code_a_best_code_is_a_low_confidence_component(classify_texts):
    program = """\
import numpy as np
import tensorflow.compat.v1 as tf
x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.zeros([4, 2]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(10):
        sess.run(train, feed_dict={x: np.random.rand(8, 4), y: np.random.rand(8, 2)})
"""
    fixed = program.replace(
        "with tf.Session() as sess:",
        "config = tf.ConfigProto()\nconfig.gpu_options.allow_growth = True\nwith tf.Session(config=config) as sess:",
    )
    result = classify_texts(program, fixed)
    assert result.codes == ["MMR"]
    [component] = result.components
    assert component.confidence == "low" and "best code" in component.confidence_reason
    assert result.changed_statements == result.explained_statements == 3


def test_in_keras_programs_a_best_code_only_annotates_the_listed_change(classify_texts):
    program = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
x = np.random.rand(20, 3)
y = np.random.randint(0, 2, 20)
model = Sequential()
model.add(Dense(1, input_dim=3, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3, batch_size=4)
end = 4
model.fit(x[0:end], y[0:end], epochs=1)
"""
    result = classify_texts(program, program.replace("end = 4", "end = min(4, len(x))"))
    assert result.codes == []
    [item] = result.unexplained
    assert item["best_code"] == "HBI" and item["best_code_reason"] == RULES["batching"].why


_STATEMENTS = st.sampled_from(
    [
        "a = 1",
        "opt = tf.train.AdamOptimizer(0.01, epsilon=0.1)",
        "end = min(i + batch_size, len(x))",
        "for i in range(100):",
        "h = tf.reshape(h, [-1, 10])",
        "b = a + 1",
        "sess.run(tf.global_variables_initializer())",
    ]
)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), _STATEMENTS), st.one_of(st.none(), _STATEMENTS)), max_size=6))
def test_at_most_one_component_a_group_each_low_and_coded_by_the_table(pairs):
    changes = [change(b, f) for b, f in pairs if b or f]
    components = best_code_components(changes, graph=True)
    assert len(components) <= len(changes)
    kinds = {rule.kind for rule in RULES.values()}
    for c in components:
        assert c.kind in kinds and c.evidence["best_code"]


def test_graph_api_use_put_in_is_an_apw_component_taken_away_only_a_hint():
    """Decision APW-graph-api: the call itself put in, taken out or replaced is how the API is
    used; an argument of the same call changed is what it computes, not an API use. Where the fix
    uses the API where the buggy program did not, it is an APW component (the last resort of its
    group); where it only takes the machinery away, the change stays listed with its APW hint."""
    put_in = [
        (None, "tf.train.start_queue_runners(sess)"),
        ("data, label = read_data()", "data, label = sess.run([data_, label_])"),
        (None, "with tf.Graph().as_default():"),
    ]
    taken_away = [
        ("tf.reset_default_graph()", None),
        ("a, b = sess.run([x, y])", "a, b = x, y"),
        ("sess = tf.Session(graph=g)", "sess = tf.Session()"),
    ]
    for before, after in put_in + taken_away:
        found = best_code(change(before, after), graph=True)
        assert found is not None and found[0] == "graph api", (before, after, found)
        assert found[1].kind is K.GRAPH_API and rule_code(found[1]) == "APW"
    for before, after in put_in:
        [component] = best_code_components([change(before, after)], graph=True)
        assert component.kind is K.GRAPH_API, (before, after)
    for before, after in taken_away:
        assert best_code_components([change(before, after)], graph=True) == [], (before, after)
    # a variable scope is VSM's own kind (decision VSM-graph-scope), a name scope a hint only
    scope = best_code(change(None, "with tf.variable_scope(tf.get_variable_scope()):"), graph=True)
    assert scope is not None and rule_code(scope[1]) == "VSM" and scope[1].kind is K.GRAPH_VARIABLE_SCOPE
    names = best_code(change(None, "with tf.name_scope('a'):"), graph=True)
    assert names is not None and rule_code(names[1]) == "VSM" and names[1].kind is None
    assert best_code_components([change(None, "with tf.name_scope('a'):")], graph=True) == []
    # what a run is fed changed, or an assignment's value: no API use
    fed = change("sess.run(op, feed_dict={keep: 0.5})", "sess.run(op, feed_dict={keep: 1.0})")
    assert best_code(fed, graph=True) is None
    assert best_code(change("u = w.assign_add(r * d)", "u = w.assign_add(r * d / n)"), graph=True) is None
    # a row of the model, training or data wins over the API row, in a statement and in a group
    init = best_code(change(None, "sess.run(tf.global_variables_initializer())"), graph=True)
    assert init is not None and init[1].kind is K.MODEL_INITIALISATION
    group = [change(None, "sess = tf.Session()"), change(None, "sess.run(tf.global_variables_initializer())")]
    assert [c.kind for c in best_code_components(group, graph=True)] == [K.MODEL_INITIALISATION]
    # Keras programs: no graph API
    assert best_code(change("tf.reset_default_graph()", None), graph=False) is None


def test_the_api_put_in_is_a_component_taken_away_stays_listed(classify_texts):
    base = (
        "import numpy as np\nimport tensorflow.compat.v1 as tf\n"
        "x = tf.placeholder(tf.float32, [None, 3])\nw = tf.Variable(tf.zeros([3, 1]))\n"
        "bounded = w.assign(tf.clip_by_value(w, -1.0, 1.0))\n"
        "cost = tf.reduce_mean(tf.square(tf.matmul(x, w)))\n"
    )
    step = "step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)\n"
    run = "s = tf.Session()\nfor i in range(5):\n    s.run(step, feed_dict={x: np.ones((2, 3))})\n"
    waits = base + "with tf.control_dependencies([bounded]):\n    " + step + run
    result = classify_texts(base + step + run, waits)
    assert result.codes == ["APW"] and result.unexplained == []
    [component] = result.components
    assert component.confidence == "low" and "best code" in component.confidence_reason
    assert result.explained_statements == result.changed_statements == 1
    # the other way round: the fix takes the dependency away; listed with its hint, no component
    result = classify_texts(waits, base + step + run)
    assert result.codes == []
    [listed] = result.unexplained
    assert listed["change"] == "removed" and listed["best_code"] == "APW" and listed["best_code_reason"]
    assert result.explained_statements == 0 and result.changed_statements == 1
