"""The report's realism section: each real fault against the mutant that reconstructs it.

The question of the realism study is whether a mutation tool's operators make faults that behave
like real ones. ``compare --manifest`` (mutants ``reconstruct``) answers it per bug: the operators
classify matched, applied to the fixed program with the buggy program's values, trained beside the
real fault. This section reads those rows and shows, per bug:

- the best reconstructing mutant: the one that reconstructs the most of the fault (the
  higher-order mutant of every simulable component before any single one of them; an exact
  reconstruction before a partial one), then the reliable one, then the highest coupling and IoU.
  Coverage comes first because a first-order mutant that happens to couple better is still a
  different fault; it is shown in the second table.
- its coupling strength and detectability IoU with the fault (Ahmed et al.), or, for a bug without
  a figure, the reason: no mutant (and why), no per-input correctness, no input killing the
  mutant, an error or missing data.
- for a fault of several components, each first-order mutant against their higher-order
  combination: each one's kill, mean KP, coupling and IoU with the fault, and how the higher-order
  mutant couples with it (``CS(HOM, FOM)``: the share of the HOM's killing that also kills the
  FOM, from the KP vectors of the row). Whether the combination is closer to the fault than each
  of its parts, and harder to kill than each (a subsuming HOM), is the last column.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mutreal.report.tables import Table

#: what the row of a bug with a figure says in its reason column
NO_REASON = ""


def _provenance(mutant: Mapping[str, Any]) -> dict[str, Any]:
    return dict(mutant.get("provenance") or {})


def reconstructing(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The row's mutants made by reconstructing the fault (``--mutants reconstruct``)."""
    return [dict(m) for m in row.get("mutants") or [] if _provenance(m).get("mode") == "reconstruct"]


def order_of(mutant: Mapping[str, Any]) -> int:
    """How many fault components the mutant carries (1 for a mutant without provenance)."""
    provenance = _provenance(mutant)
    return int(provenance.get("order") or len(provenance.get("components") or []) or 1)


