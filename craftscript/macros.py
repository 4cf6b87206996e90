"""The core macros of seed 004 section 8 (``core_macros.cs``), parsed once."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from craftbt.craftscript import ast as a
from craftbt.craftscript.parser import parse

CORE_MACROS = Path(__file__).with_name("core_macros.cs")


@cache
def _parsed() -> a.Program:
    return parse(CORE_MACROS.read_text(encoding="utf-8"), source="core_macros.cs")


def core_macros() -> dict[str, a.MacroDecl]:
    return dict(_parsed().macros)
