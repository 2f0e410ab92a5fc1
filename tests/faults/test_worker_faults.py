"""Worker processes that die or hang: a document's worker killed (``os._exit``, as the kernel's OOM killer
would) or stuck fails that document with the reason, the other documents are built, a cancel kills every
worker at once, and no process outlives the call."""

from __future__ import annotations

import signal
import time

import psutil
import pytest
from faultkit import build_or_fail, read_or_fail

from kgcore.core.errors import Cancelled, KgcoreError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.document_pool import build_in_pool
from kgcore.index.workers import Job


def _jobs(*names: str) -> list[Job]:
    return [Job(name, data=b"x") for name in names]


def _children() -> list[psutil.Process]:
    """This process's live children, but multiprocessing's resource tracker (one per process, kept)."""
    return [p for p in psutil.Process().children(recursive=True) if p.is_running() and
            p.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(p.cmdline())]


def test_a_worker_that_dies_fails_only_its_document(tmp_path):
    jobs = _jobs("a.txt", "die.txt", "b.txt", "c.txt")
    built = build_in_pool(jobs, IndexOptions(), Settings(), tmp_path, 2, None, build_or_fail)
    assert [type(b).__name__ for b in built] == ["PosixPath", "KgcoreError", "PosixPath", "PosixPath"]
    assert "died" in str(built[1]) and "die.txt" not in {p.name for p in tmp_path.iterdir()}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt"]
    assert not _children()


def test_a_document_whose_result_was_lost_with_its_pool_is_built_again(tmp_path):
    """The slow document's folder is written when its neighbour kills its worker: the pool breaks, the result is
    lost, and the document is built again alone over what its first attempt left."""
    built = build_in_pool(_jobs("slow.txt", "late-die.txt"), IndexOptions(), Settings(), tmp_path, 2, None,
                          build_or_fail)
    assert [type(b).__name__ for b in built] == ["PosixPath", "KgcoreError"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.txt"]
    assert not _children()


def test_documents_sharing_pools_with_several_killers_are_never_failed_for_them(tmp_path):
    """A worker can die before its "started" report leaves it: the pool then breaks with nobody to blame.  The
    innocent documents are built however often their pools break; only the killers fail."""
    names = ("a.txt", "die-1.txt", "b.txt", "die-2.txt", "die-3.txt", "c.txt", "d.txt")
    built = build_in_pool(_jobs(*names), IndexOptions(), Settings(), tmp_path, 2, None, build_or_fail)
    failed = [name for name, b in zip(names, built) if isinstance(b, KgcoreError)]
    assert failed == ["die-1.txt", "die-2.txt", "die-3.txt"] and all("died" in str(b) for b in built if
                                                                       isinstance(b, KgcoreError))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt", "d.txt"]
    assert not _children()


def test_more_documents_than_are_handed_out_at_once_survive_a_killer_among_them(tmp_path):
    """Jobs go to the pool a few per worker at a time: a worker dying mid-batch breaks the pool while most jobs
    were never handed out; they are built in the next pool, and only the killer fails."""
    names = [f"doc-{i:02d}.txt" for i in range(14)] + ["die.txt"] + [f"doc-{i:02d}.txt" for i in range(14, 26)]
    built = build_in_pool(_jobs(*names), IndexOptions(), Settings(), tmp_path, 2, None, build_or_fail)
    assert [n for n, b in zip(names, built) if isinstance(b, KgcoreError)] == ["die.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for n in names if n != "die.txt")
    assert not _children()


def test_a_hung_worker_is_stopped_after_the_timeout(tmp_path):
    seen = []
    started = time.monotonic()
    built = build_in_pool(_jobs("a.txt", "hang.txt", "b.txt"), IndexOptions(), Settings(worker_timeout_s=3),
                          tmp_path, 2, lambda *report: seen.append(report), build_or_fail)
    assert time.monotonic() - started < 60
    assert isinstance(built[1], KgcoreError) and "no progress for 3 s" in str(built[1])
    assert "KGCORE_WORKER_TIMEOUT_S" in str(built[1])
    assert [b.name for b in (built[0], built[2])] == ["a.txt", "b.txt"]
    assert ("a.txt", "store", 1, 1) in seen  # the workers' progress reaches the caller
    assert not _children()


def test_a_cancel_kills_every_worker_at_once(tmp_path):
    def cancel(_number, _frame):
        raise Cancelled("stopped by the test")

    previous = signal.signal(signal.SIGALRM, cancel)
    signal.alarm(4)
    started = time.monotonic()
    try:
        with pytest.raises(Cancelled):
            build_in_pool(_jobs("hang-1.txt", "hang-2.txt"), IndexOptions(), Settings(), tmp_path, 2, None,
                          build_or_fail)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - started < 20
    assert not _children()


def test_a_parser_worker_that_dies_or_hangs_fails_the_document():
    from kgcore.core.nlp import load_spacy
    from kgcore.index.parallel import pipe_mapped

    nlp = load_spacy()
    texts = [f"Peter ran to the gate number {i}." for i in range(200)]
    assert list(pipe_mapped(nlp, texts, ["ner"], read_or_fail, processes=2)) == [8] * 200
    for marker, words in (("DIE", "died"), ("HANG", "no answer for 20 s")):  # 20 s: a worker loads spaCy first
        started = time.monotonic()
        with pytest.raises(KgcoreError, match=words):
            list(pipe_mapped(nlp, texts[:100] + [f"{marker} here."] + texts[100:], ["ner"], read_or_fail,
                             processes=2, timeout_s=20))
        assert time.monotonic() - started < 90
        assert not _children()
