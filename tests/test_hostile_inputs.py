"""Hostile inputs over every surface the issue lists, through the command line in-process.

Each case must end with exit 0, 1 or 2, print no traceback and no "craftbt bug", and a failure must
name the file, option or value at fault. The default run plays a sample; the slow run plays
``CRAFTBT_HOSTILE_CASES`` cases (10,000 when unset) and also bounds each case's time::

    CRAFTBT_HOSTILE_FULL=1 .venv/bin/python -m pytest tests/test_hostile_inputs.py -m slow -s
"""

from __future__ import annotations

import collections
import os
import resource

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile import ANY_CASE, SURFACES, Case, check, play

#: one case taking longer than this counts as a hang
LIMIT_S = 20.0
#: the address space the full run may use (a case that needs more fails with MemoryError, exit 3)
MEMORY_LIMIT = 6 * 1024**3

SAMPLE = settings(max_examples=12, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_a_sample_of_hostile_inputs_is_answered(surface: str) -> None:
    @SAMPLE
    @given(SURFACES[surface])
    def one(case: Case) -> None:
        check(play(case))

    one()


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("CRAFTBT_HOSTILE_FULL"), reason="set CRAFTBT_HOSTILE_FULL=1 (about 30 min)")
def test_ten_thousand_hostile_inputs() -> None:
    cases = int(os.environ.get("CRAFTBT_HOSTILE_CASES", "10000"))
    tally: collections.Counter[str] = collections.Counter()
    slow: list[tuple[float, list[str]]] = []

    @settings(max_examples=cases, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(ANY_CASE, st.randoms())
    def one(case: Case, _: object) -> None:
        played = play(case)
        tally["cases"] += 1
        tally[f"{case.surface}"] += 1
        tally[f"exit {played.done.code}"] += 1
        if "Traceback" in played.done.text:
            tally["tracebacks"] += 1
        if played.seconds > LIMIT_S:
            slow.append((played.seconds, played.case.args))
        check(played)

    # a runaway case must fail as a MemoryError naming itself, not take the machine down with it
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (min(MEMORY_LIMIT, hard) if hard > 0 else MEMORY_LIMIT, hard))
    try:
        one()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        print(f"\nhostile inputs: {dict(sorted(tally.items()))}; past {LIMIT_S:.0f} s: {len(slow)} {slow[:5]}")
    assert not slow, slow[:5]
