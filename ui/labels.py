"""Every user-facing name of a kgcore choice, in one place (parsers, backends, label types, targets, sentence orders
and roles, what indexing did to a document); a retrieval method's label is read from its registry entry
(:mod:`kgcore.query.methods`), so a newly registered method has one.

>>> METHOD_LABELS["bm25"], TYPE_LABELS["II"], label(METHOD_LABELS, "new-method")
('BM25 (keywords)', 'II · retrieval', 'new-method')
>>> ORDER_LABELS["rank"], ROLE_LABELS["front_matter"], STATUS_LABELS["reused"]
('Rank order', 'front matter', 'already indexed (reused)')
>>> RANKING_LABELS["fused"], EDGE_KIND_LABELS["shared-node"]
('Fused (alignment + BM25 + dense, propagated)', 'both ground the same rare graph node')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from kgcore.api import METHODS
from kgcore.api import RANKING_LABELS as groundedkg_rankings


class _MethodLabels(Mapping[str, str]):
    """Every registered retrieval method's label (:mod:`kgcore.query.methods`), read from the registry each time, so
    a method registered later has its label too."""

    def __getitem__(self, name: str) -> str:
        if name not in METHODS:
            raise KeyError(name)
        return METHODS.get(name).label

    def __iter__(self):
        return iter(METHODS)

    def __len__(self) -> int:
        return len(METHODS)


METHOD_LABELS: Mapping[str, str] = _MethodLabels()
#: GroundedKG's ranking of its sentences under a budget (kgcore.core.settings.RANKINGS).
RANKING_LABELS = groundedkg_rankings
PARSER_LABELS = {"srl": "SRL (spaCy frames)", "amr": "AMR (amrlib)"}
COREF_LABELS = {
    "heuristic": "Heuristic (spaCy rules, fast)",
    "fastcoref": "fastcoref (neural model)",
    "none": "None (keep pronouns)",
}
EMBEDDING_LABELS = {
    "basic": "basic: node name + its texts",
    "neighbor": "neighbor: + mean of 1-hop neighbours",
    "attention": "attention: + attention over neighbours",
}
TYPE_LABELS = {
    "I": "I · graph construction",
    "II": "II · retrieval",
    "III": "III · answer generation",
    "correct": "correct",
    "gold-not-in-document": "gold not in document",
}
#: Short stage names, for buttons and narrow tables.
STAGE_SHORT_LABELS = {
    "I": "I graph", "II": "II retrieval", "III": "III answer", "correct": "correct",
    "gold-not-in-document": "not in doc",
}
TARGETS = {
    "record": "The answer as a whole",
    "match": "A query-node match",
    "sentence": "A context sentence",
    "answer_sentence": "An answer sentence",
    "node": "A graph node",
    "edge": "A graph edge",
}

#: How the Ask page lists context sentences: by ``position`` (reading order) or by ``rank`` (the method's ranking).
ORDER_LABELS = {"reading": "Reading order", "rank": "Rank order"}
#: Sentence and paragraph roles (kgcore.core.types.ROLES); kgcore.core.types.RETRIEVABLE says which are retrieved.
ROLE_LABELS = {
    "body": "body text", "heading": "heading", "front_matter": "front matter", "title": "title", "authors": "authors",
    "abstract": "abstract", "list_item": "list item", "caption": "caption", "table": "table", "equation": "equation",
    "figure": "figure text", "footnote": "footnote", "header_footer": "running header/footer",
    "reference": "reference entry", "appendix": "appendix",
}
#: The contextual graph's edge kinds (kgcore.index.views.context_types.KINDS).
EDGE_KIND_LABELS = {
    "adjacent": "the next sentence of the document", "chunk": "a sentence and its paragraph chunk",
    "shared-node": "both ground the same rare graph node", "graph-edge": "their nodes are joined by a graph edge",
    "cross-reference": "names a section, table, figure or rule, and that part",
    "citation": "cites another document of the collection (its first chunk)",
    "related": "a chunk and the most similar chunk of another document",
}
#: What one indexing run did to one document.
STATUS_LABELS = {"added": "added", "reused": "already indexed (reused)", "failed": "failed"}
#: The "Add to collection" choice that creates a new collection.
NEW_COLLECTION = "<new…>"
#: The legend entry (and colour group) of nodes grounded in more than one document.
SHARED_GROUP = "shared by several documents"


def label(labels: Mapping[str, str], key: str) -> str:
    """The display name of ``key``, or ``key`` itself when it has none (a value from a newer version)."""
    return labels.get(key, key)


def distinct_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` with each repeated one numbered ("go → go (0.96) · 2"), for a selectbox or radio: Streamlit maps a
    choice back to its option by the label shown, so of two options shown alike the later one was always chosen
    (the reviewer picked one matched node, the label went to another).

    >>> distinct_labels(["go → go (0.96)", "Peter", "go → go (0.96)", "go → go (0.96)"])
    ['go → go (0.96) · 1', 'Peter', 'go → go (0.96) · 2', 'go → go (0.96) · 3']
    """
    repeated = {text for text, n in Counter(labels).items() if n > 1}
    seen: Counter[str] = Counter()
    out = []
    for text in labels:
        seen[text] += 1
        out.append(f"{text} · {seen[text]}" if text in repeated else text)
    return out


#: The longest quote a label's note carries (the audit database takes notes of up to 5,000 characters).
NOTE_QUOTE_CHARS = 1000


def next_best_note(sentence_id: str, quote: str) -> str:
    """The note of a III label given from one of the answer pick's next best sentences (a long quote shortened).

    >>> next_best_note("crusoe/text_3-12", "He kept a parrot called Poll.")
    'The answer pick quoted another sentence; crusoe/text_3-12 answers: “He kept a parrot called Poll.”'
    >>> len(next_best_note("s1", "word " * 1000)) < 1100
    True
    """
    if len(quote) > NOTE_QUOTE_CHARS:
        quote = quote[:NOTE_QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
    return f"The answer pick quoted another sentence; {sentence_id} answers: “{quote}”"
