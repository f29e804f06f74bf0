"""The one dataclass <-> dict serialiser: what a record writes, and that it reads back what it wrote."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.serialise import Record, TextEnum, wire


class Colour(TextEnum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Inner(Record):
    name: str
    size: float = 1.0


@dataclass
class Outer(Record):
    id: str
    colour: Colour = Colour.RED
    inner: Inner | None = None
    items: list[Inner] = field(default_factory=list)
    by_name: dict[str, Inner] = field(default_factory=dict)
    shape: tuple[int, ...] = ()
    pair: tuple[str, int] | None = None
    where: Path | None = None
    renamed: str = field(default="", metadata=wire(key="class"))
    maybe: str | None = field(default=None, metadata=wire(omit="none"))
    notes: list[str] = field(default_factory=list, metadata=wire(omit="empty"))
    scratch: dict[str, Any] = field(default_factory=dict, metadata=wire(write=False))

    wire_derived: ClassVar = {"count": "colour"}

    @property
    def count(self) -> int:
        return len(self.items)


names = st.text(min_size=1, max_size=8)
inners = st.builds(Inner, names, st.floats(allow_nan=False, allow_infinity=False))
outers = st.builds(
    Outer,
    id=names,
    colour=st.sampled_from(Colour),
    inner=st.none() | inners,
    items=st.lists(inners, max_size=3),
    by_name=st.dictionaries(names, inners, max_size=3),
    shape=st.lists(st.integers(), max_size=3).map(tuple),
    pair=st.none() | st.tuples(names, st.integers()),
    where=st.none() | names.map(Path),
    renamed=names,
    maybe=st.none() | names,
    notes=st.lists(names, max_size=2),
)


@given(outers)
def test_a_record_reads_back_what_it_wrote_through_json(record: Outer) -> None:
    text = json.dumps(record.to_dict())
    assert Outer.from_dict(json.loads(text)) == record
    assert json.dumps(Outer.from_dict(json.loads(text)).to_dict()) == text


def test_the_written_dict_states_only_what_the_class_says_differs() -> None:
    record = Outer("a", Colour.BLUE, items=[Inner("x", 2.0)], renamed="r", where=Path("p/q.py"))
    record.scratch["seen"] = True
    assert record.to_dict() == {
        "id": "a",
        "colour": "blue",
        "count": 1,  # derived, written after the key it names
        "inner": None,
        "items": [{"name": "x", "size": 2.0}],
        "by_name": {},
        "shape": [],
        "pair": None,
        "where": "p/q.py",
        "class": "r",
        # maybe (None) and notes (empty) are left out; scratch is never written
    }
    assert list(record.to_dict())[:3] == ["id", "colour", "count"]


def test_reading_fills_defaults_converts_by_hint_and_passes_over_unknown_keys() -> None:
    read = Outer.from_dict(
        {
            "id": 7,
            "colour": "blue",
            "inner": {},
            "items": None,
            "shape": [1, 2],
            "pair": ["a", 1],
            "count": 99,
            "unknown": 1,
            "class": "c",
            "scratch": {"x": 1},
            "where": "a/b",
        }
    )
    assert read.id == "7"  # str field from a number
    assert read.colour is Colour.BLUE
    assert read.inner is None  # an empty optional record reads as None
    assert read.items == []  # a None list reads as empty
    assert read.shape == (1, 2) and read.pair == ("a", 1)
    assert read.renamed == "c" and read.where == Path("a/b")
    assert read.scratch == {}  # not written, so not read either
    assert Inner.from_dict({"name": "n", "size": 3}).size == 3.0 and isinstance(
        Inner.from_dict({"name": "n", "size": 3}).size, float
    )


def test_a_missing_required_key_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="id"):
        Outer.from_dict({"colour": "red"})


def test_wire_order_must_name_the_keys_it_writes() -> None:
    @dataclass
    class Wrong(Record):
        a: int = 0
        b: int = 0
        wire_order: ClassVar = ("b",)

    with pytest.raises(TypeError, match="wire_order"):
        Wrong().to_dict()

    @dataclass
    class Swapped(Record):
        a: int = 0
        b: int = 1
        wire_order: ClassVar = ("b", "a")

    assert list(Swapped().to_dict()) == ["b", "a"]


def test_a_text_enum_prints_formats_and_dumps_as_its_value() -> None:
    assert str(Colour.RED) == "red" and f"{Colour.RED:>5}" == "  red"
    assert json.dumps({"c": Colour.RED}) == '{"c": "red"}'


def test_the_program_model_of_a_program_reads_back_equal() -> None:
    from mutreal.extract import extract_source
    from mutreal.program.model import ProgramModel

    source = (
        "from tensorflow import keras\n"
        "import numpy as np\n"
        "EPOCHS = 3\n"
        "x = np.random.rand(20, 4) / 2.0\n"
        "y = np.random.randint(0, 2, 20)\n"
        "model = keras.Sequential([keras.layers.Dense(8, activation='relu'), keras.layers.Dense(1)])\n"
        "model.add(keras.layers.TimeDistributed(keras.layers.Dense(2)))\n"
        "model.compile(loss='mse', optimizer=keras.optimizers.Adam(lr=0.01), metrics=['mae'])\n"
        "model.fit(x, y, epochs=EPOCHS, batch_size=4,\n"
        "          callbacks=[keras.callbacks.EarlyStopping(patience=2)])\n"
    )
    model = extract_source(source, "own.py")
    written = json.dumps(model.to_dict())
    assert ProgramModel.from_dict(json.loads(written)) == model
    assert json.dumps(ProgramModel.from_dict(json.loads(written)).to_dict()) == written
    assert model.models[0].layers[2].inner is not None  # the wrapped layer travels too
    assert "inner" not in model.to_dict()["models"][0]["layers"][0]  # and is left out when there is none
