"""TensorFlow 1's tutorial data sets: ``input_data.read_data_sets(dir, one_hot=True)``.

Graph programs of the TF 1 era load MNIST through ``tensorflow.examples.tutorials.mnist.input_data``
and train on ``mnist.train.next_batch(n)``; these are the training arrays a Keras program would get
from ``keras.datasets.mnist.load_data()``. Here the loader becomes a :class:`TutorialData` whose
splits' ``images`` / ``labels`` (and ``next_batch`` pairs) are data chains of one real source, the
labels one-hot encoded when the loader was asked to (``one_hot=True``), so the data pass compares
what a fix does to them as it does for Keras data (CPP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mutreal.extract import data
from mutreal.program.model import CONST, DataOp, DataSource, Value

#: the loader, as the graph front-end names it (``tensorflow.`` and ``compat.v1.`` removed)
LOADER = "examples.tutorials.mnist.input_data.read_data_sets"

#: split attribute -> the data role suffix of its arrays
SPLITS = {"train": "train", "test": "test", "validation": "val"}


@dataclass
class TutorialData:
    """What ``read_data_sets`` returned (``split`` None) or one of its splits (``mnist.train``)."""

    source: DataSource
    one_hot: Value | None = None
    split: str | None = None

    def attribute(self, name: str) -> Any:
        """``mnist.train`` -> the split; ``mnist.train.images`` / ``.labels`` -> its arrays; else None."""
        if self.split is None:
            return TutorialData(self.source, self.one_hot, name) if name in SPLITS else None
        if name == "images":
            return data.DataChain(self.source, [], part=f"x_{SPLITS[self.split]}")
        if name == "labels":
            ops = []
            if self.one_hot is not None and self.one_hot.kind == CONST and self.one_hot.value:
                ops.append(
                    DataOp(
                        "one_hot",
                        name="read_data_sets",
                        args={"one_hot": self.one_hot},
                        text=f"one_hot={self.one_hot.text or True}",
                        file=self.source.file,
                        line=self.source.line,
                    )
                )
            return data.DataChain(self.source, ops, part=f"y_{SPLITS[self.split]}")
        return None

    def next_batch(self, op: DataOp) -> tuple[data.DataChain, data.DataChain] | None:
        """``mnist.train.next_batch(n)``: a batch of the split's images and labels."""
        if self.split is None:
            return None
        images, labels = self.attribute("images"), self.attribute("labels")
        return images.derive(op), labels.derive(op)


def tutorial_source(
    args: list[Value], kwargs: dict[str, Value], text: str, path: str, line: int | None
) -> TutorialData:
    """The loader's call as a data source (a published data set: real data)."""
    folder = kwargs.get("train_dir") or (args[0] if args else None)
    one_hot = kwargs.get("one_hot") or (args[1] if len(args) > 1 else None)
    src = DataSource(
        "keras_dataset",
        name="mnist",
        origin="real",
        reader="read_data_sets",
        text=text,
        file=path,
        line=line,
    )
    if (
        folder is not None
        and folder.kind == CONST
        and isinstance(folder.value, str)
        and "fashion" in folder.value.lower()
    ):
        src.name = "fashion_mnist"
    return TutorialData(src, one_hot)
