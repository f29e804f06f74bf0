"""Confidence of classified components: the rules of mutreal.compare.confidence, pinned on own programs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
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


_STACK = """from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x = np.random.rand(100, 8)
y = np.random.randint(0, 2, (100, 1))
model = Sequential()
{layers}model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=5, batch_size=16)
"""


def _stack(*layers: str) -> str:
    return _STACK.format(layers="".join(f"model.add({layer})\n" for layer in layers))


def test_a_tied_alignment_lowers_the_components_it_pairs(tmp_path: Path) -> None:
    """Two equal Dense layers where the buggy program has one: which one the fix added is a tie,
    so the units change found on the pair it made is lowered to medium for that reason only."""
    buggy = _stack("Dense(16, activation='relu', input_dim=8)", "Dense(4, activation='relu')")
    fixed = _stack(
        "Dense(16, activation='relu', input_dim=8)",
        "Dense(16, activation='relu')",
        "Dense(6, activation='relu')",
    )
    comps = {c["code"]: c for c in _classify(tmp_path, buggy, fixed)}
    assert comps["LCN"]["confidence"] == "medium"
    assert comps["LCN"]["confidence_reason"] == "alignment with several equally good matches"


def test_an_untied_alignment_keeps_the_change_high(tmp_path: Path) -> None:
    """Control: the inserted layer differs from its neighbour, so only one alignment is best."""
    buggy = _stack("Dense(16, activation='relu', input_dim=8)", "Dense(4, activation='relu')")
    fixed = _stack(
        "Dense(16, activation='relu', input_dim=8)",
        "Dense(32, activation='tanh')",
        "Dense(6, activation='relu')",
    )
    comps = {c["code"]: c for c in _classify(tmp_path, buggy, fixed)}
    assert (comps["LCN"]["confidence"], comps["LCN"]["confidence_reason"]) == ("high", None)


def test_an_opaque_value_on_one_side_lowers_confidence(tmp_path: Path) -> None:
    """An input shape read from an array classify cannot resolve (``table.shape[1:]``) on one side: whether it changed at all is a
    guess, so the component is low, for that reason."""
    fixed = _stack("Dense(16, activation='relu', input_shape=(8,))")
    buggy = fixed.replace("input_shape=(8,)", "input_shape=table.shape[1:]")
    comps = _classify(tmp_path, buggy, fixed)
    assert [(c["code"], c["confidence"]) for c in comps] == [("LIS", "low")]
    assert comps[0]["confidence_reason"] == "before value is an unknown expression; before value unresolved"


def test_a_call_on_one_side_is_lowered_one_level(tmp_path: Path) -> None:
    """A loss object built by a call against another: the change is found, one level lower."""
    base = _stack("Dense(16, activation='relu', input_dim=8)").replace(
        "loss='binary_crossentropy'", "loss={loss}"
    )
    buggy = base.format(loss="keras.losses.BinaryCrossentropy(from_logits=True)")
    fixed = base.format(loss="keras.losses.BinaryCrossentropy()").replace(
        "import numpy as np", "import numpy as np\nimport keras"
    )
    buggy = buggy.replace("import numpy as np", "import numpy as np\nimport keras")
    comps = _classify(tmp_path, buggy, fixed)
    assert [(c["code"], c["confidence"]) for c in comps] == [("LCH", "medium")]
    assert comps[0]["confidence_reason"].startswith("before value is a call")


@settings(deadline=None, max_examples=30)
@given(
    width=st.integers(min_value=2, max_value=64),
    copies=st.integers(min_value=1, max_value=4),
)
def test_inserting_a_copy_of_a_repeated_layer_is_always_a_tie(width: int, copies: int) -> None:
    """Property: a layer inserted among equal copies of itself can be any of them: every pair the
    alignment makes in that run is tied; the same run without an insertion is not."""
    from mutreal.compare.alignment import align_layers_with_ties
    from mutreal.extract import extract_source

    def fold(n: int):
        text = _stack(*[f"Dense({width}, activation='relu')"] * n)
        return [x for x in extract_source(text).models[0].folded_layers("keras2") if x.layer.cls == "Dense"]

    pairs, tied = align_layers_with_ties(fold(copies), fold(copies + 1))
    assert tied and all(p in pairs for p in tied)
    assert align_layers_with_ties(fold(copies), fold(copies))[1] == set()
