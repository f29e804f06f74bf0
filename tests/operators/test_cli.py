"""``mutreal mutate``: --list, single mutants, --all, provenance files, errors and exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from mutreal.commands.mutate import mutate
from mutreal.mutation.operators import Provenance, registry

from .conftest import subject_path

CNN = str(subject_path("cnn"))


def run(*args: str):
    return CliRunner().invoke(mutate, list(args), catch_exceptions=False)


def test_list_orders_sites_by_line_and_numbers_them_per_operator() -> None:
    res = run(CNN, "--list", "--json")
    assert res.exit_code == 0
    rows = json.loads(res.output)
    assert {r["operator"] for r in rows} >= {"ACH", "HLR", "HNE", "RCD", "RCP", "VRM", "TRD"}
    assert [(r["line"], r["col"]) for r in rows] == sorted((r["line"], r["col"]) for r in rows)
    for op in {r["operator"] for r in rows}:
        mine = [r for r in rows if r["operator"] == op]
        assert [r["index"] for r in mine] == list(range(len(mine)))
    rcd = [r for r in rows if r["operator"] == "RCD"]
    assert [r["element"] for r in rcd] == ["model[0].layer[3].rate", "model[0].layer[7].rate"]
    assert rcd[0]["values"] == [0.125, 0.75, 1.0]  # DeepCrime's list without the original 0.25


def test_list_one_operator_as_text() -> None:
    res = run(CNN, "--list", "--op", "hne")
    assert res.exit_code == 0
    (line,) = res.output.strip().splitlines()
    assert line.startswith("HNE\t0\t") and "fit.epochs" in line and "[2, 4, 8, 30, 150]" in line


def test_one_mutant_with_provenance(tmp_path: Path) -> None:
    res = run(CNN, "--op", "ACH", "--site", "4", "--param", "sigmoid", "--out", str(tmp_path))
    assert res.exit_code == 0, res.output
    py = tmp_path / "cnn__ACH_4_sigmoid.py"
    assert res.output.strip() == str(py)
    code = py.read_text()
    original = Path(CNN).read_text()
    assert code == original.replace('Dense(10, activation="softmax")', 'Dense(10, activation="sigmoid")')
    prov = json.loads((tmp_path / "cnn__ACH_4_sigmoid.json").read_text())
    assert (
        prov["operator"] == "ACH" and prov["site"] == 4 and prov["element"] == "model[0].layer[8].activation"
    )
    assert prov["old"] == '"softmax"' and prov["new"] == '"sigmoid"'
    assert prov["original_sha256"] == hashlib.sha256(original.encode()).hexdigest()
    assert prov["seed"] == 0 and prov["mutreal_version"]
    assert Provenance.from_dict(prov).to_dict() == prov


def test_default_site_and_value(tmp_path: Path) -> None:
    res = run(CNN, "--op", "RCD", "--out", str(tmp_path), "--json")
    assert res.exit_code == 0
    (w,) = json.loads(res.output)["written"]
    assert w["site"] == 0 and w["old"] == "0.25" and w["new"] == "0.125"


def test_all_writes_one_mutant_per_site_and_value(tmp_path: Path) -> None:
    res = run(CNN, "--op", "HLR", "--all", "--out", str(tmp_path), "--json")
    assert res.exit_code == 0
    written = json.loads(res.output)["written"]
    # one optimizer, the relative grid x0.001 .. x100 of 0.001
    assert [w["new"] for w in written] == ["1e-06", "1e-05", "0.0001", "0.01", "0.1"]
    assert len(list(tmp_path.glob("*.py"))) == 5 and len(list(tmp_path.glob("*.json"))) == 5


def test_seed_goes_into_training_data_mutants(tmp_path: Path) -> None:
    res = run(CNN, "--op", "TRD", "--param", "10", "--seed", "7", "--out", str(tmp_path))
    assert res.exit_code == 0
    code = (tmp_path / "cnn__TRD_0_10.py").read_text()
    assert "x_train, y_train = _mutreal_td.remove(x_train, y_train, pct=10.0, seed=7)" in code
    assert json.loads((tmp_path / "cnn__TRD_0_10.json").read_text())["seed"] == 7


def test_och_option_keeps_learning_rate(tmp_path: Path) -> None:
    res = run(CNN, "--op", "OCH", "--param", "sgd", "-o", "keep_learning_rate=true", "--out", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert (
        "optimizer=optimizers.SGD(learning_rate=0.001),"
        in (tmp_path / "cnn__OCH_0_sgd-keep-lr.py").read_text()
    )
    res = run(CNN, "--op", "OCG", "--param", "0.5", "-o", "mode=clipnorm", "--out", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert (
        "optimizers.Adam(learning_rate=0.001, clipnorm=0.5)"
        in (tmp_path / "cnn__OCG_0_clipnorm-0.5.py").read_text()
    )


def test_a_value_that_changes_nothing_is_an_error_and_not_written(tmp_path: Path) -> None:
    res = CliRunner().invoke(mutate, [CNN, "--op", "RCD", "--param", "0.25", "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert "does not apply at site 0" in res.output
    assert not list(tmp_path.iterdir()) if tmp_path.exists() else True


def test_out_of_range_value_and_missing_site_exit_1(tmp_path: Path) -> None:
    res = CliRunner().invoke(mutate, [CNN, "--op", "RCD", "--param", "1.5", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "outside" in res.output
    res = CliRunner().invoke(mutate, [CNN, "--op", "RCD", "--site", "9", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "no site 9" in res.output
    res = CliRunner().invoke(mutate, [CNN, "--op", "WAB", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "does not apply" in res.output
    assert "None" not in res.output  # no "site None value None" when the operator has no site


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert CliRunner().invoke(mutate, [CNN]).exit_code == 2
    res = CliRunner().invoke(mutate, [CNN, "--op", "XYZ"])
    assert res.exit_code == 2 and "unknown operator" in res.output


def test_unparsable_program_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("model.fit(x, y\n")
    res = CliRunner().invoke(mutate, [str(bad), "--list"])
    assert res.exit_code == 1 and "cannot read" in res.output


def test_every_operator_is_listed_for_some_subject() -> None:
    from mutreal.mutation.mutate import list_sites

    from .conftest import SUBJECTS, subject_program

    seen = {row.operator for name in SUBJECTS for row in list_sites(subject_program(name))}
    assert seen == set(registry.ids())


def test_out_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("not a folder\n")
    res = run(CNN, "--op", "HLR", "--param", "0.1", "--out", str(taken))
    assert res.exit_code == 2 and "is a file" in res.output
    assert taken.read_text() == "not a folder\n"
