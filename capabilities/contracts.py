"""The action contract registry: solver/MC action types to leaves, and their parameter normalization.

Seed 000 ("Solver -> Leaf Routing", "Action Contract Registry", "Fallback planner",
"stepToLeafExecution switch") and seed 002 (explicit vs derived args, fail-closed mapping).
Everything is data: :data:`ACTION_CONTRACTS`, :data:`SOLVER_ACTIONS`, :data:`FALLBACK_PLANS` and
:data:`STEP_DERIVATIONS` are tables; the functions below only interpret them.

Normalization semantics (exactly the seed's):

* null-as-absent: ``None`` and a missing key are the same "not provided" for alias targets,
  defaults and required keys; ``None`` cannot clear a value.
* alias source cleanup: an alias source key is always removed from the output, even when ``None``.
* alias conflict: when source and target are both set, the target wins, the source is removed and a
  warning is returned in :class:`NormalizedParams` (and logged).
* required keys: missing ones are a fail-closed rejection (:class:`ContractError`) before any leaf runs,
  in every dispatch mode.
* idempotent: ``normalize(normalize(x).params).params == normalize(x).params``.

Dispatch modes: ``leaf`` runs the leaf; ``handler`` names the seed's dedicated handler (our leaf does
the handler's work, so the executor may run the leaf; the mode is kept for evidence); ``guarded`` checks
the semantic guards on the raw params first and routes to the handler when one fires, keeping the keys
the handler needs (``placement``, ``count``, ``exploreOnFail``) that the leaf path strips.
"""

from __future__ import annotations

import difflib
import functools
import logging
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from craftbt.core.errors import CraftbtError, ErrorCode, Problem

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry
    from craftbt.capabilities.spec import CapabilitySpec

log = logging.getLogger(__name__)

#: Blocks a ``place:<x>`` solver action places through ``place_workstation`` (reuse-first, no sprawl).
WORKSTATIONS: tuple[str, ...] = (
    "crafting_table",
    "furnace",
    "blast_furnace",
    "smoker",
    "stonecutter",
    "smithing_table",
    "cartography_table",
    "fletching_table",
    "loom",
    "grindstone",
    "anvil",
    "brewing_stand",
    "enchanting_table",
)

#: Placeholder argument values: what a derivation writes when it has nothing to derive from, and what a
#: plan author writes for an argument it did not know. Never live-dispatchable (seed 002).
SENTINELS: frozenset[str] = frozenset({"unknown", "UNKNOWN", "<unknown>", "?", "TODO"})


def is_sentinel(value: Any) -> bool:
    """Whether an argument value is a placeholder (surrounding whitespace does not hide one)."""
    return isinstance(value, str) and value.strip() in SENTINELS


class DispatchMode(StrEnum):
    LEAF = "leaf"
    HANDLER = "handler"
    GUARDED = "guarded"


class RejectionCode(StrEnum):
    """Why an action was refused before reaching a leaf. Stable strings: they are recorded."""

    NO_MAPPED_ACTION = "no_mapped_action"
    MISSING_REQUIRED_KEYS = "missing_required_keys"
    ARGS_NOT_OBJECT = "args_not_object"
    SENTINEL_ARGS = "sentinel_args"
    INVALID_REQUIREMENT = "invalid_requirement"


class WarningCode(StrEnum):
    ALIAS_CONFLICT = "alias_conflict"
    DEPRECATED_KEY = "deprecated_key"
    ACTION_TYPE_OVERRIDE = "action_type_override"


class ContractError(CraftbtError):
    """A fail-closed rejection; ``reason`` is the specific :class:`RejectionCode`."""

    def __init__(self, reason: RejectionCode, message: str, *, action_type: str, **details: Any) -> None:
        code = ErrorCode.UNKNOWN_CAPABILITY if reason is RejectionCode.NO_MAPPED_ACTION else ErrorCode.INVALID_ARGS
        super().__init__(
            Problem(code, f"{reason.value}: {message}", suggestion=details.get("suggestion"))
        )
        self.reason = reason
        self.action_type = action_type
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason.value,
            "action_type": self.action_type,
            "message": str(self),
            **self.details,
        }


