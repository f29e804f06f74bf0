"""The ``<folder> -> .`` link a run's working copy gets when its program names its own folder
(``open("fixed/result.json", "w")``, :func:`mutreal.execution.worker._alias_own_folder`): the link
makes a loop, so a recursive glob over the working copy would see every file once per level (about
40 times, until the kernel's link limit). A program that globs recursively gets no link. Fast: no
worker, only the link and a glob in a temporary folder."""

from __future__ import annotations

import glob
import os
from pathlib import Path

from mutreal.execution.worker import _alias_own_folder

NAMES_ITS_FOLDER = 'open("fixed/result.json", "w").write("{}")\n'


def _images_seen(folder: Path) -> int:
    saved = os.getcwd()
    os.chdir(folder)
    try:
        return len(glob.glob("**/*.png", recursive=True))
    finally:
        os.chdir(saved)


def test_a_program_naming_its_folder_finds_it_there(tmp_path: Path) -> None:
    folder = tmp_path / "fixed"
    folder.mkdir()
    assert _alias_own_folder(folder, "fixed", NAMES_ITS_FOLDER)
    assert (folder / "fixed").resolve() == folder.resolve()


def test_a_program_that_globs_recursively_sees_each_image_once(tmp_path: Path) -> None:
    folder = tmp_path / "fixed"
    (folder / "images").mkdir(parents=True)
    for name in ("a.png", "images/b.png"):
        (folder / name).write_bytes(b"")
    source = NAMES_ITS_FOLDER + 'files = glob.glob("images/**/*.png", recursive=True)\n'
    _alias_own_folder(folder, "fixed", source)
    assert _images_seen(folder) == 2
