"""RQ1 correspondence: one test per rule, on small programs written here."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from mutreal.commands.correspond import correspond as correspond_cli
from mutreal.study.correspond import (
    CORRESPONDS,
    DIFFERS,
    ERROR,
    NOTHING,
    Correspondence,
    correspond,
    iter_correspond_manifest,
)

IMPORTS = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Activation
from keras.optimizers import SGD
"""
DATA = """\
x_train = np.loadtxt('pima-indians-diabetes.csv', delimiter=',')[:, 0:8]
y_train = np.loadtxt('pima-indians-diabetes.csv', delimiter=',')[:, 8]
x_train = x_train / 255.0
"""
MODEL = """\
model = Sequential()
model.add(Dense(12, input_dim=8, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
"""
COMPILE = "model.compile(loss='binary_crossentropy', optimizer=SGD(lr=0.01), metrics=['accuracy'])\n"
FIT = "model.fit(x_train, y_train, epochs=150, batch_size=10)\n"
FULL = IMPORTS + DATA + MODEL + COMPILE + FIT


def put(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_same_program_modulo_noise_corresponds(tmp_path: Path) -> None:
    noisy = (
        IMPORTS
        + DATA.replace("x_train", "features").replace("y_train", "labels")
        + "net = Sequential()\nnet.add(Dense(12, input_dim=8))\nnet.add(Activation('relu'))\n"
        + "net.add(Dense(1, activation='sigmoid', name='out'))\n"
        + "rate = 0.01\nnet.compile(optimizer=SGD(lr=rate), metrics=['acc'], loss='binary_crossentropy')\n"
        + "print('training')\nnet.fit(features, labels, batch_size=10, epochs=150, verbose=0)\n"
    )
    c = correspond(put(tmp_path, "post.py", FULL), put(tmp_path, "bench.py", noisy))
    assert c.status == CORRESPONDS and c.corresponds is True, c.differences
    assert {"models", "compile", "fit"} <= set(c.compared)


def test_changed_hyperparameter_is_listed(tmp_path: Path) -> None:
    program = FULL.replace("lr=0.01", "lr=0.5").replace("epochs=150", "epochs=1")
    c = correspond(put(tmp_path, "post.py", FULL), put(tmp_path, "bench.py", program))
    assert c.status == DIFFERS and c.corresponds is False
    by_kind = {d.kind: d for d in c.differences}
    assert {"compile.learning_rate", "fit.epochs"} <= set(by_kind)
    assert by_kind["fit.epochs"].code == "HNE" and by_kind["compile.learning_rate"].code == "HLR"
    assert by_kind["fit.epochs"].source_line is not None


def test_rule_models_only_source_compares_the_model_only(tmp_path: Path) -> None:
    post = IMPORTS + MODEL  # a post showing only the model
    c = correspond(
        put(tmp_path, "post.py", post), put(tmp_path, "bench.py", FULL.replace("epochs=150", "epochs=1"))
    )
    assert c.status == CORRESPONDS, c.differences
    assert c.compared == ["models"] and {"compile", "fit"} <= set(c.not_compared)
    changed = correspond(
        put(tmp_path, "post2.py", post), put(tmp_path, "bench2.py", FULL.replace("'sigmoid'", "'softmax'"))
    )
    assert changed.status == DIFFERS and [d.kind for d in changed.differences] == ["layer.activation"]


def test_rule_compile_compared_when_the_source_compiles(tmp_path: Path) -> None:
    post = IMPORTS + MODEL + COMPILE
    program = FULL.replace("'binary_crossentropy'", "'mean_squared_error'")
    c = correspond(put(tmp_path, "post.py", post), put(tmp_path, "bench.py", program))
    assert c.status == DIFFERS and [d.kind for d in c.differences] == ["compile.loss"]
    assert "fit" in c.not_compared


def test_rule_fit_compared_when_the_source_trains(tmp_path: Path) -> None:
    post = IMPORTS + MODEL + COMPILE + FIT
    program = FULL.replace("batch_size=10", "batch_size=64")
    c = correspond(put(tmp_path, "post.py", post), put(tmp_path, "bench.py", program))
    assert [d.kind for d in c.differences] == ["fit.batch_size"] and "fit" in c.compared


def test_rule_data_compared_only_for_roles_the_source_has(tmp_path: Path) -> None:
    post = IMPORTS + MODEL + COMPILE  # no data in the post
    c = correspond(put(tmp_path, "post.py", post), put(tmp_path, "bench.py", FULL))
    assert c.status == CORRESPONDS and "data.x_train" in c.not_compared
    unscaled = FULL.replace("x_train = x_train / 255.0\n", "")
    d = correspond(put(tmp_path, "post2.py", FULL), put(tmp_path, "bench2.py", unscaled))
    assert d.status == DIFFERS and [x.kind for x in d.differences] == ["data.preprocess"]


def test_rule_data_source_is_a_note_not_a_difference(tmp_path: Path) -> None:
    program = FULL.replace(
        "np.loadtxt('pima-indians-diabetes.csv', delimiter=',')[:, 0:8]", "np.random.rand(100, 8)"
    ).replace("np.loadtxt('pima-indians-diabetes.csv', delimiter=',')[:, 8]", "np.random.randint(0, 2, 100)")
    c = correspond(put(tmp_path, "post.py", FULL), put(tmp_path, "bench.py", program))
    assert c.status == CORRESPONDS, c.differences
    assert any("rule data_source" in n for n in c.notes)


def test_rule_missing_element_is_a_difference(tmp_path: Path) -> None:
    program = IMPORTS + DATA + MODEL  # the benchmark dropped compile and fit
    c = correspond(put(tmp_path, "post.py", FULL), put(tmp_path, "bench.py", program))
    assert c.status == DIFFERS
    assert {d.kind for d in c.differences} == {"compile.missing", "fit.missing"}
    assert all(d.change == "missing" and d.source_line for d in c.differences)


def test_rule_empty_source_cannot_be_compared(tmp_path: Path) -> None:
    prose = "I tried everything but my accuracy stays at 50%. Any idea?\nimport numpy as np\n"
    c = correspond(put(tmp_path, "post.py", prose), put(tmp_path, "bench.py", FULL))
    assert c.status == NOTHING and c.corresponds is None


def test_unreadable_input_is_an_error_not_a_crash(tmp_path: Path) -> None:
    c = correspond(str(tmp_path / "absent.py"), put(tmp_path, "bench.py", FULL))
    assert c.status == ERROR and c.error
    out = CliRunner().invoke(correspond_cli, [str(tmp_path / "absent.py"), str(tmp_path / "bench.py")])
    assert out.exit_code == 1


def test_multi_file_side_uses_the_file_with_the_model(tmp_path: Path) -> None:
    helper = put(tmp_path, "util.py", "def load():\n    return 1\n")
    main = put(tmp_path, "main.py", FULL.replace("epochs=150", "epochs=5"))
    c = correspond(put(tmp_path, "post.py", FULL), f"{helper};{main}")
    assert [d.kind for d in c.differences] == ["fit.epochs"]
    assert any("compared with" in n and n.endswith("main.py") for n in c.notes)


def test_manifest_mode_and_cli(tmp_path: Path) -> None:
    put(tmp_path, "post_q.py", FULL)
    put(tmp_path, "post_a.py", FULL.replace("'sigmoid'", "'softmax'"))
    put(tmp_path, "buggy.py", FULL)
    put(tmp_path, "fixed.py", FULL.replace("'sigmoid'", "'softmax'").replace("epochs=150", "epochs=2"))
    manifest = tmp_path / "m.csv"
    with open(manifest, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "benchmark", "buggy", "fixed", "source_buggy", "source_fixed"])
        w.writerow(["b1", "Own", "buggy.py", "fixed.py", "post_q.py", "post_a.py"])
        w.writerow(["b2", "Own", "buggy.py", "fixed.py", "", ""])
    bugs = list(iter_correspond_manifest(manifest))
    assert bugs[0].buggy.status == CORRESPONDS and bugs[0].fixed.status == DIFFERS
    assert [d.kind for d in bugs[0].fixed.differences] == ["fit.epochs"]
    assert bugs[1].buggy is None and bugs[1].fixed is None
    out = CliRunner().invoke(correspond_cli, ["--manifest", str(manifest), "--json"])
    assert out.exit_code == 0
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["fixed"]["corresponds"] is False
    assert Correspondence.from_dict(rows[0]["fixed"]).differences[0].kind == "fit.epochs"
    text = CliRunner().invoke(correspond_cli, ["--manifest", str(manifest)]).stdout
    assert "b1 fixed: differs" in text and "b2: no source file" in text
    no_source = tmp_path / "plain.csv"
    no_source.write_text("id,buggy,fixed\nx,buggy.py,fixed.py\n")
    assert CliRunner().invoke(correspond_cli, ["--manifest", str(no_source)]).exit_code == 2
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes(b"id,buggy,fixed,source_buggy\nb\xe9,a.py,b.py,c.py\n")
    out = CliRunner().invoke(correspond_cli, ["--manifest", str(latin1)])
    assert out.exit_code == 2 and "not UTF-8" in out.output


def test_rule_missing_data_role(tmp_path: Path) -> None:
    program = IMPORTS + MODEL + COMPILE + FIT  # trains on x_train/y_train it never defines
    c = correspond(put(tmp_path, "post.py", FULL), put(tmp_path, "bench.py", program))
    assert {d.kind for d in c.differences} == {"data.missing"}
    assert {d.element for d in c.differences} == {"data.x_train", "data.y_train"}


def test_difference_shows_folded_values_when_texts_agree(tmp_path: Path) -> None:
    post = FULL.replace("epochs=150", "epochs=n_epochs").replace("model.fit", "n_epochs = 2\nmodel.fit")
    program = post.replace("n_epochs = 2", "n_epochs = 1")
    c = correspond(put(tmp_path, "post.py", post), put(tmp_path, "bench.py", program))
    (d,) = c.differences
    assert d.kind == "fit.epochs" and (d.source_value, d.program_value) == (2, 1)
    assert "(= 2)" in d.describe() and "(= 1)" in d.describe()
