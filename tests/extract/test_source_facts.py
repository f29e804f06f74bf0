"""Source facts in the program model: training-budget literals and runtime training-data calls.

``ProgramModel.hyperparameter_literals`` and ``ProgramModel.runtime_data_calls`` are read from the
source once, by the extractor, so the comparison reads the model only (it read the source itself
before; the classify output of the own and dev corpora stayed byte-identical when it moved).
"""

from __future__ import annotations

import json

from mutreal.extract import extract_source
from mutreal.program.model import HyperparameterLiteral, ProgramModel, RuntimeDataCall

PROGRAMS = {
    "budget": """
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
EPOCHS = 12
nb_epoch = 3
batch_size = 16.0
num_batch = 2
learning_rate = 0.1
epochs_list = [1, 2]
x = np.zeros((10, 4)); y = np.zeros(10)
model = Sequential([Dense(1, input_dim=4)])
model.compile(loss="mse", optimizer="sgd")
model.fit(x, y, epochs=EPOCHS, batch_size=batch_size)
EPOCHS = 20
""",
    "runtime_alias": """
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from mutreal.runtime import training_data as td
x_train = np.zeros((10, 4)); y_train = np.zeros(10)
x_train, y_train = td.remove(x_train, y_train, pct=25.0, seed=0)
y_train = td.noise(y_train,  pct=10.0 , seed=1)
model = Sequential([Dense(1, input_dim=4)])
model.compile(loss="mse", optimizer="sgd")
model.fit(x_train, y_train, epochs=2)
""",
    "runtime_module_import_in_function": """
import mutreal.runtime.training_data
import mutreal.runtime.training_data as rt
from keras.models import Sequential
from keras.layers import Dense

def load(a, b):
    a, *rest = mutreal.runtime.training_data.unbalance(a, b, pct=50.0, seed=0)
    data.x = rt.remove(a, b, pct=5.0, seed=2)
    other = rt.helpers.remove(a)
    return a, b

xs, ys = load(None, None)
model = Sequential([Dense(1, input_dim=4)])
model.compile(loss="mse", optimizer="sgd")
model.fit(xs, ys, epochs=2)
""",
    "no_runtime_mentions_training_data": """
training_data = [1, 2, 3]
batch = 4
""",
}


def test_budget_literals_are_module_level_numbers_with_budget_names():
    pm = extract_source(PROGRAMS["budget"], "p.py")
    lits = pm.hyperparameter_literals
    assert sorted(lits) == ["EPOCHS", "batch_size", "nb_epoch", "num_batch"]
    # the later binding wins; its line is the first line that writes that literal
    assert lits["EPOCHS"] == HyperparameterLiteral("EPOCHS", "fit.epochs", 20.0, "20", 15)
    assert lits["batch_size"].kind == "fit.batch_size" and lits["batch_size"].value == 16.0
    assert extract_source("epochs = 5\n").hyperparameter_literals["epochs"].line == 1
    assert extract_source("x = 5\n").hyperparameter_literals == {}


def test_runtime_calls_resolve_aliases_and_training_roles():
    pm = extract_source(PROGRAMS["runtime_alias"], "p.py")
    calls = pm.runtime_data_calls
    assert [(c.function, c.roles, c.line) for c in calls] == [
        ("remove", ["x_train", "y_train"], 7),
        ("noise", ["y_train"], 8),
    ]
    assert calls[1].text == "td.noise(y_train, pct=10.0 , seed=1)"  # whitespace runs collapsed
    assert calls[0].file == "p.py"
    nested = extract_source(PROGRAMS["runtime_module_import_in_function"], "q.py").runtime_data_calls
    # a nested module name is not a runtime function; calls inside functions count
    assert [(c.function, c.line) for c in nested] == [("unbalance", 8), ("remove", 9)]
    assert extract_source(PROGRAMS["no_runtime_mentions_training_data"]).runtime_data_calls == []


def test_source_facts_round_trip_through_json():
    pm = extract_source(PROGRAMS["runtime_alias"] + "epochs = 3\n", "p.py")
    again = ProgramModel.from_dict(json.loads(json.dumps(pm.to_dict())))
    assert again.runtime_data_calls == pm.runtime_data_calls
    assert again.hyperparameter_literals == pm.hyperparameter_literals
    assert isinstance(again.runtime_data_calls[0], RuntimeDataCall)
    # a model written before these fields existed still loads
    old = pm.to_dict()
    del old["runtime_data_calls"], old["hyperparameter_literals"]
    assert ProgramModel.from_dict(old).runtime_data_calls == []


def test_a_local_training_data_module_is_not_the_runtime_and_costs_no_matcher_import():
    """Programs of the corpus often have their own ``training_data``; without ``mutreal`` in the
    text no callee can resolve into the runtime module, so the search (and LibCST's matchers,
    a large import that counts in classify's start-up) is skipped."""
    import subprocess
    import sys

    program = "import training_data as td\nx, y = td.remove(x, y, pct=5.0)\ntraining_data = td.load()\n"
    assert extract_source(program).runtime_data_calls == []
    check = (
        "import sys\nfrom mutreal.extract import extract_source\n"
        f"assert extract_source({program!r}).runtime_data_calls == []\n"
        "print('libcst.matchers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
