"""Compile what a client sends before anything starts: a tree text (or definition), a CraftScript text.

A posted tree is checked with the shipped library as its folder, so ``subtree: common/eat_if_hungry.yaml``
works as it does for ``craftbt run``; but a client may not name a file of the server's own disk
(an absolute path or one with ``..``), which would let a network caller read files through
subtree errors.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from craftbt.capabilities.registry import Registry
from craftbt.core.errors import ErrorCode, Location, Problem
from craftbt.craftscript import ast as a
from craftbt.craftscript.checker import Checker
from craftbt.craftscript.errors import ScriptError
from craftbt.craftscript.functions import FunctionStore, store_path
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.parser import parse
from craftbt.trees import model as m
from craftbt.trees.loader import load_text
from craftbt.trees.paths import LIBRARY_DIR
from craftbt.trees.validate import Checked, validate_definition, walk

SOURCE = "<posted>"


def _outside_library(definition: m.TreeDefinition) -> list[Problem]:
    problems = []
    for node, path in walk(definition.root):
        if isinstance(node, m.SubtreeNode):
            target = PurePath(node.path)
            if target.is_absolute() or ".." in target.parts:
                problems.append(Problem(
                    ErrorCode.SUBTREE_NOT_FOUND,
                    f"subtree {node.path!r}: a tree sent to the service may use library subtrees only",
                    Location(file=SOURCE, path=".".join(str(p) for p in path))))
    return problems


def compile_tree(source: str | m.TreeDefinition, registry: Registry) -> Checked:
    """Every problem of a tree text or definition, checked against ``registry``; never raises for bad input."""
    if isinstance(source, m.TreeDefinition):
        definition, smap = source, None
    else:
        loaded = load_text(source, file=SOURCE)
        if loaded.partial is None:
            return Checked(None, problems=list(loaded.problems))
        definition, smap = loaded.partial, loaded.smap
        if loaded.problems:
            return Checked(None, problems=list(loaded.problems))
    fenced = _outside_library(definition)
    if fenced:
        return Checked(None, problems=fenced)
    return validate_definition(definition, registry, smap=smap, base_dir=LIBRARY_DIR)


def script_error(err: ScriptError) -> dict[str, Any]:
    return {"code": err.code, "message": err.message, "loc": err.loc.as_dict() if err.loc else None,
            "suggestion": err.suggestion}


def compile_script(text: str, bot: str, home: Path) -> tuple[a.Program | None, list[dict[str, Any]]]:
    """Parse and check a CraftScript text against the bot's stored functions."""
    try:
        program = parse(text, source=SOURCE)
    except ScriptError as err:
        return None, [script_error(err)]
    store = FunctionStore(bot, store_path(home))
    try:
        signatures = store.signatures()
    finally:
        store.close()
    errors = Checker(program, core_macros=core_macros(), functions=signatures).check()
    return program, [script_error(e) for e in errors]
