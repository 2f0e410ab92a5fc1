"""Sign-in identities and roles, pure (``ui.auth_view``; no streamlit runtime, no models)."""

from __future__ import annotations

import doctest

import pytest

import ui.auth_view
from kgcore.audit.names import MAX_REVIEWER_CHARS, clean_reviewer
from kgcore.core.errors import InputError
from ui.auth_view import MAINTAINER, NEEDS, AccessSettings, providers, refusal, reviewer_identity


def test_doctests():
    result = doctest.testmod(ui.auth_view, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("claims", [
    {"name": "Ada\tLovelace\n", "email": " ada@example.org "},
    {"name": "<script>alert(1)</script>", "email": "x@example.org"},
    {"name": "N" * 300, "email": "e" * 120 + "@example.org"},
])
def test_an_identity_is_always_a_valid_reviewer_name(claims):
    name = reviewer_identity(claims)
    assert clean_reviewer(name) == name and 0 < len(name) <= MAX_REVIEWER_CHARS


def test_roles_come_from_a_verified_listed_email_only():
    access = AccessSettings.from_env({"KGCORE_MAINTAINERS": "ada@example.org;bob@example.org".replace(";", "\n")})
    assert access.maintainers == ("ada@example.org", "bob@example.org")
    assert access.roles({"email": "Ada@Example.ORG"}) == {MAINTAINER}
    assert access.roles({"email": "ada@example.org", "email_verified": False}) == frozenset()
    assert access.roles({"name": "ada@example.org"}) == frozenset()  # a name is not an address
    assert access.roles({"email": "ada@example.org.evil"}) == frozenset()
    with pytest.raises(InputError, match="KGCORE_MAINTAINERS"):
        AccessSettings.from_env({"KGCORE_MAINTAINERS": "ada@example.org, not-an-address"})


def test_every_guarded_action_has_a_refusal_naming_the_role_and_the_variable():
    for action in NEEDS:
        text = refusal(action, "Bob", AccessSettings(("ada@example.org",)))
        assert text.startswith(f"Only maintainers may {action}.") and "KGCORE_MAINTAINERS" in text
        assert "ada@example.org" not in text  # who the maintainers are is not told


def test_providers_of_an_auth_section():
    unnamed = {"redirect_uri": "u", "cookie_secret": "c", "client_id": "i", "client_kwargs": {"prompt": "login"}}
    assert providers(unnamed) == [None]
    assert providers({"redirect_uri": "u", "cookie_secret": "c", "google": {}, "okta": {}}) == ["google", "okta"]
