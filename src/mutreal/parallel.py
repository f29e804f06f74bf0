"""Map a function over work items, in order, with an optional process pool and a progress bar.

Manifest runs (classify, validate) share this loop so that ordering, the bar on stderr and the
pool's life time behave the same everywhere.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_with_progress(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int = 1,
    desc: str | None = None,
    unit: str = "it",
    progress: bool | None = None,
    chunksize: int = 1,
) -> Iterator[R]:
    """Yield ``func(item)`` for every item, in input order.

    ``jobs`` > 1 runs ``func`` in a process pool (``func`` and the items must pickle); ``progress``
    shows a bar on stderr (None: only on a terminal). The bar is closed even if the caller stops early.
    """
    from tqdm import tqdm

    work = list(items)
    bar = tqdm(
        total=len(work),
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=None if progress is None else not progress,
    )
    try:
        if jobs <= 1:
            for item in work:
                yield func(item)
                bar.update(1)
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for result in pool.map(func, work, chunksize=chunksize):
                    yield result
                    bar.update(1)
    finally:
        bar.close()
