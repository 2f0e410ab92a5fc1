"""The app's addresses in a real browser (``streamlit run app.py`` driven by Debian's Chromium): every page's
address opens that page, and the chosen reviewer follows the analyst across pages, reloads and links.

* ``/library`` opens the Library (the default page, served at ``/``) without a "Page not found" dialog, keeping
  the address's parameters.
* A reviewer chosen once (here from ``?reviewer=Ada``) stays in the address on every page opened from the sidebar
  and after a reload, and a link without it (``/review``, ``/ask`` typed in the same browser: a new session)
  still opens as Ada; another browser (a fresh context) is nobody until it chooses.

No models are loaded: the store holds only the audit database with two registered reviewers.
"""

from __future__ import annotations

import pytest
from test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_app, sync_api, wait_idle

from kgcore.audit import AuditDB


@pytest.fixture(scope="module")
def address_server(tmp_path_factory):
    store = tmp_path_factory.mktemp("address_store")
    db = AuditDB.for_store(store)
    for name in ("Ada", "Bob"):
        db.add_reviewer(name)
    with running_app(store, "streamlit_addresses.log") as (url, _proc), sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield url, browser
        finally:
            browser.close()


def opened(page, title: str) -> None:
    """The page titled ``title`` is drawn, idle, with no "Page not found" dialog."""
    expect = sync_api.expect
    expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible(timeout=120_000)
    wait_idle(page)
    page.wait_for_timeout(500)  # a dialog would open after the run
    wait_idle(page)
    assert page.get_by_text("Page not found").count() == 0, f"{page.url}: Page not found"


def reviewer_shown(page, name: str) -> None:
    chosen = page.locator("[data-testid='stSidebar']").get_by_role("combobox", name="Reviewing as")
    sync_api.expect(chosen).to_have_value(name, timeout=30_000)


def test_library_address_opens_the_library(address_server):
    url, browser = address_server
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    for path in ("/", "/library", "/library?collection=none"):
        page.goto(url + path)
        opened(page, "Library")
    assert page.url.endswith("/?collection=none")  # the address's parameters are kept
    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name="Library", exact=True).click()
    opened(page, "Library")


def test_reviewer_follows_pages_reloads_and_links(address_server):
    url, browser = address_server
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(url + "/ask?reviewer=Ada")
    opened(page, "Ask")
    reviewer_shown(page, "Ada")
    nav = page.locator("[data-testid='stSidebarNav']")
    for link in ("Review", "Review queues", "Library"):
        nav.get_by_role("link", name=link, exact=True).click()
        opened(page, link)
        reviewer_shown(page, "Ada")
        assert "reviewer=Ada" in page.url, page.url
    page.reload()
    opened(page, "Library")
    reviewer_shown(page, "Ada")
    for path, title in (("/review", "Review"), ("/ask", "Ask")):  # links without the name: new sessions
        page.goto(url + path)
        opened(page, title)
        reviewer_shown(page, "Ada")
        assert page.url.endswith(f"{path}?reviewer=Ada"), page.url
    page.screenshot(path=str(ARTIFACTS / "reviewer_kept.png"))
    context.close()
    stranger = browser.new_context().new_page()  # another browser knows no reviewer
    stranger.goto(url + "/review")
    opened(stranger, "Review")
    reviewer_shown(stranger, "")
    assert "reviewer=" not in stranger.url
