"""A queue of 30 records walked by three reviewers in a real browser, with screenshots.

1. A fresh store in a temporary folder holds a copy of the bench's ``peter-rabbit`` index.  Fifteen Peter Rabbit
   questions (the dev set, then the held-out test set) are asked with two methods (``groundedkg`` and ``bm25``,
   default options, extractive answerer): 30 audit records, each with its gold answers and the automatic
   diagnosis stored as a suggestion.
2. Reviewers Ada, Bob and Cy get a queue ``walk`` of the 30 records with 30 % overlap (seed 22): nine records are
   labelled by two reviewers, the rest by one.
3. ``streamlit run app.py`` on that store; three Chromium contexts (Playwright), one per reviewer, open
   ``/queues?reviewer=NAME`` and label every assigned record with the keyboard shortcuts (stage key, then
   Ctrl+Enter), in turns.

**The labels are scripted, not human judgements.**  The rule (:func:`scripted_stage`): a reviewer's label is
the record's automatic diagnosis stage, except that Bob deliberately disagrees on every record whose queue
position is divisible by 3 and Cy on every one divisible by 5 (a disagreeing reviewer says ``III`` where the
diagnosis says ``II``, and ``II`` otherwise).  The agreement figures therefore measure this rule, not people.

Writes ``bench/results/team_walk/``: PNG screenshots (viewport-sized, ~2 MB in all), ``labels.json`` (record,
question, method, diagnosis, every reviewer's scripted label) and ``agreement.json``
(``python -m kgcore audit agreement --queue walk --json``).  Needs Debian's ``chromium`` and Playwright.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared tools (common, ...)

from common import PETER_QA, RESULTS, ROOT, STORE_ROOT

from kgcore.audit import AuditDB
from kgcore.audit.queues import create_queue, next_assignment, queue_record_ids
from kgcore.audit.suggest import store_suggestion
from kgcore.core.settings import RetrievalOptions
from kgcore.evaluate.diagnose import diagnose
from kgcore.evaluate.qaset import load_qa
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine

OUT = RESULTS / "team_walk"
BOOK = "peter-rabbit"
METHODS = ("groundedkg", "bm25")
REVIEWERS = ("Ada", "Bob", "Cy")
DISAGREES_EVERY = {"Bob": 3, "Cy": 5}
SHORTCUTS = {"I": "1", "II": "2", "III": "3", "correct": "K", "gold-not-in-document": "G"}
BUTTONS = {"I": "I graph", "II": "II retrieval", "III": "III answer", "correct": "correct",
           "gold-not-in-document": "not in doc"}  # ui.labels.STAGE_SHORT_LABELS
CHROMIUM = "/usr/bin/chromium"


def scripted_stage(reviewer: str, diagnosis: str, position: int) -> str:
    """The scripted label (see the module doc).

    >>> scripted_stage("Ada", "II", 3), scripted_stage("Bob", "II", 3), scripted_stage("Bob", "correct", 6)
    ('II', 'III', 'II')
    """
    every = DISAGREES_EVERY.get(reviewer)
    if every and position % every == 0:
        return "III" if diagnosis == "II" else "II"
    return diagnosis


def build_store(root: Path) -> AuditDB:
    shutil.copytree(STORE_ROOT / BOOK, root / BOOK)
    engine = QueryEngine(Store(root))
    db = AuditDB.for_store(root)
    items = (load_qa(PETER_QA) + load_qa(ROOT / "bench" / "data" / "peter_rabbit_qa_test.csv"))[:15]
    index = engine.index(BOOK)
    record_ids = []
    for item in items:
        for method in METHODS:
            result, answer = engine.ask(BOOK, item.question, RetrievalOptions(method=method), "extractive")
            record_id = db.save_record(result, answer, index.manifest, gold=item.answers)
            store_suggestion(db, record_id, diagnose(result, answer, item.answers, index, engine.embedder))
            record_ids.append(record_id)
    for name in REVIEWERS:
        db.add_reviewer(name)
    create_queue(db, "walk", record_ids, list(REVIEWERS), overlap=0.3, created_by="Ada", seed=22)
    return db


def diagnosis_of(db: AuditDB, record_id: int) -> str:
    return next(lb.label_type for lb in db.labels_for(record_id) if lb.source == "automatic")


def start_app(root: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "KGCORE_STORE": str(root), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                            stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(180):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise TimeoutError("streamlit did not start")


def wait_idle(page) -> None:
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=120_000)


def shot(page, name: str) -> None:
    wait_idle(page)
    page.wait_for_timeout(800)
    page.screenshot(path=str(OUT / f"{name}.png"))


def label_one(page, expect, record_id: int, stage: str) -> None:
    """Press the stage's shortcut and Ctrl+Enter on the queue page, waiting for the save."""
    wait_idle(page)
    page.get_by_role("heading", name="Review queues").click()  # focus on the page, not in a field
    page.keyboard.press(SHORTCUTS[stage])
    chosen = page.get_by_role("toolbar", name="Chosen").get_by_role("button", name=BUTTONS[stage], exact=True)
    expect(chosen).to_have_attribute("aria-pressed", "true", timeout=60_000)
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text(re.compile(rf"Saved record #{record_id}:")).first).to_be_visible(timeout=60_000)


