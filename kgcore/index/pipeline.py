"""Indexing into collections: plan, build each document's shard, then link and commit the collection.

    plan (every check before parsing: kgcore.index.plan) -> build shards (kgcore.index.workers)
        -> lock, add, link, commit

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

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from kgcore.core.document import Document
from kgcore.core.embed import embedder_for
from kgcore.core.errors import InputError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.build import STAGES, StageProgress, StageTimer, build_shard, model_fingerprint
from kgcore.index.parse import Parser
from kgcore.index.plan import Plan, place, plan_batch, read_as_now
from kgcore.index.store.collection import CollectionManifest, CollectionOutcome
from kgcore.index.store.disk import Store, linked_problems
from kgcore.index.store.locks import staging_folder
from kgcore.index.store.manifest import IndexOutcome, Manifest
from kgcore.index.store.shard import staged_folder, write_shard
from kgcore.index.store.writer import CollectionWriter
from kgcore.index.views.communities import communities, units
from kgcore.index.workers import Built, DocumentProgress, Job, Runner, run

__all__ = ["COLLECTION_STAGES", "STAGES", "Job", "Refused", "StageTimer", "collection_step", "index_document",
           "index_file", "index_files", "read_as_now", "remove_documents"]
#: Told of each file refused before any parsing: ``refused(filename, reason)``.
Refused = Callable[[str, str], None]
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


def index_files(jobs: Sequence[Job | str | Path], store: Store, collection: str | None = None,
                options: IndexOptions = IndexOptions(), settings: Settings | None = None, workers: int | None = None,
                force: bool = False, progress: DocumentProgress | None = None,
                runner: Runner | None = None, refused: Refused | None = None) -> list[CollectionOutcome]:
    """Add files to ``collection`` (created when missing), or each to its own collection when it is None.

    ``workers`` parses documents in that many processes (default: the machine's
    cores); a ``runner`` (e.g. :class:`kgcore.index.ray_runner.RayRunner`) builds
    the shards instead, elsewhere, and they are linked here all the same.  Every
    check that needs no parsing runs on every file first (:mod:`kgcore.index.plan`):
    a refused file (a clash of ids, unreadable, over a limit) is passed to
    ``refused(filename, reason)`` before any document is parsed.  One document
    failing, then or later, is reported in the outcome with its reason; the
    others are indexed and committed.
    """
    start = time.perf_counter()
    if isinstance(jobs, (str, Path, Job)):  # one file given where a list of them is asked for
        raise InputError("jobs", f"give a list of files, not one: [{jobs!r}]")
    settings = settings or Settings.from_env()
    settings.check_limit("files", "max_batch", len(jobs))
    if collection is not None:
        store.doc_path(collection)  # an empty, over-long or unsafe name is refused before any work
    plans = plan_batch([j if isinstance(j, Job) else Job(Path(j).name, Path(j)) for j in jobs], store, collection,
                       options, force, settings, refused)
    return [_index_plan(plan, store, options, settings, workers or os.cpu_count() or 1, progress, runner=runner,
                        start=start) for plan in plans.values()]


def _index_plan(plan: Plan, store: Store, options: IndexOptions, settings: Settings, workers: int,
                progress: DocumentProgress | None, parser: Parser | None = None,
                runner: Runner | None = None, start: float | None = None) -> CollectionOutcome:
    """Build, link and commit one collection's plan; the outcome's seconds count from ``start`` (the call's
    start, its planning included) or from now."""
    start = time.perf_counter() if start is None else start
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
    notes = tuple(plan.notes) + (build_communities(store, plan.name, settings)
                                 if manifest is not None and settings.communities_at_index else ())
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


def _commit(store: Store, plan: Plan, staged: list[Built], options: IndexOptions, settings: Settings,
            progress: StageProgress | None = None) -> tuple[CollectionManifest | None, list[Manifest]]:
    """Add the staged shards to the collection and commit it, deciding again under the lock what another
    writer may have added meanwhile (the same bytes: reused; the same id, other bytes: refused)."""
    embedder = embedder_for(settings)
    models = model_fingerprint(settings, embedder)
    with CollectionWriter(store, plan.name, options, models, rebuild=plan.force) as tx:
        added = _add_staged(tx, plan, staged, settings)
        relink = plan.relink and tx.current is not None and bool(linked_problems(store.doc_path(plan.name),
                                                                                  tx.current))
        return (tx.commit(embedder, progress) if added or relink else tx.current), added


def _add_staged(tx: CollectionWriter, plan: Plan, staged: list[Built], settings: Settings) -> list[Manifest]:
    """Move each staged shard into the transaction unless the collection holds its bytes already (reused),
    another writer added its id meanwhile, or the collection is full (failed); the manifests added."""
    added = []
    for built in staged:
        assert built.staged is not None
        free = plan.force or built.job.filename in plan.repair
        same, name = tx.table.holding(plan.hashes[built.job.filename]), built.staged.name
        if same is not None and not free:
            plan.reused.append(same)
        elif name in tx.table and not free:
            plan.failed.append((built.job.filename, f"another writer added a document {name!r} "
                                                    f"to {plan.name!r} meanwhile; index again to decide"))
        elif name not in tx.table and len(tx.table) >= settings.max_documents:
            plan.failed.append((built.job.filename, _over_documents(settings, plan.name, len(tx.table) + 1)))
        else:
            added.append(tx.add(built.staged).manifest)
    return added


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
    plan = Plan(name, force)
    job = Job(document.source_name or document.name, data=source or document.text.encode("utf-8"), name=document.name)
    place(plan, job, document.name, store, options, settings, loaded=True)
    if plan.reused and not plan.relink:
        return IndexOutcome(plan.reused[0], reused=True)
    with staging_folder(store.root) as staging:
        built = []
        if not plan.reused:
            shard = build_shard(document, options, settings, timer, parser, source)
            with timer.stage("store"):
                built = [Built(job, write_shard(staged_folder(staging, shard.doc_id), shard))]
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
