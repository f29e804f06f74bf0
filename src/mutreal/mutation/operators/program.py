"""A parsed program shared by every operator and mutant: one parse, one extraction, one index.

Why a module: ``mutate --all`` writes hundreds of mutants of one subject; a :class:`Program`
parses and extracts it once and answers the questions every operator asks (which call builds a
layer, which argument carries a canonical keyword, how to spell a new Keras name here).
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import libcst as cst
import libcst.helpers

from mutreal.extract.positions import NodeIndex
from mutreal.mutation.operators.node_index import _callee_last, _norm_ws
from mutreal.mutation.operators.records import Site
from mutreal.program import keras_api
from mutreal.program.model import KerasModel, Layer, ProgramModel

if TYPE_CHECKING:
    from mutreal.mutation.operators.base import Operator


@dataclass
class LayerGroup:
    """One layer constructor call in the source and the layer instances it builds."""

    call: int
    instances: list[tuple[int, int, Layer]]  # (model index, layer index, layer)
    model: KerasModel
    #: the layer inside a wrapper (``TimeDistributed(Dense(3))``): its arguments have the wrapper's
    #: element paths (``model[0].layer[2].activation``), as classify compares wrapped layers
    wrapped: bool = False

    @property
    def layer(self) -> Layer:
        return self.instances[0][2]


def source_encoding(data: bytes) -> str:
    """The encoding Python reads a source file's bytes with (``utf-8-sig`` for a byte-order mark)."""
    import io
    import tokenize

    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    try:
        found = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "utf-8"
    try:
        codecs.lookup(found)
    except LookupError:
        return "utf-8"
    return "utf-8" if found.replace("_", "-").lower() in ("utf-8", "utf8") else found


