"""CraftScript grammar, typed AST and static checks (seed 004 sections 1-3, 8, 12, 14)."""

from __future__ import annotations

import pytest

from craftbt.craftscript import ast as a
from craftbt.craftscript.checker import Checker
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.parser import MAX_NESTING, parse


def check(src: str, functions: dict | None = None) -> list[ScriptError]:
    try:
        program = parse(src, source="F.cs")
    except ScriptError as err:
        return [err]
    return Checker(program, core_macros=core_macros(), functions=functions or {}).check()


def first(src: str) -> str:
    errors = check(src)
    assert errors, src
    return errors[0].render()


def test_staircase_example_parses_to_typed_nodes_with_locations() -> None:
    p = parse('macro stair_up_step() {\n  assert(safe_step_up(f1), "no safe step");\n  dig(f1+u2);\n  move(f1^);\n}\n'
              "repeat(12) { stair_up_step(); }")
    macro, rep = p.body
    assert isinstance(macro, a.MacroDecl) and isinstance(rep, a.RepeatStmt)
    assert macro.loc.line == 1 and macro.loc.column == 1 and rep.loc.line == 6
    dig = macro.body.body[1]
    assert isinstance(dig, a.Command) and dig.loc.line == 3 and dig.loc.column == 3
    sel = dig.args[0]
    assert isinstance(sel, a.Selector) and [t.axis for t in sel.terms] == ["f", "u"]
    move = macro.body.body[2]
    assert isinstance(move, a.Command)
    step = move.args[0]
    assert isinstance(step, a.Selector) and step.terms[0].rise == 1
    assert "stair_up_step" in p.macros


def test_names_starting_with_axis_letters_are_identifiers() -> None:
    assert check("let base_x = 1; let dirt = base_x + 1; let radius = dirt; log(radius);") == []
    p = parse("break(f1+u(h));")
    cmd = p.body[0]
    assert isinstance(cmd, a.Command)
    term = cmd.args[0].terms[1]  # type: ignore[union-attr]
    assert term.axis == "u" and isinstance(term.count, a.Identifier)


def test_selector_cases_and_shortcuts() -> None:
    p = parse("block_info(F); block_info(r-1); block_info(f1_);")
    sels = [s.args[0] for s in p.body]  # type: ignore[union-attr]
    assert sels[0].terms[0].axis == "f"  # type: ignore[union-attr]
    assert sels[1].terms[0].count.value == -1  # type: ignore[union-attr]
    assert sels[2].terms[0].rise == -1  # type: ignore[union-attr]


def test_precedence_and_comparisons() -> None:
    p = parse("let a = 2 + 3 * 4; if (!false && (false || a == 14)) { ; }")
    let = p.body[0]
    assert isinstance(let, a.LetStmt) and isinstance(let.value, a.BinaryExpr) and let.value.op == "+"
    assert isinstance(let.value.right, a.BinaryExpr) and let.value.right.op == "*"


@pytest.mark.parametrize(("src", "where"), [
    ('log("a")\nlog("b");', "F.cs:2:1"),
    ('log("x"); /* open', "F.cs:1:11"),
    ("Dig(f1);", "F.cs:1:1"),
    ("let if = 1;", "F.cs:1:5"),
    ('log("a"); dgi(f1);', "F.cs:1:11"),
    ("goto(0,64,5, tolerance:1);", "F.cs:1:14"),
    ("{ let a = 1; } log(a);", "F.cs:1:20"),
    ("m = 1;", "F.cs:1:1"),
    ('log("unterminated);', "F.cs:1:5"),
    ('macro build_stairs(int steps) { repeat(steps) { ; } } build_stairs("x");', "F.cs:1:68"),
    ('log(is_hazard("nope"));', "F.cs:1:15"),
    ("log(1,);", "F.cs:1:7"),
    ("log(1);\nlet big = 99999999999999999999;", "F.cs:2:11"),
])
def test_located_compile_errors(src: str, where: str) -> None:
    assert first(src).startswith(where + ":")


@pytest.mark.parametrize(("src", "where"), [
    ("repeat(3) {\n  dig(f1);\n  if (is_air(f1)) {\n    move(f1);\n", "F.cs:3:19: syntax_error: this '{'"),
    ('log("a {"); // {\n/* ( */ log(1,\n', "F.cs:2:12: syntax_error: this '('"),
    ("macro m() {\n  log(1);\n\nm();\n", "F.cs:1:11: syntax_error: this '{'"),
])
def test_a_script_that_ends_inside_a_block_names_the_bracket_left_open(src: str, where: str) -> None:
    assert first(src).startswith(where), first(src)


