"""Whose fault: a capability that came from a plugin and misbehaves is a ``plugin_error`` naming both.

A plugin's spec is checked when it registers (a family or permissions given as strings, an args
model that is not a pydantic model or has no JSON Schema, a runner, guard or acceptance that is
not callable); at run time, a guard, runner or acceptance check of a plugin's capability that
raises (``SystemExit`` included), or a runner that is not a generator, stops the run with a
``plugin_error`` naming the plugin and the capability instead of a "craftbt bug". Shipped
capabilities are not wrapped: their exceptions are craftbt's bugs and stay exit 3.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from craftbt.capabilities.spec import CapabilitySpec, CheckSpec, Family, Permission
from craftbt.core.errors import CraftbtError, ErrorCode

#: ``spec.meta`` key holding the ``module:function`` of the plugin that registered the spec
PLUGIN_KEY = "plugin"


def plugin_of(spec: CapabilitySpec | CheckSpec) -> str | None:
    meta = getattr(spec, "meta", None)
    return meta.get(PLUGIN_KEY) if isinstance(meta, dict) else None


def plugin_error(plugin: str, subject: str, message: str) -> CraftbtError:
    return CraftbtError.single(
        ErrorCode.PLUGIN_ERROR, f"capability plugin {plugin!r}: {subject}: {message}",
        expected="a fix in the plugin (craftbt itself is fine)")


def describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _args_model_problem(model: Any) -> str | None:
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return f"args_model {model!r} is not a pydantic model class"
    try:
        model.model_json_schema()
    except Exception as exc:  # a field type without a JSON Schema: the manifest could not publish it
        return f"args_model {model.__name__} has no JSON Schema ({describe(exc)})"
    return None


def spec_problem(spec: Any) -> str | None:
    """Why a plugin's spec cannot be registered, or None."""
    if isinstance(spec, CheckSpec):
        if not callable(spec.predicate):
            return "predicate is not callable"
        return _args_model_problem(spec.args_model)
    if not isinstance(spec, CapabilitySpec):
        return f"registered a {type(spec).__name__}, not a CapabilitySpec"
    if not isinstance(spec.family, Family):
        return f"family {spec.family!r} is not a Family (use Family.{str(spec.family).upper()})"
    perms = spec.permissions
    if not isinstance(perms, frozenset | set) or not all(isinstance(p, Permission) for p in perms):
        return f"permissions {perms!r} are not a frozenset of Permission"
    for name in ("runner", "acceptance", "guard"):
        if not callable(getattr(spec, name)):
            return f"{name} is not callable"
    if not isinstance(spec.timeout_ms, int) or not isinstance(spec.retries, int):
        return "timeout_ms and retries must be integers"
    return _args_model_problem(spec.args_model)


def blame(spec: CapabilitySpec | CheckSpec, what: str, exc: BaseException) -> None:
    """Raise the ``plugin_error`` for ``exc`` raised by a plugin's ``what``; return for shipped specs
    (the caller re-raises: a shipped capability's exception is craftbt's bug)."""
    plugin = plugin_of(spec)
    if plugin is None or isinstance(exc, CraftbtError):
        return
    key = getattr(spec, "key", spec.name)
    raise plugin_error(plugin, f"capability {key}", f"its {what} raised {describe(exc)}") from exc
