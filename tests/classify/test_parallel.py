"""map_with_progress: results in input order, serial and with a process pool, bar on or off."""

from __future__ import annotations

from mutreal.parallel import map_with_progress


def test_serial_keeps_order_and_is_lazy() -> None:
    seen: list[int] = []

    def record(x: int) -> int:
        seen.append(x)
        return x * 10

    it = map_with_progress(record, [3, 1, 2], jobs=1, progress=False)
    assert next(it) == 30
    assert seen == [3]
    assert list(it) == [10, 20]


def test_pool_keeps_input_order() -> None:
    items = [-5, 3, -1, 0, 7, -2]
    assert list(map_with_progress(abs, items, jobs=2, progress=False, chunksize=2)) == [5, 3, 1, 0, 7, 2]


def test_progress_bar_goes_to_stderr(capsys) -> None:
    assert list(map_with_progress(abs, [-1, -2], desc="demo", unit="bug", progress=True)) == [1, 2]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "demo" in captured.err
