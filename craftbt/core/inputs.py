"""The one input boundary: every file craftbt reads on a user's behalf comes through here.

A file is read only when it is a regular file (a FIFO would block forever, ``/dev/zero`` never
ends), no larger than a limit, and UTF-8 (a bad byte is reported with its line and column).
YAML is checked for nesting depth *before* it is composed (libyaml's composer recurses: a
100,000-deep ``[[[...`` crashes the interpreter, 600 deep overflows the pure-Python one), for
duplicate keys (YAML keeps the last silently) and for alias bombs (a value count limit). JSON gets
the same depth, duplicate-key and finite-number rules. Every ``OSError`` becomes a
:class:`~craftbt.core.errors.CraftbtError` naming the file and the reason.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from craftbt.core.errors import CraftbtError, ErrorCode, Location

#: Input files larger than this are refused unread (trees, scenarios and templates are a few KiB).
MAX_BYTES = 4 * 1024 * 1024
#: Mappings and lists nested deeper than this are refused before anything recursive sees them.
MAX_DEPTH = 100
#: A document that expands (through aliases) to more values than this is refused.
MAX_VALUES = 200_000

_MERGE_TAG = "tag:yaml.org,2002:merge"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_WHY = {
    errno.ENOENT: "no such file",
    errno.ENOTDIR: "a parent of it is not a directory",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "too many symbolic links",
    errno.EISDIR: "it is a directory",
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the device",
    errno.EEXIST: "something that is not a directory is in the way",
}


def os_reason(err: OSError) -> str:
    """A short human reason for an ``OSError`` (``no such file``, ``permission denied`` ...)."""
    if err.errno in _WHY:
        return _WHY[err.errno]
    return err.strerror or type(err).__name__


def input_error(
    file: str | Path | None,
    message: str,
    *,
    code: ErrorCode = ErrorCode.INPUT_ERROR,
    line: int | None = None,
    column: int | None = None,
    expected: str | None = None,
) -> CraftbtError:
    return CraftbtError.single(
        code, message, location=Location(None if file is None else str(file), line, column), expected=expected
    )


def os_error(path: str | Path, err: OSError, *, what: str = "file", writing: bool = False) -> CraftbtError:
    """An ``OSError`` on ``path`` as a located error (``file_not_found`` when it does not exist)."""
    code = ErrorCode.FILE_NOT_FOUND if err.errno == errno.ENOENT and not writing else (
        ErrorCode.OUTPUT_ERROR if writing else ErrorCode.INPUT_ERROR)
    verb = "write" if writing else "read"
    return input_error(path, f"cannot {verb} {what} {str(path)!r}: {os_reason(err)}", code=code)


def is_file(path: str | Path) -> bool:
    """Whether something that is not a directory is at ``path`` (a FIFO or device counts: the reader
    then refuses it by name); a path that cannot even be looked at (too long, a NUL) is not."""
    try:
        return os.path.exists(path) and not os.path.isdir(path)
    except (OSError, ValueError):
        return False


def is_dir(path: str | Path) -> bool:
    """Whether ``path`` is a directory; a path that cannot even be looked at (too long, a NUL) is not."""
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def read_bytes(path: str | Path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; anything else is a located error."""
    name = str(path)
    try:
        st = os.stat(name)
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
        if isinstance(err, OSError):
            raise os_error(name, err, what=what) from None
        raise input_error(name, f"cannot read {what}: the path contains a NUL byte") from None
    if not stat.S_ISREG(st.st_mode):
        raise input_error(name, f"cannot read {what} {name!r}: it is {_kind(st.st_mode)}",
                          expected="a regular file")
    if st.st_size > max_bytes:
        raise input_error(name, f"{what} {name!r} is {st.st_size} bytes, more than the {max_bytes} allowed",
                          code=ErrorCode.LIMIT_EXCEEDED)
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening must not block
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise os_error(name, err, what=what) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise input_error(name, f"cannot read {what} {name!r}: it is not a regular file",
                              expected="a regular file")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise input_error(name, f"{what} {name!r} is more than the {max_bytes} bytes allowed",
                                  code=ErrorCode.LIMIT_EXCEEDED)
    except OSError as err:
        raise os_error(name, err, what=what) from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode(data: bytes, file: str | Path | None = None, *, what: str = "file") -> str:
    """UTF-8 text (a BOM is dropped); a bad byte is reported with its line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        column = err.start - (before.rfind(b"\n") + 1) + 1
        raise input_error(file, f"{what} is not UTF-8 text: byte 0x{data[err.start]:02x} cannot be decoded",
                          line=line, column=column, expected="UTF-8 text") from None
    return text.removeprefix("\ufeff")


def read_text(path: str | Path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> str:
    """:func:`read_bytes` then :func:`decode`."""
    return decode(read_bytes(path, what=what, max_bytes=max_bytes), str(path), what=what)


# -- YAML -------------------------------------------------------------------------------------------
def _parse_error(file: str | None, message: str, mark: Any = None) -> CraftbtError:
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    return input_error(file, message, code=ErrorCode.PARSE_ERROR, line=line, column=col)


def check_yaml_depth(text: str, file: str | None = None, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse nesting deeper than ``max_depth`` using the flat event stream (nothing recursive runs)."""
    loader = _Loader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise _parse_error(file, f"nested deeper than {max_depth} levels", event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # a syntax error: the composer meets it at the same place and reports it in the caller's words
    finally:
        loader.dispose()


def _yaml_error(file: str | None, err: yaml.YAMLError) -> CraftbtError:
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        return _parse_error(file, f"not valid YAML: {err.problem or err.context or 'unreadable'}", mark)
    first = str(err).splitlines()[0] if str(err) else "unreadable"
    return _parse_error(file, f"not valid YAML: {first}")


def _check_nodes(root: yaml.Node, file: str | None) -> None:
    """Duplicate keys and the expanded value count, walked iteratively (aliases are revisited)."""
    budget = MAX_VALUES
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        budget -= 1
        if budget < 0:
            raise _parse_error(file, f"the document expands to more than {MAX_VALUES} values (aliases?)")
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                    if key_node.value in seen:
                        raise CraftbtError.single(
                            ErrorCode.PARSE_ERROR, f"duplicate key {key_node.value!r}",
                            location=Location(file, key_node.start_mark.line + 1, key_node.start_mark.column + 1),
                            expected="each key once per mapping")
                    seen.add(key_node.value)
                stack.append(key_node)
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif node.tag == _FLOAT_TAG and not _finite(node.value):
            raise CraftbtError.single(
                ErrorCode.PARSE_ERROR, f"non-finite number {node.value!r}",
                location=Location(file, node.start_mark.line + 1, node.start_mark.column + 1),
                expected="a finite number")


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text.replace("_", "")))
    except ValueError:  # .nan, .inf and their spellings
        return False


