"""Drawing a graph page (:func:`ui.graph_html.graph_html`) in the app, with vis-network served once.

A graph page inlines vis-network (700 KB of JavaScript and CSS) unless it is told where the app serves it: then
every graph the analyst opens (the Ask page draws one per question) sends only its data, and the browser parses
the library once and keeps it.  The app serves the files with Streamlit's static file serving
(``server.enableStaticServing`` in ``.streamlit/config.toml``) from ``static/`` beside ``app.py``, where they are
copied from the installed pyvis package on first use; where that is off or the folder cannot be written, pages
inline the library as before.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import streamlit as st

from .graph_html import GraphPage, VisEdge, VisNode, asset_files, graph_html

#: Streamlit serves ``static/`` beside the main script at this URL folder (relative: it follows a base URL path).
SERVED_AT = "app/static"
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


@functools.cache
def served_assets() -> str:
    """``SERVED_AT`` once vis-network's files are in the static folder and the app serves it, else ""."""
    if not st.get_option("server.enableStaticServing"):
        return ""
    try:
        STATIC_DIR.mkdir(exist_ok=True)
        for name, source in asset_files().items():
            target = STATIC_DIR / name
            if not target.is_file() or target.stat().st_size != source.stat().st_size:
                fd, tmp = tempfile.mkstemp(dir=STATIC_DIR, prefix=".copy-")  # own name: servers may copy at once
                os.close(fd)
                shutil.copyfile(source, tmp)
                os.replace(tmp, target)
    except OSError:
        return ""
    return SERVED_AT


def graph_frame(nodes: list[VisNode], edges: list[VisEdge], page: GraphPage, height: int, alt: str) -> None:
    """Draw the graph page of ``nodes`` and ``edges`` in a frame ``height`` pixels high, named ``alt``."""
    if not page.assets:
        page = replace(page, assets=served_assets())
    st.iframe(graph_html(nodes, edges, page), height=height, alt=alt)
