"""Show failures as short messages with their reason, never as a traceback.

>>> short_reason(ValueError("x" * 500))[-1]
'…'
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager

import streamlit as st

from kgcore.api import KgcoreError

from .markup_html import md_escape

log = logging.getLogger("groundedkg.app")
MAX_REASON_CHARS = 300


def short_reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def headline(reason: str, limit: int = 80) -> str:
    """The first clause of a long explanation, for a one-line caption.

    >>> headline("no AMR parse model: KGCORE_AMR_MODEL is not set. Download one.")
    'no AMR parse model'
    """
    first = re.split(r"(?<=[.;:])\s", reason.strip(), maxsplit=1)[0].rstrip(".;:")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def show_error(what: str, exc: BaseException) -> None:
    """``st.error`` for ``exc``: kgcore's own message, or a short generic one."""
    if isinstance(exc, KgcoreError):
        st.error(f"**{md_escape(what)}** — {md_escape(exc)}", icon=":material/error:")
    else:
        log.exception("%s failed", what)
        st.error(
            f"**{md_escape(what)}** failed unexpectedly ({type(exc).__name__}: {md_escape(short_reason(exc))}). "
            "Details are in the server log.",
            icon=":material/error:",
        )


@contextmanager
def reported(what: str):
    """Run a block; a failure inside it becomes an ``st.error`` and the block is skipped.

    Streamlit's own control flow (``st.rerun``, ``st.stop``) derives from
    ``BaseException`` and passes through untouched.
    """
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the point is to catch everything the user could see
        show_error(what, exc)
