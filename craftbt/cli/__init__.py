"""The command line: ``craftbt`` and its command groups; each group module exposes ``register(app)``."""

from craftbt.cli.root import app, main

__all__ = ["app", "main"]
