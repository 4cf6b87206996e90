"""Symbolic facts with ``{arg}`` placeholders, as capabilities declare them (``has:{item}``).

:func:`instantiate` fills a fact from a leaf's args; the executor's gate and the
GOAP planner read the results.
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _lookup(args: dict[str, Any], dotted: str) -> Any:
    value: Any = args
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(dotted)
        value = value[part]
    return value


def instantiate(fact: str, args: dict[str, Any]) -> str | None:
    """Fill ``{arg}`` placeholders; ``None`` when an arg is missing or not a scalar."""
    try:
        def fill(match: re.Match[str]) -> str:
            value = _lookup(args, match.group(1))
            if isinstance(value, dict | list) or value is None:
                raise KeyError(match.group(1))
            return str(value)

        return PLACEHOLDER.sub(fill, fact)
    except KeyError:
        return None
