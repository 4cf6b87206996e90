"""A misbehaving plugin is a plugin_error naming the plugin and the capability, never a craftbt bug."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clikit import cli

ROOT = Path(__file__).resolve().parent.parent
WAVE = str(ROOT / "examples" / "wave.yaml")


@pytest.mark.parametrize(
    ("plugin", "fragment"),
    [
        ("family_string", "family 'sensing' is not a Family"),
        ("permissions_strings", "are not a frozenset of Permission"),
        ("args_not_pydantic", "is not a pydantic model class"),
        ("args_without_schema", "has no JSON Schema"),
        ("duplicate", "chat@1.0.0 is already registered (registering it again: plugin 'tests.bad_plugins:duplicate')"),
        ("exits_on_load", "SystemExit"),
        ("interrupts_on_load", "KeyboardInterrupt"),
        ("raises_on_load", "RuntimeError: cannot start"),
        ("not_a_spec", "not a CapabilitySpec"),
    ],
)
def test_a_plugin_that_cannot_register_is_named(plugin: str, fragment: str, tmp_path: Path) -> None:
    done = cli(["capabilities"], env={"CRAFTBT_PLUGINS": f"tests.bad_plugins:{plugin}", "CRAFTBT_HOME": str(tmp_path)})
    assert done.code == 1, done.text
    assert "plugin_error" in done.err and f"tests.bad_plugins:{plugin}" in done.err
    assert fragment in done.err
    assert "Traceback" not in done.text


@pytest.mark.parametrize(
    ("plugin", "fragment"),
    [
        ("runner_not_generator", "its runner raised TypeError: the runner returned ActionResult, not a generator"),
        ("runner_raises", "its runner raised RuntimeError: runner bug"),
        ("guard_raises", "its guard raised ValueError: plugin bug"),
        ("guard_exits", "its guard raised SystemExit: 7"),
        ("guard_returns_junk", "the guard returned str, not a GuardResult"),
        ("acceptance_raises", "its acceptance check raised ValueError: plugin bug"),
        ("acceptance_returns_junk", "the acceptance check returned bool, not a VerificationResult"),
    ],
)
def test_a_plugin_that_fails_at_run_time_is_named(plugin: str, fragment: str, tmp_path: Path) -> None:
    env = {"CRAFTBT_PLUGINS": f"tests.bad_plugins:{plugin}", "CRAFTBT_HOME": str(tmp_path)}
    done = cli(["run", WAVE, "--scenario", "flat_empty", "--json"], env=env)
    assert done.code == 1, done.text
    assert f"plugin_error: capability plugin 'tests.bad_plugins:{plugin}': capability wave@1.0.0" in done.err
    assert fragment in done.err
    assert "Traceback" not in done.text and "craftbt bug" not in done.text


def test_debug_adds_the_traceback_and_keeps_the_exit_code(tmp_path: Path) -> None:
    env = {"CRAFTBT_PLUGINS": "tests.bad_plugins:guard_raises", "CRAFTBT_HOME": str(tmp_path), "CRAFTBT_DEBUG": "1"}
    done = cli(["run", WAVE, "--scenario", "flat_empty", "--json"], env=env)
    assert done.code == 1
    assert "Traceback" in done.err and "plugin_error" in done.err
