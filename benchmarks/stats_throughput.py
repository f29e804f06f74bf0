"""How fast the verdict statistics are, next to training (which dominates a campaign).

Prints, for a campaign of ``MUTANTS`` mutants x ``RUNS`` runs with ``INPUTS`` evaluated inputs:
seconds per DeepCrime GLM verdict, per Fisher per-input verdict, and for Holm over all mutants.
Run: ``python benchmarks/stats_throughput.py [mutants] [runs] [inputs]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from mutreal.stats import deepcrime_kill, fisher_kill, holm


def main() -> None:
    mutants = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    inputs = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    rng = np.random.default_rng(0)
    original = rng.normal(0.95, 0.01, runs)
    original_correct = rng.random((runs, inputs)) < 0.95
    shifts = rng.uniform(0, 0.05, mutants)

    started = time.perf_counter()
    verdicts = [deepcrime_kill(original, rng.normal(0.95 - s, 0.01, runs)) for s in shifts]
    glm_s = (time.perf_counter() - started) / mutants

    started = time.perf_counter()
    fisher = [fisher_kill(original_correct, rng.random((runs, inputs)) < 0.95 - s) for s in shifts]
    fisher_s = (time.perf_counter() - started) / mutants

    started = time.perf_counter()
    holm([v.comparison.p_value for v in verdicts])
    holm([f.min_p_value for f in fisher])
    holm_s = time.perf_counter() - started

    print(f"{mutants} mutants x {runs} runs, {inputs} inputs")
    print(f"DeepCrime GLM verdict (with power): {glm_s * 1000:.1f} ms per mutant")
    print(f"Fisher per-input verdict:           {fisher_s * 1000:.1f} ms per mutant")
    print(f"Holm over all mutants (both):       {holm_s * 1000:.2f} ms")
    print(
        f"killed: DeepCrime {sum(v.killed for v in verdicts)}, Fisher {sum(f.killed for f in fisher)}, "
        f"Fisher pool-corrected {sum(f.killed_pool for f in fisher)}"
    )

    # Equivalent mutants (same accuracy distribution, inputs right or wrong independently per
    # instance): how often does each rule kill them? The per-input Fisher rule is uncorrected over
    # inputs (that is what keeps it monotone), so its false kills grow with the number of inputs.
    for n_inputs in (10, 100, 1000, inputs):
        base = rng.random((runs, n_inputs)) < 0.9
        verdicts_eq = [fisher_kill(base, rng.random((runs, n_inputs)) < 0.9) for _ in range(50)]
        raw = sum(v.killed for v in verdicts_eq)
        pool = sum(v.killed_pool for v in verdicts_eq)
        print(
            f"equivalent mutants killed by Fisher with {n_inputs:>6} noisy inputs: {raw}/50, pool-corrected {pool}/50"
        )
    glm_false = sum(deepcrime_kill(original, rng.normal(0.95, 0.01, runs)).killed for _ in range(200))
    print(f"equivalent mutants killed by DeepCrime's rule: {glm_false}/200")


if __name__ == "__main__":
    main()
