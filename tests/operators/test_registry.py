"""The registry reads entry points: built-ins and a plugin's operator register the same way."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import tomllib

from mutreal.mutation.operators import Edit, Example, Operator, Program, Site, apply_edits, registry
from mutreal.mutation.operators.base import Change
from mutreal.mutation.operators.common import make_edit
from mutreal.operator_catalogue import OperatorSpec, ParamSpec, load_catalogue
from mutreal.program.model import fit_path


class DoubleEpochs(Operator):
    """A plugin operator: doubles fit's explicit epochs."""

    id = "XDE"

    @property
    def spec(self) -> OperatorSpec:
        return OperatorSpec(
            id="XDE",
            name="Double epochs",
            category="plugin",
            deepcrime_key="",
            scope="program",
            elements=("fit.epochs",),
            summary="epochs x 2",
            param=None,
            direction_deepcrime="n/a",
            direction_mutreal="n/a",
            fault_code="HNE",
            taxonomy_leaf_id=None,
            deepcrime_enabled=False,
            deepcrime_search="none",
        )

    def find_sites(self, program: Program) -> list[Site]:
        out = []
        for fi, fit in enumerate(program.model.fits):
            call = program.fit_call(fi)
            v = fit.args.get("epochs")
            arg = program.find_arg(call, ("epochs",)) if call is not None else None
            if arg is not None and v is not None and v.is_const:
                out.append(
                    program.make_site(self, id(arg[1].value), [fit_path(fi, "epochs")], v.text, v.value)
                )
        return out

    def edit(self, program: Program, site: Site, value: Any, options) -> Edit:
        code = str(site.original * 2)
        return make_edit(
            self, site, None, site.old, code, [Change("replace", site.anchor, code=code)], label="x2"
        )

    def examples(self) -> list[Example]:
        return [
            Example("model.fit(x, y, epochs=3)\n", "model.fit(x, y, epochs=6)\n", style="keyword"),
            Example(
                "m.fit(a, b, epochs=10, verbose=0)\n",
                "m.fit(a, b, epochs=20, verbose=0)\n",
                style="with verbose",
            ),
        ]


def _fake_entry_points(extra: list[metadata.EntryPoint]):
    real = metadata.entry_points

    def entry_points(**kw: Any):
        eps = list(real(**kw))
        if kw.get("group") == registry.GROUP:
            eps += extra
        return eps

    return entry_points


@pytest.fixture
def plugin(monkeypatch):
    ep = metadata.EntryPoint(name="XDE", value=f"{__name__}:DoubleEpochs", group=registry.GROUP)
    monkeypatch.setattr(metadata, "entry_points", _fake_entry_points([ep]))
    registry.reload()
    yield registry.get("XDE")
    monkeypatch.undo()
    registry.reload()


def test_builtins_cover_the_catalogue() -> None:
    ids = set(registry.ids())
    assert set(load_catalogue()) <= ids
    for op_id in load_catalogue():
        assert registry.get(op_id).id == op_id
        assert registry.get(op_id.lower()).id == op_id


def test_builtins_come_from_entry_points() -> None:
    names = {ep.name for ep in metadata.entry_points(group=registry.GROUP)}
    assert set(load_catalogue()) <= names, "reinstall mutreal (pip install -e .) to refresh entry points"


def test_pyproject_registers_exactly_the_builtin_classes() -> None:
    """pyproject's entry points are derived by hand from the operator classes: this pins the derivation
    (an operator class without its entry point, or an entry point naming a moved class, fails here)."""
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"][registry.GROUP]
    builtins = registry.builtin_classes()
    assert declared == {oid: registry.entry_point_target(cls) for oid, cls in builtins.items()}
    assert list(builtins) == list(load_catalogue()), "every catalogue operator has its class, in catalogue order"


def test_validate_operators_tells_builtins_from_plugins(plugin) -> None:
    from mutreal.study.validate import is_plugin

    assert is_plugin(plugin) and not any(is_plugin(registry.get(oid)) for oid in load_catalogue())

    class Lookalike(type(registry.get("HNE"))):  # a plugin subclassing a built-in is still a plugin
        pass

    assert is_plugin(Lookalike())


def test_plugin_operator_registers_through_an_entry_point(plugin) -> None:
    assert "XDE" in registry.ids()
    assert isinstance(plugin, DoubleEpochs)
    program = Program("model.fit(x, y, epochs=3)\n", "p.py")
    mutant = apply_edits(program, [plugin.apply(program, 0)])
    assert mutant.code == "model.fit(x, y, epochs=6)\n"
    assert mutant.provenance.components[0].element == "fit.epochs"
    assert mutant.name == "p__XDE_0_x2.py"


def test_plugin_examples_are_run_like_builtin_ones(plugin) -> None:
    from .test_examples import test_operator_example

    for i in range(len(plugin.examples())):
        test_operator_example("XDE", i)


def test_a_broken_plugin_is_reported_and_skipped(monkeypatch, capsys) -> None:
    ep = metadata.EntryPoint(name="BAD", value="mutreal_no_such_module:Op", group=registry.GROUP)
    monkeypatch.setattr(metadata, "entry_points", _fake_entry_points([ep]))
    ops = registry.reload()
    assert "BAD" not in ops and "ACH" in ops
    assert "BAD" in capsys.readouterr().err
    monkeypatch.undo()
    registry.reload()


def test_unknown_operator_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="unknown operator"):
        registry.get("NOPE")


def test_param_spec_is_the_catalogue_s() -> None:
    assert isinstance(registry.get("ACH").spec.param, ParamSpec)
    assert registry.get("ACH").spec.param.values == load_catalogue()["ACH"].param.values


def test_a_plugin_under_the_group_s_old_name_still_loads(tmp_path, monkeypatch) -> None:
    """A plugin package written before the operators moved into ``mutreal.mutation`` registers under
    ``mutreal.operators``; it is installed here for real (a dist-info folder on sys.path)."""
    dist = tmp_path / "old_style_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: old-style-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[mutreal.operators]\nXDE = {__name__}:DoubleEpochs\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        registry.reload()
        assert "XDE" in registry.ids()
        assert isinstance(registry.get("XDE"), DoubleEpochs)
    finally:
        monkeypatch.undo()
        registry.reload()
    assert "XDE" not in registry.ids()
