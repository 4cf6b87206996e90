"""``craftbt prove``: the seed's 4-checkpoint smoke proof and its failure variants F1-F6 (seed 000)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.cli.root import app
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.router.prove import VARIANTS, Failure, Variant, prove
from craftbt.world.scenarios import starter_world

CHECKPOINTS = ("A_requested", "A_result", "B_expansion", "C_dispatch", "D_verification")

#: per variant: which checkpoints hold, early exit, timed out
EXPECTED: dict[Variant, tuple[tuple[bool, ...], bool, bool]] = {
    Variant.OK: ((True, True, True, True, True), False, False),
    Variant.PLANNER_OFFLINE: ((True, False, False, False, False), True, False),
    Variant.UNKNOWN_GOAL: ((True, False, False, False, False), True, False),
    Variant.MALFORMED: ((True, False, False, False, False), True, False),
    Variant.EXECUTOR_DISABLED: ((True, True, True, False, False), False, False),
    Variant.VERIFY_FAILS: ((True, True, True, True, False), False, False),
    Variant.SLOW: ((True, True, True, True, True), False, True),
}


def factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    from craftbt.executor.config import scenario_fence

    body = starter_world(0)

    def make(*, registry: Registry, shadow: bool, max_ticks: int) -> Executor:
        config = ExecutorConfig(geofence=scenario_fence(body), shadow=shadow, max_ticks=max_ticks)
        return Executor(registry, body, config=config, home=tmp_path)

    return make


@pytest.mark.parametrize("variant", list(Variant))
def test_each_variant_proves_what_it_should(tmp_path: Path, variant: Variant) -> None:
    report = prove(factory(tmp_path), default_registry(), variant=variant)
    points, early, timed_out = EXPECTED[variant]
    assert tuple(getattr(report, c).ok for c in CHECKPOINTS) == points, report
    assert report.early_exit is early and report.timed_out is timed_out
    assert report.failure == VARIANTS[variant]
    assert report.proof_passed is (variant is Variant.OK)
    assert report.all_checkpoints_ok is all(points)
    assert report.as_expected
    saved = json.loads(Path(report.proof_path or "").read_text())
    assert saved["schema"] == "craftbt_proof_v1" and saved["proof_passed"] == report.proof_passed
    if report.C_dispatch.ok:
        assert report.C_dispatch.detail["count"] == len(report.C_dispatch.detail["dispatched_steps"]) > 0
        assert report.run_id and Path(report.artifact_path or "").is_file()
    if early:
        assert report.run_id is None  # nothing ran


def test_the_happy_proof_verifies_every_dispatched_step(tmp_path: Path) -> None:
    report = prove(factory(tmp_path), default_registry())
    steps = report.C_dispatch.detail["dispatched_steps"]
    assert steps and all(s["ok"] for s in steps)
    assert report.D_verification.detail["verdicts"] == {"verified": len(steps)}
    assert report.B_expansion.detail["executor_plan_digest"].startswith("sha256:")


def test_f5_is_a_verification_failure_after_dispatch(tmp_path: Path) -> None:
    report = prove(factory(tmp_path), default_registry(), variant=Variant.VERIFY_FAILS)
    assert report.failure is Failure.F5
    assert report.D_verification.detail["verdicts"].get("contradicted", 0) >= 1
    assert report.D_verification.detail["verdicts"].get("verified", 0) == 0


def test_cli_prove_exit_codes_and_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    runner = CliRunner()
    ok = runner.invoke(app, ["prove", "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["proof_passed"] is True
    # a failed checkpoint is never exit 0: 10 + n for Fn, so a script tells F1 from F2 from success
    f2 = runner.invoke(app, ["prove", "--variant", "unknown_goal", "--json"])
    assert f2.exit_code == 12, f2.output
    body = json.loads(f2.output)
    assert body["proof_passed"] is False and body["failure"] == "F2" and body["C_dispatch"]["ok"] is False
    f1 = runner.invoke(app, ["prove", "--variant", "planner_offline", "--json"])
    assert f1.exit_code == 11 and json.loads(f1.output)["failure"] == "F1"
    # a goal nobody can plan, asked for as the happy path: F2 too
    bad = runner.invoke(app, ["prove", "--goal", "obtain unobtainium_block", "--json"])
    assert bad.exit_code == 12
    assert json.loads(bad.output)["failure"] == "F2"
    assert len(list((tmp_path / "proofs").glob("*.json"))) == 4


def test_a_body_that_does_not_answer_is_f1(tmp_path: Path) -> None:
    """On a real server whose bridge times out during the planning survey: F1, not a crash."""
    from craftbt.world.body import BodyError, BodyErrorCode

    make = factory(tmp_path)

    def silent(**kw):  # type: ignore[no-untyped-def]
        ex = make(**kw)

        def fail(*a: object, **k: object) -> None:
            raise BodyError(BodyErrorCode.BODY_DISCONNECTED, "bridge call timed out")

        ex.inner_body.nearest_blocks = fail
        return ex

    report = prove(silent, default_registry())
    assert report.failure is Failure.F1 and report.early_exit and not report.proof_passed
    assert report.A_result.detail["body_error"] == "body_disconnected"
    assert report.run_id is None
