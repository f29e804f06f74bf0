"""Which changed statements a component's fix takes with it: a value its changed part reads, a
branch put around its statements, a feed matched to the placeholder it changed; and what it does
not take (a value read only where both sides agree, a loop put around it)."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from mutreal.compare.coverage import cover
from mutreal.compare.fix_extent import changed_reads
from mutreal.compare.statement_diff import StatementChange
from mutreal.compare.statements import statements_of


def _statements(source: str, path: str) -> list:
    return statements_of(source, path, ast.parse(source))


def _cover(buggy: str, fixed: str, buggy_line: int, fixed_line: int):
    component = SimpleNamespace(
        buggy_file="b.py", buggy_line=buggy_line, fixed_file="f.py", fixed_line=fixed_line, detail={},
        before=None, after=None,
    )
    return cover(_statements(buggy, "b.py"), _statements(fixed, "f.py"), [component])


def _open(coverage) -> set[str]:
    return {(c.fixed or c.buggy).written for c in coverage.open}


BUGGY = """\
x = load()
x = x * 2
m = 3
train(x, epochs=m)
"""


def test_a_value_read_only_where_both_sides_agree_is_no_part_of_the_fix():
    # the component is the epochs' change; ``x`` is read by the training call on both sides alike
    fixed = BUGGY.replace("x * 2", "x * 3").replace("m = 3", "m = 30")
    coverage = _cover(BUGGY, fixed, 4, 4)
    assert _open(coverage) == {"x = x * 3"}
    assert coverage.explained == 1  # ``m = 30``: the value the component compared


def test_a_value_the_changed_part_reads_comes_with_the_fix():
    fixed = BUGGY.replace("x * 2", "x * 3").replace("train(x, epochs=m)", "train(x * 1, epochs=m)")
    coverage = _cover(BUGGY, fixed, 4, 4)
    assert _open(coverage) == set()
    assert coverage.explained == 2


def test_changed_reads_are_those_of_the_differing_part():
    b, f = (_statements(s, p)[0] for s, p in (("fit(x, y, epochs=n)", "b.py"), ("fit(x, y, epochs=k)", "f.py")))
    assert changed_reads(StatementChange(b, f)) == (frozenset({"n"}), frozenset({"k"}))
    assert changed_reads(StatementChange(b, None)) == (b.reads, frozenset())


def test_a_branch_put_around_the_fix_is_the_fix_a_loop_is_not():
    buggy = "a = read()\nb = scale(a)\nrun(b)\n"
    branch = "a = read()\nif a is not None:\n    b = scale(a, 2)\nrun(b)\n"
    coverage = _cover(buggy, branch, 2, 3)
    assert _open(coverage) == set()
    loop = "a = read()\nfor _ in range(5):\n    b = scale(a, 2)\nrun(b)\n"
    assert _open(_cover(buggy, loop, 2, 3)) == {"for _ in range(5):"}


GRAPH = """\
import tensorflow as tf
labels = tf.placeholder(tf.float32, [None])
loss = tf.reduce_mean(labels)
train = tf.train.AdamOptimizer().minimize(loss)
with tf.Session() as sess:
    sess.run(train, feed_dict={labels: y[:, None]})
