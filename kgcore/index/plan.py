"""Planning a batch: every check that needs no parsing, on every file, before the first document is parsed.

    files -> read, hash -> (per file) same id as an earlier file of the batch?  already indexed (same bytes:
    reuse)?  the id taken by other content?  readable (:func:`~kgcore.index.load.check_readable`)?  over a
    limit?  -> :class:`Plan`: what to build, what is reused, what is refused and why

A refused file is refused in the batch's first seconds, whatever the batch's size, and the others go on: a
collision found after hours of parsing, with every other document's work discarded with it, cannot happen.
Planning costs one read and one hash per file, and the collection's manifest, its index by hash and the check
of its linked graph are computed once per batch (not once per file), so re-adding ``N`` unchanged files costs
O(N) with no model loaded:

>>> import tempfile
>>> from kgcore.index.store.disk import Store
>>> from kgcore.index.workers import Job
>>> store = Store(tempfile.mkdtemp())
>>> jobs = [Job("Queen_of_Spades.txt", data=b"A card."), Job("Queen_of_spades.txt", data=b"Another card."),
...         Job("empty.txt", data=b""), Job("king.txt", data=b"A king.")]
>>> (plan,) = plan_batch(jobs, store, "cards", IndexOptions(), False, Settings()).values()
>>> [j.filename for j in plan.build]
['Queen_of_Spades.txt', 'king.txt']
>>> for filename, reason in plan.failed:
...     print(reason)  # doctest: +NORMALIZE_WHITESPACE
Queen_of_spades.txt: maps to the same document id 'queen_of_spades' as Queen_of_Spades.txt in this batch;
    give one of them another name
empty.txt: empty file (0 bytes)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from kgcore.core.errors import DamagedIndexError, InputError
from kgcore.core.settings import IndexOptions, Settings
from kgcore.index.load import READER_VERSION, check_file, check_readable, doc_id_for, legacy_doc_id
from kgcore.index.store.collection import CollectionManifest, DocumentEntry
from kgcore.index.store.disk import Store, document_problems, linked_problems
from kgcore.index.store.manifest import Manifest
from kgcore.index.workers import Job

__all__ = ["Plan", "place", "plan_batch", "read_as_now"]


@dataclass
class Plan:
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
    #: The collection as planning found it (read once per batch), its documents by id and by source hash.
    current: CollectionManifest | None = None
    by_id: dict[str, DocumentEntry] = field(default_factory=dict)
    by_sha: dict[str, DocumentEntry] = field(default_factory=dict)
    #: The document id of every file planned for building -> its file name (a second file with the id clashes).
    planned: dict[str, str] = field(default_factory=dict)
    #: Planned ids the collection does not have yet (the collection's size after the batch, without a set union).
    new_ids: int = 0
    #: What the batch did other than asked, said in the outcome's notes (a name given to bytes indexed already).
    notes: list[str] = field(default_factory=list)
    _read: bool = False
    _linked_checked: bool = False

    def read_current(self, store: Store) -> CollectionManifest | None:
        """The collection as it is, read once; a damaged manifest is an error, or (``force``) one to rebuild."""
        if not self._read:
            self._read = True
            try:
                self.current = store.manifest(self.name) if store.exists(self.name) else None
            except DamagedIndexError:
                if not self.force:
                    raise
            entries = self.current.documents if self.current else ()
            self.by_id = {d.doc_id: d for d in entries}
            self.by_sha = {}
            for entry in entries:
                self.by_sha.setdefault(entry.manifest.source_sha256, entry)
        return self.current

    def check_linked(self, store: Store) -> None:
        """Whether the collection's linked graph needs linking again, hashed once per batch."""
        if not self._linked_checked and self.current is not None:
            self._linked_checked = True
            self.relink = bool(linked_problems(store.doc_path(self.name), self.current))


