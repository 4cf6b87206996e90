"""Text to typed AST: the lark grammar (``grammar.lark``) and a transformer that builds ``ast`` nodes.

Any input gets either a :class:`~craftbt.craftscript.ast.Program` or a located :class:`ScriptError`:
lark's LALR parser runs in linear time over tokens from one regular expression (``_Lexer``) and calls the
AST builder as it reduces (no parse tree, no ``propagate_positions``: each node takes its line and column
from its first token). Bracket nesting (in the lexer) and operator nesting (in the builder) are bounded,
so whatever walks the AST recursively later meets a located ``too_deep`` error, not a ``RecursionError``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, LexerState, PatternStr

from craftbt.craftscript import ast as a
from craftbt.craftscript.errors import ScriptError, ScriptErrorCode

GRAMMAR = Path(__file__).with_name("grammar.lark")
#: deepest bracket nesting accepted (parentheses, braces); deeper input is ``too_deep``
MAX_NESTING = 64
#: deepest operator nesting accepted (``!!!x``, ``1 + 1 + ... + 1``); the AST is walked recursively
MAX_EXPR_DEPTH = 100
#: largest script accepted, in characters
MAX_SOURCE = 1_000_000
PARAM_TYPES = ("int", "bool", "string")
#: reserved words (seed section 1, plus ``let``): never a variable, macro, parameter or command name
KEYWORDS = frozenset({"macro", "if", "else", "while", "repeat", "assert", "true", "false", "let"})
SELECTOR_NAME = re.compile(r"^[fbrlud][0-9]*_?$")
ESCAPES = {'"': '"', "n": "\n", "t": "\t", "\\": "\\"}
_LOCK = threading.Lock()


class _Lexer(Lexer):
    """One regular expression built from the grammar's own terminals, tried once per token.

    lark's lexers keep a line counter and a callback table per token; this loop only counts newlines
    inside the tokens that can hold one. Keywords lex as names and are retyped, as lark's own lexer
    does; a character no terminal matches is lark's ``UnexpectedCharacters``, located.
    """

    __future_interface__ = 2  # lex(lexer_state, parser_state), the text as lark's TextSlice

    def __init__(self, lexer_conf: Any) -> None:
        ignore = set(lexer_conf.ignore)
        names: dict[str, str] = {}
        keywords: dict[str, str] = {}
        word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
        kept = []
        for t in lexer_conf.terminals:
            if isinstance(t.pattern, PatternStr) and word.match(t.pattern.value):
                keywords[t.pattern.value] = t.name  # retyped from IDENT after the match
                continue
            kept.append(t)
        # ignored tokens first (a comment's "//" is not a division), then lark's own order: priority,
        # then the longest possible match ("==" before "=", "!=" before "!")
        kept.sort(key=lambda t: (t.name not in ignore, -t.priority, -t.pattern.max_width, t.name))
        groups = []
        for i, t in enumerate(kept):
            names[f"g{i}"] = t.name
            groups.append(f"(?P<g{i}>{t.pattern.to_regexp()})")
        # blanks within a line are skipped by the same match as the token after them (half the matches of a
        # typical script are blanks); a newline is matched as an ignored token, to count lines
        self.regex = re.compile(r"[ \t\f\r]*(?:" + "|".join(groups) + ")")
        self.names = names
        self.ignore = frozenset(ignore)
        self.keywords = keywords

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        text: str = lexer_state.text.text
        match = self.regex.match
        names, ignore, keywords = self.names, self.ignore, self.keywords
        pos, line, line_start, n = 0, 1, 0, len(text)
        depth = 0
        while pos < n:
            m = match(text, pos)
            if m is None:
                while pos < n and text[pos] in " \t\f\r":  # locate the bad character, not the blanks before it
                    pos += 1
                if pos >= n:
                    break
                raise UnexpectedCharacters(text, pos, line, pos - line_start + 1)  # type: ignore[no-untyped-call]
            group: str = m.lastgroup  # type: ignore[assignment]  # every alternative is a named group
            kind = names[group]
            pos, end = m.start(group), m.end()
            if kind not in ignore:
                value = m.group(group)
                if kind == "IDENT":
                    kind = keywords.get(value, kind)
                elif kind in ("LPAR", "LBRACE"):
                    depth += 1
                    if depth > MAX_NESTING:
                        raise ScriptError(ScriptErrorCode.TOO_DEEP, f"nesting deeper than {MAX_NESTING} levels",
                                          a.Loc(line, pos - line_start + 1, _CURRENT.source))
                elif kind in ("RPAR", "RBRACE"):
                    depth = max(0, depth - 1)
                yield Token(kind, value, pos, line, pos - line_start + 1)
            else:
                nl = text.count("\n", pos, end)
                if nl:
                    line += nl
                    line_start = text.rfind("\n", pos, end) + 1
            pos = end


class _Parsing:
    """What the AST builder needs to know about the parse in progress (one at a time, under _LOCK)."""

    source = "<script>"
    #: operator nesting of the BinaryExpr / UnaryExpr / LogicalExpr nodes built so far, by id
    depth: dict[int, int] = {}


_CURRENT = _Parsing()


@cache
def _parser() -> Lark:
    """Built once per process: LALR over ``_Lexer``, building the AST while it parses (no parse tree)."""
    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer=_Lexer, maybe_placeholders=True,
                transformer=_Build())


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


def _loc(tok: Token) -> a.Loc:
    return a.Loc(tok.line or 1, tok.column or 1, _CURRENT.source)


def _name(tok: Token) -> str:
    if SELECTOR_NAME.match(str(tok)):
        raise ScriptError(ScriptErrorCode.SYNTAX, f"{str(tok)!r} reads as a selector (f b r l u d with a count), "
                          "not a name", _loc(tok))
    if str(tok) in KEYWORDS:
        raise ScriptError(ScriptErrorCode.SYNTAX, f"{str(tok)!r} is a reserved word, not a name", _loc(tok))
    return str(tok)


@v_args(inline=True)
class _Build(Transformer[Token, Any]):
    """Each rule's node, located by its first token (a keyword, a name, a literal or a bracket)."""

    # -- statements
    def start(self, *stmts: a.Stmt) -> a.Program:
        return a.Program(a.Loc(1, 1, _CURRENT.source), tuple(stmts))

    def block(self, brace: Token, *stmts: a.Stmt) -> a.Block:
        return a.Block(_loc(brace), tuple(stmts))

    def empty(self, semi: Token) -> a.EmptyStmt:
        return a.EmptyStmt(_loc(semi))

    def command(self, call: a.PredicateCall) -> a.Command:
        return a.Command(call.loc, call.name, call.args, call.named)

    def macro_decl(self, kw: Token, name: Token, *rest: Any) -> a.MacroDecl:
        *params, body = rest
        return a.MacroDecl(_loc(kw), _name(name), tuple(p for p in params if p is not None), body)

    def param(self, ptype: Token, name: Token) -> a.Param:
        if str(ptype) not in PARAM_TYPES:
            raise ScriptError(ScriptErrorCode.BAD_TYPE,
                              f"unknown parameter type {str(ptype)!r}; use int, bool or string", _loc(ptype))
        return a.Param(_loc(ptype), _name(name), str(ptype))  # type: ignore[arg-type]

    def if_stmt(self, kw: Token, test: a.Expr, then: a.Block, other: a.Block | a.IfStmt | None) -> a.IfStmt:
        return a.IfStmt(_loc(kw), test, then, other)

    def repeat_count(self, kw: Token, count: a.Expr, body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(_loc(kw), body, count=count)

    def repeat_limit(self, kw: Token, var: Token, count: a.Expr, body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(_loc(kw), body, count=count, var=_name(var))

    def repeat_range(self, kw: Token, var: Token, start: a.Expr, end: a.Expr, step: a.Expr | None,
                     body: a.Block) -> a.RepeatStmt:
        return a.RepeatStmt(_loc(kw), body, var=_name(var), start=start, end=end, step=step)

    def while_stmt(self, kw: Token, test: a.Expr, body: a.Block) -> a.WhileStmt:
        return a.WhileStmt(_loc(kw), test, body)

    def assert_stmt(self, kw: Token, test: a.Expr, message: a.Expr | None) -> a.AssertStmt:
        if message is not None and not isinstance(message, a.String):
            raise ScriptError(ScriptErrorCode.BAD_TYPE, "an assert message must be a string literal", message.loc)
        return a.AssertStmt(_loc(kw), test, message.value if message is not None else None)

    def let_stmt(self, kw: Token, name: Token, value: a.Expr) -> a.LetStmt:
        return a.LetStmt(_loc(kw), _name(name), value)

    def assign_stmt(self, name: Token, value: a.Expr) -> a.AssignStmt:
        return a.AssignStmt(_loc(name), _name(name), value)

    # -- calls
    def call(self, name: Token, *args: Any) -> a.PredicateCall:
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
        return a.PredicateCall(_loc(name), _name(name), tuple(positional), tuple(named))

    def named_arg(self, key: Token, value: a.Expr) -> a.NamedArg:
        return a.NamedArg(_loc(key), str(key), value)

    def key(self, tok: Token) -> Token:
        text = str(tok)
        if tok.type == "SELECTOR" and (len(text) != 1 or not text.islower()):
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{text!r} is not an argument name", _loc(tok))
        return tok

    def predicate_call(self, call: a.PredicateCall) -> a.Expr:
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
    def expr(self, *items: Any) -> a.Expr:
        return _climb(items)

    def not_expr(self, bang: Token, arg: a.Expr) -> a.Expr:
        return _deep(a.UnaryExpr(_loc(bang), "!", arg), arg)

    def neg_expr(self, sign: Token, arg: a.Expr) -> a.Expr:
        if str(sign) != "-":
            raise ScriptError(ScriptErrorCode.SYNTAX, f"unexpected {str(sign)!r}; expected a statement or an "
                              "expression", _loc(sign))
        if isinstance(arg, a.Number):
            return a.Number(_loc(sign), -arg.value)
        return _deep(a.UnaryExpr(_loc(sign), "-", arg), arg)

    def number(self, tok: Token) -> a.Number:
        return a.Number(_loc(tok), int(str(tok)))

    def string(self, tok: Token) -> a.String:
        return a.String(_loc(tok), _unescape(str(tok)))

    def true(self, tok: Token) -> a.Boolean:
        return a.Boolean(_loc(tok), True)

    def false(self, tok: Token) -> a.Boolean:
        return a.Boolean(_loc(tok), False)

    def identifier(self, tok: Token) -> a.Identifier:
        return a.Identifier(_loc(tok), _name(tok))

    def sel_term(self, tok: Token) -> a.Selector:
        return a.Selector(_loc(tok), (_term(tok, _loc(tok), None),))

    def sel_expr(self, tok: Token, count: a.Expr) -> a.Selector:
        text = str(tok)
        if len(text) != 1:
            raise ScriptError(ScriptErrorCode.SYNTAX, f"{text!r}(...): an expression count takes a bare axis letter, "
                              "as in u(h)", _loc(tok))
        return a.Selector(_loc(tok), (a.SelTerm(_loc(tok), text.lower(), count),))  # type: ignore[arg-type]


def _deep(node: a.Expr, *children: a.Expr) -> a.Expr:
    """Record ``node``'s operator nesting; a located ``too_deep`` error past MAX_EXPR_DEPTH."""
    depth = _CURRENT.depth
    d = 1 + max(depth.get(id(c), 1) for c in children)
    if d > MAX_EXPR_DEPTH:
        raise ScriptError(ScriptErrorCode.TOO_DEEP, f"expression nested deeper than {MAX_EXPR_DEPTH} operators",
                          node.loc)
    depth[id(node)] = d
    return node


#: binding strength of each binary operator (higher binds tighter); all are left-associative
PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "+": 4, "-": 4, "*": 5, "/": 5,
              "%": 5}
_COMPARISON = 3


def _climb(items: tuple[Any, ...]) -> a.Expr:
    """Operands and operator tokens, alternating, to one expression tree (operator precedence, iteratively)."""
    operands: list[a.Expr] = [items[0]]
    ops: list[Token] = []
    for i in range(1, len(items), 2):
        op = items[i]
        strength = PRECEDENCE[str(op)]
        while ops and PRECEDENCE[str(ops[-1])] >= strength:
            if strength == _COMPARISON and PRECEDENCE[str(ops[-1])] == _COMPARISON:
                raise ScriptError(ScriptErrorCode.SYNTAX, f"comparisons do not chain: {str(ops[-1])!r} then "
                                  f"{str(op)!r}; join them with &&", _loc(op))
            _reduce(operands, ops)
        ops.append(op)
        operands.append(items[i + 1])
    while ops:
        _reduce(operands, ops)
    return operands[0]


def _reduce(operands: list[a.Expr], ops: list[Token]) -> None:
    op = str(ops.pop())
    right = operands.pop()
    left = operands.pop()
    node: a.Expr
    if op in ("||", "&&"):
        node = _deep(a.LogicalExpr(left.loc, op, left, right), left, right)  # type: ignore[arg-type]
    elif op == "+" and isinstance(left, a.Selector) and isinstance(right, a.Selector):
        node = a.Selector(left.loc, left.terms + right.terms)  # f2+u1: one position, not a sum
    else:
        node = _deep(a.BinaryExpr(left.loc, op, left, right), left, right)  # type: ignore[arg-type]
    operands.append(node)


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


def parse(text: str, source: str = "<script>") -> a.Program:
    """Parse CraftScript text; raise a located :class:`ScriptError` on any bad input."""
    if len(text) > MAX_SOURCE:
        raise ScriptError(ScriptErrorCode.SYNTAX, f"script is longer than {MAX_SOURCE} characters",
                          a.Loc(1, 1, source))
    parser = _parser()
    with _LOCK:  # the AST builder reads the source name from _CURRENT while lark calls it
        _CURRENT.source = source
        _CURRENT.depth = {}
        try:
            program: a.Program = parser.parse(text)  # type: ignore[assignment]  # the builder's result
        except UnexpectedInput as exc:
            raise _syntax_error(exc, text, source) from None
        finally:
            _CURRENT.depth = {}
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
        open_at = _unclosed(text)
        if open_at is not None:  # the usual cause: a block or a call left open far above the end
            bracket, b_line, b_column = open_at
            closer = "}" if bracket == "{" else ")"
            return ScriptError(ScriptErrorCode.SYNTAX, f"this {bracket!r} is never closed: the script ends before "
                               f"its {closer!r}", a.Loc(b_line, b_column, source))
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
        if exc.token.type == "SELECTOR" and ("IDENT" in expected or "EQUAL" in expected):
            # a name was due (a parameter, a variable): f b r l u d with a count always lex as a selector
            return ScriptError(ScriptErrorCode.SYNTAX, f"{got!r} reads as a selector (f b r l u d with a count), "
                               "not a name", a.Loc(line, column, source))
        missing_semicolon = "SEMICOLON" in expected
        if missing_semicolon:
            return ScriptError(ScriptErrorCode.SYNTAX, f"missing ';' before {got!r}", a.Loc(line, column, source))
        return ScriptError(ScriptErrorCode.SYNTAX, f"unexpected {got!r}; expected {_expected(expected)}",
                           a.Loc(line, column, source))
    return ScriptError(ScriptErrorCode.SYNTAX, str(exc).splitlines()[0], a.Loc(line, column, source))


def _unclosed(text: str) -> tuple[str, int, int] | None:
    """The innermost ``(`` or ``{`` still open at the end of ``text`` and its line and column, or None.

    Strings and comments are skipped as the lexer skips them; a stray closer pops what it can.
    """
    stack: list[tuple[str, int, int]] = []
    line, line_start, i, n = 1, 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, line_start = line + 1, i + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
            if i < n and text[i] == "\n":  # an unterminated string ends at its line (the lexer refuses it anyway)
                continue
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            nl = text.count("\n", i, end)
            if nl:
                line, line_start = line + nl, text.rfind("\n", i, end) + 1
            i = end
            continue
        elif ch in "({":
            stack.append((ch, line, i - line_start + 1))
        elif ch in ")}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


_NAMES = {"BINOP": "an operator", "MACRO": "'macro'", "IF": "'if'", "REPEAT": "'repeat'", "WHILE": "'while'",
          "ASSERT": "'assert'", "LET": "'let'", "TRUE": "'true'", "FALSE": "'false'", "ELSE": "'else'",
          "SEMICOLON": "';'", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
          "COLON": "':'", "IDENT": "a name", "INT": "a number", "STRING": "a string", "SELECTOR": "a selector",
          "EQUAL": "'='", "BANG": "'!'", "MINUS": "'-'"}


def _expected(names: list[str]) -> str:
    shown = sorted({_NAMES.get(n, n.lower()) for n in names})
    if len(shown) > 6:
        return "a statement or an expression"
    return ", ".join(shown) or "something else"
