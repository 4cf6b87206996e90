"""Run a matrix of episodes: in this process, or every episode a Ray task on a local or remote cluster.

Results stream into the :class:`ResultStore` as each episode finishes, so an interrupted
evaluation loses only the episodes still running, and the same command resumes without
repeating what finished. With one worker and no address, or without Ray installed, the
episodes run here, one after another; the results are the same either way.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.extras import Extra, install_hint, missing_modules
from craftbt.evaluation.episode import EpisodeResult, EpisodeSpec, run_episode
from craftbt.evaluation.store import ResultStore

OnResult = Callable[[EpisodeResult], None]


@dataclass
class EvalRun:
    """What one ``evaluate`` call did: how many episodes it ran, skipped as done, and where it ran them."""

    ran: int
    skipped: int
    backend: str
    store: Path


def expand(goals: Sequence[str], seeds: Iterable[int], planners: Sequence[str], worlds: Sequence[str],
           max_ticks: int) -> list[EpisodeSpec]:
    """Every goal x seed x planner x world combination, in a stable order."""
    return [EpisodeSpec(goal=g, seed=s, planner=p, world=w, max_ticks=max_ticks)  # type: ignore[arg-type]
            for g in goals for p in planners for w in worlds for s in seeds]


def _worker_home(root: str) -> Path:
    # one journal per worker process: episodes never contend for a database, and each stays inspectable
    return Path(root) / f"{socket.gethostname()}-{os.getpid()}"


def _episode_task(spec_data: dict[str, Any], home_root: str) -> dict[str, Any]:
    """The Ray task: plain data in and out, so nothing of the driver's process has to travel."""
    import ray

    spec = EpisodeSpec.model_validate(spec_data)
    worker = f"{ray.get_runtime_context().get_node_id()[:12]}:{os.getpid()}"
    return run_episode(spec, _worker_home(home_root), worker=worker).model_dump(mode="json")


def _ray() -> Any | None:
    if missing_modules(Extra.EVAL):
        return None
    import ray

    return ray


def evaluate(
    specs: Sequence[EpisodeSpec],
    out: Path,
    *,
    workers: int = 1,
    address: str | None = None,
    on_result: OnResult | None = None,
) -> EvalRun:
    """Run every spec not already in ``out/results.sqlite``; ``address`` joins an existing Ray cluster."""
    store = ResultStore(out / "results.sqlite")
    try:
        done = store.done_keys()
        pending = [s for s in dict.fromkeys(specs) if s.key not in done]
        skipped = len(set(specs)) - len(pending)
        homes = str((out / "homes").resolve())
        ray = _ray()
        if address is None and workers <= 1:
            _run_here(pending, homes, store, on_result)
            return EvalRun(len(pending), skipped, "in-process", store.path)
        if ray is None:
            raise CraftbtError.single(
                ErrorCode.MISSING_EXTRA, "Ray is not installed: --workers above 1 and --address need it",
                expected=f"the 'eval' extra ({install_hint(Extra.EVAL)}), or --workers 1")
        _run_on_ray(ray, pending, homes, store, on_result, workers=workers, address=address)
        return EvalRun(len(pending), skipped, f"ray:{address or 'local'}", store.path)
    finally:
        store.close()


def _run_here(pending: Sequence[EpisodeSpec], homes: str, store: ResultStore, on_result: OnResult | None) -> None:
    for spec in pending:
        result = run_episode(spec, _worker_home(homes))
        store.add(result)
        if on_result is not None:
            on_result(result)


def _run_on_ray(ray: Any, pending: Sequence[EpisodeSpec], homes: str, store: ResultStore,
                on_result: OnResult | None, *, workers: int, address: str | None) -> None:
    started_here = not ray.is_initialized()
    if started_here:
        if address is None:
            # a private local cluster for this run: loopback only, no dashboard, sized to --workers
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     _node_ip_address="127.0.0.1", configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    waiting: dict[Any, EpisodeSpec] = {}
    try:
        task = ray.remote(num_cpus=1, max_retries=1)(_episode_task)
        waiting = {task.remote(spec.model_dump(mode="json"), homes): spec for spec in pending}
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1)
            for ref in ready:
                waiting.pop(ref)
                result = EpisodeResult.model_validate(ray.get(ref))
                store.add(result)
                if on_result is not None:
                    on_result(result)
    except BaseException:
        for ref in waiting:  # Ctrl-C: stop what is still running; the finished ones are stored
            ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()
