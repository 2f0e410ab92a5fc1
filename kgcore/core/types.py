"""Small value types shared by every pipeline stage.

The graph types follow section 3.1 of the GroundedKG-RAG paper: a node has
``node_id, label, texts, node_type, grounded_texts``; an edge has
``source, target, edge_role, edge_type, grounded_texts``.  Sentence ids are
the paper's ``text_{chunk}-{sentence}`` behind the document id, so they stay
unique in a collection of documents: ``peter-rabbit/text_0-1``.

>>> s = Sentence(sentence_id(0, 1, "peter-rabbit"), 0, 1, 1, "He ran.", "He ran.", "Peter ran.", "peter-rabbit")
>>> s.id, split_sentence_id(s.id)
('peter-rabbit/text_0-1', ('peter-rabbit', 'text_0-1'))
>>> n = Node("peter", "Peter", ["Peter", "little Peter"], "entity", ["text_0-1"])
>>> Node.from_dict(n.to_dict()) == n
True
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from typing import Literal, cast

# Re-exported: kgcore has always imported the roles, sentence ids and answer types from here.
from kgcore.core.answers import Answer, Citation  # noqa: F401
from kgcore.core.deprecation import renamed_attribute
from kgcore.core.interned import interned, shared_fields
from kgcore.core.roles import *  # noqa: F403 -- every role, re-exported (roles.__all__)
from kgcore.core.roles import BODY
from kgcore.core.sentence_ids import SENTENCE_ID_PATTERN, sentence_id, split_sentence_id  # noqa: F401
from kgcore.core.verdicts import Verdict  # noqa: F401

NodeType = Literal["entity", "action"]
EdgeType = Literal["action-entity", "action-action", "entity-entity"]

ENTITY: NodeType = "entity"
ACTION: NodeType = "action"
ACTION_ENTITY: EdgeType = "action-entity"
ACTION_ACTION: EdgeType = "action-action"
ENTITY_ENTITY: EdgeType = "entity-entity"
NEXT = "next"


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document as stored: the paper's 4-tuple, its position and its provenance.

    ``original`` is the text as it appears in the (re-flowed) source,
    ``normalized`` has whitespace and quotes cleaned, ``resolved`` has
    pronouns replaced by their antecedents (equal to ``normalized`` when
    coreference changed nothing).  ``position`` counts over the whole
    collection in reading order.  Provenance: ``doc_id``, the ``paragraph``
    (index into the document's paragraphs), its ``section`` heading, the
    PDF ``page`` (0 without pages), the ``start``/``end`` character span in
    the document text (-1 when unknown) and the ``role`` (:data:`ROLES`).
    """

    id: str
    chunk: int
    index: int
    position: int
    original: str
    normalized: str
    resolved: str
    doc_id: str = ""
    paragraph: int = -1
    section: str = ""
    page: int = 0
    start: int = -1
    end: int = -1
    role: str = BODY
    #: Reference entries (``ref-12``) the sentence's citation markers resolve to (papers).
    citations: tuple[str, ...] = ()
    #: Where the sentence is printed: (page, x0, y0, x1, y1) per line, points from the page's top-left (PDFs).
    boxes: tuple[tuple[int, float, float, float, float], ...] = ()

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Sentence:
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        values["citations"] = tuple(values.get("citations", ()))
        values["boxes"] = tuple(tuple(b) for b in values.get("boxes", ()))
        return cls(**shared_fields(values))


@dataclass(frozen=True)
class Argument:
    """One semantic-role argument of a frame.

    ``text`` is the argument span as written (``to Peter``); ``label`` the
    core concept used as node label (``Peter``); ``key`` the normalised key
    that merges entity nodes across sentences (``peter``).  ``start``/``end``
    are character offsets in the parsed (coref-resolved) sentence.
    """

    role: str
    text: str
    label: str
    key: str
    start: int = -1
    end: int = -1


@dataclass(frozen=True)
class Frame:
    """One predicate with its arguments (PropBank style).

    ``predicate`` is the action label including negation (``not have``);
    ``text`` is the predicate as written (``gave``).
    """

    predicate: str
    text: str
    arguments: tuple[Argument, ...] = ()
    negated: bool = False
    start: int = -1
    end: int = -1

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Frame:
        args = tuple(Argument(**a) for a in data.get("arguments", ()))
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data and k != "arguments"}
        return cls(arguments=args, **fields)


@dataclass(frozen=True)
class LocalNode:
    """A node of one sentence's graph, before merging into the document graph.

    ``key`` is unique within the sentence.  Entities carry ``merge_key``
    (the normalised head mention) so equal entities of different sentences
    become one node; actions have ``merge_key=None`` and stay per occurrence.
    ``order`` is the surface position used to order ``next`` edges.
    """

    key: str
    label: str
    texts: tuple[str, ...]
    node_type: NodeType
    merge_key: str | None = None
    order: int = 0
    is_unknown: bool = False


@dataclass(frozen=True)
class LocalEdge:
    source: str
    target: str
    edge_role: str
    edge_type: EdgeType


@dataclass(frozen=True)
class SentenceGraph:
    """The graph Φ produced for one sentence (or one question).

    ``analysis`` keeps what the parser saw so it can be shown later: SRL
    frames as dicts under ``frames``, an AMR parse under ``penman``.
    """

    sentence_id: str
    nodes: tuple[LocalNode, ...]
    edges: tuple[LocalEdge, ...]
    analysis: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(slots=True)
