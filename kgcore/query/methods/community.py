"""Retrieval over community summaries: ``community`` and ``hybrid-summaries`` (community summaries retrieved with text).

Both read the collection's stored communities (:func:`kgcore.index.views.communities.communities`, computed once per
collection generation) and rank their summaries by the cosine of the summary vector to the question; no
graph work happens at query time.  A summary enters the context as its **sentences** (the extractive summary's
sentences, or the sentences an abstractive report cites), each marked with ``unit`` = the community id, and the
result lists the summaries (:attr:`~kgcore.core.types.QueryResult.summaries`), so every answer still cites
sentence ids.  Both obey the budget rule of every method (:func:`~kgcore.query.context.budget_positions`) and
the ``documents`` scope (a summary's sentences outside the scope are left out; a summary with none left is
skipped).

* ``community`` (GraphRAG-global-like): the best summaries, one after another, until the word budget (without
  one: the best ``k``).
* ``hybrid-summaries``: the top :data:`K_SENTENCES` sentences of the dense+BM25 ``hybrid`` ranking and the top
  :data:`S_SUMMARIES` summaries jointly, interleaved in the ratio k:s.  Both are the community-summaries study's numbers
  at :data:`REFERENCE_WORDS` words and scale with the word budget (at 500 words: 5 sentences and 1 summary); when they
  leave words free, further hybrid sentences fill them, so methods are compared at equal words.
"""

from __future__ import annotations

import numpy as np

from kgcore.core.embed import Embedder
from kgcore.core.settings import RetrievalOptions, Settings
from kgcore.core.timing import Timer
from kgcore.core.types import QueryResult, SelectedSentence
from kgcore.index.store.disk import Index
from kgcore.index.views.communities import CommunityIndex, communities
from kgcore.index.views.communities import units as summary_units
from kgcore.query.context import budget_positions, question_vector, selected_sentence, sentence_words
from kgcore.query.methods import hybrid
from kgcore.query.methods.base import RANKED, Method, Models
from kgcore.query.sentence_ranking import ranked_rows

K_SENTENCES = 20
S_SUMMARIES = 5
#: The word budget at which ``hybrid-summaries`` takes exactly K_SENTENCES sentences and S_SUMMARIES summaries.
REFERENCE_WORDS = 2000

#: Hybrid-ranked sentences considered at most (a budget of 2,000 words never reaches further).
MAX_SENTENCES = 1000
#: Summaries ranked per question at most (more never fit a budget of 2,000 words).
MAX_UNITS = 200
#: Summaries asked of Chroma per question (five times as many as are ever ranked: on ObliQA's 8,522 summaries 400
#: held 99.8 % of the exact best 200, 1,000 all of them), then scored exactly.
CHROMA_POOL = 5 * MAX_UNITS
#: One context unit: (community id or "" for a lone sentence, its sentence rows, its score).
Unit = tuple[str, list[int], float]


def quotas(budget_words: int) -> tuple[int, int]:
    """(sentences, summaries) of ``hybrid-summaries`` for a word budget (0: no budget, the study's 20 and 5).

    >>> quotas(0), quotas(2000), quotas(1000), quotas(500)
    ((20, 5), (20, 5), (10, 2), (5, 1))
    """
    if not budget_words:
        return K_SENTENCES, S_SUMMARIES
    scale = budget_words / REFERENCE_WORDS
    return max(1, round(K_SENTENCES * scale)), max(1, int(S_SUMMARIES * scale))


def interleave(sentences: list[Unit], summaries: list[Unit], k: int, s: int) -> list[Unit]:
    """The first ``k`` sentences and ``s`` summaries in the ratio k:s (summaries spread evenly), then the rest
    of the sentences.

    >>> [u[0] or u[1][0] for u in interleave([("", [i], 0) for i in range(6)], [("A", [9], 0), ("B", [8], 0)], 4, 2)]
    [0, 1, 'A', 2, 3, 'B', 4, 5]
    """
    head, rest = sentences[:k], sentences[k:]
    chosen = summaries[:s]
    out: list[Unit] = []
    step = len(head) / max(len(chosen), 1)
    for i, summary in enumerate(chosen):
        out += head[round(i * step):round((i + 1) * step)]
        out.append(summary)
    out += head[round(len(chosen) * step):] if chosen else head
    return out + rest


