"""Status: the checks of ``python -m kgcore doctor`` (store, Chroma, audit database, models, answer endpoint)."""

from __future__ import annotations

import streamlit as st

from kgcore.api.health import doctor_checks
from ui.boot_panel import ensure_app_navigation
from ui.status_view import status_html, summary

ensure_app_navigation()
st.title("Status")
st.caption("What `python -m kgcore doctor` checks: whatever is wrong, with how to fix it.")
models = st.toggle("Check the models too (loads them when they are not loaded yet)", value=True, key="status.models")
st.button("Check again", key="status.again")  # a click reruns the page, and the checks run again
with st.spinner("Checking…"):
    checks = doctor_checks(models=models)
(st.success if all(c.ok for c in checks) else st.warning)(summary(checks))
st.markdown(status_html(checks), unsafe_allow_html=True)
