"""Indexing into collections: plan, build each document's shard, then link and commit the collection.

    plan (ids, duplicates, reuse) -> build shards (kgcore.index.workers) -> lock, add, link, commit

Adding a document parses and embeds only that document; the collection's
linked graph is recomputed from the shards (:mod:`kgcore.index.store.link`).  A
document whose bytes are already in the collection (same hash, same
options) is reported as reused and not rebuilt, once its stored files were
checked: a damaged copy is built again (and a damaged linked graph linked
again).  Two files that map to the same document id never replace each
other: the second is refused with a message naming both (``force``
replaces an existing document on purpose).  Every decision is taken again
under the collection's lock, where another writer's changes are seen.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgcore.core.document import Document
from kgcore.core.embed import embedder_for
from kgcore.core.errors import DamagedIndexError, InputError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.build import STAGES, StageProgress, StageTimer, build_shard, model_fingerprint
from kgcore.index.load import READER_VERSION, check_file, doc_id_for
from kgcore.index.parse import Parser
from kgcore.index.store.collection import CollectionManifest, CollectionOutcome
from kgcore.index.store.disk import Store, document_problems, linked_problems
from kgcore.index.store.locks import staging_folder
from kgcore.index.store.manifest import IndexOutcome, Manifest
from kgcore.index.store.shard import write_shard
from kgcore.index.store.writer import CollectionWriter
from kgcore.index.views.communities import communities, units
from kgcore.index.workers import Built, DocumentProgress, Job, Runner, run

__all__ = ["COLLECTION_STAGES", "STAGES", "Job", "StageTimer", "collection_step", "index_document", "index_file",
           "index_files", "remove_documents"]
#: The stages of a collection's commit, after its documents are built: linking the graph, writing it.
COLLECTION_STAGES = ("link", "write")
#: What the progress of a collection's own stages is reported under, in place of a file name.
COLLECTION_STEP = "collection:"


def collection_step(name: str) -> str:
    """The name a collection's link and write stages report progress under (no file name looks like it).

    >>> collection_step("shelf"), is_collection_step("collection:shelf"), is_collection_step("shelf.txt")
    ('collection:shelf', True, False)
    """
    return f"{COLLECTION_STEP}{name}"


def is_collection_step(name: str) -> bool:
    return name.startswith(COLLECTION_STEP)


@dataclass
class _Plan:
    """What one call will do to one collection."""

    name: str
    force: bool = False
    build: list[Job] = field(default_factory=list)
    reused: list[Manifest] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    #: Files whose indexed copy (same bytes) is damaged: built again, replacing it.
    repair: set[str] = field(default_factory=set)
    #: The collection's linked graph is damaged: link again even when nothing is added.
    relink: bool = False


def index_files(jobs: Sequence[Job | str | Path], store: Store, collection: str | None = None,
                options: IndexOptions = IndexOptions(), settings: Settings | None = None, workers: int | None = None,
                force: bool = False, progress: DocumentProgress | None = None,
                runner: Runner | None = None) -> list[CollectionOutcome]:
    """Add files to ``collection`` (created when missing), or each to its own collection when it is None.

    ``workers`` parses documents in that many processes (default: the machine's
    cores); a ``runner`` (e.g. :class:`kgcore.index.ray_runner.RayRunner`) builds
    the shards instead, elsewhere, and they are linked here all the same.  One
    document failing (unreadable, empty) is reported in the outcome with its
    reason; the others are indexed.
    """
    settings = settings or Settings.from_env()
    settings.check_limit("files", "max_batch", len(jobs))
    if collection is not None:
        store.doc_path(collection)  # an empty, over-long or unsafe name is refused before any work
    plans = _plan([j if isinstance(j, Job) else Job(Path(j).name, Path(j)) for j in jobs], store, collection,
                  options, force, settings)
    return [_index_plan(plan, store, options, settings, workers or os.cpu_count() or 1, progress, runner=runner)
            for plan in plans.values()]


def _plan(jobs: list[Job], store: Store, collection: str | None, options: IndexOptions,
          force: bool, settings: Settings) -> dict[str, _Plan]:
    plans: dict[str, _Plan] = {}
    for job in jobs:
        name = collection or job.filename
        try:
            doc_id = doc_id_for(job.name or job.filename)
            name = collection or doc_id
            _place(plans.setdefault(name, _Plan(name, force)), job, doc_id, store, options, settings)
        except (InputError, OSError) as exc:
            plans.setdefault(name, _Plan(name, force)).failed.append((job.filename, str(exc)))
    return plans


def _read_job(job: Job, settings: Settings) -> bytes:
    """A job's bytes, after the checks that need no reading (a directory, a missing file, the size limit)."""
    if job.data is None and job.path is not None:
        check_file(job.path, settings)
    return job.read()


