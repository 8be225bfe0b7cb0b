"""Audits of captured runs: the deterministic cascade (default), the LLM auditor, the adversarial pass.

Importing this package imports no LangGraph; the LLM auditor loads it when a model is given.
"""
