"""Properties of the Table 3/4 figures on random bugs, checked against direct counting."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.report.tables import ALL, Bug, benchmark_figures, pct_half_up

component = st.tuples(
    st.sampled_from(["ACH", "HLR", "CPP", "TWS", "LRM"]), st.sampled_from([True, False, None])
)
bug = st.tuples(
    st.sampled_from(["A", "B", "C"]),
    st.lists(component, max_size=6),
    st.sampled_from(["ok", "ok", "ok", "error"]),
    st.sampled_from([True, False, None]),
)


def make(bugs) -> list[Bug]:
    return [
        Bug(
            f"b{i}",
            bench,
            [c for c, _ in comps],
            [f for _, f in comps],
            [None] * len(comps),
            status,
            realistic=real,
        )
        for i, (bench, comps, status, real) in enumerate(bugs)
    ]


@settings(max_examples=200, deadline=None)
@given(st.lists(bug, max_size=30))
def test_figures_equal_direct_counts(raw):
    bugs = make(raw)
    figures = {f.name: f for f in benchmark_figures(bugs)}
    for name, f in figures.items():
        members = [b for b in bugs if name in (ALL, b.benchmark) and b.status == "ok" and b.codes]
        assert f.all.bugs == len(members)
        assert f.all.total == sum(len(b.codes) for b in members)
        assert f.all.max_order == max((len(b.codes) for b in members), default=0)
        assert f.all.fault_types == len({c for b in members for c in b.codes})
        known = [flag for b in members for flag in b.simulable if flag is not None]
        assert (f.all.rsfc.num, f.all.rsfc.den) == (sum(known), len(known))
        decided = [b for b in members if False in b.simulable or None not in b.simulable]
        assert f.all.rsb.den == len(decided)
        assert f.all.rsb.num == sum(all(b.simulable) for b in decided)
        everyone = [b for b in bugs if name in (ALL, b.benchmark)]
        assert f.order0 == sum(1 for b in everyone if b.status == "ok" and not b.codes)
        assert f.errors == sum(1 for b in everyone if b.status != "ok")
        real = [b for b in members if b.realistic]
        assert f.realistic is not None or all(b.realistic is None for b in bugs)
        if f.realistic is not None:
            assert f.realistic.bugs == len(real)
    # ALL pools the benchmarks
    parts = [f for n, f in figures.items() if n != ALL]
    assert figures[ALL].all.total == sum(f.all.total for f in parts)
    assert figures[ALL].all.rsb.num == sum(f.all.rsb.num for f in parts)


@given(st.integers(0, 10_000), st.integers(1, 10_000))
def test_percent_rounds_half_up(num, den):
    from decimal import ROUND_HALF_UP, Decimal

    expected = int((Decimal(100 * num) / Decimal(den)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    assert pct_half_up(num, den) == expected
