"""Make every page run inside ``app.py``'s ``st.navigation``.

Streamlit still supports the old "pages/ folder" apps: until some session
has executed ``st.navigation``, a fresh server that is first opened on a
sub-page URL (``/ask``) runs ``pages/ask.py`` on its own, without the
entry point (no page config, no CSS, a file-name menu).  Each page calls
:func:`ensure_app_navigation` first; in that situation it switches the
server to ``st.navigation`` routing and reruns, which executes ``app.py``
and lands on the same page (``url_path`` equals the file name).
"""

from __future__ import annotations

import streamlit as st


def ensure_app_navigation() -> None:
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - internal module moved; the old routing still works
        return
    # Only on a session's very first run: a rerun then loses nothing (no widget event to replay).
    # AppTest resets the flag before every run and runs pages directly; its sessions have state.
    if PagesManager.uses_pages_directory and len(st.session_state) == 0:
        PagesManager.uses_pages_directory = False
        st.rerun()
