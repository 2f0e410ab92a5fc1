"""Sign-in end to end: a real OpenID Connect provider, the app and Debian's Chromium.

The test starts ``oidc-provider-mock`` (a real OpenID Connect provider: discovery, authorization form, signed ID
tokens) and ``streamlit run app.py`` with an ``[auth]`` secrets file pointing at it, each on a free loopback port,
and stops both by their PIDs.  Bob (not a maintainer) and Ada (a maintainer, ``KGCORE_MAINTAINERS``) sign in
through the provider's form in two browser contexts and label the same queued record; the stored labels carry
their signed-in identities, which the Review page's agreement and CSV export name too.  Bob's delete is refused
with the reason; Ada's deletes the collection.  Signing out leads back to the sign-in page.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from auditkit import add_records
from test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, free_port, sync_api, wait_healthy, wait_idle
from test_browser_team import label_with_keys

from kgcore.audit import AuditDB
from kgcore.audit.queues import create_queue
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store.disk import Store
from paths import ROOT

if importlib.util.find_spec("oidc_provider_mock") is None:  # run as a program below, never imported here
    pytest.skip("oidc-provider-mock is not installed (requirements.txt)", allow_module_level=True)
pytest.importorskip("authlib", reason="Authlib is not installed (Streamlit's st.login needs it)")

ADA = {"sub": "ada", "name": "Ada Lovelace", "email": "ada@example.org", "email_verified": True}
BOB = {"sub": "bob", "name": "Bob Builder", "email": "bob@example.org", "email_verified": True}
ADA_ID, BOB_ID = "Ada Lovelace (ada@example.org)", "Bob Builder (bob@example.org)"
DOCS = [("garden.txt", b"Peter squeezed under the gate of the garden. Mr. McGregor planted cabbages."),
        ("pond.txt", b"Jemima walked to the pond. The fox smiled at her.")]


def stop(proc: subprocess.Popen) -> None:
    """Stop a process this test started, by its PID: terminate, then kill if it lingers."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def wait_discovery(url: str, proc: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"oidc-provider-mock exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/.well-known/openid-configuration", timeout=2) as r:
                if json.load(r)["issuer"] == url:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"{url} served no OpenID configuration in {timeout_s} s")


@pytest.fixture(scope="module")
def provider():
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = (ARTIFACTS / "oidc_provider.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port),
                             "--user-claims", json.dumps(ADA), "--user-claims", json.dumps(BOB)],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_discovery(url, proc)
        yield url
    finally:
        stop(proc)
        log.close()


def secrets_file(folder: Path, app_port: int, provider: str) -> Path:
    """The ``[auth]`` section Streamlit's ``st.login`` reads, fresh secrets for this run only."""
    path = folder / "secrets.toml"
    path.write_text(f'''[auth]
redirect_uri = "http://127.0.0.1:{app_port}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "groundedkg-auditor"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider}/.well-known/openid-configuration"
''', encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def signed_app(provider, tmp_path_factory):
    folder = tmp_path_factory.mktemp("auth_app")
    store = Store(folder / "store")
    (outcome,) = index_files([Job(name, data=data) for name, data in DOCS], store, "shelf", workers=1)
    assert not outcome.failed
    db = AuditDB.for_store(store.root)
    for name in (ADA_ID, BOB_ID):  # the team lead assigns the queue to the people who will sign in
        db.add_reviewer(name, "sign-in")
    create_queue(db, "team", add_records(db, 3), [ADA_ID, BOB_ID], full_overlap=True)
    port = free_port()
    env = {**os.environ, "KGCORE_STORE": str(store.root), "KGCORE_MAINTAINERS": "ada@example.org",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    log = (ARTIFACTS / "streamlit_auth.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--secrets.files", str(secrets_file(folder, port, provider))],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url, store, db
    finally:
        stop(proc)
        log.close()


def sign_in(page, url: str, sub: str, who: str) -> None:
    """From any address of the app: the sign-in page, the provider's form (as ``sub``), back signed in."""
    expect = sync_api.expect
    page.goto(f"{url}/queues")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("link", name="Library")).to_have_count(0)  # no page before sign-in
    page.screenshot(path=str(ARTIFACTS / f"auth_sign_in_{sub}.png"), full_page=True)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_placeholder("sub").fill(sub, timeout=60_000)  # the provider's authorization form
    page.get_by_role("button", name="Authorize").click()
    expect(page.get_by_test_id("stSidebar").get_by_text(f"Signed in as {who}")).to_be_visible(timeout=60_000)
    assert page.url.startswith(url)


def delete_shelf(page, url: str) -> None:
    page.goto(url)  # the Library is the default page, at the app's root
    sync_api.expect(page.get_by_role("heading", name="Library")).to_be_visible(timeout=60_000)
    wait_idle(page)
    page.get_by_role("button", name="Delete collection…").click()


def test_signed_in_identities_label_and_only_a_maintainer_deletes(signed_app):
    url, store, db = signed_app
    expect = sync_api.expect
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        bob = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        sign_in(bob, url, "bob", BOB_ID)
        bob.goto(f"{url}/queues?reviewer=Ada")  # an address naming someone else changes nothing
        expect(bob.get_by_text(f"{BOB_ID}: 0 of 3 done")).to_be_visible(timeout=60_000)
        label_with_keys(bob, "3", "III answer")
        delete_shelf(bob, url)
        expect(bob.get_by_text(re.compile("Only maintainers may delete collections"))).to_be_visible(timeout=60_000)
        bob.screenshot(path=str(ARTIFACTS / "auth_refused.png"), full_page=True)
        assert [m.name for m in store.list()] == ["shelf"]

        ada = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        sign_in(ada, url, "ada", ADA_ID)
        expect(ada.get_by_text(f"Signed in as {ADA_ID} · maintainer")).to_be_visible()
        ada.goto(f"{url}/queues")
        label_with_keys(ada, "2", "II retrieval")
        assert sorted((lb.author, lb.label_type) for lb in db.list_labels()) == [(ADA_ID, "II"), (BOB_ID, "III")]
        delete_shelf(ada, url)
        ada.get_by_role("button", name="Yes, delete").click()
        expect(ada.get_by_text("Deleted the collection shelf.").first).to_be_visible(timeout=60_000)
        assert store.list() == []

        review_names_the_identities(ada, url)
        ada.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
        ada.wait_for_url(re.compile(r"/oauth2/end_session"), timeout=60_000)  # the provider's logout, cookie gone
        ada.goto(url)
        expect(ada.get_by_role("heading", name="Sign in")).to_be_visible(timeout=60_000)
        browser.close()


def review_names_the_identities(page, url: str) -> None:
    """Cohen's kappa's pair and the CSV export name both signed-in reviewers."""
    expect = sync_api.expect
    page.goto(f"{url}/review")
    expect(page.get_by_role("heading", name="Review")).to_be_visible(timeout=60_000)
    page.get_by_role("tab", name="Agreement").click()
    wait_idle(page)
    page.screenshot(path=str(ARTIFACTS / "auth_agreement.png"), full_page=True)
    pair = page.get_by_test_id("stSelectbox").filter(has_text="Confusion matrix of")  # Cohen's kappa's pair
    expect(pair).to_be_visible(timeout=60_000)
    shown = pair.evaluate("el => el.innerText + ' ' + [...el.querySelectorAll('input')].map(i => i.value).join(' ')")
    assert f"{ADA_ID} / {BOB_ID}" in shown, shown
    page.get_by_role("tab", name="Import / export").click()
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Records and labels (CSV)").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert ADA_ID in exported and BOB_ID in exported
