"""validate-operators on a small manifest of own bug pairs: reconstruction, failure reasons,
one bad bug not stopping the run, and a plugin operator appearing with no change to mutreal."""

from __future__ import annotations

import csv
import json
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hom_subjects import PluginLearningRate, sequential, write

from mutreal.cli import main
from mutreal.mutation.operators import registry
from mutreal.study.validate import ValidationReport, validate_manifest

LOOP_FIXED = """from keras.layers import Dense
from keras.models import Sequential

model = Sequential()
model.add(Dense(16, activation="relu", input_dim=4))
for _ in range(2):
    model.add(Dense(16, activation="relu"))
model.add(Dense(3, activation="softmax"))
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(x, y, epochs=3)
"""
# the buggy version unrolls the loop and changes one of its two layers: the loop's one site edits both
LOOP_BUGGY = LOOP_FIXED.replace(
    'for _ in range(2):\n    model.add(Dense(16, activation="relu"))\n',
    'model.add(Dense(16, activation="tanh"))\nmodel.add(Dense(16, activation="relu"))\n',
)

#: id -> (benchmark, buggy text or None for an unreadable file, expected bug status[, fixed text])
PAIRS: dict[str, tuple[Any, ...]] = {
    "ach-hlr": ("alpha", sequential(a2="sigmoid", lr=0.1), "reconstructed"),
    "arm": ("alpha", sequential(a1="linear"), "reconstructed"),
    "hne-hbs": ("alpha", sequential(epochs=2, batch=256), "reconstructed"),
    "sparse-loss": ("beta", sequential(loss="sparse_categorical_crossentropy"), "failed"),
    "loop-one-layer": ("beta", LOOP_BUGGY, "failed", LOOP_FIXED),
    # the buggy values are names of constants: read from the buggy program's model
    "folded-constants": (
        "alpha",
        sequential(epochs="EPOCHS")
        .replace('loss="categorical_crossentropy"', "loss=LOSS")
        .replace("data = load", 'EPOCHS = 2\nLOSS = "mse"\ndata = load'),
        "reconstructed",
    ),
    "layer-removed": ("beta", sequential().replace("model.add(Dropout(0.2))\n", ""), "not_simulable"),
    "broken": ("beta", None, "error"),
}


def write_manifest(tmp_path: Path) -> str:
    rows = []
    for bug_id, (bench, buggy, _, *fixed_text) in PAIRS.items():
        fixed = write(tmp_path / bug_id / "fixed" / "train.py", fixed_text[0] if fixed_text else sequential())
        if buggy is None:
            bpath = str(tmp_path / bug_id / "buggy" / "missing.py")  # no such file
        else:
            bpath = write(tmp_path / bug_id / "buggy" / "train.py", buggy)
        rows.append({"id": bug_id, "benchmark": bench, "buggy": bpath, "fixed": fixed})
    path = tmp_path / "manifest.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "benchmark", "buggy", "fixed"])
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> ValidationReport:
    tmp = tmp_path_factory.mktemp("validate")
    return validate_manifest(write_manifest(tmp), progress=False)


def test_bug_statuses(report: ValidationReport) -> None:
    got = {b.id: b.status for b in report.bugs}
    assert got == {bug_id: status for bug_id, (_, _, status, *_) in PAIRS.items()}
    broken = next(b for b in report.bugs if b.id == "broken")
    assert broken.error  # a clear message, and the bugs after it were still validated


def test_reconstructed_components_carry_the_buggy_values(report: ValidationReport) -> None:
    bug = next(b for b in report.bugs if b.id == "ach-hlr")
    by_op = {c.operator: c for c in bug.components}
    assert set(by_op) == {"ACH", "HLR"}
    assert by_op["ACH"].value == "sigmoid" and by_op["ACH"].element == "model[0].layer[3].activation"
    assert by_op["HLR"].value == pytest.approx(0.1)
    assert bug.residual == []
    arm = next(b for b in report.bugs if b.id == "arm")
    assert [c.operator for c in arm.components] == ["ARM"]  # most specific operator, mutation direction
    folded = next(b for b in report.bugs if b.id == "folded-constants")
    assert sorted((c.operator, c.value) for c in folded.components) == [
        ("HNE", 2),
        ("LCH", "mean_squared_error"),
    ]


