"""The named cause of a real program's failure, for ``benchmarks/real_programs.py``.

Why a module of its own: the script's table is only as useful as the causes it names, and the rules
that name them (error patterns, a write into a missing folder, a package whose job is a download,
a Keras data set the workers cannot serve) grow with every benchmark measured; they are kept, and
tested, apart from the running and the printing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Outcome words this script reports (the run record's outcome, refined).
COMPLETES = "completes"
CRASH = "crash"
MISSING = "missing data"
TRAINS_CUT = "trains (cut at limit)"
TIMEOUT = "timeout"
MEMORY = "memory"
LOST = "lost"
STATUSES = (COMPLETES, CRASH, MISSING, TRAINS_CUT, TIMEOUT, MEMORY, LOST)

#: (cause, pattern on "ErrorType: message") in order; the first match names a failure's cause.
CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.S))
    for name, pattern in (
        (
            "missing data",
            r"^(FileNotFoundError|MissingData|URLError|HTTPError|OSError: \[Errno -?\d+\] "
            r"(No such file|Temporary failure|Name or service))|download|Errno 2|Errno -3|"
            r"unable to open file|No such file or directory|urlopen error|not found: .*\.(csv|txt|npy|h5|gz)"
            r"|Input 'filename' of 'ReadFile' Op has type float32"  # a glob that found no file
            r"|No data files found"  # a program's own check of its data folder
            r"|Expected input data to be non-empty",  # fit on what an absent image folder gave: nothing
        ),
        # NumPy 2 turned the deprecation of 1.25 into an error: float("%g" % w) of a (1,)-shaped array
        (
            "NumPy 2: an array of one element with ndim > 0 is no Python scalar (deprecated since NumPy 1.25)",
            r"only 0-dimensional arrays can be converted to Python scalars",
        ),
        # TensorFlow 2's oneDNN convolution on an empty batch (a program that slices past its samples);
        # the run completes with TF_ENABLE_ONEDNN_OPTS=0, which makes every other CNN several times slower
        (
            "TensorFlow 2's oneDNN convolution fails on an empty batch (the program feeds empty slices; "
            "TF_ENABLE_ONEDNN_OPTS=0 runs it)",
            r"input depth must be evenly divisible by filter depth",
        ),
        (
            "the program calls tf.reset_default_graph() inside its own Session (an error in TensorFlow 1 too)",
            r"Do not use tf\.reset_default_graph\(\) to clear nested graphs",
        ),
        # Keras 3 names its loss nodes compile_loss/...: a rank-1 target against (n, k) outputs, which
        # Keras 2 expanded to (n, 1) and broadcast
        (
            "Keras 3 stricter: a loss on targets of another rank (Keras 2 expanded rank-1 targets)",
            r"Dimensions must be equal.*compile_loss/",
        ),
        (
            "instrumentation (benchmark scaffolding)",
            r"DeepLocalize|keras\.callbacks' has no attribute|time\.clock|'clock'|SystemExit",
        ),
        (
            "removed Python/numpy/scipy/sklearn API",
            r"module 'numpy' has no attribute|numpy\.\w+` was a deprecated"
            r"|scipy\.misc|has no attribute 'imread'|has no attribute 'imresize'|module 'time' has no attribute"
            r"|cannot import name '\w+' from 'collections'|sklearn\.cross_validation|No module named 'sklearn\.\w+'"
            r"|np\.(float|int|bool|object)\b|has no attribute 'asscalar'|fractions|inspect\.getargspec"
            r"|categorical_features|OneHotEncoder|Imputer|sklearn\.(externals|grid_search|learning_curve)",
        ),
        (
            "TensorFlow 1 Estimators (tf.estimator removed in TensorFlow 2.16)",
            r"Estimators left with tf\.estimator|has no attribute 'estimator'"
            r"|has no attribute '(real_valued_column|sparse_column\w*|embedding_column|LinearRegressor|DNNClassifier)'",
        ),
        ("distributed TensorFlow (needs a cluster and its job arguments)", r'Job "[^"]*" was not defined in cluster'),
        ("TF1 graph: the program leaves a placeholder unfed", r"You must feed a value for placeholder"),
        (
            "TensorFlow 1 API",
            r"module 'tensorflow' has no attribute|tensorflow\.contrib|No module named "
            r"'tensorflow\.(contrib|examples)|tf\.(placeholder|Session|compat\.v1)|tensorflow\.compat\.v1"
            r"|eager execution|tensorflow\.python\.\w+' has no attribute"
            r"|make_(initializable|one_shot)_iterator|has no attribute '(get_default_graph|Session)'",
        ),
        (
            "Keras 3 removal/change",
            r"keras\.(layers\.core|utils\.np_utils|wrappers|preprocessing|engine|legacy)"
            r"|No module named 'keras\.|cannot import name '\w+' from 'keras|ImageDataGenerator|nb_epoch"
            r"|Unrecognized keyword arguments|Argument\(s\) not recognized|unexpected keyword argument"
            r"|A KerasTensor cannot be used as input to a TensorFlow function"
            r"|expected a positive integer|must end in `\.weights\.h5`"
            r"|^KeyError: '(val_)?acc'|\bKeras [23]\b|\bMerge\b|predict_classes|fit_generator|evaluate_generator|has no attribute "
            r"'(get_session|set_session|image_dim_ordering|set_image_dim_ordering|_get_available_gpus)'",
        ),
        (
            "SciKeras on tf_keras: a model without an input shape before fit",
            r"len\(self\.model_\.outputs\)",  # SciKeras counts the outputs of the model its builder returned
        ),
        ("missing package", r"^ModuleNotFoundError|^ImportError|TensorBoard is not installed"),
        # absl flags are process-wide: in a warm worker a flag an earlier program defined (Defects4ML 007's
        # cifar10 module: data_dir) made the next definition crash; the worker forgets them between runs since
        ("absl flag defined twice (one left by an earlier program of the warm worker)", r"^DuplicateFlagError"),
        # the program plots history['val_loss'] of a fit that had no validation data (val_acc: Keras 3 above)
        ("reads a fit history key its fit did not record (no validation data)", r"^KeyError: 'val_\w+'"),
        # Keras 2 saved HDF5 whatever the name (model.h67); tf_keras saves a SavedModel folder unless the name
        # ends in .h5/.keras, and a file of that name is beside the program
        ("save() to a name without .h5: old Keras wrote HDF5, tf_keras a SavedModel folder",
         r"^FailedPreconditionError: .* is not a directory"),
        # an object array (e.g. a pandas object column): Keras 2 on TensorFlow 1 fed it as float, tf_keras refuses
        ("shape/dtype error", r"shape|Shape|dimension|Dimension|rank|dtype|incompatible|Incompatible"
         r"|Failed to convert a NumPy array to a Tensor"),
        ("syntax (Python 2 or broken file)", r"^(SyntaxError|IndentationError|TabError)"),
        ("worker", r"WorkerDied|ChannelError|killed|signal"),
    )
)


#: The cause of a FileNotFoundError raised by a write: the program's output folder is not there (a
#: program written to run from another working directory), which says nothing about its data.
WRITES_MISSING_FOLDER = "writes into a folder that is not there (working directory)"
#: The program's last line of a traceback, when it writes a file (open for writing, savers).
_WRITE_CALL = re.compile(
    r"""\bopen\([^\n]*,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]|\.(?:to_csv|to_json|savefig|save|save_weights|"""
    r"""imwrite|savetxt|dump)\("""
)
#: Packages the programs import that mutreal's extras do not install, and why (see pyproject.toml's
#: ``benchmarks`` extra for those it does: OpenCV, seaborn).
PACKAGE_NOTES: dict[str, str] = {
    "mlflow": "experiment tracker, not installed",
    "hyperdash": "experiment tracker of a closed service, not installed",
    "keras_contrib": "published on GitHub only, not on PyPI",
    "tensorflow_datasets": "downloads its data sets at run time, which workers cannot",
    "tensorflow_probability": "not installed",
    "cv2": "install mutreal[benchmarks]",
    "seaborn": "install mutreal[benchmarks]",
}


def writes_a_file(traceback: str | None) -> bool:
    """Whether the last line of the program a traceback shows writes a file."""
    lines = [line for line in (traceback or "").splitlines() if line.startswith("    ") and line.strip()]
    code = [line for line in lines if not line.lstrip().startswith(("File ", "^", "~"))]
    return bool(code) and bool(_WRITE_CALL.search(code[-1]))


def _missing_package(message: str | None) -> str:
    """``missing package`` with the package named, and why it is missing where this script knows."""
    found = re.search(r"No module named '([\w.]+)'|cannot import name '\w+' from '([\w.]+)'", message or "")
    if not found:
        return "missing package"
    module = found.group(1) or found.group(2)
    top = module.split(".")[0]
    if top in ("keras", "tf_keras", "tensorflow", "sklearn", "numpy", "scipy"):
        return "module moved or removed in an installed library"  # not a package to install
    note = PACKAGE_NOTES.get(top)
    return f"missing package: {top}" + (f" ({note})" if note else "")




def graph_detail(message: str | None, traceback: str | None) -> str | None:
    """A TensorFlow graph error's reason: its message starts with the op's whole stack ("Graph
    execution error: Detected at node 'Relu_1' defined at ...") and ends, past the characters of a
    message the worker keeps, with ``Node: 'Relu_1'`` and the reason; the traceback still has them."""
    if not (message or "").startswith("Graph execution error"):
        return message
    found = re.search(r"Node: '([^']+)'\n([^\n]+)", traceback or "")
    return f"Graph execution error at node '{found[1]}': {found[2]}" if found else message


def cause_of(
    error_type: str | None, message: str | None, traceback: str | None = None, epochs: int = 0
) -> str:
    """The named cause of a failure, from its error class and message (``other`` when none fits).

    A crash after at least one finished epoch is named ``after training: <cause>`` (the program's own
    reporting code, or instrumentation, failed once the model had trained: a different matter from a
    program that never trains); a program reading ``sys.argv`` it was not given needs arguments; an
    ``assert`` on the framework's version (TFBugs2018 pins ``tf.__version__ == "1.8.0"``) is a pin; an
    otherwise unnamed error raised inside Keras 3 is one of its stricter checks (a float where it wants
    an int), which the Keras 2 these programs were written for let pass.
    """
    text = f"{error_type or ''}: {message or ''}"
    name = next((name for name, pattern in CAUSES if pattern.search(text)), "other")
    if name == "missing data" and writes_a_file(traceback):
        name = WRITES_MISSING_FOLDER
    if name == "missing package":
        name = "missing package: tensorboard" if "TensorBoard is not installed" in text else _missing_package(message)
    if name == "other" and error_type == "IndexError" and "sys.argv" in (traceback or ""):
        name = "needs command-line arguments"
    if name == "other" and error_type == "AssertionError" and "__version__" in (traceback or ""):
        name = "version pin (assert on tf.__version__)"
    if name == "other" and "site-packages/keras/src/" in (traceback or ""):
        name = "Keras 3 stricter check (raised inside Keras 3)"
    if epochs >= 1 and name not in ("missing data",):
        name = f"after training: {name}"
    return name



#: Keras' built-in data sets -> the file (or folder) of each in the Keras data-set folder.
KERAS_DATASETS: dict[str, str] = {
    "mnist": "mnist.npz", "fashion_mnist": "fashion-mnist", "cifar10": "cifar-10-batches-py",
    "cifar100": "cifar-100-python", "imdb": "imdb.npz", "reuters": "reuters.npz",
    "boston_housing": "boston_housing.npz",
}  # fmt: skip


def _absent_keras_dataset(path: str) -> str | None:
    """The Keras built-in data set the program loads (``mnist.load_data()``) that the workers cannot
    serve (not in ``$KERAS_HOME/datasets`` or ``~/.keras/datasets``, shown read-only to them), if any."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    home = Path(os.environ.get("KERAS_HOME") or Path.home() / ".keras") / "datasets"
    for name in re.findall(r"\b(\w+)\.load_data\(", text):
        entry = KERAS_DATASETS.get(name)
        if entry and not any((home / f).exists() for f in (entry, entry + ".tar.gz")):
            return name
    return None



#: Packages whose whole job is to download a data set when the program runs (not present locally, and
#: workers have no network): a program importing one misses its data, whether or not it is installed.
RUNTIME_DOWNLOADERS: dict[str, str] = {
    "tensorflow_datasets": "tensorflow_datasets downloads its data set when the program runs: not present locally",
}


def data_absent(path: str, status: str, cause: str | None, message: str | None) -> tuple[str, str | None, str | None]:
    """A missing package that says the program's data is not present either: a Keras built-in data set
    the workers cannot serve, or a package that downloads its data at run time (tensorflow_datasets).
    Then the program could not run here with the package installed: missing data, with the reason."""
    if not (cause and cause.startswith("missing package")):
        return status, cause, message
    found = re.search(r"No module named '(\w+)", message or "")
    if found and found.group(1) in RUNTIME_DOWNLOADERS:
        return MISSING, "missing data", f"{message} ({RUNTIME_DOWNLOADERS[found.group(1)]})"
    absent = _absent_keras_dataset(path)
    if absent:  # it could not run here with the package either: its data is not present
        return MISSING, "missing data", f"{message} (and it loads Keras' {absent} data set, not available offline)"
    return status, cause, message


#: a program that parses its command line and exits when an option it needs is not given
_ARGPARSE = re.compile(r"\bargparse\b|\bgetopt\b|\bsys\.argv\b")


def needs_arguments(path: str, error_type: str | None, epochs: int) -> bool:
    """Whether a program that exited before training (``SystemExit``) reads its command line: it
    printed its usage and stopped because it was run without the options its author ran it with
    (DeepLocalize's kaggle-melbourne_properties needs ``--train``), not because of scaffolding."""
    if error_type != "SystemExit" or epochs:
        return False
    try:
        return bool(_ARGPARSE.search(Path(path).read_text(errors="replace")))
    except OSError:
        return False


def refined(path: str, status: str, cause: str | None, message: str | None, error_type: str | None,
            epochs: int) -> tuple[str, str | None, str | None]:
    """The status and cause once the program's text is read: its data absent (:func:`data_absent`),
    or its command-line options missing (:func:`needs_arguments`)."""
    status, cause, message = data_absent(path, status, cause, message)
    if cause == "missing data" and status == CRASH:
        status = MISSING
    if status == CRASH and needs_arguments(path, error_type, epochs):
        cause = "needs command-line arguments (it parses its command line and exits without them)"
    return status, cause, message
