"""Small inputs that used to cause unbounded work, and every resource limit refused with a
message naming it and its environment variable (``bench/adversarial_bench.py`` measures the full-size inputs).
"""

from __future__ import annotations

import json

import pytest
from faultkit import TEXTS, consistent

from kgcore.core.errors import InputError
from kgcore.core.settings import Settings
from kgcore.index.pipeline import Job, index_files
from kgcore.index.store import shard

WORDS = ("peter", "rabbit", "garden", "gate", "radish", "gardener", "ran", "ate", "lost", "shoe", "jacket")
#: Index bytes allowed per input byte, and the fixed part (Chroma's empty database, manifests).
BYTES_PER_BYTE, FIXED_BYTES = 400, 2_000_000


def _one_line(chars: int) -> str:
    return " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(chars // 5))[:chars]


def _folder_bytes(path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@pytest.mark.parametrize("name, text", [
    ("one_line.txt", _one_line(20_000)),  # one line, no punctuation at all: cut at the word limit
    ("repeated.txt", (TEXTS["rabbit.txt"] + " ") * 60),  # 10 KB of one paragraph again and again
])
def test_adversarial_inputs_cost_bounded_index_size_sentence_length_and_parse_size(store_copy, name, text):
    store, expected = store_copy
    settings = Settings()
    (outcome,) = index_files([Job(name, data=text.encode())], store, "adversarial", settings=settings, workers=1)
    assert not outcome.failed
    index = store.load("adversarial")
    assert max(len(s.original.split()) for s in index.sentences) <= settings.max_sentence_words
    folder = store.doc_path("adversarial") / "documents" / index.manifest.documents[0].folder
    for line in (folder / "parses.jsonl").read_text(encoding="utf-8").splitlines():
        assert len(json.dumps(json.loads(line)["analysis"], ensure_ascii=False)) <= settings.max_parse_chars + 500
    size = _folder_bytes(store.doc_path("adversarial"))
    assert size <= BYTES_PER_BYTE * len(text.encode()) + FIXED_BYTES, size
    assert consistent(store, "c") == expected["c"]


def test_every_resource_limit_is_refused_naming_its_variable(store_copy, tmp_path):
    store, expected = store_copy
    jobs = [Job(n, data=TEXTS[n].encode()) for n in ("kettle.txt", "garden.txt")]
    with pytest.raises(InputError, match="2 items exceed the limit of 1 items per batch.*KGCORE_MAX_BATCH"):
        index_files(jobs, store, "c", settings=Settings(max_batch=1), workers=1)
    (outcome,) = index_files(jobs[:1], store, "c", settings=Settings(max_documents=2), workers=1)
    assert "3 documents exceed the limit of 2 documents per collection" in outcome.failed[0][1]
    assert "KGCORE_MAX_DOCUMENTS" in outcome.failed[0][1]
    (outcome,) = index_files(jobs[:1], store, "c", settings=Settings(max_sentences=2), workers=1)
    assert outcome.failed[0][0] == "kettle.txt" and "3 sentences exceed the limit of 2 sentences per document" in \
        outcome.failed[0][1] and "KGCORE_MAX_SENTENCES" in outcome.failed[0][1]
    (outcome,) = index_files(jobs[:1], store, "c", settings=Settings(max_file_mb=0.0001), workers=1)
    assert "exceeds the limit of 0.0001 MB per file" in outcome.failed[0][1] and "KGCORE_MAX_FILE_MB" in \
        outcome.failed[0][1]
    (outcome,) = index_files(jobs[:1], store, "c", settings=Settings(max_sentence_words=3, max_parse_chars=200),
                             workers=1)
    assert not outcome.failed
    folder = store.doc_path("c") / "documents" / store.manifest("c").document("kettle").folder
    assert max(len(s.original.split()) for s in shard.read_sentences(folder)) <= 3
    assert consistent(store, "c") == {**expected["c"], "kettle": outcome.added[0].counts.sentences}
