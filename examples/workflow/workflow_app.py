"""A research workflow graph whose state is plain fields, not messages: plan -> gather -> summarize.

Owns the sample document corpus, its keyword search, the three nodes and the compiled `app`.
"""

# This is the shape of workflow projects (GPT-Researcher style): nodes pass typed fields along, no chat
# messages and no LangChain tools, so callbacks see node inputs and outputs only. The corpus is
# fictional sample text.

from __future__ import annotations

import re
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

CORPUS: list[dict[str, str]] = [
    {
        "id": "D1",
        "title": "Warehouse robotics market outlook (sample brief)",
        "text": "The warehouse robotics market reached $9.1 billion in 2024. "
        "Analysts in this sample brief expect annual growth of 14% through 2028.",
    },
    {
        "id": "D2",
        "title": "Adoption survey of logistics operators (sample survey)",
        "text": "In a survey of 420 logistics operators, 38% said they run autonomous mobile robots in at "
        "least one site. Another 27% plan a first deployment within two years.",
    },
    {
        "id": "D3",
        "title": "Labour and safety notes (sample memo)",
        "text": "Sites that deployed robots reported 22% fewer lifting injuries. "
        "The memo lists retraining costs as the main barrier to adoption.",
    },
    {
        "id": "D4",
        "title": "Grocery cold-chain packaging (sample article)",
        "text": "Cold-chain packaging volumes rose 6% in 2024 as grocers expanded home delivery.",
    },
]

_STOPWORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to"})


class ResearchState(TypedDict, total=False):
    topic: str
    queries: list[str]
    documents: list[dict[str, str]]
    summary: str


def _terms(text: str) -> set[str]:
    # A five-letter prefix is a crude stem ("robots", "robotics" -> "robot") that stays deterministic.
    return {word[:5] for word in re.findall(r"[a-z]+", text.lower()) if word not in _STOPWORDS}


def search_corpus(query: str) -> list[dict[str, str]]:
    """Documents sharing at least two terms with the query (title or text), best match first."""
    wanted = _terms(query)
    scored = [(len(wanted & _terms(doc["title"] + " " + doc["text"])), doc["id"], doc) for doc in CORPUS]
    return [dict(doc) for score, _, doc in sorted(scored, key=lambda s: (-s[0], s[1])) if score >= 2]


def plan(state: ResearchState) -> dict[str, Any]:
    """Turns the topic into search queries."""
    topic = state.get("topic", "").strip()
    if not topic:
        raise ValueError("plan: the input has no topic; invoke with {'topic': 'warehouse robotics'}.")
    return {"queries": [f"{topic} market", f"{topic} adoption", f"{topic} injuries"]}


def gather(state: ResearchState) -> dict[str, Any]:
    """Runs every query against the corpus and keeps each document once, in id order."""
    found = {doc["id"]: doc for query in state["queries"] for doc in search_corpus(query)}
    if not found:
        raise ValueError(
            f"gather: no document matched the queries {state['queries']}; the sample corpus covers "
            f"{', '.join(doc['title'] for doc in CORPUS)}. Pick a topic it covers."
        )
    return {"documents": [found[key] for key in sorted(found)]}


def summarize(state: ResearchState) -> dict[str, Any]:
    """Quotes the first sentence with a figure from each document, citing it by number."""
    lines = [f"# Research summary: {state['topic']}", ""]
    sources = []
    for number, doc in enumerate(state["documents"], start=1):
        sentences = re.split(r"(?<=\.) ", doc["text"])
        sentence = next((s for s in sentences if re.search(r"\d", s)), sentences[0])
        lines.append(f"- {sentence} [{number}]")
        sources.append(f"[{number}] {doc['id']}: {doc['title']}")
    return {"summary": "\n".join([*lines, "", "Sources:", *sources]) + "\n"}


def build_app() -> CompiledStateGraph:
    """Compile the workflow graph."""
    graph = StateGraph(ResearchState)
    graph.add_node("plan", plan)
    graph.add_node("gather", gather)
    graph.add_node("summarize", summarize)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "gather")
    graph.add_edge("gather", "summarize")
    graph.add_edge("summarize", END)
    return graph.compile(name="research_workflow")


app = build_app()
