"""What the AppTest files share: a fresh session of the app on a page (query parameters set first) and its errors."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from paths import APP

#: Generous: the first run in a process loads spaCy and the sentence embedder.
TIMEOUT = 240


def app(page: str = "pages/library.py", **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    if page != "pages/library.py" or query:
        for key, value in query.items():
            at.query_params[key] = value
        at.switch_page(page).run()
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]
