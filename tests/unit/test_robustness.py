"""Robustness without models: locks, integrity checks, bounds on work, resource limits, literal rendering, inputs."""

import json
import os
import pickle
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from kgcore.cli.commands import read_questions
from kgcore.core.errors import DamagedIndexError, InputError, KgcoreError
from kgcore.core.limits import LIMITS, limit_variable
from kgcore.core.settings import Settings
from kgcore.evaluate.records import EvalRecord, EvalRun
from kgcore.index.bounds import cap_analysis, cap_spans, word_batches
from kgcore.index.store import integrity, shard
from kgcore.index.store.collection import CollectionManifest, DocumentEntry
from kgcore.index.store.disk import Store
from kgcore.index.store.locks import STAGING_DIR, collection_lock, remove_stale, staging_folder
from kgcore.index.store.manifest import Manifest
from kgcore.query.engine import validate_question
from ui.markup_html import WORD_JOINER, md_escape

# -- resource limits ------------------------------------------------------------------------------------------


def test_every_limit_is_a_setting_read_from_its_variable_and_named_when_exceeded():
    env = {limit_variable(name): "7" for name in LIMITS}
    settings = Settings.from_env(env)
    assert all(getattr(settings, name) == 7 for name in LIMITS)
    for name in LIMITS:
        with pytest.raises(InputError, match=f"limit of 7 .*{limit_variable(name)}"):
            settings.check_limit("where", name, 8)
        settings.check_limit("where", name, 7)  # at the limit is fine
    with pytest.raises(InputError, match="KGCORE_MAX_SENTENCES: must be at least 1"):
        Settings.from_env({"KGCORE_MAX_SENTENCES": "0"})


# -- bounds on work -------------------------------------------------------------------------------------------


def test_an_over_long_sentence_is_cut_at_clauses_else_at_the_word_limit():
    clause = "the rabbit ran past the gate and the gardener shouted at him"
    text = ", ".join([clause] * 50) + "; " + " ".join(["word"] * 700)
    pieces = cap_spans([(0, len(text))], text, 40)
    assert all(len(text[a:b].split()) <= 40 for a, b in pieces)
    assert " ".join(text[a:b] for a, b in pieces).split() == text.split()  # nothing lost, nothing repeated
    assert text[pieces[0][0]:pieces[0][1]].endswith(",")  # cut after a comma, not mid-clause
    assert sum(1 for a, b in pieces if len(text[a:b].split()) == 40) >= 700 // 40 - 1  # bare words: hard cuts
    assert cap_spans([(3, 9)], "xx one two", 5) == [(3, 9)]


def test_stored_parser_output_per_sentence_is_capped():
    frames = [{"predicate": "run", "arguments": [{"text": "w " * 200}]} for _ in range(100)]
    capped = cap_analysis({"parser": "srl", "sentence": "s", "frames": frames}, 5000)
    assert len(json.dumps(capped)) <= 5000 + 200 and capped["omitted"]["frames"] == 100 - len(capped["frames"])
    assert cap_analysis({"parser": "srl", "frames": frames[:1]}, 5000)["frames"] == frames[:1]


def test_spacy_batches_are_bounded_in_words_and_keep_the_order():
    texts = ["a " * 3000, "b", "c " * 3000, "d", "e"]
    batches = list(word_batches(texts, max_words=5000, max_texts=64))
    assert [t for b in batches for t in b] == texts and max(sum(len(t.split()) for t in b) for b in batches) <= 5000


# -- stored files checked -------------------------------------------------------------------------------------


def test_damaged_files_are_named_truncated_changed_or_missing(tmp_path):
    (tmp_path / "a.json").write_text('{"x": [1, 2, 3]}')
    files = integrity.digests(tmp_path, ["a.json", "gone.json"])
    assert list(files) == ["a.json"]
    (tmp_path / "a.json").write_text('{"x": [1, 2, 4]}')  # same size, other bytes
    assert integrity.check_sizes(tmp_path, files) == []
    (problem,) = integrity.check_digests(tmp_path, files)
    assert str(tmp_path / "a.json") in str(problem) and "checksum differs" in str(problem)
    (tmp_path / "a.json").unlink()
    with pytest.raises(DamagedIndexError, match="a.json: damaged index file \\(missing\\); re-index with --force"):
        integrity.read_verified(tmp_path / "a.json", files["a.json"])
    (tmp_path / "v.npy").write_bytes(b"\x93NUMPY")
    with pytest.raises(DamagedIndexError, match="v.npy: damaged index file \\(not a readable array"):
        integrity.parse_npy(tmp_path / "v.npy", (tmp_path / "v.npy").read_bytes())
    (tmp_path / "s.jsonl").write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(DamagedIndexError, match="line 2 is not valid JSON"):
        integrity.parse_jsonl(tmp_path / "s.jsonl", (tmp_path / "s.jsonl").read_bytes())
    error = DamagedIndexError("x/graph.json", "truncated", "do this")
    assert str(pickle.loads(pickle.dumps(error))) == str(error)


