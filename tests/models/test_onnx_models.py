"""The ONNX Runtime embedding backend against the torch one, with the real bundled MiniLM."""

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from kgcore.core.embed import backend_for, get_embedder
from kgcore.core.embed.base import bundled_model_path
from kgcore.core.embed.onnx import ModelConfig, OnnxEmbedder, exported_model
from kgcore.core.embed.sbert import SentenceTransformerEmbedder
from kgcore.core.errors import IndexMismatchError, ModelUnavailableError
from kgcore.core.settings import Settings
from kgcore.index.pipeline import index_file
from kgcore.index.store.disk import Store
from kgcore.query.engine import QueryEngine

TINY_STORY = (
    "Peter ran home to the big fir-tree. His mother put him to bed and made some camomile tea. "
    "She gave a dose of it to Peter. Flopsy, Mopsy and Cotton-tail had bread and milk and blackberries for supper."
)
TEXTS = [
    "Peter, who was very naughty, ran straight away to Mr. McGregor's garden, and squeezed under the gate!",
    "father",
    "the rabbits' father had an accident; he was put in a pie by Mrs. McGregor",
    "   padded with spaces   ",
    " ".join(["The island was long and the shore was rocky."] * 40),  # past the 256-token limit
]


@pytest.fixture(scope="module")
def torch_embedder():
    return get_embedder("", "cpu", "torch")


@pytest.fixture(scope="module")
def onnx_embedder():
    return get_embedder("", "cpu", "onnx")


def test_auto_is_onnx_on_cpu_and_both_backends_agree(torch_embedder, onnx_embedder):
    assert backend_for("auto") == "onnx" and isinstance(onnx_embedder, OnnxEmbedder)
    assert isinstance(torch_embedder, SentenceTransformerEmbedder)
    assert onnx_embedder.name == torch_embedder.name == "all-MiniLM-L6-v2" and onnx_embedder.dim == 384
    for max_tokens in (None, 64, 6):
        a, b = onnx_embedder.encode(TEXTS, max_tokens), torch_embedder.encode(TEXTS, max_tokens)
        assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
        assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
        assert (a * b).sum(axis=1).min() >= 0.9999, max_tokens
    # truncation really happens: the long text's vector changes with the cap, identically on both backends
    assert onnx_embedder.encode(TEXTS[-1:], 6)[0] @ onnx_embedder.encode(TEXTS[-1:])[0] < 0.99
    assert onnx_embedder.encode([]).shape == (0, 384)


def test_order_and_batching_do_not_change_vectors(onnx_embedder):
    many = [f"{t} ({i})" for i in range(40) for t in TEXTS]
    together = onnx_embedder.encode(many)
    alone = np.vstack([onnx_embedder.encode([t]) for t in many[:10]])
    assert np.allclose(together[:10], alone, atol=1e-5)


def test_export_is_cached_by_model_hash(tmp_path):
    config = ModelConfig.read(bundled_model_path())
    first = exported_model(config, tmp_path)
    stamp = first.stat().st_mtime_ns
    assert re.fullmatch(r".+-[0-9a-f]{16}", first.parent.name) and first.stat().st_size > 10_000_000
    assert exported_model(config, tmp_path) == first and first.stat().st_mtime_ns == stamp  # not exported again
    assert not [p for p in first.parent.iterdir() if p.name.startswith(".export-")]
    # another copy of the model with one changed file is another key
    copy = tmp_path / "copy"
    shutil.copytree(bundled_model_path(), copy)
    (copy / "config.json").write_text((copy / "config.json").read_text() + "\n")
    assert exported_model(ModelConfig.read(copy), tmp_path).parent != first.parent


def test_bad_model_folders_are_named(tmp_path):
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        OnnxEmbedder(str(tmp_path / "missing"), cache_dir=tmp_path)
    (tmp_path / "half").mkdir()
    with pytest.raises(ModelUnavailableError, match=r"half/modules\.json"):
        OnnxEmbedder(str(tmp_path / "half"), cache_dir=tmp_path)


def test_index_built_with_torch_is_queried_with_onnx(tmp_path, torch_embedder, onnx_embedder):
    source = tmp_path / "tiny.txt"
    source.write_text(TINY_STORY, encoding="utf-8")
    store = Store(tmp_path / "store")
    index_file(source, store, settings=Settings(store_root=store.root, embedding_backend="torch"))
    question = "Who gave Peter camomile tea?"
    by_torch, said_torch = QueryEngine(store, Settings(store_root=store.root, embedding_backend="torch")).ask(
        "tiny", question)
    by_onnx, said_onnx = QueryEngine(store, Settings(store_root=store.root, embedding_backend="onnx")).ask(
        "tiny", question)
    assert [s.id for s in by_onnx.sentences] == [s.id for s in by_torch.sentences] and by_onnx.sentences
    assert said_onnx.text == said_torch.text and "camomile" in " ".join(s.text for s in by_onnx.sentences)


