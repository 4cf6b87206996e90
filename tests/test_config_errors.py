"""A configuration setting that cannot be used exits 1 naming the setting, never exit 3."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clikit import cli


@pytest.mark.parametrize(("setting", "value"), [("CRAFTBT_LLM_URL", "not a url"), ("CRAFTBT_LLM_URL", "ftp://x/v1"),
                                                ("CRAFTBT_LLM_TIMEOUT_S", "soon"), ("CRAFTBT_LLM_TIMEOUT_S", "-5")])
@pytest.mark.parametrize("planner", ["auto", "llm"])
def test_a_bad_llm_setting_is_exit_1_naming_it(tmp_path: Path, setting: str, value: str, planner: str) -> None:
    env = {"CRAFTBT_HOME": str(tmp_path), "CRAFTBT_LLM_URL": "http://127.0.0.1:9/v1", "CRAFTBT_LLM_MODEL": "m",
           setting: value}
    done = cli(["plan", "--goal", "obtain stick", "--planner", planner], env=env)
    assert done.code == 1, done.text
    assert f"{setting}={value!r}" in done.err and "craftbt bug" not in done.text
