"""Confidence of classified components: the rules of mutreal.compare.confidence, pinned on own programs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mutreal.compare.components import FaultComponent
from mutreal.compare.confidence import LEVELS, OPAQUE_KINDS, assess, judgement_codes
from mutreal.compare.kinds import ComponentKind
from mutreal.results import BugResult, ComponentResult

SRC = str(Path(__file__).resolve().parents[2] / "src")

MODEL = """from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x = np.random.rand(100, 8)
y = np.random.randint(0, 2, (100, 1))
model = Sequential()
model.add(Dense(16, activation='relu', input_dim=8))
model.add(Dense(1, activation='{act}'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs={epochs}, batch_size=16)
"""


def _classify(tmp_path: Path, buggy: str, fixed: str) -> list[dict]:
    (tmp_path / "buggy.py").write_text(buggy)
    (tmp_path / "fixed.py").write_text(fixed)
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mutreal",
            "classify",
            "--json",
            str(tmp_path / "buggy.py"),
            str(tmp_path / "fixed.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout)["components"]


def test_aligned_literal_change_is_high(tmp_path: Path) -> None:
    comps = _classify(tmp_path, MODEL.format(act="relu", epochs=10), MODEL.format(act="sigmoid", epochs=10))
    assert [(c["code"], c["confidence"], c["confidence_reason"]) for c in comps] == [("ACH", "high", None)]


def test_removed_layer_is_lowered_and_judgement_code_low(tmp_path: Path) -> None:
    fixed = MODEL.format(act="sigmoid", epochs=10)
    buggy = fixed.replace("model.add(Dense(1,", "model.add(Dense(16))\nmodel.add(Dense(1,")
    comps = _classify(tmp_path, buggy, fixed)
    (c,) = comps
    assert c["code"] in judgement_codes()  # LRM: removed and a judgement call
    assert c["confidence"] == "low"
    assert "no counterpart" in c["confidence_reason"] and "judgement call" in c["confidence_reason"]


def test_table_shows_the_level(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text(MODEL.format(act="relu", epochs=10))
    (tmp_path / "f.py").write_text(MODEL.format(act="sigmoid", epochs=10))
    out = subprocess.run(
        [sys.executable, "-m", "mutreal", "classify", str(tmp_path / "b.py"), str(tmp_path / "f.py")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        check=True,
    )
    assert "confidence" in out.stdout and "high" in out.stdout


def test_judgement_groups_come_from_the_decision_table() -> None:
    assert {"CPP", "IWS", "IWF", "LRM", "LDM", "LAD", "OCH", "HLR"} <= judgement_codes()
    assert "ACH" not in judgement_codes()


_KINDS = st.sampled_from(["const", "seq", "ref", "layer", *OPAQUE_KINDS])


@given(
    _KINDS,
    _KINDS,
    st.sampled_from(["changed", "added", "removed"]),
    st.sampled_from(["ACH", "HNE", "CPP", "LRM"]),
)
def test_levels_follow_the_facts(before: str, after: str, change: str, code: str) -> None:
    c = FaultComponent("model[0].layer[1].activation", ComponentKind("layer.activation"), change)
    c.evidence = {
        "before_kind": before if change != "added" else None,
        "after_kind": after if change != "removed" else None,
    }
    level, reason = assess(c, code)
    assert level in LEVELS
    opaque = change == "changed" and (before in OPAQUE_KINDS or after in OPAQUE_KINDS)
    if opaque or change != "changed" or code in judgement_codes():
        assert level != "high" and reason
    else:
        assert (level, reason) == ("high", None)


@given(st.sampled_from([*LEVELS, None]), st.one_of(st.none(), st.text(max_size=30)))
def test_confidence_round_trips_through_the_results_line(level: str | None, reason: str | None) -> None:
    row = BugResult(
        id="b", components=[ComponentResult(code="ACH", confidence=level, confidence_reason=reason)]
    )
    back = BugResult.from_dict(json.loads(row.to_json_line()))
    assert back.components[0].confidence == level and back.components[0].confidence_reason == reason
    assert back.to_json_line() == row.to_json_line()


def test_old_lines_without_the_fields_still_read() -> None:
    (row,) = [BugResult.from_dict({"id": "x", "status": "ok", "components": [{"code": "ach"}]})]
    assert row.components[0].confidence is None and "confidence" not in row.components[0].extra


def test_agree_second_prints_per_level_rows(tmp_path: Path) -> None:
    row = BugResult(
        id="b1",
        components=[
            ComponentResult(code="ACH", confidence="high"),
            ComponentResult(code="CPP", confidence="low"),
        ],
    )
    (tmp_path / "r.jsonl").write_text(row.to_json_line())
    (tmp_path / "study.csv").write_text('id,codes,is_mutant\nb1,"ACH",Y\n')
    (tmp_path / "second.csv").write_text('id,codes,is_mutant\nb1,"ACH, CPP","Y, N"\n')
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mutreal",
            "agree",
            str(tmp_path / "r.jsonl"),
            str(tmp_path / "study.csv"),
            "--second",
            str(tmp_path / "second.csv"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert "precision per confidence level against study" in out.stdout, out.stdout + out.stderr
    assert "precision per confidence level against second" in out.stdout
    lines = {
        ln.split()[0]: ln.split() for ln in out.stdout.splitlines() if ln.split() and ln.split()[0] in LEVELS
    }
    assert "high" in lines and "low" in lines
