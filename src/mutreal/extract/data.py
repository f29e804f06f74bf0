"""Data sources and preprocessing steps: what the walker recognises when it follows training arrays.

A :class:`DataChain` is the walker's value for an array derived from a data source: the source
and the ordered preprocessing steps applied so far. Assignments bind names to chains, so
``x_train = x_train / 255`` simply derives a new chain; at ``fit`` time the chains of the
arguments become the program model's :class:`~mutreal.program.model.DataVar` entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mutreal.known_datasets import dataset_sizes
from mutreal.program.model import DataOp, DataSource, DataVar, Value

#: numpy/pandas/sklearn/... callables that read a file (qualified name suffix -> reader name)
FILE_READERS = {
    "pandas.read_csv": "read_csv",
    "pandas.read_table": "read_table",
    "pandas.read_excel": "read_excel",
    "pandas.read_json": "read_json",
    "pandas.read_pickle": "read_pickle",
    "pandas.read_hdf": "read_hdf",
    "pandas.read_parquet": "read_parquet",
    "pandas.read_fwf": "read_fwf",
    "numpy.loadtxt": "loadtxt",
    "numpy.genfromtxt": "genfromtxt",
    "numpy.load": "load",
    "numpy.fromfile": "fromfile",
    "open": "open",
    "io.open": "open",
    "codecs.open": "open",
    "h5py.File": "h5py",
    "scipy.io.loadmat": "loadmat",
    "cv2.imread": "imread",
    "PIL.Image.open": "image_open",
    "imageio.imread": "imread",
    "matplotlib.pyplot.imread": "imread",
    "pickle.load": "pickle",
    "joblib.load": "joblib",
    "json.load": "json",
    "csv.reader": "csv",
    "sklearn.datasets.load_svmlight_file": "svmlight",
    "keras.utils.get_file": "get_file",
    "tensorflow.keras.utils.get_file": "get_file",
}

#: np.random samplers: qualified name -> how the shape is given ("args": rand(a, b), "size": size=...)
RANDOM_SAMPLERS = {
    "numpy.random.rand": "args",
    "numpy.random.randn": "args",
    "numpy.random.random": "first",
    "numpy.random.random_sample": "first",
    "numpy.random.sample": "first",
    "numpy.random.ranf": "first",
    "numpy.random.randint": "size",
    "numpy.random.normal": "size",
    "numpy.random.uniform": "size",
    "numpy.random.binomial": "size",
    "numpy.random.poisson": "size",
    "numpy.random.choice": "size",
    "numpy.random.exponential": "size",
    "numpy.random.standard_normal": "first",
    "tensorflow.random.normal": "first",
    "tensorflow.random.uniform": "first",
    "random.random": "none",
    "random.randint": "none",
}

#: array constructors that generate data (shape from the first argument)
GENERATORS = {
    "numpy.zeros": "first",
    "numpy.ones": "first",
    "numpy.empty": "first",
    "numpy.full": "first",
    "numpy.eye": "first",
    "numpy.arange": "range",
    "numpy.linspace": "linspace",
    "range": "range",
}

#: sklearn loaders returning a Bunch (``.data``/``.target``) or X, y with return_X_y
SKLEARN_PREFIX = "sklearn.datasets."

#: functions applied to one array -> canonical op (first positional argument is the array)
ARRAY_FUNCTIONS = {
    "utils.to_categorical": "to_categorical",
    "utils.np_utils.to_categorical": "to_categorical",
    "np_utils.to_categorical": "to_categorical",
    "to_categorical": "to_categorical",
    "utils.normalize": "normalize",
    "numpy.reshape": "reshape",
    "numpy.expand_dims": "expand_dims",
    "numpy.squeeze": "squeeze",
    "numpy.transpose": "transpose",
    "numpy.swapaxes": "transpose",
    "numpy.moveaxis": "transpose",
    "numpy.clip": "clip",
    "numpy.log": "log",
    "numpy.log1p": "log",
    "numpy.exp": "exp",
    "numpy.sqrt": "sqrt",
    "numpy.abs": "abs",
    "numpy.round": "round",
    "numpy.around": "round",
    "numpy.float32": "astype",
    "numpy.float64": "astype",
    "numpy.int32": "astype",
    "numpy.int64": "astype",
    "numpy.uint8": "astype",
    "numpy.ravel": "flatten",
    "numpy.argmax": "argmax",
    "numpy.flip": "flip",
    "numpy.fliplr": "flip",
    "numpy.roll": "roll",
    "numpy.repeat": "repeat",
    "numpy.tile": "repeat",
    "numpy.pad": "pad",
    "numpy.nan_to_num": "fillna",
    "numpy.delete": "delete",
    "numpy.unique": "unique",
    "numpy.diff": "diff",
    "numpy.cumsum": "cumsum",
    "numpy.sort": "sort",
    "numpy.random.permutation": "shuffle",
    "pandas.get_dummies": "one_hot",
    "pandas.to_numeric": "astype",
    "pandas.DataFrame": "noop",
    "pandas.Series": "noop",
    "tensorflow.one_hot": "one_hot",
    "tensorflow.cast": "astype",
    "tensorflow.reshape": "reshape",
    "tensorflow.expand_dims": "expand_dims",
    "tensorflow.image.resize": "resize",
    # a crop to a size is a resize of the images (its size a preprocessing setting, like resize's)
    "tensorflow.image.crop_to_bounding_box": "crop",
    "tensorflow.image.random_crop": "crop",
    "tensorflow.image.central_crop": "crop",
    "tensorflow.image.resize_with_crop_or_pad": "crop",
    "tensorflow.convert_to_tensor": "noop",
    "tensorflow.constant": "noop",
    "keras.backend.one_hot": "one_hot",
    "sklearn.preprocessing.normalize": "normalize",
    "sklearn.preprocessing.scale": "scale",
    "sklearn.preprocessing.minmax_scale": "scale",
    "sklearn.preprocessing.label_binarize": "one_hot",
    "preprocessing.sequence.pad_sequences": "pad_sequences",
    "utils.pad_sequences": "pad_sequences",
    "pad_sequences": "pad_sequences",
    "numpy.array": "noop",
    "numpy.asarray": "noop",
    "numpy.asanyarray": "noop",
    "numpy.copy": "noop",
    "numpy.matrix": "noop",
    "list": "noop",
    "tuple": "noop",
    "float": "astype",
    "int": "astype",
}

#: functions combining several arrays -> op (result follows the first array)
COMBINE_FUNCTIONS = {
    "numpy.concatenate": "concat",
    "numpy.vstack": "concat",
    "numpy.hstack": "concat",
    "numpy.column_stack": "concat",
    "numpy.row_stack": "concat",
    "numpy.stack": "concat",
    "numpy.dstack": "concat",
    "numpy.append": "concat",
    "pandas.concat": "concat",
}

#: array methods -> canonical op (None = identity, not recorded)
ARRAY_METHODS = {
    "reshape": "reshape",
    "astype": "astype",
    "transpose": "transpose",
    "swapaxes": "transpose",
    "flatten": "flatten",
    "ravel": "flatten",
    "squeeze": "squeeze",
    "clip": "clip",
    "round": "round",
    "fillna": "fillna",
    "dropna": "dropna",
    "drop": "drop",
    "replace": "replace",
    "map": "map",
    "apply": "map",
    "applymap": "map",
    "sample": "shuffle",
    "reset_index": None,
    "copy": None,
    "to_numpy": None,
    "as_matrix": None,
    "tolist": "tolist",
    "get_values": None,
    "numpy": None,
    "head": "slice",
    "tail": "slice",
    "batch": "batch",
    "shuffle": "shuffle",
    "repeat": "repeat",
    "prefetch": None,
    "cache": None,
    "cumsum": "cumsum",
    "diff": "diff",
    "sort_values": "sort",
    "pct_change": "diff",
    "rolling": "map",
    "interpolate": "fillna",
    "abs": "abs",
    "argmax": "argmax",
    "__getitem__": "slice",
}
#: array methods that return a statistic (used as an operand, e.g. ``(x - x.mean()) / x.std()``)
STAT_METHODS = frozenset(
    {"mean", "std", "max", "min", "sum", "var", "median", "ptp", "quantile", "shape", "size"}
)

#: sklearn scalers/encoders -> op of their transform
SCALERS = {
    "StandardScaler": "scale",
    "MinMaxScaler": "scale",
    "MaxAbsScaler": "scale",
    "RobustScaler": "scale",
    "Normalizer": "normalize",
    "QuantileTransformer": "scale",
    "PowerTransformer": "scale",
    "LabelEncoder": "encode",
    "OrdinalEncoder": "encode",
    "OneHotEncoder": "one_hot",
    "LabelBinarizer": "one_hot",
    "MultiLabelBinarizer": "one_hot",
    "PCA": "pca",
    "TruncatedSVD": "pca",
    "Tokenizer": "tokenize",
    "CountVectorizer": "vectorize",
    "TfidfVectorizer": "vectorize",
    "SimpleImputer": "fillna",
    "Imputer": "fillna",
    "PolynomialFeatures": "features",
    "Normalization": "normalize",
}
SCALER_TRANSFORMS = frozenset(
    {"fit_transform", "transform", "texts_to_sequences", "texts_to_matrix", "sequences_to_matrix", "adapt"}
)

#: image augmentation generators (Keras)
AUGMENTERS = frozenset({"ImageDataGenerator", "TimeseriesGenerator"})

BINARY_OPS = {
    "Divide": "divide",
    "FloorDivide": "divide",
    "Multiply": "multiply",
    "Subtract": "subtract",
    "Add": "add",
    "Power": "power",
    "Modulo": "modulo",
    "MatrixMultiply": "matmul",
}


@dataclass
class DataChain:
    """An array as the walker follows it: source, preprocessing so far, variable it was last bound to."""

    source: DataSource | None
    ops: list[DataOp] = field(default_factory=list)
    var: str | None = None
    #: which part of a source (``x_train`` of a load_data tuple, ``data``/``target`` of a Bunch)
    part: str | None = None

    def derive(self, op: DataOp | None) -> DataChain:
        """A new chain with ``op`` appended (None: same data, e.g. ``.values``)."""
        ops = self.ops if op is None else [*self.ops, op]
        return DataChain(self.source, ops, self.var, self.part)

    def shape(self) -> list | None:
        """The array's shape when the source's shape is known and the steps keep or set it."""
        shape = list(self.source.shape) if self.source is not None and self.source.shape else None
        if self.source is not None and self.source.kind in ("keras_dataset", "sklearn") and shape is None:
            known = dataset_sizes().get((self.source.name or "").lower())
            if known is None:
                return None
            train, test, sample = known
            part = self.part or ""
            n = test if part.endswith("_test") else train
            shape = [n, *sample] if part.startswith(("x", "data", "X")) else [n]
        for op in self.ops:
            if op.op in _SHAPE_KEEPING:
                continue
            if op.op == "reshape":
                target = op.args.get("shape")
                if target is None or target.kind != "const" or not isinstance(target.value, list):
                    return None
                new = list(target.value)
                if new.count(-1) == 1 and shape and all(isinstance(d, int) for d in shape):
                    total = 1
                    for d in shape:
                        total *= d
                    known = 1
                    for d in new:
                        if d != -1:
                            known *= d
                    new[new.index(-1)] = total // known if known else -1
                shape = new
            elif op.op == "expand_dims" and shape is not None:
                axis = op.args.get("axis")
                if axis is None or axis.kind != "const" or not isinstance(axis.value, int):
                    return None
                a = axis.value if axis.value >= 0 else len(shape) + 1 + axis.value
                shape = [*shape[:a], 1, *shape[a:]]
            elif op.op == "transpose" and shape is not None and not op.args:
                shape = list(reversed(shape))
            elif op.op in ("to_categorical", "one_hot") and shape is not None:
                n = op.args.get("num_classes") or op.args.get("depth")
                if n is None or n.kind != "const":
                    return None
                shape = [*(shape[:-1] if shape and shape[-1] == 1 else shape), n.value]
            else:
                return None
        return shape

    def to_var(self, role: str) -> DataVar:
        source = self.source
        if source is not None:
            source = replace(source, part=self.part or source.part, origin=_ORIGIN.get(source.kind))
            if source.kind in ("keras_dataset", "sklearn") and source.size is None and source.name:
                known = dataset_sizes().get(source.name.lower())
                if known:
                    train, test, shape = known
                    source.size = test if (self.part or "").endswith("_test") else train
                    source.shape = (
                        [source.size, *shape]
                        if (self.part or "x").startswith(("x", "data", "X"))
                        else [source.size]
                    )
        return DataVar(role=role, var=self.var, source=source, preprocess=list(self.ops))


#: steps that do not change an array's shape
_SHAPE_KEEPING = frozenset(
    {
        "divide",
        "multiply",
        "subtract",
        "add",
        "power",
        "astype",
        "scale",
        "normalize",
        "clip",
        "log",
        "exp",
        "sqrt",
        "abs",
        "round",
        "fillna",
        "setitem",
        "shuffle",
        "augment",
        "mean_std",
    }
)

_ORIGIN = {
    "keras_dataset": "real",
    "sklearn": "real",
    "file": "real",
    "generator": "real",
    "random": "synthetic",
    "generated": "synthetic",
    "literal": "synthetic",
}

# a loaded data set's size and sample shape: mutreal.known_datasets.dataset_sizes (taxonomy/datasets.csv)


@dataclass
class Bunch:
    """A sklearn Bunch (``load_iris()``): ``.data`` and ``.target`` are chains of one source."""

    source: DataSource

    def attr(self, name: str) -> DataChain | None:
        if name in ("data", "target", "images", "frame"):
            return DataChain(self.source, [], part=name)
        return None


@dataclass
class Scaler:
    """A sklearn scaler/encoder object (or Keras Tokenizer): transforms add a step named after it."""

    cls: str
    op: str
    text: str = ""


@dataclass
class Augmenter:
    """An ImageDataGenerator: ``flow(x, y)`` yields the arrays with an ``augment`` step."""

    cls: str
    op: DataOp


@dataclass
class Flow:
    """``datagen.flow(x, y, batch_size=...)`` / ``flow_from_directory`` / a tf.data pipeline."""

    x: DataChain | None
    y: DataChain | None
    kwargs: dict = field(default_factory=dict)


def shape_of_literal(value: object) -> list[int] | None:
    """Shape of a nested list literal (``[[0, 0], [0, 1]]`` -> [2, 2])."""
    shape: list[int] = []
    while isinstance(value, list | tuple):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return shape or None


def shape_of_value(value: Value) -> list[int] | None:
    """Shape of a list/tuple written out with some non-constant items (``[[a], [b], [c]]`` -> [3, 1])."""
    shape: list[int] = []
    v: object = value
    while True:
        if isinstance(v, Value) and v.kind == "seq":
            shape.append(len(v.args))
            if not v.args:
                break
            v = v.args[0]
        elif isinstance(v, Value) and v.kind == "const" and isinstance(v.value, list):
            return shape + (shape_of_literal(v.value) or [])
        else:
            break
    return shape or None


def size_of(shape: list | None) -> int | None:
    """Number of samples (first dimension) of a known shape."""
    if shape and isinstance(shape[0], int):
        return shape[0]
    return None
