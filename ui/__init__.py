"""Reusable Streamlit rendering for the GroundedKG Auditor app.

Pure HTML/table builders (``markup``, ``graph_html``, ``subgraph``,
``ask_view``, ``explorer_view``, ``source_view``, ``roles_view``,
``cites_view``, ``ingest_view``, ``export``, ``progress``) are testable
without a Streamlit runtime; ``resources``, ``state``, ``errors``,
``widgets``, ``ask_panels``, ``ingest_panel`` and ``boot`` draw with Streamlit.
"""
