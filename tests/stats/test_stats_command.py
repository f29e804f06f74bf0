"""``mutreal stats A.csv B.csv``: the statistics for runs made elsewhere, table and JSON."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main


def write_csv(path: Path, values: list[float | None], crashed: list[int] | None = None) -> Path:
    lines = ["metric,crashed" if crashed is not None else "metric"]
    for i, value in enumerate(values):
        text = "" if value is None else repr(value)
        lines.append(f"{text},{crashed[i]}" if crashed is not None else text)
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["stats", *args])
    return result.exit_code, result.output


def test_json_has_the_documented_keys_and_hand_computed_numbers(tmp_path: Path) -> None:
    a = [0.80, 0.82, 0.79, 0.81, 0.83]
    b = [0.90, 0.92, 0.91, 0.93, 0.89]
    code, out = run(str(write_csv(tmp_path / "a.csv", a)), str(write_csv(tmp_path / "b.csv", b)), "--json")
    assert code == 0, out
    data = json.loads(out)
    for key in ("n_a", "n_b", "mean_a", "mean_b", "p_value", "cohen_d", "effect", "significant", "stable", "verdict",
                "std_a", "std_b", "power", "test"):  # fmt: skip
        assert key in data
    sp = math.sqrt((4 * statistics.variance(a) + 4 * statistics.variance(b)) / 8)
    d = (statistics.mean(a) - statistics.mean(b)) / sp
    t = d / math.sqrt(2 / 5)
    assert data["cohen_d"] == pytest.approx(d)
    assert data["p_value"] == pytest.approx(math.erfc(abs(t) / math.sqrt(2)), rel=1e-6)
    assert data["verdict"] == "b better" and data["stable"] is True and data["significant"] is True
    assert data["n_a"] == 5 and data["test"] == "glm"


def test_lower_is_better_and_crashed_column(tmp_path: Path) -> None:
    a = write_csv(tmp_path / "a.csv", [0.5, 0.52, None, 0.49], crashed=[0, 0, 1, 0])
    b = write_csv(tmp_path / "b.csv", [0.2, 0.21, 0.22, 0.19], crashed=[0, 0, 0, 0])
    code, out = run(str(a), str(b), "--lower-is-better", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["verdict"] == "b better" and data["failed_a"] == 1 and data["n_a"] == 3
    code, out = run(str(a), str(b), "--json")
    assert json.loads(out)["verdict"] == "a better"


def test_zero_variance_json_is_valid(tmp_path: Path) -> None:
    a = write_csv(tmp_path / "a.csv", [1.0] * 5)
    b = write_csv(tmp_path / "b.csv", [0.1] * 5)
    code, out = run(str(a), str(b), "--json")
    data = json.loads(out)
    assert code == 0 and data["p_value"] == 0.0 and data["cohen_d"] == "inf" and data["effect"] == "large"


def test_table_prints_mean_spread_and_n(tmp_path: Path) -> None:
    a = write_csv(tmp_path / "a.csv", [0.80, 0.82, 0.79])
    b = write_csv(tmp_path / "b.csv", [0.90, 0.92, 0.91])
    code, out = run(str(a), str(b), "--test", "mannwhitney", "--adaptive")
    assert code == 0
    assert "0.8033" in out and "N" in out and "verdict:" in out and "adaptive" in out


def test_bad_csv_is_a_usage_error_with_the_line(tmp_path: Path) -> None:
    good = write_csv(tmp_path / "good.csv", [0.5, 0.6])
    bad = tmp_path / "bad.csv"
    bad.write_text("metric\n0.5\nabc\n")
    code, out = run(str(good), str(bad))
    assert code == 2 and "bad.csv:3" in out
    missing = tmp_path / "nometric.csv"
    missing.write_text("accuracy\n0.5\n")
    code, out = run(str(good), str(missing))
    assert code == 2 and "no 'metric' column" in out
    code, out = run(str(missing), str(missing), "--column", "accuracy", "--json")
    assert code == 0
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe metric\n")
    code, out = run(str(good), str(binary))
    assert code == 2 and "binary.csv: cannot read" in out