"""


def test_a_feed_matched_to_the_changed_placeholder_is_one_fix_another_feed_change_is_not():
    fixed = GRAPH.replace("[None])", "[None, 1])").replace("y[:, None]", "y")
    assert _open(_cover(GRAPH, fixed, 2, 2)) == set()
    other = fixed.replace("{labels: y}", "{labels: y, rate: 0.5}")
    assert _open(_cover(GRAPH, other, 2, 2)) == {"sess.run(train, feed_dict={labels: y, rate: 0.5})"}


def test_a_default_the_component_reads_comes_with_it():
    buggy = "def build(lr=0.1):\n    return make(lr)\nmodel = build()\n"
    fixed = buggy.replace("lr=0.1", "lr=0.01")
    assert _open(_cover(buggy, fixed, 2, 2)) == set()


def test_a_getter_whose_value_is_dropped_is_what_a_notebook_shows():
    [dropped, kept] = _statements("model.layers[0].get_weights()\nw = model.get_weights()\n", "b.py")
    assert dropped.noise == "prints" and kept.noise is None


def test_the_count_of_a_loop_around_the_component_comes_with_it():
    buggy = "epochs = 120\nfor i in range(epochs):\n    fit(x, epochs=1)\n"
    fixed = buggy.replace("120", "1")
    assert _open(_cover(buggy, fixed, 3, 3)) == set()
    apart = "epochs = 120\nfor i in range(epochs):\n    step(x)\nfit(x, epochs=1)\n"
    assert _cover(apart, apart.replace("120", "1"), 4, 4).explained == 0


def test_values_the_post_read_from_outside_and_the_benchmark_wrote_in_complete_the_snippet():
    buggy = "import json\nparams = json.load(open('p.json'))\nn = int(sys.argv[1])\nfit(x, epochs=params['epochs'], batch_size=n)\n"
    fixed = "import json\nbatch = 8\nfit(x, epochs=20, batch_size=batch)\n"
    coverage = _cover(buggy, fixed, 4, 3)
    assert coverage.noise.get("completed_snippet") == 4  # the file read, argv read, fit, ``batch = 8``
    assert coverage.changed == 0
    # a value the program itself holds is compared: its change is a change
    own = "epochs = 5\nfit(x, epochs=epochs)\n"
    assert "completed_snippet" not in _cover(own, "fit(x, epochs=20)\n", 2, 1).noise


def test_a_post_cut_down_to_its_fault_counts_the_cut_apart_from_the_changes():
    lines = [f"v{i} = step{i}(v{i - 1})" for i in range(1, 12)]
    buggy = "model = build()\nv0 = read()\n" + "\n".join(lines) + "\nmodel.fit(v11, epochs=3)\n"
    fixed = "model = build()\nv0 = read()\nv1 = step1(v0, 2)\n"
    coverage = _cover(buggy, fixed, 3, 3)
    assert coverage.noise.get("cut_program") == 11  # v2 ... v11 and the training that crashed
    assert (coverage.changed, coverage.explained) == (1, 1)
    # the same removals beside a fix that writes much anew are no cut
    anew = fixed + "\n".join(f"w{i} = other{i}(v1)" for i in range(8)) + "\n"
    assert "cut_program" not in _cover(buggy, anew, 3, 3).noise


def test_summaries_and_the_loops_that_only_write_them_are_logging_a_loop_of_prints_is_not():
    source = (
        "for var in tf.trainable_variables():\n"
        "    tf.summary.histogram(var.op.name, var)\n"
        "acc_summary = tf.summary.scalar('acc', acc)\n"
        "for i in range(3):\n"
        "    print(sess.run(x))\n"
    )
    loop, histogram, summary, prints, shown = _statements(source, "b.py")
    assert (loop.noise, histogram.noise, summary.noise) == ("result_file_paths", "result_file_paths", "logging")
    assert prints.noise is None and shown.noise == "prints"


def test_the_loop_a_training_budget_counted_is_that_component():
    buggy = "for i in range(1):\n    model.fit(x, y, epochs=10)\n"
    fixed = buggy.replace("range(1)", "range(100)")
    budget = SimpleNamespace(
        buggy_file="b.py", buggy_line=2, fixed_file="f.py", fixed_line=2, detail={},
        before="10 (x1 loop)", after="10 (x100 loop)",
    )
    covered = cover(_statements(buggy, "b.py"), _statements(fixed, "f.py"), [budget])
    assert (covered.changed, covered.explained) == (1, 1)
    # a component of the same statement that counted no loop leaves the loop's change open
    other = SimpleNamespace(**{**vars(budget), "before": "10", "after": "20"})
    assert cover(_statements(buggy, "b.py"), _statements(fixed, "f.py"), [other]).explained == 0


def test_another_imported_function_or_base_class_is_no_rename():
    from mutreal.compare.statement_diff import renamed

    head = "from keras import backend as K\nfrom keras.layers import Layer\nfrom keras.models import Model\n"
    a = head + "y = K.tanh(x)\nclass R(Model):\n    pass\nys = K.relu(xs)\n"
    b = a.replace("K.tanh", "K.sigmoid").replace("R(Model)", "R(Layer)").replace("K.relu(xs)", "K.relu(inputs)")
    pairs = [
        StatementChange(s, t)
        for s, t in zip(_statements(a, "a.py"), _statements(b, "b.py"), strict=True)
        if s.written != t.written
    ]
    assert [renamed(c) for c in pairs] == [False, False, True]


def test_a_cached_header_ends_where_its_own_body_ends():
    cache: dict = {}
    short = "class R(Layer):\n    def call(self, x):\n        return x\n"
    longer = "class R(Layer):\n    def call(self, x):\n        y = x\n        return y\n"
    statements_of(short, "a.py", ast.parse(short), cache)
    header = statements_of(longer, "b.py", ast.parse(longer), cache)[0]
    assert header.end == 4


def test_a_while_loop_around_logging_is_no_noise_its_end_is_behaviour():
    loop, log = _statements("while True:\n    logging.info('waiting')\n", "b.py")
    assert log.noise == "logging" and loop.noise is None


def test_a_channels_first_branch_never_runs_on_tensorflow_its_else_does():
    source = (
        "if K.image_data_format() == 'channels_first':\n"
        "    shape = (1, 28, 28)\n"
        "else:\n"
        "    shape = (28, 28, 1)\n"
    )
    header, first, last = _statements(source, "b.py")
    assert header.noise == first.noise == "api_spelling" and last.noise is None
    other = _statements(source.replace("channels_first", "channels_last"), "b.py")
    assert [s.noise for s in other] == [None, None, None]


def test_a_restored_model_the_benchmark_drops_is_set_up_computed_weights_are_not():
    buggy = "model = build()\nmodel.load_weights('run.h5')\nmodel.fit(x, y, epochs=3)\n"
    fixed = "model = build()\nmodel.fit(x, y, epochs=3)\n"
    assert _cover(buggy, fixed, 3, 2).noise.get("restored_model") == 1
    computed = "model = build()\nmodel.set_weights(start)\nmodel.fit(x, y, epochs=3)\n"
    assert "restored_model" not in _cover(computed, fixed, 3, 2).noise


def test_statements_on_the_loaded_data_read_from_the_made_up_arrays_are_the_swap():
    buggy = "train = pd.read_csv('t.csv')\ntop = np.max(train['z'].values)\nmodel.fit(x, top, epochs=2)\n"
    fixed = "z = np.random.random(100)\ntop = np.max(z)\nmodel.fit(x, top, epochs=2)\n"
    coverage = _cover(buggy, fixed, 3, 3)
    assert coverage.noise.get("synthetic_data_source", 0) >= 2 and coverage.changed == 0
    # the same statement computing something else on the made-up data is a change
    other = fixed.replace("np.max(z)", "np.min(z)")
    assert _cover(buggy, other, 3, 3).changed == 1


def test_a_reduction_s_axes_under_another_keyword_are_the_same_statement():
    [a, b, c] = _statements(
        "m, v = tf.nn.moments(x, axes=[1])\nm, v = tf.nn.moments(x, axis=[1])\nm, v = tf.nn.moments(x, axis=[0])\n",
        "b.py",
    )
    assert a.text == b.text != c.text