def _place(plan: _Plan, job: Job, doc_id: str, store: Store, options: IndexOptions, settings: Settings) -> None:
    """Decide one job: build it, reuse the indexed copy, or refuse it (a clash of ids) with the reason."""
    sha = hashlib.sha256(_read_job(job, settings)).hexdigest()
    earlier = next((j for j in plan.build if doc_id_for(j.name or j.filename) == doc_id), None)
    if earlier is not None:
        raise InputError(job.filename, f"maps to the same document id {doc_id!r} as {earlier.filename} in this "
                                       "batch; give one of them another name")
    current = _current(store, plan)
    if current is not None and current.options != options:
        raise InputError("options", f"collection {plan.name!r} is indexed with {current.options.to_dict()}; "
                                    f"cannot add {job.filename} with {options.to_dict()}")
    entries = {d.doc_id: d for d in current.documents} if current else {}
    same = next((d for d in entries.values() if d.manifest.source_sha256 == sha), None)
    if same is not None and not plan.force:
        if not document_problems(store.doc_path(plan.name), same) and read_as_now(same.manifest):
            plan.relink = plan.relink or bool(current and linked_problems(store.doc_path(plan.name), current))
            plan.reused.append(same.manifest)
            return
        # the same bytes, but damaged stored files or an older reading: build again, under the id it has
        plan.repair.add(job.filename)
        job, doc_id = replace(job, name=same.doc_id), same.doc_id
    if doc_id in entries and not plan.force and job.filename not in plan.repair:
        raise InputError(job.filename, f"collection {plan.name!r} already has a document {doc_id!r} (from "
                                       f"{entries[doc_id].manifest.source_file}) with other content; give this file "
                                       "another name (--name), or replace that document (--force)")
    documents = set(entries) | {doc_id_for(j.name or j.filename) for j in plan.build} | {doc_id}
    settings.check_limit(job.filename, "max_documents", len(documents))
    plan.build.append(job)
    plan.hashes[job.filename] = sha


def read_as_now(manifest: Manifest) -> bool:
    """Whether ``manifest``'s sentences come from this kgcore's reading of the file (:data:`READER_VERSION`);
    an older reading is read again when the same file is indexed again, not reused.

    >>> from kgcore.core.document import IngestReport
    >>> read_as_now(Manifest("a", ingest=IngestReport(reader=READER_VERSION))), read_as_now(Manifest("a"))
    (True, False)
    """
    return manifest.ingest is not None and manifest.ingest.reader >= READER_VERSION


def _current(store: Store, plan: _Plan) -> CollectionManifest | None:
    """The collection as it is; a damaged manifest is an error, or (``force``) a collection to rebuild."""
    try:
        return store.manifest(plan.name) if store.exists(plan.name) else None
    except DamagedIndexError:
        if not plan.force:
            raise
        return None


def _index_plan(plan: _Plan, store: Store, options: IndexOptions, settings: Settings, workers: int,
                progress: DocumentProgress | None, parser: Parser | None = None,
                runner: Runner | None = None) -> CollectionOutcome:
    start = time.perf_counter()
    with staging_folder(store.root) as staging:
        built = runner(plan.build, options, settings, staging, progress) if runner and plan.build else \
            run(plan.build, options, settings, staging, workers, progress, parser)
        plan.failed += [(b.job.filename, b.error) for b in built if b.error]
        staged = [b for b in built if b.staged is not None]
        report = (lambda stage, done, total: progress(collection_step(plan.name), stage, done, total)) \
            if progress else None
        manifest, added = _commit(store, plan, staged, options, settings, report) if staged or plan.relink \
            else (None, [])
    if manifest is None and _exists(store, plan.name):
        manifest = store.manifest(plan.name)
    notes = build_communities(store, plan.name, settings) if manifest is not None and settings.communities_at_index \
        else ()
    return CollectionOutcome(plan.name, manifest, tuple(added), tuple(plan.reused), tuple(plan.failed),
                             time.perf_counter() - start, notes)


def build_communities(store: Store, name: str, settings: Settings) -> tuple[str, ...]:
    """Build (or reuse) collection ``name``'s communities and summaries now, stored for every later query, and
    write the summaries into its Chroma copy when commits keep that copy in step; what went wrong, as notes (the
    documents are committed already: a failure here leaves the communities to the first query that needs them)."""
    try:
        index = store.load(name)
        ci = communities(index, embedder_for(settings), settings)
        if store.chroma_at_commit:
            units.sync(store.chroma_copy(name), ci, index.manifest.stamp)
    except Exception as exc:  # noqa: BLE001 - the commit stands whatever fails here; the reason is reported
        return (f"communities not built at indexing ({type(exc).__name__}: {exc}); the first community query "
                "builds them",)
    return ()


