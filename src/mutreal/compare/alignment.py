"""Which layers and models of the two programs are compared with each other.

Layers are aligned with a global sequence alignment (Needleman-Wunsch over layer classes and
arguments), never by position, so an inserted Dropout does not shift every later comparison.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from mutreal.compare.noise import noise_rule
from mutreal.compare.values import values_equal
from mutreal.program.model import FoldedLayer, KerasModel

#: layer arguments that never matter
IGNORED_LAYER_ARGS = frozenset({"name", "trainable", "dtype", "weights", "autocast", "dynamic"})


@noise_rule("layer_names", "name= of layers and models is a label only")
def compared_layer_args(keys: set[str]) -> set[str]:
    """The layer arguments worth comparing: names, dtypes, trainability and weights are labels or
    set-up (:data:`IGNORED_LAYER_ARGS`)."""
    return keys - IGNORED_LAYER_ARGS


#: the rule's function, called directly in the alignment's inner loop
_compared_layer_args = compared_layer_args.apply

_DIMENSION = re.compile(r"(\d)D$")


def layer_base(cls: str) -> str:
    """Class name without its dimension and spelling variants: Conv1D/Conv2D -> Conv, MaxPool2D -> MaxPooling."""
    base = _DIMENSION.sub("", cls)
    base = re.sub(r"Pool$", "Pooling", base)
    return {"Convolution": "Conv", "CuDNNLSTM": "LSTM", "CuDNNGRU": "GRU"}.get(base, base)


#: classes one of which replaces another in the same place: a wrong layer (LWS), not a missing one
_SWAPPABLE = (
    frozenset({"LSTM", "GRU", "SimpleRNN"}),
    frozenset({"MaxPooling", "AveragePooling"}),
    frozenset({"GlobalMaxPooling", "GlobalAveragePooling"}),
    frozenset({"Conv", "SeparableConv", "DepthwiseConv"}),
)


def _replaceable(a: str, b: str) -> bool:
    """Whether layer class ``b`` in the fixed program is the same slot as ``a`` in the buggy one (LWS)."""
    ba, bb = layer_base(a), layer_base(b)
    return ba == bb or any(ba in group and bb in group for group in _SWAPPABLE)


def _layer_similarity(a: FoldedLayer, b: FoldedLayer, era_a: str, era_b: str) -> float:
    """Score for pairing two layers: same class scores high, more so with equal arguments."""
    if a.layer.cls == b.layer.cls:
        keys = _compared_layer_args(set(a.layer.args) | set(b.layer.args))
        if not keys:
            return 3.0
        # a layer's size (units/filters) says more about which layer it is than its other arguments
        weights = {k: 2.0 if k in ("units", "filters") else 1.0 for k in keys}
        same = sum(
            w for k, w in weights.items() if values_equal(a.layer.arg(k, era_a), b.layer.arg(k, era_b))
        )
        return 2.0 + same / sum(weights.values())
    if _replaceable(a.layer.cls, b.layer.cls):
        return 1.5
    return -1.0


Pairs = list[tuple[int | None, int | None]]

#: scores closer than this are equal (sums of fractions of argument weights)
_TIE = 1e-9


def align_layers(
    buggy: list[FoldedLayer], fixed: list[FoldedLayer], era_b: str = "keras2", era_f: str = "keras2"
) -> Pairs:
    """Global alignment of two layer sequences: pairs of indexes, None for a gap."""
    return align_layers_with_ties(buggy, fixed, era_b, era_f)[0]


def align_layers_with_ties(
    buggy: list[FoldedLayer], fixed: list[FoldedLayer], era_b: str = "keras2", era_f: str = "keras2"
) -> tuple[Pairs, set[tuple[int | None, int | None]]]:
    """The alignment of :func:`align_layers` and its tied pairs: those another alignment of the
    same best score would not make (an inserted ``Dense(16)`` next to an equal one: which of the
    two is the added layer is a guess). The tied pairs are found by tracing the score table back a
    second time, preferring gaps where the first trace preferred pairs; a component built from a
    tied pair is marked ``ambiguous_alignment`` (its confidence drops)."""
    n, m = len(buggy), len(fixed)
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    sims = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 diag, 1 up (buggy gap), 2 left (fixed gap)
    for i in range(1, n + 1):
        move[i][0] = 1
    for j in range(1, m + 1):
        move[0][j] = 2
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sim = _layer_similarity(buggy[i - 1], fixed[j - 1], era_b, era_f)
            sims[i][j] = sim
            best, how = score[i - 1][j], 1
            if score[i][j - 1] > best:
                best, how = score[i][j - 1], 2
            if sim > 0 and score[i - 1][j - 1] + sim >= best:
                best, how = score[i - 1][j - 1] + sim, 0
            score[i][j], move[i][j] = best, how
    pairs = _trace(n, m, lambda i, j: move[i][j])

    def gap_first(i: int, j: int) -> int:
        if i > 0 and abs(score[i - 1][j] - score[i][j]) < _TIE:
            return 1
        if j > 0 and abs(score[i][j - 1] - score[i][j]) < _TIE:
            return 2
        return move[i][j]

    other = set(_trace(n, m, gap_first))
    return pairs, {p for p in pairs if p not in other}


def _trace(n: int, m: int, how_at: Callable[[int, int], int]) -> Pairs:
    """The alignment read back from cell (n, m), ``how_at(i, j)`` naming each cell's move."""
    pairs: Pairs = []
    i, j = n, m
    while i > 0 or j > 0:
        how = how_at(i, j) if i > 0 and j > 0 else (1 if i > 0 else 2)
        if how == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif how == 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


def pair_models(
    bs: list[KerasModel],
    fs: list[KerasModel],
    compiled_b: frozenset[int] = frozenset(),
    compiled_f: frozenset[int] = frozenset(),
) -> list[tuple[int, KerasModel, KerasModel]]:
    """Pair models: by index when the counts agree, else the most similar pairs first (greedy).

    With other counts, a model each program compiles (indexes in ``compiled_b`` / ``compiled_f``)
    is paired with the other's compiled model first: the model a program trains is the one its
    fix is about (a post merging two small models into a third pairs that third with the fix's
    model, not the most similar helper)."""
    if len(bs) == len(fs):
        return [(i, bs[i], fs[i]) for i in range(len(bs))]
    scored = []
    for i, bm in enumerate(bs):
        for j, fm in enumerate(fs):
            ratio = difflib.SequenceMatcher(
                a=[x.cls for x in bm.layers], b=[x.cls for x in fm.layers], autojunk=False
            ).ratio()
            trained = i in compiled_b and j in compiled_f
            scored.append((not trained, -ratio, i, j))
    used_b: set[int] = set()
    used_f: set[int] = set()
    pairs = []
    for _, _, i, j in sorted(scored):
        if i in used_b or j in used_f:
            continue
        used_b.add(i)
        used_f.add(j)
        pairs.append((i, bs[i], fs[j]))
    return sorted(pairs, key=lambda p: p[0])


def pair_by_index(bs: list, fs: list) -> list[tuple[int, object, object]]:
    """Calls paired by position (compile and fit calls keep their order in a program)."""
    return [(i, bs[i], fs[i]) for i in range(min(len(bs), len(fs)))]
