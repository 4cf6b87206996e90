"""Tree-file commands: validate, render, schema, convert, capabilities.

Exit codes follow ``craftbt/cli.py``: 0 fine, 1 the input was read and is
wrong (every problem printed, one per line, as ``file:line:col: code: ...``),
2 usage (click reports a missing argument or a bad option value itself).
Tree files may be YAML, JSON or BehaviorTree.CPP XML (``*.xml``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.cli.console import table_console
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.inputs import read_text
from craftbt.core.outputs import write_output
from craftbt.trees import model as m
from craftbt.trees.render import RenderFormat
from craftbt.trees.validate import Checked, validate_definition, validate_path

#: Indirection so tests (and embedders) can run the commands against another registry.
get_registry: Callable[[], Registry] = default_registry


class ConvertTarget(StrEnum):
    YAML = "yaml"
    JSON = "json"
    BTCPP_XML = "btcpp-xml"


def check_file(path: Path, registry: Registry) -> Checked:
    """Any supported tree file -> Checked (XML is imported first; its problems have no line numbers)."""
    if path.suffix.lower() != ".xml":
        return validate_path(path, registry)
    from craftbt.trees.btcpp import from_xml

    try:
        text = read_text(path, what="tree file")
    except CraftbtError as err:
        return Checked(None, err.problems)
    try:
        definition = from_xml(text, file=str(path), registry=registry)
    except CraftbtError as err:
        for p in err.problems:
            p.location.file = p.location.file or str(path)
        return Checked(None, err.problems)
    return validate_definition(definition, registry, base_dir=path.resolve().parent)


def load_checked(path: Path, registry: Registry) -> m.TreeDefinition:
    checked = check_file(path, registry)
    checked.raise_for_problems()
    assert checked.definition is not None
    return checked.definition


def _fail(err: CraftbtError) -> typer.Exit:
    for problem in err.problems:
        print(problem.render(), file=sys.stderr)
    return typer.Exit(1)


def _write(out: Path | None, data: str | bytes) -> None:
    if out is None:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            sys.stdout.write(data if data.endswith("\n") else data + "\n")
        return
    write_output(out, data)


def validate_cmd(
    files: Annotated[list[Path], typer.Argument(help="Tree files (.yaml, .json, .xml)", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
) -> None:
    """Check tree files against the registry; print every problem."""
    registry = get_registry()
    report: list[dict[str, Any]] = []
    bad = False
    for path in files:
        checked = check_file(path, registry)
        bad = bad or not checked.ok
        report.append({"file": str(path), "ok": checked.ok, "problems": [p.to_dict() for p in checked.problems]})
        if not as_json:
            if checked.ok:
                print(f"{path}: ok")
            for problem in checked.problems:
                print(problem.render())
    if as_json:
        print(json.dumps({"ok": not bad, "files": report}, indent=2))
    raise typer.Exit(1 if bad else 0)


def render_cmd(
    file: Annotated[Path, typer.Argument(help="Tree file", show_default=False)],
    fmt: Annotated[RenderFormat, typer.Option("--format", "-f", help="Output format")] = RenderFormat.UNICODE,
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")] = None,
) -> None:
    """Draw a tree (png needs -o or a redirected stdout)."""
    from craftbt.trees.render import render

    registry = get_registry()
    try:
        definition = load_checked(file, registry)
        data = render(definition, fmt.value, registry, base_dir=file.resolve().parent)
        if isinstance(data, bytes) and out is None and sys.stdout.isatty():
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, "refusing to write PNG to a terminal",
                                      expected="-o FILE.png")
        _write(out, data)
    except CraftbtError as err:
        raise _fail(err) from None


#: ``craftbt capabilities`` lists the manifest; its subcommands (``promote``) are added by the lifecycle commands
capabilities_app = typer.Typer(help="List registered capabilities (the manifest); promote a canary version.")


@capabilities_app.callback(invoke_without_command=True)
def capabilities_cmd(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON")] = False,
) -> None:
    """List registered capabilities (the manifest)."""
    if ctx.invoked_subcommand is not None:
        return
    registry = get_registry()
    manifest = registry.manifest()
    if as_json:
        print(json.dumps(manifest, indent=2, sort_keys=False))
        return
    table = Table(title=f"{len(manifest['capabilities'])} capabilities")
    for column in ("name", "version", "family", "permissions", "args", "timeout ms", "retries"):
        table.add_column(column)
    for entry in manifest["capabilities"]:
        schema = entry["args_schema"]
        required = set(schema.get("required", []))
        args = ", ".join(f"{k}{'' if k in required else '?'}" for k in schema.get("properties", {}))
        table.add_row(
            entry["name"] + (" (deprecated)" if entry["deprecated"] else ""), entry["version"], entry["family"],
            ", ".join(entry["permissions"]) or "-", args or "-", str(entry["timeout_ms"]), str(entry["retries"]),
        )
    table_console().print(table)
    if manifest["checks"]:
        print("checks: " + ", ".join(c["name"] for c in manifest["checks"]))


def schema_cmd(
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")] = None,
) -> None:
    """Print the JSON Schema of tree files, generated from the registry."""
    from craftbt.trees.schema import tree_schema

    try:
        _write(out, json.dumps(tree_schema(get_registry()), indent=2) + "\n")
    except CraftbtError as err:
        raise _fail(err) from None


def convert_cmd(
    file: Annotated[Path, typer.Argument(help="Tree file (.yaml, .json, .xml)", show_default=False)],
    to: Annotated[ConvertTarget, typer.Option("--to", help="Target format")],
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")] = None,
) -> None:
    """Convert a validated tree between YAML, JSON and BehaviorTree.CPP v4 XML."""
    from craftbt.trees import btcpp, dump

    registry = get_registry()
    try:
        definition = load_checked(file, registry)
        if to is ConvertTarget.YAML:
            text = dump.to_yaml(definition)
        elif to is ConvertTarget.JSON:
            text = dump.to_json(definition)
        else:
            text = btcpp.to_xml(definition, registry=registry, base_dir=file.resolve().parent)
        _write(out, text)
    except CraftbtError as err:
        raise _fail(err) from None


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_cmd)
    app.command("render")(render_cmd)
    app.add_typer(capabilities_app, name="capabilities")
    app.command("schema")(schema_cmd)
    app.command("convert")(convert_cmd)
