"""Trace-like source files and a report shared by the fence tests."""

from __future__ import annotations

FILES = {
    "tools/001_get_financials.txt": (
        "tool: get_financials\n"
        "args: ticker=AAPL\n"
        "Total net sales were $383,285 million in fiscal 2023,\n"
        "compared with $394,328 million in fiscal 2022.\n"
        "Gross margin: 44.1%\n"
    ),
    "tools/002_get_news.txt": (
        "tool: get_news\n"
        "headline: Apple unveils the Vision Pro headset at WWDC\n"
        "body: The company said the headset ships early next\n"
        "    year in the United States at a price of $3,499.\n"
    ),
    "nodes/research.txt": "summary: Net sales fell 2.8% year over year.\nGross margin: 44.1%\n",
}


REPORT = "# AAPL\n\nApple's **net sales** were $383.3 billion in 2023.\n\nThe headset costs $3,499.\n"
