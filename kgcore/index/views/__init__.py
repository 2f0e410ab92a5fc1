"""Views of a loaded collection: what is derived from its stored graph and sentences on first use.

Each view reads an :class:`~kgcore.index.store.Index`, builds its structure the first time it is asked for, and
keeps it beside the collection (in memory, and on disk where building is slow) until the collection changes:

* :mod:`~kgcore.index.views.contextual`: the contextual graph that LeSeGR (lexical-semantic graph retrieval) and
  GroundedKG's fused ranking walk: sentence and chunk nodes and weighted edges, explicit cross-references and
  citations among them (:mod:`~kgcore.index.views.crossrefs`);
* :mod:`~kgcore.index.views.entities`: the cross-document entity graph with descriptions (Suryawanshi et al.
  2025): ENTITY nodes resolved into entities, their types, relations and the review of merges;
* :mod:`~kgcore.index.views.communities`: communities of the entity graph and their grounded summaries
  (as GraphRAG's community reports);
* :mod:`~kgcore.index.views.source`: where a sentence comes from (its paragraph, its PDF page);
* :mod:`~kgcore.index.views.cites`: which documents of a collection cite a work.

Views may read the store and use the build stages' models (the parser, the embedder); no build stage and nothing
in the store imports a view.
"""
