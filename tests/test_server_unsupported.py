"""A server that lacks a feature: the refusal is final (no local retry, no replan into the same wall).

The e2e side (a craft on flying-squid without craftbt's plugin is refused in under 2 s) is in
``tests/e2e/test_vanilla_plugin_e2e.py``; here the embedded world's body is made to refuse the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.capabilities.default import default_registry
from craftbt.executor.backoff import BlockClass, classify, unrepairable
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.executor.failures import Failure, FailureSource
from craftbt.router.priors import PriorsStore
from craftbt.router.router import RepeatedFailures, run_goal
from craftbt.world.body import BodyError, BodyErrorCode
from craftbt.world.scenarios import starter_world


def test_server_unsupported_is_a_deterministic_unrepairable_block() -> None:
    assert BodyErrorCode.SERVER_UNSUPPORTED.value == "server_unsupported"
    assert classify("server_unsupported") is BlockClass.DETERMINISTIC
    assert unrepairable("server_unsupported") and not unrepairable("guard_failed:precond_missing:table")


def test_the_repeated_failure_detector_stops_at_the_first_server_unsupported() -> None:
    seen = RepeatedFailures()
    assert seen.note(Failure(source=FailureSource.ESCALATION, reason="guard_failed", code="server_unsupported"))
    assert not seen.note(Failure(source=FailureSource.ESCALATION, reason="guard_failed", code="no_path"))


def test_a_goal_whose_craft_the_server_lacks_fails_once_without_a_replan(tmp_path: Path) -> None:
    body = starter_world(0)
    body.run_command("/give @s oak_log 2")
    crafts: list[Any] = []

    def refuse(item: str, count: int = 1, table: Any = None) -> Any:
        crafts.append(item)
        raise BodyError(BodyErrorCode.SERVER_UNSUPPORTED, "the server opens no crafting window")

    body.craft = refuse  # type: ignore[method-assign]
    ex = Executor(default_registry(), body, home=tmp_path,
                  config=ExecutorConfig(geofence=scenario_fence(body), max_ticks=4_000))
    run = run_goal("obtain 4 oak_planks", ex, priors=PriorsStore(tmp_path / "p.sqlite"))
    assert not run.ok
    assert len(run.attempts) == 1, run.attempts  # no replan
    escalation = run.attempts[0].escalation
    assert escalation is not None and escalation.code == "server_unsupported"
    assert crafts == ["oak_planks"]  # refused once: no local retry
    assert run.stopped is not None and "server_unsupported" in run.stopped
    assert body.observe().count("oak_log") == 2