def _exists(store: Store, name: str) -> bool:
    try:
        return store.exists(name)
    except InputError:  # a file name standing in for a collection that could not be named
        return False


def _commit(store: Store, plan: _Plan, staged: list[Built], options: IndexOptions, settings: Settings,
            progress: StageProgress | None = None) -> tuple[CollectionManifest | None, list[Manifest]]:
    """Add the staged shards to the collection and commit it, deciding again under the lock what another
    writer may have added meanwhile (the same bytes: reused; the same id, other bytes: refused)."""
    embedder = embedder_for(settings)
    models = model_fingerprint(settings, embedder)
    with CollectionWriter(store, plan.name, options, models, rebuild=plan.force) as tx:
        added = []
        for built in staged:
            assert built.staged is not None
            existing = {d.doc_id: d.manifest for d in tx.documents}
            sha, free = plan.hashes[built.job.filename], plan.force or built.job.filename in plan.repair
            same = next((m for m in existing.values() if m.source_sha256 == sha), None)
            if same is not None and not free:
                plan.reused.append(same)
            elif built.staged.name in existing and not free:
                plan.failed.append((built.job.filename, f"another writer added a document {built.staged.name!r} "
                                                        f"to {plan.name!r} meanwhile; index again to decide"))
            elif built.staged.name not in existing and len(existing) >= settings.max_documents:
                plan.failed.append((built.job.filename, _over_documents(settings, plan.name, len(existing) + 1)))
            else:
                added.append(tx.add(built.staged).manifest)
        relink = plan.relink and tx.current is not None and bool(linked_problems(store.doc_path(plan.name),
                                                                                  tx.current))
        return (tx.commit(embedder, progress) if added or relink else tx.current), added


def _over_documents(settings: Settings, name: str, count: int) -> str:
    try:
        settings.check_limit(name, "max_documents", count)
    except InputError as exc:
        return exc.reason
    return ""


def index_file(path: str | Path, store: Store, options: IndexOptions = IndexOptions(),
               settings: Settings | None = None, name: str | None = None, force: bool = False,
               progress: StageProgress | None = None, collection: str | None = None) -> IndexOutcome:
    """Index one file into ``collection`` (default: its own collection, named after the document)."""
    path = Path(path)
    report = (lambda _doc, stage, done, total: progress(stage, done, total)) if progress else None
    outcome = index_files([Job(path.name, path, name=name)], store, collection, options, settings, 1, force,
                          report)[0]
    return _single(outcome, path.name)


def index_document(document: Document, store: Store, options: IndexOptions = IndexOptions(),
                   settings: Settings | None = None, force: bool = False,
                   timer: StageTimer | StageProgress | None = None, parser: Parser | None = None,
                   collection: str | None = None, source: bytes | None = None) -> IndexOutcome:
    """Index an already loaded :class:`Document` into ``collection`` (default: its own).

    ``parser`` overrides the backend named by ``options.parser`` (e.g. a PenmanParser over pre-parsed graphs).
    """
    settings = settings or Settings.from_env()
    timer = timer if isinstance(timer, StageTimer) else StageTimer(timer)
    name = collection or document.name
    plan = _Plan(name, force)
    job = Job(document.source_name or document.name, data=source or document.text.encode("utf-8"), name=document.name)
    _place(plan, job, document.name, store, options, settings)
    if plan.reused and not plan.relink:
        return IndexOutcome(plan.reused[0], reused=True)
    with staging_folder(store.root) as staging:
        built = []
        if not plan.reused:
            shard = build_shard(document, options, settings, timer, parser, source)
            with timer.stage("store"):
                built = [Built(job, write_shard(staging / shard.doc_id, shard))]
        _, added = _commit(store, plan, built, options, settings)
    if plan.failed:
        raise InputError(*plan.failed[0])
    return IndexOutcome(added[0], reused=False, collection=name) if added else IndexOutcome(plan.reused[0], True, name)


def _single(outcome: CollectionOutcome, filename: str) -> IndexOutcome:
    if outcome.failed:
        raise InputError(filename, outcome.failed[0][1].removeprefix(f"{filename}: "))
    manifest = (outcome.added or outcome.reused)[0]
    return IndexOutcome(manifest, reused=not outcome.added, collection=outcome.name)


def remove_documents(store: Store, collection: str, doc_ids: Sequence[str],
                     settings: Settings | None = None) -> CollectionManifest:
    """Remove documents from a collection: their sentences and every node or edge grounded only in them."""
    embedder = embedder_for(settings or Settings.from_env())
    with CollectionWriter(store, collection) as tx:
        if tx.current is None:
            raise InputError("collection", f"no collection {collection!r} in {store.root}")
        for doc_id in doc_ids:
            tx.remove(doc_id)
        return tx.commit(embedder)