# -- table rows -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Alias:
    source: str
    target: str


class GuardOp(StrEnum):
    SET_AND_NOT = "set_and_not"  # value is set and differs from the operand
    GREATER_THAN = "greater_than"
    IS_TRUE = "is_true"


def _set_and_not(value: Any, operand: Any) -> bool:
    return bool(value is not None and value != operand)


def _greater_than(value: Any, operand: Any) -> bool:
    # A non-numeric count is the leaf's validation problem, not a reason to route elsewhere.
    return isinstance(value, int | float) and not isinstance(value, bool) and bool(operator.gt(value, operand))


def _is_true(value: Any, operand: Any) -> bool:
    return value is True


GUARD_OPS: dict[GuardOp, Callable[[Any, Any], bool]] = {
    GuardOp.SET_AND_NOT: _set_and_not,
    GuardOp.GREATER_THAN: _greater_than,
    GuardOp.IS_TRUE: _is_true,
}


@dataclass(frozen=True)
class SemanticGuard:
    """Fires on the raw params; when it does, a guarded action goes to ``handler``."""

    name: str
    key: str
    op: GuardOp
    operand: Any = None
    handler: str = ""

    def fires(self, params: Mapping[str, Any]) -> bool:
        return GUARD_OPS[self.op](params.get(self.key), self.operand)


