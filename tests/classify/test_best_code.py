"""A best code for what no pass explains (decision best-code-statement), and one component per
inconsistency (decision one-inconsistency-one-component): read from what the changed part of a
statement touches, at low confidence, a component in graph code and a hint in Keras programs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.best_code import RULES, best_code, best_code_components, parts_of
from mutreal.compare.coverage import StatementChange
from mutreal.compare.kinds import ComponentKind as K
from mutreal.compare.statements import statements_of


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
