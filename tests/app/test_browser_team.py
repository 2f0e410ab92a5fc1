"""Review as a team in a real browser: ``streamlit run app.py`` driven by Debian's Chromium, two browser
contexts as two reviewers.

Ada chooses herself in the sidebar, reloads (still Ada), labels a queued record with the keyboard shortcuts;
Bob, in a second context, opens the queue from an address carrying his name and labels the same record
differently; the Adjudicate page then shows both.  The audit store is filled beforehand (no models: the
records come from ``auditkit``).  Screenshots go to ``tests/artifacts/`` (gitignored).
"""

from __future__ import annotations

import re

import pytest
from auditkit import add_records
from test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_app, sync_api, wait_idle

from kgcore.audit import AuditDB
from kgcore.audit.queues import create_queue


@pytest.fixture(scope="module")
def team_server(tmp_path_factory):
    store = tmp_path_factory.mktemp("team_store")
    db = AuditDB.for_store(store)
    for name in ("Ada", "Bob", "Cy"):
        db.add_reviewer(name)
    create_queue(db, "team", add_records(db, 3), ["Ada", "Bob"], full_overlap=True)
    with running_app(store, "streamlit_team.log") as (url, _proc):
        yield url, db


def shot(page, name: str) -> None:
    wait_idle(page)
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def label_with_keys(page, key: str, stage: str) -> None:
    """Press a stage's shortcut, then Ctrl+Enter (save and next), waiting for each to take effect."""
    expect = sync_api.expect
    chosen = page.get_by_role("toolbar", name="Chosen").get_by_role("button", name=stage, exact=True)
    for _ in range(5):  # a key pressed before the page's shortcuts are registered is lost (a busy machine)
        wait_idle(page)
        expect(chosen).to_be_visible(timeout=60_000)
        if chosen.get_attribute("aria-pressed") == "true":
            break
        page.get_by_role("heading", name="Review queues").click()  # the focus on the page, not in a field
        page.keyboard.press(key)
        try:
            expect(chosen).to_have_attribute("aria-pressed", "true", timeout=10_000)
            break
        except AssertionError:
            continue
    expect(chosen).to_have_attribute("aria-pressed", "true", timeout=60_000)
    expect(page.get_by_role("button", name=re.compile("^Save"))).to_be_enabled(timeout=60_000)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(r"Saved record .*1:")).first).to_be_visible(timeout=60_000)


def test_two_reviewers_share_a_queue_and_the_adjudicator_sees_both(team_server):
    url, db = team_server
    expect = sync_api.expect
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        ada = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        ada.goto(f"{url}/queues")
        expect(ada.get_by_role("heading", name="Review queues")).to_be_visible(timeout=60_000)
        ada.get_by_test_id("stSidebar").get_by_role("combobox").first.click()
        ada.get_by_role("option", name="Ada").click()
        wait_idle(ada)
        expect(ada).to_have_url(re.compile(r"reviewer=Ada"), timeout=30_000)
        ada.reload()  # a reload keeps the reviewer
        expect(ada.get_by_text("Ada: 0 of 3 done")).to_be_visible(timeout=60_000)
        label_with_keys(ada, "2", "II retrieval")
        expect(ada.get_by_text("Ada: 1 of 3 done")).to_be_visible(timeout=60_000)
        shot(ada, "team_queue_ada")
        bob = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        bob.goto(f"{url}/queues?reviewer=Bob")
        expect(bob.get_by_text("Bob: 0 of 3 done")).to_be_visible(timeout=60_000)
        label_with_keys(bob, "3", "III answer")
        expect(bob.get_by_text("Bob: 1 of 3 done")).to_be_visible(timeout=60_000)
        labels = [(lb.author, lb.label_type) for lb in db.list_labels()]
        assert sorted(labels) == [("Ada", "II"), ("Bob", "III")]
        ada.goto(f"{url}/adjudicate?reviewer=Ada")
        expect(ada.get_by_role("heading", name="Adjudicate")).to_be_visible(timeout=60_000)
        matrix = ada.locator("table.kg-stage-matrix")
        expect(matrix).to_be_visible(timeout=60_000)
        expect(matrix).to_contain_text("Ada")
        expect(matrix).to_contain_text("Bob")
        shot(ada, "team_adjudicate")
        browser.close()
