"""combat leaves (seed 000 leaf inventory)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from capabilities.registry import Registry


def register(registry: Registry) -> None:
    """Registers this family's capabilities."""
