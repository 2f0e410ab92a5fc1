"""The QA knowledge graph of a loaded collection (the graph built from generated QA pairs), cached on the index.

Nodes: one per question (``q:<pair id>``), per distinct answer (``a:<answer>``), per graph entity the pairs
mention (``e:<key>``) and per entity *type* (``t:<type>``).  Edges, each grounded in the pair's sentence:
question --<role>--> answer ("ARG0", "ARGM-LOC", ...), question --mentions--> entity, answer --is--> entity,
entity --is_a--> type.  Node vectors are the questions' and answers' (stored in the shards); node-type
vectors are the type names' embeddings, made here (a few hundred words).

An entity's types (the QA-pair graph's type-level generalisation): a common noun's head ("four little rabbits" ->
``rabbit``) and, for names, what copular pairs say they are ("Flopsy, Mopsy and Cotton-tail were good little
bunnies" -> ``bunny``), so a question about "the bunnies" reaches facts about each of them.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.qa_pair import QAPair
from kgcore.index.qa import FrameQAGenerator
from kgcore.index.store.in_memory import CacheKey, Index
from kgcore.index.store.qa_table import QATable, embed_pairs, read_qa
from kgcore.index.store.shard import read_analyses

GENERIC_TYPES = frozenset("thing one way time part side place kind sort lot".split())


@dataclass
class QAGraph:
    """Pairs of every document of a collection, their vectors and the entity/type tables."""

    pairs: list[QAPair]
    q_vectors: np.ndarray
    a_vectors: np.ndarray
    rows: np.ndarray
    labels: dict[str, str] = field(default_factory=dict)
    entity_pairs: dict[str, list[int]] = field(default_factory=dict)
    entity_types: dict[str, set[str]] = field(default_factory=dict)
    types: list[str] = field(default_factory=list)
    type_vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    by_sentence: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def subgraph(self, pair_ids: list[int]) -> dict:
        """Nodes and edges of the given pairs (for display): questions, answers, entities, types."""
        nodes: dict[str, dict] = {}
        edges: list[dict] = []
        for i in pair_ids:
            p = self.pairs[i]
            q, a = f"q:{p.id}", f"a:{p.answer.lower()}"
            nodes[q] = {"id": q, "label": p.question, "kind": "question"}
            nodes[a] = {"id": a, "label": p.answer, "kind": "answer", "answer_type": p.answer_type}
            edges.append({"source": q, "target": a, "role": p.role or p.wh, "sentence_id": p.sentence_id})
            for (key, label), source, role in [(e, q, "mentions") for e in p.entities] + \
                                              [(e, a, "is") for e in p.answer_entities]:
                nodes[f"e:{key}"] = {"id": f"e:{key}", "label": label, "kind": "entity"}
                edges.append({"source": source, "target": f"e:{key}", "role": role, "sentence_id": p.sentence_id})
                for t in sorted(self.entity_types.get(key, ())):
                    nodes[f"t:{t}"] = {"id": f"t:{t}", "label": t, "kind": "type"}
                    edges.append({"source": f"e:{key}", "target": f"t:{t}", "role": "is_a", "sentence_id": ""})
        return {"nodes": list(nodes.values()), "edges": edges}


QA_GRAPH: CacheKey[QAGraph] = CacheKey("qa-graph")


def qa_graph(index: Index, embedder: Embedder) -> QAGraph:
    """The collection's QA graph, built on first use and kept in ``index.cache``."""
    return index.cache.get(QA_GRAPH, lambda: build_qa_graph(index, embedder))


def build_qa_graph(index: Index, embedder: Embedder) -> QAGraph:
    """Read every document's pairs (generating them from the frames for shards written without) and link them."""
    tables, notes = [], []
    for doc_id, (table, generated, seconds) in document_pairs(index).items():
        if table is None:
            start = time.perf_counter()
            table = embed_pairs(generated, embedder)
            notes.append(f"{doc_id}: indexed without QA pairs; {len(table.pairs):,} generated from its frames "
                         f"on load in {seconds + time.perf_counter() - start:.1f} s (re-index to store them)")
        tables.append(table)
    pairs: list[QAPair] = []
    q_parts, a_parts = [np.zeros((0, embedder.dim), np.float32)], [np.zeros((0, embedder.dim), np.float32)]
    for t in tables:
        rows = [i for i, p in enumerate(t.pairs) if index.has_sentence(p.sentence_id)]
        pairs += [t.pairs[i] for i in rows]
        q_parts.append(t.vectors[t.q_rows[rows]])
        a_parts.append(t.vectors[t.a_rows[rows]])
    q_vectors, a_vectors = np.concatenate(q_parts), np.concatenate(a_parts)
    graph = QAGraph(pairs, q_vectors, a_vectors, np.array([index.sentence_row(p.sentence_id) for p in pairs],
                                                          dtype=np.int64), notes=notes)
    _link(graph)
    return _with_type_vectors(graph, embedder)