def test_failure_reasons(report: ValidationReport) -> None:
    sparse = next(b for b in report.bugs if b.id == "sparse-loss").components
    assert [(c.operator, c.status) for c in sparse] == [("LCH", "not_inferable")]
    assert "sparse_categorical_crossentropy" in sparse[0].detail
    loop = next(b for b in report.bugs if b.id == "loop-one-layer")
    assert [(c.operator, c.status) for c in loop.components] == [("ACH", "residual")]
    # the loop's one constructor call builds both layers: ACH changes the second one too
    assert [r["element"] for r in loop.components[0].residual] == ["model[0].layer[2].activation"]


def test_per_operator_and_per_benchmark(report: ValidationReport) -> None:
    ops = {o.operator: o for o in report.operators}
    assert set(registry.ids()) <= set(ops)  # every registered operator is listed, claimed or not
    assert (ops["ACH"].claimed, ops["ACH"].reconstructed, ops["ACH"].failures["residual"]) == (2, 1, 1)
    assert (ops["ARM"].claimed, ops["ARM"].reconstructed) == (1, 1)
    assert (ops["HLR"].claimed, ops["HLR"].reconstructed) == (1, 1)
    assert (ops["HNE"].claimed, ops["HNE"].reconstructed) == (2, 2)
    assert (ops["LCH"].claimed, ops["LCH"].reconstructed, ops["LCH"].failures["not_inferable"]) == (2, 1, 1)
    assert ops["TCL"].claimed == 0 and ops["TCL"].rate is None
    benches = {b.benchmark: b for b in report.benchmarks}
    alpha = benches["alpha"]
    assert (alpha.bugs, alpha.simulable, alpha.reconstructed_bugs, alpha.claimed, alpha.reconstructed) == (
        4,
        4,
        4,
        7,
        7,
    )
    beta = benches["beta"]
    assert (beta.bugs, beta.errors, beta.simulable, beta.reconstructed_bugs) == (4, 1, 2, 0)
    assert beta.failures["not_inferable"] == 1 and beta.failures["residual"] == 1


def test_report_json_round_trip(report: ValidationReport) -> None:
    again = ValidationReport.from_dict(json.loads(json.dumps(report.to_dict(), default=str)))
    assert again.to_dict() == json.loads(json.dumps(report.to_dict(), default=str))


def test_cli_table_json_and_exit_code(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path)
    runner = CliRunner()
    res = runner.invoke(main, ["validate-operators", manifest, "--out", str(tmp_path / "out")])
    assert res.exit_code == 1  # one bug could not be classified
    assert "ACH" in res.output and "reconstructed exactly" in res.output
    assert (tmp_path / "out" / "validation.json").is_file()
    assert any((tmp_path / "out" / "mutants").rglob("train.py"))
    res = runner.invoke(main, ["validate-operators", manifest, "--json"])
    data = json.loads(res.stdout)
    assert {b["id"] for b in data["bugs"]} == set(PAIRS)


# --------------------------------------------------------------------------------------- plugin


@pytest.fixture
def plugin(monkeypatch):
    ep = metadata.EntryPoint(name="XLR", value="hom_subjects:PluginLearningRate", group=registry.GROUP)
    real = metadata.entry_points

    def entry_points(**kw: Any):
        found = list(real(**kw))
        return [*found, ep] if kw.get("group") == registry.GROUP else found

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    registry.reload()
    yield
    monkeypatch.undo()
    registry.reload()


def test_plugin_operator_appears_in_the_report(plugin, tmp_path: Path) -> None:
    assert isinstance(registry.get("XLR"), PluginLearningRate)
    assert "XLR" in registry.ids()
    report = validate_manifest(write_manifest(tmp_path), progress=False)
    ops = {o.operator: o for o in report.operators}
    assert ops["XLR"].plugin and not ops["HLR"].plugin
    # it claims the learning-rate component of ach-hlr and reconstructs it like HLR does
    assert (ops["XLR"].claimed, ops["XLR"].reconstructed) == (1, 1)
    bug = next(b for b in report.bugs if b.id == "ach-hlr")
    assert [c.operator for c in bug.plugin_trials["XLR"]] == ["XLR"]
    res = CliRunner().invoke(main, ["validate-operators", write_manifest(tmp_path / "again")])
    assert any(line.startswith("XLR") and "yes" in line for line in res.output.splitlines())


def test_worker_processes_give_the_same_report(report: ValidationReport, tmp_path: Path) -> None:
    parallel = validate_manifest(write_manifest(tmp_path), jobs=2, progress=False)
    assert [(b.id, b.status) for b in parallel.bugs] == [(b.id, b.status) for b in report.bugs]
    assert [o.to_dict() for o in parallel.operators] == [o.to_dict() for o in report.operators]
