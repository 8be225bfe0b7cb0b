"""render_parts and truncate_lines give, part by part, exactly what render_placed and truncate give for the
whole text (finalize relies on it to scan and join each repeated message once)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.textfmt import RenderCache, render_parts, render_placed, truncate, truncate_lines

LONG = "\n".join(f"FY{2000 + i} revenue ${i},000 million" for i in range(30))
TOOL = {"type": "tool", "content": LONG, "name": "get_filing", "tool_call_id": "c1", "status": "success"}
AI = {"type": "ai", "content": "Reading.", "tool_calls": [{"name": "get_filing", "args": {"t": 1}, "id": "c1"}]}
VALUES: list[Any] = [
    {"messages": [AI, TOOL]},
    {"messages": [AI, TOOL, {"type": "ai", "content": LONG}], "notes": [LONG, "x " * 300, {"k": LONG}]},
    {"nested": {"deeper": {"messages": [TOOL]}}, "mixed": [TOOL, {"a": 1}, LONG]},
    [LONG, [LONG, TOOL]],
    {"output": LONG, "wide": "y" * 900},
    {},
]


@pytest.mark.parametrize("wrap_at", [60, 400])
def test_the_parts_join_to_the_rendered_text_with_the_same_placements(wrap_at):
    cache, plain = RenderCache(), RenderCache()
    for _ in range(2):  # the second pass reuses every block: the same str objects as parts
        for value in VALUES:
            parts, placed = render_parts(value, wrap_at=wrap_at, cache=cache)
            text, expected = render_placed(value, wrap_at=wrap_at, cache=plain)
            assert "\n".join(parts) + "\n" == text
            assert placed == expected
    again, _ = render_parts(VALUES[1], wrap_at=wrap_at, cache=cache)
    first, _ = render_parts(VALUES[1], wrap_at=wrap_at, cache=cache)
    blocks = [(a, b) for a, b in zip(again, first, strict=True) if "\n" in a]  # messages and long strings
    assert len(blocks) >= 3 and all(a is b for a, b in blocks)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab \n\t", max_size=30), max_size=12), st.integers(min_value=0, max_value=120))
def test_truncating_the_parts_is_truncating_their_text(parts, max_chars):
    parts = [part.replace("\n", " ") for part in parts[:-1]] + parts[-1:]  # one multi-line part at most
    assert truncate_lines(parts, max_chars) == truncate("\n".join(parts) + "\n", max_chars)


def test_truncating_the_parts_rejects_what_truncate_rejects():
    for bad in (-1, True, 2.5):
        with pytest.raises(AuditFenceError, match="max_chars"):
            truncate_lines(["a", "b"], bad)  # type: ignore[arg-type]
