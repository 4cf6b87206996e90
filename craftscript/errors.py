"""CraftScript's error codes and the located error raised by the parser, the checker and the interpreter.

A compile error (parse or static check) carries a :class:`~craftbt.craftscript.ast.Loc` and renders as
``FILE:LINE:COL: code: message``. A runtime failure is section 7's shape (see ``result.py``).
"""

from __future__ import annotations

from enum import StrEnum

from craftbt.craftscript.ast import Loc


class ScriptErrorCode(StrEnum):
    """Stable codes: compile-time first, then the runtime codes of seed 004 section 7."""

    SYNTAX = "syntax_error"
    TOO_DEEP = "too_deep"
    TOO_LONG = "too_long"
    UNKNOWN_COMMAND = "unknown_command"
    UNKNOWN_PREDICATE = "unknown_predicate"
    BAD_ARGS = "bad_args"
    BAD_TYPE = "type_error"
    UNDEFINED_VARIABLE = "undefined_variable"
    REDECLARED = "redeclared"
    DIVISION_BY_ZERO = "division_by_zero"
    # runtime (section 7)
    MOVE_BLOCKED = "move_blocked"
    TIMEOUT = "timeout"
    NO_PATH = "no_path"
    INVARIANT_VIOLATION = "invariant_violation"
    NO_TARGET = "no_target"
    ASSERT_FAILED = "assert_failed"
    OP_LIMIT = "op_limit"
    DEPTH_LIMIT = "depth_limit"
    UNKNOWN_WAYPOINT = "unknown_waypoint"
    UNKNOWN_FUNCTION = "unknown_function"
    COMMAND_FAILED = "command_failed"
    CANCELLED = "cancelled"


class ScriptError(Exception):
    """A located CraftScript error (compile or runtime)."""

    def __init__(self, code: ScriptErrorCode | str, message: str, loc: Loc | None = None,
                 *, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.loc = loc
        self.suggestion = suggestion

    def render(self, source: str | None = None) -> str:
        where = source or (self.loc.source if self.loc else "<script>")
        pos = f"{where}:{self.loc.line}:{self.loc.column}" if self.loc else where
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        return f"{pos}: {self.code}: {self.message}{hint}"


class CompileErrors(Exception):
    """Every static problem found in one script, in source order."""

    def __init__(self, errors: list[ScriptError]) -> None:
        super().__init__("; ".join(e.message for e in errors))
        self.errors = errors
