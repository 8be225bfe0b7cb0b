"""Fence settings: the frozen settings object, its defaults, and the one precedence function.

Owns the `fence` marker's argument table, validation of every layer (CLI > marker > fixture > ini >
default) and the choice constants the options and the tests import. Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

# One constant for the option, the ini key and the cassette layer (cassettes.py imports no vcrpy at load).
from pytest_auditfence.cassettes import RECORD_MODES

MODES: tuple[str, ...] = ("deterministic", "llm")

MARKER_NAME = "fence"

MAX_FAILURE_CLAIMS = 10
"""Failing claims a failure message shows by default (the rest are counted); with -v, all of them."""
_failure_claims: list[int | None] = [MAX_FAILURE_CLAIMS]


def failure_claims_shown() -> int | None:
    """How many failing claims a failure message shows now (None: all): what the pytest run asked for."""
    return _failure_claims[0]


def show_failure_claims(limit: int | None) -> int | None:
    """Set how many failing claims failure messages show (the plugin: None under -v); returns the old value."""
    previous, _failure_claims[0] = _failure_claims[0], limit
    return previous


class SettingsError(ValueError):
    """A setting got a value of the wrong type or out of range; the message is complete on its own."""


def _check_fraction(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SettingsError(f"{name} must be a number between 0.0 and 1.0, got {value!r} ({type(value).__name__})")
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise SettingsError(f"{name} must be between 0.0 and 1.0, got {value!r}")
    return float(value)


def _check_count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(
            f"{name} must be a whole number of claims >= 0, got {value!r} ({type(value).__name__})"
        )
    if value < 0:
        raise SettingsError(f"{name} must be >= 0, got {value!r}")
    return value


def _check_chars(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SettingsError(
            f"{name} must be a whole number of characters >= 1, got {value!r} ({type(value).__name__}); the "
            f"default is {DEFAULTS.max_output_chars}"
        )
    return value


def _check_choice(choices: tuple[str, ...]) -> Callable[[str, Any], str]:
    def check(name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            allowed = ", ".join(repr(c) for c in choices)
            raise SettingsError(f"{name} must be one of {allowed}, got {value!r}")
        return value

    return check


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return value


def _check_policy(name: str, value: Any) -> Any:
    # A Policy object from pytest_auditfence.audit.policy; checked by duck type so this module
    # stays free of pydantic (the plugin imports it at load time).
    if value is None or type(value).__name__ == "Policy":
        return value
    raise SettingsError(
        f"{name} must be None or a pytest_auditfence.Policy, got {value!r} ({type(value).__name__})"
    )


def _check_optional_text(name: str, value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value):
        return value
    raise SettingsError(f"{name} must be a non-empty path string, got {value!r}")


@dataclass(frozen=True)
class FenceSettings:
    """Everything that decides how one fenced test is audited and judged."""

    min_coverage: float = 1.0
    max_hallucinations: int = 0
    mode: str = "deterministic"
    adversarial: bool = False
    policy: Any = None
    report_only: bool = False
    record_mode: str = "none"
    trace_dir: str | None = None
    max_output_chars: int = 200_000  # a captured file longer than this is cut, and the verdicts say so

    def thresholds(self) -> dict[str, Any]:
        """The values a report records next to a test's numbers (the policy by its type name only)."""
        return {
            "adversarial": self.adversarial,
            "max_hallucinations": self.max_hallucinations,
            "min_coverage": self.min_coverage,
            "mode": self.mode,
            "policy": None if self.policy is None else type(self.policy).__name__,
            "report_only": self.report_only,
        }


DEFAULTS = FenceSettings()

# name -> validator; the order is the order of the marker's signature line.
_VALIDATORS: dict[str, Callable[[str, Any], Any]] = {
    "min_coverage": _check_fraction,
    "max_hallucinations": _check_count,
    "mode": _check_choice(MODES),
    "adversarial": _check_bool,
    "policy": _check_policy,
    "report_only": _check_bool,
    "record_mode": _check_choice(RECORD_MODES),
    "trace_dir": _check_optional_text,
    "max_output_chars": _check_chars,
}

MARKER_ARGS: tuple[str, ...] = ("min_coverage", "max_hallucinations", "mode", "adversarial", "policy", "report_only")
# marker argument -> ini key that supplies its default
INI_KEYS: dict[str, str] = {
    "min_coverage": "fence_min_coverage",
    "max_hallucinations": "fence_max_hallucinations",
    "mode": "fence_mode",
    "record_mode": "fence_record_mode",
    "max_output_chars": "fence_max_output_chars",
}
INI_HELP: dict[str, str] = {
    "fence_min_coverage": f"default min_coverage of the fence marker (0.0-1.0, default {DEFAULTS.min_coverage})",
    "fence_max_hallucinations": (
        f"default max_hallucinations of the fence marker (claims, >= 0, default {DEFAULTS.max_hallucinations})"
    ),
    "fence_mode": f"default mode of the fence marker: {' or '.join(MODES)} (default {DEFAULTS.mode})",
    "fence_record_mode": (
        f"record mode of the cassettes that every HTTP call of a fenced test replays from: "
        f"{', '.join(RECORD_MODES)} (default {DEFAULTS.record_mode} = replay only)"
    ),
    "fence_max_output_chars": (
        f"characters kept of each captured file (node output, tool call, ...); a longer one is cut and the "
        f"audit's verdicts name it (default {DEFAULTS.max_output_chars})"
    ),
    "fence_cassette_dir": (
        "folder of the fenced tests' cassettes, relative to the rootdir (<dir>/<test module path>/<test>.yaml); "
        "default: cassettes/<module name>/ next to each test module"
    ),
}
CASSETTE_DIR_INI = "fence_cassette_dir"


