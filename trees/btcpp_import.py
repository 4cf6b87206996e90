"""BehaviorTree.CPP v4 XML -> definition that keeps the tree's meaning or refuses it, at FILE:LINE:COL.

Every node element's position is recorded while parsing (expat, which refuses external
entities and limits entity expansion) into a :class:`trees.source.SourceMap` keyed by the same
document paths the YAML loader uses, so the loader's structural checks and the registry
checks of :mod:`trees.validate` report XML problems at the element they are about. What has
no craftbt equivalent (script pre/post-conditions, ``IfThenElse``, ``Switch``, blackboard
scripting, unknown control nodes) is refused with the construct to write instead.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any
from xml.parsers import expat

from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.trees import model as m
from craftbt.trees.btcpp import (
    FORMAT,
    INIT_NAME,
    LEAF_META,
    PORT_PARAMS,
    PRE_POST,
    RESERVED,
    TAG_DECORATORS,
    decode_value,
    read_meta_comment,
    subtree_path_of,
)
from craftbt.trees.build import rename_references
from craftbt.trees.dump import to_data
from craftbt.trees.loader import NAME_PATTERN, close_match, decode, placeholder
from craftbt.trees.source import DocPath, SourceMap

#: BT.CPP built-ins craftbt has no equivalent for, and what to write instead
UNSUPPORTED: dict[str, str] = {
    "IfThenElse": "a selector of [sequence [condition, then-branch], else-branch]",
    "WhileDoElse": "a reactive selector of [reactive sequence [condition, do-branch], else-branch]",
    "Switch2": "a selector of sequences, each starting with the condition of its case",
    "Precondition": "a sequence of [condition, child] (or eternal_guard to re-check it every tick)",
    "RunOnce": "oneshot (it latches on success only; a failure is run again)",
    "TryCatch": "a selector of [try-branch, catch-branch]",
    "Script": "an initial blackboard value, or a capability that writes the key",
    "ScriptCondition": "a condition check",
    "UnsetBlackboard": "a capability that writes the key",
    "WasEntryUpdated": "a condition check",
    "SkipUnlessUpdated": "a sequence guarded by a condition check",
    "WaitValueUpdate": "a condition check in a retry",
    "LoopInt": "repeat with a count", "LoopDouble": "repeat with a count", "LoopBool": "repeat with a count",
    "LoopString": "repeat with a count",
    "SetBlackboard": "an initial blackboard value (only SetBlackboard at the start of the main tree imports)",
    "SubTreePlus": "SubTree with port remapping",
}
for _n in range(3, 7):
    UNSUPPORTED[f"Switch{_n}"] = UNSUPPORTED["Switch2"]
CONTROLS = {"Sequence": True, "SequenceWithMemory": True, "AsyncSequence": True, "ReactiveSequence": False}
FALLBACKS = {"Fallback": True, "AsyncFallback": True, "ReactiveFallback": False}
PRE_POST_ADVICE = {
    "_while": "eternal_guard with a condition check",
    "_skipIf": "a selector of [condition, node] (the condition's success skips the node)",
    "_successIf": "a selector of [condition, node]",
    "_failureIf": "a sequence of [inverter of the condition, node]",
}
KNOWN_CONTROLS = "Sequence, ReactiveSequence, Fallback, ReactiveFallback, Parallel, ParallelAll"
KNOWN_DECORATORS = ", ".join((*TAG_DECORATORS, "KeepRunningUntilFailure", "Delay"))
#: attributes BT.CPP or Groot2 attach that carry no behaviour
IGNORED_ATTRS = ("_description", "_uid", "_fullpath", "_autoremap")


@dataclass
class Imported:
    definition: m.TreeDefinition
    smap: SourceMap


class _Doc:
    """The parsed document: elements, their (line, col), and the metadata comment before each tree."""

    def __init__(self, text: str, file: str | None) -> None:
        self.positions: dict[ET.Element, tuple[int, int]] = {}
        builder = ET.TreeBuilder(insert_comments=True)
        parser = expat.ParserCreate()
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

        def start(tag: str, attrs: dict[str, str]) -> None:
            self.positions[builder.start(tag, attrs)] = (parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)

        parser.StartElementHandler = start
        parser.EndElementHandler = builder.end
        parser.CommentHandler = builder.comment
        try:
            parser.Parse(text, True)
            self.root: ET.Element = builder.close()
        except expat.ExpatError as err:
            raise CraftbtError.single(ErrorCode.PARSE_ERROR, f"invalid XML: {expat.ErrorString(err.code)}",
                                      location=Location(file, err.lineno, err.offset + 1)) from None
        except (ValueError, RecursionError) as err:
            raise CraftbtError.single(ErrorCode.PARSE_ERROR, f"invalid XML: {err}",
                                      location=Location(file, 1, 1)) from None
        self.trees: dict[str, ET.Element] = {}
        self.meta: dict[str, dict[str, Any]] = {}
        pending: dict[str, Any] | None = None
        for child in self.root:
            if not isinstance(child.tag, str):  # a comment (its tag is the ET.Comment factory)
                pending = read_meta_comment(child.text or "")
            elif child.tag == "BehaviorTree":
                ident = child.get("ID", "")
                self.trees.setdefault(ident, child)
                if pending is not None:
                    self.meta[ident] = pending
                pending = None


def elements(el: ET.Element) -> list[ET.Element]:
    """Child elements, without comments."""
    return [c for c in el if isinstance(c.tag, str)]


class _Importer:
    def __init__(self, doc: _Doc, file: str | None, registry: Registry | None) -> None:
        self.doc = doc
        self.file = file
        self.registry = registry
        self.smap = SourceMap(file=file)
        self.problems: list[Problem] = []
        self.kinds: dict[str, str] = {}
        for models in doc.root.findall("TreeNodesModel"):
            for el in elements(models):
                if el.get("ID"):
                    self.kinds[el.get("ID", "")] = el.tag
        self.inlining: list[str] = []

    # -- problems -----------------------------------------------------------------
    def loc(self, el: ET.Element, path: DocPath = ()) -> Location:
        from craftbt.trees.source import format_path

        line, col = self.doc.positions.get(el, (None, None))
        return Location(self.file, line, col, format_path(path))

    def fail(self, el: ET.Element, path: DocPath, message: str, *, expected: str | None = None,
             code: ErrorCode = ErrorCode.CONVERSION_ERROR) -> m.Node:
        self.problems.append(Problem(code, message, self.loc(el, path), expected))
        return placeholder()

    def at(self, el: ET.Element, path: DocPath) -> None:
        if el in self.doc.positions:
            self.smap.positions.setdefault(path, self.doc.positions[el])

    # -- nodes --------------------------------------------------------------------
    def node(self, el: ET.Element, path: DocPath) -> m.Node:
        self.at(el, path)
        for attr in el.attrib:
            if attr in PRE_POST:
                advice = PRE_POST_ADVICE.get(attr, "a sequence with the effect as a capability after the node")
                return self.fail(el, path, f"<{el.tag}> {attr}=\"{el.get(attr)}\" is a BT.CPP script condition, "
                                           "which craftbt cannot evaluate", expected=advice)
        tag = el.tag
        name = el.get("name")
        if tag in CONTROLS:
            return m.SequenceNode(name=name, memory=CONTROLS[tag], children=self.children(el, (*path, "sequence")))
        if tag in FALLBACKS:
            return m.SelectorNode(name=name, memory=FALLBACKS[tag], children=self.children(el, (*path, "selector")))
        if tag in ("Parallel", "ParallelAll"):
            return self.parallel(el, path)
        if tag in TAG_DECORATORS:
            return self.decorator(el, TAG_DECORATORS[tag], path)
        if tag == "KeepRunningUntilFailure":  # RUNNING on success, FAILURE on failure: repeat forever
            child = self.only_child(el, (*path, "repeat"))
            return m.DecoratorNode(name=name, decorator=m.DecoratorKind.REPEAT, params={"count": -1}, child=child)
        if tag == "Delay":
            return self.delay(el, path)
        if tag in ("AlwaysSuccess", "AlwaysFailure", "Sleep"):
            return self.builtin_leaf(el, path)
        if tag == "SubTree":
            return self.subtree(el, path)
        if tag in UNSUPPORTED:
            return self.fail(el, path, f"BT.CPP's <{tag}> has no craftbt equivalent", expected=UNSUPPORTED[tag])
        if tag in ("Action", "Condition"):
            ident = el.get("ID")
            if not ident:
                return self.fail(el, path, f"<{tag}> has no ID", expected=f'<{tag} ID="name" .../>')
            return self.leaf(el, ident, path) if tag == "Action" else self.condition(el, ident, path)
        if tag in ("Control", "Decorator"):
            return self.unknown_inner(el, el.get("ID") or tag, path)
        # the compact form: <craft_recipe .../>
        kind = self.kinds.get(tag)
        if kind is None and self.registry is not None:
            try:
                self.registry.get_check(tag)
                kind = "Condition"
            except CraftbtError:
                kind = None
        if kind in ("Control", "Decorator") or elements(el):
            return self.unknown_inner(el, tag, path)
        if kind == "Condition":
            return self.condition(el, tag, path)
        return self.leaf(el, tag, path)

    def unknown_inner(self, el: ET.Element, ident: str, path: DocPath) -> m.Node:
        count = len(elements(el))
        if count == 1 or self.kinds.get(ident) == "Decorator":
            return self.fail(el, path, f"unknown decorator <{ident}> (custom to the application that wrote it)",
                             expected=f"a craftbt decorator (BT.CPP: {KNOWN_DECORATORS})")
        return self.fail(el, path, f"unknown control node <{ident}> with {count} children "
                                   "(custom to the application that wrote it)",
                         expected=f"sequence, selector or parallel (BT.CPP: {KNOWN_CONTROLS})")

    def children(self, el: ET.Element, path: DocPath) -> list[m.Node]:
        kids = elements(el)
        if not kids:
            self.fail(el, path, f"<{el.tag}> has no children", expected="at least one child node")
        return [self.node(c, (*path, "children", i)) for i, c in enumerate(kids)]

    def only_child(self, el: ET.Element, path: DocPath) -> m.Node:
        kids = elements(el)
        if len(kids) != 1:
            return self.fail(el, path, f"<{el.tag}> must have exactly one child, has {len(kids)}")
        return self.node(kids[0], (*path, "child"))

    def integer(self, el: ET.Element, attr: str, path: DocPath, default: str | None = None) -> int | None:
        raw = el.get(attr, default)
        if raw is None:
            self.fail(el, path, f"<{el.tag}> needs {attr}", expected=f'{attr}="N"')
            return None
        try:
            return int(raw)
        except ValueError:
            hint = " (a {key} reference is resolved at run time, which craftbt does not do here)" \
                if raw.startswith("{") else ""
            self.fail(el, path, f"<{el.tag}> {attr}={raw!r} is not an integer{hint}", expected=f'{attr}="N"')
            return None

    def parallel(self, el: ET.Element, path: DocPath) -> m.Node:
        kids = self.children(el, (*path, "parallel"))
        if el.tag == "ParallelAll":
            failure = self.integer(el, "max_failures", path, "1")
            success = -1
        else:
            success_ = self.integer(el, "success_count", path, "-1")
            failure = self.integer(el, "failure_count", path, "1")
            if success_ is None:
                return placeholder()
            success = success_
        if failure is None:
            return placeholder()
        if failure != 1:
            attr = "max_failures" if el.tag == "ParallelAll" else "failure_count"
            return self.fail(el, path, f"{el.tag} {attr}={failure} has no equivalent",
                             expected=f"{attr} 1 (py_trees fails a parallel on the first failure)")
        if success == 1 and len(kids) > 1:
            policy = m.ParallelPolicy.SUCCESS_ON_ONE
        elif success in (-1, len(kids)) or len(kids) == 1:
            policy = m.ParallelPolicy.SUCCESS_ON_ALL
        else:
            return self.fail(el, path, f"Parallel success_count={success} has no equivalent",
                             expected="-1 (all) or 1 (one)")
        return m.ParallelNode(name=el.get("name"), policy=policy, children=kids)

    def decorator(self, el: ET.Element, kind: m.DecoratorKind, path: DocPath) -> m.Node:
        kpath = (*path, kind.value)
        self.at(el, kpath)
        params: dict[str, Any] = {}
        if kind is m.DecoratorKind.ETERNAL_GUARD:
            check = el.get("check")
            if not check:
                return self.fail(el, path, "<EternalGuard> needs a check attribute", expected='check="has_item"')
            args = {k: decode_value(v) for k, v in el.attrib.items() if k not in ("check", *RESERVED, *IGNORED_ATTRS)}
            params["condition"] = {"check": check, "args": args}
        for port, param in PORT_PARAMS.items():
            if param in m.DECORATOR_PARAMS[kind]:
                value = self.integer(el, port, kpath)
                if value is None:
                    return placeholder()
                params[param] = value
        child = self.only_child(el, kpath)
        return m.DecoratorNode(name=el.get("name"), decorator=kind, params=params, child=child)

    def delay(self, el: ET.Element, path: DocPath) -> m.Node:
        ms = self.integer(el, "delay_msec", path)
        child = self.only_child(el, (*path, "sequence", "children", 1))
        if ms is None:
            return placeholder()
        wait = m.LeafNode(capability="wait", args={"ms": ms}, name=el.get("name"))
        return m.SequenceNode(name=f"Delay {ms} ms", memory=True, children=[wait, child])

    def builtin_leaf(self, el: ET.Element, path: DocPath) -> m.Node:
        if elements(el):
            return self.fail(el, path, f"<{el.tag}> cannot have children")
        if el.tag == "Sleep":
            ms = self.integer(el, "msec", path)
            return placeholder() if ms is None else m.LeafNode(capability="wait", args={"ms": ms}, name=el.get("name"))
        wait = m.LeafNode(capability="wait", args={"ms": 0}, name=el.get("name"))
        if el.tag == "AlwaysSuccess":
            return wait
        return m.DecoratorNode(decorator=m.DecoratorKind.SUCCESS_IS_FAILURE, child=wait)

    def _unknown(self, el: ET.Element, ident: str, path: DocPath, *, check: bool) -> m.Node | None:
        """A node of the application that wrote the file: not a capability or check of ours."""
        if self.registry is None:
            return None
        names = sorted({c.name for c in (self.registry.checks() if check else self.registry.list())})
        if ident.split("@")[0] in names:
            return None
        if not check:  # a compact node may be a check the TreeNodesModel did not declare
            try:
                self.registry.get_check(ident)
                return None
            except CraftbtError:
                pass
        what = "check" if check else "capability or check"
        names = names if check else sorted({*names, *(c.name for c in self.registry.checks())})
        code = ErrorCode.UNKNOWN_CHECK if check else ErrorCode.UNKNOWN_CAPABILITY
        self.problems.append(Problem(
            code, f"<{ident}> is not a craftbt {what} (a node of the application that wrote the file)",
            self.loc(el, path), expected=f"a registered {what} (`craftbt capabilities`)",
            suggestion=close_match(ident.lower(), names)))
        return placeholder()

    def _attrs(self, el: ET.Element, drop: tuple[str, ...] = ()) -> dict[str, str]:
        return {k: v for k, v in el.attrib.items() if k not in (*RESERVED, *IGNORED_ATTRS, *drop)}

    def leaf(self, el: ET.Element, ident: str, path: DocPath) -> m.Node:
        self.at(el, (*path, "leaf"))
        if elements(el):
            return self.fail(el, path, f"<{ident}> is a leaf here and cannot have children")
        unknown = self._unknown(el, ident, path, check=False)
        if unknown is not None:
            return unknown
        attrs = self._attrs(el)
        meta = {k: attrs.pop(k) for k in LEAF_META if k in attrs}
        ref = f"{ident}@{meta['version']}" if "version" in meta else ident
        fields: dict[str, Any] = {"capability": ref, "name": el.get("name"),
                                  "args": {k: decode_value(v) for k, v in attrs.items()}}
        for key in ("retry", "timeout_ms"):
            if key in meta:
                value = self.integer(el, key, path)
                if value is None:
                    return placeholder()
                fields[key] = value
        if "idempotency_key" in meta:
            fields["idempotency_key"] = str(decode_value(meta["idempotency_key"]))
        if "args_source" in meta:
            fields["args_source"] = meta["args_source"]
        return self._make(el, m.LeafNode, fields, path)

    def condition(self, el: ET.Element, ident: str, path: DocPath) -> m.Node:
        self.at(el, (*path, "condition"))
        if elements(el):
            return self.fail(el, path, f"condition <{ident}> cannot have children")
        unknown = self._unknown(el, ident, path, check=True)
        if unknown is not None:
            return unknown
        args = {k: decode_value(v) for k, v in self._attrs(el).items()}
        return self._make(el, m.ConditionNode, {"check": ident, "args": args, "name": el.get("name")}, path)

    def subtree(self, el: ET.Element, path: DocPath) -> m.Node:
        ident = el.get("ID")
        if not ident:
            return self.fail(el, path, "<SubTree> has no ID", expected='<SubTree ID="TreeName"/>')
        remap: dict[str, str] = {}
        for key, value in self._attrs(el).items():
            if not (value.startswith("{") and value.endswith("}") and len(value) > 2):
                return self.fail(el, path, f"<SubTree {ident}> port {key}={value!r} is a literal value, "
                                           "which a craftbt subtree cannot take",
                                 expected="inner_key=\"{outer_key}\" (put the value in the caller's blackboard)")
            remap[key] = value[1:-1]
        file_path = subtree_path_of(ident)
        if file_path is not None:
            return m.SubtreeNode(name=el.get("name"), path=file_path, remap=remap)
        bt = self.doc.trees.get(ident)
        if bt is None:
            return self.fail(el, path, f"<SubTree> names {ident!r}, which is neither a file nor a BehaviorTree here",
                             expected="a BehaviorTree of this document (an <include> is not followed)")
        if ident in self.inlining:
            return self.fail(el, path, "subtree cycle: " + " -> ".join([*self.inlining, ident]),
                             code=ErrorCode.SUBTREE_CYCLE)
        kids = elements(bt)
        if len(kids) != 1:
            return self.fail(bt, path, f"<BehaviorTree ID={ident!r}> must have exactly one child, has {len(kids)}")
        self.inlining.append(ident)
        try:  # the subtree's root stands where the SubTree element stood
            inner = self.node(kids[0], path)
        finally:
            self.inlining.pop()
        return _rename_node(inner, remap)

    def _make(self, el: ET.Element, model: type[Any], fields: dict[str, Any], path: DocPath) -> m.Node:
        from pydantic import ValidationError

        try:
            node: m.Node = model(**fields)
        except ValidationError as err:
            first = err.errors()[0]
            return self.fail(el, path, f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
        return node

    # -- the main tree ---------------------------------------------------------------
    def main(self, bt: ET.Element, ident: str) -> tuple[m.Node, dict[str, Any]]:
        """The root node and the initial blackboard: leading SetBlackboard nodes of the root sequence."""
        kids = elements(bt)
        if len(kids) != 1:
            return self.fail(bt, ("root",), f"<BehaviorTree ID={ident!r}> must have exactly one child, "
                                            f"has {len(kids)}"), {}
        top = kids[0]
        board: dict[str, Any] = {}
        if top.tag in ("Sequence", "SequenceWithMemory") and not set(top.attrib) - {"name"}:
            rest = elements(top)
            while rest and rest[0].tag == "SetBlackboard" and rest[0].get("output_key") and len(rest) > 1:
                value = rest[0].get("value", "")
                key = rest[0].get("output_key", "")
                if value.startswith("{"):  # a copy from another key is not an initial value
                    break
                board[key] = decode_value(value)
                rest = rest[1:]
            if board:
                self.at(top, ("root",))
                if top.get("name") == INIT_NAME and len(rest) == 1:
                    return self.node(rest[0], ("root",)), board
                return m.SequenceNode(name=top.get("name"), memory=True,
                                      children=[self.node(c, ("root", "sequence", "children", i))
                                                for i, c in enumerate(rest)]), board
        return self.node(top, ("root",)), board


def _rename_node(node: m.Node, rename: dict[str, str]) -> m.Node:
    if not rename:
        return node
    if isinstance(node, m.LeafNode | m.ConditionNode):
        return node.model_copy(update={"args": rename_references(node.args, rename)})
    if isinstance(node, m.SequenceNode | m.SelectorNode | m.ParallelNode):
        return node.model_copy(update={"children": [_rename_node(c, rename) for c in node.children]})
    if isinstance(node, m.DecoratorNode):
        return node.model_copy(update={"child": _rename_node(node.child, rename),
                                       "params": rename_references(node.params, rename)})
    return node.model_copy(update={"remap": {k: rename.get(v, v) for k, v in node.remap.items()}})


_SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _slug(text: str) -> str:
    out = "".join(ch if ch in _SLUG_CHARS else "_" for ch in text.lower()).strip("_")
    return out or "imported"


def import_xml(text: str, *, file: str | None = None, registry: Registry | None = None) -> Imported:
    """Parse, convert and run the YAML loader's structural checks. Raises CraftbtError with every problem."""
    doc = _Doc(text, file)
    top = Location(file, *doc.positions.get(doc.root, (1, 1)))

    def refuse(message: str, expected: str | None = None) -> CraftbtError:
        return CraftbtError.single(ErrorCode.CONVERSION_ERROR, message, location=top, expected=expected)

    if doc.root.tag != "root":
        raise refuse(f"the document element is <{doc.root.tag}>", '<root BTCPP_format="4">')
    if doc.root.get("BTCPP_format", FORMAT) != FORMAT:
        raise refuse(f"BTCPP_format {doc.root.get('BTCPP_format')!r} is not supported", "4")
    if not doc.trees:
        raise refuse("no <BehaviorTree> in the document", "at least one <BehaviorTree ID=...>")
    main_id = doc.root.get("main_tree_to_execute") or next(iter(doc.trees))
    bt = doc.trees.get(main_id)
    if bt is None:
        raise refuse(f"main_tree_to_execute {main_id!r} names no BehaviorTree", ", ".join(doc.trees))
    importer = _Importer(doc, file, registry)
    importer.inlining.append(main_id)
    importer.smap.positions[()] = doc.positions[bt]
    try:
        root, board = importer.main(bt, main_id)
    except RecursionError:
        raise refuse("tree nested too deeply") from None
    meta = doc.meta.get(main_id, {})
    blackboard = meta.get("blackboard") if isinstance(meta.get("blackboard"), dict) else board
    description = str(meta.get("description") or "")
    tree_name = main_id if NAME_PATTERN.match(main_id) else _slug(main_id)
    try:
        definition = m.TreeDefinition(tree=tree_name, description=description, blackboard=blackboard or {},
                                      root=root, source=file)
    except Exception as err:  # pydantic: a name or value the model refuses
        raise refuse(f"cannot build a definition: {err}") from None
    # the YAML loader's structural checks (empty composites, decorator ranges, names), at the element;
    # a node refused above is a placeholder here, so the rest of the tree is still checked
    checked = decode(to_data(definition), importer.smap)
    structural = [p for p in checked.problems if p.location.line is not None
                  and not any((p.location.line, p.location.column) == (q.location.line, q.location.column)
                              for q in importer.problems)]
    if importer.problems or structural:
        raise CraftbtError(sorted([*importer.problems, *structural],
                                  key=lambda p: (p.location.line or 0, p.location.column or 0)))
    return Imported(definition, importer.smap)


def from_xml(text: str, *, file: str | None = None, registry: Registry | None = None) -> m.TreeDefinition:
    """BT.CPP v4 XML -> definition. Raises CraftbtError; every problem carries FILE:LINE:COL."""
    return import_xml(text, file=file, registry=registry).definition
