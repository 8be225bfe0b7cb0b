"""What the scripted OpenAI-compatible server answers while this example's cassettes are recorded.

Stands in for the real model only while recording: the cassettes hold its answers and replays need no server.
"""

from __future__ import annotations

from pytest_auditfence.testing import AuditorRule, ChatRequest, ClaimPlan, Reply, ReviewPlan, ToolCall

QUESTION = "Brief me on HALV."
FINDINGS = ("HALV reported fiscal 2024 revenue of $1,234 million and net income of $151 million, "
            "a gross margin of 41.3%. It opened a second plant in Gdansk and raised its dividend to $0.24.")
SUMMARY = "\n".join([
    "Halvorsen reported fiscal 2024 revenue of $1,234 million and net income of $151 million.",
    "Its gross margin was 41.3%.",
    "Halvorsen opened a second manufacturing plant in Gdansk.",
])

# The LLM auditor (mode="llm") judges the sentence with no figure; its evidence must be a headline.
AUDITOR_PLANS = {
    "second manufacturing plant": ClaimPlan(queries=("second plant",), severity="medium",
                                            evidence="Halvorsen opens second plant in Gdansk"),
}
# The adversarial reviewer keeps that finding, with a caveat and a lower confidence.
REVIEWS = {
    "second manufacturing plant": ReviewPlan(revised_confidence=0.8, recommendation="keep",
                                             caveats=("the headline does not say 'manufacturing'",)),
}


def answer_app(request: ChatRequest) -> Reply:
    """The researcher calls both tools, then reports; the summarizer (no tools offered) summarizes."""
    if "company_fundamentals" in request.tool_names:
        if not any(message.get("role") == "tool" for message in request.messages):
            return Reply(tool_calls=[ToolCall("company_fundamentals", {"ticker": "HALV"}),
                                     ToolCall("news_headlines", {"ticker": "HALV"})])
        return Reply(content=FINDINGS)
    if request.messages and request.messages[0].get("content", "").startswith("Summarize the research"):
        return Reply(content=SUMMARY)
    return AuditorRule(AUDITOR_PLANS, REVIEWS)(request)  # the auditor's and the reviewer's calls