class Node:
    """A GroundedKG node (paper section 3.1).  Slots, no instance dict: the 100,000-document linked graph (1.3
    million nodes, 2.2 million edges) holds 1,508 MB instead of 1,668 MB."""

    node_id: str
    label: str
    texts: list[str]
    node_type: NodeType
    grounded_texts: list[str]

    def to_dict(self) -> dict:
        """The fields as plain data (written by hand: ``asdict`` took 4 s for a novel's 80,000 nodes and edges)."""
        return {"node_id": self.node_id, "label": self.label, "texts": list(self.texts), "node_type": self.node_type,
                "grounded_texts": list(self.grounded_texts)}

    @classmethod
    def from_dict(cls, data: dict) -> Node:
        return cls(
            node_id=sys.intern(data["node_id"]),
            label=sys.intern(data["label"]),
            texts=interned(data["texts"]),
            node_type=cast(NodeType, sys.intern(data["node_type"])),
            grounded_texts=interned(data["grounded_texts"]),
        )


@dataclass(slots=True)
class Edge:
    """A GroundedKG edge (paper section 3.1)."""

    source: str
    target: str
    edge_role: str
    edge_type: EdgeType
    grounded_texts: list[str]

    def to_dict(self) -> dict:
        """The fields as plain data (see :meth:`Node.to_dict`)."""
        return {"source": self.source, "target": self.target, "edge_role": self.edge_role,
                "edge_type": self.edge_type, "grounded_texts": list(self.grounded_texts)}

    @classmethod
    def from_dict(cls, data: dict) -> Edge:
        return cls(
            source=sys.intern(data["source"]),
            target=sys.intern(data["target"]),
            edge_role=sys.intern(data["edge_role"]),
            edge_type=cast(EdgeType, sys.intern(data["edge_type"])),
            grounded_texts=interned(data["grounded_texts"]),
        )


@dataclass
class Match:
    """One graph node retrieved for one query node, with its cosine score."""

    query_node: str
    node_id: str
    label: str
    texts: list[str]
    node_type: NodeType
    score: float
    rank: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SelectedSentence:
    """A context sentence and why it was selected.

    ``selected_by`` holds the matched node ids grounded in the sentence,
    ``query_nodes`` the query nodes whose matches selected it,
    ``retrieval_count`` the paper's RetCount, ``similarity`` the cosine to
    the question and ``score`` the method's ranking score.  ``aligned``
    (GroundedKG) says why it ranked: per query node, the sentence's node it
    aligned to, with evidence and the query nodes it is linked to here
    (:func:`kgcore.query.align.aligned_nodes`).
    """

    id: str
    position: int
    text: str
    resolved: str
    selected_by: list[str] = field(default_factory=list)
    query_nodes: list[str] = field(default_factory=list)
    retrieval_count: int = 0
    similarity: float = 0.0
    score: float = 0.0
    aligned: list[dict] = field(default_factory=list)
    #: Provenance: the document, its source file name, the PDF page and the section heading.
    document: str = ""
    source_file: str = ""
    page: int = 0
    section: str = ""
    #: Position in the method's ranking (1 = best), for "rank order"; ``position`` gives reading order.
    rank: int = 0
    #: The sentence's role (body, caption, footnote ...) and the reference entries its markers cite.
    role: str = BODY
    citations: list[str] = field(default_factory=list)
    #: Why it ranked, for the rankings over the contextual graph (``lesegr``, fused GroundedKG): its lexical,
    #: dense and graph relevance, its own and propagated score, and the neighbours that lifted it.
    signals: dict = field(default_factory=dict)
    #: The context unit the sentence came in: a community id (``L0.3``) when it backs that community's summary
    #: (``community``, ``hybrid-summaries``; see ``QueryResult.summaries``), "" for a sentence retrieved alone.
    unit: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class QueryResult:
    """Everything a retrieval method did for one question.

    ``sentences`` are in document order.  ``candidates`` is how many
    sentences the method considered before filters and budgets (for
    GroundedKG: the size of the paper's union).
    """

    question: str
    method: str
    collection: str
    query_graph: SentenceGraph | None
    matches: list[Match]
    sentences: list[SelectedSentence]
    settings: dict
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)
    candidates: int = 0
    #: ``qa-kg``: the ranked question–answer pairs behind the context, with why each ranked.
    qa_pairs: list[dict] = field(default_factory=list)
    #: ``community`` / ``hybrid-summaries``: the community summaries in the context, best first (community, title,
    #: level, score, kind, claims with their sentence ids, and ``sentence_ids``: the context sentences backing it).
    summaries: list[dict] = field(default_factory=list)
    #: Names read in the collection's spelling, written -> read as; ``question`` is the respelt question.
    respelled: dict[str, str] = field(default_factory=dict)
    #: The question as written, when it was respelt ("" otherwise).
    asked: str = ""

    doc_id = renamed_attribute("doc_id", "collection")

    @property
    def context_words(self) -> int:
        return sum(len(s.text.split()) for s in self.sentences)

    @property
    def sentence_ids(self) -> list[str]:
        return [s.id for s in self.sentences]
