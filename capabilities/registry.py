"""The capability registry: register, get (with version pins), list, manifest.

A name may be registered at several semver versions. ``get("craft_recipe")``
returns the newest non-deprecated-or-newest version; ``get("craft_recipe@1")``
pins major version 1 (newest 1.x.y); ``get("craft_recipe@1.2.0")`` is exact.
An unknown name raises a :class:`CraftbtError` with close-match suggestions.
"""

from __future__ import annotations

import builtins
import dataclasses
import difflib
from collections.abc import Iterable
from typing import Any

from craftbt.capabilities.spec import CapabilitySpec, CheckSpec
from craftbt.core.errors import CraftbtError, ErrorCode


def split_ref(ref: str) -> tuple[str, str | None]:
    """``"name@1"`` -> ``("name", "1")``; ``"name"`` -> ``("name", None)``."""
    name, sep, version = ref.partition("@")
    return name, (version if sep else None)


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


class Registry:
    """Holds capability specs by name and version, and condition checks by name."""

    def __init__(self) -> None:
        #: the plugin (``module:function``) being loaded: what it registers is checked and stamped with it
        self.loading_plugin: str | None = None
        self._caps: dict[str, dict[str, CapabilitySpec]] = {}
        self._checks: dict[str, CheckSpec] = {}
        # get() runs on every executor dispatch: resolved refs are cached until the next (un)register.
        self._resolved: dict[str, CapabilitySpec] = {}
        #: name -> (oldest first, newest first); the same sorts as before, done once per (un)register
        self._ordered: dict[str, tuple[tuple[CapabilitySpec, ...], tuple[CapabilitySpec, ...]]] = {}

    def copy(self) -> Registry:
        """A new registry holding every capability version and every condition check of this one.

        Start your own registry from the defaults with ``craftbt.default_registry().copy()``, then
        register your capabilities on it: trees with ``condition:`` nodes keep working, and the
        process-wide default registry is left as it was.
        """
        clone = Registry()
        for versions in self._caps.values():
            for spec in versions.values():
                clone.register(spec)
        for check in self._checks.values():
            clone.register_check(check)
        return clone

    # -- capabilities -------------------------------------------------------
    def register(self, spec: CapabilitySpec) -> CapabilitySpec:
        if self.loading_plugin is not None:
            spec = self._from_plugin(spec)
        versions = self._caps.setdefault(spec.name, {})
        if spec.version in versions:
            raise CraftbtError.single(
                ErrorCode.DUPLICATE_CAPABILITY,
                f"capability {spec.key} is already registered"
                + (f" (registering it again: plugin {self.loading_plugin!r})" if self.loading_plugin else ""),
            )
        versions[spec.version] = spec
        self._invalidate()
        return spec

    def _from_plugin(self, spec: Any) -> Any:
        """A plugin's spec, checked, and stamped with the plugin's name (for ``plugin_error`` later)."""
        from craftbt.capabilities.plugin_faults import PLUGIN_KEY, plugin_error, spec_problem

        plugin = self.loading_plugin
        assert plugin is not None
        why = spec_problem(spec)
        if why is not None:
            name = getattr(spec, "key", None) or getattr(spec, "name", None) or "?"
            raise plugin_error(plugin, f"capability {name}", why)
        if isinstance(spec, CapabilitySpec):
            return dataclasses.replace(spec, meta={**spec.meta, PLUGIN_KEY: plugin})
        check = dataclasses.replace(spec)
        object.__setattr__(check, "meta", {PLUGIN_KEY: plugin})  # CheckSpec has no meta field of its own
        return check

    def unregister(self, ref: str) -> None:
        spec = self.get(ref)
        del self._caps[spec.name][spec.version]
        if not self._caps[spec.name]:
            del self._caps[spec.name]
        self._invalidate()

    def _invalidate(self) -> None:
        self._resolved.clear()
        self._ordered.clear()

    def _sorted(self, name: str) -> tuple[tuple[CapabilitySpec, ...], tuple[CapabilitySpec, ...]]:
        ordered = self._ordered.get(name)
        if ordered is None:
            versions = self._caps.get(name, {}).values()
            ordered = (tuple(sorted(versions, key=lambda s: s.version_tuple)),
                       tuple(sorted(versions, key=lambda s: s.version_tuple, reverse=True)))
            self._ordered[name] = ordered
        return ordered

    def has(self, ref: str) -> bool:
        try:
            self.get(ref)
        except CraftbtError:
            return False
        return True

    def get(self, ref: str) -> CapabilitySpec:
        cached = self._resolved.get(ref)
        if cached is not None:
            return cached
        spec = self._resolve(ref)
        self._resolved[ref] = spec
        return spec

    def _resolve(self, ref: str) -> CapabilitySpec:
        name, pin = split_ref(ref)
        versions = self._caps.get(name)
        if not versions:
            raise CraftbtError.single(
                ErrorCode.UNKNOWN_CAPABILITY,
                f"unknown capability {name!r}",
                expected="a registered capability name",
                suggestion=suggest(name, self._caps),
            )
        ordered = self._sorted(name)[1]
        if pin is None:
            return ordered[0]
        if pin.isascii() and pin.isdigit() and len(pin) <= 9:  # "²".isdigit() is True, int("²") raises
            for spec in ordered:
                if spec.major == int(pin):
                    return spec
        elif pin in versions:
            return versions[pin]
        raise CraftbtError.single(
            ErrorCode.UNKNOWN_VERSION,
            f"capability {name!r} has no version matching @{pin}",
            expected="one of " + ", ".join(s.version for s in ordered),
        )

    def versions(self, name: str) -> builtins.list[CapabilitySpec]:
        return builtins.list(self._sorted(name)[0])

    def names(self) -> builtins.list[str]:
        return sorted(self._caps)

    def list(self) -> builtins.list[CapabilitySpec]:
        """Every registered version, sorted by name then version."""
        return [spec for name in self.names() for spec in self.versions(name)]

    def latest(self) -> builtins.list[CapabilitySpec]:
        return [self.get(name) for name in self.names()]

    # -- checks (condition predicates) ---------------------------------------
    def register_check(self, check: CheckSpec) -> CheckSpec:
        if self.loading_plugin is not None:
            check = self._from_plugin(check)
        if check.name in self._checks:
            raise CraftbtError.single(
                ErrorCode.DUPLICATE_CAPABILITY, f"check {check.name!r} is already registered"
                + (f" (registering it again: plugin {self.loading_plugin!r})" if self.loading_plugin else ""),
            )
        self._checks[check.name] = check
        return check

    def get_check(self, name: str) -> CheckSpec:
        check = self._checks.get(name)
        if check is None:
            raise CraftbtError.single(
                ErrorCode.UNKNOWN_CHECK,
                f"unknown condition check {name!r}",
                expected="a registered check",
                suggestion=suggest(name, self._checks),
            )
        return check

    def checks(self) -> builtins.list[CheckSpec]:
        return [self._checks[n] for n in sorted(self._checks)]

    # -- export ---------------------------------------------------------------
    def manifest(self) -> dict[str, Any]:
        return {
            "manifest_version": 1,
            "capabilities": [spec.manifest_entry() for spec in self.list()],
            "checks": [check.manifest_entry() for check in self.checks()],
        }
