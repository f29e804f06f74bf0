"""Removed scikit-learn / Keras-wrapper APIs rewritten to their successors, run on own data.

``OneHotEncoder(categorical_features=C)`` (removed in scikit-learn 0.22) put the one-hot columns of
``C`` first and the other columns after them, unchanged, in a sparse matrix: the rewrite must give
exactly those numbers. Keras' scikit-learn wrappers passed ``nb_epoch`` on to ``fit``; SciKeras takes
it as ``epochs``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mutreal.compat.removed_apis import rewrite_removed_apis

PROGRAM = """\
from sklearn.preprocessing import OneHotEncoder
encoder = OneHotEncoder(categorical_features=COLUMNS)
encoded = encoder.fit_transform(X).toarray()
"""


def _expected(x: np.ndarray, columns: list[int]) -> np.ndarray:
    """What scikit-learn <= 0.21 gave: one-hot of ``columns`` (categories sorted), then the rest."""
    parts = [(x[:, [c]] == np.unique(x[:, c])[None, :]).astype(float) for c in columns]
    rest = [c for c in range(x.shape[1]) if c not in columns]
    return np.hstack([*parts, x[:, rest]])


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 4).flatmap(
        lambda width: st.tuples(
            st.lists(st.lists(st.integers(0, 3), min_size=width, max_size=width), min_size=2, max_size=12),
            st.lists(st.integers(0, width - 1), min_size=1, max_size=width, unique=True).map(sorted),
        )
    )
)
def test_one_hot_encoder_categorical_features_keeps_its_columns(case):
    rows, columns = case
    x = np.array(rows, dtype=float)
    assume(any(len(np.unique(x[:, c])) > 1 for c in columns))  # else it comes back dense (see the rewrite)
    new, changes = rewrite_removed_apis(PROGRAM.replace("COLUMNS", repr(columns)))
    assert len(changes) == 1 and "categorical_features" not in new
    scope = {"X": x}
    exec(compile(new, "rewritten.py", "exec"), scope)
    assert np.array_equal(scope["encoded"], _expected(x, columns))


def test_all_categorical_is_the_default_and_wrapper_keywords():
    text = (
        "from sklearn.preprocessing import OneHotEncoder\nfrom keras.wrappers.scikit_learn import KerasRegressor\n"
        "e = OneHotEncoder(categorical_features='all', handle_unknown='ignore')\n"
        "r = KerasRegressor(build_fn=make, nb_epoch=20, batch_size=5)\nother(nb_epoch=3)\n"
    )
    new, changes = rewrite_removed_apis(text)
    assert "e = OneHotEncoder(handle_unknown='ignore')" in new and "ColumnTransformer" not in new
    assert "KerasRegressor(model=make, epochs=20, batch_size=5)" in new
    assert "other(nb_epoch=3)" in new  # not a wrapper: not ours to rename
    assert len(changes) == 4
    assert rewrite_removed_apis(new) == (new, [])
