"""Training-data operators on data a generator reads from files: lists of image paths and targets.

Like DeepCrime's self-driving subject, the program keeps the file names and the steering targets
in two arrays and a ``Sequence`` (here, or in a sibling module) reads the images batch by batch.
TCL, TRD, TUD and TCO rebind those arrays before the ``Sequence`` is built, rows of paths and
targets together; TAN has no site (a path cannot be noised) and says why.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mutreal.label.classify import classify_pair
from mutreal.mutation.mutate import Failure, generate, write_mutant
from mutreal.mutation.operators import Program, registry
from mutreal.runtime import training_data as td

SEQUENCE = """\
import numpy as np
import pandas as pd
from PIL import Image
from tensorflow.keras.utils import Sequence
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Conv2D, Dense, Flatten


def read_frame(folder, name):
    return np.asarray(Image.open(folder + "/" + name), dtype="float32") / 255.0


class Frames(Sequence):
    def __init__(self, files, angles, folder, batch_size=16):
        self.files = files
        self.angles = angles
        self.folder = folder
        self.batch_size = batch_size

    def __len__(self):
        return len(self.files) // self.batch_size

    def __getitem__(self, i):
        names = self.files[i * self.batch_size:(i + 1) * self.batch_size]
        steer = self.angles[i * self.batch_size:(i + 1) * self.batch_size]
        images = np.stack([read_frame(self.folder, n) for n in names])
        return images, np.asarray(steer)


log = pd.read_csv("drive/log.csv")
paths = log["image"].values
angles = log["steering"].values
model = Sequential([Conv2D(8, 3, activation="relu", input_shape=(32, 32, 3)), Flatten(), Dense(1)])
model.compile(loss="mse", optimizer="adam")
model.fit(Frames(paths, angles, "drive"), epochs=3)
"""

SIBLING_SEQUENCE = """\
import numpy as np
from tensorflow.keras.utils import Sequence
from PIL import Image


class Batches(Sequence):
    def __init__(self, image_files, targets, batch_size):
        self.image_files = image_files
        self.targets = targets
        self.batch_size = batch_size

    def __len__(self):
        return len(self.image_files) // self.batch_size

    def __getitem__(self, k):
        part = self.image_files[k * self.batch_size:(k + 1) * self.batch_size]
        images = np.stack([np.asarray(Image.open(p)) for p in part])
        return images, self.targets[k * self.batch_size:(k + 1) * self.batch_size]
"""

SIBLING_MAIN = """\
import numpy as np
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense, Flatten
from batches import Batches


def train(model, files, targets):
    train_batches = Batches(files, targets, 8)
    model.fit(train_batches, epochs=2)


files = np.array(["a.png", "b.png", "c.png", "d.png"] * 10)
targets = np.linspace(-0.5, 0.5, 40)
model = Sequential([Flatten(input_shape=(16, 16, 3)), Dense(1)])
model.compile(loss="mse", optimizer="sgd")
train(model, files, targets)
"""

OPERATORS = ("TCL", "TRD", "TUD", "TCO")


@pytest.fixture
def here(tmp_path: Path) -> Path:
    path = tmp_path / "drive.py"
    path.write_text(SEQUENCE)
    return path


@pytest.fixture
def sibling(tmp_path: Path) -> Path:
    (tmp_path / "batches.py").write_text(SIBLING_SEQUENCE)
    path = tmp_path / "train.py"
    path.write_text(SIBLING_MAIN)
    return path


@pytest.mark.parametrize("which", ["here", "sibling"])
def test_path_lists_are_sites_of_the_row_operators_not_of_tan(which: str, request) -> None:
    program = Program.from_file(str(request.getfixturevalue(which)))
    for op in OPERATORS:
        (site,) = registry.get(op).sites(program)
        assert site.detail["via"].startswith("Sequence"), site.detail
    tan = registry.get("TAN")
    assert tan.sites(program) == []
    (why,) = tan.no_site_reasons(program)
    assert "file paths it reads" in why


@pytest.mark.parametrize("op", OPERATORS)
def test_each_mutant_rebinds_paths_and_targets_before_the_sequence(
    op: str, here: Path, tmp_path: Path
) -> None:
    program = Program.from_file(str(here))
    mutant = next(m for m in generate(program, op) if not isinstance(m, Failure))
    lines = mutant.code.splitlines()
    call = next(i for i, line in enumerate(lines) if "_mutreal_td." in line)
    fit = next(i for i, line in enumerate(lines) if line.startswith("model.fit("))
    assert call < fit
    assert lines[call].startswith("angles = " if op == "TCL" else "paths, angles = ")
    path, _ = write_mutant(mutant, str(tmp_path / "m"))
    found = [c.deepcrime for c in classify_pair(str(here), path).components]
    assert op in found


def test_sibling_sequence_mutant_is_rebound_inside_the_helper(sibling: Path) -> None:
    program = Program.from_file(str(sibling))
    mutant = next(m for m in generate(program, "TRD") if not isinstance(m, Failure))
    body = mutant.code.split("def train(model, files, targets):\n", 1)[1]
    assert body.splitlines()[0].strip().startswith("files, targets = _mutreal_td.remove(files, targets")
    # the import the call needs is with the module's imports, above the helper that uses it
    assert mutant.code.index("from mutreal.runtime import") < mutant.code.index("def train(")


def _drive_log(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    angles = np.round(rng.normal(0.0, 0.25, n), 3)
    paths = np.array([[f"center_{i}.jpg", f"left_{i}.jpg", f"right_{i}.jpg"] for i in range(n)])
    return paths, angles


@pytest.mark.parametrize("function", [td.remove, td.unbalance, td.overlap])
def test_runtime_keeps_every_path_with_its_own_target(function) -> None:
    paths, angles = _drive_log()
    target_of = {tuple(p): a for p, a in zip(paths, angles, strict=True)}
    new_paths, new_angles = function(paths, angles, pct=50.0, seed=1)
    assert len(new_paths) == len(new_angles) != len(paths)
    assert new_paths.dtype.kind == "U" and new_paths.shape[1:] == (3,)
    kept = len(paths) if function is td.overlap else len(new_paths)
    assert all(target_of[tuple(p)] == a for p, a in zip(new_paths[:kept], new_angles[:kept], strict=True))


def test_runtime_unbalance_of_a_regression_target_thins_the_outer_bands() -> None:
    paths, angles = _drive_log()
    z = (angles - angles.mean()) / angles.std()
    _, left = td.unbalance(paths, angles, pct=50.0, seed=0)
    zl = (left - angles.mean()) / angles.std()
    assert np.sum(np.abs(zl) <= 1) == np.sum(np.abs(z) <= 1)  # the fullest band is untouched
    assert np.sum(zl < -1) < np.sum(z < -1) and np.sum(zl > 1) < np.sum(z > 1)


def test_runtime_overlap_copies_central_samples_with_outer_band_targets() -> None:
    paths, angles = _drive_log()
    new_paths, new_angles = td.overlap(paths, angles, pct=10.0, seed=0)
    added = new_angles[len(angles) :]
    z = (angles - angles.mean()) / angles.std()
    assert len(added) == round(np.sum(np.abs(z) <= 1) * 0.1)
    assert np.all(np.abs((added - angles.mean()) / angles.std()) > 1)  # targets from another band
    copies = {tuple(p) for p in new_paths[len(paths) :]}
    central = {tuple(p) for p, zz in zip(paths, z, strict=True) if abs(zz) <= 1}
    assert copies <= central
