"""What the AppTest files share: a fresh session of the app on a page (query parameters set first), its errors,
its markdown and tables, and a private copy of a store for pages that write into it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
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


def open_tab(at: AppTest, name: str) -> AppTest:
    """``at`` after opening the page's tab ``name`` (pages run only the open tab; its name is the ``tab`` key and
    query parameter, which the URL keeps)."""
    at.query_params["tab"] = name
    at.session_state["tab"] = name
    return at.run()


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def ok(at: AppTest) -> AppTest:
    """``at``, after asserting it shows no exception and no error."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def html_of(at: AppTest) -> str:
    """Every markdown block of the page, joined."""
    return "\n".join(m.value for m in at.markdown)


def table(at: AppTest, *columns: str):
    """The first table on the page with all these columns (dataframes expose no key)."""
    return next(d.value for d in at.dataframe if set(columns) <= set(d.value.columns))


@contextmanager
def store_copy(source: Path, folder: Path) -> Iterator[Path]:
    """A copy of the store at ``source`` in ``folder``, with ``KGCORE_STORE`` pointing at it while inside (pages
    that ask or evaluate write an audit database into their store)."""
    root = folder / "store"
    shutil.copytree(source, root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KGCORE_STORE", str(root))
        yield root
