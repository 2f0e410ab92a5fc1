"""GroundedKG Auditor: the Streamlit entry point (``streamlit run app.py``).

This file only routes: with sign-in configured (an ``[auth]`` section in
``.streamlit/secrets.toml``, see :mod:`ui.auth_panel`) every address shows the
sign-in page until ``st.login`` has signed the user in.  The pages live
in ``pages/`` and do layout and events; pure builders are in ``ui/*_view.py`` and all work is done by
:mod:`kgcore`.  The models are loaded once, in the background, from the
first run on (:func:`ui.resources_panel.start_warm_up`).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import auth_panel as auth
from ui import resources_panel as resources
from ui.markup_html import md_escape
from ui.style_html import CSS

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"

# The models a question needs load in a background thread (once per process) while the first page renders;
# a page that needs one sooner waits for it there instead of loading it again.
resources.start_warm_up()
# Background indexing jobs (the Library's uploads) run in processes of their own, started by this server.
resources.jobs()

# A local icon: a ":material/..." page icon would be fetched from fonts.gstatic.com, and the app stays offline.
st.set_page_config(page_title="GroundedKG Auditor", page_icon=str(HERE / "ui" / "favicon.svg"), layout="wide")
st.html(CSS)

# The default page is served at ``/``; its own pathname would be "not found", so it gets one nobody links to and
# ``/library`` (the address people type or bookmark) is a hidden page that opens it.
library = st.Page(PAGES / "library.py", title="Library", icon=":material/library_books:", url_path="home",
                  default=True)


def library_address() -> None:
    """``/library``: the Library, at ``/``, with the address's parameters."""
    st.switch_page(library, query_params=st.query_params.to_dict())


pages = [
    library,
    st.Page(PAGES / "ask.py", title="Ask", icon=":material/question_answer:", url_path="ask"),
    st.Page(PAGES / "explorer.py", title="Graph explorer", icon=":material/hub:", url_path="explorer"),
    st.Page(PAGES / "entity.py", title="Entity", icon=":material/badge:", url_path="entity"),
    st.Page(PAGES / "entities_review.py", title="Merge review", icon=":material/merge:", url_path="merge-review"),
    st.Page(PAGES / "sentence.py", title="Sentence", icon=":material/notes:", url_path="sentence"),
    st.Page(PAGES / "review.py", title="Review", icon=":material/rate_review:", url_path="review"),
    st.Page(PAGES / "queues.py", title="Review queues", icon=":material/checklist:", url_path="queues"),
    st.Page(PAGES / "adjudicate.py", title="Adjudicate", icon=":material/gavel:", url_path="adjudicate"),
    st.Page(PAGES / "evaluate.py", title="Evaluate", icon=":material/analytics:", url_path="evaluate"),
    st.Page(PAGES / "status.py", title="Status", icon=":material/monitor_heart:", url_path="status"),
    st.Page(library_address, title="Library", url_path="library", visibility="hidden"),
]

# A secrets file that cannot be read may hold the [auth] section: serve nobody rather than run without sign-in.
# Signed out with sign-in on: every address (a page's too, so none is "not found") shows the sign-in page only.
broken = auth.secrets_problem()
signed_out = bool(broken) or (auth.sign_in_required() and not auth.signed_in())
page = st.navigation(pages, position="hidden" if signed_out else "sidebar")
if broken:
    auth.secrets_refusal(broken)
elif signed_out:
    auth.sign_in_page()
else:
    with st.sidebar:
        st.caption(f"Index store: {md_escape(resources.store_root())}")
    auth.account_sidebar()
    page.run()
