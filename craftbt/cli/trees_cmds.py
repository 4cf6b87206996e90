"""Tree-file commands: validate, render, schema, convert, capabilities.

Exit codes follow ``craftbt/cli.py``: 0 fine, 1 the input was read and is
wrong (every problem printed, one per line, as ``file:line:col: code: ...``),
2 usage (click reports a missing argument or a bad option value itself).
Tree files may be YAML, JSON or BehaviorTree.CPP XML (``*.xml``).
"""

from __future__ import annotations

import difflib
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
from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.core.inputs import read_text
from craftbt.core.outputs import write_output
from craftbt.trees import model as m
from craftbt.trees.paths import library_names, tree_argument
from craftbt.trees.render import RenderFormat
from craftbt.trees.validate import Checked, validate_definition, validate_path

#: ``--tree-path DIR`` (repeatable): more folders ``subtree:`` paths may come from (also CRAFTBT_TREE_PATH)
TreePathOption = Annotated[
    list[Path],
    typer.Option("--tree-path", help="A folder subtrees may be read from (repeatable; also CRAFTBT_TREE_PATH)",
                 show_default=False),
]


def use_tree_path(roots: list[Path]) -> None:
    from craftbt.trees.paths import set_tree_path

    set_tree_path(roots)


#: Indirection so tests (and embedders) can run the commands against another registry.
get_registry: Callable[[], Registry] = default_registry


class ConvertTarget(StrEnum):
    YAML = "yaml"
    JSON = "json"
    BTCPP_XML = "btcpp-xml"


def check_file(path: Path, registry: Registry) -> Checked:
    """Any supported tree file (or a library tree's name) -> Checked (XML is imported first; every problem is
    located at its element)."""
    path = tree_argument(path)
    if not path.exists() and not path.suffix and len(path.parts) == 1:
        close = difflib.get_close_matches(str(path), library_names(), n=1)
        return Checked(None, [Problem(ErrorCode.FILE_NOT_FOUND, f"no tree file or library tree {str(path)!r}",
                                      Location(file=str(path)),
                                      expected="a .yaml/.json/.xml file or one of the library's trees: "
                                      + ", ".join(library_names()),
                                      suggestion=close[0] if close else None)])
    if path.suffix.lower() != ".xml":
        return validate_path(path, registry)
    from craftbt.trees.btcpp_import import import_xml

    try:
        text = read_text(path, what="tree file")
    except CraftbtError as err:
        return Checked(None, err.problems)
    try:
        imported = import_xml(text, file=str(path), registry=registry)
    except CraftbtError as err:
        return Checked(None, err.problems)
    return validate_definition(imported.definition, registry, base_dir=path.resolve().parent, smap=imported.smap)


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
    files: Annotated[list[Path], typer.Argument(
        metavar="TREE", help="Tree files (.yaml, .json, .xml) or library tree names", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
    tree_path: TreePathOption = [],  # noqa: B006 - typer reads the default, never mutates it
) -> None:
    """Check tree files against the registry; print every problem.

    Example: craftbt validate my_tree.yaml obtain_wooden_pickaxe --json
    """
    use_tree_path(tree_path)
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
    file: Annotated[Path | None, typer.Argument(metavar="TREE", help="Tree file or a library tree's name",
                                                show_default=False)] = None,
    fmt: Annotated[RenderFormat, typer.Option("--format", "-f", help="Output format")] = RenderFormat.UNICODE,
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")] = None,
    run: Annotated[str | None, typer.Option("--run", help="Draw a finished run from the journal, with the "
                                                       "status each node ended in", show_default=False)] = None,
    tree_path: TreePathOption = [],  # noqa: B006 - typer reads the default, never mutates it
) -> None:
    """Draw a tree, or with --run a finished run (png needs -o or a redirected stdout).

    Examples: craftbt render obtain_wooden_pickaxe -f unicode · craftbt render --run RUN_ID -f svg -o run.svg
    """
    from craftbt.trees.render import render

    use_tree_path(tree_path)
    registry = get_registry()
    try:
        if (file is None) == (run is None):
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, "give either a tree FILE or --run RUN_ID",
                                      expected="craftbt render FILE | craftbt render --run RUN_ID")
        if run is not None:
            definition, base_dir, statuses, ended = _run_to_draw(run)
            data = render(definition, fmt.value, registry, base_dir=base_dir, statuses=statuses, root_status=ended)
        else:
            assert file is not None
            definition = load_checked(file, registry)
            data = render(definition, fmt.value, registry, base_dir=file.resolve().parent)
        if isinstance(data, bytes) and out is None and sys.stdout.isatty():
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, "refusing to write PNG to a terminal",
                                      expected="-o FILE.png")
        _write(out, data)
    except CraftbtError as err:
        raise _fail(err) from None