def walk(db: AuditDB, url: str) -> list[dict]:
    from playwright.sync_api import expect, sync_playwright

    positions = {rid: i for i, rid in enumerate(queue_record_ids(db, "walk"), start=1)}
    done: list[dict] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pages = {}
        for name in REVIEWERS:
            page = browser.new_context(viewport={"width": 1400, "height": 950}).new_page()
            page.goto(f"{url}/queues?reviewer={name}")
            expect(page.get_by_text(re.compile(rf"^{name}: 0 of \d+ done"))).to_be_visible(timeout=120_000)
            pages[name] = page
        shot(pages["Ada"], "1_queue_ada_first_record")
        while True:
            turn = [(n, next_assignment(db, "walk", n, include_skipped=False)) for n in REVIEWERS]
            turn = [(n, a) for n, a in turn if a is not None]
            if not turn:
                break
            for name, item in turn:  # the three reviewers take turns, one record each
                diagnosis = diagnosis_of(db, item.record_id)
                stage = scripted_stage(name, diagnosis, positions[item.record_id])
                label_one(pages[name], expect, item.record_id, stage)
                done.append({"record_id": item.record_id, "position": positions[item.record_id],
                             "reviewer": name, "diagnosis": diagnosis, "label": stage})
            if len(done) in range(12, 15):
                shot(pages["Bob"], "2_queue_bob_midway")
        shot(pages["Cy"], "3_queue_cy_done")
        page = pages["Ada"]
        page.get_by_role("tab", name="Progress").click()
        shot(page, "4_queue_progress")
        page.goto(f"{url}/review?reviewer=Ada")
        wait_idle(page)
        page.get_by_role("tab", name="Agreement").click()
        shot(page, "5_review_agreement")
        page.get_by_role("tab", name="Error analysis").click()
        shot(page, "6_review_error_analysis")
        page.goto(f"{url}/adjudicate?reviewer=Ada")
        wait_idle(page)
        shot(page, "7_adjudicate")
        browser.close()
    return done


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="team_walk_") as tmp:
        root = Path(tmp)
        db = build_store(root)
        proc, url = start_app(root, root / "streamlit.log")
        try:
            done = walk(db, url)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        questions = {r.id: (r.question, r.method) for r in db.list_records(with_payload=False)}
        for row in done:
            row["question"], row["method"] = questions[row["record_id"]]
        stored = sorted((lb.record_id, lb.author, lb.label_type) for lb in db.list_labels(sources="human"))
        assert stored == sorted((d["record_id"], d["reviewer"], d["label"]) for d in done), "a label was lost"
        agreement = subprocess.run([sys.executable, "-m", "kgcore", "audit", "agreement", "--queue", "walk", "--json",
                                    "--store", str(root)], cwd=ROOT, check=True, capture_output=True, text=True)
    (OUT / "labels.json").write_text(json.dumps({"rule": scripted_stage.__doc__.splitlines()[0] + " " + __doc__.split(
        "**The labels are scripted, not human judgements.**")[1].split("\n\n")[0].strip(), "labels": done}, indent=1))
    (OUT / "agreement.json").write_text(agreement.stdout)
    size = sum(p.stat().st_size for p in OUT.glob("*.png"))
    print(f"{len(done)} labels by {len(REVIEWERS)} reviewers; screenshots {size / 2**20:.2f} MB; wrote {OUT}")


if __name__ == "__main__":
    main()