@dataclass(frozen=True)
class ActionContract:
    """One MC-side action type: which leaf, how its params normalize, how it dispatches."""

    action_type: str
    leaf: str
    dispatch: DispatchMode = DispatchMode.LEAF
    handler: str | None = None
    aliases: tuple[Alias, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    strip: frozenset[str] = frozenset()
    #: deprecated key -> the key to use instead; the key is removed with a warning.
    deprecated: Mapping[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    guards: tuple[SemanticGuard, ...] = ()


_CRAFT_ALIASES = (Alias("item", "recipe"), Alias("quantity", "qty"))
_SMELT_ALIASES = (Alias("item", "input"), Alias("quantity", "qty"))

_CONTRACT_ROWS: tuple[ActionContract, ...] = (
    ActionContract("acquire_material", "acquire_material", aliases=(Alias("blockType", "item"),), required=("item",)),
    ActionContract(
        "place_block",
        "place_block",
        dispatch=DispatchMode.GUARDED,
        handler="execute_place_block",
        aliases=(Alias("block_type", "item"), Alias("blockType", "item")),
        strip=frozenset({"placement", "count"}),
        required=("item",),
        guards=(
            SemanticGuard("multi_block_placement", "placement", GuardOp.SET_AND_NOT, "around_player",
                          "execute_place_block"),
            SemanticGuard("count_above_one", "count", GuardOp.GREATER_THAN, 1, "execute_place_block"),
        ),
    ),
    ActionContract(
        "collect_items_enhanced",
        "collect_items",
        dispatch=DispatchMode.GUARDED,
        handler="execute_collect_items_enhanced",
        aliases=(Alias("item", "itemName"), Alias("maxSearchTime", "timeout")),
        strip=frozenset({"exploreOnFail"}),
        guards=(
            SemanticGuard("explore_on_fail", "exploreOnFail", GuardOp.IS_TRUE, None,
                          "execute_collect_items_enhanced"),
        ),
    ),
    ActionContract("collect_items", "collect_items", aliases=(Alias("item", "itemName"),)),
    ActionContract("craft", "craft_recipe", dispatch=DispatchMode.HANDLER, handler="execute_craft",
                   aliases=_CRAFT_ALIASES, defaults={"qty": 1}, required=("recipe",)),
    ActionContract("craft_item", "craft_recipe", dispatch=DispatchMode.HANDLER, handler="execute_craft",
                   aliases=_CRAFT_ALIASES, defaults={"qty": 1}, required=("recipe",)),
    ActionContract("smelt", "smelt", dispatch=DispatchMode.HANDLER, handler="execute_smelt",
                   aliases=_SMELT_ALIASES, defaults={"fuel": "coal"}, required=("input",)),
    ActionContract("smelt_item", "smelt", dispatch=DispatchMode.HANDLER, handler="execute_smelt",
                   aliases=_SMELT_ALIASES, defaults={"fuel": "coal"}, required=("input",)),
    ActionContract("consume_food", "consume_food"),
    ActionContract("sleep", "sleep"),
    ActionContract("find_resource", "find_resource", required=("blockType",)),
    ActionContract("equip_tool", "equip_tool"),
    ActionContract("introspect_recipe", "introspect_recipe", required=("output",)),
    # The seed's field report: "Param name is `workstation` not `workstationType`".
    ActionContract("place_workstation", "place_workstation", deprecated={"workstationType": "workstation"},
                   required=("workstation",)),
    ActionContract("place_torch", "place_torch"),
    ActionContract("get_block_at", "get_block_at", required=("position",)),
)

ACTION_CONTRACTS: dict[str, ActionContract] = {row.action_type: row for row in _CONTRACT_ROWS}


def _leaf_contracts() -> dict[str, ActionContract]:
    """Leaf name -> the contract a leaf of that name is normalized by: the action type of the same name, else
    the first action type that lands on it (``craft_recipe`` <- ``craft``: a tree leaf written with the seed's
    ``{item, quantity}``)."""
    out = {row.leaf: row for row in _CONTRACT_ROWS if row.action_type == row.leaf}
    for row in _CONTRACT_ROWS:
        out.setdefault(row.leaf, row)
    return out


LEAF_CONTRACTS: dict[str, ActionContract] = _leaf_contracts()


@dataclass(frozen=True)
class SolverRoute:
    """A solver action type and the MC action (contract) it becomes."""

    action_type: str
    contract: str


#: Seed 000 ``actionTypeToLeaf``; ``place:<x>`` is resolved by :func:`resolve_solver_action`.
SOLVER_ACTIONS: dict[str, SolverRoute] = {
    row.action_type: row
    for row in (
        SolverRoute("mine", "acquire_material"),
        SolverRoute("craft", "craft"),
        SolverRoute("smelt", "smelt"),
        SolverRoute("upgrade", "craft"),  # tool progression only
    )
}

PLACE_PREFIX = "place:"


def validate_contracts(contracts: Mapping[str, ActionContract] = ACTION_CONTRACTS) -> list[str]:
    """Table invariants that idempotency depends on; returns the violations (empty when sound)."""
    problems: list[str] = []
    for name, c in contracts.items():
        sources = {a.source for a in c.aliases}
        targets = {a.target for a in c.aliases}
        produced = targets | set(c.defaults) | set(c.required)
        removed = sources | set(c.strip) | set(c.deprecated)
        if len(sources) != len(c.aliases):
            problems.append(f"{name}: an alias source appears twice")
        if overlap := produced & removed:
            problems.append(f"{name}: keys both produced and removed: {sorted(overlap)}")
        if c.dispatch is not DispatchMode.LEAF and not c.handler:
            problems.append(f"{name}: {c.dispatch.value} dispatch needs a handler")
        if c.guards and c.dispatch is not DispatchMode.GUARDED:
            problems.append(f"{name}: semantic guards only apply to guarded dispatch")
    return problems


_violations = validate_contracts()
if _violations:  # a broken table is a programming error; refuse to import rather than misroute
    raise RuntimeError("invalid ACTION_CONTRACTS: " + "; ".join(_violations))


# -- results ----------------------------------------------------------------------------------------
class NormalizationWarning(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: WarningCode
    key: str
    message: str
    kept: Any = None
    dropped: Any = None


class NormalizedParams(BaseModel):
    action_type: str
    params: dict[str, Any]
    warnings: list[NormalizationWarning] = Field(default_factory=list)


class RouteDecision(BaseModel):
    """Where an action goes: ``leaf`` with ``args`` in ``mode`` (``handler`` set when one is chosen)."""

    action_type: str
    contract: str | None
    leaf: str
    args: dict[str, Any]
    mode: DispatchMode
    handler: str | None = None
    guard: str | None = None
    warnings: list[NormalizationWarning] = Field(default_factory=list)

    def as_tuple(self) -> tuple[str, dict[str, Any], DispatchMode]:
        return self.leaf, self.args, self.mode


# -- normalization ----------------------------------------------------------------------------------
def _require_mapping(action_type: str, params: object) -> Mapping[str, Any]:
    if not isinstance(params, Mapping):
        raise ContractError(
            RejectionCode.ARGS_NOT_OBJECT,
            f"params for {action_type!r} must be an object, got {type(params).__name__}",
            action_type=action_type,
        )
    return params


def apply_aliases(aliases: tuple[Alias, ...], params: Mapping[str, Any]) -> tuple[dict[str, Any],
                                                                               list[NormalizationWarning]]:
    """The seed's alias rules, the one implementation of them: the source key always goes (even when null),
    a null source sets nothing (null-as-absent), and when source and target are both set the target wins
    with an ``alias_conflict`` warning."""
    out = dict(params)
    warnings: list[NormalizationWarning] = []
    for alias in aliases:
        if alias.source not in out:
            continue
        value = out.pop(alias.source)  # the source goes even when it is null
        if value is None:
            continue
        current = out.get(alias.target)
        if current is None:
            out[alias.target] = value
            continue
        warnings.append(
            NormalizationWarning(
                code=WarningCode.ALIAS_CONFLICT,
                key=alias.target,
                message=f"{alias.source!r} and {alias.target!r} both set; kept {alias.target!r}",
                kept=current,
                dropped=value,
            )
        )
    return out, warnings


def _apply(contract: ActionContract, params: Mapping[str, Any], *, strip: bool) -> NormalizedParams:
    out, warnings = apply_aliases(contract.aliases, params)
    for key, replacement in contract.deprecated.items():
        if key not in out:
            continue
        value = out.pop(key)
        if value is not None:
            warnings.append(
                NormalizationWarning(
                    code=WarningCode.DEPRECATED_KEY,
                    key=key,
                    message=f"{key!r} is deprecated and was dropped; use {replacement!r}",
                    dropped=value,
                )
            )
    if strip:
        for key in contract.strip:
            out.pop(key, None)
    for key, default in contract.defaults.items():
        if out.get(key) is None:
            out[key] = default
    for w in warnings:
        log.warning("%s: %s", contract.action_type, w.message)
    return NormalizedParams(action_type=contract.action_type, params=out, warnings=warnings)


def normalize_action_params(action_type: str, params: Mapping[str, Any]) -> NormalizedParams:
    """Apply the contract of ``action_type`` (aliases, deprecated, strip, defaults).

    An action type without a contract passes through unchanged: routing, not normalization, is where
    unknown actions are refused.
    """
    mapping = _require_mapping(action_type, params)
    contract = ACTION_CONTRACTS.get(action_type)
    if contract is None:
        return NormalizedParams(action_type=action_type, params=dict(mapping))
    return _apply(contract, mapping, strip=True)


class LeafNormalization(BaseModel):
    """What the normalizer did to one leaf's args before validation; recorded on the step (``normalized``)."""

    leaf: str
    #: the contract whose table applied (``craft`` for a ``craft_recipe`` leaf), None for the args model's own
    contract: str | None = None
    #: the args as written
    written: dict[str, Any]
    #: alias source -> the canonical key it became
    renamed: dict[str, str] = Field(default_factory=dict)
    #: keys a default filled (absent or null)
    defaulted: list[str] = Field(default_factory=list)
    #: null values dropped so the args model's default applies (null-as-absent)
    nulls: list[str] = Field(default_factory=list)
    warnings: list[NormalizationWarning] = Field(default_factory=list)


def normalize_leaf_args(leaf: str, args: Mapping[str, Any], *, seed_aliases: Mapping[str, str] | None = None,
                        defaults: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], LeafNormalization | None]:
    """A tree leaf's args in the capability's own names, before any validation (trees, planners, CraftScript
    and MCP calls all reach a leaf through here).

    Applies the leaf's contract (``LEAF_CONTRACTS``: aliases, deprecated keys, defaults) and the args model's
    own ``seed_aliases``, with the seed's rules (null-as-absent, source cleanup, target wins on conflict); a
    null for a key whose model default is not null (``defaults``) is dropped, so the default applies. A
    semantic guard that fires (``place_block`` with ``count > 1``) strips nothing: its keys reach validation,
    which refuses them. Returns the args and the record, or the args unchanged and None when nothing changed.
    """
    contract = LEAF_CONTRACTS.get(leaf)
    aliases = tuple(contract.aliases if contract else ()) + tuple(
        Alias(src, dst) for src, dst in (seed_aliases or {}).items())
    if not aliases and contract is None and not any(v is None for v in args.values()):
        return dict(args), None
    renamed = {a.source: a.target for a in aliases if args.get(a.source) is not None}
    if contract is not None:
        fired = any(g.fires(args) for g in contract.guards)
        applied = _apply(contract, args, strip=not fired)
        out, warnings = apply_aliases(aliases[len(contract.aliases):], applied.params)
        warnings = [*applied.warnings, *warnings]
    else:
        out, warnings = apply_aliases(aliases, args)
    model_defaults = defaults or {}
    nulls = [k for k, v in out.items() if v is None and model_defaults.get(k) is not None]
    for key in nulls:
        del out[key]
    defaulted: list[str] = []
    provided = {k for k, v in args.items() if v is not None} | set(renamed.values())
    for key, value in (contract.defaults if contract else {}).items():
        if key in provided:
            continue
        if key in model_defaults and model_defaults[key] == value:
            out.pop(key, None)  # the model's own default says the same: leave it absent
            if key in args:
                nulls.append(key)
        else:
            defaulted.append(key)
    if out == dict(args) and not warnings:
        return out, None
    return out, LeafNormalization(leaf=leaf, contract=contract.action_type if contract else None,
                                  written=dict(args), renamed=renamed, defaulted=defaulted, nulls=nulls,
                                  warnings=warnings)


@functools.cache
def _model_defaults(model: type[BaseModel]) -> dict[str, Any]:
    return {name: f.default for name, f in model.model_fields.items()
            if not f.is_required() and f.default_factory is None}


def normalize_spec_args(spec: CapabilitySpec, args: Mapping[str, Any]) -> tuple[dict[str, Any],
                                                                              LeafNormalization | None]:
    """:func:`normalize_leaf_args` for a registered capability: its model's seed aliases and defaults."""
    model = spec.args_model
    return normalize_leaf_args(spec.name, args, seed_aliases=getattr(model, "seed_aliases", None),
                               defaults=_model_defaults(model))


def missing_required(contract: ActionContract, params: Mapping[str, Any]) -> list[str]:
    return [key for key in contract.required if params.get(key) is None]


def _check_required(contract: ActionContract, params: Mapping[str, Any], action_type: str) -> None:
    missing = missing_required(contract, params)
    if missing:
        raise ContractError(
            RejectionCode.MISSING_REQUIRED_KEYS,
            f"{action_type!r} needs {', '.join(missing)}",
            action_type=action_type,
            missing=missing,
        )
    sentinel = [k for k in contract.required if is_sentinel(params.get(k))]
    if sentinel:
        raise ContractError(
            RejectionCode.SENTINEL_ARGS,
            f"{action_type!r} has placeholder values for {', '.join(sentinel)}",
            action_type=action_type,
            keys=sentinel,
        )


# -- routing ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SolverResolution:
    contract: str
    #: a key the action type itself sets (``place:furnace`` -> workstation=furnace)
    injected: tuple[str, str] | None = None


def resolve_solver_action(action_type: str) -> SolverResolution | None:
    """Solver action type -> MC contract name; ``None`` if it is not a solver action type."""
    if action_type.startswith(PLACE_PREFIX):
        target = action_type[len(PLACE_PREFIX):]
        if not target:
            return None
        if target in WORKSTATIONS:
            return SolverResolution("place_workstation", ("workstation", target))
        return SolverResolution("place_block", ("item", target))
    route = SOLVER_ACTIONS.get(action_type)
    return SolverResolution(route.contract) if route else None


def _inject(
    params: dict[str, Any], injected: tuple[str, str] | None, warnings: list[NormalizationWarning]
) -> None:
    if injected is None:
        return
    key, value = injected
    current = params.get(key)
    if current is not None and current != value:
        # The action type is the plan's statement of intent; a contradicting param is the mistake.
        warnings.append(
            NormalizationWarning(
                code=WarningCode.ACTION_TYPE_OVERRIDE,
                key=key,
                message=f"action type sets {key}={value!r}; dropped {current!r}",
                kept=value,
                dropped=current,
            )
        )
    params[key] = value


def route_action(action_type: str, params: object, *, registry: Registry | None = None) -> RouteDecision:
    """Resolve an action to (leaf, normalized args, dispatch mode), fail-closed.

    Order: solver action types (``mine``, ``place:<x>``, ...) -> the MC contract -> registered leaf
    names passed through unchanged (only when ``registry`` is given) -> :class:`ContractError`
    ``no_mapped_action``. Required keys are checked after normalization in every mode.
    """
    mapping = _require_mapping(action_type, params)
    solver = resolve_solver_action(action_type)
    contract_name = solver.contract if solver else action_type
    contract = ACTION_CONTRACTS.get(contract_name)
    if contract is None:
        if registry is not None and registry.has(action_type):
            return RouteDecision(
                action_type=action_type, contract=None, leaf=registry.get(action_type).name,
                args=dict(mapping), mode=DispatchMode.LEAF,
            )
        known = [*ACTION_CONTRACTS, *SOLVER_ACTIONS, *(registry.names() if registry is not None else [])]
        close = difflib.get_close_matches(action_type, known, n=1)
        raise ContractError(
            RejectionCode.NO_MAPPED_ACTION,
            f"no leaf is mapped to action type {action_type!r}",
            action_type=action_type,
            suggestion=close[0] if close else None,
        )
    fired = next((g for g in contract.guards if g.fires(mapping)), None)
    normalized = _apply(contract, mapping, strip=fired is None)
    args = normalized.params
    warnings = list(normalized.warnings)
    _inject(args, solver.injected if solver else None, warnings)
    _check_required(contract, args, action_type)
    if fired is not None:
        return RouteDecision(
            action_type=action_type, contract=contract.action_type, leaf=contract.leaf, args=args,
            mode=DispatchMode.HANDLER, handler=fired.handler, guard=fired.name, warnings=warnings,
        )
    return RouteDecision(
        action_type=action_type, contract=contract.action_type, leaf=contract.leaf, args=args,
        mode=contract.dispatch,
        handler=contract.handler if contract.dispatch is DispatchMode.HANDLER else None,
        warnings=warnings,
    )


def action_type_to_leaf(action_type: str) -> str | None:
    """Seed ``actionTypeToLeaf``: the leaf a solver or MC action type lands on, or None."""
    solver = resolve_solver_action(action_type)
    contract = ACTION_CONTRACTS.get(solver.contract if solver else action_type)
    return contract.leaf if contract else None


# -- fallback planner -------------------------------------------------------------------------------
class Requirement(BaseModel):
    """What a goal needs when no solver answered (seed ``requirementToFallbackPlan``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    kind: Literal["collect", "mine", "craft", "build"]
    item: str | None = Field(default=None, min_length=1)
    quantity: int = Field(default=1, ge=1)
    module_id: str | None = Field(default=None, alias="moduleId", min_length=1)
    #: a build step places the module here (``build_module`` cannot run without it)
    origin: dict[str, int] | None = None
    facing: Literal["N", "E", "S", "W"] = "N"


class PlanStep(BaseModel):
    model_config = ConfigDict(frozen=True)

    leaf: str
    args: dict[str, Any]


@dataclass(frozen=True)
class FallbackRule:
    leaf: str
    #: the requirement fields the step cannot do without
    needs: tuple[Literal["item", "module_id", "origin"], ...]
    build: Callable[[Requirement], dict[str, Any]]


FALLBACK_PLANS: dict[str, FallbackRule] = {
    "collect": FallbackRule("acquire_material", ("item",), lambda r: {"item": r.item, "count": 1}),
    "mine": FallbackRule("acquire_material", ("item",), lambda r: {"item": r.item, "count": 1}),
    "craft": FallbackRule("craft_recipe", ("item",), lambda r: {"recipe": r.item, "qty": r.quantity}),
    # build_module's own argument names: the seed's {moduleId} alone is rejected by the leaf (no origin)
    "build": FallbackRule("build_module", ("module_id", "origin"),
                          lambda r: {"module_id": r.module_id, "origin": r.origin, "facing": r.facing}),
}


def requirement_to_fallback_plan(requirement: Requirement | Mapping[str, Any]) -> list[PlanStep]:
    """One-step plan for a requirement; a requirement missing what its step needs is rejected."""
    req = requirement if isinstance(requirement, Requirement) else _parse_requirement(requirement)
    rule = FALLBACK_PLANS[req.kind]
    missing = [name for name in rule.needs if getattr(req, name) is None]
    if missing:
        raise ContractError(
            RejectionCode.INVALID_REQUIREMENT,
            f"a {req.kind!r} requirement needs {', '.join(missing)}",
            action_type=req.kind,
        )
    return [PlanStep(leaf=rule.leaf, args=rule.build(req))]


def _parse_requirement(raw: Mapping[str, Any]) -> Requirement:
    from pydantic import ValidationError

    try:
        return Requirement.model_validate(dict(raw))
    except ValidationError as exc:
        raise ContractError(
            RejectionCode.INVALID_REQUIREMENT,
            "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<requirement>'}: {e['msg']}" for e in exc.errors()),
            action_type=str(raw.get("kind", "?")),
        ) from None


# -- step -> leaf execution (explicit vs derived args, seed 002) ------------------------------------
class ArgsSource(StrEnum):
    EXPLICIT = "explicit"
    DERIVED = "derived"


class LeafExecution(BaseModel):
    leaf: str
    args: dict[str, Any]
    args_source: ArgsSource
    original_leaf: str | None = None

    @property
    def block_reason(self) -> str | None:
        """Why live mode must not dispatch this (seed 002), or None when it may."""
        if self.args_source is ArgsSource.DERIVED:
            return "derived_args_not_allowed_live"
        if any(is_sentinel(v) for v in self.args.values()):
            return "sentinel_args"
        return None


def _first_name(entries: Any) -> str | None:
    if isinstance(entries, list) and entries and isinstance(entries[0], Mapping):
        name = entries[0].get("name")
        return name if isinstance(name, str) and name else None
    return None


def _first_count(entries: Any) -> int | None:
    if isinstance(entries, list) and entries and isinstance(entries[0], Mapping):
        count = entries[0].get("count")
        return count if isinstance(count, int) and not isinstance(count, bool) else None
    return None


def _or_sentinel(value: Any) -> Any:
    return "unknown" if value is None else value


def _derive_acquire(meta: Mapping[str, Any]) -> dict[str, Any]:
    item = meta.get("item") or _first_name(meta.get("produces")) or meta.get("blockType")
    count = meta.get("count") or _first_count(meta.get("produces")) or 1
    return {"item": _or_sentinel(item), "count": count}


def _derive_module(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {"moduleId": _or_sentinel(meta.get("moduleId"))}


@dataclass(frozen=True)
class StepDerivation:
    dispatched_as: str
    derive: Callable[[Mapping[str, Any]], dict[str, Any]]


#: Seed 000 ``stepToLeafExecution``: how a step without explicit args becomes leaf args.
STEP_DERIVATIONS: dict[str, StepDerivation] = {
    "dig_block": StepDerivation(
        "acquire_material", lambda m: {"item": _or_sentinel(_first_name(m.get("produces")))}
    ),
    "craft_recipe": StepDerivation(
        "craft_recipe",
        lambda m: {"recipe": _or_sentinel(_first_name(m.get("produces"))),
                   "qty": _first_count(m.get("produces")) or m.get("qty") or 1},
    ),
    "smelt": StepDerivation("smelt", lambda m: {"input": _or_sentinel(_first_name(m.get("consumes")))}),
    "place_workstation": StepDerivation(
        "place_workstation", lambda m: {"workstation": _or_sentinel(m.get("workstation"))}
    ),
    "place_block": StepDerivation("place_block", lambda m: {"item": _or_sentinel(_first_name(m.get("consumes")))}),
    "acquire_material": StepDerivation("acquire_material", _derive_acquire),
    "prepare_site": StepDerivation("prepare_site", _derive_module),
    "build_module": StepDerivation("build_module", _derive_module),
    "place_feature": StepDerivation("place_feature", _derive_module),
    "building_step": StepDerivation("building_step", _derive_module),
}


def step_to_leaf_execution(meta: Mapping[str, Any]) -> LeafExecution | None:
    """A plan step's ``meta`` -> the leaf to run; ``None`` for an unknown leaf (``unknown_leaf``).

    Explicit args (a plain dict in ``meta["args"]``, Option A) pass through untouched, whatever the
    leaf. Otherwise args are derived from ``produces``/``consumes`` (a non-certifiable, live-blocked
    path) and a missing source becomes the ``"unknown"`` sentinel rather than a guess.
    """
    leaf = meta.get("leaf")
    if not isinstance(leaf, str) or not leaf:
        return None
    args = meta.get("args")
    if type(args) is dict:  # only a plain dict is Option A: not a list, not a dict subclass
        return LeafExecution(leaf=leaf, args=dict(args), args_source=ArgsSource.EXPLICIT)
    derivation = STEP_DERIVATIONS.get(leaf)
    if derivation is None:
        return None
    return LeafExecution(
        leaf=derivation.dispatched_as,
        args=derivation.derive(meta),
        args_source=ArgsSource.DERIVED,
        original_leaf=leaf if derivation.dispatched_as != leaf else None,
    )


# -- deprecated leaves remapped at dispatch (seed 000 stepToLeafExecution) --------------------------
def _dig_block_remap(args: Mapping[str, Any]) -> dict[str, Any] | None:
    """``dig_block {blockType|expect[, tool]}`` -> ``acquire_material {item[, tool]}``.

    A ``dig_block`` that names only a position stays itself: ``acquire_material`` digs the nearest block
    of a kind, not one given block, so remapping it would dig something else."""
    item = args.get("blockType") or args.get("expect")
    if not isinstance(item, str) or not item or args.get("pos") is not None:
        return None
    out: dict[str, Any] = {"item": item}
    if args.get("tool") is not None:
        out["tool"] = args["tool"]
    return out


#: deprecated leaf -> (the leaf it runs as, explicit args -> its args or None when it cannot be remapped)
DEPRECATED_REMAPS: dict[str, tuple[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]]] = {
    "dig_block": ("acquire_material", _dig_block_remap),
}


def remap_deprecated(leaf: str, args: Mapping[str, Any]) -> LeafExecution | None:
    """The leaf a deprecated leaf runs as, with ``original_leaf`` set; None when it runs as itself."""
    entry = DEPRECATED_REMAPS.get(leaf)
    if entry is None:
        return None
    target, remap = entry
    mapped = remap(args)
    if mapped is None:
        return None
    return LeafExecution(leaf=target, args=mapped, args_source=ArgsSource.EXPLICIT, original_leaf=leaf)