def test_a_shard_whose_files_disagree_is_refused_naming_the_file(tmp_path):
    from kgcore.core.graph import GroundedGraph
    from kgcore.core.types import Node, Sentence

    sentences = [Sentence("d/text_0-0", 0, 0, 0, "Tea.", "Tea.", "Tea.", "d")]
    graph = GroundedGraph({"d/tea": Node("d/tea", "tea", ["tea"], "entity", ["d/text_0-0"])}, [])
    manifest = Manifest("d", counts=Manifest("d").counts.__class__(sentences=1))
    folder = shard.write_shard(tmp_path / "d", shard.DocumentShard(
        manifest, (), sentences, graph, ["d/tea"], np.ones((1, 2), np.float32), np.ones((1, 2), np.float32), []))
    assert shard.verify(folder).doc_id == "d"
    np.save(folder / "sentence_vectors.npy", np.ones((3, 2), np.float32))
    with pytest.raises(DamagedIndexError, match="sentence_vectors.npy: damaged index file \\(holds 3 vectors"):
        shard.verify(folder)
    (folder / "graph.json").unlink()
    with pytest.raises(DamagedIndexError, match="graph.json: damaged index file \\(missing"):
        shard.verify(folder)


def test_a_staged_folder_replaces_what_an_earlier_attempt_left_and_stays_inside_staging(tmp_path):
    """A document built again after its pool broke finds the folder its lost first attempt wrote; an id that leads
    out of the staging folder is refused, and nothing outside it is touched."""
    staging = tmp_path / "staging"
    (staging / "d").mkdir(parents=True)
    (staging / "d" / "stray.tmp").write_text("half written")
    assert shard.staged_folder(staging, "d") == staging / "d" and not (staging / "d").exists()
    (tmp_path / "kept.txt").write_text("a collection's file")
    for bad in ("..", "../..", "a/../..", "../staging2"):
        with pytest.raises(KgcoreError, match="names no folder inside the staging folder"):
            shard.staged_folder(staging, bad)
    assert (tmp_path / "kept.txt").read_text() == "a collection's file" and staging.is_dir()


def test_digests_and_damage_are_kept_apart_in_the_collection_manifest():
    entry = DocumentEntry(Manifest("d"), "d.1", {"sentences.jsonl": (10, "ab")})
    manifest = CollectionManifest("c", (entry,), linked_files={"graph.json": (5, "cd")})
    again = CollectionManifest.from_dict(json.loads(json.dumps(manifest.to_dict())))
    assert again.documents[0].files == {"sentences.jsonl": (10, "ab")} and again.linked_files == manifest.linked_files
    assert "damaged" not in CollectionManifest("c", damaged="why").to_dict()
    with pytest.raises(DamagedIndexError, match="delete --collection c"):
        CollectionManifest.from_dict({"name": "c", "documents": "not a list"}, "root/c/collection.json")


def test_a_store_root_that_is_a_file_is_refused_at_once(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder: point KGCORE_STORE"):
        Store(tmp_path / "file")


# -- locks -------------------------------------------------------------------------------------------------------


def test_one_writer_per_collection(tmp_path):
    with collection_lock(tmp_path, "c") as held:
        with collection_lock(tmp_path, "c", wait=False) as other, collection_lock(tmp_path, "d", wait=False) as d:
            assert (held, other, d) == (True, False, True)
    with collection_lock(tmp_path, "c", wait=False) as again:
        assert again


def _age(path, seconds=3600):
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_only_staging_folders_no_live_writer_holds_are_removed(tmp_path):
    """A staging folder whose writer was killed goes; one whose writer lives stays, however old."""
    code = ("import os, sys; from pathlib import Path; from kgcore.index.store.locks import staging_folder\n"
            "with staging_folder(Path(sys.argv[1])) as f:\n"
            "    (f / 'half.json').write_text('{'); print(f, flush=True); os.kill(os.getpid(), 9)")
    dead = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          cwd=os.getcwd(), env={**os.environ, "PYTHONPATH": os.getcwd()})
    dead_folder = dead.stdout.strip()
    assert dead.returncode == -9 and os.path.isdir(dead_folder)
    (tmp_path / ".trash-c-1234").mkdir()  # an interrupted delete
    with staging_folder(tmp_path) as live:
        for lock in (tmp_path / STAGING_DIR).glob("*.lock"):
            _age(lock)
        assert remove_stale(tmp_path) == 2
        assert live.is_dir() and not os.path.exists(dead_folder) and not (tmp_path / ".trash-c-1234").exists()
    assert list((tmp_path / STAGING_DIR).iterdir()) == []


