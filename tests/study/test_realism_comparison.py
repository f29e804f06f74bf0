"""The pure part of the published-realism comparison: the sample rule, the join by DeepCrime name,
rho and the median difference, the reasons of a disagreement, and a bug's row."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.study.published_realism import PublishedMutant
from mutreal.study.realism_comparison import (
    bug_row,
    can_top_up,
    disagreement_reasons,
    join_rows,
    median_abs_difference,
    operator_key,
    position,
    runs_per_program,
    sample_mutants,
    sample_rule,
    spearman,
    summary,
    their_trainings,
    top_up,
    twin_agreement,
    twin_reason,
)

OPERATORS = ["change_activation_function", "change_loss_function", "delete_training_data",
             "add_weights_regularisation", "change_learning_rate", "change_dropout_rate"]  # fmt: skip

mutant_lists = st.lists(
    st.tuples(st.sampled_from(OPERATORS), st.integers(0, 40), st.floats(0, 1, allow_nan=False)),
    min_size=1,
    max_size=60,
    unique_by=lambda t: (t[0], t[1]),  # a bug's mutant names are unique in their files
).map(lambda items: [PublishedMutant("b1", f"{op}_mutated0_MP_{i}", round(cs, 4)) for op, i, cs in items])


@settings(max_examples=150, deadline=None)
@given(mutant_lists, st.integers(3, 20), st.integers(1, 6), st.randoms())
def test_sample_rule_guarantees(mutants, size, min_operators, rnd):
    unique = {m.name: m for m in mutants}
    sample = sample_mutants(mutants, size, min_operators)
    names = [m.name for m in sample]
    assert len(names) == len(set(names)) == min(size, len(unique))
    ops = {operator_key(m.name) for m in unique.values()}
    assert len({operator_key(n) for n in names}) >= min(min_operators, len(ops), size - 2)
    values = [m.cs for m in unique.values()]
    assert min(m.cs for m in sample) == min(values) and max(m.cs for m in sample) == max(values)
    shuffled = list(mutants)
    rnd.shuffle(shuffled)
    assert [m.name for m in sample_mutants(shuffled, size, min_operators)] == names  # order-free


def test_sample_skips_mutants_without_cs_and_states_its_rule():
    mutants = [
        PublishedMutant("b", f"{OPERATORS[i % 6]}_mutated0_MP_{i}", None if i % 2 else i / 30)
        for i in range(30)
    ]
    sample = sample_mutants(mutants, 12, 4)
    assert len(sample) == 12 and all(m.cs is not None for m in sample)
    assert "12" in sample_rule(12, 4) and "4 operators" in sample_rule(12, 4)
    with pytest.raises(ValueError):
        sample_mutants(mutants, 0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=3, max_size=30, unique=True), st.randoms())
def test_spearman_on_permutations(ints, rnd):
    xs = [i / 1000 for i in ints]  # distinct values stay distinct under 1 - x and 2x + 1
    assert spearman(xs, xs) == pytest.approx(1.0)
    assert spearman(xs, [1 - x for x in xs]) == pytest.approx(-1.0)
    order = list(range(len(xs)))
    rnd.shuffle(order)
    ys = [xs[i] * 2 + 1 for i in order]  # the same pairs in another order keep rho
    assert spearman([xs[i] for i in order], ys) == pytest.approx(1.0)
    assert -1.0 <= spearman(xs, [xs[i] for i in order]) <= 1.0


def test_spearman_undefined_and_median_difference():
    assert spearman([0.1, 0.2], [0.2, 0.1]) is None  # too few pairs
    assert spearman([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]) is None  # a constant side
    assert spearman([0.1, None, 0.3, 0.4], [0.2, 0.9, None, 0.1]) is None  # 2 complete pairs
    assert median_abs_difference([0.1, 0.5, None, 1.0], [0.2, 0.1, 0.3, 0.0]) == pytest.approx(0.4)
    assert median_abs_difference([None], [0.1]) is None


def test_position_in_a_distribution():
    p = position(0.5, [0.1, 0.4, 0.5, 0.9, None])
    assert p["rank"] == 0.75 and p["median"] == 0.45 and p["best"] == 0.9 and p["at_least_median"]
    assert position(None, [0.1]) is None and position(0.2, [None]) is None
    assert their_trainings(10) == 60


def _entry(file, cs, iou, reliable=False, **extra):
    return {"file": f"/w/{file}", "coupling": cs, "iou": iou, "reliable": reliable, **extra}


def _published(n=12):
    return [
        PublishedMutant("b1", f"{OPERATORS[i % 4]}_mutated0_MP_{i}", i / n, i / (2 * n), True)
        for i in range(n)
    ]


def test_join_by_name_leaves_unknown_out():
    published = _published(4)
    names = {f"dc{i}.py": m.name for i, m in enumerate(published)}
    entries = [
        _entry("dc0.py", 0.1, 0.05),
        _entry("dc3.py", None, None, outcomes={"crashed": 2}),
        _entry("x.py", 1, 1),
    ]
    matched = join_rows(published, entries, lambda e: names.get(e["file"].rsplit("/", 1)[1]))
    assert [m.name for m in matched] == sorted([published[0].name, published[3].name])
    missing = next(m for m in matched if m.our_cs is None)
    assert missing.reason == "no CS; runs: crashed 2" and missing.their_cs == published[3].cs
    silent = _entry("dc1.py", None, None, kp={"inputs_killing": 0, "n_instances": 5})
    (quiet,) = join_rows(published, [silent], lambda e: names.get(e["file"].rsplit("/", 1)[1]))
    assert quiet.reason == "the mutant kills no input in 5 runs: CS undefined"
    noted = join_rows(published, [silent], lambda e: names.get(e["file"].rsplit("/", 1)[1]),
                      notes=["/w/dc0.py: other", "/w/dc1.py: inputs cannot be paired"])  # fmt: skip
    assert noted[0].reason == "inputs cannot be paired"
    said = _entry(
        "dc1.py", None, None, similarity_reason="fault not reproduced here: the buggy program kills no input"
    )
    assert join_rows(published, [said], lambda e: names.get(e["file"].rsplit("/", 1)[1]))[
        0
    ].reason.startswith("fault not reproduced here")
    failed = _entry("dc1.py", None, None, failure={"kind": "stillborn", "reason": "no run completed"})
    assert join_rows(published, [failed], lambda e: names.get(e["file"].rsplit("/", 1)[1]))[0].reason == (
        "stillborn: no run completed"
    )


def _compared(published, ours, *, runs=5, inputs_killing=7, killed=True, rec=(0.9, 0.8)):
    entries = [_entry(f"dc{i}.py", cs, cs / 2, reliable=True) for i, cs in enumerate(ours)]
    entries.append(_entry("rec.py", *rec, operator="ACH"))
    fault = {"killed": killed, "kp": {"mean_kp": 0.2, "inputs_killing": inputs_killing, "n_inputs": 50}}
    return {
        "status": "ok",
        "runs": runs,
        "trainings": (len(entries) + 2) * runs,
        "fault": fault,
        "mutants": entries,
    }


def _row(published, compared):
    names = {f"dc{i}.py": m.name for i, m in enumerate(published)}
    return bug_row("b1", "X:1", published, published, compared,
                   name_of=lambda e: names.get(e["file"].rsplit("/", 1)[1]),
                   is_reconstruction=lambda e: e["file"].endswith("rec.py"))  # fmt: skip


def test_bug_row_agreeing_has_no_disagreement():
    published = _published()
    row = _row(published, _compared(published, [m.cs + 0.05 for m in published]))
    assert row["matched"] == 12 and row["cs"]["rho"] == pytest.approx(1.0)
    assert row["cs"]["median_abs_difference"] == pytest.approx(0.05) and row["disagreement"] == []
    rec = row["reconstruction"]
    assert rec["file"] == "w/rec.py" and rec["vs_same_runs_iou"]["at_least_median"]
    assert row["trainings"] == {
        "mutreal": 15 * 5,
        "mutreal_new": 15 * 5,
        "reconstruction": (2 + 1) * 5,
        "theirs": 70,
        "theirs_rule": "(their 12 mutants + faulty + original) x 5 instances",
    }
    stored = _row(published, _compared(published, [m.cs + 0.05 for m in published]) | {"trainings": 0})
    assert (stored["trainings"]["mutreal"], stored["trainings"]["mutreal_new"]) == (15 * 5, 0)  # all from the store
    s = summary([row])
    assert s["bugs"] == 1 and s["matched"] == 12 and s["reconstruction_at_least_same_runs_median_iou"] == 1
    assert s["their_median_cs"] == pytest.approx(row["cs"]["their_median"])


def test_bug_row_disagreement_says_why():
    published = _published()
    reversed_cs = [1 - m.cs for m in published]
    row = _row(published, _compared(published, reversed_cs, runs=2, inputs_killing=0))
    assert row["cs"]["rho"] == pytest.approx(-1.0)
    text = " | ".join(row["disagreement"])
    assert "fault not reproduced here" in text and "too few runs: 2" in text and "another test set" in text


def test_reasons_of_unreliable_and_missing_figures():
    published = _published(6)
    matched = join_rows(published, [_entry(f"dc{i}.py", None if i < 2 else 0.3, 0.1) for i in range(6)],
                        lambda e: published[int(e["file"][5])].name)  # fmt: skip
    for m in matched:
        m.their_reliable = False
    reasons = disagreement_reasons(matched, runs=5, fault={"killed": True, "kp": {"inputs_killing": 3, "n_inputs": 9}},
                                   rho=None, difference=0.5)  # fmt: skip
    text = " | ".join(reasons)
    assert "2 of 6 mutants have no mutreal CS" in text and "unreliable on both sides for 6 of 6" in text
    assert "every mutreal CS is 0.3" in text
    assert disagreement_reasons(matched, runs=5, fault=None, rho=0.9, difference=0.1) == []
    fault = {
        "killed": False,
        "kp": {"inputs_killing": 0},
        "not_reproduced": {"reason": "fault not reproduced here: X"},
    }
    matched[2].crashed = True
    text = " | ".join(
        disagreement_reasons(
            matched, runs=5, fault=fault, rho=0.1, difference=0.1, pairing="median n per input 1"
        )
    )
    assert "1 of 6 mutants crashed in every run" in text and "inputs differ between runs here" in text
    assert disagreement_reasons(matched, runs=5, fault=fault, rho=None, difference=None)[0].startswith(
        "fault not reproduced here: X"
    )


def test_random_rows_summary_is_consistent():
    rnd = random.Random(3)
    published = _published()
    rows = [_row(published, _compared(published, [rnd.random() for _ in published])) for _ in range(3)]
    s = summary(rows)
    assert s["matched"] == 36 and s["trainings"]["theirs"] == 3 * 70
    assert s["reconstruction_with_same_runs_figure"] == 3


def test_the_combined_reconstruction_stands_for_the_fault_whatever_the_order():
    published = _published()
    compared = _compared(published, [m.cs for m in published], rec=(1.0, 0.9))
    compared["mutants"].insert(0, _entry("components/01-ACH/rec_fom.py", 0.2, 0.1, operator="ACH"))
    names = {f"dc{i}.py": m.name for i, m in enumerate(published)}
    row = bug_row("b1", "X:1", published, published, compared,
                  name_of=lambda e: names.get(e["file"].rsplit("/", 1)[1]),
                  is_reconstruction=lambda e: "rec" in e["file"],
                  is_combined=lambda e: e["file"].endswith("/rec.py"))  # fmt: skip
    assert row["reconstruction"]["file"] == "w/rec.py" and row["reconstruction"]["mutants"] == 2
    assert row["reconstruction"]["iou"] == 0.9 and row["matched"] == 12


def test_mutants_whose_classes_are_not_their_accuracy_are_a_reason():
    published = _published(4)
    entries = [_entry(f"dc{i}.py", 0.9 - i / 10, 0.2, accuracy_disagreements=3 if i == 1 else 0) for i in range(4)]
    matched = join_rows(published, entries, lambda e: published[int(e["file"][5])].name)
    assert {m.name: m.accuracy_disagreements for m in matched} == {m.name: 3 * (i == 1) for i, m in enumerate(published)}
    fault = {"killed": True, "kp": {"inputs_killing": 3, "n_inputs": 9}}
    text = " | ".join(disagreement_reasons(matched, runs=5, fault=fault, rho=0.1, difference=0.5))
    assert f"1 of 4 mutants ({operator_key(published[1].name)}) have runs whose per-input classes" in text
    for m in matched:
        m.accuracy_disagreements = 0
    assert "per-input classes" not in " | ".join(disagreement_reasons(matched, runs=5, fault=fault, rho=0.1,
                                                                      difference=0.5))  # fmt: skip


def test_a_constant_fault_and_an_unstable_fix_are_reasons():
    published = _published(4)
    matched = join_rows(published, [_entry(f"dc{i}.py", i / 4, 0.1) for i in range(4)],
                        lambda e: published[int(e["file"][5])].name)  # fmt: skip
    fault = {"killed": True, "kp": {"inputs_killing": 3, "n_inputs": 9}}
    sides = {"buggy": [0.46] * 5, "fixed": [0.46, 0.875, 0.88, 0.64, 0.77]}
    text = " | ".join(disagreement_reasons(matched, runs=5, fault=fault, rho=-0.4, difference=0.5, sides=sides))
    assert "scores 0.46 in every run" in text and "spans 0.46 to 0.88 over 5 runs" in text
    steady = {"buggy": [0.46, 0.5, 0.46, 0.47, 0.46], "fixed": [0.86, 0.875, 0.88, 0.87, 0.88]}
    text = " | ".join(disagreement_reasons(matched, runs=5, fault=fault, rho=-0.4, difference=0.5, sides=steady))
    assert "every run" not in text and "unstable" not in text


def test_their_two_ids_of_one_program_are_set_side_by_side():
    a = [PublishedMutant("deepfd1", f"n{i}", i / 10, i / 20) for i in range(6)]
    b = [PublishedMutant("deeplocalize1", f"n{i}", 1 - i / 10, i / 20) for i in range(4)] + [
        PublishedMutant("deeplocalize1", "only_here", 0.5, 0.5)
    ]
    twin = twin_agreement("deepfd1", a, "deeplocalize1", b)
    assert twin["common"] == 4 and twin["cs"]["rho"] == pytest.approx(-1.0) and twin["iou"]["rho"] == pytest.approx(1.0)
    assert twin["cs"]["median_abs_difference"] == pytest.approx(median_abs_difference([0, 0.1, 0.2, 0.3], [1, 0.9, 0.8, 0.7]))
    assert "under deeplocalize1 against deepfd1's, over the 4 mutant names both publish: CS rho -1.00" in twin_reason(twin)
    assert twin_agreement("deepfd1", a, "x", [PublishedMutant("x", "other", 0.1)]) is None


def test_a_mutant_that_kills_nothing_scores_cs_0_as_theirs_does():
    # their quantify_realism.py starts the CS matrix at 0 and fills it only where the mutant's KPs sum
    # above 0: a mutant that killed nothing is 0.0 in their CSV; compare leaves mutreal's CS undefined
    # (0/0) and its IoU 0 (the fault kills some input): the comparison scores it 0 the same way
    published = _published(4)
    names = {f"dc{i}.py": m.name for i, m in enumerate(published)}
    silent = _entry("dc1.py", None, 0.0, kp={"inputs_killing": 0, "n_instances": 5})
    (m,) = join_rows(published, [silent], lambda e: names.get(e["file"].rsplit("/", 1)[1]))
    assert (m.our_cs, m.our_iou, m.no_kill) == (0.0, 0.0, True)
    assert m.reason == "the mutant kills no input in 5 runs: CS 0 (0/0, as theirs)"
    # not where the fault has no KP (IoU undefined too), nor where compare says why it has none
    for other in (
        _entry("dc1.py", None, None, kp={"inputs_killing": 0, "n_instances": 5}),
        _entry("dc1.py", None, 0.0, kp={"inputs_killing": 0, "n_instances": 5}, similarity_reason="fault not reproduced"),
        _entry("dc1.py", None, 0.0, kp={"inputs_killing": 0}, failure={"kind": "stillborn", "reason": "x"}),
    ):
        (n,) = join_rows(published, [other], lambda e: names.get(e["file"].rsplit("/", 1)[1]))
        assert n.our_cs is None and not n.no_kill
    compared = _compared(published, [0.2, 0.4, 0.6, 0.8])
    compared["mutants"][0] = _entry("dc0.py", None, 0.0, reliable=False, kp={"inputs_killing": 0, "n_instances": 5})
    row = _row(published, compared)
    assert (row["matched"], row["matched_no_kill"]) == (4, 1)
    assert row["cs"]["rho"] == pytest.approx(1.0)
    assert summary([row])["matched_no_kill"] == 1


def test_the_row_says_how_many_runs_each_program_got():
    published = _published(4)
    compared = _compared(published, [0.2, 0.4, 0.6, 0.8])
    compared["buggy"], compared["fixed"] = {"outcomes": {"ok": 5}}, {"outcomes": {"ok": 4, "crash": 1}}
    for i, e in enumerate(compared["mutants"]):
        e["outcomes"] = {"ok": 5 - (i == 2), "timeout": int(i == 2)} if i != 1 else {"ok": 3}
    assert _row(published, compared)["runs_per_program"] == {
        "buggy": 5, "fixed": 5, "mutants_min": 3, "mutants_max": 5,
    }  # fmt: skip
    assert runs_per_program({"mutants": []}) == dict.fromkeys(("buggy", "fixed", "mutants_min", "mutants_max"))


def test_top_up_takes_more_mutants_but_none_of_an_operator_that_cannot_be_paired_here():
    published = _published(12)  # operators cycle over OPERATORS
    sample = published[:4]
    unpaired = {"name": published[2].name, "our_cs": None, "reason": "validation labels differ: inputs cannot be paired"}
    silent = {"name": published[1].name, "our_cs": None, "reason": "stillborn: crashed"}
    extra, left_out = top_up(published, sample, [unpaired, silent], 3, min_operators=2)
    assert left_out == [operator_key(published[2].name)]
    assert len(extra) == 3 and not {m.name for m in extra} & {m.name for m in sample}
    assert all(operator_key(m.name) != left_out[0] for m in extra)
    assert top_up(published, sample, [], 0) == ([], [])
    assert top_up(published[:4], sample, [], 2) == ([], [])  # nothing left to take


def test_no_top_up_where_no_mutant_can_get_a_figure():
    assert can_top_up({"matched": 8, "fault": {"inputs_killing": 48}}, 10)
    assert not can_top_up({"matched": 10, "fault": {"inputs_killing": 48}}, 10)
    assert not can_top_up({"matched": 0, "fault": {"inputs_killing": None}}, 10)  # no KP: inputs unpaired
    assert not can_top_up({"matched": 0, "fault": {"inputs_killing": 0}}, 10)  # fault not reproduced
