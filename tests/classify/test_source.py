"""source.py: decoding, Python 2 upgrade, tolerant parsing that sets lines aside."""

from __future__ import annotations

import ast

import libcst
import pytest

from mutreal.program.source import SourceError, decode_bytes, load_program, parse_source, python_tree


def test_python2_print_statement_is_upgraded():
    parsed = parse_source("x = 1\nprint x\n", "p.py")
    assert parsed.upgraded_python2
    assert "print(x)" in parsed.module.code


def test_python2_except_comma_is_upgraded():
    parsed = parse_source("try:\n    pass\nexcept ValueError, e:\n    pass\n")
    assert "except ValueError as e" in parsed.module.code


def test_clean_python3_is_untouched():
    text = "import numpy as np\nx = np.zeros(3)\n"
    parsed = parse_source(text)
    assert parsed.module.code == text and not parsed.set_aside and not parsed.upgraded_python2


def test_syntax_error_names_line_when_not_tolerant():
    with pytest.raises(SourceError) as info:
        parse_source("a = 1\nb = (2 +\nc = 3 3\n", "bad.py")
    assert info.value.kind == "syntax" and "bad.py" in str(info.value)


def test_tolerant_sets_aside_notebook_magics_and_keeps_line_numbers():
    text = "%matplotlib inline\nimport numpy as np\n!pip install keras\nx = np.ones(2)\n"
    parsed = parse_source(text, tolerant=True)
    assert [s.line for s in parsed.set_aside] == [1, 3]
    assert parsed.module.code.count("\n") == text.count("\n")


def test_tolerant_sets_aside_prose():
    parsed = parse_source("Here is my code:\nx = 1\nThis does not work, any idea?\ny = 2\n", tolerant=True)
    assert {s.line for s in parsed.set_aside} == {1, 3}
    assert "x = 1" in parsed.module.code and "y = 2" in parsed.module.code


def test_tolerant_closes_a_bracket_left_open_at_the_end():
    parsed = parse_source("x = 1\nmodel_fit(x,\n    epochs=3,\n", tolerant=True)
    assert [s.line for s in parsed.set_aside] == [2] and "repaired" in parsed.set_aside[0].reason
    assert "epochs=3" in parsed.module.code


def test_tolerant_drops_a_doubled_opening_bracket():
    parsed = parse_source("fit((x,\n    epochs=3)\ny = 2\n", tolerant=True)
    assert "fit(x," in parsed.module.code and "y = 2" in parsed.module.code


def test_tolerant_sets_aside_unrepairable_unclosed_bracket():
    text = "x = 1\nmodel_fit(x,\n    and then it crashes, why?\n"
    parsed = parse_source(text, tolerant=True)
    assert [s.line for s in parsed.set_aside] == [2, 3]
    assert parsed.module.code.startswith("x = 1")


def test_tolerant_magic_inside_block_keeps_block_valid():
    parsed = parse_source("try:\n    %tensorflow_version 2.x\nexcept Exception:\n    pass\n", tolerant=True)
    assert len(parsed.set_aside) == 1 and parsed.set_aside[0].line == 2


def test_not_python_at_all_is_an_error():
    prose = "\n".join(f"this is sentence number {i} of a long post, not code at all" for i in range(80))
    with pytest.raises(SourceError) as info:
        parse_source(prose, "post.py", tolerant=True)
    assert info.value.kind == "not_python"


def test_undecodable_bytes_give_clear_error():
    with pytest.raises(SourceError) as info:
        decode_bytes(b"x = 1\ny = '\xff\xfe'\n", "bad.py")
    assert info.value.kind == "undecodable" and "0xff" in str(info.value) and info.value.line == 2


def test_declared_latin1_encoding_is_used():
    data = "# -*- coding: latin-1 -*-\nname = 'caf\u00e9'\n".encode("latin-1")
    assert "caf\u00e9" in decode_bytes(data)


def test_utf8_bom_is_accepted():
    assert decode_bytes(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(SourceError) as info:
        load_program(tmp_path / "nope.py")
    assert info.value.kind == "missing"


def test_tolerant_inserts_a_forgotten_comma():
    parsed = parse_source("model.fit(X, Y epochs=50,\n    verbose=1)\n", tolerant=True)
    assert "fit(X, Y, epochs=50" in parsed.module.code
    assert parsed.set_aside[0].line == 1 and "repaired" in parsed.set_aside[0].reason


@pytest.mark.parametrize(
    "text, tolerant",
    [
        ("x = 1\nprint(x)\n", False),  # Python 3 as it is
        ("print 'hello'\n", False),  # upgraded from Python 2
        ("%matplotlib inline\nx = [1,\n", True),  # lines set aside
    ],
)
def test_the_syntax_checks_tree_is_handed_on_not_parsed_again(text, tolerant):
    parsed = parse_source(text, tolerant=tolerant)
    tree = python_tree(parsed.module, parsed.text)
    assert tree is not None and python_tree(parsed.module, parsed.text) is tree  # kept, not re-parsed
    assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(parsed.text), include_attributes=True)


def test_python_tree_of_other_text_is_parsed_fresh():
    parsed = parse_source("x = 1\n")
    other = python_tree(parsed.module, "y = 2\n")
    assert other is not None and ast.dump(other) == ast.dump(ast.parse("y = 2\n"))
    assert python_tree(libcst.parse_module("x = (1\n)\n"), "x = (\n") is None  # not Python for ast
