"""Static checks run before anything moves (seed 004 section 14): unknown commands, macros and
predicates, argument counts and named arguments per command, macro and function call shapes,
undeclared variables (block scoping) and literal type mistakes. Every problem found is reported.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from craftbt.craftscript import ast as a
from craftbt.craftscript.commands import COMMANDS, HAZARD_NAMES, PREDICATES
from craftbt.craftscript.errors import ScriptError, ScriptErrorCode

FACE_NAMES = frozenset({"up", "down", "north", "south", "east", "west"})


def _suggest(name: str, candidates: Iterable[str]) -> str | None:
    pool = sorted(set(candidates))
    found = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if found:
        return found[0]
    # a name spelled out where the language abbreviates it (tolerance for tol), or the reverse: too far apart
    # for difflib, yet the one a user meant
    stems = [c for c in pool if min(len(c), len(name)) >= 3 and (name.startswith(c) or c.startswith(name))]
    return stems[0] if len(stems) == 1 else None


class Checker:
    def __init__(self, program: a.Program, *, core_macros: Mapping[str, a.MacroDecl] | None = None,
                 functions: Mapping[str, dict[str, Any]] | None = None,
                 bound: Iterable[str] = ()) -> None:
        self.program = program
        self.macros: dict[str, a.MacroDecl] = {**(core_macros or {}), **program.macros}
        self.functions = dict(functions or {})
        self.errors: list[ScriptError] = []
        self.scopes: list[set[str]] = [set(bound)]

    def check(self) -> list[ScriptError]:
        seen: dict[str, a.MacroDecl] = {}
        for stmt in self.program.body:
            if isinstance(stmt, a.MacroDecl):
                if stmt.name in seen:
                    self._err(ScriptErrorCode.REDECLARED, f"macro {stmt.name!r} is declared twice", stmt.loc)
                if stmt.name in COMMANDS:
                    self._err(ScriptErrorCode.REDECLARED, f"macro {stmt.name!r} would shadow a built-in command",
                              stmt.loc)
                seen[stmt.name] = stmt
                saved, self.scopes = self.scopes, [{p.name for p in stmt.params}]
                self._block(stmt.body.body, new_scope=False)
                self.scopes = saved
        self._block(self.program.body, new_scope=False)
        return sorted(self.errors, key=lambda e: (e.loc.line, e.loc.column) if e.loc else (0, 0))

    def _err(self, code: ScriptErrorCode, message: str, loc: a.Loc, suggestion: str | None = None) -> None:
        self.errors.append(ScriptError(code, message, loc, suggestion=suggestion))

    def _block(self, stmts: tuple[a.Stmt, ...], new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append(set())
        for s in stmts:
            self._stmt(s)
        if new_scope:
            self.scopes.pop()

    def _declared(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def _stmt(self, s: a.Stmt) -> None:
        if isinstance(s, a.MacroDecl | a.EmptyStmt):
            return
        if isinstance(s, a.Command):
            self._command(s)
        elif isinstance(s, a.LetStmt):
            self._expr(s.value)
            self.scopes[-1].add(s.name)
        elif isinstance(s, a.AssignStmt):
            self._expr(s.value)
            if not self._declared(s.name):
                self._err(ScriptErrorCode.UNDEFINED_VARIABLE, f"assignment to undeclared variable {s.name!r} "
                          "(declare it with let)", s.loc)
        elif isinstance(s, a.Block):
            self._block(s.body)
        elif isinstance(s, a.IfStmt):
            self._expr(s.test)
            self._block(s.consequent.body)
            if isinstance(s.alternate, a.Block):
                self._block(s.alternate.body)
            elif s.alternate is not None:
                self._stmt(s.alternate)
        elif isinstance(s, a.WhileStmt):
            self._expr(s.test)
            self._block(s.body.body)
        elif isinstance(s, a.RepeatStmt):
            for e in (s.count, s.start, s.end, s.step):
                if e is not None:
                    self._expr(e)
                    if isinstance(e, a.String | a.Boolean):
                        self._err(ScriptErrorCode.BAD_TYPE, "repeat bounds must be ints", e.loc)
            self.scopes.append({s.var} if s.var else set())
            self._block(s.body.body)
            self.scopes.pop()
        elif isinstance(s, a.AssertStmt):
            self._expr(s.test)

    def _command(self, c: a.Command) -> None:
        for e in c.args:
            self._expr(e)
        for n in c.named:
            if not (n.key == "face" and isinstance(n.value, a.Identifier) and n.value.name in FACE_NAMES
                    and not self._declared(n.value.name)):
                self._expr(n.value)
        if c.name in self.macros:
            m = self.macros[c.name]
            if c.named:
                self._err(ScriptErrorCode.BAD_ARGS, f"macro {m.name} takes positional arguments only", c.named[0].loc)
            if len(c.args) != len(m.params):
                want = ", ".join(f"{p.param_type} {p.name}" for p in m.params) or "none"
                self._err(ScriptErrorCode.BAD_ARGS, f"macro {m.name} takes {len(m.params)} argument(s) ({want}), "
                          f"got {len(c.args)}", c.loc)
            for p, e in zip(m.params, c.args, strict=False):
                lit = _literal_type(e)
                if lit is not None and lit != p.param_type:
                    self._err(ScriptErrorCode.BAD_TYPE, f"macro {m.name}: parameter {p.name} is {p.param_type}, "
                              f"got {lit}", e.loc)
            return
        sig = COMMANDS.get(c.name)
        if sig is None:
            fn = self.functions.get(c.name)
            if fn is not None:
                self._function_call(c, fn)
                return
            known = list(COMMANDS) + list(self.macros) + list(self.functions)
            self._err(ScriptErrorCode.UNKNOWN_COMMAND, f"unknown command {c.name!r}", c.loc, _suggest(c.name, known))
            return
        if sig.arity is not None and len(c.args) not in sig.arity:
            self._err(ScriptErrorCode.BAD_ARGS, f"{c.name} takes {_counts(sig.arity)} positional argument(s), got "
                      f"{len(c.args)}; usage: {sig.usage}", c.loc)
        for n in c.named:
            if n.key not in sig.named:
                allowed = ", ".join(sorted(sig.named)) or "none"
                self._err(ScriptErrorCode.BAD_ARGS, f"{c.name} has no named argument {n.key!r} (named: {allowed})",
                          n.loc, _suggest(n.key, sig.named))

    def _function_call(self, c: a.Command, fn: dict[str, Any]) -> None:
        if c.args:
            self._err(ScriptErrorCode.BAD_ARGS, f"function {c.name} takes named arguments only, as in "
                      f"{c.name}(name: value)", c.args[0].loc)
        specs = {s["name"]: s for s in fn.get("args", [])}
        for n in c.named:
            if n.key not in specs:
                self._err(ScriptErrorCode.BAD_ARGS, f"function {c.name} has no argument {n.key!r}", n.loc,
                          _suggest(n.key, specs))
        given = {n.key for n in c.named}
        for name, spec in specs.items():
            if name not in given and not spec.get("optional") and "default" not in spec:
                self._err(ScriptErrorCode.BAD_ARGS, f"function {c.name}: missing required argument {name!r}", c.loc)

    def _expr(self, e: a.Expr) -> None:
        if isinstance(e, a.Number) and abs(e.value) > a.MAX_INT:
            self._err(ScriptErrorCode.BAD_TYPE, f"integer literal out of range (beyond +/-{a.MAX_INT})", e.loc)
        elif isinstance(e, a.Identifier):
            if not self._declared(e.name):
                self._err(ScriptErrorCode.UNDEFINED_VARIABLE, f"undefined variable {e.name!r}", e.loc,
                          _suggest(e.name, set().union(*self.scopes)))
        elif isinstance(e, a.UnaryExpr):
            self._expr(e.arg)
        elif isinstance(e, a.LogicalExpr | a.BinaryExpr):
            self._expr(e.left)
            self._expr(e.right)
        elif isinstance(e, a.Selector):
            for t in e.terms:
                self._expr(t.count)
        elif isinstance(e, a.Waypoint):
            self._expr(e.name)
        elif isinstance(e, a.BlockQuery):
            for n in e.query:
                self._expr(n.value)
                if n.key not in ("id", "radius"):
                    self._err(ScriptErrorCode.BAD_ARGS, f"block(...) has no key {n.key!r} (keys: id, radius)", n.loc)
        elif isinstance(e, a.PredicateCall):
            for x in e.args:
                self._expr(x)
            for n in e.named:
                self._expr(n.value)
            sig = PREDICATES.get(e.name)
            if sig is None:
                hint = " (commands cannot be used as values)" if e.name in COMMANDS else ""
                self._err(ScriptErrorCode.UNKNOWN_PREDICATE, f"unknown predicate {e.name!r}{hint}", e.loc,
                          _suggest(e.name, PREDICATES))
                return
            if e.named:
                self._err(ScriptErrorCode.BAD_ARGS, f"{e.name} takes no named arguments", e.named[0].loc)
            if sig.arity is not None and len(e.args) not in sig.arity:
                self._err(ScriptErrorCode.BAD_ARGS, f"{e.name} takes {_counts(sig.arity)} argument(s), got "
                          f"{len(e.args)}; usage: {sig.usage}", e.loc)
            if e.name == "is_hazard" and e.args and isinstance(e.args[0], a.String) \
                    and e.args[0].value not in HAZARD_NAMES:
                self._err(ScriptErrorCode.BAD_ARGS, f"unknown hazard {e.args[0].value!r}; known: "
                          f"{', '.join(HAZARD_NAMES)}", e.args[0].loc, _suggest(e.args[0].value, HAZARD_NAMES))


def _literal_type(e: a.Expr) -> str | None:
    if isinstance(e, a.Boolean):
        return "bool"
    if isinstance(e, a.Number):
        return "int"
    if isinstance(e, a.String):
        return "string"
    return None


def _counts(arity: frozenset[int]) -> str:
    nums = sorted(arity)
    return " or ".join(str(n) for n in nums)