def best_reconstruction(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The mutant that reconstructs the most of the fault (see the module docstring), or None."""
    candidates = reconstructing(row)
    if not candidates:
        return None

    def key(m: Mapping[str, Any]) -> tuple[Any, ...]:
        provenance = _provenance(m)
        exact = bool(provenance.get("exact")) and not provenance.get("partial")
        coupling = m.get("coupling")
        return (order_of(m), exact, bool(m.get("reliable")), coupling is not None, coupling or 0.0,
                m.get("iou") or 0.0)  # fmt: skip

    return max(candidates, key=key)


def reconstruction_kind(row: Mapping[str, Any], mutant: Mapping[str, Any] | None) -> str:
    """``exact``, ``partial: k of n components`` (with what was left out), or ``none``."""
    if mutant is None:
        return "none"
    provenance = _provenance(mutant)
    done = provenance.get("reconstructed") or []
    left = provenance.get("not_reconstructed") or []
    if provenance.get("partial") or left:
        total = len(done) + len(left)
        missing = ", ".join(str(c.get("code")) for c in left)
        return f"partial: {len(done)} of {total} components" + (f" (not {missing})" if missing else "")
    if provenance.get("exact"):
        return "exact"
    residual = provenance.get("residual") or []
    return "inexact" + (f" ({len(residual)} residual difference(s))" if residual else "")


def fault_codes(row: Mapping[str, Any], codes: Mapping[str, Sequence[str]] | None = None) -> str:
    """The fault's codes: classify's row when the report has it, else the mutants' provenance."""
    known = (codes or {}).get(str(row.get("id")))
    if known:
        return ", ".join(known)
    for m in reconstructing(row):
        provenance = _provenance(m)
        parts = [*(provenance.get("reconstructed") or []), *(provenance.get("not_reconstructed") or [])]
        if parts:
            return ", ".join(str(c.get("code")) for c in parts)
    return ""


def no_figure_reason(row: Mapping[str, Any], mutant: Mapping[str, Any] | None) -> str:
    """Why the bug has no coupling or no IoU with its reconstructing mutant ('' when it has both)."""
    status = row.get("status")
    if status != "ok":
        why = row.get("reason") or row.get("error") or "no reason given"
        return f"{status}: {why}"
    if mutant is None:
        mode = row.get("mode") or "?"
        return f"no reconstructing mutant (mutants from {mode}); " + (
            row.get("reason") or "compare --mutants reconstruct gives them"
        )
    if mutant.get("coupling") is not None and mutant.get("iou") is not None:
        return NO_REASON
    if mutant.get("failure"):
        return failure_text(mutant["failure"])
    if not_reproduced(row) is not None:
        return not_reproduced_text(row)
    fault_kp = (row.get("fault") or {}).get("kp")
    kp = mutant.get("kp")
    if fault_kp is None:
        note = next((n for n in row.get("notes") or [] if "per-input" in n), None)
        return note or "no per-input correctness for the fixed/buggy pair: no KP, coupling or IoU"
    if kp is None:
        return "no per-input correctness in the mutant's runs: no KP, coupling or IoU"
    runs = kp.get("n_instances")
    parts = []
    if mutant.get("coupling") is None and not kp.get("inputs_killing"):
        parts.append(f"no input kills the mutant in {runs} paired run(s): coupling undefined")
    if mutant.get("iou") is None:
        parts.append(f"no input kills the mutant or the fault in {runs} paired run(s): IoU undefined")
    return "; ".join(parts) or "coupling or IoU missing from the row"


def failure_text(failure: Mapping[str, Any]) -> str:
    """A mutant whose runs failed, not by the model (:mod:`mutreal.analysis.run_failures`): its kind,
    error, and whether it is mutreal's defect."""
    defect = "; a mutreal defect" if failure.get("mutreal_defect") else ""
    return (f"the mutant is {failure.get('kind')} ({failure.get('runs')} of {failure.get('of')} runs: "
            f"{failure.get('error')}{defect}): not a kill, no KP, coupling or IoU")  # fmt: skip


def not_reproduced(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The row's fault-not-reproduced record (reason, both programs' means and runs), or None."""
    return (row.get("fault") or {}).get("not_reproduced")


def not_reproduced_text(row: Mapping[str, Any]) -> str:
    """``fault not reproduced here: ... (buggy mean 0.99 over 3 runs, fixed mean 0.76 over 3 runs)``."""
    found = not_reproduced(row) or {}

    def side(name: str) -> str:
        data = found.get(name) or {}
        mean = "-" if data.get("mean") is None else f"{data['mean']:.4f}"
        return f"{name} mean {mean} over {data.get('n')} of {data.get('runs')} runs"

    return f"{found.get('reason')} ({side('buggy')}, {side('fixed')}): coupling and IoU null"


def failed_mutant_counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Mutants of every row per kind of failure that is not the model's, and mutreal's defects."""
    from mutreal.analysis.run_failures import failure_counts

    return failure_counts(m.get("failure") for row in rows for m in row.get("mutants") or [])


def _failure_kinds(failed: Mapping[str, int]) -> str:
    """Each kind of failed mutant with its count, in the analysis' own order and words (a kind added
    there is counted here without a second list), and how many are mutreal's defects."""
    from mutreal.analysis.run_failures import KINDS, MUTREAL_DEFECTS

    counts = ", ".join(f"{kind} {failed.get(kind, 0)}" for kind in KINDS)
    return f"{counts} ({failed.get('mutreal_defects', 0)} mutreal defects: {' and '.join(MUTREAL_DEFECTS)})"


def _yes_no(value: Any) -> str:
    return "" if value is None else ("yes" if value else "no")


def _round(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def _mutant_text(mutant: Mapping[str, Any] | None) -> str:
    """``HLR+HNE = [0.1, 2]``: the operator(s) and the value(s) the mutant writes."""
    if mutant is None:
        return ""
    value = mutant.get("value")
    return str(mutant.get("operator") or "(given)") + ("" if value is None else f" = {json.dumps(value)}")


def realism_bugs_table(rows: Sequence[Mapping[str, Any]], source: str,
                       codes: Mapping[str, Sequence[str]] | None = None) -> Table:  # fmt: skip
    """Per bug: its best reconstructing mutant, coupling and IoU with the fault, or why there is none.

    Ten columns, so that the reason of a bug without a figure stays on screen beside it."""
    out = []
    for row in rows:
        best = best_reconstruction(row)
        fault = row.get("fault") or {}
        out.append([
            row["id"], str(row.get("benchmark") or "(none)"), fault_codes(row, codes),
            reconstruction_kind(row, best), _mutant_text(best),
            f"{_yes_no(fault.get('killed')) or '-'} / "
            f"{((best or {}).get('failure') or {}).get('kind') or _yes_no((best or {}).get('killed')) or '-'}",
            _round((best or {}).get("coupling")), _round((best or {}).get("iou")),
            _yes_no(best.get("reliable")) if best else "", no_figure_reason(row, best),
        ])  # fmt: skip
    with_figure = sum(1 for r in out if r[6] is not None and r[7] is not None)
    apart = sum(1 for row in rows if row.get("status") == "ok" and not_reproduced(row) is not None)
    failed = failed_mutant_counts(rows)
    columns = ["id", "benchmark", "fault codes", "reconstruction", "best reconstructing mutant",
               "killed (fault / mutant)", "coupling", "IoU", "reliable", "no figure because"]  # fmt: skip
    note = (
        f"From {source}: {len(out)} bug(s), {with_figure} with a coupling and an IoU; {apart} whose fault is "
        "not reproduced here (the buggy program kills no input or is not worse than the fixed one: counted "
        "apart, their coupling and IoU are null, not 0.0); mutants whose runs failed, not by the model (no "
        f"kill, no figure): {_failure_kinds(failed)}. best reconstructing "
        "mutant: of the mutants compare --mutants reconstruct made from the fault's components, the one "
        "carrying the most of them (exact before partial), then reliable, then highest coupling and IoU; "
        "shown as operator(s) = value(s). killed: DeepCrime's kill of the fault and of the mutant "
        "against the fixed program. coupling: Ahmed et al.'s coupling strength sum min(KP_M, KP_F) / "
        "sum KP_M over the inputs; IoU: sum min / sum max. reliable: as the row's rule says (enough "
        "paired runs, both kill an input). A bug whose compare row is not ok gives its status and reason."
    )
    return Table("realism_bugs", "Each real fault and its best reconstructing mutant", columns, out, note)


def _mean_kp(mutant: Mapping[str, Any]) -> float | None:
    kp = mutant.get("kp") or {}
    return _round(kp.get("mean_kp"))


def _kp_vector(mutant: Mapping[str, Any]) -> list[float] | None:
    values = (mutant.get("kp") or {}).get("kp")
    return [float(v) for v in values] if values else None


def hom_against_foms(row: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(the higher-order reconstructing mutant, its first-order parts) of a row, or None when the
    row has no higher-order reconstruction with at least one first-order part beside it."""
    made = reconstructing(row)
    homs = [m for m in made if order_of(m) > 1]
    if not homs:
        return None
    hom = max(homs, key=order_of)
    own = {(c.get("operator"), c.get("element")) for c in _provenance(hom).get("components") or []}
    parts = [
        m for m in made
        if order_of(m) == 1
        and {(c.get("operator"), c.get("element")) for c in _provenance(m).get("components") or []} <= own
    ]  # fmt: skip
    return (hom, parts) if parts else None


def _hom_verdict(hom: Mapping[str, Any], parts: Sequence[Mapping[str, Any]]) -> str:
    """Whether the combination is closer to the fault and harder to kill than each of its parts."""
    said = []
    coupling = hom.get("coupling")
    others = [(p.get("operator"), p.get("coupling")) for p in parts]
    if coupling is None or any(c is None for _, c in others):
        said.append("closer to the fault: undecided (a coupling is missing)")
    else:
        beaten = [f"{op} {c:.3f}" for op, c in others if c >= coupling]
        said.append(
            f"closer to the fault than each part (coupling {coupling:.3f})"
            if not beaten
            else f"not closer to the fault than {', '.join(beaten)} (coupling {coupling:.3f})"
        )
    mean, means = _mean_kp(hom), [(p.get("operator"), _mean_kp(p)) for p in parts]
    if mean is None or any(v is None for _, v in means):
        said.append("harder to kill: undecided (a KP is missing)")
    else:
        easier = [f"{op} {v:.3f}" for op, v in means if v <= mean]  # type: ignore[operator]
        said.append(
            f"harder to kill than each part (mean KP {mean:.3f}: subsuming)"
            if not easier
            else f"not harder to kill than {', '.join(easier)} (mean KP {mean:.3f})"
        )
    return "; ".join(said)


def realism_hom_table(rows: Sequence[Mapping[str, Any]], source: str) -> Table:
    """Per fault of several components: each first-order mutant against their higher-order mutant."""
    from mutreal.stats.killing_probability import coupling_strength, detectability_iou

    out = []
    for row in rows:
        found = hom_against_foms(row)
        if found is None:
            continue
        hom, parts = found
        hom_kp = _kp_vector(hom)
        for m in [*parts, hom]:
            kp = _kp_vector(m)
            is_hom = m is hom
            versus_cs = versus_iou = None
            if not is_hom and hom_kp is not None and kp is not None and len(kp) == len(hom_kp):
                versus_cs, versus_iou = coupling_strength(hom_kp, kp), detectability_iou(hom_kp, kp)
            out.append([
                row["id"], "higher-order" if is_hom else "first-order", m.get("operator") or "", order_of(m),
                _yes_no(m.get("killed")), (m.get("kp") or {}).get("inputs_killing"), _mean_kp(m),
                _round(m.get("coupling")), _round(m.get("iou")), _round(versus_cs), _round(versus_iou),
                _hom_verdict(hom, parts) if is_hom else "",
            ])  # fmt: skip
    columns = ["id", "mutant", "operator", "order", "killed", "inputs killing", "mean KP", "coupling with fault",
               "IoU with fault", "CS(HOM, this)", "IoU with HOM", "higher-order mutant against its parts"]  # fmt: skip
    note = (
        f"From {source}: the bugs whose reconstruction has a higher-order mutant (HOM) and its first-order "
        "parts (FOMs). CS(HOM, this): the share of the HOM's killing probability that also kills this FOM "
        "(computed here from the rows' KP vectors, rounded to 4 digits); subsuming: the HOM's mean KP is "
        "below each part's (Jia and Harman's harder-to-kill combination)."
    )
    return Table(
        "realism_hom", "First-order mutants against their higher-order combination", columns, out, note
    )
