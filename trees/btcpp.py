"""BehaviorTree.CPP v4 XML import and export, so Groot2 can open and edit our trees.

py_trees 2.6 ships an experimental BT.CPP parser (``py_trees.parsers``); it
instantiates port-based py_trees behaviours from XML and has no export, so it
does not fit capability leaves. We keep its conventions (``{key}`` blackboard
references, ``<SubTree ID=.. inner="{outer}"/>`` remapping) and map the
definition model directly, with the stdlib parser (expat, which refuses
external entities and limits entity expansion).

Mapping (export writes the left column; import also accepts the alternatives):

============================  ===================================================
definition                    BT.CPP v4
============================  ===================================================
sequence memory=true          ``Sequence`` (import: also ``SequenceWithMemory``)
sequence memory=false         ``ReactiveSequence``
selector memory=false         ``ReactiveFallback``
selector memory=true          ``Fallback``
parallel success_on_all/one   ``Parallel success_count="-1"/"1" failure_count="1"``
inverter                      ``Inverter``
retry attempts=N              ``RetryUntilSuccessful num_attempts="N"``
timeout duration_ms=N         ``Timeout msec="N"``
repeat count=N                ``Repeat num_cycles="N"``
failure_is_success            ``ForceSuccess`` (same statuses)
success_is_failure            ``ForceFailure`` (same statuses)
oneshot                       ``OneShot`` (custom decorator, declared in the model)
eternal_guard                 ``EternalGuard check=.. <check args>`` (custom decorator)
leaf                          ``Action ID="<capability>"`` with each arg an attribute
condition                     ``Condition ID="<check>"`` with each arg an attribute
subtree                       ``SubTree ID="<path>" <inner>="{<outer>}"``
============================  ===================================================

A leaf's ``@version`` pin, ``retry``, ``timeout_ms``, ``idempotency_key`` and
``args_source`` are the extra ports ``version``, ``retry``, ``timeout_ms``,
``idempotency_key`` and ``args_source``. Attribute values are the text of a
string, or JSON for anything else (and for a string that would read as
JSON), so ``"{tool}"`` stays a blackboard reference and ``12`` stays an int.
The tree's description is ``_description`` on its ``BehaviorTree``; initial
blackboard values are ``<Blackboard tree=..><Entry key=.. value=../></Blackboard>``
beside it. Export appends each subtree file it can resolve as a further
``BehaviorTree`` whose ID is the path, so Groot2 shows it; import turns a
``SubTree`` whose ID is a file path back into a ``subtree`` node, and inlines
a ``SubTree`` that names a ``BehaviorTree`` of the same document. Compact
nodes (``<craft_recipe .../>``) are read as conditions when the document's
``TreeNodesModel`` or the registry says so, else as actions.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.parsers import expat

from craftbt.capabilities.registry import Registry, split_ref
from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.trees import model as m
from craftbt.trees.build import rename_references
from craftbt.trees.loader import NAME_PATTERN, load_path
from craftbt.trees.validate import resolve_subtree_path

FORMAT = "4"
LEAF_META = ("version", "retry", "timeout_ms", "idempotency_key", "args_source")
RESERVED = ("ID", "name")
SUBTREE_SUFFIXES = (".yaml", ".yml", ".json", ".xml")

_DECORATOR_TAGS: dict[m.DecoratorKind, str] = {
    m.DecoratorKind.INVERTER: "Inverter",
    m.DecoratorKind.RETRY: "RetryUntilSuccessful",
    m.DecoratorKind.TIMEOUT: "Timeout",
    m.DecoratorKind.REPEAT: "Repeat",
    m.DecoratorKind.FAILURE_IS_SUCCESS: "ForceSuccess",
    m.DecoratorKind.SUCCESS_IS_FAILURE: "ForceFailure",
    m.DecoratorKind.ONESHOT: "OneShot",
    m.DecoratorKind.ETERNAL_GUARD: "EternalGuard",
}
_TAG_DECORATORS = {tag: kind for kind, tag in _DECORATOR_TAGS.items()}
#: decorator parameter <-> BT.CPP port
_PARAM_PORTS = {"attempts": "num_attempts", "duration_ms": "msec", "count": "num_cycles"}
_PORT_PARAMS = {port: param for param, port in _PARAM_PORTS.items()}
_CUSTOM_DECORATORS = ("OneShot", "EternalGuard")


def _conversion(message: str, path: str = "", *, expected: str | None = None) -> CraftbtError:
    return CraftbtError.single(ErrorCode.CONVERSION_ERROR, message, location=Location(path=path), expected=expected)


# -- values --------------------------------------------------------------------------
_XML_FORBIDDEN = frozenset(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") | {"\ufffe", "\uffff"}


def xml_text_ok(text: str) -> bool:
    """Whether XML 1.0 can carry this text at all (ElementTree escapes tab and newlines)."""
    return not any(ch in _XML_FORBIDDEN or "\ud800" <= ch <= "\udfff" for ch in text)


def _plain_attr(value: str, what: str, path: str) -> str:
    if not xml_text_ok(value):
        raise _conversion(f"{what} {value!r} has characters XML cannot carry", path,
                          expected="no control characters other than tab and newline")
    return value


def _xml_safe(text: str) -> bool:
    return all(ch >= " " and not ("\ud800" <= ch <= "\udfff") and ch not in "\ufffe\uffff" for ch in text)


def encode_value(value: Any) -> str:
    """A string as itself unless it would read back as JSON or is not XML-safe; else JSON."""
    if isinstance(value, str) and _xml_safe(value):
        try:
            json.loads(value)
        except ValueError:
            return value
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return text if _xml_safe(text) else json.dumps(value, ensure_ascii=True, allow_nan=False)


def decode_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- export ------------------------------------------------------------------------------
class _Exporter:
    def __init__(self, registry: Registry | None) -> None:
        self.registry = registry
        #: (tag, ID) -> port names
        self.models: dict[tuple[str, str], set[str]] = {}

    def model(self, tag: str, ident: str, ports: list[str]) -> None:
        self.models.setdefault((tag, ident), set()).update(ports)

    def node(self, node: m.Node, path: str) -> ET.Element:
        if isinstance(node, m.SequenceNode | m.SelectorNode | m.ParallelNode):
            if isinstance(node, m.SequenceNode):
                tag = "Sequence" if node.memory else "ReactiveSequence"
                el = ET.Element(tag)
            elif isinstance(node, m.SelectorNode):
                el = ET.Element("Fallback" if node.memory else "ReactiveFallback")
            else:
                el = ET.Element("Parallel")
                one = node.policy is m.ParallelPolicy.SUCCESS_ON_ONE
                el.set("success_count", "1" if one else "-1")
                el.set("failure_count", "1")
            self._name(el, node.name)
            for i, child in enumerate(node.children):
                el.append(self.node(child, f"{path}.{node.kind}.children[{i}]"))
            return el
        if isinstance(node, m.DecoratorNode):
            tag = _DECORATOR_TAGS[node.decorator]
            el = ET.Element(tag)
            self._name(el, node.name)
            if node.decorator is m.DecoratorKind.ETERNAL_GUARD:
                cond = node.params["condition"]
                el.set("check", cond["check"])
                self._args(el, cond.get("args") or {}, ("check", *RESERVED), f"{path}.eternal_guard.condition")
                self.model("Decorator", tag, ["check", *(cond.get("args") or {})])
            else:
                for param, value in node.params.items():
                    el.set(_PARAM_PORTS[param], str(value))
                if tag in _CUSTOM_DECORATORS:
                    self.model("Decorator", tag, [])
            el.append(self.node(node.child, f"{path}.{node.decorator.value}.child"))
            return el
        if isinstance(node, m.LeafNode):
            name, pin = split_ref(node.capability)
            el = ET.Element("Action", {"ID": name})
            self._name(el, node.name)
            self._args(el, node.args, (*LEAF_META, *RESERVED), f"{path}.args")
            meta: dict[str, Any] = {
                "version": pin, "retry": node.retry, "timeout_ms": node.timeout_ms,
                "idempotency_key": node.idempotency_key,
                "args_source": None if node.args_source == "explicit" else node.args_source,
            }
            used = [k for k, v in meta.items() if v is not None]
            for key in used:
                el.set(key, encode_value(meta[key]) if key == "idempotency_key" else str(meta[key]))
            self.model("Action", name, [*self._declared_ports(name, node.args), *used])
            return el
        if isinstance(node, m.ConditionNode):
            el = ET.Element("Condition", {"ID": node.check})
            self._name(el, node.name)
            self._args(el, node.args, RESERVED, f"{path}.condition.args")
            self.model("Condition", node.check, self._declared_ports(node.check, node.args, check=True))
            return el
        el = ET.Element("SubTree", {"ID": node.path})
        self._name(el, node.name)
        for inner, outer in node.remap.items():
            if inner in RESERVED or inner.startswith("_"):
                raise _conversion(f"remapped key {inner!r} is reserved in BT.CPP", f"{path}.remap.{inner}")
            el.set(inner, "{" + outer + "}")
        return el

    @staticmethod
    def _name(el: ET.Element, name: str | None) -> None:
        if name is not None:
            el.set("name", _plain_attr(name, "node name", ""))

    @staticmethod
    def _args(el: ET.Element, args: dict[str, Any], reserved: tuple[str, ...], path: str) -> None:
        for key, value in args.items():
            if key in reserved or key.startswith("_"):
                raise _conversion(f"argument {key!r} clashes with a reserved BT.CPP port", f"{path}.{key}",
                                  expected="argument names other than " + ", ".join(reserved))
            el.set(key, encode_value(value))

    def _declared_ports(self, ident: str, args: dict[str, Any], *, check: bool = False) -> list[str]:
        ports = list(args)
        if self.registry is not None:
            try:
                model = self.registry.get_check(ident).args_model if check else self.registry.get(ident).args_model
            except CraftbtError:
                return ports
            ports.extend(model.model_fields)
        return ports


def _tree_elements(definition: m.TreeDefinition, ident: str, exporter: _Exporter) -> list[ET.Element]:
    bt = ET.Element("BehaviorTree", {"ID": ident})
    if definition.description:
        bt.set("_description", _plain_attr(definition.description, "description", "description"))
    bt.append(exporter.node(definition.root, "root"))
    out = [bt]
    if definition.blackboard:
        board = ET.Element("Blackboard", {"tree": ident})
        for key, value in definition.blackboard.items():
            ET.SubElement(board, "Entry", {"key": _plain_attr(key, "blackboard key", "blackboard"),
                                           "value": encode_value(value)})
        out.append(board)
    return out


def _subtree_paths(node: m.Node) -> list[str]:
    if isinstance(node, m.SubtreeNode):
        return [node.path]
    if isinstance(node, m.SequenceNode | m.SelectorNode | m.ParallelNode):
        return [p for c in node.children for p in _subtree_paths(c)]
    if isinstance(node, m.DecoratorNode):
        return _subtree_paths(node.child)
    return []


def to_xml(
    definition: m.TreeDefinition, *, registry: Registry | None = None, base_dir: Path | None = None,
    include_subtrees: bool = True,
) -> str:
    """Definition -> BT.CPP v4 XML text (Groot2-compatible). Raises CraftbtError (conversion_error)."""
    exporter = _Exporter(registry)
    root = ET.Element("root", {"BTCPP_format": FORMAT, "main_tree_to_execute": definition.tree})
    for el in _tree_elements(definition, definition.tree, exporter):
        root.append(el)
    if include_subtrees:
        if base_dir is None and definition.source:
            base_dir = Path(definition.source).resolve().parent
        pending = [(p, base_dir) for p in _subtree_paths(definition.root)]
        done: set[str] = set()
        while pending:
            path, where = pending.pop(0)
            resolved = resolve_subtree_path(path, where)
            if path in done or resolved is None:
                continue
            done.add(path)
            loaded = load_path(resolved)
            if loaded.definition is None:
                continue
            for el in _tree_elements(loaded.definition, path, exporter):
                root.append(el)
            pending.extend((p, resolved.parent) for p in _subtree_paths(loaded.definition.root))
    models = ET.SubElement(root, "TreeNodesModel")
    for (tag, ident), ports in sorted(exporter.models.items()):
        el = ET.SubElement(models, tag, {"ID": ident})
        for port in sorted(ports):
            ET.SubElement(el, "input_port", {"name": port})
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- import ------------------------------------------------------------------------------
class _Importer:
    def __init__(self, doc: ET.Element, registry: Registry | None) -> None:
        self.trees = {bt.get("ID", ""): bt for bt in doc.findall("BehaviorTree")}
        self.registry = registry
        self.kinds: dict[str, str] = {}
        for models in doc.findall("TreeNodesModel"):
            for el in models:
                if el.get("ID"):
                    self.kinds[el.get("ID", "")] = el.tag
        self.inlining: list[str] = []

    def children(self, el: ET.Element, path: str) -> list[m.Node]:
        return [self.node(c, f"{path}.children[{i}]") for i, c in enumerate(el)]

    def only_child(self, el: ET.Element, path: str) -> m.Node:
        kids = list(el)
        if len(kids) != 1:
            raise _conversion(f"<{el.tag}> must have exactly one child, has {len(kids)}", path)
        return self.node(kids[0], f"{path}.child")

    def node(self, el: ET.Element, path: str) -> m.Node:
        tag = el.tag
        name = el.get("name")
        if tag in ("Sequence", "SequenceWithMemory", "ReactiveSequence"):
            kids = self.children(el, f"{path}.sequence")
            return m.SequenceNode(name=name, memory=tag != "ReactiveSequence", children=kids)
        if tag in ("Fallback", "ReactiveFallback"):
            return m.SelectorNode(name=name, memory=tag == "Fallback", children=self.children(el, f"{path}.selector"))
        if tag == "Parallel":
            return self.parallel(el, path)
        if tag in _TAG_DECORATORS:
            return self.decorator(el, _TAG_DECORATORS[tag], path)
        if tag == "SubTree":
            return self.subtree(el, path)
        if tag in ("Action", "Condition"):
            ident = el.get("ID")
            if not ident:
                raise _conversion(f"<{tag}> has no ID", path)
            return self.leaf(el, ident, path) if tag == "Action" else self.condition(el, ident, path)
        # the compact form: <craft_recipe .../>
        kind = self.kinds.get(tag)
        if kind is None and self.registry is not None:
            try:
                self.registry.get_check(tag)
                kind = "Condition"
            except CraftbtError:
                kind = None
        if kind == "Condition":
            return self.condition(el, tag, path)
        if kind in (None, "Action"):
            return self.leaf(el, tag, path)
        raise _conversion(f"unsupported BT.CPP node <{tag}>", path)

    def parallel(self, el: ET.Element, path: str) -> m.Node:
        kids = self.children(el, f"{path}.parallel")
        try:
            success = int(el.get("success_count", "-1"))
            failure = int(el.get("failure_count", "1"))
        except ValueError:
            raise _conversion("Parallel success_count/failure_count must be integers", path) from None
        if failure != 1:
            raise _conversion(f"Parallel failure_count={failure} has no equivalent", path,
                              expected="failure_count 1 (py_trees fails a parallel on the first failure)")
        if success == 1 and len(kids) > 1:
            policy = m.ParallelPolicy.SUCCESS_ON_ONE
        elif success in (-1, len(kids)) or len(kids) == 1:
            policy = m.ParallelPolicy.SUCCESS_ON_ALL
        else:
            raise _conversion(f"Parallel success_count={success} has no equivalent", path,
                              expected="-1 (all) or 1 (one)")
        return m.ParallelNode(name=el.get("name"), policy=policy, children=kids)

    def decorator(self, el: ET.Element, kind: m.DecoratorKind, path: str) -> m.Node:
        params: dict[str, Any] = {}
        if kind is m.DecoratorKind.ETERNAL_GUARD:
            check = el.get("check")
            if not check:
                raise _conversion("<EternalGuard> needs a check attribute", path)
            args = {k: decode_value(v) for k, v in el.attrib.items() if k not in ("check", *RESERVED)}
            params["condition"] = {"check": check, "args": args}
        for port, param in _PORT_PARAMS.items():
            if param in m.DECORATOR_PARAMS[kind]:
                raw = el.get(port)
                if raw is None:
                    raise _conversion(f"<{el.tag}> needs {port}", path)
                try:
                    params[param] = int(raw)
                except ValueError:
                    raise _conversion(f"<{el.tag}> {port}={raw!r} is not an integer", path) from None
        child = self.only_child(el, f"{path}.{kind.value}")
        return m.DecoratorNode(name=el.get("name"), decorator=kind, params=params, child=child)

    def leaf(self, el: ET.Element, ident: str, path: str) -> m.Node:
        attrs = {k: v for k, v in el.attrib.items() if k not in RESERVED and not k.startswith("_")}
        meta = {k: attrs.pop(k) for k in LEAF_META if k in attrs}
        ref = f"{ident}@{meta['version']}" if "version" in meta else ident
        fields: dict[str, Any] = {"capability": ref, "name": el.get("name"),
                                  "args": {k: decode_value(v) for k, v in attrs.items()}}
        try:
            if "retry" in meta:
                fields["retry"] = int(meta["retry"])
            if "timeout_ms" in meta:
                fields["timeout_ms"] = int(meta["timeout_ms"])
        except ValueError:
            raise _conversion(f"<{ident}> retry/timeout_ms must be integers", path) from None
        if "idempotency_key" in meta:
            fields["idempotency_key"] = str(decode_value(meta["idempotency_key"]))
        if "args_source" in meta:
            fields["args_source"] = meta["args_source"]
        if list(el):
            raise _conversion(f"action <{ident}> cannot have children", path)
        return _make(m.LeafNode, fields, path)

    def condition(self, el: ET.Element, ident: str, path: str) -> m.Node:
        args = {k: decode_value(v) for k, v in el.attrib.items() if k not in RESERVED and not k.startswith("_")}
        return _make(m.ConditionNode, {"check": ident, "args": args, "name": el.get("name")}, path)

    def subtree(self, el: ET.Element, path: str) -> m.Node:
        ident = el.get("ID")
        if not ident:
            raise _conversion("<SubTree> has no ID", path)
        remap: dict[str, str] = {}
        for key, value in el.attrib.items():
            if key in RESERVED or key.startswith("_"):
                continue
            if not (value.startswith("{") and value.endswith("}") and len(value) > 2):
                raise _conversion(f"<SubTree {ident}> port {key}={value!r} is not a {{key}} remap", path,
                                  expected="inner_key=\"{outer_key}\"")
            remap[key] = value[1:-1]
        if ident.endswith(SUBTREE_SUFFIXES):
            return m.SubtreeNode(name=el.get("name"), path=ident, remap=remap)
        bt = self.trees.get(ident)
        if bt is None:
            raise _conversion(f"<SubTree> names {ident!r}, which is neither a file nor a BehaviorTree here", path)
        if ident in self.inlining:
            raise CraftbtError.single(ErrorCode.SUBTREE_CYCLE, "subtree cycle: " + " -> ".join([*self.inlining, ident]),
                                      location=Location(path=path))
        self.inlining.append(ident)
        try:
            inner = self.tree_root(bt, f"{path}.subtree")
        finally:
            self.inlining.pop()
        return _rename_node(inner, remap)

    def tree_root(self, bt: ET.Element, path: str) -> m.Node:
        return self.only_child(bt, path)


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


def _make(model: type[Any], fields: dict[str, Any], path: str) -> m.Node:
    from pydantic import ValidationError

    try:
        node: m.Node = model(**fields)
    except ValidationError as err:
        first = err.errors()[0]
        raise _conversion(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}", path) from None
    return node


def from_xml(text: str, *, file: str | None = None, registry: Registry | None = None) -> m.TreeDefinition:
    """BT.CPP v4 XML -> definition. Raises CraftbtError (parse_error / conversion_error)."""
    try:
        doc = ET.fromstring(text)
    except ET.ParseError as err:
        line, col = err.position
        reason = expat.ErrorString(err.code) if isinstance(err.code, int) else str(err)
        raise CraftbtError.single(ErrorCode.PARSE_ERROR, f"invalid XML: {reason}",
                                  location=Location(file, line, col + 1)) from None
    except (ValueError, RecursionError) as err:
        raise CraftbtError.single(ErrorCode.PARSE_ERROR, f"invalid XML: {err}", location=Location(file)) from None
    if doc.tag != "root":
        raise _conversion(f"the document element is <{doc.tag}>", expected="<root BTCPP_format=\"4\">")
    if doc.get("BTCPP_format", FORMAT) != FORMAT:
        raise _conversion(f"BTCPP_format {doc.get('BTCPP_format')!r} is not supported", expected="4")
    importer = _Importer(doc, registry)
    if not importer.trees:
        raise _conversion("no <BehaviorTree> in the document")
    main_id = doc.get("main_tree_to_execute") or next(iter(importer.trees))
    main = importer.trees.get(main_id)
    if main is None:
        raise _conversion(f"main_tree_to_execute {main_id!r} names no BehaviorTree")
    importer.inlining.append(main_id)
    try:
        root = importer.tree_root(main, "root")
    except RecursionError:
        raise _conversion("tree nested too deeply") from None
    blackboard: dict[str, Any] = {}
    for board in doc.findall("Blackboard"):
        if board.get("tree") == main_id:
            for entry in board.findall("Entry"):
                blackboard[entry.get("key", "")] = decode_value(entry.get("value", "null"))
    tree_name = main_id if NAME_PATTERN.match(main_id) else _slug(main_id)
    try:
        return m.TreeDefinition(tree=tree_name, description=main.get("_description", ""), blackboard=blackboard,
                                root=root, source=file)
    except Exception as err:  # pydantic: a name or value the model refuses
        raise _conversion(f"cannot build a definition: {err}") from None


_SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _slug(text: str) -> str:
    out = "".join(ch if ch in _SLUG_CHARS else "_" for ch in text.lower()).strip("_")
    return out or "imported"