def test_int8_is_opt_in_and_recorded_as_another_model(tmp_path, onnx_embedder):
    int8 = OnnxEmbedder(cache_dir=tmp_path, int8=True)
    assert int8.name == "all-MiniLM-L6-v2+int8" and int8.file.name == "model-int8.onnx"
    a, b = int8.encode(TEXTS), onnx_embedder.encode(TEXTS)
    assert 0.9 < (a * b).sum(axis=1).min() < 0.9999  # close, not identical: hence its own name
    source = tmp_path / "tiny.txt"
    source.write_text(TINY_STORY, encoding="utf-8")
    store = Store(tmp_path / "store")
    index_file(source, store, settings=Settings(store_root=store.root))
    engine = QueryEngine(store, Settings(store_root=store.root, embedding_backend="onnx-int8",
                                         model_cache=str(tmp_path)))
    with pytest.raises(IndexMismatchError, match=r"all-MiniLM-L6-v2\+int8"):
        engine.ask("tiny", "Who gave Peter camomile tea?")


def test_the_query_models_load_without_torch(onnx_embedder):
    """spaCy's thinc would import torch (a second of every cold start); the ONNX path needs none of it."""
    code = ("import sys; from kgcore.core.nlp import load_spacy; from kgcore.core.embed import get_embedder\n"
            "nlp = load_spacy(); e = get_embedder('', 'cpu', 'onnx'); e.encode(['Peter ran.'])\n"
            "print('torch' in sys.modules, [t.lemma_ for t in nlp('Peter ran home.')])\n"
            "import torch; print(torch.tensor([1]).item())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                         cwd=str(Path(__file__).resolve().parents[2]))
    assert out.stdout.split("\n")[:2] == ["False ['Peter', 'run', 'home', '.']", "1"], out.stdout + out.stderr


_BLAS_AFTER_NUMPY = """
import numpy
from threadpoolctl import threadpool_info, threadpool_limits
threadpool_limits(2, "blas")
from kgcore.core.embed.onnx import OnnxEmbedder
OnnxEmbedder()
print(sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}))
"""


def test_the_onnx_encoder_leaves_numpy_one_blas_thread_whatever_was_imported_first():
    """A script that imports numpy before kgcore keeps OpenBLAS's long spin: with two BLAS threads, ObliQA questions
    took a median 95-116 ms instead of 79-83 ms (the second thread spun on the core the encoder needed)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", _BLAS_AFTER_NUMPY], capture_output=True, text=True, check=True,
                         timeout=120, env=env, cwd=str(Path(__file__).resolve().parents[2]))
    assert out.stdout.strip().splitlines()[-1] == "[1]", out.stdout + out.stderr


def test_questions_encode_through_the_shared_cache(tmp_path, onnx_embedder):
    """A question compared across methods is encoded once; the cache wraps the very model the app warmed up."""
    from kgcore.core.embed import CachedEmbedder, embedder_for
    from kgcore.core.settings import RetrievalOptions

    source = tmp_path / "tiny.txt"
    source.write_text(TINY_STORY, encoding="utf-8")
    settings = Settings(store_root=tmp_path / "store")
    store = Store(settings.store_root)
    index_file(source, store, settings=settings)
    engine = QueryEngine(store, settings)
    assert isinstance(engine.embedder, CachedEmbedder) and engine.embedder.inner is embedder_for(settings)
    question = "What did Flopsy, Mopsy and Cotton-tail have for supper?"
    first = engine.retrieve("tiny", question, RetrievalOptions(method="dense"))
    seen = len(engine.embedder)
    again = engine.retrieve("tiny", question, RetrievalOptions(method="dense"))
    assert len(engine.embedder) == seen and [s.id for s in again.sentences] == [s.id for s in first.sentences]
    assert "blackberries" in min(first.sentences, key=lambda s: s.rank).text


def test_node_strings_are_cached_across_documents_without_changing_any_vector(tmp_path, monkeypatch):
    """Indexing many small documents encodes a shared name once per process, and a document's node vectors are
    the same bits whether or not other documents filled the cache first."""
    from kgcore.core import embed as embed_mod
    from kgcore.index.pipeline import Job, index_files

    monkeypatch.setattr(embed_mod, "_NODE_CACHES", embed_mod.weakref.WeakKeyDictionary())
    store = Store(tmp_path)
    other = "Peter Rabbit ran to the big fir-tree. Mr. McGregor saw Peter near the gate."
    index_files([Job("tiny.txt", data=TINY_STORY.encode())], store, "cold", workers=1)
    cache = embed_mod.node_embedder(Settings())
    cache._vectors.clear()  # noqa: SLF001 - start again from an empty cache
    index_files([Job("other.txt", data=other.encode())], store, "warm-up", workers=1)
    assert ("Peter", 64) in cache._vectors  # noqa: SLF001
    encoded = []
    real = cache.inner.encode
    monkeypatch.setattr(cache.inner, "encode", lambda texts, max_tokens=None: encoded.extend(texts) or
                        real(texts, max_tokens))
    index_files([Job("tiny.txt", data=TINY_STORY.encode())], store, "warm", workers=1)
    assert "Peter" not in encoded and encoded  # the shared name came from the cache, the rest was encoded
    cold, warm = store.load("cold"), store.load("warm")
    assert cold.node_ids == warm.node_ids and np.array_equal(cold.node_vectors, warm.node_vectors)


class _SlowTruncation:
    """The real tokenizer, pausing after each change of its truncation length so another thread runs then
    (without it the race was seen 4 times in 1,500 calls)."""

    def __init__(self, inner):
        self.inner = inner

    def enable_truncation(self, **kwargs):
        self.inner.enable_truncation(**kwargs)
        time.sleep(0.002)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_threads_encoding_at_different_limits_keep_their_own(backend, onnx_embedder, torch_embedder, monkeypatch):
    """The app's sessions share one embedder: a sentence encoded while another thread encodes node labels (cut at
    64 tokens) must not be cut at the labels' limit (each backend keeps the limit as its own state)."""
    embedder = onnx_embedder if backend == "onnx" else torch_embedder
    if backend == "onnx":
        monkeypatch.setattr(embedder, "tokenizer", _SlowTruncation(embedder.tokenizer))
    else:  # a pause between setting the model's max_seq_length and encoding
        encode = embedder._encode
        monkeypatch.setattr(embedder, "_encode", lambda *args: time.sleep(0.002) or encode(*args))
    long = " ".join(["The rabbit ran under the gate and lost one of his shoes among the cabbages."] * 6)
    expected = embedder.encode([long])[0]

    def sentences():
        return [float(embedder.encode([long])[0] @ expected) for _ in range(15)]

    def labels():
        for _ in range(30):
            embedder.encode(["a short phrase", "another one"], max_tokens=8)

    with ThreadPoolExecutor(2) as pool:
        found, done = pool.submit(sentences), pool.submit(labels)
        done.result()
        assert min(found.result()) > 0.9999


