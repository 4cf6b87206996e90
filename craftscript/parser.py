"""Text to typed AST: the lark grammar (``grammar.lark``) and a transformer that builds ``ast`` nodes.

Any input gets either a :class:`~craftbt.craftscript.ast.Program` or a located :class:`ScriptError`:
lark's LALR parser runs in linear time, and nesting is bounded before the (recursive) transformer
runs, so deep brackets are an error, not a ``RecursionError``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.tree import Meta

from craftbt.craftscript import ast as a
from craftbt.craftscript.errors import ScriptError, ScriptErrorCode

GRAMMAR = Path(__file__).with_name("grammar.lark")
#: deepest bracket nesting accepted (parentheses, braces); deeper input is ``too_deep``
MAX_NESTING = 64
#: largest script accepted, in characters
MAX_SOURCE = 1_000_000
PARAM_TYPES = ("int", "bool", "string")
#: reserved words (seed section 1, plus ``let``): never a variable, macro, parameter or command name
KEYWORDS = frozenset({"macro", "if", "else", "while", "repeat", "assert", "true", "false", "let"})
SELECTOR_NAME = re.compile(r"^[fbrlud][0-9]*_?$")
ESCAPES = {'"': '"', "n": "\n", "t": "\t", "\\": "\\"}


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True,
                maybe_placeholders=True)


def _unescape(raw: str) -> str:
    out: list[str] = []
    i = 0
    body = raw[1:-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@v_args(meta=True, inline=True)
class _Build(Transformer[Token, Any]):
    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def _loc(self, meta: Meta) -> a.Loc:
        return a.Loc(getattr(meta, "line", 1), getattr(meta, "column", 1), self.source)

    def _tok(self, tok: Token) -> a.Loc:
        return a.Loc(tok.line or 1, tok.column or 1, self.source)

    def _name(self, tok: Token) -> str:
        if SELECTOR_NAME.match(str(tok)):
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{str(tok)!r} reads as a selector (f b r l u d with a count), "
                              "not a name", self._tok(tok))
        if str(tok) in KEYWORDS:
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{str(tok)!r} is a reserved word, not a name", self._tok(tok))
        return str(tok)

    # -- statements
    def start(self, meta: Meta, *stmts: a.Stmt) -> a.Program:
        return a.Program(a.Loc(1, 1, self.source), tuple(stmts))

    def block(self, meta: Meta, *stmts: a.Stmt) -> a.Block:
        return a.Block(self._loc(meta), tuple(stmts))

    def empty(self, meta: Meta) -> a.EmptyStmt:
        return a.EmptyStmt(self._loc(meta))

    def command(self, meta: Meta, call: a.PredicateCall) -> a.Command:
        return a.Command(call.loc, call.name, call.args, call.named)

    def macro_decl(self, meta: Meta, name: Token, *rest: Any) -> a.MacroDecl:
        *params, body = rest
        return a.MacroDecl(self._loc(meta), self._name(name), tuple(p for p in params if p is not None), body)

    def param(self, meta: Meta, ptype: Token, name: Token) -> a.Param:
        if str(ptype) not in PARAM_TYPES:
            raise ScriptError(ScriptErrorCode.BAD_TYPE,
                              f"unknown parameter type {str(ptype)!r}; use int, bool or string", self._tok(ptype))
        return a.Param(self._loc(meta), self._name(name), str(ptype))  # type: ignore[arg-type]

    def if_stmt(self, meta: Meta, test: a.Expr, then: a.Block, other: a.Block | a.IfStmt | None) -> a.IfStmt:
        return a.IfStmt(self._loc(meta), test, then, other)

    def repeat_count(self, meta: Meta, count: a.Expr, body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(self._loc(meta), body, count=count)

    def repeat_limit(self, meta: Meta, var: Token, count: a.Expr, body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(self._loc(meta), body, count=count, var=self._name(var))

    def repeat_range(self, meta: Meta, var: Token, start: a.Expr, end: a.Expr, step: a.Expr | None,
                     body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(self._loc(meta), body, var=self._name(var), start=start, end=end, step=step)

    def while_stmt(self, meta: Meta, test: a.Expr, body: a.Block) -> a.WhileStmt:
        return a.WhileStmt(self._loc(meta), test, body)

    def assert_stmt(self, meta: Meta, test: a.Expr, message: a.Expr | None) -> a.AssertStmt:
        if message is not None and not isinstance(message, a.String):
            raise ScriptError(ScriptErrorCode.BAD_TYPE, "an assert message must be a string literal", message.loc)
        return a.AssertStmt(self._loc(meta), test, message.value if message is not None else None)

    def let_stmt(self, meta: Meta, name: Token, value: a.Expr) -> a.LetStmt:
        return a.LetStmt(self._loc(meta), self._name(name), value)

    def assign_stmt(self, meta: Meta, name: Token, value: a.Expr) -> a.AssignStmt:
        return a.AssignStmt(self._loc(meta), self._name(name), value)

    # -- calls
    def call(self, meta: Meta, name: Token, *args: Any) -> a.PredicateCall:
        positional: list[a.Expr] = []
        named: list[a.NamedArg] = []
        for arg in args:
            if arg is None:
                continue
            if isinstance(arg, a.NamedArg):
                if any(n.key == arg.key for n in named):
                    raise ScriptError(ScriptErrorCode.BAD_ARGS, f"named argument {arg.key!r} given twice", arg.loc)
                named.append(arg)
            elif named:
                raise ScriptError(ScriptErrorCode.BAD_ARGS, "a positional argument cannot follow a named one",
                                  arg.loc)
            else:
                positional.append(arg)
        return a.PredicateCall(self._tok(name), self._name(name), tuple(positional), tuple(named))

    def named_arg(self, meta: Meta, key: str, value: a.Expr) -> a.NamedArg:
        return a.NamedArg(self._loc(meta), key, value)

    def key(self, meta: Meta, tok: Token) -> str:
        text = str(tok)
        if tok.type == "SELECTOR" and (len(text) != 1 or not text.islower()):
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{text!r} is not an argument name", self._tok(tok))
        return text

    def predicate_call(self, meta: Meta, call: a.PredicateCall) -> a.Expr:
        if call.name == "waypoint":
            if len(call.args) != 1 or call.named:
                raise ScriptError(ScriptErrorCode.BAD_ARGS, 'waypoint takes one name: waypoint("home")', call.loc)
            return a.Waypoint(call.loc, call.args[0])
        if call.name == "block":
            if call.args or not call.named:
                raise ScriptError(ScriptErrorCode.BAD_ARGS, 'block(...) takes named arguments: block(id:"oak_log")',
                                  call.loc)
            return a.BlockQuery(call.loc, call.named)
        return call

    # -- expressions
    def _fold(self, items: tuple[Any, ...], kind: str) -> a.Expr:
        left: a.Expr = items[0]
        for i in range(1, len(items), 2 if kind != "logic" else 1):
            if kind == "logic":
                op, right = self._logic_op, items[i]
                left = a.LogicalExpr(left.loc, op, left, right)  # type: ignore[arg-type]
                continue
            op, right = str(items[i]), items[i + 1]
            if op == "+" and isinstance(left, a.Selector) and isinstance(right, a.Selector):
                left = a.Selector(left.loc, left.terms + right.terms)
            else:
                left = a.BinaryExpr(left.loc, op, left, right)  # type: ignore[arg-type]
        return left

    def or_expr(self, meta: Meta, *items: a.Expr) -> a.Expr:
        self._logic_op = "||"
        return self._fold(items, "logic")

    def and_expr(self, meta: Meta, *items: a.Expr) -> a.Expr:
        self._logic_op = "&&"
        return self._fold(items, "logic")

    def cmp_expr(self, meta: Meta, left: a.Expr, op: Token, right: a.Expr) -> a.Expr:
        return a.BinaryExpr(left.loc, str(op), left, right)  # type: ignore[arg-type]

    def sum(self, meta: Meta, *items: Any) -> a.Expr:
        return self._fold(items, "arith")

    def product(self, meta: Meta, *items: Any) -> a.Expr:
        return self._fold(items, "arith")

    def not_expr(self, meta: Meta, arg: a.Expr) -> a.Expr:
        return a.UnaryExpr(self._loc(meta), "!", arg)

    def neg_expr(self, meta: Meta, arg: a.Expr) -> a.Expr:
        if isinstance(arg, a.Number):
            return a.Number(self._loc(meta), -arg.value)
        return a.UnaryExpr(self._loc(meta), "-", arg)

    def number(self, meta: Meta, tok: Token) -> a.Number:
        return a.Number(self._tok(tok), int(str(tok)))

    def string(self, meta: Meta, tok: Token) -> a.String:
        return a.String(self._tok(tok), _unescape(str(tok)))

    def true(self, meta: Meta) -> a.Boolean:
        return a.Boolean(self._loc(meta), True)

    def false(self, meta: Meta) -> a.Boolean:
        return a.Boolean(self._loc(meta), False)

    def identifier(self, meta: Meta, tok: Token) -> a.Identifier:
        return a.Identifier(self._tok(tok), self._name(tok))

    def sel_term(self, meta: Meta, tok: Token) -> a.Selector:
        return a.Selector(self._tok(tok), (_term(tok, self._tok(tok), None),))

    def sel_expr(self, meta: Meta, tok: Token, count: a.Expr) -> a.Selector:
        text = str(tok)
        if len(text) != 1:
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{text!r}(...): an expression count takes a bare axis letter, "
                              "as in u(h)", self._tok(tok))
        return a.Selector(self._tok(tok), (a.SelTerm(self._tok(tok), text.lower(), count),))  # type: ignore[arg-type]


def _term(tok: Token, loc: a.Loc, count: a.Expr | None) -> a.SelTerm:
    text = str(tok)
    axis = text[0].lower()
    rest = text[1:]
    rise = 0
    if rest.endswith("^"):
        rise, rest = 1, rest[:-1]
    elif rest.endswith("_"):
        rise, rest = -1, rest[:-1]
    n = int(rest) if rest else 1
    return a.SelTerm(loc, axis, a.Number(loc, n), rise)  # type: ignore[arg-type]


def _nesting_error(text: str, source: str) -> ScriptError | None:
    """The first bracket deeper than MAX_NESTING (strings and comments skipped), else None."""
    depth = 0
    line, col = 1, 1
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            col += j - i
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            col += j - i
            i = j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            chunk = text[i:j]
            nl = chunk.count("\n")
            line, col = (line + nl, len(chunk) - chunk.rfind("\n")) if nl else (line, col + len(chunk))
            i = j
            continue
        elif ch in "({":
            depth += 1
            if depth > MAX_NESTING:
                return ScriptError(ScriptErrorCode.TOO_DEEP, f"nesting deeper than {MAX_NESTING} levels",
                                   a.Loc(line, col, source))
        elif ch in ")}":
            depth = max(0, depth - 1)
        if i < n and text[i] == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return None


def parse(text: str, source: str = "<script>") -> a.Program:
    """Parse CraftScript text; raise a located :class:`ScriptError` on any bad input."""
    if len(text) > MAX_SOURCE:
        raise ScriptError(ScriptErrorCode.SYNTAX, f"script is longer than {MAX_SOURCE} characters",
                          a.Loc(1, 1, source))
    deep = _nesting_error(text, source)
    if deep is not None:
        raise deep
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, source) from None
    try:
        program: a.Program = _Build(source).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, ScriptError):
            raise exc.orig_exc from None
        raise
    macros = {s.name: s for s in program.body if isinstance(s, a.MacroDecl)}
    return a.Program(program.loc, program.body, macros)


def _syntax_error(exc: UnexpectedInput, text: str, source: str) -> ScriptError:
    line = getattr(exc, "line", None) or 1
    column = getattr(exc, "column", None) or 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        expected = sorted(getattr(exc, "expected", []) or [])
        what = "unexpected end of script"
        if text.rstrip() and "/*" in text and text.rfind("/*") > text.rfind("*/"):
            idx = text.rfind("/*")
            line = text.count("\n", 0, idx) + 1
            column = idx - (text.rfind("\n", 0, idx) + 1) + 1
            return ScriptError(ScriptErrorCode.SYNTAX, "unterminated /* comment", a.Loc(line, column, source))
        return ScriptError(ScriptErrorCode.SYNTAX, f"{what}; expected {_expected(expected)}",
                           a.Loc(line, column, source))
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        ch = text[at] if 0 <= at < len(text) else "?"
        if text.startswith("/*", at):
            return ScriptError(ScriptErrorCode.SYNTAX, "unterminated /* comment", a.Loc(line, column, source))
        if ch == '"':
            return ScriptError(ScriptErrorCode.SYNTAX, "unterminated string", a.Loc(line, column, source))
        hint = " (names and commands are lowercase)" if ch.isupper() else ""
        return ScriptError(ScriptErrorCode.SYNTAX, f"unexpected character {ch!r}{hint}", a.Loc(line, column, source))
    if isinstance(exc, UnexpectedToken):
        expected = sorted(exc.expected)
        got = str(exc.token)
        if got == "/" and text.startswith("/*", exc.token.start_pos or 0):
            return ScriptError(ScriptErrorCode.SYNTAX, "unterminated /* comment", a.Loc(line, column, source))
        missing_semicolon = "SEMICOLON" in expected
        if missing_semicolon:
            return ScriptError(ScriptErrorCode.SYNTAX, f"missing ';' before {got!r}", a.Loc(line, column, source))
        return ScriptError(ScriptErrorCode.SYNTAX, f"unexpected {got!r}; expected {_expected(expected)}",
                           a.Loc(line, column, source))
    return ScriptError(ScriptErrorCode.SYNTAX, str(exc).splitlines()[0], a.Loc(line, column, source))


_NAMES = {"SEMICOLON": "';'", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
          "COLON": "':'", "IDENT": "a name", "INT": "a number", "STRING": "a string", "SELECTOR": "a selector",
          "EQUAL": "'='", "BANG": "'!'", "MINUS": "'-'"}


def _expected(names: list[str]) -> str:
    shown = sorted({_NAMES.get(n, n.lower()) for n in names})
    if len(shown) > 6:
        return "a statement or an expression"
    return ", ".join(shown) or "something else"
