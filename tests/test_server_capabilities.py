"""Every registered capability succeeds in a named e2e test on flying-squid, or is a named, reasoned exception.

A fast guard (no server): the e2e tests say which capabilities they run to a success with the marker
``@pytest.mark.shows_on_server("name", ...)`` (checked while they run, by the autouse fixture in
``tests/e2e/conftest.py``); this test reads those markers from the e2e files' source (``ast``, nothing is
imported or run) and docs/server.md's table "Capabilities on the server", and fails when

* a registered capability has no row, or a row names no registered capability;
* a row names a test that does not exist or whose marker does not list the capability;
* a row names no test and gives no reason (``not hosted: <why>``);
* a capability some test shows succeeding is listed as not hosted, or its row names none of those tests.
"""

from __future__ import annotations

import ast
import re
from importlib.metadata import entry_points
from pathlib import Path

from craftbt.capabilities.default import PLUGIN_GROUP, register_all
from craftbt.capabilities.registry import Registry
from tests.e2e.squidkit import SHOWS_MARKER

ROOT = Path(__file__).resolve().parents[1]
E2E = ROOT / "tests" / "e2e"
DOC = ROOT / "docs" / "server.md"
SECTION = "## Capabilities on the server"
NOT_HOSTED = "not hosted:"
#: a reason is a sentence, not a placeholder
MIN_REASON = 20


def shown_by_markers(folder: Path = E2E) -> dict[str, set[str]]:
    """Capability -> the e2e tests (``file.py::test_name``) whose ``shows_on_server`` marker names it."""
    shown: dict[str, set[str]] = {}
    for path in sorted(folder.glob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.name.startswith("test_"):
                continue
            for deco in node.decorator_list:
                if not (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)):
                    continue
                if deco.func.attr != SHOWS_MARKER:
                    continue
                for arg in deco.args:
                    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                        f"{path.name}::{node.name}: {SHOWS_MARKER} takes capability names as string literals"
                    )
                    shown.setdefault(arg.value, set()).add(f"{path.name}::{node.name}")
    return shown


def table_rows(text: str) -> dict[str, str]:
    """Capability -> the second cell of its row in the section's table."""
    assert SECTION in text, f"docs/server.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*`([a-z_]+)`[^|]*\|([^|]*)\|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} has two rows"
            rows[m.group(1)] = m.group(2).strip()
    return rows


def problems(registered: set[str], shown: dict[str, set[str]], rows: dict[str, str]) -> list[str]:
    found: list[str] = []
    for name in sorted(registered - set(rows)):
        found.append(f"{name}: registered but has no row")
    for name in sorted(set(rows) - registered):
        found.append(f"{name}: has a row but is not registered")
    for name in sorted(set(shown) - registered):
        found.append(f"{name}: named by {sorted(shown[name])} but not registered")
    for name, cell in sorted(rows.items()):
        tests = set(re.findall(r"`([\w.]+\.py::\w+)`", cell))
        if cell.startswith(NOT_HOSTED):
            if len(cell) - len(NOT_HOSTED) < MIN_REASON:
                found.append(f"{name}: 'not hosted' needs its reason")
            if name in shown:
                found.append(f"{name}: listed as not hosted but {sorted(shown[name])} show it succeeding")
            continue
        if not tests:
            found.append(f"{name}: the row names no e2e test and no '{NOT_HOSTED} <reason>'")
        for test in sorted(tests - shown.get(name, set())):
            found.append(f"{name}: {test} does not exist or its {SHOWS_MARKER} marker does not name {name}")
    return found


def shipped_registry() -> Registry:
    """craftbt's own capabilities, built afresh: its leaves and the plugins craftbt itself ships (CraftScript's
    run_script and call_function). Not ``default_registry()``: a user's plugins are not the server's to host,
    and other tests register throwaway capabilities into that shared one."""
    registry = Registry()
    register_all(registry)
    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        if ep.value.startswith("craftbt."):
            ep.load()(registry)
    return registry


def test_every_capability_succeeds_on_the_server_or_is_a_named_exception() -> None:
    registered = set(shipped_registry().names())
    shown = shown_by_markers()
    rows = table_rows(DOC.read_text())
    found = problems(registered, shown, rows)
    assert not found, "\n".join(found)


def test_the_guard_catches_each_kind_of_rot() -> None:
    """The checker itself: each way the table can rot is reported."""
    shown = {"a": {"test_x.py::test_a"}, "b": {"test_x.py::test_b"}}
    rows = {"a": "`test_x.py::test_a`", "b": "`test_x.py::test_gone`", "c": "not hosted: short",
            "d": "", "e": "not hosted: the server cannot do this at all"}
    found = problems({"a", "b", "c", "d", "f"}, shown, rows)
    assert found == [
        "f: registered but has no row",
        "e: has a row but is not registered",
        "b: test_x.py::test_gone does not exist or its shows_on_server marker does not name b",
        "c: 'not hosted' needs its reason",
        "d: the row names no e2e test and no 'not hosted: <reason>'",
    ]
    assert problems({"a"}, {"a": shown["a"]}, {"a": "not hosted: it is far too hard for this server"}) == [
        "a: listed as not hosted but ['test_x.py::test_a'] show it succeeding"
    ]
