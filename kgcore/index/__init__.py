"""Indexing: from a file to a stored grounded knowledge graph, in three rooms.

**Build stages** (this package's own modules): one module or subpackage per step of building a document's
shard, in the order :mod:`~kgcore.index.build` runs them::

    load (pdf/, clean) -> sentences -> coref/ (+ narrator, speakers) -> parse/ (srl | amr) -> graph
        -> embed (kgcore.core.embed) -> qa/

:mod:`~kgcore.index.bounds` caps the work one input can cause; :mod:`~kgcore.index.workers` and
:mod:`~kgcore.index.ray_runner` build many documents at once; :mod:`~kgcore.index.pipeline` conducts the three
rooms: it plans, runs the stages, commits the shards to the store and, when asked, builds a view at indexing.

**The stored collection** (:mod:`kgcore.index.store`): shards, the linked graph, manifests, locks, integrity,
the Chroma copy, and the collection loaded back (``Store`` and ``Index``).

**Views** (:mod:`kgcore.index.views`): what is derived from a loaded collection on first use: the contextual
graph, entities, communities, where a sentence comes from, who cites a work.

Stages never import views; the store imports neither stages nor views (``tests/unit/test_layers.py``).  A new
stage is a module here, called from :mod:`~kgcore.index.build`; a new view a module under ``views/`` that takes
an ``Index``.
"""
