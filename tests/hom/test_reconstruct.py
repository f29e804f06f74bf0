"""Reconstruction of real faults as mutants (mutreal.mutation.reconstruct) on own program pairs.

What a mutation-tool user relies on: where the fixed program leaves a value to Keras' default (the
optimizer's learning rate, fit's epochs and batch size, an optimizer named by a string) the mutant
writes the argument with the buggy program's value, in the program's Keras era; a value the buggy
program computes is folded, else the catalogue's value is used and the row says so; a bug of
several components gets one first-order mutant per component and their higher-order mutant; and
``validate-operators`` and ``compare`` get these answers from the one module. No training here:
every mutant is checked by classifying it against the fixed and the buggy program.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.campaigns.mutants import reconstruct_mutants
from mutreal.cli import main
from mutreal.label.classify import classify_safely
from mutreal.manifest import ManifestRow
from mutreal.mutation import reconstruct as rec
from mutreal.study import validate

HEAD = """from keras.layers import Dense, Dropout
from keras.models import Sequential
from keras.optimizers import Adam, RMSprop, SGD
from sklearn.datasets import load_iris

data = load_iris()
x, y = data.data, data.target
"""
MODEL = """model = Sequential()
model.add(Dense(8, activation="relu", input_dim=4))
model.add(Dropout(0.2))
model.add(Dense(3, activation="softmax"))
"""


def program(compile_args: str, fit_args: str = "", *, before_model: str = "", keras1: bool = False) -> str:
    """An own iris classifier: ``compile_args`` and ``fit_args`` written as given."""
    text = HEAD + before_model + MODEL
    text += f'model.compile({compile_args}, loss="sparse_categorical_crossentropy")\n'
    text += f"model.fit(x, y{', ' + fit_args if fit_args else ''})\n"
    if keras1:
        text = text.replace("Dense(8, ", "Dense(output_dim=8, ").replace(
            "input_dim=4", "input_dim=4, init='uniform'"
        )
    return text


# gol-like: the fixed program's optimizer is a default of the helper that builds the model (the
# program model records the helper's call), the buggy one names 'adam' and changes the loss too
HELPER_FIXED = (
    HEAD
    + """

def build(loss="mse", optimizer=Adam(learning_rate=0.01)):
    model = Sequential()
    model.add(Dense(8, activation="relu", input_dim=4))
    model.add(Dense(3, activation="softmax"))
    model.compile(loss=loss, optimizer=optimizer)
    return model


