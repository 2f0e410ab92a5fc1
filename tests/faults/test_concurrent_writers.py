"""Writers on one collection at once, as real ``python -m kgcore`` processes: nothing committed is lost, every
process ends with a clear outcome, the store stays consistent.  Also the audit database created by four
processes at once.

``KGCORE_FAULT_ROUNDS`` (default 2) sets how often the same-document race is run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from faultkit import ENV, assert_no_traceback, consistent, start, write_texts

from kgcore.index.store.locks import STAGING_DIR
from paths import ROOT

ROUNDS = int(os.environ.get("KGCORE_FAULT_ROUNDS", "2"))


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_forced_indexes_of_one_document_at_once_lose_nothing(store_copy, tmp_path, round_):
    """Two ``index FILE --collection c --force`` started together."""
    store, expected = store_copy
    files = write_texts(tmp_path / "in", ["rabbit.txt"])
    procs = [start("index", files["rabbit.txt"], "--collection", "c", "--force", "--quiet", store=store.root)
             for _ in range(2)]
    outcomes = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outcomes):
        assert proc.returncode == 0, err
        assert_no_traceback(err)
        assert json.loads(out.splitlines()[0])["status"] == "added"
    assert consistent(store, "c") == expected["c"] and consistent(store, "other") == expected["other"]
    assert not list((store.root / STAGING_DIR).iterdir())


def test_index_remove_force_and_delete_at_once_keep_the_store_consistent(store_copy, tmp_path):
    """Four writers at once on two collections; the final documents do not depend on their order."""
    store, expected = store_copy
    files = write_texts(tmp_path / "in", ["kettle.txt", "rabbit.txt", "garden.txt"])
    procs = {
        "add": start("index", files["kettle.txt"], "--collection", "c", "--quiet", store=store.root),
        "force": start("index", files["rabbit.txt"], "--collection", "c", "--force", "--quiet", store=store.root),
        "remove": start("remove", "ship", "--collection", "c", store=store.root),
        "delete": start("delete", "--collection", "other", store=store.root),
    }
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, (name, err)
        assert_no_traceback(err)
    assert consistent(store, "c") == {"rabbit": expected["c"]["rabbit"], "kettle": 3}
    assert not store.doc_path("other").exists() and [m.name for m in store.list()] == ["c"]


def test_index_while_the_collection_is_deleted_ends_in_one_whole_state(store_copy, tmp_path):
    store, expected = store_copy
    files = write_texts(tmp_path / "in", ["kettle.txt"])
    adding = start("index", files["kettle.txt"], "--collection", "other", "--quiet", store=store.root)
    time.sleep(5)  # the index process is loading its models; the delete lands before or during its commit
    deleting = start("delete", "--collection", "other", store=store.root)
    for proc in (adding, deleting):
        _, err = proc.communicate(timeout=300)
        assert_no_traceback(err)
    assert deleting.returncode == 0 and adding.returncode == 0
    if store.exists("other"):  # deleted first, then indexed into a collection of its own
        assert consistent(store, "other") == {"kettle": 3}
    assert consistent(store, "c") == expected["c"]


#: Rounds of the audit race per backend (a new PostgreSQL database per round costs more than a new file).
AUDIT_ROUNDS = {"sqlite": 100, "postgresql": 25}
AUDIT_CHILD = """
import os, sys, time
from pathlib import Path
from kgcore.audit.db import AuditDB
from kgcore.core.errors import AuditError
folder, pid, failed = Path(sys.argv[1]), str(os.getpid()), 0
for r in range(int(sys.argv[2])):
    (folder / f"ready.{r}.{pid}").touch()
    while not (folder / f"go.{r}").exists():
        time.sleep(0.0005)
    try:
        AuditDB((folder / f"go.{r}").read_text())
    except AuditError as exc:
        failed += 1
        print(exc, file=sys.stderr)
sys.exit(1 if failed else 0)
"""


@pytest.mark.parametrize("backend", AUDIT_ROUNDS)
def test_four_processes_creating_the_audit_database_at_once(tmp_path, request, backend):
    """Never "database is locked" when several processes create a new database together
    (400 opens; before the fix about one in 150 failed); on PostgreSQL four processes migrate
    each new database at once."""
    rounds = AUDIT_ROUNDS[backend]
    cluster = request.getfixturevalue("postgres") if backend == "postgresql" else None
    procs = [subprocess.Popen([sys.executable, "-c", AUDIT_CHILD, str(tmp_path), str(rounds)], cwd=ROOT,
                              env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for r in range(rounds):
        target = cluster.create_database() if cluster else str(tmp_path / f"audit-{r}.sqlite")
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob(f"ready.{r}.*"))) < 4 and time.monotonic() < deadline and all(
                p.poll() is None for p in procs):
            time.sleep(0.002)
        (tmp_path / f"target.{r}").write_text(target)
        os.replace(tmp_path / f"target.{r}", tmp_path / f"go.{r}")  # all four open the new database at once
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
