"""The mutate API: sites of operators in a program, first-order mutants, files with provenance.

``mutreal mutate`` is a thin layer over :func:`list_sites`, :func:`generate` and
:func:`write_mutant`. A program is parsed, extracted and indexed once (:class:`Program`);
``--all`` reuses that for every site and value, so each further mutant costs one targeted
transformation, one code generation and a syntax check.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mutreal.mutation.equivalence import equivalence, surely_changes
from mutreal.mutation.operators import registry
from mutreal.mutation.operators.base import (
    Mutant,
    MutationError,
    Operator,
    Program,
    Site,
    apply_edits,
)

__all__ = [
    "SiteRow",
    "Failure",
    "Equivalent",
    "Invalid",
    "equivalence",
    "MutateReport",
    "list_sites",
    "generate",
    "write_mutant",
    "write_program_files",
    "mutate_file",
]


@dataclass
class SiteRow:
    """One line of ``mutate --list``: an operator's site and the values ``--all`` would write."""

    operator: str
    site: Site
    values: list[Any]
    #: the values whose mutants are equivalent to the original, not written (value, why)
    equivalent: list[tuple[Any, str]] = field(default_factory=list)
    #: the values whose mutants fail the static check, not written (value, why)
    invalid: list[tuple[Any, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "operator": self.operator,
            **self.site.to_dict(),
            "values": self.values,
            "equivalent": [{"value": v, "why": why} for v, why in self.equivalent],
            "invalid": [{"value": v, "why": why} for v, why in self.invalid],
        }


@dataclass
class Failure:
    """A mutant that could not be made (not written): operator, site, value and why."""

    operator: str
    site: int | None
    value: Any
    error: str

    def to_dict(self) -> dict[str, Any]:
        return {"operator": self.operator, "site": self.site, "value": self.value, "error": self.error}


@dataclass
class Equivalent(Failure):
    """A mutant not written because it is equivalent: ``classify(original, mutant)`` would find no
    change (the program model folds the edit away: ``batch_size=len(x)`` where ``batch_size``
    already is the sample count, a regulariser of strength 0 made another of strength 0).

    A :class:`Failure` to callers that only tell mutants from the rest; ``mutate`` lists it apart
    (not written, not an error)."""


class Invalid(Failure):
    """A mutant not written because it fails the static check (:mod:`mutreal.mutation.static_check`):
    a name it introduces is unbound where it is used, or a keyword it adds is not one the called
    API takes in the program's framework. Such a mutant would measure mutreal, not a fault."""


def invalid_reason(program: Program, mutant: Mutant) -> str | None:
    """Why a mutant fails the static check (None: it passes)."""
    from mutreal.mutation.static_check import check_mutant

    found = check_mutant(program, mutant)
    return "fails the static check: " + "; ".join(map(str, found)) if found else None


def _ops(op_ids: Sequence[str] | None) -> list[Operator]:
    if not op_ids:
        return list(registry.operators().values())
    return [registry.get(o) for o in op_ids]


def list_sites(program: Program, op_ids: Sequence[str] | None = None) -> list[SiteRow]:
    """The applicable sites of every operator (or the given ones), ordered by file, then line and
    column of the edited node (operators in registry order on one node); each operator's sites are
    numbered from 0 in that order. A value whose mutant is equivalent to the original (see
    :func:`equivalence`) moves from ``values`` to ``equivalent`` with the reason."""
    rows = []
    rank = {}
    for i, op in enumerate(_ops(op_ids)):
        rank[op.id] = i
        opts = _options(op, {}, 0)
        for site in op.sites(program):
            row = SiteRow(op.id, site, [])
            for v in op.values(program, site):
                why = _equivalent_value(program, op, site, v, opts)
                bad = None if why is not None else _invalid_value(program, op, site, v, opts)
                if why is not None:
                    row.equivalent.append((v, why))
                elif bad is not None:
                    row.invalid.append((v, bad))
                else:
                    row.values.append(v)
            rows.append(row)
    rows.sort(key=lambda r: (r.site.file, r.site.line, r.site.col, rank[r.operator], r.site.index))
    return rows


def _equivalent_value(
    program: Program, op: Operator, site: Site, value: Any, opts: Mapping[str, Any]
) -> str | None:
    """Why the mutant of ``value`` at ``site`` is equivalent (None: it is not, or is not made);
    the mutant is only made when its edit does not surely change the program."""
    try:
        edit = op.apply(program, site, value, **opts)
        if surely_changes(program, [edit]):
            return None
        return equivalence(program, apply_edits(program, [edit]))
    except MutationError:
        return None


def _invalid_value(
    program: Program, op: Operator, site: Site, value: Any, opts: Mapping[str, Any]
) -> str | None:
    """Why the mutant of ``value`` at ``site`` fails the static check (None: it passes, or is not made)."""
    try:
        return invalid_reason(program, apply_edits(program, [op.apply(program, site, value, **opts)]))
    except MutationError:
        return None


def _options(op: Operator, options: Mapping[str, Any], seed: int) -> dict[str, Any]:
    opts = {k: v for k, v in options.items() if k in op.options}
    if "seed" in op.options:
        opts["seed"] = seed
    return opts


def generate(
    program: Program,
    op_id: str,
    *,
    site: int | None = None,
    value: Any = None,
    all_values: bool = False,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Iterator[Mutant | Failure]:
    """First-order mutants of ``op_id``: one (site 0, or ``site``; ``value`` or the first catalogue
    value), or with ``all_values`` one per site (or only ``site``) and catalogue value."""
    op = registry.get(op_id)
    opts = _options(op, options or {}, seed)
    unknown = set(options or {}) - set(op.options)
    if unknown:
        yield Failure(op.id, site, value, f"{op.id} has no option(s) {', '.join(sorted(unknown))}")
        return
    sites = op.sites(program)
    if not sites:
        yield Failure(op.id, site, value, f"{op.id} does not apply to {program.path} (no site)")
        return
    if not all_values:
        index = 0 if site is None else site
        yield _made(program, op, index, value, opts, seed)
        return
    chosen = sites if site is None else [s for s in sites if s.index == site]
    if not chosen:
        yield Failure(op.id, site, value, f"{op.id} has {len(sites)} site(s); no site {site}")
        return
    for s in chosen:
        values = [value] if value is not None else op.values(program, s)
        for v in values:
            yield _made(program, op, s, v, opts, seed)


def _made(
    program: Program, op: Operator, site: Site | int, value: Any, opts: Mapping[str, Any], seed: int
) -> Mutant | Failure:
    index = site if isinstance(site, int) else site.index
    try:
        mutant = apply_edits(program, [op.apply(program, site, value, **opts)], seed=seed)
    except MutationError as exc:
        return Failure(op.id, index, value, str(exc))
    why = equivalence(program, mutant)
    if why is not None:
        return Equivalent(op.id, index, mutant.edits[0].value, why)
    bad = invalid_reason(program, mutant)
    if bad is not None:
        return Invalid(op.id, index, mutant.edits[0].value, bad)
    return mutant


def write_mutant(mutant: Mutant, out_dir: str) -> tuple[str, str]:
    """Write ``<name>.py`` and ``<name>.json`` (provenance) into ``out_dir``; returns both paths.

    The one writer of first-order mutant files: ``mutate`` and the sensitivity analysis both call
    it, so their mutants are byte-identical for the same edit."""
    return write_program_files(
        out_dir, mutant.name, mutant.code, mutant.provenance.to_dict(), encoding=mutant.encoding
    )


def write_program_files(
    out_dir: str, name: str, code: str, provenance: Mapping[str, Any], *, encoding: str = "utf-8"
) -> tuple[str, str]:
    """Write a generated program as ``<name>`` and its provenance as ``<stem>.json`` (indented,
    newline-terminated; a value JSON lacks is written as its text) into ``out_dir``, created if
    needed; returns both paths. Mutants and higher-order mutants are written by it alike. The
    program is written as given (no newline translation: a CRLF original gives CRLF mutants) in
    ``encoding``, the original's."""
    os.makedirs(out_dir, exist_ok=True)
    py = os.path.join(out_dir, name)
    js = os.path.splitext(py)[0] + ".json"
    with open(py, "w", encoding=encoding, newline="") as fh:
        fh.write(code)
    with open(js, "w", encoding="utf-8") as fh:
        json.dump(provenance, fh, indent=2, default=str)
        fh.write("\n")
    return py, js


@dataclass
class MutateReport:
    """What :func:`mutate_file` wrote and what failed."""

    written: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    #: mutants not written because they are equivalent to the original (not failures)
    equivalent: list[Equivalent] = field(default_factory=list)
    #: mutants not written because they fail the static check (listed apart, not errors)
    invalid: list[Invalid] = field(default_factory=list)
    #: every mutant made, in order (written or not); not part of the JSON, which lists files
    mutants: list[Mutant] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "written": self.written,
            "failures": [f.to_dict() for f in self.failures],
            "equivalent": [f.to_dict() for f in self.equivalent],
            "invalid": [f.to_dict() for f in self.invalid],
        }


def mutate_file(
    path: str,
    op_id: str,
    *,
    out_dir: str | None,
    site: int | None = None,
    value: Any = None,
    all_values: bool = False,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    program: Program | None = None,
    on_written: Callable[[str], None] | None = None,
) -> MutateReport:
    """Generate and write mutants of one file (see :func:`generate`); ``on_written`` is called
    with each mutant's path as it is written (progress output). ``out_dir`` None writes nothing
    (the mutants are in the report's ``mutants``)."""
    program = program or Program.from_file(path)
    report = MutateReport()
    for item in generate(
        program, op_id, site=site, value=value, all_values=all_values, seed=seed, options=options
    ):
        if isinstance(item, Equivalent):
            report.equivalent.append(item)
            continue
        if isinstance(item, Invalid):
            report.invalid.append(item)
            continue
        if isinstance(item, Failure):
            report.failures.append(item)
            continue
        report.mutants.append(item)
        if out_dir is None:
            continue
        py, js = write_mutant(item, out_dir)
        prov = item.provenance.to_dict()
        fields = ("operator", "site", "element", "old", "new", "value")
        report.written.append({"mutant": py, "provenance": js, **{k: prov[k] for k in fields}})
        if on_written is not None:
            on_written(py)
    return report
