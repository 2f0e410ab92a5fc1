"""The doctor's checks that need no model: settings, store, audit database, answer endpoint, optional models.

The answer endpoint is checked against a real HTTP server on loopback (a minimal OpenAI-compatible
``/v1/models``), and against a port nothing listens on.
"""

from __future__ import annotations

import doctest
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from netkit import free_port
from wordnetkit import requires_wordnet

from kgcore.api.health import (
    check_amr,
    check_answer_endpoint,
    check_audit,
    check_fastcoref,
    check_store,
    check_wordnet,
    healthy,
    run_checks,
    settings_check,
)
from kgcore.audit import AuditDB
from kgcore.cli import main
from kgcore.cli.doctor import format_check
from kgcore.core import wordnet
from kgcore.core.settings import Settings
from ui import status_view

KEY = "sk-doctor-test-key"


class _Models(BaseHTTPRequestHandler):
    """``GET /v1/models``: the model list for the right key, 401 otherwise."""

    def do_GET(self):  # noqa: N802 - the http.server name
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"object": "list", "data": [{"id": "llama3.1", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_answer_endpoint_is_checked_only_when_configured(endpoint):
    off = check_answer_endpoint(Settings())
    assert off.ok and "not configured" in off.detail
    good = check_answer_endpoint(Settings(openai_base_url=endpoint, openai_model="llama3.1", openai_api_key=KEY))
    assert good.ok and "llama3.1" in good.detail and "not in its model list" not in good.detail
    bad_key = check_answer_endpoint(Settings(openai_base_url=endpoint, openai_model="llama3.1",
                                             openai_api_key="sk-wrong"))
    assert not bad_key.ok and "HTTP 401" in bad_key.detail and "OPENAI_API_KEY" in bad_key.fix
    assert "sk-wrong" not in bad_key.detail + bad_key.fix
    no_model = check_answer_endpoint(Settings(openai_base_url=endpoint))
    assert not no_model.ok and "KGCORE_OPENAI_MODEL" in no_model.fix


def test_an_unreachable_answer_endpoint_is_reported_with_the_fix():
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = check_answer_endpoint(Settings(openai_base_url=url, openai_model="m"))
    assert not result.ok and url in result.detail and "KGCORE_OPENAI_BASE_URL" in result.fix


def test_the_store_check(tmp_path):
    assert check_store(Settings(store_root=tmp_path / "new")).ok
    (tmp_path / "file").write_text("x")
    as_file = check_store(Settings(store_root=tmp_path / "file"))
    assert not as_file.ok and "KGCORE_STORE" in as_file.fix
    (tmp_path / "store" / "shelf").mkdir(parents=True)
    (tmp_path / "store" / "shelf" / "collection.json").write_text("{not json")
    damaged = check_store(Settings(store_root=tmp_path / "store"))
    assert not damaged.ok and "shelf" in damaged.detail
    assert "python -m kgcore delete --collection shelf" in damaged.fix


def test_the_audit_database_check(tmp_path):
    assert check_audit(Settings(store_root=tmp_path)).ok  # not created yet
    AuditDB.for_store(tmp_path)
    result = check_audit(Settings(store_root=tmp_path))
    assert result.ok and "schema version" in result.detail and "0 records" in result.detail
    (tmp_path / "audit.sqlite").write_bytes(b"this is not a database" * 100)
    damaged = check_audit(Settings(store_root=tmp_path))
    assert not damaged.ok and "audit.sqlite" in damaged.detail and "move" in damaged.fix


def test_optional_models_are_not_configured_unless_configured(tmp_path):
    assert check_fastcoref(Settings()).ok and "not configured" in check_fastcoref(Settings()).detail
    assert check_amr(Settings()).ok and "not configured" in check_amr(Settings()).detail
    missing = check_fastcoref(Settings(fastcoref_model=str(tmp_path)))
    assert not missing.ok and "KGCORE_FASTCOREF_MODEL" in missing.fix
    amr = check_amr(Settings(amr_model=str(tmp_path / "nowhere")))
    assert not amr.ok and "KGCORE_AMR_MODEL" in amr.fix


@requires_wordnet
def test_wordnet_is_reported_where_it_is_read_from(tmp_path, monkeypatch):
    monkeypatch.delenv("KGCORE_WORDNET", raising=False)
    wordnet.forget()
    assert check_wordnet(Settings()).detail.startswith("noun files in /usr/share/wordnet")  # .ci/run installs it
    monkeypatch.setenv("KGCORE_WORDNET", str(tmp_path))
    wordnet.forget()
    try:
        missing = check_wordnet(Settings())
        assert missing.ok and f"not found in {tmp_path}" in missing.detail and "wordnet-base" in missing.detail
    finally:
        wordnet.forget()


def test_a_check_that_breaks_is_reported_not_raised():
    def check_boom(settings: Settings):
        raise RuntimeError("boom")

    (result,) = run_checks(Settings(), checks=[check_boom])
    assert result.name == "boom" and not result.ok and "RuntimeError: boom" in result.detail
    assert not healthy([result])


def test_bad_settings_are_the_first_failed_check(monkeypatch, capsys):
    monkeypatch.setenv("KGCORE_CHROMA_URL", "localhost:8000")
    settings, check = settings_check(None)
    assert settings is None and not check.ok and "KGCORE_CHROMA_URL" in check.detail
    assert main(["doctor", "--no-models", "--json"]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["name"] == "settings"
    assert format_check(check).startswith("FAIL  settings")


def test_the_chroma_token_is_never_printed(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("KGCORE_CHROMA_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("KGCORE_CHROMA_TOKEN", "tok-secret-42")
    monkeypatch.setenv("KGCORE_STORE", str(tmp_path))
    assert main(["doctor", "--no-models"]) == 1
    out = capsys.readouterr().out
    assert "tok-secret-42" not in out and "FAIL  chroma" in out
    assert "tok-secret-42" not in repr(Settings.from_env()) and Path(tmp_path).is_dir()


def test_the_status_view_doctests():
    result = doctest.testmod(status_view)
    assert result.attempted > 0 and result.failed == 0


def test_sign_in_is_checked_as_the_app_reads_its_secrets(tmp_path):
    """Off without an ``[auth]`` section; on with its maintainers; a file that is not TOML or an incomplete section
    fails, naming the file or the missing keys -- and never repeating a secret."""
    from kgcore.api.sign_in import sign_in_state

    home, local = tmp_path / "home.toml", tmp_path / "local.toml"
    ok, detail, _ = sign_in_state([home, local], {})
    assert ok and detail.startswith("off: no [auth] section in ") and str(local) in detail
    home.write_text('[auth]\nredirect_uri = "https://kg/oauth2callback"\ncookie_secret = "s3cret-cookie"\n'
                    'client_id = "kg"\nclient_secret = "hush"\n'
                    'server_metadata_url = "https://id/.well-known/openid-configuration"\n', encoding="utf-8")
    assert sign_in_state([home, local], {"KGCORE_MAINTAINERS": "ada@example.org"})[:2] == (
        True, f"on (OpenID Connect, from {home}); 1 maintainer in KGCORE_MAINTAINERS")
    assert "adjudicate" in sign_in_state([home, local], {})[1]  # no maintainer: what nobody may do
    local.write_text('[auth]\ncookie_secret = ""\n', encoding="utf-8")  # the later file overrides the section
    ok, detail, fix = sign_in_state([home, local], {})
    assert not ok and "redirect_uri is missing" in detail and "cookie_secret is missing" in detail and fix
    local.write_text('[auth]\nredirect_uri = "https://kg/oauth2callback\ncookie_secret = "s3cret-cookie"\n',
                     encoding="utf-8")
    ok, detail, fix = sign_in_state([home, local], {})
    assert not ok and str(local) in detail and "cannot be read as TOML" in detail and "serves nobody" in detail
    assert "s3cret" not in detail + fix and "hush" not in detail + fix
