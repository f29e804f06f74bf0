"""The committed example report (reports/example) is what `mutreal report` makes from its results."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "reports" / "example"


@pytest.mark.skipif(not (EXAMPLE / "results.jsonl").exists(), reason="no example report committed")
def test_example_tables_are_up_to_date(tmp_path):
    out = tmp_path / "again"
    result = CliRunner().invoke(
        main, ["report", str(EXAMPLE / "results.jsonl"), "--out", str(out), "--no-plots"]
    )
    assert result.exit_code == 0, result.output
    made = sorted(p.name for p in (out / "tables").glob("*.csv"))
    assert made == sorted(p.name for p in (EXAMPLE / "tables").glob("*.csv"))
    for name in made:
        assert (out / "tables" / name).read_text() == (EXAMPLE / "tables" / name).read_text(), (
            f"reports/example/tables/{name} is stale: regenerate with the command in reports/README.md"
        )
    assert {p.name for p in (EXAMPLE / "plots").glob("*.png")} >= {"order_histogram.png", "rsb_rsfc.png"}
