"""What the AppTest files share: a fresh session of the app on a page (query parameters set first), its errors,
its markdown and tables, and a private copy of a store for pages that write into it."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from kgcore.core.settings import Settings
from kgcore.index.jobs import JobFile, JobQueue, JobRecord
from kgcore.index.jobs.record import write_record
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


def settle(at: AppTest, timeout_s: float = TIMEOUT) -> AppTest:
    """``at`` run again once every background indexing job of its store has ended (the Library page queues
    uploads as jobs that run in processes of their own; the page shows what they did on its next run)."""
    queue = JobQueue(Settings.from_env().store_root, Settings.from_env())
    deadline = time.monotonic() + timeout_s
    while queue.active():
        if time.monotonic() > deadline:
            raise TimeoutError(f"indexing jobs still running after {timeout_s} s: {queue.active()}")
        time.sleep(0.3)
    return at.run()


def open_tab(at: AppTest, name: str) -> AppTest:
    """``at`` after opening the page's tab ``name`` (pages run only the open tab; its name is the ``tab`` key and
    query parameter, which the URL keeps)."""
    at.query_params["tab"] = name
    at.session_state["tab"] = name
    return at.run()


def charts(at: AppTest) -> list[tuple[dict, pd.DataFrame]]:
    """The Vega-Lite (Altair) charts ``at`` shows, in page order: each one's spec and the rows it draws."""
    import pyarrow as pa

    return [(json.loads(c.proto.spec), pa.ipc.open_stream(c.proto.datasets[0].data.data).read_pandas())
            for c in at.get("vega_lite_chart")]


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


def stuck_job(root, filename: str, stage: tuple[str, int, int], idle_s: float) -> str:
    """A job record as a runner writes it: running, heard of a second ago, its progress still for ``idle_s``."""
    now = time.time()
    job = JobRecord("20261129-000000-abcdef", [JobFile(filename, "", 1, "0")], "novels", {}, state="running",
                    created=now - idle_s - 60, started=now - idle_s - 60, heartbeat=now - 1, moved=now - idle_s,
                    pid=2 ** 22, host="elsewhere")
    job.step(filename, *stage, now=now - idle_s)
    folder = JobQueue(root, Settings()).folder / job.id
    folder.mkdir(parents=True)
    write_record(folder, job)
    return job.id