#: What the ``qa-kg`` answerer reads (:func:`qa_answer_graph`).
QA_ANSWER: CacheKey[QAGraph] = CacheKey("qa-answer-graph")


def qa_answer_graph(index: Index, embedder: Embedder) -> QAGraph:
    """The pairs linked to their entities and types, with the types' vectors but not the pairs': the ``qa-kg``
    answerer reads the pairs of a few context sentences, and :func:`table_for_sentences` embeds those when asked.
    On a collection indexed without pairs this takes seconds where :func:`qa_graph` embeds every pair (half a
    minute on Robinson Crusoe), so the first answer does not wait for the retrieval method's index."""
    return index.cache.get(QA_ANSWER, lambda: _with_type_vectors(replace(qa_pairs_graph(index)), embedder))


def _with_type_vectors(graph: QAGraph, embedder: Embedder) -> QAGraph:
    graph.types = sorted({t for types in graph.entity_types.values() for t in types})
    graph.type_vectors = embedder.encode(graph.types) if graph.types else np.zeros((0, embedder.dim), np.float32)
    return graph


#: Each document's stored QA table (or None), its pairs and the seconds generating them took: read or generated
#: once per loaded collection, for both :func:`qa_graph` and :func:`qa_pairs_graph`.
DOCUMENT_PAIRS: CacheKey[dict[str, tuple[QATable | None, list[QAPair], float]]] = CacheKey("qa-document-pairs")


def document_pairs(index: Index) -> dict[str, tuple[QATable | None, list[QAPair], float]]:
    """Per document of ``index`` (in manifest order): its stored QA table or None, its pairs (stored, or generated
    from its stored frames) and the seconds that took; built once and kept in ``index.cache``."""
    def build() -> dict[str, tuple[QATable | None, list[QAPair], float]]:
        return {entry.doc_id: one_document_pairs(index, entry.doc_id) for entry in index.manifest.documents}

    return index.cache.get(DOCUMENT_PAIRS, build)


def one_document_pairs(index: Index, doc_id: str) -> tuple[QATable | None, list[QAPair], float]:
    """One document's entry of :func:`document_pairs`, without generating the other documents' pairs when they
    are not built yet (each is built once either way)."""
    whole = index.cache.peek(DOCUMENT_PAIRS)
    if whole is not None:
        return whole[doc_id]

    def build() -> tuple[QATable | None, list[QAPair], float]:
        start = time.perf_counter()
        table, pairs = _stored_or_generated(index, doc_id)
        return table, pairs, time.perf_counter() - start

    return index.cache.get(CacheKey(f"qa-document-pairs:{doc_id}"), build)


def sentence_pairs(index: Index, sentence_id: str) -> list[QAPair]:
    """The pairs generated from one sentence, in their order in :func:`qa_pairs_graph`: read from it when built,
    else from the sentence's document alone (the Sentence page on the 40 ObliQA documents otherwise generated
    every document's pairs first, about 16 s)."""
    graph = index.cache.peek(QA_PAIRS)
    if graph is not None:
        return [graph.pairs[i] for i in graph.by_sentence.get(sentence_id, ())]
    return [p for p in one_document_pairs(index, _document_of(index, sentence_id))[1] if p.sentence_id == sentence_id]


def _document_of(index: Index, sentence_id: str) -> str:
    """The document of a sentence (a collection written before kgcore 0.2 leaves it empty: its only document)."""
    return index.sentence(sentence_id).doc_id or index.manifest.doc_ids[0]


def _stored_or_generated(index: Index, doc_id: str) -> tuple[QATable | None, list[QAPair]]:
    """A document's stored QA table and its pairs, or (None, its pairs generated from its stored frames)."""
    folder = index.shard_path(doc_id)
    table = read_qa(folder)
    if table is not None:
        return table, table.pairs
    sentences = [s for s in index.sentences if s.doc_id == doc_id or not s.doc_id]
    return None, FrameQAGenerator().generate(sentences, read_analyses(folder))


