"""The typed CraftScript AST: one frozen dataclass per node kind, each with its source location.

Node names follow the seed's grammar outline (section 12): Program, MacroDecl, Param, Block,
IfStmt, RepeatStmt, WhileStmt, AssertStmt, Command, NamedArg, LogicalExpr, UnaryExpr,
PredicateCall (a call inside an expression), Identifier, Selector, SelTerm, Waypoint,
BlockQuery, Number, String, Boolean, plus the section 3 additions the grammar outline omits:
LetStmt, AssignStmt, BinaryExpr (arithmetic and comparisons), EmptyStmt and the ranged repeat.
``loc`` is 1-based line and column of the node's first character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Loc:
    line: int
    column: int
    #: where the text came from: a file name, ``<script>``, or ``fn:NAME@vN`` for a stored function
    source: str = "<script>"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "column": self.column}
        if self.source != "<script>":
            out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True)
class Node:
    loc: Loc


# -- expressions -------------------------------------------------------------------------
#: the largest integer magnitude a script computes with (exact in a JSON double); the checker refuses larger
#: literals and the interpreter larger results
MAX_INT = 2**53


@dataclass(frozen=True, slots=True)
class Number(Node):
    value: int


@dataclass(frozen=True, slots=True)
class String(Node):
    value: str


@dataclass(frozen=True, slots=True)
class Boolean(Node):
    value: bool


@dataclass(frozen=True, slots=True)
class Identifier(Node):
    name: str


@dataclass(frozen=True, slots=True)
class SelTerm(Node):
    """One axis step: ``f2``, ``r-1``, ``u(h)``; ``rise`` is +1 for ``f1^`` and -1 for ``f1_``."""

    axis: Literal["f", "b", "r", "l", "u", "d"]
    count: Expr
    rise: int = 0


@dataclass(frozen=True, slots=True)
class Selector(Node):
    terms: tuple[SelTerm, ...]


@dataclass(frozen=True, slots=True)
class Waypoint(Node):
    name: Expr


@dataclass(frozen=True, slots=True)
class BlockQuery(Node):
    query: tuple[NamedArg, ...]


@dataclass(frozen=True, slots=True)
class UnaryExpr(Node):
    op: Literal["!", "-"]
    arg: Expr


@dataclass(frozen=True, slots=True)
class LogicalExpr(Node):
    op: Literal["&&", "||"]
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class BinaryExpr(Node):
    op: Literal["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">="]
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class NamedArg(Node):
    key: str
    value: Expr


@dataclass(frozen=True, slots=True)
class PredicateCall(Node):
    """A call used as a value: a predicate (``is_air(f1)``)."""

    name: str
    args: tuple[Expr, ...]
    named: tuple[NamedArg, ...]


Expr = Number | String | Boolean | Identifier | Selector | Waypoint | BlockQuery | UnaryExpr | LogicalExpr | \
    BinaryExpr | PredicateCall


# -- statements ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Command(Node):
    """A call statement: a built-in command, a macro, or a stored function."""

    name: str
    args: tuple[Expr, ...]
    named: tuple[NamedArg, ...]


@dataclass(frozen=True, slots=True)
class AssertStmt(Node):
    test: Expr
    message: str | None


@dataclass(frozen=True, slots=True)
class LetStmt(Node):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class AssignStmt(Node):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Block(Node):
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class IfStmt(Node):
    test: Expr
    consequent: Block
    alternate: Block | IfStmt | None


@dataclass(frozen=True, slots=True)
class RepeatStmt(Node):
    """``repeat(N)`` (var None, start None), ``repeat(i: N)`` (0..N-1) or ``repeat(i: A..B[:S])`` (inclusive)."""

    body: Block
    count: Expr | None = None
    var: str | None = None
    start: Expr | None = None
    end: Expr | None = None
    step: Expr | None = None


@dataclass(frozen=True, slots=True)
class WhileStmt(Node):
    test: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class EmptyStmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class Param(Node):
    name: str
    param_type: Literal["int", "bool", "string"]


@dataclass(frozen=True, slots=True)
class MacroDecl(Node):
    name: str
    params: tuple[Param, ...]
    body: Block


Stmt = Command | AssertStmt | LetStmt | AssignStmt | Block | IfStmt | RepeatStmt | WhileStmt | EmptyStmt | MacroDecl


@dataclass(frozen=True, slots=True)
class Program(Node):
    body: tuple[Stmt, ...]
    macros: dict[str, MacroDecl] = field(default_factory=dict, compare=False)
