"""Tree-file commands: validate, render, schema, convert, capabilities."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Filled in by the foundation work (issue 2)."""
