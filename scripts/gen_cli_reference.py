"""Write docs/cli-reference.md from the command tree itself: every command, its arguments and options.

    python scripts/gen_cli_reference.py          # rewrite the page
    python scripts/gen_cli_reference.py --check  # exit 1 when the page is not what the commands say

tests/test_cli_reference.py runs ``--check``, so the page cannot drift from the code.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import typer.main

from craftbt.cli.help_format import value_name
from craftbt.cli.root import app

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli-reference.md"


# typer may bring click or a copy of it of its own: commands and parameters are read by their attributes


def _is_group(command: Any) -> bool:
    return callable(getattr(command, "list_commands", None))


def _subcommands(group: Any) -> list[tuple[str, Any]]:
    """A group's visible commands, sorted; asked through click's own API, so the root's lazy group loads them."""
    ctx = group.context_class(group)
    found = [(name, group.get_command(ctx, name)) for name in sorted(group.list_commands(ctx))]
    return [(name, sub) for name, sub in found if sub is not None and not sub.hidden]


def _is_argument(param: Any) -> bool:
    return not hasattr(param, "is_flag")  # options have is_flag; arguments do not


def commands(group: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, group
    if _is_group(group):
        for name, sub in _subcommands(group):
            yield from commands(sub, [*path, name])


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def _default(param: Any) -> str:
    if param.required or getattr(param, "is_flag", False):
        return ""
    value = param.default
    if value is None or value == [] or value == () or callable(value):
        return ""
    if isinstance(value, Enum):
        value = value.value
    return f"`{value}`"


def section(path: list[str], command: Any) -> str:
    ctx = command.context_class(command, info_name=" ".join(path))
    name = " ".join(path)
    lines = [f"## `{name}`", ""]
    help_text = (command.help or "").strip()
    if help_text:
        lines += [help_text.replace("``", "`"), ""]
    pieces = " ".join(command.collect_usage_pieces(ctx))
    lines += ["```text", f"{name} {pieces}".rstrip(), "```", ""]
    if _is_group(command):
        subs = _subcommands(command)
        lines += ["| command | what it does |", "|---|---|"]
        lines += [f"| [`{name} {n}`](#{(name + ' ' + n).replace(' ', '-')}) | {_cell(c.get_short_help_str(200))} |"
                  for n, c in subs]
        return "\n".join(lines) + "\n"
    params = [p for p in command.params if not getattr(p, "hidden", False) and p.name != "help"]
    if params:
        lines += ["| argument or option | value | default | what it does |", "|---|---|---|---|"]
        for param in params:
            if _is_argument(param):
                label = f"`{(param.metavar or param.name or '').upper()}`"
                doc = getattr(param, "help", "") or ""
            else:
                label = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
                doc = param.help or ""
            value = value_name(param, ctx) or ""
            lines.append(f"| {label} | {_cell(value)} | {_cell(_default(param))} | {_cell(doc)} |")
    return "\n".join(lines) + "\n"


def render() -> str:
    root = typer.main.get_command(app)
    parts = ["# CLI reference", "",
             "Generated from the commands by `scripts/gen_cli_reference.py` (a test keeps it current); "
             "`craftbt COMMAND --help` prints the same. Overview and exit codes: [The command line](cli.md).", ""]
    for path, command in commands(root, ["craftbt"]):
        parts.append(section(path, command))
    return "\n".join(parts)


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is stale: run scripts/gen_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
