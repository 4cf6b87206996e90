"""Parse tree-file text (YAML or JSON) into plain data plus a map of where each key sits.

The source map is keyed by *document paths*: tuples of mapping keys and
sequence indices such as ``("root", "sequence", "children", 2, "leaf")``. It
lets every later check (structure, registry, subtrees, blackboard) report the
file, line and column of the thing it complains about, for a definition that
came from a file, and degrade to the path alone for one a planner emitted.

Positions come from PyYAML's libyaml composer (node marks), which is several
times faster than a pure-Python round-trip loader and gives the same
line/column information. JSON values come from :func:`json.loads` (YAML 1.1
would read ``1e5`` as a string); their positions from composing the same text
as YAML, which JSON almost always is. When it is not, positions are simply
absent and errors carry the document path only.

Anything the parsers raise on bad text becomes a ``parse_error`` problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.core.inputs import check_yaml_depth

DocPath = tuple[str | int, ...]

#: A document larger than this many values is refused: aliases can expand exponentially.
MAX_VALUES = 200_000
#: Nesting deeper than this is refused before any recursive walk can overflow.
MAX_DEPTH = 120

_MERGE_TAG = "tag:yaml.org,2002:merge"


def format_path(path: DocPath) -> str:
    """``("root", "sequence", "children", 2, "leaf")`` -> ``root.sequence.children[2].leaf``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


@dataclass
class SourceMap:
    """File name plus 1-based (line, column) of every key and sequence item."""

    file: str | None = None
    positions: dict[DocPath, tuple[int, int]] = field(default_factory=dict)

    def locate(self, path: DocPath) -> Location:
        """The location of ``path``, or of its nearest ancestor that has one."""
        probe = path
        while True:
            pos = self.positions.get(probe)
            if pos is not None:
                return Location(self.file, pos[0], pos[1], format_path(path))
            if not probe:
                return Location(self.file, None, None, format_path(path))
            probe = probe[:-1]


def detect_format(file: str | None, text: str) -> str:
    """``json`` for ``*.json`` files (or text starting with ``{`` when there is no name), else ``yaml``."""
    if file is not None:
        return "json" if file.lower().endswith(".json") else "yaml"
    return "json" if text.lstrip().startswith(("{", "[")) else "yaml"


def parse(text: str, *, file: str | None = None, fmt: str | None = None) -> tuple[Any, SourceMap]:
    """Text -> (plain JSON-compatible data, source map). Raises :class:`CraftbtError` (parse_error)."""
    fmt = fmt or detect_format(file, text)
    smap = SourceMap(file=file)
    if fmt == "json":
        data = _load_json(text, file)
        try:
            node = yaml.compose(text.replace("\t", " "), Loader=yaml.CSafeLoader)
        except Exception:  # positions are a nicety for JSON; the values are already loaded
            node = None
        if node is not None:
            _walk_positions(node, (), smap, [], set())
    else:
        data = _load_yaml(text, smap)
    return _plain(data, smap), smap


def _parse_error(file: str | None, message: str, line: int | None = None, col: int | None = None) -> CraftbtError:
    return CraftbtError.single(ErrorCode.PARSE_ERROR, message, location=Location(file, line, col))


def _load_json(text: str, file: str | None) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as err:
        raise _parse_error(file, f"invalid JSON: {err.msg}", err.lineno, err.colno) from None
    except _DuplicateKey as dup:
        raise _parse_error(file, f"invalid JSON: duplicate key {dup.key!r}") from None
    except (ValueError, RecursionError) as err:
        raise _parse_error(file, f"invalid JSON: {type(err).__name__}") from None


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _load_yaml(text: str, smap: SourceMap) -> Any:
    # libyaml's composer recurses: a deep enough document crashes the interpreter, so depth comes first
    check_yaml_depth(text, smap.file, max_depth=MAX_DEPTH + 1)
    loader = yaml.CSafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise _parse_error(smap.file, "the file is empty", 1, 1)
        problems: list[Problem] = []
        _walk_positions(node, (), smap, problems, set())
        if problems:
            raise CraftbtError(problems)
        return loader.construct_document(node)
    except CraftbtError:
        raise
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        reason = err.problem or err.context or "unreadable"
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        raise _parse_error(smap.file, f"invalid YAML: {reason}", line, col) from None
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0] if str(err) else "unreadable"
        raise _parse_error(smap.file, f"invalid YAML: {first}") from None
    except RecursionError:
        raise _parse_error(smap.file, "invalid YAML: nested too deeply") from None
    except Exception as err:  # libyaml and the constructor raise assorted types on hostile input
        raise _parse_error(smap.file, f"invalid YAML: {type(err).__name__}: {err}") from None
    finally:
        loader.dispose()


def _walk_positions(
    node: yaml.Node, path: DocPath, smap: SourceMap, problems: list[Problem], seen: set[int]
) -> None:
    """Record positions; report duplicate keys (YAML silently keeps the last one)."""
    if id(node) in seen or len(path) > MAX_DEPTH:
        return  # an alias already walked, or too deep (refused later by _plain)
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        keys: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = str(key_node.value)
            mark = key_node.start_mark
            if key in keys:
                problems.append(
                    Problem(
                        ErrorCode.PARSE_ERROR,
                        f"duplicate key {key!r}",
                        Location(smap.file, mark.line + 1, mark.column + 1, format_path((*path, key))),
                        expected="each key once per mapping",
                    )
                )
                continue
            keys.add(key)
            smap.positions[(*path, key)] = (mark.line + 1, mark.column + 1)
            _walk_positions(value_node, (*path, key), smap, problems, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            mark = item.start_mark
            smap.positions[(*path, index)] = (mark.line + 1, mark.column + 1)
            _walk_positions(item, (*path, index), smap, problems, seen)


def _plain(data: Any, smap: SourceMap) -> Any:
    """Check the data is JSON-shaped (str keys, finite numbers, no cycles, bounded size)."""
    budget = [MAX_VALUES]
    file = smap.file

    def walk(value: Any, path: DocPath, active: set[int]) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise _parse_error(file, f"document too large: more than {MAX_VALUES} values")
        if len(path) > MAX_DEPTH:
            raise _parse_error(file, f"document nested deeper than {MAX_DEPTH} levels")
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise CraftbtError.single(
                    ErrorCode.PARSE_ERROR,
                    f"non-finite number {value!r}",
                    location=smap.locate(path),
                    expected="a finite number",
                )
            return value
        if isinstance(value, dict | list):
            if id(value) in active:
                raise _parse_error(file, f"recursive alias at {format_path(path) or '<document>'}")
            active.add(id(value))
            try:
                if isinstance(value, list):
                    return [walk(v, (*path, i), active) for i, v in enumerate(value)]
                out: dict[str, Any] = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise CraftbtError.single(
                            ErrorCode.PARSE_ERROR,
                            f"mapping key {key!r} is a {type(key).__name__}",
                            location=smap.locate(path),
                            expected="string keys (quote it)",
                        )
                    out[key] = walk(item, (*path, key), active)
                return out
            finally:
                active.discard(id(value))
        raise CraftbtError.single(
            ErrorCode.PARSE_ERROR,
            f"value of type {type(value).__name__} is not allowed",
            location=smap.locate(path),
            expected="a string, number, boolean, null, list or mapping (quote dates)",
        )

    return walk(data, (), set())
