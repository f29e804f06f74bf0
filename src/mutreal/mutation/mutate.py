"""The mutate API: sites of operators in a program, first-order mutants, files with provenance.

``mutreal mutate`` is a thin layer over :func:`list_sites`, :func:`generate` and
:func:`write_mutant`. A program is parsed, extracted and indexed once (:class:`Program`);
``--all`` reuses that for every site and value, so each further mutant costs one targeted
transformation, one code generation and a syntax check.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "operator": self.operator,
            **self.site.to_dict(),
            "values": self.values,
            "equivalent": [{"value": v, "why": why} for v, why in self.equivalent],
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


def equivalence(program: Program, mutant: Mutant) -> str | None:
    """Why ``mutant`` is equivalent to ``program`` (None when it is not, or cannot be told).

    General: the mutant's program model is extracted and compared with the original's exactly as
    classify compares a pair. An edit that surely changes the program (:func:`_surely_changes`:
    most mutants) skips that extraction, so ``mutate --all`` stays about one parse per mutant."""
    if _surely_changes(program, mutant):
        return None
    from mutreal.compare import diff_models
    from mutreal.extract import extract_source

    try:
        model = extract_source(mutant.code, program.path)
        if diff_models(program.model, model):
            return None
    except Exception:  # an advisory check: a mutant whose model cannot be built is written
        return None
    texts = "; ".join(f"{e.old if e.old is not None else '(absent)'} -> {e.new}" for e in mutant.edits)
    return f"equivalent: the program model finds no change ({texts} is the same program once folded)"


def _names(code: str) -> set[str] | None:
    """The plain names an expression or statements read (None: does not parse)."""
    try:
        tree = ast.parse(code.strip() or "None")
    except SyntaxError:
        return None
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound(program: Program, mutant: Mutant) -> set[str]:
    """Names that are not program variables: the program's import aliases, those the edits import."""
    bound = set(program.model.imports) | {"True", "False", "None"}
    for e in mutant.edits:
        for c in e.changes:
            if c.kind == "import" or (
                c.kind == "insert_before" and c.code.lstrip().startswith(("import ", "from "))
            ):
                try:
                    tree = ast.parse(c.code)
                except SyntaxError:
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.Import | ast.ImportFrom):
                        bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


_ACTIVATION = re.compile(r"^model\[(\d+)\]\.layer\[(\d+)\]\.activation$")


def _folds(program: Program, element: str) -> bool:
    """Whether a layer's activation folds with an ``Activation`` layer next to it (``Dense(50,
    activation='relu')`` then ``Activation('relu')``): the model, not the text, tells whether a
    new activation there changes anything."""
    m = _ACTIVATION.match(element)
    if m is None:
        return False
    from mutreal.mutation.operators.common import folded_owner

    mi, li = int(m.group(1)), int(m.group(2))
    try:
        owner = folded_owner(program, mi, li)
        layers = program.model.models[mi].layers
    except (IndexError, KeyError):
        return True
    if owner is not None and len(owner.sources) > 1:
        return True
    after = layers[li + 1].cls if li + 1 < len(layers) else ""
    return after in _ACTIVATION_LAYERS


#: layers that are only an activation (one after a layer folds with its activation argument)
_ACTIVATION_LAYERS = frozenset(
    {"Activation", "ReLU", "Softmax", "LeakyReLU", "ELU", "PReLU", "ThresholdedReLU"}
)


def _surely_changes(program: Program, mutant: Mutant) -> bool:
    """Whether every change of a mutant surely changes the program, so that no model needs to be
    built to tell: the old and the new text read no program variable (only literals and names the
    program imports: ``0.01`` -> ``0.001``, ``'relu'`` -> ``regularizers.l2(0.01)``) and differ;
    an import or a call of mutreal's
    runtime inserted (the training-data operators' seeded data step) changes it too. A removed
    argument, any text reading a variable (``len(x)``, ``l2(lambda_)``) or an activation that folds
    with an ``Activation`` layer takes the model."""
    bound = _bound(program, mutant)
    if any(_folds(program, c.element) for e in mutant.edits for c in e.components):
        return False
    for e in mutant.edits:
        for c in e.changes:
            if c.kind == "import":
                continue
            if c.kind == "insert_before":
                if "_mutreal_" not in c.code and not c.code.lstrip().startswith(("import ", "from ")):
                    return False
                continue
            if c.kind not in ("replace", "set_arg"):
                return False
            if c.kind == "replace":
                # the replaced node's text (an argument value the index skips: the edit's old text)
                old = program.index.text(c.target) if c.target in program.index.nodes else e.old
            else:
                old = ""
            if old is None:
                return False
            new_names, old_names = _names(c.code), _names(old)
            if new_names is None or old_names is None or (new_names | old_names) - bound:
                return False
            if "".join(old.split()) == "".join(c.code.split()):
                return False
    return True


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
                made = _made(program, op, site, v, opts, 0)
                if isinstance(made, Equivalent):
                    row.equivalent.append((v, made.error))
                else:
                    row.values.append(v)
            rows.append(row)
    rows.sort(key=lambda r: (r.site.file, r.site.line, r.site.col, rank[r.operator], r.site.index))
    return rows


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
    #: every mutant made, in order (written or not); not part of the JSON, which lists files
    mutants: list[Mutant] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "written": self.written,
            "failures": [f.to_dict() for f in self.failures],
            "equivalent": [f.to_dict() for f in self.equivalent],
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
