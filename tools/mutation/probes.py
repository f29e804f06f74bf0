"""The issue's hand-made probes, one at a time: each must make its named test fail (KILLED).

Run from anywhere: `python3 tools/mutation/probes.py`. Each probe copies src/ to a temporary folder,
applies one change and runs the one test that must catch it. Update the paths here when
a module moves (see scope.toml).
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

R = str(Path(__file__).resolve().parents[2])
P = [
 ("stats/two_groups.py", " or (crash_p < alpha and comparison.failed_b > comparison.failed_a)", "", "tests/stats/test_rule_boundaries.py::test_a_mutant_that_crashes_in_some_runs_but_not_all_is_killed_by_crash"),
 ("stats/two_groups.py", "if comparison.significant and d_worse >= kill_effect", "if comparison.significant and d_worse > kill_effect", "tests/stats/test_rule_boundaries.py::test_metric_kill_at_exactly_the_kill_effect"),
 ("analysis/killing.py", "r.killed_holm = (rejected and", "r.killed_holm = r.deepcrime.killed or (rejected and", "tests/stats/test_holm_verdicts.py::test_holm_removes_a_raw_deepcrime_kill"),
 ("analysis/killing.py", "r.fisher_killed_holm = rejected", "r.fisher_killed_holm = r.fisher.killed", "tests/stats/test_holm_verdicts.py::test_holm_removes_a_raw_fisher_kill"),
 ("stats/sequential.py", "p < alpha_look and d_target >= effect", "p < alpha and d_target >= effect", "tests/stats/test_rule_boundaries.py::test_efficacy_needs_the_per_look_alpha_not_the_full_alpha"),
 ("stats/sequential.py", "if upper is not None and upper < effect", "if upper is not None and upper <= effect", "tests/stats/test_rule_boundaries.py::test_futility_stops_strictly_below_the_effect"),
 ("stats/sequential.py", " + d_target**2 / (2 * (n_a + n_b))", "", "tests/stats/test_rule_boundaries.py::test_upper_bound_uses_the_hedges_olkin_standard_error"),
 ("stats/reproduction.py", "2 * k_b >= n_b", "2 * k_b > n_b", "tests/stats/test_rule_boundaries.py::test_auto_symptom_is_a_crash_from_half_the_buggy_runs_failing"),
 ("stats/reproduction.py", "(always or crash_p < alpha)", "(always or crash_p <= alpha)", "tests/stats/test_rule_boundaries.py::test_crash_reproduction_by_fisher_is_strictly_below_alpha"),
 ("stats/two_groups.py", "significant = p is not None and p < alpha", "significant = p is not None and p <= alpha", "tests/stats/test_rule_boundaries.py::test_reproduction_needs_p_strictly_below_alpha"),
 ("stats/two_groups.py", "if significant and d_b_better >= min_effect", "if significant and d_b_better > min_effect", "tests/stats/test_rule_boundaries.py::test_performance_fault_reproduced_at_exactly_the_reproduction_effect"),
 ("compare/data.py", "    if a is None or b is None:\n        return False\n    items_a", "    return True\n    if a is None or b is None:\n        return False\n    items_a", "tests/classify/test_noise_rule_controls.py::test_reshape_sample_count_keeps_a_changed_sample_shape"),
 ("compare/layers.py", "SNIPPET_COMPLETION_LAYERS = 2", "SNIPPET_COMPLETION_LAYERS = 1", "tests/classify/test_noise_rule_controls.py::test_completed_snippet_counts_the_appended_layers"),
 ("execution/plan.py", "cfg.timeout_s > stored.timeout_s", "cfg.timeout_s >= stored.timeout_s", "tests/runner/test_resume_rules.py::test_a_timed_out_run_is_retried_only_when_the_timeout_is_raised"),
 ("execution/plan.py", "return cfg.timeout_s is None or (", "return (", "tests/runner/test_resume_rules.py::test_a_timed_out_run_is_retried_only_when_the_timeout_is_raised"),
 ("execution/plan.py", "memory_limit > stored.memory_limit_mb", "memory_limit >= stored.memory_limit_mb", "tests/runner/test_resume_rules.py::test_a_run_out_of_memory_is_retried_only_when_the_memory_limit_is_raised"),
 ("execution/store.py", "chunk = keys[start : start + 500]", "chunk = keys[start : start + 499]", "tests/runner/test_resume_rules.py::test_more_than_one_chunk_of_stored_runs_is_reused_whole"),
]
for f, old, new, test in P:
    d = tempfile.mkdtemp(prefix="mutreal-probe-") + "/src"
    shutil.copytree(R + "/src", d)
    path = f"{d}/mutreal/{f}"
    s = Path(path).read_text()
    assert s.count(old) == 1, (f, old)
    Path(path).write_text(s.replace(old, new))
    env = dict(os.environ, PYTHONPATH=d)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test], cwd=R, env=env, capture_output=True, text=True)
    shutil.rmtree(Path(d).parent)
    print("KILLED" if r.returncode == 1 else f"NOT KILLED rc={r.returncode}", f, repr(old[:50]), "->", repr(new[:50]), "|", test.split("::")[1], flush=True)
