"""Sign-in and roles through ``streamlit.testing.v1.AppTest``: the ``[auth]`` secrets and the
signed-in user (``st.user``) are AppTest's own, the store is real (a two-document collection, real models).

The end-to-end run with a real OpenID Connect provider and Chromium is ``test_browser_auth.py``.
"""

from __future__ import annotations

import pytest
from apptest import TIMEOUT, open_tab
from auditkit import add_records
from streamlit.testing.v1 import AppTest

from kgcore.audit import AuditDB
from kgcore.audit.adjudication import adjudications_for
from kgcore.audit.transfer import csv_text
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from paths import APP, ROOT

#: Never contacted here: AppTest stands in for the browser and the provider.
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "t" * 32, "client_id": "kg",
        "client_secret": "unused", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
ADA = {"is_logged_in": True, "name": "Ada Lovelace", "email": "ada@example.org", "email_verified": True}
BOB = {"is_logged_in": True, "name": "Bob  Builder", "email": "bob@example.org"}
BOB_ID = "Bob Builder (bob@example.org)"
ADA_ID = "Ada Lovelace (ada@example.org)"
DOCS = [("garden.txt", b"Peter squeezed under the gate of the garden. Mr. McGregor planted cabbages."),
        ("pond.txt", b"Jemima walked to the pond. The fox smiled at her.")]


@pytest.fixture
def shelf(tmp_path, monkeypatch):
    root = tmp_path / "store"
    (outcome,) = index_files([Job(name, data=data) for name, data in DOCS], Store(root), "shelf", workers=1)
    assert not outcome.failed
    monkeypatch.setenv("KGCORE_STORE", str(root))
    monkeypatch.setenv("KGCORE_MAINTAINERS", "someone@example.org, ADA@example.org")
    return root


def signed(user: dict | None, page: str | None = None, **query) -> AppTest:
    """A session of the app with ``[auth]`` configured and ``user`` as ``st.user`` (None: signed out)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.secrets["auth"] = AUTH
    at.user = user or {"is_logged_in": False}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        for key, value in query.items():
            at.query_params[key] = value
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def click(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.button if b.label == label]
    return button.click().run()


def test_signed_out_only_the_sign_in_page_is_shown(shelf):
    at = signed(None)
    assert [t.value for t in at.title] == ["Sign in"]
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.sidebar.selectbox  # no reviewer choice, no page
    # A page run on its own (outside app.py's gate) stops too.
    page = AppTest.from_file(str(ROOT / "pages" / "library.py"), default_timeout=TIMEOUT)
    page.secrets["auth"] = AUTH
    page.user = {"is_logged_in": False}
    page.run()
    assert [i.value for i in page.info] == ["Sign in first: this app requires it."] and not page.title


def test_the_reviewer_is_the_signed_in_identity(shelf):
    at = signed(BOB)  # app.py draws the account (AppTest runs a switched-to page on its own)
    assert "Signed in as **Bob Builder \\(bob@example.org\\)**" in [c.value for c in at.sidebar.caption]  # no role
    assert [b.label for b in at.sidebar.button] == ["Sign out"]
    at = signed(BOB, "pages/queues.py", reviewer="Ada")  # an address naming someone else changes nothing
    assert "Reviewing as **Bob Builder \\(bob@example.org\\)** (signed in)" in [c.value for c in at.sidebar.caption]
    assert not at.sidebar.selectbox and "reviewer" not in at.query_params
    assert [(r.name, r.origin) for r in AuditDB.for_store(shelf).reviewers()] == [(BOB_ID, "sign-in")]


def test_a_non_maintainer_may_not_delete_or_remove(shelf):
    at = signed(BOB)
    for button in ("Delete collection…", "Remove document…"):
        click(at, button)
        (refusal,) = [e.value for e in at.error]
        assert refusal.startswith("Only maintainers may ") and "KGCORE\\_MAINTAINERS" in refusal, refusal
        assert not [b for b in at.button if b.label.startswith("Yes, ")]  # no confirmation offered
    assert Store(shelf).list() and len(Store(shelf).manifest("shelf").documents) == 2


def test_a_maintainer_deletes(shelf):
    at = signed(ADA)
    assert any("· maintainer" in c.value for c in at.sidebar.caption)
    click(at, "Delete collection…")
    assert any("audit records of questions asked about it and their labels are kept" in w.value for w in at.warning)
    click(at, "Yes, delete")
    assert not at.exception and not at.error and Store(shelf).list() == []


def test_importing_labels_needs_the_maintainer_role(shelf, tmp_path):
    source = AuditDB.for_store(tmp_path / "other")
    source.add_reviewer("Cy")
    source.add_label(add_records(source, 1)[0], "II", author="Cy")
    export = csv_text(source).encode()
    for user, allowed in ((BOB, False), (ADA, True)):
        at = open_tab(signed(user, "pages/review.py"), "Import / export")
        at.file_uploader(key="review.import.file").set_value(("audit.csv", export, "text/csv")).run()
        click(at, "Import")
        labels = AuditDB.for_store(shelf).list_labels()
        if allowed:
            assert not at.error and [lb.author for lb in labels] == ["Cy"]
        else:
            assert [e.value for e in at.error][0].startswith("Only maintainers may import labels") and not labels


def test_without_auth_the_app_is_the_local_single_user_app(shelf):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.user = dict(BOB)  # a login cookie without [auth] is ignored
    at.run()
    assert not at.exception and [t.value for t in at.title][0] != "Sign in"
    assert at.sidebar.selectbox(key="identity.choice") is not None
    click(click(at, "Delete collection…"), "Yes, delete")
    assert not at.error and Store(shelf).list() == []


def test_a_secrets_file_that_cannot_be_read_serves_nobody(shelf, tmp_path):
    """Streamlit only logs a secrets file it cannot parse and runs without sign-in; the app refuses every address
    instead, naming the file, so a typo in ``[auth]`` never opens a team's app to everyone."""
    import streamlit as st

    broken = tmp_path / "secrets.toml"
    broken.write_text('[auth]\nredirect_uri = "http://127.0.0.1:8501/oauth2callback\ncookie_secret = "x"\n',
                      encoding="utf-8")
    before = st.config.get_option("secrets.files")
    st.config.set_option("secrets.files", [str(broken)])
    try:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    finally:
        st.config.set_option("secrets.files", before)
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["The app's secrets cannot be read"]
    assert "serves nobody" in at.error[0].value and str(tmp_path) not in at.error[0].value  # no server path shown
    assert not at.button and not at.sidebar.selectbox and not at.file_uploader  # no page, no upload, no delete


