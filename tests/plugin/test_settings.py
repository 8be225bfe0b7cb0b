"""Settings precedence (CLI > marker > fixture > ini > default), layer by layer, and marker validation."""

from __future__ import annotations

import pytest

from pytest_auditfence.audit.policy import Policy
from pytest_auditfence.settings import (
    DEFAULTS,
    MARKER_ARGS,
    MODES,
    RECORD_MODES,
    SettingsError,
    marker_signature,
    parse_ini,
    resolve_settings,
    validate_marker,
)


def test_defaults_when_no_layer_sets_anything():
    assert resolve_settings() == DEFAULTS
    assert (DEFAULTS.min_coverage, DEFAULTS.max_hallucinations, DEFAULTS.mode) == (1.0, 0, "deterministic")


def test_ini_beats_default():
    s = resolve_settings(ini={"min_coverage": 0.5, "mode": "llm"})
    assert (s.min_coverage, s.mode, s.max_hallucinations) == (0.5, "llm", 0)


def test_fixture_beats_ini():
    s = resolve_settings(ini={"min_coverage": 0.5, "max_hallucinations": 3}, fixture={"min_coverage": 0.7})
    assert (s.min_coverage, s.max_hallucinations) == (0.7, 3)


def test_marker_beats_fixture_and_ini():
    s = resolve_settings(ini={"min_coverage": 0.5}, fixture={"min_coverage": 0.7}, marker={"min_coverage": 0.9})
    assert s.min_coverage == 0.9


def test_cli_beats_every_other_layer_and_none_means_not_given():
    s = resolve_settings(cli={"record_mode": "once", "trace_dir": None}, fixture={"record_mode": "all"},
                         ini={"record_mode": "new_episodes"})
    assert s.record_mode == "once"
    assert s.trace_dir is None
    assert resolve_settings(cli={"record_mode": None}, ini={"record_mode": "all"}).record_mode == "all"


def test_settings_are_frozen():
    with pytest.raises(AttributeError):
        DEFAULTS.min_coverage = 0.1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"min_coverge": 0.9}, "unknown argument min_coverge=0.9; allowed arguments: min_coverage"),
        ({"min_coverage": 1.5}, "min_coverage must be between 0.0 and 1.0, got 1.5"),
        ({"min_coverage": "high"}, "min_coverage must be a number between 0.0 and 1.0, got 'high' (str)"),
        ({"min_coverage": True}, "min_coverage must be a number"),
        ({"max_hallucinations": -1}, "max_hallucinations must be >= 0, got -1"),
        ({"max_hallucinations": 0.5}, "max_hallucinations must be a whole number of claims >= 0, got 0.5 (float)"),
        ({"mode": "fuzzy"}, "mode must be one of 'deterministic', 'llm', got 'fuzzy'"),
        ({"adversarial": "yes"}, "adversarial must be True or False, got 'yes' (str)"),
        ({"report_only": 1}, "report_only must be True or False, got 1 (int)"),
        ({"policy": "strict"}, "policy must be None or a pytest_auditfence.Policy, got 'strict' (str)"),
    ],
)
def test_marker_validation_names_argument_value_and_what_is_allowed(kwargs, needle):
    with pytest.raises(SettingsError) as info:
        validate_marker((), kwargs)
    assert needle in str(info.value)


def test_marker_validation_reports_every_problem_and_rejects_positional_args():
    with pytest.raises(SettingsError) as info:
        validate_marker((0.9,), {"mode": "x", "bogus": 1})
    text = str(info.value)
    assert "positional arguments (0.9,)" in text and "mode must be one of" in text and "unknown argument bogus=1" in text


def test_marker_accepts_a_real_policy_and_all_documented_arguments():
    policy = Policy()
    checked = validate_marker((), {"min_coverage": 1, "max_hallucinations": 2, "mode": "llm", "adversarial": True,
                                   "policy": policy, "report_only": False})
    assert checked["min_coverage"] == 1.0 and isinstance(checked["min_coverage"], float)
    assert checked["policy"] is policy
    assert set(checked) == set(MARKER_ARGS)


def test_adversarial_needs_llm_mode_whichever_layer_sets_the_mode():
    with pytest.raises(SettingsError, match="adversarial=True needs mode='llm'"):
        resolve_settings(marker={"adversarial": True})
    assert resolve_settings(marker={"adversarial": True}, ini={"mode": "llm"}).adversarial is True


def test_layer_errors_name_the_layer():
    with pytest.raises(SettingsError, match="fence_config fixture: unknown setting 'coverage'"):
        resolve_settings(fixture={"coverage": 0.5})
    with pytest.raises(SettingsError, match="command line: record_mode must be one of"):
        resolve_settings(cli={"record_mode": "sometimes"})


def test_parse_ini_converts_types_and_names_the_key():
    assert parse_ini({"fence_min_coverage": "0.8", "fence_max_hallucinations": "2", "fence_mode": ""}) == {
        "min_coverage": 0.8, "max_hallucinations": 2}
    with pytest.raises(SettingsError, match="ini option fence_min_coverage = 'lots' is not a number"):
        parse_ini({"fence_min_coverage": "lots"})
    with pytest.raises(SettingsError, match="ini option fence_mode: mode must be one of"):
        parse_ini({"fence_mode": "magic"})


def test_signature_names_each_argument_and_its_ini_key():
    line = marker_signature()
    for name in MARKER_ARGS:
        assert f"{name}=" in line
    for key in ("fence_min_coverage", "fence_max_hallucinations", "fence_mode"):
        assert key in line
    assert all(m in line for m in MODES)
    assert RECORD_MODES == ("none", "once", "new_episodes", "all")


def test_thresholds_record_the_policy_by_type_name_only():
    s = resolve_settings(marker={"policy": Policy(), "min_coverage": 0.9})
    assert s.thresholds()["policy"] == "Policy"
    assert s.thresholds()["min_coverage"] == 0.9
