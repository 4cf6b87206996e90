"""The console every command prints tables with.

At least ``MIN_WIDTH`` columns wide: in a narrow terminal, or piped into a file or CI log (where
rich assumes 80 columns), the SLA and run tables would otherwise squeeze their headers to
``cap…``; a wide table that wraps in the terminal still reads.
"""

from __future__ import annotations

from rich.console import Console

MIN_WIDTH = 140


def table_console() -> Console:
    return Console(width=max(MIN_WIDTH, Console().width))
