"""Whether the app requires sign-in, read from its secrets files as Streamlit reads them -- for ``doctor`` and for
the app's gate, which refuses to serve anyone while a secrets file cannot be read (a broken file must not turn
sign-in off and open a team's app to everyone).

Streamlit reads ``~/.streamlit/secrets.toml`` and then ``.streamlit/secrets.toml`` in the folder it runs from, the
later overriding the earlier.  Sign-in is on when they have an ``[auth]`` section; it needs ``redirect_uri`` and
``cookie_secret`` there, and ``client_id``, ``client_secret`` and ``server_metadata_url`` there or in each named
provider's ``[auth.NAME]`` section.

>>> auth_problems({"redirect_uri": "https://kg/oauth2callback", "cookie_secret": "s", "client_id": "c",
...                "client_secret": "x", "server_metadata_url": "https://id/.well-known/openid-configuration"})
[]
>>> auth_problems({"redirect_uri": "https://kg/oauth2callback", "google": {"client_id": "c"}})
['cookie_secret is missing', '[auth.google] lacks client_secret, server_metadata_url']
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

from kgcore.core.errors import InputError

#: The secrets files Streamlit reads by default, in its order (a later one overrides an earlier one).
SECRETS_FILES = (Path("~/.streamlit/secrets.toml"), Path(".streamlit/secrets.toml"))
#: The environment variable listing the maintainers' e-mail addresses.
MAINTAINERS_VARIABLE = "KGCORE_MAINTAINERS"
#: Keys the ``[auth]`` section itself needs.
SHARED_KEYS = ("redirect_uri", "cookie_secret")
#: Keys each provider needs, in ``[auth]`` or in its own ``[auth.NAME]``.
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")


def read_secrets(paths: Iterable[str | Path] = SECRETS_FILES) -> dict:
    """The secrets of every file of ``paths`` that exists, merged in order; a file that cannot be read or is not
    TOML is an InputError naming it (its contents are never repeated: they are secrets)."""
    merged: dict = {}
    for name in paths:
        path = Path(name).expanduser()
        if not path.is_file():
            continue
        try:
            merged.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(str(path), f"cannot be read as TOML ({exc})") from None
    return merged


def listed_maintainers(env: Mapping[str, str]) -> list[str]:
    """The addresses :data:`MAINTAINERS_VARIABLE` lists, comma- or space-separated, as written.

    >>> listed_maintainers({"KGCORE_MAINTAINERS": " ada@example.org,bob@example.org  eve@example.org"})
    ['ada@example.org', 'bob@example.org', 'eve@example.org']
    """
    return [part for part in re.split(r"[,\s]+", env.get(MAINTAINERS_VARIABLE) or "") if part]


def auth_problems(section: Mapping) -> list[str]:
    """What an ``[auth]`` section lacks for Streamlit's sign-in ([] when nothing)."""
    problems = [f"{key} is missing" for key in SHARED_KEYS if not section.get(key)]
    providers = {name: value for name, value in section.items() if isinstance(value, Mapping)}
    if not providers:
        lacking = [key for key in PROVIDER_KEYS if not section.get(key)]
        return problems + ([f"{', '.join(lacking)} missing"] if lacking else [])
    for name, provider in providers.items():
        lacking = [key for key in PROVIDER_KEYS if not provider.get(key) and not section.get(key)]
        if lacking:
            problems.append(f"[auth.{name}] lacks {', '.join(lacking)}")
    return problems


def sign_in_state(paths: Iterable[str | Path] = SECRETS_FILES, env: Mapping[str, str] | None = None
                  ) -> tuple[bool, str, str]:
    """``doctor``'s line on sign-in: (ok, detail, fix)."""
    paths = list(paths)
    try:
        secrets = read_secrets(paths)
    except InputError as exc:
        return False, f"{exc}: the app serves nobody until it is fixed", "fix the file (or remove it to run the app " \
                                                                          "without sign-in, for one user)"
    section = secrets.get("auth")
    if not isinstance(section, Mapping):
        looked = ", ".join(str(Path(p).expanduser().absolute()) for p in paths)
        return True, f"off: no [auth] section in {looked} (a local, single-user app)", ""
    if problems := auth_problems(section):
        return False, f"[auth] is incomplete: {'; '.join(problems)}", "add them (see the README's Deploy for a team)"
    maintainers = {e.casefold() for e in listed_maintainers(env if env is not None else os.environ)}
    who = (f"{len(maintainers)} maintainer{'' if len(maintainers) == 1 else 's'} in KGCORE_MAINTAINERS" if maintainers
           else "no maintainer in KGCORE_MAINTAINERS: nobody may remove documents, import labels, delete another "
                "reviewer's label or adjudicate a disagreement")
    read = ", ".join(str(Path(p).expanduser()) for p in paths if Path(p).expanduser().is_file())
    return True, f"on (OpenID Connect, from {read}); {who}", ""
