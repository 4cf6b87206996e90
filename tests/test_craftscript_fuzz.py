"""Fuzzing CraftScript: any text parses or fails with a located error; any parsed program runs to a result.

A sample runs in the default suite; ``-m slow`` runs 10,000 cases each.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftbt.capabilities.default import default_registry
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.interp import Limits
from craftbt.craftscript.parser import parse
from craftbt.craftscript.runner import run_inline
from tests.csh import body

TOKENS = ["log(", "dig(", "move(", "place(", "block_info(", "is_air(", "repeat(", "while (", "if (", "else", "{", "}",
          "(", ")", ";", ",", ":", "..", "f1", "u2", "r-1", "f1^", "d1_", "x", "let x = ", "x = ", "1", "-3", "0",
          '"dirt"', "true", "false", "!", "&&", "||", "+", "-", "*", "/", "==", "<", "macro m(int n) ", "m(", "/*",
          "*/", "//", "\n", " ", "waypoint(", "block(id:", "assert(", "turn(", "r90", "tol:1", "face:"]

#: long runs of one piece: operator chains and nesting past every limit (they were RecursionErrors once)
deep = st.tuples(st.sampled_from(["!", "-", "1 + ", "(", "{", "f1+", "x && ", "repeat(2) {", "if (true) {"]),
                 st.integers(min_value=0, max_value=3000)).map(lambda t: "let x = " + t[0] * t[1] + "1;")
texts = st.one_of(st.text(max_size=200), st.lists(st.sampled_from(TOKENS), max_size=60).map("".join), deep)
ok_programs = st.lists(st.sampled_from([
    'log("a", 1);', "let x = 3;", "repeat(x: 0..3) { log(x); }", "if (is_air(f1)) { log(1); } else { log(2); }",
    "block_info(f1+u1);", "turn(r90);", "while (false) { }", "repeat(2) { block_info(d1); }", "log(7 / 2 * -1);",
    "dig(f1+d1);", "move(f1);", "assert(true);", "log(1 / 0);", "while (true) { }", "move(f1^);",
]), max_size=12).map(lambda parts: "let x = 0;\n" + "\n".join(parts))


def _parse_any(text: str) -> None:
    try:
        parse(text)
    except ScriptError as err:
        assert err.loc is not None and err.loc.line >= 1 and err.loc.column >= 1
        assert err.render()


def _run_any(src: str) -> None:
    try:
        program = parse(src)
    except ScriptError:
        return
    out = run_inline(program, body(), default_registry(), limits=Limits(max_ops=300))
    assert out.ok == (out.error is None)
    if out.error is not None:
        assert out.error["loc"] is not None and out.error["error"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_parser_sample(text: str) -> None:
    _parse_any(text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ok_programs)
def test_interpreter_sample(src: str) -> None:
    _run_any(src)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_parser_fuzz_10k(text: str) -> None:
    _parse_any(text)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(ok_programs, texts))
def test_interpreter_fuzz_10k(src: str) -> None:
    _run_any(src)
