"""Check a tree definition against the live registry, its subtrees and its blackboard.

:func:`validate_path` / :func:`validate_text` / :func:`validate_definition`
return a :class:`Checked` holding *every* problem found (``craftbt validate``
prints them; the executor refuses to run a tree that has any). Checks:

* leaf capability names and ``@version`` pins exist (close-match suggestions);
* each leaf's ``args`` against its capability's own JSON Schema (Draft 2020-12),
  then against its pydantic model for what a schema cannot say; conditions and
  ``eternal_guard`` conditions likewise against their check's schema;
* subtrees resolve (relative to the including file, then ``trees/library/``,
  then the ``--tree-path`` / ``CRAFTBT_TREE_PATH`` roots), never outside those
  roots (absolute paths, ``..`` escapes and symlinks out are refused before
  the file is opened), load cleanly and contain no cycle;
* every ``{key}`` reference names a key the tree declares under
  ``blackboard:`` or that the including tree passes in through ``remap``;
  every remap target exists in the including tree;
* no two writers conflict: one shared blackboard namespace holds every
  declared key, so two trees giving the same un-remapped key different
  initial values is an error, and so are two leaves in one file with the same
  explicit ``name`` (both would write ``/results/<name>``).

Blackboard semantics (what :mod:`trees.build` does): keys are global. A
subtree's reference to a remapped key reads the includer's key; its own
default for that key applies only when the includer's value is null.
Arguments that are exactly one reference are type-checked with the value the
key will start with when that is known, and skipped when it is null.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import EllipsisType
from typing import Any

import jsonschema
from pydantic import BaseModel, ValidationError

from craftbt.capabilities.behaviour import REFERENCE, find_references
from craftbt.capabilities.contracts import normalize_spec_args
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode, Problem
from craftbt.trees import model as m
from craftbt.trees.loader import Loaded, close_match, load_path, load_text
from craftbt.trees.paths import resolve as resolve_subtree
from craftbt.trees.paths import tree_roots
from craftbt.trees.source import DocPath, SourceMap

_validators: dict[type[BaseModel], jsonschema.protocols.Validator] = {}

try:  # optional: the Rust validator says whether args are valid in about a microsecond, the Python one in 50
    import jsonschema_rs
except ImportError:  # pragma: no cover - then every check goes through the Python validator
    jsonschema_rs = None  # type: ignore[assignment]
#: args model -> its Rust validator (None: its schema did not compile there; the Python validator is used)
_fast_validators: dict[type[BaseModel], Any] = {}


#: (args model, args as canonical JSON or flat args as :func:`_flat_key`) that passed the schema and the model:
#: checking them again finds nothing (both checks are pure functions of the two). Only passes are kept, so a bad
#: tree is always reported in full.
_valid_args: set[tuple[type[BaseModel], Any]] = set()
MAX_VALID_ARGS = 8192


#: (capability key or check name, args model, args as canonical JSON) of leaves and conditions that raised no
#: problem and whose args hold no blackboard reference: such a node means the same in every tree, so one met
#: again (a planner's ``has_item`` checks and crafts, in every plan) skips the reference walk, the contract's
#: normalizer and the substitution as well. Only passes are kept, as above.
_valid_nodes: set[tuple[str, type[BaseModel], Any]] = set()
_SCALARS = (str, int, float, bool, type(None))


#: flat args as a memo key (:func:`_flat_key`)
FlatArgs = tuple[tuple[str, type, Any], ...]


def _flat_key(args: dict[str, Any]) -> FlatArgs | None:
    """Flat args (scalars only, a planner's) as a memo key: their items in key order with each value's type
    (``1``, ``1.0`` and ``True`` are equal in Python, not to a schema); None when a value is no scalar or a
    string may hold a ``{key}`` reference (then the args depend on the tree's blackboard)."""
    items = []
    for k, v in args.items():
        t = type(v)
        if t is str:
            if "{" in v:
                return None
        elif t not in _SCALARS:
            return None
        items.append((k, t, v))
    items.sort()  # keys are unique, so only they are ever compared
    return tuple(items)


def _node_key(name: str, model: type[BaseModel], args: dict[str, Any], flat: FlatArgs | None
              ) -> tuple[str, type[BaseModel], Any] | None:
    """The memo key of a leaf's or condition's ``args``; None when they are no plain JSON or may hold a
    reference (then they depend on the tree's blackboard). Flat args are keyed by ``flat``, their
    :func:`_flat_key`, the rest by canonical JSON."""
    if flat is not None:
        return name, model, flat
    try:
        text = json.dumps(args, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return None if REFERENCE.search(text) else (name, model, text)


def _remember(key: tuple[str, type[BaseModel], Any] | None) -> None:
    if key is None:
        return
    if len(_valid_nodes) >= MAX_VALID_ARGS:
        _valid_nodes.clear()
    _valid_nodes.add(key)


def _args_key(model: type[BaseModel], instance: Any) -> tuple[type[BaseModel], str] | None:
    """The memo key of ``instance`` checked against ``model``; None when it is no plain JSON (not memoized)."""
    try:
        return model, json.dumps(instance, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


def args_validator(model: type[BaseModel]) -> jsonschema.protocols.Validator:
    """A cached Draft 2020-12 validator for an args model's JSON Schema."""
    validator = _validators.get(model)
    if validator is None:
        validator = jsonschema.Draft202012Validator(model.model_json_schema())
        _validators[model] = validator
    return validator


def surely_valid(model: type[BaseModel], instance: Any) -> bool:
    """True when ``instance`` certainly meets ``model``'s JSON Schema (Draft 2020-12, formats as annotations, as
    :func:`args_validator` reads it) by the Rust validator; False means "ask the Python validator", which stays
    the authority and words every error. First sight of a planner's args was most of an auto route's
    validation (a Plancraft example's items are new each time, so the memo above never held them)."""
    if jsonschema_rs is None:
        return False
    if model not in _fast_validators:
        try:
            _fast_validators[model] = jsonschema_rs.Draft202012Validator(model.model_json_schema(),
                                                                         validate_formats=False)
        except Exception:  # a schema the Rust side cannot compile: the Python validator alone
            _fast_validators[model] = None
    validator = _fast_validators[model]
    if validator is None:
        return False
    try:
        return bool(validator.is_valid(instance))
    except Exception:  # a value that is no JSON (a tuple, an object): the Python validator words it
        return False


def resolve_subtree_path(target: str, base_dir: Path | None) -> Path | None:
    """The file a ``subtree:`` value names inside the allowed roots (see :mod:`trees.paths`), or None."""
    return resolve_subtree(target, base_dir).path


def node_kind_key(node: m.Node) -> str:
    """The on-disk kind key of a node (``sequence``, ``retry``, ``leaf``...)."""
    return node.decorator.value if isinstance(node, m.DecoratorNode) else node.kind


def walk(node: m.Node, path: DocPath = ("root",)) -> Iterator[tuple[m.Node, DocPath]]:
    """Every node with its document path, parents first, in on-disk order."""
    found: list[tuple[m.Node, DocPath]] = []
    _collect(node, path, found)
    return iter(found)


def _collect(node: m.Node, path: DocPath, out: list[tuple[m.Node, DocPath]]) -> None:
    # into one list by the model's discriminator: nested generators re-yielded every node once a level
    out.append((node, path))
    kind = node.kind
    if kind == "sequence" or kind == "selector" or kind == "parallel":
        for i, child in enumerate(node.children):  # type: ignore[union-attr]
            _collect(child, (*path, kind, "children", i), out)
    elif kind == "decorator":
        _collect(node.child, (*path, node.decorator.value, "child"), out)  # type: ignore[union-attr]


@dataclass
class Checked:
    """Validation outcome; :mod:`trees.build` reuses the loaded subtrees and initial values."""

    definition: m.TreeDefinition | None
    problems: list[Problem] = field(default_factory=list)
    #: resolved subtree file -> what loading it gave
    subtrees: dict[Path, Loaded] = field(default_factory=dict)
    #: the blackboard every key starts with (global names)
    initial: dict[str, Any] = field(default_factory=dict)
    base_dir: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_for_problems(self) -> None:
        if self.problems:
            raise CraftbtError(self.problems)


@dataclass
class _Instance:
    """One tree file as placed in the expanded tree: its scope and key renaming."""

    definition: m.TreeDefinition
    smap: SourceMap
    base_dir: Path | None
    #: local key -> global key (remapped keys only)
    rename: dict[str, str]
    #: local key -> the value it starts with when known (None = unknown at load time)
    known: dict[str, Any]
    chain: tuple[Path, ...]


class _Validator:
    def __init__(self, registry: Registry, checked: Checked) -> None:
        self.registry = registry
        self.checked = checked
        self._seen: set[str] = set()
        #: problems reported so far, repeats included (a node that raised one is never remembered as valid)
        self.reported = 0
        #: global key -> (value, file) of the first non-null writer
        self._writers: dict[str, tuple[Any, str]] = {}
        self._fallbacks: dict[str, Any] = {}

    def report(self, problem: Problem) -> None:
        self.reported += 1
        text = problem.render()
        if text not in self._seen:  # a subtree included twice reports its problems once
            self._seen.add(text)
            self.checked.problems.append(problem)

    def problem(self, inst: _Instance, code: ErrorCode, path: DocPath, message: str, *,
                expected: str | None = None, suggestion: str | None = None) -> None:
        self.report(Problem(code, message, inst.smap.locate(path), expected, suggestion))

    # -- instances -------------------------------------------------------------------
    def instance(self, inst: _Instance) -> None:
        defn = inst.definition
        label = inst.smap.file or f"tree {defn.tree!r}"
        for key, value in defn.blackboard.items():
            if key in inst.rename:
                if value is not None:
                    self._fallbacks.setdefault(inst.rename[key], value)
                continue
            if value is None:
                self.checked.initial.setdefault(key, None)
                continue
            first = self._writers.get(key)
            if first is None:
                self._writers[key] = (value, label)
                self.checked.initial[key] = value
            elif first[0] != value:
                self.problem(
                    inst, ErrorCode.CONFLICTING_WRITERS, ("blackboard", key),
                    f"blackboard key {key!r} is given conflicting initial values: "
                    f"{first[0]!r} by {first[1]} and {value!r} by {label}",
                    expected="one value per key, or a remap to a different key",
                )
        names: dict[str, DocPath] = {}
        for node, path in walk(defn.root):
            # the model's discriminator: a string comparison a kind, not a chain of isinstance against classes
            if node.kind == "leaf":
                self.leaf(inst, node, path)
                if node.name is not None:
                    if node.name in names:
                        self.problem(
                            inst, ErrorCode.CONFLICTING_WRITERS, (*path, "name"),
                            f"leaf name {node.name!r} is used twice; both would write /results/{node.name}",
                            expected="unique leaf names",
                        )
                    names.setdefault(node.name, path)
            elif node.kind == "condition":
                self.condition(inst, node.check, node.args, (*path, "condition"))
            elif node.kind == "decorator":
                if node.decorator is m.DecoratorKind.ETERNAL_GUARD:
                    cond = node.params.get("condition") or {}
                    self.condition(inst, cond.get("check", ""), cond.get("args") or {},
                                   (*path, "eternal_guard", "condition"))
            elif node.kind == "subtree":
                self.subtree(inst, node, path)

    def leaf(self, inst: _Instance, node: m.LeafNode, path: DocPath) -> None:
        try:
            spec = self.registry.get(node.capability)
        except CraftbtError as err:
            for p in err.problems:
                self.report(Problem(p.code, p.message, inst.smap.locate((*path, "leaf")), p.expected, p.suggestion))
            return
        flat = _flat_key(node.args)
        memo = _node_key(spec.key, spec.args_model, node.args, flat) if node.idempotency_key is None else None
        if memo is not None and memo in _valid_nodes:
            return
        before = self.reported
        if memo is None:  # keyed args hold no reference (_node_key): nothing to look up
            self.references(inst, node.args, (*path, "args"))
        if node.idempotency_key is not None:
            self.references(inst, node.idempotency_key, (*path, "idempotency_key"))
        # the action contract's normalizer first, as a run applies it: the seed's spellings validate
        args, changed = normalize_spec_args(spec, node.args)
        self.args(inst, spec.args_model, args, (*path, "args"), spec.key, flat if changed is None else ...)
        if self.reported == before:
            _remember(memo)

    def condition(self, inst: _Instance, check_name: str, args: dict[str, Any], path: DocPath) -> None:
        try:
            check = self.registry.get_check(check_name)
        except CraftbtError as err:
            for p in err.problems:
                self.report(Problem(p.code, p.message, inst.smap.locate((*path, "check")), p.expected, p.suggestion))
            return
        flat = _flat_key(args)
        memo = _node_key(f"check {check.name}", check.args_model, args, flat)
        if memo is not None and memo in _valid_nodes:
            return
        before = self.reported
        if memo is None:
            self.references(inst, args, (*path, "args"))
        self.args(inst, check.args_model, args, (*path, "args"), f"check {check.name}", flat)
        if self.reported == before:
            _remember(memo)

    def references(self, inst: _Instance, value: Any, path: DocPath) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                self.references(inst, v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self.references(inst, v, (*path, i))
        elif isinstance(value, str):
            for key in find_references(value):
                if key not in inst.known:
                    self.problem(
                        inst, ErrorCode.UNKNOWN_BLACKBOARD_KEY, path,
                        f"unknown blackboard key {key!r} in {value!r}",
                        expected="a key declared under blackboard: or passed in by the including tree's remap",
                        suggestion=close_match(key, list(inst.known)),
                    )

    def args(self, inst: _Instance, model: type[BaseModel], args: dict[str, Any], path: DocPath, owner: str,
             flat: FlatArgs | EllipsisType | None = ...) -> None:
        """Check ``args`` against ``model``'s schema and the model; ``flat``: their :func:`_flat_key` when known."""
        if flat is ...:
            flat = _flat_key(args)
        key: tuple[type[BaseModel], Any] | None
        unknown: list[DocPath]
        if flat is not None:  # scalars, no reference: nothing to substitute, and a key without JSON
            instance, unknown, key = args, [], (model, flat)
        else:
            instance, unknown = _substitute(args, inst.known)
            key = None if unknown else _args_key(model, instance)
        if key is not None and key in _valid_args:
            return  # these very args passed both checks before (planners emit the same leaves over and over)
        schema_errors = [] if surely_valid(model, instance) else [
            e for e in args_validator(model).iter_errors(instance)
            if not any(tuple(e.absolute_path)[: len(u)] == u for u in unknown)
        ]
        for error in sorted(schema_errors, key=lambda e: [str(p) for p in e.absolute_path]):
            where, message, expected, suggestion = _describe(error)
            self.problem(inst, ErrorCode.INVALID_ARGS, (*path, *where), f"{owner}: {message}",
                         expected=expected, suggestion=suggestion)
        if schema_errors or unknown:
            return
        try:
            model.model_validate(instance)
        except ValidationError as err:
            for e in err.errors():
                where = tuple(p for p in e["loc"] if isinstance(p, str | int))
                self.problem(inst, ErrorCode.INVALID_ARGS, (*path, *where), f"{owner}: {e['msg']}")
            return
        if key is not None:
            if len(_valid_args) >= MAX_VALID_ARGS:
                _valid_args.clear()
            _valid_args.add(key)

    def subtree(self, inst: _Instance, node: m.SubtreeNode, path: DocPath) -> None:
        for inner, outer in node.remap.items():
            if outer not in inst.known:
                self.problem(
                    inst, ErrorCode.UNKNOWN_BLACKBOARD_KEY, (*path, "remap", inner),
                    f"remap target {outer!r} is not a blackboard key of this tree",
                    expected="a key declared under blackboard:", suggestion=close_match(outer, list(inst.known)),
                )
        found = resolve_subtree(node.path, inst.base_dir)
        if found.refusal is not None:
            self.problem(
                inst, ErrorCode.SUBTREE_OUTSIDE_ROOTS, (*path, "subtree"), found.refusal,
                expected="a tree file under " + ", ".join(str(r) for r in tree_roots(inst.base_dir)),
            )
            return
        resolved = found.path
        if resolved is None:
            where = ", ".join(str(r) for r in tree_roots(inst.base_dir))
            self.problem(
                inst, ErrorCode.SUBTREE_NOT_FOUND, (*path, "subtree"), f"subtree {node.path!r} not found",
                expected=f"a tree file relative to one of {where}",
            )
            return
        real = resolved.resolve()
        if real in inst.chain:
            cycle = [p.name for p in inst.chain[inst.chain.index(real):]] + [real.name]
            self.problem(
                inst, ErrorCode.SUBTREE_CYCLE, (*path, "subtree"), "subtree cycle: " + " -> ".join(cycle),
                expected="subtrees that do not include themselves",
            )
            return
        loaded = self.checked.subtrees.get(real)
        if loaded is None:
            loaded = load_path(resolved)
            self.checked.subtrees[real] = loaded
        for p in loaded.problems:
            self.report(p)
        if loaded.definition is None:
            return
        sub = loaded.definition
        rename = {inner: inst.rename.get(outer, outer) for inner, outer in node.remap.items()}
        known = dict(sub.blackboard)
        for inner, outer in node.remap.items():
            if outer in inst.known:
                outer_value = inst.known[outer]
                known[inner] = outer_value if outer_value is not None else sub.blackboard.get(inner)
        child = _Instance(sub, loaded.smap, resolved.parent, rename, known, (*inst.chain, real))
        self.instance(child)

    def finish(self) -> None:
        for key, value in self._fallbacks.items():
            if self.checked.initial.get(key) is None:
                self.checked.initial[key] = value


def _substitute(value: Any, known: dict[str, Any], path: DocPath = ()) -> tuple[Any, list[DocPath]]:
    """Replace references by known values; list the paths whose value is unknown until run time."""
    if isinstance(value, str):
        whole = REFERENCE.fullmatch(value)
        if whole:
            key = whole.group(1)
            if known.get(key) is None:
                return value, [path]
            return known[key], []
        if "{" in value:
            return REFERENCE.sub(lambda mt: str(known.get(mt.group(1), mt.group(0))), value), []
        return value, []
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        unknown: list[DocPath] = []
        for k, v in value.items():
            out[k], more = _substitute(v, known, (*path, k))
            unknown.extend(more)
        return out, unknown
    if isinstance(value, list):
        items: list[Any] = []
        unknown = []
        for i, v in enumerate(value):
            item, more = _substitute(v, known, (*path, i))
            items.append(item)
            unknown.extend(more)
        return items, unknown
    return value, []


def _describe(error: jsonschema.ValidationError) -> tuple[DocPath, str, str | None, str | None]:
    """A jsonschema error -> (path inside args, message, expected, suggestion) in our words."""
    where = tuple(p for p in error.absolute_path if isinstance(p, str | int))
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else error.message
        return where, f"missing required argument {missing!r}", _expect(schema, missing), None
    if error.validator == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        name = extra[0] if extra else "?"
        return (
            (*where, name),
            f"unknown argument {name!r}",
            "one of " + ", ".join(allowed) if allowed else "no arguments",
            close_match(name, allowed),
        )
    if error.validator == "type":
        label = ".".join(str(p) for p in where) or "args"
        return where, f"argument {label!r} is {error.instance!r}", f"{_kind(error.validator_value)}", None
    label = ".".join(str(p) for p in where) or "args"
    return where, f"argument {label!r}: {error.message}", None, None


def _kind(value: Any) -> str:
    names = {"integer": "an integer", "string": "a string", "number": "a number", "boolean": "true or false",
             "object": "a mapping", "array": "a list", "null": "null"}
    if isinstance(value, list):
        return " or ".join(names.get(str(v), str(v)) for v in value)
    return names.get(value, str(value))


def _expect(schema: dict[str, Any], prop: str) -> str | None:
    sub = schema.get("properties", {}).get(prop)
    if isinstance(sub, dict) and "type" in sub:
        return f"{prop}: {_kind(sub['type'])}"
    return None


def validate_definition(
    definition: m.TreeDefinition,
    registry: Registry,
    *,
    smap: SourceMap | None = None,
    base_dir: Path | None = None,
    subtrees: Mapping[Path, Loaded] | None = None,
) -> Checked:
    """Every registry, subtree and blackboard problem of an already-decoded definition.

    ``subtrees`` are files already loaded (resolved path -> what loading gave): they are not read again.
    """
    smap = smap or SourceMap(file=definition.source)
    if base_dir is None and definition.source and Path(definition.source).is_file():
        base_dir = Path(definition.source).parent
    checked = Checked(definition, base_dir=base_dir, subtrees=dict(subtrees or {}))
    chain = (Path(definition.source).resolve(),) if definition.source else ()
    inst = _Instance(definition, smap, base_dir, {}, dict(definition.blackboard), chain)
    validator = _Validator(registry, checked)
    try:
        validator.instance(inst)
    except RecursionError:
        validator.report(Problem(ErrorCode.SCHEMA_ERROR, "tree or subtree chain nested too deeply", smap.locate(())))
    validator.finish()
    return checked


def _checked_from(loaded: Loaded, registry: Registry) -> Checked:
    if loaded.partial is None:
        return Checked(None, problems=list(loaded.problems))
    checked = validate_definition(loaded.partial, registry, smap=loaded.smap)
    if loaded.problems:
        checked.definition = None
        checked.problems = sorted(
            [*loaded.problems, *checked.problems],
            key=lambda p: (p.location.file or "", p.location.line or 0, p.location.column or 0),
        )
    return checked


def validate_path(path: str | Path, registry: Registry) -> Checked:
    """Load a file and check it: every problem, from syntax to blackboard."""
    return _checked_from(load_path(path), registry)


def validate_text(text: str, registry: Registry, *, file: str | None = None, fmt: str | None = None) -> Checked:
    return _checked_from(load_text(text, file=file, fmt=fmt), registry)
