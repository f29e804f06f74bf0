"""Each piece of knowledge has one owner; these tests pin that the other users derive from it.

Why: a table kept equal by hand in several places drifts (issue 31 found one copy drifted into a
bug). Each test below names the owner and checks a user *reads* it: the copy it replaced is gone
(a column, a literal table) and the user's answer follows the owner's. A test that compared two
hand-kept copies would pass as long as someone kept them equal; these fail when a copy comes back.
"""

from __future__ import annotations

import csv
import inspect
import itertools

import pytest

from mutreal.compare.components import FaultComponent
from mutreal.label import codes
from mutreal.label.taxonomy import load_taxonomy
from mutreal.mutation import hom
from mutreal.mutation.operators import registry
from mutreal.operator_catalogue import activation_operator, load_catalogue, runtime_function_operators
from mutreal.program.training_budget import BUDGET, NOT_COMPARED
from mutreal.resources import data_dir
from mutreal.runtime import training_data

# -- the code-to-operator map: operators/deepcrime.yaml's fault_code --------------------------------


@pytest.mark.parametrize("table", ["fault_codes.csv", "extension_codes.csv"])
def test_the_taxonomy_tables_hold_no_copy_of_the_operator_map(table: str) -> None:
    with (data_dir("taxonomy") / table).open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    assert "code" in header
    assert {"operators", "is_deepcrime_operator"} & set(header) == set()


def test_the_taxonomy_reads_which_operators_simulate_a_code_from_the_catalogue() -> None:
    taxonomy, catalogue = load_taxonomy(), load_catalogue()
    codes_with_operators = [fc for fc in [*taxonomy.fault_codes, *taxonomy.extension_codes] if fc.operators]
    assert len(codes_with_operators) == 17  # 16 study codes that are operator ids, and mutreal's TAN
    for fc in [*taxonomy.fault_codes, *taxonomy.extension_codes]:
        expected = tuple(spec.id for spec in catalogue.values() if fc.code and spec.code == fc.code)
        assert sorted(fc.operators) == sorted(expected), fc.code
        assert fc.is_deepcrime_operator == (fc.code in catalogue), fc.code
    assert taxonomy.code("ACH").operators == ("ACH", "ARM", "AAL")


def test_classify_kind_rules_take_an_operators_code_from_the_catalogue() -> None:
    catalogue = load_catalogue()
    with_operator = [rule for rule in codes.KIND_RULES.values() if rule.operator]
    assert len(with_operator) >= 15
    for rule in with_operator:
        assert rule.code == catalogue[rule.operator].code, rule
    assert "KindRule(\"OCH\", \"OCG\")" not in inspect.getsource(codes)  # the code is not written twice


# -- the activation direction rule: operator_catalogue.activation_operator --------------------------

ACTIVATIONS = [None, "linear", "Linear", "relu", "softmax"]


def test_the_activation_direction_rule() -> None:
    assert activation_operator("linear", "relu") == "AAL"
    assert activation_operator("relu", None) == "ARM"
    assert activation_operator("relu", "softmax") == activation_operator(None, "linear") == "ACH"


@pytest.mark.parametrize(("first", "second"), list(itertools.product(ACTIVATIONS, repeat=2)))
def test_classify_and_hom_generate_read_the_one_activation_rule(first: str | None, second: str | None) -> None:
    """classify names the operator from the first program to the second (buggy -> fixed); hom-generate
    the operator from the fixed program to the buggy one; both are the one rule's answer."""
    component = FaultComponent(
        element="x", kind="layer.activation", change="changed",
        detail={"before_activation": first, "after_activation": second},
    )  # fmt: skip
    assert codes.label_component(component).deepcrime == activation_operator(first, second)
    assert hom.mutation_operator("ACH", fixed=first, buggy=second, labelled=None) == activation_operator(first, second)


# -- run-time functions to operators: the catalogue's runtime_function ------------------------------


def test_each_training_data_function_names_one_operator() -> None:
    by_function = runtime_function_operators()
    assert set(by_function) == set(training_data.__all__)
    assert by_function == codes.RUNTIME_FUNCTION_OPERATORS
    for function, operator in by_function.items():
        assert registry.get(operator).function == function


# -- dataset sizes: taxonomy/datasets.csv (mutreal.known_datasets) ---------------------------------


def test_the_extractor_holds_no_table_of_dataset_sizes() -> None:
    from mutreal.extract import data

    assert not [name for name, value in vars(data).items() if name.isupper() and isinstance(value, dict) and "mnist" in value]


@pytest.mark.parametrize(("loader", "part", "row"), [("keras.datasets.cifar10", "x_test", "cifar10"), ("sklearn.datasets.load_wine", "data", "wine")])
def test_the_extractor_sizes_a_loaded_data_set_from_the_table(loader: str, part: str, row: str) -> None:
    """The extracted shape is the table's row: test split and sample shape for Keras, all rows for sklearn."""
    from mutreal.extract import extract_source
    from mutreal.known_datasets import known_datasets

    module, name = loader.rsplit(".", 1)
    if module.startswith("keras"):
        source = f"from {module} import {name}\n(x_train, y_train), (x_test, y_test) = {name}.load_data()\nmodel.fit(x_test, y_test)\n"
    else:
        source = f"from {module} import {name}\nd = {name}()\nx_train = d.data\nmodel.fit(x_train, d.target)\n"
    table = next(ds for ds in known_datasets() if ds.name == row)
    assert table.sample_shape
    size = table.test_size if part == "x_test" else table.total_size
    model = extract_source(source)
    assert model.data["x_train"].source.shape == [size, *table.sample_shape]


