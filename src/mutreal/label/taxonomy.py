"""The taxonomy of real DL faults and the study's fault codes, loaded from ``taxonomy/``.

Why a module of its own: classify labels every fault component with a code, a taxonomy leaf
(or only a category where the study's code has no leaf) and reports group by category, so all of
them must read one tree with stable ids. The data lives in readable, diffable files
(``tree.yaml``, ``fault_codes.csv``, ``fault_code_leaves.csv``); this module only loads and
answers questions about it. Ids are append-only (see ``taxonomy/README.md``).

Typical use::

    tax = load_taxonomy()
    tax.code("LRM").category                      # 'Model > Layers > Missing/Redundant/Wrong Layer'
    tax.resolve_leaf("LRM", layer_type="Dropout")  # Leaf(id='L007', name='Missing dropout layer', ...)
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from mutreal.operator_catalogue import load_catalogue, operators_for_code
from mutreal.resources import data_dir
from mutreal.serialise import Record

#: Flag that marks the leaves which may be the reconstruction's one leaf too many (93 vs 92).
COUNT_SUSPECT = "count-suspect"


@dataclass(frozen=True)
class Category(Record):
    """An inner node of the taxonomy (e.g. ``Model > Layers > Layer Properties``)."""

    id: str
    name: str
    paper_code: str
    path: tuple[str, ...]
    parent_id: str | None = None
    note: str | None = None

    @property
    def path_text(self) -> str:
        """The category path as the study writes it, joined by `` > ``."""
        return " > ".join(self.path)


@dataclass(frozen=True)
class Leaf(Record):
    """A leaf (fault type) of the taxonomy; ``flag`` is set where the reconstruction is uncertain."""

    id: str
    name: str
    category_id: str
    confidence: str
    evidence: tuple[str, ...] = ()
    flag: str | None = None
    paper_code: str | None = None
    examples: tuple[str, ...] = ()
    note: str | None = None
    #: a leaf found spurious keeps its id (old results stay readable) but no longer counts
    retired: bool = False

    @property
    def uncertain(self) -> bool:
        """True for the leaves flagged as possibly spurious or merged (the paper counts one fewer)."""
        return self.flag == COUNT_SUSPECT

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class LeafRule(Record):
    """A conditional leaf of a code: ``when`` maps a detail key to a full-match regex (all must match)."""

    code: str
    when: tuple[tuple[str, str], ...]
    leaf_id: str
    note: str | None = None

    def matches(self, detail: Mapping[str, str]) -> bool:
        for key, pattern in self.when:
            value = detail.get(key)
            if value is None or not re.fullmatch(pattern, str(value), flags=re.IGNORECASE):
                return False
        return True


@dataclass(frozen=True)
class FaultCode(Record):
    """One row of the study's code table: a code, its meaning, its leaf (or only a category).

    ``leaf_id`` is the leaf when it does not depend on the change; ``leaf_by`` names the details
    (``layer_type``, ``change``, ...) whose values pick a conditional leaf through ``rules``.
    ``operators`` are the DeepCrime operators that change this kind of element (the study's
    reading of "simulable"); ``is_deepcrime_operator`` says the code is itself an operator id. Both
    are derived from the operator catalogue (``operators/deepcrime.yaml``'s ``fault_code``).
    """

    id: str
    code: str | None
    description: str
    category_id: str
    category: str
    leaf_id: str | None = None
    leaf: str | None = None
    leaf_by: tuple[str, ...] = ()
    is_deepcrime_operator: bool = False
    operators: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    note: str | None = None
    rules: tuple[LeafRule, ...] = field(default=())

    @property
    def has_leaf(self) -> bool:
        """True when some leaf can be named: a fixed one or at least one conditional one."""
        return self.leaf_id is not None or bool(self.rules)


class Taxonomy:
    """The loaded taxonomy: categories, leaves, fault codes and their conditional leaves."""

    def __init__(
        self,
        categories: list[Category],
        leaves: list[Leaf],
        codes: list[FaultCode],
        meta: Mapping[str, Any],
        extension_codes: list[FaultCode] | None = None,
    ) -> None:
        self.categories: dict[str, Category] = {c.id: c for c in categories}
        self.leaves: dict[str, Leaf] = {leaf.id: leaf for leaf in leaves}
        #: the study's 56 fault-code rows, in its order
        self.fault_codes: list[FaultCode] = list(codes)
        #: codes mutreal adds for operators the study never needed a code for (``extension_codes.csv``)
        self.extension_codes: list[FaultCode] = list(extension_codes or [])
        self.meta: dict[str, Any] = dict(meta)
        self._by_code: dict[str, list[FaultCode]] = {}
        for fc in self.fault_codes + self.extension_codes:
            for key in ((fc.code,) if fc.code else ()) + fc.aliases:
                self._by_code.setdefault(key.upper(), []).append(fc)
        self._category_by_path = {c.path_text.lower(): c for c in categories}

    # counts ---------------------------------------------------------------------------------
    @property
    def leaf_count(self) -> int:
        """Leaves in this reconstruction (93), retired ones not counted."""
        return sum(1 for leaf in self.leaves.values() if not leaf.retired)

    @property
    def paper_leaf_count(self) -> int:
        """Leaves the paper counts (92)."""
        return int(self.meta["paper_leaf_count"])

    def uncertain_leaves(self) -> list[Leaf]:
        """Leaves flagged as candidates for the reconstruction's extra leaf."""
        return [leaf for leaf in self.leaves.values() if leaf.uncertain and not leaf.retired]

    # lookups --------------------------------------------------------------------------------
    def leaf(self, leaf_id: str) -> Leaf:
        """The leaf with this id; KeyError if none."""
        return self.leaves[leaf_id]

    def find_leaf(self, name: str) -> Leaf | None:
        """The leaf of this name (case- and whitespace-insensitive), or None."""
        want = _norm(name)
        for leaf in self.leaves.values():
            if _norm(leaf.name) == want:
                return leaf
        return None

    def category(self, category_id_or_path: str) -> Category:
        """A category by id (``C05``) or by path text (``Model > Layers > Layer Properties``)."""
        if category_id_or_path in self.categories:
            return self.categories[category_id_or_path]
        found = self._category_by_path.get(" > ".join(_split_path(category_id_or_path)).lower())
        if found is None:
            raise KeyError(category_id_or_path)
        return found

    def category_path(self, node_id: str) -> tuple[str, ...]:
        """Names from the root to the category of a leaf id, or of a category id (itself included)."""
        if node_id in self.leaves:
            return self.categories[self.leaves[node_id].category_id].path
        return self.categories[node_id].path

    def children(self, category_id: str) -> list[Category]:
        """The direct sub-categories of a category."""
        return [c for c in self.categories.values() if c.parent_id == category_id]

    def leaves_under(self, category_id: str) -> list[Leaf]:
        """Every leaf in a category's subtree."""
        prefix = self.categories[category_id].path
        return [
            leaf
            for leaf in self.leaves.values()
            if self.categories[leaf.category_id].path[: len(prefix)] == prefix
        ]

    def code(self, code: str) -> FaultCode:
        """The fault code (or alias, case-insensitive); for LDM, listed twice, its first meaning.

        Use :meth:`meanings` to see every row of a code.
        """
        rows = self._by_code.get(code.strip().upper())
        if not rows:
            raise KeyError(f"unknown fault code {code!r}")
        return rows[0]

    def meanings(self, code: str) -> list[FaultCode]:
        """Every row of a code: two for LDM (layers' dimensions mismatch; missing dropout layer)."""
        return list(self._by_code.get(code.strip().upper(), []))

    def has_code(self, code: str) -> bool:
        return code.strip().upper() in self._by_code

    def code_ids(self) -> list[str]:
        """The distinct codes (aliases and the code-less row excluded), in table order."""
        seen: dict[str, None] = {}
        for fc in self.fault_codes:
            if fc.code:
                seen.setdefault(fc.code, None)
        return list(seen)

    def resolve_leaf(self, code: str, **detail: str) -> Leaf | None:
        """The leaf of ``code`` given details of the change, or None when the code has no leaf.

        Details are strings: ``layer_type`` (``"Dropout"``; ``"Activation"`` with ``activation=``
        ``"softmax"`` counts as ``"Activation(softmax)"``), ``change`` (what the fix does:
        ``added``, ``removed``, ``changed``), ``activation``, ``before_layer_type``,
        ``after_layer_type``. The first matching rule wins; otherwise the code's fixed leaf.
        """
        fc = self.code(code)
        details = {k: str(v) for k, v in detail.items() if v is not None}
        if details.get("layer_type", "").lower() == "activation" and "activation" in details:
            details["layer_type"] = f"Activation({details['activation']})"
        for rule in fc.rules:
            if rule.matches(details):
                return self.leaves[rule.leaf_id]
        return self.leaves[fc.leaf_id] if fc.leaf_id else None

    def conditional_leaves(self, code: str) -> list[Leaf]:
        """The leaves a code can resolve to through its rules (empty when its leaf is fixed)."""
        return [self.leaves[r.leaf_id] for r in self.code(code).rules]

    def __iter__(self) -> Iterator[Leaf]:
        return iter(self.leaves.values())


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").split()).lower()


def _split_path(text: str) -> list[str]:
    return [part.strip() for part in text.split(">") if part.strip()]


def _split_list(text: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (text or "").split(";") if part.strip())


def _parse_when(text: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, pattern = part.partition("=")
        if not sep:
            raise ValueError(f"bad condition {part!r}: expected key=regex")
        re.compile(pattern.strip())
        pairs.append((key.strip(), pattern.strip()))
    return tuple(pairs)


def _walk(
    nodes: list[dict[str, Any]],
    path: tuple[str, ...],
    parent: str | None,
    cats: list[Category],
    leaves: list[Leaf],
) -> None:
    for node in nodes:
        node_path = (*path, node["name"])
        cats.append(
            Category(node["id"], node["name"], str(node["paper_code"]), node_path, parent, node.get("note"))
        )
        for raw in node.get("leaves") or ():
            leaves.append(
                Leaf(
                    id=raw["id"],
                    name=raw["name"],
                    category_id=node["id"],
                    confidence=raw["confidence"],
                    evidence=tuple(raw.get("evidence", ())),
                    flag=raw.get("flag"),
                    paper_code=raw.get("paper_code"),
                    examples=tuple(raw.get("examples", ())),
                    note=raw.get("note"),
                    retired=bool(raw.get("retired", False)),
                )
            )
        _walk(node.get("children") or [], node_path, node["id"], cats, leaves)


def load_taxonomy_from(folder: Path) -> Taxonomy:
    """Load the taxonomy from a folder holding ``tree.yaml`` and the code tables; validates ids."""
    tree = yaml.safe_load((folder / "tree.yaml").read_text(encoding="utf-8"))
    cats: list[Category] = []
    leaves: list[Leaf] = []
    _walk(tree["tree"], (), None, cats, leaves)
    ids = [c.id for c in cats] + [leaf.id for leaf in leaves]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate taxonomy ids: {sorted(dupes)}")
    leaf_ids = {leaf.id for leaf in leaves}
    rules: dict[str, list[LeafRule]] = {}
    with (folder / "fault_code_leaves.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["leaf_id"] not in leaf_ids:
                raise ValueError(f"fault_code_leaves.csv: unknown leaf id {row['leaf_id']}")
            rules.setdefault(row["code"], []).append(
                LeafRule(row["code"], _parse_when(row["when"]), row["leaf_id"], row["note"] or None)
            )
    cat_ids = {c.id for c in cats}
    codes = _read_fault_codes(folder / "fault_codes.csv", leaf_ids, cat_ids, rules)
    extension = folder / "extension_codes.csv"
    extension_codes = _read_fault_codes(extension, leaf_ids, cat_ids, rules) if extension.exists() else []
    meta = {k: v for k, v in tree.items() if k != "tree"}
    return Taxonomy(cats, leaves, codes, meta, extension_codes)


def _read_fault_codes(
    path: Path, leaf_ids: set[str], cat_ids: set[str], rules: dict[str, list[LeafRule]]
) -> list[FaultCode]:
    """Fault-code rows of ``path`` (the study's table or mutreal's extension table), checked
    against the tree so a typo in an id fails at load time, not in a report. Which operators
    simulate a code is the operator catalogue's (each operator's ``fault_code``), not a column here."""
    name = path.name
    catalogue = load_catalogue()
    codes: list[FaultCode] = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["leaf_id"] and row["leaf_id"] not in leaf_ids:
                raise ValueError(f"{name} {row['id']}: unknown leaf id {row['leaf_id']}")
            if row["category_id"] not in cat_ids:
                raise ValueError(f"{name} {row['id']}: unknown category id {row['category_id']}")
            code = row["code"] or None
            codes.append(
                FaultCode(
                    id=row["id"],
                    code=code,
                    description=row["description"],
                    category_id=row["category_id"],
                    category=row["category"],
                    leaf_id=row["leaf_id"] or None,
                    leaf=row["leaf"] or None,
                    leaf_by=_split_list(row["leaf_by"]),
                    is_deepcrime_operator=code in catalogue,
                    operators=tuple(spec.id for spec in operators_for_code(code)) if code else (),
                    aliases=_split_list(row["aliases"]),
                    note=row["note"] or None,
                    rules=tuple(rules.get(code or "", ())),
                )
            )
    return codes


@lru_cache(maxsize=1)
def load_taxonomy() -> Taxonomy:
    """The taxonomy shipped with mutreal (checkout or installed wheel), loaded once."""
    return load_taxonomy_from(data_dir("taxonomy"))
