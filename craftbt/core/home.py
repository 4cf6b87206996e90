"""Where craftbt keeps what must last: ``$CRAFTBT_HOME``, or ``.craftbt/`` in the working directory."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    home = os.environ.get("CRAFTBT_HOME")
    return Path(home) if home else Path.cwd() / ".craftbt"
