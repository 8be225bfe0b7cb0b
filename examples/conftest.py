"""Shared fixtures of the example tests: a LangChain callback handler that records every tool call.

It observes the apps from outside, through the callbacks a run's config carries, as a capture layer would.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler


@dataclass(frozen=True)
class ToolCall:
    node: str | None  # the LangGraph node that ran the tool, None outside a graph
    tool: str
    output: str


class ToolCallRecorder(BaseCallbackHandler):
    """Keeps each finished tool call with the node that made it and its output text."""

    # Called in the thread or task that runs the tool, so fan-out nodes are seen as they happen.
    run_inline = True

    def __init__(self) -> None:
        self._started: dict[UUID, tuple[str | None, str]] = {}
        self._lock = threading.Lock()
        self.calls: list[ToolCall] = []

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = (serialized or {}).get("name") or kwargs.get("name") or "?"
        with self._lock:
            self._started[run_id] = ((metadata or {}).get("langgraph_node"), name)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        # A ToolNode hands back a ToolMessage, a tool invoked directly its return value.
        text = output.content if hasattr(output, "content") else output
        with self._lock:
            node, name = self._started.pop(run_id)
            self.calls.append(ToolCall(node=node, tool=name, output=str(text)))

    def outputs(self, node: str | None = None) -> list[str]:
        """Tool outputs in a stable order, of one node or of all."""
        return sorted(c.output for c in self.calls if node is None or c.node == node)

    def tools_by_node(self) -> dict[str | None, list[str]]:
        grouped: dict[str | None, list[str]] = {}
        for call in self.calls:
            grouped.setdefault(call.node, []).append(call.tool)
        return {node: sorted(tools) for node, tools in grouped.items()}


@pytest.fixture
def tool_recorder() -> ToolCallRecorder:
    """A fresh recorder; pass it as `config={"callbacks": [tool_recorder]}`."""
    return ToolCallRecorder()