# -- "metrics are noise": the noise rule, not also a decision row ---------------------------------


def test_compile_metrics_are_noise_once_as_a_noise_rule() -> None:
    """The study's noise rule ``metrics`` says it; a decision row drawing "PMC vs noise" without a
    code (what ``metrics-noise`` was) would say it a second time, with its own wording to keep equal."""
    import mutreal.compare  # noqa: F401  (registers every noise rule)
    from mutreal.compare.noise import NOISE_RULES
    from mutreal.decisions import load_decisions

    assert "metrics" in NOISE_RULES
    pmc_noise = [d.id for d in load_decisions() if d.boundary == "PMC vs noise"]
    assert pmc_noise
    assert [i for i in pmc_noise if not next(d for d in load_decisions() if d.id == i).codes] == []


# -- the training budget: program/training_budget.py ------------------------------------------------

FIT_PROGRAM = """
from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x, y = np.random.rand(64, 4), np.random.randint(0, 2, 64)
model = Sequential([Dense(1, input_dim=4, activation='sigmoid')])
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=5, batch_size=8, steps_per_epoch=4, shuffle=True, class_weight={0: 1, 1: 2})
"""
FIT_VALUES = {"epochs": ("5", "9"), "batch_size": ("8", "16"), "steps_per_epoch": ("4", "6"),
              "shuffle": ("True", "False"), "class_weight": ("{0: 1, 1: 2}", "{0: 1, 1: 3}")}  # fmt: skip


def _fit_change(argument: str) -> list:
    from mutreal.compare import diff_models
    from mutreal.extract import extract_source

    before, after = FIT_VALUES[argument]
    changed = FIT_PROGRAM.replace(f"{argument}={before}", f"{argument}={after}")
    assert changed != FIT_PROGRAM
    return diff_models(extract_source(FIT_PROGRAM), extract_source(changed))


def test_every_fit_argument_of_the_rule_has_a_changed_value() -> None:
    assert set(FIT_VALUES) == set(BUDGET) | set(NOT_COMPARED)


@pytest.mark.parametrize("argument", sorted(BUDGET))
def test_a_budget_argument_changed_is_its_budget_component(argument: str) -> None:
    from mutreal.compare.kinds import ComponentKind

    assert [c.kind for c in _fit_change(argument)] == [ComponentKind(BUDGET[argument])]


@pytest.mark.parametrize("argument", sorted(NOT_COMPARED))
def test_a_fit_argument_not_compared_changed_alone_is_no_component(argument: str) -> None:
    assert NOT_COMPARED[argument]
    assert _fit_change(argument) == []


def test_element_paths_lists_the_budget_and_what_is_not_compared() -> None:
    from pathlib import Path

    from mutreal.program.training_budget import BUDGET_ELEMENTS, NOT_COMPARED

    text = (Path(__file__).resolve().parents[2] / "docs" / "element-paths.md").read_text(encoding="utf-8")
    budget_row = next(line for line in text.splitlines() if "training budget" in line)
    assert all(f"`{element}`" in budget_row for element in BUDGET_ELEMENTS)
    other_row = next(line for line in text.splitlines() if "NOT_COMPARED" in line)
    assert all(f"`fit.{argument}`" in other_row for argument in NOT_COMPARED)


def test_no_other_module_spells_the_budget() -> None:
    """The pair is written in program/training_budget.py only (it was in six places)."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "src" / "mutreal"
    epochs, batch_size = r"""(?:["'](?:fit\.)?epochs["']|K\.FIT_EPOCHS)""", r"""(?:["'](?:fit\.)?batch_size["']|K\.FIT_BATCH_SIZE)"""
    pair = re.compile(rf"{epochs}[^\n]{{0,40}}?{batch_size}")

    def spells(path: Path) -> bool:  # a line that looks the names up in BUDGET reads the owner
        return any(pair.search(line) and "BUDGET[" not in line for line in path.read_text(encoding="utf-8").splitlines())

    assert [p.relative_to(package).as_posix() for p in package.rglob("*.py") if spells(p)] == ["program/training_budget.py"]
    for old in ('("fit.epochs", "fit.batch_size")', 'for key in ("epochs", "batch_size"):',
                '_BUDGET = (("epochs", K.FIT_EPOCHS), ("batch_size", K.FIT_BATCH_SIZE))',
                "c.kind in (K.FIT_EPOCHS, K.FIT_BATCH_SIZE)"):
        assert pair.search(old), old  # the pattern finds each old spelling


# -- the data pass's filters: one table, each row a decision ---------------------------------------


def test_each_filter_that_sets_a_preprocessing_step_aside_is_a_decision_row() -> None:
    from mutreal.compare.data import SET_ASIDE
    from mutreal.decisions import load_decisions

    rows = {d.id for d in load_decisions()}
    decisions = [decision for decision, _ in SET_ASIDE]
    assert len(decisions) == len(set(decisions)) >= 7
    assert set(decisions) <= rows


# -- executor names: execution/campaign_config.EXECUTORS -------------------------------------------


def test_the_executor_option_offers_the_executors_the_configuration_accepts() -> None:
    """One copy kept on purpose: ``commands/options.py`` may not import the runner at module level
    (importing ``mutreal.execution`` loads psutil), so its ``--executor`` choices are a literal,
    pinned to the owner here."""
    from mutreal.commands.options import RUNNER_FLAGS
    from mutreal.execution.campaign_config import EXECUTORS

    assert list(RUNNER_FLAGS["executor"][1]["type"].choices) == list(EXECUTORS)
