"""The divergence gate: passes on main, fails on a planted unregistered HTN verb, a missing check or test."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import CapabilitySpec, Family, NoArgs
from craftbt.cli import plan_cmds
from craftbt.planners.htn.planner import HtnPlanner
from craftbt.planners.ppa import PlanStep
from craftbt.router.gate import TESTS, run_gate
from craftbt.router.gate import tested_capabilities as find_tested
from craftbt.router.router import default_planners


def test_gate_passes_on_main() -> None:
    report = run_gate(default_registry(), default_planners())
    assert report.ok, report.differences
    assert "planner:htn" in report.sources and any(k.startswith("tree:") for k in report.sources)


def test_planted_htn_operator_with_unregistered_verb_fails() -> None:
    planners = default_planners()
    htn = HtnPlanner()

    @htn.domain.operator("!teleport", "teleport_home")
    def teleport(state: object) -> PlanStep | bool | None:
        return PlanStep(name="teleport", capability="teleport_home", args={})

    planners["htn"] = htn
    report = run_gate(default_registry(), planners)
    assert not report.ok
    assert [(d.kind, d.source, d.verb) for d in report.differences] == [
        ("unregistered_verb", "planner:htn", "teleport_home")]


def _spec(name: str, acceptance: object) -> CapabilitySpec:
    from craftbt.capabilities.leaves.sensing import SPECS  # noqa: F401  (any module: only the spec shape matters)

    def run(ctx: object, args: object) -> object:
        return iter(())

    return CapabilitySpec(name=name, version="1.0.0", family=Family.SENSING, args_model=NoArgs,
                          runner=run, acceptance=acceptance)  # type: ignore[arg-type]


def test_capability_without_acceptance_check_or_test_fails(tmp_path: Path) -> None:
    registry = Registry()
    from craftbt.capabilities.default import register_all

    register_all(registry)

    def no_acceptance(*args: object) -> object:
        raise AssertionError

    registry.register(_spec("untested_thing", no_acceptance))
    report = run_gate(registry, default_planners())
    kinds = {(d.kind, d.verb) for d in report.differences}
    assert ("missing_acceptance_check", "untested_thing@1.0.0") in kinds
    assert ("missing_acceptance_test", "untested_thing@1.0.0") in kinds


def test_acceptance_tests_are_detected_by_quoted_name(tmp_path: Path) -> None:
    (tmp_path / "test_leaves_x.py").write_text(
        'def test_x():\n    run("craft_recipe", {})\n# smelt mentioned only in a comment\n')
    assert find_tested(["craft_recipe", "smelt"], tmp_path) == {"craft_recipe"}
    assert find_tested(["craft_recipe"], TESTS) == {"craft_recipe"}


def test_a_quoted_mention_that_runs_nothing_is_not_a_test(tmp_path: Path) -> None:
    """Was: any quoted mention counted, so the gate could not fail for a capability no test runs."""
    (tmp_path / "test_leaves_x.py").write_text(
        'SMELT = "smelt"\n'
        'def helper():\n    run_leaf(None, "wait", {})\n'
        'def test_x():\n    """Covers "place_block" one day."""\n'
        '    assert 1, "dig_block is fine"\n    print("sleep")\n'
        '    run_leaf(None, "chat", {})\n    tree = LeafNode(capability="craft_recipe@1.0.0", args={})\n')
    names = ["smelt", "wait", "place_block", "dig_block", "sleep", "chat", "craft_recipe"]
    assert find_tested(names, tmp_path) == {"chat", "craft_recipe"}


def test_gate_command_exit_codes() -> None:
    import typer

    app = typer.Typer()
    plan_cmds.register(app)
    result = CliRunner().invoke(app, ["gate"])
    assert result.exit_code == 0, result.output
    assert "gate: ok" in result.output
