"""The one place craftbt's version is written; packaging and ``craftbt --version`` read it."""

__version__ = "0.2.0"
