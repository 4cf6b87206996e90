"""The one-way layers hold at run time too: the executor runs what it was given, subtree files read once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.trees import loader
from craftbt.trees.loader import load_file
from craftbt.world.scenarios.loader import starter_world

LIBRARY = Path(__file__).resolve().parents[1] / "trees" / "library"


def test_a_run_reads_each_subtree_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: Counter[str] = Counter()
    real = loader.load_path

    def counting(path: str | Path) -> loader.Loaded:
        reads[Path(path).resolve().name] += 1
        return real(path)

    # every way in: the loader's own module global (load_file) and validate's imported name
    monkeypatch.setattr(loader, "load_path", counting)
    monkeypatch.setattr("craftbt.trees.validate.load_path", counting)
    definition = load_file(LIBRARY / "obtain_wooden_pickaxe.yaml")
    reads.clear()
    body = starter_world(0)
    config = ExecutorConfig(geofence=scenario_fence(body))
    outcome = Executor(default_registry(), body, config=config, home=tmp_path).run(definition, base_dir=LIBRARY)
    assert outcome.status == "success"
    assert reads == Counter({"eat_if_hungry.yaml": 1})
    # the gate walked the subtree from what validation loaded, it did not skip it
    assert outcome.gate is not None
    assert not any("eat_if_hungry" in a for a in outcome.gate.assumptions)