def load_yaml(text: str, file: str | Path | None = None, *, max_depth: int = MAX_DEPTH) -> tuple[Any, Any]:
    """(node tree for :func:`craftbt.core.yamlpos.line_of`, plain data); refuses what this module refuses.

    An empty document is ``(None, None)``. Floats that are not finite are refused.
    """
    name = None if file is None else str(file)
    check_yaml_depth(text, name, max_depth=max_depth)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_nodes(node, name)
        data = loader.construct_document(node)
    except CraftbtError:
        raise
    except yaml.YAMLError as err:
        raise _yaml_error(name, err) from None
    except (RecursionError, ValueError, TypeError, OverflowError) as err:  # the constructor on hostile input
        raise _parse_error(name, f"not valid YAML: {type(err).__name__}: {err}") from None
    finally:
        loader.dispose()
    _check_finite(data, name)
    return node, data


def _check_finite(data: Any, file: str | None) -> None:
    stack = [data]
    seen: set[int] = set()
    while stack:
        value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise _parse_error(file, f"non-finite number {value!r}; expected a finite number")
        if isinstance(value, dict | list) and id(value) not in seen:
            seen.add(id(value))
            stack.extend(value.values() if isinstance(value, dict) else value)


# -- JSON -------------------------------------------------------------------------------------------
class _Duplicate(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def load_json(text: str, file: str | Path | None = None, *, max_depth: int = MAX_DEPTH) -> Any:
    """JSON with the YAML rules: bounded nesting, no duplicate keys, no NaN/Infinity."""
    name = None if file is None else str(file)
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant,
                          parse_float=_finite_float)
    except json.JSONDecodeError as err:
        raise input_error(name, f"not valid JSON: {err.msg}", code=ErrorCode.PARSE_ERROR, line=err.lineno,
                          column=err.colno) from None
    except _Duplicate as dup:
        raise input_error(name, f"not valid JSON: duplicate key {dup.args[0]!r}", code=ErrorCode.PARSE_ERROR) from None
    except RecursionError:  # the C decoder guards its own recursion
        raise _parse_error(name, f"nested deeper than {max_depth} levels") from None
    except ValueError as err:
        raise input_error(name, f"not valid JSON: {err}", code=ErrorCode.PARSE_ERROR) from None
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= max_depth:
                raise _parse_error(name, f"nested deeper than {max_depth} levels")
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return data


def read_yaml(path: str | Path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> tuple[Any, Any]:
    """:func:`read_text` then :func:`load_yaml`."""
    return load_yaml(read_text(path, what=what, max_bytes=max_bytes), path)


def read_json(path: str | Path, *, what: str = "file", max_bytes: int = MAX_BYTES) -> Any:
    """:func:`read_text` then :func:`load_json`."""
    return load_json(read_text(path, what=what, max_bytes=max_bytes), path)
