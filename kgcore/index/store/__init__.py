"""The stored collection: what indexing leaves on disk, and the collection loaded back into memory.

A store root holds one folder per collection (:class:`Store`, :mod:`~kgcore.index.store.disk`).  A collection is
its documents' *shards*, each written once when the document is added (:mod:`~kgcore.index.store.shard`, with
the document's QA pairs, :mod:`~kgcore.index.store.qa_table`), and a *linked* graph joining them
(:mod:`~kgcore.index.store.link`), grown by append generations (:mod:`~kgcore.index.store.generations`) and
described by a typed manifest (:mod:`~kgcore.index.store.collection`, each document's
:mod:`~kgcore.index.store.manifest`).  :class:`CollectionWriter` (:mod:`~kgcore.index.store.writer`) is the only
code that changes a collection: under a lock (:mod:`~kgcore.index.store.locks`), with every file's digest
recorded (:mod:`~kgcore.index.store.integrity`), committed atomically, and what a stopped writer left removed
(:mod:`~kgcore.index.store.recovery`).  :meth:`Store.load` returns an :class:`Index`
(:mod:`~kgcore.index.store.in_memory`): everything retrieval and the app read.  The Chroma copy
(:mod:`~kgcore.index.store.chroma`) and stores written by kgcore 0.1 (:mod:`~kgcore.index.store.legacy`) live
here too.

The store never imports a build stage (``kgcore.index``) or a view (``kgcore.index.views``): it keeps what they
make and reads it back, whatever made it.

>>> from kgcore.index.store import Index, Store
>>> Store("data").root.name
'data'
"""

from kgcore.index.store.collection import CollectionManifest
from kgcore.index.store.disk import Store
from kgcore.index.store.in_memory import Index
from kgcore.index.store.manifest import Manifest
from kgcore.index.store.writer import CollectionWriter

__all__ = ["CollectionManifest", "CollectionWriter", "Index", "Manifest", "Store"]
