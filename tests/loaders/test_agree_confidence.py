"""`mutreal agree RESULTS LABELS --second SECOND`: precision per confidence level against each reader,
and the share of components neither reader names, on results rows written here with confidence
values (classify does not write the field yet). The "all" rows are the scoring script's precision
and supported_precision."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.study.confidence_agreement import confidence_agreement_files


def comp(code: str, level: str | None) -> dict:
    c = {"code": code, "simulable": True, "deepcrime": code}
    if level is not None:
        c.update(confidence=level, confidence_reason="test")
    return c


def write(tmp_path: Path, rows: list[dict], first: str, second: str) -> tuple[Path, Path, Path]:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "study.csv").write_text(first)
    (tmp_path / "blind.csv").write_text(second)
    return results, tmp_path / "study.csv", tmp_path / "blind.csv"


#: b1: ACH high (both readers), HLR low (neither); b2: two ACH (high, low) vs one ACH in the study
#: only, HNE medium (blind only); b3: LRM without confidence, named by the study; b4 error row
ROWS = [
    {"id": "b1", "status": "ok", "components": [comp("ACH", "high"), comp("HLR", "low")]},
    {
        "id": "b2",
        "status": "ok",
        "components": [comp("ACH", "high"), comp("ACH", "low"), comp("HNE", "medium")],
    },
    {"id": "b3", "status": "ok", "components": [comp("LRM", None)]},
    {"id": "b4", "status": "error", "error": "boom", "components": []},
]
STUDY = 'id,codes,is_mutant\nb1,ACH,Y\nb2,"ACH, LCH","Y,N"\nb3,LRM,N\nb4,OCH,Y\n'
BLIND = 'id,codes,note\nb1,"ACH (x), TCL",n\nb2,HNE,n\nb3,,n\n'


def levels(table: dict) -> dict[str, tuple[int, float, float | None]]:
    return {x["level"]: (x["components"], x["matched"], x["precision"]) for x in table["levels"]}


def test_per_level_precision_counted_by_hand(tmp_path):
    results, study, blind = write(tmp_path, ROWS, STUDY, BLIND)
    agreement, any_confidence = confidence_agreement_files(results, study, blind)
    assert any_confidence
    d = agreement.to_dict()
    by_study, by_blind = (levels(t) for t in d["references"])
    # study: b1 ACH 1, HLR 0; b2 one labelled ACH shared by two predicted (0.5 each), HNE 0; b3 LRM 1
    assert by_study == {
        "high": (2, 1.5, 0.75),
        "medium": (1, 0.0, 0.0),
        "low": (2, 0.5, 0.25),
        "none": (1, 1.0, 1.0),
        "all": (6, 3.0, 0.5),
    }
    # blind labels b1 (ACH, TCL) and b2 (HNE); b3 has no code there, so it is not scored
    assert d["references"][1]["bugs"] == 2
    assert by_blind == {
        "high": (2, 1.0, 0.5),
        "medium": (1, 1.0, 1.0),
        "low": (2, 0.0, 0.0),
        "all": (5, 2.0, 0.4),
    }
    supported = {x["level"]: (x["precision"], x["unsupported_share"]) for x in d["supported"]["levels"]}
    # union b1 {ACH, TCL}; b2 {ACH, LCH, HNE}; b3 {LRM}: high 1.5/2, medium 1/1, low 0.5/2, none 1/1
    assert supported == {
        "high": (0.75, 0.25),
        "medium": (1.0, 0.0),
        "low": (0.25, 0.75),
        "none": (1.0, 0.0),
        "all": (pytest.approx(4 / 6, abs=1e-6), pytest.approx(2 / 6, abs=1e-6)),
    }
    # unsupported: high 0.5, medium 0, low 1.5, none 0 -> 2.0 in all, 1.5 of them low
    assert d["supported"]["unsupported_low"] == {"unsupported": 2.0, "low": 1.5, "share": 0.75}


def test_all_rows_are_the_scoring_scripts_figures(score_script: Path, tmp_path):
    rng = random.Random(5)
    codes = ["ACH", "HLR", "HNE", "LRM", "CPP"]
    rows, study, blind = [], ["id,codes,is_mutant"], ["id,codes,note"]
    for i in range(60):
        rows.append(
            {
                "id": f"b{i}",
                "status": "ok" if i % 13 else "error",
                "components": [
                    comp(rng.choice(codes), rng.choice(["high", "medium", "low", None]))
                    for _ in range(rng.randint(0, 4))
                ],
            }
        )
        a = [rng.choice(codes) for _ in range(rng.randint(0, 3))]
        b = [rng.choice(codes) for _ in range(rng.randint(0, 3))]
        study.append(f'b{i},"{", ".join(a)}",' + ",".join("Y" for _ in a))
        if i % 7:
            blind.append(f'b{i},"{", ".join(b)}",n')
    results, first, second = write(tmp_path, rows, "\n".join(study) + "\n", "\n".join(blind) + "\n")
    script = json.loads(
        subprocess.run(
            [sys.executable, str(score_script), str(results), str(first), str(second)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    d = confidence_agreement_files(results, first, second)[0].to_dict()
    overall = d["references"][0]["levels"][-1]
    assert overall["level"] == "all" and round(overall["precision"], 3) == script["precision"]
    supported = d["supported"]["levels"][-1]
    assert round(supported["precision"], 3) == script["supported_precision"]
    assert d["supported"]["bugs"] == script["two_rater_bugs"]
    assert sum(x["components"] for x in d["references"][0]["levels"][:-1]) == script["predicted"]


def mutreal(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mutreal", *args], capture_output=True, text=True, timeout=300
    )


def test_agree_second_prints_precision_per_level(tmp_path):
    results, study, blind = write(tmp_path, ROWS, STUDY, BLIND)
    done = mutreal("agree", str(results), str(study), "--second", str(blind))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "precision per confidence level against study (4 labelled bugs)" in text
    assert "precision per confidence level against blind (2 labelled bugs)" in text
    assert "named by either reader, per confidence level (3 bugs both readers label)" in text
    assert "high             2      1.5      0.750" in text
    assert "low              2        0.5      0.250        0.750" in text
    as_json = json.loads(mutreal("agree", str(results), str(study), "--second", str(blind), "--json").stdout)
    assert [t["reference"] for t in as_json["confidence"]["references"]] == ["study", "blind"]


def test_without_confidence_or_second_the_output_is_unchanged(tmp_path):
    plain = [
        {**r, "components": [{k: v for k, v in c.items() if "confidence" not in k} for c in r["components"]]}
        for r in ROWS
    ]
    results, study, blind = write(tmp_path, plain, STUDY, BLIND)
    done = mutreal("agree", str(results), str(study))
    assert done.returncode == 0 and "confidence level" not in done.stdout
    with_second = mutreal("agree", str(results), str(study), "--second", str(blind))
    assert (
        "none             6" in with_second.stdout
        and "components without a confidence field" in with_second.stdout
    )
    two_labellers = mutreal("agree", str(blind), str(study), "--second", str(blind))
    assert two_labellers.returncode == 2 and "COMPARED is a labels file" in two_labellers.stderr
