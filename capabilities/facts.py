"""Symbolic facts with ``{arg}`` placeholders, as capabilities declare them (``has:{item}``).

:func:`instantiate` fills a fact from a leaf's args; the executor's gate and the
GOAP planner read the results.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")

#: a template split once: literal text, then (dotted path, literal text) pairs
Template = tuple[str, tuple[tuple[tuple[str, ...], str], ...]]


@lru_cache(maxsize=4096)
def _template(fact: str) -> Template:
    # the gate and the pipeline fill the same few declared facts for every leaf: parse each once
    pieces = PLACEHOLDER.split(fact)
    fills = tuple((tuple(pieces[i].split(".")), pieces[i + 1]) for i in range(1, len(pieces), 2))
    return pieces[0], fills


def instantiate(fact: str, args: dict[str, Any]) -> str | None:
    """Fill ``{arg}`` placeholders; ``None`` when an arg is missing or not a scalar."""
    head, fills = _template(fact)
    if not fills:
        return fact
    out = [head]
    for path, tail in fills:
        value: Any = args
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        if isinstance(value, dict | list) or value is None:
            return None
        out.append(str(value))
        out.append(tail)
    return "".join(out)
