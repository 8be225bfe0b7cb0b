"""Bad fence markers are collection errors naming the test; bad ini values and options are usage errors."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def test_unknown_argument_is_a_usage_error_naming_test_argument_and_allowed(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence(min_coverge=0.9)
        def test_typo(fence_snapshot):
            pass

        def test_other():
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([
        "*ERROR collecting*",
        "invalid fence marker(s):",
        "*test_unknown_argument_is_a_usage_error_naming_test_argument_and_allowed.py::test_typo: "
        "@pytest.mark.fence: unknown argument min_coverge=0.9; allowed arguments: min_coverage, "
        "max_hallucinations, mode, adversarial, policy, report_only",
    ])
    result.stdout.no_fnmatch_line("*passed*")


def test_out_of_range_and_wrong_type_are_listed_for_every_test(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence(min_coverage=1.5)
        def test_range(fence_snapshot):
            pass

        @pytest.mark.fence(max_hallucinations="none", mode="magic")
        def test_types(fence_snapshot):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([
        "*::test_range: @pytest.mark.fence: min_coverage must be between 0.0 and 1.0, got 1.5",
        "*::test_types: @pytest.mark.fence: max_hallucinations must be a whole number of claims >= 0, "
        "got 'none' (str); mode must be one of 'deterministic', 'llm', got 'magic'",
    ])


def test_a_bad_class_marker_is_an_error_even_when_the_function_marker_wins(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence(mode="llm", adversarial="yes")
        class TestGroup:
            @pytest.mark.fence(min_coverage=0.5)
            def test_inner(self, fence_snapshot):
                pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*TestGroup::test_inner: @pytest.mark.fence: adversarial must be True or False*"])


def test_marked_test_without_fence_snapshot_is_told_how_to_fix_it(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence
        def test_forgot():
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*::test_forgot: @pytest.mark.fence audits the run captured by the fence_snapshot "
                                 "fixture, but the test does not use it; add fence_snapshot*"])


def test_adversarial_without_llm_mode_is_refused_at_collection(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence(adversarial=True)
        def test_adv(fence_snapshot):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*::test_adv: @pytest.mark.fence: adversarial=True needs mode='llm'*"])


def test_bad_ini_value_is_a_usage_error_naming_the_key(pytester):
    pytester.makeini("[pytest]\nfence_min_coverage = most\n")
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option fence_min_coverage = 'most' is not a number*"])


def test_record_mode_choices_come_from_the_shared_constant(pytester):
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest("--fence-record-mode=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fence-record-mode: invalid choice: 'sometimes' (choose from *none*once*"
                                 "new_episodes*all*)"])


def test_missing_baseline_and_update_without_path_are_usage_errors(pytester):
    pytester.makepyfile("def test_a():\n    pass\n")
    missing = pytester.runpytest("--fence-baseline=nope.json")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["ERROR: --fence-baseline: nope.json does not exist. Create it from a good run with: "
                                  "pytest --fence-baseline=nope.json --fence-update-baseline"])
    no_path = pytester.runpytest("--fence-update-baseline")
    no_path.stderr.fnmatch_lines(["ERROR: --fence-update-baseline needs the file to write: add --fence-baseline=PATH*"])


def test_bad_marker_is_a_collection_error_under_xdist_too(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.fence(min_coverage=2)
        def test_range(fence_snapshot):
            pass
        """
    )
    result = pytester.runpytest("-n", "2")
    assert result.ret != pytest.ExitCode.OK  # xdist reports collection errors as exit status 1
    result.stdout.fnmatch_lines(["*ERROR collecting*"])
    result.stdout.fnmatch_lines(["*::test_range: @pytest.mark.fence: min_coverage must be between 0.0 and 1.0, got 2"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


def test_unmarked_suite_is_untouched_and_summary_silent(pytester):
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*- auditfence -*")
    result.stdout.no_fnmatch_line("*fenced test*")
