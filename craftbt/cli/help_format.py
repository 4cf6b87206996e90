"""Help text a user can read: value names (``FILE``, ``INTEGER``, ``TEXT...``) instead of Python types.

Recent typer versions print an option's Python annotation as its value name (``<bool>`` beside a flag
that takes no value, ``<list[Path]>``, ``<str>``). :func:`install` wraps typer's one method that names
an option's value, once per process, so every command shows the click-style names; an option given an
explicit ``metavar=`` keeps it. Typer versions without that method already print click's names and are
left alone. :func:`value_name` is also what the generated CLI reference uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import typer.core

#: typer's type labels -> the value names click has always printed
_NAMES = {
    "str": "TEXT", "int": "INTEGER", "int range": "INTEGER", "float": "FLOAT", "float range": "FLOAT",
    "bool": "BOOLEAN", "path": "PATH", "file": "FILE", "directory": "DIR", "datetime": "DATETIME",
    "uuid": "UUID",
}


def label_name(label: str) -> str:
    """``<list[Path]>`` -> ``PATH...``, ``<int range>`` -> ``INTEGER``, ``<sim|mineflayer>`` -> ``[sim|mineflayer]``."""
    inner = label[1:-1] if label.startswith("<") and label.endswith(">") else label
    listed = re.fullmatch(r"list\[(.*)\]", inner)
    if listed:
        return label_name(listed.group(1)).strip("[]") + "..."
    if "|" in inner:
        return f"[{inner}]"
    return _NAMES.get(inner.lower(), inner.upper())


def value_name(param: Any, ctx: Any) -> str | None:
    """What ``param`` takes, as help shows it; None for a flag, which takes no value."""
    argument = isinstance(param, getattr(typer.core, "TyperArgument", ()))
    if getattr(param, "metavar", None) is not None and not argument:  # an argument's metavar is its name
        return str(param.metavar)
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    display = getattr(param, "display_type", None)
    if display is None:  # an older typer: click's own names
        return str(param.make_metavar(ctx)) if hasattr(param, "make_metavar") else None
    name = label_name(str(display(ctx)))
    if getattr(param, "multiple", False):  # a repeatable option takes one value each time
        return name.removesuffix("...")
    if getattr(param, "nargs", 1) != 1 and not name.endswith("..."):
        name += "..."
    return name


def install() -> None:
    """Make typer's help print :func:`value_name` (idempotent; a no-op where typer has no such method)."""
    for cls in (getattr(typer.core, "TyperOption", None), getattr(typer.core, "TyperArgument", None)):
        original: Callable[..., Any] | None = getattr(cls, "display_type_rich", None)
        if cls is None or original is None or getattr(original, "_craftbt", False):
            continue

        def display_type_rich(self: Any, ctx: Any) -> str | None:
            return value_name(self, ctx)

        display_type_rich._craftbt = True  # type: ignore[attr-defined]
        cls.display_type_rich = display_type_rich  # type: ignore[attr-defined]
