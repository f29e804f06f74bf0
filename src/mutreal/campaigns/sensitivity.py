"""Operator sensitivity: train mutants over an operator's values and search the value that kills.

Training goes through :mod:`mutreal.campaigns.pair`, deciding through :mod:`mutreal.analysis`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutreal.analysis.killing import series_kill
from mutreal.analysis.series import MetricSeries, metric_series
from mutreal.analysis.settings import DecisionSettings
from mutreal.campaigns.pair import WarmWorkers, mutant_data_folders, run_programs, seeds_and_options
from mutreal.serialise import record_to_dict
from mutreal.stats import (
    KillVerdict,
)


@dataclass
class SensitivityPoint:
    """One operator value: the mutant, its runs (mean, spread, N) and DeepCrime's verdict on it."""

    value: Any
    program: str
    series: MetricSeries
    kill: KillVerdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "program": self.program,
            "killed": self.kill.killed,
            "p_value": self.kill.comparison.p_value,
            "d_worse": self.kill.to_dict()["d_worse"],
            "mutant": self.series.to_dict(),
        }


@dataclass
class SensitivityReport:
    """``mutreal sensitivity``: the metric against an operator's parameter, and the killable threshold."""

    program: str
    operator: str
    site: int
    element: str
    original_value: Any
    original: MetricSeries
    points: list[SensitivityPoint]
    search: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Its fields in order, written as mutreal writes every record (:func:`~mutreal.serialise.record_to_dict`)."""
        return record_to_dict(self)


def write_mutant(program: str, operator: str, site: int, value: Any, out_dir: str | Path) -> str:
    """Write the first-order mutant of ``program`` (operator, site, value) into ``out_dir``; its path.

    The files are written by :func:`mutreal.mutation.mutate.write_mutant`, so a sensitivity mutant and a
    ``mutreal mutate`` mutant are the same bytes."""
    from mutreal.mutation.mutate import write_mutant as write_mutant_files
    from mutreal.mutation.operators import Program, registry

    mutant = registry.get(operator).mutant(Program.from_file(program), site, value)
    return write_mutant_files(mutant, str(out_dir))[0]


def mark_output_folder(folder: str | Path) -> bool:
    """Create ``folder`` and mark it as mutreal's output when it is new, empty or already marked.

    A program folder's data hash skips a marked subfolder, so mutants and plots written there
    never change the program's run keys. A folder that already holds other files is not marked:
    it may be data. True when the folder is marked.
    """
    from mutreal.execution.hashing import OUTPUT_MARKER

    path = Path(folder)
    marker = path / OUTPUT_MARKER
    if path.is_dir() and not marker.exists() and any(path.iterdir()):
        return False
    path.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return True


def _numeric(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _midpoint(low: float, high: float, integer: bool) -> float:
    """Binary-search midpoint; geometric when both ends are positive and an order of magnitude apart."""
    if low > 0 and high > 0 and max(low, high) / min(low, high) >= 10:
        mid = math.sqrt(low * high)
    else:
        mid = (low + high) / 2
    return float(round(mid)) if integer else mid


def sensitivity(
    program: str,
    operator: str,
    values: Sequence[Any] | None = None,
    *,
    site: int = 0,
    runs: int = 5,
    seeds: Sequence[int] | None = None,
    search: bool = False,
    search_steps: int = 4,
    search_from: Any = None,
    out_dir: str | Path | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    campaign: Mapping[str, Any] | None = None,
) -> SensitivityReport:
    """Train mutants of ``program`` over operator values; optionally binary-search the killable threshold.

    ``values`` default to the operator's catalogue values at the site. Mutants are written into
    ``out_dir`` (default: the program's folder) with their provenance JSON; wherever they are, they
    run with the program's folder as their data folder (:func:`mutant_data_folders`), so they find
    its data files. ``search`` follows DeepCrime: if the most
    aggressive value (``search_from``, default the value farthest from the original) kills, halve
    the interval between it and the original value ``search_steps`` times, keeping the killing
    end; the threshold is the killing value closest to the original.
    """
    import tempfile

    from mutreal.mutation.operators import Program, registry

    op = registry.get(operator)
    source = Program.from_file(program)
    sites = op.sites(source)
    if not 0 <= site < len(sites):
        raise ValueError(f"{operator} has {len(sites)} site(s) in {program}; no site {site}")
    chosen_site = sites[site]
    candidates = list(values) if values else op.values(source, chosen_site)
    folder = Path(out_dir) if out_dir is not None else Path(program).resolve().parent
    settings = DecisionSettings.of(statistics)
    metric, lower_is_better = settings.metric, settings.lower_is_better
    seed_list, options = seeds_and_options(runs, seeds, settings, campaign)
    temporary = None
    if search and not options.get("store"):
        temporary = tempfile.TemporaryDirectory(prefix="mutreal-sensitivity-")
        options["store"] = str(Path(temporary.name) / "runs.sqlite")
    errors: list[str] = []
    warm = WarmWorkers(options) if search else None
    try:
        written: list[tuple[Any, str]] = []
        for value in candidates:
            try:
                written.append((value, write_mutant(program, operator, site, value, folder)))
            except Exception as error:  # noqa: BLE001 - one bad value never stops the sweep
                errors.append(f"{operator}={value!r}: {error}")
        paths = [path for _, path in written]
        options["data_folders"] = mutant_data_folders(program, paths, options.get("data_folders"))
        groups = run_programs([program, *paths], seed_list, options)
        original = metric_series(groups[0], metric, lower_is_better)

        def point(value: Any, path: str, records: Sequence[Any]) -> SensitivityPoint:
            series = metric_series(records, metric or original.metric, original.lower_is_better)
            return SensitivityPoint(value=value, program=path, series=series, kill=series_kill(original, series, settings))

        points = [point(v, p, g) for (v, p), g in zip(written, groups[1:], strict=True)]
        search_result = None
        if search:
            search_result = _binary_search(
                program, operator, site, chosen_site.original, candidates, points, point, search_steps,
                search_from, folder, seed_list, options, errors,
            )  # fmt: skip
    finally:
        if warm is not None:
            warm.__exit__()
        if temporary is not None:
            temporary.cleanup()
    points.sort(key=lambda p: (_numeric(p.value) is None, _numeric(p.value) or 0.0, str(p.value)))
    return SensitivityReport(
        program=program,
        operator=operator,
        site=site,
        element=chosen_site.element,
        original_value=chosen_site.original,
        original=original,
        points=points,
        search=search_result,
        errors=errors,
    )


def _binary_search(
    program: str,
    operator: str,
    site: int,
    original_value: Any,
    candidates: Sequence[Any],
    points: list[SensitivityPoint],
    point: Any,
    steps: int,
    search_from: Any,
    folder: Path,
    seeds: Sequence[int],
    options: Mapping[str, Any],
    errors: list[str],
) -> dict[str, Any]:
    """DeepCrime's killable-threshold search between the original value and the most aggressive one."""
    start = _numeric(original_value)
    if start is None:
        start = 0.0  # percentage operators (TRD, TCL, ...) start from "nothing changed"
    numeric = [(v, _numeric(v)) for v in candidates if _numeric(v) is not None]
    if not numeric:
        return {"searched": False, "reason": "the operator's parameter is not numeric (categorical values are "
                "swept exhaustively, as DeepCrime does)"}  # fmt: skip
    integer = all(float(n).is_integer() for _, n in numeric) and float(start).is_integer()

    def distance(n: float) -> float:
        if n > 0 and start > 0:
            return abs(math.log(n / start))
        return abs(n - start)

    extreme = (
        _numeric(search_from) if search_from is not None else max(numeric, key=lambda p: distance(p[1]))[1]
    )
    if extreme is None:
        return {"searched": False, "reason": f"--search-from {search_from!r} is not a number"}
    evaluated = {float(_numeric(p.value)): p for p in points if _numeric(p.value) is not None}

    def evaluate(value: float) -> SensitivityPoint | None:
        if value in evaluated:
            return evaluated[value]
        typed: Any = int(value) if integer else value
        try:
            path = write_mutant(program, operator, site, typed, folder)
        except Exception as error:  # noqa: BLE001
            errors.append(f"{operator}={typed!r}: {error}")
            return None
        folders = mutant_data_folders(program, [path], options.get("data_folders"))
        _, records = run_programs([program, path], seeds, {**options, "data_folders": folders})
        result = point(typed, path, records)
        points.append(result)
        evaluated[value] = result
        return result

    if integer:
        extreme, start = float(round(extreme)), float(round(start))

    def shown(value: float) -> int | float:
        return int(value) if integer else value

    trail: list[dict[str, Any]] = []
    first = evaluate(extreme)
    if first is None or not first.kill.killed:
        return {"searched": True, "killable": False, "threshold": None, "from": shown(extreme),
                "original": shown(start), "trail": [{"value": shown(extreme), "killed": False}]}  # fmt: skip
    trail.append({"value": shown(extreme), "killed": True})
    killing, surviving = extreme, start
    for _ in range(steps):
        mid = _midpoint(surviving, killing, integer)
        if mid in (killing, surviving):
            break
        result = evaluate(mid)
        if result is None:
            break
        trail.append({"value": shown(mid), "killed": result.kill.killed})
        if result.kill.killed:
            killing = mid
        else:
            surviving = mid
    return {"searched": True, "killable": True, "threshold": shown(killing), "last_surviving": shown(surviving),
            "from": shown(extreme), "original": shown(start), "trail": trail}  # fmt: skip
