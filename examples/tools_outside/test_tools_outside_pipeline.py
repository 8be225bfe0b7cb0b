"""Tests of the plain-Python pipeline: the brief carries the data functions' figures and headlines."""

from __future__ import annotations

import functools

import pytest
import tools_outside_pipeline as pipeline


def test_brief_reports_the_fundamentals_and_the_latest_headlines() -> None:
    brief = pipeline.run_pipeline("HALV")
    assert brief.startswith("# Brief: Halvorsen Robotics Inc. (HALV)\n")
    assert "- Revenue: $1,234 million." in brief
    assert "- Operating income: $198 million (operating margin 16.0%)." in brief  # 198 / 1,234
    assert "- Net debt: $264 million." in brief
    assert '- 2025-01-14, Sample Wire: "Halvorsen wins 310-robot order from Nordic grocer"' in brief
    assert brief.count('"\n') == 3  # the default limit: three headlines, the oldest one left out
    assert "chief financial officer" not in brief


def test_every_headline_in_the_brief_is_quoted_verbatim_from_the_data() -> None:
    headlines = pipeline.fetch_headlines("HALV", limit=4)
    brief = pipeline.run_pipeline("HALV", headline_limit=4)
    quoted = [line.split(': "', 1)[1].rstrip('"') for line in brief.splitlines() if ': "' in line]
    assert quoted == [item["title"] for item in headlines]


def test_the_pipeline_reads_its_data_only_through_the_functions_it_is_given() -> None:
    # What a capture wrapper relies on: every data call goes through the callable handed in.
    seen: list[tuple[str, tuple, dict]] = []

    def observed(function):
        @functools.wraps(function)
        def call(*args, **kwargs):
            result = function(*args, **kwargs)
            seen.append((function.__name__, args, kwargs))
            return result

        return call

    brief = pipeline.run_pipeline(
        "HALV",
        fundamentals_source=observed(pipeline.fetch_fundamentals),
        headlines_source=observed(pipeline.fetch_headlines),
    )
    assert seen == [("fetch_fundamentals", ("HALV",), {}), ("fetch_headlines", ("HALV",), {"limit": 3})]
    assert brief == pipeline.run_pipeline("HALV")


def test_data_functions_return_copies_so_callers_cannot_corrupt_the_sample_data() -> None:
    pipeline.fetch_fundamentals("HALV")["revenue_usd_millions"] = 0
    assert pipeline.fetch_fundamentals("HALV")["revenue_usd_millions"] == 1234


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pipeline.run_pipeline("AAPL"), r"fetch_fundamentals: no sample data for ticker 'AAPL'; known tickers: HALV"),
        (lambda: pipeline.fetch_headlines("HALV", limit=0), r"fetch_headlines: limit must be 1 or more, got 0"),
    ],
)
def test_bad_input_fails_naming_the_function_and_the_value(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
