"""The registry-divergence gate (seed 003 CI gates): planners and registry must not drift apart.

Differences, each a row of the report:

* ``unregistered_verb``: a verb some source can emit is not in the registry.
  Sources: the crafting solver, every HTN operator, every GOAP grounder, the
  LLM planner's allowed verbs, every leaf of every tree under
  ``trees/library/`` (pinned versions must resolve too), and CraftScript's
  commands once a ``craftscript`` package exposes ``EMITTABLE_VERBS``.
* ``missing_acceptance_check``: a registered capability whose acceptance is
  absent, or is the read-only acceptance on a world-changing capability
  (which verifies nothing about the change).
* ``missing_acceptance_test``: a registered capability that no acceptance test
  runs (``tests/test_leaves_*.py`` and ``tests/e2e/test_leaves*.py``): its name
  must be an argument of a running call inside a ``test_*`` function
  (``run_leaf(body, "craft_recipe", ...)``, ``leaf("craft_recipe")``,
  ``capability="craft_recipe"``); a mention in a comment, a docstring, an
  assertion message or a helper does not count.

:func:`run_gate` returns the report; ``craftbt gate`` prints it as a table and
exits 1 when it has rows. To wire it into CI, run ``craftbt gate`` (or
``python -m craftbt gate``) as a step after installing the project; its exit
code fails the job.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Mapping
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from craftbt.capabilities.registry import Registry
from craftbt.planners.base import Planner
from craftbt.trees import model as m
from craftbt.trees.loader import load_path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "trees" / "library"
TESTS = ROOT / "tests"
TEST_GLOBS = ("test_leaves_*.py", "e2e/test_leaves*.py")
READ_ONLY_ACCEPTANCE = frozenset({"accept_read_only"})
#: an acceptance that says verified without looking: no capability may use one (read-only leaves re-read)
PLACEHOLDER_ACCEPTANCE = frozenset({"no_acceptance", "always_verified", "accept_anything", "accept_read_only"})


class Difference(BaseModel):
    kind: str
    source: str
    verb: str
    detail: str


class GateReport(BaseModel):
    sources: dict[str, list[str]] = Field(default_factory=dict)
    differences: list[Difference] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def planner_verbs(planners: Mapping[str, Planner]) -> dict[str, set[str]]:
    return {f"planner:{name}": set(p.emittable_verbs()) for name, p in planners.items()}


def library_verbs(library: Path = LIBRARY) -> tuple[dict[str, set[str]], list[Difference]]:
    out: dict[str, set[str]] = {}
    problems: list[Difference] = []
    for path in sorted(library.rglob("*.y*ml")) + sorted(library.rglob("*.json")):
        if not _is_tree_file(path):
            continue  # e.g. structure templates kept beside the trees
        loaded = load_path(path)
        rel = str(path.relative_to(library.parent.parent)) if library.parent.parent in path.parents else str(path)
        definition = loaded.partial
        if definition is None:
            problems.append(Difference(kind="unreadable_tree", source=rel, verb="-",
                                       detail=loaded.problems[0].render() if loaded.problems else "cannot load"))
            continue
        out[f"tree:{rel}"] = set(_leaf_refs(definition.root))
    return out, problems


def _is_tree_file(path: Path) -> bool:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return True  # let the loader report it
    return not isinstance(data, dict) or "tree" in data or "root" in data


def craftscript_verbs() -> dict[str, set[str]]:
    try:
        module = importlib.import_module("craftbt.craftscript")
    except ImportError:
        return {}
    verbs = getattr(module, "EMITTABLE_VERBS", None)
    return {"craftscript": set(verbs)} if verbs else {}


def _leaf_refs(node: m.Node) -> list[str]:
    if isinstance(node, m.LeafNode):
        return [node.capability]
    refs: list[str] = []
    for child in getattr(node, "children", []):
        refs += _leaf_refs(child)
    child = getattr(node, "child", None)
    if child is not None:
        refs += _leaf_refs(child)
    return refs


#: calls that run a capability in a test: ``run_leaf(body, "smelt", ...)``, ``leaf("smelt")``, a tree leaf
RUNNING_CALLS = frozenset({"run_leaf", "run", "leaf", "LeafNode", "CapabilityBehaviour"})


def _run_names(tree: ast.AST) -> set[str]:
    """Capability names a test function runs: string arguments of a running call, or ``capability=``."""
    found: set[str] = set()
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_")):
            continue
        for call in ast.walk(fn):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            values: list[ast.expr] = [k.value for k in call.keywords if k.arg == "capability"]
            if name in RUNNING_CALLS:
                values += call.args[:2]
            found.update(v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def tested_capabilities(names: list[str], tests: Path = TESTS) -> set[str]:
    """The capabilities some acceptance test runs: named as an argument of a running call inside a
    ``test_*`` function (a quoted mention in a docstring, a message or a helper does not count)."""
    ran: set[str] = set()
    for pattern in TEST_GLOBS:
        for path in sorted(tests.glob(pattern)):
            ran |= {ref.split("@", 1)[0] for ref in _run_names(ast.parse(path.read_text(encoding="utf-8")))}
    return {n for n in names if n in ran}


def run_gate(
    registry: Registry,
    planners: Mapping[str, Planner],
    *,
    library: Path = LIBRARY,
    tests: Path = TESTS,
) -> GateReport:
    sources = planner_verbs(planners)
    trees, problems = library_verbs(library)
    sources.update(trees)
    sources.update(craftscript_verbs())
    differences = list(problems)
    for source, verbs in sorted(sources.items()):
        for verb in sorted(verbs):
            if not registry.has(verb):
                differences.append(Difference(kind="unregistered_verb", source=source, verb=verb,
                                              detail="emitted here but not registered"))
    latest = registry.latest()
    for spec in latest:
        fn = getattr(spec.acceptance, "__name__", None)
        if spec.acceptance is None or fn in PLACEHOLDER_ACCEPTANCE:
            differences.append(Difference(kind="missing_acceptance_check", source="registry", verb=spec.key,
                                          detail="no acceptance check"))
        elif spec.world_changing and fn in READ_ONLY_ACCEPTANCE:
            differences.append(Difference(kind="missing_acceptance_check", source="registry", verb=spec.key,
                                          detail=f"world-changing but accepted by {fn}"))
    tested = tested_capabilities([s.name for s in latest], tests)
    for spec in latest:
        if spec.name not in tested:
            differences.append(Difference(kind="missing_acceptance_test", source="registry", verb=spec.key,
                                          detail=f"not named in {' or '.join(TEST_GLOBS)}"))
    return GateReport(sources={k: sorted(v) for k, v in sorted(sources.items())}, differences=differences)