# -- questions --------------------------------------------------------------------------------------------------


def test_questions_files_in_utf16_are_read_and_bad_lines_named(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("Who ran?\nWhere is the gate?\n", encoding="utf-16")
    assert read_questions(str(path), Settings()) == ["Who ran?", "Where is the gate?"]
    path.write_text("question,answer\nWho ran?,Peter\n" + "x" * 2500 + ",y\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"q.txt line 3: question: 2,500 characters exceed the limit of 2,000 .*"
                                         r"KGCORE_MAX_QUESTION_CHARS.*nothing was asked"):
        read_questions(str(path), Settings())
    path.write_text("Who ran?\nWho \x1b[31mran?\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: question: contains the control character U\+001B"):
        read_questions(str(path), Settings())
    with pytest.raises(InputError, match="is a directory"):
        read_questions(str(tmp_path), Settings())
    path.write_text("a?\nb?\nc?\n", encoding="utf-8")
    with pytest.raises(InputError, match="3 items exceed the limit of 2 items per batch.*KGCORE_MAX_BATCH"):
        read_questions(str(path), Settings(max_batch=2))


def test_questions_with_control_characters_are_refused():
    assert validate_question(" Who\tran?\n") == "Who ran?"
    with pytest.raises(InputError, match="control character U\\+0007"):
        validate_question("Who\x07 ran?")


def test_answers_that_failed_with_an_error_are_not_wrong_answers():
    def record(error="", sm=0.0):
        return EvalRecord("c", "l", "bm25", {}, 1, "q", ["a"], "", "", sequence_match=sm, error=error)

    run = EvalRun([], [record("connection refused"), record(), record(sm=1.0)], [])
    assert run.failures() == [0, 1] and run.wrong_answers() == [1]


# -- literal rendering --------------------------------------------------------------------------------------------

EVIL = [":red[RED]", ":blue-background[x]", ":material/warning:", ":smile:", ":+1: :100:", ":streamlit:",
        "a -> b <- c -- d >= e", "**bold** ![img](http://h/x.png) <b>`code`</b> $x$"]


def shown(markdown: str) -> str:
    """What a reader sees of ``markdown`` once its backslash escapes are read (CommonMark)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@pytest.mark.parametrize("text", EVIL)
def test_streamlit_directives_icons_emoji_and_arrows_are_shown_literally(text):
    escaped = md_escape(text)
    seen = shown(escaped)
    assert seen.replace(WORD_JOINER, "") == text  # the same characters, an invisible joiner at most
    # no colon directly followed by a name (directive, icon, emoji) and no arrow Streamlit would draw
    assert not re.search(r":[\w+\-]", seen) and not re.search(r"(^|\s)(->|<-|--|>=)(\s|$)", seen)
    assert not re.search(r"(?<!\\)[*`!\[<$]", escaped)  # Markdown itself escaped


def test_a_collection_finds_its_documents_by_id_and_names_a_few_when_one_is_missing():
    """Each selected sentence asks its collection for its document: by id, not a scan of every entry; an unknown id
    names the collection's first ten documents, not all of a large collection's."""
    entries = tuple(DocumentEntry(Manifest(f"d{i}"), f"d{i}.1") for i in range(25))
    manifest = CollectionManifest("big", entries)
    assert manifest.document("d17") is entries[17] and manifest.document("d0") is entries[0]
    with pytest.raises(InputError, match=r"'nope' is not a document of collection 'big' \(documents: d0, d1, .*d9 "
                                         r"and 15 more\)"):
        manifest.document("nope")