def _run_to_draw(run_ref: str) -> tuple[m.TreeDefinition, Path | None, dict[str, Any], Any]:
    """The definition a journalled run executed, where its subtrees live, each node's last status, the end."""
    import py_trees

    from craftbt.executor.failures import Escalation, Failure
    from craftbt.executor.journal import NOT_AN_OUTCOME, Journal
    from craftbt.trees.loader import from_dict
    from craftbt.trees.render import step_statuses

    journal = Journal(read_only=True)
    try:
        found = journal.find_run(run_ref)
        if found is None:
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"no run {run_ref!r} in {journal.path}",
                                      expected="a run id or prefix from `craftbt runs`")
        detail = journal.run_detail(found["run_id"])
    finally:
        journal.close()
    summary = detail.get("summary") or {}
    if "definition" not in summary:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT,
                                  f"run {detail['run_id']} has no recorded tree (still running, or from an older "
                                  "craftbt)", expected="a finished run")
    base = summary.get("base_dir")
    definition = from_dict(summary["definition"], source=f"run:{detail['run_id']}")
    Status = py_trees.common.Status
    statuses = step_statuses(detail["steps"], NOT_AN_OUTCOME)
    # a leaf refused before dispatch (guard, permission, geofence) has no step, only the run's failure record
    failed = [Failure.model_validate(f).node for f in summary.get("failures") or []]
    if summary.get("escalation"):
        failed.append(Escalation.model_validate(summary["escalation"]).node)
    for node in failed:
        if node and statuses.get(node) in (None, Status.INVALID, Status.RUNNING):
            statuses[node] = Status.FAILURE
    ended = Status.SUCCESS if detail["status"] == "success" else Status.FAILURE
    return definition, Path(base) if base else None, statuses, ended


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
    from craftbt.trees import btcpp_export, dump

    registry = get_registry()
    try:
        definition = load_checked(file, registry)
        if to is ConvertTarget.YAML:
            text = dump.to_yaml(definition)
        elif to is ConvertTarget.JSON:
            text = dump.to_json(definition)
        else:
            text = btcpp_export.to_xml(definition, registry=registry, base_dir=file.resolve().parent)
        _write(out, text)
    except CraftbtError as err:
        raise _fail(err) from None


def trees_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
) -> None:
    """List the library's trees: each runs by name (craftbt run obtain_wooden_pickaxe).

    Example: craftbt trees && craftbt run greet
    """
    from craftbt.trees.paths import library_file

    rows = []
    for name in library_names():
        path = library_file(name)
        assert path is not None
        checked = validate_path(path, get_registry())
        description = checked.definition.description if checked.definition is not None else ""
        rows.append({"name": name, "description": description or "", "file": str(path)})
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("tree", "description")
    for row in rows:
        table.add_row(row["name"], row["description"])
    table_console().print(table)


def register(app: typer.Typer) -> None:
    app.command("trees")(trees_cmd)
    app.command("validate")(validate_cmd)
    app.command("render")(render_cmd)
    app.add_typer(capabilities_app, name="capabilities")
    app.command("schema")(schema_cmd)
    app.command("convert")(convert_cmd)
