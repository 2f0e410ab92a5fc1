"""Sign-in (Streamlit's OpenID Connect login) and the maintainer role, for ``app.py`` and the pages.

Sign-in is on when the app's secrets (``.streamlit/secrets.toml``) have an
``[auth]`` section with Streamlit's keys (``redirect_uri``,
``cookie_secret``, ``client_id``, ``client_secret``,
``server_metadata_url``, or named ``[auth.NAME]`` providers).  Then
``app.py`` shows only the sign-in page until ``st.user.is_logged_in``,
the reviewer is the signed-in identity (:mod:`ui.identity_panel`), and the
guarded actions (:data:`ui.auth_view.NEEDS`) need a role from
``KGCORE_MAINTAINERS``.  Without ``[auth]`` nothing changes: a local,
single-user app where every action is allowed.

The secrets themselves are only read by Streamlit; nothing here logs or
stores them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

import streamlit as st

from kgcore.api import InputError, read_secrets

from .auth_view import NEEDS, AccessSettings, providers, refusal, reviewer_identity
from .errors_panel import reported
from .markup_html import md_escape

SIGN_IN_TITLE = "Sign in"
log = logging.getLogger("groundedkg.app")


def secrets_problem() -> str:
    """Why a secrets file Streamlit reads cannot be read ("" when every one can): then the app cannot tell whether
    sign-in is on, and ``app.py`` serves nobody rather than run without it (Streamlit itself only logs the error)."""
    try:
        read_secrets(st.config.get_option("secrets.files"))
    except InputError as exc:
        return str(exc)
    return ""


def secrets_refusal(problem: str) -> None:
    """The page every address shows while :func:`secrets_problem` is not empty: what is wrong for its administrator
    (in the server log, and from ``python -m kgcore doctor``), not the server's paths for any visitor."""
    log.error("The app's secrets cannot be read, so it serves nobody: %s", problem)
    st.title("The app's secrets cannot be read")
    st.error("A secrets file of this app cannot be read, so the app cannot tell whether sign-in is required and "
             "serves nobody until it is fixed. Its administrator finds the file and the reason in the server log and "
             "from `python -m kgcore doctor`.", icon=":material/lock:")


def auth_section() -> Mapping[str, object]:
    """The ``[auth]`` section of the app's secrets, or an empty mapping (no secrets file, or no section)."""
    try:
        section = st.secrets.get("auth")
    except FileNotFoundError:  # Streamlit's "no secrets found" derives from it
        return {}
    return section if isinstance(section, Mapping) else {}


def sign_in_required() -> bool:
    """True when ``[auth]`` is configured: every page needs a signed-in user."""
    return bool(auth_section())


def signed_in() -> bool:
    return bool(st.user.get("is_logged_in"))


def claims() -> dict[str, object]:
    """The signed-in user's identity-token claims (empty when nobody is signed in)."""
    return dict(st.user.to_dict()) if signed_in() else {}


def identity() -> str:
    """The signed-in user as a reviewer name ("name (email)"; "" when nobody is signed in)."""
    return reviewer_identity(claims())


def access() -> AccessSettings:
    """Who holds which role (``KGCORE_MAINTAINERS``, read on every run); a malformed list is an InputError."""
    return AccessSettings.from_env(os.environ)


def sign_in_page() -> None:
    """What every address shows while sign-in is on and nobody is signed in: one button per identity provider."""
    st.title(SIGN_IN_TITLE)
    st.write("This GroundedKG Auditor is shared by a team. Sign in to ask questions, review and label answers: "
             "every label you add is stored under your name and e-mail address.")
    for provider in providers(auth_section()):
        label = SIGN_IN_TITLE if provider is None else f"{SIGN_IN_TITLE} with {provider}"
        if st.button(md_escape(label), type="primary", icon=":material/login:", key=f"auth.login.{provider or ''}"):
            with reported("Signing in"):  # an incomplete [auth] section is named here, not as a traceback
                st.login(provider)


def require_sign_in() -> None:
    """Stop a page's run when sign-in is on and nobody is signed in (a page run outside ``app.py``'s gate)."""
    if sign_in_required() and not signed_in():
        st.info("Sign in first: this app requires it.", icon=":material/login:")
        st.stop()


def account_sidebar() -> None:
    """Who is signed in, with which role, and the sign-out button (sidebar; nothing when sign-in is off)."""
    if not signed_in():
        return
    roles = _roles()
    st.sidebar.caption(f"Signed in as **{md_escape(identity())}**"
                       + (f" · {md_escape(', '.join(sorted(roles)))}" if roles else ""))
    if st.sidebar.button("Sign out", icon=":material/logout:", key="auth.logout"):
        st.logout()


def _roles() -> frozenset[str]:
    try:
        return access().roles(claims())
    except InputError:
        return frozenset()  # a malformed KGCORE_MAINTAINERS grants nothing; permitted() says why


def has_role(role: str) -> bool:
    """True when this session holds ``role``: always without sign-in (the local single-user app)."""
    if not sign_in_required():
        return True
    return signed_in() and role in _roles()


def permitted(action: str) -> bool:
    """True when this session may do the guarded ``action`` (a key of :data:`~ui.auth_view.NEEDS`); otherwise
    shows the reason as an error and returns False."""
    if has_role(NEEDS[action]):
        return True
    try:
        text = refusal(action, identity() or "nobody", access())
    except InputError as exc:
        text = f"Cannot tell who may {action}: {exc}"
    st.error(md_escape(text), icon=":material/lock:")
    return False
