"""Reusable Streamlit rendering for the GroundedKG Auditor app.

Pure HTML/table builders (``markup``, ``graph_html``, ``subgraph``,
``ask_view``, ``explorer_view``, ``export``, ``progress``) are testable
without a Streamlit runtime; ``resources``, ``state``, ``errors``,
``widgets``, ``ask_panels`` and ``boot`` draw with Streamlit.
"""