model = build()
model.fit(x, y, epochs=5)
"""
)
HELPER_BUGGY = HELPER_FIXED.replace(
    'loss="mse", optimizer=Adam(learning_rate=0.01)', 'loss="mse", optimizer="adam"'
)
HELPER_BUGGY = HELPER_BUGGY.replace("model.compile(loss=loss,", 'model.compile(loss="binary_crossentropy",')


def pair(tmp_path: Path, fixed: str, buggy: str, name: str = "bug") -> tuple[str, str]:
    folder = tmp_path / name
    (folder / "fixed").mkdir(parents=True)
    (folder / "buggy").mkdir(parents=True)
    f, b = folder / "fixed" / "train.py", folder / "buggy" / "train.py"
    f.write_text(fixed, encoding="utf-8")
    b.write_text(buggy, encoding="utf-8")
    return str(b), str(f)


def components(first: str, second: str) -> list[tuple[str, str | None, str, object]]:
    """(code, operator, element, the second program's value) of classify(first, second)."""
    result = classify_safely(first, second, bug_id="t")
    assert result.status == "ok", result.error
    out = []
    for c in result.components:
        after = (c.resolved or {}).get("after", c.after)
        with contextlib.suppress(ValueError, SyntaxError):
            after = ast.literal_eval(str(after))
        out.append((c.code, c.deepcrime, c.element, after))
    return out


def mutant_of(made: rec.PairReconstruction) -> str:
    assert made.reconstruction is not None
    (path,) = made.reconstruction.files
    ast.parse(Path(path).read_text(encoding="utf-8"))  # a mutant is a program
    return path


LEARNING_RATE_CASES = {
    # the fixed program leaves the rate to the default of an optimizer it names by a string
    "string-default-to-object": ('optimizer="rmsprop"', "optimizer=RMSprop(learning_rate=0.5)", 0.5, False),
    # an optimizer object with its default rate
    "object-default": ("optimizer=SGD()", "optimizer=SGD(learning_rate=0.3)", 0.3, False),
    # the buggy program leaves the rate to the default: the mutant writes the default's value
    "buggy-default": ("optimizer=Adam(learning_rate=0.05)", 'optimizer="adam"', 0.001, False),
    # Keras 1: the string optimizer becomes an object written with the era's keyword lr=
    "keras1-string": ("optimizer='sgd'", "optimizer=SGD(lr=0.3)", 0.3, True),
}


@pytest.mark.parametrize("case", LEARNING_RATE_CASES, ids=list(LEARNING_RATE_CASES))
def test_a_default_learning_rate_is_written_with_the_buggy_value(case: str, tmp_path: Path) -> None:
    fixed_opt, buggy_opt, rate, keras1 = LEARNING_RATE_CASES[case]
    fit = "nb_epoch=5" if keras1 else "epochs=5"
    buggy, fixed = pair(
        tmp_path, program(fixed_opt, fit, keras1=keras1), program(buggy_opt, fit, keras1=keras1)
    )
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m"))
    assert made.status == "reconstructed", [o.to_dict() for o in made.outcomes]
    (outcome,) = made.outcomes
    assert (outcome.operator, outcome.value) == ("HLR", rate)
    mutant = mutant_of(made)
    # classify(fixed, mutant) names exactly the fault: HLR at the learning rate, the buggy value
    assert components(fixed, mutant) == [("HLR", "HLR", "compile.optimizer.learning_rate", rate)]
    assert components(mutant, buggy) == []
    text = Path(mutant).read_text(encoding="utf-8")
    assert ("lr=" in text) is keras1 and ("learning_rate=" in text) is not keras1


@pytest.mark.parametrize(
    ("fixed_fit", "buggy_fit", "expected"),
    [
        ("", "epochs=50, batch_size=1", {"HNE": 50, "HBS": 1}),  # the fixed program relies on both defaults
        ("epochs=30, batch_size=8", "", {"HNE": 1, "HBS": 32}),  # the buggy one does
    ],
    ids=["fixed-defaults", "buggy-defaults"],
)
def test_fit_defaults_are_written_with_the_buggy_values(
    fixed_fit: str, buggy_fit: str, expected: dict[str, int], tmp_path: Path
) -> None:
    opt = "optimizer=Adam(learning_rate=0.01)"
    buggy, fixed = pair(tmp_path, program(opt, fixed_fit), program(opt, buggy_fit))
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m"))
    assert made.status == "reconstructed"
    assert {o.operator: o.value for o in made.outcomes} == expected
    mutant = mutant_of(made)
    found = {code: value for code, _, _, value in components(fixed, mutant)}
    assert found == expected


def test_computed_values_are_folded_else_the_catalogue_value_is_used_and_said(tmp_path: Path) -> None:
    fixed_text = program("optimizer=Adam(learning_rate=0.01)", "epochs=5")
    buggy_text = program(
        "optimizer=Adam(learning_rate=BASE / 1000)", "epochs=5", before_model="KEEP = 0.25\nBASE = 1.0\n"
    ).replace("Dropout(0.2)", "Dropout(1 - KEEP)")
    buggy, fixed = pair(tmp_path, fixed_text, buggy_text, "ratio")
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m1"))
    assert made.status == "reconstructed"
    got = {o.operator: (o.value, o.value_origin) for o in made.outcomes}
    assert got == {"RCD": (0.75, "folded"), "HLR": (0.001, "folded")}

    # the buggy program relabels a share of the labels that only the data decides: no value to fold
    relabel_text = fixed_text.replace(
        "x, y = data.data, data.target\n", "x, y = data.data, data.target\ny[y == 1] = 0\n"
    )
    buggy, fixed = pair(tmp_path, fixed_text, relabel_text, "share")
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m2"))
    (outcome,) = made.outcomes
    assert (outcome.code, outcome.operator, outcome.value_origin) == ("TCL", "TCL", "catalogue")
    assert outcome.value == 5.0 and "catalogue's value 5.0 is used" in outcome.detail
    assert outcome.applied  # the component gets its mutant, whose value is not the fault's
    assert "change_labels(y, pct=5.0" in Path(mutant_of(made)).read_text(encoding="utf-8")
    # compare's row says so too
    made_for_compare = reconstruct_mutants("share", "own", [buggy], [fixed], fixed, tmp_path / "c")
    (note,) = made_for_compare.notes
    assert note.startswith(
        "TCL at data.y_train.preprocess[0] uses the catalogue's value 5.0, not the fault's"
    )
    # a share of the rows the buggy program keeps, computed from the data set's size, is folded
    for keep, removed in (("x[: int(len(x) * 0.4)]", 60.0), ("x[:30]", 80.0)):
        cut = "x, y = data.data, data.target\n"
        sliced_text = fixed_text.replace(cut, cut + f"x = {keep}\ny = {keep.replace('x', 'y')}\n")
        buggy, fixed = pair(tmp_path, fixed_text, sliced_text, f"slice-{removed}")
        (outcome,) = rec.reconstruct_pair(buggy, fixed, str(tmp_path / f"s{removed}")).outcomes
        assert (outcome.operator, outcome.value, outcome.value_origin) == ("TRD", removed, "folded")
    # a written value the operator cannot take is no computed value: not inferable, no catalogue
    zero_text = program("optimizer=Adam(learning_rate=0.01)", "epochs=0")
    buggy, fixed = pair(tmp_path, fixed_text, zero_text, "zero")
    (outcome,) = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m3")).outcomes
    assert (outcome.operator, outcome.status, outcome.value_origin) == ("HNE", "not_inferable", None)


def test_a_whole_optimizer_change_is_completed_with_the_buggy_learning_rate(tmp_path: Path) -> None:
    # classify reads one component (the optimizer): the buggy rate equals the fixed optimizer's
    # default (decision HLR-with-OCH sees no other rate), but OCH alone would write Adam with its own
    buggy, fixed = pair(
        tmp_path,
        program('optimizer="sgd"', "epochs=5"),
        program("optimizer=Adam(learning_rate=0.01)", "epochs=5"),
    )
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m"))
    assert made.status == "reconstructed", [o.to_dict() for o in made.outcomes]
    (outcome,) = made.outcomes
    assert outcome.operator == "OCH"
    assert [(c["operator"], c["element"], c["value"]) for c in outcome.completions] == [
        ("HLR", "compile.optimizer.learning_rate", 0.01)
    ]
    assert components(mutant_of(made), buggy) == []


def test_a_new_optimizer_with_another_rate_is_two_components_reconstructed(tmp_path: Path) -> None:
    # decision HLR-with-OCH: the buggy optimizer writes a rate of its own (0.5, not Adam's 0.001):
    # OCH and HLR, each reconstructed, nothing left to complete
    buggy, fixed = pair(
        tmp_path,
        program('optimizer="adam"', "epochs=5"),
        program("optimizer=SGD(learning_rate=0.5)", "epochs=5"),
    )
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m"))
    assert made.status == "reconstructed", [o.to_dict() for o in made.outcomes]
    assert [(o.operator, o.value, o.completions) for o in made.outcomes] == [("OCH", "sgd", []), ("HLR", 0.5, [])]
    assert components(mutant_of(made), buggy) == []


def test_two_components_give_two_first_order_mutants_and_their_higher_order_one(tmp_path: Path) -> None:
    buggy, fixed = pair(tmp_path, HELPER_FIXED, HELPER_BUGGY)
    made = reconstruct_mutants("gol-like", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert made.reason is None and made.failures == [] and made.notes == []
    assert [m.operator for m in made.mutants] == ["LCH", "HLR", "LCH+HLR"]
    lch, hlr, hom = made.mutants
    assert (lch.value, hlr.value, hom.value) == ("binary_crossentropy", 0.001, ["binary_crossentropy", 0.001])
    assert hom.provenance["exact"] is True and hom.provenance["order"] == 2
    assert [m.provenance["order"] for m in (lch, hlr)] == [1, 1]
    # each first-order mutant leaves exactly the other component; the HOM leaves nothing
    assert [code for code, *_ in components(lch.file, buggy)] == ["HLR"]
    assert [code for code, *_ in components(hlr.file, buggy)] == ["LCH"]
    assert components(hom.file, buggy) == []
    # the helper's default is edited where it is written: Adam(learning_rate=0.001)
    assert "optimizer=Adam(learning_rate=0.001)" in Path(hom.file).read_text(encoding="utf-8")


def test_a_first_order_mutant_carries_only_its_own_component(tmp_path: Path) -> None:
    # OCH + HLR (decision HLR-with-OCH): the OCH mutant changes the optimizer alone; completing it
    # with the buggy rate would write HLR's component too and make it the higher-order mutant again
    buggy, fixed = pair(
        tmp_path,
        program('optimizer="adam"', "epochs=5"),
        program("optimizer=SGD(learning_rate=0.5)", "epochs=5"),
    )
    made = reconstruct_mutants("och-hlr", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert [m.operator for m in made.mutants] == ["OCH", "HLR", "OCH+HLR"]
    och, hlr, hom = made.mutants
    assert [code for code, *_ in components(och.file, buggy)] == ["HLR"]
    assert [code for code, *_ in components(hlr.file, buggy)] == ["OCH"]
    assert components(hom.file, buggy) == []
    assert Path(och.file).read_text(encoding="utf-8") != Path(hom.file).read_text(encoding="utf-8")


def test_validate_operators_and_compare_share_the_reconstruction_module(tmp_path: Path) -> None:
    # one record type and one answer: validate's outcomes are the mutation stage's
    assert validate.ComponentOutcome is rec.ComponentOutcome and validate.folded_value is rec.folded_value
    buggy, fixed = pair(tmp_path, HELPER_FIXED, HELPER_BUGGY)
    row = ManifestRow("gol-like", "own", [buggy], [fixed])
    checked = validate.validate_bug(row, workdir=str(tmp_path / "v"), partial=True)
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "r"), partial=True)
    assert [o.to_dict() for o in checked.components] == [o.to_dict() for o in made.outcomes]
    assert checked.status == made.status == "reconstructed"
    mutants = reconstruct_mutants("gol-like", "own", [buggy], [fixed], fixed, tmp_path / "c")
    (hom,) = [m for m in mutants.mutants if m.provenance["order"] == 2]
    assert [(c["operator"], c["element"]) for c in hom.provenance["components"]] == [
        (o.operator, o.element) for o in made.outcomes
    ]
    assert Path(hom.file).read_text(encoding="utf-8") == Path(made.reconstruction.files[0]).read_text(
        encoding="utf-8"
    )


def test_validate_operators_command_reconstructs_defaults(tmp_path: Path) -> None:
    rows = []
    cases = {
        "string-default": (program('optimizer="rmsprop"', "epochs=5"), program("optimizer=RMSprop(learning_rate=0.5)", "epochs=5")),
        "gol-like": (HELPER_FIXED, HELPER_BUGGY),
    }  # fmt: skip
    for bug_id, (fixed_text, buggy_text) in cases.items():
        buggy, fixed = pair(tmp_path, fixed_text, buggy_text, bug_id)
        rows.append({"id": bug_id, "benchmark": "own", "buggy": buggy, "fixed": fixed})
    manifest = tmp_path / "manifest.csv"
    with open(manifest, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "benchmark", "buggy", "fixed"])
        writer.writeheader()
        writer.writerows(rows)
    result = CliRunner().invoke(main, ["validate-operators", str(manifest), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert {b["id"]: b["status"] for b in report["bugs"]} == {
        "string-default": "reconstructed",
        "gol-like": "reconstructed",
    }
    hlr = next(o for o in report["operators"] if o["operator"] == "HLR")
    assert (hlr["claimed"], hlr["reconstructed"]) == (2, 2)
    text = CliRunner().invoke(main, ["validate-operators", str(manifest)])
    assert text.exit_code == 0 and "2 reconstructed exactly" in text.output


BUDGET = (
    HEAD
    + """
EPOCHS = {epochs}
batch_size = {batch}


def batches(xs, ys, size):
    while True:
        for start in range(0, len(xs), size):
            yield xs[start : start + size], ys[start : start + size]


def train(net, epochs_):
    net.fit_generator(batches(x, y, batch_size), steps_per_epoch=len(x) // batch_size, epochs=epochs_)


"""
    + MODEL
    + """model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
train(model, EPOCHS)
"""
)


def test_the_stated_budget_literals_are_written_with_the_buggy_values(tmp_path: Path) -> None:
    # epochs reach fit through a helper's parameter, the batch size through a generator: the fault
    # is in the module-level literals, which classify reads as the program's stated budget
    buggy, fixed = pair(tmp_path, BUDGET.format(epochs=1, batch=8), BUDGET.format(epochs=40, batch=64))
    made = rec.reconstruct_pair(buggy, fixed, str(tmp_path / "m"))
    assert made.status == "reconstructed", [o.to_dict() for o in made.outcomes]
    by_op = {o.operator: o for o in made.outcomes}
    assert set(by_op) == {"HNE", "HBS"}
    assert [(c["literal"], c["value"]) for c in by_op["HNE"].completions] == [("EPOCHS", 40)]
    # no training call takes the batch size: the literal is the HBS edit itself, and the row says so
    assert by_op["HBS"].site is None and by_op["HBS"].applied
    assert [(c["literal"], c["value"]) for c in by_op["HBS"].completions] == [("batch_size", 64)]
    assert "budget literal batch_size is written instead" in by_op["HBS"].detail
    text = Path(mutant_of(made)).read_text(encoding="utf-8")
    assert "EPOCHS = 40\nbatch_size = 64\n" in text
    assert components(mutant_of(made), buggy) == []


def test_a_program_of_several_files_gets_its_first_order_mutants_mirrored(tmp_path: Path) -> None:
    data = "from sklearn.datasets import load_iris\n\niris = load_iris()\nx, y = iris.data, iris.target\n"
    train = (
        HEAD.replace("from sklearn.datasets import load_iris\n", "from data import x, y\n").split("data = ")[
            0
        ]
        + MODEL
        + 'model.compile(optimizer="adam", loss="{loss}")\nmodel.fit(x, y, epochs={epochs})\n'
    )
    sides = {}
    for side, loss, epochs in (("fixed", "sparse_categorical_crossentropy", 5), ("buggy", "poisson", 50)):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "data.py").write_text(data, encoding="utf-8")
        (folder / "train.py").write_text(train.format(loss=loss, epochs=epochs), encoding="utf-8")
        sides[side] = [str(folder / "data.py"), str(folder / "train.py")]
    entry = sides["fixed"][1]
    made = reconstruct_mutants("files", "own", sides["buggy"], sides["fixed"], entry, tmp_path / "m")
    assert made.reason is None and made.failures == []
    assert [m.operator for m in made.mutants] == ["LCH", "HNE", "LCH+HNE"]
    for mutant in made.mutants:
        # the entry of each mirror, its sibling beside it: the mutant still imports its data module
        assert (
            Path(mutant.file).name == "train.py"
            and (Path(mutant.file).parent / "data.py").read_text() == data
        )
    lch, hne, hom = (Path(m.file).read_text(encoding="utf-8") for m in made.mutants)
    assert "poisson" in lch and "epochs=5" in lch
    assert "poisson" not in hne and "epochs=50" in hne
    assert "poisson" in hom and "epochs=50" in hom
