"""Capture of agent runs into a trace folder: callback handler, journal and blob store, topology.

Users import `capture`, `wrap`, `instrument_graph` and the importers from `pytest_auditfence`; this
package exports nothing itself, so importing it loads no LangChain or LangGraph.
"""
