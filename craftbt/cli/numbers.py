"""Whole numbers the command line takes: ASCII digits only, inside the range the option documents.

Python's ``int`` admits fullwidth digits and ``1_000``; ``str.isdigit`` admits ``²``, which
``int`` then refuses. Options and arguments parse through :func:`ascii_int` instead, so every
number is checked once, before any work, and a bad one is a usage error (exit 2) naming the option.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import typer

_INT = re.compile(r"[+-]?[0-9]{1,20}", re.ASCII)

SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
#: The journal and build store keep integers as SQLite's signed 64-bit INTEGER.
INT64_MAX = 2**63 - 1


def parse_ascii_int(text: str | int, lo: int, hi: int, what: str) -> int:
    """``text`` as an int in ``lo..hi``; raises ``ValueError`` with a message naming ``what``."""
    if isinstance(text, bool):
        raise ValueError(f"{what} {text!r} is not an integer")
    if isinstance(text, int):
        value = text
    else:
        raw = text.strip()
        if not _INT.fullmatch(raw):
            raise ValueError(f"{what} {text!r} is not an integer (ASCII digits) in {lo}..{hi}")
        value = int(raw)
    if not lo <= value <= hi:
        raise ValueError(f"{what} {value} is outside {lo}..{hi}")
    return value


def ascii_int(lo: int, hi: int) -> Callable[[str | int], int]:
    """A typer ``parser=`` for an int option in ``lo..hi``."""

    def parse(text: str | int) -> int:
        try:
            return parse_ascii_int(text, lo, hi, "value")
        except ValueError as err:
            raise typer.BadParameter(str(err).removeprefix("value ")) from None

    return parse


seed_int = ascii_int(SEED_MIN, SEED_MAX)
port_int = ascii_int(1, 65535)
