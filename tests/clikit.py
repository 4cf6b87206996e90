"""Drive the ``craftbt`` command line in-process: ``cli([...])`` -> (exit code, stdout, stderr).

It goes through :func:`craftbt.cli.root.run`, the console script's own error mapping, so exit codes
and messages are the user's. ``env`` entries are set for the call only; the default registry is
rebuilt when the plugins change.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

import craftbt.capabilities.default as default_module
from craftbt.cli.root import run


@dataclass
class Done:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli(args: list[str], env: dict[str, str] | None = None) -> Done:
    env = env or {}
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    plugins_changed = "CRAFTBT_PLUGINS" in env
    saved_registry = default_module._default
    if plugins_changed:
        default_module._default = None
    try:
        with _environ(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = run(args)
            out.flush()
            err.flush()
    finally:
        if plugins_changed:
            default_module._default = saved_registry
    return Done(code, _plain(out.buffer.getvalue().decode("utf-8", "replace")),  # type: ignore[attr-defined]
                _plain(err.buffer.getvalue().decode("utf-8", "replace")))  # type: ignore[attr-defined]


def _plain(text: str) -> str:
    """Without ANSI styling: the tests read what a message says, whatever colour a console chose."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)