def retrieve_community(index: Index, question: str, options: RetrievalOptions, embedder: Embedder,
                       settings: Settings | None = None, use_chroma: bool = False) -> QueryResult:
    """Run ``community`` or ``hybrid-summaries`` (``options.method``) on ``index``; with ``use_chroma`` the
    summaries are found in the Chroma copy's ``summaries`` collection (:func:`summary_order`), except within chosen
    documents: Chroma cannot filter on "has a sentence in these documents", so they are ranked exactly there."""
    timer = Timer()
    with timer.step("communities"):
        ci = communities(index, embedder, settings)
    with timer.step("embed"):
        q, sims = question_vector(index, embedder, question)
    with timer.step("match"):
        scope = index.sentence_scope(options.documents, options.front_matter)
        summaries = _ranked_summaries(index, ci, q, scope, use_chroma and not options.documents)
        if options.method == "hybrid-summaries":
            rows, scores = ranked_rows(index, hybrid.ranking, question, sims, scope)
            lone = [("", [r], sc) for r, sc in zip(rows[:MAX_SENTENCES], scores[:MAX_SENTENCES])]
            k, s = quotas(options.budget_words)
            units = interleave(lone, summaries, k, s)
            if not options.budget_words and not options.budget_sentences:
                units = units[:k + s]
        else:
            units = summaries if options.budget_words or options.budget_sentences else summaries[:options.k]
    with timer.step("select"):
        kept, used = _select(index, units, sims, options)
    timer.ms.setdefault("parse", 0.0)
    timer.ms["retrieval"] = timer.total("parse", "embed", "match", "select")
    result = QueryResult(question, options.method, index.collection, None, [], kept, options.to_dict(), timer.ms, [],
                         len(ci.summaries))
    result.summaries = [_summary_dict(ci, cid, score, rank, ids) for rank, (cid, ids, score) in enumerate(used, 1)]
    if not ci.summaries:
        result.notes.append("The collection has no communities (no entity is linked to another).")
    elif not summaries:
        result.notes.append("No community summary has a sentence in the chosen documents.")
    return result


def _ranked_summaries(index: Index, ci: CommunityIndex, q: np.ndarray, scope: np.ndarray | None,
                      use_chroma: bool = False) -> list[Unit]:
    """Every summary with a sentence in scope, as a unit of its in-scope rows, best first."""
    if not len(ci.vectors):
        return []
    scores = ci.vectors @ q
    out: list[Unit] = []
    for i in summary_order(index, ci, q, scores) if use_chroma else \
            np.argsort(-scores, kind="stable").tolist():
        rows = [index.sentence_row(sid) for sid in ci.summaries[i].sentence_ids if index.has_sentence(sid)]
        rows = [r for r in rows if scope is None or scope[r]]
        if rows:
            out.append((ci.summaries[i].community, rows, float(scores[i])))
            if len(out) == MAX_UNITS:
                break
    return out


def summary_order(index: Index, ci: CommunityIndex, q: np.ndarray, scores: np.ndarray) -> list[int]:
    """Summary rows best first, found in the Chroma copy (written there first when it holds another build).

    Chroma's search is approximate: its best :data:`CHROMA_POOL` summaries are ranked again by their exact
    cosine, ties in row order (a parent community can share its child's summary), so the order equals exact
    search whenever the pool holds the summaries that fit a budget (at most :data:`MAX_UNITS` are ever ranked).
    """
    row = {s.community: r for r, s in enumerate(ci.summaries)}
    hits = summary_units.nearest(index.chroma_copy, ci, index.manifest.stamp, q, CHROMA_POOL)
    found = [row[c] for c, _ in hits if c in row]
    return sorted(found, key=lambda r: (-float(scores[r]), r))  # as exact search: stable by row on equal scores


def _select(index: Index, units: list[Unit], sims: np.ndarray,
            options: RetrievalOptions) -> tuple[list[SelectedSentence], list[tuple[str, list[str], float]]]:
    """Flatten units into sentences (each once) under the budget; the summaries that got a sentence in."""
    flat: list[tuple[int, str, float]] = []
    seen: set[int] = set()
    for unit, rows, score in units:
        for r in rows:
            if r not in seen:
                seen.add(r)
                flat.append((r, unit, score))
    words = sentence_words(index)
    places = budget_positions([int(words[r]) for r, _, _ in flat], options.budget_sentences, options.budget_words)
    kept: list[SelectedSentence] = []
    used: dict[str, tuple[str, list[str], float]] = {}
    for rank, p in enumerate(places, 1):
        row, unit, score = flat[p]
        sentence = selected_sentence(index, row, similarity=round(float(sims[row]), 4), score=round(score, 4),
                                     rank=rank)
        sentence.unit = unit
        kept.append(sentence)
        if unit:
            used.setdefault(unit, (unit, [], score))[1].append(sentence.id)
    return sorted(kept, key=lambda s: s.position), list(used.values())


def _summary_dict(ci: CommunityIndex, community_id: str, score: float, rank: int, ids: list[str]) -> dict:
    summary = ci.summary(community_id)
    community = ci.community(community_id)
    return {"community": community_id, "title": summary.title, "level": community.level, "rank": rank,
            "score": round(score, 4), "kind": summary.kind, "text": summary.text,
            "claims": [{"text": c.text, "sentence_ids": list(c.sentence_ids), "part": c.part} for c in summary.claims],
            "entities": list(summary.entities[:10]), "documents": list(summary.documents), "sentence_ids": ids}


def retrieve(index: Index, question: str, options: RetrievalOptions, models: Models) -> QueryResult:
    return retrieve_community(index, question, options, models.embedder, models.settings, models.use_chroma)


METHOD = Method("community", "Community summaries (GraphRAG-global-like)",
                "the community summaries closest to the question, as their cited sentences", retrieve, reads=RANKED)
