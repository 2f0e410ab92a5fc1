"""Small value types shared by every pipeline stage.

The graph types follow section 3.1 of the GroundedKG-RAG paper: a node has
``node_id, label, texts, node_type, grounded_texts``; an edge has
``source, target, edge_role, edge_type, grounded_texts``.  Sentence ids are
``text_{chunk}-{sentence}`` as in the paper.

>>> s = Sentence("text_0-1", 0, 1, 1, "He ran.", "He ran.", "Peter ran.")
>>> s.id
'text_0-1'
>>> n = Node("peter", "Peter", ["Peter", "little Peter"], "entity", ["text_0-1"])
>>> Node.from_dict(n.to_dict()) == n
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

NodeType = Literal["entity", "action"]
EdgeType = Literal["action-entity", "action-action", "entity-entity"]

ENTITY: NodeType = "entity"
ACTION: NodeType = "action"
ACTION_ENTITY: EdgeType = "action-entity"
ACTION_ACTION: EdgeType = "action-action"
ENTITY_ENTITY: EdgeType = "entity-entity"
NEXT = "next"


def sentence_id(chunk: int, index: int) -> str:
    """The paper's sentence id.

    >>> sentence_id(1, 9)
    'text_1-9'
    """
    return f"text_{chunk}-{index}"


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document as stored: the paper's 4-tuple plus its position.

    ``original`` is the text as it appears in the (re-flowed) source,
    ``normalized`` has whitespace and quotes cleaned, ``resolved`` has
    pronouns replaced by their antecedents (equal to ``normalized`` when
    coreference changed nothing).
    """

    id: str
    chunk: int
    index: int
    position: int
    original: str
    normalized: str
    resolved: str

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Sentence:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Document:
    """A loaded, cleaned document before sentence splitting."""

    name: str
    text: str
    paragraphs: tuple[str, ...]
    source_path: str = ""
    source_sha256: str = ""


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


@dataclass
class Node:
    """A GroundedKG node (paper section 3.1)."""

    node_id: str
    label: str
    texts: list[str]
    node_type: NodeType
    grounded_texts: list[str]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Node:
        return cls(
            node_id=data["node_id"],
            label=data["label"],
            texts=list(data["texts"]),
            node_type=data["node_type"],
            grounded_texts=list(data["grounded_texts"]),
        )


@dataclass
class Edge:
    """A GroundedKG edge (paper section 3.1)."""

    source: str
    target: str
    edge_role: str
    edge_type: EdgeType
    grounded_texts: list[str]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Edge:
        return cls(
            source=data["source"],
            target=data["target"],
            edge_role=data["edge_role"],
            edge_type=data["edge_type"],
            grounded_texts=list(data["grounded_texts"]),
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
    doc_id: str
    query_graph: SentenceGraph | None
    matches: list[Match]
    sentences: list[SelectedSentence]
    settings: dict
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)
    candidates: int = 0

    @property
    def context_words(self) -> int:
        return sum(len(s.text.split()) for s in self.sentences)

    @property
    def sentence_ids(self) -> list[str]:
        return [s.id for s in self.sentences]


@dataclass
class Citation:
    """Links one answer sentence to the context sentences that support it."""

    answer_sentence: str
    sentence_ids: list[str]
    scores: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Answer:
    """A generated or extracted answer with its citations and provenance."""

    text: str
    generator: str
    model: str
    citations: list[Citation] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    prompt: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)
