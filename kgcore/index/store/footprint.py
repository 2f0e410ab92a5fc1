"""A loaded collection's resident size: what serving it costs in memory, measured, not estimated.

:func:`measure_load` loads a collection in this process and reads the process's memory before and after
(``psutil``): the growth in resident memory, split into the process's own (anonymous) pages and the pages of
memory-mapped files (the node and sentence vectors, :func:`~kgcore.index.store.integrity.map_npy`,
:mod:`~kgcore.index.store.sentence_matrix`; the sentences, :mod:`~kgcore.index.store.sentence_table`), which the
kernel shares between processes and may drop under pressure.  ``doctor --collection NAME`` reports it;
``bench/scale_bench.py`` measures it at every size to fit how it grows.

>>> Footprint("c", 2, 10, 40, 0.5, resident_mb=120.0, mapped_mb=20.0).line()
'c: 2 documents, 10 sentences, 40 nodes; loaded in 0.50 s, resident 120.0 MB (100.0 MB own, 20.0 MB mapped files)'
>>> Footprint("c", 2, 10, 40, 0.5, 120.0, 20.0, sentence_vectors_mapped=False,
...           copied_because="a writer holds the collection").line()  # doctest: +ELLIPSIS
'c: ...; sentences and their vectors copied into this process: a writer holds the collection'
>>> Footprint("c", 2, 10, 40, 0.5, 120.0, 20.0, upgrade_seconds=1.25).line()  # doctest: +ELLIPSIS
'c: ...; sentences and their vectors first written to their mapped files in 1.25 s (an older collection; ...)'

A collection committed before the sentence-vector and sentence files existed gets them on its first load
(:func:`~kgcore.index.store.sentence_matrix.upgrade`); :func:`measure_load` runs that upgrade before it times
the load, so the load time is what every later load takes, and reports the upgrade's time apart (or why it
could not be done: the sentences and their vectors are then copied into the process).
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass

import psutil  # type: ignore[import-untyped]

from kgcore.index.store import sentence_matrix
from kgcore.index.store.disk import Store
from kgcore.index.store.in_memory import Index
from kgcore.index.store.integrity import mapped_file
from kgcore.index.store.sentence_table import SentenceTable


@dataclass(frozen=True)
class Footprint:
    """What loading collection ``name`` added to this process."""

    name: str
    documents: int
    sentences: int
    nodes: int
    seconds: float
    #: Growth of the resident set (MB), mapped file pages included.
    resident_mb: float
    #: The part of it that is pages of memory-mapped files (shared, reclaimable).
    mapped_mb: float
    #: Whether the sentences and their vectors are the collection's mapped files (False: copied into this process,
    #: a collection committed before the files existed, loaded while a writer held it, or one of kgcore 0.1).
    sentence_vectors_mapped: bool = True
    #: Why they are copied (:attr:`~kgcore.index.store.sentence_matrix.Upgrade.reason`); empty when mapped.
    copied_because: str = ""
    #: Seconds spent writing the file into an older collection before the load was timed (0: nothing written).
    upgrade_seconds: float = 0.0

    @property
    def own_mb(self) -> float:
        """Resident memory that is this process's alone (its heap)."""
        return self.resident_mb - self.mapped_mb

    def line(self) -> str:
        return (f"{self.name}: {self.documents:,} documents, {self.sentences:,} sentences, {self.nodes:,} nodes; "
                f"loaded in {self.seconds:.2f} s, resident {self.resident_mb:.1f} MB ({self.own_mb:.1f} MB own, "
                f"{self.mapped_mb:.1f} MB mapped files)" + self._vectors_note())

    def _vectors_note(self) -> str:
        if not self.sentence_vectors_mapped:
            return f"; sentences and their vectors copied into this process: {self.copied_because or 'not mapped'}"
        if self.upgrade_seconds:
            return ("; sentences and their vectors first written to their mapped files in "
                    f"{self.upgrade_seconds:.2f} s (an older collection; not in the load time)")
        return ""


def process_memory() -> tuple[float, float]:
    """This process's resident MB and the part of it backed by files or shared memory."""
    info = psutil.Process().memory_info()
    return info.rss / 2 ** 20, getattr(info, "shared", 0) / 2 ** 20


def measure_load(store: Store, name: str) -> tuple[Index, Footprint]:
    """Load collection ``name`` and measure what it added to this process (its vectors and sentences read once,
    so their mapped pages count as the first question's views make them count).  An older collection's
    sentence-vector and sentence files are written first, timed apart (see the module docstring)."""
    start = time.perf_counter()
    upgraded = sentence_matrix.upgrade(store.root, store.manifest(name), lambda: store.manifest(name))
    upgrade_seconds = round(time.perf_counter() - start, 3) if upgraded.manifest is not None else 0.0
    gc.collect()
    rss, shared = process_memory()
    start = time.perf_counter()
    index = store.load(name)
    seconds = time.perf_counter() - start
    for vectors in (index.node_vectors, index.sentence_vectors):
        if vectors.size:
            vectors.sum()  # touch every mapped page, as a question does
    table = index.sentences if isinstance(index.sentences, SentenceTable) else None
    if table is not None:
        table.touch()
    gc.collect()
    after_rss, after_shared = process_memory()
    counts = index.manifest.counts
    mapped = (mapped_file(index.sentence_vectors) is not None or not index.sentence_vectors.size) and (
        table is not None or not index.sentences)
    return index, Footprint(name, counts.documents, counts.sentences, len(index.node_ids), round(seconds, 3),
                            round(after_rss - rss, 1), round(max(0.0, after_shared - shared), 1), mapped,
                            "" if mapped else upgraded.reason, upgrade_seconds)
