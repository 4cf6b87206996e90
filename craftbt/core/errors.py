"""The project's one error type: structured, with a code, a location and a suggestion.

Everything a user can get wrong (a tree file, a CLI argument, a scenario, an
unknown capability) surfaces as a :class:`CraftbtError`; the CLI prints it
without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    UNKNOWN_CAPABILITY = "unknown_capability"
    UNKNOWN_VERSION = "unknown_version"
    DUPLICATE_CAPABILITY = "duplicate_capability"
    UNKNOWN_CHECK = "unknown_check"
    INVALID_ARGS = "invalid_args"
    PARSE_ERROR = "parse_error"
    SCHEMA_ERROR = "schema_error"
    UNKNOWN_NODE_KIND = "unknown_node_kind"
    SUBTREE_NOT_FOUND = "subtree_not_found"
    SUBTREE_CYCLE = "subtree_cycle"
    SUBTREE_OUTSIDE_ROOTS = "subtree_outside_roots"
    UNKNOWN_BLACKBOARD_KEY = "unknown_blackboard_key"
    CONFLICTING_WRITERS = "conflicting_writers"
    BAD_DECORATOR = "bad_decorator"
    FILE_NOT_FOUND = "file_not_found"
    INVALID_SCENARIO = "invalid_scenario"
    INVALID_ARGUMENT = "invalid_argument"
    CONVERSION_ERROR = "conversion_error"
    PLUGIN_ERROR = "plugin_error"
    # faults of the environment (exit 1, never "a craftbt bug"): craftbt.core.sqlite, the bodies
    STORAGE_CORRUPT = "storage_corrupt"
    STORAGE_READ_ONLY = "storage_read_only"
    DISK_FULL = "disk_full"
    STORAGE_UNAVAILABLE = "storage_unavailable"
    STORAGE_BUSY = "storage_busy"
    SERVER_UNREACHABLE = "server_unreachable"
    BODY_DISCONNECTED = "body_disconnected"
    #: a file that is not a readable regular UTF-8 file (craftbt.core.inputs)
    INPUT_ERROR = "input_error"
    #: an output path that cannot or must not be written (craftbt.core.outputs)
    OUTPUT_ERROR = "output_error"
    #: the environment is broken: a corrupt database or state file under CRAFTBT_HOME, a body that cannot connect
    ENVIRONMENT_ERROR = "environment_error"
    #: a size, volume or count beyond what craftbt will take on
    LIMIT_EXCEEDED = "limit_exceeded"
    #: an optional part of craftbt whose packages are not installed (``pip install 'craftbt[serve]'``)
    MISSING_EXTRA = "missing_extra"


@dataclass
class Location:
    """Where an error was found: file, 1-based line and column, path in the document."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str = ""

    def __str__(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


@dataclass
class Problem:
    """One finding. Several can be collected before raising."""

    code: ErrorCode
    message: str
    location: Location = field(default_factory=Location)
    expected: str | None = None
    suggestion: str | None = None

    def render(self) -> str:
        text = f"{self.location}: {self.code.value}: {self.message}"
        if self.location.path:
            text += f" (at {self.location.path})"
        if self.expected:
            text += f"; expected {self.expected}"
        if self.suggestion:
            text += f"; did you mean {self.suggestion!r}?"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "message": self.message,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "path": self.location.path,
            "expected": self.expected,
            "suggestion": self.suggestion,
        }


class CraftbtError(Exception):
    """One or more problems. ``str()`` renders every problem on its own line."""

    def __init__(self, problems: list[Problem] | Problem) -> None:
        self.problems = problems if isinstance(problems, list) else [problems]
        super().__init__("\n".join(p.render() for p in self.problems))

    @property
    def code(self) -> ErrorCode:
        return self.problems[0].code

    @classmethod
    def single(
        cls,
        code: ErrorCode,
        message: str,
        *,
        location: Location | None = None,
        expected: str | None = None,
        suggestion: str | None = None,
    ) -> CraftbtError:
        return cls(Problem(code, message, location or Location(), expected, suggestion))
