"""What the project's scripted OpenAI-compatible server answers when the agent loop's cassettes are recorded.

Owns `FINAL_ANSWER` (with its planted claim), the agent's tool-calling script and the auditor's plans.
"""

# The script stands in for a real model only while recording: the committed cassettes hold its answers,
# and the tests replay them with no server running. Decided per request (not by arrival order), so the
# agent's calls and the concurrent auditor units always get the same replies.

from __future__ import annotations

from pytest_auditfence.testing import AuditorRule, ChatRequest, ClaimPlan, Reply, ReviewPlan, ToolCall

# The key the agent's ChatOpenAI carries (conftest.py). Looks like a real key on purpose: the cassettes
# must not contain it (the tests check). Test modules import it from here: a module named `conftest` is
# whichever folder's conftest pytest loaded last when several example folders run on one command line.
API_KEY = "sk-proj-agentloopEXAMPLEkey0123456789abcdef"

TICKER = "HALV"
QUESTION = f"Brief me on {TICKER}: fundamentals, recent news and what analysts expect."

# The agent's tool calls, one per loop round, then its answer.
STEPS: tuple[tuple[str, dict[str, object]], ...] = (
    ("get_company_fundamentals", {"ticker": TICKER}),
    ("get_news_headlines", {"ticker": TICKER, "limit": 3}),
    ("get_analyst_consensus", {"ticker": TICKER}),
)

PLANTED = "Halvorsen also plans to enter the Japanese market next year."
"""Nothing any tool returned says so: the agent invented it, and the LLM auditor must catch it."""

FINAL_ANSWER = "\n".join([
    "Halvorsen Robotics Inc. reported FY2024 revenue of $1,234 million and net income of $151 million, "
    "with a gross margin of 41.3% (source: get_company_fundamentals).",
    "Analysts expect FY2025 EPS of $2.85 and a mean price target of $52.00 (source: get_analyst_consensus).",
    "Halvorsen opened a second manufacturing plant in Gdansk.",
    "The company won a large robot order from a Nordic grocery chain.",
    "The board raised the dividend in December.",
    PLANTED,
])

# Semantic claims (nothing for the deterministic pass to check): what the auditor searches for each.
AUDITOR_PLANS = {
    "second manufacturing plant": ClaimPlan(queries=("second plant",), severity="medium",
                                            evidence="Halvorsen opens second plant in Gdansk"),
    "Nordic grocery chain": ClaimPlan(queries=("Nordic grocer",), severity="medium",
                                      evidence="Halvorsen wins 310-robot order from Nordic grocer"),
    "raised the dividend": ClaimPlan(queries=("raises dividend",), severity="medium", confidence=0.9,
                                     evidence="Halvorsen raises dividend to $0.24 a share"),
    "Japanese market": ClaimPlan(queries=("Japan", "new market"), severity="high", confidence=0.9),
}
# The skeptical second pass: it keeps the invented claim's finding, and lowers its confidence in the
# dividend claim because the headline does not say the dividend was raised "in December".
REVIEWS = {
    "Japanese market": ReviewPlan(stands=True, revised_confidence=0.85, recommendation="keep",
                                  caveats=("no tool output mentions Japan or any new market",)),
    "raised the dividend": ReviewPlan(stands=True, revised_confidence=0.6, recommendation="refine",
                                      caveats=("the headline is dated 2024-12-18 but does not say December",)),
}


def _agent(request: ChatRequest) -> Reply:
    done = sum(1 for message in request.messages if message.get("role") == "tool")
    if done < len(STEPS):
        name, arguments = STEPS[done]
        return Reply(tool_calls=[ToolCall(name, arguments, id=f"call_{done + 1}_{name}")])
    return Reply(content=FINAL_ANSWER)


def recording_rule() -> object:
    """The server's rule: the app's model calls get the agent's script, the others the auditor's and reviewer's."""
    auditor = AuditorRule(AUDITOR_PLANS, REVIEWS)

    def answer(request: ChatRequest) -> Reply:
        if STEPS[0][0] in request.tool_names:
            return _agent(request)
        return auditor(request)

    return answer