def _labels_app(root, record_id: int, user: dict, author: str) -> AppTest:
    """The Ask page's list of a record's labels, for ``user`` signed in as reviewer ``author``."""
    def script(root: str, record_id: int, author: str) -> None:
        from kgcore.audit import AuditDB
        from ui.labelling_panel import labels_list

        labels_list(AuditDB.for_store(root), record_id, author)

    at = AppTest.from_function(script, args=(str(root), record_id, author), default_timeout=TIMEOUT)
    at.secrets["auth"] = AUTH
    at.user = user
    return at.run()


def test_only_its_author_or_a_maintainer_deletes_a_label_and_the_history_names_who(shelf):
    db = AuditDB.for_store(shelf)
    for name in (ADA_ID, BOB_ID):
        db.add_reviewer(name, "sign-in")
    (record,) = add_records(db, 1)
    db.add_label(record, "II", author=ADA_ID)
    at = _labels_app(shelf, record, BOB, BOB_ID)  # Bob may not delete Ada's label: nothing that deletes is drawn
    assert not at.exception and [(b.label, b.disabled) for b in at.button] == [("Delete label", True)]
    bob_label, bob_other = db.add_label(record, "III", author=BOB_ID), db.add_label(record, "I", author=BOB_ID)
    at = _labels_app(shelf, record, BOB, BOB_ID)
    at.selectbox(key=f"label.list.{record}.pick").set_value(bob_label).run()
    click(at, "Delete it")  # his own, after the confirmation
    at = _labels_app(shelf, record, ADA, ADA_ID)  # a maintainer deletes anyone's
    at.selectbox(key=f"label.list.{record}.pick").set_value(bob_other).run()
    click(at, "Delete it")
    from kgcore.audit.adjudication import label_history

    assert [lb.author for lb in db.labels_for(record)] == [ADA_ID]
    assert [(h["author"], h["deleted_by"]) for h in label_history(db, record)] == [(BOB_ID, BOB_ID), (BOB_ID, ADA_ID)]
    suggestion = db.add_label(record, "II", note="the pie sentence was never retrieved", source="automatic")
    at = _labels_app(shelf, record, BOB, BOB_ID)  # a suggestion is nobody's own: only a maintainer deletes it
    at.selectbox(key=f"label.list.{record}.pick").set_value(suggestion).run()
    assert ("Delete label", True) in [(b.label, b.disabled) for b in at.button] and "Delete it" not in [
        b.label for b in at.button]


def test_adjudicating_needs_the_maintainer_role(shelf):
    db = AuditDB.for_store(shelf)
    for name in (ADA_ID, BOB_ID, "Cy"):
        db.add_reviewer(name, "sign-in")
    (record,) = add_records(db, 1)
    db.add_label(record, "II", author=ADA_ID)
    db.add_label(record, "III", author="Cy")
    at = signed(BOB, "pages/adjudicate.py")
    assert [e.value for e in at.error][0].startswith("Only maintainers may adjudicate disagreements")
    assert not [b for b in at.button if b.label == "Record the final labels"]
    at = signed(ADA, "pages/adjudicate.py")  # a maintainer, but one side of this disagreement
    at.multiselect(key=f"adjudicate.{record}.stages").set_value(["II"])
    at.text_area(key=f"adjudicate.{record}.reason").set_value("the evidence was never retrieved")
    click(at, "Record the final labels")
    assert "takes a side in its disagreement" in at.error[0].value and not adjudications_for(db, record)
