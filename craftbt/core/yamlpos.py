"""Line numbers of PyYAML nodes, for error locations in YAML files other than trees
(scenarios, structure templates); tree files have their own full position map in ``trees/source.py``."""

from __future__ import annotations

from typing import Any

import yaml

from craftbt.core.inputs import load_yaml


def line_of(node: Any, path: tuple[Any, ...]) -> int | None:
    """1-based line of the YAML node at ``path`` (or of its nearest existing parent)."""
    line: int | None = node.start_mark.line + 1 if node is not None else None
    for key in path:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            match = node.value[key]
        else:
            match = None
        if match is None:
            break
        node = match
        line = node.start_mark.line + 1
    return line


def compose_and_load(text: str, file: str | None = None) -> tuple[Any, Any]:
    """Parse once: the node tree (for :func:`line_of`) and the plain data built from it.

    Goes through the input boundary (:func:`craftbt.core.inputs.load_yaml`): bounded depth, no
    duplicate keys, finite numbers; raises :class:`~craftbt.core.errors.CraftbtError` (parse_error).
    """
    return load_yaml(text, file)
