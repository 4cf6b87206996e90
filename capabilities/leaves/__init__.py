"""Leaf families. ``register_all`` registers every shipped capability and check.

One module per family; each exposes ``register(registry)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from craftbt.capabilities import checks
from craftbt.capabilities.leaves import (
    blocks,
    combat,
    construction,
    containers,
    crafting,
    exploration,
    farming,
    mechanisms,
    movement,
    sensing,
)

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

FAMILIES = (
    movement,
    blocks,
    sensing,
    crafting,
    containers,
    combat,
    farming,
    mechanisms,
    construction,
    exploration,
)


def register_all(registry: Registry) -> None:
    checks.register(registry)
    for family in FAMILIES:
        family.register(registry)
