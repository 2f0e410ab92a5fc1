"""The ONNX Runtime embedding backend: the same sentence-transformers model, exported once, run without torch.

The model folder (the bundled all-MiniLM-L6-v2 or ``KGCORE_EMBEDDING_MODEL``) is
exported with ``torch.onnx.export`` the first time it is used, into the model
cache (``KGCORE_MODEL_CACHE``, default ``~/.cache/kgcore/onnx``) under a key
made of the hash of the model's files and :data:`EXPORT_VERSION`; nothing is
downloaded.  Encoding tokenizes with the folder's fast tokenizer, pools and
normalises exactly as the folder's sentence-transformers modules declare
(:class:`ModelConfig`), so the vectors equal the torch backend's (cosine
≥ 0.9999, tested) and an index built with one is queried with the other.

``int8`` (dynamic quantisation) is opt-in only: it is 2-3x faster but changes
the vectors enough to move retrieval (see ``bench/embed_bench.py``), so it is
recorded under its own model name and an index built with it must be queried
with it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgcore.core.embed.base import model_folder, model_name, one_blas_thread, rows_done, thread_share
from kgcore.core.errors import ModelUnavailableError

log = logging.getLogger(__name__)

#: Bumped when the exported graph changes for the same model files (the cache key includes it).
EXPORT_VERSION = 1
#: Most tokens one ONNX call processes (rows x padded length).  Small batches, longest first, were fastest
#: on 2 cores (3,000 novel sentences: 5.4 s at 1,024-2,048 tokens, 6.6 s at 4,096, 9.5 s at 16,384; torch 12.4 s).
TOKENS_PER_BATCH = 2048
#: Most texts one call takes, however short (64: 5.2 s for 8,000 short strings, 256: 5.3 s).
MAX_BATCH = 64
#: What one ONNX call costs beyond its tokens, in padded token slots (2 cores: about 2 ms a call, 90 us a slot).
CALL_SLOTS = 32
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def default_cache_dir() -> Path:
    """Where exported models are kept: ``KGCORE_MODEL_CACHE``, else ``$XDG_CACHE_HOME/kgcore/onnx``.

    >>> str(default_cache_dir()).endswith("onnx")
    True
    """
    explicit = os.environ.get("KGCORE_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kgcore" / "onnx"


@dataclass(frozen=True)
class ModelConfig:
    """What a sentence-transformers folder declares: token limit, pooling, normalisation."""

    path: Path
    max_seq_length: int
    pooling: str
    normalize: bool

    @classmethod
    def read(cls, folder: str | Path) -> ModelConfig:
        """The configuration of ``folder``; raises :class:`ModelUnavailableError` naming what is missing."""
        path = Path(folder)
        modules = _json(path / "modules.json")
        kinds = {m.get("type", "").rsplit(".", 1)[-1]: m.get("path", "") for m in modules}
        if "Transformer" not in kinds or "Pooling" not in kinds:
            raise ModelUnavailableError(f"{path}/modules.json: expected a Transformer and a Pooling module, "
                                        f"found {sorted(kinds)}")
        pooling = _pooling_mode(_json(path / kinds["Pooling"] / "config.json"), path)
        sbert = _json(path / "sentence_bert_config.json")
        return cls(path, int(sbert.get("max_seq_length") or 512), pooling, "Normalize" in kinds)


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailableError(f"{path}: cannot read the sentence-transformers configuration ({exc})") from exc


def _pooling_mode(config: dict, path: Path) -> str:
    """``mean`` or ``cls``: the pooling modes this backend implements.

    >>> _pooling_mode({"pooling_mode_mean_tokens": True}, Path("m"))
    'mean'
    >>> _pooling_mode({"pooling_mode_max_tokens": True}, Path("m"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kgcore.core.errors.ModelUnavailableError: m: pooling max_tokens is not supported by the onnx backend (mean ...
    """
    on = {k for k, v in config.items() if k.startswith("pooling_mode_") and v is True}
    for mode in ("mean", "cls"):
        if on == {f"pooling_mode_{mode}_tokens" if mode == "mean" else "pooling_mode_cls_token"}:
            return mode
    found = ", ".join(k.removeprefix("pooling_mode_") for k in sorted(on)) or "none"
    raise ModelUnavailableError(f"{path}: pooling {found} is not supported by the onnx backend (mean or cls); "
                                "set KGCORE_EMBEDDING_BACKEND=torch")


def model_hash(folder: Path) -> str:
    """A 16-hex key over the files that decide the vectors (weights, configuration, tokenizer)."""
    digest = hashlib.sha256(f"export-{EXPORT_VERSION}".encode())
    names = [n for n in _WEIGHTS if (folder / n).exists()][:1]
    names += ["config.json", "tokenizer.json", "sentence_bert_config.json", "modules.json"]
    for name in names:
        file = folder / name
        if not file.exists():
            raise ModelUnavailableError(f"{file}: missing (the onnx backend needs the model's {name})")
        digest.update(name.encode())
        with file.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def exported_model(config: ModelConfig, cache: Path, int8: bool = False) -> Path:
    """The ONNX file of ``config``'s model in ``cache``, exported (and quantised) on first use."""
    base = cache / f"{config.path.name}-{model_hash(config.path)}"
    target = base / ("model-int8.onnx" if int8 else "model.onnx")
    if target.exists():
        return target
    base.mkdir(parents=True, exist_ok=True)
    fp32 = base / "model.onnx"
    if not fp32.exists():
        _atomic(fp32, lambda tmp: _export(config.path, tmp))
    if int8:
        _atomic(target, lambda tmp: _quantize(fp32, tmp))
    return target


def _atomic(target: Path, write) -> None:
    """Write through a temporary file in the same folder, then rename: readers never see half a model."""
    fd, name = tempfile.mkstemp(prefix=".export-", suffix=".onnx", dir=target.parent)
    os.close(fd)
    try:
        write(Path(name))
        os.replace(name, target)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def _export(folder: Path, target: Path) -> None:
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ModelUnavailableError("exporting the embedding model to ONNX needs torch and transformers "
                                    "(pip install torch transformers onnx)") from exc
    log.info("exporting %s to ONNX (once) into %s", folder, target.parent)
    model = AutoModel.from_pretrained(str(folder), local_files_only=True).eval()

    class Encoder(torch.nn.Module):  # keyword arguments: the model's positional order changes between versions
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    sample = tuple(torch.ones((2, 8), dtype=torch.long) for _ in _INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about Python booleans: the vectors are tested equal
            torch.onnx.export(Encoder(model), sample, str(target), input_names=list(_INPUTS),
                              output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17,
                              dynamo=False)
    except Exception as exc:  # the exporter raises many kinds; name the model and the way out
        raise ModelUnavailableError(f"{folder}: the ONNX export failed ({type(exc).__name__}: {exc}); "
                                    "pip install onnx, or set KGCORE_EMBEDDING_BACKEND=torch") from exc


def _quantize(source: Path, target: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ModelUnavailableError("int8 quantisation needs onnxruntime and onnx (pip install onnx)") from exc
    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)


class OnnxEmbedder:
    """Encodes texts with ONNX Runtime; same interface and vectors as the sentence-transformers backend."""

    def __init__(self, model_path: str = "", cache_dir: str | Path | None = None, int8: bool = False,
                 threads: int = 0):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailableError("the onnx embedding backend needs onnxruntime and tokenizers "
                                        "(pip install onnxruntime tokenizers)") from exc
        self.config = ModelConfig.read(model_folder(model_path))
        self.path = str(self.config.path)
        self.file = exported_model(self.config, Path(cache_dir) if cache_dir else default_cache_dir(), int8)
        self.name = model_name(model_path) + ("+int8" if int8 else "")
        if int8:
            log.warning("onnx-int8 embeddings: faster, but top-10 agreement with fp32 was 0.79 and dense evidence "
                        "hit@10 0.378 instead of 0.400 on Robinson Crusoe dev (bench/embed_bench.py)")
        self.tokenizer = Tokenizer.from_file(str(self.config.path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self._tokenizing = threading.Lock()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or thread_share()
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: with another busy process (a second worker, the app's other
        # users, spaCy's parse processes) spinning threads waited on descheduled ones.  1,500 node strings on
        # 2 cores beside another busy process: 3.5 s instead of 4.5 s; 20 per-document calls: 1.4 s instead of 2.0.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(self.file), options, providers=["CPUExecutionProvider"])
        # As the torch backend: kgcore's OPENBLAS_THREAD_TIMEOUT only applies where kgcore is imported before
        # numpy, and a second OpenBLAS thread still spinning took the encoder's core.
        one_blas_thread()
        self._feeds = [i.name for i in self.session.get_inputs()]
        self.dim = int(self.encode(["dimension"]).shape[1])

    def encode(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """Vectors of ``texts`` (each cut at ``max_tokens`` tokens, default the model's limit), longest first."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        limit = min(self.config.max_seq_length, max_tokens or self.config.max_seq_length)
        # The truncation length is the tokenizer's state, shared by every thread that encodes (the app's
        # sessions share one embedder): setting it and tokenizing must not interleave with another call's, or
        # a sentence is cut at a node label's 64 tokens (seen: 4 of 1,500 long texts beside a thread of labels).
        with self._tokenizing:
            self.tokenizer.enable_truncation(max_length=limit)
            encodings = self.tokenizer.encode_batch([t.strip() for t in texts])
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        order = np.argsort(-lengths, kind="stable")
        out: np.ndarray | None = None
        for rows in _batches(lengths[order]):
            chosen = order[rows]
            vectors = self._run([encodings[i] for i in chosen], int(lengths[chosen[0]]))
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[chosen] = vectors
            rows_done(rows.stop, len(texts))
        assert out is not None
        return out

    def _run(self, encodings: list, width: int) -> np.ndarray:
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self.session.run(None, {k: feeds[k] for k in self._feeds})[0]
        if self.config.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self.config.normalize:
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32, copy=False)


def _batches(sorted_lengths: np.ndarray) -> list[slice]:
    """Slices over texts sorted longest first, each within :data:`TOKENS_PER_BATCH` and :data:`MAX_BATCH`,
    padding as little as pays: every text of a call is padded to the call's longest, so one 40-token
    sentence among twenty 3-token names would make the call cost 800 slots instead of about 100.  The split
    minimises padded slots plus :data:`CALL_SLOTS` a call, over runs of equal lengths (a dynamic programme
    over at most as many runs as there are distinct lengths).

    >>> _batches(np.array([256, 256, 10, 3]))
    [slice(0, 2, None), slice(2, 4, None)]
    >>> [s.stop - s.start for s in _batches(np.array([256] * 20 + [8] * 150))]
    [8, 8, 4, 64, 64, 22]
    >>> _batches(np.array([12, 11, 11, 10]))
    [slice(0, 4, None)]
    """
    starts = [0] + [i for i in range(1, len(sorted_lengths)) if sorted_lengths[i] != sorted_lengths[i - 1]]
    bounds = [*starts, len(sorted_lengths)]
    best = [0.0] + [float("inf")] * len(starts)  # best[g]: cheapest split of the texts before run g
    cut = [0] * (len(starts) + 1)
    for end in range(1, len(bounds)):
        for first in range(end - 1, -1, -1):
            width = max(int(sorted_lengths[bounds[first]]), 1)
            rows = bounds[end] - bounds[first]
            calls = -(-rows // max(1, min(MAX_BATCH, TOKENS_PER_BATCH // width)))
            cost = best[first] + rows * width + calls * CALL_SLOTS
            if cost < best[end]:
                best[end], cut[end] = cost, first
    out: list[slice] = []
    end = len(starts)
    while end > 0:
        first = cut[end]
        width = max(int(sorted_lengths[bounds[first]]), 1)
        size = max(1, min(MAX_BATCH, TOKENS_PER_BATCH // width))
        out[:0] = [slice(s, min(s + size, bounds[end])) for s in range(bounds[first], bounds[end], size)]
        end = first
    return out
