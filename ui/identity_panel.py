"""Who is reviewing: one "reviewing as" choice per browser session, used by every page.

With sign-in on (an ``[auth]`` section in the secrets,
:mod:`ui.auth_panel`) the reviewer is the signed-in identity, "name (email)",
and cannot be typed, chosen or passed in the address; a page run without a
signed-in user stops.  Otherwise it is chosen from the **local reviewer
profile**: the reviewers registered in the audit store
(:meth:`kgcore.audit.AuditDB.reviewers`), where a new one can be added.
The choice is kept in the session, in the page address
(``?reviewer=NAME``), so it survives page switches and reloads, and in a
browser cookie (:mod:`ui.identity_view`), so a link without it (``/review``)
opens as the same reviewer.

:func:`reviewer_sidebar` draws the choice; pages read it with :func:`reviewing_as`.  Replacing the local profile by
sign-in only changes :func:`signed_in_reviewer`.  Every page draws the choice
first (Streamlit runs a page's script on its own in tests, and the widget
keeps its state only on pages that draw it).

>>> profile_caption("Ada", signed_in=True)
'Reviewing as **Ada** (signed in)'
"""

from __future__ import annotations

import streamlit as st

from kgcore.api import AuditDB, KgcoreError

from . import auth_panel as auth
from .errors_panel import reported
from .identity_view import COOKIE, cookie_script, cookie_value
from .markup_html import md_escape
from .resources_panel import audit_db

#: The reviewer chosen in this browser session (a registered name), outside any widget.
REVIEWER_KEY = "identity.reviewer"
CHOICE_KEY = "identity.choice"
NEW_KEY = "identity.new"
ERROR_KEY = "identity.error"
#: The page-address parameter that carries the choice across reloads.
QUERY_PARAM = "reviewer"
#: The name this session last wrote into the browser's cookie.
COOKIE_KEY = "identity.cookie"


def profile_caption(name: str, signed_in: bool) -> str:
    """The sidebar line naming the reviewer (Markdown, the name escaped)."""
    return f"Reviewing as **{md_escape(name)}**" + (" (signed in)" if signed_in else "")


def signed_in_reviewer() -> str | None:
    """The signed-in identity ("name (email)") when sign-in is on, else None (the local profile applies)."""
    if not auth.sign_in_required() or not auth.signed_in():
        return None
    return auth.identity() or None


def reviewing_as() -> str:
    """The reviewer of this session ("" when none is chosen yet)."""
    return str(st.session_state.get(REVIEWER_KEY) or "")


def _remember(name: str | None) -> None:
    st.session_state[REVIEWER_KEY] = name or ""
    if name and st.query_params.get(QUERY_PARAM) != name:
        st.query_params[QUERY_PARAM] = name
    elif not name and QUERY_PARAM in st.query_params:
        del st.query_params[QUERY_PARAM]
    if (name or "") != st.session_state.get(COOKIE_KEY, _cookie()):
        st.session_state[COOKIE_KEY] = name or ""
        st.sidebar.html(cookie_script(name or ""), unsafe_allow_javascript=True)


def _cookie() -> str:
    """The reviewer this browser remembers ("" when none, or outside a browser)."""
    try:
        return cookie_value(st.context.cookies.get(COOKIE))
    except Exception:  # noqa: BLE001 - no request behind this session (AppTest): nothing remembered
        return ""


def _signed_in(db: AuditDB, name: str) -> None:
    """Register the signed-in user (origin ``sign-in``) and use the registered spelling."""
    try:
        registered = db.require_reviewer(name)
    except KgcoreError:
        registered = db.add_reviewer(name, "sign-in")
    st.session_state[REVIEWER_KEY] = registered  # not in the address: it is the signed-in user's own
    if QUERY_PARAM in st.query_params:
        del st.query_params[QUERY_PARAM]
    st.sidebar.caption(profile_caption(registered, signed_in=True))


def _chosen() -> None:
    """The selectbox changed: that is the reviewer now (a callback, before the page is drawn)."""
    st.session_state[REVIEWER_KEY] = st.session_state.get(CHOICE_KEY) or ""


def _add(db: AuditDB) -> None:
    """Register the typed name in the local profile and review as it (a callback)."""
    try:
        st.session_state[REVIEWER_KEY] = db.add_reviewer(st.session_state.get(NEW_KEY, ""))
        st.session_state[NEW_KEY] = ""
    except KgcoreError as exc:
        st.session_state[ERROR_KEY] = str(exc)


def _add_reviewer(db: AuditDB) -> None:
    """The "New reviewer" field of the local profile."""
    with st.sidebar.popover("New reviewer", icon=":material/person_add:"):
        st.text_input("Name", key=NEW_KEY, max_chars=100, placeholder="e.g. Ada")
        st.button("Add and review as", key="identity.add", type="primary", on_click=_add, args=(db,))
        if error := st.session_state.pop(ERROR_KEY, None):
            st.error(md_escape(error), icon=":material/error:")


def reviewer_sidebar() -> str:
    """The "Reviewing as" choice in the sidebar (each page draws it first); returns the reviewer ("" when none)."""
    auth.require_sign_in()
    with reported("Choosing the reviewer"):
        _draw(audit_db())
    return reviewing_as()


def _draw(db: AuditDB) -> None:
    if auth.sign_in_required():
        signed = signed_in_reviewer()
        if signed:
            _signed_in(db, signed)
        else:
            st.session_state[REVIEWER_KEY] = ""
            st.sidebar.error("Your sign-in carries no name, e-mail address or subject: you cannot label.",
                             icon=":material/person_off:")
        return
    names = [r.name for r in db.reviewers()]
    wanted = st.session_state.get(REVIEWER_KEY) or st.query_params.get(QUERY_PARAM)
    remembered = st.session_state.get(COOKIE_KEY, _cookie())  # a browser's choice in an earlier session
    if wanted and wanted not in names:
        st.sidebar.warning(f"{md_escape(wanted)} is not a registered reviewer; choose one or add it.",
                           icon=":material/person_off:")
        wanted = None
    elif not wanted and remembered in names:
        wanted = remembered
    # The reviewer, not the widget, is the truth: a page's widget is new on each page (it would start empty).
    st.session_state[CHOICE_KEY] = wanted
    choice = st.sidebar.selectbox("Reviewing as", names, key=CHOICE_KEY, placeholder="Choose who you are…",
                                  on_change=_chosen,
                                  help="Every label you add is stored under this name (the local reviewer profile)")
    _remember(choice)
    _add_reviewer(db)
