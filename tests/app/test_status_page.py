"""The Status page (``pages/status.py``) through AppTest: the doctor's checks, healthy and with problems.

The page is run on its own (``AppTest.from_file``), so this test does not depend on its place in
``app.py``'s navigation.  Stores: private copies of the session's Peter Rabbit index.
"""

from __future__ import annotations

from apptest import TIMEOUT, html_of, ok, store_copy, stuck_job
from chromakit import free_port
from streamlit.testing.v1 import AppTest

from paths import ROOT

PAGE = str(ROOT / "pages" / "status.py")


def status_page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()


def test_a_healthy_installation_shows_every_check_ok(peter_store, tmp_path):
    with store_copy(peter_store.root, tmp_path):
        at = ok(status_page())
        assert [s.value for s in at.success] == ["All 12 checks ok"]
        html = html_of(at)
        assert html.count('class="kg-check"') == 12 and "problem" not in html
        assert "none queued or running" in html
        assert "1 collections, 1 documents, files whole" in html and "embedded (chromadb" in html


def test_problems_are_shown_with_how_to_fix_them_escaped(peter_store, tmp_path, monkeypatch):
    port = free_port()
    with store_copy(peter_store.root, tmp_path):
        monkeypatch.setenv("KGCORE_CHROMA_URL", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("KGCORE_OPENAI_BASE_URL", "http://127.0.0.1:9/<b>v1</b>")
        monkeypatch.setenv("KGCORE_OPENAI_MODEL", "m")
        at = status_page()
        at.toggle(key="status.models").set_value(False).run()
        assert not at.exception, [e.value for e in at.exception]
        assert [w.value for w in at.warning] == ["2 of 8 checks failed: chroma, answer endpoint"]
        html = html_of(at)
        assert html.count(">problem<") == 2 and f"--port {port}" in html
        assert "&lt;b&gt;v1&lt;/b&gt;" in html and "<b>v1</b>" not in html


def test_a_stuck_indexing_job_is_a_problem_with_what_it_was_doing(peter_store, tmp_path):
    with store_copy(peter_store.root, tmp_path) as root:
        stuck_job(root, "tarzan.txt", stage=("parse", 4266, 4266), idle_s=1200)
        at = status_page()
        at.toggle(key="status.models").set_value(False).run()
        assert [w.value for w in at.warning] == ["1 of 8 checks failed: indexing jobs"]
        html = html_of(at)
        assert "no progress for 20 min (last: parse 4,266/4,266 of tarzan.txt)" in html
        assert "python -m kgcore jobs --cancel" in html