def plan_batch(jobs: Sequence[Job], store: Store, collection: str | None, options: IndexOptions, force: bool,
               settings: Settings, refused: Callable[[str, str], None] | None = None) -> dict[str, Plan]:
    """Decide every job of a batch, collection by collection (``collection`` None: each file its own).

    Names come first, without reading any file: a file whose name maps to the document id of an earlier one is
    refused at once (``refused(filename, reason)``, as every refusal is, when it is found), then each file is
    read and decided.
    """
    plans: dict[str, Plan] = {}

    def fail(name: str, job: Job, reason: str) -> None:
        plans.setdefault(name, Plan(name, force)).failed.append((job.filename, reason))
        if refused is not None:
            refused(job.filename, reason)

    named: dict[tuple[str, str], Job] = {}
    decided: list[tuple[Job, str, str]] = []
    for job in jobs:
        try:
            doc_id = doc_id_for(job.name or job.filename)
        except InputError as exc:
            fail(collection or job.filename, job, str(exc))
            continue
        name = collection or doc_id
        earlier = named.setdefault((name, doc_id), job)
        if earlier is not job:
            fail(name, job, str(_clash(job, doc_id, earlier)))
        else:
            decided.append((job, doc_id, name))
    for job, doc_id, name in decided:
        try:
            place(plans.setdefault(name, Plan(name, force)), job, doc_id, store, options, settings)
        except (InputError, OSError) as exc:
            fail(name, job, str(exc))
    return plans


def _clash(job: Job, doc_id: str, earlier: Job | str) -> InputError:
    """Two files of a batch that would be one document; named by their paths when they share a file name
    ("dupB/same.txt" kept, "dupA/same.txt" refused)."""
    first, this = (earlier if isinstance(earlier, str) else earlier.filename), ""
    if not isinstance(earlier, str) and earlier.filename == job.filename and earlier.path and job.path:
        first, this = f"{earlier.path} (kept)", f"the one at {job.path} "
    return InputError(job.filename, f"{this}maps to the same document id {doc_id!r} as {first} in this batch; give "
                                    "one of them another name")


def _read_job(job: Job, settings: Settings) -> bytes:
    """A job's bytes, after the checks that need no reading (a directory, a missing file, the size limit)."""
    if job.data is None and job.path is not None:
        check_file(job.path, settings)
    return job.read()


def place(plan: Plan, job: Job, doc_id: str, store: Store, options: IndexOptions, settings: Settings,
          loaded: bool = False) -> None:
    """Decide one job: build it, reuse the indexed copy, or refuse it with the reason; a ``loaded`` job's document
    was read already (``index_document``), so its name and bytes are not checked as a file's again."""
    data = _read_job(job, settings)
    sha = hashlib.sha256(data).hexdigest()
    if doc_id in plan.planned:
        raise _clash(job, doc_id, plan.planned[doc_id])
    current = plan.read_current(store)
    if doc_id not in plan.by_id and (legacy := legacy_doc_id(job.name or job.filename)) in plan.by_id:
        # indexed under the id its name had before ids were transliterated ("Straße": "strae"): kept under it
        job, doc_id = replace(job, name=legacy), legacy
    if current is not None and current.options != options:
        raise InputError("options", f"collection {plan.name!r} is indexed with {current.options.to_dict()}; "
                                    f"cannot add {job.filename} with {options.to_dict()}")
    same = plan.by_sha.get(sha)
    if same is not None and not plan.force:
        if not document_problems(store.doc_path(plan.name), same) and read_as_now(same.manifest):
            plan.check_linked(store)
            plan.reused.append(same.manifest)
            if job.name and doc_id != same.doc_id:
                plan.notes.append(f"{job.filename}: the same bytes are indexed already as {same.doc_id!r}, reused "
                                  f"under that id, not {doc_id!r} (remove it first to index them under another)")
            return
        # the same bytes, but damaged stored files or an older reading: build again, under the id it has
        plan.repair.add(job.filename)
        job, doc_id = replace(job, name=same.doc_id), same.doc_id
    if doc_id in plan.by_id and not plan.force and job.filename not in plan.repair:
        raise InputError(job.filename, f"collection {plan.name!r} already has a document {doc_id!r} (from "
                                       f"{plan.by_id[doc_id].manifest.source_file}) with other content; give this "
                                       "file another name (--name), or replace that document (--force)")
    if not loaded:
        check_readable(data, job.filename, settings)
    new = doc_id not in plan.by_id and doc_id not in plan.planned
    settings.check_limit(job.filename, "max_documents", len(plan.by_id) + plan.new_ids + new)
    plan.build.append(job)
    plan.planned[doc_id] = job.filename
    plan.new_ids += new
    plan.hashes[job.filename] = sha


def read_as_now(manifest: Manifest) -> bool:
    """Whether ``manifest``'s sentences come from this kgcore's reading of the file (:data:`READER_VERSION`);
    an older reading is read again when the same file is indexed again, not reused.

    >>> from kgcore.core.document import IngestReport
    >>> read_as_now(Manifest("a", ingest=IngestReport(reader=READER_VERSION))), read_as_now(Manifest("a"))
    (True, False)
    """
    return manifest.ingest is not None and manifest.ingest.reader >= READER_VERSION