#: The pairs alone (no vectors), for views; the whole :data:`QA_GRAPH` is used when it is already built.
QA_PAIRS: CacheKey[QAGraph] = CacheKey("qa-pairs")


def qa_pairs_graph(index: Index) -> QAGraph:
    """The collection's pairs linked to their entities and sentences, without vectors: what the QA views read.

    Generating a novel's pairs from its frames takes about a second; embedding them (what :func:`qa_graph` adds
    for retrieval) about a minute, so a view never waits for that.
    """
    return index.cache.get(QA_PAIRS, lambda: _pairs_only(index))


def grounding_pairs_graph(index: Index, sentence_ids: Iterable[str]) -> QAGraph:
    """:func:`qa_pairs_graph` restricted to the documents of ``sentence_ids`` (an entity's grounding: every pair
    mentioning the entity is asked from a sentence that grounds it), generating no other document's pairs; the
    whole view itself when it is built.  The Entity page on the 40 ObliQA documents otherwise generated all
    their pairs first (about 17 s)."""
    whole = index.cache.peek(QA_PAIRS)
    if whole is not None:
        return whole
    wanted = {_document_of(index, s) for s in sentence_ids if index.has_sentence(s)}
    return _pairs_only(index, [d for d in index.manifest.doc_ids if d in wanted])


def _pairs_only(index: Index, documents: list[str] | None = None) -> QAGraph:
    per_document = ([one_document_pairs(index, d) for d in documents] if documents is not None
                    else document_pairs(index).values())
    pairs = [p for _table, generated, _s in per_document for p in generated if index.has_sentence(p.sentence_id)]
    empty = np.zeros((0, 0), np.float32)
    graph = QAGraph(pairs, empty, empty, np.array([index.sentence_row(p.sentence_id) for p in pairs], np.int64))
    _link(graph)
    return graph


def _link(graph: QAGraph) -> None:
    """Fill the entity, type and sentence tables of ``graph`` from its pairs."""
    entity_pairs: dict[str, list[int]] = defaultdict(list)
    types: dict[str, set[str]] = defaultdict(set)
    by_sentence: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(graph.pairs):
        by_sentence[p.sentence_id].append(i)
        for key, label in p.entities + p.answer_entities:
            graph.labels.setdefault(key, label)
            if not entity_pairs[key] or entity_pairs[key][-1] != i:
                entity_pairs[key].append(i)
            if not label[:1].isupper() and label.split()[-1].lower() not in GENERIC_TYPES:
                types[key].add(label.split()[-1].lower())
        for named, kinds in _copula_types(p):
            types[named] |= kinds
    graph.entity_pairs, graph.entity_types, graph.by_sentence = dict(entity_pairs), dict(types), dict(by_sentence)


def _copula_types(p: QAPair) -> list[tuple[str, set[str]]]:
    """(name key, its types) said by a copular pair: "What were Flopsy, Mopsy ...?" -> "good little bunnies"."""
    if p.predicate != "be" or p.source != "frames" or p.wh != "what" or p.role != "ARG2":
        return []
    names, nouns = p.entities, p.answer_entities
    kinds = {label.split()[-1].lower() for _, label in nouns if not label[:1].isupper()} - GENERIC_TYPES
    return [(key, kinds) for key, label in names if label[:1].isupper()] if kinds else []


def table_for_sentences(graph: QAGraph, sentence_ids: list[str],
                        embedder: Embedder | None = None) -> tuple[list[int], QATable]:
    """(pair indices, a table of just those pairs) grounded in ``sentence_ids`` (the answerer's view); the pairs
    are embedded here with ``embedder`` when ``graph`` carries no pair vectors (:func:`qa_answer_graph`)."""
    ids = [i for sid in dict.fromkeys(sentence_ids) for i in graph.by_sentence.get(sid, ())]
    if len(graph.q_vectors) != len(graph.pairs):
        if embedder is None:
            raise ValueError("this QA graph has no pair vectors: pass the embedder to embed the selected pairs")
        return ids, embed_pairs([graph.pairs[i] for i in ids], embedder)
    n = len(ids)
    vectors = np.concatenate([graph.q_vectors[ids], graph.a_vectors[ids]]) if ids else graph.q_vectors[:0]
    return ids, QATable([graph.pairs[i] for i in ids], np.arange(n), np.arange(n, 2 * n), vectors)
