"""Preprocessing inside a ``tf.data`` map function is a step of the pipeline's arrays (CPP there).

``ds.map(fn)`` / ``ds.map(lambda x, y: ...)`` / ``ds.apply(map_and_batch(map_func=fn))``: the
function is run with the pipeline's elements, so a normalisation or resize added, removed or
changed inside it is read as it would be outside it. Own small programs; controls must stay empty.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.label.classify import classify_pair

_DEF_MAP = """\
import numpy as np
import tensorflow as tf
from tensorflow import keras

pixels = np.random.rand(120, 16, 16).astype("float32") * 255
digits = np.random.randint(0, 4, 120)


def {fn}(picture, digit):
    picture = tf.cast(picture, tf.float32){step}
    return picture, digit


stream = tf.data.Dataset.from_tensor_slices((pixels, digits)).map({fn}).batch(16)
net = keras.Sequential([keras.layers.Flatten(input_shape=(16, 16)), keras.layers.Dense(4, activation="softmax")])
net.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
net.fit(stream, epochs=2)
"""

_LAMBDA_MAP = """\
import numpy as np
import tensorflow as tf
from tensorflow import keras

pixels = np.random.rand(120, 16, 16).astype("float32") * 255
digits = np.random.randint(0, 4, 120)
stream = tf.data.Dataset.from_tensor_slices((pixels, digits))
stream = stream.shuffle(64).map(lambda p, d: (tf.cast(p, tf.float32){step}, d)).batch(16)
net = keras.Sequential([keras.layers.Flatten(input_shape=(16, 16)), keras.layers.Dense(4, activation="softmax")])
net.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
net.fit(stream, epochs=2)
"""

_FILE_MAP = """\
from glob import glob
import tensorflow as tf
from tensorflow import keras

photos = sorted(glob("set/photos/*.png"))
masks = sorted(glob("set/masks/*.png"))


def read(path, rows={rows}, cols={cols}, flip=0):
    img = tf.io.read_file(path)
    img = tf.cast(tf.image.decode_png(img, channels=3), dtype=tf.float32)
    img = tf.image.resize(images=img, size=[rows, cols])
    img = tf.cond(tf.greater(flip, 0), lambda: tf.image.flip_left_right(img), lambda: img)
    return img


def pair(photo, mask):
    return read(photo), read(mask)


stream = tf.data.Dataset.from_tensor_slices((photos, masks))
stream = stream.apply(tf.data.experimental.map_and_batch(map_func=pair, batch_size=8))
net = keras.Sequential([keras.layers.Conv2D(3, 3, padding="same", input_shape=(64, 64, 3))])
net.compile(optimizer="adam", loss="mse")
net.fit(stream, epochs=2)
"""


def _cpp(comps: list[dict]) -> list[tuple]:
    return [(c["code"], c["element"], c["change"], c["confidence"]) for c in comps]


def test_a_normalisation_added_inside_a_mapped_function_is_cpp(classify_cli):
    comps = classify_cli(_DEF_MAP.format(fn="prepare", step=""), _DEF_MAP.format(fn="prepare", step=" / 255.0"))
    assert _cpp(comps) == [("CPP", "data.x_train.preprocess[3]", "added", "low")]
    assert comps[0]["after"] == "tf.cast(picture, tf.float32) / 255.0"


def test_a_normalisation_removed_inside_a_mapped_lambda_is_cpp(classify_cli):
    comps = classify_cli(_LAMBDA_MAP.format(step=" / 255.0"), _LAMBDA_MAP.format(step=""))
    assert [(c["code"], c["change"], c["before"]) for c in comps] == [
        ("CPP", "removed", "tf.cast(p, tf.float32) / 255.0")
    ]


def test_a_resize_changed_in_a_function_map_and_batch_maps_is_cpp(classify_cli):
    """File names sliced into the pipeline are read by the mapped function; the images' size is
    set by the reader's defaults, through a random flip both programs share (``tf.cond``)."""
    comps = classify_cli(_FILE_MAP.format(rows=32, cols=32), _FILE_MAP.format(rows=64, cols=64))
    assert [(c["code"], c["element"], c["change"]) for c in comps] == [
        ("CPP", "data.x_train.preprocess[3]", "changed")
    ]
    assert comps[0]["before"].startswith("tf.image.resize(")


def test_a_renamed_mapped_function_with_the_same_steps_is_no_component(classify_cli):
    """Control: the function's name is not a step; only what it does to the elements is."""
    comps = classify_cli(
        _DEF_MAP.format(fn="prepare", step=" / 255.0"), _DEF_MAP.format(fn="scale_pixels", step=" / 255.0")
    )
    assert comps == []


def test_the_same_file_pipeline_is_no_component(classify_cli):
    """Control: following the reader changes nothing where both programs read alike."""
    assert classify_cli(_FILE_MAP.format(rows=64, cols=64), _FILE_MAP.format(rows=64, cols=64)) == []


@settings(max_examples=12, deadline=None)
@given(
    old=st.sampled_from(["", " / 255.0", " * 2.0", " - 0.5"]),
    new=st.sampled_from(["", " / 255.0", " * 2.0", " - 0.5"]),
    spelling=st.sampled_from(["def", "lambda"]),
)
def test_a_mapped_step_is_cpp_exactly_when_it_differs(old, new, spelling):
    """Property: one CPP when the mapped function's arithmetic step differs, none when it does not."""
    text = (lambda s: _DEF_MAP.format(fn="prep", step=s)) if spelling == "def" else _LAMBDA_MAP.format
    with tempfile.TemporaryDirectory() as tmp:
        b, f = Path(tmp) / "b.py", Path(tmp) / "f.py"
        b.write_text(text(step=old) if spelling == "lambda" else text(old), encoding="utf-8")
        f.write_text(text(step=new) if spelling == "lambda" else text(new), encoding="utf-8")
        codes = [c.code for c in classify_pair(str(b), str(f)).components]
    assert codes == (["CPP"] if old != new else [])
