"""Where the data shipped with mutreal lives.

``taxonomy/`` and ``operators/`` sit at the top of the repository so people can read and review
them; the wheel copies them into ``mutreal/_data/``. An editable install or a source checkout
reads them in place, so both layouts are looked up here and nowhere else.
"""

from __future__ import annotations

from pathlib import Path


def data_dir(name: str) -> Path:
    """Return the folder of shipped data ``name`` (``"taxonomy"`` or ``"operators"``)."""
    packaged = Path(__file__).resolve().parent / "_data" / name
    if packaged.is_dir():
        return packaged
    in_checkout = Path(__file__).resolve().parents[2] / name
    if in_checkout.is_dir():
        return in_checkout
    raise FileNotFoundError(
        f"mutreal's {name}/ data is missing: looked in {packaged} and {in_checkout}; reinstall mutreal"
    )