def parse_cassette_dir(text: str) -> str | None:
    """The ini `fence_cassette_dir` checked: a folder inside the rootdir, as a relative POSIX path; None if unset.

    Absolute paths and paths that climb out of the rootdir are refused: cassettes are committed with
    the suite, and a cassette path in a report or a re-record command must mean the same on every machine.
    """
    raw = (text or "").strip()
    if not raw:
        return None
    posix = raw.replace("\\", "/")
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    problem = None
    if posix.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        problem = "is absolute"
    elif ".." in parts:
        problem = "climbs out of the rootdir with '..'"
    elif not parts:
        problem = "names no folder"
    if problem:
        raise SettingsError(
            f"ini option {CASSETTE_DIR_INI} = {raw!r} {problem}; give a folder relative to the rootdir, "
            f"e.g. {CASSETTE_DIR_INI} = tests/cassettes (or leave it unset for cassettes/ next to each test module)"
        )
    return "/".join(parts)


def marker_signature() -> str:
    """The marker's help line: every argument, its default, and the ini key that supplies it."""
    parts = []
    for name in MARKER_ARGS:
        default = getattr(DEFAULTS, name)
        text = f"{name}={default!r}"
        if name in INI_KEYS:
            text += f" [ini {INI_KEYS[name]}]"
        parts.append(text)
    return (
        f"{MARKER_NAME}({', '.join(parts)}): audit the run captured by fence_snapshot after the test "
        f"body; mode is one of {', '.join(MODES)}; a shortfall fails the test."
    )


def validate_marker(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Check a `fence` marker's arguments; returns them validated or raises SettingsError listing every problem."""
    problems: list[str] = []
    if args:
        problems.append(
            f"positional arguments {args!r} are not accepted; pass keywords, e.g. "
            f"@pytest.mark.fence(min_coverage=0.95)"
        )
    checked: dict[str, Any] = {}
    allowed = ", ".join(MARKER_ARGS)
    for name in sorted(kwargs):
        if name not in MARKER_ARGS:
            problems.append(f"unknown argument {name}={kwargs[name]!r}; allowed arguments: {allowed}")
            continue
        try:
            checked[name] = _VALIDATORS[name](name, kwargs[name])
        except SettingsError as exc:
            problems.append(str(exc))
    if problems:
        raise SettingsError("; ".join(problems))
    return checked


def _validate_layer(layer_name: str, values: Mapping[str, Any], allowed: tuple[str, ...]) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for name in sorted(values):
        if name not in allowed:
            raise SettingsError(f"{layer_name}: unknown setting {name!r}; allowed: {', '.join(allowed)}")
        try:
            checked[name] = _VALIDATORS[name](name, values[name])
        except SettingsError as exc:
            raise SettingsError(f"{layer_name}: {exc}") from None
    return checked


def parse_ini(raw: Mapping[str, str]) -> dict[str, Any]:
    """Convert ini strings (key -> text, empty text meaning unset) into typed settings."""
    out: dict[str, Any] = {}
    for name, key in INI_KEYS.items():
        text = (raw.get(key) or "").strip()
        if not text:
            continue
        value: Any = text
        try:
            if name == "min_coverage":
                value = float(text)
            elif name in ("max_hallucinations", "max_output_chars"):
                value = int(text)
        except ValueError:
            raise SettingsError(f"ini option {key} = {text!r} is not a number; {INI_HELP[key]}") from None
        try:
            out[name] = _VALIDATORS[name](name, value)
        except SettingsError as exc:
            raise SettingsError(f"ini option {key}: {exc}") from None
    return out


def resolve_settings(
    *,
    cli: Mapping[str, Any] | None = None,
    marker: Mapping[str, Any] | None = None,
    fixture: Mapping[str, Any] | None = None,
    ini: Mapping[str, Any] | None = None,
) -> FenceSettings:
    """The only place precedence is decided: CLI > marker > fixture (fence_config) > ini > default.

    Each layer maps setting names to values; None values in the CLI layer mean "option not given".
    """
    names = tuple(f.name for f in fields(FenceSettings))
    merged: dict[str, Any] = {}
    layers = (
        ("ini", ini or {}),
        ("fence_config fixture", fixture or {}),
        ("fence marker", marker or {}),
        ("command line", {k: v for k, v in (cli or {}).items() if v is not None}),
    )
    for layer_name, values in layers:
        merged.update(_validate_layer(layer_name, values, names))
    result = FenceSettings(**merged)
    if result.adversarial and result.mode != "llm":
        # The adversarial pass is a second LLM review; silently skipping it would overstate the audit.
        raise SettingsError(
            f"adversarial=True needs mode='llm' (got mode={result.mode!r}); set mode='llm' and override "
            f"the fence_llm fixture, or drop adversarial=True"
        )
    return result
