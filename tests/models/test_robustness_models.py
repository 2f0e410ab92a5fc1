"""Robustness with the real models, through the CLI: names mapping to one id never replace each other, a damaged
document is indexed again instead of "reused", questions files (UTF-16, long or controlled lines), a directory
or a store that is a file refused at once, ``eval`` failing when every answer failed."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from kgcore.audit import AuditDB
from kgcore.cli import main
from kgcore.index.store.disk import Store
from paths import ROOT

RABBIT = "Peter was a young rabbit who lived under a fir tree. His father had been put in a pie by Mrs. McGregor."
SHIP = "The ship left the harbour at dawn with twelve sailors on board. A storm broke the mast on the third day."


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    """A store with collection ``c`` holding ``story`` (from Story.txt); the input files in ``in/``."""
    root = tmp_path_factory.mktemp("robust")
    (root / "in").mkdir()
    for name, text in (("Story.txt", RABBIT), ("story.txt", SHIP), ("TWIN.txt", SHIP), ("twin.txt", RABBIT)):
        (root / "in" / name).write_text(text, encoding="utf-8")
    assert main(["index", str(root / "in" / "Story.txt"), "--collection", "c", "--quiet", "--store",
                 str(root / "s")]) == 0
    return root


def test_a_name_mapping_to_an_indexed_id_is_refused_naming_both_files(shelf, capsys):
    """From the CLI: story.txt after Story.txt, and twin.txt with TWIN.txt in one batch."""
    store = ["--store", shelf / "s"]
    code, out, err = _cli(capsys, "index", shelf / "in" / "story.txt", "--collection", "c", "--quiet", *store)
    assert code == 2 and "story.txt: collection 'c' already has a document 'story' (from Story.txt)" in err
    assert "--force" in err and json.loads(out.splitlines()[0])["status"] == "failed"
    code, out, err = _cli(capsys, "index", shelf / "in" / "TWIN.txt", shelf / "in" / "twin.txt", "--collection",
                          "c", "--quiet", "--workers", "1", *store)
    assert code == 2 and "twin.txt: maps to the same document id 'twin' as TWIN.txt in this batch" in err
    index = Store(shelf / "s").load("c")
    assert index.manifest.doc_ids == ("story", "twin") and index.manifest.document("twin").manifest.source_file == \
        "TWIN.txt"
    assert "rabbit" in index.sentences[0].original  # Story.txt's text, not replaced


def test_a_single_refused_file_is_said_once_and_plain_ask_prints_the_verdict(shelf, capsys):
    """One file refused: one ``error:`` line naming it (no "the other files go on" when there are none); a plain
    ``ask`` prints the verdict with its reason, as ``--json`` carries it."""
    store = ["--store", shelf / "s"]
    code, _, err = _cli(capsys, "index", shelf / "in" / "missing.txt", "--collection", "c", "--quiet", *store)
    lines = [line for line in err.splitlines() if "missing.txt" in line]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: missing.txt") and "go on" not in err, err
    code, out, _ = _cli(capsys, "ask", "--collection", "c", "Who put his father in a pie?", "--quiet", *store)
    verdict = [line for line in out.splitlines() if line.startswith("Verdict: ")]
    code_json, out_json, _ = _cli(capsys, "ask", "--collection", "c", "--json", "Who put his father in a pie?",
                                  "--quiet", *store)
    expected = json.loads(out_json)["verdict"]
    assert code == code_json == 0 and verdict == [f"Verdict: {expected['state']} - {expected['reason']}"]


def test_reuse_checks_the_stored_files_and_indexes_a_damaged_document_again(shelf, capsys):
    """A truncated graph.json is never answered with "reused"."""
    store = Store(shelf / "s")
    folder = store.doc_path("c") / "documents" / store.manifest("c").document("story").folder
    (folder / "graph.json").write_bytes((folder / "graph.json").read_bytes()[:40])
    code, _, err = _cli(capsys, "ask", "--collection", "c", "Who was Peter?", "--store", shelf / "s")
    assert code == 2 and f"{folder / 'graph.json'}: damaged index file (truncated: 40 of" in err
    assert "re-index Story.txt with --force" in err
    code, out, _ = _cli(capsys, "index", shelf / "in" / "Story.txt", "--collection", "c", "--quiet", "--store",
                        shelf / "s")
    line = json.loads(out.splitlines()[0])
    assert code == 0 and line["status"] == "added" and line["reused"] is False
    assert store.verify("c") == [] and store.load("c").manifest.doc_ids == ("twin", "story")
    code, out, _ = _cli(capsys, "index", shelf / "in" / "Story.txt", "--collection", "c", "--quiet", "--store",
                        shelf / "s")
    assert json.loads(out.splitlines()[0])["status"] == "reused"  # whole again: reused


def test_questions_files_utf16_long_lines_and_control_characters(shelf, capsys, tmp_path):
    """A UTF-16 file is read; a bad line is named before anything is asked."""
    questions = tmp_path / "questions.txt"
    questions.write_text("Who was Peter?\nWhat broke the mast?\n", encoding="utf-16")
    store = ["--store", shelf / "s"]
    code, out, _ = _cli(capsys, "ask", "--collection", "c", "--questions", questions, "--quiet", *store)
    assert code == 0 and [json.loads(line)["question"] for line in out.splitlines()] == [
        "Who was Peter?", "What broke the mast?"]
    questions.write_text("Who was Peter?\n" + "Why " * 700 + "?\n", encoding="utf-8")
    code, out, err = _cli(capsys, "ask", "--collection", "c", "--questions", questions, *store)
    assert code == 2 and out == "" and f"{questions} line 2: question: 2,801 characters exceed the limit" in err
    assert "KGCORE_MAX_QUESTION_CHARS" in err and "nothing was asked" in err
    code, _, err = _cli(capsys, "ask", "--collection", "c", "Who\x1b[2J was Peter?", *store)
    assert code == 2 and "control character U+001B" in err


def test_a_directory_given_as_a_file_is_named_a_directory(shelf, capsys):
    code, out, err = _cli(capsys, "index", shelf / "in", "--collection", "c", "--quiet", "--store", shelf / "s")
    assert code == 2 and f"in: is a directory, not a file: {shelf / 'in'}" in err


def test_a_store_that_is_a_file_fails_before_any_work(tmp_path):
    (tmp_path / "store").write_text("not a folder")
    (tmp_path / "book.txt").write_text(RABBIT)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kgcore", "index", str(tmp_path / "book.txt")], cwd=ROOT, text=True,
                          capture_output=True, env={"KGCORE_STORE": str(tmp_path / "store"), "PATH": "/usr/bin",
                                                    "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("error: store: ")
    assert f"{tmp_path / 'store'} is a file, not a folder" in proc.stderr and "Traceback" not in proc.stderr
    assert time.monotonic() - started < 10  # refused before any model was loaded


def test_eval_fails_when_every_answer_failed_and_files_no_error_as_an_audit_record(shelf, capsys, tmp_path,
                                                                                   monkeypatch):
    """An endpoint refusing connections is an error, not a wrong answer."""
    monkeypatch.setenv("KGCORE_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KGCORE_OPENAI_MODEL", "m")
    monkeypatch.setenv("KGCORE_OPENAI_RETRIES", "0")
    monkeypatch.setenv("KGCORE_OPENAI_TIMEOUT_S", "3")
    qa = tmp_path / "qa.csv"
    qa.write_text("question,answer1\nWho was Peter?,a rabbit\nWhat broke the mast?,a storm\n", encoding="utf-8")
    code, _, err = _cli(capsys, "eval", "--collection", "c", "--qa", qa, "--methods", "bm25", "--answerer", "openai",
                        "--send-failures", "--out", tmp_path / "out", "--quiet", "--store", shelf / "s")
    assert code == 1 and "error: every answer failed (2 of 2)" in err
    assert "sent 0 failures" in err and "2 answers that failed with an error were not sent" in err
    assert AuditDB.for_store(shelf / "s").list_records() == []
