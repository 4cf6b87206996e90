"""Tree files (YAML or JSON) -> :class:`trees.model.TreeDefinition`, with file:line:col errors.

This module checks the *shape* of a file; :mod:`trees.validate` checks it
against the registry (leaf and check names, args), subtrees and the
blackboard. Both report :class:`craftbt.core.errors.Problem` values and collect
every problem they can find rather than stopping at the first.

On-disk format (``tree-format.md`` plus the details it leaves open)
------------------------------------------------------------------

Top level: ``tree`` (required, ``[a-z0-9_]+``), ``version`` (format version,
``1``), ``description``, ``blackboard`` (mapping of initial keys; a ``null``
value *declares* a key without a default, e.g. a subtree parameter), ``root``
(one node). No other keys.

A node is a mapping. Composites and decorators have exactly one key, the
kind, whose value is a mapping of fields::

    {sequence: {name, memory (default true), children: [NODE, ...]}}
    {selector: {name, memory (default false), children}}
    {parallel: {name, policy: success_on_all | success_on_one, children}}
    {inverter | success_is_failure | failure_is_success | oneshot: {name, child: NODE}}
    {retry: {name, attempts: N >= 1 or -1, child}}  # N attempts in total; -1 retries forever
    {timeout: {name, duration_ms: N > 0, child}}    # game time, measured on the body's clock
    {repeat: {name, count: N >= 1 or -1 forever, child}}
    {eternal_guard: {name, condition: {check, args}, child}}

Leaves, conditions and subtrees are flat mappings whose kind key holds the
main value::

    {leaf: craft_recipe | craft_recipe@1 | craft_recipe@1.2.0, args: {...}, name,
     retry: N >= 0 (retries after the first attempt), timeout_ms: N > 0,
     idempotency_key: str, args_source: explicit | derived}
    {condition: {check: has_item, args: {...}}, name}
    {subtree: path/to/file.yaml, remap: {inner_key: outer_key}, name}

A node mapping with no kind key, or two, is an error; unknown field names are
errors with a close-match suggestion. Strings in ``args`` (and
``idempotency_key``) may contain ``"{key}"`` blackboard references; a string
that is exactly one reference takes the referenced value's type. Error
locations point at the offending key, with a document path such as
``root.sequence.children[2].leaf``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from craftbt.core.errors import CraftbtError, ErrorCode, Problem
from craftbt.trees import model as m
from craftbt.trees.source import DocPath, SourceMap, parse

COMPOSITE_KINDS = ("sequence", "selector", "parallel")
DECORATOR_KINDS = tuple(d.value for d in m.DecoratorKind)
FLAT_KINDS = ("leaf", "condition", "subtree")
NODE_KINDS = COMPOSITE_KINDS + DECORATOR_KINDS + FLAT_KINDS

TOP_KEYS = ("tree", "version", "description", "blackboard", "root")
COMPOSITE_FIELDS: dict[str, tuple[str, ...]] = {
    "sequence": ("name", "memory", "children"),
    "selector": ("name", "memory", "children"),
    "parallel": ("name", "policy", "children"),
}
LEAF_FIELDS = ("leaf", "args", "name", "retry", "timeout_ms", "idempotency_key", "args_source")
CONDITION_FIELDS = ("check", "args")
SUBTREE_FIELDS = ("subtree", "remap", "name")
NAME_PATTERN = re.compile(m.TREE_NAME_PATTERN)
REF_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(@(0|[1-9]\d*)(\.(0|[1-9]\d*)\.(0|[1-9]\d*))?)?$")

PLACEHOLDER_TREE = "invalid"
PLACEHOLDER_NAME = "<invalid node>"


def placeholder() -> m.SequenceNode:
    """Stands in for a node that failed to decode, so the rest of the file is still checked."""
    return m.SequenceNode(name=PLACEHOLDER_NAME, children=[])


def is_placeholder(node: m.Node) -> bool:
    return isinstance(node, m.SequenceNode) and node.name == PLACEHOLDER_NAME and not node.children


_TYPE_NAMES = {bool: "boolean", int: "integer", str: "string", dict: "mapping", list: "list", float: "number"}


def type_name(value: Any) -> str:
    return "null" if value is None else _TYPE_NAMES.get(type(value), type(value).__name__)


def close_match(word: str, candidates: tuple[str, ...] | list[str]) -> str | None:
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


class Loaded:
    """The result of loading one file: the definition (if the shape allowed one), positions, problems."""

    def __init__(
        self,
        definition: m.TreeDefinition | None,
        smap: SourceMap,
        problems: list[Problem],
        partial: m.TreeDefinition | None = None,
    ) -> None:
        self.definition = definition
        self.smap = smap
        self.problems = problems
        #: the definition with each broken node replaced by a placeholder, so the
        #: registry/blackboard checks can still report on the rest of the file
        self.partial = partial if partial is not None else definition


def load_text(text: str, *, file: str | None = None, fmt: str | None = None) -> Loaded:
    """Parse and decode; never raises for bad content (problems are in the result)."""
    try:
        data, smap = parse(text, file=file, fmt=fmt)
    except CraftbtError as err:
        return Loaded(None, SourceMap(file=file), err.problems)
    return decode(data, smap)


def load_path(path: str | Path) -> Loaded:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Loaded(None, SourceMap(str(path)), [_file_problem(path, "no such file")])
    except IsADirectoryError:
        return Loaded(None, SourceMap(str(path)), [_file_problem(path, "is a directory")])
    except UnicodeDecodeError:
        return Loaded(
            None, SourceMap(str(path)),
            [Problem(ErrorCode.PARSE_ERROR, "the file is not UTF-8 text", SourceMap(str(path)).locate(()))],
        )
    except OSError as err:
        return Loaded(None, SourceMap(str(path)), [_file_problem(path, err.strerror or "cannot be read")])
    return load_text(text, file=str(path))


def load_file(path: str | Path) -> m.TreeDefinition:
    """Load a file's shape (no registry checks). Raises :class:`CraftbtError` with every problem."""
    loaded = load_path(path)
    if loaded.problems or loaded.definition is None:
        raise CraftbtError(loaded.problems)
    return loaded.definition