class Program:
    """A parsed program with its model and node index, shared by every operator and mutant."""

    def __init__(
        self, text: str, path: str = "<string>", era: str | None = None, encoding: str = "utf-8"
    ) -> None:
        from mutreal.extract import extract_model

        self.text = text
        self.path = path
        #: the file's encoding: a mutant is written in it (``utf-8-sig`` keeps a byte-order mark)
        self.encoding = encoding
        self.module = cst.parse_module(text)
        self.model: ProgramModel = extract_model(self.module, path, era)
        self.index = NodeIndex(self.module)
        self._sites: dict[str, list[Site]] = {}

    @classmethod
    def from_file(cls, path: str, era: str | None = None) -> Program:
        """The program of a file as written: line endings kept (a CRLF file's mutants stay CRLF),
        decoded with its encoding (a byte-order mark or a PEP 263 coding line; UTF-8 otherwise)."""
        with open(path, "rb") as fh:
            data = fh.read()
        encoding = source_encoding(data)
        return cls(data.decode(encoding), path, era, encoding)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode(self.encoding)).hexdigest()

    @property
    def era(self) -> str:
        return self.model.era

    def node(self, node_id: int) -> cst.CSTNode:
        return self.index.nodes[node_id]

    # -- locating model elements ------------------------------------------------------------------
    def find_call(self, line: int | None, text: str | None = None, name: str | None = None) -> int | None:
        """The call starting on ``line`` whose text is ``text`` (whitespace-insensitive), else
        the first one whose callee's last name is ``name``."""
        if line is None:
            return None
        cands = self.index.calls_by_line.get(line, [])
        if text:
            want = _norm_ws(text)
            for cid in cands:
                got = _norm_ws(self.index.text(cid))
                while got != want and got.startswith("(") and got.endswith(")"):
                    got = got[1:-1]  # ``model.add((Dense(1)))``: the parentheses belong to the call node
                if got == want:
                    return cid
        if name:
            for cid in cands:
                if _callee_last(self.index.nodes[cid]) == name:  # type: ignore[arg-type]
                    return cid
        return None

    @cached_property
    def layer_groups(self) -> list[LayerGroup]:
        """Layers grouped by the constructor call that builds them, in source order."""
        groups: dict[int, LayerGroup] = {}
        for km in self.model.models:
            for li, layer in enumerate(km.layers):
                if not layer.known or layer.file != self.model.path and layer.file != self.path:
                    continue
                cid = self.find_call(layer.line, layer.text)
                if cid is None or not isinstance(self.index.nodes[cid], cst.Call):
                    continue
                found = [(cid, layer, False)]
                inner = layer.inner
                if inner is not None and inner.known:
                    icid = self.find_call(inner.line, inner.text)
                    if icid is not None:
                        found.append((icid, inner, True))
                for call_id, lay, wrapped in found:
                    g = groups.get(call_id)
                    if g is None:
                        groups[call_id] = LayerGroup(call_id, [(km.index, li, lay)], km, wrapped)
                    else:
                        g.instances.append((km.index, li, lay))
        return sorted(groups.values(), key=lambda g: self.index.position(g.call))

    @cached_property
    def layer_groups_by_call(self) -> dict[int, LayerGroup]:
        return {g.call: g for g in self.layer_groups}

    def fit_call(self, fit_index: int) -> int | None:
        fit = self.model.fits[fit_index]
        return self.find_call(fit.line, None, fit.method)

    def compile_call(self, compile_index: int) -> int | None:
        c = self.model.compiles[compile_index]
        return self.find_call(c.line, None, "compile")

    # -- arguments of calls -----------------------------------------------------------------------
    def find_arg(
        self, call_id: int, names: Iterable[str], position: int | None = None
    ) -> tuple[int, cst.Arg] | None:
        """The argument node of a call given by keyword (any of ``names``) or position."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        wanted = set(names)
        pos = 0
        for arg in call.args:
            if arg.keyword is not None:
                if arg.keyword.value in wanted:
                    return id(arg), arg
            elif not arg.star:
                if position is not None and pos == position:
                    return id(arg), arg
                pos += 1
        return None

    def layer_arg(self, call_id: int, layer: Layer, canonical: str) -> tuple[int, cst.Arg] | None:
        """The argument of a layer constructor call that carries canonical argument ``canonical``."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        positional = keras_api.positional_params(layer.cls, self.era)
        pos = 0
        for arg in call.args:
            if arg.keyword is not None:
                if keras_api.canonical_kwarg(layer.cls, arg.keyword.value, self.era) == canonical:
                    return id(arg), arg
            elif not arg.star:
                if pos < len(positional) and positional[pos] == canonical:
                    return id(arg), arg
                pos += 1
        return None

    def uses_legacy_kwargs(self, call_id: int, cls: str) -> bool:
        """Whether a layer call is written with Keras 1 keyword spellings (``init=``, ``W_regularizer=``)."""
        call = self.index.nodes[call_id]
        assert isinstance(call, cst.Call)
        for arg in call.args:
            if arg.keyword is not None:
                kw = arg.keyword.value
                if kw in keras_api.LEGACY_LAYER_KWARGS and keras_api.canonical_kwarg(cls, kw) != kw:
                    return True
        return self.era == "keras1"

    # -- spelling of new names --------------------------------------------------------------------
    @cached_property
    def keras_root(self) -> str:
        """``keras`` or ``tensorflow.keras``: the packaging the program imports Keras from."""
        for target in self.model.imports.values():
            if target.startswith(("tensorflow.keras", "tensorflow.python.keras")) or target == "tensorflow":
                return "tensorflow.keras"
        return "keras"

    @cached_property
    def import_lines(self) -> dict[str, int]:
        """The line where each name an import statement binds is first bound (anywhere in the
        module): an alias is only reused for an edit below that line."""
        out: dict[str, int] = {}
        for nid, node in self.index.nodes.items():
            if not isinstance(node, cst.Import | cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
                continue
            line = self.index.position(nid)[0]
            for alias in node.names:
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    bound = alias.asname.name.value
                else:
                    bound = cst.helpers.get_full_name_for_node(alias.name) or ""
                    if isinstance(node, cst.Import):
                        bound = bound.split(".")[0]
                if bound and (bound not in out or line < out[bound]):
                    out[bound] = line
        return out

    def spell(self, module: str, name: str, before: int | None = None) -> tuple[str, str | None]:
        """How to write ``<keras root>.<module>.<name>`` here: (expression, import to add or None).

        Uses an alias the program already imports (``optimizers.Adam``, ``keras.optimizers.Adam``,
        ``tf.keras.optimizers.Adam``, ``Adam`` itself), else adds
        ``from <root>.<module> import <name>``. With ``before`` (the edited line) only an alias
        imported above that line is reused: one a result block imports after training is unbound
        where the edit uses it.
        """
        root = self.keras_root
        full_mod = f"{root}.{module}"
        best: tuple[int, str] | None = None
        lines = self.import_lines
        for alias, target in self.model.imports.items():
            if before is not None and lines.get(alias.split(".")[0], 0) >= before:
                continue
            cand = None
            if target == f"{full_mod}.{name}":
                cand = (0, alias)
            elif target == full_mod:
                cand = (1, f"{alias}.{name}")
            elif target == root:
                cand = (2, f"{alias}.{module}.{name}")
            elif target == "tensorflow" and root == "tensorflow.keras":
                cand = (3, f"{alias}.keras.{module}.{name}")
            if cand and (best is None or cand < best):
                best = cand
        if best is not None:
            return best[1], None
        return name, f"from {full_mod} import {name}"

    @cached_property
    def quote(self) -> str:
        """The program's usual string quote (for new string literals)."""
        dq = sq = 0
        for node in self.index.nodes.values():
            if isinstance(node, cst.SimpleString):
                q = node.quote
                if q == '"':
                    dq += 1
                elif q == "'":
                    sq += 1
        return "'" if sq > dq else '"'

    def string(self, value: str, like: cst.CSTNode | None = None) -> str:
        """A string literal in the quote style of ``like`` (a string node) or the program's."""
        q = like.quote if isinstance(like, cst.SimpleString) and like.quote in ("'", '"') else self.quote
        return f"{q}{value}{q}"

    # -- sites --------------------------------------------------------------------------------------
    def sites(self, op: Operator) -> list[Site]:
        """The sites of ``op`` here, computed once per program and operator."""
        got = self._sites.get(op.id)
        if got is None:
            raw = op.find_sites(self)
            raw.sort(key=lambda s: (s.file, s.line, s.col))
            for i, s in enumerate(raw):
                s.index = i
            got = self._sites[op.id] = raw
        return got

    def make_site(
        self, op: Operator, anchor: int, elements: Sequence[str], old: str | None, original: Any, **kw: Any
    ) -> Site:
        line, col = self.index.position(anchor)
        return Site(
            operator=op.id,
            index=-1,
            element=elements[0],
            elements=list(elements),
            file=self.path,
            line=line,
            col=col,
            old=old,
            original=original,
            anchor=anchor,
            **kw,
        )
