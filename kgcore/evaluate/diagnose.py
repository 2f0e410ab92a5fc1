"""Automatic error-stage diagnosis of one answer against gold answers.

The decision follows the paper's error types (section 6, Table 5), first
rule that applies wins:

1. **correct** — the answer matches a gold answer: after :func:`comparable_answer`
   one contains the other (as whole words), or their content-word F1
   (:func:`content_f1`) is at least :data:`CORRECT_F1`.  Content words
   ignore stopwords and plurals, so a quoted clause "he was put in a pie by
   Mrs. McGregor" matches "Mrs. McGregor baked him into a pie" (F1 0.75),
   while an unrelated sentence scores near 0.
2. **gold-not-in-document** — no sentence of the whole document supports a
   gold answer: ``support = LEXICAL_WEIGHT·recall + (1-LEXICAL_WEIGHT)·cosine``
   where ``recall`` is the share of the gold answer's content words found in
   the sentence (original or coref-resolved, hyphens also joined) and
   ``cosine`` is between the gold answer's and the sentence's embeddings;
   every sentence stays below :data:`SUPPORT_MIN`.
3. **II (retrieval)** — the *evidence*, the supporting sentences that best
   fit question and answer together (ranked by recall and by the cosine to
   "question + gold answer", within :data:`EVIDENCE_MARGIN` of the best), is
   not in the retrieved context; and
   **I (graph construction)** when, in addition, no graph node grounded in
   an evidence sentence resembles any query node (cosine between node
   vectors below :data:`NODE_RESEMBLANCE`): the graph cannot lead from the
   question to the evidence, whatever retrieval does.
4. **III (answer generation)** — the evidence was in the context, but the
   answer does not match.

The thresholds were set on the bundled Peter Rabbit with all-MiniLM-L6-v2:
supported gold answers score 0.43–0.92, an invented one ("a purple
spaceship landed on Mars") 0.10; a query node's 10th-best match has cosine
0.45–0.47, and unrelated words score 0.2–0.42 against the nodes of a sentence.

>>> comparable_answer("The pie, [text_0-19] of Mrs. McGregor!")
'pie of mrs mcgregor'
>>> round(content_f1("he was put in a pie by Mrs. McGregor", "Mrs. McGregor baked him into a pie"), 2)
0.75
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from kgcore.core.errors import InputError
from kgcore.index.store.disk import CacheKey, Index
from kgcore.query.answer.citations import strip_markers
from kgcore.query.answer.words import content_words
from kgcore.query.match import query_node_vectors

CORRECT_F1 = 0.5
SUPPORT_MIN = 0.35
LEXICAL_WEIGHT = 0.5
EVIDENCE_MARGIN = 0.05
MAX_EVIDENCE = 3
NODE_RESEMBLANCE = 0.5
STAGES = ("correct", "gold-not-in-document", "I", "II", "III")
SENTENCE_WORDS: CacheKey[list[set[str]]] = CacheKey("diagnose_words")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NON_WORD = re.compile(r"[^a-z0-9 ]+")


@dataclass
class Diagnosis:
    """The suggested stage, why, the evidence sentence ids and the numbers behind it."""

    stage: str
    reason: str
    evidence_sentence_ids: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def artifact(self) -> tuple[str, str]:
        """(artifact kind, id) a suggestion label for this diagnosis points at."""
        if self.stage in ("I", "II") and self.evidence_sentence_ids:
            return "sentence", self.evidence_sentence_ids[0]
        return "record", ""


def comparable_answer(text: str) -> str:
    """Lower case, citation markers, punctuation and articles removed, spaces collapsed."""
    text = _NON_WORD.sub(" ", strip_markers(text or "").lower().replace("’", "'").replace("'s ", " "))
    return " ".join(_ARTICLES.sub(" ", text).split())


def content_f1(prediction: str, gold: str) -> float:
    """F1 between the content-word sets of a prediction and a gold answer (0 when either has none)."""
    pred, ref = content_words(prediction or ""), content_words(gold or "")
    common = len(pred & ref)
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def answer_match(answer_text: str, golds: list[str]) -> dict:
    """Best containment / F1 of an answer against the gold answers."""
    answer_norm = comparable_answer(answer_text)
    best: dict[str, Any] = {"gold": None, "f1": 0.0, "contains": False}
    for gold in golds:
        gold_norm = comparable_answer(gold)
        contains = bool(answer_norm and gold_norm) and (
            f" {gold_norm} " in f" {answer_norm} " or f" {answer_norm} " in f" {gold_norm} ")
        f1 = round(content_f1(answer_text, gold), 4)
        if (contains, f1) > (best["contains"], best["f1"]):
            best = {"gold": gold, "f1": f1, "contains": contains}
    best["matches"] = best["contains"] or best["f1"] >= CORRECT_F1
    return best


def _sentence_words(index: Index) -> list[set[str]]:
    """Content words of every sentence (original and resolved, hyphens also joined), built once per index."""
    def build() -> list[set[str]]:
        texts = (f"{s.original} {s.resolved}" for s in index.sentences)
        return [content_words(text) | content_words(text.replace("-", "")) for text in texts]

    return index.cache.get(SENTENCE_WORDS, build)


def gold_support(index, embedder, question: str, golds: list[str]) -> dict[str, np.ndarray]:
    """Per sentence of the document: gold recall, gold cosine, support and evidence rank (max over golds)."""
    words = _sentence_words(index)
    vectors = embedder.encode(list(golds) + [f"{question} {g}" for g in golds])
    cos_gold = np.clip(index.sentence_vectors @ vectors[: len(golds)].T, 0.0, None)
    cos_qa = np.clip(index.sentence_vectors @ vectors[len(golds):].T, 0.0, None)
    recall = np.zeros_like(cos_gold)
    for j, gold in enumerate(golds):
        gold_words = content_words(gold)
        if gold_words:
            recall[:, j] = [len(gold_words & w) / len(gold_words) for w in words]
    support = LEXICAL_WEIGHT * recall + (1 - LEXICAL_WEIGHT) * cos_gold
    rank = LEXICAL_WEIGHT * recall + (1 - LEXICAL_WEIGHT) * cos_qa
    return {"recall": recall.max(axis=1), "cosine": cos_gold.max(axis=1), "support": support.max(axis=1),
            "rank": np.where(support >= SUPPORT_MIN, rank, -1.0).max(axis=1)}


def evidence_rows(scores: dict[str, np.ndarray]) -> list[int]:
    """Rows of the best supporting sentences: within EVIDENCE_MARGIN of the best rank, at most MAX_EVIDENCE."""
    rank = scores["rank"]
    if rank.size == 0 or rank.max() < 0:
        return []
    order = np.argsort(-rank, kind="stable")
    return [int(r) for r in order[:MAX_EVIDENCE] if rank[r] >= rank[order[0]] - EVIDENCE_MARGIN]


def node_resemblance(index, embedder, query_graph, sentence_id: str) -> dict:
    """Best cosine between a query node and a graph node grounded in ``sentence_id``."""
    nodes = index.graph.nodes_in_sentence(sentence_id)
    out = {"sentence": sentence_id, "nodes": len(nodes), "cosine": 0.0, "query_node": None, "node": None}
    matchable = [n for n in query_graph.nodes if not n.is_unknown] or list(query_graph.nodes)
    if not nodes or not matchable:
        return out
    keys, query_vectors = query_node_vectors(index, query_graph, embedder)
    wanted = [keys.index(n.key) for n in matchable]
    row = index.node_row
    sims = query_vectors[wanted] @ index.node_vectors[[row[n.node_id] for n in nodes]].T
    i, j = np.unravel_index(int(np.argmax(sims)), sims.shape)
    out.update(cosine=round(float(sims[i, j]), 4), query_node=matchable[i].label, node=nodes[j].node_id)
    return out


def _evidence_details(index, scores, rows: list[int], context: set[str]) -> list[dict]:
    return [{"id": index.sentences[r].id, "text": index.sentences[r].original,
             "recall": round(float(scores["recall"][r]), 4), "cosine": round(float(scores["cosine"][r]), 4),
             "support": round(float(scores["support"][r]), 4), "rank": round(float(scores["rank"][r]), 4),
             "in_context": index.sentences[r].id in context} for r in rows]


def diagnose(result, answer, gold_answers, index, embedder) -> Diagnosis:
    """Suggest the failing stage of ``answer`` to ``result.question`` (see the module doc for the rules)."""
    given = [gold_answers] if isinstance(gold_answers, str) else list(gold_answers or [])
    golds = [g for g in given if g and g.strip()]
    if not golds:
        raise InputError("gold_answers", "give at least one gold answer to diagnose against")
    answer_text = answer.text if answer is not None else ""
    match = answer_match(answer_text, golds)
    thresholds = {"correct_f1": CORRECT_F1, "support_min": SUPPORT_MIN, "node_resemblance": NODE_RESEMBLANCE}
    details: dict[str, Any] = {"answer": match, "thresholds": thresholds, "context_size": len(result.sentences)}
    if match["matches"]:
        how = "contains" if match["contains"] else f"content-word F1 {match['f1']:.2f} ≥ {CORRECT_F1}"
        return Diagnosis("correct", f"The answer matches the gold answer {match['gold']!r} ({how}).", [], details)
    scores = gold_support(index, embedder, result.question, golds)
    best = int(np.argmax(scores["support"]))
    details["best_support"] = {"id": index.sentences[best].id, "support": round(float(scores["support"][best]), 4),
                               "recall": round(float(scores["recall"][best]), 4),
                               "cosine": round(float(scores["cosine"][best]), 4)}
    if scores["support"][best] < SUPPORT_MIN:
        return Diagnosis("gold-not-in-document", (
            f"No sentence of {index.collection!r} supports the gold answer: the best, {index.sentences[best].id}, "
            f"scores {scores['support'][best]:.2f} < {SUPPORT_MIN}."), [], details)
    rows = evidence_rows(scores)
    context = set(result.sentence_ids)
    details["evidence"] = _evidence_details(index, scores, rows, context)
    evidence = [e["id"] for e in details["evidence"]]
    if any(e["in_context"] for e in details["evidence"]):
        found = next(e["id"] for e in details["evidence"] if e["in_context"])
        return Diagnosis("III", (
            f"The supporting sentence {found} was in the context, but the answer does not match the gold answer "
            f"(content-word F1 {match['f1']:.2f} < {CORRECT_F1})."), evidence, details)
    return _retrieval_or_graph(result, index, embedder, evidence, details)


def _retrieval_or_graph(result, index, embedder, evidence: list[str], details: dict) -> Diagnosis:
    missing = ", ".join(evidence)
    if result.query_graph is None:
        details["graph"] = f"the {result.method} method builds no query graph, so the graph stage was not assessed"
        return Diagnosis("II", f"The supporting sentence(s) {missing} were not retrieved ({details['graph']}).",
                         evidence, details)
    resemblance = [node_resemblance(index, embedder, result.query_graph, sid) for sid in evidence]
    details["node_resemblance"] = resemblance
    best = max(resemblance, key=lambda r: r["cosine"])
    if best["cosine"] >= NODE_RESEMBLANCE:
        return Diagnosis("II", (
            f"The supporting sentence(s) {missing} were not retrieved although graph node {best['node']!r} grounded in "
            f"{best['sentence']} resembles query node {best['query_node']!r} (cosine {best['cosine']:.2f} ≥ "
            f"{NODE_RESEMBLANCE}): retrieval missed it."), evidence, details)
    return Diagnosis("I", (
        f"The supporting sentence(s) {missing} were not retrieved and none of the graph nodes grounded in them "
        "resembles "
        f"a query node (best cosine {best['cosine']:.2f} < {NODE_RESEMBLANCE}): the graph cannot lead from the "
        "question to the evidence."), evidence, details)