def test_unknown_command_suggests_the_close_one() -> None:
    err = check('log("a"); dgi(f1);')[0]
    assert err.code == "unknown_command" and err.suggestion == "dig"


def test_comments_and_empty_statements() -> None:
    assert check('/* a */ log("x" /* b */); // c') == []
    assert check(';;{ ; { log("x"); } }') == []


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "log(" + "(" * (MAX_NESTING + 5) + "1" + ")" * (MAX_NESTING + 5) + ");"
    assert "too_deep" in first(deep)
    ok = "log(" + "(" * 20 + "1" + ")" * 20 + ");"
    assert check(ok) == []


def test_function_calls_are_named_only() -> None:
    fns = {"tower": {"args": [{"name": "h", "type": "int", "optional": False}]}}
    assert check("tower(h: 3);", fns) == []
    assert check("tower(3);", fns)[0].code == "bad_args"
    assert "x" in check("tower(h: 3, x: 1);", fns)[0].message
    assert "missing required" in check("tower();", fns)[0].message


def test_long_operator_chains_are_an_error_not_a_crash() -> None:
    assert "too_deep" in first("let x = " + "!" * 3000 + "true;")
    assert "too_deep" in first("let x = 1" + " + 1" * 20_000 + ";")
    assert "too_deep" in first("let x = " + "-" * 500 + "y;")
    assert check("let x = 1" + " + 1" * 90 + ";") == []


def test_precedence_and_associativity() -> None:
    p = parse("let x = 1 + 2 * 3 - 4 / 2 % 3 == 5 || !b_ok && 2 < 3;")
    let = p.body[0]
    assert isinstance(let, a.LetStmt)
    top = let.value
    assert isinstance(top, a.LogicalExpr) and top.op == "||"
    eq, conj = top.left, top.right
    assert isinstance(eq, a.BinaryExpr) and eq.op == "=="
    assert isinstance(conj, a.LogicalExpr) and conj.op == "&&"
    minus = eq.left
    assert isinstance(minus, a.BinaryExpr) and minus.op == "-"  # (1 + 2*3) - ((4/2)%3): left to right
    assert isinstance(minus.left, a.BinaryExpr) and minus.left.op == "+"
    mod = minus.right
    assert isinstance(mod, a.BinaryExpr) and mod.op == "%" and isinstance(mod.left, a.BinaryExpr)
    assert mod.left.op == "/"
    assert (eq.loc.line, eq.loc.column) == (1, 9) and (conj.loc.line, conj.loc.column) == (1, 39)


def test_comparisons_do_not_chain() -> None:
    errors = check("let x = 1 < 2 < 3;")
    assert errors and errors[0].code == "syntax_error" and "do not chain" in errors[0].message
    assert errors[0].loc is not None and errors[0].loc.column == 15
    assert check("let x = 1 < 2 && 2 < 3;") == []


def test_every_node_keeps_its_line_and_column() -> None:
    src = 'let a = 1;\n  if (a >= 1) {\n    repeat(i: 0..2:1) { dig(f1+u(i)); }\n  } else { ; }\nwhile (false) { }\n'
    p = parse(src)
    let, if_stmt, while_stmt = p.body
    assert (let.loc.line, let.loc.column) == (1, 1)
    assert isinstance(if_stmt, a.IfStmt) and (if_stmt.loc.line, if_stmt.loc.column) == (2, 3)
    assert (if_stmt.consequent.loc.line, if_stmt.consequent.loc.column) == (2, 15)
    rep = if_stmt.consequent.body[0]
    assert isinstance(rep, a.RepeatStmt) and (rep.loc.line, rep.loc.column) == (3, 5)
    dig = rep.body.body[0]
    assert isinstance(dig, a.Command) and (dig.loc.line, dig.loc.column) == (3, 25)
    sel = dig.args[0]
    assert isinstance(sel, a.Selector) and [(t.loc.line, t.loc.column) for t in sel.terms] == [(3, 29), (3, 32)]
    assert isinstance(if_stmt.alternate, a.Block) and isinstance(if_stmt.alternate.body[0], a.EmptyStmt)
    assert (if_stmt.alternate.body[0].loc.line, if_stmt.alternate.body[0].loc.column) == (4, 12)
    assert (while_stmt.loc.line, while_stmt.loc.column) == (5, 1)
