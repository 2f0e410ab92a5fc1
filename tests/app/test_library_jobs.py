"""The Library's indexing jobs through AppTest: a queued or running job of anyone is listed with its stage, a
stuck one says what it was doing, Cancel ends it, and an upload's outcome appears once its job has ended."""

from __future__ import annotations

from apptest import app, errors, settle, stuck_job

from kgcore.core.settings import Settings
from kgcore.index.jobs import JobQueue


def test_a_stuck_job_is_listed_with_what_it_was_doing_and_can_be_cancelled(tmp_path, monkeypatch):
    root = tmp_path / "store"
    monkeypatch.setenv("KGCORE_STORE", str(root))
    job_id = stuck_job(root, "tarzan <1>.txt", stage=("parse", 4266, 4266), idle_s=1200)
    at = app()
    assert not at.exception and not errors(at), errors(at)
    assert any(r"**tarzan \<1\>.txt** → collection **novels**" in m.value for m in at.markdown)
    (warning,) = [w.value for w in at.warning if "looks stuck" in w.value]
    assert r"no progress for 20 min \(last: parse 4,266/4,266 of tarzan \<1\>.txt\)" in warning
    at.button(key=f"library.cancel.{job_id}").click().run()
    job = JobQueue(root, Settings()).get(job_id)
    assert job.state == "cancelled" and job.error == "cancelled on the Library page by a user"
    assert not any("looks stuck" in w.value for w in at.warning)
    assert any("cancelled: cancelled on the Library page by a user" in c.value for c in at.caption)


def test_an_upload_is_queued_then_its_outcome_is_shown(tmp_path, monkeypatch):
    root = tmp_path / "store"
    monkeypatch.setenv("KGCORE_STORE", str(root))
    at = app()
    at.file_uploader(key="library.files").set_value(("kettle.txt", b"The kettle sang on the stove. Lucie waited.",
                                                       "text/plain")).run()
    (button,) = [b for b in at.button if b.label == "Index uploaded files"]
    button.click().run()
    assert any("Queued kettle.txt for indexing" in s.value for s in at.success)
    (job,) = JobQueue(root, Settings()).jobs()
    assert job.filenames == ["kettle.txt"] and job.state in ("queued", "running", "done")
    at = settle(at)
    assert any("Indexed **kettle** (kettle.txt) into collection **kettle**" in s.value for s in at.success)
    assert any("added 1" in c.value for c in at.caption)  # the recent jobs list
    # the same upload again is a new job (the first has ended), and the document is reused
    (button,) = [b for b in at.button if b.label == "Index uploaded files"]
    at = settle(button.click().run())
    assert any("already in collection **kettle** with the same content" in i.value for i in at.info)


def test_an_empty_file_among_good_ones_fails_alone_and_a_batch_of_bad_ones_is_refused_at_once(tmp_path, monkeypatch):
    """An upload is refused on the page only when no file of it can be indexed, naming each with its reason; an
    empty file beside a good one fails alone in the job, and the good one is indexed."""
    root = tmp_path / "store"
    monkeypatch.setenv("KGCORE_STORE", str(root))
    at = app()
    at.text_input(key="library.new_name").set_value("shelf")
    at.file_uploader(key="library.files").set_value([("empty.txt", b"", "text/plain"),
                                                      ("notes.md", b"", "text/markdown")]).run()
    (button,) = [b for b in at.button if b.label == "Index uploaded files"]
    at = button.click().run()
    (refused,) = [e for e in errors(at) if "none of them can be indexed" in e]
    assert r"empty.txt: empty file \(0 bytes\); notes.md: empty file \(0 bytes\)" in refused
    assert not JobQueue(root, Settings()).jobs()
    at.file_uploader(key="library.files").set_value([("kettle.txt", b"The kettle sang on the stove. Lucie waited.",
                                                       "text/plain"), ("empty.txt", b"", "text/plain")]).run()
    (button,) = [b for b in at.button if b.label == "Index uploaded files"]
    button.click().run()
    (job,) = JobQueue(root, Settings()).jobs()
    assert job.filenames == ["kettle.txt", "empty.txt"]
    at = settle(at)
    assert any("added 1" in c.value and "failed 1" in c.value for c in at.caption), [c.value for c in at.caption]
    assert any(r"empty.txt: empty file \(0 bytes\)" in text for text in errors(at) + [w.value for w in at.warning])
