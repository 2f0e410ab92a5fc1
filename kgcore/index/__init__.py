"""Indexing: from a file to a stored grounded knowledge graph.

    load -> clean -> sentences -> coref (+ narrator) -> parse (srl | amr) -> graph -> embed -> store

One module (or subpackage) per stage; :mod:`~kgcore.index.pipeline` runs
them in order and :mod:`~kgcore.index.store` keeps the result on disk with a
typed :class:`~kgcore.index.manifest.Manifest`.
"""
