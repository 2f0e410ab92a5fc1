"""Views of a collection: its entities, communities, contextual graph, sources and citations.

Each is built from a loaded :class:`~kgcore.index.store.Index` on first use (``kgcore.index.views``).
"""

from __future__ import annotations

from kgcore.index.views.cites import (
    Citation,
    CitationEdge,
    CitingDocument,
    citation_graph,
    collection_citation_graph,
    collection_citing,
)
from kgcore.index.views.communities.listed import listed as listed_communities
from kgcore.index.views.communities.overview import hidden_note as communities_hidden_note
from kgcore.index.views.communities.overview import overview_markdown as communities_overview_markdown
from kgcore.index.views.communities.stored import CommunityIndex, communities
from kgcore.index.views.communities.summaries import Summary
from kgcore.index.views.context_types import KINDS, ContextGraph
from kgcore.index.views.contextual import DocumentCitation, context_graph, document_citations, neighbours
from kgcore.index.views.entities.decisions import AMBIGUOUS_PART, CONFIRMED, SAME_NAME_APART, SPLIT, Merge
from kgcore.index.views.entities.describe import DESCRIPTIONS, Description, entity_description
from kgcore.index.views.entities.entity import EntityGroup
from kgcore.index.views.entities.model import entity_groups, entity_of
from kgcore.index.views.entities.neighbours import MAX_NEIGHBOURS, Neighbour, entity_neighbours, is_junk_neighbour
from kgcore.index.views.entities.outcome import SharedName
from kgcore.index.views.entities.overview import (
    collection_overview,
    entity_links,
    joining_sentence,
)
from kgcore.index.views.entities.overview import (
    overview_markdown as entities_overview_markdown,
)
from kgcore.index.views.entities.resolve import resolution
from kgcore.index.views.entities.review import ReviewItem, Side, record, review_queue
from kgcore.index.views.entities.types import type_set_of
from kgcore.index.views.junk import is_junk_label
from kgcore.index.views.pages import EntityPages, entity_pages, typed_edges
from kgcore.index.views.prepare import prepare_views, view_steps
from kgcore.index.views.source import Passage, page_regions, passage, render_page, sentence_boxes

__all__ = ["AMBIGUOUS_PART", "CONFIRMED", "Citation", "CitationEdge", "CitingDocument", "citation_graph",
    "collection_citation_graph", "CommunityIndex", "ContextGraph", "DESCRIPTIONS", "EntityPages", "entity_pages",
    "typed_edges",
    "Description", "DocumentCitation", "EntityGroup", "KINDS", "Merge", "Passage", "ReviewItem", "SAME_NAME_APART",
    "SPLIT", "SharedName", "Side", "Summary", "collection_citing", "collection_overview", "communities",
    "communities_hidden_note", "communities_overview_markdown", "context_graph", "document_citations",
    "entities_overview_markdown",
    "entity_description", "entity_groups", "entity_links", "entity_neighbours", "is_junk_neighbour", "MAX_NEIGHBOURS",
    "Neighbour", "entity_of", "is_junk_label", "joining_sentence",
    "listed_communities", "neighbours",
    "page_regions", "passage", "prepare_views", "record", "render_page", "resolution", "review_queue", "sentence_boxes",
    "type_set_of", "view_steps"]