def _file_problem(path: Path, why: str) -> Problem:
    return Problem(ErrorCode.FILE_NOT_FOUND, f"cannot read {str(path)!r}: {why}", SourceMap(str(path)).locate(()))


# -- decoding plain data -> model ------------------------------------------------
class _Decoder:
    def __init__(self, smap: SourceMap) -> None:
        self.smap = smap
        self.problems: list[Problem] = []

    def problem(
        self,
        code: ErrorCode,
        path: DocPath,
        message: str,
        *,
        expected: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.problems.append(Problem(code, message, self.smap.locate(path), expected, suggestion))

    def unknown_keys(self, mapping: dict[str, Any], allowed: tuple[str, ...], path: DocPath, what: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.problem(
                    ErrorCode.SCHEMA_ERROR,
                    (*path, key),
                    f"unknown key {key!r} in {what}",
                    expected="one of " + ", ".join(allowed),
                    suggestion=close_match(key, allowed),
                )

    def typed(self, mapping: dict[str, Any], key: str, kind: type | tuple[type, ...], path: DocPath) -> Any:
        """The value if present with the right type (bool is never an int here), else None."""
        if key not in mapping:
            return None
        value = mapping[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            self.problem(
                ErrorCode.SCHEMA_ERROR,
                (*path, key),
                f"{key!r} must be {' or '.join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)}, "
                f"got {type_name(value)}",
            )
            return None
        return value

    def name(self, mapping: dict[str, Any], path: DocPath) -> str | None:
        value = self.typed(mapping, "name", str, path)
        return value if isinstance(value, str) else None

    # -- top level ----------------------------------------------------------------
    def tree(self, data: Any) -> m.TreeDefinition | None:
        if not isinstance(data, dict):
            self.problem(
                ErrorCode.SCHEMA_ERROR, (), f"a tree file must be a mapping, got {type_name(data)}",
                expected="a mapping with keys tree and root",
            )
            return None
        self.unknown_keys(data, TOP_KEYS, (), "the tree file")
        for key in ("tree", "root"):
            if key not in data:
                self.problem(ErrorCode.SCHEMA_ERROR, (), f"missing required key {key!r}", expected="tree and root")
        name = self.typed(data, "tree", str, ())
        if isinstance(name, str) and not NAME_PATTERN.match(name):
            self.problem(
                ErrorCode.SCHEMA_ERROR, ("tree",), f"tree name {name!r} is not allowed",
                expected="lowercase letters, digits and _ ([a-z0-9_]+)",
            )
        version = self.typed(data, "version", int, ())
        if isinstance(version, int) and version != m.FORMAT_VERSION:
            self.problem(
                ErrorCode.SCHEMA_ERROR, ("version",), f"unsupported format version {version}",
                expected=str(m.FORMAT_VERSION),
            )
        description = self.typed(data, "description", str, ())
        blackboard = self.typed(data, "blackboard", dict, ())
        root = self.node(data["root"], ("root",)) if "root" in data else None
        if root is None:
            return None
        try:
            return m.TreeDefinition(
                tree=name if isinstance(name, str) and NAME_PATTERN.match(name) else PLACEHOLDER_TREE,
                version=m.FORMAT_VERSION,
                description=description or "",
                blackboard=blackboard or {},
                root=root,
                source=self.smap.file,
            )
        except ValidationError as err:  # the checks above should make this unreachable
            self._pydantic(err, ())
            return None

    # -- nodes ----------------------------------------------------------------------
    def node(self, data: Any, path: DocPath) -> m.Node:
        if not isinstance(data, dict):
            self.problem(
                ErrorCode.SCHEMA_ERROR, path, f"a node must be a mapping, got {type_name(data)}",
                expected="a mapping with one kind key: " + ", ".join(NODE_KINDS),
            )
            return placeholder()
        # A flat kind wins: a leaf's own fields include ``retry`` (the shorthand), also a decorator name.
        kinds = [k for k in data if k in FLAT_KINDS] or [k for k in data if k in NODE_KINDS]
        if len(kinds) > 1:
            self.problem(
                ErrorCode.SCHEMA_ERROR, path, "node has several kind keys: " + ", ".join(kinds),
                expected="exactly one of " + ", ".join(NODE_KINDS),
            )
            return placeholder()
        if not kinds:
            guess = next((close_match(k, NODE_KINDS) for k in data if close_match(k, NODE_KINDS)), None)
            where = next((k for k in data if close_match(k, NODE_KINDS) == guess), None) if guess else None
            keys = ", ".join(repr(k) for k in data) or "none"
            self.problem(
                ErrorCode.UNKNOWN_NODE_KIND, (*path, where) if where else path,
                f"node has no kind key (keys: {keys})",
                expected="one of " + ", ".join(NODE_KINDS), suggestion=guess,
            )
            return placeholder()
        kind = kinds[0]
        if kind in FLAT_KINDS:
            return {"leaf": self.leaf, "condition": self.condition, "subtree": self.subtree}[kind](data, path)
        if len(data) > 1:
            extra = [k for k in data if k != kind]
            self.problem(
                ErrorCode.SCHEMA_ERROR, (*path, extra[0]),
                f"unexpected key {extra[0]!r} beside {kind!r}",
                expected=f"the fields of a {kind} inside its mapping: {{{kind}: {{...}}}}",
            )
            return placeholder()
        body = data[kind]
        kpath = (*path, kind)
        if not isinstance(body, dict):
            self.problem(
                ErrorCode.SCHEMA_ERROR if kind in COMPOSITE_KINDS else ErrorCode.BAD_DECORATOR, kpath,
                f"{kind!r} must be a mapping of its fields, got {type_name(body)}",
                # a list here is almost always the children written straight under the composite
                expected=f"{{{kind}: {{children: [...]}}}}" if kind in COMPOSITE_KINDS and isinstance(body, list)
                else f"{{{kind}: {{...}}}}",
            )
            return placeholder()
        if kind in COMPOSITE_KINDS:
            return self.composite(kind, body, kpath)
        return self.decorator(m.DecoratorKind(kind), body, kpath)

    def composite(self, kind: str, body: dict[str, Any], path: DocPath) -> m.Node:
        self.unknown_keys(body, COMPOSITE_FIELDS[kind], path, f"a {kind}")
        name = self.name(body, path)
        children_raw = self.typed(body, "children", list, path)
        if "children" not in body:
            self.problem(ErrorCode.SCHEMA_ERROR, path, f"{kind} needs 'children'", expected="a list of nodes")
        elif isinstance(children_raw, list) and not children_raw:
            self.problem(ErrorCode.SCHEMA_ERROR, (*path, "children"), f"{kind} has no children",
                         expected="at least one child node")
        children = [self.node(c, (*path, "children", i)) for i, c in enumerate(children_raw or [])]
        fields: dict[str, Any] = {"name": name, "children": children}
        if kind == "parallel":
            policy = self.typed(body, "policy", str, path)
            if isinstance(policy, str):
                allowed = tuple(p.value for p in m.ParallelPolicy)
                if policy not in allowed:
                    self.problem(
                        ErrorCode.SCHEMA_ERROR, (*path, "policy"), f"unknown parallel policy {policy!r}",
                        expected="one of " + ", ".join(allowed), suggestion=close_match(policy, allowed),
                    )
                else:
                    fields["policy"] = policy
        else:
            memory = self.typed(body, "memory", bool, path)
            if isinstance(memory, bool):
                fields["memory"] = memory
        model = {"sequence": m.SequenceNode, "selector": m.SelectorNode, "parallel": m.ParallelNode}[kind]
        return self._make(model, fields, path)

    def decorator(self, kind: m.DecoratorKind, body: dict[str, Any], path: DocPath) -> m.Node:
        params_spec = m.DECORATOR_PARAMS[kind]
        allowed = ("name", "child", *params_spec)
        for key in body:
            if key not in allowed:
                self.problem(
                    ErrorCode.BAD_DECORATOR, (*path, key), f"unknown parameter {key!r} for decorator {kind.value!r}",
                    expected="one of " + ", ".join(allowed), suggestion=close_match(key, allowed),
                )
        params: dict[str, Any] = {}
        for pname, (ptype, required) in params_spec.items():
            if pname not in body:
                if required:
                    self.problem(
                        ErrorCode.BAD_DECORATOR, path, f"decorator {kind.value!r} needs parameter {pname!r}",
                        expected=f"{pname}: {_TYPE_NAMES.get(ptype, ptype.__name__)}",
                    )
                continue
            value = body[pname]
            if not isinstance(value, ptype) or (isinstance(value, bool) and ptype is not bool):
                self.problem(
                    ErrorCode.BAD_DECORATOR, (*path, pname),
                    f"decorator {kind.value!r} parameter {pname!r} must be "
                    f"{_TYPE_NAMES.get(ptype, ptype.__name__)}, got {type_name(value)}",
                )
                continue
            params[pname] = value
        self._decorator_ranges(kind, params, path)
        if kind is m.DecoratorKind.ETERNAL_GUARD and "condition" in params:
            cond = self.condition_body(params["condition"], (*path, "condition"))
            params["condition"] = cond.model_dump(exclude={"kind", "name"}) if cond else None
        name = self.name(body, path)
        if "child" not in body:
            self.problem(ErrorCode.BAD_DECORATOR, path, f"decorator {kind.value!r} needs a 'child' node",
                         expected="child: NODE")
            return placeholder()
        child = self.node(body["child"], (*path, "child"))
        return self._make(m.DecoratorNode, {"name": name, "decorator": kind, "params": params, "child": child}, path)

    def _decorator_ranges(self, kind: m.DecoratorKind, params: dict[str, Any], path: DocPath) -> None:
        rules: dict[str, tuple[Callable[[int], bool], str]] = {
            "attempts": (lambda v: v >= 1 or v == -1, "an integer >= 1, or -1 to retry forever"),
            "duration_ms": (lambda v: v > 0, "an integer > 0 (milliseconds)"),
            "count": (lambda v: v >= 1 or v == -1, "an integer >= 1, or -1 to repeat forever"),
        }
        for pname, value in params.items():
            rule = rules.get(pname)
            if rule and isinstance(value, int) and not rule[0](value):
                self.problem(
                    ErrorCode.BAD_DECORATOR, (*path, pname),
                    f"decorator {kind.value!r} parameter {pname!r} is {value}", expected=rule[1],
                )

    def leaf(self, data: dict[str, Any], path: DocPath) -> m.Node:
        self.unknown_keys(data, LEAF_FIELDS, path, "a leaf")
        ref = self.typed(data, "leaf", str, path)
        if isinstance(ref, str) and not REF_PATTERN.match(ref):
            self.problem(
                ErrorCode.SCHEMA_ERROR, (*path, "leaf"), f"malformed capability reference {ref!r}",
                expected="name, name@MAJOR or name@MAJOR.MINOR.PATCH",
            )
        args = self.typed(data, "args", dict, path)
        fields: dict[str, Any] = {"capability": ref, "args": args or {}, "name": self.name(data, path)}
        retry = self.typed(data, "retry", int, path)
        if isinstance(retry, int):
            if retry < 0:
                self.problem(ErrorCode.BAD_DECORATOR, (*path, "retry"), f"retry is {retry}",
                             expected="retries after the first attempt, an integer >= 0")
            else:
                fields["retry"] = retry
        timeout = self.typed(data, "timeout_ms", int, path)
        if isinstance(timeout, int):
            if timeout <= 0:
                self.problem(ErrorCode.BAD_DECORATOR, (*path, "timeout_ms"), f"timeout_ms is {timeout}",
                             expected="an integer > 0 (milliseconds)")
            else:
                fields["timeout_ms"] = timeout
        fields["idempotency_key"] = self.typed(data, "idempotency_key", str, path)
        source = self.typed(data, "args_source", str, path)
        if isinstance(source, str):
            if source not in ("explicit", "derived"):
                self.problem(ErrorCode.SCHEMA_ERROR, (*path, "args_source"), f"unknown args_source {source!r}",
                             expected="explicit or derived")
            else:
                fields["args_source"] = source
        if ref is None or not REF_PATTERN.match(ref):
            return placeholder()
        return self._make(m.LeafNode, fields, path)

    def condition(self, data: dict[str, Any], path: DocPath) -> m.Node:
        self.unknown_keys(data, ("condition", "name"), path, "a condition node")
        name = self.name(data, path)
        body = self.condition_body(data["condition"], (*path, "condition"))
        if body is None:
            return placeholder()
        return body.model_copy(update={"name": name})

    def condition_body(self, body: Any, path: DocPath) -> m.ConditionNode | None:
        if not isinstance(body, dict):
            self.problem(ErrorCode.SCHEMA_ERROR, path, f"a condition must be a mapping, got {type_name(body)}",
                         expected="{check: NAME, args: {...}}")
            return None
        before = len(self.problems)
        self.unknown_keys(body, CONDITION_FIELDS, path, "a condition")
        check = self.typed(body, "check", str, path)
        if "check" not in body:
            self.problem(ErrorCode.SCHEMA_ERROR, path, "condition needs 'check'", expected="check: NAME")
        args = self.typed(body, "args", dict, path)
        if len(self.problems) > before or check is None:
            return None
        node = self._make(m.ConditionNode, {"check": check, "args": args or {}}, path)
        return node if isinstance(node, m.ConditionNode) else None

    def subtree(self, data: dict[str, Any], path: DocPath) -> m.Node:
        before = len(self.problems)
        self.unknown_keys(data, SUBTREE_FIELDS, path, "a subtree node")
        target = self.typed(data, "subtree", str, path)
        if isinstance(target, str) and not target.strip():
            self.problem(ErrorCode.SCHEMA_ERROR, (*path, "subtree"), "subtree path is empty",
                         expected="a path to a tree file")
        remap = self.typed(data, "remap", dict, path) or {}
        for inner, outer in remap.items():
            if not isinstance(outer, str) or not outer:
                self.problem(ErrorCode.SCHEMA_ERROR, (*path, "remap", inner),
                             f"remap of {inner!r} must name a blackboard key, got {type_name(outer)}")
        if len(self.problems) > before or target is None:
            return placeholder()
        return self._make(m.SubtreeNode, {"path": target, "remap": remap, "name": self.name(data, path)}, path)

    # -- helpers --------------------------------------------------------------------
    def _make(self, model: type[Any], fields: dict[str, Any], path: DocPath) -> m.Node:
        try:
            node: m.Node = model(**{k: v for k, v in fields.items() if v is not None or k == "name"})
        except ValidationError as err:
            self._pydantic(err, path)
            return placeholder()
        return node

    def _pydantic(self, err: ValidationError, path: DocPath) -> None:
        for e in err.errors():
            loc = tuple(p for p in e["loc"] if isinstance(p, str | int))
            self.problem(ErrorCode.SCHEMA_ERROR, (*path, *loc), e["msg"])


def decode(data: Any, smap: SourceMap) -> Loaded:
    """Plain data (from :func:`trees.source.parse` or a planner) -> definition + problems."""
    decoder = _Decoder(smap)
    try:
        partial = decoder.tree(data)
    except RecursionError:
        decoder.problem(ErrorCode.SCHEMA_ERROR, (), "tree nested too deeply")
        partial = None
    definition = None if decoder.problems else partial
    return Loaded(definition, smap, decoder.problems, partial)


def from_dict(data: Any, *, source: str | None = None) -> m.TreeDefinition:
    """A planner's on-disk-shaped dict -> definition. Raises :class:`CraftbtError`."""
    loaded = decode(data, SourceMap(file=source))
    if loaded.problems or loaded.definition is None:
        raise CraftbtError(loaded.problems)
    return loaded.definition
