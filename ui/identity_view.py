r"""The reviewer remembered by the browser: a cookie written by a one-line script, read back on a new session.

The page address carries the choice (``?reviewer=NAME``) across page switches and reloads; a link without it
(``/review`` typed or bookmarked) opens a new session with an empty address, so the browser also keeps the
choice in a first-party cookie, ``kg_reviewer``, which Streamlit hands to the next session
(``st.context.cookies``).  The name is JSON-encoded into the script and URI-encoded into the cookie, so no
name can break out of either.

>>> script = cookie_script("Ada </script>")
>>> script.count("</script>"), '"Ada \\u003c/script\\u003e"' in script
(1, True)
>>> cookie_value("Ada%20L%C3%B6we"), cookie_value(None), cookie_value("%")
('Ada Löwe', '', '%')
>>> cookie_script("")[:60]
'<script>document.cookie = "kg_reviewer=; path=/; max-age=0; '
"""

from __future__ import annotations

import json
from urllib.parse import unquote

#: The cookie that remembers the reviewer in this browser.
COOKIE = "kg_reviewer"
#: A year, in seconds.
MAX_AGE = 365 * 24 * 3600


def cookie_script(name: str) -> str:
    """A script that stores ``name`` in the cookie (an empty name deletes it)."""
    if not name:
        return f'<script>document.cookie = "{COOKIE}=; path=/; max-age=0; samesite=lax";</script>'
    value = json.dumps(name).replace("<", "\\u003c").replace(">", "\\u003e")
    return (f'<script>document.cookie = "{COOKIE}=" + encodeURIComponent({value}) + '
            f'"; path=/; max-age={MAX_AGE}; samesite=lax";</script>')


def cookie_value(raw: str | None) -> str:
    """The reviewer name a cookie value stands for ("" for none)."""
    return unquote(raw) if raw else ""
