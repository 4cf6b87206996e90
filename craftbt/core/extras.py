"""The optional parts of craftbt, the pip extra that brings each, and the clear error when one is missing.

The core package ticks trees and plans goals on the embedded world (the starter and flat worlds) and
drives a real server; the HTTP/MCP service, the Ray-backed evaluation and the vanilla-like natural
world need packages not every user wants (``pip install 'craftbt[serve]'``, ``'craftbt[eval]'``,
``'craftbt[natural]'``). A front door calls :func:`require` before it imports them, so a missing extra is
a :class:`CraftbtError` naming the command that fixes it, never a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
import importlib.util
from enum import StrEnum
from types import ModuleType

from craftbt.core.errors import CraftbtError, ErrorCode


class Extra(StrEnum):
    SERVE = "serve"
    EVAL = "eval"
    NATURAL = "natural"


#: the modules each extra brings (import names, not distribution names)
MODULES: dict[Extra, tuple[str, ...]] = {
    Extra.SERVE: ("fastapi", "uvicorn", "websockets", "mcp"),
    Extra.EVAL: ("ray", "numpy"),
    Extra.NATURAL: ("numpy",),
}


def install_hint(extra: Extra) -> str:
    return f"pip install 'craftbt[{extra.value}]'"


def missing_extra(extra: Extra, feature: str, modules: list[str]) -> CraftbtError:
    """The error a front door raises when ``feature`` needs ``extra`` and ``modules`` are absent."""
    return CraftbtError.single(
        ErrorCode.MISSING_EXTRA,
        f"{feature} needs {', '.join(modules)}, which {'is' if len(modules) == 1 else 'are'} not installed",
        expected=f"the '{extra.value}' extra: {install_hint(extra)}")


def missing_modules(extra: Extra) -> list[str]:
    """Which of the extra's modules cannot be imported here (without importing them)."""
    absent = []
    for name in MODULES[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or half-removed package counts as absent
            found = False
        if not found:
            absent.append(name)
    return absent


def require(extra: Extra, feature: str) -> None:
    """Raise :func:`missing_extra` unless every module of ``extra`` is importable."""
    absent = missing_modules(extra)
    if absent:
        raise missing_extra(extra, feature, absent)


def import_extra(module: str, extra: Extra, feature: str) -> ModuleType:
    """``import module`` (part of ``extra``), or the clear error when it is not installed."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        raise missing_extra(extra, feature, [err.name or module]) from err
