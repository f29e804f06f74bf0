"""``scipy.misc``'s image functions, removed in SciPy 1.2/1.3, given back over Pillow as SciPy 1.1
documented them (SciPy itself implemented them with PIL).

Programs of the Keras 1/2 era read, resized and wrote their images with ``scipy.misc.imread``,
``imresize`` and ``imsave``; today such a program, or one of its helper modules, stops at its import.
The workers of those programs (frameworks ``tf_keras`` and ``tf1``) add these functions to
``scipy.misc`` before any program runs (:func:`install`), so helper modules are covered too; a program
that names ``scipy.misc`` has it listed in its rewrites (:mod:`mutreal.compat.era_behaviour`).
SciPy's own semantics are kept: arrays that are not ``uint8`` are byte-scaled to 0..255 before they
become images, ``imresize`` returns ``uint8`` and takes a size as a percentage (int), a fraction
(float) or ``(rows, columns)``.
"""

from __future__ import annotations

from typing import Any

#: SciPy's names of Pillow's resampling filters
_RESAMPLE = {"nearest": 0, "lanczos": 1, "bilinear": 2, "bicubic": 3, "cubic": 3}
#: the functions given back
FUNCTIONS = ("bytescale", "fromimage", "toimage", "imread", "imsave", "imresize")


def bytescale(data: Any, cmin: float | None = None, cmax: float | None = None, high: int = 255, low: int = 0) -> Any:
    """``data`` scaled to ``low..high`` as ``uint8`` (unchanged when it is ``uint8`` already)."""
    import numpy as np

    data = np.asarray(data)
    if data.dtype == np.uint8:
        return data
    cmin = float(data.min()) if cmin is None else cmin
    cmax = float(data.max()) if cmax is None else cmax
    scale = (high - low) / ((cmax - cmin) or 1)
    return (((data - cmin) * scale + low).clip(low, high) + 0.5).astype(np.uint8)


def fromimage(image: Any, flatten: bool = False, mode: str | None = None) -> Any:
    """A Pillow image as an array (``flatten``: one grey float channel; ``mode``: converted first)."""
    import numpy as np

    if mode is not None and mode != image.mode:
        image = image.convert(mode)
    elif image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if flatten:
        image = image.convert("F")
    return np.array(image)


def toimage(arr: Any, high: int = 255, low: int = 0, cmin: float | None = None, cmax: float | None = None,
            pal: Any = None, mode: str | None = None, channel_axis: int | None = None) -> Any:  # fmt: skip
    """An array as a Pillow image: 2-D as grey (``mode='F'``: float), 3-D with 3/4 channels as RGB/RGBA."""
    import numpy as np
    from PIL import Image

    data = np.asarray(arr)
    if data.ndim == 3 and channel_axis is not None and channel_axis != 2:
        data = np.moveaxis(data, channel_axis, 2)
    if data.ndim == 3 and data.shape[0] in (3, 4) and data.shape[2] not in (3, 4):
        data = np.moveaxis(data, 0, 2)  # channels first, as SciPy also read them
    if data.ndim == 2 and mode == "F":
        return Image.fromarray(data.astype(np.float32), "F")
    scaled = bytescale(data, cmin=cmin, cmax=cmax, high=high, low=low)
    if scaled.ndim == 2:
        return Image.fromarray(scaled, "L")
    if scaled.ndim == 3 and scaled.shape[2] in (3, 4):
        return Image.fromarray(scaled, "RGB" if scaled.shape[2] == 3 else "RGBA")
    raise ValueError(f"'arr' does not have a suitable array shape for any mode: {data.shape}")


def imread(name: Any, flatten: bool = False, mode: str | None = None) -> Any:
    """An image file as an array (SciPy's ``imread``)."""
    from PIL import Image

    with Image.open(name) as image:
        return fromimage(image, flatten=flatten, mode=mode)


def imsave(name: Any, arr: Any, format: str | None = None) -> None:  # noqa: A002 - SciPy's name
    """An array written as an image file (byte-scaled unless ``uint8``)."""
    image = toimage(arr, channel_axis=2)
    image.save(name) if format is None else image.save(name, format)


def imresize(arr: Any, size: Any, interp: str = "bilinear", mode: str | None = None) -> Any:
    """``arr`` resized (``size``: int percent, float fraction, or ``(rows, columns)``) as ``uint8``
    (``mode='F'``: float)."""
    import numpy as np

    image = toimage(arr, mode=mode)
    if isinstance(size, (int, np.integer)):
        new = tuple((np.array(image.size) * (size / 100.0)).astype(int))
    elif isinstance(size, (float, np.floating)):
        new = tuple((np.array(image.size) * size).astype(int))
    else:
        new = (int(size[1]), int(size[0]))
    return fromimage(image.resize(new, resample=_RESAMPLE[interp]))


def install() -> None:
    """Give ``scipy.misc`` back the functions it no longer has (a worker without SciPy or Pillow skips it)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import PIL  # noqa: F401 - the functions need it
            import scipy.misc as misc
    except ImportError:
        return
    for name in FUNCTIONS:
        if not hasattr(misc, name):
            setattr(misc, name, globals()[name])
