"""BehaviorTree.CPP v4 XML: the shared mapping, value and name encodings; export and import live beside it.

BT.CPP 4.10 (the ``btjudge`` tool in the shared tools is that library as a loader) and Groot2 are the
judges: what :func:`to_xml` writes loads and ticks there, and holds nothing outside BT.CPP's XSD.
py_trees 2.6 ships an experimental BT.CPP parser (``py_trees.parsers``); it instantiates
port-based py_trees behaviours and has no export, so it does not fit capability leaves; we keep
its conventions (``{key}`` references, ``<SubTree ID=.. inner="{outer}"/>`` remapping).

Mapping (export writes the left column; import also accepts the alternatives):

============================  ===================================================
definition                    BT.CPP v4
============================  ===================================================
sequence memory=true          ``Sequence`` (import: also ``SequenceWithMemory``, ``AsyncSequence``)
sequence memory=false         ``ReactiveSequence``
selector memory=false         ``ReactiveFallback``
selector memory=true          ``Fallback`` (import: also ``AsyncFallback``)
parallel success_on_all/one   ``Parallel success_count="-1"/"1" failure_count="1"`` (import: ``ParallelAll``)
inverter                      ``Inverter``
retry attempts=N (-1 forever) ``RetryUntilSuccessful num_attempts="N"``
timeout duration_ms=N         ``Timeout msec="N"``
repeat count=N (-1 forever)   ``Repeat num_cycles="N"`` (import: ``KeepRunningUntilFailure`` is count -1)
failure_is_success            ``ForceSuccess``
success_is_failure            ``ForceFailure``
oneshot                       ``OneShot`` (custom decorator, declared in ``TreeNodesModel``)
eternal_guard                 ``EternalGuard check=.. <check args>`` (custom decorator, declared)
leaf                          ``<capability arg=.. />`` (compact form, declared as an Action)
condition                     ``<check arg=.. />`` (compact form, declared as a Condition)
subtree                       ``SubTree ID="<encoded path>" _autoremap="true" <inner>="{<outer>}"``
(import only)                 ``Sleep msec=N`` -> leaf ``wait ms=N``; ``AlwaysSuccess`` -> ``wait ms=0``;
                              ``AlwaysFailure`` -> ``success_is_failure`` of ``wait ms=0``;
                              ``Delay delay_msec=N`` -> ``sequence [wait ms=N, child]``;
                              leading ``SetBlackboard`` of the main tree -> initial blackboard values
============================  ===================================================

Names. BT.CPP (since 4.8.4) and Groot2 refuse ``/ \\ : . * ? |``, space, quotes and ``<>&``
in a model name, so a subtree's file path is written as a tree ID by :func:`path_to_id`: every
ASCII character other than a letter, digit or ``_`` becomes ``-`` and two upper-case hex digits
(``common/eat_if_hungry.yaml`` -> ``common-2Feat_if_hungry-2Eyaml``); :func:`id_to_path`
reverses it. A subtree is shared with its caller as in craftbt (``_autoremap="true"``), with
its ``remap`` as port remapping.

Values. An attribute holds a string as itself; numbers and booleans as their JSON text, which
BT.CPP converts; anything else (objects, lists, null, and a string that would read back as
something else) as BT.CPP's own ``json:`` prefix plus JSON (``pos="json:{"x": 1}"``), which BT.CPP
reads as a literal, never as a ``{key}`` reference.

Blackboard and description. BT.CPP has no initial-value section, so the main tree starts with a
``Sequence name="craftbt blackboard"`` of ``SetBlackboard`` nodes (the tree's own values and the
defaults its subtrees contribute) around the root. What BT.CPP has no place for -- the
description, keys declared ``null``, each tree's own blackboard -- travels in an XML comment
``<!-- craftbt {...} -->`` before its ``BehaviorTree``, which BT.CPP, its XSD and Groot2 ignore.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from craftbt.trees import model as m

if TYPE_CHECKING:

    pass

FORMAT = "4"
LEAF_META = ("version", "retry", "timeout_ms", "idempotency_key", "args_source")
RESERVED = ("ID", "name")
SUBTREE_SUFFIXES = (".yaml", ".yml", ".json", ".xml")
#: the name of the wrapper that writes the initial blackboard
INIT_NAME = "craftbt blackboard"
#: prefix of the metadata comment before a BehaviorTree
META_PREFIX = "craftbt "
#: BT.CPP's prefix for a port value written as JSON
JSON_PREFIX = "json:"
#: BT.CPP pre- and post-conditions: script expressions craftbt cannot evaluate
PRE_POST = ("_skipIf", "_successIf", "_failureIf", "_while", "_onSuccess", "_onFailure", "_post", "_onHalted")

DECORATOR_TAGS: dict[m.DecoratorKind, str] = {
    m.DecoratorKind.INVERTER: "Inverter",
    m.DecoratorKind.RETRY: "RetryUntilSuccessful",
    m.DecoratorKind.TIMEOUT: "Timeout",
    m.DecoratorKind.REPEAT: "Repeat",
    m.DecoratorKind.FAILURE_IS_SUCCESS: "ForceSuccess",
    m.DecoratorKind.SUCCESS_IS_FAILURE: "ForceFailure",
    m.DecoratorKind.ONESHOT: "OneShot",
    m.DecoratorKind.ETERNAL_GUARD: "EternalGuard",
}
TAG_DECORATORS = {tag: kind for kind, tag in DECORATOR_TAGS.items()}
#: decorator parameter <-> BT.CPP port
PARAM_PORTS = {"attempts": "num_attempts", "duration_ms": "msec", "count": "num_cycles"}
PORT_PARAMS = {port: param for param, port in PARAM_PORTS.items()}
CUSTOM_DECORATORS = ("OneShot", "EternalGuard")


# -- values --------------------------------------------------------------------------
_XML_FORBIDDEN = frozenset(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") | {"\ufffe", "\uffff"}


def xml_text_ok(text: str) -> bool:
    """Whether XML 1.0 can carry this text at all (ElementTree escapes tab and newlines)."""
    return not any(ch in _XML_FORBIDDEN or "\ud800" <= ch <= "\udfff" for ch in text)


def _xml_safe(text: str) -> bool:
    return all(ch >= " " and not ("\ud800" <= ch <= "\udfff") and ch not in "\ufffe\uffff" for ch in text)


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    return text if _xml_safe(text) else json.dumps(value, ensure_ascii=True, allow_nan=False)


def encode_value(value: Any) -> str:
    """A port value BT.CPP reads as the literal we mean; :func:`decode_value` reverses it."""
    if isinstance(value, str):
        if _xml_safe(value) and not value.startswith(JSON_PREFIX):
            try:
                json.loads(value)
            except ValueError:
                return value
        return JSON_PREFIX + _json(value)
    if isinstance(value, bool | int | float):
        return _json(value)
    return JSON_PREFIX + _json(value)


def decode_value(text: str) -> Any:
    """Port text -> value: ``json:`` + JSON, plain JSON (numbers, booleans, older exports), else the text."""
    if text.startswith(JSON_PREFIX):
        try:
            return json.loads(text[len(JSON_PREFIX):])
        except ValueError:
            return text
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- names ---------------------------------------------------------------------------
_ID_KEEP = re.compile(r"[A-Za-z0-9_]")
_ID_ESCAPE = re.compile(r"-([0-9A-F]{2})")


def path_to_id(path: str) -> str:
    """A subtree file path -> a BT.CPP/Groot2 model name (reversible, see the module docstring)."""
    return "".join(ch if _ID_KEEP.fullmatch(ch) or ord(ch) >= 0x80 else f"-{ord(ch):02X}" for ch in path)


def id_to_path(ident: str) -> str:
    return _ID_ESCAPE.sub(lambda mt: chr(int(mt.group(1), 16)), ident)


def subtree_path_of(ident: str) -> str | None:
    """The file path a SubTree ID stands for (encoded, or a raw path from an older export), else None."""
    for candidate in (id_to_path(ident), ident):
        if candidate.endswith(SUBTREE_SUFFIXES):
            return candidate
    return None


def meta_comment(description: str, blackboard: dict[str, Any]) -> str:
    """The text of the metadata comment; ``--`` cannot appear in an XML comment, so it is escaped as JSON."""
    text = json.dumps({"description": description, "blackboard": blackboard}, ensure_ascii=False, allow_nan=False)
    return " " + META_PREFIX + text.replace("--", "-\\u002d") + " "


def read_meta_comment(text: str) -> dict[str, Any] | None:
    body = text.strip()
    if not body.startswith(META_PREFIX):
        return None
    try:
        data = json.loads(body[len(META_PREFIX):])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