def test_threads_asking_for_a_model_at_once_share_one_load(tmp_path, monkeypatch):
    """The app's warm-up and a session's first question ask together: one spaCy pipeline and one embedder (and
    one export of the ONNX model into the fresh cache folder), not one each.  Without the shared lock the
    concurrent exports failed ("GLOBALS.in_onnx_export must be False"), and an export beside spaCy's import,
    which hides torch meanwhile, failed with "needs torch and transformers"."""
    from kgcore.core import embed as embed_module
    from kgcore.core import nlp as nlp_module

    monkeypatch.setattr(nlp_module, "_PIPELINES", {})  # nothing loaded yet in this process
    monkeypatch.setattr(embed_module, "_EMBEDDERS", {})
    start = threading.Barrier(3)

    def both(_):
        start.wait(10)
        return nlp_module.load_spacy(), embed_module.get_embedder("", "cpu", "onnx", str(tmp_path / "cache"))

    with ThreadPoolExecutor(3) as pool:
        loaded = list(pool.map(both, range(3)))
    assert len({id(nlp) for nlp, _ in loaded}) == 1 and len({id(e) for _, e in loaded}) == 1
    assert nlp_module.spacy_loads() == 1 and embed_module.embedder_loads() == 1


def test_a_loaded_model_is_returned_while_another_model_loads():
    """Every question asks for the embedder and the pipeline: while another session loads a model (an ONNX export,
    a coreference model) it holds the loading lock, and models already loaded are returned without waiting."""
    from kgcore.core.embed import get_embedder
    from kgcore.core.nlp import MODEL_LOADING, load_spacy

    expected = load_spacy(), get_embedder()
    holding, release = threading.Event(), threading.Event()

    def another_load():
        with MODEL_LOADING:
            holding.set()
            release.wait(10)

    loader = threading.Thread(target=another_load)
    loader.start()
    try:
        assert holding.wait(5)
        with ThreadPoolExecutor(1) as pool:
            assert pool.submit(lambda: (load_spacy(), get_embedder())).result(timeout=2) == expected
    finally:
        release.set()
        loader.join(5)
