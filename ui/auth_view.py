"""Sign-in and roles, pure (no streamlit): who a signed-in user is, and what a role allows.

Sign-in is on when ``.streamlit/secrets.toml`` has an ``[auth]`` section
(Streamlit's OpenID Connect login, :mod:`ui.auth_panel`).  A signed-in user
reviews as **name (email)** from the identity token's claims; the label
author is that string, so Review, the exports and Cohen's kappa name the
person and their address.

Deleting documents or collections, importing labels, deleting another
reviewer's label and adjudicating disagreements need the ``maintainer``
role: the e-mail addresses listed in ``KGCORE_MAINTAINERS``
(comma-separated, case-insensitive).  Without sign-in the app is a local,
single-user tool and every action is allowed.

>>> reviewer_identity({"name": "Ada  Lovelace", "email": "ada@example.org"})
'Ada Lovelace (ada@example.org)'
>>> access = AccessSettings.from_env({"KGCORE_MAINTAINERS": " Ada@Example.org, eve@example.org "})
>>> access.maintainers
('ada@example.org', 'eve@example.org')
>>> access.has_role({"email": "ADA@example.org", "email_verified": True}, MAINTAINER)
True
>>> access.has_role({"email": "bob@example.org"}, MAINTAINER)
False
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kgcore.api import MAINTAINERS_VARIABLE, MAX_REVIEWER_CHARS, InputError, listed_maintainers

#: The one role: may delete documents and collections and import labels.
MAINTAINER = "maintainer"
#: What each guarded action needs (the action is named in the refusal).
NEEDS = {
    "delete collections": MAINTAINER,
    "remove documents": MAINTAINER,
    "cancel other people's jobs": MAINTAINER,
    "import labels": MAINTAINER,
    "delete other people's labels": MAINTAINER,
    "adjudicate disagreements": MAINTAINER,
}
_EMAIL_RE = re.compile(r"[^@\s,]+@[^@\s,]+")


@dataclass(frozen=True)
class AccessSettings:
    """Who holds which role (typed; from the environment).

    >>> AccessSettings.from_env({}).maintainers
    ()
    >>> AccessSettings.from_env({"KGCORE_MAINTAINERS": "ada, bob@example.org"})
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_MAINTAINERS: 'ada' is not an e-mail address (list e-mail addresses, \
comma-separated)
    """

    maintainers: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AccessSettings:
        emails = listed_maintainers(env)
        for email in emails:
            if not _EMAIL_RE.fullmatch(email):
                raise InputError(MAINTAINERS_VARIABLE, f"{email!r} is not an e-mail address "
                                                       "(list e-mail addresses, comma-separated)")
        return cls(tuple(dict.fromkeys(e.casefold() for e in emails)))

    def roles(self, claims: Mapping[str, object]) -> frozenset[str]:
        """The roles of a signed-in user: by verified e-mail (a token saying ``email_verified: false`` gets none).

        >>> AccessSettings(("ada@example.org",)).roles({"email": "ada@example.org", "email_verified": False})
        frozenset()
        """
        email = str(claims.get("email") or "").strip().casefold()
        if not email or claims.get("email_verified") is False:
            return frozenset()
        return frozenset({MAINTAINER}) if email in self.maintainers else frozenset()

    def has_role(self, claims: Mapping[str, object], role: str) -> bool:
        return role in self.roles(claims)


def reviewer_identity(claims: Mapping[str, object]) -> str:
    """The reviewer name of a signed-in user: "name (email)", or whichever of the two the token has (else its
    subject), whitespace collapsed and at most :data:`~kgcore.audit.names.MAX_REVIEWER_CHARS` characters.

    >>> reviewer_identity({"email": "bob@example.org"}), reviewer_identity({"name": "Bob", "sub": "42"})
    ('bob@example.org', 'Bob')
    >>> len(reviewer_identity({"name": "N" * 200, "email": "ada@example.org"}))
    100
    >>> reviewer_identity({"sub": "x"}), reviewer_identity({})
    ('x', '')
    """
    name, email = (" ".join(str(claims.get(k) or "").split()) for k in ("name", "email"))
    if name and email:
        room = MAX_REVIEWER_CHARS - len(email) - 3
        return f"{name[:room].rstrip()} ({email})" if room > 0 else email[:MAX_REVIEWER_CHARS]
    return (name or email or " ".join(str(claims.get("sub") or "").split()))[:MAX_REVIEWER_CHARS]


def refusal(action: str, who: str, access: AccessSettings) -> str:
    """Why a signed-in user may not do ``action``, and who can change that (plain text: escape it for Markdown).

    >>> print(refusal("delete collections", "Bob (bob@example.org)", AccessSettings(("ada@example.org",))))
    Only maintainers may delete collections. You are signed in as Bob (bob@example.org), who is not a maintainer: \
ask one, or ask the app's administrator to add your e-mail address to KGCORE_MAINTAINERS.
    >>> refusal("import labels", "Bob", AccessSettings()).endswith("(no maintainer is configured yet).")
    True
    """
    role = NEEDS.get(action, MAINTAINER)
    start = f"Only {role}s may {action}. You are signed in as {who}, who is not a {role}: "
    if not access.maintainers:
        return start + (f"ask the app's administrator to list your e-mail address in {MAINTAINERS_VARIABLE} "
                        f"(no {role} is configured yet).")
    return start + f"ask one, or ask the app's administrator to add your e-mail address to {MAINTAINERS_VARIABLE}."


def providers(auth: Mapping[str, object]) -> list[str | None]:
    """The identity providers of an ``[auth]`` section: the named ``[auth.NAME]`` tables, or the one unnamed
    provider (None) whose settings sit in ``[auth]`` itself.

    >>> providers({"redirect_uri": "u", "client_id": "c"}), providers({"redirect_uri": "u", "okta": {"x": 1}})
    ([None], ['okta'])
    """
    named = [key for key, value in auth.items() if isinstance(value, Mapping) and key != "client_kwargs"]
    return [None] if "client_id" in auth or not named else named
